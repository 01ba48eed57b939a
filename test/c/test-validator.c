/* The sample validator (SPEC §4) and the lifecycle intervals (SPEC §3). */
#include "core/conditions.h"
#include "helpers.h"
#include "test.h"

static void init_default(lw_conditions_t *c) {
  lw_conditions_config_t cfg;
  lw_conditions_config_default(&cfg);
  ASSERT_DBL_EQ(cfg.stall_threshold_ms, 5000);
  ASSERT_DBL_EQ(cfg.hold_ms, 2000);
  ASSERT_DBL_EQ(cfg.episode_delay_ms, 2000);
  ASSERT_DBL_EQ(cfg.retention_ms, 120000);
  ASSERT_EQ(lw_conditions_init(c, &cfg), LW_OK);
}

static uint32_t make_validator(lw_conditions_t *c, const char *name, double threshold) {
  uint32_t id;
  ASSERT_EQ(lw_validator_create(c, name, strlen(name), threshold, &id, NULL), LW_OK);
  return id;
}

typedef struct {
  double values[8];
  double windows[8];
  int n;
  int discarded;       /* discards told to the sink */
  uint32_t last_reason; /* the last one's reason */
  double last_end;      /* the last judged value's window end */
} sink_t;

/* Records what a C monitor's sink hears: recorded values, and discards with their reason. */
static void sink_cb(void *data, double value, double window_ms, double end, uint32_t discarded_for,
                    double now) {
  sink_t *s = data;
  (void)now;
  s->last_end = end;
  if (discarded_for != LW_REASON_NONE) {
    s->discarded++;
    s->last_reason = discarded_for;
    return;
  }
  if (s->n < 8) {
    s->values[s->n] = value;
    s->windows[s->n] = window_ms;
  }
  s->n++;
}

