/* The record of a running hang (src/driver/hangrec.c), with real files in a temporary directory
 * and the worker driven by hand: the directory made and opened at setup, the record written when
 * the hang is flagged, refreshed half a second later and then every second on a fixed cadence,
 * removed when the hang ends; nothing while the loop is healthy; a failed write counted; the JSON
 * bounded; never written through a link planted in the directory; the directory opened at setup
 * kept when its path is swapped; a directory that is a link or writable by others refused,
 * nothing written there (SPEC §13). */
#include "core/statedir.h"
#include "driver/hangrec.h"
#include "fixture-monitors.h"
#include "fixture-worker.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

static int dir_mode(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? (int)(st.st_mode & 0777) : -1;
}

static int dir_empty(const char *p) {
  DIR *d = opendir(p);
  struct dirent *e;
  int n = 0;
  if (d == NULL) return 0;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  closedir(d);
  return n == 0;
}

static void slurp(const char *p, char *buf, size_t cap) {
  FILE *f = fopen(p, "r");
  size_t n = 0;
  if (f != NULL) {
    n = fread(buf, 1, cap - 1, f);
    fclose(f);
  }
  buf[n] = '\0';
}

TEST_IMPL(hangrec_format_bounded) {
  lw_msg_t peek;
  lw_cause_t cause;
  char buf[1024], small[64];
  int n;
  memset(&peek, 0, sizeof(peek));
  memset(&cause, 0, sizeof(cause));
  peek.hang_start = 1000;
  peek.detected_at = 6000;
  cause.known = 1;
  cause.cpu_ms = 4000;
  cause.runq_ms = 500;
  cause.throttled_ms = NAN;
  cause.blocked_ms = 0;
  cause.gc_ms = NAN;
  cause.span_ms = 4500;
  cause.dominant = LW_CAUSE_BUSY;
  n = lw_hangrec_format(buf, sizeof(buf), "\"process\":{\"pid\":7}", 1.5e12, &peek, &cause, "[{\"f\":1}]", 0, 6500, 0);
  ASSERT(n > 0 && (size_t)n == strlen(buf));
  ASSERT(strstr(buf, "\"process\":{\"pid\":7}") != NULL);
  ASSERT(strstr(buf, "\"start\":1000,") != NULL);
  ASSERT(strstr(buf, "\"lastSeen\":6500,") != NULL);
  ASSERT(strstr(buf, "\"dominant\":\"busy\"") != NULL);
  ASSERT(strstr(buf, "\"throttledMs\":null") != NULL);
  ASSERT(strstr(buf, "\"stack\":[{\"f\":1}]}") != NULL);
  ASSERT(strstr(buf, "\"ended\"") == NULL);
  /* Unknown cause, no stack, the thread terminated. */
  cause.known = 0;
  n = lw_hangrec_format(buf, sizeof(buf), "\"process\":{}", 0, &peek, &cause, NULL, 1, 6500, 1);
  ASSERT(n > 0);
  ASSERT(strstr(buf, "\"cause\":null") != NULL);
  ASSERT(strstr(buf, "\"stackLeftOut\":true,\"stack\":null}") != NULL);
  ASSERT(strstr(buf, "{\"lagwatchHang\":1,\"process\":{},\"ended\":\"terminated\",") == buf);
  /* Too small: -1, never a part. */
  ASSERT_EQ(lw_hangrec_format(small, sizeof(small), "\"process\":{}", 0, &peek, &cause, NULL, 0, 6500, 0), -1);
  return 0;
}

