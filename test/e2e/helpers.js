'use strict';
// Shared helpers of the end-to-end suites (not a suite itself: its name does not end in
// .test.js). Each test runs a fixture of ./fixtures in a real child process (process.execPath)
// and asserts on the JSON lines the fixture prints on stdout: { type: 'ready' | 'result' | … }.
const assert = require('assert');
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(__dirname, 'fixtures');

const live = new Set(); // every child not yet reaped, killed by killAll()

// A fixture running in a child process: a script of ./fixtures run by this Node, or, with
// `command`, that executable with `args` (the Electron-style embedder of test/embedder).
class Fixture {
  constructor(name, args = [], { env = {}, nodeArgs = [], killAfterMs = 60000, command = null } = {}) {
    this.name = name;
    this.messages = []; // parsed JSON lines of stdout
    this.stdout = '';
    this.stderr = '';
    this.waiters = [];
    this.startedAt = performance.now();
    const argv = command === null ? [...nodeArgs, path.join(FIXTURES, name), ...args.map(String)] : args.map(String);
    // A state directory base of its own (lib/fatal.js's default), unless the test names one: a
    // fixture killed in a hang leaves its record, which would be the next one's fatal hang.
    this.stateHome = 'XDG_STATE_HOME' in env ? null : tmpDir('state');
    this.child = spawn(command === null ? process.execPath : command, argv, {
      cwd: ROOT,
      env: { ...process.env, ...(this.stateHome === null ? {} : { XDG_STATE_HOME: this.stateHome }), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    live.add(this);
    let partial = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      this.stdout += chunk;
      partial += chunk;
      let nl;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        if (line.trim() === '') continue;
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue; // not ours: kept in this.stdout for the failure message
        }
        msg.receivedAt = performance.now() - this.startedAt;
        this.messages.push(msg);
        this._wake();
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk) => {
      this.stderr += chunk;
    });
    this.child.stdin.on('error', () => {}); // a child that exits before reading its stdin
    this.child.on('error', (err) => {
      this.stderr += `\nspawn error: ${err.stack || err}`;
    });
    this.exit = null; // { code, signal, elapsedMs } once it has exited
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal, elapsedMs: performance.now() - this.startedAt };
        clearTimeout(this.killTimer);
        // stdout may still hold the last lines: wake the waiters once it has ended.
        const done = () => {
          if (this.stateHome !== null) fs.rmSync(this.stateHome, { recursive: true, force: true });
          live.delete(this);
          resolve(this.exit);
          this._wake();
        };
        if (this.child.stdout.readableEnded) done();
        else this.child.stdout.once('end', done);
      });
    });
    // Whatever happens, the child does not outlive its budget.
    this.killTimer = setTimeout(() => this.kill(), killAfterMs);
    this.killTimer.unref();
  }

  _wake() {
    for (const w of this.waiters.slice()) w();
  }

  // What the child said, for failure messages.
  describe() {
    const status = this.exit ? `exited ${JSON.stringify(this.exit)}` : 'still running';
    return `fixture ${this.name} (${status})\n--- stdout ---\n${this.stdout.slice(-4000)}` +
      `\n--- stderr ---\n${this.stderr.slice(-4000)}`;
  }

  // The first message of `type` (and, with `match`, for which match(msg) holds), waiting up to
  // `timeoutMs` for it.
  waitFor(type, timeoutMs, match = () => true) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const msg = this.messages.find((m) => m.type === type && match(m));
        if (msg) {
          finish();
          resolve(msg);
        } else if (this.exit && live.has(this) === false) {
          finish();
          reject(new Error(`no '${type}' line before the child exited: ${this.describe()}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no '${type}' line within ${timeoutMs} ms: ${this.describe()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
      };
      this.waiters.push(check);
      check();
    });
  }

  // The exit, waiting up to `timeoutMs` for it (then the child is killed and this rejects).
  waitExit(timeoutMs) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`did not exit within ${timeoutMs} ms: ${this.describe()}`));
      }, timeoutMs);
      this.exited.then((e) => {
        clearTimeout(timer);
        resolve(e);
      });
    });
  }

  // The 'result' line of a child that then exits on its own with code 0.
  async result(timeoutMs) {
    const r = await this.waitFor('result', timeoutMs);
    const e = await this.waitExit(10000);
    assert.deepStrictEqual({ code: e.code, signal: e.signal }, { code: 0, signal: null },
      `the fixture exits on its own with code 0: ${this.describe()}`);
    return r;
  }

  // Writes a line to the child's stdin.
  send(line) {
    if (this.exit === null) this.child.stdin.write(`${line}\n`);
  }

  signal(sig) {
    if (this.exit === null) process.kill(this.child.pid, sig);
  }

  kill() {
    if (this.exit !== null) return;
    try {
      this.child.kill('SIGKILL'); // also ends a SIGSTOPped child
    } catch {
      // already gone
    }
  }
}

function spawnFixture(name, args, options) {
  return new Fixture(name, args, options);
}

// Kills every child still running and waits for them to be reaped (an after/afterEach hook).
async function killAll() {
  const pending = [...live];
  for (const f of pending) f.kill();
  await Promise.all(pending.map((f) => f.exited));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Replaces the file's content at once (write a sibling, rename over): a reader that opens the
// file by name sees the old content or the new one, never a partial one.
function writeAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

function tmpDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `lagwatch-e2e-${prefix}-`));
}

// An env with `lib` preloaded, after whatever is preloaded already (the ASan runtime of
// `npm test`'s sanitizer run must stay first in the list).
function withPreload(lib, env = {}) {
  const prev = process.env.LD_PRELOAD;
  return { ...env, LD_PRELOAD: prev ? `${prev}:${lib}` : lib };
}

// Whether this process runs under `npm test`'s sanitizer step (the ASan runtime preloaded, the
// ASan build of the addon named by LAGWATCH_ADDON): children inherit both.
function underAsan() {
  return /libasan/.test(process.env.LD_PRELOAD || '');
}

// An env that takes the sanitizer step's preload and addon away from a child (it then loads the
// plain build/Release addon).
function withoutAsan(env = {}) {
  const preload = (process.env.LD_PRELOAD || '').split(':').filter((p) => p && !/libasan/.test(p));
  return { LD_PRELOAD: preload.join(':') || undefined, LAGWATCH_ADDON: undefined, ...env };
}

// gcc, run without our own preloads.
function gcc(args) {
  const env = { ...process.env };
  delete env.LD_PRELOAD;
  const r = spawnSync('gcc', args, { encoding: 'utf8', env });
  if (r.error || r.status !== 0) {
    throw new Error(`gcc ${args.join(' ')} failed: ${r.error || r.stderr}`);
  }
}

function sumValues(o) {
  return Object.values(o).reduce((a, b) => a + b, 0);
}

// SPEC §4: submitted = recorded + discarded + held + cancelled, for the conditions and for each
// monitor's validator.
function assertConservation(stats, where = '') {
  const d = sumValues(stats.discarded);
  assert.strictEqual(stats.recorded + d + stats.held + stats.cancelled, stats.submitted,
    `conservation ${where}: ${JSON.stringify(stats)}`);
  for (const [name, m] of Object.entries(stats.monitors)) {
    assert.strictEqual(m.recorded + m.discarded + m.held + m.cancelled, m.submitted,
      `conservation of monitor ${name} ${where}: ${JSON.stringify(m)}`);
  }
}

// SPEC §2's `debugger`, end to end: the debugged.js fixture held the main thread `pauseMs` at a
// debugger's pause, and no monitor took it for the app's (no hang, no workerHang, no lag of the
// pause recorded; its samples discarded as `debugger`).
async function assertDebuggerPauseNotLag(f, pauseMs = 6000) {
  const paused = await f.waitFor('paused', 20000);
  const resumed = await f.waitFor('resumed', 20000);
  const r = await f.result(30000);
  const why = f.describe();
  assert.ok(resumed.at - paused.at >= pauseMs - 100, `held ${resumed.at - paused.at} ms`);
  assert.deepStrictEqual(r.events.workerHang, [], `no workerHang\n${why}`);
  assert.strictEqual(r.workerStats.workerHangs.count, 0, `lag_worker_hangs\n${why}`);
  assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, why);
  assert.ok(r.stats.discarded.debugger >= 1, `discarded as debugger: ${JSON.stringify(r.stats.discarded)}\n${why}`);
  for (const name of ['driftLag', 'loopBlock', 'worker']) {
    assert.ok(!(r.stats.monitors[name].max >= 1000), `${name}: no lag of the pause recorded (max ${r.stats.monitors[name].max})\n${why}`);
  }
  assertConservation(r.stats, why);
}

// (Not "…: expected lo..hi": mocha's reporter cuts a message with a diff at ": expected".)
function assertBetween(value, lo, hi, what) {
  assert.ok(typeof value === 'number' && value >= lo && value <= hi,
    `${what}: ${value}, not within ${lo}..${hi}`);
}

// A cgroup of its own under `root`; move() puts a process (every thread) in it; remove() takes
// them back out to the root and deletes it.
// (cgroup v1, as root: this machine has `cpu` and `freezer` hierarchies under /sys/fs/cgroup.)
function makeCgroup(root, name) {
  assert.ok(fs.existsSync(path.join(root, 'cgroup.procs')),
    `${root}: a cgroup v1 hierarchy is needed (this machine has one, writable as root)`);
  const dir = path.join(root, `${name}-${process.pid}`);
  fs.mkdirSync(dir);
  return {
    dir,
    write(file, value) {
      fs.writeFileSync(path.join(dir, file), String(value));
    },
    read(file) {
      return fs.readFileSync(path.join(dir, file), 'utf8');
    },
    move(pid) {
      fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
    },
    remove() {
      try {
        for (const pid of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            fs.writeFileSync(path.join(root, 'cgroup.procs'), pid);
          } catch {
            // gone
          }
        }
        fs.rmdirSync(dir);
      } catch {
        // removed already
      }
    },
  };
}

// A group of the cgroup v1 `freezer` hierarchy, thawed and removed by `cleanups` (run them after
// each test, whatever happened).
function freezerGroup(name, cleanups) {
  const cg = makeCgroup('/sys/fs/cgroup/freezer', name);
  cleanups.push(() => {
    try {
      cg.write('freezer.state', 'THAWED');
    } catch {
      // removed
    }
    cg.remove();
  });
  return cg;
}

// SPEC §5, no stop of 1 s or more is a monitor's lag: `f` (a wait.js fixture past 'ready') is
// frozen `times` times for 1 s through the freezer group `cg`, each at an arbitrary phase of its
// loop's waits; then no monitor recorded a lag of a stop, each stop's driftLag firing was
// discarded, no episode was reported and every sample is accounted for.
async function freezeSecondsAndCheck(f, cg, times) {
  cg.move(f.child.pid);
  for (let i = 0; i < times; i++) {
    await sleep(1200 + Math.floor(Math.random() * 1000));
    cg.write('freezer.state', 'FROZEN');
    await sleep(1000);
    cg.write('freezer.state', 'THAWED');
  }
  const r = await f.result(30000);
  assertStopsNotLag(r, times, f.describe());
}

// What freezeSecondsAndCheck checks of the result `r` of a run frozen `times` times.
function assertStopsNotLag(r, times, why) {
  for (const name of ['driftLag', 'macrotaskLag', 'loopBlock', 'worker']) {
    const m = r.stats.monitors[name];
    assert.ok(!(m.max >= 500), `${name}: no lag of a stop recorded (max ${m.max})\n${why}`);
  }
  assert.ok(r.stats.monitors.driftLag.discarded >= times, `each stop's driftLag firing discarded: ${r.stats.monitors.driftLag.discarded}\n${why}`);
  assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 }, why);
  assertConservation(r.stats, why);
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

// Blocks this thread `ms` (a freeze's length to the millisecond, as no timer of a busy test
// process would keep it).
function sleepSync(ms) {
  Atomics.wait(sleepCell, 0, 0, ms);
}

// How many times thread `tid` of process `pid` has been put on a CPU so far (schedstat's third
// field), or null once it is gone.
function threadRuns(pid, tid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[2]);
  } catch {
    return null;
  }
}

