'use strict';
// The loop model in real processes (SPEC §6, "Embedded loops"): Node's own loop whose thread waits
// for a CPU — pinned to one CPU among busy competitors, or held back by a cgroup CPU quota — is
// still Node's loop. The check-to-prepare gap of a long immediate is the thread's CPU time plus
// its wait on a run queue (which includes a quota's hold); only what is neither was spent outside
// libuv, as in Electron's message loop. Counting a starved thread's wait as "outside" once took
// a loaded machine's Node server for an embedded loop (and turned the merging of short
// iterations off for good).
const assert = require('assert');
const { spawn } = require('child_process');
const { spawnFixture, killAll, makeCgroup } = require('./helpers');

const FIXTURE = require('path').join(__dirname, 'fixtures', 'long-immediates.js');

describe('e2e: Node\'s loop stays \'node\' while its thread waits for a CPU (real processes)', function () {
  this.timeout(60000);
  const cleanups = [];
  afterEach(async () => {
    await killAll();
    while (cleanups.length) cleanups.pop()();
  });

  it('long immediates on a quiet machine: node', async () => {
    const f = spawnFixture('long-immediates.js', []);
    const r = await f.result(30000);
    assert.strictEqual(r.loop, 'node', f.describe());
  });

  it('long immediates pinned to one CPU with three busy competitors: node', async () => {
    const competitors = [0, 1, 2].map(() => spawn('taskset', ['-c', '0', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
    cleanups.push(() => competitors.forEach((p) => p.kill('SIGKILL')));
    const f = spawnFixture('long-immediates.js', ['-c', '0', process.execPath, FIXTURE], { command: 'taskset' });
    const r = await f.result(40000);
    assert.ok(r.runQueueMs >= 200, `the thread was starved: ${r.runQueueMs.toFixed(0)} ms on a run queue in ${r.wallMs.toFixed(0)} ms\n${f.describe()}`);
    assert.strictEqual(r.loop, 'node', `${r.runQueueMs.toFixed(0)} ms on a run queue\n${f.describe()}`);
  });

  it('long immediates in a cgroup with a 20 % CPU quota: node', async () => {
    const cg = makeCgroup('/sys/fs/cgroup/cpu', 'lagwatch-loop-quota');
    cleanups.push(() => cg.remove());
    cg.write('cpu.cfs_period_us', 100000);
    cg.write('cpu.cfs_quota_us', 20000);
    const f = spawnFixture('long-immediates.js', ['-c', `echo $$ > ${cg.dir}/cgroup.procs && exec "$0" "$@"`,
      process.execPath, FIXTURE], { command: 'sh' });
    const r = await f.result(40000);
    assert.ok(Number(/nr_throttled (\d+)/.exec(cg.read('cpu.stat'))[1]) > 3, `the group was throttled\n${f.describe()}`);
    assert.strictEqual(r.loop, 'node', `${r.runQueueMs.toFixed(0)} ms on a run queue in ${r.wallMs.toFixed(0)} ms\n${f.describe()}`);
  });
});
