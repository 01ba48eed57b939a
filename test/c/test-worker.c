/* SPEC §6 and §12, the worker thread's rules (src/core/worker.c), driven by hand: its heartbeat,
 * self-lag evidence and liveness hang detector; with fake thread times, its judgement of its own lateness (a stop or starvation, from its run-queue delay), its rests
 * while the main loop waits, and the hang's end and the cause's baseline around them. */
#include "core/internal.h"
#include "fixture-monitors.h"
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
  /* Where the platform cannot tell (no self times), SPEC §6's worker rule: 4000 ms late is no stop. */
  n = 0;
  x.t.self_known = 0;
  ASSERT_EQ(run(&x, 7299, 7290, log, &n), 0);
  cfx_free(&x);
  return 0;
}

/* The driver's own work after a run (handing messages over under a lock, writing a running hang's
 * record) may hold the worker up, off the run queue: the next run's lateness counts from its end.
 * Seen under heavy I/O load: a record's write took over 100 ms, and starvation read as a stop. */
TEST_IMPL(worker_lateness_from_its_own_work) {
  cfx_t x;
  lw_msg_t log[64];
  size_t n = 0;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  ASSERT_EQ(n, 0);
  /* The run at 1000 was followed by 350 ms of its own work (until 1350); the next, due 1100,
   * runs at 1360: 10 ms late from there, no stop. */
  lw_worker_ran_until(&x.m.worker, 1350);
  ASSERT_EQ(run(&x, 1360, 1355, log, &n), 0);
  /* Work until 1500 (the next due 1460), then a stop of 250 ms without run-queue growth: a stop,
   * from 1500. */
  lw_worker_ran_until(&x.m.worker, 1500);
  ASSERT_EQ(run(&x, 1750, 1745, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  ASSERT_EQ(log[0].ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(log[0].ev_start, 1500);
  ASSERT_DBL_EQ(log[0].ev_end, 1750);
  /* Work that ended before the due time changes nothing: late by 300 from the due time (1850). */
  n = 0;
  lw_worker_ran_until(&x.m.worker, 1760);
  ASSERT_EQ(run(&x, 2150, 2145, log, &n), 1);
  ASSERT_DBL_EQ(log[0].ev_start, 1850);
  cfx_free(&x);
  return 0;
}

/* A stop stops every thread: a main thread that ran through the worker's lateness shows that the
 * worker was held up alone (blocked in the kernel under memory or I/O pressure, off the run
 * queue), not stopped. Seen under the heaviest load of the suites: false pauses. */
TEST_IMPL(worker_lateness_main_thread_ran) {
  cfx_t x;
  lw_msg_t log[64];
  size_t n = 0;
  double t;
  cfx_init(&x);
  /* The main thread busy all along: its CPU time grows with the clock. */
  for (t = 100; t <= 1000; t += 100) {
    x.t.main.cpu_ms = t;
    run(&x, t, t, log, &n);
  }
  ASSERT_EQ(n, 0);
  /* Late by 300 ms (due 1100) without run-queue growth, but the main thread ran all of it (1300 ms
   * of CPU since the baseline at 100): no stop, no evidence. */
  x.t.main.cpu_ms = 1400;
  ASSERT_EQ(run(&x, 1400, 1395, log, &n), 0);
  /* A real stop from 1500 to 1800 of a busy main thread: it ran only until the stop (100 ms since
   * the baseline at 1400): a stop, its evidence from the worker's due time. */
  x.t.main.cpu_ms = 1500;
  ASSERT_EQ(run(&x, 1800, 1500, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  ASSERT_EQ(log[0].ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(log[0].ev_start, 1500);
  ASSERT_DBL_EQ(log[0].ev_end, 1800);
  /* The bound: since the baseline (W ms), a stop of the lateness L leaves W - L of running; the
   * main thread may run half the lateness more (clock reads are not simultaneous) and still be
   * read as stopped. W 400, L 300: 250 ms of CPU is a stop, 251 is not. */
  n = 0;
  x.t.main.cpu_ms = 1500 + 250;
  ASSERT_EQ(run(&x, 2200, 2195, log, &n), 1); /* due 1900 */
  ASSERT_DBL_EQ(log[0].ev_start, 1900);
  n = 0;
  x.t.main.cpu_ms = 1750 + 251;
  ASSERT_EQ(run(&x, 2600, 2595, log, &n), 0); /* due 2300 */
  /* Where the main thread's times cannot be read, the run queue alone decides, as before. */
  n = 0;
  x.rd.worker.main_sched = NULL;
  x.t.main.cpu_ms = 2001 + 400;
  ASSERT_EQ(run(&x, 3000, 2995, log, &n), 1); /* due 2700: late 300, a stop */
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  cfx_free(&x);
  return 0;
}

/* While the main loop waits, the worker rests: its next check is a worker interval away, at most
 * LW_REST_MAX_MS (or its heartbeat), never later than the ping or the threshold; a hang that begins during a rest (the
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
  /* Waiting from 1000 on: the next check a rest later (900 ms, under the worker interval). */
  x.t.waiting = 1;
  x.t.avail = 1100;
  run(&x, 1100, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2000);
  /* The loop stops waiting at 1500 and hangs; the driver cannot see it left its poll. */
  x.t.avail = 1500;
  run(&x, 2000, 1000, log, &n);
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
  lw_monset_core_start(&x.m, LW_MON_WORKER, 6500); /* heartbeat due 7500 */
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
  ASSERT_DBL_EQ(lw_worker_next_due(&x->m.worker), 2000);
}

/* A stop that lands in a rest is seen once it makes the worker LW_STOP_MIN_MS late, so a rest of
 * at most LW_REST_MAX_MS sees every stop of a second, even one that begins as the rest does (with
 * rests of a worker interval, a stop of 1000 to 1100 ms from the rest's start left no trace and
 * the main thread's sample over it was the app's lag). With the heartbeat on, a heartbeat due
 * within LW_STOP_MIN_MS of a rest's check goes with it: one wake-up every LW_REST_MAX_MS. */
TEST_IMPL(worker_rest_sees_a_stop_of_a_second) {
  cfx_t x;
  lw_msg_t log[128];
  size_t n = 0, i, at;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  at = n;
  x.t.avail = 2100; /* stopped from 1100 (as the rest began) to 2100 */
  run(&x, 2100, 1000, log, &n);
  ASSERT_EQ(n, at + 1);
  ASSERT_EQ(log[at].type, LW_MSG_EVIDENCE);
  ASSERT_EQ(log[at].ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(log[at].ev_start, 2000);
  ASSERT_DBL_EQ(log[at].ev_end, 2100);
  cfx_free(&x);
  /* The heartbeat on, due at 2000 with the rest's check, the app's timers running now and then:
   * a rest of 900 ms (it was 1000), and the heartbeat due 100 ms after its end goes with it. */
  n = 0;
  cfx_init(&x);
  lw_monset_core_start(&x.m, LW_MON_WORKER, 1000);
  rest_from_1100(&x, log, &n);
  at = n;
  x.t.avail = 1950;
  run(&x, 2000, 1900, log, &n);
  ASSERT_EQ(n, at + 1);
  ASSERT_EQ(log[at].type, LW_MSG_HEARTBEAT);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2900);
  x.t.avail = 2850;
  run(&x, 2900, 2800, log, &n);
  ASSERT_EQ(n, at + 2);
  ASSERT_EQ(log[at + 1].type, LW_MSG_HEARTBEAT);
  ASSERT_DBL_EQ(log[at + 1].sent_at, 2900);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 3800);
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_EVIDENCE);
  cfx_free(&x);
  return 0;
}

/* The narrowest case of a stop in a rest, to the millisecond: a stop of 1000 to 1100 ms that begins
 * 0 to 100 ms after the rest began (at 1100, its check due at 2000). The worker runs again when the
 * stop ends, at least LW_STOP_MIN_MS late: the stop is evidence from the check's due time to then,
 * every time (with rests of a second, a stop that ended less than 100 ms after 2100 left none). */
TEST_IMPL(worker_rest_sees_every_stop_of_a_second_from_its_start) {
  cfx_t x;
  lw_msg_t log[128];
  size_t n, at;
  int begin, len;
  for (begin = 0; begin <= 100; begin++) {
    for (len = 1000; len <= 1100; len++) {
      double end = 1100 + begin + len;
      n = 0;
      cfx_init(&x);
      rest_from_1100(&x, log, &n);
      at = n;
      x.t.avail = end; /* the loop waited through the stop */
      run(&x, end, 1000, log, &n);
      ASSERT_EQ(n, at + 1);
      ASSERT_EQ(log[at].type, LW_MSG_EVIDENCE);
      ASSERT_EQ(log[at].ev_reason, LW_REASON_PAUSE);
      ASSERT_DBL_EQ(log[at].ev_start, 2000);
      ASSERT_DBL_EQ(log[at].ev_end, end);
      cfx_free(&x);
    }
  }
  return 0;
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
  run(&x, 2000, 1000, log, &n);
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
  run(&x, 2000, 1000, log, &n);
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
   * 2000 runs at 3100, the loop's wait lasting as long; the loop then hangs from 3100. */
  n = 0;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 3100;
  run(&x, 3100, 1000, log, &n); /* 1100 late: a stop */
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_HANG_START);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 4000); /* resting again */
  for (t = 4000; t < 9000; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 5900;
  run(&x, 9050, 9000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 3100);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 3100);
  ASSERT_DBL_EQ(log[n - 1].cause_stopped, 0);
  cfx_free(&x);
  /* C: the worker, starved (its run-queue delay grew as much as it was late), runs its check due
   * at 2000 at 2600; the loop stopped waiting at 1200. The ping is overdue: no rest, the next
   * check a liveness interval later, which sends it. */
  n = 0;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.worker_runq += 600;
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
 * uses `before` ms of CPU before the check at 2100, `during` after; progress returns at 7100.
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
  run(&x, 2000, stamp, log, &n); /* no longer waiting: the next check 100 ms later */
  x.t.main.cpu_ms += before;
  for (t = 2100; t <= 7100; t = lw_worker_next_due(&x.m.worker)) run(&x, t, stamp, log, &n);
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
  ASSERT_DBL_EQ(end.cause_start, 2100);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5000);
  /* C: no reading of the loop's busy time: iterations since the rest cannot be bounded, the
   * baseline is read again; without iterations (the wait alone ended) it holds as before. */
  end = hang_after_rest(0, 3, 1190, 100, 5000);
  ASSERT_DBL_EQ(end.cause_start, 2100);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5000);
  end = hang_after_rest(0, 3, 1000, 100, 5000);
  ASSERT_DBL_EQ(end.cause_start, 1300);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5100);
  /* D: short iterations in one rest, then a rest again: the baseline kept is read again as the
   * second rest begins (2000), so that what the loop runs never adds up over rests; the hang
   * from 2500 then has the CPU since 2000 alone, its span from 2500 less 1 ms run since. */
  n = 0;
  cfx_init(&x);
  x.rd.worker.main_busy = fake_busy;
  x.t.busy = 400;
  rest_from_1100(&x, log, &n);
  x.t.busy = 410;
  x.t.main.cpu_ms += 10;
  x.t.avail = 2000; /* waiting again since 1510 */
  run(&x, 2000, 1500, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2900);
  x.t.busy = 411;
  x.t.avail = 2500;
  x.t.waiting = 0;
  run(&x, 2900, 2400, log, &n);
  for (t = 3000; t <= 8400; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 2400, log, &n);
  x.t.main.cpu_ms += 6000;
  run(&x, 8500, 8400, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 2500);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 2499);
  ASSERT_DBL_EQ(log[n - 1].cause_delta.cpu_ms, 6000);
  cfx_free(&x);
  return 0;
}

