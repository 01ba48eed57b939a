'use strict';
// driftLag and macrotaskLag sleep while Node's loop waits: their timers are not armed
// while the loop waits in its poll, and when the loop runs again what the timers would have done
// meanwhile is done (src/core/monitors.h, lw_monset_core_awake). On the simulation, exact to the
// millisecond: the samples are those of monitors kept awake (a lifecycle reader keeps them
// firing, since the reader is asked at each firing), in a fraction of the loop's wake-ups. In a
// real process: the same rate of samples, about 2 wake-ups of the main thread a second instead
// of 56, no JS, and a block still seen.
const assert = require('assert');
const path = require('path');
const { spawnSync } = require('child_process');
const lagwatch = require('..');

// One simulated set, started at `offset`; `awake`: a lifecycle reader keeps driftLag and
// macrotaskLag firing.
function run(awake, script, platform = 'linux', offset = 0) {
  const sim = lagwatch.createSimulation({ platform });
  sim.advance(offset); // the set starts then
  const m = lagwatch.setupAllMonitors({ clock: sim });
  if (awake) m.conditions.setLifecycleReader(() => 'active');
  const drift = [];
  const macro = [];
  let iterations = 0;
  const stalls = [];
  m.conditions.on('samples', (b) => {
    if (b.driftLag) drift.push(...b.driftLag);
    if (b.macrotaskLag) macro.push(...b.macrotaskLag);
    if (b.loopBlock) iterations += b.loopBlock.length;
  });
  m.conditions.on('stall', (e) => stalls.push({ kind: e.kind, durationMs: e.durationMs, start: e.start, end: e.end }));
  script(sim);
  m.stop();
  const s = m.conditions.stats();
  // A firing caught up at a wake-up is recorded then, possibly after the flush that a firing of a
  // driftLag kept awake would have gone with: the values are compared as a whole.
  drift.sort((a, b) => a - b);
  macro.sort((a, b) => a - b);
  return {
    drift, macro, iterations, stalls, stats: s.monitors.driftLag, macroStats: s.monitors.macrotaskLag,
    discarded: s.discarded, intervals: m.conditions.tracker.intervals(),
  };
}

// Every case runs as a script on both sets; driftLag's samples, verdicts and episodes must be equal.
const CASES = {
  'idle 10 s': (sim) => sim.advance(10000),
  'idle, blocks of 300 ms and 7 ms inside waits, idle': (sim) => {
    sim.advance(5005);
    sim.block(300);
    sim.advance(2008);
    sim.block(7);
    sim.advance(5000);
  },
  'a 6 s block (a hang), idle after it': (sim) => {
    sim.advance(3013);
    sim.block(6000);
    sim.advance(8000);
  },
  'a 3 s pause (SIGSTOP) while the loop waits': (sim) => {
    sim.advance(8000);
    sim.pause(3000);
    sim.advance(4000);
  },
  'a 300 ms pause that ends before the next wake-up': (sim) => {
    sim.advance(8000);
    sim.pause(300);
    sim.advance(4000);
  },
  'a 6 s pause (a pause episode)': (sim) => {
    sim.advance(10000);
    sim.pause(6000);
    sim.advance(10000);
  },
};

