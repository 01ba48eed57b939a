/* The monitors (SPEC §6): the main-thread rules (driftLag, macrotaskLag, loopBlock,
 * idleAvailability, clockDrift, timerThrottle), the worker thread's heartbeat, self-lag evidence
 * and liveness hang detector, the messages received on the main thread, and start/stop/flush.
 *
 * The core is driven by hand: every `now` is chosen by the test, and the readings beyond `now`
 * (wall clock, sleep-clock pair, the loop's idle time) are fakes the test sets before each call.
 */
#include "core/conditions.h"
#include "core/internal.h"
#include "core/monitors.h"
#include "driver/sim.h"
#include "helpers.h"
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
} fake_t;

static double fake_wall(void *d) { return ((fake_t *)d)->wall; }

static int fake_pair(void *d, double *inclusive, double *exclusive) {
  fake_t *f = d;
  f->pair_calls++;
  if (!f->has_pair) return -1;
  *inclusive = f->incl;
  *exclusive = f->excl;
  return 0;
}

static double fake_idle(void *d) { return ((fake_t *)d)->idle; }

typedef struct {
  lw_conditions_t c;
  lw_monitors_t m;
  fake_t f;
  lw_readings_t rd;
  double t; /* the loop's last turn (loop_turn) */
} fx_t;

/* Defaults, with the periodic flush out of the way unless a test sets it. */
static void fx_config(lw_monitors_config_t *cfg) {
  lw_monitors_config_default(cfg, NULL);
  cfg->flush_interval_ms = 1e9;
}

static void fx_init(fx_t *x, const lw_monitors_config_t *cfg, int mono_includes_sleep) {
  lw_conditions_config_t ccfg;
  lw_monitors_config_t def;
  memset(x, 0, sizeof(*x));
  lw_conditions_config_default(&ccfg);
  ASSERT_EQ(lw_conditions_init(&x->c, &ccfg), LW_OK);
  x->f.wall = WALL0;
  x->f.has_pair = 1;
  x->rd.main.wall = fake_wall;
  x->rd.main.sleep_pair = x->rd.worker.sleep_pair = fake_pair;
  x->rd.main.idle = fake_idle;
  x->rd.main.data = x->rd.worker.data = &x->f;
  x->rd.main.mono_includes_sleep = mono_includes_sleep;
  if (cfg == NULL) {
    fx_config(&def);
    cfg = &def;
  }
  ASSERT_EQ(lw_monitors_init(&x->m, &x->c, cfg, &x->rd), LW_OK);
}

static void fx_free(fx_t *x) {
  lw_monitors_free(&x->m);
  lw_conditions_free(&x->c);
}

static const lw_name_stats_t *stats_of(const fx_t *x, lw_mon_t mon) {
  return x->c.names[x->c.validators[x->m.vid[mon]]->name_id];
}

/* One turn of an event loop at `now` that was busy for `busy` ms of the time since the previous
 * turn and idle for the rest: the prepare hook (loopBlock), then the timers. */
static void loop_turn(fx_t *x, double now, double busy) {
  x->f.idle += (now - x->t) - busy;
  x->t = now;
  lw_monitors_iteration(&x->m, now, 0);
  lw_monitors_run(&x->m, now);
}

static uint32_t probe_reason(fx_t *x) {
  uint32_t id;
  ASSERT_EQ(lw_tracker_reason(&x->c.tracker, "probe", 5, &id), LW_OK);
  return id;
}

/* The number of kept intervals. */
static size_t n_intervals(fx_t *x, double now) {
  lw_interval_t iv[8];
  return lw_tracker_list(&x->c.tracker, now, iv, 8);
}

/* The last held sample (its exact window and value). */
static const lw__held_t *last_held(const fx_t *x) {
  ASSERT_GT(x->c.held_len, x->c.held_head);
  return &x->c.held[x->c.held_len - 1];
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

static size_t wrun(fx_t *x, msg_log_t *log, double now, double progress) {
  lw_msg_t out[4];
  size_t n, i;
  x->m.worker.rd = x->rd.worker; /* the tests change the readings as they go */
  n = lw_worker_run(&x->m.worker, now, progress, out);
  ASSERT_LE(n, 4);
  for (i = 0; i < n && log != NULL; i++) {
    ASSERT_LT(log->n, 256);
    log->msg[log->n] = out[i];
    log->at[log->n++] = now;
  }
  return n;
}

static size_t log_count(const msg_log_t *log, lw_msg_type_t type) {
  size_t i, k = 0;
  for (i = 0; i < log->n; i++)
    if (log->msg[i].type == type) k++;
  return k;
}

static const lw_msg_t *log_find(const msg_log_t *log, lw_msg_type_t type, size_t nth,
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

/* driftLag -------------------------------------------------------------------------------- */

TEST_IMPL(monitors_drift_lateness_and_window) {
  fx_t x;
  uint32_t probe;
  const lw_name_stats_t *ns;
  const lw__held_t *h;
  fx_init(&x, NULL, 0);
  probe = probe_reason(&x);
  lw_monitors_start(&x.m, LW_MON_DRIFT, 1000);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1020);
  /* Not due 0.25 ms before. */
  lw_monitors_run(&x.m, 1019.75);
  ASSERT_EQ(x.c.submitted, 0);
  /* On time: lateness 0, window 20. */
  lw_monitors_run(&x.m, 1020);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1040);
  /* Late: lateness = 1100 - (1020 + 20) = 60, window [1020, 1100]; next due = now + interval.
   * A probe touching the window's start does not overlap it. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1010, 1020, probe, 1020), LW_OK);
  lw_monitors_run(&x.m, 1100);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 60);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1120);
  ns = stats_of(&x, LW_MON_DRIFT);
  ASSERT_STR_EQ(ns->name, "driftLag");
  ASSERT_EQ(ns->submitted, 2);
  ASSERT_EQ(ns->recorded, 2);
  ASSERT_DBL_EQ(ns->recorded_hist.max, 60);
  ASSERT_DBL_EQ(ns->recorded_hist.sum, 60);
  /* Late by 80, window [1100, 1200]: a probe ending 0.25 ms past 1100 overlaps it. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1090, 1100.25, probe, 1100), LW_OK);
  lw_monitors_run(&x.m, 1200);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, probe), 1);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 2);
  /* A long late firing is held with its exact window [previous firing, now]. */
  lw_monitors_run(&x.m, 8000);
  ASSERT_EQ(x.c.held_count, 1);
  h = last_held(&x);
  ASSERT_DBL_EQ(h->value, 8000 - 1220);
  ASSERT_DBL_EQ(h->ws, 1200);
  ASSERT_DBL_EQ(h->we, 8000);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 8020);
  lw_conditions_run(&x.c, 10000);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 60, 6780);
  ASSERT_EQ(ns->recorded, 3);
  ASSERT_EQ(ns->submitted, 4);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* driftLag asleep while the loop waits (issue 14): when it may sleep, and what a wake-up fires.
 * driftLag, loopBlock and the worker's liveness half (no timer of the main thread), so the armed
 * timer's due is the flush's (set here). */