TEST_IMPL(validator_small_recorded_at_once) {
  lw_conditions_t c;
  sink_t sink = {{0}, {0}, 0, 0, 0, 0};
  uint64_t detail = 99;
  uint32_t v;
  init_default(&c);
  v = make_validator(&c, "driftLag", 5000);
  lw_validator_set_sink(&c, v, sink_cb, &sink);
  ASSERT_EQ(lw_validator_submit(&c, v, 12.5, 20, 1000, &detail), LW_VERDICT_RECORDED);
  /* record(value) happened before submit returned. */
  ASSERT_EQ(sink.n, 1);
  ASSERT_DBL_EQ(sink.values[0], 12.5);
  ASSERT_DBL_EQ(sink.windows[0], 20);
  ASSERT_EQ(c.submitted, 1);
  ASSERT_EQ(c.recorded, 1);
  ASSERT_EQ(c.held_count, 0);
  ASSERT_EQ(discarded_total(&c), 0);
  ASSERT_EQ(c.names[0]->submitted, 1);
  ASSERT_EQ(c.names[0]->recorded, 1);
  ASSERT_EQ(c.names[0]->recorded_hist.count, 1);
  ASSERT_DBL_EQ(c.names[0]->recorded_hist.max, 12.5);
  /* Just under the threshold is still recorded at once; zero value and window too. */
  ASSERT_EQ(lw_validator_submit(&c, v, 4999.75, 4999.75, 6000, &detail), LW_VERDICT_RECORDED);
  ASSERT_EQ(lw_validator_submit(&c, v, 0, 0, 6000, &detail), LW_VERDICT_RECORDED);
  ASSERT_EQ(sink.n, 3);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), LW_NEVER);
  ASSERT_EQ(count_events(&c, LW_EVENT_RESOLVED), 0);
  ASSERT_CONSERVATION(&c);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(validator_hidden_discarded) {
  lw_conditions_t c;
  lw_state_t from;
  uint64_t detail = 0;
  uint32_t v;
  double now = 0;
  init_default(&c);
  v = make_validator(&c, "driftLag", 5000);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_HIDDEN, 500, &from), 1);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_ACTIVE, 700, &from), 1);
  ASSERT_EQ(lw_validator_submit(&c, v, 30, 600, 1000, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, LW_REASON_HIDDEN);
  ASSERT_EQ(discarded_of(&c, LW_REASON_HIDDEN), 1);
  ASSERT_EQ(c.names[0]->discarded, 1);
  ASSERT_EQ(c.recorded, 0);
  /* A long sample over a hidden interval is discarded and is no stall. */
  ASSERT_EQ(lw_validator_submit(&c, v, 6000, 600, 1000, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, LW_REASON_HIDDEN);
  ASSERT_EQ(c.nepisodes, 0);
  drive_all(&c, &now);
  ASSERT_EQ(stalls_total(&c), 0);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 0);
  /* While hidden (open interval), a window ending now is discarded. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_HIDDEN, 2000, &from), 1);
  ASSERT_EQ(lw_validator_submit(&c, v, 1, 1, 2000, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, LW_REASON_HIDDEN);
  ASSERT_EQ(discarded_of(&c, LW_REASON_HIDDEN), 3);
  ASSERT_CONSERVATION(&c);
  lw_conditions_free(&c);
  return 0;
}

/* Evidence of `reason` inside a hidden interval that starts earlier: the evidence wins. */
static void priority_over_hidden(uint32_t reason, lw_kind_t kind) {
  lw_conditions_t c;
  uint64_t detail = 0;
  uint32_t v;
  double now = 10000;
  const lw_event_t *ev;
  init_default(&c);
  v = make_validator(&c, "loopBlock", 5000);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 100, 9000, LW_REASON_HIDDEN, now), LW_OK);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 5000, 6000, reason, now), LW_OK);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 4000, 9500, LW_REASON_THROTTLED, now), LW_OK);
  ASSERT_EQ(lw_validator_submit(&c, v, 50, 8000, now, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, reason);
  ASSERT_EQ(discarded_of(&c, reason), 1);
  ASSERT_EQ(discarded_of(&c, LW_REASON_HIDDEN), 0);
  ASSERT_EQ(c.nepisodes, 0); /* short: no stall */
  /* Long: discarded at once and a stall sample of that kind. */
  ASSERT_EQ(lw_validator_submit(&c, v, 7000, 8000, now, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, reason);
  ASSERT_EQ(c.held_count, 0);
  drive_all(&c, &now);
  ASSERT_EQ(c.stalls[kind], 1);
  ASSERT_EQ(stalls_total(&c), 1);
  ev = find_event(&c, LW_EVENT_STALL);
  ASSERT_NOT_NULL(ev);
  ASSERT_EQ(ev->kind, kind);
  ASSERT_DBL_EQ(ev->duration_ms, 7000);
  ASSERT_CONSERVATION(&c);
  lw_conditions_free(&c);
}

TEST_IMPL(validator_suspend_over_hidden) {
  priority_over_hidden(LW_REASON_SUSPEND, LW_KIND_SUSPEND);
  return 0;
}

TEST_IMPL(validator_pause_over_hidden) {
  priority_over_hidden(LW_REASON_PAUSE, LW_KIND_PAUSE);
  return 0;
}

TEST_IMPL(validator_suspend_over_pause) {
  lw_conditions_t c;
  uint64_t detail = 0;
  uint32_t v;
  init_default(&c);
  v = make_validator(&c, "loopBlock", 5000);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 100, 900, LW_REASON_PAUSE, 1000), LW_OK);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 800, 850, LW_REASON_SUSPEND, 1000), LW_OK);
  ASSERT_EQ(lw_validator_submit(&c, v, 5, 1000, 1000, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, LW_REASON_SUSPEND);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(validator_window_touching_end_recorded) {
  lw_conditions_t c;
  uint64_t detail = 0;
  uint32_t v;
  double now;
  init_default(&c);
  v = make_validator(&c, "driftLag", 5000);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 100, 200, LW_REASON_SUSPEND, 300), LW_OK);
  /* Window [200, 300] touches the end: recorded. */
  ASSERT_EQ(lw_validator_submit(&c, v, 100, 100, 300, &detail), LW_VERDICT_RECORDED);
  /* Window [199.5, 300] overlaps it. */
  ASSERT_EQ(lw_validator_submit(&c, v, 100, 100.5, 300, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, LW_REASON_SUSPEND);
  /* A long sample touching the end is held, then recorded as a hang. */
  ASSERT_EQ(lw_validator_submit(&c, v, 6000, 100, 300, &detail), LW_VERDICT_HELD);
  now = 300;
  drive_all(&c, &now);
  ASSERT_EQ(c.recorded, 2);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  ASSERT_CONSERVATION(&c);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(validator_hold_resolves_exactly) {
  lw_conditions_t c;
  sink_t sink = {{0}, {0}, 0, 0, 0, 0};
  uint64_t token = 0;
  uint32_t v;
  const lw_event_t *ev;
  size_t n;
  init_default(&c);
  v = make_validator(&c, "loopBlock", 5000);
  lw_validator_set_sink(&c, v, sink_cb, &sink);
  ASSERT_EQ(lw_validator_submit(&c, v, 6000, 6000, 10000, &token), LW_VERDICT_HELD);
  ASSERT_NE(token, 0);
  ASSERT_EQ(c.held_count, 1);
  ASSERT_EQ(c.names[0]->held, 1);
  ASSERT_EQ(sink.n, 0);
  ASSERT_CONSERVATION(&c);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), 12000);
  /* 1 ms before: nothing. */
  lw_conditions_run(&c, 11999);
  lw_conditions_events(&c, &n);
  ASSERT_EQ(n, 0);
  ASSERT_EQ(c.held_count, 1);
  ASSERT_EQ(sink.n, 0);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), 12000);
  /* At the due time: resolved, recorded. */
  lw_conditions_run(&c, 12000);
  ASSERT_EQ(count_events(&c, LW_EVENT_RESOLVED), 1);
  ev = find_event(&c, LW_EVENT_RESOLVED);
  ASSERT_DBL_EQ(ev->at, 12000);
  ASSERT_UINT64_EQ(ev->token, token);
  ASSERT_EQ(ev->validator, v);
  ASSERT_EQ(ev->verdict, LW_VERDICT_RECORDED);
  ASSERT_DBL_EQ(ev->value, 6000);
  ASSERT_EQ(c.held_count, 0);
  ASSERT_EQ(c.recorded, 1);
  ASSERT_EQ(c.names[0]->recorded, 1);
  ASSERT_EQ(sink.n, 1);
  ASSERT_DBL_EQ(sink.values[0], 6000);
  ASSERT_DBL_EQ(sink.windows[0], 6000); /* a held sample keeps its window */
  ASSERT_CONSERVATION(&c);
  /* And it is a hang stall sample: one episode, reported episode_delay_ms later. */
  ASSERT_EQ(c.nepisodes, 1);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), 14000);
  lw_conditions_events_clear(&c);
  lw_conditions_run(&c, 14000);
  ev = find_event(&c, LW_EVENT_STALL);
  ASSERT_NOT_NULL(ev);
  ASSERT_EQ(ev->kind, LW_KIND_HANG);
  ASSERT_DBL_EQ(ev->duration_ms, 6000);
  ASSERT_DBL_EQ(ev->start, 4000);
  ASSERT_DBL_EQ(ev->end, 10000);
  ASSERT_EQ(ev->samples, 1);
  ASSERT_EQ(ev->nmonitors, 1);
  ASSERT_EQ(ev->monitors[0], c.validators[v]->name_id);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), LW_NEVER);
  lw_conditions_free(&c);
  return 0;
}

