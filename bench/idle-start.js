'use strict';
// Idle cost from start-up: each configuration runs in a fresh process that sets it up at once and
// idles; 15 s after the spawn, every thread's CPU time is read from outside, from
// /proc/<pid>/task/*/schedstat (time on a CPU, ns; every thread, lagwatch's worker and V8's
// included), and the process is killed. The window takes in start-up and its first full GC. What
// a configuration costs is its time less that of 'nothing' in the same round; the figure is that
// cost ÷ monitorEventLoopDelay({ resolution: 10 })'s, per round, median and min–max of the rounds.
// Configurations alternate, the order rotating every round. Linux only.
// Usage: node bench/idle-start.js [--rounds N] [--seconds S] [--configs a,b,...] [--json]
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { opt, flag, summary } = require('./lib/stats');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', 5);
const seconds = opt(args, '--seconds', 15);
const configs = opt(args, '--configs', 'nothing,monitorEventLoopDelay,lagwatch').split(',');
const asJson = flag(args, '--json');
const child = path.join(__dirname, 'fixtures', 'idle-start-child.js');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Every living thread's time on a CPU, ms, by thread name; and how many times the threads went to
// sleep and were woken (voluntary context switches): an idle monitor's cost is mostly the kernel's
// work of each wake-up, so the count says where the cost comes from.
function threadTimes(pid) {
  const out = {};
  let wakes = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const status = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      out[comm] = (out[comm] || 0) + ns / 1e6;
      wakes += Number((status.match(/^voluntary_ctxt_switches:\s*(\d+)/m) || [0, 0])[1]);
    } catch {
      // the thread ended
    }
  }
  return { byThread: out, wakes };
}

async function runOne(name) {
  const started = performance.now();
  const p = spawn(process.execPath, [child, name], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    p.stdout.once('data', resolve);
    p.once('exit', (code) => reject(new Error(`${name} exited ${code}`)));
  });
  await sleep(seconds * 1000 - (performance.now() - started));
  const { byThread, wakes } = threadTimes(p.pid);
  p.kill('SIGKILL');
  await new Promise((resolve) => p.once('exit', resolve));
  return { cpuMs: Object.values(byThread).reduce((a, b) => a + b, 0), byThread, wakesPerS: wakes / seconds };
}

(async () => {
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const order = configs.map((_, k) => configs[(k + r) % configs.length]);
    const got = {};
    for (const name of order) got[name] = await runOne(name);
    runs.push(got);
    console.error(`idle-start round ${r + 1}/${rounds}: ` + order.map((n) => `${n} ${got[n].cpuMs.toFixed(1)} ms`).join(', '));
  }
  const cost = (r, n) => r[n].cpuMs - r.nothing.cpuMs;
  const result = { node: process.version, rounds, seconds, configs: {} };
  for (const n of configs) {
    const byThread = {};
    for (const r of runs) for (const [k, v] of Object.entries(r[n].byThread)) (byThread[k] = byThread[k] || []).push(v);
    result.configs[n] = {
      cpuMs: summary(runs.map((r) => r[n].cpuMs)),
      wakesPerS: summary(runs.map((r) => r[n].wakesPerS)),
      costMs: configs.includes('nothing') ? summary(runs.map((r) => cost(r, n))) : null,
      ratio: configs.includes('nothing') && configs.includes('monitorEventLoopDelay')
        ? summary(runs.map((r) => cost(r, n) / cost(r, 'monitorEventLoopDelay'))) : null,
      byThread: Object.fromEntries(Object.entries(byThread).map(([k, v]) => [k, summary(v).median])),
    };
  }
  if (asJson) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  console.log(`CPU of every thread over the first ${seconds} s, ms (median [min-max] of ${rounds} rounds):`);
  for (const [n, c] of Object.entries(result.configs)) {
    console.log(`  ${n.padEnd(24)} ${c.cpuMs.median.toFixed(1)} [${c.cpuMs.min.toFixed(1)}-${c.cpuMs.max.toFixed(1)}]` +
      `  ${c.wakesPerS.median.toFixed(1)} wake-ups/s` +
      (c.costMs ? `  cost ${c.costMs.median.toFixed(1)} ms` : '') +
      (c.ratio ? `  cost ÷ monitorEventLoopDelay's ${c.ratio.median.toFixed(2)} [${c.ratio.min.toFixed(2)}-${c.ratio.max.toFixed(2)}]` : ''));
  }
})();
