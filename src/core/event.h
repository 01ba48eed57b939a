/* The events the conditions queue for the embedder (conditions.h), as values: their types, the
 * verdicts of held samples, the clock's jumps, and a hang's cause (SPEC §12). */
#ifndef LW_CORE_EVENT_H_
#define LW_CORE_EVENT_H_

#include "common.h"
#include "reasons.h"

typedef enum { LW_JUMP_SUSPEND = 0, LW_JUMP_STEP = 1, LW_JUMP_COUNT = 2 } lw_jump_t;

typedef enum {
  LW_VERDICT_RECORDED = 0,
  LW_VERDICT_DISCARDED = 1,
  LW_VERDICT_HELD = 2,
  LW_VERDICT_DISPOSED = 3
} lw_verdict_t;

typedef enum {
  LW_EVENT_RESOLVED = 1,  /* a held sample was decided: verdict RECORDED or DISCARDED */
  LW_EVENT_CANCELLED = 2, /* a held sample was cancelled by a dispose */
  LW_EVENT_STALL = 3,     /* an episode was reported */
  LW_EVENT_JUMP = 4,      /* clockDrift saw a jump: `jump`, `duration_ms` = its size */
  LW_EVENT_WORKER_HANG = 5, /* the worker's hang detector saw a hang end: start, detected_at, end */
  LW_EVENT_BLOCK = 6        /* a block was recorded (blocks.h): start, end, duration_ms */
} lw_event_type_t;

/* Why the main thread hung (SPEC §12): its time over the span, by state, in ms. */
typedef enum {
  LW_CAUSE_BUSY = 0, /* on a CPU, running the app's code */
  LW_CAUSE_GC,       /* V8's garbage collection */
  LW_CAUSE_BLOCKED,  /* off every CPU and not runnable: a syscall, sync I/O, Atomics.wait */
  LW_CAUSE_STARVED,  /* runnable, waiting for a CPU that others had */
  LW_CAUSE_THROTTLED, /* runnable, held back by its cgroup's CPU quota */
  LW_CAUSE_COUNT
} lw_cause_kind_t;

typedef struct lw_cause_s {
  int known;           /* 0: nothing was measured over the span (the event's cause is null) */
  double cpu_ms;       /* on a CPU, GC included */
  double runq_ms;      /* runnable but waiting, quota throttling excluded; NAN: unknown */
  double throttled_ms; /* runnable but held by the cgroup quota; NAN: unknown */
  double blocked_ms;   /* the rest: neither on a CPU nor waiting for one */
  double gc_ms;        /* V8 GC inside the span; NAN: unknown */
  double span_ms;      /* the time the readings covered, stops taken out */
  lw_cause_kind_t dominant;
} lw_cause_t;

const char *lw_cause_name(lw_cause_kind_t k);

/* The reach of a cause's parts: 31 years, a hang record's whole range. */
#define LW_CAUSE_MAX_MS 1e12
/* Whether a cause that comes from outside (a dead process's hang record) is one lagwatch reports:
 * unknown (known 0), or a known dominant kind with cpu_ms and span_ms in [0, LW_CAUSE_MAX_MS] and
 * every other part NAN (unknown) or in that range. */
int lw_cause_valid(const lw_cause_t *c);

typedef struct lw_event_s {
  lw_event_type_t type;
  double at; /* the due time the event belongs to */
  /* RESOLVED, CANCELLED */
  uint64_t token;
  uint32_t validator;
  lw_verdict_t verdict;
  uint32_t reason; /* RESOLVED + DISCARDED */
  double value;
  /* STALL */
  lw_kind_t kind;
  double duration_ms;
  double start;
  double end;
  uint32_t samples;
  uint32_t *monitors; /* name ids, owned by the event queue */
  size_t nmonitors;
  /* JUMP, WORKER_HANG */
  lw_jump_t jump;
  double detected_at;
  /* WORKER_HANG, and STALL of kind hang */
  lw_cause_t cause;
  /* STALL of kind hang: the detection time of the worker hang it overlaps (its stack's key),
   * NAN if none */
  double hang_detected_at;
  /* STALL of kind hang: 1 if the hang ended in the process's death (lw_conditions_report_fatal) */
  int fatal;
  /* STALL of kind hang: 1 if it is a block too (the monitors' blocks on, loopBlock's sample in it) */
  int is_block;
  /* BLOCK: 1 if reported one by one (within the budget); the blocks recorded and not reported
   * since the last one that was; 1 if the block is long enough to be a hang episode too */
  int reported;
  uint64_t unreported;
  int is_hang;
} lw_event_t;

#endif /* LW_CORE_EVENT_H_ */
