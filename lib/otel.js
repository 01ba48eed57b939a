'use strict';
// What OpenTelemetry asks of a library: instruments and log records from the global API, which stay
// no-ops until the app registers an SDK. lagwatch depends on @opentelemetry/api (a peer
// dependency); @opentelemetry/api-logs is optional (without it there is no default logger).
const api = require('@opentelemetry/api');
const { version } = require('../package.json');

const NOOP_METER = api.createNoopMeter();

// The global API's meter for lagwatch. Read once, when the conditions are made: an SDK registered
// later is not seen (set the SDK up first, or pass `meter`).
function defaultMeter() {
  return api.metrics.getMeter('lagwatch', version);
}

// The API's own no-op meter (any copy of the API): nothing to record into.
function isNoopMeter(meter) {
  return meter === NOOP_METER || (meter !== null && typeof meter === 'object' &&
    meter.constructor === NOOP_METER.constructor);
}

// The global API's logger for lagwatch (a proxy: it follows a LoggerProvider registered later),
// or undefined when @opentelemetry/api-logs is not installed.
function defaultLogger() {
  let logs;
  try {
    ({ logs } = require('@opentelemetry/api-logs'));
  } catch {
    return undefined;
  }
  return logs.getLogger('lagwatch', version);
}

module.exports = { defaultMeter, defaultLogger, isNoopMeter, NOOP_METER, version };
