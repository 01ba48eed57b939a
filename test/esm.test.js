'use strict';
// lagwatch from ESM (SPEC §7): every export importable by name and by default, from 'lagwatch',
// 'lagwatch/register' and 'lagwatch/prom-client', each the very object CommonJS gets (one module
// instance, so one current() per thread). A child process of this Node (process.execPath:
// scripts/matrix.js runs this file under Node 20, 22, 24 and 26) imports
// test/fixtures/esm-imports.mjs, which resolves 'lagwatch' by the package's self-reference, as an
// app resolves it from node_modules.
const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const FIXTURE = path.join(__dirname, 'fixtures', 'esm-imports.mjs');
const lw = require(ROOT);

// The environment without lagwatch's and OpenTelemetry's settings (register reads them), but
// with LAGWATCH_ADDON: the matrix and the sanitizer run name their build of the addon with it.
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if ((k.startsWith('LAGWATCH_') && k !== 'LAGWATCH_ADDON') || k.startsWith('OTEL_')) continue;
    env[k] = v;
  }
  delete env.NODE_OPTIONS;
  return env;
}

describe(`ESM imports (${process.version})`, function () {
  this.timeout(60000);
  let report;

  before(() => {
    const r = spawnSync(process.execPath, [FIXTURE], { cwd: ROOT, env: cleanEnv(), encoding: 'utf8', timeout: 50000 });
    assert.strictEqual(r.status, 0, `the ESM fixture failed (exit ${r.status}, ${r.signal || 'no signal'}):\n${r.stderr}`);
    const line = r.stdout.trim().split('\n').pop();
    report = JSON.parse(line);
    assert.strictEqual(report.node, process.version);
  });

  it('imports every export of lib/index.js by name, each the CommonJS export itself', () => {
    const names = Object.keys(lw).sort();
    // The fixture names each export in its `import { ... }`: a new export goes there too.
    assert.deepStrictEqual([...report.byName].sort(), names, 'the fixture imports every export by name');
    assert.deepStrictEqual([...report.cjsNames].sort(), names);
    assert.deepStrictEqual(report.differentByName, []);
  });

  it("Node's export detection finds every name (import * as)", () => {
    assert.deepStrictEqual([...report.namespaceNames].sort(), Object.keys(lw).sort());
    assert.deepStrictEqual(report.differentInNamespace, []);
  });

  it('the default import is the CommonJS module object, as is its .default', () => {
    assert.strictEqual(report.defaultIsCjs, true);
    assert.strictEqual(report.namespaceDefaultIsCjs, true);
    assert.strictEqual(lw.default, lw, "require('lagwatch').default is the module itself");
    assert.ok(!Object.keys(lw).includes('default'), 'default is not enumerable');
  });

  it("'lagwatch/register' imported by default is the set it started, the one current() returns", () => {
    assert.strictEqual(report.registeredIsCjs, true);
    assert.strictEqual(report.registeredNamespaceDefault, true);
    assert.strictEqual(report.registeredRunning, true);
    assert.strictEqual(report.currentIsRegistered, true);
  });

  it("'lagwatch/prom-client' is importable by name, the CommonJS export itself", () => {
    assert.strictEqual(report.promClientIsCjs, true);
  });

  it('a simulation through the imports: a 6 s block is one hang', () => {
    assert.strictEqual(report.simulatedIsInstance, true);
    assert.strictEqual(report.hangs, 1);
  });
});
