/* The registry of real-time monitor sets: see sets.h. */
#include "sets.h"

#include <math.h>
#include <stdlib.h>
#include <uv.h>

#include "../core/common.h"

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t mu;
static lw_set_t *head;
static uint64_t next_id = 1;

static void init_once(void) {
  if (uv_mutex_init(&mu) != 0) abort();
}

uint64_t lw_sets_add(uint64_t origin_ns) {
  lw_set_t *s = lw__calloc(1, sizeof(*s));
  uint64_t id;
  if (s == NULL) return 0;
  s->origin_ns = origin_ns;
  s->debugger.since = NAN;
  s->hang.since = NAN;
  s->hang.cause = -1;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  id = s->id = next_id++;
  s->next = head;
  head = s;
  uv_mutex_unlock(&mu);
  return id;
}

void lw_sets_remove(uint64_t id) {
  lw_set_t **p, *s = NULL;
  unsigned i;
  if (id == 0) return;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  for (p = &head; *p != NULL; p = &(*p)->next) {
    if ((*p)->id == id) {
      s = *p;
      *p = s->next;
      break;
    }
  }
  uv_mutex_unlock(&mu);
  if (s == NULL) return;
  for (i = 0; i < LW_STACKS_KEPT; i++) lw__free(s->stacks.kept[i].json);
  lw__free(s);
}

lw_set_t *lw_sets_lock(uint64_t id) {
  lw_set_t *s;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  for (s = head; s != NULL; s = s->next)
    if (s->id == id) return s;
  return NULL;
}

void lw_sets_unlock(void) { uv_mutex_unlock(&mu); }

double lw_sets_now(const lw_set_t *s) { return (double)(int64_t)(uv_hrtime() - s->origin_ns) / 1e6; }
