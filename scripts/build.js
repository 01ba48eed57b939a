'use strict';
// `npm install` builds the addon with node-gyp against the headers installed with Node itself
// when they are there (Debian's nodejs puts them in <prefix>/include/node), so that no header
// download is needed; elsewhere node-gyp finds or fetches them as usual.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

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
