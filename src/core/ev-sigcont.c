/* A SIGCONT's evidence (SPEC §5): the process was stopped after the last moment any of its
 * threads was seen running and continued at the continue's time, a `pause` over that span, exact,
 * even when the stop was shorter than the worker can see. The main thread's looks for evidence
 * are kept as a ring: a continue may be read a look or two after it came. */
#include "monitors-internal.h"

#include <math.h>

/* Its state: the main thread's last looks for evidence, a ring (-INFINITY: none). */
typedef struct sigcont_state_s {
  double looks[4];
  unsigned nlooks;
} sigcont_state_t;
static sigcont_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_SRC_SIGCONT); }

static int sigcont_init(lw_monset_core_t *m) {
  unsigned i;
  for (i = 0; i < 4; i++) st(m)->looks[i] = -INFINITY;
  return LW_OK;
}

static int continued(lw_monset_core_t *m, const lw_continue_t *cont, double now) {
  double seen = cont->worker_before;
  unsigned i;
  /* A worker that ran since the continue told the stop itself (lw_worker_continued), from its
   * run before: sharper than this thread's looks when it ran while this thread was busy. */
  if (cont->worker_after) return 0;
  for (i = 0; i < 4; i++)
    if (st(m)->looks[i] <= cont->at && st(m)->looks[i] > seen) seen = st(m)->looks[i];
  if (!(seen > -INFINITY) || !(cont->at > seen)) return 0;
  lw__mon_activity(m, now);
  lw__mon_evidence_add(m, seen, cont->at, LW_REASON_PAUSE, now);
  return 1;
}

int lw_monset_core_look(lw_monset_core_t *m, const lw_continue_t *cont, double now) {
  int added = cont != NULL && continued(m, cont, now);
  /* The loop's poll, if it waited then, restarted its wait (loop.c). */
  if (cont != NULL) lw__mon_continued_at(m, cont->at);
  st(m)->looks[st(m)->nlooks++ % 4] = now;
  return added;
}

static const lw__mon_field_t sigcont_state_fields[] = {
    LW__MON_FIELD(sigcont_state_t, nlooks),
};

const lw__mon_desc_t lw__src_sigcont = {
    .name = "SIGCONT",
    .flags = LW__MON_EVIDENCE,
    LW__MON_STATE(sigcont_state_t, sigcont_state_fields),
    .init = sigcont_init,
};
