/* Blocks (src/core/blocks.c), on loopBlock's iterations driven by hand: the threshold
 * to the millisecond, each block held by its validator until late evidence could have come and
 * then judged (a discarded block is counted by reason, never reported; SPEC §5's own part of one
 * with a stop inside), the budget of reports per minute and the count carried by the next
 * report, a block that is a hang episode too (loopBlock's sample's, not the block's), and nothing
 * at all with blocks off. */
#include "fixture-monitors.h"

#define HOLD 2000.0 /* the conditions' default hold */

/* A loop turn at `now` after `busy` ms of work, then the conditions run at `judge`. */
static void turn_judged(fx_t *x, double now, double busy, double judge) {
  loop_turn(x, now, busy);
  lw_conditions_run(&x->c, judge);
}

/* Blocks on (threshold 100 ms, `per_min` reports a minute), loopBlock started at 0. */
static void blocks_fx(fx_t *x, int per_min) {
  lw_monset_core_config_t cfg;
  fx_config(&cfg);
  cfg.blocks = 1;
  cfg.block_threshold_ms = 100;
  cfg.block_reports_per_min = per_min;
  fx_init(x, &cfg, 0);
  lw_monset_core_start(&x->m, LW_MON_LOOPBLOCK, 0);
  x->t = 0;
}

/* The BLOCK events queued so far, into `out` (at most `cap`); returns their number. */
static size_t blocks_of(fx_t *x, const lw_event_t **out, size_t cap) {
  size_t n, i, k = 0;
  const lw_event_t *ev = lw_conditions_events(&x->c, &n);
  for (i = 0; i < n; i++)
    if (ev[i].type == LW_EVENT_BLOCK && k < cap) out[k++] = &ev[i];
  return k;
}

