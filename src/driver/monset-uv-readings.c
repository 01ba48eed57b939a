/* The real-time set's readings (lw_readings_t): the platform's clocks, libuv's idle time, the
 * threads' times and the debugger's hold, as the core reads them on the main and worker threads;
 * and what the main thread reads of the stops that others tell: a SIGCONT, a debugger's pauses. */
#include <math.h>

#include "../platform/clocks.h"
#include "../platform/sigcont.h"
#include "debugger.h"
#include "monset-internal.h"

static double rt_wall(void *d) {
  (void)d;
  return lw_clock_wall_ms();
}
static int sleep_clock_pair(void *d, double *a, double *b) {
  (void)d;
  return lw_clock_sleep_pair_ms(a, b);
}
double lw__monset_uv_idle(void *d) {
  lw_monset_t *s = d;
  /* No poll since the last reading could have waited (prepare_cb, check_cb): libuv counted no
   * idle time, and the reading is the last one. */
  if (s->rt.idle_valid && uv_is_active((uv_handle_t *)&s->rt.prepare)) return s->rt.idle_last;
  s->rt.idle_last = (double)uv_metrics_idle_time(s->uv->timer.loop) / 1e6;
  s->rt.idle_valid = 1;
  return s->rt.idle_last;
}
/* Worker thread: libuv adds the wait in progress to its idle time from its own clock, so two
 * readings in a row differ only while the poll waits (or if its wait ended between them). A
 * sighting of the wait is kept, with the main thread's runnable time, for the main thread
 * (rt_poll_seen). Returns the second reading; `*in_poll` 1 if the two differ. */
static uint64_t look_at_poll(lw_monset_t *s, int *in_poll) {
  uv_loop_t *loop = s->uv->timer.loop;
  uint64_t a = uv_metrics_idle_time(loop), b = uv_metrics_idle_time(loop);
  *in_poll = b > a;
  if (*in_poll) {
    lw_thread_times_t t;
    int64_t runnable = INT64_MIN, seq = lw_atomic_load_relaxed(&s->rt.seen.seq);
    if (lw_thread_src_read(&s->rt.main_src, &t) == 0 && isfinite(t.cpu_ms)) {
      double r = t.cpu_ms + (isfinite(t.runq_ms) ? t.runq_ms : 0);
      runnable = (int64_t)(r * 1e6);
    }
    lw_atomic_store(&s->rt.seen.seq, seq + 1);
    lw_atomic_store(&s->rt.seen.at_ns, (int64_t)(uv_hrtime() - s->uv->origin_ns));
    lw_atomic_store(&s->rt.seen.idle_ns, (int64_t)b);
    lw_atomic_store(&s->rt.seen.runnable_ns, runnable);
    lw_atomic_store(&s->rt.seen.seq, seq + 2);
  }
  return b;
}
/* Worker thread: the main thread's last timed prepare (or async callback) published `at - idle`;
 * the idle time libuv counted since (its metrics lock; the wait in progress included) is the
 * wait of the poll that followed, so the sum is when that wait ended, or about now while it
 * lasts (lw_uvworker_avail). */
static double rt_main_avail(void *d) {
  lw_monset_t *s = d;
  int in_poll;
  double idle = (double)look_at_poll(s, &in_poll) / 1e6;
  return lw_uvworker_avail(s->rt.uw, idle);
}
static int rt_main_in_poll(void *d) {
  int in_poll;
  (void)look_at_poll(d, &in_poll);
  return in_poll;
}
/* Main thread: the worker's last sighting of the wait (look_at_poll). */
static int rt_poll_seen(void *d, double *at, double *idle, double *runnable) {
  lw_monset_t *s = d;
  int i;
  for (i = 0; i < 4; i++) {
    int64_t seq = lw_atomic_load(&s->rt.seen.seq), t, id, r;
    if (seq == 0) return 0;
    if (seq & 1) continue;
    t = lw_atomic_load(&s->rt.seen.at_ns);
    id = lw_atomic_load(&s->rt.seen.idle_ns);
    r = lw_atomic_load(&s->rt.seen.runnable_ns);
    if (lw_atomic_load(&s->rt.seen.seq) != seq) continue;
    *at = (double)t / 1e6;
    *idle = (double)id / 1e6;
    *runnable = r == INT64_MIN ? NAN : (double)r / 1e6;
    return 1;
  }
  return 0;
}
static int rt_main_waiting(void *d) { return lw_uvworker_waiting(((lw_monset_t *)d)->rt.uw); }
static double rt_main_busy(void *d) { return lw_uvworker_busy(((lw_monset_t *)d)->rt.uw); }
/* Main thread: its CPU time plus, where schedstat tells it, its run-queue delay; a read that
 * fails keeps the last delay read, so that the sum never steps back (an embedded loop's idle time
 * is what it is not). */
