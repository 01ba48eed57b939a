'use strict';
// SPEC §6 and §8: the stall classification matrix, through setupAllMonitors() on the
// deterministic simulation, on linux, darwin and win32, each with Node's own loop and with an
// embedded one (Electron's: the loop never waits in its poll, the thread waits outside libuv) —
// one describe each, the same assertions.
//
// Every scenario: setupAllMonitors() at t = 0 with the defaults (driftLag 20 ms, macrotaskLag
// 250 ms, idleAvailability 1000 ms, worker heartbeat 1000 ms, liveness checks 100 ms, clockDrift
// 1000 ms, flush 1000 ms; threshold 5000, hold 2000, episode delay 2000), advance 10 s, the verb at
// t = 10000, advance 10–20 s, assert. At t = 10000 every timer of the monitors has just fired, so
// after the verb: driftLag is next due at 10020, the worker's timer (its liveness check) at 10100,
// the heartbeat, idleAvailability and clockDrift at 11000.
const assert = require('assert');
const lagwatch = require('..');

const PLATFORMS = ['linux', 'darwin', 'win32'];
const VALIDATED = require('./helpers').MONITORS.validated;
const MAIN_THREAD = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability'];
const T0 = 10000;

function setup(platform, loop) {
  const sim = lagwatch.createSimulation({ platform, loop });
  const logs = [];
  const logger = { log: (level, message) => logs.push(`${level}: ${message}`) };
  const m = lagwatch.setupAllMonitors({ clock: sim, logger });
  // Each event with the simulated time at which it came.
  const ev = { stall: [], jump: [], workerHang: [] };
  for (const name of Object.keys(ev)) m.conditions.on(name, (e) => ev[name].push({ t: sim.now(), e }));
  sim.advance(T0);
  assert.strictEqual(sim.now(), T0);
  assert.deepStrictEqual(ev, { stall: [], jump: [], workerHang: [] }, 'a quiet first 10 s');
  assert.deepStrictEqual(m.conditions.stats().jumps, { suspend: 0, step: 0 });
  return { sim, m, ev, logs };
}

function advanceTo(sim, t) {
  assert.ok(t >= sim.now(), `cannot go back from ${sim.now()} to ${t}`);
  sim.advance(t - sim.now());
  assert.strictEqual(sim.now(), t);
}

function discardedTotal(stats) {
  return Object.values(stats.discarded).reduce((a, b) => a + b, 0);
}

function noHang(ctx) {
  const s = ctx.m.conditions.stats();
  assert.strictEqual(s.stalls.hang, 0, 'no hang episode');
  assert.deepStrictEqual(ctx.ev.stall.filter((x) => x.e.kind === 'hang'), [], 'no hang event');
  assert.deepStrictEqual(ctx.ev.workerHang, [], 'no workerHang');
  assert.strictEqual(ctx.m.workerStats().workerHangs.count, 0, 'the worker counted no hang');
}

function noEpisode(ctx) {
  assert.deepStrictEqual(ctx.ev.stall, [], 'no stall event');
  assert.deepStrictEqual(ctx.m.conditions.stats().stalls, { hang: 0, suspend: 0, pause: 0 });
}

function cleanUp(ctx) {
  ctx.m.stop();
  assert.deepStrictEqual(ctx.logs, [], 'nothing logged');
}

