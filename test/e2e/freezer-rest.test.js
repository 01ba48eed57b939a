'use strict';
// SPEC §5 end to end on Linux: no stop of 1 s or more is a monitor's lag, wherever it lands. A
// cgroup freezer (`docker pause`, a VM pause) sends no signal: only the worker's lateness tells it,
// and while the loop is idle the worker rests between its checks. A stop of 1.0-1.1 s that begins
// as a rest does is the narrowest case: it makes the worker late by its length less the rest's,
// and is seen only if that reaches 100 ms (rests of at most 900 ms; with rests of a second it
// went unseen, and driftLag recorded its length as lag). The test makes its own group under this
// machine's cgroup v1 `freezer` hierarchy (as root) and removes it whatever happens.
const assert = require('assert');
const { spawnFixture, killAll, freezerGroup, freezeAtRestStarts, assertStopsNotLag } = require('./helpers');

const TIMES = 20;

// Each stop 1010-1080 ms long, begun 0-80 ms after a rest began, so that it ends at most 1090 ms
// after the rest's start: a rest of a second would see it less than 100 ms late. (A stop of
// exactly 1000 ms from a rest's start is at the bound itself: the freezer's own latency, a
// millisecond or so either way, would make the case a coin toss.)
function stopAt(i) {
  const stopMs = 1010 + ((i * 37) % 71);
  return { stopMs, delayMs: (i * 13) % (1091 - stopMs) };
}

describe('e2e: a freezer at the start of the worker\'s rests (SPEC §5, real processes)', function () {
  this.timeout(120000);
  const cleanups = [];
  afterEach(async () => {
    await killAll();
    while (cleanups.length) cleanups.pop()();
  });

  it(`a cgroup freezer of 1.01-1.08 s, ${TIMES} times, each within 80 ms after the worker began a rest: no monitor records it as lag`, async () => {
    const cg = freezerGroup('lagwatch-freezer-rest', cleanups);
    const f = spawnFixture('wait.js', [1500, 'stdin'], { killAfterMs: 110000 });
    const ready = await f.waitFor('ready', 20000);
    assert.strictEqual(ready.threads.length, 1, `lagwatch's worker thread alone: ${JSON.stringify(ready.threads)}`);
    const stops = Array.from({ length: TIMES }, (_, i) => stopAt(i));
    const rests = await freezeAtRestStarts(f, cg, ready.threads[0], stops);
    f.send('done');
    const r = await f.result(30000);
    const why = `rests before the stops (ms, and when the freezer had stopped every thread): ` +
      `${rests.map((x) => `${x.restMs} (${x.frozenMs})`).join(' ')}; stops ${JSON.stringify(stops)}\n${f.describe()}`;
    // The alignment held: each freeze came at the end of a rest, not of a busy loop's checks
    // (100 ms apart). A rest is 900 ms, or ends sooner at the heartbeat's due (after a stop the
    // two are no longer in step: 650 ms seen), later by the worker's wait for a CPU.
    for (const { restMs } of rests) assert.ok(restMs >= 500 && restMs <= 1500, `a rest of ${restMs} ms before a stop: ${why}`);
    // Each freeze held the process before the worker's rest could end (the freezer had stopped
    // every thread well within the rest's 900 ms), and the worker did not run until the thaw:
    // the stop was one.
    for (const x of rests) assert.ok(x.frozenMs < 500 && x.ranFrozen === 0, `a freeze that did not hold: ${JSON.stringify(x)}: ${why}`);
    assertStopsNotLag(r, TIMES, why);
  });
});
