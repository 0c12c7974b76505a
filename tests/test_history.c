/*
 * test_history.c - the bounded per-step record (src/framework/history.c) on its
 * own: below its limit every push is an entry, bit for bit; past it the
 * entries stay within the limit, entry 0 stays, and entry i is push
 * i x stride (sample mode) or the mean of pushes [i x stride, (i + 1) x
 * stride) (average mode), with the sum of every push kept; the watch finds
 * the exact push that met a target, also between the entries kept, and a
 * history ended there holds the entries up to it; rows pushed in batches
 * make the same history; a call against the contract (no parts, a
 * column past the row) stops at an assert where asserts are built in.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "framework/history.h"

/* Column k of push i in sample mode: not a small integer, so that a copy
 * that is not exact would show. */
static double sampled(uint64_t i, size_t k) {
  return 0.1 * (double)i + 1.0 / (double)(k + 3);
}

/* Column k of push i in average mode: small integers, whose means over a
 * power of two of pushes, and the means of those means, are exact. */
static double averaged(uint64_t i, size_t k) {
  return (double)((i * 7 + k * 13) % 101) - 50;
}

/* Writes push i's row (sample or average values) into row. */
static void make_row(const ck__history *history, uint64_t i, double *row) {
  for (size_t k = 0; k < history->row_width; ++k)
    row[k] =
        history->mode == CK__HISTORY_SAMPLE ? sampled(i, k) : averaged(i, k);
}

/* Entry i's column k of part p as expected: push i x stride, or the mean
 * of the stride's pushes. */
static double expected(const ck__history *history, size_t i, size_t column) {
  uint64_t first = (uint64_t)i * history->stride;
  if (history->mode == CK__HISTORY_SAMPLE)
    return sampled(first, column);
  double sum = 0;
  for (uint64_t j = first; j < first + history->stride; ++j)
    sum += averaged(j, column);
  return sum / (double)history->stride;
}

/* Every entry of every part as expected; returns the number that differ. */
static size_t entries_differ(const ck__history *history) {
  size_t differ = 0;
  for (size_t p = 0, column = 0; p < history->parts; ++p) {
    for (size_t i = 0; i < history->count; ++i)
      for (size_t k = 0; k < history->width[p]; ++k)
        differ += history->entries[p][i * history->width[p] + k] !=
                  expected(history, i, column + k);
    column += history->width[p];
  }
  return differ;
}

/* `pushes` pushes into a history of the mode with parts of widths 1 and 3
 * and at most `limit` entries (0: the default), checking the bound after
 * each; then the entries, the stride and the latest row. */
static void fill(ck__history_mode mode, size_t limit, uint64_t pushes) {
  const char *name = mode == CK__HISTORY_SAMPLE ? "sample" : "average";
  static const size_t widths[] = {1, 3};
  ck__history history;
  double row[4], sum[4] = {0};
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, limit));
  CHECK_OK(ck__history_init(&history, mode, 2, widths, "test rows"));
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  CHECK(history.row_width == 4);
  CHECK(ck__history_latest(&history) == NULL);
  size_t over = 0;
  for (uint64_t i = 0; i < pushes; ++i) {
    make_row(&history, i, row);
    for (size_t k = 0; k < 4; ++k)
      sum[k] += row[k];
    CHECK_OK(ck__history_push(&history, row));
    over += history.count > history.limit || history.allocated > history.limit;
  }
  CHECK_MSG(over == 0, "%s: past the limit after %zu pushes", name, over);
  CHECK(history.pushed == pushes);
  /* The smallest power of two that brings the entries within the limit. */
  uint64_t stride = 1;
  if (limit)
    while ((mode == CK__HISTORY_SAMPLE ? (pushes - 1) / stride + 1
                                       : pushes / stride) > limit)
      stride *= 2;
  CHECK_MSG(history.stride == stride, "%s, limit %zu: stride %llu, want %llu",
            name, limit, (unsigned long long)history.stride,
            (unsigned long long)stride);
  size_t count = (size_t)(mode == CK__HISTORY_SAMPLE ? (pushes - 1) / stride + 1
                                                     : pushes / stride);
  CHECK_MSG(history.count == count, "%s: %zu entries, want %zu", name,
            history.count, count);
  size_t differ = entries_differ(&history);
  CHECK_MSG(differ == 0, "%s, limit %zu: %zu values differ", name, limit,
            differ);
  /* Entry 0 is the state after initialisation in sample mode. */
  if (mode == CK__HISTORY_SAMPLE)
    CHECK(history.entries[0][0] == sampled(0, 0) &&
          history.entries[1][2] == sampled(0, 3));
  make_row(&history, pushes - 1, row);
  const double *latest = ck__history_latest(&history);
  CHECK(latest && memcmp(latest, row, sizeof row) == 0);
  if (mode == CK__HISTORY_AVERAGE) {
    /* The sum of every push, in order, as a plain loop would make it, and
     * the pushes past the last whole entry waiting in their sum. */
    CHECK(memcmp(history.total, sum, sizeof sum) == 0);
    CHECK(history.pending_count == pushes - count * stride);
  }
  ck__history_free(&history);
  CHECK(history.entries[0] == NULL && history.latest == NULL);
}

