'use strict';
// What the metrics port's two sides share (lib/prometheus.js collects on the main thread,
// lib/responder.js encodes and answers on its own): the protobuf exposition's schema and content
// type, the choice of format from a scraper's Accept header, the names Prometheus allows, and the
// encoders of the two formats.

// The part of io.prometheus.client's metrics.proto that lagwatch writes (field numbers as there).
const SCHEMA = `
syntax = "proto3";
package io.prometheus.client;
message LabelPair { string name = 1; string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { double value = 1; }
message Counter { double value = 1; }
message Bucket { uint64 cumulative_count = 1; double upper_bound = 2; }
message BucketSpan { sint32 offset = 1; uint32 length = 2; }
message Histogram {
  uint64 sample_count = 1;
  double sample_sum = 2;
  repeated Bucket bucket = 3;
  sint32 schema = 5;
  double zero_threshold = 6;
  uint64 zero_count = 7;
  repeated BucketSpan negative_span = 9;
  repeated sint64 negative_delta = 10;
  repeated BucketSpan positive_span = 12;
  repeated sint64 positive_delta = 13;
}
message Metric {
  repeated LabelPair label = 1;
  Gauge gauge = 2;
  Counter counter = 3;
  Histogram histogram = 7;
}
message MetricFamily { string name = 1; string help = 2; MetricType type = 3; repeated Metric metric = 4; }
`;

const PROTOBUF_TYPE = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

// Does the Accept header prefer the protobuf exposition to everything else it accepts? (q-values;
// a tie goes to text, which every scraper reads.)
function wantsProtobuf(accept) {
  if (typeof accept !== 'string') return false;
  let proto = 0;
  let other = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p = Object.fromEntries(params.map((kv) => {
      const i = kv.indexOf('=');
      return [kv.slice(0, i).trim().toLowerCase(), kv.slice(i + 1).trim()];
    }));
    const q = p.q === undefined ? 1 : Number(p.q);
    if (!(q >= 0)) continue;
    if (type.toLowerCase() === 'application/vnd.google.protobuf') {
      if (p.proto === 'io.prometheus.client.MetricFamily' && p.encoding === 'delimited') proto = Math.max(proto, q);
    } else if (type !== '') {
      other = Math.max(other, q);
    }
  }
  return proto > 0 && proto > other;
}

// As @opentelemetry/exporter-prometheus names metrics and labels: every character Prometheus does
// not allow becomes "_".
const sanitize = (name) => name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/^([0-9])/, '_$1');

// The encoders of a scrape's body, made where bodies are written (the port's own thread, off the
// main one): text by @opentelemetry/exporter-prometheus's own serializer (with its defaults) from
// { resource: { attributes }, scopeMetrics }; the delimited protobuf exposition by protobufjs
// (`protobuf`: the module, or null for text only) from io.prometheus.client MetricFamily objects.
// Every type's code is generated now: protobufjs compiles a type at its first use.
function makeEncoders(protobuf) {
  const { PrometheusSerializer } = require('@opentelemetry/exporter-prometheus');
  const serializer = new PrometheusSerializer();
  let MetricFamily = null;
  if (protobuf) {
    const root = protobuf.parse(SCHEMA, { keepCase: false }).root;
    for (const t of root.lookup('io.prometheus.client').nestedArray) if (t instanceof protobuf.Type) t.setup();
    MetricFamily = root.lookupType('io.prometheus.client.MetricFamily');
  }
  return {
    MetricFamily,
    text: (data) => serializer.serialize(data),
    protobuf: (families) => Buffer.concat(families.map((f) => MetricFamily.encodeDelimited(MetricFamily.fromObject(f)).finish())),
  };
}

module.exports = { SCHEMA, PROTOBUF_TYPE, wantsProtobuf, sanitize, makeEncoders };
