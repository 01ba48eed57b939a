'use strict';
// The sources say what and why: a comment never points at an issue or at what once happened, and
// docs/architecture.md's Layout names every file of src/ and lib/ with its one concern, so that a
// newcomer finds the room of a concept from the docs, and a file added without its room said
// fails here.
const assert = require('assert');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

function walk(dir, out = []) {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.name === 'node_modules') continue;
    if (e.isDirectory()) walk(rel, out);
    else out.push(rel);
  }
  return out;
}

// "issue 14", "Issue 27's", "(#12)", "the seed's rule": history, or a pointer into a tracker
// that a reader of the package does not have. The contract is cited as "SPEC §N".
const HISTORY = /\b[Ii]ssues? #?\d+|(^|[\s(])#\d+\b|\bthe seed\b|\bseed's\b/;

// What a line says, comments included: the check reads whole lines, since a string that names
// an issue is as stale as a comment that does.
function historyLines(file) {
  const bad = [];
  fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').forEach((line, i) => {
    if (HISTORY.test(line)) bad.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return bad;
}

const SOURCE = /\.(c|h|cc|js|mjs|cjs|ts)$/;

describe('one room per concept: the sources say what and why', () => {
  it('the pattern catches an issue number, a tracker reference and the seed, and passes SPEC §N', () => {
    for (const s of ['(issue 14)', 'Issue 27\'s run', 'see #12', 'the seed\'s rule', 'as the seed says']) {
      assert.ok(HISTORY.test(s), s);
    }
    for (const s of ['SPEC §6', 'the issuer', '#include "x.h"', 'a[#1]'.replace('#1', '0'), 'seeds']) {
      assert.ok(!HISTORY.test(s), s);
    }
  });

  for (const dir of ['src', 'lib', 'scripts', 'bench']) {
    it(`no issue number or history in ${dir}/`, () => {
      const bad = walk(dir).filter((f) => SOURCE.test(f)).flatMap(historyLines);
      assert.deepStrictEqual(bad, []);
    });
  }

  // The tests too: they cite the contract as the sources do. Left out: what the tests build or
  // fetch (each `out/`: Node's headers, the matrix's downloads) and the two files that hold the
  // pattern's own examples (this one, and readme.test.js's for the docs).
  it('no issue number or history in test/', () => {
    const examples = new Set(['test/rooms.test.js', 'test/readme.test.js']);
    const bad = walk('test').filter((f) => SOURCE.test(f) && !/\/out\//.test(f) && !examples.has(f)).flatMap(historyLines);
    assert.deepStrictEqual(bad, []);
  });
});

describe('docs/architecture.md: its Layout names every file of src/ and lib/', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const layout = (doc.split(/^## Layout$/m)[1] || '').split(/^## /m)[0];
  // Every path-like word of the Layout: "src/core/tracker.c", "lib/index.d.ts".
  const named = new Set(layout.match(/\b(?:src|lib)\/[\w./-]+\.\w+/g) || []);

  it('has a Layout section that names files by their paths', () => {
    assert.ok(named.size > 0, 'no "## Layout" section naming src/… and lib/… paths');
  });

  it('names each file of src/ and lib/', () => {
    const files = [...walk('src'), ...walk('lib')].filter((f) => !f.endsWith('.json'));
    assert.deepStrictEqual(files.filter((f) => !named.has(f)), []);
  });

  it('names no file that does not exist', () => {
    assert.deepStrictEqual([...named].filter((f) => !fs.existsSync(path.join(ROOT, f))), []);
  });
});

// One list of the addon's sources for every build: a file of src/ is built by being there.
describe('the build takes every C file of src/, from one list', () => {
  const { sources, WINDOWS_ONLY } = require('../scripts/sources');
  const { execFileSync } = require('child_process');
  const os = require('os');

  it('scripts/sources.js lists each .c file under src/ (any depth), but the Windows loader\'s hook', () => {
    const files = walk('src').filter((f) => f.endsWith('.c'));
    for (const f of WINDOWS_ONLY) assert.ok(files.includes(f), `${f} exists`);
    assert.deepStrictEqual([...sources()].sort(), files.filter((f) => !WINDOWS_ONLY.includes(f)).sort());
  });

  it('binding.gyp takes its sources from it alone, and the script prints the same list from any directory', () => {
    const target = JSON.parse(fs.readFileSync(path.join(ROOT, 'binding.gyp'), 'utf8')).targets[0];
    assert.deepStrictEqual(target.sources, ['<!@(node scripts/sources.js)']);
    const printed = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'sources.js')], { cwd: os.tmpdir(), encoding: 'utf8' });
    assert.deepStrictEqual(printed.trim().split(' '), sources());
  });

  it('the package carries the script, which a build from source runs', () => {
    const { files } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const f of ['binding.gyp', 'scripts/build.js', 'scripts/sources.js', 'src/']) assert.ok(files.includes(f), `package.json files: ${f}`);
  });
});
