/* The monitor set's wiring (src/driver/monset.c) on the simulation, the drivers' evidence-first
 * order (SPEC §4) on the sim and on a real libuv loop, stopping without loss, and memory that
 * runs out at every allocation of a whole run. */
#include "core/conditions.h"
#include "core/monitors.h"
#include "driver/monset.h"
#include "driver/sim.h"
#include "helpers.h"
#include "state.h"
#include "test.h"

#include <stddef.h>

/* The conditions and a monitor set on a simulation, wired as the binding wires them: a client
 * for the conditions (registered first, as the binding does) and the set. The owner keeps the
 * events queued for the assertions and counts what the batches handed over. */
typedef struct {
  lw_client_t cond_client;
  lw_sim_t *sim;
  lw_conditions_t c;
  lw_monset_t set;
  uint64_t delivered; /* values handed over in batches */
  unsigned deliveries;
} simset_t;

#define SIMSET_OF(client) ((simset_t *)(void *)((char *)(client) - offsetof(simset_t, cond_client)))

static double ss_cond_due(lw_client_t *c) { return lw_conditions_next_due(&SIMSET_OF(c)->c); }
static void ss_cond_run(lw_client_t *c, double now) { lw_conditions_run(&SIMSET_OF(c)->c, now); }

static void ss_deliver(void *data, int batches, int from_loop) {
  simset_t *s = data;
  int i;
  (void)from_loop;
  s->deliveries++;
  if (!batches) return;
  for (i = 0; i < LW_MON_COUNT; i++) s->delivered += lw_monset_batch(&s->set, (lw_mon_t)i)->len;
}

/* Returns LW_OK, or the failure of an allocation (then everything made is freed). */
static int simset_init(simset_t *s, lw_platform_t platform) {
  lw_conditions_config_t ccfg;
  lw_monset_core_config_t cfg;
  lw_monset_owner_t owner = {.deliver = ss_deliver};
  int i, rc;
  memset(s, 0, sizeof(*s));
  s->sim = lw_sim_new(platform, 0);
  if (s->sim == NULL) return LW_ENOMEM;
  lw_conditions_config_default(&ccfg);
  rc = lw_conditions_init(&s->c, &ccfg);
  if (rc != LW_OK) {
    lw_sim_unref(s->sim);
    return rc;
  }
  lw_monset_core_config_default(&cfg, &s->c);
  owner.data = s;
  rc = lw_monset_init(&s->set, &s->c, &cfg, s->sim, NULL, &owner);
  if (rc != LW_OK) {
    lw_monset_free(&s->set);
    lw_conditions_free(&s->c);
    lw_sim_unref(s->sim);
    return rc;
  }
  s->cond_client.next_due = ss_cond_due;
  s->cond_client.run = ss_cond_run;
  /* The conditions' client first, as the binding registers it: at equal times it would run
   * before the set's clients, so only the evidence hook puts evidence first. */
  lw_sim_remove(s->sim, &s->set.worker_client);
  lw_sim_remove(s->sim, &s->set.async_client);
  lw_sim_remove(s->sim, &s->set.main_client);
  lw_sim_add(s->sim, &s->cond_client);
  lw_sim_add(s->sim, &s->set.worker_client);
  lw_sim_add(s->sim, &s->set.async_client);
  lw_sim_add(s->sim, &s->set.main_client);
  for (i = 0; i < LW_MON_COUNT; i++) ASSERT_EQ(lw_monset_start(&s->set, (lw_mon_t)i), LW_OK);
  return LW_OK;
}

static void simset_advance(simset_t *s, double target) {
  int steps = 0;
  while (lw_sim_step(s->sim, target) != NULL) ASSERT_LT(++steps, 1000000);
  ASSERT_DBL_EQ(lw_sim_now(s->sim), target);
}

static void simset_free(simset_t *s) {
  lw_sim_remove(s->sim, &s->cond_client);
  lw_monset_close(&s->set);
  lw_monset_free(&s->set);
  lw_conditions_free(&s->c);
  lw_sim_unref(s->sim);
}

/* SPEC §8: block 6 s -> one hang episode and one worker hang; pause 6 s -> one pause episode,
 * no hang; on every platform. */
