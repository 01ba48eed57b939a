'use strict';
// setupAllMonitors and pauseWhileHidden (SPEC §6, §7). The monitors run in C on libuv (or on the
// simulation); this file only shapes them as { name, start(), stop(), running } objects.
const path = require('path');
const { PerformanceObserver } = require('perf_hooks');
// Loaded with the module, not at setup: a process out of file descriptors still sets up (SPEC §4).
const { BlockingProfile } = require('./blocking');
const { DebuggerWatch } = require('./debugger');
const { SignalWatch } = require('./signals');
const native = require('./native');
const { StateDir } = require('./statedir');
const { Conditions, createConditions, CONDITIONS_KEYS } = require('./conditions');
const { setupOptions, optionValue } = require('./setup-options');
const { typeError, checkFunction, processTag } = require('./util');

const NAMES = native.monNames();

let current = null; // the one setupAllMonitors of this JS thread

class Monitor {
  constructor(h, name, onError) {
    this._h = h;
    this.name = name;
    this._onError = onError;
    Object.freeze(this);
  }

  start() {
    const err = native.monStart(this._h, this.name);
    if (err !== undefined && this._onError) this._onError(this.name, err);
  }

  stop() {
    native.monStop(this._h, this.name);
  }

  get running() {
    return native.monRunning(this._h, this.name);
  }
}

function pauseWhileHidden(monitor, conditions) {
  if (monitor === null || typeof monitor !== 'object') {
    throw typeError('The "monitor" argument must be an object with start() and stop()');
  }
  checkFunction(monitor.start, 'monitor.start');
  checkFunction(monitor.stop, 'monitor.stop');
  if (!(conditions instanceof Conditions)) {
    throw typeError('The "conditions" argument must be made by lagwatch.createConditions()');
  }
  if (!native.stateVisible(conditions.lifecycle.state)) monitor.stop();
  const onChange = ({ from, to }) => {
    const was = native.stateVisible(from);
    const is = native.stateVisible(to);
    if (was && !is) monitor.stop();
    else if (!was && is) monitor.start();
  };
  conditions.on('lifecycle', onChange);
  return function remove() {
    conditions.off('lifecycle', onChange);
  };
}

