/* The monitor set's common flow (monset.h): the core's monitors run by a backend
 * (monset-internal.h: monset-sim.c on the simulation, monset-uv.c on libuv), with evidence before
 * judgment, the hand-over to the owner, and starting, stopping and finishing without loss. */
#include <stddef.h>
#include <string.h>

#include "monset-internal.h"

double lw_monset_now(const lw_monset_t *s) { return s->be->now(s); }

void lw_monset_gc(lw_monset_t *s, double start, double duration_ms) {
  /* perf_hooks' entries as they come: one that is no pause (not finite, negative) is ignored. */
  if (s->finished || !isfinite(start) || !isfinite(duration_ms) || duration_ms < 0) return;
  /* A pause that cannot be kept makes every later gcMs unknown (null), and is counted. */
  if (lw_spans_add(&s->gc, start, start + duration_ms) != LW_OK) lw_conditions_count_lost(s->c, 1);
}

int lw_monset_main_times(lw_monset_t *s, lw_thread_times_t *out) {
  return lw_monset_core_main_states(&s->core, out);
}

/* The flow ------------------------------------------------------------------------------------ */

int lw__monset_evidence(lw_monset_t *s, double now) {
  size_t before = lw_conditions_event_count(s->c);
  int got = s->be->receive(s, now);
  lw_monset_core_clock_evidence(&s->core, now, 0);
  return got || lw_conditions_event_count(s->c) != before;
}

/* driftLag and macrotaskLag slept while the loop waited (lw_monset_core_idle): what their timers
 * would have done since is caught up, the evidence applied first. The loop stopped waiting at
 * the end of its last poll (libuv's cached time, updated right after it) or, in the simulation,
 * now. Returns 1 if a due time changed; `*got` tells whether evidence or events came. */
int lw__monset_awake(lw_monset_t *s, double now, int *got) {
  double idle_end;
  *got = 0;
  if (!lw_monset_core_asleep(&s->core)) return 0;
  idle_end = s->be->idle_end(s, now);
  *got = lw__monset_evidence(s, now);
  if (idle_end > now) idle_end = now;
  return lw_monset_core_awake(&s->core, now, idle_end);
}

/* Hands events over, and the batches when `flush`; then the batches start again. */
void lw__monset_hand_over(lw_monset_t *s, int flush, int from_loop, double now) {
  if (s->owner.deliver) s->owner.deliver(s->owner.data, flush, from_loop);
  if (flush) lw_monset_core_flushed(&s->core, now);
}

/* Main-thread timers: run what is due, hand events over, flush the batches when due. */
void lw__monset_main_run(lw_monset_t *s, double now, int from_loop) {
  int flush;
  if (s->owner.read) s->owner.read(s->owner.data);
  flush = lw_monset_core_run(&s->core, now);
  lw__monset_hand_over(s, flush, from_loop, now);
}

/* The main thread's client: its timers and the evidence hook (a backend adds its run). */
static double main_next_due(lw_client_t *c) {
  return lw_monset_core_next_due(&LW_MONSET_OF(c, main_client)->core);
}
static int main_evidence_cb(lw_client_t *c, double now) {
  return lw__monset_evidence(LW_MONSET_OF(c, main_client), now);
}

/* Life cycle -------------------------------------------------------------------------------- */

int lw_monset_init(lw_monset_t *s, lw_conditions_t *c, const lw_monset_core_config_t *cfg,
                   lw_sim_t *sim, lw_uv_t *uv, const lw_monset_owner_t *owner) {
  lw_readings_t rd;
  int rc;
  memset(s, 0, sizeof(*s));
  s->be = sim ? &lw__monset_sim : &lw__monset_uv;
  s->c = c;
  /* Without its mutex no hang is ever recorded for a later process: counted as lost. */
  if (!sim && lw_hangrec_init(&s->hangs.rec) != LW_OK) lw_conditions_count_lost(c, 1);
  lw_hangline_init(&s->hangs.hangline);
  lw_atomic_store(&s->hangs.hangline_on, 0);
  lw_atomic_store(&s->rt.seen.seq, 0);
  s->sim = sim;
  if (sim) lw_sim_ref(sim); /* released by lw_monset_free(), whatever happens here */
  if (lw_conditions_disposed(c)) return LW_EDISPOSED;
  s->uv = sim ? NULL : uv;
  s->owner = *owner;
  memset(&rd, 0, sizeof(rd));
  s->be->readings(s, &rd);
  rc = lw_monset_core_init(&s->core, c, cfg, &rd);
  if (rc != LW_OK) return rc;
  s->main_client.next_due = main_next_due;
  s->main_client.evidence = main_evidence_cb;
  s->main_client.thread = LW_THREAD_MAIN;
  s->main_client.is_timer = 1;
  rc = s->be->setup(s);
  if (rc != LW_OK) return rc;
  s->registered = 1;
  return LW_OK;
}

