/* SPEC §12: the parsers of Linux's schedstat, cgroup cpu.stat, /proc/self/cgroup and mountinfo
 * on fixtures (malformed ones included: -1, nothing written, never a crash); the worker's judgement
 * of its own lateness (a stop or starvation, from its run-queue delay); and the cause of a hang
 * from the worker's readings, driven by hand with fake thread times. */
#include "core/conditions.h"
#include "core/internal.h"
#include "core/monitors.h"
#include "core/spans.h"
#include "platform/procfs.h"
#include "helpers.h"
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

/* The worker's half with fake thread times. */
typedef struct {
  lw_thread_times_t main; /* the main thread's times now */
  double worker_runq;     /* the worker's own run-queue delay now */
  int self_known;
  double gc_start, gc_end; /* one GC pause */
  double avail;            /* the main loop's last moment seen waiting */
  int waiting;             /* its poll waits now */
  double busy;             /* its time outside its poll's waits up to its last progress */
} times_t;

static double fake_avail(void *d) { return ((times_t *)d)->avail; }
static int fake_waiting(void *d) { return ((times_t *)d)->waiting; }
static double fake_busy(void *d) { return ((times_t *)d)->busy; }

static int fake_main(void *d, lw_thread_times_t *out) {
  *out = ((times_t *)d)->main;
  return 0;
}
static int fake_self(void *d, lw_thread_times_t *out) {
  times_t *t = d;
  if (!t->self_known) return -1;
  out->cpu_ms = NAN;
  out->throttled_ms = NAN;
  out->runq_ms = t->worker_runq;
  return 0;
}
static double fake_gc(void *d, double start, double end) {
  times_t *t = d;
  double lo = t->gc_start > start ? t->gc_start : start, hi = t->gc_end < end ? t->gc_end : end;
  return hi > lo ? hi - lo : 0;
}

typedef struct {
  lw_conditions_t c;
  lw_monitors_t m;
  lw_readings_t rd;
  times_t t;
} cfx_t;

static void cfx_init(cfx_t *x) {
  lw_conditions_config_t cc;
  lw_monitors_config_t cfg;
  memset(x, 0, sizeof(*x));
  lw_conditions_config_default(&cc);
  ASSERT_EQ(lw_conditions_init(&x->c, &cc), LW_OK);
  x->t.self_known = 1;
  x->rd.main.main_sched = x->rd.worker.main_sched = fake_main;
  x->rd.worker.self_sched = fake_self;
  x->rd.main.gc_ms = fake_gc;
  x->rd.main.data = x->rd.worker.data = &x->t;
  lw_monitors_config_default(&cfg, &x->c);
  cfg.flush_interval_ms = 1e9;
  ASSERT_EQ(lw_monitors_init(&x->m, &x->c, &cfg, &x->rd), LW_OK);
  lw_monitors_start(&x->m, LW_MON_LIVENESS, 0);
}

static void cfx_free(cfx_t *x) {
  lw_monitors_free(&x->m);
  lw_conditions_free(&x->c);
}

/* Runs the worker at `now` with the main thread's progress stamp; appends its messages. */
static size_t run(cfx_t *x, double now, double progress, lw_msg_t *log, size_t *n) {
  lw_msg_t out[LW_WORKER_MSGS_MAX];
  size_t k, i;
  x->m.worker.rd = x->rd.worker; /* the tests change the readings as they go */
  k = lw_worker_run(&x->m.worker, now, progress, out);
  for (i = 0; i < k; i++) log[(*n)++] = out[i];
  return k;
}

