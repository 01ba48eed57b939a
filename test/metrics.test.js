'use strict';
// SPEC §10 with the real OpenTelemetry SDK: a MeterProvider with a manual reader collects what
// lagwatch exported after simulated scenarios; names, units, attributes and values are checked
// against the events and stats() of the same run.
const assert = require('assert');
const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');
const { LoggerProvider, SimpleLogRecordProcessor, InMemoryLogRecordExporter } = require('@opentelemetry/sdk-logs');
const lagwatch = require('..');
const { STALL_BUCKETS, LAG_BUCKETS, RATIO_BUCKETS } = require('../lib/metrics');

class ManualReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

function setup(platform = 'linux', extra = {}) {
  const reader = new ManualReader();
  const provider = new MeterProvider({ readers: [reader] });
  const sim = lagwatch.createSimulation({ platform });
  const m = lagwatch.setupAllMonitors({ clock: sim, meter: provider.getMeter('lagwatch'), ...extra });
  return { reader, sim, m };
}

// name -> { unit, points: [{ attributes, value }] }
async function collect(reader) {
  const { resourceMetrics, errors } = await reader.collect();
  assert.deepStrictEqual(errors, []);
  const out = {};
  for (const sm of resourceMetrics.scopeMetrics) {
    for (const md of sm.metrics) out[md.descriptor.name] = { unit: md.descriptor.unit, points: md.dataPoints };
  }
  return out;
}

const point = (metrics, name, attrs = {}) => {
  assert.ok(metrics[name], `no metric ${name}`);
  const p = metrics[name].points.filter((x) => JSON.stringify(x.attributes) === JSON.stringify(attrs));
  assert.strictEqual(p.length, 1, `${name}${JSON.stringify(attrs)}: ${p.length} points`);
  return p[0].value;
};

