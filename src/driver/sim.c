#include "sim.h"

#include "../core/worker.h" /* LW_STOP_MIN_MS */

#include <math.h>
#include <stdlib.h>

/* Where the simulated wall clock starts: 2026-01-01T00:00:00Z, plus start_ms. */
#define LW_SIM_WALL_EPOCH 1767225600000.0

lw_sim_t *lw_sim_new(lw_platform_t platform, double start_ms) {
  lw_sim_t *sim = calloc(1, sizeof(*sim));
  if (sim == NULL) return NULL;
  sim->now = start_ms;
  sim->wall_off = LW_SIM_WALL_EPOCH;
  sim->main_free_at = -INFINITY;
  sim->wait_end = start_ms;
  sim->wait_since = start_ms;
  sim->seen.at = -INFINITY;
  sim->worker_free_at = -INFINITY;
  sim->throttle.until = -INFINITY;
  sim->throttle.align = LW_SIM_ALIGN_MS;
  sim->last_iteration = -INFINITY;
  sim->debug.since = sim->debug.until = -INFINITY;
  sim->debug.taken = 1;
  sim->progress = start_ms;
  /* Idle time counts from 0 on the same origin as the clock. */
  sim->busy_total = 0;
  sim->platform = platform;
  sim->refs = 1;
  return sim;
}

void lw_sim_ref(lw_sim_t *sim) { sim->refs++; }

void lw_sim_unref(lw_sim_t *sim) {
  if (--sim->refs == 0) {
    lw_spans_free(&sim->gc);
    free(sim);
  }
}

double lw_sim_now(const lw_sim_t *sim) { return sim->now; }

/* When a client due at `due` can run: after its thread is free; a main-thread timer during a
 * throttle only at the next multiple of the alignment. */
/* The main loop's poll ended now: the clients take the loop model's reading. */
static void poll_ends(lw_sim_t *sim) {
  lw_client_t *c;
  sim->poll_ended = 1;
  for (c = sim->sched.head; c != NULL; c = c->next)
    if (c->poll_end != NULL) c->poll_end(c, sim->now);
}

static double effective_due(const lw_sim_t *sim, const lw_client_t *c, double due) {
  if (c->thread == LW_THREAD_WORKER) return due > sim->worker_free_at ? due : sim->worker_free_at;
  if (sim->in_callback) return LW_NEVER; /* the main thread is inside a callback until "return" */
  if (due < sim->main_free_at) due = sim->main_free_at;
  if (c->evidence_due) return due > sim->now ? due : sim->now; /* hands over, no timer */
  if (c->is_timer && due < sim->throttle.until) {
    double t = due < sim->now ? sim->now : due;
    due = ceil(t / sim->throttle.align) * sim->throttle.align;
  }
  return due;
}

lw_client_t *lw_sim_step(lw_sim_t *sim, double target) {
  lw_client_t *c, *best = NULL;
  double best_due = LW_NEVER;
  for (c = sim->sched.head; c != NULL; c = c->next) {
    double d = lw_client_due(c);
    if (d == LW_NEVER) continue;
    d = effective_due(sim, c, d);
    if (d < best_due) {
      best_due = d;
      best = c;
    }
  }
  if (best == NULL || best_due > target) {
    if (target > sim->now) sim->now = target;
    return NULL;
  }
  /* Evidence first, at a wake-up (SPEC §12): when the main thread is about to run and the worker
   * thread is overdue by LW_STOP_MIN_MS or more (the whole process was stopped or starved), the
   * worker runs first and tells what it saw; the uv driver has the main thread wait for it. */
  if (best->thread == LW_THREAD_MAIN) {
    double t = best_due > sim->now ? best_due : sim->now;
    for (c = sim->sched.head; c != NULL; c = c->next) {
      double d = lw_client_due(c);
      if (c->thread != LW_THREAD_WORKER || d == LW_NEVER || d > t - LW_STOP_MIN_MS) continue;
      if (effective_due(sim, c, d) <= t) {
        best = c;
        best_due = t;
        break;
      }
    }
  }
  /* Work that came due in the past (overdue after a block, a sleep or a pause) runs now. */
  if (best_due > sim->now) sim->now = best_due;
  if (best->thread == LW_THREAD_MAIN && sim->now > sim->last_iteration) {
    /* A new turn of the main loop: its prepare hooks run, and it shows progress. In an
     * embedded loop the poll that follows returns at once (the embedder's UV_RUN_NOWAIT): its
     * end is the loop model's reading, as the uv driver takes it in its check hook. In Node's
     * loop the poll ends when a callback wakes it; the reading is taken at the first "wait",
     * a synchronous wait in a callback after the poll (lw_sim_wait). */
    sim->last_iteration = sim->now;
    sim->progress = sim->now;
    sim->poll_ended = 0;
    for (c = sim->sched.head; c != NULL; c = c->next)
      if (c->iteration != NULL) c->iteration(c, sim->now);
    if (sim->loop == LW_LOOP_EMBEDDED) poll_ends(sim);
  }
  /* Evidence first (SPEC §4): whenever the main thread runs, what has reached the process is
   * applied before anything is judged. */
  if (best->thread == LW_THREAD_MAIN) lw_sched_evidence(&sim->sched, sim->now);
  best->evidence_due = 0;
  best->run(best, sim->now);
  if (best->thread == LW_THREAD_MAIN) sim->wait_since = sim->now;
  return best;
}

