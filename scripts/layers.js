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
//    file: a struct is known by its declaration, nested ones counted on their own).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const SRC = path.join(root, 'src');
const LIB = path.join(root, 'lib');
const MAX_LINES = 500;
const MAX_FIELDS = 40;
const LAYERS = ['platform', 'core', 'driver', 'binding'];
const include = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
const VALUES = new Set([
  // in: options, errors, the clocks' readings, the worker's messages
  'lw_conditions_config_s', 'lw_monset_core_config_s', 'lw_err_s', 'lw_readings_s', 'lw_main_readings_s',
  'lw_worker_readings_s', 'lw_msg_s',
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
// MAX_FIELDS fields.
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
      const fields = (node.inner || []).filter((k) => k.kind === 'FieldDecl').length;
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

module.exports = { includeBreaches, fieldBreaches, sizeBreaches };

if (require.main === module) {
  const breaches = [...includeBreaches(), ...fieldBreaches(), ...sizeBreaches()];
  for (const b of breaches) console.log(b);
  console.log(`${breaches.length} breach(es) of the layering`);
  process.exit(breaches.length ? 1 : 0);
}
