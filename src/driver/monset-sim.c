/* The monitor set on the simulation (monset-internal.h): the simulation's clocks as readings, the
 * worker as a client of its own whose messages wait in a timestamped queue until the main thread
 * runs, and the loop's turns as the iteration hook. */
#include <math.h>
#include <string.h>

#include "monset-internal.h"

static double sim_wall(void *d) { return lw_sim_wall(d); }
static int sim_pair(void *d, double *a, double *b) {
  lw_sim_sleep_pair(d, a, b);
  return 0;
}
static double sim_idle(void *d) { return lw_sim_idle(d); }
static double sim_runnable(void *d) { return lw_sim_runnable(d); }
static int sim_poll_seen(void *d, double *at, double *idle, double *runnable) {
  const lw_sim_t *sim = d;
  if (!(sim->seen.at > -INFINITY)) return 0;
  *at = sim->seen.at;
  *idle = sim->seen.idle;
  *runnable = sim->seen.runnable;
  return 1;
}
static double sim_main_avail(void *d) { return lw_sim_main_avail(d); }
static int sim_main_sched(void *d, lw_thread_times_t *out) {
  lw_sim_main_times(d, &out->cpu_ms, &out->runq_ms, &out->throttled_ms);
  return 0;
}
static int sim_self_sched(void *d, lw_thread_times_t *out) {
  out->cpu_ms = NAN;
  out->throttled_ms = NAN;
  return lw_sim_worker_runq(d, &out->runq_ms);
}
static double sim_gc(void *d, double start, double end) { return lw_sim_gc_ms(d, start, end); }
static double sim_main_debugged(void *d) { return lw_sim_debugged(d); }

static double sim_now(const lw_monset_t *s) { return lw_sim_now(s->sim); }

static void sim_readings_of(lw_monset_t *s, lw_readings_t *rd) {
  lw_sim_t *sim = s->sim;
  rd->main.wall = sim_wall;
  rd->main.sleep_pair = rd->worker.sleep_pair = sim_pair;
  rd->main.idle = sim_idle;
  rd->main.runnable = sim_runnable;
  rd->main.poll_seen = sim_poll_seen;
  rd->worker.main_avail = sim_main_avail;
  /* No main_waiting: the simulated worker never rests, its checks come every liveness interval
   * as SPEC §6 states (lw_worker_next_due). */
  rd->main.main_sched = rd->worker.main_sched = sim_main_sched;
  rd->worker.self_sched = sim_self_sched;
  rd->worker.main_debugged = sim_main_debugged;
  rd->main.gc_ms = sim_gc;
  rd->main.data = rd->worker.data = sim;
  rd->main.mono_includes_sleep = lw_sim_mono_includes_sleep(sim);
}

/* Simulation: the worker's messages wait in the queue until the main thread runs. A message
 * that cannot be queued is counted as lost. */
static void sim_queue_push(lw_monset_t *s, const lw_msg_t *msgs, size_t n, double at) {
  size_t i, cap;
  for (i = 0; i < n; i++) {
    cap = s->inflight.cap;
    if (lw__grow((void **)&s->inflight.msgs, &cap, s->inflight.n + 1, sizeof(*s->inflight.msgs)) != LW_OK) {
      lw_conditions_count_lost(s->c, n - i);
      return;
    }
    cap = s->inflight.cap;
    if (lw__grow((void **)&s->inflight.at, &cap, s->inflight.n + 1, sizeof(*s->inflight.at)) != LW_OK) {
      lw_conditions_count_lost(s->c, n - i);
      return;
    }
    s->inflight.cap = cap;
    s->inflight.msgs[s->inflight.n] = msgs[i];
    s->inflight.at[s->inflight.n++] = at;
  }
}

/* The main thread looks for evidence: a SIGCONT since its last look (sigstop), with the worker's
 * runs around it, as monset-uv.c reads them. Returns 1 if that made evidence. */
