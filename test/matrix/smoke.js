'use strict';
// The smoke test that scripts/matrix.js runs on each foreign platform (linux-arm64 under qemu,
// win32-x64 under wine, also as a renamed executable), from a project where the packed tarball
// was installed with --ignore-scripts: require('lagwatch') finds its platform's prebuild through
// node-gyp-build. It runs every monitor on the real clock: 3 s idle, then 6 s of a synchronous
// busy loop, then 2 s to settle, then stop(). argv[2]: the file the JSON result is written to
// (under wine, writing stdout to a pipe fails with EBADF). The result carries the worker
// thread's run-queue delay over the loop where Linux's schedstat can be read (workerWaitMs), for
// test/matrix/judge.js's tolerance on a loaded host, and the process's CPU time over the loop.
const fs = require('fs');

const out = process.argv[2];
const result = { platform: process.platform, arch: process.arch, node: process.version, execPath: process.execPath };

// The run-queue delay (ms) summed over the threads `tids` (Linux schedstat), or null where /proc
// cannot be read (wine, macOS). test/schedstat.js is the project's helper for this; smoke.js is
// copied alone into the project it runs from, so it reads the two fields itself.
function taskIds() {
  try {
    return fs.readdirSync('/proc/self/task');
  } catch {
    return [];
  }
}
function waitMs(tids) {
  let sum = null;
  for (const tid of tids) {
    try {
      sum = (sum || 0) + Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
    } catch {
      // the thread ended, or no /proc
    }
  }
  return sum;
}

function finish(extra) {
  fs.writeFileSync(out, JSON.stringify({ ...result, ...extra }));
}

function main() {
  const lagwatch = require('lagwatch');
  const before = new Set(taskIds());
  const m = lagwatch.setupAllMonitors();
  const workerTids = taskIds().filter((t) => !before.has(t)); // lagwatch's worker thread
  const c = m.conditions;
  const events = { stall: [], jump: [], workerHang: [], causes: [] };
  c.on('stall', (e) => events.stall.push(e));
  c.on('jump', (e) => events.jump.push(e));
  c.on('workerHang', (e) => {
    events.workerHang.push(e);
    events.causes.push(e.cause);
  });
  result.running = Object.fromEntries(Object.entries(m.monitors).map(([n, mon]) => [n, mon.running]));
  setTimeout(() => {
    const idleJumps = events.jump.length;
    const idleStats = c.stats();
    const workerWait0 = waitMs(workerTids);
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    let now = start;
    while (now - start < 6000) now = performance.now();
    const cpu = process.cpuUsage(cpu0);
    setTimeout(() => {
      const workerStats = m.workerStats();
      const workerWait1 = waitMs(workerTids);
      m.stop();
      finish({
        idleJumps,
        idleDiscarded: idleStats.discarded,
        busyMs: now - start,
        // The process's CPU time over the busy loop (every thread, the loop's nearly all): what
        // the loop got of a CPU, measured apart from lagwatch (GetProcessTimes under wine).
        loopCpuMs: (cpu.user + cpu.system) / 1000,
        // How long lagwatch's worker thread waited for a CPU from the loop's start to the end
        // (its checks come that much late at most), or null where unknown.
        workerWaitMs: workerWait0 === null || workerWait1 === null ? null : workerWait1 - workerWait0,
        stalls: events.stall.map((e) => ({ kind: e.kind, durationMs: e.durationMs })),
        jumps: events.jump,
        workerHangs: events.workerHang.length,
        cause: events.causes[0],
        stats: c.stats(),
        workerStats,
      });
    }, 2000);
  }, 3000);
}

try {
  main();
} catch (err) {
  finish({ error: String(err && err.stack) });
  process.exitCode = 1;
}
