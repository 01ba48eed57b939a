// Compiled by `npm test` (tsc --noEmit): the declarations must describe the API as it is used.
import * as lagwatch from '../../lib';

const sim = lagwatch.createSimulation({ platform: 'darwin', startMs: 10 });
const c = lagwatch.createConditions({ clock: sim, stallThresholdMs: 5000, holdMs: 2000 });
const close: () => void = c.tracker.open('hidden');
close();
c.tracker.add(0, 10, 'suspend');
const iv: lagwatch.Interval | undefined = c.tracker.findOverlap(0, 100, 'suspend');
const n: number = c.tracker.intervals().length + (iv ? iv.start : 0);
const v = c.createValidator({ name: 'probe', stallThresholdMs: Infinity });
const verdict: lagwatch.Verdict = v.submit(1, 20, (value: number) => value + n);
c.setLifecycleState('hidden');
c.setLifecycleReader(() => 'active');
c.setLifecycleReader(null);
c.on('stall', (s) => s.kind === 'hang' && s.monitors.length > 0);
c.on('lifecycle', ({ from, to }) => from !== to);
const st: lagwatch.Stats = c.stats();
const p99: number | null = st.monitors.probe.p99;
sim.advance(1000);
const t: number = lagwatch.now() + sim.now();
v.dispose();
c.dispose();
export { verdict, p99, t };
