/* The record of a running hang: see hangrec.h. */
#include "hangrec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "../core/cause.h"
#include "../core/common.h"
#include "ownfiles.h"
#include "stacks.h"

/* The record's fixed part (everything but the stack). */
#define FIXED_MAX 4096

int lw_hangrec_init(lw_hangrec_t *r) {
  memset(r, 0, sizeof(*r));
  r->d.fd = -1;
  lw_atomic_store(&r->errors, 0);
  lw_atomic_store(&r->first_error, 0);
  lw_atomic_store(&r->refused, 0);
  r->mu_ok = uv_mutex_init(&r->mu) == 0;
  return r->mu_ok ? LW_OK : LW_ENOMEM;
}

static void release(lw_hangrec_t *r) {
  lw_owndir_close(&r->d);
  lw__free(r->dir);
  lw__free(r->writer);
  lw__free(r->buf);
  lw__free(r->stack);
  r->dir = r->writer = r->buf = r->stack = NULL;
  r->open_rc = 0;
}

static void clear_locked(lw_hangrec_t *r);

void lw_hangrec_free(lw_hangrec_t *r) {
  if (!r->mu_ok) return;
  clear_locked(r);
  release(r);
  uv_mutex_destroy(&r->mu);
  r->mu_ok = 0;
}

static char *dup_text(const char *s) {
  size_t n = strlen(s);
  char *d = lw__malloc(n + 1);
  if (d != NULL) memcpy(d, s, n + 1);
  return d;
}

int lw_hangrec_configure(lw_hangrec_t *r, const char *dir, const char *writer, double wall_origin,
                         uint64_t set_id, int pid) {
  unsigned char tag[4];
  char why[sizeof(r->refused_why)];
  int rc = LW_OK;
  if (!r->mu_ok) return LW_ENOMEM;
  uv_mutex_lock(&r->mu);
  clear_locked(r);
  release(r);
  if (dir == NULL) {
    uv_mutex_unlock(&r->mu);
    return LW_OK;
  }
  r->dir = dup_text(dir);
  r->writer = dup_text(writer);
  if (r->dir == NULL || r->writer == NULL) {
    release(r);
    uv_mutex_unlock(&r->mu);
    return LW_ENOMEM;
  }
  /* The name: this process (its pid in its own namespace), the set, and random bytes, so that
   * processes of other PID namespaces sharing the directory (containers on one volume) never
   * write over each other's records. */
  if (uv_random(NULL, NULL, tag, sizeof(tag), 0, NULL) != 0) memset(tag, 0, sizeof(tag));
  snprintf(r->name, sizeof(r->name), "hang-%d-%llu-%02x%02x%02x%02x.json", pid, (unsigned long long)set_id,
           tag[0], tag[1], tag[2], tag[3]);
  r->wall_origin = wall_origin;
  r->set_id = set_id;
  /* Opened (made) now, at setup: every record of the set is made relative to it. */
  r->open_rc = lw_owndir_open(&r->d, dir, 1, why, sizeof(why));
  if (r->open_rc == 1 && lw_atomic_load(&r->refused) == 0) memcpy(r->refused_why, why, sizeof(why));
  if (r->open_rc == UV_ENOMEM) {
    release(r);
    rc = LW_ENOMEM;
  }
  uv_mutex_unlock(&r->mu);
  return rc;
}

/* JSON writing into a bounded buffer: `*len` grows; -1 once it does not fit. */
static void put(char *buf, size_t cap, long *len, const char *fmt, ...) {
  va_list ap;
  int k;
  if (*len < 0) return;
  va_start(ap, fmt);
  k = vsnprintf(buf + *len, cap - (size_t)*len, fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= cap - (size_t)*len)
    *len = -1;
  else
    *len += k;
}

static void put_num(char *buf, size_t cap, long *len, const char *key, double v) {
  if (isfinite(v))
    put(buf, cap, len, ",\"%s\":%.17g", key, v);
  else
    put(buf, cap, len, ",\"%s\":null", key);
}

int lw_hangrec_format(char *buf, size_t cap, const char *writer, double wall_origin,
                      const lw_msg_t *peek, const lw_cause_t *cause, const char *stack,
                      int stack_left_out, double now, int terminated) {
  long len = 0;
  put(buf, cap, &len, "{\"lagwatchHang\":1,%s", writer);
  if (terminated) put(buf, cap, &len, ",\"ended\":\"terminated\"");
  put_num(buf, cap, &len, "wallOrigin", wall_origin);
  /* The record's span is the hang's own time (its reader takes lastSeen less start): a stop
   * inside it moves its start. */
  put_num(buf, cap, &len, "start", peek->hang_start + peek->hang_stopped);
  put_num(buf, cap, &len, "detectedAt", peek->detected_at);
  put_num(buf, cap, &len, "lastSeen", now);
  if (cause != NULL && cause->known) {
    put(buf, cap, &len, ",\"cause\":{\"dominant\":\"%s\"", lw_cause_name(cause->dominant));
    put_num(buf, cap, &len, "cpuMs", cause->cpu_ms);
    put_num(buf, cap, &len, "runQueueMs", cause->runq_ms);
    put_num(buf, cap, &len, "throttledMs", cause->throttled_ms);
    put_num(buf, cap, &len, "blockedMs", cause->blocked_ms);
    put_num(buf, cap, &len, "gcMs", cause->gc_ms);
    put_num(buf, cap, &len, "spanMs", cause->span_ms);
    put(buf, cap, &len, "}");
  } else {
    put(buf, cap, &len, ",\"cause\":null");
  }
  put(buf, cap, &len, ",\"stackLeftOut\":%s", stack_left_out ? "true" : "false");
  if (stack != NULL)
    put(buf, cap, &len, ",\"stack\":%s}\n", stack);
  else
    put(buf, cap, &len, ",\"stack\":null}\n");
  return (int)len;
}

