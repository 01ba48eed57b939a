/* A debugger holds the main thread: see debugger.h. Its part of the set registry (sets.h). */
#include "debugger.h"

#include <math.h>

#include "../platform/atomic.h"
#include "sets.h"

static lw_atomic_i64 changes;

static void changed(void) { lw_atomic_store(&changes, lw_atomic_load(&changes) + 1); }

/* The pause in progress ended now: kept until the main thread takes it; when the list is full it
 * joins the last one kept (which then covers both and the time between: nothing is dropped). */
static void end_pause(lw_set_t *s) {
  double end = lw_sets_now(s);
  if (s->debugger.nended == LW_DEBUGGER_KEPT) {
    s->debugger.ended[LW_DEBUGGER_KEPT - 1][1] = end;
  } else {
    s->debugger.ended[s->debugger.nended][0] = s->debugger.since;
    s->debugger.ended[s->debugger.nended++][1] = end;
  }
  s->debugger.since = NAN;
  changed();
}

void lw_debugger_paused(uint64_t id) {
  lw_set_t *s = lw_sets_lock(id);
  if (s != NULL && isnan(s->debugger.since)) {
    s->debugger.since = lw_sets_now(s);
    changed();
  }
  lw_sets_unlock();
}

void lw_debugger_resumed(uint64_t id) {
  lw_set_t *s = lw_sets_lock(id);
  if (s != NULL && !isnan(s->debugger.since)) end_pause(s);
  lw_sets_unlock();
}

void lw_debugger_watch(uint64_t id, int on) {
  lw_set_t *s = lw_sets_lock(id);
  if (s != NULL) {
    s->debugger.watching = on != 0;
    /* The watcher is gone: a pause it saw begin is over as far as anyone can tell. */
    if (!on && !isnan(s->debugger.since)) end_pause(s);
  }
  lw_sets_unlock();
}

double lw_debugger_held(uint64_t id) {
  lw_set_t *s = lw_sets_lock(id);
  double since = s != NULL ? s->debugger.since : NAN;
  lw_sets_unlock();
  return since;
}

size_t lw_debugger_take(uint64_t id, double (*ended)[2], size_t max, double *since) {
  lw_set_t *s = lw_sets_lock(id);
  size_t n = 0, i;
  *since = NAN;
  if (s != NULL) {
    n = s->debugger.nended < max ? s->debugger.nended : max;
    for (i = 0; i < n; i++) {
      ended[i][0] = s->debugger.ended[i][0];
      ended[i][1] = s->debugger.ended[i][1];
    }
    for (i = n; i < s->debugger.nended; i++) {
      s->debugger.ended[i - n][0] = s->debugger.ended[i][0];
      s->debugger.ended[i - n][1] = s->debugger.ended[i][1];
    }
    s->debugger.nended -= n;
    *since = s->debugger.since;
  }
  lw_sets_unlock();
  return n;
}

static lw_atomic_i64 main_id;

void lw_debugger_set_main(uint64_t id, int on) {
  lw_sets_lock(0); /* the registry's mutex orders a clear after a newer set */
  if (on)
    lw_atomic_store(&main_id, (int64_t)id);
  else if ((uint64_t)lw_atomic_load(&main_id) == id)
    lw_atomic_store(&main_id, 0);
  lw_sets_unlock();
}

uint64_t lw_debugger_main(void) { return (uint64_t)lw_atomic_load(&main_id); }

uint64_t lw_debugger_changes(void) { return (uint64_t)lw_atomic_load(&changes); }
