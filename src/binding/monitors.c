/* The monitors' binding: one monitor set per setupAllMonitors(), driven by the simulation or by
 * libuv. Glue only: the rules are in src/core/monitors.c.
 *
 * Real time (libuv):
 * - main-thread timers are one client of the thread's uv driver (its single unref'd timer);
 * - loopBlock's iteration hook and the progress stamp come from an unref'd uv_prepare;
 * - the worker thread is src/driver/uvworker.c; its messages arrive through an unref'd
 *   uv_async_t of the main loop. It is stopped and joined by stop(), by the environment's
 *   cleanup hook and by the finalizer.
 * Simulated time: the same pieces are three clients of the simulation (main timers, the async
 * delivery on the main thread, the worker thread).
 *
 * Memory: the set is freed when its JS handle is gone and its uv handles are closed. While a
 * monitor runs, a strong reference keeps the JS side alive: monitors that nobody holds still run.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/monitors.h"
#include "../driver/uvworker.h"
#include "../platform/clocks.h"
#include "binding.h"


struct lwb_mon_s {
  lw_client_t main_client; /* first member: the drivers hand back this pointer */
  lw_client_t async_client;
  lw_client_t worker_client;
  lw_monitors_t core;
  lwb_env_t *e;
  lwb_cond_t *cond;
  lw_sim_t *sim;
  napi_ref self; /* the JS monitors object: strong while a monitor runs */
  unsigned self_strong;
  unsigned refs;       /* the external, and each open uv handle */
  int registered;
  lwb_mon_t *env_next; /* the environment's list, for its cleanup */

  /* Messages from the worker: in the simulation a plain array, in real time the queue. */
  lw_msg_t *queue;
  double *queue_at;
  size_t nqueue;
  size_t queue_cap;

  /* Real time. */
  int uv_ready;
  uv_prepare_t prepare;
  uv_async_t async;
  lw_uvworker_t uw;
};

static const napi_type_tag mon_tag = {0x6c61677761746368ULL, 0x6d6f6e69746f0001ULL};

static inline lwb_mon_t *from_client(lw_client_t *c, size_t offset) {
  return (lwb_mon_t *)(void *)((char *)c - offset);
}
#define MON_OF(client, member) from_client((client), offsetof(lwb_mon_t, member))

static double mon_now(const lwb_mon_t *m) { return lwb_cond_now(m->cond); }

/* Readings --------------------------------------------------------------------------------- */

static double sim_wall(void *d) { return lw_sim_wall(d); }
static int sim_pair(void *d, double *a, double *b) {
  lw_sim_sleep_pair(d, a, b);
  return 0;
}
static double sim_idle(void *d) { return lw_sim_idle(d); }

static double uv_wall(void *d) {
  (void)d;
  return lw_clock_wall_ms();
}
static int uv_pair(void *d, double *a, double *b) {
  (void)d;
  return lw_clock_sleep_pair_ms(a, b);
}
static double uv_idle(void *d) {
  lwb_mon_t *m = d;
  return (double)uv_metrics_idle_time(m->e->uv.timer.loop) / 1e6;
}

/* Messages ----------------------------------------------------------------------------------- */

static int queue_push(lwb_mon_t *m, const lw_msg_t *msgs, size_t n, double at) {
  size_t i, cap = m->queue_cap;
  if (lw__grow((void **)&m->queue, &cap, m->nqueue + n, sizeof(*m->queue)) != LW_OK) return -1;
  cap = m->queue_cap;
  if (lw__grow((void **)&m->queue_at, &cap, m->nqueue + n, sizeof(*m->queue_at)) != LW_OK)
    return -1;
  m->queue_cap = cap;
  for (i = 0; i < n; i++) {
    m->queue[m->nqueue] = msgs[i];
    m->queue_at[m->nqueue++] = at;
  }
  return 0;
}

/* Batches to JS ---------------------------------------------------------------------------- */

/* A copy of a batch as a Float64Array, or NULL with an exception. */
static napi_value float64_array(napi_env env, const lw_batch_t *b) {
  napi_value ab, ta;
  void *buf;
  LW_NAPI_CALL(env, napi_create_arraybuffer(env, b->len * sizeof(double), &buf, &ab));
  memcpy(buf, b->values, b->len * sizeof(double));
  LW_NAPI_CALL(env, napi_create_typedarray(env, napi_float64_array, b->len, ab, 0, &ta));
  return ta;
}

