'use strict';
// SPEC §14 end to end: an idle process pays almost nothing. While the loop waits in its poll, the
// worker's heartbeats go without waking the main thread (it would have answered at once: each is
// a sample of 0), and the main thread's timers that measure nothing of their own lateness wait
// for its next wake-up, when what they measured over the wait is caught up. Counted from the
// kernel's context switches of each thread (Linux).
const assert = require('assert');
const fs = require('fs');
const { spawnFixture, killAll } = require('./helpers');

function switches(pid, tid) {
  const s = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
  const n = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)[1]);
  return n('voluntary_ctxt_switches') + n('nonvoluntary_ctxt_switches');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('e2e: an idle process sleeps (SPEC §14, real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  it('over 6 s of idle the worker checks and sends its heartbeats, the main thread is not woken for them, and each heartbeat and idle period is a sample when it wakes', async () => {
    const f = spawnFixture('wait.js', [500, 'stdin']);
    const ready = await f.waitFor('ready', 20000);
    assert.strictEqual(ready.threads.length, 1, `lagwatch's worker thread alone: ${JSON.stringify(ready.threads)}`);
    const pid = f.child.pid;
    const worker = ready.threads[0];
    await sleep(1500); // start-up's own wake-ups (Node's, the fixture's) are over
    const before = { main: switches(pid, pid), worker: switches(pid, worker), at: performance.now() };
    await sleep(6000);
    const after = { main: switches(pid, pid), worker: switches(pid, worker), at: performance.now() };
    f.send('done');
    const r = await f.result(20000);
    const woke = { main: after.main - before.main, worker: after.worker - before.worker };
    const why = `over ${(after.at - before.at).toFixed(0)} ms: ${JSON.stringify(woke)}\n${f.describe()}`;
    // The worker rests at most 900 ms while the loop waits: 6 s hold at least 6 of its checks.
    assert.ok(woke.worker >= 6, `the worker checked: ${why}`);
    // One heartbeat a second, each of which woke the main thread before: now none does.
    assert.ok(woke.main <= 1, `the main thread slept through the heartbeats: ${why}`);
    const mons = r.statsBeforeStop.monitors;
    const seconds = (r.end.at - r.ready.at) / 1000;
    // Every heartbeat is a sample (those sent while the loop waited are 0), and so is every
    // idleAvailability period, read when the main thread woke for the line on stdin.
    assert.ok(mons.worker.recorded >= Math.floor(seconds), `worker samples ${JSON.stringify(mons.worker)} over ${seconds} s: ${why}`);
    assert.strictEqual(mons.worker.discarded, 0, why);
    assert.ok(mons.worker.p50 === 0, `most heartbeats came while the loop waited: ${JSON.stringify(mons.worker)}`);
    assert.ok(mons.idleAvailability.recorded >= Math.floor(seconds), `idle periods ${JSON.stringify(mons.idleAvailability)} over ${seconds} s: ${why}`);
    assert.ok(mons.idleAvailability.p50 > 0.99, `an idle loop's periods: ${JSON.stringify(mons.idleAvailability)}`);
    assert.deepStrictEqual(r.events.stall, [], why);
  });
});
