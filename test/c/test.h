/* A tiny test harness in the style of libuv's test/task.h.
 *
 * A test is `TEST_IMPL(name) { ...; return 0; }`, declared and listed in test-list.h. The runner
 * (runner.c) runs each test in a child process, so a failed assertion, a crash or a leak found
 * by LeakSanitizer at the child's exit fails that test only.
 *
 * Every assertion evaluates its arguments once, and on failure prints file:line, the expression
 * and the values, then the context set with TEST_CONTEXT() (if any), and ends the test as failed.
 */
#ifndef LW_TEST_H_
#define LW_TEST_H_

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lw_task_s {
  const char *name;
  int (*main)(void);
} lw_task_t;

#define TEST_DECLARE(name) int run_test_##name(void);
#define TEST_IMPL(name)                                                                         \
  int run_test_##name(void);                                                                    \
  int run_test_##name(void)

#define TASK_LIST_START lw_task_t TASKS[] = {
#define TEST_ENTRY(name) {#name, run_test_##name},
#define TASK_LIST_END                                                                           \
  { NULL, NULL }                                                                                \
  }                                                                                             \
  ;

/* Ends the current test as failed; never returns. */
void lw_test_fail_(void)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* Sets a line of context (a seed, a step) printed with the next failure; "" clears it. */
void lw_test_context_(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
#define TEST_CONTEXT(...) lw_test_context_(__VA_ARGS__)

#define LW_TEST_FAILED_(...)                                                                    \
  do {                                                                                          \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                             \
    fprintf(stderr, __VA_ARGS__);                                                               \
    fputc('\n', stderr);                                                                        \
    lw_test_fail_();                                                                            \
  } while (0)

#define ASSERT(expr)                                                                            \
  do {                                                                                          \
    if (!(expr)) LW_TEST_FAILED_("ASSERT(%s) failed", #expr);                                   \
  } while (0)

#define ASSERT_TRUE(expr)                                                                       \
  do {                                                                                          \
    if (!(expr)) LW_TEST_FAILED_("ASSERT_TRUE(%s) failed", #expr);                              \
  } while (0)

#define ASSERT_FALSE(expr)                                                                      \
  do {                                                                                          \
    if (expr) LW_TEST_FAILED_("ASSERT_FALSE(%s) failed", #expr);                                \
  } while (0)

/* Integers, compared as int64_t (every count of the core fits). */
#define ASSERT_INT_OP_(name, a, op, b)                                                          \
  do {                                                                                          \
    int64_t a_ = (int64_t)(a);                                                                  \
    int64_t b_ = (int64_t)(b);                                                                  \
    if (!(a_ op b_))                                                                            \
      LW_TEST_FAILED_("%s(%s, %s) failed: %" PRId64 " " #op " %" PRId64 " is false", name, #a,  \
                      #b, a_, b_);                                                              \
  } while (0)

#define ASSERT_EQ(a, b) ASSERT_INT_OP_("ASSERT_EQ", a, ==, b)
#define ASSERT_NE(a, b) ASSERT_INT_OP_("ASSERT_NE", a, !=, b)
#define ASSERT_LT(a, b) ASSERT_INT_OP_("ASSERT_LT", a, <, b)
#define ASSERT_LE(a, b) ASSERT_INT_OP_("ASSERT_LE", a, <=, b)
#define ASSERT_GT(a, b) ASSERT_INT_OP_("ASSERT_GT", a, >, b)
#define ASSERT_GE(a, b) ASSERT_INT_OP_("ASSERT_GE", a, >=, b)

/* Unsigned 64-bit values (seqs, tokens). */
#define ASSERT_UINT64_EQ(a, b)                                                                  \
  do {                                                                                          \
    uint64_t a_ = (uint64_t)(a);                                                                \
    uint64_t b_ = (uint64_t)(b);                                                                \
    if (!(a_ == b_))                                                                            \
      LW_TEST_FAILED_("ASSERT_UINT64_EQ(%s, %s) failed: %" PRIu64 " != %" PRIu64, #a, #b, a_,   \
                      b_);                                                                      \
  } while (0)

/* Doubles, compared exactly: the core keeps every time it is given as given. */
#define ASSERT_DBL_OP_(name, a, op, b)                                                          \
  do {                                                                                          \
    double a_ = (double)(a);                                                                    \
    double b_ = (double)(b);                                                                    \
    if (!(a_ op b_))                                                                            \
      LW_TEST_FAILED_("%s(%s, %s) failed: %.17g " #op " %.17g is false", name, #a, #b, a_, b_); \
  } while (0)

#define ASSERT_DBL_EQ(a, b) ASSERT_DBL_OP_("ASSERT_DBL_EQ", a, ==, b)
#define ASSERT_DBL_NE(a, b) ASSERT_DBL_OP_("ASSERT_DBL_NE", a, !=, b)
#define ASSERT_DBL_LT(a, b) ASSERT_DBL_OP_("ASSERT_DBL_LT", a, <, b)
#define ASSERT_DBL_LE(a, b) ASSERT_DBL_OP_("ASSERT_DBL_LE", a, <=, b)
#define ASSERT_DBL_GT(a, b) ASSERT_DBL_OP_("ASSERT_DBL_GT", a, >, b)
#define ASSERT_DBL_GE(a, b) ASSERT_DBL_OP_("ASSERT_DBL_GE", a, >=, b)

/* |a - b| <= rel * |b|. */
#define ASSERT_DBL_REL(a, b, rel)                                                               \
  do {                                                                                          \
    double a_ = (double)(a);                                                                    \
    double b_ = (double)(b);                                                                    \
    double r_ = (double)(rel);                                                                  \
    if (!(fabs(a_ - b_) <= r_ * fabs(b_)))                                                      \
      LW_TEST_FAILED_("ASSERT_DBL_REL(%s, %s, %s) failed: %.17g is not within %.17g of %.17g", \
                      #a, #b, #rel, a_, r_ * fabs(b_), b_);                                     \
  } while (0)

#define ASSERT_NAN(a)                                                                           \
  do {                                                                                          \
    double a_ = (double)(a);                                                                    \
    if (!isnan(a_)) LW_TEST_FAILED_("ASSERT_NAN(%s) failed: %.17g", #a, a_);                    \
  } while (0)

#define ASSERT_NULL(p)                                                                          \
  do {                                                                                          \
    const void *p_ = (const void *)(p);                                                         \
    if (p_ != NULL) LW_TEST_FAILED_("ASSERT_NULL(%s) failed: %p", #p, p_);                      \
  } while (0)

#define ASSERT_NOT_NULL(p)                                                                      \
  do {                                                                                          \
    const void *p_ = (const void *)(p);                                                         \
    if (p_ == NULL) LW_TEST_FAILED_("ASSERT_NOT_NULL(%s) failed", #p);                          \
  } while (0)

#define ASSERT_PTR_EQ(a, b)                                                                     \
  do {                                                                                          \
    const void *a_ = (const void *)(a);                                                         \
    const void *b_ = (const void *)(b);                                                         \
    if (a_ != b_) LW_TEST_FAILED_("ASSERT_PTR_EQ(%s, %s) failed: %p != %p", #a, #b, a_, b_);    \
  } while (0)

#define ASSERT_STR_EQ(a, b)                                                                     \
  do {                                                                                          \
    const char *a_ = (a);                                                                       \
    const char *b_ = (b);                                                                       \
    if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)                                        \
      LW_TEST_FAILED_("ASSERT_STR_EQ(%s, %s) failed: \"%s\" != \"%s\"", #a, #b,                 \
                      a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                  \
  } while (0)

#endif /* LW_TEST_H_ */
