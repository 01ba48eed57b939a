/* The monitor set (SPEC §6, src/core/monitors.c): loopBlock and the loop model, clockDrift, the
 * worker's messages received on the main thread, and start/stop/flush. */
#include "fixture-monitors.h"

/* loopBlock ------------------------------------------------------------------------------- */

TEST_IMPL(monitors_loopblock_busy_time) {
  fx_t x;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  ns = stats_of(&x, LW_MON_LOOPBLOCK);
  /* Not running: an iteration submits nothing. */
  lw_monset_core_iteration(&x.m, 10, 0);
  ASSERT_EQ(x.c.submitted, 0);
  x.f.idle = 5;
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 20);
  /* busy = Δt - Δidle = 80 - 50; recorded at once: no due time changed (0). */
  x.f.idle = 55;
  ASSERT_EQ(lw_monset_core_iteration(&x.m, 100, 0), 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.busy_total"), 30);
  /* More idle than time passed: clamped to 0. */
  x.f.idle = 105;
  lw_monset_core_iteration(&x.m, 140, 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30, 0);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.busy_total"), 30);
  lw_monset_core_iteration(&x.m, 240.5, 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30, 0, 100.5);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.busy_total"), 130.5);
  /* A long block is held: value and window are the busy time, the window ends now. */
  x.f.idle = 105 + 10;
  ASSERT_EQ(lw_monset_core_iteration(&x.m, 6250.5, 0), 1); /* held: the conditions have a due time */
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_DBL_EQ(last_held(&x)->value, 6000);
  ASSERT_DBL_EQ(last_held(&x)->window_start, 250.5);
  ASSERT_DBL_EQ(last_held(&x)->window_end, 6250.5);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.busy_total"), 6130.5);
  lw_conditions_run(&x.c, 8250.5);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 30, 0, 100.5, 6000);
  ASSERT_EQ(ns->submitted, 4);
  ASSERT_EQ(ns->recorded, 4);
  /* Batches off (nothing in JS reads them): recorded and counted as before, nothing copied. */
  lw_monset_core_keep_batches(&x.m, 0);
  x.f.idle = 115 + 4;
  ASSERT_EQ(lw_monset_core_iteration(&x.m, 6260.5, 0), 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 4);
  ASSERT_EQ(ns->recorded, 5);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.busy_total"), 6130.5 + 6);
  lw_monset_core_keep_batches(&x.m, 1);
  lw_monset_core_iteration(&x.m, 6270.5, 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 5);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* clockDrift ------------------------------------------------------------------------------ */

static void expect_jump(const lw_event_t *ev, lw_jump_t kind, double at, double delta) {
  ASSERT_NOT_NULL(ev);
  ASSERT_EQ(ev->type, LW_EVENT_JUMP);
  ASSERT_EQ(ev->jump, kind);
  ASSERT_DBL_EQ(ev->at, at);
  ASSERT_DBL_EQ(ev->duration_ms, delta);
}

TEST_IMPL(monitors_clock_sleep_pair) {
  fx_t x;
  lw_interval_t iv[4];
  const lw_event_t *ev;
  size_t n;
  fx_init(&x, NULL, 0); /* Linux: the monotonic clock stops during a sleep */
  lw_monset_core_start(&x.m, LW_MON_CLOCKDRIFT, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000);
  /* A 3000 ms sleep: wall and inclusive advance by it, monotonic and exclusive do not. */
  x.f.wall += 1000 + 3000;
  x.f.incl += 1000 + 3000;
  x.f.excl += 1000;
  lw_monset_core_run(&x.m, 1000);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 1);
  expect_jump(&ev[0], LW_JUMP_SUSPEND, 1000, 3000);
  ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 1);
  ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 0);
  /* A closed suspend interval over [previous read, now]. */
  ASSERT_EQ(lw_tracker_list(&x.c.tracker, 1000, iv, 4), 1);
  ASSERT_EQ(iv[0].reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(iv[0].start, 0);
  ASSERT_DBL_EQ(iv[0].end, 1000);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 2000);
  lw_conditions_events_clear(&x.c);

  /* The wall clock steps +1000 with no sleep: a step jump of d = 1000, no interval. */
  x.f.wall += 1000 + 1000;
  x.f.incl += 1000;
  x.f.excl += 1000;
  lw_monset_core_run(&x.m, 2000);
  /* Then -1000. */
  x.f.wall += 1000 - 1000;
  x.f.incl += 1000;
  x.f.excl += 1000;
  lw_monset_core_run(&x.m, 3000);
  /* -999.75: nothing. */
  x.f.wall += 1000 - 999.75;
  x.f.incl += 1000;
  x.f.excl += 1000;
  lw_monset_core_run(&x.m, 4000);
  /* A 99.75 ms sleep: below suspend_min_ms, and d = 0 once the sleep is removed: nothing. */
  x.f.wall += 1000 + 99.75;
  x.f.incl += 1000 + 99.75;
  x.f.excl += 1000;
  lw_monset_core_run(&x.m, 5000);
  /* Exactly 100: a suspend over [5000, 6000]. */
  x.f.wall += 1000 + 100;
  x.f.incl += 1000 + 100;
  x.f.excl += 1000;
  lw_monset_core_run(&x.m, 6000);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 3);
  expect_jump(&ev[0], LW_JUMP_STEP, 2000, 1000);
  expect_jump(&ev[1], LW_JUMP_STEP, 3000, -1000);
  expect_jump(&ev[2], LW_JUMP_SUSPEND, 6000, 100);
  ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 2);
  ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 2);
  ASSERT_EQ(lw_tracker_list(&x.c.tracker, 6000, iv, 4), 2);
  ASSERT_EQ(iv[1].reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(iv[1].start, 5000);
  ASSERT_DBL_EQ(iv[1].end, 6000);
  fx_free(&x);
  return 0;
}

