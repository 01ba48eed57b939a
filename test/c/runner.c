/* Runs every test of test-list.h, or those named on the command line, each in a child process.
 *
 * Prints one line per test and, last, exactly "N passed, N failed"; exits 1 if any failed.
 * A child that exits 0 passed; a failed assertion exits 1; a sanitizer report (including a leak
 * found by LeakSanitizer when the child exits) or a signal fails the test too.
 * LW_TEST_NOFORK=1 runs the tests in this process (for a debugger); a failure then aborts.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "test-list.h"

#define TEST_TIMEOUT_S 300 /* LW_TEST_TIMEOUT=seconds overrides it */

static int nofork;
static char context[512];

void lw_test_context_(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(context, sizeof(context), fmt, ap);
  va_end(ap);
}

void lw_test_fail_(void) {
  if (context[0] != '\0') fprintf(stderr, "  context: %s\n", context);
  fflush(stdout);
  fflush(stderr);
  if (nofork) abort();
  /* _exit: the test was cut short, so what it still holds is not a leak worth reporting. */
  _exit(1);
}

static const lw_task_t *find_task(const char *name) {
  const lw_task_t *t;
  for (t = TASKS; t->name != NULL; t++)
    if (strcmp(t->name, name) == 0) return t;
  return NULL;
}

/* Returns 0 if the test passed; otherwise describes the failure in `why`. */
static int run_task(const lw_task_t *task, char *why, size_t whylen) {
  pid_t pid;
  int status;
  fflush(stdout);
  fflush(stderr);
  if (nofork) {
    context[0] = '\0';
    if (task->main() != 0) {
      snprintf(why, whylen, "returned non-zero");
      return 1;
    }
    return 0;
  }
  pid = fork();
  if (pid < 0) {
    snprintf(why, whylen, "fork failed");
    return 1;
  }
  if (pid == 0) {
    int rc;
    const char *timeout = getenv("LW_TEST_TIMEOUT");
    alarm(timeout != NULL && atoi(timeout) > 0 ? (unsigned)atoi(timeout) : TEST_TIMEOUT_S);
    context[0] = '\0';
    rc = task->main();
    fflush(stdout);
    fflush(stderr);
    exit(rc == 0 ? 0 : 1); /* exit(), not _exit(): LeakSanitizer checks at exit */
  }
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (WIFEXITED(status))
    snprintf(why, whylen, "exit code %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    snprintf(why, whylen, "signal %d%s", WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
  else
    snprintf(why, whylen, "status %d", status);
  return 1;
}

int main(int argc, char **argv) {
  const lw_task_t *t;
  int passed = 0, failed = 0, i;
  char why[128];
  const char *env = getenv("LW_TEST_NOFORK");
  nofork = env != NULL && env[0] == '1';

  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (t = TASKS; t->name != NULL; t++) printf("%s\n", t->name);
    return 0;
  }
  if (argc > 1) {
    for (i = 1; i < argc; i++) {
      if (find_task(argv[i]) == NULL) {
        fprintf(stderr, "no such test: %s\n", argv[i]);
        return 2;
      }
    }
    for (i = 1; i < argc; i++) {
      t = find_task(argv[i]);
      if (run_task(t, why, sizeof(why)) == 0) {
        printf("ok     %s\n", t->name);
        passed++;
      } else {
        printf("FAILED %s (%s)\n", t->name, why);
        failed++;
      }
    }
  } else {
    for (t = TASKS; t->name != NULL; t++) {
      if (run_task(t, why, sizeof(why)) == 0) {
        printf("ok     %s\n", t->name);
        passed++;
      } else {
        printf("FAILED %s (%s)\n", t->name, why);
        failed++;
      }
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  fflush(stdout);
  return failed ? 1 : 0;
}
