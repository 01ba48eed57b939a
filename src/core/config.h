/* The options a user may set by public name, in two tables of the same shape: the conditions'
 * (SPEC §4, §5) and the monitors' (SPEC §6), each option with its kind, its range and its default,
 * each written once. Every entry point checks an option against these tables (through the
 * binding) and nowhere else. */
#ifndef LW_CORE_CONFIG_H_
#define LW_CORE_CONFIG_H_

#include "conditions.h"

/* The shortest block threshold (SPEC's silence filled: blocks.thresholdMs), and the most block
 * reports a minute may have. */
#define LW_BLOCK_MIN_MS 50.0
#define LW_BLOCK_RATE_MAX 100000

/* The monitors' config: each option's default and range are its row of the table (config.c). */
typedef struct lw_monset_core_config_s {
  double drift_interval_ms;     /* driftLag.intervalMs */
  double macrotask_interval_ms; /* macrotaskLag.intervalMs */
  double idle_period_ms;        /* idleAvailability.intervalMs */
  double worker_interval_ms;    /* worker.intervalMs */
  double liveness_interval_ms;  /* liveness.intervalMs */
  double clock_interval_ms;     /* clockDrift.intervalMs */
  double flush_interval_ms;     /* flushIntervalMs */
  double suspend_min_ms;        /* clockDrift.suspendMinMs: sleep-clock growth that is a suspend */
  double step_min_ms;           /* clockDrift.stepMinMs: |wall - monotonic| drift that is a step */
  double throttle_late_ms;      /* timerThrottle.lateMs */
  int throttle_firings;         /* timerThrottle.firings */
  int sleep_clock;              /* clockDrift.sleepClock: use the sleep-clock pair when the
                                 * platform has one */
  double stall_threshold_ms;    /* not an option: the worker's thresholds, the conditions' (their
                                 * default for Infinity) */
  int blocks;                   /* blocks: whether blocks are reported (blocks.h) */
  double block_threshold_ms;    /* blocks.thresholdMs: a loop iteration this long or longer is a
                                 * block */
  int block_reports_per_min;    /* blocks.maxReportsPerMinute: blocks reported one by one per
                                 * minute, at most */
  int block_watch;              /* blocks.stacks: the worker watches each block while it runs
                                 * (its cause, its stack) (worker.h) */
} lw_monset_core_config_t;

/* The defaults of the monitors' table; the stall threshold is `c`'s, or the conditions' default
 * without `c`. */
void lw_monset_core_config_default(lw_monset_core_config_t *cfg, const lw_conditions_t *c);
int lw_monset_core_config_valid(const lw_monset_core_config_t *cfg);

/* An option's kind: which values it takes. A boolean option's value is 0 or 1. */
typedef enum {
  LW_OPTION_MS = 0,    /* a finite number > 0 */
  LW_OPTION_COUNT,     /* an integer from 1 to 8 */
  LW_OPTION_BOOLEAN,   /* 0 or 1 */
  LW_OPTION_BLOCK_MS,  /* a finite number >= LW_BLOCK_MIN_MS */
  LW_OPTION_RATE,      /* an integer from 0 to LW_BLOCK_RATE_MAX */
  LW_OPTION_THRESHOLD, /* a number > 0, Infinity allowed (a stall threshold) */
  LW_OPTION_NONNEG,    /* a finite number >= 0 */
  LW_OPTION_KINDS
} lw_option_kind_t;

/* The tables: the conditions' options are fields of a lw_conditions_config_t, the monitors' of a
 * lw_monset_core_config_t (the `cfg` of the calls below). */
typedef enum { LW_OPTIONS_CONDITIONS = 0, LW_OPTIONS_MONITORS, LW_OPTIONS_COUNT } lw_options_t;
/* One option: its public name, its field in its table's config, its kind and its default. A
 * monitor's own options are rows of its descriptor (monitors-internal.h); the monitors' table is
 * theirs in the monitor table's order, then the set's own (config.c). */
typedef struct lw_option_row_s {
  const char *name;
  size_t offset;
  lw_option_kind_t kind;
  double dflt;
} lw_option_row_t;

/* Whether `value` is in the range of `kind`. `*range` is set either way to the text that
 * describes that range ("a finite number > 0"), for the error that names the option. */
int lw_option_ok(lw_option_kind_t kind, double value, const char **range);
/* The kind's name, for the binding's export of the tables ("ms", "count", ...). */
const char *lw_option_kind_name(lw_option_kind_t kind);
/* Table `t`'s options by index: the public names ("holdMs", "driftLag.intervalMs", ...), kinds
 * and defaults (NULL, LW_OPTION_MS and NAN past the last option). */
size_t lw_option_count(lw_options_t t);
const char *lw_option_name(lw_options_t t, size_t i);
lw_option_kind_t lw_option_kind(lw_options_t t, size_t i);
double lw_option_default(lw_options_t t, size_t i);
/* 1 if option `i` of table `t` is a monitor's ("driftLag.intervalMs": its name begins with the
 * monitor's), 0 if it is the set's ("blocks.thresholdMs") or the conditions'. */
int lw_option_of_monitor(lw_options_t t, size_t i);
/* Sets option `i` of table `t` in `cfg` to `value`: LW_OK, or LW_EINVAL if it is out of range
 * (nothing changed; `*range` describes the range), or LW_ENOENT past the last option. */
int lw_option_set(lw_options_t t, void *cfg, size_t i, double value, const char **range);
/* Option `i`'s value in `cfg` (NAN past the last option). */
double lw_option_get(lw_options_t t, const void *cfg, size_t i);

#endif /* LW_CORE_CONFIG_H_ */
