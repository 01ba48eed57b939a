/* The monitors of SPEC §6 as pure rules, run by the main thread: a monitor set, driven like the
 * conditions. driftLag, macrotaskLag, loopBlock's iteration hook, idleAvailability, clockDrift and
 * timerThrottle run here, and the worker's messages are received here; the worker thread's own
 * rules (heartbeat, liveness, hangs) are in worker.h, their causes in cause.h, the options in
 * config.h. Nothing here locks or waits: the driver owns the queue, the thread and the atomics.
 *
 * Clock readings other than the monotonic `now` (wall clock, the sleep-clock pair, the loop's
 * idle time) come from the driver through lw_readings_t, called only when a rule needs them.
 */
#ifndef LW_CORE_MONITORS_H_
#define LW_CORE_MONITORS_H_

#include "aggregate.h"
#include "blocks.h"
#include "cause.h"
#include "conditions.h"
#include "config.h"
#include "delaywindow.h"
#include "loop.h"
#include "worker.h"

/* The monitor table: one row per monitor, in the order of their ids (the public names' order):
 * its id and its descriptor, which the monitor's own file defines (monitors-internal.h: its name,
 * its flags, its start, stop, timer and firing, its options). Adding a monitor is its file and its
 * row here, and its options' fields in config.h; its state is its own file's. A build may
 * add rows after these (LW_MONITOR_TABLE_MORE: the C tests' toy monitor, test/c/toy/). */
#ifndef LW_MONITOR_TABLE_MORE
#define LW_MONITOR_TABLE_MORE(X)
#endif
#define LW_MONITOR_TABLE(X)                    \
  X(LW_MON_DRIFT, lw__mon_driftlag)            \
  X(LW_MON_MACROTASK, lw__mon_macrotasklag)    \
  X(LW_MON_LOOPBLOCK, lw__mon_loopblock)       \
  X(LW_MON_IDLE, lw__mon_idleavailability)     \
  X(LW_MON_WORKER, lw__mon_worker)             \
  X(LW_MON_LIVENESS, lw__mon_liveness)         \
  X(LW_MON_CLOCKDRIFT, lw__mon_clockdrift)     \
  X(LW_MON_THROTTLE, lw__mon_timerthrottle)   \
  LW_MONITOR_TABLE_MORE(X)

/* The evidence sources that keep a state of their own outside the monitors' timers: rows of the
 * same table after the monitors, each defined by its own file (ev-<source>.c) with its state and
 * its hooks, and told what it reads through an entry point of its own below. They have no public
 * name: the API never starts or stops them, and every bound of the API is LW_MON_COUNT. */
#define LW_SOURCE_TABLE(X)               \
  X(LW_SRC_SIGCONT, lw__src_sigcont)     \
  X(LW_SRC_DEBUGGER, lw__src_debugger)

/* A row's id: a monitor's (below LW_MON_COUNT) or an evidence source's (from it). */
typedef enum {
#define LW__MON_ID(id, desc) id,
  LW_MONITOR_TABLE(LW__MON_ID)
  LW_MON_COUNT,
  LW__SRC_BEFORE = LW_MON_COUNT - 1, /* the sources' ids follow the monitors' */
  LW_SOURCE_TABLE(LW__MON_ID)
#undef LW__MON_ID
  LW_ROW_COUNT
} lw_mon_t;

/* The main thread's clocks beyond `now`, ms, called only when a rule needs them; a NULL reading
 * is unknown. */
typedef struct lw_main_readings_s {
  double (*wall)(void *data);
  /* The sleep-clock pair (inclusive, exclusive of a suspend); -1 without a pair. */
  int (*sleep_pair)(void *data, double *inclusive, double *exclusive);
  double (*idle)(void *data); /* the main loop's total idle (poll wait) time */
  /* The main thread's time on a CPU or waiting for one (its run-queue delay, a CPU quota's hold
   * included), or its CPU time alone where the platform cannot tell the wait. In an embedded
   * loop, what is neither is the thread's time available to its loop (SPEC §6). */
  double (*runnable)(void *data);
  /* The last moment the worker thread saw the main loop inside its poll's wait (libuv's idle
   * time growing between two readings), with libuv's idle time then and the main thread's
   * runnable time (as `runnable` reads it); 0 if never, 1 if so. */
  int (*poll_seen)(void *data, double *at, double *idle, double *runnable);
  /* The main thread's times by state (timerThrottle's starvation, stats); -1 where unreadable. */
  int (*main_sched)(void *data, lw_thread_times_t *out);
  /* V8's garbage-collection time inside [start, end] as known so far. */
  double (*gc_ms)(void *data, double start, double end);
  void *data;
  int mono_includes_sleep; /* macOS, Windows: 1; Linux: 0 */
} lw_main_readings_t;

