'use strict';
// The mocha suites by kind, for scripts/test.js (npm test, npm run test:quick) and
// scripts/soak.js (npm run test:soak). Every file test/*.test.js and test/e2e/*.test.js is in
// exactly one list; test/suites.test.js fails when a file is in none or in two.
//
// SIMULATION: the rules on the simulation clock, exact to the millisecond, and the JS API in one
// process. No child process, no timing of the real loop: they cannot depend on the machine's
// load. The quick tier (`npm run test:quick`) runs these after the C tests.
const SIMULATION = [
  'test/bad-input.test.js',
  'test/cause.test.js',
  'test/episodes.test.js',
  'test/lifecycle.test.js',
  'test/loop-model.test.js',
  'test/monitors-api.test.js',
  'test/monitors-hidden.test.js',
  'test/monitors-matrix.test.js',
  'test/producer.test.js',
  'test/prometheus-exposition.test.js',
  'test/tracker.test.js',
  'test/validator.test.js',
];

// REAL_PROCESS: real clocks, real child processes, real signals: the drivers proven. Their
// tolerances come from what they measure of the machine; `npm run test:soak` runs them again and
// again under load.
const REAL_PROCESS = [
  'test/drift-sleep.test.js',
  'test/electron.test.js',
  'test/embedder.test.js',
  'test/loop-block-merge.test.js',
  'test/memory.test.js',
  'test/metrics.test.js',
  'test/prometheus.test.js',
  'test/real-clock.test.js',
  'test/register.test.js',
  'test/worker-threads.test.js',
  'test/e2e/busy-loop.test.js',
  'test/e2e/cause.test.js',
  'test/e2e/clock-step.test.js',
  'test/e2e/exit.test.js',
  'test/e2e/loop-model.test.js',
  'test/e2e/sigstop.test.js',
  'test/e2e/stop-loses-nothing.test.js',
  'test/e2e/suspend.test.js',
  'test/e2e/workers.test.js',
];

// PACKAGING: what a user installs and reads: the tarball, types, ESM, the docs' code, valgrind
// over the binding. Child processes, but no timing.
const PACKAGING = [
  'test/esm.test.js',
  'test/install.test.js',
  'test/readme.test.js',
  'test/suites.test.js',
  'test/types.test.js',
  'test/valgrind.test.js',
];

module.exports = { SIMULATION, REAL_PROCESS, PACKAGING, ALL: [...SIMULATION, ...REAL_PROCESS, ...PACKAGING] };
