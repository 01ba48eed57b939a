/* The state directory's rule: see statedir.h. */
#include "statedir.h"

#include <stdio.h>

lw_dir_verdict_t lw_statedir_verdict(int is_link, int is_dir, unsigned long uid, unsigned long mode,
                                     unsigned long euid, int check_owner) {
  if (is_link) return LW_DIR_LINK;
  if (!is_dir) return LW_DIR_NOT_DIR;
  if (!check_owner) return LW_DIR_OK;
  if (uid != euid) return LW_DIR_OWNER;
  /* Group or others may create, rename or remove entries: 020 or 002. */
  if ((mode & 022) != 0) return LW_DIR_MODE;
  return LW_DIR_OK;
}

lw_dir_verdict_t lw_statedir_record_verdict(int is_link, int is_file, unsigned long uid, unsigned long euid,
                                            int check_owner, double size) {
  if (is_link) return LW_DIR_LINK;
  if (!is_file) return LW_REC_NOT_FILE;
  if (check_owner && uid != euid) return LW_DIR_OWNER;
  if (!(size <= LW_RECORD_MAX)) return LW_REC_SIZE;
  return LW_DIR_OK;
}

void lw_statedir_why(lw_dir_verdict_t v, unsigned long uid, unsigned long mode, char *buf, size_t cap) {
  if (cap == 0) return;
  switch (v) {
    case LW_DIR_LINK: snprintf(buf, cap, "a symbolic link"); break;
    case LW_DIR_NOT_DIR: snprintf(buf, cap, "not a directory"); break;
    case LW_DIR_OWNER: snprintf(buf, cap, "owned by uid %lu", uid); break;
    case LW_DIR_MODE: snprintf(buf, cap, "mode 0%03lo, writable by group or others", mode & 0777); break;
    case LW_REC_NOT_FILE: snprintf(buf, cap, "not a regular file"); break;
    case LW_REC_SIZE: snprintf(buf, cap, "larger than %d bytes", LW_RECORD_MAX); break;
    default: buf[0] = '\0'; break;
  }
}
