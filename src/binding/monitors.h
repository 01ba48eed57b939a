/* What the monitor set's binding files share (monitors.c, monitors-metrics.c, monitors-held.c,
 * monitors-statedir.c, monitors-stats.c): the only files of the binding that include the
 * driver's monitor set. */
#ifndef LW_BINDING_MONITORS_H_
#define LW_BINDING_MONITORS_H_

#include "../driver/monset.h"
#include "binding.h"

struct lwb_monset_s {
  lw_monset_t set;
  lwb_env_t *e;
  lwb_cond_t *cond;
  napi_ref self; /* the JS monitors object: strong while a monitor runs */
  unsigned self_strong;
  unsigned refs;       /* the external, and the open uv handles */
  int64_t reported;    /* bytes reported to V8 */
  lwb_monset_t *env_next; /* the environment's list, for its cleanup */
};

/* The set behind a JS handle, or NULL with an exception. */
lwb_monset_t *lwb_mon_get(napi_env env, napi_value v);
/* The call's `n` arguments into `argv`, and the set behind the first, or NULL with an exception. */
lwb_monset_t *lwb_mon_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv);
/* The memory the set holds, reported to V8 so that its garbage collector sees it. */
void lwb_mon_report_memory(lwb_monset_t *m, int64_t bytes);

int lwb_mon_metrics_init(napi_env env, napi_value exports);
int lwb_mon_statedir_init(napi_env env, napi_value exports);
int lwb_mon_held_init(napi_env env, napi_value exports);
int lwb_mon_stats_init(napi_env env, napi_value exports);

#endif /* LW_BINDING_MONITORS_H_ */
