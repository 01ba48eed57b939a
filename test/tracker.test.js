'use strict';
// SPEC §2: the ReliabilityTracker, through a simulation, exact to the millisecond.
const assert = require('assert');
const { fresh, advanceTo, rng, overlaps, BUILTIN_REASONS } = require('./helpers');

function iv(start, end, reason) {
  return { start, end, reason };
}

describe('tracker (SPEC §2)', () => {
  describe('the required overlap table', () => {
    const closedRows = [
      // interval, window, overlaps
      [[100, 200], [50, 100], false], // touch
      [[100, 200], [200, 300], false], // touch
      [[100, 200], [150, 160], true],
      [[100, 200], [0, 1000], true],
      [[150, 150], [100, 200], true],
      [[150, 150], [150, 200], false],
    ];
    for (const [[s, e], [ws, we], want] of closedRows) {
      it(`[${s}, ${e}] vs window [${ws}, ${we}]: ${want ? 'overlaps' : 'no overlap'}`, () => {
        const { sim, c } = fresh();
        sim.advance(2000);
        c.tracker.add(s, e, 'suspend');
        const got = c.tracker.findOverlap(ws, we);
        if (want) assert.deepStrictEqual(got, iv(s, e, 'suspend'));
        else assert.strictEqual(got, undefined);
        // Same answer when asking for that reason only, and nothing for another reason.
        if (want) assert.deepStrictEqual(c.tracker.findOverlap(ws, we, 'suspend'), iv(s, e, 'suspend'));
        else assert.strictEqual(c.tracker.findOverlap(ws, we, 'suspend'), undefined);
        assert.strictEqual(c.tracker.findOverlap(ws, we, 'pause'), undefined);
      });

      it(`[${s}, ${e}] vs a validator window [${ws}, ${we}] decided at the end of the hold: ${want ? 'discarded' : 'recorded'}`, () => {
        const { sim, c } = fresh();
        const v = c.createValidator({ name: 'v' });
        advanceTo(sim, we);
        const got = [];
        assert.strictEqual(v.submit(6000, we - ws, (x) => got.push(x)), 'held');
        sim.advance(1000);
        c.tracker.add(s, e, 'hidden');
        sim.advance(1000);
        assert.strictEqual(sim.now(), we + 2000);
        assert.deepStrictEqual(got, want ? [] : [6000]);
        assert.strictEqual(c.stats().discarded.hidden, want ? 1 : 0);
      });
    }

    const openRows = [
      [[0, 99.9], false],
      [[0, 100], true],
      [[500, 600], true],
    ];
    for (const [[ws, we], want] of openRows) {
      it(`open from 100 vs window [${ws}, ${we}]: ${want ? 'overlaps' : 'no overlap'}`, () => {
        const { sim, c } = fresh();
        advanceTo(sim, 100);
        c.tracker.open('hidden');
        advanceTo(sim, 700);
        const got = c.tracker.findOverlap(ws, we);
        if (want) assert.deepStrictEqual(got, iv(100, Infinity, 'hidden'));
        else assert.strictEqual(got, undefined);
      });

      it(`open from 100 vs a validator window [${ws}, ${we}]: ${want ? 'discarded' : 'recorded'}`, () => {
        const { sim, c } = fresh();
        const v = c.createValidator({ name: 'v' });
        if (we <= 100) advanceTo(sim, we);
        const got = [];
        let verdict;
        if (we < 100) {
          // Window ends before the interval opens: the hold decides it.
          verdict = v.submit(6000, we - ws, (x) => got.push(x));
          assert.strictEqual(verdict, 'held');
          advanceTo(sim, 100);
          c.tracker.open('hidden');
          sim.advance(2100);
        } else if (we === 100) {
          verdict = v.submit(6000, we - ws, (x) => got.push(x));
          assert.strictEqual(verdict, 'held');
          c.tracker.open('hidden'); // at 100, the window's end
          sim.advance(2000);
        } else {
          advanceTo(sim, 100);
          c.tracker.open('hidden');
          advanceTo(sim, we);
          verdict = v.submit(10, we - ws, (x) => got.push(x));
          assert.strictEqual(verdict, 'discarded');
        }
        assert.deepStrictEqual(got, want ? [] : [6000]);
        assert.strictEqual(c.stats().discarded.hidden, want ? 1 : 0);
      });
    }

    it('add(200, 100): ignored (no error, nothing kept, nothing found)', () => {
      const { sim, c } = fresh();
      sim.advance(300);
      const before = c.stats();
      assert.strictEqual(c.tracker.add(200, 100, 'suspend'), undefined);
      assert.strictEqual(c.tracker.add(200, 100, 'never-used'), undefined);
      for (const [ws, we] of [[0, 1000], [150, 160], [100, 200], [-1e9, 1e9]]) {
        assert.strictEqual(c.tracker.findOverlap(ws, we), undefined);
      }
      assert.deepStrictEqual(c.tracker.intervals(), []);
      assert.deepStrictEqual(c.stats(), before, 'stats unchanged (no interval, no new reason)');
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(1, 300, () => {}), 'recorded');
    });

    it('[0, 1000] at now = 121000 is kept, at 121001 dropped', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 1000);
      c.tracker.add(0, 1000, 'suspend');
      advanceTo(sim, 121000);
      assert.deepStrictEqual(c.tracker.findOverlap(0, 2000), iv(0, 1000, 'suspend'));
      assert.deepStrictEqual(c.tracker.intervals(), [iv(0, 1000, 'suspend')]);
      assert.strictEqual(c.stats().intervals, 1);
      advanceTo(sim, 121001);
      assert.strictEqual(c.tracker.findOverlap(0, 2000), undefined);
      assert.deepStrictEqual(c.tracker.intervals(), []);
      assert.strictEqual(c.stats().intervals, 0);
    });

    it('retention seen by a validator: [0, 1000] discards at 121000, not at 121001', () => {
      const a = fresh();
      advanceTo(a.sim, 1000);
      a.c.tracker.add(0, 1000, 'suspend');
      advanceTo(a.sim, 121000);
      assert.strictEqual(a.c.createValidator({ name: 'v' }).submit(1, 121000, () => {}), 'discarded');
      const b = fresh();
      advanceTo(b.sim, 1000);
      b.c.tracker.add(0, 1000, 'suspend');
      advanceTo(b.sim, 121001);
      assert.strictEqual(b.c.createValidator({ name: 'v' }).submit(1, 121001, () => {}), 'recorded');
    });
  });

  describe('open() and close()', () => {
    it('open() starts at now() and returns close(); the first close sets end = now(), later calls do nothing', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 100);
      const close = c.tracker.open('hidden');
      assert.strictEqual(typeof close, 'function');
      assert.deepStrictEqual(c.tracker.intervals(), [iv(100, Infinity, 'hidden')]);
      advanceTo(sim, 250.5);
      assert.strictEqual(close(), undefined);
      assert.deepStrictEqual(c.tracker.intervals(), [iv(100, 250.5, 'hidden')]);
      advanceTo(sim, 400);
      close();
      close();
      assert.deepStrictEqual(c.tracker.intervals(), [iv(100, 250.5, 'hidden')]);
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000), iv(100, 250.5, 'hidden'));
      // Closed now: a window after the end does not overlap any more.
      assert.strictEqual(c.tracker.findOverlap(250.5, 400), undefined);
    });

    it('closing one interval leaves the others of the same reason open', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 10);
      const a = c.tracker.open('net');
      advanceTo(sim, 20);
      const b = c.tracker.open('net');
      advanceTo(sim, 30);
      b();
      assert.deepStrictEqual(c.tracker.intervals(), [iv(10, Infinity, 'net'), iv(20, 30, 'net')]);
      advanceTo(sim, 40);
      a();
      a();
      b();
      assert.deepStrictEqual(c.tracker.intervals(), [iv(10, 40, 'net'), iv(20, 30, 'net')]);
    });

    it('an open interval is kept past retention until closed, then for retentionMs', () => {
      const { sim, c } = fresh();
      const close = c.tracker.open('pause');
      advanceTo(sim, 500000);
      assert.deepStrictEqual(c.tracker.intervals(), [iv(0, Infinity, 'pause')]);
      assert.deepStrictEqual(c.tracker.findOverlap(400000, 400001), iv(0, Infinity, 'pause'));
      close();
      advanceTo(sim, 620000);
      assert.deepStrictEqual(c.tracker.intervals(), [iv(0, 500000, 'pause')]);
      advanceTo(sim, 620000.5);
      assert.deepStrictEqual(c.tracker.intervals(), []);
    });

    it('custom retentionMs: [0, 1000] kept at 6000, dropped at 6001 with retentionMs 5000', () => {
      const { sim, c } = fresh({ retentionMs: 5000 });
      advanceTo(sim, 1000);
      c.tracker.add(0, 1000, 'throttled');
      advanceTo(sim, 6000);
      assert.deepStrictEqual(c.tracker.findOverlap(0, 2000), iv(0, 1000, 'throttled'));
      assert.strictEqual(c.stats().intervals, 1);
      advanceTo(sim, 6001);
      assert.strictEqual(c.tracker.findOverlap(0, 2000), undefined);
      assert.strictEqual(c.stats().intervals, 0);
    });

    it('retentionMs 0: a closed interval is kept while now <= end', () => {
      const { sim, c } = fresh({ retentionMs: 0 });
      advanceTo(sim, 1000);
      c.tracker.add(0, 1000, 'suspend');
      assert.strictEqual(c.tracker.intervals().length, 1);
      advanceTo(sim, 1000.001);
      assert.deepStrictEqual(c.tracker.intervals(), []);
    });

    it('add() of an interval already past retention keeps nothing', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 200000);
      c.tracker.add(0, 79999, 'suspend');
      assert.deepStrictEqual(c.tracker.intervals(), []);
      c.tracker.add(0, 80000, 'suspend');
      assert.deepStrictEqual(c.tracker.intervals(), [iv(0, 80000, 'suspend')]);
    });
  });

  describe('intervals() and findOverlap()', () => {
    it('returned intervals are plain { start, end, reason } copies; end is Infinity while open', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 100);
      c.tracker.open('hidden');
      c.tracker.add(10, 20, 'suspend');
      const list = c.tracker.intervals();
      assert.ok(Array.isArray(list));
      for (const x of [...list, c.tracker.findOverlap(0, 1000)]) {
        assert.strictEqual(Object.getPrototypeOf(x), Object.prototype);
        assert.deepStrictEqual(Object.keys(x).sort(), ['end', 'reason', 'start']);
        assert.strictEqual(typeof x.start, 'number');
        assert.strictEqual(typeof x.end, 'number');
        assert.strictEqual(typeof x.reason, 'string');
      }
      assert.deepStrictEqual(list, [iv(10, 20, 'suspend'), iv(100, Infinity, 'hidden')]);
      assert.strictEqual(c.tracker.findOverlap(200, 300).end, Infinity);
      // Mutating a returned object changes nothing inside.
      list[0].start = 500;
      list[1].end = 0;
      const found = c.tracker.findOverlap(0, 1000);
      found.reason = 'x';
      assert.deepStrictEqual(c.tracker.intervals(), [iv(10, 20, 'suspend'), iv(100, Infinity, 'hidden')]);
    });

    it('intervals() lists every kept interval by start, ties in order of addition, whatever the reason', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 1000);
      c.tracker.add(300, 400, 'pause');
      c.tracker.add(100, 900, 'hidden');
      c.tracker.add(100, 150, 'suspend');
      c.tracker.add(100, 120, 'custom-a');
      c.tracker.add(50, 60, 'frozen');
      c.tracker.add(300, 300, 'throttled');
      c.tracker.open('custom-a');
      c.tracker.add(1000, 1000, 'hidden');
      assert.deepStrictEqual(c.tracker.intervals(), [
        iv(50, 60, 'frozen'),
        iv(100, 900, 'hidden'),
        iv(100, 150, 'suspend'),
        iv(100, 120, 'custom-a'),
        iv(300, 400, 'pause'),
        iv(300, 300, 'throttled'),
        iv(1000, Infinity, 'custom-a'),
        iv(1000, 1000, 'hidden'),
      ]);
      assert.strictEqual(c.stats().intervals, 8);
    });

    it('findOverlap() returns the earliest start; ties: the earliest added', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 1000);
      c.tracker.add(150, 250, 'frozen');
      c.tracker.add(100, 200, 'hidden');
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000), iv(100, 200, 'hidden'));
      c.tracker.add(100, 300, 'suspend'); // same start, added later
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000), iv(100, 200, 'hidden'));
      c.tracker.add(100, 900, 'hidden'); // same reason, same start, added later
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000), iv(100, 200, 'hidden'));
      // The earliest start that does not overlap is skipped.
      assert.deepStrictEqual(c.tracker.findOverlap(210, 1000), iv(100, 300, 'suspend'));
      assert.deepStrictEqual(c.tracker.findOverlap(300, 1000), iv(100, 900, 'hidden'));
      assert.strictEqual(c.tracker.findOverlap(900, 1000), undefined);
    });

    it('findOverlap() with a reason only looks at that reason', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 1000);
      c.tracker.add(100, 200, 'hidden');
      c.tracker.add(150, 250, 'suspend');
      c.tracker.add(120, 130, 'my.reason_1');
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000, 'suspend'), iv(150, 250, 'suspend'));
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000, 'my.reason_1'), iv(120, 130, 'my.reason_1'));
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000, 'hidden'), iv(100, 200, 'hidden'));
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000), iv(100, 200, 'hidden'));
      assert.strictEqual(c.tracker.findOverlap(300, 400, 'suspend'), undefined);
      assert.strictEqual(c.tracker.findOverlap(0, 1000, 'pause'), undefined);
      assert.strictEqual(c.tracker.findOverlap(210, 240, 'hidden'), undefined);
      assert.strictEqual(c.tracker.findOverlap(0, 1000, 'reason'), undefined);
      // explicit undefined = any reason
      assert.deepStrictEqual(c.tracker.findOverlap(0, 1000, undefined), iv(100, 200, 'hidden'));
    });

    it('a query for a reason never seen finds nothing and registers nothing', () => {
      const { sim, c } = fresh();
      sim.advance(100);
      const before = c.stats();
      assert.strictEqual(c.tracker.findOverlap(0, 100, 'never.seen'), undefined);
      assert.deepStrictEqual(c.stats(), before);
    });

    it('agrees with the reference rule on a seeded random set (closed, open, zero-length, several reasons)', () => {
      const rnd = rng(20240601);
      const { sim, c } = fresh();
      const reasons = ['hidden', 'suspend', 'pause', 'x1', 'x2'];
      const ref = []; // { start, end, reason, seq }
      const open = [];
      let seq = 0;
      for (let step = 0; step < 1500; step++) {
        const r = rnd();
        const now = sim.now();
        if (r < 0.35) {
          const s = Math.round((now - rnd() * 3000) * 4) / 4;
          const len = rnd() < 0.15 ? 0 : Math.round(rnd() * 800 * 4) / 4;
          const reason = reasons[Math.floor(rnd() * reasons.length)];
          c.tracker.add(s, s + len, reason);
          ref.push({ start: s, end: s + len, reason, seq: seq++ });
        } else if (r < 0.45) {
          const reason = reasons[Math.floor(rnd() * reasons.length)];
          const close = c.tracker.open(reason);
          const entry = { start: now, end: Infinity, reason, seq: seq++ };
          ref.push(entry);
          open.push({ close, entry });
        } else if (r < 0.55 && open.length) {
          const k = Math.floor(rnd() * open.length);
          open[k].close();
          open[k].entry.end = now;
          open.splice(k, 1);
        } else if (r < 0.75) {
          sim.advance(Math.round(rnd() * 400 * 4) / 4);
        } else {
          const ws = Math.round((now - rnd() * 4000) * 4) / 4;
          const we = rnd() < 0.5 ? now : Math.round((ws + rnd() * 1000) * 4) / 4;
          const t = sim.now();
          const kept = ref.filter((x) => x.end === Infinity || t <= x.end + 120000);
          const reason = rnd() < 0.3 ? reasons[Math.floor(rnd() * reasons.length)] : undefined;
          const cands = kept.filter((x) => overlaps(x, ws, we) && (reason === undefined || x.reason === reason));
          cands.sort((a, b) => a.start - b.start || a.seq - b.seq);
          const want = cands.length ? iv(cands[0].start, cands[0].end, cands[0].reason) : undefined;
          assert.deepStrictEqual(c.tracker.findOverlap(ws, we, reason), want,
            `step ${step}: findOverlap(${ws}, ${we}, ${reason})`);
        }
        if (step % 100 === 0) {
          const t = sim.now();
          const kept = ref.filter((x) => x.end === Infinity || t <= x.end + 120000)
            .sort((a, b) => a.start - b.start || a.seq - b.seq)
            .map((x) => iv(x.start, x.end, x.reason));
          assert.deepStrictEqual(c.tracker.intervals(), kept, `intervals() at step ${step}`);
        }
      }
    });
  });

  describe('limits', () => {
    it('at most 10000 open intervals: the next open() throws RangeError; closing one makes room', function () {
      const { sim, c } = fresh();
      sim.advance(10);
      const closes = [];
      for (let i = 0; i < 10000; i++) closes.push(c.tracker.open(i % 2 ? 'hidden' : 'net'));
      assert.strictEqual(c.tracker.intervals().length, 10000);
      const before = c.stats();
      let err = null;
      try {
        c.tracker.open('hidden');
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof RangeError, `RangeError, got ${err}`);
      assert.strictEqual(err.code, 'ERR_OUT_OF_RANGE');
      assert.throws(() => c.tracker.open('another-reason'), RangeError);
      assert.deepStrictEqual(c.stats(), before, 'nothing kept, no reason registered');
      assert.strictEqual(c.tracker.intervals().length, 10000);
      // Closed intervals are not limited.
      c.tracker.add(0, 5, 'suspend');
      assert.strictEqual(c.tracker.intervals().length, 10001);
      closes[123]();
      const close = c.tracker.open('pause');
      assert.strictEqual(typeof close, 'function');
      assert.throws(() => c.tracker.open('pause'), RangeError);
    });

    it('the lifecycle intervals do not count against the 10000', () => {
      const { sim, c } = fresh();
      sim.advance(10);
      c.setLifecycleState('frozen'); // opens hidden and frozen
      for (let i = 0; i < 10000; i++) c.tracker.open('net');
      assert.strictEqual(c.tracker.intervals().length, 10002);
      assert.throws(() => c.tracker.open('net'), RangeError);
      // and the lifecycle can still open its intervals with 10000 open
      c.setLifecycleState('active');
      sim.advance(10);
      c.setLifecycleState('frozen');
      assert.strictEqual(c.lifecycle.state, 'frozen');
      const open = c.tracker.intervals().filter((x) => x.end === Infinity && x.reason !== 'net');
      assert.deepStrictEqual(open, [iv(20, Infinity, 'hidden'), iv(20, Infinity, 'frozen')]);
    });

    it('at most 1024 distinct reasons (the built-in ones included); known ones still work', () => {
      const { sim, c } = fresh();
      sim.advance(100);
      for (let i = 0; i < 1024 - BUILTIN_REASONS.length; i++) c.tracker.add(0, 1, `r${i}`);
      assert.strictEqual(Object.keys(c.stats().discarded).length, 1024);
      const before = c.stats();
      const list = c.tracker.intervals();
      for (const f of [() => c.tracker.add(0, 1, 'one-too-many'), () => c.tracker.open('one-too-many')]) {
        let err = null;
        try {
          f();
        } catch (e) {
          err = e;
        }
        assert.ok(err instanceof RangeError, `RangeError, got ${err}`);
        assert.strictEqual(err.code, 'ERR_OUT_OF_RANGE');
      }
      assert.deepStrictEqual(c.stats(), before);
      assert.deepStrictEqual(c.tracker.intervals(), list);
      c.tracker.add(0, 2, 'r7');
      c.tracker.open('suspend');
      assert.strictEqual(c.tracker.intervals().length, list.length + 2);
    });
  });
});
