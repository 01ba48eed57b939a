'use strict';
// What `npm test` needs beyond `npm install`, in one table: each need says how to tell it is
// here, the Debian packages that bring it and the suites that use it. `npm test` calls
// provision() first; `node scripts/provision.js` runs it alone (`--check`: only say what is
// missing, install nothing).
//
// As root with apt-get (a fresh Debian 12 machine, CI), what is missing is installed: the
// packages with `apt-get install -y`, once (a second run finds everything and does nothing);
// Debian's libnode 18 for the embedder cannot be installed beside the machine's Node, so its
// packages are downloaded and unpacked (`make -C test/embedder deps`), and the libraries libnode
// links against are installed from its own Depends (libnodeDepends below). Elsewhere nothing is
// installed: the caller stops at once with one line that names exactly what to install. The Node
// binaries of the platform matrix come from the npm registry, fetched by scripts/matrix.js.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

const onPath = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
const exists = (file) => fs.existsSync(file);
// A file matching `re` in /usr/lib/llvm-*/lib/clang/*/lib/linux/: a shallow walk of the llvm trees.
const clangRuntime = (re) => {
  if (!exists('/usr/lib')) return false;
  for (const llvm of fs.readdirSync('/usr/lib').filter((d) => d.startsWith('llvm-'))) {
    const base = path.join('/usr/lib', llvm, 'lib', 'clang');
    if (!exists(base)) continue;
    for (const v of fs.readdirSync(base)) {
      const linux = path.join(base, v, 'lib', 'linux');
      if (exists(linux) && fs.readdirSync(linux).some((f) => re.test(f))) return true;
    }
  }
  return false;
};

const EMBEDDER_OUT = path.join(root, 'test', 'embedder', 'out');
const EMBEDDER_LIB = path.join(EMBEDDER_OUT, 'root', 'usr', 'lib', 'x86_64-linux-gnu', 'libnode.so.108');

