'use strict';
// The stack thread of `setupAllMonitors({ stacks: true })` (SPEC §12): a worker_threads Worker
// that runs no JS at all until the set's C worker thread flags a hang and wakes it (a Node-API
// threadsafe function: a uv_async_t on this thread's loop). Then it connects an inspector session
// to the main thread and asks it, with Runtime.evaluate, to run lagwatch's sampler
// (lib/profile.js): the inspector runs it in an interrupt of the hung code, on the main thread,
// on top of its stack (the first moment V8 can be interrupted: at once in JS, when a syscall or
// native code returns otherwise). The first answer is the hang's stack (the sampler stores it in
// C with the OpenTelemetry span it blocked); then it asks again every SAMPLE_INTERVAL_MS, for the
// hang's profile, until the main thread has made progress, and disconnects (a session left
// connected would make Node wait for the debugger at exit). No debugger pause: no Debugger domain,
// no script list, nothing for a debugger watcher to tell apart, and a sample is no larger than
// its stack.
const inspector = require('inspector');
const { workerData } = require('worker_threads');
const native = require('./native');
const { SAMPLE_INTERVAL_MS, sampleExpression } = require('./profile');

const { id } = workerData;
let busy = false;

function take(detectedAt) {
  if (busy) return; // one hang at a time: the last one's sampling ends at its end
  busy = true;
  const session = new inspector.Session();
  try {
    session.connectToMainThread();
  } catch {
    busy = false;
    return;
  }
  const done = () => {
    try {
      session.disconnect();
    } catch {
      // already
    }
    busy = false;
  };
  let first = true;
  const next = () => {
    const expression = sampleExpression(id, detectedAt, first);
    first = false;
    session.post('Runtime.evaluate', { expression, silent: true, returnByValue: true }, (err, res) => {
      if (!err && res && res.result && res.result.value === 'ok') setTimeout(next, SAMPLE_INTERVAL_MS);
      else done();
    });
  };
  next();
}

native.stackAttach(id, take);
