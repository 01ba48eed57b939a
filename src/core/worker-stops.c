/* How the worker thread tells a stop of the whole process (SIGSTOP, a freezer, a VM pause, a
 * suspend) from its own lateness, the sleep clock and a SIGCONT (worker.h); worker.c's run uses
 * the judgement. */
#include "worker.h"

#include <math.h>
#include <string.h>

int lw_sleep_diff(int (*pair)(void *data, double *inclusive, double *exclusive), void *data,
                  int enabled, double *diff) {
  double a, b;
  if (!enabled || pair == NULL || pair(data, &a, &b) != 0) return 0;
  *diff = a - b;
  return 1;
}

/* Linux (SPEC §12): judges the worker's own lateness from the growth of its run-queue delay
 * since its baseline: a stop (the whole process was not running: SIGSTOP, a freezer, a VM pause)
 * if it waited for a CPU less than half that time, else starvation. A stop stops every thread:
 * if the main thread ran, since the baseline, for more than what a stop of the lateness leaves
 * of that time and half the lateness besides, the worker was held up alone (blocked in the
 * kernel: seen under heavy memory and I/O load, where the main thread kept running), no stop.
 * Returns 1 and sets `*stopped` when judged; 0 when the platform cannot tell (the fallback
 * below decides). Refreshes the baseline every LW_SELF_BASE_MS and at each judgement, so a healthy
 * worker reads its schedstat and the main thread's about once a second. */
static int judge_lateness(lw_worker_t *w, double now, double late, const lw_worker_readings_t *rd,
                          int *stopped) {
  lw_thread_times_t s, m;
  double main_cpu = NAN;
  int judged = 0;
  if (rd->self_sched == NULL) return 0;
  if (late < LW_STOP_MIN_MS && w->self.has_base && now - w->self.base_at < LW_SELF_BASE_MS)
    return 0;
  if (rd->self_sched(rd->data, &s) != 0 || !isfinite(s.runq_ms)) {
    w->self.has_base = 0;
    return 0;
  }
  if (rd->main_sched != NULL && rd->main_sched(rd->data, &m) == 0) main_cpu = m.cpu_ms;
  if (w->self.has_base && late >= LW_STOP_MIN_MS) {
    *stopped = s.runq_ms - w->self.base.runq_ms < late / 2;
    if (*stopped && isfinite(main_cpu) && isfinite(w->self.main_cpu) &&
        main_cpu - w->self.main_cpu > (now - w->self.base_at) - late / 2)
      *stopped = 0;
    judged = 1;
  }
  w->self.base = s;
  w->self.base_at = now;
  w->self.has_base = 1;
  w->self.main_cpu = main_cpu;
  return judged;
}

int lw__worker_stopped(lw_worker_t *w, double now, double due, double late, double *slept) {
  const lw_monset_core_config_t *cfg = w->cfg;
  const lw_worker_readings_t *rd = &w->rd;
  double threshold = cfg->stall_threshold_ms, slack, cur = 0;
  int has, stopped = 0;
  /* Where the OS cannot tell a stop from starvation, SPEC §6's fallback: a lateness at the
   * threshold is a stop. The worker cannot tell a stop that began while it waited for its timer
   * from the wait itself: a process stopped just after the worker ran is late on the worker's
   * timer by up to one period less than on the main thread's. So its lateness counts as a stop
   * from one period (at most half the threshold) below the threshold, and the main thread's
   * samples of the same stop find the evidence. */
  slack = due - w->prev_fire;
  if (slack > threshold / 2) slack = threshold / 2;
  if (slack < 0) slack = 0;
  if (!judge_lateness(w, now, late, rd, &stopped)) stopped = late >= threshold - slack;
  has = lw_sleep_diff(rd->sleep_pair, rd->data, cfg->sleep_clock, &cur);
  *slept = has && w->has_sleep_diff ? cur - w->prev_sleep_diff : 0;
  w->prev_sleep_diff = cur;
  w->has_sleep_diff = has;
  return stopped;
}

size_t lw_worker_continued(lw_worker_t *w, double at, lw_msg_t *out) {
  double from = w->prev_fire;
  if (!lw_worker_on(w) || !(at > w->prev_fire)) return 0;
  /* The worker may run once after the process resumed and before the SIGCONT handler read the
   * clock: that run judged itself late by this very stop (its evidence only the lateness, from
   * its due time), and the stop began after the run before it. */
  if (w->prev_stopped && at - w->prev_fire < LW_STOP_MIN_MS) from = w->before_prev;
  w->continued = 1; /* the run that follows takes the stop out of its hang clock */
  memset(out, 0, sizeof(*out));
  out->type = LW_MSG_EVIDENCE;
  out->ev_reason = LW_REASON_PAUSE;
  out->ev_start = from;
  out->ev_end = at;
  out->ev_exact = 1; /* the continue's time: no later run of the main thread ends it sooner */
  return 1;
}