static void failed(lw_hangrec_t *r, int err) {
  lw_atomic_store(&r->errors, lw_atomic_load(&r->errors) + 1);
  if (lw_atomic_load(&r->first_error) == 0) lw_atomic_store(&r->first_error, err);
}

int lw_hangrec_check_dir(const char *dir, char *why, size_t cap) { return lw_owndir_check(dir, why, cap); }

/* The directory for this hang's writes, opened at setup: one refused then or now is counted once
 * per hang, one that could not be opened (made) is a failed write. Returns 0 when records can be
 * written. */
static int ready_dir(lw_hangrec_t *r) {
  char why[sizeof(r->refused_why)];
  int rc = r->open_rc;
  if (r->refused_now) return 1;
  if (r->exists) return 0;
  /* Judged again at each hang's first write: a directory made writable by others since setup
   * could be given records someone else planted. */
  if (rc == 0) rc = lw_owndir_recheck(&r->d, why, sizeof(why));
  if (rc == 0) return 0;
  if (rc != 1) {
    failed(r, rc);
    return 1;
  }
  r->refused_now = 1;
  if (r->open_rc == 0 && lw_atomic_load(&r->refused) == 0) memcpy(r->refused_why, why, sizeof(why));
  lw_atomic_store(&r->refused, lw_atomic_load(&r->refused) + 1);
  return 1;
}

static void write_record(lw_hangrec_t *r, const lw_worker_t *w, double now, int terminated) {
  lw_msg_t peek;
  lw_hang_cause_t h;
  lw_causes_t none;
  lw_cause_t cause;
  long stack_len;
  int len, rc;
  if (!lw_worker_hang_peek(w, now, &peek)) return;
  /* The buffers, at the first hang (most sets never see one); kept until the set goes. */
  if (r->buf == NULL) {
    r->cap = FIXED_MAX + strlen(r->writer) + LW_HANGREC_STACK_MAX;
    r->buf = lw__malloc(r->cap);
    r->stack = lw__malloc(LW_HANGREC_STACK_MAX);
    if (r->buf == NULL || r->stack == NULL) {
      lw__free(r->buf);
      lw__free(r->stack);
      r->buf = r->stack = NULL;
      failed(r, UV_ENOMEM);
      return;
    }
  }
  /* The cause so far: the worker's readings over the span until now (GC is the main thread's to
   * tell: unknown here). */
  memset(&none, 0, sizeof(none));
  lw_hang_cause_from_msg(&h, &peek, now);
  lw_cause_compute(&none, &h, &cause);
  stack_len = lw_stacks_copy(r->set_id, peek.detected_at, r->stack, LW_HANGREC_STACK_MAX);
  len = lw_hangrec_format(r->buf, r->cap, r->writer, r->wall_origin, &peek, &cause,
                          stack_len >= 0 ? r->stack : NULL, stack_len == -2, now, terminated);
  if (len < 0) {
    failed(r, UV_ENOBUFS);
    return;
  }
  if (ready_dir(r) != 0) return;
  rc = lw_owndir_write(&r->d, r->name, r->buf, (size_t)len);
  if (rc != 0) {
    failed(r, rc);
    return;
  }
  r->exists = 1;
}

/* The hang is over: its record removed. */
static void clear_locked(lw_hangrec_t *r) {
  int rc;
  r->refused_now = 0;
  if (!r->exists) return;
  r->exists = 0;
  rc = lw_owndir_unlink(&r->d, r->name);
  if (rc != 0 && rc != UV_ENOENT) failed(r, rc);
}

void lw_hangrec_clear(lw_hangrec_t *r) {
  if (!r->mu_ok) return;
  uv_mutex_lock(&r->mu);
  clear_locked(r);
  uv_mutex_unlock(&r->mu);
}

void lw_hangrec_update(lw_hangrec_t *r, const lw_msg_t *msgs, size_t n, const lw_worker_t *w,
                       double now) {
  size_t i;
  int started = 0;
  for (i = 0; i < n; i++) {
    if (msgs[i].type == LW_MSG_HANG_END) lw_hangrec_clear(r);
    if (msgs[i].type == LW_MSG_HANG_START) started = 1;
  }
  /* A healthy loop: not even the lock. */
  if (!r->mu_ok || !lw_worker_hang_active(w)) return;
  uv_mutex_lock(&r->mu);
  /* Written when the hang is flagged, then at most once a second while it lasts (its length, the
   * cause so far, the stack once taken). */
  if (r->dir != NULL && (started || now >= r->due)) {
    write_record(r, w, now, 0);
    /* On a fixed cadence from the detection: a late worker run delays one refresh, not all. */
    r->due = started ? now + LW_HANGREC_REFRESH_MS / 2 : r->due + LW_HANGREC_REFRESH_MS;
    if (r->due <= now) r->due = now + LW_HANGREC_REFRESH_MS / 2;
  }
  uv_mutex_unlock(&r->mu);
}

void lw_hangrec_terminated(lw_hangrec_t *r, const lw_worker_t *w, double now) {
  if (!r->mu_ok) return;
  uv_mutex_lock(&r->mu);
  if (r->dir != NULL && lw_worker_hang_active(w)) {
    write_record(r, w, now, 1);
    /* Left for the process's other sets (or the next start) to report: never removed here. */
    r->exists = 0;
  }
  uv_mutex_unlock(&r->mu);
}
