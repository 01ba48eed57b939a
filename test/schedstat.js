'use strict';
// What the kernel says a thread did (Linux /proc/<pid>/task/<tid>/schedstat: ns on a CPU, ns
// runnable but waiting on a run queue), for the real-process tests' tolerances: a thread kept
// off a CPU by other processes of a loaded machine is late by its run-queue delay, which a test
// then adds to its bound instead of a margin tuned on a quiet run. One module for the fixtures
// (run in the child they measure) and the tests. Not a suite: its name does not end in .test.js.
// Everything returns null where schedstat cannot be read (not Linux, a foreign platform's
// emulator); a bound then keeps its fixed part.
const fs = require('fs');

// { runMs, waitMs } of one thread: `tid` of `pid` (default: the calling thread), or null.
function threadTimes(tid = null, pid = process.pid) {
  const file = tid === null ? '/proc/thread-self/schedstat' : `/proc/${pid}/task/${tid}/schedstat`;
  try {
    const [run, wait] = fs.readFileSync(file, 'utf8').split(' ').map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return null;
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return null;
  }
}

// The calling thread's run-queue delay so far (ms), or null.
function runQueueMs() {
  const t = threadTimes();
  return t === null ? null : t.waitMs;
}

// The thread ids of `pid` (strings), or [] where /proc cannot be read.
function taskIds(pid = process.pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

// { runMs, waitMs } summed over the threads `tids` of `pid` that still run (a thread that ended
// counts no more), or null if none can be read.
function sumTimes(tids, pid = process.pid) {
  let out = null;
  for (const tid of tids) {
    const t = threadTimes(tid, pid);
    if (t === null) continue;
    out = out === null ? { ...t } : { runMs: out.runMs + t.runMs, waitMs: out.waitMs + t.waitMs };
  }
  return out;
}

// The threads that `start()` adds to this process (lagwatch's worker thread, from
// setupAllMonitors): returns start()'s value, the added thread ids and a snapshot function.
// snapshot() is { main, added } — the calling thread's times (the JS thread whose loop lagwatch
// watches: call it from there; in an embedder that need not be the process's first thread) and
// the added threads' summed — each { runMs, waitMs } or null.
function watchThreads(start) {
  const before = new Set(taskIds());
  const value = start();
  const added = taskIds().filter((t) => !before.has(t));
  const snapshot = () => ({ main: threadTimes(), added: sumTimes(added) });
  return { value, added, snapshot };
}

// The run-queue delay (ms) that `part` ('main' or 'added') of snapshot() gained from `a` to `b`,
// or 0 where unknown (the bound then keeps its fixed part).
function waited(a, b, part = 'main') {
  if (!a || !b || !a[part] || !b[part]) return 0;
  return Math.max(0, b[part].waitMs - a[part].waitMs);
}

module.exports = { threadTimes, runQueueMs, taskIds, sumTimes, watchThreads, waited };