TEST_IMPL(hangrec_written_refreshed_removed) {
  cfx_t x;
  lw_hangrec_t r;
  lw_msg_t log[256];
  size_t n = 0, i, at;
  double t;
  char base[] = "/tmp/lagwatch-hangrec-XXXXXX", dir[256], path[400], text[4096];
  ASSERT_NOT_NULL(mkdtemp(base));
  snprintf(dir, sizeof(dir), "%s/a/b", base); /* made at setup, mode 0700 */
  cfx_init(&x);
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{\"pid\":42}", 1e12, 7, 42), LW_OK);
  ASSERT(dir_mode(dir) == 0700);
  ASSERT_EQ(strncmp(r.name, "hang-42-7-", 10), 0);
  ASSERT_EQ(strlen(r.name), strlen("hang-42-7-01234567.json"));
  snprintf(path, sizeof(path), "%s/%s", dir, r.name);
  /* Healthy: progress at every check, nothing written. */
  for (t = 100; t <= 1000; t += 100) {
    at = n;
    run(&x, t, t, log, &n);
    lw_hangrec_update(&r, log + at, n - at, &x.m.worker, t);
  }
  ASSERT(dir_empty(dir));
  /* A hang from 1000: flagged at 6000, written then. */
  for (t = 1100; t <= 6000; t += 100) {
    at = n;
    run(&x, t, 1000, log, &n);
    lw_hangrec_update(&r, log + at, n - at, &x.m.worker, t);
    if (t < 6000) ASSERT(!file_exists(path));
  }
  ASSERT(file_exists(path));
  slurp(path, text, sizeof(text));
  ASSERT(strstr(text, "\"start\":1000,\"detectedAt\":6000,\"lastSeen\":6000,") != NULL);
  /* Refreshed at 6500, then 7500 even if the run due then comes late (7650), then 8500. */
  for (t = 6100; t <= 8500; t += 100) {
    double now = t == 7500 ? 7650 : t;
    if (t == 7600) continue;
    at = n;
    run(&x, now, 1000, log, &n);
    lw_hangrec_update(&r, log + at, n - at, &x.m.worker, now);
    slurp(path, text, sizeof(text));
    if (t == 6400) ASSERT(strstr(text, "\"lastSeen\":6000,") != NULL);
    if (t == 6500) ASSERT(strstr(text, "\"lastSeen\":6500,") != NULL);
    if (t == 7400) ASSERT(strstr(text, "\"lastSeen\":6500,") != NULL);
    if (t == 7500) ASSERT(strstr(text, "\"lastSeen\":7650,") != NULL);
    if (t == 8400) ASSERT(strstr(text, "\"lastSeen\":7650,") != NULL);
    if (t == 8500) ASSERT(strstr(text, "\"lastSeen\":8500,") != NULL);
  }
  ASSERT(strstr(text, "\"dominant\":") != NULL);
  /* The hang ends: removed. */
  at = n;
  x.t.main.cpu_ms += 7500;
  run(&x, 8600, 8550, log, &n);
  for (i = at; i < n; i++) ASSERT(log[i].type != LW_MSG_HANG_START);
  ASSERT(n > at && log[n - 1].type == LW_MSG_HANG_END);
  lw_hangrec_update(&r, log + at, n - at, &x.m.worker, 8600);
  ASSERT(!file_exists(path));
  ASSERT_EQ(lw_atomic_load(&r.errors), 0);
  lw_hangrec_free(&r);
  cfx_free(&x);
  /* A directory that cannot be made (under a file): the write fails, counted, nothing else. */
  snprintf(path, sizeof(path), "%s/file", base);
  {
    FILE *f = fopen(path, "w");
    ASSERT_NOT_NULL(f);
    fclose(f);
  }
  snprintf(dir, sizeof(dir), "%s/file/sub", base);
  n = 0;
  cfx_init(&x);
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{}", 0, 1, 1), LW_OK);
  for (t = 100; t <= 6000; t += 100) {
    at = n;
    run(&x, t, 50, log, &n);
    lw_hangrec_update(&r, log + at, n - at, &x.m.worker, t);
  }
  /* Tried when flagged (5050) and at the refresh (5550): on the cadence, never more often. */
  ASSERT_EQ(lw_atomic_load(&r.errors), 2);
  ASSERT(lw_atomic_load(&r.first_error) != 0);
  lw_hangrec_free(&r);
  cfx_free(&x);
  unlink(path);
  snprintf(path, sizeof(path), "%s/a/b", base);
  rmdir(path);
  snprintf(path, sizeof(path), "%s/a", base);
  rmdir(path);
  rmdir(base);
  return 0;
}

/* Drives a hang from 50 until it is flagged and past its first refresh (6000), handing each run
 * to the record. */
static void hang_until_6000(lw_hangrec_t *r) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0, at;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 6000; t += 100) {
    at = n;
    run(&x, t, 50, log, &n);
    lw_hangrec_update(r, log + at, n - at, &x.m.worker, t);
  }
  cfx_free(&x);
}

/* The thread terminated while the worker sees its hang: the record written as of the termination,
 * "ended":"terminated", and left when the set goes; without a hang, nothing. */
