/* What the files of the monitor set share, not part of its interface (monitors.h). */
#ifndef LW_CORE_MONITORS_INTERNAL_H_
#define LW_CORE_MONITORS_INTERNAL_H_

#include "internal.h"
#include "monitors.h"

#include <stddef.h>

/* monitors.c */
/* Submits a monitor's sample: the verdict (LW_VERDICT_*), or LW_ENOMEM (counted as lost). */
int lw__mon_submit(lw_monset_core_t *m, lw_mon_t mon, double value, double window, double now);
/* A value for a batch to JS; one that cannot join it is counted as lost. */
void lw__mon_batch_push(lw_monset_core_t *m, lw_batch_t *b, double value);
/* An evidence interval for the tracker; one that cannot be stored is counted as lost. */
void lw__mon_evidence_add(lw_monset_core_t *m, double start, double end, uint32_t reason, double now);
/* The main thread ran at `now` (a hang ends where it first runs again). */
void lw__mon_activity(lw_monset_core_t *m, double now);

/* A monitor (SPEC §6): its row of the monitor table (monitors.h), defined in its own file. */
#define LW__MON_VALIDATED 1u     /* submits samples to a validator of its own */
#define LW__MON_RATIO 2u         /* its samples are ratios: never stalls, the ratio buckets */
#define LW__MON_EVIDENCE 4u      /* evidence only: never paused while the app is hidden */
#define LW__MON_WORKER_THREAD 8u /* runs on the worker thread: Electron's main process keeps it
                                  * running while every window is hidden */
#define LW__MON_LOOP_HOOKS 16u   /* needs the loop's iteration hooks (its samples, the progress
                                  * stamp the worker reads) */
/* What a monitor's main-thread timer is (lw__mon_desc_t.timer). */
typedef enum {
  LW__TIMER_NONE = 0, /* not armed */
  LW__TIMER_EXACT,    /* fires at its due time: it measures its own lateness */
  LW__TIMER_SOFT      /* may fire a little early or late with another wake-up (LW_COALESCE_MS) */
} lw__timer_t;
typedef struct lw__mon_desc_s {
  const char *name; /* its public name */
  unsigned flags;   /* LW__MON_* */
  lw_mon_metric_t metric; /* its metric histogram (SPEC §10), for a validated monitor */
  /* Its options ("driftLag.intervalMs", ...), fields of lw_monset_core_config_t (config.h). */
  const lw_option_row_t *options;
  size_t noptions;
  /* Called when it starts and before it stops (NULL: nothing to do). */
  void (*start)(lw_monset_core_t *m, double now);
  void (*stop)(lw_monset_core_t *m, double now);
  /* Its main-thread timer while it runs (NULL: none), and its due time; `in_run` within
   * lw_monset_core_run(), where a task queued in the same run waits for the next. */
  lw__timer_t (*timer)(const lw_monset_core_t *m, int in_run, double *due);
  void (*fire)(lw_monset_core_t *m, double now);
  /* A recorded sample of its own, after its batch and metric histogram (NULL: nothing more). */
  void (*recorded)(lw_monset_core_t *m, double value, double window_ms, double end);
  /* A lateness timer that sleeps while the loop waits (asleep.c; NULL: it never does). `sleep`:
   * 1 if it may sleep through the wait that begins at `now`. `wake`: the loop runs again at
   * `now`; what the timer would have done since it slept is done, up to `until` when the
   * wake-up came on time (`held` 0), or at once when it was held (1). */
  int (*sleep)(const lw_monset_core_t *m, double now);
  void (*wake)(lw_monset_core_t *m, double now, double until, int held);
  /* A timer that waits for the wake-up the worker brings while the loop waits (LW_SHARE_MS;
   * NULL: none to catch up): what it would have done over the wait from `since` to `end`, the
   * loop's idle time at `end` being `idle_end`. An evidence source's comes first. */
  void (*caught_up)(lw_monset_core_t *m, double since, double end, double idle_end, double now);
  /* Its private state, a struct its own file defines: its size (the set allocates it zeroed at
   * init, for the set's life, whether it runs or not), and its fields by name, which
   * lw__mon_field() reads for a white-box test. Its hooks (NULL: nothing to do): `init` sets it
   * before any start (LW_OK, or LW_ENOMEM), `free` frees what it holds (after a failed init too),
   * `memory` is the heap memory it holds, `release` keeps only what the last reads need
   * (lw_monset_core_release). */
  size_t state_size;
  const struct lw__mon_field_s *fields;
  size_t nfields;
  int (*init)(lw_monset_core_t *m);
  void (*free)(lw_monset_core_t *m);
  size_t (*memory)(const lw_monset_core_t *m);
  void (*release)(lw_monset_core_t *m);
} lw__mon_desc_t;

