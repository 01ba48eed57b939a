/* The signals that end a process (SIGINT, SIGTERM, SIGHUP) while its main thread is held
 * (SPEC §14). lagwatch listens to them from JS, to report what it holds before the signal does
 * what it would without lagwatch; JS cannot run while the main thread is held, so a process with
 * no handler of its own would no longer end. This file keeps, for the whole process, which of
 * them lagwatch alone listens to (`armed`, set by the main thread) and when one of those arrived
 * that the main thread has not taken yet; the worker thread reads that, and when the main thread
 * does not take it in time (core/hangline.h: LW_HANGLINE_SIGNAL_MS) ends the process by it.
 *
 * One handler per signal for the process (POSIX), installed over the one libuv installed for
 * Node's listener and chaining to it: it only reads the clock and stores an atomic
 * (async-signal-safe), then lets libuv's handler hand the signal to the loop as before. libuv
 * puts the default action back when the last listener goes, which removes this handler too.
 * Windows: nothing is installed (libuv turns console events into signals on a thread of its
 * own); a held process there ends at a console close as Windows ends it. */
#ifndef LW_PLATFORM_SIGEND_H_
#define LW_PLATFORM_SIGEND_H_

#include <stdint.h>

/* Installs the handler over each signal's current one, where that is a handler (libuv's): call
 * after Node's listener is added. Main thread. Returns how many were installed. */
int lw_sigend_install(void);
/* Whether lagwatch alone listens to `sig` (no listener of the app's): only then does a signal
 * the main thread does not take end the process. Main thread. An unknown signal is ignored. */
void lw_sigend_arm(int sig, int on);
/* The main thread took `sig` (lagwatch's listener runs). */
void lw_sigend_taken(int sig);
/* The armed signal that arrived first and is not taken: its number, and in `*at_ns` when it
 * arrived (uv_hrtime()); 0 if none. Any thread. */
int lw_sigend_pending(uint64_t *at_ns);
/* Ends the process by `sig` as if nothing handled it: its default action restored, then the
 * signal sent to the process. Does not return where the default action ends the process. */
void lw_sigend_default_and_raise(int sig);
/* The signal's name without its "SIG" ("TERM"), or "?" for one not of the three. */
const char *lw_sigend_name(int sig);
/* The number of "SIGINT", "SIGTERM" or "SIGHUP"; 0 for any other name. */
int lw_sigend_number(const char *name);

#endif /* LW_PLATFORM_SIGEND_H_ */
