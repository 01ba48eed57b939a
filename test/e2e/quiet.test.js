'use strict';
// SPEC §14, a quiet process is quiet, in real processes: an idle server under
// `node -r lagwatch/register` with blocks on (LAGWATCH_BLOCK_MS=100) is woken once after seconds
// of idle by each source an idle server knows (a request, the app's own signal handler, a child's
// exit, its own long timer, a file watch), then idles again and is ended by SIGTERM. libuv's idle
// time loses a wait that a signal interrupts (the SIGUSR2, the child's SIGCHLD, the SIGTERM), and
// lagwatch's timers sleep through the waits: no block, no stall and no lag may come of any of it,
// and each idle period reads ~1. The simulation's cases, exact: test/quiet.test.js.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { spawnFixture, killAll, sleep, tmpDir } = require('./helpers');

const IDLE_MS = 4000;

// `idle`: what the idle time is besides (the test's stops of the process); by default a sleep.
async function idleWoken(wake, idle = () => sleep(IDLE_MS)) {
  const dir = tmpDir('quiet');
  const file = path.join(dir, 'watched');
  fs.writeFileSync(file, '');
  const f = spawnFixture('quiet.js', [wake, IDLE_MS, file], {
    nodeArgs: ['-r', path.resolve(__dirname, '..', '..', 'lib', 'register.js')],
    env: { LAGWATCH_BLOCK_MS: '100' },
  });
  try {
    const ready = await f.waitFor('ready', 20000);
    await idle(f);
    if (wake === 'socket') await (await fetch(`http://127.0.0.1:${ready.port}/`)).text();
    if (wake === 'signal') f.signal('SIGUSR2');
    if (wake === 'fs.watch') fs.writeFileSync(file, 'now');
    await f.waitFor('woke', 20000);
    await sleep(3000);
    f.signal('SIGTERM');
    const exit = await f.waitExit(20000);
    return { f, exit, ready };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// A block that ran on a CPU or waited for one for half of it or more, around it, is the app's own
// work (its first request under ASan) or the machine's load, not a wait misread: a misread wait
// is off every CPU (and the idle periods are held to the thread's time exactly, below).
const onCpu = (m) => m.type === 'block' && m.workMs !== null && m.workMs >= m.durationMs / 2;

// The blocks and stalls from 'ready' on that are not such work.
function unquiet(f, ready) {
  return f.messages.filter((m) => (m.type === 'block' || m.type === 'stall') && m.start >= ready.now && !onCpu(m));
}

// The longest recorded sample of a monitor over the batches (each sends its longest), but for
// iterations that were such blocks (every one of 100 ms or more is a block: LAGWATCH_BLOCK_MS),
// and driftLag's lateness behind one: a batch's driftLag no longer than its excused loopBlock.
function longest(f, type) {
  const excused = new Set(f.messages.filter(onCpu).map((m) => m.durationMs));
  const held = new Map(f.messages.filter((m) => m.type === 'loopBlock' && excused.has(m.max)).map((m) => [m.batch, m.max]));
  const kept = f.messages.filter((m) => m.type === type && !(held.has(m.batch) && m.max <= held.get(m.batch)));
  return Math.max(...kept.map((m) => m.max));
}

// Every period of idle time lagwatch read, but the first (it holds the start-up's own work), is
// the loop's wait, less what the main thread did: a wait misread as busy is off every CPU, where
// the app's own work (its wake-up, the first request under ASan beside four starting processes)
// ran on a CPU or waited for one. So a batch's busy time is at most the thread's time on a CPU or
// its run queue since the batch before it (a period may begin before the last flush), and 50 ms
// for what neither counts. Without schedstat, each period reads ~1.
const PERIOD_MS = 1000;
function assertIdleIsWait(ready, batches, why) {
  const cpu = [ready.cpuMs, ready.cpuMs, ...batches.map((b) => b.cpuMs)];
  batches.forEach((b, k) => {
    const periods = k === 0 ? b.values.slice(1) : b.values;
    const busyMs = periods.reduce((sum, v) => sum + (1 - v) * PERIOD_MS, 0);
    const what = `batch ${k}, idle ${periods}`;
    if (cpu[k] === null || cpu[k + 2] === null) {
      assert.ok(periods.every((v) => v > 0.9), `${what}: ${why}`);
      return;
    }
    const workMs = cpu[k + 2] - cpu[k];
    assert.ok(busyMs <= workMs + 50, `${what}: ${busyMs.toFixed(1)} ms busy, the main thread on a CPU or its queue ${workMs.toFixed(1)} ms: ${why}`);
  });
}

describe('e2e: a quiet server stays quiet (SPEC §14, real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  it('idle 4 s, woken by a request, a signal, a child, a timer or a file watch, idle 3 s, then SIGTERM: no block, no stall, idle periods busy only for work done on a CPU, ended by SIGTERM', async () => {
    const runs = await Promise.all(['socket', 'signal', 'child', 'timer', 'fs.watch'].map(async (wake) => ({ wake, ...(await idleWoken(wake)) })));
    for (const { wake, f, exit, ready } of runs) {
      const why = `${wake}: ${f.describe()}`;
      assert.strictEqual(exit.signal, 'SIGTERM', why);
      // Start-up's own work (five processes starting at once on two cores) may be a block; from
      // 'ready' on, the process only waits and is woken.
      assert.deepStrictEqual(unquiet(f, ready), [], why);
      assert.doesNotMatch(f.stderr, /lagwatch: .*(hang|stall)/, why);
      const batches = f.messages.filter((m) => m.type === 'idle');
      assert.ok(batches.flatMap((b) => b.values).length >= 5, `idle periods: ${why}`);
      assertIdleIsWait(ready, batches, why);
      const loopBlock = longest(f, 'loopBlock');
      assert.ok(loopBlock < 100, `loopBlock's longest iteration ${loopBlock} ms: ${why}`);
    }
  });

  // A shell's Ctrl-Z and `fg` in short: on Linux a stop ends the poll's wait with EINTR (libuv's
  // idle time loses the wait so far), and the SIGCONT tells both threads when the stop ended. The
  // stops are discarded as pause; the rest of each wait is a wait, lagwatch's own timers on time.
  it('idle, stopped ten times for 50 ms (SIGSTOP, then SIGCONT), then woken by a request: no block, no stall, no lag', async () => {
    const { f, exit, ready } = await idleWoken('socket', async (p) => {
      await sleep(1000);
      for (let i = 0; i < 10; i++) {
        p.signal('SIGSTOP');
        await sleep(50);
        p.signal('SIGCONT');
        await sleep(550);
      }
    });
    const why = f.describe();
    assert.strictEqual(exit.signal, 'SIGTERM', why);
    assert.deepStrictEqual(unquiet(f, ready), [], why);
    // As the wake-ups above: under 100 ms (a wait read as busy is as long as the wait).
    for (const type of ['loopBlock', 'driftLag']) {
      const max = longest(f, type);
      assert.ok(max < 100, `${type}'s longest recorded sample ${max} ms: ${why}`);
    }
  });
});
