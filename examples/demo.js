'use strict';
// `npm start`: every monitor on the real event loop. The loop idles 3 s, is blocked for 6 s by a
// synchronous busy loop, then idles again; lagwatch reports what a user should see: per-monitor
// summaries of the recorded samples every 2 s, discards by reason, the worker's hang detector and
// the one `hang` episode, then a final summary. About 16 s in all.
const lagwatch = require('..');

const t0 = lagwatch.now();
const at = () => `${((lagwatch.now() - t0) / 1000).toFixed(1).padStart(5)} s`;
const say = (msg) => console.log(`[${at()}] ${msg}`);
const ms = (x) => (x === null ? '-' : x < 10 ? x.toFixed(2) : x.toFixed(0));

const m = lagwatch.setupAllMonitors({
  logger: { log: (level, message) => say(`${level}: ${message}`) },
});
const c = m.conditions;
const batches = {};
c.on('samples', (b) => {
  for (const [name, values] of Object.entries(b)) batches[name] = (batches[name] || 0) + values.length;
});
c.on('stall', (s) => say(`STALL EPISODE: ${s.kind}, ${s.durationMs.toFixed(0)} ms, ` +
  `${s.samples} samples from ${s.monitors.join(', ')}`));
c.on('workerHang', (h) => say(`worker thread: the main thread hung ${h.durationMs.toFixed(0)} ms ` +
  `(flagged ${(h.detectedAt - h.start).toFixed(0)} ms after it began)`));
c.on('jump', (j) => say(`clock jump: ${j.kind} of ${j.deltaMs.toFixed(0)} ms`));

function summary() {
  const s = c.stats();
  for (const [name, x] of Object.entries(s.monitors)) {
    const unit = name === 'idleAvailability' ? '' : ' ms';
    say(`  ${name.padEnd(16)} recorded ${String(x.recorded).padStart(5)}  p50 ${ms(x.p50)}${unit}` +
      `  p99 ${ms(x.p99)}${unit}  max ${ms(x.max)}${unit}`);
  }
  const d = Object.entries(s.discarded).filter(([, n]) => n > 0).map(([r, n]) => `${r} ${n}`);
  say(`  discarded: ${d.length ? d.join(', ') : 'none'}; held ${s.held}; stalls ` +
    `hang ${s.stalls.hang}, suspend ${s.stalls.suspend}, pause ${s.stalls.pause}`);
}

say('every monitor runs: ' + Object.values(m.monitors).filter((x) => x.running).map((x) => x.name).join(', '));
const tick = setInterval(summary, 2000);

setTimeout(() => {
  say('blocking the event loop for 6 s (a synchronous busy loop)...');
  const end = lagwatch.now() + 6000;
  while (lagwatch.now() < end);
  say('...unblocked: the long samples are held 2 s for evidence, then the episode is reported');
}, 3000);

setTimeout(() => {
  clearInterval(tick);
  m.stop();
  say('stopped. Final summary:');
  summary();
  const w = m.workerStats();
  say(`  worker thread: ${w.workerSelfLag.count} heartbeats (self-lag max ${ms(w.workerSelfLag.max)} ms), ` +
    `${w.workerHangs.count} hang(s) detected`);
  say(`  recorded samples delivered to JS in batches: ${JSON.stringify(batches)}`);
}, 15000);
