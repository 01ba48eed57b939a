'use strict';
// npm test's provisioning of the embedder: Debian's libnode is unpacked, not installed, so the
// libraries it links against must be installed from its own Depends, and a library still missing
// must be named before the link fails on dozens of undefined references.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { dependsNames, unresolved } = require('../scripts/provision');

const ROOT = path.resolve(__dirname, '..');

// A shared library linked against another that is then removed: what ldd shows for libnode on a
// machine without libc-ares2.
function needyLibrary(dir) {
  fs.writeFileSync(path.join(dir, 'gone.c'), 'int lw_gone(void) { return 1; }\n');
  fs.writeFileSync(path.join(dir, 'needy.c'), 'int lw_gone(void);\nint lw_needy(void) { return lw_gone(); }\n');
  execFileSync('gcc', ['-shared', '-fPIC', '-o', path.join(dir, 'libgone.so'), path.join(dir, 'gone.c')]);
  execFileSync('gcc', ['-shared', '-fPIC', '-o', path.join(dir, 'libnode.so.108'), path.join(dir, 'needy.c'),
    `-L${dir}`, '-lgone']);
  fs.unlinkSync(path.join(dir, 'libgone.so'));
  return path.join(dir, 'libnode.so.108');
}

describe('provisioning the embedder: libnode and the libraries it needs', function () {
  this.timeout(30000);
  let dir;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-provision-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads a Debian Depends field as package names: first alternatives, no versions, no architecture", () => {
    const field = 'libbrotli1 (>= 1.0.0), libc-ares2 (>= 1.18.1~), libicu72 (>= 72.1~rc-1~), ' +
      'libssl3 (>= 3.0.0) | libssl1.1, zlib1g (>= 1:1.1.4), node-acorn:any (>= 6.2.1~)';
    assert.deepStrictEqual(dependsNames(field), ['libbrotli1', 'libc-ares2', 'libicu72', 'libssl3', 'zlib1g', 'node-acorn']);
  });

  it('names a library the loader cannot find, and none for a library whose needs resolve', () => {
    const lib = needyLibrary(dir);
    assert.deepStrictEqual(unresolved(lib), ['libgone.so']);
    assert.deepStrictEqual(unresolved(execFileSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim()), []);
  });

  it("the embedder's build stops before linking and names the missing library", () => {
    const lib = needyLibrary(dir);
    const r = spawnSync('make', ['-s', '-C', path.join(ROOT, 'test', 'embedder'), 'check-libs', `LIB=${path.dirname(lib)}`],
      { encoding: 'utf8' });
    assert.notStrictEqual(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /libnode\.so\.108 needs libgone\.so and the loader cannot find it: as root, node scripts\/provision\.js/);
  });

  it("the package list the Makefile unpacks holds libnode and its builtins, so provisioning installs only the rest", () => {
    const debs = execFileSync('make', ['-s', '-C', path.join(ROOT, 'test', 'embedder'), 'print-debs'], { encoding: 'utf8' })
      .trim().split(/\s+/);
    assert.ok(debs.some((d) => /^libnode\d+$/.test(d)), debs.join(' '));
    assert.ok(debs.includes('node-cjs-module-lexer'), debs.join(' '));
  });
});
