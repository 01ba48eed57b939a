/* The inspector's threads: the stack thread's side of SPEC §12 (`stacks: true`), and the main
 * thread's reads: the stack thread attaches a threadsafe function (a uv_async_t on its own loop,
 * woken by the set's C worker thread the moment it flags a hang) and hands over the frames it
 * took; the main thread reads them by the hang's detection time. The debugger watcher tells a
 * debugger's pauses (SPEC §2's `debugger`). Both meet the main thread in the registry of sets
 * (src/driver/sets.h). */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/debugger.h"
#include "../driver/stacks.h"
#include "../platform/threadname.h"
#include "binding.h"

typedef struct {
  uint64_t id;
  napi_threadsafe_function tsfn;
} lwb_stack_thread_t;

/* C worker thread, under the registry's lock: queue a call of the stack thread's function. */
static void wake(void *data, double detected_at, int block) {
  lwb_stack_thread_t *t = data;
  double *arg = malloc(2 * sizeof(*arg));
  if (arg == NULL) return; /* no stack for this hang: the event says stack: null */
  arg[0] = detected_at;
  arg[1] = block;
  if (napi_call_threadsafe_function(t->tsfn, arg, napi_tsfn_nonblocking) != napi_ok) free(arg);
}

/* Stack thread: fn(detectedAt, block). */
static void call_js(napi_env env, napi_value fn, void *context, void *data) {
  double *arg = data;
  napi_value undefined, argv[2];
  (void)context;
  if (env != NULL && fn != NULL && napi_get_undefined(env, &undefined) == napi_ok &&
      napi_create_double(env, arg[0], &argv[0]) == napi_ok &&
      napi_get_boolean(env, arg[1] != 0, &argv[1]) == napi_ok)
    napi_call_function(env, undefined, fn, 2, argv, NULL);
  free(arg);
}

/* Stack thread: the threadsafe function is going away (released, or the thread ends): detach
 * first, so that the C worker never calls it again. */
static void tsfn_finalize(napi_env env, void *data, void *hint) {
  lwb_stack_thread_t *t = data;
  (void)env;
  (void)hint;
  lw_stacks_detach(t->id, t);
  free(t);
}

static int arg_id(napi_env env, napi_value v, uint64_t *id) {
  double d;
  if (lwb_arg_number(env, v, "id", &d)) return -1;
  if (!(d >= 1 && d <= 9007199254740991.0 && floor(d) == d)) return lwb_throw_range(env, "id", "a set's id");
  *id = (uint64_t)d;
  return 0;
}

/* stackAttach(id, fn): fn(detectedAt, block) is called on this thread whenever the set's worker
 * flags a hang (block false) or, with blocks.stacks, a block. Throws if the set is gone or has a stack thread already. */
