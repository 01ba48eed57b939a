/* A monitor set's wiring (SPEC §6): the core's monitors (src/core/monitors.c and the monitors'
 * files, worker.c) driven by the
 * simulation or by libuv, with everything between the rules and the JS binding:
 *
 * - the clocks the rules read (lw_readings_t): the simulation's, or the platform's;
 * - the worker thread and its messages: in the simulation a client of its own and a timestamped
 *   queue; in real time src/driver/uvworker.c and a uv_async_t of the main loop;
 * - the main-thread hooks: loopBlock's iteration hook and the progress stamp (the simulation's
 *   turns, or an unref'd uv_prepare_t) and the timers (one client of the thread's driver);
 * - evidence before judgment (SPEC §4): whenever the main thread runs, the worker's messages
 *   that have arrived and a due clockDrift reading are applied before anything is judged (the
 *   client's evidence hook, which the drivers call first);
 * - the flush protocol: events and, when due, the batches are handed to the owner;
 * - stopping without loss: lw_monset_finish() gathers the final evidence, resolves every held
 *   sample and reports every waiting episode.
 *
 * The owner (the binding) gets callbacks and never touches these fields. All functions run on
 * the main thread. */
#ifndef LW_DRIVER_MONSET_H_
#define LW_DRIVER_MONSET_H_

#include "../core/monitors.h"
#include "sim.h"
#include "uvtimer.h"
#include "uvworker.h"
#include "hangrec.h"
#include "../core/spans.h"
#include "../core/hangline.h"
#include "../platform/threadtimes.h"

typedef struct lw_monset_s lw_monset_t;
typedef struct lw_monset_backend_s lw_monset_backend_t; /* monset-internal.h */

typedef struct lw_monset_owner_s {
  /* Before the main-thread timers run: the owner asks the lifecycle reader, if it has one. */
  void (*read)(void *data);
  /* Events are queued in the conditions and, with `batches`, the batches are ready: hand them
   * over now (lw_monset_batches() reads them). `from_loop`: called from a libuv callback. */
  void (*deliver)(void *data, int batches, int from_loop);
  /* Real time: the last handle of the set is closed; lw_monset_free() may run. */
  void (*closed)(void *data);
  void *data;
} lw_monset_owner_t;

/* Simulation: the worker's messages in flight, with the time each was sent; the worker thread's
 * last run and the SIGCONTs it has seen (sim.h), as uvworker.c keeps them. */
typedef struct lw_monset_inflight_s {
  lw_msg_t *msgs;
  double *at;
  size_t n;
  size_t cap;
  double worker_ran;
  uint64_t worker_conts;
} lw_monset_inflight_t;

/* Real time: what the prepare and check hooks keep from one iteration to the next. */
typedef struct lw_monset_hooks_s {
  uint64_t check_loop_raw; /* uv_now() at the end of the last iteration's poll (check_cb), or
                            * at the last timed prepare while the check hook is off; 0: none */
  int check_on;            /* the check hook runs (check_needed) */
  int suspect_outside;     /* iterations whose end is still read from the clock */
  uint64_t prepare_raw;    /* uv_now() at the last prepare */
  int merge_ok; /* the last timed prepare allows the next ones of its millisecond to merge */
} lw_monset_hooks_t;

/* Real time: the worker's last sighting of the main loop inside its poll's wait (core
 * monitors.h: poll_seen), written by the worker under a sequence count (odd while it writes),
 * read by the main thread: ns on the set's clock, libuv's idle ns, the main thread's runnable ns
 * (INT64_MIN: unknown). */
typedef struct lw_monset_seen_s {
  lw_atomic_i64 seq, at_ns, idle_ns, runnable_ns;
} lw_monset_seen_t;

/* Real time: libuv's handles and the readings of the main thread and its worker
 * (monset-uv.c, monset-uv-readings.c). */
typedef struct lw_monset_rt_s {
  int uv_ready;
  unsigned open_handles;
  uv_prepare_t prepare;
  uv_check_t check;
  lw_monset_hooks_t hook;
  int runq_known;   /* the main thread's run-queue delay can be read (Linux schedstat) */
  double runq_last; /* the last run-queue delay read of it (monset-uv-readings.c) */
  /* libuv's idle time at the last reading, and whether no poll since could have waited. */
  double idle_last;
  int idle_valid;
  double origin_ms;     /* the loop's time origin: uv_now() - origin_ms is on the set's clock */
  uv_async_t async;
  lw_uvworker_t *uw; /* allocated in real time only: its message buffers are large */
  lw_thread_src_t main_src; /* the main thread's times, read by the worker thread */
  uint64_t cont_seen;    /* the SIGCONTs seen (platform/sigcont.h; the simulation's in sim.h) */
  uint64_t dbg_changes; /* lw_debugger_changes() at the last look */
  lw_thread_src_t self_src; /* the worker thread's own: opened and read by it alone */
  lw_monset_seen_t seen;
} lw_monset_rt_t;

