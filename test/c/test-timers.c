/* The timer monitors (SPEC §6: src/core/driftlag.c, macrotasklag.c, idleavailability.c,
 * timerthrottle.c), their coalescing, and both lateness timers asleep while the loop waits
 * (asleep.c). */
#include "fixture-monitors.h"

/* driftLag -------------------------------------------------------------------------------- */

TEST_IMPL(monitors_drift_lateness_and_window) {
  fx_t x;
  uint32_t probe;
  const lw_name_stats_t *ns;
  const lw__held_t *h;
  fx_init(&x, NULL, 0);
  probe = probe_reason(&x);
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 1000);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1020);
  /* Not due 0.25 ms before. */
  lw_monset_core_run(&x.m, 1019.75);
  ASSERT_EQ(x.c.submitted, 0);
  /* On time: lateness 0, window 20. */
  lw_monset_core_run(&x.m, 1020);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1040);
  /* Late: lateness = 1100 - (1020 + 20) = 60, window [1020, 1100]; next due = now + interval.
   * A probe touching the window's start does not overlap it. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1010, 1020, probe, 1020), LW_OK);
  lw_monset_core_run(&x.m, 1100);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 60);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1120);
  ns = stats_of(&x, LW_MON_DRIFT);
  ASSERT_STR_EQ(ns->name, "driftLag");
  ASSERT_EQ(ns->submitted, 2);
  ASSERT_EQ(ns->recorded, 2);
  ASSERT_DBL_EQ(ns->recorded_hist.max, 60);
  ASSERT_DBL_EQ(ns->recorded_hist.sum, 60);
  /* Late by 80, window [1100, 1200]: a probe ending 0.25 ms past 1100 overlaps it. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1090, 1100.25, probe, 1100), LW_OK);
  lw_monset_core_run(&x.m, 1200);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, probe), 1);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 2);
  /* A long late firing is held with its exact window [previous firing, now]. */
  lw_monset_core_run(&x.m, 8000);
  ASSERT_EQ(x.c.held_count, 1);
  h = last_held(&x);
  ASSERT_DBL_EQ(h->value, 8000 - 1220);
  ASSERT_DBL_EQ(h->window_start, 1200);
  ASSERT_DBL_EQ(h->window_end, 8000);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 8020);
  lw_conditions_run(&x.c, 10000);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 60, 6780);
  ASSERT_EQ(ns->recorded, 3);
  ASSERT_EQ(ns->submitted, 4);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* driftLag asleep while the loop waits: when it may sleep, and what a wake-up fires.
 * driftLag, loopBlock and the worker's liveness half (no timer of the main thread), so the armed
 * timer's due is the flush's (set here). */
