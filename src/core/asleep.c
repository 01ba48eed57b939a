/* driftLag's and macrotaskLag's timers asleep while the loop waits in its poll, and what they
 * would have done meanwhile done when it runs again. An idle loop woken every 20 ms costs as much
 * as Node's own monitor; yet while the loop waits in its poll, a timer's firing is known in
 * advance: on time. The driver calls lw_monset_core_idle() when the loop is about to wait:
 * driftLag's timer is then no longer armed (returns 1 if the due time changed), provided it is not
 * overdue, its last firing was on time over a window in which the loop mostly waited, the loop is
 * Node's own (an embedded loop never waits in its poll) and no throttled interval is open (its end
 * needs a real firing). When the loop runs again the driver calls lw_monset_core_awake():
 * `idle_end` is when the loop stopped waiting. What the timer would have done meanwhile is done:
 * - the wake-up came LW_STOP_MIN_MS or more after the armed timer's due (a stop, starvation,
 *   throttled timers held the loop): the timer was held as well, from the start of the wait at the
 *   latest: its first due time after that fires now, as late as the real timer's would have;
 * - else each due time up to the wake-up fired on time, unless a stop the evidence shows covers it
 *   (the interval's start less one worker check; a suspend only where the monotonic clock counts
 *   it): that firing came when the process ran again; the first due time after the wake-up (a poll
 *   that ended when a callback began, not when a timer was due) fires now.
 * macrotaskLag's timer sleeps as well, once a task ran on time over a window in which the loop
 * mostly waited (a busy loop may wait at every iteration: sleeping would only add work to each),
 * unless its task is queued or its interval is due: each of its due times up to the wake-up queued
 * a task that ran at once, a sample of 0 then (or when the process ran again, after a stop), and
 * its next interval counts from that firing; after a held wake-up its due time has passed and it
 * fires in the next run, as the real timer would. */
#include "monitors-internal.h"

#include <math.h>

int lw_monset_core_idle(lw_monset_core_t *m, double now) {
  double before = lw_monset_core_next_due_armed(m);
  int was = lw_monset_core_asleep(m);
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
  if (!was && lw_monset_core_asleep(m)) m->asleep_since = now;
  return lw_monset_core_next_due_armed(m) != before;
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
  int drift = m->drift.asleep, macro = m->macro.asleep, shared = lw_monset_core_sharing(m);
  lw_interval_t iv;
  if (!drift && !macro) return 0;
  /* The armed timer's due: the loop woke up by then at the latest, unless it was held. */
  wake_due = lw_monset_core_next_due_armed(m);
  m->drift.asleep = 0;
  m->macro.asleep = 0;
  if (idle_end > now) idle_end = now;
  /* The timers that waited for this wake-up: clockDrift reads first (evidence before the samples
   * it may hold, SPEC §4), then idleAvailability's periods that ended in the wait. */
  if (shared) {
    lw_monset_core_clock_evidence(m, now, 0);
    lw__mon_idle_caught_up(m, m->asleep_since, idle_end, lw__mon_idle_now(m, now));
  }
  if (idle_end - wake_due >= LW_STOP_MIN_MS) {
    /* The wake-up was held (a stop, starvation, timers throttled): so were the timers, from when
     * the loop began to wait at the latest, as the real ones would have been. macrotaskLag's
     * fires in the run that follows (its due has passed): its task is queued then. */
    if (drift) lw__mon_drift_fire(m, now);
    return 1;
  }
  /* The loop ran on time: no gap in its activity (activity() would see one after each wait). */
  m->seen.last = now;
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
    lw__mon_macrotask_caught_up(m, stopped_near(m, due, now, &iv) ? (iv.end < now ? iv.end : now) : due);
  }
  return 1;
}
