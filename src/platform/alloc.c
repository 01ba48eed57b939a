/* The one allocator: see alloc.h. */
#include "alloc.h"

#include <stdlib.h>

/* Allocations left before they start failing; negative: no limit. Set only by tests, while no
 * other thread allocates. */
static long lw__alloc_budget = -1;

void lw_alloc_fail_after(long n) { lw__alloc_budget = n; }

static int lw__alloc_take(void) {
  if (lw__alloc_budget < 0) return 1;
  if (lw__alloc_budget == 0) return 0;
  lw__alloc_budget--;
  return 1;
}

void *lw__malloc(size_t size) { return lw__alloc_take() ? malloc(size) : NULL; }

void *lw__calloc(size_t n, size_t size) { return lw__alloc_take() ? calloc(n, size) : NULL; }

void *lw__realloc(void *p, size_t size) { return lw__alloc_take() ? realloc(p, size) : NULL; }

void lw__free(void *p) { free(p); }
