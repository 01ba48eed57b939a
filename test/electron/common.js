'use strict';
// What the Electron adapter's tests share (test/electron-main.test.js, test/electron-renderer.test.js):
// the monitors' names, a simulation with conditions and a fake Electron (test/fakes/electron.js),
// and small probes.
const assert = require('assert');
const { MetricReader } = require('@opentelemetry/sdk-metrics');
const lagwatch = require('../..');
const { createFakeElectron } = require('../fakes/electron');

const NAMES = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker', 'liveness',
  'clockDrift', 'timerThrottle'];
const PAUSED = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker', 'liveness'];
const NOT_PAUSED = ['clockDrift', 'timerThrottle'];
const VALIDATED = ['driftLag', 'macrotaskLag', 'loopBlock', 'idleAvailability', 'worker'];
const WINDOW_EVENTS = ['show', 'hide', 'minimize', 'restore', 'focus', 'blur', 'closed',
  'unresponsive', 'responsive'];

class ManualReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

function advanceTo(sim, t) {
  assert.ok(t >= sim.now(), `cannot go back from ${sim.now()} to ${t}`);
  sim.advance(t - sim.now());
  assert.strictEqual(sim.now(), t, 'simulation time');
}

// A simulation, conditions on it (with a logger that keeps every line), the lifecycle events with
// their times, and a fake Electron.
function setup(options = {}) {
  const sim = lagwatch.createSimulation({ platform: options.platform || 'linux' });
  const logs = [];
  const c = lagwatch.createConditions({
    clock: sim, meter: options.meter, logger: { log: (level, message) => logs.push(`${level}: ${message}`) },
  });
  const lifecycle = [];
  c.on('lifecycle', (e) => lifecycle.push({ t: sim.now(), ...e }));
  const electron = createFakeElectron();
  return { sim, c, logs, lifecycle, ...electron };
}

// Submits a short sample over [now - windowMs, now] and returns the verdict.
function probe(c, windowMs = 10) {
  const v = c.createValidator({ name: 'probe' });
  const got = [];
  const verdict = v.submit(1, windowMs, (x) => got.push(x));
  assert.strictEqual(got.length, verdict === 'recorded' ? 1 : 0, 'record runs iff recorded');
  return verdict;
}

function running(m) {
  return Object.fromEntries(NAMES.map((n) => [n, m.monitors[n].running]));
}

function expectRunning(m, names, where) {
  assert.deepStrictEqual(running(m), Object.fromEntries(NAMES.map((n) => [n, names.includes(n)])), where);
}

function monitorCounts(m, key) {
  const s = m.conditions.stats();
  return Object.fromEntries(VALIDATED.map((n) => [n, s.monitors[n][key]]));
}

module.exports = {
  NAMES, PAUSED, NOT_PAUSED, VALIDATED, WINDOW_EVENTS, ManualReader, advanceTo, setup, probe, running, expectRunning, monitorCounts,
};
