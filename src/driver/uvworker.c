#include "uvworker.h"

#include "../core/hangline.h"
#include "../platform/sigcont.h"
#include "../platform/sigend.h"
#include "../platform/threadname.h"

#include <math.h>
#include <string.h>

#ifdef LW_TEST_HOOKS
#include <stdlib.h>

/* The test build's (-DLW_TEST_HOOKS) worker held up after a stop: at a wake-up LW_STOP_MIN_MS or
 * more past its due, it sleeps LAGWATCH_TEST_WORKER_LATE_MS (read at its start) before it runs,
 * as a worker the scheduler gives a CPU only that long after the thaw that woke both threads
 * (seen under load). Never in what users install. */
static void test_hold_after_stop(lw_uvworker_t *uw, double now) {
  int64_t due = lw_atomic_load(&uw->next_due_ns);
  if (uw->test_late_ms > 0 && due != INT64_MAX && now - (double)due / 1e6 >= LW_STOP_MIN_MS)
    uv_sleep((unsigned)uw->test_late_ms);
}
#endif

static double now_ms(const lw_uvworker_t *uw) {
  return (double)(int64_t)(uv_hrtime() - uw->origin_ns) / 1e6;
}

static void timer_cb(uv_timer_t *t);

/* Worker thread: arms the timer at the worker's next due time, and publishes it. */
static void arm(lw_uvworker_t *uw) {
  double due = lw_worker_next_due(uw->w), delay;
  uint64_t at_ns;
  /* A signal the main thread has not taken is looked at again at its deadline. */
  if (lw_atomic_load_relaxed(&uw->ends_signals) && lw_sigend_pending(&at_ns) != 0) {
    double end = (double)(int64_t)(at_ns - uw->origin_ns) / 1e6 + LW_HANGLINE_SIGNAL_MS;
    if (end < due) due = end;
  }
  lw_atomic_store(&uw->next_due_ns, due == LW_NEVER || due > 9e12 ? INT64_MAX : (int64_t)(due * 1e6));
  if (due == LW_NEVER) return;
  delay = ceil(due - now_ms(uw));
  if (delay > 9e15) delay = 9e15; /* the cast must fit: a later run re-arms */
  uv_timer_start(&uw->timer, timer_cb, delay > 0 ? (uint64_t)delay : 0, 0);
}

static double progress_ms(lw_uvworker_t *uw) {
  int64_t ns = lw_atomic_load(&uw->progress_ns);
  return ns == INT64_MIN ? -INFINITY : (double)ns / 1e6;
}

double lw_uvworker_progress_at(lw_uvworker_t *uw) { return progress_ms(uw); }

/* Worker thread. */
static void timer_cb(uv_timer_t *t) {
  lw_uvworker_t *uw = t->data;
  lw_msg_t out[LW_WORKER_MSGS_MAX + 1]; /* a continue's evidence, then a run's */
  double now = now_ms(uw);
  int64_t runs = lw_atomic_load_relaxed(&uw->runs);
  size_t n, i;
  uint64_t cont_ns, conts;
#ifdef LW_TEST_HOOKS
  test_hold_after_stop(uw, now);
  now = now_ms(uw);
#endif
  conts = lw_sigcont_last(&cont_ns);
  n = 0;
  if (conts != uw->cont_seen) {
    /* A SIGCONT since the last run: the process was stopped from after that run. */
    uw->cont_seen = conts;
    n = lw_worker_continued(uw->w, (double)(int64_t)(cont_ns - uw->origin_ns) / 1e6, out);
  }
  n += lw_worker_run(uw->w, now, progress_ms(uw), out + n);
  if (n) {
    int wake = 0;
    uv_mutex_lock(&uw->mu);
    for (i = 0; i < n; i++) {
      if (uw->nfill < LW_UVWORKER_QUEUE_MAX)
        uw->bufs[uw->fill][uw->nfill++] = out[i];
      else
        uw->lost++;
      if (out[i].type != LW_MSG_HEARTBEAT || !out[i].quiet) wake = 1;
    }
    if (uw->nfill >= LW_UVWORKER_QUIET_MAX) wake = 1;
    lw_atomic_store(&uw->pending, (int64_t)uw->nfill);
    uv_mutex_unlock(&uw->mu);
    /* Only quiet heartbeats: the main loop, waiting, takes them at its next iteration. */
    if (wake) uv_async_send(uw->notify);
    for (i = 0; i < n && uw->on_hang != NULL; i++)
      if (out[i].type == LW_MSG_HANG_START || out[i].type == LW_MSG_BLOCK_START)
        uw->on_hang(uw->on_hang_data, out[i].detected_at, out[i].type == LW_MSG_BLOCK_START);
  }
  /* After the messages are handed over: a record's file I/O never delays them. */
  if (uw->after_run != NULL) uw->after_run(uw->after_run_data, out, n, now);
  /* The next run's lateness counts from here at the earliest (a lock or a record's write that
   * held this thread up is no stop). */
  lw_worker_ran_until(uw->w, now_ms(uw));
  /* Published once its messages are in the buffer: a main thread that sees this run after a
   * SIGCONT leaves the stop to them (monset-uv.c) and finds them there. */
  lw_atomic_store(&uw->run_ns[runs % LW_UVWORKER_RUNS_KEPT], (int64_t)(now * 1e6) | 1);
  lw_atomic_store(&uw->runs, runs + 1);
  arm(uw);
}

/* Worker thread: the main thread asked it to stop. */
static void wake_cb(uv_async_t *a) {
  lw_uvworker_t *uw = a->data;
  if (!lw_atomic_load(&uw->stop)) return;
  uv_close((uv_handle_t *)&uw->timer, NULL);
  uv_close((uv_handle_t *)&uw->wake, NULL);
}

