'use strict';
// OpenTelemetry instruments of SPEC §10, fed by the conditions' events and the monitors' batches.
// The histograms of recorded samples are either recorded here, one record() per sample of the
// batch one JS call per flush brings, or, for a set given MetricProducers (lib/producer.js),
// exported whole from the core's aggregates with no JS per sample. Discards are counted in C and
// read at collection time (an observable counter), so the metric equals stats() exactly and
// costs nothing per sample; so are the event-loop delay statistics.
const native = require('./native');
const { typeError, printable, processRole } = require('./util');
const { defaultMeter, isNoopMeter, createNoopMeter } = require('./otel');

// Bucket boundaries (the core's, core/aggregate.c), given through each histogram's `advice`
// (OpenTelemetry's default buckets stop at 10 000, and a stall can last hours).
const { HISTOGRAMS, BOUNDS } = require('./histograms');
const LAG_BUCKETS = BOUNDS.lag;
// From 1 s: Electron reports a window unresponsive after about 1 s of no answer.
const STALL_BUCKETS = BOUNDS.stall;
const RATIO_BUCKETS = BOUNDS.ratio;

// The histograms of recorded samples (the monitors' and the worker's self-lag), by the key of
// their batch: recorded here from the batches, or exported whole by a MetricProducer.
const SAMPLE_HISTOGRAMS = Object.fromEntries(HISTOGRAMS.map(([key, ...rest]) => [key, rest]));

// "    at fn (url:line:column)" lines, as in Error.stack, at most `max` of them.
function formatStack(frames, max) {
  return frames.slice(0, max).map((f) =>
    `    at ${printable(f.functionName || '<anonymous>')} (${printable(f.url)}:${f.lineNumber}:${f.columnNumber})`).join('\n');
}

// The thread a record is about, by OpenTelemetry's own attribute names (SPEC §14), and its process.
function threadAttributes(attributes, thread) {
  if (thread) {
    attributes['thread.id'] = thread.id;
    if (thread.name !== null) attributes['thread.name'] = thread.name;
  }
  // The process too, when it is one of several (SPEC §14), as its stderr lines name it.
  const role = processRole();
  if (role.instance === undefined && role.cluster === undefined) return;
  attributes['process.pid'] = process.pid;
  if (role.instance !== undefined) attributes['pm2.instance'] = role.instance;
  else if (role.cluster.worker !== undefined) attributes['cluster.worker.id'] = role.cluster.worker;
}

// SPEC §12: the dominant parts of a hang's cause (as the core names them), the lag.stall log
// record's attributes, and lag_main_thread_time's states.
const CAUSES = native.causeNames();
// The kinds of a stall episode and of a clock jump, as the core names them.
const STALL_KINDS = native.stallKinds();
const JUMP_KINDS = native.jumpKinds();
const MAIN_THREAD_STATES = [['cpuMs', 'cpu'], ['runQueueMs', 'run_queue'], ['throttledMs', 'throttled']];
const CAUSE_ATTRIBUTES = [['cpuMs', 'cause.cpu_ms'], ['runQueueMs', 'cause.run_queue_ms'],
  ['throttledMs', 'cause.throttled_ms'], ['blockedMs', 'cause.blocked_ms'], ['gcMs', 'cause.gc_ms']];

function checkMeter(meter) {
  if (meter === undefined) return defaultMeter();
  if (meter === null || typeof meter !== 'object' || typeof meter.createCounter !== 'function' ||
      typeof meter.createHistogram !== 'function' || typeof meter.createObservableCounter !== 'function' ||
      typeof meter.createObservableGauge !== 'function' || typeof meter.addBatchObservableCallback !== 'function') {
    throw typeError('The "options.meter" argument must be an OpenTelemetry Meter');
  }
  return meter;
}

const histogram = (meter, name, description, unit, buckets) =>
  meter.createHistogram(name, { description, unit, advice: { explicitBucketBoundaries: buckets } });

// OpenTelemetry's semantic-convention Node.js event-loop metrics (SPEC §10), from recorded samples
// only: the delay statistics are those of driftLag's recorded lateness (a timer's, as
// monitorEventLoopDelay measures) over the last minute, where @opentelemetry/instrumentation-
// runtime-node resets its histogram at each collection and a second reader would take the first's
// samples (the core keeps the window: min, max, mean and stddev exact, percentiles within
// 1.6 %); utilization (over the same minute) and time come from idleAvailability's recorded
// periods (the C monitors add up each one's idle and active time over its window).
const DELAY_STATS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'];

