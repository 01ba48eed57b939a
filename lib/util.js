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

function checkFunction(fn, name) {
  if (typeof fn !== 'function') throw typeError(`The "${name}" argument must be a function`);
}

// A logger is { log(level, message) }. Whatever a user callback throws is reported through it and
// goes no further; a logger that throws is ignored.
function makeLog(logger) {
  if (logger === undefined) return () => {};
  if (logger === null || typeof logger !== 'object' || typeof logger.log !== 'function') {
    throw typeError('The "options.logger" argument must be an object with a log(level, message) method');
  }
  return (level, message) => {
    try {
      logger.log(level, message);
    } catch {
      // A broken logger must not break the monitors.
    }
  };
}

function describe(err) {
  return err && err.stack ? err.stack : String(err);
}

module.exports = { typeError, checkOptions, checkFunction, makeLog, describe };