class MonitorSet {
  constructor(options) {
    const { o, enabled, flat } = setupOptions(options); // a bad option throws here, before anything exists
    this._state = new StateDir(o.stateDir, o.clock === undefined); // so does a bad state directory
    // lib/producer.js is loaded only for a set that is given producers.
    const producers = o.metricProducers === undefined ? [] : require('./producer').checkProducers(o.metricProducers);
    this.conditions = new Conditions(Object.fromEntries(CONDITIONS_KEYS.map((k) => [k, o[k]])), producers.length > 0);
    try {
      this._h = native.monCreate(this.conditions._h, this, flat);
      // The histograms of recorded samples, kept in C for these producers (lib/producer.js),
      // which are bound last, once nothing more can throw.
      if (producers.length > 0) native.monKeepAggregates(this._h, true);
    } catch (err) {
      this.conditions.dispose();
      throw err;
    }
    this.conditions._set = this;
    // What stop() takes down, none of it started yet: a throw from here on stops what did start
    // (set-up is all or nothing: the checks above come first, so none is expected).
    this._producers = [];
    this._unpause = [];
    this._stopped = false;
    this._gcObserver = null;
    this._stackWorker = null;
    this._debugger = null;
    this._onExit = null;
    this._onSignal = null;
    this._atEnd = [];
    try {
      // The recorded values reach JS only when something reads them: a meter that records them
      // (not when producers export them), or a 'samples' listener (from when it is added).
      // Otherwise nothing is copied per sample.
      const c = this.conditions;
      const meterReads = !c._metrics.noop && producers.length === 0;
      const keep = (more) => native.monKeepBatches(this._h, meterReads || c.listenerCount('samples') + more > 0);
      keep(0);
      c.on('newListener', (name) => { if (name === 'samples') keep(1); });
      c.on('removeListener', (name) => { if (name === 'samples') keep(0); });
      if (flat.blocks === true) this.conditions._guard('metrics', () => this.conditions._metrics.primeBlocks());
      this.monitors = {};
      // SPEC §6: a worker thread that cannot start is reported; the other monitors run.
      const onError = (name, reason) => this.conditions._log('error',
        `lagwatch: the worker thread cannot start (${reason}): 'worker' and 'liveness' do not run (monitor ${name})`);
      for (const name of NAMES) this.monitors[name] = new Monitor(this._h, name, onError);
      Object.freeze(this.monitors);
      for (const name of NAMES) if (enabled.has(name)) this.monitors[name].start();
      // SPEC §12: the main thread's time by state for lag_main_thread_time, read at most once per
      // clockDrift interval.
      this.conditions._guard('metrics', () => this.conditions._metrics.observeMainThread(
        () => (this._stopped ? null : native.monTimes(this._h)), optionValue(flat, 'clockDrift.intervalMs')));
      // SPEC §10: nodejs.eventloop.* from the recorded samples (after stop(), the final sums).
      this.conditions._guard('metrics', () => this.conditions._metrics.observeEventLoop(
        () => native.monLoopTime(this._h), () => native.monReadDelay(this._h), () => native.monKeepDelay(this._h)));
      // SPEC §12: V8's GC pauses of this thread, for the gcMs of a hang's cause (real clock only:
      // the simulation has its own). perf_hooks hands them over a loop iteration or two late.
      if (o.clock === undefined) {
        this._gcObserver = new PerformanceObserver((list) => {
          const entries = list.getEntries();
          const pauses = new Float64Array(entries.length * 2);
          for (let i = 0; i < entries.length; i++) {
            pauses[2 * i] = entries[i].startTime;
            pauses[2 * i + 1] = entries[i].duration;
          }
          if (!this._stopped) native.monGc(this._h, pauses);
        });
        this._gcObserver.observe({ entryTypes: ['gc'] });
      }
      // SPEC §12, `stacks: true` (real clock): the stack thread, woken from C when a hang is
      // flagged; it never keeps the process alive.
      this._stacks = o.stacks === true && o.clock === undefined;
      // Blocks: their profile by call site, and their stacks with `blocks.stacks`.
      this._blocksOn = flat.blocks === true;
      this._blockStacks = flat['blocks.stacks'] === true && this._stacks;
      this._blocking = this._blocksOn ? new BlockingProfile() : null; // nothing for a set without blocks
      if (this._stacks) {
        // The hang's stack, the span it blocked and its profile, sampled on the main thread at the
        // stack thread's asking (lib/profile.js) and read at a hang by lib/stacks.js, loaded now.
        const h = this._h;
        require('./stacks');
        require('./profile').register(native.monSetId(h), () => native.monProgressAt(h));
        // worker_threads is loaded only for the stack thread (1 ms of start-up otherwise).
        const { Worker } = require('worker_threads');
        // No inherited preloads (`-r lagwatch/register` would set up monitors in it too).
        this._stackWorker = new Worker(path.join(__dirname, 'stack-worker.js'), {
          workerData: { id: native.monSetId(this._h), lagwatchOwnThread: 'stacks' },
          execArgv: [],
        });
        this._stackWorker.unref();
        this._stackWorker.on('error', (err) => this.conditions._log('error',
          `lagwatch: the stack thread failed (${err && err.message}): hangs are reported without stacks`));
      }
      // SPEC §2's `debugger` on the real clock (lib/debugger.js).
      this._debugger = new DebuggerWatch(o.clock === undefined ? native.monSetId(this._h) : 0,
        (level, message) => this.conditions._log(level, message));
      // A process that exits right after a hang still reports it, synchronously (opt-out); so does
      // one ended by SIGINT, SIGTERM or SIGHUP (SPEC §14, below).
      if (o.clock === undefined && o.exitHook !== false) {
        this._onExit = () => this.stop();
        process.on('exit', this._onExit);
        // Not in Electron: Chromium handles these signals itself (a graceful quit), which a Node
        // listener would replace; its app 'will-quit' reports instead (attachElectron).
        if (native.isMainThread() && !process.versions.electron) {
          this._onSignal = new SignalWatch(this._h, (signal) => this._signalled(signal));
        }
      }
      // Electron's main process (process.type 'browser') keeps the worker thread's monitors while
      // hidden; pages (renderers) pause them (SPEC §6; src/core: lw_mon_paused_while_hidden).
      const browserProcess = process.type === 'browser';
      for (const name of NAMES) {
        if (enabled.has(name) && native.monPausedWhileHidden(name, browserProcess)) {
          this._unpause.push(pauseWhileHidden(this.monitors[name], this.conditions));
        }
      }
      this._producers = producers;
      for (const p of producers) p._bind(this);
      // The line said while a hang runs (SPEC §14): the C worker writes it, the main thread being
      // held. Off by default: a library's host decides what goes on its stderr; `register` turns it on.
      // The main thread's only: a worker's line would need its name (it says "the main thread").
      if (o.clock === undefined && o.hangLine === true && native.isMainThread()) native.monHangLine(this._h, true, processTag(), '');
      // Fatal hangs (real clock): this process's running hangs are recorded in the state directory
      // judged at setup from now on, and those of earlier processes that died hung are reported at
      // the next turn of the loop (lib/statedir.js).
      this._state.bind(this);
    } catch (err) {
      this.stop();
      throw err;
    }
  }

  // SPEC §14: at SIGINT, SIGTERM or SIGHUP the set reports what it holds, then the signal does
  // what it would have done without lagwatch. Its listeners are removed first, so that a signal
  // that comes while it reports (a second Ctrl-C) finds the default action and ends the process at
  // once. A process with no listener of its own is then ended by the same signal, re-raised, so
  // that its parent sees the signal and not an exit code; one with its own listeners keeps them
  // and goes on, its monitors running (a SIGHUP may mean "reload"): lagwatch only reports what it
  // can without stopping (the end hooks, register's blocking profile), and reports the rest when
  // the process exits. While the main thread is held, lib/signals.js ends the process instead.
  _signalled(signal) {
    this._removeSignals();
    if (process.listenerCount(signal) > 0) {
      this._runAtEnd(false);
      return;
    }
    this.stop();
    process.kill(process.pid, signal);
  }

