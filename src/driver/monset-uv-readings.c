/* The real-time set's readings (lw_readings_t): the platform's clocks, libuv's idle time, the
 * threads' times and the debugger's hold, as the core reads them on the main and worker threads. */
#include <math.h>

#include "../platform/clocks.h"
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
  if (s->idle_valid && uv_is_active((uv_handle_t *)&s->prepare)) return s->idle_last;
  s->idle_last = (double)uv_metrics_idle_time(s->uv->timer.loop) / 1e6;
  s->idle_valid = 1;
  return s->idle_last;
}
/* Worker thread: the main thread's last timed prepare (or async callback) published `at - idle`;
 * the idle time libuv counted since (its metrics lock; the wait in progress included) is the
 * wait of the poll that followed, so the sum is when that wait ended, or about now while it
 * lasts (lw_uvworker_avail). */
static double rt_main_avail(void *d) {
  lw_monset_t *s = d;
  double idle = (double)uv_metrics_idle_time(s->uv->timer.loop) / 1e6;
  return lw_uvworker_avail(s->uw, idle);
}
/* Worker thread: libuv adds the wait in progress to its idle time from its own clock, so two
 * readings in a row differ only while the poll waits (or if its wait ended between them). */
static int rt_main_in_poll(void *d) {
  uv_loop_t *loop = ((lw_monset_t *)d)->uv->timer.loop;
  uint64_t a = uv_metrics_idle_time(loop);
  return uv_metrics_idle_time(loop) > a;
}
static int rt_main_waiting(void *d) { return lw_uvworker_waiting(((lw_monset_t *)d)->uw); }
static double rt_main_busy(void *d) { return lw_uvworker_busy(((lw_monset_t *)d)->uw); }
/* Main thread: its CPU time plus, where schedstat tells it, its run-queue delay; a read that
 * fails keeps the last delay read, so that the sum never steps back (an embedded loop's idle time
 * is what it is not). */
static double rt_runnable(void *d) {
  lw_monset_t *s = d;
  lw_thread_times_t t;
  double cpu = lw_clock_thread_cpu_ms();
  if (s->runq_known && lw_thread_src_read(&s->main_src, &t) == 0 && isfinite(t.runq_ms))
    s->runq_last = t.runq_ms;
  return cpu + s->runq_last;
}
static double rt_cpu(void *d) {
  (void)d;
  return lw_clock_thread_cpu_ms();
}
/* Worker thread (and the main thread while the worker is stopped). */
static int rt_main_sched(void *d, lw_thread_times_t *out) {
  return lw_thread_src_read(&((lw_monset_t *)d)->main_src, out);
}
/* Worker thread: the set's id is written before the thread starts and never changes. */
static double rt_main_debugged(void *d) { return lw_debugger_held(((lw_monset_t *)d)->set_id); }
/* Worker thread, the only one that renews main_src (threadtimes.h). */
static int rt_main_renew(void *d) { return lw_thread_src_renew_cgroup(&((lw_monset_t *)d)->main_src); }
/* Worker thread only: its own schedstat, opened by the thread that reads it (a restarted worker
 * is another thread). */
static int rt_self_sched(void *d, lw_thread_times_t *out) {
  lw_monset_t *s = d;
  if (!lw_thread_src_is_self(&s->self_src)) {
    lw_thread_src_close(&s->self_src);
    if (lw_thread_src_open_self(&s->self_src, 0) != 0) return -1;
  }
  return lw_thread_src_read(&s->self_src, out);
}
static double rt_gc(void *d, double start, double end) {
  return lw_spans_overlap(&((const lw_monset_t *)d)->gc, start, end);
}

void lw__monset_uv_readings(lw_monset_t *s, lw_readings_t *rd) {
  rd->main.wall = rt_wall;
  rd->main.sleep_pair = rd->worker.sleep_pair = sleep_clock_pair;
  rd->main.idle = lw__monset_uv_idle;
  rd->main.runnable = rt_runnable;
  rd->main.cpu = rt_cpu;
  rd->worker.main_avail = rt_main_avail;
  rd->worker.main_waiting = rt_main_waiting;
  rd->worker.main_in_poll = rt_main_in_poll;
  rd->worker.main_busy = rt_main_busy;
  /* This is the main thread: its times are read from here on by the worker. */
  lw_thread_src_open_self(&s->main_src, 1);
  {
    lw_thread_times_t t;
    s->runq_known = lw_thread_src_read(&s->main_src, &t) == 0 && isfinite(t.runq_ms);
    if (s->runq_known) s->runq_last = t.runq_ms;
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
