/* The tables of options (config.h): every option's default is in its range, a value out of its
 * range is refused with the range's text and changes nothing, and the conditions' check, the
 * monitors' and a validator's threshold name the same ranges. */
#include <math.h>
#include <string.h>

#include "core/config.h"
#include "core/monitors.h"
#include "test.h"

/* 1 if `name` is "<a monitor's name>.<key>". */
static int named_under_monitor(const char *name) {
  int m;
  for (m = 0; m < LW_MON_COUNT; m++) {
    size_t n = strlen(lw_mon_name((lw_mon_t)m));
    if (strncmp(name, lw_mon_name((lw_mon_t)m), n) == 0 && name[n] == '.') return 1;
  }
  return 0;
}

/* Values of every kind's edges, in and out of range. */
static const double probes[] = {-INFINITY, -1, 0, 0.5, 1, 1.5, 8, 9, 49.9, 50, 100000, 100001, INFINITY, NAN};

TEST_IMPL(config_tables_defaults) {
  lw_conditions_config_t cc;
  lw_monset_core_config_t mc;
  const void *cfgs[LW_OPTIONS_COUNT];
  const char *range;
  int t, u;
  size_t i, j;
  lw_conditions_config_default(&cc);
  lw_monset_core_config_default(&mc, NULL);
  cfgs[LW_OPTIONS_CONDITIONS] = &cc;
  cfgs[LW_OPTIONS_MONITORS] = &mc;
  ASSERT_TRUE(lw_conditions_config_valid(&cc));
  ASSERT_TRUE(lw_monset_core_config_valid(&mc));
  for (t = 0; t < LW_OPTIONS_COUNT; t++) {
    ASSERT_GT(lw_option_count((lw_options_t)t), 0);
    for (i = 0; i < lw_option_count((lw_options_t)t); i++) {
      double d = lw_option_default((lw_options_t)t, i);
      ASSERT_TRUE(lw_option_ok(lw_option_kind((lw_options_t)t, i), d, &range));
      /* A default config holds each default. */
      ASSERT_DBL_EQ(lw_option_get((lw_options_t)t, cfgs[t], i), d);
      ASSERT(lw_option_kind_name(lw_option_kind((lw_options_t)t, i)) != NULL);
      /* A monitor's option, and only one, is named under the monitor (the binding names it
       * options.monitors.<name> in its errors). */
      ASSERT_EQ(lw_option_of_monitor((lw_options_t)t, i),
                t == LW_OPTIONS_MONITORS && named_under_monitor(lw_option_name((lw_options_t)t, i)));
      /* Each public name once, across both tables. */
      for (u = 0; u < LW_OPTIONS_COUNT; u++)
        for (j = 0; j < lw_option_count((lw_options_t)u); j++)
          if (u != t || j != i) ASSERT(strcmp(lw_option_name((lw_options_t)t, i), lw_option_name((lw_options_t)u, j)) != 0);
    }
    /* Past the last option: nothing. */
    ASSERT_NULL(lw_option_name((lw_options_t)t, lw_option_count((lw_options_t)t)));
    ASSERT_TRUE(isnan(lw_option_default((lw_options_t)t, lw_option_count((lw_options_t)t))));
  }
  ASSERT_EQ(lw_option_count(LW_OPTIONS_COUNT), 0);
  ASSERT_EQ(lw_option_of_monitor(LW_OPTIONS_MONITORS, lw_option_count(LW_OPTIONS_MONITORS)), 0);
  return 0;
}

TEST_IMPL(config_set_in_range_only) {
  int t;
  size_t i, p;
  for (t = 0; t < LW_OPTIONS_COUNT; t++) {
    for (i = 0; i < lw_option_count((lw_options_t)t); i++) {
      lw_option_kind_t kind = lw_option_kind((lw_options_t)t, i);
      for (p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
        lw_conditions_config_t cc;
        lw_monset_core_config_t mc;
        void *cfg = t == LW_OPTIONS_CONDITIONS ? (void *)&cc : (void *)&mc;
        const char *range = NULL, *expected = NULL;
        int ok = lw_option_ok(kind, probes[p], &expected);
        double before;
        lw_conditions_config_default(&cc);
        lw_monset_core_config_default(&mc, NULL);
        before = lw_option_get((lw_options_t)t, cfg, i);
        if (ok) {
          ASSERT_EQ(lw_option_set((lw_options_t)t, cfg, i, probes[p], &range), LW_OK);
          ASSERT_DBL_EQ(lw_option_get((lw_options_t)t, cfg, i), probes[p]);
        } else {
          ASSERT_EQ(lw_option_set((lw_options_t)t, cfg, i, probes[p], &range), LW_EINVAL);
          ASSERT_STR_EQ(range, expected);
          if (isnan(before)) ASSERT_TRUE(isnan(lw_option_get((lw_options_t)t, cfg, i)));
          else ASSERT_DBL_EQ(lw_option_get((lw_options_t)t, cfg, i), before);
        }
      }
    }
    ASSERT_EQ(lw_option_set((lw_options_t)t, NULL, lw_option_count((lw_options_t)t), 1, NULL), LW_ENOENT);
  }
  return 0;
}

/* The conditions' check and a validator's threshold refuse with the table's names and ranges. */
TEST_IMPL(config_checks_name_the_table) {
  lw_conditions_config_t cc;
  lw_conditions_t c;
  lw_err_t err;
  const char *threshold_range, *nonneg_range;
  uint32_t id;
  lw_option_ok(LW_OPTION_THRESHOLD, 0, &threshold_range);
  lw_option_ok(LW_OPTION_NONNEG, 0, &nonneg_range);
  lw_conditions_config_default(&cc);
  cc.retention_ms = -1;
  ASSERT_EQ(lw_conditions_config_check(&cc, &err), LW_EINVAL);
  ASSERT_STR_EQ(err.field, "retentionMs");
  ASSERT_STR_EQ(err.range, nonneg_range);
  ASSERT_EQ(lw_conditions_init(&c, &cc), LW_EINVAL);
  lw_conditions_config_default(&cc);
  cc.stall_threshold_ms = NAN;
  ASSERT_EQ(lw_conditions_config_check(&cc, &err), LW_EINVAL);
  ASSERT_STR_EQ(err.field, "stallThresholdMs");
  ASSERT_STR_EQ(err.range, threshold_range);
  cc.stall_threshold_ms = INFINITY;
  ASSERT_EQ(lw_conditions_config_check(&cc, &err), LW_OK);
  lw_conditions_config_default(&cc);
  ASSERT_EQ(lw_conditions_init(&c, &cc), LW_OK);
  ASSERT_EQ(lw_validator_create(&c, "v", 1, 0, &id, &err), LW_EINVAL);
  ASSERT_STR_EQ(err.field, "stallThresholdMs");
  ASSERT_STR_EQ(err.range, threshold_range);
  ASSERT_EQ(lw_validator_create(&c, "v", 1, INFINITY, &id, &err), LW_OK);
  lw_conditions_free(&c);
  return 0;
}