describe('driftLag and macrotaskLag sleep while the loop waits', () => {
  for (const [name, script] of Object.entries(CASES)) {
    it(`simulation, ${name}: the driftLag and macrotaskLag samples, verdicts and episodes of timers kept awake`, () => {
      const asleep = run(false, script);
      const awake = run(true, script);
      assert.ok(awake.drift.length > 0);
      assert.deepStrictEqual(asleep.drift, awake.drift, 'driftLag values');
      assert.deepStrictEqual(asleep.stats, awake.stats, 'driftLag stats');
      assert.deepStrictEqual(asleep.macro, awake.macro, 'macrotaskLag values');
      assert.deepStrictEqual(asleep.macroStats, awake.macroStats, 'macrotaskLag stats');
      assert.deepStrictEqual(asleep.discarded, awake.discarded, 'discarded by reason');
      assert.deepStrictEqual(asleep.stalls, awake.stalls, 'episodes');
      assert.deepStrictEqual(asleep.intervals, awake.intervals, 'intervals');
      // The loop woke far less often (each wake-up is a loop iteration, a loopBlock sample).
      assert.ok(asleep.iterations * 3 < awake.iterations, `${asleep.iterations} iterations asleep, ${awake.iterations} awake`);
    });
  }

  // A suspend: where the monotonic clock counts it (macOS, Windows), timers come late after it, as
  // the firing caught up does. On Linux it stands still: every firing comes on time, and clockDrift
  // shows the suspend over the whole second since its previous reading. A driftLag kept awake has
  // recorded that second's firings before the evidence came (late evidence, which SPEC §6
  // accepts); the firings caught up at the next wake-up are judged with it: discarded as suspend.
  const suspend = (sim) => {
    sim.advance(4000);
    sim.sleep(30000);
    sim.advance(5000);
  };
  for (const platform of ['darwin', 'win32']) {
    it(`simulation, ${platform}, a 30 s sleep (suspend) while the loop waits: the driftLag and macrotaskLag samples, verdicts and episodes of timers kept awake`, () => {
      const asleep = run(false, suspend, platform);
      const awake = run(true, suspend, platform);
      assert.deepStrictEqual({ ...asleep, iterations: 0 }, { ...awake, iterations: 0 });
      assert.ok(asleep.iterations * 3 < awake.iterations, `${asleep.iterations} iterations asleep, ${awake.iterations} awake`);
    });
  }
  it('simulation, linux, a 30 s sleep (suspend) while the loop waits: the same firings; those of the suspend\'s second caught up after its evidence, discarded', () => {
    const asleep = run(false, suspend);
    const awake = run(true, suspend);
    assert.strictEqual(asleep.stats.submitted, awake.stats.submitted);
    assert.deepStrictEqual(asleep.intervals, awake.intervals);
    assert.deepStrictEqual(asleep.intervals.map((i) => i.reason), ['suspend']);
    const moved = asleep.stats.discarded - awake.stats.discarded;
    assert.ok(moved > 0 && moved <= 50, `${moved} firings discarded instead of recorded`);
    assert.strictEqual(awake.stats.recorded - asleep.stats.recorded, moved);
    // macrotaskLag's firings of that second likewise (4 a second, at most).
    assert.strictEqual(asleep.macroStats.submitted, awake.macroStats.submitted);
    const macroMoved = asleep.macroStats.discarded - awake.macroStats.discarded;
    assert.ok(macroMoved >= 0 && macroMoved <= 4, `${macroMoved} macrotaskLag firings discarded instead of recorded`);
    assert.strictEqual(awake.macroStats.recorded - asleep.macroStats.recorded, macroMoved);
    assert.strictEqual(asleep.discarded.suspend - awake.discarded.suspend, moved + macroMoved);
    assert.deepStrictEqual(asleep.stalls, awake.stalls);
  });

  // Timers throttled to whole seconds (App Nap's way) while the loop waits: the set's own wake-up
  // is then its 1 s timers'. Off the throttle's grid (a set started at 300 or 650), that wake-up
  // is held: driftLag's firing comes late, three in a row open the throttled interval, and the
  // rest is discarded. On the grid (started at 0) nothing of the set's is held, every firing is
  // on time and nothing opens. A driftLag and a macrotaskLag kept awake make a 250 ms wake-up that
  // a throttle holds by less than 500 ms off the grid: late samples, all recorded, no interval.
  // Asleep never records more late samples than awake, nor more than the rule accepts.
  it('simulation, timers throttled 10 s while the loop waits: at most the 3 late firings the rule accepts (and one under 500 ms) are recorded', () => {
    for (const offset of [0, 300, 650]) {
      const script = (sim) => {
        sim.advance(10000);
        sim.throttle(10000);
        sim.advance(20000);
      };
      const asleep = run(false, script, 'linux', offset);
      const awake = run(true, script, 'linux', offset);
      const late = (r) => r.drift.filter((v) => v > 0).length;
      assert.ok(late(asleep) <= 4 && late(asleep) <= late(awake), `offset ${offset}: ${late(asleep)} late recorded asleep, ${late(awake)} awake`);
      assert.deepStrictEqual(asleep.stalls, []);
      const reasons = asleep.intervals.map((i) => i.reason);
      assert.deepStrictEqual(reasons, offset === 0 ? [] : ['throttled'], `offset ${offset}`);
    }
  });

  // The worker's hang detector counts from the main thread's last progress, stamped before each
  // poll: a loop that waited long (driftLag asleep, macrotaskLag out) would count its wait into a
  // block that follows. libuv's idle time, read by the worker, shows the wait: no hang for a
  // block shorter than the threshold, and a hang that starts when the block does.
  it('simulation: a block after a long wait is judged from the wait\'s end (no workerHang for 4.9 s; a 6 s hang starts with the block)', () => {
    for (const [ms, hangs] of [[4900, 0], [6000, 1]]) {
      const sim = lagwatch.createSimulation({ platform: 'linux' });
      const m = lagwatch.setupAllMonitors({ clock: sim, monitors: { macrotaskLag: false } });
      const workerHangs = [];
      m.conditions.on('workerHang', (e) => workerHangs.push(e));
      sim.advance(10000); // the 1 s timers' wake-up
      sim.advance(600); // a wait: the next wake-up is at 11000
      sim.block(ms);
      sim.advance(10000);
      assert.strictEqual(workerHangs.length, hangs, `${ms} ms: ${JSON.stringify(workerHangs)}`);
      if (hangs) {
        assert.strictEqual(workerHangs[0].start, 10600);
        assert.strictEqual(workerHangs[0].detectedAt, 15600);
        assert.strictEqual(workerHangs[0].end, 16600);
      }
      m.stop();
    }
  });

  it('stats() read while driftLag sleeps counts every firing due by then', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim });
    sim.advance(1100); // the last wake-up: 1000 (the 1 s timers and macrotaskLag)
    assert.strictEqual(m.conditions.stats().monitors.driftLag.recorded, 55); // 20, 40, ..., 1100
    m.stop();
  });

  for (const chainFirst of [false, true]) {
    it(`real process${chainFirst ? ', after a 500 ms setImmediate chain (which turns the check hook off)' : ''}: driftLag records 50 samples a second while the main thread wakes about twice a second, the worker about once, and no JS runs; a 300 ms block is seen`, () => {
      const child = path.join(__dirname, 'fixtures', 'drift-sleep-child.js');
      const r = spawnSync(process.execPath, [child, ...(chainFirst ? ['--chain-first'] : [])], { encoding: 'utf8', timeout: 30000 });
      assert.strictEqual(r.status, 0, r.stderr);
      const got = JSON.parse(r.stdout.trim().split('\n').pop());
      // 4 s idle (the window as measured: its 4000 ms timer fires late on a loaded machine): one
      // firing per 20 ms of it (a firing may come a timer's slack late).
      const due = got.idle.ms / 20;
      assert.ok(got.idle.driftSubmitted >= due - 10 && got.idle.driftSubmitted <= due + 2, `${due.toFixed(1)} firings due: ${JSON.stringify(got.idle)}`);
      // An idle firing is late by its wake-up and the iteration's other work: under 10 ms, plus
      // what the main thread waited for a CPU since setup (schedstat; ~0 on a quiet machine). The
      // allowance was 5 ms until a run under ASan beside another suite read 22.7 ms with 17.4 ms
      // of run-queue delay; a driftLag that counted its sleep would read about a second. The max
      // is the run's: a max already reached before the idle window (start-up's JIT and GC, once
      // 26.5 ms on Node 22 beside another suite) says nothing of the idle firings.
      assert.ok(got.idle.driftMax <= got.idle.startMax || got.idle.driftMax < 10 + got.idle.waitMs,
        `idle driftLag max ${got.idle.driftMax} ms (before the window ${got.idle.startMax}; run-queue delay ${got.idle.waitMs.toFixed(1)} ms)`);
      // Without sleeping: ~56 wake-ups of the main thread a second (driftLag's 50, macrotaskLag's 4
      // and the others'); with driftLag alone asleep, ~7. Now the 1 s timers (one wake-up: they
      // share it) and the worker's heartbeat. A firing more than 2 ms late keeps its timer awake
      // for the next one (the rule of lw_monset_core_idle): on a loaded machine, every 2 ms the main
      // thread waited for a CPU over the window may have made one firing late.
      const perS = (n) => n / (got.idle.ms / 1000);
      const mainBound = 4 + perS(got.idle.windowWaitMs / 2);
      assert.ok(got.idle.mainWakesPerS < mainBound,
        `${got.idle.mainWakesPerS} wake-ups a second, want < ${mainBound.toFixed(2)} (run-queue delay ${got.idle.windowWaitMs.toFixed(1)} ms over the window)`);
      // The worker thread rests while the main loop waits: its heartbeat, once a second, instead of
      // a liveness check every 100 ms (~11 wake-ups a second before). It checks every 100 ms while
      // the main thread is not waiting in its poll (on a CPU, or waiting for one), and may find it
      // so once at each of its wake-ups.
      const workerBound = 2 + got.idle.mainWakesPerS + perS((got.idle.windowRunMs + got.idle.windowWaitMs) / 100);
      assert.ok(got.idle.workerWakesPerS < workerBound,
        `${got.idle.workerWakesPerS} wake-ups a second of the worker thread, want < ${workerBound.toFixed(2)} (${JSON.stringify(got.idle)})`);
      // A flush that nothing reads (no meter, no 'samples' listener) calls no JS: before, an empty
      // batch reached JS every second, and its garbage made a full GC some seconds after start.
      assert.strictEqual(got.idle.jsCalls, 0, 'calls into JS while idle');
      assert.ok(got.block.driftMax >= 280 && got.block.driftMax < 400 + got.block.waitMs,
        `after the block: driftLag max ${got.block.driftMax} (run-queue delay ${got.block.waitMs.toFixed(1)} ms)`);
    });
  }
});
