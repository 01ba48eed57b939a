'use strict';
// The macOS prebuilds, made on this Linux machine by `npm run prebuild` (Zig's clang,
// LLVM's Mach-O linker) and never run here: their checks (scripts/macho.js) are what stands
// between a Mac user and an addon that would not load. Each check is proven able to fail: a
// one-file addon built right passes them all, and each deliberately wrong build of it fails the
// one check it breaks. The workflow (.github/workflows/prebuild.yml) runs the files on macOS.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { problems } = require('../scripts/macho');
const { prebuildPath, darwinBuild } = require('../scripts/prebuild');

const FIX = path.join(__dirname, 'fixtures', 'macho');
const ADDON = [path.join(FIX, 'addon.c')];

describe('macOS prebuilds, checked without a Mac', function () {
  this.timeout(120000);
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-macho-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const target of ['darwin-x64', 'darwin-arm64']) {
    it(`${target}: npm run prebuild's file passes every check`, () => {
      const file = prebuildPath(target);
      assert.ok(fs.existsSync(file), `${file} is missing: npm run prebuild`);
      assert.deepStrictEqual(problems(file, target), []);
    });
  }

  // [name, arch, build changes, the check it must fail]
  const wrong = [
    ['right (the control)', 'arm64', {}, null],
    ['right, x64', 'x64', {}, null],
    ['every symbol exported', 'arm64', { exports: false, cflags: ['-fvisibility=default'] }, /^exports: .*_lw_fixture_helper/],
    ['no code signature', 'arm64', { sign: false }, /^signature: /],
    ['named after its build directory', 'arm64', { installName: '/tmp/build/Release/lagwatch.node' }, /^id: LC_ID_DYLIB names \/tmp\/build\/Release\/lagwatch\.node/],
    ['made for macOS 13', 'arm64', { minos: '13.0' }, /^minos: needs macOS 13\.0, newer than 11\.0/],
    ['x64 made for macOS 11', 'x64', { minos: '11.0' }, /^minos: needs macOS 11\.0, newer than 10\.15/],
    ['a second library (libz)', 'arm64', { cflags: ['-DLW_WRONG_ZLIB'], link: [path.join(FIX, 'libz.tbd')] }, /^dylibs: loads .*libz\.1\.dylib/],
    ['linked against node instead of dynamic_lookup', 'arm64', { link: [path.join(FIX, 'node.tbd')] },
      [/^dylibs: loads .*@executable_path\/node/, /^flat: .*_napi_create_double from @executable_path\/node/]],
    ['a libSystem symbol macOS 10.15 lacks', 'x64', { cflags: ['-DLW_WRONG_NEWER', '-Wno-unguarded-availability-new'] }, /^libSystem: _pthread_jit_write_protect_np not known in macOS 10\.15/],
  ];
  for (const [name, arch, extra, fails] of wrong) {
    it(`${fails ? 'fails' : 'passes'}: ${name}`, () => {
      const out = darwinBuild(arch, path.join(dir, `${name.replace(/\W+/g, '-')}.node`), { sources: ADDON, ...extra });
      const got = problems(out, `darwin-${arch}`);
      if (fails === null) assert.deepStrictEqual(got, []);
      else {
        const want = Array.isArray(fails) ? fails : [fails];
        assert.strictEqual(got.length, want.length, got.join('\n'));
        want.forEach((re, i) => assert.match(got[i], re));
      }
    });
  }

  it('fails: an arm64 file checked as the x64 prebuild', () => {
    const out = darwinBuild('arm64', path.join(dir, 'arch.node'), { sources: ADDON });
    assert.ok(problems(out, 'darwin-x64').some((p) => /^arch: built for CPU type 0x100000c, not x86_64/.test(p)));
  });

  it('fails: a file that is no Mach-O (the Linux prebuild)', () => {
    assert.deepStrictEqual(problems(prebuildPath('linux-x64'), 'darwin-x64'), ['arch: not a 64-bit Mach-O file']);
  });
});