TEST_IMPL(blocks_threshold_exact) {
  fx_t x;
  const lw_event_t *b[4];
  blocks_fx(&x, 10);
  turn_judged(&x, 1000, 99.75, 1000 + HOLD); /* just under: nothing */
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  loop_turn(&x, 4000, 100); /* at the threshold: a block over [3900, 4000], held */
  ASSERT_EQ(x.c.held_count, 1);
  lw_conditions_run(&x.c, 4000 + HOLD - 0.25);
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  lw_conditions_run(&x.c, 4000 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT_DBL_EQ(b[0]->start, 3900);
  ASSERT_DBL_EQ(b[0]->end, 4000);
  ASSERT_DBL_EQ(b[0]->duration_ms, 100);
  ASSERT_DBL_EQ(b[0]->at, 4000 + HOLD);
  ASSERT_EQ(b[0]->reported, 1);
  ASSERT_EQ(b[0]->unreported, 0);
  ASSERT_EQ(b[0]->is_hang, 0);
  turn_judged(&x, 7000, 437.25, 7000 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 2);
  ASSERT_DBL_EQ(b[1]->start, 6562.75);
  ASSERT_DBL_EQ(b[1]->duration_ms, 437.25);
  ASSERT_EQ(x.m.blocks.count, 2);
  ASSERT_EQ(x.m.blocks.reported, 2);
  ASSERT_EQ(x.m.blocks.discarded, 0);
  /* loopBlock recorded each iteration at once, as before; the block validator its own two. */
  ASSERT_EQ(stats_of(&x, LW_MON_LOOPBLOCK)->recorded, 3);
  ASSERT_EQ(x.c.names[x.c.validators[x.m.block_vid]->name_id]->recorded, 2);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  /* Blocks off (the default): the same iterations are loopBlock's samples, and no block. */
  fx_init(&x, NULL, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  turn_judged(&x, 2000, 600, 2000 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  ASSERT_EQ(x.m.blocks.count, 0);
  ASSERT_EQ(x.m.block_vid, UINT32_MAX);
  ASSERT_EQ(stats_of(&x, LW_MON_LOOPBLOCK)->recorded, 1);
  fx_free(&x);
  return 0;
}

/* Evidence discards a block whether known at its end or told during its hold: counted by
 * reason, no report; a stop inside a block leaves the app's own part, a block if it is at the
 * threshold (SPEC §5); a block that the evidence does not touch is the app's. */
TEST_IMPL(blocks_evidence_discards) {
  fx_t x;
  const lw_event_t *b[4];
  blocks_fx(&x, 10);
  /* Known at the end: [1800, 3000] with a pause over [1500, 2950] leaves 50 ms: the pause's. */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 1500, 2950, LW_REASON_PAUSE, 1000), LW_OK);
  loop_turn(&x, 3000, 1200);
  ASSERT_EQ(x.c.held_count, 0);
  ASSERT_EQ(x.m.blocks.discarded, 1);
  ASSERT_EQ(lw_blocks_discarded_for(&x.m.blocks, LW_REASON_PAUSE), 1);
  /* Told during the hold: a debugger over [3100, 3250] of the block [3050, 3300]. */
  loop_turn(&x, 3300, 250);
  ASSERT_EQ(x.c.held_count, 1);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 3100, 3250, LW_REASON_DEBUGGER, 4000), LW_OK);
  lw_conditions_run(&x.c, 3300 + HOLD);
  ASSERT_EQ(lw_blocks_discarded_for(&x.m.blocks, LW_REASON_DEBUGGER), 1);
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  /* A short iteration the evidence discards is no block either way (loopBlock's discard). */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 5350, 5360, LW_REASON_HIDDEN, 5400), LW_OK);
  turn_judged(&x, 5400, 90, 5400 + HOLD);
  ASSERT_EQ(x.m.blocks.discarded, 2);
  ASSERT_EQ(lw_blocks_discarded_for(&x.m.blocks, LW_REASON_HIDDEN), 0);
  /* A stop of 1000 ms inside a 1300 ms iteration [10000, 11300]: 300 ms of the app's own are
   * within the stop's uncertainty (LW_OWN_NOISE_MS): the stop's block. Inside a 2500 ms one
   * [12000, 14500], the app's own 1500 ms are a block, over the iteration's span. */
  loop_turn(&x, 11300, 1300);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 10100, 11100, LW_REASON_PAUSE, 11400), LW_OK);
  lw_conditions_run(&x.c, 11300 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  ASSERT_EQ(lw_blocks_discarded_for(&x.m.blocks, LW_REASON_PAUSE), 2);
  loop_turn(&x, 14500, 2500);
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 12500, 13500, LW_REASON_PAUSE, 14600), LW_OK);
  lw_conditions_run(&x.c, 14500 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT_DBL_EQ(b[0]->duration_ms, 1500);
  ASSERT_DBL_EQ(b[0]->start, 12000);
  ASSERT_DBL_EQ(b[0]->end, 14500);
  lw_conditions_events_clear(&x.c);
  turn_judged(&x, 20000, 300, 20000 + HOLD); /* [19700, 20000]: nothing explains it */
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT_DBL_EQ(b[0]->start, 19700);
  ASSERT_EQ(x.m.blocks.count, 2);
  ASSERT_EQ(x.m.blocks.discarded, 3);
  ASSERT_CONSERVATION(&x.c);
  fx_free(&x);
  return 0;
}

/* Two reports a minute: the third and later blocks of that minute are counted, not reported; the
 * first report of the next minute (a minute from the first report) carries their number. Each
 * block is judged HOLD after its end. */
TEST_IMPL(blocks_budget_per_minute) {
  fx_t x;
  const lw_event_t *b[16];
  size_t n;
  double t;
  blocks_fx(&x, 2);
  for (t = 1000; t <= 5000; t += 1000) loop_turn(&x, t, 200); /* 5 blocks, judged 3000..7000 */
  lw_conditions_run(&x.c, 7000);
  n = blocks_of(&x, b, 16);
  ASSERT_EQ(n, 5);
  ASSERT_DBL_EQ(b[0]->at, 3000);
  ASSERT_EQ(b[0]->reported, 1);
  ASSERT_EQ(b[1]->reported, 1);
  ASSERT_EQ(b[2]->reported, 0);
  ASSERT_EQ(b[2]->unreported, 1);
  ASSERT_EQ(b[4]->reported, 0);
  ASSERT_EQ(b[4]->unreported, 3);
  lw_conditions_events_clear(&x.c);
  turn_judged(&x, 60999.5, 200, 62999.5); /* the minute began at 3000: still used up */
  ASSERT_EQ(blocks_of(&x, b, 16), 1);
  ASSERT_EQ(b[0]->reported, 0);
  ASSERT_EQ(b[0]->unreported, 4);
  lw_conditions_events_clear(&x.c);
  turn_judged(&x, 61000, 200, 63000); /* judged a minute after 3000: a new one */
  ASSERT_EQ(blocks_of(&x, b, 16), 1);
  ASSERT_EQ(b[0]->reported, 1);
  ASSERT_EQ(b[0]->unreported, 4);
  ASSERT_EQ(x.m.blocks.count, 7);
  ASSERT_EQ(x.m.blocks.reported, 3);
  ASSERT_EQ(x.m.blocks.unreported, 4);
  ASSERT_EQ(x.m.blocks.pending, 0);
  fx_free(&x);
  /* No reports at all (0 a minute): every block counted and carried, none reported. */
  blocks_fx(&x, 0);
  turn_judged(&x, 1000, 200, 3000);
  turn_judged(&x, 90000, 200, 92000);
  n = blocks_of(&x, b, 16);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(b[1]->reported, 0);
  ASSERT_EQ(b[1]->unreported, 2);
  ASSERT_EQ(x.m.blocks.count, 2);
  fx_free(&x);
  return 0;
}

