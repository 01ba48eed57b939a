/* The libuv driver: real time. One unref'd uv timer per JS thread, armed at the earliest due
 * time of its clients; the clock is uv_hrtime() on the origin of that thread's
 * performance.now(). The timer is touched on its own loop only. */
#ifndef LW_DRIVER_UVTIMER_H_
#define LW_DRIVER_UVTIMER_H_

#include <uv.h>

#include "sched.h"

typedef struct lw_uv_s lw_uv_t;
typedef void (*lw_uv_hook_cb)(lw_uv_t *d, int enter);
typedef void (*lw_uv_close_cb)(lw_uv_t *d);

struct lw_uv_s {
  uv_timer_t timer;
  lw_sched_t sched;
  uint64_t origin_ns;   /* uv_hrtime() at performance.now() == 0 */
  double armed_due;     /* due time the timer is armed for, LW_NEVER if stopped */
  lw_uv_hook_cb hook;   /* called around the runs of one timer callback */
  lw_uv_close_cb close_cb;
  void *data;
  unsigned turn; /* counts timer callbacks: each client runs at most once per callback */
  int closing;
};

int lw_uv_init(lw_uv_t *d, uv_loop_t *loop, uint64_t origin_ns);
double lw_uv_now(const lw_uv_t *d);
/* Re-arms the timer at the earliest due time of the clients; call after anything that may have
 * moved it earlier. */
void lw_uv_rearm(lw_uv_t *d);
/* Stops and closes the timer; `cb` runs from the close callback. */
void lw_uv_close(lw_uv_t *d, lw_uv_close_cb cb);

#endif /* LW_DRIVER_UVTIMER_H_ */
