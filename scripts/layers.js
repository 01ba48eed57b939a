'use strict';
// The layering of src/ (docs/architecture.md), checked: `node scripts/layers.js` prints every
// breach and exits 1 if there is one; test/layers.test.js runs it in npm test.
//
// 1. Includes go one way: platform <- core <- driver <- binding. Platform includes no core,
//    driver or binding header; core no driver or binding header; a driver no binding header. Within the binding, only its monitor-set files (monitors.h, monitors*.c) include driver/monset.h.
// 2. No code outside src/core/ reads or writes a field of the core's state (the conditions, the
//    tracker, the monitor set, the worker, ...): it goes through the core's functions. The core's
//    value types are read and written by their users: what the drivers and the binding pass in
//    (options, readings, messages) and get back (events, stats, snapshots, views), listed in
//    VALUES. Checked on clang's AST (-ast-dump=json), so a field is known by its declaration, not
//    by its name: every member access in a file of src/driver/ or src/binding/ whose field belongs
//    to a struct declared in a header of src/core/ and not in VALUES. A new struct of the core is
//    state until it is listed here.
// 3. One concern per file, small enough to read: no file of src/ or lib/ is over MAX_LINES lines,
//    and no struct declared in src/ has more than MAX_FIELDS fields (on clang's AST of every C
//    file: a struct is known by its declaration, and the fields of a struct defined inside it count
//    as its own, besides the member of that struct).
// 4. One table per concept: the names of the monitors, the reasons, the kinds of a stall and of
//    a clock jump, the lifecycle states and the options under a key ('driftLag.intervalMs') are
//    listed in C by one file each, their room (ROOMS), and lib/ lists none: it takes them from
//    the binding's export of the table (monNames(), ...), where the check takes them too. A list
//    is a group of string literals: in C, one initializer list (`= {` to its brace, nested ones
//    in it), and all of a file's literals outside such lists together (C names a member by its
//    enum: a file that writes two by their strings lists them); in lib/*.js, one array or object
//    literal (nested ones and keys in it) or the labels of one switch. A group with two or more
//    names of a concept lists the concept it has most names of (all of them on a tie): the
//    tables share words ('suspend' is a reason, a stall kind and a jump kind, 'hidden' a reason
//    and a state), and a table has all of its own. It is a breach in lib/ (but those in WAIVED)
//    and in C outside that concept's room; a room without a group of all its names is one too,
//    so a table moved without ROOMS fails. One name alone (passed to a function) is no list.
//    A monitor's name is only in its descriptor (no room: no C list of them at all), and its
//    options are rows of that descriptor: a list of one monitor's options in the file that names
//    it is its own; the set's own options are config.c's.
//    Not checked by words: the hang causes, whose names are also those of a thread's states
//    (the simulation's 'cpu', 'gc', 'blocked', 'starved', 'throttled'), and the undotted options
//    ('blocks', 'flushIntervalMs'), which are also setupAllMonitors' own keys; test/types.test.js
//    checks the types' names of all of them against the binding.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const SRC = path.join(root, 'src');
const LIB = path.join(root, 'lib');
const MAX_LINES = 400;
const MAX_FIELDS = 30;
const LAYERS = ['platform', 'core', 'driver', 'binding'];
// 4. Each concept's room in src/, and the binding's export of its table (`pick`: its names in the
// export; `only`: those of them the check takes).
const ROOMS = {
  // A monitor's name is in its descriptor, in its own file (src/core/monitors.h's table lists the
  // descriptors): no file of C lists two of them.
  monitors: { room: null, from: 'monNames' },
  reasons: { room: 'core/reasons.c', from: 'reasonNames' },
  'stall kinds': { room: 'core/reasons.c', from: 'stallKinds' },
  'jump kinds': { room: 'core/conditions.c', from: 'jumpKinds' },
  'lifecycle states': { room: 'core/conditions.c', from: 'lifecycleStates' },
  // A monitor's options ('driftLag.intervalMs', ...) are rows of its descriptor, in its own file
  // (the one that names it); the set's own ('blocks.thresholdMs', ...) are config.c's.
  options: { room: 'core/config.c', from: 'optionTables', pick: (t) => Object.keys(t.monitors), only: (name) => name.includes('.'), byMonitor: true },
};
// 4. The lists of lib/ that wait for a table of the core to hold what they say, by file and
// concept (none now). A waived list that is gone is a breach too, so that its line goes with it.
const WAIVED = {};
const include = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
const VALUES = new Set([
  // in: options, errors, the clocks' readings, the worker's messages, a SIGCONT as read
  'lw_conditions_config_s', 'lw_monset_core_config_s', 'lw_err_s', 'lw_readings_s', 'lw_main_readings_s',
  'lw_worker_readings_s', 'lw_msg_s', 'lw_continue_s',
  // out: events, causes, intervals, stats and snapshots, the read-only views of batches and
  // metric histograms handed out for a flush or a collection, a monitor's metric's names
  'lw_event_s', 'lw_cause_s', 'lw_interval_s', 'lw_conditions_stats_s', 'lw_hang_rates_s', 'lw_name_snapshot_s',
  'lw_monset_core_stats_s', 'lw_delay_stats_s', 'lw_batch_s', 'lw_agg_s', 'lw_mon_metric_s',
]);

