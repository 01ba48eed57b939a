'use strict';
// Set-up is all or nothing (SPEC §7): setupAllMonitors() that throws leaves nothing behind: no
// thread (the worker, the stack thread), no signal or exit listener, no hang line, no current()
// set; an app that catches the error and goes on, or tries again, keeps nothing of the failed
// tries. Each case runs 100 tries in a child process and compares its threads (Linux's
// /proc/self/task) and listeners before and after.
const assert = require('assert');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..');

// Runs `before` (code), then 100 tries of setupAllMonitors(`options`), in a child: what it left.
function tries(options, before = '') {
  const script = `
    const fs = require('fs');
    ${before}
    const lagwatch = require(${JSON.stringify(ROOT)});
    const threads = () => fs.readdirSync('/proc/self/task').length;
    const listeners = () => ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'].map((s) => process.listenerCount(s));
    const before = { threads: threads(), listeners: listeners() };
    const errors = new Set();
    for (let i = 0; i < 100; i++) {
      try {
        lagwatch.setupAllMonitors(${options});
      } catch (err) {
        errors.add(err.name + ' ' + (err.code || '') + ' ' + err.message);
      }
    }
    // Threads end asynchronously once stopped: a moment for them to go.
    setTimeout(() => {
      const after = { threads: threads(), listeners: listeners() };
      const stillCurrent = lagwatch.current() !== undefined;
      const m = lagwatch.setupAllMonitors({ stateDir: false }); // a set can still be made
      process.stdout.write(JSON.stringify({ before, after, errors: [...errors], stillCurrent, current: lagwatch.current() === m }));
      m.stop();
    }, 500);`;
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.strictEqual(out.status, 0, out.stderr);
  const r = JSON.parse(out.stdout);
  assert.deepStrictEqual(r.after, r.before, `nothing left by the failed set-ups: ${out.stdout}`);
  assert.strictEqual(r.stillCurrent, false, 'no current() set after the failed set-ups');
  assert.strictEqual(r.current, true, 'a set made afterwards is the current one');
  return r;
}

describe('e2e: a set-up that throws leaves nothing (real processes)', function () {
  this.timeout(60000);

  it('a state directory path of 4100 bytes, 100 times: a RangeError naming stateDir, judged before anything starts', () => {
    const r = tries(`{ stateDir: '/tmp/' + 'd'.repeat(4100), hangLine: true }`);
    assert.deepStrictEqual(r.errors, ['RangeError ERR_OUT_OF_RANGE The "stateDir" argument must be a path of 1 to 4000 bytes']);
  });

  it('a stack thread that cannot be made (stacks: true), 100 times: its error, and what had started is stopped', () => {
    const r = tries('{ stacks: true, hangLine: true, stateDir: false }',
      "require('worker_threads').Worker = function Worker() { throw new Error('no thread for you'); };");
    assert.deepStrictEqual(r.errors, ['Error  no thread for you']);
  });
});
