/* The ring of GC pauses (src/core/spans.c): overlaps, its bound, and no memory. */
#include "core/spans.h"
#include "test.h"

#include <string.h>

TEST_IMPL(spans_overlap_and_out_of_memory) {
  lw_spans_t s;
  unsigned i;
  memset(&s, 0, sizeof(s));
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 100), 0);
  ASSERT_EQ(lw_spans_add(&s, 10, 20), LW_OK);
  ASSERT_EQ(lw_spans_add(&s, 90, 130), LW_OK);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 100), 20);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 20, 90), 0); /* touching spans add nothing */
  /* The ring keeps the last LW_SPANS_MAX: the first ones fall out. */
  for (i = 0; i < LW_SPANS_MAX; i++) ASSERT_EQ(lw_spans_add(&s, 1000 + i, 1000.5 + i), LW_OK);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 200), 0);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 1001 + LW_SPANS_MAX), LW_SPANS_MAX * 0.5);
  lw_spans_free(&s);
  /* No memory for the ring: the span is lost, and every overlap is unknown from then on. */
  lw_alloc_fail_after(0);
  ASSERT_EQ(lw_spans_add(&s, 10, 20), LW_ENOMEM);
  lw_alloc_fail_after(-1);
  ASSERT_NAN(lw_spans_overlap(&s, 0, 100));
  lw_spans_free(&s);
  return 0;
}
