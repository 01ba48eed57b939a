/* SPEC §14, the line said while a hang runs (src/core/hangline.c): once per hang, with its frames
 * when the stack is known, without them LW_HANGLINE_WAIT_MS after the hang was flagged; its text. */
#include <math.h>
#include <string.h>

#include "core/hangline.h"
#include "test.h"

TEST_IMPL(hangline_once_per_hang) {
  lw_hangline_t l;
  lw_hangline_init(&l);
  /* Flagged at 2000 with no stack: nothing until the wait is over, then once. */
  ASSERT_EQ(lw_hangline_due(&l, 2000, 2000, 0), 0);
  ASSERT_EQ(lw_hangline_due(&l, 2000, 2000 + LW_HANGLINE_WAIT_MS - 1, 0), 0);
  ASSERT_EQ(lw_hangline_said(&l, 2000), 0);
  ASSERT_EQ(lw_hangline_due(&l, 2000, 2000 + LW_HANGLINE_WAIT_MS, 0), 1);
  ASSERT_EQ(lw_hangline_said(&l, 2000), 1);
  ASSERT_EQ(lw_hangline_due(&l, 2000, 2000 + LW_HANGLINE_WAIT_MS + 100, 0), 0);
  /* Its stack arriving later says nothing more. */
  ASSERT_EQ(lw_hangline_due(&l, 2000, 4000, 1), 0);
  /* The next hang: said at once when its frames are known at its first run. */
  ASSERT_EQ(lw_hangline_due(&l, 9000, 9000, 1), 1);
  ASSERT_EQ(lw_hangline_due(&l, 9000, 9100, 1), 0);
  /* Frames arriving inside the wait: said then, not earlier. */
  ASSERT_EQ(lw_hangline_due(&l, 20000, 20100, 0), 0);
  ASSERT_EQ(lw_hangline_due(&l, 20000, 20200, 1), 1);
  ASSERT_EQ(lw_hangline_due(&l, 20000, 20300, 1), 0);
  return 0;
}

TEST_IMPL(hangline_text) {
  char buf[LW_HANGLINE_MAX];
  lw_cause_t c;
  size_t n;
  const char *stack = "{\"frames\":[{\"functionName\":\"blockOnce\",\"url\":\"file:///srv/app.js\",\"lineNumber\":19,"
                      "\"columnNumber\":3},{\"functionName\":\"\",\"url\":\"/srv/a\\\"b.js\",\"lineNumber\":40,"
                      "\"columnNumber\":1},{\"functionName\":\"c\",\"url\":\"x.js\",\"lineNumber\":1,\"columnNumber\":1},"
                      "{\"functionName\":\"d\",\"url\":\"y.js\",\"lineNumber\":2,\"columnNumber\":1}],\"trace\":null}";
  memset(&c, 0, sizeof(c));
  c.known = 1;
  c.cpu_ms = 1470;
  c.span_ms = 1500;
  c.blocked_ms = 30;
  c.runq_ms = c.throttled_ms = c.gc_ms = NAN;
  c.dominant = LW_CAUSE_BUSY;
  n = lw_hangline_format(buf, sizeof(buf), "", 2049, &c, stack);
  ASSERT_STR_EQ(buf, "lagwatch: hang in progress on the main thread: held 2.0 s so far, cause so far: busy "
                     "(98% of 1500 ms), at blockOnce (/srv/app.js:19) < (anonymous) (/srv/a\"b.js:40) < c (x.js:1)\n");
  ASSERT_EQ(n, strlen(buf));
  /* No cause read, no stack; a process that is not alone named. */
  n = lw_hangline_format(buf, sizeof(buf), "pid 7, cluster worker 2: ", 500, NULL, NULL);
  ASSERT_STR_EQ(buf, "lagwatch: pid 7, cluster worker 2: hang in progress on the main thread: held 0.5 s so far, "
                     "cause so far: unknown\n");
  c.dominant = LW_CAUSE_BLOCKED;
  c.blocked_ms = 1200;
  lw_hangline_format(buf, sizeof(buf), "", 3000, &c, "{\"frames\":[],\"trace\":null}");
  ASSERT_STR_EQ(buf, "lagwatch: hang in progress on the main thread: held 3.0 s so far, cause so far: blocked "
                     "(80% of 1500 ms)\n");
  return 0;
}

