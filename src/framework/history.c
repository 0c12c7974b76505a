/*
 * history.c - per-step records held within a fixed size (history.h).
 */
#include "framework/history.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum {
  HISTORY_BYTES = 64 << 20, /* the entries of all parts together */
  LEAST_LIMIT = 64,         /* entries, however wide a row */
  FIRST_ENTRIES = 1024      /* the first allocation, grown by doubling */
};

ck_status ck__history_init(ck__history *history, ck__history_mode mode,
                           size_t parts, const size_t *width,
                           const char *what) {
  assert(history && width && what);
  assert(parts >= 1 && parts <= CK__HISTORY_PARTS);
  assert(mode == CK__HISTORY_SAMPLE || mode == CK__HISTORY_AVERAGE);
  memset(history, 0, sizeof *history);
  history->mode = mode;
  history->what = what;
  history->parts = parts;
  history->stride = 1;
  for (size_t p = 0; p < parts; ++p) {
    history->width[p] = width[p];
    assert(width[p] >= 1);
    history->row_width += width[p];
  }
  size_t limit = ck__test_value(CK__TEST_HISTORY_LIMIT);
  if (!limit) {
    limit = HISTORY_BYTES / (history->row_width * sizeof(double));
    limit = limit < LEAST_LIMIT ? LEAST_LIMIT : limit;
  }
  /* Even, so that a halving keeps whole pairs. */
  history->limit = limit < 2 ? 2 : limit & ~(size_t)1;
  size_t rows = mode == CK__HISTORY_SAMPLE ? 2 : 3;
  history->latest = calloc(rows * history->row_width, sizeof(double));
  if (!history->latest)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", what);
  if (mode == CK__HISTORY_SAMPLE) {
    history->met_row = history->latest + history->row_width;
  } else {
    history->pending = history->latest + history->row_width;
    history->total = history->pending + history->row_width;
  }
  return CK_OK;
}

void ck__history_free(ck__history *history) {
  assert(history && history->parts <= CK__HISTORY_PARTS);
  for (size_t p = 0; p < history->parts; ++p)
    free(history->entries[p]);
  free(history->latest);
  memset(history, 0, sizeof *history);
}

ck_status ck__history_reserve(ck__history *history, uint64_t pushes) {
  assert(history && history->count <= history->limit);
  /* A push adds at most one entry, and none past the limit. */
  size_t room = history->limit - history->count;
  size_t needed = history->count + (pushes < room ? (size_t)pushes : room);
  if (needed <= history->allocated)
    return CK_OK;
  size_t allocated = history->allocated ? history->allocated : FIRST_ENTRIES;
  while (allocated < needed)
    allocated *= 2;
  allocated = allocated < history->limit ? allocated : history->limit;
  for (size_t p = 0; p < history->parts; ++p) {
    /* A part already grown stays so: its first `allocated` entries are
     * still the ones in use. */
    double *grown = realloc(history->entries[p],
                            allocated * history->width[p] * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory for %zu entries of %s", allocated,
                      history->what);
    history->entries[p] = grown;
  }
  history->allocated = allocated;
  return CK_OK;
}

/* Halves the entries (count is the limit, which is even) and doubles the
 * stride: every other entry kept, or each pair's mean. Entry j is written
 * after entries 2j and 2j + 1 are read, and no later entry reads it. */
static void thin(ck__history *history) {
  assert(history->count == history->limit && history->count % 2 == 0);
  size_t half = history->count / 2;
  for (size_t p = 0; p < history->parts; ++p) {
    size_t width = history->width[p];
    double *entries = history->entries[p];
    for (size_t j = 0; j < half; ++j) {
      double *to = entries + j * width;
      const double *first = entries + 2 * j * width, *second = first + width;
      if (history->mode == CK__HISTORY_SAMPLE)
        memmove(to, first, width * sizeof *to);
      else
        for (size_t k = 0; k < width; ++k)
          to[k] = (first[k] + second[k]) / 2;
    }
  }
  history->count = half;
  history->stride *= 2;
}

