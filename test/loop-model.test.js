'use strict';
// SPEC §6, embedded loops, on the simulation (exact to the millisecond): with
// createSimulation({ loop: 'embedded' }) libuv's idle time never grows (the loop never waits in
// its poll) and each iteration starts long after the previous one ended, as in Electron. The
// monitors recognise the model from that and then count the thread available to its loop
// whenever it is not busy, so every monitor reports what it reports in Node's own loop.
const assert = require('assert');
const lagwatch = require('..');

function run(loop) {
  const sim = lagwatch.createSimulation({ loop });
  const m = lagwatch.setupAllMonitors({ clock: sim });
  const samples = { loopBlock: [], idleAvailability: [] };
  m.conditions.on('samples', (b) => {
    for (const k of Object.keys(samples)) if (b[k]) samples[k].push(...b[k]);
  });
  return { sim, m, samples };
}

describe('loop models: Node\'s own loop and an embedded one (SPEC §6, simulation)', () => {
  it('createSimulation({ loop }) takes \'node\' (default) or \'embedded\'; anything else is a RangeError naming options.loop', () => {
    assert.strictEqual(lagwatch.createSimulation().loop, 'node');
    assert.strictEqual(lagwatch.createSimulation({ loop: 'embedded' }).loop, 'embedded');
    assert.throws(() => lagwatch.createSimulation({ loop: 'chromium' }), (err) => err instanceof RangeError && /options\.loop/.test(err.message));
    assert.throws(() => lagwatch.createSimulation({ loop: 5 }), (err) => err instanceof TypeError && /options\.loop/.test(err.message));
  });

  for (const loop of ['node', 'embedded']) {
    it(`${loop}: an idle app shows loopBlock 0 and idleAvailability 1 once the model is known; a 300 ms block is 300 ms`, () => {
      const { sim, m, samples } = run(loop);
      sim.advance(10000);
      assert.strictEqual(m.workerStats().loop, loop);
      // In the embedded loop driftLag's timer makes an iteration every 20 ms; the first two (at
      // 20 and 40) count their 20 ms outside libuv as busy: the model is recognised at the
      // second iteration that starts outside it (at 60; LW_OUTSIDE_ITERATIONS). In Node's own
      // loop driftLag and macrotaskLag sleep while the loop waits, after driftLag's first firing
      // (at 20) and macrotaskLag's first task (at 250): the loop wakes only for the 1 s timers:
      // 2 + 1 iteration a second.
      const lb = samples.loopBlock;
      if (loop === 'embedded') assert.ok(lb.length >= 490, `${lb.length} samples`);
      else assert.strictEqual(lb.length, 2 + 10, `${lb.length} samples`);
      assert.deepStrictEqual(lb.slice(loop === 'embedded' ? 2 : 0).filter((v) => v !== 0), [], 'every idle iteration 0 ms busy');
      if (loop === 'embedded') assert.deepStrictEqual(lb.slice(0, 2), [20, 20]);
      // The first second holds those 40 ms: 0.96; then 1, every second.
      const ia = samples.idleAvailability;
      assert.strictEqual(ia[0], loop === 'embedded' ? 0.96 : 1);
      assert.deepStrictEqual([...new Set(ia.slice(1))], [1], 'idle share 1 every second');
      sim.block(300);
      sim.advance(2000);
      assert.strictEqual(Math.max(...samples.loopBlock), 300, 'the block, exactly');
      // A task whose thread waits for a CPU (a loaded machine, a CPU quota) is busy and
      // unavailable to its loop all the same, in both models: an embedded loop once counted only
      // its CPU time (81 ms of loopBlock for a 300 ms Chromium task beside four busy processes).
      for (const state of ['starved', 'throttled']) {
        samples.loopBlock.length = 0;
        sim.block(300, state);
        sim.advance(2000);
        assert.strictEqual(Math.max(...samples.loopBlock), 300, `a ${state} block, exactly`);
      }
      assert.deepStrictEqual(m.conditions.stats().stalls, { hang: 0, suspend: 0, pause: 0 });
      m.stop();
    });
  }

  it('without the model (what libuv alone says in an embedded loop) every idle iteration would read as busy', () => {
    // The check that this suite can fail: the embedded simulation's libuv idle time does not
    // grow, so a loop read by libuv's idle time alone is busy all the time. The recognition is
    // what makes the figures above 0 and 1.
    const { sim, m, samples } = run('embedded');
    sim.advance(30); // one iteration: not yet recognised
    m.conditions.flush();
    assert.strictEqual(m.workerStats().loop, 'node');
    assert.deepStrictEqual(samples.loopBlock, [20]);
    m.stop();
  });
});