void lw_monset_free(lw_monset_t *s) {
  lw_monset_core_free(&s->core);
  if (s->be != NULL) s->be->free(s);
  lw_hangrec_free(&s->hangs.rec); /* the worker thread is joined */
  lw__free(s->hangs.hangline_stack);
  lw_spans_free(&s->gc);
  memset(s, 0, sizeof(*s));
}

static void unregister(lw_monset_t *s) {
  if (!s->registered) return;
  s->registered = 0;
  s->be->unregister(s);
}

int lw_monset_close(lw_monset_t *s) {
  unregister(s);
  return s->be->close(s);
}

int lw_monset_registered(const lw_monset_t *s) { return s->registered; }
int lw_monset_has_handles(const lw_monset_t *s) { return s->rt.uv_ready; }
void lw_monset_stats(const lw_monset_t *s, lw_monset_core_stats_t *out) { lw_monset_core_stats(&s->core, out); }

uint64_t lw_monset_blocks_discarded(const lw_monset_t *s, uint32_t reason) {
  return lw_monset_core_blocks_discarded(&s->core, reason);
}
int lw_monset_embedded(const lw_monset_t *s) { return lw_monset_core_embedded(&s->core); }

const char *lw_monset_sleep_clock(const lw_monset_t *s) {
  if (!lw_monset_core_config(&s->core)->sleep_clock) return NULL;
  return s->be->sleep_clock(s);
}

/* Monitors ---------------------------------------------------------------------------------- */

int lw_monset_running(const lw_monset_t *s, lw_mon_t mon) {
  return lw_monset_core_running(&s->core, mon);
}

int lw_monset_start(lw_monset_t *s, lw_mon_t mon) {
  double now;
  int rc = 0;
  if (lw_conditions_disposed(s->c)) return LW_EDISPOSED;
  if ((unsigned)mon >= LW_MON_COUNT || lw_monset_core_running(&s->core, mon) || !s->registered || s->finished)
    return LW_OK;
  now = lw_monset_now(s);
  /* The worker's half is the worker thread's while it runs: change it with the thread stopped. */
  if (lw_mon_on_worker(mon)) s->be->stop_worker(s);
  lw_monset_core_start(&s->core, mon, now);
  rc = s->be->sync(s);
  if (rc != 0) {
    /* No thread (no file descriptor, a thread limit): the worker's monitors do not run. */
    int i;
    s->worker_error = rc;
    for (i = 0; i < LW_MON_COUNT; i++)
      if (lw_mon_on_worker((lw_mon_t)i)) lw_monset_core_stop(&s->core, (lw_mon_t)i, now);
    s->be->sync(s);
    return LW_ETHREAD;
  }
  return LW_OK;
}

int lw_monset_worker_error(const lw_monset_t *s) { return s->worker_error; }

/* The worker thread has stopped (nothing more comes from it): its messages that arrived are
 * received, and a block and a hang it flagged and had not yet seen end end now, since the main
 * thread runs. */
static void worker_wind_down(lw_monset_t *s, double now) {
  lw_msg_t out[2];
  size_t n;
  s->be->receive(s, now);
  n = lw_worker_finish(lw_monset_core_worker(&s->core), now, out);
  if (n == 0) return;
  s->be->receive_last(s, out, n, now);
}

