/* Stall episodes (SPEC §5). */
#include "core/conditions.h"
#include "core/internal.h"
#include "helpers.h"
#include "test.h"

static void init_cfg(lw_conditions_t *c, double retention) {
  lw_conditions_config_t cfg;
  lw_conditions_config_default(&cfg);
  cfg.retention_ms = retention;
  ASSERT_EQ(lw_conditions_init(c, &cfg), LW_OK);
}

static uint32_t make_validator(lw_conditions_t *c, const char *name) {
  uint32_t id;
  ASSERT_EQ(lw_validator_create(c, name, strlen(name), 5000, &id, NULL), LW_OK);
  return id;
}

static int has_monitor(const lw_event_t *ev, uint32_t name_id) {
  size_t i;
  for (i = 0; i < ev->nmonitors; i++)
    if (ev->monitors[i] == name_id) return 1;
  return 0;
}

TEST_IMPL(episode_two_validators_one_stall) {
  lw_conditions_t c;
  uint64_t detail;
  uint32_t a, b;
  double now = 10000;
  const lw_event_t *ev;
  size_t n;
  init_cfg(&c, 120000);
  a = make_validator(&c, "loopBlock");
  b = make_validator(&c, "worker");
  /* Window [2500, 10000], value 7500: the longest, and the first. */
  ASSERT_EQ(lw_validator_submit(&c, a, 7500, 7500, now, &detail), LW_VERDICT_HELD);
  drive_to(&c, &now, 10500);
  /* Window [4500, 10500], value 6000. */
  ASSERT_EQ(lw_validator_submit(&c, b, 6000, 6000, now, &detail), LW_VERDICT_HELD);
  /* a resolves at 12000: the first stall sample, the episode is due at 14000. */
  drive_to(&c, &now, 12000);
  ASSERT_EQ(c.nepisodes, 1);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), 12500);
  drive_to(&c, &now, 12500);
  ASSERT_EQ(c.nepisodes, 1);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), 14000);
  lw_conditions_events_clear(&c);
  /* Not 1 ms earlier. */
  drive_to(&c, &now, 13999);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 0);
  ASSERT_EQ(stalls_total(&c), 0);
  drive_to(&c, &now, 14000);
  lw_conditions_events(&c, &n);
  ASSERT_EQ(n, 1);
  ev = find_event(&c, LW_EVENT_STALL);
  ASSERT_NOT_NULL(ev);
  ASSERT_DBL_EQ(ev->at, 14000);
  ASSERT_EQ(ev->kind, LW_KIND_HANG);
  ASSERT_DBL_EQ(ev->duration_ms, 7500);
  ASSERT_DBL_EQ(ev->start, 2500);
  ASSERT_DBL_EQ(ev->end, 10500);
  ASSERT_EQ(ev->samples, 2);
  ASSERT_EQ(ev->nmonitors, 2);
  ASSERT_TRUE(has_monitor(ev, c.validators[a]->name_id));
  ASSERT_TRUE(has_monitor(ev, c.validators[b]->name_id));
  ASSERT_STR_EQ(c.names[ev->monitors[0]]->name, "loopBlock");
  ASSERT_STR_EQ(c.names[ev->monitors[1]]->name, "worker");
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  ASSERT_EQ(stalls_total(&c), 1);
  drive_all(&c, &now);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 1);
  lw_conditions_free(&c);
  return 0;
}

/* Stall samples of the given kinds, each overlapping the previous. The app's own time and the
 * stops are separate episodes (SPEC §5): the hang samples make one, reported as a hang; the
 * suspend and pause samples another, whose kind is suspend if any sample was, else pause. The
 * second sample is the longest (6500 ms). Returns the kind of the stops' episode, or
 * LW_KIND_HANG if there are none. */