TEST_IMPL(monset_sim_block_and_pause) {
  int platform, pause;
  for (platform = 0; platform < 3; platform++) {
    for (pause = 0; pause <= 1; pause++) {
      simset_t s;
      const lw_event_t *ev;
      TEST_CONTEXT("platform %d, %s", platform, pause ? "pause" : "block");
      ASSERT_EQ(simset_init(&s, (lw_platform_t)platform), LW_OK);
      simset_advance(&s, 10000);
      ASSERT_EQ(stalls_total(&s.c), 0);
      ASSERT_EQ(s.c.jumps[LW_JUMP_SUSPEND] + s.c.jumps[LW_JUMP_STEP], 0);
      ASSERT_EQ(s.c.events.n, 0);
      if (pause) {
        lw_sim_pause(s.sim, 6000);
      } else {
        lw_sim_block(s.sim, 6000, LW_SIM_CPU);
      }
      simset_advance(&s, 30000);
      ASSERT_EQ(s.c.jumps[LW_JUMP_SUSPEND] + s.c.jumps[LW_JUMP_STEP], 0);
      if (pause) {
        ASSERT_EQ(s.c.stalls[LW_KIND_PAUSE], 1);
        ASSERT_EQ(s.c.stalls[LW_KIND_HANG], 0);
        ASSERT_EQ(STATE(&s.set.core, LW_MON_LIVENESS, uint64_t, "hangs"), 0);
        ASSERT_EQ(count_events(&s.c, LW_EVENT_WORKER_HANG), 0);
        ASSERT_GT(discarded_of(&s.c, LW_REASON_PAUSE), 0);
      } else {
        ASSERT_EQ(s.c.stalls[LW_KIND_HANG], 1);
        ASSERT_EQ(stalls_total(&s.c), 1);
        ASSERT_EQ(STATE(&s.set.core, LW_MON_LIVENESS, uint64_t, "hangs"), 1);
        ASSERT_EQ(count_events(&s.c, LW_EVENT_WORKER_HANG), 1);
        ev = find_event(&s.c, LW_EVENT_WORKER_HANG);
        ASSERT_DBL_EQ(ev->end, 16000); /* the main thread resumed at the end of the block */
        ASSERT_EQ(discarded_total(&s.c), 0);
      }
      ev = find_event(&s.c, LW_EVENT_STALL);
      ASSERT_NOT_NULL(ev);
      ASSERT_EQ(ev->kind, pause ? LW_KIND_PAUSE : LW_KIND_HANG);
      ASSERT_EQ(count_events(&s.c, LW_EVENT_STALL), 1);
      ASSERT_CONSERVATION(&s.c);
      simset_free(&s);
    }
  }
  return 0;
}

/* SPEC §4: a set stopped 1 s after a 6 s block, while its samples are held, resolves them at
 * once: one hang reported at the stop, nothing cancelled, the worker's hang ended. */
TEST_IMPL(monset_finish_resolves_held) {
  simset_t s;
  const lw_event_t *ev;
  ASSERT_EQ(simset_init(&s, LW_PLATFORM_LINUX), LW_OK);
  simset_advance(&s, 10000);
  lw_sim_block(s.sim, 6000, LW_SIM_CPU);
  simset_advance(&s, 17000);
  ASSERT_EQ(s.c.held_count, 3); /* driftLag, loopBlock, worker */
  ASSERT_EQ(count_events(&s.c, LW_EVENT_STALL), 0);
  lw_monset_finish(&s.set);
  ASSERT_EQ(s.c.held_count, 0);
  ASSERT_EQ(s.c.cancelled, 0);
  ASSERT_EQ(s.c.stalls[LW_KIND_HANG], 1);
  ev = find_event(&s.c, LW_EVENT_STALL);
  ASSERT_NOT_NULL(ev);
  ASSERT_DBL_EQ(ev->at, 17000);
  ASSERT_EQ(ev->kind, LW_KIND_HANG);
  ASSERT_DBL_EQ(ev->start, 10000);
  ASSERT_EQ(count_events(&s.c, LW_EVENT_WORKER_HANG), 1);
  ASSERT_EQ(s.c.disposed, 1);
  for (int i = 0; i < LW_MON_COUNT; i++) ASSERT_EQ(lw_monset_running(&s.set, (lw_mon_t)i), 0);
  /* Every recorded value was handed over, the held ones included. */
  ASSERT_EQ(s.delivered, s.c.recorded);
  ASSERT_CONSERVATION(&s.c);
  lw_monset_finish(&s.set); /* idempotent */
  ASSERT_EQ(count_events(&s.c, LW_EVENT_STALL), 1);
  simset_free(&s);
  return 0;
}

