'use strict';
// `node -r lagwatch/register app.js` (lib/register.js): zero-code monitors, one stderr line per stall
// episode, LAGWATCH_PROMETHEUS_PORT / LAGWATCH_PROMETHEUS_HOST serving /metrics, one clear line for
// a bad setting, and neither the monitors nor the server keep the app alive. Every run is a real
// child process (cwd = the package, so the self-reference `lagwatch/register` resolves); every child
// is killed in afterEach whatever happened.
const assert = require('assert');
const { spawn, spawnSync } = require('child_process');
const http = require('http');
const net = require('net');
const path = require('path');
const { MONITORS } = require('./helpers');

const ROOT = path.resolve(__dirname, '..');
const FIXTURES = path.join(__dirname, 'fixtures');
const APP = path.join(FIXTURES, 'register-app.js');
// The line of its busy loop, where its stack is taken.
const APP_LOOP_LINE = require('fs').readFileSync(APP, 'utf8').split('\n')
  .findIndex((l) => l.includes('while (performance.now() < end);')) + 1;
const PLAIN = path.join(FIXTURES, 'register-plain.js');
const SIGNAL_APP = path.join(FIXTURES, 'register-signal.js');
// The blocking profile's lines on stderr (lib/blocking.js's format).
const PROFILE_LINE = /^lagwatch: blocking profile|^ {2}\d+\. /;
const REQUIRE = path.join(FIXTURES, 'register-require.js');

// With the cause the worker measured (SPEC §12): ", cause: busy (cpu 5802 ms, gc 8 ms of 5802 ms)".
const STALL_LINE = /^lagwatch: hang stall of (\d+) ms \(([^)]*)\), cause: (\w+) \(([^)]*) of (\d+) ms\)$/;
// Then the app's innermost frames, taken while it was still blocked (SPEC §12), as in Error.stack.
const STACK_LINE = /^ {4}at (.+) \((.+):(\d+):(\d+)\)$/;
// While a hang runs, one line says so (SPEC §14; test/e2e/hang-line.test.js).
const IN_PROGRESS_LINE = /^lagwatch: hang in progress on the main thread: /;
const notOurs = (l) => !STALL_LINE.test(l) && !STACK_LINE.test(l) && !IN_PROGRESS_LINE.test(l);
const METRICS_LINE = /^lagwatch: metrics at http:\/\/([^/]+):(\d+)\/metrics$/;
const APP_STDOUT_BLOCKED = 'register-app: start\nregister-app: blocked 6000 ms\nregister-app: done\n';
const APP_STDOUT_QUICK = 'register-app: start\nregister-app: blocked 0 ms\nregister-app: done\n';
// The app without its block: it starts, stays ~1 s, exits.
const QUICK = { REGISTER_APP_BLOCK_MS: '0', REGISTER_APP_START_MS: '100', REGISTER_APP_STAY_MS: '900' };

const live = new Set();

// Every child a test left running, killed and reaped (each describe's afterEach).
async function killLive() {
  const left = [...live];
  for (const p of left) p.child.kill('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}

// Every LAGWATCH_ and OTEL_ variable of the environment running mocha is removed: each test sets
// its own.
function baseEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LAGWATCH_') && !k.startsWith('OTEL_')) env[k] = v;
  delete env.NODE_OPTIONS;
  return { ...env, ...extra };
}

// `node <nodeArgs> <script>` in ROOT; it is SIGKILLed after `killAfterMs` whatever happens.
function run(script, { env = {}, nodeArgs = ['-r', 'lagwatch/register'], killAfterMs = 30000, cwd = ROOT } = {}) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd,
    env: baseEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = { child, stdout: '', stderr: '', exit: null, waiters: new Set() };
  live.add(p);
  const wake = () => { for (const w of [...p.waiters]) w(); };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d) => { p.stdout += d; wake(); });
  child.stderr.on('data', (d) => { p.stderr += d; wake(); });
  const killTimer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  p.exited = new Promise((resolve) => {
    // 'close': the process has exited and its stdout and stderr have ended.
    child.on('close', (code, signal) => {
      clearTimeout(killTimer);
      p.exit = { code, signal, elapsedMs: Math.round(performance.now() - startedAt) };
      live.delete(p);
      resolve(p.exit);
      wake();
    });
  });
  p.describe = () => `${path.basename(script)} ${p.exit ? `exited ${JSON.stringify(p.exit)}` : 'still running'}` +
    `\n--- stdout ---\n${p.stdout}--- stderr ---\n${p.stderr}`;
  p.stderrLines = () => p.stderr.split('\n').filter((l) => l !== '');
  // The first stderr line matching `re` (its match), waiting up to `timeoutMs`.
  p.waitStderr = (re, timeoutMs) => new Promise((resolve, reject) => {
    const check = () => {
      const line = p.stderrLines().find((l) => re.test(l));
      if (line !== undefined) return done(null, line.match(re));
      if (p.exit) return done(new Error(`no stderr line ${re} before the child exited: ${p.describe()}`));
      return undefined;
    };
    const timer = setTimeout(() => done(new Error(`no stderr line ${re} within ${timeoutMs} ms: ${p.describe()}`)),
      timeoutMs);
    const done = (err, value) => {
      clearTimeout(timer);
      p.waiters.delete(check);
      if (err) reject(err); else resolve(value);
    };
    p.waiters.add(check);
    check();
  });
  // Until stdout holds `text`, waiting up to `timeoutMs`.
  p.waitStdout = (text, timeoutMs) => new Promise((resolve, reject) => {
    const check = () => {
      if (p.stdout.includes(text)) return done(null);
      if (p.exit) return done(new Error(`no ${JSON.stringify(text)} on stdout before the child exited: ${p.describe()}`));
      return undefined;
    };
    const timer = setTimeout(() => done(new Error(`no ${JSON.stringify(text)} on stdout within ${timeoutMs} ms: ${p.describe()}`)),
      timeoutMs);
    const done = (err) => {
      clearTimeout(timer);
      p.waiters.delete(check);
      if (err) reject(err); else resolve();
    };
    p.waiters.add(check);
    check();
  });
  // The exit, waiting up to `timeoutMs` (then it is killed and this rejects).
  p.waitExit = (timeoutMs) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not exit on its own within ${timeoutMs} ms: ${p.describe()}`));
    }, timeoutMs);
    p.exited.then((e) => { clearTimeout(timer); resolve(e); });
  });
  return p;
}

function get(host, port, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const req = http.get({ host, port, path: urlPath, headers, agent: false, timeout: 15000 }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode, headers: res.headers, body: raw.toString('utf8'), raw, ms: Date.now() - started });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET http://${host}:${port}${urlPath} timed out`)));
    req.on('error', reject);
  });
}

// Names of the metric families in a Prometheus text exposition (from its # TYPE lines).
function families(text) {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]).sort();
}

// The hang stall lines of `p`'s stderr, checked: exactly one, of 5800..6600 ms.
function assertOneHangLine(p) {
  const lines = p.stderrLines().filter((l) => l.includes('stall of'));
  assert.strictEqual(lines.length, 1, `exactly one stall line: ${p.describe()}`);
  const m = lines[0].match(STALL_LINE);
  assert.ok(m, `the stall line reads "lagwatch: hang stall of N ms (monitors), cause: …": ${JSON.stringify(lines[0])}`);
  const n = Number(m[1]);
  assert.ok(n >= 5800 && n <= 6600, `stall of ${n} ms for a 6000 ms block: ${p.describe()}`);
  assert.ok(m[2].split(', ').includes('loopBlock'), `loopBlock contributed: ${lines[0]}`);
  // A synchronous busy loop: runnable all along, on a CPU or waiting for one. The cause is the
  // larger part (SPEC §12): busy, or starved where the machine's load kept the thread waiting
  // longer than it ran (npm test runs suites side by side: 2314 ms on a CPU and 3712 ms on a run
  // queue once). The parts are the line's own figures, whole milliseconds: within 2 ms either
  // cause may be named.
  const parts = Object.fromEntries([...m[4].matchAll(/(run queue|cpu|gc|blocked|throttled) (\d+) ms/g)]
    .map((x) => [x[1], Number(x[2])]));
  assert.ok(m[3] === 'busy' || m[3] === 'starved', lines[0]);
  assert.ok(parts.cpu + (parts['run queue'] || 0) >= 0.9 * Number(m[5]), `runnable for most of the span: ${lines[0]}`);
  const ran = parts.cpu - (parts.gc || 0);
  const waited = parts['run queue'] || 0;
  if (Math.abs(ran - waited) > 2) assert.strictEqual(m[3], waited > ran ? 'starved' : 'busy', lines[0]);
  // The next line is the app's innermost frame: the loop of register-app.js.
  const all = p.stderrLines();
  const frame = STACK_LINE.exec(all[all.indexOf(lines[0]) + 1] || '');
  assert.ok(frame, `a stack line follows: ${p.describe()}`);
  assert.ok(frame[2].endsWith('/register-app.js'), frame[0]);
  assert.strictEqual(Number(frame[3]), APP_LOOP_LINE, frame[0]);
}

