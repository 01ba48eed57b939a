'use strict';
// lagwatch: event-loop lag that knows when a sample is not the app's fault.
const native = require('./native');
const { createConditions, Conditions } = require('./conditions');
const { createSimulation, Simulation } = require('./simulation');
const { setupAllMonitors, currentSet, pauseWhileHidden } = require('./monitors');
const { createNoopMeter } = require('./metrics');
const { attachElectron, attachDocument } = require('./electron');

module.exports = {
  // Monotonic ms of this thread, on the origin of its performance.now() (SPEC §1).
  now: native.now,
  createConditions,
  createSimulation,
  setupAllMonitors,
  current: currentSet,
  pauseWhileHidden,
  createNoopMeter,
  attachElectron,
  attachDocument,
  Conditions,
  Simulation,
};
