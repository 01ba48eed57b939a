'use strict';
// SPEC §14: at SIGINT, SIGTERM or SIGHUP a set reports what it holds, then the signal does what it
// would have done without lagwatch (lib/monitors.js, _signalled). A listener of lagwatch's replaces
// the signal's default action, and JavaScript cannot run while the main thread is held: so
// whenever lagwatch alone listens to a signal (the app has no listener of its own), the native
// side is told, and a signal the main thread does not take in time is ended by its default
// action from lagwatch's worker thread, after what can be said is said from C
// (src/platform/sigend.h, src/core/hangline.h). With a listener of the app's, the signal waits for
// the main thread as it would without lagwatch.
const native = require('./native');

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

class SignalWatch {
  // `handle`: the set's native handle; `onSignal(signal)`: the set's report.
  constructor(handle, onSignal) {
    this._handle = handle;
    this._listener = (signal) => {
      native.signalTaken(signal);
      onSignal(signal);
    };
    // 'newListener' comes before the listener is added: one that is not lagwatch's disarms.
    this._added = (event, listener) => {
      if (SIGNALS.includes(event) && listener !== this._listener) native.signalArm(event, false);
    };
    this._removed = (event) => {
      if (SIGNALS.includes(event)) this._arm(event);
    };
    for (const signal of SIGNALS) process.on(signal, this._listener);
    process.on('newListener', this._added);
    process.on('removeListener', this._removed);
    // After Node's listener: its handler is the one the native one chains to.
    native.monEndSignals(handle, true);
    for (const signal of SIGNALS) this._arm(signal);
  }

  _arm(signal) {
    const all = process.listeners(signal);
    native.signalArm(signal, all.length > 0 && all.every((l) => l === this._listener));
  }

  // Listeners removed, nothing armed. Idempotent.
  remove() {
    if (this._handle === null) return;
    process.removeListener('newListener', this._added);
    process.removeListener('removeListener', this._removed);
    for (const signal of SIGNALS) {
      process.removeListener(signal, this._listener);
      native.signalArm(signal, false);
    }
    native.monEndSignals(this._handle, false);
    this._handle = null;
  }
}

module.exports = { SignalWatch };
