/* Argument helpers of the binding: every JS value is read and checked here, and a wrong type
 * or range becomes a TypeError / RangeError that names the argument (SPEC §11). */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

int lwb_throw_core(napi_env env, int rc, const lw_err_t *err, const char *prefix) {
  char name[96];
  switch (rc) {
    case LW_OK:
      return 0;
    case LW_EINVAL:
    case LW_ELIMIT:
      snprintf(name, sizeof(name), "%s%s", prefix, err->field);
      return lwb_throw_range(env, name, err->range);
    case LW_EDISPOSED:
      napi_throw_error(env, "ERR_LAGWATCH_DISPOSED", "lagwatch: the conditions are disposed");
      return -1;
    case LW_ENOMEM:
      napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
      return -1;
    default:
      napi_throw_error(env, "ERR_LAGWATCH_INTERNAL", "lagwatch: internal error");
      return -1;
  }
}

/* Registers a table of functions on `exports`. */
int lwb_export(napi_env env, napi_value exports, const lwb_fn_t *fns, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    napi_value f;
    LW_NAPI_CALL_RET(env, napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f), -1);
    LW_NAPI_CALL_RET(env, napi_set_named_property(env, exports, fns[i].name, f), -1);
  }
  return 0;
}

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

/* A boolean, else TypeError naming `name`. */
int lwb_arg_bool(napi_env env, napi_value v, const char *name, bool *out) {
  napi_status s = napi_get_value_bool(env, v, out);
  if (s == napi_ok) return 0;
  if (s == napi_boolean_expected) {
    char m[160];
    snprintf(m, sizeof(m), "The \"%s\" argument must be of type boolean", name);
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

void lwb_option_path(lw_options_t t, size_t i, char *buf, size_t cap) {
  snprintf(buf, cap, "options.%s%s", lw_option_of_monitor(t, i) ? "monitors." : "", lw_option_name(t, i));
}

int lwb_arg_options(napi_env env, napi_value obj, lw_options_t t, void *cfg) {
  napi_valuetype type;
  size_t i;
  LW_NAPI_CALL_RET(env, napi_typeof(env, obj, &type), -1);
  if (type != napi_object) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "The \"options\" argument must be an object");
    return -1;
  }
  for (i = 0; i < lw_option_count(t); i++) {
    const char *range = NULL;
    char name[96];
    napi_value v;
    bool has;
    double d;
    lwb_option_path(t, i, name, sizeof(name));
    LW_NAPI_CALL_RET(env, napi_has_named_property(env, obj, lw_option_name(t, i), &has), -1);
    if (!has) continue;
    LW_NAPI_CALL_RET(env, napi_get_named_property(env, obj, lw_option_name(t, i), &v), -1);
    if (lwb_is_undefined(env, v)) continue;
    if (lwb_arg_option(env, v, t, i, name, &d)) return -1;
    if (lw_option_set(t, cfg, i, d, &range) != LW_OK) return lwb_throw_range(env, name, range);
  }
  return 0;
}

int lwb_arg_option(napi_env env, napi_value v, lw_options_t t, size_t i, const char *name, double *out) {
  const char *range = NULL;
  bool b;
  if (lw_option_kind(t, i) == LW_OPTION_BOOLEAN) {
    if (lwb_arg_bool(env, v, name, &b)) return -1;
    *out = b;
  } else if (lwb_arg_number(env, v, name, out)) {
    return -1;
  }
  if (!lw_option_ok(lw_option_kind(t, i), *out, &range)) return lwb_throw_range(env, name, range);
  return 0;
}

int lwb_arg_reason(napi_env env, napi_value v, const char *name, char *buf, size_t *len) {
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

/* A statistic that has no value yet is null. */
int lwb_set_stat(napi_env env, napi_value obj, const char *key, double d) {
  napi_value v;
  if (!isnan(d)) return lwb_set_number(env, obj, key, d);
  if (napi_get_null(env, &v) != napi_ok) return -1;
  return lwb_set_value(env, obj, key, v);
}
