/* SPEC §14, the signals that end a process while its main thread is held
 * (src/platform/sigend.c): the handler installed over another one chains to it and marks a
 * signal lagwatch alone listens to, until the main thread takes it; the default action restored
 * ends the process by that very signal. Each test runs in a process of its own (runner.c). */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/sigend.h"
#include "test.h"

static volatile sig_atomic_t chained;
static void counting(int sig) {
  (void)sig;
  chained++;
}

static void install_counting(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = counting;
  sa.sa_flags = SA_RESTART;
  sigfillset(&sa.sa_mask);
  ASSERT_EQ(sigaction(sig, &sa, NULL), 0);
}

TEST_IMPL(sigend_marks_and_chains) {
  uint64_t at, first;
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  /* Only over a handler: SIGINT and SIGTERM keep their default action here. */
  ASSERT_EQ(sigaction(SIGINT, &dfl, NULL), 0);
  ASSERT_EQ(sigaction(SIGTERM, &dfl, NULL), 0);
  install_counting(SIGHUP);
  ASSERT_EQ(lw_sigend_install(), 1);
  ASSERT_EQ(lw_sigend_install(), 1); /* ours already: kept, not chained to itself */
  /* Not armed: chained, not marked. */
  raise(SIGHUP);
  ASSERT_EQ(chained, 1);
  ASSERT_EQ(lw_sigend_pending(&at), 0);
  /* Armed: marked at its first arrival, and chained. */
  lw_sigend_arm(SIGHUP, 1);
  raise(SIGHUP);
  ASSERT_EQ(chained, 2);
  ASSERT_EQ(lw_sigend_pending(&first), SIGHUP);
  ASSERT_GT(first, 0);
  raise(SIGHUP);
  ASSERT_EQ(chained, 3);
  ASSERT_EQ(lw_sigend_pending(&at), SIGHUP);
  ASSERT_EQ(at, first);
  /* Taken by the main thread: no longer pending; the next one is. */
  lw_sigend_taken(SIGHUP);
  ASSERT_EQ(lw_sigend_pending(&at), 0);
  raise(SIGHUP);
  ASSERT_EQ(lw_sigend_pending(&at), SIGHUP);
  /* Disarmed (the app listens too): nothing pending. */
  lw_sigend_arm(SIGHUP, 0);
  ASSERT_EQ(lw_sigend_pending(&at), 0);
  /* Names. */
  ASSERT_EQ(lw_sigend_number("SIGTERM"), SIGTERM);
  ASSERT_EQ(lw_sigend_number("SIGINT"), SIGINT);
  ASSERT_EQ(lw_sigend_number("TERM"), 0);
  ASSERT_EQ(lw_sigend_number("SIGKILL"), 0);
  ASSERT_STR_EQ(lw_sigend_name(SIGHUP), "HUP");
  ASSERT_STR_EQ(lw_sigend_name(SIGKILL), "?");
  return 0;
}

/* A process that catches SIGTERM and blocks it is ended by SIGTERM all the same. */
TEST_IMPL(sigend_default_and_raise_ends_by_the_signal) {
  int status;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    sigset_t set;
    install_counting(SIGTERM);
    lw_sigend_install();
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    lw_sigend_default_and_raise(SIGTERM);
    _exit(3); /* not reached */
  }
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_EQ(WIFSIGNALED(status), 1);
  ASSERT_EQ(WTERMSIG(status), SIGTERM);
  return 0;
}
