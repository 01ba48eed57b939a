/* The Node-API binding: converts and validates arguments, wraps the core's objects, and hands
 * events to JS. No rule of SPEC.md lives here.
 *
 * Per-thread state (one JS thread = one napi_env) is the instance data: the uv driver and the
 * JS dispatch function. The common submit path makes no call into JS: it returns a verdict code
 * and lib/ calls `record` itself. Events that happen later (held samples decided, episodes
 * reported) are delivered in one call per run of a conditions, to the dispatch function given
 * to init(). */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "../core/conditions.h"
#include "../driver/monset.h"
#include "../driver/sim.h"
#include "../driver/uv.h"
#include "binding.h"

void lwb_env_unref(lwb_env_t *e) {
  if (--e->refs == 0) free(e);
}

static const napi_type_tag cond_tag = {0x6c61677761746368ULL, 0x636f6e6469740001ULL};
static const napi_type_tag sim_tag = {0x6c61677761746368ULL, 0x73696d756c610001ULL};

/* Argument helpers ----------------------------------------------------------------------- */

#define MAX_ARGS 8

int lwb_get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
  size_t argc = n;
  size_t i;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    LW_NAPI_THROW_LAST(env);
    return -1;
  }
  if (argc < n) {
    napi_value undef;
    if (napi_get_undefined(env, &undef) != napi_ok) return -1;
    for (i = argc; i < n; i++) argv[i] = undef;
  }
  return 0;
}

int lwb_is_undefined(napi_env env, napi_value v) {
  napi_valuetype t;
  return napi_typeof(env, v, &t) == napi_ok && t == napi_undefined;
}

/* A number, else TypeError naming `name`. Range checks are the caller's. */
int lwb_arg_number(napi_env env, napi_value v, const char *name, double *out) {
  napi_status s = napi_get_value_double(env, v, out);
  if (s == napi_ok) return 0;
  if (s == napi_number_expected) {
    char m[160];
    snprintf(m, sizeof(m), "The \"%s\" argument must be of type number", name);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", m);
  } else {
    LW_NAPI_THROW_LAST(env);
  }
  return -1;
}

int lwb_throw_range(napi_env env, const char *name, const char *what) {
  char m[200];
  snprintf(m, sizeof(m), "The \"%s\" argument must be %s", name, what);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", m);
  return -1;
}

/* A finite number >= 0. */
int lwb_arg_nonneg(napi_env env, napi_value v, const char *name, double *out) {
  if (lwb_arg_number(env, v, name, out)) return -1;
  if (!(isfinite(*out) && *out >= 0)) return lwb_throw_range(env, name, "a finite number >= 0");
  return 0;
}

/* A string of at most `cap - 1` bytes; longer strings are reported through `*len` > cap - 1
 * so that the caller's range check names them. */
int lwb_arg_string(napi_env env, napi_value v, const char *name, char *buf, size_t cap,
                      size_t *len) {
  napi_status s = napi_get_value_string_utf8(env, v, NULL, 0, len);
  if (s == napi_string_expected) {
    char m[160];
    snprintf(m, sizeof(m), "The \"%s\" argument must be of type string", name);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", m);
    return -1;
  }
  if (s != napi_ok) {
    LW_NAPI_THROW_LAST(env);
    return -1;
  }
  if (*len >= cap) {
    /* Too long: the caller's range check names it; the buffer still holds a string. */
    buf[0] = '\0';
    return 0;
  }
  if (napi_get_value_string_utf8(env, v, buf, cap, len) != napi_ok) {
    LW_NAPI_THROW_LAST(env);
    return -1;
  }
  return 0;
}

static int arg_reason(napi_env env, napi_value v, const char *name, char *buf, size_t *len) {
  if (lwb_arg_string(env, v, name, buf, LW_REASON_MAX_LEN + 1, len)) return -1;
  if (*len > LW_REASON_MAX_LEN || !lw_reason_valid(buf, *len))
    return lwb_throw_range(env, name, "1 to 64 characters of [a-z0-9_.-]");
  return 0;
}

void *lwb_unwrap_tagged(napi_env env, napi_value v, const napi_type_tag *tag, const char *what) {
  bool ok = false;
  void *p = NULL;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
      napi_check_object_type_tag(env, v, tag, &ok) != napi_ok || !ok ||
      napi_get_value_external(env, v, &p) != napi_ok) {
    char m[120];
    snprintf(m, sizeof(m), "lagwatch: expected a %s handle", what);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", m);
    return NULL;
  }
  return p;
}

lwb_env_t *lwb_get_env(napi_env env) {
  lwb_env_t *e = NULL;
  if (napi_get_instance_data(env, (void **)&e) != napi_ok || e == NULL) {
    napi_throw_error(env, NULL, "lagwatch: the addon is not initialized on this thread");
    return NULL;
  }
  return e;
}

napi_value lwb_make_number(napi_env env, double d) {
  napi_value v;
  LW_NAPI_CALL(env, napi_create_double(env, d, &v));
  return v;
}

