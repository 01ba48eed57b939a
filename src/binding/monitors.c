/* The monitors' binding: one monitor set (src/driver/monset.c) per setupAllMonitors(). Glue
 * only: JS values in, JS events and batches out. The wiring is the driver's, the rules the
 * core's.
 *
 * Memory: the set is freed when its JS handle is gone and, in real time, its uv handles are
 * closed; what it holds is reported to V8 while it lives. While a monitor runs, a strong
 * reference keeps the JS side alive: monitors that nobody holds still run. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "monitors.h"
#include "names.h"

static const napi_type_tag mon_tag = {0x6c61677761746368ULL, 0x6d6f6e69746f0001ULL};

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

/* A batch: the 'samples' payload, { [monitor]: Float64Array }, and the self-lag samples as its
 * note (for the metrics only). */
static int batch_extra(napi_env env, napi_value arr, uint32_t *len, void *data) {
  lwb_monset_t *m = data;
  napi_value batches, self_lag = NULL;
  const lw_batch_t *sl = lw_monset_self_lag_batch(&m->set);
  int i;
  LW_NAPI_CALL_RET(env, napi_create_object(env, &batches), -1);
  for (i = 0; i < LW_MON_COUNT; i++) {
    const lw_batch_t *b = lw_monset_batch(&m->set, (lw_mon_t)i);
    if (b->len == 0) continue;
    if (lwb_set_value(env, batches, lw_mon_name((lw_mon_t)i), float64_array(env, b))) return -1;
  }
  if (sl->len > 0 && (self_lag = float64_array(env, sl)) == NULL) return -1;
  return lwb_push_event(env, arr, len, "batch", batches, self_lag);
}

static int read_extra(napi_env env, napi_value arr, uint32_t *len, void *data) {
  (void)data;
  return lwb_push_event(env, arr, len, "read", NULL, NULL);
}

/* The memory the set holds, reported to V8 so that its garbage collector sees it. */
void lwb_mon_report_memory(lwb_monset_t *m, int64_t bytes) {
  int64_t out;
  if (bytes == m->reported) return;
  napi_adjust_external_memory(m->e->env, bytes - m->reported, &out);
  m->reported = bytes;
}

/* The driver's callbacks ------------------------------------------------------------------- */

/* With a lifecycle reader set (Electron, a renderer), the reader is asked before the timers,
 * once per run rather than once per sample: a state that changed before its event counts. */
static void owner_read(void *data) {
  lwb_monset_t *m = data;
  if (lw_conditions_has_reader(&m->cond->core)) lwb_deliver(m->cond, read_extra, NULL);
}

static void owner_deliver(void *data, int batches, int from_loop) {
  lwb_monset_t *m = data;
  int was = m->e->in_uv_callback;
  if (from_loop) m->e->in_uv_callback = 1;
  /* A flush that nothing reads (no meter that records, no 'samples' listener, no value left)
   * calls no JS: an idle process then runs no JS of ours at all. */
  lwb_deliver(m->cond, batches && lw_monset_batches_wanted(&m->set) ? batch_extra : NULL, m);
  m->e->in_uv_callback = was;
  if (batches) lwb_mon_report_memory(m, (int64_t)lw_monset_memory(&m->set));
}

static void mon_free_if_done(lwb_monset_t *m) {
  if (m->refs > 0) return;
  lwb_mon_report_memory(m, 0);
  if (m->cond->set == &m->set) m->cond->set = NULL;
  lw_monset_free(&m->set);
  lwb_cond_unref(m->e->env, m->cond);
  free(m);
}

static void owner_closed(void *data) {
  lwb_monset_t *m = data;
  lwb_env_t *e = m->e;
  m->refs--;
  mon_free_if_done(m);
  lwb_env_closed(e);
}

/* Environment teardown: every set stops its thread and closes its handles. */
void lwb_monitors_cleanup(lwb_env_t *e) {
  lwb_monset_t *m;
  for (m = e->mons; m != NULL; m = m->env_next) {
    lw_monset_thread_ending(&m->set); /* a hang in progress is kept: the thread was terminated */
    if (lw_monset_close(&m->set)) e->pending_closes++; /* its `closed` comes from the loop */
  }
}

