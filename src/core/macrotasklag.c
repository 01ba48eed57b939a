/* macrotaskLag (SPEC §6): every interval a zero-delay task is queued; its delay is the sample. Its
 * timer sleeps while the loop waits (asleep.c) once a task ran on time over a window in which the
 * loop mostly waited (a busy loop may wait at every iteration: sleeping would only add work to
 * each), unless its task is queued (it runs in this very turn) or its interval is due. */
#include "monitors-internal.h"

#include <math.h>

/* Its state: its interval's due time, its queued task, whether it may sleep, its last task's run
 * and the loop's busy total then. */
typedef struct macro_state_s {
  double due;
  double posted;  /* when its task was queued; +INFINITY when none is */
  int may_sleep;  /* its last task was on time, over a window the loop mostly waited */
  double prev;
  double busy_prev;
  unsigned turn;  /* the run that queued the task: it runs in a later one */
} macro_state_t;
static macro_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_MACROTASK); }

static int macro_init(lw_monset_core_t *m) {
  st(m)->posted = INFINITY;
  return LW_OK;
}

static void macro_start(lw_monset_core_t *m, double now) {
  st(m)->due = now + m->cfg.macrotask_interval_ms;
  st(m)->posted = INFINITY;
  st(m)->may_sleep = 0;
  st(m)->prev = now;
  st(m)->busy_prev = lw__mon_busy_total(m);
}

/* Its firings while it slept are not lost; a queued task is dropped with the monitor. */
static void macro_stop(lw_monset_core_t *m, double now) {
  lw_monset_core_awake(m, now, now);
  st(m)->posted = INFINITY;
}

/* A queued task runs at the loop's next turn (its due time is when it was queued), never in the
 * run that queued it; the interval itself may share another wake-up. */
static lw__timer_t macro_timer(const lw_monset_core_t *m, int in_run, double *due) {
  if (lw__mon_asleep(m, LW_MON_MACROTASK)) return LW__TIMER_NONE;
  if (st(m)->posted != INFINITY) {
    if (in_run && st(m)->turn == m->run_turn) return LW__TIMER_NONE;
    *due = st(m)->posted;
    return LW__TIMER_EXACT;
  }
  *due = st(m)->due;
  return LW__TIMER_SOFT;
}

/* Its task ran at `now`, `delay` after it was queued: a window ends. */
static void macro_window_end(lw_monset_core_t *m, double delay, double now) {
  double busy = lw__mon_busy_until(m, now);
  st(m)->may_sleep = lw__mon_may_sleep(delay, busy - st(m)->busy_prev, now - st(m)->prev);
  st(m)->busy_prev = busy;
  st(m)->prev = now;
}

static int macro_sleep(const lw_monset_core_t *m, double now) {
  return st(m)->may_sleep && st(m)->posted == INFINITY && st(m)->due > now;
}

/* Each due time up to `until` queued a task that ran at once, a sample of 0 then (or when the
 * process ran again, after a stop), and the next interval counts from that firing. Held, its due
 * time has passed: it fires in the next run, as the real timer would. */
static void macro_wake(lw_monset_core_t *m, double now, double until, int held) {
  while (!held && st(m)->due <= until) {
    double t = lw__mon_fired_at(m, st(m)->due, now);
    lw__mon_submit(m, LW_MON_MACROTASK, 0, 0, t);
    macro_window_end(m, 0, t);
    st(m)->due = t + m->cfg.macrotask_interval_ms;
  }
}

static void macro_fire(lw_monset_core_t *m, double now) {
  if (st(m)->posted == INFINITY) {
    st(m)->posted = now;
    st(m)->turn = m->run_turn;
    return;
  }
  lw__mon_submit(m, LW_MON_MACROTASK, now - st(m)->posted, now - st(m)->posted, now);
  macro_window_end(m, now - st(m)->posted, now);
  st(m)->posted = INFINITY;
  st(m)->due = now + m->cfg.macrotask_interval_ms;
}

static const lw_option_row_t macrotasklag_options[] = {
    LW__MON_OPTION("macrotaskLag.intervalMs", macrotask_interval_ms, LW_OPTION_MS, 250),
};

static const lw__mon_field_t macro_state_fields[] = {
    LW__MON_FIELD(macro_state_t, due),
    LW__MON_FIELD(macro_state_t, posted),
    LW__MON_FIELD(macro_state_t, may_sleep),
};
const lw__mon_desc_t lw__mon_macrotasklag = {
    .name = "macrotaskLag",
    .flags = LW__MON_VALIDATED,
    .metric = {"lag_macrotask_histogram",
               "Delay of a zero-delay task (recorded samples)", "ms"},
    .start = macro_start,
    .stop = macro_stop,
    .timer = macro_timer,
    .fire = macro_fire,
    .recorded = NULL,
    .sleep = macro_sleep,
    .wake = macro_wake,
    LW__MON_OPTIONS(macrotasklag_options),
    LW__MON_STATE(macro_state_t, macro_state_fields),
    .init = macro_init,
};
