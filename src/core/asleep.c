/* The lateness timers asleep while the loop waits in its poll, and what they would have done
 * meanwhile done when it runs again. An idle loop woken every 20 ms costs as much as Node's own
 * monitor; yet while the loop waits in its poll, a timer's firing is known in advance: on time.
 * The driver calls lw_monset_core_idle() when the loop is about to wait: each running monitor
 * whose row has a `sleep` hook (driftLag, macrotaskLag: their files say when they may) stops its
 * timer, unless the loop is an embedded one (it never waits in its poll) or a lifecycle reader is
 * set (it is asked at their firings: lw_conditions_set_reader). When the loop runs again
 * the driver calls lw_monset_core_awake() (`idle_end`: when the loop stopped waiting), and each
 * sleeping timer's `wake` does what it would have done meanwhile:
 * - the wake-up came LW_STOP_MIN_MS or more after the armed timer's due (a stop, starvation,
 *   throttled timers held the loop): the timers were held as well, from the start of the wait at
 *   the latest, and fire as late as the real ones would have;
 * - else each due time up to the wake-up fired on time, unless a stop the evidence shows covers
 *   it (lw__mon_fired_at): that firing came when the process ran again. */
#include "monitors-internal.h"

#include <math.h>

int lw_monset_core_idle(lw_monset_core_t *m, double now) {
  double before = lw_monset_core_next_due_armed(m);
  unsigned was = m->asleep;
  int i;
  if (lw_monset_core_embedded(m) || lw_conditions_has_reader(m->c)) return 0;
  for (i = 0; i < LW_MON_COUNT; i++) {
    const lw__mon_desc_t *d = lw__mon_desc((lw_mon_t)i);
    if (m->running[i] && d->sleep != NULL && !lw__mon_asleep(m, (lw_mon_t)i) && d->sleep(m, now))
      m->asleep |= 1u << i;
  }
  if (!was && m->asleep) m->asleep_since = now;
  return lw_monset_core_next_due_armed(m) != before;
}

/* A stop the evidence shows at `t` or up to one of the worker's checks after it (an interval
 * begins where the worker saw the process stopped, which may be that much after the stop began;
 * while the loop waited, the worker rested: a worker interval): the process did not run, and a
 * timer due then fired when it ran again. A suspend delays timers only where the monotonic clock
 * counts it (macOS, Windows); on Linux it stands still. */
double lw__mon_fired_at(lw_monset_core_t *m, double t, double now) {
  double u = m->cfg.worker_interval_ms;
  lw_interval_t iv;
  if (m->running[LW_MON_LIVENESS] &&
      (!m->worker_may_rest || m->cfg.liveness_interval_ms > u))
    u = m->cfg.liveness_interval_ms;
  if ((m->rd.mono_includes_sleep &&
       lw_tracker_find(&m->c->tracker, t, t + u, LW_REASON_SUSPEND, now, &iv)) ||
      lw_tracker_find(&m->c->tracker, t, t + u, LW_REASON_PAUSE, now, &iv))
    return iv.end < now ? iv.end : now;
  return t;
}

/* The timers that waited for this wake-up (sharing it), evidence sources first (SPEC §4: before
 * the samples they may hold): clockDrift's reading, then idleAvailability's periods that ended
 * in the wait. */
static void shared_caught_up(lw_monset_core_t *m, double idle_end, double now) {
  int pass, i;
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < LW_MON_COUNT; i++) {
      const lw__mon_desc_t *d = lw__mon_desc((lw_mon_t)i);
      if (d->caught_up != NULL && ((d->flags & LW__MON_EVIDENCE) != 0) == (pass == 0))
        d->caught_up(m, m->asleep_since, idle_end, lw__mon_idle_now(m, now), now);
    }
}

int lw_monset_core_awake(lw_monset_core_t *m, double now, double idle_end) {
  double wake_due, until;
  unsigned asleep = m->asleep;
  int shared = lw_monset_core_sharing(m), held, i;
  if (!asleep) return 0;
  /* The armed timer's due: the loop woke up by then at the latest, unless it was held. */
  wake_due = lw_monset_core_next_due_armed(m);
  m->asleep = 0;
  if (idle_end > now) idle_end = now;
  if (shared) shared_caught_up(m, idle_end, now);
  /* The wake-up was held (a stop, starvation, timers throttled): so were the timers, from when
   * the loop began to wait at the latest, as the real ones would have been. Else the loop ran on
   * time: no gap in its activity (activity() would see one after each wait). */
  held = idle_end - wake_due >= LW_STOP_MIN_MS;
  if (!held) m->seen.last = now;
  until = idle_end < wake_due ? idle_end : wake_due;
  for (i = 0; i < LW_MON_COUNT; i++)
    if ((asleep >> i) & 1u) lw__mon_desc((lw_mon_t)i)->wake(m, now, until, held);
  return 1;
}
