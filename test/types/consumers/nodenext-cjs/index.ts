// `module: nodenext` in a CommonJS package with TypeScript's defaults (esModuleInterop, which
// TypeScript 7 always has) and no "types" setting: what `tsc --init` gives a new CommonJS app.
// Also emitted and run by test/types.test.js: prints "ok" when the imports hold what the types say.
import lagwatch from 'lagwatch';
import { setupAllMonitors, createSimulation, current } from 'lagwatch';
import type { MonitorSet, Simulation, Stall, Conditions } from 'lagwatch';
import registered = require('lagwatch/register');
import { collectLagwatchMetrics } from 'lagwatch/prom-client';
import { Registry } from 'prom-client';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`not so: ${what}`);
}

const sim: Simulation = createSimulation();
const m: MonitorSet = setupAllMonitors({ clock: sim, exitHook: false });
const c: Conditions = m.conditions;
let hangs = 0;
c.once('stall', (s: Stall) => { if (s.kind === 'hang') hangs++; });
check(c.listenerCount('stall') === 1, 'the conditions are an EventEmitter');
sim.advance(10000);
sim.block(6000);
sim.advance(10000);
m.stop();
check(hangs === 1, 'a simulated 6 s block is one hang');
check(lagwatch.setupAllMonitors === setupAllMonitors, 'the default import is the module');

const set: MonitorSet | null = registered;
check(set !== null && current() === set, 'current() is the set lagwatch/register started');

// lagwatch/prom-client: into a prom-client Registry, of the running set (lagwatch.current()).
const registry = new Registry();
const remove: () => void = collectLagwatchMetrics({ register: registry });
registry.metrics().then((text: string) => {
  check(/^lag_stalls\{kind="hang"\} 0$/m.test(text), 'lag_stalls is in the registry');
  remove();
  set?.stop();
  console.log('ok');
});
