/* The sample validator (SPEC §4) and its held samples. */
#include "conditions.h"
#include "config.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int lw_name_valid(const char *name, size_t len) {
  return len >= 1 && len <= LW_NAME_MAX_LEN && memchr(name, '\0', len) == NULL;
}

static int name_intern(lw_conditions_t *c, const char *name, size_t len, uint32_t *id) {
  size_t i;
  lw_name_stats_t *ns;
  for (i = 0; i < c->nnames; i++) {
    if (strlen(c->names[i]->name) == len && memcmp(c->names[i]->name, name, len) == 0) {
      *id = (uint32_t)i;
      return LW_OK;
    }
  }
  if (lw__grow((void **)&c->names, &c->names_cap, c->nnames + 1, sizeof(*c->names)) != LW_OK)
    return LW_ENOMEM;
  ns = lw__calloc(1, sizeof(*ns));
  if (ns == NULL) return LW_ENOMEM;
  if (lw_histogram_init(&ns->recorded_hist) != LW_OK) {
    lw__free(ns);
    return LW_ENOMEM;
  }
  memcpy(ns->name, name, len);
  c->names[c->nnames] = ns;
  *id = (uint32_t)c->nnames++;
  return LW_OK;
}

int lw_validator_create(lw_conditions_t *c, const char *name, size_t len,
                        double stall_threshold_ms, uint32_t *id, lw_err_t *err) {
  lw_validator_t *v;
  uint32_t name_id;
  const char *range;
  int rc;
  if (!lw_name_valid(name, len)) return lw__refuse(err, LW_EINVAL, "name", "1 to 64 bytes long");
  if (!lw_option_ok(LW_OPTION_THRESHOLD, stall_threshold_ms, &range))
    return lw__refuse(err, LW_EINVAL, "stallThresholdMs", range);
  if (c->disposed) return LW_EDISPOSED;
  if (c->nvalidators >= UINT32_MAX - 1) return LW_ELIMIT;
  if (lw__grow((void **)&c->validators, &c->validators_cap, c->nvalidators + 1,
               sizeof(*c->validators)) != LW_OK)
    return LW_ENOMEM;
  rc = name_intern(c, name, len, &name_id);
  if (rc != LW_OK) return rc;
  v = lw__calloc(1, sizeof(*v));
  if (v == NULL) return LW_ENOMEM;
  v->name_id = name_id;
  v->stall_threshold_ms = stall_threshold_ms;
  c->validators[c->nvalidators] = v;
  *id = (uint32_t)c->nvalidators++;
  return LW_OK;
}

int lw_validator_create_own(lw_conditions_t *c, const char *name, size_t len, uint32_t *id, lw_err_t *err) {
  return lw_validator_create(c, name, len, lw_conditions_threshold(c), id, err);
}

lw_validator_t *lw_validator_get(const lw_conditions_t *c, uint32_t id) {
  return id < c->nvalidators ? c->validators[id] : NULL;
}

void lw_validator_set_sink(lw_conditions_t *c, uint32_t id, lw_record_cb cb, void *data) {
  lw_validator_t *v = lw_validator_get(c, id);
  if (v == NULL) return;
  v->record_cb = cb;
  v->record_data = data;
}

void lw_validator_no_episodes(lw_conditions_t *c, uint32_t id) {
  lw_validator_t *v = lw_validator_get(c, id);
  if (v != NULL) v->no_episodes = 1;
}

static void count_recorded(lw_conditions_t *c, lw_validator_t *v, double value, double ws,
                           double we, double now) {
  lw_name_stats_t *ns = c->names[v->name_id];
  c->recorded++;
  ns->recorded++;
  lw_histogram_record(&ns->recorded_hist, value);
  if (v->record_cb != NULL) v->record_cb(v->record_data, value, we - ws, we, LW_REASON_NONE, now);
}

