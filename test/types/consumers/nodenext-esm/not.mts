// What the types must refuse in ESM (each line an error, or tsc fails on the unused directive):
// compiled with index.mts, never run.
// @ts-expect-error 'lagwatch/register' has no named exports: its module.exports is the set itself
import { stop } from 'lagwatch/register';
// @ts-expect-error lagwatch exports no such name
import { setupMonitors } from 'lagwatch';
import { current } from 'lagwatch';

// @ts-expect-error current() is undefined when no real-clock set runs on this thread
current().workerStats();

export { stop, setupMonitors };
