/* The monitors' options (SPEC §6): their defaults, the ones a user may set by public name, and
 * their ranges, each written once. */
#ifndef LW_CORE_CONFIG_H_
#define LW_CORE_CONFIG_H_

#include "conditions.h"

/* The shortest block threshold (SPEC's silence filled: blocks.thresholdMs), and the most block
 * reports a minute may have. */
#define LW_BLOCK_MIN_MS 50.0
#define LW_BLOCK_RATE_MAX 100000

typedef struct lw_monset_core_config_s {
  double drift_interval_ms;     /* 20 */
  double macrotask_interval_ms; /* 250 */
  double idle_period_ms;        /* 1000 */
  double worker_interval_ms;    /* 1000 */
  double liveness_interval_ms;  /* 100 */
  double clock_interval_ms;     /* 1000 */
  double flush_interval_ms;     /* 1000 */
  double suspend_min_ms;        /* 100: sleep-clock growth that is a suspend */
  double step_min_ms;           /* 1000: |wall - monotonic| drift that is a step */
  double throttle_late_ms;      /* 500 */
  int throttle_firings;         /* 3 */
  int sleep_clock;              /* 1: use the sleep-clock pair when the platform has one */
  double stall_threshold_ms;    /* the worker's thresholds: the conditions' (5000 for Infinity) */
  int blocks;                   /* 0: blocks are not reported (blocks.h) */
  double block_threshold_ms;    /* 100: a loop iteration this long or longer is a block */
  int block_reports_per_min;    /* 10: blocks reported one by one per minute, at most */
  int block_watch;              /* 0: the worker watches each block while it runs (its cause, its
                                 * stack): blocks.stacks (worker.h) */
} lw_monset_core_config_t;

/* The defaults; the stall threshold is `c`'s, or the conditions' default without `c`. */
void lw_monset_core_config_default(lw_monset_core_config_t *cfg, const lw_conditions_t *c);
int lw_monset_core_config_valid(const lw_monset_core_config_t *cfg);
/* The options a user may set, by index: their public names ("driftLag.intervalMs", ...) and
 * kinds. A boolean option's value is 0 or 1. */
typedef enum {
  LW_OPTION_MS = 0,  /* a finite number > 0 */
  LW_OPTION_COUNT,   /* an integer from 1 to 8 */
  LW_OPTION_BOOLEAN, /* 0 or 1 */
  LW_OPTION_BLOCK_MS, /* a finite number >= LW_BLOCK_MIN_MS */
  LW_OPTION_RATE      /* an integer from 0 to LW_BLOCK_RATE_MAX */
} lw_option_kind_t;
size_t lw_monset_core_option_count(void);
const char *lw_monset_core_option_name(size_t i);
lw_option_kind_t lw_monset_core_option_kind(size_t i);
/* Sets option `i` to `value`: LW_OK, or LW_EINVAL if it is out of range (nothing changed);
 * `*range` then describes the range ("a finite number > 0"). */
int lw_monset_core_option_set(lw_monset_core_config_t *cfg, size_t i, double value, const char **range);
/* Option `i`'s value in `cfg` (NAN past the last option): with a default config, its default. */
double lw_monset_core_option_get(const lw_monset_core_config_t *cfg, size_t i);

#endif /* LW_CORE_CONFIG_H_ */
