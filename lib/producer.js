'use strict';
// The histograms of recorded samples (SPEC §10: one per monitor, and the worker's self-lag) as an
// OpenTelemetry SDK MetricProducer: each collection reads the aggregates the C core keeps (count,
// sum, min, max and buckets, cumulative from start) in one native call, so that no JS runs per
// sample on the way to OpenTelemetry. The OpenTelemetry API has no way to record an
// aggregate into a histogram, and an observable instrument cannot be one: a MetricProducer,
// given to an SDK reader (`metricProducers`), is the SDK's own way to add data made elsewhere.
//
//   const producer = lagwatch.createMetricProducer();
//   const reader = new PeriodicExportingMetricReader({ exporter, metricProducers: [producer] });
//   const provider = new MeterProvider({ readers: [reader] });
//   lagwatch.setupAllMonitors({ meter: provider.getMeter('app'), metricProducers: [producer] });
//
// A set given producers records none of these histograms on its meter (they would be exported
// twice); its other metrics stay on the meter. The SDK's types are not loaded: the enums below
// are the values of @opentelemetry/sdk-metrics 1.x and 2.x (DataPointType, AggregationTemporality)
// and @opentelemetry/api (ValueType).
const native = require('./native');
const { typeError, checkOptions, checkKeys } = require('./util');
const { version } = require('./otel');
const { HISTOGRAMS, BOUNDS } = require('./histograms');
const { addInto, dense } = require('./exphist');

// A bad value: RangeError with the code docs/api.md promises, as the binding's.
function rangeError(message) {
  const err = new RangeError(message);
  err.code = 'ERR_OUT_OF_RANGE';
  return err;
}

const DATA_POINT_HISTOGRAM = 0;
const DATA_POINT_EXPONENTIAL_HISTOGRAM = 1;
const TEMPORALITY_DELTA = 0;
const TEMPORALITY_CUMULATIVE = 1;
const VALUE_TYPE_DOUBLE = 1;

const AGGREGATIONS = ['explicit', 'exponential'];
const TEMPORALITIES = ['cumulative', 'delta'];

// OpenTelemetry's HrTime ([seconds, nanoseconds] since the epoch) of this thread's `ms`.
function hrTime(ms) {
  const t = performance.timeOrigin + ms;
  const s = Math.floor(t / 1000);
  return [s, Math.min(999999999, Math.round((t - s * 1000) * 1e6))];
}

// An exponential aggregate brought to the coarser `scale`: bucket i becomes i >> (its scale -
// scale), as OpenTelemetry downscales (the core only ever lowers a scale, so a later aggregate is
// never finer than an earlier one).
function downscaled(a, scale) {
  const by = a.scale - scale;
  if (by <= 0 || a.bucketCounts.length === 0) return { offset: a.offset, counts: Array.from(a.bucketCounts) };
  return dense(addInto(new Map(), a.offset, a.bucketCounts, by));
}

// `a` less the earlier aggregate `b` of the same histogram (a delta): counts, sum and buckets.
// Min and max are the aggregate's since start (the core keeps no per-window extremes), so a delta
// point carries them only when `b` is empty.
function minus(a, b) {
  const out = { ...a, count: a.count - b.count, sum: a.sum - b.sum };
  if (b.count > 0) {
    out.min = null;
    out.max = null;
  }
  out.counts = Float64Array.from(a.counts, (n, i) => n - b.counts[i]);
  out.zeroCount = a.zeroCount - b.zeroCount;
  const pa = downscaled(a, a.scale);
  const pb = downscaled(b, a.scale);
  const counts = pa.counts.slice();
  for (let k = 0; k < pb.counts.length; k++) counts[pb.offset + k - pa.offset] -= pb.counts[k];
  out.offset = pa.offset;
  out.bucketCounts = counts;
  return out;
}

// Two aggregates of one histogram added up (a stopped set's last delta and the next set's first),
// at the coarser scale of the two.
function plus(a, b) {
  const scale = Math.min(a.scale, b.scale);
  const pa = downscaled(a, scale);
  const pb = downscaled(b, scale);
  const { offset, counts: bucketCounts } = dense(addInto(addInto(new Map(), pa.offset, pa.counts), pb.offset, pb.counts));
  const ext = (f, x, y) => (x === null ? y : y === null ? x : f(x, y));
  return {
    count: a.count + b.count, sum: a.sum + b.sum,
    min: a.count === 0 ? b.min : b.count === 0 ? a.min : ext(Math.min, a.min, b.min),
    max: a.count === 0 ? b.max : b.count === 0 ? a.max : ext(Math.max, a.max, b.max),
    counts: Float64Array.from(a.counts, (n, i) => n + b.counts[i]),
    scale, zeroCount: a.zeroCount + b.zeroCount, offset, bucketCounts,
  };
}

function pointValue(a, bounds, exponential) {
  const v = { count: a.count, sum: a.sum };
  if (a.min !== null) {
    v.min = a.min;
    v.max = a.max;
  }
  if (!exponential) {
    v.buckets = { boundaries: bounds.slice(), counts: Array.from(a.counts) };
    return v;
  }
  // Empty buckets at either end are left out (a delta's may be).
  const counts = Array.from(a.bucketCounts);
  let lo = 0;
  let hi = counts.length;
  while (lo < hi && counts[lo] === 0) lo++;
  while (hi > lo && counts[hi - 1] === 0) hi--;
  // With no bucket the scale means nothing; the SDK's aggregator then says 0, and so does this.
  v.scale = lo < hi ? a.scale : 0;
  v.zeroCount = a.zeroCount;
  v.positive = { offset: a.offset + lo, bucketCounts: counts.slice(lo, hi) };
  v.negative = { offset: 0, bucketCounts: [] };
  return v;
}

