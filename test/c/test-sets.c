/* The registry of sets (src/driver/sets.c) and its two users' parts: the stacks kept per set
 * (stacks.c) and a debugger's pauses (debugger.c), with real clocks (uv_hrtime): what is kept,
 * what is skipped, and that nothing is dropped when the pause list is full or the watcher goes.
 * ASan's leak check holds the removal to freeing all an entry holds. */
#include "driver/debugger.h"
#include "driver/sets.h"
#include "driver/stacks.h"
#include "core/common.h"
#include "test.h"

#include <math.h>
#include <string.h>
#include <uv.h>

static int woken;
static double woken_at;
static int woken_block;
static void wake(void *data, double detected_at, int block) {
  woken += *(int *)data;
  woken_at = detected_at;
  woken_block = block;
}

TEST_IMPL(sets_stacks_per_set) {
  uint64_t a = lw_sets_add(uv_hrtime()), b = lw_sets_add(uv_hrtime());
  int one = 1, i;
  double taken = -1;
  char *got;
  ASSERT(a != 0 && b != 0 && a != b);
  ASSERT_EQ(lw_stacks_attach(a, wake, &one), 0);
  ASSERT_EQ(lw_stacks_attach(a, wake, &one), -1); /* one stack thread per set */
  lw_stacks_wake(b, 5000, 0);                     /* no stack thread: nothing */
  ASSERT_EQ(woken, 0);
  lw_stacks_wake(a, 4100, 1);                     /* a block's: said so */
  ASSERT_EQ(woken, 1);
  ASSERT_DBL_EQ(woken_at, 4100);
  ASSERT_EQ(woken_block, 1);
  lw_stacks_wake(a, 5000, 0);
  ASSERT_EQ(woken, 2);
  ASSERT_DBL_EQ(woken_at, 5000);
  ASSERT_EQ(woken_block, 0);
  /* Kept by detection time, per set; the oldest of more than LW_STACKS_KEPT replaced. */
  for (i = 0; i <= LW_STACKS_KEPT; i++) {
    char json[16];
    snprintf(json, sizeof(json), "[%d]", i);
    ASSERT_EQ(lw_stacks_put(a, 1000.0 * i, json, strlen(json)), LW_OK);
  }
  ASSERT(lw_stacks_get(a, 0, &taken) == NULL);
  ASSERT(lw_stacks_get(b, 1000, &taken) == NULL);
  got = lw_stacks_get(a, 1000.0 * LW_STACKS_KEPT, &taken);
  ASSERT(got != NULL);
  ASSERT_STR_EQ(got, "[4]");
  ASSERT(taken >= 0);
  lw__free(got);
  lw_stacks_detach(a, &one);
  lw_stacks_wake(a, 6000, 0);
  ASSERT_EQ(woken, 2);
  lw_sets_remove(a);
  /* Gone: every call a no-op. */
  ASSERT_EQ(lw_stacks_put(a, 1, "[]", 2), LW_ENOENT);
  ASSERT(lw_stacks_get(a, 4000, &taken) == NULL);
  ASSERT_EQ(lw_stacks_attach(a, wake, &one), -1);
  lw_sets_remove(b);
  lw_sets_remove(0);
  return 0;
}

TEST_IMPL(sets_debugger_pauses) {
  uint64_t id = lw_sets_add(uv_hrtime()), other = lw_sets_add(uv_hrtime());
  double ended[LW_DEBUGGER_KEPT][2], since;
  uint64_t changes = lw_debugger_changes();
  size_t n, i;
  ASSERT(isnan(lw_debugger_held(id)));
  lw_debugger_paused(id);
  ASSERT(!isnan(lw_debugger_held(id)));
  ASSERT(isnan(lw_debugger_held(other)));
  ASSERT(lw_debugger_changes() != changes);
  n = lw_debugger_take(id, ended, LW_DEBUGGER_KEPT, &since);
  ASSERT_EQ(n, 0);
  ASSERT(!isnan(since)); /* in progress */
  lw_debugger_resumed(id);
  n = lw_debugger_take(id, ended, LW_DEBUGGER_KEPT, &since);
  ASSERT_EQ(n, 1);
  ASSERT(isnan(since));
  ASSERT(ended[0][1] >= ended[0][0]);
  lw_debugger_watch(id, 1);
  /* More pauses than are kept: the last kept covers the rest, none dropped. */
  for (i = 0; i < LW_DEBUGGER_KEPT + 3; i++) {
    lw_debugger_paused(id);
    lw_debugger_resumed(id);
  }
  /* The watcher goes while a pause is in progress, the list full: that pause ends and joins the
   * last kept (it was once dropped there). */
  lw_debugger_paused(id);
  uv_sleep(5);
  lw_debugger_watch(id, 0);
  ASSERT(isnan(lw_debugger_held(id)));
  n = lw_debugger_take(id, ended, LW_DEBUGGER_KEPT, &since);
  ASSERT_EQ(n, LW_DEBUGGER_KEPT);
  ASSERT(ended[n - 1][1] - ended[n - 1][0] >= 5);
  ASSERT(isnan(since));
  for (i = 1; i < n; i++) ASSERT(ended[i][0] >= ended[i - 1][1]);
  lw_sets_remove(id);
  lw_debugger_paused(id); /* gone: no-op */
  ASSERT(isnan(lw_debugger_held(id)));
  ASSERT_EQ(lw_debugger_take(id, ended, LW_DEBUGGER_KEPT, &since), 0);
  lw_sets_remove(other);
  return 0;
}