static lw_kind_t episode_kind(const lw_kind_t *kinds, size_t n) {
  lw_conditions_t c;
  const lw_event_t *ev;
  lw_kind_t kind = LW_KIND_HANG;
  double now = 10000, longest[2] = {0, 0};
  size_t i, nk[2] = {0, 0}, events, e;
  init_cfg(&c, 120000);
  for (i = 0; i < n; i++) {
    double value = i == 1 ? 6500 : 6000 + (double)i;
    int stop = kinds[i] != LW_KIND_HANG;
    ASSERT_EQ(lw_conditions_stall(&c, 1000 + 100 * (double)i, 7000 + 100 * (double)i, value,
                                  kinds[i], (uint32_t)i, now + (double)i),
              LW_OK);
    nk[stop]++;
    if (value > longest[stop]) longest[stop] = value;
  }
  events = (nk[0] > 0) + (nk[1] > 0);
  ASSERT_EQ(c.nepisodes, events);
  drive_all(&c, &now);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), events);
  ev = lw_conditions_events(&c, &e);
  for (i = 0; i < e; i++) {
    int stop = ev[i].kind != LW_KIND_HANG;
    ASSERT_EQ(ev[i].samples, nk[stop]);
    ASSERT_EQ(ev[i].nmonitors, nk[stop]);
    ASSERT_DBL_EQ(ev[i].duration_ms, longest[stop]);
    ASSERT_EQ(c.stalls[ev[i].kind], 1);
    if (stop) kind = ev[i].kind;
  }
  ASSERT_EQ(stalls_total(&c), events);
  lw_conditions_free(&c);
  return kind;
}

TEST_IMPL(episode_kind_precedence) {
  static const lw_kind_t all[] = {LW_KIND_HANG, LW_KIND_SUSPEND, LW_KIND_PAUSE};
  lw_kind_t seq[3];
  size_t i, j, k;
  /* One sample: its own kind. */
  for (i = 0; i < 3; i++) ASSERT_EQ(episode_kind(&all[i], 1), all[i]);
  /* Every ordered pair and triple: the stops' episode is suspend > pause; hangs apart. */
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      lw_kind_t want;
      seq[0] = all[i];
      seq[1] = all[j];
      want = (seq[0] == LW_KIND_SUSPEND || seq[1] == LW_KIND_SUSPEND) ? LW_KIND_SUSPEND
             : (seq[0] == LW_KIND_PAUSE || seq[1] == LW_KIND_PAUSE)   ? LW_KIND_PAUSE
                                                                      : LW_KIND_HANG;
      TEST_CONTEXT("pair %d %d", (int)seq[0], (int)seq[1]);
      ASSERT_EQ(episode_kind(seq, 2), want);
      for (k = 0; k < 3; k++) {
        lw_kind_t want3 = want;
        seq[2] = all[k];
        if (seq[2] == LW_KIND_SUSPEND) want3 = LW_KIND_SUSPEND;
        if (seq[2] == LW_KIND_PAUSE && want3 == LW_KIND_HANG) want3 = LW_KIND_PAUSE;
        TEST_CONTEXT("triple %d %d %d", (int)seq[0], (int)seq[1], (int)seq[2]);
        ASSERT_EQ(episode_kind(seq, 3), want3);
      }
    }
  TEST_CONTEXT("%s", "");
  return 0;
}

/* The same through validators: a hang (held), then a sample whose window holds it and a pause
 * that leaves it no own part past the threshold: a pause stall, an episode of its own beside the
 * hang's (SPEC §5). */
