'use strict';
// The metrics port, served by a thread of lagwatch's own (SPEC §14: it answers during a hang). A
// worker_threads Worker listens on the port; at each scrape it asks the main thread for what the
// body is written from (lib/prometheus.js collects it: the OpenTelemetry readers are the main
// thread's), waits up to the scrape's deadline, and makes the body here (lib/families.js,
// lib/exposition.js), so that the main thread only collects. A main thread that does not answer in
// time (held by a hang, a block, a debugger) gets the last body it rendered in that format, so `up`
// stays 1, and a running hang is not asked at all. Every answer ends with `lag_hang_in_progress`:
// for the hang holding the main thread now, as the C worker thread last saw it (its registry entry,
// read here without the main thread), how long it has held it (ms) under its cause so far; 0 under
// every cause when none runs. An alert can fire during the hang, and a hang that ends in a kill was
// seen.
//
// The same file is both sides: startResponder() on the main thread, the server on the Worker.
const path = require('path');
const { workerData, parentPort } = require('worker_threads');

const HANG = { name: 'lag_hang_in_progress',
  help: 'The hang holding the main thread now: how long it has held it so far (ms), by its cause so far; 0 when none runs' };
// How long a scrape waits for the main thread when Prometheus does not say its timeout; with it,
// the timeout less a tenth of a second. Longer than a cluster's gathering (lib/cluster.js), which
// the main thread's answer includes.
const WAIT_MS = 2500;
// Where the listening line's address goes (the port is known once it listens).
const URL_MARK = '<metrics-url>';

function waitFor(headers) {
  const s = Number(headers['x-prometheus-scrape-timeout-seconds']);
  return Number.isFinite(s) && s > 0 ? Math.max(0, Math.min(WAIT_MS, s * 1000 - 100)) : WAIT_MS;
}

// Main thread: starts the port's thread for `endpoint` (a PrometheusEndpoint) and collects what it
// asks for. `say(text)` warns the user; `infoLine(text)` is the whole line of an informative text,
// the port's thread says once it listens (written from there: a main thread held from the start
// would say it only when let go). Returns { setSet(setId) }: the monitor set whose hang the port
// shows, and warm().
function startResponder(endpoint, { port, host, exclusive }, say, infoLine) {
  const { Worker } = require('worker_threads');
  const worker = new Worker(path.join(__dirname, 'responder.js'), {
    workerData: { lagwatchOwnThread: 'responder', port, host, exclusive, protobuf: endpoint.native !== null,
      listeningLine: infoLine(`metrics at ${URL_MARK}`) },
    execArgv: [], // no inherited preloads: `-r lagwatch/register` is the main thread's
  });
  // Every collection reaches the port's thread, a scrape's or not: the native reader's are deltas.
  const post = (id, format, rendered) => rendered.then(
    (data) => worker.postMessage({ type: 'body', id, format, data, labels: endpoint.labels() }),
    (err) => worker.postMessage({ type: 'body', id, format, error: String(err && err.message) }));
  worker.on('message', (msg) => {
    if (msg.type === 'render') {
      post(msg.id, msg.format, endpoint.render(msg.format, msg.askedProtobuf, msg.headers));
    } else if (msg.type === 'line') {
      process.stderr.write(msg.line);
    } else if (msg.type === 'error') {
      say(`cannot serve metrics on ${host}:${port}: ${msg.message} (monitoring goes on` +
        `${msg.code === 'EADDRINUSE' ? '; each process needs a port of its own: docs/metrics.md#several-processes' : ''})`);
    }
  });
  worker.on('error', (err) => say(`the metrics port's thread failed: ${err && err.message} ` +
    '(metrics are not served; monitoring goes on)'));
  worker.unref(); // after the listeners, which would ref it again: it never keeps the process alive
  return {
    setSet(setId) {
      worker.postMessage({ type: 'set', setId });
    },
    // Each reader once, after set-up, and the port's thread makes a body of each: a first
    // collection and a first encoding build what later ones reuse, in the app's life otherwise.
    // One reader a loop iteration, none in set-up's own: first collections are the port's
    // costliest work on the main thread, and added to set-up's iteration they would make it, on a
    // loaded machine, long enough to be reported as a block of the app's.
    warm() {
      const formats = endpoint.native !== null ? ['text', 'protobuf'] : ['text'];
      const next = () => {
        const format = formats.shift();
        if (format === undefined) return;
        post(null, format, endpoint.render(format, false, {}));
        setImmediate(next).unref();
      };
      setImmediate(next).unref();
    },
  };
}