TEST_IMPL(worker_lateness_stop_or_starvation) {
  cfx_t x;
  lw_msg_t log[64];
  size_t n = 0;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  ASSERT_EQ(n, 0);
  /* Late by 300 ms (due 1100, runs at 1400) without run-queue growth: a stop, evidence at once. */
  ASSERT_EQ(run(&x, 1400, 1000, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  ASSERT_EQ(log[0].ev_reason, LW_REASON_PAUSE);
  ASSERT_DBL_EQ(log[0].ev_start, 1100);
  ASSERT_DBL_EQ(log[0].ev_end, 1400);
  /* Late by 300 ms with 300 ms of run-queue growth: starvation, no evidence. */
  n = 0;
  x.t.worker_runq += 300;
  ASSERT_EQ(run(&x, 1800, 1790, log, &n), 0);
  /* Late by 99 ms without growth: below LW_STOP_MIN_MS, nothing. */
  ASSERT_EQ(run(&x, 1999, 1990, log, &n), 0);
  /* A stop exactly at LW_STOP_MIN_MS. */
  ASSERT_EQ(run(&x, 2199, 2000, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  /* Half the lateness waiting on the run queue is starvation, less than half a stop. */
  n = 0;
  x.t.worker_runq += 200;
  ASSERT_EQ(run(&x, 2699, 2690, log, &n), 0); /* due 2299: late 400, waited 200 */
  x.t.worker_runq += 199;
  ASSERT_EQ(run(&x, 3199, 3190, log, &n), 1); /* due 2799: late 400, waited 199 */
  /* Where the platform cannot tell (no self times), the seed's rule: 4000 ms late is no stop. */
  n = 0;
  x.t.self_known = 0;
  ASSERT_EQ(run(&x, 7299, 7290, log, &n), 0);
  cfx_free(&x);
  return 0;
}

/* While the main loop waits, the worker rests: its next check is a worker interval away (or its
 * heartbeat), never later than the ping or the threshold; a hang that begins during a rest (the
 * loop stopped waiting at 1500 and never reached its check phase: the driver still says it waits)
 * starts where the loop last waited and is flagged exactly a threshold later. */
TEST_IMPL(worker_rests_while_main_waits) {
  cfx_t x;
  lw_msg_t log[128];
  size_t n = 0, i;
  double t;
  cfx_init(&x);
  x.rd.worker.main_avail = fake_avail;
  x.rd.worker.main_waiting = fake_waiting;
  /* Busy with progress at every check: no rest. */
  for (t = 100; t <= 1000; t += 100) {
    x.t.avail = t - 50;
    run(&x, t, t, log, &n);
    ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), t + 100);
  }
  /* Waiting from 1000 on: the next check a worker interval later. */
  x.t.waiting = 1;
  x.t.avail = 1100;
  run(&x, 1100, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2100);
  /* The loop stops waiting at 1500 and hangs; the driver cannot see it left its poll. */
  x.t.avail = 1500;
  run(&x, 2100, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2750); /* the ping: 1500 + 5000 / 4 */
  ASSERT_EQ(n, 0);
  run(&x, 2750, 1000, log, &n);
  ASSERT_EQ(n, 1);
  ASSERT_EQ(log[0].type, LW_MSG_PING);
  /* No availability over that check: checks every liveness interval again. */
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2850);
  for (t = 2850; t < 6500; t += 100) run(&x, t, 1000, log, &n);
  ASSERT_EQ(n, 1);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 6500);
  run(&x, 6500, 1000, log, &n);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(log[1].type, LW_MSG_HANG_START);
  ASSERT_DBL_EQ(log[1].hang_start, 1500);
  ASSERT_DBL_EQ(log[1].detected_at, 6500);
  /* With the heartbeat on, a rest lasts until the heartbeat: one wake-up for both. The hang's
   * end carries its cause: the baseline read as the first rest began (1100), the span from where
   * the loop last waited (1500), 5000 ms of CPU. */
  lw_monitors_start(&x.m, LW_MON_WORKER, 6500); /* heartbeat due 7500 */
  x.t.main.cpu_ms += 5000;
  x.t.avail = 6600;
  run(&x, 6600, 6600, log, &n);
  ASSERT_EQ(n, 3);
  ASSERT_EQ(log[2].type, LW_MSG_HANG_END);
  ASSERT_EQ(log[2].cause_known, 1);
  ASSERT_DBL_EQ(log[2].cause_start, 1500);
  ASSERT_DBL_EQ(log[2].cause_delta.cpu_ms, 5000);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 7500);
  /* Without the waiting reading, never a rest. */
  x.rd.worker.main_waiting = NULL;
  x.t.avail = 7500;
  run(&x, 7500, 7500, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 7600);
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_EVIDENCE);
  cfx_free(&x);
  return 0;
}

