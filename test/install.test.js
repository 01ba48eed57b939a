'use strict';
// Installing without a compiler: `npm run prebuild` makes the prebuilt addon of this platform
// (prebuildify's layout, Node-API), `npm pack` carries it, and `npm install --ignore-scripts` of
// the tarball in an empty project — run scripts off, as pnpm and bun do by default — gives a
// working require('lagwatch') in a process whose PATH has no compiler, make or Python: the
// loader (node-gyp-build) finds the prebuild. Without a prebuild the error says what to do.
const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { withoutAsan } = require('./e2e/helpers');

const ROOT = path.resolve(__dirname, '..');
const { prebuildPath } = require('../scripts/prebuild');

const PREBUILD = prebuildPath(`${process.platform}-${process.arch}`);

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 240000, ...options });
  assert.ok(!r.error, `${cmd} ${args.join(' ')}: ${r.error}`);
  assert.strictEqual(r.status, 0, `${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// What a process sees with only `node` on its PATH (no gcc, cc, make, python3, node-gyp).
function bareEnv(tmp) {
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  const env = { ...process.env, ...withoutAsan(), PATH: bin };
  for (const k of Object.keys(env)) if (k.startsWith('npm_') || env[k] === undefined) delete env[k];
  return env;
}

const SMOKE = `
  const lagwatch = require('lagwatch');
  const sim = lagwatch.createSimulation();
  const m = lagwatch.setupAllMonitors({ clock: sim });
  sim.advance(10000); sim.block(6000); sim.advance(10000);
  const stalls = m.conditions.stats().stalls;
  m.stop();
  const real = lagwatch.setupAllMonitors();
  const running = real.monitors.worker.running;
  real.stop();
  console.log(JSON.stringify({ stalls, running, now: lagwatch.now() > 0 }));
`;

describe('install without a compiler (prebuilt addon, npm pack, --ignore-scripts)', function () {
  this.timeout(300000);
  let tmp = null;
  let tarball = null;

  before(() => {
    // npm test makes it first (`npm run prebuild` rebuilds build/ too, so not in the middle of
    // the suites).
    assert.ok(fs.existsSync(PREBUILD), `${PREBUILD} is missing: run \`npm run prebuild\` first`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-install-'));
    const out = run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT });
    tarball = path.join(tmp, JSON.parse(out)[0].filename);
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the tarball carries the prebuilds of darwin-x64, darwin-arm64, linux-arm64, win32-x64 and linux-x64 (and no build/ directory)', () => {
    const list = run('tar', ['tzf', tarball]).split('\n');
    const want = [`${process.platform}-${process.arch}`];
    // `npm run prebuild` on a Linux x64 machine also cross-builds the other four.
    if (want[0] === 'linux-x64') want.push('darwin-x64', 'darwin-arm64', 'linux-arm64', 'win32-x64');
    for (const p of want) {
      const file = `package/${path.relative(ROOT, prebuildPath(p)).split(path.sep).join('/')}`;
      assert.ok(list.includes(file), `${file}: ${list.join('\n')}`);
    }
    assert.ok(!list.some((f) => f.startsWith('package/build/')), 'no build/ in the tarball');
  });

  it('npm install --ignore-scripts <tarball> in an empty project; require(\'lagwatch\') works with no compiler on PATH', () => {
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app });
    const pkg = path.join(app, 'node_modules', 'lagwatch');
    assert.ok(!fs.existsSync(path.join(pkg, 'build')), 'nothing was built');
    const env = bareEnv(tmp);
    for (const tool of ['gcc', 'cc', 'make', 'python3']) {
      assert.notStrictEqual(spawnSync(tool, ['--version'], { env }).status, 0, `${tool} is not reachable`);
    }
    const out = run(path.join(tmp, 'bin', 'node'), ['-e', SMOKE], { cwd: app, env });
    assert.deepStrictEqual(JSON.parse(out.trim()), { stalls: { hang: 1, suspend: 0, pause: 0 }, running: true, now: true });
  });

  it('installed, the prebuild of this platform is required by its path: node-gyp-build (and the memory it costs) is not loaded', () => {
    const app = path.join(tmp, 'app');
    const code = "const l = require('lagwatch'); const m = l.setupAllMonitors(); m.stop(); " +
      "process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((k) => /node-gyp-build|[\\\\/]build[\\\\/]/.test(k))))";
    const out = run(path.join(tmp, 'bin', 'node'), ['-e', code], { cwd: app, env: bareEnv(fs.mkdtempSync(path.join(tmp, 'd-'))) });
    assert.deepStrictEqual(JSON.parse(out.trim()), []);
  });

  it('installed with --ignore-scripts, node-gyp-build gives a Mac (x64 and arm64) a darwin file that passes the macOS checks', function () {
    if (`${process.platform}-${process.arch}` !== 'linux-x64') this.skip(); // made here only
    const { problems } = require('../scripts/macho');
    const pkg = path.join(tmp, 'app', 'node_modules', 'lagwatch');
    for (const arch of ['x64', 'arm64']) {
      // node-gyp-build reads the platform and architecture from npm's config in the environment.
      const found = run(process.execPath, ['-e', `process.stdout.write(require('node-gyp-build').path(${JSON.stringify(pkg)}))`],
        { cwd: pkg, env: { ...process.env, npm_config_platform: 'darwin', npm_config_arch: arch } });
      assert.strictEqual(found, path.join(pkg, 'prebuilds', `darwin-${arch}`, 'lagwatch.node'));
      assert.deepStrictEqual(problems(found, `darwin-${arch}`), []);
    }
  });

  it('npm pack refuses a tarball without every prebuild, naming what is missing (the prepack step)', () => {
    const copy = fs.mkdtempSync(path.join(tmp, 'pack-'));
    fs.cpSync(path.join(ROOT, 'prebuilds'), path.join(copy, 'prebuilds'), { recursive: true });
    fs.rmSync(path.join(copy, 'prebuilds', 'darwin-arm64'), { recursive: true, force: true });
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'prepack.js'), copy], { encoding: 'utf8' });
    assert.strictEqual(r.status, 1);
    assert.match(r.stderr, /^lagwatch: no tarball without every prebuild: missing prebuilds\/darwin-arm64\/\. Make them with `npm run prebuild`/);
    const ok = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'prepack.js'), ROOT], { encoding: 'utf8' });
    assert.strictEqual(ok.status, 0, ok.stderr);
  });

  it('on musl (Alpine) the glibc-tagged Linux prebuild is not offered: the loader says what to do', function () {
    if (process.platform !== 'linux') this.skip();
    const app = path.join(tmp, 'app');
    // node-gyp-build takes the C library from LIBC (else it looks for /etc/alpine-release).
    const r = spawnSync(path.join(tmp, 'bin', 'node'), ['-e', "require('lagwatch')"], {
      cwd: app, env: { ...bareEnv(fs.mkdtempSync(path.join(tmp, 'm-'))), LIBC: 'musl' }, encoding: 'utf8',
    });
    assert.notStrictEqual(r.status, 0, 'a glibc build was offered to musl');
    assert.match(r.stderr, /lagwatch: no addon for linux-x64.*npm rebuild lagwatch/s);
  });

  // LAGWATCH_ADDON names another build; one that is not an addon is refused, never run as
  // JavaScript, and the app runs with the package's own, after one line saying so.
  it('a bad LAGWATCH_ADDON (a missing file, a text file of JavaScript): one line, never run, the package\'s addon used', () => {
    const app = path.join(tmp, 'app');
    const text = path.join(tmp, 'not-an-addon.node');
    fs.writeFileSync(text, "console.log('ran as JavaScript'); process.exit(3);\n");
    for (const [file, why] of [[path.join(tmp, 'missing.node'), /cannot open shared object file/], [text, /file too short|invalid ELF header/]]) {
      const r = spawnSync(path.join(tmp, 'bin', 'node'), ['-e', "const m = require('lagwatch').setupAllMonitors({ stateDir: false }); " +
        "console.log('monitors', m.monitors.worker.running); m.stop();"], {
        cwd: app, env: { ...bareEnv(fs.mkdtempSync(path.join(tmp, 'a-'))), LAGWATCH_ADDON: file }, encoding: 'utf8',
      });
      assert.strictEqual(r.status, 0, r.stderr);
      assert.strictEqual(r.stdout, 'monitors true\n', 'the app ran, with the monitors, and nothing of the file');
      const lines = r.stderr.trimEnd().split('\n');
      assert.strictEqual(lines.length, 1, r.stderr);
      assert.ok(lines[0].startsWith(`lagwatch: LAGWATCH_ADDON=${JSON.stringify(file)} cannot be loaded (`), r.stderr);
      assert.match(lines[0], why);
      assert.ok(lines[0].endsWith("): the package's own addon is used"), r.stderr);
    }
  });

  it('without a prebuild and without a build, require(\'lagwatch\') says what to do', () => {
    const app = path.join(tmp, 'app');
    const pkg = path.join(app, 'node_modules', 'lagwatch');
    fs.rmSync(path.join(pkg, 'prebuilds'), { recursive: true, force: true });
    const r = spawnSync(path.join(tmp, 'bin', 'node'), ['-e', "require('lagwatch')"], {
      cwd: app, env: bareEnv(fs.mkdtempSync(path.join(tmp, 'b-'))), encoding: 'utf8',
    });
    assert.notStrictEqual(r.status, 0);
    assert.match(r.stderr, /lagwatch: no addon for .*npm rebuild lagwatch/s);
  });
});
