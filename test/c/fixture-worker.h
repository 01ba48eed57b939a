/* The fixture of the worker's and the cause's tests (test-worker.c, test-cause.c): a monitor set
 * with the liveness check running, fake thread times, and the worker run by hand. */
#ifndef LW_TEST_FIXTURE_WORKER_H_
#define LW_TEST_FIXTURE_WORKER_H_

#include "core/conditions.h"
#include "core/monitors.h"
#include "test.h"

#include <math.h>
#include <string.h>

/* The worker's half with fake thread times. */
typedef struct {
  lw_thread_times_t main; /* the main thread's times now */
  double worker_runq;     /* the worker's own run-queue delay now */
  int self_known;
  double gc_start, gc_end; /* one GC pause */
  double avail;            /* the main loop's last moment seen waiting */
  int waiting;             /* its poll waits now */
  double busy;             /* its time outside its poll's waits up to its last progress */
} times_t;

static inline double fake_avail(void *d) { return ((times_t *)d)->avail; }
static inline int fake_waiting(void *d) { return ((times_t *)d)->waiting; }
static inline double fake_busy(void *d) { return ((times_t *)d)->busy; }

static inline int fake_main(void *d, lw_thread_times_t *out) {
  *out = ((times_t *)d)->main;
  return 0;
}
static inline int fake_self(void *d, lw_thread_times_t *out) {
  times_t *t = d;
  if (!t->self_known) return -1;
  out->cpu_ms = NAN;
  out->throttled_ms = NAN;
  out->runq_ms = t->worker_runq;
  return 0;
}
static inline double fake_gc(void *d, double start, double end) {
  times_t *t = d;
  double lo = t->gc_start > start ? t->gc_start : start, hi = t->gc_end < end ? t->gc_end : end;
  return hi > lo ? hi - lo : 0;
}

typedef struct {
  lw_conditions_t c;
  lw_monset_core_t m;
  lw_readings_t rd;
  times_t t;
} cfx_t;

static inline void cfx_init(cfx_t *x) {
  lw_conditions_config_t cc;
  lw_monset_core_config_t cfg;
  memset(x, 0, sizeof(*x));
  lw_conditions_config_default(&cc);
  ASSERT_EQ(lw_conditions_init(&x->c, &cc), LW_OK);
  x->t.self_known = 1;
  x->rd.main.main_sched = x->rd.worker.main_sched = fake_main;
  x->rd.worker.self_sched = fake_self;
  x->rd.main.gc_ms = fake_gc;
  x->rd.main.data = x->rd.worker.data = &x->t;
  lw_monset_core_config_default(&cfg, &x->c);
  cfg.flush_interval_ms = 1e9;
  ASSERT_EQ(lw_monset_core_init(&x->m, &x->c, &cfg, &x->rd), LW_OK);
  lw_monset_core_start(&x->m, LW_MON_LIVENESS, 0);
}

static inline void cfx_free(cfx_t *x) {
  lw_monset_core_free(&x->m);
  lw_conditions_free(&x->c);
}

/* Runs the worker at `now` with the main thread's progress stamp; appends its messages. */
static inline size_t run(cfx_t *x, double now, double progress, lw_msg_t *log, size_t *n) {
  lw_msg_t out[LW_WORKER_MSGS_MAX];
  size_t k, i;
  x->m.worker.rd = x->rd.worker; /* the tests change the readings as they go */
  k = lw_worker_run(&x->m.worker, now, progress, out);
  for (i = 0; i < k; i++) log[(*n)++] = out[i];
  return k;
}

#endif /* LW_TEST_FIXTURE_WORKER_H_ */
