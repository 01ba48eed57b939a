/* The monitor set's real-time half (src/driver/monset.c with src/driver/uvworker.c) driven by
 * real threads under ThreadSanitizer: heartbeats and liveness checks on the worker thread, the
 * progress stamp and the message buffers crossing to a real main loop, a real 400 ms block of
 * the main loop detected as a hang, the thread stopped and restarted while it runs, and the
 * whole set finished (the worker's last messages received) and closed. Any data race makes TSan
 * fail the run (halt_on_error=1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../../src/driver/monset.h"

static int failed, passed;
#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (cond) {                                                \
      passed++;                                                \
    } else {                                                   \
      failed++;                                                \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                            \
      fprintf(stderr, "\n");                                   \
    }                                                          \
  } while (0)

static uv_loop_t loop;
static lw_uv_t drv;
static lw_conditions_t cond;
static lw_monset_t set;
static uv_timer_t t_block, t_restart, t_end;
static size_t hang_events;
static double hang_ms = -1;
static int restarts, closed;

/* The owner: takes the events the set hands over. */
static void deliver(void *data, int batches, int from_loop) {
  size_t n, i;
  const lw_event_t *ev = lw_conditions_events(&cond, &n);
  (void)data;
  (void)batches;
  (void)from_loop;
  for (i = 0; i < n; i++) {
    if (ev[i].type == LW_EVENT_WORKER_HANG) {
      hang_events++;
      hang_ms = ev[i].duration_ms;
    }
  }
  lw_conditions_events_clear(&cond);
}

static void on_closed(void *data) {
  (void)data;
  closed = 1;
}

static void block_cb(uv_timer_t *t) {
  (void)t;
  uv_sleep(400); /* the main loop is blocked; the worker keeps running */
}

/* Stops (joins) and restarts the worker thread while it runs, as stop()/start() do. */
static void restart_cb(uv_timer_t *t) {
  lw_monset_stop(&set, LW_MON_WORKER);
  CHECK(lw_monset_start(&set, LW_MON_WORKER) == LW_OK, "restart %d", restarts);
  if (++restarts == 20) uv_timer_stop(t);
}

static void end_cb(uv_timer_t *t) {
  (void)t;
  lw_monset_finish(&set); /* stops the thread, receives what it sent, resolves, reports */
  lw_monset_close(&set);
  lw_uv_close(&drv, NULL);
  uv_close((uv_handle_t *)&t_block, NULL);
  uv_close((uv_handle_t *)&t_restart, NULL);
  uv_close((uv_handle_t *)&t_end, NULL);
}

int main(void) {
  lw_conditions_config_t ccfg;
  lw_monset_core_config_t mcfg;
  lw_monset_core_stats_t st;
  lw_monset_owner_t owner = {.deliver = deliver, .closed = on_closed};
  uv_loop_init(&loop);
  uv_loop_configure(&loop, UV_METRICS_IDLE_TIME);
  CHECK(lw_uv_init(&drv, &loop, uv_hrtime()) == 0, "uv driver");
  lw_conditions_config_default(&ccfg);
  ccfg.stall_threshold_ms = 200;
  CHECK(lw_conditions_init(&cond, &ccfg) == LW_OK, "conditions");
  lw_monset_core_config_default(&mcfg, &cond);
  mcfg.worker_interval_ms = 20;
  mcfg.liveness_interval_ms = 10;
  CHECK(lw_monset_init(&set, &cond, &mcfg, NULL, &drv, &owner) == LW_OK, "monitor set");
  CHECK(lw_monset_start(&set, LW_MON_WORKER) == 0, "worker");
  CHECK(lw_monset_start(&set, LW_MON_LIVENESS) == 0, "liveness");
  CHECK(lw_monset_start(&set, LW_MON_LOOPBLOCK) == 0, "loopBlock");
  uv_timer_init(&loop, &t_block);
  uv_timer_init(&loop, &t_restart);
  uv_timer_init(&loop, &t_end);
  uv_timer_start(&t_block, block_cb, 150, 0);
  uv_timer_start(&t_restart, restart_cb, 900, 15);
  uv_timer_start(&t_end, end_cb, 1500, 0);
  uv_run(&loop, UV_RUN_DEFAULT);

  lw_monset_core_stats(&set.core, &st);
  CHECK(st.self_lag_count >= 30, "heartbeats %llu", (unsigned long long)st.self_lag_count);
  CHECK(st.worker_hangs == 1, "hangs flagged %llu", (unsigned long long)st.worker_hangs);
  CHECK(hang_events == 1, "workerHang events %zu", hang_events);
  CHECK(hang_ms >= 380 && hang_ms <= 600, "hang duration %.1f ms", hang_ms);
  CHECK(restarts == 20, "restarts %d", restarts);
  CHECK(set.rt.uw == NULL, "thread joined and its memory freed by finish");
  CHECK(closed, "handles closed");
  CHECK(cond.stalls[LW_KIND_HANG] == 1, "one hang episode, %llu",
        (unsigned long long)cond.stalls[LW_KIND_HANG]);
  CHECK(cond.lost == 0, "nothing lost");

  lw_monset_free(&set);
  lw_conditions_free(&cond);
  CHECK(uv_loop_close(&loop) == 0, "loop closed");
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