/* Outcome of a long sample submitted at 10000 with window [4000, 10000] and evidence over
 * [5000, 7000], the evidence added either 500 ms before the submit or 1500 ms after it. */
typedef struct {
  uint64_t submitted, recorded, held, cancelled, discarded[LW_REASON_BUILTIN_COUNT];
  uint64_t stalls[LW_KIND_COUNT];
  size_t stall_events;
  lw_kind_t kind;
  int verdict;
} outcome_t;

static void run_evidence(uint32_t reason, int after, outcome_t *o) {
  lw_conditions_t c;
  uint64_t detail;
  uint32_t v, r;
  double now = 9500;
  size_t n, i;
  const lw_event_t *ev;
  init_default(&c);
  v = make_validator(&c, "worker", 5000);
  memset(o, 0, sizeof(*o));
  o->kind = LW_KIND_COUNT;
  if (!after) ASSERT_EQ(lw_tracker_add(&c.tracker, 5000, 7000, reason, now), LW_OK);
  drive_to(&c, &now, 10000);
  o->verdict = lw_validator_submit(&c, v, 6000, 6000, now, &detail);
  if (after) {
    ASSERT_EQ(o->verdict, LW_VERDICT_HELD);
    drive_to(&c, &now, 11500);
    ASSERT_EQ(lw_tracker_add(&c.tracker, 5000, 7000, reason, now), LW_OK);
  } else {
    ASSERT_EQ(o->verdict, LW_VERDICT_DISCARDED);
    ASSERT_EQ(detail, reason);
  }
  drive_all(&c, &now);
  ASSERT_CONSERVATION(&c);
  o->submitted = c.submitted;
  o->recorded = c.recorded;
  o->held = c.held_count;
  o->cancelled = c.cancelled;
  for (r = 0; r < LW_REASON_BUILTIN_COUNT; r++) o->discarded[r] = discarded_of(&c, r);
  memcpy(o->stalls, c.stalls, sizeof(o->stalls));
  ev = lw_conditions_events(&c, &n);
  for (i = 0; i < n; i++) {
    if (ev[i].type == LW_EVENT_RESOLVED) {
      ASSERT_EQ(ev[i].verdict, LW_VERDICT_DISCARDED);
      ASSERT_EQ(ev[i].reason, reason);
    }
    if (ev[i].type != LW_EVENT_STALL) continue;
    o->stall_events++;
    o->kind = ev[i].kind;
    ASSERT_DBL_EQ(ev[i].duration_ms, 6000);
  }
  lw_conditions_free(&c);
}

static void compare_before_after(uint32_t reason) {
  outcome_t before, after;
  int r, k;
  run_evidence(reason, 0, &before);
  run_evidence(reason, 1, &after);
  ASSERT_EQ(before.submitted, 1);
  ASSERT_EQ(after.submitted, before.submitted);
  ASSERT_EQ(after.recorded, before.recorded);
  ASSERT_EQ(after.held, before.held);
  ASSERT_EQ(after.cancelled, before.cancelled);
  for (r = 0; r < LW_REASON_BUILTIN_COUNT; r++) ASSERT_EQ(after.discarded[r], before.discarded[r]);
  for (k = 0; k < LW_KIND_COUNT; k++) ASSERT_EQ(after.stalls[k], before.stalls[k]);
  ASSERT_EQ(after.stall_events, before.stall_events);
  ASSERT_EQ(after.kind, before.kind);
  ASSERT_EQ(before.recorded, 0);
  ASSERT_EQ(before.discarded[reason], 1);
  if (reason == LW_REASON_SUSPEND || reason == LW_REASON_PAUSE) {
    lw_kind_t kind = reason == LW_REASON_SUSPEND ? LW_KIND_SUSPEND : LW_KIND_PAUSE;
    ASSERT_EQ(before.stall_events, 1);
    ASSERT_EQ(before.kind, kind);
    ASSERT_EQ(before.stalls[kind], 1);
    ASSERT_EQ(before.stalls[LW_KIND_HANG], 0);
  } else {
    ASSERT_EQ(before.stall_events, 0);
    ASSERT_EQ(before.stalls[LW_KIND_HANG] + before.stalls[LW_KIND_SUSPEND] +
                  before.stalls[LW_KIND_PAUSE],
              0);
  }
}

TEST_IMPL(validator_suspend_evidence_before_equals_after) {
  compare_before_after(LW_REASON_SUSPEND);
  return 0;
}

TEST_IMPL(validator_pause_evidence_before_equals_after) {
  compare_before_after(LW_REASON_PAUSE);
  return 0;
}

TEST_IMPL(validator_hidden_evidence_after_no_stall) {
  compare_before_after(LW_REASON_HIDDEN);
  return 0;
}

