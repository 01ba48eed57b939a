/* The worker thread's rules: see worker.h for who calls what. */
#include "worker.h"

#include <math.h>
#include <string.h>

void lw_worker_init(lw_worker_t *w, const lw_monset_core_config_t *cfg, const lw_worker_readings_t *rd) {
  memset(w, 0, sizeof(*w));
  w->cfg = cfg;
  w->rd = *rd;
}

void lw_worker_start(lw_worker_t *w, int heartbeat, double now) {
  if (!lw_worker_on(w)) {
    w->prev_fire = now;
    w->ran_until = -INFINITY;
    w->has_sleep_diff = lw_sleep_diff(w->rd.sleep_pair, w->rd.data, w->cfg->sleep_clock, &w->prev_sleep_diff);
    w->last_progress_seen = -INFINITY;
    w->last_progress_at = now;
    w->stopped_since = 0;
    w->has_avail = 0;
    w->ping_sent = 0;
    w->hang.active = 0;
    w->block.active = 0;
  }
  if (heartbeat) {
    w->heartbeat_on = 1;
    w->heartbeat_due = now + w->cfg->worker_interval_ms;
  } else {
    w->liveness_on = 1;
    w->liveness_due = now + w->cfg->liveness_interval_ms;
  }
}

void lw_worker_stop(lw_worker_t *w, int heartbeat) {
  if (heartbeat)
    w->heartbeat_on = 0;
  else
    w->liveness_on = 0;
}

int lw_worker_on(const lw_worker_t *w) { return w->heartbeat_on || w->liveness_on; }


double lw_worker_next_due(const lw_worker_t *w) {
  double due = LW_NEVER;
  if (w->heartbeat_on) due = w->heartbeat_due;
  if (w->liveness_on && w->liveness_due < due) due = w->liveness_due;
  return due;
}

/* The main thread's times at `now`, if they can be read. */
static int main_sched(const lw_worker_readings_t *rd, lw_thread_times_t *out) {
  return rd->main_sched != NULL && rd->main_sched(rd->data, out) == 0;
}

/* Reads the cause's baseline at `now`, at a rest (`at_rest`: the main loop waits) or at a check
 * without progress; a baseline already held stays if the reading fails. */
static void cause_base_read(lw_worker_t *w, const lw_worker_readings_t *rd, double now, int at_rest) {
  lw_thread_times_t base;
  if (!main_sched(rd, &base)) return;
  w->cause.base = base;
  w->cause.has_base = 1;
  w->cause.base_at = now;
  w->cause.stopped = 0;
  w->cause.at_rest = at_rest;
  w->cause.avail = now;
  w->cause.busy = rd->main_busy != NULL ? rd->main_busy(rd->data) : NAN;
}

/* A baseline read at a rest stays while the loop has since only waited, or run short iterations
 * between waits (less than LW_REST_BUSY_MS in all: a write's completion, a timer): the span then
 * starts where the loop last waited, `avail_at`, less the time it ran since the baseline, whose
 * CPU the times include. A stop seen so far came before (a poll's wait lasted through it) and is
 * no part of the span. Without a reading of the loop's busy time, iterations (`progressed`)
 * cannot be bounded: the baseline is read again at the next check without progress. */
static int rest_base_holds(lw_worker_t *w, const lw_worker_readings_t *rd, int progressed,
                           double avail_at) {
  double busy = 0;
  if (!w->cause.has_base || !w->cause.at_rest || w->hang.active) return 0;
  if (progressed) {
    busy = rd->main_busy != NULL ? rd->main_busy(rd->data) - w->cause.busy : NAN;
    if (!(busy < LW_REST_BUSY_MS)) return 0;
    if (busy < 0) busy = 0;
  }
  w->cause.avail = avail_at - busy;
  w->cause.stopped = 0;
  return 1;
}

/* The hang (or block: `type` BLOCK_END) flagged at `detected` that began at `start`, `stopped` ms
 * of it stops, as if it ended at `progress`, its readings taken now. */
static void stall_fill(const lw_worker_t *w, lw_msg_type_t type, double start, double stopped,
                       double detected, double now, double progress, const lw_worker_readings_t *rd,
                       lw_msg_t *o) {
  lw_thread_times_t end;
  memset(o, 0, sizeof(*o));
  o->type = type;
  o->hang_start = start;
  o->hang_stopped = stopped;
  o->detected_at = detected;
  o->hang_end = progress > start ? progress : now;
  if (w->cause.has_base && main_sched(rd, &end)) {
    o->cause_known = 1;
    o->cause_delta.cpu_ms = end.cpu_ms - w->cause.base.cpu_ms;
    o->cause_delta.runq_ms = end.runq_ms - w->cause.base.runq_ms;
    o->cause_delta.throttled_ms = end.throttled_ms - w->cause.base.throttled_ms;
    o->cause_start = w->cause.at_rest && w->cause.avail > w->cause.base_at ? w->cause.avail
                                                                          : w->cause.base_at;
    o->cause_end = now;
    o->cause_stopped = w->cause.stopped;
  }
}

