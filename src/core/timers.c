/* The timer monitors (SPEC §6): driftLag, macrotaskLag and idleAvailability firing, timerThrottle
 * judging driftLag's late firings, and both lateness timers asleep while the loop waits. */
#include "monitors-internal.h"

#include <math.h>

void lw__mon_throttle_close(lw_monset_core_t *m, double now) {
  if (m->throttle.seq != 0) lw_tracker_close(&m->c->tracker, m->throttle.seq, now);
  m->throttle.seq = 0;
  m->throttle.late = 0;
}

/* Linux (SPEC §12): a late firing of an idle loop is starvation, not timer throttling, when the
 * main thread waited on a run queue for half the time or more since the previous late firing. Read
 * at late firings only (at most a few a second, and only while they come late). */
static int throttle_starved(lw_monset_core_t *m, double now) {
  lw_thread_times_t t;
  int starved;
  if (m->rd.main_sched == NULL || m->rd.main_sched(m->rd.data, &t) != 0 || !isfinite(t.runq_ms)) {
    m->throttle.has_runq = 0;
    return 0;
  }
  starved = m->throttle.has_runq && t.runq_ms - m->throttle.runq >= (now - m->throttle.runq_at) / 2;
  m->throttle.runq = t.runq_ms;
  m->throttle.runq_at = now;
  m->throttle.has_runq = 1;
  return starved;
}

/* timerThrottle (SPEC §6): driftLag late by throttle_late_ms on throttle_firings consecutive
 * firings while loopBlock saw the loop idle over those windows: the OS held the timers. A window
 * counts as idle when the loop was busy for less than half of the lateness: a blocked loop is
 * busy for about as long as its timers are late. */
static void throttle_check(lw_monset_core_t *m, double lateness, double ws, double busy, double now) {
  int late = lateness >= m->cfg.throttle_late_ms;
  int idle = m->running[LW_MON_LOOPBLOCK] && busy < lateness / 2;
  if (!m->running[LW_MON_THROTTLE]) return;
  if (m->throttle.seq != 0) {
    if (!late) lw__mon_throttle_close(m, now);
    return;
  }
  if (!(late && idle)) {
    m->throttle.late = 0;
    return;
  }
  if (throttle_starved(m, now)) {
    m->throttle.late = 0; /* starvation (SPEC §12) is no timer throttling */
    return;
  }
  if (m->throttle.late++ == 0) m->throttle.first_window_start = ws;
  if (m->throttle.late >= m->cfg.throttle_firings) {
    uint64_t seq;
    if (lw_tracker_open(&m->c->tracker, LW_REASON_THROTTLED, m->throttle.first_window_start, 0, &seq) ==
        LW_OK)
      m->throttle.seq = seq;
    else
      m->c->lost++;
  }
}

/* The loop's busy time up to `now`, counting the iteration in progress. */
static double busy_until(const lw_monset_core_t *m, double now) {
  double b = m->loop.busy_total;
  if (m->running[LW_MON_LOOPBLOCK]) {
    double part = (now - m->loop.prev_t) - (lw__mon_idle_now(m, now) - m->loop.prev_idle);
    if (part > 0) b += part;
  }
  return b;
}

/* A timer may sleep while the loop waits once a firing came on time (`late`) over a window in
 * which the loop mostly waited: a busy loop may wait at every iteration (a poll for I/O that is
 * already there), and sleeping then would only add work to each iteration. */
static int may_sleep(double late, double busy, double window) {
  return late < LW_SLEEP_LATE_MS && busy < window / 2;
}

void lw__mon_drift_fire(lw_monset_core_t *m, double now) {
  double lateness = now - m->drift.due;
  double ws = m->drift.prev;
  double busy = busy_until(m, now);
  if (lateness < 0) lateness = 0;
  lw__mon_submit(m, LW_MON_DRIFT, lateness, now - ws, now);
  throttle_check(m, lateness, ws, busy - m->drift.busy_prev, now);
  m->drift.may_sleep = may_sleep(lateness, busy - m->drift.busy_prev, now - ws);
  m->drift.busy_prev = busy;
  m->drift.prev = now;
  m->drift.due = now + m->cfg.drift_interval_ms;
}

/* macrotaskLag's task ran at `now`, `delay` after it was queued: a window ends. */
static void macro_window_end(lw_monset_core_t *m, double delay, double now) {
  double busy = busy_until(m, now);
  m->macro.may_sleep = may_sleep(delay, busy - m->macro.busy_prev, now - m->macro.prev);
  m->macro.busy_prev = busy;
  m->macro.prev = now;
}

