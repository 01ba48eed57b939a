'use strict';
// SPEC §2's `debugger` for a debugger attached in-process (real processes): no inspector port is
// open; a worker thread of the app's connects an inspector.Session to the main thread
// (connectToMainThread(), as profilers, test tools and error trackers do) and holds it 3 s at
// Debugger.pause, with a stall threshold of 2 s (a 3 s block would be a hang and a 'workerHang').
// That is a debugger's pause, as through --inspect: no hang, no 'workerHang', its samples
// discarded as `debugger`. (The fixture is the --inspect test's, run without it.)
const { spawnFixture, killAll, assertDebuggerPauseNotLag } = require('./helpers');

const THRESHOLD_MS = 2000;
const HOLD_MS = 3000;

describe('e2e: an in-process inspector session is a debugger (real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  it('a worker\'s session holds the main thread 3 s (Debugger.pause, no port; threshold 2 s): no hang, no workerHang, the samples discarded as debugger', async () => {
    // The pause 1.5 s after setup; the result 5.5 s after it ends: the samples over it are held
    // 2 s, an episode would be reported 2 s after its first stall sample.
    const f = spawnFixture('debugged.js', [1500, HOLD_MS, 1500 + HOLD_MS + 5500, THRESHOLD_MS]);
    await assertDebuggerPauseNotLag(f, HOLD_MS);
  });
});