static void count_discarded(lw_conditions_t *c, lw_validator_t *v, uint32_t reason, double value,
                            double ws, double we, double now) {
  lw_name_stats_t *ns = c->names[v->name_id];
  size_t old = ns->discarded_by_reason_cap;
  c->tracker.buckets[reason].discarded++;
  ns->discarded++;
  if (v->record_cb != NULL) v->record_cb(v->record_data, value, we - ws, we, reason, now);
  /* The table by (name, reason) feeds the metric; if it cannot grow, that count is lost. */
  if (lw__grow((void **)&ns->discarded_by_reason, &ns->discarded_by_reason_cap, reason + 1,
               sizeof(*ns->discarded_by_reason)) != LW_OK) {
    c->lost++;
    return;
  }
  memset(ns->discarded_by_reason + old, 0,
         (ns->discarded_by_reason_cap - old) * sizeof(*ns->discarded_by_reason));
  ns->discarded_by_reason[reason]++;
}

/* An own part this short is within the evidence's uncertainty (a stop is seen from the worker's
 * first check after it began: up to a worker interval late while the loop waited): the sample is
 * the stop's, whole. */
#define LW_OWN_NOISE_MS 1000.0

/* Step 2's stall rule: the evidence of a stop that gives a kind (lw_reasons[].kind: a suspend, a
 * pause) makes a long sample a stall of that kind. */
static void stall_from_evidence(lw_conditions_t *c, lw_validator_t *v, uint32_t reason,
                                double ws, double we, double value, double now) {
  if (value < v->stall_threshold_ms || v->no_episodes || reason >= LW_REASON_BUILTIN_COUNT) return;
  if (lw_reasons[reason].kind >= 0)
    lw_conditions_stall(c, ws, we, value, (lw_kind_t)lw_reasons[reason].kind, v->name_id, now);
}

/* SPEC §5, evidence explains only the time it covers: a long sample whose window overlaps stop
 * evidence only (suspend, pause, debugger: no hidden, throttled or other reason) has an own part,
 * its value less the time that evidence covers inside its window. Returns 1 with `*own` and
 * `*stopped` (the time the suspend and pause evidence alone covers: a debugger is never a stall)
 * when the sample is long and the rule applies; 0 otherwise (the sample is judged whole). */
static int own_part(lw_conditions_t *c, const lw_validator_t *v, double ws, double we,
                    double value, double now, double *own, double *stopped) {
  uint32_t stops[LW_REASON_BUILTIN_COUNT], stalls[LW_REASON_BUILTIN_COUNT];
  size_t nstops, nstalls;
  lw_interval_t other;
  if (value < v->stall_threshold_ms) return 0;
  if (lw_tracker_find_other(&c->tracker, ws, we, now, &other)) return 0;
  nstops = lw_reason_stops(0, stops);
  nstalls = lw_reason_stops(1, stalls);
  *own = value - lw_tracker_covered(&c->tracker, ws, we, stops, nstops, now);
  *stopped = lw_tracker_covered(&c->tracker, ws, we, stalls, nstalls, now);
  return 1;
}

/* Whether a long sample's own part is judged on its own (SPEC §5): over the threshold, and, for a
 * validator without episodes (blocks: a threshold far under a stop's uncertainty), at least that
 * uncertainty; a shorter own part cannot be told from the stop inside it, whose sample it is. */
static int own_counts(const lw_validator_t *v, double own) {
  return own > v->stall_threshold_ms && (!v->no_episodes || own >= LW_OWN_NOISE_MS);
}

/* A long sample discarded for `iv` (the reason looked at first): a stall of the stop's kind
 * (SPEC §5). Its duration is the time the stops cover when they reach the threshold on their own
 * and the app's part is more than their uncertainty; otherwise the sample's whole value (neither
 * part reaches the threshold alone: the sample is the stop's, as SPEC §4 step 2 has it). None if
 * the stops cover none of it (a suspend where the monotonic clock stood still), or the reason is
 * no stop of the process (hidden, throttled, a debugger). */
