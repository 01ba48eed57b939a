'use strict';
// Fatal hangs: a process that dies while its main thread is hung (a kill, a force-quit, the OOM
// killer) never reports that hang itself. The C worker, which runs while the main thread is
// blocked, keeps a record of the running hang in the state directory (src/driver/hangrec.h: one
// file per set, written when the hang is flagged, refreshed at most once a second, removed when
// it ends). A set that starts takes the records of processes that are gone and reports each as a
// fatal hang; the records of live processes (another process sharing the directory, a hang in
// progress) are left alone.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { hash64 } = require('./util');

const RECORD = /^hang-(\d+)-(\d+)\.json(\.tmp)?$/;
// A record is a few KiB and its stack at most 64 KiB (LW_HANGREC_STACK_MAX): anything larger is
// no record of ours.
const RECORD_MAX = 128 * 1024;

// Linux: a process's start time, in clock ticks since boot (/proc/<pid>/stat's 22nd field), which
// tells a pid reused by another process from the one that wrote a record. null elsewhere or when
// no such process runs (a zombie, killed and not yet reaped, runs no more).
function startTicks(pid) {
  if (process.platform !== 'linux') return null;
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses: the fields
  // after its last ')' start with the 3rd.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  return fields.length > 19 ? fields[19] : null;
}

// This process's identity, as its records carry it.
function identity() {
  return JSON.stringify({ pid: process.pid, startTicks: startTicks(process.pid) });
}

// Whether the process that wrote a record is gone. On Linux, by its pid and start time; elsewhere
// by its pid alone (a pid reused by a live process keeps the record until that one is gone too).
function gone(proc) {
  if (proc === null || typeof proc !== 'object' || !Number.isInteger(proc.pid) || proc.pid <= 0) return true;
  if (process.platform === 'linux') {
    const now = startTicks(proc.pid);
    if (now === null) return true;
    return typeof proc.startTicks === 'string' && now !== proc.startTicks;
  }
  if (proc.pid === process.pid) return false;
  try {
    process.kill(proc.pid, 0);
    return false;
  } catch (err) {
    return err.code === 'ESRCH';
  }
}

function finite(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

// The records in `dir` of processes that are gone, each read and then removed:
// { records, bad, errors }. Malformed records are removed too (counted in `bad`); a directory
// that cannot be read gives none (its error in `errors`, as for a record that cannot be removed).
function takeRecords(dir) {
  const out = { records: [], bad: 0, errors: [] };
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if (err.code !== 'ENOENT') out.errors.push(`${dir}: ${err.code || err.message}`);
    return out;
  }
  for (const name of names.sort()) {
    const m = RECORD.exec(name);
    if (m === null) continue;
    const file = path.join(dir, name);
    let record = null;
    try {
      const st = fs.statSync(file);
      if (st.size <= RECORD_MAX) record = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      if (err.code === 'ENOENT') continue; // its writer removed it meanwhile
      record = null;
    }
    const proc = record !== null && typeof record === 'object' ? record.process : null;
    // A temporary file, or a record, of a live process: its own.
    if (!gone(proc !== null && proc !== undefined ? proc : { pid: Number(m[1]) })) continue;
    const valid = m[3] === undefined && record !== null && record.lagwatchHang === 1 &&
      finite(record.wallOrigin) && finite(record.start) && finite(record.detectedAt) &&
      finite(record.lastSeen) && record.lastSeen >= record.start;
    try {
      fs.unlinkSync(file);
    } catch (err) {
      if (err.code !== 'ENOENT') {
        // Not removed: not reported either, or every start would report it again.
        out.errors.push(`${file}: ${err.code || err.message}`);
        continue;
      }
    }
    if (valid) out.records.push(record);
    else if (m[3] === undefined) out.bad++;
  }
  return out;
}

// The default state directory of a Node process: per user and per app (its entry point), under
// the OS's temporary directory, so that the next run of the same app finds it.
function defaultStateDir() {
  const entry = (require.main && require.main.filename) || process.argv[1] || process.execPath;
  const full = path.resolve(entry);
  const hash = hash64(full).slice(0, 12);
  let user;
  try {
    user = String(os.userInfo().uid >= 0 ? os.userInfo().uid : os.userInfo().username);
  } catch {
    user = process.env.USER || process.env.USERNAME || 'user';
  }
  const app = path.basename(full).replace(/[^\w.-]/g, '_').slice(0, 40);
  return path.join(os.tmpdir(), `lagwatch-${user.replace(/[^\w.-]/g, '_')}`, `${app}-${hash}`);
}

module.exports = { identity, takeRecords, defaultStateDir, startTicks };