// The OpenTelemetry context of the span a hang or a block held (lib/trace.js), for its log record,
// so that a backend links it to the trace. The API is loaded only then: the app runs an SDK.
function spanContext(ev) {
  const api = require('@opentelemetry/api');
  return api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId: ev.traceId, spanId: ev.spanId, traceFlags: ev.traceFlags, isRemote: false,
  });
}

class Metrics {
  // `otelLogger`: an OpenTelemetry Logger (@opentelemetry/api-logs) for lag.stall records, or null.
  // `producers`: the histograms of recorded samples go to MetricProducers (lib/producer.js), not
  // to this meter.
  constructor(meter, conditions, otelLogger, producers = false) {
    this.meter = checkMeter(meter);
    this.noop = isNoopMeter(this.meter);
    this.otelLogger = otelLogger;
    if (this.noop) return;
    const m = this.meter;
    let h = conditions._h;
    let snapshot = null; // the counts at dispose: a cumulative counter never goes back
    this.discarded = m.createObservableCounter('lag_samples_discarded', {
      description: 'Samples discarded because their window overlapped an interval (by reason and monitor)',
      unit: '{sample}',
    });
    this.discarded.addCallback((result) => {
      for (const [monitor, reason, n] of snapshot || native.discardCounts(h)) {
        result.observe(n, { reason, monitor });
      }
    });
    // After dispose the counts no longer change: keep them, and let the native object go.
    this.freeze = () => {
      if (h === null) return;
      snapshot = native.discardCounts(h);
      h = null;
    };
    this.stalls = m.createCounter('lag_stalls', { description: 'Stall episodes, once each', unit: '{episode}' });
    // Whether this process run has had a hang of its own (1) or not (0), from its start, as the
    // core counts it (stats().hadHang): across a fleet, avg(lag_run_hang) is the share of runs
    // with a hang (docs/metrics.md).
    this.runHang = m.createObservableGauge('lag_run_hang', {
      description: 'This process run has had a hang episode of its own (1) or not (0)', unit: '1',
    });
    this.runHang.addCallback((result) => result.observe(conditions.stats().hadHang ? 1 : 0));
    this.stallDuration = histogram(m, 'lag_stall_duration_histogram',
      'Longest sample of each stall episode', 'ms', STALL_BUCKETS);
    this.jumps = m.createCounter('lag_clock_jumps', { description: 'Clock jumps seen by clockDrift', unit: '{jump}' });
    this.workerHangs = m.createCounter('lag_worker_hangs', {
      description: 'Hangs of the main thread flagged by the worker thread', unit: '{hang}',
    });
    this.hangDuration = histogram(m, 'lag_worker_hang_duration_histogram',
      'Duration of each hang flagged by the worker thread', 'ms', STALL_BUCKETS);
    // Blocks: every block of the app's, reported one by one or not.
    this.blocks = m.createCounter('lag_blocks', {
      description: 'Main-thread blocks at or over the block threshold that no evidence explains, once each, by the dominant ' +
        'part of their cause (busy, gc, blocked, starved, throttled; unknown unless blocks.stacks watched them)',
      unit: '{block}',
    });
    this.blockDuration = histogram(m, 'lag_block_duration_histogram', 'Duration of each block', 'ms', BOUNDS.block);
    this.rendererUnresponsive = m.createCounter('lag_renderer_unresponsive', {
      description: 'Electron windows that became unresponsive, counted when they respond again or close',
      unit: '{episode}',
    });
    this.rendererUnresponsiveDuration = histogram(m, 'lag_renderer_unresponsive_duration_histogram',
      'How long an Electron window was unresponsive', 'ms', STALL_BUCKETS);
    // SPEC §12: hang episodes by the dominant part of their cause, and the main thread's time by
    // scheduler state (observeMainThread), so that a dashboard shows the share of starvation and
    // quota throttling.
    this.stallCauses = m.createCounter('lag_stall_causes', {
      description: 'Hang episodes by the dominant part of their cause (busy, gc, blocked, starved, throttled)',
      unit: '{episode}',
    });
    this.mainThreadTime = null;
    this.eventLoop = null;
    this.processGone = m.createCounter('lag_process_gone', {
      description: 'Electron renderers and child processes that went away, by type and reason',
      unit: '{process}',
    });
    // Recorded from the batches, one record() per sample, unless producers export them.
    this.samples = {};
    if (!producers) {
      for (const [key, [metric, description, unit, buckets]] of Object.entries(SAMPLE_HISTOGRAMS)) {
        this.samples[key] = histogram(m, metric, description, unit, buckets);
      }
    }
  }