/* Below the limit every push is an entry, bit for bit, in both modes. */
static void below_limit(void) {
  fill(CK__HISTORY_SAMPLE, 0, 5000);
  fill(CK__HISTORY_AVERAGE, 0, 5000);
  fill(CK__HISTORY_SAMPLE, 64, 64);
  fill(CK__HISTORY_AVERAGE, 64, 64);
  /* Not integers: an average-mode entry is still its push, exactly. */
  static const size_t one = 1;
  ck__history history;
  CHECK_OK(ck__history_init(&history, CK__HISTORY_AVERAGE, 1, &one, "x"));
  size_t differ = 0;
  for (uint64_t i = 0; i < 3000; ++i) {
    double x = sampled(i, 0) * -1e-7;
    CHECK_OK(ck__history_push(&history, &x));
    differ += history.entries[0][i] != x;
  }
  CHECK(history.stride == 1 && history.count == 3000 && differ == 0);
  ck__history_free(&history);
}

/* Past the limit: thinned, at the sizes around each halving. */
static void past_limit(void) {
  static const uint64_t pushes[] = {9, 16, 17, 64, 65, 100, 1000, 4097};
  for (size_t i = 0; i < sizeof pushes / sizeof pushes[0]; ++i) {
    fill(CK__HISTORY_SAMPLE, 8, pushes[i]);
    fill(CK__HISTORY_AVERAGE, 8, pushes[i]);
  }
  fill(CK__HISTORY_SAMPLE, 2, 1000);
  fill(CK__HISTORY_AVERAGE, 2, 1000);
}

/* The default limit is 64 MiB of entries, and at least 64 entries; one
 * set for tests is made even. */
static void limits(void) {
  ck__history history;
  size_t one = 1, wide[] = {1, 1, 1 << 20, 1 << 20};
  CHECK_OK(ck__history_init(&history, CK__HISTORY_SAMPLE, 1, &one, "x"));
  CHECK(history.limit == ((size_t)64 << 20) / sizeof(double));
  ck__history_free(&history);
  CHECK_OK(ck__history_init(&history, CK__HISTORY_SAMPLE, 4, wide, "x"));
  CHECK(history.limit == 64);
  ck__history_free(&history);
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 7));
  CHECK_OK(ck__history_init(&history, CK__HISTORY_AVERAGE, 1, &one, "x"));
  CHECK(history.limit == 6);
  ck__history_free(&history);
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  /* A zeroed history frees as a no-op. */
  memset(&history, 0, sizeof history);
  ck__history_free(&history);
}

/* After a reserve, the pushes it made room for allocate nothing. */
static void reserve(void) {
  static const size_t one = 1;
  ck__history history;
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 5000));
  CHECK_OK(ck__history_init(&history, CK__HISTORY_SAMPLE, 1, &one, "x"));
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  CHECK_OK(ck__history_reserve(&history, 3000));
  CHECK(history.allocated >= 3000 && history.allocated <= 5000);
  const double *entries = history.entries[0];
  size_t allocated = history.allocated;
  for (uint64_t i = 0; i < 3000; ++i) {
    double x = (double)i;
    CHECK_OK(ck__history_push(&history, &x));
  }
  CHECK(history.entries[0] == entries && history.allocated == allocated);
  /* Never past the limit, however many pushes are asked for. */
  CHECK_OK(ck__history_reserve(&history, UINT64_MAX));
  CHECK(history.allocated == 5000);
  ck__history_free(&history);
}

/* Rows pushed in batches make the history that rows pushed one at a time
 * make, in both modes, past the limit too. */
static void batches(void) {
  static const size_t widths[] = {2, 1};
  enum { ROWS = 1000, BATCH = 37 };
  for (int mode = 0; mode < 2; ++mode) {
    ck__history one, many;
    CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 8));
    CHECK_OK(ck__history_init(&one, (ck__history_mode)mode, 2, widths, "x"));
    CHECK_OK(ck__history_init(&many, (ck__history_mode)mode, 2, widths, "x"));
    CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
    double rows[BATCH * 3];
    for (uint64_t i = 0; i < ROWS; i += BATCH) {
      size_t count = ROWS - i < BATCH ? (size_t)(ROWS - i) : BATCH;
      for (size_t r = 0; r < count; ++r) {
        make_row(&one, i + r, rows + r * 3);
        CHECK_OK(ck__history_push(&one, rows + r * 3));
      }
      CHECK_OK(ck__history_push_rows(&many, rows, count));
    }
    CHECK_OK(ck__history_push_rows(&many, rows, 0));
    int same = one.count == many.count && one.stride == many.stride &&
               one.pushed == ROWS && many.pushed == ROWS &&
               memcmp(one.latest, many.latest, 3 * sizeof(double)) == 0;
    for (size_t p = 0; same && p < 2; ++p)
      same = memcmp(one.entries[p], many.entries[p],
                    one.count * widths[p] * sizeof(double)) == 0;
    if (same && mode == CK__HISTORY_AVERAGE)
      same = memcmp(one.total, many.total, 3 * sizeof(double)) == 0 &&
             one.pending_count == many.pending_count;
    CHECK_MSG(same, "mode %d: batches of %d differ from single pushes", mode,
              BATCH);
    CHECK(entries_differ(&many) == 0);
    ck__history_free(&one);
    ck__history_free(&many);
  }
}