TEST_IMPL(episode_kind_through_validators) {
  lw_conditions_t c;
  uint64_t detail;
  uint32_t a, b;
  double now = 10000;
  const lw_event_t *ev;
  size_t n;
  init_cfg(&c, 120000);
  a = make_validator(&c, "loopBlock");
  b = make_validator(&c, "worker");
  ASSERT_EQ(lw_validator_submit(&c, a, 6000, 6000, now, &detail), LW_VERDICT_HELD);
  drive_to(&c, &now, 12000); /* a: hang, episode [4000, 10000] due 14000 */
  ASSERT_EQ(c.nepisodes, 1);
  drive_to(&c, &now, 13000);
  ASSERT_EQ(lw_tracker_add(&c.tracker, 11000, 12500, LW_REASON_PAUSE, now), LW_OK);
  /* b's window [7000, 13000] overlaps the episode and the pause evidence; its own part is
   * 6000 - 1500 = 4500, under the threshold: it is the pause's, whole. */
  ASSERT_EQ(lw_validator_submit(&c, b, 6000, 6000, now, &detail), LW_VERDICT_DISCARDED);
  ASSERT_EQ(detail, LW_REASON_PAUSE);
  ASSERT_EQ(c.nepisodes, 2);
  drive_all(&c, &now);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 2);
  ev = lw_conditions_events(&c, &n);
  while (ev->type != LW_EVENT_STALL) ev++; /* the hold's resolution came first */
  ASSERT_EQ(ev[0].kind, LW_KIND_HANG);
  ASSERT_DBL_EQ(ev[0].at, 14000);
  ASSERT_EQ(ev[0].samples, 1);
  ASSERT_DBL_EQ(ev[0].start, 4000);
  ASSERT_DBL_EQ(ev[0].end, 10000);
  ASSERT_EQ(ev[1].kind, LW_KIND_PAUSE);
  ASSERT_DBL_EQ(ev[1].at, 15000);
  ASSERT_DBL_EQ(ev[1].start, 7000);
  ASSERT_DBL_EQ(ev[1].end, 13000);
  ASSERT_DBL_EQ(ev[1].duration_ms, 6000);
  ASSERT_EQ(c.stalls[LW_KIND_PAUSE], 1);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(episode_late_join_adds_nothing) {
  lw_conditions_t c;
  double now = 10000;
  uint64_t stalls[LW_KIND_COUNT];
  init_cfg(&c, 120000);
  ASSERT_EQ(lw_conditions_stall(&c, 4000, 10000, 6000, LW_KIND_HANG, 0, now), LW_OK);
  drive_all(&c, &now);
  ASSERT_DBL_EQ(now, 12000);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 1);
  lw_conditions_events_clear(&c);
  memcpy(stalls, c.stalls, sizeof(stalls));
  /* A longer sample overlapping the reported episode: nothing. */
  drive_to(&c, &now, 12100);
  ASSERT_EQ(lw_conditions_stall(&c, 3000, 12100, 9100, LW_KIND_HANG, 1, now), LW_OK);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), LW_NEVER);
  /* The kept episode is unchanged: the late sample added nothing to it. */
  ASSERT_EQ(c.nepisodes, 1);
  ASSERT_DBL_EQ(c.episodes[0].window_start, 4000);
  ASSERT_DBL_EQ(c.episodes[0].window_end, 10000);
  ASSERT_DBL_EQ(c.episodes[0].duration_ms, 6000);
  ASSERT_EQ(c.episodes[0].kind, LW_KIND_HANG);
  ASSERT_EQ(c.episodes[0].samples, 1);
  ASSERT_EQ(c.episodes[0].nmonitors, 1);
  drive_to(&c, &now, 200000);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 0);
  ASSERT_EQ(memcmp(stalls, c.stalls, sizeof(stalls)), 0);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(episode_touching_windows_are_two) {
  lw_conditions_t c;
  double now = 10000;
  size_t n, i;
  const lw_event_t *ev;
  init_cfg(&c, 120000);
  ASSERT_EQ(lw_conditions_stall(&c, 0, 5000, 5000, LW_KIND_HANG, 0, now), LW_OK);
  ASSERT_EQ(lw_conditions_stall(&c, 5000, 10000, 5000, LW_KIND_HANG, 0, now), LW_OK);
  ASSERT_EQ(c.nepisodes, 2);
  drive_all(&c, &now);
  ev = lw_conditions_events(&c, &n);
  ASSERT_EQ(n, 2);
  for (i = 0; i < n; i++) {
    ASSERT_EQ(ev[i].type, LW_EVENT_STALL);
    ASSERT_EQ(ev[i].samples, 1);
    ASSERT_DBL_EQ(ev[i].at, 12000);
  }
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 2);
  /* A third touching the second's reported window from the right is separate too. */
  lw_conditions_events_clear(&c);
  ASSERT_EQ(lw_conditions_stall(&c, 10000, 12000, 5000, LW_KIND_HANG, 0, now), LW_OK);
  drive_all(&c, &now);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 1);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 3);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(episode_dispose_reports_waiting) {
  lw_conditions_t c;
  uint64_t detail, token;
  uint32_t a;
  double now = 10000;
  size_t n;
  const lw_event_t *ev;
  init_cfg(&c, 120000);
  a = make_validator(&c, "loopBlock");
  ASSERT_EQ(lw_tracker_add(&c.tracker, 5000, 6000, LW_REASON_SUSPEND, now), LW_OK);
  ASSERT_EQ(lw_validator_submit(&c, a, 6000, 6000, now, &detail), LW_VERDICT_DISCARDED);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), 12000);
  drive_to(&c, &now, 11000);
  ASSERT_EQ(lw_validator_submit(&c, a, 5500, 500, now, &token), LW_VERDICT_HELD);
  drive_to(&c, &now, 11500);
  lw_conditions_dispose(&c, now);
  ev = lw_conditions_events(&c, &n);
  ASSERT_EQ(n, 3);
  /* SPEC §4: the held sample is resolved first, at the dispose (no evidence over [10500, 11000]:
   * recorded, a hang stall sample that starts its own episode); then both episodes are
   * reported at once, before the validators are disposed. */
  ASSERT_EQ(ev[0].type, LW_EVENT_RESOLVED);
  ASSERT_UINT64_EQ(ev[0].token, token);
  ASSERT_DBL_EQ(ev[0].at, 11500);
  ASSERT_EQ(ev[0].verdict, LW_VERDICT_RECORDED);
  ASSERT_EQ(ev[1].type, LW_EVENT_STALL);
  ASSERT_DBL_EQ(ev[1].at, 11500);
  ASSERT_EQ(ev[1].kind, LW_KIND_SUSPEND);
  ASSERT_DBL_EQ(ev[1].duration_ms, 6000);
  ASSERT_EQ(ev[2].type, LW_EVENT_STALL);
  ASSERT_DBL_EQ(ev[2].at, 11500);
  ASSERT_EQ(ev[2].kind, LW_KIND_HANG);
  ASSERT_DBL_EQ(ev[2].duration_ms, 5500);
  ASSERT_EQ(c.stalls[LW_KIND_SUSPEND], 1);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1);
  ASSERT_EQ(c.cancelled, 0);
  ASSERT_EQ(c.held_count, 0);
  ASSERT_CONSERVATION(&c);
  ASSERT_DBL_EQ(lw_conditions_next_due(&c), LW_NEVER);
  /* Idempotent; nothing runs after. */
  lw_conditions_events_clear(&c);
  lw_conditions_dispose(&c, now);
  drive_to(&c, &now, 1e6);
  lw_conditions_events(&c, &n);
  ASSERT_EQ(n, 0);
  ASSERT_EQ(lw_validator_submit(&c, a, 1, 1, now, &detail), LW_VERDICT_DISPOSED);
  ASSERT_EQ(lw_validator_create(&c, "late", 4, 5000, &a, NULL), LW_EDISPOSED);
  ASSERT_EQ(stalls_total(&c), 2);
  lw_conditions_free(&c);
  return 0;
}