/* What the driver reads, by the thread that may call it (worker.h for the worker's half). */
typedef struct lw_readings_s {
  lw_main_readings_t main;
  lw_worker_readings_t worker;
} lw_readings_t;

/* A firing (driftLag's, or macrotaskLag's task) this close to its due time is on time: libuv's
 * timers have ms resolution, so an idle loop's timer fires up to about a ms after its due. Only
 * after such a firing over a mostly idle window may the timer sleep while the loop waits
 * (lw_monset_core_idle). */
#define LW_SLEEP_LATE_MS 2.0
/* Real time: timers that measure nothing of their own lateness (macrotaskLag's interval,
 * idleAvailability's period, clockDrift's reading, the flush) fire up to this early when the
 * main thread runs for another due timer, so that they share its wake-up instead of waking it
 * again a few ms later (each is re-armed from its firing time, so their phases drift apart). */
#define LW_COALESCE_MS 10.0
/* Real time, an idle loop (its lateness timers asleep) with the worker's heartbeat running: those
 * same timers wait for whatever wakes the main thread next (the app, a heartbeat that needs it,
 * the worker's queue of heartbeats answered while the loop waited: see uvworker.h) instead of
 * waking it on their own, and fire up to this early with a wake-up the worker brings (it may send
 * a heartbeat up to 100 ms early with a check of its rest). What they measure over the wait is
 * caught up (lw_monset_core_awake). */
#define LW_SHARE_MS 150.0

/* Per-monitor recorded values on their way to JS (one batch per flush). */
typedef struct lw_batch_s {
  double *values;
  size_t len;
  size_t cap;
} lw_batch_t;

/* When the main thread was seen running (lw__mon_activity): its last run, iteration or receipt;
 * its first activity after a gap of 2 liveness intervals, and the last such resumptions, a ring
 * (-INFINITY: none). */
typedef struct lw_main_seen_s {
  double last;
  double resumed_at;
  double resumed[8];
  unsigned nresumed;
} lw_main_seen_t;

typedef struct lw_monset_core_s {
  lw_conditions_t *c;
  lw_monset_core_config_t cfg;
  lw_main_readings_t rd;
  int running[LW_MON_COUNT];
  uint32_t vid[LW_MON_COUNT]; /* validators of the validated monitors */
  lw_batch_t batch[LW_MON_COUNT];
  lw_batch_t self_lag_batch; /* every heartbeat's self-lag, for its histogram */
  /* Whether recorded values are kept for JS at all (lw_monset_core_keep_batches); 1 at init. */
  int keep_batches;
  /* The metric histograms of the recorded samples (aggregate.h), cumulative from when they were
   * asked for (lw_monset_core_keep_aggregates): each validated monitor's, and every heartbeat's
   * self-lag. NULL while nothing reads them. */
  struct lw_sample_aggs_s {
    lw_agg_t mon[LW_MON_COUNT];
    lw_agg_t self_lag;
  } *aggs;
  /* driftLag's recorded lateness and the loop's recorded time over the last minute
   * (nodejs.eventloop.*, delaywindow.h), counted from lw_monset_core_keep_delay on. */
  lw_delay_window_t delay;
  struct lw_sink_s {
    struct lw_monset_core_s *m;
    lw_mon_t mon;
  } sink[LW_MON_COUNT];
  double flush_due;
  /* Each row's private state (lw__mon_desc_t.state_size), a struct of its own file: one
   * allocation, at state[0]. */
  void *state[LW_ROW_COUNT];
  /* How early a timer that measures nothing of its own lateness may fire with another
   * (LW_COALESCE_MS in real time, 0 on the simulation: every timer at its due time). */
  double coalesce_ms;
  /* How late those timers may wait for a wake-up while the loop waits (LW_NEVER in real time: the
   * next one, whatever brings it; 0 on the simulation: every timer at its due time). */
  double share_ms;
  unsigned asleep;     /* the monitors whose timers sleep while the loop waits, a bit by id */
  double asleep_since; /* when they last went to sleep (lw_monset_core_idle) */
  unsigned run_turn; /* counts lw_monset_core_run() calls */
  lw_main_seen_t seen;
  lw_blocks_t blocks; /* loopBlock's long iterations (blocks.h) */
  uint32_t block_vid; /* their validator ("block"), UINT32_MAX with blocks off */

  /* The worker can tell when the main loop waits, and then rests (lw_worker_next_due). */
  int worker_may_rest;
  lw_worker_t worker; /* the worker thread's, while it runs (worker.h) */
} lw_monset_core_t;

