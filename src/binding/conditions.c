/* The conditions (SPEC §3–§5, §7): their JS handle, their client of the thread's driver, their
 * memory as V8 sees it, the lifecycle, flush and dispose. */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

static const napi_type_tag cond_tag = {0x6c61677761746368ULL, 0x636f6e6469740001ULL};

double lwb_cond_now(const lwb_cond_t *c) {
  return c->sim ? lw_sim_now(c->sim) : lw_uv_now(&c->e->uv);
}

static double cond_next_due(lw_client_t *client) {
  lwb_cond_t *c = (lwb_cond_t *)client;
  return lw_conditions_next_due(&c->core);
}

static void cond_run(lw_client_t *client, double now) {
  lwb_cond_t *c = (lwb_cond_t *)client;
  lw_conditions_run(&c->core, now);
  lwb_deliver(c, NULL, NULL);
  lwb_cond_keep_alive(c);
  lwb_cond_report_memory(c);
}

static void cond_unregister(lwb_cond_t *c) {
  if (!c->registered) return;
  c->registered = 0;
  if (c->sim)
    lw_sim_remove(c->sim, &c->client);
  else
    lw_sched_remove(&c->e->uv.sched, &c->client);
}

void lwb_cond_keep_alive(lwb_cond_t *c) {
  uint32_t count;
  int want = c->sim == NULL && c->registered && c->self != NULL &&
             lw_conditions_next_due(&c->core) != LW_NEVER;
  if (want == c->self_strong) return;
  if ((want ? napi_reference_ref(c->e->env, c->self, &count)
            : napi_reference_unref(c->e->env, c->self, &count)) == napi_ok)
    c->self_strong = want;
}

/* After a call that may have made work due earlier: tell the real driver. */
void lwb_cond_rearm(lwb_cond_t *c) {
  if (c->sim == NULL && c->registered) lw_uv_rearm(&c->e->uv);
  lwb_cond_keep_alive(c);
}

/* The JS object is gone: nothing is delivered any more. The memory goes with the last
 * reference (the external and each submit function hold one). */
static void report_bytes(lwb_cond_t *c, int64_t bytes) {
  int64_t out;
  if (bytes == c->reported) return;
  napi_adjust_external_memory(c->e->env, bytes - c->reported, &out);
  c->reported = bytes;
}

void lwb_cond_report_memory(lwb_cond_t *c) { report_bytes(c, (int64_t)lw_conditions_memory(&c->core)); }

void lwb_cond_unref(napi_env env, lwb_cond_t *c) {
  if (--c->refs > 0) return;
  report_bytes(c, 0);
  if (c->self) napi_delete_reference(env, c->self);
  if (c->sim) lw_sim_unref(c->sim);
  lw_conditions_free(&c->core);
  lwb_env_unref(c->e);
  free(c);
}

static void cond_finalize(napi_env env, void *data, void *hint) {
  lwb_cond_t *c = data;
  (void)hint;
  cond_unregister(c);
  lwb_cond_unref(env, c);
}

lwb_cond_t *lwb_get_cond(napi_env env, napi_value v) {
  return lwb_unwrap_tagged(env, v, &cond_tag, "conditions");
}

/* condCreate(self, sim | null, options: { stallThresholdMs?, holdMs?, episodeDelayMs?,
 * retentionMs? }): the options of the core's conditions' table, by their public names; other keys
 * (the JS ones: clock, logger, meter) are not read. */
