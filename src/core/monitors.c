/* The monitor set on the main thread (monitors.h): its life cycle and run over the monitor table,
 * and the recorded values on their way to the metrics and JS. Each monitor is a file of its own
 * (driftlag.c, macrotasklag.c, loop.c's loopBlock, idleavailability.c, workermon.c, clockdrift.c,
 * timerthrottle.c); the lateness timers asleep while the loop waits are in asleep.c, what the
 * evidence sources outside the main thread hand over in the ev-*.c files. */
#include "monitors.h"
#include "internal.h"
#include "monitors-internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The table (monitors.h), by id: the monitors, then the evidence sources. */
static const lw__mon_desc_t *const monitors[LW_ROW_COUNT] = {
#define LW__MON_ROW(id, desc) [id] = &desc,
    LW_MONITOR_TABLE(LW__MON_ROW)
    LW_SOURCE_TABLE(LW__MON_ROW)
#undef LW__MON_ROW
};

/* One bit per monitor in the set's `asleep`. */
_Static_assert(LW_MON_COUNT <= 32, "a monitor table of at most 32 rows");

static int has_flag(lw_mon_t mon, unsigned flag) {
  return (unsigned)mon < LW_MON_COUNT && (monitors[mon]->flags & flag) != 0;
}

const char *lw_mon_name(lw_mon_t mon) { return (unsigned)mon < LW_MON_COUNT ? monitors[mon]->name : NULL; }

lw_mon_t lw_mon_parse(const char *name, size_t len) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (strlen(monitors[i]->name) == len && memcmp(monitors[i]->name, name, len) == 0) return (lw_mon_t)i;
  return LW_MON_COUNT;
}

int lw_mon_paused_while_hidden(lw_mon_t mon, int browser_process) {
  if (has_flag(mon, LW__MON_EVIDENCE)) return 0;
  return !(browser_process && has_flag(mon, LW__MON_WORKER_THREAD));
}

int lw_mon_validated(lw_mon_t mon) { return has_flag(mon, LW__MON_VALIDATED); }

int lw_mon_on_worker(lw_mon_t mon) { return has_flag(mon, LW__MON_WORKER_THREAD); }

const lw_mon_metric_t *lw_mon_metric(lw_mon_t mon) {
  return has_flag(mon, LW__MON_VALIDATED) ? &monitors[mon]->metric : NULL;
}

const lw__mon_desc_t *lw__mon_desc(lw_mon_t mon) { return monitors[mon]; }

const lw_option_row_t *lw__mon_options(lw_mon_t mon, size_t *n) {
  *n = (unsigned)mon < LW_MON_COUNT ? monitors[mon]->noptions : 0;
  return *n > 0 ? monitors[mon]->options : NULL;
}

lw_bounds_t lw_mon_bounds(lw_mon_t mon) { return has_flag(mon, LW__MON_RATIO) ? LW_BOUNDS_RATIO : LW_BOUNDS_LAG; }

void lw_monset_core_stats(const lw_monset_core_t *m, lw_monset_core_stats_t *out) {
  lw__mon_worker_stats(m, out);
  out->blocks = m->blocks.count;
  out->blocks_reported = m->blocks.reported;
  out->blocks_unreported = m->blocks.unreported;
  out->blocks_watched = m->blocks.watched;
}

uint64_t lw_monset_core_blocks_discarded(const lw_monset_core_t *m, uint32_t reason) {
  return lw_blocks_discarded_for(&m->blocks, reason);
}

/* A value that cannot join its batch is counted as lost. */
void lw__mon_batch_push(lw_monset_core_t *m, lw_batch_t *b, double value) {
  if (lw__grow((void **)&b->values, &b->cap, b->len + 1, sizeof(*b->values)) != LW_OK) {
    m->c->lost++;
    return;
  }
  b->values[b->len++] = value;
}

static void batch_record(void *data, double value, double window_ms, double end,
                         uint32_t discarded_for, double now) {
  struct lw_sink_s *s = data;
  (void)now;
  if (discarded_for != LW_REASON_NONE) return;
  if (s->m->keep_batches) lw__mon_batch_push(s->m, &s->m->batch[s->mon], value);
  if (s->m->aggs != NULL) lw_agg_record(&s->m->aggs->mon[s->mon], value);
  if (monitors[s->mon]->recorded != NULL) monitors[s->mon]->recorded(s->m, value, window_ms, end);
}

/* Evidence that cannot be stored is counted as lost. */
void lw__mon_evidence_add(lw_monset_core_t *m, double start, double end, uint32_t reason, double now) {
  if (lw_tracker_add(&m->c->tracker, start, end, reason, now) != LW_OK) m->c->lost++;
}

