/* The options a user may set: see config.h. */
#include "config.h"
#include "monitors-internal.h"

#include <math.h>
#include <stddef.h>

/* The conditions' options (SPEC §4, §5), fields of a lw_conditions_config_t. */
static const lw_option_row_t conditions_options[] = {
    {"stallThresholdMs", offsetof(lw_conditions_config_t, stall_threshold_ms), LW_OPTION_THRESHOLD, 5000},
    {"holdMs", offsetof(lw_conditions_config_t, hold_ms), LW_OPTION_NONNEG, 2000},
    {"episodeDelayMs", offsetof(lw_conditions_config_t, episode_delay_ms), LW_OPTION_NONNEG, 2000},
    {"retentionMs", offsetof(lw_conditions_config_t, retention_ms), LW_OPTION_NONNEG, 120000},
};

/* The monitor set's own options (SPEC §6), after its monitors' (each in its descriptor): fields
 * of a lw_monset_core_config_t. */
static const lw_option_row_t set_options[] = {
    {"flushIntervalMs", offsetof(lw_monset_core_config_t, flush_interval_ms), LW_OPTION_MS, 1000},
    {"blocks", offsetof(lw_monset_core_config_t, blocks), LW_OPTION_BOOLEAN, 0},
    {"blocks.thresholdMs", offsetof(lw_monset_core_config_t, block_threshold_ms), LW_OPTION_BLOCK_MS, 100},
    {"blocks.maxReportsPerMinute", offsetof(lw_monset_core_config_t, block_reports_per_min), LW_OPTION_RATE, 10},
    {"blocks.stacks", offsetof(lw_monset_core_config_t, block_watch), LW_OPTION_BOOLEAN, 0},
};

#define LW__COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The monitors' options: each monitor's rows in the monitor table's order, then the set's. */
static size_t monitors_count(void) {
  size_t n = LW__COUNT(set_options), k;
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) lw__mon_options((lw_mon_t)i, &k), n += k;
  return n;
}

static const lw_option_row_t *monitors_option(size_t at) {
  size_t k;
  int i;
  for (i = 0; i < LW_MON_COUNT; i++) {
    const lw_option_row_t *rows = lw__mon_options((lw_mon_t)i, &k);
    if (at < k) return &rows[at];
    at -= k;
  }
  return at < LW__COUNT(set_options) ? &set_options[at] : NULL;
}

/* The monitors' rows come first in their table, the set's after them. */
int lw_option_of_monitor(lw_options_t t, size_t i) {
  return t == LW_OPTIONS_MONITORS && i < monitors_count() - LW__COUNT(set_options);
}

static const char *const kind_names[LW_OPTION_KINDS] = {"ms",   "count",     "boolean",    "blockMs",
                                                        "rate", "threshold", "nonnegative"};

/* Option `i` of table `t`, or NULL. */
static const lw_option_row_t *option_at(lw_options_t t, size_t i) {
  if (t == LW_OPTIONS_CONDITIONS) return i < LW__COUNT(conditions_options) ? &conditions_options[i] : NULL;
  return t == LW_OPTIONS_MONITORS ? monitors_option(i) : NULL;
}

/* Counts, booleans and rates are ints in their configs; the rest doubles. */
static int stored_as_int(lw_option_kind_t kind) {
  return kind == LW_OPTION_COUNT || kind == LW_OPTION_BOOLEAN || kind == LW_OPTION_RATE;
}

/* Each kind's range (the one place it is written). */
int lw_option_ok(lw_option_kind_t kind, double value, const char **range) {
  switch (kind) {
    case LW_OPTION_COUNT:
      *range = "an integer from 1 to 8";
      return value >= 1 && value <= 8 && value == floor(value);
    case LW_OPTION_BOOLEAN:
      *range = "a boolean";
      return value == 0 || value == 1;
    case LW_OPTION_BLOCK_MS:
      *range = "a finite number >= 50";
      return isfinite(value) && value >= LW_BLOCK_MIN_MS;
    case LW_OPTION_RATE:
      *range = "an integer from 0 to 100000";
      return value >= 0 && value <= LW_BLOCK_RATE_MAX && value == floor(value);
    case LW_OPTION_THRESHOLD:
      *range = "a number > 0 (Infinity allowed)";
      return value > 0;
    case LW_OPTION_NONNEG:
      *range = "a finite number >= 0";
      return isfinite(value) && value >= 0;
    default:
      *range = "a finite number > 0";
      return isfinite(value) && value > 0;
  }
}

