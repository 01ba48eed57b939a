/* The simulation's verbs by name (SPEC §8, sim.h): one table, each verb checked, applied, and
 * the simulation run to its target. */
#include "sim.h"

#include <math.h>
#include <string.h>

/* The verbs, one row each in the order of their ids: the name, and whether it can happen to a
 * running callback (a step of one: it works or waits, the process is stopped or the system
 * sleeps, the wall clock steps, a debugger holds it). */
enum {
  VERB_ADVANCE, VERB_BLOCK, VERB_SLEEP, VERB_PAUSE, VERB_STEP_WALL, VERB_STALL_WORKER,
  VERB_THROTTLE, VERB_STARVE, VERB_CALLBACK, VERB_RETURN, VERB_DEBUG, VERB_WAIT, VERB_OUTSIDE,
  VERB_SIGNAL, VERB_SIGSTOP, VERB_COUNT
};
static const struct {
  const char *name;
  int step;
} verbs[VERB_COUNT] = {
    [VERB_ADVANCE] = {"advance", 0},   [VERB_BLOCK] = {"block", 1},
    [VERB_SLEEP] = {"sleep", 1},       [VERB_PAUSE] = {"pause", 1},
    [VERB_STEP_WALL] = {"stepWall", 1}, [VERB_STALL_WORKER] = {"stallWorker", 0},
    [VERB_THROTTLE] = {"throttle", 0}, [VERB_STARVE] = {"starve", 0},
    [VERB_CALLBACK] = {"callback", 0}, [VERB_RETURN] = {"return", 0},
    [VERB_DEBUG] = {"debug", 1},       [VERB_WAIT] = {"wait", 1},
    [VERB_OUTSIDE] = {"outside", 0},   [VERB_SIGNAL] = {"signal", 0},
    [VERB_SIGSTOP] = {"sigstop", 1},
};

const char *lw_sim_verb_at(size_t i, int *step) {
  if (i >= VERB_COUNT) return NULL;
  *step = verbs[i].step;
  return verbs[i].name;
}

int lw_sim_verb(lw_sim_t *sim, const char *verb, double ms, double align_ms, const char *state,
                double *target, lw_err_t *err) {
  static const char *const states[LW_SIM_STATES] = {"cpu", "gc", "blocked", "starved",
                                                    "throttled"};
  int v, st = LW_SIM_CPU;
  for (v = 0; v < VERB_COUNT && strcmp(verb, verbs[v].name) != 0; v++) {
  }
  if (v == VERB_COUNT)
    return lw__refuse(err, LW_EINVAL, "verb",
                      "one of advance, block, sleep, pause, stepWall, stallWorker, throttle, "
                      "starve, callback, return, debug, wait, outside, signal, sigstop");
  /* Inside a callback only its steps, and "return", which ends it. */
  if (sim->in_callback ? !(verbs[v].step || v == VERB_RETURN) : v == VERB_RETURN)
    return lw__refuse(err, LW_EINVAL, "verb",
                      sim->in_callback
                          ? "block, wait, sleep, pause, sigstop, stepWall, debug or return inside a callback"
                          : "return only inside a callback");
  /* Only an embedder runs the loop from outside: Node's thread is in uv_run all along. */
  if (v == VERB_OUTSIDE && sim->loop != LW_LOOP_EMBEDDED)
    return lw__refuse(err, LW_EINVAL, "verb", "outside only in an embedded loop");
  if (v == VERB_STEP_WALL ? !(fabs(ms) <= LW_SIM_MAX_MS)
                          : !(isfinite(ms) && ms >= 0 && sim->now + ms <= LW_SIM_MAX_MS))
    return lw__refuse(err, LW_EINVAL, "ms",
                      v == VERB_STEP_WALL
                          ? "a finite number within 1e10 of 0"
                          : "a finite number >= 0 that keeps the simulated time within 1e10 ms (about 116 days)");
  if (v == VERB_THROTTLE && !(isfinite(align_ms) && align_ms > 0))
    return lw__refuse(err, LW_EINVAL, "alignMs", "a finite number > 0");
  if (v == VERB_BLOCK && state != NULL) {
    for (st = 0; st < LW_SIM_STATES && strcmp(state, states[st]) != 0; st++) {
    }
    if (st == LW_SIM_STATES)
      return lw__refuse(err, LW_EINVAL, "state", "one of cpu, gc, blocked, starved, throttled");
  }
  *target = sim->now;
  switch (v) {
    case VERB_ADVANCE: *target += ms; break;
    case VERB_BLOCK: lw_sim_block(sim, ms, st); *target += ms; break;
    case VERB_STARVE: lw_sim_starve(sim, ms); *target = sim->now; break; /* overdue work runs at once */
    case VERB_SLEEP: lw_sim_sleep(sim, ms); *target = sim->now; break; /* overdue work runs at the wake-up */
    case VERB_PAUSE: lw_sim_pause(sim, ms); *target = sim->now; break;
    case VERB_STEP_WALL: lw_sim_step_wall(sim, ms); break;
    case VERB_STALL_WORKER: lw_sim_stall_worker(sim, ms); *target += ms; break;
    case VERB_CALLBACK: lw_sim_callback(sim); break;
    case VERB_RETURN: sim->in_callback = 0; break; /* the iteration ends: overdue main work runs now */
    case VERB_DEBUG: lw_sim_debug(sim, ms); *target += ms; break;
    case VERB_WAIT: lw_sim_wait(sim, ms); *target += ms; break;
    case VERB_OUTSIDE: lw_sim_outside(sim, ms); *target += ms; break;
    case VERB_SIGNAL: lw_sim_signal(sim); break; /* the handler runs now */
    case VERB_SIGSTOP: lw_sim_sigstop(sim, ms); *target = sim->now; break;
    default: lw_sim_throttle(sim, ms, align_ms); *target += ms; break;
  }
  return LW_OK;
}

int lw_sim_run(lw_sim_t *sim, const char *verb, double ms, double align_ms, const char *state,
               int (*stop)(void *data), void *stop_data, lw_err_t *err) {
  double target;
  int rc;
  if (sim->advancing) return LW_EBUSY;
  rc = lw_sim_verb(sim, verb, ms, align_ms, state, &target, err);
  if (rc != LW_OK) return rc;
  sim->advancing = 1;
  lw_sim_ref(sim); /* a callback may drop the embedder's last reference */
  while (lw_sim_step(sim, target) != NULL)
    if (stop != NULL && stop(stop_data)) break;
  sim->advancing = 0;
  lw_sim_unref(sim);
  return LW_OK;
}