/* The drivers' order (SPEC §4): before any main-thread client runs, every client's evidence
 * hook runs; a hook that queued something makes its client due at once. */
typedef struct {
  lw_client_t judge;    /* due at `due`: its run is the judgment */
  lw_client_t evidence; /* never due by itself: only its evidence hook */
  double due;
  char order[8];
  int n;
  int evidence_queues;
} order_t;

#define ORDER_OF(client, member) ((order_t *)(void *)((char *)(client) - offsetof(order_t, member)))

static double judge_due(lw_client_t *c) { return ORDER_OF(c, judge)->due; }
static void judge_run(lw_client_t *c, double now) {
  order_t *o = ORDER_OF(c, judge);
  (void)now;
  o->due = LW_NEVER;
  if (o->n < 7) o->order[o->n++] = 'J';
}
static double ev_due(lw_client_t *c) {
  (void)c;
  return LW_NEVER;
}
static int ev_hook(lw_client_t *c, double now) {
  order_t *o = ORDER_OF(c, evidence);
  (void)now;
  if (o->n < 7) o->order[o->n++] = 'E';
  return o->evidence_queues-- > 0;
}
static void ev_run(lw_client_t *c, double now) {
  order_t *o = ORDER_OF(c, evidence);
  (void)now;
  if (o->n < 7) o->order[o->n++] = 'D'; /* delivers what the hook queued */
}

static void order_init(order_t *o, double due) {
  memset(o, 0, sizeof(*o));
  o->due = due;
  o->judge.next_due = judge_due;
  o->judge.run = judge_run;
  o->judge.is_timer = 1;
  o->evidence.next_due = ev_due;
  o->evidence.run = ev_run;
  o->evidence.evidence = ev_hook;
  o->evidence_queues = 1;
}

TEST_IMPL(sched_evidence_first_sim) {
  order_t o;
  lw_sim_t *sim = lw_sim_new(LW_PLATFORM_LINUX, 0);
  ASSERT_NOT_NULL(sim);
  order_init(&o, 100);
  lw_sim_add(sim, &o.judge); /* registered first: without the hook it would run first */
  lw_sim_add(sim, &o.evidence);
  while (lw_sim_step(sim, 1000) != NULL) {
  }
  o.order[o.n] = '\0';
  /* Evidence, the judgment, then (evidence again, before) the delivery of what it queued. */
  ASSERT_STR_EQ(o.order, "EJED");
  lw_sim_remove(sim, &o.judge);
  lw_sim_remove(sim, &o.evidence);
  lw_sim_unref(sim);
  return 0;
}

static void uv_stop_timer_cb(uv_timer_t *t) { uv_stop(t->loop); }

