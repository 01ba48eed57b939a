#include "conditions.h"

#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[LW_STATE_COUNT] = {"active", "passive", "hidden", "frozen",
                                                         "terminated"};
static const char *const jump_names[LW_JUMP_COUNT] = {"suspend", "step"};

void lw_conditions_set_cause(lw_conditions_t *c, void (*fn)(void *data, lw_event_t *ev), void *data) {
  if (fn == NULL && c->cause.data != data) return;
  c->cause.fn = fn;
  c->cause.data = fn != NULL ? data : NULL;
}

int lw_conditions_init(lw_conditions_t *c, const lw_conditions_config_t *cfg) {
  int rc;
  memset(c, 0, sizeof(*c));
  if (!lw_conditions_config_valid(cfg)) return LW_EINVAL;
  c->cfg = *cfg;
  c->state = LW_STATE_ACTIVE;
  c->held.next_token = 1;
  rc = lw_tracker_init(&c->tracker, cfg->retention_ms);
  return rc;
}

void lw_conditions_free(lw_conditions_t *c) {
  size_t i;
  lw_conditions_events_clear(c);
  for (i = 0; i < c->nvalidators; i++) lw__free(c->validators[i]);
  for (i = 0; i < c->nnames; i++) {
    lw__free(c->names[i]->discarded_by_reason);
    lw_histogram_free(&c->names[i]->recorded_hist);
    lw__free(c->names[i]);
  }
  for (i = 0; i < c->nepisodes; i++) lw__free(c->episodes[i].monitors);
  lw__free(c->validators);
  lw__free(c->names);
  lw__free(c->held.items);
  lw__free(c->episodes);
  lw__free(c->events.items);
  lw_tracker_free(&c->tracker);
  memset(c, 0, sizeof(*c));
}

const char *lw_cause_name(lw_cause_kind_t k) {
  static const char *const names[LW_CAUSE_COUNT] = {"busy", "gc", "blocked", "starved",
                                                     "throttled"};
  return (unsigned)k < LW_CAUSE_COUNT ? names[k] : NULL;
}

static int part_valid(double ms, int may_be_unknown) {
  if (isnan(ms)) return may_be_unknown;
  return ms >= 0 && ms <= LW_CAUSE_MAX_MS;
}

int lw_cause_valid(const lw_cause_t *c) {
  if (!c->known) return 1;
  return (unsigned)c->dominant < LW_CAUSE_COUNT && part_valid(c->cpu_ms, 0) && part_valid(c->span_ms, 0) &&
         part_valid(c->runq_ms, 1) && part_valid(c->throttled_ms, 1) && part_valid(c->blocked_ms, 1) &&
         part_valid(c->gc_ms, 1);
}

lw_event_t *lw__event_push(lw_conditions_t *c, lw_event_type_t type, double at) {
  lw_event_t *ev;
  if (lw__grow((void **)&c->events.items, &c->events.cap, c->events.n + 1, sizeof(*c->events.items)) != LW_OK) {
    c->lost++;
    return NULL;
  }
  ev = &c->events.items[c->events.n++];
  memset(ev, 0, sizeof(*ev));
  ev->type = type;
  ev->at = at;
  return ev;
}

const lw_event_t *lw_conditions_events(const lw_conditions_t *c, size_t *n) {
  *n = c->events.n;
  return c->events.items;
}

void lw_conditions_events_clear(lw_conditions_t *c) {
  size_t i;
  for (i = 0; i < c->events.n; i++) lw__free(c->events.items[i].monitors);
  c->events.n = 0;
}

double lw_conditions_next_due(const lw_conditions_t *c) {
  double due = lw__held_next_due(c);
  double e = lw__episodes_next_due(c);
  return e < due ? e : due;
}

void lw_conditions_run(lw_conditions_t *c, double now) {
  /* Merge the two sorted sources so that everything happens in order of due time. */
  for (;;) {
    double h = lw__held_next_due(c);
    double e = lw__episodes_next_due(c);
    if (h <= e && h <= now)
      lw__held_resolve_one(c, h);
    else if (e < h && e <= now)
      lw__episodes_report_one(c);
    else
      break;
  }
  lw__episodes_expire(c, now);
}