/* d = Δwall - Δmono - (mono_includes_sleep ? 0 : sleep). */
TEST_IMPL(monitors_clock_mono_includes_sleep) {
  int inc;
  for (inc = 0; inc <= 1; inc++) {
    fx_t x;
    const lw_event_t *ev;
    size_t n;
    TEST_CONTEXT("mono_includes_sleep = %d", inc);
    fx_init(&x, NULL, inc);
    lw_monset_core_start(&x.m, LW_MON_CLOCKDRIFT, 0);
    /* The same readings on both: Δmono 1000, Δwall 2020, sleep 50 (below suspend_min_ms).
     * Linux removes the sleep: d = 970, nothing; darwin/win32: d = 1020, a step. */
    x.f.wall += 2020;
    x.f.incl += 1050;
    x.f.excl += 1000;
    lw_monset_core_run(&x.m, 1000);
    ev = lw_conditions_events(&x.c, &n);
    if (inc) {
      ASSERT_EQ(n, 1);
      expect_jump(&ev[0], LW_JUMP_STEP, 1000, 1020);
    } else {
      ASSERT_EQ(n, 0);
    }
    lw_conditions_events_clear(&x.c);
    /* A real 50 ms sleep and a +1000 step, as each platform's clocks see them: d = 1000 on
     * both. */
    if (inc) {
      x.f.wall += 1000 + 1000;
      x.f.incl += 1000;
      x.f.excl += 1000 - 50;
    } else {
      x.f.wall += 1000 + 50 + 1000;
      x.f.incl += 1000 + 50;
      x.f.excl += 1000;
    }
    lw_monset_core_run(&x.m, 2000);
    ev = lw_conditions_events(&x.c, &n);
    ASSERT_EQ(n, 1);
    expect_jump(&ev[0], LW_JUMP_STEP, 2000, 1000);
    ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 0);
    ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 1 + inc);
    ASSERT_EQ(n_intervals(&x, 2000), 0);
    fx_free(&x);
  }
  return 0;
}

TEST_IMPL(monitors_clock_without_pair) {
  int variant;
  /* 0: the platform has no pair (sleep_pair returns -1); 1: cfg.sleep_clock = 0. */
  for (variant = 0; variant <= 1; variant++) {
    fx_t x;
    lw_monset_core_config_t cfg;
    lw_interval_t iv[4];
    const lw_event_t *ev;
    size_t n;
    TEST_CONTEXT("variant %d", variant);
    fx_config(&cfg);
    if (variant == 1) cfg.sleep_clock = 0;
    fx_init(&x, &cfg, 0);
    x.f.has_pair = variant == 1;
    lw_monset_core_start(&x.m, LW_MON_CLOCKDRIFT, 0);
    /* With sleep_clock = 0 a pair that says 3000 ms were slept is never read. */
    x.f.incl += 1000 + 3000;
    x.f.excl += 1000;
    /* Forward 1000: a suspend and an interval over [0, 1000]. */
    x.f.wall += 1000 + 1000;
    lw_monset_core_run(&x.m, 1000);
    /* Back 1000: a step. */
    x.f.wall += 1000 - 1000;
    lw_monset_core_run(&x.m, 2000);
    /* ±999.75: nothing. */
    x.f.wall += 1000 + 999.75;
    lw_monset_core_run(&x.m, 3000);
    x.f.wall += 1000 - 999.75;
    lw_monset_core_run(&x.m, 4000);
    ev = lw_conditions_events(&x.c, &n);
    ASSERT_EQ(n, 2);
    expect_jump(&ev[0], LW_JUMP_SUSPEND, 1000, 1000);
    expect_jump(&ev[1], LW_JUMP_STEP, 2000, -1000);
    ASSERT_EQ(x.c.jumps[LW_JUMP_SUSPEND], 1);
    ASSERT_EQ(x.c.jumps[LW_JUMP_STEP], 1);
    ASSERT_EQ(lw_tracker_list(&x.c.tracker, 4000, iv, 4), 1);
    ASSERT_EQ(iv[0].reason, LW_REASON_SUSPEND);
    ASSERT_DBL_EQ(iv[0].start, 0);
    ASSERT_DBL_EQ(iv[0].end, 1000);
    if (variant == 1) ASSERT_EQ(x.f.pair_calls, 0);
    fx_free(&x);
  }
  return 0;
}

/* Messages on the main thread --------------------------------------------------------------- */

static lw_msg_t heartbeat(double sent_at, double self_lag, uint32_t reason, double s, double e) {
  lw_msg_t msg;
  memset(&msg, 0, sizeof(msg));
  msg.type = LW_MSG_HEARTBEAT;
  msg.sent_at = sent_at;
  msg.self_lag = self_lag;
  msg.ev_reason = reason;
  msg.ev_start = s;
  msg.ev_end = e;
  return msg;
}

