/* SPEC §12, a hang's cause (src/core/cause.c) from the worker's readings, driven by hand with fake
 * thread times: the states counted once, stops taken out, the cause found by the episode. */
#include "core/internal.h"
#include "fixture-worker.h"
#include "state.h"

/* A hang of the main thread from 1000 on: the cause from its times, read at the first check without
 * progress and when progress returns; the WORKER_HANG event and its histogram. */
static void hang_with(cfx_t *x, double cpu, double runq, double thr, lw_event_t *ev) {
  lw_msg_t log[256];
  size_t n = 0, i, nev;
  const lw_event_t *evs;
  double t;
  for (t = 100; t <= 1000; t += 100) run(x, t, t, log, &n);
  /* The check at 1000 saw the progress of 1000; the one at 1100 sees none: the baseline. */
  for (t = 1100; t <= 8000; t += 100) run(x, t, 1000, log, &n);
  x->t.main.cpu_ms += cpu;
  x->t.main.runq_ms += runq;
  x->t.main.throttled_ms += thr;
  run(x, 8100, 8050, log, &n);
  for (i = 0; i < n; i++) lw_monset_core_receive(&x->m, &log[i], 1, 8150);
  evs = lw_conditions_events(&x->c, &nev);
  ASSERT_EQ(nev, 1);
  ASSERT_EQ(evs[0].type, LW_EVENT_WORKER_HANG);
  *ev = evs[0];
  lw_conditions_events_clear(&x->c);
}

/* A part of what the readings measured over [1100, 8050], as it stands for the hang's 7050 ms. */
#define OWN(ms) ((ms) * 7050.0 / 6950)

TEST_IMPL(cause_from_readings) {
  cfx_t x;
  lw_event_t ev;
  /* Busy: all CPU. The readings cover [1100, 8050] (to the main thread's progress), 6950 ms of
   * the hang's 7050 from 1000: they stand for the whole of it (OWN), its span the hang's own. */
  cfx_init(&x);
  hang_with(&x, 6950, 0, 0, &ev);
  ASSERT_DBL_EQ(ev.start, 1000);
  ASSERT_DBL_EQ(ev.end, 8050);
  ASSERT_EQ(ev.cause.known, 1);
  ASSERT_DBL_EQ(ev.cause.span_ms, 7050);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, 7050);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 0);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 0);
  ASSERT_DBL_EQ(ev.cause.throttled_ms, 0);
  ASSERT_DBL_EQ(ev.cause.gc_ms, 0);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_BUSY);
  cfx_free(&x);
  /* Blocked: 950 ms of CPU, the rest neither on a CPU nor waiting for one. */
  cfx_init(&x);
  hang_with(&x, 950, 0, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, OWN(950));
  ASSERT_DBL_EQ(ev.cause.blocked_ms, OWN(6000));
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_BLOCKED);
  cfx_free(&x);
  /* Throttled: the run-queue delay includes the quota's time; the rest of it is starvation. */
  cfx_init(&x);
  hang_with(&x, 950, 6000, 5000, &ev);
  ASSERT_DBL_EQ(ev.cause.throttled_ms, OWN(5000));
  ASSERT_DBL_EQ(ev.cause.runq_ms, OWN(1000));
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 0);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_THROTTLED);
  cfx_free(&x);
  /* Starved; the cgroup's throttled time (summed over CPUs) is capped by the thread's wait. */
  cfx_init(&x);
  hang_with(&x, 950, 6000, 9000, &ev);
  ASSERT_DBL_EQ(ev.cause.throttled_ms, OWN(6000));
  ASSERT_DBL_EQ(ev.cause.runq_ms, 0);
  cfx_free(&x);
  cfx_init(&x);
  hang_with(&x, 1950, 5000, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.runq_ms, OWN(5000));
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_STARVED);
  cfx_free(&x);
  /* GC: 4000 ms of the CPU time inside the span was V8's collector. */
  cfx_init(&x);
  x.t.gc_start = 2000;
  x.t.gc_end = 6000;
  hang_with(&x, 6950, 0, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.gc_ms, 4000);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_GC);
  cfx_free(&x);
  /* Readings past the hang's end (one check of the loop's own work) never exceed the span. */
  cfx_init(&x);
  hang_with(&x, 7000, 50, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, 7050);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 0);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 0);
  cfx_free(&x);
  /* Unknown run-queue and quota times (macOS, Windows): null, the off-CPU rest is blocked. */
  cfx_init(&x);
  x.t.main.runq_ms = NAN;
  x.t.main.throttled_ms = NAN;
  hang_with(&x, 950, 0, 0, &ev);
  ASSERT_NAN(ev.cause.runq_ms);
  ASSERT_NAN(ev.cause.throttled_ms);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, OWN(6000));
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_BLOCKED);
  cfx_free(&x);
  /* The ring of causes is made at the first worker hang; without memory for it the worker hang
   * still has its cause, and the loss is counted (an episode could not find it). */
  cfx_init(&x);
  ASSERT_NULL(STATE(&x.m, LW_MON_LIVENESS, lw_causes_t, "causes").ring);
  /* The event queue has room already (a pushed and cleared event): only the ring fails. */
  ASSERT_NOT_NULL(lw__event_push(&x.c, LW_EVENT_JUMP, 0));
  lw_conditions_events_clear(&x.c);
  lw_alloc_fail_after(0);
  hang_with(&x, 6950, 0, 0, &ev);
  lw_alloc_fail_after(-1);
  ASSERT_EQ(ev.cause.known, 1);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, 7050);
  ASSERT_NULL(STATE(&x.m, LW_MON_LIVENESS, lw_causes_t, "causes").ring);
  ASSERT_EQ(x.c.lost, 1);
  cfx_free(&x);
  return 0;
}

