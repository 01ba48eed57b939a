/* Files of the user's own: see ownfiles.h. */
#include "ownfiles.h"

#include <stdio.h>
#include <string.h>
#include <uv.h>

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "../core/common.h"
#include "../core/statedir.h"

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

int lw_owndir_check(const char *dir, char *why, size_t cap) {
  int rc = judge_entry(dir, why, cap);
  return rc == UV_ENOENT ? 0 : rc;
}

static char *dup_text(const char *s) {
  size_t n = strlen(s);
  char *d = lw__malloc(n + 1);
  if (d != NULL) memcpy(d, s, n + 1);
  return d;
}

/* The status of an open directory judged. Returns 0, 1 refused (`why` filled) or a libuv error. */
#ifndef _WIN32
static int judge_fd(int fd, char *why, size_t cap) {
  uv_fs_t st;
  lw_dir_verdict_t v;
  unsigned long uid, mode;
  /* libuv's fstat, not glibc's: glibc 2.33 made fstat a symbol of its own version, which a
   * prebuild must not need (scripts/prebuild.js holds every symbol to GLIBC_2.17). */
  int rc = uv_fs_fstat(NULL, &st, fd, NULL);
  uid = (unsigned long)st.statbuf.st_uid;
  mode = (unsigned long)st.statbuf.st_mode;
  uv_fs_req_cleanup(&st);
  if (rc != 0) return rc;
  v = lw_statedir_verdict(0, S_ISDIR(mode), uid, mode, (unsigned long)geteuid(), 1);
  if (v == LW_DIR_OK) return 0;
  lw_statedir_why(v, uid, mode, why, cap);
  return 1;
}
#endif

#ifdef _WIN32
static int make_dir_copy(const char *dir) {
  char *copy = dup_text(dir);
  int rc;
  if (copy == NULL) return UV_ENOMEM;
  rc = make_dir(copy);
  lw__free(copy);
  return rc;
}
#else
/* Opened without following a link and judged on what was opened (a directory swapped between
 * a look and the open is judged as it is). Returns an open descriptor, 1 refused, or a libuv
 * error. */
static int open_judged(const char *dir, int make, char *why, size_t cap) {
  int fd, rc;
  fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && make) {
    char *copy = dup_text(dir);
    if (copy == NULL) return UV_ENOMEM;
    rc = make_dir(copy);
    lw__free(copy);
    if (rc != 0) return rc;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    rc = uv_translate_sys_error(errno);
    /* A link, or not a directory: said as the entry is. */
    if (judge_entry(dir, why, cap) == 1) return -1;
    return rc < 0 ? rc : UV_EIO;
  }
  rc = judge_fd(fd, why, cap);
  if (rc != 0) {
    close(fd);
    return rc == 1 ? -1 : rc;
  }
  return fd;
}
#endif

int lw_owndir_open(lw_owndir_t *d, const char *dir, int make, char *why, size_t cap) {
  int rc;
  d->path = NULL;
  d->fd = -1;
#ifdef _WIN32
  rc = judge_entry(dir, why, cap);
  if (rc == UV_ENOENT && make) rc = make_dir_copy(dir);
  if (rc != 0) return rc;
#else
  rc = open_judged(dir, make, why, cap);
  if (rc == -1) return 1;
  if (rc < 0) return rc;
  d->fd = rc;
#endif
  d->path = dup_text(dir);
  if (d->path == NULL) {
    lw_owndir_close(d);
    return UV_ENOMEM;
  }
  return 0;
}

int lw_owndir_recheck(lw_owndir_t *d, char *why, size_t cap) {
  if (d->path == NULL) return UV_EBADF;
#ifdef _WIN32
  return judge_entry(d->path, why, cap);
#else
  return judge_fd(d->fd, why, cap);
#endif
}

void lw_owndir_close(lw_owndir_t *d) {
#ifndef _WIN32
  if (d->fd >= 0) close(d->fd);
#endif
  d->fd = -1;
  lw__free(d->path);
  d->path = NULL;
}