/* Evidence that arrives as an open interval during the hold, closed later. */
TEST_IMPL(validator_evidence_open_during_hold) {
  lw_conditions_t c;
  uint64_t detail, seq;
  uint32_t v;
  double now = 10000;
  const lw_event_t *ev;
  init_default(&c);
  v = make_validator(&c, "worker", 5000);
  ASSERT_EQ(lw_validator_submit(&c, v, 6000, 6000, now, &detail), LW_VERDICT_HELD);
  /* Not overlapping: the window ends at 10000, the interval starts at 11000. */
  drive_to(&c, &now, 11000);
  ASSERT_EQ(lw_tracker_open(&c.tracker, LW_REASON_SUSPEND, now, 1, &seq), LW_OK);
  drive_all(&c, &now);
  ev = find_event(&c, LW_EVENT_RESOLVED);
  ASSERT_NOT_NULL(ev);
  ASSERT_EQ(ev->verdict, LW_VERDICT_RECORDED);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(validator_infinite_threshold_never_holds) {
  lw_conditions_t c;
  lw_conditions_config_t cfg;
  uint64_t detail;
  uint32_t v;
  init_default(&c);
  v = make_validator(&c, "idleAvailability", INFINITY);
  ASSERT_EQ(lw_validator_submit(&c, v, 1e12, 1000, 2000, &detail), LW_VERDICT_RECORDED);
  ASSERT_EQ(lw_validator_submit(&c, v, 0.5, 1000, 2000, &detail), LW_VERDICT_RECORDED);
  ASSERT_EQ(c.held_count, 0);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), LW_NEVER);
  /* Over suspend evidence: discarded, no stall. */
  ASSERT_EQ(lw_tracker_add(&c.tracker, 2500, 2600, LW_REASON_SUSPEND, 3000), LW_OK);
  ASSERT_EQ(lw_validator_submit(&c, v, 1e12, 1000, 3000, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(c.nepisodes, 0);
  ASSERT_CONSERVATION(&c);
  lw_conditions_free(&c);
  /* The same through the conditions' default. */
  lw_conditions_config_default(&cfg);
  cfg.stall_threshold_ms = INFINITY;
  ASSERT_EQ(lw_conditions_config_valid(&cfg), 1);
  return 0;
}

TEST_IMPL(validator_invalid_input) {
  static const double bad[] = {NAN, -1, INFINITY, -INFINITY, -0.25};
  lw_conditions_t c;
  uint64_t detail;
  uint32_t v, id;
  size_t i;
  init_default(&c);
  v = make_validator(&c, "driftLag", 5000);
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    TEST_CONTEXT("bad value %g", bad[i]);
    ASSERT_EQ(lw_validator_submit(&c, v, bad[i], 10, 1000, &detail), LW_EINVAL);
    ASSERT_EQ(lw_validator_submit(&c, v, 10, bad[i], 1000, &detail), LW_EINVAL);
    ASSERT_EQ(lw_validator_submit(&c, v, 6000, bad[i], 1000, &detail), LW_EINVAL);
    ASSERT_EQ(lw_validator_submit(&c, v, bad[i], bad[i], 1000, &detail), LW_EINVAL);
  }
  TEST_CONTEXT("%s", "");
  ASSERT_EQ(lw_validator_submit(&c, 77, 10, 10, 1000, &detail), LW_ENOENT);
  ASSERT_EQ(c.submitted, 0);
  ASSERT_EQ(c.names[0]->submitted, 0);
  ASSERT_EQ(c.held_count, 0);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), LW_NEVER);
  /* Bad validator options. */
  ASSERT_EQ(lw_validator_create(&c, "x", 1, 0, &id, NULL), LW_EINVAL);
  ASSERT_EQ(lw_validator_create(&c, "x", 1, -5, &id, NULL), LW_EINVAL);
  ASSERT_EQ(lw_validator_create(&c, "x", 1, NAN, &id, NULL), LW_EINVAL);
  ASSERT_EQ(lw_validator_create(&c, "", 0, 5000, &id, NULL), LW_EINVAL);
  ASSERT_EQ(c.nvalidators, 1);
  ASSERT_CONSERVATION(&c);
  lw_conditions_free(&c);
  return 0;
}

