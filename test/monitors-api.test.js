'use strict';
// SPEC §6, §7, §11: setupAllMonitors() options, stop(), batches, start()/stop() of one monitor,
// workerStats() and the one-real-set-per-thread rule. Simulated time except the last suite.
const assert = require('assert');
// The thread every event of the main thread names (SPEC §14).
const MAIN_THREAD = { id: 0, name: 'main' };
const diagnosticsChannel = require('diagnostics_channel');
const { inspect } = require('util');
const lagwatch = require('..');

const { MONITORS } = require('./helpers');

// SPEC §6's monitors, written out here once: the other suites take them from the core's table
// (test/helpers.js MONITORS), which the first test below holds to this.
const NAMES = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker', 'liveness',
  'clockDrift', 'timerThrottle'];
const VALIDATED = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker'];
const PAUSED_WHILE_HIDDEN = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker', 'liveness'];

function advanceTo(sim, t) {
  assert.ok(t >= sim.now(), `cannot go back from ${sim.now()} to ${t}`);
  sim.advance(t - sim.now());
  assert.strictEqual(sim.now(), t);
}

function setup(options = {}, platform = 'linux') {
  const sim = lagwatch.createSimulation({ platform });
  const logs = [];
  const m = lagwatch.setupAllMonitors({
    clock: sim, logger: { log: (l, msg) => logs.push(`${l}: ${msg}`) }, ...options,
  });
  const ev = { stall: [], jump: [], workerHang: [], samples: [] };
  for (const name of ['stall', 'jump', 'workerHang']) m.conditions.on(name, (e) => ev[name].push({ t: sim.now(), e }));
  m.conditions.on('samples', (b) => ev.samples.push({ t: sim.now(), b }));
  return { sim, m, ev, logs };
}

function running(m) {
  return Object.fromEntries(NAMES.map((n) => [n, m.monitors[n].running]));
}

function stat(m, name) {
  return m.conditions.stats().monitors[name];
}

// Expects fn to throw exactly Cls, with a message naming `arg` (as a whole dotted word).
function throwsNaming(fn, Cls, arg) {
  let thrown = null;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown !== null, `expected a ${Cls.name} naming ${arg}, nothing thrown`);
  assert.strictEqual(thrown.constructor, Cls, `a ${Cls.name}: ${thrown.constructor.name}: ${thrown.message}`);
  const re = new RegExp(`(^|[^A-Za-z0-9_.])${arg.replace(/\./g, '\\.')}([^A-Za-z0-9_]|$)`);
  assert.match(thrown.message, re, `the message names ${arg}`);
  return thrown;
}

// A script that leaves a trace of every monitor (the control test checks each trace appears).
function script(sim) {
  advanceTo(sim, 10000);
  sim.stepWall(3600000); // clockDrift: a step jump at 11000
  advanceTo(sim, 15000);
  sim.block(6000); // liveness: a workerHang; worker: heartbeats that waited
  advanceTo(sim, 31000);
  // timerThrottle: timers held to even seconds (the set's own wake-ups, the 1 s timers while the
  // loop waits, are then held every other second): a throttled interval.
  sim.throttle(10000, 2000);
  advanceTo(sim, 46000);
}

function traces(ctx) {
  const { m, ev } = ctx;
  const s = m.conditions.stats();
  const out = {};
  for (const n of VALIDATED) out[n] = s.monitors[n].submitted > 0;
  out.worker = out.worker && m.workerStats().workerSelfLag.count > 0;
  out.liveness = ev.workerHang.length > 0 || m.workerStats().workerHangs.count > 0;
  out.clockDrift = ev.jump.length > 0 || s.jumps.step + s.jumps.suspend > 0;
  out.timerThrottle = m.conditions.tracker.intervals().some((i) => i.reason === 'throttled') ||
    s.discarded.throttled > 0;
  return out;
}

describe('the monitors (SPEC §6)', () => {
  it('the core\'s table has SPEC §6\'s monitors in order, the five validated ones, and the six paused while hidden', () => {
    assert.deepStrictEqual(MONITORS.names, NAMES);
    assert.deepStrictEqual(MONITORS.validated, VALIDATED);
    assert.deepStrictEqual(MONITORS.pausedWhileHidden, PAUSED_WHILE_HIDDEN);
  });
});