static double rt_runnable(void *d) {
  lw_monset_t *s = d;
  lw_thread_times_t t;
  double cpu = lw_clock_thread_cpu_ms();
  if (s->rt.runq_known && lw_thread_src_read(&s->rt.main_src, &t) == 0 && isfinite(t.runq_ms))
    s->rt.runq_last = t.runq_ms;
  return cpu + s->rt.runq_last;
}
/* Worker thread (and the main thread while the worker is stopped). */
static int rt_main_sched(void *d, lw_thread_times_t *out) {
  return lw_thread_src_read(&((lw_monset_t *)d)->rt.main_src, out);
}
/* Worker thread: the set's id is written before the thread starts and never changes. */
static double rt_main_debugged(void *d) { return lw_debugger_held(((lw_monset_t *)d)->hangs.set_id); }
/* Worker thread, the only one that renews main_src (threadtimes.h). */
static int rt_main_renew(void *d) { return lw_thread_src_renew_cgroup(&((lw_monset_t *)d)->rt.main_src); }
/* Worker thread only: its own schedstat, opened by the thread that reads it (a restarted worker
 * is another thread). */
static int rt_self_sched(void *d, lw_thread_times_t *out) {
  lw_monset_t *s = d;
  if (!lw_thread_src_is_self(&s->rt.self_src)) {
    lw_thread_src_close(&s->rt.self_src);
    if (lw_thread_src_open_self(&s->rt.self_src, 0) != 0) return -1;
  }
  return lw_thread_src_read(&s->rt.self_src, out);
}
static double rt_gc(void *d, double start, double end) {
  return lw_spans_overlap(&((const lw_monset_t *)d)->gc, start, end);
}

void lw__monset_uv_readings(lw_monset_t *s, lw_readings_t *rd) {
  rd->main.wall = rt_wall;
  rd->main.sleep_pair = rd->worker.sleep_pair = sleep_clock_pair;
  rd->main.idle = lw__monset_uv_idle;
  rd->main.runnable = rt_runnable;
  rd->main.poll_seen = rt_poll_seen;
  rd->worker.main_avail = rt_main_avail;
  rd->worker.main_waiting = rt_main_waiting;
  rd->worker.main_in_poll = rt_main_in_poll;
  rd->worker.main_busy = rt_main_busy;
  /* This is the main thread: its times are read from here on by the worker. */
  lw_thread_src_open_self(&s->rt.main_src, 1);
  {
    lw_thread_times_t t;
    s->rt.runq_known = lw_thread_src_read(&s->rt.main_src, &t) == 0 && isfinite(t.runq_ms);
    if (s->rt.runq_known) s->rt.runq_last = t.runq_ms;
  }
  rd->main.main_sched = rd->worker.main_sched = rt_main_sched;
  rd->worker.main_renew = rt_main_renew;
  rd->worker.main_debugged = rt_main_debugged;
  rd->worker.self_sched = rt_self_sched;
  rd->main.gc_ms = rt_gc;
  rd->main.data = rd->worker.data = s;
#if defined(__APPLE__) || defined(_WIN32)
  rd->main.mono_includes_sleep = 1;
#endif
}

/* The main thread looks for evidence: a SIGCONT since the last look, with the worker's runs
 * around it (the core finds when the process was last seen running). Returns 1 if that made
 * evidence. */
static int look(lw_monset_t *s, double now) {
  uint64_t at_ns, count = lw_sigcont_last(&at_ns);
  lw_continue_t cont;
  if (count == s->rt.cont_seen) return lw_monset_core_look(&s->core, NULL, now);
  s->rt.cont_seen = count;
  cont.at = (double)(int64_t)(at_ns - s->uv->origin_ns) / 1e6;
  cont.worker_after = lw_uvworker_ran_before(s->rt.uw, INFINITY) > cont.at;
  cont.worker_before = lw_uvworker_ran_before(s->rt.uw, cont.at);
  return lw_monset_core_look(&s->core, &cont, now);
}

/* A debugger's pauses (debugger.h) since the last look, as evidence: one atomic load when
 * nothing changed. Returns 1 if evidence was added. */
static int debugged(lw_monset_t *s, double now) {
  double ended[LW_DEBUGGER_KEPT][2], since;
  uint64_t changes = lw_debugger_changes();
  size_t n, i;
  if (changes == s->rt.dbg_changes) return 0;
  s->rt.dbg_changes = changes;
  n = lw_debugger_take(s->hangs.set_id, ended, LW_DEBUGGER_KEPT, &since);
  for (i = 0; i < n; i++) lw_monset_core_debugged(&s->core, ended[i][0], ended[i][1], now);
  if (!isnan(since)) lw_monset_core_debugged(&s->core, since, INFINITY, now);
  return n > 0 || !isnan(since);
}

int lw__monset_uv_signals(lw_monset_t *s, double now) {
  int got = look(s, now);
  return debugged(s, now) | got;
}
