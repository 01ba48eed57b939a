'use strict';
// `npm install`: a prebuilt addon that fits this platform (prebuilds/<platform>-<arch>/, found
// and loaded by node-gyp-build, the loader lib/native.js uses) is used as it is; otherwise — or
// with `npm install --build-from-source`, or in a checkout that has a build/ already — the addon
// is built with node-gyp against the headers installed with Node itself when they are there
// (Debian's nodejs puts them in <prefix>/include/node), so that no header download is needed;
// elsewhere node-gyp finds or fetches them as usual.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const fromSource = process.env.npm_config_build_from_source === 'true' || process.argv.includes('--from-source');
if (!fromSource && !fs.existsSync(path.join(root, 'build'))) {
  try {
    const found = require('node-gyp-build').path(root);
    require(found); // it loads here: nothing to build
    console.log(`lagwatch: using the prebuilt ${path.relative(root, found)}`);
    process.exit(0);
  } catch {
    // no prebuild fits (or it does not load): build from source
  }
}

const prefix = path.resolve(path.dirname(process.execPath), '..');
const args = ['rebuild'];
if (!process.env.npm_config_nodedir && fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) {
  args.push(`--nodedir=${prefix}`);
}
const gyp = process.env.npm_config_node_gyp;
const cmd = gyp ? process.execPath : 'node-gyp';
const argv = gyp ? [gyp, ...args] : args;
const r = spawnSync(cmd, argv, { stdio: 'inherit', shell: !gyp && process.platform === 'win32' });
if (r.error) {
  console.error(`lagwatch: cannot run node-gyp: ${r.error.message}`);
  process.exit(1);
}
process.exit(r.status === null ? 1 : r.status);