/* A fresh name for the temporary file, "<name>.<16 hex digits>.tmp": the digits from the OS's
 * random source, so that no one else can have planted anything under it. */
static int temp_name(char *out, size_t cap, const char *name) {
  unsigned char bytes[8];
  char hex[17];
  int i, rc = uv_random(NULL, NULL, bytes, sizeof(bytes), 0, NULL);
  if (rc != 0) return rc;
  for (i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
  if ((size_t)snprintf(out, cap, "%s.%s.tmp", name, hex) >= cap) return UV_ENAMETOOLONG;
  return 0;
}

static int write_all(int fd, const char *text, size_t len) {
  uv_fs_t req;
  uv_buf_t b;
  size_t done = 0;
  int rc;
  while (done < len) {
    b = uv_buf_init((char *)text + done, (unsigned)(len - done));
    rc = uv_fs_write(NULL, &req, fd, &b, 1, -1, NULL);
    uv_fs_req_cleanup(&req);
    if (rc <= 0) return rc == 0 ? UV_EIO : rc;
    done += (size_t)rc;
  }
  return 0;
}

#ifdef _WIN32
/* Path-based: the directory judged again, then `<dir>\<name>`. */
static int full_path(const lw_owndir_t *d, const char *name, char *out, size_t cap) {
  char why[128];
  int rc = judge_entry(d->path, why, sizeof(why));
  if (rc == 1) return UV_EACCES;
  if (rc != 0) return rc;
  if ((size_t)snprintf(out, cap, "%s\\%s", d->path, name) >= cap) return UV_ENAMETOOLONG;
  return 0;
}

int lw_owndir_write(lw_owndir_t *d, const char *name, const char *text, size_t len) {
  uv_fs_t req;
  char path[4200], tmp[4240];
  int fd, rc;
  if (d->path == NULL) return UV_EBADF;
  if ((rc = full_path(d, name, path, sizeof(path))) != 0) return rc;
  if ((rc = temp_name(tmp, sizeof(tmp), path)) != 0) return rc;
  /* CREATE_NEW: fails on any name that exists, a link included. */
  fd = uv_fs_open(NULL, &req, tmp, UV_FS_O_WRONLY | UV_FS_O_CREAT | UV_FS_O_EXCL, 0600, NULL);
  uv_fs_req_cleanup(&req);
  if (fd < 0) return fd;
  rc = write_all(fd, text, len);
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  if (rc == 0) {
    rc = uv_fs_rename(NULL, &req, tmp, path, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    uv_fs_unlink(NULL, &req, tmp, NULL);
    uv_fs_req_cleanup(&req);
  }
  return rc;
}

int lw_owndir_unlink(lw_owndir_t *d, const char *name) {
  uv_fs_t req;
  char path[4200];
  int rc;
  if (d->path == NULL) return UV_EBADF;
  if ((size_t)snprintf(path, sizeof(path), "%s\\%s", d->path, name) >= sizeof(path)) return UV_ENAMETOOLONG;
  rc = uv_fs_unlink(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
  return rc;
}
#else
int lw_owndir_write(lw_owndir_t *d, const char *name, const char *text, size_t len) {
  uv_fs_t req;
  char tmp[320];
  int fd, rc;
  if (d->fd < 0) return UV_EBADF;
  if ((rc = temp_name(tmp, sizeof(tmp), name)) != 0) return rc;
  fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return uv_translate_sys_error(errno);
  rc = write_all(fd, text, len);
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  if (rc == 0 && renameat(d->fd, tmp, d->fd, name) != 0) rc = uv_translate_sys_error(errno);
  if (rc != 0) unlinkat(d->fd, tmp, 0);
  return rc;
}

int lw_owndir_unlink(lw_owndir_t *d, const char *name) {
  if (d->fd < 0) return UV_EBADF;
  return unlinkat(d->fd, name, 0) != 0 ? uv_translate_sys_error(errno) : 0;
}
#endif
