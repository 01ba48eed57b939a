/* The rules of the monitors (SPEC §6). See monitors.h for the threading contract. */
#include "monitors.h"
#include "internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const mon_names[LW_MON_COUNT] = {
    "driftLag", "macrotaskLag", "loopBlock", "idleAvailability",
    "worker",   "liveness",     "clockDrift", "timerThrottle"};

const char *lw_mon_name(lw_mon_t mon) { return (unsigned)mon < LW_MON_COUNT ? mon_names[mon] : NULL; }

lw_mon_t lw_mon_parse(const char *name, size_t len) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (strlen(mon_names[i]) == len && memcmp(mon_names[i], name, len) == 0) return (lw_mon_t)i;
  return LW_MON_COUNT;
}

int lw_mon_paused_while_hidden(lw_mon_t mon, int browser_process) {
  if (mon == LW_MON_CLOCKDRIFT || mon == LW_MON_THROTTLE) return 0;
  return !(browser_process && (mon == LW_MON_WORKER || mon == LW_MON_LIVENESS));
}

int lw_mon_validated(lw_mon_t mon) {
  return mon == LW_MON_DRIFT || mon == LW_MON_MACROTASK || mon == LW_MON_LOOPBLOCK ||
         mon == LW_MON_IDLE || mon == LW_MON_WORKER;
}

void lw_monitors_stats(const lw_monitors_t *m, lw_monitors_stats_t *out) {
  out->self_lag_count = m->self_lag_hist.count;
  out->self_lag_max = m->self_lag_hist.count ? m->self_lag_hist.max : NAN;
  out->self_lag_p99 = lw_histogram_quantile(&m->self_lag_hist, 0.99);
  out->worker_hangs = m->worker_hangs;
  out->worker_hangs_ended = m->hang_hist.count;
  out->worker_hang_max = m->hang_hist.count ? m->hang_hist.max : NAN;
}

void lw_monitors_config_default(lw_monitors_config_t *cfg, const lw_conditions_t *c) {
  cfg->drift_interval_ms = 20;
  cfg->macrotask_interval_ms = 250;
  cfg->idle_period_ms = 1000;
  cfg->worker_interval_ms = 1000;
  cfg->liveness_interval_ms = 100;
  cfg->clock_interval_ms = 1000;
  cfg->flush_interval_ms = 1000;
  cfg->suspend_min_ms = 100;
  cfg->step_min_ms = 1000;
  cfg->throttle_late_ms = 500;
  cfg->throttle_firings = 3;
  cfg->sleep_clock = 1;
  cfg->stall_threshold_ms = c ? c->cfg.stall_threshold_ms : 5000;
}

static int positive(double x) { return isfinite(x) && x > 0; }

/* The options a user may set, by their public names, with their ranges (SPEC §6). */
static const struct {
  const char *name;
  size_t offset;
  int integer; /* an int from 1 to 8; else a finite double > 0 */
} options[] = {
    {"driftLag.intervalMs", offsetof(lw_monitors_config_t, drift_interval_ms), 0},
    {"macrotaskLag.intervalMs", offsetof(lw_monitors_config_t, macrotask_interval_ms), 0},
    {"idleAvailability.intervalMs", offsetof(lw_monitors_config_t, idle_period_ms), 0},
    {"worker.intervalMs", offsetof(lw_monitors_config_t, worker_interval_ms), 0},
    {"liveness.intervalMs", offsetof(lw_monitors_config_t, liveness_interval_ms), 0},
    {"clockDrift.intervalMs", offsetof(lw_monitors_config_t, clock_interval_ms), 0},
    {"clockDrift.suspendMinMs", offsetof(lw_monitors_config_t, suspend_min_ms), 0},
    {"clockDrift.stepMinMs", offsetof(lw_monitors_config_t, step_min_ms), 0},
    {"timerThrottle.lateMs", offsetof(lw_monitors_config_t, throttle_late_ms), 0},
    {"timerThrottle.firings", offsetof(lw_monitors_config_t, throttle_firings), 1},
    {"flushIntervalMs", offsetof(lw_monitors_config_t, flush_interval_ms), 0},
};

size_t lw_monitors_option_count(void) { return sizeof(options) / sizeof(options[0]); }

const char *lw_monitors_option_name(size_t i) {
  return i < lw_monitors_option_count() ? options[i].name : NULL;
}

/* Option `i`'s range (the one place it is written). */
static int option_ok(size_t i, double value, const char **range) {
  if (options[i].integer) {
    *range = "an integer from 1 to 8";
    return value >= 1 && value <= 8 && value == floor(value);
  }
  *range = "a finite number > 0";
  return positive(value);
}

int lw_monitors_option_set(lw_monitors_config_t *cfg, size_t i, double value, const char **range) {
  char *field;
  if (i >= lw_monitors_option_count()) return LW_ENOENT;
  if (!option_ok(i, value, range)) return LW_EINVAL;
  field = (char *)cfg + options[i].offset;
  if (options[i].integer)
    *(int *)(void *)field = (int)value;
  else
    *(double *)(void *)field = value;
  return LW_OK;
}

int lw_monitors_config_valid(const lw_monitors_config_t *cfg) {
  const char *range;
  size_t i;
  for (i = 0; i < lw_monitors_option_count(); i++) {
    const char *field = (const char *)cfg + options[i].offset;
    double v = options[i].integer ? *(const int *)(const void *)field : *(const double *)(const void *)field;
    if (!option_ok(i, v, &range)) return 0;
  }
  return cfg->stall_threshold_ms > 0 && isfinite(cfg->stall_threshold_ms);
}

/* A value that cannot join its batch is counted as lost. */
static void batch_push(lw_monitors_t *m, lw_batch_t *b, double value) {
  if (lw__grow((void **)&b->values, &b->cap, b->len + 1, sizeof(*b->values)) != LW_OK) {
    m->c->lost++;
    return;
  }
  b->values[b->len++] = value;
}

static void batch_record(void *data, double value, double window_ms) {
  struct lw_sink_s *s = data;
  if (s->m->keep_batches) batch_push(s->m, &s->m->batch[s->mon], value);
  if (s->m->aggs != NULL) lw_agg_record(&s->m->aggs->mon[s->mon], value);
  if (s->mon == LW_MON_DRIFT && s->m->delay_window.buckets != NULL) {
    lw_histogram_record(&s->m->delay_window, value);
    s->m->delay_sumsq += value * value;
  }
  /* The loop's idle and active time over idleAvailability's recorded periods (SPEC §10's
   * nodejs.eventloop.time): its value is the idle share of its window. */
  if (s->mon == LW_MON_IDLE) {
    s->m->loop_idle_ms += value * window_ms;
    s->m->loop_active_ms += (1 - value) * window_ms;
  }
}

/* Evidence that cannot be stored is counted as lost. */
static void evidence_add(lw_monitors_t *m, double start, double end, uint32_t reason, double now) {
  if (lw_tracker_add(&m->c->tracker, start, end, reason, now) != LW_OK) m->c->lost++;
}

