#include "stacks.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../core/common.h"

typedef struct lw_stacks_entry_s {
  uint64_t id;
  uint64_t origin_ns;
  lw_stacks_wake_fn wake;
  void *wake_data;
  struct {
    double detected_at;
    double taken_at;
    char *json;
  } kept[LW_STACKS_KEPT];
  unsigned nkept;
  struct lw_stacks_entry_s *next;
} entry_t;

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t mu;
static entry_t *head;
static uint64_t next_id = 1;

static void init_once(void) {
  if (uv_mutex_init(&mu) != 0) abort();
}

static entry_t *find(uint64_t id) {
  entry_t *e;
  for (e = head; e != NULL; e = e->next)
    if (e->id == id) return e;
  return NULL;
}

uint64_t lw_stacks_register(uint64_t origin_ns) {
  entry_t *e = lw__calloc(1, sizeof(*e));
  uint64_t id;
  if (e == NULL) return 0;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  id = e->id = next_id++;
  e->origin_ns = origin_ns;
  e->next = head;
  head = e;
  uv_mutex_unlock(&mu);
  return id;
}

void lw_stacks_unregister(uint64_t id) {
  entry_t **p, *e = NULL;
  unsigned i;
  if (id == 0) return;
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
  if (e == NULL) return;
  for (i = 0; i < LW_STACKS_KEPT; i++) lw__free(e->kept[i].json);
  lw__free(e);
}

char *lw_stacks_get(uint64_t id, double detected_at, double *taken_at) {
  entry_t *e;
  char *copy = NULL;
  unsigned i;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) {
    for (i = 0; i < LW_STACKS_KEPT; i++) {
      if (e->kept[i].json == NULL || e->kept[i].detected_at != detected_at) continue;
      copy = lw__malloc(strlen(e->kept[i].json) + 1);
      if (copy != NULL) strcpy(copy, e->kept[i].json);
      *taken_at = e->kept[i].taken_at;
      break;
    }
  }
  uv_mutex_unlock(&mu);
  return copy;
}

void lw_stacks_wake(uint64_t id, double detected_at) {
  entry_t *e;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL && e->wake != NULL) e->wake(e->wake_data, detected_at);
  uv_mutex_unlock(&mu);
}

int lw_stacks_attach(uint64_t id, lw_stacks_wake_fn fn, void *data) {
  entry_t *e;
  int rc = -1;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL && e->wake == NULL) {
    e->wake = fn;
    e->wake_data = data;
    rc = 0;
  }
  uv_mutex_unlock(&mu);
  return rc;
}

void lw_stacks_detach(uint64_t id, void *data) {
  entry_t *e;
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL && e->wake_data == data) {
    e->wake = NULL;
    e->wake_data = NULL;
  }
  uv_mutex_unlock(&mu);
}

int lw_stacks_put(uint64_t id, double detected_at, const char *json, size_t len) {
  entry_t *e;
  char *copy = lw__malloc(len + 1);
  int rc = LW_ENOENT;
  if (copy == NULL) return LW_ENOMEM;
  memcpy(copy, json, len);
  copy[len] = '\0';
  uv_once(&once, init_once);
  uv_mutex_lock(&mu);
  if ((e = find(id)) != NULL) {
    unsigned slot = e->nkept++ % LW_STACKS_KEPT;
    lw__free(e->kept[slot].json);
    e->kept[slot].json = copy;
    e->kept[slot].detected_at = detected_at;
    e->kept[slot].taken_at = (double)(int64_t)(uv_hrtime() - e->origin_ns) / 1e6;
    copy = NULL;
    rc = LW_OK;
  }
  uv_mutex_unlock(&mu);
  lw__free(copy);
  return rc;
}