/* The worker: heartbeat and self-lag evidence --------------------------------------------- */

TEST_IMPL(monitors_worker_heartbeat) {
  fx_t x;
  msg_log_t log;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  ASSERT_FALSE(lw_monset_core_worker_needed(&x.m));
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), LW_NEVER);
  lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_TRUE(lw_monset_core_worker_needed(&x.m));
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1000);
  ASSERT_EQ(wrun(&x, &log, 999.75, 999.75), 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1);
  ASSERT_EQ(log.msg[0].type, LW_MSG_HEARTBEAT);
  ASSERT_DBL_EQ(log.msg[0].sent_at, 1000);
  ASSERT_DBL_EQ(log.msg[0].self_lag, 0);
  ASSERT_EQ(log.msg[0].ev_reason, LW_REASON_NONE);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2000);
  /* Late by 30: self_lag 30; next due = now + interval. */
  ASSERT_EQ(wrun(&x, &log, 2030, 2030), 1);
  ASSERT_EQ(log.msg[1].type, LW_MSG_HEARTBEAT);
  ASSERT_DBL_EQ(log.msg[1].sent_at, 2030);
  ASSERT_DBL_EQ(log.msg[1].self_lag, 30);
  ASSERT_EQ(log.msg[1].ev_reason, LW_REASON_NONE);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 3030);
  /* Liveness is off: a main thread without progress gets no ping and no hang. */
  ASSERT_EQ(wrun(&x, &log, 3030, 0), 1);
  ASSERT_EQ(wrun(&x, &log, 4030, 0), 1);
  ASSERT_EQ(log_count(&log, LW_MSG_HEARTBEAT), 4);
  fx_free(&x);
  return 0;
}