function matrix(platform, loop) {
  const sleepCountsInMonotonic = platform !== 'linux';

  it('block 6 s: one hang episode of 6000 ms over [10000, 16000] at 20000, one workerHang, no jump', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.block(6000);
    assert.strictEqual(sim.now(), 16000);
    advanceTo(sim, 30000);

    // loopBlock's iteration at 16000 was busy 6000 ms (window [10000, 16000]); driftLag's firing
    // due at 10020 came at 16000 (5980 late, window [10000, 16000]); the heartbeat sent at 11000
    // waited 5000 ms. All three are held until 18000, recorded as hang stall samples; the episode
    // is reported 2000 ms after the first: at 20000, with the longest sample.
    assert.strictEqual(ev.stall.length, 1, `one episode: ${JSON.stringify(ev.stall)}`);
    const { t, e } = ev.stall[0];
    assert.strictEqual(t, 20000, 'reported at block end + hold + episode delay');
    assert.strictEqual(e.kind, 'hang');
    assert.strictEqual(e.durationMs, 6000);
    assert.strictEqual(e.start, 10000);
    assert.strictEqual(e.end, 16000);
    assert.strictEqual(e.samples, 3);
    assert.deepStrictEqual([...e.monitors].sort(), ['driftLag', 'loopBlock', 'worker']);

    // The worker saw no progress since 10000; its check at 15000 flags the hang; the main thread
    // runs again at 16000, seen by the check at 16100.
    assert.strictEqual(ev.workerHang.length, 1, `one workerHang: ${JSON.stringify(ev.workerHang)}`);
    const wh = ev.workerHang[0];
    assert.strictEqual(wh.t, 16100);
    // SPEC §12, its cause: the check at 10100 still saw the progress of 10000; the one at 10200
    // saw none and read the main thread's times; the readings end where the main thread ran
    // again, and stand for the whole hang: its span is the hang's 6000 ms. On CPU all along:
    // busy. Run-queue and quota times are known on linux only.
    const known = platform === 'linux' ? 0 : null;
    const cause = {
      cpuMs: 6000, runQueueMs: known, throttledMs: known, blockedMs: 0, gcMs: 0, spanMs: 6000, dominant: 'busy',
    };
    assert.deepStrictEqual(wh.e, { start: 10000, detectedAt: 15000, end: 16000, durationMs: 6000, cause, thread: { id: 0, name: 'main' } });
    assert.strictEqual(wh.e.detectedAt, wh.e.start + 5000);
    assert.deepStrictEqual(e.cause, cause, 'the episode has the cause of the worker hang it overlaps');

    const s = m.conditions.stats();
    assert.deepStrictEqual(s.stalls, { hang: 1, suspend: 0, pause: 0 });
    assert.deepStrictEqual(ev.jump, [], 'no jump');
    assert.deepStrictEqual(s.jumps, { suspend: 0, step: 0 });
    assert.strictEqual(discardedTotal(s), 0, `nothing discarded: ${JSON.stringify(s.discarded)}`);
    assert.deepStrictEqual(m.conditions.tracker.intervals(), []);
    assert.strictEqual(s.monitors.loopBlock.max, 6000);
    assert.strictEqual(s.monitors.driftLag.max, 5980);
    assert.strictEqual(s.monitors.worker.max, 5000);
    assert.strictEqual(m.workerStats().workerHangs.count, 1);
    cleanUp(ctx);
  });

  it(`sleep 30 s: no hang, one suspend jump, overlapping samples discarded as suspend, ${
    sleepCountsInMonotonic ? 'one suspend episode' : 'no episode (monotonic time stops)'}`, () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.sleep(30000);
    // The monotonic clock counts the sleep on darwin and win32 only.
    const wake = sleepCountsInMonotonic ? 40000 : 10000;
    assert.strictEqual(sim.now(), wake);
    advanceTo(sim, wake + 15000);

    noHang(ctx);
    assert.strictEqual(ev.jump.length, 1, `one jump: ${JSON.stringify(ev.jump)}`);
    // The next clockDrift read: at 11000 on linux; at the wake-up (overdue) elsewhere.
    assert.deepStrictEqual(ev.jump[0].e, { kind: 'suspend', at: sleepCountsInMonotonic ? 40000 : 11000, deltaMs: 30000 });
    assert.strictEqual(ev.jump[0].t, ev.jump[0].e.at);
    assert.deepStrictEqual(m.conditions.stats().jumps, { suspend: 1, step: 0 });

    const suspends = m.conditions.tracker.intervals().filter((i) => i.reason === 'suspend');
    if (sleepCountsInMonotonic) {
      // clockDrift: the monotonic span since its previous read; the worker: the sleep its sleep
      // clock measured (30000 ms) before its run at the wake-up, at most since its last run.
      assert.deepStrictEqual(suspends, [
        { start: 10000, end: 40000, reason: 'suspend' },
        { start: 10000, end: 40000, reason: 'suspend' },
      ]);
      // driftLag's firing due at 10020 comes at 40000 (29980 late, window [10000, 40000]). Evidence
      // first (SPEC §4): the overdue clockDrift reading is taken before it is judged, so it is
      // discarded as suspend at once, a suspend stall sample; reported at 42000.
      assert.strictEqual(ev.stall.length, 1, `one episode: ${JSON.stringify(ev.stall)}`);
      assert.strictEqual(ev.stall[0].t, 42000);
      const e = ev.stall[0].e;
      assert.strictEqual(e.kind, 'suspend');
      assert.strictEqual(e.durationMs, 29980);
      assert.strictEqual(e.start, 10000);
      assert.strictEqual(e.end, 40000);
      assert.deepStrictEqual(m.conditions.stats().stalls, { hang: 0, suspend: 1, pause: 0 });
      assert.strictEqual(m.conditions.stats().monitors.driftLag.discarded, 1);
      // idleAvailability's period overdue at the wake-up spans the sleep too: judged after the
      // evidence, it is discarded as well (before the evidence-first rule it was recorded).
      assert.strictEqual(m.conditions.stats().monitors.idleAvailability.discarded, 1);
      assert.strictEqual(m.conditions.stats().discarded.suspend, 2);
    } else {
      assert.deepStrictEqual(suspends, [{ start: 10000, end: 11000, reason: 'suspend' }]);
      noEpisode(ctx);
    }

    // A probe of the app submits, after the evidence, a sample whose window contains the sleep.
    const probe = m.conditions.createValidator({ name: 'probe' });
    const before = m.conditions.stats();
    const recorded = [];
    const windowMs = sim.now() - (T0 - 10);
    assert.strictEqual(probe.submit(100, windowMs, (v) => recorded.push(v)), 'discarded');
    assert.deepStrictEqual(recorded, []);
    const after = m.conditions.stats();
    assert.strictEqual(after.discarded.suspend, before.discarded.suspend + 1);
    assert.strictEqual(discardedTotal(after), discardedTotal(before) + 1);
    assert.strictEqual(after.monitors.probe.discarded, 1);
    assert.strictEqual(after.monitors.probe.recorded, 0);
    // A window that starts where the evidence ends (touching it) is recorded.
    const evidenceEnd = sleepCountsInMonotonic ? 40000 : 11000;
    assert.strictEqual(probe.submit(100, sim.now() - evidenceEnd, (v) => recorded.push(v)), 'recorded');
    assert.deepStrictEqual(recorded, [100]);
    probe.dispose();
    cleanUp(ctx);
  });

  it('pause 6 s: one pause episode of 5980 ms over [10000, 16000] at 18000, no hang, no workerHang, no jump', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.pause(6000);
    assert.strictEqual(sim.now(), 16000);
    advanceTo(sim, 30000);

    // The worker's timer due at 10100 fires at 16000: self-lag 5900, the sleep clock did not grow:
    // a pause interval [10100, 16000]. Both threads resume at 16000, the worker overdue by more
    // than 100 ms: it runs first (evidence first at a wake-up, SPEC §12), so driftLag's firing due
    // at 10020 (5980 late, window [10000, 16000]) is discarded as pause at once, a pause stall
    // sample: the episode is reported 2000 ms later.
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [{ start: 10100, end: 16000, reason: 'pause' }]);
    assert.strictEqual(ev.stall.length, 1, `one episode: ${JSON.stringify(ev.stall)}`);
    assert.strictEqual(ev.stall[0].t, 18000);
    const e = ev.stall[0].e;
    assert.strictEqual(e.kind, 'pause');
    assert.strictEqual(e.durationMs, 5980);
    assert.strictEqual(e.start, 10000);
    assert.strictEqual(e.end, 16000);
    assert.deepStrictEqual(e.monitors, ['driftLag']);
    const s = m.conditions.stats();
    assert.deepStrictEqual(s.stalls, { hang: 0, suspend: 0, pause: 1 });
    // idleAvailability's period over the stop (a ratio, judged at once) finds the evidence too.
    assert.strictEqual(s.discarded.pause, 2);
    assert.strictEqual(s.monitors.driftLag.discarded, 1);
    assert.strictEqual(s.monitors.idleAvailability.discarded, 1);
    noHang(ctx);
    assert.deepStrictEqual(ev.jump, [], 'no jump (no suspend, no step)');
    assert.deepStrictEqual(s.jumps, { suspend: 0, step: 0 });
    assert.strictEqual(m.workerStats().workerSelfLag.max, 5900);
    cleanUp(ctx);
  });

  // A stop by a signal: the worker reads the SIGCONT's time at its first run after it (16000),
  // before the main thread (evidence first at a wake-up): the process was stopped from its run
  // before (10000), exactly, beside its own lateness from its due time (10100).
  it('sigstop 6 s (SIGSTOP, then SIGCONT): the same pause episode, the stop exact from the continue, no hang', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.sigstop(6000);
    assert.strictEqual(sim.now(), 16000);
    advanceTo(sim, 30000);
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [
      { start: 10000, end: 16000, reason: 'pause' },
      { start: 10100, end: 16000, reason: 'pause' },
    ]);
    assert.deepStrictEqual(ev.stall.map(({ t, e }) => [t, e.kind, e.durationMs, e.start, e.end]), [[18000, 'pause', 5980, 10000, 16000]]);
    assert.deepStrictEqual(m.conditions.stats().stalls, { hang: 0, suspend: 0, pause: 1 });
    noHang(ctx);
    cleanUp(ctx);
  });

  // SPEC §8 says pause >= 5 s. 5050 ms from t = 10000: driftLag's firing due at 10020 comes
  // 5030 ms late (a stall sample), while the worker's timer, due at 10100, is only 4950 ms late.
  it('pause 5.05 s (>= 5 s): one pause episode, no hang', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.pause(5050);
    assert.strictEqual(sim.now(), 15050);
    advanceTo(sim, 30000);
    assert.deepStrictEqual(ev.stall.map((x) => x.e.kind), ['pause'], `one pause episode: ${JSON.stringify(ev.stall)}`);
    const e = ev.stall[0].e;
    assert.strictEqual(e.durationMs, 5030);
    assert.strictEqual(e.start, 10000);
    assert.strictEqual(e.end, 15050);
    assert.deepStrictEqual(m.conditions.stats().stalls, { hang: 0, suspend: 0, pause: 1 });
    noHang(ctx);
    cleanUp(ctx);
  });

  // SPEC §8 says stallWorker >= 5 s. 5050 ms from t = 10000: the worker last ran at 10000, its
  // timer was due at 10100.
  it('stallWorker 5.05 s (>= 5 s): a pause interval, main samples after it discarded as pause, no hang', () => {
    const ctx = setup(platform, loop);
    const { sim, m } = ctx;
    sim.stallWorker(5050);
    assert.strictEqual(sim.now(), 15050);
    advanceTo(sim, 30000);
    const pauses = m.conditions.tracker.intervals().filter((i) => i.reason === 'pause');
    assert.ok(pauses.some((i) => i.start < 15050 && i.end > 10000), `a pause interval over the stall: ${JSON.stringify(pauses)}`);
    const s = m.conditions.stats();
    assert.ok(MAIN_THREAD.reduce((n, name) => n + s.monitors[name].discarded, 0) >= 1, 'main-thread samples discarded');
    assert.strictEqual(s.discarded.pause, discardedTotal(s));
    noHang(ctx);
    noEpisode(ctx);
    cleanUp(ctx);
  });

  // With driftLag and macrotaskLag off the main loop runs once a second, so the worker's check at
  // 10100 saw its last progress (10000) and, at the wake-up, the worker's timer (due 10200) runs
  // before the main thread's (due 11000): its own lateness must reset its last-progress time.
  for (const verb of ['sleep', 'pause']) {
    it(`${verb} 30 s of an idle main loop, the worker woken first: no workerHang, no hang`, () => {
      const sim = lagwatch.createSimulation({ platform });
      const m = lagwatch.setupAllMonitors({ clock: sim, monitors: { driftLag: false, macrotaskLag: false } });
      const hangs = [];
      m.conditions.on('workerHang', (e) => hangs.push(e));
      sim.advance(10100);
      sim[verb](30000);
      const wake = verb === 'sleep' && !sleepCountsInMonotonic ? 10100 : 40100;
      assert.strictEqual(sim.now(), wake);
      advanceTo(sim, wake + 15000);
      assert.deepStrictEqual(hangs, []);
      assert.strictEqual(m.workerStats().workerHangs.count, 0);
      assert.strictEqual(m.conditions.stats().stalls.hang, 0);
      if (wake === 40100) {
        // The worker's own evidence: a stop from its timer's due time (10200: [sentAt - selfLag,
        // sentAt]); a sleep from when its sleep clock says it began (10100, its last run).
        const reason = verb === 'sleep' ? 'suspend' : 'pause';
        const start = verb === 'sleep' ? 10100 : 10200;
        assert.ok(m.conditions.tracker.intervals().some((i) => i.reason === reason && i.start === start && i.end === 40100),
          JSON.stringify(m.conditions.tracker.intervals()));
        assert.strictEqual(m.workerStats().workerSelfLag.max, 29900);
      }
      m.stop();
    });
  }

  it('stepWall +1 h then -1 h: one step jump each, nothing discarded, no interval, no episode', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.stepWall(3600000);
    assert.strictEqual(sim.now(), T0);
    advanceTo(sim, 20000);
    assert.strictEqual(ev.jump.length, 1, `one jump: ${JSON.stringify(ev.jump)}`);
    assert.deepStrictEqual(ev.jump[0], { t: 11000, e: { kind: 'step', at: 11000, deltaMs: 3600000 } });
    sim.stepWall(-3600000);
    assert.strictEqual(sim.now(), 20000);
    advanceTo(sim, 35000);
    assert.strictEqual(ev.jump.length, 2, `two jumps in all: ${JSON.stringify(ev.jump)}`);
    assert.deepStrictEqual(ev.jump[1], { t: 21000, e: { kind: 'step', at: 21000, deltaMs: -3600000 } });

    const s = m.conditions.stats();
    assert.deepStrictEqual(s.jumps, { suspend: 0, step: 2 });
    assert.strictEqual(discardedTotal(s), 0, `nothing discarded: ${JSON.stringify(s.discarded)}`);
    for (const name of VALIDATED) assert.strictEqual(s.monitors[name].discarded, 0, name);
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [], 'a step adds no interval');
    noEpisode(ctx);
    noHang(ctx);
    cleanUp(ctx);
  });

  it('stallWorker 6 s: a pause interval [10100, 16000], main samples after it discarded as pause, no hang', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    sim.stallWorker(6000);
    assert.strictEqual(sim.now(), 16000);
    advanceTo(sim, 30000);

    const ivs = m.conditions.tracker.intervals();
    assert.deepStrictEqual(ivs, [{ start: 10100, end: 16000, reason: 'pause' }]);
    // The worker's evidence arrives at 16000 before the main thread's timers of that instant:
    // driftLag's firing at 16000 (window [15980, 16000]) and idleAvailability's (window
    // [15000, 16000]) are discarded as pause. The main thread was fine: its earlier samples were
    // recorded before the evidence came.
    const s = m.conditions.stats();
    const mainPause = MAIN_THREAD.reduce((n, name) => n + s.monitors[name].discarded, 0);
    assert.ok(mainPause >= 1, 'main-thread samples discarded');
    assert.strictEqual(s.monitors.driftLag.discarded, 1);
    assert.strictEqual(s.monitors.idleAvailability.discarded, 1);
    assert.strictEqual(s.monitors.worker.discarded, 0);
    assert.deepStrictEqual(s.discarded, { ...s.discarded, pause: 2 });
    assert.strictEqual(discardedTotal(s), 2);
    noHang(ctx);
    noEpisode(ctx);
    assert.deepStrictEqual(ev.jump, []);
    assert.strictEqual(m.workerStats().workerSelfLag.max, 5900);
    cleanUp(ctx);
  });

  it('throttle 10 s: a throttled interval [10000, 20020] detected at 13000, later samples discarded, no hang', () => {
    const ctx = setup(platform, loop);
    const { sim, m, ev } = ctx;
    // At each flush (a main-thread timer: 11000, 12000, ... while throttled), what the tracker
    // holds and what each monitor has recorded.
    const flushes = [];
    m.conditions.on('samples', (batches) => {
      const s = m.conditions.stats();
      flushes.push({
        t: sim.now(),
        intervals: m.conditions.tracker.intervals(),
        drift: batches.driftLag ? Array.from(batches.driftLag) : [],
        recorded: Object.fromEntries(VALIDATED.map((n) => [n, s.monitors[n].recorded])),
      });
    });
    sim.throttle(10000);
    assert.strictEqual(sim.now(), 20000);
    advanceTo(sim, 30000);

    const at = (t) => {
      const f = flushes.find((x) => x.t === t);
      assert.ok(f, `a flush at ${t}: ${flushes.map((x) => x.t)}`);
      return f;
    };
    // driftLag (due 10020, 11020, 12020) fires at 11000, 12000, 13000, each 980 ms late with an
    // idle loop: the third opens the interval at the start of the first late window, 10000.
    assert.deepStrictEqual(at(11000).intervals, []);
    assert.deepStrictEqual(at(12000).intervals, []);
    assert.deepStrictEqual(at(13000).intervals, [{ start: 10000, end: Infinity, reason: 'throttled' }]);
    // The late samples before detection stay recorded.
    assert.deepStrictEqual(at(11000).drift, [980]);
    assert.deepStrictEqual(at(12000).drift, [980]);
    assert.deepStrictEqual(at(13000).drift, [980]);
    // After detection, until the interval closes, no validated monitor records anything.
    for (let t = 14000; t <= 20000; t += 1000) {
      assert.deepStrictEqual(at(t).recorded, at(13000).recorded, `nothing recorded at ${t}`);
      assert.deepStrictEqual(at(t).drift, [], `no driftLag value at ${t}`);
    }
    // Closed at the first punctual firing after the throttle: driftLag due at 20020.
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [{ start: 10000, end: 20020, reason: 'throttled' }]);
    const s = m.conditions.stats();
    // driftLag's firings 14000 ... 20000 and 20020 (its window [20000, 20020] still overlaps).
    assert.strictEqual(s.monitors.driftLag.discarded, 8);
    assert.strictEqual(s.monitors.driftLag.recorded, at(13000).recorded.driftLag + (30000 - 20020) / 20);
    for (const name of VALIDATED) assert.ok(s.monitors[name].discarded >= 1, `${name} discarded as throttled`);
    const total = VALIDATED.reduce((n, name) => n + s.monitors[name].discarded, 0);
    assert.strictEqual(s.discarded.throttled, total, 'every discard is throttled');
    assert.strictEqual(discardedTotal(s), total);
    noHang(ctx);
    noEpisode(ctx);
    assert.deepStrictEqual(ev.jump, []);
    cleanUp(ctx);
  });
}

