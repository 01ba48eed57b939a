'use strict';
// What a scrape's body is written from, made on the metrics port's own thread (lib/responder.js):
// OpenTelemetry's collected data, as the main thread's readers gave it (plain, lib/prometheus.js),
// becomes io.prometheus.client MetricFamily objects for the protobuf exposition, each
// exponential histogram's delta added to its native series kept here; and a cluster's processes'
// collections become one, each process's points labelled with it (lib/cluster.js gathers them).
// A cluster's worker, which has no port of its own, makes its families on its main thread for
// the primary to merge.
const { AggregationTemporality, DataPointType } = require('@opentelemetry/sdk-metrics');
const { coarser } = require('./exphist');
const { sanitize } = require('./exposition');

const MAX_SCHEMA = 8; // Prometheus's finest native-histogram schema
const MIN_SCHEMA = -4;
// The zero bucket's width. OpenTelemetry's zero bucket holds exact zeros only (a lag of 0 ms, an
// idle share of 0): no width, so that Prometheus reads a quantile inside it as 0, where a width
// would make it a fraction of that width. But Prometheus 2.4x takes a histogram with no
// observation, no bucket and no width for a classic one: an empty histogram keeps the Go client's
// width.
const EMPTY_ZERO_THRESHOLD = 2 ** -128;
// Runs of at most this many empty buckets stay inside a span (a new span costs more).
const MAX_GAP = 2;
const MAX_BUCKETS = 160;

// One native histogram series, the sum of every delta collected: bucket counts by Prometheus
// index (bucket j is (base^(j-1), base^j] at `schema`, base = 2^(2^-schema)).
class NativeSeries {
  constructor() {
    this.schema = MAX_SCHEMA; // the finest, until observations need a coarser one
    this.count = 0;
    this.sum = 0;
    this.zeroCount = 0;
    this.positive = new Map();
    this.negative = new Map();
  }

  // Brings the buckets to the coarser `schema`: bucket j becomes ((j - 1) >> d) + 1.
  downscale(schema) {
    const d = this.schema - schema;
    if (d <= 0) return;
    for (const side of ['positive', 'negative']) {
      const out = new Map();
      for (const [j, n] of this[side]) {
        const k = coarser(j - 1, d) + 1;
        out.set(k, (out.get(k) || 0) + n);
      }
      this[side] = out;
    }
    this.schema = schema;
  }

  // Adds one OpenTelemetry exponential-histogram delta. OpenTelemetry's bucket i at `scale` is
  // (base^i, base^(i+1)]: Prometheus's bucket i + 1 (an OpenTelemetry scale is a Prometheus
  // schema), after i >> (scale - schema) to a coarser schema, as OpenTelemetry itself downscales.
  add(v) {
    this.count += v.count;
    this.sum += v.sum;
    this.zeroCount += v.zeroCount;
    if (v.positive.bucketCounts.length === 0 && v.negative.bucketCounts.length === 0) return;
    this.downscale(Math.max(MIN_SCHEMA, Math.min(this.schema, v.scale)));
    const shift = v.scale - this.schema;
    for (const side of ['positive', 'negative']) {
      const { offset, bucketCounts } = v[side];
      for (let k = 0; k < bucketCounts.length; k++) {
        if (bucketCounts[k] === 0) continue;
        const j = coarser(offset + k, shift) + 1;
        this[side].set(j, (this[side].get(j) || 0) + bucketCounts[k]);
      }
    }
    // As many buckets as OpenTelemetry keeps (160 a side), no more.
    const width = (m) => (m.size ? Math.max(...m.keys()) - Math.min(...m.keys()) + 1 : 0);
    while (this.schema > MIN_SCHEMA && Math.max(width(this.positive), width(this.negative)) > MAX_BUCKETS) {
      this.downscale(this.schema - 1);
    }
  }

