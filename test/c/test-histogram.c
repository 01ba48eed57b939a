/* The histogram behind stats(): exact count/min/max/mean, percentiles within 1/64. */
#include "core/histogram.h"
#include "helpers.h"
#include "test.h"

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/* The nearest-rank quantile of sorted data: the ceil(q * n)-th smallest value. */
static double true_quantile(const double *sorted, size_t n, double q) {
  size_t rank = (size_t)ceil(q * (double)n);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

TEST_IMPL(histogram_exact_stats) {
  lw_histogram_t h;
  ASSERT_EQ(lw_histogram_init(&h), LW_OK);
  lw_histogram_record(&h, 3);
  lw_histogram_record(&h, 1);
  lw_histogram_record(&h, 10);
  lw_histogram_record(&h, 2);
  lw_histogram_record(&h, 4);
  ASSERT_EQ(h.count, 5);
  ASSERT_DBL_EQ(h.min, 1);
  ASSERT_DBL_EQ(h.max, 10);
  ASSERT_DBL_EQ(lw_histogram_mean(&h), 4);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0), 1);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 1), 10);
  lw_histogram_free(&h);

  /* Fractions and zero. */
  ASSERT_EQ(lw_histogram_init(&h), LW_OK);
  lw_histogram_record(&h, 0.25);
  lw_histogram_record(&h, 0);
  lw_histogram_record(&h, 0.5);
  ASSERT_EQ(h.count, 3);
  ASSERT_DBL_EQ(h.min, 0);
  ASSERT_DBL_EQ(h.max, 0.5);
  ASSERT_DBL_EQ(lw_histogram_mean(&h), 0.25);
  lw_histogram_free(&h);

  /* One value: every quantile is that value exactly (clamped to [min, max]). */
  ASSERT_EQ(lw_histogram_init(&h), LW_OK);
  lw_histogram_record(&h, 123.4);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0.5), 123.4);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0.99), 123.4);
  ASSERT_DBL_EQ(lw_histogram_mean(&h), 123.4);
  lw_histogram_free(&h);
  return 0;
}

/* A histogram that records no more keeps p50, p99, min, max and mean, and frees its buckets. */
TEST_IMPL(histogram_freeze_keeps_stats) {
  lw_histogram_t h;
  int i;
  double p50, p99;
  ASSERT_EQ(lw_histogram_init(&h), LW_OK);
  for (i = 1; i <= 1000; i++) lw_histogram_record(&h, i);
  p50 = lw_histogram_quantile(&h, 0.5);
  p99 = lw_histogram_quantile(&h, 0.99);
  lw_histogram_freeze(&h);
  ASSERT_EQ(h.kept, 0);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0.5), p50);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0.99), p99);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0), 1);
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 1), 1000);
  ASSERT_NAN(lw_histogram_quantile(&h, 0.9));
  ASSERT_DBL_EQ(lw_histogram_mean(&h), 500.5);
  lw_histogram_freeze(&h); /* idempotent */
  ASSERT_DBL_EQ(lw_histogram_quantile(&h, 0.5), p50);
  lw_histogram_free(&h);
  return 0;
}

TEST_IMPL(histogram_empty_nan) {
  lw_histogram_t h;
  ASSERT_EQ(lw_histogram_init(&h), LW_OK);
  ASSERT_EQ(h.count, 0);
  ASSERT_NAN(lw_histogram_mean(&h));
  ASSERT_NAN(lw_histogram_quantile(&h, 0.5));
  ASSERT_NAN(lw_histogram_quantile(&h, 0.99));
  ASSERT_NAN(lw_histogram_quantile(&h, 0));
  ASSERT_NAN(lw_histogram_quantile(&h, 1));
  lw_histogram_free(&h);
  return 0;
}

