'use strict';
// SPEC §3: lifecycle states, 'lifecycle' events, the hidden/frozen intervals and the reader.
const assert = require('assert');
const { fresh, advanceTo } = require('./helpers');

function iv(start, end, reason) {
  return { start, end, reason };
}

function watch(c) {
  const events = [];
  c.on('lifecycle', (e) => events.push(e));
  return events;
}

describe('lifecycle (SPEC §3)', () => {
  it('starts active; lifecycle is { state }', () => {
    const { c } = fresh();
    assert.strictEqual(c.lifecycle.state, 'active');
    assert.deepStrictEqual(Object.keys(c.lifecycle), ['state']);
    assert.deepStrictEqual(c.tracker.intervals(), []);
  });

  it('accepts the five states, each change emits { from, to }, an unchanged state emits nothing', () => {
    const { sim, c } = fresh();
    const events = watch(c);
    const seq = ['passive', 'passive', 'hidden', 'frozen', 'frozen', 'hidden', 'active', 'active',
      'terminated', 'terminated', 'active'];
    const want = [];
    let prev = 'active';
    for (const s of seq) {
      sim.advance(10);
      assert.strictEqual(c.setLifecycleState(s), undefined);
      assert.strictEqual(c.lifecycle.state, s);
      if (s !== prev) want.push({ from: prev, to: s });
      prev = s;
    }
    assert.deepStrictEqual(events, want);
    // Setting the initial state again emits nothing either.
    const { c: c2 } = fresh();
    const e2 = watch(c2);
    c2.setLifecycleState('active');
    assert.deepStrictEqual(e2, []);
  });

  it("the 'lifecycle' event is emitted synchronously, after the state changed", () => {
    const { c } = fresh();
    const seen = [];
    c.on('lifecycle', (e) => seen.push([e.from, e.to, c.lifecycle.state]));
    c.setLifecycleState('hidden');
    assert.deepStrictEqual(seen, [['active', 'hidden', 'hidden']]);
  });

  it('hidden is open exactly while hidden or frozen, frozen exactly while frozen (exact ms)', () => {
    const { sim, c } = fresh();
    advanceTo(sim, 1000);
    c.setLifecycleState('passive');
    assert.deepStrictEqual(c.tracker.intervals(), []);
    c.setLifecycleState('hidden');
    assert.deepStrictEqual(c.tracker.intervals(), [iv(1000, Infinity, 'hidden')]);
    advanceTo(sim, 1500);
    c.setLifecycleState('frozen'); // hidden stays open, frozen opens
    assert.deepStrictEqual(c.tracker.intervals(),
      [iv(1000, Infinity, 'hidden'), iv(1500, Infinity, 'frozen')]);
    advanceTo(sim, 2000);
    c.setLifecycleState('hidden'); // closes only frozen
    assert.deepStrictEqual(c.tracker.intervals(),
      [iv(1000, Infinity, 'hidden'), iv(1500, 2000, 'frozen')]);
    advanceTo(sim, 3000);
    c.setLifecycleState('active'); // closes hidden
    assert.deepStrictEqual(c.tracker.intervals(),
      [iv(1000, 3000, 'hidden'), iv(1500, 2000, 'frozen')]);
    advanceTo(sim, 3500);
    c.setLifecycleState('active');
    c.setLifecycleState('passive');
    assert.strictEqual(c.tracker.intervals().length, 2);
  });

  it('active -> frozen opens hidden, then frozen, at the same ms', () => {
    const { sim, c } = fresh();
    advanceTo(sim, 4000);
    c.setLifecycleState('frozen');
    assert.deepStrictEqual(c.tracker.intervals(),
      [iv(4000, Infinity, 'hidden'), iv(4000, Infinity, 'frozen')]);
    // Same start: the first one found is the earliest added, i.e. hidden.
    assert.deepStrictEqual(c.tracker.findOverlap(3000, 5000), iv(4000, Infinity, 'hidden'));
    assert.deepStrictEqual(c.tracker.findOverlap(3000, 5000, 'frozen'), iv(4000, Infinity, 'frozen'));
  });

  for (const to of ['active', 'passive']) {
    it(`frozen -> ${to} closes both at the same ms`, () => {
      const { sim, c } = fresh();
      advanceTo(sim, 100);
      c.setLifecycleState('hidden');
      advanceTo(sim, 200);
      c.setLifecycleState('frozen');
      advanceTo(sim, 350);
      c.setLifecycleState(to);
      assert.deepStrictEqual(c.tracker.intervals(), [iv(100, 350, 'hidden'), iv(200, 350, 'frozen')]);
    });
  }

  it('passive -> frozen opens both; hidden -> passive closes hidden', () => {
    const { sim, c } = fresh();
    c.setLifecycleState('passive');
    advanceTo(sim, 10);
    c.setLifecycleState('frozen');
    advanceTo(sim, 20);
    c.setLifecycleState('hidden');
    advanceTo(sim, 30);
    c.setLifecycleState('passive');
    assert.deepStrictEqual(c.tracker.intervals(), [iv(10, 30, 'hidden'), iv(10, 20, 'frozen')]);
  });

  it('terminated closes the hidden and frozen intervals', () => {
    const a = fresh();
    advanceTo(a.sim, 100);
    a.c.setLifecycleState('frozen');
    advanceTo(a.sim, 700);
    a.c.setLifecycleState('terminated');
    assert.deepStrictEqual(a.c.tracker.intervals(), [iv(100, 700, 'hidden'), iv(100, 700, 'frozen')]);
    const b = fresh();
    advanceTo(b.sim, 100);
    b.c.setLifecycleState('hidden');
    advanceTo(b.sim, 300);
    b.c.setLifecycleState('terminated');
    assert.deepStrictEqual(b.c.tracker.intervals(), [iv(100, 300, 'hidden')]);
    b.c.setLifecycleState('active');
    assert.deepStrictEqual(b.c.tracker.intervals(), [iv(100, 300, 'hidden')]);
  });

  it('a sample over a hidden span is discarded as hidden; the first window after visible again (touching) is recorded', () => {
    const { sim, c } = fresh();
    const v = c.createValidator({ name: 'drift' });
    advanceTo(sim, 1000);
    c.setLifecycleState('hidden');
    advanceTo(sim, 1100);
    c.setLifecycleState('active');
    advanceTo(sim, 1120);
    const got = [];
    assert.strictEqual(v.submit(3, 20, (x) => got.push(x)), 'recorded'); // [1100, 1120] touches
    assert.strictEqual(v.submit(4, 20.5, (x) => got.push(x)), 'discarded'); // [1099.5, 1120]
    assert.deepStrictEqual(got, [3]);
    const s = c.stats();
    assert.strictEqual(s.discarded.hidden, 1);
    assert.strictEqual(s.recorded, 1);
  });

  it('a window over a frozen span is discarded as hidden (opened first, at the same start)', () => {
    const { sim, c } = fresh();
    const v = c.createValidator({ name: 'drift' });
    advanceTo(sim, 1000);
    c.setLifecycleState('frozen');
    advanceTo(sim, 1100);
    c.setLifecycleState('active');
    advanceTo(sim, 1200);
    assert.strictEqual(v.submit(3, 150, () => {}), 'discarded');
    assert.strictEqual(c.stats().discarded.hidden, 1);
    assert.strictEqual(c.stats().discarded.frozen, 0);
  });

  describe('setLifecycleReader', () => {
    it('is read synchronously at every submit, once, and not otherwise', () => {
      const { sim, c } = fresh();
      let calls = 0;
      c.setLifecycleReader(() => {
        calls++;
        return 'active';
      });
      const v = c.createValidator({ name: 'v' });
      sim.advance(5000);
      c.tracker.add(0, 1, 'suspend');
      c.stats();
      c.tracker.intervals();
      assert.strictEqual(calls, 0);
      for (let i = 1; i <= 5; i++) {
        v.submit(1, 1, () => {});
        assert.strictEqual(calls, i);
      }
      v.submit(6000, 1, () => {}); // held
      assert.strictEqual(calls, 6);
      sim.advance(3000); // the held sample is decided: the reader is read at submit only
      assert.strictEqual(calls, 6);
    });

    it('a changed state takes effect at once, before the overlap check', () => {
      const { sim, c } = fresh();
      const events = watch(c);
      let state = 'active';
      c.setLifecycleReader(() => state);
      const v = c.createValidator({ name: 'v' });
      advanceTo(sim, 1000);
      assert.strictEqual(v.submit(3, 5, () => {}), 'recorded');
      advanceTo(sim, 1010);
      state = 'hidden';
      const got = [];
      assert.strictEqual(v.submit(3, 5, (x) => got.push(x)), 'discarded');
      assert.deepStrictEqual(got, []);
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.deepStrictEqual(events, [{ from: 'active', to: 'hidden' }]);
      assert.deepStrictEqual(c.tracker.intervals(), [iv(1010, Infinity, 'hidden')]);
      assert.strictEqual(c.stats().discarded.hidden, 1);
      // Visible again, read at submit: the hidden interval closes at 1030 and this window
      // [1025, 1030] still overlaps it.
      advanceTo(sim, 1030);
      state = 'passive';
      assert.strictEqual(v.submit(3, 5, () => {}), 'discarded');
      assert.deepStrictEqual(c.tracker.intervals(), [iv(1010, 1030, 'hidden')]);
      advanceTo(sim, 1035);
      assert.strictEqual(v.submit(3, 5, () => {}), 'recorded'); // [1030, 1035] touches
      assert.deepStrictEqual(events, [{ from: 'active', to: 'hidden' }, { from: 'hidden', to: 'passive' }]);
    });

    it('a reader that answers the current state changes nothing', () => {
      const { sim, c } = fresh();
      const events = watch(c);
      c.setLifecycleReader(() => 'active');
      const v = c.createValidator({ name: 'v' });
      sim.advance(10);
      assert.strictEqual(v.submit(1, 5, () => {}), 'recorded');
      assert.deepStrictEqual(events, []);
      assert.deepStrictEqual(c.tracker.intervals(), []);
    });

    it('a reader returning an invalid state is logged and ignored', () => {
      const { sim, c, logs } = fresh();
      const events = watch(c);
      const v = c.createValidator({ name: 'v' });
      sim.advance(10);
      const bad = ['sleepy', 42, undefined, null, {}, 'HIDDEN'];
      let i = 0;
      c.setLifecycleReader(() => bad[i]);
      for (; i < bad.length; i++) {
        const got = [];
        assert.strictEqual(v.submit(1, 5, (x) => got.push(x)), 'recorded', `reader answered ${String(bad[i])}`);
        assert.deepStrictEqual(got, [1]);
        assert.strictEqual(logs.length, i + 1, `one log line for ${String(bad[i])}`);
        assert.strictEqual(typeof logs[i].level, 'string');
        assert.strictEqual(typeof logs[i].message, 'string');
      }
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(events, []);
      assert.deepStrictEqual(c.tracker.intervals(), []);
      assert.strictEqual(c.stats().submitted, bad.length);
      assert.strictEqual(c.stats().recorded, bad.length);
      assert.match(logs[0].message, /sleepy/);
    });

    it('setLifecycleReader(null) removes the reader', () => {
      const { sim, c } = fresh();
      let calls = 0;
      c.setLifecycleReader(() => {
        calls++;
        return 'hidden';
      });
      c.setLifecycleReader(null);
      const v = c.createValidator({ name: 'v' });
      sim.advance(10);
      assert.strictEqual(v.submit(1, 5, () => {}), 'recorded');
      assert.strictEqual(calls, 0);
      assert.strictEqual(c.lifecycle.state, 'active');
    });

    it('a new reader replaces the old one', () => {
      const { sim, c } = fresh();
      const calls = [];
      c.setLifecycleReader(() => {
        calls.push('a');
        return 'active';
      });
      c.setLifecycleReader(() => {
        calls.push('b');
        return 'passive';
      });
      const v = c.createValidator({ name: 'v' });
      sim.advance(10);
      v.submit(1, 5, () => {});
      assert.deepStrictEqual(calls, ['b']);
      assert.strictEqual(c.lifecycle.state, 'passive');
    });
  });
});
