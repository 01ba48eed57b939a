'use strict';
// `npm test` (every suite) and `npm run test:quick` (`--quick`: the C tests and the simulation
// suites, for the edit loop). CONTRIBUTING.md says what each suite covers.
//
// First it provisions (scripts/provision.js): as root with apt-get, what the suites need is
// installed once; elsewhere it stops at once with one line naming what to install. With
// `--partial` it runs what can run instead and reports the rest as not run. A suite that did not
// run is never counted as passed, and under CI=true a suite not run fails the run.
//
// The suites then run as a small graph, two at a time by default (`--jobs 1`: one), the longest
// chains first; the real-process mocha files run three at a time inside their suite
// (scripts/suites.js PARALLEL), as `npm run test:soak` runs them beside a spinning process. Their tolerances come
// from what they measure of the machine (run-queue delays, CPU times, a bare start-up beside
// them), so the load of the suites beside them is taken in, not assumed away. But what the
// machine does not show as run-queue delay cannot be: with both cores busy the host may hold a
// VM's CPUs back, which every thread of it reads as a stop (and lagwatch rightly as a pause). So
// the timing suites (`alone`) run with no other suite beside them: their own three files at a
// time load the machine less than the soak does; a whole suite more beside them (three suites at
// once) stopped it often enough to blur the bounds of stops and blocks.
// Each suite's output is shown whole when it ends, with its duration; a
// failed suite's last lines are printed again at the very end, then one line per failure (a
// mocha test with its error, every FAILED line), so that the shortest log tail names them all.
// The closing report gives each suite's time and the total; under CI=true a total over the budget
// (BUDGET_S, 20 minutes) fails the run.
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { provision } = require('./provision');
const { SIMULATION, PLAIN_REAL_PROCESS, SANITIZED_REAL_PROCESS, PACKAGING, TEST_BUILD, PARALLEL, runEnv } = require('./suites');
// The test build's files that run a real process (timing) and those that do not.
const TEST_BUILD_REAL = TEST_BUILD.filter((f) => f.startsWith('test/e2e/'));
const TEST_BUILD_SIM = TEST_BUILD.filter((f) => !TEST_BUILD_REAL.includes(f));
const { failuresIn } = require('./failures');
const { sources } = require('./sources');

const root = path.resolve(__dirname, '..');
const mocha = require.resolve('mocha/bin/mocha.js');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const partial = argv.includes('--partial');
const jobsAt = argv.indexOf('--jobs');
const jobs = jobsAt >= 0 ? Number(argv[jobsAt + 1]) : 2;
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`lagwatch: --jobs wants a whole number of at least 1, got ${argv[jobsAt + 1]}`);
  process.exit(2);
}
const ci = /^(1|true)$/i.test(process.env.CI || '');
// npm test's time budget under CI=true, in seconds (the README gives the measured time).
const BUDGET_S = 20 * 60;
let stateEnv; // every suite of this run's: scripts/suites.js runEnv(), made when the run starts

const conformance = path.resolve(root, '..', 'shared', 'conformance', 'core-rules.js');
const asanAddon = path.join(root, 'build', 'asan', 'lagwatch.node');

// The addon's sources (scripts/sources.js) with binding.gyp's defines (it is written as JSON),
// compiled with the sanitizers into build/asan/.
function asanBuildArgs() {
  const target = JSON.parse(fs.readFileSync(path.join(root, 'binding.gyp'), 'utf8')).targets[0];
  const include = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
  fs.mkdirSync(path.dirname(asanAddon), { recursive: true });
  return ['-std=gnu11', '-Wall', '-Wextra', '-Werror', '-O1', '-g', '-fPIC', '-shared',
    '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer',
    ...target.defines.map((d) => `-D${d}`), '-DLW_TEST_HOOKS', `-I${include}`, ...sources(), '-o', asanAddon, '-lm'];
}
function asanEnv() {
  const libasan = spawnSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).stdout.trim();
  // Node itself is not built for LeakSanitizer (it keeps much alive until exit): leaks of the
  // core are checked by the C tests; here ASan checks every access and UBSan every operation.
  return {
    LAGWATCH_ADDON: asanAddon,
    LD_PRELOAD: libasan,
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  };
}