function files(src, dir, ext) {
  const d = path.join(src, dir);
  if (!fs.existsSync(d)) return [];
  return fs.readdirSync(d).filter((f) => ext.some((e) => f.endsWith(e))).map((f) => `${dir}/${f}`);
}

// 1. Includes.
// `src`: the tree to check (test/layers.test.js checks a tree of its own that breaks each rule).
function includeBreaches(src = SRC) {
  const out = [];
  for (const layer of LAYERS) {
    for (const f of files(src, layer, ['.c', '.h'])) {
      const text = fs.readFileSync(path.join(src, f), 'utf8');
      for (const m of text.matchAll(/^#include "([^"]+)"/gm)) {
        const target = path.relative(src, path.resolve(path.join(src, layer), m[1])).split(path.sep).join('/');
        const to = target.split('/')[0];
        if (!LAYERS.includes(to)) continue;
        if (LAYERS.indexOf(to) > LAYERS.indexOf(layer)) out.push(`${f} includes ${target}: ${layer} may not include ${to}`);
        else if (layer === 'binding' && target === 'driver/monset.h' && !/^binding\/monitors(-[a-z]+)?\.[ch]$/.test(f)) {
          out.push(`${f} includes ${target}: only the binding's monitor-set files do`);
        }
      }
    }
  }
  return out;
}

// clang's AST of one C file of `src` (`f`, relative to it).
function astOf(src, f, clang) {
  const r = spawnSync(clang, ['-Xclang', '-ast-dump=json', '-fsyntax-only', '-std=gnu11', '-DNAPI_VERSION=8', `-I${include}`, path.join(src, f)],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error || r.status !== 0) throw new Error(`${clang} on ${f}: ${r.error ? r.error.message : r.stderr.slice(0, 2000)}`);
  return JSON.parse(r.stdout);
}

// Calls visit(node, file, line, context) for each node of `ast`, where `file` and `line` are
// where the node is. clang writes a location's file (and line) only when it changed since the
// last one written: walking the nodes in the order they were written keeps track of both. What
// visit returns is the context of the node's children.
function walkAst(ast, visit) {
  let file = null;
  let line = 0;
  const seen = (loc) => {
    if (!loc) return;
    for (const l of [loc.spellingLoc, loc.expansionLoc, loc]) {
      if (!l) continue;
      if (l.file) file = l.file;
      if (l.line) line = l.line;
    }
  };
  const walk = (node, context) => {
    seen(node.loc);
    if (node.range) {
      seen(node.range.begin);
      seen(node.range.end);
    }
    const inner = visit(node, file, line, context);
    for (const k of node.inner || []) walk(k, inner);
  };
  walk(ast, null);
}

// 2. Field accesses, on clang's AST of each file of the driver and the binding.
function fieldBreaches(src = SRC, clang = 'clang') {
  const out = [];
  for (const f of [...files(src, 'driver', ['.c']), ...files(src, 'binding', ['.c'])]) {
    const coreFields = new Map(); // FieldDecl id -> "struct.field"
    const accesses = []; // [MemberExpr's referenced decl id, line, file]
    walkAst(astOf(src, f, clang), (node, file, line, record) => {
      if (node.kind === 'RecordDecl') record = node.name || record;
      if (node.kind === 'FieldDecl' && !VALUES.has(record) && file && path.resolve(file).startsWith(path.join(src, 'core') + path.sep)) {
        coreFields.set(node.id, `${record || '(anonymous)'}.${node.name}`);
      }
      if (node.kind === 'MemberExpr' && node.referencedMemberDecl) accesses.push([node.referencedMemberDecl, line, file]);
      return record;
    });
    const here = path.join(src, f);
    for (const [id, at, inFile] of accesses) {
      if (coreFields.has(id) && inFile && path.resolve(inFile) === here) out.push(`${f}:${at} touches ${coreFields.get(id)}`);
    }
  }
  return out;
}

// 3. Sizes: files of `src` (every layer) and `lib` over MAX_LINES lines, structs of `src` over
// MAX_FIELDS fields, those of the structs defined inside them counted (fieldCount).
// A struct's fields, with the fields of each struct defined inside it (a nested state is still
// the struct's state).
function fieldCount(node) {
  return (node.inner || []).reduce((n, k) => n + (k.kind === 'FieldDecl' ? 1
    : k.kind === 'RecordDecl' && k.completeDefinition ? fieldCount(k) : 0), 0);
}

function sizeBreaches(src = SRC, lib = LIB, clang = 'clang') {
  const out = [];
  const sources = LAYERS.flatMap((layer) => files(src, layer, ['.c', '.h']).map((f) => path.join(src, f)));
  const scripts = fs.existsSync(lib) ? fs.readdirSync(lib).filter((f) => /\.(js|ts)$/.test(f)).map((f) => path.join(lib, f)) : [];
  for (const file of [...sources, ...scripts]) {
    const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
    if (lines > MAX_LINES) out.push(`${path.relative(path.dirname(src), file)}: ${lines} lines (at most ${MAX_LINES})`);
  }
  const counted = new Set();
  for (const f of LAYERS.flatMap((layer) => files(src, layer, ['.c']))) {
    walkAst(astOf(src, f, clang), (node, file) => {
      if (node.kind !== 'RecordDecl' || !node.completeDefinition || !file || !path.resolve(file).startsWith(src + path.sep)) return null;
      const fields = fieldCount(node);
      const key = `${node.name || '(anonymous)'} (${path.relative(path.dirname(src), path.resolve(file))})`;
      if (fields > MAX_FIELDS && !counted.has(key)) {
        counted.add(key);
        out.push(`struct ${key}: ${fields} fields (at most ${MAX_FIELDS})`);
      }
      return null;
    });
  }
  return out;
}

// 4. Lists. The concepts with their names, from the binding: { concept: { room, from, names } }.
function concepts(native = require('../lib/native')) {
  return Object.fromEntries(Object.entries(ROOMS).map(([concept, r]) => {
    const names = r.pick ? r.pick(native[r.from]()) : native[r.from]();
    return [concept, { ...r, names: r.only ? names.filter(r.only) : names }];
  }));
}

// The groups of string literals of a C file's text: [{ line, literals }], one per initializer
// list (`line`: where it opens) and one of the literals outside them all (`line` null).
function cGroups(text) {
  const groups = [];
  const loose = { line: null, literals: [] };
  let list = null;
  let depth = 0;
  let prev = '';
  const lineAt = (i) => text.slice(0, i).split('\n').length;
  for (const m of text.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"((?:\\.|[^"\\\n])*)"|'(?:\\.|[^'\\\n])*'|[{}=;,()]/g)) {
    const t = m[0];
    if (t.startsWith('/*') || t.startsWith('//')) continue;
    if (t.startsWith('"')) (list || loose).literals.push(m[1]);
    else if (t === '{' && (depth > 0 || prev === '=')) {
      if (depth++ === 0) groups.push(list = { line: lineAt(m.index), literals: [] });
    } else if (t === '}' && depth > 0 && --depth === 0) list = null;
    if (!t.startsWith("'")) prev = t;
  }
  return [...groups, loose];
}

