'use strict';
// An HTTP service with lagwatch and the Prometheus exporter:
//   GET /            hello
//   GET /block?ms=N  blocks the event loop for N ms (default 6000): a hang episode
//   GET /hide?ms=N   counts the app as hidden for N ms (default 3000), as a hidden window would
//   GET /metrics     Prometheus text format (also on its own port when METRICS_PORT is set)
// Environment: PORT (default 3000), HOST (default 127.0.0.1), METRICS_PORT (default: none, the
// metrics are served on PORT). It prints one line when it listens: "listening on http://...".
const http = require('http');
const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus');
const { MeterProvider } = require('@opentelemetry/sdk-metrics');
const lagwatch = require('..');

const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT || 3000);

const exporter = new PrometheusExporter({ preventServerStart: true });
const provider = new MeterProvider({ readers: [exporter] });
const m = lagwatch.setupAllMonitors({
  meter: provider.getMeter('lagwatch'),
  logger: { log: (level, message) => console.error(`${level}: ${message}`) },
});
m.conditions.on('stall', (s) => console.error(`stall: ${s.kind} ${Math.round(s.durationMs)} ms ` +
  `(${s.monitors.join(', ')})`));

// The app's own probe, validated like the monitors (SPEC §4): every 100 ms, how late a timer ran.
// It is not paused while hidden, so a hidden period shows up as discards with reason 'hidden'.
const probe = m.conditions.createValidator({ name: 'appProbe' });
let last = lagwatch.now();
setInterval(() => {
  const now = lagwatch.now();
  const late = Math.max(0, now - last - 100);
  probe.submit(late, now - last, () => {});
  last = now;
}, 100).unref();

function param(url, name, dflt) {
  const v = Number(url.searchParams.get(name));
  return Number.isFinite(v) && v >= 0 ? v : dflt;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/metrics') return exporter.getMetricsRequestHandler(req, res);
  if (url.pathname === '/block') {
    const ms = param(url, 'ms', 6000);
    const end = lagwatch.now() + ms;
    while (lagwatch.now() < end);
    return res.end(`blocked ${ms} ms\n`);
  }
  if (url.pathname === '/hide') {
    const ms = param(url, 'ms', 3000);
    m.conditions.setLifecycleState('hidden');
    setTimeout(() => m.conditions.setLifecycleState('active'), ms);
    return res.end(`hidden for ${ms} ms\n`);
  }
  if (url.pathname === '/') return res.end('hello\n');
  res.statusCode = 404;
  res.end('not found\n');
});

server.listen(port, host, () => {
  const a = server.address();
  console.log(`listening on http://${a.address}:${a.port}`);
});

if (process.env.METRICS_PORT) {
  http.createServer((req, res) => exporter.getMetricsRequestHandler(req, res))
    .listen(Number(process.env.METRICS_PORT), host);
}

function shutdown() {
  m.stop();
  server.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
