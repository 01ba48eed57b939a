/* Stall episodes (SPEC §5): stall samples whose windows overlap join one episode, reported once,
 * episode_delay_ms after its first sample. */
#include "conditions.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Kind precedence: suspend, then pause, then hang. */

/* A monitor name that cannot be added to the episode's list is counted as lost. */
static void add_monitor(lw_conditions_t *c, lw__episode_t *e, uint32_t name_id) {
  size_t i;
  for (i = 0; i < e->nmonitors; i++)
    if (e->monitors[i] == name_id) return;
  if (lw__grow((void **)&e->monitors, &e->monitors_cap, e->nmonitors + 1, sizeof(*e->monitors)) !=
      LW_OK) {
    c->lost++;
    return;
  }
  e->monitors[e->nmonitors++] = name_id;
}

int lw_conditions_stall(lw_conditions_t *c, double ws, double we, double value, lw_kind_t kind,
                        uint32_t name_id, double now) {
  size_t i;
  lw__episode_t *e;
  lw__episodes_expire(c, now);
  for (i = 0; i < c->nepisodes; i++) {
    e = &c->episodes[i];
    /* The overlap rule of closed intervals: touching windows are separate episodes. */
    if (!(ws < e->window_end && we > e->window_start)) continue;
    /* The app's own time and a stop are separate episodes even where their windows overlap
     * (SPEC §5: one block = one hang episode, one stop = one episode of its kind). */
    if ((kind == LW_KIND_HANG) != (e->kind == LW_KIND_HANG)) continue;
    if (e->reported_at != INFINITY) return LW_OK; /* a late join adds nothing */
    if (ws < e->window_start) e->window_start = ws;
    if (we > e->window_end) e->window_end = we;
    if (value > e->duration_ms) e->duration_ms = value;
    if (lw_kinds[kind].rank > lw_kinds[e->kind].rank) e->kind = kind;
    e->samples++;
    add_monitor(c, e, name_id);
    return LW_OK;
  }
  if (lw__grow((void **)&c->episodes, &c->episodes_cap, c->nepisodes + 1, sizeof(*c->episodes)) !=
      LW_OK) {
    c->lost++; /* the stall sample: no episode can hold it */
    return LW_ENOMEM;
  }
  e = &c->episodes[c->nepisodes];
  memset(e, 0, sizeof(*e));
  e->window_start = ws;
  e->window_end = we;
  e->due = now + c->cfg.episode_delay_ms;
  e->reported_at = INFINITY;
  e->duration_ms = value;
  e->kind = kind;
  e->samples = 1;
  add_monitor(c, e, name_id);
  c->nepisodes++;
  return LW_OK;
}

/* Episodes are created in order of time, each due a fixed delay later: the first pending one is
 * the next due. */
static lw__episode_t *first_pending(const lw_conditions_t *c) {
  size_t i;
  for (i = 0; i < c->nepisodes; i++)
    if (c->episodes[i].reported_at == INFINITY) return &c->episodes[i];
  return NULL;
}

double lw__episodes_next_due(const lw_conditions_t *c) {
  const lw__episode_t *e = first_pending(c);
  return e ? e->due : LW_NEVER;
}

static void report(lw_conditions_t *c, lw__episode_t *e, double at) {
  lw_event_t *ev;
  e->reported_at = at;
  c->stalls[e->kind]++;
  if (e->kind == LW_KIND_HANG) c->hang_ms += e->duration_ms;
  ev = lw__event_push(c, LW_EVENT_STALL, at);
  if (ev == NULL) return;
  ev->kind = e->kind;
  ev->duration_ms = e->duration_ms;
  ev->start = e->window_start;
  ev->end = e->window_end;
  ev->samples = e->samples;
  ev->hang_detected_at = NAN;
  if (e->nmonitors > 0) {
    ev->monitors = lw__malloc(e->nmonitors * sizeof(*ev->monitors));
    if (ev->monitors == NULL) {
      c->lost++; /* the event goes out without the names of its monitors */
    } else {
      memcpy(ev->monitors, e->monitors, e->nmonitors * sizeof(*ev->monitors));
      ev->nmonitors = e->nmonitors;
    }
  }
  /* The hook reads the episode whole, its monitors included. */
  if (e->kind == LW_KIND_HANG && c->cause.fn != NULL) {
    c->cause.fn(c->cause.data, ev);
    if (ev->cause.known) c->hang_causes[ev->cause.dominant]++;
  }
}

int lw_conditions_report_fatal(lw_conditions_t *c, double start, double end, double detected_at,
                               const lw_cause_t *cause, double now) {
  lw_event_t *ev;
  if (c->disposed) return LW_EDISPOSED;
  if (!isfinite(start) || !isfinite(end) || !(end >= start) || isnan(detected_at)) return LW_EINVAL;
  if (cause != NULL && !lw_cause_valid(cause)) return LW_EINVAL;
  c->stalls[LW_KIND_HANG]++;
  c->fatal_hangs++;
  if (cause != NULL && cause->known) c->hang_causes[cause->dominant]++;
  ev = lw__event_push(c, LW_EVENT_STALL, now);
  if (ev == NULL) return LW_ENOMEM; /* counted as lost by the push */
  ev->kind = LW_KIND_HANG;
  ev->duration_ms = end - start;
  ev->start = start;
  ev->end = end;
  ev->samples = 0;
  ev->hang_detected_at = detected_at;
  ev->fatal = 1;
  if (cause != NULL) ev->cause = *cause;
  return LW_OK;
}

void lw__episodes_report_one(lw_conditions_t *c) {
  lw__episode_t *e = first_pending(c);
  if (e != NULL) report(c, e, e->due);
}

void lw__episodes_report_all(lw_conditions_t *c, double now) {
  lw__episode_t *e;
  while ((e = first_pending(c)) != NULL) report(c, e, now < e->due ? now : e->due);
}

void lw__episodes_expire(lw_conditions_t *c, double now) {
  size_t i, j;
  for (i = 0, j = 0; i < c->nepisodes; i++) {
    lw__episode_t *e = &c->episodes[i];
    if (e->reported_at != INFINITY && now > e->reported_at + c->cfg.retention_ms) {
      lw__free(e->monitors);
      continue;
    }
    c->episodes[j++] = *e;
  }
  c->nepisodes = j;
}
