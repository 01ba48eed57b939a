/* names.c's helper for the monitor-set file. */
#ifndef LW_BINDING_NAMES_H_
#define LW_BINDING_NAMES_H_

#include "../core/monitors.h"
#include "binding.h"

/* A monitor's name argument (`name`): 0 with `*mon`, or -1 with a TypeError / RangeError. */
int lwb_arg_mon_name(napi_env env, napi_value v, lw_mon_t *mon);

#endif /* LW_BINDING_NAMES_H_ */