describe('lagwatch/register (node -r lagwatch/register)', function () {
  this.timeout(60000);

  afterEach(killLive);

  it('prints exactly one hang stall line for a 6 s block and the app exits 0 on its own', async function () {
    const p = run(APP);
    const exit = await p.waitExit(30000);
    assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
    // 0.5 s + 6 s block + 6 s stay: it ended by itself, not by the 30 s kill.
    assert.ok(exit.elapsedMs >= 12000 && exit.elapsedMs < 20000, `exited after ${exit.elapsedMs} ms`);
    assertOneHangLine(p);
    assert.deepStrictEqual(p.stderrLines().filter(notOurs), [],
      `no other stderr line without LAGWATCH_ settings: ${p.describe()}`);
    assert.strictEqual(p.stdout, APP_STDOUT_BLOCKED, 'the app\'s stdout is intact');
  });

  it('LAGWATCH_BLOCK_MS=300: one "block of N ms" line for a 400 ms block; a threshold out of range is said, and the rest runs', async function () {
    const p = run(APP, { env: { LAGWATCH_BLOCK_MS: '300', REGISTER_APP_BLOCK_MS: '400', REGISTER_APP_STAY_MS: '3000' } });
    const exit = await p.waitExit(30000);
    assert.strictEqual(exit.code, 0, p.describe());
    // The app's block, and under load (ASan beside the other suites) perhaps its start-up too: each
    // block is one line, and the profile counts them all.
    const lines = p.stderrLines().filter((l) => /^lagwatch: block of/.test(l));
    for (const l of lines) assert.match(l, /^lagwatch: block of \d+ ms( at .+| \(no stack: \w+\))$/, p.describe());
    // The app's block names where it ran (stacks are on under register): its function and file.
    // Its 400 ms of CPU work, and what the run queue added under load (as the last-block test).
    const own = lines.filter((l) => /^lagwatch: block of \d+ ms at \(anonymous\) \(.*register-app\.js:14\)/.test(l));
    assert.strictEqual(own.length, 1, p.describe());
    const ms = Number(/^lagwatch: block of (\d+) ms/.exec(own[0])[1]);
    assert.ok(ms >= 400 && ms < 600, p.describe());
    assert.strictEqual(p.stdout, 'register-app: start\nregister-app: blocked 400 ms\nregister-app: done\n');
    // At exit, the blocking profile: the app's call site, its stack (taken while it ran) in the app.
    const profile = p.stderrLines().filter((l) => /^lagwatch: blocking profile|^ {2}\d+\. /.test(l));
    assert.ok(profile.length >= 2 && profile.length <= 1 + lines.length, p.describe()); // a line per site
    assert.match(profile[0], new RegExp(`^lagwatch: blocking profile: ${lines.length} block\\(s\\), \\d+ ms blocked in all$`));
    const app = profile.filter((l) => /^ {2}\d+\. \d+ ms in 1 block\(s\), max \d+ ms, p50 \d+ ms, (busy|starved): \(anonymous\) \(.*register-app\.js:14\).* \[[0-9a-f]{16}\]$/.test(l));
    assert.strictEqual(app.length, 1, p.describe());
    const bad = run(APP, { env: { LAGWATCH_BLOCK_MS: '20', ...QUICK } });
    assert.strictEqual((await bad.waitExit(30000)).code, 0, bad.describe());
    assert.deepStrictEqual(bad.stderrLines(), [
      'lagwatch: LAGWATCH_BLOCK_MS=20: The "options.blocks.thresholdMs" argument must be a finite number >= 50 (blocks are not reported)',
    ], bad.describe());
  });

  it('a block in the script\'s last timer, right before it exits, is in the profile (no loop hook sees that iteration end; the finish measures it)', async function () {
    const dir = require('fs').mkdtempSync(path.join(require('os').tmpdir(), 'lagwatch-last-'));
    const file = path.join(dir, 'profile.json');
    try {
      const p = run(path.join(FIXTURES, 'register-last-block.js'), { env: { LAGWATCH_BLOCK_MS: '100', LAGWATCH_PROFILE_FILE: file } });
      assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
      const got = JSON.parse(require('fs').readFileSync(file, 'utf8'));
      // (Its start-up may be a block too, under load: the last work is the one through lastWork.)
      const last = got.sites.filter((s) => s.stack !== null && s.stack.some((f) => f.functionName === 'lastWork'));
      assert.strictEqual(last.length, 1, JSON.stringify(got));
      assert.strictEqual(last[0].count, 1);
      assert.ok(last[0].totalMs >= 300 && last[0].totalMs < 600, JSON.stringify(got)); // 300 ms, and the run queue's delay under load
    } finally {
      require('fs').rmSync(dir, { recursive: true, force: true });
    }
  });

  // Names and paths come from the app and the world: printed escaped, they neither move a
  // terminal's cursor nor colour it, nor start a line that reads as lagwatch's own.
  it('a function name and a path with an escape sequence and a newline: every lagwatch line escaped, no forged line', async function () {
    const fs = require('fs');
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'lagwatch-names-'));
    const odd = path.join(dir, 'app\u001b[2J\nlagwatch: forged.js');
    fs.mkdirSync(odd);
    const script = path.join(odd, 'app.js');
    fs.copyFileSync(path.join(FIXTURES, 'register-names.js'), script);
    const p = run(script, { env: { LAGWATCH_BLOCK_MS: '100', LAGWATCH_PROFILE_FILE: path.join(odd, 'no', 'such', 'profile.json') } });
    assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
    fs.rmSync(dir, { recursive: true, force: true });
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f]/.test(p.stderr), `no control character on stderr: ${JSON.stringify(p.stderr)}`);
    const lines = p.stderrLines();
    assert.deepStrictEqual(lines.filter((l) => l.includes('forged')).filter((l) => !/^(lagwatch: (block of|cannot write)|  \d+\. )/.test(l)), [],
      `no line starts with the planted text: ${JSON.stringify(lines)}`);
    assert.ok(lines.some((l) => l.startsWith('lagwatch: block of ') && l.includes('\\u001b[31mred\\nlagwatch: a forged line (')),
      `the block's line names the function, escaped: ${JSON.stringify(lines)}`);
    assert.ok(lines.some((l) => l.startsWith('lagwatch: cannot write LAGWATCH_PROFILE_FILE=') && l.includes('app\\u001b[2J\\nlagwatch: forged.js')),
      `the profile file's error names its path, escaped: ${JSON.stringify(lines)}`);
  });

  it('LAGWATCH_PROFILE_FILE: the blocking profile is written there as JSON at exit (a new file of mode 0600), not to stderr', async function () {
    const dir = require('fs').mkdtempSync(path.join(require('os').tmpdir(), 'lagwatch-profile-'));
    const file = path.join(dir, 'profile.json');
    try {
      const p = run(APP, { env: { LAGWATCH_BLOCK_MS: '300', LAGWATCH_PROFILE_FILE: file, REGISTER_APP_BLOCK_MS: '400', REGISTER_APP_STAY_MS: '3000' } });
      assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
      assert.deepStrictEqual(p.stderrLines().filter((l) => /blocking profile/.test(l)), []);
      assert.strictEqual(require('fs').statSync(file).mode & 0o777, 0o600);
      const got = JSON.parse(require('fs').readFileSync(file, 'utf8'));
      // The app's block is the one through its line 14; under load (ASan beside the other suites)
      // its start-up may be a block of 300 ms too, at a site of its own.
      const mine = got.sites.filter((s) => s.stack !== null && s.stack.some((f) => /register-app\.js$/.test(f.url) && f.lineNumber === 14));
      assert.strictEqual(mine.length, 1, JSON.stringify(got));
      const [site] = mine;
      assert.strictEqual(site.count, 1, JSON.stringify(got));
      assert.strictEqual(got.blocks, got.sites.reduce((n, s) => n + s.count, 0), JSON.stringify(got));
      assert.match(site.fingerprint, /^[0-9a-f]{16}$/);
      assert.ok(site.totalMs >= 400 && site.totalMs < 600 && site.maxMs === site.totalMs && site.p50Ms === site.totalMs, JSON.stringify(site)); // 400 ms of CPU work, and the run queue's delay under load
      // A busy loop: busy, or starved when the machine's load kept it from a CPU most of the time.
      assert.ok(['busy', 'starved'].includes(site.cause), site.cause);
      // A file that cannot be written is said; the app is not disturbed.
      const bad = run(APP, { env: { LAGWATCH_BLOCK_MS: '300', LAGWATCH_PROFILE_FILE: '/nonexistent-dir/p.json', REGISTER_APP_BLOCK_MS: '400', REGISTER_APP_STAY_MS: '100' } });
      assert.strictEqual((await bad.waitExit(30000)).code, 0, bad.describe());
      assert.ok(bad.stderrLines().some((l) => /^lagwatch: cannot write LAGWATCH_PROFILE_FILE=\/nonexistent-dir\/p\.json: ENOENT/.test(l)), bad.describe());
    } finally {
      require('fs').rmSync(dir, { recursive: true, force: true });
    }
  });

  // Another user (the tests run as root: files chowned to `nobody` stand for theirs) must not
  // turn the profile file into a write elsewhere, a read of the user's stacks or a stuck exit.
  it('LAGWATCH_PROFILE_FILE on a shared machine: never through a link, never into another user\'s file or a FIFO, never in a directory others can write (stderr then)', async function () {
    const fs = require('fs');
    const base = fs.mkdtempSync(path.join(require('os').tmpdir(), 'lagwatch-profile-shared-'));
    try {
      const precious = path.join(base, 'precious');
      fs.writeFileSync(precious, 'precious');
      const own = path.join(base, 'own');
      fs.mkdirSync(own, { mode: 0o700 });
      const theirs = path.join(own, 'theirs.json'); // another user's file, readable by all
      fs.writeFileSync(theirs, 'theirs', { mode: 0o666 });
      fs.chownSync(theirs, 65534, 65534);
      const kept = path.join(base, 'theirs-inode'); // the same file by another name: its content
      fs.linkSync(theirs, kept);
      fs.symlinkSync(precious, path.join(own, 'link.json'));
      spawnSync('mkfifo', [path.join(own, 'fifo.json')]);
      const open = path.join(base, 'open');
      fs.mkdirSync(open);
      fs.chmodSync(open, 0o777);
      const cases = [['link.json', own], ['theirs.json', own], ['fifo.json', own], ['p.json', open]];
      const runs = cases.map(([name, dir]) => run(APP, { env: { LAGWATCH_BLOCK_MS: '300', LAGWATCH_PROFILE_FILE: path.join(dir, name),
        REGISTER_APP_BLOCK_MS: '400', REGISTER_APP_STAY_MS: '100' } }));
      const exits = await Promise.all(runs.map((p) => p.waitExit(30000)));
      exits.forEach((e, i) => assert.strictEqual(e.code, 0, runs[i].describe()));
      assert.strictEqual(fs.readFileSync(precious, 'utf8'), 'precious', 'nothing written through the link');
      assert.strictEqual(fs.readFileSync(kept, 'utf8'), 'theirs', 'nothing written into another user\'s file');
      for (const name of ['link.json', 'theirs.json', 'fifo.json']) {
        const st = fs.lstatSync(path.join(own, name));
        assert.ok(st.isFile() && st.uid === process.getuid() && (st.mode & 0o777) === 0o600, `${name}: a new file of the user's, mode 0600`);
        assert.strictEqual(JSON.parse(fs.readFileSync(path.join(own, name), 'utf8')).blocks >= 1, true, name);
      }
      // A directory others can write: refused at setup, said once, the profile on stderr instead.
      const refused = runs[3].stderrLines();
      assert.ok(refused.some((l) => l.startsWith(`lagwatch: cannot write LAGWATCH_PROFILE_FILE=${path.join(open, 'p.json')}: its directory is refused: mode 0777`)),
        runs[3].describe());
      assert.ok(refused.some((l) => /^lagwatch: blocking profile: /.test(l)), runs[3].describe());
      assert.deepStrictEqual(fs.readdirSync(open), [], runs[3].describe());
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('LAGWATCH_PROMETHEUS_PORT=0 serves /metrics on a free port, with lag_stalls_total{kind="hang"} 1 after the block',
    async function () {
      const p = run(APP, { env: { LAGWATCH_PROMETHEUS_PORT: '0' } });
      const [, host, portText] = await p.waitStderr(METRICS_LINE, 10000);
      assert.strictEqual(host, '127.0.0.1', 'default host');
      const port = Number(portText);
      assert.ok(port > 0 && port <= 65535, `a real port: ${port}`);

      // While the app runs (before or during its block): served, Prometheus text format.
      const first = await get(host, port, '/metrics');
      assert.strictEqual(first.status, 200, first.body);
      assert.match(String(first.headers['content-type']), /^text\/plain/);
      assert.strictEqual(p.exit, null, 'the app still runs');

      await p.waitStderr(STALL_LINE, 15000);
      assert.strictEqual(p.exit, null, `the app still runs after the stall line: ${p.describe()}`);
      const after = await get(host, port, '/metrics');
      assert.strictEqual(after.status, 200, after.body);
      const names = families(after.body);
      for (const name of ['lag_stalls_total', 'lag_stall_duration_histogram', 'lag_drift_histogram',
        'lag_loop_block_histogram', 'lag_worker_hangs_total']) {
        assert.ok(names.includes(name), `${name} among ${JSON.stringify(names)}`);
      }
      assert.ok(names.filter((n) => n.startsWith('lag_')).length >= 5, JSON.stringify(names));
      const stallLines = after.body.split('\n').filter((l) => l.startsWith('lag_stalls_total{'));
      // One series per kind, and the fatal hangs of earlier runs apart, there from the start at 0:
      // only the hang one rose.
      const byKind = Object.fromEntries(stallLines.map((l) => [/kind="(\w+)"/.exec(l)[1] + (/fatal="true"/.test(l) ? ',fatal' : ''),
        Number(l.split(' ').pop())]));
      assert.deepStrictEqual(byKind, { hang: 1, suspend: 0, pause: 0, 'hang,fatal': 0 }, JSON.stringify(stallLines));
      assert.match(after.body, /^lag_stall_duration_histogram_count\{kind="hang"(,[^}]*)?\} 1$/m);

      const other = await get(host, port, '/');
      assert.strictEqual(other.status, 404, 'only /metrics is served');

      const exit = await p.waitExit(20000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
      assertOneHangLine(p);
      assert.strictEqual(p.stdout, APP_STDOUT_BLOCKED, 'the app\'s stdout is intact');
    });

  it('the metrics port answers during a hang, off the main thread: the last figures and lag_hang_in_progress, its time and cause so far (SPEC §14)',
    async function () {
      const p = run(APP, { env: { LAGWATCH_PROMETHEUS_PORT: '0', REGISTER_APP_START_MS: '1500', REGISTER_APP_BLOCK_MS: '8000' } });
      const [, host, portText] = await p.waitStderr(METRICS_LINE, 10000);
      const port = Number(portText);
      const scrape = (accept) => get(host, port, '/metrics', { 'X-Prometheus-Scrape-Timeout-Seconds': '1', ...(accept ? { accept } : {}) });
      const hangGauge = (body) => Object.fromEntries([...body.matchAll(/^lag_hang_in_progress\{cause="(\w+)"\} (\S+)$/gm)].map((m) => [m[1], Number(m[2])]));
      const causes = [...require('../lib/native').causeNames(), 'unknown'];
      const zeros = Object.fromEntries(causes.map((c) => [c, 0]));
      const before = await scrape();
      assert.strictEqual(before.status, 200, before.body);
      assert.deepStrictEqual(hangGauge(before.body), zeros, 'every cause at 0 while no hang runs');
      assert.match(before.body, /^lag_stalls_total\{kind="hang",otel/m);
      // Held, not yet a hang: answered by the deadline, with the last figures.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const held = await scrape();
      assert.strictEqual(held.status, 200, held.body);
      assert.ok(held.ms >= 800 && held.ms < 1500, `answered at the scrape's deadline, in ${held.ms} ms`);
      assert.deepStrictEqual(hangGauge(held.body), zeros, held.body);
      assert.match(held.body, /^lag_stalls_total\{kind="hang",[^}]*\} 0$/m, 'the last figures');
      // A hang flagged: answered at once, with the hang so far.
      await p.waitStderr(IN_PROGRESS_LINE, 10000);
      const during = await scrape();
      assert.strictEqual(during.status, 200, during.body);
      assert.ok(during.ms < 500, `answered at once during the hang, in ${during.ms} ms`);
      // Under its cause so far: busy, or starved when the machine's load kept the busy loop from a
      // CPU most of the time (beside the other suites, the soak's spinner); 0 under the others.
      const g = hangGauge(during.body);
      const cause = g.starved > g.busy ? 'starved' : 'busy';
      assert.ok(g[cause] >= 5000 && g[cause] < 8000, `the hang's time so far under busy or starved: ${JSON.stringify(g)}`);
      assert.deepStrictEqual({ ...g, [cause]: 0 }, zeros, during.body);
      assert.match(during.body, /^lag_stalls_total\{kind="hang",[^}]*\} 0$/m, 'the last figures: the hang is not yet counted');
      assert.strictEqual(p.exit, null, 'the app is still held');
      // The same in the protobuf exposition.
      const protobuf = require('protobufjs');
      const { SCHEMA, PROTOBUF_TYPE } = require('../lib/exposition');
      const MetricFamily = protobuf.parse(SCHEMA).root.lookupType('io.prometheus.client.MetricFamily');
      const pb = await scrape(PROTOBUF_TYPE);
      assert.strictEqual(pb.headers['content-type'], PROTOBUF_TYPE);
      const reader = protobuf.Reader.create(pb.raw);
      const fams = [];
      while (reader.pos < reader.len) fams.push(MetricFamily.decodeDelimited(reader));
      const hangFam = fams.find((f) => f.name === 'lag_hang_in_progress');
      assert.ok(hangFam, fams.map((f) => f.name).join());
      const heldMs = (name) => hangFam.metric.find((m) => m.label.some((l) => l.name === 'cause' && l.value === name)).gauge.value;
      assert.ok(Math.max(heldMs('busy'), heldMs('starved')) >= 5000, JSON.stringify(hangFam));
      // After the hang: counted, and nothing in progress.
      await p.waitStderr(STALL_LINE, 15000);
      const after = await scrape();
      assert.deepStrictEqual(hangGauge(after.body), zeros, after.body);
      assert.match(after.body, /^lag_stalls_total\{kind="hang",otel[^}]*\} 1$/m);
      const exit = await p.waitExit(20000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
    });


  for (const bad of ['abc', '70000', '-1']) {
    it(`LAGWATCH_PROMETHEUS_PORT=${bad}: one stderr line naming the variable and the value, the app runs and exits 0`,
      async function () {
        // 'abc' runs the full app (the monitors still work: the stall line comes); the others quick.
        const full = bad === 'abc';
        const p = run(APP, { env: { LAGWATCH_PROMETHEUS_PORT: bad, ...(full ? {} : QUICK) } });
        const exit = await p.waitExit(30000);
        assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
        assert.strictEqual(p.stdout, full ? APP_STDOUT_BLOCKED : APP_STDOUT_QUICK, 'the app\'s stdout is intact');
        const settingLines = p.stderrLines().filter(notOurs);
        assert.strictEqual(settingLines.length, 1, `exactly one line about the setting: ${p.describe()}`);
        const line = settingLines[0];
        assert.ok(line.startsWith('lagwatch: '), line);
        assert.ok(line.includes('LAGWATCH_PROMETHEUS_PORT'), `names the variable: ${line}`);
        assert.ok(line.includes(`"${bad}"`), `names the value "${bad}": ${line}`);
        assert.ok(!METRICS_LINE.test(line), line);
        if (full) assertOneHangLine(p);
        else assert.strictEqual(p.stderrLines().length, 1, p.describe());
      });
  }

  it('a port already taken: one clear "cannot serve metrics" line, the app still runs and exits 0', async function () {
    const blocker = net.createServer();
    await new Promise((resolve, reject) => {
      blocker.once('error', reject);
      blocker.listen(0, '127.0.0.1', resolve);
    });
    const { port } = blocker.address();
    try {
      const p = run(APP, { env: { LAGWATCH_PROMETHEUS_PORT: String(port), ...QUICK } });
      const exit = await p.waitExit(20000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
      assert.strictEqual(p.stdout, APP_STDOUT_QUICK, 'the app\'s stdout is intact');
      const lines = p.stderrLines();
      assert.strictEqual(lines.length, 1, `exactly one stderr line: ${p.describe()}`);
      assert.ok(lines[0].startsWith('lagwatch: cannot serve metrics'), lines[0]);
      assert.ok(lines[0].includes(`127.0.0.1:${port}`), `names host:port: ${lines[0]}`);
      assert.ok(lines[0].includes('EADDRINUSE'), `says why: ${lines[0]}`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('a script with no timers exits on its own at once (monitors and server never keep it alive)', async function () {
    for (const env of [{}, { LAGWATCH_PROMETHEUS_PORT: '0' }]) {
      // Node's own start-up and exit, measured here and now: ~0.1 s on a quiet machine, seconds
      // under ASan beside other suites (3.6 s once).
      const t0 = performance.now();
      spawnSync(process.execPath, ['-e', 'require(process.argv[1])', ROOT], { env: baseEnv({}), stdio: 'ignore' });
      const bare = performance.now() - t0;
      const p = run(PLAIN, { env, killAfterMs: 15000 });
      const exit = await p.waitExit(15000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
      // A monitor or the server keeping the loop alive would keep it running until killed (15 s);
      // a timer that held it one interval, a second or so longer than a bare start-up and exit.
      assert.ok(exit.elapsedMs < 3000 + 2 * bare, `exited after ${exit.elapsedMs} ms with ${JSON.stringify(env)}; loading lagwatch alone took ${bare.toFixed(0)} ms`);
      assert.strictEqual(p.stdout, 'register-plain: done\n');
      const unexpected = p.stderrLines().filter((l) => !METRICS_LINE.test(l));
      assert.deepStrictEqual(unexpected, [], p.describe());
    }
  });

  it("require('lagwatch/register') returns the running monitor set; its conditions.stats() works", async function () {
    const p = run(REQUIRE, { nodeArgs: [], killAfterMs: 15000 });
    const exit = await p.waitExit(15000);
    assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
    assert.strictEqual(p.stderr, '', p.describe());
    const out = JSON.parse(p.stdout);
    assert.strictEqual(out.isObject, true, 'not null: the monitors started');
    assert.strictEqual(out.sameOnSecondRequire, true, 'one monitor set per process');
    assert.strictEqual(out.stopType, 'function');
    const names = MONITORS.names;
    assert.deepStrictEqual(Object.keys(out.monitors).sort(), [...names].sort());
    for (const name of names) {
      assert.deepStrictEqual(out.monitors[name], { name, running: true, start: 'function', stop: 'function' });
    }
    assert.deepStrictEqual(out.runningAfterStop, [], 'stop() stops every monitor');
    const s = out.stats;
    assert.deepStrictEqual(s.stalls, { hang: 0, suspend: 0, pause: 0 });
    assert.deepStrictEqual(s.jumps, { suspend: 0, step: 0 });
    for (const k of ['submitted', 'recorded', 'held', 'cancelled', 'intervals']) {
      assert.strictEqual(typeof s[k], 'number', `stats().${k}`);
    }
    assert.strictEqual(typeof s.discarded, 'object');
    assert.deepStrictEqual(Object.keys(s.monitors).sort(),
      ['driftLag', 'idleAvailability', 'loopBlock', 'macrotaskLag', 'worker']);
  });
});

// A collector stand-in: an HTTP server that keeps every OTLP request (POST /v1/metrics). No
// OpenTelemetry Collector is packaged for Debian 12; the exporters under test are OpenTelemetry's
// own, so what is checked here is lagwatch's wiring: which exporter, where, with what resource.
function fakeCollector() {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks) });
      res.statusCode = 200;
      res.setHeader('Content-Type', req.headers['content-type'] || 'application/json');
      res.end(req.headers['content-type'] === 'application/json' ? '{}' : '');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, requests,
    url: `http://127.0.0.1:${server.address().port}` })));
}

