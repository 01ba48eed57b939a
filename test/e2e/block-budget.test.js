'use strict';
// Blocks (issue 27) in a real process, the budget of reports: 1000 blocks of 70 ms, one per loop
// turn, threshold 50 ms, at most 10 reports a minute: every block counted (stats().blocks), 10
// reported in each minute, the rest unreported and carried by the next minute's first report.
// Under heavy load (npm run test:soak) the worker thread has been seen, rarely, to judge its own
// lateness a stop (a pause) where nothing stopped; a block that such evidence covers is counted as
// discarded, with its reason, and the test allows that much and no more.
const assert = require('assert');
const { spawnFixture, killAll } = require('./helpers');

describe('e2e: the budget of block reports (issue 27, real process)', function () {
  this.timeout(240000);
  afterEach(killAll);

  it('a burst of 1000 blocks of 70 ms at most 10 reports a minute: every block counted, 10 reported a minute, the first of the next carries the rest', async () => {
    const f = spawnFixture('blocks.js', ['burst', 1000], { killAfterMs: 200000 });
    const r = await f.result(180000);
    const why = f.describe();
    const s = r.stats.blocks;
    assert.strictEqual(r.calls.length, 1000, why);
    // Every call's block counted once (or explained by a stop's evidence, counted as such).
    const stops = (s.discarded.pause || 0) + (s.discarded.suspend || 0);
    assert.ok(stops <= 3 && s.count + stops >= 1000 && s.count <= 1000, `${JSON.stringify(s)}\n${why}`);
    // At most 10 reports in any minute (from the first report of one, judged 2 s after its
    // block's end): 70 s of blocks make two minutes of 10 reports; the first of the second carries
    // the blocks not reported since the tenth.
    assert.strictEqual(s.reported, r.blocks.length, JSON.stringify(s));
    assert.strictEqual(s.unreported, s.count - s.reported, JSON.stringify(s));
    assert.ok(r.blocks.length >= 20 && r.blocks.length % 10 === 0, `${r.blocks.length} reports`);
    for (let i = 0; i + 10 < r.blocks.length; i++) {
      assert.ok(r.blocks[i + 10].end - r.blocks[i].end >= 60000 - 100, `reports ${i} and ${i + 10}: ${r.blocks[i].end}, ${r.blocks[i + 10].end}`);
    }
    for (let i = 0; i < r.blocks.length; i++) {
      if (i % 10 === 0 && i > 0) assert.ok(r.blocks[i].unreported > 100, `report ${i}: ${r.blocks[i].unreported} carried`);
      else assert.strictEqual(r.blocks[i].unreported, 0, `report ${i}`);
    }
    assert.strictEqual(r.stats.lost, 0);
  });
});
