/* The worker thread's two monitors as rows of the set (SPEC §6): `worker`, its heartbeat's
 * lateness on the main thread, and `liveness`, its checks that the main thread still runs. Their
 * rules are the worker's (worker.c); the heartbeat's samples are received in ev-worker.c. */
#include "monitors-internal.h"

static void heartbeat_start(lw_monset_core_t *m, double now) { lw_worker_start(&m->worker, 1, now); }
static void heartbeat_stop(lw_monset_core_t *m, double now) {
  (void)now;
  lw_worker_stop(&m->worker, 1);
}
static void liveness_start(lw_monset_core_t *m, double now) { lw_worker_start(&m->worker, 0, now); }
static void liveness_stop(lw_monset_core_t *m, double now) {
  (void)now;
  lw_worker_stop(&m->worker, 0);
}

static const lw_option_row_t heartbeat_options[] = {
    LW__MON_OPTION("worker.intervalMs", worker_interval_ms, LW_OPTION_MS, 1000),
};

static const lw_option_row_t liveness_options[] = {
    LW__MON_OPTION("liveness.intervalMs", liveness_interval_ms, LW_OPTION_MS, 100),
};

const lw__mon_desc_t lw__mon_worker = {
    .name = "worker",
    .flags = LW__MON_VALIDATED | LW__MON_WORKER_THREAD,
    .metric = {"lag_worker_lag_histogram",
               "Time a worker heartbeat waited for the main thread (recorded samples)", "ms"},
    .start = heartbeat_start,
    .stop = heartbeat_stop,
    .timer = NULL,
    .fire = NULL,
    .recorded = NULL,
    LW__MON_OPTIONS(heartbeat_options),
};

const lw__mon_desc_t lw__mon_liveness = {
    .name = "liveness",
    .flags = LW__MON_WORKER_THREAD | LW__MON_LOOP_HOOKS,
    .start = liveness_start,
    .stop = liveness_stop,
    .timer = NULL,
    .fire = NULL,
    .recorded = NULL,
    LW__MON_OPTIONS(liveness_options),
};
