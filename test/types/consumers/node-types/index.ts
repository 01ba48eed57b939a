// A project that loads Node's types ("types": ["node"]): lagwatch's own EventEmitter declaration
// must fit Node's, so that a Conditions goes wherever node:events takes an emitter.
import { EventEmitter, once, on } from 'node:events';
import { createSimulation, setupAllMonitors, type Stall } from 'lagwatch';

const m = setupAllMonitors({ clock: createSimulation(), exitHook: false });
const emitter: EventEmitter = m.conditions;
const first: Promise<any[]> = once(m.conditions, 'stall');
const all: AsyncIterableIterator<any> = on(m.conditions, 'block');
m.conditions.on('stall', (s: Stall) => s.kind);
m.stop();

export { emitter, first, all };