void lw_conditions_dispose(lw_conditions_t *c, double now) {
  size_t i;
  if (c->disposed) return;
  /* Held samples first: those that become stalls join or start episodes reported below. */
  while (lw__held_next_due(c) != LW_NEVER) lw__held_resolve_one(c, now);
  lw__episodes_report_all(c, now);
  for (i = 0; i < c->nvalidators; i++) lw_validator_dispose(c, (uint32_t)i);
  c->disposed = 1;
  c->disposed_at = now;
  /* Nothing is recorded any more: keep the statistics, free what only recording needed. */
  for (i = 0; i < c->nnames; i++) lw_histogram_freeze(&c->names[i]->recorded_hist);
  lw__free(c->held.items);
  c->held.items = NULL;
  c->held.head = c->held.len = c->held.cap = 0;
}

/* Lifecycle ------------------------------------------------------------------------------- */

lw_state_t lw_state_parse(const char *s, size_t len) {
  int i;
  for (i = 0; i < LW_STATE_COUNT; i++)
    if (strlen(state_names[i]) == len && memcmp(state_names[i], s, len) == 0) return (lw_state_t)i;
  return LW_STATE_COUNT;
}

const char *lw_state_name(lw_state_t s) {
  return (unsigned)s < LW_STATE_COUNT ? state_names[s] : NULL;
}

const char *lw_kind_name(lw_kind_t k) { return (unsigned)k < LW_KIND_COUNT ? lw_kinds[k].name : NULL; }

const char *lw_jump_name(lw_jump_t j) { return (unsigned)j < LW_JUMP_COUNT ? jump_names[j] : NULL; }

int lw_state_visible(lw_state_t s) { return s == LW_STATE_ACTIVE || s == LW_STATE_PASSIVE; }

lw_state_t lw_state_from_windows(const uint8_t *windows, size_t n, int locked) {
  lw_state_t best = LW_STATE_HIDDEN;
  size_t i;
  if (locked) return LW_STATE_HIDDEN;
  for (i = 0; i < n; i++) {
    if (!(windows[i] & LW_WINDOW_VISIBLE) || (windows[i] & LW_WINDOW_MINIMIZED)) continue;
    if (windows[i] & LW_WINDOW_FOCUSED) return LW_STATE_ACTIVE;
    best = LW_STATE_PASSIVE;
  }
  return best;
}

lw_state_t lw_state_from_page(unsigned page, const uint8_t *windows, size_t n, int locked) {
  if (page & LW_PAGE_TERMINATED) return LW_STATE_TERMINATED;
  if (page & LW_PAGE_FROZEN) return LW_STATE_FROZEN;
  return lw_state_from_windows(windows, n, locked);
}

void lw_conditions_began(lw_conditions_t *c, double now) { c->created_at = now; }

void lw_conditions_hang_rates(const lw_conditions_t *c, double now, lw_hang_rates_t *out) {
  double hours;
  if (c->disposed && now > c->disposed_at) now = c->disposed_at; /* the run is over */
  hours = (now - c->created_at) / 3.6e6;
  uint64_t hangs = c->stalls[LW_KIND_HANG] - c->fatal_hangs;
  out->had_hang = hangs > 0;
  out->hangs_per_hour = hours > 0 ? (double)hangs / hours : 0;
  out->hang_seconds_per_hour = hours > 0 ? c->hang_ms / 1000.0 / hours : 0;
}

void lw_conditions_stats(const lw_conditions_t *c, lw_conditions_stats_t *out) {
  memset(out, 0, sizeof(*out));
  out->submitted = c->submitted;
  out->recorded = c->recorded;
  out->held = c->held_count;
  out->cancelled = c->cancelled;
  out->lost = c->lost;
  memcpy(out->stalls, c->stalls, sizeof(out->stalls));
  memcpy(out->jumps, c->jumps, sizeof(out->jumps));
  memcpy(out->hang_causes, c->hang_causes, sizeof(out->hang_causes));
  out->fatal_hangs = c->fatal_hangs;
  out->reasons = c->tracker.nreasons;
  out->names = c->nnames;
}