/* A block as long as the stall threshold is held like loopBlock's sample and judged when it
 * resolves: one block, flagged as a hang, and the hang episode of the same sample; with stop
 * evidence that arrives during the hold, its own part (SPEC §5) is the block. */
TEST_IMPL(blocks_that_are_hangs) {
  fx_t x;
  const lw_event_t *b[4];
  size_t n, i;
  const lw_event_t *ev;
  int stalls = 0;
  blocks_fx(&x, 10);
  loop_turn(&x, 7000, 6000); /* [1000, 7000]: held */
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  lw_conditions_run(&x.c, 9000);
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT_DBL_EQ(b[0]->start, 1000);
  ASSERT_DBL_EQ(b[0]->end, 7000);
  ASSERT_DBL_EQ(b[0]->duration_ms, 6000);
  ASSERT_DBL_EQ(b[0]->at, 9000);
  ASSERT_EQ(b[0]->is_hang, 1);
  lw_conditions_run(&x.c, 20000);
  ev = lw_conditions_events(&x.c, &n);
  for (i = 0; i < n; i++)
    if (ev[i].type == LW_EVENT_STALL && ev[i].kind == LW_KIND_HANG) {
      stalls++;
      /* loopBlock's episode: the block validator adds no sample to it. */
      ASSERT_EQ(ev[i].nmonitors, 1);
      ASSERT_EQ(ev[i].monitors[0], x.c.validators[x.m.vid[LW_MON_LOOPBLOCK]]->name_id);
      ASSERT_EQ(ev[i].is_block, 1); /* and the episode says it is a block too */
    }
  ASSERT_EQ(stalls, 1);
  lw_conditions_events_clear(&x.c);
  /* A pause of 7 s inside a 14 s iteration, told during the hold: the 7 s of the app's own are
   * the block (and a hang: loopBlock's own part makes the episode), the pause no part of it. */
  loop_turn(&x, 34000, 14000); /* [20000, 34000] */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 25000, 32000, LW_REASON_PAUSE, 35000), LW_OK);
  lw_conditions_run(&x.c, 36000);
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT_DBL_EQ(b[0]->duration_ms, 7000);
  ASSERT_DBL_EQ(b[0]->start, 20000);
  ASSERT_EQ(b[0]->is_hang, 1);
  /* A held one that the evidence all but wholly explains (100 ms left) is a discarded block. */
  lw_conditions_events_clear(&x.c);
  loop_turn(&x, 45500, 5500); /* [40000, 45500] */
  ASSERT_EQ(lw_tracker_add(&x.c.tracker, 39900, 45400, LW_REASON_SUSPEND, 46000), LW_OK);
  lw_conditions_run(&x.c, 48000);
  ASSERT_EQ(blocks_of(&x, b, 4), 0);
  ASSERT_EQ(lw_blocks_discarded_for(&x.m.blocks, LW_REASON_SUSPEND), 1);
  ASSERT_EQ(x.m.blocks.count, 2);
  fx_free(&x);
  return 0;
}

