'use strict';
// SPEC §6/§11, end to end: monitors never keep a process alive. A process that runs every
// monitor and schedules nothing else exits on its own, at once, with code 0.
const assert = require('assert');
const { spawnFixture, killAll } = require('./helpers');

const EXIT_WITHIN_MS = 2000;

describe('e2e: a process with every monitor running exits on its own (real process)', function () {
  this.timeout(20000);
  afterEach(killAll);

  it(`exits with code 0 within ${EXIT_WITHIN_MS} ms of spawn, without m.stop()`, async () => {
    const f = spawnFixture('idle-exit.js');
    // Node starts in ~50-150 ms here; 2 s is the bound of the brief, generous on a loaded machine
    // but far below the monitors' periods that would show a ref'd handle (1 s flush, worker...).
    const e = await f.waitExit(EXIT_WITHIN_MS + 5000);
    const why = f.describe();
    assert.deepStrictEqual({ code: e.code, signal: e.signal }, { code: 0, signal: null }, why);
    const ready = await f.waitFor('ready', 1000);
    const last = await f.waitFor('exit', 1000);
    // On a loaded machine the child's main thread waits for a CPU (start-up included: schedstat
    // counts from the thread's start): that wait is added to each bound. A ref'd handle keeps the
    // thread asleep, which is no run-queue delay, so the bug still shows.
    const lifeWait = last.sched ? last.sched.waitMs : 0;
    const exitWait = last.sched && ready.sched ? last.sched.waitMs - ready.sched.waitMs : 0;
    assert.ok(e.elapsedMs < EXIT_WITHIN_MS + lifeWait,
      `exited ${Math.round(e.elapsedMs)} ms after spawn (limit ${EXIT_WITHIN_MS} + ${Math.round(lifeWait)} ms of run-queue delay)\n${why}`);
    assert.deepStrictEqual(ready.running, {
      driftLag: true, macrotaskLag: true, loopBlock: true, idleAvailability: true, worker: true,
      liveness: true, clockDrift: true, timerThrottle: true,
    }, 'every monitor was running');
    assert.strictEqual(last.code, 0);
    // The process did not linger: 'exit' came right after setup. 900 ms is below the shortest
    // period of a monitor that could hold the loop for a while (1000 ms flush, heartbeat and
    // clock reads); the main thread's wait for a CPU in between is added.
    assert.ok(last.at - ready.at < 900 + exitWait,
      `'exit' ${Math.round(last.at - ready.at)} ms after setup (limit 900 + ${Math.round(exitWait)} ms of run-queue delay)\n${why}`);
  });
});
