'use strict';
// SPEC §4: the SampleValidator, step by step on the simulation, exact to the millisecond.
const assert = require('assert');
const {
  fresh, advanceTo, sumDiscarded, assertConservation, rng, collectStalls, BUILTIN_REASONS,
  MONITOR_KEYS,
} = require('./helpers');

describe('validator (SPEC §4)', () => {
  describe('steps 2 and 3', () => {
    it('a short sample without evidence is recorded synchronously, before submit returns', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 1000);
      const v = c.createValidator({ name: 'drift' });
      const order = [];
      const verdict = v.submit(12.5, 20, (x) => order.push(['record', x, sim.now()]));
      order.push(['returned', verdict]);
      assert.deepStrictEqual(order, [['record', 12.5, 1000], ['returned', 'recorded']]);
      const s = c.stats();
      assert.strictEqual(s.submitted, 1);
      assert.strictEqual(s.recorded, 1);
      assert.strictEqual(s.held, 0);
      assert.strictEqual(sumDiscarded(s.discarded), 0);
    });

    it('value 0 and windowMs 0 are valid', () => {
      const { sim, c } = fresh();
      sim.advance(10);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      assert.strictEqual(v.submit(0, 0, (x) => got.push(x)), 'recorded');
      assert.deepStrictEqual(got, [0]);
    });

    it('a window over an interval is discarded with its reason; record is not called', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 5000);
      const v = c.createValidator({ name: 'drift' });
      c.tracker.add(4000, 4100, 'net.blip');
      c.tracker.add(3000, 3100, 'throttled');
      const got = [];
      assert.strictEqual(v.submit(12, 1000, (x) => got.push(x)), 'discarded');
      assert.strictEqual(v.submit(12, 2000, (x) => got.push(x)), 'discarded');
      assert.strictEqual(v.submit(12, 900, (x) => got.push(x)), 'recorded');
      assert.deepStrictEqual(got, [12]);
      const s = c.stats();
      assert.deepStrictEqual(s.discarded, {
        hidden: 0, frozen: 0, suspend: 0, pause: 0, throttled: 1, debugger: 0, 'net.blip': 1,
      });
      assert.strictEqual(s.monitors.drift.discarded, 2);
      assert.strictEqual(s.monitors.drift.recorded, 1);
    });

    it('stats().discarded has the built-in reasons at 0 from the start, a custom one once seen', () => {
      const { sim, c } = fresh();
      assert.deepStrictEqual(Object.keys(c.stats().discarded).sort(), [...BUILTIN_REASONS].sort());
      for (const r of BUILTIN_REASONS) assert.strictEqual(c.stats().discarded[r], 0);
      sim.advance(100);
      c.tracker.add(10, 20, 'custom');
      assert.strictEqual(c.stats().discarded.custom, 0);
      const v = c.createValidator({ name: 'v' });
      v.submit(1, 95, () => {});
      assert.strictEqual(c.stats().discarded.custom, 1);
      assert.deepStrictEqual(Object.keys(c.stats().discarded).sort(), [...BUILTIN_REASONS, 'custom'].sort());
    });

    it('priority: suspend > pause > others (earliest start among the others)', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 10000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(1000, 9000, 'hidden');
      c.tracker.add(500, 600, 'zzz');
      c.tracker.add(7000, 7100, 'pause');
      c.tracker.add(8000, 8100, 'suspend');
      const s0 = c.stats().discarded;
      v.submit(1, 9500, () => {}); // all four: suspend
      v.submit(1, 2500, () => {}); // hidden, pause, suspend: suspend
      v.submit(1, 2950, () => {}); // [7050, 10000]: hidden, pause, suspend
      v.submit(1, 1950, () => {}); // [8050, 10000]: hidden, suspend -> suspend
      advanceTo(sim, 10000);
      const s1 = c.stats().discarded;
      assert.strictEqual(s1.suspend - s0.suspend, 4);
      c.tracker.add(9990, 9999, 'custom-late');
      // Without suspend in the window: pause first.
      const { sim: sim2, c: c2 } = fresh();
      advanceTo(sim2, 10000);
      const v2 = c2.createValidator({ name: 'v' });
      c2.tracker.add(1000, 9000, 'hidden');
      c2.tracker.add(500, 600, 'zzz');
      c2.tracker.add(7000, 7100, 'pause');
      c2.tracker.add(200, 300, 'frozen');
      v2.submit(1, 9900, () => {}); // [100, 10000]: everything -> pause
      v2.submit(1, 9600, () => {}); // [400, 10000]: zzz, hidden, pause -> pause
      v2.submit(1, 9700, () => {}); // [300, 10000]: hidden, zzz, pause -> pause
      v2.submit(1, 2000, () => {}); // [8000, 10000]: hidden only
      v2.submit(1, 9550, () => {}); // [450, 10000] pause
      c2.tracker.add(0, 10000, 'throttled');
      v2.submit(1, 500, () => {}); // [9500, 10000]: throttled only (hidden ends at 9000)
      v2.submit(1, 2800, () => {}); // [7200, 10000]: throttled (0) before hidden (1000)
      assert.deepStrictEqual(c2.stats().discarded, {
        hidden: 1, frozen: 0, suspend: 0, pause: 4, throttled: 2, debugger: 0, zzz: 0,
      });
      // Others only: the earliest start wins.
      const { sim: sim3, c: c3 } = fresh();
      advanceTo(sim3, 10000);
      const v3 = c3.createValidator({ name: 'v' });
      c3.tracker.add(1000, 9000, 'hidden');
      c3.tracker.add(500, 600, 'zzz');
      c3.tracker.add(200, 300, 'frozen');
      v3.submit(1, 9900, () => {}); // frozen
      v3.submit(1, 9550, () => {}); // zzz
      v3.submit(1, 9300, () => {}); // hidden
      assert.deepStrictEqual(c3.stats().discarded, {
        hidden: 1, frozen: 1, suspend: 0, pause: 0, throttled: 0, debugger: 0, zzz: 1,
      });
    });

    it('the threshold: value < stallThresholdMs is recorded, value >= it is held', () => {
      const { sim, c } = fresh();
      sim.advance(10000);
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(4999.999, 5000, () => {}), 'recorded');
      assert.strictEqual(v.submit(5000, 5000, () => {}), 'held');
    });

    it('a short sample with suspend evidence is discarded and is no stall', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 10000);
      c.tracker.add(9000, 9500, 'suspend');
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(4999, 5000, () => {}), 'discarded');
      sim.advance(20000);
      assert.deepStrictEqual(stalls, []);
      assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 0, pause: 0 });
    });
  });

  describe('step 4: held samples', () => {
    it('held, then recorded at exactly +2000 (not at +1999), record called at that time; hang stall', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'drift' });
      const got = [];
      assert.strictEqual(v.submit(7000, 7000, (x) => got.push([x, sim.now()])), 'held');
      let s = c.stats();
      assert.strictEqual(s.held, 1);
      assert.strictEqual(s.monitors.drift.held, 1);
      assert.strictEqual(s.recorded, 0);
      assertConservation(s);
      sim.advance(1999);
      assert.deepStrictEqual(got, []);
      assert.strictEqual(c.stats().held, 1);
      sim.advance(0.5);
      assert.deepStrictEqual(got, []);
      sim.advance(0.5);
      assert.deepStrictEqual(got, [[7000, 22000]]);
      s = c.stats();
      assert.strictEqual(s.held, 0);
      assert.strictEqual(s.recorded, 1);
      assert.strictEqual(s.monitors.drift.recorded, 1);
      assert.strictEqual(s.monitors.drift.max, 7000);
      assertConservation(s);
      sim.advance(5000);
      assert.strictEqual(stalls.length, 1);
      assert.strictEqual(stalls[0].stall.kind, 'hang');
      assert.strictEqual(stalls[0].stall.durationMs, 7000);
      assert.deepStrictEqual(got.length, 1);
    });

    it('several held samples are decided in order, each at its own +2000', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 20000);
      const a = c.createValidator({ name: 'a' });
      const b = c.createValidator({ name: 'b' });
      const got = [];
      a.submit(6000, 6000, (x) => got.push(['a', x, sim.now()]));
      sim.advance(10.25);
      b.submit(8000, 8000, (x) => got.push(['b', x, sim.now()]));
      sim.advance(500);
      a.submit(9000, 100, (x) => got.push(['a', x, sim.now()]));
      sim.advance(10000);
      assert.deepStrictEqual(got, [['a', 6000, 22000], ['b', 8000, 22010.25], ['a', 9000, 22510.25]]);
    });

    function longSample(evidence, reason = 'suspend') {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'drift' });
      const got = [];
      if (evidence === 'before') c.tracker.add(15000, 19000, reason);
      const verdict = v.submit(6000, 6000, (x) => got.push(x));
      const afterSubmit = c.stats();
      if (evidence === 'after') {
        sim.advance(1500);
        c.tracker.add(15000, 19000, reason);
      }
      sim.advance(10000 - (evidence === 'after' ? 1500 : 0));
      assert.strictEqual(sim.now(), 30000);
      return { verdict, got, stalls, stats: c.stats(), afterSubmit };
    }

    it('held + suspend evidence added 1500 ms later: discarded as suspend, a suspend stall, record never called', () => {
      const r = longSample('after');
      assert.strictEqual(r.verdict, 'held');
      assert.deepStrictEqual(r.got, []);
      assert.strictEqual(r.stats.discarded.suspend, 1);
      assert.strictEqual(r.stats.recorded, 0);
      assert.strictEqual(r.stats.held, 0);
      assertConservation(r.stats);
      assert.strictEqual(r.stalls.length, 1);
      assert.strictEqual(r.stalls[0].stall.kind, 'suspend');
      assert.strictEqual(r.stalls[0].stall.durationMs, 6000);
      assert.strictEqual(r.stalls[0].at, 24000); // stall sample at the end of the hold, +2000
      assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 1, pause: 0 });
    });

    it('the same sample with the evidence before: same counts, same stall kind and count', () => {
      const before = longSample('before');
      const after = longSample('after');
      assert.strictEqual(before.verdict, 'discarded');
      assert.deepStrictEqual(before.got, after.got);
      assert.deepStrictEqual(before.stats, after.stats);
      assert.strictEqual(before.stalls.length, after.stalls.length);
      assert.strictEqual(before.stalls.length, 1);
      const strip = (x) => x.stall;
      assert.deepStrictEqual(before.stalls.map(strip), after.stalls.map(strip));
      assert.strictEqual(before.stalls[0].at, 22000); // stall sample at submit
    });

    it('pause evidence (before or after): discarded as pause, a pause stall', () => {
      for (const when of ['before', 'after']) {
        const r = longSample(when, 'pause');
        assert.deepStrictEqual(r.got, []);
        assert.strictEqual(r.stats.discarded.pause, 1, when);
        assert.strictEqual(r.stalls.length, 1, when);
        assert.strictEqual(r.stalls[0].stall.kind, 'pause', when);
        assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 1 });
      }
    });

    it('hidden-only evidence (before or after): discarded as hidden, no stall', () => {
      for (const when of ['before', 'after']) {
        const r = longSample(when, 'hidden');
        assert.deepStrictEqual(r.got, []);
        assert.strictEqual(r.stats.discarded.hidden, 1, when);
        assert.deepStrictEqual(r.stalls, [], when);
        assert.deepStrictEqual(r.stats.stalls, { hang: 0, suspend: 0, pause: 0 });
        assertConservation(r.stats);
      }
    });

    it('evidence added after the hold ended changes nothing', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      v.submit(6000, 6000, (x) => got.push(x));
      sim.advance(2000);
      c.tracker.add(15000, 19000, 'suspend');
      sim.advance(5000);
      assert.deepStrictEqual(got, [6000]);
      assert.strictEqual(c.stats().discarded.suspend, 0);
      assert.strictEqual(c.stats().recorded, 1);
    });

    it('custom holdMs: decided at exactly +holdMs', () => {
      const { sim, c } = fresh({ holdMs: 500 });
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      assert.strictEqual(v.submit(6000, 6000, (x) => got.push(sim.now())), 'held');
      sim.advance(499);
      assert.deepStrictEqual(got, []);
      sim.advance(1);
      assert.deepStrictEqual(got, [20500]);
    });

    it('custom stallThresholdMs on the conditions and per validator', () => {
      const { sim, c } = fresh({ stallThresholdMs: 1000 });
      sim.advance(20000);
      const a = c.createValidator({ name: 'a' });
      const b = c.createValidator({ name: 'b', stallThresholdMs: 100 });
      const d = c.createValidator({ name: 'd', stallThresholdMs: 8000 });
      assert.strictEqual(a.submit(999, 1000, () => {}), 'recorded');
      assert.strictEqual(a.submit(1000, 1000, () => {}), 'held');
      assert.strictEqual(b.submit(99.5, 100, () => {}), 'recorded');
      assert.strictEqual(b.submit(100, 100, () => {}), 'held');
      assert.strictEqual(d.submit(7999, 8000, () => {}), 'recorded');
      assert.strictEqual(d.submit(8000, 8000, () => {}), 'held');
    });

    it("the validator's threshold decides whether suspend evidence makes a stall", () => {
      const { sim, c } = fresh({ stallThresholdMs: 1000 });
      const stalls = collectStalls(c, sim);
      sim.advance(20000);
      const a = c.createValidator({ name: 'a' });
      const b = c.createValidator({ name: 'b', stallThresholdMs: 100 });
      c.tracker.add(19900, 19960, 'suspend'); // b's own part: 150 - 60 = 90, under its threshold
      assert.strictEqual(b.submit(150, 100, () => {}), 'discarded');
      assert.strictEqual(a.submit(150, 100, () => {}), 'discarded');
      assert.strictEqual(a.submit(999, 100, () => {}), 'discarded');
      sim.advance(10000);
      assert.strictEqual(stalls.length, 1);
      assert.strictEqual(stalls[0].stall.kind, 'suspend');
      assert.deepStrictEqual(stalls[0].stall.monitors, ['b']);
      assert.strictEqual(stalls[0].stall.samples, 1);
      assert.strictEqual(stalls[0].stall.durationMs, 150);
      assert.strictEqual(c.stats().discarded.suspend, 3);
    });

    it('stallThresholdMs: Infinity (ratio validators): never held, never a stall', () => {
      for (const where of ['validator', 'conditions']) {
        const { sim, c } = where === 'conditions' ? fresh({ stallThresholdMs: Infinity }) : fresh();
        const stalls = collectStalls(c, sim);
        sim.advance(20000);
        const v = where === 'conditions'
          ? c.createValidator({ name: 'idle' })
          : c.createValidator({ name: 'idle', stallThresholdMs: Infinity });
        const got = [];
        assert.strictEqual(v.submit(0.75, 1000, (x) => got.push(x)), 'recorded');
        assert.strictEqual(v.submit(1e12, 1000, (x) => got.push(x)), 'recorded');
        c.tracker.add(19500, 19600, 'suspend');
        assert.strictEqual(v.submit(1e12, 1000, (x) => got.push(x)), 'discarded');
        sim.advance(10000);
        assert.deepStrictEqual(got, [0.75, 1e12]);
        assert.deepStrictEqual(stalls, []);
        assert.strictEqual(c.stats().held, 0);
      }
    });
  });

  describe('dispose', () => {
    it('validator.dispose() cancels its held samples (record never called, counted cancelled); submit then returns disposed', () => {
      const { sim, c } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'drift' });
      const other = c.createValidator({ name: 'other' });
      const got = [];
      assert.strictEqual(v.submit(1, 1, (x) => got.push(['v', x])), 'recorded');
      assert.strictEqual(v.submit(7000, 7000, (x) => got.push(['v', x])), 'held');
      sim.advance(100);
      assert.strictEqual(v.submit(8000, 7000, (x) => got.push(['v', x])), 'held');
      assert.strictEqual(other.submit(9000, 100, (x) => got.push(['o', x])), 'held');
      assert.strictEqual(v.dispose(), undefined);
      let s = c.stats();
      assert.strictEqual(s.cancelled, 2);
      assert.strictEqual(s.held, 1);
      assert.strictEqual(s.monitors.drift.cancelled, 2);
      assert.strictEqual(s.monitors.drift.held, 0);
      assert.strictEqual(s.monitors.other.held, 1);
      assertConservation(s);
      const before = c.stats();
      assert.strictEqual(v.submit(1, 1, () => got.push('no')), 'disposed');
      assert.strictEqual(v.submit(9000, 1, () => got.push('no')), 'disposed');
      assert.deepStrictEqual(c.stats(), before, 'a disposed validator counts nothing');
      v.dispose(); // idempotent
      assert.deepStrictEqual(c.stats(), before);
      sim.advance(10000);
      assert.deepStrictEqual(got, [['v', 1], ['o', 9000]]);
      s = c.stats();
      assert.strictEqual(s.cancelled, 2);
      assert.strictEqual(s.recorded, 2);
      assertConservation(s);
      // only the other validator's hang
      assert.strictEqual(stalls.length, 1);
      assert.deepStrictEqual(stalls[0].stall.monitors, ['other']);
    });

    it('a disposed validator does not read the lifecycle reader or change anything ("does nothing")', () => {
      const { sim, c } = fresh();
      sim.advance(100);
      const v = c.createValidator({ name: 'v' });
      v.dispose();
      let calls = 0;
      c.setLifecycleReader(() => {
        calls++;
        return 'hidden';
      });
      assert.strictEqual(v.submit(1, 1, () => {}), 'disposed');
      assert.strictEqual(calls, 0);
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(c.tracker.intervals(), []);
    });

    it('conditions.dispose(): held samples resolved, its validators return disposed; createValidator throws ERR_LAGWATCH_DISPOSED', () => {
      const { sim, c } = fresh();
      sim.advance(20000);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      v.submit(7000, 7000, (x) => got.push(x));
      c.dispose();
      assert.deepStrictEqual(got, [7000], 'resolved by step 4: no evidence, recorded');
      const s = c.stats();
      assert.strictEqual(s.cancelled, 0);
      assert.strictEqual(s.held, 0);
      assert.strictEqual(v.submit(1, 1, (x) => got.push(x)), 'disposed');
      assert.deepStrictEqual(c.stats(), s);
      let err = null;
      try {
        c.createValidator({ name: 'late' });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof Error, 'an Error');
      assert.strictEqual(err.code, 'ERR_LAGWATCH_DISPOSED');
      assert.deepStrictEqual(c.stats(), s, 'no monitor entry for the refused validator');
      c.dispose(); // idempotent
      sim.advance(10000);
      assert.deepStrictEqual(got, [7000]);
      assert.deepStrictEqual(c.stats(), s);
    });
  });

  describe('names and stats().monitors', () => {
    it('monitors[name] = { submitted, recorded, discarded, held, cancelled, min, max, mean, p50, p99 }, null stats until something is recorded', () => {
      const { sim, c } = fresh();
      sim.advance(10000);
      assert.deepStrictEqual(c.stats().monitors, {});
      const v = c.createValidator({ name: 'loopBlock' });
      assert.deepStrictEqual(c.stats().monitors, {
        loopBlock: {
          submitted: 0, recorded: 0, discarded: 0, held: 0, cancelled: 0,
          min: null, max: null, mean: null, p50: null, p99: null,
        },
      });
      c.tracker.add(9000, 9100, 'hidden');
      v.submit(3, 5000, () => {});
      assert.deepStrictEqual(c.stats().monitors.loopBlock, {
        submitted: 1, recorded: 0, discarded: 1, held: 0, cancelled: 0,
        min: null, max: null, mean: null, p50: null, p99: null,
      });
      v.submit(4, 10, () => {});
      v.submit(8, 10, () => {});
      const m = c.stats().monitors.loopBlock;
      assert.deepStrictEqual(Object.keys(m).sort(), MONITOR_KEYS);
      assert.strictEqual(m.submitted, 3);
      assert.strictEqual(m.recorded, 2);
      assert.strictEqual(m.min, 4);
      assert.strictEqual(m.max, 8);
      assert.strictEqual(m.mean, 6);
      assert.ok(Math.abs(m.p50 - 4) <= 0.08, `p50 ${m.p50}`);
      assert.ok(Math.abs(m.p99 - 8) <= 0.16, `p99 ${m.p99}`);
    });

    it('validators with the same name share one entry; other names are separate', () => {
      const { sim, c } = fresh();
      sim.advance(10000);
      const a1 = c.createValidator({ name: 'drift' });
      const a2 = c.createValidator({ name: 'drift', stallThresholdMs: 100 });
      const b = c.createValidator({ name: 'macro' });
      a1.submit(10, 10, () => {});
      a2.submit(20, 10, () => {});
      a2.submit(200, 10, () => {}); // held (threshold 100)
      b.submit(30, 10, () => {});
      const s = c.stats();
      assert.deepStrictEqual(Object.keys(s.monitors).sort(), ['drift', 'macro']);
      assert.strictEqual(s.monitors.drift.submitted, 3);
      assert.strictEqual(s.monitors.drift.recorded, 2);
      assert.strictEqual(s.monitors.drift.held, 1);
      assert.strictEqual(s.monitors.drift.mean, 15);
      assert.strictEqual(s.monitors.macro.submitted, 1);
      assert.strictEqual(s.monitors.macro.min, 30);
      a1.dispose(); // a2's held sample is not a1's
      assert.strictEqual(c.stats().monitors.drift.cancelled, 0);
      sim.advance(3000);
      assert.strictEqual(c.stats().monitors.drift.recorded, 3);
      assert.strictEqual(c.stats().monitors.drift.max, 200);
    });

    it('names are 1 to 64 bytes (UTF-8)', () => {
      const { c } = fresh();
      c.createValidator({ name: 'x' });
      c.createValidator({ name: 'x'.repeat(64) });
      c.createValidator({ name: 'é'.repeat(32) }); // 64 bytes
      c.createValidator({ name: 'Any name: with spaces / and UPPER' });
      assert.deepStrictEqual(Object.keys(c.stats().monitors).sort(),
        ['Any name: with spaces / and UPPER', 'x', 'x'.repeat(64), 'é'.repeat(32)].sort());
      assert.throws(() => c.createValidator({ name: 'é'.repeat(33) }), RangeError); // 66 bytes
      assert.throws(() => c.createValidator({ name: 'x'.repeat(65) }), RangeError);
      assert.throws(() => c.createValidator({ name: '' }), RangeError);
      assert.strictEqual(Object.keys(c.stats().monitors).length, 4);
    });

    it('a validator keeps its name; held samples count under it', () => {
      const { c } = fresh();
      const v = c.createValidator({ name: 'worker' });
      assert.strictEqual(v.name, 'worker');
    });

    it('min/max/mean exact, p50/p99 within 2% (seeded distribution, held samples included)', () => {
      const rnd = rng(99);
      const { sim, c } = fresh();
      sim.advance(10000);
      const v = c.createValidator({ name: 'lat' });
      const values = [];
      for (let i = 0; i < 5000; i++) {
        // log-uniform from 0.05 ms to 7000 ms: some are held and recorded later
        const x = Math.exp(Math.log(0.05) + rnd() * (Math.log(7000) - Math.log(0.05)));
        values.push(x);
        v.submit(x, 1, () => {});
        sim.advance(0.1);
      }
      // Discarded samples do not count in the distribution.
      c.tracker.add(sim.now() - 1, sim.now(), 'hidden');
      v.submit(1e6, 1, () => {});
      v.submit(1e-6, 1, () => {});
      sim.advance(3000);
      const m = c.stats().monitors.lat;
      assert.strictEqual(m.recorded, 5000);
      assert.strictEqual(m.discarded, 2);
      const sorted = [...values].sort((a, b) => a - b);
      assert.strictEqual(m.min, sorted[0]);
      assert.strictEqual(m.max, sorted[sorted.length - 1]);
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      assert.ok(Math.abs(m.mean - mean) <= 1e-9 * mean, `mean ${m.mean} vs ${mean}`);
      const q = (p) => sorted[Math.ceil(p * sorted.length) - 1];
      for (const [key, p] of [['p50', 0.5], ['p99', 0.99]]) {
        const want = q(p);
        assert.ok(Math.abs(m[key] - want) <= 0.02 * want, `${key} ${m[key]} vs ${want}`);
      }
    });

    it('p50/p99 of a uniform 1..1000 ms set within 2%', () => {
      const { sim, c } = fresh();
      sim.advance(10000);
      const v = c.createValidator({ name: 'u' });
      for (let i = 1000; i >= 1; i--) v.submit(i, 1, () => {});
      const m = c.stats().monitors.u;
      assert.strictEqual(m.min, 1);
      assert.strictEqual(m.max, 1000);
      assert.strictEqual(m.mean, 500.5);
      assert.ok(Math.abs(m.p50 - 500) <= 10, `p50 ${m.p50}`);
      assert.ok(Math.abs(m.p99 - 990) <= 19.8, `p99 ${m.p99}`);
    });
  });

  // SPEC §5's own part, modelled here: 1 if every interval overlapping [ws, we] is a stop
  // (suspend, pause, debugger) and the value less the time they cover inside the window passes
  // the threshold.
  function ownPasses(c, ws, we, value, th) {
    if (!(value >= th)) return false;
    const over = c.tracker.intervals().filter((iv) => (iv.end === Infinity ? we >= iv.start
      : iv.start < we && iv.end > ws) || (iv.start === iv.end && ws < iv.start && iv.start < we));
    if (over.length === 0 || over.some((iv) => !['suspend', 'pause', 'debugger'].includes(iv.reason))) return false;
    const seg = over.map((iv) => [Math.max(iv.start, ws), Math.min(iv.end, we)]).filter(([a, b]) => b > a)
      .sort((x, y) => x[0] - y[0]);
    let covered = 0;
    let cs = 0;
    let ce = -Infinity;
    for (const [a, b] of seg) {
      if (a > ce) {
        if (ce > -Infinity) covered += ce - cs;
        cs = a;
        ce = b;
      } else if (b > ce) ce = b;
    }
    if (ce > -Infinity) covered += ce - cs;
    return value - covered > th;
  }

  describe('conservation', () => {
    it('submitted = recorded + discarded + held + cancelled after every step of a seeded random run', function () {
      this.timeout(60000);
      const rnd = rng(4242);
      const { sim, c } = fresh();
      sim.advance(20000);
      const names = ['drift', 'macro', 'drift', 'worker'];
      const thresholds = [undefined, 1000, 300, Infinity];
      const make = (k) => c.createValidator({ name: names[k], stallThresholdMs: thresholds[k] });
      const vs = names.map((_, k) => make(k));
      const reasons = ['suspend', 'pause', 'hidden', 'throttled', 'net.blip'];
      const states = ['active', 'passive', 'hidden', 'frozen', 'active', 'active', 'passive', 'active'];
      const opened = [];
      let submitted = 0;
      let syncRecorded = 0;
      let lateRecorded = 0;
      let disposing = false;
      let submits = 0;
      const holdMs = 2000;
      for (let step = 0; step < 12000; step++) {
        const r = rnd();
        const now = sim.now();
        if (r < 0.55) {
          const k = Math.floor(rnd() * vs.length);
          const v = vs[k];
          const value = rnd() < 0.12 ? 300 + rnd() * 9000 : rnd() * 400;
          const windowMs = rnd() < 0.1 ? 0 : rnd() * 6000;
          const ws = now - windowMs;
          const want = c.tracker.findOverlap(ws, now, 'suspend') || c.tracker.findOverlap(ws, now, 'pause') ||
            c.tracker.findOverlap(ws, now);
          const before = c.stats();
          let inside = true;
          let syncCall = false;
          const due = now + holdMs;
          const th = thresholds[k] === undefined ? 5000 : thresholds[k];
          const own = want && ownPasses(c, ws, now, value, th);
          const verdict = v.submit(value, windowMs, (x) => {
            if (inside) assert.strictEqual(x, value);
            else assert.ok(x <= value, 'recorded late: the value or its own part');
            if (inside) {
              syncCall = true;
              return;
            }
            // A held sample is recorded at exactly its due time (or by dispose(), earlier), with no
            // evidence over its window.
            if (!disposing) assert.strictEqual(sim.now(), due, 'decided at +holdMs');
            if (!ownPasses(c, ws, now, value, th)) {
              assert.strictEqual(x, value);
              assert.strictEqual(c.tracker.findOverlap(ws, now), undefined, 'no evidence when recorded late');
            }
            lateRecorded++;
          });
          inside = false;
          submits++;
          if (verdict === 'disposed') {
            assert.deepStrictEqual(c.stats(), before);
          } else {
            submitted++;
            const after = c.stats();
            if (want && !own) {
              assert.strictEqual(verdict, 'discarded', `step ${step}`);
              assert.strictEqual(after.discarded[want.reason], before.discarded[want.reason] + 1);
            } else if (value < th) {
              assert.strictEqual(verdict, 'recorded', `step ${step}`);
              assert.ok(syncCall, 'record called before submit returned');
              syncRecorded++;
            } else {
              assert.strictEqual(verdict, 'held', `step ${step}`);
              assert.strictEqual(after.held, before.held + 1);
            }
          }
        } else if (r < 0.565) {
          const s = now - rnd() * 5000;
          c.tracker.add(s, s + (rnd() - 0.1) * 1500, reasons[Math.floor(rnd() * reasons.length)]);
        } else if (r < 0.568) {
          if (opened.length < 3) opened.push(c.tracker.open(reasons[Math.floor(rnd() * reasons.length)]));
        } else if (r < 0.6) {
          if (opened.length) opened.splice(Math.floor(rnd() * opened.length), 1)[0]();
        } else if (r < 0.603) {
          c.setLifecycleState(states[Math.floor(rnd() * states.length)]);
        } else if (r < 0.6045) {
          const k = Math.floor(rnd() * vs.length);
          vs[k].dispose();
          if (rnd() < 0.7) vs[k] = make(k);
        } else {
          sim.advance(rnd() < 0.05 ? rnd() * 5000 : rnd() * 60);
        }
        const s = c.stats();
        assertConservation(s, `at step ${step}`);
        assert.strictEqual(s.submitted, submitted);
        assert.strictEqual(s.recorded, syncRecorded + lateRecorded);
      }
      assert.ok(submits > 5000, `${submits} submits`);
      const s = c.stats();
      assert.ok(s.held + s.cancelled > 0 && sumDiscarded(s.discarded) > 100 && s.recorded > 1000,
        `a run that exercises every path: ${JSON.stringify(s)}`);
      disposing = true;
      c.dispose();
      const end = c.stats();
      assertConservation(end, 'after dispose');
      assert.strictEqual(end.held, 0);
      sim.advance(10000);
      const later = c.stats();
      delete later.intervals; // retention goes on
      delete end.intervals;
      assert.deepStrictEqual(later, end);
      assert.strictEqual(end.recorded, syncRecorded + lateRecorded);
    });
  });
});
