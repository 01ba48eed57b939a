'use strict';
// The binding under valgrind's memcheck, in a real Node process: over-long strings for every
// string argument (the binding once compared an uninitialised buffer when a string was too long
// for it: valgrind showed "Conditional jump or move depends on uninitialised value(s)" in
// b_sim_verb), and a short run of the API. ASan cannot see uninitialised reads; valgrind can.
const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { withoutAsan } = require('./e2e/helpers');

describe('the binding under valgrind (uninitialised reads, invalid accesses)', function () {
  this.timeout(180000);

  it('every over-long string argument is refused with a RangeError, with no valgrind error', () => {
    const r = spawnSync('valgrind', ['-q', '--error-exitcode=9', process.execPath,
      path.join(__dirname, 'fixtures', 'long-strings.js')], {
      encoding: 'utf8', timeout: 170000, env: { ...process.env, ...withoutAsan() },
    });
    assert.ok(!r.error, `valgrind could not run (Debian: apt-get install valgrind): ${r.error}`);
    assert.strictEqual(r.status, 0, `valgrind reported errors:\n${r.stderr.slice(0, 4000)}`);
    const { refused } = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.strictEqual(refused.length, 9, JSON.stringify(refused));
  });
});
