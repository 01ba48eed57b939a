'use strict';
// Shared helpers of the mocha suites (not a suite itself: its name does not end in .test.js).
const assert = require('assert');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const lw = require(ROOT);

const BUILTIN_REASONS = ['hidden', 'frozen', 'suspend', 'pause', 'throttled', 'debugger'];
// The monitors as the core's table has them (test/monitors-api.test.js checks it against SPEC §6):
// every name in order, the validated ones (each with a histogram of recorded samples), and those
// setupAllMonitors pauses while the app is hidden (in a Node process).
const native = require(path.join(ROOT, 'lib', 'native'));
const MONITORS = {
  names: native.monNames(),
  validated: native.monMetrics().map(([name]) => name),
  pausedWhileHidden: native.monNames().filter((name) => native.monPausedWhileHidden(name, false)),
};
const MONITOR_KEYS = ['cancelled', 'discarded', 'held', 'max', 'mean', 'min', 'p50', 'p99',
  'recorded', 'submitted'];

// A simulation on linux at 0 and a conditions driven by it, with a logger that keeps every line.
function fresh(options = {}, simOptions = { platform: 'linux', startMs: 0 }) {
  const sim = lw.createSimulation(simOptions);
  const logs = [];
  const logger = { log: (level, message) => logs.push({ level, message }) };
  const c = lw.createConditions({ clock: sim, logger, ...options });
  return { sim, c, logs };
}

// Advances the simulation to exactly `t`.
function advanceTo(sim, t) {
  const d = t - sim.now();
  assert.ok(d >= 0, `cannot advance back from ${sim.now()} to ${t}`);
  sim.advance(d);
  assert.strictEqual(sim.now(), t, 'simulation time');
}

function sumDiscarded(discarded) {
  return Object.values(discarded).reduce((a, b) => a + b, 0);
}

// submitted = recorded + discarded + held + cancelled, for the conditions and for each monitor.
function assertConservation(stats, where = '') {
  const d = sumDiscarded(stats.discarded);
  assert.strictEqual(stats.recorded + d + stats.held + stats.cancelled, stats.submitted,
    `conditions conservation ${where}: ${JSON.stringify(stats)}`);
  let sub = 0;
  let rec = 0;
  let dis = 0;
  let held = 0;
  let can = 0;
  for (const [name, m] of Object.entries(stats.monitors)) {
    assert.strictEqual(m.recorded + m.discarded + m.held + m.cancelled, m.submitted,
      `monitor ${name} conservation ${where}: ${JSON.stringify(m)}`);
    sub += m.submitted;
    rec += m.recorded;
    dis += m.discarded;
    held += m.held;
    can += m.cancelled;
  }
  assert.deepStrictEqual({ sub, rec, dis, held, can },
    { sub: stats.submitted, rec: stats.recorded, dis: d, held: stats.held, can: stats.cancelled },
    `monitors add up to the conditions ${where}`);
}

// Everything observable that a rejected call must leave alone.
function snapshot(ctx) {
  const s = {
    stats: ctx.c.stats(),
    intervals: ctx.c.tracker.intervals(),
    state: ctx.c.lifecycle.state,
  };
  if (ctx.sim) s.now = ctx.sim.now();
  return s;
}

// `fn` throws an instance of `Cls` with `code` whose message names `arg`; if `ctx` is given,
// nothing observable changed.
function assertRejects(fn, Cls, code, arg, ctx) {
  const before = ctx ? snapshot(ctx) : null;
  let thrown = null;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown !== null, `expected a ${Cls.name} naming "${arg}", nothing was thrown`);
  assert.ok(thrown instanceof Cls,
    `expected a ${Cls.name}, got ${thrown && thrown.constructor && thrown.constructor.name}: ${thrown && thrown.message}`);
  assert.strictEqual(thrown.constructor, Cls, `exactly a ${Cls.name}`);
  if (code !== undefined) assert.strictEqual(thrown.code, code, `code of "${thrown.message}"`);
  if (arg !== undefined) {
    const re = new RegExp(`(^|[^A-Za-z0-9_])${arg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z0-9_]|$)`);
    assert.match(thrown.message, re, `the message names "${arg}"`);
  }
  if (ctx) assert.deepStrictEqual(snapshot(ctx), before, 'nothing changed after the rejected call');
  return thrown;
}

// Deterministic PRNG (mulberry32).
function rng(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The SPEC §2 overlap rule, as a reference.
function overlaps(iv, ws, we) {
  if (iv.end === Infinity) return we >= iv.start;
  return iv.start < we && iv.end > ws;
}

// Collects 'stall' events together with the simulated time at which they came.
function collectStalls(c, sim) {
  const stalls = [];
  c.on('stall', (s) => stalls.push({ at: sim ? sim.now() : undefined, stall: s }));
  return stalls;
}

module.exports = {
  lw, ROOT, BUILTIN_REASONS, MONITORS, MONITOR_KEYS, fresh, advanceTo, sumDiscarded, assertConservation,
  snapshot, assertRejects, rng, overlaps, collectStalls,
};
