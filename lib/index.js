'use strict';
// lagwatch: event-loop lag that knows when a sample is not the app's fault.
const native = require('./native');
const { createConditions, Conditions } = require('./conditions');
const { createSimulation, Simulation } = require('./simulation');
const { setupAllMonitors, currentSet, pauseWhileHidden } = require('./monitors');
const { createNoopMeter } = require('./otel');
// An inspector session an app's worker connects to the main thread is a debugger (SPEC §2).
if (native.isMainThread()) require('./sessions').watchWorkers();

// One `exports.name = ...` line per export, never `module.exports = { ... }`: Node's ESM loader
// finds a CommonJS module's names with cjs-module-lexer, which reads these assignments from the
// source text (an object literal of non-shorthand properties stops it), so that
// `import { setupAllMonitors } from 'lagwatch'` works on every Node. There is no separate ESM
// entry: ESM and CommonJS get this one module, so one instance of its per-thread state
// (current()). attw's NamedExports check and test/esm.test.js fail if a name goes undetected.

// Monotonic ms of this thread, on the origin of its performance.now() (SPEC §1).
exports.now = native.now;
exports.createConditions = createConditions;
exports.createSimulation = createSimulation;
exports.setupAllMonitors = setupAllMonitors;
// The running real-clock set of this thread, or undefined (an app under -r lagwatch/register).
exports.current = currentSet;
exports.pauseWhileHidden = pauseWhileHidden;
exports.createNoopMeter = createNoopMeter;
// The histograms of recorded samples for an OpenTelemetry SDK reader, with no JS per sample.
// lib/producer.js and lib/electron.js load at their first use (start-up costs CPU).
exports.createMetricProducer = function createMetricProducer(options) {
  return require('./producer').createMetricProducer(options);
};
exports.attachElectron = function attachElectron(conditions, options) {
  return require('./electron').attachElectron(conditions, options);
};
exports.attachDocument = function attachDocument(conditions, document) {
  return require('./electron').attachDocument(conditions, document);
};
exports.Conditions = Conditions;
exports.Simulation = Simulation;

// The default export is this module object, the same everywhere: Node's ESM `import lagwatch
// from 'lagwatch'` and bundlers give module.exports, and TypeScript's CommonJS output without
// esModuleInterop reads `.default`, so `.default` is set to the module itself (non-enumerable,
// so that Object.keys() and spreads show the API only). lib/index.d.ts declares it.
Object.defineProperty(exports, 'default', { value: exports, enumerable: false, writable: false });
