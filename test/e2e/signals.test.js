'use strict';
// SPEC §14 end to end: a signal still ends a hung process. lagwatch listens to SIGINT, SIGTERM and
// SIGHUP to report what it holds, and its listener replaces the signal's default action; JS
// cannot run while the main thread is held. A process with no listener of its own is ended by the
// signal all the same, within a second, by that signal (its parent sees it), after a line from
// lagwatch's C thread; the hang's record gives its report at the next start. Healthy, lagwatch
// reports first, a second Ctrl-C during the report ends the process at once, and an app's own
// listener keeps the signal as it would without lagwatch.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { spawnFixture, killAll, sleep, tmpDir } = require('./helpers');

const REGISTER = ['-r', path.resolve(__dirname, '..', '..', 'lib', 'register.js')];

// The fixture hangs ('busy' or 'wait'); `signal` 1.5 s into the hang. Resolves what was seen.
async function signalledInHang(mode, signal, { nodeArgs = [], stateDir } = {}) {
  const f = spawnFixture('signals.js', [mode, stateDir || ''], { nodeArgs });
  await f.waitFor('hanging', 20000);
  await sleep(1500);
  const sentAt = performance.now();
  f.signal(signal);
  const exit = await f.waitExit(10000);
  return { f, exit, afterMs: performance.now() - sentAt };
}

describe('e2e: a signal ends a hung process (SPEC §14, real processes)', function () {
  this.timeout(60000);
  afterEach(killAll);

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    it(`${signal} 1.5 s into a busy hang and into an endless Atomics.wait: ended by ${signal} within 1 s, what can be said said, the hang reported at the next start`, async () => {
      const dirs = { busy: tmpDir('signals'), wait: tmpDir('signals') };
      try {
        const runs = await Promise.all(['busy', 'wait'].map((mode) => signalledInHang(mode, signal, { stateDir: dirs[mode] })));
        for (const [i, { f, exit, afterMs }] of runs.entries()) {
          const why = `${['busy', 'wait'][i]}: ${f.describe()}`;
          assert.strictEqual(exit.signal, signal, why);
          assert.ok(afterMs < 1000, `ended ${afterMs.toFixed(0)} ms after the signal: ${why}`);
          assert.match(f.stderr, new RegExp(`lagwatch: ${signal} while the main thread is held \\(\\d+\\.\\d s so far\\): the signal ends the process, as it would without lagwatch; the next start reports the hang from its record\\n`), why);
          assert.match(f.stderr, /lagwatch: hang in progress on the main thread: held \d+\.\d s so far, cause so far: /, why);
          assert.ok(!f.messages.some((m) => m.type === 'hang over'), why);
        }
        // The next start in each directory reports the hang the signal ended, once.
        const next = await Promise.all(['busy', 'wait'].map(async (mode) => {
          const f = spawnFixture('signals.js', ['none', dirs[mode]]);
          const exit = await f.waitExit(20000);
          return { f, exit };
        }));
        for (const { f, exit } of next) {
          assert.strictEqual(exit.code, 0, f.describe());
          const fatal = f.messages.filter((m) => m.type === 'stall' && m.fatal);
          assert.strictEqual(fatal.length, 1, f.describe());
          assert.strictEqual(fatal[0].kind, 'hang', f.describe());
          assert.ok(fatal[0].durationMs >= 1000, f.describe());
        }
      } finally {
        for (const dir of Object.values(dirs)) fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('under `node -r lagwatch/register`: SIGTERM 1.5 s into an endless Atomics.wait ends the process by SIGTERM within 1 s; the line says how long it was held', async () => {
    const { f, exit, afterMs } = await signalledInHang('wait', 'SIGTERM', { nodeArgs: REGISTER });
    assert.strictEqual(exit.signal, 'SIGTERM', f.describe());
    assert.ok(afterMs < 1000, `ended ${afterMs.toFixed(0)} ms after the signal: ${f.describe()}`);
    assert.match(f.stderr, /lagwatch: SIGTERM while the main thread is held \(\d+\.\d s so far, under the hang threshold\): the signal ends the process, as it would without lagwatch\n/, f.describe());
  });

  it('healthy: a second SIGINT while lagwatch reports at the first ends the process at once, by SIGINT', async () => {
    const f = spawnFixture('signals.js', ['slow-report', '']);
    await f.waitFor('ready', 20000);
    await sleep(300);
    f.signal('SIGINT');
    await f.waitFor('reporting', 20000);
    const sentAt = performance.now();
    f.signal('SIGINT');
    const exit = await f.waitExit(10000);
    const afterMs = performance.now() - sentAt;
    assert.strictEqual(exit.signal, 'SIGINT', f.describe());
    assert.ok(afterMs < 1000, `ended ${afterMs.toFixed(0)} ms after the second SIGINT: ${f.describe()}`);
    assert.ok(!f.messages.some((m) => m.type === 'reported'), f.describe());
  });

  it("an app's own SIGTERM listener keeps the signal when not hung: it drains and exits 0, and lagwatch ends nothing", async () => {
    const f = spawnFixture('signals.js', ['drain', ''], { nodeArgs: REGISTER });
    await f.waitFor('ready', 20000);
    await sleep(300);
    f.signal('SIGTERM');
    const exit = await f.waitExit(10000);
    assert.deepStrictEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, f.describe());
    assert.deepStrictEqual(f.messages.filter((m) => m.type === 'draining' || m.type === 'drained').map((m) => m.type), ['draining', 'drained']);
    assert.doesNotMatch(f.stderr, /while the main thread is held/, f.describe());
  });
});
