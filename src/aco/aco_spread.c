/*
 * aco_spread.c - what crosses between an ant colony's members
 * (aco_members.c) where it has several, over devices and processes.
 *
 * The probe times each member's device for the deal. One colony of
 * several members ranks the ants of all of them for local search (every
 * member's lengths go to all), sums ACS's edge counts, and adapts a
 * focused colony's bound from the improved ants of all, as one device
 * does over its ants.
 *
 * Colonies (spread_colonies K): each member runs a colony of its own on
 * its slice of the ants; the best tour of all is the run's, and every K
 * iterations each colony whose best is longer adopts it and deposits it.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_members.h"
#include "ck_aco.h"

/* Iterations a probe's batch holds, at most. */
#define PROBE_ITERATIONS 8

/* A probe's step: `count` iterations of a trial colony, waited for. */
static ck_status probe_step(void *context, uint64_t count) {
  ck_aco *aco = context;
  ck_status status = ck_aco_step(aco, count);
  return status ? status : ck_queue_finish(ck__aco_state(aco)->queue);
}

/* A member's ant-iterations a second, on a colony of its equal share
 * after a first iteration: the speeds the ants are dealt by. */
ck_status ck__aco_spread_probe(void *self, const ck__engine_member *trial,
                               double *per_second) {
  const ck__aco_spread *spread = self;
  ck_aco_config config = spread->making->trial;
  config.ants = (uint32_t)trial->units;
  ck_aco *aco = NULL;
  double iterations = 0;
  ck_status status = ck__aco_create_slice(
      trial->device, spread->making->instance, &config, 0, &aco);
  if (status == CK_OK)
    status = ck__spread_time(probe_step, aco, PROBE_ITERATIONS, &iterations);
  *per_second = iterations * (double)trial->units;
  ck_aco_destroy(aco);
  return status;
}

/* One focused colony of several members adapts its bound over all of
 * them: the members' own adapting is turned off. A member alone adapts
 * its own, as a colony on one device does (its caller asks none). */
void ck__aco_spread_share_bound(ck__aco_spread *spread) {
  const aco_state *state = state_of(spread, 0);
  assert(ck__engine_members(spread->engine) > 1);
  spread->bound = state->focus_bound;
  spread->adaptive = !spread->every && state->method == CK_ACO_FOCUSED &&
                     state->focus_adaptive;
  for (size_t i = 0; spread->adaptive && i < spread->run->local; ++i)
    state_of(spread, i)->focus_adaptive = 0;
}

/* ---- one colony ---------------------------------------------------------- */

static int by_length_then_ant(const void *a, const void *b) {
  const aco_ranked_ant *x = a, *y = b;
  if (x->length != y->length)
    return x->length < y->length ? -1 : 1;
  return x->ant < y->ant ? -1 : x->ant > y->ant;
}

/* A member's lengths into its row of local_lengths, padded to the widest
 * slice. */
static ck_status read_lengths(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  int64_t *mine = spread->local_lengths + i * spread->widest;
  uint32_t units = (uint32_t)spread->run->units[i];
  for (uint32_t a = units; a < spread->widest; ++a)
    mine[a] = INT64_MAX;
  return ck_buffer_read(state->queue, state->lengths, 0, units * sizeof *mine,
                        mine, CK_BLOCKING, NULL);
}

/* Local search on a member's ants that rank among the best
 * search_ants, up to spread->last. */
static ck_status search_listed(void *context, size_t i) {
  ck__aco_spread *spread = context;
  const int64_t *mine = spread->local_lengths + i * spread->widest;
  uint32_t *listed = spread->listed + i * spread->widest, count = 0;
  for (uint32_t a = 0; a < spread->run->units[i]; ++a) {
    aco_ranked_ant key = {mine[a], spread->run->first[i] + a};
    if (by_length_then_ant(&key, &spread->last) <= 0)
      listed[count++] = a;
  }
  return count ? steps_of(spread, i)->local_search(state_of(spread, i), listed,
                                                   count)
               : CK_OK;
}

/* Local search on the best search_ants tours of the colony by (length,
 * ant), as one device ranks them: every member's lengths go to all, and
 * each member improves those of its ants that rank. */
ck_status ck__aco_spread_search_best(ck__aco_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = spread->run;
  size_t members = ck__exchange_members(run->exchange);
  uint32_t widest = spread->widest;
  size_t row = widest * sizeof *spread->lengths;
  CK_TRY(each(spread, read_lengths));
  CK_TRY(ck__exchange_gather_rows(run->exchange, spread->local_lengths, row,
                                  row, spread->lengths));
  size_t count = 0;
  for (size_t m = 0; m < members; ++m) {
    uint64_t first = 0, units = 0;
    ck__engine_slice(spread->engine, m, &first, &units);
    for (uint64_t a = 0; a < units; ++a) {
      spread->ranked[count].length = spread->lengths[m * widest + a];
      spread->ranked[count++].ant = first + a;
    }
  }
  qsort(spread->ranked, count, sizeof *spread->ranked, by_length_then_ant);
  spread->last = spread->ranked[spread->search_ants - 1];
  CK_TRY(each(spread, search_listed));
fail:
  return status;
}

