'use strict';
// SPEC §10 and §14 against a real Prometheus (Debian's 2.42): started with
// --enable-feature=native-histograms, as SPEC §10's third query needs, SPEC §10's three queries
// run exactly as written; beside it a second one with its default flags (as it
// comes: the text format, counters with _total, classic buckets); every panel of
// dashboards/grafana.json returns its series from both. The app is test/fixtures/prometheus-app.js under `node -r lagwatch/register` with
// OTEL_EXPORTER_PROMETHEUS_PORT=0 (register serves /metrics; the app reaches its monitor set with
// lagwatch.current()). Prometheus (127.0.0.1, a free port, a temporary config and data directory,
// scrape and evaluation every 1 s) asks for the protobuf exposition: histograms arrive as native
// histograms and counters as named (lag_stalls, no _total). The app's loop is blocked for 7 s
// (/block?ms=7000: one hang episode; the port answers through it, lib/responder.js) and it is hidden for 3 s (/hide?ms=3000: its probe's samples
// are discarded with reason "hidden"); once the episode is reported and scraped, /api/v1/query is
// asked. A scraper that does not ask for protobuf gets the text format's classic series (checked on
// the app's /metrics). Prometheus and the app are stopped and the temporary directory removed in
// after(), whatever happened. A missing `prometheus` is a failure, not a skip.
const assert = require('assert');
const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const APP = path.join(__dirname, 'fixtures', 'prometheus-app.js');
const DASHBOARD = path.join(ROOT, 'dashboards', 'grafana.json');
const { STALL_BUCKETS } = require('../lib/metrics');
const { SCHEMA, PROTOBUF_TYPE } = require('../lib/exposition');
const protobuf = require('protobufjs');

// What Prometheus 2.42 sends with native histograms on.
const PROMETHEUS_ACCEPT = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;' +
  'encoding=delimited;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

// The app's one hang: long enough that a scrape every second lands while it runs, flagged.
const HANG_MS = 7000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// `prometheus` from PATH (CI installs the Debian package: /usr/bin/prometheus), or null.
function findPrometheus() {
  const dirs = (process.env.PATH || '').split(path.delimiter).concat(['/usr/bin', '/usr/local/bin']);
  for (const dir of dirs) {
    const file = path.join(dir, 'prometheus');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not there
    }
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function get(port, urlPath, timeoutMs = 10000, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: timeoutMs, headers }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode, headers: res.headers, raw, body: raw.toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET 127.0.0.1:${port}${urlPath} timed out`)));
    req.on('error', reject);
  });
}

// A child process whose output is kept, for waiting on and for failure messages.
function start(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { child, out: '', exit: null };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d) => { p.out += d; });
  child.stderr.on('data', (d) => { p.out += d; });
  p.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => { p.exit = { code, signal }; resolve(p.exit); });
    child.on('error', (err) => { p.out += `\nspawn error: ${err.message}`; p.exit = { error: err.message }; resolve(p.exit); });
  });
  return p;
}

// SIGTERM, then SIGKILL if it has not exited within `graceMs`.
async function stop(p, graceMs = 5000) {
  if (!p || p.exit) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => { if (!p.exit) p.child.kill('SIGKILL'); }, graceMs);
  await p.exited;
  clearTimeout(timer);
}

// Polls `fn` (async, returns a truthy value when done) every `everyMs` until `timeoutMs`.
async function until(what, fn, timeoutMs, everyMs = 250, describe = () => '') {
  const end = performance.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (performance.now() > end) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}` +
        `${last ? ` (last error: ${last.message})` : ''}\n${describe()}`);
    }
    await sleep(everyMs);
  }
}

// Prometheus (127.0.0.1, a free port, its config and data under `ctx.tmp`, scrape and evaluation
// every 1 s, native histograms on) scraping `ctx.metricsPort`'s /metrics, until it has scraped it
// once. It is `ctx.prom` (on `ctx.promPort`) from its spawn on, for after() to stop whatever
// happens; a port taken between freePort() and its bind: another.
async function startPrometheus(ctx, describeAll, features = ['--enable-feature=native-histograms']) {
  const prometheus = findPrometheus();
  assert.ok(prometheus, 'the `prometheus` binary is not installed (not on PATH, not /usr/bin/prometheus): ' +
    'this test needs a real Prometheus (Debian/Ubuntu: apt-get install prometheus)');
  const config = path.join(ctx.tmp, 'prometheus.yml');
  fs.writeFileSync(config, [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    '  - job_name: lagwatch',
    '    static_configs:',
    `      - targets: ['127.0.0.1:${ctx.metricsPort}']`,
    '',
  ].join('\n'));
  for (let attempt = 1; ; attempt++) {
    ctx.promPort = await freePort();
    ctx.prom = start(prometheus, [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(ctx.tmp, `data${attempt}`)}`,
      `--web.listen-address=127.0.0.1:${ctx.promPort}`,
      ...features,
      '--log.level=warn',
    ], { ...process.env });
    const ready = await until('Prometheus /-/ready', async () => {
      if (ctx.prom.exit) return 'exited';
      return (await get(ctx.promPort, '/-/ready', 2000)).status === 200 ? 'ready' : null;
    }, 30000, 200, describeAll);
    if (ready === 'ready') break;
    if (attempt >= 3 || !/address already in use/i.test(ctx.prom.out)) {
      assert.fail(`Prometheus did not start: ${describeAll()}`);
    }
  }
  // The target is up: Prometheus has scraped the app at least once.
  await until('the target up in /api/v1/targets', async () => {
    const body = JSON.parse((await get(ctx.promPort, '/api/v1/targets')).body);
    const t = body.data.activeTargets.find((a) => a.scrapeUrl === `http://127.0.0.1:${ctx.metricsPort}/metrics`);
    return t && t.health === 'up';
  }, 30000, 250, describeAll);
}