/* Starts a rest at 1100 (the baseline of a cause read then), the loop waiting from 1000. */
static void rest_from_1100(cfx_t *x, lw_msg_t *log, size_t *n) {
  double t;
  x->rd.worker.main_avail = fake_avail;
  x->rd.worker.main_waiting = fake_waiting;
  for (t = 100; t <= 1000; t += 100) {
    x->t.avail = t - 50;
    run(x, t, t, log, n);
  }
  x->t.waiting = 1;
  x->t.avail = 1100;
  run(x, 1100, 1000, log, n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x->m.worker), 2100);
}

/* The main thread writes where its loop waited, then its progress stamp; the worker reads the stamp
 * first. A check that falls between (a worker preempted or held back by a CPU quota between its
 * two reads) sees the loop waited again without new progress: during a hang, that is the hang's
 * end, with its cause. It once dropped the cause's baseline instead, and the end seen at the next
 * check had no cause (a hang under a 10 % quota beside other suites reported cause null). */
TEST_IMPL(worker_hang_ends_when_the_loop_waits_again) {
  cfx_t x;
  lw_msg_t log[128];
  size_t n = 0, i;
  double t;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 1500; /* the loop stops waiting at 1500 and hangs */
  run(&x, 2100, 1000, log, &n);
  for (t = 2750; t < 6500; t += 100) run(&x, t, 1000, log, &n);
  run(&x, 6500, 1000, log, &n);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(log[1].type, LW_MSG_HANG_START);
  ASSERT_DBL_EQ(log[1].hang_start, 1500);
  /* The main thread runs again at 6550 and reaches its poll: the check at 6600 sees the loop's
   * wait, not yet its stamp. */
  x.t.main.cpu_ms += 5050;
  x.t.avail = 6550;
  run(&x, 6600, 1000, log, &n);
  ASSERT_EQ(n, 3);
  ASSERT_EQ(log[2].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[2].hang_start, 1500);
  ASSERT_DBL_EQ(log[2].hang_end, 6550);
  ASSERT_EQ(log[2].cause_known, 1);
  ASSERT_DBL_EQ(log[2].cause_start, 1500);
  ASSERT_DBL_EQ(log[2].cause_delta.cpu_ms, 5050);
  /* The stamp, seen at the next check, ends nothing more and starts nothing. */
  for (t = 6700; t <= 12000; t += 100) {
    x.t.avail = t - 50;
    run(&x, t, t - 50, log, &n);
  }
  ASSERT_EQ(n, 3);
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_EVIDENCE);
  cfx_free(&x);
  return 0;
}

/* The cause of a hang seen from a rest, with a stop: its span starts where the loop last waited,
 * and only a stop inside it is taken off (once). */