TEST_IMPL(monitors_drift_sleep_rules) {
  fx_t x;
  lw_monset_core_config_t cfg;
  uint32_t pause;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 0);
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 0); /* its checks (100 ms) bound a stop's start */
  /* Not before a firing shows an idle, punctual window. */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 0), 0);
  loop_turn(&x, 20, 0); /* on time, idle */
  /* Not while overdue (the loop was busy past the due: a real, late firing). */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 40), 0);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 30), 1);
  ASSERT_EQ((x.m.asleep >> LW_MON_DRIFT) & 1u, 1);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000); /* the flush's, not driftLag's 40 */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 30), 0);        /* already asleep */
  /* A poll that ended at 130 for a callback, now 135: 40 .. 120 on time, 140 later. */
  ASSERT_EQ(lw_monset_core_awake(&x.m, 135, 130), 1);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 0, 0, 0, 0, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 140);
  ASSERT_EQ(lw_monset_core_awake(&x.m, 136, 136), 0); /* awake already */
  /* Busy through 160 (40 of the 40 ms since 120): a late firing at 160, no sleep after it. */
  x.f.idle += 120 - 20 - 0;
  x.t = 120;
  loop_turn(&x, 160, 40);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 0, 0, 0, 0, 0, 0, 20);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 161), 0);
  loop_turn(&x, 180, 0); /* on time again */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 181), 1);
  /* The wake-up held past the armed due (1000) by LW_STOP_MIN_MS or more: the timer was held
   * from the start of the wait: its due 200 fires at 1150, 950 late, window [180, 1150]. */
  ASSERT_EQ(lw_monset_core_awake(&x.m, 1150, 1150), 1);
  ASSERT_DBL_EQ(x.m.batch[LW_MON_DRIFT].values[x.m.batch[LW_MON_DRIFT].len - 1], 950);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 9);
  /* A stop the evidence shows, [1290, 1400] (the worker's view, one check late): the timer due
   * 1190 fired on time, 1210 .. (within a check of the stop) when the process ran again. */
  x.f.idle += 1150 - x.t;
  x.t = 1150;
  loop_turn(&x, 1170, 0);
  lw_monset_core_flushed(&x.m, 1170); /* the flush due at 1000 ran: next at 2170 */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 1171), 1);
  ASSERT_EQ(lw_tracker_reason(&x.c.tracker, "pause", 5, &pause), LW_OK);
  ASSERT_EQ(pause, LW_REASON_PAUSE);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1290, 1400, LW_REASON_PAUSE, 1450), LW_OK);
  x.f.idle += 1450 - 1170; /* the loop waited (libuv counts a stop in the poll as idle) */
  x.t = 1450;
  ASSERT_EQ(lw_monset_core_awake(&x.m, 1450, 1450), 1);
  {
    const lw_batch_t *b = &x.m.batch[LW_MON_DRIFT];
    /* 1190 on time; 1210 fires at 1400 (190 late: discarded as pause);
     * 1420 and 1440 on time. */
    ASSERT_DBL_EQ(b->values[b->len - 3], 0);
    ASSERT_DBL_EQ(b->values[b->len - 2], 0);
    ASSERT_DBL_EQ(b->values[b->len - 1], 0);
    ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
  }
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1460);
  /* An embedded loop never waits in its poll: driftLag keeps its timer. */
  STATE(&x.m, LW_MON_LOOPBLOCK, int, "model.embedded") = 1;
  ASSERT_EQ(lw_monset_core_idle(&x.m, 1451), 0);
  STATE(&x.m, LW_MON_LOOPBLOCK, int, "model.embedded") = 0;
  /* Nor while a lifecycle reader is set: it is asked at driftLag's firings (SPEC §3). */
  lw_conditions_set_reader(&x.c, 1);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 1451), 0);
  ASSERT_EQ(lw_monset_core_asleep(&x.m), 0);
  lw_conditions_set_reader(&x.c, 0);
  /* Stopping driftLag while it sleeps fires what was due (nothing is lost). */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 1451), 1);
  {
    size_t before = x.m.batch[LW_MON_DRIFT].len;
    lw_monset_core_stop(&x.m, LW_MON_DRIFT, 1500);
    ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, before + 3); /* 1460, 1480, 1500, on time */
  }
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* macrotaskLag sleeps while the loop waits (lw_monset_core_idle/awake): a task queued while the
 * loop waits runs at once, a sample of 0. */
