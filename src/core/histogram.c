#include "histogram.h"

#include <string.h>

int lw_histogram_init(lw_histogram_t *h) {
  memset(h, 0, sizeof(*h));
  h->min = INFINITY;
  h->max = -INFINITY;
  h->buckets = lw__calloc(LW_HIST_BUCKETS, sizeof(*h->buckets));
  return h->buckets ? LW_OK : LW_ENOMEM;
}

void lw_histogram_free(lw_histogram_t *h) {
  lw__free(h->buckets);
  h->buckets = NULL;
}

void lw_histogram_freeze(lw_histogram_t *h) {
  if (h->buckets == NULL) return;
  h->frozen_p50 = lw_histogram_quantile(h, 0.5);
  h->frozen_p99 = lw_histogram_quantile(h, 0.99);
  lw_histogram_free(h);
}

/* The bucket of v: its binary exponent and the top LW_HIST_SUB_BITS bits of its significand,
 * read from the IEEE 754 bits (a record per loop iteration cannot afford frexp). */
static size_t bucket_of(double v) {
  uint64_t bits;
  int e;
  _Static_assert(LW_HIST_EMIN == -20, "the threshold below is 2^LW_HIST_EMIN");
  if (!(v >= 0x1p-20)) return 0; /* NaN too */
  memcpy(&bits, &v, sizeof(bits));
  e = (int)((bits >> 52) & 0x7ff) - 1023;
  if (e >= LW_HIST_EMAX) return LW_HIST_BUCKETS - 1;
  return (size_t)(e - LW_HIST_EMIN) * LW_HIST_SUB + (size_t)((bits >> (52 - LW_HIST_SUB_BITS)) & (LW_HIST_SUB - 1));
}

/* The middle of bucket k. */
static double bucket_value(size_t k) {
  int e = (int)(k / LW_HIST_SUB) + LW_HIST_EMIN;
  double s = (double)(k % LW_HIST_SUB);
  return ldexp(1.0 + (s + 0.5) / LW_HIST_SUB, e);
}

void lw_histogram_record(lw_histogram_t *h, double value) {
  h->count++;
  h->sum += value;
  if (value < h->min) h->min = value;
  if (value > h->max) h->max = value;
  if (h->buckets) h->buckets[bucket_of(value)]++;
}

void lw_histogram_reset(lw_histogram_t *h) {
  h->count = 0;
  h->sum = 0;
  h->min = INFINITY;
  h->max = -INFINITY;
  if (h->buckets) memset(h->buckets, 0, LW_HIST_BUCKETS * sizeof(*h->buckets));
}

double lw_histogram_mean(const lw_histogram_t *h) {
  return h->count ? h->sum / (double)h->count : NAN;
}

double lw_histogram_quantile(const lw_histogram_t *h, double q) {
  uint64_t rank, seen = 0;
  size_t k;
  double v;
  if (h->count == 0) return NAN;
  if (q <= 0) return h->min;
  if (q >= 1) return h->max;
  if (h->buckets == NULL) return q == 0.5 ? h->frozen_p50 : q == 0.99 ? h->frozen_p99 : NAN;
  /* The smallest bucket holding the ceil(q * count)-th sample. */
  rank = (uint64_t)ceil(q * (double)h->count);
  if (rank < 1) rank = 1;
  for (k = 0; k < LW_HIST_BUCKETS; k++) {
    seen += h->buckets[k];
    if (seen >= rank) break;
  }
  v = k == 0 ? h->min : bucket_value(k);
  if (v < h->min) v = h->min;
  if (v > h->max) v = h->max;
  return v;
}
