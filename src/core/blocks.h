/* Blocks: every loop iteration that kept the main thread from its loop for the block
 * threshold or more (loopBlock's measure of it), judged by a validator of its own, "block", whose
 * threshold is the block threshold: each is held until late evidence could have come (SPEC §4:
 * evidence first; a stop, a suspend, a debugger, a hidden or throttled app explain it, and it is
 * then counted as discarded with that reason, never reported as the app's), and makes no episode
 * (loopBlock's sample of the same iteration does, when it is a stall).
 *
 * The rules: a recorded block value is a block (the own part where SPEC §5's rule applies); a
 * discarded one is a discarded block, counted by reason. Reports one by one are
 * at most `max_per_min` per minute: a minute starts at the first report after the previous
 * minute ended, and a block judged while that minute's reports are used up is counted as
 * unreported, its number carried by the next report. A block as long as the stall threshold is
 * a hang episode too (its loopBlock sample is that episode's). Main thread only. */
#ifndef LW_CORE_BLOCKS_H_
#define LW_CORE_BLOCKS_H_

#include "cause.h"
#include "conditions.h"
#include "config.h"

#define LW_BLOCK_MINUTE_MS 60000.0

typedef struct lw_blocks_s {
  const lw_monset_core_config_t *cfg;
  uint64_t count;      /* recorded */
  uint64_t reported;   /* reported one by one */
  uint64_t unreported; /* over the budget, in all */
  uint64_t pending;    /* over the budget since the last report */
  uint64_t discarded;  /* explained by evidence, in all */
  uint64_t *discarded_by_reason; /* by reason id; entries past the end are 0 */
  size_t discarded_cap;
  double minute_start; /* the budget's current minute (-INFINITY: none yet) */
  uint32_t minute_reports;
  /* blocks.stacks: the worker flagged `watched` blocks while they ran; the causes of the last
   * LW_BLOCK_CAUSES that ended, from which each judged block takes the one it overlaps most
   * (with the detection time that names its stack). */
  uint64_t watched;
  lw_causes_t causes;
} lw_blocks_t;

void lw_blocks_init(lw_blocks_t *b, const lw_monset_core_config_t *cfg,
                    double (*gc_ms)(void *data, double start, double end), void *data);
/* A watched block ended at `end` (its BLOCK_END message): its cause is kept for its judgment. */
void lw_blocks_watch_ended(lw_blocks_t *b, lw_conditions_t *c, const lw_msg_t *msg, double end);
void lw_blocks_free(lw_blocks_t *b);
/* The block validator's value over [end - window_ms, end] was judged at `now`: recorded (`discarded_for`
 * LW_REASON_NONE) or discarded for that reason. Pushes the BLOCK event of a recorded block (out of
 * memory: `c->lost`). Nothing when blocks are off or the value is under the threshold. */
void lw_blocks_judged(lw_blocks_t *b, lw_conditions_t *c, double value, double window_ms,
                      double end, uint32_t discarded_for, double now);
/* Blocks discarded for reason id `reason` (0 past the last one seen). */
uint64_t lw_blocks_discarded_for(const lw_blocks_t *b, uint32_t reason);
/* Bytes held. */
size_t lw_blocks_memory(const lw_blocks_t *b);

#endif /* LW_CORE_BLOCKS_H_ */
