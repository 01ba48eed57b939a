/* SPEC §12, the worker thread's rules (src/core/worker.c), driven by hand with fake thread times:
 * its judgement of its own lateness (a stop or starvation, from its run-queue delay), its rests
 * while the main loop waits, and the hang's end and the cause's baseline around them. */
#include "core/internal.h"
#include "fixture-worker.h"

TEST_IMPL(worker_lateness_stop_or_starvation) {
  cfx_t x;
  lw_msg_t log[64];
  size_t n = 0;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  ASSERT_EQ(n, 0);
  /* Late by 300 ms (due 1100, runs at 1400) without run-queue growth: a stop, evidence at once. */
  ASSERT_EQ(run(&x, 1400, 1000, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  ASSERT_EQ(log[0].ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(log[0].ev_start, 1100);
  ASSERT_DBL_EQ(log[0].ev_end, 1400);
  /* Late by 300 ms with 300 ms of run-queue growth: starvation, no evidence. */
  n = 0;
  x.t.worker_runq += 300;
  ASSERT_EQ(run(&x, 1800, 1790, log, &n), 0);
  /* Late by 99 ms without growth: below LW_STOP_MIN_MS, nothing. */
  ASSERT_EQ(run(&x, 1999, 1990, log, &n), 0);
  /* A stop exactly at LW_STOP_MIN_MS. */
  ASSERT_EQ(run(&x, 2199, 2000, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  /* Half the lateness waiting on the run queue is starvation, less than half a stop. */
  n = 0;
  x.t.worker_runq += 200;
  ASSERT_EQ(run(&x, 2699, 2690, log, &n), 0); /* due 2299: late 400, waited 200 */
  x.t.worker_runq += 199;
  ASSERT_EQ(run(&x, 3199, 3190, log, &n), 1); /* due 2799: late 400, waited 199 */
  /* Where the platform cannot tell (no self times), the seed's rule: 4000 ms late is no stop. */
  n = 0;
  x.t.self_known = 0;
  ASSERT_EQ(run(&x, 7299, 7290, log, &n), 0);
  cfx_free(&x);
  return 0;
}

/* While the main loop waits, the worker rests: its next check is a worker interval away (or its
 * heartbeat), never later than the ping or the threshold; a hang that begins during a rest (the
 * loop stopped waiting at 1500 and never reached its check phase: the driver still says it waits)
 * starts where the loop last waited and is flagged exactly a threshold later. */
TEST_IMPL(worker_rests_while_main_waits) {
  cfx_t x;
  lw_msg_t log[128];
  size_t n = 0, i;
  double t;
  cfx_init(&x);
  x.rd.worker.main_avail = fake_avail;
  x.rd.worker.main_waiting = fake_waiting;
  /* Busy with progress at every check: no rest. */
  for (t = 100; t <= 1000; t += 100) {
    x.t.avail = t - 50;
    run(&x, t, t, log, &n);
    ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), t + 100);
  }
  /* Waiting from 1000 on: the next check a worker interval later. */
  x.t.waiting = 1;
  x.t.avail = 1100;
  run(&x, 1100, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2100);
  /* The loop stops waiting at 1500 and hangs; the driver cannot see it left its poll. */
  x.t.avail = 1500;
  run(&x, 2100, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2750); /* the ping: 1500 + 5000 / 4 */
  ASSERT_EQ(n, 0);
  run(&x, 2750, 1000, log, &n);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(log[0].type, LW_MSG_PING);
  /* No availability over that check: checks every liveness interval again. */
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2850);
  for (t = 2850; t < 6500; t += 100) run(&x, t, 1000, log, &n);
  ASSERT_EQ(n, 1);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 6500);
  run(&x, 6500, 1000, log, &n);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(log[1].type, LW_MSG_HANG_START);
  ASSERT_DBL_EQ(log[1].hang_start, 1500);
  ASSERT_DBL_EQ(log[1].detected_at, 6500);
  /* With the heartbeat on, a rest lasts until the heartbeat: one wake-up for both. The hang's
   * end carries its cause: the baseline read as the first rest began (1100), the span from where
   * the loop last waited (1500), 5000 ms of CPU. */
  lw_monitors_start(&x.m, LW_MON_WORKER, 6500); /* heartbeat due 7500 */
  x.t.main.cpu_ms += 5000;
  x.t.avail = 6600;
  run(&x, 6600, 6600, log, &n);
  ASSERT_EQ(n, 3);
  ASSERT_EQ(log[2].type, LW_MSG_HANG_END);
  ASSERT_EQ(log[2].cause_known, 1);
  ASSERT_DBL_EQ(log[2].cause_start, 1500);
  ASSERT_DBL_EQ(log[2].cause_delta.cpu_ms, 5000);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 7500);
  /* Without the waiting reading, never a rest. */
  x.rd.worker.main_waiting = NULL;
  x.t.avail = 7500;
  run(&x, 7500, 7500, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 7600);
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_EVIDENCE);
  cfx_free(&x);
  return 0;
}