/* A validator given no threshold takes the conditions' (SPEC §4), whatever it is. */
TEST_IMPL(validator_own_threshold_is_the_conditions) {
  lw_conditions_t c;
  lw_conditions_config_t cfg;
  uint32_t id;
  lw_err_t err;
  lw_conditions_config_default(&cfg);
  cfg.stall_threshold_ms = 1234;
  ASSERT_EQ(lw_conditions_init(&c, &cfg), LW_OK);
  ASSERT_EQ(lw_validator_create_own(&c, "own", 3, &id, &err), LW_OK);
  ASSERT_DBL_EQ(lw_validator_get(&c, id)->stall_threshold_ms, 1234);
  ASSERT_EQ(lw_validator_create_own(&c, "", 0, &id, &err), LW_EINVAL);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(validator_dispose_cancels_held) {
  lw_conditions_t c;
  sink_t sink = {{0}, {0}, 0, 0, 0, 0};
  uint64_t t1, t2, t3, detail;
  uint32_t v, w;
  double now = 10000;
  size_t n, i, cancelled = 0;
  const lw_event_t *ev;
  init_default(&c);
  v = make_validator(&c, "a", 5000);
  w = make_validator(&c, "b", 5000);
  lw_validator_set_sink(&c, v, sink_cb, &sink);
  ASSERT_EQ(lw_validator_submit(&c, v, 6000, 6000, now, &t1), LW_VERDICT_HELD);
  ASSERT_EQ(lw_validator_submit(&c, w, 7000, 7000, now, &t3), LW_VERDICT_HELD);
  drive_to(&c, &now, 10500);
  ASSERT_EQ(lw_validator_submit(&c, v, 5000, 5000, now, &t2), LW_VERDICT_HELD);
  ASSERT_EQ(lw_validator_dispose(&c, v), LW_OK);
  ev = lw_conditions_events(&c, &n);
  for (i = 0; i < n; i++) {
    ASSERT_EQ(ev[i].type, LW_EVENT_CANCELLED);
    ASSERT_EQ(ev[i].validator, v);
    ASSERT_TRUE(ev[i].token == t1 || ev[i].token == t2);
    cancelled++;
  }
  ASSERT_EQ(cancelled, 2);
  ASSERT_EQ(c.cancelled, 2);
  ASSERT_EQ(c.names[0]->cancelled, 2);
  ASSERT_EQ(c.names[0]->held, 0);
  ASSERT_EQ(c.held_count, 1);
  ASSERT_CONSERVATION(&c);
  lw_conditions_events_clear(&c);
  /* Later submits do nothing. */
  ASSERT_EQ(lw_validator_submit(&c, v, 1, 1, now, &detail), LW_VERDICT_DISPOSED);
  ASSERT_EQ(lw_validator_submit(&c, v, 6000, 6000, now, &detail), LW_VERDICT_DISPOSED);
  ASSERT_EQ(c.submitted, 3);
  ASSERT_EQ(lw_validator_dispose(&c, v), LW_OK);
  ASSERT_EQ(c.cancelled, 2);
  /* The other validator's hold still resolves; the cancelled ones never do. */
  drive_all(&c, &now);
  ev = lw_conditions_events(&c, &n);
  for (i = 0; i < n; i++) {
    ASSERT_NE(ev[i].type, LW_EVENT_CANCELLED);
    if (ev[i].type == LW_EVENT_RESOLVED) {
      ASSERT_UINT64_EQ(ev[i].token, t3);
      ASSERT_EQ(ev[i].validator, w);
    }
  }
  ASSERT_EQ(count_events(&c, LW_EVENT_RESOLVED), 1);
  ASSERT_EQ(sink.n, 0);
  ASSERT_EQ(c.recorded, 1);
  ASSERT_EQ(c.cancelled, 2);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  ASSERT_CONSERVATION(&c);
  ASSERT_EQ(lw_validator_dispose(&c, 99), LW_ENOENT);
  lw_conditions_free(&c);
  return 0;
}

/* SPEC §3: the hidden and frozen intervals. */

static size_t intervals(lw_conditions_t *c, double now, lw_interval_t *out, size_t max) {
  return lw_tracker_list(&c->tracker, now, out, max);
}

TEST_IMPL(lifecycle_intervals) {
  lw_conditions_t c;
  lw_state_t from = LW_STATE_COUNT;
  lw_interval_t l[8];
  init_default(&c);
  ASSERT_EQ(c.state, LW_STATE_ACTIVE);
  /* Same state: nothing. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_ACTIVE, 50, &from), 0);
  ASSERT_EQ(intervals(&c, 50, l, 8), 0);
  /* active -> passive: still visible, no interval. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_PASSIVE, 60, &from), 1);
  ASSERT_EQ(from, LW_STATE_ACTIVE);
  ASSERT_EQ(intervals(&c, 60, l, 8), 0);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_ACTIVE, 70, &from), 1);
  /* active -> frozen opens hidden, then frozen. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_FROZEN, 100, &from), 1);
  ASSERT_EQ(from, LW_STATE_ACTIVE);
  ASSERT_EQ(c.state, LW_STATE_FROZEN);
  ASSERT_EQ(intervals(&c, 100, l, 8), 2);
  ASSERT_EQ(l[0].reason, LW_REASON_HIDDEN);
  ASSERT_EQ(l[1].reason, LW_REASON_FROZEN);
  ASSERT_LT(l[0].seq, l[1].seq);
  ASSERT_DBL_EQ(l[0].start, 100);
  ASSERT_DBL_EQ(l[1].start, 100);
  ASSERT_DBL_EQ(l[0].end, INFINITY);
  ASSERT_DBL_EQ(l[1].end, INFINITY);
  /* The lifecycle's intervals do not count against LW_OPEN_MAX. */
  ASSERT_EQ(c.tracker.open_counted, 0);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_FROZEN, 150, &from), 0);
  ASSERT_EQ(intervals(&c, 150, l, 8), 2);
  /* frozen -> hidden closes only frozen. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_HIDDEN, 200, &from), 1);
  ASSERT_EQ(from, LW_STATE_FROZEN);
  ASSERT_EQ(intervals(&c, 200, l, 8), 2);
  ASSERT_EQ(l[0].reason, LW_REASON_HIDDEN);
  ASSERT_DBL_EQ(l[0].end, INFINITY);
  ASSERT_EQ(l[1].reason, LW_REASON_FROZEN);
  ASSERT_DBL_EQ(l[1].end, 200);
  /* hidden -> frozen opens a new frozen; hidden stays the same interval. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_FROZEN, 300, &from), 1);
  ASSERT_EQ(intervals(&c, 300, l, 8), 3);
  ASSERT_DBL_EQ(l[0].start, 100);
  ASSERT_DBL_EQ(l[0].end, INFINITY);
  ASSERT_EQ(l[2].reason, LW_REASON_FROZEN);
  ASSERT_DBL_EQ(l[2].start, 300);
  ASSERT_DBL_EQ(l[2].end, INFINITY);
  /* -> active closes both. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_ACTIVE, 400, &from), 1);
  ASSERT_EQ(from, LW_STATE_FROZEN);
  ASSERT_EQ(intervals(&c, 400, l, 8), 3);
  ASSERT_DBL_EQ(l[0].end, 400);
  ASSERT_DBL_EQ(l[1].end, 200);
  ASSERT_DBL_EQ(l[2].end, 400);
  ASSERT_EQ(c.open.hidden, 0);
  ASSERT_EQ(c.open.frozen, 0);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_ACTIVE, 450, &from), 0);
  /* hidden -> passive closes hidden. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_HIDDEN, 500, &from), 1);
  ASSERT_EQ(intervals(&c, 500, l, 8), 4);
  ASSERT_DBL_EQ(l[3].start, 500);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_PASSIVE, 600, &from), 1);
  ASSERT_EQ(intervals(&c, 600, l, 8), 4);
  ASSERT_DBL_EQ(l[3].end, 600);
  /* Invalid state: nothing changes. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_COUNT, 700, &from), LW_EINVAL);
  ASSERT_EQ(lw_conditions_set_state(&c, (lw_state_t)-1, 700, &from), LW_EINVAL);
  ASSERT_EQ(c.state, LW_STATE_PASSIVE);
  ASSERT_EQ(intervals(&c, 700, l, 8), 4);
  /* Names. */
  ASSERT_EQ(lw_state_parse("frozen", 6), LW_STATE_FROZEN);
  ASSERT_EQ(lw_state_parse("froze", 5), LW_STATE_COUNT);
  ASSERT_STR_EQ(lw_state_name(LW_STATE_TERMINATED), "terminated");
  ASSERT_EQ(lw_state_visible(LW_STATE_PASSIVE), 1);
  ASSERT_EQ(lw_state_visible(LW_STATE_HIDDEN), 0);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(lifecycle_frozen_to_visible_closes_both) {
  lw_conditions_t c;
  lw_state_t from;
  lw_interval_t l[4];
  uint64_t detail;
  uint32_t v;
  init_default(&c);
  v = make_validator(&c, "driftLag", 5000);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_FROZEN, 1000, &from), 1);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_PASSIVE, 2000, &from), 1);
  ASSERT_EQ(intervals(&c, 2000, l, 4), 2);
  ASSERT_DBL_EQ(l[0].end, 2000);
  ASSERT_DBL_EQ(l[1].end, 2000);
  /* A window touching the end of the hidden time is recorded. */
  ASSERT_EQ(lw_validator_submit(&c, v, 10, 10, 2010, &detail), LW_VERDICT_RECORDED);
  ASSERT_EQ(lw_validator_submit(&c, v, 10, 10.25, 2010, &detail), LW_VERDICT_DISCARDED);
  /* Overlapping both, the earlier-added hidden is the reason. */
  ASSERT_EQ(detail, LW_REASON_HIDDEN);
  /* frozen -> terminated: not in {hidden, frozen}, both close. */
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_FROZEN, 3000, &from), 1);
  ASSERT_EQ(lw_conditions_set_state(&c, LW_STATE_TERMINATED, 3500, &from), 1);
  ASSERT_EQ(c.open.hidden, 0);
  ASSERT_EQ(c.open.frozen, 0);
  ASSERT_EQ(intervals(&c, 3500, l, 4), 4);
  ASSERT_DBL_EQ(l[2].end, 3500);
  ASSERT_DBL_EQ(l[3].end, 3500);
  lw_conditions_free(&c);
  return 0;
}