class MetricProducer {
  constructor(options) {
    const o = checkKeys(checkOptions(options), ['aggregation', 'temporality']);
    const aggregation = o.aggregation === undefined ? 'explicit' : o.aggregation;
    const temporality = o.temporality === undefined ? 'cumulative' : o.temporality;
    if (typeof aggregation !== 'string') throw typeError('The "options.aggregation" argument must be of type string');
    if (!AGGREGATIONS.includes(aggregation)) {
      throw rangeError(`The "options.aggregation" argument must be one of ${AGGREGATIONS.join(', ')}`);
    }
    if (typeof temporality !== 'string') throw typeError('The "options.temporality" argument must be of type string');
    if (!TEMPORALITIES.includes(temporality)) {
      throw rangeError(`The "options.temporality" argument must be one of ${TEMPORALITIES.join(', ')}`);
    }
    this.aggregation = aggregation;
    this.temporality = temporality;
    this._set = null;     // the monitor set it reads, while that runs
    this._final = null;   // the aggregates at that set's stop()
    this._startMs = null; // when it began to export the set's histograms
    this._last = null;    // delta: the aggregates and time of the previous collection
    this._carry = null;   // delta: what a stopped set recorded after its last collection
  }

  // setupAllMonitors: this set's histograms from now on (a producer serves one set at a time; a
  // new set after the previous one stopped starts new series).
  _bind(set) {
    if (this._set !== null) {
      throw rangeError('The "options.metricProducers" argument holds a producer that already serves a running monitor set');
    }
    // Delta: what the previous set recorded after this producer's last collection goes out with
    // the next one (nothing is lost between two sets); cumulative: new series start.
    if (this.temporality === 'delta' && this._final !== null) {
      const since = this._last;
      const carry = {};
      for (const [key] of HISTOGRAMS) carry[key] = since === null ? this._final[key] : minus(this._final[key], since.aggs[key]);
      this._carry = { aggs: carry, ms: since === null ? this._startMs : since.ms };
    }
    this._set = set;
    this._final = null;
    this._startMs = native.now();
    this._last = null;
  }

  // The set's stop(): its aggregates `last` no longer change; keep them, let the set go.
  _unbind(set, last) {
    if (this._set !== set) return;
    this._final = last;
    this._set = null;
  }

  // MetricProducer.collect() of @opentelemetry/sdk-metrics: one ScopeMetrics 'lagwatch' with the
  // six histograms (none before a set is given it). The SDK keeps its own resource.
  async collect() {
    const aggs = this._set !== null ? native.monAggregates(this._set._h) : this._final;
    const scopeMetrics = [];
    if (aggs !== null) {
      const nowMs = native.now();
      const end = hrTime(nowMs);
      const delta = this.temporality === 'delta';
      const carry = delta ? this._carry : null;
      const start = hrTime(carry !== null ? carry.ms : delta && this._last !== null ? this._last.ms : this._startMs);
      const exponential = this.aggregation === 'exponential';
      const metrics = HISTOGRAMS.map(([key, name, description, unit, bounds]) => {
        let a = delta && this._last !== null ? minus(aggs[key], this._last.aggs[key]) : aggs[key];
        if (carry !== null) a = plus(carry.aggs[key], a);
        return {
          descriptor: { name, description, unit, valueType: VALUE_TYPE_DOUBLE, type: 'HISTOGRAM',
            advice: { explicitBucketBoundaries: bounds } },
          aggregationTemporality: delta ? TEMPORALITY_DELTA : TEMPORALITY_CUMULATIVE,
          dataPointType: exponential ? DATA_POINT_EXPONENTIAL_HISTOGRAM : DATA_POINT_HISTOGRAM,
          dataPoints: [{ startTime: start, endTime: end, attributes: {}, value: pointValue(a, bounds, exponential) }],
        };
      });
      if (delta) {
        this._last = { aggs, ms: nowMs };
        this._carry = null;
      }
      scopeMetrics.push({ scope: { name: 'lagwatch', version: version() }, metrics });
    }
    return { resourceMetrics: { resource: { attributes: {} }, scopeMetrics }, errors: [] };
  }
}

function createMetricProducer(options) {
  return new MetricProducer(options);
}

// setupAllMonitors' `metricProducers`: an array of producers made by createMetricProducer(), none
// of which serves a running set.
function checkProducers(producers) {
  if (producers === undefined) return [];
  if (!Array.isArray(producers) || !producers.every((p) => p instanceof MetricProducer)) {
    throw typeError('The "options.metricProducers" argument must be an array of producers made by lagwatch.createMetricProducer()');
  }
  // Checked before the set exists (a call that fails changes nothing); _bind says it again.
  if (producers.some((p) => p._set !== null)) {
    throw rangeError('The "options.metricProducers" argument holds a producer that already serves a running monitor set');
  }
  return [...new Set(producers)];
}

module.exports = { MetricProducer, createMetricProducer, checkProducers, HISTOGRAMS, BOUNDS };