TEST_IMPL(worker_rest_cause_with_stops) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0, i;
  double t;
  /* A: the loop stops waiting at 1500 and hangs; the process is stopped from 2850 to 4850, while
   * the worker checks every 100 ms (after its ping): its check due at 2900 runs at 4850. */
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 1500;
  run(&x, 2100, 1000, log, &n);
  for (t = 2750; t <= 2850; t += 100) run(&x, t, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2950);
  run(&x, 4850, 1000, log, &n); /* 1900 late, no run-queue growth: a stop */
  for (t = 4950; t < 9000; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 5600;
  run(&x, 9050, 9000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 1500);
  ASSERT_DBL_EQ(log[n - 1].cause_stopped, 1900);
  ASSERT_DBL_EQ(log[n - 1].cause_delta.cpu_ms, 5600);
  cfx_free(&x);
  /* B: the process is stopped from 1200 to 3100 while the loop waits; the worker's check due at
   * 2100 runs at 3100, the loop's wait lasting as long; the loop then hangs from 3100. */
  n = 0;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.avail = 3100;
  run(&x, 3100, 1000, log, &n); /* 1000 late: a stop */
  for (i = 0; i < n; i++) ASSERT(log[i].type != LW_MSG_HANG_START);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 4100); /* resting again */
  for (t = 4100; t < 9000; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 5900;
  run(&x, 9050, 9000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 3100);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 3100);
  ASSERT_DBL_EQ(log[n - 1].cause_stopped, 0);
  cfx_free(&x);
  /* C: the worker, starved (its run-queue delay grew as much as it was late), runs its check due
   * at 2100 at 2600; the loop stopped waiting at 1200. The ping is overdue: no rest, the next
   * check a liveness interval later, which sends it. */
  n = 0;
  cfx_init(&x);
  rest_from_1100(&x, log, &n);
  x.t.worker_runq += 500;
  x.t.avail = 1200;
  run(&x, 2600, 1000, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 2700);
  run(&x, 2700, 1000, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_PING);
  cfx_free(&x);
  return 0;
}

/* From a rest at 1100 (the loop's busy total 400 then, read if `busy_known`), the loop ran `ran`
 * ms more (its last progress stamp `stamp`), stopped waiting at 1300 and hangs; the main thread
 * uses `before` ms of CPU before the check at 2200, `during` after; progress returns at 7100.
 * Returns the worker's last message (the hang's end, seen at 7200). */
static lw_msg_t hang_after_rest(int busy_known, double ran, double stamp, double before,
                                double during) {
  cfx_t x;
  lw_msg_t log[256], last;
  size_t n = 0;
  double t;
  cfx_init(&x);
  if (busy_known) x.rd.worker.main_busy = fake_busy;
  x.t.busy = 400;
  rest_from_1100(&x, log, &n);
  x.t.busy = 400 + ran;
  x.t.avail = 1300;
  x.t.waiting = 0;
  run(&x, 2100, stamp, log, &n); /* no longer waiting: the next check 100 ms later */
  x.t.main.cpu_ms += before;
  for (t = 2200; t <= 7100; t = lw_worker_next_due(&x.m.worker)) run(&x, t, stamp, log, &n);
  x.t.main.cpu_ms += during;
  run(&x, 7200, 7100, log, &n);
  last = log[n - 1];
  cfx_free(&x);
  return last;
}

/* The loop runs a few short iterations during a rest (a write's completion, a timer of its own),
 * waits again, then hangs: the rest's baseline still holds, and the span starts where the loop
 * last waited less the time it ran since the baseline (the CPU of those iterations is inside the
 * span). A baseline dropped there would be read a check after the rest ended, the hang's first
 * second lost from its span (as seen under ASan in e2e/cause.test.js: 5108 ms of a 6 s loop). */
