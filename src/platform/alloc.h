/* The one allocator: every allocation of the core, the drivers and the platform's readers goes
 * through here, so that a test can make memory run out at any chosen allocation and check that
 * nothing is lost in silence (SPEC §4: memory that runs out is counted and logged). It sits at
 * the bottom of the include graph (platform <- core <- driver <- binding) so every layer may
 * use it. */
#ifndef LW_PLATFORM_ALLOC_H_
#define LW_PLATFORM_ALLOC_H_

#include <stddef.h>

void *lw__malloc(size_t size);
void *lw__calloc(size_t n, size_t size);
void *lw__realloc(void *p, size_t size);
void lw__free(void *p);
/* Tests: the next `n` allocations succeed, every later one fails; a negative `n` lifts the
 * limit. Not thread-safe: call it while no other thread allocates. */
void lw_alloc_fail_after(long n);

#endif /* LW_PLATFORM_ALLOC_H_ */