static void env_list_remove(lwb_monset_t *m) {
  lwb_monset_t **p;
  for (p = &m->e->mons; *p != NULL; p = &(*p)->env_next) {
    if (*p == m) {
      *p = m->env_next;
      return;
    }
  }
}

static void mon_finalize(napi_env env, void *data, void *hint) {
  lwb_monset_t *m = data;
  (void)hint;
  env_list_remove(m);
  if (m->self) napi_delete_reference(env, m->self);
  m->self = NULL;
  lw_monset_close(&m->set);
  m->refs--;
  mon_free_if_done(m);
}

/* The strong reference on the JS side follows "any monitor runs". */
static void keep_alive(napi_env env, lwb_monset_t *m) {
  int any = 0, i;
  uint32_t count;
  for (i = 0; i < LW_MON_COUNT; i++) any |= lw_monset_running(&m->set, (lw_mon_t)i);
  if (any && !m->self_strong) {
    napi_reference_ref(env, m->self, &count);
    m->self_strong = 1;
  } else if (!any && m->self_strong) {
    napi_reference_unref(env, m->self, &count);
    m->self_strong = 0;
  }
}

/* JS functions ------------------------------------------------------------------------------- */

lwb_monset_t *lwb_mon_get(napi_env env, napi_value v) {
  return lwb_unwrap_tagged(env, v, &mon_tag, "monitors");
}

lwb_monset_t *lwb_mon_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
  if (lwb_get_args(env, info, n, argv)) return NULL;
  return lwb_mon_get(env, argv[0]);
}

/* monCheck(options): the parse of monCreate, creating nothing (setupAllMonitors runs it before
 * it makes its conditions, so that a bad option changes nothing). */
static napi_value b_mon_check(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lw_monset_core_config_t cfg;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  lw_monset_core_config_default(&cfg, NULL);
  lwb_arg_options(env, argv[0], LW_OPTIONS_MONITORS, &cfg);
  return NULL;
}

/* monCreate(conditions, self, options: { 'driftLag.intervalMs': n, ..., 'clockDrift.sleepClock':
 * bool }): the options of the core's monitors' table, by their public names. */
static napi_value b_mon_create(napi_env env, napi_callback_info info) {
  napi_value argv[3], ext;
  lwb_cond_t *c;
  lwb_monset_t *m;
  lw_monset_core_config_t cfg;
  lw_monset_owner_t owner;
  int rc;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  lw_monset_core_config_default(&cfg, &c->core);
  if (lwb_arg_options(env, argv[2], LW_OPTIONS_MONITORS, &cfg)) return NULL;
  m = calloc(1, sizeof(*m));
  if (m == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  m->e = c->e;
  m->cond = c;
  owner.read = owner_read;
  owner.deliver = owner_deliver;
  owner.closed = owner_closed;
  owner.data = m;
  rc = lw_monset_init(&m->set, &c->core, &cfg, c->sim, &c->e->uv, &owner);
  if (rc != LW_OK) {
    lw_monset_free(&m->set);
    free(m);
    if (rc == LW_ETHREAD)
      napi_throw_error(env, "ERR_LAGWATCH_UV", "lagwatch: cannot set up the monitors' handles");
    else
      lwb_throw_core(env, rc, NULL, "");
    return NULL;
  }
  c->refs++;
  c->set = &m->set;
  m->refs = lw_monset_has_handles(&m->set) ? 2 : 1;
  m->env_next = m->e->mons;
  m->e->mons = m;
  if (napi_create_external(env, m, mon_finalize, NULL, &ext) != napi_ok) {
    mon_finalize(env, m, NULL);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  lwb_mon_report_memory(m, (int64_t)lw_monset_memory(&m->set));
  lwb_cond_report_memory(c); /* the set's validators */
  LW_NAPI_CALL(env, napi_type_tag_object(env, ext, &mon_tag));
  LW_NAPI_CALL(env, napi_create_reference(env, argv[1], 0, &m->self));
  return ext;
}

/* monStart(m, name) -> undefined, or the reason the worker thread could not start. */
static napi_value b_mon_start(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_monset_t *m;
  lw_mon_t mon;
  int rc;
  char msg[160];
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((m = lwb_mon_get(env, argv[0])) == NULL || lwb_arg_mon_name(env, argv[1], &mon)) return NULL;
  if (!lw_monset_registered(&m->set)) return NULL; /* after the environment's teardown: nothing */
  rc = lw_monset_start(&m->set, mon);
  keep_alive(env, m);
  if (rc == LW_OK) return NULL;
  if (rc != LW_ETHREAD) {
    lwb_throw_core(env, rc, NULL, "");
    return NULL;
  }
  rc = lw_monset_worker_error(&m->set);
  snprintf(msg, sizeof(msg), "%s: %s", uv_err_name(rc), uv_strerror(rc));
  return lwb_make_string(env, msg);
}

static napi_value b_mon_stop(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_monset_t *m;
  lw_mon_t mon;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((m = lwb_mon_get(env, argv[0])) == NULL || lwb_arg_mon_name(env, argv[1], &mon)) return NULL;
  lw_monset_stop(&m->set, mon);
  keep_alive(env, m);
  return NULL;
}

/* monFinish(m): stops the whole set without losing anything (SPEC §4). */
static napi_value b_mon_finish(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_monset_t *m;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  lw_monset_finish(&m->set);
  keep_alive(env, m);
  lwb_mon_report_memory(m, (int64_t)lw_monset_memory(&m->set));
  return NULL;
}

/* monFlush(m): hands the batches to JS now (the Electron shutdown, conditions.flush()). */
static napi_value b_mon_flush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_monset_t *m;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  lw_monset_flush(&m->set);
  return NULL;
}

/* monSetId(m) -> the set's id for a stack thread (SPEC §12), 0 on a simulation. */
static napi_value b_mon_set_id(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_monset_t *m;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  return lwb_make_number(env, (double)lw_monset_set_id(&m->set));
}

/* monProgressAt(m) -> when the main thread last made progress (-Infinity: never, or simulated). */
static napi_value b_mon_progress_at(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  lwb_monset_t *m;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_double(env, lw_monset_progress_at(&m->set), &out));
  return out;
}

