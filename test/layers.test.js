'use strict';
// The layering of src/ (scripts/layers.js): includes one way, platform <- core <- driver <-
// binding, no field of the core's state touched outside src/core/ (on clang's AST), and no file
// of src/ or lib/ over 500 lines nor struct over 40 fields. Each rule is shown to catch a tree
// that breaks it, then src/ and lib/ are checked.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { includeBreaches, fieldBreaches, sizeBreaches } = require('../scripts/layers');

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

  it('catches a file over 500 lines in src/ or lib/ and a struct over 40 fields, nested ones on their own', () => {
    const fields = (n, prefix) => Array.from({ length: n }, (_, i) => `int ${prefix}${i};`).join(' ');
    const dir = tree({
      'src/core/big.h': `typedef struct lw_big_s { ${fields(41, 'f')} } lw_big_t;\n`
        + `typedef struct lw_nest_s { ${fields(30, 'a')} struct lw_inner_s { ${fields(30, 'b')} } inner; } lw_nest_t;\n`
        + `typedef struct lw_ok_s { ${fields(40, 'g')} } lw_ok_t;\n`,
      'src/core/big.c': '#include "big.h"\nint lw_big_size(void) { return (int)(sizeof(lw_big_t) + sizeof(lw_nest_t) + sizeof(lw_ok_t)); }\n',
      'src/driver/long.c': 'int x;\n'.repeat(501),
      'src/driver/fits.c': 'int y;\n'.repeat(500),
      'lib/long.js': '\n'.repeat(501),
      'lib/long.d.ts': '\n'.repeat(501),
    });
    try {
      assert.deepStrictEqual(sizeBreaches(path.join(dir, 'src'), path.join(dir, 'lib')).sort(), [
        'lib/long.d.ts: 501 lines (at most 500)',
        'lib/long.js: 501 lines (at most 500)',
        'src/driver/long.c: 501 lines (at most 500)',
        'struct lw_big_s (src/core/big.h): 41 fields (at most 40)',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('src/ and lib/ keep the rules', () => {
    assert.deepStrictEqual([...includeBreaches(), ...fieldBreaches(), ...sizeBreaches()], []);
  });
});
