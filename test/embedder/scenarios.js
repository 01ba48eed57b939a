'use strict';
// SPEC §6, embedded loops, proven in a real embedder: test/embedder/embedder.cc runs Node
// (Debian's libnode 18) the way Electron does — an embed thread polls libuv's backend fd and
// posts one UV_RUN_NOWAIT iteration at a time to a task queue standing in for Chromium's — and
// lets this test post plain "Chromium" tasks that busy-wait with no uv iteration. Both process
// variants (Electron's main process, process.type 'browser', and a renderer) run the same
// scenarios, each in one embedder process, each from a file of its own
// (test/embedder-main.test.js, test/embedder-renderer.test.js: npm test's parallel mocha runs
// them side by side). The fixture runs with a stall threshold of 2 s (THRESHOLD_MS): its hang
// and its stop are a second above it, its task with a stop inside below it.
//   idle 10 s            loop recognised as embedded; loopBlock sums to the thread's own time, idleAvailability
//                        near 1; nothing stalls, jumps or is discarded
//   300 ms Chromium task about 300 ms of loopBlock
//   3 s Chromium task    exactly one hang episode and one workerHang, ~3 s each
//   App Nap              the embed thread's wake-ups held to whole seconds for 10 s: a
//                        throttled interval opens, driftLag's late samples are discarded, no hang
//   SIGSTOP 3 s          exactly one pause episode, no hang
//   SIGSTOP in a task    1 s inside a 1.6 s Chromium task: no monitor records it as lag
//   hidden, 3 s task     the main process keeps its worker thread: one workerHang; a renderer
//                        pauses it (SPEC §6, paused while hidden): none
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { Fixture, sleep, assertBetween, watchMachine } = require('../e2e/helpers');

const DIR = __dirname;
const EMBEDDER = path.join(DIR, 'out', 'embedder');
// The fixture's stallThresholdMs, and the length of its hangs and stops at or above it.
const THRESHOLD_MS = 2000;
const HANG_MS = 3000;
// How long the idle scenario lasts.
const IDLE_MS = 10000;

// The embedder as a fixture of the e2e helpers: JSON lines on stdout, commands on stdin. Marks
// and reports carry a sequence number, so that each wait finds its own line.
class Embedder extends Fixture {
  constructor(type) {
    // Under npm test's sanitizer step the embedder inherits the ASan runtime and addon (it loads
    // the same lagwatch.node through LAGWATCH_ADDON), so the addon runs under ASan inside the
    // embedded loop too.
    super(`embedder ${type}`, [type, path.join(DIR, 'fixture.js'), THRESHOLD_MS], {
      command: EMBEDDER, env: { ASAN_OPTIONS: 'detect_leaks=0' }, killAfterMs: 170000,
    });
    this.seq = 0;
  }

  async mark() {
    const seq = ++this.seq;
    this.send(`js mark(${seq})`);
    await this.waitFor('marked', 20000, (m) => m.seq === seq);
  }

  async report(tag) {
    const seq = ++this.seq;
    this.send(`js report(${JSON.stringify(tag)}, ${seq})`);
    return this.waitFor('report', 20000, (m) => m.seq === seq);
  }
}

const noStalls = (r, why) => assert.deepStrictEqual(r.events.stall, [], `${why}: ${JSON.stringify(r.events.stall)}`);