int lw_monset_core_main_states(const lw_monset_core_t *m, lw_thread_times_t *out) {
  lw_thread_times_t t;
  if (m->rd.main_sched == NULL || m->rd.main_sched(m->rd.data, &t) != 0) return LW_ENOENT;
  out->cpu_ms = t.cpu_ms;
  lw_split_wait(t.runq_ms, t.throttled_ms, &out->runq_ms, &out->throttled_ms);
  return LW_OK;
}

/* The block validator's verdicts (blocks.h). */
static void block_judged(void *data, double value, double window_ms, double end,
                         uint32_t discarded_for, double now) {
  lw_monset_core_t *m = data;
  lw_blocks_judged(&m->blocks, m->c, value, window_ms, end, discarded_for, now);
}

/* A hang episode about to be reported (the conditions' cause hook): the cause of the worker hang
 * it overlaps, and whether it is a block too: with blocks, a hang that holds loopBlock's sample is
 * one loop iteration's, and each report says so of the other. */
static void episode_cause(void *data, lw_event_t *ev) {
  const lw_monset_core_t *m = data;
  const lw_validator_t *loop = lw_validator_get(m->c, m->vid[LW_MON_LOOPBLOCK]);
  size_t i;
  lw__mon_hang_causes_for(m, ev);
  if (m->block_vid == UINT32_MAX || loop == NULL) return;
  for (i = 0; i < ev->nmonitors; i++)
    if (ev->monitors[i] == loop->name_id) ev->is_block = 1;
}

/* Row `i`'s slot of the states' allocation: its state's size, rounded up so that every slot is
 * aligned for any type. */
static size_t slot_size(int i) {
  const size_t align = _Alignof(max_align_t);
  return (monitors[i]->state_size + align - 1) / align * align;
}

/* Every row's state, in one zeroed allocation, each set as its own file says. */
static int states_init(lw_monset_core_t *m) {
  size_t at[LW_ROW_COUNT], total = 0;
  char *block;
  int i;
  for (i = 0; i < LW_ROW_COUNT; i++) {
    at[i] = total;
    total += slot_size(i);
  }
  if ((block = lw__calloc(1, total > 0 ? total : 1)) == NULL) return LW_ENOMEM;
  for (i = 0; i < LW_ROW_COUNT; i++) m->state[i] = block + at[i];
  for (i = 0; i < LW_ROW_COUNT; i++)
    if (monitors[i]->init != NULL && monitors[i]->init(m) != LW_OK) return LW_ENOMEM;
  return LW_OK;
}

static void states_free(lw_monset_core_t *m) {
  int i;
  if (m->state[0] == NULL) return;
  for (i = 0; i < LW_ROW_COUNT; i++)
    if (monitors[i]->free != NULL) monitors[i]->free(m);
  lw__free(m->state[0]);
}

static size_t states_memory(const lw_monset_core_t *m) {
  size_t total = 0;
  int i;
  if (m->state[0] == NULL) return 0;
  for (i = 0; i < LW_ROW_COUNT; i++)
    total += slot_size(i) + (monitors[i]->memory != NULL ? monitors[i]->memory(m) : 0);
  return total;
}

void *lw__mon_field(const lw_monset_core_t *m, lw_mon_t mon, const char *name) {
  size_t i;
  if ((unsigned)mon >= LW_ROW_COUNT) return NULL;
  for (i = 0; i < monitors[mon]->nfields; i++)
    if (strcmp(monitors[mon]->fields[i].name, name) == 0)
      return (char *)m->state[mon] + monitors[mon]->fields[i].offset;
  return NULL;
}

