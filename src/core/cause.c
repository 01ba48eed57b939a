/* Hang diagnosis: see cause.h. */
#include "cause.h"
#include "internal.h"

#include <math.h>
#include <string.h>

void lw_causes_init(lw_causes_t *cs, unsigned cap, double (*gc_ms)(void *data, double start, double end),
                    void *data) {
  memset(cs, 0, sizeof(*cs));
  cs->cap = cap;
  cs->gc_ms = gc_ms;
  cs->data = data;
}

void lw_causes_free(lw_causes_t *cs) {
  lw__free(cs->ring);
  cs->ring = NULL;
  cs->n = 0;
}

size_t lw_causes_memory(const lw_causes_t *cs) { return cs->ring ? cs->cap * sizeof(*cs->ring) : 0; }

lw_hang_cause_t *lw_causes_next(lw_causes_t *cs) {
  if (cs->ring == NULL && (cs->ring = lw__calloc(cs->cap, sizeof(*cs->ring))) == NULL) return NULL;
  return &cs->ring[cs->n++ % cs->cap];
}

void lw_split_wait(double runq, double thr, double *runq_out, double *thr_out) {
  if (isfinite(runq) && isfinite(thr)) {
    *thr_out = thr < 0 ? 0 : thr > runq ? runq : thr;
    *runq_out = runq - *thr_out;
  } else {
    *thr_out = NAN;
    *runq_out = runq;
  }
}

/* The cause of a hang from the worker's readings of the main thread over [span_start, span_end],
 * `stopped` ms of it a stop of the whole process (no state of the thread's own). The run-queue
 * delay includes the time the cgroup's quota held the thread back: that part is `throttled`, at
 * most the run-queue delay; what is neither on a CPU nor waiting for one is `blocked`. GC is CPU
 * time of the main thread (or its wait for GC helpers): `busy` is the CPU time less GC. */
void lw_hang_cause_from_msg(lw_hang_cause_t *h, const lw_msg_t *msg, double end) {
  h->start = msg->hang_start;
  h->end = end;
  h->detected_at = msg->detected_at;
  /* Readings that began after the hang ended (the worker itself could not run during it) say
   * nothing about it: the cause is unknown. */
  h->known = msg->cause_known && end > msg->cause_start;
  h->delta = msg->cause_delta;
  h->span_start = msg->cause_start;
  /* The hang ended when the main thread ran again: what the readings saw after it (up to one
   * check interval of the loop's own) is no part of the hang's span. */
  h->span_end = end > msg->cause_start && end < msg->cause_end ? end : msg->cause_end;
  h->stopped = msg->cause_stopped;
  h->own = msg->type == LW_MSG_HANG_END ? end - msg->hang_start - msg->hang_stopped : NAN;
  h->gc_seen = NAN;
}

void lw_cause_compute(const lw_causes_t *cs, const lw_hang_cause_t *h, lw_cause_t *out) {
  double span = h->span_end - h->span_start - h->stopped;
  double runq = h->delta.runq_ms, thr = h->delta.throttled_ms, cpu = h->delta.cpu_ms, waited;
  double score[LW_CAUSE_COUNT], best = -1, gc_from = h->span_start;
  int k;
  memset(out, 0, sizeof(*out));
  if (!h->known || !(span > 0) || !isfinite(cpu)) return;
  out->known = 1;
  out->span_ms = span;
  /* The readings were taken up to one check after the hang ended: nothing exceeds the span. */
  out->cpu_ms = cpu < 0 ? 0 : cpu > span ? span : cpu;
  waited = isfinite(runq) && runq > 0 ? runq : 0;
  if (waited > span - out->cpu_ms) waited = span - out->cpu_ms;
  lw_split_wait(isfinite(runq) ? waited : NAN, thr, &out->runq_ms, &out->throttled_ms);
  out->blocked_ms = span - out->cpu_ms - waited;
  if (out->blocked_ms < 0) out->blocked_ms = 0;
  /* The worker reads the times at its first check without progress, up to a rest (when the loop
   * ran more than short iterations since the rest began) or two checks after the hang began: what
   * it read of the hang stands for the whole of it, its first part too, so that the span is the
   * hang's own time. GC is known where it happened: read over the whole hang. */
  if (isfinite(h->own) && h->own > span) {
    out->cpu_ms = out->cpu_ms * h->own / span;
    if (isfinite(out->runq_ms)) out->runq_ms = out->runq_ms * h->own / span;
    if (isfinite(out->throttled_ms)) out->throttled_ms = out->throttled_ms * h->own / span;
    out->blocked_ms = out->blocked_ms * h->own / span;
    out->span_ms = h->own;
    if (h->start < gc_from) gc_from = h->start;
  }
  out->gc_ms = cs->gc_ms != NULL ? cs->gc_ms(cs->data, gc_from, h->span_end) : NAN;
  if (isfinite(out->gc_ms) && h->gc_seen > out->gc_ms) out->gc_ms = h->gc_seen;
  score[LW_CAUSE_BUSY] = out->cpu_ms - (isfinite(out->gc_ms) ? out->gc_ms : 0);
  score[LW_CAUSE_GC] = out->gc_ms;
  score[LW_CAUSE_BLOCKED] = out->blocked_ms;
  score[LW_CAUSE_STARVED] = out->runq_ms;
  score[LW_CAUSE_THROTTLED] = out->throttled_ms;
  out->dominant = LW_CAUSE_BUSY;
  for (k = 0; k < LW_CAUSE_COUNT; k++) {
    if (isfinite(score[k]) && score[k] > best) {
      best = score[k];
      out->dominant = (lw_cause_kind_t)k;
    }
  }
}

/* A hang episode's cause: that of the worker hang that overlaps it most, its GC part read again
 * (V8's GC entries reach lagwatch a loop iteration or two after the hang). */
void lw_causes_for_episode(const lw_causes_t *cs, lw_event_t *ev) {
  const lw_hang_cause_t *best = NULL;
  double most = 0;
  unsigned i, n = cs->n < cs->cap ? cs->n : cs->cap;
  if (cs->ring == NULL) return;
  for (i = 0; i < n; i++) {
    const lw_hang_cause_t *h = &cs->ring[i];
    double lo = h->start > ev->start ? h->start : ev->start;
    double hi = h->end < ev->end ? h->end : ev->end;
    if (hi - lo > most) {
      most = hi - lo;
      best = h;
    }
  }
  if (best == NULL) return;
  lw_cause_compute(cs, best, &ev->cause);
  ev->hang_detected_at = best->detected_at;
}