TEST_IMPL(sched_evidence_first_uv) {
  uv_loop_t loop;
  lw_uv_t d;
  uv_timer_t stop;
  order_t o;
  ASSERT_EQ(uv_loop_init(&loop), 0);
  ASSERT_EQ(lw_uv_init(&d, &loop, uv_hrtime()), 0);
  order_init(&o, lw_uv_now(&d) - 1); /* due at the first timer callback */
  lw_sched_add(&d.sched, &o.judge);
  lw_sched_add(&d.sched, &o.evidence);
  lw_uv_rearm(&d);
  uv_timer_init(&loop, &stop);
  uv_timer_start(&stop, uv_stop_timer_cb, 50, 0);
  uv_run(&loop, UV_RUN_DEFAULT);
  o.order[o.n] = '\0';
  /* One timer callback: evidence first, then the judgment and the delivery in the same turn. */
  ASSERT_STR_EQ(o.order, "EJD");
  lw_sched_remove(&d.sched, &o.judge);
  lw_sched_remove(&d.sched, &o.evidence);
  lw_uv_close(&d, NULL);
  uv_close((uv_handle_t *)&stop, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ASSERT_EQ(uv_loop_close(&loop), 0);
  return 0;
}

/* What a run produced, to compare a run whose memory ran out with one whose did not. */
typedef struct {
  uint64_t recorded, discarded, cancelled, held, lost, delivered;
  uint64_t stalls[LW_KIND_COUNT];
  size_t events[6];
} outcome_t;

/* A run over every condition of the matrix, stopped with samples held. Returns 1 if set-up
 * failed (memory ran out before the run). */
static int matrix_run(outcome_t *out, long budget) {
  simset_t s;
  size_t i, n;
  const lw_event_t *ev;
  lw_alloc_fail_after(budget);
  if (simset_init(&s, LW_PLATFORM_DARWIN) != LW_OK) {
    lw_alloc_fail_after(-1);
    return 1;
  }
  simset_advance(&s, 10000);
  lw_sim_block(s.sim, 6000, LW_SIM_CPU);
  simset_advance(&s, 30000);
  lw_sim_pause(s.sim, 7000);
  simset_advance(&s, 50000);
  lw_sim_sleep(s.sim, 20000);
  simset_advance(&s, lw_sim_now(s.sim) + 15000);
  lw_sim_step_wall(s.sim, 3600000);
  simset_advance(&s, lw_sim_now(s.sim) + 3000);
  lw_sim_throttle(s.sim, 10000, 1000);
  simset_advance(&s, lw_sim_now(s.sim) + 10000);
  lw_sim_block(s.sim, 8000, LW_SIM_CPU);
  simset_advance(&s, lw_sim_now(s.sim) + 1000); /* held samples at the stop */
  lw_monset_finish(&s.set);
  lw_alloc_fail_after(-1);
  memset(out, 0, sizeof(*out));
  out->recorded = s.c.recorded;
  out->discarded = discarded_total(&s.c);
  out->cancelled = s.c.cancelled;
  out->held = s.c.held_count;
  out->lost = s.c.lost;
  out->delivered = s.delivered;
  for (i = 0; i < LW_KIND_COUNT; i++) out->stalls[i] = s.c.stalls[i];
  ev = lw_conditions_events(&s.c, &n);
  for (i = 0; i < n; i++) out->events[ev[i].type]++;
  ASSERT_CONSERVATION(&s.c);
  ASSERT_EQ(s.c.held_count, 0);
  simset_free(&s);
  return 0;
}

/* SPEC §4: memory that runs out is counted (`lost`), never lost in silence. The same run is
 * repeated with the allocator failing from the k-th allocation on, for every k up to the run's
 * total: each run keeps conservation, frees everything (LeakSanitizer in the sanitizer build)
 * and either gives exactly the reference outcome or counts a loss. */
TEST_IMPL(monset_out_of_memory_never_silent) {
  outcome_t ref, got;
  long k;
  int lossy = 0, complete = 0;
  ASSERT_EQ(matrix_run(&ref, -1), 0);
  ASSERT_EQ(ref.lost, 0);
  ASSERT_GT(ref.stalls[LW_KIND_HANG], 0);
  ASSERT_GT(ref.stalls[LW_KIND_PAUSE], 0);
  ASSERT_GT(ref.stalls[LW_KIND_SUSPEND], 0);
  for (k = 0;; k++) {
    TEST_CONTEXT("allocations allowed: %ld", k);
    if (matrix_run(&got, k) != 0) continue; /* set-up failed: reported to the caller */
    if (got.lost == 0) {
      ASSERT_EQ(got.recorded, ref.recorded);
      ASSERT_EQ(got.discarded, ref.discarded);
      ASSERT_EQ(got.delivered, ref.delivered);
      ASSERT_EQ(got.stalls[LW_KIND_HANG], ref.stalls[LW_KIND_HANG]);
      ASSERT_EQ(got.stalls[LW_KIND_PAUSE], ref.stalls[LW_KIND_PAUSE]);
      ASSERT_EQ(got.stalls[LW_KIND_SUSPEND], ref.stalls[LW_KIND_SUSPEND]);
      ASSERT_EQ(memcmp(got.events, ref.events, sizeof(got.events)), 0);
      if (++complete > 3) break; /* the budget outgrew the run: every allocation was tried */
    } else {
      lossy++;
    }
  }
  TEST_CONTEXT("%s", "");
  ASSERT_GT(lossy, 10); /* the failures did hit the run */
  return 0;
}