/* With blocks off, the same iteration is a hang episode and no block, and says so. */
TEST_IMPL(blocks_off_hang_is_no_block) {
  fx_t x;
  lw_monset_core_config_t cfg;
  size_t n, i;
  const lw_event_t *ev;
  int stalls = 0;
  fx_config(&cfg);
  fx_init(&x, &cfg, 0);
  lw_monset_core_start(&x.m, LW_MON_LOOPBLOCK, 0);
  loop_turn(&x, 7000, 6000);
  lw_conditions_run(&x.c, 20000);
  ev = lw_conditions_events(&x.c, &n);
  for (i = 0; i < n; i++) {
    ASSERT(ev[i].type != LW_EVENT_BLOCK);
    if (ev[i].type == LW_EVENT_STALL && ev[i].kind == LW_KIND_HANG) {
      stalls++;
      ASSERT_EQ(ev[i].is_block, 0);
    }
  }
  ASSERT_EQ(stalls, 1);
  fx_free(&x);
  return 0;
}

/* blocks.stacks: the main thread's times as the worker reads them (its cause), set by the test. */
static lw_thread_times_t watch_main;
static double watch_avail;
static int watch_waiting;
static double fake_avail_of(void *d) {
  (void)d;
  return watch_avail;
}
static int fake_waiting_of(void *d) {
  (void)d;
  return watch_waiting;
}
static int watch_sched(void *d, lw_thread_times_t *out) {
  (void)d;
  *out = watch_main;
  return 0;
}

/* Blocks watched (threshold 100 ms), loopBlock and the liveness check started at 0, the loop
 * busy with progress at every check up to 1000. */
static void watch_fx(fx_t *x, int watch) {
  lw_monset_core_config_t cfg;
  double t;
  fx_config(&cfg);
  cfg.blocks = 1;
  cfg.block_threshold_ms = 100;
  cfg.block_watch = watch;
  fx_init(x, &cfg, 0);
  x->rd.worker.main_sched = watch_sched;
  memset(&watch_main, 0, sizeof(watch_main));
  lw_monset_core_start(&x->m, LW_MON_LOOPBLOCK, 0);
  lw_monset_core_start(&x->m, LW_MON_LIVENESS, 0);
  x->t = 0;
  for (t = 100; t <= 1000; t += 100) {
    loop_turn(x, t, 1);
    ASSERT_EQ(wrun(x, NULL, t, t), 0);
  }
}

/* The worker's messages of a run, received by the monitors at once. */
static size_t wrun_recv(fx_t *x, msg_log_t *log, double now, double progress) {
  size_t from = log->n, n = wrun(x, log, now, progress);
  lw_monset_core_receive(&x->m, &log->msg[from], n, now);
  return n;
}

/* A watched block is flagged exactly at its threshold while it runs (the stack thread's cue), ends
 * at the next progress with its cause read over it, and the block judged later takes that cause
 * and the detection time that names its stack. */
