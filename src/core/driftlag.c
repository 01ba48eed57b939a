/* driftLag (SPEC §6): a repeating timer's lateness at each firing, over the window since the
 * previous one; each firing also feeds timerThrottle. Its timer sleeps while the loop waits
 * (asleep.c) once a firing came on time over a window in which the loop mostly waited, unless it
 * is overdue (the loop was busy past it: a real firing, late) or a throttled interval is open (its
 * end needs a real firing). */
#include "monitors-internal.h"

/* Its state: its previous firing and its due time, whether it may sleep, and the loop's busy
 * total at the previous firing. */
typedef struct drift_state_s {
  double prev;
  double due;
  int may_sleep; /* its last firing was on time, over a window the loop mostly waited */
  double busy_prev;
} drift_state_t;
static drift_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_DRIFT); }

static void drift_start(lw_monset_core_t *m, double now) {
  st(m)->prev = now;
  st(m)->due = now + m->cfg.drift_interval_ms;
  st(m)->busy_prev = lw__mon_busy_total(m);
  st(m)->may_sleep = 0;
}

/* Its firings while it slept are not lost (the driver has normally caught up already, with the
 * loop's own idle end), and timerThrottle's interval, which its firings end, ends. */
static void drift_stop(lw_monset_core_t *m, double now) {
  lw_monset_core_awake(m, now, now);
  lw__mon_throttle_close(m, now);
}

static lw__timer_t drift_timer(const lw_monset_core_t *m, int in_run, double *due) {
  (void)in_run;
  if (lw__mon_asleep(m, LW_MON_DRIFT)) return LW__TIMER_NONE;
  *due = st(m)->due;
  return LW__TIMER_EXACT;
}

static void drift_fire(lw_monset_core_t *m, double now) {
  double lateness = now - st(m)->due;
  double window_start = st(m)->prev;
  double busy = lw__mon_busy_until(m, now);
  if (lateness < 0) lateness = 0;
  lw__mon_submit(m, LW_MON_DRIFT, lateness, now - window_start, now);
  lw__mon_throttle_check(m, lateness, window_start, busy - st(m)->busy_prev, now);
  st(m)->may_sleep = lw__mon_may_sleep(lateness, busy - st(m)->busy_prev, now - window_start);
  st(m)->busy_prev = busy;
  st(m)->prev = now;
  st(m)->due = now + m->cfg.drift_interval_ms;
}

static int drift_sleep(const lw_monset_core_t *m, double now) {
  return st(m)->may_sleep && !lw__mon_throttle_open(m) && st(m)->due > now;
}

/* Held, its first due time after the wait's start fires now, as late as the real timer's would
 * have; else each due time up to `until` fired then (or when the process ran again), and the
 * first after the wake-up (a poll that ended when a callback began, not when it was due) now. */
static void drift_wake(lw_monset_core_t *m, double now, double until, int held) {
  if (held) {
    drift_fire(m, now);
    return;
  }
  while (st(m)->due <= until) drift_fire(m, lw__mon_fired_at(m, st(m)->due, now));
  if (st(m)->due <= now) drift_fire(m, now);
}

/* Its recorded lateness also goes to the window of nodejs.eventloop.delay.* while one is kept. */
static void drift_recorded(lw_monset_core_t *m, double value, double window_ms, double end) {
  (void)window_ms;
  lw_delay_window_lateness(&m->delay, end, value);
}

static const lw_option_row_t driftlag_options[] = {
    LW__MON_OPTION("driftLag.intervalMs", drift_interval_ms, LW_OPTION_MS, 20),
};

static const lw__mon_field_t drift_state_fields[] = {
    LW__MON_FIELD(drift_state_t, due),
};
const lw__mon_desc_t lw__mon_driftlag = {
    .name = "driftLag",
    .flags = LW__MON_VALIDATED,
    .metric = {"lag_drift_histogram",
               "Lateness of the driftLag timer (recorded samples)", "ms"},
    .start = drift_start,
    .stop = drift_stop,
    .timer = drift_timer,
    .fire = drift_fire,
    .recorded = drift_recorded,
    .sleep = drift_sleep,
    .wake = drift_wake,
    LW__MON_OPTIONS(driftlag_options),
    LW__MON_STATE(drift_state_t, drift_state_fields),
};
