/* What a set says and does while the main thread is held (SPEC §14): the line said from C while
 * a hang runs, the hang in progress for a metrics responder on another thread, and the signals
 * that end a held process (platform/sigend.h). */
#include <math.h>
#include <string.h>

#include "../platform/sigend.h"
#include "monitors.h"

/* monHangLine(m, on, who, jsonHead): whether the worker says on stderr, once per hang, that one
 * is running; `who` names the process on the line when it is not alone ("" when it is);
 * `jsonHead` "" for text lines, else the first members of each line's JSON object. */
static napi_value b_mon_hang_line(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  lwb_monset_t *m;
  bool on;
  char who[LW_HANGLINE_WHO_MAX], head[LW_HANGLINE_HEAD_MAX];
  size_t len, hlen;
  if ((m = lwb_mon_args(env, info, 4, argv)) == NULL) return NULL;
  if (lwb_arg_bool(env, argv[1], "hangLine", &on) || lwb_arg_string(env, argv[2], "who", who, sizeof(who), &len) ||
      lwb_arg_string(env, argv[3], "jsonHead", head, sizeof(head), &hlen))
    return NULL;
  if (len >= sizeof(who) - 1 || strlen(who) != len) {
    lwb_throw_range(env, "who", "at most 94 bytes, no NUL");
    return NULL;
  }
  if (hlen >= sizeof(head) - 1 || strlen(head) != hlen || (hlen > 0 && head[0] != '{')) {
    lwb_throw_range(env, "jsonHead", "an object's first members, at most 638 bytes");
    return NULL;
  }
  lw_monset_hang_line(&m->set, on, who, head);
  return NULL;
}

/* monEndSignals(m, on): whether the set's worker ends the process at a signal lagwatch alone
 * listens to and the main thread does not take (platform/sigend.h). */
static napi_value b_mon_end_signals(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_monset_t *m;
  bool on;
  if ((m = lwb_mon_args(env, info, 2, argv)) == NULL) return NULL;
  if (lwb_arg_bool(env, argv[1], "on", &on)) return NULL;
  lw_monset_end_signals(&m->set, on);
  return NULL;
}

/* The number of argv[0], "SIGINT", "SIGTERM" or "SIGHUP"; 0 with a RangeError thrown. */
static int signal_arg(napi_env env, napi_value v) {
  char name[16];
  size_t len;
  int sig;
  if (lwb_arg_string(env, v, "signal", name, sizeof(name), &len)) return 0;
  sig = len < sizeof(name) ? lw_sigend_number(name) : 0;
  if (sig == 0) napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "The \"signal\" argument must be 'SIGINT', 'SIGTERM' or 'SIGHUP'");
  return sig;
}

/* signalArm(name, on): whether lagwatch alone listens to that signal (the app does not). */
static napi_value b_signal_arm(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  bool on;
  int sig;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((sig = signal_arg(env, argv[0])) == 0 || lwb_arg_bool(env, argv[1], "on", &on)) return NULL;
  lw_sigend_arm(sig, on);
  return NULL;
}

/* signalTaken(name): the main thread took that signal (lagwatch's listener runs). */
static napi_value b_signal_taken(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int sig;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((sig = signal_arg(env, argv[0])) == 0) return NULL;
  lw_sigend_taken(sig);
  return NULL;
}

/* hangNow(setId): the hang in progress on the main thread of that set, from any thread, even
 * while the main thread is held: { heldMs, cause } (cause 'unknown' until the worker knows it),
 * or null when none runs. */
static napi_value b_hang_now(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  double id, held_ms;
  int cause;
  if (lwb_get_args(env, info, 1, argv) || lwb_arg_nonneg(env, argv[0], "setId", &id)) return NULL;
  if (id != floor(id) || id > 9007199254740991.0) {
    lwb_throw_range(env, "setId", "a set's id (an integer)");
    return NULL;
  }
  if (!lw_monset_hang_now((uint64_t)id, &held_ms, &cause)) {
    napi_get_null(env, &out);
    return out;
  }
  if (napi_create_object(env, &out) != napi_ok || lwb_set_number(env, out, "heldMs", held_ms) ||
      lwb_set_string(env, out, "cause", cause < 0 ? "unknown" : lw_cause_name((lw_cause_kind_t)cause)))
    return NULL;
  return out;
}

int lwb_mon_held_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"monHangLine", b_mon_hang_line}, {"monEndSignals", b_mon_end_signals},
      {"signalArm", b_signal_arm}, {"signalTaken", b_signal_taken}, {"hangNow", b_hang_now},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