napi_value lwb_make_string(napi_env env, const char *s) {
  napi_value v;
  LW_NAPI_CALL(env, napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v));
  return v;
}

int lwb_set_value(napi_env env, napi_value obj, const char *key, napi_value v) {
  if (v == NULL) return -1;
  if (napi_set_named_property(env, obj, key, v) != napi_ok) {
    LW_NAPI_THROW_LAST(env);
    return -1;
  }
  return 0;
}

int lwb_set_number(napi_env env, napi_value obj, const char *key, double d) {
  return lwb_set_value(env, obj, key, lwb_make_number(env, d));
}

int lwb_set_string(napi_env env, napi_value obj, const char *key, const char *s) {
  return lwb_set_value(env, obj, key, lwb_make_string(env, s));
}

/* The clock ------------------------------------------------------------------------------ */

double lwb_cond_now(const lwb_cond_t *c) {
  return c->sim ? lw_sim_now(c->sim) : lw_uv_now(&c->e->uv);
}

/* Events to JS --------------------------------------------------------------------------- */

static napi_value event_to_js(napi_env env, const lw_conditions_t *core, const lw_event_t *ev) {
  napi_value o, arr;
  size_t i;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  switch (ev->type) {
    case LW_EVENT_RESOLVED:
      if (lwb_set_string(env, o, "type", "resolved") || lwb_set_number(env, o, "token", (double)ev->token) ||
          lwb_set_string(env, o, "verdict",
                     ev->verdict == LW_VERDICT_RECORDED ? "recorded" : "discarded") ||
          lwb_set_number(env, o, "value", ev->value))
        return NULL;
      if (ev->verdict == LW_VERDICT_DISCARDED &&
          lwb_set_string(env, o, "reason", lw_tracker_reason_name(&core->tracker, ev->reason)))
        return NULL;
      break;
    case LW_EVENT_CANCELLED:
      if (lwb_set_string(env, o, "type", "cancelled") || lwb_set_number(env, o, "token", (double)ev->token))
        return NULL;
      break;
    case LW_EVENT_STALL:
      if (lwb_set_string(env, o, "type", "stall") || lwb_set_string(env, o, "kind", lw_kind_name(ev->kind)) ||
          lwb_set_number(env, o, "durationMs", ev->duration_ms) || lwb_set_number(env, o, "start", ev->start) ||
          lwb_set_number(env, o, "end", ev->end) || lwb_set_number(env, o, "samples", ev->samples) ||
          lwb_set_number(env, o, "at", ev->at))
        return NULL;
      LW_NAPI_CALL(env, napi_create_array_with_length(env, ev->nmonitors, &arr));
      for (i = 0; i < ev->nmonitors; i++) {
        napi_value name = lwb_make_string(env, core->names[ev->monitors[i]]->name);
        if (name == NULL) return NULL;
        LW_NAPI_CALL(env, napi_set_element(env, arr, (uint32_t)i, name));
      }
      if (lwb_set_value(env, o, "monitors", arr)) return NULL;
      break;
    case LW_EVENT_JUMP:
      if (lwb_set_string(env, o, "type", "jump") ||
          lwb_set_string(env, o, "kind", ev->jump == LW_JUMP_SUSPEND ? "suspend" : "step") ||
          lwb_set_number(env, o, "at", ev->at) || lwb_set_number(env, o, "deltaMs", ev->duration_ms))
        return NULL;
      break;
    case LW_EVENT_WORKER_HANG:
      if (lwb_set_string(env, o, "type", "workerHang") || lwb_set_number(env, o, "start", ev->start) ||
          lwb_set_number(env, o, "detectedAt", ev->detected_at) ||
          lwb_set_number(env, o, "end", ev->end) ||
          lwb_set_number(env, o, "durationMs", ev->duration_ms))
        return NULL;
      break;
  }
  return o;
}

