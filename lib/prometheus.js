'use strict';
// /metrics for `lagwatch/register` (SPEC §10): two exposition formats of one MeterProvider, chosen
// by content negotiation.
//  - A scraper that asks for Prometheus's protobuf exposition (Prometheus started with
//    --enable-feature=native-histograms does) gets every histogram as a *native* histogram, made
//    from an OpenTelemetry base-2 exponential histogram (the same buckets: an OpenTelemetry scale is
//    a Prometheus schema), and counters named as the instruments are (`lag_stalls`, no `_total`),
//    so that SPEC §10's queries run as written.
//  - Any other scraper gets @opentelemetry/exporter-prometheus's text format: the classic series
//    (`_total` counters, `_bucket{le}` histograms on the instruments' advised boundaries).
// The two are two readers of the provider, each with its own aggregation; the same attributes,
// `otel_scope_name`/`otel_scope_version` labels and `target_info` in both.
//
// Nothing in the ecosystem writes the protobuf exposition from OpenTelemetry data (the OpenTelemetry
// exporter and prom-client write text only), so the mapping is ours; the encoding is protobufjs's,
// from the field numbers of Prometheus's io.prometheus.client schema (metrics.proto).
const {
  MetricReader, AggregationType, AggregationTemporality, InstrumentType, DataPointType,
} = require('@opentelemetry/sdk-metrics');
const { coarser } = require('./exphist');
const { SCHEMA, PROTOBUF_TYPE, wantsProtobuf, sanitize } = require('./exposition');

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

// The histograms of this reader are base-2 exponential, collected as deltas: the endpoint adds
// them up itself (NativeSeries), because the SDK's cumulative sum of exponential histograms takes
// the scale of an empty collection as 0 (@opentelemetry/sdk-metrics 2.12: an accumulation with
// no observation reports scale 0, and a merge keeps the smaller scale), which would leave every
// histogram scraped once before its first observation at schema 0 (buckets of x2) for good.
// Everything else stays cumulative.
// (A MetricProducer's histograms, lagwatch's own, come cumulative: each collection replaces
// their series.)
class NativeHistogramReader extends MetricReader {
  constructor(metricProducers = []) {
    super({
      metricProducers,
      aggregationSelector: (type) => (type === InstrumentType.HISTOGRAM
        ? { type: AggregationType.EXPONENTIAL_HISTOGRAM }
        : { type: AggregationType.DEFAULT }),
      aggregationTemporalitySelector: (type) => (type === InstrumentType.HISTOGRAM
        ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE),
    });
  }

  async onForceFlush() {}

  async onShutdown() {}
}

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

class PrometheusEndpoint {
  // `protobuf`: whether the protobuf exposition is served (protobufjs is there; else text only,
  // and `onNoProtobuf` is called the first time a scraper asks for it). The histograms of
  // recorded samples come from lagwatch's MetricProducers (lib/producer.js), one per reader, with
  // that reader's kind of histogram: give producers() to setupAllMonitors.
  constructor(protobuf, onNoProtobuf = () => {}) {
    this.onNoProtobuf = onNoProtobuf;
    const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus');
    const { createMetricProducer } = require('./producer');
    this.textProducer = createMetricProducer({ aggregation: 'explicit' });
    this.nativeProducer = protobuf ? createMetricProducer({ aggregation: 'exponential' }) : null;
    this.text = new PrometheusExporter({ preventServerStart: true, metricProducers: [this.textProducer] });
    this.native = protobuf ? new NativeHistogramReader([this.nativeProducer]) : null;
    this.natives = new Map();
    this.gatherer = null;
  }

  readers() {
    return this.native ? [this.text, this.native] : [this.text];
  }

  producers() {
    return this.native ? [this.textProducer, this.nativeProducer] : [this.textProducer];
  }

  // This process's metrics in `format` as plain data, for a cluster's primary to merge: the text
  // reader's scopeMetrics ('text'), or the families of the protobuf exposition but target_info.
  async snapshot(format) {
    if (format === 'protobuf' && this.native !== null) {
      const { resourceMetrics } = await this.native.collect();
      return toFamilies(resourceMetrics, this.natives).slice(1);
    }
    const { resourceMetrics } = await this.text.collect();
    return resourceMetrics.scopeMetrics;
  }

  // The families of the protobuf exposition of everything the native reader collects (with every
  // worker's, in a cluster).
  async families(gathered) {
    const { resourceMetrics } = await this.native.collect();
    const families = toFamilies(resourceMetrics, this.natives);
    if (gathered === null) return families;
    return mergeFamilies(families[0], [{ who: this.who(), data: families.slice(1), answered: true }, ...gathered]);
  }

  // What the text exposition is written from: this process's metrics (and every worker's),
  // as { resource: { attributes }, scopeMetrics }, plain data.
  async textData(gathered) {
    const { resourceMetrics } = await this.text.collect();
    const resource = { attributes: resourceMetrics.resource.attributes };
    if (gathered === null) return { resource, scopeMetrics: resourceMetrics.scopeMetrics };
    const now = [Math.floor(Date.now() / 1000), 0];
    const parts = [{ who: this.who(), data: resourceMetrics.scopeMetrics, answered: true }, ...gathered];
    return { resource, scopeMetrics: mergeScopeMetrics(parts, now) };
  }

  // Both readers once, at set-up: a reader's first collection builds what later ones reuse, in
  // the app's life otherwise.
  warm() {
    const quiet = () => {};
    this.text.collect().then(quiet, quiet);
    if (this.native !== null) this.native.collect().then(({ resourceMetrics }) => toFamilies(resourceMetrics, this.natives), quiet);
  }

  // A cluster's primary (lib/cluster.js): `gatherer` asks the workers, `who` names this process.
  gatherFrom(gatherer, who) {
    this.gatherer = gatherer;
    this.who = who;
  }

  // What one scrape's body in `format` ('text' or 'protobuf'; `askedProtobuf`: the scraper asked
  // for protobuf) is encoded from, with every worker's in a cluster; `headers`, the scrape's (its
  // deadline). Plain data, for the metrics port's own thread to encode (lib/responder.js): the
  // main thread only collects.
  async render(format, askedProtobuf, headers) {
    if (askedProtobuf && this.native === null && this.onNoProtobuf !== null) {
      this.onNoProtobuf();
      this.onNoProtobuf = null;
    }
    const clustered = this.gatherer !== null && this.gatherer.clustered();
    const parts = clustered ? await this.gatherer.gather(format, { headers }) : null;
    return format === 'protobuf' && this.native !== null ? this.families(parts) : this.textData(parts);
  }
}

module.exports = { PrometheusEndpoint, NativeHistogramReader, NativeSeries, wantsProtobuf, toFamilies, PROTOBUF_TYPE, SCHEMA };
