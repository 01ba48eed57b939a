/* The monitors' options: see config.h. */
#include "config.h"

#include <math.h>
#include <stddef.h>

void lw_monset_core_config_default(lw_monset_core_config_t *cfg, const lw_conditions_t *c) {
  cfg->drift_interval_ms = 20;
  cfg->macrotask_interval_ms = 250;
  cfg->idle_period_ms = 1000;
  cfg->worker_interval_ms = 1000;
  cfg->liveness_interval_ms = 100;
  cfg->clock_interval_ms = 1000;
  cfg->flush_interval_ms = 1000;
  cfg->suspend_min_ms = 100;
  cfg->step_min_ms = 1000;
  cfg->throttle_late_ms = 500;
  cfg->throttle_firings = 3;
  cfg->sleep_clock = 1;
  cfg->blocks = 0;
  cfg->block_threshold_ms = 100;
  cfg->block_reports_per_min = 10;
  cfg->block_watch = 0;
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

static int positive(double x) { return isfinite(x) && x > 0; }

/* The options a user may set, by their public names, with their ranges (SPEC §6). */
static const struct {
  const char *name;
  size_t offset;
  lw_option_kind_t kind;
} options[] = {
    {"driftLag.intervalMs", offsetof(lw_monset_core_config_t, drift_interval_ms), LW_OPTION_MS},
    {"macrotaskLag.intervalMs", offsetof(lw_monset_core_config_t, macrotask_interval_ms), LW_OPTION_MS},
    {"idleAvailability.intervalMs", offsetof(lw_monset_core_config_t, idle_period_ms), LW_OPTION_MS},
    {"worker.intervalMs", offsetof(lw_monset_core_config_t, worker_interval_ms), LW_OPTION_MS},
    {"liveness.intervalMs", offsetof(lw_monset_core_config_t, liveness_interval_ms), LW_OPTION_MS},
    {"clockDrift.intervalMs", offsetof(lw_monset_core_config_t, clock_interval_ms), LW_OPTION_MS},
    {"clockDrift.suspendMinMs", offsetof(lw_monset_core_config_t, suspend_min_ms), LW_OPTION_MS},
    {"clockDrift.stepMinMs", offsetof(lw_monset_core_config_t, step_min_ms), LW_OPTION_MS},
    {"clockDrift.sleepClock", offsetof(lw_monset_core_config_t, sleep_clock), LW_OPTION_BOOLEAN},
    {"timerThrottle.lateMs", offsetof(lw_monset_core_config_t, throttle_late_ms), LW_OPTION_MS},
    {"timerThrottle.firings", offsetof(lw_monset_core_config_t, throttle_firings), LW_OPTION_COUNT},
    {"flushIntervalMs", offsetof(lw_monset_core_config_t, flush_interval_ms), LW_OPTION_MS},
    {"blocks", offsetof(lw_monset_core_config_t, blocks), LW_OPTION_BOOLEAN},
    {"blocks.thresholdMs", offsetof(lw_monset_core_config_t, block_threshold_ms), LW_OPTION_BLOCK_MS},
    {"blocks.maxReportsPerMinute", offsetof(lw_monset_core_config_t, block_reports_per_min), LW_OPTION_RATE},
    {"blocks.stacks", offsetof(lw_monset_core_config_t, block_watch), LW_OPTION_BOOLEAN},
};

size_t lw_monset_core_option_count(void) { return sizeof(options) / sizeof(options[0]); }

const char *lw_monset_core_option_name(size_t i) {
  return i < lw_monset_core_option_count() ? options[i].name : NULL;
}

lw_option_kind_t lw_monset_core_option_kind(size_t i) {
  return i < lw_monset_core_option_count() ? options[i].kind : LW_OPTION_MS;
}

/* Option `i`'s range (the one place it is written). */
static int option_ok(size_t i, double value, const char **range) {
  switch (options[i].kind) {
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
    default:
      *range = "a finite number > 0";
      return positive(value);
  }
}

int lw_monset_core_option_set(lw_monset_core_config_t *cfg, size_t i, double value, const char **range) {
  char *field;
  if (i >= lw_monset_core_option_count()) return LW_ENOENT;
  if (!option_ok(i, value, range)) return LW_EINVAL;
  field = (char *)cfg + options[i].offset;
  if (options[i].kind != LW_OPTION_MS && options[i].kind != LW_OPTION_BLOCK_MS)
    *(int *)(void *)field = (int)value;
  else
    *(double *)(void *)field = value;
  return LW_OK;
}

double lw_monset_core_option_get(const lw_monset_core_config_t *cfg, size_t i) {
  const char *field;
  if (i >= lw_monset_core_option_count()) return NAN;
  field = (const char *)cfg + options[i].offset;
  return options[i].kind != LW_OPTION_MS && options[i].kind != LW_OPTION_BLOCK_MS
             ? *(const int *)(const void *)field
             : *(const double *)(const void *)field;
}

int lw_monset_core_config_valid(const lw_monset_core_config_t *cfg) {
  const char *range;
  size_t i;
  for (i = 0; i < lw_monset_core_option_count(); i++)
    if (!option_ok(i, lw_monset_core_option_get(cfg, i), &range)) return 0;
  return cfg->stall_threshold_ms > 0 && isfinite(cfg->stall_threshold_ms);
}