// The groups of string literals of a lib/ file: one per array or object literal that is in no
// other (the literals, and the keys, of those nested in it are its own) and one per switch (its
// labels). TypeScript's parser reads the JavaScript.
function jsGroups(text) {
  const ts = require('typescript');
  const sf = ts.createSourceFile('x.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const groups = [];
  const open = (node) => {
    const g = { line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, literals: [] };
    groups.push(g);
    return g;
  };
  const visit = (node, g) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (g) g.literals.push(node.text);
    } else if (ts.isArrayLiteralExpression(node) || ts.isObjectLiteralExpression(node)) {
      const list = g || open(node);
      node.forEachChild((k) => visit(k, list));
    } else if (ts.isPropertyAssignment(node) && g) {
      if (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) g.literals.push(node.name.text);
      else if (ts.isComputedPropertyName(node.name)) visit(node.name.expression, g);
      visit(node.initializer, g);
    } else if (ts.isSwitchStatement(node)) {
      visit(node.expression, null);
      const labels = open(node);
      for (const clause of node.caseBlock.clauses) {
        if (ts.isCaseClause(clause)) visit(clause.expression, labels);
        for (const st of clause.statements) visit(st, null);
      }
    } else {
      node.forEachChild((k) => visit(k, null));
    }
  };
  visit(sf, null);
  return groups;
}

