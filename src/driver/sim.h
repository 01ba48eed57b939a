/* The simulation driver (SPEC §8): virtual time and clocks for the main thread and the worker
 * thread. Every client runs at its due time, in order, through the same core code as in real
 * time; the verbs model what the OS does to a process:
 *
 * - block(ms, state): the main thread is busy; only the worker runs; overdue main work runs
 *   after. `state` is what the thread does meanwhile (SPEC §12): "cpu" (the default: on a CPU),
 *   "gc" (on a CPU, collecting garbage), "blocked" (in a syscall: off every CPU), "starved"
 *   (runnable, waiting for a CPU), "throttled" (runnable, held back by its cgroup's quota).
 * - starve(ms): the whole process is runnable but gets no CPU: nothing runs; every clock
 *   advances; both threads' run-queue delays grow (on linux the worker tells this from a stop).
 * - sleep(ms): system suspend; nothing runs; wall and sleep-inclusive clocks advance, the
 *   monotonic clock only on darwin and win32 (there it counts sleep, as uv_hrtime does).
 * - pause(ms): the process is stopped; nothing runs; every clock advances (a cgroup freezer, a
 *   VM paused: nothing tells the process, the worker sees it by its own lateness).
 * - sigstop(ms): the process is stopped by a signal (SIGSTOP, SIGTSTP) and continued by SIGCONT:
 *   as pause, and both threads read the continue's time when they next run (its handler's); on
 *   linux a poll that waited loses its wait so far from libuv's idle time (EINTR), as signal().
 * - stepWall(ms): the wall clock jumps.
 * - stallWorker(ms): only the worker thread stops.
 * - throttle(ms, align): main-thread timers fire only at multiples of `align` for `ms`.
 * - debug(ms): a debugger holds the main thread (a breakpoint): it is busy for its loop and off
 *   every CPU; the worker runs and knows it (the watcher's part in real time); the main thread
 *   then takes the span as `debugger` evidence.
 * - callback ... return: one callback of the main loop, made of the verbs between (its steps:
 *   block, wait, pause, sigstop, sleep, stepWall, debug; lw_sim_verb_at): a stop or a sleep inside it lands mid-iteration, its time the iteration's
 *   (the loop did not wait), and the iteration ends at "return" (SPEC §5's compound cases).
 *
 * Clocks: monotonic = `now`; wall, sleep-inclusive and sleep-exclusive are `now` plus offsets
 * that the verbs move. The main loop's idle time is `now - busy_total`: only block() makes it
 * busy. The main thread's progress stamp is the time of its last iteration.
 * Reference-counted: each client's owner holds a reference, so finalization order is free. */
#ifndef LW_DRIVER_SIM_H_
#define LW_DRIVER_SIM_H_

#include "../core/spans.h"
#include "sched.h"

typedef enum { LW_PLATFORM_LINUX = 0, LW_PLATFORM_DARWIN = 1, LW_PLATFORM_WIN32 = 2 } lw_platform_t;

/* Who runs the main thread's event loop (SPEC §6): Node itself, waiting in libuv's poll, or an
 * embedder (Electron) that runs one non-waiting iteration at a time from its own message loop:
 * the thread then waits outside libuv, libuv's idle time does not grow, and each iteration
 * starts long after the previous one ended. */
typedef enum { LW_LOOP_NODE = 0, LW_LOOP_EMBEDDED = 1 } lw_loop_model_t;

/* What the main thread does during a block (SPEC §12). */
enum { LW_SIM_CPU = 0, LW_SIM_GC, LW_SIM_BLOCKED, LW_SIM_STARVED, LW_SIM_THROTTLED, LW_SIM_STATES };

/* The worker's last sighting of the main loop inside its poll's wait (lw_sim_look_at_poll): when,
 * libuv's idle time and the main thread's runnable time then; -INFINITY: none. */
typedef struct lw_sim_sighting_s {
  double at, idle, runnable;
} lw_sim_sighting_t;

/* Timers held by the OS (lw_sim_throttle): until when, aligned to what. */
typedef struct lw_sim_throttle_s {
  double until;
  double align;
} lw_sim_throttle_t;

/* The SIGCONTs so far (sigstop), and the time of the last. */
typedef struct lw_sim_conts_s {
  uint64_t n;
  double at;
} lw_sim_conts_t;