  // Every series that can be known in advance starts at zero. Prometheus's rate() and increase()
  // see a counter's rise only from a sample it already scraped: a series that first appears at 1
  // hides its first episode. Counters are primed with add(0); histograms with record(NaN), which
  // the OpenTelemetry SDK turns into a point of count 0 ("NaN ... should not be counted").
  prime() {
    if (this.noop) return;
    for (const kind of STALL_KINDS) {
      this.stalls.add(0, { kind });
      this.stallDuration.record(NaN, { kind });
    }
    // The hangs of earlier runs that died hung (lib/fatal.js), counted apart, from zero too: the
    // first one reported would otherwise be a series born at 1, which increase() never sees.
    this.stalls.add(0, { kind: 'hang', fatal: true });
    for (const kind of JUMP_KINDS) this.jumps.add(0, { kind });
    for (const cause of CAUSES) this.stallCauses.add(0, { kind: 'hang', cause });
    this.workerHangs.add(0);
    this.hangDuration.record(NaN);
    for (const hist of Object.values(this.samples)) hist.record(NaN);
  }

  onStall(stall) {
    const cause = stall.cause || null;
    // A hang of an earlier process that died hung (lib/fatal.js) carries fatal=true: a dashboard
    // counts the hangs that ended in a kill apart from those that ended.
    const attrs = stall.fatal === true ? { kind: stall.kind, fatal: true } : { kind: stall.kind };
    if (!this.noop) {
      this.stalls.add(1, attrs);
      this.stallDuration.record(stall.durationMs, attrs);
      if (cause !== null) this.stallCauses.add(1, { kind: stall.kind, cause: cause.dominant });
    }
    if (this.otelLogger !== null) {
      const attributes = { kind: stall.kind, duration_ms: stall.durationMs };
      if (stall.fatal === true) {
        attributes.fatal = true;
        attributes['process.pid'] = stall.pid;
        if (stall.terminated === true) attributes.terminated = true; // a worker thread ended hung by its owner
      }
      if (cause !== null) {
        attributes.cause = cause.dominant;
        for (const [key, attr] of CAUSE_ATTRIBUTES) if (cause[key] !== null) attributes[attr] = cause[key];
      }
      if (stall.stack) attributes.stack = formatStack(stall.stack, 20);
      threadAttributes(attributes, stall.thread);
      // Where its time went (lib/profile.js): folded stacks with their sample counts, and the
      // fingerprint that groups the same hang across runs.
      if (typeof stall.fingerprint === 'string') attributes.fingerprint = stall.fingerprint;
      if (stall.profile) attributes.profile = require('./profile').folded(stall.profile);
      const record = {
        eventName: 'lag.stall',
        body: 'lag.stall',
        severityNumber: 13, // WARN
        severityText: 'WARN',
        attributes,
      };
      // The request it blocked (lib/trace.js): the record carries that span's context, so that a
      // backend links the hang to the trace. The API is loaded only then: the app runs an SDK.
      if (typeof stall.traceId === 'string') record.context = spanContext(stall);
      this.otelLogger.emit(record);
    }
  }

  // The main thread's times by state, read when the meter collects, at most once per
  // `minIntervalMs` (a cached reading in between). `read` returns { cpuMs, runQueueMs,
  // throttledMs } (null where unknown; each state counted once) or null.
  observeMainThread(read, minIntervalMs) {
    if (this.noop || this.mainThreadTime !== null) return;
    let last = null;
    let lastAt = -Infinity;
    this.mainThreadTime = this.meter.createObservableCounter('lag_main_thread_time', {
      description: 'Time of the main thread by scheduler state: on a CPU, waiting on a run queue, held by its cgroup CPU quota',
      unit: 's',
    });
    this.mainThreadTime.addCallback((result) => {
      const now = performance.now();
      if (now - lastAt >= minIntervalMs) {
        const t = read();
        if (t !== null) last = t; // after stop(), the last reading stays
        lastAt = now;
      }
      if (last === null) return;
      // Each state counted once (the core takes the quota's part out of the run-queue delay).
      for (const [key, state] of MAIN_THREAD_STATES) {
        if (last[key] !== null) result.observe(last[key] / 1000, { state });
      }
    });
  }

