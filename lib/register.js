'use strict';
// Zero-code set-up: `node -r lagwatch/register app.js` runs every monitor of SPEC §6 on the app's
// threads with no change to the app, and prints one line on stderr per stall episode. Metrics go
// where OpenTelemetry's environment variables say (the SDK's own names, so that a fleet configured
// for OpenTelemetry needs nothing more; lib/exporters.js reads them):
//   OTEL_METRICS_EXPORTER            prometheus, otlp, console, none (a comma-separated list). Unset:
//                                    prometheus if a Prometheus port is set, otlp if an OTLP
//                                    endpoint is set, else none (nothing served, nothing pushed).
//   OTEL_EXPORTER_PROMETHEUS_HOST/_PORT  where /metrics is served (127.0.0.1, 9464);
//                                    LAGWATCH_PROMETHEUS_HOST/_PORT are aliases.
//   OTEL_EXPORTER_OTLP_*             read by the OTLP exporter itself (endpoint, headers, protocol);
//                                    OTEL_METRIC_EXPORT_INTERVAL/_TIMEOUT by the periodic reader.
//   OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES  the resource (target_info in Prometheus).
//   OTEL_SDK_DISABLED=true           no metrics exported (the monitors and stderr lines go on).
// Its own LAGWATCH_* variables are the table of lib/env.js. The SDK and exporters are optional peer
// dependencies: when one is missing, one line says what to install and the monitors run without
// those metrics. A bad setting prints one clear line and the
// app still runs. Nothing register starts keeps the app alive. require('lagwatch/register')
// returns the monitor set (or null if it could not start); the app reaches it with
// lagwatch.current().
const lagwatch = require('./index');
const native = require('./native');
const { printable, processRole, processTag } = require('./util');
const { formatStack } = require('./metrics');
const { meterFrom } = require('./exporters');
const { stacksFrom, hangLineFrom, workersFrom, logFormatFrom, unknownFrom } = require('./env');

// A worker thread's lines name it ("lagwatch: worker 3 (resizer): …"); a line without a thread
// is the main thread's, as most are.
const THREAD = (() => {
  const wt = require('worker_threads');
  if (wt.isMainThread) return '';
  const name = typeof wt.threadName === 'string' && wt.threadName !== '' ? ` (${printable(wt.threadName)})` : '';
  return `worker ${wt.threadId}${name}: `;
})();
// LAGWATCH_LOG_FORMAT: 'text' until register has read it.
let logFormat = 'text';
// Pino's numbers for the levels of lagwatch's lines.
const LEVEL = { info: 30, warn: 40, error: 50 };

// The first members of a JSON line (pino's `level`, `pid`, `hostname`, then lagwatch's name, the
// thread, the process among several), as an object.
function jsonHead(level) {
  return { level, pid: process.pid, hostname: require('os').hostname(), name: 'lagwatch', thread: native.thread, ...processRole() };
}

// One line of lagwatch's. As text: whatever it carries from the world (a path, an error's text, a
// name) is printed escaped, newlines included, so that nothing starts a line of its own; `frames`,
// a stall's stack, on the lines after it (lib/metrics.js formatStack escapes its names); a
// process that is not alone (a cluster's, PM2's) named first (lib/util.js processTag). As JSON
// (LAGWATCH_LOG_FORMAT=json): one object, the report itself in `fields` ({ stall }, { block },
// { profile }).
function lineOf(message, frames = '', fields = null, level = LEVEL.warn) {
  if (logFormat === 'json') {
    const { level: l, pid, hostname, ...rest } = jsonHead(level);
    return `${JSON.stringify({ level: l, time: Date.now(), pid, hostname, ...rest, msg: message, ...fields })}\n`;
  }
  return `lagwatch: ${processTag()}${THREAD}${printable(message)}${frames}\n`;
}

function say(message, frames = '', fields = null, level = LEVEL.warn) {
  process.stderr.write(lineOf(message, frames, fields, level));
}