/* The worker's own view, read as a snapshot (NAN where there is no value yet). */
typedef struct lw_monset_core_stats_s {
  uint64_t self_lag_count;
  double self_lag_max;
  double self_lag_p99;
  uint64_t worker_hangs;       /* flagged */
  uint64_t worker_hangs_ended; /* seen to end */
  double worker_hang_max;
  uint64_t blocks;            /* blocks.h: recorded */
  uint64_t blocks_reported;   /* reported one by one */
  uint64_t blocks_unreported; /* over the budget */
  uint64_t blocks_watched;    /* flagged by the worker while they ran (blocks.stacks) */
} lw_monset_core_stats_t;

void lw_monset_core_stats(const lw_monset_core_t *m, lw_monset_core_stats_t *out);
/* Blocks that evidence of reason id `reason` explained (blocks.h). */
uint64_t lw_monset_core_blocks_discarded(const lw_monset_core_t *m, uint32_t reason);

const char *lw_mon_name(lw_mon_t mon);
lw_mon_t lw_mon_parse(const char *name, size_t len);
/* 1 if setupAllMonitors pauses the monitor while the app is not visible (SPEC §6). In Electron's
 * main process (`browser_process`) the worker thread's monitors keep running: Chromium throttles
 * hidden pages, not the browser process, and a tray app whose windows are all hidden can still
 * freeze. clockDrift and timerThrottle never pause: they are evidence. */
int lw_mon_paused_while_hidden(lw_mon_t mon, int browser_process);
/* Whether the monitor submits samples to a validator of its own (and has a metric histogram). */
int lw_mon_validated(lw_mon_t mon);
/* A validated monitor's metric histogram (SPEC §10): its name, description and unit, and the
 * bucket bounds of its samples; NULL for another monitor. */
typedef struct lw_mon_metric_s {
  const char *name;
  const char *description;
  const char *unit;
} lw_mon_metric_t;
const lw_mon_metric_t *lw_mon_metric(lw_mon_t mon);
lw_bounds_t lw_mon_bounds(lw_mon_t mon);
/* Whether the monitor runs on the worker thread (the driver stops that thread to change it). */
int lw_mon_on_worker(lw_mon_t mon);

int lw_monset_core_init(lw_monset_core_t *m, lw_conditions_t *c, const lw_monset_core_config_t *cfg,
                     const lw_readings_t *rd);
void lw_monset_core_free(lw_monset_core_t *m);
/* The heap memory the set holds beyond its own struct, in bytes. */
size_t lw_monset_core_memory(const lw_monset_core_t *m);
/* After the last flush of a set that will run no more: frees the batches and keeps only the
 * statistics of its histograms (see lw_histogram_freeze). */
void lw_monset_core_release(lw_monset_core_t *m);

/* Starting a running or stopping a stopped monitor does nothing. Stopping a validated monitor
 * leaves its validator alive; its recorded values stay in the batch until the next flush. */
