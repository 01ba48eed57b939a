/* What the files of the binding share: the per-thread state, the conditions wrapper and the
 * argument helpers. */
#ifndef LW_BINDING_BINDING_H_
#define LW_BINDING_BINDING_H_

#include <node_api.h>

#include "../core/conditions.h"
#include "../core/config.h"
#include "../driver/sim.h"
#include "../driver/uvtimer.h"
#include "napi_util.h"

typedef struct lwb_monset_s lwb_monset_t;

typedef struct lwb_env_s {
  napi_env env;
  lw_uv_t uv;
  int uv_ready;
  int in_uv_callback;
  napi_ref dispatch;
  napi_ref thread; /* the frozen { id, name } every event of this thread names (SPEC §14) */
  napi_async_context actx;
  int actx_ready;
  napi_async_cleanup_hook_handle cleanup;
  unsigned refs; /* the instance data and each conditions: freed by the last to go */
  lwb_monset_t *mons;         /* monitor sets of this thread, for the cleanup hook */
  unsigned pending_closes; /* uv handles closing during the cleanup hook */
  int cleaning;
} lwb_env_t;


typedef struct lwb_cond_s {
  lw_client_t client; /* first member: the driver hands back this pointer */
  lw_conditions_t core;
  lwb_env_t *e;
  lw_sim_t *sim; /* NULL: driven by the uv driver */
  napi_ref self; /* reference to the JS object that dispatch receives: weak, but strong while
                  * work is pending on the real clock (lwb_cond_keep_alive) */
  int self_strong;
  int registered;
  unsigned refs;
  struct lw_monset_s *set; /* the monitor set running on these conditions, if any */
  uint64_t lost_logged;    /* core.lost already handed to JS */
  int64_t reported;        /* bytes of native memory reported to V8 */
} lwb_cond_t;

/* A function table entry, registered by lwb_export(). */
typedef struct lwb_fn_s {
  const char *name;
  napi_callback fn;
} lwb_fn_t;

int lwb_export(napi_env env, napi_value exports, const lwb_fn_t *fns, size_t n);

void lwb_env_unref(lwb_env_t *e);
/* A uv handle of this thread finished closing; the cleanup hook completes after the last. */
void lwb_env_closed(lwb_env_t *e);

int lwb_get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv);
int lwb_is_undefined(napi_env env, napi_value v);
int lwb_arg_number(napi_env env, napi_value v, const char *name, double *out);
int lwb_arg_bool(napi_env env, napi_value v, const char *name, bool *out);
int lwb_throw_range(napi_env env, const char *name, const char *what);
int lwb_arg_nonneg(napi_env env, napi_value v, const char *name, double *out);
/* A string of at most `cap - 1` bytes into `buf` (always NUL-terminated); a longer one leaves
 * `buf` empty and `*len` >= cap, so that the caller's range check names it. */
int lwb_arg_string(napi_env env, napi_value v, const char *name, char *buf, size_t cap, size_t *len);
/* Option `i` of table `t` as the JS API's options object holds it, the name every entry point's
 * error gives it: "options.holdMs", "options.monitors.driftLag.intervalMs",
 * "options.blocks.thresholdMs". */
void lwb_option_path(lw_options_t t, size_t i, char *buf, size_t cap);
/* Reads into `cfg` each option of the core's table `t` (config.h) that the object `obj` has and
 * is not undefined: a boolean for a boolean option, else a number, in its range. The one parse of
 * every entry point's options: a wrong type is a TypeError, a value out of range a RangeError,
 * each naming the option by its path (lwb_option_path). Keys that are none of the table's are
 * not read: lib/ checks the names, against the same table. */
int lwb_arg_options(napi_env env, napi_value obj, lw_options_t t, void *cfg);
/* One value `v` of option `i` of table `t`, as lwb_arg_options reads each (the same errors,
 * naming it `name`), into `*out`: 0, or -1 with the exception pending. */
int lwb_arg_option(napi_env env, napi_value v, lw_options_t t, size_t i, const char *name, double *out);
/* A tracker reason: 1 to 64 characters of [a-z0-9_.-], else RangeError. */
int lwb_arg_reason(napi_env env, napi_value v, const char *name, char *buf, size_t *len);
void *lwb_unwrap_tagged(napi_env env, napi_value v, const napi_type_tag *tag, const char *what);
lwb_env_t *lwb_get_env(napi_env env);
napi_value lwb_make_number(napi_env env, double d);
napi_value lwb_make_string(napi_env env, const char *s);
int lwb_set_value(napi_env env, napi_value obj, const char *key, napi_value v);
int lwb_set_number(napi_env env, napi_value obj, const char *key, double d);
int lwb_set_string(napi_env env, napi_value obj, const char *key, const char *s);
int lwb_set_stat(napi_env env, napi_value obj, const char *key, double d);
double lwb_cond_now(const lwb_cond_t *c);
/* Appends more events to `arr` (its length in `*len`, with lwb_push_event); returns 0, or -1 with
 * an exception. */
typedef int (*lwb_extra_cb)(napi_env env, napi_value arr, uint32_t *len, void *data);
/* Appends one event to a delivery: its type, its payload and its note (NULL: undefined), as
 * events.c describes them. Returns 0, or -1 with an exception. */
int lwb_push_event(napi_env env, napi_value arr, uint32_t *len, const char *type, napi_value payload,
                   napi_value note);
/* Hands the queued events of `c`, and those `extra` appends, to the dispatch function in one
 * call, then empties the queue. Returns -1 if a JS exception is pending afterwards. */
int lwb_deliver(lwb_cond_t *c, lwb_extra_cb extra, void *data);
lwb_cond_t *lwb_get_cond(napi_env env, napi_value v);
void lwb_cond_rearm(lwb_cond_t *c);
/* JS entered this thread: the monitor set on `c`, if any, applies its evidence first and wakes
 * its sleeping timers (lw_monset_enter), before anything is judged or read (monitors.c). */
void lwb_cond_entered(lwb_cond_t *c);
/* A conditions on the real clock with work pending (a held sample, an episode waiting to be
 * reported) keeps its JS object alive, as a timer keeps its callback: an app that holds no
 * reference of its own still gets every record and report. Weak again once nothing is pending.
 * Call after anything that may change what is pending. */
void lwb_cond_keep_alive(lwb_cond_t *c);

/* Tells V8 how much native memory the conditions hold now (napi_adjust_external_memory), so
 * that its garbage collector runs when many are made and dropped. */
void lwb_cond_report_memory(lwb_cond_t *c);
void lwb_cond_unref(napi_env env, lwb_cond_t *c);

lw_sim_t *lwb_get_sim(napi_env env, napi_value v);
/* Throws what the core refused (LW_EINVAL, LW_ELIMIT: a RangeError naming `prefix` + the field;
 * LW_EDISPOSED; LW_ENOMEM) and returns -1; returns 0 for LW_OK. */
int lwb_throw_core(napi_env env, int rc, const lw_err_t *err, const char *prefix);

/* Each file's functions, registered on the module's exports. */
int lwb_sim_init(napi_env env, napi_value exports);
int lwb_conditions_init(napi_env env, napi_value exports);
int lwb_validators_init(napi_env env, napi_value exports);
int lwb_tracker_init(napi_env env, napi_value exports);
int lwb_monitors_init(napi_env env, napi_value exports);
int lwb_names_init(napi_env env, napi_value exports);
int lwb_stacks_init(napi_env env, napi_value exports);
void lwb_monitors_cleanup(lwb_env_t *e);

#endif /* LW_BINDING_BINDING_H_ */
