'use strict';
// lagwatch.createMetricProducer(): the histograms of recorded samples exported whole
// from the core's aggregates, with no JS per sample. Checked against the OpenTelemetry SDK's own
// aggregators fed the very same recorded values (the 'samples' event), explicit and exponential,
// on simulated runs.
const assert = require('assert');
const {
  MeterProvider, MetricReader, AggregationType, AggregationTemporality, DataPointType,
} = require('@opentelemetry/sdk-metrics');
const lagwatch = require('..');
const { HISTOGRAMS } = require('../lib/producer');
const { assertRejects } = require('./helpers');

class ManualReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

// name -> MetricData, from one collection of `reader`.
async function collect(reader) {
  const { resourceMetrics, errors } = await reader.collect();
  assert.deepStrictEqual(errors, []);
  const out = {};
  for (const sm of resourceMetrics.scopeMetrics) {
    for (const md of sm.metrics) {
      assert.ok(!(md.descriptor.name in out), `${md.descriptor.name} exported twice`);
      out[md.descriptor.name] = { scope: sm.scope, ...md };
    }
  }
  return out;
}

// The SDK's own histograms, fed every recorded value of `m` as the 'samples' event hands it over.
function sdkReference(m, exponential) {
  const reader = new ManualReader({
    aggregationSelector: () => ({ type: exponential ? AggregationType.EXPONENTIAL_HISTOGRAM : AggregationType.DEFAULT }),
  });
  const meter = new MeterProvider({ readers: [reader] }).getMeter('reference');
  const hist = {};
  for (const [key, name, description, unit, bounds] of HISTOGRAMS) {
    hist[key] = meter.createHistogram(name, { description, unit, advice: { explicitBucketBoundaries: bounds } });
  }
  let values = 0;
  m.conditions.on('samples', (batches) => {
    for (const key of Object.keys(batches)) {
      for (const v of batches[key]) {
        hist[key].record(v);
        values++;
      }
    }
  });
  // The worker's self-lag goes with the batch, not the 'samples' event: read it from the flush.
  const onBatch = m.conditions._metrics.onBatch.bind(m.conditions._metrics);
  m.conditions._metrics.onBatch = (batches, selfLag) => {
    if (selfLag) for (const v of selfLag) hist.selfLag.record(v);
    onBatch(batches, selfLag);
  };
  return { reader, values: () => values };
}

// A simulated run with a bit of everything: idle, busy seconds, a hang, a sleep.
function scenario(sim) {
  sim.advance(3000);
  for (let i = 1; i <= 20; i++) {
    sim.block(7 * i);
    sim.advance(300 - 7 * i);
  }
  sim.block(6000);
  sim.advance(2000);
  sim.sleep(3000);
  sim.advance(4000);
}

