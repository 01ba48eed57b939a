'use strict';
// `npm run prebuild`: the prebuilt addon of this machine's platform, in prebuildify's layout
// (prebuilds/<platform>-<arch>/lagwatch.node, Node-API: one file for every Node and Electron), for
// node-gyp-build to find. Built against the headers installed with Node (no download), stripped;
// on Linux it must need no glibc symbol newer than GLIBC_2.17, so that it loads on old
// distributions (checked here with objdump; the build fails otherwise).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const prefix = path.resolve(path.dirname(process.execPath), '..');
const env = { ...process.env };
if (!env.npm_config_nodedir && fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) {
  env.npm_config_nodedir = prefix;
}
// prebuildify runs node-gyp by name: npm's own (as `npm run` sets it, or next to this Node).
if (!env.PREBUILD_NODE_GYP) {
  const bundled = path.join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (env.npm_config_node_gyp) env.PREBUILD_NODE_GYP = env.npm_config_node_gyp;
  else if (fs.existsSync(bundled)) env.PREBUILD_NODE_GYP = bundled;
}
const prebuildify = require.resolve('prebuildify/bin.js');
const r = spawnSync(process.execPath, [prebuildify, '--napi', '--strip', '-t', process.versions.node], {
  cwd: root, env, stdio: 'inherit',
});
if (r.status !== 0) process.exit(r.status === null ? 1 : r.status);

const out = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'lagwatch.node');
if (!fs.existsSync(out)) {
  console.error(`lagwatch: prebuildify wrote no ${out}`);
  process.exit(1);
}
if (process.platform === 'linux') {
  const dump = spawnSync('objdump', ['-T', out], { encoding: 'utf8' });
  if (dump.status !== 0) {
    console.error(`lagwatch: objdump -T failed: ${dump.stderr}`);
    process.exit(1);
  }
  const versions = [...new Set(dump.stdout.match(/GLIBC_[0-9.]+/g) || [])];
  const newer = versions.filter((v) => {
    const [maj, min] = v.slice(6).split('.').map(Number);
    return maj > 2 || (maj === 2 && min > 17);
  });
  if (newer.length) {
    console.error(`lagwatch: ${out} needs ${newer.join(', ')}: newer than GLIBC_2.17`);
    process.exit(1);
  }
  console.log(`lagwatch: ${path.relative(root, out)}: glibc symbols ${versions.sort().join(', ')} (none newer than 2.17)`);
}