// SPEC §5, where a fault meets the app's own work: one callback at T0 (sim.iteration) holds a stop
// or a sleep and the app's work. Evidence explains only the time it covers: the app's part is a
// hang of its own, which the worker's 'workerHang' confirms within 100 ms; the stop is an episode
// of its kind if it reaches the threshold alone. Each case: the 'stall' and 'workerHang' events as
// [t, kind, durationMs, start, end] and [t, start, end, durationMs], by platform and loop.
//   linux: a stop is seen from the worker's first check after it began (its checks come every
//     100 ms while the loop is busy): the 500 ms stop at 10000 is evidence [10100, 10500], the 3 s
//     one after 2 s of work [12050, 15000]; the app's part is the rest (6100 and 7550 ms), and the
//     hang clock of the worker moves by the same lateness. 'workerHang' starts where the loop last
//     made progress (10000), its duration the app's part; a lateness of the threshold or more (the
//     6 s stop) moves its start instead (SPEC §6). A sleep takes no monotonic time.
//   darwin, win32: a stop under the threshold cannot be told from starvation there (SPEC §12):
//     it is the app's time; a 6 s stop is seen by SPEC §6's worker rule. The monotonic clock counts a
//     sleep: clockDrift's suspend [10000, 46000] accounts for its 30 s only, the worker's
//     lateness [10100, 40000] for most of them, and the 6 s of work after the wake-up are a hang.
//   An embedded loop's longest sample of the app's part is driftLag's, 20 ms under loopBlock's.
// Keys: linux or other (darwin, win32), then the loop. The embedded loop's progress stamp is its
// last iteration (driftLag's, 20 ms before T0), and its longest samples driftLag's.
const H = (t, d, s, e) => [t, 'hang', d, s, e];
const COMPOUND = {
  'a 500 ms stop, then 6 s of work': {
    steps: [['pause', 500], ['block', 6000]],
    'linux node': { stall: [H(20500, 6100, 10000, 16500)], workerHang: [[16600, 10000, 16500, 6100]] },
    'linux embedded': { stall: [H(20500, 6080, 10000, 16500)], workerHang: [[16580, 10000, 16500, 6120]] },
    'other node': { stall: [H(20500, 6500, 10000, 16500)], workerHang: [[16600, 10000, 16500, 6500]] },
    'other embedded': { stall: [H(20500, 6480, 10000, 16500)], workerHang: [[16600, 10000, 16500, 6500]] },
  },
  '2 s of work, a 3 s stop, 5.5 s of work': {
    steps: [['block', 2000], ['pause', 3000], ['block', 5500]],
    'linux node': { stall: [H(24500, 7550, 10000, 20500)], workerHang: [[20550, 10000, 20500, 7550]] },
    'linux embedded': { stall: [H(24500, 7530, 10000, 20500)], workerHang: [[20550, 10000, 20500, 7550]] },
    'other node': { stall: [H(24500, 10500, 10000, 20500)], workerHang: [[20600, 10000, 20500, 10500]] },
    'other embedded': { stall: [H(24500, 10480, 10000, 20500)], workerHang: [[20600, 10000, 20500, 10500]] },
  },
  '2 s of work, a 6 s stop, 5 s of work: a hang and a pause': {
    steps: [['block', 2000], ['pause', 6000], ['block', 5000]],
    node: {
      stall: [H(27000, 7050, 10000, 23000), [27000, 'pause', 5950, 10000, 23000]],
      workerHang: [[23050, 15950, 23000, 7050]],
    },
    embedded: {
      stall: [[25000, 'pause', 7000, 10000, 23000], H(27000, 7030, 10000, 23000)],
      workerHang: [[23050, 15950, 23000, 7050]],
    },
  },
  'a debugger holds it 6 s, then 6 s of work': {
    // The worker's hang clock starts again at its last check while the debugger held the thread.
    steps: [['debug', 6000], ['block', 6000]],
    node: { stall: [H(26000, 6000, 10000, 22000)], workerHang: [[22100, 15900, 22000, 6100]] },
    embedded: { stall: [H(26000, 6000, 10000, 22000)], workerHang: [[22100, 15900, 22000, 6100]] },
  },
  'a 30 s sleep, then 6 s of work': {
    steps: [['sleep', 30000], ['block', 6000]],
    linux: { stall: [H(20000, 6000, 10000, 16000)], workerHang: [[16100, 10000, 16000, 6000]] },
    'other node': {
      stall: [H(50000, 6000, 10000, 46000), [50000, 'suspend', 30000, 10000, 46000]],
      workerHang: [[46100, 40000, 46000, 6000]],
    },
    'other embedded': {
      stall: [H(50000, 6000, 10000, 46000), [50000, 'suspend', 30000, 10000, 46000]],
      workerHang: [[46080, 39980, 46000, 6020]],
    },
  },
};

