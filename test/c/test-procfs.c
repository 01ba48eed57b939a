/* SPEC §12: the parsers of Linux's schedstat, cgroup cpu.stat, /proc/self/cgroup and mountinfo
 * (src/platform/procfs.c) on fixtures, malformed ones included: -1, nothing written, never a
 * crash. */
#include "platform/procfs.h"
#include "test.h"

#include <string.h>

TEST_IMPL(procfs_schedstat_fixtures) {
  double cpu = -1, runq = -1;
  ASSERT_EQ(lw_procfs_schedstat("342971499 2665419 17\n", &cpu, &runq), 0);
  ASSERT_DBL_EQ(cpu, 342.971499);
  ASSERT_DBL_EQ(runq, 2.665419);
  ASSERT_EQ(lw_procfs_schedstat("0 0 1", &cpu, &runq), 0);
  ASSERT_DBL_EQ(cpu, 0);
  /* Malformed: nothing written. */
  cpu = runq = -1;
  ASSERT_EQ(lw_procfs_schedstat("", &cpu, &runq), -1);
  ASSERT_EQ(lw_procfs_schedstat("12", &cpu, &runq), -1);
  ASSERT_EQ(lw_procfs_schedstat("abc def 1", &cpu, &runq), -1);
  ASSERT_EQ(lw_procfs_schedstat("-5 3 1", &cpu, &runq), -1);
  ASSERT_EQ(lw_procfs_schedstat("12x 3 1", &cpu, &runq), -1);
  ASSERT_EQ(lw_procfs_schedstat("99999999999999999999999 1 1", &cpu, &runq), -1);
  ASSERT_EQ(lw_procfs_schedstat(NULL, &cpu, &runq), -1);
  ASSERT_DBL_EQ(cpu, -1);
  ASSERT_DBL_EQ(runq, -1);
  return 0;
}

TEST_IMPL(procfs_cpu_stat_fixtures) {
  double thr = -1;
  /* cgroup v2: microseconds. */
  ASSERT_EQ(lw_procfs_cpu_stat("usage_usec 1000\nuser_usec 600\nsystem_usec 400\nnr_periods 10\n"
                               "nr_throttled 3\nthrottled_usec 250000\nnr_bursts 0\n",
                               &thr),
            0);
  ASSERT_DBL_EQ(thr, 250);
  /* cgroup v1: nanoseconds. */
  ASSERT_EQ(lw_procfs_cpu_stat("nr_periods 12\nnr_throttled 14\nthrottled_time 900000000\n", &thr), 0);
  ASSERT_DBL_EQ(thr, 900);
  /* No such line, or a bad number: nothing written. */
  thr = -1;
  ASSERT_EQ(lw_procfs_cpu_stat("nr_periods 12\nnr_throttled 14\n", &thr), -1);
  ASSERT_EQ(lw_procfs_cpu_stat("throttled_usec lots\n", &thr), -1);
  ASSERT_EQ(lw_procfs_cpu_stat("throttled_time 12 34\n", &thr), -1);
  ASSERT_EQ(lw_procfs_cpu_stat("", &thr), -1);
  ASSERT_EQ(lw_procfs_cpu_stat(NULL, &thr), -1);
  ASSERT_DBL_EQ(thr, -1);
  return 0;
}

/* This machine's layout: cgroup v1 hierarchies under /sys/fs/cgroup, an empty unified line. */
static const char *const V1_CGROUP = "9:name=systemd:/\n6:freezer:/\n2:cpuacct:/\n1:cpu:/app\n0::/\n";
static const char *const V1_MOUNTS =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n";

TEST_IMPL(procfs_cgroup_paths) {
  char out[256];
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(V1_CGROUP, V1_MOUNTS, out, sizeof(out)), 0);
  ASSERT_EQ(strcmp(out, "/sys/fs/cgroup/cpu/app/cpu.stat"), 0);
  /* cpu and cpuacct mounted together, a systemd slice. */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(
                "4:cpu,cpuacct:/system.slice/app.service\n0::/\n",
                "25 20 0:22 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n", out,
                sizeof(out)),
            0);
  ASSERT_EQ(strcmp(out, "/sys/fs/cgroup/cpu,cpuacct/system.slice/app.service/cpu.stat"), 0);
  /* cgroup v2 only (optional mountinfo fields before " - "). */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(
                "0::/user.slice/user-1000.slice/session-2.scope\n",
                "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
                out, sizeof(out)),
            0);
  ASSERT_EQ(strcmp(out, "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope/cpu.stat"), 0);
  /* A container without a cgroup namespace: the mount shows the group's own directory as root. */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(
                "0::/docker/abc123\n",
                "40 30 0:26 /docker/abc123 /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n", out,
                sizeof(out)),
            0);
  ASSERT_EQ(strcmp(out, "/sys/fs/cgroup/cpu.stat"), 0);
  /* v1 with the cpu controller not mounted: the unified line with a cgroup2 mount. */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat("3:cpu:/x\n0::/y\n",
                                      "30 23 0:26 / /sys/fs/cgroup/unified rw - cgroup2 none rw\n",
                                      out, sizeof(out)),
            0);
  ASSERT_EQ(strcmp(out, "/sys/fs/cgroup/unified/y/cpu.stat"), 0);
  return 0;
}

TEST_IMPL(procfs_cgroup_malformed) {
  char out[16];
  char big[256];
  strcpy(out, "untouched");
  /* No cpu controller anywhere, no unified mount. */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat("6:freezer:/\n0::/\n", V1_MOUNTS, big, sizeof(big)), -1);
  /* Garbage, empty, truncated lines. */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat("garbage", V1_MOUNTS, big, sizeof(big)), -1);
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat("", "", big, sizeof(big)), -1);
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat("1:cpu", V1_MOUNTS, big, sizeof(big)), -1);
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(V1_CGROUP, "32 31 0:29 / /sys/fs/cgroup/cpu - cgroup", big,
                                      sizeof(big)),
            -1);
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(V1_CGROUP, "no separator here\n", big, sizeof(big)), -1);
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(NULL, V1_MOUNTS, big, sizeof(big)), -1);
  /* The path does not fit: -1 and an empty string. */
  ASSERT_EQ(lw_procfs_cgroup_cpu_stat(V1_CGROUP, V1_MOUNTS, out, sizeof(out)), -1);
  ASSERT_EQ(out[0], '\0');
  return 0;
}