/* Hang diagnosis (SPEC §12) ---------------------------------------------------------------- */

/* A run-queue delay includes the time a cgroup's quota held the thread back: that part (at most
 * the delay itself; the cgroup's figure sums its threads and CPUs) is `*thr_out`, the rest
 * `*runq_out`, each state counted once. NAN in, NAN out. */
static void split_wait(double runq, double thr, double *runq_out, double *thr_out) {
  if (isfinite(runq) && isfinite(thr)) {
    *thr_out = thr < 0 ? 0 : thr > runq ? runq : thr;
    *runq_out = runq - *thr_out;
  } else {
    *thr_out = NAN;
    *runq_out = runq;
  }
}

int lw_monitors_main_states(const lw_monitors_t *m, lw_thread_times_t *out) {
  lw_thread_times_t t;
  if (m->rd.main_sched == NULL || m->rd.main_sched(m->rd.data, &t) != 0) return -1;
  out->cpu_ms = t.cpu_ms;
  split_wait(t.runq_ms, t.throttled_ms, &out->runq_ms, &out->throttled_ms);
  return 0;
}

/* The cause of a hang from the worker's readings of the main thread over [span_start, span_end],
 * `stopped` ms of it a stop of the whole process (no state of the thread's own). The run-queue
 * delay includes the time the cgroup's quota held the thread back: that part is `throttled`, at
 * most the run-queue delay; what is neither on a CPU nor waiting for one is `blocked`. GC is CPU
 * time of the main thread (or its wait for GC helpers): `busy` is the CPU time less GC. */
static void cause_compute(const lw_monitors_t *m, const struct lw_hang_cause_s *h, lw_cause_t *out) {
  double span = h->span_end - h->span_start - h->stopped;
  double runq = h->delta.runq_ms, thr = h->delta.throttled_ms, cpu = h->delta.cpu_ms, waited;
  double score[LW_CAUSE_COUNT], best = -1;
  int k;
  memset(out, 0, sizeof(*out));
  if (!h->known || !(span > 0) || !isfinite(cpu)) return;
  out->known = 1;
  out->span_ms = span;
  /* The readings were taken up to one check after the hang ended: nothing exceeds the span. */
  out->cpu_ms = cpu < 0 ? 0 : cpu > span ? span : cpu;
  waited = isfinite(runq) && runq > 0 ? runq : 0;
  if (waited > span - out->cpu_ms) waited = span - out->cpu_ms;
  split_wait(isfinite(runq) ? waited : NAN, thr, &out->runq_ms, &out->throttled_ms);
  out->blocked_ms = span - out->cpu_ms - waited;
  if (out->blocked_ms < 0) out->blocked_ms = 0;
  out->gc_ms = m->rd.gc_ms != NULL ? m->rd.gc_ms(m->rd.data, h->span_start, h->span_end) : NAN;
  if (isfinite(out->gc_ms) && h->gc_seen > out->gc_ms) out->gc_ms = h->gc_seen;
  score[LW_CAUSE_BUSY] = out->cpu_ms - (isfinite(out->gc_ms) ? out->gc_ms : 0);
  score[LW_CAUSE_GC] = out->gc_ms;
  score[LW_CAUSE_BLOCKED] = out->blocked_ms;
  score[LW_CAUSE_STARVED] = out->runq_ms;
  score[LW_CAUSE_THROTTLED] = out->throttled_ms;
  out->dominant = LW_CAUSE_BUSY;
  for (k = 0; k < LW_CAUSE_COUNT; k++) {
    if (isfinite(score[k]) && score[k] > best) {
      best = score[k];
      out->dominant = (lw_cause_kind_t)k;
    }
  }
}

/* A hang episode's cause: that of the worker hang that overlaps it most, its GC part read again
 * (V8's GC entries reach lagwatch a loop iteration or two after the hang). */
static void episode_cause(void *data, lw_event_t *ev) {
  const lw_monitors_t *m = data;
  const struct lw_hang_cause_s *best = NULL;
  double most = 0;
  unsigned i, n = m->nhang_causes < LW_HANG_CAUSES ? m->nhang_causes : LW_HANG_CAUSES;
  if (m->hang_causes == NULL) return;
  for (i = 0; i < n; i++) {
    const struct lw_hang_cause_s *h = &m->hang_causes[i];
    double lo = h->start > ev->start ? h->start : ev->start;
    double hi = h->end < ev->end ? h->end : ev->end;
    if (hi - lo > most) {
      most = hi - lo;
      best = h;
    }
  }
  if (best == NULL) return;
  cause_compute(m, best, &ev->cause);
  ev->hang_detected_at = best->detected_at;
}

int lw_monitors_init(lw_monitors_t *m, lw_conditions_t *c, const lw_monitors_config_t *cfg,
                     const lw_readings_t *rd) {
  int i, rc;
  memset(m, 0, sizeof(*m));
  for (i = 0; i < LW_MON_COUNT; i++) m->vid[i] = UINT32_MAX; /* no validator yet */
  if (!lw_monitors_config_valid(cfg)) return LW_EINVAL;
  m->c = c;
  m->cfg = *cfg;
  m->rd = *rd;
  m->keep_batches = 1;
  m->worker.cfg = &m->cfg;
  m->flush_due = LW_NEVER;
  m->macro_posted = INFINITY;
  m->last_activity = -INFINITY;
  m->resumed_at = -INFINITY;
  for (i = 0; i < 8; i++) m->resumed[i] = -INFINITY;
  if (lw_histogram_init(&m->self_lag_hist) != LW_OK || lw_histogram_init(&m->hang_hist) != LW_OK)
    return LW_ENOMEM;
  m->delay_window.min = INFINITY;
  m->delay_window.max = -INFINITY;
  for (i = 0; i < LW_MON_COUNT; i++) {
    const char *name = mon_names[i];
    if (!lw_mon_validated((lw_mon_t)i)) continue;
    /* Ratios are never stalls; durations use the configured threshold. */
    rc = lw_validator_create(c, name, strlen(name),
                             i == LW_MON_IDLE ? INFINITY : cfg->stall_threshold_ms, &m->vid[i], NULL);
    if (rc != LW_OK) return rc;
    m->sink[i].m = m;
    m->sink[i].mon = (lw_mon_t)i;
    lw_validator_set_sink(c, m->vid[i], batch_record, &m->sink[i]);
  }
  c->cause_fn = episode_cause;
  c->cause_data = m;
  return LW_OK;
}

void lw_monitors_free(lw_monitors_t *m) {
  int i;
  if (m->c != NULL && m->c->cause_data == m) {
    m->c->cause_fn = NULL;
    m->c->cause_data = NULL;
  }
  for (i = 0; i < LW_MON_COUNT; i++) {
    if (m->c != NULL && lw_mon_validated((lw_mon_t)i) && m->vid[i] != UINT32_MAX)
      lw_validator_set_sink(m->c, m->vid[i], NULL, NULL);
    lw__free(m->batch[i].values);
  }
  lw__free(m->self_lag_batch.values);
  lw__free(m->hang_causes);
  lw_histogram_free(&m->self_lag_hist);
  lw_histogram_free(&m->hang_hist);
  lw_histogram_free(&m->delay_window);
  lw__free(m->aggs);
  memset(m, 0, sizeof(*m));
}

