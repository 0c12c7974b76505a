/*
 * test_engine.c - the member engine (framework/engine.h), through a toy
 * workload on the host: a ring of cells, each stepped from its
 * neighbours (two before, three after, so that members keep halos that
 * reach past small slices) or from itself alone in rounds of 4 steps.
 * Any spread of the cells must end where one member ends, exactly (the
 * arithmetic is whole numbers): its cells, its least cell so far and the
 * cells' sum, with every round's agreement alike over every spread. A
 * member's failure, the calling thread's and a member too large end the
 * run on every member, with the first failure's message.
 *
 * Under mpirun (a build with MPI), rank r holds r % 3 + 1 members and
 * compares with a run of one member of its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clkit/clkit.h"
#include "framework/engine.h"
#include "runtime/exchange.h"
#include "test_support.h"
#include "util/util.h"

#if CK_HAVE_MPI
#include <mpi.h>
#endif

#define MAX_MEMBERS 4
#define CELLS 11
#define STEPS 9
#define MODULUS 13
#define ROWS 64

static ck_device devices[MAX_MEMBERS];

enum { STENCIL, LOCAL };

/* An item: a cell's value and its index in the ring. */
typedef struct item {
  double value, index;
} item;

typedef struct toy_member {
  ck__engine_member place;
  double *cells, *next;
  item *halo;  /* halo[0] + halo[1] items, from take_halo */
  item *out;   /* its post: its best, its ends each way */
  double best; /* its least cell (keep_best), and where (over the ring) */
  uint64_t best_at;
  double sum;    /* its post's */
  uint64_t made; /* steps made */
} toy_member;

typedef struct toy {
  int mode;
  toy_member *members[MAX_MEMBERS];
  size_t set_ups, teardowns, connects;
  /* Failures asked: a member's step (SIZE_MAX: none), the calling
   * thread's agreement after a round, a member's allocation. */
  size_t fail_member;
  uint64_t fail_step, fail_round;
  size_t too_large;
  /* Every agreement: first step, best, its index, the sum. */
  double rows[ROWS][4];
  size_t row_count;
  int crossed_wrong;
  /* The kind's own cut, where cut[0]: each member's cells. */
  uint64_t cut[MAX_MEMBERS];
  size_t cuts;
} toy;

/* ---- the cells --------------------------------------------------------- */

static double first_value(uint64_t index) {
  return (double)((index * 37 + 11) % MODULUS);
}

/* The value at offset k of local cell c (k from -2 to 3): its own, or a
 * halo's, or (alone) the ring's wrap. */
static double around(const toy_member *m, uint64_t c, int k) {
  int64_t at = (int64_t)c + k, units = (int64_t)m->place.units;
  if (m->place.members == 1)
    return m->cells[(at + units) % units];
  if (at < 0)
    return m->halo[m->place.halo[0] + (uint64_t)at].value;
  if (at >= units)
    return m->halo[m->place.halo[0] + (uint64_t)(at - units)].value;
  return m->cells[at];
}

/* Its least cell so far (stencil) or now (local): a later one only where
 * less, ties to the lowest index. */
static void keep_best(const toy *t, toy_member *m) {
  if (t->mode == LOCAL)
    m->best = 1e300;
  for (uint64_t c = 0; c < m->place.units; ++c)
    if (m->cells[c] < m->best) {
      m->best = m->cells[c];
      m->best_at = m->place.first + c;
    }
}

/* One step, number `step`, of member m's cells. */
static void step_cells(toy *t, toy_member *m, uint64_t step) {
  for (uint64_t c = 0; c < m->place.units; ++c) {
    uint64_t p = m->place.first + c, sum = step + p;
    if (t->mode == STENCIL)
      for (int k = -2; k <= 3; ++k)
        sum += (uint64_t)(k + 3) * (uint64_t)around(m, c, k);
    else
      sum += 7 * (uint64_t)m->cells[c] + 2 * p;
    m->next[c] = (double)(sum % MODULUS);
  }
  memcpy(m->cells, m->next, m->place.units * sizeof *m->cells);
  keep_best(t, m);
}

/* ---- the table ---------------------------------------------------------- */

static ck_status toy_allocate(void *self, const ck__engine_member *member,
                              ck_queue **queue) {
  toy *t = self;
  if (member->number == t->too_large)
    return ck__fail(CK_ERROR_DEVICE_MEMORY, "%llu cells do not fit",
                    (unsigned long long)member->units);
  toy_member *m = calloc(1, sizeof *m);
  t->members[member->index] = m;
  if (!m)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  m->place = *member;
  uint64_t halo = member->halo[0] + member->halo[1];
  m->cells = calloc(member->units, sizeof *m->cells);
  m->next = calloc(member->units, sizeof *m->next);
  m->halo = calloc(halo + 1, sizeof *m->halo);
  m->out = calloc(1 + halo, sizeof *m->out);
  *queue = NULL;
  if (!m->cells || !m->next || !m->halo || !m->out)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  return CK_OK;
}

