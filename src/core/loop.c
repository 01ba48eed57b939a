/* The loop's iterations (SPEC §6): the loop model, read from what the poll did, the time the
 * thread was available to its loop in either model, and loopBlock's sample of each iteration. */
#include "monitors-internal.h"

#include <stdint.h>

/* The loop's state, loopBlock's row's (monitors.h), kept whether loopBlock runs or not. */
typedef struct loop_state_s {
  /* loopBlock: the previous iteration, and the cumulative busy time for timerThrottle */
  struct {
    double prev_t;
    double prev_idle;
    double busy_total;
    /* The poll that may wait, from lw_monset_core_poll_wait to lw_monset_core_poll_woke: when it
     * began, and libuv's idle reading then. */
    int waiting;
    double wait_at, wait_idle;
    double restart_at; /* a continue during it: its wait restarted then (lw__mon_continued_at) */
    double idle_lost;  /* the waits libuv's idle time lost (lw_monset_core_poll_woke) */
    /* The last poll judged, until its iteration is: when it began and ended, what libuv counted
     * of its wait and what the core took as lost. */
    double last_at, last_end, last_counted, last_lost;
  } loop;
  /* The loop model (below). */
  struct {
    int embedded;
    int poll_waited;       /* libuv's idle time grew across an iteration: Node's loop for good */
    int poll_could_wait;   /* the last poll could have waited in Node's loop (lw_monset_core_poll) */
    int seen;              /* `idle` holds libuv's idle reading at the last iteration */
    double idle;
    unsigned outside_seen; /* iterations that began >= LW_OUTSIDE_MIN_MS off a CPU after such a poll */
    double emb_idle_base;  /* the idle reading, the time and the runnable time at the switch */
    double emb_t_base;
    double emb_runnable_base;
    int poll_ended;        /* the readings below were taken at a poll's end (lw_monset_core_poll_end) */
    double poll_end_at;
    double poll_end_runnable;
    double poll_end_idle;
  } model;
} loop_state_t;
static loop_state_t *st(const lw_monset_core_t *m) { return lw__mon_state(m, LW_MON_LOOPBLOCK); }

/* The loop model (SPEC §6, embedded loops). Node runs its loop itself and waits in its poll,
 * where libuv counts the idle time. An embedder such as Electron runs one non-waiting
 * iteration at a time from its own message loop, so the thread waits outside libuv and libuv's
 * idle time does not grow. The model is read from what the poll does: a poll that waited
 * (libuv's idle time grew across an iteration) makes the loop Node's for good; a poll that
 * could have waited (lw_monset_core_poll) and did not, followed by time off a CPU before the next
 * iteration, is the embedder's, and LW_OUTSIDE_ITERATIONS of those make the loop embedded.
 * A synchronous wait in a callback leaves the same gap, but in Node's loop a poll that could
 * wait always waits. From the switch on the thread is available to its loop whenever it is
 * not on a CPU. */

static double runnable_now(const lw_monset_core_t *m) {
  return m->rd.runnable ? m->rd.runnable(m->rd.data) : 0;
}

/* libuv's idle time: the time its poll waited. */
static double idle_reading(const lw_monset_core_t *m) { return m->rd.idle ? m->rd.idle(m->rd.data) : 0; }

/* The time the thread was available to its loop, up to `now`: libuv's idle time in Node's loop;
 * in an embedded loop, from the switch on, every moment it was neither on a CPU nor waiting for
 * one (SPEC §6: a task preempted or held back by a quota is busy, as in Node's loop). */
double lw__mon_idle_now(const lw_monset_core_t *m, double now) {
  if (st(m)->model.embedded)
    return st(m)->model.emb_idle_base + (now - st(m)->model.emb_t_base) - (runnable_now(m) - st(m)->model.emb_runnable_base);
  return idle_reading(m) + st(m)->loop.idle_lost;
}

/* A wait that libuv's idle time lost is still a wait. libuv counts a poll's wait from its last
 * entry into the kernel's wait: a signal that interrupts the wait (EINTR: the app's SIGTERM or
 * SIGUSR2, a child's SIGCHLD, a profiler's SIGPROF) restarts the count, and the wait so far is
 * lost. An idle loop interrupted that way would read as one iteration busy for its whole wait.
 * A stop ends every thread's wait with EINTR too (on Linux, handler or not): a continue that came
 * during the poll (lw__mon_continued_at) makes it wait up to the continue. Else nothing on the
 * main thread marks the poll's end (Node moves libuv's loop time whenever JS sets a timer), so the worker
 * thread's sightings of the loop inside its wait (poll_seen) decide:
 * - all of the poll up to the last sighting was wait; what libuv counted of it by then was
 *   counted, the rest lost;
 * - libuv's idle time lower at the poll's end than at that sighting shows a restart after it:
 *   the wait went on after the sighting for the time the thread then spent neither running nor
 *   waiting for a CPU (at most LW_SEEN_MAX_MS), the callbacks after the poll being on a CPU or
 *   waiting for one; a synchronous wait in such a callback is the one case read as waiting;
 * - else nothing after the sighting was lost, and the callbacks' time, synchronous waits
 *   included, is the iteration's.
 * A poll no sighting fell in is taken as libuv counted it. */
