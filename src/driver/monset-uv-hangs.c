/* A running hang's reports from the real-time set's worker thread, which runs while the main
 * thread is held: the stack thread woken, the hang's record in the state directory (hangrec.h)
 * and its line on stderr (core/hangline.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/cause.h"
#include "../platform/clocks.h"
#include "../platform/sigend.h"
#include "monset-internal.h"
#include "sets.h"
#include "stacks.h"

/* Worker thread: the set's id is written before the thread starts and never changes. */
void lw__monset_uv_stacks_wake(void *data, double detected_at, int block) {
  lw_stacks_wake(((lw_monset_t *)data)->hangs.set_id, detected_at, block);
}

uint64_t lw_monset_set_id(const lw_monset_t *s) { return s->hangs.set_id; }

int lw_monset_hang_line(lw_monset_t *s, int on, const char *who, const char *json_head) {
  int rc = 0;
  if (on) rc = lw_hangline_set_who(&s->hangs.hangline, who, json_head);
  lw_atomic_store(&s->hangs.hangline_on, on ? 1 : 0);
  return rc == 0 ? LW_OK : LW_EINVAL;
}

/* The whole line in one write(2) to stderr: lines this short are not interleaved with others. */
static void write_stderr(const char *text, size_t len) {
  uv_fs_t req;
  uv_buf_t b = uv_buf_init((char *)text, (unsigned)len);
  uv_fs_write(NULL, &req, 2, &b, 1, -1, NULL);
  uv_fs_req_cleanup(&req);
}

/* A line of lagwatch's, as text or as one JSON object (core/hangline.h). */
static void say_line(lw_monset_t *s, const char *line, size_t len) {
  char json[LW_HANGLINE_JSON_MAX];
  const char *head = lw_hangline_json_head(&s->hangs.hangline);
  if (head[0] == '\0') {
    write_stderr(line, len);
    return;
  }
  len = lw_hangline_json(json, sizeof(json), head, lw_clock_wall_ms(), line, len);
  write_stderr(json, len);
}

/* Worker thread: the cause so far of the running hang `peek`, as the hang's record has it (GC is
 * the main thread's to tell: unknown). */
static void cause_so_far(const lw_msg_t *peek, double now, lw_cause_t *cause) {
  lw_hang_cause_t h;
  lw_causes_t none;
  memset(&none, 0, sizeof(none));
  lw_hang_cause_from_msg(&h, peek, now);
  lw_cause_compute(&none, &h, cause);
}

/* Worker thread: the hang line of `peek` with its cause so far, and its frames when the stack's
 * copy is known (`stack_len` >= 0). No stdio: the main thread, held, may hold stdio's locks. */
static void write_hang_line(lw_monset_t *s, double now, const lw_msg_t *peek, long stack_len) {
  lw_cause_t cause;
  char line[LW_HANGLINE_MAX];
  size_t len;
  cause_so_far(peek, now, &cause);
  len = lw_hangline_format(line, sizeof(line), lw_hangline_who(&s->hangs.hangline), now - peek->hang_start, &cause,
                           stack_len >= 0 ? s->hangs.hangline_stack : NULL);
  say_line(s, line, len);
}

/* Worker thread: the hang line of `peek` now, its frames if the stack thread has them. */
static void say_hang_now(lw_monset_t *s, double now, const lw_msg_t *peek) {
  long stack_len = -1;
  if (s->hangs.hangline_stack == NULL) s->hangs.hangline_stack = lw__malloc(LW_HANGREC_STACK_MAX);
  if (s->hangs.hangline_stack != NULL)
    stack_len = lw_stacks_copy(s->hangs.set_id, peek->detected_at, s->hangs.hangline_stack, LW_HANGREC_STACK_MAX);
  write_hang_line(s, now, peek, stack_len);
}

/* Worker thread, while a hang runs and its line is on: the line, once (core/hangline.h). */
static void say_hang(lw_monset_t *s, double now) {
  const lw_worker_t *w = lw_monset_core_worker(&s->core);
  lw_msg_t peek;
  long stack_len = -1;
  if (!lw_worker_hang_peek(w, now, &peek)) return;
  if (lw_hangline_said(&s->hangs.hangline, peek.detected_at)) return; /* said: no copy of the stack */
  if (s->hangs.hangline_stack == NULL) s->hangs.hangline_stack = lw__malloc(LW_HANGREC_STACK_MAX);
  if (s->hangs.hangline_stack != NULL)
    stack_len = lw_stacks_copy(s->hangs.set_id, peek.detected_at, s->hangs.hangline_stack, LW_HANGREC_STACK_MAX);
  if (!lw_hangline_due(&s->hangs.hangline, peek.detected_at, now, stack_len >= 0)) return;
  write_hang_line(s, now, &peek, stack_len);
}

/* Worker thread: a signal that ends a process, which lagwatch alone listens to and which the
 * main thread has not taken by its deadline (core/hangline.h): the main thread is held, and the
 * signal ends the process as it would have without lagwatch. What can be said is said first,
 * in whole lines: how long the thread has been held, and a running hang's own line (its cause
 * and frames so far); the hang's record stays for the next start. */