describe('metrics (SPEC §10, real OpenTelemetry SDK)', () => {
  it('without a meter, the do-nothing metrics answer every method the conditions call on the real ones', () => {
    const fs = require('fs');
    const path = require('path');
    const { NoMetrics } = require('../lib/conditions');
    const { Metrics } = require('../lib/metrics');
    const lib = path.join(__dirname, '..', 'lib');
    const src = fs.readdirSync(lib).filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(lib, f), 'utf8')).join('\n');
    const called = new Set([...src.matchAll(/_metrics\.([a-zA-Z]+)\(/g), ...src.matchAll(/_toMetrics\('([a-zA-Z]+)'/g)].map((m) => m[1]));
    assert.ok(called.size >= 12, `the calls found: ${[...called]}`);
    for (const name of called) {
      assert.strictEqual(typeof Metrics.prototype[name], 'function', `Metrics.${name}`);
      assert.strictEqual(typeof NoMetrics.prototype[name], 'function', `NoMetrics.${name}`);
    }
  });

  it('the rates of a run: stats() hangsPerHour, hangSecondsPerHour, hadHang; lag_run_hang 0 until a hang, then 1', async () => {
    const { reader, sim, m } = setup();
    const c = m.conditions;
    let s = c.stats();
    assert.deepStrictEqual([s.hangsPerHour, s.hangSecondsPerHour, s.hadHang], [0, 0, false]);
    sim.advance(10000);
    assert.strictEqual(point(await collect(reader), 'lag_run_hang'), 0);
    sim.block(6000);
    sim.advance(10000);
    sim.block(7000);
    sim.advance(1800000 - 33000); // half an hour in all
    s = c.stats();
    assert.deepStrictEqual(s.stalls, { hang: 2, suspend: 0, pause: 0 });
    assert.strictEqual(s.hadHang, true);
    assert.ok(Math.abs(s.hangsPerHour - 4) < 1e-9, `2 hangs in half an hour: ${s.hangsPerHour}`);
    assert.ok(Math.abs(s.hangSecondsPerHour - 26) < 1e-9, `13 s of hangs in half an hour: ${s.hangSecondsPerHour}`);
    assert.strictEqual(point(await collect(reader), 'lag_run_hang'), 1);
    // A pause is no hang of the run.
    const other = setup();
    other.sim.advance(1000);
    other.sim.pause(6000);
    other.sim.advance(10000);
    s = other.m.conditions.stats();
    assert.strictEqual(s.stalls.pause, 1);
    assert.deepStrictEqual([s.hangsPerHour, s.hadHang], [0, false]);
    assert.strictEqual(point(await collect(other.reader), 'lag_run_hang'), 0);
  });

  it('SPEC §12: lag_stall_causes{kind, cause} by dominant cause, lag_main_thread_time{state} in seconds', async () => {
    const { reader, sim, m } = setup();
    sim.advance(10000);
    sim.block(6000, 'throttled');
    sim.advance(10000);
    sim.block(6000, 'starved');
    sim.advance(10000);
    const got = await collect(reader);
    for (const cause of ['busy', 'gc', 'blocked', 'starved', 'throttled']) {
      assert.strictEqual(point(got, 'lag_stall_causes', { kind: 'hang', cause }),
        cause === 'starved' || cause === 'throttled' ? 1 : 0, cause);
    }
    // The simulated main thread waited 12 s on its run queue, 6 s of them held by the quota.
    assert.strictEqual(got.lag_main_thread_time.unit, 's');
    assert.strictEqual(point(got, 'lag_main_thread_time', { state: 'cpu' }), 0);
    assert.strictEqual(point(got, 'lag_main_thread_time', { state: 'run_queue' }), 6);
    assert.strictEqual(point(got, 'lag_main_thread_time', { state: 'throttled' }), 6);
    m.stop();
  });

  it('blocks: lag_blocks from 0 for every cause a block can have, no series without one', async () => {
    const { reader, sim, m } = setup('linux', { blocks: { thresholdMs: 100 } });
    sim.advance(5000);
    let got = await collect(reader);
    const causes = (g) => Object.fromEntries(g.lag_blocks.points.map((p) => [p.attributes.cause, p.value]));
    assert.deepStrictEqual(causes(got), { busy: 0, gc: 0, blocked: 0, starved: 0, throttled: 0, unknown: 0 });
    assert.ok(got.lag_blocks.points.every((p) => Object.keys(p.attributes).length === 1), 'no label-less series');
    sim.block(300);
    sim.advance(5000);
    m._flush();
    got = await collect(reader);
    assert.strictEqual(Object.values(causes(got)).reduce((a, b) => a + b, 0), 1);
    assert.strictEqual(got.lag_blocks.points.length, 6);
    m.stop();
  });

  it('stall and block buckets answer a classic p95 within 10 % of a single value, as Prometheus interpolates it (SPEC §14)', () => {
    const { BOUNDS } = require('../lib/histograms');
    // histogram_quantile(0.95, …) of one observation v: 95 % of the way through its bucket.
    const p95 = (bounds, v) => {
      const i = bounds.findIndex((b) => v <= b);
      const lower = i === 0 ? 0 : bounds[i - 1];
      return lower + 0.95 * (bounds[i] - lower);
    };
    for (const [bounds, from, to, step] of [[BOUNDS.stall, 5000, 60000, 7], [BOUNDS.block, 50, 5000, 0.5]]) {
      for (let v = from; v <= to; v += step) {
        const q = p95(bounds, v);
        assert.ok(Math.abs(q - v) <= 0.1 * v, `p95 ${q} for ${v}`);
      }
    }
    // A 6050 ms hang and an 8004 ms stop.
    assert.ok(Math.abs(p95(BOUNDS.stall, 6050) - 6050) <= 605 && Math.abs(p95(BOUNDS.stall, 8004) - 8004) <= 800);
    assert.deepStrictEqual(STALL_BUCKETS, BOUNDS.stall, 'the stall histograms\' advice is the core\'s table');
  });

  it('a 6 s block: lag_stalls{kind=hang} = 1 and one 6000 ms point in the stall histogram', async () => {
    const { reader, sim, m } = setup();
    sim.advance(10000);
    sim.block(6000);
    sim.advance(10000);
    const got = await collect(reader);
    assert.strictEqual(point(got, 'lag_stalls', { kind: 'hang' }), 1);
    // The other kinds are there from the start, at 0 (a series that first appears at 1 hides
    // its first episode from Prometheus's rate() and increase()).
    assert.strictEqual(point(got, 'lag_stalls', { kind: 'suspend' }), 0);
    assert.strictEqual(point(got, 'lag_stalls', { kind: 'pause' }), 0);
    // And the fatal hangs of earlier runs, counted apart: from 0 too.
    assert.strictEqual(point(got, 'lag_stalls', { kind: 'hang', fatal: true }), 0);
    assert.strictEqual(got.lag_stalls.points.length, 4);
    assert.strictEqual(point(got, 'lag_stall_duration_histogram', { kind: 'pause' }).count, 0);
    const h = point(got, 'lag_stall_duration_histogram', { kind: 'hang' });
    assert.strictEqual(h.count, 1);
    assert.strictEqual(h.sum, 6000);
    assert.deepStrictEqual(h.buckets.boundaries, STALL_BUCKETS);
    assert.strictEqual(got.lag_stall_duration_histogram.unit, 'ms');
    // The worker's own view of the same hang.
    assert.strictEqual(point(got, 'lag_worker_hangs'), 1);
    const wh = point(got, 'lag_worker_hang_duration_histogram');
    assert.strictEqual(wh.count, 1);
    assert.strictEqual(wh.sum, 6000);
    m.stop();
  });

  it('monitor histograms count exactly what stats() recorded (batches, flushed at stop())', async () => {
    const { reader, sim, m } = setup();
    sim.advance(10000);
    sim.block(6000);
    sim.advance(3333); // the last batch is partial: stop() must flush it
    m.stop();
    const s = m.conditions.stats();
    const got = await collect(reader);
    const names = { driftLag: 'lag_drift_histogram', macrotaskLag: 'lag_macrotask_histogram',
      loopBlock: 'lag_loop_block_histogram', worker: 'lag_worker_lag_histogram',
      idleAvailability: 'lag_idle_availability' };
    for (const [monitor, metric] of Object.entries(names)) {
      const h = point(got, metric);
      assert.ok(s.monitors[monitor].recorded > 0, monitor);
      assert.strictEqual(h.count, s.monitors[monitor].recorded, `${metric} count`);
      assert.strictEqual(h.max, s.monitors[monitor].max, `${metric} max`);
    }
    assert.strictEqual(got.lag_idle_availability.unit, '1');
    assert.deepStrictEqual(point(got, 'lag_idle_availability').buckets.boundaries, RATIO_BUCKETS);
    assert.deepStrictEqual(point(got, 'lag_drift_histogram').buckets.boundaries, LAG_BUCKETS);
    const w = m.workerStats();
    assert.strictEqual(point(got, 'lag_worker_self_lag_histogram').count, w.workerSelfLag.count);
  });

  for (const platform of ['darwin', 'win32']) {
    it(`a sleep on ${platform}: discards by reason and monitor equal stats(), one suspend jump and episode`, async () => {
      const { reader, sim, m } = setup(platform);
      sim.advance(10000);
      sim.sleep(30000);
      sim.advance(10000);
      const s = m.conditions.stats();
      const got = await collect(reader);
      let total = 0;
      for (const p of got.lag_samples_discarded.points) {
        if (p.attributes.reason !== 'suspend') {
          assert.strictEqual(p.value, 0, JSON.stringify(p.attributes));
          continue;
        }
        assert.ok(s.monitors[p.attributes.monitor].discarded >= p.value);
        total += p.value;
      }
      assert.strictEqual(total, s.discarded.suspend);
      assert.ok(total >= 1);
      assert.strictEqual(point(got, 'lag_clock_jumps', { kind: 'suspend' }), 1);
      assert.strictEqual(point(got, 'lag_stalls', { kind: 'suspend' }), 1);
      m.stop();
    });
  }

  it('60 s hidden: the paused monitors add nothing, a probe\'s discards by monitor equal stats(), after dispose too', async () => {
    const { reader, sim, m } = setup();
    const probe = m.conditions.createValidator({ name: 'probe' });
    sim.advance(10000);
    const before = m.conditions.stats();
    m.conditions.setLifecycleState('hidden');
    for (let i = 0; i < 60; i++) {
      sim.advance(1000);
      probe.submit(3, 1000, () => {});
    }
    m.conditions.setLifecycleState('active');
    sim.advance(5000);
    m.stop();
    const s = m.conditions.stats();
    const got = await collect(reader);
    assert.strictEqual(point(got, 'lag_samples_discarded', { reason: 'hidden', monitor: 'probe' }), 60);
    assert.strictEqual(s.discarded.hidden, 60);
    assert.strictEqual(s.monitors.probe.discarded, 60);
    // The monitors were paused: their histograms grew by 10 s of samples at most (before and
    // after), never by the hidden minute; driftLag: 500 before, 250 after.
    assert.strictEqual(before.monitors.driftLag.recorded, 500);
    assert.strictEqual(point(got, 'lag_drift_histogram').count, 750);
    for (const p of got.lag_samples_discarded.points) {
      if (p.attributes.monitor !== 'probe' || p.attributes.reason !== 'hidden') assert.strictEqual(p.value, 0);
    }
  });

  it('wall-clock steps: lag_clock_jumps{kind=step} = 2, nothing discarded', async () => {
    const { reader, sim, m } = setup();
    sim.advance(5000);
    sim.stepWall(3600000);
    sim.advance(5000);
    sim.stepWall(-3600000);
    sim.advance(5000);
    const got = await collect(reader);
    assert.strictEqual(point(got, 'lag_clock_jumps', { kind: 'step' }), 2);
    assert.strictEqual(point(got, 'lag_clock_jumps', { kind: 'suspend' }), 0);
    for (const p of got.lag_samples_discarded.points) assert.strictEqual(p.value, 0, JSON.stringify(p.attributes));
    for (const p of got.lag_stalls.points) assert.strictEqual(p.value, 0, JSON.stringify(p.attributes));
    m.stop();
  });

  it('nodejs.eventloop.*: delay statistics of the recorded driftLag samples of the last minute (s), utilization and time from the recorded idle periods; every reader reads the same', async () => {
    const { reader, sim, m } = setup();
    assert.strictEqual(sim.now(), 0);
    // The recorded driftLag values, as the flushes hand them to the metrics.
    let drift = [];
    const onBatch = m.conditions._metrics.onBatch.bind(m.conditions._metrics);
    m.conditions._metrics.onBatch = (batches, selfLag) => {
      if (batches.driftLag) drift.push(...batches.driftLag);
      onBatch(batches, selfLag);
    };
    const expected = (values) => {
      const sorted = [...values].sort((a, b) => a - b);
      const rank = (q) => sorted[Math.ceil(q * sorted.length) - 1];
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const variance = values.reduce((a, v) => a + v * v, 0) / values.length - mean * mean;
      return { min: sorted[0] / 1000, max: sorted[sorted.length - 1] / 1000, mean: mean / 1000,
        stddev: Math.sqrt(variance) / 1000, p50: rank(0.5) / 1000, p90: rank(0.9) / 1000, p99: rank(0.99) / 1000 };
    };
    const delay = (got) => Object.fromEntries(['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']
      .map((k) => [k, point(got, `nodejs.eventloop.delay.${k}`)]));
    // min, max, mean and stddev exact; percentiles within the core histogram's 1/64 (and its
    // first bucket's 1e-6 ms for zeros).
    const near = (a, b) => Object.keys(b).every((k) => Math.abs(a[k] - b[k]) <=
      (k[0] === 'p' ? b[k] / 64 + 2e-9 : 1e-12));

    // 10 idle seconds, then a second with 400 ms of work; lateness of 30..300 ms on 10 firings.
    sim.advance(10000);
    sim.block(400);
    sim.advance(600);
    for (let i = 1; i <= 10; i++) {
      sim.block(30 * i);
      sim.advance(1000 - 30 * i);
    }
    m._flush();
    let got = await collect(reader);
    assert.strictEqual(got['nodejs.eventloop.delay.p99'].unit, 's');
    assert.ok(drift.length > 500, `${drift.length} driftLag samples`);
    assert.ok(drift.some((v) => v >= 250), 'a late firing among them');
    const first = expected(drift);
    assert.ok(near(delay(got), first), `${JSON.stringify(delay(got))} != ${JSON.stringify(first)}`);
    assert.ok(first.p99 > first.p50, JSON.stringify(first));
    // Time over the recorded idleAvailability periods: 21 s, 0.4 + 1.65 s of them busy.
    assert.strictEqual(got['nodejs.eventloop.time'].unit, 's');
    const active = point(got, 'nodejs.eventloop.time', { 'nodejs.eventloop.state': 'active' });
    const idle = point(got, 'nodejs.eventloop.time', { 'nodejs.eventloop.state': 'idle' });
    assert.ok(Math.abs(active - 2.05) < 1e-9 && Math.abs(idle - 18.95) < 1e-9, `active ${active}, idle ${idle}`);
    assert.ok(Math.abs(point(got, 'nodejs.eventloop.utilization') - 2.05 / 21) < 1e-9);

    // A second reader at the same moment (another scraper), and the first again 5 quiet seconds
    // later: nothing was taken away, the window holds every sample since start.
    const again = await collect(reader);
    assert.deepStrictEqual(delay(again), delay(got));
    assert.strictEqual(point(again, 'nodejs.eventloop.utilization'), point(got, 'nodejs.eventloop.utilization'));
    const all = [...drift];
    sim.advance(5000);
    m._flush();
    got = await collect(reader);
    assert.ok(near(delay(got), expected(drift)), `${JSON.stringify(delay(got))} != ${JSON.stringify(expected(drift))}`);
    assert.ok(all.length < drift.length && delay(got).max === first.max);
    assert.ok(Math.abs(point(got, 'nodejs.eventloop.utilization') - 2.05 / 26) < 1e-9);
    // The window is the last 60 to 70 s: at 100 s it holds the slices from 40 s on, 60 quiet
    // seconds (lateness 0 in the simulation), none of the busy second.
    sim.advance(100000 - sim.now());
    m.stop();
    got = await collect(reader);
    assert.strictEqual(point(got, 'nodejs.eventloop.delay.max'), 0);
    assert.strictEqual(point(got, 'nodejs.eventloop.delay.p99'), 0);
    assert.strictEqual(point(got, 'nodejs.eventloop.utilization'), 0);
    assert.ok(Math.abs(point(got, 'nodejs.eventloop.time', { 'nodejs.eventloop.state': 'idle' }) - (100 - 2.05)) < 1e-9);
  });

  it('nodejs.eventloop.*: two readers of one meter (two scrapers, or a scraper and a push) read the same figures, whatever their order', async () => {
    const a = new ManualReader();
    const b = new ManualReader();
    const provider = new MeterProvider({ readers: [a, b] });
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim, meter: provider.getMeter('lagwatch') });
    const figures = (got) => ['min', 'max', 'mean', 'p50', 'p99'].map((k) => point(got, `nodejs.eventloop.delay.${k}`))
      .concat(point(got, 'nodejs.eventloop.utilization'));
    sim.advance(3000);
    sim.block(250);
    sim.advance(3000);
    m._flush();
    const first = figures(await collect(a));
    assert.ok(first[1] >= 0.2, `max ${first[1]}`);
    assert.deepStrictEqual(figures(await collect(b)), first);
    assert.deepStrictEqual(figures(await collect(a)), first);
    sim.advance(1000);
    m._flush();
    const later = figures(await collect(b));
    assert.deepStrictEqual(figures(await collect(a)), later);
    assert.strictEqual(later[1], first[1], 'the block is still in the window');
    m.stop();
  });

  it('nodejs.eventloop.*: samples that were not the app\'s fault (a stopped process) are not in them', async () => {
    const { reader, sim, m } = setup();
    sim.advance(5000);
    sim.pause(900); // SIGSTOP for 900 ms: every sample across it is discarded (SPEC §2)
    sim.advance(5000);
    m.stop();
    const got = await collect(reader);
    assert.ok(m.conditions.stats().discarded.pause > 0, JSON.stringify(m.conditions.stats().discarded));
    assert.strictEqual(point(got, 'nodejs.eventloop.delay.max'), 0);
    assert.strictEqual(point(got, 'nodejs.eventloop.time', { 'nodejs.eventloop.state': 'active' }), 0);
  });

  it('an OpenTelemetry logger gets one lag.stall record per episode, with kind, duration_ms and a hang\'s cause', () => {
    const exporter = new InMemoryLogRecordExporter();
    const lp = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim, logger: lp.getLogger('lagwatch') });
    sim.advance(10000);
    sim.block(6000);
    sim.advance(10000);
    sim.pause(7000);
    sim.advance(10000);
    const records = exporter.getFinishedLogRecords().filter((r) => r.body === 'lag.stall');
    assert.deepStrictEqual(records.map((r) => r.attributes), [
      {
        kind: 'hang',
        duration_ms: 6000,
        cause: 'busy',
        'cause.cpu_ms': 6000, // the cause spans the hang's own time: all 6000 ms of the block on the CPU
        'cause.run_queue_ms': 0,
        'cause.throttled_ms': 0,
        'cause.blocked_ms': 0,
        'cause.gc_ms': 0,
        'thread.id': 0, // the thread, by OpenTelemetry's attribute names (SPEC §14)
        'thread.name': 'main',
      },
      { kind: 'pause', duration_ms: 6980, 'thread.id': 0, 'thread.name': 'main' },
    ]);
    m.stop();
  });

  it('a process among several (a PM2 instance here) names itself on its records: process.pid and its instance', () => {
    const exporter = new InMemoryLogRecordExporter();
    const lp = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim, logger: lp.getLogger('lagwatch') });
    process.env.NODE_APP_INSTANCE = '3';
    try {
      sim.advance(10000);
      sim.block(6000);
      sim.advance(10000);
    } finally {
      delete process.env.NODE_APP_INSTANCE;
      m.stop();
    }
    const [record] = exporter.getFinishedLogRecords().filter((r) => r.body === 'lag.stall');
    assert.strictEqual(record.attributes['process.pid'], process.pid);
    assert.strictEqual(record.attributes['pm2.instance'], 3);
    assert.strictEqual(record.attributes['thread.name'], 'main');
  });

  it('by default, the global API\'s meter and logger: an app\'s registered SDK gets lagwatch\'s metrics and lag.stall records with no code', async () => {
    const api = require('@opentelemetry/api');
    const { logs } = require('@opentelemetry/api-logs');
    const reader = new ManualReader();
    const provider = new MeterProvider({ readers: [reader] });
    const exporter = new InMemoryLogRecordExporter();
    const lp = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
    assert.ok(api.metrics.setGlobalMeterProvider(provider));
    assert.ok(logs.setGlobalLoggerProvider(lp));
    try {
      const sim = lagwatch.createSimulation();
      const m = lagwatch.setupAllMonitors({ clock: sim });
      sim.advance(10000);
      sim.block(6000);
      sim.advance(10000);
      m.stop();
      const { resourceMetrics } = await reader.collect();
      const scope = resourceMetrics.scopeMetrics.find((sm) => sm.scope.name === 'lagwatch');
      assert.ok(scope, 'a lagwatch scope');
      assert.strictEqual(scope.scope.version, require('../package.json').version);
      const stalls = scope.metrics.find((md) => md.descriptor.name === 'lag_stalls');
      assert.strictEqual(stalls.dataPoints.find((p) => p.attributes.kind === 'hang').value, 1);
      const records = exporter.getFinishedLogRecords().filter((r) => r.body === 'lag.stall');
      assert.strictEqual(records.length, 1);
      assert.strictEqual(records[0].instrumentationScope.name, 'lagwatch');
    } finally {
      api.metrics.disable();
      logs.disable();
    }
  });

  it('with no SDK registered, nothing is recorded, and @opentelemetry/api is not even loaded (a child process)', () => {
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim });
    assert.strictEqual(m.conditions._metrics.noop, true);
    m.stop();
    const code = "const lw = require('lagwatch'); const m = lw.setupAllMonitors(); m.stop();" +
      "console.log(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry'))));" +
      "const api = require('@opentelemetry/api');" +
      "console.log(lw.createNoopMeter() === api.createNoopMeter());";
    const r = require('child_process').spawnSync(process.execPath, ['-e', code],
      { cwd: require('path').join(__dirname, '..'), encoding: 'utf8' });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.deepStrictEqual(r.stdout.trim().split('\n'), ['[]', 'true']);
  });

  it('createNoopMeter() is a valid meter; a bad meter is a TypeError', () => {
    const meter = lagwatch.createNoopMeter();
    assert.strictEqual(typeof meter.createHistogram, 'function');
    const c = lagwatch.createConditions({ meter, clock: lagwatch.createSimulation() });
    c.dispose();
    for (const bad of [null, 5, {}, { createCounter() {} }]) {
      assert.throws(() => lagwatch.createConditions({ meter: bad }), (err) =>
        err instanceof TypeError && /options\.meter/.test(err.message));
    }
  });

  it('a meter that throws is logged and breaks nothing', () => {
    const logs = [];
    const boom = () => { throw new Error('meter down'); };
    const meter = { createCounter: () => ({ add: boom }), createHistogram: () => ({ record: boom }),
      createObservableCounter: () => ({ addCallback() {} }), createObservableGauge: () => ({ addCallback() {} }),
      addBatchObservableCallback() {} };
    const sim = lagwatch.createSimulation();
    const m = lagwatch.setupAllMonitors({ clock: sim, meter, logger: { log: (l, msg) => logs.push(msg) } });
    const stalls = [];
    m.conditions.on('stall', (s) => stalls.push(s));
    sim.advance(10000);
    sim.block(6000);
    sim.advance(10000);
    assert.strictEqual(stalls.length, 1);
    assert.ok(logs.some((l) => /meter down/.test(l)));
    m.stop();
  });
});
