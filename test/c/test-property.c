/* Property test of the conditions (SPEC §2–§5).
 *
 * A seeded PRNG drives thousands of random steps: submits, intervals added, opened and closed,
 * lifecycle changes, validator disposals and time advances driven through next_due/run exactly
 * like a driver. A brute-force copy of every interval checks each decision with the SPEC §2 rules
 * written out literally, and a mirror of the counts checks conservation after every step.
 */
#include "core/conditions.h"
#include "helpers.h"
#include "test.h"

enum { LIFE_NONE = 0, LIFE_HIDDEN = 1, LIFE_FROZEN = 2 };
enum { TOK_FREE = 0, TOK_HELD = 1, TOK_RESOLVED = 2, TOK_CANCELLED = 3 };

typedef struct {
  double start;
  double end;
  uint32_t reason;
  int open;
  int life;     /* the lifecycle's own interval (mirrored from SPEC §3) */
  uint64_t seq; /* the tracker's handle, for opened ones */
} p_interval_t;

typedef struct {
  double ws;
  double we;
  double value;
  double due;
  uint32_t validator;
  int state;
} p_token_t;

typedef struct {
  uint32_t id;
  double threshold;
  int disposed;
  const char *name;
} p_validator_t;

typedef struct {
  lw_conditions_t c;
  lw_rng_t rng;
  uint64_t seed;
  int step;
  double now;
  int disposing; /* the final dispose: held samples are decided now, before their due time */

  p_interval_t *iv;
  size_t niv, ivcap;
  p_token_t *tok;
  size_t tokcap;
  p_validator_t *val;
  size_t nval, valcap;
  uint32_t reasons[8];
  size_t nreasons;
  lw_state_t state;

  uint64_t submitted, recorded, discarded, held, cancelled;
  uint64_t stall_events, recorded_checked, resolved_recorded, resolved_discarded, own_recorded;
} prop_t;

#define GROW(arr, len, cap)                                                                     \
  do {                                                                                          \
    if ((len) == (cap)) {                                                                       \
      (cap) = (cap) ? (cap) * 2 : 64;                                                           \
      (arr) = realloc((arr), (cap) * sizeof(*(arr)));                                           \
      ASSERT_NOT_NULL(arr);                                                                     \
    }                                                                                           \
  } while (0)

/* A time on a grid of 0.25 ms: exact arithmetic, frequent ties and touching ends. */
static double p_grid(prop_t *p, double lo, double span) {
  return lo + (double)rng_below(&p->rng, (uint64_t)(span * 4) + 1) / 4;
}

static void p_push_interval(prop_t *p, double s, double e, uint32_t reason, int open, int life,
                            uint64_t seq) {
  p_interval_t *iv;
  GROW(p->iv, p->niv, p->ivcap);
  iv = &p->iv[p->niv++];
  iv->start = s;
  iv->end = e;
  iv->reason = reason;
  iv->open = open;
  iv->life = life;
  iv->seq = seq;
}

static int p_kept_overlap(const prop_t *p, const p_interval_t *iv, double ws, double we) {
  return spec_kept(iv->end, iv->open, p->c.cfg.retention_ms, p->now) &&
         spec_overlaps(iv->start, iv->end, iv->open, ws, we);
}

/* The first kept interval of `reason` (LW_REASON_ANY: any) overlapping [ws, we], or NULL. */
static const p_interval_t *p_overlap(const prop_t *p, double ws, double we, uint32_t reason) {
  size_t i;
  for (i = 0; i < p->niv; i++) {
    const p_interval_t *iv = &p->iv[i];
    if (reason != LW_REASON_ANY && iv->reason != reason) continue;
    if (p_kept_overlap(p, iv, ws, we)) return iv;
  }
  return NULL;
}

