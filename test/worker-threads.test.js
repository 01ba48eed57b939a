'use strict';
// SPEC §7/§11: each JS thread has its own state, and worker_threads that load the addon can be
// created and terminated repeatedly, with real-clock work pending (an armed uv timer, held
// samples), without a crash or a leak of the main thread's state.
const assert = require('assert');
const path = require('path');
const { Worker } = require('worker_threads');
const lagwatch = require('..');

const root = path.resolve(__dirname, '..');

function runWorker(code) {
  return new Worker(`const lagwatch = require(${JSON.stringify(root)});\n${code}`, { eval: true });
}

describe('worker_threads', function () {
  this.timeout(60000);

  it('loads in 20 workers, one after another, each terminated with held samples pending', async () => {
    // The main thread's conditions run on a simulated clock: its held sample stays held however
    // long the 20 workers take on a loaded machine (on the real clock it resolved after 2 s).
    const sim = lagwatch.createSimulation();
    sim.advance(10000);
    const main = lagwatch.createConditions({ clock: sim });
    const v = main.createValidator({ name: 'main' });
    assert.strictEqual(v.submit(6000, 6000, () => {}), 'held');
    for (let i = 0; i < 20; i++) {
      const w = runWorker(`
        const { parentPort } = require('worker_threads');
        const c = lagwatch.createConditions();
        const v = c.createValidator({ name: 'w' });
        const verdicts = [v.submit(1, 1, () => {}), v.submit(6000, 6000, () => {})];
        c.setLifecycleState('hidden');
        parentPort.postMessage({ verdicts, stats: c.stats(), state: c.lifecycle.state });
        setInterval(() => {}, 1000); // keeps the worker alive until it is terminated
      `);
      const msg = await new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
      assert.deepStrictEqual(msg.verdicts, ['recorded', 'held']);
      assert.strictEqual(msg.stats.submitted, 2);
      assert.strictEqual(msg.stats.held, 1);
      assert.strictEqual(msg.state, 'hidden');
      const code = await w.terminate();
      assert.strictEqual(code, 1); // terminated, not crashed
    }
    // The main thread's state is its own: untouched by the workers.
    const s = main.stats();
    assert.strictEqual(s.submitted, 1);
    assert.strictEqual(s.held, 1);
    assert.strictEqual(main.lifecycle.state, 'active');
    sim.advance(1999); // still within holdMs: held
    assert.strictEqual(main.stats().held, 1);
    v.dispose(); // cancels its held samples (conditions.dispose() would resolve them)
    assert.strictEqual(main.stats().cancelled, 1);
    main.dispose();
  });

  it('runs a worker to its natural end while its held sample is pending (unref\'d timer)', async () => {
    // Timed from the submit, on the wall-clock scale both threads share (timeOrigin + now()), not
    // from new Worker(): a worker's start-up takes longer on a loaded machine, its end after the
    // script does not wait for the 2000 ms hold.
    const w = runWorker(`
      const c = lagwatch.createConditions();
      c.createValidator({ name: 'w' }).submit(6000, 6000, () => {});
      require('worker_threads').parentPort.postMessage(performance.timeOrigin + performance.now());
    `);
    let submittedAt = null;
    w.on('message', (t) => {
      submittedAt = t;
    });
    const code = await new Promise((resolve, reject) => {
      w.once('exit', resolve);
      w.once('error', reject);
    });
    const endedAfter = performance.timeOrigin + performance.now() - submittedAt;
    assert.strictEqual(code, 0);
    assert.ok(submittedAt !== null, 'the worker submitted');
    assert.ok(endedAfter < 1900, `the worker exited ${endedAfter.toFixed(0)} ms after its submit, before its held sample was due`);
  });

  // SPEC §1: now() is on the origin of its own thread's performance.now(). Node 20 gives a worker
  // the process's performance.timeOrigin (measured: equal on both threads), other versions the
  // worker's start; so the test does not assume either: every now() in the worker lies between
  // two reads of the worker's performance.now(), and origin + now() names one instant on both
  // threads (an addon that used another thread's origin, or none, fails one of the two).
  it('gives each worker thread now() on its own performance.now() origin', async () => {
    const created = lagwatch.now();
    const w = runWorker(`
      const { parentPort } = require('worker_threads');
      let bad = 0;
      for (let i = 0; i < 2000; i++) {
        const a = performance.now(), n = lagwatch.now(), b = performance.now();
        if (!(n >= a - 0.01 && n <= b + 0.01)) bad++;
      }
      const wallOfNow = performance.timeOrigin + lagwatch.now();
      parentPort.postMessage({ bad, now: lagwatch.now(), wallOfNow });
    `);
    const msg = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    const received = lagwatch.now();
    await w.terminate();
    assert.strictEqual(msg.bad, 0);
    const mainWall = performance.timeOrigin + received;
    assert.ok(msg.wallOfNow <= mainWall + 1 && msg.wallOfNow >= performance.timeOrigin + created - 1,
      `worker's origin + now() ${msg.wallOfNow} within [${performance.timeOrigin + created}, ${mainWall}]`);
  });
});

describe('teardown with monitors on a simulated clock', function () {
  this.timeout(60000);
  const { spawnSync } = require('child_process');

  // Under npm test's sanitizer step the child inherits the ASan addon (LAGWATCH_ADDON, LD_PRELOAD):
  // a use-after-free at exit fails it there. The cleanup hook once unlinked a simulated set from
  // the wrong scheduler, and the conditions' finalizer then wrote into freed memory.
  it('a process exits cleanly with simulated monitor sets alive, stopped and never stopped', () => {
    const code = `
      const lw = require(${JSON.stringify(root)});
      const sim = lw.createSimulation();
      const a = lw.setupAllMonitors({ clock: sim });
      const b = lw.setupAllMonitors({ clock: sim });
      sim.advance(100);
      b.stop();
      globalThis.keep = [sim, a, b];
      console.log('done');
    `;
    const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 30000 });
    assert.strictEqual(r.stderr, '');
    assert.strictEqual(r.stdout.trim(), 'done');
    assert.strictEqual(r.status, 0);
  });

  it('worker threads with simulated monitor sets are terminated cleanly, 5 times', async () => {
    for (let i = 0; i < 5; i++) {
      const w = runWorker(`
        const { parentPort } = require('worker_threads');
        const sim = lagwatch.createSimulation();
        const m = lagwatch.setupAllMonitors({ clock: sim });
        sim.advance(1000);
        globalThis.keep = [sim, m];
        parentPort.postMessage(m.conditions.stats().monitors.driftLag.recorded);
        setInterval(() => {}, 1000);
      `);
      const recorded = await new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
      assert.strictEqual(recorded, 50);
      assert.strictEqual(await w.terminate(), 1);
    }
  });
});
