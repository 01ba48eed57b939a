/* What the files of the monitor set share, not part of its interface (monset.h): monset.c holds
 * the common flow, monset-sim.c and monset-uv.c the two backends it runs on, each behind the
 * small table of functions below. */
#ifndef LW_DRIVER_MONSET_INTERNAL_H_
#define LW_DRIVER_MONSET_INTERNAL_H_

#include "monset.h"

#define LW_MONSET_OF(client, member) \
  ((lw_monset_t *)(void *)((char *)(client) - offsetof(lw_monset_t, member)))

/* How a set runs: on the simulation's virtual threads and clocks, or on libuv in real time. */
struct lw_monset_backend_s {
  double (*now)(const lw_monset_t *s);
  /* The clocks the core reads, by thread (core/monitors.h, core/worker.h). */
  void (*readings)(lw_monset_t *s, lw_readings_t *rd);
  /* Once the core is set up: the backend's clients, handles and worker, registered with the
   * driver. LW_OK, LW_ENOMEM, or LW_ETHREAD (s->worker_error says why). */
  int (*setup)(lw_monset_t *s);
  void (*unregister)(lw_monset_t *s);
  /* Receives every message of the worker that has arrived by `now`: 1 if there were any. */
  int (*receive)(lw_monset_t *s, double now);
  /* The worker has stopped and the main thread made its last messages (lw_worker_finish): they
   * are received after any still in flight. */
  void (*receive_last)(lw_monset_t *s, const lw_msg_t *msgs, size_t n, double now);
  /* When the loop last stopped waiting, at the latest `now`. */
  double (*idle_end)(const lw_monset_t *s, double now);
  /* Puts the backend's pieces in line with what runs (the loop's hooks, the worker thread).
   * Returns 0, or the worker thread's start error. */
  int (*sync)(lw_monset_t *s);
  /* The set's own timer, after a due time changed outside the driver's run. */
  void (*rearm)(lw_monset_t *s);
  /* Stops the worker thread, if one runs: the worker's half is then the main thread's. */
  void (*stop_worker)(lw_monset_t *s);
  /* Starts closing the backend's handles: 1 if `closed` will follow. */
  int (*close)(lw_monset_t *s);
  /* Nothing runs any more (lw_monset_finish): frees what only running needed. */
  void (*release)(lw_monset_t *s);
  void (*free)(lw_monset_t *s);
  const char *(*sleep_clock)(const lw_monset_t *s);
  size_t (*memory)(const lw_monset_t *s);
  /* At the set's finish, after the final evidence: the loop iteration in progress (at exit, the
   * loop's last, whose end no hook sees) measured up to `now`. NULL: the backend's iterations are
   * all seen (the simulation's). */
  void (*last_iteration)(lw_monset_t *s, double now);
  /* JS entered (lw_monset_enter): a poll that may have waited, if one is open, is over (JS runs
   * in its callbacks, after it). NULL: the backend judges its polls where they end (the
   * simulation's JS runs between its verbs, while its loop may still wait). */
  void (*poll_over)(lw_monset_t *s, double now);
};

extern const lw_monset_backend_t lw__monset_sim;
extern const lw_monset_backend_t lw__monset_uv;

/* monset-uv-readings.c: the real-time readings of a set; libuv's idle time (main thread). */
void lw__monset_uv_readings(lw_monset_t *s, lw_readings_t *rd);
double lw__monset_uv_idle(void *d);
/* monset-uv-readings.c: the main thread looks for the evidence others tell (a SIGCONT, a
 * debugger's pauses) and hands it to the core. 1 if evidence came. */
int lw__monset_uv_signals(lw_monset_t *s, double now);
/* monset-uv-hangs.c: the worker thread's callbacks at a hang's flag and after each of its runs. */
void lw__monset_uv_stacks_wake(void *data, double detected_at, int block);
void lw__monset_uv_record_hang(void *data, const lw_msg_t *msgs, size_t n, double now);

/* monset.c: the common flow, for the backends' callbacks. */
/* Evidence first: the messages that have arrived, a due clockDrift reading. 1 if events came. */
int lw__monset_evidence(lw_monset_t *s, double now);
/* The sleeping timers caught up (evidence first): 1 if a due time changed; `*got`: events came. */
int lw__monset_awake(lw_monset_t *s, double now, int *got);
/* Hands events over, and the batches when `flush`. */
void lw__monset_hand_over(lw_monset_t *s, int flush, int from_loop, double now);
/* The main-thread timers due by `now`, then the hand-over. */
void lw__monset_main_run(lw_monset_t *s, double now, int from_loop);

#endif /* LW_DRIVER_MONSET_INTERNAL_H_ */