/* A heartbeat sent while the main loop waits in its poll is quiet: the loop would answer it at
 * once, and the driver need not wake it. Not while the loop runs, not with a stop's evidence,
 * not where the driver cannot tell. */
TEST_IMPL(monitors_worker_quiet_heartbeat) {
  fx_t x;
  msg_log_t log;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1); /* no reading */
  ASSERT_EQ(log.msg[0].quiet, 0);
  x.rd.worker.main_in_poll = fake_in_poll;
  x.f.in_poll = 1;
  ASSERT_EQ(wrun(&x, &log, 2000, 2000), 1);
  ASSERT_EQ(log.msg[1].type, LW_MSG_HEARTBEAT);
  ASSERT_EQ(log.msg[1].quiet, 1);
  x.f.in_poll = 0;
  ASSERT_EQ(wrun(&x, &log, 3000, 3000), 1);
  ASSERT_EQ(log.msg[2].quiet, 0);
  /* Late by 5000: a stop, whose evidence the main thread needs. */
  x.f.in_poll = 1;
  ASSERT_EQ(wrun(&x, &log, 9000, 9000), 1);
  ASSERT_EQ(log.msg[3].ev_reason, LW_REASON_PAUSE);
  ASSERT_EQ(log.msg[3].quiet, 0);
  ASSERT_EQ(wrun(&x, &log, 10000, 10000), 1);
  ASSERT_EQ(log.msg[4].quiet, 1);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_worker_self_lag_evidence) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1);
  /* Late by 5000 with the sleep clock unchanged: pause evidence [now - self_lag, now]. */
  ASSERT_EQ(wrun(&x, &log, 7000, 7000), 1);
  o = &log.msg[1];
  ASSERT_DBL_EQ(o->self_lag, 5000);
  ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(o->ev_start, 2000);
  ASSERT_DBL_EQ(o->ev_end, 7000);
  /* The sleep clock grew by exactly suspend_min_ms since the previous run: suspend. */
  x.f.incl += 100;
  ASSERT_EQ(wrun(&x, &log, 13000.5, 13000.5), 1);
  o = &log.msg[2];
  ASSERT_DBL_EQ(o->self_lag, 5000.5);
  ASSERT_EQ(o->ev_reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(o->ev_start, 8000);
  ASSERT_DBL_EQ(o->ev_end, 13000.5);
  /* 99.75: pause. */
  x.f.incl += 99.75;
  ASSERT_EQ(wrun(&x, &log, 19000.5, 19000.5), 1);
  o = &log.msg[3];
  ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(o->ev_start, 14000.5);
  ASSERT_DBL_EQ(o->ev_end, 19000.5);
  /* The growth counts from the previous run only: a sleep before it is not counted again. */
  x.f.incl += 3000;
  ASSERT_EQ(wrun(&x, &log, 20000.5, 20000.5), 1);
  ASSERT_EQ(log.msg[4].ev_reason, LW_REASON_NONE); /* on time */
  ASSERT_EQ(wrun(&x, &log, 26000.5, 26000.5), 1);
  ASSERT_EQ(log.msg[5].ev_reason, LW_REASON_PAUSE);
  fx_free(&x);
  return 0;
}

