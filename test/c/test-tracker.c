/* The reliability tracker (SPEC §2). */
#include "core/tracker.h"
#include "helpers.h"
#include "test.h"

#define RETENTION 120000.0

/* One tracker holding one closed interval [s, e] (added at `added_at`), queried with the window
 * [ws, we] at `now`, through the reason filter and through LW_REASON_ANY. Returns whether it
 * overlaps; both queries must agree, and a hit must be the interval itself. */
static int closed_overlaps(double s, double e, double added_at, double ws, double we, double now) {
  lw_tracker_t t;
  lw_interval_t out, out2;
  int any, one;
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, s, e, LW_REASON_HIDDEN, added_at), LW_OK);
  any = lw_tracker_find(&t, ws, we, LW_REASON_ANY, now, &out);
  one = lw_tracker_find(&t, ws, we, LW_REASON_HIDDEN, now, &out2);
  ASSERT_EQ(any, one);
  ASSERT_EQ(lw_tracker_find(&t, ws, we, LW_REASON_SUSPEND, now, &out2), 0);
  if (any) {
    ASSERT_DBL_EQ(out.start, s);
    ASSERT_DBL_EQ(out.end, e);
    ASSERT_EQ(out.reason, LW_REASON_HIDDEN);
  }
  lw_tracker_free(&t);
  return any;
}

/* The same for an interval opened at `s` and still open. */
static int open_overlaps(double s, double ws, double we, double now) {
  lw_tracker_t t;
  lw_interval_t out, out2;
  uint64_t seq;
  int any, one;
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_SUSPEND, s, 1, &seq), LW_OK);
  any = lw_tracker_find(&t, ws, we, LW_REASON_ANY, now, &out);
  one = lw_tracker_find(&t, ws, we, LW_REASON_SUSPEND, now, &out2);
  ASSERT_EQ(any, one);
  if (any) {
    ASSERT_DBL_EQ(out.start, s);
    ASSERT_DBL_EQ(out.end, INFINITY);
    ASSERT_UINT64_EQ(out.seq, seq);
  }
  lw_tracker_free(&t);
  return any;
}

/* SPEC §2 table, one test per row. */

TEST_IMPL(tracker_spec_touch_before) {
  ASSERT_EQ(closed_overlaps(100, 200, 200, 50, 100, 1000), 0);
  return 0;
}

TEST_IMPL(tracker_spec_touch_after) {
  ASSERT_EQ(closed_overlaps(100, 200, 200, 200, 300, 1000), 0);
  return 0;
}

TEST_IMPL(tracker_spec_inside) {
  ASSERT_EQ(closed_overlaps(100, 200, 200, 150, 160, 1000), 1);
  return 0;
}

TEST_IMPL(tracker_spec_cover) {
  ASSERT_EQ(closed_overlaps(100, 200, 200, 0, 1000, 1000), 1);
  return 0;
}

TEST_IMPL(tracker_spec_point_inside) {
  ASSERT_EQ(closed_overlaps(150, 150, 200, 100, 200, 1000), 1);
  return 0;
}

TEST_IMPL(tracker_spec_point_at_window_edge) {
  ASSERT_EQ(closed_overlaps(150, 150, 200, 150, 200, 1000), 0);
  /* The other edge too: ws < t < we is strict on both sides. */
  ASSERT_EQ(closed_overlaps(150, 150, 200, 100, 150, 1000), 0);
  return 0;
}

TEST_IMPL(tracker_spec_open_before) {
  ASSERT_EQ(open_overlaps(100, 0, 99.9, 100), 0);
  return 0;
}

TEST_IMPL(tracker_spec_open_touch) {
  ASSERT_EQ(open_overlaps(100, 0, 100, 100), 1);
  return 0;
}

TEST_IMPL(tracker_spec_open_after) {
  ASSERT_EQ(open_overlaps(100, 500, 600, 600), 1);
  return 0;
}