TEST_IMPL(worker_rest_cause_after_short_iterations) {
  cfx_t x;
  lw_msg_t log[256], end;
  size_t n = 0;
  double t;
  /* A: iterations of 3 ms in all (the last progress 1190), the wait ending at 1300, a hang from
   * then on, 5803 ms of CPU since the baseline. */
  end = hang_after_rest(1, 3, 1190, 0, 5803);
  ASSERT_EQ(end.type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(end.hang_start, 1300);
  ASSERT_EQ(end.cause_known, 1);
  ASSERT_DBL_EQ(end.cause_start, 1297);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5803);
  /* B: the loop ran 150 ms since the baseline (more than LW_REST_BUSY_MS): that is no longer
   * the rest's CPU alone, the baseline is read again at the first check without progress. */
  end = hang_after_rest(1, 150, 1190, 100, 5000);
  ASSERT_EQ(end.type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(end.cause_start, 2200);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5000);
  /* C: no reading of the loop's busy time: iterations since the rest cannot be bounded, the
   * baseline is read again; without iterations (the wait alone ended) it holds as before. */
  end = hang_after_rest(0, 3, 1190, 100, 5000);
  ASSERT_DBL_EQ(end.cause_start, 2200);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5000);
  end = hang_after_rest(0, 3, 1000, 100, 5000);
  ASSERT_DBL_EQ(end.cause_start, 1300);
  ASSERT_DBL_EQ(end.cause_delta.cpu_ms, 5100);
  /* D: short iterations in one rest, then a rest again: the baseline kept is read again as the
   * second rest begins (2100), so that what the loop runs never adds up over rests; the hang
   * from 2500 then has the CPU since 2100 alone, its span from 2500 less 1 ms run since. */
  n = 0;
  cfx_init(&x);
  x.rd.worker.main_busy = fake_busy;
  x.t.busy = 400;
  rest_from_1100(&x, log, &n);
  x.t.busy = 410;
  x.t.main.cpu_ms += 10;
  x.t.avail = 2100; /* waiting again since 1510 */
  run(&x, 2100, 1500, log, &n);
  ASSERT_DBL_EQ(lw_worker_next_due(&x.m.worker), 3100);
  x.t.busy = 411;
  x.t.avail = 2500;
  x.t.waiting = 0;
  run(&x, 3100, 2400, log, &n);
  for (t = 3200; t <= 8400; t = lw_worker_next_due(&x.m.worker)) run(&x, t, 2400, log, &n);
  x.t.main.cpu_ms += 6000;
  run(&x, 8500, 8400, log, &n);
  ASSERT_EQ(log[n - 1].type, LW_MSG_HANG_END);
  ASSERT_DBL_EQ(log[n - 1].hang_start, 2500);
  ASSERT_DBL_EQ(log[n - 1].cause_start, 2499);
  ASSERT_DBL_EQ(log[n - 1].cause_delta.cpu_ms, 6000);
  cfx_free(&x);
  return 0;
}

/* A hang of the main thread from 1000 on: the cause from its times, read at the first check without
 * progress and when progress returns; the WORKER_HANG event and its histogram. */
static void hang_with(cfx_t *x, double cpu, double runq, double thr, lw_event_t *ev) {
  lw_msg_t log[256];
  size_t n = 0, i, nev;
  const lw_event_t *evs;
  double t;
  for (t = 100; t <= 1000; t += 100) run(x, t, t, log, &n);
  /* The check at 1000 saw the progress of 1000; the one at 1100 sees none: the baseline. */
  for (t = 1100; t <= 8000; t += 100) run(x, t, 1000, log, &n);
  x->t.main.cpu_ms += cpu;
  x->t.main.runq_ms += runq;
  x->t.main.throttled_ms += thr;
  run(x, 8100, 8050, log, &n);
  for (i = 0; i < n; i++) lw_monitors_receive(&x->m, &log[i], 1, 8150);
  evs = lw_conditions_events(&x->c, &nev);
  ASSERT_EQ(nev, 1);
  ASSERT_EQ(evs[0].type, LW_EVENT_WORKER_HANG);
  *ev = evs[0];
  lw_conditions_events_clear(&x->c);
}