int lwb_deliver(lwb_cond_t *c, lwb_extra_cb extra, void *data) {
  lwb_env_t *e = c->e;
  napi_env env = e->env;
  napi_handle_scope scope;
  napi_value self = NULL, fn, arr, argv[2], global, result;
  const lw_event_t *evs;
  size_t n, i;
  uint32_t len = 0;
  int rc = 0;
  evs = lw_conditions_events(&c->core, &n);
  if (n == 0 && extra == NULL && c->core.lost == c->lost_logged) return 0;
  if (napi_open_handle_scope(env, &scope) != napi_ok) {
    lw_conditions_events_clear(&c->core);
    return -1;
  }
  if (c->self == NULL || napi_get_reference_value(env, c->self, &self) != napi_ok || self == NULL ||
      e->dispatch == NULL || napi_get_reference_value(env, e->dispatch, &fn) != napi_ok ||
      napi_create_array_with_length(env, n, &arr) != napi_ok ||
      napi_get_global(env, &global) != napi_ok)
    goto done; /* the JS side is gone: nobody is left to tell */
  for (i = 0; i < n; i++) {
    napi_value ev = event_to_js(env, &c->core, &evs[i]);
    if (ev == NULL || napi_set_element(env, arr, len++, ev) != napi_ok) {
      rc = -1;
      goto done;
    }
  }
  lw_conditions_events_clear(&c->core);
  if (c->core.lost > c->lost_logged) {
    /* Memory ran out somewhere since the last delivery: JS logs it (SPEC §4). */
    napi_value ev;
    if (napi_create_object(env, &ev) != napi_ok || lwb_set_string(env, ev, "type", "lost") ||
        lwb_set_number(env, ev, "count", (double)(c->core.lost - c->lost_logged)) ||
        napi_set_element(env, arr, len++, ev) != napi_ok) {
      rc = -1;
      goto done;
    }
    c->lost_logged = c->core.lost;
  }
  if (extra != NULL && extra(env, arr, &len, data) != 0) {
    rc = -1;
    goto done;
  }
  if (len == 0) goto done;
  argv[0] = self;
  argv[1] = arr;
  if (e->in_uv_callback) {
    /* From the event loop: a callback scope runs microtasks and reports a throw as uncaught. */
    if (napi_make_callback(env, e->actx, global, fn, 2, argv, &result) != napi_ok) {
      napi_value err;
      if (napi_get_and_clear_last_exception(env, &err) == napi_ok) napi_fatal_exception(env, err);
    }
  } else if (napi_call_function(env, global, fn, 2, argv, &result) != napi_ok) {
    rc = -1; /* the exception stays pending for the JS caller */
  }
done:
  lw_conditions_events_clear(&c->core);
  napi_close_handle_scope(env, scope);
  return rc;
}

static double cond_next_due(lw_client_t *client) {
  lwb_cond_t *c = (lwb_cond_t *)client;
  return lw_conditions_next_due(&c->core);
}

static void cond_run(lw_client_t *client, double now) {
  lwb_cond_t *c = (lwb_cond_t *)client;
  lw_conditions_run(&c->core, now);
  lwb_deliver(c, NULL, NULL);
}

static void cond_unregister(lwb_cond_t *c) {
  if (!c->registered) return;
  c->registered = 0;
  if (c->sim)
    lw_sim_remove(c->sim, &c->client);
  else
    lw_sched_remove(&c->e->uv.sched, &c->client);
}

/* After a call that may have made work due earlier: tell the real driver. */
void lwb_cond_rearm(lwb_cond_t *c) {
  if (c->sim == NULL && c->registered) lw_uv_rearm(&c->e->uv);
}

/* The JS object is gone: nothing is delivered any more. The memory goes with the last
 * reference (the external and each submit function hold one). */
void lwb_cond_unref(napi_env env, lwb_cond_t *c) {
  if (--c->refs > 0) return;
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

static void uv_hook(lw_uv_t *d, int enter) {
  lwb_env_t *e = d->data;
  e->in_uv_callback = enter;
}

/* Module functions ----------------------------------------------------------------------- */

/* init(dispatch, originNs: bigint) */
static napi_value b_init(napi_env env, napi_callback_info info) {
  napi_value argv[2], name;
  lwb_env_t *e = lwb_get_env(env);
  uint64_t origin;
  bool lossless;
  napi_valuetype t;
  uv_loop_t *loop;
  if (e == NULL || lwb_get_args(env, info, 2, argv)) return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[0], &t));
  if (t != napi_function) LW_THROW_TYPE(env, "The \"dispatch\" argument must be a function");
  LW_NAPI_CALL(env, napi_get_value_bigint_uint64(env, argv[1], &origin, &lossless));
  if (e->dispatch != NULL) napi_throw_error(env, NULL, "lagwatch: init() called twice");
  if (e->dispatch != NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_reference(env, argv[0], 1, &e->dispatch));
  LW_NAPI_CALL(env, napi_create_string_utf8(env, "lagwatch", NAPI_AUTO_LENGTH, &name));
  LW_NAPI_CALL(env, napi_async_init(env, NULL, name, &e->actx));
  e->actx_ready = 1;
  LW_NAPI_CALL(env, napi_get_uv_event_loop(env, &loop));
  if (lw_uv_init(&e->uv, loop, origin) != 0) {
    napi_throw_error(env, NULL, "lagwatch: uv_timer_init failed");
    return NULL;
  }
  e->uv.data = e;
  e->uv.hook = uv_hook;
  e->uv_ready = 1;
  return NULL;
}

static napi_value b_now(napi_env env, napi_callback_info info) {
  lwb_env_t *e = lwb_get_env(env);
  (void)info;
  if (e == NULL) return NULL;
  return lwb_make_number(env, lw_uv_now(&e->uv));
}

static void sim_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  lw_sim_unref(data);
}

