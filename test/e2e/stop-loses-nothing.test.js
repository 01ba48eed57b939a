'use strict';
// SPEC §4 and §6, end to end on real processes: evidence before judgment (a stop followed at
// once by app work longer than holdMs stays a pause), stopping the set or exiting right after a
// hang loses nothing, and a worker thread that cannot start is reported.
const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { spawnFixture, killAll, sleep, assertConservation, assertBetween, FIXTURES } = require('./helpers');
const { waited } = require('../schedstat');

// The main thread's run-queue delay outside its busy loop (setup to the loop, the loop's end to
// the result; test/schedstat.js): what a loaded machine can add to a sample beside the loop's own
// wall time. ~0 on a quiet machine.
function waitOutside(r) {
  return waited(r.schedAtSetup, r.busy.schedAtStart) + waited(r.busy.schedAtEnd, r.sched);
}

// The fixtures run with a smaller stall threshold and shorter stops and busy waits than the
// defaults', in the same relation to them. resume-busy.js: threshold 2.5 s, holdMs 1 s; a stop of
// 3.5 s (the threshold and 1 s); a busy wait of 1.5 s that outlasts the hold (by 0.5 s, as 2.5 s
// did the default 2 s) and stays 1 s under the threshold, or one of 3.5 s that is a hang of its
// own. stop-after-hang.js: threshold 2 s, a busy loop of 3 s (the threshold and 1 s, so that the
// worker flags it), holdMs the default 2 s (stop() and the exit come within it).
const RESUME_THRESHOLD_MS = 2500;
const RESUME_HOLD_MS = 1000;
const STOP_MS = 3500;
const HANG_THRESHOLD_MS = 2000;
const HANG_MS = 3000;

