'use strict';
// Where `lagwatch/register` exports its metrics, from OpenTelemetry's environment variables (the
// list is lib/register.js's header): a MeterProvider of lagwatch's own with a reader per exporter
// asked for (Prometheus's port served by lagwatch's thread, OTLP, the console), each exporter an
// optional peer dependency.
const lagwatch = require('./index');
const { version } = require('./otel');
const cluster = require('./cluster');

const EXPORTERS = ['prometheus', 'otlp', 'console', 'none'];
// What every exporter needs: the SDK's MeterProvider and the resource of OTEL_SERVICE_NAME.
const SDK = ['@opentelemetry/sdk-metrics', '@opentelemetry/resources'];
// The OTLP exporter package of each OTEL_EXPORTER_OTLP_(METRICS_)PROTOCOL.
const OTLP_PACKAGES = {
  'http/protobuf': '@opentelemetry/exporter-metrics-otlp-proto',
  'http/json': '@opentelemetry/exporter-metrics-otlp-http',
  grpc: '@opentelemetry/exporter-metrics-otlp-grpc',
};

// The first variable of `names` that is set (not empty): [name, value], or null.
function first(env, names) {
  for (const name of names) if (env[name] !== undefined && env[name] !== '') return [name, env[name]];
  return null;
}

// A port from the environment: a number, or null (unset), or undefined (bad: already reported).
function portFrom(env, say) {
  const set = first(env, ['OTEL_EXPORTER_PROMETHEUS_PORT', 'LAGWATCH_PROMETHEUS_PORT']);
  if (set === null) return null;
  const [name, raw] = set;
  const port = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || port > 65535) {
    say(`${name} must be a port number from 0 to 65535, not ${JSON.stringify(raw)}: ` +
      'metrics are not served (monitoring goes on)');
    return undefined;
  }
  return port;
}

// A positive number of milliseconds from `name`, or `fallback`.
function msFrom(env, name, fallback, say) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const ms = Number(raw);
  if (!(ms > 0) || !Number.isFinite(ms)) {
    say(`${name} must be a positive number of milliseconds, not ${JSON.stringify(raw)}: ${fallback} is used`);
    return fallback;
  }
  return ms;
}

// Which exporters the environment asks for.
function exportersFrom(env, port, say) {
  if (String(env.OTEL_SDK_DISABLED).trim().toLowerCase() === 'true') return [];
  const raw = env.OTEL_METRICS_EXPORTER;
  if (raw !== undefined && raw.trim() !== '') {
    const out = [];
    for (const name of raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
      if (!EXPORTERS.includes(name)) {
        say(`OTEL_METRICS_EXPORTER: ${JSON.stringify(name)} is not one of ${EXPORTERS.join(', ')}: ignored`);
      } else if (name !== 'none' && !out.includes(name)) {
        out.push(name);
      }
    }
    return out;
  }
  const out = [];
  if (port !== null) out.push('prometheus'); // set, even if bad (then reported, not served)
  if (first(env, ['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'])) out.push('otlp');
  return out;
}

// `require` of optional peer dependencies: the modules, or null after one line saying what to
// install.
function load(what, packages, say) {
  const missing = [];
  const mods = packages.map((name) => {
    try {
      return require(name);
    } catch (err) {
      if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(name)) {
        missing.push(name);
        return null;
      }
      throw err;
    }
  });
  if (missing.length === 0) return mods;
  const names = missing.length > 1 ? `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}` : missing[0];
  say(`${what} needs ${names}: npm install ${missing.join(' ')} ` +
    '(monitoring goes on without these metrics)');
  return null;
}