void lw_monset_core_poll_wait(lw_monset_core_t *m, double at) {
  st(m)->loop.waiting = 1;
  st(m)->loop.wait_at = at;
  st(m)->loop.wait_idle = idle_reading(m);
  st(m)->loop.restart_at = -INFINITY;
}

/* The wait lost in a poll that began at `wait_at` and ended at `end`, libuv having counted
 * `counted` of it: `lost` (what the sightings show), or all of it up to a continue at `restart`
 * if that is more, at most what libuv did not count. */
static double with_restart(double lost, double wait_at, double restart, double end, double counted) {
  if (restart > wait_at && restart - wait_at > lost) lost = restart - wait_at;
  if (lost > (end - wait_at) - counted) lost = (end - wait_at) - counted;
  return lost > 0 ? lost : 0;
}

/* The wait the worker's sightings show lost in the poll that just ended at `now`, of which libuv
 * counted `counted` (0: none, libuv's count stands). */
static double poll_lost(lw_monset_core_t *m, double now, double counted) {
  double seen_at, seen_idle, seen_runnable, tail;
  if (m->rd.poll_seen == NULL || !m->rd.poll_seen(m->rd.data, &seen_at, &seen_idle, &seen_runnable))
    return 0;
  if (!(seen_at > st(m)->loop.wait_at && seen_at <= now)) return 0; /* no sighting of this poll */
  if (idle_reading(m) >= seen_idle) return (seen_at - st(m)->loop.wait_at) - (seen_idle - st(m)->loop.wait_idle);
  /* A restart after the sighting: the wait went on for the thread's time off every CPU since. */
  tail = (now - seen_at) - (runnable_now(m) - seen_runnable);
  if (!(tail > 0)) tail = 0;
  if (tail > LW_SEEN_MAX_MS) tail = LW_SEEN_MAX_MS;
  return (seen_at - st(m)->loop.wait_at) + tail - counted;
}

void lw_monset_core_poll_woke(lw_monset_core_t *m, double now) {
  double counted, lost;
  if (!st(m)->loop.waiting) return;
  st(m)->loop.waiting = 0;
  /* An embedded loop's idle time is its own measure of the thread (lw__mon_idle_now). */
  if (st(m)->model.embedded) return;
  counted = idle_reading(m) - st(m)->loop.wait_idle;
  lost = with_restart(poll_lost(m, now, counted), st(m)->loop.wait_at, st(m)->loop.restart_at, now, counted);
  st(m)->loop.idle_lost += lost;
  st(m)->loop.last_at = st(m)->loop.wait_at;
  st(m)->loop.last_end = now;
  st(m)->loop.last_counted = counted;
  st(m)->loop.last_lost = lost;
}

/* A stop ends with EINTR in every thread's wait (on Linux, handler or not): the poll's wait up to
 * the continue was lost, libuv counting the rest itself. Read while the poll waits, or after it
 * woke and before its iteration is judged; later, only the continue's evidence is left. */
void lw__mon_continued_at(lw_monset_core_t *m, double at) {
  double lost;
  if (st(m)->model.embedded) return;
  if (st(m)->loop.waiting) {
    if (at > st(m)->loop.restart_at) st(m)->loop.restart_at = at;
    return;
  }
  if (!(at > st(m)->loop.last_at && at <= st(m)->loop.last_end)) return;
  lost = with_restart(st(m)->loop.last_lost, st(m)->loop.last_at, at, st(m)->loop.last_end, st(m)->loop.last_counted);
  st(m)->loop.idle_lost += lost - st(m)->loop.last_lost;
  st(m)->loop.last_lost = lost;
}

int lw_monset_core_embedded(const lw_monset_core_t *m) { return st(m)->model.embedded; }

double lw__mon_busy_total(const lw_monset_core_t *m) { return st(m)->loop.busy_total; }

double lw__mon_busy_until(const lw_monset_core_t *m, double now) {
  double b = st(m)->loop.busy_total;
  if (m->running[LW_MON_LOOPBLOCK]) {
    double part = (now - st(m)->loop.prev_t) - (lw__mon_idle_now(m, now) - st(m)->loop.prev_idle);
    if (part > 0) b += part;
  }
  return b;
}

/* The loop model (SPEC §6), from what the poll did since the last iteration: libuv's idle time
 * grew, so the poll waited: Node's own loop, for good. Else an iteration that began
 * LW_OUTSIDE_MIN_MS or more off a CPU after a poll that could have waited counts towards an
 * embedded loop. A Node loop that never waits in its poll (always an immediate or a callback
 * pending) is never given the chance to, and stays Node's: its gaps are its own callbacks. At the
 * switch the idle reading goes on from where libuv's left it, the time outside libuv that showed
 * it counted as idle already. */