TEST_IMPL(monitors_receive_heartbeat) {
  fx_t x;
  lw_msg_t msg;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  ns = stats_of(&x, LW_MON_WORKER);
  ASSERT_STR_EQ(ns->name, "worker");
  lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
  /* The sample: how long the heartbeat waited for the main thread. */
  msg = heartbeat(1000, 30, LW_REASON_ANY, 0, 0);
  lw_monset_core_receive(&x.m, &msg, 1, 1015);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 15);
  ASSERT_BATCH(&x.m.self_lag_batch, 30);
  {
    lw_monset_core_stats_t st;
    lw_monset_core_stats(&x.m, &st);
    ASSERT_EQ(st.self_lag_count, 1);
    ASSERT_DBL_EQ(st.self_lag_max, 30);
  }
  ASSERT_EQ(n_intervals(&x, 1015), 0);
  /* Window [2000, 2040.5]: a probe touching its start does not overlap. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1990, 2000, LW_REASON_HIDDEN, 1015), LW_OK);
  msg = heartbeat(2000, 0, LW_REASON_ANY, 0, 0);
  lw_monset_core_receive(&x.m, &msg, 1, 2040.5);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 15, 40.5);
  ASSERT_EQ(ns->recorded, 2);
  /* With the worker monitor stopped, the self-lag still counts, but no sample. */
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 2050);
  lw_monset_core_stop(&x.m, LW_MON_WORKER, 2050);
  msg = heartbeat(3000, 7, LW_REASON_ANY, 0, 0);
  lw_monset_core_receive(&x.m, &msg, 1, 3010);
  ASSERT_EQ(ns->submitted, 2);
  ASSERT_BATCH(&x.m.self_lag_batch, 30, 0, 7);
  fx_free(&x);
  return 0;
}

/* The heartbeat's evidence is added before its own sample is judged. */
TEST_IMPL(monitors_receive_evidence_before_sample) {
  int with_evidence;
  for (with_evidence = 1; with_evidence >= 0; with_evidence--) {
    fx_t x;
    lw_msg_t msg;
    const lw_event_t *ev;
    const lw_name_stats_t *ns;
    TEST_CONTEXT("with evidence: %d", with_evidence);
    fx_init(&x, NULL, 0);
    ns = stats_of(&x, LW_MON_WORKER);
    lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
    /* Waited 6000 (window [2000, 8000]); the evidence [1500, 7500] overlaps that window. */
    msg = heartbeat(2000, 0, with_evidence ? LW_REASON_PAUSE : LW_REASON_ANY, 1500, 7500);
    lw_monset_core_receive(&x.m, &msg, 1, 8000);
    if (with_evidence) {
      lw_interval_t iv = only_interval(&x, 8000);
      ASSERT_EQ(iv.reason, LW_REASON_PAUSE);
      ASSERT_DBL_EQ(iv.start, 1500);
      ASSERT_DBL_EQ(iv.end, 7500);
      /* Discarded at once as pause, and a pause stall sample. */
      ASSERT_EQ(x.c.held_count, 0);
      ASSERT_EQ(ns->discarded, 1);
      ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
      ASSERT_EQ(x.c.nepisodes, 1);
      drive_to(&x.c, &(double){8000}, 10000);
      ev = find_event(&x.c, LW_EVENT_STALL);
      ASSERT_NOT_NULL(ev);
      ASSERT_EQ(ev->kind, LW_KIND_PAUSE);
      ASSERT_DBL_EQ(ev->duration_ms, 6000);
      ASSERT_DBL_EQ(ev->start, 2000);
      ASSERT_DBL_EQ(ev->end, 8000);
      ASSERT_EQ(x.c.stalls[LW_KIND_PAUSE], 1);
      ASSERT_EQ(x.c.stalls[LW_KIND_HANG], 0);
      ASSERT_EQ(x.m.batch[LW_MON_WORKER].len, 0);
    } else {
      /* Without it the same wait is held, then a hang. */
      ASSERT_EQ(x.c.held_count, 1);
      drive_to(&x.c, &(double){8000}, 12000);
      ASSERT_EQ(x.c.stalls[LW_KIND_HANG], 1);
      ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 6000);
    }
    ASSERT_CONSERVATION(&x.c);
    fx_free(&x);
  }
  return 0;
}

/* An on-time heartbeat waits in the queue through a pause; the next one brings the evidence in
 * the same turn: the first sample is held, and resolves as pause. */
