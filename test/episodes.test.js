'use strict';
// SPEC §5: stall episodes through the simulation, exact to the millisecond.
const assert = require('assert');
const diagnosticsChannel = require('diagnostics_channel');
const { fresh, advanceTo, collectStalls, assertConservation } = require('./helpers');

// A hang also has `cause` (SPEC §12): null here, where no monitor set measured it.
const STALL_KEYS = ['cause', 'durationMs', 'end', 'kind', 'monitors', 'samples', 'start'];

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

  describe('kind precedence: suspend > pause > hang', () => {
    // Each validator's window overlaps the others, but evidence overlaps only its own window.
    //   h: [14000, 20000] submitted at 20000, no evidence -> hang, decided at 22000
    //   p: [15000, 21000] submitted at 21000, pause [20500, 20800] -> pause, at 21000
    //   s: [15500, 21500] submitted at 21500, suspend [21200, 21300] -> suspend, at 21500
    function run(kinds) {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      if (kinds.includes('hang')) assert.strictEqual(v.submit(6000, 6000, () => {}), 'held');
      advanceTo(sim, 21000);
      if (kinds.includes('pause')) {
        c.tracker.add(20500, 20800, 'pause');
        assert.strictEqual(v.submit(6000, 6000, () => {}), 'discarded');
      }
      advanceTo(sim, 21500);
      if (kinds.includes('suspend')) {
        c.tracker.add(21200, 21300, 'suspend');
        assert.strictEqual(v.submit(6000, 6000, () => {}), 'discarded');
      }
      sim.advance(30000);
      return { stall: only(stalls), stats: c.stats() };
    }
    const cases = [
      [['hang'], 'hang'],
      [['pause'], 'pause'],
      [['suspend'], 'suspend'],
      [['hang', 'pause'], 'pause'],
      [['hang', 'suspend'], 'suspend'],
      [['pause', 'suspend'], 'suspend'],
      [['hang', 'pause', 'suspend'], 'suspend'],
    ];
    for (const [kinds, want] of cases) {
      it(`${kinds.join(' + ')} -> ${want}`, () => {
        const { stall, stats } = run(kinds);
        assert.strictEqual(stall.stall.kind, want);
        assert.strictEqual(stall.stall.samples, kinds.length);
        const first = kinds.includes('pause') ? 21000 : kinds.includes('suspend') ? 21500 : 22000;
        assert.strictEqual(stall.at, first + 2000, 'reported 2000 ms after the first stall sample');
        assert.deepStrictEqual(stats.stalls, { hang: 0, suspend: 0, pause: 0, [want]: 1 });
      });
    }

    it('the order of the samples does not matter (suspend first, then hang)', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(19000, 19100, 'suspend');
      assert.strictEqual(v.submit(6000, 6000, () => {}), 'discarded'); // suspend at 20000
      sim.advance(500);
      assert.strictEqual(v.submit(9000, 1000, () => {}), 'held'); // [19500, 20500] hang at 22500
      sim.advance(10000);
      const { stall, at } = only(stalls);
      assert.strictEqual(at, 22000);
      assert.strictEqual(stall.kind, 'suspend');
      // The hang was decided after the report: it joined nothing.
      assert.strictEqual(stall.samples, 1);
      assert.strictEqual(stall.durationMs, 6000);
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
    // Late: an immediate suspend sample, and a held one discarded as suspend at 26100.
    advanceTo(sim, 24100);
    c.tracker.add(19000, 19500, 'suspend');
    assert.strictEqual(b.submit(12000, 5000, () => {}), 'discarded'); // [19100, 24100] suspend
    b.submit(8000, 8000, () => {}); // held [16100, 24100]... overlaps the suspend: discarded at 26100
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
      v.submit(6000, 6000, () => {}); // [14000, 20000], hang at 22000 -> due 24000
      advanceTo(sim, 23000);
      c.tracker.add(20500, 21000, 'suspend');
      assert.strictEqual(v.submit(6000, 23000 - ws, () => {}), 'discarded'); // [ws, 23000] suspend
      sim.advance(30000);
      assert.strictEqual(stalls.length, want, `window from ${ws}`);
      if (want === 2) {
        assert.deepStrictEqual(stalls.map((s) => [s.at, s.stall.kind, s.stall.start, s.stall.end]),
          [[24000, 'hang', 14000, 20000], [25000, 'suspend', 20000, 23000]]);
        assert.deepStrictEqual(c.stats().stalls, { hang: 1, suspend: 1, pause: 0 });
      } else {
        assert.deepStrictEqual([stalls[0].at, stalls[0].stall.kind, stalls[0].stall.start, stalls[0].stall.end,
          stalls[0].stall.samples], [24000, 'suspend', 14000, 23000, 2]);
        assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 1, pause: 0 });
      }
    }
  });

  it('after retentionMs a reported episode no longer absorbs overlapping samples', () => {
    const { sim, c } = fresh({ retentionMs: 10000 });
    const stalls = collectStalls(c, sim);
    advanceTo(sim, 20000);
    const v = c.createValidator({ name: 'v' });
    c.tracker.add(19000, 19100, 'pause');
    v.submit(6000, 6000, () => {}); // pause stall at 20000, reported at 22000, kept until 32000
    advanceTo(sim, 32000);
    c.tracker.add(31000, 31100, 'pause');
    v.submit(6000, 20000, () => {}); // [12000, 32000] overlaps the episode (kept): joins nothing
    assert.strictEqual(stalls.length, 1);
    advanceTo(sim, 32001);
    c.tracker.add(31500, 31600, 'pause');
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
      kind: 'pause', durationMs: 5000, start: 15000, end: 20000, samples: 1, monitors: ['worker'],
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
        c.tracker.add(19000, 19100, 'suspend');
        a.submit(6000, 6000, () => {}); // suspend stall at 20000, due 22000
        sim.advance(500);
        const got = [];
        assert.strictEqual(b.submit(9000, 1000, (x) => got.push(x)), 'held'); // [19500, 20500], no evidence
        assert.strictEqual(b.submit(4, 1, () => {}), 'recorded');
        sim.advance(500); // 21000
        assert.deepStrictEqual(stalls, []);
        c.dispose();
        // SPEC §4: b's held sample is judged now (no evidence over its window: recorded, a hang
        // stall sample); its window overlaps a's episode, which it joins; the episode is reported
        // during dispose(), at the time of the dispose.
        assert.deepStrictEqual(got, [9000], 'the held sample is recorded by dispose()');
        const { at, stall } = only(stalls);
        assert.strictEqual(at, 21000);
        assert.deepStrictEqual(stall, {
          kind: 'suspend', durationMs: 9000, start: 14000, end: 20500, samples: 2, monitors: ['a', 'b'],
        });
        assert.deepStrictEqual(published, [stall]);
        const s = c.stats();
        assert.deepStrictEqual(s.stalls, { hang: 0, suspend: 1, pause: 0 });
        assert.strictEqual(s.cancelled, 0);
        assert.strictEqual(s.held, 0);
        assert.strictEqual(s.monitors.b.recorded, 2);
        assertConservation(s);
        sim.advance(60000);
        c.dispose();
        assert.strictEqual(stalls.length, 1, 'never reported twice');
        assert.deepStrictEqual(got, [9000], 'recorded once');
        assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 1, pause: 0 });
      } finally {
        diagnosticsChannel.unsubscribe('lagwatch:stall', onMessage);
      }
    });

    it('reports every waiting episode, in order', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(19000, 19100, 'suspend');
      v.submit(6000, 1000, () => {}); // [19000, 20000] suspend
      advanceTo(sim, 21000);
      c.tracker.add(20500, 20600, 'pause');
      v.submit(6000, 700, () => {}); // [20300, 21000] pause, separate
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
        kind: 'hang', durationMs: 7000, start: 13000, end: 20000, samples: 1, monitors: ['v'], cause: null,
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
