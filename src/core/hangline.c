/* The line said while a hang runs: see hangline.h. */
#include "hangline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lw_hangline_init(lw_hangline_t *l) { l->said_for = NAN; }

int lw_hangline_set_who(lw_hangline_t *l, const char *who, const char *json_head) {
  if (who == NULL) who = "";
  if (json_head == NULL) json_head = "";
  if (strlen(who) >= sizeof(l->who) || strlen(json_head) >= sizeof(l->json_head)) {
    l->who[0] = l->json_head[0] = '\0';
    return -1;
  }
  snprintf(l->who, sizeof(l->who), "%s", who);
  snprintf(l->json_head, sizeof(l->json_head), "%s", json_head);
  return 0;
}

const char *lw_hangline_who(const lw_hangline_t *l) { return l->who; }
const char *lw_hangline_json_head(const lw_hangline_t *l) { return l->json_head; }

size_t lw_hangline_json(char *out, size_t cap, const char *head, double wall_ms, const char *line, size_t len) {
  static const char prefix[] = "lagwatch: ";
  static const char hex[] = "0123456789abcdef";
  size_t n = 0, i = 0;
  int k;
  if (cap < 8) {
    if (cap > 0) out[0] = '\0';
    return 0;
  }
  k = snprintf(out, cap, "%s,\"time\":%.0f,\"msg\":\"", head, wall_ms);
  if (k < 0 || (size_t)k >= cap - 4) {
    /* A head too long for `out`: an empty object rather than a part of one. */
    snprintf(out, cap, "{}\n");
    return strlen(out);
  }
  n = (size_t)k;
  if (len >= sizeof(prefix) - 1 && memcmp(line, prefix, sizeof(prefix) - 1) == 0) i = sizeof(prefix) - 1;
  if (len > 0 && line[len - 1] == '\n') len--;
  /* Each byte as JSON wants it; room is kept for the longest escape and the closing "}\n. */
  for (; i < len && n + 6 + 4 <= cap; i++) {
    unsigned char c = (unsigned char)line[i];
    if (c == '"' || c == '\\') {
      out[n++] = '\\';
      out[n++] = (char)c;
    } else if (c < 0x20 || c == 0x7f) {
      memcpy(out + n, "\\u00", 4);
      out[n + 4] = hex[c >> 4];
      out[n + 5] = hex[c & 15];
      n += 6;
    } else {
      out[n++] = (char)c;
    }
  }
  memcpy(out + n, "\"}\n", 4);
  return n + 3;
}

int lw_hangline_said(const lw_hangline_t *l, double detected_at) { return l->said_for == detected_at; }

int lw_hangline_due(lw_hangline_t *l, double detected_at, double now, int frames) {
  if (l->said_for == detected_at) return 0;
  if (!frames && now - detected_at < LW_HANGLINE_WAIT_MS) return 0;
  l->said_for = detected_at;
  return 1;
}

/* Appends at most `cap - 1 - *len` bytes of `s` (its first `n`) to buf, kept NUL-terminated. */
static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n) {
  if (*len + 1 >= cap) return;
  if (n > cap - 1 - *len) n = cap - 1 - *len;
  memcpy(buf + *len, s, n);
  *len += n;
  buf[*len] = '\0';
}

/* The JSON string value of "key" found from `*p` on (within the current frame object, which
 * ends at `end`), unescaped into `out` (cut at `cap`); 1 if found. */
static int json_string(const char *p, const char *end, const char *key, char *out, size_t cap) {
  size_t klen = strlen(key), n = 0;
  const char *q;
  for (q = p; q + klen + 3 < end; q++) {
    if (q[0] != '"' || strncmp(q + 1, key, klen) != 0 || q[klen + 1] != '"' || q[klen + 2] != ':') continue;
    q += klen + 3;
    if (*q != '"') return 0;
    for (q++; q < end && *q != '"'; q++) {
      if (*q == '\\' && q + 1 < end) q++;
      if (n + 1 < cap) out[n++] = *q;
    }
    out[n] = '\0';
    return 1;
  }
  return 0;
}