static ck_status toy_set_up(void *self, size_t i) {
  toy *t = self;
  toy_member *m = t->members[i];
  m->best = 1e300;
  for (uint64_t c = 0; c < m->place.units; ++c)
    m->cells[c] = first_value(m->place.first + c);
  keep_best(t, m);
  __atomic_add_fetch(&t->set_ups, 1, __ATOMIC_SEQ_CST);
  return CK_OK;
}

static ck_status toy_step(void *self, size_t i, uint64_t first,
                          uint64_t count) {
  toy *t = self;
  toy_member *m = t->members[i];
  for (uint64_t s = first; s < first + count; ++s) {
    if (m->place.number == t->fail_member && s == t->fail_step)
      return ck__fail(CK_ERROR_DEVICE, "toy failure at step %llu",
                      (unsigned long long)s);
    step_cells(t, m, s);
  }
  m->made = first + count - 1;
  return CK_OK;
}

/* Its best item, its last cells (forward), its first (back), its sum. */
static ck_status toy_post(void *self, size_t i) {
  toy_member *m = ((toy *)self)->members[i];
  uint64_t units = m->place.units, k = 1;
  m->out[0] = (item){m->best, (double)m->best_at};
  uint64_t ends[2] = {m->place.halo[0] < units ? m->place.halo[0] : units,
                      m->place.halo[1] < units ? m->place.halo[1] : units};
  for (uint64_t c = units - ends[0]; c < units; ++c)
    m->out[k++] = (item){m->cells[c], (double)(m->place.first + c)};
  for (uint64_t c = 0; c < ends[1]; ++c)
    m->out[k++] = (item){m->cells[c], (double)(m->place.first + c)};
  m->sum = 0;
  for (uint64_t c = 0; c < units; ++c)
    m->sum += m->cells[c];
  return CK_OK;
}

static void toy_offer(void *self, size_t i, ck__engine_offer *offer) {
  toy_member *m = ((toy *)self)->members[i];
  uint64_t units = m->place.units;
  offer->value = m->out[0].value;
  offer->index = (uint64_t)m->out[0].index - m->place.first;
  offer->item = &m->out[0];
  offer->ends[0] = &m->out[1];
  offer->ends[1] =
      &m->out[1 + (m->place.halo[0] < units ? m->place.halo[0] : units)];
  offer->sums = &m->sum;
}

/* Its halo, each item checked: the cells before its slice, in ring
 * order, then those after it. */
static void toy_take_halo(void *self, size_t i, const void *items) {
  toy_member *m = ((toy *)self)->members[i];
  uint64_t before = m->place.halo[0], after = m->place.halo[1];
  memcpy(m->halo, items, (before + after) * sizeof *m->halo);
  uint64_t total = m->place.total;
  for (uint64_t k = 0; k < before + after; ++k) {
    uint64_t want =
        k < before ? (m->place.first + total - before + k) % total
                   : (m->place.first + m->place.units + k - before) % total;
    CHECK_MSG(m->halo[k].index == (double)want,
              "member %zu: halo item %llu is cell %g, not %llu",
              m->place.number, (unsigned long long)k, m->halo[k].index,
              (unsigned long long)want);
  }
}

static uint64_t toy_round(void *self, uint64_t first, uint64_t count) {
  (void)self;
  (void)first;
  return count < 4 ? count : 4;
}

/* Every member made the same steps: gathered from all of them. And every
 * member's slice, as the engine keeps them, covers the ring once. */
static ck_status toy_cross(void *self, ck__engine *engine, uint64_t first,
                           uint64_t count) {
  toy *t = self;
  ck__exchange *exchange = ck__engine_run(engine)->exchange;
  size_t local = ck__engine_local(engine), members = ck__engine_members(engine);
  const void *pieces[MAX_MEMBERS];
  uint64_t made[3 * MAX_MEMBERS];
  for (size_t i = 0; i < local; ++i)
    pieces[i] = &t->members[i]->made;
  ck_status status = ck__exchange_gather(exchange, pieces, sizeof *made, made);
  if (members > sizeof made / sizeof *made)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%zu members", members);
  for (size_t m = 0; status == CK_OK && m < members && count; ++m)
    t->crossed_wrong += made[m] != first + count - 1;
  uint64_t covered = 0, start = 0, units = 0;
  for (size_t m = 0; m < members; ++m) {
    ck__engine_slice(engine, m, &start, &units);
    t->crossed_wrong += start != covered || units == 0;
    covered += units;
  }
  t->crossed_wrong += covered != CELLS;
  for (size_t i = 0; i < local; ++i) {
    ck__engine_slice(engine, t->members[i]->place.number, &start, &units);
    t->crossed_wrong += start != t->members[i]->place.first ||
                        units != t->members[i]->place.units;
  }
  return status;
}