/* simCreate(platform: 'linux' | 'darwin' | 'win32', startMs) */
static napi_value b_sim_create(napi_env env, napi_callback_info info) {
  napi_value argv[2], ext;
  char platform[16];
  size_t len;
  double start;
  lw_platform_t p;
  lw_sim_t *sim;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if (lwb_arg_string(env, argv[0], "options.platform", platform, sizeof(platform), &len)) return NULL;
  if (len < sizeof(platform) && strcmp(platform, "linux") == 0)
    p = LW_PLATFORM_LINUX;
  else if (len < sizeof(platform) && strcmp(platform, "darwin") == 0)
    p = LW_PLATFORM_DARWIN;
  else if (len < sizeof(platform) && strcmp(platform, "win32") == 0)
    p = LW_PLATFORM_WIN32;
  else
    LW_THROW_RANGE(env, "The \"options.platform\" argument must be 'linux', 'darwin' or 'win32'");
  if (lwb_arg_nonneg(env, argv[1], "options.startMs", &start)) return NULL;
  sim = lw_sim_new(p, start);
  if (sim == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  if (napi_create_external(env, sim, sim_finalize, NULL, &ext) != napi_ok) {
    lw_sim_unref(sim);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  LW_NAPI_CALL(env, napi_type_tag_object(env, ext, &sim_tag));
  return ext;
}

static napi_value b_sim_now(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lw_sim_t *sim;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((sim = lwb_unwrap_tagged(env, argv[0], &sim_tag, "simulation")) == NULL) return NULL;
  return lwb_make_number(env, lw_sim_now(sim));
}

/* simVerb(sim, verb, ms, alignMs?): advance, block, sleep, pause, stepWall, stallWorker,
 * throttle. The clocks and thread states move; then time passes (advance, block, stallWorker,
 * throttle: due work runs at its due time, in order) or the work that came due runs at the
 * wake-up (sleep, pause). */
static napi_value b_sim_verb(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  lw_sim_t *sim;
  char verb[16];
  size_t len;
  double ms, align = 1000, target;
  bool pending = false;
  if (lwb_get_args(env, info, 4, argv)) return NULL;
  if ((sim = lwb_unwrap_tagged(env, argv[0], &sim_tag, "simulation")) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "verb", verb, sizeof(verb), &len)) return NULL;
  if (strcmp(verb, "stepWall") == 0) {
    if (lwb_arg_finite(env, argv[2], "ms", &ms)) return NULL;
  } else if (lwb_arg_nonneg(env, argv[2], "ms", &ms)) {
    return NULL;
  }
  if (strcmp(verb, "throttle") == 0 && !lwb_is_undefined(env, argv[3])) {
    if (lwb_arg_number(env, argv[3], "alignMs", &align)) return NULL;
    if (!(isfinite(align) && align > 0)) LW_THROW_RANGE(env, "The \"alignMs\" argument must be a finite number > 0");
  }
  if (sim->advancing) {
    napi_throw_error(env, "ERR_LAGWATCH_REENTRANT",
                     "lagwatch: the simulation cannot advance from inside its own callbacks");
    return NULL;
  }
  target = lw_sim_now(sim);
  if (strcmp(verb, "advance") == 0) {
    target += ms;
  } else if (strcmp(verb, "block") == 0) {
    lw_sim_block(sim, ms);
    target += ms;
  } else if (strcmp(verb, "sleep") == 0) {
    lw_sim_sleep(sim, ms);
    target = lw_sim_now(sim);
  } else if (strcmp(verb, "pause") == 0) {
    lw_sim_pause(sim, ms);
    target = lw_sim_now(sim);
  } else if (strcmp(verb, "stepWall") == 0) {
    lw_sim_step_wall(sim, ms);
  } else if (strcmp(verb, "stallWorker") == 0) {
    lw_sim_stall_worker(sim, ms);
    target += ms;
  } else if (strcmp(verb, "throttle") == 0) {
    lw_sim_throttle(sim, ms, align);
    target += ms;
  } else {
    LW_THROW_RANGE(env, "lagwatch: unknown simulation verb");
  }
  sim->advancing = 1;
  lw_sim_ref(sim);
  while (lw_sim_step(sim, target) != NULL) {
    if (napi_is_exception_pending(env, &pending) != napi_ok || pending) break;
  }
  sim->advancing = 0;
  lw_sim_unref(sim);
  return NULL;
}

/* condCreate(self, sim | null, stallThresholdMs?, holdMs?, episodeDelayMs?, retentionMs?) */
static napi_value b_cond_create(napi_env env, napi_callback_info info) {
  napi_value argv[6], ext;
  lwb_env_t *e = lwb_get_env(env);
  lw_conditions_config_t cfg;
  lw_sim_t *sim = NULL;
  lwb_cond_t *c;
  napi_valuetype t;
  static const char *const names[4] = {"options.stallThresholdMs", "options.holdMs",
                                       "options.episodeDelayMs", "options.retentionMs"};
  double *fields[4];
  int i;
  if (e == NULL || lwb_get_args(env, info, 6, argv)) return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[1], &t));
  if (t != napi_null && (sim = lwb_unwrap_tagged(env, argv[1], &sim_tag, "simulation")) == NULL)
    return NULL;
  lw_conditions_config_default(&cfg);
  fields[0] = &cfg.stall_threshold_ms;
  fields[1] = &cfg.hold_ms;
  fields[2] = &cfg.episode_delay_ms;
  fields[3] = &cfg.retention_ms;
  for (i = 0; i < 4; i++) {
    if (lwb_is_undefined(env, argv[2 + i])) continue;
    if (lwb_arg_number(env, argv[2 + i], names[i], fields[i])) return NULL;
    if (i == 0 && !(*fields[i] > 0))
      LW_THROW_RANGE(env, "The \"%s\" argument must be a number > 0 (Infinity allowed)", names[i]);
    if (i > 0 && !(isfinite(*fields[i]) && *fields[i] >= 0))
      LW_THROW_RANGE(env, "The \"%s\" argument must be a finite number >= 0", names[i]);
  }
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
  return ext;
}