TEST_IMPL(monitors_receive_evidence_after_held) {
  fx_t x;
  msg_log_t log;
  double now = 7500;
  size_t i;
  fx_init(&x, NULL, 0);
  memset(&log, 0, sizeof(log));
  lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
  ASSERT_EQ(wrun(&x, &log, 1000, 1000), 1);
  ASSERT_EQ(wrun(&x, &log, 7500, 1000), 1);
  ASSERT_EQ(log.msg[1].ev_reason, LW_REASON_PAUSE);
  for (i = 0; i < log.n; i++) lw_monset_core_receive(&x.m, &log.msg[i], 1, 7500);
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 0);
  drive_to(&x.c, &now, 20000);
  ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
  ASSERT_EQ(x.c.stalls[LW_KIND_PAUSE], 1);
  ASSERT_EQ(x.c.stalls[LW_KIND_HANG], 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_WORKER], 0);
  ASSERT_BATCH(&x.m.self_lag_batch, 0, 5500);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_receive_hang_end) {
  fx_t x;
  lw_monset_core_config_t cfg;
  lw_msg_t msg;
  const lw_event_t *ev;
  size_t n;
  fx_config(&cfg);
  cfg.liveness_interval_ms = 50; /* the main thread resumes after a gap of 100 */
  fx_init(&x, &cfg, 0);
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 0);
  /* The main thread resumes at its first activity after a gap of 2 liveness intervals. */
  lw_monset_core_iteration(&x.m, 800, 0);
  ASSERT_DBL_EQ(x.m.seen.resumed_at, 800);
  lw_monset_core_iteration(&x.m, 899.75, 0);
  ASSERT_DBL_EQ(x.m.seen.resumed_at, 800);
  lw_monset_core_run(&x.m, 999.75);
  ASSERT_DBL_EQ(x.m.seen.resumed_at, 999.75);
  lw_monset_core_iteration(&x.m, 1000, 0);
  ASSERT_DBL_EQ(x.m.seen.resumed_at, 999.75);
  /* Blocked from 1000; the main thread's first turn after that is at 8980. */
  lw_monset_core_iteration(&x.m, 8980, 0);
  lw_monset_core_iteration(&x.m, 8990, 0);
  ASSERT_DBL_EQ(x.m.seen.resumed_at, 8980);
  memset(&msg, 0, sizeof(msg));
  msg.type = LW_MSG_HANG_START;
  msg.hang_start = 1000;
  msg.detected_at = 6000;
  lw_monset_core_receive(&x.m, &msg, 1, 9005);
  ASSERT_EQ(STATE(&x.m, LW_MON_LIVENESS, uint64_t, "hangs"), 1);
  ASSERT_EQ(x.c.events.n, 0);
  msg.type = LW_MSG_HANG_END;
  msg.hang_end = 8990; /* the worker saw progress stamped 8990 */
  lw_monset_core_receive(&x.m, &msg, 1, 9005);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(ev[0].type, LW_EVENT_WORKER_HANG);
  ASSERT_DBL_EQ(ev[0].at, 9005);
  ASSERT_DBL_EQ(ev[0].start, 1000);
  ASSERT_DBL_EQ(ev[0].detected_at, 6000);
  ASSERT_DBL_EQ(ev[0].end, 8980); /* when the main thread resumed */
  ASSERT_DBL_EQ(ev[0].duration_ms, 7980);
  ASSERT_EQ(STATE(&x.m, LW_MON_LIVENESS, lw_histogram_t, "hang").count, 1);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LIVENESS, lw_histogram_t, "hang").max, 7980);
  lw_conditions_events_clear(&x.c);
  /* No resume inside [detected_at, hang_end] (the receipt itself is the resume, at 27010):
   * the end is the worker's hang_end. */
  msg.hang_start = 20000;
  msg.detected_at = 25000;
  msg.hang_end = 27000;
  lw_monset_core_receive(&x.m, &msg, 1, 27010);
  ASSERT_DBL_EQ(x.m.seen.resumed_at, 27010);
  ev = lw_conditions_events(&x.c, &n);
  ASSERT_EQ(n, 1);
  ASSERT_DBL_EQ(ev[0].end, 27000);
  ASSERT_DBL_EQ(ev[0].duration_ms, 7000);
  ASSERT_EQ(STATE(&x.m, LW_MON_LIVENESS, uint64_t, "hangs"), 1);
  ASSERT_EQ(STATE(&x.m, LW_MON_LIVENESS, lw_histogram_t, "hang").count, 2);
  fx_free(&x);
  return 0;
}

/* The monitors' stall threshold is the conditions' own; with episodes off (Infinity) it is the
 * default one, which still paces the worker's rests and its hang detector. */
TEST_IMPL(monitors_config_stall_threshold) {
  lw_conditions_config_t ccfg;
  lw_conditions_t c;
  lw_monset_core_config_t cfg;
  lw_conditions_config_default(&ccfg);
  ccfg.stall_threshold_ms = 3000;
  ASSERT_EQ(lw_conditions_init(&c, &ccfg), LW_OK);
  lw_monset_core_config_default(&cfg, &c);
  ASSERT_DBL_EQ(cfg.stall_threshold_ms, 3000);
  lw_conditions_free(&c);
  ccfg.stall_threshold_ms = INFINITY;
  ASSERT_EQ(lw_conditions_init(&c, &ccfg), LW_OK);
  lw_monset_core_config_default(&cfg, &c);
  ASSERT_DBL_EQ(cfg.stall_threshold_ms, 5000);
  lw_conditions_free(&c);
  lw_monset_core_config_default(&cfg, NULL);
  ASSERT_DBL_EQ(cfg.stall_threshold_ms, 5000);
  return 0;
}

/* Start, stop, flush ---------------------------------------------------------------------- */