int lw_conditions_name_stats(const lw_conditions_t *c, size_t i, lw_name_snapshot_t *out) {
  const lw_name_stats_t *ns;
  if (i >= c->nnames) return LW_ENOENT;
  ns = c->names[i];
  out->name = ns->name;
  out->submitted = ns->submitted;
  out->recorded = ns->recorded;
  out->discarded = ns->discarded;
  out->held = ns->held;
  out->cancelled = ns->cancelled;
  out->min = ns->recorded_hist.count ? ns->recorded_hist.min : NAN;
  out->max = ns->recorded_hist.count ? ns->recorded_hist.max : NAN;
  out->mean = lw_histogram_mean(&ns->recorded_hist);
  out->p50 = lw_histogram_quantile(&ns->recorded_hist, 0.5);
  out->p99 = lw_histogram_quantile(&ns->recorded_hist, 0.99);
  return LW_OK;
}

uint64_t lw_conditions_name_discarded(const lw_conditions_t *c, size_t i, uint32_t r) {
  const lw_name_stats_t *ns = i < c->nnames ? c->names[i] : NULL;
  return ns != NULL && r < ns->discarded_by_reason_cap ? ns->discarded_by_reason[r] : 0;
}

const char *lw_conditions_name(const lw_conditions_t *c, uint32_t id) {
  return id < c->nnames ? c->names[id]->name : NULL;
}

size_t lw_conditions_memory(const lw_conditions_t *c) {
  size_t n = sizeof(*c) + c->validators_cap * sizeof(*c->validators) +
             c->nvalidators * sizeof(lw_validator_t) + c->names_cap * sizeof(*c->names) +
             c->held.cap * sizeof(*c->held.items) + c->episodes_cap * sizeof(*c->episodes) +
             c->events.cap * sizeof(*c->events.items);
  size_t i;
  for (i = 0; i < c->nnames; i++)
    n += sizeof(lw_name_stats_t) + c->names[i]->discarded_by_reason_cap * sizeof(uint64_t) +
         lw_histogram_memory(&c->names[i]->recorded_hist);
  for (i = 0; i < c->tracker.nreasons; i++)
    n += c->tracker.buckets[i].cap * (sizeof(lw_interval_t) + sizeof(double));
  return n + c->tracker.reasons_cap * (sizeof(*c->tracker.names) + sizeof(*c->tracker.buckets));
}

void lw_conditions_flush(lw_conditions_t *c, double now) { lw__episodes_report_all(c, now); }

/* Opens or closes the interval behind `*seq` so that it is open exactly when `want` is set. */
static int lifecycle_interval(lw_conditions_t *c, uint64_t *seq, int want, uint32_t reason,
                              double now) {
  if (want && *seq == 0) return lw_tracker_open(&c->tracker, reason, now, 0, seq);
  if (!want && *seq != 0) {
    lw_tracker_close(&c->tracker, *seq, now);
    *seq = 0;
  }
  return LW_OK;
}

int lw_conditions_set_state(lw_conditions_t *c, lw_state_t state, double now, lw_state_t *from) {
  int want_hidden, want_frozen, had_hidden, rc;
  if ((unsigned)state >= LW_STATE_COUNT) return LW_EINVAL;
  if (state == c->state) return 0;
  want_hidden = state == LW_STATE_HIDDEN || state == LW_STATE_FROZEN;
  want_frozen = state == LW_STATE_FROZEN;
  had_hidden = c->open.hidden != 0;
  /* Opening comes first (hidden before frozen) so a failed allocation changes nothing. */
  rc = lifecycle_interval(c, &c->open.hidden, want_hidden, LW_REASON_HIDDEN, now);
  if (rc != LW_OK) return rc;
  rc = lifecycle_interval(c, &c->open.frozen, want_frozen, LW_REASON_FROZEN, now);
  if (rc != LW_OK) {
    if (!had_hidden) lifecycle_interval(c, &c->open.hidden, 0, LW_REASON_HIDDEN, now);
    return rc;
  }
  *from = c->state;
  c->state = state;
  return 1;
}
