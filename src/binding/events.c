/* Events to JS: the conditions' queued events, and what the monitor sets add (batches, a
 * lifecycle read), handed to the JS dispatch function in one call per delivery.
 *
 * The delivery is one flat array of (type, payload, note) triples, no array per event:
 * - type: the event's name, on which lib/conditions.js dispatches; never a key of the payload.
 * - payload: a public event whole (stall, jump, workerHang, block: the keys of lib/reports.d.ts in
 *   the order the listeners see them; batch: the 'samples' batches), or what JS needs of an event
 *   it keeps to itself (resolved: the recorded value, null if discarded; lost: the count).
 * - note: what JS needs of the event that is no part of what it emits, else undefined: the
 *   detection time of a stall's hang (the key of its stack and of a fatal hang's record), a
 *   block's { reported, detectedAt }, a held sample's token, a batch's self-lag samples. Kept
 *   apart so that a public object holds its public keys and no other. */
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

/* o.monitors: the names of the monitors whose samples made the episode. */
static int set_monitors(napi_env env, napi_value o, const lw_conditions_t *core, const lw_event_t *ev) {
  napi_value arr;
  size_t i;
  LW_NAPI_CALL_RET(env, napi_create_array_with_length(env, ev->nmonitors, &arr), -1);
  for (i = 0; i < ev->nmonitors; i++) {
    napi_value name = lwb_make_string(env, lw_conditions_name(core, ev->monitors[i]));
    if (name == NULL) return -1;
    LW_NAPI_CALL_RET(env, napi_set_element(env, arr, (uint32_t)i, name), -1);
  }
  return lwb_set_value(env, o, "monitors", arr);
}

int lwb_push_event(napi_env env, napi_value arr, uint32_t *len, const char *type, napi_value payload,
                   napi_value note) {
  napi_value t = lwb_make_string(env, type), undef;
  if (t == NULL) return -1;
  LW_NAPI_CALL_RET(env, napi_get_undefined(env, &undef), -1);
  LW_NAPI_CALL_RET(env, napi_set_element(env, arr, (*len)++, t), -1);
  LW_NAPI_CALL_RET(env, napi_set_element(env, arr, (*len)++, payload != NULL ? payload : undef), -1);
  LW_NAPI_CALL_RET(env, napi_set_element(env, arr, (*len)++, note != NULL ? note : undef), -1);
  return 0;
}

/* A stall episode (lib/reports.d.ts's Stall): what the core decided, in the listeners' order. */
static napi_value stall_to_js(napi_env env, const lw_conditions_t *core, const lw_event_t *ev,
                              napi_value thread) {
  napi_value o;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_string(env, o, "kind", lw_kind_name(ev->kind)) ||
      lwb_set_number(env, o, "durationMs", ev->duration_ms) || lwb_set_number(env, o, "start", ev->start) ||
      lwb_set_number(env, o, "end", ev->end) || lwb_set_number(env, o, "samples", ev->samples) ||
      set_monitors(env, o, core, ev))
    return NULL;
  /* The thread it is about; a fatal hang's is its record's, which JS alone read (lib/conditions.js
   * adds it with the record's pid and stack). */
  if (!ev->fatal && lwb_set_value(env, o, "thread", thread)) return NULL;
  /* SPEC §12: why the main thread hung (hang episodes only; null when nothing was measured). */
  if (ev->kind == LW_KIND_HANG && set_cause(env, o, &ev->cause)) return NULL;
  if (ev->is_block && set_true(env, o, "block")) return NULL;
  /* A hang of a process that died hung: when it flagged it (the key of its record in JS). */
  if (ev->fatal && (set_true(env, o, "fatal") || lwb_set_number(env, o, "detectedAt", ev->hang_detected_at)))
    return NULL;
  return o;
}