/* A field of a monitor's state by name (lw__mon_desc_t.fields). */
typedef struct lw__mon_field_s {
  const char *name;
  size_t offset;
} lw__mon_field_t;
#define LW__MON_FIELD(type, field) {#field, offsetof(type, field)}
/* A descriptor's `.state_size`, `.fields` and `.nfields` from its state's type and its array of
 * LW__MON_FIELD rows. */
#define LW__MON_STATE(type, rows) \
  .state_size = sizeof(type), .fields = (rows), .nfields = sizeof(rows) / sizeof((rows)[0])
/* Monitor `mon`'s state, as its own file's struct. */
static inline void *lw__mon_state(const lw_monset_core_t *m, lw_mon_t mon) { return m->state[mon]; }
/* monitors.c: the field `name` of monitor `mon`'s state, or NULL if it has none of that name. */
void *lw__mon_field(const lw_monset_core_t *m, lw_mon_t mon, const char *name);

#define LW__MON_DECLARE(id, desc) extern const lw__mon_desc_t desc;
LW_MONITOR_TABLE(LW__MON_DECLARE)
LW_SOURCE_TABLE(LW__MON_DECLARE)
#undef LW__MON_DECLARE

/* monitors.c: row `mon`'s descriptor (a monitor's or an evidence source's). */
const lw__mon_desc_t *lw__mon_desc(lw_mon_t mon);
/* monitors.c: monitor `mon`'s option rows, and their number in `*n`. */
const lw_option_row_t *lw__mon_options(lw_mon_t mon, size_t *n);
#define LW__MON_OPTION(name, field, kind, dflt) {name, offsetof(lw_monset_core_config_t, field), kind, dflt}
/* A descriptor's `.options` and `.noptions` from its array of LW__MON_OPTION rows. */
#define LW__MON_OPTIONS(rows) .options = (rows), .noptions = sizeof(rows) / sizeof((rows)[0])

/* loop.c */
/* The time the main thread was available to its loop, up to `now` (both loop models). */
double lw__mon_idle_now(const lw_monset_core_t *m, double now);
/* The process was continued at `at` (SIGCONT): a poll that waited then restarted its wait. */
void lw__mon_continued_at(lw_monset_core_t *m, double at);
/* The loop's busy time up to `now`, counting the iteration in progress; and up to the last
 * iteration judged. */
double lw__mon_busy_until(const lw_monset_core_t *m, double now);
double lw__mon_busy_total(const lw_monset_core_t *m);

/* A lateness timer may sleep while the loop waits once a firing came on time (`late`) over a
 * window in which the loop mostly waited: a busy loop may wait at every iteration (a poll for
 * I/O that is already there), and sleeping then would only add work to each iteration. */
static inline int lw__mon_may_sleep(double late, double busy, double window) {
  return late < LW_SLEEP_LATE_MS && busy < window / 2;
}

/* asleep.c: whether monitor `mon`'s timer sleeps now; and when a timer due at `t` fired, as the
 * wait it slept through shows: at `t`, or when the process ran again after a stop the evidence
 * shows then (at most `now`). */
static inline int lw__mon_asleep(const lw_monset_core_t *m, lw_mon_t mon) {
  return (m->asleep >> mon) & 1u;
}
double lw__mon_fired_at(lw_monset_core_t *m, double t, double now);

/* workermon.c: the worker's messages of the `worker` and `liveness` rows (ev-worker.c hands them
 * over, after their evidence): a heartbeat received at `now`; a hang flagged; a hang that ended
 * at `end`, a `worker_hang` event; the causes of the worker hangs an episode overlaps; stats(). */
void lw__mon_heartbeat_received(lw_monset_core_t *m, const lw_msg_t *msg, double now);
void lw__mon_hang_started(lw_monset_core_t *m);
void lw__mon_hang_ended(lw_monset_core_t *m, const lw_msg_t *msg, double end, double now);
void lw__mon_hang_causes_for(const lw_monset_core_t *m, lw_event_t *ev);
void lw__mon_worker_stats(const lw_monset_core_t *m, lw_monset_core_stats_t *out);

/* timerthrottle.c: driftLag's firing `lateness` late over a window from `window_start` in which
 * the loop was busy for `busy`; the end of its open interval at `now`, if any; and whether one is
 * open (driftLag's firings end it: its timer keeps firing). */
void lw__mon_throttle_check(lw_monset_core_t *m, double lateness, double window_start, double busy,
                            double now);
void lw__mon_throttle_close(lw_monset_core_t *m, double now);
int lw__mon_throttle_open(const lw_monset_core_t *m);

#endif /* LW_CORE_MONITORS_INTERNAL_H_ */