describe('setupAllMonitors() options (SPEC §7)', () => {
  it('control: with every monitor on, each leaves its trace', () => {
    const ctx = setup();
    assert.deepStrictEqual(running(ctx.m), Object.fromEntries(NAMES.map((n) => [n, true])));
    script(ctx.sim);
    assert.deepStrictEqual(traces(ctx), Object.fromEntries(NAMES.map((n) => [n, true])));
    ctx.m.stop();
    assert.deepStrictEqual(ctx.logs, []);
  });

  for (const name of NAMES) {
    it(`monitors: { ${name}: false } leaves ${name} out (never started), the others run`, () => {
      const ctx = setup({ monitors: { [name]: false } });
      assert.deepStrictEqual(running(ctx.m), Object.fromEntries(NAMES.map((n) => [n, n !== name])));
      assert.strictEqual(ctx.m.monitors[name].name, name);
      script(ctx.sim);
      assert.strictEqual(ctx.m.monitors[name].running, false, 'still out');
      const expected = Object.fromEntries(NAMES.map((n) => [n, n !== name]));
      // timerThrottle works on driftLag's firings and loopBlock's idle view.
      if (name === 'driftLag' || name === 'loopBlock') expected.timerThrottle = false;
      assert.deepStrictEqual(traces(ctx), expected);
      ctx.m.stop();
    });
  }

  it('monitors: { x: true } and { x: {} } are the defaults', () => {
    const a = setup({ monitors: { driftLag: true, worker: {} } });
    const b = setup();
    assert.deepStrictEqual(running(a.m), running(b.m));
    advanceTo(a.sim, 10000);
    advanceTo(b.sim, 10000);
    assert.deepStrictEqual(a.m.conditions.stats(), b.m.conditions.stats());
    a.m.stop();
    b.m.stop();
  });

  describe('per-monitor intervalMs changes the rhythm', () => {
    it('driftLag: 20 ms by default (500 samples in 10 s), intervalMs 10 -> twice as many', () => {
      const a = setup();
      const b = setup({ monitors: { driftLag: { intervalMs: 10 } } });
      advanceTo(a.sim, 10000);
      advanceTo(b.sim, 10000);
      assert.strictEqual(stat(a.m, 'driftLag').submitted, 500);
      assert.strictEqual(stat(b.m, 'driftLag').submitted, 1000);
      advanceTo(a.sim, 11000);
      advanceTo(b.sim, 11000);
      assert.strictEqual(stat(a.m, 'driftLag').submitted, 550);
      assert.strictEqual(stat(b.m, 'driftLag').submitted, 1100);
      a.m.stop();
      b.m.stop();
    });

    it('macrotaskLag: 250 ms by default, 500 ms -> half as many', () => {
      const a = setup();
      const b = setup({ monitors: { macrotaskLag: { intervalMs: 500 } } });
      advanceTo(a.sim, 10000);
      advanceTo(b.sim, 10000);
      assert.strictEqual(stat(a.m, 'macrotaskLag').submitted, 40);
      assert.strictEqual(stat(b.m, 'macrotaskLag').submitted, 20);
      a.m.stop();
      b.m.stop();
    });

    it('idleAvailability: 1000 ms by default, 250 ms -> four times as many', () => {
      const a = setup();
      const b = setup({ monitors: { idleAvailability: { intervalMs: 250 } } });
      advanceTo(a.sim, 10000);
      advanceTo(b.sim, 10000);
      assert.strictEqual(stat(a.m, 'idleAvailability').submitted, 10);
      assert.strictEqual(stat(b.m, 'idleAvailability').submitted, 40);
      a.m.stop();
      b.m.stop();
    });

    it('worker: a heartbeat every 1000 ms by default, 500 ms -> twice as many', () => {
      const a = setup();
      const b = setup({ monitors: { worker: { intervalMs: 500 } } });
      advanceTo(a.sim, 10000);
      advanceTo(b.sim, 10000);
      assert.strictEqual(stat(a.m, 'worker').submitted, 10);
      assert.strictEqual(a.m.workerStats().workerSelfLag.count, 10);
      assert.strictEqual(stat(b.m, 'worker').submitted, 20);
      assert.strictEqual(b.m.workerStats().workerSelfLag.count, 20);
      a.m.stop();
      b.m.stop();
    });

    it('liveness: a hang is flagged exactly at start + 5000 whatever the interval; its end is seen at the next check (100 ms by default, 1000 ms)', () => {
      const run = (options) => {
        const ctx = setup(options);
        advanceTo(ctx.sim, 10500); // the loop waits from 10000 (the 1 s timers) to 10500
        ctx.sim.block(6000);
        advanceTo(ctx.sim, 20000);
        assert.strictEqual(ctx.ev.workerHang.length, 1, JSON.stringify(ctx.ev.workerHang));
        ctx.m.stop();
        return ctx.ev.workerHang[0];
      };
      // The worker checks at the threshold itself, not at the next check of its rhythm. The main
      // thread resumes at 16500; at that instant the worker runs first (it sees no progress yet),
      // so the end is noticed one check later: 16600 with 100 ms checks, 17500 with 1000 ms.
      // The cause's readings start at the first check that sees neither progress nor a wait:
      // 10600 (the check at 10500 saw libuv's idle time grow up to then), or 11500 with 1000 ms
      // checks (they fall at 500 past each second: the check at 1000 saw macrotaskLag's first
      // task at 250, so the next came at its ping time, 250 + 1250), and end where the main
      // thread ran again. What they measured stands for the whole hang: its span is the hang's
      // 6000 ms either way.
      const cause = (cpuMs) => ({
        cpuMs, runQueueMs: 0, throttledMs: 0, blockedMs: 0, gcMs: 0, spanMs: cpuMs, dominant: 'busy',
      });
      assert.deepStrictEqual(run(),
        { t: 16600, e: { start: 10500, detectedAt: 15500, end: 16500, durationMs: 6000, cause: cause(6000), thread: MAIN_THREAD } });
      assert.deepStrictEqual(run({ monitors: { liveness: { intervalMs: 1000 } } }),
        { t: 17500, e: { start: 10500, detectedAt: 15500, end: 16500, durationMs: 6000, cause: cause(6000), thread: MAIN_THREAD } });
    });

    it('clockDrift: reads every 1000 ms by default, 2000 ms -> a step seen at the next even second', () => {
      const run = (options) => {
        const ctx = setup(options);
        advanceTo(ctx.sim, 10000);
        ctx.sim.stepWall(3600000);
        advanceTo(ctx.sim, 20000);
        ctx.m.stop();
        return ctx.ev.jump.map((x) => x.e);
      };
      assert.deepStrictEqual(run(), [{ kind: 'step', at: 11000, deltaMs: 3600000 }]);
      assert.deepStrictEqual(run({ monitors: { clockDrift: { intervalMs: 2000 } } }),
        [{ kind: 'step', at: 12000, deltaMs: 3600000 }]);
    });
  });

  describe('bad options: RangeError / TypeError naming the argument, nothing started', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const RANGE = [
      [{ monitors: { x: false } }, 'options.monitors'],
      [{ monitors: { drift: {} } }, 'options.monitors'],
      [{ monitors: { driftLag: { foo: 1 } } }, 'options.monitors.driftLag'],
      [{ monitors: { driftLag: { intervalMS: 10 } } }, 'options.monitors.driftLag'],
      [{ monitors: { loopBlock: { intervalMs: 10 } } }, 'options.monitors.loopBlock'],
      [{ monitors: { driftLag: { intervalMs: -1 } } }, 'options.monitors.driftLag.intervalMs'],
      [{ monitors: { driftLag: { intervalMs: 0 } } }, 'options.monitors.driftLag.intervalMs'],
      [{ monitors: { driftLag: { intervalMs: NaN } } }, 'options.monitors.driftLag.intervalMs'],
      [{ monitors: { worker: { intervalMs: Infinity } } }, 'options.monitors.worker.intervalMs'],
      [{ monitors: { liveness: { intervalMs: -100 } } }, 'options.monitors.liveness.intervalMs'],
      [{ monitors: { timerThrottle: { firings: 0 } } }, 'options.monitors.timerThrottle.firings'],
      [{ monitors: { timerThrottle: { firings: 1.5 } } }, 'options.monitors.timerThrottle.firings'],
      [{ stallThresholdMs: -1 }, 'options.stallThresholdMs'],
    ];
    const TYPE = [
      [5, 'options'],
      ['driftLag', 'options'],
      [null, 'options'],
      [{ monitors: 'driftLag' }, 'options.monitors'],
      [{ monitors: { driftLag: 5 } }, 'options.monitors.driftLag'],
      [{ monitors: { driftLag: null } }, 'options.monitors.driftLag'],
      [{ monitors: { driftLag: { intervalMs: '10' } } }, 'options.monitors.driftLag.intervalMs'],
      [{ monitors: { idleAvailability: { intervalMs: 10n } } }, 'options.monitors.idleAvailability.intervalMs'],
      [{ monitors: { clockDrift: { sleepClock: 1 } } }, 'options.monitors.clockDrift.sleepClock'],
      [{ logger: 5 }, 'options.logger'],
      [{ logger: {} }, 'options.logger'],
      [{ stallThresholdMs: '5000' }, 'options.stallThresholdMs'],
      [{ clock: {} }, 'options.clock'],
      [{ exitHook: 'no' }, 'options.exitHook'],
    ];
    const withSim = (o) => (o !== null && typeof o === 'object' && !('clock' in o) ? { clock: sim, ...o } : o);

    for (const [o, arg] of RANGE) {
      it(`RangeError naming ${arg}: ${inspect(o, { depth: 5, breakLength: Infinity })}`, () => throwsNaming(() => lagwatch.setupAllMonitors(withSim(o)), RangeError, arg));
    }
    for (const [o, arg] of TYPE) {
      it(`TypeError naming ${arg}: ${inspect(o, { depth: 5, breakLength: Infinity })}`, () => throwsNaming(() => lagwatch.setupAllMonitors(withSim(o)), TypeError, arg));
    }

    it('the unknown name is in the message', () => {
      assert.match(throwsNaming(() => lagwatch.setupAllMonitors({ clock: sim, monitors: { drfitLag: {} } }),
        RangeError, 'options.monitors').message, /drfitLag/);
      assert.match(throwsNaming(() => lagwatch.setupAllMonitors({ clock: sim, monitors: { worker: { interval: 5 } } }),
        RangeError, 'options.monitors.worker').message, /interval/);
    });

    it('nothing started after a throw on a simulation: a block publishes no stall, no time passes', () => {
      const s = lagwatch.createSimulation({ platform: 'linux' });
      const published = [];
      const onStall = (msg) => published.push(msg);
      diagnosticsChannel.subscribe('lagwatch:stall', onStall);
      try {
        for (const o of [
          { clock: s, monitors: { driftLag: { intervalMs: -1 } } },
          { clock: s, monitors: { clockDrift: { sleepClock: 'yes' } } },
          { clock: s, monitors: { nope: false } },
          { clock: s, stallThresholdMs: 'x' },
        ]) {
          assert.throws(() => lagwatch.setupAllMonitors(o));
        }
        assert.strictEqual(s.now(), 0);
        s.advance(10000);
        s.block(6000);
        s.advance(20000);
        assert.deepStrictEqual(published, []);
        // Control: a set that did start publishes the same block.
        const ok = lagwatch.setupAllMonitors({ clock: s });
        s.advance(10000);
        s.block(6000);
        s.advance(20000);
        assert.strictEqual(published.length, 1);
        assert.strictEqual(published[0].kind, 'hang');
        ok.stop();
      } finally {
        diagnosticsChannel.unsubscribe('lagwatch:stall', onStall);
      }
    });

    it('nothing started after a throw on the real clock: the next real setupAllMonitors() is allowed', () => {
      for (const o of [
        { monitors: { driftLag: { intervalMs: -1 } } },
        { monitors: { worker: { intervalMs: 'x' } } },
        { monitors: { x: false } },
        { logger: 1 },
        { stallThresholdMs: -5 },
        7,
      ]) {
        assert.throws(() => lagwatch.setupAllMonitors(o), (e) => e instanceof TypeError || e instanceof RangeError);
        const m = lagwatch.setupAllMonitors();
        m.stop();
      }
    });
  });
});

