#include "uvworker.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double now_ms(const lw_uvworker_t *uw) {
  return (double)(int64_t)(uv_hrtime() - uw->origin_ns) / 1e6;
}

static void timer_cb(uv_timer_t *t);

/* Worker thread: arms the timer at the worker's next due time. */
static void arm(lw_uvworker_t *uw) {
  double due = lw_worker_next_due(uw->w), delay;
  if (due == LW_NEVER) return;
  delay = ceil(due - now_ms(uw));
  if (delay > 9e15) delay = 9e15; /* the cast must fit: a later run re-arms */
  uv_timer_start(&uw->timer, timer_cb, delay > 0 ? (uint64_t)delay : 0, 0);
}

/* Worker thread. */
static void timer_cb(uv_timer_t *t) {
  lw_uvworker_t *uw = t->data;
  lw_msg_t out[LW_WORKER_MSGS_MAX];
  size_t n = lw_worker_run(uw->w, now_ms(uw), atomic_load(&uw->progress), uw->rd, out);
  if (n) {
    int sent = 0;
    uv_mutex_lock(&uw->mu);
    if (lw__grow((void **)&uw->queue, &uw->queue_cap, uw->nqueue + n, sizeof(*uw->queue)) == LW_OK) {
      memcpy(uw->queue + uw->nqueue, out, n * sizeof(*out));
      uw->nqueue += n;
      sent = 1;
    }
    uv_mutex_unlock(&uw->mu);
    if (sent) uv_async_send(uw->notify);
  }
  arm(uw);
}

/* Worker thread: the main thread asked it to stop. */
static void wake_cb(uv_async_t *a) {
  lw_uvworker_t *uw = a->data;
  if (!atomic_load(&uw->stop)) return;
  uv_close((uv_handle_t *)&uw->timer, NULL);
  uv_close((uv_handle_t *)&uw->wake, NULL);
}

static void thread_main(void *arg) {
  lw_uvworker_t *uw = arg;
  arm(uw);
  uv_run(&uw->loop, UV_RUN_DEFAULT);
}

int lw_uvworker_init(lw_uvworker_t *uw, lw_worker_t *w, const lw_readings_t *rd,
                     uint64_t origin_ns, uv_async_t *notify) {
  memset(uw, 0, sizeof(*uw));
  uw->w = w;
  uw->rd = rd;
  uw->origin_ns = origin_ns;
  uw->notify = notify;
  atomic_init(&uw->progress, -INFINITY);
  atomic_init(&uw->stop, 0);
  return uv_mutex_init(&uw->mu);
}

int lw_uvworker_start(lw_uvworker_t *uw) {
  if (uw->running) return 0;
  if (uv_loop_init(&uw->loop) != 0) return -1;
  uv_timer_init(&uw->loop, &uw->timer);
  if (uv_async_init(&uw->loop, &uw->wake, wake_cb) != 0) {
    uv_close((uv_handle_t *)&uw->timer, NULL);
    uv_run(&uw->loop, UV_RUN_DEFAULT);
    uv_loop_close(&uw->loop);
    return -1;
  }
  uw->timer.data = uw->wake.data = uw;
  atomic_store(&uw->stop, 0);
  if (uv_thread_create(&uw->thread, thread_main, uw) != 0) {
    uv_close((uv_handle_t *)&uw->timer, NULL);
    uv_close((uv_handle_t *)&uw->wake, NULL);
    uv_run(&uw->loop, UV_RUN_DEFAULT);
    uv_loop_close(&uw->loop);
    return -1;
  }
  uw->running = 1;
  return 0;
}

void lw_uvworker_stop(lw_uvworker_t *uw) {
  if (!uw->running) return;
  atomic_store(&uw->stop, 1);
  uv_async_send(&uw->wake);
  uv_thread_join(&uw->thread);
  uv_loop_close(&uw->loop);
  uw->running = 0;
}

void lw_uvworker_free(lw_uvworker_t *uw) {
  lw_uvworker_stop(uw);
  uv_mutex_destroy(&uw->mu);
  free(uw->queue);
  uw->queue = NULL;
  uw->nqueue = uw->queue_cap = 0;
}

void lw_uvworker_progress(lw_uvworker_t *uw, double now) { atomic_store(&uw->progress, now); }

size_t lw_uvworker_drain(lw_uvworker_t *uw, lw_msg_t **out) {
  size_t n;
  *out = NULL;
  uv_mutex_lock(&uw->mu);
  n = uw->nqueue;
  if (n) {
    *out = malloc(n * sizeof(**out));
    if (*out) memcpy(*out, uw->queue, n * sizeof(**out));
    uw->nqueue = 0;
  }
  uv_mutex_unlock(&uw->mu);
  return *out ? n : 0;
}
