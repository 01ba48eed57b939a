#include "histogram.h"

#include <string.h>

int lw_histogram_init(lw_histogram_t *h) {
  memset(h, 0, sizeof(*h));
  h->min = INFINITY;
  h->max = -INFINITY;
  h->kept = 1;
  return LW_OK;
}

void lw_histogram_free(lw_histogram_t *h) {
  size_t r;
  if (h->rows != NULL)
    for (r = 0; r < LW_HIST_ROWS; r++) lw__free(h->rows[r]);
  lw__free(h->rows);
  h->rows = NULL;
  h->kept = 0;
}

uint32_t lw_histogram_bucket(const lw_histogram_t *h, size_t k) {
  const uint32_t *row = k < LW_HIST_BUCKETS && h->rows != NULL ? h->rows[k / LW_HIST_SUB] : NULL;
  return row ? row[k % LW_HIST_SUB] : 0;
}

size_t lw_histogram_memory(const lw_histogram_t *h) {
  size_t r, n;
  if (h->rows == NULL) return 0;
  n = LW_HIST_ROWS * sizeof(*h->rows);
  for (r = 0; r < LW_HIST_ROWS; r++)
    if (h->rows[r]) n += LW_HIST_SUB * sizeof(*h->rows[r]);
  return n;
}

void lw_histogram_freeze(lw_histogram_t *h) {
  if (!h->kept) return;
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

double lw_histogram_bucket_value(size_t k) {
  int e = (int)(k / LW_HIST_SUB) + LW_HIST_EMIN;
  double s = (double)(k % LW_HIST_SUB);
  return ldexp(1.0 + (s + 0.5) / LW_HIST_SUB, e);
}

void lw_histogram_record(lw_histogram_t *h, double value) {
  h->count++;
  h->sum += value;
  if (value < h->min) h->min = value;
  if (value > h->max) h->max = value;
  if (h->kept && (h->rows != NULL || (h->rows = lw__calloc(LW_HIST_ROWS, sizeof(*h->rows))) != NULL)) {
    size_t k = bucket_of(value);
    uint32_t **row = &h->rows[k / LW_HIST_SUB];
    if (*row == NULL) *row = lw__calloc(LW_HIST_SUB, sizeof(**row));
    if (*row != NULL) (*row)[k % LW_HIST_SUB]++;
  }
}

void lw_histogram_reset(lw_histogram_t *h) {
  size_t r;
  h->count = 0;
  h->sum = 0;
  h->min = INFINITY;
  h->max = -INFINITY;
  if (h->rows != NULL)
    for (r = 0; r < LW_HIST_ROWS; r++)
      if (h->rows[r]) memset(h->rows[r], 0, LW_HIST_SUB * sizeof(*h->rows[r]));
}

double lw_histogram_mean(const lw_histogram_t *h) {
  return h->count ? h->sum / (double)h->count : NAN;
}

double lw_histogram_quantile(const lw_histogram_t *h, double q) {
  if (h->count > 0 && q > 0 && q < 1 && !h->kept) return q == 0.5 ? h->frozen_p50 : q == 0.99 ? h->frozen_p99 : NAN;
  return lw_histogram_quantile_of(&h, 1, q);
}

double lw_histogram_quantile_of(const lw_histogram_t *const *hs, size_t n, double q) {
  uint64_t count = 0, rank, seen = 0;
  double min = INFINITY, max = -INFINITY, v;
  size_t i, k;
  for (i = 0; i < n; i++) {
    if (hs[i]->count == 0) continue;
    count += hs[i]->count;
    if (hs[i]->min < min) min = hs[i]->min;
    if (hs[i]->max > max) max = hs[i]->max;
  }
  if (count == 0) return NAN;
  if (q <= 0) return min;
  if (q >= 1) return max;
  /* The smallest bucket holding the ceil(q * count)-th sample; rows not allocated count nothing. */
  rank = (uint64_t)ceil(q * (double)count);
  if (rank < 1) rank = 1;
  for (k = 0; k < LW_HIST_BUCKETS; k += LW_HIST_SUB) {
    const uint32_t *rows[LW_HIST_QUANTILE_MAX];
    size_t j, m = 0, end = k + LW_HIST_SUB < LW_HIST_BUCKETS ? k + LW_HIST_SUB : LW_HIST_BUCKETS;
    for (i = 0; i < n && i < LW_HIST_QUANTILE_MAX; i++)
      if (hs[i]->rows != NULL && hs[i]->rows[k / LW_HIST_SUB] != NULL) rows[m++] = hs[i]->rows[k / LW_HIST_SUB];
    for (j = k; m > 0 && j < end && seen < rank; j++)
      for (i = 0; i < m; i++) seen += rows[i][j % LW_HIST_SUB];
    if (seen >= rank) {
      k = j - 1;
      break;
    }
  }
  /* Past the last bucket: values left out of the buckets (a row without memory). */
  v = k >= LW_HIST_BUCKETS ? max : k == 0 ? min : lw_histogram_bucket_value(k);
  return v < min ? min : v > max ? max : v;
}
