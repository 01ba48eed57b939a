'use strict';
// scripts/suites.js names every mocha file once: a file left out of its lists would never run in
// npm test, and one listed twice would run twice.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { ALL } = require('../scripts/suites');

const ROOT = path.resolve(__dirname, '..');

describe('scripts/suites.js lists every test file exactly once', () => {
  it('every test/*.test.js and test/e2e/*.test.js, no other, none twice', () => {
    const files = ['test', 'test/e2e'].flatMap((d) => fs.readdirSync(path.join(ROOT, d))
      .filter((f) => f.endsWith('.test.js')).map((f) => `${d}/${f}`)).sort();
    assert.deepStrictEqual([...ALL].sort(), files);
    assert.strictEqual(new Set(ALL).size, ALL.length);
  });
});
