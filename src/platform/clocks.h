/* The platform's clocks (SPEC §1), read by the uv driver and nowhere else.
 *
 * - monotonic: uv_hrtime(), the clock of every time in the API. It excludes system sleep on Linux
 *   (CLOCK_MONOTONIC) and includes it on macOS (mach_continuous_time) and Windows (QPC).
 * - wall: the realtime clock, in ms since the epoch; it steps when NTP or a user sets it.
 * - the sleep-clock pair: a suspend-inclusive and a suspend-exclusive clock of the same rate.
 *   The growth of (inclusive - exclusive) between two reads is how long the system slept in
 *   between. Linux: CLOCK_BOOTTIME vs CLOCK_MONOTONIC; macOS: mach_continuous_time vs
 *   mach_absolute_time; Windows: QueryInterruptTimePrecise vs QueryUnbiasedInterruptTimePrecise.
 */
#ifndef LW_PLATFORM_CLOCKS_H_
#define LW_PLATFORM_CLOCKS_H_

#include <stdint.h>

/* Wall-clock time in ms since the epoch. */
double lw_clock_wall_ms(void);

/* Reads the sleep-clock pair, in ms. Returns 0, or -1 if the platform has no such pair (the
 * caller falls back to the wall-clock rule). Both values come from as close to one instant as
 * the platform allows: the difference is what matters. */
int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive);

/* The name of the sleep-clock pair this platform reads ("CLOCK_BOOTTIME-CLOCK_MONOTONIC", ...),
 * or NULL if a read of the pair fails here (an older Windows without the interrupt-time
 * functions, a kernel without CLOCK_BOOTTIME): then the wall-clock rule decides alone. */
const char *lw_clock_sleep_pair_name(void);

/* The CPU time of the calling thread, in ms (0 where the platform cannot tell). */
double lw_clock_thread_cpu_ms(void);

#endif /* LW_PLATFORM_CLOCKS_H_ */