describe('lagwatch/register follows OpenTelemetry\'s environment variables', function () {
  this.timeout(60000);

  afterEach(killLive);

  it('OTEL_EXPORTER_PROMETHEUS_PORT/_HOST serve /metrics; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES make target_info', async function () {
    const p = run(PLAIN, { env: { OTEL_EXPORTER_PROMETHEUS_PORT: '0', OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_SERVICE_NAME: 'checkout', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,team=payments' },
    nodeArgs: ['-r', 'lagwatch/register', '-e', 'setTimeout(() => {}, 3000)'] });
    const [, host, port] = await p.waitStderr(METRICS_LINE, 10000);
    const res = await get(host, Number(port), '/metrics');
    assert.strictEqual(res.status, 200);
    const target = /^target_info\{([^}]*)\} 1$/m.exec(res.body);
    assert.ok(target, res.body.slice(0, 500));
    assert.match(target[1], /(^|,)service_name="checkout"(,|$)/);
    assert.match(target[1], /(^|,)deployment_environment="test"(,|$)/);
    assert.match(target[1], /(^|,)team="payments"(,|$)/);
    assert.match(res.body, /^lag_stalls_total\{kind="hang"/m);
  });

  it('OTEL_METRICS_EXPORTER=otlp over http/json: the last values reach the collector when the app ends, with the resource', async function () {
    const collector = await fakeCollector();
    try {
      const p = run(APP, { env: { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'fleet-member', LAGWATCH_STACKS: '0' } });
      const exit = await p.waitExit(40000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
      assert.deepStrictEqual(p.stderrLines().filter((l) => !STALL_LINE.test(l) && !IN_PROGRESS_LINE.test(l)), [], p.describe());
      const posts = collector.requests.filter((r) => r.method === 'POST' && r.url === '/v1/metrics');
      assert.ok(posts.length >= 1, JSON.stringify(collector.requests.map((r) => [r.method, r.url])));
      const last = JSON.parse(posts[posts.length - 1].body.toString('utf8'));
      const rm = last.resourceMetrics[0];
      const service = rm.resource.attributes.find((a) => a.key === 'service.name');
      assert.strictEqual(service.value.stringValue, 'fleet-member');
      const scope = rm.scopeMetrics.find((sm) => sm.scope.name === 'lagwatch');
      const stalls = scope.metrics.find((md) => md.name === 'lag_stalls');
      const hang = stalls.sum.dataPoints.find((d) => d.attributes.some((a) => a.key === 'kind' && a.value.stringValue === 'hang'));
      assert.strictEqual(Number(hang.asInt !== undefined ? hang.asInt : hang.asDouble), 1, JSON.stringify(hang));
      assert.ok(scope.metrics.some((md) => md.name === 'nodejs.eventloop.delay.p99'));
      // The histograms of recorded samples come from lagwatch's producer: one cumulative point each.
      const blocks = rm.scopeMetrics.flatMap((sm) => sm.metrics).filter((md) => md.name === 'lag_loop_block_histogram');
      assert.strictEqual(blocks.length, 1, 'exported once');
      assert.strictEqual(blocks[0].histogram.aggregationTemporality, 2, 'CUMULATIVE');
      assert.ok(Number(blocks[0].histogram.dataPoints[0].count) > 0, JSON.stringify(blocks[0]));
    } finally {
      await new Promise((resolve) => collector.server.close(resolve));
    }
  });

  it('OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta: the histograms of recorded samples are deltas too, as the exporter\'s own', async function () {
    const collector = await fakeCollector();
    try {
      const p = run(APP, { env: { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
        LAGWATCH_STACKS: '0', ...QUICK } });
      const exit = await p.waitExit(30000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
      const posts = collector.requests.filter((r) => r.method === 'POST' && r.url === '/v1/metrics');
      assert.ok(posts.length >= 1, JSON.stringify(collector.requests.map((r) => [r.method, r.url])));
      const metrics = JSON.parse(posts[posts.length - 1].body.toString('utf8')).resourceMetrics[0].scopeMetrics
        .flatMap((sm) => sm.metrics);
      const temporality = (name) => metrics.find((md) => md.name === name).histogram.aggregationTemporality;
      assert.strictEqual(temporality('lag_stall_duration_histogram'), 1, 'the SDK\'s own histogram: DELTA');
      assert.strictEqual(temporality('lag_loop_block_histogram'), 1, 'the producer\'s: DELTA');
    } finally {
      await new Promise((resolve) => collector.server.close(resolve));
    }
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT alone pushes OTLP (http/protobuf by default) to OTEL_EXPORTER_OTLP_ENDPOINT/v1/metrics', async function () {
    const collector = await fakeCollector();
    try {
      const p = run(APP, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...QUICK } });
      const exit = await p.waitExit(30000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
      assert.deepStrictEqual(p.stderrLines(), [], p.describe());
      const posts = collector.requests.filter((r) => r.method === 'POST' && r.url === '/v1/metrics');
      assert.ok(posts.length >= 1, JSON.stringify(collector.requests.map((r) => [r.method, r.url])));
      assert.strictEqual(posts[0].type, 'application/x-protobuf');
      // Protobuf keeps strings as they are: the instrument names are in the bytes.
      for (const name of ['lag_stalls', 'lag_samples_discarded', 'nodejs.eventloop.utilization']) {
        assert.ok(posts[0].body.includes(Buffer.from(name)), name);
      }
    } finally {
      await new Promise((resolve) => collector.server.close(resolve));
    }
  });

  it('OTEL_METRICS_EXPORTER=console prints the metrics on stdout when the app ends', async function () {
    const p = run(APP, { env: { OTEL_METRICS_EXPORTER: 'console', ...QUICK } });
    const exit = await p.waitExit(30000);
    assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, p.describe());
    assert.ok(p.stdout.startsWith(APP_STDOUT_QUICK), p.describe());
    assert.match(p.stdout, /name: 'lag_stalls'/);
    assert.deepStrictEqual(p.stderrLines(), [], p.describe());
  });

  it('OTEL_METRICS_EXPORTER=none, OTEL_SDK_DISABLED=true: nothing served or pushed, the monitors run', async function () {
    for (const env of [{ OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_PROMETHEUS_PORT: '0' },
      { OTEL_SDK_DISABLED: 'true', LAGWATCH_PROMETHEUS_PORT: '0' }]) {
      const p = run(REQUIRE, { nodeArgs: [], env, killAfterMs: 15000 });
      const exit = await p.waitExit(15000);
      assert.strictEqual(exit.code, 0, p.describe());
      assert.strictEqual(p.stderr, '', `${JSON.stringify(env)}: ${p.describe()}`);
      assert.strictEqual(JSON.parse(p.stdout).isObject, true);
    }
  });

  it('a bad OTEL_METRICS_EXPORTER or OTLP protocol: one line naming the variable and the value; the app runs', async function () {
    for (const [env, variable, value] of [
      [{ OTEL_METRICS_EXPORTER: 'zipkin' }, 'OTEL_METRICS_EXPORTER', 'zipkin'],
      [{ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'carrier-pigeon' },
        'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', 'carrier-pigeon'],
      [{ OTEL_EXPORTER_PROMETHEUS_PORT: 'x' }, 'OTEL_EXPORTER_PROMETHEUS_PORT', 'x'],
    ]) {
      const p = run(APP, { env: { ...env, ...QUICK } });
      const exit = await p.waitExit(30000);
      assert.strictEqual(exit.code, 0, p.describe());
      assert.strictEqual(p.stdout, APP_STDOUT_QUICK);
      const lines = p.stderrLines();
      assert.strictEqual(lines.length, 1, p.describe());
      assert.ok(lines[0].includes(variable) && lines[0].includes(`"${value}"`), lines[0]);
    }
  });

  it('without the optional SDK packages: one line says what to install; the monitors run and the app exits 0', async function () {
    // A project with a copy of lagwatch (its lib/, package.json and built addon) and only its
    // required dependencies, so that nothing resolves from this checkout's node_modules.
    const fs = require('fs');
    const os = require('os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-no-sdk-'));
    try {
      const nm = path.join(dir, 'node_modules');
      fs.mkdirSync(path.join(nm, '@opentelemetry'), { recursive: true });
      const copy = path.join(nm, 'lagwatch');
      // The addon this checkout loads: built from source (build/Release) or a prebuild.
      const addon = path.relative(ROOT, require('node-gyp-build').path(ROOT));
      for (const part of ['lib', 'package.json', addon]) {
        fs.cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
      }
      fs.symlinkSync(path.join(ROOT, 'node_modules', '@opentelemetry', 'api'), path.join(nm, '@opentelemetry', 'api'));
      fs.symlinkSync(path.join(ROOT, 'node_modules', 'node-gyp-build'), path.join(nm, 'node-gyp-build'));
      fs.writeFileSync(path.join(dir, 'app.js'), "const m = require('lagwatch').current();\n" +
        "console.log(m !== undefined && m.monitors.driftLag.running);\n");
      const p = run(path.join(dir, 'app.js'), { cwd: dir, env: { OTEL_EXPORTER_PROMETHEUS_PORT: '0' },
        nodeArgs: ['-r', 'lagwatch/register'], killAfterMs: 15000 });
      const exit = await p.waitExit(15000);
      assert.strictEqual(exit.code, 0, p.describe());
      assert.strictEqual(p.stdout, 'true\n', p.describe());
      assert.deepStrictEqual(p.stderrLines(), ['lagwatch: OTEL_METRICS_EXPORTER=prometheus needs ' +
        '@opentelemetry/sdk-metrics, @opentelemetry/resources and @opentelemetry/exporter-prometheus: npm install ' +
        '@opentelemetry/sdk-metrics @opentelemetry/resources @opentelemetry/exporter-prometheus ' +
        '(monitoring goes on without these metrics)'],
      p.describe());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The line of the fixture's 300 ms block (blockOnce), not of another: under ASan the start-up
// alone can hold the loop past LAGWATCH_BLOCK_MS=100, and a signal sent after that line would come
// while blockOnce's block is still held, to be reported again at the app's own exit.
const ONCE_BLOCK = /^lagwatch: block of (?:2[5-9]\d|[3-9]\d\d|\d{4,}) ms/;

describe('lagwatch/register at SIGINT, SIGTERM, SIGHUP (SPEC §14): it reports what it holds, then the signal does what it would have done', function () {
  this.timeout(60000);

  afterEach(killLive);

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    it(`${signal}, no handler of the app's own: the blocking profile on stderr, then the process ends by ${signal}`, async function () {
      const p = run(SIGNAL_APP, { env: { LAGWATCH_BLOCK_MS: '100' } });
      await p.waitStdout('register-signal: ready', 20000);
      await p.waitStderr(ONCE_BLOCK, 10000);
      p.child.kill(signal);
      const exit = await p.waitExit(20000);
      // The parent sees the signal, not an exit code.
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: null, signal }, p.describe());
      const profile = p.stderrLines().filter((l) => PROFILE_LINE.test(l));
      assert.match(profile[0] || '', /^lagwatch: blocking profile: \d+ block\(s\), \d+ ms blocked in all$/, p.describe());
      // Its site names the blocking function; a block whose stack the stack thread did not take
      // in time (under ASan and load: its line says "no stack: late") is a site without one.
      const stackless = p.stderrLines().filter((l) => /^lagwatch: block of \d+ ms/.test(l)).every((l) => /\(no stack: \w+\)/.test(l));
      assert.ok(profile.some((l) => /blockOnce \(.*register-signal\.js:\d+\)/.test(l)) || (stackless && profile.some((l) => /\(no stack\)/.test(l))),
        p.describe());
      assert.strictEqual(profile.filter((l) => /^lagwatch: blocking profile/.test(l)).length, 1, p.describe());
    });
  }

  it('SIGTERM: LAGWATCH_PROFILE_FILE is written, and a hang stall still held at the signal is reported', async function () {
    const dir = require('fs').mkdtempSync(path.join(require('os').tmpdir(), 'lagwatch-signal-'));
    const file = path.join(dir, 'profile.json');
    try {
      const p = run(SIGNAL_APP, { env: { LAGWATCH_BLOCK_MS: '100', LAGWATCH_PROFILE_FILE: file, REGISTER_SIGNAL_BLOCK_MS: '6000' } });
      await p.waitStdout('register-signal: ready', 30000);
      // The hang's stall line comes seconds after it ends (its episode is held): not yet.
      assert.deepStrictEqual(p.stderrLines().filter((l) => l.includes('stall of')), [], p.describe());
      p.child.kill('SIGTERM');
      const exit = await p.waitExit(20000);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: null, signal: 'SIGTERM' }, p.describe());
      const stalls = p.stderrLines().filter((l) => /^lagwatch: hang stall of \d+ ms/.test(l));
      assert.strictEqual(stalls.length, 1, p.describe());
      const got = JSON.parse(require('fs').readFileSync(file, 'utf8'));
      assert.ok(got.sites.some((s) => s.maxMs >= 6000 && s.stack !== null && s.stack.some((f) => f.functionName === 'blockOnce')),
        JSON.stringify(got));
    } finally {
      require('fs').rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an app with its own SIGTERM handler keeps it: lagwatch prints the profile at the signal, once, and the app ends as it chose', async function () {
    const p = run(SIGNAL_APP, { env: { LAGWATCH_BLOCK_MS: '100', REGISTER_SIGNAL_OWN: 'SIGTERM' } });
    await p.waitStdout('register-signal: ready', 20000);
    await p.waitStderr(ONCE_BLOCK, 10000);
    p.child.kill('SIGTERM');
    // At the signal, not 3 s later at the app's own exit.
    await p.waitStdout('register-signal: SIGTERM', 10000);
    await p.waitStderr(/^lagwatch: blocking profile/, 2000);
    assert.strictEqual(p.exit, null, p.describe());
    const exit = await p.waitExit(20000);
    assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 3, signal: null }, p.describe());
    assert.ok(p.stdout.includes('register-signal: SIGTERM\n'), p.describe());
    assert.strictEqual(p.stderrLines().filter((l) => /^lagwatch: blocking profile/.test(l)).length, 1, p.describe());
  });

  it('a second SIGINT while lagwatch reports ends the process at once', async function () {
    // The report at the first SIGINT hands the hang it holds (6 s, ended before the signal) to a
    // 'stall' listener of the app's that waits for ever, as a stuck log shipper would.
    const p = run(SIGNAL_APP, { env: { REGISTER_SIGNAL_BLOCK_MS: '6000', REGISTER_SIGNAL_STUCK_REPORT: '1' } });
    await p.waitStdout('register-signal: ready', 30000);
    p.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.strictEqual(p.exit, null, `the first SIGINT lets lagwatch report (here, for ever): ${p.describe()}`);
    p.child.kill('SIGINT');
    const exit = await p.waitExit(5000);
    assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: null, signal: 'SIGINT' }, p.describe());
  });
});

