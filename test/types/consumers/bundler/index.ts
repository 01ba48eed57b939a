// `moduleResolution: bundler` (webpack, esbuild, Vite): "exports" with its "types" conditions.
import lagwatch, { setupAllMonitors, createSimulation, current } from 'lagwatch';
import type { MonitorSet, Simulation, WorkerStats } from 'lagwatch';
import registered from 'lagwatch/register';

const sim: Simulation = createSimulation({ platform: 'darwin' });
const m: MonitorSet = setupAllMonitors({ clock: sim, exitHook: false, stacks: false });
const stats: WorkerStats = lagwatch.current()?.workerStats() ?? m.workerStats();
const set: MonitorSet | null = registered ?? current() ?? null;
// @ts-expect-error current() is undefined when no real-clock set runs on this thread
current().stop();

export { stats, set };
