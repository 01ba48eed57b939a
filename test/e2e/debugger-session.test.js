'use strict';
// SPEC §2's `debugger` for a debugger attached in-process (real processes): no inspector port is
// open; a worker thread of the app's connects an inspector.Session to the main thread
// (connectToMainThread(), as profilers, test tools and error trackers do) and holds it 6 s at
// Debugger.pause. That is a debugger's pause, as through --inspect: no hang, no 'workerHang',
// its samples discarded as `debugger`. (The fixture is the --inspect test's, run without it.)
const assert = require('assert');
const { spawnFixture, killAll, assertConservation } = require('./helpers');

describe('e2e: an in-process inspector session is a debugger (real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  it('a worker\'s session holds the main thread 6 s (Debugger.pause, no port): no hang, no workerHang, the samples discarded as debugger', async () => {
    const f = spawnFixture('debugged.js', [1500, 6000, 13000]);
    const paused = await f.waitFor('paused', 20000);
    const resumed = await f.waitFor('resumed', 20000);
    const r = await f.result(30000);
    const why = f.describe();
    assert.ok(resumed.at - paused.at >= 5900, `held ${resumed.at - paused.at} ms`);
    assert.deepStrictEqual(r.events.workerHang, [], `no workerHang\n${why}`);
    assert.strictEqual(r.workerStats.workerHangs.count, 0, `lag_worker_hangs\n${why}`);
    assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, why);
    assert.ok(r.stats.discarded.debugger >= 1, `discarded as debugger: ${JSON.stringify(r.stats.discarded)}\n${why}`);
    for (const name of ['driftLag', 'loopBlock', 'worker']) {
      assert.ok(!(r.stats.monitors[name].max >= 1000), `${name}: no lag of the pause recorded (max ${r.stats.monitors[name].max})\n${why}`);
    }
    assertConservation(r.stats, why);
  });
});
