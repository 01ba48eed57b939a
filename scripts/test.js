'use strict';
// `npm test`: every suite, in order, each one's own output shown; exits non-zero if any failed.
//  1. the C unit tests of the core, built and run twice: plain and under ASan + UBSan;
//  2. the shared conformance check of SPEC §2–§5, when ../shared is beside the checkout;
//  3. the mocha tests of the JS API (simulation, bad input, real clock);
//  4. lib/index.d.ts compiled against a usage file.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const steps = [
  ['C core (plain + ASan/UBSan)', 'make', ['-s', '-C', 'test/c']],
];
const conformance = path.resolve(root, '..', 'shared', 'conformance', 'core-rules.js');
if (fs.existsSync(conformance)) steps.push(['conformance', process.execPath, [conformance]]);
steps.push(['mocha', process.execPath, [require.resolve('mocha/bin/mocha.js')]]);
steps.push(['TypeScript declarations', process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'test/types/tsconfig.json']]);

const failed = [];
for (const [name, cmd, args] of steps) {
  console.log(`\n=== ${name}: ${cmd === process.execPath ? 'node' : cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.error || r.status !== 0) failed.push(name);
}
console.log(failed.length ? `\nFAILED: ${failed.join(', ')}` : '\nall suites passed');
process.exit(failed.length ? 1 : 0);
