/* The simulation driver (SPEC §8): virtual time for the main thread. advance() runs every due
 * client at its due time, in order; the clock reads exactly that due time while it runs.
 * Reference-counted: each conditions registered on it holds a reference, so the order in which
 * their owners are finalized does not matter. */
#ifndef LW_DRIVER_SIM_H_
#define LW_DRIVER_SIM_H_

#include "sched.h"

typedef enum { LW_PLATFORM_LINUX = 0, LW_PLATFORM_DARWIN = 1, LW_PLATFORM_WIN32 = 2 } lw_platform_t;

typedef struct lw_sim_s {
  double now;
  lw_platform_t platform;
  lw_sched_t sched;
  unsigned refs;
  int advancing;
} lw_sim_t;

lw_sim_t *lw_sim_new(lw_platform_t platform, double start_ms);
void lw_sim_ref(lw_sim_t *sim);
void lw_sim_unref(lw_sim_t *sim);
double lw_sim_now(const lw_sim_t *sim);
static inline void lw_sim_add(lw_sim_t *sim, lw_client_t *c) { lw_sched_add(&sim->sched, c); }
static inline void lw_sim_remove(lw_sim_t *sim, lw_client_t *c) { lw_sched_remove(&sim->sched, c); }
/* Runs the first client due at or before `target`, after moving the clock to its due time, and
 * returns it; returns NULL and moves the clock to `target` when none is due. Call it until it
 * returns NULL to advance to `target`. */
lw_client_t *lw_sim_step(lw_sim_t *sim, double target);

#endif /* LW_DRIVER_SIM_H_ */
