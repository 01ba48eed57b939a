'use strict';
// SPEC §5/§6, end to end: a 6 s synchronous busy loop on the main thread of a real process is
// one `hang` episode and one `workerHang` from the worker thread's liveness detector.
const assert = require('assert');
const { spawnFixture, killAll, sumValues, assertConservation, assertBetween } = require('./helpers');
const { waited } = require('../schedstat');

const BUSY_MS = 6000;
const THRESHOLD_MS = 5000; // stallThresholdMs default

describe('e2e: a 6 s busy loop (real process)', function () {
  this.timeout(60000);
  afterEach(killAll);

  it('is exactly one hang episode and one workerHang, nothing discarded', checks('timer'));

  // The loop wakes from an idle wait (the worker thread rests) into a pipe's data callback: the
  // worker sees no check phase, yet the hang starts when the wait ended and is flagged a threshold
  // later.
  it('in an I/O callback after 3 s idle: the same, the hang flagged a threshold after the wait ended', checks('io'));
});

function checks(via) {
  return async () => {
    // The loop starts 1.5 s after setup; the result is printed 6 s after it ends: a stall sample
    // is held holdMs (2 s) and its episode reported episodeDelayMs (2 s) later, so 4 s are needed.
    const f = spawnFixture('busy.js', [BUSY_MS, via === 'io' ? 3000 : 1500, 6000, via]);
    const r = await f.result(40000);
    const why = f.describe();
    assert.deepStrictEqual(r.running, {
      driftLag: true, macrotaskLag: true, loopBlock: true, idleAvailability: true, worker: true,
      liveness: true, clockDrift: true, timerThrottle: true,
    }, 'every monitor runs');
    const busyFor = r.busy.end - r.busy.start;
    // What a loaded machine adds, from the kernel's counts (test/schedstat.js): the main thread's
    // run-queue delay during the loop, before it (setup to the loop) and after it (to the
    // result), and that of lagwatch's worker thread over the run. A thread waiting for a CPU is
    // late by that much, no more; on a quiet machine each is ~0 and the bounds are the fixed ones.
    const { schedAtStart, schedAtEnd } = r.busy;
    const waitIn = waited(schedAtStart, schedAtEnd);
    const waitBefore = waited(r.schedAtSetup, schedAtStart);
    const waitAfter = waited(schedAtEnd, r.sched);
    const workerWait = waited(r.schedAtSetup, r.sched, 'added');
    const load = `run-queue delay: main ${waitBefore.toFixed(1)} ms before the loop, ${waitIn.toFixed(1)} in it, ` +
      `${waitAfter.toFixed(1)} after; worker ${workerWait.toFixed(1)} ms`;
    // The loop ends at its first clock read past BUSY_MS: later only by a preemption at its end.
    assertBetween(busyFor, BUSY_MS, BUSY_MS + 100 + waitIn, `the fixture was busy (${load})`);

    // One episode of kind hang. Its duration is its longest sample: the drift timer's lateness or
    // the loop iteration's busy time, i.e. the loop plus at most a timer period and the time
    // to get there (600 ms), and what the thread waited for a CPU outside the loop.
    assert.strictEqual(r.events.stall.length, 1, `one 'stall' event: ${JSON.stringify(r.events.stall)}\n${why}`);
    const s = r.events.stall[0];
    assert.strictEqual(s.kind, 'hang');
    assertBetween(s.durationMs, 5800, busyFor + 600 + waitBefore + waitAfter, `stall.durationMs (${load})`);
    assert.ok(s.start <= r.busy.start + 1 && s.end >= r.busy.end - 1,
      `the episode's window [${s.start}, ${s.end}] covers the loop [${r.busy.start}, ${r.busy.end}]`);
    assert.ok(s.samples >= 1 && Array.isArray(s.monitors) && s.monitors.length >= 1, JSON.stringify(s));
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, 'stats().stalls');

    // The liveness detector: the hang starts at the main thread's last progress (just before the
    // loop), is flagged stallThresholdMs later (the check is due then: 300 ms for a check that
    // comes late, plus the worker thread's wait for a CPU), and ends when the main thread runs
    // again.
    assert.strictEqual(r.events.workerHang.length, 1, `one 'workerHang': ${JSON.stringify(r.events.workerHang)}\n${why}`);
    const h = r.events.workerHang[0];
    assertBetween(h.durationMs, 5800, busyFor + 600 + waitBefore + waitAfter + workerWait, `workerHang.durationMs (${load})`);
    assertBetween(h.detectedAt - h.start, THRESHOLD_MS - 100, THRESHOLD_MS + 300 + workerWait,
      `workerHang.detectedAt - start (${load})`);
    assertBetween(h.end - h.start, h.durationMs - 0.001, h.durationMs + 0.001, 'workerHang end - start');
    assert.ok(h.start <= r.busy.start && h.end >= r.busy.end,
      `the hang [${h.start}, ${h.end}] covers the loop [${r.busy.start}, ${r.busy.end}]`);
    // The last progress is the loop iteration that ran the timer of the busy loop (< 20 ms
    // before it on an idle loop with a 20 ms drift timer), and the main thread runs again as
    // soon as the loop returns: 200 ms of slack each, plus the waits for a CPU in between (the
    // main thread's before the loop; after it, the main thread's and the worker's, which sees
    // the progress).
    assertBetween(r.busy.start - h.start, 0, 200 + waitBefore, `busy loop start - workerHang.start (${load})`);
    assertBetween(h.end - r.busy.end, 0, 200 + waitAfter + workerWait, `workerHang.end - busy loop end (${load})`);
    assert.strictEqual(r.workerStats.workerHangs.count, 1, 'lag_worker_hangs');

    // Nothing discarded: a busy loop is the app's fault. No clock jump either.
    assert.strictEqual(sumValues(r.stats.discarded), 0, `discarded: ${JSON.stringify(r.stats.discarded)}`);
    assert.deepStrictEqual(r.stats.jumps, { suspend: 0, step: 0 }, 'stats().jumps');
    assert.deepStrictEqual(r.events.jump, [], 'no jump event');
    assert.strictEqual(r.stats.cancelled, 0, 'no held sample left to cancel');
    assertConservation(r.statsBeforeStop, 'before stop()');
    assertConservation(r.stats, 'after stop()');
  };
}
