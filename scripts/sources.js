'use strict';
// The addon's C sources: every .c file of src/platform, src/core, src/driver and src/binding, but
// the Windows loader's hook (src/platform/win_delayload.c: only a Windows link takes it). One list
// for every build: binding.gyp reads it (`<!@(node scripts/sources.js)`, run by gyp in the
// package's directory), and so do the sanitized build (scripts/test.js) and the cross builds
// (scripts/prebuild.js). A new file of src/ is built with no list to edit.
const fs = require('fs');
const path = require('path');

const DIRS = ['src/platform', 'src/core', 'src/driver', 'src/binding'];
const WINDOWS_ONLY = ['src/platform/win_delayload.c'];

// The sources under `root` (the package's directory), relative to it with '/', sorted.
function sources(root = path.resolve(__dirname, '..')) {
  return DIRS.flatMap((dir) => fs.readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => `${dir}/${f}`))
    .filter((f) => !WINDOWS_ONLY.includes(f));
}

module.exports = { sources, WINDOWS_ONLY };

if (require.main === module) process.stdout.write(`${sources().join(' ')}\n`);
