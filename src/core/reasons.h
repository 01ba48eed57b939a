/* The reasons of the tracker's intervals (SPEC §2) and the stall kinds they give (SPEC §5): the
 * built-in reasons, one row each (name, a stop or not, the kind of the stall episodes its long
 * samples make, looked for first or not), and the kinds (name, rank). The one list of each: the
 * tracker, the validator and the episodes read them. A new stop reason is a row here and its id
 * below; a stop with a kind of its own, a row of the kinds as well. */
#ifndef LW_CORE_REASONS_H_
#define LW_CORE_REASONS_H_

#include "common.h"

#define LW_REASON_MAX_LEN 64
/* Three ids that are no reason's (one value: a reason's id is below a tracker's LW_REASONS_MAX). */
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

/* Returns 1 if `s` (of `len` bytes) is a valid reason: 1..64 characters of [a-z0-9_.-]. */
int lw_reason_valid(const char *s, size_t len);

#endif /* LW_CORE_REASONS_H_ */