// Waits (this thread blocked, looking every 0.5 ms) until thread `tid` of `pid` runs again, up to
// `timeoutMs`: performance.now() when it was seen running, or null.
function nextRun(pid, tid, timeoutMs) {
  const from = threadRuns(pid, tid);
  const until = performance.now() + timeoutMs;
  while (from !== null && performance.now() < until) {
    sleepSync(0.5);
    const now = threadRuns(pid, tid);
    if (now === null) return null;
    if (now !== from) return performance.now();
  }
  return null;
}

// The freezer at the start of the worker's rests: `f` (a wait.js fixture past its 'ready', its
// loop idle between timers) is frozen through the freezer group `cg` once per entry of `stops`
// ({ delayMs, stopMs }), `delayMs` after the worker thread (`tid`) began a rest, for `stopMs`.
// The worker's rests are seen from outside, in the thread's schedstat: while the loop waits the
// worker runs once per rest (LW_REST_MAX_MS), while it runs every 100 ms; so a run followed by
// 150 ms without one began a rest, and the run that ends that rest (a rest's length later) begins
// the next one, with the loop still idle: the freeze starts `delayMs` after it is seen. Returns,
// per stop, { restMs: the length of the rest before it as seen (the alignment's evidence),
// frozenMs: how long the freezer took to stop every thread, ranFrozen: how many times the worker
// thread ran after that (0: the freeze held) }.
async function freezeAtRestStarts(f, cg, tid, stops) {
  const pid = f.child.pid;
  const rests = [];
  cg.move(pid);
  for (const { delayMs, stopMs } of stops) {
    await sleep(50); // the test's own loop runs between freezes
    let began = nextRun(pid, tid, 3000);
    assert.ok(began !== null, `the worker thread ${tid} runs: ${f.describe()}`);
    for (let again; (again = nextRun(pid, tid, 150)) !== null;) began = again;
    const ends = nextRun(pid, tid, 2000);
    assert.ok(ends !== null, `the worker's rest ends: ${f.describe()}`);
    sleepSync(delayMs);
    const t0 = performance.now();
    cg.write('freezer.state', 'FROZEN');
    // The freezer reads FREEZING until every thread is stopped: how long that took, for the
    // failure's account (none of it is taken out of the stop's length, counted from the write).
    while (cg.read('freezer.state').trim() !== 'FROZEN' && performance.now() - t0 < stopMs) sleepSync(0.2);
    const frozenMs = performance.now() - t0;
    const runs = threadRuns(pid, tid);
    sleepSync(Math.max(0, stopMs - frozenMs));
    const ranFrozen = threadRuns(pid, tid) - runs;
    cg.write('freezer.state', 'THAWED');
    rests.push({ restMs: Math.round(ends - began), frozenMs: +frozenMs.toFixed(1), ranFrozen });
  }
  return rests;
}