static ck_status toy_reduced(void *self, const ck__engine_round *round) {
  toy *t = self;
  if (round->first == t->fail_round)
    return ck__fail(CK_ERROR_IO, "toy agreement failed at step %llu",
                    (unsigned long long)round->first);
  const item *best = round->best_item;
  CHECK(best && best->value == round->best &&
        best->index == (double)round->best_index);
  if (t->row_count < ROWS) {
    double *row = t->rows[t->row_count++];
    row[0] = (double)round->first;
    row[1] = round->best;
    row[2] = (double)round->best_index;
    row[3] = round->sums[0];
  }
  return CK_OK;
}

static void toy_teardown(void *self, size_t i) {
  toy *t = self;
  toy_member *m = t->members[i];
  if (m) {
    free(m->cells);
    free(m->next);
    free(m->halo);
    free(m->out);
    free(m);
  }
  t->members[i] = NULL;
  ++t->teardowns;
}

/* Between the allocations and the set-ups: every local member made,
 * none set up, each told the widest slice of all. */
static ck_status toy_connect(void *self, ck__engine *engine) {
  toy *t = self;
  uint64_t widest = 0, first = 0, units = 0;
  for (size_t m = 0; m < ck__engine_members(engine); ++m) {
    ck__engine_slice(engine, m, &first, &units);
    widest = units > widest ? units : widest;
  }
  t->crossed_wrong += ck__engine_widest(engine) != widest;
  for (uint64_t unit = 0; unit < CELLS; ++unit) {
    ck__engine_slice(engine, ck__engine_holder(engine, unit), &first, &units);
    t->crossed_wrong += unit < first || unit - first >= units;
  }
  for (size_t i = 0; i < ck__engine_local(engine); ++i)
    t->crossed_wrong += !t->members[i] || t->members[i]->place.widest != widest;
  /* Each member's share of other items meets its neighbours' and all
   * cover them, however many; a share is its slice where they are the
   * units. */
  static const uint64_t others[] = {0, 1, 7, CELLS, 3 * CELLS + 1, 1000003};
  for (size_t k = 0; k < sizeof others / sizeof others[0]; ++k) {
    uint64_t end = 0, share_first = 0, share = 0;
    for (size_t m = 0; m < ck__engine_members(engine); ++m) {
      ck__engine_share(engine, m, others[k], &share_first, &share);
      ck__engine_slice(engine, m, &first, &units);
      t->crossed_wrong += share_first != end;
      t->crossed_wrong +=
          others[k] == CELLS && (share_first != first || share != units);
      end = share_first + share;
    }
    t->crossed_wrong += end != others[k];
  }
  t->crossed_wrong += t->set_ups != 0;
  ++t->connects;
  return CK_OK;
}

/* The kind's own deal: member m holds t->cut[m] cells. */
static ck_status toy_cut(void *self, ck__engine *engine, uint64_t *units) {
  toy *t = self;
  size_t first = ck__exchange_first(ck__engine_run(engine)->exchange);
  for (size_t i = 0; i < ck__engine_local(engine); ++i)
    units[i] = t->cut[first + i];
  ++t->cuts;
  return CK_OK;
}

static ck__engine_kind toy_kind(int mode) {
  ck__engine_kind kind = {.unit_name = "cells",
                          .granule = 1,
                          .item_bytes = sizeof(item),
                          .best = mode == STENCIL ? CK__ENGINE_BEST_SO_FAR
                                                  : CK__ENGINE_BEST_OF_ROUND,
                          .sum_count = 1,
                          .allocate = toy_allocate,
                          .set_up = toy_set_up,
                          .step = toy_step,
                          .post = toy_post,
                          .offer = toy_offer,
                          .reduced = toy_reduced,
                          .teardown = toy_teardown};
  if (mode == STENCIL) {
    kind.halo[0] = 2;
    kind.halo[1] = 3;
    kind.take_halo = toy_take_halo;
  } else {
    kind.round = toy_round;
    kind.cross = toy_cross;
    kind.connect = toy_connect;
  }
  return kind;
}

/* ---- runs --------------------------------------------------------------- */

/* Where a run ended: every cell (those of this process's members), the
 * best, its index and item, the sum. */
