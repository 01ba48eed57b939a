/* The reliability tracker (SPEC §2): intervals in which measurements are not correct.
 *
 * An interval is [start, end] with a reason; an open interval has end = +INFINITY. Reasons are
 * interned: each distinct reason string gets a small id for the life of the tracker, and the
 * built-in reasons have the fixed ids below.
 *
 * Invariants:
 * - Intervals are kept in one bucket per reason, sorted by (start, seq); seq is the order of
 *   addition, so ties resolve to the earliest added.
 * - Each bucket also keeps the running maximum of `end` over its prefix. It is non-decreasing, so
 *   the first interval whose end passes a window's start is found by binary search: a query costs
 *   O(log n) per reason, whatever the number of kept intervals.
 * - A closed interval is kept while now <= end + retention_ms. Queries never see an expired
 *   one; mutations drop them in batches (once the earliest is past its retention by an eighth
 *   of the retention), and lw_tracker_expire() drops them all and returns the exact count.
 */
#ifndef LW_CORE_TRACKER_H_
#define LW_CORE_TRACKER_H_

#include "common.h"
#include "reasons.h"

#define LW_REASONS_MAX 1024    /* distinct reasons one tracker interns */
#define LW_OPEN_MAX 10000      /* open intervals at once through lw_tracker_open(counted) */

typedef struct lw_interval_s {
  double start;
  double end;     /* +INFINITY while open */
  uint64_t seq;   /* order of addition; also the handle of an open interval */
  uint32_t reason;
  uint8_t counted; /* opened by a caller that counts against LW_OPEN_MAX */
  /* The stop time it accounts for (SPEC §5's own part), if less than its length: a suspend seen
   * by the clocks alone lies somewhere in the span between two reads; NAN: all of it. */
  double weight;
} lw_interval_t;

typedef struct lw__bucket_s {
  uint64_t discarded; /* samples the conditions discarded for this reason: made with the reason,
                         so counting never needs memory */
  lw_interval_t *items;
  double *maxend; /* maxend[i] = max(items[0..i].end) */
  size_t len;
  size_t cap;
} lw__bucket_t;

typedef struct lw_tracker_s {
  double retention_ms;
  char (*names)[LW_REASON_MAX_LEN + 1];
  lw__bucket_t *buckets; /* one per interned reason */
  size_t nreasons;
  size_t reasons_cap;
  size_t total;        /* kept intervals */
  size_t open_counted; /* open intervals that count against LW_OPEN_MAX */
  uint64_t next_seq;
  double min_closed_end; /* smallest end among closed intervals, or +INFINITY */
} lw_tracker_t;

int lw_tracker_init(lw_tracker_t *t, double retention_ms);
void lw_tracker_free(lw_tracker_t *t);

/* Interns `name` (must be valid) and stores its id in `*id`. LW_ELIMIT past LW_REASONS_MAX. */
int lw_tracker_reason(lw_tracker_t *t, const char *name, size_t len, uint32_t *id);
/* Looks `name` up without interning it: its id, or LW_REASON_UNSEEN if it was never seen. */
uint32_t lw_tracker_reason_find(const lw_tracker_t *t, const char *name, size_t len);
const char *lw_tracker_reason_name(const lw_tracker_t *t, uint32_t id);

/* Opens an interval [now, +INFINITY). `counted` intervals are limited to LW_OPEN_MAX at once
 * (LW_ELIMIT); the lifecycle's own intervals are not counted. The handle goes to `*seq`. */
int lw_tracker_open(lw_tracker_t *t, uint32_t reason, double now, int counted, uint64_t *seq);
/* Check, then commit: opens a counted interval of the reason `name` (of `len` bytes), interning
 * it. LW_EINVAL (a bad reason) and LW_ELIMIT (LW_OPEN_MAX open, field "open"; LW_REASONS_MAX
 * reasons, field "reason") change nothing and say so in `*err`; LW_ENOMEM may leave the reason
 * interned, nothing else. */
int lw_tracker_open_reason(lw_tracker_t *t, const char *name, size_t len, double now,
                           uint64_t *seq, lw_err_t *err);
/* Check, then commit: adds [start, end] of the reason `name`. `start`/`end` must be finite
 * (LW_EINVAL naming them); end < start is ignored (LW_OK, nothing interned); a bad reason or one
 * too many is refused as above. */
int lw_tracker_add_reason(lw_tracker_t *t, const char *name, size_t len, double start,
                          double end, double now, lw_err_t *err);
/* Closes the open interval `seq` at `now`. Closing a closed or unknown interval does nothing and
 * returns LW_ENOENT. */
int lw_tracker_close(lw_tracker_t *t, uint64_t seq, double now);
/* Adds the closed interval [start, end]; end < start is ignored (returns LW_OK, adds nothing). */
int lw_tracker_add(lw_tracker_t *t, double start, double end, uint32_t reason, double now);
/* The same, for evidence that accounts for `weight` ms of stop time somewhere in [start, end]
 * (lw_interval_t.weight): it discards as any interval, and covers at most that much time. */
int lw_tracker_add_weighted(lw_tracker_t *t, double start, double end, uint32_t reason,
                            double weight, double now);

/* Finds the first interval (earliest start, then earliest added) of `reason` (LW_REASON_ANY for
 * every reason) overlapping [ws, we]: closed [s, e] iff s < we && e > ws; open [s, inf) iff
 * we >= s. Returns 1 and fills `*out`, or 0. */
int lw_tracker_find(lw_tracker_t *t, double ws, double we, uint32_t reason, double now,
                    lw_interval_t *out);
/* The validator's lookup (SPEC §4 step 2): the reasons looked for first (lw_reasons[].first), in
 * id order, then any reason. */
int lw_tracker_find_priority(lw_tracker_t *t, double ws, double we, double now,
                             lw_interval_t *out);

/* The time inside [ws, we] that kept intervals of the `n` reasons `reasons` cover (their union,
 * each clipped to the window; an open one to `we`), ms. At most LW_REASON_BUILTIN_COUNT reasons.
 * An interval with a weight adds at most its weight, beyond what the others cover of it. */
double lw_tracker_covered(lw_tracker_t *t, double ws, double we, const uint32_t *reasons, size_t n,
                          double now);
/* 1 and `*out` if an interval of a reason that is no stop (lw_reason_is_stop) overlaps [ws, we]. */
int lw_tracker_find_other(lw_tracker_t *t, double ws, double we, double now, lw_interval_t *out);
/* Drops expired intervals; returns the number kept. */
size_t lw_tracker_expire(lw_tracker_t *t, double now);
/* Copies up to `max` kept intervals, sorted by (start, seq), into `out`; returns the number kept
 * (which may exceed `max`). */
size_t lw_tracker_list(lw_tracker_t *t, double now, lw_interval_t *out, size_t max);

#endif /* LW_CORE_TRACKER_H_ */
