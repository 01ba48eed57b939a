/* The aggregate behind a metric histogram: what an OpenTelemetry histogram data point carries,
 * kept in C so that recorded samples reach OpenTelemetry with no JS call per sample (
 * lib/producer.js exports it whole, once per collection).
 *
 * Cumulative from init. One record keeps the count, sum, min and max, and two bucketings of the
 * same values, so that either kind of OpenTelemetry histogram can be exported:
 *  - explicit boundaries b[0] < ... < b[n-1]: bucket i holds b[i-1] < v <= b[i] (bucket 0 every
 *    v <= b[0], bucket n every v > b[n-1]), as OpenTelemetry's explicit-bucket histogram;
 *  - base-2 exponential, as OpenTelemetry's exponential histogram: at scale s, bucket i holds
 *    base^i < v <= base^(i+1) with base = 2^(2^-s); values <= 0 count as zeros. At most
 *    LW_AGG_EXP_SIZE buckets, from LW_AGG_EXP_MAX_SCALE down: when a value falls outside what
 *    they can cover, the scale drops until it fits and neighbours merge (the SDK's own rule, so
 *    the scale is the one the SDK's aggregator would reach on the same values).
 * Memory is fixed (no allocation): a record is O(log n) and never fails.
 */
#ifndef LW_CORE_AGGREGATE_H_
#define LW_CORE_AGGREGATE_H_

#include "common.h"

#define LW_AGG_MAX_BOUNDS 24
#define LW_AGG_EXP_SIZE 160
#define LW_AGG_EXP_MAX_SCALE 20

/* The boundaries of lagwatch's histograms (SPEC §10), one set per kind of value. */
typedef enum {
  LW_BOUNDS_LAG = 0,   /* milliseconds of lag, 0.1 ms to an hour */
  LW_BOUNDS_STALL,     /* milliseconds of a stall, 1 s to a day */
  LW_BOUNDS_RATIO,     /* a share, 0..1 */
  LW_BOUNDS_BLOCK,     /* milliseconds of a block, 50 ms to 5 min */
  LW_BOUNDS_COUNT
} lw_bounds_t;

typedef struct lw_agg_s {
  uint64_t count;
  double sum;
  double min; /* +INFINITY while empty */
  double max; /* -INFINITY while empty */
  const double *bounds;
  size_t nbounds;
  uint64_t counts[LW_AGG_MAX_BOUNDS + 1];
  /* Exponential: exp_len buckets from index exp_offset at exp_scale. */
  int exp_scale;
  uint64_t zero_count;
  int64_t exp_offset;
  size_t exp_len;
  uint64_t exp_counts[LW_AGG_EXP_SIZE];
} lw_agg_t;

/* The boundaries of `kind` and their number. */
const double *lw_bounds(lw_bounds_t kind, size_t *n);
/* An empty aggregate of lag (LW_BOUNDS_LAG) or of a share (LW_BOUNDS_RATIO); stalls and blocks are
 * not aggregated here (their bounds are more than LW_AGG_MAX_BOUNDS): any other kind is lag's. */
void lw_agg_init(lw_agg_t *a, lw_bounds_t kind);
/* Records v (NaN and infinities are ignored). */
void lw_agg_record(lw_agg_t *a, double v);

#endif /* LW_CORE_AGGREGATE_H_ */
