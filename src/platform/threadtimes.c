#include "threadtimes.h"

#include <math.h>
#include <string.h>

#if defined(_WIN32)

int lw_thread_src_open_self(lw_thread_src_t *s, int with_cgroup) {
  (void)with_cgroup;
  memset(s, 0, sizeof(*s));
  s->thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, GetCurrentThreadId());
  if (s->thread == NULL) return -1;
  s->open = 1;
  return 0;
}

int lw_thread_src_is_self(const lw_thread_src_t *s) {
  return s->open && GetThreadId(s->thread) == GetCurrentThreadId();
}

void lw_thread_src_close(lw_thread_src_t *s) {
  if (s->open) CloseHandle(s->thread);
  memset(s, 0, sizeof(*s));
}

int lw_thread_src_read(const lw_thread_src_t *s, lw_thread_times_t *out) {
  FILETIME created, exited, kernel, user;
  ULARGE_INTEGER k, u;
  if (!s->open || !GetThreadTimes(s->thread, &created, &exited, &kernel, &user)) return -1;
  k.LowPart = kernel.dwLowDateTime;
  k.HighPart = kernel.dwHighDateTime;
  u.LowPart = user.dwLowDateTime;
  u.HighPart = user.dwHighDateTime;
  out->cpu_ms = (double)(k.QuadPart + u.QuadPart) / 1e4; /* 100 ns units */
  out->runq_ms = NAN;
  out->throttled_ms = NAN;
  return 0;
}

#elif defined(__APPLE__)

int lw_thread_src_open_self(lw_thread_src_t *s, int with_cgroup) {
  (void)with_cgroup;
  memset(s, 0, sizeof(*s));
  s->thread = mach_thread_self(); /* a send right, released by close */
  s->open = s->thread != MACH_PORT_NULL;
  return s->open ? 0 : -1;
}

int lw_thread_src_is_self(const lw_thread_src_t *s) {
  mach_port_t self;
  int same;
  if (!s->open) return 0;
  self = mach_thread_self();
  same = self == s->thread;
  mach_port_deallocate(mach_task_self(), self);
  return same;
}

void lw_thread_src_close(lw_thread_src_t *s) {
  if (s->open) mach_port_deallocate(mach_task_self(), s->thread);
  memset(s, 0, sizeof(*s));
}

int lw_thread_src_read(const lw_thread_src_t *s, lw_thread_times_t *out) {
  thread_basic_info_data_t info;
  mach_msg_type_number_t count = THREAD_BASIC_INFO_COUNT;
  if (!s->open ||
      thread_info(s->thread, THREAD_BASIC_INFO, (thread_info_t)&info, &count) != KERN_SUCCESS)
    return -1;
  out->cpu_ms = (double)info.user_time.seconds * 1e3 + (double)info.user_time.microseconds / 1e3 +
                (double)info.system_time.seconds * 1e3 +
                (double)info.system_time.microseconds / 1e3;
  out->runq_ms = NAN;
  out->throttled_ms = NAN;
  return 0;
}

#elif defined(__linux__)

#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc.h" /* the one allocator, which tests make fail */
#include "procfs.h"

/* The sizes read of /proc/self/cgroup and /proc/self/mountinfo (the cgroup mounts come early). */
#define LW_CGROUP_MAX 4096
#define LW_MOUNTINFO_MAX 65536

static long self_tid(void) { return (long)syscall(SYS_gettid); }

/* Reads a small file whole into `buf` (NUL-terminated). */
static int slurp(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  size_t len = 0;
  ssize_t n;
  if (fd < 0) return -1;
  while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0) len += (size_t)n;
  close(fd);
  buf[len] = '\0';
  return 0;
}

