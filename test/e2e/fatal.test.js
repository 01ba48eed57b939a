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
});
