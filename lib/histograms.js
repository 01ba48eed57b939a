'use strict';
// The histograms of recorded samples (SPEC §10: one per monitor, and the worker's self-lag) and
// the bucket boundaries of lagwatch's histograms (src/core/aggregate.c), shared by the meter path
// (lib/metrics.js) and the producers (lib/producer.js, loaded only when one is made).
const native = require('./native');

const BOUNDS = native.bucketBounds();

// The histograms a producer exports: [aggregate key, name, description, unit, boundaries]: each
// validated monitor's, from the core's monitor table, and the worker's self-lag.
const HISTOGRAMS = [
  ...native.monMetrics().map(([key, name, description, unit, bounds]) => [key, name, description, unit, BOUNDS[bounds]]),
  ['selfLag', 'lag_worker_self_lag_histogram', 'How late the worker thread\'s own timer fired', 'ms', BOUNDS.lag],
];

module.exports = { HISTOGRAMS, BOUNDS };