static int batch_extra(napi_env env, napi_value arr, uint32_t *len, void *data) {
  lwb_mon_t *m = data;
  napi_value ev, batches;
  int i;
  LW_NAPI_CALL_RET(env, napi_create_object(env, &ev), -1);
  LW_NAPI_CALL_RET(env, napi_create_object(env, &batches), -1);
  for (i = 0; i < LW_MON_COUNT; i++) {
    const lw_batch_t *b = &m->core.batch[i];
    if (b->len == 0) continue;
    if (lwb_set_value(env, batches, lw_mon_name((lw_mon_t)i), float64_array(env, b))) return -1;
  }
  if (lwb_set_string(env, ev, "type", "batch") || lwb_set_value(env, ev, "batches", batches))
    return -1;
  if (m->core.self_lag_batch.len > 0 &&
      lwb_set_value(env, ev, "selfLag", float64_array(env, &m->core.self_lag_batch)))
    return -1;
  LW_NAPI_CALL_RET(env, napi_set_element(env, arr, (*len)++, ev), -1);
  return 0;
}

static int read_extra(napi_env env, napi_value arr, uint32_t *len, void *data) {
  napi_value ev;
  (void)data;
  LW_NAPI_CALL_RET(env, napi_create_object(env, &ev), -1);
  if (lwb_set_string(env, ev, "type", "read")) return -1;
  LW_NAPI_CALL_RET(env, napi_set_element(env, arr, (*len)++, ev), -1);
  return 0;
}

/* Main-thread timers: run what is due, deliver events, flush the batches when due. With a
 * lifecycle reader set (Electron, a renderer), the reader is asked first, once per run rather
 * than once per sample: a state that changed before its event already counts (SPEC §3). */
static void main_run(lwb_mon_t *m, double now) {
  int flush;
  if (m->cond->has_reader) lwb_deliver(m->cond, read_extra, NULL);
  flush = lw_monitors_run(&m->core, now);
  lwb_deliver(m->cond, flush ? batch_extra : NULL, m);
  if (flush) lw_monitors_flushed(&m->core, now);
}

static double main_next_due(lw_client_t *c) { return lw_monitors_next_due(&MON_OF(c, main_client)->core); }
static void main_run_cb(lw_client_t *c, double now) { main_run(MON_OF(c, main_client), now); }
static void main_iteration_cb(lw_client_t *c, double now) {
  lw_monitors_iteration(&MON_OF(c, main_client)->core, now);
}

/* Received messages, on the main thread. */
static void receive(lwb_mon_t *m, const lw_msg_t *msgs, size_t n, double now) {
  size_t i;
  for (i = 0; i < n; i++) lw_monitors_receive(&m->core, &msgs[i], now);
  lwb_deliver(m->cond, NULL, NULL);
}

static double async_next_due(lw_client_t *c) {
  lwb_mon_t *m = MON_OF(c, async_client);
  return m->nqueue ? m->queue_at[0] : LW_NEVER;
}

static void async_run_cb(lw_client_t *c, double now) {
  lwb_mon_t *m = MON_OF(c, async_client);
  size_t n = 0;
  lw_msg_t msgs[64];
  /* Everything sent up to now arrives in this turn (sends coalesce). */
  while (n < m->nqueue && n < 64 && m->queue_at[n] <= now) {
    msgs[n] = m->queue[n];
    n++;
  }
  memmove(m->queue, m->queue + n, (m->nqueue - n) * sizeof(*m->queue));
  memmove(m->queue_at, m->queue_at + n, (m->nqueue - n) * sizeof(*m->queue_at));
  m->nqueue -= n;
  receive(m, msgs, n, now);
}

static double worker_next_due(lw_client_t *c) {
  return lw_worker_next_due(&MON_OF(c, worker_client)->core.worker);
}

static void worker_run_cb(lw_client_t *c, double now) {
  lwb_mon_t *m = MON_OF(c, worker_client);
  lw_msg_t out[LW_WORKER_MSGS_MAX];
  size_t n = lw_worker_run(&m->core.worker, now, m->sim->progress, &m->core.rd, out);
  if (n) queue_push(m, out, n, now);
}

/* Real time: main-loop handles ------------------------------------------------------------- */

static void async_cb(uv_async_t *a) {
  lwb_mon_t *m = a->data;
  lw_msg_t *msgs;
  double now = lw_uv_now(&m->e->uv);
  size_t n = lw_uvworker_drain(&m->uw, &msgs);
  lw_uvworker_progress(&m->uw, now);
  if (msgs) {
    m->e->in_uv_callback = 1;
    receive(m, msgs, n, now);
    m->e->in_uv_callback = 0;
    free(msgs);
  }
  lw_uv_rearm(&m->e->uv);
}