TEST_IMPL(monitors_drift_sleep_rules) {
  fx_t x;
  lw_monitors_config_t cfg;
  uint32_t pause;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  lw_monitors_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monitors_start(&x.m, LW_MON_DRIFT, 0);
  lw_monitors_start(&x.m, LW_MON_LIVENESS, 0); /* its checks (100 ms) bound a stop's start */
  /* Not before a firing shows an idle, punctual window. */
  ASSERT_EQ(lw_monitors_idle(&x.m, 0), 0);
  loop_turn(&x, 20, 0); /* on time, idle */
  /* Not while overdue (the loop was busy past the due: a real, late firing). */
  ASSERT_EQ(lw_monitors_idle(&x.m, 40), 0);
  ASSERT_EQ(lw_monitors_idle(&x.m, 30), 1);
  ASSERT_EQ(x.m.drift_asleep, 1);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1000); /* the flush's, not driftLag's 40 */
  ASSERT_EQ(lw_monitors_idle(&x.m, 30), 0);        /* already asleep */
  /* A poll that ended at 130 for a callback, now 135: 40 .. 120 on time, 140 later. */
  ASSERT_EQ(lw_monitors_awake(&x.m, 135, 130), 1);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 0, 0, 0, 0, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 140);
  ASSERT_EQ(lw_monitors_awake(&x.m, 136, 136), 0); /* awake already */
  /* Busy through 160 (40 of the 40 ms since 120): a late firing at 160, no sleep after it. */
  x.f.idle += 120 - 20 - 0;
  x.t = 120;
  loop_turn(&x, 160, 40);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 0, 0, 0, 0, 0, 20);
  ASSERT_EQ(lw_monitors_idle(&x.m, 161), 0);
  loop_turn(&x, 180, 0); /* on time again */
  ASSERT_EQ(lw_monitors_idle(&x.m, 181), 1);
  /* The wake-up held past the armed due (1000) by LW_STOP_MIN_MS or more: the timer was held
   * from the start of the wait: its due 200 fires at 1150, 950 late, window [180, 1150]. */
  ASSERT_EQ(lw_monitors_awake(&x.m, 1150, 1150), 1);
  ASSERT_DBL_EQ(x.m.batch[LW_MON_DRIFT].values[x.m.batch[LW_MON_DRIFT].len - 1], 950);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 9);
  /* A stop the evidence shows, [1290, 1400] (the worker's view, one check late): the timer due
   * 1190 fired on time, 1210 .. (within a check of the stop) when the process ran again. */
  x.f.idle += 1150 - x.t;
  x.t = 1150;
  loop_turn(&x, 1170, 0);
  lw_monitors_flushed(&x.m, 1170); /* the flush due at 1000 ran: next at 2170 */
  ASSERT_EQ(lw_monitors_idle(&x.m, 1171), 1);
  ASSERT_EQ(lw_tracker_reason(&x.c.tracker, "pause", 5, &pause), LW_OK);
  ASSERT_EQ(pause, LW_REASON_PAUSE);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1290, 1400, LW_REASON_PAUSE, 1450), LW_OK);
  x.f.idle += 1450 - 1170; /* the loop waited (libuv counts a stop in the poll as idle) */
  x.t = 1450;
  ASSERT_EQ(lw_monitors_awake(&x.m, 1450, 1450), 1);
  {
    const lw_batch_t *b = &x.m.batch[LW_MON_DRIFT];
    /* 1190 on time; 1210 fires at 1400 (190 late: discarded as pause);
     * 1420 and 1440 on time. */
    ASSERT_DBL_EQ(b->values[b->len - 3], 0);
    ASSERT_DBL_EQ(b->values[b->len - 2], 0);
    ASSERT_DBL_EQ(b->values[b->len - 1], 0);
    ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
  }
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1460);
  /* An embedded loop never waits in its poll: driftLag keeps its timer. */
  x.m.embedded = 1;
  ASSERT_EQ(lw_monitors_idle(&x.m, 1451), 0);
  x.m.embedded = 0;
  /* Stopping driftLag while it sleeps fires what was due (nothing is lost). */
  ASSERT_EQ(lw_monitors_idle(&x.m, 1451), 1);
  {
    size_t before = x.m.batch[LW_MON_DRIFT].len;
    lw_monitors_stop(&x.m, LW_MON_DRIFT, 1500);
    ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, before + 3); /* 1460, 1480, 1500, on time */
  }
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* macrotaskLag sleeps while the loop waits (lw_monitors_idle/awake): a task queued while the
 * loop waits runs at once, a sample of 0. */
TEST_IMPL(monitors_macro_sleep_rules) {
  fx_t x;
  lw_monitors_config_t cfg;
  const lw_batch_t *b;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  b = &x.m.batch[LW_MON_MACROTASK];
  lw_monitors_start(&x.m, LW_MON_MACROTASK, 0); /* due 250 */
  lw_monitors_start(&x.m, LW_MON_LIVENESS, 0);  /* its checks (100 ms) bound a stop's start */
  /* Not while its interval is due. */
  ASSERT_EQ(lw_monitors_idle(&x.m, 250), 0);
  ASSERT_EQ(x.m.macro_asleep, 0);
  /* Not while its task waits for the next turn (it runs in this one). */
  lw_monitors_run(&x.m, 250);
  ASSERT_DBL_EQ(x.m.macro_posted, 250);
  ASSERT_EQ(lw_monitors_idle(&x.m, 250), 0);
  lw_monitors_run(&x.m, 251);
  ASSERT_BATCH(b, 1);
  ASSERT_DBL_EQ(x.m.macro_due, 501);
  /* Waiting: asleep, the armed due is the flush's (1000). */
  ASSERT_EQ(lw_monitors_idle(&x.m, 260), 1);
  ASSERT_EQ(x.m.macro_asleep, 1);
  ASSERT_EQ(lw_monitors_asleep(&x.m), 1);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1000);
  /* The loop woke at 1000 on time: 501 and 751 each queued a task that ran at once. */
  ASSERT_EQ(lw_monitors_awake(&x.m, 1000, 1000), 1);
  ASSERT_BATCH(b, 1, 0, 0);
  ASSERT_DBL_EQ(x.m.macro_due, 1001);
  ASSERT_EQ(lw_monitors_asleep(&x.m), 0);
  lw_monitors_flushed(&x.m, 1000); /* next flush 2000 */
  /* A stop the evidence shows, [1150, 1400]: 1001 on time, 1251 when the process ran again. */
  ASSERT_EQ(lw_monitors_idle(&x.m, 1000), 1);
  {
    uint32_t pause;
    ASSERT_EQ(lw_tracker_reason(&x.c.tracker, "pause", 5, &pause), LW_OK);
    ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1150, 1400, pause, 1450), LW_OK);
  }
  ASSERT_EQ(lw_monitors_awake(&x.m, 1450, 1450), 1);
  ASSERT_EQ(b->len, 2); /* (the flush at 1000 emptied the batch) */
  ASSERT_DBL_EQ(x.m.macro_due, 1650); /* from 1400 */
  /* A wake-up held past the armed due (2000) by LW_STOP_MIN_MS or more: the timer was held too;
   * its due has passed and it fires in the next run, its task queued then. */
  ASSERT_EQ(lw_monitors_idle(&x.m, 1450), 1);
  ASSERT_EQ(lw_monitors_awake(&x.m, 2300, 2300), 1);
  ASSERT_EQ(b->len, 2);
  ASSERT_DBL_EQ(x.m.macro_due, 1650);
  lw_monitors_run(&x.m, 2300);
  ASSERT_DBL_EQ(x.m.macro_posted, 2300);
  lw_monitors_run(&x.m, 2301);
  ASSERT_EQ(b->len, 3);
  lw_monitors_flushed(&x.m, 2301);
  /* An embedded loop never waits in its poll: the timer stays armed. */
  x.m.embedded = 1;
  ASSERT_EQ(lw_monitors_idle(&x.m, 2302), 0);
  x.m.embedded = 0;
  /* Stopping macrotaskLag while it sleeps fires what was due (nothing is lost). */
  ASSERT_EQ(lw_monitors_idle(&x.m, 2302), 1);
  lw_monitors_stop(&x.m, LW_MON_MACROTASK, 3100); /* 2551, 2801, 3051 */
  ASSERT_BATCH(b, 0, 0, 0);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* ... but not on a busy loop, whose every iteration may wait (a poll for I/O already there). */
