/*
 * history.h - a per-step record held within a fixed size: the PSO's and
 * the GA's histories of best values, and the gas's samples for its run
 * averages. A run may make 10^15 steps, so a record that kept every one
 * would outgrow the host's memory; this one thins itself out instead.
 *
 * A row is `parts` arrays of doubles side by side (each part's entries are
 * contiguous, entry-major). Pushes are numbered from 0. Once `limit`
 * entries are held, the next entry due halves them and doubles the stride:
 *   sample mode:  entry i is push i * stride (every other entry is kept,
 *                 so entry 0, the state after initialisation, always is);
 *   average mode: entry i is the mean of pushes [i * stride, (i + 1) *
 *                 stride) (adjacent entries are paired into their mean, a
 *                 blocking step, which leaves the mean of the pushes as it
 *                 was); the pushes after the last whole entry wait in a
 *                 running sum, and `total` holds the sum of every push.
 * Until the limit is reached the stride is 1 and every push is an entry,
 * bit for bit.
 */
#ifndef CK_HISTORY_H
#define CK_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

typedef enum ck__history_mode {
  CK__HISTORY_SAMPLE,
  CK__HISTORY_AVERAGE
} ck__history_mode;

enum { CK__HISTORY_PARTS = 4 };

typedef struct ck__history {
  ck__history_mode mode;
  const char *what; /* for messages: "best values" */
  size_t parts;
  size_t width[CK__HISTORY_PARTS];    /* doubles a row holds, each part */
  size_t row_width;                   /* their sum */
  double *entries[CK__HISTORY_PARTS]; /* count x width[p] each */
  size_t count, allocated, limit;     /* entries; limit is even */
  uint64_t stride, pushed;            /* pushes made, in all */
  double *latest;                     /* row_width */
  double *pending, *total;            /* average mode: row_width each */
  double *met_row;                    /* sample mode: the watch's row */
  uint64_t pending_count;             /* pushes summed in pending */
  /* The watch (ck__history_watch). */
  int watching, met;
  size_t watch_column;
  double watch_target;
  uint64_t watch_from, met_push;
} ck__history;

/*
 * Takes a zeroed or unused history, a mode, 1 to CK__HISTORY_PARTS part
 * widths (each at least 1), and what it holds for messages (a string that
 * outlives it, e.g. "best values"). Returns CK_OK, or
 * CK_ERROR_OUT_OF_MEMORY. Entries are allocated as they come.
 */
ck_status ck__history_init(ck__history *history, ck__history_mode mode,
                           size_t parts, const size_t *width, const char *what);

/* Frees what a history holds and zeroes it; a zeroed one is left be. */
void ck__history_free(ck__history *history);

/*
 * Appends one row (row_width doubles: the parts one after another).
 * Returns CK_OK, or CK_ERROR_OUT_OF_MEMORY when the entries cannot grow;
 * the history is then as it was before the call.
 */
ck_status ck__history_push(ck__history *history, const double *row);
/* Appends `count` rows, one after another in rows, all or none (as
 * ck__history_push, for a batch read from a device at once). */
ck_status ck__history_push_rows(ck__history *history, const double *rows,
                                size_t count);

/* Makes room for the next `pushes` pushes, so that none of them fails
 * (a batch read from a device is then kept whole or not at all).
 * Returns CK_OK, or CK_ERROR_OUT_OF_MEMORY with the history as it was. */
ck_status ck__history_reserve(ck__history *history, uint64_t pushes);

/* The entries that a trace or a chart shows of count: about
 * CK__HISTORY_SHOWN of them, evenly spread, and the last. Entry i is shown
 * when i % every == 0 or i + 1 == count; returns every (at least 1). */
enum { CK__HISTORY_SHOWN = 1000 };
size_t ck__history_show_every(size_t count);

/* The row pushed last (row_width doubles), or NULL before any push. */
const double *ck__history_latest(const ck__history *history);

/*
 * Watching for a target: from here on, every push from number `from` on
 * (from being at least the latest push's number; the latest push itself is
 * checked at once when it is that one) is checked, before any is thinned
 * out, until one has the value in `column` of its row at or below target.
 * The stopping loops read the device a chunk of steps at a time, and the
 * step that first met the target may fall between the entries kept.
 */
void ck__history_watch(ck__history *history, size_t column, double target,
                       uint64_t from);
/* 1, with *push set to its number, once a watched push met the target;
 * else 0. */
int ck__history_met(const ck__history *history, uint64_t *push);
/* Stops watching (what was met is forgotten). */
void ck__history_unwatch(ck__history *history);
/* In sample mode, once the watch met its target: forgets the pushes after
 * the one that met it (a run that stopped there), which becomes the
 * latest; otherwise does nothing. */
void ck__history_end_at_met(ck__history *history);

#endif /* CK_HISTORY_H */
