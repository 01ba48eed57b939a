/* Functions shared between the files of the conditions; not part of the core's interface. */
#ifndef LW_CORE_INTERNAL_H_
#define LW_CORE_INTERNAL_H_

#include "conditions.h"

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
