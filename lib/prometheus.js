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
// The main thread only collects (the readers are its own); the families and their encoding are
// made on the metrics port's thread (lib/families.js, lib/exposition.js, lib/responder.js).
const {
  MetricReader, AggregationType, AggregationTemporality, InstrumentType,
} = require('@opentelemetry/sdk-metrics');
const { toFamilies } = require('./families');

// The histograms of this reader are base-2 exponential, collected as deltas: the port's thread
// adds them up itself (lib/families.js NativeSeries), because the SDK's cumulative sum of
// exponential histograms takes the scale of an empty collection as 0 (@opentelemetry/sdk-metrics
// 2.12: an accumulation with no observation reports scale 0, and a merge keeps the smaller
// scale), which would leave every histogram scraped once before its first observation at schema 0
// (buckets of x2) for good.
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
    this.natives = new Map(); // a cluster worker's native series (snapshot)
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

  // A cluster's primary (lib/cluster.js): `gatherer` asks the workers, `who` names this process.
  gatherFrom(gatherer, who) {
    this.gatherer = gatherer;
    this.who = who;
  }

  // What one scrape's body in `format` ('text' or 'protobuf'; `askedProtobuf`: the scraper asked
  // for protobuf) is made from, as plain data for the metrics port's thread (lib/families.js
  // bodyData): { own: this process's collection by that format's reader, as { resource: {
  // attributes }, scopeMetrics }, gathered: every worker's (lib/cluster.js, `headers` the
  // scrape's: its deadline), or null outside a cluster }. Every collection of the native reader
  // must reach bodyData once: its histograms are deltas.
  async render(format, askedProtobuf, headers) {
    if (askedProtobuf && this.native === null && this.onNoProtobuf !== null) {
      this.onNoProtobuf();
      this.onNoProtobuf = null;
    }
    const clustered = this.gatherer !== null && this.gatherer.clustered();
    const gathered = clustered ? await this.gatherer.gather(format, { headers }) : null;
    const reader = format === 'protobuf' && this.native !== null ? this.native : this.text;
    const { resourceMetrics } = await reader.collect();
    const own = { resource: { attributes: resourceMetrics.resource.attributes }, scopeMetrics: resourceMetrics.scopeMetrics };
    return { own, gathered };
  }

  // The labels that tell this process apart in a cluster; none outside one.
  labels() {
    return this.gatherer !== null && this.gatherer.clustered() ? this.who() : {};
  }
}

module.exports = { PrometheusEndpoint, NativeHistogramReader };
