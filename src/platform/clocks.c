#include "clocks.h"

#if defined(_WIN32)

#include <windows.h>

/* QueryInterruptTimePrecise and QueryUnbiasedInterruptTimePrecise (Windows 10+, realtimeapiset.h)
 * count 100 ns units since boot; the unbiased one stops while the system sleeps or hibernates.
 * They are looked up at run time so the addon still loads on older Windows. */
typedef VOID(WINAPI *lw__interrupt_time_fn)(PULONGLONG);

double lw_clock_wall_ms(void) {
  FILETIME ft;
  ULARGE_INTEGER t;
  GetSystemTimePreciseAsFileTime(&ft);
  t.LowPart = ft.dwLowDateTime;
  t.HighPart = ft.dwHighDateTime;
  /* 100 ns units since 1601-01-01; the epoch is 11644473600 s later. */
  return (double)(t.QuadPart - 116444736000000000ULL) / 1e4;
}

int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive) {
  static lw__interrupt_time_fn incl_fn, excl_fn;
  static int looked_up;
  ULONGLONG a, b;
  if (!looked_up) {
    HMODULE k = GetModuleHandleW(L"kernelbase.dll");
    if (k != NULL) {
      incl_fn = (lw__interrupt_time_fn)(void *)GetProcAddress(k, "QueryInterruptTimePrecise");
      excl_fn = (lw__interrupt_time_fn)(void *)GetProcAddress(k, "QueryUnbiasedInterruptTimePrecise");
    }
    looked_up = 1;
  }
  if (incl_fn == NULL || excl_fn == NULL) return -1;
  excl_fn(&b);
  incl_fn(&a);
  *inclusive = (double)a / 1e4;
  *exclusive = (double)b / 1e4;
  return 0;
}

#elif defined(__APPLE__)

#include <mach/mach_time.h>
#include <sys/time.h>

double lw_clock_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* mach_continuous_time keeps counting while the system sleeps, mach_absolute_time does not;
 * both are in the same timebase units. */
int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive) {
  static mach_timebase_info_data_t tb;
  uint64_t a, b;
  if (tb.denom == 0 && mach_timebase_info(&tb) != KERN_SUCCESS) return -1;
  b = mach_absolute_time();
  a = mach_continuous_time();
  *inclusive = (double)a * tb.numer / tb.denom / 1e6;
  *exclusive = (double)b * tb.numer / tb.denom / 1e6;
  return 0;
}

#else /* Linux and other POSIX systems */

#include <time.h>

double lw_clock_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive) {
#if defined(CLOCK_BOOTTIME)
  struct timespec m, bt;
  if (clock_gettime(CLOCK_MONOTONIC, &m) != 0 || clock_gettime(CLOCK_BOOTTIME, &bt) != 0) return -1;
  *inclusive = (double)bt.tv_sec * 1e3 + (double)bt.tv_nsec / 1e6;
  *exclusive = (double)m.tv_sec * 1e3 + (double)m.tv_nsec / 1e6;
  return 0;
#else
  (void)inclusive;
  (void)exclusive;
  return -1;
#endif
}

#endif
