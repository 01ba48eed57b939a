/* The fixture of the monitor set's tests (test-monitors.c, test-timers.c, test-worker.c): the
 * core driven by hand, every `now` chosen by the test, and the readings beyond `now` (wall clock,
 * sleep-clock pair, the loop's idle time) fakes the test sets before each call. */
#ifndef LW_TEST_FIXTURE_MONITORS_H_
#define LW_TEST_FIXTURE_MONITORS_H_

#include "core/conditions.h"
#include "core/internal.h"
#include "core/monitors.h"
#include "driver/sim.h"
#include "helpers.h"
#include "state.h"
#include "test.h"

#include <stddef.h>

/* A wall clock that looks like one (2026-01-01T00:00:00Z); quarter-ms offsets stay exact. */
#define WALL0 1767225600000.0

typedef struct {
  double wall;
  double incl; /* sleep-inclusive clock */
  double excl; /* sleep-exclusive clock */
  int has_pair;
  double idle; /* the main loop's total idle time */
  int pair_calls;
  int in_poll; /* the main loop waits in its poll now */
  double runnable; /* the main thread's runnable time */
  int seen;        /* the worker's last sighting of the loop in its poll: when, idle, runnable */
  double seen_at, seen_idle, seen_runnable;
} fake_t;

static inline double fake_wall(void *d) { return ((fake_t *)d)->wall; }

static inline int fake_pair(void *d, double *inclusive, double *exclusive) {
  fake_t *f = d;
  f->pair_calls++;
  if (!f->has_pair) return -1;
  *inclusive = f->incl;
  *exclusive = f->excl;
  return 0;
}

static inline double fake_idle(void *d) { return ((fake_t *)d)->idle; }
static inline int fake_in_poll(void *d) { return ((fake_t *)d)->in_poll; }
static inline int fake_poll_seen(void *d, double *at, double *idle, double *runnable) {
  fake_t *f = d;
  *at = f->seen_at;
  *idle = f->seen_idle;
  *runnable = f->seen_runnable;
  return f->seen;
}
/* The worker sees the loop in its poll at `at`: libuv's idle time and the thread's runnable time
 * as the fakes hold them then. */
static inline void fake_see_poll(fake_t *f, double at) {
  f->seen = 1;
  f->seen_at = at;
  f->seen_idle = f->idle;
  f->seen_runnable = f->runnable;
}

typedef struct {
  lw_conditions_t c;
  lw_monset_core_t m;
  fake_t f;
  lw_readings_t rd;
  double t; /* the loop's last turn (loop_turn) */
} fx_t;

/* Defaults, with the periodic flush out of the way unless a test sets it. */
static inline void fx_config(lw_monset_core_config_t *cfg) {
  lw_monset_core_config_default(cfg, NULL);
  cfg->flush_interval_ms = 1e9;
}

static inline void fx_init(fx_t *x, const lw_monset_core_config_t *cfg, int mono_includes_sleep) {
  lw_conditions_config_t ccfg;
  lw_monset_core_config_t def;
  memset(x, 0, sizeof(*x));
  lw_conditions_config_default(&ccfg);
  ASSERT_EQ(lw_conditions_init(&x->c, &ccfg), LW_OK);
  x->f.wall = WALL0;
  x->f.has_pair = 1;
  x->rd.main.wall = fake_wall;
  x->rd.main.sleep_pair = x->rd.worker.sleep_pair = fake_pair;
  x->rd.main.idle = fake_idle;
  x->rd.main.poll_seen = fake_poll_seen;
  x->rd.main.data = x->rd.worker.data = &x->f;
  x->rd.main.mono_includes_sleep = mono_includes_sleep;
  if (cfg == NULL) {
    fx_config(&def);
    cfg = &def;
  }
  ASSERT_EQ(lw_monset_core_init(&x->m, &x->c, cfg, &x->rd), LW_OK);
}

static inline void fx_free(fx_t *x) {
  lw_monset_core_free(&x->m);
  lw_conditions_free(&x->c);
}

static inline const lw_name_stats_t *stats_of(const fx_t *x, lw_mon_t mon) {
  return x->c.names[x->c.validators[x->m.vid[mon]]->name_id];
}

/* One turn of an event loop at `now` that was busy for `busy` ms of the time since the previous
 * turn and idle for the rest: the prepare hook (loopBlock), then the timers. */
static inline void loop_turn(fx_t *x, double now, double busy) {
  x->f.idle += (now - x->t) - busy;
  x->t = now;
  lw_monset_core_iteration(&x->m, now, 0);
  lw_monset_core_run(&x->m, now);
}

static inline uint32_t probe_reason(fx_t *x) {
  uint32_t id;
  ASSERT_EQ(lw_tracker_reason(&x->c.tracker, "probe", 5, &id), LW_OK);
  return id;
}

/* The number of kept intervals. */
static inline size_t n_intervals(fx_t *x, double now) {
  lw_interval_t iv[8];
  return lw_tracker_list(&x->c.tracker, now, iv, 8);
}

/* The last held sample (its exact window and value). */
static inline const lw__held_t *last_held(const fx_t *x) {
  ASSERT_GT(x->c.held.len, x->c.held.head);
  return &x->c.held.items[x->c.held.len - 1];
}

#define ASSERT_BATCH(b, ...)                                                                    \
  do {                                                                                          \
    static const double want_[] = {__VA_ARGS__};                                                \
    const lw_batch_t *b_ = (b);                                                                 \
    size_t i_;                                                                                  \
    ASSERT_EQ(b_->len, sizeof(want_) / sizeof(want_[0]));                                       \
    for (i_ = 0; i_ < b_->len; i_++) ASSERT_DBL_EQ(b_->values[i_], want_[i_]);                  \
  } while (0)

/* Messages of the worker, kept in order with the time of the run that sent them. */
typedef struct {
  lw_msg_t msg[256];
  double at[256];
  size_t n;
} msg_log_t;

static inline size_t wrun(fx_t *x, msg_log_t *log, double now, double progress) {
  lw_msg_t out[LW_WORKER_MSGS_MAX];
  size_t n, i;
  x->m.worker.rd = x->rd.worker; /* the tests change the readings as they go */
  n = lw_worker_run(&x->m.worker, now, progress, out);
  ASSERT_LE(n, LW_WORKER_MSGS_MAX);
  for (i = 0; i < n && log != NULL; i++) {
    ASSERT_LT(log->n, 256);
    log->msg[log->n] = out[i];
    log->at[log->n++] = now;
  }
  return n;
}

static inline size_t log_count(const msg_log_t *log, lw_msg_type_t type) {
  size_t i, k = 0;
  for (i = 0; i < log->n; i++)
    if (log->msg[i].type == type) k++;
  return k;
}

static inline const lw_msg_t *log_find(const msg_log_t *log, lw_msg_type_t type, size_t nth,
                                double *at) {
  size_t i;
  for (i = 0; i < log->n; i++) {
    if (log->msg[i].type != type) continue;
    if (nth-- == 0) {
      if (at) *at = log->at[i];
      return &log->msg[i];
    }
  }
  return NULL;
}

/* The one kept interval (asserts there is exactly one). */
static inline lw_interval_t only_interval(fx_t *x, double now) {
  lw_interval_t iv[2];
  ASSERT_EQ(lw_tracker_list(&x->c.tracker, now, iv, 2), 1);
  return iv[0];
}

#endif /* LW_TEST_FIXTURE_MONITORS_H_ */