TEST_IMPL(monitors_start_stop_flush) {
  fx_t x;
  lw_monset_core_config_t cfg;
  int i;
  lw_monset_core_config_default(&cfg, NULL);
  ASSERT_DBL_EQ(cfg.flush_interval_ms, 1000);
  fx_init(&x, &cfg, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), LW_NEVER);
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 0);
  ASSERT_TRUE(x.m.running[LW_MON_DRIFT]);
  ASSERT_DBL_EQ(x.m.flush_due, 1000);
  /* Starting again does nothing: the timer keeps its due time, the flush too. */
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 10);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 20);
  ASSERT_DBL_EQ(x.m.flush_due, 1000);
  ASSERT_EQ(lw_monset_core_run(&x.m, 20), 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 30);
  ASSERT_DBL_EQ(x.m.flush_due, 1000);
  x.t = 30;
  for (i = 1; i <= 49; i++) loop_turn(&x, 20 + 20 * i, 1);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000);
  {
    lw_msg_t msg = heartbeat(990, 3, LW_REASON_ANY, 0, 0);
    lw_monset_core_receive(&x.m, &msg, 1, 995); /* its self-lag goes out with the flush too */
    ASSERT_EQ(x.m.self_lag_batch.len, 1);
  }
  ASSERT_EQ(lw_monset_core_run(&x.m, 1000), 1);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 50);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 49);
  lw_monset_core_flushed(&x.m, 1000);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 0);
  ASSERT_EQ(x.m.self_lag_batch.len, 0);
  ASSERT_DBL_EQ(x.m.flush_due, 2000);
  /* Stopping one of two: no flush yet; stopping a stopped one does nothing. */
  lw_monset_core_stop(&x.m, LW_MON_DRIFT, 1010);
  ASSERT_FALSE(x.m.running[LW_MON_DRIFT]);
  lw_monset_core_stop(&x.m, LW_MON_DRIFT, 1015);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 2000);
  lw_monset_core_iteration(&x.m, 1100, 0);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 1);
  /* The last stop makes a flush due at once; the values stay until it. */
  lw_monset_core_stop(&x.m, LW_MON_LOOPBLOCK, 1200);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1200);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 1);
  ASSERT_EQ(lw_monset_core_run(&x.m, 1200), 1);
  lw_monset_core_flushed(&x.m, 1200);
  ASSERT_EQ(x.m.batch[LW_MON_LOOPBLOCK].len, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), LW_NEVER);
  ASSERT_EQ(lw_monset_core_run(&x.m, 5000), 0);
  fx_free(&x);
  return 0;
}

/* Every recorded value of a validated monitor lands in its batch, held ones included. */
TEST_IMPL(monitors_batches_match_recorded) {
  fx_t x;
  lw_rng_t rng = {0x6c61677761746368ull};
  static const lw_mon_t validated[] = {LW_MON_DRIFT, LW_MON_MACROTASK, LW_MON_LOOPBLOCK,
                                       LW_MON_IDLE, LW_MON_WORKER};
  double now = 0, busy, progress = 0;
  uint64_t recorded = 0, held_seen = 0;
  size_t i, j, k, nq;
  lw_msg_t queue[64];
  fx_init(&x, NULL, 0);
  for (i = 0; i < 5; i++) lw_monset_core_start(&x.m, validated[i], 0);
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 0);
  for (k = 0; k < 3000; k++) {
    TEST_CONTEXT("step %zu", k);
    /* Mostly short turns, now and then a block of 5 to 7 s. */
    busy = rng_chance(&rng, 1, 200) ? 5000 + (double)rng_below(&rng, 2000)
                                    : (double)rng_below(&rng, 30);
    now += busy + (double)rng_below(&rng, 30) + 0.25;
    /* The worker runs on time meanwhile, seeing the progress of the previous turn. */
    nq = 0;
    while (lw_worker_next_due(&x.m.worker) <= now) {
      ASSERT_LE(nq + 4, 64);
      nq += lw_worker_run(&x.m.worker, lw_worker_next_due(&x.m.worker), progress, &queue[nq]);
    }
    loop_turn(&x, now, busy);
    progress = now;
    for (j = 0; j < nq; j++) lw_monset_core_receive(&x.m, &queue[j], 1, now);
    if (x.c.held_count > held_seen) held_seen = x.c.held_count;
    lw_conditions_run(&x.c, now);
  }
  drive_all(&x.c, &now);
  ASSERT_GT(held_seen, 0);
  ASSERT_EQ(x.c.held_count, 0);
  ASSERT_GT(x.c.stalls[LW_KIND_HANG], 0); /* held samples were recorded */
  for (i = 0; i < 5; i++) {
    const lw_name_stats_t *ns = stats_of(&x, validated[i]);
    const lw_batch_t *b = &x.m.batch[validated[i]];
    double sum = 0;
    TEST_CONTEXT("%s", lw_mon_name(validated[i]));
    ASSERT_GT(ns->recorded, 0);
    ASSERT_EQ(b->len, ns->recorded);
    for (j = 0; j < b->len; j++) sum += b->values[j];
    ASSERT_DBL_EQ(sum, ns->recorded_hist.sum);
    recorded += b->len;
  }
  ASSERT_EQ(recorded, x.c.recorded);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* A stop the worker reports ends, at the latest, at the main thread's first run after it: the
 * process was running then. The main thread's own work that started there is judged on its
 * own, not as part of the stop. */