/* Values that fall by 1 a push, from 1000. */
static void push_falling(ck__history *history, uint64_t pushes) {
  for (uint64_t i = 0; i < pushes; ++i) {
    double x = 1000.0 - (double)history->pushed;
    CHECK_OK(ck__history_push(history, &x));
  }
}

static void watch(void) {
  static const size_t one = 1;
  ck__history history;
  uint64_t push = 0;
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 8));
  CHECK_OK(ck__history_init(&history, CK__HISTORY_SAMPLE, 1, &one, "x"));
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  push_falling(&history, 10);
  /* Push 37 is the first at or below 963.5, between kept entries. */
  ck__history_watch(&history, 0, 963.5, 9);
  CHECK(!ck__history_met(&history, &push));
  push_falling(&history, 90);
  CHECK(history.stride == 16 && history.count == 7);
  CHECK(ck__history_met(&history, &push) && push == 37);
  ck__history_end_at_met(&history);
  CHECK(history.pushed == 38 && history.count == 3);
  CHECK(history.entries[0][0] == 1000 && history.entries[0][2] == 968);
  CHECK(ck__history_latest(&history)[0] == 963);
  /* Pushes go on from there. */
  push_falling(&history, 1);
  CHECK(ck__history_latest(&history)[0] == 962 && history.pushed == 39);
  /* The latest push is checked at once when it is the first watched. */
  ck__history_watch(&history, 0, 962, 38);
  CHECK(ck__history_met(&history, &push) && push == 38);
  /* Pushes before `from` are not. */
  ck__history_watch(&history, 0, 2000, 45);
  push_falling(&history, 6);
  CHECK(!ck__history_met(&history, &push));
  push_falling(&history, 1);
  CHECK(ck__history_met(&history, &push) && push == 45);
  /* Unwatched: nothing is met, and ending does nothing. */
  ck__history_unwatch(&history);
  CHECK(!ck__history_met(&history, &push));
  ck__history_end_at_met(&history);
  CHECK(history.pushed == 46);
  /* NaN never meets a target. */
  ck__history_watch(&history, 0, 2000, 46);
  double nan = NAN;
  CHECK_OK(ck__history_push(&history, &nan));
  CHECK(!ck__history_met(&history, &push));
  ck__history_free(&history);
}

#ifndef NDEBUG
/* How a child that makes call ends: 1 where SIGABRT ended it (a failed
 * assert), 0 where it returned, -1 where it could not run. */
static int aborts(void (*call)(void)) {
  pid_t child = fork();
  if (child < 0)
    return -1;
  if (child == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
      dup2(null, STDERR_FILENO); /* the assert's own message */
    call();
    _exit(0);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child)
    return -1;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ? 1 : 0;
}

static void init_without_parts(void) {
  ck__history history;
  static const size_t width[] = {1};
  ck__history_init(&history, CK__HISTORY_SAMPLE, 0, width, "none");
  ck__history_free(&history);
}

static void watch_past_the_row(void) {
  ck__history history;
  static const size_t width[] = {2};
  if (ck__history_init(&history, CK__HISTORY_SAMPLE, 1, width, "two") != CK_OK)
    return;
  ck__history_watch(&history, 2, 0, 0);
  ck__history_free(&history);
}

#endif

/* The contract is asserted in a debug build; a release build (NDEBUG)
 * leaves the asserts out, and such calls are the caller's fault. */
static void contract(void) {
#ifdef NDEBUG
  printf("contract: not checked, asserts are left out (NDEBUG)\n");
#else
  int got = aborts(init_without_parts);
  CHECK_MSG(got == 1, "init with no parts: %d, not 1 (an assert)", got);
  got = aborts(watch_past_the_row);
  CHECK_MSG(got == 1, "a watch past the row: %d, not 1 (an assert)", got);
#endif
}

int main(void) {
  below_limit();
  past_limit();
  limits();
  reserve();
  batches();
  watch();
  contract();
  return CHECK_DONE();
}