// The readers of each exporter asked for (those whose packages are there), the MetricProducers
// that give them the histograms of recorded samples (lib/producer.js: no JS per sample), one per
// reader, in the temporality its exporter asks for, and the metrics port's thread if one serves.
function readersFor(env, exporters, port, { say, infoLine }) {
  const readers = [];
  const producers = [];
  let responder = null;
  const periodic = (sdk, exporter, temporality = 'cumulative') => {
    const producer = lagwatch.createMetricProducer({ temporality });
    producers.push(producer);
    return new sdk.PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: msFrom(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60000, say),
      exportTimeoutMillis: msFrom(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30000, say),
      metricProducers: [producer],
    });
  };
  for (const name of exporters) {
    if (name === 'prometheus') {
      if (port === undefined) continue; // a bad port: already reported
      const mods = load('OTEL_METRICS_EXPORTER=prometheus', [...SDK, '@opentelemetry/exporter-prometheus'], say);
      if (mods === null) continue;
      const { PrometheusEndpoint } = require('./prometheus');
      // protobufjs is loaded where bodies are encoded, on the port's own thread (lib/responder.js).
      let protobuf = true;
      try {
        require.resolve('protobufjs');
      } catch {
        protobuf = false; // text only; said when a scraper first asks for native histograms
      }
      const endpoint = new PrometheusEndpoint(protobuf, () => say('a scraper asked for native histograms ' +
        '(protobuf), which need protobufjs: npm install protobufjs (the text format is served)'));
      const host = first(env, ['OTEL_EXPORTER_PROMETHEUS_HOST', 'LAGWATCH_PROMETHEUS_HOST']);
      // OTEL_METRICS_EXPORTER=prometheus alone: the SDK's default port. A cluster's workers leave it
      // to their primary, or serve a port of their own (lib/cluster.js).
      const plan = cluster.servingPlan(env, port === null ? 9464 : port);
      if (plan === null) {
        cluster.answerPrimary((format) => endpoint.snapshot(format));
      } else {
        // Served by a thread of lagwatch's own, which answers while the main thread is held.
        responder = require('./responder').startResponder(endpoint,
          { port: plan.port, host: host === null ? '127.0.0.1' : host[1], exclusive: plan.exclusive },
          (text) => say(text), infoLine);
        if (plan.primary) {
          process.env[cluster.PRIMARY_ENV] = String(process.pid);
          endpoint.gatherFrom(new cluster.Gatherer(), () => cluster.identity());
        }
      }
      readers.push(...endpoint.readers());
      producers.push(...endpoint.producers());
    } else if (name === 'otlp') {
      const set = first(env, ['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']);
      const protocol = set === null ? 'http/protobuf' : set[1].trim();
      const pkg = OTLP_PACKAGES[protocol];
      if (pkg === undefined) {
        say(`${set[0]} must be one of ${Object.keys(OTLP_PACKAGES).join(', ')}, not ${JSON.stringify(set[1])}: ` +
          'metrics are not pushed (monitoring goes on)');
        continue;
      }
      const mods = load(`OTLP metrics over ${protocol}`, [...SDK, pkg], say);
      if (mods === null) continue;
      // The exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, temporality) itself;
      // histograms are deltas for its 'delta' and 'lowmemory' preferences.
      const preference = String(env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE || '').trim().toLowerCase();
      readers.push(periodic(mods[0], new mods[2].OTLPMetricExporter(),
        preference === 'delta' || preference === 'lowmemory' ? 'delta' : 'cumulative'));
    } else if (name === 'console') {
      const mods = load('OTEL_METRICS_EXPORTER=console', SDK, say);
      if (mods !== null) readers.push(periodic(mods[0], new mods[0].ConsoleMetricExporter()));
    }
  }
  return { readers, producers, responder };
}

// A MeterProvider of its own for lagwatch's metrics (never the global one: the app may register
// its own SDK), with the resource of OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. Pushed
// metrics are flushed once when the app's loop runs dry, so that a short script's last values
// reach the collector. `log`: { say(text), infoLine(text) }, register's lines (a warning said
// now; an informative one's text, for the metrics port's thread to say). Returns { meter,
// producers (lib/producer.js: the histograms of recorded samples), responder (lib/responder.js,
// or null) }, or undefined (then the global API's meter, SPEC §7).
function meterFrom(env, log) {
  const { say } = log;
  const port = portFrom(env, say);
  const exporters = exportersFrom(env, port, say);
  if (exporters.length === 0) return undefined;
  const { readers, producers, responder } = readersFor(env, exporters, port, log);
  if (readers.length === 0) return undefined;
  const { MeterProvider } = require('@opentelemetry/sdk-metrics');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources');
  let resource = defaultResource().merge(detectResources({ detectors: [envDetector] }));
  // service.instance.id and process.pid name this process among several (lib/cluster.js).
  const who = cluster.identity(resource.attributes);
  resource = resource.merge(resourceFromAttributes({ 'service.instance.id': who['service.instance.id'], 'process.pid': process.pid }));
  const provider = new MeterProvider({ resource, readers });
  if (exporters.includes('otlp') || exporters.includes('console')) {
    let flushed = false;
    process.on('beforeExit', () => {
      if (flushed) return;
      flushed = true;
      provider.forceFlush().catch((err) => say(`cannot push the last metrics: ${err && err.message}`));
    });
  }
  return { meter: provider.getMeter('lagwatch', version()), producers, responder };
}

module.exports = { meterFrom };