describe('m.stop() (SPEC §7)', () => {
  it('stops every monitor (running false) and nothing runs after it', () => {
    const { sim, m, ev } = setup();
    advanceTo(sim, 10000);
    m.stop();
    assert.deepStrictEqual(running(m), Object.fromEntries(NAMES.map((n) => [n, false])));
    const stats = m.conditions.stats();
    const calls = ev.samples.length;
    sim.stepWall(3600000);
    sim.block(6000);
    advanceTo(sim, 40000);
    assert.deepStrictEqual(m.conditions.stats(), stats, 'nothing submitted or counted after stop()');
    assert.strictEqual(ev.samples.length, calls, 'no flush after stop()');
    assert.deepStrictEqual(ev.jump, []);
    assert.deepStrictEqual(ev.workerHang, []);
    assert.deepStrictEqual(ev.stall, []);
  });

  it('reports a waiting episode: block 6 s, stop() at 19000 (report due at 20000) -> the stall event comes synchronously in stop()', () => {
    const { sim, m, ev } = setup();
    advanceTo(sim, 10000);
    sim.block(6000);
    advanceTo(sim, 19000); // the hang stall samples were decided at 18000
    assert.deepStrictEqual(ev.stall, []);
    let inStop = false;
    const seen = [];
    m.conditions.on('stall', (e) => seen.push({ inStop, e }));
    inStop = true;
    m.stop();
    inStop = false;
    assert.strictEqual(seen.length, 1, JSON.stringify(seen));
    assert.strictEqual(seen[0].inStop, true, 'during stop()');
    const e = seen[0].e;
    assert.strictEqual(e.kind, 'hang');
    assert.strictEqual(e.durationMs, 6000);
    assert.strictEqual(e.start, 10000);
    assert.strictEqual(e.end, 16000);
    assert.deepStrictEqual(m.conditions.stats().stalls, { hang: 1, suspend: 0, pause: 0 });
    advanceTo(sim, 40000);
    assert.strictEqual(ev.stall.length, 1, 'reported once');
  });

  it('stop() while the block\'s samples are still held (17000): resolved at once, one hang reported during stop() (SPEC §4)', () => {
    const { sim, m, ev } = setup();
    advanceTo(sim, 10000);
    sim.block(6000);
    advanceTo(sim, 17000);
    assert.strictEqual(m.conditions.stats().held, 3);
    const during = [];
    m.conditions.on('stall', (e) => during.push(e));
    m.stop();
    assert.strictEqual(during.length, 1, 'reported synchronously by stop()');
    advanceTo(sim, 40000);
    const s = m.conditions.stats();
    assert.strictEqual(s.held, 0);
    assert.strictEqual(s.cancelled, 0);
    for (const n of ['driftLag', 'loopBlock', 'worker']) assert.strictEqual(s.monitors[n].cancelled, 0, n);
    assert.strictEqual(ev.stall.length, 1);
    assert.strictEqual(ev.stall[0].t, 17000, 'at the stop');
    assert.strictEqual(ev.stall[0].e.kind, 'hang');
    assert.strictEqual(ev.stall[0].e.start, 10000);
    assert.strictEqual(ev.stall[0].e.end, 16000);
    assert.deepStrictEqual(s.stalls, { hang: 1, suspend: 0, pause: 0 });
  });

  it('flushes: a last \'samples\' call during stop() with what was recorded since the last flush', () => {
    const { sim, m, ev } = setup();
    advanceTo(sim, 10500);
    assert.deepStrictEqual(ev.samples.map((x) => x.t), [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000]);
    const recBefore = Object.fromEntries(VALIDATED.map((n) => [n, stat(m, n).recorded]));
    const deliveredBefore = Object.fromEntries(VALIDATED.map((n) => [n, 0]));
    for (const { b } of ev.samples) for (const [k, v] of Object.entries(b)) deliveredBefore[k] += v.length;
    m.stop();
    assert.strictEqual(ev.samples.length, 11, 'one more call, in stop()');
    const last = ev.samples[10];
    assert.strictEqual(last.t, 10500);
    // driftLag fired at 10020, 10040, ..., 10500 since the flush at 10000.
    assert.ok(last.b.driftLag instanceof Float64Array);
    assert.strictEqual(last.b.driftLag.length, 25);
    assert.deepStrictEqual(Array.from(last.b.driftLag), new Array(25).fill(0));
    for (const n of VALIDATED) {
      const got = last.b[n] ? last.b[n].length : 0;
      assert.strictEqual(got, recBefore[n] - deliveredBefore[n], `${n}: the rest of its values`);
    }
  });

  it('is idempotent: a second stop() changes nothing, calls nothing, throws nothing', () => {
    const { sim, m, ev } = setup();
    advanceTo(sim, 10000);
    sim.block(6000);
    advanceTo(sim, 19000);
    m.stop();
    const stats = m.conditions.stats();
    const counts = { samples: ev.samples.length, stall: ev.stall.length };
    assert.strictEqual(counts.stall, 1);
    m.stop();
    m.stop();
    assert.deepStrictEqual({ samples: ev.samples.length, stall: ev.stall.length }, counts);
    assert.deepStrictEqual(m.conditions.stats(), stats);
    assert.deepStrictEqual(running(m), Object.fromEntries(NAMES.map((n) => [n, false])));
  });
});