// The concepts a group lists: those it holds two or more names of, and most of, each with the
// names it holds.
function listed(literals, all) {
  const held = Object.entries(all).map(([concept, c]) => [concept, c.names.filter((n) => literals.includes(n))]);
  const most = Math.max(...held.map(([, names]) => names.length));
  return most < 2 ? [] : held.filter(([, names]) => names.length === most);
}

// Lists of a concept's names in C outside its room, or anywhere in lib/*.js but those waived; a
// room without its table. `all`: the concepts (concepts()); test/layers.test.js gives a tree,
// concepts and waivers of its own.
function listBreaches(src = SRC, lib = LIB, all = concepts(), waived = WAIVED) {
  const out = [];
  const tables = new Set();
  const monitors = all.monitors ? all.monitors.names : [];
  // A byMonitor concept's name that belongs to a monitor ('driftLag.x'): that monitor's.
  const ownerOf = (name) => monitors.find((m) => name.startsWith(`${m}.`));
  for (const f of LAYERS.flatMap((layer) => files(src, layer, ['.c', '.h']))) {
    const groups = cGroups(fs.readFileSync(path.join(src, f), 'utf8'));
    const named = new Set(groups.flatMap((g) => g.literals));
    for (const g of groups) {
      for (const [concept, c] of Object.entries(all)) {
        const own = c.byMonitor ? c.names.filter((n) => !ownerOf(n)) : c.names;
        if (f === c.room && own.every((n) => g.literals.includes(n))) tables.add(concept);
      }
      const of = listed(g.literals, all).filter(([concept, names]) => {
        if (!all[concept].byMonitor) return true;
        // A monitor's own rows, in the file that names it, are its descriptor's.
        const owner = ownerOf(names[0]);
        return !(owner && named.has(owner) && names.every((n) => ownerOf(n) === owner));
      });
      if (of.length === 0 || of.some(([concept]) => all[concept].room === f)) continue;
      for (const [concept, names] of of) {
        const where = g.line === null ? `src/${f}: names ${concept} by string literals outside a list` : `src/${f}:${g.line}: lists ${concept}`;
        const only = all[concept].room === null ? 'each is in its own descriptor' : `only ${all[concept].room} does`;
        out.push(`${where} (${names.join(', ')}): ${only}`);
      }
    }
  }
  for (const [concept, c] of Object.entries(all)) {
    if (c.room !== null && !tables.has(concept)) out.push(`src/${c.room}: holds no list of all the ${concept} (${c.names.join(', ')}), their room in ROOMS`);
  }
  const scripts = fs.existsSync(lib) ? fs.readdirSync(lib).filter((f) => f.endsWith('.js')).sort() : [];
  const unused = new Set(Object.entries(waived).flatMap(([f, cs]) => cs.map((concept) => `${f}: ${concept}`)));
  for (const f of scripts) {
    for (const g of jsGroups(fs.readFileSync(path.join(lib, f), 'utf8'))) {
      for (const [concept, names] of listed(g.literals, all)) {
        if ((waived[`lib/${f}`] || []).includes(concept)) unused.delete(`lib/${f}: ${concept}`);
        else out.push(`lib/${f}:${g.line}: lists ${concept} (${names.join(', ')}): lib/ takes them from the binding's ${all[concept].from}()`);
      }
    }
  }
  for (const w of unused) out.push(`${w}: waived in WAIVED, but no such list is left`);
  return out;
}

module.exports = { includeBreaches, fieldBreaches, sizeBreaches, listBreaches, concepts };

if (require.main === module) {
  const breaches = [...includeBreaches(), ...fieldBreaches(), ...sizeBreaches(), ...listBreaches()];
  for (const b of breaches) console.log(b);
  console.log(`${breaches.length} breach(es) of the layering`);
  process.exit(breaches.length ? 1 : 0);
}
