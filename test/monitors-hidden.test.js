'use strict';
// SPEC §6 (paused while hidden), §7 ('Pause while hidden'): setupAllMonitors() pauses
// driftLag, macrotaskLag, loopBlock, idleAvailability, worker and liveness while the app is not
// visible; clockDrift and timerThrottle keep running. pauseWhileHidden() on its own.
const assert = require('assert');
const lagwatch = require('..');

const { MONITORS } = require('./helpers');

const NAMES = MONITORS.names;
const PAUSED = MONITORS.pausedWhileHidden;
const NOT_PAUSED = NAMES.filter((n) => !PAUSED.includes(n));
const VALIDATED = MONITORS.validated;

function advanceTo(sim, t) {
  assert.ok(t >= sim.now(), `cannot go back from ${sim.now()} to ${t}`);
  sim.advance(t - sim.now());
  assert.strictEqual(sim.now(), t);
}

function running(m) {
  return Object.fromEntries(NAMES.map((n) => [n, m.monitors[n].running]));
}

function expectRunning(m, names, where) {
  assert.deepStrictEqual(running(m), Object.fromEntries(NAMES.map((n) => [n, names.includes(n)])), where);
}

function recorded(m) {
  const s = m.conditions.stats();
  return Object.fromEntries(VALIDATED.map((n) => [n, s.monitors[n].recorded]));
}

function submitted(m) {
  const s = m.conditions.stats();
  return Object.fromEntries(VALIDATED.map((n) => [n, s.monitors[n].submitted]));
}

// setupAllMonitors on a simulation, with every 'samples' call (and its time) kept.
function setup(platform = 'linux') {
  const sim = lagwatch.createSimulation({ platform });
  const logs = [];
  const m = lagwatch.setupAllMonitors({ clock: sim, logger: { log: (l, msg) => logs.push(`${l}: ${msg}`) } });
  const calls = [];
  m.conditions.on('samples', (b) => {
    calls.push({ t: sim.now(), counts: Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.length])) });
  });
  const lifecycle = [];
  m.conditions.on('lifecycle', (e) => lifecycle.push({ t: sim.now(), ...e }));
  return { sim, m, calls, lifecycle, logs };
}

// Values delivered through 'samples' per monitor, over calls[from, to).
function delivered(calls, from = 0, to = calls.length) {
  const out = Object.fromEntries(VALIDATED.map((n) => [n, 0]));
  for (const c of calls.slice(from, to)) for (const [k, n] of Object.entries(c.counts)) out[k] = (out[k] || 0) + n;
  return out;
}

function sub(a, b) {
  return Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - b[k]]));
}

