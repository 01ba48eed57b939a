/* The simulation driver (SPEC §8): clients run in order of due time, at their due time. */
#include "core/conditions.h"
#include "driver/sim.h"
#include "helpers.h"
#include "test.h"

typedef struct {
  lw_client_t client; /* first: the driver hands this back */
  lw_sim_t *sim;
  int id;
  double due;    /* next due time; LW_NEVER when done */
  double period; /* > 0: due again this much later after each run */
  int runs;
} test_client_t;

typedef struct {
  int id;
  double now_arg;
  double sim_now;
} run_log_t;

static run_log_t run_log[64];
static int nrun;

static double tc_next_due(lw_client_t *client) { return ((test_client_t *)client)->due; }

static void tc_run(lw_client_t *client, double now) {
  test_client_t *tc = (test_client_t *)client;
  if (nrun < 64) {
    run_log[nrun].id = tc->id;
    run_log[nrun].now_arg = now;
    run_log[nrun].sim_now = lw_sim_now(tc->sim);
  }
  nrun++;
  tc->runs++;
  tc->due = tc->period > 0 ? tc->due + tc->period : LW_NEVER;
}

static void tc_init(test_client_t *tc, lw_sim_t *sim, int id, double due, double period) {
  memset(tc, 0, sizeof(*tc));
  tc->client.next_due = tc_next_due;
  tc->client.run = tc_run;
  tc->sim = sim;
  tc->id = id;
  tc->due = due;
  tc->period = period;
}

TEST_IMPL(sim_step_runs_in_due_order) {
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_LINUX, 0);
  test_client_t a, b, c, d;
  lw_client_t *ran;
  static const int want_id[] = {2, 4, 3, 1};
  static const double want_at[] = {10, 10, 20, 30};
  int i;
  ASSERT_NOT_NULL(sim);
  nrun = 0;
  tc_init(&a, sim, 1, 30, 0);
  tc_init(&b, sim, 2, 10, 0);
  tc_init(&c, sim, 3, 20, 0);
  tc_init(&d, sim, 4, 10, 0); /* ties with b: b was registered first */
  lw_sim_add(sim, &a.client);
  lw_sim_add(sim, &b.client);
  lw_sim_add(sim, &c.client);
  lw_sim_add(sim, &d.client);
  for (i = 0; (ran = lw_sim_step(sim, 100)) != NULL; i++) {
    ASSERT_LT(i, 4);
    ASSERT_EQ(((test_client_t *)ran)->id, want_id[i]);
  }
  ASSERT_EQ(nrun, 4);
  for (i = 0; i < 4; i++) {
    ASSERT_EQ(run_log[i].id, want_id[i]);
    ASSERT_DBL_EQ(run_log[i].now_arg, want_at[i]);
    ASSERT_DBL_EQ(run_log[i].sim_now, want_at[i]);
  }
  ASSERT_DBL_EQ(lw_sim_now(sim), 100);
  lw_sim_remove(sim, &a.client);
  lw_sim_remove(sim, &b.client);
  lw_sim_remove(sim, &c.client);
  lw_sim_remove(sim, &d.client);
  ASSERT_NULL(sim->sched.head);
  ASSERT_NULL(sim->sched.tail);
  lw_sim_unref(sim);
  return 0;
}

