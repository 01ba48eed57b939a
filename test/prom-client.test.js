'use strict';
// `lagwatch/prom-client` on the simulation: lagwatch's metrics in a prom-client 15 Registry, read
// at scrape time from what the core keeps (stats(), the discard counts, the histograms of recorded
// samples as a MetricProducer exports them), with the names and labels of lagwatch's Prometheus
// exposition (counters without _total, classic histograms on lagwatch's boundaries), beside
// prom-client's default metrics. Run with prom-client 15 and 14 (the peer range; devDependencies
// `prom-client` and `prom-client-14`). test/prometheus.test.js scrapes the same from a real
// Prometheus.
const assert = require('assert');
const lagwatch = require('..');
const { collectLagwatchMetrics } = require('../lib/prom-client');
const { HISTOGRAMS, BOUNDS } = require('../lib/histograms');
const { assertRejects } = require('./helpers');

// The exposition's samples as [{ name, labels, value }].
function parse(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    const labels = {};
    for (const l of (m[2] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}
const pick = (samples, name, labels = {}) => samples.filter((s) => s.name === name &&
  Object.entries(labels).every(([k, v]) => s.labels[k] === v));
// The one sample of `name` with exactly these labels.
const one = (samples, name, labels = {}) => {
  const found = pick(samples, name, labels).filter((x) => Object.keys(x.labels).length === Object.keys(labels).length);
  assert.strictEqual(found.length, 1, `${name} ${JSON.stringify(labels)}: ${JSON.stringify(found)}`);
  return found[0].value;
};

for (const client of [require('prom-client'), require('prom-client-14')]) {
  const major = (client === require('prom-client') ? require('prom-client/package.json') : require('prom-client-14/package.json'))
    .version.split('.')[0];
  describe(`lagwatch/prom-client: lagwatch's metrics in the app's own prom-client registry (prom-client ${major})`, () => {
    let registry;
    let sim;
    let m;
    let remove;
    beforeEach(() => {
      registry = new client.Registry();
      sim = lagwatch.createSimulation({ platform: 'linux' });
      m = lagwatch.setupAllMonitors({ clock: sim, blocks: true });
      remove = collectLagwatchMetrics({ register: registry, set: m });
    });
    afterEach(() => {
      remove();
      m.stop();
    });

    it('is the package\'s subpath export lagwatch/prom-client', () => {
      assert.strictEqual(require('lagwatch/prom-client').collectLagwatchMetrics, collectLagwatchMetrics);
    });

    it('the exposition\'s names, labels and types: counters without _total, classic histograms, no otel_scope_* label', async () => {
      const text = await registry.metrics();
      const types = Object.fromEntries([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((x) => [x[1], x[2]]));
      for (const name of ['lag_samples_discarded', 'lag_stalls', 'lag_clock_jumps', 'lag_worker_hangs', 'lag_stall_causes',
        'lag_blocks', 'lag_main_thread_time', 'nodejs_eventloop_time']) {
        assert.strictEqual(types[name], 'counter', name);
      }
      for (const name of ['lag_stall_duration_histogram', 'lag_worker_hang_duration_histogram', 'lag_block_duration_histogram',
        ...HISTOGRAMS.map(([, n]) => n)]) {
        assert.strictEqual(types[name], 'histogram', name);
      }
      assert.strictEqual(types.lag_run_hang, 'gauge');
      assert.ok(!/_total\b/.test(text), 'no _total');
      assert.ok(!/otel_scope_|target_info/.test(text), 'no OpenTelemetry scope labels or target_info');
      const samples = parse(text);
      // Every series known in advance is there from the start, at 0.
      for (const kind of ['hang', 'suspend', 'pause']) assert.strictEqual(one(samples, 'lag_stalls', { kind }), 0);
      assert.strictEqual(one(samples, 'lag_stalls', { kind: 'hang', fatal: 'true' }), 0);
      for (const kind of ['suspend', 'step']) assert.strictEqual(one(samples, 'lag_clock_jumps', { kind }), 0);
      assert.ok(pick(samples, 'lag_samples_discarded', { reason: 'hidden', monitor: 'driftLag' }).length === 1);
      const les = pick(samples, 'lag_stall_duration_histogram_bucket', { kind: 'hang' }).map((s) => s.labels.le);
      assert.deepStrictEqual(les, [...BOUNDS.stall.map(String), '+Inf']);
    });

    it('a 6 s block: lag_stalls{kind="hang"} 1 and its duration in the classic bucket that holds it, as stats() and the event say', async () => {
      let stall = null;
      m.conditions.on('stall', (s) => { stall = s; });
      sim.advance(10000);
      sim.block(6000);
      sim.advance(10000);
      assert.ok(stall !== null && stall.kind === 'hang');
      const samples = parse(await registry.metrics());
      assert.strictEqual(one(samples, 'lag_stalls', { kind: 'hang' }), m.conditions.stats().stalls.hang);
      assert.strictEqual(one(samples, 'lag_stalls', { kind: 'hang' }), 1);
      assert.strictEqual(one(samples, 'lag_run_hang'), 1);
      assert.strictEqual(one(samples, 'lag_stall_duration_histogram_count', { kind: 'hang' }), 1);
      assert.strictEqual(one(samples, 'lag_stall_duration_histogram_sum', { kind: 'hang' }), stall.durationMs);
      for (const s of pick(samples, 'lag_stall_duration_histogram_bucket', { kind: 'hang' })) {
        const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
        assert.strictEqual(s.value, le >= stall.durationMs ? 1 : 0, `le=${s.labels.le}`);
      }
      assert.strictEqual(one(samples, 'lag_stall_causes', { kind: 'hang', cause: stall.cause.dominant }), 1);
      assert.strictEqual(one(samples, 'lag_worker_hangs'), m.workerStats().workerHangs.ended);
      assert.strictEqual(one(samples, 'lag_worker_hang_duration_histogram_count'), m.workerStats().workerHangs.ended);
      // The block is one too (a hang of one iteration), by its cause.
      assert.strictEqual(pick(samples, 'lag_blocks').reduce((a, s) => a + s.value, 0), m.conditions.stats().blocks.count);
    });

    it('discards: lag_samples_discarded{reason, monitor} equals stats() at every scrape', async () => {
      // The app's own probe (its samples are not paused while hidden): one whose window overlaps
      // the hidden time is discarded.
      const probe = m.conditions.createValidator({ name: 'appProbe' });
      sim.advance(5000);
      m.conditions.setLifecycleState('hidden');
      sim.advance(3000);
      m.conditions.setLifecycleState('active');
      sim.advance(100);
      assert.strictEqual(probe.submit(2, 1000, () => {}), 'discarded');
      sim.advance(5000);
      const samples = parse(await registry.metrics());
      const hidden = pick(samples, 'lag_samples_discarded', { reason: 'hidden' }).reduce((a, s) => a + s.value, 0);
      assert.ok(hidden > 0);
      assert.strictEqual(one(samples, 'lag_samples_discarded', { reason: 'hidden', monitor: 'appProbe' }), 1);
      assert.strictEqual(hidden, m.conditions.stats().discarded.hidden);
    });

    it('the histograms of recorded samples are the core\'s aggregates, as a MetricProducer exports them', async () => {
      const producer = lagwatch.createMetricProducer();
      const sim2 = lagwatch.createSimulation({ platform: 'linux' });
      const m2 = lagwatch.setupAllMonitors({ clock: sim2, metricProducers: [producer] });
      const registry2 = new client.Registry();
      const remove2 = collectLagwatchMetrics({ register: registry2, set: m2 });
      sim2.advance(5000);
      sim2.block(300);
      sim2.advance(5000);
      const samples = parse(await registry2.metrics());
      const { resourceMetrics } = await producer.collect();
      for (const md of resourceMetrics.scopeMetrics[0].metrics) {
        const name = md.descriptor.name;
        const v = md.dataPoints[0].value;
        assert.strictEqual(one(samples, `${name}_count`), v.count, name);
        assert.strictEqual(one(samples, `${name}_sum`), v.sum, name);
        let cumulative = 0;
        const buckets = pick(samples, `${name}_bucket`);
        assert.strictEqual(buckets.length, v.buckets.counts.length, name);
        buckets.forEach((s, i) => {
          cumulative += v.buckets.counts[i];
          assert.strictEqual(s.labels.le, i < v.buckets.boundaries.length ? String(v.buckets.boundaries[i]) : '+Inf');
          assert.strictEqual(s.value, cumulative, `${name} le=${s.labels.le}`);
        });
      }
      assert.strictEqual(one(samples, 'lag_drift_histogram_count'), m2.conditions.stats().monitors.driftLag.recorded);
      // After stop() the final values stay.
      m2.stop();
      sim2.advance(5000);
      assert.strictEqual(one(parse(await registry2.metrics()), 'lag_drift_histogram_count'), m2.conditions.stats().monitors.driftLag.recorded);
      remove2();
    });

    it('nodejs_eventloop_* as OpenTelemetry\'s semantic conventions name them, from recorded samples only', async () => {
      sim.advance(3000);
      let samples = parse(await registry.metrics());
      for (const k of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
        assert.strictEqual(pick(samples, `nodejs_eventloop_delay_${k}`).length, 1, k);
      }
      const u = one(samples, 'nodejs_eventloop_utilization');
      assert.ok(u >= 0 && u <= 1, `${u}`);
      assert.deepStrictEqual(pick(samples, 'nodejs_eventloop_time').map((s) => s.labels.nodejs_eventloop_state).sort(), ['active', 'idle']);
      // A 6 s hang is not an everyday delay: its samples are not driftLag's recorded lateness.
      sim.block(6000);
      sim.advance(1000);
      samples = parse(await registry.metrics());
      assert.ok(one(samples, 'nodejs_eventloop_delay_max') < 5, 'the hang is no everyday delay');
    });

    // prom-client's AggregatorRegistry (a cluster's workers on one registry) merges each metric by
    // its aggregator: a maximum is the largest process's, never an average.
    it('in an AggregatorRegistry: nodejs_eventloop_delay_max is the worst process\'s, _min the best\'s', async () => {
      const other = new client.Registry();
      const sim2 = lagwatch.createSimulation({ platform: 'linux' });
      const m2 = lagwatch.setupAllMonitors({ clock: sim2 });
      const remove2 = collectLagwatchMetrics({ register: other, set: m2 });
      try {
        sim.advance(2000);
        sim.block(400);
        sim.advance(2000);
        sim2.advance(4000);
        const mine = one(parse(await registry.metrics()), 'nodejs_eventloop_delay_max');
        const theirs = one(parse(await other.metrics()), 'nodejs_eventloop_delay_max');
        assert.ok(mine >= 0.35 && theirs < 0.05, `${mine} ${theirs}`);
        const merged = client.AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await other.getMetricsAsJSON()]);
        const samples = parse(await merged.metrics());
        assert.strictEqual(one(samples, 'nodejs_eventloop_delay_max'), mine);
        assert.strictEqual(one(samples, 'nodejs_eventloop_delay_min'), Math.min(one(parse(await registry.metrics()), 'nodejs_eventloop_delay_min'), one(parse(await other.metrics()), 'nodejs_eventloop_delay_min')));
      } finally {
        remove2();
        m2.stop();
      }
    });

    it('beside collectDefaultMetrics() in one registry, no name twice; the function returned takes lagwatch\'s out', async () => {
      client.collectDefaultMetrics({ register: registry });
      const names = [...(await registry.metrics()).matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]);
      assert.strictEqual(new Set(names).size, names.length);
      assert.ok(names.includes('nodejs_eventloop_lag_seconds') && names.includes('lag_stalls'));
      remove();
      const left = [...(await registry.metrics()).matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]);
      assert.ok(left.includes('nodejs_eventloop_lag_seconds'));
      assert.ok(!left.some((n) => n.startsWith('lag_') || /^nodejs_eventloop_(delay|utilization|time)/.test(n)), left.join(' '));
      remove(); // idempotent
    });

    // (The global register is that of the prom-client the app installed: `prom-client`'s here.)
    if (client === require('prom-client')) it('the default registry is prom-client\'s global register, the default set lagwatch.current()', async () => {
      const real = lagwatch.setupAllMonitors({ exitHook: false });
      try {
        const removeGlobal = collectLagwatchMetrics();
        try {
          assert.ok(client.register.getSingleMetric('lag_stalls') !== undefined);
          assert.strictEqual(one(parse(await client.register.metrics()), 'lag_stalls', { kind: 'hang' }), 0);
        } finally {
          removeGlobal();
        }
        assert.strictEqual(client.register.getSingleMetric('lag_stalls'), undefined);
      } finally {
        real.stop();
      }
    });

    it('bad input: TypeError or RangeError naming the argument, with its code; nothing registered', () => {
      const fresh = new client.Registry();
      for (const bad of [null, 5, 'registry', {}, { registerMetric() {} }]) {
        assertRejects(() => collectLagwatchMetrics({ register: bad, set: m }), TypeError, 'ERR_INVALID_ARG_TYPE', 'options.register');
      }
      for (const bad of [null, 5, {}, m.conditions]) {
        assertRejects(() => collectLagwatchMetrics({ register: fresh, set: bad }), TypeError, 'ERR_INVALID_ARG_TYPE', 'options.set');
      }
      assertRejects(() => collectLagwatchMetrics(7), TypeError, 'ERR_INVALID_ARG_TYPE', 'options');
      // An unknown option name is refused as at every other entry point, with the nearest name.
      assertRejects(() => collectLagwatchMetrics({ registry: fresh, set: m }), RangeError, 'ERR_OUT_OF_RANGE', '"register"');
      // No set runs on this thread's real clock: say so.
      assert.strictEqual(lagwatch.current(), undefined);
      assertRejects(() => collectLagwatchMetrics({ register: fresh }), TypeError, 'ERR_INVALID_ARG_TYPE', 'options.set');
      // Twice into one registry: refused before anything is added.
      assertRejects(() => collectLagwatchMetrics({ register: registry, set: m }), RangeError, 'ERR_OUT_OF_RANGE', 'options.register');
      const stopped = lagwatch.setupAllMonitors({ clock: lagwatch.createSimulation() });
      stopped.stop();
      assertRejects(() => collectLagwatchMetrics({ register: fresh, set: stopped }), RangeError, 'ERR_OUT_OF_RANGE', 'options.set');
      assert.deepStrictEqual(fresh.getMetricsAsArray(), []);
    });

    it('a throwing sink never breaks the conditions\' other listeners or the meter', () => {
      const sink = m.conditions._sinks[0];
      const orig = sink.onStall;
      sink.onStall = () => { throw new Error('boom'); };
      let heard = 0;
      m.conditions.on('stall', () => heard++);
      sim.advance(10000);
      sim.block(6000);
      sim.advance(10000);
      sink.onStall = orig;
      assert.strictEqual(heard, 1);
    });
  });
}
