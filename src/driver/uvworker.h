/* The worker thread of the uv driver: a uv_thread with its own uv_loop_t and one timer, running
 * the worker's half of the monitors (heartbeat, liveness). It touches no JS and no main-loop
 * handle: it reads the main thread's progress stamp (an atomic) and hands its messages over
 * through a mutex-guarded pair of fixed buffers, signalling the main loop with `notify` (a
 * uv_async_t of the main loop, owned by the caller). uv_async_send coalesces, so the main side
 * takes the whole buffer each time.
 *
 * Memory: nothing is allocated once the worker runs. The worker fills one buffer while the main
 * thread reads the other; lw_uvworker_drain() swaps them under the lock. A message that finds
 * its buffer full is counted (`lost`), never dropped in silence. Main-thread functions and
 * worker-thread functions are marked. */
#ifndef LW_DRIVER_UVWORKER_H_
#define LW_DRIVER_UVWORKER_H_

#include <uv.h>

#include "../core/worker.h"
#include "../platform/atomic.h"

/* Messages one buffer holds: a main thread blocked for four minutes fills it with heartbeats. */
#define LW_UVWORKER_QUEUE_MAX 256

/* Heartbeats answered while the main loop waited (lw_msg_t's quiet) are handed over without a
 * wake-up, at the main thread's next iteration, until this many wait: then one wakes it, so that
 * what its timers measure over a long wait is caught up at least this often (about once half a
 * minute, with the default interval). */
#define LW_UVWORKER_QUIET_MAX 30

#define LW_UVWORKER_RUNS_KEPT 4

typedef struct lw_uvworker_s {
  lw_worker_t *w; /* the worker thread's while it runs (with its readings), the main thread's otherwise */
  uint64_t origin_ns;
  uv_async_t *notify;
  /* Worker thread: called when it flags a hang (the stack thread's wake-up), or NULL. */
  void (*on_hang)(void *data, double detected_at, int block); /* a hang's or a block's start */
  void *on_hang_data;
  /* Worker thread: called after each run with its messages (the hang record), or NULL. */
  void (*after_run)(void *data, const lw_msg_t *msgs, size_t n, double now);
  void *after_run_data;
  /* The main thread's last progress, in ns since origin_ns; INT64_MIN: none yet. Written by the
   * main thread (release), read by the worker (acquire). */
  lw_atomic_i64 progress_ns;
  /* Written with progress_ns: its time less the main loop's idle time then (ns; INT64_MIN:
   * none), and whether the poll that follows may wait (until check_cb clears it). */
  lw_atomic_i64 avail_base_ns;
  lw_atomic_i64 waiting;
  /* The worker's next due time (ns since origin_ns; INT64_MAX: none) and its number of runs:
   * written by the worker (release), read by the main thread to wait for an overdue worker. */
  lw_atomic_i64 next_due_ns;
  lw_atomic_i64 runs;
  /* The times of its last LW_UVWORKER_RUNS_KEPT runs (ns since origin_ns, slot runs % kept):
   * written by the worker, read by the main thread (when the process was last seen running
   * before a SIGCONT). 0: none. */
  lw_atomic_i64 run_ns[4];
  uint64_t cont_seen; /* worker thread: the SIGCONT count at its last run */
  /* Whether this worker ends the process at a signal its main thread does not take
   * (platform/sigend.h): written by the main thread, read by the worker, whose next run then
   * comes no later than that signal's deadline. */
  lw_atomic_i64 ends_signals;
  int64_t awaited_due_ns; /* main thread: the due time it last waited for */
#ifdef LW_TEST_HOOKS
  int test_late_ms; /* worker thread: uvworker.c's test_hold_after_stop() */
#endif
  /* Messages waiting in the fill buffer: written under `mu`, read without it as a hint. */
  lw_atomic_i64 pending;
  uv_mutex_t mu;
  lw_msg_t bufs[2][LW_UVWORKER_QUEUE_MAX]; /* guarded by mu: bufs[fill] is the worker's */
  int fill;
  size_t nfill;
  uint64_t lost; /* guarded by mu: messages that found the fill buffer full */
  int running;
  lw_atomic_i64 stop;
  uv_thread_t thread;
  uv_loop_t loop;
  uv_timer_t timer;
  uv_async_t wake;
} lw_uvworker_t;

/* Main thread. */
int lw_uvworker_init(lw_uvworker_t *uw, lw_worker_t *w, uint64_t origin_ns, uv_async_t *notify);
void lw_uvworker_free(lw_uvworker_t *uw); /* stops the thread first */
/* Starts the thread; does nothing if it runs. Returns 0, or a libuv error (no file descriptor
 * for its loop, no thread): nothing runs then. */
int lw_uvworker_start(lw_uvworker_t *uw);
void lw_uvworker_stop(lw_uvworker_t *uw); /* stops and joins; does nothing if stopped */
/* The main thread showed progress at `now` (ms), its loop's idle time being `idle` (ms). */
void lw_uvworker_progress(lw_uvworker_t *uw, double now, double idle);
/* Any thread: the time (ms) of the main thread's last progress; -INFINITY before any. */
double lw_uvworker_progress_at(lw_uvworker_t *uw);
/* The main thread: its poll may wait (prepare), or it has stopped waiting (check). */
/* Inline: the hooks call it at every iteration; a store only when the state changes. */
static inline void lw_uvworker_set_waiting(lw_uvworker_t *uw, int waiting) {
  if (lw_atomic_load_relaxed(&uw->waiting) != waiting) lw_atomic_store(&uw->waiting, waiting);
}
/* Worker thread: the last moment the main loop was seen waiting, given its idle time now (ms;
 * libuv's reading counts the wait in progress): the end of the wait that followed the last
 * progress, or about now while it lasts; NAN before any progress. Read the idle time first: a
 * progress published in between then makes the result early, never late. */
double lw_uvworker_avail(lw_uvworker_t *uw, double idle);
/* Worker thread: the main loop's time outside its poll's waits up to its last progress (ms, a
 * running total: its last progress less its idle time then); NAN before any progress. */
double lw_uvworker_busy(lw_uvworker_t *uw);
/* Worker thread: 1 if the main loop's poll may be waiting now. */
int lw_uvworker_waiting(lw_uvworker_t *uw);
/* Evidence first at a wake-up (SPEC §12): if the worker is overdue by LW_STOP_MIN_MS or more
 * at `now` (ms) — the process was stopped or starved, both threads resume — waits up to
 * LW_UVWORKER_AWAIT_MS for it to run once, so that its messages about the stop are there before
 * the main thread judges its own samples. Waits at most once per due time of the worker, and
 * only as long as the worker has not run: at a thaw both threads are woken, and under load the
 * scheduler has given the worker its CPU more than 10 ms after the main thread (the wait was
 * 10 ms then, and a freezer's second was recorded as lag). */
void lw_uvworker_await_overdue(lw_uvworker_t *uw, double now);
#define LW_UVWORKER_AWAIT_MS 100
/* 1 if messages may be waiting: a cheap check before lw_uvworker_drain(). */
int lw_uvworker_pending(lw_uvworker_t *uw);
/* Main thread: the latest run of the worker at or before `at` (ms), or -INFINITY. */
double lw_uvworker_ran_before(lw_uvworker_t *uw, double at);
/* Takes every waiting message: `*out` points at them (valid until the next drain) and their
 * number is returned; the messages lost since the last drain are added to `*lost`. */
size_t lw_uvworker_drain(lw_uvworker_t *uw, const lw_msg_t **out, uint64_t *lost);

#endif /* LW_DRIVER_UVWORKER_H_ */
