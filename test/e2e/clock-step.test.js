'use strict';
// SPEC §6 (clockDrift) and §8's `stepWall` row, end to end: the wall clock of a real process
// steps +1 h (libfaketime, monotonic and boot clocks left alone) -> exactly one `step` jump,
// no suspend, nothing discarded, no episode.
const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const {
  spawnFixture, killAll, writeAtomic, tmpDir, withoutAsan, assertConservation, assertBetween, watchMachine,
} = require('./helpers');
const { waited } = require('../schedstat');

const STEP_MS = 3600 * 1000;

// libfaketime.so.1 (Debian/Ubuntu package libfaketime), wherever the distribution put it.
function findLibfaketime() {
  const r = spawnSync('dpkg', ['-L', 'libfaketime'], { encoding: 'utf8' });
  const listed = r.status === 0 ? r.stdout.split('\n').filter((p) => /\/libfaketime\.so\.1$/.test(p)) : [];
  const dirs = ['/usr/lib/x86_64-linux-gnu/faketime', '/usr/lib/aarch64-linux-gnu/faketime',
    '/usr/lib/faketime', '/usr/lib64/faketime', '/usr/local/lib/faketime'];
  for (const p of [...listed, ...dirs.map((d) => path.join(d, 'libfaketime.so.1'))]) {
    if (fs.existsSync(p)) return p;
  }
  return null;
}

describe('e2e: a +1 h wall-clock step under libfaketime (real process)', function () {
  this.timeout(60000);
  let lib;
  let dir;

  before(() => {
    lib = findLibfaketime();
    assert.ok(lib, 'libfaketime.so.1 not found: install the Debian package faketime (see .ci/run)');
    dir = tmpDir('faketime');
  });
  afterEach(killAll);
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is exactly one step jump of about +3600000 ms, nothing discarded, no stall', async () => {
    const file = path.join(dir, 'offset');
    // libfaketime 0.9.10 reads the file like $FAKETIME: "+0" is no offset, "+3600" is +3600 s.
    // FAKETIME_NO_CACHE: the file is read again at each call; FAKETIME_DONT_FAKE_MONOTONIC:
    // CLOCK_MONOTONIC and CLOCK_BOOTTIME stay real (else the boot clock would step too and
    // the step would look like a sleep).
    writeAtomic(file, '+0\n');
    const machine = await watchMachine();
    // Not under ASan (npm test's sanitizer step): libfaketime 0.9.10 and the ASan runtime
    // deadlock at startup, in any program. ASan's allocator reads CLOCK_MONOTONIC while it holds
    // its lock; that call lands in libfaketime's clock_gettime, whose lazy init dlsym()s a
    // symbol that does not exist ("__ftime"), and dlerror's message is malloc()ed: the same lock.
    // This child therefore loads the plain addon with libfaketime alone in LD_PRELOAD.
    const f = spawnFixture('wait.js', [1500, 3500], {
      env: withoutAsan({
        LD_PRELOAD: lib,
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
        FAKETIME_TIMESTAMP_FILE: file,
        FAKETIME_NO_CACHE: '1',
      }),
    });
    await f.waitFor('ready', 20000);
    writeAtomic(file, '+3600\n');
    // clockDrift reads the clocks every 1000 ms: the step is seen within about a second.
    let r;
    try {
      r = await f.result(30000);
    } finally {
      machine.stop();
    }
    const why = `${f.describe()}\n${machine.describe()}`;
    assert.ok(Object.values(r.running).every(Boolean), `every monitor runs: ${JSON.stringify(r.running)}`);
    // The step did happen in the child, and only to the wall clock.
    assertBetween(r.end.wallOffset - r.ready.wallOffset, STEP_MS - 50, STEP_MS + 50,
      `Date.now() - performance.now() moved by the step (is libfaketime active?)\n${why}`);
    assertBetween((r.end.hrtime - r.ready.hrtime) - (r.end.at - r.ready.at), -5, 5,
      'process.hrtime and performance.now() (CLOCK_MONOTONIC) did not step');

    assert.strictEqual(r.events.jump.length, 1, `one 'jump' event: ${JSON.stringify(r.events.jump)}\n${why}`);
    const j = r.events.jump[0];
    assert.strictEqual(j.kind, 'step', JSON.stringify(j));
    // clockDrift reads its clocks back to back on the main thread: a preemption between two
    // reads (its run-queue delay over the run, schedstat) is the most a loaded machine adds.
    const readWait = waited(r.schedAtSetup, r.sched);
    assertBetween(j.deltaMs, STEP_MS - 100 - readWait, STEP_MS + 100 + readWait, `jump.deltaMs (run-queue delay ${readWait.toFixed(1)} ms)`);
    assert.ok(j.at > r.ready.at && j.at <= r.end.at, `the jump is after 'ready': ${JSON.stringify(j)}`);
    assert.deepStrictEqual(r.stats.jumps, { suspend: 0, step: 1 }, 'stats().jumps');

    // Wall-clock steps never discard samples, open no interval and start no episode. A stop of
    // the whole machine (the host holding the VM's CPUs back while npm test's load keeps both
    // busy) is a pause to every thread, whose samples lagwatch rightly discards: allowed only
    // when the machine's watcher saw one during the run.
    const machineStopped = machine.count() > 0 || machine.stolenMs(-Infinity, Infinity) > 0;
    const pause = machineStopped ? r.stats.discarded.pause : 0;
    assert.deepStrictEqual(r.stats.discarded,
      { hidden: 0, frozen: 0, suspend: 0, pause, throttled: 0, debugger: 0 }, `stats().discarded\n${why}`);
    const byMonitor = Object.values(r.stats.monitors).reduce((sum, mon) => sum + mon.discarded, 0);
    assert.strictEqual(byMonitor, pause, `the monitors' discards are the machine's pauses\n${why}`);
    if (pause === 0) assert.strictEqual(r.stats.intervals, 0, 'no interval kept');
    assert.deepStrictEqual(r.events.stall, [], 'no stall');
    assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, 'stats().stalls');
    assert.deepStrictEqual(r.events.workerHang, [], 'no workerHang');
    assertConservation(r.statsBeforeStop, 'before stop()');
    assertConservation(r.stats, 'after stop()');
  });
});
