/* A log-bucketed histogram of non-negative samples, for the percentiles of stats().
 *
 * Bucket k covers [2^(e) * (1 + s/LW_HIST_SUB)) for exponent e and sub-bucket s, so a percentile
 * is exact to 1/LW_HIST_SUB (about 1.6 %) of its value; count, min, max and mean are exact.
 * Values below 2^LW_HIST_EMIN (about 1 ns in ms, or 1e-6 of a ratio) share the first bucket and
 * values of 2^LW_HIST_EMAX and above the last. Memory is fixed; recording is O(1).
 */
#ifndef LW_CORE_HISTOGRAM_H_
#define LW_CORE_HISTOGRAM_H_

#include "common.h"

#define LW_HIST_SUB 64
#define LW_HIST_EMIN (-20)
#define LW_HIST_EMAX 44
#define LW_HIST_BUCKETS ((LW_HIST_EMAX - LW_HIST_EMIN) * LW_HIST_SUB + 1)

typedef struct lw_histogram_s {
  uint64_t count;
  double sum;
  double min;
  double max;
  uint32_t buckets[LW_HIST_BUCKETS];
} lw_histogram_t;

void lw_histogram_init(lw_histogram_t *h);
void lw_histogram_record(lw_histogram_t *h, double value);
/* The value at quantile q (0..1), clamped to [min, max]; NAN when empty. */
double lw_histogram_quantile(const lw_histogram_t *h, double q);
double lw_histogram_mean(const lw_histogram_t *h);

#endif /* LW_CORE_HISTOGRAM_H_ */
