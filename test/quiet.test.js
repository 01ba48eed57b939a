'use strict';
// SPEC §14, a quiet process is quiet, on the simulation: a wait of any length, however it ends (a
// socket, a signal, a child's exit, a timer, a file watch), is never a block, a lag sample or a
// stall. libuv counts a poll's wait from its last entry into the kernel, so a signal that
// interrupts the wait (the app's SIGTERM or SIGUSR2, a child's SIGCHLD) loses the wait so far
// from its idle time; the simulation's signal() does the same, and the core takes the poll's
// span the thread spent off its CPU as the wait it was. The simulation's own timers wake its loop
// every second (idleAvailability, clockDrift, the flush), so a lost wait is at most a second
// there; real processes idle for minutes (test/e2e/quiet.test.js).
const assert = require('assert');
const lagwatch = require('..');

// Every way an idle loop is woken. A signal's handler and a child's 'exit' listener run after
// the signal (SIGCHLD); a request, a file watch's event and the app's own long timer run as a
// callback of the poll, with no signal.
const WAKES = {
  socket: (sim) => sim.block(2),
  signal: (sim) => { sim.signal(); sim.block(2); },
  child: (sim) => { sim.signal(); sim.block(1); },
  timer: (sim) => sim.block(1),
  'fs.watch': (sim) => sim.block(1),
};

function idleThenWoken(idleMs, wake, extra = {}) {
  const sim = lagwatch.createSimulation({ platform: 'linux' });
  const m = lagwatch.setupAllMonitors({ clock: sim, blocks: { thresholdMs: 100 }, stallThresholdMs: 1000, ...extra });
  const got = { block: [], stall: [], idle: [] };
  m.conditions.on('block', (b) => got.block.push(b));
  m.conditions.on('stall', (s) => got.stall.push(s));
  m.conditions.on('samples', (b) => { if (b.idleAvailability) got.idle.push(...b.idleAvailability); });
  sim.advance(1000);
  sim.block(5); // the app's last work before it goes quiet
  // The wake-up lands half-way between two of the simulation's own timers: the most a wait
  // there can lose.
  sim.advance(idleMs + 500);
  WAKES[wake](sim);
  sim.advance(3000); // past every hold
  return { sim, m, got, stats: m.conditions.stats() };
}

describe('a quiet process is quiet (SPEC §14, simulation)', () => {
  for (const idleMs of [3000, 8000, 12000, 30000]) {
    for (const wake of Object.keys(WAKES)) {
      it(`idle ${idleMs / 1000} s, woken by ${wake}: no block, no stall, loopBlock the handler's own time, idleAvailability ~1`, () => {
        const { m, got, stats } = idleThenWoken(idleMs, wake);
        assert.deepStrictEqual(got.block, []);
        assert.deepStrictEqual(got.stall, []);
        assert.deepStrictEqual(stats.blocks.count, 0);
        assert.ok(stats.monitors.loopBlock.max <= 5, `loopBlock ${JSON.stringify(stats.monitors.loopBlock)}`);
        assert.strictEqual(stats.monitors.loopBlock.discarded, 0);
        assert.ok(got.idle.length >= Math.floor(idleMs / 1000), `idle periods ${got.idle}`);
        assert.ok(Math.min(...got.idle) >= 0.99, `idle periods ${got.idle}`);
        m.stop();
      });
    }
  }

  it("a signal's handler that works, or waits, after a wait the signal cut short: its own time is the block, to the millisecond", () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim, blocks: { thresholdMs: 100 } });
    const blocks = [];
    m.conditions.on('block', (b) => blocks.push({ start: b.start, durationMs: b.durationMs }));
    sim.advance(8500);
    sim.signal();
    sim.block(300);
    sim.advance(4500);
    sim.signal();
    sim.iteration([['block', 20], ['wait', 250]]);
    sim.advance(3000);
    assert.deepStrictEqual(blocks, [{ start: 8500, durationMs: 300 }, { start: 13300, durationMs: 270 }]);
    m.stop();
  });

  it('a signal while the main thread is busy loses no wait: the block is as long as it was', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim, blocks: { thresholdMs: 100 } });
    const blocks = [];
    m.conditions.on('block', (b) => blocks.push(b.durationMs));
    sim.advance(1500);
    sim.iteration([['block', 200]]);
    sim.signal();
    sim.advance(3000);
    assert.deepStrictEqual(blocks, [200]);
    m.stop();
  });

  // A shell's Ctrl-Z then `fg`, or `kill -STOP` then `-CONT`: the continue tells both threads
  // when the stop ended. The lateness timers slept through the loop's wait and are caught up
  // when it runs again: a firing the stop covered came when the process ran again (discarded as
  // pause), every other one on time, whichever thread read the continue first.
  for (const liveness of [true, false]) {
    for (const stopMs of [50, 700, 6000]) {
      it(`idle, stopped ${stopMs} ms by a signal and continued${liveness ? '' : ' (no liveness checks)'}: no lag, no block, no hang (a pause at most)`, () => {
        const sim = lagwatch.createSimulation({ platform: 'linux' });
        const m = lagwatch.setupAllMonitors({ clock: sim, blocks: { thresholdMs: 100 }, monitors: { liveness } });
        const got = [];
        for (const name of ['block', 'stall', 'workerHang']) m.conditions.on(name, (e) => got.push([name, e]));
        sim.advance(1210);
        sim.sigstop(stopMs);
        sim.advance(8000);
        const stats = m.conditions.stats();
        assert.deepStrictEqual(got.filter(([name, e]) => name !== 'stall' || e.kind !== 'pause'), []);
        for (const name of ['driftLag', 'macrotaskLag', 'loopBlock', 'worker']) {
          assert.ok(stats.monitors[name].max <= 1, `${name}: ${JSON.stringify(stats.monitors[name])}`);
        }
        assert.ok(stats.discarded.pause >= 1, JSON.stringify(stats.discarded));
        assert.strictEqual(stats.stalls.hang, 0);
        m.stop();
      });
    }
  }

  it('signal() is refused inside a callback, naming the verb', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    assert.throws(() => sim.iteration([['signal', 0]]), /steps\[0\]/);
  });
});
