'use strict';
// Argument checks shared by lib/: TypeError for a wrong type, naming the argument.

function typeError(message) {
  const err = new TypeError(message);
  err.code = 'ERR_INVALID_ARG_TYPE';
  return err;
}

function checkOptions(options, name = 'options') {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') {
    throw typeError(`The "${name}" argument must be an object`);
  }
  return options;
}

// Edit distance (insertions, deletions, substitutions) between two option names, ignoring case.
function distance(a, b) {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

// The valid name nearest to `key` (a typo's likely meaning), or null when none is near. A name
// that one begins with the other ("drift" of "driftLag", "block" of "blocks") is nearest.
function nearest(key, known) {
  let best = null;
  let bestDistance = Infinity;
  const k = key.toLowerCase();
  for (const name of known) {
    const n = name.toLowerCase();
    const d = n.startsWith(k) || k.startsWith(n) ? 0.5 : distance(key, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : null;
}

// SPEC §14, no setting lost in silence: an option name that is not one of `known` throws a
// RangeError (as an unknown monitor name always did) naming the argument, the key and the nearest
// valid name, at every level of every entry point. A throw, not a warning: a warning would let
// `{ block: true }` run without blocks until someone reads it.
function checkKeys(options, known, name = 'options') {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = nearest(key, known);
    const err = new RangeError(`The "${name}" argument has an unknown option "${key}"` +
      `${near === null ? ` (valid: ${known.join(', ')})` : `; did you mean "${near}"?`}`);
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  return options;
}

function checkFunction(fn, name) {
  if (typeof fn !== 'function') throw typeError(`The "${name}" argument must be a function`);
}

const SEVERITY = { debug: 5, info: 9, warn: 13, error: 17 };

// A logger is { log(level, message) }, or an OpenTelemetry Logger ({ emit(record) }), or both.
// Whatever a user callback throws is reported through it and goes no further; a logger that
// throws is ignored.
function makeLog(logger) {
  if (logger === undefined) return () => {};
  const ok = logger !== null && typeof logger === 'object' &&
    (typeof logger.log === 'function' || typeof logger.emit === 'function');
  if (!ok) {
    throw typeError('The "options.logger" argument must have a log(level, message) method ' +
      'or be an OpenTelemetry Logger');
  }
  const write = typeof logger.log === 'function'
    ? (level, message) => logger.log(level, message)
    : (level, message) => logger.emit({
      severityNumber: SEVERITY[level] || 9, severityText: level.toUpperCase(), body: message,
    });
  return (level, message) => {
    try {
      write(level, message);
    } catch {
      // A broken logger must not break the monitors.
    }
  };
}

// The OpenTelemetry Logger among the options, if any (it receives the lag.stall records).
function otelLogger(logger) {
  return logger !== null && typeof logger === 'object' && typeof logger.emit === 'function' ? logger : null;
}

function describe(err) {
  return err && err.stack ? err.stack : String(err);
}

// 64-bit FNV-1a of the text's UTF-8 bytes, 16 hex digits: names that must stay the same from run
// to run (a state directory, a hang's fingerprint). Not the crypto module: loading it costs every
// process megabytes of RSS (bench/RESULTS.md §9 measures the defaults), for names that guard
// against nothing.
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;
function hash64(text) {
  let h = FNV_OFFSET;
  for (const byte of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK64;
  return h.toString(16).padStart(16, '0');
}

// A string from the app or the world (a function name, a URL, a span name, a path) as lagwatch
// prints it: control characters (C0, DEL, C1) and Unicode's line separators escaped, so that no
// name can move a terminal's cursor, colour it, or start a line that reads as lagwatch's own.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const ESCAPES = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
function printable(s) {
  return String(s).replace(UNPRINTABLE, (c) => ESCAPES[c] || `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// PM2's instance number: NODE_APP_INSTANCE (or the variable PM2's instance_var names), which PM2's
// process container sets from its pm2_env only after `-r` preloads ran: read there before.
function pm2Instance(env) {
  let instance = env.NODE_APP_INSTANCE;
  if (instance === undefined && typeof env.pm2_env === 'string') {
    try {
      const pm2 = JSON.parse(env.pm2_env);
      instance = pm2[typeof pm2.instance_var === 'string' ? pm2.instance_var : 'NODE_APP_INSTANCE'];
    } catch {
      instance = undefined;
    }
  }
  return /^\d{1,9}$/.test(String(instance)) ? Number(instance) : null;
}

// What this process is among several (SPEC §14): a PM2 instance ({ instance: 1 }, PM2's
// NODE_APP_INSTANCE), a cluster's worker ({ cluster: { worker: 2 } }, its cluster.worker.id), a
// cluster's primary once it has forked ({ cluster: { primary: true } }: fork() fills
// cluster.settings); {} for a process alone. The cluster module is asked only when it is loaded
// already (a cluster's worker loads it at start, a primary's app did).
function processRole(env = process.env) {
  const instance = pm2Instance(env);
  if (instance !== null) return { instance };
  if (Array.isArray(process.moduleLoadList) && process.moduleLoadList.includes('NativeModule cluster')) {
    const cluster = require('cluster');
    if (cluster.isWorker) return { cluster: { worker: cluster.worker.id } };
    if (cluster.settings && cluster.settings.exec !== undefined) return { cluster: { primary: true } };
  }
  return {};
}

// The same in words, naming this process on lagwatch's stderr lines after "lagwatch: " when it
// is not alone: "pid 4242, instance 1: ", "pid 4242, cluster worker 2: ", "pid 4242, cluster
// primary: "; "" for a process alone.
function processTag(env = process.env) {
  const r = processRole(env);
  if (r.instance !== undefined) return `pid ${process.pid}, instance ${r.instance}: `;
  if (r.cluster === undefined) return '';
  return r.cluster.primary ? `pid ${process.pid}, cluster primary: ` : `pid ${process.pid}, cluster worker ${r.cluster.worker}: `;
}

module.exports = {
  typeError, checkOptions, checkKeys, nearest, checkFunction, makeLog, otelLogger, describe, hash64, printable, processRole, processTag,
};
