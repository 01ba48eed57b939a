/* The monitor set in real time on libuv (monset-internal.h): the worker thread (uvworker.c) whose
 * messages reach the main loop through a uv_async_t, and the loop's prepare and check hooks
 * (loopBlock's iteration, the progress stamp, the loop model). The platform's clocks as the
 * core's readings, and the stops others tell (a SIGCONT, a debugger), are in
 * monset-uv-readings.c, a running hang's reports from the worker thread in monset-uv-hangs.c. */
#include "../platform/clocks.h"
#include "../platform/sigcont.h"
#include "sets.h"
#include "monset-internal.h"

static double uv_now_of(const lw_monset_t *s) { return lw_uv_now(s->uv); }

/* The loop's time (libuv's cached uv_now(), updated at the start of each iteration and after
 * each poll), in ms on this thread's origin, to within a few ms (libuv's fast clock): no clock
 * read. The hooks keep it raw (an integer compare) and convert it only when they use it. */
static double loop_time(const lw_monset_t *s, uint64_t raw) { return (double)(int64_t)raw - s->rt.origin_ms; }

/* The worker's messages that have arrived by `now` (an overdue check of the worker awaited),
 * a SIGCONT's evidence and a debugger's. */
static int uv_receive(lw_monset_t *s, double now) {
  const lw_msg_t *msgs;
  size_t n;
  uint64_t lost = 0;
  int cont;
  if (s->rt.uw == NULL) return 0;
  cont = lw__monset_uv_signals(s, now);
  lw_uvworker_await_overdue(s->rt.uw, now);
  if (!lw_uvworker_pending(s->rt.uw)) return cont;
  n = lw_uvworker_drain(s->rt.uw, &msgs, &lost);
  lw_conditions_count_lost(s->c, lost);
  lw_monset_core_receive(&s->core, msgs, n, now);
  return 1;
}

static void uv_receive_last(lw_monset_t *s, const lw_msg_t *msgs, size_t n, double now) {
  lw_monset_core_receive(&s->core, msgs, n, now);
}

/* The poll after this prepare may wait (a non-zero timeout): the worker is told, the idle reading
 * is dropped (the wait will add to libuv's idle time), and the timers may sleep through it.
 * Returns 1 if a due time changed. */
static int poll_may_wait(lw_monset_t *s, double now) {
  lw_uvworker_set_waiting(s->rt.uw, 1);
  s->rt.idle_valid = 0;
  return lw_monset_core_idle(&s->core, now);
}

/* The poll that may have waited is over: a callback of it runs, or the check hook
 * (lw_monset_core_poll_woke). */
static void poll_over(lw_monset_t *s, double now) {
  if (lw_monset_core_poll_waiting(&s->core)) lw_monset_core_poll_woke(&s->core, now);
}

/* The main thread's due time: see LW_SHARE_MS. */
static double uv_main_next_due(lw_client_t *c) {
  return lw_monset_core_next_due_armed(&LW_MONSET_OF(c, main_client)->core);
}

static void main_run_cb(lw_client_t *c, double now) { lw__monset_main_run(LW_MONSET_OF(c, main_client), now, 1); }

static void async_cb(uv_async_t *a) {
  lw_monset_t *s = a->data;
  double now = lw_uv_now(s->uv);
  if (s->rt.uw == NULL) return; /* finished */
  /* The poll's wait has ended (libuv counted it before the callbacks): its idle time is fresh. */
  lw_uvworker_progress(s->rt.uw, now, (double)uv_metrics_idle_time(a->loop) / 1e6);
  poll_over(s, now);
  if (uv_receive(s, now)) lw__monset_hand_over(s, 0, 1, now);
  /* An idle loop woken by the worker: the timers that measure nothing of their own lateness,
   * when due within LW_SHARE_MS, fire in this wake-up rather than in one of their own. */
  if (lw_monset_core_sharing(&s->core) && lw_monset_core_next_due_late(&s->core, -LW_SHARE_MS) <= now) {
    int got;
    /* The wait is over: what the sleeping timers measured over it first (clockDrift's reading
     * among it), then the rest of what is due. */
    lw__monset_awake(s, now, &got);
    lw_monset_core_set_coalesce(&s->core, LW_SHARE_MS);
    lw__monset_main_run(s, now, 1);
    lw_monset_core_set_coalesce(&s->core, LW_COALESCE_MS);
  }
  lw_uv_rearm(s->uv);
}