/* Real time: a hang while it runs (monset-uv-hangs.c): its entry in the registry of sets, its
 * record, and the line said on stderr (core/hangline.h) when `hangline_on` (set by the main
 * thread, read by the worker); the rest is the worker thread's. The stack's copy is allocated at
 * the first line (most sets never hang) and freed with the set. */
typedef struct lw_monset_hangs_s {
  uint64_t set_id; /* its entry in the registry of sets (sets.h), 0 if none */
  lw_hangrec_t rec; /* the record of a running hang, if a directory is set */
  lw_atomic_i64 hangline_on;
  lw_hangline_t hangline;
  char *hangline_stack;
  int hang_shown; /* worker thread: the registry entry holds a hang in progress (sets.h) */
} lw_monset_hangs_t;

struct lw_monset_s {
  /* private */
  const lw_monset_backend_t *be; /* the simulation's, or libuv's */
  lw_client_t main_client;   /* main-thread timers and the evidence hook */
  lw_client_t async_client;  /* simulation: the worker's messages reaching the main thread */
  lw_client_t worker_client; /* simulation: the worker thread */
  lw_monset_core_t core;
  lw_conditions_t *c;
  lw_sim_t *sim; /* the simulation, or NULL in real time */
  lw_uv_t *uv;   /* the thread's uv driver in real time */
  lw_monset_owner_t owner;
  int registered;
  int finished;
  int worker_error; /* the libuv error of the last worker start that failed, or 0 */
  lw_monset_inflight_t inflight; /* simulation */
  lw_monset_rt_t rt;             /* real time */
  lw_monset_hangs_t hangs;       /* real time */
  lw_spans_t gc; /* V8's GC pauses on the main thread, for the causes of its hangs */
};

/* Sets up a set on `c`: on `sim` if not NULL, else in real time on `uv`. Registers with the
 * driver. Returns LW_OK, LW_EDISPOSED (the conditions are disposed), LW_EINVAL (a config field
 * out of range), LW_ENOMEM, or LW_ETHREAD when a handle cannot be made; nothing is left
 * registered on failure and lw_monset_free() releases what was made. */
int lw_monset_init(lw_monset_t *s, lw_conditions_t *c, const lw_monset_core_config_t *cfg,
                   lw_sim_t *sim, lw_uv_t *uv, const lw_monset_owner_t *owner);
/* Frees the memory; in real time only after `closed` (or if init failed). */
void lw_monset_free(lw_monset_t *s);

double lw_monset_now(const lw_monset_t *s);
int lw_monset_running(const lw_monset_t *s, lw_mon_t mon);
/* Starts a monitor. Returns LW_OK; LW_EDISPOSED once the conditions are disposed (nothing
 * starts); or LW_ETHREAD when the worker thread cannot start (no file descriptor, no thread):
 * `worker` and `liveness` then do not run, the rest does, and lw_monset_worker_error() gives
 * libuv's error. */
int lw_monset_start(lw_monset_t *s, lw_mon_t mon);
int lw_monset_worker_error(const lw_monset_t *s);
/* Stops a monitor; the last one to stop hands the batches over. */
void lw_monset_stop(lw_monset_t *s, lw_mon_t mon);
/* Hands the batches over now. */
void lw_monset_flush(lw_monset_t *s);
/* JS entered this thread (a submit, a read of stats, a reader set): the one entry point of the
 * binding. Evidence first (the worker's messages that have arrived, a due clockDrift reading);
 * then, if driftLag and macrotaskLag slept while the loop waited, what they would have fired
 * since is caught up and they fire again (a lifecycle reader set meanwhile is then asked at their
 * firings). Returns 1 if that queued events or changed a due time of the conditions' (the caller
 * re-arms their timer); the set's own timer is re-armed here. */
int lw_monset_enter(lw_monset_t *s);
/* Real time, main thread: whether this set's worker ends the process at a signal lagwatch alone
 * listens to and the main thread does not take in time (platform/sigend.h; the handler is
 * installed over Node's when on). Nothing on a simulation. */
void lw_monset_end_signals(lw_monset_t *s, int on);
/* The set's id in the stacks registry (SPEC §12, stacks.h): 0 on a simulation. */
uint64_t lw_monset_set_id(const lw_monset_t *s);
/* Any thread: the hang in progress on the main thread of the set `set_id` (its entry in the
 * registry, sets.h), as its worker thread last saw it: 1 with how long it has held the thread
 * (`*held_ms`) and its cause so far (`*cause`, an lw_cause_kind_t, or -1: unknown); 0 if none,
 * or if no such set runs. Read while the main thread is held, by a metrics responder. */
int lw_monset_hang_now(uint64_t set_id, double *held_ms, int *cause);
/* Real time: the records of running hangs go to `dir` from now on (hangrec.h; NULL: nowhere),
 * `process` being the JSON of this process's identity. LW_OK, LW_ENOMEM, or LW_ENOENT on a simulation. */