describe('batches of recorded samples (SPEC §6)', () => {
  it('one \'samples\' call per flush interval (1000 ms): 10 calls over 10 s, at each second', () => {
    const { sim, m, ev } = setup();
    advanceTo(sim, 10000);
    assert.strictEqual(ev.samples.length, 10);
    assert.deepStrictEqual(ev.samples.map((x) => x.t), Array.from({ length: 10 }, (_, i) => 1000 * (i + 1)));
    advanceTo(sim, 20000);
    assert.strictEqual(ev.samples.length, 20);
    // Each call: an object of Float64Array, one per validated monitor that recorded something.
    for (const { b } of ev.samples) {
      for (const [k, v] of Object.entries(b)) {
        assert.ok(VALIDATED.includes(k), k);
        assert.ok(v instanceof Float64Array && v.length > 0, k);
      }
    }
    // A steady second: driftLag 50, macrotaskLag 4, idleAvailability 1, worker 1.
    const b = ev.samples[14].b;
    assert.strictEqual(b.driftLag.length, 50);
    assert.strictEqual(b.macrotaskLag.length, 4);
    assert.strictEqual(b.idleAvailability.length, 1);
    assert.strictEqual(b.worker.length, 1);
    m.stop();
  });

  for (const platform of ['linux', 'darwin', 'win32']) {
    it(`over a run (${platform}: block, pause, sleep, throttle, hidden, held samples at stop) the batches add up to stats().monitors[name].recorded`, () => {
      const { sim, m, ev } = setup({}, platform);
      advanceTo(sim, 10000);
      sim.block(6000);
      advanceTo(sim, 30000);
      sim.pause(7000);
      advanceTo(sim, 50000);
      sim.sleep(20000);
      advanceTo(sim, sim.now() + 15000);
      sim.throttle(10000);
      advanceTo(sim, sim.now() + 5000);
      m.conditions.setLifecycleState('hidden');
      advanceTo(sim, sim.now() + 5000);
      m.conditions.setLifecycleState('active');
      advanceTo(sim, sim.now() + 5000);
      sim.block(8000);
      advanceTo(sim, sim.now() + 1000); // held samples at stop()
      assert.ok(m.conditions.stats().held > 0, 'samples held when stopping');
      m.stop();
      const s = m.conditions.stats();
      assert.strictEqual(s.held, 0, 'resolved by stop()');
      assert.strictEqual(s.cancelled, 0, 'nothing cancelled');
      const delivered = Object.fromEntries(VALIDATED.map((n) => [n, 0]));
      for (const { b } of ev.samples) for (const [k, v] of Object.entries(b)) delivered[k] += v.length;
      assert.deepStrictEqual(delivered, Object.fromEntries(VALIDATED.map((n) => [n, s.monitors[n].recorded])));
      // And the delivered values are the recorded ones: their maximum is stats' max.
      for (const n of VALIDATED) {
        let max = -Infinity;
        for (const { b } of ev.samples) if (b[n]) for (const v of b[n]) max = Math.max(max, v);
        assert.strictEqual(max, s.monitors[n].max, `${n} max`);
      }
    });
  }
});

