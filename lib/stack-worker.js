'use strict';
// The stack thread of `setupAllMonitors({ stacks: true })` (SPEC §12): a worker_threads Worker
// that runs no JS at all until the set's C worker thread flags a hang and wakes it (a Node-API
// threadsafe function: a uv_async_t on this thread's loop). Then it connects an inspector session
// to the main thread and asks it, with Runtime.evaluate, to run lagwatch's sampler
// (lib/profile.js): the inspector runs it in an interrupt of the hung code, on the main thread,
// on top of its stack (the first moment V8 can be interrupted: at once in JS, when a syscall or
// native code returns otherwise). The first answer is the hang's stack (the sampler stores it in
// C with the OpenTelemetry span it blocked); then it asks again every SAMPLE_INTERVAL_MS, for the
// hang's profile, until the main thread has made progress (with `blocks.stacks`, the same for
// each block, from its threshold), and disconnects (a session left
// connected would make Node wait for the debugger at exit). No debugger pause: no Debugger domain,
// no script list, nothing for a debugger watcher to tell apart, and a sample is no larger than
// its stack.
const inspector = require('inspector');
const { workerData } = require('worker_threads');
const native = require('./native');
const { SAMPLE_INTERVAL_MS, sampleExpression } = require('./profile');

const { id } = workerData;
// What is being sampled: { detectedAt, block, first }, or null when nothing is.
let current = null;
let session = null;

function done() {
  try {
    session.disconnect();
  } catch {
    // already
  }
  session = null;
  current = null;
}

function next() {
  const c = current;
  const expression = sampleExpression(id, c.detectedAt, c.first, c.block);
  c.first = false;
  session.post('Runtime.evaluate', { expression, silent: true, returnByValue: true }, (err, res) => {
    if (current !== c) next(); // a new one was flagged meanwhile: it is sampled from now on
    else if (!err && res && res.result && res.result.value === 'ok') setTimeout(next, SAMPLE_INTERVAL_MS);
    else done();
  });
}

// A hang (`block` false) or a watched block was flagged at `detectedAt`. One is sampled at a
// time: a new one ends the sampling of the last (a block that grows into a hang: the block's
// samples up to the hang's detection, the hang's after it; a block flagged after another has
// ended).
function take(detectedAt, block) {
  const busy = current !== null;
  current = { detectedAt, block: block === true, first: true };
  if (busy) return;
  session = new inspector.Session();
  try {
    session.connectToMainThread();
  } catch {
    session = null;
    current = null;
    return;
  }
  next();
}

native.stackAttach(id, take);