static void prepare_cb(uv_prepare_t *p) {
  lwb_mon_t *m = p->data;
  double now = lw_uv_now(&m->e->uv);
  lw_uvworker_progress(&m->uw, now);
  lw_monitors_iteration(&m->core, now);
  lw_uv_rearm(&m->e->uv);
}

static void mon_free_if_done(lwb_mon_t *m) {
  if (m->refs > 0) return;
  lw_monitors_free(&m->core);
  if (m->uv_ready) lw_uvworker_free(&m->uw);
  free(m->queue);
  free(m->queue_at);
  lwb_cond_unref(m->e->env, m->cond);
  free(m);
}

static void handle_closed(uv_handle_t *h) {
  lwb_mon_t *m = h->data;
  lwb_env_t *e = m->e;
  m->refs--;
  mon_free_if_done(m);
  lwb_env_closed(e);
}

static int uv_setup(lwb_mon_t *m) {
  uv_loop_t *loop = m->e->uv.timer.loop;
  if (m->uv_ready) return 0;
  if (lw_uvworker_init(&m->uw, &m->core.worker, &m->core.rd, m->e->uv.origin_ns, &m->async) != 0)
    return -1;
  uv_prepare_init(loop, &m->prepare);
  if (uv_async_init(loop, &m->async, async_cb) != 0) {
    /* Nothing of this set is open yet but the prepare handle: close it as the others close. */
    m->prepare.data = m;
    m->refs++;
    m->e->pending_closes++;
    uv_close((uv_handle_t *)&m->prepare, handle_closed);
    lw_uvworker_free(&m->uw);
    return -1;
  }
  m->prepare.data = m->async.data = m;
  uv_unref((uv_handle_t *)&m->prepare);
  uv_unref((uv_handle_t *)&m->async);
  m->refs += 2;
  m->uv_ready = 1;
  return 0;
}

/* Stops the thread and closes the main-loop handles; the memory goes with the last close. */
static void uv_teardown(lwb_mon_t *m) {
  if (m->uv_ready) lw_uvworker_stop(&m->uw);
  if (!m->uv_ready || uv_is_closing((uv_handle_t *)&m->async)) return;
  m->e->pending_closes += 2;
  uv_close((uv_handle_t *)&m->prepare, handle_closed);
  uv_close((uv_handle_t *)&m->async, handle_closed);
}

/* Puts the drivers in line with what runs: the prepare hook for loopBlock and liveness, the
 * worker thread for worker and liveness. */
static void uv_sync(lwb_mon_t *m) {
  const lw_monitors_t *k = &m->core;
  if (!m->uv_ready || uv_is_closing((uv_handle_t *)&m->async)) return;
  if (k->running[LW_MON_LOOPBLOCK] || k->running[LW_MON_LIVENESS])
    uv_prepare_start(&m->prepare, prepare_cb);
  else
    uv_prepare_stop(&m->prepare);
  if (lw_monitors_worker_needed(k)) lw_uvworker_start(&m->uw);
  lw_uv_rearm(&m->e->uv);
}

/* Environment teardown: every set stops its thread and closes its handles. */
static void mon_unregister(lwb_mon_t *m);

void lwb_monitors_cleanup(lwb_env_t *e) {
  lwb_mon_t *m;
  for (m = e->mons; m != NULL; m = m->env_next) {
    mon_unregister(m); /* from the simulation or the uv driver, whichever runs it */
    uv_teardown(m);
  }
}

static void env_list_remove(lwb_mon_t *m) {
  lwb_mon_t **p;
  for (p = &m->e->mons; *p != NULL; p = &(*p)->env_next) {
    if (*p == m) {
      *p = m->env_next;
      return;
    }
  }
}

static void mon_unregister(lwb_mon_t *m) {
  if (!m->registered) return;
  m->registered = 0;
  if (m->sim) {
    lw_sim_remove(m->sim, &m->main_client);
    lw_sim_remove(m->sim, &m->async_client);
    lw_sim_remove(m->sim, &m->worker_client);
  } else {
    lw_sched_remove(&m->e->uv.sched, &m->main_client);
  }
}

static void mon_finalize(napi_env env, void *data, void *hint) {
  lwb_mon_t *m = data;
  (void)hint;
  mon_unregister(m);
  env_list_remove(m);
  if (m->self) napi_delete_reference(env, m->self);
  m->self = NULL;
  if (!m->sim) uv_teardown(m);
  m->refs--;
  mon_free_if_done(m);
}

