// `module: node16` in a CommonJS package, no esModuleInterop. Also emitted and run by
// test/types.test.js: prints "ok" when the imports hold what the types say.
import lagwatch from 'lagwatch';
import { setupAllMonitors, createSimulation, current, createConditions } from 'lagwatch';
import type { MonitorSet, Simulation, Stall, Conditions } from 'lagwatch';
import registered = require('lagwatch/register');
import { collectLagwatchMetrics } from 'lagwatch/prom-client';
import { metrics } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`not so: ${what}`);
}

// An OpenTelemetry Logger and Meter as an app gets them from the global API.
const c: Conditions = createConditions({ logger: logs.getLogger('app'), meter: metrics.getMeter('app') });
c.dispose();

const sim: Simulation = createSimulation();
const m: MonitorSet = setupAllMonitors({ clock: sim, exitHook: false });
let hangs = 0;
m.conditions.on('stall', (s: Stall) => { if (s.kind === 'hang') hangs++; });
sim.advance(10000);
sim.block(6000);
sim.advance(10000);
m.stop();
check(hangs === 1, 'a simulated 6 s block is one hang');

// Compiled to `lagwatch_1.default`: the module's .default is the module itself.
check(lagwatch.setupAllMonitors === setupAllMonitors, 'the default import is the module');

check(typeof collectLagwatchMetrics === 'function', 'lagwatch/prom-client exports collectLagwatchMetrics');

const set: MonitorSet | null = registered;
const running: MonitorSet | undefined = current();
check(set !== null && running === set, 'current() is the set lagwatch/register started');
if (set !== null) set.stop();
console.log('ok');