describe('monitors: pause while hidden (SPEC §6, §7)', () => {
  it('hidden for 60 s: the paused monitors stop and record nothing; visible again: they record, the first window is correct', () => {
    const { sim, m, calls, lifecycle, logs } = setup();
    const jumps = [];
    m.conditions.on('jump', (e) => jumps.push(e));
    advanceTo(sim, 10000);
    expectRunning(m, NAMES, 'all run while active');
    const recAtHide = recorded(m);
    const subAtHide = submitted(m);
    for (const n of VALIDATED) assert.ok(recAtHide[n] > 0, `${n} recorded before hiding`);
    const deliveredAtHide = delivered(calls);
    const callsAtHide = calls.length;

    m.conditions.setLifecycleState('hidden');
    assert.deepStrictEqual(lifecycle, [{ t: 10000, from: 'active', to: 'hidden' }]);
    expectRunning(m, NOT_PAUSED, 'paused monitors stopped at once');
    // clockDrift keeps running while hidden: a wall-clock step is still seen.
    advanceTo(sim, 40000);
    sim.stepWall(3600000);
    advanceTo(sim, 70000);
    assert.deepStrictEqual(jumps, [{ kind: 'step', at: 41000, deltaMs: 3600000 }], 'clockDrift ran while hidden');
    expectRunning(m, NOT_PAUSED, 'still paused after 60 s');

    // Nothing submitted, nothing recorded while hidden.
    assert.deepStrictEqual(submitted(m), subAtHide, 'nothing submitted while hidden');
    assert.deepStrictEqual(recorded(m), recAtHide, 'nothing recorded while hidden');
    // The flushes go on (clockDrift runs), and they carry only what was recorded before the hide.
    const hiddenCalls = calls.slice(callsAtHide);
    assert.deepStrictEqual(hiddenCalls.map((c) => c.t), Array.from({ length: 60 }, (_, i) => 11000 + 1000 * i),
      'one flush a second while hidden');
    assert.deepStrictEqual(delivered(calls, callsAtHide), sub(recAtHide, deliveredAtHide),
      'no value recorded while hidden reaches JS');
    for (const c of hiddenCalls.slice(1)) assert.deepStrictEqual(c.counts, {}, `no values at ${c.t}`);

    m.conditions.setLifecycleState('active');
    assert.deepStrictEqual(lifecycle[1], { t: 70000, from: 'hidden', to: 'active' });
    expectRunning(m, NAMES, 'all run again');
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [{ start: 10000, end: 70000, reason: 'hidden' }]);

    // The first driftLag window after the change, [70000, 70020], touches the hidden interval
    // only at its end: recorded.
    advanceTo(sim, 70020);
    assert.strictEqual(recorded(m).driftLag, recAtHide.driftLag + 1, 'first driftLag window recorded');
    // A second later every paused monitor has recorded again (worker heartbeat at 71000,
    // idleAvailability over [70000, 71000], macrotaskLag at 70250 ...), nothing discarded.
    advanceTo(sim, 71020);
    const rec = recorded(m);
    for (const n of VALIDATED) assert.ok(rec[n] > recAtHide[n], `${n} records again`);
    assert.strictEqual(rec.driftLag, recAtHide.driftLag + 51);
    assert.strictEqual(rec.idleAvailability, recAtHide.idleAvailability + 1);
    assert.strictEqual(rec.worker, recAtHide.worker + 1);
    const s = m.conditions.stats();
    for (const n of VALIDATED) assert.strictEqual(s.monitors[n].discarded, 0, `${n}: nothing discarded`);
    assert.strictEqual(Object.values(s.discarded).reduce((a, b) => a + b, 0), 0);
    assert.deepStrictEqual(s.stalls, { hang: 0, suspend: 0, pause: 0 });
    m.stop();
    assert.deepStrictEqual(logs, []);
  });

  it('the worker hang detector does not count a hidden period (liveness paused)', () => {
    const { sim, m } = setup();
    const hangs = [];
    m.conditions.on('workerHang', (e) => hangs.push(e));
    advanceTo(sim, 10000);
    m.conditions.setLifecycleState('hidden');
    advanceTo(sim, 70000);
    m.conditions.setLifecycleState('active');
    advanceTo(sim, 90000);
    assert.deepStrictEqual(hangs, []);
    assert.strictEqual(m.workerStats().workerHangs.count, 0);
    assert.deepStrictEqual(m.conditions.stats().stalls, { hang: 0, suspend: 0, pause: 0 });
    m.stop();
  });

  for (const state of ['frozen', 'terminated']) {
    it(`${state} counts as not visible: the paused monitors stop; back to passive they run`, () => {
      const { sim, m } = setup();
      advanceTo(sim, 10000);
      m.conditions.setLifecycleState(state);
      expectRunning(m, NOT_PAUSED, state);
      const rec = recorded(m);
      advanceTo(sim, 20000);
      assert.deepStrictEqual(recorded(m), rec, `nothing recorded while ${state}`);
      m.conditions.setLifecycleState('passive');
      expectRunning(m, NAMES, 'passive is visible');
      advanceTo(sim, 20020);
      assert.strictEqual(recorded(m).driftLag, rec.driftLag + 1, 'the first window after the change is recorded');
      assert.strictEqual(m.conditions.stats().monitors.driftLag.discarded, 0);
      m.stop();
    });
  }

  it('passive counts as visible: active -> passive -> active stops nothing', () => {
    const { sim, m } = setup();
    advanceTo(sim, 10000);
    const sub0 = submitted(m).driftLag;
    m.conditions.setLifecycleState('passive');
    expectRunning(m, NAMES, 'passive');
    advanceTo(sim, 11000);
    assert.strictEqual(submitted(m).driftLag, sub0 + 50, 'driftLag keeps its rhythm while passive');
    m.conditions.setLifecycleState('active');
    expectRunning(m, NAMES, 'active');
    m.stop();
  });

  it('frozen -> hidden -> active: paused throughout, recording again after', () => {
    const { sim, m } = setup();
    advanceTo(sim, 10000);
    const sub0 = submitted(m);
    m.conditions.setLifecycleState('frozen');
    m.conditions.setLifecycleState('hidden');
    expectRunning(m, NOT_PAUSED, 'hidden after frozen');
    advanceTo(sim, 15000);
    assert.deepStrictEqual(submitted(m), sub0, 'nothing submitted while frozen or hidden');
    m.conditions.setLifecycleState('active');
    expectRunning(m, NAMES, 'active');
    advanceTo(sim, 15020);
    assert.strictEqual(submitted(m).driftLag, sub0.driftLag + 1);
    assert.strictEqual(m.conditions.stats().monitors.driftLag.discarded, 0);
    m.stop();
  });
});