TEST_IMPL(monitors_macro_sleep_rules) {
  fx_t x;
  lw_monset_core_config_t cfg;
  const lw_batch_t *b;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  b = &x.m.batch[LW_MON_MACROTASK];
  lw_monset_core_start(&x.m, LW_MON_MACROTASK, 0); /* due 250 */
  lw_monset_core_start(&x.m, LW_MON_LIVENESS, 0);  /* its checks (100 ms) bound a stop's start */
  /* Not while its interval is due. */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 250), 0);
  ASSERT_EQ((x.m.asleep >> LW_MON_MACROTASK) & 1u, 0);
  /* Not while its task waits for the next turn (it runs in this one). */
  lw_monset_core_run(&x.m, 250);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "posted"), 250);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 250), 0);
  lw_monset_core_run(&x.m, 251);
  ASSERT_BATCH(b, 1);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "due"), 501);
  /* Waiting: asleep, the armed due is the flush's (1000). */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 260), 1);
  ASSERT_EQ((x.m.asleep >> LW_MON_MACROTASK) & 1u, 1);
  ASSERT_EQ(lw_monset_core_asleep(&x.m), 1);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000);
  /* The loop woke at 1000 on time: 501 and 751 each queued a task that ran at once. */
  ASSERT_EQ(lw_monset_core_awake(&x.m, 1000, 1000), 1);
  ASSERT_BATCH(b, 1, 0, 0);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "due"), 1001);
  ASSERT_EQ(lw_monset_core_asleep(&x.m), 0);
  lw_monset_core_flushed(&x.m, 1000); /* next flush 2000 */
  /* A stop the evidence shows, [1150, 1400]: 1001 on time, 1251 when the process ran again. */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 1000), 1);
  {
    uint32_t pause;
    ASSERT_EQ(lw_tracker_reason(&x.c.tracker, "pause", 5, &pause), LW_OK);
    ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1150, 1400, pause, 1450), LW_OK);
  }
  ASSERT_EQ(lw_monset_core_awake(&x.m, 1450, 1450), 1);
  ASSERT_EQ(b->len, 2); /* (the flush at 1000 emptied the batch) */
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "due"), 1650); /* from 1400 */
  /* A wake-up held past the armed due (2000) by LW_STOP_MIN_MS or more: the timer was held too;
   * its due has passed and it fires in the next run, its task queued then. */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 1450), 1);
  ASSERT_EQ(lw_monset_core_awake(&x.m, 2300, 2300), 1);
  ASSERT_EQ(b->len, 2);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "due"), 1650);
  lw_monset_core_run(&x.m, 2300);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "posted"), 2300);
  lw_monset_core_run(&x.m, 2301);
  ASSERT_EQ(b->len, 3);
  lw_monset_core_flushed(&x.m, 2301);
  /* An embedded loop never waits in its poll: the timer stays armed. */
  STATE(&x.m, LW_MON_LOOPBLOCK, int, "model.embedded") = 1;
  ASSERT_EQ(lw_monset_core_idle(&x.m, 2302), 0);
  STATE(&x.m, LW_MON_LOOPBLOCK, int, "model.embedded") = 0;
  /* Stopping macrotaskLag while it sleeps fires what was due (nothing is lost). */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 2302), 1);
  lw_monset_core_stop(&x.m, LW_MON_MACROTASK, 3100); /* 2551, 2801, 3051 */
  ASSERT_BATCH(b, 0, 0, 0);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* ... but not on a busy loop, whose every iteration may wait (a poll for I/O already there). */
TEST_IMPL(monitors_macro_no_sleep_when_busy) {
  fx_t x;
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_start(&x.m, LW_MON_MACROTASK, 0); /* due 250 */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 10), 0);     /* no task has run yet */
  loop_turn(&x, 250, 200);                      /* busy 200 of 250: queues the task */
  loop_turn(&x, 251, 1);                        /* the task: 1 ms late */
  ASSERT_EQ(STATE(&x.m, LW_MON_MACROTASK, int, "may_sleep"), 0);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 252), 0);
  loop_turn(&x, 501, 10);  /* queued at 501 */
  loop_turn(&x, 501.5, 0); /* ran 0.5 late over a window busy 10 of 250.5 */
  ASSERT_EQ(STATE(&x.m, LW_MON_MACROTASK, int, "may_sleep"), 1);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 502), 1);
  ASSERT_EQ((x.m.asleep >> LW_MON_MACROTASK) & 1u, 1);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* Real time: the timers that measure nothing of their own lateness (macrotaskLag's interval,
 * idleAvailability, clockDrift, the flush) join a run up to coalesce_ms early; driftLag, whose
 * lateness is its sample, never does. On the simulation (coalesce_ms 0) each fires at its due. */
/* Real time, an idle loop with the worker's heartbeat running: the timers that measure nothing of
 * their own lateness are armed share_ms past their due time, to share the heartbeat's wake-up;
 * driftLag awake keeps its own due; a wake-up is held only LW_STOP_MIN_MS past the armed time. */