describe('monitor.start() / monitor.stop() (SPEC §6)', () => {
  it('are idempotent: stopping twice stops once, starting twice starts once (the rhythm is not reset)', () => {
    const { sim, m } = setup();
    const drift = m.monitors.driftLag;
    assert.strictEqual(drift.name, 'driftLag');
    advanceTo(sim, 10000);
    assert.strictEqual(stat(m, 'driftLag').submitted, 500);
    drift.stop();
    drift.stop();
    assert.strictEqual(drift.running, false);
    advanceTo(sim, 11000);
    assert.strictEqual(stat(m, 'driftLag').submitted, 500, 'nothing while stopped');
    drift.start();
    advanceTo(sim, 11005);
    drift.start(); // already running: does nothing
    assert.strictEqual(drift.running, true);
    advanceTo(sim, 11019);
    assert.strictEqual(stat(m, 'driftLag').submitted, 500);
    advanceTo(sim, 11020); // due 20 ms after the first start, not after the second
    assert.strictEqual(stat(m, 'driftLag').submitted, 501);
    advanceTo(sim, 12000);
    assert.strictEqual(stat(m, 'driftLag').submitted, 550);
    assert.strictEqual(stat(m, 'driftLag').max, 0, 'no lateness from the restart');
    assert.strictEqual(stat(m, 'driftLag').discarded, 0);
    m.stop();
  });

  it('each monitor can be stopped and started on its own; the others keep running', () => {
    const { sim, m } = setup();
    advanceTo(sim, 1000);
    for (const name of NAMES) {
      m.monitors[name].stop();
      m.monitors[name].stop();
      assert.deepStrictEqual(running(m), Object.fromEntries(NAMES.map((n) => [n, n !== name])), name);
      m.monitors[name].start();
      m.monitors[name].start();
      assert.deepStrictEqual(running(m), Object.fromEntries(NAMES.map((n) => [n, true])), name);
    }
    m.stop();
  });

  it('the worker restarted after a stop sends its first heartbeat one interval later, on time', () => {
    const { sim, m } = setup();
    advanceTo(sim, 10000);
    m.monitors.worker.stop();
    m.monitors.liveness.stop();
    advanceTo(sim, 30000);
    m.monitors.worker.start();
    m.monitors.liveness.start();
    advanceTo(sim, 30999);
    assert.strictEqual(m.workerStats().workerSelfLag.count, 10);
    advanceTo(sim, 31000);
    assert.strictEqual(m.workerStats().workerSelfLag.count, 11);
    assert.strictEqual(m.workerStats().workerSelfLag.max, 0, 'a stopped worker is not late');
    assert.strictEqual(m.workerStats().workerHangs.count, 0);
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [], 'no pause evidence from the stopped time');
    m.stop();
  });
});

