'use strict';
// SPEC §10 against a real Prometheus: "With a Prometheus exporter, the seed's queries work as
// written". The test starts examples/http-server.js (PORT=0) and `prometheus` (127.0.0.1, a free
// port, a temporary config and data directory, scrape and evaluation every 1 s), blocks the app's
// loop for 6 s (/block?ms=6000: one hang episode), hides it for 3 s (/hide?ms=3000: discards with
// reason "hidden"), waits until the episode is reported and scraped, then asks /api/v1/query.
// Names as this exporter writes them (checked on the app's /metrics below): counters carry
// `_total` (lag_samples_discarded_total, lag_stalls_total); the histogram's buckets are
// lag_stall_duration_histogram_bucket{le}. Prometheus and the app are stopped and the temporary
// directory removed in after(), whatever happened. A missing `prometheus` is a failure, not a skip.
const assert = require('assert');
const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const SERVER = path.join(ROOT, 'examples', 'http-server.js');
const { STALL_BUCKETS } = require('../lib/metrics');

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

function get(port, urlPath, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
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

describe('Prometheus scrapes the exporter: the seed\'s queries (SPEC §10)', function () {
  this.timeout(180000);

  const ctx = { tmp: null, app: null, prom: null, appPort: 0, promPort: 0, appMetrics: '' };
  const describeAll = () =>
    `--- app (${JSON.stringify(ctx.app && ctx.app.exit)}) ---\n${ctx.app ? ctx.app.out.slice(-3000) : ''}` +
    `\n--- prometheus (${JSON.stringify(ctx.prom && ctx.prom.exit)}) ---\n${ctx.prom ? ctx.prom.out.slice(-3000) : ''}`;

  // An instant query: its result as [{ metric, value (a number), raw (Prometheus's string) }].
  async function query(q, resultType = 'vector') {
    const res = await get(ctx.promPort, `/api/v1/query?query=${encodeURIComponent(q)}`);
    assert.strictEqual(res.status, 200, `query ${q}: ${res.body}`);
    const body = JSON.parse(res.body);
    assert.strictEqual(body.status, 'success', `query ${q}: ${res.body}`);
    assert.strictEqual(body.data.resultType, resultType, `query ${q}: ${res.body}`);
    if (resultType !== 'vector') return body.data.result;
    return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]), raw: r.value[1] }));
  }

  before(async function () {
    const prometheus = findPrometheus();
    assert.ok(prometheus, 'the `prometheus` binary is not installed (not on PATH, not /usr/bin/prometheus): ' +
      'this test needs a real Prometheus (Debian/Ubuntu: apt-get install prometheus)');
    ctx.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-prometheus-'));

    // The app, on a free port.
    ctx.app = start(process.execPath, [SERVER], { ...process.env, PORT: '0', HOST: '127.0.0.1' });
    const listening = await until('the app\'s "listening on" line',
      () => ctx.app.exit ? Promise.reject(new Error('the app exited')) :
        ctx.app.out.match(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m), 15000, 50, describeAll);
    ctx.appPort = Number(listening[1]);

    // Prometheus, on a free port (a port taken between freePort() and its bind: try another).
    const config = path.join(ctx.tmp, 'prometheus.yml');
    fs.writeFileSync(config, [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: lagwatch',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${ctx.appPort}']`,
      '',
    ].join('\n'));
    for (let attempt = 1; ; attempt++) {
      ctx.promPort = await freePort();
      ctx.prom = start(prometheus, [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(ctx.tmp, `data${attempt}`)}`,
        `--web.listen-address=127.0.0.1:${ctx.promPort}`,
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
      const t = body.data.activeTargets.find((a) => a.scrapeUrl === `http://127.0.0.1:${ctx.appPort}/metrics`);
      return t && t.health === 'up';
    }, 30000, 250, describeAll);
    const up = await query('up{job="lagwatch"}');
    assert.strictEqual(up.length, 1, JSON.stringify(up));
    assert.strictEqual(up[0].value, 1, JSON.stringify(up));

    // A real 6 s block (one hang episode), then a forced hidden period of 3 s.
    const blocked = await get(ctx.appPort, '/block?ms=6000', 30000);
    assert.strictEqual(blocked.status, 200, blocked.body);
    const hidden = await get(ctx.appPort, '/hide?ms=3000');
    assert.strictEqual(hidden.status, 200, hidden.body);

    // The episode is reported ~4 s after the block ended (2 s hold + 2 s episode delay).
    await until('lag_stalls_total{kind="hang"} 1 on the app\'s /metrics', async () => {
      ctx.appMetrics = (await get(ctx.appPort, '/metrics')).body;
      return /^lag_stalls_total\{kind="hang"[^}]*\} 1$/m.test(ctx.appMetrics);
    }, 20000, 250, describeAll);
    // ...and scraped: Prometheus holds 3 samples of it at 1 (3 scrapes after the episode; every
    // series is exported from the start at 0, so that the rise is seen), and the hidden period
    // is over (3 s after /hide).
    await until('3 scrapes of lag_stalls_total{kind="hang"} at 1', async () =>
      (await query('count_over_time((lag_stalls_total{kind="hang"} == 1)[1m:1s])')).some((r) => r.value >= 3),
    20000, 250, describeAll);
    ctx.appMetrics = (await get(ctx.appPort, '/metrics')).body;
  });

  after(async function () {
    this.timeout(30000);
    await Promise.all([stop(ctx.prom), stop(ctx.app)]);
    if (ctx.tmp) fs.rmSync(ctx.tmp, { recursive: true, force: true });
  });

  it('the app\'s /metrics names the series as queried (counters with _total, classic histogram buckets)', function () {
    const text = ctx.appMetrics;
    assert.match(text, /^# TYPE lag_samples_discarded_total counter$/m, text);
    assert.match(text, /^# TYPE lag_stalls_total counter$/m, text);
    assert.match(text, /^# TYPE lag_stall_duration_histogram histogram$/m, text);
    // The bucket boundaries are lib/metrics.js STALL_BUCKETS; the 6 s block lies in (6000, 7500].
    assert.deepStrictEqual(STALL_BUCKETS.slice(0, 3), [5000, 6000, 7500]);
    const les = [...text.matchAll(/^lag_stall_duration_histogram_bucket\{kind="hang",[^}]*le="([^"]+)"\} (\S+)$/gm)]
      .map((m) => [m[1], Number(m[2])]);
    assert.deepStrictEqual(les.map(([le]) => le), [...STALL_BUCKETS.map(String), '+Inf'], text);
    assert.deepStrictEqual(les.slice(0, 3), [['5000', 0], ['6000', 0], ['7500', 1]], 'one episode in (6000, 7500]');
  });

  it('lag_stalls_total in Prometheus: kind="hang" exactly 1, the other kinds there at 0', async function () {
    const r = await query('lag_stalls_total');
    const byKind = Object.fromEntries(r.map((x) => [x.metric.kind, x.value]));
    assert.deepStrictEqual(byKind, { hang: 1, suspend: 0, pause: 0 }, JSON.stringify(r));
    // Before the episode the hang series was already there at 0: its rise is a sample.
    const before = await query('min_over_time(lag_stalls_total{kind="hang"}[1m])');
    assert.deepStrictEqual(before.map((x) => x.value), [0], JSON.stringify(before));
  });

  it('sum by (reason) (rate(lag_samples_discarded_total[5m])) has reason="hidden" > 0', async function () {
    const r = await query('sum by (reason) (rate(lag_samples_discarded_total[5m]))');
    const hidden = r.filter((s) => s.metric.reason === 'hidden');
    assert.strictEqual(hidden.length, 1, JSON.stringify(r));
    assert.ok(hidden[0].value > 0, `rate of hidden discards ${hidden[0].value}: ${JSON.stringify(r)}`);
    // Prometheus holds the very count the app exports (the hidden period is over, it no longer grows).
    const inApp = [...ctx.appMetrics.matchAll(/^lag_samples_discarded_total\{reason="hidden",[^}]*\} (\S+)$/gm)]
      .reduce((a, m) => a + Number(m[1]), 0);
    assert.ok(inApp > 0, `hidden discards on the app's /metrics: ${inApp}`);
    const stored = await query('sum(lag_samples_discarded_total{reason="hidden"})');
    assert.deepStrictEqual(stored.map((s) => s.value), [inApp]);
  });

  it('sum by (kind) (increase(lag_stalls_total[1h])) has kind="hang" > 0', async function () {
    // increase() extrapolates to the range's edges, so the value need not be exactly 1.
    const r = await query('sum by (kind) (increase(lag_stalls_total[1h]))');
    const hang = r.filter((s) => s.metric.kind === 'hang');
    assert.strictEqual(hang.length, 1, JSON.stringify(r));
    const samples = await query('lag_stalls_total[1h]', 'matrix');
    assert.ok(hang[0].value > 0, `increase of the hang count over 1h is ${hang[0].raw} after one hang episode; ` +
      `the samples Prometheus holds: ${JSON.stringify(samples)}`);
  });

  it('histogram_quantile(0.95, sum by (le, kind) (rate(lag_stall_duration_histogram_bucket[1h]))) ' +
    'for kind="hang" is 7425 (the (6000, 7500] bucket)', async function () {
    // One episode of ~6000 ms (> 6000) is in the bucket (6000, 7500]: every bucket rate with
    // le <= 6000 is 0 and every one with le >= 7500 is the same r > 0. histogram_quantile finds the
    // rank 0.95·r in the le="7500" bucket and interpolates linearly inside it:
    // 6000 + (7500 − 6000) · (0.95·r − 0) / (r − 0) = 7425, whatever r is. So the value must be
    // 7425 (to rounding), which lies in (6000, 7500].
    const r = await query('histogram_quantile(0.95, sum by (le, kind) (rate(lag_stall_duration_histogram_bucket[1h])))');
    const hang = r.filter((s) => s.metric.kind === 'hang');
    assert.strictEqual(hang.length, 1, JSON.stringify(r));
    const v = hang[0].value;
    const buckets = await query('sum by (le, kind) (rate(lag_stall_duration_histogram_bucket[1h]))');
    assert.ok(v > 6000 && v <= 7500, `p95 of the hang durations is ${hang[0].raw}, not in (6000, 7500]; ` +
      `bucket rates: ${JSON.stringify(buckets.filter((b) => b.metric.kind === 'hang').map((b) => [b.metric.le, b.raw]))}; ` +
      `bucket samples: ${JSON.stringify(await query('lag_stall_duration_histogram_bucket{le=~"6000|7500"}[1h]', 'matrix'))}`);
    assert.ok(Math.abs(v - 7425) < 1e-6, `p95 ${v}, expected 7425`);
  });
});
