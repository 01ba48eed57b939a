'use strict';
// What OpenTelemetry asks of a library: instruments and log records from the global API, which stay
// no-ops until the app registers an SDK. lagwatch depends on @opentelemetry/api (a peer
// dependency); @opentelemetry/api-logs is optional (without it there is no default logger).
//
// The API is loaded only when something can record: while no SDK has registered a provider (the
// API keeps them on globalThis under its own keys, read here without loading it), the default
// meter and logger are no-ops without it. Loading @opentelemetry/api costs an app about 15 ms of
// CPU at start-up (bench/idle-start.js), for nothing when it runs no SDK.
// lagwatch's version, for the meter, the logger and the producers' scope: read at its first use,
// so that package.json is not parsed and kept by every process that only loads lagwatch.
let packageVersion = null;
function version() {
  if (packageVersion === null) packageVersion = require('../package.json').version;
  return packageVersion;
}

// The keys of @opentelemetry/api 1.x and @opentelemetry/api-logs (their internal/global-utils).
const METRICS_API_KEY = Symbol.for('opentelemetry.js.api.1');
const LOGS_API_KEY = Symbol.for('io.opentelemetry.js.api.logs');

let NoopMeterClass = null;
function apiModule() {
  const api = require('@opentelemetry/api');
  if (NoopMeterClass === null) NoopMeterClass = api.createNoopMeter().constructor;
  return api;
}

// The global API's meter for lagwatch, or null when no MeterProvider is registered (the API would
// give its no-op meter). Read once, when the conditions are made: an SDK registered later is not
// seen (set the SDK up first, or pass `meter`).
function defaultMeter() {
  const g = globalThis[METRICS_API_KEY];
  if (!g || !g.metrics) return null;
  return apiModule().metrics.getMeter('lagwatch', version());
}

// The API's own no-op meter (any copy of the API): nothing to record into.
function isNoopMeter(meter) {
  if (meter === null) return true;
  if (typeof meter !== 'object') return false;
  apiModule();
  return meter.constructor === NoopMeterClass || meter.constructor.name === 'NoopMeter';
}

// The global API's logger for lagwatch, or undefined when no LoggerProvider is registered or
// @opentelemetry/api-logs is not installed. Read once, as the meter.
function defaultLogger() {
  if (!globalThis[LOGS_API_KEY]) return undefined;
  let logs;
  try {
    ({ logs } = require('@opentelemetry/api-logs'));
  } catch {
    return undefined;
  }
  return logs.getLogger('lagwatch', version());
}

function createNoopMeter() {
  return apiModule().createNoopMeter();
}

module.exports = { defaultMeter, defaultLogger, isNoopMeter, createNoopMeter, version };
