/* The worker thread's two monitors as rows of the set (SPEC §6): `worker`, its heartbeat's
 * lateness on the main thread, and `liveness`, its checks that the main thread still runs. Their
 * rules are the worker's (worker.c); the heartbeat's samples are received in ev-worker.c. */
#include "monitors-internal.h"

#include <math.h>

/* `worker`'s state: every heartbeat's self-lag (stats()), recorded or not. */
typedef struct heartbeat_state_s {
  lw_histogram_t self_lag;
} heartbeat_state_t;
static heartbeat_state_t *hb(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_WORKER); }

/* `liveness`'s state: the hangs it flagged, the times of those seen to end, and their causes for
 * the hang episodes they overlap. */
typedef struct liveness_state_s {
  uint64_t hangs;
  lw_histogram_t hang;
  lw_causes_t causes;
} liveness_state_t;
static liveness_state_t *lv(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_LIVENESS); }

static int heartbeat_init(lw_monset_core_t *m) { return lw_histogram_init(&hb(m)->self_lag); }
static void heartbeat_free(lw_monset_core_t *m) { lw_histogram_free(&hb(m)->self_lag); }
static size_t heartbeat_memory(const lw_monset_core_t *m) { return lw_histogram_memory(&hb(m)->self_lag); }
static void heartbeat_release(lw_monset_core_t *m) { lw_histogram_freeze(&hb(m)->self_lag); }

static int liveness_init(lw_monset_core_t *m) {
  lw_causes_init(&lv(m)->causes, LW_HANG_CAUSES, m->rd.gc_ms, m->rd.data);
  return lw_histogram_init(&lv(m)->hang);
}
static void liveness_free(lw_monset_core_t *m) {
  lw_causes_free(&lv(m)->causes);
  lw_histogram_free(&lv(m)->hang);
}
static size_t liveness_memory(const lw_monset_core_t *m) {
  return lw_causes_memory(&lv(m)->causes) + lw_histogram_memory(&lv(m)->hang);
}
static void liveness_release(lw_monset_core_t *m) { lw_histogram_freeze(&lv(m)->hang); }

void lw__mon_heartbeat_received(lw_monset_core_t *m, const lw_msg_t *msg, double now) {
  lw_histogram_record(&hb(m)->self_lag, msg->self_lag);
  if (m->aggs != NULL) lw_agg_record(&m->aggs->self_lag, msg->self_lag);
  if (m->keep_batches) lw__mon_batch_push(m, &m->self_lag_batch, msg->self_lag);
  /* Its lateness (SPEC §6): how long it waited for the main thread, which answered it now, or at
   * once if it came while the loop waited in its poll, however long the loop slept on. */
  if (m->running[LW_MON_WORKER]) {
    double answered = msg->quiet ? msg->sent_at : now;
    lw__mon_submit(m, LW_MON_WORKER, answered - msg->sent_at, answered - msg->sent_at, answered);
  }
}

void lw__mon_hang_started(lw_monset_core_t *m) { lv(m)->hangs++; }

void lw__mon_hang_ended(lw_monset_core_t *m, const lw_msg_t *msg, double end, double now) {
  lw_hang_cause_t *h, spare;
  lw_event_t *ev;
  /* Its time: from where the loop last made progress, less the stops inside it. */
  lw_histogram_record(&lv(m)->hang, end - msg->hang_start - msg->hang_stopped);
  if ((h = lw_causes_next(&lv(m)->causes)) == NULL) {
    /* The worker hang keeps its cause; the episode will not find it (counted as lost). */
    m->c->lost++;
    h = &spare;
  }
  lw_hang_cause_from_msg(h, msg, end);
  ev = lw__event_push(m->c, LW_EVENT_WORKER_HANG, now);
  if (ev) {
    ev->start = msg->hang_start;
    ev->end = end;
    ev->detected_at = msg->detected_at;
    ev->duration_ms = end - msg->hang_start - msg->hang_stopped;
    lw_cause_compute(&lv(m)->causes, h, &ev->cause);
    h->gc_seen = ev->cause.gc_ms;
  }
}

void lw__mon_hang_causes_for(const lw_monset_core_t *m, lw_event_t *ev) {
  lw_causes_for_episode(&lv(m)->causes, ev);
}

void lw__mon_worker_stats(const lw_monset_core_t *m, lw_monset_core_stats_t *out) {
  const lw_histogram_t *sl = &hb(m)->self_lag, *hang = &lv(m)->hang;
  out->self_lag_count = sl->count;
  out->self_lag_max = sl->count ? sl->max : NAN;
  out->self_lag_p99 = lw_histogram_quantile(sl, 0.99);
  out->worker_hangs = lv(m)->hangs;
  out->worker_hangs_ended = hang->count;
  out->worker_hang_max = hang->count ? hang->max : NAN;
}

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

static const lw__mon_field_t heartbeat_state_fields[] = {
    LW__MON_FIELD(heartbeat_state_t, self_lag),
};

static const lw__mon_field_t liveness_state_fields[] = {
    LW__MON_FIELD(liveness_state_t, hangs),
    LW__MON_FIELD(liveness_state_t, hang),
    LW__MON_FIELD(liveness_state_t, causes),
};

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
    LW__MON_STATE(heartbeat_state_t, heartbeat_state_fields),
    .init = heartbeat_init,
    .free = heartbeat_free,
    .memory = heartbeat_memory,
    .release = heartbeat_release,
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
    LW__MON_STATE(liveness_state_t, liveness_state_fields),
    .init = liveness_init,
    .free = liveness_free,
    .memory = liveness_memory,
    .release = liveness_release,
};