static void stall_discarded(lw_conditions_t *c, lw_validator_t *v, const lw_interval_t *iv,
                            double ws, double we, double value, double now) {
  double own, stopped;
  if (!lw_reason_is_stop(iv->reason) || !own_part(c, v, ws, we, value, now, &own, &stopped)) {
    stall_from_evidence(c, v, iv->reason, ws, we, value, now);
    return;
  }
  if (!(stopped > 0)) return;
  stall_from_evidence(c, v, iv->reason, ws, we,
                      own < LW_OWN_NOISE_MS || stopped < v->stall_threshold_ms ? value : stopped, now);
}

int lw_validator_check(const lw_conditions_t *c, uint32_t id, double value, double window_ms,
                       const char **field) {
  lw_validator_t *v = lw_validator_get(c, id);
  if (v == NULL) return LW_ENOENT;
  if (!(isfinite(value) && value >= 0)) {
    *field = "value";
    return LW_EINVAL;
  }
  if (!(isfinite(window_ms) && window_ms >= 0)) {
    *field = "windowMs";
    return LW_EINVAL;
  }
  return v->disposed ? LW_EDISPOSED : LW_OK;
}

uint64_t lw_validator_last_token(const lw_conditions_t *c) { return c->held.next_token - 1; }

int lw_validator_submit(lw_conditions_t *c, uint32_t id, double value, double window_ms,
                        double now, uint64_t *detail) {
  const char *field;
  int rc = lw_validator_check(c, id, value, window_ms, &field);
  (void)field;
  if (rc == LW_EDISPOSED) return LW_VERDICT_DISPOSED;
  if (rc != LW_OK) return rc;
  return lw_validator_submit_checked(c, id, value, window_ms, now, detail);
}

int lw_validator_submit_checked(lw_conditions_t *c, uint32_t id, double value, double window_ms,
                                double now, uint64_t *detail) {
  lw_validator_t *v = c->validators[id];
  lw_interval_t iv;
  lw__held_t *h;
  double ws = now - window_ms, we = now, own, stopped;
  *detail = 0;
  if (lw_tracker_find_priority(&c->tracker, ws, we, now, &iv) &&
      !(lw_reason_is_stop(iv.reason) && own_part(c, v, ws, we, value, now, &own, &stopped) &&
        own_counts(v, own))) {
    c->submitted++;
    c->names[v->name_id]->submitted++;
    count_discarded(c, v, iv.reason, value, ws, we, now);
    stall_discarded(c, v, &iv, ws, we, value, now);
    *detail = iv.reason;
    return LW_VERDICT_DISCARDED;
  }
  if (value < v->stall_threshold_ms) {
    c->submitted++;
    c->names[v->name_id]->submitted++;
    count_recorded(c, v, value, ws, we, now);
    return LW_VERDICT_RECORDED;
  }
  /* Step 4: hold. Compact the queue when its dead head is more than half of it. */
  if (c->held.head > 0 && c->held.head * 2 >= c->held.len) {
    memmove(c->held.items, c->held.items + c->held.head,
            (c->held.len - c->held.head) * sizeof(*c->held.items));
    c->held.len -= c->held.head;
    c->held.head = 0;
  }
  if (lw__grow((void **)&c->held.items, &c->held.cap, c->held.len + 1, sizeof(*c->held.items)) != LW_OK)
    return LW_ENOMEM;
  h = &c->held.items[c->held.len++];
  h->due = now + c->cfg.hold_ms;
  h->window_start = ws;
  h->window_end = we;
  h->value = value;
  h->token = c->held.next_token++;
  h->validator = id;
  c->submitted++;
  c->names[v->name_id]->submitted++;
  c->names[v->name_id]->held++;
  c->held_count++;
  v->held++;
  *detail = h->token;
  return LW_VERDICT_HELD;
}

