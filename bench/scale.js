'use strict';
// Scale: memory stays flat. On a simulated clock (so that retention expires the intervals), 10
// checkpoints of 1 000 000 validator.submit() calls and 100 000 tracker.add() intervals each
// (an interval every 10 submits, the clock advanced --step-ms (100) every 10 submits, the default
// retention of 120 000 ms: about 1 200 intervals are kept at any time, the rest have expired).
// At each checkpoint, after a full GC: RSS, V8 heap used and external memory.
// Target: flat, RSS growth between the second and the last checkpoint <= 1 MB.
// Then the cost of expiry at steady state: tracker.add() + sim.advance(1 ms) when each add lets
// one interval expire, with 1 000, 10 000 and 100 000 intervals kept (retentionMs = that many ms).
// Usage: node --expose-gc bench/scale.js [--checkpoints 10] [--submits 1000000] [--step-ms 100] [--json]
//        node --expose-gc bench/scale.js --expiry-only 30000 [--adds 20000]   (for a profile)
const lagwatch = require('..');
const { opt, flag } = require('./lib/stats');

if (typeof global.gc !== 'function') {
  console.error('run with node --expose-gc');
  process.exit(2);
}
const args = process.argv.slice(2);
const checkpoints = opt(args, '--checkpoints', 10);
const submits = opt(args, '--submits', 1e6);
const stepMs = opt(args, '--step-ms', 100);
const asJson = flag(args, '--json');
const MB = 1024 * 1024;

const reasons = ['pause', 'maintenance'];

// Steady-state expiry: every add lets the oldest interval expire.
function expiryCost(kept, n = Math.max(500, Math.min(20000, Math.round(1e8 / kept)))) {
  const s2 = lagwatch.createSimulation({ platform: 'linux', startMs: 0 });
  const c2 = lagwatch.createConditions({ clock: s2, retentionMs: kept });
  s2.advance(1000);
  const add = (i) => { const now = s2.now(); c2.tracker.add(now - 100, now - 90, reasons[i & 1]); s2.advance(1); };
  for (let i = 0; i < kept + 200; i++) add(i);
  const ta = process.hrtime.bigint();
  for (let i = 0; i < n; i++) add(i);
  const ns = Number(process.hrtime.bigint() - ta) / n;
  const keptNow = c2.stats().intervals;
  c2.dispose();
  return { kept: keptNow, n, nsPerAdd: ns };
}

// --expiry-only N: only the steady-state expiry with N kept, for a profile.
if (args.includes('--expiry-only')) {
  const e = expiryCost(opt(args, '--expiry-only', 30000), opt(args, '--adds', 20000));
  console.log(JSON.stringify(e));
  process.exit(0);
}

const sim = lagwatch.createSimulation({ platform: 'linux', startMs: 0 });
const c = lagwatch.createConditions({ clock: sim });
const v = c.createValidator({ name: 'scale' });
let sink = 0;
const record = (x) => { sink += x; };
sim.advance(1000);

function mem() {
  global.gc();
  const m = process.memoryUsage();
  return { rssMB: m.rss / MB, heapUsedMB: m.heapUsed / MB, externalMB: m.external / MB };
}

const rows = [{ checkpoint: 0, submits: 0, intervalsAdded: 0, kept: 0, ...mem() }];
let totalSubmits = 0;
let totalIntervals = 0;
const t0 = process.hrtime.bigint();
for (let k = 1; k <= checkpoints; k++) {
  for (let i = 0; i < submits; i++) {
    if (i % 10 === 0) {
      const now = sim.now();
      // In the past: no submit window ([now - 20, now]) overlaps it, so submits take the common path.
      c.tracker.add(now - 100, now - 90, reasons[(i / 10) & 1]);
      totalIntervals++;
      sim.advance(stepMs);
    }
    v.submit(1, 20, record);
    totalSubmits++;
  }
  rows.push({ checkpoint: k, submits: totalSubmits, intervalsAdded: totalIntervals, kept: c.stats().intervals, ...mem() });
  if (!asJson) {
    const r = rows[rows.length - 1];
    console.log(`checkpoint ${k}: ${r.submits} submits, ${r.intervalsAdded} intervals added, ${r.kept} kept; ` +
      `RSS ${r.rssMB.toFixed(1)} MB, heap ${r.heapUsedMB.toFixed(1)} MB, external ${r.externalMB.toFixed(1)} MB`);
  }
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const st = c.stats();
if (st.submitted !== totalSubmits || st.recorded !== totalSubmits) throw new Error('scale: submits did not all take the common path');
const expiry = [1000, 10000, 100000].map((kept) => expiryCost(kept));
if (!asJson) for (const e of expiry) console.log(`steady-state add + expiry with ${e.kept} kept: ${(e.nsPerAdd / 1000).toFixed(1)} us per add`);
const second = rows[2] || rows[1];
const last = rows[rows.length - 1];
const result = {
  node: process.version,
  checkpoints: rows,
  seconds,
  submitted: st.submitted,
  recorded: st.recorded,
  intervalsAdded: totalIntervals,
  intervalsKept: st.intervals,
  intervalsExpired: totalIntervals - st.intervals,
  growthSecondToLastMB: last.rssMB - second.rssMB,
  heapGrowthSecondToLastMB: last.heapUsedMB - second.heapUsedMB,
  targetMB: 1,
  stepMs,
  expiry,
};
result.targetMet = result.growthSecondToLastMB <= result.targetMB;
if (asJson) console.log(JSON.stringify(result, null, 2));
else console.log(`RSS growth from checkpoint 2 to ${checkpoints}: ${result.growthSecondToLastMB.toFixed(2)} MB (target <= 1 MB); ${result.intervalsExpired} intervals expired, ${result.intervalsKept} kept; ${seconds.toFixed(1)} s`);
if (sink === 0.5) console.log('');