TEST_IMPL(hangrec_terminated_kept) {
  cfx_t x;
  lw_hangrec_t r;
  lw_msg_t log[256];
  size_t n = 0, at;
  double t;
  char base[] = "/tmp/lagwatch-hangrec-XXXXXX", dir[256], path[400], text[4096];
  ASSERT_NOT_NULL(mkdtemp(base));
  snprintf(dir, sizeof(dir), "%s/state", base);
  cfx_init(&x);
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{\"pid\":42},\"thread\":{\"id\":3,\"name\":\"pool\"}", 1e12, 7, 42), LW_OK);
  snprintf(path, sizeof(path), "%s/%s", dir, r.name);
  /* Healthy: terminated without a hang, nothing written. */
  for (t = 100; t <= 1000; t += 100) {
    at = n;
    run(&x, t, t, log, &n);
    lw_hangrec_update(&r, log + at, n - at, &x.m.worker, t);
  }
  lw_hangrec_terminated(&r, &x.m.worker, 1000);
  ASSERT(dir_empty(dir));
  /* A hang from 1000, flagged at 6000, terminated at 7200. */
  for (t = 1100; t <= 7000; t += 100) {
    at = n;
    run(&x, t, 1000, log, &n);
    lw_hangrec_update(&r, log + at, n - at, &x.m.worker, t);
  }
  lw_hangrec_terminated(&r, &x.m.worker, 7200);
  lw_hangrec_free(&r);
  ASSERT(file_exists(path));
  slurp(path, text, sizeof(text));
  ASSERT(strstr(text, "\"thread\":{\"id\":3,\"name\":\"pool\"},\"ended\":\"terminated\",") != NULL);
  ASSERT(strstr(text, "\"start\":1000,\"detectedAt\":6000,\"lastSeen\":7200,") != NULL);
  cfx_free(&x);
  ASSERT_EQ(unlink(path), 0);
  ASSERT_EQ(rmdir(dir), 0);
  ASSERT_EQ(rmdir(base), 0);
  return 0;
}

/* Links planted at the record's name and at the temporary names a writer could guess, each to a
 * file of the user's: written through none of them, the record still written (over the link at
 * its own name, which a rename replaces). */
TEST_IMPL(hangrec_never_through_link) {
  lw_hangrec_t r;
  struct stat st;
  char base[] = "/tmp/lagwatch-hangrec-XXXXXX", dir[256], target[300], p[700], text[4096];
  char names[3][100];
  size_t i;
  ASSERT_NOT_NULL(mkdtemp(base));
  snprintf(dir, sizeof(dir), "%s/state", base);
  ASSERT_EQ(mkdir(dir, 0700), 0);
  snprintf(target, sizeof(target), "%s/precious", base);
  {
    FILE *f = fopen(target, "w");
    ASSERT_NOT_NULL(f);
    fputs("precious", f);
    fclose(f);
  }
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{\"pid\":42}", 1e12, 7, 42), LW_OK);
  snprintf(names[0], sizeof(names[0]), "%s", r.name);
  snprintf(names[1], sizeof(names[1]), "%s.tmp", r.name);
  snprintf(names[2], sizeof(names[2]), "hang-42-7.json");
  for (i = 0; i < 3; i++) {
    snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
    ASSERT_EQ(symlink(target, p), 0);
  }
  hang_until_6000(&r);
  slurp(target, text, sizeof(text));
  ASSERT_EQ(strcmp(text, "precious"), 0);
  snprintf(p, sizeof(p), "%s/%s", dir, names[0]);
  ASSERT_EQ(lstat(p, &st), 0);
  ASSERT(S_ISREG(st.st_mode));
  ASSERT_EQ(st.st_mode & 0777, 0600);
  slurp(p, text, sizeof(text));
  ASSERT(strstr(text, "\"lagwatchHang\":1") != NULL);
  ASSERT_EQ(lw_atomic_load(&r.errors), 0);
  lw_hangrec_free(&r);
  slurp(target, text, sizeof(text));
  ASSERT_EQ(strcmp(text, "precious"), 0);
  ASSERT(!file_exists(p));
  for (i = 1; i < 3; i++) {
    snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
    ASSERT_EQ(unlink(p), 0);
  }
  ASSERT_EQ(rmdir(dir), 0);
  ASSERT_EQ(unlink(target), 0);
  ASSERT_EQ(rmdir(base), 0);
  return 0;
}

