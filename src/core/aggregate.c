#include "aggregate.h"

#include <string.h>

/* Lag, from a tenth of a millisecond to an hour (OpenTelemetry's default buckets stop at 10 s). */
static const double lag_bounds[] = {0.1,  0.25, 0.5,  1,     2.5,   5,     10,    25,
                                    50,   100,  250,  500,   1000,  2500,  5000,  10000,
                                    30000, 60000, 300000, 900000, 3600000};
/* Stalls, from a threshold of a second to a day. From 5 s (the default threshold) to a minute and
 * blocks from 50 ms to 5 s: successive bounds at most 10.5 % apart, so that a quantile read from
 * the classic buckets (Prometheus interpolates inside a bucket) is within 10 % of the value, even
 * of a single one; round figures, each the roundest under 1.105 times the last. */
static const double stall_bounds[] = {1000, 2000, 3000, 4000, 5000, 5500, 6000, 6600, 7200, 7900,
                                      8700, 9600, 10000, 11000, 12000, 13000, 14000, 15000, 16000,
                                      17000, 18000, 19000, 20000, 22000, 24000, 26000, 28000,
                                      30000, 33000, 36000, 39000, 43000, 47000, 51000, 56000,
                                      61000, 90000, 120000, 300000, 600000, 1800000, 3600000,
                                      7200000, 14400000, 28800000, 86400000};
static const double block_bounds[] = {50, 55, 60, 66, 72, 79, 87, 96, 100, 110, 120, 130, 140, 150,
                                      160, 170, 180, 190, 200, 220, 240, 260, 280, 300, 330, 360,
                                      390, 430, 470, 510, 560, 610, 670, 740, 810, 890, 980, 1000,
                                      1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000,
                                      2200, 2400, 2600, 2800, 3000, 3300, 3600, 3900, 4300, 4700,
                                      5100, 10000, 30000, 60000, 300000};
