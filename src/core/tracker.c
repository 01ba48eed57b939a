/* The reliability tracker (SPEC §2): its reasons, and its intervals stored, opened, closed and
 * expired; tracker-find.c answers which of them a window overlaps. */
#include "tracker.h"

#include <stdlib.h>
#include <string.h>

int lw_tracker_init(lw_tracker_t *t, double retention_ms) {
  uint32_t id;
  int i;
  memset(t, 0, sizeof(*t));
  t->retention_ms = retention_ms;
  t->min_closed_end = INFINITY;
  t->next_seq = 1;
  for (i = 0; i < LW_REASON_BUILTIN_COUNT; i++) {
    if (lw_tracker_reason(t, lw_reasons[i].name, strlen(lw_reasons[i].name), &id) != LW_OK) {
      lw_tracker_free(t);
      return LW_ENOMEM;
    }
  }
  return LW_OK;
}

void lw_tracker_free(lw_tracker_t *t) {
  size_t i;
  for (i = 0; i < t->nreasons; i++) {
    lw__free(t->buckets[i].items);
    lw__free(t->buckets[i].maxend);
  }
  lw__free(t->buckets);
  lw__free(t->names);
  memset(t, 0, sizeof(*t));
}

uint32_t lw_tracker_reason_find(const lw_tracker_t *t, const char *name, size_t len) {
  size_t i;
  if (len > LW_REASON_MAX_LEN) return LW_REASON_UNSEEN;
  for (i = 0; i < t->nreasons; i++) {
    if (strncmp(t->names[i], name, len) == 0 && t->names[i][len] == '\0') return (uint32_t)i;
  }
  return LW_REASON_UNSEEN;
}

int lw_tracker_reason(lw_tracker_t *t, const char *name, size_t len, uint32_t *id) {
  uint32_t found = lw_tracker_reason_find(t, name, len);
  size_t cap;
  if (found != LW_REASON_UNSEEN) {
    *id = found;
    return LW_OK;
  }
  if (!lw_reason_valid(name, len)) return LW_EINVAL;
  if (t->nreasons >= LW_REASONS_MAX) return LW_ELIMIT;
  /* Both arrays grow to the same capacity; the second grow may fail after the first. */
  cap = t->reasons_cap;
  if (lw__grow((void **)&t->names, &cap, t->nreasons + 1, sizeof(*t->names)) != LW_OK)
    return LW_ENOMEM;
  cap = t->reasons_cap;
  if (lw__grow((void **)&t->buckets, &cap, t->nreasons + 1, sizeof(*t->buckets)) != LW_OK)
    return LW_ENOMEM;
  t->reasons_cap = cap;
  memcpy(t->names[t->nreasons], name, len);
  t->names[t->nreasons][len] = '\0';
  memset(&t->buckets[t->nreasons], 0, sizeof(lw__bucket_t));
  *id = (uint32_t)t->nreasons++;
  return LW_OK;
}

const char *lw_tracker_reason_name(const lw_tracker_t *t, uint32_t id) {
  return id < t->nreasons ? t->names[id] : NULL;
}

/* Recomputes the running maximum of end from index `from` on. */
static void bucket_fix_maxend(lw__bucket_t *b, size_t from) {
  size_t i;
  double m = from > 0 ? b->maxend[from - 1] : -INFINITY;
  for (i = from; i < b->len; i++) {
    if (b->items[i].end > m) m = b->items[i].end;
    b->maxend[i] = m;
  }
}

static int bucket_insert(lw__bucket_t *b, const lw_interval_t *iv) {
  size_t lo = 0, hi = b->len, cap = b->cap;
  if (lw__grow((void **)&b->items, &cap, b->len + 1, sizeof(*b->items)) != LW_OK) return LW_ENOMEM;
  cap = b->cap;
  if (lw__grow((void **)&b->maxend, &cap, b->len + 1, sizeof(*b->maxend)) != LW_OK)
    return LW_ENOMEM;
  b->cap = cap;
  /* Upper bound on start: equal starts stay in order of addition. */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->items[mid].start <= iv->start)
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(&b->items[lo + 1], &b->items[lo], (b->len - lo) * sizeof(*b->items));
  b->items[lo] = *iv;
  b->len++;
  bucket_fix_maxend(b, lo);
  return LW_OK;
}

static void tracker_recompute_min_end(lw_tracker_t *t) {
  size_t r, i;
  double m = INFINITY;
  for (r = 0; r < t->nreasons; r++) {
    const lw__bucket_t *b = &t->buckets[r];
    for (i = 0; i < b->len; i++)
      if (b->items[i].end < m) m = b->items[i].end;
  }
  t->min_closed_end = m;
}

size_t lw_tracker_expire(lw_tracker_t *t, double now) {
  size_t r, i, j;
  if (!(now > t->min_closed_end + t->retention_ms)) return t->total;
  for (r = 0; r < t->nreasons; r++) {
    lw__bucket_t *b = &t->buckets[r];
    size_t first = b->len;
    for (i = 0, j = 0; i < b->len; i++) {
      if (now > b->items[i].end + t->retention_ms) {
        if (first == b->len) first = j;
        continue;
      }
      b->items[j++] = b->items[i];
    }
    t->total -= b->len - j;
    b->len = j;
    if (first < b->len) bucket_fix_maxend(b, first);
  }
  tracker_recompute_min_end(t);
  return t->total;
}

