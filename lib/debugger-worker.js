'use strict';
// The debugger watcher of a real-clock monitor set (SPEC §2's reason `debugger`): a
// worker_threads Worker that runs only while an inspector is open (lib/monitors.js starts it
// when inspector.url() says so, and stops it when the inspector closes). Its own inspector
// session on the main thread has the Debugger domain enabled, and so hears every pause of the
// main thread (a breakpoint, a step, a `debugger;` statement, DevTools' pause button): it tells
// each pause and resume to C at once, where the set's C worker (no hang while a debugger holds
// the thread) and the main thread (the span as `debugger` evidence) read it. It only listens: it
// never pauses, resumes or sets a breakpoint, so the user's debugging is untouched.
const inspector = require('inspector');
const { workerData, parentPort } = require('worker_threads');
const native = require('./native');

const { id } = workerData;
const session = new inspector.Session();
session.connectToMainThread();
session.on('Debugger.paused', () => native.debuggerPaused(id));
session.on('Debugger.resumed', () => native.debuggerResumed(id));
session.post('Debugger.enable', (err) => {
  if (parentPort) parentPort.postMessage(err ? { error: err.message } : { ready: true });
});
// The session's events come through this thread's loop, which nothing else keeps alive: a timer
// that never comes due (about 12 days, re-armed if it ever does) keeps it, and wakes nothing.
setInterval(() => {}, 2 ** 30);