TEST_IMPL(tracker_spec_add_reversed_ignored) {
  lw_tracker_t t;
  lw_interval_t out, list[4];
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 200, 100, LW_REASON_HIDDEN, 300), LW_OK);
  ASSERT_EQ(t.total, 0);
  ASSERT_EQ(lw_tracker_find(&t, 100, 200, LW_REASON_ANY, 300, &out), 0);
  ASSERT_EQ(lw_tracker_find(&t, 150, 150, LW_REASON_ANY, 300, &out), 0);
  ASSERT_EQ(lw_tracker_find(&t, -1e9, 1e9, LW_REASON_ANY, 300, &out), 0);
  ASSERT_EQ(lw_tracker_list(&t, 300, list, 4), 0);
  /* Nothing was added: the next interval is not displaced by a phantom one. */
  ASSERT_EQ(lw_tracker_add(&t, 100, 200, LW_REASON_HIDDEN, 300), LW_OK);
  ASSERT_EQ(lw_tracker_list(&t, 300, list, 4), 1);
  lw_tracker_free(&t);
  return 0;
}

TEST_IMPL(tracker_spec_retention_kept) {
  ASSERT_EQ(closed_overlaps(0, 1000, 1000, 0, 2000, 121000), 1);
  return 0;
}

TEST_IMPL(tracker_spec_retention_dropped) {
  lw_tracker_t t;
  lw_interval_t out, list[2];
  ASSERT_EQ(closed_overlaps(0, 1000, 1000, 0, 2000, 121001), 0);
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 0, 1000, LW_REASON_HIDDEN, 1000), LW_OK);
  ASSERT_EQ(lw_tracker_expire(&t, 121000), 1);
  ASSERT_EQ(lw_tracker_list(&t, 121001, list, 2), 0);
  ASSERT_EQ(lw_tracker_find(&t, 0, 2000, LW_REASON_ANY, 121001, &out), 0);
  lw_tracker_free(&t);
  return 0;
}

TEST_IMPL(tracker_close_twice_keeps_first_end) {
  lw_tracker_t t;
  lw_interval_t list[2];
  uint64_t seq;
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_PAUSE, 100, 1, &seq), LW_OK);
  ASSERT_EQ(t.open_counted, 1);
  ASSERT_EQ(lw_tracker_close(&t, seq, 200), LW_OK);
  ASSERT_EQ(t.open_counted, 0);
  ASSERT_EQ(lw_tracker_close(&t, seq, 300), LW_ENOENT);
  ASSERT_EQ(t.open_counted, 0);
  ASSERT_EQ(lw_tracker_list(&t, 300, list, 2), 1);
  ASSERT_DBL_EQ(list[0].start, 100);
  ASSERT_DBL_EQ(list[0].end, 200);
  /* Closed at 200, the interval no longer overlaps a window after it. */
  ASSERT_EQ(lw_tracker_find(&t, 200, 300, LW_REASON_ANY, 300, &list[1]), 0);
  ASSERT_EQ(lw_tracker_close(&t, seq + 1000, 300), LW_ENOENT);
  lw_tracker_free(&t);
  return 0;
}

