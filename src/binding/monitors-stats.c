/* What stats() and workerStats() read of a monitor set: the main thread's times by state, the
 * loop's time, the set's memory, its blocks, which monitors run, the worker's own view. */
#include <math.h>

#include "monitors.h"
#include "names.h"

/* monTimes(m) -> the main thread's times { cpuMs, runQueueMs, throttledMs }, each state counted
 * once (null where unknown), or null when they cannot be read (SPEC §12). */
static napi_value b_mon_times(napi_env env, napi_callback_info info) {
  napi_value argv[1], o;
  lwb_monset_t *m;
  lw_thread_times_t t;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  if (lw_monset_main_times(&m->set, &t) != 0) {
    LW_NAPI_CALL(env, napi_get_null(env, &o));
    return o;
  }
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_stat(env, o, "cpuMs", t.cpu_ms) || lwb_set_stat(env, o, "runQueueMs", t.runq_ms) ||
      lwb_set_stat(env, o, "throttledMs", t.throttled_ms))
    return NULL;
  return o;
}

/* monLoopTime(m) -> { activeMs, idleMs }: the loop's time over idleAvailability's recorded periods
 * since start (SPEC §10's nodejs.eventloop.time). */
static napi_value b_mon_loop_time(napi_env env, napi_callback_info info) {
  napi_value argv[1], o;
  lwb_monset_t *m;
  double active, idle;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  lw_monset_loop_time(&m->set, &active, &idle);
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_stat(env, o, "activeMs", active) || lwb_set_stat(env, o, "idleMs", idle)) return NULL;
  return o;
}

/* monMemory(m) -> the bytes of native memory the set holds now (what it reports to V8). */
static napi_value b_mon_memory(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  lwb_monset_t *m;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  return lwb_make_number(env, (double)lw_monset_memory(&m->set));
}

/* monBlocks(m) -> { count, reported, unreported, watched, discarded: { [reason]: n } }: the set's blocks
 * (src/core/blocks.h), discarded ones by the reason that explained them. */
static napi_value b_mon_blocks(napi_env env, napi_callback_info info) {
  napi_value argv[1], o, d;
  lwb_monset_t *m;
  lw_monset_core_stats_t st;
  const char *name;
  uint32_t r;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  lw_monset_stats(&m->set, &st);
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  LW_NAPI_CALL(env, napi_create_object(env, &d));
  for (r = 0; (name = lw_conditions_reason_name(&m->cond->core, r)) != NULL; r++) {
    uint64_t n = lw_monset_blocks_discarded(&m->set, r);
    if (n > 0 && lwb_set_number(env, d, name, (double)n)) return NULL;
  }
  if (lwb_set_number(env, o, "count", (double)st.blocks) ||
      lwb_set_number(env, o, "reported", (double)st.blocks_reported) ||
      lwb_set_number(env, o, "unreported", (double)st.blocks_unreported) ||
      lwb_set_number(env, o, "watched", (double)st.blocks_watched) || lwb_set_value(env, o, "discarded", d))
    return NULL;
  return o;
}

static napi_value b_mon_running(napi_env env, napi_callback_info info) {
  napi_value argv[2], r;
  lwb_monset_t *m;
  lw_mon_t mon;
  if (lwb_get_args(env, info, 2, argv)) return NULL;
  if ((m = lwb_mon_get(env, argv[0])) == NULL || lwb_arg_mon_name(env, argv[1], &mon)) return NULL;
  LW_NAPI_CALL(env, napi_get_boolean(env, lw_monset_running(&m->set, mon) != 0, &r));
  return r;
}

/* monStats(m) -> { workerSelfLag: {count, max, p99}, workerHangs: {count, ended, max},
 *                  loop: 'node' | 'embedded', sleepClock: string | null } */
static napi_value b_mon_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1], o, sl, hg;
  lwb_monset_t *m;
  lw_monset_core_stats_t st;
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  lw_monset_stats(&m->set, &st);
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  LW_NAPI_CALL(env, napi_create_object(env, &sl));
  LW_NAPI_CALL(env, napi_create_object(env, &hg));
  if (lwb_set_number(env, sl, "count", (double)st.self_lag_count) ||
      lwb_set_stat(env, sl, "max", st.self_lag_max) || lwb_set_stat(env, sl, "p99", st.self_lag_p99) ||
      lwb_set_number(env, hg, "count", (double)st.worker_hangs) ||
      lwb_set_number(env, hg, "ended", (double)st.worker_hangs_ended) ||
      lwb_set_stat(env, hg, "max", st.worker_hang_max) ||
      lwb_set_value(env, o, "workerSelfLag", sl) || lwb_set_value(env, o, "workerHangs", hg) ||
      lwb_set_string(env, o, "loop", lw_monset_embedded(&m->set) ? "embedded" : "node"))
    return NULL;
  if (lw_monset_sleep_clock(&m->set) == NULL) {
    napi_value null_value;
    LW_NAPI_CALL(env, napi_get_null(env, &null_value));
    if (lwb_set_value(env, o, "sleepClock", null_value)) return NULL;
  } else if (lwb_set_string(env, o, "sleepClock", lw_monset_sleep_clock(&m->set))) {
    return NULL;
  }
  return o;
}

int lwb_mon_stats_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"monTimes", b_mon_times},   {"monLoopTime", b_mon_loop_time}, {"monMemory", b_mon_memory},
      {"monBlocks", b_mon_blocks}, {"monRunning", b_mon_running},    {"monStats", b_mon_stats},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