TEST_IMPL(monitors_share_heartbeat_rules) {
  fx_t x;
  lw_monset_core_config_t cfg;
  size_t i;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 0);
  lw_monset_core_start(&x.m, LW_MON_IDLE, 0);
  lw_monset_core_set_share(&x.m, 150);
  x.m.running[LW_MON_WORKER] = 1; /* its heartbeat, without a thread */
  /* driftLag awake: nothing waits, whatever the share. */
  ASSERT_EQ(lw_monset_core_sharing(&x.m), 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due_armed(&x.m), 20);
  loop_turn(&x, 20, 0);
  ASSERT_EQ(lw_monset_core_idle(&x.m, 30), 1);
  /* Asleep: the flush and idleAvailability (1000) are armed at 1150; their due is unchanged. */
  ASSERT_EQ(lw_monset_core_sharing(&x.m), 1);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000);
  ASSERT_DBL_EQ(lw_monset_core_next_due_armed(&x.m), 1150);
  ASSERT_DBL_EQ(lw_monset_core_next_due_late(&x.m, -150), 850);
  /* Without the heartbeat they keep their time. */
  x.m.running[LW_MON_WORKER] = 0;
  ASSERT_EQ(lw_monset_core_sharing(&x.m), 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due_armed(&x.m), 1000);
  x.m.running[LW_MON_WORKER] = 1;
  /* A heartbeat's wake-up at 1140, 140 past the soft due but before the armed 1150: not held.
   * driftLag's due times 40 .. 1140 fired on time. */
  ASSERT_EQ(lw_monset_core_awake(&x.m, 1140, 1140), 1);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 57);
  for (i = 0; i < x.m.batch[LW_MON_DRIFT].len; i++) ASSERT_DBL_EQ(x.m.batch[LW_MON_DRIFT].values[i], 0);
  ASSERT_EQ(lw_monset_core_sharing(&x.m), 0); /* awake */
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* Real time with a driver whose heartbeats need no wake-up while the loop waits (share LW_NEVER):
 * the timers that measure nothing of their own lateness wait for the next wake-up, whatever it
 * is; then clockDrift reads, and each of idleAvailability's periods that ended in the wait is a
 * sample at its own end, exactly as if its timer had fired. */
TEST_IMPL(monitors_sleeping_timers_wait_for_a_wake_up) {
  fx_t x;
  lw_monset_core_config_t cfg;
  const lw_batch_t *b;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  lw_monset_core_keep_batches(&x.m, 1);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 0);
  lw_monset_core_start(&x.m, LW_MON_IDLE, 0);
  lw_monset_core_start(&x.m, LW_MON_CLOCKDRIFT, 0);
  lw_monset_core_set_share(&x.m, LW_NEVER);
  x.m.running[LW_MON_WORKER] = 1; /* its heartbeat, without a thread */
  x.f.wall = WALL0 + 20;
  loop_turn(&x, 20, 0); /* driftLag on time, over an idle window */
  ASSERT_EQ(lw_monset_core_idle(&x.m, 30), 1);
  ASSERT_EQ(lw_monset_core_sharing(&x.m), 1);
  /* Nothing is armed; the due times are unchanged. */
  ASSERT_DBL_EQ(lw_monset_core_next_due_armed(&x.m), LW_NEVER);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000);
  /* The loop waits from 30 to 3500 (the 10 ms from 20 to 30 were busy). */
  x.f.idle += 3470;
  x.f.wall = WALL0 + 3500;
  ASSERT_EQ(lw_monset_core_awake(&x.m, 3500, 3500), 1);
  b = lw_monset_core_batch(&x.m, LW_MON_IDLE);
  ASSERT_EQ(b->len, 3);
  ASSERT_DBL_EQ(b->values[0], 0.99); /* idle 990 of 0..1000 */
  ASSERT_DBL_EQ(b->values[1], 1);
  ASSERT_DBL_EQ(b->values[2], 1);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_IDLE, double, "prev_t"), 3000);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_IDLE, double, "due"), 4000);
  /* clockDrift read once, at the wake-up: no jump (the wall clock moved with the monotonic). */
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "prev_mono"), 3500);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "due"), 4500);
  ASSERT_EQ(x.c.jumps[LW_JUMP_STEP] + x.c.jumps[LW_JUMP_SUSPEND], 0);
  /* driftLag's due times 40 .. 3500 fired on time; the flush is due (the next run flushes). */
  ASSERT_EQ(lw_monset_core_batch(&x.m, LW_MON_DRIFT)->len, 175);
  ASSERT_EQ(lw_monset_core_sharing(&x.m), 0);
  ASSERT_EQ(lw_monset_core_run(&x.m, 3500), 1);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* A heartbeat the worker sent while the loop waited (quiet) is a sample of 0 at its sending,
 * however long the loop waited on before it took it; any other, the time until it was taken. */