/* The last debug(): a debugger held the main thread over [since, until); `taken` once the main
 * thread has taken it as evidence. */
typedef struct lw_sim_debug_s {
  double since;
  double until;
  int taken;
} lw_sim_debug_t;

/* The main thread's times by state (SPEC §12), the current block's part counted as it goes. */
typedef struct lw_sim_states_s {
  double acc[LW_SIM_STATES];
  int cur;
  double start;
  double end;
} lw_sim_states_t;

typedef struct lw_sim_s {
  double now;
  double wall_off;
  double incl_off;
  double excl_off;
  double busy_total;
  double main_free_at;
  double wait_end; /* when the main loop last stopped waiting (the block in progress began) */
  double wait_since; /* when the main thread last ran a client: its poll's wait counts from then */
  double idle_lost;  /* the waits libuv's idle time lost to signals (lw_sim_signal) */
  lw_sim_sighting_t seen;
  double worker_free_at;
  lw_sim_throttle_t throttle;
  double last_iteration;
  int poll_ended;      /* the clients took the loop model's reading at a poll's end since the last turn */
  double progress;
  lw_platform_t platform;
  lw_loop_model_t loop;
  lw_sched_t sched;
  unsigned refs;
  int advancing;
  int in_callback; /* between "callback" and "return": one iteration of the main loop */
  lw_sim_conts_t cont;
  lw_sim_debug_t debug;
  lw_sim_states_t states;
  double worker_runq;
  lw_spans_t gc; /* the GC pauses of block(ms, 'gc') */
} lw_sim_t;

lw_sim_t *lw_sim_new(lw_platform_t platform, double start_ms);
void lw_sim_set_loop(lw_sim_t *sim, lw_loop_model_t loop);
void lw_sim_ref(lw_sim_t *sim);
void lw_sim_unref(lw_sim_t *sim);
double lw_sim_now(const lw_sim_t *sim);
static inline void lw_sim_add(lw_sim_t *sim, lw_client_t *c) { lw_sched_add(&sim->sched, c); }
static inline void lw_sim_remove(lw_sim_t *sim, lw_client_t *c) { lw_sched_remove(&sim->sched, c); }

/* Runs the first client due at or before `target` (after the thread it runs on is free and, for
 * throttled timers, at the next aligned time), after moving the clock to that time, and returns
 * it; returns NULL and moves the clock to `target` when none is due. Call it until it returns
 * NULL to advance to `target`. */
lw_client_t *lw_sim_step(lw_sim_t *sim, double target);

/* The verbs move the clocks and the thread states; the caller then steps to now + ms (block,
 * stallWorker, throttle) or to now (sleep, pause: overdue work runs at the wake-up). */
void lw_sim_block(lw_sim_t *sim, double ms, int state);
void lw_sim_callback(lw_sim_t *sim);
/* A debugger holds the main thread for ms (a breakpoint): busy for its loop, off every CPU. */
/* A synchronous wait (a file read, execSync, Atomics.wait) in a callback that runs after the
 * poll (a timer, an immediate): the main thread is off every CPU and busy for its loop. */
void lw_sim_wait(lw_sim_t *sim, double ms);
/* Embedded loop only: the embedder's message loop holds the thread outside uv_run, off every
 * CPU (Chromium waiting for its next task): its loop's work waits, and the thread is idle. */
void lw_sim_outside(lw_sim_t *sim, double ms);
/* A signal reaches the main thread while its loop waits (SIGTERM, SIGUSR2, a child's SIGCHLD): the
 * poll's wait is interrupted (EINTR) and libuv, which counts a wait from its last entry into the
 * kernel, loses the wait so far from its idle time, as libuv does; the loop wakes for the
 * signal's handler, a callback of no length. */