/* SPEC §5, evidence explains only the time it covers. One long sample of window [0, value] at
 * now = value, with the given stop evidence inside, added before the sample (`before`) or
 * during its hold: returns the stall events' kinds and durations in `kinds`/`durations` (by kind
 * order: hang first), their number, and what the sample's sink received in `*recorded` (-1 if
 * nothing). */
typedef struct {
  double s, e;
  uint32_t reason;
} own_ev_t;

static size_t own_case(double value, const own_ev_t *evs, size_t nev, int before, lw_kind_t *kinds,
                       double *durations, double *recorded) {
  lw_conditions_t c;
  sink_t sink = {{0}, {0}, 0, 0, 0, 0};
  uint64_t detail;
  uint32_t v;
  double now = value;
  size_t i, n, k = 0;
  const lw_event_t *ev;
  int rc;
  init_default(&c);
  v = make_validator(&c, "loopBlock", 5000);
  lw_validator_set_sink(&c, v, sink_cb, &sink);
  if (before)
    for (i = 0; i < nev; i++) ASSERT_EQ(lw_tracker_add(&c.tracker, evs[i].s, evs[i].e, evs[i].reason, now), LW_OK);
  rc = lw_validator_submit(&c, v, value, value, now, &detail);
  ASSERT_TRUE(rc == LW_VERDICT_HELD || rc == LW_VERDICT_DISCARDED);
  if (!before)
    for (i = 0; i < nev; i++) ASSERT_EQ(lw_tracker_add(&c.tracker, evs[i].s, evs[i].e, evs[i].reason, now), LW_OK);
  drive_all(&c, &now);
  ASSERT_EQ(c.submitted, c.recorded + discarded_total(&c));
  ev = lw_conditions_events(&c, &n);
  for (i = 0; i < n; i++)
    if (ev[i].type == LW_EVENT_STALL && ev[i].kind == LW_KIND_HANG) {
      kinds[k] = ev[i].kind;
      durations[k++] = ev[i].duration_ms;
    }
  for (i = 0; i < n; i++)
    if (ev[i].type == LW_EVENT_STALL && ev[i].kind != LW_KIND_HANG) {
      kinds[k] = ev[i].kind;
      durations[k++] = ev[i].duration_ms;
    }
  *recorded = sink.n ? sink.values[0] : -1;
  lw_conditions_free(&c);
  return k;
}

