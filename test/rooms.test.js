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

// The built-in reasons, the kinds of a stall and the kinds of a clock jump are each one table of
// the core (src/core/tracker.c's lw_reasons, src/core/conditions.c's names), which the binding
// exports: no other file of src/ writes the whole list again, lib/ builds from the export, and
// the types name exactly what it holds.
describe('one table each: the reasons, the stall kinds, the jump kinds', () => {
  const native = require('../lib/native');
  const TABLES = [
    { what: 'the reasons', names: native.reasonNames(), type: 'Reason', room: 'src/core/tracker.c' },
    { what: 'the stall kinds', names: native.stallKinds(), type: 'StallKind', room: 'src/core/conditions.c' },
    { what: 'the jump kinds', names: native.jumpKinds(), type: 'JumpKind', room: 'src/core/conditions.c' },
  ];
  const types = fs.readFileSync(path.join(ROOT, 'lib/index.d.ts'), 'utf8');

  // Every string literal of a file, whatever its quotes.
  const literals = (text) => new Set([...text.matchAll(/(['"])([a-z]+)\1/g)].map((m) => m[2]));
  // The files whose string literals hold every name of `names`.
  const listing = (files, names) => files.filter((f) => {
    const have = literals(fs.readFileSync(path.join(ROOT, f), 'utf8'));
    return names.every((n) => have.has(n));
  });

  it('the binding exports each table, and the check would see a list written again', () => {
    assert.deepStrictEqual(native.reasonNames(), ['hidden', 'frozen', 'suspend', 'pause', 'throttled', 'debugger']);
    assert.deepStrictEqual(native.stallKinds(), ['hang', 'suspend', 'pause']);
    assert.deepStrictEqual(native.jumpKinds(), ['suspend', 'step']);
    assert.ok(literals("const K = ['suspend', \"step\"];").has('step'));
  });

  for (const t of TABLES) {
    it(`${t.what}: index.d.ts's ${t.type} names exactly the core's`, () => {
      const m = types.match(new RegExp(`export type ${t.type} = ([^;]+);`));
      assert.ok(m, `no "export type ${t.type}" in lib/index.d.ts`);
      const named = [...m[1].matchAll(/'([a-z]+)'/g)].map((x) => x[1]);
      assert.deepStrictEqual(named, t.names);
    });

    it(`${t.what}: only ${t.room} lists them in src/, and lib/ lists none`, () => {
      const src = walk('src').filter((f) => /\.(c|h)$/.test(f));
      assert.deepStrictEqual(listing(src, t.names), [t.room]);
      const lib = walk('lib').filter((f) => /\.js$/.test(f));
      assert.deepStrictEqual(listing(lib, t.names), []);
    });
  }
});