// The shared libraries a binary needs that the dynamic loader cannot find (ldd's "not found").
function unresolved(file) {
  const r = spawnSync('ldd', [file], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return [`(ldd ${path.basename(file)}: ${r.error ? r.error.message : (r.stderr || '').trim()})`];
  return r.stdout.split('\n').filter((l) => /=>\s*not found/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
}

// A Debian `Depends` field as package names: each alternative group's first choice, without its
// version constraint or architecture qualifier ("libc-ares2 (>= 1.18.1~), a | b" → libc-ares2, a).
function dependsNames(field) {
  return field.split(',').map((group) => group.split('|')[0].trim().replace(/\s*\(.*\)$/, '').replace(/:\S+$/, ''))
    .filter(Boolean);
}

const installedDeb = (name) => spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' }).stdout === 'install ok installed';

// Whether installing `name` with apt-get would bring in a Node of Debian's (nodejs, libnode*),
// which would take the place of the machine's own: such a package is unpacked, never installed.
function bringsNode(name) {
  const r = spawnSync('apt-get', ['install', '-s', '-qq', '--no-install-recommends', name], { encoding: 'utf8' });
  if (r.status !== 0) return true;
  return r.stdout.split('\n').some((l) => /^Inst (nodejs|libnode)\S*\s/.test(l));
}

// The Debian packages that libnode needs to link and run and that are not here: read from the
// downloaded libnode package's own Depends (so a newer libnode brings its own list), less the
// packages the embedder's Makefile unpacks and any that would replace the machine's Node.
function libnodeDepends() {
  const deb = fs.readdirSync(EMBEDDER_OUT).find((f) => /^libnode\d+_.*\.deb$/.test(f));
  if (!deb) throw new Error(`no libnode package in ${path.relative(root, EMBEDDER_OUT)} (make -C test/embedder deps downloads it)`);
  const field = sh('dpkg-deb', ['-f', path.join(EMBEDDER_OUT, deb), 'Depends']);
  const unpacked = sh('make', ['-s', '-C', path.join('test', 'embedder'), 'print-debs']).trim().split(/\s+/);
  const wanted = dependsNames(field).filter((n) => !unpacked.includes(n) && !installedDeb(n));
  return { install: wanted.filter((n) => !bringsNode(n)), refused: wanted.filter((n) => bringsNode(n)) };
}

// Each need: `debs` are installed with apt-get when `have()` is false. scripts/test.js's steps
// name the `id`s they cannot run without.
const NEEDS = [
  { id: 'toolchain', what: 'a C toolchain', debs: ['build-essential'], have: () => onPath('make') && onPath('gcc') && onPath('g++') },
  { id: 'python', what: 'Python 3 (node-gyp)', debs: ['python3'], have: () => onPath('python3') },
  { id: 'libuv', what: 'libuv headers', debs: ['libuv1-dev'], have: () => exists('/usr/include/uv.h') },
  { id: 'valgrind', what: 'valgrind', debs: ['valgrind'], have: () => onPath('valgrind') },
  { id: 'clang', what: 'clang', debs: ['clang'], have: () => onPath('clang') },
  { id: 'fuzzer', what: "clang's fuzzer runtime", debs: ['libclang-rt-14-dev'], have: () => clangRuntime(/^libclang_rt\.fuzzer-x86_64\.a$/) },
  { id: 'faketime', what: 'faketime', debs: ['faketime'], have: () => onPath('faketime') },
  { id: 'prometheus', what: 'Prometheus', debs: ['prometheus'], have: () => onPath('prometheus') },
  { id: 'mingw', what: 'the win32-x64 cross compiler', debs: ['mingw-w64'], have: () => onPath('x86_64-w64-mingw32-gcc') },
  { id: 'arm64-gcc', what: 'the linux-arm64 cross compiler', debs: ['gcc-aarch64-linux-gnu', 'libc6-dev-arm64-cross'], have: () => onPath('aarch64-linux-gnu-gcc') && exists('/usr/aarch64-linux-gnu/include/stdio.h') },
  { id: 'wine', what: 'wine', debs: ['wine64'], have: () => exists('/usr/lib/wine/wine64') },
  { id: 'qemu', what: 'qemu', debs: ['qemu-user'], have: () => onPath('qemu-aarch64') },
  { id: 'macho', what: "LLVM's Mach-O linker and reader (the macOS prebuilds)", debs: ['lld-14', 'llvm-14'], have: () => onPath('ld64.lld-14') && onPath('llvm-objdump-14') },
  {
    id: 'libnode',
    what: "Debian's libnode 18, unpacked (make -C test/embedder deps)",
    // Not installed: downloaded and unpacked under test/embedder/out, its builtins copied to
    // /usr/share/nodejs. Needs apt-get's lists (the update below) and root for the copy.
    unpack: true,
    have: () => exists(EMBEDDER_LIB) && exists('/usr/share/nodejs/cjs-module-lexer') && unresolved(EMBEDDER_LIB).length === 0,
  },
];

// What is not here of the needs named by `ids` (all of them by default).
function missing(ids = null) {
  return NEEDS.filter((n) => (!ids || ids.includes(n.id)) && !n.have());
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

// The one line a user reads when nothing can be installed here.
function instruction(list) {
  const debs = list.flatMap((n) => n.debs || []);
  const parts = [];
  if (debs.length) parts.push(`apt-get install -y ${debs.join(' ')}`);
  if (list.some((n) => n.unpack)) parts.push("node scripts/provision.js as root (it unpacks libnode and installs libnode's libraries)");
  return `lagwatch: npm test needs ${list.map((n) => n.what).join(', ')}: run ${parts.join(', then ')}`;
}

function sh(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')}: ${r.error ? r.error.message : `exit ${r.status}`}\n${(r.stderr || '').slice(-3000)}`);
  }
  return r.stdout;
}

// Installs what is missing when it can. Returns { installed: [...], missing: [...], line } where
// `missing` is what is still not here afterwards and `line` the instruction for it.
function provision({ ids = null, install = true, log = console.log } = {}) {
  let list = missing(ids);
  const installed = [];
  if (list.length && install && isRoot() && onPath('apt-get')) {
    const debs = list.flatMap((n) => n.debs || []);
    const t0 = Date.now();
    log(`provisioning: ${list.map((n) => n.what).join(', ')}`);
    sh('apt-get', ['update', '-qq']);
    if (debs.length) {
      sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...debs], {
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    }
    const said = debs.length ? [`installed ${debs.join(' ')}`] : [];
    if (list.some((n) => n.unpack)) {
      sh('make', ['-s', '-C', path.join('test', 'embedder'), 'deps']);
      const libs = libnodeDepends();
      if (libs.install.length) {
        sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...libs.install], {
          env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        });
      }
      said.push(`unpacked libnode${libs.install.length ? ` and installed its libraries ${libs.install.join(' ')}` : ''}` +
        `${libs.refused.length ? ` (not ${libs.refused.join(' ')}: they would replace the machine's Node)` : ''}`);
    }
    installed.push(...list.map((n) => n.what));
    log(`provisioning: ${said.join('; ')}, in ${Math.round((Date.now() - t0) / 1000)} s`);
    list = missing(ids);
  }
  return { installed, missing: list, line: list.length ? instruction(list) : '' };
}

module.exports = { provision, missing, instruction, dependsNames, unresolved, libnodeDepends, NEEDS };

if (require.main === module) {
  const check = process.argv.includes('--check');
  const r = provision({ install: !check });
  if (r.missing.length) {
    console.error(r.line);
    process.exit(1);
  }
  console.log(r.installed.length ? `installed: ${r.installed.join(', ')}` : 'everything npm test needs is here');
}
