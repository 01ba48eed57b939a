/* A log-bucketed histogram of non-negative samples, for the percentiles of stats().
 *
 * Bucket k covers [2^(e) * (1 + s/LW_HIST_SUB)) for exponent e and sub-bucket s, so a percentile
 * is exact to 1/LW_HIST_SUB (about 1.6 %) of its value; count, min, max and mean are exact.
 * Values below 2^LW_HIST_EMIN (about 1 ns in ms, or 1e-6 of a ratio) share the first bucket and
 * values of 2^LW_HIST_EMAX and above the last. The buckets come in rows of LW_HIST_SUB (one
 * binary exponent each), each allocated at the first value it counts: samples cluster in a few
 * exponents, so a histogram holds a few rows of its LW_HIST_ROWS, not all the buckets (16 KB)
 * from its start. Recording is O(1). A histogram that will record no more (its validator
 * disposed) is frozen: its p50 and p99 are kept and the buckets freed.
 */
#ifndef LW_CORE_HISTOGRAM_H_
#define LW_CORE_HISTOGRAM_H_

#include "common.h"

#define LW_HIST_SUB_BITS 6
#define LW_HIST_SUB (1 << LW_HIST_SUB_BITS)
#define LW_HIST_EMIN (-20)
#define LW_HIST_EMAX 44
#define LW_HIST_BUCKETS ((LW_HIST_EMAX - LW_HIST_EMIN) * LW_HIST_SUB + 1)
#define LW_HIST_ROWS ((LW_HIST_BUCKETS + LW_HIST_SUB - 1) / LW_HIST_SUB)

typedef struct lw_histogram_s {
  uint64_t count;
  double sum;
  double min;
  double max;
  /* Bucket k is rows[k / LW_HIST_SUB][k % LW_HIST_SUB]; the table of LW_HIST_ROWS rows is made at
   * the first value (NULL before and once frozen, so that a stopped set keeps no more than these
   * fields), a row not yet counted in is NULL (all zero). A row that cannot be allocated leaves
   * its values out of the buckets only: the percentiles then read high (the max at worst);
   * count, sum, min and max stay exact. */
  uint32_t **rows;
  int kept; /* the buckets are kept: 0 once frozen (or freed) */
  double frozen_p50;
  double frozen_p99;
} lw_histogram_t;

/* Returns LW_OK (no bucket is allocated before a value is recorded). */
int lw_histogram_init(lw_histogram_t *h);
/* The count of bucket k (0 while its row is not allocated, or once frozen). */
uint32_t lw_histogram_bucket(const lw_histogram_t *h, size_t k);
/* The middle of bucket k: the value a quantile in it reads. */
double lw_histogram_bucket_value(size_t k);
/* The bytes of the rows allocated. */
size_t lw_histogram_memory(const lw_histogram_t *h);
void lw_histogram_free(lw_histogram_t *h);
/* Keeps p50 and p99 and frees the buckets: later quantiles other than 0, 0.5, 0.99 and 1 are
 * NAN, later records count in count, sum, min and max only. Idempotent. */
void lw_histogram_freeze(lw_histogram_t *h);
void lw_histogram_record(lw_histogram_t *h, double value);
/* Empties it (keeping its buckets' memory). */
void lw_histogram_reset(lw_histogram_t *h);
/* The value at quantile q (0..1), clamped to [min, max]; NAN when empty (or not kept, frozen). */
double lw_histogram_quantile(const lw_histogram_t *h, double q);
/* The same of `n` histograms taken as one (frozen ones count in count, min and max only; the
 * buckets of the first LW_HIST_QUANTILE_MAX). */
#define LW_HIST_QUANTILE_MAX 16
double lw_histogram_quantile_of(const lw_histogram_t *const *hs, size_t n, double q);
double lw_histogram_mean(const lw_histogram_t *h);

#endif /* LW_CORE_HISTOGRAM_H_ */