static void check_distribution(int dist, uint64_t seed, size_t n) {
  static const double qs[] = {0.5, 0.9, 0.99, 0.999};
  lw_histogram_t *h = malloc(sizeof(*h));
  double *v = malloc(n * sizeof(*v));
  double sum = 0, min = INFINITY, max = -INFINITY;
  lw_rng_t rng = {seed};
  size_t i, k;
  ASSERT_NOT_NULL(h);
  ASSERT_NOT_NULL(v);
  ASSERT_EQ(lw_histogram_init(h), LW_OK);
  for (i = 0; i < n; i++) {
    double u = rng_unit(&rng);
    switch (dist) {
      case 0: v[i] = u * 10000; break;                           /* uniform lags */
      case 1: v[i] = -log(1 - u) * 40; break;                    /* exponential */
      case 2: v[i] = pow(10, -3 + 9 * u); break;                 /* log-uniform 1e-3..1e6 */
      case 3: v[i] = u; break;                                   /* ratios 0..1 */
      default: v[i] = (double)(rng_below(&rng, 20) * 250); break; /* few exact values */
    }
    lw_histogram_record(h, v[i]);
    sum += v[i];
    if (v[i] < min) min = v[i];
    if (v[i] > max) max = v[i];
  }
  ASSERT_EQ(h->count, n);
  ASSERT_DBL_EQ(h->min, min);
  ASSERT_DBL_EQ(h->max, max);
  ASSERT_DBL_EQ(lw_histogram_mean(h), sum / (double)n);
  qsort(v, n, sizeof(*v), cmp_double);
  for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
    double want = true_quantile(v, n, qs[k]);
    TEST_CONTEXT("distribution %d seed %" PRIu64 " n %zu q %g", dist, seed, n, qs[k]);
    ASSERT_DBL_REL(lw_histogram_quantile(h, qs[k]), want, 1.0 / 64);
  }
  TEST_CONTEXT("%s", "");
  lw_histogram_free(h);
  free(v);
  free(h);
}

TEST_IMPL(histogram_quantiles_random) {
  int dist;
  uint64_t seed;
  for (dist = 0; dist < 5; dist++)
    for (seed = 1; seed <= 4; seed++) {
      check_distribution(dist, seed * 7919 + (uint64_t)dist, 10000);
      check_distribution(dist, seed * 104729 + (uint64_t)dist, 37);
    }
  return 0;
}

/* The bucket a value lands in, as frexp() gives it: the reference for the bit-level bucket_of(). */
static size_t ref_bucket(double v) {
  int e;
  double m;
  if (!(v >= ldexp(1.0, LW_HIST_EMIN))) return 0;
  if (isinf(v)) return LW_HIST_BUCKETS - 1; /* frexp leaves the exponent unspecified */
  m = frexp(v, &e);
  e -= 1;
  if (e >= LW_HIST_EMAX) return LW_HIST_BUCKETS - 1;
  return (size_t)((long)(e - LW_HIST_EMIN) * LW_HIST_SUB + (long)((2.0 * m - 1.0) * LW_HIST_SUB));
}

/* Which bucket one recorded value went to. */
static size_t landed(double v) {
  lw_histogram_t h;
  size_t k, at = (size_t)-1;
  if (lw_histogram_init(&h) != LW_OK) return (size_t)-2;
  lw_histogram_record(&h, v);
  for (k = 0; k < LW_HIST_BUCKETS; k++)
    if (lw_histogram_bucket(&h, k)) at = k;
  lw_histogram_free(&h);
  return at;
}

/* Every bucket's lower bound and the double just below it land where frexp() puts them, and so do
 * the edges: zero, NaN, infinity, subnormals, the first and last buckets' bounds. */
TEST_IMPL(histogram_bucket_bounds) {
  int e, s;
  const double edges[] = {0, NAN, INFINITY, 4.9e-324, 2.2250738585072014e-308, 0x1p-20, 0x1p44,
                          0x1p43 * 1.999, 1e300, 0.5, 1, 1.0078125, 5000, 0.001};
  size_t i;
  for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) ASSERT_EQ(landed(edges[i]), ref_bucket(edges[i]));
  for (e = LW_HIST_EMIN; e <= LW_HIST_EMAX; e++) {
    for (s = 0; s < LW_HIST_SUB; s++) {
      double b = ldexp(1.0 + (double)s / LW_HIST_SUB, e);
      ASSERT_EQ(landed(b), ref_bucket(b));
      ASSERT_EQ(landed(nextafter(b, 0)), ref_bucket(nextafter(b, 0)));
    }
  }
  return 0;
}