/* A stop that began right after a run is late on the worker's timer by up to one period less:
 * lateness >= threshold - min(period, threshold / 2) counts. */
TEST_IMPL(monitors_worker_slack_rule) {
  int variant;
  for (variant = 0; variant < 4; variant++) {
    fx_t x;
    msg_log_t log;
    double t, late;
    const lw_msg_t *o;
    size_t n;
    TEST_CONTEXT("variant %d", variant);
    fx_init(&x, NULL, 0);
    memset(&log, 0, sizeof(log));
    /* Heartbeat every 1000 and liveness every 100: the worker's period is 100. */
    lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
    lw_monset_core_start(&x.m, LW_MON_LIVENESS, 0);
    for (t = 100; t <= 1000; t += 100) wrun(&x, &log, t, t);
    ASSERT_EQ(log_count(&log, LW_MSG_HEARTBEAT), 1);
    ASSERT_EQ(log.n, 1);
    ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1100);
    /* The process stops right after the run at 1000: a 5050 ms stop makes the run due at 1100
     * late by 4950 >= 5000 - 100. 4900 is the bound; 4899.75 and 4000 do not count. */
    late = variant == 0 ? 4950 : variant == 1 ? 4900 : variant == 2 ? 4899.75 : 4000;
    n = wrun(&x, &log, 1100 + late, 1000);
    o = log_find(&log, LW_MSG_HEARTBEAT, 1, NULL);
    ASSERT_NOT_NULL(o);
    ASSERT_DBL_EQ(o->sent_at, 1100 + late);
    ASSERT_DBL_EQ(o->self_lag, late);
    if (variant <= 1) {
      ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
      ASSERT_DBL_EQ(o->ev_start, 1100);
      ASSERT_DBL_EQ(o->ev_end, 1100 + late);
      /* The stop also resets the last-progress time: no ping, no hang. */
      ASSERT_EQ(n, 1);
    } else {
      ASSERT_EQ(o->ev_reason, LW_REASON_NONE);
      /* Not a stop: over a quarter of the threshold without progress is worth a ping. */
      ASSERT_EQ(n, 2);
      ASSERT_EQ(log_count(&log, LW_MSG_PING), 1);
    }
    fx_free(&x);
  }
  return 0;
}