TEST_IMPL(tracker_reason_filter) {
  lw_tracker_t t;
  lw_interval_t out;
  uint32_t gc;
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_reason(&t, "gc", 2, &gc), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 100, 200, LW_REASON_HIDDEN, 300), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 150, 250, LW_REASON_SUSPEND, 300), LW_OK);

  ASSERT_EQ(lw_tracker_find(&t, 160, 170, LW_REASON_SUSPEND, 300, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_SUSPEND);
  ASSERT_DBL_EQ(out.start, 150);
  ASSERT_EQ(lw_tracker_find(&t, 160, 170, LW_REASON_HIDDEN, 300, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_HIDDEN);
  ASSERT_EQ(lw_tracker_find(&t, 160, 170, LW_REASON_PAUSE, 300, &out), 0);
  ASSERT_EQ(lw_tracker_find(&t, 160, 170, gc, 300, &out), 0);
  ASSERT_EQ(lw_tracker_find(&t, 160, 170, 999, 300, &out), 0);
  /* Any reason: the earliest start. */
  ASSERT_EQ(lw_tracker_find(&t, 160, 170, LW_REASON_ANY, 300, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_HIDDEN);
  /* Only the suspend one reaches past 200. */
  ASSERT_EQ(lw_tracker_find(&t, 210, 220, LW_REASON_ANY, 300, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_SUSPEND);
  ASSERT_EQ(lw_tracker_find(&t, 210, 220, LW_REASON_HIDDEN, 300, &out), 0);
  /* The validator's lookup: suspend before the earlier hidden one. */
  ASSERT_EQ(lw_tracker_find_priority(&t, 160, 170, 300, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_SUSPEND);
  lw_tracker_free(&t);
  return 0;
}

TEST_IMPL(tracker_earliest_start_wins) {
  lw_tracker_t t;
  lw_interval_t out;
  uint64_t seq;
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 300, 400, LW_REASON_HIDDEN, 500), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 150, 260, LW_REASON_PAUSE, 500), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 100, 500, LW_REASON_HIDDEN, 500), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 200, 250, LW_REASON_SUSPEND, 500), LW_OK);
  ASSERT_EQ(lw_tracker_find(&t, 210, 240, LW_REASON_ANY, 500, &out), 1);
  ASSERT_DBL_EQ(out.start, 100);
  ASSERT_DBL_EQ(out.end, 500);
  ASSERT_EQ(lw_tracker_find(&t, 350, 360, LW_REASON_ANY, 500, &out), 1);
  ASSERT_DBL_EQ(out.start, 100);
  ASSERT_EQ(lw_tracker_find(&t, 350, 360, LW_REASON_HIDDEN, 500, &out), 1);
  ASSERT_DBL_EQ(out.start, 100);
  /* Within one bucket, an early-starting short interval before a later long one. */
  ASSERT_EQ(lw_tracker_add(&t, 50, 120, LW_REASON_HIDDEN, 500), LW_OK);
  ASSERT_EQ(lw_tracker_find(&t, 110, 450, LW_REASON_HIDDEN, 500, &out), 1);
  ASSERT_DBL_EQ(out.start, 50);
  ASSERT_EQ(lw_tracker_find(&t, 120, 450, LW_REASON_HIDDEN, 500, &out), 1);
  ASSERT_DBL_EQ(out.start, 100);
  lw_tracker_free(&t);

  /* Ties on start: the earliest added wins, across reasons, within a reason, open or closed. */
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 100, 300, LW_REASON_THROTTLED, 100), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 100, 400, LW_REASON_HIDDEN, 100), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 100, 200, LW_REASON_THROTTLED, 100), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 100, 1, &seq), LW_OK);
  ASSERT_EQ(lw_tracker_find(&t, 150, 160, LW_REASON_ANY, 100, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_THROTTLED);
  ASSERT_DBL_EQ(out.end, 300);
  ASSERT_EQ(lw_tracker_find(&t, 150, 160, LW_REASON_THROTTLED, 100, &out), 1);
  ASSERT_DBL_EQ(out.end, 300);
  ASSERT_EQ(lw_tracker_find(&t, 150, 160, LW_REASON_HIDDEN, 100, &out), 1);
  ASSERT_DBL_EQ(out.end, 400);
  /* Past 300, the hidden [100, 400] added second. */
  ASSERT_EQ(lw_tracker_find(&t, 350, 360, LW_REASON_ANY, 100, &out), 1);
  ASSERT_EQ(out.reason, LW_REASON_HIDDEN);
  ASSERT_DBL_EQ(out.end, 400);
  /* Past 400, the open one. */
  ASSERT_EQ(lw_tracker_find(&t, 450, 460, LW_REASON_ANY, 100, &out), 1);
  ASSERT_UINT64_EQ(out.seq, seq);
  lw_tracker_free(&t);

  /* An open interval added before a closed one with the same start wins. */
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 100, 0, &seq), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 100, 200, LW_REASON_HIDDEN, 100), LW_OK);
  ASSERT_EQ(lw_tracker_find(&t, 150, 160, LW_REASON_ANY, 100, &out), 1);
  ASSERT_UINT64_EQ(out.seq, seq);
  ASSERT_EQ(lw_tracker_find(&t, 150, 160, LW_REASON_HIDDEN, 100, &out), 1);
  ASSERT_UINT64_EQ(out.seq, seq);
  lw_tracker_free(&t);
  return 0;
}

