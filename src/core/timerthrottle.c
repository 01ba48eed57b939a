/* timerThrottle (SPEC §6): driftLag's late firings over an idle loop are the OS holding the
 * timers, evidence (`throttled`) while they last; starvation is not (SPEC §12). */
#include "monitors-internal.h"

#include <math.h>

/* Its state: driftLag's consecutive late firings and the first one's window, its open interval,
 * and the main thread's run-queue delay at the last late firing. */
typedef struct throttle_state_s {
  int late;
  double first_window_start;
  uint64_t seq; /* the open interval, 0 if none */
  double runq;
  double runq_at;
  int has_runq;
} throttle_state_t;
static throttle_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_THROTTLE); }

int lw__mon_throttle_open(const lw_monset_core_t *m) { return st(m)->seq != 0; }

static void throttle_start(lw_monset_core_t *m, double now) {
  (void)now;
  st(m)->late = 0;
}

void lw__mon_throttle_close(lw_monset_core_t *m, double now) {
  if (st(m)->seq != 0) lw_tracker_close(&m->c->tracker, st(m)->seq, now);
  st(m)->seq = 0;
  st(m)->late = 0;
}

/* Linux (SPEC §12): a late firing of an idle loop is starvation, not timer throttling, when the
 * main thread waited on a run queue for half the time or more since the previous late firing. Read
 * at late firings only (at most a few a second, and only while they come late). */
static int throttle_starved(lw_monset_core_t *m, double now) {
  lw_thread_times_t t;
  int starved;
  if (m->rd.main_sched == NULL || m->rd.main_sched(m->rd.data, &t) != 0 || !isfinite(t.runq_ms)) {
    st(m)->has_runq = 0;
    return 0;
  }
  starved = st(m)->has_runq && t.runq_ms - st(m)->runq >= (now - st(m)->runq_at) / 2;
  st(m)->runq = t.runq_ms;
  st(m)->runq_at = now;
  st(m)->has_runq = 1;
  return starved;
}

/* timerThrottle (SPEC §6): driftLag late by throttle_late_ms on throttle_firings consecutive
 * firings while loopBlock saw the loop idle over those windows: the OS held the timers. A window
 * counts as idle when the loop was busy for less than half of the lateness: a blocked loop is
 * busy for about as long as its timers are late. */
void lw__mon_throttle_check(lw_monset_core_t *m, double lateness, double window_start, double busy,
                            double now) {
  int late = lateness >= m->cfg.throttle_late_ms;
  int idle = m->running[LW_MON_LOOPBLOCK] && busy < lateness / 2;
  if (!m->running[LW_MON_THROTTLE]) return;
  if (st(m)->seq != 0) {
    if (!late) lw__mon_throttle_close(m, now);
    return;
  }
  if (!(late && idle)) {
    st(m)->late = 0;
    return;
  }
  if (throttle_starved(m, now)) {
    st(m)->late = 0; /* starvation (SPEC §12) is no timer throttling */
    return;
  }
  if (st(m)->late++ == 0) st(m)->first_window_start = window_start;
  if (st(m)->late >= m->cfg.throttle_firings) {
    uint64_t seq;
    if (lw_tracker_open(&m->c->tracker, LW_REASON_THROTTLED, st(m)->first_window_start, 0, &seq) ==
        LW_OK)
      st(m)->seq = seq;
    else
      m->c->lost++;
  }
}

static const lw_option_row_t timerthrottle_options[] = {
    LW__MON_OPTION("timerThrottle.lateMs", throttle_late_ms, LW_OPTION_MS, 500),
    LW__MON_OPTION("timerThrottle.firings", throttle_firings, LW_OPTION_COUNT, 3),
};

static const lw__mon_field_t throttle_state_fields[] = {
    LW__MON_FIELD(throttle_state_t, seq),
};
const lw__mon_desc_t lw__mon_timerthrottle = {
    .name = "timerThrottle",
    .flags = LW__MON_EVIDENCE,
    .start = throttle_start,
    .stop = lw__mon_throttle_close,
    .timer = NULL,
    .fire = NULL,
    .recorded = NULL,
    LW__MON_OPTIONS(timerthrottle_options),
    LW__MON_STATE(throttle_state_t, throttle_state_fields),
};