void lw_monitors_release(lw_monitors_t *m) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) {
    lw__free(m->batch[i].values);
    memset(&m->batch[i], 0, sizeof(m->batch[i]));
  }
  lw__free(m->self_lag_batch.values);
  memset(&m->self_lag_batch, 0, sizeof(m->self_lag_batch));
  lw_histogram_freeze(&m->self_lag_hist);
  lw_histogram_freeze(&m->hang_hist);
  /* driftLag's last window waits for its collection (lw_monitors_take_delay frees it then). */
  m->delay_released = 1;
  if (m->delay_window.count == 0) lw_histogram_free(&m->delay_window);
}

static int any_running(const lw_monitors_t *m) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (m->running[i]) return 1;
  return 0;
}

/* Returns the verdict (LW_VERDICT_*), or LW_ENOMEM. */
static int submit(lw_monitors_t *m, lw_mon_t mon, double value, double window, double now) {
  uint64_t detail;
  int rc;
  if (value < 0) value = 0;
  if (window < 0) window = 0;
  /* The only failure left after the checks is a hold that cannot be queued. */
  rc = lw_validator_submit(m->c, m->vid[mon], value, window, now, &detail);
  if (rc == LW_ENOMEM) m->c->lost++;
  return rc;
}

static double runnable_now(const lw_monitors_t *m) {
  return m->rd.runnable ? m->rd.runnable(m->rd.data) : 0;
}

/* The time the thread was available to its loop, up to `now`: libuv's idle time in Node's loop;
 * in an embedded loop, from the switch on, every moment it was neither on a CPU nor waiting for
 * one (SPEC §6: a task preempted or held back by a quota is busy, as in Node's loop). */
static double idle_now(const lw_monitors_t *m, double now) {
  if (m->embedded)
    return m->emb_idle_base + (now - m->emb_t_base) - (runnable_now(m) - m->emb_runnable_base);
  return m->rd.idle ? m->rd.idle(m->rd.data) : 0;
}

int lw_monitors_embedded(const lw_monitors_t *m) { return m->embedded; }

/* The sleep-clock difference (inclusive - exclusive), or 0 without a pair. */
static int sleep_diff(const lw_readings_t *rd, int enabled, double *diff) {
  double a, b;
  if (!enabled || rd->sleep_pair == NULL || rd->sleep_pair(rd->data, &a, &b) != 0) return 0;
  *diff = a - b;
  return 1;
}

void lw_monitors_start(lw_monitors_t *m, lw_mon_t mon, double now) {
  lw_worker_t *w = &m->worker;
  if ((unsigned)mon >= LW_MON_COUNT || m->running[mon]) return;
  if (!any_running(m)) m->flush_due = now + m->cfg.flush_interval_ms;
  m->running[mon] = 1;
  switch (mon) {
    case LW_MON_DRIFT:
      m->drift_prev = now;
      m->drift_due = now + m->cfg.drift_interval_ms;
      m->drift_busy_prev = m->busy_total;
      m->drift_asleep = 0;
      m->drift_may_sleep = 0;
      m->throttle_late = 0;
      break;
    case LW_MON_MACROTASK:
      m->macro_due = now + m->cfg.macrotask_interval_ms;
      m->macro_posted = INFINITY;
      m->macro_asleep = 0;
      m->macro_may_sleep = 0;
      m->macro_prev = now;
      m->macro_busy_prev = m->busy_total;
      break;
    case LW_MON_LOOPBLOCK:
      m->loop_prev_t = now;
      m->loop_prev_idle = idle_now(m, now);
      break;
    case LW_MON_IDLE:
      m->idle_due = now + m->cfg.idle_period_ms;
      m->idle_prev_t = now;
      m->idle_prev_idle = idle_now(m, now);
      break;
    case LW_MON_CLOCKDRIFT:
      m->clock_due = now + m->cfg.clock_interval_ms;
      m->clock_prev_mono = now;
      m->clock_prev_wall = m->rd.wall ? m->rd.wall(m->rd.data) : now;
      m->clock_has_sleep = sleep_diff(&m->rd, m->cfg.sleep_clock, &m->clock_prev_sleep);
      break;
    case LW_MON_WORKER:
    case LW_MON_LIVENESS:
      if (!w->heartbeat_on && !w->liveness_on) {
        w->prev_fire = now;
        w->has_sleep_diff = sleep_diff(&m->rd, m->cfg.sleep_clock, &w->prev_sleep_diff);
        w->last_progress_seen = -INFINITY;
        w->last_progress_at = now;
        w->has_avail = 0;
        w->ping_sent = 0;
        w->hang_active = 0;
      }
      if (mon == LW_MON_WORKER) {
        w->heartbeat_on = 1;
        w->hb_due = now + m->cfg.worker_interval_ms;
      } else {
        w->liveness_on = 1;
        w->lv_due = now + m->cfg.liveness_interval_ms;
      }
      break;
    case LW_MON_THROTTLE:
      m->throttle_late = 0;
      break;
    default:
      break;
  }
}

static void throttle_close(lw_monitors_t *m, double now) {
  if (m->throttle_seq != 0) lw_tracker_close(&m->c->tracker, m->throttle_seq, now);
  m->throttle_seq = 0;
  m->throttle_late = 0;
}

void lw_monitors_stop(lw_monitors_t *m, lw_mon_t mon, double now) {
  if ((unsigned)mon >= LW_MON_COUNT || !m->running[mon]) return;
  /* driftLag's and macrotaskLag's firings while they slept are not lost (the driver has
   * normally caught up already, with the loop's own idle end). */
  if (mon == LW_MON_DRIFT || mon == LW_MON_MACROTASK) lw_monitors_awake(m, now, now);
  m->running[mon] = 0;
  if (mon == LW_MON_WORKER) m->worker.heartbeat_on = 0;
  if (mon == LW_MON_LIVENESS) m->worker.liveness_on = 0;
  if (mon == LW_MON_MACROTASK) m->macro_posted = INFINITY;
  if (mon == LW_MON_THROTTLE || mon == LW_MON_DRIFT) throttle_close(m, now);
  /* The last stop flushes what is left at once. */
  if (!any_running(m)) m->flush_due = now;
}

int lw_monitors_worker_needed(const lw_monitors_t *m) {
  return m->running[LW_MON_WORKER] || m->running[LW_MON_LIVENESS];
}

