'use strict';
// Several processes on one metrics port (SPEC §14). In a node:cluster whose primary runs
// `lagwatch/register`, the primary alone serves the port the environment names; at each scrape it
// asks every worker for its metrics over the cluster's IPC channel, as prom-client's
// AggregatorRegistry does, and waits for them up to a deadline, so that a hung worker does not
// hold the scrape. Nothing is summed or averaged: every series keeps its process, named by the
// labels `service_instance_id`, `process_pid` and `cluster_worker_id` (OpenTelemetry's resource
// attributes service.instance.id and process.pid). `lag_process_answered` says, per process,
// whether its series are of this scrape (1) or of its last answer (0: it is held, by a hang or a
// stop).
//
// A worker whose primary does not run lagwatch (PM2's cluster mode: PM2 owns the primary) serves
// a port of its own: the named port plus its instance (PM2's NODE_APP_INSTANCE, else its cluster
// worker id), never shared through the cluster.
const { processRole } = require('./util');

const REQUEST = 'lagwatch:metrics?';
const REPLY = 'lagwatch:metrics';
// Set by a primary that serves, inherited by the workers it forks (cluster.fork passes its env).
const PRIMARY_ENV = 'LAGWATCH_CLUSTER_PRIMARY';
const DEADLINE_MS = 2000;

let instanceId = null;

// This process's labels: its service.instance.id (OTEL_RESOURCE_ATTRIBUTES', or a random UUID as
// OpenTelemetry's own detector makes), its pid, its cluster worker id.
function identity(resourceAttributes = {}) {
  if (instanceId === null) {
    const given = resourceAttributes['service.instance.id'];
    instanceId = typeof given === 'string' && given !== '' ? given : require('crypto').randomUUID();
  }
  const out = { 'service.instance.id': instanceId, 'process.pid': process.pid };
  const worker = workerId();
  if (worker !== null) out['cluster.worker.id'] = worker;
  return out;
}

// The cluster worker id (the environment's PM2 instance aside), or null.
function workerId() {
  const { cluster } = processRole({});
  return cluster !== undefined && cluster.worker !== undefined ? cluster.worker : null;
}

// Where this process serves `port` (null: it does not; its primary gathers it), and how.
function servingPlan(env, port) {
  const worker = workerId();
  const { instance } = processRole(env); // PM2's
  if (worker !== null && env[PRIMARY_ENV] === String(process.ppid)) return null;
  if (worker === null && instance === undefined) return { port, exclusive: false, primary: true };
  // A port of its own: port 0 stays 0 (the system picks), the rest move by the instance.
  const offset = instance !== undefined ? instance : worker;
  return { port: port === 0 ? 0 : port + offset, exclusive: true, primary: false };
}

// NaN and the infinities through JSON (the IPC channel's default serialization).
const replacer = (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? { $num: String(v) } : v);
const reviver = (k, v) => (v !== null && typeof v === 'object' && typeof v.$num === 'string' ? Number(v.$num) : v);

// A worker: answer the primary's requests with `snapshot(format)` (a promise of plain data).
function answerPrimary(snapshot) {
  process.on('message', (msg) => {
    if (msg === null || typeof msg !== 'object' || msg.type !== REQUEST) return;
    const send = (body) => {
      if (process.connected) process.send({ type: REPLY, id: msg.id, body: JSON.stringify(body, replacer) }, () => {});
    };
    Promise.resolve().then(() => snapshot(msg.format)).then(
      (data) => send({ who: identity(), data }),
      (err) => send({ who: identity(), error: String(err && err.message) }));
  });
}

// The primary: what each worker answered last (by cluster worker id), and the gathering.
class Gatherer {
  constructor() {
    this.cluster = null; // the cluster module, once the app has loaded it and forked
    this.last = new Map(); // worker id -> format -> { who, data }: its last answer
    this.next = 0;
    this.waiting = new Map(); // request id -> (reply) => void
    this.onMessage = (worker, msg) => {
      if (msg === null || typeof msg !== 'object' || msg.type !== REPLY) return;
      const done = this.waiting.get(msg.id);
      if (done === undefined) return;
      let body;
      try {
        body = JSON.parse(msg.body, reviver);
      } catch {
        return;
      }
      done(worker, body);
    };
  }

  // Has this process forked cluster workers (cluster.fork fills cluster.settings)? The module is
  // asked only once the app has loaded it.
  clustered() {
    if (this.cluster === null) {
      const { cluster } = processRole({});
      if (cluster === undefined || cluster.primary !== true) return false;
      this.cluster = require('cluster');
      this.cluster.on('message', this.onMessage);
    }
    return true;
  }

  workers() {
    return Object.values(this.cluster.workers || {}).filter((w) => w && w.isConnected() && !w.isDead());
  }

  // Every worker's { who, data, answered } for `format`, within the deadline the scrape `req`
  // leaves: a worker that did not answer in time gives its last answer (answered: false), or only
  // who it is.
  gather(format, req) {
    const workers = this.workers();
    for (const id of this.last.keys()) if (!workers.some((w) => w.id === id)) this.last.delete(id);
    if (workers.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const got = new Map();
      const id = `${process.pid}:${++this.next}`;
      const finish = () => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(workers.map((w) => {
          if (got.has(w.id)) return { ...got.get(w.id), answered: true };
          const last = this.last.has(w.id) ? this.last.get(w.id).get(format) : undefined;
          const who = last ? last.who : { 'process.pid': w.process.pid, 'cluster.worker.id': w.id };
          return { who, data: last ? last.data : null, answered: false };
        }));
      };
      const timer = setTimeout(finish, deadlineFor(req));
      this.waiting.set(id, (worker, body) => {
        if (!workers.includes(worker) || got.has(worker.id) || body.data === undefined) return;
        got.set(worker.id, { who: body.who, data: body.data });
        if (!this.last.has(worker.id)) this.last.set(worker.id, new Map());
        this.last.get(worker.id).set(format, got.get(worker.id));
        if (got.size === workers.length) finish();
      });
      for (const w of workers) {
        try {
          w.send({ type: REQUEST, id, format }, () => {});
        } catch {
          // A worker exiting: it gives its last answer, as one that is late.
        }
      }
    });
  }
}

// The deadline a scrape leaves: Prometheus says its timeout; a quarter of a second is kept for
// the answer.
function deadlineFor(req) {
  const s = Number(req.headers['x-prometheus-scrape-timeout-seconds']);
  return Number.isFinite(s) && s > 0 ? Math.max(100, Math.min(DEADLINE_MS, s * 1000 - 250)) : DEADLINE_MS;
}

module.exports = { identity, servingPlan, answerPrimary, Gatherer, PRIMARY_ENV };