/* The strong reference on the JS side follows "any monitor runs". */
static void keep_alive(napi_env env, lwb_mon_t *m) {
  int any = 0, i;
  uint32_t count;
  for (i = 0; i < LW_MON_COUNT; i++) any |= m->core.running[i];
  if (any && !m->self_strong) {
    napi_reference_ref(env, m->self, &count);
    m->self_strong = 1;
  } else if (!any && m->self_strong) {
    napi_reference_unref(env, m->self, &count);
    m->self_strong = 0;
  }
}

/* JS functions ------------------------------------------------------------------------------- */

static lwb_mon_t *get_mon(napi_env env, napi_value v) {
  return lwb_unwrap_tagged(env, v, &mon_tag, "monitors");
}

/* The options that may be set, by their public names. */
static const struct {
  const char *name;
  size_t offset;
  int integer;
} config_fields[] = {
    {"driftLag.intervalMs", offsetof(lw_monitors_config_t, drift_interval_ms), 0},
    {"macrotaskLag.intervalMs", offsetof(lw_monitors_config_t, macrotask_interval_ms), 0},
    {"idleAvailability.intervalMs", offsetof(lw_monitors_config_t, idle_period_ms), 0},
    {"worker.intervalMs", offsetof(lw_monitors_config_t, worker_interval_ms), 0},
    {"liveness.intervalMs", offsetof(lw_monitors_config_t, liveness_interval_ms), 0},
    {"clockDrift.intervalMs", offsetof(lw_monitors_config_t, clock_interval_ms), 0},
    {"clockDrift.suspendMinMs", offsetof(lw_monitors_config_t, suspend_min_ms), 0},
    {"clockDrift.stepMinMs", offsetof(lw_monitors_config_t, step_min_ms), 0},
    {"timerThrottle.lateMs", offsetof(lw_monitors_config_t, throttle_late_ms), 0},
    {"timerThrottle.firings", offsetof(lw_monitors_config_t, throttle_firings), 1},
    {"flushIntervalMs", offsetof(lw_monitors_config_t, flush_interval_ms), 0},
};

/* Reads the options object { 'driftLag.intervalMs': n, ..., sleepClock: bool } into `cfg`;
 * returns 0, or -1 with a TypeError / RangeError naming the option. */
static int parse_config(napi_env env, napi_value obj, lw_monitors_config_t *cfg) {
  napi_value v;
  size_t i;
  bool has;
  napi_valuetype t;
  LW_NAPI_CALL_RET(env, napi_typeof(env, obj, &t), -1);
  if (t != napi_object) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "The \"options\" argument must be an object");
    return -1;
  }
  for (i = 0; i < sizeof(config_fields) / sizeof(config_fields[0]); i++) {
    double d;
    char m_[160];
    LW_NAPI_CALL_RET(env, napi_has_named_property(env, obj, config_fields[i].name, &has), -1);
    if (!has) continue;
    LW_NAPI_CALL_RET(env, napi_get_named_property(env, obj, config_fields[i].name, &v), -1);
    if (lwb_is_undefined(env, v)) continue;
    if (lwb_arg_number(env, v, config_fields[i].name, &d)) return -1;
    if (config_fields[i].integer) {
      if (!(d >= 1 && d <= 8 && d == floor(d))) {
        snprintf(m_, sizeof(m_), "The \"%s\" argument must be an integer from 1 to 8", config_fields[i].name);
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE", m_);
        return -1;
      }
      *(int *)(void *)((char *)cfg + config_fields[i].offset) = (int)d;
    } else {
      if (!(isfinite(d) && d > 0)) {
        snprintf(m_, sizeof(m_), "The \"%s\" argument must be a finite number > 0", config_fields[i].name);
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE", m_);
        return -1;
      }
      *(double *)(void *)((char *)cfg + config_fields[i].offset) = d;
    }
  }
  LW_NAPI_CALL_RET(env, napi_has_named_property(env, obj, "sleepClock", &has), -1);
  if (has) {
    bool b;
    LW_NAPI_CALL_RET(env, napi_get_named_property(env, obj, "sleepClock", &v), -1);
    if (!lwb_is_undefined(env, v)) {
      if (napi_get_value_bool(env, v, &b) != napi_ok) {
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
                              "The \"clockDrift.sleepClock\" argument must be of type boolean");
        return -1;
      }
      cfg->sleep_clock = b;
    }
  }
  return 0;
}

