/* Shared definitions of the lagwatch core.
 *
 * The core is pure C11: it never reads a clock, never arms a timer and never starts a thread.
 * Every entry point that depends on time takes `now`, and the core reports the time it next
 * needs to run through the `*_next_due()` functions. A driver (src/driver/) supplies both.
 *
 * Time inside the core is a double: milliseconds on the monotonic clock of the thread that owns
 * the conditions, on the same origin as that thread's `performance.now()`. Doubles keep every
 * value a caller passes in exactly as given (an interval added at 99.9 ms is reported at 99.9 ms)
 * and hold integer nanoseconds exactly for 104 days of uptime; the drivers convert at the edge.
 * An open interval ends at +INFINITY. LW_NEVER (+INFINITY) as a due time means "nothing to do".
 */
#ifndef LW_CORE_COMMON_H_
#define LW_CORE_COMMON_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform/alloc.h"

#define LW_NEVER INFINITY

/* Error codes: 0 is success, failures are negative (libuv's convention). */
enum {
  LW_OK = 0,
  LW_EINVAL = -1,   /* an argument is out of its range */
  LW_ENOMEM = -2,   /* allocation failed; nothing changed */
  LW_ELIMIT = -3,   /* a documented bound (open intervals, reasons) is reached */
  LW_ENOENT = -4,   /* no such interval, validator or token */
  LW_EDISPOSED = -5, /* the object was disposed */
  LW_ETHREAD = -6,   /* the OS refused a thread or what it needs (a file descriptor) */
  LW_EBUSY = -7      /* called from inside the object's own callbacks */
};

/* What a call refused: filled by a call that returns LW_EINVAL or LW_ELIMIT (check, then commit:
 * nothing changed), so that a binding names the argument without checking the rule itself. */
typedef struct lw_err_s {
  const char *field; /* the argument, by its public name ("start", "holdMs", ...) */
  const char *range; /* what it must be ("a finite number >= 0", ...) */
} lw_err_t;

/* Fills `*err` (when not NULL) and returns `code`. */
static inline int lw__refuse(lw_err_t *err, int code, const char *field, const char *range) {
  if (err != NULL) {
    err->field = field;
    err->range = range;
  }
  return code;
}

/* Grows the array `*items` of `*cap` elements of `size` bytes so it holds at least `need`.
 * Returns 0 or LW_ENOMEM (the array is unchanged then). */
int lw__grow(void **items, size_t *cap, size_t need, size_t size);


#endif /* LW_CORE_COMMON_H_ */