/* The directory is the one opened at setup: moved away and replaced at its path by a link to
 * another directory (or by another directory) after setup, the record still goes to the one
 * opened, nothing to what now has its path. */
TEST_IMPL(hangrec_dir_swapped_after_setup) {
  lw_hangrec_t r;
  char base[] = "/tmp/lagwatch-hangrec-XXXXXX", dir[256], moved[256], other[256], p[400];
  ASSERT_NOT_NULL(mkdtemp(base));
  snprintf(dir, sizeof(dir), "%s/state", base);
  snprintf(moved, sizeof(moved), "%s/moved", base);
  snprintf(other, sizeof(other), "%s/other", base);
  ASSERT_EQ(mkdir(other, 0700), 0);
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{\"pid\":42}", 1e12, 7, 42), LW_OK);
  ASSERT_EQ(rename(dir, moved), 0);
  ASSERT_EQ(symlink(other, dir), 0);
  hang_until_6000(&r);
  ASSERT(dir_empty(other));
  snprintf(p, sizeof(p), "%s/%s", moved, r.name);
  ASSERT(file_exists(p));
  ASSERT_EQ(lw_atomic_load(&r.errors), 0);
  ASSERT_EQ(lw_atomic_load(&r.refused), 0);
  lw_hangrec_free(&r);
  ASSERT(!file_exists(p));
  ASSERT_EQ(unlink(dir), 0);
  ASSERT_EQ(rmdir(moved), 0);
  ASSERT_EQ(rmdir(other), 0);
  ASSERT_EQ(rmdir(base), 0);
  return 0;
}

/* A directory refused at setup (writable by others, or a link to one of the user's own): nothing
 * written, one refusal counted per hang with its reason, no write error. */
TEST_IMPL(hangrec_refused_dir) {
  lw_hangrec_t r;
  char base[] = "/tmp/lagwatch-hangrec-XXXXXX", dir[256], real[256], why[128];
  ASSERT_NOT_NULL(mkdtemp(base));
  snprintf(dir, sizeof(dir), "%s/open", base);
  ASSERT_EQ(mkdir(dir, 0700), 0);
  ASSERT_EQ(chmod(dir, 0777), 0);
  ASSERT_EQ(lw_hangrec_check_dir(dir, why, sizeof(why)), 1);
  ASSERT_EQ(strcmp(why, "mode 0777, writable by group or others"), 0);
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{}", 0, 1, 1), LW_OK);
  hang_until_6000(&r);
  ASSERT_EQ(lw_atomic_load(&r.refused), 1);
  ASSERT_EQ(strcmp(r.refused_why, "mode 0777, writable by group or others"), 0);
  ASSERT_EQ(lw_atomic_load(&r.errors), 0);
  lw_hangrec_free(&r);
  ASSERT_EQ(rmdir(dir), 0); /* empty: nothing was written */
  /* Made writable by others after setup: refused at the hang. */
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{}", 0, 1, 1), LW_OK);
  ASSERT_EQ(chmod(dir, 0777), 0);
  hang_until_6000(&r);
  ASSERT_EQ(lw_atomic_load(&r.refused), 1);
  ASSERT_EQ(strcmp(r.refused_why, "mode 0777, writable by group or others"), 0);
  ASSERT_EQ(lw_atomic_load(&r.errors), 0);
  lw_hangrec_free(&r);
  ASSERT_EQ(rmdir(dir), 0);
  /* A link to a directory of the user's own: refused as a link, never followed. */
  snprintf(real, sizeof(real), "%s/real", base);
  ASSERT_EQ(mkdir(real, 0700), 0);
  snprintf(dir, sizeof(dir), "%s/link", base);
  ASSERT_EQ(symlink(real, dir), 0);
  ASSERT_EQ(lw_hangrec_check_dir(dir, why, sizeof(why)), 1);
  ASSERT_EQ(strcmp(why, "a symbolic link"), 0);
  ASSERT_EQ(lw_hangrec_init(&r), LW_OK);
  ASSERT_EQ(lw_hangrec_configure(&r, dir, "\"process\":{}", 0, 1, 1), LW_OK);
  hang_until_6000(&r);
  ASSERT_EQ(lw_atomic_load(&r.refused), 1);
  ASSERT_EQ(strcmp(r.refused_why, "a symbolic link"), 0);
  lw_hangrec_free(&r);
  ASSERT_EQ(rmdir(real), 0);
  ASSERT_EQ(unlink(dir), 0);
  /* Not there yet: allowed (made with mode 0700 at the first write). */
  ASSERT_EQ(lw_hangrec_check_dir(dir, why, sizeof(why)), 0);
  ASSERT_EQ(rmdir(base), 0);
  return 0;
}

