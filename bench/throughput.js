'use strict';
// Throughput under load: a hello-world HTTP server on 127.0.0.1 (bench/fixtures/server.js CONFIG)
// loaded by wrk (2 threads, 50 connections, --latency) for --duration seconds per run after a 1 s
// warm-up, one fresh server per run. Configurations are alternated (the order rotates every round)
// and each is compared with the 'nothing' server of the same round: requests/s ratio, p99 latency,
// and the server's own CPU time per request (from /proc/PID/stat: less sensitive than requests/s
// to what else the machine runs). --extra-pairs N adds N more nothing/lagwatch pairs.
// Load generator: wrk; if missing, `apt-get install -y wrk`; else autocannon (devDependency).
// Target: lagwatch >= 99 % of the nothing-baseline's requests/s.
// Usage: node bench/throughput.js [--rounds 3] [--duration 10] [--connections 50] [--threads 2]
//        [--extra-pairs 2] [--configs a,b,...] [--json]
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { CONFIGS } = require('./lib/peers');
const { summary, opt, flag } = require('./lib/stats');

const args = process.argv.slice(2);
const rounds = opt(args, '--rounds', 3);
const duration = opt(args, '--duration', 10);
const connections = opt(args, '--connections', 50);
const threads = opt(args, '--threads', 2);
const extraPairs = opt(args, '--extra-pairs', 2);
const configs = opt(args, '--configs', CONFIGS.join(',')).split(',');
const asJson = flag(args, '--json');
const log = (s) => console.error(s);
const server = path.join(__dirname, 'fixtures', 'server.js');
const CLK_TCK = 100; // Linux USER_HZ

function findWrk() {
  for (const p of ['/usr/bin/wrk', '/usr/local/bin/wrk']) if (fs.existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  log('wrk not found: trying apt-get install -y wrk');
  const apt = spawnSync('apt-get', ['install', '-y', 'wrk'], { encoding: 'utf8', timeout: 120000 });
  if (apt.status === 0 && fs.existsSync('/usr/bin/wrk')) return '/usr/bin/wrk';
  return null;
}
const wrk = findWrk();
const autocannon = path.join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
const generator = wrk
  ? `wrk -t${threads} -c${connections} -d${duration}s --latency http://127.0.0.1:PORT/`
  : `autocannon -c ${connections} -d ${duration} --json http://127.0.0.1:PORT/`;

// wrk's latency figures: "2.34ms", "812.00us", "1.02s".
function toMs(s) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(s);
  if (!m) return NaN;
  return Number(m[1]) * { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2]];
}

function load(port, seconds) {
  if (wrk) {
    const r = spawnSync(wrk, [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', `http://127.0.0.1:${port}/`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wrk: ${r.stderr}`);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)[1]);
    const p99 = toMs(/^\s+99%\s+(\S+)/m.exec(r.stdout)[1]);
    const errors = /Non-2xx|Socket errors/.test(r.stdout) ? r.stdout.split('\n').filter((l) => /errors|Non-2xx/.test(l)).join('; ') : null;
    const requests = Number(/(\d+) requests in/.exec(r.stdout)[1]);
    return { rps, p99, requests, errors };
  }
  const r = spawnSync(process.execPath, [autocannon, '-c', String(connections), '-d', String(seconds), '--json', `http://127.0.0.1:${port}/`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`autocannon: ${r.stderr}`);
  const j = JSON.parse(r.stdout);
  return { rps: j.requests.average, p99: j.latency.p99, requests: j.requests.total, errors: j.errors ? `${j.errors} errors` : null };
}

function cpuTicks(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14, 15)
}

function startServer(name) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [server, name], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`server ${name} exited: ${code}`)));
  });
}

async function runOne(name) {
  const { child, port } = await startServer(name);
  try {
    load(port, 1); // warm-up: JIT, connections, caches
    const c0 = cpuTicks(child.pid);
    const r = load(port, duration);
    const c1 = cpuTicks(child.pid);
    r.serverCpuUsPerRequest = ((c1 - c0) / CLK_TCK) * 1e6 / r.requests;
    return r;
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
    await new Promise((res) => child.once('exit', res));
  }
}

async function main() {
  const plan = [];
  for (let i = 0; i < rounds; i++) plan.push(configs.map((_, k) => configs[(k + i) % configs.length]));
  for (let i = 0; i < extraPairs; i++) plan.push(i % 2 ? ['lagwatch', 'nothing'] : ['nothing', 'lagwatch']);
  const runs = [];
  for (const [i, order] of plan.entries()) {
    const got = {};
    for (const name of order) got[name] = await runOne(name);
    runs.push(got);
    log(`throughput round ${i + 1}/${plan.length}: ` + order.map((n) => `${n} ${got[n].rps.toFixed(0)} req/s p99 ${got[n].p99.toFixed(2)} ms`).join(', '));
  }
  const res = { generator: wrk ? `wrk (${wrk})` : 'autocannon (wrk missing)', command: generator, rounds, extraPairs, duration, connections, threads, configs: {}, runs };
  for (const name of configs) {
    const mine = runs.filter((r) => r[name]);
    res.configs[name] = {
      rps: summary(mine.map((r) => r[name].rps)),
      p99Ms: summary(mine.map((r) => r[name].p99)),
      serverCpuUsPerRequest: summary(mine.map((r) => r[name].serverCpuUsPerRequest)),
      ratio: summary(mine.map((r) => r[name].rps / r.nothing.rps)),
      cpuRatio: summary(mine.map((r) => r[name].serverCpuUsPerRequest / r.nothing.serverCpuUsPerRequest)),
      errors: mine.map((r) => r[name].errors).filter(Boolean),
    };
  }
  // The machine's noise: how far apart the baseline's own runs are (spread / median), and the
  // run-to-run change between consecutive baseline runs.
  const base = runs.map((r) => r.nothing.rps);
  const consecutive = base.slice(1).map((x, i) => Math.abs(x / base[i] - 1));
  res.noise = {
    baselineSpread: (Math.max(...base) - Math.min(...base)) / summary(base).median,
    baselineConsecutiveChange: summary(consecutive),
  };
  const lw = res.configs.lagwatch;
  res.target = { ratio: 0.99, met: lw ? lw.ratio.median >= 0.99 : null };
  if (asJson) {
    console.log(JSON.stringify(res, null, 2));
  } else {
    for (const n of configs) {
      const c = res.configs[n];
      console.log(`${n.padEnd(24)} ${c.rps.median.toFixed(0)} req/s [${c.rps.min.toFixed(0)}-${c.rps.max.toFixed(0)}]` +
        ` ratio ${c.ratio.median.toFixed(3)} [${c.ratio.min.toFixed(3)}-${c.ratio.max.toFixed(3)}]` +
        ` p99 ${c.p99Ms.median.toFixed(2)} ms, server CPU ${c.serverCpuUsPerRequest.median.toFixed(1)} us/req (x${c.cpuRatio.median.toFixed(3)})`);
    }
    console.log(`noise: baseline spread ${(res.noise.baselineSpread * 100).toFixed(1)} %`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