static napi_value b_cond_create(napi_env env, napi_callback_info info) {
  napi_value argv[3], ext;
  lwb_env_t *e = lwb_get_env(env);
  lw_conditions_config_t cfg;
  lw_sim_t *sim = NULL;
  lwb_cond_t *c;
  napi_valuetype t;
  if (e == NULL || lwb_get_args(env, info, 3, argv)) return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[1], &t));
  if (t != napi_null && (sim = lwb_get_sim(env, argv[1])) == NULL)
    return NULL;
  lw_conditions_config_default(&cfg);
  if (lwb_arg_options(env, argv[2], LW_OPTIONS_CONDITIONS, &cfg)) return NULL;
  c = calloc(1, sizeof(*c));
  if (c == NULL || lw_conditions_init(&c->core, &cfg) != LW_OK) {
    free(c);
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  c->e = e;
  c->refs = 1;
  e->refs++;
  c->sim = sim;
  lw_conditions_began(&c->core, lwb_cond_now(c));
  c->client.next_due = cond_next_due;
  c->client.run = cond_run;
  if (sim) lw_sim_ref(sim);
  if (napi_create_external(env, c, cond_finalize, NULL, &ext) != napi_ok) {
    cond_finalize(env, c, NULL);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  LW_NAPI_CALL(env, napi_type_tag_object(env, ext, &cond_tag));
  LW_NAPI_CALL(env, napi_create_reference(env, argv[0], 0, &c->self));
  if (sim)
    lw_sim_add(sim, &c->client);
  else
    lw_sched_add(&e->uv.sched, &c->client);
  c->registered = 1;
  lwb_cond_report_memory(c);
  return ext;
}

/* condDispose(c): reports waiting episodes, cancels held samples (events), idempotent. */
static napi_value b_cond_dispose(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lw_conditions_disposed(&c->core)) return NULL;
  lw_conditions_dispose(&c->core, lwb_cond_now(c));
  cond_unregister(c);
  lwb_cond_keep_alive(c);
  lwb_deliver(c, NULL, NULL);
  lwb_cond_report_memory(c);
  return NULL;
}

/* condFlush(c): reports waiting episodes now. */
static napi_value b_cond_flush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  lw_conditions_flush(&c->core, lwb_cond_now(c));
  lwb_deliver(c, NULL, NULL);
  lwb_cond_keep_alive(c);
  return NULL;
}

/* A number property of `o`: null or absent is NAN; anything else but a number is a TypeError. */
static int get_num(napi_env env, napi_value o, const char *key, double *out) {
  napi_value v;
  napi_valuetype t;
  *out = NAN;
  if (napi_get_named_property(env, o, key, &v) != napi_ok || napi_typeof(env, v, &t) != napi_ok) return -1;
  if (t == napi_null || t == napi_undefined) return 0;
  return lwb_arg_number(env, v, key, out);
}

/* A cause object as lagwatch reports it ({ cpuMs, ..., dominant }), or null, converted; the
 * core judges it (lw_cause_valid): an unknown `dominant` converts to LW_CAUSE_COUNT. Returns 0,
 * or -1 with a TypeError pending for a part that is not a number. */
static int cause_from_js(napi_env env, napi_value o, lw_cause_t *cause) {
  napi_value v;
  napi_valuetype t;
  char name[32];
  size_t len;
  unsigned k;
  memset(cause, 0, sizeof(*cause));
  if (napi_typeof(env, o, &t) != napi_ok) return -1;
  if (t != napi_object) return 0;
  if (get_num(env, o, "cpuMs", &cause->cpu_ms) || get_num(env, o, "runQueueMs", &cause->runq_ms) ||
      get_num(env, o, "throttledMs", &cause->throttled_ms) || get_num(env, o, "blockedMs", &cause->blocked_ms) ||
      get_num(env, o, "gcMs", &cause->gc_ms) || get_num(env, o, "spanMs", &cause->span_ms))
    return -1;
  if (napi_get_named_property(env, o, "dominant", &v) != napi_ok) return -1;
  if (lwb_arg_string(env, v, "cause.dominant", name, sizeof(name), &len)) return -1;
  for (k = 0; k < LW_CAUSE_COUNT; k++)
    if (len < sizeof(name) && strcmp(name, lw_cause_name((lw_cause_kind_t)k)) == 0) break;
  cause->dominant = (lw_cause_kind_t)k;
  cause->known = 1;
  return 0;
}

/* causeValid(cause) -> whether a cause read from a hang record is one lagwatch reports (the
 * core's rule, lw_cause_valid): never throws. */
static napi_value b_cause_valid(napi_env env, napi_callback_info info) {
  napi_value argv[1], out, pending;
  lw_cause_t cause;
  bool ok;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  ok = cause_from_js(env, argv[0], &cause) == 0 && lw_cause_valid(&cause);
  napi_get_and_clear_last_exception(env, &pending);
  LW_NAPI_CALL(env, napi_get_boolean(env, ok, &out));
  return out;
}

/* condReportFatal(c, start, end, detectedAt, cause|null): a hang that ended in its process's
 * death (a record lib/fatal.js found), reported now as a fatal hang episode. */