static napi_value b_stack_attach(napi_env env, napi_callback_info info) {
  napi_value argv[2], name;
  napi_valuetype type;
  lwb_stack_thread_t *t;
  uint64_t id;
  if (lwb_get_args(env, info, 2, argv) || arg_id(env, argv[0], &id)) return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[1], &type));
  if (type != napi_function) LW_THROW_TYPE(env, "The \"fn\" argument must be of type function");
  t = calloc(1, sizeof(*t));
  if (t == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  t->id = id;
  LW_NAPI_CALL(env, napi_create_string_utf8(env, "lagwatch stacks", NAPI_AUTO_LENGTH, &name));
  if (napi_create_threadsafe_function(env, argv[1], NULL, name, 0, 1, t, tsfn_finalize, t, call_js,
                                      &t->tsfn) != napi_ok) {
    free(t);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  if (lw_stacks_attach(id, wake, t) != 0) {
    /* Not attached: its finalizer's detach finds nothing of its own. */
    napi_release_threadsafe_function(t->tsfn, napi_tsfn_abort);
    napi_throw_error(env, "ERR_LAGWATCH_STACKS", "lagwatch: the monitor set is gone or has a stack thread already");
    return NULL;
  }
  lw_thread_setname("lagwatch-stacks");
  return NULL;
}

/* stackPut(id, detectedAt, json): the frames taken for the hang flagged at detectedAt. */
static napi_value b_stack_put(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint64_t id;
  double detected_at;
  size_t len;
  char *buf;
  if (lwb_get_args(env, info, 3, argv) || arg_id(env, argv[0], &id) ||
      lwb_arg_number(env, argv[1], "detectedAt", &detected_at))
    return NULL;
  if (napi_get_value_string_utf8(env, argv[2], NULL, 0, &len) != napi_ok)
    LW_THROW_TYPE(env, "The \"json\" argument must be of type string");
  buf = malloc(len + 1);
  if (buf == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  if (napi_get_value_string_utf8(env, argv[2], buf, len + 1, &len) == napi_ok)
    lw_stacks_put(id, detected_at, buf, len);
  free(buf);
  return NULL;
}

/* stackGet(id, detectedAt) -> [json, takenAt] or null (main thread). */
static napi_value b_stack_get(napi_env env, napi_callback_info info) {
  napi_value argv[2], arr, v;
  uint64_t id;
  double detected_at, taken_at = NAN;
  char *json;
  if (lwb_get_args(env, info, 2, argv) || arg_id(env, argv[0], &id) ||
      lwb_arg_number(env, argv[1], "detectedAt", &detected_at))
    return NULL;
  json = lw_stacks_get(id, detected_at, &taken_at);
  if (json == NULL) {
    LW_NAPI_CALL(env, napi_get_null(env, &v));
    return v;
  }
  if (napi_create_array_with_length(env, 2, &arr) != napi_ok ||
      napi_create_string_utf8(env, json, NAPI_AUTO_LENGTH, &v) != napi_ok ||
      napi_set_element(env, arr, 0, v) != napi_ok || napi_create_double(env, taken_at, &v) != napi_ok ||
      napi_set_element(env, arr, 1, v) != napi_ok) {
    lw__free(json);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  lw__free(json);
  return arr;
}

/* debuggerPaused(id), debuggerResumed(id) (the watcher thread). */
static napi_value debugger_call(napi_env env, napi_callback_info info, void (*fn)(uint64_t)) {
  napi_value argv[1];
  uint64_t id;
  if (lwb_get_args(env, info, 1, argv) || arg_id(env, argv[0], &id)) return NULL;
  fn(id);
  return NULL;
}
static napi_value b_debugger_paused(napi_env env, napi_callback_info info) {
  return debugger_call(env, info, lw_debugger_paused);
}
static napi_value b_debugger_resumed(napi_env env, napi_callback_info info) {
  return debugger_call(env, info, lw_debugger_resumed);
}

/* debuggerWatch(id, on): a watcher runs for the set, or no longer. */
static napi_value b_debugger_watch(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint64_t id;
  bool on;
  if (lwb_get_args(env, info, 2, argv) || arg_id(env, argv[0], &id)) return NULL;
  if (napi_get_value_bool(env, argv[1], &on) != napi_ok) LW_THROW_TYPE(env, "The \"on\" argument must be of type boolean");
  lw_debugger_watch(id, on);
  return NULL;
}

/* debuggerMain(id, on): the set is the main thread's (on), or no longer. */
static napi_value b_debugger_main(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint64_t id;
  bool on;
  if (lwb_get_args(env, info, 2, argv) || arg_id(env, argv[0], &id)) return NULL;
  if (napi_get_value_bool(env, argv[1], &on) != napi_ok) LW_THROW_TYPE(env, "The \"on\" argument must be of type boolean");
  lw_debugger_set_main(id, on);
  return NULL;
}

/* debuggerMainId() -> the main thread's set id, or 0. */
static napi_value b_debugger_main_id(napi_env env, napi_callback_info info) {
  napi_value out;
  (void)info;
  LW_NAPI_CALL(env, napi_create_double(env, (double)lw_debugger_main(), &out));
  return out;
}

int lwb_stacks_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"stackAttach", b_stack_attach},
      {"stackPut", b_stack_put},
      {"stackGet", b_stack_get},
      {"debuggerPaused", b_debugger_paused},
      {"debuggerResumed", b_debugger_resumed},
      {"debuggerWatch", b_debugger_watch},
      {"debuggerMain", b_debugger_main},
      {"debuggerMainId", b_debugger_main_id},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
