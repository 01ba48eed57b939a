/* The debugger watcher's evidence (SPEC §2): a debugger held the main thread, `debugger` intervals
 * (a stop, never a stall): one open while the pause lasts, closed when its end is known. */
#include "monitors-internal.h"

#include <math.h>

/* Its state: the open `debugger` interval, or 0, and when it began. */
typedef struct debugger_state_s {
  uint64_t seq;
  double since;
} debugger_state_t;
static debugger_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_SRC_DEBUGGER); }

void lw_monset_core_debugged(lw_monset_core_t *m, double since, double until, double now) {
  if (!isfinite(since)) return;
  lw__mon_activity(m, now);
  if (st(m)->seq != 0 && st(m)->since != since) {
    /* Another pause: the one still open ended before it began, at the latest. */
    lw_tracker_close(&m->c->tracker, st(m)->seq, since);
    st(m)->seq = 0;
  }
  if (until == INFINITY) {
    if (st(m)->seq == 0 &&
        lw_tracker_open(&m->c->tracker, LW_REASON_DEBUGGER, since, 0, &st(m)->seq) != LW_OK) {
      m->c->lost++;
      st(m)->seq = 0;
      return;
    }
    st(m)->since = since;
    return;
  }
  if (st(m)->seq != 0) {
    lw_tracker_close(&m->c->tracker, st(m)->seq, until);
    st(m)->seq = 0;
    return;
  }
  lw__mon_evidence_add(m, since, until, LW_REASON_DEBUGGER, now);
}

static const lw__mon_field_t debugger_state_fields[] = {
    LW__MON_FIELD(debugger_state_t, seq),
};

const lw__mon_desc_t lw__src_debugger = {
    .name = "debugger",
    .flags = LW__MON_EVIDENCE,
    LW__MON_STATE(debugger_state_t, debugger_state_fields),
};
