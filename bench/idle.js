'use strict';
// CPU time of an idle process running lagwatch's full default set of monitors, against the same
// process running only perf_hooks.monitorEventLoopDelay({ resolution: 10 }) (Node's own), and
// with --all against every peer (bench/lib/peers.js). The configurations are run alternately
// (A B A B ..., the order rotating every round), each child measuring its own CPU time (user +
// system, all threads) over the same window after a 1 s warm-up; the figures are medians of the
// per-round ratios. Target: lagwatch / monitorEventLoopDelay <= 1.0.
// Usage: node bench/idle.js [--rounds N] [--seconds S] [--all | --configs a,b,...] [--json]
const { runIdle } = require('./lib/idle');
const { CONFIGS } = require('./lib/peers');
const { opt, flag } = require('./lib/stats');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', opt(args, '--pairs', 5));
const seconds = opt(args, '--seconds', 5);
const asJson = flag(args, '--json');
const configs = flag(args, '--all') ? CONFIGS
  : opt(args, '--configs', 'nothing,lagwatch,monitorEventLoopDelay').split(',');

const res = runIdle({ configs, rounds, seconds, log: (s) => console.error(s) });
const lw = res.configs.lagwatch;
const result = {
  node: process.version,
  rounds,
  seconds,
  cpuMsPerSecond: Object.fromEntries(configs.map((n) => [n, res.configs[n].cpuMsPerSecond.median])),
  ratio: lw.ratio.median,
  ratioMin: lw.ratio.min,
  ratioMax: lw.ratio.max,
  targetMet: lw.ratio.median <= 1.0,
  detail: res,
};
if (asJson) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = (x) => x.toFixed(3);
  console.log(`idle CPU, ms per second (median [min-max] of ${rounds} rounds of ${seconds} s), wake-ups/s:`);
  for (const n of configs) {
    const c = res.configs[n];
    console.log(`  ${n.padEnd(24)} ${f(c.cpuMsPerSecond.median)} [${f(c.cpuMsPerSecond.min)}-${f(c.cpuMsPerSecond.max)}]` +
      `  ${c.wakeupsPerSecond.median.toFixed(0)}/s` +
      (c.ratio ? `  ratio to monitorEventLoopDelay ${c.ratio.median.toFixed(2)} [${c.ratio.min.toFixed(2)}-${c.ratio.max.toFixed(2)}]` : ''));
  }
  console.log(`ratio lagwatch / monitorEventLoopDelay: ${result.ratio.toFixed(2)} ` +
    `(min ${result.ratioMin.toFixed(2)}, max ${result.ratioMax.toFixed(2)}; target <= 1.0)`);
}