typedef struct ending {
  double cells[CELLS];
  int held[CELLS];
  double best, index, sum;
  item best_item;
} ending;

static void toy_init(toy *t, int mode) {
  memset(t, 0, sizeof *t);
  t->mode = mode;
  t->fail_member = SIZE_MAX;
  t->fail_step = t->fail_round = UINT64_MAX;
  t->too_large = SIZE_MAX;
}

/* A toy run of STEPS steps (in two calls) over spread; its ending, its
 * agreements in t. */
static ck_status run(toy *t, const ck_spread *spread, ending *end) {
  ck__engine *engine = NULL;
  ck__engine_kind kind = toy_kind(t->mode);
  memset(end, 0, sizeof *end);
  /* The local mode makes its engine in two parts, as a workload that
   * agrees its count first does. */
  ck_status status = t->mode == LOCAL
                         ? ck__engine_open(&kind, t, spread, &engine)
                         : ck__engine_create(&kind, t, spread, CELLS, &engine);
  if (status == CK_OK && t->mode == LOCAL)
    status = ck__engine_populate(engine, CELLS);
  if (status == CK_OK)
    status = ck__engine_step(engine, 1, 4);
  if (status == CK_OK)
    status = ck__engine_step(engine, 5, STEPS - 4);
  const void *got = NULL;
  uint64_t index = 0;
  if (status == CK_OK)
    status = ck__engine_best(engine, &end->best, &index, &got);
  if (status == CK_OK) {
    end->index = (double)index;
    memcpy(&end->best_item, got, sizeof end->best_item);
    for (size_t i = 0; i < ck__engine_local(engine); ++i) {
      toy_member *m = t->members[i];
      toy_post(t, i);
      for (uint64_t c = 0; c < m->place.units; ++c) {
        end->cells[m->place.first + c] = m->cells[c];
        end->held[m->place.first + c] = 1;
      }
      end->sum += m->sum;
    }
    /* Several members: the last agreement's sum is the whole ring's. */
    if (ck__engine_members(engine) > 1 && t->row_count)
      end->sum = t->rows[t->row_count - 1][3];
  }
  /* Dealt again, twice the cells: every member's slice, in order. */
  if (status == CK_OK) {
    status = ck__engine_deal(engine, 2 * CELLS, NULL);
    uint64_t dealt = 0, first = 0, units = 0;
    for (size_t m = 0; status == CK_OK && m < ck__engine_members(engine); ++m) {
      ck__engine_slice(engine, m, &first, &units);
      t->crossed_wrong += first != dealt || units == 0;
      dealt += units;
    }
    t->crossed_wrong += status == CK_OK && dealt != 2 * CELLS;
  }
  size_t local = engine ? ck__engine_local(engine) : 0;
  ck__engine_destroy(engine);
  CHECK_MSG(!engine || t->teardowns == local, "%zu teardowns of %zu",
            t->teardowns, local);
  return status;
}

/* A spread's ending is the lone member's. */
static void same_ending(const char *what, const ending *alone,
                        const ending *spread) {
  for (size_t c = 0; c < CELLS; ++c)
    CHECK_MSG(!spread->held[c] || spread->cells[c] == alone->cells[c],
              "%s: cell %zu is %g, alone %g", what, c, spread->cells[c],
              alone->cells[c]);
  CHECK_MSG(
      spread->best == alone->best && spread->index == alone->index &&
          spread->best_item.value == alone->best &&
          spread->best_item.index == alone->index && spread->sum == alone->sum,
      "%s: best %g at %g, sum %g; alone %g at %g, sum %g", what, spread->best,
      spread->index, spread->sum, alone->best, alone->index, alone->sum);
}

/* Every spread of the cells in this process ends where one member does,
 * with the same agreements; threads or in turn; dealt by shares, and
 * with slices smaller than the halo. */
