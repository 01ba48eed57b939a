/* Helpers shared by the tests: a seeded PRNG, the SPEC §2 overlap rule written out literally,
 * and a driver loop for the conditions that behaves like a real driver (run at each due time). */
#ifndef LW_TEST_HELPERS_H_
#define LW_TEST_HELPERS_H_

#include "core/conditions.h"
#include "test.h"

/* splitmix64: deterministic for a given seed on every platform. */
typedef struct {
  uint64_t s;
} lw_rng_t;

static inline uint64_t rng_next(lw_rng_t *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform integer in [0, n). */
static inline uint64_t rng_below(lw_rng_t *r, uint64_t n) { return n ? rng_next(r) % n : 0; }

/* Uniform double in [0, 1). */
static inline double rng_unit(lw_rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* 1 with probability num/den. */
static inline int rng_chance(lw_rng_t *r, uint64_t num, uint64_t den) {
  return rng_below(r, den) < num;
}

/* SPEC §2, literally: closed [s, e] overlaps [ws, we] iff s < we && e > ws; open [s, inf)
 * overlaps iff we >= s. */
static inline int spec_overlaps(double s, double e, int open, double ws, double we) {
  if (open) return we >= s;
  return s < we && e > ws;
}

/* SPEC §2 retention: a closed interval is kept while now <= end + retention; an open one always. */
static inline int spec_kept(double e, int open, double retention, double now) {
  return open || now <= e + retention;
}

/* Calls lw_conditions_run() at each due time up to `target`, like a driver, then moves `*now`
 * to `target`. */
static inline void drive_to(lw_conditions_t *c, double *now, double target) {
  for (;;) {
    double due = lw_conditions_next_due(c);
    if (!(due <= target)) break;
    if (due > *now) *now = due;
    lw_conditions_run(c, *now);
  }
  if (target > *now) *now = target;
}

/* Drives until nothing is due any more. */
static inline void drive_all(lw_conditions_t *c, double *now) {
  for (;;) {
    double due = lw_conditions_next_due(c);
    if (due == LW_NEVER) break;
    if (due > *now) *now = due;
    lw_conditions_run(c, *now);
  }
}

/* Number of queued events of `type`. */
static inline size_t count_events(const lw_conditions_t *c, lw_event_type_t type) {
  size_t n, i, k = 0;
  const lw_event_t *ev = lw_conditions_events(c, &n);
  for (i = 0; i < n; i++)
    if (ev[i].type == type) k++;
  return k;
}

/* The first queued event of `type`, or NULL. */
static inline const lw_event_t *find_event(const lw_conditions_t *c, lw_event_type_t type) {
  size_t n, i;
  const lw_event_t *ev = lw_conditions_events(c, &n);
  for (i = 0; i < n; i++)
    if (ev[i].type == type) return &ev[i];
  return NULL;
}

/* Sum of the discarded counts over every reason. */
static inline uint64_t discarded_total(const lw_conditions_t *c) {
  uint64_t sum = 0;
  size_t i;
  for (i = 0; i < c->tracker.nreasons; i++) sum += lw_conditions_discarded(c, (uint32_t)i);
  return sum;
}

static inline uint64_t discarded_of(const lw_conditions_t *c, uint32_t reason) {
  return lw_conditions_discarded(c, reason);
}

static inline uint64_t stalls_total(const lw_conditions_t *c) {
  return c->stalls[LW_KIND_HANG] + c->stalls[LW_KIND_SUSPEND] + c->stalls[LW_KIND_PAUSE];
}

/* SPEC §4 conservation, for the conditions and for each validator name. */
#define ASSERT_CONSERVATION(c)                                                                  \
  do {                                                                                          \
    size_t n_;                                                                                  \
    ASSERT_EQ((c)->submitted,                                                                   \
              (c)->recorded + discarded_total(c) + (c)->held_count + (c)->cancelled);           \
    for (n_ = 0; n_ < (c)->nnames; n_++) {                                                      \
      const lw_name_stats_t *ns_ = (c)->names[n_];                                              \
      ASSERT_EQ(ns_->submitted, ns_->recorded + ns_->discarded + ns_->held + ns_->cancelled);   \
    }                                                                                           \
  } while (0)

#endif /* LW_TEST_HELPERS_H_ */