  toProto() {
    const pos = spansOf(this.positive);
    const neg = spansOf(this.negative);
    return {
      sampleCount: this.count,
      sampleSum: this.sum,
      schema: this.schema,
      zeroThreshold: this.count === 0 ? EMPTY_ZERO_THRESHOLD : 0,
      zeroCount: this.zeroCount,
      // A histogram with no observations yet keeps a no-op span, as Prometheus asks, so that it
      // is never read as a classic one.
      positiveSpan: pos.spans.length || neg.spans.length ? pos.spans : [{ offset: 0, length: 0 }],
      positiveDelta: pos.deltas,
      negativeSpan: neg.spans,
      negativeDelta: neg.deltas,
    };
  }
}

// Bucket counts by index as Prometheus's spans and deltas (each count minus the previous one).
function spansOf(counts) {
  const indices = [...counts.keys()].sort((a, b) => a - b);
  const spans = [];
  const deltas = [];
  let prevIndex = null;
  let prevCount = 0;
  for (const j of indices) {
    if (prevIndex !== null && j - prevIndex - 1 <= MAX_GAP) {
      // Inside the current span: the empty buckets between, then this one.
      for (let e = prevIndex + 1; e < j; e++) {
        deltas.push(-prevCount);
        prevCount = 0;
      }
      spans[spans.length - 1].length += j - prevIndex;
    } else {
      spans.push({ offset: prevIndex === null ? j : j - prevIndex - 1, length: 1 });
    }
    const n = counts.get(j);
    deltas.push(n - prevCount);
    prevCount = n;
    prevIndex = j;
  }
  return { spans, deltas };
}

// Attributes as io.prometheus.client LabelPairs.
const labelPairs = (attributes) => Object.entries(attributes).map(([name, value]) => ({ name: sanitize(name), value: String(value) }));

function labels(attributes, scope) {
  const out = labelPairs(attributes);
  out.push({ name: 'otel_scope_name', value: scope.name });
  if (scope.version) out.push({ name: 'otel_scope_version', value: scope.version });
  return out;
}

// OpenTelemetry's collected ResourceMetrics as io.prometheus.client MetricFamily objects; each
// exponential histogram's delta is added to its series in `natives` (name -> key -> series), a
// cumulative one replaces it, and every series seen so far is written.
function toFamilies(resourceMetrics, natives) {
  const families = [];
  const resourceLabels = labelPairs(resourceMetrics.resource.attributes);
  families.push({ name: 'target_info', help: 'Target metadata', type: 'GAUGE',
    metric: [{ label: resourceLabels, gauge: { value: 1 } }] });
  for (const { scope, metrics } of resourceMetrics.scopeMetrics) {
    for (const md of metrics) {
      const name = sanitize(md.descriptor.name);
      const help = md.descriptor.description || 'description missing';
      const points = md.dataPoints;
      let family;
      switch (md.dataPointType) {
        case DataPointType.SUM:
          family = { type: md.isMonotonic ? 'COUNTER' : 'GAUGE',
            metric: points.map((p) => ({ label: labels(p.attributes, scope),
              [md.isMonotonic ? 'counter' : 'gauge']: { value: p.value } })) };
          break;
        case DataPointType.GAUGE:
          family = { type: 'GAUGE',
            metric: points.map((p) => ({ label: labels(p.attributes, scope), gauge: { value: p.value } })) };
          break;
        case DataPointType.EXPONENTIAL_HISTOGRAM: {
          const key = `${scope.name}\0${scope.version}\0${md.descriptor.name}`;
          if (!natives.has(key)) natives.set(key, { name, help, series: new Map() });
          const { series } = natives.get(key);
          const cumulative = md.aggregationTemporality === AggregationTemporality.CUMULATIVE;
          for (const p of points) {
            const label = labels(p.attributes, scope);
            const id = JSON.stringify(label);
            if (!series.has(id) || cumulative) series.set(id, { label, h: new NativeSeries() });
            series.get(id).h.add(p.value);
          }
          continue; // written below, with the series that had no new observation
        }
        default: // no explicit-bucket histogram: this reader's are all exponential
          continue;
      }
      if (family.metric.length) families.push({ name, help, ...family });
    }
  }
  // Every native histogram series seen so far (a delta collection leaves out those with no new
  // observation).
  for (const { name, help, series } of natives.values()) {
    families.push({ name, help, type: 'HISTOGRAM',
      metric: [...series.values()].map(({ label, h }) => ({ label, histogram: h.toProto() })) });
  }
  return families;
}

