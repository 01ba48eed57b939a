'use strict';
// Every LAGWATCH_* variable that `lagwatch/register` reads, in one table: register reads each
// through it, docs/api.md lists them (test/register.test.js checks that list against this one),
// and a setupAllMonitors() under register names the variable of each option it was given. A bad
// value is said on stderr and the default kept.
const { nearest } = require('./util');

const ENV = [
  {
    name: 'LAGWATCH_BLOCK_MS',
    option: 'blocks',
    doc: 'report blocks of the loop of at least this many ms (50 or more; unset or `0`: no blocks), one line each, and the blocking profile at the end',
  },
  {
    name: 'LAGWATCH_STACKS',
    option: 'stacks',
    doc: '`1` (default): the stack thread takes a hang\'s and a block\'s stack; `0`: no stack thread',
  },
  {
    name: 'LAGWATCH_HANG_LINE',
    option: 'hangLine',
    doc: '`1` (default): while a hang runs, one line on stderr says so (its length, cause and top frames so far); `0`: only the line at its end',
  },
  {
    name: 'LAGWATCH_WORKERS',
    option: null,
    doc: '`0` (default): the main thread only (a worker\'s busy loop is its work); `1`: every worker thread too, each line naming it (`lagwatch: worker 3 (resizer): …`)',
  },
  {
    name: 'LAGWATCH_LOG_FORMAT',
    option: null,
    doc: '`text` (default): lagwatch\'s lines as text; `json`: each one a JSON object on a line, as pino writes them (`level`, `time`, `pid`, `hostname`, `msg`), with `name: "lagwatch"`, its `thread`, the process\'s `cluster` or `instance`, and the report\'s own fields (`stall`, `block`, `profile`)',
  },
  {
    name: 'LAGWATCH_STATE_DIR',
    option: 'stateDir',
    doc: 'where running hangs are recorded, for the fatal-hang report of the next run (default: one per user and app, docs/diagnosis.md; `0`: none)',
  },
  {
    name: 'LAGWATCH_PROFILE_FILE',
    option: null,
    doc: 'the blocking profile is written there as JSON at the end (exit, or a signal), not to stderr: a new file of mode 0600 in a directory of the user\'s own, never through a link (a directory others can write is refused: stderr then)',
  },
  {
    name: 'LAGWATCH_PROMETHEUS_PORT',
    option: null,
    doc: 'alias of `OTEL_EXPORTER_PROMETHEUS_PORT` (used when that is unset)',
  },
  {
    name: 'LAGWATCH_PROMETHEUS_HOST',
    option: null,
    doc: 'alias of `OTEL_EXPORTER_PROMETHEUS_HOST` (used when that is unset)',
  },
  {
    name: 'LAGWATCH_CLUSTER_PRIMARY',
    option: null,
    doc: 'not a setting: set by `register` in a cluster\'s primary that serves the metrics port (its pid), for the workers it forks, which leave the port to it (docs/metrics.md, several processes)',
  },
  {
    name: 'LAGWATCH_ADDON',
    option: null,
    doc: 'the path of another build of the addon to load (a sanitizer build, say); read by `lagwatch` itself, with or without `register`. ' +
      'A file that does not load as an addon is never run: one line says why, and the package\'s own addon is used',
  },
];
const NAMES = ENV.map((v) => v.name);

// The LAGWATCH_* variables of `env` that are none of the table's, each with the nearest name:
// one line each. LAGWATCH_TEST_* belong to the test build of the addon.
function unknownFrom(env, say) {
  for (const name of Object.keys(env)) {
    if (!name.startsWith('LAGWATCH_') || NAMES.includes(name) || name.startsWith('LAGWATCH_TEST_')) continue;
    const near = nearest(name, NAMES);
    say(`${name} is not a lagwatch setting${near === null ? '' : ` (did you mean ${near}?)`}: ignored`);
  }
}

// The variables of the table for the options given to a setupAllMonitors() under register.
function variablesFor(options) {
  const keys = options !== null && typeof options === 'object' ? Object.keys(options) : [];
  return ENV.filter((v) => v.option !== null && keys.includes(v.option)).map((v) => v.name);
}

// A switch of the table: '0' or '1'; another value is said and `fallback` kept.
function switchFrom(env, name, fallback, say, what) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (raw.trim() === '1') return true;
  if (raw.trim() === '0') return false;
  say(`${name} must be 0 or 1, not ${JSON.stringify(raw)}: ${fallback ? 1 : 0} is used (${what} ${fallback ? 'on' : 'off'})`);
  return fallback;
}

// LAGWATCH_STACKS: on by default.
const stacksFrom = (env, say) => switchFrom(env, 'LAGWATCH_STACKS', true, say, 'stacks');
// LAGWATCH_HANG_LINE: on by default.
const hangLineFrom = (env, say) => switchFrom(env, 'LAGWATCH_HANG_LINE', true, say, 'the line while a hang runs');
// LAGWATCH_WORKERS: off by default.
const workersFrom = (env, say) => switchFrom(env, 'LAGWATCH_WORKERS', false, say, 'worker threads');

// LAGWATCH_LOG_FORMAT: 'text' (default) or 'json'; another value is said and text kept.
function logFormatFrom(env, say) {
  const raw = env.LAGWATCH_LOG_FORMAT;
  if (raw === undefined || raw.trim() === '') return 'text';
  const v = raw.trim().toLowerCase();
  if (v === 'text' || v === 'json') return v;
  say(`LAGWATCH_LOG_FORMAT must be text or json, not ${JSON.stringify(raw)}: text is used`);
  return 'text';
}

module.exports = { ENV, stacksFrom, hangLineFrom, workersFrom, logFormatFrom, unknownFrom, variablesFor };
