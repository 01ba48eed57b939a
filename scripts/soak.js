'use strict';
// `npm run test:soak [-- --runs N] [-- --busy N] [-- test/e2e/x.test.js ...]`: the real-process
// suites (scripts/suites.js REAL_PROCESS, or the files named), run N times in a row (5) as npm
// test runs them (three files at a time, PARALLEL) while N other processes spin on the CPU (1 by
// default: with the three files, four CPU-hungry processes on this project's 2-core machines, the
// load the soak has always run at; with 2 spinners, five, failed one tolerance a run: a busy block
// of sixty read as blocked, idleAvailability's busy time 82 % of the waits'). A timing
// tolerance tuned on a quiet machine fails here; one that comes from what the test measures of
// the machine holds. Ends with one line per failure and `soak: N passed, N failed` (runs).
//
// It needs what npm test needs (the addon built, the embedder and the prebuilds made: run
// `npm test` once first, or `npm run build && make -C test/embedder && npm run prebuild`).
const { spawn } = require('child_process');
const path = require('path');
const { REAL_PROCESS, PARALLEL, runEnv } = require('./suites');
const { failuresIn } = require('./failures');

const root = path.resolve(__dirname, '..');
const mocha = require.resolve('mocha/bin/mocha.js');

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const n = Number(process.argv[at + 1]);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`soak: ${name} wants a whole number, got ${process.argv[at + 1]}`);
    process.exit(2);
  }
  return n;
}
const runs = option('--runs', 5);
const busy = option('--busy', 1);
const named = process.argv.slice(2).filter((a, i, all) => a.endsWith('.js') && !['--runs', '--busy'].includes(all[i - 1]));
const files = named.length ? named : REAL_PROCESS;

// The competitors: plain spinning processes, started before the first run and ended after the
// last (and on any exit of ours); each also ends by itself once this process is gone (its parent
// changed), so that a soak killed outright leaves no spinner behind.
const spinners = [];
const spin = `let i = 0; for (;;) if (++i % 1e8 === 0 && process.ppid !== ${process.pid}) process.exit(0);`;
for (let i = 0; i < busy; i++) {
  spinners.push(spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
}
const endSpinners = () => { for (const s of spinners) s.kill('SIGKILL'); };
process.on('exit', endSpinners);

// One run of mocha, in a process group of its own: a signal to the soak ends it and its workers.
let current = null;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (current) try { process.kill(-current.pid, 'SIGKILL'); } catch { /* gone */ }
    process.exit(130);
  });
}
function mochaRun() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [mocha, '--reporter', 'dot', ...PARALLEL, ...files], {
      cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...runEnv() },
    });
    current = child;
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { out += d; });
    child.on('close', (status, signal) => {
      current = null;
      resolve({ status, signal, out });
    });
  });
}

async function main() {
  const failures = [];
  let passed = 0;
  const t0 = Date.now();
  for (let run = 1; run <= runs; run++) {
    const started = Date.now();
    const r = await mochaRun();
    const { out } = r;
    const passing = /(\d+) passing/.exec(out);
    const failing = /(\d+) failing/.exec(out);
    const secs = Math.round((Date.now() - started) / 1000);
    if (r.status === 0) {
      passed++;
      console.log(`soak run ${run}/${runs}: ${passing ? passing[1] : '?'} passing (${secs} s)`);
    } else {
      console.log(`soak run ${run}/${runs}: FAILED, ${failing ? failing[1] : '?'} failing (${secs} s)`);
      process.stdout.write(out.slice(out.search(/\d+ failing/) >= 0 ? out.search(/\d+ failing/) : -8000));
      failures.push(...failuresIn(out).map((l) => `run ${run}: ${l.trim()}`));
      if (!failing) failures.push(`run ${run}: mocha exited ${r.status}${r.signal ? ` (${r.signal})` : ''}`);
    }
  }
  endSpinners();
  for (const f of failures) console.log(`  ${f}`);
  console.log(`soak: ${files.length} files, ${runs} runs beside ${busy} busy processes, ${Math.round((Date.now() - t0) / 1000)} s`);
  console.log(`soak: ${passed} passed, ${runs - passed} failed`);
  process.exit(passed === runs ? 0 : 1);
}

main();
