'use strict';
// The histograms of recorded samples (SPEC §10: one per monitor, and the worker's self-lag) and
// the bucket boundaries of lagwatch's histograms (src/core/aggregate.c), shared by the meter path
// (lib/metrics.js) and the producers (lib/producer.js, loaded only when one is made).
const native = require('./native');

const BOUNDS = native.bucketBounds();

// The histograms a producer exports: [aggregate key, name, description, unit, boundaries].
const HISTOGRAMS = [
  ['driftLag', 'lag_drift_histogram', 'Lateness of the driftLag timer (recorded samples)', 'ms', BOUNDS.lag],
  ['macrotaskLag', 'lag_macrotask_histogram', 'Delay of a zero-delay task (recorded samples)', 'ms', BOUNDS.lag],
  ['loopBlock', 'lag_loop_block_histogram', 'Busy time of each event-loop iteration (recorded samples)', 'ms', BOUNDS.lag],
  ['worker', 'lag_worker_lag_histogram', 'Time a worker heartbeat waited for the main thread (recorded samples)', 'ms', BOUNDS.lag],
  ['idleAvailability', 'lag_idle_availability', 'Idle share of the event loop per period (recorded samples)', '1', BOUNDS.ratio],
  ['selfLag', 'lag_worker_self_lag_histogram', 'How late the worker thread\'s own timer fired', 'ms', BOUNDS.lag],
];

module.exports = { HISTOGRAMS, BOUNDS };