/* The hang in progress ended: the main thread showed progress at `progress`. */
static void hang_end(lw_worker_t *w, double now, double progress, const lw_worker_readings_t *rd,
                     lw_msg_t *o) {
  stall_fill(w, LW_MSG_HANG_END, w->hang.start, w->hang.stopped, w->hang.detected, now, progress, rd,
             o);
  w->hang.active = 0;
}

/* A hang's (or a watched block's) start, flagged at `now`. */
static void stall_start(lw_msg_t *o, lw_msg_type_t type, double start, double now) {
  memset(o, 0, sizeof(*o));
  o->type = type;
  o->hang_start = start;
  o->detected_at = now;
}

/* The block being watched ended at `progress` (before the cause's baseline is dropped). */
static size_t block_end(lw_worker_t *w, double now, double progress, const lw_worker_readings_t *rd,
                        lw_msg_t *o) {
  if (!w->block.active) return 0;
  stall_fill(w, LW_MSG_BLOCK_END, w->block.start, 0, w->block.detected, now, progress, rd, o);
  w->block.active = 0;
  return 1;
}

int lw_worker_hang_active(const lw_worker_t *w) { return w->hang.active; }

/* The main loop showed progress (a stamp, or the end of a wait) at `at`. The hang clock moves to
 * it if it is later; otherwise, if `at` is after the loop's last progress known so far, the loop
 * progressed there and the stop time that moved the clock came after it. */
static void progress_seen(lw_worker_t *w, double at) {
  if (at > w->last_progress_at) {
    w->last_progress_at = at;
    w->stopped_since = 0;
  } else if (at > w->last_progress_at - w->stopped_since) {
    w->stopped_since = w->last_progress_at - at;
  }
}

int lw_worker_hang_peek(const lw_worker_t *w, double now, lw_msg_t *out) {
  if (!w->hang.active) return 0;
  stall_fill(w, LW_MSG_HANG_END, w->hang.start, w->hang.stopped, w->hang.detected, now, now, &w->rd,
             out);
  return 1;
}

size_t lw_worker_finish(lw_worker_t *w, double now, lw_msg_t *out) {
  size_t n = block_end(w, now, now, &w->rd, out);
  if (w->hang.active) hang_end(w, now, now, &w->rd, &out[n++]);
  w->cause.has_base = 0;
  return n;
}

void lw_worker_ran_until(lw_worker_t *w, double t) { w->ran_until = t; }