TEST_IMPL(monitors_stop_ends_at_main_resumption) {
  fx_t x;
  lw_msg_t msg;
  lw_interval_t iv;
  double t;
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  for (t = 20; t <= 1000; t += 20) loop_turn(&x, t, 0);
  /* Stopped from 1000 to 7000; the main thread runs first at 7000.25, the worker at 7003. */
  loop_turn(&x, 7000.25, 0);
  msg = heartbeat(7003, 6003, LW_REASON_PAUSE, 1000, 7003);
  lw_monset_core_receive(&x.m, &msg, 1, 7010);
  iv = only_interval(&x, 7010);
  ASSERT_EQ(iv.reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(iv.start, 1000);
  ASSERT_DBL_EQ(iv.end, 7000.25);
  /* A sample of the main thread's work from its resumption on does not overlap the stop. */
  ASSERT_EQ(lw_tracker_find_priority(&x.c.tracker, 7000.25, 9500, 9500, &iv), 0);
  fx_free(&x);
  return 0;
}

/* SPEC §6, embedded loops: iterations that start >= 5 ms off a CPU after a poll that could have
 * waited and did not (libuv's idle time unchanged) make the loop an embedded one at the second;
 * from then on the idle reading is the time neither on a CPU nor waiting for one, continuous with
 * libuv's at the switch. Shorter gaps, a poll that could not wait, or no such reading, change
 * nothing. */
static double fake_runnable(void *d) { return ((fake_t *)d)->wall - WALL0; /* reused as such */ }

/* An iteration after a poll that could (or could not) have waited and whose end came `outside`
 * ms before it, with the thread off every CPU since (the runnable reading unchanged). */
static void iterate(fx_t *x, double now, double outside, int could_wait) {
  double runnable = x->m.rd.runnable ? x->m.rd.runnable(x->m.rd.data) : NAN;
  lw_monset_core_poll(&x->m, could_wait);
  lw_monset_core_poll_end(&x->m, now - outside, runnable);
  lw_monset_core_iteration(&x->m, now, runnable);
}

TEST_IMPL(monitors_loop_model_embedded) {
  fx_t x;
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  x.f.idle = 0; /* libuv's idle time never grows */
  iterate(&x, 10, 4.9, 1);
  iterate(&x, 20, 4.9, 1);
  ASSERT_EQ(lw_monset_core_embedded(&x.m), 0); /* no runnable reading: never */
  x.rd.main.runnable = fake_runnable;
  x.m.rd.runnable = fake_runnable;
  iterate(&x, 30, 4.9, 1); /* under the threshold */
  ASSERT_EQ(lw_monset_core_embedded(&x.m), 0);
  iterate(&x, 50, 20, 0); /* the poll could not wait (an immediate): the gap is the app's */
  iterate(&x, 70, 20, 0);
  ASSERT_EQ(lw_monset_core_embedded(&x.m), 0);
  iterate(&x, 90, 20, 1);
  ASSERT_EQ(lw_monset_core_embedded(&x.m), 0);
  iterate(&x, 110, 20, 1);
  ASSERT_EQ(lw_monset_core_embedded(&x.m), 1);
  /* From here: 100 ms of which 30 on the CPU is 30 ms busy, whatever libuv says. */
  x.f.wall += 30;
  iterate(&x, 210, 70, 1);
  ASSERT_DBL_EQ(x.m.batch[LW_MON_LOOPBLOCK].values[x.m.batch[LW_MON_LOOPBLOCK].len - 1], 30);
  /* The sample at the switch did not count the 20 ms outside libuv. */
  ASSERT_DBL_EQ(x.m.batch[LW_MON_LOOPBLOCK].values[x.m.batch[LW_MON_LOOPBLOCK].len - 2], 0);
  fx_free(&x);
  return 0;
}

/* SPEC §6: a poll that waited (libuv's idle time grew across an iteration) makes the loop Node's
 * for good: the synchronous waits that follow, however many and however long, leave gaps off
 * the CPU after polls that could have waited, and each is the app's busy time. */
TEST_IMPL(monitors_loop_model_node_for_good) {
  fx_t x;
  int i;
  fx_init(&x, NULL, 0);
  x.rd.main.runnable = fake_runnable;
  x.m.rd.runnable = fake_runnable;
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  x.f.idle = 0;
  iterate(&x, 10, 0, 1);
  x.f.idle = 5; /* the poll waited 5 ms */
  iterate(&x, 20, 0, 1);
  for (i = 0; i < 10; i++) {
    iterate(&x, 320 + i * 300, 300, 1); /* a 300 ms wait in a timer, the idle time unchanged */
    ASSERT_EQ(lw_monset_core_embedded(&x.m), 0);
    ASSERT_DBL_EQ(x.m.batch[LW_MON_LOOPBLOCK].values[x.m.batch[LW_MON_LOOPBLOCK].len - 1], 300);
  }
  fx_free(&x);
  return 0;
}

/* SPEC §6: the loop model's reading is the core's arithmetic over the drivers' readings: the
 * time since the poll ended, less the runnable time and the idle time grown since, counts once
 * (the iteration takes it); no poll end, or a reading that failed, counts nothing. Each case
 * makes two gaps of the size under test after polls that could have waited: the loop turns
 * embedded only if both reach LW_OUTSIDE_MIN_MS (5 ms). */
/* A set with loopBlock running, a runnable reading, libuv's idle time still, and its first
 * iteration at 10 after a poll that could have waited (the model's first reading). */
static void model_start(fx_t *x) {
  fx_init(x, NULL, 0);
  x->rd.main.runnable = fake_runnable;
  x->m.rd.runnable = fake_runnable;
  lw_monset_core_start(&x->m, LW_MON_LOOPBLOCK, 0);
  x->f.idle = 0;
  lw_monset_core_poll(&x->m, 1);
  lw_monset_core_iteration(&x->m, 10, NAN);
}

static int model_after_two(double gap, double runnable_grew, double idle_grew, int poll_end,
                           double runnable_at_iteration) {
  fx_t x;
  double t = 10, r = 0;
  int i, embedded;
  model_start(&x);
  for (i = 0; i < 2; i++) {
    lw_monset_core_poll(&x.m, 1);
    t += 1;
    if (poll_end) lw_monset_core_poll_end(&x.m, t, r);
    x.f.idle += idle_grew;
    r += runnable_grew;
    t += gap;
    lw_monset_core_iteration(&x.m, t, isnan(runnable_at_iteration) ? NAN : r);
  }
  embedded = lw_monset_core_embedded(&x.m);
  fx_free(&x);
  return embedded;
}

TEST_IMPL(monitors_loop_model_readings) {
  ASSERT_EQ(model_after_two(5, 0, 0, 1, 0), 1);      /* 5 ms off every CPU, twice */
  ASSERT_EQ(model_after_two(4.99, 0, 0, 1, 0), 0);   /* under the threshold */
  ASSERT_EQ(model_after_two(30, 25.5, 0, 1, 0), 0);  /* 25.5 of the 30 ms on a CPU or waiting for one */
  ASSERT_EQ(model_after_two(30, 25, 0, 1, 0), 1);    /* 5 of the 30 ms off every CPU */
  ASSERT_EQ(model_after_two(30, 0, 0, 0, 0), 0);     /* no reading at a poll's end */
  ASSERT_EQ(model_after_two(30, 0, 0, 1, NAN), 0);   /* the runnable reading failed */
  /* Idle time grown since the poll's end is the poll's wait: Node's loop, for good. */
  ASSERT_EQ(model_after_two(30, 0, 1, 1, 0), 0);
  /* A poll's end counts once: an iteration with no new one counts nothing. */
  {
    fx_t x;
    model_start(&x);
    lw_monset_core_poll(&x.m, 1);
    lw_monset_core_poll_end(&x.m, 10, 0);
    ASSERT_EQ(lw_monset_core_poll_ended(&x.m), 1);
    lw_monset_core_iteration(&x.m, 40, 0);
    ASSERT_EQ(lw_monset_core_poll_ended(&x.m), 0);
    lw_monset_core_poll(&x.m, 1);
    lw_monset_core_iteration(&x.m, 70, 0);
    ASSERT_EQ(lw_monset_core_embedded(&x.m), 0);
    fx_free(&x);
  }
  return 0;
}

/* SPEC §14, a quiet process is quiet: a poll's wait that libuv's idle time lost (a signal
 * interrupted it, and libuv counts a wait from its last entry into the kernel) is a wait all the
 * same, up to the worker's last sighting of it and, after a restart it shows, for the thread's
 * time off every CPU since (at most LW_SEEN_MAX_MS); without a restart after the sighting, the
 * callbacks' time is the iteration's, synchronous waits included. */
static double fake_runnable_of(void *d) { return ((fake_t *)d)->runnable; }

TEST_IMPL(monitors_poll_wait_lost_to_a_signal) {
  fx_t x;
  fx_init(&x, NULL, 0);
  x.rd.main.runnable = fake_runnable_of;
  x.m.rd.runnable = fake_runnable_of;
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_iteration(&x.m, 10, NAN); /* 10 ms busy since the start */
  /* 8 s of wait, seen by the worker at 7500; a signal at 8010 restarts libuv's count (its
   * 0.001 ms to the signal's own event is all it keeps); the handler runs 2 ms on the CPU. */
  lw_monset_core_poll_wait(&x.m, 10);
  ASSERT_EQ(lw_monset_core_poll_waiting(&x.m), 1);
  x.f.idle = 7490;
  fake_see_poll(&x.f, 7500);
  x.f.idle = 0.001;
  x.f.runnable += 2;
  lw_monset_core_poll_woke(&x.m, 8012);
  ASSERT_EQ(lw_monset_core_poll_waiting(&x.m), 0);
  lw_monset_core_iteration(&x.m, 8012, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 2);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.idle_lost"), 8000 - 0.001);
  /* Woken by a socket, no restart: a synchronous wait of 300 ms in its callback is the app's. */
  lw_monset_core_poll_wait(&x.m, 8012);
  x.f.idle += 888;
  fake_see_poll(&x.f, 8900);
  x.f.idle += 112;
  lw_monset_core_poll_woke(&x.m, 9312);
  lw_monset_core_iteration(&x.m, 9312, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 2, 300);
  /* A restart after the sighting, then 50 ms of work on the CPU or waiting for one: the wait
   * went on until the signal, the work is the iteration's. */
  lw_monset_core_poll_wait(&x.m, 9312);
  x.f.idle += 500;
  fake_see_poll(&x.f, 9812);
  x.f.idle -= 500; /* the segment in progress at the sighting, lost at the restart */
  x.f.runnable += 50;
  lw_monset_core_poll_woke(&x.m, 10362); /* the signal at 10312 */
  lw_monset_core_iteration(&x.m, 10362, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 2, 300, 50);
  /* No sighting in the poll (shorter than the worker's look): taken as libuv counted it. */
  lw_monset_core_poll_wait(&x.m, 10362);
  lw_monset_core_poll_woke(&x.m, 10762);
  lw_monset_core_iteration(&x.m, 10762, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 2, 300, 50, 400);
  /* After a restart, the wait after the sighting counts at most LW_SEEN_MAX_MS. */
  lw_monset_core_poll_wait(&x.m, 10762);
  x.f.idle += 1000;
  fake_see_poll(&x.f, 11762);
  x.f.idle -= 1000;
  lw_monset_core_poll_woke(&x.m, 11762 + LW_SEEN_MAX_MS + 700);
  lw_monset_core_iteration(&x.m, 11762 + LW_SEEN_MAX_MS + 700, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 2, 300, 50, 400, 700);
  /* Judged once; an iteration closes a poll not judged, whatever the worker saw. */
  lw_monset_core_poll_wait(&x.m, 13462);
  fake_see_poll(&x.f, 13500);
  lw_monset_core_iteration(&x.m, 13562, NAN);
  ASSERT_EQ(lw_monset_core_poll_waiting(&x.m), 0);
  lw_monset_core_poll_woke(&x.m, 13562);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 2, 300, 50, 400, 700, 100);
  fx_free(&x);
  return 0;
}

