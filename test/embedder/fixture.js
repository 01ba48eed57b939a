'use strict';
// Runs in the embedder (test/embedder/embedder.cc): every monitor of lagwatch, as an Electron
// app would set them up, with what they report kept for the test. The test drives it through
// the embedder's stdin: plain "Chromium" tasks (`busy MS`), and `js CODE` tasks that call the
// functions below. Lines of JSON on stdout: { type: 'ready' | 'report', ... }.
const path = require('path');

const lagwatch = require(path.resolve(__dirname, '..', '..'));
const { watchThreads } = require('../schedstat');

function emit(type, data) {
  process.stdout.write(`${JSON.stringify({ type, ...data })}\n`);
}

// The main thread's times on a CPU and waiting for one, and those of the threads lagwatch starts
// (its worker thread), from the kernel's schedstat (test/schedstat.js): what the loop's own
// iterations and the worker's checks can have taken at most, whatever else runs on the machine.
// process.argv[2], if given, is stallThresholdMs (the test takes 2 s, so that its hangs and stops
// last seconds less than at the 5 s default).
const threshold = process.argv[2] === undefined ? {} : { stallThresholdMs: Number(process.argv[2]) };
const watched = watchThreads(() => lagwatch.setupAllMonitors(threshold));
const m = watched.value;
const events = { stall: [], workerHang: [], jump: [] };
for (const name of Object.keys(events)) m.conditions.on(name, (e) => events[name].push({ ...e, seenAt: lagwatch.now() }));
let batches = { loopBlock: [], idleAvailability: [], driftLag: [] };
m.conditions.on('samples', (b) => {
  for (const k of Object.keys(batches)) if (b[k]) batches[k].push(...b[k]);
});

const threadTimes = watched.snapshot;
let since = threadTimes();

function quantile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

// From now on the samples reported are those of what follows.
globalThis.mark = (seq) => {
  m.conditions.flush();
  batches = { loopBlock: [], idleAvailability: [], driftLag: [] };
  events.stall.length = 0;
  events.workerHang.length = 0;
  events.jump.length = 0;
  since = threadTimes();
  emit('marked', { seq, at: lagwatch.now() });
};

globalThis.report = (tag, seq) => {
  m.conditions.flush(); // the batches recorded so far reach the listeners
  const lb = batches.loopBlock;
  const ia = batches.idleAvailability;
  const now = threadTimes();
  emit('report', {
    tag,
    seq,
    at: lagwatch.now(),
    loop: m.workerStats().loop,
    processType: process.type,
    running: Object.fromEntries(Object.entries(m.monitors).map(([k, v]) => [k, v.running])),
    loopBlock: { n: lb.length, p50: quantile(lb, 0.5), p99: quantile(lb, 0.99), max: lb.length ? Math.max(...lb) : null, sum: lb.reduce((a, b) => a + b, 0) },
    thread: { runMs: now.main.runMs - since.main.runMs, waitMs: now.main.waitMs - since.main.waitMs },
    worker: now.added && since.added ? { runMs: now.added.runMs - since.added.runMs, waitMs: now.added.waitMs - since.added.waitMs } : null,
    idleAvailability: { n: ia.length, mean: ia.length ? ia.reduce((a, b) => a + b, 0) / ia.length : null },
    driftLag: { n: batches.driftLag.length, max: batches.driftLag.length ? Math.max(...batches.driftLag) : null },
    events,
    stats: m.conditions.stats(),
    intervals: m.conditions.tracker.intervals(),
    workerStats: m.workerStats(),
  });
};

globalThis.hide = () => m.conditions.setLifecycleState('hidden');

emit('ready', { at: lagwatch.now(), pid: process.pid });