  _removeSignals() {
    if (this._onSignal === null) return;
    this._onSignal.remove();
    this._onSignal = null;
  }

  // The end hooks (register's blocking profile): at the set's end, or at a signal the app handles
  // itself (`final` false: the set goes on).
  _runAtEnd(final) {
    for (const hook of this._atEnd) {
      this.conditions._guard('end', () => hook(final));
    }
  }

  // The set's JS entry: an inspector opened since starts the debugger watcher (lib/debugger.js).
  _watchDebugger() {
    if (!this._stopped) this._debugger.look();
  }

  // SPEC §12: the stack taken for the hang flagged at `detectedAt`, and its profile
  // (lib/stacks.js, loaded at the first hang or block reported).
  _stack(detectedAt) {
    return require('./stacks').hangStack(native.monSetId(this._h), detectedAt);
  }

  _profile(detectedAt) {
    return require('./stacks').hangProfile(native.monSetId(this._h), detectedAt);
  }

  // The blocks so far: { count, reported, unreported, watched, discarded: { [reason]: n } }.
  _blocks() {
    return native.monBlocks(this._h);
  }

  // With `blocks.stacks`: a judged block's stack, its fingerprint and its span (lib/stacks.js).
  _blockStack(block, detectedAt) {
    if (this._blockStacks) require('./stacks').blockStack(block, native.monSetId(this._h), detectedAt);
  }

  // The call sites that blocked the loop the most in this run (lib/blocking.js): { blocks,
  // totalMs, sites: [{ fingerprint, count, totalMs, maxMs, p50Ms, cause, causes, stack }],
  // other }; every block recorded so far, reported or over the budget.
  blockingProfile() {
    return (this._blocking || new BlockingProfile()).read();
  }

  // The worker's own view: self-lag of its timer, and the hangs its detector saw.
  workerStats() {
    return native.monStats(this._h);
  }

  // SPEC §4, stopping loses nothing: the final evidence is gathered (the worker's last
  // messages, one clock reading), every held sample resolved, every waiting episode reported,
  // then every monitor stops and its last samples are flushed. Idempotent.
  stop() {
    this.conditions.dispose(); // calls _finish()
  }

  _flush() {
    native.monFlush(this._h);
  }

  _finish() {
    if (this._stopped) return;
    this._stopped = true;
    for (const remove of this._unpause) remove();
    if (this._stackWorker !== null) {
      this._stackWorker.terminate();
      require('./profile').stopSampling(native.monSetId(this._h));
    }
    if (this._debugger !== null) this._debugger.stop();
    if (this._gcObserver !== null) {
      // The pauses already taken, then no more.
      const pending = this._gcObserver.takeRecords();
      if (pending.length) {
        native.monGc(this._h, Float64Array.from(pending.flatMap((e) => [e.startTime, e.duration])));
      }
      this._gcObserver.disconnect();
    }
    if (this._onExit !== null) process.removeListener('exit', this._onExit);
    this._removeSignals();
    this._state.unbind();
    native.monFinish(this._h);
    // Producers keep the final values; the core's copy goes.
    if (this._producers.length > 0) {
      const last = native.monAggregates(this._h);
      for (const p of this._producers) p._unbind(this, last);
      native.monKeepAggregates(this._h, false);
    }
    if (current === this) current = null;
    this._runAtEnd(true);
  }
}

// One set on the real clock per JS thread: its monitors own this thread's loop hooks and a
// worker thread. Sets on simulated clocks touch no loop, so tests may make as many as they like.
function setupAllMonitors(options) {
  const real = options === undefined || options === null || options.clock === undefined;
  if (real && current !== null && current._byRegister) {
    // SPEC §14: options given to a set that register started are never dropped in silence.
    const vars = require('./env').variablesFor(options);
    const err = new Error('lagwatch: the monitors of this thread were started by lagwatch/register, ' +
      'which takes its settings from the environment; these options are not applied. ' +
      `${vars.length > 0 ? `Set ${vars.join(', ')} instead` : 'Set its LAGWATCH_* variables instead (docs/api.md)'}, ` +
      'or start without lagwatch/register; lagwatch.current() returns the running set');
    err.code = 'ERR_LAGWATCH_ALREADY_SET_UP';
    throw err;
  }
  if (real && current !== null) {
    const err = new Error('lagwatch: setupAllMonitors() runs once per thread; lagwatch.current() ' +
      'returns the running set (stop() it to set up another)');
    err.code = 'ERR_LAGWATCH_ALREADY_SET_UP';
    throw err;
  }
  const set = new MonitorSet(options);
  if (real) current = set;
  return set;
}

// The running real-clock set of this thread, or undefined: how an app under
// `node -r lagwatch/register` reaches the set register started.
function currentSet() {
  return current === null ? undefined : current;
}

module.exports = { setupAllMonitors, currentSet, pauseWhileHidden, MONITOR_NAMES: NAMES };
