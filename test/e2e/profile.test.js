'use strict';
// The profile of a hang and its fingerprint (lib/profile.js) end to end, in real processes: the
// stack thread samples the hung main thread from the hang's detection to its end; the profile
// says where the time went, and the fingerprint is the same for the same hang in another run and
// in a copy of the app with its lines moved, and differs when another function is hot.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { spawnFixture, killAll, tmpDir } = require('./helpers');

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(__dirname, 'fixtures');

async function hang(hot, script = 'profile.js') {
  const f = spawnFixture(script, [hot], { env: { LAGWATCH_ROOT: ROOT } });
  const r = await f.result(40000);
  const why = f.describe();
  assert.strictEqual(r.events.stall.length, 1, `one hang: ${why}`);
  assert.strictEqual(r.events.workerHang.length, 1, `one worker hang: ${why}`);
  return { stall: r.events.stall[0], workerHang: r.events.workerHang[0], logs: r.logs, why };
}

// The samples whose stack goes through function `name`.
function through(profile, name) {
  return profile.stacks.filter((s) => s.frames.some((f) => f.functionName === name)).reduce((n, s) => n + s.count, 0);
}

describe('e2e: the profile of a hang and its fingerprint (stacks: true, real processes)', function () {
  this.timeout(120000);
  afterEach(killAll);
  const prints = {};

  it('a 3.7 s hang flagged at 1 s: sampled every 50 ms from its detection to its end, the hot function three times the other', async () => {
    const { stall, workerHang, logs, why } = await hang('a');
    const p = stall.profile;
    assert.ok(p !== null && typeof p === 'object', `a profile: ${why}`);
    // From the detection to the end, at most one sample an interval (the interval runs from
    // the answer to the next question), and most of them.
    const window = stall.end - workerHang.detectedAt;
    assert.ok(p.samples <= Math.ceil(window / p.intervalMs) + 1 && p.samples >= 0.5 * (window / p.intervalMs),
      `${p.samples} samples over ${window.toFixed(0)} ms at ${p.intervalMs} ms: ${why}`);
    assert.strictEqual(p.stacks.reduce((n, s) => n + s.count, 0) + p.other, p.samples, 'each sample counted once');
    const heavy = p.stacks[0].frames.filter((f) => f.url.endsWith('/fixtures/profile.js')).map((f) => f.functionName);
    assert.deepStrictEqual(heavy, ['spin', 'parseReport', 'handle', ''], `the heaviest stack: ${JSON.stringify(p.stacks[0])}`);
    const parse = through(p, 'parseReport');
    const render = through(p, 'renderPage');
    assert.ok(parse >= 2 * render && render >= 1, `parseReport ${parse} samples, renderPage ${render}: 3 to 1 expected`);
    assert.match(stall.fingerprint, /^[0-9a-f]{16}$/);
    // The worker hang carries the same, and so does the lag.stall log record.
    assert.deepStrictEqual(workerHang.profile, p);
    assert.strictEqual(workerHang.fingerprint, stall.fingerprint);
    assert.strictEqual(logs.length, 1, JSON.stringify(logs));
    assert.strictEqual(logs[0].attributes.fingerprint, stall.fingerprint);
    const lines = logs[0].attributes.profile.split('\n');
    assert.strictEqual(lines.length, p.stacks.length);
    assert.match(lines[0], /handle \(file:\/\/\/.*fixtures\/profile\.js:\d+\);parseReport \(.*\);spin \(.*\) \d+$/, lines[0]);
    prints.a = stall.fingerprint;
  });

  it('the same hang in another run, and in a copy of the app whose lines moved: the same fingerprint; another hot function: another', async () => {
    assert.ok(prints.a, 'the first test ran');
    const again = await hang('a');
    assert.strictEqual(again.stall.fingerprint, prints.a, again.why);
    // The copy: three lines more at the top, in another directory.
    const dir = tmpDir('profile');
    const moved = path.join(dir, 'profile.js');
    fs.writeFileSync(moved, `// moved\n// by three\n// lines\n${fs.readFileSync(path.join(FIXTURES, 'profile.js'), 'utf8')}`);
    const copy = await hang('a', path.relative(FIXTURES, moved));
    const line = (h) => h.stall.profile.stacks[0].frames.find((f) => f.functionName === 'parseReport').lineNumber;
    assert.strictEqual(line(copy), line(again) + 3, 'the lines did move');
    assert.strictEqual(copy.stall.fingerprint, prints.a, copy.why);
    const other = await hang('b');
    assert.strictEqual(through(other.stall.profile, 'renderPage') > through(other.stall.profile, 'parseReport'), true, other.why);
    assert.notStrictEqual(other.stall.fingerprint, prints.a, other.why);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