TEST_IMPL(tracker_open_limit) {
  lw_tracker_t t;
  uint64_t *seqs, seq, extra;
  size_t i;
  seqs = malloc(LW_OPEN_MAX * sizeof(*seqs));
  ASSERT_NOT_NULL(seqs);
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  for (i = 0; i < LW_OPEN_MAX; i++)
    ASSERT_EQ(lw_tracker_open(&t, (uint32_t)(i % LW_REASON_BUILTIN_COUNT), (double)i, 1, &seqs[i]),
              LW_OK);
  ASSERT_EQ(t.open_counted, LW_OPEN_MAX);
  ASSERT_EQ(t.total, LW_OPEN_MAX);
  seq = 12345;
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 20000, 1, &seq), LW_ELIMIT);
  ASSERT_UINT64_EQ(seq, 12345);
  ASSERT_EQ(t.total, LW_OPEN_MAX);
  /* Uncounted ones (the lifecycle's) are not limited. */
  for (i = 0; i < 100; i++) ASSERT_EQ(lw_tracker_open(&t, LW_REASON_FROZEN, 20000, 0, &extra), LW_OK);
  ASSERT_EQ(t.total, LW_OPEN_MAX + 100);
  ASSERT_EQ(t.open_counted, LW_OPEN_MAX);
  /* Closing an uncounted one frees no counted slot. */
  ASSERT_EQ(lw_tracker_close(&t, extra, 20001), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 20001, 1, &seq), LW_ELIMIT);
  /* Closing a counted one does, once. */
  ASSERT_EQ(lw_tracker_close(&t, seqs[7], 20002), LW_OK);
  ASSERT_EQ(lw_tracker_close(&t, seqs[7], 20003), LW_ENOENT);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 20004, 1, &seq), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 20004, 1, &seq), LW_ELIMIT);
  ASSERT_EQ(t.open_counted, LW_OPEN_MAX);
  lw_tracker_free(&t);
  free(seqs);
  return 0;
}

TEST_IMPL(tracker_reason_valid) {
  char buf[80];
  int c;
  memset(buf, 'a', sizeof(buf));
  ASSERT_EQ(lw_reason_valid("", 0), 0);
  ASSERT_EQ(lw_reason_valid(buf, 1), 1);
  ASSERT_EQ(lw_reason_valid(buf, 64), 1);
  ASSERT_EQ(lw_reason_valid(buf, 65), 0);
  ASSERT_EQ(lw_reason_valid("Hidden", 6), 0);
  ASSERT_EQ(lw_reason_valid("hiddeN", 6), 0);
  ASSERT_EQ(lw_reason_valid("a b", 3), 0);
  ASSERT_EQ(lw_reason_valid(" a", 2), 0);
  ASSERT_EQ(lw_reason_valid("a\0b", 3), 0);
  ASSERT_EQ(lw_reason_valid("gc.minor-pause_2", 16), 1);
  /* Every byte, alone and after a valid character. */
  for (c = 0; c < 256; c++) {
    int want = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    TEST_CONTEXT("byte %d", c);
    buf[0] = (char)c;
    ASSERT_EQ(lw_reason_valid(buf, 1), want);
    buf[0] = 'x';
    buf[1] = (char)c;
    ASSERT_EQ(lw_reason_valid(buf, 2), want);
    buf[1] = 'a';
  }
  TEST_CONTEXT("%s", "");
  return 0;
}

TEST_IMPL(tracker_reason_intern) {
  lw_tracker_t t;
  uint32_t id, first = 0, again;
  char name[16];
  int i, n;
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  /* Built-ins have their fixed ids. */
  ASSERT_EQ(lw_tracker_reason_find(&t, "hidden", 6), LW_REASON_HIDDEN);
  ASSERT_EQ(lw_tracker_reason_find(&t, "frozen", 6), LW_REASON_FROZEN);
  ASSERT_EQ(lw_tracker_reason_find(&t, "suspend", 7), LW_REASON_SUSPEND);
  ASSERT_EQ(lw_tracker_reason_find(&t, "pause", 5), LW_REASON_PAUSE);
  ASSERT_EQ(lw_tracker_reason_find(&t, "throttled", 9), LW_REASON_THROTTLED);
  ASSERT_EQ(lw_tracker_reason_find(&t, "hid", 3), LW_REASON_ANY);
  ASSERT_EQ(lw_tracker_reason_find(&t, "hiddenx", 7), LW_REASON_ANY);
  ASSERT_EQ(lw_tracker_reason(&t, "suspend", 7, &id), LW_OK);
  ASSERT_EQ(id, LW_REASON_SUSPEND);
  ASSERT_STR_EQ(lw_tracker_reason_name(&t, LW_REASON_PAUSE), "pause");
  /* Invalid names are refused. */
  ASSERT_EQ(lw_tracker_reason(&t, "Bad", 3, &id), LW_EINVAL);
  ASSERT_EQ(lw_tracker_reason(&t, "", 0, &id), LW_EINVAL);
  ASSERT_EQ(t.nreasons, LW_REASON_BUILTIN_COUNT);
  /* Up to LW_REASONS_MAX distinct reasons, built-ins included. */
  n = LW_REASONS_MAX - LW_REASON_BUILTIN_COUNT;
  for (i = 0; i < n; i++) {
    int len = snprintf(name, sizeof(name), "r%d", i);
    TEST_CONTEXT("reason %s", name);
    ASSERT_EQ(lw_tracker_reason(&t, name, (size_t)len, &id), LW_OK);
    ASSERT_EQ(id, LW_REASON_BUILTIN_COUNT + i);
    if (i == 0) first = id;
  }
  TEST_CONTEXT("%s", "");
  ASSERT_EQ(t.nreasons, LW_REASONS_MAX);
  ASSERT_EQ(lw_tracker_reason(&t, "one-more", 8, &id), LW_ELIMIT);
  ASSERT_EQ(lw_tracker_reason_find(&t, "one-more", 8), LW_REASON_ANY);
  /* Known ones still resolve. */
  ASSERT_EQ(lw_tracker_reason(&t, "r0", 2, &again), LW_OK);
  ASSERT_EQ(again, first);
  ASSERT_STR_EQ(lw_tracker_reason_name(&t, first), "r0");
  ASSERT_NULL(lw_tracker_reason_name(&t, LW_REASONS_MAX));
  /* Every interned reason can hold intervals. */
  ASSERT_EQ(lw_tracker_add(&t, 1, 2, LW_REASONS_MAX - 1, 3), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 1, 2, LW_REASONS_MAX, 3), LW_EINVAL);
  lw_tracker_free(&t);
  return 0;
}