static void thread_main(void *arg) {
  lw_uvworker_t *uw = arg;
#ifdef LW_TEST_HOOKS
  const char *late = getenv("LAGWATCH_TEST_WORKER_LATE_MS");
  uw->test_late_ms = late != NULL ? atoi(late) : 0;
#endif
  lw_thread_setname("lagwatch");
  arm(uw);
  uv_run(&uw->loop, UV_RUN_DEFAULT);
}

int lw_uvworker_init(lw_uvworker_t *uw, lw_worker_t *w, uint64_t origin_ns, uv_async_t *notify) {
  memset(uw, 0, sizeof(*uw));
  uw->w = w;
  uw->origin_ns = origin_ns;
  uw->notify = notify;
  lw_atomic_store(&uw->progress_ns, INT64_MIN);
  lw_atomic_store(&uw->avail_base_ns, INT64_MIN);
  lw_atomic_store(&uw->next_due_ns, INT64_MAX);
  uw->awaited_due_ns = INT64_MIN;
  return uv_mutex_init(&uw->mu);
}

/* Closes what lw_uvworker_start() opened on the worker's loop before the thread could run. */
static void loop_abandon(lw_uvworker_t *uw, int timer, int wake) {
  if (timer) uv_close((uv_handle_t *)&uw->timer, NULL);
  if (wake) uv_close((uv_handle_t *)&uw->wake, NULL);
  uv_run(&uw->loop, UV_RUN_DEFAULT);
  uv_loop_close(&uw->loop);
}

int lw_uvworker_start(lw_uvworker_t *uw) {
  int rc;
  uint64_t at_ns;
  if (uw->running) return 0;
  uw->cont_seen = lw_sigcont_last(&at_ns); /* continues from now on */
  rc = uv_loop_init(&uw->loop);
  if (rc != 0) return rc;
  uv_timer_init(&uw->loop, &uw->timer);
  rc = uv_async_init(&uw->loop, &uw->wake, wake_cb);
  if (rc != 0) {
    loop_abandon(uw, 1, 0);
    return rc;
  }
  uw->timer.data = uw->wake.data = uw;
  lw_atomic_store(&uw->stop, 0);
  /* The main thread runs JS: its poll is not waiting (the check hook that clears the flag may
   * have been stopped before it ran). */
  lw_atomic_store(&uw->waiting, 0);
  rc = uv_thread_create(&uw->thread, thread_main, uw);
  if (rc != 0) {
    loop_abandon(uw, 1, 1);
    return rc;
  }
  uw->running = 1;
  return 0;
}

void lw_uvworker_stop(lw_uvworker_t *uw) {
  if (!uw->running) return;
  lw_atomic_store(&uw->stop, 1);
  uv_async_send(&uw->wake);
  uv_thread_join(&uw->thread);
  uv_loop_close(&uw->loop);
  uw->running = 0;
}

void lw_uvworker_free(lw_uvworker_t *uw) {
  lw_uvworker_stop(uw);
  uv_mutex_destroy(&uw->mu);
}

void lw_uvworker_progress(lw_uvworker_t *uw, double now, double idle) {
  lw_atomic_store(&uw->avail_base_ns, (int64_t)((now - idle) * 1e6));
  lw_atomic_store(&uw->progress_ns, (int64_t)(now * 1e6));
}

double lw_uvworker_busy(lw_uvworker_t *uw) {
  int64_t base = lw_atomic_load(&uw->avail_base_ns);
  return base == INT64_MIN ? NAN : (double)base / 1e6;
}

/* The busy total up to the last progress, plus all the idle time: where the wait after it ended. */
double lw_uvworker_avail(lw_uvworker_t *uw, double idle) { return lw_uvworker_busy(uw) + idle; }

int lw_uvworker_waiting(lw_uvworker_t *uw) { return lw_atomic_load(&uw->waiting) != 0; }

void lw_uvworker_await_overdue(lw_uvworker_t *uw, double now) {
  int64_t due = lw_atomic_load(&uw->next_due_ns), runs;
  uint64_t start;
  if (!uw->running || due == INT64_MAX || due == uw->awaited_due_ns) return;
  if (now * 1e6 - (double)due < LW_STOP_MIN_MS * 1e6) return;
  uw->awaited_due_ns = due;
  runs = lw_atomic_load(&uw->runs);
  /* By the clock: under load a 1 ms sleep takes longer. */
  start = uv_hrtime();
  while (lw_atomic_load(&uw->runs) == runs && uv_hrtime() - start < (uint64_t)LW_UVWORKER_AWAIT_MS * 1000000u)
    uv_sleep(1);
}

double lw_uvworker_ran_before(lw_uvworker_t *uw, double at) {
  double best = -INFINITY;
  int i;
  for (i = 0; i < LW_UVWORKER_RUNS_KEPT; i++) {
    int64_t ns = lw_atomic_load(&uw->run_ns[i]);
    double t = (double)ns / 1e6;
    if (ns != 0 && t <= at && t > best) best = t;
  }
  return best;
}

int lw_uvworker_pending(lw_uvworker_t *uw) { return lw_atomic_load_relaxed(&uw->pending) != 0; }

size_t lw_uvworker_drain(lw_uvworker_t *uw, const lw_msg_t **out, uint64_t *lost) {
  size_t n;
  uv_mutex_lock(&uw->mu);
  n = uw->nfill;
  *out = uw->bufs[uw->fill];
  /* The worker fills the other buffer from now on; this one is the main thread's until the
   * next drain. */
  uw->fill ^= 1;
  uw->nfill = 0;
  *lost += uw->lost;
  uw->lost = 0;
  lw_atomic_store(&uw->pending, 0);
  uv_mutex_unlock(&uw->mu);
  return n;
}