static const double ratio_bounds[] = {0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
/* log2(e), written out: M_LOG2E is not standard C (MSVC hides it). */
#define LOG2E 1.4426950408889634074
/* The kinds an aggregate records (lw_agg_init). */
_Static_assert(COUNT_OF(lag_bounds) <= LW_AGG_MAX_BOUNDS, "LW_AGG_MAX_BOUNDS");
_Static_assert(COUNT_OF(ratio_bounds) <= LW_AGG_MAX_BOUNDS, "LW_AGG_MAX_BOUNDS");

const double *lw_bounds(lw_bounds_t kind, size_t *n) {
  switch (kind) {
    case LW_BOUNDS_STALL:
      *n = COUNT_OF(stall_bounds);
      return stall_bounds;
    case LW_BOUNDS_BLOCK:
      *n = COUNT_OF(block_bounds);
      return block_bounds;
    case LW_BOUNDS_RATIO:
      *n = COUNT_OF(ratio_bounds);
      return ratio_bounds;
    case LW_BOUNDS_LAG:
    default:
      *n = COUNT_OF(lag_bounds);
      return lag_bounds;
  }
}

void lw_agg_init(lw_agg_t *a, lw_bounds_t kind) {
  memset(a, 0, sizeof(*a));
  a->min = INFINITY;
  a->max = -INFINITY;
  /* Stalls and blocks have more bounds than an aggregate holds: JS records them (lib/metrics.js). */
  a->bounds = lw_bounds(kind == LW_BOUNDS_RATIO ? LW_BOUNDS_RATIO : LW_BOUNDS_LAG, &a->nbounds);
  a->exp_scale = LW_AGG_EXP_MAX_SCALE;
}

/* floor(x / 2^k) for k >= 0, whatever the sign of x (>> of a negative value is the compiler's). */
static int64_t floor_shift(int64_t x, int k) {
  return x >= 0 ? x >> k : -((-x - 1) >> k) - 1;
}

/* The exponential bucket of v > 0 at `scale`: the i with base^i < v <= base^(i+1). An exact
 * power of two is the upper bound of its bucket; other values go by the logarithm, as the
 * OpenTelemetry SDKs compute it (a value within an ulp of a boundary may land on either side).
 * With v = m * 2^(e-1), 1 < m < 2, the index is (e-1) * 2^scale plus the bucket of m within its
 * octave, from log1p(m - 1) (m - 1 is exact): not log2() or log(), which glibc 2.29 gave new
 * symbol versions on x86_64, so that a prebuild using them would not load on older systems
 * (scripts/prebuild.js refuses any symbol newer than GLIBC_2.17). */
static int64_t exp_index(double v, int scale) {
  int e;
  int64_t octave, within;
  double f = frexp(v, &e); /* v = f * 2^e, 0.5 <= f < 1 */
  if (f == 0.5) { /* v = 2^(e-1) */
    if (scale >= 0) return (int64_t)(e - 1) * ((int64_t)1 << scale) - 1;
    return floor_shift(e - 2, -scale);
  }
  if (scale <= 0) return floor_shift(e - 1, -scale);
  octave = (int64_t)1 << scale;
  within = (int64_t)floor(log1p(2 * f - 1) * LOG2E * (double)octave);
  /* log1p's rounding must not leave the octave: v lies strictly between its powers of two. */
  if (within < 0) within = 0;
  if (within >= octave) within = octave - 1;
  return (int64_t)(e - 1) * octave + within;
}

/* Lowers the scale by `by`: bucket i becomes i >> by, merging neighbours. */
static void exp_downscale(lw_agg_t *a, int by) {
  int64_t base;
  size_t i;
  if (by <= 0) return;
  if (a->exp_len > 0) {
    base = floor_shift(a->exp_offset, by);
    for (i = 0; i < a->exp_len; i++) {
      size_t j = (size_t)(floor_shift(a->exp_offset + (int64_t)i, by) - base);
      uint64_t n = a->exp_counts[i];
      a->exp_counts[i] = 0;
      a->exp_counts[j] += n; /* j <= i: a bucket is read before it can be written */
    }
    a->exp_len = (size_t)(floor_shift(a->exp_offset + (int64_t)a->exp_len - 1, by) - base) + 1;
    a->exp_offset = base;
  }
  a->exp_scale -= by;
}

static void exp_record(lw_agg_t *a, double v) {
  int64_t idx, lo, hi;
  int by = 0;
  if (!(v > 0)) {
    a->zero_count++;
    return;
  }
  idx = exp_index(v, a->exp_scale);
  if (a->exp_len == 0) {
    a->exp_offset = idx;
    a->exp_len = 1;
    a->exp_counts[0] = 1;
    return;
  }
  lo = idx < a->exp_offset ? idx : a->exp_offset;
  hi = a->exp_offset + (int64_t)a->exp_len - 1;
  if (idx > hi) hi = idx;
  while (floor_shift(hi, by) - floor_shift(lo, by) + 1 > LW_AGG_EXP_SIZE) by++;
  if (by > 0) {
    exp_downscale(a, by);
    idx = floor_shift(idx, by); /* the same bucket as the others', whatever log2 rounds to */
  }
  if (idx < a->exp_offset) {
    size_t shift = (size_t)(a->exp_offset - idx);
    memmove(a->exp_counts + shift, a->exp_counts, a->exp_len * sizeof(a->exp_counts[0]));
    memset(a->exp_counts, 0, shift * sizeof(a->exp_counts[0]));
    a->exp_offset = idx;
    a->exp_len += shift;
  } else if (idx >= a->exp_offset + (int64_t)a->exp_len) {
    a->exp_len = (size_t)(idx - a->exp_offset) + 1;
  }
  a->exp_counts[idx - a->exp_offset]++;
}

void lw_agg_record(lw_agg_t *a, double v) {
  size_t lo = 0, hi;
  if (!isfinite(v)) return; /* never a recorded sample; no bucket of either kind holds one */
  a->count++;
  a->sum += v;
  if (v < a->min) a->min = v;
  if (v > a->max) a->max = v;
  /* The first boundary >= v (binary search). */
  hi = a->nbounds;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a->bounds[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  a->counts[lo]++;
  exp_record(a, v);
}