TEST_IMPL(monitors_quiet_heartbeat_sample) {
  fx_t x;
  lw_msg_t msg[2];
  const lw_name_stats_t *st;
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_WORKER, 0);
  memset(msg, 0, sizeof(msg));
  msg[0].type = msg[1].type = LW_MSG_HEARTBEAT;
  msg[0].ev_reason = msg[1].ev_reason = LW_REASON_NONE;
  msg[0].sent_at = 1000;
  msg[0].quiet = 1;
  msg[1].sent_at = 29000;
  lw_monset_core_receive(&x.m, msg, 2, 30000);
  st = stats_of(&x, LW_MON_WORKER);
  ASSERT_EQ(st->recorded, 2);
  ASSERT_DBL_EQ(st->recorded_hist.min, 0);
  ASSERT_DBL_EQ(st->recorded_hist.max, 1000);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_coalesce_rules) {
  fx_t x;
  lw_monset_core_config_t cfg;
  fx_config(&cfg);
  cfg.flush_interval_ms = 1000;
  fx_init(&x, &cfg, 0);
  lw_monset_core_start(&x.m, LW_MON_MACROTASK, 0); /* due 250 */
  lw_monset_core_start(&x.m, LW_MON_IDLE, 3);      /* due 1003 */
  lw_monset_core_start(&x.m, LW_MON_CLOCKDRIFT, 6); /* due 1006 */
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 8);      /* due 28 */
  /* Without coalescing: a run at 1000 fires only what is due by 1000. */
  STATE(&x.m, LW_MON_DRIFT, double, "due") = 2000; /* out of the way */
  STATE(&x.m, LW_MON_MACROTASK, double, "due") = 1000;
  ASSERT_EQ(lw_monset_core_run(&x.m, 1000), 1); /* the flush (due 1000) */
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "posted"), 1000);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_IDLE, double, "due"), 1003);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "due"), 1006);
  lw_monset_core_flushed(&x.m, 1000);
  lw_monset_core_run(&x.m, 1001); /* the task ran: next interval 1251 */
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "due"), 1251);
  /* Coalescing by 10 ms: a run at 1003 for idleAvailability takes clockDrift (1006) along:
   * both read at 1003, both next due at 2003; driftLag due at 1010 waits for its time. */
  x.m.coalesce_ms = 10;
  STATE(&x.m, LW_MON_DRIFT, double, "due") = 1010;
  ASSERT_EQ(lw_monset_core_run(&x.m, 1003), 0); /* the flush is due at 2000 */
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_IDLE, double, "due"), 2003);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "due"), 2003);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_DRIFT, double, "due"), 1010);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 0);
  /* A run at 1245 for anything takes macrotaskLag's interval (1251) along: its task is queued
   * now and runs at the next turn. And the flush (2000), idleAvailability and clockDrift (2003)
   * join a run at 1995. */
  STATE(&x.m, LW_MON_DRIFT, double, "due") = 1245;
  lw_monset_core_run(&x.m, 1245);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_MACROTASK, double, "posted"), 1245);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 1);
  STATE(&x.m, LW_MON_DRIFT, double, "due") = 1995;
  ASSERT_EQ(lw_monset_core_run(&x.m, 1995), 1);
  lw_monset_core_flushed(&x.m, 1995);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_IDLE, double, "due"), 2995);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "due"), 2995);
  /* The evidence step reads clockDrift early too: not at 2984 (+ 10 < 2995), at 2986. */
  lw_monset_core_clock_evidence(&x.m, 2984, 0);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "due"), 2995);
  lw_monset_core_clock_evidence(&x.m, 2986, 0);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_CLOCKDRIFT, double, "due"), 3986);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* macrotaskLag ---------------------------------------------------------------------------- */

