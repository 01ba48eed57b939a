/* A thread's cumulative times by scheduler state (SPEC §12), read from any thread.
 *
 * - Linux: /proc/self/task/<tid>/schedstat (on a CPU, waiting on a run queue) and, for the main
 *   thread, its cgroup's cpu.stat (time held back by a CPU quota; v1 or v2, see procfs.h). The
 *   files are opened once, by the thread itself; each read is one pread per file.
 * - macOS: thread_info(THREAD_BASIC_INFO) of the thread's port: CPU time only.
 * - Windows: GetThreadTimes of a handle opened by the thread itself: CPU time only (its
 *   granularity is the scheduler's tick, 15.6 ms by default).
 * Unknown times are NAN.
 */
#ifndef LW_PLATFORM_THREADTIMES_H_
#define LW_PLATFORM_THREADTIMES_H_

#include "atomic.h"
#include "times.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <mach/mach.h>
#endif

typedef struct lw_thread_src_s {
  int open;
#if defined(_WIN32)
  HANDLE thread;
#elif defined(__APPLE__)
  mach_port_t thread;
#else
  int schedstat_fd;
  /* The cgroup's cpu.stat, -1: none. Swapped by lw_thread_src_renew_cgroup() while another
   * thread may read: the fd it replaces stays open (retired_fd) until the next swap or close. */
  lw_atomic_i64 cpustat_fd;
  int retired_fd;
  uint64_t cgroup_sig; /* a hash of /proc/self/cgroup when cpustat_fd was found; 0: not looked */
  long tid;
#endif
} lw_thread_src_t;

/* Opens the calling thread's sources (`with_cgroup`: its cgroup's cpu.stat too). Returns 0, or
 * -1 if nothing can be read on this platform (the source then reads nothing). */
int lw_thread_src_open_self(lw_thread_src_t *s, int with_cgroup);
/* The process may have moved to another cgroup since `s` was opened with its cpu.stat (a
 * container runtime, systemd, a test): reads /proc/self/cgroup again (one small read) and, if it
 * changed, finds and opens the new group's cpu.stat in place of the old. One thread at a time
 * (the one that renews); others may read meanwhile. Returns 1 if the group changed, else 0. */
int lw_thread_src_renew_cgroup(lw_thread_src_t *s);
/* 1 if `s` is open for the calling thread (a worker thread restarted is another thread). */
int lw_thread_src_is_self(const lw_thread_src_t *s);
void lw_thread_src_close(lw_thread_src_t *s);
/* Reads the times; returns 0, or -1 if the thread's times cannot be read (then nothing is
 * written). Safe from any thread while `s` is open. */
int lw_thread_src_read(const lw_thread_src_t *s, lw_thread_times_t *out);

#endif /* LW_PLATFORM_THREADTIMES_H_ */