static napi_value b_cond_report_fatal(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  lwb_cond_t *c;
  lw_cause_t cause;
  double start, end, detected;
  int rc;
  if (lwb_get_args(env, info, 5, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_number(env, argv[1], "start", &start) || lwb_arg_number(env, argv[2], "end", &end) ||
      lwb_arg_number(env, argv[3], "detectedAt", &detected) || cause_from_js(env, argv[4], &cause))
    return NULL;
  if (!lw_cause_valid(&cause)) {
    lwb_throw_range(env, "cause", "a cause as lagwatch reports it");
    return NULL;
  }
  rc = lw_conditions_report_fatal(&c->core, start, end, detected, &cause, lwb_cond_now(c));
  if (rc == LW_EINVAL) {
    lwb_throw_range(env, "end", "finite and not before start");
    return NULL;
  }
  lwb_deliver(c, NULL, NULL);
  lwb_cond_keep_alive(c);
  return NULL;
}

/* condHasReader(c, bool): whether a lifecycle reader is set (SPEC §3). */
static napi_value b_cond_has_reader(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  bool b = false;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_get_value_bool(env, argv[1], &b));
  lw_conditions_set_reader(&c->core, b);
  /* The lateness timers asleep wake: they keep firing while a reader is set. */
  if (b) lwb_cond_entered(c);
  return NULL;
}

/* condNow(c): the conditions' clock. */
static napi_value b_cond_now(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  return lwb_make_number(env, lwb_cond_now(c));
}

/* setState(c, state) -> previous state name, or undefined if unchanged */
static napi_value b_set_state(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  char name[16];
  size_t len;
  lw_state_t s, from;
  int rc;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "state", name, sizeof(name), &len)) return NULL;
  s = len < sizeof(name) ? lw_state_parse(name, len) : LW_STATE_COUNT;
  if (s == LW_STATE_COUNT)
    LW_THROW_RANGE(env,
                   "The \"state\" argument must be one of 'active', 'passive', 'hidden', 'frozen', "
                   "'terminated'");
  rc = lw_conditions_set_state(&c->core, s, lwb_cond_now(c), &from);
  if (rc < 0) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: cannot change the lifecycle state");
    return NULL;
  }
  if (rc == 0) return NULL;
  return lwb_make_string(env, lw_state_name(from));
}

static napi_value b_get_state(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  return lwb_make_string(env, lw_state_name(lw_conditions_state(&c->core)));
}

/* windowsState([flags...], locked[, page]) -> state name (windowFlags() names the flags) */
static napi_value b_windows_state(napi_env env, napi_callback_info info) {
  napi_value argv[3], el;
  uint32_t n, i, f, page = 0;
  uint8_t flags[256];
  bool locked = false, is_array = false;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  LW_NAPI_CALL(env, napi_is_array(env, argv[0], &is_array));
  if (!is_array) LW_THROW_TYPE(env, "The \"windows\" argument must be an array");
  LW_NAPI_CALL(env, napi_get_array_length(env, argv[0], &n));
  if (n > sizeof(flags)) n = sizeof(flags); /* the first 256 windows decide */
  for (i = 0; i < n; i++) {
    LW_NAPI_CALL(env, napi_get_element(env, argv[0], i, &el));
    LW_NAPI_CALL(env, napi_get_value_uint32(env, el, &f));
    flags[i] = (uint8_t)f;
  }
  LW_NAPI_CALL(env, napi_get_value_bool(env, argv[1], &locked));
  if (!lwb_is_undefined(env, argv[2])) LW_NAPI_CALL(env, napi_get_value_uint32(env, argv[2], &page));
  return lwb_make_string(env, lw_state_name(lw_state_from_page(page, flags, n, locked)));
}

static napi_value b_state_visible(napi_env env, napi_callback_info info) {
  napi_value argv[1], r;
  char name[16];
  size_t len;
  lw_state_t s;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if (lwb_arg_string(env, argv[0], "state", name, sizeof(name), &len)) return NULL;
  s = len < sizeof(name) ? lw_state_parse(name, len) : LW_STATE_COUNT;
  LW_NAPI_CALL(env, napi_get_boolean(env, s != LW_STATE_COUNT && lw_state_visible(s), &r));
  return r;
}

int lwb_conditions_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"condCreate", b_cond_create},
      {"condDispose", b_cond_dispose},
      {"condFlush", b_cond_flush},
      {"condReportFatal", b_cond_report_fatal}, {"causeValid", b_cause_valid},
      {"condHasReader", b_cond_has_reader},
      {"condNow", b_cond_now},
      {"setState", b_set_state},
      {"getState", b_get_state},
      {"windowsState", b_windows_state},
      {"stateVisible", b_state_visible},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