TEST_IMPL(monitors_macrotask_next_run) {
  fx_t x;
  uint32_t probe;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  probe = probe_reason(&x);
  ns = stats_of(&x, LW_MON_MACROTASK);
  lw_monset_core_start(&x.m, LW_MON_MACROTASK, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 250);
  lw_monset_core_run(&x.m, 249.75);
  ASSERT_EQ(x.c.submitted, 0);
  /* The tick queues a task due at once; it does not run in the same run. */
  lw_monset_core_run(&x.m, 250);
  ASSERT_EQ(ns->submitted, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 250);
  /* It runs at the next run: its delay is the sample (value and window). */
  lw_monset_core_run(&x.m, 265);
  ASSERT_BATCH(&x.m.batch[LW_MON_MACROTASK], 15);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 265 + 250);
  /* A late tick at 600 queues its task at 600; window [600, 607]: a probe touching it at 600
   * does not overlap. */
  lw_monset_core_run(&x.m, 600);
  ASSERT_EQ(ns->submitted, 1);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 600);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 590, 600, probe, 600), LW_OK);
  lw_monset_core_run(&x.m, 607);
  ASSERT_BATCH(&x.m.batch[LW_MON_MACROTASK], 15, 7);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 857);
  /* Window [857, 900]: a probe reaching 0.25 ms into it discards the sample. */
  lw_monset_core_run(&x.m, 857);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 850, 857.25, probe, 857), LW_OK);
  lw_monset_core_run(&x.m, 900);
  ASSERT_EQ(ns->submitted, 3);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, probe), 1);
  ASSERT_EQ(x.m.batch[LW_MON_MACROTASK].len, 2);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1150);
  /* A long delay is held with window [queued, ran]. */
  lw_monset_core_run(&x.m, 1150);
  lw_monset_core_run(&x.m, 7150);
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_DBL_EQ(last_held(&x)->value, 6000);
  ASSERT_DBL_EQ(last_held(&x)->window_start, 1150);
  ASSERT_DBL_EQ(last_held(&x)->window_end, 7150);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* idleAvailability ------------------------------------------------------------------------ */

TEST_IMPL(monitors_idle_share) {
  fx_t x;
  uint32_t probe;
  const lw_name_stats_t *ns;
  fx_init(&x, NULL, 0);
  probe = probe_reason(&x);
  ns = stats_of(&x, LW_MON_IDLE);
  ASSERT_STR_EQ(ns->name, "idleAvailability");
  /* A ratio is never a stall. */
  ASSERT_DBL_EQ(x.c.validators[x.m.vid[LW_MON_IDLE]]->stall_threshold_ms, INFINITY);
  x.f.idle = 40;
  lw_monset_core_start(&x.m, LW_MON_IDLE, 0);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 1000);
  x.f.idle = 40 + 250;
  lw_monset_core_run(&x.m, 1000);
  ASSERT_BATCH(&x.m.batch[LW_MON_IDLE], 0.25);
  ASSERT_DBL_EQ(lw_monset_core_next_due(&x.m), 2000);
  /* More idle than time: clamped to 1, recorded at once (never held). */
  x.f.idle += 1500;
  lw_monset_core_run(&x.m, 2000);
  ASSERT_EQ(x.c.held_count, 0);
  lw_monset_core_run(&x.m, 3000);
  ASSERT_BATCH(&x.m.batch[LW_MON_IDLE], 0.25, 1, 0);
  /* Window = the period [3000, 4000]: a probe touching it does not overlap... */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 2900, 3000, probe, 3000), LW_OK);
  x.f.idle += 500;
  lw_monset_core_run(&x.m, 4000);
  ASSERT_BATCH(&x.m.batch[LW_MON_IDLE], 0.25, 1, 0, 0.5);
  /* ...one reaching 0.25 ms into [4000, 5000] does. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 3900, 4000.25, probe, 4000), LW_OK);
  x.f.idle += 1000;
  lw_monset_core_run(&x.m, 5000);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, probe), 1);
  /* Share 1 over a pause: discarded, but no stall. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 5000, 6000, LW_REASON_PAUSE, 5000), LW_OK);
  x.f.idle += 1000;
  lw_monset_core_run(&x.m, 6000);
  ASSERT_EQ(discarded_of(&x.c, LW_REASON_PAUSE), 1);
  ASSERT_EQ(x.c.nepisodes, 0);
  ASSERT_EQ(stalls_total(&x.c), 0);
  ASSERT_EQ(x.c.held_count, 0);
  ASSERT_EQ(ns->recorded, 4);
  ASSERT_EQ(ns->submitted, 6);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* timerThrottle --------------------------------------------------------------------------- */

