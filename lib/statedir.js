'use strict';
// A monitor set's state directory (SPEC §13): where its running hangs are recorded, the records
// of dead processes it reports as fatal hangs, and what went wrong there (stats().stateErrors,
// stateRefused, stateSkipped). The rules of a directory and of a record are the core's
// (src/core/statedir.h, through the binding); lib/fatal.js reads and removes records.
const path = require('path');
const native = require('./native');
const fatal = require('./fatal');

// Directories whose records written elsewhere (another host or PID namespace) were said: once each
// per process.
const saidElsewhere = new Set();

class StateDir {
  // `option`: setupAllMonitors' stateDir (undefined: the default; false: none); `real`: on the
  // real clock. The directory is judged here, before the set starts anything: a path the binding
  // refuses throws now, and a set that throws leaves nothing running.
  constructor(option, real) {
    this.isDefault = option === undefined;
    this.on = real && option !== false;
    this.dir = null;
    this._set = null;
    this._h = null;
    this._conditions = null;
    this._errorsLogged = 0;
    this.refused = 0; // directories refused at setup
    this._refusedLogged = 0; // the worker's refusals (a directory swapped after setup) logged
    this.skipped = 0; // entries of the directory that were not the user's own records
    this._planned = null;
    this._onWorker = null;
    if (!this.on) return;
    if (this.isDefault) {
      // The default's parent (`<base>/lagwatch`, or `<tmp>/lagwatch-<uid>`) is lagwatch's own
      // level too: judged alike, so that one planted by another user is not built upon.
      const dir = fatal.defaultStateDir();
      this._planned = StateDir.judge(dir, [path.dirname(dir), dir]);
    } else {
      const dir = path.resolve(option);
      this._planned = StateDir.judge(dir, [dir]);
    }
  }

  // { dir, why }: `why` null when every level may hold records (src/core/statedir.h), else what
  // is wrong, the level above the state directory named with it. Throws for a path the binding
  // cannot take (too long, a NUL inside).
  static judge(dir, levels) {
    for (const level of levels) {
      const w = native.stateDirCheck(level);
      if (w !== null) return { dir, why: level === dir ? w : `${level}: ${w}` };
    }
    return { dir, why: null };
  }

  // The set has started: the directory judged at setup is used (or refused) from now on. On the
  // main thread, each worker thread that ends is followed by a look at the directory: a worker
  // terminated while hung (a pool's task timeout) left its record as terminated, reported here.
  bind(set) {
    this._set = set;
    this._h = set._h;
    this._conditions = set.conditions;
    if (this._planned !== null) this.use(this._planned);
    this._planned = null;
    if (this.on && native.isMainThread()) {
      this._onWorker = (worker) => worker.once('exit', () => {
        if (this.dir !== null && !this._set._stopped) this._reportFatal(this.dir);
      });
      process.on('worker', this._onWorker);
    }
  }

  // The set has stopped.
  unbind() {
    if (this._onWorker !== null) process.removeListener('worker', this._onWorker);
    this._onWorker = null;
  }

  // A judged directory: refused (logged, counted, neither written nor read, the directory used
  // before let go), or used: the records of dead processes in it are reported at the next turn of
  // the loop (so that listeners added after setup hear them), and this process's running hangs
  // are recorded there. attachElectron calls it again with the app's userData directory.
  use({ dir, why }) {
    if (why !== null) {
      native.monStateDir(this._h, null, '');
      this.dir = null;
      this.refused++;
      this._conditions._log('error', `lagwatch: the state directory ${dir} is refused (${why}): hang records are ` +
        'neither written nor read there, so a hang that ends the process would not be reported by the next one ' +
        '(stats().stateRefused); use a directory of your own, not writable by group or others');
      return;
    }
    native.monStateDir(this._h, dir, fatal.writer(native.thread));
    this.dir = dir;
    setImmediate(() => {
      if (!this._set._stopped) this._reportFatal(dir);
    });
  }

  // Another directory from now on (attachElectron: the app's userData), judged as at setup.
  useDir(dir) {
    this.use(StateDir.judge(dir, [dir]));
  }

  _reportFatal(dir) {
    const c = this._conditions;
    const { records, bad, skipped, skips, errors, elsewhere } = fatal.takeRecords(dir);
    for (const e of errors) c._log('warn', `lagwatch: a hang record cannot be read or removed: ${e}`);
    if (bad > 0) c._log('warn', `lagwatch: ${bad} malformed hang record(s) removed from ${dir}`);
    if (skipped > 0) {
      this.skipped += skipped;
      c._log('warn', `lagwatch: ${skipped} entr${skipped === 1 ? 'y' : 'ies'} of ${dir} skipped, not your own ` +
        `regular files (${skips.join('; ')}): neither reported nor removed (stats().stateSkipped)`);
    }
    if (elsewhere > 0 && !saidElsewhere.has(dir)) {
      saidElsewhere.add(dir);
      c._log('warn', `lagwatch: ${elsewhere} hang record(s) in ${dir} left alone: written on another host or in another ` +
        'PID namespace (a container sharing the directory), where this process cannot tell whether their writer still ' +
        'runs; a process started where one was written reports it once its writer is gone');
    }
    for (const r of records) {
      // On this process's clock: the record's times are on its writer's, whose 0 was wallOrigin.
      const shift = r.wallOrigin - (Date.now() - c.now());
      const detectedAt = r.detectedAt + shift;
      const taken = r.stack !== null && typeof r.stack === 'object' && Array.isArray(r.stack.frames) ? r.stack : null;
      c._fatal.set(detectedAt, {
        pid: r.process.pid,
        thread: r.thread === undefined || r.thread === null ? null : { id: r.thread.id, name: r.thread.name },
        terminated: r.ended === 'terminated',
        stack: taken && taken.frames,
        trace: taken && taken.trace,
      });
      native.condReportFatal(c._h, r.start + shift, r.lastSeen + shift, detectedAt, r.cause === undefined ? null : r.cause);
    }
  }

  // Directories refused so far: at setup, and by the worker at a hang's first write (one swapped
  // after setup), the first of those logged.
  refusedCount() {
    if (this.dir === null) return this.refused;
    const { refused, refusedWhy } = native.monStateErrors(this._h);
    if (refused > 0 && this._refusedLogged === 0) {
      this._refusedLogged = refused;
      this._conditions._log('error', `lagwatch: the state directory ${this.dir} was refused at a hang (${refusedWhy}): ` +
        'its record was not written, so a hang that ends the process would not be reported by the next one (stats().stateRefused)');
    }
    return this.refused + refused;
  }

  // Record writes that failed so far; the first one logged.
  errors() {
    if (this.dir === null) return 0;
    const { errors, firstError } = native.monStateErrors(this._h);
    if (errors > 0 && this._errorsLogged === 0) {
      this._errorsLogged = errors;
      this._conditions._log('error', `lagwatch: a hang record cannot be written in ${this.dir} (${firstError}): ` +
        'a hang that ends the process would not be reported by the next one (stats().stateErrors)');
    }
    return errors;
  }
}

module.exports = { StateDir };