size_t lw_worker_run(lw_worker_t *w, double now, double progress, lw_msg_t *out) {
  const lw_monset_core_config_t *cfg = w->cfg;
  const lw_worker_readings_t *rd = &w->rd;
  double due = lw_worker_next_due(w);
  double self_lag = now - due, late, slept = 0, gap, ev_gap, since = now - w->prev_fire;
  double threshold = cfg->stall_threshold_ms;
  size_t n = 0;
  int stopped, seen, evidence_sent = 0;
  if (due > now) return 0;
  if (self_lag < 0) self_lag = 0;
  /* What a stop may explain: the lateness from the due time, or from the end of the driver's
   * own work after the last run if that ended later (the worker was busy or blocked on its own
   * lock or I/O until then, not stopped: seen under heavy I/O load, where a running hang's record
   * took over 100 ms to write and the next run read as a stop). */
  late = w->ran_until > due ? now - w->ran_until : self_lag;
  if (late < 0) late = 0;
  stopped = lw__worker_stopped(w, now, due, late, &slept);
  w->before_prev = w->prev_fire;
  w->prev_fire = now;

  /* How long the stop lasted: the worker's lateness (the stop began at its due time at the
   * latest); where the monotonic clock counts a sleep and the sleep clock measured one, the sleep
   * itself, up to the time since the worker last ran (it began after that run). */
  gap = late;
  if (stopped && slept > gap) gap = slept < since ? slept : since;
  /* The evidence of this run covers `ev_gap` before now: the stop's least extent. */
  ev_gap = gap;
  seen = stopped; /* this run's lateness showed the stop: evidence of its own */
  /* A SIGCONT came since the last run (lw_worker_continued): the process was stopped, from after
   * that run at the earliest. The hang clock takes out all of that time, as the continue's own
   * evidence covers it, so that a hang and its episode agree. */
  if (w->continued) {
    w->continued = 0;
    stopped = 1;
    if (since > gap) gap = since;
  }
  w->prev_stopped = stopped;
  /* A stop is not the app's: the hang clock does not count it (progress is as recent as it was
   * before the stop), nor does the cause's span. A stop under the threshold is taken out of the
   * hang's time, whose start stays where the loop last made progress (SPEC §12); a lateness of
   * the threshold or more resets the last progress and moves a running hang's start forward by
   * it (SPEC §6: a sleep starts no hang). */
  if (stopped) {
    int whole = gap >= threshold;
    if (w->last_progress_at > -INFINITY) {
      double was = w->last_progress_at;
      w->last_progress_at += gap;
      if (w->last_progress_at > now) w->last_progress_at = now;
      w->stopped_since = whole ? 0 : w->stopped_since + (w->last_progress_at - was);
    } else {
      w->last_progress_at = now;
      w->stopped_since = 0;
    }
    if (w->hang.active && whole)
      w->hang.start += gap;
    else if (w->hang.active)
      w->hang.stopped += gap;
    if (w->block.active) w->block.start += gap;
    if (w->cause.has_base) w->cause.stopped += gap;
  }

  if (w->liveness_on && w->liveness_due <= now) {
    double next, at;
    int fresh = 0, progressed = 0;
    int waited = 0;
    int rest;
    double avail_at = -INFINITY;
    /* The main loop waiting in its poll is available, not hung, though it shows no progress
     * (its progress stamp is set before each poll): the last moment it was seen waiting, if it
     * moved since the previous check, is when it last was available (exactly when it stopped
     * waiting, if it then stayed busy): no hang began before. */
    if (rd->main_avail != NULL) {
      double avail = rd->main_avail(rd->data);
      if (w->has_avail && isfinite(avail) && avail > w->avail_prev) {
        double a = avail > now ? now : avail;
        if (!w->hang.active) progress_seen(w, a);
        avail_at = a;
        waited = 1;
      }
      w->has_avail = isfinite(avail);
      w->avail_prev = avail;
    }
    /* A debugger holds the main thread: no progress, and no hang. The hang clock starts again
     * when it lets go (the debugger's time is not the app's), as after a stop; nothing is read. */
    if (rd->main_debugged != NULL && !isnan(rd->main_debugged(rd->data)) && !w->hang.active) {
      n += block_end(w, now, now, rd, &out[n]); /* the debugger's time is judged by the core */
      w->last_progress_at = now;
      w->stopped_since = 0;
      w->last_progress_seen = progress;
      w->ping_sent = 0;
      w->cause.has_base = 0;
      fresh = 1;
    } else if (progress != w->last_progress_seen) {
      fresh = progressed = 1;
      w->renewed = 0;
      w->last_progress_seen = progress;
      progress_seen(w, progress);
      w->ping_sent = 0;
      n += block_end(w, now, progress, rd, &out[n]);
      if (!waited || !rest_base_holds(w, rd, 1, avail_at)) {
        if (w->hang.active) hang_end(w, now, progress, rd, &out[n++]);
        w->cause.has_base = 0;
      }
    } else if (waited) {
      fresh = 1; /* waiting: nothing to watch, nothing to wake */
      w->ping_sent = 0;
      n += block_end(w, now, avail_at, rd, &out[n]);
      if (w->hang.active) {
        /* The loop waited again: the main thread ran and reached its poll, its progress stamp
         * not read yet (the driver writes the wait first, and this check read the stamp before
         * it: a worker held back between its two reads). The hang ended there, with its cause. */
        hang_end(w, now, avail_at, rd, &out[n++]);
        w->cause.has_base = 0;
        progress_seen(w, avail_at);
      } else if (!rest_base_holds(w, rd, 0, avail_at)) {
        w->cause.has_base = 0;
      }
    }
    /* No progress over a whole check, or a progress stamp already a threshold old (the worker
     * itself could not run for that long): perhaps a hang. */
    if (!fresh || (!w->hang.active && now - w->last_progress_at >= cfg->stall_threshold_ms)) {
      /* The cause's baseline is read once, here; a healthy loop, which shows progress at every
       * check, reads nothing. At the first check without progress (a hang may be starting), the
       * sources are looked at again: a process moved into another cgroup since (a quota-limited
       * one) reads that group's throttling, from a baseline read there. */
      int moved = 0;
      if (!w->renewed && rd->main_renew != NULL) {
        moved = rd->main_renew(rd->data);
        w->renewed = 1;
      }
      if (!w->cause.has_base || (moved && !w->hang.active)) cause_base_read(w, rd, now, 0);
      /* A block (blocks.stacks): flagged at its threshold, while it runs, so that its stack can
       * be taken; a hang flagged in the same run comes after it. */
      if (cfg->block_watch && !w->block.active && !w->hang.active &&
          now - w->last_progress_at >= cfg->block_threshold_ms) {
        w->block.active = 1;
        w->block.start = w->last_progress_at;
        w->block.detected = now;
        stall_start(&out[n++], LW_MSG_BLOCK_START, w->block.start, now);
      }
      if (!w->hang.active && now - w->last_progress_at >= cfg->stall_threshold_ms) {
        w->hang.active = 1;
        w->hang.start = w->last_progress_at - w->stopped_since;
        w->hang.stopped = w->stopped_since;
        w->hang.detected = now;
        stall_start(&out[n++], LW_MSG_HANG_START, w->hang.start, now);
      } else if (!w->ping_sent && now - w->last_progress_at >= cfg->stall_threshold_ms / 4) {
        /* An idle main loop shows no progress until something wakes it. */
        lw_msg_t *o = &out[n++];
        memset(o, 0, sizeof(*o));
        o->type = LW_MSG_PING;
        w->ping_sent = 1;
      }
    }
    /* The next check: every interval, and exactly when the hang threshold (or the ping) would
     * be reached, so that a hang is flagged at the threshold, not up to an interval later. When
     * the main loop showed it was available and waits now, no hang can begin before it stops
     * waiting, and when it stopped is read at the next check, whenever that is: the worker rests,
     * its interval then the worker's (at most LW_REST_MAX_MS, so that a stop of a second that
     * lands in it still makes the worker late enough to be seen), or up to its heartbeat. A
     * heartbeat due less than LW_STOP_MIN_MS after this check is sent with it: one wake-up for
     * both, every LW_REST_MAX_MS while the loop is idle, rather than two a second. */
    rest = fresh && !w->hang.active && now - w->last_progress_at < cfg->stall_threshold_ms / 4 &&
           rd->main_waiting != NULL && rd->main_waiting(rd->data);
    if (rest && w->heartbeat_on && w->heartbeat_due > now && w->heartbeat_due - now <= LW_STOP_MIN_MS) w->heartbeat_due = now;
    if (rest) {
      next = now + (cfg->worker_interval_ms < LW_REST_MAX_MS ? cfg->worker_interval_ms : LW_REST_MAX_MS);
      /* Watching blocks, a rest is no longer than the block threshold: a block that begins in it
       * is seen before its threshold is reached, and flagged there. */
      if (cfg->block_watch && now + cfg->block_threshold_ms < next) next = now + cfg->block_threshold_ms;
    } else {
      next = now + cfg->liveness_interval_ms;
    }
    if (rest && w->heartbeat_on && w->heartbeat_due > now && w->heartbeat_due < next) next = w->heartbeat_due;
    if (!w->hang.active) {
      at = w->last_progress_at + cfg->stall_threshold_ms;
      if (at > now && at < next) next = at;
      at = w->last_progress_at + cfg->stall_threshold_ms / 4;
      if (!w->ping_sent && at > now && at < next) next = at;
      /* A block is due at its threshold, unless the loop waits (the rest is no longer). */
      at = w->last_progress_at + cfg->block_threshold_ms;
      if (cfg->block_watch && !rest && !w->block.active && at > now && at < next) next = at;
    }
    w->liveness_due = next;
    /* A hang that begins during the rest is first seen up to a rest later: the cause's baseline
     * is read now, while the main thread waits (once per progress of the loop: at most once a
     * worker interval), and kept while the loop only waits or runs short iterations
     * (rest_base_holds): a baseline kept through the last rest is read again, so that what the
     * loop ran since it never adds up over rests. */
    if (rest && (!w->cause.has_base || progressed)) cause_base_read(w, rd, now, 1);
  }

  if (w->heartbeat_on && w->heartbeat_due <= now) {
    lw_msg_t *o = &out[n++];
    memset(o, 0, sizeof(*o));
    o->type = LW_MSG_HEARTBEAT;
    o->sent_at = now;
    o->self_lag = self_lag;
    o->ev_reason = LW_REASON_NONE;
    /* The main loop waits in its poll now: it would answer at once. A stop's evidence is no
     * quiet news. */
    o->quiet = !stopped && rd->main_in_poll != NULL && rd->main_in_poll(rd->data);
    if (seen) {
      o->ev_reason = slept >= cfg->suspend_min_ms ? LW_REASON_SUSPEND : LW_REASON_PAUSE;
      o->ev_start = now - ev_gap;
      o->ev_end = now;
      evidence_sent = 1;
    }
    w->heartbeat_due = now + cfg->worker_interval_ms;
  }
  /* A stop seen between heartbeats (or with the heartbeat off) is evidence all the same. One
   * known only from a continue has the continue's evidence: a span at this run, which was about
   * on time, would read as a stop just then to the timers caught up after the loop's wait. */
  if (seen && !evidence_sent) {
    lw_msg_t *o = &out[n++];
    memset(o, 0, sizeof(*o));
    o->type = LW_MSG_EVIDENCE;
    o->ev_reason = slept >= cfg->suspend_min_ms ? LW_REASON_SUSPEND : LW_REASON_PAUSE;
    o->ev_start = now - ev_gap;
    o->ev_end = now;
  }
  return n;
}