/* The rule itself (src/core/statedir.h). */
TEST_IMPL(statedir_verdict) {
  char why[64];
  ASSERT_EQ(lw_statedir_verdict(0, 1, 1000, 040700, 1000, 1), LW_DIR_OK);
  ASSERT_EQ(lw_statedir_verdict(0, 1, 1000, 040755, 1000, 1), LW_DIR_OK);
  ASSERT_EQ(lw_statedir_verdict(1, 0, 1000, 0120777, 1000, 1), LW_DIR_LINK);
  ASSERT_EQ(lw_statedir_verdict(0, 0, 1000, 0100600, 1000, 1), LW_DIR_NOT_DIR);
  ASSERT_EQ(lw_statedir_verdict(0, 1, 65534, 040700, 1000, 1), LW_DIR_OWNER);
  ASSERT_EQ(lw_statedir_verdict(0, 1, 1000, 040770, 1000, 1), LW_DIR_MODE);
  ASSERT_EQ(lw_statedir_verdict(0, 1, 1000, 040702, 1000, 1), LW_DIR_MODE);
  ASSERT_EQ(lw_statedir_verdict(0, 1, 1000, 041777, 1000, 1), LW_DIR_MODE);
  /* No owner or mode told (Windows): the kind alone. */
  ASSERT_EQ(lw_statedir_verdict(0, 1, 0, 040777, 1000, 0), LW_DIR_OK);
  ASSERT_EQ(lw_statedir_verdict(1, 0, 0, 0, 1000, 0), LW_DIR_LINK);
  lw_statedir_why(LW_DIR_OWNER, 65534, 040700, why, sizeof(why));
  ASSERT_EQ(strcmp(why, "owned by uid 65534"), 0);
  lw_statedir_why(LW_DIR_MODE, 1000, 040777, why, sizeof(why));
  ASSERT_EQ(strcmp(why, "mode 0777, writable by group or others"), 0);
  lw_statedir_why(LW_DIR_LINK, 0, 0, why, sizeof(why));
  ASSERT_EQ(strcmp(why, "a symbolic link"), 0);
  lw_statedir_why(LW_DIR_OK, 0, 0, why, sizeof(why));
  ASSERT_EQ(why[0], '\0');
  return 0;
}

/* A record of the directory: the user's own regular file within the size bound, or skipped. */
TEST_IMPL(statedir_record_verdict) {
  char why[64];
  ASSERT_EQ(lw_statedir_record_verdict(0, 1, 1000, 1000, 1, 2048), LW_DIR_OK);
  ASSERT_EQ(lw_statedir_record_verdict(0, 1, 1000, 1000, 1, LW_RECORD_MAX), LW_DIR_OK);
  ASSERT_EQ(lw_statedir_record_verdict(1, 0, 1000, 1000, 1, 20), LW_DIR_LINK);
  ASSERT_EQ(lw_statedir_record_verdict(0, 0, 1000, 1000, 1, 20), LW_REC_NOT_FILE);
  ASSERT_EQ(lw_statedir_record_verdict(0, 1, 65534, 1000, 1, 20), LW_DIR_OWNER);
  ASSERT_EQ(lw_statedir_record_verdict(0, 1, 1000, 1000, 1, LW_RECORD_MAX + 1), LW_REC_SIZE);
  /* No owner told (Windows): kind and size alone. */
  ASSERT_EQ(lw_statedir_record_verdict(0, 1, 0, 1000, 0, 20), LW_DIR_OK);
  lw_statedir_why(LW_REC_SIZE, 1000, 0, why, sizeof(why));
  ASSERT_EQ(strcmp(why, "larger than 131072 bytes"), 0);
  lw_statedir_why(LW_REC_NOT_FILE, 1000, 0, why, sizeof(why));
  ASSERT_EQ(strcmp(why, "not a regular file"), 0);
  return 0;
}
