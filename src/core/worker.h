/* The worker thread's rules (SPEC §6 worker and liveness, §12): its heartbeat, the main thread's
 * progress and the hangs it shows, the stops of the whole process told from starvation, all as
 * messages that the driver carries to the main thread (lw_monset_core_receive).
 *
 * Thread ownership: while the driver's worker thread runs, only it calls lw_worker_run() and
 * lw_worker_next_due(), and lw_worker_run() calls only the readings of lw_worker_readings_t.
 * The main thread starts and stops the worker's monitors (lw_worker_start/_stop) and calls
 * lw_worker_finish() only while no worker thread runs (before it starts, once it is joined).
 */
#ifndef LW_CORE_WORKER_H_
#define LW_CORE_WORKER_H_

#include "../platform/times.h"
#include "config.h"

/* Messages from the worker thread to the main thread. */
typedef enum {
  LW_MSG_HEARTBEAT = 1, /* sent_at, self_lag; evidence when ev_reason != LW_REASON_NONE */
  LW_MSG_PING = 2,      /* wake the main loop so that it shows progress */
  LW_MSG_HANG_START = 3,
  LW_MSG_HANG_END = 4,  /* hang_start, detected_at, hang_end; the cause readings */
  LW_MSG_EVIDENCE = 5,  /* a stop the worker saw between heartbeats: ev_* */
  /* With blocks.stacks (config's block_watch): the main thread has made no progress for the block
   * threshold (hang_start, detected_at; the stack thread is woken), and the block ended (as
   * HANG_END: its end and cause readings). A block that grows into a hang is both. */
  LW_MSG_BLOCK_START = 6,
  LW_MSG_BLOCK_END = 7
} lw_msg_type_t;

/* Linux: a lateness of the worker's own timer this long or longer, without as much growth of its
 * run-queue delay, is a stop of the process (SPEC §12). */
#define LW_STOP_MIN_MS 100.0
/* How often the worker refreshes its own run-queue baseline (one read of its schedstat). */
#define LW_SELF_BASE_MS 1000.0
/* A cause's baseline read as the worker began a rest holds while the main loop has run less than
 * this in all since (short iterations between waits: their CPU then inside the span); after more,
 * it is read again (lw_worker_run). No stop of the process hides in so little. */
#define LW_REST_BUSY_MS LW_STOP_MIN_MS
/* The longest rest: a stop that lands in a rest is seen when it makes the worker LW_STOP_MIN_MS
 * late, so a rest this long lets no stop of a second or more go unseen, wherever it begins. */
#define LW_REST_MAX_MS (1000.0 - LW_STOP_MIN_MS)
/* The most messages one lw_worker_run() writes. */
#define LW_WORKER_MSGS_MAX 6

typedef struct lw_msg_s {
  lw_msg_type_t type;
  double sent_at;
  double self_lag;
  uint32_t ev_reason; /* LW_REASON_SUSPEND / LW_REASON_PAUSE, or LW_REASON_NONE for none */
  double ev_start;
  double ev_end;
  int ev_exact; /* ev_end is when the stop ended (a SIGCONT), not when the worker saw it */
  /* HEARTBEAT: sent while the main loop waited in its poll, which would have answered it at once
   * (its lateness is 0); the driver need not wake the main thread for it. */
  int quiet;
  double hang_start;
  double detected_at;
  double hang_end;
  /* HANG_END: the time of stops inside the hang (each under the stall threshold), taken out of its
   * duration; its start stays where the loop last made progress. */
  double hang_stopped;
  /* HANG_END: the main thread's times over [cause_start, cause_end], with cause_stopped ms of
   * stops inside; cause_known 0 if nothing could be read. */
  int cause_known;
  lw_thread_times_t cause_delta;
  double cause_start;
  double cause_end;
  double cause_stopped;
} lw_msg_t;

/* The clocks the worker thread reads, each safe to call from it while the main thread runs.
 * A NULL reading is unknown. */
