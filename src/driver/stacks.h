/* Stacks of a hung main thread (SPEC §12, `stacks: true`): the meeting point of three threads.
 *
 * - The main thread registers its monitor set (lw_sets_add: an id and its clock's origin) and
 *   reads the stacks taken (lw_stacks_get, by the hang's detection time).
 * - The set's C worker thread, the moment it flags a hang, wakes the stack thread
 *   (lw_stacks_wake): no JS runs for stacks while the loop is healthy.
 * - The stack thread (a worker_threads Worker with an inspector session on the main thread)
 *   attaches a wake-up function (lw_stacks_attach; the binding's is a Node-API threadsafe
 *   function, i.e. a uv_async_t on that thread's loop), pauses the main thread, takes its call
 *   frames and hands them over (lw_stacks_put) before resuming it.
 * Kept in the registry of sets (sets.h), under its mutex; the stacks are kept as opaque JSON
 * text, copied in and out.
 */
#ifndef LW_DRIVER_STACKS_H_
#define LW_DRIVER_STACKS_H_

#include <stddef.h>
#include <stdint.h>

#include "sets.h"

/* Main thread: a copy (lw__free it) of the stack taken for the hang detected at `detected_at`, or NULL;
 * `*taken_at`: when it was taken, on the main thread's clock. */
char *lw_stacks_get(uint64_t id, double detected_at, double *taken_at);
/* Any thread, allocating nothing: copies that stack into `buf` (NUL-terminated) and returns its
 * length; -1 if there is none, -2 if it does not fit in `cap` bytes. */
long lw_stacks_copy(uint64_t id, double detected_at, char *buf, size_t cap);

/* C worker thread: a hang (`block` 0) or a watched block (1) was flagged at `detected_at`. */
void lw_stacks_wake(uint64_t id, double detected_at, int block);

/* Stack thread. attach returns 0, or -1 if the set is gone or has a stack thread already. */
int lw_stacks_attach(uint64_t id, lw_stacks_wake_fn fn, void *data);
void lw_stacks_detach(uint64_t id, void *data);
/* Stores a copy of `json` for the hang detected at `detected_at`, taken now. Returns LW_OK,
 * LW_ENOENT (the set is gone) or LW_ENOMEM. */
int lw_stacks_put(uint64_t id, double detected_at, const char *json, size_t len);

#endif /* LW_DRIVER_STACKS_H_ */