static void spreads(int mode) {
  static const double shares[][MAX_MEMBERS] = {
      {1, 1, 1, 1}, {1, 1, 9, 1}, {9, 1, 1, 1}};
  toy t;
  ending alone, spread;
  toy_init(&t, mode);
  ck_spread one = {.devices = devices, .device_count = 1};
  CHECK_OK(run(&t, &one, &alone));
  CHECK_MSG(t.row_count == 0, "alone: %zu agreements", t.row_count);
  /* The best so far is no more than the least cell now; the best of the
   * last round is the least cell now, the first of equal ones. */
  size_t least = 0;
  for (size_t c = 0; c < CELLS; ++c) {
    CHECK(alone.held[c]);
    least = alone.cells[c] < alone.cells[least] ? c : least;
  }
  CHECK_MSG(mode == STENCIL ? alone.best <= alone.cells[least]
                            : alone.best == alone.cells[least] &&
                                  alone.index == (double)least,
            "alone: best %g at %g, least cell %g at %zu", alone.best,
            alone.index, alone.cells[least], least);
  double rows[ROWS][4];
  size_t row_count = 0;
  for (int in_turn = 0; in_turn <= 1; ++in_turn) {
    if (in_turn)
      setenv("CLKIT_SPREAD_THREADS", "0", 1);
    for (size_t local = 2; local <= MAX_MEMBERS; ++local)
      for (size_t s = 0; s < sizeof shares / sizeof shares[0]; ++s) {
        char what[64];
        snprintf(what, sizeof what, "%s, %zu members, shares %zu%s",
                 mode == STENCIL ? "stencil" : "local", local, s,
                 in_turn ? ", in turn" : "");
        ck_spread given = {.devices = devices,
                           .device_count = local,
                           .shares = shares[s],
                           .share_count = local};
        toy_init(&t, mode);
        CHECK_OK(run(&t, &given, &spread));
        same_ending(what, &alone, &spread);
        CHECK_MSG(t.crossed_wrong == 0, "%s: steps crossed apart", what);
        CHECK_MSG(t.connects == (mode == LOCAL), "%s: %zu connects", what,
                  t.connects);
        /* Creation's, then each round's: 9 of 1 step, or 4, 4, 1. */
        CHECK_MSG(t.row_count == (mode == STENCIL ? 1 + STEPS : 4), "%s: %zu",
                  what, t.row_count);
        if (!row_count) {
          row_count = t.row_count;
          memcpy(rows, t.rows, sizeof rows);
        }
        CHECK_MSG(t.row_count == row_count &&
                      memcmp(rows, t.rows, row_count * sizeof rows[0]) == 0,
                  "%s: its agreements differ", what);
      }
    unsetenv("CLKIT_SPREAD_THREADS");
  }
}

static const char *last_message(void) {
  const char *message = "";
  ck_error_get_last(&message);
  return message;
}

/* Member m's slice as the engine keeps it and as its member saw it:
 * t->cut's, one after another. */
static void slices_cut(const toy *t, ck__engine *engine, const char *what) {
  uint64_t first = 0, units = 0, at = 0;
  size_t mine = ck__exchange_first(ck__engine_run(engine)->exchange);
  for (size_t m = 0; m < ck__engine_members(engine); ++m) {
    ck__engine_slice(engine, m, &first, &units);
    CHECK_MSG(first == at && units == t->cut[m],
              "%s: member %zu holds %llu from %llu", what, m,
              (unsigned long long)units, (unsigned long long)first);
    if (m >= mine && m - mine < ck__engine_local(engine))
      CHECK(t->members[m - mine]->place.first == first &&
            t->members[m - mine]->place.units == units);
    at += units;
  }
}

/* A run whose kind cuts the cells itself, made again with another cut
 * after 4 steps and run from the start: it ends where one member ends. */
static ck_status run_cut(toy *t, const ck_spread *spread, const uint64_t *again,
                         ending *end) {
  ck__engine *engine = NULL;
  ck__engine_kind kind = toy_kind(t->mode);
  kind.cut = toy_cut;
  memset(end, 0, sizeof *end);
  ck_status status = ck__engine_create(&kind, t, spread, CELLS, &engine);
  if (status == CK_OK) {
    slices_cut(t, engine, "cut");
    status = ck__engine_step(engine, 1, 4);
  }
  if (status == CK_OK) {
    memcpy(t->cut, again, sizeof t->cut);
    t->set_ups = 0; /* connect checks that none is set up yet */
    status = ck__engine_remake(engine);
  }
  if (status == CK_OK) {
    slices_cut(t, engine, "cut again");
    status = ck__engine_step(engine, 1, STEPS);
  }
  const void *got = NULL;
  uint64_t index = 0;
  if (status == CK_OK)
    status = ck__engine_best(engine, &end->best, &index, &got);
  for (size_t i = 0; status == CK_OK && i < ck__engine_local(engine); ++i) {
    toy_member *m = t->members[i];
    for (uint64_t c = 0; c < m->place.units; ++c) {
      end->cells[m->place.first + c] = m->cells[c];
      end->held[m->place.first + c] = 1;
    }
  }
  end->index = (double)index;
  size_t local = engine ? ck__engine_local(engine) : 0;
  ck__engine_destroy(engine);
  CHECK_MSG(status || t->teardowns == 2 * local, "%zu teardowns of %zu",
            t->teardowns, local);
  return status;
}

/* A kind's own cut and the members made again: their slices as cut,
 * each member's cells where one member leaves them; a cut that does not
 * sum to the run's cells is refused on every member. */
