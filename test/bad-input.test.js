'use strict';
// SPEC §11: every public function validates its arguments (TypeError / RangeError naming the
// argument, nothing counted, nothing changed), and user callbacks cannot break anything.
const assert = require('assert');
const {
  lw, fresh, advanceTo, assertRejects, snapshot, collectStalls, assertConservation,
} = require('./helpers');

const T = TypeError;
const R = RangeError;
const TYPE = 'ERR_INVALID_ARG_TYPE';
const RANGE = 'ERR_OUT_OF_RANGE';

// A conditions with some history, so that "nothing changed" means something.
function busy() {
  const ctx = fresh();
  const { sim, c } = ctx;
  advanceTo(sim, 20000);
  ctx.v = c.createValidator({ name: 'drift' });
  c.tracker.add(1000, 2000, 'suspend');
  c.tracker.open('net');
  ctx.v.submit(3, 10, () => {});
  ctx.v.submit(7000, 7000, () => {}); // held
  c.setLifecycleState('passive');
  return ctx;
}

describe('bad input (SPEC §11)', () => {
  describe('createSimulation', () => {
    it('options not an object -> TypeError naming options', () => {
      for (const bad of [null, 5, 'linux', true]) {
        assertRejects(() => lw.createSimulation(bad), T, TYPE, 'options');
      }
    });

    it('platform: not a string -> TypeError, unknown -> RangeError', () => {
      for (const bad of [5, null, {}, true]) {
        assertRejects(() => lw.createSimulation({ platform: bad }), T, TYPE, 'platform');
      }
      for (const bad of ['beos', '', 'Linux', 'linux ', 'win64', 'x'.repeat(100)]) {
        assertRejects(() => lw.createSimulation({ platform: bad }), R, RANGE, 'platform');
      }
    });

    it('startMs: not a number -> TypeError; negative, NaN, Infinity -> RangeError', () => {
      for (const bad of ['0', null, {}, 1n]) {
        assertRejects(() => lw.createSimulation({ startMs: bad }), T, TYPE, 'startMs');
      }
      for (const bad of [-1, -0.001, NaN, Infinity, -Infinity]) {
        assertRejects(() => lw.createSimulation({ startMs: bad }), R, RANGE, 'startMs');
      }
    });

    it('defaults and valid values work', () => {
      assert.strictEqual(lw.createSimulation().now(), 0);
      assert.strictEqual(lw.createSimulation({}).now(), 0);
      for (const platform of ['linux', 'darwin', 'win32']) {
        assert.strictEqual(lw.createSimulation({ platform, startMs: 1234.5 }).now(), 1234.5);
      }
    });
  });

  describe('sim.advance', () => {
    it('ms: not a number -> TypeError; negative, NaN, Infinity -> RangeError; time unchanged', () => {
      const sim = lw.createSimulation({ startMs: 100 });
      for (const bad of [undefined, '10', null, {}, 10n]) {
        assertRejects(() => sim.advance(bad), T, TYPE, 'ms');
        assert.strictEqual(sim.now(), 100);
      }
      for (const bad of [-1, -0.5, NaN, Infinity, -Infinity]) {
        assertRejects(() => sim.advance(bad), R, RANGE, 'ms');
        assert.strictEqual(sim.now(), 100);
      }
      sim.advance(0);
      assert.strictEqual(sim.now(), 100);
      sim.advance(0.25);
      assert.strictEqual(sim.now(), 100.25);
    });

    // Past about 2^52 ms a double no longer moves by a timer's period: advance(1e308) would never
    // end. The simulated time reaches 1e10 ms (about 116 days) at most, start included.
    it('a time past 1e10 ms: RangeError naming ms (or startMs), at once, nothing run; up to it, exact', () => {
      const sim = lw.createSimulation({ startMs: 100 });
      const m = lw.setupAllMonitors({ clock: sim });
      for (const bad of [1e308, Number.MAX_VALUE, 1e10]) {
        assertRejects(() => sim.advance(bad), R, RANGE, 'ms');
        assert.strictEqual(sim.now(), 100);
      }
      for (const verb of ['block', 'sleep', 'pause', 'stallWorker', 'throttle', 'starve', 'debug']) {
        assertRejects(() => sim[verb](1e308), R, RANGE, 'ms');
      }
      assertRejects(() => sim.stepWall(-1e308), R, RANGE, 'ms');
      assertRejects(() => sim.iteration([['block', 1e308]]), R, RANGE, 'ms');
      assert.strictEqual(sim.now(), 100, 'nothing ran');
      m.stop();
      assertRejects(() => lw.createSimulation({ startMs: 1e308 }), R, RANGE, 'startMs');
      // Near the reach, the monitors run to it exactly, and not a millisecond past it.
      const near = lw.createSimulation({ startMs: 1e10 - 1000 });
      const n = lw.setupAllMonitors({ clock: near });
      near.advance(999.5);
      near.advance(0.5);
      assert.strictEqual(near.now(), 1e10);
      assertRejects(() => near.advance(1), R, RANGE, 'ms');
      assertRejects(() => near.sleep(1), R, RANGE, 'ms');
      near.advance(0);
      assert.strictEqual(n.conditions.stats().monitors.driftLag.recorded, 50, 'driftLag ran to the reach, every 20 ms');
      n.stop();
    });

    it('a rejected advance runs no due work', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      v.submit(7000, 7000, (x) => got.push(x));
      sim.advance(2500); // due work at 22000 runs
      v.submit(7000, 7000, (x) => got.push(x));
      assert.throws(() => sim.advance(NaN), RangeError);
      assert.throws(() => sim.advance(Infinity), RangeError);
      assert.deepStrictEqual(got, [7000]);
      assert.strictEqual(sim.now(), 22500);
    });
  });

  describe('sim.iteration', () => {
    it('steps: not an array of [verb, ms] -> TypeError; another verb or a bad ms -> RangeError; the callback still ends', () => {
      const sim = lw.createSimulation({ startMs: 100 });
      for (const bad of [undefined, null, 5, 'block', {}]) assertRejects(() => sim.iteration(bad), T, TYPE, 'steps');
      assertRejects(() => sim.iteration([5]), T, TYPE, 'steps[0]');
      assertRejects(() => sim.iteration([['block', 5], 'pause']), T, TYPE, 'steps[1]');
      for (const verb of ['advance', 'stallWorker', 'throttle', 'starve', 'callback', 'return', 'nope']) {
        assertRejects(() => sim.iteration([[verb, 5]]), R, RANGE, 'steps[0]');
      }
      assert.strictEqual(sim.now(), 100, 'nothing ran');
      // A bad ms inside the steps is refused by its verb; the steps before it ran, and the
      // callback ended all the same: the simulation goes on.
      assertRejects(() => sim.iteration([['block', 50], ['pause', -1]]), R, RANGE, 'ms');
      assert.strictEqual(sim.now(), 150);
      sim.advance(10);
      sim.iteration([['pause', 5], ['block', 5, 'gc'], ['sleep', 5], ['stepWall', -5]]);
      assert.strictEqual(sim.now(), 170);
    });
  });

  describe('createConditions', () => {
    it('options not an object -> TypeError naming options', () => {
      for (const bad of [null, 5, 'x', true]) assertRejects(() => lw.createConditions(bad), T, TYPE, 'options');
    });

    it('clock that is not a simulation -> TypeError naming clock', () => {
      const sim = lw.createSimulation();
      for (const bad of [null, 5, {}, { now: () => 0, advance() {} }, Object.create(sim), () => 0, 'sim']) {
        assertRejects(() => lw.createConditions({ clock: bad }), T, TYPE, 'clock');
      }
    });

    it('logger without log() -> TypeError naming logger', () => {
      for (const bad of [null, 5, {}, { log: 'x' }, 'console']) {
        assertRejects(() => lw.createConditions({ logger: bad }), T, TYPE, 'logger');
      }
    });

    for (const key of ['stallThresholdMs', 'holdMs', 'episodeDelayMs', 'retentionMs']) {
      it(`${key}: string -> TypeError; negative / NaN${key === 'stallThresholdMs' ? ' / 0' : ' / Infinity'} -> RangeError`, () => {
        const sim = lw.createSimulation();
        for (const bad of ['100', null, {}, 100n]) {
          assertRejects(() => lw.createConditions({ clock: sim, [key]: bad }), T, TYPE, key);
        }
        const ranges = [-1, -0.001, NaN, -Infinity];
        if (key === 'stallThresholdMs') ranges.push(0);
        else ranges.push(Infinity);
        for (const bad of ranges) {
          assertRejects(() => lw.createConditions({ clock: sim, [key]: bad }), R, RANGE, key);
        }
        if (key === 'stallThresholdMs') {
          const c = lw.createConditions({ clock: sim, stallThresholdMs: Infinity });
          sim.advance(10);
          assert.strictEqual(c.createValidator({ name: 'r' }).submit(1e9, 1, () => {}), 'recorded');
        } else {
          lw.createConditions({ clock: sim, [key]: 0.5 });
        }
      });
    }
  });

  describe('createValidator', () => {
    it('missing or non-object options -> TypeError naming options; nothing registered', () => {
      const ctx = busy();
      for (const bad of [undefined, null, 'drift', 5]) {
        assertRejects(() => ctx.c.createValidator(bad), T, TYPE, 'options', ctx);
      }
    });

    it('name not a string -> TypeError naming name', () => {
      const ctx = busy();
      for (const bad of [undefined, null, 5, {}, ['a']]) {
        assertRejects(() => ctx.c.createValidator({ name: bad }), T, TYPE, 'name', ctx);
      }
    });

    it("'' and 65-byte names -> RangeError naming name", () => {
      const ctx = busy();
      for (const bad of ['', 'x'.repeat(65), 'é'.repeat(33), 'a\u0000b'.repeat(1) + 'x'.repeat(62)]) {
        assertRejects(() => ctx.c.createValidator({ name: bad }), R, RANGE, 'name', ctx);
      }
    });

    it('stallThresholdMs: not a number -> TypeError; 0, negative, NaN -> RangeError; Infinity allowed', () => {
      const ctx = busy();
      for (const bad of ['5000', null, {}]) {
        assertRejects(() => ctx.c.createValidator({ name: 'ok', stallThresholdMs: bad }), T, TYPE, 'stallThresholdMs', ctx);
      }
      for (const bad of [0, -1, NaN, -Infinity]) {
        assertRejects(() => ctx.c.createValidator({ name: 'ok', stallThresholdMs: bad }), R, RANGE, 'stallThresholdMs', ctx);
      }
      ctx.c.createValidator({ name: 'ok', stallThresholdMs: Infinity });
      const other = fresh();
      other.sim.advance(10);
      const v = other.c.createValidator({ name: 'ok', stallThresholdMs: Infinity });
      assert.strictEqual(v.submit(1e9, 1, () => {}), 'recorded');
    });
  });

  describe('validator.submit', () => {
    it('value / windowMs: wrong type -> TypeError; NaN, negative, Infinity -> RangeError; nothing counted', () => {
      const ctx = busy();
      const rec = () => assert.fail('record must not be called');
      for (const bad of [undefined, '1', null, {}, 1n, true]) {
        assertRejects(() => ctx.v.submit(bad, 10, rec), T, TYPE, 'value', ctx);
        assertRejects(() => ctx.v.submit(1, bad, rec), T, TYPE, 'windowMs', ctx);
      }
      for (const bad of [NaN, -1, -0.001, Infinity, -Infinity]) {
        assertRejects(() => ctx.v.submit(bad, 10, rec), R, RANGE, 'value', ctx);
        assertRejects(() => ctx.v.submit(1, bad, rec), R, RANGE, 'windowMs', ctx);
        assertRejects(() => ctx.v.submit(7000, bad, rec), R, RANGE, 'windowMs', ctx);
      }
    });

    it('record not a function -> TypeError naming record; nothing counted', () => {
      const ctx = busy();
      for (const bad of [undefined, null, 'fn', 5, {}]) {
        assertRejects(() => ctx.v.submit(1, 10, bad), T, TYPE, 'record', ctx);
        assertRejects(() => ctx.v.submit(7000, 10, bad), T, TYPE, 'record', ctx);
      }
      assertRejects(() => ctx.v.submit(1, 10), T, TYPE, 'record', ctx);
    });

    it('a rejected submit runs no lifecycle reader: no state change, no interval, no event', () => {
      const ctx = busy();
      const events = [];
      ctx.c.on('lifecycle', (e) => events.push(e));
      let calls = 0;
      ctx.c.setLifecycleReader(() => {
        calls++;
        return 'hidden';
      });
      const rec = () => {};
      const bad = [
        ['value', T, TYPE, () => ctx.v.submit('1', 10, rec)],
        ['value', R, RANGE, () => ctx.v.submit(NaN, 10, rec)],
        ['windowMs', R, RANGE, () => ctx.v.submit(1, -1, rec)],
        ['windowMs', T, TYPE, () => ctx.v.submit(1, null, rec)],
        ['record', T, TYPE, () => ctx.v.submit(1, 10, 'x')],
      ];
      for (const [arg, Cls, code, f] of bad) assertRejects(f, Cls, code, arg, ctx);
      assert.strictEqual(ctx.c.lifecycle.state, 'passive');
      assert.deepStrictEqual(events, []);
      assert.strictEqual(calls, 0, 'the reader was not called by a rejected submit');
    });

    it('a disposed validator still rejects bad arguments', () => {
      const ctx = busy();
      ctx.v.dispose();
      assertRejects(() => ctx.v.submit(NaN, 1, () => {}), R, RANGE, 'value', ctx);
      assertRejects(() => ctx.v.submit(1, 1, 5), T, TYPE, 'record', ctx);
    });
  });

  describe('tracker', () => {
    const badReasonTypes = [5, null, {}, true];
    const badReasonValues = ['Bad Reason!', '', 'x'.repeat(65), 'UPPER', 'with space', 'é', 'a/b', 'a\u0000b'];

    it('open(reason): not a string -> TypeError, bad string -> RangeError; nothing opened', () => {
      const ctx = busy();
      for (const bad of badReasonTypes) assertRejects(() => ctx.c.tracker.open(bad), T, TYPE, 'reason', ctx);
      assertRejects(() => ctx.c.tracker.open(), T, TYPE, 'reason', ctx);
      for (const bad of badReasonValues) assertRejects(() => ctx.c.tracker.open(bad), R, RANGE, 'reason', ctx);
      // The edges of the valid set work.
      ctx.c.tracker.open('x'.repeat(64));
      ctx.c.tracker.open('a-z_0.9');
    });

    it('add(start, end, reason): wrong types -> TypeError; NaN / Infinity -> RangeError; bad reason; nothing added', () => {
      const ctx = busy();
      const t = ctx.c.tracker;
      for (const bad of [undefined, '1', null, {}, 1n]) {
        assertRejects(() => t.add(bad, 10, 'suspend'), T, TYPE, 'start', ctx);
        assertRejects(() => t.add(0, bad, 'suspend'), T, TYPE, 'end', ctx);
      }
      for (const bad of [NaN, Infinity, -Infinity]) {
        assertRejects(() => t.add(bad, 10, 'suspend'), R, RANGE, 'start', ctx);
        assertRejects(() => t.add(0, bad, 'suspend'), R, RANGE, 'end', ctx);
      }
      for (const bad of badReasonTypes) assertRejects(() => t.add(0, 10, bad), T, TYPE, 'reason', ctx);
      assertRejects(() => t.add(0, 10), T, TYPE, 'reason', ctx);
      for (const bad of badReasonValues) assertRejects(() => t.add(0, 10, bad), R, RANGE, 'reason', ctx);
      // end < start is ignored, but its arguments are still checked.
      assertRejects(() => t.add(10, 0, 'Bad Reason!'), R, RANGE, 'reason', ctx);
      assertRejects(() => t.add(10, NaN, 'suspend'), R, RANGE, 'end', ctx);
      // negative times are fine (finite)
      t.add(-100, -50, 'suspend');
    });

    it('findOverlap(start, end, reason?): wrong types -> TypeError; NaN -> RangeError; bad reason', () => {
      const ctx = busy();
      const t = ctx.c.tracker;
      for (const bad of [undefined, '1', null, {}]) {
        assertRejects(() => t.findOverlap(bad, 10), T, TYPE, 'start', ctx);
        assertRejects(() => t.findOverlap(0, bad), T, TYPE, 'end', ctx);
      }
      assertRejects(() => t.findOverlap(NaN, 10), R, RANGE, 'start', ctx);
      assertRejects(() => t.findOverlap(0, NaN), R, RANGE, 'end', ctx);
      for (const bad of [5, null, {}, true]) assertRejects(() => t.findOverlap(0, 10, bad), T, TYPE, 'reason', ctx);
      for (const bad of badReasonValues) assertRejects(() => t.findOverlap(0, 10, bad), R, RANGE, 'reason', ctx);
    });
  });

  describe('lifecycle', () => {
    it("setLifecycleState: non-string -> TypeError, unknown ('sleepy') -> RangeError; no change, no event", () => {
      const ctx = busy();
      const events = [];
      ctx.c.on('lifecycle', (e) => events.push(e));
      for (const bad of [undefined, null, 5, {}, true]) {
        assertRejects(() => ctx.c.setLifecycleState(bad), T, TYPE, 'state', ctx);
      }
      for (const bad of ['sleepy', '', 'HIDDEN', 'hidden ', 'activ', 'x'.repeat(100), 'terminatedX']) {
        assertRejects(() => ctx.c.setLifecycleState(bad), R, RANGE, 'state', ctx);
      }
      assert.deepStrictEqual(events, []);
      assert.strictEqual(ctx.c.lifecycle.state, 'passive');
    });

    it('setLifecycleReader: non-function -> TypeError naming reader; the previous reader stays', () => {
      const ctx = busy();
      let calls = 0;
      ctx.c.setLifecycleReader(() => {
        calls++;
        return 'passive';
      });
      for (const bad of [5, 'fn', {}, true]) {
        assertRejects(() => ctx.c.setLifecycleReader(bad), T, TYPE, 'reader', ctx);
      }
      ctx.v.submit(1, 1, () => {});
      assert.strictEqual(calls, 1);
    });
  });

  describe('faults in user callbacks (logged through options.logger, nothing breaks)', () => {
    function oneLog(logs, text) {
      const hits = logs.filter((l) => l.message.includes(text));
      assert.strictEqual(hits.length, 1, `one log line with ${text}: ${JSON.stringify(logs)}`);
      assert.strictEqual(typeof hits[0].level, 'string');
      assert.ok(['error', 'warn'].includes(hits[0].level), `level ${hits[0].level}`);
    }

    it('a throwing record (synchronous): logged, submit returns recorded, counted', () => {
      const { sim, c, logs } = fresh();
      sim.advance(100);
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(3, 1, () => {
        throw new Error('boom-sync-record');
      }), 'recorded');
      oneLog(logs, 'boom-sync-record');
      const s = c.stats();
      assert.strictEqual(s.recorded, 1);
      assert.strictEqual(s.monitors.v.recorded, 1);
      assertConservation(s);
    });

    it('a throwing record (held): logged, the other held samples and the episode still happen', () => {
      const { sim, c, logs } = fresh();
      const stalls = collectStalls(c, sim);
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      v.submit(6000, 6000, () => {
        throw new Error('boom-held-record');
      });
      v.submit(6500, 6000, (x) => got.push([x, sim.now()]));
      sim.advance(1);
      v.submit(7000, 6000, (x) => got.push([x, sim.now()]));
      sim.advance(10000);
      oneLog(logs, 'boom-held-record');
      assert.deepStrictEqual(got, [[6500, 22000], [7000, 22001]]);
      assert.strictEqual(c.stats().recorded, 3);
      assert.strictEqual(stalls.length, 1);
      assert.strictEqual(stalls[0].stall.samples, 3);
      assert.strictEqual(stalls[0].stall.durationMs, 7000);
      assert.strictEqual(stalls[0].at, 24000);
    });

    it("a throwing 'stall' listener: logged, the other listeners and the channel still get it, counted", () => {
      const { sim, c, logs } = fresh();
      const diagnosticsChannel = require('diagnostics_channel');
      const published = [];
      const onMessage = (m) => published.push(m);
      diagnosticsChannel.subscribe('lagwatch:stall', onMessage);
      try {
        const seen = [];
        c.on('stall', () => {
          throw new Error('boom-stall-1');
        });
        c.on('stall', (s) => seen.push(s));
        c.on('stall', () => {
          throw new Error('boom-stall-3');
        });
        c.on('stall', (s) => seen.push(s));
        advanceTo(sim, 20000);
        const v = c.createValidator({ name: 'v' });
        v.submit(6000, 6000, () => {});
        sim.advance(10000);
        assert.strictEqual(sim.now(), 30000);
        assert.strictEqual(seen.length, 2);
        assert.strictEqual(seen[0], seen[1]);
        assert.deepStrictEqual(published, [seen[0]]);
        oneLog(logs, 'boom-stall-1');
        oneLog(logs, 'boom-stall-3');
        assert.deepStrictEqual(c.stats().stalls, { hang: 1, suspend: 0, pause: 0 });
        // Later work still runs.
        const got = [];
        v.submit(6000, 6000, (x) => got.push(x));
        sim.advance(10000);
        assert.deepStrictEqual(got, [6000]);
        assert.strictEqual(seen.length, 4);
      } finally {
        diagnosticsChannel.unsubscribe('lagwatch:stall', onMessage);
      }
    });

    it("a throwing 'stall' listener during dispose(): logged, dispose completes", () => {
      const { sim, c, logs } = fresh();
      const seen = [];
      c.on('stall', () => {
        throw new Error('boom-dispose-stall');
      });
      c.on('stall', (s) => seen.push(s));
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      c.tracker.add(19000, 20000, 'suspend');
      v.submit(6000, 6000, () => {}); // own part 5000: a suspend stall
      v.submit(7000, 500, () => {}); // held: resolved by dispose() as a hang of its own part (6500)
      c.dispose();
      assert.strictEqual(logs.filter((l) => l.message.includes('boom-dispose-stall')).length, 2, 'one log line per event');
      assert.strictEqual(seen.length, 2);
      const s = c.stats();
      assert.strictEqual(s.cancelled, 0);
      assert.strictEqual(s.recorded, 1);
      assert.strictEqual(s.held, 0);
      assert.deepStrictEqual(s.stalls, { hang: 1, suspend: 1, pause: 0 });
    });

    it("a throwing 'lifecycle' listener: logged, the other listeners run, the state changed", () => {
      const { sim, c, logs } = fresh();
      const seen = [];
      c.on('lifecycle', () => {
        throw new Error('boom-lifecycle');
      });
      c.on('lifecycle', (e) => seen.push(e));
      sim.advance(10);
      assert.strictEqual(c.setLifecycleState('hidden'), undefined);
      oneLog(logs, 'boom-lifecycle');
      assert.deepStrictEqual(seen, [{ from: 'active', to: 'hidden' }]);
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 10, end: Infinity, reason: 'hidden' }]);
    });

    it('a throwing lifecycle reader: logged, state unchanged, the sample is still validated and counted', () => {
      const { sim, c, logs } = fresh();
      sim.advance(10);
      c.setLifecycleReader(() => {
        throw new Error('boom-reader');
      });
      const v = c.createValidator({ name: 'v' });
      const got = [];
      assert.strictEqual(v.submit(2, 1, (x) => got.push(x)), 'recorded');
      oneLog(logs, 'boom-reader');
      assert.deepStrictEqual(got, [2]);
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.strictEqual(c.stats().submitted, 1);
      // and on a discard
      c.tracker.add(9, 9.5, 'pause');
      assert.strictEqual(v.submit(2, 5, () => {}), 'discarded');
      assert.strictEqual(c.stats().discarded.pause, 1);
      assert.strictEqual(logs.length, 2);
    });

    it('a throwing logger is ignored', () => {
      const sim = lw.createSimulation();
      let calls = 0;
      const c = lw.createConditions({
        clock: sim,
        logger: {
          log() {
            calls++;
            throw new Error('logger down');
          },
        },
      });
      const stallsSeen = [];
      c.on('stall', () => {
        throw new Error('x');
      });
      c.on('stall', (s) => stallsSeen.push(s));
      c.on('lifecycle', () => {
        throw new Error('y');
      });
      sim.advance(20000);
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(1, 1, () => {
        throw new Error('z');
      }), 'recorded');
      v.submit(6000, 6000, () => {
        throw new Error('w');
      });
      c.setLifecycleState('passive');
      c.setLifecycleReader(() => {
        throw new Error('r');
      });
      v.submit(1, 1, () => {});
      c.setLifecycleReader(() => 'nonsense');
      v.submit(1, 1, () => {});
      sim.advance(10000);
      assert.strictEqual(stallsSeen.length, 1);
      assert.strictEqual(calls, 6); // record z, held w, stall x, lifecycle y, reader r, 'nonsense'
      const s = c.stats();
      assert.strictEqual(s.recorded, 4);
      assert.strictEqual(c.lifecycle.state, 'passive');
    });

    it('without a logger, throwing callbacks are silent and break nothing', () => {
      const sim = lw.createSimulation();
      const c = lw.createConditions({ clock: sim });
      sim.advance(20000);
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(1, 1, () => {
        throw new Error('quiet');
      }), 'recorded');
      v.submit(6000, 6000, () => {
        throw new Error('quiet');
      });
      sim.advance(5000);
      assert.strictEqual(c.stats().recorded, 2);
    });

    it('sim.advance() from inside a callback during advance throws an Error; time is not corrupted', () => {
      const { sim, c, logs } = fresh();
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      const inner = [];
      const order = [];
      v.submit(6000, 6000, () => {
        order.push(['record', sim.now()]);
        try {
          sim.advance(50000);
        } catch (err) {
          inner.push(err);
        }
        order.push(['record after inner advance', sim.now()]);
      });
      sim.advance(100);
      v.submit(6500, 6000, (x) => order.push(['second', x, sim.now()]));
      c.on('stall', () => {
        order.push(['stall', sim.now()]);
        try {
          sim.advance(1);
        } catch (err) {
          inner.push(err);
        }
      });
      sim.advance(1900); // 22000: the first is decided
      assert.strictEqual(sim.now(), 22000);
      sim.advance(3000);
      assert.strictEqual(sim.now(), 25000);
      assert.strictEqual(inner.length, 2);
      for (const err of inner) {
        assert.ok(err instanceof Error);
        assert.ok(!(err instanceof TypeError) && !(err instanceof RangeError), err.message);
      }
      assert.deepStrictEqual(order, [
        ['record', 22000], ['record after inner advance', 22000], ['second', 6500, 22100], ['stall', 24000],
      ]);
      assert.deepStrictEqual(logs, []);
      assert.strictEqual(c.stats().recorded, 2);
      // And the simulation still works afterwards.
      sim.advance(1);
      assert.strictEqual(sim.now(), 25001);
    });

    it('a callback may submit during advance; its sample is handled at the current simulated time', () => {
      const { sim, c } = fresh();
      advanceTo(sim, 20000);
      const v = c.createValidator({ name: 'v' });
      const got = [];
      v.submit(6000, 6000, () => {
        got.push(['outer', sim.now(), v.submit(2, 1, (x) => got.push(['inner', x, sim.now()]))]);
        v.submit(6000, 1, (x) => got.push(['inner-held', x, sim.now()]));
      });
      sim.advance(10000);
      assert.deepStrictEqual(got, [['inner', 2, 22000], ['outer', 22000, 'recorded'], ['inner-held', 6000, 24000]]);
      const s = c.stats();
      assertConservation(s);
      assert.strictEqual(s.recorded, 3);
    });
  });

  describe('unknown option names (SPEC §14: no setting lost in silence)', () => {
    // One rule at every level of every entry point: a RangeError naming the argument, the key and
    // the nearest valid name; nothing is made.
    const { createFakeElectron } = require('./fakes/electron');
    const sim = () => lw.createSimulation();
    const cases = [
      ['setupAllMonitors', () => lw.setupAllMonitors({ clock: sim(), block: true }), 'options', 'block', 'blocks'],
      ['setupAllMonitors', () => lw.setupAllMonitors({ clock: sim(), stack: true }), 'options', 'stack', 'stacks'],
      ['setupAllMonitors', () => lw.setupAllMonitors({ clock: sim(), monitors: { drift: false } }), 'options.monitors', 'drift', 'driftLag'],
      ['setupAllMonitors', () => lw.setupAllMonitors({ clock: sim(), monitors: { driftLag: { interval: 5 } } }),
        'options.monitors.driftLag', 'interval', 'intervalMs'],
      ['setupAllMonitors', () => lw.setupAllMonitors({ clock: sim(), blocks: { threshold: 100 } }), 'options.blocks', 'threshold', 'thresholdMs'],
      ['createConditions', () => lw.createConditions({ clock: sim(), holdMS: 10 }), 'options', 'holdMS', 'holdMs'],
      ['createValidator', () => lw.createConditions({ clock: sim() }).createValidator({ name: 'v', stallTresholdMs: 10 }),
        'options', 'stallTresholdMs', 'stallThresholdMs'],
      ['createSimulation', () => lw.createSimulation({ platfrom: 'linux' }), 'options', 'platfrom', 'platform'],
      ['createMetricProducer', () => lw.createMetricProducer({ temporaliy: 'delta' }), 'options', 'temporaliy', 'temporality'],
      ['attachElectron', () => lw.attachElectron(lw.createConditions({ clock: sim() }),
        { powerMonitor: createFakeElectron().powerMonitor, lockscreen: 'ignore' }), 'options', 'lockscreen', 'lockScreen'],
    ];
    for (const [fn, call, arg, key, near] of cases) {
      it(`${fn}: "${key}" in ${arg} -> RangeError naming it and "${near}"`, () => {
        assert.throws(call, (err) => err instanceof RangeError && err.code === 'ERR_OUT_OF_RANGE' &&
          err.message === `The "${arg}" argument has an unknown option "${key}"; did you mean "${near}"?`);
      });
    }
    it('a key near no valid name lists the valid ones', () => {
      assert.throws(() => lw.createSimulation({ zzzzzzzz: 1 }),
        { name: 'RangeError', message: 'The "options" argument has an unknown option "zzzzzzzz" (valid: platform, startMs, loop)' });
    });
    it('after a throw on the real clock nothing runs: the next setupAllMonitors() is allowed', () => {
      assert.throws(() => lw.setupAllMonitors({ block: true }), RangeError);
      const m = lw.setupAllMonitors({ exitHook: false });
      m.stop();
    });
  });

  describe('option values: one table of the core, one check at every entry point', () => {
    // The core's tables as the binding exports them (names, kinds, ranges, defaults). Each option
    // is given at every entry point that takes it, as a user writes it; a value out of its range
    // is a RangeError and a wrong type a TypeError, each with the same text wherever it is given.
    const native = require('../lib/native');
    const tables = native.optionTables();
    const OUT = {
      ms: [0, -1, NaN, Infinity, -Infinity],
      count: [0, 9, 1.5, NaN],
      boolean: [],
      blockMs: [49, 0, Infinity, NaN],
      rate: [-1, 1.5, 100001, NaN, Infinity],
      threshold: [0, -1, NaN, -Infinity],
      nonnegative: [-1, Infinity, NaN],
    };
    const WRONG = { boolean: [1, 'true', null], number: ['10', true, null, 10n, {}] };
    const sim = () => lw.createSimulation();
    const end = (x) => (x === undefined ? undefined : typeof x.stop === 'function' ? x.stop() : x.dispose());
    // [entry point, call with the value, the name its error gives].
    // (native.optionCheck: one option checked alone, as register checks LAGWATCH_BLOCK_MS.)
    // The option's path in the user's options object: every entry point's error names it so.
    function pathOf(table, name) {
      const head = name.split('.')[0];
      return table === 'monitors' && native.monNames().includes(head) ? `options.monitors.${name}` : `options.${name}`;
    }
    function entries(table, name) {
      return [...userEntries(table, name), ['optionCheck', (v) => native.optionCheck(table, name, v), pathOf(table, name)]];
    }
    function userEntries(table, name) {
      if (table === 'conditions') {
        const out = [
          ['createConditions', (v) => lw.createConditions({ clock: sim(), [name]: v })],
          ['new Conditions', (v) => new lw.Conditions({ clock: sim(), [name]: v })],
          ['setupAllMonitors', (v) => lw.setupAllMonitors({ clock: sim(), [name]: v })],
        ].map(([fn, call]) => [fn, call, `options.${name}`]);
        if (name === 'stallThresholdMs') {
          out.push(['createValidator', (v) => {
            const c = lw.createConditions({ clock: sim() });
            try {
              c.createValidator({ name: 'v', [name]: v });
            } finally {
              c.dispose();
            }
            return c;
          }, `options.${name}`]);
        }
        return out;
      }
      const [head, key] = name.split('.');
      const named = pathOf(table, name);
      if (key === undefined) return [['setupAllMonitors', (v) => lw.setupAllMonitors({ clock: sim(), [head]: v }), named]];
      if (head === 'blocks') return [['setupAllMonitors', (v) => lw.setupAllMonitors({ clock: sim(), blocks: { [key]: v } }), named]];
      return [['setupAllMonitors', (v) => lw.setupAllMonitors({ clock: sim(), monitors: { [head]: { [key]: v } } }), named]];
    }
    const show = (v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? JSON.stringify(v) : String(v));

    it('the tables name the options lib/ takes, each kind with values out of its range here', () => {
      assert.deepStrictEqual(Object.keys(tables), ['conditions', 'monitors']);
      assert.deepStrictEqual(Object.keys(tables.conditions), ['stallThresholdMs', 'holdMs', 'episodeDelayMs', 'retentionMs']);
      assert.ok(Object.keys(tables.monitors).includes('driftLag.intervalMs'));
      for (const t of Object.values(tables)) {
        for (const row of Object.values(t)) assert.ok(OUT[row.kind] !== undefined, `a kind with no values: ${row.kind}`);
      }
    });

    for (const [table, rows] of Object.entries(tables)) {
      for (const [name, row] of Object.entries(rows)) {
        // `blocks` is not given as such: lib/ sets it from the user's `blocks: true | { ... }`.
        if (name === 'blocks') continue;
        for (const [fn, call, named] of entries(table, name)) {
          it(`${fn}: ${name} — its default taken, ${row.range} or a RangeError, a wrong type a TypeError`, () => {
            end(call(row.default));
            for (const v of OUT[row.kind]) {
              assert.throws(() => call(v), (err) => err.constructor === RangeError && err.code === RANGE &&
                err.message === `The "${named}" argument must be ${row.range}`, `${name} = ${show(v)}`);
            }
            const type = row.kind === 'boolean' ? 'boolean' : 'number';
            for (const v of WRONG[type]) {
              assert.throws(() => call(v), (err) => err.constructor === TypeError && err.code === TYPE &&
                err.message === `The "${named}" argument must be of type ${type}`, `${name} = ${show(v)}`);
            }
          });
        }
      }
    }

    it('optionCheck: an unknown table or option is a RangeError naming the argument', () => {
      assert.throws(() => native.optionCheck('nope', 'holdMs', 10), { name: 'RangeError', message: 'The "table" argument must be \'conditions\' or \'monitors\'' });
      assert.throws(() => native.optionCheck('conditions', 'holdMS', 10), { name: 'RangeError', message: 'The "name" argument must be an option of the table' });
      assert.throws(() => native.optionCheck('conditions', 'x'.repeat(200), 10), RangeError);
      assert.throws(() => native.optionCheck(1, 'holdMs', 10), TypeError);
      assert.strictEqual(native.optionCheck('conditions', 'holdMs', 10), undefined);
    });

    it('an unknown option gets the same error from every entry point that takes the same options', () => {
      const messages = [
        () => lw.createConditions({ clock: sim(), holdMS: 10 }),
        () => new lw.Conditions({ clock: sim(), holdMS: 10 }),
        () => lw.setupAllMonitors({ clock: sim(), holdMS: 10 }),
      ].map((call) => {
        try {
          call();
        } catch (err) {
          assert.strictEqual(err.constructor, RangeError);
          assert.strictEqual(err.code, RANGE);
          return err.message;
        }
        return assert.fail('no throw');
      });
      assert.deepStrictEqual(messages, Array(3).fill('The "options" argument has an unknown option "holdMS"; did you mean "holdMs"?'));
    });
  });

  it('snapshot helper sees a change (self-check of the unchanged assertions)', () => {
    const ctx = busy();
    const before = snapshot(ctx);
    ctx.c.tracker.add(5, 6, 'pause');
    assert.notDeepStrictEqual(snapshot(ctx), before);
  });
});