/* SPEC §14: a stop that ends while the loop waits ends the poll's wait with EINTR (on Linux in
 * every thread, handler or not): libuv's count restarts, and the wait before is lost. The continue
 * tells it where no sighting of the worker's does: the poll was wait up to the continue, whether
 * the main thread reads it while the poll still waits or once it woke (before the iteration's
 * sample is judged; after, only its evidence is left); libuv counts the rest, so a callback that
 * ran in the poll after the continue is the iteration's. A continue before the poll began changes
 * nothing. */
TEST_IMPL(monitors_poll_wait_restarted_by_a_continue) {
  fx_t x;
  lw_continue_t cont = {0, -INFINITY, 1};
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_iteration(&x.m, 10, NAN);
  /* Waiting from 10; stopped 500-550; libuv counts from 550 only; woken at 1000, read then. */
  lw_monset_core_poll_wait(&x.m, 10);
  x.f.idle = 450;
  cont.at = 550;
  ASSERT_EQ(lw_monset_core_look(&x.m, &cont, 1000), 0); /* the worker tells the stop */
  lw_monset_core_poll_woke(&x.m, 1000);
  lw_monset_core_iteration(&x.m, 1000, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 0);
  /* The same, the continue read once the poll woke: 400 ms of wait lost, libuv counting 597 ms
   * of the 600 after it (3 ms of an I/O callback in the poll), then a 3 ms callback. */
  lw_monset_core_poll_wait(&x.m, 1000);
  x.f.idle += 597;
  lw_monset_core_poll_woke(&x.m, 2000);
  cont.at = 1400;
  lw_monset_core_look(&x.m, &cont, 2003);
  lw_monset_core_look(&x.m, &cont, 2003); /* read twice: counted once */
  lw_monset_core_iteration(&x.m, 2003, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 0, 6);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.idle_lost"), 540 + 400);
  /* Read after its iteration was judged, and a continue from before this poll: libuv's count
   * stands. */
  lw_monset_core_look(&x.m, &cont, 2003);
  lw_monset_core_poll_wait(&x.m, 2003);
  x.f.idle += 500;
  lw_monset_core_poll_woke(&x.m, 2803);
  cont.at = 2001;
  lw_monset_core_look(&x.m, &cont, 2803);
  lw_monset_core_iteration(&x.m, 2803, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 0, 6, 300);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.idle_lost"), 540 + 400);
  /* Continued 100 ms into the wait, a request 400 ms later whose callback works 300 ms in the poll,
   * before the check hook: the 300 ms are the app's. */
  lw_monset_core_poll_wait(&x.m, 2803);
  cont.at = 2903;
  ASSERT_EQ(lw_monset_core_look(&x.m, &cont, 2903), 0);
  x.f.idle += 400;
  lw_monset_core_poll_woke(&x.m, 3603);
  lw_monset_core_iteration(&x.m, 3603, NAN);
  ASSERT_BATCH(&x.m.batch[LW_MON_LOOPBLOCK], 10, 0, 6, 300, 300);
  fx_free(&x);
  return 0;
}