describe('e2e: nothing lost, nothing misread (real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  // Before evidence came first, the held sample over the stop was judged in the first timers
  // phase after the busy wait, before libuv's poll phase handed the worker's evidence over: a
  // hang (measured on the previous code: 'immediate' and 'tick' at 2.5 s both gave one hang and
  // no pause; 'tick' at 6 s one 12 s pause).
  async function resumeBusy(where, busyMs) {
    // The result 4 s after the busy wait: the hold (1 s) and the episode's delay (2 s), and 1 s.
    const f = spawnFixture('resume-busy.js', [busyMs, 1500, 4000, where, RESUME_THRESHOLD_MS, RESUME_HOLD_MS]);
    await f.waitFor('ready', 20000);
    f.signal('SIGSTOP');
    await sleep(STOP_MS);
    f.signal('SIGCONT');
    const r = await f.result(40000);
    assert.ok(r.busy && r.busy.gap > RESUME_THRESHOLD_MS, `the app saw the stop and went busy: ${JSON.stringify(r.busy)}`);
    assertConservation(r.stats);
    return { r, why: `${JSON.stringify(r.events.stall)}\n${f.describe()}` };
  }

  for (const where of ['immediate', 'tick']) {
    it(`SIGSTOP 3.5 s, then the app busy 1.5 s at once on resume (${where}; threshold 2.5 s, hold 1 s): one pause, no hang`, async () => {
      const { r, why } = await resumeBusy(where, 1500);
      assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 1 }, why);
      assert.strictEqual(r.events.stall.length, 1, why);
      assert.strictEqual(r.events.stall[0].kind, 'pause', why);
      assertBetween(r.events.stall[0].durationMs, STOP_MS - 200, STOP_MS + 3500, `the pause spans the stop: ${why}`);
      assert.deepStrictEqual(r.events.workerHang, [], why);
      assert.ok(r.stats.discarded.pause >= 1, why);
    });
  }

  it('SIGSTOP 3.5 s, then the app busy 3.5 s in a setImmediate on resume (threshold 2.5 s, hold 1 s): one pause, then one hang of its own', async () => {
    const busyMs = RESUME_THRESHOLD_MS + 1000;
    const { r, why } = await resumeBusy('immediate', busyMs);
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 1 }, why);
    const pause = r.events.stall.find((e) => e.kind === 'pause');
    const hang = r.events.stall.find((e) => e.kind === 'hang');
    const wait = waitOutside(r);
    assertBetween(pause.durationMs, STOP_MS - 200, STOP_MS + 1000 + wait, `the pause is the stop (run-queue delay outside the busy wait: ${wait.toFixed(1)} ms)`);
    assertBetween(hang.durationMs, busyMs - 100, busyMs + 1000 + wait, `the hang is the busy wait (run-queue delay outside it: ${wait.toFixed(1)} ms)`);
    // The pause ends when the SIGCONT handler read the clock; under load it may run some ms
    // after the main thread resumed its work (seen: 17 ms). A hang swallowed by the pause (the
    // fault this guards against) starts a whole stop before its end.
    assert.ok(hang.start >= pause.end - 100, `the hang comes after the pause: ${why}`);
    assert.strictEqual(r.events.workerHang.length, 1, why);
  });

  it('m.stop() 1 s after a 3 s busy loop (threshold 2 s): the hang is reported during stop(), nothing cancelled', async () => {
    const f = spawnFixture('stop-after-hang.js', [1000, 'stop', HANG_MS, HANG_THRESHOLD_MS]);
    const r = await f.result(30000);
    const why = `${JSON.stringify(r.events)}\n${f.describe()}`;
    const stalls = f.messages.filter((m) => m.type === 'stall');
    assert.strictEqual(stalls.length, 1, why);
    assert.strictEqual(stalls[0].stall.kind, 'hang', why);
    const wait = waitOutside(r);
    assertBetween(stalls[0].stall.durationMs, HANG_MS - 100, HANG_MS + 500 + wait, `hang duration (run-queue delay outside the loop: ${wait.toFixed(1)} ms)`);
    assert.ok(stalls[0].at >= r.busy.end + 900, `emitted by stop(), not before: ${stalls[0].at} vs ${r.busy.end}`);
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, why);
    assert.strictEqual(r.stats.cancelled, 0, why);
    assert.strictEqual(r.stats.held, 0, why);
    assert.strictEqual(r.events.workerHang.length, 1, why);
    assertConservation(r.stats);
  });

  it('a process that exits on its own 500 ms after a 3 s busy loop (threshold 2 s) still emits its hang (process.on(\'exit\'))', async () => {
    const f = spawnFixture('stop-after-hang.js', [500, 'exit', HANG_MS, HANG_THRESHOLD_MS]);
    const e = await f.waitExit(30000);
    const why = f.describe();
    assert.deepStrictEqual({ code: e.code, signal: e.signal }, { code: 0, signal: null }, why);
    const leaving = await f.waitFor('leaving', 1000);
    assert.strictEqual(leaving.stats.stalls.hang, 0, `not reported before the exit: ${why}`);
    const stalls = f.messages.filter((m) => m.type === 'stall');
    assert.strictEqual(stalls.length, 1, why);
    assert.strictEqual(stalls[0].stall.kind, 'hang', why);
    const exit = await f.waitFor('exit', 1000);
    assert.deepStrictEqual(exit.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, why);
    assert.strictEqual(exit.stats.cancelled, 0, why);
  });

  it('no file descriptor left at setupAllMonitors(): an error is logged, worker and liveness do not run, the rest does', () => {
    // A child of its own under `ulimit -n`, so that this process keeps its descriptors.
    const r = spawnSync('/bin/sh', ['-c', `ulimit -n 200 && exec "${process.execPath}" "${path.join(FIXTURES, 'no-fds.js')}"`], {
      encoding: 'utf8', timeout: 30000,
    });
    assert.strictEqual(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const res = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.type === 'result');
    assert.ok(res, r.stdout);
    assert.ok(res.opened > 0, 'descriptors were exhausted');
    assert.deepStrictEqual(res.running, {
      driftLag: true, macrotaskLag: true, loopBlock: true, idleAvailability: true, worker: false,
      liveness: false, clockDrift: true, timerThrottle: true,
    });
    const errors = res.logs.filter((l) => l.level === 'error');
    assert.ok(errors.length >= 1 && /worker thread cannot start \(EMFILE/.test(errors[0].message),
      JSON.stringify(res.logs));
    assert.ok(res.stats.monitors.driftLag.recorded > 0, 'the other monitors measure');
  });
});