/* The time the current block has spent in its state by `t`. */
static double cur_part(const lw_sim_t *sim, double t) {
  double end = t < sim->states.end ? t : sim->states.end;
  return end > sim->states.start ? end - sim->states.start : 0;
}

/* The loop stops waiting: a callback begins (a block, or "callback"). */
static void loop_wakes(lw_sim_t *sim) {
  lw_client_t *c;
  for (c = sim->sched.head; c != NULL; c = c->next)
    if (c->wake != NULL) c->wake(c, sim->now);
  /* A block that begins as the previous one ends continues it: the loop did not wait between. */
  if (sim->main_free_at < sim->now) sim->wait_end = sim->now;
}

void lw_sim_callback(lw_sim_t *sim) {
  loop_wakes(sim);
  if (sim->main_free_at < sim->now) sim->main_free_at = sim->now;
  sim->in_callback = 1;
}

/* Inside a callback, time that passes while the process is stopped (or, where the monotonic
 * clock counts it, the system sleeps) is the iteration's: the loop did not wait in its poll. */
static void callback_held(lw_sim_t *sim, double ms) {
  sim->busy_total += ms;
  sim->main_free_at = sim->now;
}

void lw_sim_block(lw_sim_t *sim, double ms, int state) {
  if (!sim->in_callback) loop_wakes(sim);
  /* The previous block is over: what it spent is settled. */
  sim->states.acc[sim->states.cur] += cur_part(sim, sim->now);
  sim->states.cur = state;
  sim->states.start = sim->now;
  sim->states.end = sim->now + ms;
  if (state == LW_SIM_GC && ms > 0) lw_spans_add(&sim->gc, sim->now, sim->now + ms);
  sim->busy_total += ms;
  sim->main_free_at = sim->now + ms;
}

void lw_sim_wait(lw_sim_t *sim, double ms) {
  /* Off every CPU and busy for its loop, after the poll: the gap it leaves before the next
   * iteration is what an embedder's message loop leaves too. */
  if (!sim->poll_ended) poll_ends(sim);
  lw_sim_block(sim, ms, LW_SIM_BLOCKED);
}

void lw_sim_signal(lw_sim_t *sim) {
  double began = sim->main_free_at > sim->wait_since ? sim->main_free_at : sim->wait_since;
  if (sim->loop != LW_LOOP_EMBEDDED && sim->main_free_at <= sim->now && sim->now > began)
    sim->idle_lost += sim->now - began;
  loop_wakes(sim);
  if (sim->main_free_at < sim->now) sim->main_free_at = sim->now;
}

void lw_sim_look_at_poll(lw_sim_t *sim) {
  if (sim->loop == LW_LOOP_EMBEDDED || sim->in_callback || sim->main_free_at > sim->now) return;
  sim->seen.at = sim->now;
  sim->seen.idle = lw_sim_idle(sim);
  sim->seen.runnable = lw_sim_runnable(sim);
}

void lw_sim_outside(lw_sim_t *sim, double ms) {
  /* The embedder's message loop holds the thread off every CPU: nothing of the loop runs, and
   * nothing of it is busy. */
  if (sim->main_free_at < sim->now + ms) sim->main_free_at = sim->now + ms;
}

void lw_sim_debug(lw_sim_t *sim, double ms) {
  /* The thread sits in the debugger's message loop, off every CPU, busy for its loop. */
  lw_sim_block(sim, ms, LW_SIM_BLOCKED);
  sim->debug.since = sim->now;
  sim->debug.until = sim->now + ms;
  sim->debug.taken = 0;
}

double lw_sim_debugged(const lw_sim_t *sim) {
  return sim->debug.since <= sim->now && sim->now < sim->debug.until ? sim->debug.since : NAN;
}

