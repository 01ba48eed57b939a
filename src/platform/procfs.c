#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number at *p (leading blanks skipped), its end in *p. */
static int number(const char **p, double *out) {
  const char *s = *p;
  char *end;
  unsigned long long v;
  while (*s == ' ' || *s == '\t') s++;
  if (*s < '0' || *s > '9') return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno != 0 || end == s) return -1;
  *out = (double)v;
  *p = end;
  return 0;
}

int lw_procfs_schedstat(const char *text, double *cpu_ms, double *runq_ms) {
  const char *p = text;
  double cpu, runq;
  if (text == NULL || number(&p, &cpu) != 0 || number(&p, &runq) != 0) return -1;
  if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0') return -1;
  *cpu_ms = cpu / 1e6;
  *runq_ms = runq / 1e6;
  return 0;
}

int lw_procfs_cpu_stat(const char *text, double *throttled_ms) {
  const char *line = text;
  while (line != NULL && *line != '\0') {
    const char *p = line, *nl = strchr(line, '\n');
    double v;
    double scale = 0;
    if (strncmp(p, "throttled_usec ", 15) == 0) {
      p += 15;
      scale = 1e3;
    } else if (strncmp(p, "throttled_time ", 15) == 0) {
      p += 15;
      scale = 1e6;
    }
    if (scale != 0) {
      if (number(&p, &v) != 0 || (*p != '\n' && *p != '\0')) return -1;
      *throttled_ms = v / scale;
      return 0;
    }
    line = nl ? nl + 1 : NULL;
  }
  return -1;
}

/* The `n`th space-separated field of [line, eol) (0-based), as [*f, *f + *len). */
static int field(const char *line, const char *eol, int n, const char **f, size_t *len) {
  const char *p = line;
  while (p < eol) {
    const char *start;
    while (p < eol && *p == ' ') p++;
    start = p;
    while (p < eol && *p != ' ') p++;
    if (p == start) break;
    if (n-- == 0) {
      *f = start;
      *len = (size_t)(p - start);
      return 0;
    }
  }
  return -1;
}

/* 1 if the comma-separated list [s, s + len) has the token `tok`. */
static int has_token(const char *s, size_t len, const char *tok) {
  size_t t = strlen(tok);
  const char *end = s + len;
  while (s < end) {
    const char *c = memchr(s, ',', (size_t)(end - s));
    size_t n = c ? (size_t)(c - s) : (size_t)(end - s);
    if (n == t && memcmp(s, tok, t) == 0) return 1;
    s += n + 1;
  }
  return 0;
}

/* The mount point and root of the hierarchy: v2 (`v1` 0) or v1 with the cpu controller. */
static int find_mount(const char *mountinfo, int v1, const char **mp, size_t *mplen,
                      const char **root, size_t *rootlen) {
  const char *line = mountinfo;
  while (line != NULL && *line != '\0') {
    const char *nl = strchr(line, '\n');
    const char *eol = nl ? nl : line + strlen(line);
    const char *sep = line, *fstype, *opts;
    size_t flen, olen;
    /* The optional fields end at " - ". */
    while ((sep = strstr(sep, " - ")) != NULL && sep < eol) {
      if (field(sep + 3, eol, 0, &fstype, &flen) == 0 &&
          ((v1 && flen == 6 && memcmp(fstype, "cgroup", 6) == 0 &&
            field(sep + 3, eol, 2, &opts, &olen) == 0 && has_token(opts, olen, "cpu")) ||
           (!v1 && flen == 7 && memcmp(fstype, "cgroup2", 7) == 0)) &&
          field(line, eol, 3, root, rootlen) == 0 && field(line, eol, 4, mp, mplen) == 0)
        return 0;
      break;
    }
    line = nl ? nl + 1 : NULL;
  }
  return -1;
}

/* This process's group in the v1 cpu hierarchy or in v2, from /proc/self/cgroup. */
static int find_group(const char *cgroup, int v1, const char **path, size_t *len) {
  const char *line = cgroup;
  while (line != NULL && *line != '\0') {
    const char *nl = strchr(line, '\n');
    const char *eol = nl ? nl : line + strlen(line);
    const char *c1 = memchr(line, ':', (size_t)(eol - line));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
    if (c2 != NULL && c2[1] == '/') {
      int is_v2 = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
      if ((v1 && !is_v2 && has_token(c1 + 1, (size_t)(c2 - c1 - 1), "cpu")) || (!v1 && is_v2)) {
        *path = c2 + 1;
        *len = (size_t)(eol - c2 - 1);
        return 0;
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  return -1;
}

int lw_procfs_cgroup_cpu_stat(const char *cgroup, const char *mountinfo, char *out, size_t cap) {
  int v1;
  if (cgroup == NULL || mountinfo == NULL || cap == 0) return -1;
  for (v1 = 1; v1 >= 0; v1--) {
    const char *mp, *root, *path;
    size_t mplen, rootlen, plen;
    int n;
    if (find_group(cgroup, v1, &path, &plen) != 0 ||
        find_mount(mountinfo, v1, &mp, &mplen, &root, &rootlen) != 0)
      continue;
    /* The group's path is relative to the hierarchy's root that this mount shows. */
    if (!(rootlen == 1 && root[0] == '/') && plen >= rootlen && memcmp(path, root, rootlen) == 0) {
      path += rootlen;
      plen -= rootlen;
    }
    while (plen > 0 && path[plen - 1] == '/') plen--;
    n = snprintf(out, cap, "%.*s%.*s/cpu.stat", (int)mplen, mp, (int)plen, path);
    if (n < 0 || (size_t)n >= cap) {
      out[0] = '\0';
      return -1;
    }
    return 0;
  }
  return -1;
}
