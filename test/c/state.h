/* The monitors' private states, read and set by name for white-box checks: each monitor's file
 * lists the fields a test may reach (lw__mon_desc_t.fields), the struct itself staying its own. */
#ifndef LW_TEST_STATE_H_
#define LW_TEST_STATE_H_

#include "core/monitors-internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Field `name` of monitor `mon`'s state in the set `m`; a name the monitor does not list ends
 * the run. */
static inline void *state_field(const lw_monset_core_t *m, lw_mon_t mon, const char *name) {
  void *p = lw__mon_field(m, mon, name);
  if (p == NULL) {
    fprintf(stderr, "monitor %s has no state field %s\n", lw_mon_name(mon), name);
    abort();
  }
  return p;
}
/* The field as an lvalue of `type`. */
#define STATE(m, mon, type, name) (*(type *)state_field(m, mon, name))

#endif /* LW_TEST_STATE_H_ */
