/* What the metric producers read of a monitor set: the metric histograms of the recorded samples
 * (lib/producer.js) and driftLag's delay window (nodejs.eventloop.delay.*), both kept only while
 * a reader wants them. */
#include "monitors.h"

/* `n` counts as a Float64Array (counts stay exact below 2^53), or NULL with an exception. */
static napi_value counts_array(napi_env env, const uint64_t *counts, size_t n) {
  napi_value ab, ta;
  double *buf;
  size_t i;
  LW_NAPI_CALL(env, napi_create_arraybuffer(env, n * sizeof(double), (void **)&buf, &ab));
  for (i = 0; i < n; i++) buf[i] = (double)counts[i];
  LW_NAPI_CALL(env, napi_create_typedarray(env, napi_float64_array, n, ab, 0, &ta));
  return ta;
}

/* One aggregate as { count, sum, min, max, counts, scale, zeroCount, offset, bucketCounts }
 * (min and max null while empty), or NULL with an exception. */
static napi_value agg_object(napi_env env, const lw_agg_t *a) {
  napi_value o;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_number(env, o, "count", (double)a->count) || lwb_set_number(env, o, "sum", a->sum) ||
      lwb_set_stat(env, o, "min", a->count ? a->min : NAN) ||
      lwb_set_stat(env, o, "max", a->count ? a->max : NAN) ||
      lwb_set_value(env, o, "counts", counts_array(env, a->counts, a->nbounds + 1)) ||
      lwb_set_number(env, o, "scale", a->exp_scale) ||
      lwb_set_number(env, o, "zeroCount", (double)a->zero_count) ||
      lwb_set_number(env, o, "offset", (double)a->exp_offset) ||
      lwb_set_value(env, o, "bucketCounts", counts_array(env, a->exp_counts, a->exp_len)))
    return NULL;
  return o;
}

/* monAggregates(m) -> { [monitor]: aggregate, selfLag: aggregate }, or null unless kept: the
 * metric histograms of the recorded samples, for lib/producer.js (one call per collection). */
static napi_value b_mon_aggregates(napi_env env, napi_callback_info info) {
  napi_value argv[1], o;
  lwb_monset_t *m;
  int i;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  if (lw_monset_self_lag_agg(&m->set) == NULL) {
    LW_NAPI_CALL(env, napi_get_null(env, &o));
    return o;
  }
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  for (i = 0; i < LW_MON_COUNT; i++) {
    if (!lw_mon_validated((lw_mon_t)i)) continue;
    if (lwb_set_value(env, o, lw_mon_name((lw_mon_t)i), agg_object(env, lw_monset_agg(&m->set, (lw_mon_t)i))))
      return NULL;
  }
  if (lwb_set_value(env, o, "selfLag", agg_object(env, lw_monset_self_lag_agg(&m->set)))) return NULL;
  return o;
}

/* monKeepAggregates(m, keep): whether the metric histograms are kept (producers read them). */
static napi_value b_mon_keep_aggregates(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  lwb_monset_t *m;
  bool keep;
  if ((m = lwb_mon_args(env, info, 2, argv)) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_get_value_bool(env, argv[1], &keep));
  if (lwb_throw_core(env, lw_monset_keep_aggregates(&m->set, keep), NULL, "")) return NULL;
  lwb_mon_report_memory(m, (int64_t)lw_monset_memory(&m->set));
  return NULL;
}

/* monKeepDelay(m): driftLag's window is kept from now on (a meter reads nodejs.eventloop.delay.*). */
static napi_value b_mon_keep_delay(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_monset_t *m;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  if (lwb_throw_core(env, lw_monset_keep_delay(&m->set), NULL, "")) return NULL;
  lwb_mon_report_memory(m, (int64_t)lw_monset_memory(&m->set));
  return NULL;
}

/* monReadDelay(m) -> { count, min, max, mean, stddev, p50, p90, p99 (ms, null when none),
 * activeMs, idleMs }: driftLag's recorded lateness and the loop's time over the last minute. */
static napi_value b_mon_read_delay(napi_env env, napi_callback_info info) {
  napi_value argv[1], o;
  lwb_monset_t *m;
  lw_delay_stats_t d;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  lw_monset_read_delay(&m->set, &d);
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_number(env, o, "count", (double)d.count) || lwb_set_stat(env, o, "min", d.min) ||
      lwb_set_stat(env, o, "max", d.max) || lwb_set_stat(env, o, "mean", d.mean) ||
      lwb_set_stat(env, o, "stddev", d.stddev) || lwb_set_stat(env, o, "p50", d.p50) ||
      lwb_set_stat(env, o, "p90", d.p90) || lwb_set_stat(env, o, "p99", d.p99) ||
      lwb_set_number(env, o, "activeMs", d.active_ms) || lwb_set_number(env, o, "idleMs", d.idle_ms))
    return NULL;
  return o;
}

int lwb_mon_metrics_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"monAggregates", b_mon_aggregates}, {"monReadDelay", b_mon_read_delay},
      {"monKeepAggregates", b_mon_keep_aggregates}, {"monKeepDelay", b_mon_keep_delay},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