/* Starts a rest at 1100 (the baseline of a cause read then), the loop waiting from 1000. */
static void rest_from_1100(cfx_t *x, lw_msg_t *log, size_t *n) {
  double t;
  x->rd.worker.main_avail = fake_avail;
  x->rd.worker.main_waiting = fake_waiting;
  for (t = 100; t <= 1000; t += 100) {
    x->t.avail = t - 50;
    run(x, t, t, log, n);
  }
  x->t.waiting = 1;
  x->t.avail = 1100;
  run(x, 1100, 1000, log, n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x->m.worker), 2100);
}

/* The main thread writes where its loop waited, then its progress stamp; the worker reads the stamp
 * first. A check that falls between (a worker preempted or held back by a CPU quota between its
 * two reads) sees the loop waited again without new progress: during a hang, that is the hang's
 * end, with its cause. It once dropped the cause's baseline instead, and the end seen at the next
 * check had no cause (a hang under a 10 % quota beside other suites reported cause null). */
TEST_IMPL(worker_hang_ends_when_the_loop_waits_again) {
  cfx_t x;
  lw_msg_t log[128];
  size_t n = 0, i;
  double t;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 1500; /* the loop stops waiting at 1500 and hangs */
  run(&x, 2100, 1000, log, &n);
  for (t = 2750; t < 6500; t += 100) run(&x, t, 1000, log, &n);
  run(&x, 6500, 1000, log, &n);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(log[1].type, LW_MSG_HANG_START);
  ASSERT_DBL_EQ(log[1].hang_start, 1500);
  /* The main thread runs again at 6550 and reaches its poll: the check at 6600 sees the loop's
   * wait, not yet its stamp. */
  x.t.main.cpu_ms += 5050;
  x.t.avail = 6550;
  run(&x, 6600, 1000, log, &n);
  ASSERT_EQ(n, 3);
  ASSERT_EQ(log[2].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[2].hang_start, 1500);
  ASSERT_DBL_EQ(log[2].hang_end, 6550);
  ASSERT_EQ(log[2].cause_known, 1);
  ASSERT_DBL_EQ(log[2].cause_start, 1500);
  ASSERT_DBL_EQ(log[2].cause_delta.cpu_ms, 5050);
  /* The stamp, seen at the next check, ends nothing more and starts nothing. */
  for (t = 6700; t <= 12000; t += 100) {
    x.t.avail = t - 50;
    run(&x, t, t - 50, log, &n);
  }
  ASSERT_EQ(n, 3);
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_EVIDENCE);
  cfx_free(&x);
  return 0;
}

/* The cause of a hang seen from a rest, with a stop: its span starts where the loop last waited,
 * and only a stop inside it is taken off (once). */
TEST_IMPL(worker_rest_cause_with_stops) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0, i;
  double t;
  /* A: the loop stops waiting at 1500 and hangs; the process is stopped from 2850 to 4850, while
   * the worker checks every 100 ms (after its ping): its check due at 2900 runs at 4850. */
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 1500;
  run(&x, 2100, 1000, log, &n);
  for (t = 2750; t <= 2850; t += 100) run(&x, t, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2950);
  run(&x, 4850, 1000, log, &n); /* 1900 late, no run-queue growth: a stop */
  for (t = 4950; t < 9000; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 5600;
  run(&x, 9050, 9000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 1500);
  ASSERT_DBL_EQ(log[n - 1].cause_stopped, 1900);
  ASSERT_DBL_EQ(log[n - 1].cause_delta.cpu_ms, 5600);
  cfx_free(&x);
  /* B: the process is stopped from 1200 to 3100 while the loop waits; the worker's check due at
   * 2100 runs at 3100, the loop's wait lasting as long; the loop then hangs from 3100. */
  n = 0;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 3100;
  run(&x, 3100, 1000, log, &n); /* 1000 late: a stop */
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_HANG_START);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 4100); /* resting again */
  for (t = 4100; t < 9000; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 5900;
  run(&x, 9050, 9000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 3100);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 3100);
  ASSERT_DBL_EQ(log[n - 1].cause_stopped, 0);
  cfx_free(&x);
  /* C: the worker, starved (its run-queue delay grew as much as it was late), runs its check due
   * at 2100 at 2600; the loop stopped waiting at 1200. The ping is overdue: no rest, the next
   * check a liveness interval later, which sends it. */
  n = 0;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.worker_runq += 500;
  x.t.avail = 1200;
  run(&x, 2600, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2700);
  run(&x, 2700, 1000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_PING);
  cfx_free(&x);
  return 0;
}

