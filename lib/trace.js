'use strict';
// The request a hang (or a block) held: the OpenTelemetry span that was active on the main thread
// when the hang was flagged. The sampler (lib/profile.js) calls this with the hang's first stack, on the
// main thread, in an interrupt of the code that hung and so in its async context: the app's
// context manager (AsyncLocalStorage) gives the span of the request being handled. Nothing runs
// for it while the loop is healthy, and @opentelemetry/api is not even loaded unless the app
// registered a context manager (the API keeps its globals under its own key).
const API_KEY = Symbol.for('opentelemetry.js.api.1'); // @opentelemetry/api 1.x's globals

// { traceId, spanId, traceFlags, name } of the active span, or null; never a throw. `name` is the
// span's name where the span says it (the SDK's spans have a `name`; the API does not promise
// one), else undefined.
function activeSpanContext() {
  const g = globalThis[API_KEY];
  if (!g || !g.context) return null; // no context manager: no active span to tell
  try {
    const api = require('@opentelemetry/api');
    const span = api.trace.getSpan(api.context.active());
    const sc = span === undefined ? undefined : span.spanContext();
    if (!sc || !api.trace.isSpanContextValid(sc)) return null;
    const name = typeof span.name === 'string' && span.name !== '' ? span.name : undefined;
    return { traceId: sc.traceId, spanId: sc.spanId, traceFlags: sc.traceFlags, name };
  } catch {
    return null;
  }
}

// The span's fields on a report (a hang's or a block's): traceId, spanId, traceFlags, and with
// `named` its name (spanName) where the span told it. Nothing without a span.
function addTrace(target, trace, named = false) {
  if (trace === null || trace === undefined || typeof trace.traceId !== 'string') return;
  target.traceId = trace.traceId;
  target.spanId = trace.spanId;
  target.traceFlags = trace.traceFlags;
  if (named && typeof trace.name === 'string') target.spanName = trace.name;
}

module.exports = { activeSpanContext, addTrace };