static void watch_check(ck__history *history, const double *row,
                        uint64_t push) {
  if (!history->watching || history->met || push < history->watch_from ||
      !(row[history->watch_column] <= history->watch_target))
    return;
  history->met = 1;
  history->met_push = push;
  if (history->met_row)
    memcpy(history->met_row, row, history->row_width * sizeof *row);
}

/* One push, with room for its entry made already. */
static void push_one(ck__history *history, const double *row) {
  size_t width = history->row_width;
  int sample = history->mode == CK__HISTORY_SAMPLE;
  /* Whether this push completes an entry: in sample mode the entries are
   * pushes 0, stride, ..., so the next is push count x stride. */
  int due = sample
                ? history->pushed == (uint64_t)history->count * history->stride
                : history->pending_count + 1 == history->stride;
  watch_check(history, row, history->pushed);
  ++history->pushed;
  if (!sample) {
    /* In push order from 0, as a plain sum of the pushes would be. */
    for (size_t k = 0; k < width; ++k)
      history->total[k] += row[k];
    if (history->pending_count++ == 0)
      memcpy(history->pending, row, width * sizeof *row);
    else
      for (size_t k = 0; k < width; ++k)
        history->pending[k] += row[k];
  }
  if (!due)
    return;
  if (history->count == history->limit) {
    thin(history);
    /* The pending pushes are now the first half of a wider entry. */
    if (!sample)
      return;
  }
  const double *from = sample ? row : history->pending;
  /* A stride of 1 divides exactly: below the limit an entry is its push. */
  double divisor = (double)history->stride;
  for (size_t p = 0, offset = 0; p < history->parts; ++p) {
    double *to = history->entries[p] + history->count * history->width[p];
    for (size_t k = 0; k < history->width[p]; ++k)
      to[k] = sample ? from[offset + k] : from[offset + k] / divisor;
    offset += history->width[p];
  }
  ++history->count;
  history->pending_count = 0;
}

ck_status ck__history_push_rows(ck__history *history, const double *rows,
                                size_t count) {
  assert(history && (rows || count == 0));
  if (count == 0)
    return CK_OK;
  ck_status status = ck__history_reserve(history, count);
  if (status)
    return status;
  size_t width = history->row_width;
  assert(width >= 1 && history->latest); /* made by ck__history_init */
  for (size_t i = 0; i < count; ++i)
    push_one(history, rows + i * width);
  memcpy(history->latest, rows + (count - 1) * width,
         width * sizeof *history->latest);
  return CK_OK;
}

ck_status ck__history_push(ck__history *history, const double *row) {
  return ck__history_push_rows(history, row, 1);
}

size_t ck__history_show_every(size_t count) {
  return count > CK__HISTORY_SHOWN
             ? (count + CK__HISTORY_SHOWN - 1) / CK__HISTORY_SHOWN
             : 1;
}

const double *ck__history_latest(const ck__history *history) {
  return history->pushed ? history->latest : NULL;
}

void ck__history_watch(ck__history *history, size_t column, double target,
                       uint64_t from) {
  assert(history && column < history->row_width);
  assert(!history->pushed || from >= history->pushed - 1);
  history->watching = 1;
  history->met = 0;
  history->watch_column = column;
  history->watch_target = target;
  history->watch_from = from;
  if (history->pushed)
    watch_check(history, history->latest, history->pushed - 1);
}

int ck__history_met(const ck__history *history, uint64_t *push) {
  assert(history && push);
  if (history->met)
    *push = history->met_push;
  return history->met;
}

void ck__history_unwatch(ck__history *history) {
  history->watching = 0;
  history->met = 0;
}

void ck__history_end_at_met(ck__history *history) {
  if (history->mode != CK__HISTORY_SAMPLE || !history->met)
    return;
  history->pushed = history->met_push + 1;
  size_t kept = (size_t)(history->met_push / history->stride) + 1;
  if (history->count > kept)
    history->count = kept;
  memcpy(history->latest, history->met_row,
         history->row_width * sizeof *history->latest);
}