describe('m.workerStats()', () => {
  it('counts the worker hang of a 6 s block (once, ended, 6000 ms)', () => {
    const { sim, m } = setup();
    advanceTo(sim, 10000);
    assert.deepStrictEqual(m.workerStats().workerHangs, { count: 0, ended: 0, max: null });
    sim.block(6000);
    advanceTo(sim, 16000);
    assert.strictEqual(m.workerStats().workerHangs.count, 1, 'counted when flagged');
    assert.strictEqual(m.workerStats().workerHangs.ended, 0);
    advanceTo(sim, 30000);
    assert.deepStrictEqual(m.workerStats().workerHangs, { count: 1, ended: 1, max: 6000 });
    m.stop();
  });

  it('counts its self-lag after a 6 s pause: 5900 ms (its timer was due at 10100)', () => {
    const { sim, m } = setup();
    advanceTo(sim, 10000);
    const before = m.workerStats().workerSelfLag;
    assert.strictEqual(before.count, 10);
    assert.strictEqual(before.max, 0);
    sim.pause(6000);
    const after = m.workerStats().workerSelfLag;
    assert.strictEqual(after.count, 11, 'one heartbeat at the wake-up');
    assert.strictEqual(after.max, 5900);
    advanceTo(sim, 20000);
    assert.strictEqual(m.workerStats().workerSelfLag.count, 15);
    assert.strictEqual(m.workerStats().workerHangs.count, 0, 'a pause is no hang');
    m.stop();
  });

  it('names the sleep-clock pair it reads: the platform\'s, "simulated", or null when turned off', () => {
    const { m } = setup();
    assert.strictEqual(m.workerStats().sleepClock, 'simulated');
    m.stop();
    const off = setup({ monitors: { clockDrift: { sleepClock: false } } });
    assert.strictEqual(off.m.workerStats().sleepClock, null);
    off.m.stop();
    const expected = {
      linux: 'CLOCK_BOOTTIME-CLOCK_MONOTONIC',
      darwin: 'mach_continuous_time-mach_absolute_time',
      win32: 'QueryInterruptTimePrecise-QueryUnbiasedInterruptTimePrecise',
    }[process.platform];
    const real = lagwatch.setupAllMonitors();
    try {
      assert.strictEqual(real.workerStats().sleepClock, expected);
    } finally {
      real.stop();
    }
    const realOff = lagwatch.setupAllMonitors({ monitors: { clockDrift: { sleepClock: false } } });
    try {
      assert.strictEqual(realOff.workerStats().sleepClock, null);
    } finally {
      realOff.stop();
    }
  });
});

