/* Files of the user's own (SPEC §13): a directory judged by src/core/statedir.h and files written
 * in it whole, each created new and renamed over its name. What a hang record (hangrec.h) and the
 * blocking profile's file (lib/register.js, through the binding) are written with.
 *
 * POSIX: the directory is opened once (its missing levels made with mode 0700), without following
 * a link at its last level, and judged on what was opened; every file is then made relative to that
 * descriptor (openat), so that a directory or link swapped in at its path later is never written
 * into. The temporary file is created, never opened: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, under a
 * name no one can guess (random bytes), so a link, file or FIFO planted at any name is never
 * written through, truncated or waited on; the rename replaces whatever has the file's name (a
 * link itself, not its target). Windows has no descriptor of a directory to write relative to:
 * the path is judged again before each write, and CREATE_NEW refuses any name that exists. */
#ifndef LW_DRIVER_OWNFILES_H_
#define LW_DRIVER_OWNFILES_H_

#include <stddef.h>

typedef struct lw_owndir_s {
  char *path; /* NULL: closed */
  int fd;     /* POSIX: the open directory; -1 elsewhere */
} lw_owndir_t;

/* Any thread: whether `dir` may hold the user's files (src/core/statedir.h), judged on the entry
 * itself (a link is not followed), without making it. Returns 0 when it may (or does not exist
 * yet), 1 when it is refused (its reason in `why`, at most `cap` bytes), or a libuv error when it
 * cannot be looked at. */
int lw_owndir_check(const char *dir, char *why, size_t cap);

/* `d` on `dir`: made where missing (`make`), opened and judged. Returns 0, 1 when refused (`why`
 * filled), or a libuv error (UV_ENOENT when it is missing and not to be made); `d` is open only
 * on 0. */
int lw_owndir_open(lw_owndir_t *d, const char *dir, int make, char *why, size_t cap);
void lw_owndir_close(lw_owndir_t *d);
/* `d` judged again as it is now (POSIX: the open directory's status; Windows: its path): one
 * made writable by others since it was opened is refused. Returns 0, 1 refused (`why` filled),
 * or a libuv error. */
int lw_owndir_recheck(lw_owndir_t *d, char *why, size_t cap);

/* `len` bytes of `text` as the file `name` of `d`, whole (a reader sees the old file or the new
 * one, never a part; no fsync). Returns 0, or a libuv error (UV_EACCES: the directory refused on
 * Windows' re-check). */
int lw_owndir_write(lw_owndir_t *d, const char *name, const char *text, size_t len);
/* Removes the file `name` of `d`. Returns 0 or a libuv error. */
int lw_owndir_unlink(lw_owndir_t *d, const char *name);

#endif /* LW_DRIVER_OWNFILES_H_ */