const char *lw_option_kind_name(lw_option_kind_t kind) {
  return (unsigned)kind < LW_OPTION_KINDS ? kind_names[kind] : NULL;
}

size_t lw_option_count(lw_options_t t) {
  if (t == LW_OPTIONS_CONDITIONS) return LW__COUNT(conditions_options);
  return t == LW_OPTIONS_MONITORS ? monitors_count() : 0;
}

const char *lw_option_name(lw_options_t t, size_t i) {
  const lw_option_row_t *o = option_at(t, i);
  return o != NULL ? o->name : NULL;
}

lw_option_kind_t lw_option_kind(lw_options_t t, size_t i) {
  const lw_option_row_t *o = option_at(t, i);
  return o != NULL ? o->kind : LW_OPTION_MS;
}

double lw_option_default(lw_options_t t, size_t i) {
  const lw_option_row_t *o = option_at(t, i);
  return o != NULL ? o->dflt : NAN;
}

int lw_option_set(lw_options_t t, void *cfg, size_t i, double value, const char **range) {
  const lw_option_row_t *o = option_at(t, i);
  char *field;
  if (o == NULL) return LW_ENOENT;
  if (!lw_option_ok(o->kind, value, range)) return LW_EINVAL;
  field = (char *)cfg + o->offset;
  if (stored_as_int(o->kind))
    *(int *)(void *)field = (int)value;
  else
    *(double *)(void *)field = value;
  return LW_OK;
}

double lw_option_get(lw_options_t t, const void *cfg, size_t i) {
  const lw_option_row_t *o = option_at(t, i);
  const char *field;
  if (o == NULL) return NAN;
  field = (const char *)cfg + o->offset;
  return stored_as_int(o->kind) ? *(const int *)(const void *)field : *(const double *)(const void *)field;
}

/* Every option of table `t` in `cfg` set to its default. */
static void set_defaults(lw_options_t t, void *cfg) {
  const char *range;
  size_t i;
  for (i = 0; i < lw_option_count(t); i++) lw_option_set(t, cfg, i, option_at(t, i)->dflt, &range);
}

/* LW_OK, or LW_EINVAL naming the first option of table `t` out of its range in `cfg`. */
static int check(lw_options_t t, const void *cfg, lw_err_t *err) {
  const char *range;
  size_t i;
  for (i = 0; i < lw_option_count(t); i++)
    if (!lw_option_ok(option_at(t, i)->kind, lw_option_get(t, cfg, i), &range))
      return lw__refuse(err, LW_EINVAL, option_at(t, i)->name, range);
  return LW_OK;
}

void lw_conditions_config_default(lw_conditions_config_t *cfg) { set_defaults(LW_OPTIONS_CONDITIONS, cfg); }

int lw_conditions_config_check(const lw_conditions_config_t *cfg, lw_err_t *err) {
  return check(LW_OPTIONS_CONDITIONS, cfg, err);
}

int lw_conditions_config_valid(const lw_conditions_config_t *cfg) {
  return lw_conditions_config_check(cfg, NULL) == LW_OK;
}

void lw_monset_core_config_default(lw_monset_core_config_t *cfg, const lw_conditions_t *c) {
  set_defaults(LW_OPTIONS_MONITORS, cfg);
  /* The conditions' stall threshold; with episodes off (Infinity), the default one, which still
   * paces the worker's rests and the hang detector. */
  if (c != NULL && isfinite(c->cfg.stall_threshold_ms)) {
    cfg->stall_threshold_ms = c->cfg.stall_threshold_ms;
  } else {
    lw_conditions_config_t dc;
    lw_conditions_config_default(&dc);
    cfg->stall_threshold_ms = dc.stall_threshold_ms;
  }
}

int lw_monset_core_config_valid(const lw_monset_core_config_t *cfg) {
  return check(LW_OPTIONS_MONITORS, cfg, NULL) == LW_OK && cfg->stall_threshold_ms > 0 &&
         isfinite(cfg->stall_threshold_ms);
}
