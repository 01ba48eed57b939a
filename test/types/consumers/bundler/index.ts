// `moduleResolution: bundler` (webpack, esbuild, Vite): "exports" with its "types" conditions.
import lagwatch, { setupAllMonitors, createSimulation, current } from 'lagwatch';
import type { MonitorSet, Simulation, WorkerStats } from 'lagwatch';
import registered from 'lagwatch/register';
import { collectLagwatchMetrics, type CollectLagwatchMetricsOptions } from 'lagwatch/prom-client';

const sim: Simulation = createSimulation({ platform: 'darwin' });
const m: MonitorSet = setupAllMonitors({ clock: sim, exitHook: false, stacks: false });
const stats: WorkerStats = lagwatch.current()?.workerStats() ?? m.workerStats();
const set: MonitorSet | null = registered ?? current() ?? null;
// @ts-expect-error current() is undefined when no real-clock set runs on this thread
current().stop();

const options: CollectLagwatchMetricsOptions = { set: m };
const remove: () => void = collectLagwatchMetrics(options);
// @ts-expect-error the registry must be one prom-client made (or has its methods)
collectLagwatchMetrics({ register: {} });

export { stats, set, remove };