static void cuts(void) {
  static const uint64_t first_cut[MAX_MEMBERS] = {1, 7, 3},
                        second_cut[MAX_MEMBERS] = {5, 1, 5},
                        short_cut[MAX_MEMBERS] = {5, 1, 4};
  toy t;
  ending alone, spread;
  ck_spread one = {.devices = devices, .device_count = 1};
  ck_spread three = {.devices = devices, .device_count = 3};
  toy_init(&t, LOCAL);
  CHECK_OK(run(&t, &one, &alone));
  toy_init(&t, LOCAL);
  memcpy(t.cut, first_cut, sizeof t.cut);
  CHECK_OK(run_cut(&t, &three, second_cut, &spread));
  for (size_t c = 0; c < CELLS; ++c)
    CHECK_MSG(spread.held[c] && spread.cells[c] == alone.cells[c],
              "cut: cell %zu is %g, alone %g", c, spread.cells[c],
              alone.cells[c]);
  CHECK_MSG(spread.best == alone.best && spread.index == alone.index,
            "cut: best %g at %g, alone %g at %g", spread.best, spread.index,
            alone.best, alone.index);
  CHECK_MSG(t.cuts == 2 && t.set_ups == 3 && t.crossed_wrong == 0,
            "cut: %zu cuts, %zu set-ups", t.cuts, t.set_ups);
  /* Cut again short of the cells: refused on every member, each torn
   * down once, before the cut. */
  toy_init(&t, LOCAL);
  memcpy(t.cut, first_cut, sizeof t.cut);
  CHECK(run_cut(&t, &three, short_cut, &spread) == CK_ERROR_MISMATCH);
  CHECK_MSG(strcmp(last_message(), "the members hold 10 cells, not 11") == 0,
            "\"%s\"", last_message());
  CHECK_MSG(t.teardowns == 3, "%zu teardowns", t.teardowns);
}

/* The members' measures: devices alike or not, the three verdicts on a
 * deal by their speeds, and their census. */
static void measures(void) {
  toy t;
  ck__engine *engine = NULL;
  ck__engine_kind kind = toy_kind(LOCAL);
  ck_device mixed[3] = {devices[0], devices[1], devices[2]};
  ck_spread three = {.devices = mixed, .device_count = 3};
  int alike = -1, verdict = -1;
  double weights[3] = {0, 0, 0}, units[3] = {100, 100, 100};
  toy_init(&t, LOCAL);
  CHECK_OK(ck__engine_create(&kind, &t, &three, CELLS, &engine));
  CHECK_OK(ck__engine_alike(engine, &alike));
  CHECK(alike == 1);
  /* Too few seconds in all: measure on, weights untouched. */
  double few[3] = {0.1, 0.2, 0.3}, even[3] = {1, 1, 1}, slow[3] = {1, 1, 3};
  CHECK_OK(ck__engine_speeds(engine, units, few, 1.0, 0.1, weights, &verdict));
  CHECK(verdict == 0 && weights[0] == 0);
  /* As fast as each other: nothing to gain. */
  CHECK_OK(ck__engine_speeds(engine, units, even, 1.0, 0.1, weights, &verdict));
  CHECK(verdict == 1 && weights[0] == 100 && weights[2] == 100);
  /* One three times slower: 300 / (100 + 100 + 33.3) s against 3 s. */
  CHECK_OK(ck__engine_speeds(engine, units, slow, 1.0, 0.1, weights, &verdict));
  CHECK(verdict == 2 && weights[1] == 100 &&
        fabs(weights[2] - 100.0 / 3) < 1e-12);
  /* A member that measured no time weighs next to nothing. */
  double none[3] = {2, 2, 0};
  CHECK_OK(ck__engine_speeds(engine, units, none, 1.0, 0.1, weights, &verdict));
  CHECK(verdict == 1 && weights[2] == 1e-9);
  /* Units 0 .. 10 held once, their hashes i * i; then one held twice. */
  uint64_t census[3][3] = {{4, 6, 14}, {3, 15, 77}, {4, 34, 294}};
  uint64_t expected[3] = {11, 55, 385};
  CHECK_OK(ck__engine_census(engine, census, expected));
  census[1][0] += 1;
  census[1][1] += 5;
  CHECK(ck__engine_census(engine, census, expected) == CK_ERROR_MISMATCH);
  CHECK_MSG(strstr(last_message(), "hold 12 cells (id sum 60), not the run's "
                                   "11 (id sum 55)") != NULL,
            "\"%s\"", last_message());
  ck__engine_destroy(engine);
  /* A device of another name is another model. */
  snprintf(mixed[2].name, sizeof mixed[2].name, "another");
  toy_init(&t, LOCAL);
  CHECK_OK(ck__engine_create(&kind, &t, &three, CELLS, &engine));
  CHECK_OK(ck__engine_alike(engine, &alike));
  CHECK(alike == 0);
  ck__engine_destroy(engine);
}

