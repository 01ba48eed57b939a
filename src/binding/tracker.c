/* The tracker (SPEC §2) and stats() (SPEC §7): intervals in and out, counts read as snapshots. */
#include <math.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* trackerOpen(c, reason) -> handle */
static napi_value b_tracker_open(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  char reason[LW_REASON_MAX_LEN + 1];
  size_t len;
  uint64_t seq;
  lw_err_t err;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "reason", reason, sizeof(reason), &len)) return NULL;
  if (lwb_throw_core(env, lw_tracker_open_reason(lw_conditions_tracker(&c->core), reason, len, lwb_cond_now(c), &seq, &err),
                     &err, ""))
    return NULL;
  return lwb_make_number(env, (double)seq);
}

static napi_value b_tracker_close(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  double seq;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_number(env, argv[1], "handle", &seq)) return NULL;
  lw_tracker_close(lw_conditions_tracker(&c->core), (uint64_t)seq, lwb_cond_now(c));
  return NULL;
}

static napi_value b_tracker_add(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  lwb_cond_t *c;
  char reason[LW_REASON_MAX_LEN + 1];
  size_t len;
  double start, end;
  lw_err_t err;
  if (lwb_get_args(env, info, 4, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_number(env, argv[1], "start", &start) || lwb_arg_number(env, argv[2], "end", &end) ||
      lwb_arg_string(env, argv[3], "reason", reason, sizeof(reason), &len))
    return NULL;
  lwb_throw_core(env, lw_tracker_add_reason(lw_conditions_tracker(&c->core), reason, len, start, end,
                                            lwb_cond_now(c), &err), &err, "");
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
  uint32_t rid = LW_REASON_ANY; /* no reason given: any */
  lw_interval_t iv;
  if (lwb_get_args(env, info, 4, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  if (lwb_arg_number(env, argv[1], "start", &ws) || lwb_arg_number(env, argv[2], "end", &we)) return NULL;
  if (isnan(ws)) LW_THROW_RANGE(env, "The \"start\" argument must not be NaN");
  if (isnan(we)) LW_THROW_RANGE(env, "The \"end\" argument must not be NaN");
  if (!lwb_is_undefined(env, argv[3])) {
    if (lwb_arg_reason(env, argv[3], "reason", reason, &len)) return NULL;
    rid = lw_tracker_reason_find(lw_conditions_tracker(&c->core), reason, len);
    if (rid == LW_REASON_UNSEEN) return NULL; /* never seen: nothing can overlap */
  }
  if (!lw_tracker_find(lw_conditions_tracker(&c->core), ws, we, rid, lwb_cond_now(c), &iv)) return NULL;
  return interval_to_js(env, lw_conditions_tracker(&c->core), &iv);
}

static napi_value b_tracker_intervals(napi_env env, napi_callback_info info) {
  napi_value argv[1], arr;
  lwb_cond_t *c;
  lw_interval_t *list;
  size_t n, i;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  n = lw_tracker_expire(lw_conditions_tracker(&c->core), lwb_cond_now(c));
  list = malloc((n ? n : 1) * sizeof(*list));
  if (list == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  n = lw_tracker_list(lw_conditions_tracker(&c->core), lwb_cond_now(c), list, n);
  if (napi_create_array_with_length(env, n, &arr) != napi_ok) goto fail;
  for (i = 0; i < n; i++) {
    napi_value o = interval_to_js(env, lw_conditions_tracker(&c->core), &list[i]);
    if (o == NULL || napi_set_element(env, arr, (uint32_t)i, o) != napi_ok) goto fail;
  }
  free(list);
  return arr;
fail:
  free(list);
  LW_NAPI_THROW_LAST(env);
  return NULL;
}

static napi_value b_reason_name(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_cond_t *c;
  uint32_t id;
  const char *name;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_get_value_uint32(env, argv[1], &id));
  name = lw_tracker_reason_name(lw_conditions_tracker(&c->core), id);
  return name ? lwb_make_string(env, name) : NULL;
}

/* discardCounts(c) -> [[monitor, reason, n], ...] for every validator name and every reason
 * known to the tracker, zeros included: a counter series that first appears above zero is a
 * rise Prometheus's rate() and increase() never see. */
static napi_value b_discard_counts(napi_env env, napi_callback_info info) {
  napi_value argv[1], arr;
  lwb_cond_t *c;
  lw_conditions_stats_t st;
  size_t i, r;
  uint32_t n = 0;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_create_array(env, &arr));
  lw_conditions_stats(&c->core, &st);
  for (i = 0; i < st.names; i++) {
    lw_name_snapshot_t ns;
    lw_conditions_name_stats(&c->core, i, &ns);
    for (r = 0; r < st.reasons; r++) {
      napi_value row;
      uint64_t count = lw_conditions_name_discarded(&c->core, i, (uint32_t)r);
      LW_NAPI_CALL(env, napi_create_array_with_length(env, 3, &row));
      LW_NAPI_CALL(env, napi_set_element(env, row, 0, lwb_make_string(env, ns.name)));
      LW_NAPI_CALL(env, napi_set_element(env, row, 1,
                                         lwb_make_string(env, lw_tracker_reason_name(lw_conditions_tracker(&c->core), (uint32_t)r))));
      LW_NAPI_CALL(env, napi_set_element(env, row, 2, lwb_make_number(env, (double)count)));
      LW_NAPI_CALL(env, napi_set_element(env, arr, n++, row));
    }
  }
  return arr;
}

static napi_value b_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1], o, disc, stalls, jumps, mons, causes, had;
  lwb_cond_t *c;
  lw_conditions_stats_t st;
  lw_hang_rates_t rates;
  size_t i;
  if (lwb_get_args(env, info, 1, argv)) return NULL;
  if ((c = lwb_get_cond(env, argv[0])) == NULL) return NULL;
  /* JS runs: the loop is not waiting. What a sleeping driftLag would have fired is counted. */
  lwb_cond_entered(c);
  lw_conditions_stats(&c->core, &st);
  lw_conditions_hang_rates(&c->core, lwb_cond_now(c), &rates);
  LW_NAPI_CALL(env, napi_get_boolean(env, rates.had_hang != 0, &had));
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  LW_NAPI_CALL(env, napi_create_object(env, &disc));
  LW_NAPI_CALL(env, napi_create_object(env, &stalls));
  LW_NAPI_CALL(env, napi_create_object(env, &jumps));
  LW_NAPI_CALL(env, napi_create_object(env, &mons));
  LW_NAPI_CALL(env, napi_create_object(env, &causes));
  for (i = 0; i < LW_CAUSE_COUNT; i++)
    if (lwb_set_number(env, causes, lw_cause_name((lw_cause_kind_t)i), (double)st.hang_causes[i]))
      return NULL;
  for (i = 0; i < st.reasons; i++)
    if (lwb_set_number(env, disc, lw_tracker_reason_name(lw_conditions_tracker(&c->core), (uint32_t)i),
                       (double)lw_conditions_discarded(&c->core, (uint32_t)i)))
      return NULL;
  for (i = 0; i < LW_KIND_COUNT; i++)
    if (lwb_set_number(env, stalls, lw_kind_name((lw_kind_t)i), (double)st.stalls[i])) return NULL;
  for (i = 0; i < LW_JUMP_COUNT; i++)
    if (lwb_set_number(env, jumps, lw_jump_name((lw_jump_t)i), (double)st.jumps[i])) return NULL;
  for (i = 0; i < st.names; i++) {
    lw_name_snapshot_t ns;
    napi_value m;
    lw_conditions_name_stats(&c->core, i, &ns);
    LW_NAPI_CALL(env, napi_create_object(env, &m));
    if (lwb_set_number(env, m, "submitted", (double)ns.submitted) ||
        lwb_set_number(env, m, "recorded", (double)ns.recorded) ||
        lwb_set_number(env, m, "discarded", (double)ns.discarded) ||
        lwb_set_number(env, m, "held", (double)ns.held) ||
        lwb_set_number(env, m, "cancelled", (double)ns.cancelled) || lwb_set_stat(env, m, "min", ns.min) ||
        lwb_set_stat(env, m, "max", ns.max) || lwb_set_stat(env, m, "mean", ns.mean) ||
        lwb_set_stat(env, m, "p50", ns.p50) || lwb_set_stat(env, m, "p99", ns.p99) ||
        lwb_set_value(env, mons, ns.name, m))
      return NULL;
  }
  if (lwb_set_number(env, o, "submitted", (double)st.submitted) ||
      lwb_set_number(env, o, "recorded", (double)st.recorded) || lwb_set_value(env, o, "discarded", disc) ||
      lwb_set_number(env, o, "held", (double)st.held) ||
      lwb_set_number(env, o, "cancelled", (double)st.cancelled) ||
      lwb_set_number(env, o, "lost", (double)st.lost) || lwb_set_value(env, o, "stalls", stalls) ||
      lwb_set_value(env, o, "jumps", jumps) || lwb_set_value(env, o, "causes", causes) ||
      lwb_set_number(env, o, "fatalHangs", (double)st.fatal_hangs) ||
      lwb_set_number(env, o, "hangsPerHour", rates.hangs_per_hour) ||
      lwb_set_number(env, o, "hangSecondsPerHour", rates.hang_seconds_per_hour) ||
      lwb_set_value(env, o, "hadHang", had) ||
      lwb_set_number(env, o, "intervals", (double)lw_tracker_expire(lw_conditions_tracker(&c->core), lwb_cond_now(c))) ||
      lwb_set_value(env, o, "monitors", mons))
    return NULL;
  return o;
}

int lwb_tracker_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"trackerOpen", b_tracker_open},
      {"trackerClose", b_tracker_close},
      {"trackerAdd", b_tracker_add},
      {"trackerFind", b_tracker_find},
      {"trackerIntervals", b_tracker_intervals},
      {"reasonName", b_reason_name},
      {"discardCounts", b_discard_counts},
      {"stats", b_stats},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
