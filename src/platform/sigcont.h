/* The process was continued (POSIX SIGCONT: after SIGSTOP, SIGTSTP, a shell's `fg`): when, on
 * libuv's uv_hrtime() clock. A stopped process cannot tell it was stopped while it is; SIGCONT
 * is delivered as it resumes, so the stop ended then (SPEC §5: stops shorter than the worker can
 * see are known this way). A cgroup freezer, a VM pause or a debugger send none.
 *
 * One handler for the process, installed once (lw_sigcont_install, idempotent, any thread) and
 * kept: it chains to the handler it found. It only reads the clock and stores two atomics
 * (async-signal-safe). If the app later installs its own SIGCONT handler without chaining
 * (process.on('SIGCONT') in Node does), continues are no longer seen: the count stops growing.
 * Windows has no SIGCONT: the count stays 0. */
#ifndef LW_PLATFORM_SIGCONT_H_
#define LW_PLATFORM_SIGCONT_H_

#include <stdint.h>

/* 0, or -1 where the handler could not be installed (or the platform has no SIGCONT). */
int lw_sigcont_install(void);
/* How many continues were seen; `*at_ns`, the uv_hrtime() of the last (0 if none). The count
 * is read after the time: a changed count means the time read with it is that continue's or a
 * later one's. */
uint64_t lw_sigcont_last(uint64_t *at_ns);

#endif /* LW_PLATFORM_SIGCONT_H_ */
