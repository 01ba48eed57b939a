'use strict';
// lib/prometheus.js and lib/families.js without a Prometheus: OpenTelemetry exponential
// histograms added up as native histograms (bucket by bucket against the values recorded), the
// protobuf encoding read back, and the content negotiation. test/prometheus.test.js runs the
// same endpoint against a real one.
const assert = require('assert');
const protobuf = require('protobufjs');
const { MeterProvider } = require('@opentelemetry/sdk-metrics');
const { NativeHistogramReader } = require('../lib/prometheus');
const { toFamilies, bodyData } = require('../lib/families');
const { wantsProtobuf, SCHEMA } = require('../lib/exposition');

// A deterministic stream of numbers in [0, 1).
function random(seed) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

// Records `batches` (arrays of values) into one histogram, collecting after each, and returns the
// native histogram of the last exposition.
async function expose(batches, attributes = {}) {
  const reader = new NativeHistogramReader();
  const provider = new MeterProvider({ readers: [reader] });
  const h = provider.getMeter('lagwatch', '1.2.3').createHistogram('lag_test_histogram');
  const natives = new Map();
  let families;
  for (const batch of batches) {
    for (const v of batch) h.record(v, attributes);
    families = toFamilies((await reader.collect()).resourceMetrics, natives);
  }
  return families.find((f) => f.name === 'lag_test_histogram');
}

// Bucket index -> count from spans and deltas.
function buckets(spans, deltas) {
  const out = new Map();
  let j = 0;
  let k = 0;
  let count = 0;
  spans.forEach((s, i) => {
    j = i === 0 ? s.offset : j + s.offset;
    for (let n = 0; n < s.length; n++, j++) {
      count += deltas[k++];
      if (count !== 0) out.set(j, count);
    }
  });
  assert.strictEqual(k, deltas.length, 'one delta per bucket of the spans');
  return out;
}

describe('native histograms from OpenTelemetry exponential histograms (lib/families.js)', () => {
  it('every value lies in its bucket (base^(j-1), base^j], across collections at different scales', async () => {
    const next = random(7);
    const batches = [[], [6000], [], [0.25, 0.3, 12, 12, 13], [0, 0]];
    const all = batches.flat();
    for (let i = 0; i < 5; i++) {
      const b = [];
      for (let n = 0; n < 200; n++) b.push(1 + next() * 2000);
      batches.push(b);
      all.push(...b);
    }
    const fam = await expose(batches, { kind: 'hang' });
    assert.strictEqual(fam.type, 'HISTOGRAM');
    assert.strictEqual(fam.metric.length, 1);
    assert.deepStrictEqual(fam.metric[0].label, [{ name: 'kind', value: 'hang' },
      { name: 'otel_scope_name', value: 'lagwatch' }, { name: 'otel_scope_version', value: '1.2.3' }]);
    const h = fam.metric[0].histogram;
    assert.strictEqual(h.sampleCount, all.length);
    assert.ok(Math.abs(h.sampleSum - all.reduce((a, b) => a + b, 0)) < 1e-6);
    assert.strictEqual(h.zeroCount, 2);
    assert.ok(h.schema >= -4 && h.schema <= 8);
    const got = buckets(h.positiveSpan, h.positiveDelta);
    const want = new Map();
    const bound = (j) => 2 ** (j / 2 ** h.schema); // exact at powers of two
    for (const v of all.filter((x) => x > 0)) {
      let j = Math.ceil(Math.log2(v) * 2 ** h.schema);
      if (!(bound(j - 1) < v)) j--; // floating point near a boundary: the bucket's own test decides
      if (!(v <= bound(j))) j++;
      want.set(j, (want.get(j) || 0) + 1);
    }
    assert.deepStrictEqual([...got].sort((a, b) => a[0] - b[0]), [...want].sort((a, b) => a[0] - b[0]));
  });

  it('one observation stays at the finest schema (8), even after empty collections', async () => {
    const h = (await expose([[], [], [6000]])).metric[0].histogram;
    assert.strictEqual(h.schema, 8);
    assert.deepStrictEqual(h.positiveDelta, [1]);
    const j = h.positiveSpan[0].offset;
    assert.ok(2 ** ((j - 1) / 256) < 6000 && 6000 <= 2 ** (j / 256));
  });

  it('an empty histogram is a native one: a no-op span and a zero threshold', async () => {
    const h = (await expose([[NaN]])).metric[0].histogram;
    assert.strictEqual(h.sampleCount, 0);
    assert.deepStrictEqual(h.positiveSpan, [{ offset: 0, length: 0 }]);
    assert.ok(h.zeroThreshold > 0);
  });

  it('zeros fall in a zero bucket of no width once there are observations, so that a quantile inside it is 0', async () => {
    const h = (await expose([[0, 0, 0, 2.5]])).metric[0].histogram;
    assert.strictEqual(Number(h.zeroCount), 3);
    assert.strictEqual(h.zeroThreshold, 0);
    assert.deepStrictEqual(h.positiveDelta.map(Number), [1]);
  });

  it('values 1e-3 to 1e9 in one series: a coarser schema, at most 160 buckets', async () => {
    const values = [];
    for (let e = -3; e <= 9; e += 0.01) values.push(10 ** e);
    const h = (await expose([values.slice(0, 600), values.slice(600)])).metric[0].histogram;
    const got = buckets(h.positiveSpan, h.positiveDelta);
    const idx = [...got.keys()];
    assert.ok(Math.max(...idx) - Math.min(...idx) + 1 <= 160, `${idx.length} buckets at schema ${h.schema}`);
    assert.ok(h.schema < 8);
    assert.strictEqual([...got.values()].reduce((a, b) => a + b, 0), values.length);
  });

  it('the families encode and decode as io.prometheus.client.MetricFamily (delimited)', async () => {
    const fam = await expose([[1, 2, 3]]);
    const T = protobuf.parse(SCHEMA).root.lookupType('io.prometheus.client.MetricFamily');
    const bytes = T.encodeDelimited(T.fromObject(fam)).finish();
    const back = T.toObject(T.decodeDelimited(bytes), { longs: Number, enums: String });
    assert.strictEqual(back.name, 'lag_test_histogram');
    assert.strictEqual(back.type, 'HISTOGRAM');
    assert.strictEqual(back.metric[0].histogram.sampleCount, 3);
    assert.deepStrictEqual(back.metric[0].histogram.positiveDelta, fam.metric[0].histogram.positiveDelta);
  });
});