/* The main thread's time on a CPU, plus (Linux) its time waiting for one: its run-queue delay from
 * schedstat, which includes what a cgroup's CPU quota held back. A thread preempted on a loaded
 * machine, or throttled, was runnable all along: that is not time spent outside libuv, however
 * long the gap. The CPU part is the thread's CPU clock (exact to now; schedstat's CPU figure of a
 * running thread lags by up to a scheduler tick); the wait is final for every wait before now.
 * NAN if the delay cannot be read after all.
 * The gap's outside part is (end - start) less (runnable at its end - runnable at its start),
 * from reads that take time: a preemption between two of them must not look like time outside.
 * The start (`opening`) reads the delay, then the CPU clock, and the caller reads the wall clock
 * after; the end reads the wall clock first, then the CPU clock and the delay. Each runnable
 * figure thus brackets its wall-clock read from the side that can only make the outside part
 * smaller: a thread preempted for 10 ms between its reads at the start once took a starved
 * Node loop for an embedded one. */
static double main_runnable_ms(lw_monset_t *s, int opening) {
  lw_thread_times_t t;
  double cpu;
  if (!s->rt.runq_known) return lw_clock_thread_cpu_ms();
  if (opening) {
    if (lw_thread_src_read(&s->rt.main_src, &t) != 0 || !isfinite(t.runq_ms)) return NAN;
    return t.runq_ms + lw_clock_thread_cpu_ms();
  }
  cpu = lw_clock_thread_cpu_ms();
  if (lw_thread_src_read(&s->rt.main_src, &t) != 0 || !isfinite(t.runq_ms)) return NAN;
  return cpu + t.runq_ms;
}

/* The check phase of each iteration. libuv runs check handles newest first, so this one runs
 * before Node's immediates; then come the close callbacks and (libuv >= 1.45) the timers. If
 * the next iteration's prepare comes long after, the thread was either running the app's
 * immediates and timers (on a CPU) or outside libuv (an embedder's message loop, waiting). The
 * loop's cached time (the poll's end) raises the suspicion in prepare_cb at no cost; while one
 * stands, the loop model's readings are taken here and at the next prepare, and the core counts
 * as outside only the part of the gap the thread spent off a CPU (lw_monset_core_poll_end). */
static void check_cb(uv_check_t *h) {
  lw_monset_t *s = h->data;
  uint64_t t = uv_now(h->loop);
  s->rt.hook.check_loop_raw = t;
  if (s->rt.uw != NULL) lw_uvworker_set_waiting(s->rt.uw, 0); /* the poll is over */
  /* The loop's time moved during the poll: it may have waited (a prepare callback after ours
   * may have given it a timeout). */
  if (t != s->rt.hook.prepare_raw) s->rt.idle_valid = 0;
  if (lw_monset_core_poll_waiting(&s->core)) lw_monset_core_poll_woke(&s->core, lw_uv_now(s->uv));
  if (s->rt.hook.suspect_outside > 0) { /* the poll end's readings, for the next iteration */
    double runnable = main_runnable_ms(s, 1);
    lw_monset_core_poll_end(&s->core, lw_uv_now(s->uv), runnable);
  }
  if (lw_monset_core_asleep(&s->core)) {
    double now = lw_uv_now(s->uv);
    int got, rearm = lw__monset_awake(s, now, &got);
    if (got) lw__monset_hand_over(s, 0, 1, now);
    if (rearm) lw_uv_rearm(s->uv);
  }
}

/* The check hook runs only while something needs the end of a poll (check_cb): a poll that may
 * wait (the worker's flag, the idle reading, timers asleep through it), a suspicion being
 * measured, an embedded loop. A loop that runs immediates back to back needs none of it, and its
 * check hook is stopped: libuv then calls one hook of ours an iteration, not two. While it is
 * off, the gap a suspicion looks at counts from the last timed prepare's iteration start (a
 * suspicion only starts the measurement, with the hook on: a false one costs a few measured
 * iterations). Started again, the hook is the newest check handle, and runs first as before. */
static void check_needed(lw_monset_t *s, int may_wait, uint64_t began) {
  int need = may_wait || s->rt.hook.suspect_outside > 0 || lw_monset_core_embedded(&s->core) || lw_monset_core_asleep(&s->core);
  if (need != s->rt.hook.check_on) {
    if (need)
      uv_check_start(&s->rt.check, check_cb);
    else
      uv_check_stop(&s->rt.check);
    s->rt.hook.check_on = need;
  }
  if (!need) s->rt.hook.check_loop_raw = began;
}