describe('one real-clock setupAllMonitors() per thread (SPEC §7)', () => {
  it('a second real-clock call throws ERR_LAGWATCH_ALREADY_SET_UP until the first is stopped', () => {
    const first = lagwatch.setupAllMonitors();
    try {
      assert.strictEqual(first.monitors.driftLag.running, true);
      for (const args of [[], [{}], [{ monitors: { worker: false } }], [undefined]]) {
        let err = null;
        try {
          const again = lagwatch.setupAllMonitors(...args);
          again.stop();
        } catch (e) {
          err = e;
        }
        assert.ok(err !== null, `throws for ${JSON.stringify(args)}`);
        assert.strictEqual(err.constructor, Error);
        assert.strictEqual(err.code, 'ERR_LAGWATCH_ALREADY_SET_UP');
      }
      // Simulated sets are not limited, and the first set is untouched.
      const simulated = lagwatch.setupAllMonitors({ clock: lagwatch.createSimulation() });
      simulated.stop();
      assert.strictEqual(first.monitors.driftLag.running, true);
      assert.strictEqual(first.monitors.worker.running, true);
    } finally {
      first.stop();
    }
    assert.strictEqual(first.monitors.driftLag.running, false);
    const second = lagwatch.setupAllMonitors();
    try {
      assert.strictEqual(second.monitors.worker.running, true);
    } finally {
      second.stop();
    }
    // A second stop() of the first does not free the slot of another set.
    const third = lagwatch.setupAllMonitors();
    try {
      first.stop();
      assert.throws(() => lagwatch.setupAllMonitors().stop(), (e) => e.code === 'ERR_LAGWATCH_ALREADY_SET_UP');
    } finally {
      third.stop();
    }
  });

  it('lagwatch.current() is the running real-clock set of this thread, or undefined', () => {
    assert.strictEqual(lagwatch.current(), undefined);
    const simulated = lagwatch.setupAllMonitors({ clock: lagwatch.createSimulation() });
    assert.strictEqual(lagwatch.current(), undefined, 'a simulated set is not current');
    const real = lagwatch.setupAllMonitors();
    try {
      assert.strictEqual(lagwatch.current(), real);
      assert.throws(() => lagwatch.setupAllMonitors(), /lagwatch\.current\(\)/);
      simulated.stop();
      assert.strictEqual(lagwatch.current(), real);
    } finally {
      real.stop();
    }
    assert.strictEqual(lagwatch.current(), undefined);
  });
});