// Each suite: `alone` if it measures time (nothing else runs beside it); `needs` are
// scripts/provision.js's ids; `after` the suites whose output it uses (it does not run when one
// of them failed or did not run); `weight` its usual length in seconds on this project's machine,
// so that the longest chains start first. `args`/`env` may be functions, read
// when the suite starts.
const node = process.execPath;
const SUITES = [
  { id: 'c', name: 'C core (plain + ASan/UBSan)', cmd: 'make', args: ['-s', '-C', 'test/c'], needs: ['toolchain', 'libuv'], weight: 20, quick: true },
  { id: 'valgrind', name: 'C core under valgrind', cmd: 'valgrind', after: ['c'], needs: ['valgrind'], weight: 15,
    args: ['-q', '--error-exitcode=1', '--leak-check=full', '--errors-for-leak-kinds=definite', '--trace-children=yes', 'test/c/out/runner'] },
  { id: 'tsan', name: 'worker thread under TSan', cmd: 'make', args: ['-s', '-C', 'test/tsan'], needs: ['toolchain', 'libuv'], weight: 5 },
  { id: 'fuzz', name: 'fuzzing the core (libFuzzer, ASan/UBSan)', cmd: 'make', args: ['-s', '-C', 'test/fuzz'], needs: ['clang', 'fuzzer', 'libuv'], weight: 30 },
  { id: 'conformance', name: 'conformance (../shared/conformance/core-rules.js)', cmd: node, args: [conformance], weight: 1, quick: true,
    absent: () => (fs.existsSync(conformance) ? null : `${conformance} is not beside this checkout`) },
  { id: 'embedder', name: "embedder (Electron's loop, Debian libnode 18): build", cmd: 'make', args: ['-s', '-C', 'test/embedder'], needs: ['toolchain', 'libuv', 'libnode'], weight: 5 },
  { id: 'prebuild', name: 'prebuilt addons (npm run prebuild)', cmd: node, args: [path.join('scripts', 'prebuild.js')], needs: ['toolchain', 'python', 'mingw', 'arm64-gcc', 'macho'], weight: 45 },
  { id: 'mocha-sim', name: 'mocha: the simulation suites', cmd: node, args: [mocha, ...SIMULATION], weight: 10, quick: true },
  { id: 'mocha-real', name: 'mocha: the real-process suites', cmd: node, args: [mocha, ...PARALLEL, ...PLAIN_REAL_PROCESS], after: ['embedder', 'prebuild'],
    needs: ['faketime', 'prometheus'], weight: 250, alone: true },
  { id: 'mocha-packaging', name: 'mocha: packaging, types and docs', cmd: node, args: [mocha, ...PARALLEL, ...PACKAGING], after: ['prebuild'],
    needs: ['valgrind', 'clang', 'macho'], weight: 90 },
  // The platform matrix in two: the builds with each Node version's headers (no real-clock
  // timing) beside other suites; the prebuild on each version and the foreign platforms alone.
  { id: 'matrix-build', name: 'platform matrix: the addon built from source with Node 20/22/24/26 headers', cmd: node,
    args: [path.join('scripts', 'matrix.js'), '--part', 'build'], needs: ['toolchain', 'python'], weight: 50 },
  { id: 'matrix', name: 'platform matrix: the prebuild on Node 22/24/26, linux-arm64 (qemu), win32-x64 (wine)', cmd: node,
    args: [path.join('scripts', 'matrix.js'), '--part', 'run'], after: ['prebuild'], needs: ['wine', 'qemu'], weight: 150, alone: true },
  { id: 'asan-build', name: 'addon under ASan/UBSan: build', cmd: 'gcc', args: asanBuildArgs, needs: ['toolchain'], weight: 5 },
  // The sanitized build runs, once each: the real-process files that reach the drivers'
  // real-time paths (scripts/suites.js SANITIZED_REAL_PROCESS; the addon users install runs the
  // others) and the test build's own real-process file, as a timing suite; then, beside other
  // suites, what reaches the binding with no clock of its own: the simulation suites and the
  // allocator made to fail. (The docs' programs and ESM reach no native path those do not.)
  { id: 'mocha-asan', name: 'mocha, addon under ASan/UBSan: the real-process suites', cmd: node, after: ['asan-build', 'embedder'],
    needs: ['faketime', 'prometheus'], args: [mocha, ...PARALLEL, ...SANITIZED_REAL_PROCESS, ...TEST_BUILD_REAL], env: asanEnv,
    weight: 200, alone: true },
  { id: 'mocha-asan-sim', name: 'mocha, addon under ASan/UBSan: simulation, allocation failures', cmd: node, after: ['asan-build'],
    args: [mocha, ...PARALLEL, ...SIMULATION, ...TEST_BUILD_SIM], env: asanEnv, weight: 25 },
];

// The closing report: every suite's state, then the failures' tails and one line each.
const state = new Map(); // id -> { status: 'passed' | 'failed' | 'not run', why, secs }
const tails = [];
const briefs = [];

function runSuite(s) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let args;
    let env;
    try {
      args = typeof s.args === 'function' ? s.args() : s.args;
      env = typeof s.env === 'function' ? s.env() : s.env;
    } catch (err) {
      resolve({ ok: false, out: `${s.name}: ${err.message}`, secs: 0 });
      return;
    }
    const child = spawn(s.cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...stateEnv, ...env } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { out += d; });
    let spawnError = null;
    child.on('error', (err) => { spawnError = err; });
    child.on('close', (code, signal) => {
      if (spawnError) out += `\n${s.cmd}: ${spawnError.message}`;
      else if (signal) out += `\n${s.cmd}: killed by ${signal}`;
      resolve({ ok: !spawnError && code === 0, out, secs: (Date.now() - t0) / 1000, args });
    });
  });
}

