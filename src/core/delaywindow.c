#include "delaywindow.h"

#include <math.h>
#include <string.h>

void lw_delay_window_init(lw_delay_window_t *w) { w->slice = NULL; }

int lw_delay_window_keep(lw_delay_window_t *w) {
  int i;
  if (w->slice != NULL) return LW_OK;
  if ((w->slice = lw__calloc(LW_DELAY_SLICES, sizeof(*w->slice))) == NULL) return LW_ENOMEM;
  for (i = 0; i < LW_DELAY_SLICES; i++) {
    w->slice[i].n = -1;
    lw_histogram_init(&w->slice[i].lateness);
  }
  return LW_OK;
}

/* The slot of the slice holding `t`, emptied if it held an older slice; NULL when it holds a
 * newer one (the value is older than any window read from now on) or nothing is kept. */
static lw_delay_slice_t *slot_for(lw_delay_window_t *w, double t) {
  double n;
  lw_delay_slice_t *s;
  if (w->slice == NULL || !(t >= 0) || !isfinite(t)) return NULL;
  n = floor(t / LW_DELAY_SLICE_MS);
  if (n >= 0x1p53) return NULL; /* past any clock: its slot would not be exact */
  s = &w->slice[(uint64_t)n % LW_DELAY_SLICES];
  if (s->n > n) return NULL;
  if (s->n < n) {
    lw_histogram_reset(&s->lateness);
    s->n = n;
    s->sumsq = 0;
    s->active_ms = 0;
    s->idle_ms = 0;
  }
  return s;
}

void lw_delay_window_lateness(lw_delay_window_t *w, double end, double value) {
  lw_delay_slice_t *s = slot_for(w, end);
  if (s == NULL) return;
  lw_histogram_record(&s->lateness, value);
  s->sumsq += value * value;
}

void lw_delay_window_loop_time(lw_delay_window_t *w, double end, double active_ms, double idle_ms) {
  lw_delay_slice_t *s = slot_for(w, end);
  if (s == NULL) return;
  s->active_ms += active_ms;
  s->idle_ms += idle_ms;
}

void lw_delay_window_read(const lw_delay_window_t *w, double now, lw_delay_stats_t *out) {
  const lw_histogram_t *in[LW_DELAY_SLICES];
  double n = floor(now / LW_DELAY_SLICE_MS), sum = 0, sumsq = 0, mean;
  size_t k = 0;
  int i;
  memset(out, 0, sizeof(*out));
  out->min = INFINITY;
  out->max = -INFINITY;
  for (i = 0; w->slice != NULL && i < LW_DELAY_SLICES; i++) {
    const lw_delay_slice_t *s = &w->slice[i];
    if (s->n < 0 || s->n > n || s->n <= n - LW_DELAY_SLICES) continue;
    out->active_ms += s->active_ms;
    out->idle_ms += s->idle_ms;
    if (s->lateness.count == 0) continue;
    in[k++] = &s->lateness;
    out->count += s->lateness.count;
    sum += s->lateness.sum;
    sumsq += s->sumsq;
    if (s->lateness.min < out->min) out->min = s->lateness.min;
    if (s->lateness.max > out->max) out->max = s->lateness.max;
  }
  if (out->count == 0) {
    out->min = out->max = out->mean = out->stddev = out->p50 = out->p90 = out->p99 = NAN;
    return;
  }
  mean = sum / (double)out->count;
  out->mean = mean;
  out->stddev = sqrt(fmax(0, sumsq / (double)out->count - mean * mean));
  out->p50 = lw_histogram_quantile_of(in, k, 0.5);
  out->p90 = lw_histogram_quantile_of(in, k, 0.9);
  out->p99 = lw_histogram_quantile_of(in, k, 0.99);
}

size_t lw_delay_window_memory(const lw_delay_window_t *w) {
  size_t n;
  int i;
  if (w->slice == NULL) return 0;
  n = LW_DELAY_SLICES * sizeof(*w->slice);
  for (i = 0; i < LW_DELAY_SLICES; i++) n += lw_histogram_memory(&w->slice[i].lateness);
  return n;
}

void lw_delay_window_free(lw_delay_window_t *w) {
  int i;
  if (w->slice == NULL) return;
  for (i = 0; i < LW_DELAY_SLICES; i++) lw_histogram_free(&w->slice[i].lateness);
  lw__free(w->slice);
  w->slice = NULL;
}
