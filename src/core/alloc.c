/* The core's growable arrays, over the one allocator (platform/alloc.h). */
#include "common.h"

int lw__grow(void **items, size_t *cap, size_t need, size_t size) {
  size_t ncap;
  void *p;
  if (need <= *cap) return LW_OK;
  ncap = *cap ? *cap : 8;
  while (ncap < need) ncap *= 2;
  p = lw__realloc(*items, ncap * size);
  if (p == NULL) return LW_ENOMEM;
  *items = p;
  *cap = ncap;
  return LW_OK;
}