async function main() {
  const t0 = Date.now();
  stateEnv = runEnv();
  const chosen = SUITES.filter((s) => !quick || s.quick);

  // Provisioning: the needs of the suites that will run.
  const ids = [...new Set(chosen.flatMap((s) => s.needs || []))];
  const prov = provision({ ids, install: !partial });
  if (prov.missing.length && !partial) {
    console.error(prov.line);
    console.error('lagwatch: (or `npm test -- --partial` runs what can run here and reports the rest as not run)');
    process.exit(1);
  }
  const absentIds = new Set(prov.missing.map((n) => n.id));

  // A suite's rank: its weight plus the largest rank of the suites that wait for it, so that a
  // build the long suites need starts before a long suite that needs nothing.
  const rank = new Map();
  const rankOf = (s) => {
    if (!rank.has(s.id)) {
      const waiting = chosen.filter((d) => (d.after || []).includes(s.id));
      rank.set(s.id, s.weight + Math.max(0, ...waiting.map(rankOf)));
    }
    return rank.get(s.id);
  };
  const pending = [...chosen].sort((a, b) => rankOf(b) - rankOf(a));
  const running = new Set();
  const ALONE = Symbol('a timing suite runs'); // in `running` while one does
  await new Promise((done) => {
    const pump = () => {
      for (let k = 0; k < pending.length && running.size < jobs && !running.has(ALONE); k++) {
        const s = pending[k];
        if (s.alone && running.size) continue; // starts when nothing else runs
        const blocked = (s.after || []).filter((a) => chosen.some((c) => c.id === a) && state.get(a)?.status !== 'passed');
        if (blocked.some((a) => !state.has(a))) continue; // waits for them
        pending.splice(k--, 1);
        const why = blocked.length ? `${blocked.join(', ')} did not pass`
          : (s.needs || []).filter((n) => absentIds.has(n)).map((n) => `needs ${prov.missing.find((m) => m.id === n).what}`).join('; ')
            || (s.absent && s.absent()) || null;
        if (why) {
          state.set(s.id, { status: 'not run', why, secs: 0 });
          console.log(`\n=== ${s.name}: NOT RUN (${why})`);
          k = -1; // a suite waiting on this one may now be decided
          continue;
        }
        running.add(s.id);
        if (s.alone) running.add(ALONE);
        console.log(`\n... ${s.name}: started (${Math.round((Date.now() - t0) / 1000)} s)`);
        runSuite(s).then((r) => {
          running.delete(s.id);
          if (s.alone) running.delete(ALONE);
          const cmdline = `${s.cmd === node ? 'node' : s.cmd} ${(r.args || []).map((a) => path.relative(root, a) || a).join(' ')}`;
          console.log(`\n=== ${s.name}: ${cmdline.length > 300 ? `${cmdline.slice(0, 300)}…` : cmdline}`);
          process.stdout.write(r.out.endsWith('\n') ? r.out : `${r.out}\n`);
          console.log(`=== ${s.name}: ${r.ok ? 'passed' : 'FAILED'} in ${Math.round(r.secs)} s`);
          state.set(s.id, { status: r.ok ? 'passed' : 'failed', secs: r.secs });
          if (!r.ok) {
            const lines = r.out.trimEnd().split('\n');
            tails.push(`--- ${s.name}: its last lines\n${lines.slice(-40).join('\n')}`);
            briefs.push(`${s.name}:`, ...failuresIn(r.out));
          }
          pump();
        });
      }
      if (!running.size && !pending.length) done();
    };
    pump();
  });

  for (const t of tails) console.log(`\n${t}`);
  if (briefs.length) console.log(`\nWhat failed, one line each:\n${briefs.join('\n')}`);
  console.log(`\n${quick ? 'npm run test:quick' : 'npm test'}, ${Math.round((Date.now() - t0) / 1000)} s:`);
  for (const s of chosen) {
    const st = state.get(s.id);
    console.log(`  ${st.status.padEnd(7)} ${s.name}${st.status === 'not run' ? ` (${st.why})` : ` (${Math.round(st.secs)} s)`}`);
  }
  const count = (status) => chosen.filter((s) => state.get(s.id).status === status).length;
  const notRun = count('not run');
  if (notRun && ci) console.log(`CI=true: ${notRun} suite(s) not run fail the run`);
  // The time budget: a run that has grown past it fails under CI=true, so that a slow suite is
  // seen when it lands, not when a newcomer waits for it.
  const total = (Date.now() - t0) / 1000;
  const over = ci && !quick && total > BUDGET_S;
  if (over) console.log(`CI=true: npm test took ${Math.round(total)} s, over its budget of ${BUDGET_S} s (${BUDGET_S / 60} minutes)`);
  console.log(`suites: ${count('passed')} passed, ${count('failed') + (ci ? notRun : 0)} failed, ${ci ? 0 : notRun} skipped`);
  process.exit(count('failed') || (ci && notRun) || over ? 1 : 0);
}

module.exports = { SUITES };
if (require.main === module) main();
