/* Parsers of what Linux tells about a thread's scheduling and its cgroup's CPU quota (SPEC §12).
 * Pure functions over the text of a file: no I/O here (threadtimes.c reads the files), so that
 * the C tests run them on fixtures, malformed ones included. Each returns 0 on success and -1
 * when the text is not what it should be, writing nothing then.
 *
 * - /proc/<pid>/task/<tid>/schedstat: "<ns on a CPU> <ns runnable, waiting on a run queue>
 *   <timeslices>".
 * - cgroup cpu.stat: v2 (unified) has `throttled_usec <µs>`; v1 (the `cpu` controller) has
 *   `throttled_time <ns>`. Either is the time the group's runnable threads were held back by its
 *   quota (cpu.max, or cpu.cfs_quota_us / cpu.cfs_period_us).
 * - Which cpu.stat is the process's: /proc/self/cgroup names its group per hierarchy
 *   ("<id>:<controllers>:<path>", v2 as "0::<path>"), /proc/self/mountinfo where each hierarchy
 *   is mounted ("<id> <parent> <dev> <root> <mount point> <options> ... - <fstype> <source>
 *   <super options>"). The v1 `cpu` controller is preferred when it is mounted (a v2 line then
 *   names an empty unified hierarchy); else the v2 group; none: -1.
 */
#ifndef LW_PLATFORM_PROCFS_H_
#define LW_PLATFORM_PROCFS_H_

#include <stddef.h>

int lw_procfs_schedstat(const char *text, double *cpu_ms, double *runq_ms);
int lw_procfs_cpu_stat(const char *text, double *throttled_ms);
/* Writes the path of the process's cpu.stat to `out` (NUL-terminated, at most `cap` bytes). */
int lw_procfs_cgroup_cpu_stat(const char *cgroup, const char *mountinfo, char *out, size_t cap);

#endif /* LW_PLATFORM_PROCFS_H_ */
