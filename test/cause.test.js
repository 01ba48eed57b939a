'use strict';
// SPEC §12 on the simulation, exact to the millisecond: the cause of a hang from what the main
// thread did (sim.block(ms, state)), on the 'workerHang' event and the hang episode it overlaps;
// stops of any length on linux (the worker's lateness without run-queue growth), SPEC §6's worker
// rule on darwin and win32; starvation never a pause.
const assert = require('assert');
const lagwatch = require('..');

function run(platform, script) {
  const sim = lagwatch.createSimulation({ platform });
  const m = lagwatch.setupAllMonitors({ clock: sim });
  const ev = { stall: [], workerHang: [], jump: [] };
  for (const name of Object.keys(ev)) m.conditions.on(name, (e) => ev[name].push({ t: sim.now(), e }));
  sim.advance(10000);
  script(sim);
  sim.advance(20000);
  const stats = m.conditions.stats();
  m.stop();
  return { ev, stats, sim };
}

// The worker's check at 10100 still sees the progress of 10000, the one at 10200 none: the
// readings cover [10200, 16000], where the main thread ran again, and stand for the whole hang
// from 10000: its span is the hang's own 6000 ms.
function cause(fields) {
  return {
    cpuMs: 0, runQueueMs: 0, throttledMs: 0, blockedMs: 0, gcMs: 0, spanMs: 6000, ...fields,
  };
}

describe('hang cause (SPEC §12), on the simulation', () => {
  const linux = {
    cpu: cause({ cpuMs: 6000, dominant: 'busy' }),
    gc: cause({ cpuMs: 6000, gcMs: 6000, dominant: 'gc' }),
    blocked: cause({ blockedMs: 6000, dominant: 'blocked' }),
    starved: cause({ runQueueMs: 6000, dominant: 'starved' }),
    throttled: cause({ throttledMs: 6000, dominant: 'throttled' }),
  };
  for (const [state, want] of Object.entries(linux)) {
    it(`linux, block 6 s '${state}': one hang, dominant ${want.dominant}, on the workerHang and the episode`, () => {
      const { ev, stats } = run('linux', (sim) => sim.block(6000, state));
      assert.deepStrictEqual(stats.stalls, { hang: 1, suspend: 0, pause: 0 });
      assert.strictEqual(ev.workerHang.length, 1);
      assert.deepStrictEqual(ev.workerHang[0].e.cause, want);
      assert.strictEqual(ev.stall.length, 1);
      assert.deepStrictEqual(ev.stall[0].e.cause, want);
    });
  }

  // Where the OS tells the thread's CPU time only: waiting for a CPU is off-CPU time, 'blocked'.
  for (const platform of ['darwin', 'win32']) {
    it(`${platform}: run-queue and quota times are null; starved and throttled read as blocked`, () => {
      const unknown = { runQueueMs: null, throttledMs: null };
      assert.deepStrictEqual(run(platform, (sim) => sim.block(6000)).ev.workerHang[0].e.cause,
        cause({ ...unknown, cpuMs: 6000, dominant: 'busy' }));
      assert.deepStrictEqual(run(platform, (sim) => sim.block(6000, 'gc')).ev.workerHang[0].e.cause,
        cause({ ...unknown, cpuMs: 6000, gcMs: 6000, dominant: 'gc' }));
      for (const state of ['blocked', 'starved', 'throttled']) {
        assert.deepStrictEqual(run(platform, (sim) => sim.block(6000, state)).ev.stall[0].e.cause,
          cause({ ...unknown, blockedMs: 6000, dominant: 'blocked' }), state);
      }
    });
  }

  it('a pause episode, or a stall with no worker hang under it, has no cause field or a null one', () => {
    const p = run('linux', (sim) => sim.pause(6000));
    assert.strictEqual(p.ev.stall[0].e.kind, 'pause');
    assert.ok(!('cause' in p.ev.stall[0].e), 'only hang episodes carry a cause');
    // Starved whole for 6 s, the worker could not read anything during the hang.
    const s = run('linux', (sim) => sim.starve(6000));
    assert.strictEqual(s.ev.stall[0].e.kind, 'hang');
    assert.strictEqual(s.ev.stall[0].e.cause, null);
  });

  it('stats().causes counts hang episodes by their dominant cause', () => {
    const { stats } = run('linux', (sim) => {
      sim.block(6000, 'throttled');
      sim.advance(10000);
      sim.block(6000, 'blocked');
    });
    assert.deepStrictEqual(stats.causes, { busy: 0, gc: 0, blocked: 1, starved: 0, throttled: 1 });
  });
});