/* SPEC §5: a SIGCONT at `at` after the process was last seen running at `seen` (the latest of
 * the main thread's looks and the worker's runs before it): pause evidence over [seen, at], which
 * the iteration that held the stop then finds (its sample discarded). */
TEST_IMPL(monitors_continued_is_pause_evidence) {
  fx_t x;
  lw_interval_t iv;
  const lw_name_stats_t *ns;
  lw_continue_t cont = {1500, -INFINITY, 0};
  fx_init(&x, NULL, 0);
  ns = stats_of(&x, LW_MON_LOOPBLOCK);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 1000);
  /* Nothing seen yet, or a continue not after it: nothing. */
  ASSERT_EQ(lw_monset_core_look(&x.m, &cont, 1600), 0);
  cont.worker_before = 1500;
  ASSERT_EQ(lw_monset_core_look(&x.m, &cont, 1600), 0);
  ASSERT_EQ(n_intervals(&x, 1600), 0);
  /* A worker that ran after the continue tells the stop itself: nothing here. */
  cont.at = 1907;
  cont.worker_before = 1000;
  cont.worker_after = 1;
  ASSERT_EQ(lw_monset_core_look(&x.m, NULL, 1602), 0);
  ASSERT_EQ(lw_monset_core_look(&x.m, &cont, 1908), 0);
  ASSERT_EQ(n_intervals(&x, 1908), 0);
  /* Last seen at 1602 (a look; the one at 1908 came after the continue, the worker's run at
   * 1000 before), continued at 1907: a 300 ms stop inside the iteration. */
  cont.worker_after = 0;
  ASSERT_EQ(lw_monset_core_look(&x.m, &cont, 1908), 1);
  iv = only_interval(&x, 1908);
  ASSERT_DBL_EQ(iv.start, 1602);
  ASSERT_DBL_EQ(iv.end, 1907);
  ASSERT_EQ(iv.reason, LW_REASON_PAUSE);
  /* The iteration [1600, 1908] (busy 308 ms) overlaps it: discarded as pause, nothing recorded. */
  ASSERT_EQ(lw_monset_core_iteration(&x.m, 1600, 0), 0);
  ASSERT_NE(lw_monset_core_iteration(&x.m, 1908, 0), 0);
  ASSERT_EQ(ns->recorded, 1);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(lw_conditions_discarded(&x.c, LW_REASON_PAUSE), 1);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}