// The scenarios for one process type ('browser' or 'renderer'), as a mocha describe.
function describeEmbedder(type) {
  describe(`embedded loop, Electron's way (${type === 'browser' ? 'main process' : 'renderer'}, real embedder on libnode)`, function () {
    this.timeout(180000);
    let e = null;
    let machine = null;
    const figures = {};
    const epoch = () => performance.timeOrigin + performance.now();

    before(async () => {
      assert.ok(fs.existsSync(EMBEDDER),
        `${EMBEDDER} is missing: build it with \`make -C test/embedder\` (it downloads Debian's libnode; .ci/run does it)`);
      e = new Embedder(type);
      await e.waitFor('ready', 20000);
      machine = await watchMachine();
      await sleep(2000); // the first iterations show the loop model
    });

    after(async () => {
      if (machine !== null) machine.stop();
      if (e === null) return;
      e.send('quit');
      const exit = await e.waitExit(10000);
      if (process.env.LAGWATCH_EMBEDDER_FIGURES) console.log(`      figures (${type}): ${JSON.stringify(figures)}`);
      assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null },
        `the embedder exits cleanly: ${e.describe()}`);
    });

    // loopBlock must not count the time the embedder's message loop waits: with that bug every
    // idle sample was ~20 ms and their sum the whole window. What an idle loop's samples can add
    // up to is what its thread did, which the kernel counts (on a CPU, or waiting for one), so
    // that bound holds on a loaded host too; a tail quantile does not (under ASan on a busy CI host
    // the p99 once read 2.2 ms: a long iteration there is real lag, not the bug), so only the
    // median is held to a fixed 2 ms. Ten seconds hold over 500 iterations (driftLag's 20 ms timer
    // alone wakes the loop 50 times a second) and ten idleAvailability periods.
    it(`idle ${IDLE_MS / 1000} s: recognised as embedded; loopBlock sums to no more than the thread's own time, median < 2 ms, idleAvailability > 0.97 less its waits for a CPU; nothing stalls, jumps or is discarded`, async () => {
      const from = epoch();
      await e.mark();
      await sleep(IDLE_MS);
      const r = await e.report('idle');
      const stops = machine.count(from, epoch());
      assert.strictEqual(r.processType, type);
      assert.strictEqual(r.loop, 'embedded');
      assert.ok(r.loopBlock.n > IDLE_MS / 30, `loopBlock samples: ${r.loopBlock.n}`);
      const threadMs = r.thread.runMs + r.thread.waitMs;
      assert.ok(r.loopBlock.sum <= threadMs * 1.05 + 5,
        `idle loopBlock samples sum to ${r.loopBlock.sum} ms over ${r.loopBlock.n} samples, the main thread ran ${r.thread.runMs} ms and waited ${r.thread.waitMs} ms for a CPU (the message loop's waits counted would make ~${IDLE_MS} ms)`);
      assert.ok(r.loopBlock.p50 < 2, `idle loopBlock median ${r.loopBlock.p50} ms (it was ~20 ms, the time spent in the message loop)`);
      // The thread's waits for a CPU are time unavailable to its loop, as in Node's (0.985 beside
      // four busy processes, 325 ms of them in 30 s): the bound gives them back.
      const floor = 0.97 - r.thread.waitMs / IDLE_MS;
      assert.ok(r.idleAvailability.mean > floor, `idleAvailability ${r.idleAvailability.mean}, not above ${floor.toFixed(4)} (it was ~0)`);
      noStalls(r, 'idle');
      assert.deepStrictEqual(r.events.jump, []);
      assert.deepStrictEqual(r.events.workerHang, []);
      // Nothing is discarded, but where the machine itself stopped (the host holding this VM's
      // CPUs back while both are busy): that is a pause, rightly, and discards a few samples of
      // the monitors whose intervals it overlaps.
      const { pause, ...others } = r.stats.discarded;
      const why = `discarded ${JSON.stringify(r.stats.discarded)}; ${machine.describe()}`;
      assert.strictEqual(Object.values(others).reduce((a, b) => a + b, 0), 0, why);
      assert.ok(pause <= 6 * stops, why);
      figures.idle = { loopBlockP50: r.loopBlock.p50, loopBlockP99: r.loopBlock.p99, loopBlockSum: r.loopBlock.sum, n: r.loopBlock.n, thread: r.thread, idleAvailability: r.idleAvailability.mean };
    });

    // A task's sample is the task's busy wait (wall time) and the rest of the thread's time it
    // was unavailable to its loop; on a loaded host that includes the thread's waits for a CPU
    // around the task, which the kernel counts (thread.waitMs since the mark): each upper bound
    // takes them in, the lower ones are what the task itself lasted.
    it('a 300 ms Chromium task (no uv iteration) is about 300 ms of loopBlock', async () => {
      await e.mark();
      e.send('busy 300');
      await sleep(1500);
      const r = await e.report('busy300');
      assertBetween(r.loopBlock.max, 250, 400 + r.thread.waitMs, `loopBlock of the 300 ms task (run-queue delay ${r.thread.waitMs.toFixed(1)} ms)`);
      noStalls(r, '300 ms');
      figures.busy300 = r.loopBlock.max;
    });

    it(`a ${HANG_MS / 1000} s Chromium task (stallThresholdMs ${THRESHOLD_MS}): exactly one hang episode and one workerHang, ~${HANG_MS / 1000} s each`, async () => {
      const from = epoch();
      await e.mark();
      e.send(`busy ${HANG_MS}`);
      await sleep(HANG_MS + 4000); // the task's samples held (holdMs, 2 s), then its episode
      const r = await e.report('busyHang');
      // The machine's own stops in the task are a pause, not the app's: taken out of the hang;
      // a sample they fall in is the stop's (a pause episode), and only then.
      const to = epoch();
      const stoppedMs = machine.ms(from, to);
      const hangs = r.events.stall.filter((s) => s.kind === 'hang');
      const others = r.events.stall.filter((s) => s.kind !== 'hang');
      assert.strictEqual(hangs.length, 1, JSON.stringify(r.events.stall));
      assert.ok(others.every((s) => s.kind === 'pause') && (others.length === 0 || machine.count(from, to) > 0),
        `${JSON.stringify(others)}; ${machine.describe()}`);
      // The worker's check is due a threshold after the last progress: late by the worker
      // thread's wait for a CPU at most (r.worker.waitMs), and its end seen by the main thread's.
      const mainWait = r.thread.waitMs;
      const workerWait = r.worker ? r.worker.waitMs : 0;
      const load = `run-queue delay since the mark: main ${mainWait.toFixed(1)} ms, worker ${workerWait.toFixed(1)} ms; ${machine.describe()}`;
      assertBetween(hangs[0].durationMs, HANG_MS - 100 - stoppedMs, HANG_MS + 100 + mainWait, `hang episode durationMs (${load})`);
      assert.strictEqual(r.events.workerHang.length, 1, JSON.stringify(r.events.workerHang));
      const h = r.events.workerHang[0];
      assertBetween(h.durationMs, HANG_MS - 100 - stoppedMs, HANG_MS + 100 + mainWait + workerWait, `workerHang durationMs (${load})`);
      assertBetween(h.detectedAt - h.start, THRESHOLD_MS - 10, THRESHOLD_MS + 100 + workerWait, `hang flagged after (${load})`);
      figures.hangFlaggedAfter = h.detectedAt - h.start;
    });

    it('App Nap (wake-ups held to whole seconds for 10 s): a throttled interval, late samples discarded, no hang', async () => {
      await e.mark();
      e.send('coalesce 1000');
      await sleep(10000);
      e.send('coalesce 0');
      await sleep(1500);
      const r = await e.report('appnap');
      const throttled = r.intervals.filter((i) => i.reason === 'throttled');
      assert.ok(throttled.length >= 1, `a throttled interval: ${JSON.stringify(r.intervals)}`);
      assert.ok(r.stats.discarded.throttled > 0, JSON.stringify(r.stats.discarded));
      noStalls(r, 'App Nap');
      assert.deepStrictEqual(r.events.workerHang, []);
    });

    it(`SIGSTOP ${HANG_MS / 1000} s (stallThresholdMs ${THRESHOLD_MS}): exactly one pause episode, no hang`, async () => {
      await e.mark();
      await sleep(300);
      e.signal('SIGSTOP');
      await sleep(HANG_MS);
      e.signal('SIGCONT');
      await sleep(5000); // a sample over the stop held (holdMs, 2 s), then its episode (2 s)
      const r = await e.report('sigstop');
      assert.strictEqual(r.events.stall.length, 1, JSON.stringify(r.events.stall));
      assert.strictEqual(r.events.stall[0].kind, 'pause');
      assert.deepStrictEqual(r.events.workerHang, []);
    });

    // No stop of a second or more is any monitor's lag, wherever it lands: here inside a Chromium
    // task, outside any uv iteration (the SIGCONT that ends it, and the worker's lateness, are
    // the evidence; the task's sample over the stop meets it before it is judged). The task, its
    // stop included, lasts less than the threshold: its samples are judged at once, none is a stall
    // sample.
    const STOP_MS = 1000;
    it(`SIGSTOP ${STOP_MS / 1000} s inside a 1.6 s Chromium task (stallThresholdMs ${THRESHOLD_MS}): no monitor records the stop as lag, no episode`, async () => {
      await e.mark();
      const pausesBefore = (await e.report('stop-in-task-before')).stats.discarded.pause;
      e.send('busy 1600');
      await sleep(300);
      e.signal('SIGSTOP');
      await sleep(STOP_MS);
      e.signal('SIGCONT');
      await sleep(3000); // the samples over the stop, judged at once (under the threshold)
      const r = await e.report('stop-in-task');
      const why = `loopBlock ${JSON.stringify(r.loopBlock)}, driftLag ${JSON.stringify(r.driftLag)}, discarded ${JSON.stringify(r.stats.discarded)}`;
      assert.ok(!(r.loopBlock.max >= 0.75 * STOP_MS), `loopBlock: no lag of the stop recorded: ${why}`);
      assert.ok(!(r.driftLag.max >= 0.75 * STOP_MS), `driftLag: no lag of the stop recorded: ${why}`);
      assert.ok(r.stats.discarded.pause > pausesBefore, `the task's samples discarded as pause: ${why}`);
      noStalls(r, 'a 1 s stop in a task');
      figures.stopInTask = { loopBlockMax: r.loopBlock.max, driftLagMax: r.driftLag.max };
      assert.deepStrictEqual(r.events.workerHang, []);
    });

    it(type === 'browser'
      ? `hidden: the main process keeps worker and liveness; a ${HANG_MS / 1000} s task while hidden is one workerHang`
      : `hidden: a renderer pauses worker and liveness (SPEC §6, paused while hidden); a ${HANG_MS / 1000} s task, no workerHang`, async () => {
      e.send('js hide()');
      await e.mark();
      const before = await e.report('hidden');
      assert.strictEqual(before.running.worker, type === 'browser');
      assert.strictEqual(before.running.liveness, type === 'browser');
      assert.strictEqual(before.running.driftLag, false);
      assert.strictEqual(before.running.clockDrift, true);
      e.send(`busy ${HANG_MS}`);
      await sleep(HANG_MS + 1000);
      const r = await e.report('hiddenBusy');
      assert.strictEqual(r.events.workerHang.length, type === 'browser' ? 1 : 0, JSON.stringify(r.events.workerHang));
    });
  });
}

module.exports = { describeEmbedder };
