'use strict';
// The smoke test that scripts/matrix.js runs on each foreign platform (linux-arm64 under qemu,
// win32-x64 under wine, also as a renamed executable), from a project where the packed tarball
// was installed with --ignore-scripts: require('lagwatch') finds its platform's prebuild through
// node-gyp-build. It runs every monitor on the real clock: 3 s idle, then 6 s of a synchronous
// busy loop, then 2 s to settle, then stop(). argv[2]: the file the JSON result is written to
// (under wine, writing stdout to a pipe fails with EBADF).
const fs = require('fs');

const out = process.argv[2];
const result = { platform: process.platform, arch: process.arch, node: process.version, execPath: process.execPath };

function finish(extra) {
  fs.writeFileSync(out, JSON.stringify({ ...result, ...extra }));
}

function main() {
  const lagwatch = require('lagwatch');
  const m = lagwatch.setupAllMonitors();
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
    const start = performance.now();
    let now = start;
    while (now - start < 6000) now = performance.now();
    setTimeout(() => {
      const workerStats = m.workerStats();
      m.stop();
      finish({
        idleJumps,
        idleDiscarded: idleStats.discarded,
        busyMs: now - start,
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