describe('lagwatch/register in a cluster: every line names its process (SPEC §14)', function () {
  this.timeout(60000);

  afterEach(killLive);

  // Three processes write one stderr: a line that does not say whose it is cannot be acted on.
  it('a primary and 2 workers, a 6 s hang in worker 2: its hang line (said from C) and its stall line name its pid and cluster worker id; the primary\'s lines name it once it has forked', async function () {
    const p = run(path.join(FIXTURES, 'register-cluster.js'), { env: { LAGWATCH_BLOCK_MS: '200' } });
    const exit = await p.waitExit(40000);
    assert.strictEqual(exit.code, 0, p.describe());
    const pids = Object.fromEntries([...p.stdout.matchAll(/^register-cluster: worker (\d+) (\d+)$/gm)].map((m) => [m[1], m[2]]));
    assert.deepStrictEqual(Object.keys(pids).sort(), ['1', '2'], p.describe());
    const lines = p.stderrLines().filter((l) => l.startsWith('lagwatch: '));
    const w2 = `lagwatch: pid ${pids[2]}, cluster worker 2: `;
    assert.ok(lines.some((l) => l.startsWith(`${w2}hang in progress on the main thread: held `)), p.describe());
    assert.ok(lines.some((l) => new RegExp(`^${w2}hang stall of \\d+ ms \\(`).test(l)), p.describe());
    assert.ok(lines.some((l) => l.startsWith(`${w2}block of `)), p.describe());
    assert.deepStrictEqual(lines.filter((l) => /stall of/.test(l) && !l.startsWith(w2)), [], `only worker 2 hung\n${p.describe()}`);
    // Every line of a worker names it, with its own pid; the primary's, once it has forked (its
    // blocking profile at exit too, its workers gone), name it as the primary.
    for (const l of lines.filter((x) => / cluster worker \d+: /.test(x))) {
      const m = /^lagwatch: pid (\d+), cluster worker (\d+): /.exec(l);
      assert.ok(m !== null && pids[m[2]] === m[1], `${l}\n${p.describe()}`);
    }
    const primary = /^register-cluster: primary (\d+)$/m.exec(p.stdout)[1];
    assert.ok(lines.some((l) => l.startsWith(`lagwatch: pid ${primary}, cluster primary: block of `) && /blockInPrimary/.test(l)), p.describe());
    assert.deepStrictEqual(lines.filter((l) => !/^lagwatch: pid \d+, cluster (worker \d+|primary): /.test(l)), [], p.describe());
  });

  // A log pipeline reads lines as objects: each of lagwatch's is one, pino's fields first, the
  // report whole; the line said from C while a hang runs too.
  it('LAGWATCH_LOG_FORMAT=json, the same cluster: every line one JSON object (pino\'s level, time, pid, hostname, msg), named by thread and cluster role, with the report whole', async function () {
    const t0 = Date.now();
    const p = run(path.join(FIXTURES, 'register-cluster.js'), { env: { LAGWATCH_BLOCK_MS: '200', LAGWATCH_LOG_FORMAT: 'json' } });
    const exit = await p.waitExit(40000);
    assert.strictEqual(exit.code, 0, p.describe());
    const pids = Object.fromEntries([...p.stdout.matchAll(/^register-cluster: (?:worker (\d+)|(primary)) (\d+)$/gm)].map((m) => [m[1] || m[2], Number(m[3])]));
    const objects = p.stderrLines().map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        assert.fail(`not one JSON object: ${l}\n${p.describe()}`);
        return null;
      }
    });
    for (const o of objects) {
      assert.ok([30, 40, 50].includes(o.level) && o.time >= t0 && o.time <= Date.now() && typeof o.hostname === 'string' &&
        o.name === 'lagwatch' && typeof o.msg === 'string' && o.thread.id === 0 && o.thread.name === 'main', JSON.stringify(o));
      assert.ok(o.pid === pids.primary ? o.cluster.primary === true : pids[o.cluster.worker] === o.pid, JSON.stringify(o));
    }
    const w2 = objects.filter((o) => o.pid === pids[2]);
    const line = w2.find((o) => o.msg.startsWith('hang in progress on the main thread: held '));
    assert.ok(line !== undefined && line.level === 40, `the line said from C, as JSON\n${p.describe()}`);
    const stall = w2.find((o) => o.stall !== undefined);
    assert.ok(stall && stall.stall.kind === 'hang' && stall.stall.durationMs >= 6000 && stall.msg.startsWith('hang stall of '), JSON.stringify(stall));
    assert.ok(w2.some((o) => o.block !== undefined && o.block.durationMs >= 6000 && o.block.hang === true), p.describe());
    const profiles = objects.filter((o) => o.profile !== undefined);
    assert.deepStrictEqual(profiles.map((o) => [o.level, o.pid]).sort(), [[30, pids[2]], [30, pids.primary]].sort(), p.describe());
    assert.ok(objects.some((o) => o.pid === pids.primary && o.block !== undefined && o.block.durationMs >= 300), p.describe());
  });

  it('LAGWATCH_LOG_FORMAT of another value: said, text kept', async function () {
    const p = run(APP, { env: { LAGWATCH_LOG_FORMAT: 'xml', REGISTER_APP_BLOCK_MS: '0', REGISTER_APP_STAY_MS: '100' } });
    assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
    assert.deepStrictEqual(p.stderrLines(), ['lagwatch: LAGWATCH_LOG_FORMAT must be text or json, not "xml": text is used'], p.describe());
  });

  // The series of a Prometheus text exposition: [{ name, labels, value }].
  const series = (text) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(l);
    assert.ok(m, l);
    const labels = Object.fromEntries([...(m[2] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    return { name: m[1], labels, value: Number(m[3]) };
  });
  const CLUSTER_METRICS_LINE = /^lagwatch: (?:pid \d+, cluster primary: )?metrics at http:\/\/([^/]+):(\d+)\/metrics$/;

  async function startClusterServer(env = {}) {
    const p = run(path.join(FIXTURES, 'register-cluster-server.js'), { env: { OTEL_EXPORTER_PROMETHEUS_PORT: '0', ...env }, killAfterMs: 50000 });
    await p.waitStdout('register-cluster-server: ready', 20000);
    const [, host, port] = await p.waitStderr(CLUSTER_METRICS_LINE, 10000);
    const primary = p.child.pid;
    const workers = Object.fromEntries([...p.stdout.matchAll(/^register-cluster-server: worker (\d+) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    return { p, host, port: Number(port), primary, workers };
  }

  // One port for the whole cluster, the primary's: no worker binds it, and every process is there,
  // named by its labels, counted once; a worker held by a hang does not hold the scrape, and says
  // so; once it ends, its hang is its own.
  it('one port for the cluster: the primary serves every process\'s series, labelled with service_instance_id, process_pid and cluster_worker_id; a hung worker does not hold the scrape', async function () {
    const { p, host, port, primary, workers } = await startClusterServer();
    const byPid = (rows, name, labels = {}) => Object.fromEntries(rows.filter((r) => r.name === name && r.labels.fatal === undefined &&
      Object.entries(labels).every(([k, v]) => r.labels[k] === v)).map((r) => [r.labels.process_pid, r]));
    const pids = [primary, workers[1], workers[2]].map(String).sort();
    let rows = series((await get(host, port, '/metrics')).body);
    let answered = byPid(rows, 'lag_process_answered');
    assert.deepStrictEqual(Object.keys(answered).sort(), pids, p.describe());
    for (const r of Object.values(answered)) assert.strictEqual(r.value, 1);
    const hangs = byPid(rows, 'lag_stalls_total', { kind: 'hang' });
    assert.deepStrictEqual(Object.keys(hangs).sort(), pids, 'each process\'s own counter');
    assert.strictEqual(hangs[workers[2]].labels.cluster_worker_id, '2');
    assert.strictEqual(hangs[workers[1]].labels.cluster_worker_id, '1');
    assert.strictEqual(hangs[primary].labels.cluster_worker_id, undefined);
    const ids = new Set(Object.values(hangs).map((r) => r.labels.service_instance_id));
    assert.ok(ids.size === 3 && ![...ids].includes(undefined), [...ids].join(' '));
    // One serves; no worker tried to bind (no EADDRINUSE, one metrics line).
    assert.strictEqual(p.stderrLines().filter((l) => /metrics at|cannot serve|not a lagwatch setting/.test(l)).length, 1, p.describe());

    process.kill(workers[2], 'SIGUSR2'); // a 6 s hang in worker 2
    await new Promise((r) => setTimeout(r, 2500));
    const t0 = performance.now();
    rows = series((await get(host, port, '/metrics')).body);
    const took = performance.now() - t0;
    assert.ok(took < 2900, `the scrape took ${Math.round(took)} ms (deadline 2000)`);
    answered = byPid(rows, 'lag_process_answered');
    assert.strictEqual(answered[workers[2]].value, 0, 'the hung worker did not answer');
    assert.strictEqual(answered[workers[1]].value + answered[primary].value, 2);
    assert.ok(byPid(rows, 'lag_stalls_total', { kind: 'hang' })[workers[2]], 'its series of its last answer are kept');

    await p.waitStderr(new RegExp(`^lagwatch: pid ${workers[2]}, cluster worker 2: hang stall of \\d+ ms`), 15000);
    rows = series((await get(host, port, '/metrics')).body);
    answered = byPid(rows, 'lag_process_answered');
    for (const r of Object.values(answered)) assert.strictEqual(r.value, 1, JSON.stringify(r));
    const after = byPid(rows, 'lag_stalls_total', { kind: 'hang' });
    assert.deepStrictEqual([after[primary].value, after[workers[1]].value, after[workers[2]].value], [0, 0, 1]);
    const duration = rows.find((r) => r.name === 'lag_stall_duration_histogram_count' && r.labels.kind === 'hang' &&
      r.labels.process_pid === String(workers[2]));
    assert.strictEqual(duration && duration.value, 1);
    p.child.kill('SIGTERM');
    await p.waitExit(20000);
  });

  it('the protobuf exposition (native histograms) of a cluster: one family each, a series per process, the native histograms each process\'s own', async function () {
    const protobuf = require('protobufjs');
    const { SCHEMA, PROTOBUF_TYPE } = require('../lib/exposition');
    const MetricFamily = protobuf.parse(SCHEMA, { keepCase: false }).root.lookupType('io.prometheus.client.MetricFamily');
    const { p, host, port, primary, workers } = await startClusterServer();
    const body = await new Promise((resolve, reject) => {
      http.get({ host, port, path: '/metrics', agent: false, headers: { accept: `${PROTOBUF_TYPE},text/plain;q=0.5` } }, (res) => {
        assert.strictEqual(res.headers['content-type'], PROTOBUF_TYPE);
        const chunks = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject);
    });
    const reader = protobuf.Reader.create(body);
    const fams = [];
    while (reader.pos < reader.len) fams.push(MetricFamily.toObject(MetricFamily.decodeDelimited(reader), { defaults: true, enums: String }));
    const names = fams.map((f) => f.name);
    assert.strictEqual(new Set(names).size, names.length, 'each family once');
    const pidsOf = (f) => f.metric.map((m) => m.label.find((l) => l.name === 'process_pid').value).sort();
    const pids = [primary, workers[1], workers[2]].map(String).sort();
    const byName = Object.fromEntries(fams.map((f) => [f.name, f]));
    assert.deepStrictEqual([...new Set(pidsOf(byName.lag_process_answered))], pids);
    assert.deepStrictEqual([...new Set(pidsOf(byName.lag_stalls))], pids);
    const drift = byName.lag_drift_histogram;
    assert.strictEqual(drift.type, 'HISTOGRAM');
    assert.deepStrictEqual(pidsOf(drift), pids);
    for (const m of drift.metric) assert.ok(m.histogram.positiveSpan.length > 0 && m.histogram.schema <= 8, JSON.stringify(m.histogram));
    assert.strictEqual(byName.target_info.metric.length, 1);
    p.child.kill('SIGTERM');
    await p.waitExit(20000);
  });

  // PM2 (from the npm registry) owns the primary in its cluster mode: lagwatch runs only in its
  // instances, which cannot leave the port to a primary; each serves the port plus its instance.
  it('PM2\'s cluster mode: each instance serves the port plus its NODE_APP_INSTANCE, with its own series; its lines name it', async function () {
    const fs = require('fs');
    const os = require('os');
    const pm2 = path.join(ROOT, 'node_modules', 'pm2', 'bin', 'pm2');
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-pm2-'));
    // Two free ports in a row.
    const listenOn = (port) => new Promise((resolve) => {
      const srv = net.createServer().once('error', () => resolve(null)).listen(port, '127.0.0.1', () => resolve(srv));
    });
    let base;
    for (;;) {
      const a = await listenOn(0);
      const b = await listenOn(a.address().port + 1);
      base = a.address().port;
      a.close();
      if (b !== null) {
        b.close();
        break;
      }
    }
    const env = baseEnv({ PM2_HOME: home, OTEL_EXPORTER_PROMETHEUS_PORT: String(base), REGISTER_CLUSTER_HANG_MS: '6000' });
    const pm = (...args) => spawnSync(process.execPath, [pm2, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60000 });
    const hangsAt = async (port) => {
      const res = await get('127.0.0.1', port, '/metrics');
      return series(res.body).filter((r) => r.name === 'lag_stalls_total' && r.labels.kind === 'hang' && r.labels.fatal === undefined)
        .map((r) => r.value);
    };
    try {
      const r = pm('start', path.join(FIXTURES, 'register-cluster-server.js'), '-i', '2', '--name', 'lw',
        '--node-args=-r lagwatch/register', '--no-autorestart');
      assert.strictEqual(r.status, 0, r.stdout + r.stderr);
      const pids = Object.fromEntries(JSON.parse(pm('jlist').stdout).map((x) => [x.pm2_env.NODE_APP_INSTANCE, x.pid]));
      assert.deepStrictEqual(Object.keys(pids).sort(), ['0', '1']);
      // Both ports answer, each with one process's series: its own pid in target_info.
      const deadline = Date.now() + 20000;
      let ok = false;
      while (!ok && Date.now() < deadline) {
        ok = (await Promise.all([0, 1].map((i) => get('127.0.0.1', base + i, '/metrics').then((res) =>
          new RegExp(`^target_info\\{[^}]*process_pid="${pids[i]}"`, 'm').test(res.body), () => false)))).every(Boolean);
        if (!ok) await new Promise((res) => setTimeout(res, 300));
      }
      assert.ok(ok, `ports ${base} and ${base + 1} did not each serve their instance\n${pm('logs', '--nostream', '--lines', '50').stdout}`);
      assert.deepStrictEqual([await hangsAt(base), await hangsAt(base + 1)], [[0], [0]]);
      process.kill(pids[1], 'SIGUSR2');
      let hangs = [];
      while (Date.now() < deadline + 20000) {
        hangs = [await hangsAt(base), await hangsAt(base + 1)].map(([v]) => v);
        if (hangs[1] === 1) break;
        await new Promise((res) => setTimeout(res, 500));
      }
      assert.deepStrictEqual(hangs, [0, 1], 'the hang is instance 1\'s alone');
      // The instances' logs, and PM2's own: what a process writes before PM2's container takes its
      // stderr (a `-r` preload's first lines) goes there.
      const logs = [path.join(home, 'pm2.log'), ...fs.readdirSync(path.join(home, 'logs')).map((f) => path.join(home, 'logs', f))]
        .map((f) => fs.readFileSync(f, 'utf8').replace(/^.*?PM2 +\| (?:\x1b\[\d+m)?/gm, '')).join('\n');
      assert.ok(logs.includes(`lagwatch: pid ${pids[1]}, instance 1: metrics at http://127.0.0.1:${base + 1}/metrics`), logs);
      assert.ok(logs.includes(`lagwatch: pid ${pids[0]}, instance 0: metrics at http://127.0.0.1:${base}/metrics`), logs);
      assert.match(logs, new RegExp(`^lagwatch: pid ${pids[1]}, instance 1: hang stall of \\d+ ms`, 'm'));
      assert.ok(!/cannot serve|not a lagwatch setting/.test(logs), logs);
    } finally {
      pm('kill');
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  // Replicas that share nothing but the environment cannot share a port: the second says why,
  // and where the way is written.
  it('two independent processes with the same port: the second says EADDRINUSE and that each process needs a port of its own', async function () {
    const a = run(APP, { env: { ...QUICK, REGISTER_APP_STAY_MS: '8000', OTEL_EXPORTER_PROMETHEUS_PORT: '0' } });
    const [, , port] = await a.waitStderr(METRICS_LINE, 10000);
    const b = run(APP, { env: { ...QUICK, OTEL_EXPORTER_PROMETHEUS_PORT: port } });
    const [line] = await b.waitStderr(/cannot serve metrics.*/, 10000);
    assert.match(line, /EADDRINUSE.*each process needs a port of its own: docs\/metrics\.md#several-processes/);
    await b.waitExit(20000);
    a.child.kill('SIGKILL');
  });

});

describe('lagwatch/register loses no setting in silence (SPEC §14)', function () {
  this.timeout(60000);

  afterEach(killLive);

  it('docs/api.md lists every LAGWATCH_ variable of lib/env.js\'s table, as the table says it, and no other', function () {
    const { ENV } = require('../lib/env');
    const text = require('fs').readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
    const section = text.slice(text.indexOf('## The environment of `lagwatch/register`'));
    const rows = [...section.matchAll(/^\| `(LAGWATCH_\w+)` \| (.*) \|$/gm)].map((m) => ({ name: m[1], doc: m[2] }));
    assert.deepStrictEqual(rows, ENV.map((v) => ({ name: v.name, doc: v.doc })));
    // And every LAGWATCH_ variable that lib/ reads is in the table.
    const read = new Set();
    for (const f of require('fs').readdirSync(path.join(ROOT, 'lib')).filter((n) => n.endsWith('.js') && n !== 'env.js')) {
      const src = require('fs').readFileSync(path.join(ROOT, 'lib', f), 'utf8');
      for (const m of src.matchAll(/env\.(LAGWATCH_\w+)|env\[['"](LAGWATCH_\w+)/g)) read.add(m[1] || m[2]);
      for (const m of src.matchAll(/'(LAGWATCH_[A-Z_]+)'/g)) read.add(m[1]);
    }
    assert.deepStrictEqual([...read].filter((n) => !ENV.some((v) => v.name === n)), []);
  });

  it('a bad LAGWATCH_STACKS and an unknown LAGWATCH_ variable are said on stderr; the defaults are kept and the app runs', async function () {
    const p = run(APP, { env: { LAGWATCH_STACKS: 'maybe', LAGWATCH_BLOK_MS: '100', ...QUICK } });
    assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
    assert.deepStrictEqual(p.stderrLines().sort(), [
      'lagwatch: LAGWATCH_BLOK_MS is not a lagwatch setting (did you mean LAGWATCH_BLOCK_MS?): ignored',
      'lagwatch: LAGWATCH_STACKS must be 0 or 1, not "maybe": 1 is used (stacks on)',
    ], p.describe());
  });

  // Set-up is all or nothing: when the monitors cannot start, nothing of them runs, and the line
  // says so: no hang line during the 6 s block, no listener, no record.
  it('a state directory that cannot be taken (4100 bytes): one line, "the app runs without them", and nothing of them runs', async function () {
    const p = run(APP, { env: { LAGWATCH_STATE_DIR: `/tmp/${'d'.repeat(4100)}`, REGISTER_APP_STAY_MS: '900' } });
    assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
    assert.deepStrictEqual(p.stderrLines(), [
      'lagwatch: cannot start the monitors: The "stateDir" argument must be a path of 1 to 4000 bytes (the app runs without them)',
    ], p.describe());
    assert.strictEqual(p.stdout, APP_STDOUT_BLOCKED, 'the app ran, its 6 s block included');
  });

  it('OTEL_METRICS_EXPORTER=prometheus with no port serves the SDK\'s default port, 9464', async function () {
    const p = run(APP, { env: { OTEL_METRICS_EXPORTER: 'prometheus', ...QUICK } });
    // Another process of the machine may hold 9464: then the line says so, naming it.
    await p.waitStderr(/^lagwatch: (metrics at http:\/\/127\.0\.0\.1:9464\/metrics|cannot serve metrics on 127\.0\.0\.1:9464: .*EADDRINUSE)/, 20000);
  });

  it('setupAllMonitors() under register throws, naming the LAGWATCH_ variable of each option it was given', async function () {
    const code = "try { require('lagwatch').setupAllMonitors({ blocks: { thresholdMs: 100 } }); } " +
      'catch (err) { console.log(JSON.stringify({ code: err.code, message: err.message })); }';
    const p = run(code, { nodeArgs: ['-r', 'lagwatch/register', '-e'] });
    assert.strictEqual((await p.waitExit(30000)).code, 0, p.describe());
    const got = JSON.parse(p.stdout);
    assert.strictEqual(got.code, 'ERR_LAGWATCH_ALREADY_SET_UP');
    assert.match(got.message, /started by lagwatch\/register.*not applied\. Set LAGWATCH_BLOCK_MS instead/);
  });
});

describe('lagwatch/register\'s lines say what to fix (SPEC §14)', function () {
  this.timeout(90000);

  afterEach(killLive);

  it('a process that died hung: the next one\'s line says when it began (wall clock), its pid and who saw it, no empty parentheses', async function () {
    const fs = require('fs');
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'lagwatch-fatal-line-'));
    try {
      const before = Date.now();
      const dead = run(SIGNAL_APP, { env: { LAGWATCH_STATE_DIR: dir, REGISTER_SIGNAL_BLOCK_MS: '30000' } });
      // Its hang record is written once the worker flags the hang.
      const until = performance.now() + 25000;
      while (!fs.readdirSync(dir).some((n) => n.startsWith('hang-')) && performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(fs.readdirSync(dir).some((n) => n.startsWith('hang-')), `a hang record in ${dir}: ${dead.describe()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      dead.child.kill('SIGKILL');
      await dead.waitExit(10000);
      const next = run(APP, { env: { LAGWATCH_STATE_DIR: dir, ...QUICK } });
      assert.strictEqual((await next.waitExit(30000)).code, 0, next.describe());
      const line = next.stderrLines().find((l) => l.startsWith('lagwatch: fatal'));
      const m = /^lagwatch: fatal hang stall of (\d+) ms at (\S+) \(the process died hung, pid (\d+); seen by ([^)]+)\), cause: /.exec(line || '');
      assert.ok(m, next.describe());
      assert.strictEqual(Number(m[3]), dead.child.pid);
      const began = Date.parse(m[2]);
      // It began after the dead process started and 200 ms or so after that (its fixture's timer).
      assert.ok(began >= before - 1000 && began <= before + 15000, `${m[2]} vs the start at ${new Date(before).toISOString()}`);
      assert.ok(!line.includes('()'), line);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lagwatch/register and worker threads (SPEC §14)', function () {
  this.timeout(90000);
  const WORKER_APP = path.join(FIXTURES, 'register-worker.js');

  afterEach(killLive);

  it('by default only the main thread is monitored: a worker\'s 6 s of CPU work is no hang of the app', async function () {
    const p = run(WORKER_APP);
    assert.strictEqual((await p.waitExit(60000)).code, 0, p.describe());
    assert.ok(p.stdout.includes('register-worker: done'), p.describe());
    assert.deepStrictEqual(p.stderrLines(), [], p.describe());
    assert.ok(!p.stdout.includes('stall thread'), p.describe());
  });

  it('LAGWATCH_WORKERS=1: the worker\'s hang is reported, its line and its event naming the worker', async function () {
    const p = run(WORKER_APP, { env: { LAGWATCH_WORKERS: '1' } });
    assert.strictEqual((await p.waitExit(60000)).code, 0, p.describe());
    const lines = p.stderrLines().filter((l) => l.includes('stall of'));
    assert.strictEqual(lines.length, 1, p.describe());
    // Node 20 does not tell a worker its name; later versions do (worker_threads.threadName).
    assert.match(lines[0], /^lagwatch: worker (\d+)( \(resizer\))?: hang stall of \d+ ms \(/, p.describe());
    const events = p.stdout.split('\n').filter((l) => l.includes('stall thread'));
    assert.strictEqual(events.length, 1, p.describe());
    const m = /^register-worker: worker stall thread (.*)$/.exec(events[0]);
    assert.ok(m, p.describe());
    const thread = JSON.parse(m[1]);
    assert.strictEqual(thread.id, Number(/worker (\d+)/.exec(lines[0])[1]));
    assert.ok(thread.id > 0 && (thread.name === null || thread.name === 'resizer'), m[1]);
  });
});
