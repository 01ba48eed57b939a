'use strict';
// The JS face of the measurement conditions (SPEC §2–§5, §7): it shapes the API and calls user
// callbacks; every rule runs in the C core behind `native`.
const { EventEmitter } = require('events');
const native = require('./native');
const { simHandle } = require('./simulation');
const { defaultMeter, defaultLogger } = require('./otel');
const { typeError, checkOptions, checkKeys, checkFunction, makeLog, otelLogger, describe } = require('./util');

// The 'lagwatch:stall' diagnostics channel, looked up at the first stall: diagnostics_channel (a
// built-in, no file to open) is not loaded before. A subscriber's channel is the same object.
let stallChannel = null;
function publishStall(stall) {
  if (stallChannel === null) stallChannel = require('diagnostics_channel').channel('lagwatch:stall');
  if (stallChannel.hasSubscribers) stallChannel.publish(stall);
}

// The options of createConditions(), which setupAllMonitors() takes too: the JS ones, checked
// here, and those of the core's table (stallThresholdMs, ...), whose values the binding checks.
const CONDITIONS_KEYS = ['clock', 'logger', 'meter', ...Object.keys(native.optionTables().conditions)];
const VERDICTS = ['recorded', 'discarded', 'held', 'disposed'];

// The metrics of conditions with nothing to record into: no meter (none given, no SDK's) and no
// OpenTelemetry logger. lib/metrics.js, its instruments and its tables, is loaded only for
// conditions that have one of them. Every method of Metrics the conditions call is here
// (test/metrics.test.js holds the two lists together).
class NoMetrics {
  constructor() {
    this.noop = true;
  }

  prime() {}
  primeBlocks() {}
  observeMainThread() {}
  observeEventLoop() {}
  onStall() {}
  onJump() {}
  onRendererUnresponsive() {}
  onProcessGone() {}
  onBlock() {}
  onWorkerHang() {}
  onBatch() {}
  onDispose() {}
}

class Tracker {
  constructor(h) {
    this._h = h;
  }

  open(reason) {
    const h = this._h;
    const handle = native.trackerOpen(h, reason);
    let closed = false;
    return function close() {
      if (closed) return;
      closed = true;
      native.trackerClose(h, handle);
    };
  }

  add(start, end, reason) {
    native.trackerAdd(this._h, start, end, reason);
  }

  findOverlap(start, end, reason) {
    return native.trackerFind(this._h, start, end, reason);
  }

  intervals() {
    return native.trackerIntervals(this._h);
  }
}

class Validator {
  constructor(conditions, id, name) {
    this._c = conditions;
    this._id = id;
    this.name = name;
  }

  // SPEC §4. The C core decides; a recorded sample's `record` runs here, synchronously.
  submit(value, windowMs, record) {
    const c = this._c;
    if (typeof record !== 'function') checkFunction(record, 'record');
    // Step 1 reads the lifecycle, but only for a submit that will be taken: a rejected or
    // disposed one must change nothing.
    if (c._reader !== null && native.submitCheck(c._h, this._id, value, windowMs)) c._readLifecycle();
    const verdict = c._submit(this._id, value, windowMs);
    if (verdict === undefined) { // recorded (the native call makes no value for it)
      c._callRecord(record, value);
      return 'recorded';
    }
    if (verdict === 2) c._records.set(native.heldToken(c._h), record);
    return VERDICTS[verdict];
  }

  dispose() {
    native.validatorDispose(this._c._h, this._id);
  }
}

// A hang's fingerprint (lib/profile.js) and the span it held (lib/trace.js), both loaded at a
// hang's report only.
const fingerprintOf = (profile, stack) => require('./profile').fingerprintOf(profile, stack);
const addTrace = (target, trace) => require('./trace').addTrace(target, trace);

class Conditions extends EventEmitter {
  // `producers` (setupAllMonitors): MetricProducers export the histograms of recorded samples.
  constructor(options, producers = false) {
    super();
    const o = checkKeys(checkOptions(options), CONDITIONS_KEYS);
    let sim = null;
    if (o.clock !== undefined) {
      sim = simHandle(o.clock);
      if (sim === undefined) {
        throw typeError('The "options.clock" argument must be a clock made by lagwatch.createSimulation()');
      }
    }
    // The global OpenTelemetry logger unless one is given (SPEC §7).
    const logger = o.logger === undefined ? defaultLogger() : o.logger;
    this._log = makeLog(logger);
    this._reader = null;
    this._records = new Map(); // hold token -> record
    this._fatal = new Map(); // a fatal hang's detection time -> { pid, stack } (lib/fatal.js)
    this._h = native.condCreate(this, sim, o);
    this._submit = native.submitFn(this._h);
    const log = otelLogger(logger);
    this._metrics = o.meter === undefined && log === null && defaultMeter() === null ? new NoMetrics()
      : new (require('./metrics').Metrics)(o.meter, this, log, producers);
    this._sinks = []; // other exporters of the same events (lagwatch/prom-client)
    this._guard('metrics', () => this._metrics.prime());
    this._set = null; // the setupAllMonitors set that runs on these conditions, if any
    this.clock = o.clock;
    this.tracker = new Tracker(this._h);
    const h = this._h;
    this.lifecycle = Object.freeze({
      get state() {
        return native.getState(h);
      },
    });
  }