// The Worker: the server.
function serveOnThisThread() {
  const http = require('http');
  const native = require('./native');
  const { PROTOBUF_TYPE, wantsProtobuf, sanitize, makeEncoders } = require('./exposition');
  const causes = [...native.causeNames(), 'unknown'];
  // What bodies are made with (OpenTelemetry's SDK and serializer, protobufjs' generated code),
  // made once the port is bound: a port in use is said first, before a short-lived app ends.
  let made = null;
  const make = () => made || (made = { ...makeEncoders(workerData.protobuf ? require('protobufjs') : null), ...require('./families') });
  let setId = 0;
  let labels = [];
  const last = { text: null, protobuf: null }; // the last body the main thread rendered in each
  const natives = new Map(); // the native histograms' series (lib/families.js)
  const waiting = new Map(); // request id -> (answer) => void
  let next = 0;

  parentPort.on('message', (msg) => {
    if (msg.type === 'set') {
      setId = msg.setId;
    } else if (msg.type === 'body') {
      if (msg.error === undefined) {
        try {
          const { bodyData, protobuf, text } = make();
          const data = bodyData(msg.format, msg.data, natives, msg.labels);
          last[msg.format] = msg.format === 'protobuf' ? protobuf(data) : Buffer.from(text(data));
        } catch (err) {
          msg.error = `cannot encode the ${msg.format} exposition: ${err && err.message}`;
        }
        labels = Object.entries(msg.labels).map(([name, value]) => [sanitize(name), String(value)]);
      }
      const done = waiting.get(msg.id);
      if (done !== undefined) done(msg);
    }
  });

  // lag_hang_in_progress now: the running hang's time under its cause, 0 under the others (or
  // under every cause, when `fresh`: the main thread has just answered, so nothing holds it).
  function hangGauge(format, fresh) {
    const hang = fresh ? null : native.hangNow(setId);
    const points = causes.map((cause) => ({ cause, value: hang !== null && hang.cause === cause ? hang.heldMs : 0 }));
    if (format === 'protobuf') {
      const { MetricFamily } = make();
      const family = { name: HANG.name, help: HANG.help, type: 'GAUGE', metric: points.map((p) => ({
        label: [['cause', p.cause], ...labels].map(([name, value]) => ({ name, value })), gauge: { value: p.value } })) };
      return Buffer.from(MetricFamily.encodeDelimited(MetricFamily.fromObject(family)).finish());
    }
    const escape = (v) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
    const lines = points.map((p) => `${HANG.name}{${[['cause', p.cause], ...labels].map(([n, v]) => `${n}="${escape(v)}"`).join(',')}} ${p.value}`);
    return Buffer.from(`# HELP ${HANG.name} ${HANG.help}\n# TYPE ${HANG.name} gauge\n${lines.join('\n')}\n`);
  }

  function answer(res, format, body, fresh) {
    let head = body === null ? Buffer.alloc(0) : body;
    if (format === 'text' && head.length > 0 && head[head.length - 1] !== 0x0a) head = Buffer.concat([head, Buffer.from('\n')]);
    res.statusCode = 200;
    res.setHeader('Content-Type', format === 'text' ? 'text/plain' : PROTOBUF_TYPE);
    res.end(Buffer.concat([head, hangGauge(format, fresh)]));
  }

  function scrape(req, res) {
    const askedProtobuf = wantsProtobuf(req.headers.accept);
    const format = askedProtobuf && workerData.protobuf ? 'protobuf' : 'text';
    // A running hang holds the main thread: its last body, at once.
    if (native.hangNow(setId) !== null) {
      answer(res, format, last[format], false);
      return;
    }
    const id = next++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      answer(res, format, last[format], false);
    }, waitFor(req.headers));
    waiting.set(id, (msg) => {
      clearTimeout(timer);
      waiting.delete(id);
      if (msg.error !== undefined) {
        res.statusCode = 500;
        res.end(`# failed to collect metrics: ${msg.error}\n`);
        return;
      }
      answer(res, format, last[format], true);
    });
    const headers = { 'x-prometheus-scrape-timeout-seconds': req.headers['x-prometheus-scrape-timeout-seconds'] };
    parentPort.postMessage({ type: 'render', id, format, askedProtobuf, headers });
  }

  const { port, host, exclusive } = workerData;
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics' || req.url.startsWith('/metrics?')) {
      scrape(req, res);
    } else {
      res.statusCode = 404;
      res.end('lagwatch: metrics are at /metrics\n');
    }
  });
  server.on('error', (err) => parentPort.postMessage({ type: 'error', message: err.message, code: err.code }));
  setImmediate(make); // after the listen below has bound the port (or failed to)
  server.listen({ port, host, exclusive }, () => {
    const a = server.address();
    const url = `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}/metrics`;
    // The line as the main thread made it (text, or JSON with its time now), in one write(2).
    const line = workerData.listeningLine;
    let out = line.split(URL_MARK).join(url);
    if (line.startsWith('{')) {
      const o = JSON.parse(line);
      out = `${JSON.stringify({ ...o, time: Date.now(), msg: o.msg.split(URL_MARK).join(url) })}\n`;
    }
    try {
      require('fs').writeSync(2, out);
    } catch {
      parentPort.postMessage({ type: 'line', line: out }); // a full pipe: the main thread writes it
    }
  });
}

if (workerData !== null && workerData !== undefined && workerData.lagwatchOwnThread === 'responder') serveOnThisThread();

module.exports = { startResponder };
