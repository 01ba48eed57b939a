'use strict';
// scripts/suites.js names every mocha file once: a file left out of its lists would never run in
// npm test, and one listed twice would run twice.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { ALL, REAL_PROCESS, SANITIZED_REAL_PROCESS, NODE_VERSION } = require('../scripts/suites');
const { SUITES } = require('../scripts/test');

const ROOT = path.resolve(__dirname, '..');

describe('scripts/suites.js lists every test file exactly once', () => {
  it('every test/*.test.js and test/e2e/*.test.js, no other, none twice', () => {
    const files = ['test', 'test/e2e'].flatMap((d) => fs.readdirSync(path.join(ROOT, d))
      .filter((f) => f.endsWith('.test.js')).map((f) => `${d}/${f}`)).sort();
    assert.deepStrictEqual([...ALL].sort(), files);
    assert.strictEqual(new Set(ALL).size, ALL.length);
  });

  it('the real-process files run under the sanitizers are real-process files, none twice', () => {
    assert.deepStrictEqual(SANITIZED_REAL_PROCESS.filter((f) => !REAL_PROCESS.includes(f)), []);
    assert.strictEqual(new Set(SANITIZED_REAL_PROCESS).size, SANITIZED_REAL_PROCESS.length);
  });

  it('npm test runs every file, and each real-process file once (plain or sanitized)', () => {
    const runs = SUITES.flatMap((s) => (Array.isArray(s.args) ? s.args : []).filter((a) => /\.test\.js$/.test(a)));
    assert.deepStrictEqual(ALL.filter((f) => !runs.includes(f)), [], 'files npm test never runs');
    const twice = REAL_PROCESS.filter((f) => runs.filter((r) => r === f).length !== 1);
    assert.deepStrictEqual(twice, [], 'real-process files run other than once');
  });

  it("the platform matrix's files per Node version are test files, none twice", () => {
    assert.deepStrictEqual(NODE_VERSION.filter((f) => !ALL.includes(f)), []);
    assert.strictEqual(new Set(NODE_VERSION).size, NODE_VERSION.length);
  });
});
