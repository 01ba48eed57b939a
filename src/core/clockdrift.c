/* clockDrift (SPEC §6): the wall clock read against the monotonic and sleep clocks, at its own
 * interval; a suspend is a jump and evidence, a step of the wall clock a jump. */
#include "monitors-internal.h"

#include <math.h>

static void jump(lw_monset_core_t *m, lw_jump_t kind, double at, double delta) {
  lw_event_t *ev;
  m->c->jumps[kind]++;
  ev = lw__event_push(m->c, LW_EVENT_JUMP, at);
  if (ev) {
    ev->jump = kind;
    ev->duration_ms = delta;
  }
}

/* A suspend of `slept` ms seen by clockDrift somewhere since its previous read: a suspend
 * interval over that monotonic span (SPEC §6), which discards what overlaps it. Of the span, the
 * sleep took `slept` ms where the monotonic clock counts it (macOS, Windows), none where it
 * stands still (Linux): that is all of the samples' time it explains (SPEC §5's own part); the
 * rest of the span may be the app's. */
static void clock_suspend(lw_monset_core_t *m, double slept, double now) {
  double weight = m->rd.mono_includes_sleep ? slept : 0;
  if (lw_tracker_add_weighted(&m->c->tracker, m->clock.prev_mono, now, LW_REASON_SUSPEND, weight,
                              now) != LW_OK)
    m->c->lost++;
}

/* clockDrift's reading: sleep = growth of (inclusive - exclusive); d = Δwall - Δmonotonic, less
 * the sleep where the monotonic clock excludes it. */
static void clock_fire(lw_monset_core_t *m, double now) {
  double wall = m->rd.wall ? m->rd.wall(m->rd.data) : now;
  double dmono = now - m->clock.prev_mono;
  double dwall = wall - m->clock.prev_wall;
  double cur = 0, sleep;
  int has = lw_sleep_diff(m->rd.sleep_pair, m->rd.data, m->cfg.sleep_clock, &cur);
  if (has && m->clock.has_sleep) {
    sleep = cur - m->clock.prev_sleep;
    double d = dwall - dmono - (m->rd.mono_includes_sleep ? 0 : sleep);
    if (sleep >= m->cfg.suspend_min_ms) {
      jump(m, LW_JUMP_SUSPEND, now, sleep);
      clock_suspend(m, sleep, now);
    } else if (fabs(d) >= m->cfg.step_min_ms) {
      jump(m, LW_JUMP_STEP, now, d);
    }
  } else if (!has) {
    /* Without a sleep clock (SPEC §6's fallback): a forward jump is a suspend. */
    double d = dwall - dmono;
    if (d >= m->cfg.step_min_ms) {
      jump(m, LW_JUMP_SUSPEND, now, d);
      clock_suspend(m, d, now);
    } else if (d <= -m->cfg.step_min_ms) {
      jump(m, LW_JUMP_STEP, now, d);
    }
  }
  m->clock.prev_mono = now;
  m->clock.prev_wall = wall;
  m->clock.prev_sleep = cur;
  m->clock.has_sleep = has;
  m->clock.due = now + m->cfg.clock_interval_ms;
}

void lw_monset_core_clock_evidence(lw_monset_core_t *m, double now, int force) {
  if (m->running[LW_MON_CLOCKDRIFT] && (force || m->clock.due <= now + m->coalesce_ms))
    clock_fire(m, now);
}

/* Its reading, due while the loop waited, taken at the wake-up (evidence first). */
static void clock_caught_up(lw_monset_core_t *m, double since, double end, double idle_end, double now) {
  (void)since;
  (void)end;
  (void)idle_end;
  lw_monset_core_clock_evidence(m, now, 0);
}

static void clock_start(lw_monset_core_t *m, double now) {
  m->clock.due = now + m->cfg.clock_interval_ms;
  m->clock.prev_mono = now;
  m->clock.prev_wall = m->rd.wall ? m->rd.wall(m->rd.data) : now;
  m->clock.has_sleep = lw_sleep_diff(m->rd.sleep_pair, m->rd.data, m->cfg.sleep_clock, &m->clock.prev_sleep);
}

static lw__timer_t clock_timer(const lw_monset_core_t *m, int in_run, double *due) {
  (void)in_run;
  *due = m->clock.due;
  return LW__TIMER_SOFT;
}

static const lw_option_row_t clockdrift_options[] = {
    LW__MON_OPTION("clockDrift.intervalMs", clock_interval_ms, LW_OPTION_MS, 1000),
    LW__MON_OPTION("clockDrift.suspendMinMs", suspend_min_ms, LW_OPTION_MS, 100),
    LW__MON_OPTION("clockDrift.stepMinMs", step_min_ms, LW_OPTION_MS, 1000),
    LW__MON_OPTION("clockDrift.sleepClock", sleep_clock, LW_OPTION_BOOLEAN, 1),
};

const lw__mon_desc_t lw__mon_clockdrift = {
    .name = "clockDrift",
    .flags = LW__MON_EVIDENCE,
    .start = clock_start,
    .stop = NULL,
    .timer = clock_timer,
    .fire = clock_fire,
    .caught_up = clock_caught_up,
    .recorded = NULL,
    LW__MON_OPTIONS(clockdrift_options),
};
