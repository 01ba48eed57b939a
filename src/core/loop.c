/* The loop's iterations (SPEC §6): the loop model, read from what the poll did, the time the
 * thread was available to its loop in either model, and loopBlock's sample of each iteration. */
#include "monitors-internal.h"

#include <stdint.h>

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
  if (m->model.embedded)
    return m->model.emb_idle_base + (now - m->model.emb_t_base) - (runnable_now(m) - m->model.emb_runnable_base);
  return idle_reading(m) + m->loop.idle_lost;
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
  m->loop.waiting = 1;
  m->loop.wait_at = at;
  m->loop.wait_idle = idle_reading(m);
  m->loop.restart_at = -INFINITY;
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
  if (!(seen_at > m->loop.wait_at && seen_at <= now)) return 0; /* no sighting of this poll */
  if (idle_reading(m) >= seen_idle) return (seen_at - m->loop.wait_at) - (seen_idle - m->loop.wait_idle);
  /* A restart after the sighting: the wait went on for the thread's time off every CPU since. */
  tail = (now - seen_at) - (runnable_now(m) - seen_runnable);
  if (!(tail > 0)) tail = 0;
  if (tail > LW_SEEN_MAX_MS) tail = LW_SEEN_MAX_MS;
  return (seen_at - m->loop.wait_at) + tail - counted;
}

void lw_monset_core_poll_woke(lw_monset_core_t *m, double now) {
  double counted, lost;
  if (!m->loop.waiting) return;
  m->loop.waiting = 0;
  /* An embedded loop's idle time is its own measure of the thread (lw__mon_idle_now). */
  if (m->model.embedded) return;
  counted = idle_reading(m) - m->loop.wait_idle;
  lost = with_restart(poll_lost(m, now, counted), m->loop.wait_at, m->loop.restart_at, now, counted);
  m->loop.idle_lost += lost;
  m->loop.last_at = m->loop.wait_at;
  m->loop.last_end = now;
  m->loop.last_counted = counted;
  m->loop.last_lost = lost;
}

/* A stop ends with EINTR in every thread's wait (on Linux, handler or not): the poll's wait up to
 * the continue was lost, libuv counting the rest itself. Read while the poll waits, or after it
 * woke and before its iteration is judged; later, only the continue's evidence is left. */
void lw__mon_continued_at(lw_monset_core_t *m, double at) {
  double lost;
  if (m->model.embedded) return;
  if (m->loop.waiting) {
    if (at > m->loop.restart_at) m->loop.restart_at = at;
    return;
  }
  if (!(at > m->loop.last_at && at <= m->loop.last_end)) return;
  lost = with_restart(m->loop.last_lost, m->loop.last_at, at, m->loop.last_end, m->loop.last_counted);
  m->loop.idle_lost += lost - m->loop.last_lost;
  m->loop.last_lost = lost;
}

int lw_monset_core_embedded(const lw_monset_core_t *m) { return m->model.embedded; }

double lw__mon_busy_until(const lw_monset_core_t *m, double now) {
  double b = m->loop.busy_total;
  if (m->running[LW_MON_LOOPBLOCK]) {
    double part = (now - m->loop.prev_t) - (lw__mon_idle_now(m, now) - m->loop.prev_idle);
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
  int could = m->model.poll_could_wait;
  double idle;
  m->model.poll_could_wait = 0;
  if (m->model.embedded || m->model.poll_waited || m->rd.runnable == NULL) return;
  idle = idle_reading(m);
  if (m->model.seen && idle > m->model.idle) {
    m->model.poll_waited = 1;
    return;
  }
  m->model.seen = 1;
  m->model.idle = idle;
  if (!could || !(outside_ms >= LW_OUTSIDE_MIN_MS)) return;
  if (++m->model.outside_seen < LW_OUTSIDE_ITERATIONS) return;
  m->model.emb_idle_base = lw__mon_idle_now(m, now) + outside_ms;
  m->model.emb_t_base = now;
  m->model.emb_runnable_base = runnable_now(m);
  m->model.embedded = 1;
}

void lw_monset_core_poll(lw_monset_core_t *m, int could_wait) { m->model.poll_could_wait = could_wait != 0; }

void lw_monset_core_poll_end(lw_monset_core_t *m, double at, double runnable) {
  m->model.poll_ended = 1;
  m->model.poll_end_at = at;
  m->model.poll_end_runnable = runnable;
  m->model.poll_end_idle = idle_reading(m);
}

int lw_monset_core_poll_ended(const lw_monset_core_t *m) { return m->model.poll_ended; }

/* The time off every CPU and outside libuv's poll since the last poll's end: its gap less the
 * runnable time and the idle time grown since. A reading that failed (NAN) counts nothing. */
static double outside_since_poll(lw_monset_core_t *m, double now, double runnable) {
  double out;
  if (!m->model.poll_ended) return 0;
  m->model.poll_ended = 0;
  out = (now - m->model.poll_end_at) - (runnable - m->model.poll_end_runnable) -
        (idle_reading(m) - m->model.poll_end_idle);
  return out > 0 ? out : 0;
}

int lw_monset_core_iteration(lw_monset_core_t *m, double now, double runnable) {
  double idle, busy;
  int embedded = m->model.embedded, changed;
  lw__mon_activity(m, now);
  m->loop.waiting = 0; /* a poll the driver did not judge is judged no more */
  m->loop.last_end = -INFINITY; /* nor is the last one, once this sample holds it */
  loop_model(m, now, outside_since_poll(m, now, runnable));
  if (!m->running[LW_MON_LOOPBLOCK]) return m->model.embedded != embedded;
  idle = lw__mon_idle_now(m, now);
  busy = (now - m->loop.prev_t) - (idle - m->loop.prev_idle);
  if (busy < 0) busy = 0;
  m->loop.busy_total += busy;
  m->loop.prev_t = now;
  m->loop.prev_idle = idle;
  /* A sample recorded at once changes no due time; a held or discarded one may. */
  changed = lw__mon_submit(m, LW_MON_LOOPBLOCK, busy, busy, now) != LW_VERDICT_RECORDED;
  /* A block: held by its validator (it is at its threshold), unless evidence discards it now. */
  if (m->block_vid != UINT32_MAX && busy >= m->cfg.block_threshold_ms) {
    uint64_t detail;
    int rc = lw_validator_submit(m->c, m->block_vid, busy, busy, now, &detail);
    if (rc == LW_ENOMEM) m->c->lost++;
    changed = 1;
  }
  return changed || m->model.embedded != embedded;
}

static void loopblock_start(lw_monset_core_t *m, double now) {
  m->loop.prev_t = now;
  m->loop.prev_idle = lw__mon_idle_now(m, now);
}

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
};

int lw_monset_core_poll_waiting(const lw_monset_core_t *m) { return m->loop.waiting; }
