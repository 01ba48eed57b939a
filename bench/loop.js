'use strict';
// What a monitor costs a busy event loop, measured inside one process: the workload runs all
// along, and the variants are switched on and off in slices, each variant's slice between two
// slices of nothing (fresh-process runs vary by ±10 % on this machine, which hides a cost of a
// few per cent). A variant's figure is its slice's throughput ÷ the mean of the two nothing slices
// around it; the median of the rounds is reported, with min–max, and the cost per iteration in ns.
//   immediate  a setImmediate chain (one loop iteration per callback)
//   pingpong   1-byte TCP ping-pong over 127.0.0.1 in the same process (one round trip = one
//              write and one read on each side)
// Variants (bench/lib/peers.js sets each up as its documentation shows, and stops it):
//   monitorEventLoopDelay, @datadog/native-metrics, lagwatch (defaults), lagwatch-meter (defaults
//   and an OpenTelemetry SDK MeterProvider, collected every second: a record() per sample),
//   lagwatch-producer (the same with lagwatch.createMetricProducer() on the reader: the histograms
//   of recorded samples exported from C, no JS per sample), lagwatch-blocks (defaults and
//   `blocks: true`), and on Node 26 and later monitorEventLoopDelay-iteration
//   (`samplePerIteration: true`, a sample of every iteration; older Nodes ignore the option).
// For lagwatch's variants, the native memory its set holds at the end of each slice: the same on
// both workloads (one ~1.4 M iterations a second, the other ~50 000), so that memory is held flat.
// Usage: node bench/loop.js [--workloads immediate,pingpong] [--variants a,b] [--rounds N]
//        [--slice-ms MS] [--settle-ms MS] [--json]
const net = require('net');
const { setup, root } = require('./lib/peers');
const { opt, flag, summary } = require('./lib/stats');

const args = process.argv.slice(2);
const workloads = opt(args, '--workloads', 'immediate,pingpong').split(',');
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const variants = opt(args, '--variants', 'monitorEventLoopDelay,@datadog/native-metrics,lagwatch,lagwatch-meter,lagwatch-producer,lagwatch-blocks' +
  (NODE_MAJOR >= 26 ? ',monitorEventLoopDelay-iteration' : '')).split(',');
const rounds = opt(args, '--rounds', 12);
const sliceMs = opt(args, '--slice-ms', 500);
// After each switch (a variant on, or off again), the workload runs this long before a slice is
// counted: the figure is the steady state's (a set's start-up is its own section, idle from
// start-up), and a stop's aftermath (a thread joined, garbage collected) is not charged to the
// next slice of nothing.
const settleMs = opt(args, '--settle-ms', 100);
const asJson = flag(args, '--json');
const log = (s) => console.error(s);

// An OpenTelemetry SDK that collects every second, as an app's would (the exporter drops what it
// gets): one made once for the lagwatch-meter slices, one whose reader has a lagwatch producer
// for the lagwatch-producer slices.
const providers = {};
function meter(withProducer) {
  const key = withProducer ? 'producer' : 'meter';
  if (providers[key] === undefined) {
    const { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } = require('@opentelemetry/sdk-metrics');
    const exporter = {
      export: (metrics, done) => done({ code: 0 }),
      forceFlush: async () => {},
      shutdown: async () => {},
      selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
    };
    const producer = withProducer ? require(root).createMetricProducer() : null;
    const provider = new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 1000,
        metricProducers: producer ? [producer] : [] })],
    });
    providers[key] = { provider, producer };
  }
  return providers[key];
}

function start(variant) {
  if (variant === 'nothing') return { stop() {} };
  if (variant === 'lagwatch-meter' || variant === 'lagwatch-producer') {
    const { provider, producer } = meter(variant === 'lagwatch-producer');
    const m = require(root).setupAllMonitors({ meter: provider.getMeter('lagwatch'),
      metricProducers: producer ? [producer] : undefined });
    return { set: m, stop: () => m.stop() };
  }
  return setup(variant);
}

// The native memory a lagwatch set holds (what it reports to V8: its buffers of samples waiting
// for the next flush, its aggregates), read at the end of a slice; null for the other variants.
const native = require(require('path').join(root, 'lib', 'native'));
const heldBytes = (h) => (h.set ? native.monMemory(h.set._h) : null);

