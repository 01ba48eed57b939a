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
  lw_event_t *ev;
  lw_hang_cause_t *h, spare;
  double end;
  switch (msg->type) {
    case LW_MSG_HEARTBEAT:
      lw_histogram_record(&m->self_lag_hist, msg->self_lag);
      if (m->aggs != NULL) lw_agg_record(&m->aggs->self_lag, msg->self_lag);
      if (m->keep_batches) lw__mon_batch_push(m, &m->self_lag_batch, msg->self_lag);
      m->self_lag_last = msg->self_lag;
      m->self_lag_count++;
      /* Its lateness (SPEC §6): how long it waited for the main thread, which answered it now, or
       * at once if it came while the loop waited in its poll, however long the loop slept on. */
      if (m->running[LW_MON_WORKER]) {
        double answered = msg->quiet ? msg->sent_at : now;
        lw__mon_submit(m, LW_MON_WORKER, answered - msg->sent_at, answered - msg->sent_at, answered);
      }
      break;
    case LW_MSG_HANG_START:
      m->worker_hangs++;
      break;
    case LW_MSG_HANG_END:
      end = watched_end(m, msg);
      /* Its time: from where the loop last made progress, less the stops inside it. */
      lw_histogram_record(&m->hang_hist, end - msg->hang_start - msg->hang_stopped);
      if ((h = lw_causes_next(&m->causes)) == NULL) {
        /* The worker hang keeps its cause; the episode will not find it (counted as lost). */
        m->c->lost++;
        h = &spare;
      }
      lw_hang_cause_from_msg(h, msg, end);
      ev = lw__event_push(m->c, LW_EVENT_WORKER_HANG, now);
      if (ev) {
        ev->start = msg->hang_start;
        ev->end = end;
        ev->detected_at = msg->detected_at;
        ev->duration_ms = end - msg->hang_start - msg->hang_stopped;
        lw_cause_compute(&m->causes, h, &ev->cause);
        h->gc_seen = ev->cause.gc_ms;
      }
      break;
    case LW_MSG_BLOCK_START:
      m->blocks.watched++;
      break;
    case LW_MSG_BLOCK_END:
      end = watched_end(m, msg);
      lw_blocks_watch_ended(&m->blocks, m->c, msg, end);
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
