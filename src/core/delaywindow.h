/* The window of OpenTelemetry's nodejs.eventloop.delay.* and nodejs.eventloop.utilization
 * (SPEC §10): driftLag's recorded lateness and idleAvailability's recorded loop time over the last
 * minute, the same whoever reads it and however often (SPEC §14: a read takes nothing away).
 *
 * Time is cut into slices of LW_DELAY_SLICE_MS (slice n is [n, n + 1) * LW_DELAY_SLICE_MS); a
 * value counts in the slice of its sample's end. A read at `now` covers now's slice and the
 * LW_DELAY_SLICES - 1 before it: the last 60 to 70 s, so that a reader every minute or less
 * misses nothing. Buckets are allocated at a slice's first value (histogram.h).
 */
#ifndef LW_CORE_DELAYWINDOW_H_
#define LW_CORE_DELAYWINDOW_H_

#include "histogram.h"

#define LW_DELAY_SLICES 7
#define LW_DELAY_SLICE_MS 10000.0
_Static_assert(LW_DELAY_SLICES <= LW_HIST_QUANTILE_MAX, "a read's quantiles take every slice's buckets");

typedef struct lw_delay_slice_s {
  double n; /* the slice it holds (-1: none) */
  lw_histogram_t lateness;
  double sumsq;     /* of the lateness values */
  double active_ms; /* the loop's recorded active and idle time */
  double idle_ms;
} lw_delay_slice_t;

typedef struct lw_delay_window_s {
  /* LW_DELAY_SLICES slices, made when a reader asks (lw_delay_window_keep): NULL before, and
   * nothing is counted (a set nobody reads costs a pointer). */
  lw_delay_slice_t *slice;
} lw_delay_window_t;

typedef struct lw_delay_stats_s {
  uint64_t count;
  double min, max, mean, stddev, p50, p90, p99; /* ms; NAN when count is 0 */
  double active_ms, idle_ms;                   /* the loop's, over the window */
} lw_delay_stats_t;

void lw_delay_window_init(lw_delay_window_t *w);
/* Counts values from now on. Returns LW_OK, or LW_ENOMEM (then it does not). */
int lw_delay_window_keep(lw_delay_window_t *w);
/* A lateness (driftLag) of a sample that ended at `end`. */
void lw_delay_window_lateness(lw_delay_window_t *w, double end, double value);
/* Loop time (idleAvailability) of a period that ended at `end`. */
void lw_delay_window_loop_time(lw_delay_window_t *w, double end, double active_ms, double idle_ms);
/* The statistics of the window read at `now`; changes nothing. */
void lw_delay_window_read(const lw_delay_window_t *w, double now, lw_delay_stats_t *out);
size_t lw_delay_window_memory(const lw_delay_window_t *w);
void lw_delay_window_free(lw_delay_window_t *w);

#endif /* LW_CORE_DELAYWINDOW_H_ */