/* Once per loop iteration, right before the poll: one clock read, libuv's idle time only when
 * the previous poll could have waited (lw__monset_uv_idle), the timer re-armed only when a due time may
 * have changed.
 * Iterations shorter than the loop's millisecond merge: while libuv's cached time (read at the
 * iteration's start) has not moved since the last timed prepare, the iteration is not timed; the
 * next timed one takes the busy time of all since the last (one loopBlock sample, exact: the core
 * measures from the last timed prepare, less the idle time libuv counted since, so the
 * sub-millisecond waits of an I/O loop's merged polls are no busy time). A sample thus covers
 * at least one tick of the loop's clock, an iteration of 1 ms or more is one sample alone but for
 * the sub-millisecond iterations of its tick before it, and a busy loop costs no clock read per
 * iteration. No long wait, no outside gap and no stop can hide in a merge: the loop's time would
 * have moved. */
static void prepare_cb(uv_prepare_t *p) {
  lw_monset_t *s = p->data;
  uv_loop_t *loop = s->uv->timer.loop;
  uint64_t began = uv_now(loop);
  double now, runnable = NAN;
  int rearm, may_wait, got;
  if (s->rt.uw == NULL) return; /* finished */
  if (began == s->rt.hook.prepare_raw && s->rt.hook.merge_ok) {
    /* Not timed. Its poll may wait and add to libuv's idle time: the next timed prepare reads
     * it again (once a millisecond at most; a sub-millisecond wait does not move the loop's
     * time, a longer one does, and check_cb clears the reading then too). A poll that may wait
     * is told to the worker, and driftLag and macrotaskLag may sleep through it, as after a
     * timed prepare: an I/O loop's last iteration before a long wait is often a merged one.
     * With the check hook off (a loop of immediates), the next timed prepare reads the idle time
     * anyway: a wait that begins now has the timers awake, and the first of them to fire times
     * its iteration; the check hook starts again only to judge the wait (poll_over). */
    if (uv_backend_timeout(loop) != 0) {
      /* The check hook judges the wait, whatever libuv counts of it (lw_monset_core_poll_wait). */
      if (!lw_monset_core_poll_waiting(&s->core)) lw_monset_core_poll_wait(&s->core, loop_time(s, began));
      if (!s->rt.hook.check_on) {
        uv_check_start(&s->rt.check, check_cb);
        s->rt.hook.check_on = 1;
      } else if (poll_may_wait(s, lw_uv_now(s->uv))) {
        lw_uv_rearm(s->uv);
      }
    }
    return;
  }
  now = lw_uv_now(s->uv);
  /* The loop model's reading at the iteration, after the wall clock's (main_runnable_ms). */
  if (lw_monset_core_poll_ended(&s->core)) runnable = main_runnable_ms(s, 0);
  /* A suspicion: LW_OUTSIDE_MIN_MS or more since the last check's poll ended. It stands for the
   * next few iterations, whose gaps are then measured (check_cb). */
  if (s->rt.hook.suspect_outside > 0) s->rt.hook.suspect_outside--;
  if (s->rt.hook.check_loop_raw != 0 && now - loop_time(s, s->rt.hook.check_loop_raw) >= LW_OUTSIDE_MIN_MS)
    s->rt.hook.suspect_outside = LW_OUTSIDE_ITERATIONS + 2;
  if (!s->rt.hook.check_on) s->rt.idle_valid = 0; /* no check_cb saw whether a poll since waited */
  lw_uvworker_progress(s->rt.uw, now, lw__monset_uv_idle(s));
  /* Evidence before judgment (SPEC §4): the iteration just ended may hold a stop of the whole
   * process (SIGSTOP in a callback, a freezer, a VM pause), which the worker tells only when it
   * runs again, at the same moment as this thread. What it has sent is applied first, and a
   * worker overdue by a stop's worth is awaited (uv_receive), before the iteration's sample is
   * judged. */
  got = lw__monset_evidence(s, now);
  rearm = lw_monset_core_iteration(&s->core, now, runnable);
  if (got) {
    lw__monset_hand_over(s, 0, 1, now);
    rearm = 1;
  }
  /* The poll that follows waits only with a timeout: without one (an immediate, an idle handle,
   * a pending callback, a due timer) libuv counts no idle time, and the next reading is this
   * one (uv_metrics_idle_time() takes a mutex). While it waits, driftLag and macrotaskLag sleep
   * (check_cb wakes them): libuv computes the poll's timeout after the prepare callbacks. */
  may_wait = uv_backend_timeout(loop) != 0;
  /* The loop model's reading (SPEC §6): the poll would wait in Node's own run, or that run would
   * end here. An embedder's uv_run(UV_RUN_NOWAIT) gives it no timeout all the same. */
  lw_monset_core_poll(&s->core, may_wait || !uv_loop_alive(loop));
  if (may_wait) lw_monset_core_poll_wait(&s->core, now);
  if (may_wait && poll_may_wait(s, now)) rearm = 1;
  if (rearm) lw_uv_rearm(s->uv);
  s->rt.hook.prepare_raw = began;
  s->rt.hook.merge_ok = s->rt.hook.suspect_outside == 0 && !lw_monset_core_embedded(&s->core);
  check_needed(s, may_wait, began);
}