TEST_IMPL(monitors_macro_no_sleep_when_busy) {
  fx_t x;
  fx_init(&x, NULL, 0);
  lw_monitors_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monitors_start(&x.m, LW_MON_MACROTASK, 0); /* due 250 */
  ASSERT_EQ(lw_monitors_idle(&x.m, 10), 0);     /* no task has run yet */
  loop_turn(&x, 250, 200);                      /* busy 200 of 250: queues the task */
  loop_turn(&x, 251, 1);                        /* the task: 1 ms late */
  ASSERT_EQ(x.m.macro_may_sleep, 0);
  ASSERT_EQ(lw_monitors_idle(&x.m, 252), 0);
  loop_turn(&x, 501, 10);  /* queued at 501 */
  loop_turn(&x, 501.5, 0); /* ran 0.5 late over a window busy 10 of 250.5 */
  ASSERT_EQ(x.m.macro_may_sleep, 1);
  ASSERT_EQ(lw_monitors_idle(&x.m, 502), 1);
  ASSERT_EQ(x.m.macro_asleep, 1);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* Real time: the timers that measure nothing of their own lateness (macrotaskLag's interval,
 * idleAvailability, clockDrift, the flush) join a run up to coalesce_ms early; driftLag, whose
 * lateness is its sample, never does. On the simulation (coalesce_ms 0) each fires at its due. */
TEST_IMPL(monitors_coalesce_rules) {
  fx_t x;
  lw_monitors_config_t cfg;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  lw_monitors_start(&x.m, LW_MON_MACROTASK, 0); /* due 250 */
  lw_monitors_start(&x.m, LW_MON_IDLE, 3);      /* due 1003 */
  lw_monitors_start(&x.m, LW_MON_CLOCKDRIFT, 6); /* due 1006 */
  lw_monitors_start(&x.m, LW_MON_DRIFT, 8);      /* due 28 */
  /* Without coalescing: a run at 1000 fires only what is due by 1000. */
  x.m.drift_due = 2000; /* out of the way */
  x.m.macro_due = 1000;
  ASSERT_EQ(lw_monitors_run(&x.m, 1000), 1); /* the flush (due 1000) */
  ASSERT_DBL_EQ(x.m.macro_posted, 1000);
  ASSERT_DBL_EQ(x.m.idle_due, 1003);
  ASSERT_DBL_EQ(x.m.clock_due, 1006);
  lw_monitors_flushed(&x.m, 1000);
  lw_monitors_run(&x.m, 1001); /* the task ran: next interval 1251 */
  ASSERT_DBL_EQ(x.m.macro_due, 1251);
  /* Coalescing by 10 ms: a run at 1003 for idleAvailability takes clockDrift (1006) along:
   * both read at 1003, both next due at 2003; driftLag due at 1010 waits for its time. */
  x.m.coalesce_ms = 10;
  x.m.drift_due = 1010;
  ASSERT_EQ(lw_monitors_run(&x.m, 1003), 0); /* the flush is due at 2000 */
  ASSERT_DBL_EQ(x.m.idle_due, 2003);
  ASSERT_DBL_EQ(x.m.clock_due, 2003);
  ASSERT_DBL_EQ(x.m.drift_due, 1010);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 0);
  /* A run at 1245 for anything takes macrotaskLag's interval (1251) along: its task is queued
   * now and runs at the next turn. And the flush (2000), idleAvailability and clockDrift (2003)
   * join a run at 1995. */
  x.m.drift_due = 1245;
  lw_monitors_run(&x.m, 1245);
  ASSERT_DBL_EQ(x.m.macro_posted, 1245);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 1);
  x.m.drift_due = 1995;
  ASSERT_EQ(lw_monitors_run(&x.m, 1995), 1);
  lw_monitors_flushed(&x.m, 1995);
  ASSERT_DBL_EQ(x.m.idle_due, 2995);
  ASSERT_DBL_EQ(x.m.clock_due, 2995);
  /* The evidence step reads clockDrift early too: not at 2984 (+ 10 < 2995), at 2986. */
  lw_monitors_evidence(&x.m, 2984, 0);
  ASSERT_DBL_EQ(x.m.clock_due, 2995);
  lw_monitors_evidence(&x.m, 2986, 0);
  ASSERT_DBL_EQ(x.m.clock_due, 3986);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* macrotaskLag ---------------------------------------------------------------------------- */

TEST_IMPL(monitors_macrotask_next_run) {
  fx_t x;
  uint32_t probe;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  probe = probe_reason(&x);
  ns = stats_of(&x, LW_MON_MACROTASK);
  lw_monitors_start(&x.m, LW_MON_MACROTASK, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 250);
  lw_monitors_run(&x.m, 249.75);
  ASSERT_EQ(x.c.submitted, 0);
  /* The tick queues a task due at once; it does not run in the same run. */
  lw_monitors_run(&x.m, 250);
  ASSERT_EQ(ns->submitted, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 250);
  /* It runs at the next run: its delay is the sample (value and window). */
  lw_monitors_run(&x.m, 265);
  ASSERT_BATCH(&x.m.batch[LW_MON_MACROTASK], 15);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 265 + 250);
  /* A late tick at 600 queues its task at 600; window [600, 607]: a probe touching it at 600
   * does not overlap. */
  lw_monitors_run(&x.m, 600);
  ASSERT_EQ(ns->submitted, 1);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 600);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 590, 600, probe, 600), LW_OK);
  lw_monitors_run(&x.m, 607);
  ASSERT_BATCH(&x.m.batch[LW_MON_MACROTASK], 15, 7);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 857);
  /* Window [857, 900]: a probe reaching 0.25 ms into it discards the sample. */
  lw_monitors_run(&x.m, 857);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 850, 857.25, probe, 857), LW_OK);
  lw_monitors_run(&x.m, 900);
  ASSERT_EQ(ns->submitted, 3);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, probe), 1);
  ASSERT_EQ(x.m.batch[LW_MON_MACROTASK].len, 2);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1150);
  /* A long delay is held with window [queued, ran]. */
  lw_monitors_run(&x.m, 1150);
  lw_monitors_run(&x.m, 7150);
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_DBL_EQ(last_held(&x)->value, 6000);
  ASSERT_DBL_EQ(last_held(&x)->ws, 1150);
  ASSERT_DBL_EQ(last_held(&x)->we, 7150);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* loopBlock ------------------------------------------------------------------------------- */

TEST_IMPL(monitors_loopblock_busy_time) {
  fx_t x;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  ns = stats_of(&x, LW_MON_LOOPBLOCK);
  /* Not running: an iteration submits nothing. */
  lw_monitors_iteration(&x.m, 10, 0);
  ASSERT_EQ(x.c.submitted, 0);
  x.f.idle = 5;
  lw_monitors_start(&x.m, LW_MON_LOOPBLOCK, 20);
  /* busy = Δt - Δidle = 80 - 50; recorded at once: no due time changed (0). */
  x.f.idle = 55;
  ASSERT_EQ(lw_monitors_iteration(&x.m, 100, 0), 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30);
  ASSERT_DBL_EQ(x.m.busy_total, 30);
  /* More idle than time passed: clamped to 0. */
  x.f.idle = 105;
  lw_monitors_iteration(&x.m, 140, 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30, 0);
  ASSERT_DBL_EQ(x.m.busy_total, 30);
  lw_monitors_iteration(&x.m, 240.5, 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30, 0, 100.5);
  ASSERT_DBL_EQ(x.m.busy_total, 130.5);
  /* A long block is held: value and window are the busy time, the window ends now. */
  x.f.idle = 105 + 10;
  ASSERT_EQ(lw_monitors_iteration(&x.m, 6250.5, 0), 1); /* held: the conditions have a due time */
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_DBL_EQ(last_held(&x)->value, 6000);
  ASSERT_DBL_EQ(last_held(&x)->ws, 250.5);
  ASSERT_DBL_EQ(last_held(&x)->we, 6250.5);
  ASSERT_DBL_EQ(x.m.busy_total, 6130.5);
  lw_conditions_run(&x.c, 8250.5);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30, 0, 100.5, 6000);
  ASSERT_EQ(ns->submitted, 4);
  ASSERT_EQ(ns->recorded, 4);
  /* Batches off (nothing in JS reads them): recorded and counted as before, nothing copied. */
  lw_monitors_keep_batches(&x.m, 0);
  x.f.idle = 115 + 4;
  ASSERT_EQ(lw_monitors_iteration(&x.m, 6260.5, 0), 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 4);
  ASSERT_EQ(ns->recorded, 5);
  ASSERT_DBL_EQ(x.m.busy_total, 6130.5 + 6);
  lw_monitors_keep_batches(&x.m, 1);
  lw_monitors_iteration(&x.m, 6270.5, 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 5);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* idleAvailability ------------------------------------------------------------------------ */

TEST_IMPL(monitors_idle_share) {
  fx_t x;
  uint32_t probe;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  probe = probe_reason(&x);
  ns = stats_of(&x, LW_MON_IDLE);
  ASSERT_STR_EQ(ns->name, "idleAvailability");
  /* A ratio is never a stall. */
  ASSERT_DBL_EQ(x.c.validators[x.m.vid[LW_MON_IDLE]]->stall_threshold_ms, INFINITY);
  x.f.idle = 40;
  lw_monitors_start(&x.m, LW_MON_IDLE, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1000);
  x.f.idle = 40 + 250;
  lw_monitors_run(&x.m, 1000);
  ASSERT_BATCH(&x.m.batch[LW_MON_IDLE], 0.25);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 2000);
  /* More idle than time: clamped to 1, recorded at once (never held). */
  x.f.idle += 1500;
  lw_monitors_run(&x.m, 2000);
  ASSERT_EQ(x.c.held_count, 0);
  lw_monitors_run(&x.m, 3000);
  ASSERT_BATCH(&x.m.batch[LW_MON_IDLE], 0.25, 1, 0);
  /* Window = the period [3000, 4000]: a probe touching it does not overlap... */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 2900, 3000, probe, 3000), LW_OK);
  x.f.idle += 500;
  lw_monitors_run(&x.m, 4000);
  ASSERT_BATCH(&x.m.batch[LW_MON_IDLE], 0.25, 1, 0, 0.5);
  /* ...one reaching 0.25 ms into [4000, 5000] does. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 3900, 4000.25, probe, 4000), LW_OK);
  x.f.idle += 1000;
  lw_monitors_run(&x.m, 5000);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, probe), 1);
  /* Share 1 over a pause: discarded, but no stall. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 5000, 6000, LW_REASON_PAUSE, 5000), LW_OK);
  x.f.idle += 1000;
  lw_monitors_run(&x.m, 6000);
  ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
  ASSERT_EQ(x.c.nepisodes, 0);
  ASSERT_EQ(stalls_total(&x.c), 0);
  ASSERT_EQ(x.c.held_count, 0);
  ASSERT_EQ(ns->recorded, 4);
  ASSERT_EQ(ns->submitted, 6);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* clockDrift ------------------------------------------------------------------------------ */