void lw_monset_stop(lw_monset_t *s, lw_mon_t mon) {
  double now;
  if (!lw_monset_core_running(&s->core, mon)) return;
  lw_monset_enter(s);
  now = lw_monset_now(s);
  if (lw_mon_on_worker(mon)) {
    /* Paused while hidden, or stopped: the hang in progress is not lost (SPEC §4). */
    s->be->stop_worker(s);
    worker_wind_down(s, now);
  }
  lw_monset_core_stop(&s->core, mon, now);
  s->be->sync(s);
  /* The last stop flushes at once. */
  if (lw_monset_core_next_due(&s->core) <= now) lw__monset_main_run(s, now, 0);
}

int lw_monset_enter(lw_monset_t *s) {
  double now;
  int got, changed;
  if (s->finished) return 0;
  now = lw_monset_now(s);
  if (s->be->poll_over != NULL) s->be->poll_over(s, now);
  /* Asleep, the catch-up applies the evidence first; awake, the evidence alone. */
  changed = lw__monset_awake(s, now, &got);
  if (!changed && !got) got = lw__monset_evidence(s, now);
  if (changed) s->be->rearm(s);
  return changed || got;
}

void lw_monset_flush(lw_monset_t *s) {
  lw_monset_enter(s);
  lw__monset_hand_over(s, 1, 0, lw_monset_now(s));
}

void lw_monset_finish(lw_monset_t *s) {
  double now;
  int i, got;
  if (s->finished) return;
  s->finished = 1;
  /* The final evidence: the worker's last messages (the thread stopped, so nothing more
   * comes), then one clock reading. */
  s->be->stop_worker(s);
  now = lw_monset_now(s);
  worker_wind_down(s, now);
  lw_monset_core_clock_evidence(&s->core, now, 1);
  if (s->be->last_iteration != NULL) s->be->last_iteration(s, now);
  /* driftLag's firings while it slept, judged before the conditions go. */
  lw__monset_awake(s, now, &got);
  lw_conditions_dispose(s->c, now);
  for (i = 0; i < LW_MON_COUNT; i++) lw_monset_core_stop(&s->core, (lw_mon_t)i, now);
  s->be->sync(s);
  lw__monset_hand_over(s, 1, 0, now);
  /* Nothing runs any more: free at once what only running needed. */
  lw_monset_core_release(&s->core);
  lw_spans_free(&s->gc); /* the last causes were computed at the conditions' disposal */
  s->be->release(s);
}

const lw_batch_t *lw_monset_batch(const lw_monset_t *s, lw_mon_t mon) { return lw_monset_core_batch(&s->core, mon); }
const lw_batch_t *lw_monset_self_lag_batch(const lw_monset_t *s) { return lw_monset_core_self_lag_batch(&s->core); }

void lw_monset_keep_batches(lw_monset_t *s, int keep) { lw_monset_core_keep_batches(&s->core, keep); }
int lw_monset_batches_wanted(const lw_monset_t *s) { return lw_monset_core_batches_wanted(&s->core); }

void lw_monset_loop_time(const lw_monset_t *s, double *active_ms, double *idle_ms) {
  lw_monset_core_loop_time(&s->core, active_ms, idle_ms);
}

const lw_agg_t *lw_monset_agg(const lw_monset_t *s, lw_mon_t mon) {
  return lw_monset_core_agg(&s->core, mon);
}
const lw_agg_t *lw_monset_self_lag_agg(const lw_monset_t *s) { return lw_monset_core_self_lag_agg(&s->core); }
int lw_monset_keep_aggregates(lw_monset_t *s, int keep) { return lw_monset_core_keep_aggregates(&s->core, keep); }
void lw_monset_read_delay(const lw_monset_t *s, lw_delay_stats_t *out) {
  lw_monset_core_read_delay(&s->core, lw_monset_now(s), out);
}
int lw_monset_keep_delay(lw_monset_t *s) { return lw_monset_core_keep_delay(&s->core); }

size_t lw_monset_memory(const lw_monset_t *s) {
  return sizeof(*s) + lw_spans_memory(&s->gc) + lw_monset_core_memory(&s->core) + s->be->memory(s);
}
