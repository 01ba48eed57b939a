/* A debugger holds the main thread (SPEC §2's reason `debugger`: a breakpoint, a step, a
 * `debugger;` statement, an inspector's Debugger.pause): the meeting point of three threads.
 *
 * - The watcher thread (a worker_threads Worker with an inspector session on the main thread and
 *   the Debugger domain enabled, run only while an inspector is open) tells each pause and
 *   resume as it sees them (lw_debugger_paused, lw_debugger_resumed).
 * - The set's C worker thread asks whether the main thread is held now (lw_debugger_held): a
 *   debugger's pause is no hang.
 * - The main thread takes the pauses as evidence (lw_debugger_take), after a cheap check of a
 *   counter that moves with every change (lw_debugger_changes).
 * lagwatch's own stack thread never pauses the main thread (lib/stack-worker.js evaluates in an
 * interrupt instead): every pause the watcher sees is a debugger's.
 * Keyed by the set's id in the registry of sets (sets.h), whose mutex guards it. */
#ifndef LW_DRIVER_DEBUGGER_H_
#define LW_DRIVER_DEBUGGER_H_

#include <stddef.h>
#include <stdint.h>

#include "sets.h"

/* Main thread: a watcher runs (1) or not (0) for the set: a pause in progress ends when it stops. */
void lw_debugger_watch(uint64_t id, int on);
/* Watcher thread: Debugger.paused, Debugger.resumed, now. */
void lw_debugger_paused(uint64_t id);
void lw_debugger_resumed(uint64_t id);

/* C worker thread: since when a debugger holds the main thread (ms on the set's clock), or NAN. */
double lw_debugger_held(uint64_t id);

/* Main thread: copies the pauses that ended since the last call into `ended` (at most `max`,
 * [start, end] each) and returns their number; `*since` is when an ongoing one began, or NAN. */
size_t lw_debugger_take(uint64_t id, double (*ended)[2], size_t max, double *since);
/* The set of the process's main thread (at most one runs on a real clock), whose pauses a session
 * connected from another thread reports: `on` 1 makes `id` it, 0 clears it if it is `id`. */
void lw_debugger_set_main(uint64_t id, int on);
/* Any thread: the main thread's set, or 0. */
uint64_t lw_debugger_main(void);
/* Any thread: moves whenever any set's debugger state changes. */
uint64_t lw_debugger_changes(void);

#endif /* LW_DRIVER_DEBUGGER_H_ */