/* condDispose(c): reports waiting episodes, cancels held samples (events), idempotent. */
static napi_value b_cond_dispose(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (c->core.disposed) return NULL;
  lw_conditions_dispose(&c->core, lwb_cond_now(c));
  cond_unregister(c);
  lwb_deliver(c, NULL, NULL);
  return NULL;
}

/* validatorCreate(c, name, stallThresholdMs?) -> id */
static napi_value b_validator_create(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  lwb_cond_t *c;
  char name[LW_NAME_MAX_LEN + 1];
  size_t len;
  double threshold;
  uint32_t id;
  int rc;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "options.name", name, sizeof(name), &len)) return NULL;
  if (!(len <= LW_NAME_MAX_LEN && lw_name_valid(name, len)))
    LW_THROW_RANGE(env, "The \"options.name\" argument must be 1 to 64 bytes long");
  threshold = c->core.cfg.stall_threshold_ms;
  if (!lwb_is_undefined(env, argv[2])) {
    if (lwb_arg_number(env, argv[2], "options.stallThresholdMs", &threshold)) return NULL;
    if (!(threshold > 0))
      LW_THROW_RANGE(env,
                     "The \"options.stallThresholdMs\" argument must be a number > 0 (Infinity allowed)");
  }
  rc = lw_validator_create(&c->core, name, len, threshold, &id);
  if (rc == LW_EDISPOSED) {
    napi_throw_error(env, "ERR_LAGWATCH_DISPOSED", "lagwatch: the conditions are disposed");
    return NULL;
  }
  if (rc != LW_OK) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: cannot create a validator");
    return NULL;
  }
  return lwb_make_number(env, id);
}

static napi_value b_validator_dispose(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  uint32_t id;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_get_value_uint32(env, argv[1], &id));
  lw_validator_dispose(&c->core, id);
  lwb_deliver(c, NULL, NULL);
  return NULL;
}

/* Reads the arguments (value, windowMs) of a submit; returns 0, or -1 with a TypeError. */
static int submit_args(napi_env env, napi_value *argv, size_t argc, uint32_t *id, double *value,
                       double *window) {
  if (argc < 3) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "submit() takes (value, windowMs, record)");
    return -1;
  }
  LW_NAPI_CALL_RET(env, napi_get_value_uint32(env, argv[0], id), -1);
  if (lwb_arg_number(env, argv[1], "value", value) || lwb_arg_number(env, argv[2], "windowMs", window))
    return -1;
  return 0;
}

/* The core's answer to a bad argument, as a RangeError naming it. */
static int submit_range_error(napi_env env, int rc, const char *field) {
  if (rc == LW_EINVAL) return lwb_throw_range(env, field, "a finite number >= 0");
  napi_throw_error(env, rc == LW_ENOMEM ? "ERR_MEMORY" : "ERR_LAGWATCH_INTERNAL",
                   "lagwatch: submit failed");
  return -1;
}

/* The submit function of one conditions: submit(id, value, windowMs) -> the verdict code
 * (LW_VERDICT_*). It is made per conditions with the conditions as its data, so the hot path
 * unwraps nothing; the function holds a reference on the conditions' memory, dropped by its
 * finalizer. Evidence comes first (SPEC §4): the worker's messages that have arrived are
 * received before the sample is judged. */
static napi_value b_submit(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  lwb_cond_t *c;
  uint32_t id;
  double value, window, now;
  uint64_t detail = 0;
  const char *field = NULL;
  int rc;
  LW_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&c));
  if (submit_args(env, argv, argc, &id, &value, &window)) return NULL;
  rc = lw_validator_check(&c->core, id, value, window, &field);
  if (rc != LW_OK && rc != LW_EDISPOSED) {
    submit_range_error(env, rc, field);
    return NULL;
  }
  now = lwb_cond_now(c);
  if (c->set != NULL && rc == LW_OK && lw_monset_evidence(c->set, now)) lwb_cond_rearm(c);
  rc = lw_validator_submit(&c->core, id, value, window, now, &detail);
  if (rc < 0) {
    submit_range_error(env, rc, field);
    return NULL;
  }
  if (rc == LW_VERDICT_DISCARDED || rc == LW_VERDICT_HELD) lwb_cond_rearm(c);
  return lwb_make_number(env, (double)rc);
}

/* submitCheck(c, id, value, windowMs) -> whether the sample would be taken; a bad argument
 * throws. A submit's lifecycle reader runs only for a sample that will be taken: a rejected or
 * disposed submit changes nothing (SPEC §11). */