static void end_if_held(lw_monset_t *s, double now) {
  const lw_worker_t *w = lw_monset_core_worker(&s->core);
  uint64_t at_ns;
  int sig = lw_sigend_pending(&at_ns), hang;
  double progress, held;
  lw_msg_t peek;
  char line[LW_HANGLINE_MAX];
  size_t len;
  if (sig == 0 || now - (double)(int64_t)(at_ns - s->rt.uw->origin_ns) / 1e6 < LW_HANGLINE_SIGNAL_MS) return;
  hang = lw_worker_hang_peek(w, now, &peek);
  progress = lw_uvworker_progress_at(s->rt.uw);
  held = hang ? now - peek.hang_start : progress > -INFINITY ? now - progress : 0;
  len = lw_hangline_signal_format(line, sizeof(line), lw_hangline_who(&s->hangs.hangline), lw_sigend_name(sig), held, hang,
                                  s->hangs.rec.exists);
  say_line(s, line, len);
  if (hang) {
    lw_hangline_init(&s->hangs.hangline); /* said again, here, whatever was said before */
    say_hang_now(s, now, &peek);
  }
  lw_sigend_default_and_raise(sig);
}

/* Worker thread: the hang in progress, or none, in the set's registry entry (its cause so far
 * read now), for lw_monset_hang_now on other threads. */
static void show_hang(lw_monset_t *s, double now) {
  lw_msg_t peek;
  lw_cause_t cause;
  lw_set_t *e;
  int active = lw_worker_hang_peek(lw_monset_core_worker(&s->core), now, &peek);
  if (!active && !s->hangs.hang_shown) return;
  cause.known = 0;
  if (active) cause_so_far(&peek, now, &cause);
  e = lw_sets_lock(s->hangs.set_id);
  if (e != NULL) {
    e->hang.since = active ? peek.hang_start : NAN;
    e->hang.cause = active && cause.known ? (int)cause.dominant : -1;
  }
  lw_sets_unlock();
  s->hangs.hang_shown = active;
}

int lw_monset_hang_now(uint64_t set_id, double *held_ms, int *cause) {
  lw_set_t *e = set_id == 0 ? NULL : lw_sets_lock(set_id);
  int on = e != NULL && !isnan(e->hang.since);
  if (on) {
    *held_ms = lw_sets_now(e) - e->hang.since;
    *cause = e->hang.cause;
  }
  if (set_id != 0) lw_sets_unlock();
  return on;
}

/* Worker thread, after each run: the record of a running hang (hangrec.h), its line, and its
 * entry in the registry. */
void lw__monset_uv_record_hang(void *data, const lw_msg_t *msgs, size_t n, double now) {
  lw_monset_t *s = data;
  lw_hangrec_update(&s->hangs.rec, msgs, n, lw_monset_core_worker(&s->core), now);
  if (s->hangs.set_id != 0) show_hang(s, now);
  if (lw_atomic_load_relaxed(&s->hangs.hangline_on) && lw_worker_hang_active(lw_monset_core_worker(&s->core)))
    say_hang(s, now);
  if (lw_atomic_load_relaxed(&s->rt.uw->ends_signals)) end_if_held(s, now);
}

void lw_monset_end_signals(lw_monset_t *s, int on) {
  if (s->rt.uw == NULL) return;
  if (on) lw_sigend_install();
  lw_atomic_store(&s->rt.uw->ends_signals, on ? 1 : 0);
}

int lw_monset_state_dir(lw_monset_t *s, const char *dir, const char *writer, int pid) {
  if (s->rt.uw == NULL) return LW_ENOENT;
  return lw_hangrec_configure(&s->hangs.rec, dir, writer, lw_clock_wall_ms() - lw_monset_now(s),
                              s->hangs.set_id, pid);
}

void lw_monset_thread_ending(lw_monset_t *s) {
  if (s->rt.uw == NULL || s->finished) return;
  lw_uvworker_stop(s->rt.uw); /* joined: its view of the hang is final */
  lw_hangrec_terminated(&s->hangs.rec, lw_monset_core_worker(&s->core), lw_monset_now(s));
}

double lw_monset_progress_at(const lw_monset_t *s) {
  return s->rt.uw == NULL ? -INFINITY : lw_uvworker_progress_at(s->rt.uw);
}

uint64_t lw_monset_state_errors(const lw_monset_t *s, int *first_error) {
  *first_error = (int)lw_atomic_load((lw_atomic_i64 *)&s->hangs.rec.first_error);
  return (uint64_t)lw_atomic_load((lw_atomic_i64 *)&s->hangs.rec.errors);
}

uint64_t lw_monset_state_refused(const lw_monset_t *s, char *why, size_t cap) {
  uint64_t n = (uint64_t)lw_atomic_load((lw_atomic_i64 *)&s->hangs.rec.refused);
  if (cap > 0) {
    why[0] = '\0';
    if (n > 0) snprintf(why, cap, "%s", s->hangs.rec.refused_why);
  }
  return n;
}