static void expect_jump(const lw_event_t *ev, lw_jump_t kind, double at, double delta) {
  ASSERT_NOT_NULL(ev);
  ASSERT_EQ(ev->type, LW_EVENT_JUMP);
  ASSERT_EQ(ev->jump, kind);
  ASSERT_DBL_EQ(ev->at, at);
  ASSERT_DBL_EQ(ev->duration_ms, delta);
}

TEST_IMPL(monitors_clock_sleep_pair) {
  fx_t x;
  lw_interval_t iv[4];
  const lw_event_t *ev;
  size_t n;
  fx_init(&x, NULL, 0); /* Linux: the monotonic clock stops during a sleep */
  lw_monitors_start(&x.m, LW_MON_CLOCKDRIFT, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1000);
  /* A 3000 ms sleep: wall and inclusive advance by it, monotonic and exclusive do not. */
  x.f.wall += 1000 + 3000;
  x.f.incl += 1000 + 3000;
  x.f.excl += 1000;
  lw_monitors_run(&x.m, 1000);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 1);
  expect_jump(&ev[0], LW_JUMP_SUSPEND, 1000, 3000);
  ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 1);
  ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 0);
  /* A closed suspend interval over [previous read, now]. */
  ASSERT_EQ(lw_tracker_list(&x.c.tracker, 1000, iv, 4), 1);
  ASSERT_EQ(iv[0].reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(iv[0].start, 0);
  ASSERT_DBL_EQ(iv[0].end, 1000);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 2000);
  lw_conditions_events_clear(&x.c);

  /* The wall clock steps +1000 with no sleep: a step jump of d = 1000, no interval. */
  x.f.wall += 1000 + 1000;
  x.f.incl += 1000;
  x.f.excl += 1000;
  lw_monitors_run(&x.m, 2000);
  /* Then -1000. */
  x.f.wall += 1000 - 1000;
  x.f.incl += 1000;
  x.f.excl += 1000;
  lw_monitors_run(&x.m, 3000);
  /* -999.75: nothing. */
  x.f.wall += 1000 - 999.75;
  x.f.incl += 1000;
  x.f.excl += 1000;
  lw_monitors_run(&x.m, 4000);
  /* A 99.75 ms sleep: below suspend_min_ms, and d = 0 once the sleep is removed: nothing. */
  x.f.wall += 1000 + 99.75;
  x.f.incl += 1000 + 99.75;
  x.f.excl += 1000;
  lw_monitors_run(&x.m, 5000);
  /* Exactly 100: a suspend over [5000, 6000]. */
  x.f.wall += 1000 + 100;
  x.f.incl += 1000 + 100;
  x.f.excl += 1000;
  lw_monitors_run(&x.m, 6000);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 3);
  expect_jump(&ev[0], LW_JUMP_STEP, 2000, 1000);
  expect_jump(&ev[1], LW_JUMP_STEP, 3000, -1000);
  expect_jump(&ev[2], LW_JUMP_SUSPEND, 6000, 100);
  ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 2);
  ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 2);
  ASSERT_EQ(lw_tracker_list(&x.c.tracker, 6000, iv, 4), 2);
  ASSERT_EQ(iv[1].reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(iv[1].start, 5000);
  ASSERT_DBL_EQ(iv[1].end, 6000);
  fx_free(&x);
  return 0;
}

/* d = Δwall - Δmono - (mono_includes_sleep ? 0 : sleep). */
TEST_IMPL(monitors_clock_mono_includes_sleep) {
  int inc;
  for (inc = 0; inc <= 1; inc++) {
    fx_t x;
    const lw_event_t *ev;
    size_t n;
    TEST_CONTEXT("mono_includes_sleep = %d", inc);
    fx_init(&x, NULL, inc);
    lw_monitors_start(&x.m, LW_MON_CLOCKDRIFT, 0);
    /* The same readings on both: Δmono 1000, Δwall 2020, sleep 50 (below suspend_min_ms).
     * Linux removes the sleep: d = 970, nothing; darwin/win32: d = 1020, a step. */
    x.f.wall += 2020;
    x.f.incl += 1050;
    x.f.excl += 1000;
    lw_monitors_run(&x.m, 1000);
    ev = lw_conditions_events(&x.c, &n);
    if (inc) {
      ASSERT_EQ(n, 1);
      expect_jump(&ev[0], LW_JUMP_STEP, 1000, 1020);
    } else {
      ASSERT_EQ(n, 0);
    }
    lw_conditions_events_clear(&x.c);
    /* A real 50 ms sleep and a +1000 step, as each platform's clocks see them: d = 1000 on
     * both. */
    if (inc) {
      x.f.wall += 1000 + 1000;
      x.f.incl += 1000;
      x.f.excl += 1000 - 50;
    } else {
      x.f.wall += 1000 + 50 + 1000;
      x.f.incl += 1000 + 50;
      x.f.excl += 1000;
    }
    lw_monitors_run(&x.m, 2000);
    ev = lw_conditions_events(&x.c, &n);
    ASSERT_EQ(n, 1);
    expect_jump(&ev[0], LW_JUMP_STEP, 2000, 1000);
    ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 0);
    ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 1 + inc);
    ASSERT_EQ(n_intervals(&x, 2000), 0);
    fx_free(&x);
  }
  return 0;
}

TEST_IMPL(monitors_clock_without_pair) {
  int variant;
  /* 0: the platform has no pair (sleep_pair returns -1); 1: cfg.sleep_clock = 0. */
  for (variant = 0; variant <= 1; variant++) {
    fx_t x;
    lw_monitors_config_t cfg;
    lw_interval_t iv[4];
    const lw_event_t *ev;
    size_t n;
    TEST_CONTEXT("variant %d", variant);
    fx_config(&cfg);
    if (variant == 1) cfg.sleep_clock = 0;
    fx_init(&x, &cfg, 0);
    x.f.has_pair = variant == 1;
    lw_monitors_start(&x.m, LW_MON_CLOCKDRIFT, 0);
    /* With sleep_clock = 0 a pair that says 3000 ms were slept is never read. */
    x.f.incl += 1000 + 3000;
    x.f.excl += 1000;
    /* Forward 1000: a suspend and an interval over [0, 1000]. */
    x.f.wall += 1000 + 1000;
    lw_monitors_run(&x.m, 1000);
    /* Back 1000: a step. */
    x.f.wall += 1000 - 1000;
    lw_monitors_run(&x.m, 2000);
    /* ±999.75: nothing. */
    x.f.wall += 1000 + 999.75;
    lw_monitors_run(&x.m, 3000);
    x.f.wall += 1000 - 999.75;
    lw_monitors_run(&x.m, 4000);
    ev = lw_conditions_events(&x.c, &n);
    ASSERT_EQ(n, 2);
    expect_jump(&ev[0], LW_JUMP_SUSPEND, 1000, 1000);
    expect_jump(&ev[1], LW_JUMP_STEP, 2000, -1000);
    ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 1);
    ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 1);
    ASSERT_EQ(lw_tracker_list(&x.c.tracker, 4000, iv, 4), 1);
    ASSERT_EQ(iv[0].reason, LW_REASON_SUSPEND);
    ASSERT_DBL_EQ(iv[0].start, 0);
    ASSERT_DBL_EQ(iv[0].end, 1000);
    if (variant == 1) ASSERT_EQ(x.f.pair_calls, 0);
    fx_free(&x);
  }
  return 0;
}

/* timerThrottle --------------------------------------------------------------------------- */

static void throttle_fx(fx_t *x) {
  fx_init(x, NULL, 0);
  x->t = 0;
  lw_monitors_start(&x->m, LW_MON_LOOPBLOCK, 0);
  lw_monitors_start(&x->m, LW_MON_DRIFT, 0);
  lw_monitors_start(&x->m, LW_MON_THROTTLE, 0);
}

/* The one kept interval (asserts there is exactly one). */
static lw_interval_t only_interval(fx_t *x, double now) {
  lw_interval_t iv[2];
  ASSERT_EQ(lw_tracker_list(&x->c.tracker, now, iv, 2), 1);
  return iv[0];
}