static void throttle_fx(fx_t *x) {
  fx_init(x, NULL, 0);
  x->t = 0;
  lw_monset_core_start(&x->m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_start(&x->m, LW_MON_DRIFT, 0);
  lw_monset_core_start(&x->m, LW_MON_THROTTLE, 0);
}


TEST_IMPL(monitors_throttle_opens_and_closes) {
  fx_t x;
  lw_interval_t iv;
  const lw_name_stats_t *ns;
  throttle_fx(&x);
  ns = stats_of(&x, LW_MON_DRIFT);
  /* An idle loop whose 20 ms timer fires only every second: late by 980 three times. */
  loop_turn(&x, 1000, 0);
  loop_turn(&x, 2000, 0);
  ASSERT_EQ(n_intervals(&x, 2000), 0);
  loop_turn(&x, 3000, 0);
  iv = only_interval(&x, 3000);
  ASSERT_EQ(iv.reason, LW_REASON_THROTTLED);
  ASSERT_DBL_EQ(iv.start, 0); /* the start of the first late window */
  ASSERT_DBL_EQ(iv.end, INFINITY);
  /* The three late samples stay recorded. */
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 980, 980, 980);
  ASSERT_EQ(ns->recorded, 3);
  /* The first punctual firing: its window overlaps the open interval (discarded), then the
   * interval closes at it. */
  loop_turn(&x, 3020, 0);
  iv = only_interval(&x, 3020);
  ASSERT_DBL_EQ(iv.start, 0);
  ASSERT_DBL_EQ(iv.end, 3020);
  ASSERT_EQ(ns->discarded, 1);
  ASSERT_EQ(ns->discarded_by_reason[LW_REASON_THROTTLED], 1);
  /* loopBlock's zero-length sample at 3020 lies in the open interval too. */
  ASSERT_EQ(stats_of(&x, LW_MON_LOOPBLOCK)->discarded, 1);
  ASSERT_EQ(discarded_of(&x.c, LW_REASON_THROTTLED), 2);
  loop_turn(&x, 3040, 0);
  ASSERT_BATCH(&x.m.batch[LW_MON_DRIFT], 980, 980, 980, 0);
  ASSERT_EQ(STATE(&x.m, LW_MON_THROTTLE, uint64_t, "seq"), 0);
  ASSERT_EQ(stalls_total(&x.c), 0);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_boundaries) {
  fx_t x;
  lw_interval_t iv;
  throttle_fx(&x);
  /* Late by exactly 500 (due 20, 540, 1060) counts. */
  loop_turn(&x, 520, 0);
  loop_turn(&x, 1040, 0);
  loop_turn(&x, 1560, 0);
  iv = only_interval(&x, 1560);
  ASSERT_DBL_EQ(iv.start, 0);
  ASSERT_DBL_EQ(iv.end, INFINITY);
  /* Still late by 500: stays open. Late by 499.75: that closes it. */
  loop_turn(&x, 2080, 0);
  ASSERT_DBL_EQ(only_interval(&x, 2080).end, INFINITY);
  loop_turn(&x, 2599.75, 0);
  ASSERT_DBL_EQ(only_interval(&x, 2599.75).end, 2599.75);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_busy_loop) {
  fx_t x;
  throttle_fx(&x);
  /* Late by 980 with the loop busy for exactly half of it: a blocked loop, not a throttle. */
  loop_turn(&x, 1000, 490);
  loop_turn(&x, 2000, 490);
  loop_turn(&x, 3000, 490);
  loop_turn(&x, 4000, 490);
  ASSERT_EQ(n_intervals(&x, 4000), 0);
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 4);
  /* Busy 489.75 is idle enough: the count starts at the window [4000, 5000]. */
  loop_turn(&x, 5000, 489.75);
  loop_turn(&x, 6000, 0);
  ASSERT_EQ(n_intervals(&x, 6000), 0);
  loop_turn(&x, 7000, 0);
  ASSERT_DBL_EQ(only_interval(&x, 7000).start, 4000);
  fx_free(&x);
  return 0;
}

