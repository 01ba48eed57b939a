/* idleAvailability (SPEC §6): the share of each period the thread was available to its loop. */
#include "monitors-internal.h"

/* Its state: its period's due time, and the period's start with the loop's idle time then. */
typedef struct idle_state_s {
  double due;
  double prev_t;
  double prev_idle;
  double loop_idle_ms; /* the loop's idle and active time over the recorded periods */
  double loop_active_ms;
} idle_state_t;
static idle_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_IDLE); }

static void idle_start(lw_monset_core_t *m, double now) {
  st(m)->due = now + m->cfg.idle_period_ms;
  st(m)->prev_t = now;
  st(m)->prev_idle = lw__mon_idle_now(m, now);
}

static lw__timer_t idle_timer(const lw_monset_core_t *m, int in_run, double *due) {
  (void)in_run;
  *due = st(m)->due;
  return LW__TIMER_SOFT;
}

/* The period ending at `now`, with the loop's idle time then. */
static void idle_period(lw_monset_core_t *m, double now, double idle) {
  double span = now - st(m)->prev_t;
  double share = span > 0 ? (idle - st(m)->prev_idle) / span : 1;
  if (share < 0) share = 0;
  if (share > 1) share = 1;
  lw__mon_submit(m, LW_MON_IDLE, share, span, now);
  st(m)->prev_t = now;
  st(m)->prev_idle = idle;
  st(m)->due = now + m->cfg.idle_period_ms;
}

static void idle_fire(lw_monset_core_t *m, double now) { idle_period(m, now, lw__mon_idle_now(m, now)); }

static void idle_caught_up(lw_monset_core_t *m, double since, double end, double idle_end, double now) {
  (void)now;
  if (!m->running[LW_MON_IDLE]) return;
  /* Its timer slept through one wait of the loop's poll, from `since` to `end`: at each due time
   * in it the loop had waited ever since, so its idle time then is the idle time at the wait's
   * end less the rest of the wait. Each period is one sample, as if the timer had fired. */
  while (st(m)->due >= since && st(m)->due <= end && st(m)->due > st(m)->prev_t)
    idle_period(m, st(m)->due, idle_end - (end - st(m)->due));
}

/* The loop's idle and active time over its recorded periods (SPEC §10's nodejs.eventloop.time,
 * and the utilization of the window): its value is the idle share of its window. */
static void idle_recorded(lw_monset_core_t *m, double value, double window_ms, double end) {
  st(m)->loop_idle_ms += value * window_ms;
  st(m)->loop_active_ms += (1 - value) * window_ms;
  lw_delay_window_loop_time(&m->delay, end, (1 - value) * window_ms, value * window_ms);
}

void lw_monset_core_loop_time(const lw_monset_core_t *m, double *active_ms, double *idle_ms) {
  *active_ms = st(m)->loop_active_ms;
  *idle_ms = st(m)->loop_idle_ms;
}

static const lw_option_row_t idleavailability_options[] = {
    LW__MON_OPTION("idleAvailability.intervalMs", idle_period_ms, LW_OPTION_MS, 1000),
};

static const lw__mon_field_t idle_state_fields[] = {
    LW__MON_FIELD(idle_state_t, due),
    LW__MON_FIELD(idle_state_t, prev_t),
};
const lw__mon_desc_t lw__mon_idleavailability = {
    .name = "idleAvailability",
    .flags = LW__MON_VALIDATED | LW__MON_RATIO,
    .metric = {"lag_idle_availability",
               "Idle share of the event loop per period (recorded samples)", "1"},
    .start = idle_start,
    .stop = NULL,
    .timer = idle_timer,
    .fire = idle_fire,
    .recorded = idle_recorded,
    .caught_up = idle_caught_up,
    LW__MON_OPTIONS(idleavailability_options),
    LW__MON_STATE(idle_state_t, idle_state_fields),
};