TEST_IMPL(blocks_watched_flagged_at_threshold) {
  fx_t x;
  msg_log_t log;
  const lw_event_t *b[4];
  double t;
  log.n = 0;
  watch_fx(&x, 1);
  /* A 99.75 ms iteration from 1000: the check due at 1100 sees its progress, flags nothing. */
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1100);
  loop_turn(&x, 1099.75, 99.75);
  wrun_recv(&x, &log, 1100, 1099.75);
  ASSERT_EQ(log.n, 0);
  /* A 350 ms iteration from 1100.25 (250 ms of it on the CPU, 100 ms waiting for one): the
   * check due exactly at its threshold (1200.25) flags it, with where it began. */
  loop_turn(&x, 1100.25, 0.25);
  wrun_recv(&x, &log, 1200, 1100.25);
  ASSERT_EQ(log.n, 0);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1200.25);
  wrun_recv(&x, &log, 1200.25, 1100.25);
  ASSERT_EQ(log.n, 1);
  ASSERT_EQ(log.msg[0].type, LW_MSG_BLOCK_START);
  ASSERT_DBL_EQ(log.msg[0].hang_start, 1100.25);
  ASSERT_DBL_EQ(log.msg[0].detected_at, 1200.25);
  /* Flagged once: later checks without progress add nothing. */
  for (t = 1300.25; t < 1450; t += 100) {
    watch_main.cpu_ms += 75;
    watch_main.runq_ms += 25;
    wrun_recv(&x, &log, t, 1100.25);
  }
  ASSERT_EQ(log.n, 1);
  watch_main.cpu_ms += 100; /* 250 on the CPU since the flag, 50 waiting for one */
  watch_main.runq_ms += 0;
  loop_turn(&x, 1450.25, 350);
  wrun_recv(&x, &log, 1500.25, 1450.25);
  ASSERT_EQ(log.n, 2);
  ASSERT_EQ(log.msg[1].type, LW_MSG_BLOCK_END);
  ASSERT_DBL_EQ(log.msg[1].hang_start, 1100.25);
  ASSERT_DBL_EQ(log.msg[1].hang_end, 1450.25);
  ASSERT_EQ(log.msg[1].cause_known, 1);
  ASSERT_DBL_EQ(log.msg[1].cause_start, 1200.25);
  ASSERT_DBL_EQ(log.msg[1].cause_delta.cpu_ms, 250);
  ASSERT_EQ(x.m.blocks.watched, 1);
  /* Judged at the hold's end: the cause over the span the worker read (1200.25 to 1450.25). */
  lw_conditions_run(&x.c, 1450.25 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT_DBL_EQ(b[0]->start, 1100.25);
  ASSERT_DBL_EQ(b[0]->duration_ms, 350);
  ASSERT_DBL_EQ(b[0]->hang_detected_at, 1200.25);
  ASSERT_EQ(b[0]->cause.known, 1);
  ASSERT_DBL_EQ(b[0]->cause.span_ms, 250);
  ASSERT_DBL_EQ(b[0]->cause.cpu_ms, 250);
  ASSERT_EQ(b[0]->cause.dominant, LW_CAUSE_BUSY);
  /* A block the worker did not watch (watching off) has no cause and no detection. */
  fx_free(&x);
  watch_fx(&x, 0);
  loop_turn(&x, 1000.25, 0.25);
  for (t = 1100; t < 1400; t += 100) ASSERT_EQ(wrun(&x, NULL, t, 1000.25), 0);
  loop_turn(&x, 1400.25, 400);
  lw_conditions_run(&x.c, 1400.25 + HOLD);
  ASSERT_EQ(blocks_of(&x, b, 4), 1);
  ASSERT(isnan(b[0]->hang_detected_at));
  ASSERT_EQ(b[0]->cause.known, 0);
  fx_free(&x);
  return 0;
}

/* Watching blocks, a rest of the worker (the loop waiting) lasts no longer than the block
 * threshold, so a block that begins in it is flagged at its threshold; a block that grows into a
 * hang is flagged as both, and both end at the same progress. */
TEST_IMPL(blocks_watched_rest_and_hang) {
  fx_t x;
  msg_log_t log;
  double t, avail;
  log.n = 0;
  watch_fx(&x, 1);
  x.rd.worker.main_avail = fake_avail_of;
  x.rd.worker.main_waiting = fake_waiting_of;
  watch_avail = 1050; /* the loop waits from 1050 (its progress stamp then) */
  watch_waiting = 1;
  wrun_recv(&x, &log, 1100, 1050);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1200); /* not 2000: the threshold */
  watch_avail = 1150;
  wrun_recv(&x, &log, 1200, 1050);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1300);
  /* The loop leaves its wait at 1230 and runs for 6 s. */
  watch_avail = 1230;
  watch_waiting = 0;
  wrun_recv(&x, &log, 1300, 1050);
  ASSERT_EQ(log.n, 0);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 1330);
  wrun_recv(&x, &log, 1330, 1050);
  ASSERT_EQ(log.n, 1);
  ASSERT_EQ(log.msg[0].type, LW_MSG_BLOCK_START);
  ASSERT_DBL_EQ(log.msg[0].hang_start, 1230);
  for (t = 1430; t < 6230; t += 100) wrun_recv(&x, &log, t, 1050);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 6230);
  wrun_recv(&x, &log, 6230, 1050);
  ASSERT_EQ(log.n, 3);
  ASSERT_EQ(log.msg[1].type, LW_MSG_PING);
  ASSERT_EQ(log.msg[2].type, LW_MSG_HANG_START);
  ASSERT_DBL_EQ(log.msg[2].hang_start, 1230);
  avail = 7230;
  watch_avail = avail;
  wrun_recv(&x, &log, 7300, 7230);
  ASSERT_EQ(log.n, 5);
  ASSERT_EQ(log.msg[3].type, LW_MSG_BLOCK_END);
  ASSERT_EQ(log.msg[4].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log.msg[3].hang_end, 7230);
  ASSERT_DBL_EQ(log.msg[4].hang_end, 7230);
  ASSERT_EQ(log.msg[3].cause_known, 1);
  ASSERT_EQ(log.msg[4].cause_known, 1);
  fx_free(&x);
  return 0;
}
