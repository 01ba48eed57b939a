'use strict';
// CPU time of an idle process running lagwatch's full default set of monitors, against the same
// process running only perf_hooks.monitorEventLoopDelay({ resolution: 10 }) (Node's own). The two
// are run alternately (A B A B ...), each measuring its own CPU time (user + system, all threads)
// over the same window after a warm-up; the figure is the median of the per-pair ratios.
// Target: ratio <= 1.0.
// Usage: node bench/idle.js [--pairs N] [--seconds S] [--json]
const { spawnSync } = require('child_process');
const path = require('path');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const pairs = opt('--pairs', 5);
const seconds = opt('--seconds', 5);
const asJson = args.includes('--json');
const root = path.resolve(__dirname, '..');

// The child: set up the monitor, idle 1 s, then measure `seconds` of idling.
const child = (setup) => `
  ${setup}
  setTimeout(() => {
    const u0 = process.cpuUsage();
    setTimeout(() => {
      const u = process.cpuUsage(u0);
      console.log(JSON.stringify({ cpuMs: (u.user + u.system) / 1000 }));
      process.exit(0);
    }, ${seconds * 1000});
  }, 1000);
`;
const configs = {
  nothing: child(''),
  lagwatch: child(`require(${JSON.stringify(root)}).setupAllMonitors();`),
  monitorEventLoopDelay: child(`require('perf_hooks').monitorEventLoopDelay({ resolution: 10 }).enable();`),
};

function run(name) {
  const r = spawnSync(process.execPath, ['-e', configs[name]], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${name}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).cpuMs;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const res = { nothing: [], lagwatch: [], monitorEventLoopDelay: [], ratio: [] };
for (let i = 0; i < pairs; i++) {
  // Alternate which goes first, so that a drift in the machine's load falls on both.
  const order = i % 2 ? ['monitorEventLoopDelay', 'lagwatch'] : ['lagwatch', 'monitorEventLoopDelay'];
  const got = {};
  for (const name of order) got[name] = run(name);
  res.lagwatch.push(got.lagwatch);
  res.monitorEventLoopDelay.push(got.monitorEventLoopDelay);
  res.ratio.push(got.lagwatch / got.monitorEventLoopDelay);
  res.nothing.push(run('nothing'));
}
const perSec = (xs) => median(xs) / seconds;
const result = {
  node: process.version,
  pairs,
  seconds,
  cpuMsPerSecond: {
    nothing: perSec(res.nothing),
    lagwatch: perSec(res.lagwatch),
    monitorEventLoopDelay: perSec(res.monitorEventLoopDelay),
  },
  ratio: median(res.ratio),
  ratioMin: Math.min(...res.ratio),
  ratioMax: Math.max(...res.ratio),
};
if (asJson) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = (x) => x.toFixed(3);
  console.log(`idle CPU, ms per second (median of ${pairs} runs of ${seconds} s):`);
  console.log(`  nothing                                 ${f(result.cpuMsPerSecond.nothing)}`);
  console.log(`  monitorEventLoopDelay({resolution: 10}) ${f(result.cpuMsPerSecond.monitorEventLoopDelay)} (reference)`);
  console.log(`  lagwatch, every default monitor         ${f(result.cpuMsPerSecond.lagwatch)}`);
  console.log(`ratio lagwatch / monitorEventLoopDelay: ${result.ratio.toFixed(2)} ` +
    `(min ${result.ratioMin.toFixed(2)}, max ${result.ratioMax.toFixed(2)}; target <= 1.0)`);
}