TEST_IMPL(sim_step_periodic_client) {
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_DARWIN, 5);
  test_client_t a, b;
  ASSERT_NOT_NULL(sim);
  nrun = 0;
  tc_init(&a, sim, 1, 10, 10);   /* 10, 20, 30 */
  tc_init(&b, sim, 2, 15, 7.5);  /* 15, 22.5, 30 */
  lw_sim_add(sim, &a.client);
  lw_sim_add(sim, &b.client);
  while (lw_sim_step(sim, 30) != NULL) {
  }
  ASSERT_EQ(nrun, 6);
  ASSERT_EQ(run_log[0].id, 1);
  ASSERT_DBL_EQ(run_log[0].sim_now, 10);
  ASSERT_EQ(run_log[1].id, 2);
  ASSERT_DBL_EQ(run_log[1].sim_now, 15);
  ASSERT_EQ(run_log[2].id, 1);
  ASSERT_DBL_EQ(run_log[2].sim_now, 20);
  ASSERT_EQ(run_log[3].id, 2);
  ASSERT_DBL_EQ(run_log[3].sim_now, 22.5);
  ASSERT_EQ(run_log[4].id, 1); /* tie at 30: a registered first */
  ASSERT_DBL_EQ(run_log[4].sim_now, 30);
  ASSERT_EQ(run_log[5].id, 2);
  ASSERT_DBL_EQ(run_log[5].sim_now, 30);
  ASSERT_DBL_EQ(lw_sim_now(sim), 30);
  /* Exactly at the target it ran; just before the next one it does not. */
  ASSERT_NULL(lw_sim_step(sim, 37.25)); /* b is next due at 37.5 */
  ASSERT_EQ(nrun, 6);
  ASSERT_DBL_EQ(lw_sim_now(sim), 37.25);
  lw_sim_remove(sim, &b.client);
  lw_sim_remove(sim, &a.client);
  lw_sim_unref(sim);
  return 0;
}

TEST_IMPL(sim_advance_nothing_due) {
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_WIN32, 0);
  test_client_t a;
  ASSERT_NOT_NULL(sim);
  nrun = 0;
  ASSERT_DBL_EQ(lw_sim_now(sim), 0);
  ASSERT_NULL(lw_sim_step(sim, 50));
  ASSERT_DBL_EQ(lw_sim_now(sim), 50);
  /* The clock never goes back. */
  ASSERT_NULL(lw_sim_step(sim, 20));
  ASSERT_DBL_EQ(lw_sim_now(sim), 50);
  /* A client due later than the target does not run; the clock stops at the target. */
  tc_init(&a, sim, 1, 200, 0);
  lw_sim_add(sim, &a.client);
  ASSERT_NULL(lw_sim_step(sim, 199.75));
  ASSERT_EQ(nrun, 0);
  ASSERT_DBL_EQ(lw_sim_now(sim), 199.75);
  ASSERT_PTR_EQ(lw_sim_step(sim, 1000), &a.client);
  ASSERT_DBL_EQ(lw_sim_now(sim), 200);
  ASSERT_NULL(lw_sim_step(sim, 1000));
  ASSERT_DBL_EQ(lw_sim_now(sim), 1000);
  /* A removed client is not run. */
  a.due = 1500;
  lw_sim_remove(sim, &a.client);
  ASSERT_NULL(lw_sim_step(sim, 2000));
  ASSERT_EQ(nrun, 1);
  ASSERT_DBL_EQ(lw_sim_now(sim), 2000);
  /* References: freed with the last one (LeakSanitizer checks). */
  lw_sim_ref(sim);
  lw_sim_unref(sim);
  ASSERT_EQ(sim->refs, 1);
  lw_sim_unref(sim);
  return 0;
}

/* A conditions driven by the sim as the binding does: held samples and episodes at their exact
 * due times. */
typedef struct {
  lw_client_t client;
  lw_conditions_t core;
  double resolved_at;
  double stall_at;
} cond_client_t;

static double cc_next_due(lw_client_t *client) {
  return lw_conditions_next_due(&((cond_client_t *)client)->core);
}

static void cc_run(lw_client_t *client, double now) {
  cond_client_t *cc = (cond_client_t *)client;
  size_t n, i;
  const lw_event_t *ev;
  lw_conditions_run(&cc->core, now);
  ev = lw_conditions_events(&cc->core, &n);
  for (i = 0; i < n; i++) {
    if (ev[i].type == LW_EVENT_RESOLVED) cc->resolved_at = now;
    if (ev[i].type == LW_EVENT_STALL) cc->stall_at = now;
  }
  lw_conditions_events_clear(&cc->core);
}

