/* The main loop's iterations as the monitor set reads them (SPEC §6): the hooks a driver calls
 * around each iteration and poll, from which the core reads loopBlock's samples, the loop model
 * (Node's own loop, or one an embedder runs) and the waits libuv's idle time lost. loop.c holds
 * the rules. */
#ifndef LW_CORE_LOOP_H_
#define LW_CORE_LOOP_H_

typedef struct lw_monset_core_s lw_monset_core_t;

/* An iteration that starts this long off a CPU after the previous one's poll ended, when that
 * poll could have waited and did not, ran from outside libuv. */
#define LW_OUTSIDE_MIN_MS 5.0
/* After this many such iterations the loop is an embedded one (for good). */
#define LW_OUTSIDE_ITERATIONS 2

/* The loop model's readings (SPEC §6), the same from every driver: when a poll ended (libuv's
 * check phase), the time and the thread's runnable time then (on a CPU, or on Linux waiting for
 * one; NAN if it could not be read); at the next iteration, the time and the runnable time again.
 * The core takes libuv's idle time at both itself, and counts as outside libuv the gap less the
 * runnable time and the idle time it holds: what the thread spent off every CPU after the poll,
 * in a synchronous wait of a timer or an immediate in Node's loop, in the embedder's message loop
 * (and such waits) in an embedded one. A driver that takes no reading at a poll's end (the real
 * driver, while nothing suspects an embedder) counts nothing as outside. */
void lw_monset_core_poll_end(lw_monset_core_t *m, double at, double runnable);
/* 1 while a poll end's readings wait for the next iteration: the driver then reads the runnable
 * time for lw_monset_core_iteration(), which ignores it otherwise. */
int lw_monset_core_poll_ended(const lw_monset_core_t *m);
/* The loop-iteration hook (uv_prepare): loopBlock's sample, and the loop model's reading (see
 * lw_monset_core_poll_end). Returns 1 if a due time may have changed (the sample was held or
 * discarded, or the loop model switched), else 0: the driver need not re-arm its timer. */
int lw_monset_core_iteration(lw_monset_core_t *m, double now, double runnable);
/* A wait that libuv's idle time lost to a signal is still a wait (loop.c says how the worker's
 * sightings of the poll tell). The driver calls lw_monset_core_poll_wait() when a poll that may
 * wait begins (`at`: the prepare hook's time) and lw_monset_core_poll_woke() once it is over (a
 * callback of it or the check hook runs); an iteration closes a poll nobody judged.
 * LW_SEEN_MAX_MS: the longest the worker goes without looking at the poll. */
#define LW_SEEN_MAX_MS 1000.0
void lw_monset_core_poll_wait(lw_monset_core_t *m, double at);
void lw_monset_core_poll_woke(lw_monset_core_t *m, double now);
int lw_monset_core_poll_waiting(const lw_monset_core_t *m);
/* After the iteration hook, before the poll: `could_wait` is 1 if the poll that follows would
 * wait in Node's own loop (libuv gives it a non-zero timeout) or Node's run would end here
 * (nothing keeps the loop alive), 0 if it cannot wait (an immediate, a pending callback, a due
 * timer). A poll that could wait and left libuv's idle time unchanged ran from an embedder. */
void lw_monset_core_poll(lw_monset_core_t *m, int could_wait);
/* 1 once the loop is recognised as run from outside (Electron's). */
int lw_monset_core_embedded(const lw_monset_core_t *m);

#endif /* LW_CORE_LOOP_H_ */
