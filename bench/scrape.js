'use strict';
// The observer is not the observed (SPEC §14): the main thread's time per scrape of /metrics.
// Each run is a fresh `node bench/fixtures/scrape-child.js CONFIG`, idle but for the scrapes:
//  - register-text, register-protobuf: `node -r lagwatch/register` with
//    OTEL_EXPORTER_PROMETHEUS_PORT, the port served by lagwatch's own thread (lib/responder.js),
//    which asks the main thread to render each body; scraped in the text format, or in the
//    protobuf exposition Prometheus asks for with native histograms;
//  - exporter-text (the reference): the same monitors' metrics served as an app with its own
//    OpenTelemetry SDK serves them, @opentelemetry/exporter-prometheus's server on the main thread.
// The main thread's time is read in the child (performance.eventLoopUtilization().active) over an
// IPC round trip, before and 50 ms after each scrape; a scrape costs that, less the median of the
// same windows with no scrape (the IPC's own cost). The first scrape of a process is apart (it
// builds what later ones reuse); then --scrapes steady ones. Configurations alternate, one fresh
// process each per round. The target: at most 5 ms a scrape on the main thread, first and steady,
// median of the rounds (the whole of a scrape's time: no single stretch of it can be longer; the
// largest of each run is given too, where a GC or the shared machine's preemption lands). Exits 1
// (its JSON still printed) when missed.
// Usage: node bench/scrape.js [--rounds 3] [--scrapes 20] [--json]
const { fork } = require('child_process');
const http = require('http');
const net = require('net');
const path = require('path');
const { opt, flag, summary, median } = require('./lib/stats');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', 3);
const scrapes = opt(args, '--scrapes', 20);
const asJson = flag(args, '--json');
const child = path.join(__dirname, 'fixtures', 'scrape-child.js');
const root = path.join(__dirname, '..');
const PROTOBUF = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,text/plain;version=0.0.4;q=0.3';
const TARGET_MS = 5;
const CONFIGS = {
  'register-text': { config: 'register', accept: 'text/plain;version=0.0.4' },
  'register-protobuf': { config: 'register', accept: PROTOBUF },
  'exporter-text': { config: 'exporter', accept: 'text/plain;version=0.0.4' },
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    }).on('error', reject);
  });
}

function get(port, accept) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/metrics', headers: { accept }, agent: false }, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => resolve(n));
    }).on('error', reject);
  });
}

// One fresh process of `name`: its first scrape's cost and its steady ones', ms.
async function run(name) {
  const { config, accept } = CONFIGS[name];
  const port = await freePort();
  const env = { ...process.env, OTEL_EXPORTER_PROMETHEUS_PORT: String(port), SCRAPE_PORT: String(port) };
  for (const k of Object.keys(env)) if (k.startsWith('LAGWATCH_') || k === 'NODE_OPTIONS') delete env[k];
  const p = fork(child, [config], { cwd: root, env, execArgv: config === 'register' ? ['-r', 'lagwatch/register'] : [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  const waiting = [];
  let listening = false; // the exporter's server says so over IPC; register on stderr
  p.on('message', (m) => {
    if (m.listening !== undefined) listening = true;
    else if (m.active !== undefined) waiting.shift()(m.active);
  });
  const active = () => new Promise((resolve) => { waiting.push(resolve); p.send('?'); });
  try {
    // Listening, then settled (start-up's GC and timers done).
    for (let i = 0; !listening && !/metrics at/.test(stderr); i++) {
      if (i === 200 || p.exitCode !== null) throw new Error(`${name}: not listening after 10 s: ${stderr}`);
      await sleep(50);
    }
    await sleep(2000);
    const windowOf = async (scrape) => {
      const a = await active();
      if (scrape) await get(port, accept);
      await sleep(50);
      return (await active()) - a;
    };
    const idle = [];
    for (let i = 0; i < 10; i++) idle.push(await windowOf(false));
    const base = median(idle);
    const first = (await windowOf(true)) - base;
    const steady = [];
    for (let i = 0; i < scrapes; i++) steady.push((await windowOf(true)) - base);
    const bytes = await get(port, accept);
    return { first, steady: median(steady), steadyMax: Math.max(...steady), ipcMs: base, bytes };
  } finally {
    p.kill('SIGKILL');
  }
}

async function main() {
  const names = Object.keys(CONFIGS);
  const per = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const n of order) {
      per[n].push(await run(n));
      process.stderr.write(`round ${r + 1}/${rounds} ${n}: ${JSON.stringify(per[n][per[n].length - 1])}\n`);
    }
  }
  const out = { rounds, scrapes, targetMs: TARGET_MS, configs: {} };
  for (const n of names) {
    const runs = per[n];
    out.configs[n] = {
      firstMs: summary(runs.map((x) => x.first)),
      steadyMs: summary(runs.map((x) => x.steady)),
      steadyMaxMs: summary(runs.map((x) => x.steadyMax)),
      bytes: median(runs.map((x) => x.bytes)),
    };
    // Against the reference of the same round.
    out.configs[n].steadyRatio = summary(runs.map((x, i) => x.steady / per['exporter-text'][i].steady));
  }
  out.met = names.filter((n) => n.startsWith('register')).every((n) =>
    out.configs[n].firstMs.median <= TARGET_MS && out.configs[n].steadyMs.median <= TARGET_MS);
  if (asJson) {
    console.log(JSON.stringify(out, null, 1));
  } else {
    for (const [n, c] of Object.entries(out.configs)) {
      console.log(`${n.padEnd(18)} first ${c.firstMs.median.toFixed(2)} ms (${c.firstMs.min.toFixed(2)}–${c.firstMs.max.toFixed(2)}), ` +
        `steady ${c.steadyMs.median.toFixed(2)} ms (max ${c.steadyMaxMs.max.toFixed(2)}), ×${c.steadyRatio.median.toFixed(2)} of exporter-text, ${c.bytes} bytes`);
    }
    console.log(`target: at most ${TARGET_MS} ms a scrape on the main thread: ${out.met ? 'met' : 'MISSED'}`);
  }
  if (!out.met) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
