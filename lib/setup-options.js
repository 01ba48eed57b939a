'use strict';
// setupAllMonitors()'s options, checked and shaped in one place (SPEC §7, §11): the user's object
// against the keys lib/ knows and the core's option table (the binding's optionTables()), flattened
// into the table's names ('driftLag.intervalMs', 'blocks.thresholdMs', 'flushIntervalMs') and
// checked by the binding against the same table (monCheck), before anything is made.
const native = require('./native');
const { CONDITIONS_KEYS } = require('./conditions');
const { typeError, checkOptions, checkKeys } = require('./util');

// The monitors' options of the core's table, with their defaults ('driftLag.intervalMs', ...,
// 'clockDrift.sleepClock', 'flushIntervalMs', 'blocks.thresholdMs'): this file only shapes the
// user's object into these names; the binding checks each value against the table.
const OPTIONS = native.optionTables().monitors;
const NAMES = native.monNames();
// The set's own options of that table ('flushIntervalMs'), passed as they are; `blocks` is shaped
// by blockOptions().
const SET_OPTIONS = Object.keys(OPTIONS).filter((n) => !n.includes('.') && n !== 'blocks');
// The options of setupAllMonitors().
const SETUP_KEYS = [...CONDITIONS_KEYS, 'monitors', ...SET_OPTIONS, 'metricProducers', 'stacks', 'stateDir', 'blocks', 'exitHook', 'hangLine'];
// Each monitor's keys of the table ('intervalMs'), and those of `blocks` ('thresholdMs'), the
// set's, not a monitor's.
const OPTION_KEYS = Object.fromEntries(NAMES.map((n) => [n, []]));
OPTION_KEYS.blocks = [];
for (const option of Object.keys(OPTIONS)) {
  const dot = option.indexOf('.');
  if (dot > 0) OPTION_KEYS[option.slice(0, dot)].push(option.slice(dot + 1));
}

// { driftLag: { intervalMs: 10 }, worker: false } -> which run, and the flat native options.
function monitorOptions(monitors) {
  const m = checkKeys(checkOptions(monitors, 'options.monitors'), NAMES, 'options.monitors');
  const enabled = new Set(NAMES);
  const flat = {};
  for (const name of Object.keys(m)) {
    const v = m[name];
    if (v === false) {
      enabled.delete(name);
    } else if (v !== true && v !== undefined) {
      const opts = checkKeys(checkOptions(v, `options.monitors.${name}`), OPTION_KEYS[name], `options.monitors.${name}`);
      for (const key of Object.keys(opts)) {
        flat[`${name}.${key}`] = opts[key];
      }
    }
  }
  return { enabled, flat };
}

// `blocks: true | { thresholdMs, maxReportsPerMinute }` -> the flat native options (the core
// checks the ranges). Blocks are loopBlock's long iterations: they need that monitor.
function blockOptions(blocks, enabled, flat, stacks) {
  if (blocks === undefined || blocks === false) return;
  // `blocks.stacks`, the worker's watch of each block while it runs (its cause, its stack and
  // samples), follows the set's `stacks` unless given; it needs the set's stack thread.
  flat['blocks.stacks'] = stacks;
  if (blocks !== true) {
    const b = checkKeys(checkOptions(blocks, 'options.blocks'), OPTION_KEYS.blocks, 'options.blocks');
    for (const key of Object.keys(b)) {
      if (b[key] !== undefined) flat[`blocks.${key}`] = b[key];
    }
  }
  if (!enabled.has('loopBlock')) {
    const err = new RangeError('The "options.blocks" argument needs the loopBlock monitor, which "options.monitors" turns off');
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  if (flat['blocks.stacks'] === true && !stacks) {
    const err = new RangeError('The "options.blocks.stacks" argument needs "options.stacks": true (the stack thread)');
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  flat.blocks = true;
}

// The user's options of setupAllMonitors(), checked: { o (the options object), enabled (the
// monitors that run), flat (the native options by the table's names) }. Throws the TypeError or
// RangeError that names the argument.
function setupOptions(options) {
  const o = checkKeys(checkOptions(options), SETUP_KEYS);
  for (const name of ['exitHook', 'hangLine', 'stacks']) {
    if (o[name] !== undefined && typeof o[name] !== 'boolean') {
      throw typeError(`The "options.${name}" argument must be of type boolean`);
    }
  }
  if (o.stateDir !== undefined && o.stateDir !== false && (typeof o.stateDir !== 'string' || o.stateDir === '')) {
    throw typeError('The "options.stateDir" argument must be a non-empty string or false');
  }
  if (o.blocks !== undefined && typeof o.blocks !== 'boolean' && (o.blocks === null || typeof o.blocks !== 'object')) {
    throw typeError('The "options.blocks" argument must be of type boolean or an object');
  }
  const { enabled, flat } = monitorOptions(o.monitors);
  blockOptions(o.blocks, enabled, flat, o.stacks === true);
  for (const name of SET_OPTIONS) if (o[name] !== undefined) flat[name] = o[name];
  native.monCheck(flat);
  return { o, enabled, flat };
}

// An option's value in `flat`: as given, else the table's default.
function optionValue(flat, name) {
  return flat[name] === undefined ? OPTIONS[name].default : flat[name];
}

module.exports = { setupOptions, optionValue };
