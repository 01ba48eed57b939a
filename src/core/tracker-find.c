/* The tracker's queries (tracker.h): which kept interval a window overlaps, by reason, by the
 * reasons' priority or any other than a given one, and the list of every kept interval. */
#include "tracker.h"

#include <stddef.h>
#include <stdlib.h>

/* A stored interval is kept (visible) while now <= end + retention. */
static int alive(const lw_tracker_t *t, const lw_interval_t *iv, double now) {
  return !(now > iv->end + t->retention_ms);
}

/* Index of the first kept interval of a bucket overlapping [ws, we], or -1. */
static ptrdiff_t bucket_find(const lw_tracker_t *t, const lw__bucket_t *b, double ws, double we,
                             double now) {
  size_t lo = 0, hi = b->len, i;
  if (b->len == 0 || !(b->maxend[b->len - 1] > ws)) return -1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->maxend[mid] > ws)
      hi = mid;
    else
      lo = mid + 1;
  }
  /* items[lo] is the first whose end passes ws. Later ones can only match when it starts at
   * exactly `we` and a later open interval starts there too (open intervals include `we`). */
  for (i = lo; i < b->len && b->items[i].start <= we; i++) {
    const lw_interval_t *iv = &b->items[i];
    if (!(iv->end > ws) || !alive(t, iv, now)) continue;
    if (iv->start < we || (iv->end == INFINITY && iv->start <= we)) return (ptrdiff_t)i;
  }
  return -1;
}

static int earlier(const lw_interval_t *a, const lw_interval_t *b) {
  return a->start < b->start || (a->start == b->start && a->seq < b->seq);
}

int lw_tracker_find(lw_tracker_t *t, double ws, double we, uint32_t reason, double now,
                    lw_interval_t *out) {
  size_t r;
  int found = 0;
  if (t->total == 0) return 0;
  if (reason != LW_REASON_ANY) {
    ptrdiff_t i;
    if (reason >= t->nreasons) return 0;
    i = bucket_find(t, &t->buckets[reason], ws, we, now);
    if (i < 0) return 0;
    *out = t->buckets[reason].items[i];
    return 1;
  }
  for (r = 0; r < t->nreasons; r++) {
    ptrdiff_t i = bucket_find(t, &t->buckets[r], ws, we, now);
    if (i < 0) continue;
    if (!found || earlier(&t->buckets[r].items[i], out)) *out = t->buckets[r].items[i];
    found = 1;
  }
  return found;
}

int lw_tracker_find_priority(lw_tracker_t *t, double ws, double we, double now,
                             lw_interval_t *out) {
  uint32_t r;
  if (t->total == 0) return 0;
  for (r = 0; r < LW_REASON_BUILTIN_COUNT; r++) {
    if (lw_reasons[r].first && lw_tracker_find(t, ws, we, r, now, out)) return 1;
  }
  return lw_tracker_find(t, ws, we, LW_REASON_ANY, now, out);
}

/* The union of the kept full-weight intervals of `reasons` inside [ws, we] (weighted ones are
 * skipped when `weighted` is 0, taken alone when 1). */
static double covered_pass(lw_tracker_t *t, double ws, double we, const uint32_t *reasons, size_t n,
                           double now, int weighted) {
  size_t pos[LW_REASON_BUILTIN_COUNT], len[LW_REASON_BUILTIN_COUNT], k;
  const lw__bucket_t *b[LW_REASON_BUILTIN_COUNT];
  double total = 0, cs = 0, ce = -INFINITY;
  for (k = 0; k < n; k++) {
    ptrdiff_t i = reasons[k] < t->nreasons ? bucket_find(t, &t->buckets[reasons[k]], ws, we, now) : -1;
    b[k] = i < 0 ? NULL : &t->buckets[reasons[k]];
    pos[k] = i < 0 ? 0 : (size_t)i;
    len[k] = i < 0 ? 0 : b[k]->len;
  }
  /* The buckets are sorted by start: merged in that order, the clipped intervals make runs. */
  for (;;) {
    const lw_interval_t *iv = NULL;
    size_t best = 0;
    double s, e;
    for (k = 0; k < n; k++) {
      if (pos[k] >= len[k] || !(b[k]->items[pos[k]].start < we)) continue;
      if (iv == NULL || b[k]->items[pos[k]].start < iv->start) {
        iv = &b[k]->items[pos[k]];
        best = k;
      }
    }
    if (iv == NULL) break;
    pos[best]++;
    if (!(iv->end > ws) || !alive(t, iv, now)) continue;
    s = iv->start > ws ? iv->start : ws;
    e = iv->end < we ? iv->end : we;
    if (!(e > s)) continue;
    if (weighted) {
      double own, full;
      if (isnan(iv->weight)) continue;
      /* What the full ones leave of it, up to what its weight has left once theirs (the same
       * stop, seen by a thread that ran at its edges) is taken out. */
      full = covered_pass(t, iv->start, iv->end, reasons, n, now, 0);
      own = (e - s) - covered_pass(t, s, e, reasons, n, now, 0);
      if (own > iv->weight - full) own = iv->weight - full;
      if (own > 0) total += own;
      continue;
    }
    if (!isnan(iv->weight)) continue;
    if (s > ce) {
      if (ce > -INFINITY) total += ce - cs;
      cs = s;
      ce = e;
    } else if (e > ce) {
      ce = e;
    }
  }
  if (ce > -INFINITY) total += ce - cs;
  return total;
}

double lw_tracker_covered(lw_tracker_t *t, double ws, double we, const uint32_t *reasons, size_t n,
                          double now) {
  if (n > LW_REASON_BUILTIN_COUNT) n = LW_REASON_BUILTIN_COUNT;
  return covered_pass(t, ws, we, reasons, n, now, 0) + covered_pass(t, ws, we, reasons, n, now, 1);
}

int lw_tracker_find_other(lw_tracker_t *t, double ws, double we, double now, lw_interval_t *out) {
  size_t r;
  int found = 0;
  for (r = 0; r < t->nreasons; r++) {
    ptrdiff_t i;
    if (lw_reason_is_stop((uint32_t)r)) continue;
    i = bucket_find(t, &t->buckets[r], ws, we, now);
    if (i < 0) continue;
    if (!found || earlier(&t->buckets[r].items[i], out)) *out = t->buckets[r].items[i];
    found = 1;
  }
  return found;
}

static int cmp_interval(const void *pa, const void *pb) {
  const lw_interval_t *a = pa, *b = pb;
  if (earlier(a, b)) return -1;
  if (earlier(b, a)) return 1;
  return 0;
}

size_t lw_tracker_list(lw_tracker_t *t, double now, lw_interval_t *out, size_t max) {
  size_t r, i, n = 0;
  lw_tracker_expire(t, now);
  for (r = 0; r < t->nreasons; r++) {
    const lw__bucket_t *b = &t->buckets[r];
    for (i = 0; i < b->len && n < max; i++) out[n++] = b->items[i];
  }
  qsort(out, n, sizeof(*out), cmp_interval);
  return t->total;
}