function expectedCompound(c, platform, loop) {
  const os = platform === 'linux' ? 'linux' : 'other';
  return c[`${os} ${loop}`] || c[os] || c[loop];
}

function compound(platform, loop) {
  it('debug 6 s (a breakpoint): no hang, no workerHang, no episode, the samples over it discarded as debugger', () => {
    const ctx = setup(platform, loop);
    const { sim, m } = ctx;
    sim.debug(6000);
    assert.strictEqual(sim.now(), 16000);
    advanceTo(sim, 40000);
    noHang(ctx);
    noEpisode(ctx);
    assert.deepStrictEqual(m.conditions.tracker.intervals(), [{ start: 10000, end: 16000, reason: 'debugger' }]);
    const s = m.conditions.stats();
    assert.ok(s.discarded.debugger >= 1, JSON.stringify(s.discarded));
    assert.strictEqual(discardedTotal(s), s.discarded.debugger, 'every discard is the debugger\'s');
    for (const name of ['loopBlock', 'driftLag']) assert.ok(s.monitors[name].max < 100, `${name}: no lag of the pause recorded`);
    cleanUp(ctx);
  });

  for (const [name, c] of Object.entries(COMPOUND)) {
    it(`one callback, ${name}: the app's part a hang of its own, as workerHang says`, () => {
      const ctx = setup(platform, loop);
      const { sim, m, ev } = ctx;
      sim.iteration(c.steps);
      advanceTo(sim, sim.now() + 30000);
      const want = expectedCompound(c, platform, loop);
      const got = {
        stall: ev.stall.map(({ t, e }) => [t, e.kind, e.durationMs, e.start, e.end]),
        workerHang: ev.workerHang.map(({ t, e }) => [t, e.start, e.end, e.durationMs]),
      };
      assert.deepStrictEqual(got, want);
      const hang = ev.stall.find((x) => x.e.kind === 'hang').e;
      assert.ok(Math.abs(hang.durationMs - ev.workerHang[0].e.durationMs) <= 100, 'the hang and workerHang agree within 100 ms');
      // SPEC §12: the cause is over the hang's own time, a stop inside taken out.
      assert.strictEqual(ev.workerHang[0].e.cause.spanMs, ev.workerHang[0].e.durationMs, 'the cause spans the hang');
      assert.deepStrictEqual(hang.cause, ev.workerHang[0].e.cause, 'the episode has the cause of its worker hang');
      const s = m.conditions.stats();
      for (const kind of ['hang', 'suspend', 'pause']) {
        assert.strictEqual(s.stalls[kind], want.stall.filter((x) => x[1] === kind).length, `stalls.${kind}`);
      }
      cleanUp(ctx);
    });
  }
}

describe('monitors: stall classification matrix (SPEC §8)', () => {
  for (const platform of PLATFORMS) {
    for (const loop of ['node', 'embedded']) {
      describe(`${platform}, ${loop === 'node' ? "Node's own loop" : 'an embedded loop (Electron)'}`, () => {
        matrix(platform, loop);
        compound(platform, loop);
      });
    }
  }
});