void lw_monset_core_start(lw_monset_core_t *m, lw_mon_t mon, double now);
void lw_monset_core_stop(lw_monset_core_t *m, lw_mon_t mon, double now);
/* 1 if the worker thread is needed (a monitor on it runs: the heartbeat, liveness). */
int lw_monset_core_worker_needed(const lw_monset_core_t *m);
/* 1 if the loop's iteration hooks are needed (a monitor that reads them runs: loopBlock's
 * samples, liveness's progress stamp). */
int lw_monset_core_hooks_needed(const lw_monset_core_t *m);

/* Main thread. */
double lw_monset_core_next_due(const lw_monset_core_t *m);
/* The same, with the timers that measure nothing of their own lateness (macrotaskLag's interval,
 * idleAvailability, clockDrift, the flush) due up to `late_ms` after their time: a driver lets
 * them wait that long for a wake-up that is coming anyway. driftLag and a queued task keep
 * their time. */
double lw_monset_core_next_due_late(const lw_monset_core_t *m, double late_ms);
/* The due time to arm the main thread's timer at: lw_monset_core_next_due_late() by share_ms while
 * lw_monset_core_sharing(), else lw_monset_core_next_due(). */
double lw_monset_core_next_due_armed(const lw_monset_core_t *m);
/* Runs every main-thread timer due at or before `now`. Returns 1 if a flush is due: the driver
 * then hands the batches to JS and calls lw_monset_core_flushed(). */
int lw_monset_core_run(lw_monset_core_t *m, double now);
void lw_monset_core_flushed(lw_monset_core_t *m, double now);
/* Timers asleep while the loop waits (asleep.c says how): the driver calls lw_monset_core_idle()
 * when the loop is about to wait in its poll, and lw_monset_core_awake() when it runs again
 * (`idle_end`: when it stopped waiting), after applying the evidence. Each returns 1 if a due
 * time changed (the driver re-arms). */
int lw_monset_core_idle(lw_monset_core_t *m, double now);
int lw_monset_core_awake(lw_monset_core_t *m, double now, double idle_end);
/* Whether a timer sleeps (lw_monset_core_idle): the driver then calls lw_monset_core_awake(). */
/* Inline: the loop's check hook asks at every iteration. */
static inline int lw_monset_core_asleep(const lw_monset_core_t *m) { return m->asleep != 0; }
/* driftLag's recorded lateness and the loop's recorded time over the window read at `now`
 * (nodejs.eventloop.*, SPEC §10, delaywindow.h): count, min, max, mean and standard deviation
 * exact, percentiles within 1/LW_HIST_SUB (histogram.h); NAN but count when none. Takes nothing
 * away: every reader reads the same. */
void lw_monset_core_read_delay(const lw_monset_core_t *m, double now, lw_delay_stats_t *out);
/* The window is kept from now on (a meter that reads nodejs.eventloop.*): LW_OK, or LW_ENOMEM
 * (then it is not). */
int lw_monset_core_keep_delay(lw_monset_core_t *m);
/* Whether the metric histograms are kept (a MetricProducer reads them): on, they start empty
 * (LW_OK, or LW_ENOMEM and they are not kept); off, their memory is freed. */
int lw_monset_core_keep_aggregates(lw_monset_core_t *m, int keep);

/* Whether the recorded values go into the batches for JS (a meter that records them, a listener
 * of the raw samples). Off, nothing is copied per sample and the batches stay empty: memory that
 * would grow with the loop's iteration rate between flushes (loopBlock) is not taken. */
void lw_monset_core_keep_batches(lw_monset_core_t *m, int keep);
/* Whether a flush has anything for JS: batches are kept, or values kept before are still there.
 * Otherwise a flush calls no JS at all (nothing would read it). */