// Did driftLag record a sample of 5 s or more (the hang's lateness)? From a text exposition's
// lag_drift_histogram, summed over its series (a cluster's processes with `labels`).
function driftSawHang(text, labels = '') {
  const sum = (re) => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
  const count = sum(new RegExp(`^lag_drift_histogram_count\\{?[^}\\n]*${labels}[^}\\n]*\\}? (\\S+)$`, 'gm'));
  const under = sum(new RegExp(`^lag_drift_histogram_bucket\\{[^}\\n]*${labels}[^}\\n]*le="5000"[^}\\n]*\\} (\\S+)$`, 'gm'));
  return count > under;
}

// An instant query of Prometheus at `promPort`: its result as [{ metric, value (a number), raw
// (Prometheus's string) }].
async function queryAt(promPort, q, resultType = 'vector') {
  const res = await get(promPort, `/api/v1/query?query=${encodeURIComponent(q)}`);
  assert.strictEqual(res.status, 200, `query ${q}: ${res.body}`);
  const body = JSON.parse(res.body);
  assert.strictEqual(body.status, 'success', `query ${q}: ${res.body}`);
  assert.strictEqual(body.data.resultType, resultType, `query ${q}: ${res.body}`);
  if (resultType !== 'vector') return body.data.result;
  return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]), raw: r.value[1] }));
}