/* A measure of the members' speeds: started where allowed after the
 * warm-up, due after its steps, decided on the compute times since it
 * began; off once decided, and started over by a reset. */
static void paces(void) {
  toy t;
  ck__engine *engine = NULL;
  ck__engine_kind kind = toy_kind(LOCAL);
  ck_spread three = {.devices = devices, .device_count = 3};
  double weights[3] = {0, 0, 0}, units[3] = {100, 100, 100};
  int verdict = -1;
  toy_init(&t, LOCAL);
  CHECK_OK(ck__engine_create(&kind, &t, &three, CELLS, &engine));
  if (!engine)
    return;
  double *compute = ck__engine_run(engine)->compute_s;
  ck__engine_pace pace = {.on = 1};
  ck__engine_pace_reset(&pace);
  /* Not before the warm-up of 3 steps, nor where it may not start. */
  ck__engine_pace_step(engine, &pace, 1, 3);
  ck__engine_pace_step(engine, &pace, 0, 3);
  ck__engine_pace_step(engine, &pace, 0, 3);
  CHECK(!pace.measuring && !ck__engine_pace_due(&pace, 0));
  compute[0] = 5, compute[1] = 5, compute[2] = 5;
  ck__engine_pace_step(engine, &pace, 1, 3);
  CHECK(pace.measuring && pace.steps == 0 && pace.from[2] == 5);
  ck__engine_pace_step(engine, &pace, 1, 3);
  CHECK(!ck__engine_pace_due(&pace, 2));
  ck__engine_pace_step(engine, &pace, 0, 3);
  CHECK(ck__engine_pace_due(&pace, 2));
  /* Member 2 took three times as long since: a deal by speeds pays. */
  compute[0] = 6, compute[1] = 6, compute[2] = 8;
  CHECK_OK(ck__engine_pace_decide(engine, &pace, units, 1.0, 0.1, weights,
                                  &verdict));
  CHECK(verdict == 2 && pace.on == 0 && fabs(weights[2] - 100.0 / 3) < 1e-12);
  CHECK(!ck__engine_pace_due(&pace, 2));
  /* Too few seconds: the measure stays on. */
  ck__engine_pace pace2 = {.on = 1};
  ck__engine_pace_reset(&pace2);
  ck__engine_pace_step(engine, &pace2, 1, 0);
  CHECK_OK(ck__engine_pace_decide(engine, &pace2, units, 100.0, 0.1, weights,
                                  &verdict));
  CHECK(verdict == 0 && pace2.on == 1 && pace2.measuring);
  ck__engine_pace_reset(&pace2);
  CHECK(!pace2.measuring && pace2.steps == 0);
  ck__engine_destroy(engine);
}

/* A row a member (ck__engine_sum_each): its index + 1 and ten times
 * that, or a failure on the member asked. */
static ck_status fill_row(void *context, size_t i, double *row) {
  const size_t *failing = context;
  if (i == *failing)
    return ck__fail(CK_ERROR_DEVICE, "no row from member %zu", i);
  row[0] = (double)(i + 1);
  row[1] = 10.0 * (double)(i + 1);
  return CK_OK;
}

/* Only the first of a member's row: the rest stays as the engine gave
 * it, zero. */
static ck_status fill_first(void *context, size_t i, double *row) {
  (void)context;
  row[0] = (double)(i + 1);
  return CK_OK;
}

/* Every member's row summed, and a member's failure agreed; the rows,
 * kept between calls, start at zero each time, and grow. */
static void sums(void) {
  toy t;
  ck__engine *engine = NULL;
  ck__engine_kind kind = toy_kind(LOCAL);
  ck_spread three = {.devices = devices, .device_count = 3};
  size_t failing = SIZE_MAX;
  double total[2] = {0, 0};
  toy_init(&t, LOCAL);
  CHECK_OK(ck__engine_create(&kind, &t, &three, CELLS, &engine));
  CHECK_OK(ck__engine_sum_each(engine, fill_row, &failing, 2, total));
  CHECK_MSG(total[0] == 6 && total[1] == 60, "%g %g", total[0], total[1]);
  double wider[4] = {-1, -1, -1, -1};
  CHECK_OK(ck__engine_sum_each(engine, fill_first, NULL, 4, wider));
  CHECK_MSG(wider[0] == 6 && wider[1] == 0 && wider[2] == 0 && wider[3] == 0,
            "%g %g %g %g", wider[0], wider[1], wider[2], wider[3]);
  failing = 1;
  CHECK(ck__engine_sum_each(engine, fill_row, &failing, 2, total) ==
        CK_ERROR_DEVICE);
  CHECK_MSG(strcmp(last_message(),
                   "member 1 (ref1) failed: no row from member 1") == 0,
            "\"%s\"", last_message());
  ck__engine_destroy(engine);
}

