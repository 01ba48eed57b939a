/* The real-time monitor sets that threads other than the main one reach by id: one list and one
 * mutex for what the stack thread (stacks.h), the debugger watcher (debugger.h) and the C worker
 * share with the main thread. Each module keeps its own part of an entry; only they touch it,
 * and only between lw_sets_lock and lw_sets_unlock. */
#ifndef LW_DRIVER_SETS_H_
#define LW_DRIVER_SETS_H_

#include <stddef.h>
#include <stdint.h>

/* Stacks kept per set: the last ones, by the detection time of their hang. */
#define LW_STACKS_KEPT 4
/* Debugger pauses kept per set until the main thread takes them. More are merged into the last. */
#define LW_DEBUGGER_KEPT 16

typedef void (*lw_stacks_wake_fn)(void *data, double detected_at, int block);

typedef struct lw_set_s {
  uint64_t id;
  uint64_t origin_ns; /* the set's clock: ms since this uv_hrtime() */
  struct {            /* stacks.c */
    lw_stacks_wake_fn wake;
    void *wake_data;
    struct {
      double detected_at;
      double taken_at;
      char *json;
    } kept[LW_STACKS_KEPT];
    unsigned nkept;
  } stacks;
  struct {              /* debugger.c */
    double since;       /* the pause in progress began, or NAN */
    int watching;       /* a watcher runs: lw_debugger_watch */
    double ended[LW_DEBUGGER_KEPT][2];
    size_t nended;
  } debugger;
  struct {        /* monset-uv-hangs.c: the hang in progress, for readers on other threads */
    double since; /* its start on the set's clock, or NAN: none */
    int cause;    /* its cause so far (lw_cause_kind_t), or -1: unknown */
  } hang;
  struct lw_set_s *next;
} lw_set_t;

/* Main thread: a set's entry. Returns its id (> 0), or 0 when memory ran out. */
uint64_t lw_sets_add(uint64_t origin_ns);
/* Main thread: removes the entry and frees all it holds (id 0: nothing). */
void lw_sets_remove(uint64_t id);

/* Any thread: locks the registry and returns the set, or NULL if it is gone; either way
 * lw_sets_unlock() follows. */
lw_set_t *lw_sets_lock(uint64_t id);
void lw_sets_unlock(void);

/* Now on the set's clock, in ms. */
double lw_sets_now(const lw_set_t *s);

#endif /* LW_DRIVER_SETS_H_ */