static int sim_look(lw_monset_t *s, double now) {
  lw_continue_t cont;
  uint64_t conts = lw_sim_continues(s->sim, &cont.at);
  if (conts == s->rt.cont_seen) return lw_monset_core_look(&s->core, NULL, now);
  s->rt.cont_seen = conts;
  cont.worker_after = s->inflight.worker_conts == conts;
  cont.worker_before = s->inflight.worker_ran <= cont.at ? s->inflight.worker_ran : -INFINITY;
  return lw_monset_core_look(&s->core, &cont, now);
}

/* The messages that have arrived by `now`, in the order they were sent, a SIGCONT's evidence and
 * a debugger's pause once it is over. */
static int sim_receive(lw_monset_t *s, double now) {
  size_t n = 0;
  double since, until;
  int dbg = sim_look(s, now), paused = lw_sim_debug_take(s->sim, &since, &until);
  if (paused) lw_monset_core_debugged(&s->core, since, until, now);
  dbg |= paused;
  while (n < s->inflight.n && s->inflight.at[n] <= now) n++;
  if (n == 0) return dbg;
  lw_monset_core_receive(&s->core, s->inflight.msgs, n, now);
  memmove(s->inflight.msgs, s->inflight.msgs + n, (s->inflight.n - n) * sizeof(*s->inflight.msgs));
  memmove(s->inflight.at, s->inflight.at + n, (s->inflight.n - n) * sizeof(*s->inflight.at));
  s->inflight.n -= n;
  return 1;
}

/* After the simulation's messages still in flight. */
static void sim_receive_last(lw_monset_t *s, const lw_msg_t *msgs, size_t n, double now) {
  sim_queue_push(s, msgs, n, now);
  sim_receive(s, now);
}

/* The simulated loop waits after each run of its timers (a block wakes it: main_wake_cb). */
static void sim_main_run_cb(lw_client_t *c, double now) {
  lw_monset_t *s = LW_MONSET_OF(c, main_client);
  lw__monset_main_run(s, now, 0);
  lw_monset_core_idle(&s->core, now);
}
static void main_iteration_cb(lw_client_t *c, double now) {
  lw_monset_t *s = LW_MONSET_OF(c, main_client);
  int got;
  /* A poll still waiting was woken by this turn's timer. */
  lw_monset_core_poll_woke(&s->core, now);
  lw__monset_awake(s, now, &got);
  /* Evidence before the iteration's judgment, as monset-uv.c's prepare hook does. */
  if (!got) (void)s->be->receive(s, now);
  (void)lw_monset_core_iteration(&s->core, now,
                                 lw_monset_core_poll_ended(&s->core) ? lw_sim_runnable(s->sim) : NAN);
  /* The loop model's reading, as monset-uv.c's prepare hook passes it: the simulation has no
   * immediates, so each poll could wait (Node's does; an embedded one never waits). */
  lw_monset_core_poll(&s->core, 1);
  lw_monset_core_poll_wait(&s->core, now);
}
static void main_poll_end_cb(lw_client_t *c, double at) {
  lw_monset_t *s = LW_MONSET_OF(c, main_client);
  lw_monset_core_poll_woke(&s->core, at);
  lw_monset_core_poll_end(&s->core, at, lw_sim_runnable(s->sim));
}
/* A callback begins: the poll stopped waiting now. */
static void main_wake_cb(lw_client_t *c, double now) {
  lw_monset_t *s = LW_MONSET_OF(c, main_client);
  int got;
  lw_monset_core_poll_woke(&s->core, now);
  lw__monset_awake(s, now, &got);
}

static double async_next_due(lw_client_t *c) {
  lw_monset_t *s = LW_MONSET_OF(c, async_client);
  return s->inflight.n ? s->inflight.at[0] : LW_NEVER;
}
static void async_run_cb(lw_client_t *c, double now) {
  lw_monset_t *s = LW_MONSET_OF(c, async_client);
  sim_receive(s, now);
  lw__monset_hand_over(s, 0, 0, now);
  lw_monset_core_idle(&s->core, now);
}