/* monGc(m, pauses: Float64Array [start0, duration0, start1, ...]): V8's GC pauses of this thread,
 * from perf_hooks' gc entries, for the causes of hangs (SPEC §12). */
static napi_value b_mon_gc(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_monset_t *m;
  bool is_ta = false;
  napi_typedarray_type type;
  size_t n, i;
  void *data;
  const double *d;
  if ((m = lwb_mon_args(env, info, 2, argv)) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_is_typedarray(env, argv[1], &is_ta));
  if (is_ta) LW_NAPI_CALL(env, napi_get_typedarray_info(env, argv[1], &type, &n, &data, NULL, NULL));
  if (!is_ta || type != napi_float64_array)
    LW_THROW_TYPE(env, "The \"pauses\" argument must be a Float64Array");
  d = data;
  for (i = 0; i + 1 < n; i += 2) lw_monset_gc(&m->set, d[i], d[i + 1]);
  return NULL;
}

/* monKeepBatches(m, keep): whether the recorded values reach JS at each flush (a meter that
 * records them, a 'samples' listener), or are not copied at all. */
static napi_value b_mon_keep_batches(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_monset_t *m;
  bool keep;
  if ((m = lwb_mon_args(env, info, 2, argv)) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_get_value_bool(env, argv[1], &keep));
  lw_monset_keep_batches(&m->set, keep);
  return NULL;
}

int lwb_monitors_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"monCreate", b_mon_create}, {"monCheck", b_mon_check}, {"monStart", b_mon_start},
      {"monStop", b_mon_stop}, {"monFinish", b_mon_finish}, {"monFlush", b_mon_flush},
      {"monGc", b_mon_gc}, {"monKeepBatches", b_mon_keep_batches}, {"monSetId", b_mon_set_id},
      {"monProgressAt", b_mon_progress_at},
  };
  if (lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0])) || lwb_mon_metrics_init(env, exports) ||
      lwb_mon_statedir_init(env, exports) || lwb_mon_held_init(env, exports) ||
      lwb_mon_stats_init(env, exports))
    return -1;
  return 0;
}

void lwb_cond_entered(lwb_cond_t *c) {
  if (c->set != NULL && lw_monset_enter(c->set)) lwb_cond_rearm(c);
}
