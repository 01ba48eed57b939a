'use strict';
// The layering of src/ (scripts/layers.js): includes one way, platform <- core <- driver <-
// binding, no field of the core's state touched outside src/core/ (on clang's AST), no file
// of src/ or lib/ over 400 lines nor struct over 30 fields (with those of the structs defined
// in it), and each concept's names listed by one file of the core, none of lib/. Each rule is shown to catch a tree that breaks it, then
// src/ and lib/ are checked.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { includeBreaches, fieldBreaches, sizeBreaches, listBreaches, concepts } = require('../scripts/layers');

function tree(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-layers-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('layering of src/ (scripts/layers.js)', function () {
  this.timeout(120000);

  it('catches an include against the layers, and a binding file other than the monitor set\'s including driver/monset.h', () => {
    const dir = tree({
      'core/a.h': 'typedef struct lw_a_s { int x; } lw_a_t;\n',
      'platform/p.h': '#include "../core/a.h"\n',
      'core/b.c': '#include "../driver/d.h"\n',
      'driver/d.h': '#include "../core/a.h"\n',
      'driver/monset.h': '\n',
      'binding/tracker.c': '#include "../driver/monset.h"\n',
      'binding/monitors.c': '#include "../driver/monset.h"\n',
    });
    try {
      assert.deepStrictEqual(includeBreaches(dir).sort(), [
        'binding/tracker.c includes driver/monset.h: only the binding\'s monitor-set files do',
        'core/b.c includes driver/d.h: core may not include driver',
        'platform/p.h includes core/a.h: platform may not include core',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('catches a driver touching a field of the core\'s state, not of its value types, whatever the field\'s name', () => {
    const dir = tree({
      'core/state.h': 'typedef struct lw_monset_core_s { int running; } lw_monset_core_t;\n'
        + 'typedef struct lw_event_s { int running; } lw_event_t;\n'
        + 'static inline int lw_monset_core_on(const lw_monset_core_t *m) { return m->running; }\n',
      'driver/d.c': '#include "../core/state.h"\n'
        + 'struct own { int running; };\n'
        + 'int f(lw_monset_core_t *m, lw_event_t *e, struct own *o) {\n'
        + '  return lw_monset_core_on(m) + e->running + o->running +\n'
        + '    m->running;\n'
        + '}\n',
    });
    try {
      assert.deepStrictEqual(fieldBreaches(dir), ['driver/d.c:5 touches lw_monset_core_s.running']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('catches a file over 400 lines in src/ or lib/ and a struct over 30 fields, those of a struct defined inside it counted', () => {
    const fields = (n, prefix) => Array.from({ length: n }, (_, i) => `int ${prefix}${i};`).join(' ');
    const dir = tree({
      'src/core/big.h': `typedef struct lw_big_s { ${fields(31, 'f')} } lw_big_t;\n`
        + `typedef struct lw_nest_s { ${fields(10, 'a')} struct lw_inner_s { ${fields(20, 'b')} } inner; } lw_nest_t;\n`
        + `typedef struct lw_oknest_s { ${fields(5, 'c')} struct { ${fields(24, 'd')} } inner; } lw_oknest_t;\n`
        + `typedef struct lw_ok_s { ${fields(30, 'g')} } lw_ok_t;\n`,
      'src/core/big.c': '#include "big.h"\nint lw_big_size(void) { return (int)(sizeof(lw_big_t) + sizeof(lw_nest_t) + sizeof(lw_oknest_t) + sizeof(lw_ok_t)); }\n',
      'src/driver/long.c': 'int x;\n'.repeat(401),
      'src/driver/fits.c': 'int y;\n'.repeat(400),
      'lib/long.js': '\n'.repeat(401),
      'lib/long.d.ts': '\n'.repeat(401),
    });
    try {
      assert.deepStrictEqual(sizeBreaches(path.join(dir, 'src'), path.join(dir, 'lib')).sort(), [
        'lib/long.d.ts: 401 lines (at most 400)',
        'lib/long.js: 401 lines (at most 400)',
        'src/driver/long.c: 401 lines (at most 400)',
        'struct lw_big_s (src/core/big.h): 31 fields (at most 30)',
        'struct lw_nest_s (src/core/big.h): 31 fields (at most 30)',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // Concepts of the check's own, with the words the core's tables share: 'suspend' and 'pause'
  // are reasons and stall kinds, 'suspend' a jump kind, 'hidden' a reason and a state.
  const CONCEPTS = {
    monitors: { room: 'core/monitors.c', from: 'monNames', names: ['driftLag', 'worker', 'liveness'] },
    reasons: { room: 'core/tracker.c', from: 'reasonNames', names: ['hidden', 'suspend', 'pause', 'throttled'] },
    'stall kinds': { room: 'core/conditions.c', from: 'stallKinds', names: ['hang', 'suspend', 'pause'] },
    'jump kinds': { room: 'core/conditions.c', from: 'jumpKinds', names: ['suspend', 'step'] },
    'lifecycle states': { room: 'core/conditions.c', from: 'lifecycleStates', names: ['active', 'hidden', 'frozen'] },
    options: { room: 'core/config.c', from: 'optionTables', names: ['driftLag.intervalMs', 'worker.intervalMs'] },
  };
  // Each room with its table; conditions.c's tables share words with the reasons, each listing
  // its own concept.
  const ROOMS = {
    'src/core/monitors.c': 'static const char *const mon_names[3] = {"driftLag", "worker", "liveness"};\n',
    'src/core/tracker.c': 'const struct r { const char *name; int stop; } reasons[4] = {\n'
      + '  [0] = {"hidden", 0}, [1] = {"suspend", 1}, [2] = {"pause", 1}, [3] = {"throttled", 0}};\n',
    'src/core/conditions.c': 'static const char *const states[3] = {"active", "hidden", "frozen"};\n'
      + 'static const char *const kinds[3] = {"hang", "suspend", "pause"};\n'
      + 'static const char *const jumps[2] = {"suspend", "step"};\n',
    'src/core/config.c': 'static const struct { const char *name; int k; } options[] = {\n'
      + '  {"driftLag.intervalMs", 1},\n  {"worker.intervalMs", 1},\n};\n',
  };
  const lists = (dir, waived = {}) => listBreaches(path.join(dir, 'src'), path.join(dir, 'lib'), CONCEPTS, waived);

  it('its concepts are those of the core\'s tables, named by the binding', () => {
    const native = require('../lib/native');
    const all = concepts();
    assert.deepStrictEqual(Object.keys(all).sort(), Object.keys(CONCEPTS).sort());
    assert.deepStrictEqual(all.monitors.names, native.monNames());
    assert.deepStrictEqual(all.reasons.names, native.reasonNames());
    assert.deepStrictEqual(all['stall kinds'].names, native.stallKinds());
    assert.deepStrictEqual(all['jump kinds'].names, native.jumpKinds());
    assert.deepStrictEqual(all['lifecycle states'].names, native.lifecycleStates());
    assert.deepStrictEqual(all.options.names, Object.keys(native.optionTables().monitors).filter((o) => o.includes('.')));
  });

  it('catches a C list of each concept outside its room, and two names written outside a list; not one name, a comment, nor a table in its room', () => {
    const dir = tree({
      ...ROOMS,
      'src/core/tracker.h': '/* the states: {"active", "frozen"} */\n',
      'src/core/tracker-states.c': 'static const char *const s[] = {"active", "frozen"};\n',
      'src/binding/monitors.c': 'static const char *names[] = {"driftLag", "liveness"};\n'
        + 'int g(const char *);\nint f(void) { return g("worker"); }\n',
      'src/binding/events.c': 'struct e { const char *reason; int n; } ev[] = {{"hidden", 1}, {"suspend", 2}, {"pause", 3}};\n',
      'src/driver/sim.c': 'int strcmp(const char *, const char *);\n'
        + 'static const char *const verbs[] = {"advance", "pause", "sleep"};\n'
        + 'int kind(const char *s) {\n  if (!strcmp(s, "hang")) return 0;\n  return strcmp(s, "pause") ? 2 : 1;\n}\n',
      'src/platform/clocks.c': 'static const char *const j[2] = {\n  "suspend",\n  "step",\n};\n',
      'src/binding/args.c': 'static const char *const o[] = {"driftLag.intervalMs", "worker.intervalMs", "flushIntervalMs"};\n',
    });
    try {
      assert.deepStrictEqual(lists(dir).sort(), [
        'src/binding/args.c:1: lists options (driftLag.intervalMs, worker.intervalMs): only core/config.c does',
        'src/binding/events.c:1: lists reasons (hidden, suspend, pause): only core/tracker.c does',
        'src/binding/monitors.c:1: lists monitors (driftLag, liveness): only core/monitors.c does',
        'src/core/tracker-states.c:1: lists lifecycle states (active, frozen): only core/conditions.c does',
        'src/driver/sim.c: names stall kinds by string literals outside a list (hang, pause): only core/conditions.c does',
        'src/platform/clocks.c:1: lists jump kinds (suspend, step): only core/conditions.c does',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('catches a room that no longer holds its table (moved without the check\'s ROOMS)', () => {
    const dir = tree({
      ...ROOMS,
      'src/core/monitors.c': 'int lw_mon_count(void) { return 3; }\n',
      'src/core/monitor-table.c': ROOMS['src/core/monitors.c'],
    });
    try {
      assert.deepStrictEqual(lists(dir).sort(), [
        'src/core/monitor-table.c:1: lists monitors (driftLag, worker, liveness): only core/monitors.c does',
        'src/core/monitors.c: holds no list of all the monitors (driftLag, worker, liveness), their room in ROOMS',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a concept without a room (each name in its own descriptor): one name per list passes, two in one are caught', () => {
    const dir = tree({
      ...ROOMS,
      'src/core/monitors.c': 'int lw_mon_count(void) { return 3; }\n',
      'src/core/driftlag.c': 'const struct d lw__mon_driftlag = {.name = "driftLag", .flags = 1};\n',
      'src/core/workermon.c': 'const struct d lw__mon_worker = {.name = "worker"};\nconst struct d lw__mon_liveness = {.name = "liveness"};\n',
      'src/core/names.c': 'static const char *const again[2] = {"driftLag", "liveness"};\n',
    });
    try {
      const roomless = { ...CONCEPTS, monitors: { ...CONCEPTS.monitors, room: null } };
      assert.deepStrictEqual(listBreaches(path.join(dir, 'src'), path.join(dir, 'lib'), roomless, {}), [
        'src/core/names.c:1: lists monitors (driftLag, liveness): each is in its own descriptor',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a monitor\'s options in its own descriptor pass; the same rows in another file, or mixed with another monitor\'s, are caught', () => {
    const byMonitor = {
      ...CONCEPTS,
      options: { ...CONCEPTS.options, byMonitor: true, names: ['driftLag.intervalMs', 'driftLag.lateMs', 'worker.intervalMs', 'blocks.a', 'blocks.b'] },
    };
    const dir = tree({
      ...ROOMS,
      'src/core/config.c': 'static const row set_options[] = {{"blocks.a", 1}, {"blocks.b", 1}};\n',
      'src/core/driftlag.c': 'static const row o[] = {{"driftLag.intervalMs", 1}, {"driftLag.lateMs", 1}};\n'
        + 'const struct d lw__mon_driftlag = {.name = "driftLag", .options = o};\n',
      'src/core/elsewhere.c': 'static const row o[] = {{"driftLag.intervalMs", 1}, {"driftLag.lateMs", 1}};\n',
      'src/core/workermon.c': 'static const row o[] = {{"worker.intervalMs", 1}, {"driftLag.lateMs", 1}};\n'
        + 'const struct d lw__mon_worker = {.name = "worker", .options = o};\n',
    });
    try {
      assert.deepStrictEqual(listBreaches(path.join(dir, 'src'), path.join(dir, 'lib'), byMonitor, {}), [
        'src/core/elsewhere.c:1: lists options (driftLag.intervalMs, driftLag.lateMs): only core/config.c does',
        'src/core/workermon.c:1: lists options (driftLag.lateMs, worker.intervalMs): only core/config.c does',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('catches a list of each concept in lib/: an array (nested ones in it), an object\'s keys, a switch; not names used one at a time', () => {
    const dir = tree({
      ...ROOMS,
      'lib/histograms.js': "const H = [\n  ['driftLag', 'lag_drift_histogram', 'ms'],\n  ['worker', 'lag_worker_lag_histogram', 'ms'],\n];\n",
      'lib/episodes.js': "function f(kind) {\n  switch (kind) {\n    case 'hang': return 1;\n    case 'step': return 2;\n    case 'pause': return 3;\n    default: return 0;\n  }\n}\n",
      'lib/discard.js': 'const counts = { hidden: 0, throttled: 0, other: 0 };\n',
      'lib/jumps.js': "const JUMPS = new Set(['suspend', 'step']);\n",
      'lib/visible.js': "const visible = (s) => ['active', 'frozen'].includes(s);\n",
      'lib/options.js': "const o = { ['driftLag.intervalMs']: 10, 'worker.intervalMs': 5 };\n",
      'lib/fine.js': "tracker.open('suspend');\nconst seen = state === 'hidden' || state === 'frozen';\n"
        + "const verbs = ['block', 'pause', 'sleep'];\n",
      'lib/waived.js': "const W = ['driftLag', 'liveness'];\n",
    });
    try {
      assert.deepStrictEqual(lists(dir, { 'lib/waived.js': ['monitors'], 'lib/gone.js': ['reasons'] }), [
        'lib/discard.js:1: lists reasons (hidden, throttled): lib/ takes them from the binding\'s reasonNames()',
        'lib/episodes.js:2: lists stall kinds (hang, pause): lib/ takes them from the binding\'s stallKinds()',
        'lib/histograms.js:1: lists monitors (driftLag, worker): lib/ takes them from the binding\'s monNames()',
        'lib/jumps.js:1: lists jump kinds (suspend, step): lib/ takes them from the binding\'s jumpKinds()',
        'lib/options.js:1: lists options (driftLag.intervalMs, worker.intervalMs): lib/ takes them from the binding\'s optionTables()',
        'lib/visible.js:1: lists lifecycle states (active, frozen): lib/ takes them from the binding\'s lifecycleStates()',
        'lib/gone.js: reasons: waived in WAIVED, but no such list is left',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('src/ and lib/ keep the rules', () => {
    assert.deepStrictEqual([...includeBreaches(), ...fieldBreaches(), ...sizeBreaches(), ...listBreaches()], []);
  });
});
