/* A log-bucketed histogram of non-negative samples, for the percentiles of stats().
 *
 * Bucket k covers [2^(e) * (1 + s/LW_HIST_SUB)) for exponent e and sub-bucket s, so a percentile
 * is exact to 1/LW_HIST_SUB (about 1.6 %) of its value; count, min, max and mean are exact.
 * Values below 2^LW_HIST_EMIN (about 1 ns in ms, or 1e-6 of a ratio) share the first bucket and
 * values of 2^LW_HIST_EMAX and above the last. Memory is fixed once made (the buckets, 16 KB);
 * recording is O(1). A histogram that will record no more (its validator disposed) is frozen:
 * its p50 and p99 are kept and the buckets freed.
 */
#ifndef LW_CORE_HISTOGRAM_H_
#define LW_CORE_HISTOGRAM_H_

#include "common.h"

#define LW_HIST_SUB_BITS 6
#define LW_HIST_SUB (1 << LW_HIST_SUB_BITS)
#define LW_HIST_EMIN (-20)
#define LW_HIST_EMAX 44
#define LW_HIST_BUCKETS ((LW_HIST_EMAX - LW_HIST_EMIN) * LW_HIST_SUB + 1)

typedef struct lw_histogram_s {
  uint64_t count;
  double sum;
  double min;
  double max;
  uint32_t *buckets; /* LW_HIST_BUCKETS counts; NULL once frozen */
  double frozen_p50;
  double frozen_p99;
} lw_histogram_t;

/* Returns LW_OK or LW_ENOMEM (then nothing is held). */
int lw_histogram_init(lw_histogram_t *h);
void lw_histogram_free(lw_histogram_t *h);
/* Keeps p50 and p99 and frees the buckets: later quantiles other than 0, 0.5, 0.99 and 1 are
 * NAN, later records count in count, sum, min and max only. Idempotent. */
void lw_histogram_freeze(lw_histogram_t *h);
void lw_histogram_record(lw_histogram_t *h, double value);
/* Empties it (keeping its buckets' memory). */
void lw_histogram_reset(lw_histogram_t *h);
/* The value at quantile q (0..1), clamped to [min, max]; NAN when empty (or not kept, frozen). */
double lw_histogram_quantile(const lw_histogram_t *h, double q);
double lw_histogram_mean(const lw_histogram_t *h);

#endif /* LW_CORE_HISTOGRAM_H_ */
