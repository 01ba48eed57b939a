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

#define LW_REASON_MAX_LEN 64
#define LW_REASONS_MAX 1024    /* distinct reasons one tracker interns */
#define LW_OPEN_MAX 10000      /* open intervals at once through lw_tracker_open(counted) */
/* Three ids that are no reason's (one value: a reason's id is below LW_REASONS_MAX). */
#define LW_REASON_ANY UINT32_MAX    /* a filter that takes every reason (lw_tracker_find) */
#define LW_REASON_NONE UINT32_MAX   /* no reason: a sample recorded, a heartbeat with no evidence */
#define LW_REASON_UNSEEN UINT32_MAX /* a name never interned (lw_tracker_reason_find) */

enum {
  LW_REASON_HIDDEN = 0,
  LW_REASON_FROZEN = 1,
  LW_REASON_SUSPEND = 2,
  LW_REASON_PAUSE = 3,
  LW_REASON_THROTTLED = 4,
  LW_REASON_DEBUGGER = 5,
  LW_REASON_BUILTIN_COUNT = 6
};

/* The kinds of stall episodes (SPEC §5): a hang, the app's own, and those of the stops that give
 * a kind of their own. */
typedef enum { LW_KIND_HANG = 0, LW_KIND_SUSPEND = 1, LW_KIND_PAUSE = 2, LW_KIND_COUNT = 3 } lw_kind_t;

/* The kinds, one row each in the order of their ids above; the one list of them. */
typedef struct lw_kind_info_s {
  const char *name;
  /* An episode whose long samples are of several stop kinds takes the highest-ranked one (the
   * system slept over the process being stopped); a hang's samples never join a stop's episode. */
  uint8_t rank;
} lw_kind_info_t;

extern const lw_kind_info_t lw_kinds[LW_KIND_COUNT];

/* The built-in reasons, one row each in the order of their ids above; the one list of them. */
typedef struct lw_reason_info_s {
  const char *name;
  /* A stop of the main thread's time (SPEC §5): the system slept, the process was stopped, a
   * debugger held the thread. Evidence of it explains only the time it covers. */
  uint8_t stop;
  /* The kind of the stall episodes its long samples make (an lw_kind_t), or -1: none (a
   * debugger's pause is no stall; the reasons that are not stops make none). */
  int8_t kind;
  /* Looked for before any other reason when a sample is judged (SPEC §4 step 2), in id order. */
  uint8_t first;
} lw_reason_info_t;

extern const lw_reason_info_t lw_reasons[LW_REASON_BUILTIN_COUNT];

static inline int lw_reason_is_stop(uint32_t r) {
  return r < LW_REASON_BUILTIN_COUNT && lw_reasons[r].stop;
}

/* The name of the built-in reason `r`; NULL for another id. */
const char *lw_reason_builtin_name(uint32_t r);

/* The built-in reasons that are stops (`stalls_only`: stops that are stalls), in id order, into
 * `out` (room for LW_REASON_BUILTIN_COUNT): their count. */
size_t lw_reason_stops(int stalls_only, uint32_t *out);

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

/* Returns 1 if `s` (of `len` bytes) is a valid reason: 1..64 characters of [a-z0-9_.-]. */
int lw_reason_valid(const char *s, size_t len);

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