static int cmp_double_pair(const void *a, const void *b) {
  const double *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* SPEC §5, the model of the own part: 1 if every kept interval overlapping [ws, we] is a stop
 * (suspend, pause, debugger), at least one does, and `value` less the time they cover inside the
 * window passes `threshold`: then the sample is the app's own hang, held and recorded. */
static int p_own_passes(const prop_t *p, double ws, double we, double value, double threshold) {
  double (*seg)[2] = NULL, covered = 0, cs = 0, ce = -INFINITY;
  size_t i, n = 0;
  if (value < threshold || p_overlap(p, ws, we, LW_REASON_ANY) == NULL) return 0;
  seg = malloc((p->niv + 1) * sizeof(*seg));
  ASSERT_NOT_NULL(seg);
  for (i = 0; i < p->niv; i++) {
    const p_interval_t *iv = &p->iv[i];
    double e = iv->open ? INFINITY : iv->end;
    if (!p_kept_overlap(p, iv, ws, we)) continue;
    if (!lw_reason_is_stop(iv->reason)) {
      free(seg);
      return 0;
    }
    seg[n][0] = iv->start > ws ? iv->start : ws;
    seg[n][1] = e < we ? e : we;
    if (seg[n][1] > seg[n][0]) n++;
  }
  qsort(seg, n, sizeof(*seg), cmp_double_pair);
  for (i = 0; i < n; i++) {
    if (seg[i][0] > ce) {
      if (ce > -INFINITY) covered += ce - cs;
      cs = seg[i][0];
      ce = seg[i][1];
    } else if (seg[i][1] > ce) {
      ce = seg[i][1];
    }
  }
  if (ce > -INFINITY) covered += ce - cs;
  free(seg);
  return value - covered > threshold;
}

/* A recorded decision at p->now: no kept interval overlaps the window. */
static void p_check_recorded(prop_t *p, double ws, double we) {
  const p_interval_t *iv = p_overlap(p, ws, we, LW_REASON_ANY);
  if (iv != NULL)
    LW_TEST_FAILED_("recorded at %.17g with window [%.17g, %.17g] overlapping the kept interval "
                    "[%.17g, %.17g%s] reason %s",
                    p->now, ws, we, iv->start, iv->open ? INFINITY : iv->end,
                    iv->open ? " (open)" : "", lw_tracker_reason_name(&p->c.tracker, iv->reason));
  p->recorded_checked++;
}

/* A discarded decision at p->now: an interval of that reason overlaps, and no interval of a
 * reason looked at first (suspend, then pause) does. */
static void p_check_discarded(prop_t *p, double ws, double we, uint32_t reason) {
  if (p_overlap(p, ws, we, reason) == NULL)
    LW_TEST_FAILED_("discarded at %.17g as %s but no kept %s interval overlaps [%.17g, %.17g]",
                    p->now, lw_tracker_reason_name(&p->c.tracker, reason),
                    lw_tracker_reason_name(&p->c.tracker, reason), ws, we);
  if (reason != LW_REASON_SUSPEND && p_overlap(p, ws, we, LW_REASON_SUSPEND) != NULL)
    LW_TEST_FAILED_("discarded at %.17g as %s although a suspend interval overlaps", p->now,
                    lw_tracker_reason_name(&p->c.tracker, reason));
  if (reason != LW_REASON_SUSPEND && reason != LW_REASON_PAUSE &&
      p_overlap(p, ws, we, LW_REASON_PAUSE) != NULL)
    LW_TEST_FAILED_("discarded at %.17g as %s although a pause interval overlaps", p->now,
                    lw_tracker_reason_name(&p->c.tracker, reason));
}

static p_validator_t *p_validator(prop_t *p, uint32_t id) {
  size_t i;
  for (i = 0; i < p->nval; i++)
    if (p->val[i].id == id) return &p->val[i];
  LW_TEST_FAILED_("unknown validator %u", id);
}

static p_token_t *p_token(prop_t *p, uint64_t token) {
  if (token == 0 || token >= p->tokcap) LW_TEST_FAILED_("unknown token %" PRIu64, token);
  return &p->tok[token];
}

static void p_events(prop_t *p) {
  size_t n, i;
  const lw_event_t *ev = lw_conditions_events(&p->c, &n);
  for (i = 0; i < n; i++) {
    const lw_event_t *e = &ev[i];
    p_token_t *t;
    switch (e->type) {
      case LW_EVENT_RESOLVED:
        t = p_token(p, e->token);
        ASSERT_EQ(t->state, TOK_HELD);
        ASSERT_EQ(e->validator, t->validator);
        /* The value recorded: the sample's, or its own part (SPEC §5), never more. */
        if (e->verdict == LW_VERDICT_RECORDED &&
            p_own_passes(p, t->ws, t->we, t->value, p_validator(p, t->validator)->threshold))
          ASSERT_DBL_LE(e->value, t->value);
        else
          ASSERT_DBL_EQ(e->value, t->value);
        /* Driven at each due time: decided exactly at its due time, which is now; by the final
         * dispose (SPEC §4), now, at or before its due time. */
        if (p->disposing)
          ASSERT_DBL_LE(e->at, t->due);
        else
          ASSERT_DBL_EQ(e->at, t->due);
        ASSERT_DBL_EQ(e->at, p->now);
        ASSERT_FALSE(p_validator(p, t->validator)->disposed);
        if (e->verdict == LW_VERDICT_RECORDED) {
          if (p_own_passes(p, t->ws, t->we, t->value, p_validator(p, t->validator)->threshold))
            p->own_recorded++;
          else
            p_check_recorded(p, t->ws, t->we);
          p->recorded++;
          p->resolved_recorded++;
        } else {
          ASSERT_EQ(e->verdict, LW_VERDICT_DISCARDED);
          ASSERT_FALSE(p_own_passes(p, t->ws, t->we, t->value,
                                    p_validator(p, t->validator)->threshold));
          p_check_discarded(p, t->ws, t->we, e->reason);
          p->discarded++;
          p->resolved_discarded++;
        }
        p->held--;
        t->state = TOK_RESOLVED;
        break;
      case LW_EVENT_CANCELLED:
        t = p_token(p, e->token);
        ASSERT_EQ(t->state, TOK_HELD);
        ASSERT_EQ(e->validator, t->validator);
        ASSERT_TRUE(p_validator(p, t->validator)->disposed);
        p->held--;
        p->cancelled++;
        t->state = TOK_CANCELLED;
        break;
      case LW_EVENT_STALL:
        p->stall_events++;
        ASSERT_GE(e->samples, 1);
        ASSERT_GE(e->nmonitors, 1);
        ASSERT_LE(e->nmonitors, e->samples);
        ASSERT_DBL_LE(e->start, e->end);
        ASSERT_DBL_GE(e->duration_ms, 3000); /* the lowest threshold below */
        ASSERT_LT((int)e->kind, LW_KIND_COUNT);
        ASSERT_DBL_LE(e->at, p->now);
        break;
      default:
        LW_TEST_FAILED_("unknown event type %d", (int)e->type);
    }
  }
  lw_conditions_events_clear(&p->c);
}

/* Like a driver: run at each due time up to `target`, then move the clock there. */
static void p_advance(prop_t *p, double target) {
  for (;;) {
    double due = lw_conditions_next_due(&p->c);
    if (!(due <= target)) break;
    /* Run at every due time, the core never asks for a time already past. */
    ASSERT_DBL_GE(due, p->now);
    p->now = due;
    lw_conditions_run(&p->c, p->now);
    p_events(p);
  }
  if (target > p->now) p->now = target;
}

static void p_check_counts(prop_t *p) {
  size_t i;
  uint64_t held = 0;
  ASSERT_CONSERVATION(&p->c);
  for (i = 0; i < p->c.nnames; i++) {
    const lw_name_stats_t *ns = p->c.names[i];
    uint64_t sum = 0;
    size_t r;
    for (r = 0; r < ns->discarded_by_reason_cap; r++) sum += ns->discarded_by_reason[r];
    ASSERT_EQ(sum, ns->discarded);
  }
  ASSERT_EQ(p->c.submitted, p->submitted);
  ASSERT_EQ(p->c.recorded, p->recorded);
  ASSERT_EQ(discarded_total(&p->c), p->discarded);
  ASSERT_EQ(p->c.held_count, p->held);
  ASSERT_EQ(p->c.cancelled, p->cancelled);
  ASSERT_EQ(p->submitted, p->recorded + p->discarded + p->held + p->cancelled);
  ASSERT_EQ(stalls_total(&p->c), p->stall_events);
  for (i = 0; i < p->nval; i++) {
    lw_validator_t *v = lw_validator_get(&p->c, p->val[i].id);
    ASSERT_NOT_NULL(v);
    held += v->held;
    if (p->val[i].disposed) ASSERT_EQ(v->held, 0);
  }
  ASSERT_EQ(held, p->held);
}

static void p_add_validator(prop_t *p, const char *name, double threshold) {
  p_validator_t *v;
  GROW(p->val, p->nval, p->valcap);
  v = &p->val[p->nval];
  ASSERT_EQ(lw_validator_create(&p->c, name, strlen(name), threshold, &v->id, NULL), LW_OK);
  v->threshold = threshold;
  v->disposed = 0;
  v->name = name;
  p->nval++;
}

static void p_submit(prop_t *p) {
  p_validator_t *v = &p->val[rng_below(&p->rng, p->nval)];
  /* Mostly a live validator; sometimes a disposed one. */
  while (v->disposed && rng_chance(&p->rng, 9, 10)) v = &p->val[rng_below(&p->rng, p->nval)];
  uint64_t r = rng_below(&p->rng, 100), detail = 0;
  double value, window, ws, we = p->now;
  int rc;
  if (r < 45)
    value = p_grid(p, 0, 60);
  else if (r < 65)
    value = p_grid(p, 0, 6000);
  else
    value = p_grid(p, 5000, 5000); /* >= 5000 */
  r = rng_below(&p->rng, 100);
  if (r < 60) {
    window = value;
  } else if (r < 80 || p->niv == 0) {
    window = p_grid(p, 0, 9000);
  } else {
    /* Touch or straddle a boundary of a known interval. */
    const p_interval_t *iv = &p->iv[rng_below(&p->rng, p->niv)];
    double b = (iv->open || rng_chance(&p->rng, 1, 2)) ? iv->start : iv->end;
    window = p->now - b + (double)((int)rng_below(&p->rng, 3) - 1) / 4;
    if (!(window >= 0) || !isfinite(window)) window = 0;
  }
  ws = p->now - window;
  rc = lw_validator_submit(&p->c, v->id, value, window, p->now, &detail);
  if (v->disposed) {
    ASSERT_EQ(rc, LW_VERDICT_DISPOSED);
    return;
  }
  p->submitted++;
  switch (rc) {
    case LW_VERDICT_RECORDED:
      ASSERT_DBL_LT(value, v->threshold);
      p_check_recorded(p, ws, we);
      p->recorded++;
      break;
    case LW_VERDICT_DISCARDED:
      ASSERT_FALSE(p_own_passes(p, ws, we, value, v->threshold));
      p_check_discarded(p, ws, we, (uint32_t)detail);
      p->discarded++;
      break;
    case LW_VERDICT_HELD: {
      p_token_t *t;
      ASSERT_DBL_GE(value, v->threshold);
      /* Not discarded: nothing kept overlaps now either, or only stops whose time leaves the
       * sample an own part past the threshold (SPEC §5). */
      if (!p_own_passes(p, ws, we, value, v->threshold)) ASSERT_NULL(p_overlap(p, ws, we, LW_REASON_ANY));
      while (detail >= p->tokcap) {
        size_t old = p->tokcap;
        p->tokcap = p->tokcap ? p->tokcap * 2 : 256;
        p->tok = realloc(p->tok, p->tokcap * sizeof(*p->tok));
        ASSERT_NOT_NULL(p->tok);
        memset(p->tok + old, 0, (p->tokcap - old) * sizeof(*p->tok));
      }
      t = p_token(p, detail);
      ASSERT_EQ(t->state, TOK_FREE);
      t->ws = ws;
      t->we = we;
      t->value = value;
      t->due = p->now + p->c.cfg.hold_ms;
      t->validator = v->id;
      t->state = TOK_HELD;
      p->held++;
      break;
    }
    default:
      LW_TEST_FAILED_("submit returned %d", rc);
  }
}

static void p_set_state(prop_t *p) {
  /* Mostly visible, so that many samples are recorded and checked. */
  lw_state_t to = rng_chance(&p->rng, 3, 4) ? (lw_state_t)rng_below(&p->rng, 2)
                                             : (lw_state_t)rng_below(&p->rng, LW_STATE_COUNT);
  lw_state_t from = LW_STATE_COUNT;
  int want_hidden = to == LW_STATE_HIDDEN || to == LW_STATE_FROZEN;
  int want_frozen = to == LW_STATE_FROZEN;
  int life;
  int rc = lw_conditions_set_state(&p->c, to, p->now, &from);
  if (to == p->state) {
    ASSERT_EQ(rc, 0);
    return;
  }
  ASSERT_EQ(rc, 1);
  ASSERT_EQ(from, p->state);
  /* SPEC §3, mirrored: hidden opens before frozen; leaving closes what must close. */
  for (life = LIFE_HIDDEN; life <= LIFE_FROZEN; life++) {
    int want = life == LIFE_HIDDEN ? want_hidden : want_frozen;
    size_t i;
    p_interval_t *open = NULL;
    for (i = 0; i < p->niv; i++)
      if (p->iv[i].life == life && p->iv[i].open) open = &p->iv[i];
    if (want && open == NULL)
      p_push_interval(p, p->now, INFINITY,
                      life == LIFE_HIDDEN ? LW_REASON_HIDDEN : LW_REASON_FROZEN, 1, life, 0);
    if (!want && open != NULL) {
      open->open = 0;
      open->end = p->now;
    }
  }
  p->state = to;
}

static void p_prune(prop_t *p) {
  size_t i, j;
  for (i = 0, j = 0; i < p->niv; i++)
    if (spec_kept(p->iv[i].end, p->iv[i].open, p->c.cfg.retention_ms, p->now))
      p->iv[j++] = p->iv[i];
  p->niv = j;
}

static void p_step(prop_t *p) {
  uint64_t op = rng_below(&p->rng, 1000);
  uint32_t reason = p->reasons[rng_below(&p->rng, p->nreasons)];
  if (op < 330 || (op >= 890 && op < 995)) {
    uint64_t k = rng_below(&p->rng, 100);
    double dt = k < 20 ? 0 : k < 60 ? p_grid(p, 0, 50) : k < 97 ? p_grid(p, 0, 3000)
                                                                  : p_grid(p, 0, 30000);
    p_advance(p, p->now + dt);
  } else if (op < 750) {
    p_submit(p);
  } else if (op < 790) {
    double s = p->now - p_grid(p, 0, 12000);
    double e = s + p_grid(p, -500, 3500);
    if (rng_chance(&p->rng, 1, 10)) e = s;
    ASSERT_EQ(lw_tracker_add(&p->c.tracker, s, e, reason, p->now), LW_OK);
    if (!(e < s)) p_push_interval(p, s, e, reason, 0, LIFE_NONE, 0);
  } else if (op < 800) {
    uint64_t seq;
    size_t i, nopen = 0;
    for (i = 0; i < p->niv; i++) nopen += p->iv[i].open && p->iv[i].life == LIFE_NONE;
    if (nopen < 3) {
      ASSERT_EQ(lw_tracker_open(&p->c.tracker, reason, p->now, 1, &seq), LW_OK);
      p_push_interval(p, p->now, INFINITY, reason, 1, LIFE_NONE, seq);
    }
  } else if (op < 860) {
    size_t i, pick, nopen = 0;
    for (i = 0; i < p->niv; i++) nopen += p->iv[i].open && p->iv[i].life == LIFE_NONE;
    if (nopen > 0) {
      pick = rng_below(&p->rng, nopen);
      for (i = 0; i < p->niv; i++) {
        if (!(p->iv[i].open && p->iv[i].life == LIFE_NONE)) continue;
        if (pick-- == 0) {
          ASSERT_EQ(lw_tracker_close(&p->c.tracker, p->iv[i].seq, p->now), LW_OK);
          p->iv[i].open = 0;
          p->iv[i].end = p->now;
          break;
        }
      }
    }
  } else if (op < 890) {
    p_set_state(p);
  } else {
    p_validator_t *v = &p->val[rng_below(&p->rng, p->nval)];
    size_t t;
    int was = v->disposed;
    const char *name = v->name;
    double threshold = v->threshold;
    ASSERT_EQ(lw_validator_dispose(&p->c, v->id), LW_OK);
    v->disposed = 1;
    p_events(p);
    for (t = 1; t < p->tokcap; t++)
      if (p->tok[t].validator == v->id) ASSERT_NE(p->tok[t].state, TOK_HELD);
    /* A replacement under the same name: its stats continue. */
    if (!was) p_add_validator(p, name, threshold);
  }
  p_events(p);
  p_prune(p);
  p_check_counts(p);
}

static void property_run(uint64_t seed, double hold, double delay, double retention, int steps) {
  prop_t *p = calloc(1, sizeof(*p));
  lw_conditions_config_t cfg;
  size_t t, n;
  ASSERT_NOT_NULL(p);
  lw_conditions_config_default(&cfg);
  cfg.hold_ms = hold;
  cfg.episode_delay_ms = delay;
  cfg.retention_ms = retention;
  ASSERT_EQ(lw_conditions_init(&p->c, &cfg), LW_OK);
  p->rng.s = seed;
  p->seed = seed;
  p->state = LW_STATE_ACTIVE;
  p->now = 1000;
  p_add_validator(p, "alpha", 5000);
  p_add_validator(p, "beta", 3000);
  p_add_validator(p, "ratio", INFINITY);
  p_add_validator(p, "alpha", 5000);
  for (t = 0; t < LW_REASON_BUILTIN_COUNT; t++) p->reasons[p->nreasons++] = (uint32_t)t;
  p->reasons[p->nreasons++] = LW_REASON_HIDDEN; /* user intervals of the built-in reasons */
  ASSERT_EQ(lw_tracker_reason(&p->c.tracker, "gc", 2, &p->reasons[p->nreasons++]), LW_OK);
  ASSERT_EQ(lw_tracker_reason(&p->c.tracker, "net.io-wait", 11, &p->reasons[p->nreasons++]),
            LW_OK);

  for (p->step = 0; p->step < steps; p->step++) {
    TEST_CONTEXT("seed %" PRIu64 " hold %g delay %g retention %g step %d now %.17g", seed, hold,
                 delay, retention, p->step, p->now);
    p_step(p);
  }
  TEST_CONTEXT("seed %" PRIu64 " hold %g delay %g retention %g: final dispose", seed, hold, delay,
               retention);
  /* Dispose (SPEC §4): held samples resolved now by step 4, waiting episodes reported, nothing
   * left. */
  p->disposing = 1;
  lw_conditions_dispose(&p->c, p->now);
  p_events(p);
  for (t = 0; t < p->nval; t++) p->val[t].disposed = 1;
  p_check_counts(p);
  ASSERT_EQ(p->c.held_count, 0);
  ASSERT_DBL_EQ(lw_conditions_next_due(&p->c), LW_NEVER);
  for (t = 1; t < p->tokcap; t++) ASSERT_NE(p->tok[t].state, TOK_HELD);
  lw_conditions_run(&p->c, p->now + 1e7);
  lw_conditions_events(&p->c, &n);
  ASSERT_EQ(n, 0);
  /* LW_TEST_VERBOSE=1: what the run exercised. */
  if (getenv("LW_TEST_VERBOSE") != NULL) {
    size_t r;
    fprintf(stderr,
            "  seed %" PRIu64 ": submitted %" PRIu64 " recorded %" PRIu64 " (after a hold %" PRIu64
            ") discarded %" PRIu64 " (after a hold %" PRIu64 ") cancelled %" PRIu64
            " stalls %" PRIu64 " end %g ms\n   discarded by reason:",
            seed, p->submitted, p->recorded, p->resolved_recorded, p->discarded,
            p->resolved_discarded, p->cancelled, p->stall_events, p->now);
    for (r = 0; r < p->c.tracker.nreasons; r++)
      fprintf(stderr, " %s=%" PRIu64, lw_tracker_reason_name(&p->c.tracker, (uint32_t)r),
              lw_conditions_discarded(&p->c, (uint32_t)r));
    fprintf(stderr, "\n");
  }
  /* The run must actually have exercised both kinds of decisions. */
  ASSERT_GT(p->recorded_checked, 100);
  ASSERT_GT(p->discarded, 100);
  ASSERT_GT(p->resolved_recorded, 10);
  ASSERT_GT(p->resolved_discarded, 10);
  ASSERT_GT(p->stall_events, 0);
  /* ... and the own part of samples that overlap stops (SPEC §5) in some of the runs. */
  if (getenv("LW_TEST_VERBOSE") != NULL) fprintf(stderr, "   own parts recorded: %" PRIu64 "\n", p->own_recorded);
  ASSERT_GT(p->own_recorded, 0);
  TEST_CONTEXT("%s", "");
  lw_conditions_free(&p->c);
  free(p->iv);
  free(p->tok);
  free(p->val);
  free(p);
}

TEST_IMPL(property_conditions_default_config) {
  uint64_t seed;
  for (seed = 1; seed <= 4; seed++) property_run(seed, 2000, 2000, 120000, 6000);
  return 0;
}

TEST_IMPL(property_conditions_short_retention) {
  uint64_t seed;
  for (seed = 11; seed <= 14; seed++) property_run(seed, 2000, 2000, 4000, 6000);
  property_run(15, 750, 300, 0, 6000);
  return 0;
}

TEST_IMPL(property_conditions_zero_delays) {
  uint64_t seed;
  for (seed = 21; seed <= 23; seed++) property_run(seed, 0, 0, 120000, 6000);
  property_run(24, 0, 0, 2500, 6000);
  return 0;
}
