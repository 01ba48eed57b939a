/* A thread's cumulative times by scheduler state: the one type the platform's readers
 * (threadtimes.h) and the core's hang diagnosis (core/cause.h) share. */
#ifndef LW_PLATFORM_TIMES_H_
#define LW_PLATFORM_TIMES_H_

/* Cumulative ms (SPEC §12); NAN where the platform cannot tell. `throttled_ms` is the thread's
 * cgroup's time held back by the CPU quota. */
typedef struct lw_thread_times_s {
  double cpu_ms;
  double runq_ms;
  double throttled_ms;
} lw_thread_times_t;

#endif /* LW_PLATFORM_TIMES_H_ */
