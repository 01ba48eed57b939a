// lagwatch's types as a TypeScript user gets them: `npm pack`'s tarball is unpacked into a
// temporary node_modules/lagwatch beside @opentelemetry/api and @types/node (no `paths`, nothing
// from this checkout's lib/), and the consumer projects of test/types/consumers/ (node10 and
// node16 CommonJS, nodenext CommonJS and ESM, bundler, and one that loads Node's types) are
// compiled there with `tsc --strict` of TypeScript 5 and of TypeScript 7 (devDependencies
// `typescript` and `typescript-7`); three of them are also emitted and run. Only node-types sets
// "types": the others compile as a project with no "types" setting does, where TypeScript 7
// includes no @types package, so the declarations must stand alone. TypeScript 7 removed node10
// resolution and `esModuleInterop: false`: the two consumers that use them run under 5 only.
// @arethetypeswrong/cli checks the same tarball under node10, node16 (from CommonJS and from ESM)
// and bundler resolution. The declarations must name every export of lib/index.js, and name
// exactly what the core's tables hold (the binding's export of each): the monitors and their
// options, the reasons, the kinds of a stall and of a clock jump, the lifecycle states, the
// causes of a hang.
const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const CONSUMERS = path.join(__dirname, 'types', 'consumers');
// Each TypeScript the consumers compile with, by major version.
// (TypeScript 7's "exports" does not list bin/tsc: found from its package.json.)
const tscOf = (name) => path.join(path.dirname(require.resolve(`${name}/package.json`)), 'bin', 'tsc');
const TSC = { 5: tscOf('typescript'), 7: tscOf('typescript-7') };
// The consumers, each with the TypeScript versions whose options it uses.
const CONSUMERS_BY_VERSION = {
  'node10-cjs': [5], 'node16-cjs': [5], 'nodenext-cjs': [5, 7], 'nodenext-esm': [5, 7], bundler: [5, 7], 'node-types': [5, 7],
};
const ATTW = path.join(path.dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist', 'index.js');
// The directory of a package installed in this checkout's node_modules (a devDependency).
function pkgDir(name) {
  const dir = path.join(ROOT, 'node_modules', ...name.split('/'));
  assert.ok(fs.existsSync(path.join(dir, 'package.json')), `${name} is not installed (npm install)`);
  return dir;
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120000, ...options });
  if (r.error) throw r.error;
  return r;
}
const output = (r) => `${r.stdout}${r.stderr}`.trim();

function link(target, at) {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at, 'dir');
}

