'use strict';
// SPEC §5: stall episodes through the simulation, exact to the millisecond.
const assert = require('assert');
// The thread every event of the main thread names (SPEC §14).
const MAIN_THREAD = { id: 0, name: 'main' };
const diagnosticsChannel = require('diagnostics_channel');
const { fresh, advanceTo, collectStalls, assertConservation } = require('./helpers');

// A hang also has `cause` (SPEC §12): null here, where no monitor set measured it.
const STALL_KEYS = ['cause', 'durationMs', 'end', 'kind', 'monitors', 'samples', 'start', 'thread'];

function only(stalls) {
  assert.strictEqual(stalls.length, 1, `one episode, got ${JSON.stringify(stalls)}`);
  return stalls[0];
}

describe('stall episodes (SPEC §5)', () => {
  it('one block seen by three validators: one hang episode at first stall sample + 2000 ms', () => {
    const { sim, c } = fresh();
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const a = c.createValidator({ name: 'driftLag' });
    const b = c.createValidator({ name: 'macrotaskLag' });
    const w = c.createValidator({ name: 'loopBlock' });
    assert.strictEqual(a.submit(6000, 6100, () => {}), 'held'); // [13900, 20000]
    advanceTo(sim, 20300);
    assert.strictEqual(b.submit(6500, 6600, () => {}), 'held'); // [13700, 20300]
    advanceTo(sim, 20500);
    assert.strictEqual(w.submit(7000, 7000, () => {}), 'held'); // [13500, 20500]
    // a is decided at 22000 (the first stall sample): reported at 24000.
    advanceTo(sim, 23999);
    assert.deepStrictEqual(stalls, []);
    advanceTo(sim, 24000);
    const { at, stall } = only(stalls);
    assert.strictEqual(at, 24000);
    assert.deepStrictEqual(Object.keys(stall).sort(), STALL_KEYS);
    assert.strictEqual(stall.kind, 'hang');
    assert.strictEqual(stall.durationMs, 7000);
    assert.strictEqual(stall.samples, 3);
    assert.strictEqual(stall.start, 13500);
    assert.strictEqual(stall.end, 20500);
    assert.ok(Array.isArray(stall.monitors));
    assert.deepStrictEqual([...stall.monitors].sort(), ['driftLag', 'loopBlock', 'macrotaskLag']);
    sim.advance(200000);
    assert.strictEqual(stalls.length, 1);
    assert.deepStrictEqual(c.stats().stalls, { hang: 1, suspend: 0, pause: 0 });
  });

  it('two validators of the same name: the name is listed once, both samples count', () => {
    const { sim, c } = fresh();
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const a = c.createValidator({ name: 'drift' });
    const b = c.createValidator({ name: 'drift' });
    a.submit(6000, 6000, () => {});
    sim.advance(100);
    b.submit(5500, 5000, () => {});
    sim.advance(10000);
    const { stall } = only(stalls);
    assert.deepStrictEqual(stall.monitors, ['drift']);
    assert.strictEqual(stall.samples, 2);
    assert.strictEqual(stall.durationMs, 6000);
    assert.strictEqual(stall.start, 14000);
    assert.strictEqual(stall.end, 20100);
  });

  describe('kind precedence: suspend > pause; the app\'s own time apart', () => {
    // Each validator's window overlaps the others; the evidence leaves the stop samples no own
    // part past the threshold (SPEC §5: evidence explains only the time it covers).
    //   h: [14000, 20000] submitted at 20000, no evidence -> hang, decided at 22000
    //   p: [15000, 21000] submitted at 21000, pause [20000, 21000] -> own 5000: pause, at 21000
    //   s: [15500, 21500] submitted at 21500, suspend [20500, 21500] -> suspend, at 21500
    // The hang and the stops overlap, but are separate episodes: one block = one hang, one stop
    // = one episode of its kind.
    function run(kinds) {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      if (kinds.includes('hang')) assert.strictEqual(v.submit(6000, 6000, () => {}), 'held');
      advanceTo(sim, 21000);
      if (kinds.includes('pause')) {
        c.tracker.add(20000, 21000, 'pause');
        assert.strictEqual(v.submit(6000, 6000, () => {}), 'discarded');
      }
      advanceTo(sim, 21500);
      if (kinds.includes('suspend')) {
        c.tracker.add(20500, 21500, 'suspend');
        assert.strictEqual(v.submit(6000, 6000, () => {}), 'discarded');
      }
      sim.advance(30000);
      return { stalls, stats: c.stats() };
    }
    const cases = [
      [['hang'], null],
      [['pause'], 'pause'],
      [['suspend'], 'suspend'],
      [['hang', 'pause'], 'pause'],
      [['hang', 'suspend'], 'suspend'],
      [['pause', 'suspend'], 'suspend'],
      [['hang', 'pause', 'suspend'], 'suspend'],
    ];
    for (const [kinds, want] of cases) {
      it(`${kinds.join(' + ')} -> ${[kinds.includes('hang') && 'hang', want].filter(Boolean).join(' and ')}`, () => {
        const { stalls, stats } = run(kinds);
        const stops = kinds.filter((k) => k !== 'hang');
        const wantStalls = { hang: 0, suspend: 0, pause: 0 };
        const got = stalls.map(({ at, stall }) => [at, stall.kind, stall.samples]);
        const expected = [];
        if (stops.length) {
          const first = stops.includes('pause') ? 21000 : 21500;
          expected.push([first + 2000, want, stops.length]); // 2000 ms after its first sample
          wantStalls[want] = 1;
        }
        if (kinds.includes('hang')) {
          expected.push([24000, 'hang', 1]);
          wantStalls.hang = 1;
        }
        assert.deepStrictEqual(got.sort((x, y) => x[0] - y[0]), expected.sort((x, y) => x[0] - y[0]));
        assert.deepStrictEqual(stats.stalls, wantStalls);
      });
    }

    it('a stop and a hang whose windows overlap are two episodes, whatever their order', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(19000, 20000, 'suspend');
      assert.strictEqual(v.submit(6000, 6000, () => {}), 'discarded'); // own 5000: suspend at 20000
      sim.advance(500);
      // [19500, 20500]: 500 ms of the suspend inside, an own part of 8500: a hang, at 22500.
      assert.strictEqual(v.submit(9000, 1000, () => {}), 'held');
      sim.advance(10000);
      assert.deepStrictEqual(stalls.map(({ at, stall }) => [at, stall.kind, stall.durationMs, stall.samples]),
        [[22000, 'suspend', 6000, 1], [24500, 'hang', 8500, 1]]);
    });
  });

  it('a sample joining an already reported episode adds nothing (one block = one episode)', () => {
    const { sim, c } = fresh();
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const a = c.createValidator({ name: 'a' });
    const b = c.createValidator({ name: 'b' });
    a.submit(6000, 6000, () => {}); // [14000, 20000], stall at 22000, reported at 24000
    advanceTo(sim, 24000);
    const first = only(stalls);
    assert.strictEqual(first.at, 24000);
    const snapshot = JSON.parse(JSON.stringify(first.stall));
    // Late: two more samples of the same block, decided after the report (26100).
    advanceTo(sim, 24100);
    assert.strictEqual(b.submit(12000, 5000, () => {}), 'held'); // [19100, 24100]
    assert.strictEqual(b.submit(8000, 8000, () => {}), 'held'); // [16100, 24100]
    sim.advance(60000);
    assert.strictEqual(stalls.length, 1);
    assert.deepStrictEqual(first.stall, snapshot, 'the reported payload is not changed afterwards');
    assert.deepStrictEqual(c.stats().stalls, { hang: 1, suspend: 0, pause: 0 });
  });

  it('a late hang sample overlapping a reported episode adds nothing either', () => {
    const { sim, c } = fresh();
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const a = c.createValidator({ name: 'a' });
    a.submit(6000, 6000, () => {}); // reported at 24000
    advanceTo(sim, 23000);
    a.submit(9000, 4000, () => {}); // [19000, 23000] decided at 25000, after the report
    sim.advance(30000);
    assert.strictEqual(stalls.length, 1);
    assert.strictEqual(stalls[0].stall.durationMs, 6000);
    assert.strictEqual(stalls[0].stall.samples, 1);
    assert.strictEqual(c.stats().recorded, 2);
  });

  it('touching windows are two episodes; overlapping by a hair is one', () => {
    for (const [ws, want] of [[20000, 2], [19999.5, 1]]) {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(15000, 20000, 'suspend');
      v.submit(6000, 6000, () => {}); // [14000, 20000], own 1000: suspend at 20000 -> due 22000
      advanceTo(sim, 21000);
      c.tracker.add(20000, 21000, 'pause');
      // [ws, 21000]: at most 1000.5 ms of stops inside, own part 5000 or less: the stops'.
      assert.strictEqual(v.submit(6000, 21000 - ws, () => {}), 'discarded');
      sim.advance(30000);
      assert.strictEqual(stalls.length, want, `window from ${ws}`);
      if (want === 2) {
        assert.deepStrictEqual(stalls.map((s) => [s.at, s.stall.kind, s.stall.start, s.stall.end]),
          [[22000, 'suspend', 14000, 20000], [23000, 'pause', 20000, 21000]]);
        assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 1, pause: 1 });
      } else {
        assert.deepStrictEqual([stalls[0].at, stalls[0].stall.kind, stalls[0].stall.start, stalls[0].stall.end,
          stalls[0].stall.samples], [22000, 'suspend', 14000, 21000, 2]);
        assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 1, pause: 0 });
      }
    }
  });

  it('after retentionMs a reported episode no longer absorbs overlapping samples', () => {
    const { sim, c } = fresh({ retentionMs: 10000 });
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const v = c.createValidator({ name: 'v' });
    c.tracker.add(19000, 20000, 'pause');
    v.submit(6000, 6000, () => {}); // pause stall at 20000, reported at 22000, kept until 32000
    advanceTo(sim, 32000);
    c.tracker.add(31000, 31100, 'pause');
    v.submit(6000, 20000, () => {}); // [12000, 32000] overlaps the episode (kept): joins nothing
    assert.strictEqual(stalls.length, 1);
    advanceTo(sim, 32001);
    c.tracker.add(30500, 32001, 'pause'); // the first pause has expired: 1601 ms of stops inside
    v.submit(6500, 20001, () => {}); // [12000, 32001]: the episode is gone, a new one
    sim.advance(1999);
    assert.strictEqual(stalls.length, 1);
    sim.advance(1);
    assert.strictEqual(stalls.length, 2);
    assert.strictEqual(stalls[1].at, 34001);
    assert.strictEqual(stalls[1].stall.durationMs, 6500);
    assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 0, pause: 2 });
  });

  it('custom episodeDelayMs: reported at first stall sample + episodeDelayMs', () => {
    const { sim, c } = fresh({ episodeDelayMs: 500 });
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const v = c.createValidator({ name: 'v' });
    c.tracker.add(19000, 19100, 'suspend');
    v.submit(5000, 5000, () => {});
    sim.advance(499);
    assert.deepStrictEqual(stalls, []);
    sim.advance(1);
    assert.strictEqual(only(stalls).at, 20500);
    // With holds: hang decided at 22600 + 2000 hold, reported 500 later.
    advanceTo(sim, 30000);
    v.submit(5000, 100, () => {});
    advanceTo(sim, 32499);
    assert.strictEqual(stalls.length, 1);
    advanceTo(sim, 32500);
    assert.strictEqual(stalls.length, 2);
    assert.strictEqual(stalls[1].stall.kind, 'hang');
  });

  it("the diagnostics_channel 'lagwatch:stall' receives the same payload", () => {
    const { sim, c } = fresh();
    const stalls = collectStalls(c, sim);
    const published = [];
    const onMessage = (msg, name) => published.push([msg, name, sim.now()]);
    diagnosticsChannel.subscribe('lagwatch:stall', onMessage);
    try {
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'worker' });
      c.tracker.add(19000, 19100, 'pause');
      v.submit(5000, 5000, () => {});
      sim.advance(5000);
    } finally {
      diagnosticsChannel.unsubscribe('lagwatch:stall', onMessage);
    }
    const { stall } = only(stalls);
    assert.strictEqual(published.length, 1);
    assert.strictEqual(published[0][1], 'lagwatch:stall');
    assert.strictEqual(published[0][2], 22000);
    assert.deepStrictEqual(published[0][0], stall);
    assert.deepStrictEqual(published[0][0], {
      kind: 'pause', durationMs: 5000, start: 15000, end: 20000, samples: 1, monitors: ['worker'], thread: MAIN_THREAD,
    });
  });

  it('stats().stalls counts reported episodes by kind, when they are reported', () => {
    const { sim, c } = fresh();
    const stalls = collectStalls(c, sim);
    assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 0, pause: 0 });
    const v = c.createValidator({ name: 'v' });
    const want = { hang: 0, suspend: 0, pause: 0 };
    for (const reason of ['suspend', 'pause', 'pause', null, null, null]) {
      sim.advance(20000);
      const now = sim.now();
      if (reason) c.tracker.add(now - 100, now - 50, reason);
      v.submit(5000, 1000, () => {});
      const kind = reason || 'hang';
      const due = now + (reason ? 2000 : 4000);
      advanceTo(sim, due - 1);
      assert.deepStrictEqual(c.stats().stalls, want, 'not counted before the report');
      advanceTo(sim, due);
      want[kind]++;
      assert.deepStrictEqual(c.stats().stalls, want);
    }
    assert.deepStrictEqual(want, { hang: 3, suspend: 1, pause: 2 });
    assert.deepStrictEqual(stalls.map((x) => x.stall.kind), ['suspend', 'pause', 'pause', 'hang', 'hang', 'hang']);
  });

  describe('conditions.dispose()', () => {
    it('resolves held samples at once by step 4, then reports waiting episodes (synchronously)', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      const published = [];
      const onMessage = (msg) => published.push(msg);
      diagnosticsChannel.subscribe('lagwatch:stall', onMessage);
      try {
        advanceTo(sim, 20000);
        const a = c.createValidator({ name: 'a' });
        const b = c.createValidator({ name: 'b' });
        c.tracker.add(19000, 20000, 'suspend');
        a.submit(6000, 6000, () => {}); // own part 5000: a suspend stall at 20000, due 22000
        sim.advance(500);
        const got = [];
        // [19500, 20500]: 500 ms of the suspend inside, an own part of 8500.
        assert.strictEqual(b.submit(9000, 1000, (x) => got.push(x)), 'held');
        assert.strictEqual(b.submit(4, 1, () => {}), 'recorded');
        sim.advance(500); // 21000
        assert.deepStrictEqual(stalls, []);
        c.dispose();
        // SPEC §4: b's held sample is judged now: recorded as its own part, a hang stall sample,
        // an episode apart from a's suspend (SPEC §5); both are reported during dispose(), at
        // the time of the dispose, in the order they began.
        assert.deepStrictEqual(got, [8500], 'the held sample is recorded by dispose(), its own part');
        assert.deepStrictEqual(stalls.map((x) => x.at), [21000, 21000]);
        assert.deepStrictEqual(stalls[0].stall, {
          kind: 'suspend', durationMs: 6000, start: 14000, end: 20000, samples: 1, monitors: ['a'], thread: MAIN_THREAD,
        });
        assert.deepStrictEqual(stalls[1].stall, {
          kind: 'hang', durationMs: 8500, start: 19500, end: 20500, samples: 1, monitors: ['b'], cause: null, thread: MAIN_THREAD,
        });
        assert.deepStrictEqual(published, stalls.map((x) => x.stall));
        const s = c.stats();
        assert.deepStrictEqual(s.stalls, { hang: 1, suspend: 1, pause: 0 });
        assert.strictEqual(s.cancelled, 0);
        assert.strictEqual(s.held, 0);
        assert.strictEqual(s.monitors.b.recorded, 2);
        assertConservation(s);
        sim.advance(60000);
        c.dispose();
        assert.strictEqual(stalls.length, 2, 'never reported twice');
        assert.deepStrictEqual(got, [8500], 'recorded once');
        assert.deepStrictEqual(c.stats().stalls, { hang: 1, suspend: 1, pause: 0 });
      } finally {
        diagnosticsChannel.unsubscribe('lagwatch:stall', onMessage);
      }
    });

    it('reports every waiting episode, in order', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(19000, 20000, 'suspend');
      v.submit(6000, 1000, () => {}); // [19000, 20000] suspend (own part 5000)
      advanceTo(sim, 21000);
      c.tracker.add(20300, 21000, 'pause');
      v.submit(5500, 700, () => {}); // [20300, 21000] pause (own part 4800), separate
      c.dispose();
      assert.deepStrictEqual(stalls.map((s) => s.stall.kind), ['suspend', 'pause']);
      assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 1, pause: 1 });
    });

    it('with nothing held or waiting, reports nothing', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      sim.advance(20000);
      const v = c.createValidator({ name: 'v' });
      v.submit(700, 700, () => {});
      c.dispose();
      assert.deepStrictEqual(stalls, []);
      assert.strictEqual(c.stats().recorded, 1);
    });

    it('a hang still held (stop within holdMs of it) is reported by dispose(), not cancelled', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      sim.advance(20000);
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(7000, 7000, () => {}), 'held');
      sim.advance(1000); // 1 s later, within holdMs
      c.dispose();
      const { at, stall } = only(stalls);
      assert.strictEqual(at, 21000);
      assert.deepStrictEqual(stall, {
        kind: 'hang', durationMs: 7000, start: 13000, end: 20000, samples: 1, monitors: ['v'], cause: null, thread: MAIN_THREAD,
      });
      const s = c.stats();
      assert.strictEqual(s.cancelled, 0);
      assert.deepStrictEqual(s.stalls, { hang: 1, suspend: 0, pause: 0 });
    });

    it('a held sample with evidence that arrived before dispose() is discarded by it', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      sim.advance(20000);
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(7000, 7000, () => {}), 'held');
      sim.advance(500);
      c.tracker.add(13500, 19000, 'pause'); // the evidence arrives late, then the set stops
      c.dispose();
      const { stall } = only(stalls);
      assert.strictEqual(stall.kind, 'pause');
      assert.strictEqual(c.stats().discarded.pause, 1);
    });
  });
});
