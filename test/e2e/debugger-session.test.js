'use strict';
// SPEC §2's `debugger` for a debugger attached in-process (real processes): no inspector port is
// open; a worker thread of the app's connects an inspector.Session to the main thread
// (connectToMainThread(), as profilers, test tools and error trackers do) and holds it 6 s at
// Debugger.pause. That is a debugger's pause, as through --inspect: no hang, no 'workerHang',
// its samples discarded as `debugger`. (The fixture is the --inspect test's, run without it.)
const { spawnFixture, killAll, assertDebuggerPauseNotLag } = require('./helpers');

describe('e2e: an in-process inspector session is a debugger (real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  it('a worker\'s session holds the main thread 6 s (Debugger.pause, no port): no hang, no workerHang, the samples discarded as debugger', async () => {
    const f = spawnFixture('debugged.js', [1500, 6000, 13000]);
    await assertDebuggerPauseNotLag(f);
  });
});