/* Mutations drop expired intervals in batches: a pass costs O(kept), so it runs only once the
 * earliest end is past its retention by an eighth of the retention. Until then an expired
 * interval may still be stored, but no query sees it (see alive()), and lw_tracker_expire(),
 * which the counts and lists call, is exact. Memory stays within 9/8 of the retention. */
static void expire_some(lw_tracker_t *t, double now) {
  if (now > t->min_closed_end + t->retention_ms * 1.125) lw_tracker_expire(t, now);
}

int lw_tracker_open(lw_tracker_t *t, uint32_t reason, double now, int counted, uint64_t *seq) {
  lw_interval_t iv;
  int rc;
  if (reason >= t->nreasons) return LW_EINVAL;
  if (counted && t->open_counted >= LW_OPEN_MAX) return LW_ELIMIT;
  expire_some(t, now);
  iv.start = now;
  iv.end = INFINITY;
  iv.seq = t->next_seq;
  iv.reason = reason;
  iv.counted = counted ? 1 : 0;
  iv.weight = NAN;
  rc = bucket_insert(&t->buckets[reason], &iv);
  if (rc != LW_OK) return rc;
  t->next_seq++;
  t->total++;
  if (counted) t->open_counted++;
  *seq = iv.seq;
  return LW_OK;
}

/* Interns a reason given by a caller, refusing a bad one or one too many. */
static int reason_checked(lw_tracker_t *t, const char *name, size_t len, uint32_t *rid,
                          lw_err_t *err) {
  int rc;
  if (!lw_reason_valid(name, len))
    return lw__refuse(err, LW_EINVAL, "reason", "1 to 64 characters of [a-z0-9_.-]");
  rc = lw_tracker_reason(t, name, len, rid);
  if (rc == LW_ELIMIT) return lw__refuse(err, LW_ELIMIT, "reason", "one of at most 1024 reasons");
  return rc;
}

int lw_tracker_open_reason(lw_tracker_t *t, const char *name, size_t len, double now,
                           uint64_t *seq, lw_err_t *err) {
  uint32_t rid;
  int rc;
  if (!lw_reason_valid(name, len))
    return lw__refuse(err, LW_EINVAL, "reason", "1 to 64 characters of [a-z0-9_.-]");
  if (t->open_counted >= LW_OPEN_MAX)
    return lw__refuse(err, LW_ELIMIT, "open", "at most 10000 intervals open at once");
  rc = reason_checked(t, name, len, &rid, err);
  if (rc != LW_OK) return rc;
  return lw_tracker_open(t, rid, now, 1, seq);
}

int lw_tracker_add_reason(lw_tracker_t *t, const char *name, size_t len, double start,
                          double end, double now, lw_err_t *err) {
  uint32_t rid;
  int rc;
  if (!isfinite(start)) return lw__refuse(err, LW_EINVAL, "start", "a finite number");
  if (!isfinite(end)) return lw__refuse(err, LW_EINVAL, "end", "a finite number");
  if (!lw_reason_valid(name, len))
    return lw__refuse(err, LW_EINVAL, "reason", "1 to 64 characters of [a-z0-9_.-]");
  if (end < start) return LW_OK; /* ignored, and nothing interned */
  rc = reason_checked(t, name, len, &rid, err);
  if (rc != LW_OK) return rc;
  return lw_tracker_add(t, start, end, rid, now);
}

int lw_tracker_close(lw_tracker_t *t, uint64_t seq, double now) {
  size_t r, i;
  for (r = 0; r < t->nreasons; r++) {
    lw__bucket_t *b = &t->buckets[r];
    for (i = 0; i < b->len; i++) {
      lw_interval_t *iv = &b->items[i];
      if (iv->seq != seq) continue;
      if (iv->end != INFINITY) return LW_ENOENT;
      iv->end = now < iv->start ? iv->start : now;
      if (iv->counted) t->open_counted--;
      bucket_fix_maxend(b, i);
      if (iv->end < t->min_closed_end) t->min_closed_end = iv->end;
      expire_some(t, now);
      return LW_OK;
    }
  }
  return LW_ENOENT;
}

int lw_tracker_add(lw_tracker_t *t, double start, double end, uint32_t reason, double now) {
  return lw_tracker_add_weighted(t, start, end, reason, NAN, now);
}

int lw_tracker_add_weighted(lw_tracker_t *t, double start, double end, uint32_t reason,
                            double weight, double now) {
  lw_interval_t iv;
  int rc;
  if (reason >= t->nreasons) return LW_EINVAL;
  expire_some(t, now);
  if (end < start) return LW_OK;
  iv.start = start;
  iv.end = end;
  iv.seq = t->next_seq;
  iv.reason = reason;
  iv.counted = 0;
  iv.weight = weight < end - start ? weight : NAN;
  rc = bucket_insert(&t->buckets[reason], &iv);
  if (rc != LW_OK) return rc;
  t->next_seq++;
  t->total++;
  if (end < t->min_closed_end) t->min_closed_end = end;
  /* An interval already past its retention is invisible at once, as if it had been kept. */
  expire_some(t, now);
  return LW_OK;
}
