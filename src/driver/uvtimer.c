#include "uvtimer.h"

#include <math.h>

/* About 285 000 years: a due time further off is re-armed when this timer fires. */
#define LW_UV_MAX_DELAY_MS 9e15

int lw_uv_init(lw_uv_t *d, uv_loop_t *loop, uint64_t origin_ns) {
  int rc;
  d->sched.head = d->sched.tail = NULL;
  d->origin_ns = origin_ns;
  d->armed_due = LW_NEVER;
  d->hook = NULL;
  d->close_cb = NULL;
  d->closing = 0;
  d->turn = 0;
  d->data = NULL;
  rc = uv_timer_init(loop, &d->timer);
  if (rc != 0) return rc;
  d->timer.data = d;
  uv_unref((uv_handle_t *)&d->timer);
  return 0;
}

double lw_uv_now(const lw_uv_t *d) {
  return (double)(int64_t)(uv_hrtime() - d->origin_ns) / 1e6;
}

/* The due client that has not run in this turn, or NULL. */
static lw_client_t *first_due(lw_uv_t *d, double now) {
  lw_client_t *c;
  for (c = d->sched.head; c != NULL; c = c->next)
    if (c->ran_turn != d->turn && lw_client_due(c) <= now) return c;
  return NULL;
}

static void timer_cb(uv_timer_t *t) {
  lw_uv_t *d = t->data;
  lw_client_t *c;
  double now = lw_uv_now(d);
  d->armed_due = LW_NEVER;
  d->turn++;
  if (d->hook) d->hook(d, 1);
  /* Evidence first: the worker's messages and a due clock reading, before any held sample is
   * resolved or any new sample judged in this turn. */
  lw_sched_evidence(&d->sched, now);
  /* Each due client runs once; the list may change while they run (a dispose removes one), so
   * it is searched again after each. Work a run makes due at once (a zero-delay task) waits for
   * the next turn of the loop, as a zero-delay timer does. */
  while (!d->closing && (c = first_due(d, now)) != NULL) {
    c->ran_turn = d->turn;
    c->evidence_due = 0;
    c->run(c, now);
  }
  if (d->hook) d->hook(d, 0);
  lw_uv_rearm(d);
}

void lw_uv_rearm(lw_uv_t *d) {
  double due, delay;
  if (d->closing) return;
  lw_sched_first(&d->sched, &due);
  if (due == d->armed_due) return;
  if (due == LW_NEVER) {
    uv_timer_stop(&d->timer);
    d->armed_due = LW_NEVER;
    return;
  }
  delay = ceil(due - lw_uv_now(d));
  if (delay < 0) delay = 0;
  if (delay > LW_UV_MAX_DELAY_MS) delay = LW_UV_MAX_DELAY_MS; /* the cast below must fit */
  d->armed_due = due;
  uv_timer_start(&d->timer, timer_cb, (uint64_t)delay, 0);
}

static void close_cb(uv_handle_t *h) {
  lw_uv_t *d = h->data;
  if (d->close_cb) d->close_cb(d);
}

void lw_uv_close(lw_uv_t *d, lw_uv_close_cb cb) {
  if (d->closing) return;
  d->closing = 1;
  d->close_cb = cb;
  uv_close((uv_handle_t *)&d->timer, close_cb);
}