TEST_IMPL(monitors_throttle_opens_and_closes) {
  fx_t x;
  lw_interval_t iv;
  const lw_name_stats_t *ns;
  throttle_fx(&x);
  ns = stats_of(&x, LW_MON_DRIFT);
  /* An idle loop whose 20 ms timer fires only every second: late by 980 three times. */
  loop_turn(&x, 1000, 0);
  loop_turn(&x, 2000, 0);
  ASSERT_EQ(n_intervals(&x, 2000), 0);
  loop_turn(&x, 3000, 0);
  iv = only_interval(&x, 3000);
  ASSERT_EQ(iv.reason, LW_REASON_THROTTLED);
  ASSERT_DBL_EQ(iv.start, 0); /* the start of the first late window */
  ASSERT_DBL_EQ(iv.end, INFINITY);
  /* The three late samples stay recorded. */
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 980, 980, 980);
  ASSERT_EQ(ns->recorded, 3);
  /* The first punctual firing: its window overlaps the open interval (discarded), then the
   * interval closes at it. */
  loop_turn(&x, 3020, 0);
  iv = only_interval(&x, 3020);
  ASSERT_DBL_EQ(iv.start, 0);
  ASSERT_DBL_EQ(iv.end, 3020);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(ns->discarded_by_reason[LW_REASON_THROTTLED], 1);
  /* loopBlock's zero-length sample at 3020 lies in the open interval too. */
  ASSERT_EQ(stats_of(&x, LW_MON_LOOPBLOCK)->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, LW_REASON_THROTTLED), 2);
  loop_turn(&x, 3040, 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 980, 980, 980, 0);
  ASSERT_EQ(x.m.throttle_seq, 0);
  ASSERT_EQ(stalls_total(&x.c), 0);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_boundaries) {
  fx_t x;
  lw_interval_t iv;
  throttle_fx(&x);
  /* Late by exactly 500 (due 20, 540, 1060) counts. */
  loop_turn(&x, 520, 0);
  loop_turn(&x, 1040, 0);
  loop_turn(&x, 1560, 0);
  iv = only_interval(&x, 1560);
  ASSERT_DBL_EQ(iv.start, 0);
  ASSERT_DBL_EQ(iv.end, INFINITY);
  /* Still late by 500: stays open. Late by 499.75: that closes it. */
  loop_turn(&x, 2080, 0);
  ASSERT_DBL_EQ(only_interval(&x, 2080).end, INFINITY);
  loop_turn(&x, 2599.75, 0);
  ASSERT_DBL_EQ(only_interval(&x, 2599.75).end, 2599.75);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_busy_loop) {
  fx_t x;
  throttle_fx(&x);
  /* Late by 980 with the loop busy for exactly half of it: a blocked loop, not a throttle. */
  loop_turn(&x, 1000, 490);
  loop_turn(&x, 2000, 490);
  loop_turn(&x, 3000, 490);
  loop_turn(&x, 4000, 490);
  ASSERT_EQ(n_intervals(&x, 4000), 0);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 4);
  /* Busy 489.75 is idle enough: the count starts at the window [4000, 5000]. */
  loop_turn(&x, 5000, 489.75);
  loop_turn(&x, 6000, 0);
  ASSERT_EQ(n_intervals(&x, 6000), 0);
  loop_turn(&x, 7000, 0);
  ASSERT_DBL_EQ(only_interval(&x, 7000).start, 4000);
  fx_free(&x);
  return 0;
}

/* A callback blocks the loop after its prepare hook: the timers fire late before the next
 * iteration has measured that busy time; the part of the turn in progress counts. */
TEST_IMPL(monitors_throttle_busy_in_turn) {
  fx_t x;
  double t;
  throttle_fx(&x);
  for (t = 1000; t <= 4000; t += 1000) {
    lw_monitors_run(&x.m, t); /* late by 980, busy 1000 since the last firing */
    lw_monitors_iteration(&x.m, t, 0);
  }
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 4);
  ASSERT_DBL_EQ(x.m.busy_total, 4000);
  ASSERT_EQ(n_intervals(&x, 4000), 0);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_needs_loopblock) {
  fx_t x;
  fx_init(&x, NULL, 0);
  lw_monitors_start(&x.m, LW_MON_DRIFT, 0);
  lw_monitors_start(&x.m, LW_MON_THROTTLE, 0);
  /* loopBlock is not running: nothing says the loop was idle. */
  loop_turn(&x, 1000, 0);
  loop_turn(&x, 2000, 0);
  loop_turn(&x, 3000, 0);
  loop_turn(&x, 4000, 0);
  ASSERT_EQ(n_intervals(&x, 4000), 0);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_reset_by_punctual) {
  fx_t x;
  throttle_fx(&x);
  loop_turn(&x, 1000, 0);
  loop_turn(&x, 2000, 0);
  loop_turn(&x, 2020, 0); /* punctual: the count restarts */
  loop_turn(&x, 3020, 0);
  loop_turn(&x, 4020, 0);
  ASSERT_EQ(n_intervals(&x, 4020), 0);
  loop_turn(&x, 5020, 0);
  ASSERT_DBL_EQ(only_interval(&x, 5020).start, 2020);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_closed_by_stop) {
  int which;
  static const lw_mon_t stopped[] = {LW_MON_DRIFT, LW_MON_THROTTLE};
  for (which = 0; which < 2; which++) {
    fx_t x;
    lw_interval_t iv;
    TEST_CONTEXT("stopping %s", lw_mon_name(stopped[which]));
    throttle_fx(&x);
    loop_turn(&x, 1000, 0);
    loop_turn(&x, 2000, 0);
    loop_turn(&x, 3000, 0);
    ASSERT_DBL_EQ(only_interval(&x, 3000).end, INFINITY);
    lw_monitors_stop(&x.m, stopped[which], 3500.5);
    iv = only_interval(&x, 3500.5);
    ASSERT_DBL_EQ(iv.start, 0);
    ASSERT_DBL_EQ(iv.end, 3500.5);
    ASSERT_EQ(x.m.throttle_seq, 0);
    fx_free(&x);
  }
  return 0;
}

/* The worker: heartbeat and self-lag evidence --------------------------------------------- */

TEST_IMPL(monitors_worker_heartbeat) {
  fx_t x;
  msg_log_t log;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  ASSERT_FALSE(lw_monitors_worker_needed(&x.m));
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), LW_NEVER);
  lw_monitors_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_TRUE(lw_monitors_worker_needed(&x.m));
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1000);
  ASSERT_EQ(wrun(&x, &log, 999.75, 999.75), 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1);
  ASSERT_EQ(log.msg[0].type, LW_MSG_HEARTBEAT);
  ASSERT_DBL_EQ(log.msg[0].sent_at, 1000);
  ASSERT_DBL_EQ(log.msg[0].self_lag, 0);
  ASSERT_EQ(log.msg[0].ev_reason, LW_REASON_ANY);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2000);
  /* Late by 30: self_lag 30; next due = now + interval. */
  ASSERT_EQ(wrun(&x, &log, 2030, 2030), 1);
  ASSERT_EQ(log.msg[1].type, LW_MSG_HEARTBEAT);
  ASSERT_DBL_EQ(log.msg[1].sent_at, 2030);
  ASSERT_DBL_EQ(log.msg[1].self_lag, 30);
  ASSERT_EQ(log.msg[1].ev_reason, LW_REASON_ANY);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 3030);
  /* Liveness is off: a main thread without progress gets no ping and no hang. */
  ASSERT_EQ(wrun(&x, &log, 3030, 0), 1);
  ASSERT_EQ(wrun(&x, &log, 4030, 0), 1);
  ASSERT_EQ(log_count(&log, LW_MSG_HEARTBEAT), 4);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_worker_self_lag_evidence) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  lw_monitors_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1);
  /* Late by 5000 with the sleep clock unchanged: pause evidence [now - self_lag, now]. */
  ASSERT_EQ(wrun(&x, &log, 7000, 7000), 1);
  o = &log.msg[1];
  ASSERT_DBL_EQ(o->self_lag, 5000);
  ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(o->ev_start, 2000);
  ASSERT_DBL_EQ(o->ev_end, 7000);
  /* The sleep clock grew by exactly suspend_min_ms since the previous run: suspend. */
  x.f.incl += 100;
  ASSERT_EQ(wrun(&x, &log, 13000.5, 13000.5), 1);
  o = &log.msg[2];
  ASSERT_DBL_EQ(o->self_lag, 5000.5);
  ASSERT_EQ(o->ev_reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(o->ev_start, 8000);
  ASSERT_DBL_EQ(o->ev_end, 13000.5);
  /* 99.75: pause. */
  x.f.incl += 99.75;
  ASSERT_EQ(wrun(&x, &log, 19000.5, 19000.5), 1);
  o = &log.msg[3];
  ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(o->ev_start, 14000.5);
  ASSERT_DBL_EQ(o->ev_end, 19000.5);
  /* The growth counts from the previous run only: a sleep before it is not counted again. */
  x.f.incl += 3000;
  ASSERT_EQ(wrun(&x, &log, 20000.5, 20000.5), 1);
  ASSERT_EQ(log.msg[4].ev_reason, LW_REASON_ANY); /* on time */
  ASSERT_EQ(wrun(&x, &log, 26000.5, 26000.5), 1);
  ASSERT_EQ(log.msg[5].ev_reason, LW_REASON_PAUSE);
  fx_free(&x);
  return 0;
}

