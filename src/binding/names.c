/* What the core names and numbers, for lib/ to build its tables from instead of writing them
 * again: the monitors and their metric histograms, the option tables, the parts of a hang's cause,
 * the reasons, the kinds of a stall and of a clock jump, the lifecycle states, the histograms'
 * bucket bounds, a window's flags, which monitors pause while hidden. */
#include <string.h>

#include "../core/aggregate.h"
#include "names.h"

int lwb_arg_mon_name(napi_env env, napi_value v, lw_mon_t *mon) {
  char name[32];
  size_t len;
  if (lwb_arg_string(env, v, "name", name, sizeof(name), &len)) return -1;
  *mon = len < sizeof(name) ? lw_mon_parse(name, len) : LW_MON_COUNT;
  if (*mon == LW_MON_COUNT) return lwb_throw_range(env, "name", "the name of a monitor");
  return 0;
}

/* monNames() -> the monitors' names, in the core's order. lib/ builds its tables from it. */
static napi_value names_array(napi_env env, size_t n, const char *(*name)(size_t)) {
  napi_value arr;
  size_t i;
  LW_NAPI_CALL(env, napi_create_array_with_length(env, n, &arr));
  for (i = 0; i < n; i++) {
    napi_value s = lwb_make_string(env, name(i));
    if (s == NULL) return NULL;
    LW_NAPI_CALL(env, napi_set_element(env, arr, (uint32_t)i, s));
  }
  return arr;
}

static const char *mon_name_at(size_t i) { return lw_mon_name((lw_mon_t)i); }

static napi_value b_mon_names(napi_env env, napi_callback_info info) {
  (void)info;
  return names_array(env, LW_MON_COUNT, mon_name_at);
}

/* One table of the core's (config.h) as { name: { kind, range, default } }, in its order. */
static napi_value option_table(napi_env env, lw_options_t t) {
  napi_value o, row, dflt;
  size_t i;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  for (i = 0; i < lw_option_count(t); i++) {
    lw_option_kind_t kind = lw_option_kind(t, i);
    const char *range;
    double d = lw_option_default(t, i);
    lw_option_ok(kind, d, &range);
    LW_NAPI_CALL(env, napi_create_object(env, &row));
    if (kind == LW_OPTION_BOOLEAN)
      LW_NAPI_CALL(env, napi_get_boolean(env, d != 0, &dflt));
    else if ((dflt = lwb_make_number(env, d)) == NULL)
      return NULL;
    if (lwb_set_string(env, row, "kind", lw_option_kind_name(kind)) || lwb_set_string(env, row, "range", range) ||
        lwb_set_value(env, row, "default", dflt) || lwb_set_value(env, o, lw_option_name(t, i), row))
      return NULL;
  }
  return o;
}

/* optionTables() -> { conditions, monitors }: the options a user may set, each table as
 * option_table() makes it ('holdMs', 'driftLag.intervalMs', ...). lib/ takes the names from it
 * to check a user's keys; the binding checks the values against the same table. */
static napi_value b_option_tables(napi_env env, napi_callback_info info) {
  napi_value o;
  (void)info;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_value(env, o, "conditions", option_table(env, LW_OPTIONS_CONDITIONS)) ||
      lwb_set_value(env, o, "monitors", option_table(env, LW_OPTIONS_MONITORS)))
    return NULL;
  return o;
}

/* optionCheck(table, name, value): throws what setting option `name` ('blocks.thresholdMs') of
 * table 'conditions' or 'monitors' to `value` would throw, the same TypeError or RangeError; an
 * unknown table or name is a RangeError. For a caller that must tell one option's error from the
 * rest (register's LAGWATCH_BLOCK_MS: a bad one is said and the rest runs). */
static napi_value b_option_check(napi_env env, napi_callback_info info) {
  napi_value argv[3], r;
  char table[16], name[96];
  size_t len, i;
  lw_options_t t;
  double d;
  if (lwb_get_args(env, info, 3, argv) || lwb_arg_string(env, argv[0], "table", table, sizeof(table), &len) ||
      lwb_arg_string(env, argv[1], "name", name, sizeof(name), &len))
    return NULL;
  if (strcmp(table, "conditions") == 0)
    t = LW_OPTIONS_CONDITIONS;
  else if (strcmp(table, "monitors") == 0)
    t = LW_OPTIONS_MONITORS;
  else {
    lwb_throw_range(env, "table", "'conditions' or 'monitors'");
    return NULL;
  }
  for (i = 0; i < lw_option_count(t); i++)
    if (strcmp(lw_option_name(t, i), name) == 0) break;
  if (i == lw_option_count(t)) {
    lwb_throw_range(env, "name", "an option of the table");
    return NULL;
  }
  lwb_option_path(t, i, name, sizeof(name));
  if (lwb_arg_option(env, argv[2], t, i, name, &d)) return NULL;
  LW_NAPI_CALL(env, napi_get_undefined(env, &r));
  return r;
}

/* causeNames() -> the dominant parts of a hang's cause, in the core's order (SPEC §12). */
static const char *cause_name_at(size_t i) { return lw_cause_name((lw_cause_kind_t)i); }

static napi_value b_cause_names(napi_env env, napi_callback_info info) {
  (void)info;
  return names_array(env, LW_CAUSE_COUNT, cause_name_at);
}

/* reasonNames() -> the built-in reasons (SPEC §4), stallKinds() -> the kinds of a stall episode,
 * jumpKinds() -> the kinds of a clock jump, lifecycleStates() -> the lifecycle states (SPEC §3),
 * each in the core's order (its one table of them). */