/* The first failure ends the run on every member, with its message;
 * a member alone's message is its own. */
static void failures(void) {
  toy t;
  ending end;
  ck_spread three = {.devices = devices, .device_count = 3};
  ck_spread one = {.devices = devices, .device_count = 1};
  for (int mode = STENCIL; mode <= LOCAL; ++mode) {
    toy_init(&t, mode);
    t.fail_member = 2;
    t.fail_step = 6;
    CHECK(run(&t, &three, &end) == CK_ERROR_DEVICE);
    CHECK_MSG(strcmp(last_message(),
                     "member 2 (ref2) failed: toy failure at step 6") == 0,
              "\"%s\"", last_message());
    toy_init(&t, mode);
    t.fail_member = 0;
    t.fail_step = 3;
    CHECK(run(&t, &one, &end) == CK_ERROR_DEVICE);
    CHECK_MSG(strcmp(last_message(), "toy failure at step 3") == 0, "\"%s\"",
              last_message());
    /* The calling thread's failure after a round: at the next phase, or
     * at the step's end. */
    for (uint64_t round = 1; round <= 9; round += 4) {
      toy_init(&t, mode);
      t.fail_round = round;
      CHECK(run(&t, &three, &end) == CK_ERROR_IO);
      char want[96];
      snprintf(want, sizeof want,
               "member 0 (ref0) failed: toy agreement failed at step %llu",
               (unsigned long long)round);
      CHECK_MSG(strcmp(last_message(), want) == 0, "\"%s\"", last_message());
    }
  }
  /* A member too large: no member set up, every one torn down. */
  toy_init(&t, STENCIL);
  t.too_large = 1;
  CHECK(run(&t, &three, &end) == CK_ERROR_DEVICE_MEMORY);
  CHECK_MSG(strstr(last_message(), "member 1 (ref1) failed: ") &&
                t.set_ups == 0 && t.teardowns == 3,
            "\"%s\", %zu set up, %zu torn down", last_message(), t.set_ups,
            t.teardowns);
  /* What a spread refuses: more members than cells. */
  toy_init(&t, STENCIL);
  ck_spread four = {.devices = devices, .device_count = 4};
  ck__engine *engine = NULL;
  ck__engine_kind kind = toy_kind(LOCAL);
  CHECK_INVALID(ck__engine_create(&kind, &t, &four, 3, &engine),
                "3 cells cannot be dealt to 4 devices");
  CHECK(engine == NULL && t.teardowns == 0);
}

#if CK_HAVE_MPI
/* Over the processes: this rank's members end where its own run of one
 * member ends, and a failure of one rank ends every rank. */
static void across(const void *communicator, int rank) {
  size_t local = (size_t)(rank % 3) + 1;
  toy t;
  ending alone, spread;
  ck_spread one = {.devices = devices, .device_count = 1};
  ck_spread mine = {
      .devices = devices, .device_count = local, .communicator = communicator};
  for (int mode = STENCIL; mode <= LOCAL; ++mode) {
    toy_init(&t, mode);
    CHECK_OK(run(&t, &one, &alone));
    toy_init(&t, mode);
    CHECK_OK(run(&t, &mine, &spread));
    same_ending(mode == STENCIL ? "stencil over ranks" : "local over ranks",
                &alone, &spread);
    CHECK(t.crossed_wrong == 0);
    /* Rank 0's calling thread fails after round 5 (after the last round,
     * in rounds of 4 steps): every rank ends. */
    toy_init(&t, mode);
    if (rank == 0)
      t.fail_round = mode == STENCIL ? 5 : 9;
    CHECK(run(&t, &mine, &spread) == CK_ERROR_IO);
    CHECK_MSG(strstr(last_message(), "member 0 ("), "rank %d: \"%s\"", rank,
              last_message());
  }
}
#endif

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (!test_ref_members(devices, MAX_MEMBERS))
    return CHECK_DONE();
#if CK_HAVE_MPI
  if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
      getenv("PMIX_RANK")) {
    MPI_Comm world = MPI_COMM_WORLD;
    int rank = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(world, &rank);
    across(&world, rank);
    int code = CHECK_DONE();
    MPI_Finalize();
    return code;
  }
#endif
  spreads(STENCIL);
  spreads(LOCAL);
  failures();
  cuts();
  measures();
  sums();
  paces();
  return CHECK_DONE();
}