describe('stops of any length (SPEC §12), on the simulation', () => {
  for (const ms of [1000, 3000]) {
    it(`linux, pause ${ms} ms: the samples over it discarded as pause, no episode, nothing recorded as lag`, () => {
      const { ev, stats } = run('linux', (sim) => sim.pause(ms));
      assert.strictEqual(stats.discarded.pause, 2, JSON.stringify(stats.discarded)); // driftLag, idleAvailability
      assert.strictEqual(stats.monitors.driftLag.discarded, 1);
      assert.ok(stats.monitors.driftLag.max < 100, `no lateness of the stop recorded: ${stats.monitors.driftLag.max}`);
      assert.deepStrictEqual(stats.stalls, { hang: 0, suspend: 0, pause: 0 });
      assert.deepStrictEqual(ev.workerHang, []);
    });
  }

  it('darwin, pause 3000 ms: SPEC §6\'s worker rule (5 s), the stop is recorded as lag', () => {
    const { stats } = run('darwin', (sim) => sim.pause(3000));
    assert.strictEqual(stats.discarded.pause, 0);
    assert.strictEqual(stats.monitors.driftLag.max, 2980);
  });

  it('linux, starved whole for 6 s: a hang, never a pause; darwin: SPEC §6\'s pause', () => {
    const l = run('linux', (sim) => sim.starve(6000));
    assert.deepStrictEqual(l.stats.stalls, { hang: 1, suspend: 0, pause: 0 });
    assert.strictEqual(l.stats.discarded.pause, 0);
    const d = run('darwin', (sim) => sim.starve(6000));
    assert.deepStrictEqual(d.stats.stalls, { hang: 0, suspend: 0, pause: 1 });
  });

  it('starved 600 ms at a time, ten times in a row: on linux no throttled interval (the run queue says starvation); darwin cannot tell', () => {
    const starveTenTimes = (sim) => {
      for (let i = 0; i < 10; i++) sim.starve(600);
    };
    const l = run('linux', starveTenTimes);
    assert.strictEqual(l.stats.discarded.throttled, 0, JSON.stringify(l.stats.discarded));
    // The loop waits from 10000 with driftLag and macrotaskLag asleep; its wake-up for the 1 s
    // timers (11000) comes at 11200, held: the timer was held as well, from the wait's start at
    // the latest: its due of 10020 fires then, 1180 ms late (a timer kept awake, due every 20 ms,
    // would have fired at each end of a starved stretch: 580 ms late). Later firings, with the
    // loop awake and starved, come 580 ms late.
    assert.strictEqual(l.stats.monitors.driftLag.max, 1180, 'the starvation is recorded as lag');
    const d = run('darwin', starveTenTimes);
    assert.ok(d.stats.discarded.throttled > 0, 'darwin keeps timerThrottle\'s reading');
  });

  it('linux, busy 500 ms, stopped 3 s, busy 3.5 s: no hang (4 s of the app\'s own), the stop discarded', () => {
    const { ev, stats } = run('linux', (sim) => {
      sim.block(500);
      sim.pause(3000);
      sim.block(3500);
    });
    assert.deepStrictEqual(stats.stalls, { hang: 0, suspend: 0, pause: 0 });
    assert.deepStrictEqual(ev.workerHang, []);
    assert.strictEqual(stats.discarded.pause, 2);
  });
});

describe('sim.block(ms, state) and sim.starve(ms): bad input (SPEC §11)', () => {
  it('an unknown state is a RangeError naming it, a non-string a TypeError; nothing moves', () => {
    const sim = lagwatch.createSimulation();
    assert.throws(() => sim.block(100, 'asleep'), (e) => e instanceof RangeError && /"state"/.test(e.message));
    assert.throws(() => sim.block(100, 5), (e) => e instanceof TypeError && /"state"/.test(e.message));
    assert.throws(() => sim.starve(-1), (e) => e instanceof RangeError && /"ms"/.test(e.message));
    assert.throws(() => sim.starve('1'), (e) => e instanceof TypeError && /"ms"/.test(e.message));
    assert.strictEqual(sim.now(), 0);
  });
});

describe('setupAllMonitors({ stacks }): bad input (SPEC §11)', () => {
  it('a non-boolean is a TypeError naming options.stacks; nothing is set up', () => {
    for (const bad of ['yes', 1, null, {}]) {
      assert.throws(() => lagwatch.setupAllMonitors({ clock: lagwatch.createSimulation(), stacks: bad }),
        (e) => e instanceof TypeError && /options\.stacks/.test(e.message), String(bad));
    }
    lagwatch.setupAllMonitors().stop(); // the real-clock slot of this thread is free
  });
});

describe('stopping loses nothing (SPEC §4, §12)', () => {
  it('stop() right after a hang the worker flagged but has not yet seen end: its workerHang and the episode, with the cause', () => {
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim });
    const ev = { stall: [], workerHang: [] };
    for (const name of Object.keys(ev)) m.conditions.on(name, (e) => ev[name].push(e));
    sim.advance(10000);
    sim.block(6000); // flagged at 15000; the main thread runs at 16000, the worker's next check is at 16100
    m.stop();
    assert.strictEqual(ev.workerHang.length, 1, 'the hang in progress is reported at stop');
    const wh = ev.workerHang[0];
    assert.deepStrictEqual([wh.start, wh.detectedAt, wh.end], [10000, 15000, 16000]);
    assert.strictEqual(wh.cause.dominant, 'busy');
    assert.strictEqual(wh.cause.spanMs, 6000);
    assert.strictEqual(ev.stall.length, 1);
    assert.deepStrictEqual(ev.stall[0].cause, wh.cause);
  });

  it('hidden right after a hang (the worker monitor pauses while hidden): its workerHang and the episode keep the cause', () => {
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim });
    const ev = { stall: [], workerHang: [] };
    for (const name of Object.keys(ev)) m.conditions.on(name, (e) => ev[name].push(e));
    sim.advance(10000);
    sim.block(6000); // flagged at 15000; the main thread runs at 16000
    sim.advance(1);
    m.conditions.setLifecycleState('hidden'); // stops the worker before its next check (16100)
    sim.advance(3000);
    m.conditions.setLifecycleState('active');
    sim.advance(10000);
    assert.strictEqual(ev.workerHang.length, 1, 'the hang in progress is reported when its worker pauses');
    const wh = ev.workerHang[0];
    assert.deepStrictEqual([wh.start, wh.detectedAt, wh.end], [10000, 15000, 16000]); // ended when the main thread ran again
    assert.strictEqual(wh.cause.dominant, 'busy');
    assert.strictEqual(ev.stall.length, 1);
    assert.strictEqual(ev.stall[0].kind, 'hang');
    assert.deepStrictEqual(ev.stall[0].cause, wh.cause);
    m.stop();
    assert.strictEqual(ev.workerHang.length, 1);
  });
});