static const char *reason_name_at(size_t i) { return lw_reason_builtin_name((uint32_t)i); }
static const char *stall_kind_at(size_t i) { return lw_kind_name((lw_kind_t)i); }
static const char *jump_kind_at(size_t i) { return lw_jump_name((lw_jump_t)i); }
static const char *state_name_at(size_t i) { return lw_state_name((lw_state_t)i); }

static napi_value b_reason_names(napi_env env, napi_callback_info info) {
  (void)info;
  return names_array(env, LW_REASON_BUILTIN_COUNT, reason_name_at);
}

static napi_value b_stall_kinds(napi_env env, napi_callback_info info) {
  (void)info;
  return names_array(env, LW_KIND_COUNT, stall_kind_at);
}

static napi_value b_jump_kinds(napi_env env, napi_callback_info info) {
  (void)info;
  return names_array(env, LW_JUMP_COUNT, jump_kind_at);
}

static napi_value b_lifecycle_states(napi_env env, napi_callback_info info) {
  (void)info;
  return names_array(env, LW_STATE_COUNT, state_name_at);
}

/* monPausedWhileHidden(name, browserProcess) -> whether setupAllMonitors pauses it while hidden
 * (SPEC §6). */
static napi_value b_mon_paused_while_hidden(napi_env env, napi_callback_info info) {
  napi_value argv[2], r;
  lw_mon_t mon;
  bool browser = false;
  if (lwb_get_args(env, info, 2, argv) || lwb_arg_mon_name(env, argv[0], &mon)) return NULL;
  if (!lwb_is_undefined(env, argv[1])) LW_NAPI_CALL(env, napi_get_value_bool(env, argv[1], &browser));
  LW_NAPI_CALL(env, napi_get_boolean(env, lw_mon_paused_while_hidden(mon, browser) != 0, &r));
  return r;
}

/* bucketBounds() -> { lag, stall, ratio, block }: the explicit bucket boundaries of lagwatch's
 * histograms (core/aggregate.c), for the advice of those recorded from JS. */
static const char *const bounds_names[LW_BOUNDS_COUNT] = {"lag", "stall", "ratio", "block"};

static napi_value b_bucket_bounds(napi_env env, napi_callback_info info) {
  napi_value o, arr;
  size_t k, i, n;
  (void)info;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  for (k = 0; k < LW_BOUNDS_COUNT; k++) {
    const double *b = lw_bounds((lw_bounds_t)k, &n);
    LW_NAPI_CALL(env, napi_create_array_with_length(env, n, &arr));
    for (i = 0; i < n; i++) LW_NAPI_CALL(env, napi_set_element(env, arr, (uint32_t)i, lwb_make_number(env, b[i])));
    if (lwb_set_value(env, o, bounds_names[k], arr)) return NULL;
  }
  return o;
}

/* monMetrics() -> [[monitor, metric name, description, unit, bounds ('lag' | 'ratio')], ...]: the
 * validated monitors' metric histograms (SPEC §10), in the core's order. */
static napi_value b_mon_metrics(napi_env env, napi_callback_info info) {
  napi_value arr, row;
  uint32_t n = 0;
  int i;
  (void)info;
  LW_NAPI_CALL(env, napi_create_array(env, &arr));
  for (i = 0; i < LW_MON_COUNT; i++) {
    const lw_mon_metric_t *mm = lw_mon_metric((lw_mon_t)i);
    const char *cells[5];
    uint32_t k;
    if (mm == NULL) continue;
    cells[0] = lw_mon_name((lw_mon_t)i);
    cells[1] = mm->name;
    cells[2] = mm->description;
    cells[3] = mm->unit;
    cells[4] = bounds_names[lw_mon_bounds((lw_mon_t)i)];
    LW_NAPI_CALL(env, napi_create_array_with_length(env, 5, &row));
    for (k = 0; k < 5; k++) {
      napi_value c = lwb_make_string(env, cells[k]);
      if (c == NULL) return NULL;
      LW_NAPI_CALL(env, napi_set_element(env, row, k, c));
    }
    LW_NAPI_CALL(env, napi_set_element(env, arr, n++, row));
  }
  return arr;
}

/* windowFlags() -> { visible, minimized, focused, pageFrozen, pageTerminated }: a window's flags,
 * and a renderer page's (windowsState's third argument). */
static napi_value b_window_flags(napi_env env, napi_callback_info info) {
  napi_value o;
  (void)info;
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_number(env, o, "visible", LW_WINDOW_VISIBLE) || lwb_set_number(env, o, "minimized", LW_WINDOW_MINIMIZED) ||
      lwb_set_number(env, o, "focused", LW_WINDOW_FOCUSED) || lwb_set_number(env, o, "pageFrozen", LW_PAGE_FROZEN) ||
      lwb_set_number(env, o, "pageTerminated", LW_PAGE_TERMINATED))
    return NULL;
  return o;
}

int lwb_names_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"monNames", b_mon_names}, {"optionTables", b_option_tables}, {"optionCheck", b_option_check},
      {"causeNames", b_cause_names}, {"monPausedWhileHidden", b_mon_paused_while_hidden},
      {"bucketBounds", b_bucket_bounds}, {"windowFlags", b_window_flags},
      {"reasonNames", b_reason_names}, {"stallKinds", b_stall_kinds}, {"jumpKinds", b_jump_kinds},
      {"monMetrics", b_mon_metrics},
      {"lifecycleStates", b_lifecycle_states},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