describe('the loop model is read from what the poll does, not from gaps (SPEC §6, simulation)', () => {
  // Twelve synchronous waits of 300 ms in timer callbacks (after the poll), each followed by
  // everyday waits of 6 and 12 ms: in Node's loop every one is the app's, and the loop stays
  // Node's, because its poll waits between them. Exact to the millisecond.
  function waits(loop) {
    const sim = lagwatch.createSimulation({ loop });
    const m = lagwatch.setupAllMonitors({ clock: sim, blocks: { thresholdMs: 100, maxReportsPerMinute: 100 } });
    const lb = [];
    const ia = [];
    const blocks = [];
    m.conditions.on('samples', (b) => {
      if (b.loopBlock) lb.push(...b.loopBlock);
      if (b.idleAvailability) ia.push(...b.idleAvailability);
    });
    m.conditions.on('block', (b) => blocks.push(b));
    return { sim, m, lb, ia, blocks };
  }

  it('node: 300 ms waits between short ones are each a block of 300 ms; the loop stays Node\'s; idleAvailability counts them busy', () => {
    const { sim, m, lb, ia, blocks } = waits('node');
    sim.advance(1000);
    for (let i = 0; i < 12; i++) {
      sim.wait(300);
      sim.advance(20);
      sim.wait(6);
      sim.advance(20);
      sim.wait(12);
      sim.advance(142);
    }
    sim.advance(2000);
    m.conditions.flush();
    assert.strictEqual(m.workerStats().loop, 'node');
    assert.deepStrictEqual(lb.filter((v) => v >= 100), new Array(12).fill(300));
    assert.deepStrictEqual(lb.filter((v) => v > 0 && v < 100).sort((a, b) => a - b), [...new Array(12).fill(6), ...new Array(12).fill(12)]);
    assert.strictEqual(blocks.length, 12);
    for (const b of blocks) assert.strictEqual(b.durationMs, 300);
    // 6 s of waits over 12 periods of 500 ms: 318 ms busy in each 500 ms.
    const busy = ia.reduce((s, v) => s + (1 - v), 0) * 1000;
    assert.strictEqual(Math.round(busy), 12 * 318);
    m.stop();
  });

  it('embedded: time outside uv_run is idle and makes the loop embedded; a block inside an iteration is still 300 ms', () => {
    const { sim, m, lb, blocks } = waits('embedded');
    sim.advance(100);
    assert.strictEqual(m.workerStats().loop, 'embedded');
    sim.outside(300);
    sim.advance(1000);
    m.conditions.flush();
    assert.strictEqual(Math.max(...lb.slice(2)), 0, 'Chromium\'s 300 ms outside uv_run is no busy time');
    sim.block(300, 'cpu');
    sim.advance(3000);
    m.conditions.flush();
    assert.strictEqual(Math.max(...lb), 300);
    assert.strictEqual(blocks.length, 1);
    m.stop();
  });

  // The loop model's readings are the real driver's: the time since a poll ended less the
  // thread's runnable time (on a CPU or waiting for one) and libuv's idle time. So a wait off the
  // CPU counts as time outside libuv wherever it happens (docs/electron.md, what it cannot see):
  // a Chromium task blocked on synchronous I/O is, and one on the CPU is not.
  it('embedded: a Chromium task waiting off the CPU is time outside libuv, one on the CPU is not; the first makes the loop embedded an iteration sooner', () => {
    for (const [state, model, first] of [['blocked', 'embedded', [20, 300, 0, 0]], ['cpu', 'node', [20, 300, 20, 0]]]) {
      const sim = lagwatch.createSimulation({ loop: 'embedded' });
      const m = lagwatch.setupAllMonitors({ clock: sim });
      const lb = [];
      m.conditions.on('samples', (b) => { if (b.loopBlock) lb.push(...b.loopBlock); });
      sim.advance(20); // driftLag's first iteration: the model's first reading
      sim.block(300, state); // the embedder's task, between two uv_run calls
      sim.advance(20); // the iterations at 320 and 340
      assert.strictEqual(m.workerStats().loop, model, state);
      sim.advance(120);
      assert.strictEqual(m.workerStats().loop, 'embedded', state);
      m.conditions.flush();
      // Before the switch loopBlock reads libuv's idle time, which an embedded loop never grows.
      assert.deepStrictEqual(lb.slice(0, 4), first, state);
      m.stop();
    }
  });

  it('a synchronous wait in a callback after the poll: 300 ms of loopBlock in Node\'s loop, none in an embedded one (what it cannot see)', () => {
    for (const [loop, busy] of [['node', 300], ['embedded', 0]]) {
      const { sim, m, lb } = waits(loop);
      sim.advance(1000);
      assert.strictEqual(m.workerStats().loop, loop);
      lb.length = 0;
      sim.wait(300);
      sim.advance(500);
      m.conditions.flush();
      assert.strictEqual(Math.max(...lb), busy, loop);
      m.stop();
    }
  });

  it('outside is refused in Node\'s own loop, whose thread never leaves uv_run', () => {
    const sim = lagwatch.createSimulation();
    assert.throws(() => sim.outside(10), /embedded/);
  });
});
