'use strict';
// The stack thread of `setupAllMonitors({ stacks: true })` (SPEC §12): a worker_threads Worker
// that runs no JS at all until the set's C worker thread flags a hang and wakes it (a Node-API
// threadsafe function: a uv_async_t on this thread's loop). Then it connects an inspector session
// to the main thread, pauses it through the Debugger domain (at the first moment V8 can be
// interrupted: at once in JS, when a syscall or native code returns otherwise), takes its call
// frames, hands them to C and resumes it. Then, until the hang ends, it samples the main thread
// for the hang's profile (lib/profile.js: an evaluation in an interrupt of the hung code, no
// pause), and disconnects (a session left connected would make Node wait for the debugger at
// exit).
const inspector = require('inspector');
const { workerData } = require('worker_threads');
const native = require('./native');
const { ACTIVE_SPAN_EXPRESSION } = require('./trace');
const { SAMPLE_INTERVAL_MS, sampleExpression } = require('./profile');

const { id } = workerData;
let busy = false;

function take(detectedAt) {
  if (busy) return; // one capture at a time: a second hang waits for none
  busy = true;
  const session = new inspector.Session();
  const done = () => {
    try {
      session.disconnect();
    } catch {
      // already
    }
    busy = false;
  };
  try {
    session.connectToMainThread();
  } catch {
    busy = false;
    return;
  }
  // The profile's samples, from now until the main thread makes progress (or the bound).
  const sampleUntilTheEnd = () => {
    const expression = sampleExpression(id, detectedAt);
    const next = () => session.post('Runtime.evaluate', { expression, silent: true, returnByValue: true }, (err, res) => {
      if (!err && res && res.result && res.result.value === 'ok') setTimeout(next, SAMPLE_INTERVAL_MS);
      else done();
    });
    next();
  };
  // Debugger.enable reports every script parsed so far: the URLs of the frames' scripts.
  const urls = new Map();
  session.on('Debugger.scriptParsed', ({ params }) => urls.set(params.scriptId, params.url));
  session.once('Debugger.paused', ({ params }) => {
    // Innermost first; lines and columns 1-based, as in Error.stack.
    const frames = params.callFrames.map((f) => ({
      functionName: f.functionName,
      url: f.url || urls.get(f.location.scriptId) || '',
      lineNumber: f.location.lineNumber + 1,
      columnNumber: f.location.columnNumber + 1,
    }));
    // The OpenTelemetry span active where it hung (lib/trace.js), read on the innermost frame
    // while the thread is still paused.
    const put = (trace) => {
      native.stackPut(id, detectedAt, JSON.stringify({ frames, trace }));
      session.post('Debugger.resume', () => session.post('Debugger.disable', sampleUntilTheEnd));
    };
    if (params.callFrames.length === 0) return put(null);
    session.post('Debugger.evaluateOnCallFrame', {
      callFrameId: params.callFrames[0].callFrameId, expression: ACTIVE_SPAN_EXPRESSION,
      silent: true, returnByValue: true,
    }, (err, res) => {
      let trace = null;
      try {
        if (!err && res && res.result && typeof res.result.value === 'string') trace = JSON.parse(res.result.value);
      } catch {
        trace = null;
      }
      put(trace !== null && typeof trace === 'object' && typeof trace.traceId === 'string' ? trace : null);
    });
  });
  session.post('Debugger.enable', (err) => {
    if (err) return sampleUntilTheEnd();
    // The debugger watcher (an open inspector) hears this pause too: it is lagwatch's own.
    native.debuggerOwnPause(id);
    session.post('Debugger.pause', (err2) => {
      if (err2) session.post('Debugger.disable', sampleUntilTheEnd);
    });
  });
}

native.stackAttach(id, take);
