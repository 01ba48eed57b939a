/* The last spans of time of something that happens on the main thread (V8's GC pauses, for the
 * gcMs of a hang's cause, SPEC §12): a ring of LW_SPANS_MAX [start, end], made at the first span,
 * and the time they spend inside a window. Used by both drivers: the uv one gets the pauses from
 * perf_hooks, the simulation from block(ms, 'gc'). */
#ifndef LW_CORE_SPANS_H_
#define LW_CORE_SPANS_H_

#include "common.h"

#define LW_SPANS_MAX 1024

typedef struct lw_spans_s {
  double (*iv)[2]; /* NULL until the first span */
  unsigned n;      /* spans added so far (the ring keeps the last LW_SPANS_MAX) */
  int lost;        /* a span could not be kept (memory ran out): overlaps are unknown */
} lw_spans_t;

/* Adds [start, end]. Returns LW_OK, or LW_ENOMEM (then `lost` is set, and stays). */
int lw_spans_add(lw_spans_t *s, double start, double end);
/* The time the kept spans spend inside [start, end]; NAN if a span was lost. */
double lw_spans_overlap(const lw_spans_t *s, double start, double end);
/* Native memory held. */
size_t lw_spans_memory(const lw_spans_t *s);
void lw_spans_free(lw_spans_t *s);

#endif /* LW_CORE_SPANS_H_ */