TEST_IMPL(cause_from_readings) {
  cfx_t x;
  lw_event_t ev;
  /* Busy: all CPU. The span is [1100, 8050] (to the main thread's progress), 6950 ms. */
  cfx_init(&x);
  hang_with(&x, 6950, 0, 0, &ev);
  ASSERT_DBL_EQ(ev.start, 1000);
  ASSERT_DBL_EQ(ev.end, 8050);
  ASSERT_EQ(ev.cause.known, 1);
  ASSERT_DBL_EQ(ev.cause.span_ms, 6950);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, 6950);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 0);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 0);
  ASSERT_DBL_EQ(ev.cause.throttled_ms, 0);
  ASSERT_DBL_EQ(ev.cause.gc_ms, 0);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_BUSY);
  cfx_free(&x);
  /* Blocked: 950 ms of CPU, the rest neither on a CPU nor waiting for one. */
  cfx_init(&x);
  hang_with(&x, 950, 0, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 6000);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_BLOCKED);
  cfx_free(&x);
  /* Throttled: the run-queue delay includes the quota's time; the rest of it is starvation. */
  cfx_init(&x);
  hang_with(&x, 950, 6000, 5000, &ev);
  ASSERT_DBL_EQ(ev.cause.throttled_ms, 5000);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 1000);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 0);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_THROTTLED);
  cfx_free(&x);
  /* Starved; the cgroup's throttled time (summed over CPUs) is capped by the thread's wait. */
  cfx_init(&x);
  hang_with(&x, 950, 6000, 9000, &ev);
  ASSERT_DBL_EQ(ev.cause.throttled_ms, 6000);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 0);
  cfx_free(&x);
  cfx_init(&x);
  hang_with(&x, 1950, 5000, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 5000);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_STARVED);
  cfx_free(&x);
  /* GC: 4000 ms of the CPU time inside the span was V8's collector. */
  cfx_init(&x);
  x.t.gc_start = 2000;
  x.t.gc_end = 6000;
  hang_with(&x, 6950, 0, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.gc_ms, 4000);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_GC);
  cfx_free(&x);
  /* Readings past the hang's end (one check of the loop's own work) never exceed the span. */
  cfx_init(&x);
  hang_with(&x, 7000, 50, 0, &ev);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, 6950);
  ASSERT_DBL_EQ(ev.cause.runq_ms, 0);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 0);
  cfx_free(&x);
  /* Unknown run-queue and quota times (macOS, Windows): null, the off-CPU rest is blocked. */
  cfx_init(&x);
  x.t.main.runq_ms = NAN;
  x.t.main.throttled_ms = NAN;
  hang_with(&x, 950, 0, 0, &ev);
  ASSERT_NAN(ev.cause.runq_ms);
  ASSERT_NAN(ev.cause.throttled_ms);
  ASSERT_DBL_EQ(ev.cause.blocked_ms, 6000);
  ASSERT_EQ(ev.cause.dominant, LW_CAUSE_BLOCKED);
  cfx_free(&x);
  /* The ring of causes is made at the first worker hang; without memory for it the worker hang
   * still has its cause, and the loss is counted (an episode could not find it). */
  cfx_init(&x);
  ASSERT_NULL(x.m.causes.ring);
  /* The event queue has room already (a pushed and cleared event): only the ring fails. */
  ASSERT_NOT_NULL(lw__event_push(&x.c, LW_EVENT_JUMP, 0));
  lw_conditions_events_clear(&x.c);
  lw_alloc_fail_after(0);
  hang_with(&x, 6950, 0, 0, &ev);
  lw_alloc_fail_after(-1);
  ASSERT_EQ(ev.cause.known, 1);
  ASSERT_DBL_EQ(ev.cause.cpu_ms, 6950);
  ASSERT_NULL(x.m.causes.ring);
  ASSERT_EQ(x.c.lost, 1);
  cfx_free(&x);
  return 0;
}