static void loop_model(lw_monset_core_t *m, double now, double outside_ms) {
  int could = st(m)->model.poll_could_wait;
  double idle;
  st(m)->model.poll_could_wait = 0;
  if (st(m)->model.embedded || st(m)->model.poll_waited || m->rd.runnable == NULL) return;
  idle = idle_reading(m);
  if (st(m)->model.seen && idle > st(m)->model.idle) {
    st(m)->model.poll_waited = 1;
    return;
  }
  st(m)->model.seen = 1;
  st(m)->model.idle = idle;
  if (!could || !(outside_ms >= LW_OUTSIDE_MIN_MS)) return;
  if (++st(m)->model.outside_seen < LW_OUTSIDE_ITERATIONS) return;
  st(m)->model.emb_idle_base = lw__mon_idle_now(m, now) + outside_ms;
  st(m)->model.emb_t_base = now;
  st(m)->model.emb_runnable_base = runnable_now(m);
  st(m)->model.embedded = 1;
}

void lw_monset_core_poll(lw_monset_core_t *m, int could_wait) { st(m)->model.poll_could_wait = could_wait != 0; }

void lw_monset_core_poll_end(lw_monset_core_t *m, double at, double runnable) {
  st(m)->model.poll_ended = 1;
  st(m)->model.poll_end_at = at;
  st(m)->model.poll_end_runnable = runnable;
  st(m)->model.poll_end_idle = idle_reading(m);
}

int lw_monset_core_poll_ended(const lw_monset_core_t *m) { return st(m)->model.poll_ended; }

/* The time off every CPU and outside libuv's poll since the last poll's end: its gap less the
 * runnable time and the idle time grown since. A reading that failed (NAN) counts nothing. */
static double outside_since_poll(lw_monset_core_t *m, double now, double runnable) {
  double out;
  if (!st(m)->model.poll_ended) return 0;
  st(m)->model.poll_ended = 0;
  out = (now - st(m)->model.poll_end_at) - (runnable - st(m)->model.poll_end_runnable) -
        (idle_reading(m) - st(m)->model.poll_end_idle);
  return out > 0 ? out : 0;
}

int lw_monset_core_iteration(lw_monset_core_t *m, double now, double runnable) {
  double idle, busy;
  int embedded = st(m)->model.embedded, changed;
  lw__mon_activity(m, now);
  st(m)->loop.waiting = 0; /* a poll the driver did not judge is judged no more */
  st(m)->loop.last_end = -INFINITY; /* nor is the last one, once this sample holds it */
  loop_model(m, now, outside_since_poll(m, now, runnable));
  if (!m->running[LW_MON_LOOPBLOCK]) return st(m)->model.embedded != embedded;
  idle = lw__mon_idle_now(m, now);
  busy = (now - st(m)->loop.prev_t) - (idle - st(m)->loop.prev_idle);
  if (busy < 0) busy = 0;
  st(m)->loop.busy_total += busy;
  st(m)->loop.prev_t = now;
  st(m)->loop.prev_idle = idle;
  /* A sample recorded at once changes no due time; a held or discarded one may. */
  changed = lw__mon_submit(m, LW_MON_LOOPBLOCK, busy, busy, now) != LW_VERDICT_RECORDED;
  /* A block: held by its validator (it is at its threshold), unless evidence discards it now. */
  if (m->block_vid != UINT32_MAX && busy >= m->cfg.block_threshold_ms) {
    uint64_t detail;
    int rc = lw_validator_submit(m->c, m->block_vid, busy, busy, now, &detail);
    if (rc == LW_ENOMEM) m->c->lost++;
    changed = 1;
  }
  return changed || st(m)->model.embedded != embedded;
}

static void loopblock_start(lw_monset_core_t *m, double now) {
  st(m)->loop.prev_t = now;
  st(m)->loop.prev_idle = lw__mon_idle_now(m, now);
}

static const lw__mon_field_t loop_state_fields[] = {
    LW__MON_FIELD(loop_state_t, loop.busy_total),
    LW__MON_FIELD(loop_state_t, loop.idle_lost),
    LW__MON_FIELD(loop_state_t, model.embedded),
};

/* loopBlock (SPEC §6): each iteration's busy time, sampled by lw_monset_core_iteration(). */
const lw__mon_desc_t lw__mon_loopblock = {
    .name = "loopBlock",
    .flags = LW__MON_VALIDATED | LW__MON_LOOP_HOOKS,
    .metric = {"lag_loop_block_histogram",
               "Busy time of each event-loop iteration (recorded samples)", "ms"},
    .start = loopblock_start,
    .stop = NULL,
    .timer = NULL,
    .fire = NULL,
    .recorded = NULL,
    LW__MON_STATE(loop_state_t, loop_state_fields),
};

int lw_monset_core_poll_waiting(const lw_monset_core_t *m) { return st(m)->loop.waiting; }