/* The slack is at most half the threshold: with a 4000 ms period it is 2500. */
TEST_IMPL(monitors_worker_slack_capped) {
  int variant;
  for (variant = 0; variant < 2; variant++) {
    fx_t x;
    lw_monset_core_config_t cfg;
    msg_log_t log;
    double late = variant == 0 ? 2500 : 2499.75;
    TEST_CONTEXT("late %g", late);
    fx_config(&cfg);
    cfg.worker_interval_ms = 4000;
    fx_init(&x, &cfg, 0);
    memset(&log, 0, sizeof(log));
    lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
    ASSERT_EQ(wrun(&x, &log, 4000, 4000), 1);
    ASSERT_EQ(wrun(&x, &log, 8000 + late, 8000 + late), 1);
    ASSERT_DBL_EQ(log.msg[1].self_lag, late);
    ASSERT_EQ(log.msg[1].ev_reason, variant == 0 ? LW_REASON_PAUSE : LW_REASON_NONE);
    fx_free(&x);
  }
  return 0;
}

/* The worker: liveness ---------------------------------------------------------------------- */

static void liveness_fx(fx_t *x) {
  lw_monset_core_config_t cfg;
  fx_config(&cfg);
  cfg.liveness_interval_ms = 50;
  fx_init(x, &cfg, 0);
  lw_monset_core_start(&x->m, LW_MON_LIVENESS, 0);
}

