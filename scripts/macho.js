'use strict';
// The checks every macOS prebuild passes before it is kept (scripts/prebuild.js), read back from
// the file with Debian's llvm-objdump (llvm-14): no Mac is needed to tell a dylib that would not
// load there, or would load only on a newer macOS than the README promises.
//
//  - its architecture (the Mach-O header's CPU type) is the target's;
//  - its minimum macOS (LC_BUILD_VERSION's minos, or LC_VERSION_MIN_MACOSX) is at most the
//    target's: 10.15 for x64, 11.0 for arm64;
//  - its own name (LC_ID_DYLIB) is its file name, no build directory of this machine;
//  - it carries a code signature (LC_CODE_SIGNATURE: ad hoc; Apple silicon loads no unsigned code);
//  - it loads libSystem and nothing else (LC_LOAD_DYLIB and its weak/reexport/lazy kinds);
//  - it exports the Node-API entry points and nothing else (the exports trie: what dyld sees);
//  - every Node-API and libuv symbol is bound in the flat namespace (found in whatever process
//    loads the addon: node, Electron), none to a library by name;
//  - every symbol it takes from libSystem is one that macOS 10.15 has (LIBSYSTEM_10_15, each
//    checked against Apple's headers' availability: a new one fails the check until it is added
//    here after that check), or is weakly bound (absent: NULL, tested before use).
const { spawnSync } = require('child_process');

const OBJDUMP = process.env.LAGWATCH_LLVM_OBJDUMP || 'llvm-objdump-14';

const TARGETS = {
  'darwin-x64': { cpu: 0x01000007, arch: 'x86_64', minos: '10.15' },
  'darwin-arm64': { cpu: 0x0100000c, arch: 'arm64', minos: '11.0' },
};

// Node-API's module entry points (NAPI_MODULE_INIT): the only exports.
const EXPORTS = ['_napi_register_module_v1', '_node_api_module_get_api_version_v1'];

// What the addon may take from libSystem: each in macOS 10.15 or earlier (its <availability>
// where it is newer than 10.0: clock_gettime and mach_continuous_time 10.12, memset_pattern16
// 10.5, thread_info/mach_* since Mach 3 in 10.0; the *at calls 10.10; fstat$INODE64, the 64-bit
// inode fstat, 10.5; pthread_setname_np, naming the calling thread, 10.6). dyld_stub_binder is
// dyld's own.
const LIBSYSTEM_10_15 = new Set([
  'dyld_stub_binder', '___error', '___stack_chk_fail', '___stack_chk_guard', '_abort', '_bzero', '_calloc',
  '_clock_gettime', '_close', '_fclose', '_fopen', '_fprintf', '_fread', '_free', '_frexp', '_fsync', '_getpid',
  '_ldexp', '_log1p', '_mach_absolute_time', '_mach_continuous_time', '_mach_port_deallocate', '_mach_task_self_',
  '_mach_thread_self', '_mach_timebase_info', '_malloc', '_memchr', '_memcmp', '_memcpy', '_memmove',
  '_memset', '_memset_pattern16', '_open', '_pthread_mutex_lock', '_pthread_mutex_unlock', '_qsort',
  '_read', '_realloc', '_rename', '_sigaction', '_snprintf', '_strchr', '_strcmp', '_strcpy', '_strlen',
  '_strncmp', '_strstr', '_strtod', '_strtoull', '_sysctlbyname', '_thread_info', '_unlink', '_vsnprintf',
  '_write', '___memcpy_chk', '___memmove_chk', '___memset_chk', '___snprintf_chk', '___strcpy_chk',
  '___vsnprintf_chk', '_mkdir', '_stat', '_fstat', '_lseek', '_ftruncate', '_getuid', '_ceil', '_floor', '___bzero',
  '_geteuid', '_openat', '_renameat', '_unlinkat', '_fstat$INODE64', '_pthread_setname_np', '_kill', '_sigprocmask',
]);

