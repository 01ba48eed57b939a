'use strict';
// SPEC §12 end to end, in real processes on Linux: stops of any length (SIGSTOP of 0.3 to 3 s, a
// stop inside a busy loop, a cgroup freezer) are never the app's lag. The freezer test makes its
// own group under this machine's cgroup v1 `freezer` hierarchy (as root) and removes it whatever
// happens.
const assert = require('assert');
const { spawnFixture, killAll, sleep, assertConservation, assertDebuggerPauseNotLag, freezerGroup, freezeSecondsAndCheck } = require('./helpers');
const { waited } = require('../schedstat');

describe('e2e: stops of any length on Linux (SPEC §12, real processes)', function () {
  this.timeout(90000);
  const cleanups = [];
  afterEach(async () => {
    await killAll();
    while (cleanups.length) cleanups.pop()();
  });

  for (const ms of [300, 1000, 3000]) {
    it(`SIGSTOP ${ms / 1000} s: the samples over it discarded as pause, no episode, no lag of its length recorded`, async () => {
      const f = spawnFixture('wait.js', [1500, ms + 4000]);
      await f.waitFor('ready', 20000);
      f.signal('SIGSTOP');
      await sleep(ms);
      f.signal('SIGCONT');
      const r = await f.result(30000);
      const why = f.describe();
      assert.ok(r.stats.discarded.pause >= 1, `discarded as pause: ${JSON.stringify(r.stats.discarded)}\n${why}`);
      // The firing over the stop; under load one more whose window the evidence's end reaches
      // (a SIGCONT's is when its handler ran, up to a scheduling delay after the resumption).
      assert.ok(r.stats.monitors.driftLag.discarded >= 1 && r.stats.monitors.driftLag.discarded <= 3, why);
      assert.ok(r.stats.monitors.driftLag.max < ms / 2, `no lag of the stop recorded: ${r.stats.monitors.driftLag.max}\n${why}`);
      assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, why);
      assertConservation(r.stats, why);
    });
  }

  // SPEC §5: no stop of 1 s or more is any monitor's lag, wherever it lands. Here it lands inside
  // a timer callback, mid-iteration (the process stops itself): the iteration's loopBlock sample
  // holds it, and the worker, which tells the stop only when it runs again, resumes at the same
  // moment as the main thread. A SIGSTOP shorter than the worker can see (300 ms, while it rests)
  // is known by the SIGCONT that ends it. The result comes 2.5 s after the stop: every monitor's
  // sample over it is in by then (the slowest, worker and idleAvailability, come every second).
  for (const ms of [300, 1000, 2000]) {
    it(`SIGSTOP ${ms / 1000} s inside a callback: no monitor records it as lag`, async () => {
      const f = spawnFixture('stop-self.js', [1500, 1500 + ms + 2500]);
      await f.waitFor('stopping', 20000);
      await sleep(ms);
      f.signal('SIGCONT');
      const r = await f.result(30000);
      const why = f.describe();
      assert.ok(r.stop.resumed - r.stop.at >= ms - 50, `the callback spanned the stop: ${JSON.stringify(r.stop)}`);
      for (const name of ['driftLag', 'macrotaskLag', 'loopBlock', 'worker']) {
        const m = r.stats.monitors[name];
        assert.ok(!(m.max >= ms / 2), `${name}: no lag of the stop recorded (max ${m.max})\n${why}`);
      }
      assert.ok(r.stats.discarded.pause >= 1, `discarded as pause: ${JSON.stringify(r.stats.discarded)}\n${why}`);
      assert.ok(r.stats.monitors.loopBlock.discarded >= 1, `loopBlock's sample of the iteration discarded\n${why}`);
      assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, why);
      assert.deepStrictEqual(r.events.workerHang, [], why);
      assertConservation(r.stats, why);
    });
  }

  // SPEC §5: evidence explains only the time it covers. With a stall threshold of 2 s, 3 s of the
  // app's own time with a 1.5 s stop inside (0.8 s into the work): the app's 3 s are a hang (its own
  // part), which the worker's 'workerHang' confirms within 100 ms; the 1.5 s stop, under the
  // threshold, is no episode. 'workerHang' starts where the loop last made progress (the work's
  // start: the loop waited before it), and its duration and its cause's span are the hang's own
  // time, the stop taken out (SPEC §12).
  it('stallThresholdMs 2000, 3 s of busy work (the thread\'s own time) with a 1.5 s SIGSTOP inside: one hang of the 3 s, as workerHang says', async () => {
    const f = spawnFixture('cause.js', ['own:3000', 1000, 2500, 2000]);
    await f.waitFor('ready', 20000);
    await sleep(1000); // the work runs from 200 ms after 'ready'
    f.signal('SIGSTOP');
    await sleep(1500);
    f.signal('SIGCONT');
    const r = await f.result(40000);
    const why = f.describe();
    assert.ok(r.work.end - r.work.start >= 4300, `the work spanned the stop: ${JSON.stringify(r.work)}`);
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, `one hang, no pause\n${why}`);
    assert.strictEqual(r.events.workerHang.length, 1, `one workerHang\n${why}`);
    const hang = r.events.stall.find((e) => e.kind === 'hang');
    const wh = r.events.workerHang[0];
    assert.ok(Math.abs(hang.durationMs - wh.durationMs) <= 100,
      `the episode (${hang.durationMs} ms) and workerHang (${wh.durationMs} ms) agree within 100 ms\n${why}`);
    // Less what the stop's evidence covers of the work before it: from the worker's last run (every
    // 100 ms, later on a loaded machine); the 1.5 s stop is never in it (a third of it would make
    // 4000 ms).
    assert.ok(hang.durationMs >= 2500 && hang.durationMs < 4000, `the app's own 3 s: ${hang.durationMs}\n${why}`);
    assert.ok(Math.abs(wh.start - r.work.start) <= 100,
      `workerHang starts where the loop last made progress: ${wh.start}, the work at ${r.work.start}\n${why}`);
    assert.ok(wh.cause !== null && Math.abs(wh.cause.spanMs - wh.durationMs) <= 100,
      `the cause spans the hang's own time: ${JSON.stringify(wh.cause)}, workerHang ${wh.durationMs} ms\n${why}`);
    assert.ok(Math.abs(wh.cause.spanMs - hang.durationMs) <= 100,
      `the cause spans the episode's hang: ${wh.cause.spanMs} ms, the episode ${hang.durationMs} ms\n${why}`);
    // The own part less what the stop's evidence took of the work before it (the worker's last
    // run before the stop, every 100 ms; later by the worker's wait for a CPU on a loaded machine).
    const workerWait = waited(r.schedAtSetup, r.sched, 'added');
    assert.ok(wh.cause.spanMs >= 3000 - 100 - workerWait && wh.cause.spanMs <= 3000 + 100,
      `the cause spans the app's 3 s within 100 ms (the worker waited ${workerWait.toFixed(1)} ms for a CPU): ${wh.cause.spanMs}\n${why}`);
  });

  // 1.5 s of the thread's own time (on a CPU or waiting for one): 1.5 s of CPU work would take
  // more of it beside two busy competitors, a hang by SPEC §12 (starvation is lag, never a pause).
  // With a stall threshold of 2 s, the work with its 1.5 s stop (0.5 s into it) lasts 3 s: a hang
  // if a third of the stop counted as the app's.
  it('stallThresholdMs 2000, 1.5 s of busy work (the thread\'s own time) with a 1.5 s SIGSTOP inside: no hang (1.5 s of the app\'s own)', async () => {
    const f = spawnFixture('cause.js', ['own:1500', 1000, 2500, 2000]);
    await f.waitFor('ready', 20000);
    await sleep(700); // the work runs from 200 ms after 'ready'
    f.signal('SIGSTOP');
    await sleep(1500);
    f.signal('SIGCONT');
    const r = await f.result(40000);
    const why = f.describe();
    assert.ok(r.work.end - r.work.start >= 2800, `the work spanned the stop: ${JSON.stringify(r.work)}`);
    assert.strictEqual(r.stats.stalls.hang, 0, `no hang\n${why}`);
    assert.deepStrictEqual(r.events.workerHang, [], `no workerHang\n${why}`);
  });

  // SPEC §2's `debugger`: a debugger at a breakpoint is not the app. The process runs with an
  // inspector open; a thread of its own plays the debugger and holds the main thread 3 s, a
  // second over the stall threshold (2 s): held by the app, it would be a hang.
  it('a debugger holds the main thread 3 s (Debugger.pause, --inspect; stallThresholdMs 2000): no hang, no workerHang, the samples discarded as debugger', async () => {
    const f = spawnFixture('debugged.js', [1500, 3000, 10000, 2000], { nodeArgs: ['--inspect=127.0.0.1:0'] });
    await assertDebuggerPauseNotLag(f, 3000);
  });

  // A freezer sends no SIGCONT: the worker's lateness alone tells it. Landing while the loop
  // waits between its timers, it finds the worker resting, and a stop is seen once it makes the
  // worker 100 ms late: rests of at most 900 ms see every stop of a second, wherever it begins
  // (rests of a second once let one of 1.0-1.1 s from a rest's start go unseen; C test
  // worker_rest_sees_a_stop_of_a_second holds the rule exactly). Five stops at arbitrary phases.
  it('a cgroup freezer of 1 s, five times while the loop waits: no monitor records it as lag', async () => {
    const cg = freezerGroup('lagwatch-freezer-1s', cleanups);
    const f = spawnFixture('wait.js', [1500, 16000]);
    await f.waitFor('ready', 20000);
    await freezeSecondsAndCheck(f, cg, 5);
  });

  // Frozen a second over the stall threshold (2 s): one pause episode, as a stop of a minute is.
  it('a cgroup freezer FROZEN for 3 s then THAWED (docker pause; stallThresholdMs 2000): one pause, no hang', async () => {
    const cg = freezerGroup('lagwatch-freezer', cleanups);
    const f = spawnFixture('wait.js', [1500, 10000, 2000]);
    await f.waitFor('ready', 20000);
    cg.move(f.child.pid);
    cg.write('freezer.state', 'FROZEN');
    await sleep(3000);
    cg.write('freezer.state', 'THAWED');
    const r = await f.result(30000);
    const why = f.describe();
    assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 1 }, why);
    assert.deepStrictEqual(r.events.workerHang, [], why);
  });
});
