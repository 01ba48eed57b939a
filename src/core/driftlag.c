/* driftLag (SPEC §6): a repeating timer's lateness at each firing, over the window since the
 * previous one; each firing also feeds timerThrottle. */
#include "monitors-internal.h"

static void drift_start(lw_monset_core_t *m, double now) {
  m->drift.prev = now;
  m->drift.due = now + m->cfg.drift_interval_ms;
  m->drift.busy_prev = m->loop.busy_total;
  m->drift.asleep = 0;
  m->drift.may_sleep = 0;
  m->throttle.late = 0;
}

/* Its firings while it slept are not lost (the driver has normally caught up already, with the
 * loop's own idle end), and timerThrottle's interval, which its firings end, ends. */
static void drift_stop(lw_monset_core_t *m, double now) {
  lw_monset_core_awake(m, now, now);
  lw__mon_throttle_close(m, now);
}

static lw__timer_t drift_timer(const lw_monset_core_t *m, int in_run, double *due) {
  (void)in_run;
  if (m->drift.asleep) return LW__TIMER_NONE;
  *due = m->drift.due;
  return LW__TIMER_EXACT;
}

void lw__mon_drift_fire(lw_monset_core_t *m, double now) {
  double lateness = now - m->drift.due;
  double window_start = m->drift.prev;
  double busy = lw__mon_busy_until(m, now);
  if (lateness < 0) lateness = 0;
  lw__mon_submit(m, LW_MON_DRIFT, lateness, now - window_start, now);
  lw__mon_throttle_check(m, lateness, window_start, busy - m->drift.busy_prev, now);
  m->drift.may_sleep = lw__mon_may_sleep(lateness, busy - m->drift.busy_prev, now - window_start);
  m->drift.busy_prev = busy;
  m->drift.prev = now;
  m->drift.due = now + m->cfg.drift_interval_ms;
}

/* Its recorded lateness also goes to the window of nodejs.eventloop.delay.* while one is kept. */
static void drift_recorded(lw_monset_core_t *m, double value, double window_ms, double end) {
  (void)window_ms;
  lw_delay_window_lateness(&m->delay, end, value);
}

static const lw_option_row_t driftlag_options[] = {
    LW__MON_OPTION("driftLag.intervalMs", drift_interval_ms, LW_OPTION_MS, 20),
};

const lw__mon_desc_t lw__mon_driftlag = {
    .name = "driftLag",
    .flags = LW__MON_VALIDATED,
    .metric = {"lag_drift_histogram",
               "Lateness of the driftLag timer (recorded samples)", "ms"},
    .start = drift_start,
    .stop = drift_stop,
    .timer = drift_timer,
    .fire = lw__mon_drift_fire,
    .recorded = drift_recorded,
    LW__MON_OPTIONS(driftlag_options),
};