// Several processes' collections as one (lib/cluster.js): every process's data points, each
// labelled with its process (`who`: attributes), and lag_process_answered, 1 for a process whose
// points are of this scrape. `parts`: [{ who, data, answered }], `data` the process's
// scopeMetrics (text) or families (protobuf), null when it has never answered.
function answeredPoints(parts) {
  return parts.map(({ who, answered }) => ({ attributes: who, value: answered ? 1 : 0 }));
}
const ANSWERED = { name: 'lag_process_answered',
  description: 'Whether the process answered this scrape (1), or its series are those of its last answer (0)' };

function mergeScopeMetrics(parts, now) {
  const scopes = new Map();
  for (const { who, data } of parts) {
    for (const { scope, metrics } of data || []) {
      const key = `${scope.name}\0${scope.version}`;
      if (!scopes.has(key)) scopes.set(key, { scope, metrics: new Map() });
      const into = scopes.get(key).metrics;
      for (const md of metrics) {
        if (!into.has(md.descriptor.name)) into.set(md.descriptor.name, { ...md, dataPoints: [] });
        for (const p of md.dataPoints) into.get(md.descriptor.name).dataPoints.push({ ...p, attributes: { ...p.attributes, ...who } });
      }
    }
  }
  const out = [...scopes.values()].map(({ scope, metrics }) => ({ scope, metrics: [...metrics.values()] }));
  out.push({ scope: { name: 'lagwatch' }, metrics: [{
    descriptor: { name: ANSWERED.name, description: ANSWERED.description, unit: '', valueType: 1 },
    dataPointType: DataPointType.GAUGE, aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPoints: answeredPoints(parts).map((p) => ({ ...p, startTime: now, endTime: now })) }] });
  return out;
}

function mergeFamilies(target, parts) {
  const byName = new Map();
  for (const { who, data } of parts) {
    const extra = labelPairs(who);
    for (const f of data || []) {
      if (!byName.has(f.name)) byName.set(f.name, { ...f, metric: [] });
      for (const m of f.metric) byName.get(f.name).metric.push({ ...m, label: [...m.label, ...extra] });
    }
  }
  const answered = answeredPoints(parts).map((p) => ({ label: labelPairs(p.attributes), gauge: { value: p.value } }));
  return [target, ...byName.values(), { name: ANSWERED.name, help: ANSWERED.description, type: 'GAUGE', metric: answered }];
}

// What one scrape's body is encoded from, given what the main thread collected for it in
// `format` (lib/prometheus.js render: { own, gathered }): the families of the protobuf exposition
// (`natives`, the native series so far, gains own's deltas), or the text serializer's { resource,
// scopeMetrics }; with a cluster's workers' (`gathered`), this process's labelled `who`.
function bodyData(format, { own, gathered }, natives, who) {
  if (format === 'protobuf') {
    const families = toFamilies(own, natives);
    if (gathered === null) return families;
    return mergeFamilies(families[0], [{ who, data: families.slice(1), answered: true }, ...gathered]);
  }
  if (gathered === null) return own;
  const now = [Math.floor(Date.now() / 1000), 0];
  return { resource: own.resource, scopeMetrics: mergeScopeMetrics([{ who, data: own.scopeMetrics, answered: true }, ...gathered], now) };
}

module.exports = { NativeSeries, toFamilies, bodyData };