TEST_IMPL(validator_own_part_of_a_stall) {
  lw_kind_t kinds[4];
  double d[4], rec;
  int before;
  /* A 0.5 s pause, then 6 s of the app's own work: a hang of 6000, no pause stall. */
  static const own_ev_t pause_then_block[] = {{0, 500, LW_REASON_PAUSE}};
  /* 7 s of work with a 3 s stop inside: a hang of 7000. */
  static const own_ev_t stop_inside[] = {{2000, 5000, LW_REASON_PAUSE}};
  /* A 6 s suspend and 6 s of work: two episodes, a hang and a suspend. */
  static const own_ev_t both[] = {{0, 6000, LW_REASON_SUSPEND}};
  /* Overlapping evidence counts once: a pause [1000, 4000] and a suspend [3000, 5000] cover 4 s. */
  static const own_ev_t overlapping[] = {{1000, 4000, LW_REASON_PAUSE}, {3000, 5000, LW_REASON_SUSPEND}};
  /* A debugger held the thread 6 s, then 5.5 s of the app's work: a hang, never a debugger stall. */
  static const own_ev_t debugger[] = {{0, 6000, LW_REASON_DEBUGGER}};
  /* Own part at the threshold, not past it: the sample is the stop's, whole (the evidence is a
   * lower bound of a stop). */
  static const own_ev_t at_threshold[] = {{5000, 6000, LW_REASON_PAUSE}};
  /* Hidden as well: judged whole, as SPEC §4 does (the pause is looked for first: a pause stall
   * of the whole value); hidden time is not the app's either. */
  static const own_ev_t hidden_too[] = {{0, 500, LW_REASON_PAUSE}, {3000, 3500, LW_REASON_HIDDEN}};
  for (before = 0; before < 2; before++) {
    TEST_CONTEXT("evidence %s the sample", before ? "before" : "after");
    ASSERT_EQ(own_case(6500, pause_then_block, 1, before, kinds, d, &rec), 1);
    ASSERT_EQ(kinds[0], LW_KIND_HANG);
    ASSERT_DBL_EQ(d[0], 6000);
    ASSERT_DBL_EQ(rec, 6000);
    ASSERT_EQ(own_case(10000, stop_inside, 1, before, kinds, d, &rec), 1);
    ASSERT_EQ(kinds[0], LW_KIND_HANG);
    ASSERT_DBL_EQ(d[0], 7000);
    ASSERT_EQ(own_case(12000, both, 1, before, kinds, d, &rec), 2);
    ASSERT_EQ(kinds[0], LW_KIND_HANG);
    ASSERT_DBL_EQ(d[0], 6000);
    ASSERT_EQ(kinds[1], LW_KIND_SUSPEND);
    ASSERT_DBL_EQ(d[1], 6000);
    ASSERT_EQ(own_case(10000, overlapping, 2, before, kinds, d, &rec), 1);
    ASSERT_EQ(kinds[0], LW_KIND_HANG);
    ASSERT_DBL_EQ(d[0], 6000);
    ASSERT_EQ(own_case(11500, debugger, 1, before, kinds, d, &rec), 1);
    ASSERT_EQ(kinds[0], LW_KIND_HANG);
    ASSERT_DBL_EQ(d[0], 5500);
    ASSERT_EQ(own_case(6000, at_threshold, 1, before, kinds, d, &rec), 1);
    ASSERT_EQ(kinds[0], LW_KIND_PAUSE);
    ASSERT_DBL_EQ(d[0], 6000);
    ASSERT_DBL_EQ(rec, -1);
    ASSERT_EQ(own_case(6500, hidden_too, 2, before, kinds, d, &rec), 1);
    ASSERT_EQ(kinds[0], LW_KIND_PAUSE);
    ASSERT_DBL_EQ(d[0], 6500);
    ASSERT_DBL_EQ(rec, -1);
    /* A debugger alone over a long sample: discarded, no stall of any kind. */
    ASSERT_EQ(own_case(6000, debugger, 1, before, kinds, d, &rec), 0);
    ASSERT_DBL_EQ(rec, -1);
  }
  TEST_CONTEXT("%s", "");
  return 0;
}