void lw_sim_signal(lw_sim_t *sim);
/* The worker thread looks at the main loop: if it waits in its poll, the sighting is kept. */
void lw_sim_look_at_poll(lw_sim_t *sim);
void lw_sim_debug(lw_sim_t *sim, double ms);
/* Since when a debugger holds the main thread now, or NAN (as the C worker thread reads it). */
double lw_sim_debugged(const lw_sim_t *sim);
/* The main thread: the last debugger pause, once it is over and not taken yet: 1 and its span. */
int lw_sim_debug_take(lw_sim_t *sim, double *since, double *until);
void lw_sim_starve(lw_sim_t *sim, double ms);
void lw_sim_sleep(lw_sim_t *sim, double ms);
void lw_sim_pause(lw_sim_t *sim, double ms);
void lw_sim_sigstop(lw_sim_t *sim, double ms);
/* The SIGCONTs so far (sigstop), and in `*at` the time of the last. */
static inline uint64_t lw_sim_continues(const lw_sim_t *sim, double *at) {
  *at = sim->cont.at;
  return sim->cont.n;
}
void lw_sim_step_wall(lw_sim_t *sim, double ms);
void lw_sim_stall_worker(lw_sim_t *sim, double ms);
/* How far the simulated clocks reach, start included: 1e10 ms (about 116 days). A verb that would
 * take the time past it, or step the wall clock by more, is refused: beyond some 2^52 ms a double
 * no longer moves by a timer's period and a run would never end, and up to this reach every
 * duration stays exact to the microsecond and a run lasts minutes at most. */
#define LW_SIM_MAX_MS 1e10
/* The throttle's alignment when none is given (App Nap's, Chromium's background timers'). */
#define LW_SIM_ALIGN_MS 1000.0
void lw_sim_throttle(lw_sim_t *sim, double ms, double align_ms);

/* Verb `i` of the verbs' table (the names of SPEC §8's verbs and the simulation's own), NULL
 * past the last; `*step` is 1 if it can be a step of a callback (between "callback" and
 * "return"). */
const char *lw_sim_verb_at(size_t i, int *step);
/* A verb by its name, checked then applied: `ms` must be >= 0 and keep the time within
 * LW_SIM_MAX_MS (stepWall: any value within it of 0), `align_ms` finite and > 0 (throttle only),
 * `state` NULL or one of "cpu", "gc", "blocked", "starved", "throttled" (block only). LW_EINVAL
 * names the argument in `*err` and changes nothing. On success `*target` is the time to step to
 * (lw_sim_step). */
int lw_sim_verb(lw_sim_t *sim, const char *verb, double ms, double align_ms, const char *state,
                double *target, lw_err_t *err);
/* A verb applied (lw_sim_verb), then the simulation run to its target: every client due on the
 * way runs at its due time, in order (lw_sim_step). `stop`, if not NULL, is asked after each step
 * and ends the run early when it returns 1 (the embedder's callback failed). Returns LW_OK;
 * LW_EBUSY, nothing done, when called from inside a step of `sim` (its own callbacks); or
 * lw_sim_verb's refusal, with `*err`. */
int lw_sim_run(lw_sim_t *sim, const char *verb, double ms, double align_ms, const char *state,
               int (*stop)(void *data), void *stop_data, lw_err_t *err);

double lw_sim_wall(const lw_sim_t *sim);
void lw_sim_sleep_pair(const lw_sim_t *sim, double *inclusive, double *exclusive);
/* libuv's idle time (its poll's waits): now - busy in Node's loop; 0 in an embedded loop, whose
 * poll never waits. */
double lw_sim_idle(const lw_sim_t *sim);
/* As the worker thread reads it: the last moment the loop waited (now if it waits, else when the
 * block in progress began; NAN in an embedded loop, whose poll never waits). */
double lw_sim_main_avail(const lw_sim_t *sim);
/* The main thread's time on a CPU or waiting for one (its blocks but the blocked ones), as
 * lw_main_readings_t.runnable; its CPU time alone on darwin and win32, which cannot tell the wait. */
double lw_sim_runnable(const lw_sim_t *sim);
int lw_sim_mono_includes_sleep(const lw_sim_t *sim);
/* The main thread's times by state at now: runq and throttled are NAN on darwin and win32, as
 * there (SPEC §12). */
void lw_sim_main_times(const lw_sim_t *sim, double *cpu, double *runq, double *throttled);
/* The worker thread's run-queue delay at now; -1 on darwin and win32 (unknown there). */
int lw_sim_worker_runq(const lw_sim_t *sim, double *runq);
/* GC time inside [start, end]; NAN if a pause could not be kept (memory ran out). */
double lw_sim_gc_ms(const lw_sim_t *sim, double start, double end);

#endif /* LW_DRIVER_SIM_H_ */
