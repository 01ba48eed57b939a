// `module: commonjs` with its default resolution (node10: package.json "types", no "exports") and
// no esModuleInterop, the set-up of many existing projects.
import lagwatch from 'lagwatch'; // lagwatch's module.exports.default is the module itself
import { setupAllMonitors, createSimulation, current, MonitorSet, Simulation, Stall } from 'lagwatch';
import * as namespace from 'lagwatch';
// Its module.exports is the set itself (or null), so `import = require`, not a default import.
import registered = require('lagwatch/register');
import { collectLagwatchMetrics } from 'lagwatch/prom-client';

const sim: Simulation = createSimulation({ platform: 'linux' });
const m: MonitorSet = setupAllMonitors({ clock: sim, exitHook: false, monitors: { worker: false } });
m.conditions.on('stall', (s: Stall) => s.kind === 'hang');
const again: MonitorSet = lagwatch.setupAllMonitors({ clock: namespace.createSimulation() });
const running: MonitorSet | undefined = current();
const set: MonitorSet | null = registered;
// @ts-expect-error current() is undefined when no real-clock set runs on this thread
current().stop();
// @ts-expect-error register's set is null when it could not start
registered.stop();
const same: typeof namespace = lagwatch.default;

const remove: () => void = collectLagwatchMetrics({ set: m });

export { again, running, set, same, remove };
