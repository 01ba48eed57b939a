'use strict';
// Core costs, as ratios to performance.now() measured in the same run (the machine is shared and
// noisy, so absolute ns are only context):
//  1. validator.submit() on the common path: a small sample, 10 kept non-overlapping intervals,
//     real clock. Target: <= 1.5 x performance.now().
//  2. a held sample (value >= stallThresholdMs): O(1), whatever is already held.
//  3. tracker.findOverlap() with 10, 1 000 and 10 000 kept intervals.
// Usage: node bench/submit.js [--rounds N] [--json]
const lagwatch = require('..');

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) || 9;
const asJson = args.includes('--json');
const N = 1e6;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

// ns per call of fn(i), over n calls.
function time(n, fn) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - t0) / n;
}

let sink = 0;
const noop = (v) => { sink += v; };

// 1. The common path.
const real = lagwatch.createConditions();
const t = lagwatch.now();
for (let i = 0; i < 10; i++) real.tracker.add(t - 100000 + i * 1000, t - 100000 + i * 1000 + 500, 'suspend');
const v = real.createValidator({ name: 'bench' });

const perfNs = [];
const submitNs = [];
time(N, () => { sink += performance.now(); }); // warm-up
time(N, () => v.submit(1, 20, noop));
for (let r = 0; r < rounds; r++) {
  perfNs.push(time(N, () => { sink += performance.now(); }));
  submitNs.push(time(N, () => v.submit(1, 20, noop)));
}
const submitRatio = median(submitNs) / median(perfNs);
const st = real.stats();
if (st.recorded !== st.submitted || st.intervals !== 10) throw new Error('bench: the common path was not taken');

// 2. Held samples on the simulation (they never resolve, so the queue only grows).
function heldCost(alreadyHeld) {
  const sim = lagwatch.createSimulation({ platform: 'linux' });
  const c = lagwatch.createConditions({ clock: sim });
  const hv = c.createValidator({ name: 'held' });
  for (let i = 0; i < alreadyHeld; i++) hv.submit(6000, 6000, noop);
  const ns = time(10000, () => hv.submit(6000, 6000, noop));
  if (c.stats().held !== alreadyHeld + 10000) throw new Error('bench: samples were not held');
  c.dispose();
  return ns;
}
const held = {};
for (const n of [0, 100000]) held[n] = median(Array.from({ length: 5 }, () => heldCost(n)));

// 3. findOverlap with many kept intervals: half the queries hit, half miss.
function findCost(kept) {
  const sim = lagwatch.createSimulation({ platform: 'linux' });
  const c = lagwatch.createConditions({ clock: sim });
  sim.advance(kept * 10 + 1000);
  for (let i = 0; i < kept; i++) c.tracker.add(i * 10, i * 10 + 5, i % 2 ? 'hidden' : 'suspend');
  if (c.tracker.intervals().length !== kept) throw new Error('bench: intervals were not kept');
  const n = 200000;
  return time(n, (i) => {
    const s = (i * 7919) % (kept * 10);
    if (c.tracker.findOverlap(s, s + 1) !== undefined) sink++;
  });
}
const find = {};
const findRounds = {};
for (const kept of [10, 1000, 10000]) {
  findRounds[kept] = Array.from({ length: 5 }, () => findCost(kept));
  find[kept] = median(findRounds[kept]);
}

const perf = median(perfNs);
const result = {
  node: process.version,
  rounds,
  performanceNowNs: perf,
  submitNs: median(submitNs),
  submitRatio,
  // Every round, for min-max: the two were timed alternately, one pair per round.
  performanceNowNsRounds: perfNs,
  submitNsRounds: submitNs,
  submitRatioRounds: submitNs.map((s, i) => s / perfNs[i]),
  submitTargetRatio: 1.5,
  heldNs: held,
  heldRatio100k: held[100000] / held[0],
  findOverlapNs: find,
  findOverlapNsRounds: findRounds,
  findOverlapRatio10k: find[10000] / find[10],
};
if (asJson) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = (x) => x.toFixed(1);
  console.log(`performance.now()              ${f(perf)} ns/op (reference)`);
  console.log(`validator.submit() common path ${f(result.submitNs)} ns/op = ${submitRatio.toFixed(2)} x performance.now() (target <= 1.5)`);
  console.log(`held submit, 0 held before     ${f(held[0])} ns/op`);
  console.log(`held submit, 100000 held       ${f(held[100000])} ns/op (${result.heldRatio100k.toFixed(2)} x: O(1))`);
  for (const k of [10, 1000, 10000]) {
    console.log(`findOverlap, ${String(k).padStart(5)} kept         ${f(find[k])} ns/op = ${(find[k] / perf).toFixed(2)} x performance.now()`);
  }
}
if (sink === 0.5) console.log(''); // keep the work observable
