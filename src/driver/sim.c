#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where the simulated wall clock starts: 2026-01-01T00:00:00Z, plus start_ms. */
#define LW_SIM_WALL_EPOCH 1767225600000.0

lw_sim_t *lw_sim_new(lw_platform_t platform, double start_ms) {
  lw_sim_t *sim = calloc(1, sizeof(*sim));
  if (sim == NULL) return NULL;
  sim->now = start_ms;
  sim->wall_off = LW_SIM_WALL_EPOCH;
  sim->main_free_at = -INFINITY;
  sim->worker_free_at = -INFINITY;
  sim->throttle_until = -INFINITY;
  sim->throttle_align = 1000;
  sim->last_iteration = -INFINITY;
  sim->progress = start_ms;
  /* Idle time counts from 0 on the same origin as the clock. */
  sim->busy_total = 0;
  sim->platform = platform;
  sim->refs = 1;
  return sim;
}

void lw_sim_ref(lw_sim_t *sim) { sim->refs++; }

void lw_sim_unref(lw_sim_t *sim) {
  if (--sim->refs == 0) free(sim);
}

double lw_sim_now(const lw_sim_t *sim) { return sim->now; }

/* When a client due at `due` can run: after its thread is free; a main-thread timer during a
 * throttle only at the next multiple of the alignment. */
static double effective_due(const lw_sim_t *sim, const lw_client_t *c, double due) {
  if (c->thread == LW_THREAD_WORKER) return due > sim->worker_free_at ? due : sim->worker_free_at;
  if (due < sim->main_free_at) due = sim->main_free_at;
  if (c->evidence_due) return due > sim->now ? due : sim->now; /* hands over, no timer */
  if (c->is_timer && due < sim->throttle_until) {
    double t = due < sim->now ? sim->now : due;
    due = ceil(t / sim->throttle_align) * sim->throttle_align;
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
  /* Work that came due in the past (overdue after a block, a sleep or a pause) runs now. */
  if (best_due > sim->now) sim->now = best_due;
  if (best->thread == LW_THREAD_MAIN && sim->now > sim->last_iteration) {
    /* A new turn of the main loop: its prepare hooks run, and it shows progress. An embedded
     * loop was outside libuv since its previous turn; Node's waited in its poll. */
    double outside = sim->loop == LW_LOOP_EMBEDDED && sim->last_iteration > -INFINITY
                         ? sim->now - sim->last_iteration
                         : 0;
    sim->last_iteration = sim->now;
    sim->progress = sim->now;
    for (c = sim->sched.head; c != NULL; c = c->next)
      if (c->iteration != NULL) c->iteration(c, sim->now, outside);
  }
  /* Evidence first (SPEC §4): whenever the main thread runs, what has reached the process is
   * applied before anything is judged. */
  if (best->thread == LW_THREAD_MAIN) lw_sched_evidence(&sim->sched, sim->now);
  best->evidence_due = 0;
  best->run(best, sim->now);
  return best;
}

int lw_sim_verb(lw_sim_t *sim, const char *verb, double ms, double align_ms, double *target,
                lw_err_t *err) {
  static const char *const verbs[] = {"advance",  "block",       "sleep",   "pause",
                                      "stepWall", "stallWorker", "throttle"};
  int v;
  for (v = 0; v < 7 && strcmp(verb, verbs[v]) != 0; v++) {
  }
  if (v == 7)
    return lw__refuse(err, LW_EINVAL, "verb",
                      "one of advance, block, sleep, pause, stepWall, stallWorker, throttle");
  if (v == 4 ? !isfinite(ms) : !(isfinite(ms) && ms >= 0))
    return lw__refuse(err, LW_EINVAL, "ms", v == 4 ? "a finite number" : "a finite number >= 0");
  if (v == 6 && !(isfinite(align_ms) && align_ms > 0))
    return lw__refuse(err, LW_EINVAL, "alignMs", "a finite number > 0");
  *target = sim->now;
  switch (v) {
    case 0: *target += ms; break;
    case 1: lw_sim_block(sim, ms); *target += ms; break;
    case 2: lw_sim_sleep(sim, ms); *target = sim->now; break; /* overdue work runs at the wake-up */
    case 3: lw_sim_pause(sim, ms); *target = sim->now; break;
    case 4: lw_sim_step_wall(sim, ms); break;
    case 5: lw_sim_stall_worker(sim, ms); *target += ms; break;
    default: lw_sim_throttle(sim, ms, align_ms); *target += ms; break;
  }
  return LW_OK;
}

void lw_sim_block(lw_sim_t *sim, double ms) {
  sim->busy_total += ms;
  sim->main_free_at = sim->now + ms;
}

void lw_sim_sleep(lw_sim_t *sim, double ms) {
  if (lw_sim_mono_includes_sleep(sim)) {
    /* uv_hrtime counts the sleep: monotonic, wall and inclusive advance, exclusive does not. */
    sim->now += ms;
    sim->excl_off -= ms;
  } else {
    /* CLOCK_MONOTONIC stops: only the wall clock and CLOCK_BOOTTIME advance. */
    sim->wall_off += ms;
    sim->incl_off += ms;
  }
}

void lw_sim_pause(lw_sim_t *sim, double ms) { sim->now += ms; }

void lw_sim_step_wall(lw_sim_t *sim, double ms) { sim->wall_off += ms; }

void lw_sim_stall_worker(lw_sim_t *sim, double ms) { sim->worker_free_at = sim->now + ms; }

void lw_sim_throttle(lw_sim_t *sim, double ms, double align_ms) {
  sim->throttle_until = sim->now + ms;
  sim->throttle_align = align_ms;
}

double lw_sim_wall(const lw_sim_t *sim) { return sim->now + sim->wall_off; }

void lw_sim_sleep_pair(const lw_sim_t *sim, double *inclusive, double *exclusive) {
  *inclusive = sim->now + sim->incl_off;
  *exclusive = sim->now + sim->excl_off;
}

void lw_sim_set_loop(lw_sim_t *sim, lw_loop_model_t loop) { sim->loop = loop; }

double lw_sim_idle(const lw_sim_t *sim) {
  return sim->loop == LW_LOOP_EMBEDDED ? 0 : sim->now - sim->busy_total;
}

double lw_sim_cpu(const lw_sim_t *sim) { return sim->busy_total; }

int lw_sim_mono_includes_sleep(const lw_sim_t *sim) { return sim->platform != LW_PLATFORM_LINUX; }