// ", cause: starved (run queue 5200 ms, cpu 600 ms of 5800 ms)": the dominant part first, then
// the other parts that count, of the span the worker measured (SPEC §12).
function describeCause(cause) {
  if (!cause) return '';
  const parts = [['cpu', cause.cpuMs], ['gc', cause.gcMs], ['blocked', cause.blockedMs],
    ['run queue', cause.runQueueMs], ['throttled', cause.throttledMs]]
    .filter(([, ms]) => ms !== null && ms >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${Math.round(ms)} ms`);
  return `, cause: ${cause.dominant} (${parts.join(', ')} of ${Math.round(cause.spanMs)} ms)`;
}

// The app's innermost frames (Node's own internals left out), on the lines after the stall's.
function describeStack(stack) {
  if (!stack) return '';
  const app = stack.filter((f) => !f.url.startsWith('node:'));
  return app.length ? `\n${formatStack(app, 3)}` : '';
}

// "block of 301 ms at renderReport (/srv/server.js:6) < …": where it ran, with stacks (its
// innermost frames outside Node's own, as the profile names its sites), and the blocks over the
// budget since the last line.
function describeBlock(b) {
  const { where } = require('./blocking');
  let at = '';
  if (Array.isArray(b.stack)) at = ` at ${where(b.stack)}`;
  else if (typeof b.stackMissing === 'string') at = ` (no stack: ${b.stackMissing})`;
  return `block of ${Math.round(b.durationMs)} ms${at}${b.hang ? ' (a hang: its stall follows)' : ''}` +
    `${b.unreported > 0 ? ` (${b.unreported} more since the last report, over the budget)` : ''}`;
}

// One stall's line. A fatal hang (a process that died hung, or a worker thread terminated hung,
// reported by this one from its record) says when it began on the wall clock, which process and
// thread, and who saw it: the worker thread that wrote its record (no JS monitor of the hung
// thread lived to judge it).
function describeStall(s, conditions) {
  const ms = Math.round(s.durationMs);
  const tail = describeCause(s.cause);
  if (!s.fatal) return `${s.kind} stall of ${ms} ms (${s.monitors.join(', ')})${tail}`;
  const began = new Date(Date.now() - conditions.now() + s.start).toISOString();
  const seen = s.monitors.length > 0 ? s.monitors.join(', ') : 'the worker thread';
  const t = s.thread;
  const worker = t !== null && t.id !== 0 ? `worker ${t.id}${typeof t.name === 'string' && t.name !== '' ? ` (${t.name})` : ''}` : null;
  const what = s.terminated ? `${worker || 'a thread'} of pid ${s.pid} was terminated hung` :
    `the process died hung${worker === null ? '' : ` in ${worker}`}, pid ${s.pid}`;
  return `fatal ${s.kind} stall of ${ms} ms at ${began} (${what}; seen by ${seen})${tail}`;
}

// Where LAGWATCH_PROFILE_FILE is written: its directory opened and judged at setup, as the state
// directory is (src/driver/ownfiles.h: the user's own, not writable by group or others), the file
// created new (never through a link, never into a file or FIFO someone else made), mode 0600,
// then renamed over the name. null (said once) when there is none or it cannot be used: the
// profile then goes to stderr, nothing lost.
function profileTarget(env) {
  const file = env.LAGWATCH_PROFILE_FILE;
  if (file === undefined || file === '') return null;
  const path = require('path');
  const full = path.resolve(file);
  let opened;
  try {
    opened = native.ownDirOpen(path.dirname(full));
  } catch (err) {
    opened = { why: err.message };
  }
  if (opened.why === undefined) return { handle: opened.handle, name: path.basename(full), file };
  const refused = /^[A-Z0-9_]+$/.test(opened.why) ? opened.why : `its directory is refused: ${opened.why}`;
  say(`cannot write LAGWATCH_PROFILE_FILE=${file}: ${refused} (the blocking profile goes to stderr)`);
  return null;
}

// At the set's end (exit, or a signal that ends the process), after it has judged every block it
// held: the blocking profile (lib/blocking.js) as JSON to LAGWATCH_PROFILE_FILE, or its top call
// sites to stderr. Also at a signal the app handles itself, the profile so far; then at exit again
// (the file rewritten; on stderr only if blocks came since).
function writeProfile(m, target, written) {
  const profile = m.blockingProfile();
  if (profile.blocks === written.blocks && target === null) return;
  written.blocks = profile.blocks;
  if (target !== null) {
    const failed = native.ownDirWrite(target.handle, target.name, `${JSON.stringify(profile, null, 2)}\n`);
    if (failed === null) return;
    say(`cannot write LAGWATCH_PROFILE_FILE=${target.file}: ${failed} (the blocking profile goes to stderr)`);
  }
  if (profile.blocks === 0) return;
  if (logFormat === 'json') {
    say(`blocking profile: ${profile.blocks} block(s), ${Math.round(profile.totalMs)} ms blocked in all`, '', { profile }, LEVEL.info);
    return;
  }
  // Its lines named as say() names them.
  const text = require('./blocking').format(profile).replace(/^lagwatch: /gm, `lagwatch: ${processTag()}${THREAD}`);
  process.stderr.write(`${text}\n`);
}

function setup(exported, env, blocks) {
  const options = {
    meter: exported && exported.meter,
    metricProducers: exported && exported.producers,
    // The stack thread costs nothing while the loop is healthy; LAGWATCH_STACKS=0 turns it off.
    stacks: stacksFrom(env, say),
    hangLine: hangLineFrom(env, say),
    // Fatal hangs (lib/fatal.js): LAGWATCH_STATE_DIR, or the default per app; '0' turns it off.
    stateDir: env.LAGWATCH_STATE_DIR === '0' ? false : env.LAGWATCH_STATE_DIR || undefined,
    logger: { log: (level, message) => { if (level === 'error' || level === 'warn') say(message); } },
    blocks,
  };
  const m = lagwatch.setupAllMonitors(options);
  m._hangLineAsked = options.hangLine;
  return m;
}

function register(env = process.env) {
  // lagwatch's own threads (stacks, debugger, the metrics port) are no app threads to monitor.
  const { workerData, isMainThread } = require('worker_threads');
  if (workerData && typeof workerData.lagwatchOwnThread === 'string') return null;
  // The app's worker threads inherit `-r lagwatch/register`. A worker's busy loop is its work, not
  // the app's hang: register monitors the main thread only, unless LAGWATCH_WORKERS=1.
  logFormat = logFormatFrom(env, say);
  if (!isMainThread && !workersFrom(env, say)) return null;
  unknownFrom(env, say);
  let exported;
  try {
    // Metrics are the main thread's to export (one server, one push); a worker's set records to
    // the global API's meter, as a library's would.
    if (isMainThread) exported = meterFrom(env, { say, infoLine: (text) => lineOf(text, '', null, LEVEL.info) });
  } catch (err) {
    say(`cannot export metrics: ${err && err.message} (monitoring goes on)`);
  }
  // Blocks: LAGWATCH_BLOCK_MS, the threshold; a bad one is said, and the rest runs.
  let blocks;
  if (env.LAGWATCH_BLOCK_MS !== undefined && env.LAGWATCH_BLOCK_MS !== '' && env.LAGWATCH_BLOCK_MS !== '0') {
    blocks = { thresholdMs: Number(env.LAGWATCH_BLOCK_MS) };
    try {
      native.optionCheck('monitors', 'blocks.thresholdMs', blocks.thresholdMs); // the core's range
    } catch (err) {
      say(`LAGWATCH_BLOCK_MS=${env.LAGWATCH_BLOCK_MS}: ${err.message} (blocks are not reported)`);
      blocks = undefined;
    }
  }
  try {
    const m = setup(exported, env, blocks);
    m._byRegister = true;
    const responder = exported ? exported.responder : null;
    if (responder !== null) {
      responder.setSet(native.monSetId(m._h));
      responder.warm();
    }
    const written = { blocks: 0 };
    if (m._blocksOn) {
      const target = profileTarget(env);
      m._atEnd.push(() => writeProfile(m, target, written));
    }
    m.conditions.on('block', (b) => say(describeBlock(b), '', { block: b }));
    m.conditions.on('stall', (s) => say(describeStall(s, m.conditions), describeStack(s.stack), { stall: s }));
    // The line said from C while a hang runs, as JSON too (its head fixed now).
    if (logFormat === 'json' && m._hangLineAsked && isMainThread) {
      const head = JSON.stringify(jsonHead(LEVEL.warn));
      native.monHangLine(m._h, true, '', head.slice(0, -1));
    }
    return m;
  } catch (err) {
    say(`cannot start the monitors: ${err.message} (the app runs without them)`, '', null, LEVEL.error);
    return null;
  }
}

module.exports = register();