/* monCheck(options): the checks of monCreate, creating nothing (setupAllMonitors runs them
 * before it makes its conditions, so that a bad option changes nothing). */
static napi_value b_mon_check(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lw_monitors_config_t cfg;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  lw_monitors_config_default(&cfg, NULL);
  parse_config(env, argv[0], &cfg);
  return NULL;
}

/* monCreate(conditions, self, options: { 'driftLag.intervalMs': n, ..., sleepClock: bool }) */
static napi_value b_mon_create(napi_env env, napi_callback_info info) {
  napi_value argv[3], ext;
  lwb_cond_t *c;
  lwb_mon_t *m;
  lw_monitors_config_t cfg;
  lw_readings_t rd;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (c->core.disposed) {
    napi_throw_error(env, "ERR_LAGWATCH_DISPOSED", "lagwatch: the conditions are disposed");
    return NULL;
  }
  lw_monitors_config_default(&cfg, &c->core);
  if (!isfinite(cfg.stall_threshold_ms)) cfg.stall_threshold_ms = 5000;
  if (parse_config(env, argv[2], &cfg)) return NULL;
  m = calloc(1, sizeof(*m));
  if (m == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  m->e = c->e;
  m->cond = c;
  m->sim = c->sim;
  memset(&rd, 0, sizeof(rd));
  if (m->sim) {
    rd.wall = sim_wall;
    rd.sleep_pair = sim_pair;
    rd.idle = sim_idle;
    rd.data = m->sim;
    rd.mono_includes_sleep = lw_sim_mono_includes_sleep(m->sim);
  } else {
    rd.wall = uv_wall;
    rd.sleep_pair = uv_pair;
    rd.idle = uv_idle;
    rd.data = m;
#if defined(__APPLE__) || defined(_WIN32)
    rd.mono_includes_sleep = 1;
#endif
  }
  if (lw_monitors_init(&m->core, &c->core, &cfg, &rd) != LW_OK) {
    lw_monitors_free(&m->core);
    free(m);
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: cannot create the monitors");
    return NULL;
  }
  c->refs++;
  m->refs = 1;
  if (napi_create_external(env, m, mon_finalize, NULL, &ext) != napi_ok) {
    mon_finalize(env, m, NULL);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  LW_NAPI_CALL(env, napi_type_tag_object(env, ext, &mon_tag));
  LW_NAPI_CALL(env, napi_create_reference(env, argv[1], 0, &m->self));
  m->main_client.next_due = main_next_due;
  m->main_client.run = main_run_cb;
  m->main_client.thread = LW_THREAD_MAIN;
  m->main_client.is_timer = 1;
  m->env_next = m->e->mons;
  m->e->mons = m;
  if (m->sim) {
    m->main_client.iteration = main_iteration_cb;
    m->async_client.next_due = async_next_due;
    m->async_client.run = async_run_cb;
    m->async_client.thread = LW_THREAD_MAIN;
    m->worker_client.next_due = worker_next_due;
    m->worker_client.run = worker_run_cb;
    m->worker_client.thread = LW_THREAD_WORKER;
    /* At equal times the worker runs first and its message arrives before the main thread's
     * timers: a thread that resumes reports what it saw before the main samples of that instant
     * are judged. */
    lw_sim_add(m->sim, &m->worker_client);
    lw_sim_add(m->sim, &m->async_client);
    lw_sim_add(m->sim, &m->main_client);
  } else {
    if (uv_setup(m) != 0) {
      napi_throw_error(env, "ERR_LAGWATCH_UV", "lagwatch: cannot set up the monitors' handles");
      return NULL;
    }
    lw_sched_add(&m->e->uv.sched, &m->main_client);
  }
  m->registered = 1;
  return ext;
}

static int arg_mon_name(napi_env env, napi_value v, lw_mon_t *mon) {
  char name[32];
  size_t len;
  if (lwb_arg_string(env, v, "name", name, sizeof(name), &len)) return -1;
  *mon = len < sizeof(name) ? lw_mon_parse(name, len) : LW_MON_COUNT;
  if (*mon == LW_MON_COUNT) return lwb_throw_range(env, "name", "the name of a monitor");
  return 0;
}

/* monStart(m, name) / monStop(m, name) */
static napi_value start_stop(napi_env env, napi_callback_info info, int start) {
  napi_value argv[2];
  lwb_mon_t *m;
  lw_mon_t mon;
  double now;
  int worker_change;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((m = get_mon(env, argv[0])) == NULL || arg_mon_name(env, argv[1], &mon)) return NULL;
  if (!m->registered) return NULL; /* after the environment's teardown: nothing */
  if (start && m->cond->core.disposed) {
    napi_throw_error(env, "ERR_LAGWATCH_DISPOSED", "lagwatch: the conditions are disposed");
    return NULL;
  }
  if (!!m->core.running[mon] == !!start) return NULL;
  now = mon_now(m);
  worker_change = mon == LW_MON_WORKER || mon == LW_MON_LIVENESS;
  /* The worker's half is the worker thread's while it runs: change it with the thread stopped. */
  if (worker_change && !m->sim) lw_uvworker_stop(&m->uw);
  if (start)
    lw_monitors_start(&m->core, mon, now);
  else
    lw_monitors_stop(&m->core, mon, now);
  if (!m->sim) uv_sync(m);
  keep_alive(env, m);
  /* The last stop flushes at once. */
  if (!start && lw_monitors_next_due(&m->core) <= now) main_run(m, now);
  return NULL;
}

static napi_value b_mon_start(napi_env env, napi_callback_info info) { return start_stop(env, info, 1); }
static napi_value b_mon_stop(napi_env env, napi_callback_info info) { return start_stop(env, info, 0); }

/* monFlush(m): hands the batches to JS now (the Electron shutdown, conditions.flush()). */
static napi_value b_mon_flush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_mon_t *m;
  double now;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((m = get_mon(env, argv[0])) == NULL) return NULL;
  now = mon_now(m);
  lwb_deliver(m->cond, batch_extra, m);
  lw_monitors_flushed(&m->core, now);
  return NULL;
}

/* monPausedWhileHidden(name) -> whether setupAllMonitors pauses it while hidden (SPEC §6). */
static napi_value b_mon_paused_while_hidden(napi_env env, napi_callback_info info) {
  napi_value argv[1], r;
  lw_mon_t mon;
  if (lwb_get_args(env, info, 1, argv) || arg_mon_name(env, argv[0], &mon)) return NULL;
  LW_NAPI_CALL(env, napi_get_boolean(env, lw_mon_paused_while_hidden(mon) != 0, &r));
  return r;
}

static napi_value b_mon_running(napi_env env, napi_callback_info info) {
  napi_value argv[2], r;
  lwb_mon_t *m;
  lw_mon_t mon;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((m = get_mon(env, argv[0])) == NULL || arg_mon_name(env, argv[1], &mon)) return NULL;
  LW_NAPI_CALL(env, napi_get_boolean(env, m->core.running[mon] != 0, &r));
  return r;
}

/* monStats(m) -> { workerSelfLag: {count, last, max, p99}, workerHangs, busyMs } */
static napi_value b_mon_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1], o, sl, hg;
  lwb_mon_t *m;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((m = get_mon(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  LW_NAPI_CALL(env, napi_create_object(env, &sl));
  LW_NAPI_CALL(env, napi_create_object(env, &hg));
  if (lwb_set_number(env, sl, "count", (double)m->core.self_lag_hist.count) ||
      lwb_set_stat(env, sl, "max", m->core.self_lag_hist.count ? m->core.self_lag_hist.max : NAN) ||
      lwb_set_stat(env, sl, "p99", lw_histogram_quantile(&m->core.self_lag_hist, 0.99)) ||
      lwb_set_number(env, hg, "count", (double)m->core.worker_hangs) ||
      lwb_set_number(env, hg, "ended", (double)m->core.hang_hist.count) ||
      lwb_set_stat(env, hg, "max", m->core.hang_hist.count ? m->core.hang_hist.max : NAN) ||
      lwb_set_value(env, o, "workerSelfLag", sl) || lwb_set_value(env, o, "workerHangs", hg))
    return NULL;
  return o;
}

int lwb_monitors_init(napi_env env, napi_value exports) {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {
      {"monCreate", b_mon_create}, {"monCheck", b_mon_check}, {"monStart", b_mon_start}, {"monStop", b_mon_stop},
      {"monRunning", b_mon_running}, {"monStats", b_mon_stats}, {"monFlush", b_mon_flush},
      {"monPausedWhileHidden", b_mon_paused_while_hidden},
  };
  size_t i;
  for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
    napi_value f;
    LW_NAPI_CALL_RET(env, napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f), -1);
    LW_NAPI_CALL_RET(env, napi_set_named_property(env, exports, fns[i].name, f), -1);
  }
  return 0;
}
