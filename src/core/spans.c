#include "spans.h"

#include <string.h>

int lw_spans_add(lw_spans_t *s, double start, double end) {
  double *g;
  if (s->iv == NULL && (s->iv = lw__malloc(LW_SPANS_MAX * sizeof(*s->iv))) == NULL) {
    s->lost = 1;
    return LW_ENOMEM;
  }
  g = s->iv[s->n++ % LW_SPANS_MAX];
  g[0] = start;
  g[1] = end;
  return LW_OK;
}

double lw_spans_overlap(const lw_spans_t *s, double start, double end) {
  double sum = 0;
  unsigned i, n = s->n < LW_SPANS_MAX ? s->n : LW_SPANS_MAX;
  if (s->lost) return NAN;
  for (i = 0; i < n; i++) {
    double lo = s->iv[i][0] > start ? s->iv[i][0] : start;
    double hi = s->iv[i][1] < end ? s->iv[i][1] : end;
    if (hi > lo) sum += hi - lo;
  }
  return sum;
}

size_t lw_spans_memory(const lw_spans_t *s) { return s->iv ? LW_SPANS_MAX * sizeof(*s->iv) : 0; }

void lw_spans_free(lw_spans_t *s) {
  lw__free(s->iv);
  memset(s, 0, sizeof(*s));
}
