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

static size_t bucket_of(double v) {
  int e;
  double m;
  long k;
  if (!(v >= ldexp(1.0, LW_HIST_EMIN))) return 0;
  m = frexp(v, &e); /* v = m * 2^e, m in [0.5, 1) */
  e -= 1;           /* v = (2m) * 2^e, 2m in [1, 2) */
  if (e >= LW_HIST_EMAX) return LW_HIST_BUCKETS - 1;
  k = (long)(e - LW_HIST_EMIN) * LW_HIST_SUB + (long)((2.0 * m - 1.0) * LW_HIST_SUB);
  return (size_t)k;
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