TEST_IMPL(hangline_long_frames_cut) {
  char buf[LW_HANGLINE_MAX], stack[4096];
  size_t n;
  int i;
  strcpy(stack, "{\"frames\":[{\"functionName\":\"");
  for (i = 0; i < 3; i++) {
    size_t at = strlen(stack);
    memset(stack + at, 'f', 120);
    strcpy(stack + at + 120, i < 2 ? "\",\"url\":\"u\",\"lineNumber\":1},{\"functionName\":\""
                                   : "\",\"url\":\"u\",\"lineNumber\":1}]}");
  }
  n = lw_hangline_format(buf, 200, "", 1000, NULL, stack);
  ASSERT_EQ(n, strlen(buf));
  ASSERT(n < 200);
  ASSERT_EQ(buf[n - 1], '\n');
  return 0;
}

/* The line said before a signal ends a held process: held so far, a hang's record named. */
TEST_IMPL(hangline_signal_text) {
  char buf[LW_HANGLINE_MAX];
  size_t n = lw_hangline_signal_format(buf, sizeof(buf), "", "TERM", 1534, 0, 0);
  ASSERT_STR_EQ(buf, "lagwatch: SIGTERM while the main thread is held (1.5 s so far, under the hang threshold): "
                     "the signal ends the process, as it would without lagwatch\n");
  ASSERT_EQ(n, strlen(buf));
  lw_hangline_signal_format(buf, sizeof(buf), "", "INT", 6800, 1, 1);
  ASSERT_STR_EQ(buf, "lagwatch: SIGINT while the main thread is held (6.8 s so far): the signal ends the process, "
                     "as it would without lagwatch; the next start reports the hang from its record\n");
  /* A process that is not alone (a cluster's worker) is named after "lagwatch: ". */
  lw_hangline_signal_format(buf, sizeof(buf), "pid 7, cluster worker 2: ", "HUP", 6800, 1, 0);
  ASSERT_STR_EQ(buf, "lagwatch: pid 7, cluster worker 2: SIGHUP while the main thread is held (6.8 s so far): the signal ends the process, "
                     "as it would without lagwatch\n");
  /* Cut to fit, never past the buffer. */
  n = lw_hangline_signal_format(buf, 20, "", "TERM", 1534, 0, 0);
  ASSERT_EQ(n, 19);
  ASSERT_EQ(strlen(buf), 19);
  return 0;
}

/* A line as JSON (LAGWATCH_LOG_FORMAT=json): the head, the time, the message after "lagwatch: "
 * escaped (quotes, backslashes, control bytes), one object on one line; cut to fit, still whole. */
TEST_IMPL(hangline_json) {
  char out[LW_HANGLINE_JSON_MAX], small[64];
  const char line[] = "lagwatch: hang in progress: held 2.0 s, at \"q\" (c:\\x\x1b[2J)\n";
  size_t n = lw_hangline_json(out, sizeof(out), "{\"level\":40,\"pid\":7", 1.5e12, line, strlen(line));
  ASSERT_STR_EQ(out, "{\"level\":40,\"pid\":7,\"time\":1500000000000,\"msg\":\"hang in progress: held 2.0 s, at "
                     "\\\"q\\\" (c:\\\\x\\u001b[2J)\"}\n");
  ASSERT_EQ(n, strlen(out));
  n = lw_hangline_json(small, sizeof(small), "{\"level\":40,\"pid\":7", 1.5e12, line, strlen(line));
  ASSERT_EQ(n, strlen(small));
  ASSERT(n < sizeof(small));
  ASSERT_EQ(strncmp(small + n - 3, "\"}\n", 3), 0);
  /* A head that does not fit: an empty object, never a part. */
  n = lw_hangline_json(small, 16, "{\"level\":40,\"pid\":7,\"hostname\":\"h\"", 1.5e12, line, strlen(line));
  ASSERT_STR_EQ(small, "{}\n");
  return 0;
}