static napi_value b_submit_check(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], r;
  lwb_cond_t *c;
  uint32_t id;
  double value, window;
  const char *field = NULL;
  int rc;
  LW_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (submit_args(env, argv + 1, argc - 1, &id, &value, &window)) return NULL;
  rc = lw_validator_check(&c->core, id, value, window, &field);
  if (rc != LW_OK && rc != LW_EDISPOSED) {
    submit_range_error(env, rc, field);
    return NULL;
  }
  LW_NAPI_CALL(env, napi_get_boolean(env, rc == LW_OK, &r));
  return r;
}

/* heldToken(c) -> the token of the sample the last 'held' verdict held. */
static napi_value b_held_token(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  return lwb_make_number(env, (double)lw_validator_last_token(&c->core));
}

static void submit_fn_finalize(napi_env env, void *data, void *hint) {
  (void)hint;
  lwb_cond_unref(env, data);
}

/* submitFn(c) -> the submit function of c */
static napi_value b_submit_fn(napi_env env, napi_callback_info info) {
  napi_value argv[1], fn;
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_function(env, "submit", NAPI_AUTO_LENGTH, b_submit, c, &fn));
  LW_NAPI_CALL(env, napi_add_finalizer(env, fn, c, submit_fn_finalize, NULL, NULL));
  c->refs++;
  return fn;
}

/* trackerOpen(c, reason) -> handle */
static napi_value b_tracker_open(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  char reason[LW_REASON_MAX_LEN + 1];
  size_t len;
  uint32_t rid;
  uint64_t seq;
  int rc;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (arg_reason(env, argv[1], "reason", reason, &len)) return NULL;
  if (c->core.tracker.open_counted >= LW_OPEN_MAX)
    LW_THROW_RANGE(env, "lagwatch: at most %d intervals can be open at once", LW_OPEN_MAX);
  rc = lw_tracker_reason(&c->core.tracker, reason, len, &rid);
  if (rc == LW_ELIMIT) LW_THROW_RANGE(env, "The \"reason\" argument is one reason too many (at most %d)", LW_REASONS_MAX);
  if (rc == LW_OK) rc = lw_tracker_open(&c->core.tracker, rid, lwb_cond_now(c), 1, &seq);
  if (rc != LW_OK) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: cannot open an interval");
    return NULL;
  }
  return lwb_make_number(env, (double)seq);
}

static napi_value b_tracker_close(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  double seq;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_number(env, argv[1], "handle", &seq)) return NULL;
  lw_tracker_close(&c->core.tracker, (uint64_t)seq, lwb_cond_now(c));
  return NULL;
}

/* A finite number, else TypeError / RangeError. */
int lwb_arg_finite(napi_env env, napi_value v, const char *name, double *out) {
  if (lwb_arg_number(env, v, name, out)) return -1;
  if (!isfinite(*out)) return lwb_throw_range(env, name, "a finite number");
  return 0;
}

static napi_value b_tracker_add(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  lwb_cond_t *c;
  char reason[LW_REASON_MAX_LEN + 1];
  size_t len;
  double start, end;
  uint32_t rid;
  int rc;
  if (lwb_get_args(env, info, 4, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_finite(env, argv[1], "start", &start) || lwb_arg_finite(env, argv[2], "end", &end) ||
      arg_reason(env, argv[3], "reason", reason, &len))
    return NULL;
  if (end < start) return NULL; /* ignored, and nothing interned */
  rc = lw_tracker_reason(&c->core.tracker, reason, len, &rid);
  if (rc == LW_ELIMIT) LW_THROW_RANGE(env, "The \"reason\" argument is one reason too many (at most %d)", LW_REASONS_MAX);
  if (rc == LW_OK) rc = lw_tracker_add(&c->core.tracker, start, end, rid, lwb_cond_now(c));
  if (rc != LW_OK) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: cannot add an interval");
    return NULL;
  }
  return NULL;
}

static napi_value interval_to_js(napi_env env, const lw_tracker_t *t, const lw_interval_t *iv) {
  napi_value o;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_number(env, o, "start", iv->start) || lwb_set_number(env, o, "end", iv->end) ||
      lwb_set_string(env, o, "reason", lw_tracker_reason_name(t, iv->reason)))
    return NULL;
  return o;
}

