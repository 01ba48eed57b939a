/* SIGCONT seen: see sigcont.h. */
#include "sigcont.h"

#include <uv.h>

#include "atomic.h"

static lw_atomic_i64 cont_count;
static lw_atomic_i64 cont_ns;

uint64_t lw_sigcont_last(uint64_t *at_ns) {
  uint64_t n = (uint64_t)lw_atomic_load(&cont_count);
  *at_ns = (uint64_t)lw_atomic_load(&cont_ns);
  return n;
}

#ifdef _WIN32

int lw_sigcont_install(void) { return -1; }

#else

#include <signal.h>
#include <string.h>

static struct sigaction previous;
static int installed_rc = -1;
static uv_once_t once = UV_ONCE_INIT;

static void on_cont(int sig, siginfo_t *info, void *uc) {
  /* The time first, then the count that publishes it (sigcont.h). */
  lw_atomic_store(&cont_ns, (int64_t)uv_hrtime());
  lw_atomic_store(&cont_count, lw_atomic_load_relaxed(&cont_count) + 1);
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != NULL) previous.sa_sigaction(sig, info, uc);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
             previous.sa_handler != NULL) {
    previous.sa_handler(sig);
  }
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_cont;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  installed_rc = sigaction(SIGCONT, &sa, &previous) == 0 ? 0 : -1;
}

int lw_sigcont_install(void) {
  uv_once(&once, install); /* libuv's: pthread_once would need a newer glibc than the prebuilds' */
  return installed_rc;
}

#endif