/* A stop that began right after a run is late on the worker's timer by up to one period less:
 * lateness >= threshold - min(period, threshold / 2) counts. */
TEST_IMPL(monitors_worker_slack_rule) {
  int variant;
  for (variant = 0; variant < 4; variant++) {
    fx_t x;
    msg_log_t log;
    double t, late;
    const lw_msg_t *o;
    size_t n;
    TEST_CONTEXT("variant %d", variant);
    fx_init(&x, NULL, 0);
    memset(&log, 0, sizeof(log));
    /* Heartbeat every 1000 and liveness every 100: the worker's period is 100. */
    lw_monitors_start(&x.m, LW_MON_WORKER, 0);
    lw_monitors_start(&x.m, LW_MON_LIVENESS, 0);
    for (t = 100; t <= 1000; t += 100) wrun(&x, &log, t, t);
    ASSERT_EQ(log_count(&log, LW_MSG_HEARTBEAT), 1);
    ASSERT_EQ(log.n, 1);
    ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1100);
    /* The process stops right after the run at 1000: a 5050 ms stop makes the run due at 1100
     * late by 4950 >= 5000 - 100. 4900 is the bound; 4899.75 and 4000 do not count. */
    late = variant == 0 ? 4950 : variant == 1 ? 4900 : variant == 2 ? 4899.75 : 4000;
    n = wrun(&x, &log, 1100 + late, 1000);
    o = log_find(&log, LW_MSG_HEARTBEAT, 1, NULL);
    ASSERT_NOT_NULL(o);
    ASSERT_DBL_EQ(o->sent_at, 1100 + late);
    ASSERT_DBL_EQ(o->self_lag, late);
    if (variant <= 1) {
      ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
      ASSERT_DBL_EQ(o->ev_start, 1100);
      ASSERT_DBL_EQ(o->ev_end, 1100 + late);
      /* The stop also resets the last-progress time: no ping, no hang. */
      ASSERT_EQ(n, 1);
    } else {
      ASSERT_EQ(o->ev_reason, LW_REASON_ANY);
      /* Not a stop: over a quarter of the threshold without progress is worth a ping. */
      ASSERT_EQ(n, 2);
      ASSERT_EQ(log_count(&log, LW_MSG_PING), 1);
    }
    fx_free(&x);
  }
  return 0;
}

/* The slack is at most half the threshold: with a 4000 ms period it is 2500. */
TEST_IMPL(monitors_worker_slack_capped) {
  int variant;
  for (variant = 0; variant < 2; variant++) {
    fx_t x;
    lw_monitors_config_t cfg;
    msg_log_t log;
    double late = variant == 0 ? 2500 : 2499.75;
    TEST_CONTEXT("late %g", late);
    fx_config(&cfg);
    cfg.worker_interval_ms = 4000;
    fx_init(&x, &cfg, 0);
    memset(&log, 0, sizeof(log));
    lw_monitors_start(&x.m, LW_MON_WORKER, 0);
    ASSERT_EQ(wrun(&x, &log, 4000, 4000), 1);
    ASSERT_EQ(wrun(&x, &log, 8000 + late, 8000 + late), 1);
    ASSERT_DBL_EQ(log.msg[1].self_lag, late);
    ASSERT_EQ(log.msg[1].ev_reason, variant == 0 ? LW_REASON_PAUSE : LW_REASON_ANY);
    fx_free(&x);
  }
  return 0;
}

/* The worker: liveness ---------------------------------------------------------------------- */

static void liveness_fx(fx_t *x) {
  lw_monitors_config_t cfg;
  fx_config(&cfg);
  cfg.liveness_interval_ms = 50;
  fx_init(x, &cfg, 0);
  lw_monitors_start(&x->m, LW_MON_LIVENESS, 0);
}

TEST_IMPL(monitors_liveness_hang_once) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  double t, at;
  liveness_fx(&x);
  memset(&log, 0, sizeof(log));
  /* The main thread makes progress until 1000, then stops; the worker stays on time. */
  for (t = 50; t <= 1000; t += 50) wrun(&x, &log, t, t);
  ASSERT_EQ(log.n, 0);
  for (; t <= 8950; t += 50) wrun(&x, &log, t, 1000);
  /* A ping at a quarter of the threshold without progress (1000 + 1250), once. */
  ASSERT_EQ(log_count(&log, LW_MSG_PING), 1);
  ASSERT_NOT_NULL(log_find(&log, LW_MSG_PING, 0, &at));
  ASSERT_DBL_EQ(at, 2250);
  /* Exactly one hang start, at 1000 + 5000: hang_start = the last progress time. */
  ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 1);
  o = log_find(&log, LW_MSG_HANG_START, 0, &at);
  ASSERT_DBL_EQ(at, 6000);
  ASSERT_DBL_EQ(o->hang_start, 1000);
  ASSERT_DBL_EQ(o->detected_at, 6000);
  ASSERT_EQ(log.n, 2);
  /* Progress (the main thread ran at 8990): the hang ends there. */
  ASSERT_EQ(wrun(&x, &log, 9000, 8990), 1);
  o = &log.msg[2];
  ASSERT_EQ(o->type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(o->hang_start, 1000);
  ASSERT_DBL_EQ(o->detected_at, 6000);
  ASSERT_DBL_EQ(o->hang_end, 8990);
  /* Without progress again, a ping only after 1250 more (8990 + 1250 -> the run at 10250). */
  for (t = 9050; t <= 10200; t += 50) ASSERT_EQ(wrun(&x, &log, t, 8990), 0);
  ASSERT_EQ(wrun(&x, &log, 10250, 8990), 1);
  ASSERT_EQ(log.msg[3].type, LW_MSG_PING);
  for (t = 10300; t <= 12000; t += 50) ASSERT_EQ(wrun(&x, &log, t, 8990), 0);
  ASSERT_EQ(log.n, 4);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_liveness_self_lag_resets_progress) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  double t, at;
  liveness_fx(&x);
  memset(&log, 0, sizeof(log));
  for (t = 50; t <= 1000; t += 50) wrun(&x, &log, t, t);
  for (; t <= 3000; t += 50) wrun(&x, &log, t, 1000);
  ASSERT_EQ(log_count(&log, LW_MSG_PING), 1);
  /* The process pauses: the run due at 3050 runs at 8050 (late by 5000): pause evidence
   * [3050, 8050], even with the heartbeat off. 7050 ms without progress, but a pause is no part
   * of a hang: the last progress moves 5000 later, to 6000 (2050 ms of the app's own before the
   * stop, so the hang is flagged 2950 ms after it, at 11000). */
  ASSERT_EQ(wrun(&x, &log, 8050, 1000), 1);
  o = log_find(&log, LW_MSG_EVIDENCE, 0, &at);
  ASSERT_NOT_NULL(o);
  ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(o->ev_start, 3050);
  ASSERT_DBL_EQ(o->ev_end, 8050);
  for (t = 8100; t <= 10950; t += 50) ASSERT_EQ(wrun(&x, &log, t, 1000), 0);
  ASSERT_EQ(wrun(&x, &log, 11000, 1000), 1);
  o = log_find(&log, LW_MSG_HANG_START, 0, &at);
  ASSERT_NOT_NULL(o);
  ASSERT_DBL_EQ(at, 11000);
  ASSERT_DBL_EQ(o->hang_start, 6000);
  ASSERT_DBL_EQ(o->detected_at, 11000);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_liveness_self_lag_moves_hang_start) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  double t;
  liveness_fx(&x);
  memset(&log, 0, sizeof(log));
  for (t = 50; t <= 1000; t += 50) wrun(&x, &log, t, t);
  for (; t <= 6500; t += 50) wrun(&x, &log, t, 1000);
  ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 1);
  /* During the hang the worker itself is late by 6000 (due 6550, runs at 12550): pause
   * evidence, and the hang starts 6000 later. */
  ASSERT_EQ(wrun(&x, &log, 12550, 1000), 1);
  ASSERT_EQ(log_count(&log, LW_MSG_EVIDENCE), 1);
  ASSERT_EQ(wrun(&x, &log, 12600, 12580), 1);
  o = log_find(&log, LW_MSG_HANG_END, 0, NULL);
  ASSERT_NOT_NULL(o);
  ASSERT_DBL_EQ(o->hang_start, 1000 + 6000);
  ASSERT_DBL_EQ(o->detected_at, 6000);
  ASSERT_DBL_EQ(o->hang_end, 12580);
  ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 1);
  fx_free(&x);
  return 0;
}

/* Messages on the main thread --------------------------------------------------------------- */

