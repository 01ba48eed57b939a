'use strict';
// SPEC §14: while a hang runs, one line on stderr says so, written by the C worker thread (the
// main thread is held); the line at its end follows. Under `register` by default
// (LAGWATCH_HANG_LINE=0 turns it off), elsewhere through setupAllMonitors({ hangLine: true }).
// Real processes: the fixture blocks its loop and writes "hang-line: ended" on stderr right after
// each block, so a line before that marker was written while the hang still ran.
const assert = require('assert');
const { spawn } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const APP = path.join(__dirname, 'fixtures', 'hang-line.js');
const IN_PROGRESS = /^lagwatch: hang in progress on the main thread: held \d+\.\d s so far, cause so far: (\w+)/;
const END_LINE = /^lagwatch: hang stall of \d+ ms/;
const ENDED = 'hang-line: ended';

const live = new Set();

function baseEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LAGWATCH_') || k === 'LAGWATCH_ADDON') env[k] = v;
  delete env.NODE_OPTIONS;
  return { ...env, LAGWATCH_STATE_DIR: '0', ...extra };
}

function run({ env = {}, register = true } = {}) {
  const child = spawn(process.execPath, [...(register ? ['-r', 'lagwatch/register'] : []), APP], {
    cwd: ROOT, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = { child, stderr: '', waiters: new Set() };
  live.add(p);
  child.stdout.resume();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { p.stderr += d; for (const w of [...p.waiters]) w(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
  p.exited = new Promise((resolve) => child.on('close', (code, signal) => {
    clearTimeout(timer);
    live.delete(p);
    resolve({ code, signal });
  }));
  p.lines = () => p.stderr.split('\n').filter((l) => l !== '');
  p.until = (pred) => new Promise((resolve) => {
    const check = () => { if (pred()) { p.waiters.delete(check); resolve(); } };
    p.waiters.add(check);
    check();
  });
  return p;
}

const count = (lines, re) => lines.filter((l) => re.test(l)).length;

describe('the line while a hang runs (SPEC §14)', function () {
  this.timeout(90000);
  afterEach(() => { for (const p of live) p.child.kill('SIGKILL'); });

  it('under register: one line per hang, each before the hang ended, then the line at its end', async () => {
    const p = run({ env: { HANG_LINE_COUNT: '2' } });
    const exit = await p.exited;
    const lines = p.lines();
    const why = `exit ${JSON.stringify(exit)}\n${p.stderr}`;
    assert.strictEqual(exit.code, 0, why);
    assert.strictEqual(count(lines, IN_PROGRESS), 2, why);
    assert.strictEqual(count(lines, END_LINE), 2, why);
    // Each hang's line, then its marker: the line came while the hang still held the loop.
    const order = lines.filter((l) => IN_PROGRESS.test(l) || l === ENDED || END_LINE.test(l))
      .map((l) => (IN_PROGRESS.test(l) ? 'line' : l === ENDED ? 'ended' : 'end'));
    assert.deepStrictEqual(order.slice(0, 2), ['line', 'ended'], why);
    assert.strictEqual(order.indexOf('line', 2) < order.lastIndexOf('ended'), true, why);
    assert.strictEqual(order.filter((o) => o === 'end').length, 2, why);
    // A busy loop with its top frames (the stack thread has them in time). The first hang's name
    // blockOnce; the innermost 3 may all be Node's own (the clock the loop reads) when the stack
    // is taken inside it, as under ASan. Busy, or, on a machine whose CPUs others hold (the soak's
    // spinning processes), starved: waiting for a CPU half the time so far (SPEC §12).
    const said = lines.filter((x) => IN_PROGRESS.test(x));
    assert.match(said[0], /, at (.* < )?(blockOnce \(.*hang-line\.js:\d+\)|.*\(node:)/, why);
    for (const l of said) {
      assert.ok(['busy', 'starved'].includes(IN_PROGRESS.exec(l)[1]), why);
      assert.match(l, /, at \S/, why);
    }
  });

  it('a process killed during its hang has said it (SIGKILL: nothing at its end)', async () => {
    const p = run({ env: { HANG_LINE_MS: '30000' } });
    await p.until(() => IN_PROGRESS.test(p.stderr.split('\n').find((l) => l.startsWith('lagwatch: hang')) || ''));
    p.child.kill('SIGKILL');
    const exit = await p.exited;
    assert.strictEqual(exit.signal, 'SIGKILL');
    assert.strictEqual(count(p.lines(), IN_PROGRESS), 1, p.stderr);
    assert.strictEqual(p.stderr.includes(ENDED), false, p.stderr);
  });

  it('LAGWATCH_HANG_LINE=0, and outside register without the option: only the line at its end', async () => {
    const [off, lib] = [run({ env: { LAGWATCH_HANG_LINE: '0' } }), run({ register: false, env: { HANG_LINE_API: 'default' } })];
    await Promise.all([off.exited, lib.exited]);
    assert.strictEqual(count(off.lines(), IN_PROGRESS), 0, off.stderr);
    assert.strictEqual(count(off.lines(), END_LINE), 1, off.stderr);
    assert.strictEqual(count(lib.lines(), IN_PROGRESS), 0, lib.stderr);
  });

  // register takes the 5 s default threshold, and the tests above 6 s hangs; set up by the app, a
  // threshold of 2 s and a hang of 3 s: the line is said 2 s in, a second before the hang ends.
  it('outside register, setupAllMonitors({ hangLine: true, stallThresholdMs: 2000 }), a 3 s hang: says it once', async () => {
    const p = run({ register: false, env: { HANG_LINE_API: 'on', HANG_LINE_THRESHOLD_MS: '2000', HANG_LINE_MS: '3000' } });
    await p.exited;
    const lines = p.lines();
    assert.strictEqual(count(lines, IN_PROGRESS), 1, p.stderr);
    assert.ok(lines.findIndex((l) => IN_PROGRESS.test(l)) < lines.indexOf(ENDED), p.stderr);
  });

  it('hangLine must be a boolean', () => {
    const lagwatch = require('../..');
    assert.throws(() => lagwatch.setupAllMonitors({ hangLine: 'yes', clock: undefined }), {
      name: 'TypeError', message: /options\.hangLine/ });
  });
});