static void handle_closed(uv_handle_t *h) {
  lw_monset_t *s = h->data;
  if (--s->rt.open_handles == 0 && s->owner.closed) s->owner.closed(s->owner.data);
}

static int uv_make(lw_monset_t *s) {
  uv_loop_t *loop = s->uv->timer.loop;
  int rc;
  s->rt.uw = lw__malloc(sizeof(*s->rt.uw));
  if (s->rt.uw == NULL) return LW_ENOMEM;
  /* Continues after a stop (SIGCONT), counted from now on. */
  {
    uint64_t at_ns;
    (void)lw_sigcont_install();
    s->rt.cont_seen = lw_sigcont_last(&at_ns);
  }
  rc = lw_uvworker_init(s->rt.uw, lw_monset_core_worker(&s->core), s->uv->origin_ns, &s->rt.async);
  if (rc != 0) {
    lw__free(s->rt.uw);
    s->rt.uw = NULL;
    return rc;
  }
  /* The stack thread, if one attaches, is woken by the worker the moment it flags a hang. */
  s->hangs.set_id = lw_sets_add(s->uv->origin_ns);
  /* Without memory for its entry, no stacks are taken and a debugger's pauses are not told apart
   * (they read as hangs): counted as lost. */
  if (s->hangs.set_id == 0) lw_conditions_count_lost(s->c, 1);
  s->rt.uw->on_hang = lw__monset_uv_stacks_wake;
  s->rt.uw->on_hang_data = s;
  s->rt.uw->after_run = lw__monset_uv_record_hang;
  s->rt.uw->after_run_data = s;
  rc = uv_async_init(loop, &s->rt.async, async_cb);
  if (rc != 0) {
    lw_uvworker_free(s->rt.uw);
    lw__free(s->rt.uw);
    s->rt.uw = NULL;
    return rc;
  }
  uv_prepare_init(loop, &s->rt.prepare);
  uv_check_init(loop, &s->rt.check);
  s->rt.prepare.data = s->rt.async.data = s->rt.check.data = s;
  s->rt.hook.check_loop_raw = 0;
  s->rt.origin_ms = (double)s->uv->origin_ns / 1e6;
  uv_unref((uv_handle_t *)&s->rt.prepare);
  uv_unref((uv_handle_t *)&s->rt.async);
  uv_unref((uv_handle_t *)&s->rt.check);
  s->rt.open_handles = 3;
  s->rt.uv_ready = 1;
  return 0;
}

/* Puts the real-time pieces in line with what runs: the loop's hooks and the worker thread, for
 * the monitors that need them. Returns the thread's start error. */
static int uv_sync(lw_monset_t *s) {
  lw_monset_core_t *k = &s->core;
  int rc = 0;
  if (!s->rt.uv_ready || uv_is_closing((uv_handle_t *)&s->rt.async)) return 0;
  if (lw_monset_core_hooks_needed(k)) {
    uv_prepare_start(&s->rt.prepare, prepare_cb);
    uv_check_start(&s->rt.check, check_cb);
    s->rt.hook.check_on = 1; /* until the first prepare says otherwise */
  } else {
    uv_prepare_stop(&s->rt.prepare);
    uv_check_stop(&s->rt.check);
    s->rt.hook.check_on = 0;
    /* Restarted, the hooks start afresh: the first prepare is timed, and the last poll's end
     * (a reading that failed) counts nothing. */
    lw_monset_core_poll_end(&s->core, NAN, NAN);
    s->rt.hook.merge_ok = 0;
  }
  if (lw_monset_core_worker_needed(k) && s->rt.uw != NULL) rc = lw_uvworker_start(s->rt.uw);
  lw_uv_rearm(s->uv);
  return rc;
}

