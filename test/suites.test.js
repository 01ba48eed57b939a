'use strict';
// scripts/suites.js names every mocha file once: a file left out of its lists would never run in
// npm test, and one listed twice would run twice.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { ALL, REAL_PROCESS, SANITIZED_REAL_PROCESS } = require('../scripts/suites');

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
});