describe('setupAllMonitors with a bad option changes nothing (SPEC §11)', () => {
  it('throws before it touches the meter or makes conditions', () => {
    const calls = [];
    const meter = new Proxy(lagwatch.createNoopMeter(), {
      get(target, prop) {
        const v = target[prop];
        return typeof v === 'function' ? (...args) => { calls.push(String(prop)); return v.apply(target, args); } : v;
      },
    });
    assert.throws(() => lagwatch.setupAllMonitors({ meter, monitors: { driftLag: { intervalMs: -1 } } }),
      (err) => err instanceof RangeError && /driftLag\.intervalMs/.test(err.message));
    assert.throws(() => lagwatch.setupAllMonitors({ meter, flushIntervalMs: 'soon' }),
      (err) => err instanceof TypeError && /flushIntervalMs/.test(err.message));
    assert.deepStrictEqual(calls, []);
    // The real-clock slot of this thread is still free.
    const m = lagwatch.setupAllMonitors({ meter });
    assert.ok(calls.length > 0);
    m.stop();
  });
});

describe("the recorded values reach JS only when something reads them", () => {
  it("without a meter that records nor a 'samples' listener, nothing is copied; a listener added later gets exactly what is recorded from then on", () => {
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim }); // the global API's meter: a no-op here
    assert.strictEqual(m.conditions._metrics.noop, true);
    sim.advance(3000);
    sim.block(300);
    sim.advance(3000);
    const before = m.conditions.stats().monitors;
    const got = {};
    const listener = (b) => { for (const [k, v] of Object.entries(b)) got[k] = (got[k] || 0) + v.length; };
    m.conditions.on('samples', listener);
    sim.advance(3000);
    sim.block(300);
    sim.advance(3000);
    m._flush(); // hands over what the batches hold now
    const mid = m.conditions.stats().monitors;
    for (const name of ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker']) {
      assert.strictEqual(got[name] || 0, mid[name].recorded - before[name].recorded, name);
    }
    // Removed: what is recorded while nobody listens is not kept (a listener added then gets
    // nothing of it).
    m.conditions.removeListener('samples', listener);
    sim.advance(3000);
    const after = {};
    m.conditions.on('samples', (b) => { for (const [k, v] of Object.entries(b)) after[k] = (after[k] || 0) + v.length; });
    m._flush();
    assert.ok(Object.values(after).every((n) => n === 0), JSON.stringify(after));
    assert.ok(m.conditions.stats().monitors.driftLag.recorded > mid.driftLag.recorded);
    m.stop();
    assert.ok(got.driftLag > 200, JSON.stringify(got));
  });
});