double lw_monitors_next_due(const lw_monitors_t *m) {
  double due = m->flush_due;
#define LW__MIN_IF(on, t) \
  if ((on) && (t) < due) due = (t)
  LW__MIN_IF(m->running[LW_MON_DRIFT] && !m->drift_asleep, m->drift_due);
  LW__MIN_IF(m->running[LW_MON_MACROTASK] && !m->macro_asleep,
             m->macro_posted != INFINITY ? m->macro_posted : m->macro_due);
  LW__MIN_IF(m->running[LW_MON_IDLE], m->idle_due);
  LW__MIN_IF(m->running[LW_MON_CLOCKDRIFT], m->clock_due);
#undef LW__MIN_IF
  return due;
}

/* Linux (SPEC §12): a late firing of an idle loop is starvation, not timer throttling, when the
 * main thread waited on a run queue for half the time or more since the previous late firing. Read
 * at late firings only (at most a few a second, and only while they come late). */
static int throttle_starved(lw_monitors_t *m, double now) {
  lw_thread_times_t t;
  int starved;
  if (m->rd.main_sched == NULL || m->rd.main_sched(m->rd.data, &t) != 0 || !isfinite(t.runq_ms)) {
    m->throttle_has_runq = 0;
    return 0;
  }
  starved = m->throttle_has_runq && t.runq_ms - m->throttle_runq >= (now - m->throttle_runq_at) / 2;
  m->throttle_runq = t.runq_ms;
  m->throttle_runq_at = now;
  m->throttle_has_runq = 1;
  return starved;
}

/* timerThrottle (SPEC §6): driftLag late by throttle_late_ms on throttle_firings consecutive
 * firings while loopBlock saw the loop idle over those windows: the OS held the timers. A window
 * counts as idle when the loop was busy for less than half of the lateness: a blocked loop is
 * busy for about as long as its timers are late. */
static void throttle_check(lw_monitors_t *m, double lateness, double ws, double busy, double now) {
  int late = lateness >= m->cfg.throttle_late_ms;
  int idle = m->running[LW_MON_LOOPBLOCK] && busy < lateness / 2;
  if (!m->running[LW_MON_THROTTLE]) return;
  if (m->throttle_seq != 0) {
    if (!late) throttle_close(m, now);
    return;
  }
  if (!(late && idle)) {
    m->throttle_late = 0;
    return;
  }
  if (throttle_starved(m, now)) {
    m->throttle_late = 0; /* starvation (SPEC §12) is no timer throttling */
    return;
  }
  if (m->throttle_late++ == 0) m->throttle_first_ws = ws;
  if (m->throttle_late >= m->cfg.throttle_firings) {
    uint64_t seq;
    if (lw_tracker_open(&m->c->tracker, LW_REASON_THROTTLED, m->throttle_first_ws, 0, &seq) ==
        LW_OK)
      m->throttle_seq = seq;
    else
      m->c->lost++;
  }
}

/* The loop's busy time up to `now`, counting the iteration in progress. */
static double busy_until(const lw_monitors_t *m, double now) {
  double b = m->busy_total;
  if (m->running[LW_MON_LOOPBLOCK]) {
    double part = (now - m->loop_prev_t) - (idle_now(m, now) - m->loop_prev_idle);
    if (part > 0) b += part;
  }
  return b;
}

/* A timer may sleep while the loop waits once a firing came on time (`late`) over a window in
 * which the loop mostly waited: a busy loop may wait at every iteration (a poll for I/O that is
 * already there), and sleeping then would only add work to each iteration. */
static int may_sleep(double late, double busy, double window) {
  return late < LW_SLEEP_LATE_MS && busy < window / 2;
}

static void drift_fire(lw_monitors_t *m, double now) {
  double lateness = now - m->drift_due;
  double ws = m->drift_prev;
  double busy = busy_until(m, now);
  if (lateness < 0) lateness = 0;
  submit(m, LW_MON_DRIFT, lateness, now - ws, now);
  throttle_check(m, lateness, ws, busy - m->drift_busy_prev, now);
  m->drift_may_sleep = may_sleep(lateness, busy - m->drift_busy_prev, now - ws);
  m->drift_busy_prev = busy;
  m->drift_prev = now;
  m->drift_due = now + m->cfg.drift_interval_ms;
}

/* macrotaskLag's task ran at `now`, `delay` after it was queued: a window ends. */
static void macro_window_end(lw_monitors_t *m, double delay, double now) {
  double busy = busy_until(m, now);
  m->macro_may_sleep = may_sleep(delay, busy - m->macro_busy_prev, now - m->macro_prev);
  m->macro_busy_prev = busy;
  m->macro_prev = now;
}

int lw_monitors_idle(lw_monitors_t *m, double now) {
  double before = lw_monitors_next_due(m);
  if (m->embedded) return 0;
  /* An overdue firing (the loop was busy past it) is a real one, late. */
  if (!m->drift_asleep && m->running[LW_MON_DRIFT] && m->drift_may_sleep && m->throttle_seq == 0 &&
      m->drift_due > now)
    m->drift_asleep = 1;
  /* macrotaskLag's task, queued while the loop waits, runs at once: its delay is 0. Not while a
   * task waits (it runs in this very turn) or the interval is due, nor on a busy loop. */
  if (!m->macro_asleep && m->running[LW_MON_MACROTASK] && m->macro_may_sleep &&
      m->macro_posted == INFINITY && m->macro_due > now)
    m->macro_asleep = 1;
  return lw_monitors_next_due(m) != before;
}

/* macrotaskLag's timer, asleep while the loop waited, fired at `t`: the task it queued then ran
 * at once (the loop was waiting), 0 late; the next interval counts from then. */
static void macro_caught_up(lw_monitors_t *m, double t) {
  submit(m, LW_MON_MACROTASK, 0, 0, t);
  macro_window_end(m, 0, t);
  m->macro_due = t + m->cfg.macrotask_interval_ms;
}

/* A stop the evidence shows at `t` or up to one of the worker's checks after it (an interval
 * begins where the worker saw the process stopped, which may be that much after the stop began;
 * while the loop waited, the worker rested: a worker interval): the process did not run, and a
 * timer due then fired when it ran again. A suspend delays timers only where the monotonic clock
 * counts it (macOS, Windows); on Linux it stands still. */
static int stopped_near(lw_monitors_t *m, double t, double now, lw_interval_t *iv) {
  double u = m->cfg.worker_interval_ms;
  if (m->running[LW_MON_LIVENESS] &&
      (m->rd.main_waiting == NULL || m->cfg.liveness_interval_ms > u))
    u = m->cfg.liveness_interval_ms;
  return (m->rd.mono_includes_sleep &&
          lw_tracker_find(&m->c->tracker, t, t + u, LW_REASON_SUSPEND, now, iv)) ||
         lw_tracker_find(&m->c->tracker, t, t + u, LW_REASON_PAUSE, now, iv);
}


