'use strict';
// Fatal hangs: a process that dies while its main thread is hung (a kill, a force-quit, the OOM
// killer) never reports that hang itself. The C worker, which runs while the main thread is
// blocked, keeps a record of the running hang in the state directory (src/driver/hangrec.h: one
// file per set, written when the hang is flagged, refreshed at most once a second, removed when
// it ends). A set that starts takes the records of processes that are gone and reports each as a
// fatal hang; the records of live processes (another process sharing the directory, a hang in
// progress) are left alone.
//
// The directory is the user's own (SPEC §13): judged at setup here and again by the worker before
// each hang's first write (src/core/statedir.h), a refused one neither written nor read. Its
// records are read with the same care: only the user's own regular files, opened without
// following a link; anything else is skipped and counted, never reported.
const fs = require('fs');
const path = require('path');
const native = require('./native');
const { hash64 } = require('./util');

// A record (`hang-<pid>-<set>-<random>.json`, or without the random part as earlier versions
// named it), or the temporary file of one being written (src/driver/ownfiles.c).
const RECORD = /^hang-(\d+)-(\d+)(?:-[0-9a-f]{8})?\.json(\.[0-9a-f]{16}\.tmp)?$/;

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

// Linux: the kernel's boot (a new id at each boot) and this process's PID namespace (its inode:
// processes of other containers have pids of their own). null elsewhere or when unreadable.
function linuxText(read) {
  if (process.platform !== 'linux') return null;
  try {
    return read();
  } catch {
    return null;
  }
}

let own = null;
// This process's identity, as its records carry it: enough to tell, from any process sharing the
// directory, whether the writer could be alive and seen from here.
function ownIdentity() {
  if (own === null) {
    // Linux: the host name of this process's UTS namespace, read without loading `os` (a set
    // with the defaults loads nothing it does not need).
    let host = linuxText(() => fs.readFileSync('/proc/sys/kernel/hostname', 'latin1').trim());
    if (process.platform !== 'linux') {
      try {
        host = require('os').hostname();
      } catch {
        // no host name: the record says null
      }
    }
    own = {
      pid: process.pid,
      startTicks: startTicks(process.pid),
      bootId: linuxText(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()),
      pidNs: linuxText(() => /^pid:\[(\d+)\]$/.exec(fs.readlinkSync('/proc/self/ns/pid'))[1]),
      host: typeof host === 'string' && host.length <= 255 ? host : null,
    };
  }
  return own;
}

// What a set's records say of their writer (src/driver/hangrec.h): this process, and the thread
// the set watches (`{ id, name }`, lib/native.js).
function writer(thread) {
  const name = typeof thread.name === 'string' ? thread.name.slice(0, 256) : thread.name;
  return `"process":${JSON.stringify(ownIdentity())},"thread":${JSON.stringify({ id: thread.id, name })}`;
}

// A running hang's record is refreshed every second (src/driver/hangrec.h): one untouched for this
// long was left by a process that is gone (or stopped all that time).
const STALE_MS = 30000;

// What can be known of a record's writer from here: 'gone' (its process is provably gone),
// 'live', or 'elsewhere' (a process this one cannot see, which may still run). Another host's:
// elsewhere. This host's, booted since: gone. This boot's, in another PID namespace (a container,
// `unshare`): elsewhere while its record is refreshed, gone once it was left untouched for
// STALE_MS (a container restarted on the same host and volume reports its predecessor's hang).
// Records of earlier versions, without boot, namespace or host, are judged as written here.
function whereIs(proc, mtimeMs) {
  if (proc === null || typeof proc !== 'object' || !Number.isInteger(proc.pid) || proc.pid <= 0) return 'gone';
  const me = ownIdentity();
  const differs = (key) => typeof proc[key] === 'string' && typeof me[key] === 'string' && proc[key] !== me[key];
  if (differs('host')) return 'elsewhere';
  if (differs('bootId')) return 'gone';
  if (differs('pidNs')) return Date.now() - mtimeMs > STALE_MS ? 'gone' : 'elsewhere';
  return gone(proc) ? 'gone' : 'live';
}

// Whether the process that wrote a record (seen from here) is gone. On Linux, by its pid and
// start time; elsewhere by its pid alone (a pid reused by a live process keeps the record until
// that one is gone too).
function gone(proc) {
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

// The reach of a record's times: ms on its writer's clock (0 at its start, wallOrigin on the wall
// clock), and the wall clock's own. A record outside them was not written by a lagwatch.
const MAX_MS = 1e12; // 31 years of a process's life
const MAX_WALL_MS = 1e14; // the year 5138
const MAX_TEXT = 4096; // a frame's name or URL, a span's ids and name

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v) => typeof v === 'string' && v.length <= MAX_TEXT;
const count = (v) => Number.isInteger(v) && v >= 0 && v <= 2 ** 31;
const ms = (v) => finite(v) && v >= 0 && v <= MAX_MS;