int lw_monset_core_batches_wanted(const lw_monset_core_t *m);
/* Read-only views for the driver. */
static inline int lw_monset_core_running(const lw_monset_core_t *m, lw_mon_t mon) {
  return (unsigned)mon < LW_MON_COUNT && m->running[mon];
}
static inline const lw_monset_core_config_t *lw_monset_core_config(const lw_monset_core_t *m) { return &m->cfg; }
/* The worker's half, which the driver hands to its worker thread (worker.h). */
static inline lw_worker_t *lw_monset_core_worker(lw_monset_core_t *m) { return &m->worker; }
/* A monitor's recorded values since the last flush, and every heartbeat's self-lag. */
static inline const lw_batch_t *lw_monset_core_batch(const lw_monset_core_t *m, lw_mon_t mon) { return &m->batch[mon]; }
static inline const lw_batch_t *lw_monset_core_self_lag_batch(const lw_monset_core_t *m) { return &m->self_lag_batch; }
/* The metric histograms (lw_monset_core_keep_aggregates), or NULL while they are not kept. */
static inline const lw_agg_t *lw_monset_core_agg(const lw_monset_core_t *m, lw_mon_t mon) {
  return m->aggs ? &m->aggs->mon[mon] : NULL;
}
static inline const lw_agg_t *lw_monset_core_self_lag_agg(const lw_monset_core_t *m) {
  return m->aggs ? &m->aggs->self_lag : NULL;
}
/* The loop's active and idle time over idleAvailability's recorded periods. */
void lw_monset_core_loop_time(const lw_monset_core_t *m, double *active_ms, double *idle_ms);
/* Real time: how early a timer that measures nothing of its own lateness may fire with another
 * (LW_COALESCE_MS; 0, the default, on the simulation). */
static inline void lw_monset_core_set_coalesce(lw_monset_core_t *m, double ms) { m->coalesce_ms = ms; }
/* Real time: how late the timers that measure nothing of their own lateness may wait, while the
 * loop waits, for a wake-up (LW_NEVER: the next one; 0, the default, on the simulation). */
static inline void lw_monset_core_set_share(lw_monset_core_t *m, double ms) { m->share_ms = ms; }
/* 1 while they wait for it: the loop waits (a lateness timer asleep) and the heartbeat runs. */
static inline int lw_monset_core_sharing(const lw_monset_core_t *m) {
  return m->share_ms > 0 && m->asleep != 0 && m->running[LW_MON_WORKER];
}
/* A debugger held the main thread from `since` until `until` (INFINITY: it still does, as the
 * main thread last heard): `debugger` evidence over that span, opened while it lasts and closed
 * when its end is known (SPEC §2: discarded, never a stall; §5: no part of a sample's own time). */
void lw_monset_core_debugged(lw_monset_core_t *m, double since, double until, double now);
/* A SIGCONT that came since the main thread last looked for evidence, as the driver read it. */
typedef struct lw_continue_s {
  double at;            /* when the process was continued (its handler's clock reading) */
  double worker_before; /* the worker thread's last run at or before `at`; -INFINITY: none */
  int worker_after;     /* the worker ran after `at`: that run tells the stop itself (worker.h) */
} lw_continue_t;
/* The main thread looks for evidence at `now` (each time the driver hands the worker's messages
 * over), with `cont`, or NULL if no SIGCONT came since its last look. The process was stopped from
 * the last moment any of its threads was seen running before the continue (this thread's looks,
 * the worker's last run) until the continue: `pause` evidence over that span, exact, even for a
 * stop shorter than the worker can see (SPEC §5). Returns 1 if evidence was added. */
int lw_monset_core_look(lw_monset_core_t *m, const lw_continue_t *cont, double now);
/* Messages from the worker thread, received on the main thread at `now`: the evidence of all
 * of them is applied before any of their samples is judged. */
void lw_monset_core_receive(lw_monset_core_t *m, const lw_msg_t *msgs, size_t n, double now);
/* Evidence before judgment (SPEC §4), the clock's part: takes clockDrift's reading if it is due
 * (or at once with `force`, the final evidence of a stop). Drivers call it, after handing over
 * the worker's messages, whenever the main thread runs and before anything is judged. */
void lw_monset_core_clock_evidence(lw_monset_core_t *m, double now, int force);

/* The main thread's cumulative times by state now, each counted once: on a CPU, waiting on a run
 * queue, held by its cgroup's quota (NAN where unknown). Returns LW_OK, or LW_ENOENT if nothing
 * can be read. */
int lw_monset_core_main_states(const lw_monset_core_t *m, lw_thread_times_t *out);

#endif /* LW_CORE_MONITORS_H_ */
