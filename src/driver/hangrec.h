/* The record of a running hang (a process may die hung: a kill, a force-quit, the OOM killer):
 * written by the set's C worker thread, which runs while the main thread is blocked, when it
 * flags a hang, refreshed at most once a second while the hang lasts, and removed when it ends.
 * A later process reads the records of processes that are gone (lib/fatal.js) and reports each
 * as a fatal hang. Nothing is written while the loop is healthy.
 *
 * The record is one small JSON file, `<dir>/hang-<pid>-<set id>.json`, written whole to a
 * temporary file and renamed over it (a reader sees the old record or the new one, never a part;
 * no fsync: it must survive the process, not the machine).
 *
 * The directory is the user's own (src/core/statedir.h), made (mode 0700) and opened at setup,
 * judged on what was opened, and every record made relative to it (ownfiles.h): a directory or
 * link swapped in at its path after setup is never written into, a file planted at any name never
 * written through. A refused directory is counted at each hang and its reason kept for the main
 * thread to log; the hang gets no record.
 *
 * A record's name holds the pid, the set's id and random bytes: processes of other PID
 * namespaces sharing the directory have the same pids.
 *
 * The record's size is bounded: a stack longer than LW_HANGREC_STACK_MAX is left out (and the
 * record says so). Its buffers (about 130 KiB) are allocated at the set's first hang, on the
 * worker thread (most sets never hang: a set made per request must not cost them), and kept;
 * memory that runs out then is a failed write. A write that fails (a read-only or full disk) is
 * counted; the first error is kept for the main thread to log. */
#ifndef LW_DRIVER_HANGREC_H_
#define LW_DRIVER_HANGREC_H_

#include <stddef.h>
#include <stdint.h>

#include "../core/conditions.h"
#include "../core/worker.h"
#include "../platform/atomic.h"
#include "ownfiles.h"

#include <uv.h>

#define LW_HANGREC_STACK_MAX (64 * 1024)
/* A refresh of the record while its hang lasts, at most this often; the first comes half that
 * after the hang was flagged, so that the record of a process killed k s into its hang says at
 * least k - 0.5 s until the hang has lasted a second past its detection, k - 1 s after. */
#define LW_HANGREC_REFRESH_MS 1000.0

typedef struct lw_hangrec_s {
  uv_mutex_t mu;    /* guards all but the counters: the directory may change while the worker runs */
  int mu_ok;
  char *dir;        /* NULL: no records */
  char name[64];    /* hang-<pid>-<id>-<8 hex>.json */
  lw_owndir_t d;    /* the directory, opened at setup (ownfiles.h) */
  int open_rc;      /* its opening: 0, 1 refused, or a libuv error (each write fails with it) */
  int refused_now;  /* the directory was refused for this hang: counted once until it ends */
  char *writer;     /* JSON members naming the writer ("process":{...},"thread":{...}), given by the owner */
  char *buf;        /* the record being written */
  size_t cap;
  char *stack;      /* the stack copied from the registry of sets */
  double wall_origin; /* epoch ms at the set's clock's 0 */
  uint64_t set_id;
  /* Worker thread (or the main thread once it is joined). */
  int exists;         /* the file was written and not removed */
  double due;         /* its next refresh */
  lw_atomic_i64 errors; /* writes or removals that failed */
  lw_atomic_i64 first_error; /* the libuv error of the first, 0 none */
  lw_atomic_i64 refused; /* hangs whose directory was refused */
  char refused_why[128];  /* the first refusal's reason, written before `refused` becomes 1 */
} lw_hangrec_t;

/* Returns LW_OK, or LW_ENOMEM when its mutex cannot be made (then records are never written). */
int lw_hangrec_init(lw_hangrec_t *r);
/* Main thread, at any time: records go to `dir` from now on (made and opened now; NULL:
 * nowhere), `writer` the JSON members that name the process and thread writing them (without
 * braces: `"process":{...},"thread":{...}`); a record in the old directory is removed.
 * Returns LW_OK, or LW_ENOMEM (then no records). */
int lw_hangrec_configure(lw_hangrec_t *r, const char *dir, const char *writer, double wall_origin,
                         uint64_t set_id, int pid);
/* Once the worker thread is joined: frees all (the record removed first). */
void lw_hangrec_free(lw_hangrec_t *r);

/* Worker thread, after each run: the messages of the run, then the hang in progress, if any
 * (lw_worker_hang_peek). Writes, refreshes or removes the record. */
void lw_hangrec_update(lw_hangrec_t *r, const lw_msg_t *msgs, size_t n, const lw_worker_t *w,
                       double now);
/* The hang is over (the worker has stopped): removes the record if one exists. */
void lw_hangrec_clear(lw_hangrec_t *r);
/* The thread is going away while the worker (stopped) sees a hang in progress (a worker thread
 * terminated by its owner): the record written once more, as of `now`, with "ended":"terminated",
 * and left in the directory for a set of the process, or the next process, to report. */
void lw_hangrec_terminated(lw_hangrec_t *r, const lw_worker_t *w, double now);

/* Any thread: whether `dir` may keep records: lw_owndir_check (ownfiles.h). */
int lw_hangrec_check_dir(const char *dir, char *why, size_t cap);

/* The record's JSON text for the hang `peek` (a HANG_END as if it ended at `now`), with `stack`
 * (JSON, or NULL), "ended":"terminated" when `terminated`: written to `buf` (at most `cap` bytes, NUL included). Returns its length, or
 * -1 if it does not fit. Pure: tested by itself. */
int lw_hangrec_format(char *buf, size_t cap, const char *writer, double wall_origin,
                      const lw_msg_t *peek, const lw_cause_t *cause, const char *stack,
                      int stack_left_out, double now, int terminated);

#endif /* LW_DRIVER_HANGREC_H_ */