int lw_monset_state_dir(lw_monset_t *s, const char *dir, const char *writer, int pid);
/* Real time: the set's thread is going away without the set being finished (a worker thread
 * terminated while its JavaScript was held): a hang in progress keeps its record, as terminated
 * (lw_hangrec_terminated). Call before lw_monset_close. */
void lw_monset_thread_ending(lw_monset_t *s);
/* Real time: whether the worker says on stderr, once per hang, that a hang is running (SPEC §14).
 * No-op on a simulation. */
/* Whether the line is said while a hang runs; `who` names the process on it, `json_head` "" for
 * text lines, else the first members of each line's JSON object (core/hangline.h). Returns LW_OK,
 * or LW_EINVAL when either does not fit (then the line is said unnamed, as text). */
int lw_monset_hang_line(lw_monset_t *s, int on, const char *who, const char *json_head);
/* Real time: when the main thread last made progress (the stamp its C worker reads), on the
 * set's clock; -INFINITY before any, and on a simulation. While it is older than a hang's
 * detection, that hang still holds the main thread. */
double lw_monset_progress_at(const lw_monset_t *s);
/* Record writes or removals that failed, and libuv's error of the first (0: none). */
uint64_t lw_monset_state_errors(const lw_monset_t *s, int *first_error);
/* Hangs that found the state directory refused when their record was first to be written (a
 * directory swapped after setup: hangrec.h), the first one's reason in `why` (at most `cap`
 * bytes; "" when none). */
uint64_t lw_monset_state_refused(const lw_monset_t *s, char *why, size_t cap);
/* A GC pause of V8 on the main thread, [start, start + duration_ms] (perf_hooks' gc entries,
 * which reach JS a loop iteration or two after the pause); one that is not finite or negative is
 * ignored. */
void lw_monset_gc(lw_monset_t *s, double start, double duration_ms);
/* The main thread's times by state now, each counted once (lw_monset_core_main_states): LW_OK, or
 * LW_ENOENT where they cannot be read. */
int lw_monset_main_times(lw_monset_t *s, lw_thread_times_t *out);
/* SPEC §4, stopping the whole set: stops the worker thread and receives its last messages,
 * takes one clockDrift reading, resolves every held sample and reports every waiting episode
 * (lw_conditions_dispose), stops every monitor and hands everything over. Idempotent. */
void lw_monset_finish(lw_monset_t *s);
/* Unregisters from the driver, stops the thread and closes the handles. Returns 1 if this call
 * began closing handles (real time: `closed` follows, from the loop), else 0. Idempotent. */
int lw_monset_close(lw_monset_t *s);
/* 1 while the set is registered with its driver (until lw_monset_close). */
int lw_monset_registered(const lw_monset_t *s);
/* 1 if the set owns libuv handles (real time): `closed` will be called once they are closed. */
int lw_monset_has_handles(const lw_monset_t *s);
void lw_monset_stats(const lw_monset_t *s, lw_monset_core_stats_t *out);
/* The set's blocks that evidence of reason id `reason` explained (blocks.h). */
uint64_t lw_monset_blocks_discarded(const lw_monset_t *s, uint32_t reason);
/* 1 once the loop is recognised as run from outside (Electron's). */
int lw_monset_embedded(const lw_monset_t *s);
/* The sleep-clock pair clockDrift and the worker read: the platform's pair by name, "simulated"
 * on a simulation, NULL when the option sleepClock is off or the pair cannot be read here. */
const char *lw_monset_sleep_clock(const lw_monset_t *s);
/* The batches of recorded values, per monitor, and the worker's self-lag batch. */
const lw_batch_t *lw_monset_batch(const lw_monset_t *s, lw_mon_t mon);
const lw_batch_t *lw_monset_self_lag_batch(const lw_monset_t *s);
/* Whether recorded values are kept in the batches for JS (lw_monset_core_keep_batches). */
void lw_monset_keep_batches(lw_monset_t *s, int keep);
int lw_monset_batches_wanted(const lw_monset_t *s);
/* The metric histograms of the recorded samples (core/aggregate.h), NULL unless kept
 * (lw_monset_core_keep_aggregates). */
const lw_agg_t *lw_monset_agg(const lw_monset_t *s, lw_mon_t mon);
const lw_agg_t *lw_monset_self_lag_agg(const lw_monset_t *s);
int lw_monset_keep_aggregates(lw_monset_t *s, int keep);
/* driftLag's recorded lateness and the loop's time over the window read now
 * (lw_monset_core_read_delay), counted from lw_monset_keep_delay on. */
void lw_monset_read_delay(const lw_monset_t *s, lw_delay_stats_t *out);
int lw_monset_keep_delay(lw_monset_t *s);
/* The loop's active and idle time over idleAvailability's recorded periods, since start. */
void lw_monset_loop_time(const lw_monset_t *s, double *active_ms, double *idle_ms);
/* Native memory the set holds, for the owner to report to its garbage collector. */
size_t lw_monset_memory(const lw_monset_t *s);

#endif /* LW_DRIVER_MONSET_H_ */
