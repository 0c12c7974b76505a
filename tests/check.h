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

/* A clkit call that must be refused with CK_ERROR_INVALID_ARGUMENT and a
 * message holding mention (the argument at fault, "tour is NULL"). */
#define CHECK_INVALID(call, mention)                                           \
  do {                                                                         \
    ++check_count;                                                             \
    ck_status check_status_ = (call);                                          \
    const char *check_message_ = "";                                           \
    ck_error_get_last(&check_message_);                                        \
    if (check_status_ != CK_ERROR_INVALID_ARGUMENT ||                          \
        !strstr(check_message_, (mention))) {                                  \
      ++check_failures;                                                        \
      fprintf(stderr,                                                          \
              "%s:%d: %s returned %d, '%s' (want "                             \
              "CK_ERROR_INVALID_ARGUMENT, '%s')\n",                            \
              __FILE__, __LINE__, #call, (int)check_status_, check_message_,   \
              (const char *)(mention));                                        \
    }                                                                          \
  } while (0)

/* One public function whose pointer parameters are NULL in turn: call
 * passes NULL for parameter names[which] and usable values for the rest
 * (context is the caller's: a queue, a workload). */
typedef struct check_null_case {
  const char *function;
  const char *names[8]; /* in order; the list ends at the first NULL */
  ck_status (*call)(void *context, int which);
} check_null_case;

/* In a check_null_case's call: NULL for parameter `which`, else pointer. */
#define NULL_AT(index, pointer) (which == (index) ? NULL : (pointer))

/* Each call must be refused with CK_ERROR_INVALID_ARGUMENT and
 * "function: name is NULL", the public name and the parameter's. */
static inline void check_null_arguments(const check_null_case *cases,
                                        size_t count, void *context) {
  for (size_t c = 0; c < count; ++c) {
    for (int p = 0; p < 8 && cases[c].names[p]; ++p) {
      char expected[160];
      snprintf(expected, sizeof expected, "%s: %s is NULL", cases[c].function,
               cases[c].names[p]);
      ck_error_clear();
      ck_status status = cases[c].call(context, p);
      const char *message = "";
      ck_error_get_last(&message);
      CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                    strstr(message, expected) != NULL,
                "%s with %s NULL: status %d, '%s' (want '%s')",
                cases[c].function, cases[c].names[p], (int)status, message,
                expected);
    }
  }
}

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

/* Results own memory (ck_result_release). These run into results that
 * an earlier run may have filled, releasing what it left first; a result
 * must be zeroed before its first run. */
static inline ck_status test_workload_run(const ck_workload *workload,
                                          const ck_device *device,
                                          const ck_param *params, size_t count,
                                          const ck_run_options *options,
                                          ck_result *result) {
  if (result)
    ck_result_release(result);
  return ck_workload_run(workload, device, params, count, options, result);
}

static inline void test_results_release(ck_result *results, size_t count) {
  for (size_t i = 0; results && i < count; ++i)
    ck_result_release(&results[i]);
}

static inline ck_status
test_compare_run(const ck_workload *workload, const ck_device_set *set,
                 const size_t *indices, size_t count, int skip_ref,
                 const ck_param *params, size_t param_count,
                 const ck_run_options *options, ck_result *results,
                 size_t capacity, size_t *produced) {
  test_results_release(results, capacity);
  return ck_compare_run(workload, set, indices, count, skip_ref, params,
                        param_count, options, results, capacity, produced);
}

#endif /* CK_TEST_CHECK_H */