// A frame as lib/stacks.js writes it.
function frameShape(f) {
  return isObject(f) && text(f.functionName) && text(f.url) && count(f.lineNumber) && count(f.columnNumber);
}

// The whole of a record as src/driver/hangrec.c writes it, every field's type and range checked
// before anything reads it: anything else is malformed, removed and counted, never reported
// (another lagwatch's format, a hand edit, a disk error). Its process's boot, namespace and host,
// its thread and `ended` are absent from earlier versions' records.
function recordShape(r) {
  if (!isObject(r) || r.lagwatchHang !== 1) return false;
  const p = r.process;
  const optional = (v, ok) => v === undefined || v === null || ok(v);
  if (!isObject(p) || !Number.isInteger(p.pid) || p.pid <= 0 || p.pid > 2 ** 31 ||
      !(p.startTicks === null || (typeof p.startTicks === 'string' && /^\d{1,20}$/.test(p.startTicks))) ||
      !optional(p.bootId, (v) => typeof v === 'string' && /^[0-9a-f-]{1,64}$/.test(v)) ||
      !optional(p.pidNs, (v) => typeof v === 'string' && /^\d{1,20}$/.test(v)) ||
      !optional(p.host, (v) => typeof v === 'string' && v.length <= 255)) return false;
  if (!optional(r.thread, (t) => isObject(t) && count(t.id) && (t.name === null || text(t.name)))) return false;
  if (!(r.ended === undefined || r.ended === null || r.ended === 'terminated')) return false;
  if (!(finite(r.wallOrigin) && r.wallOrigin > 0 && r.wallOrigin <= MAX_WALL_MS)) return false;
  if (!(ms(r.start) && ms(r.detectedAt) && ms(r.lastSeen) && r.start <= r.detectedAt && r.detectedAt <= r.lastSeen)) return false;
  // The cause: the core's rule (lw_cause_valid), the one condReportFatal applies.
  if (r.cause !== null && !(isObject(r.cause) && native.causeValid(r.cause))) return false;
  if (typeof r.stackLeftOut !== 'boolean') return false;
  const st = r.stack;
  if (st !== null) {
    if (!isObject(st) || !Array.isArray(st.frames) || st.frames.length > 1000 || !st.frames.every(frameShape)) return false;
    const t = st.trace;
    if (!(t === null || t === undefined || (isObject(t) && text(t.traceId) && text(t.spanId) && count(t.traceFlags) &&
        (t.name === undefined || text(t.name))))) return false;
  }
  return true;
}

// A temporary file lives from its creation to its rename, microseconds: one a minute old was left
// by a writer that died between the two.
function young(file) {
  try {
    return Date.now() - fs.lstatSync(file).mtimeMs < 60000;
  } catch {
    return true;
  }
}

// The uid files must be owned by (the process's effective one); null where the platform has none.
function ownUid() {
  return typeof process.geteuid === 'function' ? process.geteuid() : null;
}

// A record's text, read only if the core's rule takes it as one of the user's own (regular, the
// user's, within the size bound: src/core/statedir.h): { text } or { skip: why } (ENOENT: its
// writer removed it meanwhile). The file is opened without following a link and judged again on
// what was opened. A running hang's writer replaces its record (a rename) as the hang goes on: one
// replaced between the look and the open is read again, the new one judged as the first was.
function readOwn(file) {
  let got;
  for (let tries = 0; tries < 3; tries++) {
    got = readOnce(file);
    if (got.skip !== 'replaced while read') return got;
  }
  return got;
}