/* The covered time of stop evidence: union, clipped to the window, open intervals to its end. */
TEST_IMPL(tracker_covered_union) {
  lw_tracker_t t;
  static const uint32_t stops[3] = {LW_REASON_SUSPEND, LW_REASON_PAUSE, LW_REASON_DEBUGGER};
  uint64_t seq;
  lw_interval_t iv;
  ASSERT_EQ(lw_tracker_init(&t, 120000), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 0, 1000, stops, 3, 1000), 0);
  ASSERT_EQ(lw_tracker_add(&t, 100, 300, LW_REASON_PAUSE, 1000), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 200, 400, LW_REASON_SUSPEND, 1000), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 250, 260, LW_REASON_PAUSE, 1000), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 500, 500, LW_REASON_PAUSE, 1000), LW_OK); /* zero length */
  ASSERT_EQ(lw_tracker_add(&t, 600, 700, LW_REASON_HIDDEN, 1000), LW_OK); /* not a stop */
  ASSERT_EQ(lw_tracker_add(&t, 800, 1200, LW_REASON_DEBUGGER, 1000), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 0, 1000, stops, 3, 1000), 300 + 200);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 0, 1000, stops, 2, 1000), 300);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 150, 350, stops, 3, 1000), 200);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 400, 800, stops, 3, 1000), 0);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_PAUSE, 1500, 1, &seq), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 1000, 2000, stops, 3, 2000), 200 + 500);
  ASSERT_TRUE(lw_tracker_find_other(&t, 0, 1000, 2000, &iv));
  ASSERT_EQ(iv.reason, LW_REASON_HIDDEN);
  ASSERT_FALSE(lw_tracker_find_other(&t, 750, 2000, 2000, &iv));
  lw_tracker_free(&t);
  return 0;
}

/* A weighted interval (a suspend the clocks saw somewhere in a span) covers at most its weight,
 * less what full intervals inside it already cover (the same stop, seen by the worker). */
TEST_IMPL(tracker_covered_weighted) {
  lw_tracker_t t;
  static const uint32_t stops[3] = {LW_REASON_SUSPEND, LW_REASON_PAUSE, LW_REASON_DEBUGGER};
  ASSERT_EQ(lw_tracker_init(&t, 120000), LW_OK);
  /* Linux: the sleep took no monotonic time: covers nothing, still discards. */
  ASSERT_EQ(lw_tracker_add_weighted(&t, 10000, 16000, LW_REASON_SUSPEND, 0, 16000), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 10000, 16000, stops, 3, 16000), 0);
  lw_tracker_free(&t);
  /* macOS: 30 s slept within [10000, 46000]; the worker saw [10100, 40000] of it. */
  ASSERT_EQ(lw_tracker_init(&t, 120000), LW_OK);
  ASSERT_EQ(lw_tracker_add_weighted(&t, 10000, 46000, LW_REASON_SUSPEND, 30000, 46000), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 10000, 46000, stops, 3, 46000), 30000);
  ASSERT_EQ(lw_tracker_add(&t, 10100, 40000, LW_REASON_SUSPEND, 46000), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 10000, 46000, stops, 3, 46000), 29900 + 100);
  /* A window of the app's work after the wake-up: at most what the weight has left (100). */
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 40000, 46000, stops, 3, 46000), 100);
  /* A weight as long as the span or longer: a full interval. */
  ASSERT_EQ(lw_tracker_add_weighted(&t, 50000, 51000, LW_REASON_PAUSE, 5000, 51000), LW_OK);
  ASSERT_DBL_EQ(lw_tracker_covered(&t, 50000, 51000, stops, 3, 51000), 1000);
  lw_tracker_free(&t);
  return 0;
}

/* The app's state from its windows, and a renderer's page over them: terminated before frozen
 * before the windows (SPEC §9). */
TEST_IMPL(state_from_windows_and_page) {
  const uint8_t focused = LW_WINDOW_VISIBLE | LW_WINDOW_FOCUSED, shown = LW_WINDOW_VISIBLE;
  const uint8_t minimized = LW_WINDOW_VISIBLE | LW_WINDOW_MINIMIZED | LW_WINDOW_FOCUSED;
  uint8_t w[2];
  ASSERT_EQ(lw_state_from_windows(NULL, 0, 0), LW_STATE_HIDDEN);
  w[0] = shown;
  w[1] = focused;
  ASSERT_EQ(lw_state_from_windows(w, 2, 0), LW_STATE_ACTIVE);
  ASSERT_EQ(lw_state_from_windows(w, 1, 0), LW_STATE_PASSIVE);
  ASSERT_EQ(lw_state_from_windows(w, 2, 1), LW_STATE_HIDDEN);
  w[1] = minimized;
  ASSERT_EQ(lw_state_from_windows(w, 2, 0), LW_STATE_PASSIVE);
  w[0] = 0;
  ASSERT_EQ(lw_state_from_windows(w, 2, 0), LW_STATE_HIDDEN);
  w[0] = focused;
  ASSERT_EQ(lw_state_from_page(0, w, 1, 0), LW_STATE_ACTIVE);
  ASSERT_EQ(lw_state_from_page(LW_PAGE_FROZEN, w, 1, 0), LW_STATE_FROZEN);
  ASSERT_EQ(lw_state_from_page(LW_PAGE_TERMINATED, w, 1, 0), LW_STATE_TERMINATED);
  ASSERT_EQ(lw_state_from_page(LW_PAGE_FROZEN | LW_PAGE_TERMINATED, w, 1, 0), LW_STATE_TERMINATED);
  ASSERT_EQ(lw_state_from_page(LW_PAGE_FROZEN, w, 1, 1), LW_STATE_FROZEN);
  ASSERT_EQ(lw_state_from_page(0, w, 1, 1), LW_STATE_HIDDEN);
  return 0;
}