int lw_monset_core_idle(lw_monset_core_t *m, double now) {
  double before = lw_monset_core_next_due(m);
  if (m->model.embedded) return 0;
  /* An overdue firing (the loop was busy past it) is a real one, late. */
  if (!m->drift.asleep && m->running[LW_MON_DRIFT] && m->drift.may_sleep && m->throttle.seq == 0 &&
      m->drift.due > now)
    m->drift.asleep = 1;
  /* macrotaskLag's task, queued while the loop waits, runs at once: its delay is 0. Not while a
   * task waits (it runs in this very turn) or the interval is due, nor on a busy loop. */
  if (!m->macro.asleep && m->running[LW_MON_MACROTASK] && m->macro.may_sleep &&
      m->macro.posted == INFINITY && m->macro.due > now)
    m->macro.asleep = 1;
  return lw_monset_core_next_due(m) != before;
}

/* macrotaskLag's timer, asleep while the loop waited, fired at `t`: the task it queued then ran
 * at once (the loop was waiting), 0 late; the next interval counts from then. */
static void macro_caught_up(lw_monset_core_t *m, double t) {
  lw__mon_submit(m, LW_MON_MACROTASK, 0, 0, t);
  macro_window_end(m, 0, t);
  m->macro.due = t + m->cfg.macrotask_interval_ms;
}

/* A stop the evidence shows at `t` or up to one of the worker's checks after it (an interval
 * begins where the worker saw the process stopped, which may be that much after the stop began;
 * while the loop waited, the worker rested: a worker interval): the process did not run, and a
 * timer due then fired when it ran again. A suspend delays timers only where the monotonic clock
 * counts it (macOS, Windows); on Linux it stands still. */
static int stopped_near(lw_monset_core_t *m, double t, double now, lw_interval_t *iv) {
  double u = m->cfg.worker_interval_ms;
  if (m->running[LW_MON_LIVENESS] &&
      (!m->worker_may_rest || m->cfg.liveness_interval_ms > u))
    u = m->cfg.liveness_interval_ms;
  return (m->rd.mono_includes_sleep &&
          lw_tracker_find(&m->c->tracker, t, t + u, LW_REASON_SUSPEND, now, iv)) ||
         lw_tracker_find(&m->c->tracker, t, t + u, LW_REASON_PAUSE, now, iv);
}


int lw_monset_core_awake(lw_monset_core_t *m, double now, double idle_end) {
  double wake_due, until;
  int drift = m->drift.asleep, macro = m->macro.asleep;
  lw_interval_t iv;
  if (!drift && !macro) return 0;
  /* The armed timer's due: the loop woke up by then at the latest, unless it was held. */
  wake_due = lw_monset_core_next_due_armed(m);
  m->drift.asleep = 0;
  m->macro.asleep = 0;
  if (idle_end > now) idle_end = now;
  if (idle_end - wake_due >= LW_STOP_MIN_MS) {
    /* The wake-up was held (a stop, starvation, timers throttled): so were the timers, from when
     * the loop began to wait at the latest, as the real ones would have been. macrotaskLag's
     * fires in the run that follows (its due has passed): its task is queued then. */
    if (drift) lw__mon_drift_fire(m, now);
    return 1;
  }
  /* The loop ran on time: no gap in its activity (activity() would see one after each wait). */
  m->last_activity = now;
  until = idle_end < wake_due ? idle_end : wake_due;
  /* Each due time up to the wake-up fired on time, unless a stop covers it: then when the
   * process ran again. */
  while (drift && m->drift.due <= until) {
    double due = m->drift.due;
    if (stopped_near(m, due, now, &iv))
      lw__mon_drift_fire(m, iv.end < now ? iv.end : now);
    else
      lw__mon_drift_fire(m, due);
  }
  if (drift && m->drift.due <= now) lw__mon_drift_fire(m, now);
  while (macro && m->macro.due <= until) {
    double due = m->macro.due;
    macro_caught_up(m, stopped_near(m, due, now, &iv) ? (iv.end < now ? iv.end : now) : due);
  }
  return 1;
}

/* macrotaskLag: every interval a zero-delay task is queued (its due time is the time it was
 * queued: the driver runs it at its next turn); its delay is the sample. */
void lw__mon_macrotask_fire(lw_monset_core_t *m, double now) {
  if (m->macro.posted == INFINITY) {
    m->macro.posted = now;
    m->macro.turn = m->run_turn;
    return;
  }
  lw__mon_submit(m, LW_MON_MACROTASK, now - m->macro.posted, now - m->macro.posted, now);
  macro_window_end(m, now - m->macro.posted, now);
  m->macro.posted = INFINITY;
  m->macro.due = now + m->cfg.macrotask_interval_ms;
}

void lw__mon_idle_fire(lw_monset_core_t *m, double now) {
  double idle = lw__mon_idle_now(m, now);
  double span = now - m->idle.prev_t;
  double share = span > 0 ? (idle - m->idle.prev_idle) / span : 1;
  if (share < 0) share = 0;
  if (share > 1) share = 1;
  lw__mon_submit(m, LW_MON_IDLE, share, span, now);
  m->idle.prev_t = now;
  m->idle.prev_idle = idle;
  m->idle.due = now + m->cfg.idle_period_ms;
}