TEST_IMPL(monitors_liveness_hang_once) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  double t, at;
  liveness_fx(&x);
  memset(&log, 0, sizeof(log));
  /* The main thread makes progress until 1000, then stops; the worker stays on time. */
  for (t = 50; t <= 1000; t += 50) wrun(&x, &log, t, t);
  ASSERT_EQ(log.n, 0);
  for (; t <= 8950; t += 50) wrun(&x, &log, t, 1000);
  /* A ping at a quarter of the threshold without progress (1000 + 1250), once. */
  ASSERT_EQ(log_count(&log, LW_MSG_PING), 1);
  ASSERT_NOT_NULL(log_find(&log, LW_MSG_PING, 0, &at));
  ASSERT_DBL_EQ(at, 2250);
  /* Exactly one hang start, at 1000 + 5000: hang_start = the last progress time. */
  ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 1);
  o = log_find(&log, LW_MSG_HANG_START, 0, &at);
  ASSERT_DBL_EQ(at, 6000);
  ASSERT_DBL_EQ(o->hang_start, 1000);
  ASSERT_DBL_EQ(o->detected_at, 6000);
  ASSERT_EQ(log.n, 2);
  /* Progress (the main thread ran at 8990): the hang ends there. */
  ASSERT_EQ(wrun(&x, &log, 9000, 8990), 1);
  o = &log.msg[2];
  ASSERT_EQ(o->type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(o->hang_start, 1000);
  ASSERT_DBL_EQ(o->detected_at, 6000);
  ASSERT_DBL_EQ(o->hang_end, 8990);
  /* Without progress again, a ping only after 1250 more (8990 + 1250 -> the run at 10250). */
  for (t = 9050; t <= 10200; t += 50) ASSERT_EQ(wrun(&x, &log, t, 8990), 0);
  ASSERT_EQ(wrun(&x, &log, 10250, 8990), 1);
  ASSERT_EQ(log.msg[3].type, LW_MSG_PING);
  for (t = 10300; t <= 12000; t += 50) ASSERT_EQ(wrun(&x, &log, t, 8990), 0);
  ASSERT_EQ(log.n, 4);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_liveness_self_lag_resets_progress) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  double t, at;
  liveness_fx(&x);
  memset(&log, 0, sizeof(log));
  for (t = 50; t <= 1000; t += 50) wrun(&x, &log, t, t);
  for (; t <= 3000; t += 50) wrun(&x, &log, t, 1000);
  ASSERT_EQ(log_count(&log, LW_MSG_PING), 1);
  /* The process pauses: the run due at 3050 runs at 8050 (late by 5000): pause evidence
   * [3050, 8050], even with the heartbeat off. 7050 ms without progress, but a pause is no part
   * of a hang: the last progress moves 5000 later, to 6000 (2050 ms of the app's own before the
   * stop, so the hang is flagged 2950 ms after it, at 11000). */
  ASSERT_EQ(wrun(&x, &log, 8050, 1000), 1);
  o = log_find(&log, LW_MSG_EVIDENCE, 0, &at);
  ASSERT_NOT_NULL(o);
  ASSERT_EQ(o->ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(o->ev_start, 3050);
  ASSERT_DBL_EQ(o->ev_end, 8050);
  for (t = 8100; t <= 10950; t += 50) ASSERT_EQ(wrun(&x, &log, t, 1000), 0);
  ASSERT_EQ(wrun(&x, &log, 11000, 1000), 1);
  o = log_find(&log, LW_MSG_HANG_START, 0, &at);
  ASSERT_NOT_NULL(o);
  ASSERT_DBL_EQ(at, 11000);
  ASSERT_DBL_EQ(o->hang_start, 6000);
  ASSERT_DBL_EQ(o->detected_at, 11000);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_liveness_self_lag_moves_hang_start) {
  fx_t x;
  msg_log_t log;
  const lw_msg_t *o;
  double t;
  liveness_fx(&x);
  memset(&log, 0, sizeof(log));
  for (t = 50; t <= 1000; t += 50) wrun(&x, &log, t, t);
  for (; t <= 6500; t += 50) wrun(&x, &log, t, 1000);
  ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 1);
  /* During the hang the worker itself is late by 6000 (due 6550, runs at 12550): pause
   * evidence, and the hang starts 6000 later. */
  ASSERT_EQ(wrun(&x, &log, 12550, 1000), 1);
  ASSERT_EQ(log_count(&log, LW_MSG_EVIDENCE), 1);
  ASSERT_EQ(wrun(&x, &log, 12600, 12580), 1);
  o = log_find(&log, LW_MSG_HANG_END, 0, NULL);
  ASSERT_NOT_NULL(o);
  ASSERT_DBL_EQ(o->hang_start, 1000 + 6000);
  ASSERT_DBL_EQ(o->detected_at, 6000);
  ASSERT_DBL_EQ(o->hang_end, 12580);
  ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 1);
  fx_free(&x);
  return 0;
}

