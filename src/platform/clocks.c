#include "clocks.h"

/* The lazily looked-up statics of Windows and macOS are set once, by uv_once: any thread (the
 * main thread, the worker, another JS thread's) may read the clocks first. */
#include <uv.h>

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

static lw__interrupt_time_fn lw__incl_fn, lw__excl_fn;
static uv_once_t lw__clock_once = UV_ONCE_INIT;

static void lw__clock_lookup(void) {
  HMODULE k = GetModuleHandleW(L"kernelbase.dll");
  if (k == NULL) return;
  lw__incl_fn = (lw__interrupt_time_fn)(void *)GetProcAddress(k, "QueryInterruptTimePrecise");
  lw__excl_fn = (lw__interrupt_time_fn)(void *)GetProcAddress(k, "QueryUnbiasedInterruptTimePrecise");
}

double lw_clock_thread_cpu_ms(void) {
  FILETIME created, exited, kernel, user;
  ULARGE_INTEGER k, u;
  if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return 0;
  k.LowPart = kernel.dwLowDateTime;
  k.HighPart = kernel.dwHighDateTime;
  u.LowPart = user.dwLowDateTime;
  u.HighPart = user.dwHighDateTime;
  return (double)(k.QuadPart + u.QuadPart) / 1e4; /* 100 ns units */
}

int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive) {
  lw__interrupt_time_fn incl_fn, excl_fn;
  ULONGLONG a, b;
  uv_once(&lw__clock_once, lw__clock_lookup);
  incl_fn = lw__incl_fn;
  excl_fn = lw__excl_fn;
  if (incl_fn == NULL || excl_fn == NULL) return -1;
  excl_fn(&b);
  incl_fn(&a);
  *inclusive = (double)a / 1e4;
  *exclusive = (double)b / 1e4;
  return 0;
}

#define LW__SLEEP_PAIR_NAME "QueryInterruptTimePrecise-QueryUnbiasedInterruptTimePrecise"

#else /* POSIX: macOS, Linux and the others */

#include <time.h>

static double timespec_ms(const struct timespec *ts) {
  return (double)ts->tv_sec * 1e3 + (double)ts->tv_nsec / 1e6;
}

double lw_clock_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return timespec_ms(&ts);
}

double lw_clock_thread_cpu_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return timespec_ms(&ts);
}

#if defined(__APPLE__)

#include <mach/mach_time.h>

/* mach_continuous_time keeps counting while the system sleeps, mach_absolute_time does not;
 * both are in the same timebase units. */
static mach_timebase_info_data_t lw__timebase;
static uv_once_t lw__clock_once = UV_ONCE_INIT;

static void lw__clock_lookup(void) {
  if (mach_timebase_info(&lw__timebase) != KERN_SUCCESS) lw__timebase.denom = 0;
}

int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive) {
  mach_timebase_info_data_t tb;
  uint64_t a, b;
  uv_once(&lw__clock_once, lw__clock_lookup);
  tb = lw__timebase;
  if (tb.denom == 0) return -1;
  b = mach_absolute_time();
  a = mach_continuous_time();
  *inclusive = (double)a * tb.numer / tb.denom / 1e6;
  *exclusive = (double)b * tb.numer / tb.denom / 1e6;
  return 0;
}

#define LW__SLEEP_PAIR_NAME "mach_continuous_time-mach_absolute_time"

#else /* Linux and the other POSIX systems: CLOCK_BOOTTIME counts a suspend, CLOCK_MONOTONIC not */

int lw_clock_sleep_pair_ms(double *inclusive, double *exclusive) {
#if defined(CLOCK_BOOTTIME)
  struct timespec m, bt;
  if (clock_gettime(CLOCK_MONOTONIC, &m) != 0 || clock_gettime(CLOCK_BOOTTIME, &bt) != 0) return -1;
  *inclusive = timespec_ms(&bt);
  *exclusive = timespec_ms(&m);
  return 0;
#else
  (void)inclusive;
  (void)exclusive;
  return -1;
#endif
}

#define LW__SLEEP_PAIR_NAME "CLOCK_BOOTTIME-CLOCK_MONOTONIC"

#endif /* __APPLE__ */

#endif /* _WIN32 */

const char *lw_clock_sleep_pair_name(void) {
  double a, b;
  return lw_clock_sleep_pair_ms(&a, &b) == 0 ? LW__SLEEP_PAIR_NAME : NULL;
}