static long json_number(const char *p, const char *end, const char *key) {
  size_t klen = strlen(key);
  const char *q;
  long v = 0;
  for (q = p; q + klen + 3 < end; q++) {
    if (q[0] != '"' || strncmp(q + 1, key, klen) != 0 || q[klen + 1] != '"' || q[klen + 2] != ':') continue;
    for (q += klen + 3; q < end && *q >= '0' && *q <= '9'; q++) v = v * 10 + (*q - '0');
    return v;
  }
  return 0;
}

/* ", at f (file:line) < g (file:line)": the stack's first frames (JS's own stringify: no
 * whitespace, objects without nesting). */
static void put_frames(char *buf, size_t cap, size_t *len, const char *stack) {
  const char *p = strstr(stack, "\"frames\":[");
  int i;
  if (p == NULL) return;
  p += 10;
  for (i = 0; i < LW_HANGLINE_FRAMES && *p == '{'; i++) {
    const char *end = strchr(p, '}');
    char fn[128], url[384], tail[32];
    const char *u;
    if (end == NULL) return;
    if (!json_string(p, end, "functionName", fn, sizeof(fn)) || fn[0] == '\0') strcpy(fn, "(anonymous)");
    if (!json_string(p, end, "url", url, sizeof(url))) url[0] = '\0';
    u = strncmp(url, "file://", 7) == 0 ? url + 7 : url;
    put(buf, cap, len, i == 0 ? ", at " : " < ", i == 0 ? 5 : 3);
    put(buf, cap, len, fn, strlen(fn));
    put(buf, cap, len, " (", 2);
    put(buf, cap, len, u, strlen(u));
    snprintf(tail, sizeof(tail), ":%ld)", json_number(p, end, "lineNumber"));
    put(buf, cap, len, tail, strlen(tail));
    p = end + 1;
    if (*p == ',') p++;
  }
}

size_t lw_hangline_format(char *buf, size_t cap, const char *who, double held_ms, const lw_cause_t *cause,
                          const char *stack) {
  char head[256 + LW_HANGLINE_WHO_MAX];
  size_t len = 0;
  int n;
  buf[0] = '\0';
  n = snprintf(head, sizeof(head), "lagwatch: %shang in progress on the main thread: held %.1f s so far",
               who, held_ms / 1000.0);
  put(buf, cap, &len, head, (size_t)n);
  if (cause != NULL && cause->known && cause->span_ms > 0) {
    double ms = cause->dominant == LW_CAUSE_BLOCKED   ? cause->blocked_ms
                : cause->dominant == LW_CAUSE_STARVED ? cause->runq_ms
                : cause->dominant == LW_CAUSE_THROTTLED ? cause->throttled_ms
                                                        : cause->cpu_ms;
    double pct = isfinite(ms) ? 100.0 * ms / cause->span_ms : 0;
    n = snprintf(head, sizeof(head), ", cause so far: %s (%.0f%% of %.0f ms)",
                 lw_cause_name(cause->dominant), pct > 100 ? 100 : pct, cause->span_ms);
  } else {
    n = snprintf(head, sizeof(head), ", cause so far: unknown");
  }
  put(buf, cap, &len, head, (size_t)n);
  if (stack != NULL) put_frames(buf, cap - 1, &len, stack);
  /* The newline always fits: the frames were cut one byte short. */
  buf[len++] = '\n';
  buf[len] = '\0';
  return len;
}

size_t lw_hangline_signal_format(char *buf, size_t cap, const char *who, const char *name, double held_ms,
                                 int hang, int recorded) {
  int n = snprintf(buf, cap,
                   "lagwatch: %sSIG%s while the main thread is held (%.1f s so far%s): the signal ends the "
                   "process, as it would without lagwatch%s\n",
                   who, name, held_ms / 1000.0, hang ? "" : ", under the hang threshold",
                   !hang ? "" : recorded ? "; the next start reports the hang from its record" : "");
  if (n < 0) n = 0;
  if ((size_t)n >= cap) n = cap > 0 ? (int)cap - 1 : 0;
  return (size_t)n;
}