typedef struct lw_worker_readings_s {
  /* The sleep-clock pair (inclusive, exclusive of a suspend), ms; -1 without a pair. */
  int (*sleep_pair)(void *data, double *inclusive, double *exclusive);
  /* The last moment the main loop was seen waiting in its poll (the end of its last finished
   * wait, or about now during one); NAN if unknown. A main loop that waits is not hung. */
  double (*main_avail)(void *data);
  /* 1 if the main loop is in its poll's wait now, as far as the driver can tell (the poll
   * phase's callbacks may be running); NULL if unknown: the worker then never rests. */
  int (*main_waiting)(void *data);
  /* 1 if the main loop is inside its poll's wait at this very moment (the wait's own clock runs),
   * 0 if not or unknown; NULL: unknown. */
  int (*main_in_poll)(void *data);
  /* The main loop's time outside its poll's waits up to its last progress stamp, a running total
   * (only its growth counts); NAN if unknown. */
  double (*main_busy)(void *data);
  /* The main thread's times by state, read during a hang; -1 where nothing can be read. */
  int (*main_sched)(void *data, lw_thread_times_t *out);
  /* Where main_sched reads may have moved (the process's cgroup): look again, cheaply; 1 if it
   * moved. Called at the first check without progress after progress (a hang may be starting),
   * never while the loop is healthy. NULL: nothing to look at. */
  int (*main_renew)(void *data);
  /* Since when a debugger holds the main thread (a breakpoint, a step), or NAN: the thread
   * makes no progress then, and it is no hang (SPEC §2's reason `debugger`). NULL: never. */
  double (*main_debugged)(void *data);
  /* The worker thread's own times (its run-queue delay tells a stop from starvation); -1:
   * unknown (SPEC §6's fallback then decides: a lateness at the threshold is a stop). */
  int (*self_sched)(void *data, lw_thread_times_t *out);
  void *data;
} lw_worker_readings_t;

/* The hang being watched (liveness): flagged at the stall threshold, ended by the next progress:
 * where the loop last made progress, the stops inside it (each under the threshold), when it was
 * flagged. */
typedef struct lw_worker_hang_s {
  int active;
  double start;
  double stopped;
  double detected;
} lw_worker_hang_t;

/* The block being watched (config's block_watch): flagged at the block threshold, ended by the
 * next progress; one at a time, a hang's time included. */
typedef struct lw_worker_block_s {
  int active;
  double start;
  double detected;
} lw_worker_block_t;

/* The main thread's times at the first check that saw no progress: the cause's baseline. Read as
 * the worker began a rest (the main loop waiting, `at_rest`), the span starts where the loop last
 * waited (`avail`), the wait having added nothing to the times; `busy` is the main loop's busy
 * total (readings' main_busy) then. */
typedef struct lw_worker_cause_base_s {
  int has_base;
  lw_thread_times_t base;
  double base_at;
  double stopped;
  int at_rest;
  double avail;
  double busy;
} lw_worker_cause_base_t;

/* The worker's own times, refreshed every LW_SELF_BASE_MS and at each judged lateness, with the
 * main thread's CPU time then (NAN where it cannot be read): a stop stops it too. */
typedef struct lw_worker_self_base_s {
  int has_base;
  lw_thread_times_t base;
  double base_at;
  double main_cpu;
} lw_worker_self_base_t;

typedef struct lw_worker_s {
  const lw_monset_core_config_t *cfg;
  lw_worker_readings_t rd;
  int heartbeat_on;
  int liveness_on;
  double heartbeat_due;
  double liveness_due;
  double prev_fire; /* last run of the worker's timer */
  double ran_until; /* when the driver's own work after that run ended (lw_worker_ran_until) */
  double before_prev; /* the run before it */
  int prev_stopped;   /* that last run judged itself late by a stop */
  double prev_sleep_diff;
  int has_sleep_diff;
  double last_progress_seen; /* the main thread's progress stamp last read */
  double last_progress_at;   /* when progress was last seen (or reset by self-lag) */
  /* The stop time (each stop under the stall threshold) that moved last_progress_at since it was
   * last set by the loop itself: last_progress_at less this is when the loop last made progress,
   * where a hang that is flagged starts. */
  double stopped_since;
  int has_avail;             /* the main loop's availability at the previous check */
  double avail_prev;
  int ping_sent;
  int renewed; /* main_renew was called since the main thread's last progress */
  int continued; /* lw_worker_continued() before this run: a stop ended */
  lw_worker_hang_t hang;
  lw_worker_block_t block;
  lw_worker_cause_base_t cause;
  lw_worker_self_base_t self;
} lw_worker_t;

