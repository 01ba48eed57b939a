// The whole API as an app uses it, compiled by test/types.test.js (tsc --strict --noEmit) against
// the installed tarball: the declarations must describe the API as it is used.
import * as lagwatch from 'lagwatch';

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
const lost: number = st.lost;
sim.advance(1000);
const t: number = lagwatch.now() + sim.now();
v.dispose();
c.dispose();
const producer: lagwatch.MetricProducer = lagwatch.createMetricProducer({ aggregation: 'exponential', temporality: 'delta' });
const m = lagwatch.setupAllMonitors({ clock: sim, exitHook: false, meter: lagwatch.createNoopMeter(), metricProducers: [producer], monitors: { driftLag: { intervalMs: 10 }, worker: false } });
producer.collect().then((r) => r.errors.length);
const running: boolean = m.monitors.driftLag.running;
m.conditions.on('jump', (j) => j.kind === 'step' && j.deltaMs > 0);
m.conditions.on('workerHang', (h) => h.durationMs > h.detectedAt - h.start);
m.conditions.on('samples', (b) => (b.driftLag ? b.driftLag.length : 0));
const remove: () => void = lagwatch.pauseWhileHidden(m.monitors.clockDrift, m.conditions);
remove();
sim.block(6000); sim.sleep(1000); sim.pause(1000); sim.stepWall(-1000); sim.stallWorker(100); sim.throttle(1000, 500);
const hangs: number = m.workerStats().workerHangs.count;
m.stop();
export { verdict, p99, t, running, hangs };