  // The semantic-convention event-loop metrics, from the recorded samples of driftLag and
  // idleAvailability. `readTime` returns the loop's { activeMs, idleMs } over idleAvailability's
  // recorded periods since start; `readDelay` driftLag's recorded lateness ({ count, min, max,
  // mean, stddev, p50, p90, p99 }, ms) and the loop's { activeMs, idleMs } over the last minute
  // (src/core/delaywindow.h: a read takes nothing away, every reader reads the same), counted from
  // when `keepDelay` is called (only a meter that records needs it).
  observeEventLoop(readTime, readDelay, keepDelay) {
    if (this.noop || this.eventLoop !== null) return;
    keepDelay();
    const m = this.meter;
    const gauges = {};
    for (const k of DELAY_STATS) {
      gauges[k] = m.createObservableGauge(`nodejs.eventloop.delay.${k}`, {
        description: `Event loop ${k === 'stddev' ? 'standard deviation of the' : k} delay ` +
          '(recorded driftLag samples of the last minute)',
        unit: 's',
      });
    }
    const utilization = m.createObservableGauge('nodejs.eventloop.utilization', {
      description: 'Event loop utilization (recorded idleAvailability periods of the last minute)',
      unit: '1',
    });
    const time = m.createObservableCounter('nodejs.eventloop.time', {
      description: 'Cumulative duration of time the event loop has been in each state (recorded periods)',
      unit: 's',
    });
    this.eventLoop = true;
    m.addBatchObservableCallback((result) => {
      const delay = readDelay();
      if (delay.count > 0) for (const k of DELAY_STATS) result.observe(gauges[k], delay[k] / 1000);
      const span = delay.activeMs + delay.idleMs;
      if (span > 0) result.observe(utilization, delay.activeMs / span);
      const t = readTime();
      result.observe(time, t.activeMs / 1000, { 'nodejs.eventloop.state': 'active' });
      result.observe(time, t.idleMs / 1000, { 'nodejs.eventloop.state': 'idle' });
    }, [...Object.values(gauges), utilization, time]);
  }

  onJump(jump) {
    if (!this.noop) this.jumps.add(1, { kind: jump.kind });
  }

  onRendererUnresponsive(ev) {
    if (this.noop) return;
    const attrs = { window: String(ev.windowId) };
    this.rendererUnresponsive.add(1, attrs);
    this.rendererUnresponsiveDuration.record(ev.durationMs, attrs);
  }

  onProcessGone(ev) {
    if (!this.noop) this.processGone.add(1, { type: ev.type, reason: ev.reason });
  }

  // Blocks are primed only in a set that reports them.
  primeBlocks() {
    if (this.noop) return;
    for (const cause of [...CAUSES, 'unknown']) this.blocks.add(0, { cause });
    this.blockDuration.record(NaN);
  }

  // Every block is counted; one within the budget of reports (`reported`) is also a lag.block log
  // record, emitted in the context of the span it held (with `blocks.stacks`), as lag.stall is.
  // lag_blocks gets no span or route attribute: their number is unbounded; the per-request view
  // is the log records' and blockingProfile()'s.
  onBlock(block, reported) {
    if (!this.noop) {
      this.blocks.add(1, { cause: block.cause ? block.cause.dominant : 'unknown' });
      this.blockDuration.record(block.durationMs);
    }
    if (this.otelLogger === null || reported !== true) return;
    const attributes = { duration_ms: block.durationMs, cause: block.cause ? block.cause.dominant : 'unknown' };
    if (block.hang) attributes.hang = true;
    if (block.unreported > 0) attributes.unreported = block.unreported;
    if (typeof block.fingerprint === 'string') attributes.fingerprint = block.fingerprint;
    if (block.stack) attributes.stack = formatStack(block.stack, 20);
    if (typeof block.spanName === 'string') attributes.span_name = block.spanName;
    threadAttributes(attributes, block.thread);
    const record = { eventName: 'lag.block', body: 'lag.block', severityNumber: 13, severityText: 'WARN', attributes };
    if (typeof block.traceId === 'string') record.context = spanContext(block);
    this.otelLogger.emit(record);
  }

  onWorkerHang(hang) {
    if (this.noop) return;
    this.workerHangs.add(1);
    this.hangDuration.record(hang.durationMs);
  }

  // One flush of the monitors: every value each monitor recorded since the last one.
  // (Not with producers: then no histogram here, and the batches only reach 'samples' listeners.)
  onBatch(batches, selfLag) {
    if (this.noop) return;
    for (const name of Object.keys(batches)) {
      const hist = this.samples[name];
      if (hist === undefined) continue;
      const values = batches[name];
      for (let i = 0; i < values.length; i++) hist.record(values[i]);
    }
    const hist = this.samples.selfLag;
    if (selfLag !== undefined && hist !== undefined) for (let i = 0; i < selfLag.length; i++) hist.record(selfLag[i]);
  }

  onDispose() {
    if (!this.noop) this.freeze();
  }
}

module.exports = { Metrics, formatStack, createNoopMeter, SAMPLE_HISTOGRAMS, LAG_BUCKETS, STALL_BUCKETS, RATIO_BUCKETS };