/* The sleep-clock difference (inclusive - exclusive) into `*diff`: 1, or 0 without a pair (or
 * with `enabled` 0). Either thread, with its own reading. */
int lw_sleep_diff(int (*pair)(void *data, double *inclusive, double *exclusive), void *data,
                  int enabled, double *diff);

void lw_worker_init(lw_worker_t *w, const lw_monset_core_config_t *cfg, const lw_worker_readings_t *rd);
/* Main thread, no worker thread running: starts the heartbeat (the worker monitor) or the
 * liveness check at `now`; the first of them starts the hang detector afresh. */
void lw_worker_start(lw_worker_t *w, int heartbeat, double now);
void lw_worker_stop(lw_worker_t *w, int heartbeat);
/* 1 while the heartbeat or the liveness check runs. */
int lw_worker_on(const lw_worker_t *w);
/* While the main loop waits (readings' main_waiting), the worker rests: its liveness checks come
 * once per worker interval (with the heartbeat when it runs) instead of every liveness interval,
 * and always at the moments a hang or the ping could be due, so a hang is flagged as exactly as
 * before. A stop that begins while the worker rests is seen up to a worker interval after it
 * began (the monitors' stopped_near() allows for that). */
double lw_worker_next_due(const lw_worker_t *w);
/* Worker thread. `progress` is the main thread's last progress stamp. Writes up to
 * LW_WORKER_MSGS_MAX messages to `out` and returns their number. */
size_t lw_worker_run(lw_worker_t *w, double now, double progress, lw_msg_t *out);
/* Worker thread, after a run and the driver's own work that follows it (handing its messages over
 * under a lock, writing a running hang's record): that work ended at `t`. The next run's lateness
 * is judged from then at the earliest: a worker held up by its own lock or file I/O (not on the
 * run queue, so with no run-queue delay to show for it) was not stopped. */
void lw_worker_ran_until(lw_worker_t *w, double t);
/* Worker thread, before lw_worker_run(): the process was continued (SIGCONT) at `at`, after a
 * stop that began after the worker's last run. Writes that pause evidence to `out` and returns 1,
 * or 0 if the worker's monitors are off or `at` is not after its last run. */
size_t lw_worker_continued(lw_worker_t *w, double at, lw_msg_t *out);
/* The worker thread has stopped and the main thread runs (SPEC §4, stopping loses nothing): a
 * block and a hang the worker flagged have ended by now. Writes their BLOCK_END and HANG_END
 * (with the cause read now) to `out` (room for 2) and returns how many. */
size_t lw_worker_finish(lw_worker_t *w, double now, lw_msg_t *out);
/* Worker thread, after lw_worker_run(): the hang in progress, if one is, as a HANG_END that
 * would end it now (the cause so far, read now), written to `out`; returns 1, or 0 if none.
 * Nothing changes: what a record of the running hang carries (a process may die hung). */
int lw_worker_hang_peek(const lw_worker_t *w, double now, lw_msg_t *out);
/* Whether the worker has flagged a hang that has not ended. */
int lw_worker_hang_active(const lw_worker_t *w);

/* worker-stops.c, for lw_worker_run(): 1 if the run at `now`, its timer due at `due` and `late`
 * ms late, was held by a stop of the whole process (not starved, not held up alone); `*slept`:
 * what the sleep clock counted since the last run (0 if unknown). */
int lw__worker_stopped(lw_worker_t *w, double now, double due, double late, double *slept);

#endif /* LW_CORE_WORKER_H_ */
