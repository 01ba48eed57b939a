'use strict';
// `npm pack` and `npm publish` run this first (package.json's prepack): a tarball carries every
// prebuild (scripts/prebuild.js's ALL: darwin-x64, darwin-arm64, linux-arm64, win32-x64,
// linux-x64) or is not made. A missing one is named, with the command that makes it; nothing is
// built here (the cross toolchains are npm test's provisioning, and a pack should not take
// minutes). `node scripts/prepack.js [root]` checks another checkout's prebuilds/.
const fs = require('fs');
const path = require('path');

function missing(root) {
  const { ALL } = require('./prebuild');
  return ALL.filter((t) => {
    const dir = path.join(root, 'prebuilds', t);
    return !fs.existsSync(dir) || !fs.readdirSync(dir).some((f) => f.endsWith('.node'));
  });
}

function main() {
  const root = path.resolve(process.argv[2] || path.join(__dirname, '..'));
  const gone = missing(root);
  if (gone.length > 0) {
    console.error(`lagwatch: no tarball without every prebuild: missing ${gone.map((t) => `prebuilds/${t}/`).join(', ')}. ` +
      `Make them with \`npm run prebuild\` (on Linux x64: all five) and pack again.`);
    process.exit(1);
  }
}

module.exports = { missing };
if (require.main === module) main();
