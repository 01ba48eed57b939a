'use strict';
// Blocks on the simulation, exact to the millisecond, through the public API: every
// loop iteration of the block threshold or more that no evidence explains is a block ('block'
// within the budget, stats().blocks and the metrics for all); a stop, a sleep or a debugger inside
// it explain it (discarded with the reason, never reported); a block as long as the stall
// threshold is also the hang episode; bad options are refused, naming the option. The rules'
// own cases, hand-driven, are in test/c/test-blocks.c; real processes in test/e2e/blocks.test.js.
const assert = require('assert');
// The thread every event of the main thread names (SPEC §14).
const MAIN_THREAD = { id: 0, name: 'main' };
const lagwatch = require('..');
const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');

class ManualReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

// The SDK's points of metric `name`, summed: a counter's value, a histogram's count.
async function total(reader, name) {
  const { resourceMetrics } = await reader.collect();
  let n = 0;
  for (const sm of resourceMetrics.scopeMetrics) {
    for (const md of sm.metrics) {
      if (md.descriptor.name !== name) continue;
      for (const p of md.dataPoints) n += typeof p.value === 'number' ? p.value : p.value.count;
    }
  }
  return n;
}

function setup(blocks, extra) {
  const sim = lagwatch.createSimulation({ platform: 'linux' });
  const m = lagwatch.setupAllMonitors({ clock: sim, blocks, ...extra });
  const got = [];
  m.conditions.on('block', (b) => got.push(b));
  return { sim, m, got };
}

