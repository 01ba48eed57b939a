/* The aggregate behind the exported histograms (core/aggregate.c): explicit buckets as
 * OpenTelemetry's (upper bound inclusive), and a base-2 exponential histogram whose every value
 * lies in its bucket at the final scale, with no more than LW_AGG_EXP_SIZE buckets. */
#include "core/aggregate.h"
#include "helpers.h"
#include "test.h"

TEST_IMPL(aggregate_explicit_bounds) {
  lw_agg_t a;
  size_t n, i;
  const double *b = lw_bounds(LW_BOUNDS_LAG, &n);
  lw_agg_init(&a, LW_BOUNDS_LAG);
  ASSERT_EQ(a.count, 0);
  ASSERT_TRUE(isinf(a.min) && a.min > 0);
  ASSERT_EQ(a.nbounds, n);
  ASSERT_DBL_EQ(b[0], 0.1);
  ASSERT_DBL_EQ(b[n - 1], 3600000);
  /* A value equal to a boundary belongs to the bucket that boundary closes. */
  lw_agg_record(&a, 0.1);
  lw_agg_record(&a, 0);
  lw_agg_record(&a, 0.1000001);
  lw_agg_record(&a, 0.25);
  lw_agg_record(&a, 3600000);
  lw_agg_record(&a, 3600000.5);
  lw_agg_record(&a, NAN); /* ignored, as infinities */
  lw_agg_record(&a, INFINITY);
  lw_agg_record(&a, -INFINITY);
  ASSERT_EQ(a.count, 6);
  ASSERT_EQ(a.counts[0], 2);
  ASSERT_EQ(a.counts[1], 2);
  ASSERT_EQ(a.counts[n - 1], 1);
  ASSERT_EQ(a.counts[n], 1);
  ASSERT_DBL_EQ(a.min, 0);
  ASSERT_DBL_EQ(a.max, 3600000.5);
  ASSERT_DBL_EQ(a.sum, 0.1 + 0 + 0.1000001 + 0.25 + 3600000 + 3600000.5);
  /* Every value of every bucket, against a linear scan. */
  lw_agg_init(&a, LW_BOUNDS_RATIO);
  b = lw_bounds(LW_BOUNDS_RATIO, &n);
  for (i = 0; i <= 1000; i++) lw_agg_record(&a, (double)i / 1000);
  {
    uint64_t want[LW_AGG_MAX_BOUNDS + 1] = {0};
    for (i = 0; i <= 1000; i++) {
      double v = (double)i / 1000;
      size_t k = 0;
      while (k < n && v > b[k]) k++;
      want[k]++;
    }
    for (i = 0; i <= n; i++) {
      TEST_CONTEXT("bucket %zu", i);
      ASSERT_EQ(a.counts[i], want[i]);
    }
    TEST_CONTEXT("%s", "");
  }
  /* 0 is a bucket boundary of ratios: the first bucket holds exactly the zeros. */
  ASSERT_EQ(a.counts[0], 1);
  ASSERT_EQ(a.zero_count, 1);
  return 0;
}

/* Whether v lies in exponential bucket i at scale s: base^i < v <= base^(i+1), base = 2^(2^-s),
 * with the bounds as exact as long double gives them (exact at powers of two; the values below
 * are never within an ulp of another boundary, where the logarithm may pick either side). */
static int in_bucket(double v, int64_t i, int s) {
  long double lo = exp2l(ldexpl((long double)i, -s));
  long double hi = exp2l(ldexpl((long double)(i + 1), -s));
  return (long double)v > lo && (long double)v <= hi;
}

static void check_exponential(const double *v, size_t n) {
  lw_agg_t a;
  size_t i, k;
  uint64_t total = 0;
  lw_agg_init(&a, LW_BOUNDS_LAG);
  for (i = 0; i < n; i++) lw_agg_record(&a, v[i]);
  ASSERT_LE(a.exp_len, LW_AGG_EXP_SIZE);
  ASSERT_LE(a.exp_scale, LW_AGG_EXP_MAX_SCALE);
  for (k = 0; k < a.exp_len; k++) total += a.exp_counts[k];
  ASSERT_EQ(total + a.zero_count, a.count);
  ASSERT_EQ(a.count, n);
  /* Each bucket holds exactly the values that lie in it at the final scale. */
  for (k = 0; k < a.exp_len; k++) {
    uint64_t want = 0;
    for (i = 0; i < n; i++)
      if (v[i] > 0 && in_bucket(v[i], a.exp_offset + (int64_t)k, a.exp_scale)) want++;
    TEST_CONTEXT("bucket %" PRId64 " at scale %d", a.exp_offset + (int64_t)k, a.exp_scale);
    ASSERT_EQ(a.exp_counts[k], want);
  }
  TEST_CONTEXT("%s", "");
  /* The finest scale that holds the range: one more would need more than LW_AGG_EXP_SIZE. */
  if (a.exp_scale < LW_AGG_EXP_MAX_SCALE && a.exp_len > 0) {
    double lo = INFINITY, hi = 0;
    for (i = 0; i < n; i++)
      if (v[i] > 0) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
      }
    ASSERT_GT(ceil(log2(hi) * ldexp(1.0, a.exp_scale + 1)) - ceil(log2(lo) * ldexp(1.0, a.exp_scale + 1)) + 1,
              LW_AGG_EXP_SIZE);
  }
}

TEST_IMPL(aggregate_exponential) {
  static double v[4000];
  lw_rng_t rng = {12345};
  size_t i;
  lw_agg_t a;
  /* One value: the finest scale. Powers of two close their bucket. */
  lw_agg_init(&a, LW_BOUNDS_LAG);
  lw_agg_record(&a, 1);
  ASSERT_EQ(a.exp_scale, LW_AGG_EXP_MAX_SCALE);
  ASSERT_EQ(a.exp_offset, -1);
  lw_agg_record(&a, 0);
  ASSERT_EQ(a.zero_count, 1);
  lw_agg_init(&a, LW_BOUNDS_LAG);
  lw_agg_record(&a, 4);
  ASSERT_EQ(a.exp_offset, ((int64_t)2 << LW_AGG_EXP_MAX_SCALE) - 1);
  /* 1 and 4 at scale -1 (base 4): 1 in (1/4, 1], 4 in (1, 4]; at scale 0 both fit. */
  lw_agg_record(&a, 1);
  ASSERT_LE(a.exp_len, LW_AGG_EXP_SIZE);
  check_exponential((const double[]){1, 4}, 2);
  check_exponential((const double[]){0.5, 1, 2, 4, 8, 1024}, 6);
  /* Next to a power of two, on either side: the last bucket of one octave, the first of the next
   * (the index is computed per octave, and log1p's rounding must not leave it). */
  check_exponential((const double[]){nextafter(2, 0), nextafter(2, 4)}, 2);
  check_exponential((const double[]){nextafter(1024, 0), nextafter(1024, 2048), nextafter(0.5, 0), nextafter(0.5, 1)}, 4);
  /* Lags over ten decades, random; a ratio's share; growing then shrinking values. */
  for (i = 0; i < 4000; i++) v[i] = ldexp(1.0, -10) * pow(10, 10 * rng_unit(&rng));
  check_exponential(v, 4000);
  for (i = 0; i < 4000; i++) v[i] = rng_unit(&rng) < 0.1 ? 0 : rng_unit(&rng);
  check_exponential(v, 4000);
  for (i = 0; i < 200; i++) v[i] = i < 100 ? 1 + (double)i / 1000 : 1.0 / (double)(i - 98);
  check_exponential(v, 200);
  return 0;
}