function objdump(args, file) {
  const r = spawnSync(OBJDUMP, ['--macho', ...args, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${OBJDUMP}: ${r.error.code === 'ENOENT' ? 'not found (apt-get install llvm-14)' : r.error.message}`);
  if (r.status !== 0) throw new Error(`${OBJDUMP} ${args.join(' ')} ${file} failed: ${r.stderr}`);
  return r.stdout;
}

const versionNumber = (v) => v.split('.').map(Number).reduce((a, x, i) => a + x * 100 ** (2 - i), 0);

// The load commands, each { cmd, fields: { name: value } }.
function loadCommands(file) {
  const out = objdump(['--private-headers'], file);
  const cmds = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\w+) (.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'cmd') cmds.push({ cmd: m[2].trim(), fields: {} });
    else if (cmds.length > 0) cmds[cmds.length - 1].fields[m[1]] = m[2].trim();
  }
  return cmds;
}

// Every binding of an imported symbol: { symbol, dylib, weak } from the bind, lazy-bind and
// weak-bind tables (the dylib column: 'flat-namespace' or a library's short name).
function bindings(file) {
  const got = [];
  for (const [flag, weak] of [['--bind', false], ['--lazy-bind', false], ['--weak-bind', true]]) {
    for (const line of objdump([flag], file).split('\n')) {
      const cols = line.trim().split(/\s+/);
      const sym = cols[cols.length - 1];
      if (cols.length < 4 || !/^[_a-z]/.test(sym) || cols[0] === 'segment') continue;
      const dylib = cols[cols.length - 2];
      got.push({ symbol: sym, dylib, weak: weak || /weak/i.test(line) });
    }
  }
  return got;
}

// The problems of `file` as the prebuild of `target` ('darwin-x64' / 'darwin-arm64'): [] if none.
// Each problem names the check it failed: arch, minos, id, signature, dylibs, exports, flat,
// libSystem.
function problems(file, target) {
  const t = TARGETS[target];
  if (!t) throw new Error(`no Mach-O target ${target}`);
  const out = [];
  const fs = require('fs');
  const b = fs.readFileSync(file);
  if (b.length < 8 || b.readUInt32LE(0) !== 0xfeedfacf) return [`arch: not a 64-bit Mach-O file`];
  const cpu = b.readUInt32LE(4);
  if (cpu !== t.cpu) out.push(`arch: built for CPU type 0x${cpu.toString(16)}, not ${t.arch}`);
  const cmds = loadCommands(file);
  const build = cmds.find((c) => c.cmd === 'LC_BUILD_VERSION' || c.cmd === 'LC_VERSION_MIN_MACOSX');
  const minos = build && (build.fields.minos || build.fields.version);
  if (!minos) out.push('minos: no minimum macOS (LC_BUILD_VERSION) in the file');
  else if (versionNumber(minos) > versionNumber(t.minos)) out.push(`minos: needs macOS ${minos}, newer than ${t.minos}`);
  const id = cmds.find((c) => c.cmd === 'LC_ID_DYLIB');
  const idName = id && (id.fields.name || '').replace(/ \(offset \d+\)$/, '');
  if (idName !== 'lagwatch.node') out.push(`id: LC_ID_DYLIB names ${idName || 'nothing'} (not lagwatch.node)`);
  if (!cmds.some((c) => c.cmd === 'LC_CODE_SIGNATURE')) out.push('signature: no code signature (LC_CODE_SIGNATURE)');
  const dylibs = cmds.filter((c) => /^LC_(LOAD|LOAD_WEAK|REEXPORT|LAZY_LOAD|LOAD_UPWARD)_DYLIB$/.test(c.cmd))
    .map((c) => (c.fields.name || '').replace(/ \(offset \d+\)$/, ''));
  const other = dylibs.filter((d) => d !== '/usr/lib/libSystem.B.dylib');
  if (other.length || dylibs.length === 0) out.push(`dylibs: loads ${dylibs.join(', ') || 'nothing'} (only /usr/lib/libSystem.B.dylib may be)`);
  const exported = objdump(['--exports-trie'], file).split('\n').map((l) => l.trim().split(/\s+/)[1]).filter(Boolean)
    .filter((s) => s.startsWith('_'));
  const extra = exported.filter((s) => !EXPORTS.includes(s));
  if (extra.length || !exported.includes('_napi_register_module_v1')) {
    out.push(`exports: ${exported.length} symbols exported (${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', …' : ''}); only ${EXPORTS.join(', ')} may be`);
  }
  const binds = bindings(file);
  const nodeTwoLevel = binds.filter((x) => /^_(napi_|node_api_|uv_)/.test(x.symbol) && x.dylib !== 'flat-namespace');
  if (nodeTwoLevel.length) out.push(`flat: ${nodeTwoLevel.map((x) => `${x.symbol} from ${x.dylib}`).slice(0, 5).join(', ')} (Node-API and libuv must be flat-bound)`);
  // Undefined externals: no flags before *UND* (a debug map's entries carry 'd').
  const undefinedNode = objdump(['--syms'], file).split('\n').map((l) => /^[0-9a-f]+\s+\*UND\*\s+(\S+)$/.exec(l))
    .filter(Boolean).map((m) => m[1]).filter((s) => /^_(napi_|node_api_|uv_)/.test(s));
  const bound = new Set(binds.map((x) => x.symbol));
  const unbound = undefinedNode.filter((s) => !bound.has(s));
  if (unbound.length) out.push(`flat: ${unbound.slice(0, 5).join(', ')} undefined and not bound`);
  const sys = binds.filter((x) => x.dylib === 'libSystem' && !x.weak && !LIBSYSTEM_10_15.has(x.symbol));
  if (sys.length) out.push(`libSystem: ${[...new Set(sys.map((x) => x.symbol))].join(', ')} not known in macOS 10.15 (check its availability, then add it to scripts/macho.js)`);
  return out;
}

module.exports = { TARGETS, EXPORTS, problems, OBJDUMP };