TEST_IMPL(tracker_expiry_open_stays) {
  lw_tracker_t t;
  lw_interval_t list[8], out;
  uint64_t a, c;
  ASSERT_EQ(lw_tracker_init(&t, 1000), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_HIDDEN, 0, 1, &a), LW_OK);
  ASSERT_EQ(lw_tracker_add(&t, 0, 100, LW_REASON_SUSPEND, 0), LW_OK);
  ASSERT_EQ(lw_tracker_open(&t, LW_REASON_PAUSE, 50, 1, &c), LW_OK);
  ASSERT_EQ(lw_tracker_close(&t, c, 200), LW_OK);
  ASSERT_EQ(lw_tracker_expire(&t, 1100), 3);
  ASSERT_EQ(lw_tracker_expire(&t, 1101), 2);
  ASSERT_EQ(lw_tracker_find(&t, 10, 20, LW_REASON_SUSPEND, 1101, &out), 0);
  ASSERT_EQ(lw_tracker_find(&t, 60, 70, LW_REASON_PAUSE, 1200, &out), 1);
  ASSERT_EQ(lw_tracker_find(&t, 60, 70, LW_REASON_PAUSE, 1201, &out), 0);
  ASSERT_EQ(lw_tracker_list(&t, 1201, list, 8), 1);
  ASSERT_UINT64_EQ(list[0].seq, a);
  /* The open one stays however late. */
  ASSERT_EQ(lw_tracker_list(&t, 1e9, list, 8), 1);
  ASSERT_EQ(lw_tracker_find(&t, 10, 20, LW_REASON_ANY, 1e9, &out), 1);
  ASSERT_UINT64_EQ(out.seq, a);
  /* Once closed it follows the rule of closed intervals. */
  ASSERT_EQ(lw_tracker_close(&t, a, 1e9), LW_OK);
  ASSERT_EQ(lw_tracker_expire(&t, 1e9 + 1000), 1);
  ASSERT_EQ(lw_tracker_expire(&t, 1e9 + 1001), 0);
  /* An interval added after its retention is dropped at once. */
  ASSERT_EQ(lw_tracker_add(&t, 0, 10, LW_REASON_HIDDEN, 1e9 + 2000), LW_OK);
  ASSERT_EQ(lw_tracker_list(&t, 1e9 + 2000, list, 8), 0);
  lw_tracker_free(&t);
  return 0;
}

static int interval_before(const lw_interval_t *a, const lw_interval_t *b) {
  return a->start < b->start || (a->start == b->start && a->seq < b->seq);
}

