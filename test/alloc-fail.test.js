'use strict';
// Runs on the test build only (npm test's sanitizer build, compiled with -DLW_TEST_HOOKS, whose
// binding has the allocator's test hook; scripts/suites.js TEST_BUILD): the addon users install
// has no test hook.
const assert = require('assert');
const lw = require('..');

// SPEC §4: memory that runs out is counted in stats().lost and logged, never lost in silence.
// The core's allocator is made to fail (the binding's test hook) while a monitor set on a
// simulated clock meets a 6 s block: what cannot be stored is counted, and the next delivery
// logs it through options.logger.
describe('memory that runs out (SPEC §4)', () => {
  const native = require('../lib/native');
  before(() => {
    assert.strictEqual(typeof native.allocFailAfter, 'function', 'this file needs the test build (-DLW_TEST_HOOKS): LAGWATCH_ADDON=build/asan/lagwatch.node');
  });

  it('counts the losses in stats().lost and logs them; everything works again after', () => {
    const sim = lw.createSimulation();
    const logs = [];
    const m = lw.setupAllMonitors({ clock: sim, logger: { log: (level, message) => logs.push({ level, message }) } });
    sim.advance(10000);
    assert.strictEqual(m.conditions.stats().lost, 0);
    native.allocFailAfter(0);
    try {
      sim.block(6000);
      sim.advance(3000);
    } finally {
      native.allocFailAfter(-1);
    }
    sim.advance(5000);
    const s = m.conditions.stats();
    assert.ok(s.lost > 0, JSON.stringify(s));
    const lostLogs = logs.filter((l) => l.level === 'error' && /out of memory: \d+ sample/.test(l.message));
    assert.ok(lostLogs.length >= 1, JSON.stringify(logs));
    const logged = lostLogs.reduce((a, l) => a + Number(/: (\d+) sample/.exec(l.message)[1]), 0);
    assert.strictEqual(logged, s.lost, 'every loss is logged once');
    const sum = Object.values(s.discarded).reduce((a, b) => a + b, 0);
    assert.strictEqual(s.recorded + sum + s.held + s.cancelled, s.submitted, 'conservation holds');
    m.stop();
  });
});
