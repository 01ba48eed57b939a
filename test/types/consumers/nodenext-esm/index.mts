// `module: nodenext`, an ES module (.mts) importing the CommonJS package, as Node runs it: named
// imports are what Node's export detection finds in lib/index.js, the default import is
// module.exports. Also emitted and run by test/types.test.js (prints "ok"); what must not
// compile is in not.mts.
import lagwatch, { setupAllMonitors, createSimulation, current, type MonitorSet, type Simulation } from 'lagwatch';
import registered from 'lagwatch/register';
import { collectLagwatchMetrics } from 'lagwatch/prom-client';
import { Registry } from 'prom-client';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`not so: ${what}`);
}

const sim: Simulation = createSimulation({ loop: 'embedded' });
const m: MonitorSet = lagwatch.setupAllMonitors({ clock: sim, exitHook: false });
sim.advance(10000);
sim.block(6000);
sim.advance(10000);
check(m.conditions.stats().stalls.hang === 1, 'a simulated 6 s block is one hang');
m.stop();
check(lagwatch.setupAllMonitors === setupAllMonitors, 'the default import is the module');

const set: MonitorSet | null = registered;
check(set !== null && current() === set, 'current() is the set lagwatch/register started');
const registry = new Registry();
const remove = collectLagwatchMetrics({ register: registry, set: set ?? undefined });
check((await registry.metrics()).includes('# TYPE lag_stalls counter'), 'lagwatch/prom-client fills the registry');
remove();
set?.stop();
console.log('ok');
