/* The signals that end a process while its main thread is held: see sigend.h. */
#include "sigend.h"

#include <uv.h>

#include "atomic.h"

#include <string.h>

#ifdef _WIN32
#include <signal.h>
#ifndef SIGHUP
#define SIGHUP 1
#endif
#else
#include <signal.h>
#include <string.h>
#include <unistd.h>
#endif

#define LW_SIGEND_N 3
static const int lw__sigend_sigs[LW_SIGEND_N] = {SIGINT, SIGTERM, SIGHUP};
static const char *const lw__sigend_names[LW_SIGEND_N] = {"INT", "TERM", "HUP"};
static lw_atomic_i64 armed[LW_SIGEND_N];
static lw_atomic_i64 pending_ns[LW_SIGEND_N]; /* 0: none */

static int index_of(int sig) {
  int i;
  for (i = 0; i < LW_SIGEND_N; i++)
    if (lw__sigend_sigs[i] == sig) return i;
  return -1;
}

const char *lw_sigend_name(int sig) {
  int i = index_of(sig);
  return i < 0 ? "?" : lw__sigend_names[i];
}

int lw_sigend_number(const char *name) {
  int i;
  for (i = 0; i < LW_SIGEND_N; i++)
    if (name[0] == 'S' && name[1] == 'I' && name[2] == 'G' && strcmp(name + 3, lw__sigend_names[i]) == 0)
      return lw__sigend_sigs[i];
  return 0;
}

void lw_sigend_arm(int sig, int on) {
  int i = index_of(sig);
  if (i < 0) return;
  lw_atomic_store(&armed[i], on ? 1 : 0);
  if (!on) lw_atomic_store(&pending_ns[i], 0);
}

void lw_sigend_taken(int sig) {
  int i = index_of(sig);
  if (i >= 0) lw_atomic_store(&pending_ns[i], 0);
}

int lw_sigend_pending(uint64_t *at_ns) {
  int i, sig = 0;
  uint64_t first = 0;
  for (i = 0; i < LW_SIGEND_N; i++) {
    uint64_t at = (uint64_t)lw_atomic_load(&pending_ns[i]);
    if (at == 0 || !lw_atomic_load_relaxed(&armed[i])) continue;
    if (sig == 0 || at < first) {
      sig = lw__sigend_sigs[i];
      first = at;
    }
  }
  *at_ns = first;
  return sig;
}

#ifdef _WIN32

int lw_sigend_install(void) { return 0; }

void lw_sigend_default_and_raise(int sig) {
  signal(sig, SIG_DFL);
  raise(sig);
}

#else

/* The handler each signal had when this one was installed over it (libuv's). */
static struct sigaction previous[LW_SIGEND_N];

static void on_signal(int sig, siginfo_t *info, void *uc) {
  int i = index_of(sig);
  if (i >= 0 && lw_atomic_load_relaxed(&armed[i]) && lw_atomic_load_relaxed(&pending_ns[i]) == 0)
    lw_atomic_store(&pending_ns[i], (int64_t)uv_hrtime());
  if (i < 0) return;
  if (previous[i].sa_flags & SA_SIGINFO) {
    if (previous[i].sa_sigaction != NULL) previous[i].sa_sigaction(sig, info, uc);
  } else if (previous[i].sa_handler != SIG_DFL && previous[i].sa_handler != SIG_IGN &&
             previous[i].sa_handler != NULL) {
    previous[i].sa_handler(sig);
  }
}

int lw_sigend_install(void) {
  int i, n = 0;
  for (i = 0; i < LW_SIGEND_N; i++) {
    struct sigaction now, sa;
    if (sigaction(lw__sigend_sigs[i], NULL, &now) != 0) continue;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal) {
      n++;
      continue; /* ours already, over the handler kept */
    }
    if (!(now.sa_flags & SA_SIGINFO) && (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)) continue;
    previous[i] = now;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    /* The flags and mask of the handler chained to (libuv's: SA_RESTART, every signal masked). */
    sa.sa_flags = (now.sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
    sa.sa_mask = now.sa_mask;
    if (sigaction(lw__sigend_sigs[i], &sa, NULL) == 0) n++;
  }
  return n;
}

void lw_sigend_default_and_raise(int sig) {
  struct sigaction sa;
  sigset_t set;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  /* This thread's mask (sigprocmask: pthread_sigmask is glibc 2.32's, newer than the prebuilds'
   * oldest glibc), so that the signal can reach it too. */
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  kill(getpid(), sig);
}

#endif