static int uv_setup(lw_monset_t *s) {
  int rc;
  s->main_client.run = main_run_cb;
  s->main_client.next_due = uv_main_next_due;
  lw_monset_core_set_coalesce(&s->core, LW_COALESCE_MS);
  lw_monset_core_set_share(&s->core, LW_NEVER);
  rc = uv_make(s);
  if (rc == LW_ENOMEM) return rc;
  if (rc != 0) {
    s->worker_error = rc;
    return LW_ETHREAD;
  }
  lw_sched_add(&s->uv->sched, &s->main_client);
  return LW_OK;
}

static void uv_unregister(lw_monset_t *s) { lw_sched_remove(&s->uv->sched, &s->main_client); }

/* The end of the loop's last poll: libuv's cached time, updated right after it. */
static double uv_idle_end(const lw_monset_t *s, double now) {
  (void)now;
  return (double)(int64_t)uv_now(s->uv->timer.loop) - s->rt.origin_ms;
}

static void uv_rearm(lw_monset_t *s) {
  if (s->rt.uv_ready) lw_uv_rearm(s->uv);
}

/* The worker thread is joined: a hang it recorded is over (the main thread runs). */
static void uv_stop_worker(lw_monset_t *s) {
  if (s->rt.uw != NULL) lw_uvworker_stop(s->rt.uw);
  lw_hangrec_clear(&s->hangs.rec);
}

static int uv_close_handles(lw_monset_t *s) {
  if (!s->rt.uv_ready) return 0;
  if (s->rt.uw != NULL) lw_uvworker_stop(s->rt.uw);
  lw_hangrec_clear(&s->hangs.rec);
  if (uv_is_closing((uv_handle_t *)&s->rt.async)) return 0;
  uv_close((uv_handle_t *)&s->rt.prepare, handle_closed);
  uv_close((uv_handle_t *)&s->rt.check, handle_closed);
  uv_close((uv_handle_t *)&s->rt.async, handle_closed);
  return 1;
}

static void uv_release(lw_monset_t *s) {
  if (s->rt.uw != NULL) { /* its thread is joined and its loop closed */
    lw_uvworker_free(s->rt.uw);
    lw__free(s->rt.uw);
    s->rt.uw = NULL;
  }
  lw_thread_src_close(&s->rt.self_src);
  lw_thread_src_close(&s->rt.main_src);
  lw_hangrec_clear(&s->hangs.rec);
}

static void uv_free(lw_monset_t *s) {
  if (s->rt.uw != NULL) {
    lw_uvworker_free(s->rt.uw);
    lw__free(s->rt.uw);
    s->rt.uw = NULL;
  }
  lw_sets_remove(s->hangs.set_id);
  lw_thread_src_close(&s->rt.main_src); /* the worker thread is joined */
  lw_thread_src_close(&s->rt.self_src);
  lw_hangrec_clear(&s->hangs.rec);
}

static const char *uv_sleep_clock(const lw_monset_t *s) {
  (void)s;
  return lw_clock_sleep_pair_name();
}

static size_t uv_memory(const lw_monset_t *s) { return s->rt.uw ? sizeof(*s->rt.uw) : 0; }

/* Node's own loop runs its timers last in an iteration and, with nothing left alive, leaves
 * uv_run without another prepare: a block in the app's last timer (a script's work before it
 * exits) would never be measured. At the finish it is, up to now (the 'exit' hook runs right
 * after). Not in an embedder's loop: the time since its last prepare may be the host's, which
 * only the next iteration's measure can tell apart. */
static void uv_last_iteration(lw_monset_t *s, double now) {
  if (lw_monset_core_embedded(&s->core)) return;
  poll_over(s, now);
  (void)lw_monset_core_iteration(&s->core, now, NAN);
}

const lw_monset_backend_t lw__monset_uv = {
    uv_now_of,    lw__monset_uv_readings, uv_setup,       uv_unregister,    uv_receive, uv_receive_last,
    uv_idle_end,  uv_sync,        uv_rearm,       uv_stop_worker,   uv_close_handles, uv_release,
    uv_free,      uv_sleep_clock, uv_memory,      uv_last_iteration, poll_over,
};