/* trackerFind(c, start, end, reason?) -> { start, end, reason } | undefined */
static napi_value b_tracker_find(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  lwb_cond_t *c;
  char reason[LW_REASON_MAX_LEN + 1];
  size_t len;
  double ws, we;
  uint32_t rid = LW_REASON_ANY;
  lw_interval_t iv;
  if (lwb_get_args(env, info, 4, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_number(env, argv[1], "start", &ws) || lwb_arg_number(env, argv[2], "end", &we)) return NULL;
  if (isnan(ws)) LW_THROW_RANGE(env, "The \"start\" argument must not be NaN");
  if (isnan(we)) LW_THROW_RANGE(env, "The \"end\" argument must not be NaN");
  if (!lwb_is_undefined(env, argv[3])) {
    if (arg_reason(env, argv[3], "reason", reason, &len)) return NULL;
    rid = lw_tracker_reason_find(&c->core.tracker, reason, len);
    if (rid == LW_REASON_ANY) return NULL; /* never seen: nothing can overlap */
  }
  if (!lw_tracker_find(&c->core.tracker, ws, we, rid, lwb_cond_now(c), &iv)) return NULL;
  return interval_to_js(env, &c->core.tracker, &iv);
}

static napi_value b_tracker_intervals(napi_env env, napi_callback_info info) {
  napi_value argv[1], arr;
  lwb_cond_t *c;
  lw_interval_t *list;
  size_t n, i;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  n = lw_tracker_expire(&c->core.tracker, lwb_cond_now(c));
  list = malloc((n ? n : 1) * sizeof(*list));
  if (list == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  n = lw_tracker_list(&c->core.tracker, lwb_cond_now(c), list, n);
  if (napi_create_array_with_length(env, n, &arr) != napi_ok) goto fail;
  for (i = 0; i < n; i++) {
    napi_value o = interval_to_js(env, &c->core.tracker, &list[i]);
    if (o == NULL || napi_set_element(env, arr, (uint32_t)i, o) != napi_ok) goto fail;
  }
  free(list);
  return arr;
fail:
  free(list);
  LW_NAPI_THROW_LAST(env);
  return NULL;
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
  return lwb_make_string(env, lw_state_name(c->core.state));
}

/* windowsState([flags...], locked) -> state name */
static napi_value b_windows_state(napi_env env, napi_callback_info info) {
  napi_value argv[2], el;
  uint32_t n, i, f;
  uint8_t flags[256];
  bool locked = false, is_array = false;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
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
  return lwb_make_string(env, lw_state_name(lw_state_from_windows(flags, n, locked)));
}

/* condFlush(c): reports waiting episodes now. */
static napi_value b_cond_flush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_cond_t *c;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  lw_conditions_flush(&c->core, lwb_cond_now(c));
  lwb_deliver(c, NULL, NULL);
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
  c->has_reader = b;
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

/* discardCounts(c) -> [[monitor, reason, n], ...] for every validator name and every reason
 * known to the tracker, zeros included: a counter series that first appears above zero is a
 * rise Prometheus's rate() and increase() never see. */
static napi_value b_discard_counts(napi_env env, napi_callback_info info) {
  napi_value argv[1], arr;
  lwb_cond_t *c;
  size_t i, r;
  uint32_t n = 0;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_array(env, &arr));
  for (i = 0; i < c->core.nnames; i++) {
    const lw_name_stats_t *ns = c->core.names[i];
    for (r = 0; r < c->core.tracker.nreasons; r++) {
      napi_value row;
      uint64_t count = r < ns->discarded_by_reason_cap ? ns->discarded_by_reason[r] : 0;
      LW_NAPI_CALL(env, napi_create_array_with_length(env, 3, &row));
      LW_NAPI_CALL(env, napi_set_element(env, row, 0, lwb_make_string(env, ns->name)));
      LW_NAPI_CALL(env, napi_set_element(env, row, 1,
                                         lwb_make_string(env, lw_tracker_reason_name(&c->core.tracker, (uint32_t)r))));
      LW_NAPI_CALL(env, napi_set_element(env, row, 2, lwb_make_number(env, (double)count)));
      LW_NAPI_CALL(env, napi_set_element(env, arr, n++, row));
    }
  }
  return arr;
}

static napi_value b_reason_name(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  uint32_t id;
  const char *name;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_get_value_uint32(env, argv[1], &id));
  name = lw_tracker_reason_name(&c->core.tracker, id);
  return name ? lwb_make_string(env, name) : NULL;
}

/* A statistic that has no value yet is null. */
int lwb_set_stat(napi_env env, napi_value obj, const char *key, double d) {
  napi_value v;
  if (!isnan(d)) return lwb_set_number(env, obj, key, d);
  if (napi_get_null(env, &v) != napi_ok) return -1;
  return lwb_set_value(env, obj, key, v);
}

