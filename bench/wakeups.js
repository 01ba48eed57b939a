'use strict';
// An idle process that sleeps: how often each thread of an idle process wakes up, with lagwatch's
// defaults, with `stacks: true`, and with the peers of the fault table (monitorEventLoopDelay({
// resolution: 10 }), Sentry's event-loop-block detector), over a bare process (nothing set up) of the same round. Each run is a fresh
// `node bench/fixtures/idle-start-child.js CONFIG` that sets its configuration up at once and
// idles; from --settle seconds after the spawn, every thread's context switches (voluntary +
// nonvoluntary, /proc/<pid>/task/<tid>/status) are counted over --seconds, by thread: the main
// thread, lagwatch's own threads (named `lagwatch` and `lagwatch-stacks` by the addon), and the
// rest by their names (/proc/<pid>/task/<tid>/comm; Node 20 names every thread `node`).
// Why --settle 15: a Worker (the stack thread) starts its own V8 platform threads and heap, which
// wake about once a second each for its first 8–10 s (V8's heap growing and memory reducer after
// start-up, then a GC) and a few times a minute after; 15 s measures the process it then stays.
// The configurations of a round run at once, each in its own process: what is counted is how
// often a thread's timers or messages wake it, which load on the machine does not change (a
// nonvoluntary switch is counted too, so a thread preempted more often on a loaded machine shows).
// Targets over a bare process: the defaults at most 1 wake-up a second, `stacks: true` at most
// 1.5, every thread counted; the process exits 1 (its JSON still printed) when one is missed.
// Linux only.
// Usage: node bench/wakeups.js [--rounds 3] [--settle 15] [--seconds 10] [--configs a,b,...] [--json]
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { opt, flag, summary } = require('./lib/stats');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', 3);
const settle = opt(args, '--settle', 15);
const seconds = opt(args, '--seconds', 10);
const configs = opt(args, '--configs', 'nothing,lagwatch,lagwatch-stacks,monitorEventLoopDelay,sentry').split(',');
const asJson = flag(args, '--json');
const child = path.join(__dirname, 'fixtures', 'idle-start-child.js');
const TARGETS = { lagwatch: 1.0, 'lagwatch-stacks': 1.5 };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// { tid: { name, switches } } of every living thread; the main thread is named `main`.
function threads(pid) {
  const out = {};
  let tids = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const st = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const v = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(st)[1]);
      const n = Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(st)[1]);
      out[tid] = { name: String(tid) === String(pid) ? 'main' : comm, switches: v + n };
    } catch {
      // the thread ended
    }
  }
  return out;
}

// Wake-ups a second over the window, by thread name (threads of one name summed), and in all. A
// thread born in the window counts from 0; one that ended in it counts up to the first snapshot.
function wakeups(before, after, s) {
  const byThread = {};
  let total = 0;
  for (const [tid, t] of Object.entries(after)) {
    const d = (t.switches - (before[tid] ? before[tid].switches : 0)) / s;
    byThread[t.name] = (byThread[t.name] || 0) + d;
    total += d;
  }
  return { total, byThread, threads: Object.keys(after).length };
}

async function runOne(name) {
  const t0 = performance.now();
  const p = spawn(process.execPath, [child, name], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => p.once('exit', resolve));
  await new Promise((resolve, reject) => {
    p.stdout.once('data', resolve);
    p.once('exit', (code) => reject(new Error(`${name} exited ${code}`)));
  });
  await sleep(settle * 1000 - (performance.now() - t0));
  const a = threads(p.pid);
  const ta = performance.now();
  await sleep(seconds * 1000);
  const b = threads(p.pid);
  const s = (performance.now() - ta) / 1000;
  p.kill('SIGKILL');
  await exited;
  return wakeups(a, b, s);
}

(async () => {
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const got = {};
    await Promise.all(configs.map(async (n) => { got[n] = await runOne(n); }));
    runs.push(got);
    console.error(`wakeups round ${r + 1}/${rounds}: ` + configs.map((n) => `${n} ${got[n].total.toFixed(1)}/s`).join(', '));
  }
  const result = { node: process.version, rounds, settle, seconds, configs: {}, targets: TARGETS, missed: [] };
  for (const n of configs) {
    const names = new Set();
    for (const r of runs) for (const k of Object.keys(r[n].byThread)) names.add(k);
    const c = {
      wakesPerS: summary(runs.map((r) => r[n].total)),
      byThread: Object.fromEntries([...names].sort().map((k) => [k, summary(runs.map((r) => r[n].byThread[k] || 0))])),
      threads: summary(runs.map((r) => r[n].threads)),
    };
    if (configs.includes('nothing')) {
      c.overBare = summary(runs.map((r) => r[n].total - r.nothing.total));
      c.byThreadOverBare = Object.fromEntries([...names].sort().map((k) => [k,
        summary(runs.map((r) => (r[n].byThread[k] || 0) - (r.nothing.byThread[k] || 0)))]));
    }
    if (TARGETS[n] !== undefined && c.overBare) {
      c.target = TARGETS[n];
      c.met = c.overBare.median <= TARGETS[n];
      if (!c.met) result.missed.push(`${n}: ${c.overBare.median.toFixed(2)} wake-ups a second over a bare process (target ≤ ${TARGETS[n]})`);
    }
    result.configs[n] = c;
  }
  if (asJson) {
    console.log(JSON.stringify(result, null, 1));
  } else {
    console.log(`wake-ups a second, every thread, from ${settle} s after the spawn over ${seconds} s (median [min-max] of ${rounds} rounds):`);
    for (const [n, c] of Object.entries(result.configs)) {
      console.log(`  ${n.padEnd(22)} ${c.wakesPerS.median.toFixed(2)} [${c.wakesPerS.min.toFixed(2)}-${c.wakesPerS.max.toFixed(2)}]` +
        (c.overBare ? `  over bare ${c.overBare.median.toFixed(2)}` : '') +
        (c.target !== undefined ? ` (target ≤ ${c.target}: ${c.met ? 'met' : 'MISSED'})` : ''));
      console.log(`    ${Object.entries(c.byThread).map(([k, v]) => `${k} ${v.median.toFixed(2)}`).join(', ')}`);
    }
  }
  if (result.missed.length) process.exitCode = 1;
})();
