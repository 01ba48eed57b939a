'use strict';
// SPEC §2's `debugger`, for a debugger attached in-process: an inspector.Session that a worker
// thread connects to the main thread (connectToMainThread(), as profilers, test tools and error
// trackers' local-variables integrations do) can pause the main thread as an inspector port's
// client does, and such a pause is no hang. No port is open, so the watcher of lib/debugger.js
// never starts; instead, in the main thread, every Worker started after lagwatch loads runs
// lib/sessions-hook.js first (--require in its execArgv), which wraps inspector.Session's
// connectToMainThread there. worker_threads is wrapped when the app loads it (or at once when it
// already has), so that a process with lagwatch and no worker never loads it. Only when the app connects a session does anything run: a session of lagwatch's own,
// in that same thread, with the Debugger domain enabled, tells each pause and resume of the main
// thread to C (src/driver/debugger.h), for the main thread's monitor set. It only listens, and it
// disconnects with the last of the app's sessions. lagwatch's own threads (the stack thread and
// the watcher, which never pause the main thread) are left alone.
const path = require('path');

const HOOK = path.join(__dirname, 'sessions-hook.js');

// Main thread: every Worker constructed from now on loads this file first.
function wrapWorkers() {
  const wt = require('worker_threads');
  if (!wt.isMainThread || wt.Worker.lagwatchSessions === true) return;
  const Original = wt.Worker;
  class Worker extends Original {
    constructor(filename, options = {}) {
      const own = options && options.workerData && typeof options.workerData.lagwatchOwnThread === 'string';
      if (own || options === null || typeof options !== 'object') {
        super(filename, options);
        return;
      }
      const execArgv = Array.isArray(options.execArgv) ? options.execArgv : process.execArgv;
      try {
        super(filename, { ...options, execArgv: [...execArgv, '--require', HOOK] });
      } catch (err) {
        // Flags a worker refuses when named (process-wide ones it would inherit silently): the
        // app's Worker as it asked for it, without the hook.
        if (err && err.code === 'ERR_WORKER_INVALID_EXEC_ARGV' && !Array.isArray(options.execArgv)) {
          super(filename, options);
          return;
        }
        throw err;
      }
    }
  }
  Object.defineProperty(Worker, 'name', { value: 'Worker' });
  Worker.lagwatchSessions = true;
  wt.Worker = Worker;
  try {
    require('module').syncBuiltinESMExports();
  } catch {
    // an old runtime without it: ESM imports keep the original
  }
}

// Worker thread (loaded by --require): wraps connectToMainThread and disconnect.
function hookSessions() {
  const { workerData } = require('worker_threads');
  if (workerData && typeof workerData.lagwatchOwnThread === 'string') return;
  const inspector = require('inspector');
  const proto = inspector.Session.prototype;
  if (typeof proto.connectToMainThread !== 'function' || proto.connectToMainThread.lagwatch) return;
  const connect = proto.connectToMainThread;
  const disconnect = proto.disconnect;
  const apps = new WeakSet();
  let count = 0;
  let own = null;
  let paused = 0; // the main thread's set id told of the pause in progress, or 0

  function listen() {
    const native = require(path.join(__dirname, 'native'));
    own = new inspector.Session();
    connect.call(own);
    own.on('Debugger.paused', () => {
      if (paused !== 0) return;
      paused = native.debuggerMainId();
      if (paused !== 0) native.debuggerPaused(paused);
    });
    own.on('Debugger.resumed', () => {
      if (paused !== 0) native.debuggerResumed(paused);
      paused = 0;
    });
    own.post('Debugger.enable', () => {});
  }

  proto.connectToMainThread = function connectToMainThread(...args) {
    const r = connect.apply(this, args);
    if (!apps.has(this)) {
      apps.add(this);
      if (count++ === 0) {
        try {
          listen();
        } catch {
          own = null; // the addon cannot load here: this session's pauses read as hangs
        }
      }
    }
    return r;
  };
  proto.connectToMainThread.lagwatch = true;
  proto.disconnect = function disconnectSession(...args) {
    const r = disconnect.apply(this, args);
    if (apps.has(this)) {
      apps.delete(this);
      if (--count === 0 && own !== null) {
        if (paused !== 0) require(path.join(__dirname, 'native')).debuggerResumed(paused);
        paused = 0;
        disconnect.call(own);
        own = null;
      }
    }
    return r;
  };
}

// Main thread: wraps worker_threads' Worker now if the app has loaded it, else at its first
// require (import of it alone, before any require, is not seen). Nothing under Electron: its
// workers' loading of a file by path (an app's asar) is not the same as Node's.
function watchWorkers() {
  if (process.versions.electron !== undefined) return;
  if (process.moduleLoadList.includes('NativeModule worker_threads')) {
    wrapWorkers();
    return;
  }
  // The CommonJS loader itself, which the public module module is: loading that one loads the
  // ES module loader and the source-map code with it, for nothing until a worker starts.
  const Module = module.constructor;
  const load = Module._load;
  Module._load = function _load(request, ...rest) {
    const exported = load.call(this, request, ...rest);
    if (request === 'worker_threads' || request === 'node:worker_threads') {
      if (Module._load === _load) Module._load = load;
      wrapWorkers();
    }
    return exported;
  };
}

module.exports = { watchWorkers, hookSessions };