static int pread_text(int fd, char *buf, size_t cap) {
  ssize_t n = pread(fd, buf, cap - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  return 0;
}

/* FNV-1a: tells whether /proc/self/cgroup changed, without keeping it. Never 0. */
static uint64_t text_sig(const char *t) {
  uint64_t h = 1469598103934665603ULL;
  for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211ULL;
  return h ? h : 1;
}

/* Finds the cpu.stat of the group that /proc/self/cgroup (`cg`) names, and opens it: an fd, or -1
 * (no memory for mountinfo, no such controller: the quota's part is unknown, NAN). */
static int cpustat_open(const char *cg) {
  char path[512];
  char *mi = lw__malloc(LW_MOUNTINFO_MAX);
  int fd = -1;
  if (mi != NULL && slurp("/proc/self/mountinfo", mi, LW_MOUNTINFO_MAX) == 0 &&
      lw_procfs_cgroup_cpu_stat(cg, mi, path, sizeof(path)) == 0)
    fd = open(path, O_RDONLY | O_CLOEXEC);
  lw__free(mi);
  return fd;
}

int lw_thread_src_open_self(lw_thread_src_t *s, int with_cgroup) {
  char path[512];
  memset(s, 0, sizeof(*s));
  s->schedstat_fd = -1;
  lw_atomic_store(&s->cpustat_fd, -1);
  s->retired_fd = -1;
  s->tid = self_tid();
  snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", s->tid);
  s->schedstat_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (s->schedstat_fd < 0) return -1;
  if (with_cgroup) {
    char *cg = lw__malloc(LW_CGROUP_MAX);
    if (cg != NULL && slurp("/proc/self/cgroup", cg, LW_CGROUP_MAX) == 0) {
      s->cgroup_sig = text_sig(cg);
      lw_atomic_store(&s->cpustat_fd, cpustat_open(cg));
    }
    lw__free(cg);
  }
  s->open = 1;
  return 0;
}

int lw_thread_src_renew_cgroup(lw_thread_src_t *s) {
  char cg[LW_CGROUP_MAX];
  uint64_t sig;
  int fd;
  if (!s->open || s->cgroup_sig == 0 || slurp("/proc/self/cgroup", cg, sizeof(cg)) != 0) return 0;
  sig = text_sig(cg);
  if (sig == s->cgroup_sig) return 0;
  s->cgroup_sig = sig;
  fd = cpustat_open(cg);
  if (s->retired_fd >= 0) close(s->retired_fd);
  s->retired_fd = (int)lw_atomic_load(&s->cpustat_fd);
  lw_atomic_store(&s->cpustat_fd, fd);
  return 1;
}

int lw_thread_src_is_self(const lw_thread_src_t *s) { return s->open && s->tid == self_tid(); }

void lw_thread_src_close(lw_thread_src_t *s) {
  if (s->open) {
    int fd = (int)lw_atomic_load(&s->cpustat_fd);
    if (s->schedstat_fd >= 0) close(s->schedstat_fd);
    if (fd >= 0) close(fd);
    if (s->retired_fd >= 0) close(s->retired_fd);
  }
  memset(s, 0, sizeof(*s));
  s->schedstat_fd = -1;
  lw_atomic_store(&s->cpustat_fd, -1);
  s->retired_fd = -1;
}

int lw_thread_src_read(const lw_thread_src_t *s, lw_thread_times_t *out) {
  char buf[1024];
  double cpu, runq, thr = NAN;
  int fd;
  if (!s->open || pread_text(s->schedstat_fd, buf, sizeof(buf)) != 0 ||
      lw_procfs_schedstat(buf, &cpu, &runq) != 0)
    return -1;
  fd = (int)lw_atomic_load((lw_atomic_i64 *)&s->cpustat_fd);
  if (fd >= 0 && (pread_text(fd, buf, sizeof(buf)) != 0 || lw_procfs_cpu_stat(buf, &thr) != 0))
    thr = NAN;
  out->cpu_ms = cpu;
  out->runq_ms = runq;
  out->throttled_ms = thr;
  return 0;
}

#else

int lw_thread_src_open_self(lw_thread_src_t *s, int with_cgroup) {
  (void)with_cgroup;
  memset(s, 0, sizeof(*s));
  return -1;
}
int lw_thread_src_is_self(const lw_thread_src_t *s) {
  (void)s;
  return 0;
}
void lw_thread_src_close(lw_thread_src_t *s) { memset(s, 0, sizeof(*s)); }
int lw_thread_src_read(const lw_thread_src_t *s, lw_thread_times_t *out) {
  (void)s;
  (void)out;
  return -1;
}

#endif

#if !defined(__linux__)
/* Only Linux reads a cgroup. */
int lw_thread_src_renew_cgroup(lw_thread_src_t *s) {
  (void)s;
  return 0;
}
#endif