TEST_IMPL(sim_drives_conditions) {
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_LINUX, 0);
  cond_client_t cc;
  lw_conditions_config_t cfg;
  uint64_t token;
  uint32_t v;
  ASSERT_NOT_NULL(sim);
  memset(&cc, 0, sizeof(cc));
  cc.client.next_due = cc_next_due;
  cc.client.run = cc_run;
  lw_conditions_config_default(&cfg);
  ASSERT_EQ(lw_conditions_init(&cc.core, &cfg), LW_OK);
  ASSERT_EQ(lw_validator_create(&cc.core, "loopBlock", 9, 5000, &v, NULL), LW_OK);
  lw_sim_add(sim, &cc.client);
  while (lw_sim_step(sim, 1000) != NULL) {
  }
  ASSERT_EQ(lw_validator_submit(&cc.core, v, 5000, 5000, lw_sim_now(sim), &token),
            LW_VERDICT_HELD);
  while (lw_sim_step(sim, 2999.75) != NULL) {
  }
  ASSERT_DBL_EQ(cc.resolved_at, 0);
  while (lw_sim_step(sim, 10000) != NULL) {
  }
  ASSERT_DBL_EQ(cc.resolved_at, 3000);
  ASSERT_DBL_EQ(cc.stall_at, 5000);
  ASSERT_EQ(cc.core.stalls[LW_KIND_HANG], 1);
  ASSERT_DBL_EQ(lw_sim_now(sim), 10000);
  lw_sim_remove(sim, &cc.client);
  lw_conditions_free(&cc.core);
  lw_sim_unref(sim);
  return 0;
}

/* lw_sim_run: a verb, then every due client in order up to its target; from inside a step (a
 * client's own run) it is refused with LW_EBUSY and nothing happens; `stop` ends a run early. */
static int nested_rc;
static void tc_run_nested(lw_client_t *client, double now) {
  test_client_t *tc = (test_client_t *)client;
  lw_err_t err;
  nested_rc = lw_sim_run(tc->sim, "advance", 100, LW_SIM_ALIGN_MS, NULL, NULL, NULL, &err);
  tc_run(client, now);
}
static int stop_after_two(void *data) { return ++*(int *)data >= 2; }

TEST_IMPL(sim_run_steps_refuses_reentry_and_stops) {
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_LINUX, 0);
  test_client_t a;
  lw_err_t err;
  int steps = 0;
  ASSERT_NOT_NULL(sim);
  nrun = 0;
  tc_init(&a, sim, 1, 10, 10);
  a.client.run = tc_run_nested;
  lw_sim_add(sim, &a.client);
  nested_rc = LW_OK;
  ASSERT_EQ(lw_sim_run(sim, "advance", 35, LW_SIM_ALIGN_MS, NULL, NULL, NULL, &err), LW_OK);
  ASSERT_EQ(a.runs, 3); /* 10, 20, 30 */
  ASSERT_EQ(nested_rc, LW_EBUSY);
  ASSERT_DBL_EQ(lw_sim_now(sim), 35); /* the nested call moved nothing */
  /* A refused verb: nothing runs. */
  ASSERT_EQ(lw_sim_run(sim, "advance", -1, LW_SIM_ALIGN_MS, NULL, NULL, NULL, &err), LW_EINVAL);
  ASSERT_EQ(a.runs, 3);
  /* `stop` after the second step: the run ends there. */
  ASSERT_EQ(lw_sim_run(sim, "advance", 100, LW_SIM_ALIGN_MS, NULL, stop_after_two, &steps, &err), LW_OK);
  ASSERT_EQ(a.runs, 5);
  ASSERT_EQ(steps, 2);
  lw_sim_remove(sim, &a.client);
  lw_sim_unref(sim);
  return 0;
}