/* From a rest at 1100 (the loop's busy total 400 then, read if `busy_known`), the loop ran `ran`
 * ms more (its last progress stamp `stamp`), stopped waiting at 1300 and hangs; the main thread
 * uses `before` ms of CPU before the check at 2200, `during` after; progress returns at 7100.
 * Returns the worker's last message (the hang's end, seen at 7200). */
static lw_msg_t hang_after_rest(int busy_known, double ran, double stamp, double before,
                                double during) {
  cfx_t x;
  lw_msg_t log[256], last;
  size_t n = 0;
  double t;
  cfx_init(&x);
  if (busy_known) x.rd.worker.main_busy = fake_busy;
  x.t.busy = 400;
  rest_from_1100(&x, log, &n);
  x.t.busy = 400 + ran;
  x.t.avail = 1300;
  x.t.waiting = 0;
  run(&x, 2100, stamp, log, &n); /* no longer waiting: the next check 100 ms later */
  x.t.main.cpu_ms += before;
  for (t = 2200; t <= 7100; t = lw_worker_next_due(&x.m.worker)) run(&x, t, stamp, log, &n);
  x.t.main.cpu_ms += during;
  run(&x, 7200, 7100, log, &n);
  last = log[n - 1];
  cfx_free(&x);
  return last;
}

/* The loop runs a few short iterations during a rest (a write's completion, a timer of its own),
 * waits again, then hangs: the rest's baseline still holds, and the span starts where the loop
 * last waited less the time it ran since the baseline (the CPU of those iterations is inside the
 * span). A baseline dropped there would be read a check after the rest ended, the hang's first
 * second lost from its span (as seen under ASan in e2e/cause.test.js: 5108 ms of a 6 s loop). */
TEST_IMPL(worker_rest_cause_after_short_iterations) {
  cfx_t x;
  lw_msg_t log[256], end;
  size_t n = 0;
  double t;
  /* A: iterations of 3 ms in all (the last progress 1190), the wait ending at 1300, a hang from
   * then on, 5803 ms of CPU since the baseline. */
  end = hang_after_rest(1, 3, 1190, 0, 5803);
  ASSERT_EQ(end.type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(end.hang_start, 1300);
  ASSERT_EQ(end.cause_known, 1);
  ASSERT_DBL_EQ(end.cause_start, 1297);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5803);
  /* B: the loop ran 150 ms since the baseline (more than LW_REST_BUSY_MS): that is no longer
   * the rest's CPU alone, the baseline is read again at the first check without progress. */
  end = hang_after_rest(1, 150, 1190, 100, 5000);
  ASSERT_EQ(end.type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(end.cause_start, 2200);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5000);
  /* C: no reading of the loop's busy time: iterations since the rest cannot be bounded, the
   * baseline is read again; without iterations (the wait alone ended) it holds as before. */
  end = hang_after_rest(0, 3, 1190, 100, 5000);
  ASSERT_DBL_EQ(end.cause_start, 2200);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5000);
  end = hang_after_rest(0, 3, 1000, 100, 5000);
  ASSERT_DBL_EQ(end.cause_start, 1300);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5100);
  /* D: short iterations in one rest, then a rest again: the baseline kept is read again as the
   * second rest begins (2100), so that what the loop runs never adds up over rests; the hang
   * from 2500 then has the CPU since 2100 alone, its span from 2500 less 1 ms run since. */
  n = 0;
  cfx_init(&x);
  x.rd.worker.main_busy = fake_busy;
  x.t.busy = 400;
  rest_from_1100(&x, log, &n);
  x.t.busy = 410;
  x.t.main.cpu_ms += 10;
  x.t.avail = 2100; /* waiting again since 1510 */
  run(&x, 2100, 1500, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 3100);
  x.t.busy = 411;
  x.t.avail = 2500;
  x.t.waiting = 0;
  run(&x, 3100, 2400, log, &n);
  for (t = 3200; t <= 8400; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 2400, log, &n);
  x.t.main.cpu_ms += 6000;
  run(&x, 8500, 8400, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 2500);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 2499);
  ASSERT_DBL_EQ(log[n - 1].cause_delta.cpu_ms, 6000);
  cfx_free(&x);
  return 0;
}