TEST_IMPL(tracker_list_sorted) {
  enum { N = 500 };
  lw_tracker_t t;
  lw_interval_t *list;
  lw_rng_t rng = {42};
  uint64_t seq;
  size_t i, n, opened = 0;
  list = malloc(N * sizeof(*list));
  ASSERT_NOT_NULL(list);
  ASSERT_EQ(lw_tracker_init(&t, RETENTION), LW_OK);
  for (i = 0; i < N; i++) {
    double s = (double)rng_below(&rng, 50);
    uint32_t r = (uint32_t)rng_below(&rng, LW_REASON_BUILTIN_COUNT);
    if (rng_chance(&rng, 1, 5)) {
      ASSERT_EQ(lw_tracker_open(&t, r, s, 1, &seq), LW_OK);
      opened++;
    } else {
      ASSERT_EQ(lw_tracker_add(&t, s, s + (double)rng_below(&rng, 30), r, 100), LW_OK);
    }
  }
  n = lw_tracker_list(&t, 100, list, N);
  ASSERT_EQ(n, N);
  for (i = 1; i < n; i++) {
    TEST_CONTEXT("index %zu", i);
    ASSERT_TRUE(interval_before(&list[i - 1], &list[i]));
  }
  TEST_CONTEXT("%s", "");
  for (i = 0, n = 0; i < N; i++) n += list[i].end == INFINITY;
  ASSERT_EQ(n, opened);
  lw_tracker_free(&t);
  free(list);
  return 0;
}

/* Randomized cross-check of the binary-search index against a brute-force list of every interval
 * ever added or opened, evaluated with the SPEC §2 rules literally. */

typedef struct {
  double start;
  double end;
  uint32_t reason;
  int open;
  uint64_t seq;
} bf_interval_t;

typedef struct {
  bf_interval_t *items;
  size_t len;
  size_t cap;
  uint64_t next_seq;
} bf_list_t;

static void bf_push(bf_list_t *l, double s, double e, uint32_t reason, int open) {
  if (l->len == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->items = realloc(l->items, l->cap * sizeof(*l->items));
    ASSERT_NOT_NULL(l->items);
  }
  l->items[l->len].start = s;
  l->items[l->len].end = e;
  l->items[l->len].reason = reason;
  l->items[l->len].open = open;
  l->items[l->len].seq = l->next_seq++;
  l->len++;
}

/* The first (earliest start, then earliest added) kept interval overlapping [ws, we], or NULL. */
static const bf_interval_t *bf_find(const bf_list_t *l, double ws, double we, uint32_t reason,
                                    double retention, double now) {
  const bf_interval_t *best = NULL;
  size_t i;
  for (i = 0; i < l->len; i++) {
    const bf_interval_t *iv = &l->items[i];
    if (reason != LW_REASON_ANY && iv->reason != reason) continue;
    if (!spec_kept(iv->end, iv->open, retention, now)) continue;
    if (!spec_overlaps(iv->start, iv->end, iv->open, ws, we)) continue;
    if (best == NULL || iv->start < best->start || (iv->start == best->start && iv->seq < best->seq))
      best = iv;
  }
  return best;
}

static size_t bf_kept(const bf_list_t *l, double retention, double now) {
  size_t i, n = 0;
  for (i = 0; i < l->len; i++) n += spec_kept(l->items[i].end, l->items[i].open, retention, now);
  return n;
}

/* A time on a grid of 0.5 ms, so that ties and touching ends are frequent and exact. */
static double grid(lw_rng_t *rng, double lo, double span) {
  return lo + (double)rng_below(rng, (uint64_t)(span * 2) + 1) / 2;
}

static void check_find(lw_tracker_t *t, const bf_list_t *bf, double ws, double we, uint32_t reason,
                       double now) {
  lw_interval_t out;
  const bf_interval_t *want = bf_find(bf, ws, we, reason, t->retention_ms, now);
  int got = lw_tracker_find(t, ws, we, reason, now, &out);
  ASSERT_EQ(got, want != NULL);
  if (want == NULL) return;
  ASSERT_UINT64_EQ(out.seq, want->seq);
  ASSERT_DBL_EQ(out.start, want->start);
  ASSERT_DBL_EQ(out.end, want->open ? INFINITY : want->end);
  ASSERT_EQ(out.reason, want->reason);
}

