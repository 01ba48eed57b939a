'use strict';
// The base-2 exponential histogram's bucket arithmetic, shared by the metric producer
// (lib/producer.js) and the Prometheus exposition (lib/prometheus.js). Bucket i at scale s is
// (2^(i·2^-s), 2^((i+1)·2^-s)]; at a scale `by` coarser it is bucket floor(i / 2^by), as
// OpenTelemetry downscales (and as the core's aggregate.c does).

// Bucket `i` brought `by` scales coarser (by <= 0: unchanged).
function coarser(i, by) {
  return by > 0 ? Math.floor(i / 2 ** by) : i;
}

// Adds the buckets `counts` (the first at index `offset`) into `into` (a Map from bucket index to
// count), `by` scales coarser; empty buckets inside the range are kept. Returns `into`.
function addInto(into, offset, counts, by = 0) {
  for (let k = 0; k < counts.length; k++) {
    const j = coarser(offset + k, by);
    into.set(j, (into.get(j) || 0) + counts[k]);
  }
  return into;
}

// A Map of buckets as { offset, counts }: every index from the lowest to the highest, 0 where
// absent ({ offset: 0, counts: [] } when empty).
function dense(buckets) {
  if (buckets.size === 0) return { offset: 0, counts: [] };
  const keys = [...buckets.keys()];
  const offset = Math.min(...keys);
  return { offset, counts: Array.from({ length: Math.max(...keys) - offset + 1 }, (_, k) => buckets.get(offset + k) || 0) };
}

module.exports = { coarser, addInto, dense };
