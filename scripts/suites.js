'use strict';
// The mocha suites by kind, for scripts/test.js (npm test, npm run test:quick) and
// scripts/soak.js (npm run test:soak). Every file test/*.test.js and test/e2e/*.test.js is in
// exactly one list; test/suites.test.js fails when a file is in none or in two.
//
// SIMULATION: the rules on the simulation clock, exact to the millisecond, and the JS API in one
// process. No child process, no timing of the real loop: they cannot depend on the machine's
// load. The quick tier (`npm run test:quick`) runs these after the C tests.
const fs = require('fs');
const os = require('os');
const path = require('path');

const SIMULATION = [
  'test/bad-input.test.js',
  'test/blocks.test.js',
  'test/cause.test.js',
  'test/electron-renderer.test.js',
  'test/episodes.test.js',
  'test/lifecycle.test.js',
  'test/loop-model.test.js',
  'test/matrix-judge.test.js',
  'test/monitors-api.test.js',
  'test/monitors-hidden.test.js',
  'test/monitors-matrix.test.js',
  'test/producer.test.js',
  'test/profile.test.js',
  'test/prom-client.test.js',
  'test/prometheus-exposition.test.js',
  'test/quiet.test.js',
  'test/tracker.test.js',
  'test/validator.test.js',
];

// REAL_PROCESS: real clocks, real child processes, real signals: the drivers proven. Their
// tolerances come from what they measure of the machine; `npm run test:soak` runs them again and
// again under load. Longest first (seconds on this project's machine, alone): mocha's parallel
// mode (PARALLEL) hands the files out in this order, so the long ones do not start last.
const REAL_PROCESS = [
  'test/e2e/stops.test.js', // 95
  'test/e2e/block-budget.test.js', // 75
  'test/e2e/cause.test.js', // 70
  'test/register.test.js', // 65
  'test/e2e/blocks.test.js', // 64
  'test/e2e/freezer-rest.test.js', // 52
  'test/embedder-main.test.js', // 50
  'test/embedder-renderer.test.js', // 50
  'test/e2e/sync-waits.test.js', // 45
  'test/e2e/stop-loses-nothing.test.js', // 45
  'test/e2e/statedir.test.js', // 40
  'test/e2e/hang-line.test.js', // 33
  'test/e2e/fatal.test.js', // 32
  'test/e2e/busy-loop.test.js', // 29
  'test/e2e/stack.test.js', // 29
  'test/prometheus.test.js', // 20
  'test/e2e/profile.test.js', // 19
  'test/memory.test.js', // 16
  'test/real-clock.test.js', // 16
  'test/e2e/signals.test.js', // 15
  'test/e2e/trace.test.js', // 15
  'test/e2e/workers.test.js', // 14
  'test/drift-sleep.test.js', // 13
  'test/e2e/sigstop.test.js', // 11
  'test/e2e/idle-sleeps.test.js', // 10
  'test/e2e/debugger-session.test.js', // 10
  'test/e2e/quiet.test.js', // 8
  'test/e2e/loop-model.test.js', // 7
  'test/e2e/suspend.test.js', // 6
  'test/e2e/clock-step.test.js', // 6
  'test/loop-block-merge.test.js', // 4
  'test/worker-threads.test.js', // 3
  'test/sessions.test.js', // 1
  'test/electron-main.test.js', // 1
  'test/metrics.test.js', // 1
  'test/e2e/exit.test.js', // 1
  'test/e2e/setup.test.js', // 2
];

// The real-process files that also run with the addon under ASan/UBSan (scripts/test.js): the
// sanitizers there check what the C tests, the fuzzer and the simulation suites under them do not
// reach, the drivers' real-time paths, once each: the loop's hooks and the worker thread
// (real-clock, busy-loop, quiet), stops and SIGCONT (sigstop), the stack thread (stack), hang
// records (fatal), signals (signals), stop and exit (stop-loses-nothing, exit), worker_threads
// (worker-threads, workers), the debugger watcher (debugger-session), the clocks' steps and
// suspends (clock-step, suspend) and the embedded loop (embedder-main). The other files' timing
// rules run once, with the addon users install; their native paths are among these.
const SANITIZED_REAL_PROCESS = [
  'test/e2e/stop-loses-nothing.test.js',
  'test/embedder-main.test.js',
  'test/e2e/fatal.test.js',
  'test/e2e/stack.test.js',
  'test/e2e/busy-loop.test.js',
  'test/real-clock.test.js',
  'test/e2e/signals.test.js',
  'test/e2e/sigstop.test.js',
  'test/e2e/workers.test.js',
  'test/e2e/debugger-session.test.js',
  'test/e2e/quiet.test.js',
  'test/e2e/clock-step.test.js',
  'test/e2e/suspend.test.js',
  'test/worker-threads.test.js',
  'test/e2e/exit.test.js',
];