static double worker_next_due(lw_client_t *c) {
  return lw_worker_next_due(lw_monset_core_worker(&LW_MONSET_OF(c, worker_client)->core));
}
static void worker_run_cb(lw_client_t *c, double now) {
  lw_monset_t *s = LW_MONSET_OF(c, worker_client);
  lw_msg_t out[LW_WORKER_MSGS_MAX + 1]; /* a continue's evidence, then a run's */
  size_t n = 0;
  double at;
  uint64_t conts = lw_sim_continues(s->sim, &at);
  /* The worker sees the main loop inside its poll's wait, as uv's looks (core: poll_seen). */
  lw_sim_look_at_poll(s->sim);
  if (conts != s->inflight.worker_conts) {
    /* A SIGCONT since the last run: the process was stopped from after that run. */
    s->inflight.worker_conts = conts;
    n = lw_worker_continued(lw_monset_core_worker(&s->core), at, out);
  }
  n += lw_worker_run(lw_monset_core_worker(&s->core), now, s->sim->progress, out + n);
  s->inflight.worker_ran = now;
  if (n) sim_queue_push(s, out, n, now);
}

static int sim_setup(lw_monset_t *s) {
  double at;
  /* Continues count from now on. */
  s->rt.cont_seen = s->inflight.worker_conts = lw_sim_continues(s->sim, &at);
  s->inflight.worker_ran = -INFINITY;
  s->main_client.run = sim_main_run_cb;
  s->main_client.iteration = main_iteration_cb;
  s->main_client.poll_end = main_poll_end_cb;
  s->main_client.wake = main_wake_cb;
  s->async_client.next_due = async_next_due;
  s->async_client.run = async_run_cb;
  s->async_client.thread = LW_THREAD_MAIN;
  s->worker_client.next_due = worker_next_due;
  s->worker_client.run = worker_run_cb;
  s->worker_client.thread = LW_THREAD_WORKER;
  /* At equal times the worker runs first: a thread that resumes reports what it saw before the
   * main samples of that instant are judged. */
  lw_sim_add(s->sim, &s->worker_client);
  lw_sim_add(s->sim, &s->async_client);
  lw_sim_add(s->sim, &s->main_client);
  return LW_OK;
}

static void sim_unregister(lw_monset_t *s) {
  lw_sim_remove(s->sim, &s->main_client);
  lw_sim_remove(s->sim, &s->async_client);
  lw_sim_remove(s->sim, &s->worker_client);
}

static double sim_idle_end(const lw_monset_t *s, double now) {
  (void)s;
  return now;
}
static int sim_sync(lw_monset_t *s) {
  (void)s;
  return 0;
}
static void sim_nothing(lw_monset_t *s) { (void)s; }
static int sim_close(lw_monset_t *s) {
  (void)s;
  return 0;
}
static void sim_release(lw_monset_t *s) {
  lw__free(s->inflight.msgs);
  lw__free(s->inflight.at);
  s->inflight.msgs = NULL;
  s->inflight.at = NULL;
  s->inflight.n = s->inflight.cap = 0;
}
static void sim_free(lw_monset_t *s) {
  sim_release(s);
  if (s->sim) lw_sim_unref(s->sim);
}
static const char *sim_sleep_clock(const lw_monset_t *s) {
  (void)s;
  return "simulated";
}
static size_t sim_memory(const lw_monset_t *s) { return s->inflight.cap * (sizeof(*s->inflight.msgs) + sizeof(*s->inflight.at)); }

const lw_monset_backend_t lw__monset_sim = {
    sim_now,     sim_readings_of, sim_setup, sim_unregister, sim_receive,     sim_receive_last,
    sim_idle_end, sim_sync,       sim_nothing, sim_nothing,  sim_close,       sim_release,
    sim_free,    sim_sleep_clock, sim_memory,      NULL, /* every simulated iteration is seen */
    NULL, /* its polls are judged where they end */
};
