/* The debugger watcher's evidence (SPEC §2): a debugger held the main thread, `debugger` intervals
 * (a stop, never a stall): one open while the pause lasts, closed when its end is known. */
#include "monitors-internal.h"

#include <math.h>

void lw_monset_core_debugged(lw_monset_core_t *m, double since, double until, double now) {
  if (!isfinite(since)) return;
  lw__mon_activity(m, now);
  if (m->dbg.seq != 0 && m->dbg.since != since) {
    /* Another pause: the one still open ended before it began, at the latest. */
    lw_tracker_close(&m->c->tracker, m->dbg.seq, since);
    m->dbg.seq = 0;
  }
  if (until == INFINITY) {
    if (m->dbg.seq == 0 &&
        lw_tracker_open(&m->c->tracker, LW_REASON_DEBUGGER, since, 0, &m->dbg.seq) != LW_OK) {
      m->c->lost++;
      m->dbg.seq = 0;
      return;
    }
    m->dbg.since = since;
    return;
  }
  if (m->dbg.seq != 0) {
    lw_tracker_close(&m->c->tracker, m->dbg.seq, until);
    m->dbg.seq = 0;
    return;
  }
  lw__mon_evidence_add(m, since, until, LW_REASON_DEBUGGER, now);
}
