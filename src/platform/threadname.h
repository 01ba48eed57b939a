/* Names the calling thread, so that tools that list a process's threads (top -H, /proc/<pid>/task/
 * <tid>/comm, a debugger) tell lagwatch's threads apart from Node's. Linux and macOS; elsewhere it
 * does nothing. A name longer than 15 bytes is cut by the kernel's limit, so callers keep to it. */
#ifndef LW_PLATFORM_THREADNAME_H_
#define LW_PLATFORM_THREADNAME_H_

#if defined(__linux__)
#include <sys/prctl.h>
static inline void lw_thread_setname(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }
#elif defined(__APPLE__)
#include <pthread.h>
static inline void lw_thread_setname(const char *name) { (void)pthread_setname_np(name); }
#else
static inline void lw_thread_setname(const char *name) { (void)name; }
#endif

#endif
