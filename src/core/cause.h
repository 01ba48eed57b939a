/* Hang diagnosis (SPEC §12): the main thread's times over a hang, split by scheduler state into
 * its cause, and the ring of the last worker hangs' causes from which the hang episodes that
 * overlap them take theirs. Main thread. */
#ifndef LW_CORE_CAUSE_H_
#define LW_CORE_CAUSE_H_

#include "../platform/times.h"
#include "conditions.h"
#include "worker.h"

/* Worker hangs whose causes are kept for the hang episodes that overlap them; watched blocks
 * whose causes are kept for the blocks judged (blocks.h), up to a hold's worth of blocks. */
#define LW_HANG_CAUSES 8
#define LW_BLOCK_CAUSES 64

typedef struct lw_hang_cause_s {
  double start, end; /* the hang */
  double detected_at;
  lw_thread_times_t delta; /* the raw readings, for the GC part, redone at the episode's report */
  double span_start, span_end, stopped;
  /* A hang's own time (its span less the stops inside it), when the readings began after the
   * hang did and so cover less of it; NAN for a block, whose span is what was read. */
  double own;
  /* The GC part found when the worker hang ended (NAN before): the episode's reading again never
   * finds less, though GC pauses past the ring (spans.h) are forgotten meanwhile. */
  double gc_seen;
  int known;
} lw_hang_cause_t;

typedef struct lw_causes_s {
  lw_hang_cause_t *ring; /* `cap` entries, allocated at the first one (most sets never see one) */
  unsigned cap;
  unsigned n;            /* causes added in all */
  /* V8's garbage-collection time inside [start, end] as known so far; NULL: unknown. */
  double (*gc_ms)(void *data, double start, double end);
  void *data;
} lw_causes_t;

void lw_causes_init(lw_causes_t *cs, unsigned cap, double (*gc_ms)(void *data, double start, double end),
                    void *data);
void lw_causes_free(lw_causes_t *cs);
size_t lw_causes_memory(const lw_causes_t *cs);
/* The slot for the next worker hang's cause (the oldest is reused), or NULL if the ring cannot be
 * allocated (the caller counts it as lost). */
lw_hang_cause_t *lw_causes_next(lw_causes_t *cs);
/* A worker hang's cause entry from its HANG_END message, the hang taken to end at `end`. */
void lw_hang_cause_from_msg(lw_hang_cause_t *h, const lw_msg_t *msg, double end);
/* The cause of the hang `h` covers; GC read now. */
void lw_cause_compute(const lw_causes_t *cs, const lw_hang_cause_t *h, lw_cause_t *out);
/* A hang episode's cause (`ev->cause`, `ev->hang_detected_at`): that of the kept worker hang that
 * overlaps it most, if any. */
void lw_causes_for_episode(const lw_causes_t *cs, lw_event_t *ev);
/* A run-queue delay includes the time a cgroup's quota held the thread back: that part (at most
 * the delay itself; the cgroup's figure sums its threads and CPUs) is `*thr_out`, the rest
 * `*runq_out`, each state counted once. NAN in, NAN out. */
void lw_split_wait(double runq, double thr, double *runq_out, double *thr_out);

#endif /* LW_CORE_CAUSE_H_ */
