#include "sim.h"

#include <stdlib.h>

lw_sim_t *lw_sim_new(lw_platform_t platform, double start_ms) {
  lw_sim_t *sim = calloc(1, sizeof(*sim));
  if (sim == NULL) return NULL;
  sim->now = start_ms;
  sim->platform = platform;
  sim->refs = 1;
  return sim;
}

void lw_sim_ref(lw_sim_t *sim) { sim->refs++; }

void lw_sim_unref(lw_sim_t *sim) {
  if (--sim->refs == 0) free(sim);
}

double lw_sim_now(const lw_sim_t *sim) { return sim->now; }

lw_client_t *lw_sim_step(lw_sim_t *sim, double target) {
  double due;
  lw_client_t *c = lw_sched_first(&sim->sched, &due);
  if (c == NULL || due > target) {
    if (target > sim->now) sim->now = target;
    return NULL;
  }
  /* Work that came due in the past (a client added with an old due time) runs now. */
  if (due > sim->now) sim->now = due;
  c->run(c, sim->now);
  return c;
}
