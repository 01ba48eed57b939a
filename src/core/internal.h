/* Functions shared between the files of the conditions; not part of the core's interface. */
#ifndef LW_CORE_INTERNAL_H_
#define LW_CORE_INTERNAL_H_

#include "conditions.h"

typedef struct lw__held_s {
  double due;
  double window_start;
  double window_end;
  double value;
  uint64_t token; /* 0 once cancelled */
  uint32_t validator;
} lw__held_t;

typedef struct lw__episode_s {
  double window_start;
  double window_end;
  double due;         /* report time: first stall sample + episode_delay_ms */
  double reported_at; /* +INFINITY while pending */
  double duration_ms;
  lw_kind_t kind;
  uint32_t samples;
  uint32_t *monitors;
  size_t nmonitors;
  size_t monitors_cap;
} lw__episode_t;

/* Appends an event; NULL if memory ran out (the event is counted in `lost`). */
lw_event_t *lw__event_push(lw_conditions_t *c, lw_event_type_t type, double at);

double lw__held_next_due(const lw_conditions_t *c);
/* Resolves the first held sample by step 4, at `at` (its due time, or earlier when stopping). */
void lw__held_resolve_one(lw_conditions_t *c, double at);

double lw__episodes_next_due(const lw_conditions_t *c);
void lw__episodes_report_one(lw_conditions_t *c);
void lw__episodes_report_all(lw_conditions_t *c, double now);
void lw__episodes_expire(lw_conditions_t *c, double now);

#endif /* LW_CORE_INTERNAL_H_ */
