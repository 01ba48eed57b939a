'use strict';
// `lagwatch/prom-client`: lagwatch's metrics in an app's own prom-client registry (SPEC §14), beside
// collectDefaultMetrics() on the app's own /metrics, with no second port and no otel_scope_*
// labels.
//
//   const client = require('prom-client');
//   client.collectDefaultMetrics();
//   lagwatch.setupAllMonitors();
//   require('lagwatch/prom-client').collectLagwatchMetrics(); // into client.register
//
// Each metric is read when the registry is scraped, from what the core keeps: the discard counts,
// stats() (episodes, jumps, causes, blocks), the worker's counts, the main thread's times, the
// loop's time and driftLag's delay window, and the six histograms of recorded samples from the
// core's aggregates (as a MetricProducer reads them: no JS per sample). The durations of episodes,
// worker hangs and blocks, which the core reports one event each and keeps no aggregate of, are
// added to histograms here as their events arrive, as the OpenTelemetry meter records them.
//
// The names, labels and meaning are those of lagwatch's Prometheus exposition (lib/prometheus.js,
// protobuf): counters as their instruments are named, without `_total` (prom-client writes none in
// Prometheus's text format), so that the queries of docs/metrics.md select them as written;
// histograms as classic `_bucket{le}`/`_sum`/`_count` series on lagwatch's boundaries, since
// prom-client has no native histograms; the nodejs.eventloop.* instruments as
// nodejs_eventloop_*. prom-client is an optional peer dependency: loaded only for its global
// `register`, when no registry is given.
//
// The metric objects follow prom-client's metric interface (name, help, type, aggregator, get(),
// reset()), which its Registry reads for the text format, getMetricsAsJSON() and cluster
// aggregation, in prom-client 14 and 15 alike.
const native = require('./native');
const { typeError, checkOptions, checkKeys } = require('./util');
const { HISTOGRAMS, BOUNDS } = require('./histograms');
const { currentSet } = require('./monitors');

// The kinds of a stall episode and of a clock jump, and a hang's causes, as the core names them.
const STALL_KINDS = native.stallKinds();
const JUMP_KINDS = native.jumpKinds();
const CAUSES = native.causeNames();
const MAIN_THREAD_STATES = [['cpuMs', 'cpu'], ['runQueueMs', 'run_queue'], ['throttledMs', 'throttled']];
const DELAY_STATS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'];
// Electron reports a window unresponsive after about 1 s of no answer (as lib/metrics.js).

// One metric as prom-client's Registry reads it: `read()` returns its values ([{ labels, value,
// metricName? }]) at each scrape.
class Metric {
  constructor(name, help, type, read, aggregator = 'sum') {
    this.name = name;
    this.help = help;
    this.type = type;
    this.aggregator = aggregator;
    this.read = read;
  }

  async get() {
    return { name: this.name, help: this.help, type: this.type, values: this.read(), aggregator: this.aggregator };
  }

  // registry.resetMetrics(): what the core counts cannot be reset from here.
  reset() {}
}

// A classic histogram's series from explicit-bucket counts (bucket i: b[i-1] < v <= b[i], the last
// one above every boundary), as prom-client writes its own.
function histogramValues(name, labels, bounds, counts, sum, count) {
  const out = [];
  let cumulative = 0;
  for (let i = 0; i < bounds.length; i++) {
    cumulative += counts[i];
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bounds[i] }, value: cumulative });
  }
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count });
  out.push({ metricName: `${name}_sum`, labels, value: sum });
  out.push({ metricName: `${name}_count`, labels, value: count });
  return out;
}

// Durations that arrive one event each, by label set: bucket counts, sum and count.
class EventHistogram {
  constructor(name, bounds, primed = []) {
    this.name = name;
    this.bounds = bounds;
    this.series = new Map();
    for (const labels of primed) this.series.set(JSON.stringify(labels), this.empty(labels));
  }

