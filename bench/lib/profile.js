'use strict';
// CPU profiles with Linux perf (cpu-clock sampling with call chains): where the time of a process
// goes, by shared object (inclusive "children" and exclusive "self") and by symbol. Used by
// bench/run.js to show what costs the time in a section; every function returns null, with the
// reason in `error`, when perf is missing or not permitted.
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const node = process.execPath;
const fixtures = path.join(__dirname, '..', 'fixtures');

function perfVersion() {
  const r = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function parseRows(text, columns) {
  const rows = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const m = columns === 2
      ? /^\s+([\d.]+)%\s+([\d.]+)%\s+(.+?)\s*$/.exec(line)
      : /^\s+([\d.]+)%\s+(.+?)\s*$/.exec(line);
    if (!m) continue;
    rows.push(columns === 2 ? { children: Number(m[1]), self: Number(m[2]), name: m[3] } : { self: Number(m[1]), name: m[2] });
  }
  return rows;
}

function report(file) {
  const base = ['report', '-i', file, '--stdio', '-g', 'none'];
  const dso = spawnSync('perf', [...base, '--children', '--sort', 'dso'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const sym = spawnSync('perf', [...base, '--no-children', '--sort', 'dso,sym'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const lw = spawnSync('perf', [...base, '--no-children', '--sort', 'sym', '--dsos', 'lagwatch.node'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const samples = /# Samples: (\S+)/.exec(dso.stdout);
  return {
    samples: samples ? samples[1] : '?',
    byDso: parseRows(dso.stdout, 2).slice(0, 10),
    topSymbols: parseRows(sym.stdout, 1).slice(0, 12),
    lagwatchSymbols: parseRows(lw.stdout, 1).slice(0, 8),
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// perf record of a running process for `seconds`.
function recordPid(pid, seconds, freq) {
  const file = path.join(os.tmpdir(), `lagwatch-bench-${process.pid}-${pid}.perf.data`);
  const args = ['record', '-F', String(freq), '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(seconds)];
  return new Promise((resolve) => {
    const p = spawn('perf', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => {
      if (code !== 0 || !fs.existsSync(file)) return resolve({ error: `perf record: exit ${code}: ${err.trim().split('\n').pop()}` });
      const r = report(file);
      fs.rmSync(file, { force: true });
      resolve({ command: `perf ${args.join(' ').replace(file, 'FILE')}`, ...r });
    });
  });
}

// An idle process with one configuration (bench/fixtures/idle-child.js), profiled for `seconds`.
async function profileIdle(config, seconds = 4, freq = 20000) {
  if (!perfVersion()) return { error: 'perf not found' };
  const child = spawn(node, [path.join(fixtures, 'idle-child.js'), config, String(seconds + 2)], { stdio: 'ignore' });
  const exited = new Promise((res) => child.once('exit', res));
  await sleep(1500);
  const r = await recordPid(child.pid, seconds, freq);
  await exited;
  return { what: `node bench/fixtures/idle-child.js ${config} ${seconds + 2}, profiled from 1.5 s for ${seconds} s`, ...r };
}

// The http server with one configuration, under wrk load, profiled for `seconds`.
async function profileServer(config, wrk, seconds = 4, freq = 1999) {
  if (!perfVersion()) return { error: 'perf not found' };
  if (!wrk) return { error: 'wrk not found' };
  const child = spawn(node, [path.join(fixtures, 'server.js'), config], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((res) => child.once('exit', res));
  const port = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /PORT (\d+)/.exec(out); if (m) resolve(Number(m[1])); });
  });
  const load = spawn(wrk, ['-t2', '-c50', `-d${seconds + 2}s`, `http://127.0.0.1:${port}/`], { stdio: 'ignore' });
  const loaded = new Promise((res) => load.once('exit', res));
  await sleep(1000);
  const r = await recordPid(child.pid, seconds, freq);
  await loaded;
  child.kill('SIGTERM');
  await exited;
  return { what: `node bench/fixtures/server.js ${config} under wrk -t2 -c50 -d${seconds + 2}s, profiled from 1 s for ${seconds} s`, ...r };
}

// A whole command, profiled.
function profileCommand(args, freq = 2000) {
  if (!perfVersion()) return { error: 'perf not found' };
  const file = path.join(os.tmpdir(), `lagwatch-bench-${process.pid}-cmd.perf.data`);
  const rec = ['record', '-F', String(freq), '-g', '-o', file, '--', ...args];
  const r = spawnSync('perf', rec, { encoding: 'utf8' });
  if (r.status !== 0) return { error: `perf record: exit ${r.status}: ${(r.stderr || '').trim().split('\n').pop()}` };
  const out = report(file);
  fs.rmSync(file, { force: true });
  // The command as one would type it in the checkout: no machine's paths.
  const root = path.resolve(__dirname, '..', '..');
  const typed = rec.map((a) => (a === file ? 'FILE' : a === node ? 'node' : a.startsWith(`${root}/`) ? path.relative(root, a) : a));
  return { command: `perf ${typed.join(' ')}`, ...out };
}

module.exports = { perfVersion, profileIdle, profileServer, profileCommand };