/* Adds the triple of one queued event to `arr`: 0, or -1 with an exception. */
static int event_to_js(napi_env env, const lw_conditions_t *core, const lw_event_t *ev, napi_value thread,
                       napi_value arr, uint32_t *len) {
  napi_value o = NULL, note = NULL;
  switch (ev->type) {
    case LW_EVENT_RESOLVED:
      if (ev->verdict == LW_VERDICT_RECORDED)
        o = lwb_make_number(env, ev->value);
      else
        LW_NAPI_CALL_RET(env, napi_get_null(env, &o), -1);
      note = lwb_make_number(env, (double)ev->token);
      if (o == NULL || note == NULL) return -1;
      return lwb_push_event(env, arr, len, "resolved", o, note);
    case LW_EVENT_CANCELLED:
      note = lwb_make_number(env, (double)ev->token);
      if (note == NULL) return -1;
      return lwb_push_event(env, arr, len, "cancelled", NULL, note);
    case LW_EVENT_STALL:
      o = stall_to_js(env, core, ev, thread);
      if (o == NULL) return -1;
      if (!isnan(ev->hang_detected_at) && (note = lwb_make_number(env, ev->hang_detected_at)) == NULL)
        return -1;
      return lwb_push_event(env, arr, len, "stall", o, note);
    case LW_EVENT_JUMP:
      LW_NAPI_CALL_RET(env, napi_create_object(env, &o), -1);
      if (lwb_set_string(env, o, "kind", lw_jump_name(ev->jump)) || lwb_set_number(env, o, "at", ev->at) ||
          lwb_set_number(env, o, "deltaMs", ev->duration_ms))
        return -1;
      return lwb_push_event(env, arr, len, "jump", o, NULL);
    case LW_EVENT_WORKER_HANG:
      /* Its stack's key is its public detectedAt: no note. */
      LW_NAPI_CALL_RET(env, napi_create_object(env, &o), -1);
      if (lwb_set_number(env, o, "start", ev->start) || lwb_set_number(env, o, "detectedAt", ev->detected_at) ||
          lwb_set_number(env, o, "end", ev->end) || lwb_set_number(env, o, "durationMs", ev->duration_ms) ||
          set_cause(env, o, &ev->cause) || lwb_set_value(env, o, "thread", thread))
        return -1;
      return lwb_push_event(env, arr, len, "workerHang", o, NULL);
    case LW_EVENT_BLOCK: {
      napi_value hang, reported;
      LW_NAPI_CALL_RET(env, napi_get_boolean(env, ev->is_hang != 0, &hang), -1);
      LW_NAPI_CALL_RET(env, napi_get_boolean(env, ev->reported != 0, &reported), -1);
      LW_NAPI_CALL_RET(env, napi_create_object(env, &o), -1);
      if (lwb_set_number(env, o, "start", ev->start) || lwb_set_number(env, o, "end", ev->end) ||
          lwb_set_number(env, o, "durationMs", ev->duration_ms) || lwb_set_value(env, o, "hang", hang) ||
          lwb_set_number(env, o, "unreported", (double)ev->unreported) || set_cause(env, o, &ev->cause) ||
          lwb_set_value(env, o, "thread", thread))
        return -1;
      /* Whether it is reported one by one (every block is counted), and when the worker flagged
       * it (its stack's key; null if it ended unseen). */
      LW_NAPI_CALL_RET(env, napi_create_object(env, &note), -1);
      if (lwb_set_value(env, note, "reported", reported) ||
          lwb_set_stat(env, note, "detectedAt", ev->hang_detected_at))
        return -1;
      return lwb_push_event(env, arr, len, "block", o, note);
    }
  }
  return 0;
}

int lwb_deliver(lwb_cond_t *c, lwb_extra_cb extra, void *data) {
  lwb_env_t *e = c->e;
  napi_env env = e->env;
  napi_handle_scope scope;
  napi_value self = NULL, fn, thread, arr, argv[2], global, result;
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
      napi_get_reference_value(env, e->thread, &thread) != napi_ok ||
      napi_create_array_with_length(env, 3 * n, &arr) != napi_ok ||
      napi_get_global(env, &global) != napi_ok)
    goto done; /* the JS side is gone: nobody is left to tell */
  for (i = 0; i < n; i++) {
    if (event_to_js(env, &c->core, &evs[i], thread, arr, &len) != 0) {
      rc = -1;
      goto done;
    }
  }
  lw_conditions_events_clear(&c->core);
  if (lw_conditions_lost(&c->core) > c->lost_logged) {
    /* Memory ran out somewhere since the last delivery: JS logs it (SPEC §4). */
    napi_value count = lwb_make_number(env, (double)(lw_conditions_lost(&c->core) - c->lost_logged));
    if (count == NULL || lwb_push_event(env, arr, &len, "lost", count, NULL) != 0) {
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