/* A SIGCONT at `at`: pause evidence from the worker's last run (the stop began after it). */
TEST_IMPL(worker_continued_evidence) {
  fx_t x;
  msg_log_t log;
  lw_msg_t out[1];
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  ASSERT_EQ(lw_worker_continued(&x.m.worker, 500, out), 0); /* off: nothing */
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 1000);
  wrun(&x, &log, 1100, 1000);
  ASSERT_EQ(lw_worker_continued(&x.m.worker, 1100, out), 0); /* not after its last run */
  ASSERT_EQ(lw_worker_continued(&x.m.worker, 1400, out), 1);
  ASSERT_EQ(out[0].type, LW_MSG_EVIDENCE);
  ASSERT_EQ(out[0].ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(out[0].ev_start, 1100);
  ASSERT_DBL_EQ(out[0].ev_end, 1400);
  fx_free(&x);
  return 0;
}

/* A run about on time after a continue (a stop the worker's lateness never showed, its timer's
 * jitter aside): the continue's evidence covers the stop, and the run sends none of its own,
 * neither with the liveness checks nor with the heartbeat: a span at the run would read as a stop
 * just then to the lateness timers caught up after the loop's wait. */
TEST_IMPL(worker_continued_then_on_time) {
  fx_t x;
  msg_log_t log;
  lw_msg_t out[1];
  int mon;
  for (mon = 0; mon < 2; mon++) {
    fx_init(&x, NULL, 0);
    memset(&log, 0, sizeof(log));
    lw_monset_core_start(&x.m, mon ? LW_MON_WORKER : LW_MON_LIVENESS, 1000);
    wrun(&x, &log, mon ? 2000 : 1100, 1000);
    ASSERT_EQ(lw_worker_continued(&x.m.worker, mon ? 2050 : 1150, out), 1);
    ASSERT_EQ(out[0].type, LW_MSG_EVIDENCE);
    wrun(&x, &log, mon ? 3000.5 : 1200.5, 1200);
    ASSERT_EQ(log_count(&log, LW_MSG_EVIDENCE), 0);
    ASSERT_EQ(log_count(&log, LW_MSG_HANG_START), 0);
    if (mon) ASSERT_EQ(log.msg[log.n - 1].ev_reason, LW_REASON_NONE);
    fx_free(&x);
  }
  return 0;
}

/* The worker runs once after the process resumed and before the SIGCONT handler read the clock
 * (seen under ASan beside other suites): that run sees only its lateness, from its due time; the
 * continue told just after it still covers the stop from the run before (a pause of 6 s was
 * reported as 5625 ms, its evidence cut at the worker's due time). */
TEST_IMPL(worker_continued_after_a_late_run) {
  cfx_t x;
  lw_msg_t log[64], out[1];
  size_t n = 0;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  /* Stopped from 1050 to 7100: the check due at 1100 runs at 7100, 6000 late (a stop). */
  n = 0;
  run(&x, 7100, 1000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_EVIDENCE);
  ASSERT_DBL_EQ(log[n - 1].ev_start, 1100);
  /* The continue, read 2 ms later: from the run before the late one (1000). */
  ASSERT_EQ(lw_worker_continued(&x.m.worker, 7102, out), 1);
  ASSERT_DBL_EQ(out[0].ev_start, 1000);
  ASSERT_DBL_EQ(out[0].ev_end, 7102);
  cfx_free(&x);
  return 0;
}