// The machine's own stops while a test runs (fixtures/machine-stops.js): a watcher process,
// killed by killAll(). `ms(from, to)` is how long the machine was stopped within [from, to]
// (epoch ms), `count(from, to)` how many of its stops overlap it; `all()` lists them;
// `stolenMs(from, to)` how long the host held any of its CPUs in the waits that overlap [from,
// to] (steal: a thread held so reads as neither running nor waiting for a CPU); `stop()` ends it.
async function watchMachine() {
  const f = spawnFixture('machine-stops.js', [], { killAfterMs: 600000 });
  await f.waitFor('ready', 20000);
  const stops = () => f.messages.filter((m) => m.type === 'stop');
  const within = (from, to) => stops().filter((s) => s.end > from && s.start < to);
  return {
    all: stops,
    count: (from = -Infinity, to = Infinity) => within(from, to).length,
    ms: (from = -Infinity, to = Infinity) => within(from, to)
      .reduce((sum, s) => sum + Math.min(s.end, to) - Math.max(s.start, from), 0),
    stolenMs: (from, to) => f.messages.filter((m) => m.type === 'steal' && m.end > from && m.start < to)
      .reduce((sum, m) => sum + m.ms, 0),
    describe: () => `the machine's own stops: ${JSON.stringify(stops().map((s) => [Math.round(s.start), Math.round(s.end - s.start)]))}; ` +
      `the host's steal: ${JSON.stringify(f.messages.filter((m) => m.type === 'steal').map((m) => [Math.round(m.start), m.ms]))}`,
    stop: () => f.child.kill('SIGKILL'),
  };
}

module.exports = {
  ROOT, FIXTURES, Fixture, spawnFixture, killAll, sleep, writeAtomic, tmpDir, withPreload, underAsan,
  withoutAsan, gcc, sumValues, assertConservation, assertDebuggerPauseNotLag, assertBetween, makeCgroup, freezerGroup, freezeSecondsAndCheck,
  assertStopsNotLag, freezeAtRestStarts, watchMachine,
};
