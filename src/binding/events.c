/* Events to JS: the conditions' queued events, and what the monitor sets add (batches, a
 * lifecycle read), handed to the JS dispatch function in one call per delivery. */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* o.cause = { cpuMs, runQueueMs, throttledMs, blockedMs, gcMs, spanMs, dominant } (null for
 * what the platform cannot tell), or null when nothing was measured (SPEC §12). */
static int set_cause(napi_env env, napi_value o, const lw_cause_t *c) {
  napi_value v;
  if (!c->known) {
    if (napi_get_null(env, &v) != napi_ok) return -1;
    return lwb_set_value(env, o, "cause", v);
  }
  if (napi_create_object(env, &v) != napi_ok) return -1;
  if (lwb_set_stat(env, v, "cpuMs", c->cpu_ms) || lwb_set_stat(env, v, "runQueueMs", c->runq_ms) ||
      lwb_set_stat(env, v, "throttledMs", c->throttled_ms) ||
      lwb_set_stat(env, v, "blockedMs", c->blocked_ms) || lwb_set_stat(env, v, "gcMs", c->gc_ms) ||
      lwb_set_number(env, v, "spanMs", c->span_ms) ||
      lwb_set_string(env, v, "dominant", lw_cause_name(c->dominant)))
    return -1;
  return lwb_set_value(env, o, "cause", v);
}

/* `key: true` on `o`: 0, or -1 with an exception. */
static int set_true(napi_env env, napi_value o, const char *key) {
  napi_value t;
  LW_NAPI_CALL_RET(env, napi_get_boolean(env, true, &t), -1);
  return lwb_set_value(env, o, key, t);
}

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
          lwb_set_string(env, o, "reason", lw_conditions_reason_name(core, ev->reason)))
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
        napi_value name = lwb_make_string(env, lw_conditions_name(core, ev->monitors[i]));
        if (name == NULL) return NULL;
        LW_NAPI_CALL(env, napi_set_element(env, arr, (uint32_t)i, name));
      }
      if (lwb_set_value(env, o, "monitors", arr)) return NULL;
      if (ev->kind == LW_KIND_HANG && set_cause(env, o, &ev->cause)) return NULL;
      if (!isnan(ev->hang_detected_at) && lwb_set_number(env, o, "hangDetectedAt", ev->hang_detected_at))
        return NULL;
      if ((ev->fatal && set_true(env, o, "fatal")) || (ev->is_block && set_true(env, o, "block"))) return NULL;
      break;
    case LW_EVENT_JUMP:
      if (lwb_set_string(env, o, "type", "jump") ||
          lwb_set_string(env, o, "kind", lw_jump_name(ev->jump)) ||
          lwb_set_number(env, o, "at", ev->at) || lwb_set_number(env, o, "deltaMs", ev->duration_ms))
        return NULL;
      break;
    case LW_EVENT_WORKER_HANG:
      if (lwb_set_string(env, o, "type", "workerHang") || lwb_set_number(env, o, "start", ev->start) ||
          lwb_set_number(env, o, "detectedAt", ev->detected_at) ||
          lwb_set_number(env, o, "end", ev->end) ||
          lwb_set_number(env, o, "durationMs", ev->duration_ms) || set_cause(env, o, &ev->cause))
        return NULL;
      break;
    case LW_EVENT_BLOCK: {
      napi_value reported, hang;
      LW_NAPI_CALL(env, napi_get_boolean(env, ev->reported != 0, &reported));
      LW_NAPI_CALL(env, napi_get_boolean(env, ev->is_hang != 0, &hang));
      if (lwb_set_string(env, o, "type", "block") || lwb_set_number(env, o, "start", ev->start) ||
          lwb_set_number(env, o, "end", ev->end) || lwb_set_number(env, o, "durationMs", ev->duration_ms) ||
          lwb_set_value(env, o, "reported", reported) ||
          lwb_set_number(env, o, "unreported", (double)ev->unreported) || lwb_set_value(env, o, "hang", hang) ||
          lwb_set_stat(env, o, "detectedAt", ev->hang_detected_at) || set_cause(env, o, &ev->cause))
        return NULL;
      break;
    }
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
  if (n == 0 && extra == NULL && lw_conditions_lost(&c->core) == c->lost_logged) return 0;
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
  if (lw_conditions_lost(&c->core) > c->lost_logged) {
    /* Memory ran out somewhere since the last delivery: JS logs it (SPEC §4). */
    napi_value ev;
    if (napi_create_object(env, &ev) != napi_ok || lwb_set_string(env, ev, "type", "lost") ||
        lwb_set_number(env, ev, "count", (double)(lw_conditions_lost(&c->core) - c->lost_logged)) ||
        napi_set_element(env, arr, len++, ev) != napi_ok) {
      rc = -1;
      goto done;
    }
    c->lost_logged = lw_conditions_lost(&c->core);
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
