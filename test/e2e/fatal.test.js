'use strict';
// Fatal hangs, end to end on real processes (lib/fatal.js, src/driver/hangrec.c): a process that
// dies hung is reported by the next one that starts with the same state directory, once, with
// its cause and its stack; a hang that ends leaves nothing; a live process's hang is never
// reported by another.
// The hanging processes run with a stall threshold of 2 s (THRESHOLD): a hang is flagged, and its
// record written, 2 s into it rather than at the default's 5 s, so each waits 3 s less for the
// same rules; the record's refresh (at most once a second) is not the threshold's.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { spawnFixture, killAll, sleep, tmpDir, assertConservation } = require('./helpers');

const THRESHOLD = 2000;
const T = `threshold:${THRESHOLD}`;
const records = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('hang-')) : []);

describe('e2e: fatal hangs (real processes)', function () {
  this.timeout(90000);
  afterEach(killAll);

  async function killedAt(dir, killMs, stacks) {
    const f = spawnFixture('fatal.js', [dir, 'hang:6000', T, ...(stacks ? ['stacks'] : [])]);
    await f.waitFor('busy', 20000);
    await sleep(killMs);
    const seen = records(dir);
    f.signal('SIGKILL');
    await f.exited;
    return { seen, why: f.describe() };
  }

  for (const stacks of [false, true]) {
    // Flagged (and recorded) 2 s in, killed 2 s later: the record was refreshed since.
    it(`a 6 s busy loop SIGKILLed at 4 s (threshold 2 s)${stacks ? ' (stacks)' : ''}: the next process reports one fatal hang of 3.5 s or more, its cause${stacks ? ' and stack' : ''}`, async () => {
      const dir = path.join(tmpDir('fatal'), 'state');
      const { seen, why } = await killedAt(dir, 4000, stacks);
      assert.strictEqual(seen.length, 1, `the running hang is recorded: ${seen}\n${why}`);
      const next = spawnFixture('fatal.js', [dir, 'report']);
      const r = await next.result(30000);
      const detail = `${JSON.stringify(r.events.stall)}\n${next.describe()}`;
      assert.strictEqual(r.events.stall.length, 1, detail);
      const s = r.events.stall[0];
      assert.strictEqual(s.kind, 'hang', detail);
      assert.strictEqual(s.fatal, true, detail);
      assert.ok(s.durationMs >= 3500 && s.durationMs <= 4600, `durationMs ${s.durationMs}: at least as long as it was last seen\n${detail}`);
      assert.ok(s.start < 0 && s.end <= 0, `before this process began: ${s.start}, ${s.end}`);
      assert.ok(s.cause !== null && typeof s.cause === 'object', detail);
      assert.ok(['busy', 'starved'].includes(s.cause.dominant), `a busy loop (or one starved beside other suites): ${JSON.stringify(s.cause)}`);
      // On a CPU for more than a quarter of the span (of 3.5 s or more), even beside other suites.
      assert.ok(s.cause.cpuMs >= 1000, JSON.stringify(s.cause));
      assert.strictEqual(typeof s.pid, 'number', detail);
      if (stacks) {
        assert.ok(Array.isArray(s.stack) && s.stack.some((fr) => fr.functionName === 'spinTillKilled'),
          `the stack of the hung thread: ${JSON.stringify(s.stack)}`);
      }
      assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, detail);
      assert.strictEqual(r.stats.fatalHangs, 1, detail);
      assert.strictEqual(r.stats.causes[s.cause.dominant], 1, detail);
      assert.deepStrictEqual(records(dir), [], 'the record is removed once reported');
      assertConservation(r.stats);
      // Reported once: a third process finds nothing.
      const third = await spawnFixture('fatal.js', [dir, 'report']).result(30000);
      assert.deepStrictEqual(third.events.stall, []);
      assert.strictEqual(third.stats.fatalHangs, 0);
    });
  }

  it('a 3 s hang that ends (threshold 2 s): one ordinary hang, no record left, nothing fatal for the next process', async () => {
    const dir = path.join(tmpDir('fatal-ends'), 'state');
    const f = spawnFixture('fatal.js', [dir, 'hang:3000', T]);
    const r = await f.result(40000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, why);
    assert.strictEqual(r.events.stall[0].fatal, undefined, why);
    assert.strictEqual(r.stats.fatalHangs, 0, why);
    assert.ok(fs.existsSync(dir), 'the directory was made when the hang was flagged');
    assert.deepStrictEqual(records(dir), [], 'removed when the hang ended');
    const next = await spawnFixture('fatal.js', [dir, 'report']).result(30000);
    assert.deepStrictEqual(next.events.stall, []);
  });

  it('a healthy process writes nothing; a process sharing the directory never reports a live hang', async () => {
    const dir = path.join(tmpDir('fatal-shared'), 'state');
    const healthy = await spawnFixture('fatal.js', [dir, 'report']).result(30000);
    assert.deepStrictEqual(healthy.events.stall, []);
    // Made (mode 0700) and opened at setup, empty while the loop is healthy.
    assert.strictEqual(fs.statSync(dir).mode & 0o777, 0o700);
    assert.deepStrictEqual(fs.readdirSync(dir), [], 'nothing written while the loop is healthy');
    // A hangs (its record written at detection, 2 s in); B starts 3 s in, 3 s before A's hang
    // ends, and must leave it.
    const a = spawnFixture('fatal.js', [dir, 'hang:6000', T]);
    await a.waitFor('busy', 20000);
    await sleep(3000);
    assert.strictEqual(records(dir).length, 1, 'A\'s running hang is recorded');
    const b = await spawnFixture('fatal.js', [dir, 'report']).result(30000);
    assert.deepStrictEqual(b.events.stall, [], `B reports nothing of A's: ${JSON.stringify(b.events.stall)}`);
    assert.strictEqual(b.stats.fatalHangs, 0);
    const ra = await a.result(40000);
    assert.deepStrictEqual(ra.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, a.describe());
    assert.deepStrictEqual(records(dir), [], 'A removed its record when its hang ended');
  });

  // The wiring alone: the record is planted (a pid above Linux's pid_max, so no process has it);
  // the writing and the reading of real records are the tests above.
  it('Electron: attachElectron given app moves the records under userData/lagwatch and reports the dead ones there', async () => {
    const lagwatch = require('../..');
    const { createFakeElectron } = require('../fakes/electron');
    const userData = tmpDir('fatal-electron');
    const dir = path.join(userData, 'lagwatch');
    fs.mkdirSync(dir);
    const pid = 2 ** 22 + 1;
    fs.writeFileSync(path.join(dir, `hang-${pid}-1.json`), JSON.stringify({
      lagwatchHang: 1, process: { pid, startTicks: '1' }, wallOrigin: Date.now() - 60000, start: 1000,
      detectedAt: 6000, lastSeen: 9000, cause: null, stackLeftOut: false, stack: null,
    }));
    const { app, powerMonitor } = createFakeElectron();
    app.userData = userData;
    const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');
    const reader = new (class extends MetricReader {
      async onForceFlush() {}
      async onShutdown() {}
    })();
    const provider = new MeterProvider({ readers: [reader] });
    const m = lagwatch.setupAllMonitors({ monitors: { worker: false, liveness: false }, meter: provider.getMeter('lagwatch') });
    const stalls = [];
    m.conditions.on('stall', (s) => stalls.push(s));
    try {
      const detach = lagwatch.attachElectron(m.conditions, { powerMonitor, app });
      assert.strictEqual(m._state.dir, dir);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      detach();
    } finally {
      m.stop();
    }
    const fatal = stalls.filter((s) => s.fatal);
    assert.strictEqual(fatal.length, 1, JSON.stringify(stalls));
    assert.strictEqual(fatal[0].pid, pid);
    assert.strictEqual(fatal[0].durationMs, 8000);
    assert.strictEqual(fatal[0].cause, null);
    assert.ok(Math.abs(fatal[0].end - (m.conditions.now() - 51000)) < 5000, `on this clock: ${fatal[0].end}`);
    assert.deepStrictEqual(records(dir), []);
    // lag_stalls counts it apart: {kind="hang", fatal=true}.
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics.flatMap((sm) => sm.metrics)
      .filter((md) => md.descriptor.name === 'lag_stalls').flatMap((md) => md.dataPoints);
    const fatalPoints = points.filter((p) => p.attributes.fatal === true);
    assert.deepStrictEqual(fatalPoints.map((p) => [p.attributes.kind, p.value]), [['hang', 1]], JSON.stringify(points));
  });

  it('a state directory that cannot be written: counted and logged, the 3 s hang (threshold 2 s) reported as ever', async () => {
    const base = tmpDir('fatal-ro');
    const file = path.join(base, 'not-a-dir');
    fs.writeFileSync(file, 'x');
    const f = spawnFixture('fatal.js', [path.join(file, 'state'), 'hang:3000', T]);
    const r = await f.result(40000);
    const why = f.describe();
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, why);
    assert.ok(r.stats.stateErrors >= 1, `stateErrors: ${r.stats.stateErrors}\n${why}`);
    assert.match(f.stderr, /a hang record cannot be written/, why);
  });

  // Records come from the user's own directory but not always from this lagwatch (another
  // version, a hand edit, a disk error): every shape but the writer's is malformed, removed and
  // counted, never reported and never thrown into the app.
  it('odd records of every shape (a null process, a string pid, frames null or without url, an array cause, 1e308, -1e308): removed as malformed, only the well-formed one reported', async () => {
    const dir = path.join(tmpDir('fatal-odd'), 'state');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const GONE = 2 ** 22 + 1; // above Linux's pid_max: no process has it
    const good = {
      lagwatchHang: 1, process: { pid: GONE, startTicks: '1' }, wallOrigin: Date.now() - 60000, start: 1000,
      detectedAt: 6000, lastSeen: 9000, cause: { dominant: 'busy', cpuMs: 7900, runQueueMs: null, throttledMs: null, blockedMs: null, gcMs: 3, spanMs: 8000 },
      stackLeftOut: false, stack: { frames: [{ functionName: 'spin', url: 'file:///srv/app.js', lineNumber: 3, columnNumber: 1 }], trace: null },
    };
    const odd = [
      { process: null }, { process: { pid: '1; rm -rf', startTicks: '1' } }, { process: [GONE] },
      { stack: { frames: null } }, { stack: { frames: [{ functionName: 'f' }] } }, { stack: { frames: [null] } },
      { stack: { frames: [], trace: 'x' } }, { cause: [] }, { cause: { ...good.cause, dominant: 'nonsense' } },
      { cause: { ...good.cause, cpuMs: 1e308 } }, { start: -1e308 }, { lastSeen: 1e308 }, { wallOrigin: 1e308 },
      { detectedAt: 'x' }, { detectedAt: 500 }, { stackLeftOut: 'no' }, { lagwatchHang: 2 },
    ];
    fs.writeFileSync(path.join(dir, `hang-${GONE}-1.json`), JSON.stringify(good), { mode: 0o600 });
    odd.forEach((o, i) => {
      const pid = GONE + 1 + i;
      fs.writeFileSync(path.join(dir, `hang-${pid}-1.json`), JSON.stringify({ ...good, process: { pid, startTicks: '1' }, ...o }), { mode: 0o600 });
    });
    const f = spawnFixture('fatal.js', [dir, 'report']);
    const r = await f.result(30000);
    const why = f.describe();
    assert.strictEqual(r.events.stall.length, 1, `only the well-formed record reported: ${JSON.stringify(r.events.stall)}\n${why}`);
    const s = r.events.stall[0];
    assert.ok(s.fatal === true && s.kind === 'hang' && s.pid === GONE, JSON.stringify(s));
    assert.ok(Math.abs(s.durationMs - 8000) < 1, JSON.stringify(s));
    assert.deepStrictEqual(s.stack.map((fr) => fr.functionName), ['spin'], JSON.stringify(s));
    assert.ok(f.stderr.includes(`${odd.length} malformed hang record(s) removed from ${dir}`), why);
    assert.deepStrictEqual(records(dir), [], 'every record taken');
  });

  // Processes that start together on one directory (a cluster's workers, replicas on a volume)
  // race for the records: each is reported by the one process whose removal took it, once.
  it('4 processes starting together on 50 records of dead processes, 3 times: each record reported once, by one of them', async () => {
    const dir = path.join(tmpDir('fatal-race'), 'state');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const GONE = 2 ** 22 + 100; // above Linux's pid_max: no process has it
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 50; i++) {
        const pid = GONE + i;
        fs.writeFileSync(path.join(dir, `hang-${pid}-${round}.json`), JSON.stringify({
          lagwatchHang: 1, process: { pid, startTicks: '1' }, wallOrigin: Date.now() - 60000, start: 1000,
          detectedAt: 6000, lastSeen: 9000, cause: null, stackLeftOut: false, stack: null,
        }), { mode: 0o600 });
      }
      const fixtures = Array.from({ length: 4 }, () => spawnFixture('fatal.js', [dir, 'report']));
      const results = await Promise.all(fixtures.map((f) => f.result(30000)));
      const pids = results.flatMap((r) => r.events.stall.map((st) => st.pid)).sort((a, b) => a - b);
      assert.deepStrictEqual(pids, Array.from({ length: 50 }, (_, i) => GONE + i),
        `round ${round}: every record reported once (${pids.length} reports)\n${fixtures.map((f) => f.describe()).join('\n')}`);
      assert.deepStrictEqual(records(dir), [], 'every record taken');
    }
  });
  // Containers and hosts sharing one directory (a volume, an NFS home): a record names its
  // process by pid and start time, boot id, PID namespace and host name. A process this one cannot
  // see (another host; this host's other PID namespace while its record is refreshed) is left
  // alone; one provably gone (this host booted since; another namespace's record untouched 30 s)
  // is reported.
  it('a hang in another PID namespace (unshare --pid, as a container) on the shared directory: left alone while it runs, said once; it ends its own hang and removes its record', async () => {
    const dir = path.join(tmpDir('fatal-ns'), 'state');
    // A PID namespace alone (pid 1 there), no mount namespace: --mount-proc needs one, whose
    // propagation change a machine whose root is not a mount point refuses (a bare CI machine).
    // The host's /proc stays: /proc/self still names the fixture, and its ns/pid the new namespace.
    const a = spawnFixture('fatal.js', ['--pid', '--fork', process.execPath, path.join(__dirname, 'fixtures', 'fatal.js'),
      dir, 'hang:6000', T], { command: 'unshare' });
    await a.waitFor('busy', 20000);
    await sleep(3000);
    const seen = records(dir);
    assert.strictEqual(seen.length, 1, `A's running hang is recorded\n${a.describe()}`);
    assert.match(seen[0], /^hang-1-\d+-[0-9a-f]{8}\.json$/, 'pid 1 in its own namespace');
    const b = spawnFixture('fatal.js', [dir, 'report']);
    const rb = await b.result(30000);
    assert.deepStrictEqual(rb.events.stall, [], `B reports nothing of A's: ${JSON.stringify(rb.events.stall)}\n${b.describe()}`);
    assert.deepStrictEqual(records(dir), seen, 'B leaves A\'s record');
    assert.ok(b.stderr.includes(`1 hang record(s) in ${dir} left alone: written on another host or in another PID namespace`), b.describe());
    const ra = await a.result(40000);
    assert.deepStrictEqual(ra.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, a.describe());
    assert.strictEqual(ra.events.stall[0].fatal, undefined, a.describe());
    assert.deepStrictEqual(records(dir), [], 'A removed its record when its hang ended');
  });

  it('records of another host, another boot and another namespace: left alone but for this host\'s earlier boot and a namespace\'s record untouched 30 s', async () => {
    const dir = path.join(tmpDir('fatal-hosts'), 'state');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const host = require('os').hostname();
    const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
    const pidNs = /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))[1];
    const otherNs = String(Number(pidNs) + 1);
    const plant = (pid, proc, ageS = 0) => {
      const file = path.join(dir, `hang-${pid}-1-0000000${pid % 10}.json`);
      fs.writeFileSync(file, JSON.stringify({
        lagwatchHang: 1, process: { pid, startTicks: '1', ...proc }, thread: { id: 0, name: 'main' }, wallOrigin: Date.now() - 60000,
        start: 1000, detectedAt: 6000, lastSeen: 9000, cause: null, stackLeftOut: false, stack: null,
      }), { mode: 0o600 });
      const t = (Date.now() - ageS * 1000) / 1000;
      fs.utimesSync(file, t, t);
      return path.basename(file);
    };
    // pid 1 runs here (with another start time): judged by pid alone, each would be "gone".
    const left = [
      plant(1, { bootId, pidNs, host: 'another-host' }, 120), // another host: never judged from here
      plant(2, { bootId, pidNs: otherNs, host }, 5), // a container of this boot, its record fresh
    ];
    plant(3, { bootId: '00000000-0000-4000-8000-000000000000', pidNs, host }); // this host, booted since
    plant(4, { bootId, pidNs: otherNs, host }, 60); // a container of this boot, untouched 60 s
    const f = spawnFixture('fatal.js', [dir, 'report']);
    const r = await f.result(30000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
    assert.deepStrictEqual(r.events.stall.map((st) => st.pid).sort(), [3, 4], why);
    assert.deepStrictEqual(records(dir).sort(), left.sort(), why);
    assert.strictEqual(f.stderr.split('\n').filter((l) => l.includes('left alone')).length, 1, why);
    assert.ok(f.stderr.includes(`2 hang record(s) in ${dir} left alone`), why);
  });

  // A worker thread's hang: records name the thread. A worker terminated while hung (a pool's
  // task timeout) is reported by the main thread's set at its exit, as long as it ran; a process
  // killed while a worker hangs gives that worker's fatal hang at the next start.
  it('a worker hung 20 s and terminated 4 s in (threshold 2 s): the main thread reports its hang, fatal and terminated, named by its thread, 4 s long', async () => {
    const dir = path.join(tmpDir('fatal-worker-terminated'), 'state');
    const f = spawnFixture('fatal.js', [dir, 'worker-hang:20000:4000', T]);
    const busy = await f.waitFor('busy', 20000);
    const r = await f.result(40000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
    assert.strictEqual(r.events.stall.length, 1, why);
    const s = r.events.stall[0];
    assert.ok(s.fatal === true && s.terminated === true && s.kind === 'hang', why);
    assert.deepStrictEqual(s.thread.id, busy.threadId, why);
    assert.notStrictEqual(s.thread.id, 0, why);
    assert.ok(s.durationMs >= 3900 && s.durationMs < 5000, why);
    // It spun: on a CPU or waiting for one, as the machine's load decides (busy or starved), the
    // two making up the span.
    assert.ok(['busy', 'starved'].includes(s.cause.dominant), why);
    assert.ok(s.cause.cpuMs + s.cause.runQueueMs >= 0.9 * s.cause.spanMs, why);
    assert.strictEqual(r.stats.fatalHangs, 1, why);
    assert.deepStrictEqual(records(dir), [], 'its record taken');
  });

  it('a process SIGKILLed while a worker (not the main thread) hangs: the next start reports that worker\'s fatal hang, naming its thread', async () => {
    const dir = path.join(tmpDir('fatal-worker-killed'), 'state');
    const f = spawnFixture('fatal.js', [dir, 'worker-hang:20000', T]);
    const busy = await f.waitFor('busy', 20000);
    await sleep(4000);
    f.signal('SIGKILL');
    await f.exited;
    const next = spawnFixture('fatal.js', [dir, 'report']);
    const r = await next.result(30000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}\n${next.describe()}`;
    assert.strictEqual(r.events.stall.length, 1, why);
    const s = r.events.stall[0];
    assert.ok(s.fatal === true && s.terminated === undefined && s.pid === f.child.pid, why);
    assert.strictEqual(s.thread.id, busy.threadId, why);
    assert.notStrictEqual(s.thread.id, 0, why);
    assert.ok(s.durationMs >= 3000, why);
  });
});
