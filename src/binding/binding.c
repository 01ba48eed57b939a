/* The Node-API binding's module: its per-thread state and the registration of every function.
 * The binding converts and validates arguments, wraps the core's objects and hands events to
 * JS; no rule of SPEC.md lives in it. One concern per file, each named with its concern in
 * docs/architecture.md's layout.
 *
 * Per-thread state (one JS thread = one napi_env) is the instance data: the uv driver, the JS
 * dispatch function and the thread its events name. The common submit path makes no call into
 * JS: it returns a verdict code and lib/ calls `record` itself. Events that happen later (held
 * samples decided, episodes reported) are delivered in one call per run of a conditions, to the
 * dispatch function given to init(). */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "../core/conditions.h"
#include "../driver/sim.h"
#include "../driver/uvtimer.h"
#include "binding.h"

void lwb_env_unref(lwb_env_t *e) {
  if (--e->refs == 0) free(e);
}





static void uv_hook(lw_uv_t *d, int enter) {
  lwb_env_t *e = d->data;
  e->in_uv_callback = enter;
}

/* Module functions ----------------------------------------------------------------------- */

/* init(dispatch, originNs: bigint, thread: { id, name }) */
static napi_value b_init(napi_env env, napi_callback_info info) {
  napi_value argv[3], name;
  lwb_env_t *e = lwb_get_env(env);
  uint64_t origin;
  bool lossless;
  napi_valuetype t;
  uv_loop_t *loop;
  if (e == NULL || lwb_get_args(env, info, 3, argv)) return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[0], &t));
  if (t != napi_function) LW_THROW_TYPE(env, "The \"dispatch\" argument must be a function");
  LW_NAPI_CALL(env, napi_typeof(env, argv[2], &t));
  if (t != napi_object) LW_THROW_TYPE(env, "The \"thread\" argument must be an object");
  LW_NAPI_CALL(env, napi_get_value_bigint_uint64(env, argv[1], &origin, &lossless));
  if (e->dispatch != NULL) napi_throw_error(env, NULL, "lagwatch: init() called twice");
  if (e->dispatch != NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_reference(env, argv[0], 1, &e->dispatch));
  LW_NAPI_CALL(env, napi_create_reference(env, argv[2], 1, &e->thread));
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

#ifdef LW_TEST_HOOKS
/* allocFailAfter(n): the tests' hook into the core's allocator (lw_alloc_fail_after): the next
 * n allocations succeed, later ones fail; a negative n lifts the limit. Process-wide. Only in the
 * test build (npm test's sanitizer build, -DLW_TEST_HOOKS): never in what users install. */
static napi_value b_alloc_fail_after(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  double n;
  if (lwb_get_args(env, info, 1, argv) || lwb_arg_number(env, argv[0], "n", &n)) return NULL;
  lw_alloc_fail_after(isfinite(n) ? (long)n : -1);
  return NULL;
}
#endif

static napi_value b_now(napi_env env, napi_callback_info info) {
  lwb_env_t *e = lwb_get_env(env);
  (void)info;
  if (e == NULL) return NULL;
  return lwb_make_number(env, lw_uv_now(&e->uv));
}

/* isMainThread() -> whether this thread is the process's main thread: Node (and Electron) run
 * it on libuv's default loop, and every worker thread on a loop of its own. Asked here so that
 * lib/ need not load worker_threads for it. */
static napi_value b_is_main_thread(napi_env env, napi_callback_info info) {
  uv_loop_t *loop = NULL;
  napi_value v;
  (void)info;
  LW_NAPI_CALL(env, napi_get_uv_event_loop(env, &loop));
  LW_NAPI_CALL(env, napi_get_boolean(env, loop == uv_default_loop(), &v));
  return v;
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
  static const lwb_fn_t fns[] = {
    {"init", b_init}, {"now", b_now}, {"isMainThread", b_is_main_thread},
#ifdef LW_TEST_HOOKS
    {"allocFailAfter", b_alloc_fail_after},
#endif
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
  if (lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0])) || lwb_sim_init(env, exports) ||
      lwb_conditions_init(env, exports) || lwb_validators_init(env, exports) ||
      lwb_tracker_init(env, exports) || lwb_monitors_init(env, exports) || lwb_names_init(env, exports) ||
      lwb_stacks_init(env, exports))
    return NULL;
  return exports;
}