describe('blocks (simulation)', () => {
  it('an iteration at the threshold is a block, one just under is not; exact start and duration', () => {
    const { sim, m, got } = setup({ thresholdMs: 100 });
    sim.advance(1000);
    sim.block(99.5);
    sim.advance(1000);
    sim.block(100);
    sim.advance(1000);
    sim.block(2345.25);
    sim.advance(1999.75);
    assert.strictEqual(got.length, 1); // each is held 2000 ms (holdMs): late evidence may still explain it
    sim.advance(0.25);
    assert.deepStrictEqual(got, [
      { start: 2099.5, end: 2199.5, durationMs: 100, hang: false, unreported: 0, cause: null, thread: MAIN_THREAD },
      { start: 3199.5, end: 5544.75, durationMs: 2345.25, hang: false, unreported: 0, cause: null, thread: MAIN_THREAD },
    ]);
    assert.deepStrictEqual(m.conditions.stats().blocks, { count: 2, reported: 2, unreported: 0, watched: 0, discarded: {} });
    m.stop();
  });

  it('off by default: the same iterations make no block and stats().blocks counts none', () => {
    const { sim, m, got } = setup(undefined);
    sim.advance(1000);
    sim.block(700);
    sim.advance(1000);
    assert.deepStrictEqual(got, []);
    assert.deepStrictEqual(m.conditions.stats().blocks, { count: 0, reported: 0, unreported: 0, watched: 0, discarded: {} });
    assert.strictEqual(m.conditions.stats().monitors.loopBlock.max, 700);
    m.stop();
  });

  it('the default threshold is 100 ms (blocks: true)', () => {
    const { sim, m, got } = setup(true);
    sim.advance(1000);
    sim.block(99.75);
    sim.advance(500);
    sim.block(100);
    sim.advance(2500);
    assert.deepStrictEqual(got.map((b) => b.durationMs), [100]);
    m.stop();
  });

  it('a stop or a debugger inside the iteration explain it: discarded with that reason, never reported', () => {
    const { sim, m, got } = setup({ thresholdMs: 100 });
    sim.advance(1000);
    sim.iteration([['block', 40], ['pause', 1000], ['block', 50]]); // SIGSTOP mid-iteration
    sim.advance(3000);
    sim.debug(400); // a breakpoint
    sim.advance(3000);
    // 210 ms of the app's own around a stop: within the stop's uncertainty, the stop's.
    sim.iteration([['block', 150], ['pause', 700], ['block', 60]]);
    sim.advance(3000);
    sim.iteration([['block', 150]]); // the app's own, after all that
    sim.advance(3000);
    assert.deepStrictEqual(got.map((b) => b.durationMs), [150]);
    const s = m.conditions.stats();
    assert.deepStrictEqual(s.blocks, { count: 1, reported: 1, unreported: 0, watched: 0, discarded: { pause: 2, debugger: 1 } });
    // The block validator's own counts, as any validator's.
    assert.deepStrictEqual([s.monitors.block.submitted, s.monitors.block.recorded, s.monitors.block.discarded], [4, 1, 3]);
    m.stop();
  });

  it('a stop inside a long block: the app\'s own part, from a second (the stop\'s uncertainty) on, is the block', () => {
    const { sim, m, got } = setup({ thresholdMs: 100 });
    sim.advance(1000);
    sim.iteration([['block', 800], ['pause', 1000], ['block', 700]]); // [1000, 3500], stopped 1800-2800
    sim.advance(3000);
    // 1500 ms of its own; the worker's evidence of the stop begins at its first check due inside
    // the stop (every 100 ms while the loop is busy: 1900), so 100 ms of the stop read as the
    // app's, the stop's uncertainty that no short block could be told from.
    assert.deepStrictEqual(got, [{ start: 1000, end: 3500, durationMs: 1600, hang: false, unreported: 0, cause: null, thread: MAIN_THREAD }]);
    m.stop();
  });

  it('a stop by a signal is known from its SIGCONT: exact inside a long block, and a stop shorter than the worker can see still explains its iteration', () => {
    const run = (steps) => {
      const { sim, m, got } = setup({ thresholdMs: 100 });
      sim.advance(1000);
      sim.iteration(steps);
      sim.advance(3000);
      const out = { blocks: got.map((b) => [b.start, b.end, b.durationMs]), discarded: m.conditions.stats().blocks.discarded };
      m.stop();
      return out;
    };
    // Stopped 1800-2800: from the worker's run at 1800 to the continue, with no second of
    // uncertainty (the freezer's pause above leaves 100 ms of it to the app).
    assert.deepStrictEqual(run([['block', 800], ['sigstop', 1000], ['block', 700]]), { blocks: [[1000, 3500, 1500]], discarded: {} });
    // An 80 ms stop, under the worker's 100 ms of lateness: only the continue tells it. The
    // freezer's (no signal) leaves the 170 ms iteration to the app.
    assert.deepStrictEqual(run([['block', 60], ['sigstop', 80], ['block', 30]]), { blocks: [], discarded: { pause: 1 } });
    assert.deepStrictEqual(run([['block', 60], ['pause', 80], ['block', 30]]), { blocks: [[1000, 1170, 170]], discarded: {} });
  });

  it('a sleep inside an iteration: on darwin, whose monotonic clock counts it, the suspend explains the block; on linux it never was one', () => {
    for (const platform of ['darwin', 'linux']) {
      const sim = lagwatch.createSimulation({ platform });
      const m = lagwatch.setupAllMonitors({ clock: sim, blocks: true });
      const got = [];
      m.conditions.on('block', (b) => got.push(b));
      sim.advance(1000);
      sim.iteration([['block', 30], ['sleep', 3000], ['block', 30]]);
      sim.advance(5000);
      assert.deepStrictEqual(got, [], platform);
      const s = m.conditions.stats();
      assert.deepStrictEqual(s.blocks.discarded, platform === 'darwin' ? { suspend: 1 } : {}, platform);
      assert.strictEqual(s.monitors.loopBlock.max, platform === 'darwin' ? 3060 : 60, platform);
      m.stop();
    }
  });

  it('over maxReportsPerMinute, blocks are counted and measured, not reported; the next report carries their number', async () => {
    const reader = new ManualReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter('lagwatch');
    const { sim, m, got } = setup({ thresholdMs: 50, maxReportsPerMinute: 2 }, { meter });
    sim.advance(1000);
    for (let i = 0; i < 1000; i++) {
      sim.block(50 + (i % 7));
      sim.advance(10);
    }
    sim.advance(2000); // the last one's hold
    // 1000 blocks in about 63 s: two reports in the minute from the first, two in the next.
    assert.strictEqual(got.length, 4);
    assert.deepStrictEqual([got[0].unreported, got[1].unreported, got[3].unreported], [0, 0, 0]);
    // The third report is the first block judged a minute or more after the first report, and
    // carries every block judged since the second.
    assert.ok(got[2].end >= got[0].end + 60000 && got[2].end - 66 < got[0].end + 60000, `${got[2].end} vs ${got[0].end}`);
    const between = Math.round((got[2].end - got[1].end) / 63) - 1; // a block every 63 ms on average
    assert.ok(Math.abs(got[2].unreported - between) <= 2, `${got[2].unreported} carried, ~${between} between`);
    const s = m.conditions.stats().blocks;
    assert.deepStrictEqual([s.count, s.reported, s.unreported], [1000, 4, 996]);
    // The blocking profile has them all, reported or not: without stacks, one site (no
    // fingerprint), 1000 blocks of 50 to 56 ms, exactly.
    const p = m.blockingProfile();
    let sum = 0;
    const durations = [];
    for (let i = 0; i < 1000; i++) {
      sum += 50 + (i % 7);
      durations.push(50 + (i % 7));
    }
    durations.sort((a, b) => a - b);
    assert.deepStrictEqual({ ...p, sites: p.sites.map((site) => ({ ...site })) }, {
      blocks: 1000, totalMs: sum, other: { count: 0, totalMs: 0 },
      sites: [{ fingerprint: null, count: 1000, totalMs: sum, maxMs: 56, p50Ms: durations[499], cause: 'unknown', causes: { unknown: 1000 }, stack: null }],
      // No span known (no stacks, no context manager): nothing by span.
      spans: [], spansOther: { count: 0, totalMs: 0 },
    });
    m.conditions.flush();
    assert.strictEqual(await total(reader, 'lag_blocks'), 1000);
    assert.strictEqual(await total(reader, 'lag_block_duration_histogram'), 1000);
    m.stop();
  });

  it('a block as long as the stall threshold is judged after the hold, flagged as a hang, and is that hang episode', () => {
    const { sim, m, got } = setup({ thresholdMs: 100 });
    const stalls = [];
    m.conditions.on('stall', (s) => stalls.push(s));
    sim.advance(1000);
    sim.block(6000);
    sim.advance(100);
    assert.deepStrictEqual(got, []); // held: late evidence may still explain it
    sim.advance(20000);
    assert.deepStrictEqual(got, [{ start: 1000, end: 7000, durationMs: 6000, hang: true, unreported: 0, cause: null, thread: MAIN_THREAD }]);
    assert.strictEqual(stalls.length, 1);
    assert.strictEqual(stalls[0].kind, 'hang');
    assert.strictEqual(stalls[0].start, 1000);
    assert.ok(stalls[0].monitors.includes('loopBlock'));
    assert.strictEqual(stalls[0].block, true, 'the episode says it is a block too');
    m.stop();
    // Without blocks, the same episode says nothing of blocks.
    const off = setup(undefined);
    off.m.conditions.on('stall', (s) => assert.strictEqual(s.block, undefined));
    off.sim.advance(1000);
    off.sim.block(6000);
    off.sim.advance(20000);
    assert.strictEqual(off.m.conditions.stats().stalls.hang, 1);
    off.m.stop();
  });

  it('blocks.stacks (the set\'s stacks by default): the worker watches each block while it runs, its cause read over it', () => {
    // The simulated main thread runs a block on the CPU: busy, and the span is the part of the
    // block after the worker's first check without progress. (Stacks need the real clock's
    // stack thread: test/e2e/blocks.test.js.)
    const { sim, m, got } = setup({ thresholdMs: 100 }, { stacks: true });
    sim.advance(1000);
    sim.block(350);
    sim.advance(3000);
    assert.strictEqual(got.length, 1);
    assert.strictEqual(got[0].durationMs, 350);
    assert.strictEqual(got[0].cause.dominant, 'busy');
    assert.ok(got[0].cause.spanMs > 0 && got[0].cause.spanMs <= 350 && got[0].cause.cpuMs === got[0].cause.spanMs, JSON.stringify(got[0].cause));
    assert.strictEqual(m.conditions.stats().blocks.watched, 1);
    assert.strictEqual(m.blockingProfile().sites[0].cause, 'busy');
    m.stop();
    // Turned off: the same block, no cause, not watched.
    const off = setup({ thresholdMs: 100, stacks: false }, { stacks: true });
    off.sim.advance(1000);
    off.sim.block(350);
    off.sim.advance(3000);
    assert.strictEqual(off.got[0].cause, null);
    assert.strictEqual(off.m.conditions.stats().blocks.watched, 0);
    off.m.stop();
  });

  it('bad options: TypeError / RangeError naming the option, nothing set up', () => {
    const sim = lagwatch.createSimulation({ platform: 'linux' });
    const cases = [
      ['x', TypeError, /options\.blocks/],
      [null, TypeError, /options\.blocks/],
      [{ thresholdMs: 49.9 }, RangeError, /blocks\.thresholdMs.*>= 50/],
      [{ thresholdMs: Infinity }, RangeError, /blocks\.thresholdMs/],
      [{ thresholdMs: '100' }, TypeError, /blocks\.thresholdMs/],
      [{ maxReportsPerMinute: 1.5 }, RangeError, /blocks\.maxReportsPerMinute/],
      [{ maxReportsPerMinute: -1 }, RangeError, /blocks\.maxReportsPerMinute/],
      [{ stack: true }, RangeError, /unknown option "stack"; did you mean "stacks"\?/],
      [{ stacks: 1 }, TypeError, /blocks\.stacks/],
      [{ stacks: true }, RangeError, /blocks\.stacks.*options\.stacks/], // the set has no stacks
    ];
    for (const [blocks, type, re] of cases) {
      assert.throws(() => lagwatch.setupAllMonitors({ clock: sim, blocks }), (err) => err instanceof type && re.test(err.message),
        `blocks: ${JSON.stringify(blocks)}`);
    }
    assert.throws(() => lagwatch.setupAllMonitors({ clock: sim, blocks: true, monitors: { loopBlock: false } }),
      (err) => err instanceof RangeError && /needs the loopBlock monitor/.test(err.message));
    // Nothing was left running: a real-clock set can still be made.
    const m = lagwatch.setupAllMonitors({ blocks: { thresholdMs: 50, maxReportsPerMinute: 0 }, stateDir: false });
    m.stop();
  });
});
