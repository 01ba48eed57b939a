'use strict';
// What watching V8's garbage collection costs, the two ways SPEC §12 allows for a hang's gcMs:
// perf_hooks' gc entries (a PerformanceObserver whose callback packs each batch into a
// Float64Array, as lib/monitors.js does) against v8.GCProfiler (started for the whole run), on a
// workload that collects all the time (short-lived objects, a retained array that grows and is
// dropped). Each configuration runs in a fresh process, alternated, the order rotating every
// round; the figure is the workload's iterations per second ÷ the 'nothing' process of the same
// round. GCProfiler reports each collection's cost but not when it happened, so only the
// observer can place GC inside a hang's span; this measures whether that choice costs more.
// Usage: node bench/gc.js [--rounds 5] [--seconds 3] [--json]
const { spawnSync } = require('child_process');
const { summary, opt, flag } = require('./lib/stats');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', 5);
const seconds = opt(args, '--seconds', 3);
const asJson = flag(args, '--json');
const CONFIGS = ['nothing', 'perf_hooks', 'GCProfiler'];

const CHILD = `
const [config, seconds] = process.argv.slice(1);
let pauses = 0;
let stop = () => {};
if (config === 'perf_hooks') {
  const { PerformanceObserver } = require('perf_hooks');
  const obs = new PerformanceObserver((list) => {
    const entries = list.getEntries();
    const a = new Float64Array(entries.length * 2);
    for (let i = 0; i < entries.length; i++) { a[2 * i] = entries[i].startTime; a[2 * i + 1] = entries[i].duration; }
    pauses += entries.length;
  });
  obs.observe({ entryTypes: ['gc'] });
  stop = () => obs.disconnect();
} else if (config === 'GCProfiler') {
  const p = new (require('v8').GCProfiler)();
  p.start();
  stop = () => { pauses = p.stop().statistics.length; };
}
let kept = [];
let iterations = 0;
const end = performance.now() + Number(seconds) * 1000;
function slice() {
  for (let i = 0; i < 2000; i++) {
    const o = { i, s: 'x' + i, a: [i, i + 1, i + 2] };
    if (i % 10 === 0) kept.push(o);
  }
  if (kept.length > 200000) kept = [];
  iterations++;
  if (performance.now() < end) setImmediate(slice);
  else { stop(); setImmediate(() => console.log(JSON.stringify({ iterations, pauses }))); }
}
setImmediate(slice);
`;

const runs = [];
for (let r = 0; r < rounds; r++) {
  const got = {};
  for (let k = 0; k < CONFIGS.length; k++) {
    const name = CONFIGS[(k + r) % CONFIGS.length];
    const p = spawnSync(process.execPath, ['-e', CHILD, name, String(seconds)], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(`${name}: ${p.stderr}`);
    got[name] = JSON.parse(p.stdout.trim());
  }
  runs.push(got);
  console.error(`gc round ${r + 1}/${rounds}: ` + CONFIGS.map((n) => `${n} ${got[n].iterations} (${got[n].pauses} pauses)`).join(', '));
}
const result = { rounds, seconds, configs: {} };
for (const name of CONFIGS) {
  result.configs[name] = {
    iterations: summary(runs.map((r) => r[name].iterations)),
    pauses: summary(runs.map((r) => r[name].pauses)),
    ratio: summary(runs.map((r) => r[name].iterations / r.nothing.iterations)),
  };
}
if (asJson) {
  console.log(JSON.stringify(result, null, 2));
} else {
  for (const name of CONFIGS) {
    const c = result.configs[name];
    console.log(`${name.padEnd(12)} iterations/s ÷ nothing ${c.ratio.median.toFixed(3)} ` +
      `[${c.ratio.min.toFixed(3)}-${c.ratio.max.toFixed(3)}], ${c.pauses.median} GC pauses seen`);
  }
}