static lw_msg_t heartbeat(double sent_at, double self_lag, uint32_t reason, double s, double e) {
  lw_msg_t msg;
  memset(&msg, 0, sizeof(msg));
  msg.type = LW_MSG_HEARTBEAT;
  msg.sent_at = sent_at;
  msg.self_lag = self_lag;
  msg.ev_reason = reason;
  msg.ev_start = s;
  msg.ev_end = e;
  return msg;
}

TEST_IMPL(monitors_receive_heartbeat) {
  fx_t x;
  lw_msg_t msg;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  ns = stats_of(&x, LW_MON_WORKER);
  ASSERT_STR_EQ(ns->name, "worker");
  lw_monitors_start(&x.m, LW_MON_WORKER, 0);
  /* The sample: how long the heartbeat waited for the main thread. */
  msg = heartbeat(1000, 30, LW_REASON_ANY, 0, 0);
  lw_monitors_receive(&x.m, &msg, 1, 1015);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 15);
  ASSERT_BATCH(&x.m.self_lag_batch, 30);
  ASSERT_EQ(x.m.self_lag_count, 1);
  ASSERT_DBL_EQ(x.m.self_lag_last, 30);
  ASSERT_EQ(x.m.self_lag_hist.count, 1);
  ASSERT_EQ(n_intervals(&x, 1015), 0);
  /* Window [2000, 2040.5]: a probe touching its start does not overlap. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1990, 2000, LW_REASON_HIDDEN, 1015), LW_OK);
  msg = heartbeat(2000, 0, LW_REASON_ANY, 0, 0);
  lw_monitors_receive(&x.m, &msg, 1, 2040.5);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 15, 40.5);
  ASSERT_EQ(ns->recorded, 2);
  /* With the worker monitor stopped, the self-lag still counts, but no sample. */
  lw_monitors_start(&x.m, LW_MON_LIVENESS, 2050);
  lw_monitors_stop(&x.m, LW_MON_WORKER, 2050);
  msg = heartbeat(3000, 7, LW_REASON_ANY, 0, 0);
  lw_monitors_receive(&x.m, &msg, 1, 3010);
  ASSERT_EQ(ns->submitted, 2);
  ASSERT_BATCH(&x.m.self_lag_batch, 30, 0, 7);
  fx_free(&x);
  return 0;
}

/* The heartbeat's evidence is added before its own sample is judged. */
TEST_IMPL(monitors_receive_evidence_before_sample) {
  int with_evidence;
  for (with_evidence = 1; with_evidence >= 0; with_evidence--) {
    fx_t x;
    lw_msg_t msg;
    const lw_event_t *ev;
    const lw_name_stats_t *ns;
    TEST_CONTEXT("with evidence: %d", with_evidence);
    fx_init(&x, NULL, 0);
    ns = stats_of(&x, LW_MON_WORKER);
    lw_monitors_start(&x.m, LW_MON_WORKER, 0);
    /* Waited 6000 (window [2000, 8000]); the evidence [1500, 7500] overlaps that window. */
    msg = heartbeat(2000, 0, with_evidence ? LW_REASON_PAUSE : LW_REASON_ANY, 1500, 7500);
    lw_monitors_receive(&x.m, &msg, 1, 8000);
    if (with_evidence) {
      lw_interval_t iv = only_interval(&x, 8000);
      ASSERT_EQ(iv.reason, LW_REASON_PAUSE);
      ASSERT_DBL_EQ(iv.start, 1500);
      ASSERT_DBL_EQ(iv.end, 7500);
      /* Discarded at once as pause, and a pause stall sample. */
      ASSERT_EQ(x.c.held_count, 0);
      ASSERT_EQ(ns->discarded, 1);
      ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
      ASSERT_EQ(x.c.nepisodes, 1);
      drive_to(&x.c, &(double){8000}, 10000);
      ev = find_event(&x.c, LW_EVENT_STALL);
      ASSERT_NOT_NULL(ev);
      ASSERT_EQ(ev->kind, LW_KIND_PAUSE);
      ASSERT_DBL_EQ(ev->duration_ms, 6000);
      ASSERT_DBL_EQ(ev->start, 2000);
      ASSERT_DBL_EQ(ev->end, 8000);
      ASSERT_EQ(x.c.stalls[LW_KIND_PAUSE], 1);
      ASSERT_EQ(x.c.stalls[LW_KIND_HANG], 0);
      ASSERT_EQ(x.m.batch[LW_MON_WORKER].len, 0);
    } else {
      /* Without it the same wait is held, then a hang. */
      ASSERT_EQ(x.c.held_count, 1);
      drive_to(&x.c, &(double){8000}, 12000);
      ASSERT_EQ(x.c.stalls[LW_KIND_HANG], 1);
      ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 6000);
    }
    ASSERT_CONSERVATION(&x.c);
    fx_free(&x);
  }
  return 0;
}

/* An on-time heartbeat waits in the queue through a pause; the next one brings the evidence in
 * the same turn: the first sample is held, and resolves as pause. */
TEST_IMPL(monitors_receive_evidence_after_held) {
  fx_t x;
  msg_log_t log;
  double now = 7500;
  size_t i;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  lw_monitors_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1);
  ASSERT_EQ(wrun(&x, &log, 7500, 1000), 1);
  ASSERT_EQ(log.msg[1].ev_reason, LW_REASON_PAUSE);
  for (i = 0; i < log.n; i++) lw_monitors_receive(&x.m, &log.msg[i], 1, 7500);
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 0);
  drive_to(&x.c, &now, 20000);
  ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
  ASSERT_EQ(x.c.stalls[LW_KIND_PAUSE], 1);
  ASSERT_EQ(x.c.stalls[LW_KIND_HANG], 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 0);
  ASSERT_BATCH(&x.m.self_lag_batch, 0, 5500);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_receive_hang_end) {
  fx_t x;
  lw_monitors_config_t cfg;
  lw_msg_t msg;
  const lw_event_t *ev;
  size_t n;
  fx_config(&cfg);
  cfg.liveness_interval_ms = 50; /* the main thread resumes after a gap of 100 */
  fx_init(&x, &cfg, 0);
  lw_monitors_start(&x.m, LW_MON_LIVENESS, 0);
  /* The main thread resumes at its first activity after a gap of 2 liveness intervals. */
  lw_monitors_iteration(&x.m, 800, 0);
  ASSERT_DBL_EQ(x.m.resumed_at, 800);
  lw_monitors_iteration(&x.m, 899.75, 0);
  ASSERT_DBL_EQ(x.m.resumed_at, 800);
  lw_monitors_run(&x.m, 999.75);
  ASSERT_DBL_EQ(x.m.resumed_at, 999.75);
  lw_monitors_iteration(&x.m, 1000, 0);
  ASSERT_DBL_EQ(x.m.resumed_at, 999.75);
  /* Blocked from 1000; the main thread's first turn after that is at 8980. */
  lw_monitors_iteration(&x.m, 8980, 0);
  lw_monitors_iteration(&x.m, 8990, 0);
  ASSERT_DBL_EQ(x.m.resumed_at, 8980);
  memset(&msg, 0, sizeof(msg));
  msg.type = LW_MSG_HANG_START;
  msg.hang_start = 1000;
  msg.detected_at = 6000;
  lw_monitors_receive(&x.m, &msg, 1, 9005);
  ASSERT_EQ(x.m.worker_hangs, 1);
  ASSERT_EQ(x.c.nevents, 0);
  msg.type = LW_MSG_HANG_END;
  msg.hang_end = 8990; /* the worker saw progress stamped 8990 */
  lw_monitors_receive(&x.m, &msg, 1, 9005);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(ev[0].type, LW_EVENT_WORKER_HANG);
  ASSERT_DBL_EQ(ev[0].at, 9005);
  ASSERT_DBL_EQ(ev[0].start, 1000);
  ASSERT_DBL_EQ(ev[0].detected_at, 6000);
  ASSERT_DBL_EQ(ev[0].end, 8980); /* when the main thread resumed */
  ASSERT_DBL_EQ(ev[0].duration_ms, 7980);
  ASSERT_EQ(x.m.hang_hist.count, 1);
  ASSERT_DBL_EQ(x.m.hang_hist.max, 7980);
  lw_conditions_events_clear(&x.c);
  /* No resume inside [detected_at, hang_end] (the receipt itself is the resume, at 27010):
   * the end is the worker's hang_end. */
  msg.hang_start = 20000;
  msg.detected_at = 25000;
  msg.hang_end = 27000;
  lw_monitors_receive(&x.m, &msg, 1, 27010);
  ASSERT_DBL_EQ(x.m.resumed_at, 27010);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 1);
  ASSERT_DBL_EQ(ev[0].end, 27000);
  ASSERT_DBL_EQ(ev[0].duration_ms, 7000);
  ASSERT_EQ(x.m.worker_hangs, 1);
  ASSERT_EQ(x.m.hang_hist.count, 2);
  fx_free(&x);
  return 0;
}

/* Start, stop, flush ---------------------------------------------------------------------- */