int lw_monset_core_init(lw_monset_core_t *m, lw_conditions_t *c, const lw_monset_core_config_t *cfg,
                     const lw_readings_t *rd) {
  int i, rc;
  memset(m, 0, sizeof(*m));
  for (i = 0; i < LW_MON_COUNT; i++) m->vid[i] = UINT32_MAX; /* no validator yet */
  m->block_vid = UINT32_MAX;
  if (!lw_monset_core_config_valid(cfg)) return LW_EINVAL;
  m->c = c;
  m->cfg = *cfg;
  m->rd = rd->main;
  m->keep_batches = 1;
  lw_worker_init(&m->worker, &m->cfg, &rd->worker);
  m->worker_may_rest = rd->worker.main_waiting != NULL;
  lw_blocks_init(&m->blocks, &m->cfg, rd->main.gc_ms, rd->main.data);
  m->flush_due = LW_NEVER;
  m->seen.last = -INFINITY;
  m->seen.resumed_at = -INFINITY;
  for (i = 0; i < 8; i++) m->seen.resumed[i] = -INFINITY;
  if (states_init(m) != LW_OK) return LW_ENOMEM;
  lw_delay_window_init(&m->delay);
  for (i = 0; i < LW_MON_COUNT; i++) {
    const char *name = monitors[i]->name;
    if (!lw_mon_validated((lw_mon_t)i)) continue;
    /* Ratios are never stalls; durations use the configured threshold. */
    rc = lw_validator_create(c, name, strlen(name),
                             has_flag((lw_mon_t)i, LW__MON_RATIO) ? INFINITY : cfg->stall_threshold_ms,
                             &m->vid[i], NULL);
    if (rc != LW_OK) return rc;
    m->sink[i].m = m;
    m->sink[i].mon = (lw_mon_t)i;
    lw_validator_set_sink(c, m->vid[i], batch_record, &m->sink[i]);
  }
  /* Blocks: loopBlock's long iterations, judged again by a validator of their own, which holds
   * each until late evidence could have come and makes no episode (blocks.h). */
  if (cfg->blocks) {
    rc = lw_validator_create(c, "block", 5, cfg->block_threshold_ms, &m->block_vid, NULL);
    if (rc != LW_OK) return rc;
    lw_validator_no_episodes(c, m->block_vid);
    lw_validator_set_sink(c, m->block_vid, block_judged, m);
  }
  lw_conditions_set_cause(c, episode_cause, m);
  return LW_OK;
}

void lw_monset_core_free(lw_monset_core_t *m) {
  int i;
  if (m->c != NULL) lw_conditions_set_cause(m->c, NULL, m);
  if (m->c != NULL && m->block_vid != UINT32_MAX) lw_validator_set_sink(m->c, m->block_vid, NULL, NULL);
  for (i = 0; i < LW_MON_COUNT; i++) {
    if (m->c != NULL && lw_mon_validated((lw_mon_t)i) && m->vid[i] != UINT32_MAX)
      lw_validator_set_sink(m->c, m->vid[i], NULL, NULL);
    lw__free(m->batch[i].values);
  }
  lw__free(m->self_lag_batch.values);
  lw_blocks_free(&m->blocks);
  lw_delay_window_free(&m->delay);
  lw__free(m->aggs);
  states_free(m);
  memset(m, 0, sizeof(*m));
}

size_t lw_monset_core_memory(const lw_monset_core_t *m) {
  size_t n = lw_blocks_memory(&m->blocks) + lw_delay_window_memory(&m->delay);
  int i;
  if (m->aggs) n += sizeof(*m->aggs);
  n += states_memory(m);
  for (i = 0; i < LW_MON_COUNT; i++) n += m->batch[i].cap * sizeof(double);
  return n + m->self_lag_batch.cap * sizeof(double);
}

void lw_monset_core_release(lw_monset_core_t *m) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) {
    lw__free(m->batch[i].values);
    memset(&m->batch[i], 0, sizeof(m->batch[i]));
  }
  lw__free(m->self_lag_batch.values);
  memset(&m->self_lag_batch, 0, sizeof(m->self_lag_batch));
  for (i = 0; i < LW_ROW_COUNT; i++)
    if (monitors[i]->release != NULL && m->state[0] != NULL) monitors[i]->release(m);
}

static int any_running(const lw_monset_core_t *m) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (m->running[i]) return 1;
  return 0;
}

/* Returns the verdict (LW_VERDICT_*), or LW_ENOMEM. */
int lw__mon_submit(lw_monset_core_t *m, lw_mon_t mon, double value, double window, double now) {
  uint64_t detail;
  int rc;
  if (value < 0) value = 0;
  if (window < 0) window = 0;
  /* The only failure left after the checks is a hold that cannot be queued. */
  rc = lw_validator_submit(m->c, m->vid[mon], value, window, now, &detail);
  if (rc == LW_ENOMEM) m->c->lost++;
  return rc;
}

void lw_monset_core_start(lw_monset_core_t *m, lw_mon_t mon, double now) {
  if ((unsigned)mon >= LW_MON_COUNT || m->running[mon]) return;
  if (!any_running(m)) m->flush_due = now + m->cfg.flush_interval_ms;
  m->running[mon] = 1;
  if (monitors[mon]->start != NULL) monitors[mon]->start(m, now);
}

void lw_monset_core_stop(lw_monset_core_t *m, lw_mon_t mon, double now) {
  if ((unsigned)mon >= LW_MON_COUNT || !m->running[mon]) return;
  if (monitors[mon]->stop != NULL) monitors[mon]->stop(m, now);
  m->running[mon] = 0;
  /* The last stop flushes what is left at once. */
  if (!any_running(m)) m->flush_due = now;
}