describe('Prometheus scrapes the exporter: the three queries of SPEC §10', function () {
  this.timeout(180000);

  const ctx = { tmp: null, app: null, prom: null, appPort: 0, metricsPort: 0, promPort: 0, appMetrics: '' };
  const describeAll = () =>
    `--- app (${JSON.stringify(ctx.app && ctx.app.exit)}) ---\n${ctx.app ? ctx.app.out.slice(-3000) : ''}` +
    `\n--- prometheus (${JSON.stringify(ctx.prom && ctx.prom.exit)}) ---\n${ctx.prom ? ctx.prom.out.slice(-3000) : ''}`;

  const query = (q, resultType) => queryAt(ctx.promPort, q, resultType);

  before(async function () {
    ctx.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-prometheus-'));

    // The app, under register, on free ports.
    const env = { ...process.env, OTEL_EXPORTER_PROMETHEUS_PORT: '0', OTEL_SERVICE_NAME: 'lagwatch-test' };
    for (const k of Object.keys(env)) if (k.startsWith('LAGWATCH_') || k === 'NODE_OPTIONS') delete env[k];
    env.LAGWATCH_BLOCK_MS = '200'; // blocks, for the dashboard's panel
    ctx.app = start(process.execPath, ['-r', 'lagwatch/register', APP], env);
    const listening = await until('the app\'s "listening on" and "metrics at" lines', () => {
      if (ctx.app.exit) return Promise.reject(new Error('the app exited'));
      const a = ctx.app.out.match(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m);
      const b = ctx.app.out.match(/^lagwatch: metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics$/m);
      return a && b && [a, b];
    }, 15000, 50, describeAll);
    ctx.appPort = Number(listening[0][1]);
    ctx.metricsPort = Number(listening[1][1]);

    await startPrometheus(ctx, describeAll);
    // The target reads as up in /api/v1/targets a moment before its sample answers a query.
    const up = await until('up{job="lagwatch"} in a query', async () => {
      const r = await query('up{job="lagwatch"}');
      return r.length > 0 && r;
    }, 10000, 100, describeAll);
    assert.strictEqual(up.length, 1, JSON.stringify(up));
    assert.strictEqual(up[0].value, 1, JSON.stringify(up));
    // The second Prometheus, with its default flags.
    ctx.plain = { tmp: path.join(ctx.tmp, 'plain'), metricsPort: ctx.metricsPort, prom: null, promPort: 0 };
    fs.mkdirSync(ctx.plain.tmp);
    await startPrometheus(ctx.plain, describeAll, []);

    // A real 7 s block (one hang episode), a 400 ms one (a block), then a forced hidden period of 3 s.
    const blocked = await get(ctx.appPort, `/block?ms=${HANG_MS}`, 30000);
    assert.strictEqual(blocked.status, 200, blocked.body);
    assert.strictEqual((await get(ctx.appPort, '/block?ms=400')).status, 200);
    const hidden = await get(ctx.appPort, '/hide?ms=3000');
    assert.strictEqual(hidden.status, 200, hidden.body);

    // The episode is reported ~4 s after the block ended (2 s hold + 2 s episode delay).
    await until('lag_stalls_total{kind="hang"} 1 on the app\'s /metrics', async () => {
      ctx.appMetrics = (await get(ctx.metricsPort, '/metrics')).body;
      return /^lag_stalls_total\{kind="hang"[^}]*\} 1$/m.test(ctx.appMetrics);
    }, 20000, 250, describeAll);
    // ...and scraped: Prometheus holds 3 samples of it at 1 (3 scrapes after the episode; every
    // series is exported from the start at 0, so that the rise is seen), and the hidden period
    // is over (3 s after /hide).
    await until('3 scrapes of lag_stalls{kind="hang"} at 1, in both', async () =>
      (await query('count_over_time((lag_stalls{kind="hang"} == 1)[1m:1s])')).some((r) => r.value >= 3) &&
      (await queryAt(ctx.plain.promPort, 'count_over_time((lag_stalls_total{kind="hang"} == 1)[1m:1s])')).some((r) => r.value >= 3),
    20000, 250, describeAll);
    ctx.appMetrics = (await get(ctx.metricsPort, '/metrics')).body;
    ctx.proto = await get(ctx.metricsPort, '/metrics', 10000, { accept: PROMETHEUS_ACCEPT });
  });

  after(async function () {
    this.timeout(30000);
    await Promise.all([stop(ctx.prom), stop(ctx.plain && ctx.plain.prom), stop(ctx.app)]);
    if (ctx.tmp) fs.rmSync(ctx.tmp, { recursive: true, force: true });
  });

  // The families of a delimited protobuf exposition, by name.
  function decode(raw) {
    const MetricFamily = protobuf.parse(SCHEMA).root.lookupType('io.prometheus.client.MetricFamily');
    const reader = protobuf.Reader.create(raw);
    const out = {};
    while (reader.pos < reader.len) {
      const f = MetricFamily.toObject(MetricFamily.decodeDelimited(reader), { longs: Number, enums: String, defaults: true });
      out[f.name] = f;
    }
    return out;
  }
  const labelsOf = (metric) => Object.fromEntries(metric.label.map((l) => [l.name, l.value]));
  // The duration of the hang episode, from the text format's histogram (its only observation).
  const hangMs = () => Number(/^lag_stall_duration_histogram_sum\{kind="hang"[^}]*\} (\S+)$/m.exec(ctx.appMetrics)[1]);

  it('a scraper that does not ask for protobuf gets the text format: counters with _total, classic buckets', function () {
    const text = ctx.appMetrics;
    assert.match(text, /^# TYPE lag_samples_discarded_total counter$/m, text);
    assert.match(text, /^# TYPE lag_stalls_total counter$/m, text);
    assert.match(text, /^# TYPE lag_stall_duration_histogram histogram$/m, text);
    // The bucket boundaries are lib/metrics.js STALL_BUCKETS.
    const les = [...text.matchAll(/^lag_stall_duration_histogram_bucket\{kind="hang",[^}]*le="([^"]+)"\} (\S+)$/gm)]
      .map((m) => [m[1], Number(m[2])]);
    assert.deepStrictEqual(les.map(([le]) => le), [...STALL_BUCKETS.map(String), '+Inf'], text);
    const ms = hangMs();
    assert.ok(ms >= HANG_MS - 200 && ms <= HANG_MS + 600, `one hang of ${ms} ms`);
    for (const [le, n] of les) assert.strictEqual(n, (le === '+Inf' ? Infinity : Number(le)) >= ms ? 1 : 0, `le=${le}`);
    assert.match(text, /^target_info\{[^}]*service_name="lagwatch-test"/m, 'OTEL_SERVICE_NAME in target_info');
  });

  it('Prometheus\'s Accept gets the protobuf exposition: native histograms, counters without _total', function () {
    assert.strictEqual(ctx.proto.status, 200);
    assert.strictEqual(ctx.proto.headers['content-type'], PROTOBUF_TYPE);
    const fam = decode(ctx.proto.raw);
    assert.strictEqual(fam.lag_stalls.type, 'COUNTER');
    assert.strictEqual(fam.lag_samples_discarded.type, 'COUNTER');
    assert.ok(!fam.lag_stalls_total, 'no _total family');
    const hang = fam.lag_stall_duration_histogram.metric.find((m) => labelsOf(m).kind === 'hang');
    const h = hang.histogram;
    assert.strictEqual(h.sampleCount, 1);
    assert.strictEqual(h.bucket.length, 0, 'no classic buckets');
    assert.ok(h.schema >= -4 && h.schema <= 8, `schema ${h.schema}`);
    assert.strictEqual(h.zeroThreshold, 0, 'as OpenTelemetry\'s: exact zeros only');
    // One bucket, the one that holds the episode's duration: (2^((j-1)/2^schema), 2^(j/2^schema)].
    assert.strictEqual(h.positiveSpan.length, 1);
    assert.strictEqual(h.positiveSpan[0].length, 1);
    assert.deepStrictEqual(h.positiveDelta, [1]);
    const j = h.positiveSpan[0].offset;
    const base = 2 ** (2 ** -h.schema);
    const ms = hangMs();
    assert.ok(base ** (j - 1) < ms && ms <= base ** j, `${ms} ms in bucket ${j} of schema ${h.schema}`);
    const target = fam.target_info.metric.map(labelsOf);
    assert.strictEqual(target[0].service_name, 'lagwatch-test');
    // The histograms of recorded samples come from lagwatch's exponential producer (no JS per
    // sample): native too, every sample in a bucket or the zero bucket.
    for (const name of ['lag_loop_block_histogram', 'lag_drift_histogram', 'lag_worker_self_lag_histogram']) {
      assert.strictEqual(fam[name].type, 'HISTOGRAM', name);
      assert.strictEqual(fam[name].metric.length, 1, name);
      const n = fam[name].metric[0].histogram;
      assert.ok(n.sampleCount > 0, `${name}: ${n.sampleCount} samples`);
      assert.strictEqual(n.bucket.length, 0, `${name}: no classic buckets`);
      let count = 0;
      let inBuckets = 0;
      for (const d of n.positiveDelta) inBuckets += (count += Number(d));
      assert.strictEqual(inBuckets + Number(n.zeroCount), Number(n.sampleCount), name);
    }
  });

  it('Prometheus stored what it scraped as native histograms and counters named as SPEC §10\'s queries', async function () {
    assert.deepStrictEqual(await query('lag_stalls_total'), [], 'no _total series');
    assert.deepStrictEqual(await query('lag_stall_duration_histogram_bucket'), [], 'no classic buckets');
    // loopBlock's histogram, exported by lagwatch's producer, stored as a native one.
    assert.deepStrictEqual(await query('lag_loop_block_histogram_bucket'), [], 'no classic loopBlock buckets');
    const blocks = await query('histogram_count(lag_loop_block_histogram)');
    assert.strictEqual(blocks.length, 1, JSON.stringify(blocks));
    assert.ok(blocks[0].value > 0, JSON.stringify(blocks));
    const hang = await query('lag_stalls{kind="hang",fatal=""}');
    assert.strictEqual(hang.length, 1);
    assert.strictEqual((await query('lag_stalls{kind="hang",fatal="true"}'))[0].value, 0, 'the fatal hangs of earlier runs: from 0');
    assert.strictEqual(hang[0].value, 1);
    assert.strictEqual(hang[0].metric.job, 'lagwatch');
  });

  it('seed query 1, verbatim: sum by (reason) (rate(lag_samples_discarded[5m])) has reason="hidden" > 0', async function () {
    const r = await query('sum by (reason) (rate(lag_samples_discarded[5m]))');
    const hidden = r.find((x) => x.metric.reason === 'hidden');
    assert.ok(hidden && hidden.value > 0, JSON.stringify(r));
    // ...and what Prometheus stored equals the app's own count.
    const inApp = [...ctx.appMetrics.matchAll(/^lag_samples_discarded_total\{reason="hidden",[^}]*\} (\S+)$/gm)]
      .reduce((a, m) => a + Number(m[1]), 0);
    assert.ok(inApp > 0, 'the app counted hidden discards');
    const stored = await query('sum(lag_samples_discarded{reason="hidden"})');
    assert.strictEqual(stored[0].value, inApp);
  });

  it('seed query 2, verbatim: sum by (kind) (increase(lag_stalls[1h])) has kind="hang" > 0, the other kinds 0', async function () {
    const r = await query('sum by (kind) (increase(lag_stalls[1h]))');
    const byKind = Object.fromEntries(r.map((x) => [x.metric.kind, x.value]));
    assert.ok(byKind.hang > 0, JSON.stringify(r));
    assert.strictEqual(byKind.suspend, 0, JSON.stringify(r));
    assert.strictEqual(byKind.pause, 0, JSON.stringify(r));
  });

  it('seed query 3, verbatim, on a native histogram: histogram_quantile(0.95, sum by (kind) (rate(lag_stall_duration_histogram[1h]))) ' +
    'for kind="hang" lies in the native bucket of the episode\'s duration', async function () {
    const r = await query('histogram_quantile(0.95, sum by (kind) (rate(lag_stall_duration_histogram[1h])))');
    const hang = r.filter((x) => x.metric.kind === 'hang');
    assert.strictEqual(hang.length, 1, JSON.stringify(r));
    const h = decode(ctx.proto.raw).lag_stall_duration_histogram.metric.find((m) => labelsOf(m).kind === 'hang').histogram;
    const base = 2 ** (2 ** -h.schema);
    const j = h.positiveSpan[0].offset;
    const v = hang[0].value;
    assert.ok(v > base ** (j - 1) && v <= base ** j, `p95 ${hang[0].raw} in (${base ** (j - 1)}, ${base ** j}]`);
    assert.ok(Math.abs(v - hangMs()) / hangMs() < 0.01, `p95 ${v} within 1 % of the episode's ${hangMs()} ms`);
  });

  it('OpenTelemetry\'s semantic-convention Node.js metrics are there, from recorded samples', async function () {
    for (const k of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
      const r = await query(`nodejs_eventloop_delay_${k}`);
      assert.strictEqual(r.length, 1, `nodejs_eventloop_delay_${k}: ${JSON.stringify(r)}`);
      // The last minute holds the hang, the app's own: the maximum is its lateness when driftLag
      // recorded it (its timer may have slept through the idle wait the request ended, leaving
      // the hang to loopBlock and the worker); every other figure is of thousands of everyday
      // samples.
      if (k === 'max' && driftSawHang(ctx.appMetrics)) {
        assert.ok(Math.abs(r[0].value * 1000 - hangMs()) < 250, `max ${r[0].raw} s, the hang ${hangMs()} ms`);
      } else {
        assert.ok(r[0].value >= 0 && r[0].value < 5, `${k} ${r[0].raw} s: the 6 s hang is one sample among thousands`);
      }
    }
    const u = await query('nodejs_eventloop_utilization');
    assert.ok(u.length === 1 && u[0].value >= 0 && u[0].value <= 1, JSON.stringify(u));
    const t = await query('sum by (nodejs_eventloop_state) (nodejs_eventloop_time)');
    assert.deepStrictEqual(t.map((x) => x.metric.nodejs_eventloop_state).sort(), ['active', 'idle']);
  });

  it('the port answered through the hang (off the main thread): up at every scrape, and lag_hang_in_progress showed it, in both', async function () {
    for (const [which, port] of [['native histograms', ctx.promPort], ['default flags', ctx.plain.promPort]]) {
      const up = await queryAt(port, 'min_over_time(up{job="lagwatch"}[10m])');
      assert.deepStrictEqual(up.map((x) => x.value), [1], `${which}: ${JSON.stringify(up)}`);
      // Flagged at the threshold (5 s), the hang held the thread 2 s more: scraped while it ran.
      const seen = await queryAt(port, 'max_over_time(lag_hang_in_progress{cause=~"busy|starved"}[10m])');
      assert.ok(seen.some((x) => x.value >= 5000 && x.value <= hangMs()), `${which}: ${JSON.stringify(seen)}`);
      const now = await queryAt(port, 'max(lag_hang_in_progress)');
      assert.deepStrictEqual(now.map((x) => x.value), [0], `${which}: nothing holds it now`);
    }
  });

  describe('dashboards/grafana.json: every panel\'s query returns its series, on Prometheus with native histograms and as it comes', function () {
    const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8'));
    const SELECTOR = '{job=~"$job",instance=~"$instance"}';
    const within10 = (v) => Math.abs(v - hangMs()) <= 0.1 * hangMs();
    // What each panel must show after a 7 s busy hang, a 400 ms block and 3 s hidden (by its
    // first query; the others by refId where said).
    const EXPECT = {
      'Samples discarded, by reason (not the app\'s fault)': (r) => r.some((x) => x.metric.reason === 'hidden' && x.value > 0),
      'Stall episodes, by kind (last hour)': (r) => r.some((x) => x.metric.kind === 'hang' && x.value > 0) &&
        ['suspend', 'pause'].every((k) => r.some((x) => x.metric.kind === k && x.value === 0)),
      // Classic buckets as fine as native ones here: a single hang's p95 within 10 % (SPEC §14).
      'p95 stall duration, by kind': (r) => r.some((x) => x.metric.kind === 'hang' && within10(x.value)),
      'Everyday lag: driftLag p50 / p99 (recorded samples)': (r) => r.length === 1 && r[0].value >= 0 && r[0].value < 5000,
      // The busy loop was runnable all along: busy, or starved where a loaded machine kept it
      // waiting for a CPU longer than it ran (SPEC §12: the larger part; once in the soak).
      'Hangs by cause (last hour)': (r) => r.some((x) => ['busy', 'starved'].includes(x.metric.cause) && x.value > 0) &&
        r.filter((x) => x.value > 0).every((x) => ['busy', 'starved'].includes(x.metric.cause)),
      'Main thread time by scheduler state': (r) => r.some((x) => x.metric.state === 'cpu' && x.value > 0),
      'Clock jumps, by kind (last hour)': (r) => ['suspend', 'step'].every((k) => r.some((x) => x.metric.kind === k && x.value === 0)),
      'Event-loop utilization (recorded periods)': (r) => r.length === 1 && r[0].value >= 0 && r[0].value <= 1,
      // The one run scraped hung: all of the runs.
      'Share of runs with a hang': (r) => r.length === 1 && r[0].value === 1,
      // Every cause from 0 (no label-less series), the hang's and the 400 ms block's counted.
      'Blocks, by cause (last hour)': (r) => [...require('../lib/native').causeNames(), 'unknown'].every((c) => r.some((x) => x.metric.cause === c)) &&
        r.filter((x) => ['busy', 'starved'].includes(x.metric.cause)).reduce((a, x) => a + x.value, 0) >= 1.5,
      'Hang in progress (ms so far)': (r) => r.length === 1 && r[0].value === 0,
    };
    // Other queries than the first: lag p50 is a value of the samples (most are exact zeros: 0,
    // never the width of a zero bucket).
    const EXPECT_MORE = {
      'Everyday lag: driftLag p50 / p99 (recorded samples)': (r) => r.length === 1 && (r[0].value === 0 || r[0].value >= 0.001),
    };

    it('is an importable Grafana dashboard on a Prometheus data source, with job and instance variables and the panels the README describes', function () {
      assert.strictEqual(dashboard.__inputs[0].pluginId, 'prometheus');
      assert.deepStrictEqual(dashboard.panels.map((p) => p.title).sort(), Object.keys(EXPECT).sort());
      assert.deepStrictEqual(dashboard.templating.list.map((v) => [v.name, v.type, v.includeAll, v.multi]),
        [['job', 'query', true, true], ['instance', 'query', true, true]]);
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      for (const p of dashboard.panels) {
        assert.strictEqual(p.datasource.uid, '${DS_PROMETHEUS}');
        assert.ok(readme.includes(p.title), `the README describes the panel "${p.title}"`);
        for (const t of p.targets) {
          // Every selector is the variables' (and nothing else is a variable).
          const names = [...t.expr.matchAll(/\b(lag_\w+|nodejs_\w+)(\{[^}]*\})?/g)];
          for (const m of names) assert.strictEqual(m[2], SELECTOR, `${m[0]} in ${t.expr}`);
          assert.ok(!t.expr.split(SELECTOR).join('').includes('$'), t.expr);
        }
      }
      // SPEC §10's three queries, as written, with the variables' selector: each beside its form
      // for Prometheus as it comes (counters with _total, classic buckets).
      const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr.split(SELECTOR).join('')));
      for (const [seed, plain] of [
        ['sum by (reason) (rate(lag_samples_discarded[5m]))', 'sum by (reason) (rate(lag_samples_discarded_total[5m]))'],
        ['sum by (kind) (increase(lag_stalls[1h]))', 'sum by (kind) (increase(lag_stalls_total[1h]))'],
        ['histogram_quantile(0.95, sum by (kind) (rate(lag_stall_duration_histogram[1h])))',
          'histogram_quantile(0.95, sum by (kind, le) (rate(lag_stall_duration_histogram_bucket[1h])))']]) {
        assert.ok(exprs.includes(`${seed} or ${plain}`), seed);
      }
    });

    // The variables as Grafana fills them: this job and instance.
    const fill = (expr) => expr.split('$job').join('lagwatch').split('$instance').join(`127.0.0.1:${ctx.metricsPort}`);

    it('the variables\' queries list this job and instance, in both', async function () {
      for (const port of [ctx.promPort, ctx.plain.promPort]) {
        for (const v of dashboard.templating.list) {
          const [, metric, label] = /^label_values\((.+), (\w+)\)$/.exec(v.query.query);
          const r = await queryAt(port, `group by (${label}) (${fill(metric)})`);
          assert.deepStrictEqual(r.map((x) => x.metric[label]), [v.name === 'job' ? 'lagwatch' : `127.0.0.1:${ctx.metricsPort}`], v.query.query);
        }
      }
    });

    for (const panel of dashboard.panels) {
      it(panel.title, async function () {
        for (const [which, port] of [['native histograms', ctx.promPort], ['default flags', ctx.plain.promPort]]) {
          for (const target of panel.targets) {
            const expr = fill(target.expr);
            const r = await queryAt(port, expr);
            assert.ok(r.length > 0, `${which}: ${expr}: no series`);
            const expect = target.refId === 'A' ? EXPECT[panel.title] : EXPECT_MORE[panel.title];
            if (expect) assert.ok(expect(r), `${which}: ${expr}: ${JSON.stringify(r)}`);
            else assert.ok(r.every((x) => Number.isFinite(x.value)), `${which}: ${expr}: ${JSON.stringify(r)}`);
          }
        }
      });
    }
  });
});