/* A member's count of its ants that beat the tour they copied. */
static ck_status count_improved(void *context, size_t i) {
  ck__aco_spread *spread = context;
  ck_status status = read_lengths(spread, i);
  spread->values[i] = ck__aco_focus_improved(
      state_of(spread, i), spread->local_lengths + i * spread->widest);
  return status;
}

/* The adaptive bound after a focused iteration, from the improved ants of
 * all members, as one device adapts it over its ants. */
ck_status ck__aco_spread_adapt_bound(ck__aco_spread *spread) {
  ck_status status = CK_OK;
  double improved = 0;
  CK_TRY(each(spread, count_improved));
  CK_TRY(ck__exchange_sum_rows(spread->run->exchange, spread->values, 1,
                               &improved, 1));
  spread->bound = ck_aco_focus_bound(spread->bound, (uint32_t)improved,
                                     spread->ants, spread->n);
fail:
  return status;
}

/* A member's counts of its ants' edges, as doubles. */
static ck_status read_uses(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  size_t entries = spread->entries;
  double *mine = spread->uses + i * entries;
  uint32_t *counts = spread->counts + i * entries;
  ck_status status =
      ck_buffer_read(state->queue, state->uses, 0, entries * sizeof *counts,
                     counts, CK_BLOCKING, NULL);
  for (size_t e = 0; e < entries; ++e)
    mine[e] = counts[e];
  return status;
}

/* The summed counts into a member's. */
static ck_status write_uses(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  size_t entries = spread->entries;
  return ck_buffer_write(
      state->queue, state->uses, 0, entries * sizeof *spread->counts,
      spread->counts + spread->run->local * entries, CK_BLOCKING, NULL);
}

/* ACS: every member's counts of the ants' edges, summed, to all, so that
 * each applies the local update of the whole colony. Sums of whole
 * numbers below 2^53 are exact in any order. */
ck_status ck__aco_spread_sum_uses(ck__aco_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = spread->run;
  size_t entries = spread->entries;
  CK_TRY(each(spread, read_uses));
  double *sum = spread->uses + run->local * entries;
  CK_TRY(ck__exchange_sum_rows(run->exchange, spread->uses, entries, sum,
                               entries));
  uint32_t *counts = spread->counts + run->local * entries;
  for (size_t e = 0; e < entries; ++e)
    counts[e] = (uint32_t)sum[e];
  CK_TRY(each(spread, write_uses));
fail:
  return status;
}

/* ---- colonies ------------------------------------------------------------ */

/* An iteration of a member's colony, and its best length. */
static ck_status colony_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  ck_aco *aco = spread->members[i];
  ck_status status = ck__aco_iterate_begin(aco);
  if (status == CK_OK)
    status = ck__aco_iterate_end(aco);
  spread->values[i] = (double)ck__aco_best_length(aco);
  spread->indices[i] = ck__exchange_first(spread->run->exchange) + i;
  return status;
}

static ck_status best_tour_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  int64_t length = 0;
  return i == spread->arg.holder
             ? ck_aco_get_best(spread->members[i], &length, spread->arg.tour)
             : CK_OK;
}

ck_status ck__aco_spread_colonies_step(ck__aco_spread *spread,
                                       int64_t best_length, uint32_t *best_tour,
                                       int *improved) {
  ck_status status = CK_OK;
  ck__spread_run *run = spread->run;
  *improved = 0;
  CK_TRY(each(spread, colony_member));
  /* The least best of all colonies, ties to the lowest member. */
  double best = 0;
  uint64_t index = 0;
  size_t first = ck__exchange_first(run->exchange), holder = 0;
  CK_TRY(ck__exchange_min(run->exchange, spread->values, spread->indices, &best,
                          &index, &holder));
  if (!(best < (double)best_length))
    return CK_OK;
  spread->arg.holder = holder >= first && holder < first + run->local
                           ? holder - first
                           : run->local;
  spread->arg.tour = best_tour;
  CK_TRY(each(spread, best_tour_member));
  CK_TRY(ck__exchange_broadcast(run->exchange, holder, best_tour,
                                (size_t)spread->n * sizeof *best_tour));
  *improved = 1;
fail:
  return status;
}

static ck_status adopt_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  ck_aco *aco = spread->members[i];
  return ck__aco_best_length(aco) > spread->arg.length
             ? ck__aco_adopt(aco, spread->arg.words)
             : CK_OK;
}

ck_status ck__aco_spread_share(ck__aco_spread *spread, uint64_t made,
                               int64_t best_length, const uint32_t *best_tour) {
  if (made % spread->every)
    return CK_OK;
  spread->arg.length = best_length;
  spread->arg.words = best_tour;
  return each(spread, adopt_member);
}

ck_status ck__aco_spread_restarts(ck__aco_spread *spread, uint64_t *restarts) {
  ck_status status = CK_OK;
  double mine[CK_SPREAD_MAX_LOCAL], sum = 0;
  if (!spread->every)
    return CK_OK;
  for (size_t i = 0; i < spread->run->local; ++i)
    mine[i] = (double)ck__aco_restarts(spread->members[i]);
  CK_TRY(ck__exchange_sum_rows(spread->run->exchange, mine, 1, &sum, 1));
  *restarts = (uint64_t)sum;
fail:
  return status;
}
