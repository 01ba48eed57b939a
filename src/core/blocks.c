/* Blocks: see blocks.h. */
#include "blocks.h"
#include "internal.h"

#include <math.h>
#include <string.h>

void lw_blocks_init(lw_blocks_t *b, const lw_monset_core_config_t *cfg,
                    double (*gc_ms)(void *data, double start, double end), void *data) {
  memset(b, 0, sizeof(*b));
  b->cfg = cfg;
  b->minute_start = -INFINITY;
  lw_causes_init(&b->causes, LW_BLOCK_CAUSES, gc_ms, data);
}

void lw_blocks_watch_ended(lw_blocks_t *b, lw_conditions_t *c, const lw_msg_t *msg, double end) {
  lw_hang_cause_t *h = lw_causes_next(&b->causes);
  if (h == NULL) {
    c->lost++; /* the block will be judged without its cause (null) and its stack */
    return;
  }
  lw_hang_cause_from_msg(h, msg, end);
}

void lw_blocks_free(lw_blocks_t *b) {
  lw_causes_free(&b->causes);
  lw__free(b->discarded_by_reason);
  b->discarded_by_reason = NULL;
  b->discarded_cap = 0;
}

uint64_t lw_blocks_discarded_for(const lw_blocks_t *b, uint32_t reason) {
  return reason < b->discarded_cap ? b->discarded_by_reason[reason] : 0;
}

size_t lw_blocks_memory(const lw_blocks_t *b) {
  return b->discarded_cap * sizeof(uint64_t) + lw_causes_memory(&b->causes);
}

/* Whether a block judged at `now` may be reported one by one (and counts it if so). */
static int budget_take(lw_blocks_t *b, double now) {
  if (now - b->minute_start >= LW_BLOCK_MINUTE_MS) {
    b->minute_start = now;
    b->minute_reports = 0;
  }
  if (b->minute_reports >= (uint32_t)b->cfg->block_reports_per_min) return 0;
  b->minute_reports++;
  return 1;
}

void lw_blocks_judged(lw_blocks_t *b, lw_conditions_t *c, double value, double window_ms,
                      double end, uint32_t discarded_for, double now) {
  lw_event_t *ev;
  int report;
  if (!b->cfg->blocks || !(value >= b->cfg->block_threshold_ms)) return;
  if (discarded_for != LW_REASON_NONE) {
    size_t old = b->discarded_cap;
    b->discarded++;
    if (lw__grow((void **)&b->discarded_by_reason, &b->discarded_cap, (size_t)discarded_for + 1,
                 sizeof(*b->discarded_by_reason)) != LW_OK) {
      c->lost++;
      return;
    }
    memset(b->discarded_by_reason + old, 0, (b->discarded_cap - old) * sizeof(uint64_t));
    b->discarded_by_reason[discarded_for]++;
    return;
  }
  b->count++;
  ev = lw__event_push(c, LW_EVENT_BLOCK, now);
  if (ev == NULL) {
    /* Counted, and not reported (the event's loss is counted in `c->lost`). */
    b->unreported++;
    b->pending++;
    return;
  }
  report = budget_take(b, now);
  ev->start = end - window_ms;
  ev->end = end;
  ev->duration_ms = value;
  /* Its cause and detection, if the worker watched it (blocks.stacks); else none (NAN). */
  ev->hang_detected_at = NAN;
  lw_causes_for_episode(&b->causes, ev);
  ev->is_hang = value >= b->cfg->stall_threshold_ms;
  ev->reported = report;
  if (report) {
    b->reported++;
    ev->unreported = b->pending;
    b->pending = 0;
  } else {
    b->unreported++;
    b->pending++;
    ev->unreported = b->pending;
  }
}
