'use strict';
// SPEC §2's `debugger` evidence, the JS side of a set's: while an inspector is open (--inspect,
// VS Code's auto-attach, inspector.open()), a watcher thread (lib/debugger-worker.js) hears the
// debugger's pauses of the main thread and tells them to C (src/driver/debugger.h). Looked at
// when the set starts and whenever it enters JS anyway (its events and batches): no wake-up of
// its own; without an inspector nothing runs and nothing is paid. The main thread's set also
// hears the pauses of a session an app's worker connects to it (lib/sessions.js).
const path = require('path');
const native = require('./native');

// The open inspector's URL, or undefined. The public module would do, but loading it loads
// worker_threads and every stream module with it, megabytes of RSS in every process, for a
// question asked at setup and at each entry. Node's own binding answers it the
// same way (the module's url() is that call), and is read through process.binding, which warns
// only under --pending-deprecation: then the module is loaded.
const PENDING_DEPRECATION = process.execArgv.includes('--pending-deprecation') ||
  /--pending-deprecation\b/.test(process.env.NODE_OPTIONS || '') || process.env.NODE_PENDING_DEPRECATION === '1';
let inspectorBinding = null;
function inspectorUrl() {
  if (inspectorBinding === null) {
    inspectorBinding = false;
    if (!PENDING_DEPRECATION && typeof process.binding === 'function') {
      try {
        const b = process.binding('inspector');
        if (b && typeof b.url === 'function') inspectorBinding = b;
      } catch {
        inspectorBinding = false;
      }
    }
  }
  return inspectorBinding ? inspectorBinding.url() : require('inspector').url();
}

class DebuggerWatch {
  // `id`: the set's id (0: a set on a simulated clock, which watches nothing); `log(level,
  // message)`: the set's log.
  constructor(id, log) {
    this._id = id;
    this._log = log;
    this._worker = null;
    this._main = id !== 0 && native.isMainThread();
    if (this._main) native.debuggerMain(id, true);
    this.look();
  }

  // Starts the watcher while an inspector is open, stops it once it is closed.
  look() {
    if (this._id === 0) return;
    let url;
    try {
      url = inspectorUrl();
    } catch {
      url = undefined; // no inspector in this runtime (a sandboxed renderer)
    }
    if (url !== undefined && this._worker === null) {
      const { Worker, isMainThread } = require('worker_threads');
      // A watcher's session reaches the process's main thread only: a set in a worker thread
      // has none (a debugger's pause of that thread reads as a hang).
      if (!isMainThread) {
        this._id = 0;
        return;
      }
      native.debuggerWatch(this._id, true);
      this._worker = new Worker(path.join(__dirname, 'debugger-worker.js'), {
        workerData: { id: this._id, lagwatchOwnThread: 'debugger' },
        execArgv: [],
      });
      this._worker.unref();
      this._worker.on('error', (err) => this._log('error',
        `lagwatch: the debugger watcher failed (${err && err.message}): a debugger's pauses may read as hangs`));
    } else if (url === undefined && this._worker !== null) {
      this._stopWorker();
    }
  }

  _stopWorker() {
    if (this._worker === null) return;
    this._worker.terminate();
    this._worker = null;
    native.debuggerWatch(this._id, false);
  }

  // The set stops: the watcher ends, and with it the main thread's registration.
  stop() {
    this._stopWorker();
    if (this._main) native.debuggerMain(this._id, false);
    this._main = false;
    this._id = 0;
  }
}

module.exports = { DebuggerWatch };