/* 1 if a running monitor has `flag`. */
static int any_running_with(const lw_monset_core_t *m, unsigned flag) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (m->running[i] && has_flag((lw_mon_t)i, flag)) return 1;
  return 0;
}

int lw_monset_core_worker_needed(const lw_monset_core_t *m) {
  return any_running_with(m, LW__MON_WORKER_THREAD);
}

int lw_monset_core_hooks_needed(const lw_monset_core_t *m) {
  return any_running_with(m, LW__MON_LOOP_HOOKS);
}

/* Monitor `i`'s main-thread timer, if it runs and has one armed. */
static lw__timer_t timer_of(const lw_monset_core_t *m, int i, int in_run, double *due) {
  if (!m->running[i] || monitors[i]->timer == NULL) return LW__TIMER_NONE;
  return monitors[i]->timer(m, in_run, due);
}

double lw_monset_core_next_due_late(const lw_monset_core_t *m, double late_ms) {
  double due = m->flush_due + late_ms, t;
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) {
    lw__timer_t kind = timer_of(m, i, 0, &t);
    if (kind == LW__TIMER_NONE) continue;
    if (kind == LW__TIMER_SOFT) t += late_ms;
    if (t < due) due = t;
  }
  return due;
}

double lw_monset_core_next_due(const lw_monset_core_t *m) { return lw_monset_core_next_due_late(m, 0); }

double lw_monset_core_next_due_armed(const lw_monset_core_t *m) {
  return lw_monset_core_next_due_late(m, lw_monset_core_sharing(m) ? m->share_ms : 0);
}

/* The main thread ran at `now`. A hang ends when the main thread first runs again: the worker
 * sees that only at its next check, so the main thread remembers when it resumed. */
void lw__mon_activity(lw_monset_core_t *m, double now) {
  if (now - m->seen.last >= 2 * m->cfg.liveness_interval_ms) {
    m->seen.resumed_at = now;
    m->seen.resumed[m->seen.nresumed++ % 8] = now;
  }
  m->seen.last = now;
}

int lw_monset_core_run(lw_monset_core_t *m, double now) {
  /* Timers that measure nothing of their own lateness join this run up to coalesce_ms early. */
  double soft = now + m->coalesce_ms;
  m->run_turn++;
  lw__mon_activity(m, now);
  for (;;) {
    /* The earliest due timer first (the table's order on a tie), so that a late run keeps the
     * order of reality. */
    double best = LW_NEVER, t;
    int i, which = -1;
    for (i = 0; i < LW_MON_COUNT; i++) {
      lw__timer_t kind = timer_of(m, i, 1, &t);
      if (kind != LW__TIMER_NONE && t <= (kind == LW__TIMER_SOFT ? soft : now) && t < best) {
        best = t;
        which = i;
      }
    }
    if (which < 0) break;
    monitors[which]->fire(m, now);
  }
  return m->flush_due <= soft;
}

void lw_monset_core_flushed(lw_monset_core_t *m, double now) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) m->batch[i].len = 0;
  m->self_lag_batch.len = 0;
  m->flush_due = any_running(m) ? now + m->cfg.flush_interval_ms : LW_NEVER;
}

void lw_monset_core_read_delay(const lw_monset_core_t *m, double now, lw_delay_stats_t *out) {
  lw_delay_window_read(&m->delay, now, out);
}

int lw_monset_core_keep_delay(lw_monset_core_t *m) { return lw_delay_window_keep(&m->delay); }

int lw_monset_core_keep_aggregates(lw_monset_core_t *m, int keep) {
  int i;
  if (!keep) {
    lw__free(m->aggs);
    m->aggs = NULL;
    return LW_OK;
  }
  if (m->aggs != NULL) return LW_OK;
  if ((m->aggs = lw__malloc(sizeof(*m->aggs))) == NULL) return LW_ENOMEM;
  for (i = 0; i < LW_MON_COUNT; i++)
    lw_agg_init(&m->aggs->mon[i], lw_mon_bounds((lw_mon_t)i));
  lw_agg_init(&m->aggs->self_lag, LW_BOUNDS_LAG);
  return LW_OK;
}

void lw_monset_core_keep_batches(lw_monset_core_t *m, int keep) { m->keep_batches = keep != 0; }

int lw_monset_core_batches_wanted(const lw_monset_core_t *m) {
  int i;
  if (m->keep_batches || m->self_lag_batch.len > 0) return 1;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (m->batch[i].len > 0) return 1;
  return 0;
}