static napi_value b_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1], o, disc, stalls, jumps, mons;
  lwb_cond_t *c;
  lw_conditions_t *k;
  size_t i;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  k = &c->core;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  LW_NAPI_CALL(env, napi_create_object(env, &disc));
  LW_NAPI_CALL(env, napi_create_object(env, &stalls));
  LW_NAPI_CALL(env, napi_create_object(env, &jumps));
  LW_NAPI_CALL(env, napi_create_object(env, &mons));
  for (i = 0; i < k->tracker.nreasons; i++)
    if (lwb_set_number(env, disc, k->tracker.names[i], (double)k->discarded[i]))
      return NULL;
  for (i = 0; i < LW_KIND_COUNT; i++)
    if (lwb_set_number(env, stalls, lw_kind_name((lw_kind_t)i), (double)k->stalls[i])) return NULL;
  if (lwb_set_number(env, jumps, "suspend", (double)k->jumps[LW_JUMP_SUSPEND]) ||
      lwb_set_number(env, jumps, "step", (double)k->jumps[LW_JUMP_STEP]))
    return NULL;
  for (i = 0; i < k->nnames; i++) {
    const lw_name_stats_t *ns = k->names[i];
    const lw_histogram_t *h = &ns->recorded_hist;
    napi_value m;
    LW_NAPI_CALL(env, napi_create_object(env, &m));
    if (lwb_set_number(env, m, "submitted", (double)ns->submitted) ||
        lwb_set_number(env, m, "recorded", (double)ns->recorded) ||
        lwb_set_number(env, m, "discarded", (double)ns->discarded) ||
        lwb_set_number(env, m, "held", (double)ns->held) ||
        lwb_set_number(env, m, "cancelled", (double)ns->cancelled) ||
        lwb_set_stat(env, m, "min", h->count ? h->min : NAN) ||
        lwb_set_stat(env, m, "max", h->count ? h->max : NAN) ||
        lwb_set_stat(env, m, "mean", lw_histogram_mean(h)) ||
        lwb_set_stat(env, m, "p50", lw_histogram_quantile(h, 0.5)) ||
        lwb_set_stat(env, m, "p99", lw_histogram_quantile(h, 0.99)) || lwb_set_value(env, mons, ns->name, m))
      return NULL;
  }
  if (lwb_set_number(env, o, "submitted", (double)k->submitted) ||
      lwb_set_number(env, o, "recorded", (double)k->recorded) || lwb_set_value(env, o, "discarded", disc) ||
      lwb_set_number(env, o, "held", (double)k->held_count) ||
      lwb_set_number(env, o, "cancelled", (double)k->cancelled) ||
      lwb_set_number(env, o, "lost", (double)k->lost) || lwb_set_value(env, o, "stalls", stalls) ||
      lwb_set_value(env, o, "jumps", jumps) ||
      lwb_set_number(env, o, "intervals", (double)lw_tracker_expire(&k->tracker, lwb_cond_now(c))) ||
      lwb_set_value(env, o, "monitors", mons))
    return NULL;
  return o;
}

/* Per-thread lifetime -------------------------------------------------------------------- */

void lwb_env_closed(lwb_env_t *e) {
  if (e->pending_closes > 0 && --e->pending_closes == 0 && e->cleaning)
    napi_remove_async_cleanup_hook(e->cleanup);
}

static void uv_closed(lw_uv_t *d) { lwb_env_closed(d->data); }

/* The environment is going away: every monitor set stops its worker thread and closes its
 * handles, then the timer closes; the hook completes when the last handle is closed. */
static void env_cleanup(napi_async_cleanup_hook_handle handle, void *arg) {
  lwb_env_t *e = arg;
  e->cleanup = handle;
  e->cleaning = 1;
  if (e->actx_ready) {
    napi_async_destroy(e->env, e->actx);
    e->actx_ready = 0;
  }
  lwb_monitors_cleanup(e);
  if (e->uv_ready) {
    e->pending_closes++;
    lw_uv_close(&e->uv, uv_closed);
  }
  if (e->pending_closes == 0) napi_remove_async_cleanup_hook(handle);
}

/* Finalizers only free; conditions finalized after this still find their driver's memory. */
static void env_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  lwb_env_unref(data);
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  lwb_env_t *e;
  size_t i;
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {
      {"init", b_init},
      {"now", b_now},
      {"simCreate", b_sim_create},
      {"simNow", b_sim_now},
      {"simVerb", b_sim_verb},
      {"condCreate", b_cond_create},
      {"condDispose", b_cond_dispose},
      {"validatorCreate", b_validator_create},
      {"validatorDispose", b_validator_dispose},
      {"submitFn", b_submit_fn},
      {"submitCheck", b_submit_check},
      {"heldToken", b_held_token},
      {"trackerOpen", b_tracker_open},
      {"trackerClose", b_tracker_close},
      {"trackerAdd", b_tracker_add},
      {"trackerFind", b_tracker_find},
      {"trackerIntervals", b_tracker_intervals},
      {"setState", b_set_state},
      {"getState", b_get_state},
      {"reasonName", b_reason_name},
      {"discardCounts", b_discard_counts},
      {"stateVisible", b_state_visible},
      {"windowsState", b_windows_state},
      {"condFlush", b_cond_flush},
      {"condNow", b_cond_now},
      {"condHasReader", b_cond_has_reader},
      {"stats", b_stats},
  };
  e = calloc(1, sizeof(*e));
  if (e == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  e->env = env;
  e->refs = 1;
  if (napi_set_instance_data(env, e, env_finalize, NULL) != napi_ok) {
    free(e);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  LW_NAPI_CALL(env, napi_add_async_cleanup_hook(env, env_cleanup, e, NULL));
  for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
    napi_value f;
    LW_NAPI_CALL(env, napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f));
    LW_NAPI_CALL(env, napi_set_named_property(env, exports, fns[i].name, f));
  }
  if (lwb_monitors_init(env, exports) != 0) return NULL;
  return exports;
}