/* Skips cancelled entries at the head so that the head is live or the queue empty. */
static void held_trim(lw_conditions_t *c) {
  while (c->held.head < c->held.len && c->held.items[c->held.head].token == 0) c->held.head++;
  if (c->held.head == c->held.len) c->held.head = c->held.len = 0;
}

double lw__held_next_due(const lw_conditions_t *c) {
  size_t i;
  for (i = c->held.head; i < c->held.len; i++)
    if (c->held.items[i].token != 0) return c->held.items[i].due;
  return LW_NEVER;
}

void lw__held_resolve_one(lw_conditions_t *c, double at) {
  lw__held_t h;
  lw_validator_t *v;
  lw_name_stats_t *ns;
  lw_interval_t iv;
  lw_event_t *ev;
  double own, stopped, value;
  held_trim(c);
  if (c->held.head == c->held.len) return;
  h = c->held.items[c->held.head++];
  held_trim(c);
  v = c->validators[h.validator];
  ns = c->names[v->name_id];
  v->held--;
  ns->held--;
  c->held_count--;
  ev = lw__event_push(c, LW_EVENT_RESOLVED, at);
  value = h.value;
  if (lw_tracker_find_priority(&c->tracker, h.window_start, h.window_end, at, &iv) && lw_reason_is_stop(iv.reason) &&
      own_part(c, v, h.window_start, h.window_end, h.value, at, &own, &stopped) && own_counts(v, own)) {
    /* The app's own part is a hang of its own; the stop, if long enough, a stall of its kind:
     * two episodes (SPEC §5). The sample is recorded as its own part. */
    value = own;
    count_recorded(c, v, own, h.window_start, h.window_end, at);
    if (!v->no_episodes) lw_conditions_stall(c, h.window_start, h.window_end, own, LW_KIND_HANG, v->name_id, at);
    stall_from_evidence(c, v, iv.reason, h.window_start, h.window_end, stopped, at);
    if (ev) {
      ev->verdict = LW_VERDICT_RECORDED;
      ev->reason = iv.reason;
    }
  } else if (lw_tracker_find_priority(&c->tracker, h.window_start, h.window_end, at, &iv)) {
    count_discarded(c, v, iv.reason, h.value, h.window_start, h.window_end, at);
    stall_discarded(c, v, &iv, h.window_start, h.window_end, h.value, at);
    if (ev) {
      ev->verdict = LW_VERDICT_DISCARDED;
      ev->reason = iv.reason;
    }
  } else {
    count_recorded(c, v, h.value, h.window_start, h.window_end, at);
    if (!v->no_episodes) lw_conditions_stall(c, h.window_start, h.window_end, h.value, LW_KIND_HANG, v->name_id, at);
    if (ev) ev->verdict = LW_VERDICT_RECORDED;
  }
  if (ev) {
    ev->token = h.token;
    ev->validator = h.validator;
    /* What was recorded: the own part where the rule applied (record() gets that). */
    ev->value = value;
  }
}

int lw_validator_dispose(lw_conditions_t *c, uint32_t id) {
  lw_validator_t *v = lw_validator_get(c, id);
  size_t i;
  if (v == NULL) return LW_ENOENT;
  if (v->disposed) return LW_OK;
  for (i = c->held.head; i < c->held.len && v->held > 0; i++) {
    lw__held_t *h = &c->held.items[i];
    lw_event_t *ev;
    if (h->token == 0 || h->validator != id) continue;
    ev = lw__event_push(c, LW_EVENT_CANCELLED, h->due);
    if (ev) {
      ev->token = h->token;
      ev->validator = id;
      ev->value = h->value;
    }
    h->token = 0;
    v->held--;
    c->names[v->name_id]->held--;
    c->names[v->name_id]->cancelled++;
    c->held_count--;
    c->cancelled++;
  }
  held_trim(c);
  v->disposed = 1;
  return LW_OK;
}
