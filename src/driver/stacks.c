/* Stacks of a hung main thread: see stacks.h. Their part of the set registry (sets.h). */
#include "stacks.h"

#include <string.h>

#include "../core/common.h"
#include "sets.h"

/* Under the lock: the kept slot of the hang detected at `detected_at`, or -1. */
static int find_kept(const lw_set_t *s, double detected_at) {
  unsigned i;
  for (i = 0; s != NULL && i < LW_STACKS_KEPT; i++)
    if (s->stacks.kept[i].json != NULL && s->stacks.kept[i].detected_at == detected_at) return (int)i;
  return -1;
}

char *lw_stacks_get(uint64_t id, double detected_at, double *taken_at) {
  lw_set_t *s = lw_sets_lock(id);
  char *copy = NULL;
  int i = find_kept(s, detected_at);
  if (i >= 0) {
    copy = lw__malloc(strlen(s->stacks.kept[i].json) + 1);
    if (copy != NULL) strcpy(copy, s->stacks.kept[i].json);
    *taken_at = s->stacks.kept[i].taken_at;
  }
  lw_sets_unlock();
  return copy;
}

long lw_stacks_copy(uint64_t id, double detected_at, char *buf, size_t cap) {
  lw_set_t *s = lw_sets_lock(id);
  long n = -1;
  int i = find_kept(s, detected_at);
  if (i >= 0) {
    size_t len = strlen(s->stacks.kept[i].json);
    if (len < cap) {
      memcpy(buf, s->stacks.kept[i].json, len + 1);
      n = (long)len;
    } else {
      n = -2;
    }
  }
  lw_sets_unlock();
  return n;
}

void lw_stacks_wake(uint64_t id, double detected_at, int block) {
  lw_set_t *s = lw_sets_lock(id);
  if (s != NULL && s->stacks.wake != NULL) s->stacks.wake(s->stacks.wake_data, detected_at, block);
  lw_sets_unlock();
}

int lw_stacks_attach(uint64_t id, lw_stacks_wake_fn fn, void *data) {
  lw_set_t *s = lw_sets_lock(id);
  int rc = -1;
  if (s != NULL && s->stacks.wake == NULL) {
    s->stacks.wake = fn;
    s->stacks.wake_data = data;
    rc = 0;
  }
  lw_sets_unlock();
  return rc;
}

void lw_stacks_detach(uint64_t id, void *data) {
  lw_set_t *s = lw_sets_lock(id);
  if (s != NULL && s->stacks.wake_data == data) {
    s->stacks.wake = NULL;
    s->stacks.wake_data = NULL;
  }
  lw_sets_unlock();
}

int lw_stacks_put(uint64_t id, double detected_at, const char *json, size_t len) {
  lw_set_t *s;
  char *copy = lw__malloc(len + 1);
  int rc = LW_ENOENT;
  if (copy == NULL) return LW_ENOMEM;
  memcpy(copy, json, len);
  copy[len] = '\0';
  if ((s = lw_sets_lock(id)) != NULL) {
    unsigned slot = s->stacks.nkept++ % LW_STACKS_KEPT;
    lw__free(s->stacks.kept[slot].json);
    s->stacks.kept[slot].json = copy;
    s->stacks.kept[slot].detected_at = detected_at;
    s->stacks.kept[slot].taken_at = lw_sets_now(s);
    copy = NULL;
    rc = LW_OK;
  }
  lw_sets_unlock();
  lw__free(copy);
  return rc;
}
