'use strict';
// The request a hang blocked: the OpenTelemetry span that was active on the main thread when the
// hang was flagged. The stack thread (lib/stack-worker.js), while it holds the main thread paused
// for its stack, evaluates ACTIVE_SPAN_EXPRESSION on the innermost frame: that runs this
// function on the main thread, in the async context of the code that hung, so the app's context
// manager (AsyncLocalStorage) gives the span of the request being handled. Nothing runs for it
// while the loop is healthy, and @opentelemetry/api is not even loaded unless the app registered
// a context manager (the API keeps its globals under its own key).
const KEY = Symbol.for('lagwatch.activeSpanContext');
const API_KEY = Symbol.for('opentelemetry.js.api.1'); // @opentelemetry/api 1.x's globals

function activeSpanContext() {
  const g = globalThis[API_KEY];
  if (!g || !g.context) return null; // no context manager: no active span to tell
  const api = require('@opentelemetry/api');
  const sc = api.trace.getSpanContext(api.context.active());
  if (!sc || !api.trace.isSpanContextValid(sc)) return null;
  return { traceId: sc.traceId, spanId: sc.spanId, traceFlags: sc.traceFlags };
}

// Main thread, once per process: the function the stack thread's evaluation calls.
function install() {
  if (typeof globalThis[KEY] !== 'function') {
    Object.defineProperty(globalThis, KEY, { value: activeSpanContext, configurable: true });
  }
}

// Evaluated on the paused main thread; a JSON string (returned by value), never a throw.
const ACTIVE_SPAN_EXPRESSION = `(() => { try { const f = globalThis[Symbol.for('lagwatch.activeSpanContext')]; ` +
  `return JSON.stringify(typeof f === 'function' ? f() : null); } catch (e) { return 'null'; } })()`;

module.exports = { install, ACTIVE_SPAN_EXPRESSION };
