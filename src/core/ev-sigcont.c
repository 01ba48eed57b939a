/* A SIGCONT's evidence (SPEC §5): the process was stopped after the last moment any of its
 * threads was seen running and continued now, a `pause` over that span, exact, even when the
 * stop was shorter than the worker can see. */
#include "monitors-internal.h"

#include <math.h>

int lw_monset_core_continued(lw_monset_core_t *m, double seen, double at, double now) {
  if (!(seen > -INFINITY) || !(at > seen)) return 0;
  lw__mon_activity(m, now);
  lw__mon_evidence_add(m, seen, at, LW_REASON_PAUSE, now);
  return 1;
}