  createValidator(options) {
    if (options === null || typeof options !== 'object') {
      throw typeError('The "options" argument must be an object with a name');
    }
    checkKeys(options, ['name', 'stallThresholdMs']);
    const id = native.validatorCreate(this._h, options.name, options.stallThresholdMs);
    return new Validator(this, id, options.name);
  }

  setLifecycleState(state) {
    const from = native.setState(this._h, state);
    if (from !== undefined) this._emitSafely('lifecycle', { from, to: state });
  }

  setLifecycleReader(reader) {
    if (reader !== null && reader !== undefined) checkFunction(reader, 'reader');
    this._reader = reader || null;
    native.condHasReader(this._h, this._reader !== null);
  }

  stats() {
    const s = native.stats(this._h);
    // Writes of hang records that failed (a read-only or full state directory: lib/fatal.js).
    const set = this._set !== null && this._set !== undefined ? this._set : null;
    s.stateErrors = set !== null ? set._state.errors() : 0;
    // State directories refused, and entries in one that were not the user's own records (SPEC §13).
    s.stateRefused = set !== null ? set._state.refusedCount() : 0;
    s.stateSkipped = set !== null ? set._state.skipped : 0;
    // Blocks, counted by the set's loopBlock whether reported or not.
    if (set !== null) s.blocks = set._blocks();
    return s;
  }

  // Reports every waiting episode now and hands the monitors' recorded samples to the metrics
  // (the Electron `shutdown`, or before a process ends on its own terms).
  flush() {
    if (this._set !== null) this._set._flush();
    native.condFlush(this._h);
  }

  // The conditions' clock: monotonic ms of its thread, or of its simulation.
  now() {
    return native.condNow(this._h);
  }

  // SPEC §4: the final evidence is gathered, every held sample resolved and every waiting
  // episode reported before anything stops. Idempotent.
  dispose() {
    if (this._set !== null) this._set._finish();
    native.condDispose(this._h);
    this._records.clear();
    this._metrics.onDispose();
  }

  // An event for the metrics: the meter's, and every other exporter's (each guarded alone).
  _toMetrics(method, ev, ...more) {
    this._guard('metrics', () => this._metrics[method](ev, ...more));
    for (const sink of this._sinks) this._guard('metrics', () => sink[method](ev, ...more));
  }

  // Step 1 of every submit: a reader that throws or answers nonsense changes nothing.
  _readLifecycle() {
    let state;
    try {
      state = this._reader();
    } catch (err) {
      this._log('error', `lagwatch: lifecycle reader threw: ${describe(err)}`);
      return;
    }
    try {
      this.setLifecycleState(state);
    } catch (err) {
      this._log('error', `lagwatch: lifecycle reader returned ${String(state)}: ${err.message}`);
    }
  }

  _callRecord(record, value) {
    try {
      record(value);
    } catch (err) {
      this._log('error', `lagwatch: record callback threw: ${describe(err)}`);
    }
  }

  // From the Electron adapter: a window's unresponsive … responsive (or closed, or gone).
  _onRendererUnresponsive(ev) {
    this._toMetrics('onRendererUnresponsive', ev);
    this._emitSafely('rendererUnresponsive', ev);
  }

  // From the Electron adapter: a renderer or another child process went away.
  _onProcessGone(ev) {
    this._toMetrics('onProcessGone', ev);
    this._emitSafely('processGone', ev);
  }

  // A meter or an OpenTelemetry logger that throws is logged; the events still go out.
  _guard(what, fn) {
    try {
      fn();
    } catch (err) {
      this._log('error', `lagwatch: ${what} threw: ${describe(err)}`);
    }
  }

  // Each listener runs on its own: one that throws is logged and the others still run.
  _emitSafely(name, payload) {
    for (const listener of this.rawListeners(name)) {
      try {
        listener.call(this, payload);
      } catch (err) {
        this._log('error', `lagwatch: '${name}' listener threw: ${describe(err)}`);
      }
    }
  }

