/* What a driver runs: clients (one per conditions, later one per monitor) that report when they
 * next need to run and do their work when called. A driver owns a list of clients and calls
 * each one at its due time, in order of due time (ties: the earliest registered first). */
#ifndef LW_DRIVER_SCHED_H_
#define LW_DRIVER_SCHED_H_

#include "../core/common.h"

typedef struct lw_client_s lw_client_t;

typedef enum { LW_THREAD_MAIN = 0, LW_THREAD_WORKER = 1 } lw_thread_t;

struct lw_client_s {
  double (*next_due)(lw_client_t *client);
  void (*run)(lw_client_t *client, double now);
  /* Called once per main-loop iteration, before its work (the simulation's uv_prepare); NULL
   * if not wanted. */
  void (*iteration)(lw_client_t *client, double now);
  /* The simulation only: the main loop's poll ended at `at` (the uv driver's check hook); NULL
   * if not wanted. */
  void (*poll_end)(lw_client_t *client, double at);
  /* The simulation only: the main thread starts work at `now` that no client's run began (a
   * block), so its loop stopped waiting then. NULL if not wanted. */
  void (*wake)(lw_client_t *client, double now);
  /* Evidence before judgment (SPEC §4): called, when not NULL, for every client before any
   * main-thread client runs. Returns 1 if it queued something to hand over: the client then
   * counts as due at once (`evidence_due`) and its run() delivers it. */
  int (*evidence)(lw_client_t *client, double now);
  int evidence_due;
  lw_thread_t thread; /* where run() happens: the simulation models each thread */
  int is_timer;       /* its work is timers (throttled by the OS); else I/O such as async */
  unsigned ran_turn;  /* the uv driver's turn in which it last ran */
  lw_client_t *prev;
  lw_client_t *next;
};

typedef struct lw_sched_s {
  lw_client_t *head;
  lw_client_t *tail;
} lw_sched_t;

static inline void lw_sched_add(lw_sched_t *s, lw_client_t *c) {
  c->prev = s->tail;
  c->next = NULL;
  if (s->tail) s->tail->next = c; else s->head = c;
  s->tail = c;
}

static inline void lw_sched_remove(lw_sched_t *s, lw_client_t *c) {
  if (c->prev) c->prev->next = c->next; else if (s->head == c) s->head = c->next; else return;
  if (c->next) c->next->prev = c->prev; else s->tail = c->prev;
  c->prev = c->next = NULL;
}

/* When the client must run: at once after its evidence queued something, else its own due. */
static inline double lw_client_due(lw_client_t *c) {
  return c->evidence_due ? -INFINITY : c->next_due(c);
}

/* Calls every client's evidence hook at `now` (SPEC §4: evidence first). */
static inline void lw_sched_evidence(lw_sched_t *s, double now) {
  lw_client_t *c;
  for (c = s->head; c != NULL; c = c->next)
    if (c->evidence != NULL && c->evidence(c, now)) c->evidence_due = 1;
}

/* The client due first, or NULL if none is due before +INFINITY; its due time in `*due`. */
static inline lw_client_t *lw_sched_first(const lw_sched_t *s, double *due) {
  lw_client_t *c, *best = NULL;
  double d, best_due = LW_NEVER;
  for (c = s->head; c != NULL; c = c->next) {
    d = lw_client_due(c);
    if (d < best_due) { best_due = d; best = c; }
  }
  *due = best_due;
  return best;
}

#endif /* LW_DRIVER_SCHED_H_ */
