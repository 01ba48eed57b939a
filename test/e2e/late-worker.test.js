'use strict';
// Runs on the test build only (npm test's sanitizer build, -DLW_TEST_HOOKS; scripts/suites.js
// TEST_BUILD), whose worker can be held up after a stop: the addon users install cannot be.
//
// SPEC §4, evidence before judgment: a cgroup freezer sends no SIGCONT, so only the worker's
// lateness tells the stop, and the worker tells it when it runs again. At the thaw both threads
// are woken; under load the scheduler may give the worker its CPU some time after the main
// thread, which by then judges the samples over the stop (seen in npm test: the sanitizer suite
// beside the platform matrix recorded a freezer's 1102 ms as driftLag's lag, the evidence then
// discarding the next, short, sample). Here the worker sleeps LAGWATCH_TEST_WORKER_LATE_MS at a
// wake-up 100 ms or more past its due, as such a worker would: the main thread must wait for it.
const assert = require('assert');
const { spawnFixture, killAll, freezerGroup, freezeSecondsAndCheck } = require('./helpers');

const LATE_MS = 40;

describe('a worker held up after a stop (test build: SPEC §4, evidence before judgment)', function () {
  this.timeout(90000);
  before(() => {
    assert.strictEqual(typeof require('../../lib/native').allocFailAfter, 'function', 'this file needs the test build (-DLW_TEST_HOOKS): LAGWATCH_ADDON=build/asan/lagwatch.node');
  });
  const cleanups = [];
  afterEach(async () => {
    await killAll();
    while (cleanups.length) cleanups.pop()();
  });

  it(`a cgroup freezer of 1 s, three times, whose thaw the worker hears ${LATE_MS} ms after the main thread: no monitor records it as lag`, async () => {
    const cg = freezerGroup('lagwatch-freezer-late-worker', cleanups);
    const f = spawnFixture('wait.js', [1500, 10000], { env: { LAGWATCH_TEST_WORKER_LATE_MS: String(LATE_MS) } });
    await f.waitFor('ready', 20000);
    await freezeSecondsAndCheck(f, cg, 3);
  });
});