static void check_priority(lw_tracker_t *t, const bf_list_t *bf, double ws, double we, double now) {
  lw_interval_t out;
  const bf_interval_t *want = bf_find(bf, ws, we, LW_REASON_SUSPEND, t->retention_ms, now);
  if (want == NULL) want = bf_find(bf, ws, we, LW_REASON_PAUSE, t->retention_ms, now);
  if (want == NULL) want = bf_find(bf, ws, we, LW_REASON_ANY, t->retention_ms, now);
  ASSERT_EQ(lw_tracker_find_priority(t, ws, we, now, &out), want != NULL);
  if (want != NULL) ASSERT_UINT64_EQ(out.seq, want->seq);
}

static void crosscheck_run(uint64_t seed, double retention, int steps) {
  lw_tracker_t t;
  bf_list_t bf = {NULL, 0, 0, 1};
  lw_rng_t rng = {seed};
  lw_interval_t *list = NULL;
  uint32_t reasons[LW_REASON_BUILTIN_COUNT + 2];
  double now = 0;
  int step;
  size_t i, nr = 0;

  ASSERT_EQ(lw_tracker_init(&t, retention), LW_OK);
  for (i = 0; i < LW_REASON_BUILTIN_COUNT; i++) reasons[nr++] = (uint32_t)i;
  ASSERT_EQ(lw_tracker_reason(&t, "gc", 2, &reasons[nr++]), LW_OK);
  ASSERT_EQ(lw_tracker_reason(&t, "net.io-wait", 11, &reasons[nr++]), LW_OK);

  for (step = 0; step < steps; step++) {
    uint64_t op = rng_below(&rng, 100);
    uint32_t reason = reasons[rng_below(&rng, nr)];
    TEST_CONTEXT("seed %" PRIu64 " retention %g step %d op %" PRIu64 " now %g", seed, retention,
                 step, op, now);
    if (rng_chance(&rng, 1, 3)) now += (double)rng_below(&rng, 7) / 2;
    if (op < 25) {
      /* add: reversed (ignored), zero-length, past (maybe already expired) or future */
      double s = grid(&rng, now - 80, 90);
      double e = s + grid(&rng, -5, 45);
      if (rng_chance(&rng, 1, 8)) e = s;
      ASSERT_EQ(lw_tracker_add(&t, s, e, reason, now), LW_OK);
      if (!(e < s)) bf_push(&bf, s, e, reason, 0);
    } else if (op < 35) {
      uint64_t seq;
      ASSERT_EQ(lw_tracker_open(&t, reason, now, (int)rng_below(&rng, 2), &seq), LW_OK);
      ASSERT_UINT64_EQ(seq, bf.next_seq);
      bf_push(&bf, now, INFINITY, reason, 1);
    } else if (op < 45 && bf.len > 0) {
      /* close: mostly open ones, sometimes closed or dropped ones */
      bf_interval_t *iv = &bf.items[rng_below(&rng, bf.len)];
      int rc = lw_tracker_close(&t, iv->seq, now);
      if (iv->open) {
        ASSERT_EQ(rc, LW_OK);
        iv->open = 0;
        iv->end = now;
      } else {
        ASSERT_EQ(rc, LW_ENOENT);
      }
    } else if (op < 95) {
      double ws = grid(&rng, now - 100, 110);
      double we = ws + grid(&rng, 0, 40);
      if (rng_chance(&rng, 1, 10)) we = ws;
      if (rng_chance(&rng, 1, 2) || bf.len == 0) {
        check_find(&t, &bf, ws, we, LW_REASON_ANY, now);
      } else {
        check_find(&t, &bf, ws, we, reason, now);
      }
      check_priority(&t, &bf, ws, we, now);
    } else {
      size_t n, k = bf_kept(&bf, retention, now);
      list = realloc(list, (k + 1) * sizeof(*list));
      ASSERT_NOT_NULL(list);
      n = lw_tracker_list(&t, now, list, k + 1);
      ASSERT_EQ(n, k);
      for (i = 1; i < n; i++) ASSERT_TRUE(interval_before(&list[i - 1], &list[i]));
    }
    ASSERT_EQ(lw_tracker_expire(&t, now), bf_kept(&bf, retention, now));
  }
  TEST_CONTEXT("%s", "");
  free(list);
  free(bf.items);
  lw_tracker_free(&t);
}

TEST_IMPL(tracker_random_crosscheck) {
  uint64_t seed;
  for (seed = 1; seed <= 6; seed++) crosscheck_run(seed, 60, 4000);
  crosscheck_run(7, 0, 4000);
  crosscheck_run(8, 1e6, 3000);
  return 0;
}