function readOnce(file) {
  const uid = ownUid();
  const judge = (st) => native.stateRecordCheck(st.isSymbolicLink(), st.isFile(), st.uid, uid, st.size);
  const before = fs.lstatSync(file);
  let why = judge(before);
  if (why !== null) return { skip: why };
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0));
  try {
    const st = fs.fstatSync(fd);
    why = judge(st);
    if (why === null && (st.ino !== before.ino || st.dev !== before.dev)) why = 'replaced while read';
    if (why !== null) return { skip: why };
    // As judged: a file that grew past its judged size meanwhile is no record of ours.
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    let k;
    while (n < buf.length && (k = fs.readSync(fd, buf, n, buf.length - n, null)) > 0) n += k;
    if (n > st.size) return { skip: 'grew while read' };
    return { text: buf.toString('utf8', 0, n), mtimeMs: st.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

// The records in `dir` of processes that are gone (and of this process's terminated threads), each
// read and then removed: { records, bad, skipped, skips, errors, elsewhere }. Malformed records
// (the user's own files) are removed too, counted in `bad`; entries that are not the user's own
// regular files are left alone, counted in `skipped` with why (`skips`); records of processes
// this one cannot see (another host or PID namespace) are left alone, counted in `elsewhere`; a
// directory that cannot be read gives none (its error in `errors`, as for a record that cannot
// be removed).
function takeRecords(dir) {
  const out = { records: [], bad: 0, skipped: 0, skips: [], errors: [], elsewhere: 0 };
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
    if (m[3] !== undefined && young(file)) continue; // a temporary file being written: its writer's
    let record = null;
    let mtimeMs = Date.now();
    try {
      const r = readOwn(file);
      if (r.skip !== undefined) {
        out.skipped++;
        out.skips.push(`${name}: ${r.skip}`);
        continue;
      }
      mtimeMs = r.mtimeMs;
      record = JSON.parse(r.text);
    } catch (err) {
      if (err.code === 'ENOENT') continue; // its writer removed it meanwhile
      if (err.code === 'ELOOP' || err.code === 'EMLINK') {
        // Made a link between the look and the open.
        out.skipped++;
        out.skips.push(`${name}: a symbolic link`);
        continue;
      }
      record = null;
    }
    const valid = m[3] === undefined && recordShape(record);
    // A record of a live process (another process sharing the directory, a hang in progress) is
    // its own; so is one of a process this one cannot see (another host or container), counted.
    // A thread's record that says it was terminated (a worker ended while hung) is this process's
    // to take once its writer is this process. (A malformed record or a temporary file is judged
    // by its name's pid.)
    const where = whereIs(valid ? record.process : { pid: Number(m[1]) }, mtimeMs);
    if (where === 'elsewhere') {
      out.elsewhere++;
      continue;
    }
    if (where === 'live' && !(valid && record.ended === 'terminated' && record.process.pid === process.pid)) continue;
    // Removed once taken (read whole above), and reported only by the process whose removal
    // took it: another that started beside this one (a cluster's workers) and removed it first
    // reports it, once.
    try {
      fs.unlinkSync(file);
    } catch (err) {
      // Not removed: not reported either, or every start would report it again.
      if (err.code !== 'ENOENT') out.errors.push(`${file}: ${err.code || err.message}`);
      continue;
    }
    if (valid) out.records.push(record);
    else if (m[3] === undefined) out.bad++;
  }
  return out;
}

// Whether `dir` is a directory the user owns (POSIX; elsewhere one that exists): a home directory
// that is not (a container's user whose home is `/`) keeps no state.
function usableHome(dir) {
  if (typeof dir !== 'string' || dir === '' || !path.isAbsolute(dir)) return false;
  try {
    const st = fs.statSync(dir);
    const uid = ownUid();
    return st.isDirectory() && (uid === null || st.uid === uid);
  } catch {
    return false;
  }
}

// The base of the default state directory: the user's own, never a directory others share.
// Linux and other Unixes: $XDG_STATE_HOME (an absolute path), else ~/.local/state; macOS:
// ~/Library/Caches; Windows: %LOCALAPPDATA%. Without a usable home directory (and no
// XDG_STATE_HOME or LOCALAPPDATA), the OS's temporary directory, in a directory per user (null).
function stateBase(env = process.env, platform = process.platform) {
  if (platform === 'win32' && typeof env.LOCALAPPDATA === 'string' && path.win32.isAbsolute(env.LOCALAPPDATA)) {
    return env.LOCALAPPDATA;
  }
  if (platform !== 'win32' && platform !== 'darwin' && typeof env.XDG_STATE_HOME === 'string' &&
    path.isAbsolute(env.XDG_STATE_HOME)) {
    return env.XDG_STATE_HOME;
  }
  let home;
  try {
    // os.homedir() reads HOME first on POSIX: read here, it spares every process the os module.
    home = platform !== 'win32' && process.env.HOME !== undefined ? process.env.HOME : require('os').homedir();
  } catch {
    return null;
  }
  if (!usableHome(home)) return null;
  if (platform === 'win32') return path.join(home, 'AppData', 'Local');
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches');
  return path.join(home, '.local', 'state');
}

// The default state directory of a Node process: per user and per app (its entry point), so that
// the next run of the same app finds it: `<base>/lagwatch/<app>-<hash>` (stateBase), or
// `<tmpdir>/lagwatch-<uid>/<app>-<hash>` without a base (judged like any other).
function defaultStateDir() {
  const entry = (require.main && require.main.filename) || process.argv[1] || process.execPath;
  const full = path.resolve(entry);
  const hash = hash64(full).slice(0, 12);
  const app = `${path.basename(full).replace(/[^\w.-]/g, '_').slice(0, 40)}-${hash}`;
  const base = stateBase();
  if (base !== null) return path.join(base, 'lagwatch', app);
  const os = require('os');
  let user;
  try {
    user = String(os.userInfo().uid >= 0 ? os.userInfo().uid : os.userInfo().username);
  } catch {
    user = process.env.USER || process.env.USERNAME || 'user';
  }
  return path.join(os.tmpdir(), `lagwatch-${user.replace(/[^\w.-]/g, '_')}`, app);
}

module.exports = { writer, takeRecords, defaultStateDir, stateBase, startTicks };
