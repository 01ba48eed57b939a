'use strict';
// SPEC §7/§11, end to end: worker_threads that run every monitor (each with its own uv worker
// thread: heartbeat and liveness) can be created and torn down repeatedly, by terminate() or by
// m.stop() and a natural end, without a crash and without a leak. The workers run in a child
// process (fixtures/workers.js) so that a crash fails the test instead of killing mocha.
const assert = require('assert');
const { spawnFixture, killAll, underAsan } = require('./helpers');

const COUNT = 30;
const WARMUPS = 3;
// A generous bound: the RSS of a process moves by a few MB on its own (allocator arenas, JIT,
// GC heuristics); 40 MB over 30 workers still catches a leak of about 1.3 MB per worker, far less
// than a worker's isolate (~10 MB) or its uv loop and thread stack.
const MAX_GROWTH = 40 * 1024 * 1024;
const ALL_RUNNING = {
  driftLag: true, macrotaskLag: true, loopBlock: true, idleAvailability: true, worker: true,
  liveness: true, clockDrift: true, timerThrottle: true,
};

async function runWorkers(mode) {
  // Under npm test's sanitizer step, ASan keeps freed memory in a quarantine of 256 MB (the
  // RSS then grows by ~200 MB over 30 workers without any leak): 16 MB still catches a use after
  // a free in the teardown of a worker, and lets the RSS bound mean something.
  const env = underAsan() ? { ASAN_OPTIONS: `${process.env.ASAN_OPTIONS || ''}:quarantine_size_mb=16` } : {};
  const f = spawnFixture('workers.js', [WARMUPS + COUNT, WARMUPS, mode], {
    nodeArgs: ['--expose-gc'], env, killAfterMs: 90000,
  });
  const r = await f.result(90000); // exit code 0: the process (the workers' parent) survived
  const why = f.describe();
  assert.strictEqual(r.results.length, WARMUPS + COUNT, why);
  return { r, why };
}

function checkEach(r, why, expectedExit) {
  for (const w of r.results) {
    const where = `worker ${w.i}: ${JSON.stringify(w)}\n${why}`;
    assert.deepStrictEqual(w.errors, [], where);
    assert.deepStrictEqual(w.msgs, ['ready', 'waited'], where);
    assert.deepStrictEqual(w.running, ALL_RUNNING, `every monitor runs in the worker: ${where}`);
    // ~100 ms of a 20 ms drift timer and a few loop iterations (more where the set-up was slow,
    // up to 5 s): the monitors did run.
    assert.ok(w.driftSubmitted >= 1 && w.loopBlockSubmitted >= 1, `samples in the worker: ${where}`);
    assert.strictEqual(w.exitCode, expectedExit, where);
  }
}

function checkParent(r, why) {
  assert.ok(r.mainRunning, `the parent's own monitors still run: ${why}`);
  assert.ok(r.mainStats.monitors.driftLag.submitted > 0, why);
  assert.deepStrictEqual(r.mainStats.stalls, { hang: 0, suspend: 0, pause: 0 }, why);
  const growth = r.rssAfter - r.rssBefore;
  assert.ok(growth < MAX_GROWTH,
    `RSS grew by ${(growth / 1048576).toFixed(1)} MB over ${COUNT} workers (limit ${MAX_GROWTH / 1048576} MB)`);
}

describe('e2e: worker_threads running every monitor, torn down repeatedly (real process)', function () {
  this.timeout(120000);
  afterEach(killAll);

  it(`${COUNT} workers, each terminate()d after ~100 ms: every terminate resolves, no crash, no leak`, async () => {
    const { r, why } = await runWorkers('terminate');
    checkEach(r, why, 1); // 1: terminated (a crash would end the whole process instead)
    checkParent(r, why);
  });

  it(`${COUNT} workers, each calling m.stop() and ending on its own: exit code 0, no leak`, async () => {
    const { r, why } = await runWorkers('stop');
    checkEach(r, why, 0);
    for (const w of r.results) assert.strictEqual(w.runningAfterStop, false, `worker ${w.i}: m.stop() stopped every monitor`);
    checkParent(r, why);
  });
});
