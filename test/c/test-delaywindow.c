/* The window of nodejs.eventloop.*: the last 60–70 s, the same on every read (SPEC §14). */
#include "core/delaywindow.h"
#include "helpers.h"
#include "test.h"

TEST_IMPL(delay_window_reads_take_nothing) {
  lw_delay_window_t w;
  lw_delay_stats_t a, b;
  lw_delay_window_init(&w);
  lw_delay_window_lateness(&w, 1000, 5); /* before a reader asked: not counted */
  lw_delay_window_read(&w, 1000, &a);
  ASSERT_EQ(a.count, 0);
  ASSERT_TRUE(isnan(a.max));
  ASSERT_EQ(lw_delay_window_keep(&w), LW_OK);
  lw_delay_window_lateness(&w, 2000, 1);
  lw_delay_window_lateness(&w, 15000, 6000); /* a hang, in the second slice */
  lw_delay_window_lateness(&w, 25000, 3);
  lw_delay_window_loop_time(&w, 25000, 7000, 18000);
  /* Two readers at once, and one again later in the window: the same figures. */
  lw_delay_window_read(&w, 30000, &a);
  lw_delay_window_read(&w, 30000, &b);
  ASSERT_EQ(memcmp(&a, &b, sizeof(a)), 0);
  lw_delay_window_read(&w, 69999, &b);
  ASSERT_EQ(memcmp(&a, &b, sizeof(a)), 0);
  ASSERT_EQ(a.count, 3);
  ASSERT_DBL_EQ(a.min, 1);
  ASSERT_DBL_EQ(a.max, 6000);
  ASSERT_DBL_EQ(a.mean, 6004.0 / 3);
  ASSERT_TRUE(fabs(a.p99 - 6000) <= 6000.0 / 64);
  ASSERT_TRUE(fabs(a.p50 - 3) <= 3.0 / 64);
  ASSERT_DBL_EQ(a.active_ms, 7000);
  ASSERT_DBL_EQ(a.idle_ms, 18000);
  /* At 70 s the first slice [0, 10 s) has left the window; at 80 s the hang's [10, 20 s). */
  lw_delay_window_read(&w, 70000, &b);
  ASSERT_EQ(b.count, 2);
  ASSERT_DBL_EQ(b.max, 6000);
  lw_delay_window_read(&w, 80000, &b);
  ASSERT_EQ(b.count, 1);
  ASSERT_DBL_EQ(b.max, 3);
  lw_delay_window_read(&w, 90000, &b);
  ASSERT_EQ(b.count, 0);
  ASSERT_DBL_EQ(b.active_ms, 0);
  lw_delay_window_free(&w);
  return 0;
}

TEST_IMPL(delay_window_slots_reused) {
  lw_delay_window_t w;
  lw_delay_stats_t a;
  lw_delay_window_init(&w);
  /* No memory for the slices: LW_ENOMEM, and nothing counted, nothing crashed. */
  lw_alloc_fail_after(0);
  ASSERT_EQ(lw_delay_window_keep(&w), LW_ENOMEM);
  lw_alloc_fail_after(-1);
  lw_delay_window_lateness(&w, 5000, 100);
  lw_delay_window_read(&w, 5000, &a);
  ASSERT_EQ(a.count, 0);
  ASSERT_EQ(lw_delay_window_memory(&w), 0);
  ASSERT_EQ(lw_delay_window_keep(&w), LW_OK);
  lw_delay_window_lateness(&w, 5000, 100);
  /* 70 s later the same slot holds the new slice: the old value is gone, not added. */
  lw_delay_window_lateness(&w, 75000, 2);
  lw_delay_window_read(&w, 75000, &a);
  ASSERT_EQ(a.count, 1);
  ASSERT_DBL_EQ(a.max, 2);
  /* A value recorded late (held, then judged) counts in its own slice while that is in the
   * window, and not when its slot holds a newer slice. */
  lw_delay_window_lateness(&w, 69000, 7);
  lw_delay_window_lateness(&w, 4000, 9);
  lw_delay_window_read(&w, 75000, &a);
  ASSERT_EQ(a.count, 2);
  ASSERT_DBL_EQ(a.max, 7);
  /* Nonsense times count nowhere. */
  lw_delay_window_lateness(&w, NAN, 1e9);
  lw_delay_window_lateness(&w, -1, 1e9);
  lw_delay_window_lateness(&w, INFINITY, 1e9);
  lw_delay_window_lateness(&w, 1e300, 1e9);
  lw_delay_window_read(&w, 75000, &a);
  ASSERT_EQ(a.count, 2);
  lw_delay_window_free(&w);
  return 0;
}
