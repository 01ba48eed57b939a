/* The worker thread of the uv driver: a uv_thread with its own uv_loop_t and one timer, running
 * the worker's half of the monitors (heartbeat, liveness). It touches no JS and no main-loop
 * handle: it reads the main thread's progress stamp (an atomic) and hands its messages over
 * through a mutex-guarded queue, signalling the main loop with `notify` (a uv_async_t of the
 * main loop, owned by the caller). uv_async_send coalesces, so the main side drains the whole
 * queue each time. Main-thread functions and worker-thread functions are marked. */
#ifndef LW_DRIVER_UVWORKER_H_
#define LW_DRIVER_UVWORKER_H_

#include <stdatomic.h>
#include <uv.h>

#include "../core/monitors.h"

typedef struct lw_uvworker_s {
  lw_worker_t *w;          /* the worker thread's while it runs, the main thread's otherwise */
  const lw_readings_t *rd; /* only sleep_pair is called from the worker thread */
  uint64_t origin_ns;
  uv_async_t *notify;
  _Atomic double progress;
  uv_mutex_t mu;
  lw_msg_t *queue; /* guarded by mu */
  size_t nqueue;
  size_t queue_cap;
  int running;
  atomic_int stop;
  uv_thread_t thread;
  uv_loop_t loop;
  uv_timer_t timer;
  uv_async_t wake;
} lw_uvworker_t;

/* Main thread. */
int lw_uvworker_init(lw_uvworker_t *uw, lw_worker_t *w, const lw_readings_t *rd,
                     uint64_t origin_ns, uv_async_t *notify);
void lw_uvworker_free(lw_uvworker_t *uw); /* stops the thread first */
int lw_uvworker_start(lw_uvworker_t *uw); /* does nothing if running */
void lw_uvworker_stop(lw_uvworker_t *uw); /* stops and joins; does nothing if stopped */
/* The main thread showed progress at `now` (ms). Any thread may call it. */
void lw_uvworker_progress(lw_uvworker_t *uw, double now);
/* Moves every queued message into `*out` (malloc'd, the caller frees) and returns their number;
 * 0 with *out == NULL when the queue is empty or memory ran out. */
size_t lw_uvworker_drain(lw_uvworker_t *uw, lw_msg_t **out);

#endif /* LW_DRIVER_UVWORKER_H_ */