TEST_IMPL(episode_expires_after_retention) {
  lw_conditions_t c;
  double now = 10000;
  init_cfg(&c, 5000);
  ASSERT_EQ(lw_conditions_stall(&c, 4000, 10000, 6000, LW_KIND_HANG, 0, now), LW_OK);
  drive_all(&c, &now);
  ASSERT_DBL_EQ(now, 12000); /* reported at 12000 */
  ASSERT_EQ(c.nepisodes, 1);
  lw_conditions_run(&c, 17000);
  ASSERT_EQ(c.nepisodes, 1); /* kept while now <= reported + retention */
  now = 17000;
  /* Within retention, an overlapping sample joins it (adds nothing). */
  ASSERT_EQ(lw_conditions_stall(&c, 9000, 17000, 8000, LW_KIND_HANG, 0, now), LW_OK);
  ASSERT_EQ(c.nepisodes, 1);
  lw_conditions_run(&c, 17001);
  ASSERT_EQ(c.nepisodes, 0);
  now = 17001;
  /* After it, an overlapping sample starts a new episode. */
  ASSERT_EQ(lw_conditions_stall(&c, 9000, 17001, 8001, LW_KIND_HANG, 0, now), LW_OK);
  ASSERT_EQ(c.nepisodes, 1);
  lw_conditions_events_clear(&c);
  drive_all(&c, &now);
  ASSERT_EQ(count_events(&c, LW_EVENT_STALL), 1);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 2);
  /* Memory stays bounded: many episodes over time, few kept. */
  {
    int i;
    for (i = 0; i < 1000; i++) {
      double t = now + 1000;
      drive_to(&c, &now, t);
      ASSERT_EQ(lw_conditions_stall(&c, now - 100, now, 5000, LW_KIND_HANG, 0, now), LW_OK);
      ASSERT_LE(c.nepisodes, 10);
    }
  }
  drive_all(&c, &now);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 1002);
  lw_conditions_free(&c);
  return 0;
}