int lw_monitors_awake(lw_monitors_t *m, double now, double idle_end) {
  double wake_due, until;
  int drift = m->drift_asleep, macro = m->macro_asleep;
  lw_interval_t iv;
  if (!drift && !macro) return 0;
  /* The armed timer's due: the loop woke up by then at the latest, unless it was held. */
  wake_due = lw_monitors_next_due(m);
  m->drift_asleep = 0;
  m->macro_asleep = 0;
  if (idle_end > now) idle_end = now;
  if (idle_end - wake_due >= LW_STOP_MIN_MS) {
    /* The wake-up was held (a stop, starvation, timers throttled): so were the timers, from when
     * the loop began to wait at the latest, as the real ones would have been. macrotaskLag's
     * fires in the run that follows (its due has passed): its task is queued then. */
    if (drift) drift_fire(m, now);
    return 1;
  }
  /* The loop ran on time: no gap in its activity (activity() would see one after each wait). */
  m->last_activity = now;
  until = idle_end < wake_due ? idle_end : wake_due;
  /* Each due time up to the wake-up fired on time, unless a stop covers it: then when the
   * process ran again. */
  while (drift && m->drift_due <= until) {
    double due = m->drift_due;
    if (stopped_near(m, due, now, &iv))
      drift_fire(m, iv.end < now ? iv.end : now);
    else
      drift_fire(m, due);
  }
  if (drift && m->drift_due <= now) drift_fire(m, now);
  while (macro && m->macro_due <= until) {
    double due = m->macro_due;
    macro_caught_up(m, stopped_near(m, due, now, &iv) ? (iv.end < now ? iv.end : now) : due);
  }
  return 1;
}

/* macrotaskLag: every interval a zero-delay task is queued (its due time is the time it was
 * queued: the driver runs it at its next turn); its delay is the sample. */
static void macrotask_fire(lw_monitors_t *m, double now) {
  if (m->macro_posted == INFINITY) {
    m->macro_posted = now;
    m->macro_turn = m->run_turn;
    return;
  }
  submit(m, LW_MON_MACROTASK, now - m->macro_posted, now - m->macro_posted, now);
  macro_window_end(m, now - m->macro_posted, now);
  m->macro_posted = INFINITY;
  m->macro_due = now + m->cfg.macrotask_interval_ms;
}

static void idle_fire(lw_monitors_t *m, double now) {
  double idle = idle_now(m, now);
  double span = now - m->idle_prev_t;
  double share = span > 0 ? (idle - m->idle_prev_idle) / span : 1;
  if (share < 0) share = 0;
  if (share > 1) share = 1;
  submit(m, LW_MON_IDLE, share, span, now);
  m->idle_prev_t = now;
  m->idle_prev_idle = idle;
  m->idle_due = now + m->cfg.idle_period_ms;
}

static void jump(lw_monitors_t *m, lw_jump_t kind, double at, double delta) {
  lw_event_t *ev;
  m->c->jumps[kind]++;
  ev = lw__event_push(m->c, LW_EVENT_JUMP, at);
  if (ev) {
    ev->jump = kind;
    ev->duration_ms = delta;
  }
}

/* clockDrift (SPEC §6): sleep = growth of (inclusive - exclusive); d = Δwall - Δmonotonic, less
 * the sleep where the monotonic clock excludes it. */
static void clock_fire(lw_monitors_t *m, double now) {
  double wall = m->rd.wall ? m->rd.wall(m->rd.data) : now;
  double dmono = now - m->clock_prev_mono;
  double dwall = wall - m->clock_prev_wall;
  double cur = 0, sleep;
  int has = sleep_diff(&m->rd, m->cfg.sleep_clock, &cur);
  if (has && m->clock_has_sleep) {
    sleep = cur - m->clock_prev_sleep;
    double d = dwall - dmono - (m->rd.mono_includes_sleep ? 0 : sleep);
    if (sleep >= m->cfg.suspend_min_ms) {
      jump(m, LW_JUMP_SUSPEND, now, sleep);
      evidence_add(m, m->clock_prev_mono, now, LW_REASON_SUSPEND, now);
    } else if (fabs(d) >= m->cfg.step_min_ms) {
      jump(m, LW_JUMP_STEP, now, d);
    }
  } else if (!has) {
    /* The seed's rule without a sleep clock: a forward jump is a suspend. */
    double d = dwall - dmono;
    if (d >= m->cfg.step_min_ms) {
      jump(m, LW_JUMP_SUSPEND, now, d);
      evidence_add(m, m->clock_prev_mono, now, LW_REASON_SUSPEND, now);
    } else if (d <= -m->cfg.step_min_ms) {
      jump(m, LW_JUMP_STEP, now, d);
    }
  }
  m->clock_prev_mono = now;
  m->clock_prev_wall = wall;
  m->clock_prev_sleep = cur;
  m->clock_has_sleep = has;
  m->clock_due = now + m->cfg.clock_interval_ms;
}

void lw_monitors_evidence(lw_monitors_t *m, double now, int force) {
  if (m->running[LW_MON_CLOCKDRIFT] && (force || m->clock_due <= now + m->coalesce_ms)) clock_fire(m, now);
}

/* The main thread ran at `now`. A hang ends when the main thread first runs again: the worker
 * sees that only at its next check, so the main thread remembers when it resumed. */
static void activity(lw_monitors_t *m, double now) {
  if (now - m->last_activity >= 2 * m->cfg.liveness_interval_ms) {
    m->resumed_at = now;
    m->resumed[m->nresumed++ % 8] = now;
  }
  m->last_activity = now;
}

int lw_monitors_run(lw_monitors_t *m, double now) {
  /* Timers that measure nothing of their own lateness join this run up to coalesce_ms early. */
  double soft = now + m->coalesce_ms;
  m->run_turn++;
  activity(m, now);
  for (;;) {
    /* The earliest due timer first, so that a late run keeps the order of reality. */
    double best = LW_NEVER;
    int which = -1;
#define LW__PICK(id, on, t, by) \
  if ((on) && (t) <= (by) && (t) < best) { best = (t); which = (id); }
    LW__PICK(LW_MON_DRIFT, m->running[LW_MON_DRIFT] && !m->drift_asleep, m->drift_due, now);
    /* A task queued in this run waits for the next turn of the loop. */
    LW__PICK(LW_MON_MACROTASK,
             m->running[LW_MON_MACROTASK] && !m->macro_asleep &&
                 !(m->macro_posted != INFINITY && m->macro_turn == m->run_turn),
             m->macro_posted != INFINITY ? m->macro_posted : m->macro_due,
             m->macro_posted != INFINITY ? now : soft);
    LW__PICK(LW_MON_IDLE, m->running[LW_MON_IDLE], m->idle_due, soft);
    LW__PICK(LW_MON_CLOCKDRIFT, m->running[LW_MON_CLOCKDRIFT], m->clock_due, soft);
#undef LW__PICK
    if (which < 0) break;
    switch (which) {
      case LW_MON_DRIFT: drift_fire(m, now); break;
      case LW_MON_MACROTASK: macrotask_fire(m, now); break;
      case LW_MON_IDLE: idle_fire(m, now); break;
      default: clock_fire(m, now); break;
    }
  }
  return m->flush_due <= soft;
}