static int renews, moves_left;
static lw_thread_times_t renew_times;
static int renew_main_sched(void *d, lw_thread_times_t *out) {
  (void)d;
  *out = renew_times;
  return 0;
}
static int renew_cb(void *d) {
  (void)d;
  renews++;
  return moves_left > 0 ? (moves_left--, 1) : 0;
}

/* The cause's sources are looked at again at the first check without progress after progress
 * (a hang may be starting), not at the checks after it nor while the loop shows progress; a
 * move found there takes a fresh baseline (the new cgroup's counters). */
TEST_IMPL(worker_renews_sources_at_a_hang_start) {
  fx_t x;
  msg_log_t log;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  renews = 0;
  moves_left = 1;
  memset(&renew_times, 0, sizeof(renew_times));
  x.rd.worker.main_sched = renew_main_sched;
  x.rd.worker.main_renew = renew_cb;
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 1000);
  wrun(&x, &log, 1100, 1050); /* progress: nothing looked at */
  wrun(&x, &log, 1200, 1150);
  ASSERT_EQ(renews, 0);
  renew_times.throttled_ms = 500; /* the old group's counter, then the new one's */
  wrun(&x, &log, 1300, 1150); /* no progress: looked at once, moved: baseline read now */
  ASSERT_EQ(renews, 1);
  ASSERT_TRUE(x.m.worker.cause.has_base);
  ASSERT_DBL_EQ(x.m.worker.cause.base.throttled_ms, 500);
  renew_times.throttled_ms = 40;
  wrun(&x, &log, 1400, 1150);
  wrun(&x, &log, 1500, 1150);
  ASSERT_EQ(renews, 1);
  wrun(&x, &log, 1600, 1550); /* progress */
  wrun(&x, &log, 1700, 1550); /* no progress again: looked at again, no move */
  ASSERT_EQ(renews, 2);
  fx_free(&x);
  return 0;
}

/* A process moved into a quota-limited cgroup while its loop waited: the cause's baseline was read
 * in the old group as the rest began (its counter at 900), and the hang that follows is seen from
 * the rest. At the first check without progress the move is found, and the baseline is read again
 * in the new group (its counter at 40): the hang's throttling is the new group's growth alone
 * (3000 ms), never the difference of two groups' counters (2140 if the rest's baseline stayed). */
static int move_to_new_group(void *d) {
  times_t *t = d;
  renews++;
  if (moves_left <= 0) return 0;
  moves_left--;
  t->main.throttled_ms = 40;
  return 1;
}

TEST_IMPL(worker_renews_a_rest_baseline_in_the_new_group) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0;
  double t;
  renews = 0;
  moves_left = 1;
  cfx_init(&x);
  x.rd.worker.main_renew = move_to_new_group;
  x.t.main.throttled_ms = 900;
  rest_from_1100(&x, log, &n);
  ASSERT_TRUE(x.m.worker.cause.has_base);
  ASSERT_DBL_EQ(x.m.worker.cause.base.throttled_ms, 900);
  ASSERT_EQ(renews, 0);
  x.t.avail = 1500; /* the loop stops waiting at 1500 and hangs */
  run(&x, 2000, 1000, log, &n);
  for (t = 2100; t <= 8000; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 1000, log, &n);
  ASSERT_EQ(renews, 1);
  x.t.main.throttled_ms += 3000;
  x.t.main.cpu_ms += 3000;
  run(&x, lw_worker_next_due(&x.m.worker), 8000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 1500);
  ASSERT_EQ(log[n - 1].cause_known, 1);
  ASSERT_DBL_EQ(log[n - 1].cause_delta.throttled_ms, 3000);
  cfx_free(&x);
  return 0;
}
