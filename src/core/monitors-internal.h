/* What the files of the monitor set share, not part of its interface (monitors.h). */
#ifndef LW_CORE_MONITORS_INTERNAL_H_
#define LW_CORE_MONITORS_INTERNAL_H_

#include "internal.h"
#include "monitors.h"

/* monitors.c */
/* Submits a monitor's sample: the verdict (LW_VERDICT_*), or LW_ENOMEM (counted as lost). */
int lw__mon_submit(lw_monset_core_t *m, lw_mon_t mon, double value, double window, double now);
/* A value for a batch to JS; one that cannot join it is counted as lost. */
void lw__mon_batch_push(lw_monset_core_t *m, lw_batch_t *b, double value);
/* An evidence interval for the tracker; one that cannot be stored is counted as lost. */
void lw__mon_evidence_add(lw_monset_core_t *m, double start, double end, uint32_t reason, double now);
/* The main thread ran at `now` (a hang ends where it first runs again). */
void lw__mon_activity(lw_monset_core_t *m, double now);

/* loop.c */
/* The time the main thread was available to its loop, up to `now` (both loop models). */
double lw__mon_idle_now(const lw_monset_core_t *m, double now);

/* clockdrift.c */
void lw__mon_clock_fire(lw_monset_core_t *m, double now);

/* timers.c */
void lw__mon_drift_fire(lw_monset_core_t *m, double now);
void lw__mon_macrotask_fire(lw_monset_core_t *m, double now);
void lw__mon_idle_fire(lw_monset_core_t *m, double now);
/* Ends timerThrottle's open interval at `now`, if any. */
void lw__mon_throttle_close(lw_monset_core_t *m, double now);

#endif /* LW_CORE_MONITORS_INTERNAL_H_ */
