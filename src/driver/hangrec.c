/* The record of a running hang: see hangrec.h. */
#include "hangrec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "../core/cause.h"
#include "../core/common.h"
#include "../core/statedir.h"
#include "stacks.h"

/* The record's fixed part (everything but the stack). */
#define FIXED_MAX 4096

int lw_hangrec_init(lw_hangrec_t *r) {
  memset(r, 0, sizeof(*r));
  r->dirfd = -1;
  lw_atomic_store(&r->errors, 0);
  lw_atomic_store(&r->first_error, 0);
  lw_atomic_store(&r->refused, 0);
  r->mu_ok = uv_mutex_init(&r->mu) == 0;
  return r->mu_ok ? LW_OK : LW_ENOMEM;
}

static void release(lw_hangrec_t *r) {
  lw__free(r->dir);
  lw__free(r->path);
  lw__free(r->name);
  lw__free(r->tmp);
  lw__free(r->process);
  lw__free(r->buf);
  lw__free(r->stack);
  r->dir = r->path = r->name = r->tmp = r->process = r->buf = r->stack = NULL;
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

int lw_hangrec_configure(lw_hangrec_t *r, const char *dir, const char *process, double wall_origin,
                         uint64_t set_id, int pid) {
  size_t n;
  int rc = LW_OK;
  if (!r->mu_ok) return LW_ENOMEM;
  uv_mutex_lock(&r->mu);
  clear_locked(r);
  release(r);
  if (dir == NULL) {
    uv_mutex_unlock(&r->mu);
    return LW_OK;
  }
  n = strlen(dir) + 64;
  r->dir = dup_text(dir);
  r->process = dup_text(process);
  r->path = lw__malloc(n);
  r->name = lw__malloc(64);
  r->tmp = lw__malloc(n + 24);
  if (r->dir == NULL || r->process == NULL || r->path == NULL || r->name == NULL || r->tmp == NULL) {
    release(r);
    rc = LW_ENOMEM;
  } else {
    snprintf(r->name, 64, "hang-%d-%llu.json", pid, (unsigned long long)set_id);
    snprintf(r->path, n, "%s/%s", dir, r->name);
    r->wall_origin = wall_origin;
    r->set_id = set_id;
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

int lw_hangrec_format(char *buf, size_t cap, const char *process, double wall_origin,
                      const lw_msg_t *peek, const lw_cause_t *cause, const char *stack,
                      int stack_left_out, double now) {
  long len = 0;
  put(buf, cap, &len, "{\"lagwatchHang\":1,\"process\":%s", process);
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

/* mkdir -p, synchronously (libuv's fs calls without a loop's callback): each missing level with
 * mode 0700. */
static int make_dir(char *dir) {
  uv_fs_t req;
  char *p;
  int rc = 0;
  for (p = dir + 1;; p++) {
    if (*p == '/' || *p == '\\' || *p == '\0') {
      char c = *p;
      *p = '\0';
      rc = uv_fs_mkdir(NULL, &req, dir, 0700, NULL);
      uv_fs_req_cleanup(&req);
      *p = c;
      if (rc != 0 && rc != UV_EEXIST) return rc;
      if (c == '\0') return 0;
    }
  }
}

/* Judged by the entry itself (lstat: a link is not followed). Returns 0 (allowed), 1 (refused,
 * `why` filled) or a libuv error (UV_ENOENT: not there). */
static int judge_entry(const char *dir, char *why, size_t cap) {
  uv_fs_t req;
  lw_dir_verdict_t v;
  unsigned long uid, mode, euid;
  int rc = uv_fs_lstat(NULL, &req, dir, NULL);
  if (rc != 0) {
    uv_fs_req_cleanup(&req);
    return rc;
  }
  uid = (unsigned long)req.statbuf.st_uid;
  mode = (unsigned long)req.statbuf.st_mode;
#ifdef _WIN32
  euid = uid; /* Windows tells no owner here: the kind alone is judged */
  v = lw_statedir_verdict((mode & S_IFMT) == S_IFLNK, (mode & S_IFMT) == S_IFDIR, uid, mode, euid, 0);
#else
  euid = (unsigned long)geteuid();
  v = lw_statedir_verdict(S_ISLNK(mode), S_ISDIR(mode), uid, mode, euid, 1);
#endif
  uv_fs_req_cleanup(&req);
  if (v == LW_DIR_OK) return 0;
  lw_statedir_why(v, uid, mode, why, cap);
  return 1;
}

int lw_hangrec_check_dir(const char *dir, char *why, size_t cap) {
  int rc = judge_entry(dir, why, cap);
  return rc == UV_ENOENT ? 0 : rc;
}

#ifndef _WIN32
/* POSIX: the directory made where missing, opened without following a link and judged on what
 * was opened (a directory swapped between the look and the open is judged as it is). Returns an
 * open descriptor, or a libuv error; `*refused` 1 when the directory is refused (`why` filled). */
static int open_dir(lw_hangrec_t *r, char *why, size_t cap, int *refused) {
  uv_fs_t st;
  lw_dir_verdict_t v;
  unsigned long uid, mode;
  int fd, rc;
  *refused = 0;
  fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    if ((rc = make_dir(r->dir)) != 0) return rc;
    fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    rc = uv_translate_sys_error(errno);
    /* A link, or not a directory: said as the entry is. */
    *refused = judge_entry(r->dir, why, cap) == 1;
    return rc < 0 ? rc : UV_EIO;
  }
  /* libuv's fstat, not glibc's: glibc 2.33 made fstat a symbol of its own version, which a
   * prebuild must not need (scripts/prebuild.js holds every symbol to GLIBC_2.17). */
  rc = uv_fs_fstat(NULL, &st, fd, NULL);
  uid = (unsigned long)st.statbuf.st_uid;
  mode = (unsigned long)st.statbuf.st_mode;
  uv_fs_req_cleanup(&st);
  if (rc != 0) {
    close(fd);
    return rc;
  }
  v = lw_statedir_verdict(0, S_ISDIR(mode), uid, mode, (unsigned long)geteuid(), 1);
  if (v != LW_DIR_OK) {
    lw_statedir_why(v, uid, mode, why, cap);
    close(fd);
    *refused = 1;
    return UV_EACCES;
  }
  return fd;
}
#endif

/* A fresh name for the temporary file, "<record>.<16 hex digits>.tmp": the digits from the OS's
 * random source, so that no one else can have planted anything under it. */
static int temp_name(lw_hangrec_t *r, const char *record, size_t cap) {
  unsigned char bytes[8];
  char hex[17];
  int i, rc = uv_random(NULL, NULL, bytes, sizeof(bytes), 0, NULL);
  if (rc != 0) return rc;
  for (i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
  snprintf(r->tmp, cap, "%s.%s.tmp", record, hex);
  return 0;
}

/* The whole text to a temporary file, created anew (never through a link, never over a file
 * that exists), then renamed over the record. */
static int write_file(lw_hangrec_t *r, const char *text, size_t len) {
  uv_fs_t req;
  uv_buf_t b;
  int fd, rc;
  size_t done = 0;
#ifdef _WIN32
  /* CREATE_NEW: fails on any name that exists, a link included. */
  if ((rc = temp_name(r, r->path, strlen(r->dir) + 88)) != 0) return rc;
  fd = uv_fs_open(NULL, &req, r->tmp, UV_FS_O_WRONLY | UV_FS_O_CREAT | UV_FS_O_EXCL, 0600, NULL);
  uv_fs_req_cleanup(&req);
  if (fd < 0) return fd;
#else
  if ((rc = temp_name(r, r->name, strlen(r->dir) + 88)) != 0) return rc;
  fd = openat(r->dirfd, r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return uv_translate_sys_error(errno);
#endif
  rc = 0;
  while (done < len) {
    b = uv_buf_init((char *)text + done, (unsigned)(len - done));
    rc = uv_fs_write(NULL, &req, fd, &b, 1, -1, NULL);
    uv_fs_req_cleanup(&req);
    if (rc <= 0) {
      rc = rc == 0 ? UV_EIO : rc;
      break;
    }
    done += (size_t)rc;
    rc = 0;
  }
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
#ifdef _WIN32
  if (rc == 0) {
    rc = uv_fs_rename(NULL, &req, r->tmp, r->path, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    uv_fs_unlink(NULL, &req, r->tmp, NULL);
    uv_fs_req_cleanup(&req);
  }
#else
  /* A rename replaces whatever has the record's name (a link itself, not its target). */
  if (rc == 0 && renameat(r->dirfd, r->tmp, r->dirfd, r->name) != 0) rc = uv_translate_sys_error(errno);
  if (rc != 0) unlinkat(r->dirfd, r->tmp, 0);
#endif
  return rc;
}

/* The directory for this hang's first write: refused ones counted, once per hang. Returns 0 when
 * records can be written. */
static int ready_dir(lw_hangrec_t *r) {
  char why[sizeof(r->refused_why)];
  int rc;
  if (r->refused_now) return 1;
#ifdef _WIN32
  rc = judge_entry(r->dir, why, sizeof(why));
  if (rc == UV_ENOENT) rc = make_dir(r->dir);
  if (rc < 0) {
    failed(r, rc);
    return 1;
  }
  if (rc == 0) return 0;
#else
  int refused = 0;
  if (r->dirfd >= 0) return 0;
  rc = open_dir(r, why, sizeof(why), &refused);
  if (rc >= 0) {
    r->dirfd = rc;
    return 0;
  }
  if (!refused) {
    failed(r, rc);
    return 1;
  }
#endif
  r->refused_now = 1;
  if (lw_atomic_load(&r->refused) == 0) memcpy(r->refused_why, why, sizeof(why));
  lw_atomic_store(&r->refused, lw_atomic_load(&r->refused) + 1);
  return 1;
}

static void write_record(lw_hangrec_t *r, const lw_worker_t *w, double now) {
  lw_msg_t peek;
  lw_hang_cause_t h;
  lw_causes_t none;
  lw_cause_t cause;
  long stack_len;
  int len, rc;
  if (!lw_worker_hang_peek(w, now, &peek)) return;
  /* The buffers, at the first hang (most sets never see one); kept until the set goes. */
  if (r->buf == NULL) {
    r->cap = FIXED_MAX + strlen(r->process) + LW_HANGREC_STACK_MAX;
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
  len = lw_hangrec_format(r->buf, r->cap, r->process, r->wall_origin, &peek, &cause,
                          stack_len >= 0 ? r->stack : NULL, stack_len == -2, now);
  if (len < 0) {
    failed(r, UV_ENOBUFS);
    return;
  }
  if (ready_dir(r) != 0) return;
  rc = write_file(r, r->buf, (size_t)len);
  if (rc != 0) {
    failed(r, rc);
    return;
  }
  r->exists = 1;
}

/* The hang is over: its record removed, its directory let go (judged again at the next hang). */
static void clear_locked(lw_hangrec_t *r) {
  int rc = 0;
  r->refused_now = 0;
  if (r->exists) {
    r->exists = 0;
#ifdef _WIN32
    {
      uv_fs_t req;
      rc = uv_fs_unlink(NULL, &req, r->path, NULL);
      uv_fs_req_cleanup(&req);
    }
#else
    if (r->dirfd >= 0 && unlinkat(r->dirfd, r->name, 0) != 0) rc = uv_translate_sys_error(errno);
#endif
    if (rc != 0 && rc != UV_ENOENT) failed(r, rc);
  }
#ifndef _WIN32
  if (r->dirfd >= 0) close(r->dirfd);
  r->dirfd = -1;
#endif
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
    write_record(r, w, now);
    /* On a fixed cadence from the detection: a late worker run delays one refresh, not all. */
    r->due = started ? now + LW_HANGREC_REFRESH_MS / 2 : r->due + LW_HANGREC_REFRESH_MS;
    if (r->due <= now) r->due = now + LW_HANGREC_REFRESH_MS / 2;
  }
  uv_mutex_unlock(&r->mu);
}