// lagwatch/prom-client (SPEC §14): the app serves its own /metrics with prom-client, its default
// metrics and lagwatch's in prom-client's global registry (test/fixtures/prom-client-app.js, no
// register, no second port). Prometheus scrapes that route in the text format (prom-client writes
// no other): counters under their own names (lag_stalls, no _total), so that the first two of
// SPEC §10's queries run as written; histograms as classic buckets, where the third reads
// `sum by (kind, le) (rate(…_bucket[1h]))`. The same 6 s block and 3 s hidden as above.
describe('Prometheus scrapes the app\'s own prom-client /metrics: lagwatch/prom-client beside collectDefaultMetrics()', function () {
  this.timeout(180000);

  const ctx = { tmp: null, app: null, prom: null, appPort: 0, metricsPort: 0, promPort: 0, appMetrics: '' };
  const describeAll = () =>
    `--- app (${JSON.stringify(ctx.app && ctx.app.exit)}) ---\n${ctx.app ? ctx.app.out.slice(-3000) : ''}` +
    `\n--- prometheus (${JSON.stringify(ctx.prom && ctx.prom.exit)}) ---\n${ctx.prom ? ctx.prom.out.slice(-3000) : ''}`;
  const query = (q, resultType) => queryAt(ctx.promPort, q, resultType);
  const hangMs = () => Number(/^lag_stall_duration_histogram_sum\{kind="hang"\} (\S+)$/m.exec(ctx.appMetrics)[1]);

  before(async function () {
    ctx.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-prom-client-'));
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('LAGWATCH_') || k.startsWith('OTEL_') || k === 'NODE_OPTIONS') delete env[k];
    ctx.app = start(process.execPath, [path.join(__dirname, 'fixtures', 'prom-client-app.js')], env);
    const listening = await until('the app\'s "listening on" line', () => {
      if (ctx.app.exit) return Promise.reject(new Error('the app exited'));
      return ctx.app.out.match(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m);
    }, 15000, 50, describeAll);
    ctx.appPort = Number(listening[1]);
    ctx.metricsPort = ctx.appPort; // the app's own route
    await startPrometheus(ctx, describeAll);

    const blocked = await get(ctx.appPort, '/block?ms=6000', 30000);
    assert.strictEqual(blocked.status, 200, blocked.body);
    const hidden = await get(ctx.appPort, '/hide?ms=3000');
    assert.strictEqual(hidden.status, 200, hidden.body);
    await until('lag_stalls{kind="hang"} 1 on the app\'s /metrics', async () => {
      ctx.appMetrics = (await get(ctx.appPort, '/metrics')).body;
      return /^lag_stalls\{kind="hang"\} 1$/m.test(ctx.appMetrics);
    }, 20000, 250, describeAll);
    await until('3 scrapes of lag_stalls{kind="hang"} at 1', async () =>
      (await query('count_over_time((lag_stalls{kind="hang"} == 1)[1m:1s])')).some((r) => r.value >= 3),
    20000, 250, describeAll);
    ctx.appMetrics = (await get(ctx.appPort, '/metrics')).body;
  });

  after(async function () {
    this.timeout(30000);
    await Promise.all([stop(ctx.prom), stop(ctx.app)]);
    if (ctx.tmp) fs.rmSync(ctx.tmp, { recursive: true, force: true });
  });

  it('one /metrics: prom-client\'s default metrics and lagwatch\'s, no otel_scope_* label, no _total on lagwatch\'s counters', function () {
    const text = ctx.appMetrics;
    assert.match(text, /^# TYPE process_cpu_user_seconds_total counter$/m, 'prom-client\'s default metrics');
    assert.match(text, /^# TYPE nodejs_eventloop_lag_seconds gauge$/m, 'prom-client\'s default metrics');
    assert.match(text, /^# TYPE lag_stalls counter$/m);
    assert.match(text, /^# TYPE lag_samples_discarded counter$/m);
    assert.match(text, /^# TYPE lag_stall_duration_histogram histogram$/m);
    assert.ok(!/otel_scope_|target_info/.test(text), 'no OpenTelemetry labels');
    const ms = hangMs();
    assert.ok(ms >= 5800 && ms <= 6600, `one hang of ${ms} ms`);
  });

  it('seed query 1, verbatim: sum by (reason) (rate(lag_samples_discarded[5m])) has reason="hidden" > 0, stored as the app counted', async function () {
    const r = await query('sum by (reason) (rate(lag_samples_discarded[5m]))');
    const hidden = r.find((x) => x.metric.reason === 'hidden');
    assert.ok(hidden && hidden.value > 0, JSON.stringify(r));
    const inApp = [...ctx.appMetrics.matchAll(/^lag_samples_discarded\{reason="hidden",[^}]*\} (\S+)$/gm)]
      .reduce((a, m) => a + Number(m[1]), 0);
    assert.ok(inApp > 0, 'the app counted hidden discards');
    const stored = await query('sum(lag_samples_discarded{reason="hidden"})');
    assert.strictEqual(stored[0].value, inApp);
  });

  it('seed query 2, verbatim: sum by (kind) (increase(lag_stalls[1h])) has kind="hang" > 0, the other kinds 0', async function () {
    const r = await query('sum by (kind) (increase(lag_stalls[1h]))');
    const byKind = Object.fromEntries(r.map((x) => [x.metric.kind, x.value]));
    assert.ok(byKind.hang > 0, JSON.stringify(r));
    assert.strictEqual(byKind.suspend, 0, JSON.stringify(r));
    assert.strictEqual(byKind.pause, 0, JSON.stringify(r));
  });

  it('seed query 3 on classic buckets: histogram_quantile(0.95, sum by (kind, le) (rate(lag_stall_duration_histogram_bucket[1h]))) ' +
    'for kind="hang" lies in the bucket of the episode\'s duration', async function () {
    const r = await query('histogram_quantile(0.95, sum by (kind, le) (rate(lag_stall_duration_histogram_bucket[1h])))');
    const hang = r.filter((x) => x.metric.kind === 'hang');
    assert.strictEqual(hang.length, 1, JSON.stringify(r));
    const ms = hangMs();
    const upper = STALL_BUCKETS.find((b) => b >= ms);
    const lower = STALL_BUCKETS[STALL_BUCKETS.indexOf(upper) - 1];
    assert.ok(hang[0].value > lower && hang[0].value <= upper, `p95 ${hang[0].raw} in (${lower}, ${upper}] (the hang: ${ms} ms)`);
  });

  it('the semantic-convention Node.js metrics are there, from recorded samples', async function () {
    for (const k of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
      const r = await query(`nodejs_eventloop_delay_${k}`);
      assert.strictEqual(r.length, 1, `nodejs_eventloop_delay_${k}: ${JSON.stringify(r)}`);
      // The last minute holds the hang, the app's own: the maximum is its lateness when driftLag
      // recorded it (its timer may have slept through the idle wait the request ended, leaving
      // the hang to loopBlock and the worker); every other figure is of thousands of everyday
      // samples.
      if (k === 'max' && driftSawHang(ctx.appMetrics)) {
        assert.ok(Math.abs(r[0].value * 1000 - hangMs()) < 250, `max ${r[0].raw} s, the hang ${hangMs()} ms`);
      } else {
        assert.ok(r[0].value >= 0 && r[0].value < 5, `${k} ${r[0].raw} s: the 6 s hang is one sample among thousands`);
      }
    }
    const t = await query('sum by (nodejs_eventloop_state) (nodejs_eventloop_time)');
    assert.deepStrictEqual(t.map((x) => x.metric.nodejs_eventloop_state).sort(), ['active', 'idle']);
  });
});

// SPEC §14, several processes and two scrapers, where users run them: a node:cluster under
// `node -r lagwatch/register` (test/fixtures/register-cluster-server.js: a primary and 2 workers)
// scraped every second by two Prometheus servers, one with native histograms (protobuf) and one
// with its default flags (text), as a high-availability pair would. Every process is seen on the
// one port, told apart by process_pid, counted once; a worker's 6 s hang is its own, seen by both
// while it runs (lag_process_answered 0, the target still up) and after; and neither scraper
// takes the other's figures: both read worker 2's hang in nodejs_eventloop_delay_max.
describe('two Prometheus servers scrape a node:cluster: every process seen on one port, counted once, the same figures in both', function () {
  this.timeout(180000);

  const ctx = { tmp: null, app: null, metricsPort: 0, primary: 0, workers: {}, a: null, b: null };
  const describeAll = () =>
    `--- cluster (${JSON.stringify(ctx.app && ctx.app.exit)}) ---\n${ctx.app ? ctx.app.out.slice(-3000) : ''}` +
    ['a', 'b'].map((k) => `\n--- prometheus ${k} (${JSON.stringify(ctx[k] && ctx[k].prom && ctx[k].prom.exit)}) ---\n` +
      `${ctx[k] && ctx[k].prom ? ctx[k].prom.out.slice(-2000) : ''}`).join('');
  // Series by the process they name: { pid: value }.
  const byPid = (rows) => Object.fromEntries(rows.map((r) => [r.metric.process_pid, r.value]));

  before(async function () {
    ctx.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-prometheus-cluster-'));
    const env = { ...process.env, OTEL_EXPORTER_PROMETHEUS_PORT: '0', OTEL_SERVICE_NAME: 'lagwatch-cluster' };
    for (const k of Object.keys(env)) if (k.startsWith('LAGWATCH_') || k === 'NODE_OPTIONS') delete env[k];
    ctx.app = start(process.execPath, ['-r', 'lagwatch/register', path.join(__dirname, 'fixtures', 'register-cluster-server.js')], env);
    const m = await until('the cluster ready and its one "metrics at" line', () => {
      if (ctx.app.exit) return Promise.reject(new Error('the cluster exited'));
      const line = ctx.app.out.match(/^lagwatch: (?:pid \d+, cluster primary: )?metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics$/m);
      return ctx.app.out.includes('register-cluster-server: ready') && line;
    }, 20000, 50, describeAll);
    ctx.metricsPort = Number(m[1]);
    ctx.primary = ctx.app.child.pid;
    ctx.workers = Object.fromEntries([...ctx.app.out.matchAll(/^register-cluster-server: worker (\d+) (\d+)$/gm)].map((x) => [x[1], Number(x[2])]));
    for (const [k, features] of [['a', ['--enable-feature=native-histograms']], ['b', []]]) {
      ctx[k] = { tmp: path.join(ctx.tmp, k), metricsPort: ctx.metricsPort, prom: null, promPort: 0 };
      fs.mkdirSync(ctx[k].tmp);
      await startPrometheus(ctx[k], describeAll, features);
    }
  });

  after(async function () {
    this.timeout(30000);
    await Promise.all([stop(ctx.a && ctx.a.prom), stop(ctx.b && ctx.b.prom), stop(ctx.app)]);
    if (ctx.tmp) fs.rmSync(ctx.tmp, { recursive: true, force: true });
  });

  it('each process once, by process_pid, in both; a worker\'s hang is its own, seen while it runs with the target up, and read alike by both', async function () {
    const pids = [ctx.primary, ctx.workers[1], ctx.workers[2]].map(String).sort();
    const counter = { a: 'lag_stalls', b: 'lag_stalls_total' }; // protobuf names counters as the instruments; text adds _total
    for (const k of ['a', 'b']) {
      await until(`prometheus ${k}: three processes answered`, async () =>
        Object.keys(byPid(await queryAt(ctx[k].promPort, 'lag_process_answered == 1'))).length === 3, 20000, 250, describeAll);
      const hangs = byPid(await queryAt(ctx[k].promPort, `${counter[k]}{kind="hang",fatal=""}`));
      assert.deepStrictEqual(Object.keys(hangs).sort(), pids, `${k}: ${JSON.stringify(hangs)}`);
      assert.ok(Object.values(hangs).every((v) => v === 0));
      assert.strictEqual((await queryAt(ctx[k].promPort, 'up')).length, 1, 'one target: the cluster\'s one port');
    }

    process.kill(ctx.workers[2], 'SIGUSR2'); // a 6 s hang in worker 2
    for (const k of ['a', 'b']) {
      await until(`prometheus ${k}: worker 2's hang counted`, async () =>
        (await queryAt(ctx[k].promPort, `${counter[k]}{kind="hang",cluster_worker_id="2"} == 1`)).length === 1, 30000, 250, describeAll);
    }
    const sawHang = driftSawHang((await get(ctx.metricsPort, '/metrics')).body, 'cluster_worker_id="2"');
    for (const k of ['a', 'b']) {
      const q = (expr) => queryAt(ctx[k].promPort, expr);
      // Counted once, by worker 2 alone.
      const hangs = byPid(await q(`${counter[k]}{kind="hang",fatal=""}`));
      assert.deepStrictEqual([hangs[ctx.primary], hangs[ctx.workers[1]], hangs[ctx.workers[2]]], [0, 0, 1], `${k}: ${JSON.stringify(hangs)}`);
      const total = await q(`sum by (kind) (${counter[k]})`);
      assert.strictEqual(total.find((r) => r.metric.kind === 'hang').value, 1, `${k}: ${JSON.stringify(total)}`);
      // Seen while it ran: worker 2 did not answer some scrapes, and the target stayed up.
      const missed = await q('min_over_time(lag_process_answered{cluster_worker_id="2"}[1m])');
      assert.strictEqual(missed.length === 1 && missed[0].value, 0, `${k}: ${JSON.stringify(missed)}`);
      const up = await q('min_over_time(up[1m])');
      assert.strictEqual(up.length === 1 && up[0].value, 1, `${k}: the cluster's port answered every scrape: ${JSON.stringify(up)}`);
      // Neither scraper takes the other's window: when driftLag recorded the hang's lateness (its
      // timer may have slept through the idle wait the signal ended), both read it in worker 2's
      // delay max; else neither does.
      const max = await q('max_over_time(nodejs_eventloop_delay_max{cluster_worker_id="2"}[1m])');
      assert.strictEqual(max.length, 1, `${k}: ${JSON.stringify(max)}`);
      assert.strictEqual(max[0].value > 5, sawHang, `${k}: ${JSON.stringify(max)}, driftLag recorded the hang: ${sawHang}`);
    }
  });
});