// Counts iterations of `step` (which calls back once per iteration) for `ms`.
function immediateSlice(ms) {
  return new Promise((resolve) => {
    let n = 0;
    const end = performance.now() + ms;
    const tick = () => {
      n++;
      if ((n & 255) === 0 && performance.now() >= end) resolve(n);
      else setImmediate(tick);
    };
    setImmediate(tick);
  });
}

// A TCP pair over 127.0.0.1: the client writes one byte, the server echoes it, the client writes
// again on each echo.
async function pingPongPair() {
  const server = net.createServer((sock) => {
    sock.setNoDelay(true);
    sock.on('data', (d) => sock.write(d));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect(server.address().port, '127.0.0.1');
  client.setNoDelay(true);
  await new Promise((resolve) => client.once('connect', resolve));
  const one = Buffer.from([1]);
  return {
    slice(ms) {
      return new Promise((resolve) => {
        let n = 0;
        const end = performance.now() + ms;
        const onData = () => {
          n++;
          if ((n & 63) === 0 && performance.now() >= end) {
            client.removeListener('data', onData);
            resolve(n);
          } else {
            client.write(one);
          }
        };
        client.on('data', onData);
        client.write(one);
      });
    },
    close() {
      client.destroy();
      server.close();
    },
  };
}

async function measure(workload) {
  let pair = null;
  let slice = immediateSlice;
  if (workload === 'pingpong') {
    pair = await pingPongPair();
    slice = (ms) => pair.slice(ms);
  }
  // Warm-up: the workload and every variant once.
  await slice(sliceMs);
  for (const v of variants) {
    const h = start(v);
    await slice(sliceMs / 2);
    h.stop();
  }
  const ratios = Object.fromEntries(variants.map((v) => [v, []]));
  const nsPerIteration = Object.fromEntries(variants.map((v) => [v, []]));
  const bytes = Object.fromEntries(variants.map((v) => [v, []]));
  const base = [];
  for (let r = 0; r < rounds; r++) {
    const order = variants.map((_, k) => variants[(k + r) % variants.length]);
    let before = await slice(sliceMs);
    base.push(before);
    for (const v of order) {
      const h = start(v);
      if (settleMs > 0) await slice(settleMs);
      const got = await slice(sliceMs);
      const held = heldBytes(h);
      if (held !== null) bytes[v].push(held);
      h.stop();
      if (settleMs > 0) await slice(settleMs);
      const after = await slice(sliceMs);
      base.push(after);
      const ref = (before + after) / 2;
      ratios[v].push(got / ref);
      nsPerIteration[v].push((sliceMs * 1e6) / got - (sliceMs * 1e6) / ref);
      before = after;
    }
    log(`${workload} round ${r + 1}/${rounds}: ` + variants.map((v) => `${v} ${ratios[v][r].toFixed(3)}`).join(', '));
  }
  if (pair) pair.close();
  return {
    nothingPerSecond: summary(base.map((n) => n / (sliceMs / 1000))),
    variants: Object.fromEntries(variants.map((v) => [v, {
      ratio: summary(ratios[v]),
      nsPerIteration: summary(nsPerIteration[v]),
      heldBytes: bytes[v].length ? summary(bytes[v]) : null,
    }])),
  };
}

(async () => {
  const result = { node: process.version, rounds, sliceMs, settleMs, workloads: {} };
  for (const w of workloads) result.workloads[w] = await measure(w);
  for (const { provider } of Object.values(providers)) await provider.shutdown();
  if (asJson) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  for (const [w, res] of Object.entries(result.workloads)) {
    console.log(`${w}: nothing ${res.nothingPerSecond.median.toFixed(0)}/s (median of slices); ` +
      'throughput ÷ nothing (median [min-max] of rounds), cost per iteration:');
    for (const [v, x] of Object.entries(res.variants)) {
      console.log(`  ${v.padEnd(26)} ${x.ratio.median.toFixed(3)} [${x.ratio.min.toFixed(3)}-${x.ratio.max.toFixed(3)}]` +
        `  ${x.nsPerIteration.median.toFixed(0)} ns` + (x.heldBytes ? `  ${(x.heldBytes.max / 1024).toFixed(1)} KiB native at most` : ''));
    }
  }
})();
