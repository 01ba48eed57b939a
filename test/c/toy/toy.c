/* A toy monitor, defined in this file alone and registered by one row of the monitor table
 * (this build's LW_MONITOR_TABLE_MORE: see the Makefile), walked through the set's own code on
 * the simulation: what adding a monitor takes. Its timer fires every 100 ms and samples its own
 * lateness, judged by a validator of its own as any validated monitor's samples are. A program
 * of its own (the core is built with one more row), printing as the runner does. */
#include "core/conditions.h"
#include "core/monitors-internal.h"
#include "driver/monset.h"
#include "driver/sim.h"
#include "helpers.h"
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TOY_INTERVAL_MS 100.0

/* Its state, which the set allocates for it (its row's state_size). */
typedef struct toy_state_s {
  double due;
  double prev;
} toy_state_t;
static toy_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_TOY); }

static void toy_start(lw_monset_core_t *m, double now) {
  st(m)->due = now + TOY_INTERVAL_MS;
  st(m)->prev = now;
}

static lw__timer_t toy_timer(const lw_monset_core_t *m, int in_run, double *due) {
  (void)in_run;
  *due = st(m)->due;
  return LW__TIMER_EXACT;
}

static void toy_fire(lw_monset_core_t *m, double now) {
  lw__mon_submit(m, LW_MON_TOY, now - st(m)->due, now - st(m)->prev, now);
  st(m)->prev = now;
  st(m)->due = now + TOY_INTERVAL_MS;
}

static const lw__mon_field_t toy_state_fields[] = {
    LW__MON_FIELD(toy_state_t, due),
};

const lw__mon_desc_t lw__mon_toy = {
    .name = "toy",
    .flags = LW__MON_VALIDATED,
    .metric = {"lag_toy_histogram", "Lateness of the toy's timer (recorded samples)", "ms"},
    .start = toy_start,
    .timer = toy_timer,
    .fire = toy_fire,
    LW__MON_STATE(toy_state_t, toy_state_fields),
};

/* The conditions and the set on a simulation, wired as the binding wires them. */
static lw_conditions_t c;
static lw_client_t cond_client;
static double cond_due(lw_client_t *cl) {
  (void)cl;
  return lw_conditions_next_due(&c);
}
static void cond_run(lw_client_t *cl, double now) {
  (void)cl;
  lw_conditions_run(&c, now);
}

static void advance(lw_sim_t *sim, double target) {
  int steps = 0;
  while (lw_sim_step(sim, target) != NULL) ASSERT_LT(++steps, 1000000);
}

static int toy_monitor_walks_the_table(void) {
  lw_conditions_config_t ccfg;
  lw_monset_core_config_t cfg;
  lw_monset_owner_t owner = {0};
  lw_monset_t set;
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_LINUX, 0);
  const lw_name_stats_t *ns;
  size_t n;
  /* Its row: its name both ways, its flags, its metric, no options. */
  ASSERT_EQ(LW_MON_TOY, LW_MON_COUNT - 1);
  ASSERT_EQ(lw_mon_parse("toy", 3), LW_MON_TOY);
  ASSERT(strcmp(lw_mon_name(LW_MON_TOY), "toy") == 0);
  ASSERT_EQ(lw_mon_validated(LW_MON_TOY), 1);
  ASSERT_EQ(lw_mon_on_worker(LW_MON_TOY), 0);
  ASSERT_EQ(lw_mon_paused_while_hidden(LW_MON_TOY, 0), 1);
  ASSERT(strcmp(lw_mon_metric(LW_MON_TOY)->name, "lag_toy_histogram") == 0);
  ASSERT_NULL(lw__mon_options(LW_MON_TOY, &n));
  ASSERT_EQ(n, 0);

  ASSERT_NOT_NULL(sim);
  lw_conditions_config_default(&ccfg);
  ASSERT_EQ(lw_conditions_init(&c, &ccfg), LW_OK);
  lw_monset_core_config_default(&cfg, &c);
  cond_client.next_due = cond_due;
  cond_client.run = cond_run;
  lw_sim_add(sim, &cond_client);
  ASSERT_EQ(lw_monset_init(&set, &c, &cfg, sim, NULL, &owner), LW_OK);
  ASSERT_EQ(lw_monset_start(&set, LW_MON_TOY), LW_OK);
  ASSERT_EQ(lw_monset_running(&set, LW_MON_TOY), 1);
  ns = c.names[c.validators[set.core.vid[LW_MON_TOY]]->name_id];

  /* On time: a sample of 0 every 100 ms. */
  advance(sim, 1000);
  ASSERT_EQ(ns->submitted, 10);
  ASSERT_EQ(ns->recorded, 10);
  ASSERT_DBL_EQ(ns->recorded_hist.max, 0);
  /* The app's block: its firing due at 1100 comes at 1350, 250 ms late, the app's. */
  lw_sim_block(sim, 350, LW_SIM_CPU);
  advance(sim, 2000);
  ASSERT_DBL_EQ(ns->recorded_hist.max, 250);
  ASSERT_EQ(ns->discarded, 0);
  /* Stopped 6 s and continued: the late firing's window overlaps the continue's evidence, so it
   * is discarded as pause, never a stall of the app; a pause episode. */
  lw_sim_sigstop(sim, 6000);
  advance(sim, 16000);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&c, LW_REASON_PAUSE), 1);
  ASSERT_EQ(c.stalls[LW_KIND_PAUSE], 1);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 0);
  ASSERT_DBL_EQ(ns->recorded_hist.max, 250);
  /* Stopped, it fires no more. */
  lw_monset_stop(&set, LW_MON_TOY);
  n = ns->submitted;
  advance(sim, 20000);
  ASSERT_EQ(ns->submitted, n);
  ASSERT_CONSERVATION(&c);
  lw_sim_remove(sim, &cond_client);
  lw_monset_close(&set);
  lw_monset_free(&set);
  lw_conditions_free(&c);
  lw_sim_unref(sim);
  return 0;
}

static char context[256];

void lw_test_context_(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(context, sizeof(context), fmt, ap);
  va_end(ap);
}

void lw_test_fail_(void) {
  if (context[0] != '\0') fprintf(stderr, "  context: %s\n", context);
  printf("FAILED toy_monitor_walks_the_table\n0 passed, 1 failed\n");
  exit(1);
}

int main(void) {
  toy_monitor_walks_the_table();
  printf("ok     toy_monitor_walks_the_table\n1 passed, 0 failed\n");
  return 0;
}