void lw_monitors_flushed(lw_monitors_t *m, double now) {
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) m->batch[i].len = 0;
  m->self_lag_batch.len = 0;
  m->flush_due = any_running(m) ? now + m->cfg.flush_interval_ms : LW_NEVER;
}

/* Recognises a loop run from outside: the idle reading goes on from where libuv's left it, the
 * time outside libuv that showed it counted as idle already. */
static void loop_model(lw_monitors_t *m, double now, double outside_ms) {
  if (m->embedded || m->rd.runnable == NULL || !(outside_ms >= LW_OUTSIDE_MIN_MS)) return;
  if (++m->outside_seen < LW_OUTSIDE_ITERATIONS) return;
  m->emb_idle_base = idle_now(m, now) + outside_ms;
  m->emb_t_base = now;
  m->emb_runnable_base = runnable_now(m);
  m->embedded = 1;
}

void lw_monitors_take_delay(lw_monitors_t *m, lw_delay_stats_t *out) {
  const lw_histogram_t *h = &m->delay_window;
  double mean = lw_histogram_mean(h);
  out->count = h->count;
  out->min = h->count ? h->min : NAN;
  out->max = h->count ? h->max : NAN;
  out->mean = mean;
  out->stddev = h->count ? sqrt(fmax(0, m->delay_sumsq / (double)h->count - mean * mean)) : NAN;
  out->p50 = lw_histogram_quantile(h, 0.5);
  out->p90 = lw_histogram_quantile(h, 0.9);
  out->p99 = lw_histogram_quantile(h, 0.99);
  lw_histogram_reset(&m->delay_window);
  m->delay_sumsq = 0;
  if (m->delay_released) lw_histogram_free(&m->delay_window);
}

int lw_monitors_keep_delay(lw_monitors_t *m) {
  if (m->delay_window.buckets != NULL || m->delay_released) return LW_OK;
  return lw_histogram_init(&m->delay_window);
}

int lw_monitors_keep_aggregates(lw_monitors_t *m, int keep) {
  int i;
  if (!keep) {
    lw__free(m->aggs);
    m->aggs = NULL;
    return LW_OK;
  }
  if (m->aggs != NULL) return LW_OK;
  if ((m->aggs = lw__malloc(sizeof(*m->aggs))) == NULL) return LW_ENOMEM;
  for (i = 0; i < LW_MON_COUNT; i++) lw_agg_init(&m->aggs->mon[i], i == LW_MON_IDLE ? LW_BOUNDS_RATIO : LW_BOUNDS_LAG);
  lw_agg_init(&m->aggs->self_lag, LW_BOUNDS_LAG);
  return LW_OK;
}

void lw_monitors_keep_batches(lw_monitors_t *m, int keep) { m->keep_batches = keep != 0; }

int lw_monitors_batches_wanted(const lw_monitors_t *m) {
  int i;
  if (m->keep_batches || m->self_lag_batch.len > 0) return 1;
  for (i = 0; i < LW_MON_COUNT; i++)
    if (m->batch[i].len > 0) return 1;
  return 0;
}

int lw_monitors_iteration(lw_monitors_t *m, double now, double outside_ms) {
  double idle, busy;
  int embedded = m->embedded;
  activity(m, now);
  loop_model(m, now, outside_ms);
  if (!m->running[LW_MON_LOOPBLOCK]) return m->embedded != embedded;
  idle = idle_now(m, now);
  busy = (now - m->loop_prev_t) - (idle - m->loop_prev_idle);
  if (busy < 0) busy = 0;
  m->busy_total += busy;
  m->loop_prev_t = now;
  m->loop_prev_idle = idle;
  /* A sample recorded at once changes no due time; a held or discarded one may. */
  return submit(m, LW_MON_LOOPBLOCK, busy, busy, now) != LW_VERDICT_RECORDED || m->embedded != embedded;
}

/* The end of a stop the worker saw. The worker notices a stop only when it runs again, a little
 * after the process resumed; the main thread resumed at the same moment and may already have
 * started new work. The process cannot have been stopped at a moment the main thread ran, so
 * the stop ends at the main thread's first run after it, if that came before the worker's: the
 * app's own work right after the stop is then judged on its own. */
static double stop_end(const lw_monitors_t *m, const lw_msg_t *msg) {
  double end = msg->ev_end;
  unsigned i;
  for (i = 0; i < 8; i++)
    if (m->resumed[i] > msg->ev_start && m->resumed[i] < end) end = m->resumed[i];
  return end;
}

/* One message, after the evidence of every message received with it is in the tracker. */
static void receive_one(lw_monitors_t *m, const lw_msg_t *msg, double now) {
  lw_event_t *ev;
  struct lw_hang_cause_s *h, spare;
  double end;
  switch (msg->type) {
    case LW_MSG_HEARTBEAT:
      lw_histogram_record(&m->self_lag_hist, msg->self_lag);
      if (m->aggs != NULL) lw_agg_record(&m->aggs->self_lag, msg->self_lag);
      if (m->keep_batches) batch_push(m, &m->self_lag_batch, msg->self_lag);
      m->self_lag_last = msg->self_lag;
      m->self_lag_count++;
      if (m->running[LW_MON_WORKER])
        submit(m, LW_MON_WORKER, now - msg->sent_at, now - msg->sent_at, now);
      break;
    case LW_MSG_HANG_START:
      m->worker_hangs++;
      break;
    case LW_MSG_HANG_END:
      end = m->resumed_at >= msg->detected_at && m->resumed_at <= msg->hang_end ? m->resumed_at
                                                                               : msg->hang_end;
      lw_histogram_record(&m->hang_hist, end - msg->hang_start);
      if (m->hang_causes == NULL &&
          (m->hang_causes = lw__calloc(LW_HANG_CAUSES, sizeof(*m->hang_causes))) == NULL) {
        /* The worker hang keeps its cause; the episode will not find it (counted as lost). */
        m->c->lost++;
        h = &spare;
      } else {
        h = &m->hang_causes[m->nhang_causes++ % LW_HANG_CAUSES];
      }
      h->start = msg->hang_start;
      h->end = end;
      h->detected_at = msg->detected_at;
      /* Readings that began after the hang ended (the worker itself could not run during it)
       * say nothing about it: the cause is unknown. */
      h->known = msg->cause_known && end > msg->cause_start;
      h->delta = msg->cause_delta;
      h->span_start = msg->cause_start;
      /* The hang ended when the main thread ran again: what the readings saw after it (up to one
       * check interval of the loop's own) is no part of the hang's span. */
      h->span_end = end > msg->cause_start && end < msg->cause_end ? end : msg->cause_end;
      h->stopped = msg->cause_stopped;
      h->gc_seen = NAN;
      ev = lw__event_push(m->c, LW_EVENT_WORKER_HANG, now);
      if (ev) {
        ev->start = msg->hang_start;
        ev->end = end;
        ev->detected_at = msg->detected_at;
        ev->duration_ms = end - msg->hang_start;
        cause_compute(m, h, &ev->cause);
        h->gc_seen = ev->cause.gc_ms;
      }
      break;
    case LW_MSG_EVIDENCE:
      break;
    case LW_MSG_PING:
      break;
  }
}

