/* The worker thread of the uv driver (src/driver/uvworker.c) with the core's monitors, driven by
 * real threads under ThreadSanitizer: heartbeats and liveness checks on the worker thread, the
 * progress stamp and the message queue crossing to a real main loop, a real 400 ms block of the
 * main loop detected as a hang, and the thread stopped and restarted while it runs. Any data race
 * makes TSan fail the run (halt_on_error=1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../../src/core/monitors.h"
#include "../../src/driver/uvworker.h"
#include "../../src/platform/clocks.h"

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
static uint64_t origin;
static lw_conditions_t cond;
static lw_monitors_t mon;
static lw_uvworker_t uw;
static uv_async_t notify;
static uv_prepare_t prepare;
static uv_timer_t t_block, t_restart, t_end;
static size_t heartbeats, pings, hang_starts;
static double hang_ms = -1;
static int restarts;

static double now_ms(void) { return (double)(int64_t)(uv_hrtime() - origin) / 1e6; }
static double rd_wall(void *d) { (void)d; return lw_clock_wall_ms(); }
static int rd_pair(void *d, double *a, double *b) { (void)d; return lw_clock_sleep_pair_ms(a, b); }
static double rd_idle(void *d) { (void)d; return (double)uv_metrics_idle_time(&loop) / 1e6; }

static void drain_events(void) {
  size_t n, i;
  const lw_event_t *ev = lw_conditions_events(&cond, &n);
  for (i = 0; i < n; i++)
    if (ev[i].type == LW_EVENT_WORKER_HANG) hang_ms = ev[i].duration_ms;
  lw_conditions_events_clear(&cond);
}

static void notify_cb(uv_async_t *a) {
  lw_msg_t *msgs;
  size_t n = lw_uvworker_drain(&uw, &msgs), i;
  double now = now_ms();
  (void)a;
  lw_uvworker_progress(&uw, now);
  for (i = 0; i < n; i++) {
    if (msgs[i].type == LW_MSG_HEARTBEAT) heartbeats++;
    if (msgs[i].type == LW_MSG_PING) pings++;
    if (msgs[i].type == LW_MSG_HANG_START) hang_starts++;
    lw_monitors_receive(&mon, &msgs[i], now);
  }
  free(msgs);
  drain_events();
}

static void prepare_cb(uv_prepare_t *p) {
  double now = now_ms();
  (void)p;
  lw_uvworker_progress(&uw, now);
  lw_monitors_iteration(&mon, now);
}

static void block_cb(uv_timer_t *t) {
  (void)t;
  uv_sleep(400); /* the main loop is blocked; the worker keeps running */
}

/* Stops (joins) and restarts the worker thread while it runs, as stop()/start() do. */
static void restart_cb(uv_timer_t *t) {
  (void)t;
  lw_uvworker_stop(&uw);
  lw_monitors_stop(&mon, LW_MON_WORKER, now_ms());
  lw_monitors_start(&mon, LW_MON_WORKER, now_ms());
  CHECK(lw_uvworker_start(&uw) == 0, "restart %d", restarts);
  if (++restarts == 20) uv_timer_stop(t);
}

static void close_all(void) {
  uv_close((uv_handle_t *)&notify, NULL);
  uv_close((uv_handle_t *)&prepare, NULL);
  uv_close((uv_handle_t *)&t_block, NULL);
  uv_close((uv_handle_t *)&t_restart, NULL);
  uv_close((uv_handle_t *)&t_end, NULL);
}

static void end_cb(uv_timer_t *t) {
  (void)t;
  lw_uvworker_stop(&uw);
  notify_cb(&notify); /* what was sent before the stop */
  close_all();
}

int main(void) {
  lw_conditions_config_t ccfg;
  lw_monitors_config_t mcfg;
  lw_readings_t rd = {rd_wall, rd_pair, rd_idle, NULL, 0};
  uv_loop_init(&loop);
  uv_loop_configure(&loop, UV_METRICS_IDLE_TIME);
  origin = uv_hrtime();
  lw_conditions_config_default(&ccfg);
  ccfg.stall_threshold_ms = 200;
  CHECK(lw_conditions_init(&cond, &ccfg) == LW_OK, "conditions");
  lw_monitors_config_default(&mcfg, &cond);
  mcfg.worker_interval_ms = 20;
  mcfg.liveness_interval_ms = 10;
  CHECK(lw_monitors_init(&mon, &cond, &mcfg, &rd) == LW_OK, "monitors");
  lw_monitors_start(&mon, LW_MON_WORKER, now_ms());
  lw_monitors_start(&mon, LW_MON_LIVENESS, now_ms());
  lw_monitors_start(&mon, LW_MON_LOOPBLOCK, now_ms());

  uv_async_init(&loop, &notify, notify_cb);
  uv_prepare_init(&loop, &prepare);
  uv_prepare_start(&prepare, prepare_cb);
  CHECK(lw_uvworker_init(&uw, &mon.worker, &mon.rd, origin, &notify) == 0, "uvworker init");
  CHECK(lw_uvworker_start(&uw) == 0, "uvworker start");
  uv_timer_init(&loop, &t_block);
  uv_timer_init(&loop, &t_restart);
  uv_timer_init(&loop, &t_end);
  uv_timer_start(&t_block, block_cb, 150, 0);
  uv_timer_start(&t_restart, restart_cb, 900, 15);
  uv_timer_start(&t_end, end_cb, 1500, 0);
  uv_run(&loop, UV_RUN_DEFAULT);

  CHECK(heartbeats >= 30, "heartbeats %zu", heartbeats);
  CHECK(hang_starts == 1, "hang starts %zu", hang_starts);
  CHECK(hang_ms >= 380 && hang_ms <= 600, "hang duration %.1f ms", hang_ms);
  CHECK(restarts == 20, "restarts %d", restarts);
  CHECK(!uw.running, "stopped");

  lw_uvworker_free(&uw);
  lw_monitors_free(&mon);
  lw_conditions_free(&cond);
  CHECK(uv_loop_close(&loop) == 0, "loop closed");
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
