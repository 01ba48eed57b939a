/* The worker thread's messages received on the main thread: the stops it saw (evidence, in the
 * tracker before any of the messages' samples is judged, SPEC §4), its heartbeats' lateness (the
 * `worker` monitor's samples), the hangs and blocks it watched. */
#include "monitors-internal.h"

#include <math.h>

/* The end of a stop the worker saw. The worker notices a stop only when it runs again, a little
 * after the process resumed; the main thread resumed at the same moment and may already have
 * started new work. The process cannot have been stopped at a moment the main thread ran, so
 * the stop ends at the main thread's first run after it, if that came before the worker's: the
 * app's own work right after the stop is then judged on its own. */
static double stop_end(const lw_monset_core_t *m, const lw_msg_t *msg) {
  double end = msg->ev_end;
  unsigned i;
  /* A continue's evidence ends exactly; it may begin before the main thread's last runs before
   * the stop (at the worker's last run), which must not cut it short. */
  if (msg->ev_exact) return end;
  for (i = 0; i < 8; i++)
    if (m->seen.resumed[i] > msg->ev_start && m->seen.resumed[i] < end) end = m->seen.resumed[i];
  return end;
}

/* The end of a hang or a block the worker watched: where the main thread resumed, if it did
 * between the worker's flag and the end the worker saw (which comes a check later). */
static double watched_end(const lw_monset_core_t *m, const lw_msg_t *msg) {
  double r = m->seen.resumed_at;
  return r >= msg->detected_at && r <= msg->hang_end ? r : msg->hang_end;
}

/* One message, after the evidence of every message received with it is in the tracker. */
static void receive_one(lw_monset_core_t *m, const lw_msg_t *msg, double now) {
  switch (msg->type) {
    case LW_MSG_HEARTBEAT:
      lw__mon_heartbeat_received(m, msg, now);
      break;
    case LW_MSG_HANG_START:
      lw__mon_hang_started(m);
      break;
    case LW_MSG_HANG_END:
      lw__mon_hang_ended(m, msg, watched_end(m, msg), now);
      break;
    case LW_MSG_BLOCK_START:
      m->blocks.watched++;
      break;
    case LW_MSG_BLOCK_END:
      lw_blocks_watch_ended(&m->blocks, m->c, msg, watched_end(m, msg));
      break;
    case LW_MSG_EVIDENCE:
      break;
    case LW_MSG_PING:
      break;
  }
}

void lw_monset_core_receive(lw_monset_core_t *m, const lw_msg_t *msgs, size_t n, double now) {
  size_t i;
  if (n == 0) return;
  lw__mon_activity(m, now);
  /* Evidence first (SPEC §4): every interval these messages carry is in the tracker before any
   * sample, the heartbeats' own included, is judged. */
  for (i = 0; i < n; i++)
    if ((msgs[i].type == LW_MSG_HEARTBEAT || msgs[i].type == LW_MSG_EVIDENCE) &&
        msgs[i].ev_reason != LW_REASON_NONE)
      lw__mon_evidence_add(m, msgs[i].ev_start, stop_end(m, &msgs[i]), msgs[i].ev_reason, now);
  for (i = 0; i < n; i++) receive_one(m, &msgs[i], now);
}