int lw_sim_debug_take(lw_sim_t *sim, double *since, double *until) {
  if (sim->debug.taken || !(sim->debug.until <= sim->now)) return 0;
  sim->debug.taken = 1;
  *since = sim->debug.since;
  *until = sim->debug.until;
  return 1;
}

void lw_sim_starve(lw_sim_t *sim, double ms) {
  sim->now += ms;
  sim->states.acc[LW_SIM_STARVED] += ms;
  sim->worker_runq += ms;
}

void lw_sim_main_times(const lw_sim_t *sim, double *cpu, double *runq, double *throttled) {
  double t[LW_SIM_STATES];
  int i;
  for (i = 0; i < LW_SIM_STATES; i++) t[i] = sim->states.acc[i];
  t[sim->states.cur] += cur_part(sim, sim->now);
  *cpu = t[LW_SIM_CPU] + t[LW_SIM_GC];
  if (sim->platform != LW_PLATFORM_LINUX) {
    *runq = NAN;
    *throttled = NAN;
    return;
  }
  *runq = t[LW_SIM_STARVED] + t[LW_SIM_THROTTLED]; /* a throttled thread waits on its run queue */
  *throttled = t[LW_SIM_THROTTLED];
}

int lw_sim_worker_runq(const lw_sim_t *sim, double *runq) {
  if (sim->platform != LW_PLATFORM_LINUX) return -1;
  *runq = sim->worker_runq;
  return 0;
}

double lw_sim_gc_ms(const lw_sim_t *sim, double start, double end) {
  return lw_spans_overlap(&sim->gc, start, end);
}

void lw_sim_sleep(lw_sim_t *sim, double ms) {
  if (lw_sim_mono_includes_sleep(sim)) {
    /* uv_hrtime counts the sleep: monotonic, wall and inclusive advance, exclusive does not. */
    sim->now += ms;
    sim->excl_off -= ms;
    if (sim->in_callback) callback_held(sim, ms);
  } else {
    /* CLOCK_MONOTONIC stops: only the wall clock and CLOCK_BOOTTIME advance. */
    sim->wall_off += ms;
    sim->incl_off += ms;
  }
}

void lw_sim_pause(lw_sim_t *sim, double ms) {
  sim->now += ms;
  if (sim->in_callback) callback_held(sim, ms);
}

void lw_sim_sigstop(lw_sim_t *sim, double ms) {
  double began = sim->main_free_at > sim->wait_since ? sim->main_free_at : sim->wait_since;
  int waiting = sim->loop != LW_LOOP_EMBEDDED && !sim->in_callback && sim->main_free_at <= sim->now;
  lw_sim_pause(sim, ms);
  /* On Linux every thread's wait ends with EINTR when a stop ends: libuv's poll loses its wait so
   * far, as for signal(), and waits again, its count starting now. */
  if (waiting && sim->platform == LW_PLATFORM_LINUX && sim->now > began) {
    sim->idle_lost += sim->now - began;
    sim->wait_since = sim->now;
  }
  sim->cont.n++;
  sim->cont.at = sim->now;
}

void lw_sim_step_wall(lw_sim_t *sim, double ms) { sim->wall_off += ms; }

void lw_sim_stall_worker(lw_sim_t *sim, double ms) { sim->worker_free_at = sim->now + ms; }

void lw_sim_throttle(lw_sim_t *sim, double ms, double align_ms) {
  sim->throttle.until = sim->now + ms;
  sim->throttle.align = align_ms;
}

double lw_sim_wall(const lw_sim_t *sim) { return sim->now + sim->wall_off; }

void lw_sim_sleep_pair(const lw_sim_t *sim, double *inclusive, double *exclusive) {
  *inclusive = sim->now + sim->incl_off;
  *exclusive = sim->now + sim->excl_off;
}

void lw_sim_set_loop(lw_sim_t *sim, lw_loop_model_t loop) { sim->loop = loop; }

double lw_sim_idle(const lw_sim_t *sim) {
  return sim->loop == LW_LOOP_EMBEDDED ? 0 : sim->now - sim->busy_total - sim->idle_lost;
}

double lw_sim_main_avail(const lw_sim_t *sim) {
  if (sim->loop == LW_LOOP_EMBEDDED) return NAN;
  return sim->main_free_at < sim->now && !sim->in_callback ? sim->now : sim->wait_end;
}

double lw_sim_runnable(const lw_sim_t *sim) {
  double cpu, runq, thr;
  lw_sim_main_times(sim, &cpu, &runq, &thr);
  return isfinite(runq) ? cpu + runq : cpu;
}

int lw_sim_mono_includes_sleep(const lw_sim_t *sim) { return sim->platform != LW_PLATFORM_LINUX; }
