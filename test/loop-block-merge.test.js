'use strict';
// loopBlock in a real process (src/driver/monset.c, prepare_cb): iterations shorter than the
// loop's millisecond merge. libuv's cached time moves once a millisecond; while it has not moved
// since the last timed iteration and the poll cannot wait, an iteration is not timed, and the
// next timed one takes the busy time of all since the last: one sample per tick of the loop's
// clock at most, whatever the iteration rate, and no clock read per iteration. A block of 1 ms or
// more is one sample, longer than the block by less than a millisecond (the shorter iterations of
// the tick it began in).
const assert = require('assert');
const path = require('path');
const { spawnSync } = require('child_process');

// Runs a fixture in its own process and returns the JSON of its last line.
function runFixture(name) {
  const r = spawnSync(process.execPath, [path.join(__dirname, 'fixtures', name)], { encoding: 'utf8', timeout: 30000, maxBuffer: 256 << 20 });
  assert.strictEqual(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

describe('loopBlock: sub-millisecond iterations merge (real process)', () => {
  let got;
  before(function () {
    this.timeout(30000);
    got = runFixture('busy-chain-child.js');
  });

  it('a setImmediate chain makes at most one sample per millisecond of the loop\'s clock, not one per iteration', () => {
    const { iterations, durationMs, samples } = got;
    // Timed every iteration, the chain would give as many samples as iterations.
    assert.ok(samples.length <= durationMs + 20, `${samples.length} samples in ${durationMs.toFixed(0)} ms`);
    assert.ok(iterations >= 10 * samples.length, `${iterations} iterations, ${samples.length} samples`);
  });

  it('the samples add up to the chain\'s busy time (the loop never waited)', () => {
    const { durationMs, samples, chainWaitMs, lastIterationMs } = got;
    const sum = samples.reduce((a, v) => a + v, 0);
    // The first sample may begin up to a millisecond before the chain, with a wait for a CPU
    // before it (the main thread's run-queue delay from set-up to the end, `chainWaitMs`, ~0 on
    // a quiet machine); the last one ends at the last timed iteration, before the chain's last
    // step: its iteration (`lastIterationMs`, ~0.02 ms on a quiet machine, 11 ms once beside
    // another suite) is in no sample yet.
    const why = `sum ${sum.toFixed(2)} ms over ${durationMs.toFixed(2)} ms (last iteration ${lastIterationMs.toFixed(2)} ms, run-queue wait ${chainWaitMs.toFixed(2)} ms)`;
    assert.ok(sum >= durationMs - 5 - lastIterationMs, why);
    assert.ok(sum <= durationMs + 10 + chainWaitMs, why);
  });

  it('each block is one sample, longer than the block by less than a millisecond of short iterations', () => {
    const { samples, blocks, runQueueMs, stretchMs } = got;
    const big = samples.filter((v) => v >= 1.5).map((v) => v.toFixed(2)).join(', ');
    // The block's sample ends before the step after it and begins within a tick of the loop's
    // clock (1 ms, 0.5 ms of margin for the cached clock's truncation) before the step before
    // it: at most the stretch the fixture measured, plus 1.5 ms, plus the thread's wait for a
    // CPU before the stretch. The stretch is the block plus what the loop itself ran around it
    // (a timer's callback, the 'samples' flush, a GC: 8.81 ms for the 7 ms block once in CI, at
    // no run-queue wait); a split block has no sample of its length, a merge that does not end
    // at the loop clock's tick one far longer.
    blocks.forEach((b, i) => {
      const hi = stretchMs[i] + 1.5 + runQueueMs[i];
      assert.ok(stretchMs[i] >= b, `block ${b} ms: its stretch measured ${stretchMs[i]} ms`);
      assert.ok(samples.some((v) => v >= b && v < hi),
        `block ${b} ms: no sample in [${b}, ${hi.toFixed(2)}) (stretch ${stretchMs[i].toFixed(2)} ms, run-queue wait ${runQueueMs[i].toFixed(2)} ms); samples >= 1.5 ms: ${big}`);
    });
    // A merge ends at the loop clock's next tick: a typical sample is about a millisecond. (A few
    // others may be longer: the thread can be preempted on a shared machine.)
    const sorted = [...samples].sort((a, b) => a - b);
    assert.ok(sorted[sorted.length >> 1] <= 1.5, `median sample ${sorted[sorted.length >> 1]} ms`);
  });
});

describe('loopBlock: sub-millisecond iterations of an I/O loop merge too (real process)', () => {
  let got;
  before(function () {
    this.timeout(30000);
    got = runFixture('pingpong-child.js');
  });

  it('TCP ping-pong makes at most one sample per millisecond of the loop\'s clock, not one per iteration (memory and record() calls bounded by time)', () => {
    const { trips, ticks, durationMs, samples } = got;
    // Each round trip takes an iteration or more, and every poll may wait: before, each was
    // timed, and a meter got one record() per iteration.
    assert.ok(samples.length <= durationMs + 20, `${samples.length} samples in ${durationMs.toFixed(0)} ms`);
    // Merged, an iteration is timed only when the loop's clock moved: at most one sample per
    // millisecond in which the loop ran, which the fixture counts on performance.now() (`ticks`;
    // a millisecond of it overlaps two of the loop's clock, whose origin differs). A round trip
    // takes 70-100 µs on a quiet machine, ten of them a millisecond: timed one by one they gave
    // a sample each (trips, far above 2 ticks). On a loaded machine a round trip waits for the
    // echo process to get a CPU and takes a millisecond or more; the bound holds there too.
    assert.ok(samples.length <= 2 * ticks + 20, `${samples.length} samples, ${trips} round trips in ${ticks} ms`);
  });

  it('the samples add up to the loop\'s active time (the merged polls\' waits are no busy time)', () => {
    const { samples, activeMs, durationMs, waitMs } = got;
    const sum = samples.reduce((a, v) => a + v, 0);
    // eventLoopUtilization() reads libuv's idle time, as loopBlock does; the windows' ends differ
    // by an iteration or two.
    assert.ok(activeMs < durationMs - 50, `the loop did wait: active ${activeMs.toFixed(1)} of ${durationMs.toFixed(1)} ms`);
    // On a loaded machine a wait for a CPU at either end is in one of the two only: the main
    // thread's run-queue delay over the window (`waitMs`, ~0 on a quiet machine; 337.98 against
    // 324.18 ms once beside two spinning processes) is given back.
    assert.ok(Math.abs(sum - activeMs) <= 5 + waitMs, `sum ${sum.toFixed(2)} ms, active ${activeMs.toFixed(2)} ms, run-queue wait ${waitMs.toFixed(2)} ms`);
  });
});