describe('the observer is not the observed (lib/exposition.js makeEncoders)', () => {
  // protobufjs generates a type's encoder at its first use. The encoders are made on the metrics
  // port's own thread when it starts (lib/responder.js), and every type's code with them.
  it('every type of the exposition has its encoder and fromObject generated when the encoders are made', () => {
    const { makeEncoders } = require('../lib/exposition');
    const { MetricFamily } = makeEncoders(protobuf);
    const ns = MetricFamily.parent;
    const types = ns.nestedArray.filter((t) => t instanceof protobuf.Type);
    assert.ok(types.length >= 8, types.map((t) => t.name).join(' '));
    for (const t of types) {
      assert.ok(Object.prototype.hasOwnProperty.call(t, 'encode') && Object.prototype.hasOwnProperty.call(t, 'fromObject'), t.name);
    }
  });

  it('the main thread collects plain data (what a thread can be sent), and the encoders write it as the exporter itself does', async () => {
    const { MeterProvider } = require('@opentelemetry/sdk-metrics');
    const { PrometheusEndpoint } = require('../lib/prometheus');
    const { makeEncoders } = require('../lib/exposition');
    const endpoint = new PrometheusEndpoint(true);
    const provider = new MeterProvider({ readers: endpoint.readers() });
    const m = provider.getMeter('t');
    m.createCounter('lag_test').add(3, { kind: 'hang' });
    m.createHistogram('lag_test_histogram').record(6000);
    const enc = makeEncoders(protobuf);
    const text = enc.text(bodyData('text', structuredClone(await endpoint.render('text', false, {})), new Map(), {}));
    assert.match(text, /^lag_test_total\{kind="hang",otel_scope_name="t"\} 3$/m, text);
    assert.match(text, /^target_info\{/m, text);
    const bytes = enc.protobuf(bodyData('protobuf', structuredClone(await endpoint.render('protobuf', true, {})), new Map(), {}));
    const reader = protobuf.Reader.create(bytes);
    const names = [];
    while (reader.pos < reader.len) names.push(enc.MetricFamily.decodeDelimited(reader).name);
    assert.deepStrictEqual(names.sort(), ['lag_test', 'lag_test_histogram', 'target_info']);
    await provider.shutdown();
  });
});

describe('the metrics port\'s warm-up (lib/responder.js)', () => {
  it('collects each reader in a loop iteration of its own, none in set-up\'s: its main-thread time is never one iteration', async () => {
    const { startResponder } = require('../lib/responder');
    const made = [];
    const endpoint = {
      native: {},
      labels: () => ({}),
      render: (format) => {
        made.push(format);
        return Promise.resolve({ own: { resource: { attributes: {} }, scopeMetrics: [] }, gathered: null });
      },
    };
    const port = startResponder(endpoint, { port: 0, host: '127.0.0.1', exclusive: true }, () => {}, () => '');
    port.warm();
    assert.deepStrictEqual(made, [], 'nothing in set-up\'s iteration');
    await new Promise(setImmediate);
    assert.deepStrictEqual(made, ['text']);
    await new Promise(setImmediate);
    assert.deepStrictEqual(made, ['text', 'protobuf']);
  });
});

describe('content negotiation (lib/exposition.js wantsProtobuf)', () => {
  const cases = [
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,' +
      'application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2', true],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited', true],
    ['text/plain;version=0.0.4;q=0.3,*/*;q=0.2', false],
    ['application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5', false],
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text', false],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0', false],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,text/plain;q=0.5', false],
  ];
  for (const [accept, want] of cases) {
    it(`${JSON.stringify(accept)} -> ${want ? 'protobuf' : 'text'}`, () => {
      assert.strictEqual(wantsProtobuf(accept), want);
    });
  }
});