describe('metric producer (no JS per sample on the way to OpenTelemetry)', () => {
  for (const aggregation of ['explicit', 'exponential']) {
    it(`${aggregation}: every histogram equals the SDK's own ${aggregation} aggregation of the same recorded values`, async () => {
      const producer = lagwatch.createMetricProducer({ aggregation });
      const reader = new ManualReader({ metricProducers: [producer] });
      const provider = new MeterProvider({ readers: [reader] });
      const sim = lagwatch.createSimulation({ platform: 'linux' });
      const m = lagwatch.setupAllMonitors({ clock: sim, meter: provider.getMeter('lagwatch'), metricProducers: [producer] });
      const ref = sdkReference(m, aggregation === 'exponential');
      scenario(sim);
      m.stop();
      assert.ok(ref.values() > 500, `${ref.values()} values`);
      const got = await collect(reader);
      const want = await collect(ref.reader);
      const stats = m.conditions.stats();
      for (const [key, name, , unit] of HISTOGRAMS) {
        const g = got[name];
        const w = want[name];
        assert.ok(g, `${name} exported`);
        assert.strictEqual(g.scope.name, 'lagwatch');
        assert.strictEqual(g.descriptor.unit, unit);
        assert.strictEqual(g.aggregationTemporality, AggregationTemporality.CUMULATIVE);
        assert.strictEqual(g.dataPointType, aggregation === 'explicit' ? DataPointType.HISTOGRAM : DataPointType.EXPONENTIAL_HISTOGRAM);
        assert.strictEqual(g.dataPoints.length, 1);
        const gv = g.dataPoints[0].value;
        const wv = w.dataPoints[0].value;
        if (key !== 'selfLag') assert.strictEqual(gv.count, stats.monitors[key].recorded, `${name} count = recorded`);
        assert.ok(gv.count > 0, `${name} has samples`);
        assert.strictEqual(gv.count, wv.count, `${name} count`);
        assert.ok(Math.abs(gv.sum - wv.sum) <= 1e-9 * Math.abs(wv.sum), `${name} sum ${gv.sum} vs ${wv.sum}`);
        assert.strictEqual(gv.min, wv.min, `${name} min`);
        assert.strictEqual(gv.max, wv.max, `${name} max`);
        if (aggregation === 'explicit') {
          assert.deepStrictEqual(gv.buckets, wv.buckets, name);
        } else {
          assert.strictEqual(gv.scale, wv.scale, `${name} scale`);
          assert.strictEqual(gv.zeroCount, wv.zeroCount, `${name} zeroCount`);
          assert.deepStrictEqual(gv.positive, wv.positive, `${name} buckets`);
        }
      }
      // The meter records none of them (collect() fails on a name exported twice); its other
      // metrics are there.
      assert.ok(got.lag_stalls && got['nodejs.eventloop.time'], 'the meter\'s own metrics');
    });
  }

  it('a set given producers copies no sample to JS (no batch) unless a \'samples\' listener asks', () => {
    const reader = new ManualReader();
    const provider = new MeterProvider({ readers: [reader] });
    const producer = lagwatch.createMetricProducer();
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim, meter: provider.getMeter('lagwatch'), metricProducers: [producer] });
    let batches = 0;
    const onBatch = m.conditions._metrics.onBatch.bind(m.conditions._metrics);
    m.conditions._metrics.onBatch = (b, s) => {
      if (Object.keys(b).length || s) batches++;
      onBatch(b, s);
    };
    sim.advance(5000);
    assert.strictEqual(batches, 0);
    m.conditions.on('samples', () => {});
    sim.advance(5000);
    assert.ok(batches > 0);
    m.stop();

    // The same with a meter and no producer: the meter reads the batches.
    const sim2 = lagwatch.createSimulation({ platform: 'linux' });
    const m2 = lagwatch.setupAllMonitors({ clock: sim2, meter: provider.getMeter('other') });
    let batches2 = 0;
    const onBatch2 = m2.conditions._metrics.onBatch.bind(m2.conditions._metrics);
    m2.conditions._metrics.onBatch = (b, s) => {
      if (Object.keys(b).length) batches2++;
      onBatch2(b, s);
    };
    sim2.advance(5000);
    assert.ok(batches2 > 0);
    m2.stop();
  });

  it('delta temporality: each collection carries what was recorded since the one before', async () => {
    const cumulative = lagwatch.createMetricProducer({ aggregation: 'exponential' });
    const delta = lagwatch.createMetricProducer({ aggregation: 'exponential', temporality: 'delta' });
    const deltaExplicit = lagwatch.createMetricProducer({ temporality: 'delta' });
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim, metricProducers: [cumulative, delta, deltaExplicit] });
    const pointOf = async (p, name) => {
      const { resourceMetrics } = await p.collect();
      const md = resourceMetrics.scopeMetrics[0].metrics.find((x) => x.descriptor.name === name);
      return md;
    };
    sim.advance(2000);
    const c1 = (await pointOf(cumulative, 'lag_loop_block_histogram')).dataPoints[0];
    const d1 = (await pointOf(delta, 'lag_loop_block_histogram')).dataPoints[0];
    const e1 = (await pointOf(deltaExplicit, 'lag_loop_block_histogram')).dataPoints[0];
    assert.deepStrictEqual(d1.value, c1.value); // the first delta is everything so far
    sim.block(3000);
    sim.advance(1000);
    sim.block(20);
    sim.advance(2000);
    const cmd = await pointOf(cumulative, 'lag_loop_block_histogram');
    const dmd = await pointOf(delta, 'lag_loop_block_histogram');
    const emd = await pointOf(deltaExplicit, 'lag_loop_block_histogram');
    assert.strictEqual(dmd.aggregationTemporality, AggregationTemporality.DELTA);
    const c2 = cmd.dataPoints[0].value;
    const d2 = dmd.dataPoints[0].value;
    const e2 = emd.dataPoints[0].value;
    assert.strictEqual(d2.count, c2.count - c1.value.count);
    assert.ok(d2.count > 0);
    assert.ok(Math.abs(d2.sum - (c2.sum - c1.value.sum)) < 1e-6);
    // Bucket by bucket at the later scale: the delta plus the first equals the cumulative.
    const at = (v, scale) => {
      const by = v.scale - scale;
      const out = new Map();
      v.positive.bucketCounts.forEach((n, k) => {
        const j = Math.floor((v.positive.offset + k) / 2 ** by);
        out.set(j, (out.get(j) || 0) + n);
      });
      return out;
    };
    const sum = at(c1.value, c2.scale);
    for (const [j, n] of at(d2, c2.scale)) sum.set(j, (sum.get(j) || 0) + n);
    for (const [j, n] of at(c2, c2.scale)) assert.strictEqual(sum.get(j) || 0, n, `bucket ${j}`);
    assert.strictEqual(d2.scale, c2.scale);
    assert.ok(c2.positive.bucketCounts.length > 1, 'buckets to compare');
    assert.strictEqual(d2.zeroCount + c1.value.zeroCount, c2.zeroCount);
    // The explicit delta: counts less the first collection's; its window starts where that ended.
    assert.strictEqual(e2.count, d2.count);
    assert.deepStrictEqual(emd.dataPoints[0].startTime, e1.endTime);
    assert.strictEqual(e2.buckets.counts.reduce((a, b) => a + b, 0), e2.count);
    m.stop();
  });

  it('after stop() the last aggregates stay; a stopped set frees the producer for the next; one running set at a time', async () => {
    const producer = lagwatch.createMetricProducer();
    const empty = await producer.collect();
    assert.deepStrictEqual(empty.resourceMetrics.scopeMetrics, []); // no set yet: nothing
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const m = lagwatch.setupAllMonitors({ clock: sim, metricProducers: [producer] });
    // A second running set cannot take it; that call changes nothing.
    const sim2 = lagwatch.createSimulation({ platform: 'linux' });
    assert.throws(() => lagwatch.setupAllMonitors({ clock: sim2, metricProducers: [producer] }),
      (err) => err instanceof RangeError && /metricProducers/.test(err.message));
    sim.advance(4000);
    m.stop();
    const count = (r) => r.resourceMetrics.scopeMetrics[0].metrics
      .find((x) => x.descriptor.name === 'lag_drift_histogram').dataPoints[0].value.count;
    const after = await producer.collect();
    assert.strictEqual(count(after), m.conditions.stats().monitors.driftLag.recorded);
    sim.advance(4000);
    assert.strictEqual(count(await producer.collect()), count(after));
    // The next set starts new series.
    const m2 = lagwatch.setupAllMonitors({ clock: sim2, metricProducers: [producer] });
    assert.strictEqual(count(await producer.collect()), 0);
    m2.stop();
  });

  it('delta across two sets: what the first recorded after its last collection goes out with the next one', async () => {
    const producer = lagwatch.createMetricProducer({ temporality: 'delta' });
    const count = async () => (await producer.collect()).resourceMetrics.scopeMetrics[0].metrics
      .find((x) => x.descriptor.name === 'lag_drift_histogram').dataPoints[0].value.count;
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const a = lagwatch.setupAllMonitors({ clock: sim, metricProducers: [producer] });
    sim.advance(2000);
    let exported = await count();
    sim.advance(2000); // recorded after the last collection...
    a.stop(); // ...and no collection before the next set takes the producer
    const sim2 = lagwatch.createSimulation({ platform: 'linux' });
    const b = lagwatch.setupAllMonitors({ clock: sim2, metricProducers: [producer] });
    sim2.advance(3000);
    exported += await count();
    b.stop();
    exported += await count();
    assert.strictEqual(exported, a.conditions.stats().monitors.driftLag.recorded + b.conditions.stats().monitors.driftLag.recorded);
    assert.strictEqual(await count(), 0); // nothing twice
  });

  it('a set that fails to start leaves its producers free, and its error is the one thrown', () => {
    const native = require('../lib/native');
    const producer = lagwatch.createMetricProducer();
    const keep = native.monKeepAggregates;
    native.monKeepAggregates = () => { throw Object.assign(new Error('lagwatch: out of memory'), { code: 'ERR_MEMORY' }); };
    try {
      assert.throws(() => lagwatch.setupAllMonitors({ metricProducers: [producer] }), (err) => err.code === 'ERR_MEMORY');
    } finally {
      native.monKeepAggregates = keep;
    }
    assert.strictEqual(lagwatch.current(), undefined);
    const m = lagwatch.setupAllMonitors({ metricProducers: [producer], exitHook: false });
    m.stop();
  });

  it('bad input: TypeError (ERR_INVALID_ARG_TYPE) or RangeError (ERR_OUT_OF_RANGE) naming the argument, nothing set up', () => {
    assertRejects(() => lagwatch.createMetricProducer({ aggregation: 'linear' }), RangeError, 'ERR_OUT_OF_RANGE', 'options.aggregation');
    assertRejects(() => lagwatch.createMetricProducer({ aggregation: 'foo' }), RangeError, 'ERR_OUT_OF_RANGE', 'options.aggregation');
    assertRejects(() => lagwatch.createMetricProducer({ aggregation: 1 }), TypeError, 'ERR_INVALID_ARG_TYPE', 'options.aggregation');
    assertRejects(() => lagwatch.createMetricProducer({ temporality: 'both' }), RangeError, 'ERR_OUT_OF_RANGE', 'options.temporality');
    assertRejects(() => lagwatch.createMetricProducer({ temporality: null }), TypeError, 'ERR_INVALID_ARG_TYPE', 'options.temporality');
    assertRejects(() => lagwatch.createMetricProducer(3), TypeError, 'ERR_INVALID_ARG_TYPE', 'options');
    // A producer that serves a running set, given to another: RangeError, and nothing set up.
    const busy = lagwatch.createMetricProducer();
    const running = lagwatch.setupAllMonitors({ clock: lagwatch.createSimulation(), metricProducers: [busy] });
    assertRejects(() => lagwatch.setupAllMonitors({ metricProducers: [busy] }), RangeError, 'ERR_OUT_OF_RANGE', 'options.metricProducers');
    assert.strictEqual(lagwatch.current(), undefined);
    running.stop();
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    for (const bad of [{}, [{}], [null], 'x', [{ collect() {} }]]) {
      assert.throws(() => lagwatch.setupAllMonitors({ clock: sim, metricProducers: bad }),
        (err) => err instanceof TypeError && /options\.metricProducers/.test(err.message), JSON.stringify(bad));
    }
    // Nothing was set up: the real clock's set can still start, and stop.
    const m = lagwatch.setupAllMonitors({ metricProducers: [] });
    m.stop();
  });
});
