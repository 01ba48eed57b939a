'use strict';
// Zero-code set-up: `node -r lagwatch/register app.js` runs every monitor of SPEC §6 on the app's
// threads with no change to the app. One line on stderr per stall episode. With
// LAGWATCH_PROMETHEUS_PORT set, /metrics is served through @opentelemetry/exporter-prometheus on
// LAGWATCH_PROMETHEUS_HOST (default 127.0.0.1). Bad settings print one clear line and the app
// still runs. The server is unref'd: it never keeps the app alive. require('lagwatch/register')
// returns the monitor set (or null if it could not start).
const http = require('http');
const lagwatch = require('./index');
const { formatStack } = require('./metrics');

const say = (line) => process.stderr.write(`lagwatch: ${line}\n`);

// A port from the environment, or null (unset), or undefined (bad: already reported).
function portFrom(env) {
  const raw = env.LAGWATCH_PROMETHEUS_PORT;
  if (raw === undefined || raw === '') return null;
  const port = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || port > 65535) {
    say(`LAGWATCH_PROMETHEUS_PORT must be a port number from 0 to 65535, not ${JSON.stringify(raw)}: ` +
      'metrics are not served (monitoring goes on)');
    return undefined;
  }
  return port;
}

function serve(port, host) {
  const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus');
  const { MeterProvider } = require('@opentelemetry/sdk-metrics');
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics' || req.url.startsWith('/metrics?')) {
      exporter.getMetricsRequestHandler(req, res);
    } else {
      res.statusCode = 404;
      res.end('lagwatch: metrics are at /metrics\n');
    }
  });
  server.on('error', (err) => say(`cannot serve metrics on ${host}:${port}: ${err.message} ` +
    '(monitoring goes on)'));
  server.listen(port, host, () => {
    const a = server.address();
    say(`metrics at http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}/metrics`);
  });
  server.unref();
  return provider.getMeter('lagwatch');
}

// ", cause: starved (run queue 5200 ms, cpu 600 ms of 5800 ms)": the dominant part first, then
// the other parts that count, of the span the worker measured (SPEC §12).
function describeCause(cause) {
  if (!cause) return '';
  const parts = [['cpu', cause.cpuMs], ['gc', cause.gcMs], ['blocked', cause.blockedMs],
    ['run queue', cause.runQueueMs], ['throttled', cause.throttledMs]]
    .filter(([, ms]) => ms !== null && ms >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${Math.round(ms)} ms`);
  return `, cause: ${cause.dominant} (${parts.join(', ')} of ${Math.round(cause.spanMs)} ms)`;
}

// The app's innermost frames (Node's own internals left out), on the lines after the stall's.
function describeStack(stack) {
  if (!stack) return '';
  const app = stack.filter((f) => !f.url.startsWith('node:'));
  return app.length ? `\n${formatStack(app, 3)}` : '';
}

function register(env = process.env) {
  // lagwatch's own stack thread is no app thread to monitor.
  const { workerData } = require('worker_threads');
  if (workerData && workerData.lagwatchStackThread === true) return null;
  const port = portFrom(env);
  const host = env.LAGWATCH_PROMETHEUS_HOST || '127.0.0.1';
  let meter;
  if (typeof port === 'number') meter = serve(port, host);
  try {
    const m = lagwatch.setupAllMonitors({
      meter,
      // The stack thread costs nothing while the loop is healthy; LAGWATCH_STACKS=0 turns it off.
      stacks: env.LAGWATCH_STACKS !== '0',
      logger: { log: (level, message) => { if (level === 'error' || level === 'warn') say(message); } },
    });
    m.conditions.on('stall', (s) => say(`${s.kind} stall of ${Math.round(s.durationMs)} ms ` +
      `(${s.monitors.join(', ')})${describeCause(s.cause)}${describeStack(s.stack)}`));
    return m;
  } catch (err) {
    say(`cannot start the monitors: ${err.message} (the app runs without them)`);
    return null;
  }
}

module.exports = register();