describe('pauseWhileHidden(monitor, conditions) on its own (SPEC §6)', () => {
  function fake() {
    const log = [];
    return { log, monitor: { start() { log.push('start'); }, stop() { log.push('stop'); } } };
  }

  function conditions() {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    return lagwatch.createConditions({ clock: sim });
  }

  it('visible at the start: nothing called; visible -> not visible: stop(); back: start(); returns a function', () => {
    const c = conditions();
    const { log, monitor } = fake();
    const remove = lagwatch.pauseWhileHidden(monitor, c);
    assert.strictEqual(typeof remove, 'function');
    assert.deepStrictEqual(log, []);
    c.setLifecycleState('hidden');
    assert.deepStrictEqual(log, ['stop']);
    c.setLifecycleState('active');
    assert.deepStrictEqual(log, ['stop', 'start']);
    remove();
    c.dispose();
  });

  for (const state of ['hidden', 'frozen', 'terminated']) {
    it(`not visible at the start (${state}): stop() at once, start() when visible again`, () => {
      const c = conditions();
      c.setLifecycleState(state);
      const { log, monitor } = fake();
      const remove = lagwatch.pauseWhileHidden(monitor, c);
      assert.deepStrictEqual(log, ['stop']);
      c.setLifecycleState('passive');
      assert.deepStrictEqual(log, ['stop', 'start']);
      remove();
      c.dispose();
    });
  }

  it('passive at the start: nothing called', () => {
    const c = conditions();
    c.setLifecycleState('passive');
    const { log, monitor } = fake();
    const remove = lagwatch.pauseWhileHidden(monitor, c);
    assert.deepStrictEqual(log, []);
    remove();
    c.dispose();
  });

  it('frozen and terminated are not visible, passive is visible; changes within a side call nothing', () => {
    const c = conditions();
    const { log, monitor } = fake();
    const remove = lagwatch.pauseWhileHidden(monitor, c);
    c.setLifecycleState('passive'); // visible -> visible
    assert.deepStrictEqual(log, []);
    c.setLifecycleState('frozen'); // visible -> not visible
    assert.deepStrictEqual(log, ['stop']);
    c.setLifecycleState('hidden'); // not visible -> not visible
    c.setLifecycleState('terminated');
    c.setLifecycleState('frozen');
    assert.deepStrictEqual(log, ['stop']);
    c.setLifecycleState('active'); // not visible -> visible
    assert.deepStrictEqual(log, ['stop', 'start']);
    c.setLifecycleState('passive');
    c.setLifecycleState('active');
    assert.deepStrictEqual(log, ['stop', 'start']);
    c.setLifecycleState('terminated');
    assert.deepStrictEqual(log, ['stop', 'start', 'stop']);
    c.setLifecycleState('passive');
    assert.deepStrictEqual(log, ['stop', 'start', 'stop', 'start']);
    remove();
    c.dispose();
  });

  it('the returned function removes the behaviour (and calling it twice is harmless)', () => {
    const c = conditions();
    const { log, monitor } = fake();
    const remove = lagwatch.pauseWhileHidden(monitor, c);
    c.setLifecycleState('hidden');
    assert.deepStrictEqual(log, ['stop']);
    remove();
    c.setLifecycleState('active');
    c.setLifecycleState('hidden');
    c.setLifecycleState('active');
    assert.deepStrictEqual(log, ['stop']);
    remove();
    c.setLifecycleState('frozen');
    assert.deepStrictEqual(log, ['stop']);
    c.dispose();
  });

  it('two monitors on the same conditions are paused independently; removing one keeps the other', () => {
    const c = conditions();
    const a = fake();
    const b = fake();
    const removeA = lagwatch.pauseWhileHidden(a.monitor, c);
    const removeB = lagwatch.pauseWhileHidden(b.monitor, c);
    c.setLifecycleState('hidden');
    removeA();
    c.setLifecycleState('active');
    assert.deepStrictEqual(a.log, ['stop']);
    assert.deepStrictEqual(b.log, ['stop', 'start']);
    removeB();
    c.dispose();
  });

  it('a real monitor of setupAllMonitors on another conditions follows that conditions', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim, monitors: { driftLag: false } });
    const other = lagwatch.createConditions({ clock: sim });
    const remove = lagwatch.pauseWhileHidden(m.monitors.clockDrift, other);
    assert.strictEqual(m.monitors.clockDrift.running, true);
    other.setLifecycleState('hidden');
    assert.strictEqual(m.monitors.clockDrift.running, false);
    assert.strictEqual(m.monitors.driftLag.running, false, 'a monitor left out stays out');
    other.setLifecycleState('active');
    assert.strictEqual(m.monitors.clockDrift.running, true);
    remove();
    m.stop();
    other.dispose();
  });

  it('bad arguments: TypeError naming the argument, nothing called', () => {
    const c = conditions();
    const { log, monitor } = fake();
    const cases = [
      [() => lagwatch.pauseWhileHidden(null, c), /monitor/],
      [() => lagwatch.pauseWhileHidden(5, c), /monitor/],
      [() => lagwatch.pauseWhileHidden({ stop() {} }, c), /monitor\.start/],
      [() => lagwatch.pauseWhileHidden({ start() {} }, c), /monitor\.stop/],
      [() => lagwatch.pauseWhileHidden(monitor, {}), /conditions/],
      [() => lagwatch.pauseWhileHidden(monitor), /conditions/],
    ];
    for (const [fn, re] of cases) {
      assert.throws(fn, (err) => err instanceof TypeError && re.test(err.message));
    }
    c.setLifecycleState('hidden');
    assert.deepStrictEqual(log, [], 'a rejected call installs nothing');
    c.dispose();
  });
});

describe('the lifecycle reader with C monitors (SPEC §3)', () => {
  it('is asked before the monitors\' timers run: a change before its event stops them at once', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim });
    let state = 'active';
    m.conditions.setLifecycleReader(() => state);
    sim.advance(5000);
    const before = m.conditions.stats().monitors.driftLag.recorded;
    assert.strictEqual(before, 250);
    state = 'hidden'; // no event: only the reader knows
    sim.advance(20); // the next driftLag firing asks the reader first
    assert.strictEqual(m.conditions.lifecycle.state, 'hidden');
    assert.strictEqual(m.monitors.driftLag.running, false);
    assert.strictEqual(m.conditions.stats().monitors.driftLag.recorded, before);
    m.conditions.setLifecycleReader(null);
    m.stop();
  });
});
