/* The line said while a hang runs (SPEC §14): once per hang, written by the worker thread while
 * the main thread is held, so no JS of the app can say it. Pure: the driver passes the time, the
 * hang (as lw_worker_hang_peek gives it), its cause so far and the stack's JSON when taken, and
 * writes the text to stderr itself.
 *
 * When: the first worker run of a hang that has its top frames, or LW_HANGLINE_WAIT_MS after the
 * hang was flagged without them (no stack thread, or one that is late): then the line goes
 * without frames. A hang is known by its detection time; once said, never again for it. */
#ifndef LW_CORE_HANGLINE_H_
#define LW_CORE_HANGLINE_H_

#include <stddef.h>

#include "conditions.h"

/* How long a flagged hang waits for its stack before its line goes without frames. */
#define LW_HANGLINE_WAIT_MS 500.0
/* The most frames the line names, the innermost first. */
#define LW_HANGLINE_FRAMES 3
/* Room for the longest line (frames are cut to fit). */
#define LW_HANGLINE_MAX 1024
/* A signal that ends a process (SIGINT, SIGTERM, SIGHUP), which lagwatch alone listens to, and
 * which the main thread has not taken this long after it came, finds the main thread held: it
 * ends the process by its default action, as it would have at once without lagwatch (SPEC §14).
 * A loop that waits takes a signal at once; one that runs takes it at its next turn. */
#define LW_HANGLINE_SIGNAL_MS 400.0

/* Room for what names the process on its lines, and for the head of a JSON line. */
#define LW_HANGLINE_WHO_MAX 96
#define LW_HANGLINE_HEAD_MAX 640
/* Room for a line as JSON: every byte of the text escaped at worst, and the head. */
#define LW_HANGLINE_JSON_MAX (6 * LW_HANGLINE_MAX + LW_HANGLINE_HEAD_MAX)

typedef struct lw_hangline_s {
  double said_for; /* the detection time of the hang last said; NAN: none */
  /* What names the process when it is not alone ("pid 4242, cluster worker 2: "; "" when it is
   * alone), after "lagwatch: " on each of its lines. Set by the main thread before the line is on. */
  char who[LW_HANGLINE_WHO_MAX];
  /* Lines as JSON (LAGWATCH_LOG_FORMAT=json): the object's first members, as the main thread
   * wrote them ("{\"level\":40,\"pid\":4242,…"), to which each line adds its time and message;
   * "": text lines. */
  char json_head[LW_HANGLINE_HEAD_MAX];
} lw_hangline_t;

/* Nothing said yet; `who` and `json_head` are kept. */
void lw_hangline_init(lw_hangline_t *l);
/* `who` and `json_head` from now on (NULL: ""). Returns 0, or -1 when either does not fit (then
 * both are ""). */
int lw_hangline_set_who(lw_hangline_t *l, const char *who, const char *json_head);
/* What names the process ("" when alone), and the JSON lines' head ("": text lines). */
const char *lw_hangline_who(const lw_hangline_t *l);
const char *lw_hangline_json_head(const lw_hangline_t *l);
/* A line of text ("lagwatch: <text>\n", `len` bytes) as one JSON object on a line: `head`, then
 * "time" (`wall_ms`, ms since the epoch) and "msg" (the text after "lagwatch: ", escaped) into
 * `out` (`cap` >= LW_HANGLINE_JSON_MAX keeps all of it; a smaller one cuts the message, the
 * object still whole). Returns its length. */
size_t lw_hangline_json(char *out, size_t cap, const char *head, double wall_ms, const char *line, size_t len);
/* Whether the line of the hang flagged at `detected_at` is due at `now`, `frames` 1 when its
 * stack is known. Returns 1 once per hang, and records it as said. */
int lw_hangline_due(lw_hangline_t *l, double detected_at, double now, int frames);
/* Whether the line of the hang flagged at `detected_at` has been said (the driver then reads
 * nothing more for it). */
int lw_hangline_said(const lw_hangline_t *l, double detected_at);
/* The line (ending in '\n', `who` after its "lagwatch: ") for a hang held `held_ms` so far with `cause` so far (NULL or not
 * known: unknown) and `stack` (the stack thread's JSON, {"frames":[{functionName,url,lineNumber,
 * ...}],...}, or NULL) into `buf` (`cap` >= LW_HANGLINE_MAX). Returns its length. */
size_t lw_hangline_format(char *buf, size_t cap, const char *who, double held_ms, const lw_cause_t *cause,
                          const char *stack);
/* The line said before such a signal ends the process (`name`: "TERM"): the main thread held
 * `held_ms` so far; `hang` 1 if that is a hang (its own line follows, and `recorded` 1 if its
 * record is in the state directory, for the next start to report). Returns its length. */
size_t lw_hangline_signal_format(char *buf, size_t cap, const char *who, const char *name, double held_ms,
                                 int hang, int recorded);

#endif /* LW_CORE_HANGLINE_H_ */