TEST_IMPL(monitors_start_stop_flush) {
  fx_t x;
  lw_monitors_config_t cfg;
  int i;
  lw_monitors_config_default(&cfg, NULL);
  ASSERT_DBL_EQ(cfg.flush_interval_ms, 1000);
  fx_init(&x, &cfg, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), LW_NEVER);
  lw_monitors_start(&x.m, LW_MON_DRIFT, 0);
  ASSERT_TRUE(x.m.running[LW_MON_DRIFT]);
  ASSERT_DBL_EQ(x.m.flush_due, 1000);
  /* Starting again does nothing: the timer keeps its due time, the flush too. */
  lw_monitors_start(&x.m, LW_MON_DRIFT, 10);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 20);
  ASSERT_DBL_EQ(x.m.flush_due, 1000);
  ASSERT_EQ(lw_monitors_run(&x.m, 20), 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0);
  lw_monitors_start(&x.m, LW_MON_LOOPBLOCK, 30);
  ASSERT_DBL_EQ(x.m.flush_due, 1000);
  x.t = 30;
  for (i = 1; i <= 49; i++) loop_turn(&x, 20 + 20 * i, 1);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1000);
  {
    lw_msg_t msg = heartbeat(990, 3, LW_REASON_ANY, 0, 0);
    lw_monitors_receive(&x.m, &msg, 1, 995); /* its self-lag goes out with the flush too */
    ASSERT_EQ(x.m.self_lag_batch.len, 1);
  }
  ASSERT_EQ(lw_monitors_run(&x.m, 1000), 1);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 50);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 49);
  lw_monitors_flushed(&x.m, 1000);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 0);
  ASSERT_EQ(x.m.self_lag_batch.len, 0);
  ASSERT_DBL_EQ(x.m.flush_due, 2000);
  /* Stopping one of two: no flush yet; stopping a stopped one does nothing. */
  lw_monitors_stop(&x.m, LW_MON_DRIFT, 1010);
  ASSERT_FALSE(x.m.running[LW_MON_DRIFT]);
  lw_monitors_stop(&x.m, LW_MON_DRIFT, 1015);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 2000);
  lw_monitors_iteration(&x.m, 1100, 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 1);
  /* The last stop makes a flush due at once; the values stay until it. */
  lw_monitors_stop(&x.m, LW_MON_LOOPBLOCK, 1200);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), 1200);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 1);
  ASSERT_EQ(lw_monitors_run(&x.m, 1200), 1);
  lw_monitors_flushed(&x.m, 1200);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 0);
  ASSERT_DBL_EQ(lw_monitors_next_due(&x.m), LW_NEVER);
  ASSERT_EQ(lw_monitors_run(&x.m, 5000), 0);
  fx_free(&x);
  return 0;
}

/* Every recorded value of a validated monitor lands in its batch, held ones included. */
TEST_IMPL(monitors_batches_match_recorded) {
  fx_t x;
  lw_rng_t rng = {0x6c61677761746368ull};
  static const lw_mon_t validated[] = {LW_MON_DRIFT, LW_MON_MACROTASK, LW_MON_LOOPBLOCK,
                                       LW_MON_IDLE, LW_MON_WORKER};
  double now = 0, busy, progress = 0;
  uint64_t recorded = 0, held_seen = 0;
  size_t i, j, k, nq;
  lw_msg_t queue[64];
  fx_init(&x, NULL, 0);
  for (i = 0; i < 5; i++) lw_monitors_start(&x.m, validated[i], 0);
  lw_monitors_start(&x.m, LW_MON_LIVENESS, 0);
  for (k = 0; k < 3000; k++) {
    TEST_CONTEXT("step %zu", k);
    /* Mostly short turns, now and then a block of 5 to 7 s. */
    busy = rng_chance(&rng, 1, 200) ? 5000 + (double)rng_below(&rng, 2000)
                                    : (double)rng_below(&rng, 30);
    now += busy + (double)rng_below(&rng, 30) + 0.25;
    /* The worker runs on time meanwhile, seeing the progress of the previous turn. */
    nq = 0;
    while (lw_worker_next_due(&x.m.worker) <= now) {
      ASSERT_LE(nq + 4, 64);
      nq += lw_worker_run(&x.m.worker, lw_worker_next_due(&x.m.worker), progress, &queue[nq]);
    }
    loop_turn(&x, now, busy);
    progress = now;
    for (j = 0; j < nq; j++) lw_monitors_receive(&x.m, &queue[j], 1, now);
    if (x.c.held_count > held_seen) held_seen = x.c.held_count;
    lw_conditions_run(&x.c, now);
  }
  drive_all(&x.c, &now);
  ASSERT_GT(held_seen, 0);
  ASSERT_EQ(x.c.held_count, 0);
  ASSERT_GT(x.c.stalls[LW_KIND_HANG], 0); /* held samples were recorded */
  for (i = 0; i < 5; i++) {
    const lw_name_stats_t *ns = stats_of(&x, validated[i]);
    const lw_batch_t *b = &x.m.batch[validated[i]];
    double sum = 0;
    TEST_CONTEXT("%s", lw_mon_name(validated[i]));
    ASSERT_GT(ns->recorded, 0);
    ASSERT_EQ(b->len, ns->recorded);
    for (j = 0; j < b->len; j++) sum += b->values[j];
    ASSERT_DBL_EQ(sum, ns->recorded_hist.sum);
    recorded += b->len;
  }
  ASSERT_EQ(recorded, x.c.recorded);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* A stop the worker reports ends, at the latest, at the main thread's first run after it: the
 * process was running then. The main thread's own work that started there is judged on its
 * own, not as part of the stop. */
TEST_IMPL(monitors_stop_ends_at_main_resumption) {
  fx_t x;
  lw_msg_t msg;
  lw_interval_t iv;
  double t;
  fx_init(&x, NULL, 0);
  lw_monitors_start(&x.m, LW_MON_LOOPBLOCK, 0);
  for (t = 20; t <= 1000; t += 20) loop_turn(&x, t, 0);
  /* Stopped from 1000 to 7000; the main thread runs first at 7000.25, the worker at 7003. */
  loop_turn(&x, 7000.25, 0);
  msg = heartbeat(7003, 6003, LW_REASON_PAUSE, 1000, 7003);
  lw_monitors_receive(&x.m, &msg, 1, 7010);
  iv = only_interval(&x, 7010);
  ASSERT_EQ(iv.reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(iv.start, 1000);
  ASSERT_DBL_EQ(iv.end, 7000.25);
  /* A sample of the main thread's work from its resumption on does not overlap the stop. */
  ASSERT_EQ(lw_tracker_find_priority(&x.c.tracker, 7000.25, 9500, 9500, &iv), 0);
  fx_free(&x);
  return 0;
}

/* SPEC §6, embedded loops: iterations that start >= 5 ms after the previous one ended (the
 * thread was outside libuv) make the loop an embedded one at the second; from then on the idle
 * reading is the time neither on a CPU nor waiting for one, continuous with libuv's at the
 * switch. Shorter gaps, or no such reading, change nothing. */
static double fake_runnable(void *d) { return ((fake_t *)d)->wall - WALL0; /* reused as such */ }

TEST_IMPL(monitors_loop_model_embedded) {
  fx_t x;
  fx_init(&x, NULL, 0);
  lw_monitors_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monitors_iteration(&x.m, 10, 4.9);
  lw_monitors_iteration(&x.m, 20, 4.9);
  ASSERT_EQ(lw_monitors_embedded(&x.m), 0); /* no runnable reading: never */
  x.rd.main.runnable = fake_runnable;
  x.m.rd.runnable = fake_runnable;
  lw_monitors_iteration(&x.m, 30, 4.9); /* under the threshold */
  ASSERT_EQ(lw_monitors_embedded(&x.m), 0);
  x.f.idle = 0; /* libuv's idle time never grows */
  lw_monitors_iteration(&x.m, 50, 20);
  ASSERT_EQ(lw_monitors_embedded(&x.m), 0);
  lw_monitors_iteration(&x.m, 70, 20);
  ASSERT_EQ(lw_monitors_embedded(&x.m), 1);
  /* From here: 100 ms of which 30 on the CPU is 30 ms busy, whatever libuv says. */
  x.f.wall += 30;
  lw_monitors_iteration(&x.m, 170, 70);
  ASSERT_DBL_EQ(x.m.batch[LW_MON_LOOPBLOCK].values[x.m.batch[LW_MON_LOOPBLOCK].len - 1], 30);
  /* The sample at the switch did not count the 20 ms outside libuv. */
  ASSERT_DBL_EQ(x.m.batch[LW_MON_LOOPBLOCK].values[x.m.batch[LW_MON_LOOPBLOCK].len - 2], 0);
  fx_free(&x);
  return 0;
}
