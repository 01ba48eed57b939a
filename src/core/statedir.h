/* The state directory's rule (SPEC §13): the directory that keeps the records of running hangs is
 * the user's own. One that is a symbolic link, not a directory, owned by another user or writable
 * by group or others is refused: its records could be planted by someone else (reported as the
 * user's hangs) or its files swapped for links (written through them). Pure: the driver reads the
 * directory's status (without following a link) and asks here. */
#ifndef LW_CORE_STATEDIR_H_
#define LW_CORE_STATEDIR_H_

#include <stddef.h>

typedef enum {
  LW_DIR_OK = 0,
  LW_DIR_LINK,    /* a symbolic link (never followed) */
  LW_DIR_NOT_DIR, /* a file or anything else */
  LW_DIR_OWNER,   /* owned by another user */
  LW_DIR_MODE,    /* writable by group or others */
  LW_REC_NOT_FILE, /* a record that is not a regular file */
  LW_REC_SIZE     /* a record larger than LW_RECORD_MAX */
} lw_dir_verdict_t;

/* A record is a few KiB and its stack at most 64 KiB (LW_HANGREC_STACK_MAX): anything larger is
 * no record of lagwatch's. */
#define LW_RECORD_MAX (128 * 1024)

/* What a directory's status says: `is_link` and `is_dir` of the entry itself, its owner's uid,
 * its permission bits, the uid of the process (its effective one). `check_owner` 0 where the
 * platform tells no owner or mode (Windows): then only the kind is judged. */
lw_dir_verdict_t lw_statedir_verdict(int is_link, int is_dir, unsigned long uid, unsigned long mode,
                                     unsigned long euid, int check_owner);

/* A record found in that directory, read only when it is one of the user's own: the entry itself
 * (not followed) a regular file, owned by the process's user (where the platform tells owners),
 * of at most LW_RECORD_MAX bytes. Anything else is skipped, never reported as a hang. */
lw_dir_verdict_t lw_statedir_record_verdict(int is_link, int is_file, unsigned long uid, unsigned long euid,
                                            int check_owner, double size);

/* The verdict in words for a log line, e.g. "owned by uid 65534", "mode 0777", "a symbolic
 * link" (at most `cap` bytes, NUL included; "" for LW_DIR_OK). */
void lw_statedir_why(lw_dir_verdict_t v, unsigned long uid, unsigned long mode, char *buf, size_t cap);

#endif /* LW_CORE_STATEDIR_H_ */