TEST_IMPL(cause_stop_inside_hang) {
  cfx_t x;
  lw_msg_t log[256];
  size_t n = 0, i, nev;
  const lw_event_t *evs;
  double t;
  cfx_init(&x);
  for (t = 100; t <= 1000; t += 100) run(&x, t, t, log, &n);
  /* Busy from 1000; the process is stopped from 3000 to 6000 (the worker late by 2900); busy
   * again until 8000: 5000 ms of the app's own, not 7000. */
  for (t = 1100; t <= 3000; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 1800; /* 1200 .. 3000 */
  n = 0;
  ASSERT_EQ(run(&x, 6000, 1000, log, &n), 1);
  ASSERT_EQ(log[0].type, LW_MSG_EVIDENCE);
  ASSERT_DBL_EQ(log[0].ev_start, 3100);
  for (t = 6100; t <= 7900; t += 100) run(&x, t, 1000, log, &n);
  x.t.main.cpu_ms += 2000; /* 6000 .. 8000 */
  /* 4100 ms of no progress (1000 .. 3100, 6000 .. 8000) besides the stop's 2900: under the
   * threshold, no hang. */
  for (i = 0; i < n; i++) ASSERT_NE(log[i].type, LW_MSG_HANG_START);
  run(&x, 8000, 8000, log, &n);
  for (i = 0; i < n; i++) ASSERT_NE(log[i].type, LW_MSG_HANG_START);
  lw_monitors_receive(&x.m, log, n, 8000);
  evs = lw_conditions_events(&x.c, &nev);
  ASSERT_EQ(nev, 0);
  (void)evs;
  cfx_free(&x);
  return 0;
}

TEST_IMPL(spans_overlap_and_out_of_memory) {
  lw_spans_t s;
  unsigned i;
  memset(&s, 0, sizeof(s));
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 100), 0);
  ASSERT_EQ(lw_spans_add(&s, 10, 20), LW_OK);
  ASSERT_EQ(lw_spans_add(&s, 90, 130), LW_OK);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 100), 20);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 20, 90), 0); /* touching spans add nothing */
  /* The ring keeps the last LW_SPANS_MAX: the first ones fall out. */
  for (i = 0; i < LW_SPANS_MAX; i++) ASSERT_EQ(lw_spans_add(&s, 1000 + i, 1000.5 + i), LW_OK);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 200), 0);
  ASSERT_DBL_EQ(lw_spans_overlap(&s, 0, 1001 + LW_SPANS_MAX), LW_SPANS_MAX * 0.5);
  lw_spans_free(&s);
  /* No memory for the ring: the span is lost, and every overlap is unknown from then on. */
  lw_alloc_fail_after(0);
  ASSERT_EQ(lw_spans_add(&s, 10, 20), LW_ENOMEM);
  lw_alloc_fail_after(-1);
  ASSERT_NAN(lw_spans_overlap(&s, 0, 100));
  lw_spans_free(&s);
  return 0;
}

TEST_IMPL(main_states_each_counted_once) {
  cfx_t x;
  lw_thread_times_t st;
  cfx_init(&x);
  x.t.main.cpu_ms = 100;
  x.t.main.runq_ms = 300;
  x.t.main.throttled_ms = 200;
  ASSERT_EQ(lw_monitors_main_states(&x.m, &st), 0);
  ASSERT_DBL_EQ(st.cpu_ms, 100);
  ASSERT_DBL_EQ(st.runq_ms, 100); /* the quota's 200 ms are taken out of the run-queue delay */
  ASSERT_DBL_EQ(st.throttled_ms, 200);
  x.t.main.throttled_ms = 900; /* the cgroup's figure sums threads and CPUs: capped */
  ASSERT_EQ(lw_monitors_main_states(&x.m, &st), 0);
  ASSERT_DBL_EQ(st.runq_ms, 0);
  ASSERT_DBL_EQ(st.throttled_ms, 300);
  x.t.main.throttled_ms = NAN; /* no cgroup cpu controller */
  ASSERT_EQ(lw_monitors_main_states(&x.m, &st), 0);
  ASSERT_DBL_EQ(st.runq_ms, 300);
  ASSERT_NAN(st.throttled_ms);
  cfx_free(&x);
  return 0;
}