// In npm test each real-process file runs once: those above with the addon under ASan/UBSan,
// every other with the addon users install. The sanitizer build is the same source, so a plain
// run of the files above would prove no rule the sanitized one does not; the addon users install
// runs them in `npm run test:soak`, and those a Node version can change on every other Node
// version in the platform matrix (NODE_VERSION).
const PLAIN_REAL_PROCESS = REAL_PROCESS.filter((f) => !SANITIZED_REAL_PROCESS.includes(f));

// NODE_VERSION: what a Node version can change, run by the platform matrix (scripts/matrix.js)
// with the prebuilt addon on each Node version but the one npm test runs on: Node-API and the JS
// API (the simulation suites, the OpenTelemetry SDK, ESM), libuv's loop, idle time and signals
// (the real clock, the quiet states, signals, idle sleeps, the merge of short iterations),
// worker_threads, and the inspector (sessions, a debugger's pause).
const NODE_VERSION = [
  ...SIMULATION,
  'test/electron-main.test.js',
  'test/metrics.test.js',
  'test/esm.test.js',
  'test/sessions.test.js',
  'test/worker-threads.test.js',
  'test/real-clock.test.js',
  'test/loop-block-merge.test.js',
  'test/e2e/quiet.test.js',
  'test/e2e/signals.test.js',
  'test/e2e/idle-sleeps.test.js',
  'test/e2e/debugger-session.test.js',
];

// How the real-process files run in npm test, the soak and the platform matrix: three at a time,
// each in a mocha worker process of its own. They mostly wait on their children's clocks (hangs,
// stops, idle), so three at once take a third of the wall time; each is a competing load for the
// others, which their tolerances take in (they come from the threads' measured run-queue delay,
// not from a quiet machine), and the soak runs them so, beside a spinning process: a load
// above any npm test puts on them.
const PARALLEL = ['--parallel', '--jobs', '3'];

// PACKAGING: what a user installs and reads: the tarball, types, ESM, the docs' code, valgrind
// over the binding, the layering of src/ (clang's AST). Child processes, but no timing.
const PACKAGING = [
  'test/esm.test.js',
  'test/install.test.js',
  'test/layers.test.js',
  'test/prebuild-macos.test.js',
  'test/provision.test.js',
  'test/readme.test.js',
  'test/rooms.test.js',
  'test/suites.test.js',
  'test/types.test.js',
  'test/valgrind.test.js',
];

// TEST_BUILD: what needs the test hooks of the sanitizer build (-DLW_TEST_HOOKS: the allocator
// made to fail from JS, the worker held up after a stop), which the addon users install does not
// have: run with that build only.
const TEST_BUILD = [
  'test/alloc-fail.test.js',
  'test/e2e/late-worker.test.js',
];

// The environment of one run of the suites: a state directory base of its own (XDG_STATE_HOME,
// lib/fatal.js's default), made empty. The hang records that a run killed in its middle left in
// the user's own base would otherwise be the next run's fatal hangs, reported by the first
// process that starts from the same script. Removed when the calling process exits.
function runEnv() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-run-state-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return { XDG_STATE_HOME: dir };
}

module.exports = {
  runEnv,
  SIMULATION, REAL_PROCESS, SANITIZED_REAL_PROCESS, PLAIN_REAL_PROCESS, NODE_VERSION, PACKAGING, TEST_BUILD, PARALLEL,
  ALL: [...SIMULATION, ...REAL_PROCESS, ...PACKAGING, ...TEST_BUILD],
};