/* A fatal hang from a dead process's record: reported once, counted with its cause; a cause of
 * any other shape than lagwatch reports (an unknown kind, a part out of reach, a missing cpu or
 * span) is refused whole, nothing counted (lw_cause_valid: the one rule lib/fatal.js asks too). */
TEST_IMPL(episode_fatal_cause_valid) {
  lw_conditions_t c;
  lw_cause_t cause, bad;
  const lw_event_t *evs;
  size_t n;
  init_cfg(&c, 60000);
  memset(&cause, 0, sizeof(cause));
  cause.known = 1;
  cause.cpu_ms = 7000;
  cause.span_ms = 8000;
  cause.runq_ms = cause.throttled_ms = cause.blocked_ms = cause.gc_ms = NAN;
  cause.dominant = LW_CAUSE_BUSY;
  ASSERT(lw_cause_valid(&cause));
  bad = cause;
  bad.known = 0;
  bad.cpu_ms = NAN;
  ASSERT(lw_cause_valid(&bad)); /* unknown: nothing to judge */
  bad = cause;
  bad.dominant = LW_CAUSE_COUNT;
  ASSERT(!lw_cause_valid(&bad));
  bad = cause;
  bad.cpu_ms = NAN;
  ASSERT(!lw_cause_valid(&bad));
  bad = cause;
  bad.span_ms = 1e308;
  ASSERT(!lw_cause_valid(&bad));
  bad = cause;
  bad.gc_ms = -1;
  ASSERT(!lw_cause_valid(&bad));
  bad = cause;
  bad.runq_ms = INFINITY;
  ASSERT(!lw_cause_valid(&bad));
  ASSERT_EQ(lw_conditions_report_fatal(&c, -9000, -1000, -4000, &bad, 10), LW_EINVAL);
  ASSERT_EQ(c.fatal_hangs, 0);
  ASSERT_EQ(c.stalls[LW_KIND_HANG], 0);
  ASSERT_EQ(lw_conditions_report_fatal(&c, -9000, -1000, -4000, &cause, 10), LW_OK);
  ASSERT_EQ(c.fatal_hangs, 1);
  ASSERT_EQ(c.hang_causes[LW_CAUSE_BUSY], 1);
  evs = lw_conditions_events(&c, &n);
  ASSERT_EQ(n, 1);
  ASSERT(evs[0].fatal && evs[0].duration_ms == 8000 && evs[0].cause.dominant == LW_CAUSE_BUSY);
  lw_conditions_dispose(&c, 20);
  lw_conditions_free(&c);
  return 0;
}
