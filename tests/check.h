/*
 * check.h - the small assertion kit shared by the test executables.
 * A failed CHECK prints where and why and marks the test failed; the
 * test goes on so that one run reports every failure. CHECK_DONE()
 * returns the exit status meson expects (0 pass, 1 fail, 77 skip).
 */
#ifndef CK_TEST_CHECK_H
#define CK_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clkit/clkit.h"

static int check_failures;
static int check_count;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++check_count;                                                             \
    if (!(cond)) {                                                             \
      ++check_failures;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_MSG(cond, ...)                                                   \
  do {                                                                         \
    ++check_count;                                                             \
    if (!(cond)) {                                                             \
      ++check_failures;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* A clkit call that must succeed; prints the library's message if not. */
#define CHECK_OK(call)                                                         \
  do {                                                                         \
    ++check_count;                                                             \
    ck_status check_status_ = (call);                                          \
    if (check_status_ != CK_OK) {                                              \
      const char *check_message_ = "";                                         \
      ck_error_get_last(&check_message_);                                      \
      ++check_failures;                                                        \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__,       \
              #call, (int)check_status_, check_message_);                      \
    }                                                                          \
  } while (0)

#define CHECK_NEAR(a, b, tolerance)                                            \
  CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tolerance),                    \
            "%.9g vs %.9g (tolerance %.3g)", (double)(a), (double)(b),         \
            (double)(tolerance))

#define CHECK_SKIP(...)                                                        \
  do {                                                                         \
    fprintf(stdout, "SKIP: ");                                                 \
    fprintf(stdout, __VA_ARGS__);                                              \
    fputc('\n', stdout);                                                       \
    return 77;                                                                 \
  } while (0)

#define CHECK_DONE()                                                           \
  (check_count == 0 ? (fprintf(stderr, "no checks ran\n"), 1)                  \
                    : (fprintf(stdout, "%d checks, %d failed\n", check_count,  \
                               check_failures),                                \
                       check_failures ? 1 : 0))

#endif /* CK_TEST_CHECK_H */
