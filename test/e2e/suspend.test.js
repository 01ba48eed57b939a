'use strict';
// SPEC §1/§6 (clockDrift, sleep clock) and §8's `sleep` row on Linux, end to end: a system
// suspend of 30 s, simulated by an LD_PRELOAD shim (fixtures/suspend-shim.c) that moves
// CLOCK_BOOTTIME and the wall clock forward while CLOCK_MONOTONIC (libuv's uv_hrtime) does not
// move, as a real suspend does on Linux -> exactly one `suspend` jump, no hang, no step.
const assert = require('assert');
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const {
  FIXTURES, spawnFixture, killAll, writeAtomic, tmpDir, withPreload, gcc, assertConservation,
  assertBetween,
} = require('./helpers');
const { waited } = require('../schedstat');

const SUSPEND_MS = 30000;

// Runs the clock probe under the shim: one reading, then the offset is changed, then another.
function probe(probeBin, shim, file, offsetMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(probeBin, [], {
      env: { ...process.env, ...withPreload(shim, { LAGWATCH_SUSPEND_SHIM_FILE: file }) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter(Boolean);
      if (lines.length === 1 && out.endsWith('\n') && !child.changed) {
        child.changed = true;
        writeAtomic(file, `${offsetMs}\n`);
        // The shim looks at the file at most every 50 ms.
        setTimeout(() => child.stdin.end('\n'), 150);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`clock probe exited with ${code}: ${out}`));
      resolve(out.split('\n').filter(Boolean).map((l) => JSON.parse(l)));
    });
    child.stdin.write('\n');
  });
}

describe('e2e: a 30 s system suspend, simulated by an LD_PRELOAD shim (real process)', function () {
  this.timeout(60000);
  let dir;
  let shim;
  let probeBin;

  before(() => {
    dir = tmpDir('suspend');
    shim = path.join(dir, 'suspend-shim.so');
    probeBin = path.join(dir, 'clock-probe');
    gcc(['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-Werror', '-o', shim,
      path.join(FIXTURES, 'suspend-shim.c'), '-ldl', '-lpthread']);
    gcc(['-O2', '-Wall', '-o', probeBin, path.join(FIXTURES, 'clock-probe.c')]);
  });
  afterEach(killAll);
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the shim moves CLOCK_BOOTTIME and the wall clock, not CLOCK_MONOTONIC', async () => {
    const file = path.join(dir, 'probe-offset');
    writeAtomic(file, '0\n');
    const [a, b] = await probe(probeBin, shim, file, SUSPEND_MS);
    const dMono = b.mono - a.mono;
    assertBetween(dMono, 100, 5000, 'CLOCK_MONOTONIC moved with real time only');
    assertBetween((b.boot - a.boot) - dMono, SUSPEND_MS - 1, SUSPEND_MS + 1, 'CLOCK_BOOTTIME gained the offset');
    assertBetween((b.real - a.real) - dMono, SUSPEND_MS - 5, SUSPEND_MS + 5, 'CLOCK_REALTIME gained the offset');
    assertBetween((b.tod - a.tod) - dMono, SUSPEND_MS - 5, SUSPEND_MS + 5, 'gettimeofday gained the offset');
    assertBetween(b.time - a.time, SUSPEND_MS / 1000 - 1, SUSPEND_MS / 1000 + 6, 'time() gained the offset');
  });

  it('is exactly one suspend jump of about 30000 ms, no hang, no step', async () => {
    const file = path.join(dir, 'offset');
    writeAtomic(file, '0\n');
    const f = spawnFixture('wait.js', [1500, 3500], {
      env: withPreload(shim, { LAGWATCH_SUSPEND_SHIM_FILE: file }),
    });
    await f.waitFor('ready', 20000);
    writeAtomic(file, `${SUSPEND_MS}\n`);
    // clockDrift reads the clocks every 1000 ms: the sleep is seen within about a second.
    const r = await f.result(30000);
    const why = f.describe();
    assert.ok(Object.values(r.running).every(Boolean), `every monitor runs: ${JSON.stringify(r.running)}`);
    // In the child, the wall clock moved by the "sleep" and libuv's monotonic clock did not.
    assertBetween(r.end.wallOffset - r.ready.wallOffset, SUSPEND_MS - 50, SUSPEND_MS + 50,
      `Date.now() - performance.now() moved by the sleep (is the shim active?)\n${why}`);
    assertBetween((r.end.hrtime - r.ready.hrtime) - (r.end.at - r.ready.at), -5, 5,
      'process.hrtime and performance.now() (CLOCK_MONOTONIC) did not move');
    assertBetween(r.end.at - r.ready.at, 3400, 8000, 'the monotonic time between ready and the result');

    assert.strictEqual(r.events.jump.length, 1, `one 'jump' event: ${JSON.stringify(r.events.jump)}\n${why}`);
    const j = r.events.jump[0];
    assert.strictEqual(j.kind, 'suspend', JSON.stringify(j));
    // clockDrift reads its clocks back to back on the main thread: a preemption between two
    // reads (its run-queue delay over the run, schedstat) is the most a loaded machine adds.
    const readWait = waited(r.schedAtSetup, r.sched);
    assertBetween(j.deltaMs, SUSPEND_MS - 100 - readWait, SUSPEND_MS + 100 + readWait, `jump.deltaMs (run-queue delay ${readWait.toFixed(1)} ms)`);
    assert.ok(j.at > r.ready.at && j.at <= r.end.at, `the jump is after 'ready': ${JSON.stringify(j)}`);
    assert.deepStrictEqual(r.stats.jumps, { suspend: 1, step: 0 }, 'stats().jumps');

    // On Linux the monotonic clock does not count the sleep: no sample is long, nothing hangs.
    assert.strictEqual(r.stats.stalls.hang, 0, `stats().stalls: ${JSON.stringify(r.stats.stalls)}`);
    assert.deepStrictEqual(r.events.stall, [], 'no stall event');
    assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, 'stats().stalls');
    assert.deepStrictEqual(r.events.workerHang, [], 'no workerHang');
    assert.strictEqual(r.workerStats.workerHangs.count, 0, 'lag_worker_hangs');
    for (const reason of ['hidden', 'frozen', 'pause', 'throttled', 'debugger']) {
      assert.strictEqual(r.stats.discarded[reason], 0, `discarded.${reason}: ${JSON.stringify(r.stats.discarded)}`);
    }
    assertConservation(r.statsBeforeStop, 'before stop()');
    assertConservation(r.stats, 'after stop()');
  });
});
