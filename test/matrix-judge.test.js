'use strict';
// test/matrix/judge.js, which judges the smoke test of the platforms run under emulators (qemu,
// wine) and on GitHub's runners: each check fails on a result that breaks it.
const assert = require('assert');
const { judge } = require('./matrix/judge');
const { MONITORS } = require('./helpers');

// A win32 result as wine gives it on a quiet host: the busy loop's cause busy, no run-queue figure.
function win32(over = {}) {
  return {
    platform: 'win32', arch: 'x64', node: 'v20.20.2', execPath: 'Z:\\app\\node.exe',
    running: Object.fromEntries(MONITORS.names.map((n) => [n, true])),
    idleJumps: 0, jumps: [], workerHangs: 1, busyMs: 6000, loopCpuMs: 5900, workerWaitMs: null,
    stats: { stalls: { hang: 1, suspend: 0, pause: 0 }, lost: 0 },
    stalls: [{ kind: 'hang', durationMs: 6004 }],
    cause: { dominant: 'busy', cpuMs: 5800, runQueueMs: null, spanMs: 6000 },
    workerStats: { sleepClock: null },
    ...over,
  };
}
const want = { platform: 'win32-x64', exe: 'node.exe', sleepClock: [null] };

describe('the platform matrix\'s judge (test/matrix/judge.js)', () => {
  it('passes a quiet host\'s busy loop, and fails it when the cause is blocked', () => {
    assert.match(judge(win32(), want), /cause busy \(cpu 5800 of 6000 ms\)/);
    assert.throws(() => judge(win32({ cause: { dominant: 'blocked', cpuMs: 1000, runQueueMs: null, spanMs: 6000 } }), want), /want busy/);
  });

  it('where the run-queue delay is unknown, a loop that had a CPU for less than half its time may read blocked, with its own CPU time', () => {
    const loaded = { loopCpuMs: 2000, cause: { dominant: 'blocked', cpuMs: 1950, runQueueMs: null, spanMs: 6000 } };
    assert.match(judge(win32(loaded), want), /cause blocked \(cpu 1950 of 6000 ms, the loop's own 2000: a loaded host\)/);
    // The cause's CPU time must be the loop's as measured apart: not far less, not more.
    assert.throws(() => judge(win32({ ...loaded, cause: { ...loaded.cause, cpuMs: 500 } }), want), /loaded host/);
    assert.throws(() => judge(win32({ ...loaded, cause: { ...loaded.cause, cpuMs: 2500 } }), want), /loaded host/);
    // Nor any other cause.
    assert.throws(() => judge(win32({ ...loaded, cause: { ...loaded.cause, dominant: 'gc' } }), want), /loaded host/);
    // On Linux the wait is known: starved, never blocked, there.
    const linux = win32({ ...loaded, platform: 'linux', arch: 'arm64', cause: { ...loaded.cause, runQueueMs: 100 } });
    assert.throws(() => judge(linux, { platform: 'linux-arm64', sleepClock: [null] }), /want busy/);
  });
});
