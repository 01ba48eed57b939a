/* Validators (SPEC §4): creation, the submit path (no call into JS: a verdict code back), the
 * checks that let lib/ ask the lifecycle reader only for a sample that will be taken. */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* validatorCreate(c, name, stallThresholdMs?) -> id */
static napi_value b_validator_create(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  lwb_cond_t *c;
  char name[LW_NAME_MAX_LEN + 1];
  size_t len;
  double threshold;
  uint32_t id;
  lw_err_t err;
  int rc;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "options.name", name, sizeof(name), &len)) return NULL;
  if (len > LW_NAME_MAX_LEN) len = LW_NAME_MAX_LEN + 1; /* too long: the core names it */
  if (lwb_is_undefined(env, argv[2])) {
    rc = lw_validator_create_own(&c->core, name, len, &id, &err);
  } else {
    if (lwb_arg_number(env, argv[2], "options.stallThresholdMs", &threshold)) return NULL;
    rc = lw_validator_create(&c->core, name, len, threshold, &id, &err);
  }
  lwb_cond_report_memory(c);
  if (lwb_throw_core(env, rc, &err, "options.")) return NULL;
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

/* The submit function of one conditions: submit(id, value, windowMs) -> undefined when recorded,
 * else the verdict code (LW_VERDICT_*). It is made per conditions with the conditions as its data, so the hot path
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
  if (rc == LW_EDISPOSED) return lwb_make_number(env, (double)LW_VERDICT_DISPOSED);
  now = lwb_cond_now(c);
  lwb_cond_entered(c); /* evidence before judgment (SPEC §4) */
  rc = lw_validator_submit_checked(&c->core, id, value, window, now, &detail);
  if (rc < 0) {
    submit_range_error(env, rc, field);
    return NULL;
  }
  /* The common verdict makes no value: undefined is RECORDED. */
  if (rc == LW_VERDICT_RECORDED) return NULL;
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

int lwb_validators_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"validatorCreate", b_validator_create},
      {"validatorDispose", b_validator_dispose},
      {"submitFn", b_submit_fn},
      {"submitCheck", b_submit_check},
      {"heldToken", b_held_token},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