describe('types: the packed tarball under tsc --strict and attw', function () {
  this.timeout(120000);
  let tmp;
  let tarball;
  let installed;
  let failures = 0;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-types-'));
    const pack = run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT });
    assert.strictEqual(pack.status, 0, `npm pack: ${pack.stderr}`);
    tarball = path.join(tmp, JSON.parse(pack.stdout)[0].filename);
    installed = path.join(tmp, 'node_modules', 'lagwatch');
    fs.mkdirSync(installed, { recursive: true });
    const tar = run('tar', ['xzf', tarball, '-C', installed, '--strip-components=1']);
    assert.strictEqual(tar.status, 0, `tar: ${tar.stderr}`);
    // What a consumer has installed beside it: the peer dependency, Node's types, prom-client (an
    // optional peer, for lagwatch/prom-client) and (to run) lagwatch's dependency.
    for (const name of ['@opentelemetry/api', '@types/node', 'node-gyp-build', 'prom-client']) {
      link(pkgDir(name), path.join(tmp, 'node_modules', ...name.split('/')));
    }
    for (const name of fs.readdirSync(CONSUMERS)) {
      if (fs.statSync(path.join(CONSUMERS, name)).isDirectory()) {
        fs.cpSync(path.join(CONSUMERS, name), path.join(tmp, name), { recursive: true });
      }
    }
    // One consumer also has the optional @opentelemetry/api-logs, to pass its Logger.
    link(pkgDir('@opentelemetry/api-logs'), path.join(tmp, 'node16-cjs', 'node_modules', '@opentelemetry', 'api-logs'));
  });

  afterEach(function () {
    if (this.currentTest.state === 'failed') failures++;
  });

  after(() => {
    if (!tmp) return;
    if (failures) console.log(`    (kept for a look: ${tmp})`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('@arethetypeswrong/cli: no problem under node10, node16 (CJS and ESM) and bundler', () => {
    const r = run(process.execPath, [ATTW, tarball, '--profile', 'strict', '--format', 'ascii', '--no-color', '--no-emoji'], { cwd: tmp });
    assert.strictEqual(r.status, 0, `attw found problems:\n${output(r)}`);
    // Every entry point was resolved under every mode (a table row per entry point and mode).
    for (const mode of ['node10', 'node16 (from CJS)', 'node16 (from ESM)', 'bundler']) {
      assert.ok(output(r).includes(mode), `attw checked ${mode}:\n${output(r)}`);
    }
    for (const entry of ['"lagwatch"', '"lagwatch/register"', '"lagwatch/prom-client"']) {
      assert.ok(output(r).includes(entry), `attw checked ${entry}:\n${output(r)}`);
    }
  });

  it('every consumer of test/types/consumers/ is compiled', () => {
    const dirs = fs.readdirSync(CONSUMERS).filter((name) => fs.statSync(path.join(CONSUMERS, name)).isDirectory());
    assert.deepStrictEqual(dirs.sort(), Object.keys(CONSUMERS_BY_VERSION).sort());
  });

  it('TypeScript 5 and 7 are the pinned versions', () => {
    const pkg = require('../package.json');
    for (const [major, name] of [[5, 'typescript'], [7, 'typescript-7']]) {
      const r = run(process.execPath, [TSC[major], '--version']);
      assert.match(r.stdout, new RegExp(`^Version ${major}\\.`), `${name}: ${output(r)}`);
      assert.match(pkg.devDependencies[name], /^(npm:typescript@)?\d+\.\d+\.\d+$/, `${name} is pinned exactly`);
    }
  });

  for (const [consumer, versions] of Object.entries(CONSUMERS_BY_VERSION)) {
    for (const major of versions) {
      it(`TypeScript ${major}, tsc --strict: ${consumer} (lagwatch, lagwatch/register and lagwatch/prom-client from the installed tarball)`, () => {
        const dir = path.join(tmp, consumer);
        const r = run(process.execPath, [TSC[major], '-p', dir, '--listFiles'], { cwd: dir });
        const files = r.stdout.split('\n').map((l) => l.trim());
        assert.strictEqual(r.status, 0, `tsc ${major} -p ${consumer}:\n${r.stdout.split('\n').filter((l) => !l.startsWith('/')).join('\n')}${r.stderr}`);
        const fromInstall = (f) => files.includes(path.join(fs.realpathSync(installed), 'lib', f));
        assert.ok(fromInstall('index.d.ts'), `lagwatch's types came from the installed copy:\n${files.join('\n')}`);
        if (consumer !== 'node-types') {
          assert.ok(fromInstall('register.d.ts'), `lagwatch/register's types came from the installed copy:\n${files.join('\n')}`);
          assert.ok(fromInstall('prom-client.d.ts'), `lagwatch/prom-client's types came from the installed copy:\n${files.join('\n')}`);
        }
        assert.ok(!files.some((f) => f.startsWith(path.join(ROOT, 'lib'))), 'nothing from the checkout\'s lib/');
        // No "types" setting: Node's types are not part of the program, and lagwatch's did not need them.
        const nodeTypes = files.some((f) => f.includes(`${path.sep}@types${path.sep}node${path.sep}`));
        assert.strictEqual(nodeTypes, consumer === 'node-types' || major === 5,
          `@types/node ${nodeTypes ? 'was' : 'was not'} loaded:\n${files.join('\n')}`);
      });
    }
  }

  // The types' runtime claims: a default import compiled without esModuleInterop reads `.default`;
  // ESM gets module.exports; current() is the set register started.
  for (const [consumer, main, versions] of [['node16-cjs', 'index.js', [5]], ['nodenext-cjs', 'index.js', [5, 7]], ['nodenext-esm', 'index.mjs', [5, 7]]]) {
    for (const major of versions) {
      it(`TypeScript ${major}, ${consumer}, emitted and run: the imports hold what the types say`, () => {
        const dir = path.join(tmp, consumer);
        const out = path.join(dir, `out-${major}`);
        const c = run(process.execPath, [TSC[major], '-p', dir, '--noEmit', 'false', '--outDir', out], { cwd: dir });
        assert.strictEqual(c.status, 0, `tsc: ${output(c)}`);
        const env = { ...process.env };
        for (const k of Object.keys(env)) if ((k.startsWith('LAGWATCH_') && k !== 'LAGWATCH_ADDON') || k.startsWith('OTEL_')) delete env[k];
        delete env.NODE_OPTIONS;
        // The addon this checkout loads (npm pack carries prebuilds/ only once they are made).
        if (!env.LAGWATCH_ADDON) env.LAGWATCH_ADDON = require('node-gyp-build').resolve(ROOT);
        const r = run(process.execPath, [path.join(out, main)], { cwd: dir, env, timeout: 60000 });
        assert.strictEqual(r.status, 0, `node ${consumer}/out-${major}/${main}:\n${output(r)}`);
        assert.strictEqual(r.stdout.trim(), 'ok');
      });
    }
  }

  it('the declarations name every export of lib/index.js as a value, and `default`', () => {
    const ts = require('typescript');
    const file = path.join(installed, 'lib', 'index.d.ts');
    const program = ts.createProgram([file], { strict: true, noEmit: true, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 });
    const checker = program.getTypeChecker();
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
    const values = checker.getExportsOfModule(symbol)
      .filter((s) => {
        const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
        return (target.flags & ts.SymbolFlags.Value) !== 0 && !checker.getTypeOnlyAliasDeclaration?.(s);
      })
      .map((s) => s.name).sort();
    assert.deepStrictEqual(values, [...Object.keys(require(ROOT)), 'default'].sort());
  });
});

// The types' names of what the core's tables hold, on TypeScript's checker over lib/index.d.ts
// (and lib/reports.d.ts, which it exports): each union is the binding's export of the table, so
// a name added to the core and not to the types fails here. A union's order is the checker's, so
// they are compared as sets.
describe('types: the names of the core\'s tables, from the binding', function () {
  this.timeout(60000);
  const ts = require('typescript');
  const native = require('../lib/native');
  let checker;
  let exported;

  before(() => {
    const file = path.join(ROOT, 'lib', 'index.d.ts');
    const program = ts.createProgram([file], { strict: true, noEmit: true, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 });
    checker = program.getTypeChecker();
    exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file))).map((s) => [s.name, s]));
  });

  // The type an exported name declares; a property's type; a union's members.
  const declared = (name) => {
    const s = exported.get(name);
    assert.ok(s, `lib/index.d.ts exports no ${name}`);
    return checker.getDeclaredTypeOfSymbol(s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  };
  const property = (type, name) => {
    const p = checker.getPropertyOfType(type, name);
    assert.ok(p, `${checker.typeToString(type)} has no property ${name}`);
    return checker.getTypeOfSymbol(p);
  };
  const members = (type) => (type.isUnion() ? type.types : [type]);
  const strings = (type) => members(type).filter((t) => t.isStringLiteral()).map((t) => t.value).sort();
  const keys = (type) => checker.getPropertiesOfType(type).map((p) => p.name).sort();
  const sorted = (names) => [...names].sort();

  it('MonitorName and the keys of MonitorsOptions: monNames()', () => {
    assert.deepStrictEqual(strings(declared('MonitorName')), sorted(native.monNames()));
    assert.deepStrictEqual(keys(declared('MonitorsOptions')), sorted(native.monNames()));
  });

  it('Reason: reasonNames(), and any other string (an app\'s own reasons)', () => {
    const reason = declared('Reason');
    assert.deepStrictEqual(strings(reason), sorted(native.reasonNames()));
    const others = members(reason).filter((t) => !t.isStringLiteral());
    assert.deepStrictEqual(others.map((t) => checker.typeToString(t)), ['string & {}']);
    assert.deepStrictEqual(keys(property(declared('Stats'), 'discarded')), sorted(native.reasonNames()));
  });

  it('StallKind, JumpKind, LifecycleState and a hang cause\'s dominant part: stallKinds(), jumpKinds(), lifecycleStates(), causeNames()', () => {
    const stats = declared('Stats');
    assert.deepStrictEqual(strings(declared('StallKind')), sorted(native.stallKinds()));
    assert.deepStrictEqual(keys(property(stats, 'stalls')), sorted(native.stallKinds()));
    assert.deepStrictEqual(strings(declared('JumpKind')), sorted(native.jumpKinds()));
    assert.deepStrictEqual(keys(property(stats, 'jumps')), sorted(native.jumpKinds()));
    assert.deepStrictEqual(strings(declared('LifecycleState')), sorted(native.lifecycleStates()));
    assert.deepStrictEqual(strings(property(declared('HangCause'), 'dominant')), sorted(native.causeNames()));
    assert.deepStrictEqual(keys(property(stats, 'causes')), sorted(native.causeNames()));
  });

  it('the verbs of a step of Simulation#iteration: simStepVerbs()', () => {
    const iteration = property(declared('Simulation'), 'iteration');
    const steps = checker.getTypeOfSymbol(iteration.getCallSignatures()[0].parameters[0]);
    const verbs = members(checker.getTypeArguments(steps)[0]).flatMap((t) => strings(checker.getTypeArguments(t)[0]));
    assert.deepStrictEqual(sorted(new Set(verbs)), sorted(native.simStepVerbs()));
  });

  it('the options of MonitorsOptions and SetupOptions: optionTables().monitors', () => {
    // A property is an option where it takes a value other than an object ('blocks': true,
    // 'flushIntervalMs': 1000), and its object's keys are options under it ('blocks.stacks').
    const options = (name, type) => [
      ...(members(type).some((t) => !(t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection | ts.TypeFlags.Undefined))) ? [name] : []),
      ...members(type).filter((t) => t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))
        .flatMap((t) => keys(t).map((k) => `${name}.${k}`)),
    ];
    // A monitor itself is no option (`false` leaves it out): only its object's keys are.
    const monitors = declared('MonitorsOptions');
    const named = keys(monitors).flatMap((m) => options(m, property(monitors, m)).filter((o) => o !== m));
    // The set's own options of the core: those not under a monitor ('flushIntervalMs', 'blocks').
    const monitorNames = native.monNames();
    const setKeys = new Set(Object.keys(native.optionTables().monitors).map((o) => o.split('.')[0]).filter((k) => !monitorNames.includes(k)));
    const setup = declared('SetupOptions');
    for (const k of setKeys) named.push(...options(k, property(setup, k)));
    assert.deepStrictEqual(sorted(named), sorted(Object.keys(native.optionTables().monitors)));
  });
});