void lw_monitors_receive(lw_monitors_t *m, const lw_msg_t *msgs, size_t n, double now) {
  size_t i;
  if (n == 0) return;
  activity(m, now);
  /* Evidence first (SPEC §4): every interval these messages carry is in the tracker before any
   * sample, the heartbeats' own included, is judged. */
  for (i = 0; i < n; i++)
    if ((msgs[i].type == LW_MSG_HEARTBEAT || msgs[i].type == LW_MSG_EVIDENCE) &&
        msgs[i].ev_reason != LW_REASON_ANY)
      evidence_add(m, msgs[i].ev_start, stop_end(m, &msgs[i]), msgs[i].ev_reason, now);
  for (i = 0; i < n; i++) receive_one(m, &msgs[i], now);
}

/* Worker thread -------------------------------------------------------------------------- */

double lw_worker_next_due(const lw_worker_t *w) {
  double due = LW_NEVER;
  if (w->heartbeat_on) due = w->hb_due;
  if (w->liveness_on && w->lv_due < due) due = w->lv_due;
  return due;
}

/* Linux (SPEC §12): judges the worker's own lateness from the growth of its run-queue delay
 * since its baseline: a stop (the whole process was not running: SIGSTOP, a freezer, a VM pause)
 * if it waited for a CPU less than half that time, else starvation. Returns 1 and sets
 * `*stopped` when judged; 0 when the platform cannot tell (the seed's rule decides). Refreshes
 * the baseline every LW_SELF_BASE_MS and at each judgement, so a healthy worker reads its
 * schedstat about once a second. */
static int judge_lateness(lw_worker_t *w, double now, double late, const lw_readings_t *rd,
                          int *stopped) {
  lw_thread_times_t s;
  int judged = 0;
  if (rd->self_sched == NULL) return 0;
  if (late < LW_STOP_MIN_MS && w->self_has_base && now - w->self_base_at < LW_SELF_BASE_MS)
    return 0;
  if (rd->self_sched(rd->data, &s) != 0 || !isfinite(s.runq_ms)) {
    w->self_has_base = 0;
    return 0;
  }
  if (w->self_has_base && late >= LW_STOP_MIN_MS) {
    *stopped = s.runq_ms - w->self_base.runq_ms < late / 2;
    judged = 1;
  }
  w->self_base = s;
  w->self_base_at = now;
  w->self_has_base = 1;
  return judged;
}

/* The main thread's times at `now`, if they can be read. */
static int main_sched(const lw_readings_t *rd, lw_thread_times_t *out) {
  return rd->main_sched != NULL && rd->main_sched(rd->data, out) == 0;
}

/* Reads the cause's baseline at `now`, at a rest (`at_rest`: the main loop waits) or at a check
 * without progress; a baseline already held stays if the reading fails. */
static void cause_base_read(lw_worker_t *w, const lw_readings_t *rd, double now, int at_rest) {
  lw_thread_times_t base;
  if (!main_sched(rd, &base)) return;
  w->cause_base = base;
  w->cause_has_base = 1;
  w->cause_base_at = now;
  w->cause_stopped = 0;
  w->cause_at_rest = at_rest;
  w->cause_avail = now;
  w->cause_busy = rd->main_busy != NULL ? rd->main_busy(rd->data) : NAN;
}

/* A baseline read at a rest stays while the loop has since only waited, or run short iterations
 * between waits (less than LW_REST_BUSY_MS in all: a write's completion, a timer): the span then
 * starts where the loop last waited, `avail_at`, less the time it ran since the baseline, whose
 * CPU the times include. A stop seen so far came before (a poll's wait lasted through it) and is
 * no part of the span. Without a reading of the loop's busy time, iterations (`progressed`)
 * cannot be bounded: the baseline is read again at the next check without progress. */
static int rest_base_holds(lw_worker_t *w, const lw_readings_t *rd, int progressed,
                           double avail_at) {
  double busy = 0;
  if (!w->cause_has_base || !w->cause_at_rest || w->hang_active) return 0;
  if (progressed) {
    busy = rd->main_busy != NULL ? rd->main_busy(rd->data) - w->cause_busy : NAN;
    if (!(busy < LW_REST_BUSY_MS)) return 0;
    if (busy < 0) busy = 0;
  }
  w->cause_avail = avail_at - busy;
  w->cause_stopped = 0;
  return 1;
}

/* The hang in progress ended: the main thread showed progress at `progress`. */
static void hang_end(lw_worker_t *w, double now, double progress, const lw_readings_t *rd,
                     lw_msg_t *o) {
  lw_thread_times_t end;
  memset(o, 0, sizeof(*o));
  o->type = LW_MSG_HANG_END;
  o->hang_start = w->hang_start;
  o->detected_at = w->hang_detected;
  o->hang_end = progress > w->hang_start ? progress : now;
  if (w->cause_has_base && main_sched(rd, &end)) {
    o->cause_known = 1;
    o->cause_delta.cpu_ms = end.cpu_ms - w->cause_base.cpu_ms;
    o->cause_delta.runq_ms = end.runq_ms - w->cause_base.runq_ms;
    o->cause_delta.throttled_ms = end.throttled_ms - w->cause_base.throttled_ms;
    o->cause_start = w->cause_at_rest && w->cause_avail > w->cause_base_at ? w->cause_avail
                                                                          : w->cause_base_at;
    o->cause_end = now;
    o->cause_stopped = w->cause_stopped;
  }
  w->hang_active = 0;
}

size_t lw_worker_finish(lw_worker_t *w, double now, const lw_readings_t *rd, lw_msg_t *out) {
  if (!w->hang_active) return 0;
  hang_end(w, now, now, rd, out);
  w->cause_has_base = 0;
  return 1;
}