TEST_IMPL(cause_stop_inside_hang) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0, i, nev;
  const lw_event_t *evs;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  /* Busy from 1000; the process is stopped from 3000 to 6000 (the worker late by 2900); busy
   * again until 8000: 5000 ms of the app's own, not 7000. */
  for (t = 1100; t <= 3000; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 1800; /* 1200 .. 3000 */
  n = 0;
  ASSERT_EQ(run(&x, 6000, 1000, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  ASSERT_DBL_EQ(log[0].ev_start, 3100);
  for (t = 6100; t <= 7900; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 2000; /* 6000 .. 8000 */
  /* 4100 ms of no progress (1000 .. 3100, 6000 .. 8000) besides the stop's 2900: under the
   * threshold, no hang. */
  for (i = 0; i < n; i++) ASSERT_NE(log[i].type, LW_MSG_HANG_START);
  run(&x, 8000, 8000, log, &n);
  for (i = 0; i < n; i++) ASSERT_NE(log[i].type, LW_MSG_HANG_START);
  lw_monset_core_receive(&x.m, log, n, 8000);
  evs = lw_conditions_events(&x.c, &nev);
  ASSERT_EQ(nev, 0);
  (void)evs;
  cfx_free(&x);
  return 0;
}

TEST_IMPL(main_states_each_counted_once) {
  cfx_t x;
  lw_thread_times_t st;
  cfx_init(&x);
  x.t.main.cpu_ms = 100;
  x.t.main.runq_ms = 300;
  x.t.main.throttled_ms = 200;
  ASSERT_EQ(lw_monset_core_main_states(&x.m, &st), 0);
  ASSERT_DBL_EQ(st.cpu_ms, 100);
  ASSERT_DBL_EQ(st.runq_ms, 100); /* the quota's 200 ms are taken out of the run-queue delay */
  ASSERT_DBL_EQ(st.throttled_ms, 200);
  x.t.main.throttled_ms = 900; /* the cgroup's figure sums threads and CPUs: capped */
  ASSERT_EQ(lw_monset_core_main_states(&x.m, &st), 0);
  ASSERT_DBL_EQ(st.runq_ms, 0);
  ASSERT_DBL_EQ(st.throttled_ms, 300);
  x.t.main.throttled_ms = NAN; /* no cgroup cpu controller */
  ASSERT_EQ(lw_monset_core_main_states(&x.m, &st), 0);
  ASSERT_DBL_EQ(st.runq_ms, 300);
  ASSERT_NAN(st.throttled_ms);
  cfx_free(&x);
  return 0;
}

/* SPEC §6 and §12: a hang's start is where the loop last made progress, and its time, its span
 * and its cause take out a stop inside it (one under the threshold: SPEC §6 moves the start only
 * for a lateness of the threshold or more). The main thread is busy from 1000; the process is
 * stopped from 2600 to 5600 (the worker's check due at 2600 runs at 5600); busy again until
 * 10000: 6000 ms of the app's own. The worker's readings begin at its first check without
 * progress (1100): what they measured over the hang, 5900 ms of CPU in the 5900 ms left of it
 * without the stop, stands for the whole of its own time, the 100 ms before the readings too. */
TEST_IMPL(cause_span_is_the_hang_own_time) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0, i, nev;
  const lw_event_t *evs;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  for (t = 1100; t <= 2500; t += 100) run(&x, t, 1000, log, &n);
  ASSERT_EQ(run(&x, 5600, 1000, log, &n), 1); /* 3000 ms late, no run-queue growth: a stop */
  ASSERT_EQ(log[n - 1].type, LW_MSG_EVIDENCE);
  ASSERT_DBL_EQ(log[n - 1].ev_start, 2600);
  /* The hang clock counts 5000 ms of the app's own at 9000: flagged there, begun at 1000. */
  for (t = 5700; t < 9000; t += 100) run(&x, t, 1000, log, &n);
  for (i = 0; i < n; i++) ASSERT_NE(log[i].type, LW_MSG_HANG_START);
  run(&x, 9000, 1000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_START);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 1000);
  ASSERT_DBL_EQ(log[n - 1].detected_at, 9000);
  for (t = 9100; t <= 10000; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 5900;
  run(&x, 10100, 10000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 1000);
  ASSERT_DBL_EQ(log[n - 1].hang_end, 10000);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 1100);
  ASSERT_DBL_EQ(log[n - 1].cause_stopped, 3000);
  lw_monset_core_receive(&x.m, log, n, 10150);
  evs = lw_conditions_events(&x.c, &nev);
  ASSERT_EQ(nev, 1);
  ASSERT_EQ(evs[0].type, LW_EVENT_WORKER_HANG);
  ASSERT_DBL_EQ(evs[0].start, 1000);
  ASSERT_DBL_EQ(evs[0].end, 10000);
  ASSERT_DBL_EQ(evs[0].duration_ms, 6000);
  ASSERT_EQ(evs[0].cause.known, 1);
  ASSERT_DBL_EQ(evs[0].cause.span_ms, 6000);
  ASSERT_DBL_EQ(evs[0].cause.cpu_ms, 6000);
  ASSERT_DBL_EQ(evs[0].cause.blocked_ms, 0);
  ASSERT_EQ(evs[0].cause.dominant, LW_CAUSE_BUSY);
  cfx_free(&x);
  return 0;
}
