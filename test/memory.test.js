'use strict';
// SPEC §11: a monitor set's native memory is bounded when sets are made and stopped in a loop.
// Node-API finalizers run only after a garbage collection and in a later turn of the loop, so a
// synchronous loop of start/stop frees nothing through them: stop() frees at once what it makes
// useless (histogram buckets, once their p50/p99 are kept; batches; the worker's buffers), and
// what is still held is reported to V8 (napi_adjust_external_memory).
const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { withoutAsan } = require('./e2e/helpers');

function run(kind, n) {
  const r = spawnSync(process.execPath, [path.join(__dirname, 'fixtures', 'memory-cycles.js'), kind, String(n)], {
    // The plain addon: ASan's quarantine keeps freed memory on purpose, which is not a leak.
    encoding: 'utf8', timeout: 120000, env: { ...process.env, ...withoutAsan() },
  });
  assert.strictEqual(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

describe('native memory (reported to V8, freed by its GC)', function () {
  this.timeout(150000);

  it('20 000 simulated monitor sets made and stopped: RSS grows by less than 150 MB (2.4 GB before stop() freed what it makes useless)', () => {
    const r = run('sim', 20000);
    assert.ok(r.growthMb < 150, JSON.stringify(r));
  });

  it('3 000 real-clock sets (worker thread started and joined) made and stopped: RSS grows by less than 60 MB (480 MB before)', () => {
    const r = run('real', 3000);
    assert.ok(r.growthMb < 60, JSON.stringify(r));
  });
});