size_t lw_worker_run(lw_worker_t *w, double now, double progress, const lw_readings_t *rd,
                     lw_msg_t *out) {
  const lw_monitors_config_t *cfg = w->cfg;
  double due = lw_worker_next_due(w);
  double self_lag = now - due, cur = 0, slept = 0;
  double threshold = cfg->stall_threshold_ms, slack;
  size_t n = 0;
  int has, stopped = 0, evidence_sent = 0;
  if (due > now) return 0;
  if (self_lag < 0) self_lag = 0;
  /* Where the OS cannot tell a stop from starvation, the seed's rule: a lateness at the
   * threshold is a stop. The worker cannot tell a stop that began while it waited for its timer
   * from the wait itself: a process stopped just after the worker ran is late on the worker's
   * timer by up to one period less than on the main thread's. So its lateness counts as a stop
   * from one period (at most half the threshold) below the threshold, and the main thread's
   * samples of the same stop find the evidence. */
  slack = due - w->prev_fire;
  if (slack > threshold / 2) slack = threshold / 2;
  if (slack < 0) slack = 0;
  if (!judge_lateness(w, now, self_lag, rd, &stopped)) stopped = self_lag >= threshold - slack;
  has = sleep_diff(rd, cfg->sleep_clock, &cur);
  if (has && w->has_sleep_diff) slept = cur - w->prev_sleep_diff;
  w->prev_sleep_diff = cur;
  w->has_sleep_diff = has;
  w->prev_fire = now;

  /* A stop is not the app's: the hang clock does not count it (a hang in progress starts that
   * much later, progress is as recent as it was before the stop), nor does the cause's span. */
  if (stopped) {
    if (w->last_progress_at > -INFINITY) {
      w->last_progress_at += self_lag;
      if (w->last_progress_at > now) w->last_progress_at = now;
    } else {
      w->last_progress_at = now;
    }
    if (w->hang_active) w->hang_start += self_lag;
    if (w->cause_has_base) w->cause_stopped += self_lag;
  }

  if (w->liveness_on && w->lv_due <= now) {
    double next, at;
    int fresh = 0, progressed = 0;
    int waited = 0;
    int rest;
    double avail_at = -INFINITY;
    /* The main loop waiting in its poll is available, not hung, though it shows no progress
     * (its progress stamp is set before each poll): the last moment it was seen waiting, if it
     * moved since the previous check, is when it last was available (exactly when it stopped
     * waiting, if it then stayed busy): no hang began before. */
    if (rd->main_avail != NULL) {
      double avail = rd->main_avail(rd->data);
      if (w->has_avail && isfinite(avail) && avail > w->avail_prev) {
        double a = avail > now ? now : avail;
        if (!w->hang_active && a > w->last_progress_at) w->last_progress_at = a;
        avail_at = a;
        waited = 1;
      }
      w->has_avail = isfinite(avail);
      w->avail_prev = avail;
    }
    if (progress != w->last_progress_seen) {
      fresh = progressed = 1;
      w->last_progress_seen = progress;
      if (progress > w->last_progress_at) w->last_progress_at = progress;
      w->ping_sent = 0;
      if (!waited || !rest_base_holds(w, rd, 1, avail_at)) {
        if (w->hang_active) hang_end(w, now, progress, rd, &out[n++]);
        w->cause_has_base = 0;
      }
    } else if (waited) {
      fresh = 1; /* waiting: nothing to watch, nothing to wake */
      w->ping_sent = 0;
      if (w->hang_active) {
        /* The loop waited again: the main thread ran and reached its poll, its progress stamp
         * not read yet (the driver writes the wait first, and this check read the stamp before
         * it: a worker held back between its two reads). The hang ended there, with its cause. */
        hang_end(w, now, avail_at, rd, &out[n++]);
        w->cause_has_base = 0;
        if (avail_at > w->last_progress_at) w->last_progress_at = avail_at;
      } else if (!rest_base_holds(w, rd, 0, avail_at)) {
        w->cause_has_base = 0;
      }
    }
    /* No progress over a whole check, or a progress stamp already a threshold old (the worker
     * itself could not run for that long): perhaps a hang. */
    if (!fresh || (!w->hang_active && now - w->last_progress_at >= cfg->stall_threshold_ms)) {
      /* The cause's baseline is read once, here; a healthy loop, which shows progress at every
       * check, reads nothing. */
      if (!w->cause_has_base) cause_base_read(w, rd, now, 0);
      if (!w->hang_active && now - w->last_progress_at >= cfg->stall_threshold_ms) {
        lw_msg_t *o = &out[n++];
        w->hang_active = 1;
        w->hang_start = w->last_progress_at;
        w->hang_detected = now;
        memset(o, 0, sizeof(*o));
        o->type = LW_MSG_HANG_START;
        o->hang_start = w->hang_start;
        o->detected_at = now;
      } else if (!w->ping_sent && now - w->last_progress_at >= cfg->stall_threshold_ms / 4) {
        /* An idle main loop shows no progress until something wakes it. */
        lw_msg_t *o = &out[n++];
        memset(o, 0, sizeof(*o));
        o->type = LW_MSG_PING;
        w->ping_sent = 1;
      }
    }
    /* The next check: every interval, and exactly when the hang threshold (or the ping) would
     * be reached, so that a hang is flagged at the threshold, not up to an interval later. When
     * the main loop showed it was available and waits now, no hang can begin before it stops
     * waiting, and when it stopped is read at the next check, whenever that is: the worker rests,
     * its interval then the worker's, or up to its heartbeat (the one of this run, if due, is a
     * worker interval away). */
    rest = fresh && !w->hang_active && now - w->last_progress_at < cfg->stall_threshold_ms / 4 &&
           rd->main_waiting != NULL && rd->main_waiting(rd->data);
    next = now + (rest ? cfg->worker_interval_ms : cfg->liveness_interval_ms);
    if (rest && w->heartbeat_on && w->hb_due > now && w->hb_due < next) next = w->hb_due;
    if (!w->hang_active) {
      at = w->last_progress_at + cfg->stall_threshold_ms;
      if (at > now && at < next) next = at;
      at = w->last_progress_at + cfg->stall_threshold_ms / 4;
      if (!w->ping_sent && at > now && at < next) next = at;
    }
    w->lv_due = next;
    /* A hang that begins during the rest is first seen up to a rest later: the cause's baseline
     * is read now, while the main thread waits (once per progress of the loop: at most once a
     * worker interval), and kept while the loop only waits or runs short iterations
     * (rest_base_holds): a baseline kept through the last rest is read again, so that what the
     * loop ran since it never adds up over rests. */
    if (rest && (!w->cause_has_base || progressed)) cause_base_read(w, rd, now, 1);
  }

  if (w->heartbeat_on && w->hb_due <= now) {
    lw_msg_t *o = &out[n++];
    memset(o, 0, sizeof(*o));
    o->type = LW_MSG_HEARTBEAT;
    o->sent_at = now;
    o->self_lag = self_lag;
    o->ev_reason = LW_REASON_ANY;
    if (stopped) {
      o->ev_reason = slept >= cfg->suspend_min_ms ? LW_REASON_SUSPEND : LW_REASON_PAUSE;
      o->ev_start = now - self_lag;
      o->ev_end = now;
      evidence_sent = 1;
    }
    w->hb_due = now + cfg->worker_interval_ms;
  }
  if (stopped && !evidence_sent) {
    /* A stop seen between heartbeats (or with the heartbeat off) is evidence all the same. */
    lw_msg_t *o = &out[n++];
    memset(o, 0, sizeof(*o));
    o->type = LW_MSG_EVIDENCE;
    o->ev_reason = slept >= cfg->suspend_min_ms ? LW_REASON_SUSPEND : LW_REASON_PAUSE;
    o->ev_start = now - self_lag;
    o->ev_end = now;
  }
  return n;
}