/* A callback blocks the loop after its prepare hook: the timers fire late before the next
 * iteration has measured that busy time; the part of the turn in progress counts. */
TEST_IMPL(monitors_throttle_busy_in_turn) {
  fx_t x;
  double t;
  throttle_fx(&x);
  for (t = 1000; t <= 4000; t += 1000) {
    lw_monset_core_run(&x.m, t); /* late by 980, busy 1000 since the last firing */
    lw_monset_core_iteration(&x.m, t, 0);
  }
  ASSERT_EQ(x.m.batch[LW_MON_DRIFT].len, 4);
  ASSERT_DBL_EQ(STATE(&x.m, LW_MON_LOOPBLOCK, double, "loop.busy_total"), 4000);
  ASSERT_EQ(n_intervals(&x, 4000), 0);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_needs_loopblock) {
  fx_t x;
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_DRIFT, 0);
  lw_monset_core_start(&x.m, LW_MON_THROTTLE, 0);
  /* loopBlock is not running: nothing says the loop was idle. */
  loop_turn(&x, 1000, 0);
  loop_turn(&x, 2000, 0);
  loop_turn(&x, 3000, 0);
  loop_turn(&x, 4000, 0);
  ASSERT_EQ(n_intervals(&x, 4000), 0);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_reset_by_punctual) {
  fx_t x;
  throttle_fx(&x);
  loop_turn(&x, 1000, 0);
  loop_turn(&x, 2000, 0);
  loop_turn(&x, 2020, 0); /* punctual: the count restarts */
  loop_turn(&x, 3020, 0);
  loop_turn(&x, 4020, 0);
  ASSERT_EQ(n_intervals(&x, 4020), 0);
  loop_turn(&x, 5020, 0);
  ASSERT_DBL_EQ(only_interval(&x, 5020).start, 2020);
  fx_free(&x);
  return 0;
}

TEST_IMPL(monitors_throttle_closed_by_stop) {
  int which;
  static const lw_mon_t stopped[] = {LW_MON_DRIFT, LW_MON_THROTTLE};
  for (which = 0; which < 2; which++) {
    fx_t x;
    lw_interval_t iv;
    TEST_CONTEXT("stopping %s", lw_mon_name(stopped[which]));
    throttle_fx(&x);
    loop_turn(&x, 1000, 0);
    loop_turn(&x, 2000, 0);
    loop_turn(&x, 3000, 0);
    ASSERT_DBL_EQ(only_interval(&x, 3000).end, INFINITY);
    lw_monset_core_stop(&x.m, stopped[which], 3500.5);
    iv = only_interval(&x, 3500.5);
    ASSERT_DBL_EQ(iv.start, 0);
    ASSERT_DBL_EQ(iv.end, 3500.5);
    ASSERT_EQ(STATE(&x.m, LW_MON_THROTTLE, uint64_t, "seq"), 0);
    fx_free(&x);
  }
  return 0;
}
