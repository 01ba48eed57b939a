/* The simulation's functions (SPEC §8): a simulated clock and its verbs. */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

static const napi_type_tag sim_tag = {0x6c61677761746368ULL, 0x73696d756c610001ULL};

lw_sim_t *lwb_get_sim(napi_env env, napi_value v) {
  return lwb_unwrap_tagged(env, v, &sim_tag, "simulation");
}

static void sim_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  lw_sim_unref(data);
}

/* simCreate(platform: 'linux' | 'darwin' | 'win32', startMs, loop: 'node' | 'embedded') */
static napi_value b_sim_create(napi_env env, napi_callback_info info) {
  napi_value argv[3], ext;
  char platform[16], loop[16] = "node";
  size_t len;
  double start;
  lw_platform_t p;
  lw_sim_t *sim;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  if (lwb_arg_string(env, argv[0], "options.platform", platform, sizeof(platform), &len)) return NULL;
  if (!lwb_is_undefined(env, argv[2]) &&
      lwb_arg_string(env, argv[2], "options.loop", loop, sizeof(loop), &len))
    return NULL;
  if (strcmp(loop, "node") != 0 && strcmp(loop, "embedded") != 0)
    LW_THROW_RANGE(env, "The \"options.loop\" argument must be 'node' or 'embedded'");
  if (len < sizeof(platform) && strcmp(platform, "linux") == 0)
    p = LW_PLATFORM_LINUX;
  else if (len < sizeof(platform) && strcmp(platform, "darwin") == 0)
    p = LW_PLATFORM_DARWIN;
  else if (len < sizeof(platform) && strcmp(platform, "win32") == 0)
    p = LW_PLATFORM_WIN32;
  else
    LW_THROW_RANGE(env, "The \"options.platform\" argument must be 'linux', 'darwin' or 'win32'");
  if (lwb_arg_nonneg(env, argv[1], "options.startMs", &start)) return NULL;
  if (start > LW_SIM_MAX_MS) LW_THROW_RANGE(env, "The \"options.startMs\" argument must be at most 1e10 (ms)");
  sim = lw_sim_new(p, start);
  if (sim == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  lw_sim_set_loop(sim, strcmp(loop, "embedded") == 0 ? LW_LOOP_EMBEDDED : LW_LOOP_NODE);
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
  if ((sim = lwb_get_sim(env, argv[0])) == NULL) return NULL;
  return lwb_make_number(env, lw_sim_now(sim));
}

/* A JS callback of a step threw: the run ends there, the exception reaches the caller. */
static int exception_pending(void *env) {
  bool pending = false;
  return napi_is_exception_pending((napi_env)env, &pending) != napi_ok || pending;
}

/* simVerb(sim, verb, ms, alignMs? | state?): one of the simulation's verbs, `ms` long (the table
 * of lw_sim_verb in driver/sim.c names them, driver/sim.h says what each does); `block` takes the
 * main thread's state, `throttle` its alignment. */
static napi_value b_sim_verb(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  lw_sim_t *sim;
  char verb[16], state[16];
  const char *st = NULL;
  size_t len;
  double ms, align = LW_SIM_ALIGN_MS;
  int rc;
  lw_err_t err;
  if (lwb_get_args(env, info, 4, argv)) return NULL;
  if ((sim = lwb_get_sim(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "verb", verb, sizeof(verb), &len) ||
      lwb_arg_number(env, argv[2], "ms", &ms))
    return NULL;
  if (strcmp(verb, "block") == 0) {
    /* block(ms, state?): what the main thread does meanwhile (SPEC §12). */
    if (!lwb_is_undefined(env, argv[3])) {
      if (lwb_arg_string(env, argv[3], "state", state, sizeof(state), &len)) return NULL;
      if (len >= sizeof(state)) state[0] = '\0'; /* too long: no such state */
      st = state;
    }
  } else if (!lwb_is_undefined(env, argv[3]) && lwb_arg_number(env, argv[3], "alignMs", &align)) {
    return NULL;
  }
  rc = lw_sim_run(sim, verb, ms, align, st, exception_pending, env, &err);
  if (rc == LW_EBUSY) {
    napi_throw_error(env, "ERR_LAGWATCH_REENTRANT",
                     "lagwatch: the simulation cannot advance from inside its own callbacks");
    return NULL;
  }
  lwb_throw_core(env, rc, &err, "");
  return NULL;
}

/* simStepVerbs(): the verbs a step of a callback may be (Simulation#iteration's), from the
 * driver's table. */
static napi_value b_sim_step_verbs(napi_env env, napi_callback_info info) {
  napi_value out, name;
  const char *verb;
  size_t i;
  uint32_t n = 0;
  int step;
  (void)info;
  LW_NAPI_CALL(env, napi_create_array(env, &out));
  for (i = 0; (verb = lw_sim_verb_at(i, &step)) != NULL; i++) {
    if (!step) continue;
    if ((name = lwb_make_string(env, verb)) == NULL) return NULL;
    LW_NAPI_CALL(env, napi_set_element(env, out, n++, name));
  }
  return out;
}

int lwb_sim_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"simCreate", b_sim_create},
      {"simNow", b_sim_now},
      {"simVerb", b_sim_verb},
      {"simStepVerbs", b_sim_step_verbs},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
