/* clockDrift (SPEC §6): the wall clock read against the monotonic and sleep clocks, at its own
 * interval; a suspend is a jump and evidence, a step of the wall clock a jump. */
#include "monitors-internal.h"

#include <math.h>

/* Its state: its due time, and its previous reading of the three clocks. */
typedef struct clock_state_s {
  double due;
  double prev_mono;
  double prev_wall;
  double prev_sleep;
  int has_sleep; /* prev_sleep holds a reading of the sleep-clock pair */
} clock_state_t;
static clock_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_CLOCKDRIFT); }

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
  if (lw_tracker_add_weighted(&m->c->tracker, st(m)->prev_mono, now, LW_REASON_SUSPEND, weight,
                              now) != LW_OK)
    m->c->lost++;
}

/* clockDrift's reading: sleep = growth of (inclusive - exclusive); d = Δwall - Δmonotonic, less
 * the sleep where the monotonic clock excludes it. */
static void clock_fire(lw_monset_core_t *m, double now) {
  double wall = m->rd.wall ? m->rd.wall(m->rd.data) : now;
  double dmono = now - st(m)->prev_mono;
  double dwall = wall - st(m)->prev_wall;
  double cur = 0, sleep;
  int has = lw_sleep_diff(m->rd.sleep_pair, m->rd.data, m->cfg.sleep_clock, &cur);
  if (has && st(m)->has_sleep) {
    sleep = cur - st(m)->prev_sleep;
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
  st(m)->prev_mono = now;
  st(m)->prev_wall = wall;
  st(m)->prev_sleep = cur;
  st(m)->has_sleep = has;
  st(m)->due = now + m->cfg.clock_interval_ms;
}

void lw_monset_core_clock_evidence(lw_monset_core_t *m, double now, int force) {
  if (m->running[LW_MON_CLOCKDRIFT] && (force || st(m)->due <= now + m->coalesce_ms))
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
  st(m)->due = now + m->cfg.clock_interval_ms;
  st(m)->prev_mono = now;
  st(m)->prev_wall = m->rd.wall ? m->rd.wall(m->rd.data) : now;
  st(m)->has_sleep = lw_sleep_diff(m->rd.sleep_pair, m->rd.data, m->cfg.sleep_clock, &st(m)->prev_sleep);
}

static lw__timer_t clock_timer(const lw_monset_core_t *m, int in_run, double *due) {
  (void)in_run;
  *due = st(m)->due;
  return LW__TIMER_SOFT;
}

static const lw_option_row_t clockdrift_options[] = {
    LW__MON_OPTION("clockDrift.intervalMs", clock_interval_ms, LW_OPTION_MS, 1000),
    LW__MON_OPTION("clockDrift.suspendMinMs", suspend_min_ms, LW_OPTION_MS, 100),
    LW__MON_OPTION("clockDrift.stepMinMs", step_min_ms, LW_OPTION_MS, 1000),
    LW__MON_OPTION("clockDrift.sleepClock", sleep_clock, LW_OPTION_BOOLEAN, 1),
};

static const lw__mon_field_t clock_state_fields[] = {
    LW__MON_FIELD(clock_state_t, due),
    LW__MON_FIELD(clock_state_t, prev_mono),
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
    LW__MON_STATE(clock_state_t, clock_state_fields),
};
