/* A debugger holds the main thread: see debugger.h. */
#include "debugger.h"

#include <math.h>
#include <stdlib.h>
#include <uv.h>

#include "../core/common.h"
#include "../platform/atomic.h"

typedef struct entry_s {
  uint64_t id;
  uint64_t origin_ns;
  double since;        /* the pause in progress began, or NAN */
  int watching;        /* a watcher runs: lw_debugger_watch */
  unsigned own;        /* pauses of lagwatch's own stack thread announced, not seen yet */
  int skipping;        /* the pause in progress is lagwatch's own */
  double ended[LW_DEBUGGER_KEPT][2];
  size_t nended;
  struct entry_s *next;
} entry_t;

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t mu;
static entry_t *head;
static lw_atomic_i64 changes;

static void init_once(void) {
  if (uv_mutex_init(&mu) != 0) abort();
}

static entry_t *find(uint64_t id) {
  entry_t *e;
  for (e = head; e != NULL; e = e->next)
    if (e->id == id) return e;
  return NULL;
}

static double now_of(const entry_t *e) { return (double)(int64_t)(uv_hrtime() - e->origin_ns) / 1e6; }

static void changed(void) { lw_atomic_store(&changes, lw_atomic_load(&changes) + 1); }

int lw_debugger_register(uint64_t id, uint64_t origin_ns) {
  entry_t *e = lw__calloc(1, sizeof(*e));
  if (e == NULL) return LW_ENOMEM;
  e->id = id;
  e->origin_ns = origin_ns;
  e->since = NAN;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  e->next = head;
  head = e;
  uv_mutex_unlock(&mu);
  return LW_OK;
}

void lw_debugger_unregister(uint64_t id) {
  entry_t **p, *e = NULL;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  for (p = &head; *p != NULL; p = &(*p)->next) {
    if ((*p)->id == id) {
      e = *p;
      *p = e->next;
      break;
    }
  }
  uv_mutex_unlock(&mu);
  lw__free(e);
}

void lw_debugger_paused(uint64_t id) {
  entry_t *e;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) {
    if (e->own > 0) {
      e->own--;
      e->skipping = 1;
    } else if (isnan(e->since)) {
      e->since = now_of(e);
      changed();
    }
  }
  uv_mutex_unlock(&mu);
}

void lw_debugger_resumed(uint64_t id) {
  entry_t *e;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) {
    if (e->skipping) {
      e->skipping = 0;
    } else if (!isnan(e->since)) {
      double end = now_of(e);
      /* Full: the pause joins the last one kept (it covers both and the time between). */
      if (e->nended == LW_DEBUGGER_KEPT) {
        e->ended[LW_DEBUGGER_KEPT - 1][1] = end;
      } else {
        e->ended[e->nended][0] = e->since;
        e->ended[e->nended++][1] = end;
      }
      e->since = NAN;
      changed();
    }
  }
  uv_mutex_unlock(&mu);
}

void lw_debugger_own_pause(uint64_t id) {
  entry_t *e;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL && e->watching) e->own++;
  uv_mutex_unlock(&mu);
}

void lw_debugger_watch(uint64_t id, int on) {
  entry_t *e;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) {
    e->watching = on != 0;
    e->own = 0;
    e->skipping = 0;
    if (!on && !isnan(e->since)) {
      /* The watcher is gone: a pause it saw begin is over as far as anyone can tell. */
      double end = now_of(e);
      if (e->nended < LW_DEBUGGER_KEPT) {
        e->ended[e->nended][0] = e->since;
        e->ended[e->nended++][1] = end;
      }
      e->since = NAN;
      changed();
    }
  }
  uv_mutex_unlock(&mu);
}

double lw_debugger_held(uint64_t id) {
  entry_t *e;
  double since = NAN;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) since = e->since;
  uv_mutex_unlock(&mu);
  return since;
}

size_t lw_debugger_take(uint64_t id, double (*ended)[2], size_t max, double *since) {
  entry_t *e;
  size_t n = 0, i;
  *since = NAN;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) {
    n = e->nended < max ? e->nended : max;
    for (i = 0; i < n; i++) {
      ended[i][0] = e->ended[i][0];
      ended[i][1] = e->ended[i][1];
    }
    for (i = n; i < e->nended; i++) {
      e->ended[i - n][0] = e->ended[i][0];
      e->ended[i - n][1] = e->ended[i][1];
    }
    e->nended -= n;
    *since = e->since;
  }
  uv_mutex_unlock(&mu);
  return n;
}

uint64_t lw_debugger_changes(void) { return (uint64_t)lw_atomic_load(&changes); }