  // SPEC §12, `stacks: true`: the main thread's stack taken during the hang, and when.
  _attachStack(target, detectedAt) {
    if (this._set === undefined || this._set === null || !this._set._stacks) return;
    const got = detectedAt === undefined ? null : this._set._stack(detectedAt);
    target.stack = got === null ? null : got.stack;
    target.stackTakenAt = got === null ? null : got.takenAt;
    addTrace(target, got === null ? null : got.trace);
    // Where the hang's time went, sampled from its detection to its end, and its fingerprint
    // (lib/profile.js); without samples, the fingerprint of its one stack.
    const profile = detectedAt === undefined ? null : this._set._profile(detectedAt);
    target.profile = profile;
    target.fingerprint = fingerprintOf(profile, target.stack);
  }

  // A fatal hang (lib/fatal.js): its record's process, thread, stack and span, joined by its
  // detection time; the binding left these to the record, which JS alone read. What the record
  // kept is the stack taken at detection, no profile.
  _joinFatal(stall, detectedAt) {
    const f = this._fatal.get(detectedAt);
    this._fatal.delete(detectedAt);
    if (f === undefined) {
      stall.thread = null;
      return;
    }
    stall.pid = f.pid;
    // The hung thread (null for records of versions that did not say), and whether it was
    // terminated by its owner while the process lived on.
    stall.thread = f.thread;
    if (f.terminated) stall.terminated = true;
    stall.stack = f.stack;
    addTrace(stall, f.trace);
    stall.profile = null;
    stall.fingerprint = fingerprintOf(null, f.stack);
  }

  // The binding's events, as (type, payload, note) triples (src/binding/events.c), each handed
  // to its entry of ON_EVENT.
  _onEvents(events) {
    // The set's JS entry: an inspector opened since (SIGUSR1, inspector.open()) starts its
    // debugger watcher (lib/debugger.js).
    if (this._set !== null && this._set !== undefined) {
      this._set._watchDebugger();
      this._set._state.errors(); // a failed hang record is logged once
      this._set._state.refusedCount(); // so is a directory the worker refused at a hang
    }
    for (let i = 0; i < events.length; i += 3) ON_EVENT[events[i]].call(this, events[i + 1], events[i + 2]);
  }
}

// What JS adds to each event of the binding, by its type, with `this` the conditions. The
// binding built the public object whole (every field the core decided); a handler adds only what
// JS alone has (stacks, the span, a fatal record, the lifecycle reader, records) and hands it on.
const ON_EVENT = {
  read() {
    if (this._reader !== null) this._readLifecycle();
  },

  // A held sample decided: its record runs with the recorded value (null: discarded).
  resolved(value, token) {
    const record = this._records.get(token);
    this._records.delete(token);
    if (record !== undefined && value !== null) this._callRecord(record, value);
  },

  cancelled(_, token) {
    this._records.delete(token);
  },

  // `detectedAt`: when the worker flagged the hang (its stack's and a fatal record's key), if any.
  stall(stall, detectedAt) {
    if (stall.fatal === true) this._joinFatal(stall, detectedAt);
    else this._attachStack(stall, detectedAt);
    this._toMetrics('onStall', stall);
    this._emitSafely('stall', stall);
    publishStall(stall);
  },

  jump(jump) {
    this._toMetrics('onJump', jump);
    this._emitSafely('jump', jump);
  },

  workerHang(hang) {
    this._attachStack(hang, hang.detectedAt);
    this._toMetrics('onWorkerHang', hang);
    this._emitSafely('workerHang', hang);
  },

  // Every block is counted in the metrics; one within the budget is reported (its `unreported`:
  // the blocks over the budget since the last report). `detectedAt` keys its stack.
  block(block, { reported, detectedAt }) {
    const set = this._set;
    if (set !== undefined && set !== null) {
      set._blockStack(block, detectedAt);
      if (set._blocking !== null) set._blocking.add(block);
    }
    this._toMetrics('onBlock', block, reported);
    if (reported) this._emitSafely('block', block);
  },

  lost(count) {
    this._log('error', `lagwatch: out of memory: ${count} sample(s), piece(s) of evidence or event(s) lost (stats().lost)`);
  },

  // The monitors' recorded samples since the last flush; self-lag goes to the metrics only.
  batch(batches, selfLag) {
    this._guard('metrics', () => this._metrics.onBatch(batches, selfLag));
    this._emitSafely('samples', batches);
  },
};

function createConditions(options) {
  return new Conditions(options);
}

module.exports = { Conditions, Validator, Tracker, NoMetrics, createConditions, CONDITIONS_KEYS };