  empty(labels) {
    return { labels, counts: new Array(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  observe(labels, value) {
    const key = JSON.stringify(labels);
    if (!this.series.has(key)) this.series.set(key, this.empty(labels));
    const s = this.series.get(key);
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  values() {
    return [...this.series.values()].flatMap((s) => histogramValues(this.name, s.labels, this.bounds, s.counts, s.sum, s.count));
  }
}

// Counts that arrive one event each, by label set.
class EventCounter {
  constructor(primed = []) {
    this.series = new Map();
    for (const labels of primed) this.series.set(JSON.stringify(labels), { labels, value: 0 });
  }

  add(labels) {
    const key = JSON.stringify(labels);
    if (!this.series.has(key)) this.series.set(key, { labels, value: 0 });
    this.series.get(key).value++;
  }

  values() {
    return [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
  }
}

// What one monitor set exports into one registry: the events it records, and the set's
// aggregates, kept when the set stops (as a MetricProducer keeps them).
class PromSink {
  constructor(set) {
    this.set = set;
    this.final = null; // the histograms of recorded samples at the set's stop()
    this.stallDuration = new EventHistogram('lag_stall_duration_histogram', BOUNDS.stall, STALL_KINDS.map((kind) => ({ kind })));
    this.hangDuration = new EventHistogram('lag_worker_hang_duration_histogram', BOUNDS.stall, [{}]);
    this.blockDuration = new EventHistogram('lag_block_duration_histogram', BOUNDS.block, set._blocksOn ? [{}] : []);
    this.blocks = new EventCounter(set._blocksOn ? [...CAUSES, 'unknown'].map((cause) => ({ cause })) : []);
    this.unresponsive = new EventCounter();
    this.unresponsiveDuration = new EventHistogram('lag_renderer_unresponsive_duration_histogram', BOUNDS.stall);
    this.processGone = new EventCounter();
    this.lastTimes = null; // the main thread's times at the last scrape while the set ran
  }

  // The conditions' events (lib/conditions.js hands each to every metrics sink).
  onStall(stall) {
    this.stallDuration.observe(stall.fatal === true ? { kind: stall.kind, fatal: 'true' } : { kind: stall.kind }, stall.durationMs);
  }

  onWorkerHang(hang) {
    this.hangDuration.observe({}, hang.durationMs);
  }

  onBlock(block) {
    this.blocks.add({ cause: block.cause ? block.cause.dominant : 'unknown' });
    this.blockDuration.observe({}, block.durationMs);
  }

  onRendererUnresponsive(ev) {
    const labels = { window: String(ev.windowId) };
    this.unresponsive.add(labels);
    this.unresponsiveDuration.observe(labels, ev.durationMs);
  }

  onProcessGone(ev) {
    this.processGone.add({ type: ev.type, reason: ev.reason });
  }

  onJump() {}

  // The set's stop() (lib/monitors.js, as for its producers): its aggregates no longer change.
  _unbind(set, last) {
    if (set === this.set) this.final = last;
  }

  aggregates() {
    return this.final !== null ? this.final : native.monAggregates(this.set._h);
  }

  // The metrics of this set, each read at scrape time.
  metrics() {
    const set = this.set;
    const c = set.conditions;
    const stats = () => c.stats();
    const list = [
      new Metric('lag_samples_discarded', 'Samples discarded because their window overlapped an interval (by reason and monitor)',
        'counter', () => native.discardCounts(c._h).map(([monitor, reason, value]) => ({ labels: { reason, monitor }, value }))),
      new Metric('lag_stalls', 'Stall episodes, once each', 'counter', () => {
        const s = stats();
        // stats().stalls.hang counts the fatal hangs of earlier runs too: those are their own series.
        return [
          ...STALL_KINDS.map((kind) => ({ labels: { kind }, value: s.stalls[kind] - (kind === 'hang' ? s.fatalHangs : 0) })),
          { labels: { kind: 'hang', fatal: 'true' }, value: s.fatalHangs },
        ];
      }),
      new Metric('lag_run_hang', 'This process run has had a hang episode of its own (1) or not (0)', 'gauge',
        () => [{ labels: {}, value: stats().hadHang ? 1 : 0 }], 'average'),
      new Metric('lag_stall_duration_histogram', 'Longest sample of each stall episode', 'histogram', () => this.stallDuration.values()),
      new Metric('lag_clock_jumps', 'Clock jumps seen by clockDrift', 'counter',
        () => { const s = stats(); return JUMP_KINDS.map((kind) => ({ labels: { kind }, value: s.jumps[kind] })); }),
      new Metric('lag_worker_hangs', 'Hangs of the main thread flagged by the worker thread', 'counter',
        () => [{ labels: {}, value: set.workerStats().workerHangs.ended }]),
      new Metric('lag_worker_hang_duration_histogram', 'Duration of each hang flagged by the worker thread', 'histogram',
        () => this.hangDuration.values()),
      new Metric('lag_stall_causes', 'Hang episodes by the dominant part of their cause (busy, gc, blocked, starved, throttled)',
        'counter', () => { const s = stats(); return CAUSES.map((cause) => ({ labels: { kind: 'hang', cause }, value: s.causes[cause] })); }),
      new Metric('lag_main_thread_time', 'Time of the main thread by scheduler state: on a CPU, waiting on a run queue, held by its cgroup CPU quota',
        'counter', () => {
          // After stop(), the last reading stays (as the meter's).
          if (!set._stopped) this.lastTimes = native.monTimes(set._h);
          const t = this.lastTimes;
          return t === null ? [] : MAIN_THREAD_STATES.filter(([key]) => t[key] !== null).map(([key, state]) => ({ labels: { state }, value: t[key] / 1000 }));
        }),
      new Metric('lag_renderer_unresponsive', 'Electron windows that became unresponsive, counted when they respond again or close',
        'counter', () => this.unresponsive.values()),
      new Metric('lag_renderer_unresponsive_duration_histogram', 'How long an Electron window was unresponsive', 'histogram',
        () => this.unresponsiveDuration.values()),
      new Metric('lag_process_gone', 'Electron renderers and child processes that went away, by type and reason', 'counter',
        () => this.processGone.values()),
    ];
    if (set._blocksOn) {
      list.push(
        new Metric('lag_blocks', 'Main-thread blocks at or over the block threshold that no evidence explains, once each, by the dominant ' +
          'part of their cause (busy, gc, blocked, starved, throttled; unknown unless blocks.stacks watched them)', 'counter',
        () => this.blocks.values()),
        new Metric('lag_block_duration_histogram', 'Duration of each block', 'histogram', () => this.blockDuration.values()),
      );
    }
    // The histograms of recorded samples, from the core's aggregates.
    for (const [key, name, description, , bounds] of HISTOGRAMS) {
      list.push(new Metric(name, description, 'histogram', () => {
        const a = this.aggregates()[key];
        return histogramValues(name, {}, bounds, a.counts, a.sum, a.count);
      }));
    }
    // OpenTelemetry's semantic-convention event-loop metrics, from recorded samples only, as the
    // meter observes them: the delay statistics of driftLag's samples of the last minute (none
    // when it had no sample) and the utilization of idleAvailability's recorded periods of the
    // last minute (src/core/delaywindow.h: every scraper reads the same), and their time since
    // start.
    for (const k of DELAY_STATS) {
      list.push(new Metric(`nodejs_eventloop_delay_${k}`,
        `Event loop ${k === 'stddev' ? 'standard deviation of the' : k} delay (recorded driftLag samples of the last minute)`,
        'gauge', () => {
          const window = native.monReadDelay(set._h);
          return window.count > 0 ? [{ labels: {}, value: window[k] / 1000 }] : [];
        }, k === 'min' ? 'min' : 'max')); // a cluster's AggregatorRegistry shows the worst process's
    }
    list.push(
      new Metric('nodejs_eventloop_utilization', 'Event loop utilization (recorded idleAvailability periods of the last minute)',
        'gauge', () => {
          const w = native.monReadDelay(set._h);
          const span = w.activeMs + w.idleMs;
          return span > 0 ? [{ labels: {}, value: w.activeMs / span }] : [];
        }, 'average'),
      new Metric('nodejs_eventloop_time', 'Cumulative duration of time the event loop has been in each state (recorded periods)',
        'counter', () => {
          const t = native.monLoopTime(set._h);
          return [{ labels: { nodejs_eventloop_state: 'active' }, value: t.activeMs / 1000 },
            { labels: { nodejs_eventloop_state: 'idle' }, value: t.idleMs / 1000 }];
        }),
    );
    return list;
  }
}

function checkRegistry(register) {
  if (register === undefined) {
    try {
      return require('prom-client').register;
    } catch (err) {
      if (err && err.code === 'MODULE_NOT_FOUND') {
        throw typeError('The "options.register" argument must be a prom-client Registry: prom-client is not installed ' +
          '(npm install prom-client), and no registry was given');
      }
      throw err;
    }
  }
  if (register === null || typeof register !== 'object' || typeof register.registerMetric !== 'function' ||
      typeof register.getSingleMetric !== 'function' || typeof register.removeSingleMetric !== 'function') {
    throw typeError('The "options.register" argument must be a prom-client Registry');
  }
  return register;
}

// lagwatch's metrics into `options.register` (default: prom-client's global register), read from
// `options.set` (default: lagwatch.current(), the running set of this thread). Returns the function
// that takes them out again. A registry that already holds one of the names is refused before any
// is added.
function collectLagwatchMetrics(options) {
  const o = checkKeys(checkOptions(options), ['register', 'set']);
  const set = o.set === undefined ? currentSet() : o.set;
  if (set === undefined) {
    throw typeError('The "options.set" argument must be a monitor set: none runs on this thread ' +
      '(call setupAllMonitors() first, or run under node -r lagwatch/register)');
  }
  if (set === null || typeof set !== 'object' || typeof set.workerStats !== 'function' || set._h === undefined) {
    throw typeError('The "options.set" argument must be a monitor set made by lagwatch.setupAllMonitors()');
  }
  if (set._stopped) {
    const err = new RangeError('The "options.set" argument is a monitor set that has stopped');
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  const register = checkRegistry(o.register);
  const sink = new PromSink(set);
  const metrics = sink.metrics();
  const taken = metrics.filter((m) => register.getSingleMetric(m.name) !== undefined).map((m) => m.name);
  if (taken.length > 0) {
    const err = new RangeError(`The "options.register" argument already has metrics named ${taken.join(', ')} ` +
      '(lagwatch\'s metrics are collected once per registry)');
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
  // What the core keeps for these metrics from now on: the histograms of recorded samples (from
  // the set's start when its producers already asked for them) and driftLag's delay window. The
  // set's stop() hands the sink its final aggregates, as it does its producers.
  native.monKeepAggregates(set._h, true);
  native.monKeepDelay(set._h);
  set._producers.push(sink);
  set.conditions._sinks.push(sink);
  for (const m of metrics) register.registerMetric(m);
  let removed = false;
  return function removeLagwatchMetrics() {
    if (removed) return;
    removed = true;
    for (const m of metrics) if (register.getSingleMetric(m.name) === m) register.removeSingleMetric(m.name);
    const sinks = set.conditions._sinks;
    if (sinks.includes(sink)) sinks.splice(sinks.indexOf(sink), 1);
  };
}

module.exports = { collectLagwatchMetrics };
