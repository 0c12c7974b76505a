/*
 * ga_state.c - an ask/tell GA's state read and restored
 * (ck_ga_get_state, ck_ga_set_state).
 *
 * After a tell of generation g the GA holds generation g + 1 (the next
 * ask) in buffer (g + 1) & 1; the next tell reads that buffer alone,
 * with the islands' bests, the best and the counters. The other buffer
 * is written before it is read again, so it is no part of the state.
 */
#include <float.h>
#include <string.h>

#include "ga/ga_internal.h"

/* The state's arrays, all required. */
static ck_status state_arrays(const ck_ga_state *state, const char *function) {
  const double *arrays[] = {state->population, state->fitness,
                            state->island_best, state->island_best_genes,
                            state->best_genes};
  return ck__state_arrays(function, "ck_ga_state", arrays,
                          sizeof arrays / sizeof *arrays);
}

/* The buffer of the generation that ck_ga_ask gives next. */
static int asked_buffer(const ck_ga *ga) {
  return ga->told ? (int)((ga->generation + 1) & 1) : 0;
}

ck_status ck_ga_get_state(ck_ga *ga, ck_ga_state *state) {
  ck_status status = CK_OK;
  CK__REQUIRE(ga);
  CK__REQUIRE(state);
  /* An ask/tell GA's member holds it (made on one device, alone). */
  ga = ck__ga_alone(ga);
  ga_state *s = &ga->state;
  ck_queue *queue = s->queue;
  int real = s->double_precision, which = asked_buffer(ga);
  size_t total = s->total, islands = s->islands, dim = (size_t)s->dim;
  const char *function = "ck_ga_get_state";
  CK_TRY(ck__ga_check_ask_tell(ga, function));
  CK_TRY(state_arrays(state, function));
  CK_TRY(ck__rows_read(queue, s->population[which], real, ga->host_x, total,
                       dim, state->population));
  CK_TRY(ck__reals_read(queue, s->fitness[which], real, state->fitness, total));
  CK_TRY(
      ck__reals_read(queue, s->island_best, real, state->island_best, islands));
  CK_TRY(ck__rows_read(queue, s->island_best_genes, real, ga->host_x, islands,
                       dim, state->island_best_genes));
  CK_TRY(ck__reals_read(queue, s->best_value, real, &state->best_value, 1));
  CK_TRY(ck__reals_read(queue, s->best_genes, real, state->best_genes, dim));
  /* A best not found yet has genes the device never wrote: 0 instead, so
   * that the state holds no garbage and set_state takes it back. */
  double largest = real ? DBL_MAX : FLT_MAX;
  for (size_t i = 0; i < islands; ++i)
    if (state->island_best[i] >= largest)
      memset(state->island_best_genes + i * dim, 0, dim * sizeof(double));
  if (state->best_value >= largest)
    memset(state->best_genes, 0, dim * sizeof(double));
  state->tells = ga->told ? ga->generation + 1 : 0;
  state->migrations = ga->migrations;
  state->seed = s->seed;
fail:
  return status;
}

ck_status ck_ga_set_state(ck_ga *ga, const ck_ga_state *state) {
  ck_status status = CK_OK;
  CK__REQUIRE(ga);
  CK__REQUIRE(state);
  /* An ask/tell GA's member holds it (made on one device, alone). */
  ga = ck__ga_alone(ga);
  ga_state *s = &ga->state;
  ck_queue *queue = s->queue;
  int real = s->double_precision;
  size_t total = s->total, islands = s->islands, dim = (size_t)s->dim;
  const char *function = "ck_ga_set_state";
  CK_TRY(ck__ga_check_ask_tell(ga, function));
  CK_TRY(state_arrays(state, function));
  CK_TRY(ck__state_seed(function, "GA", state->seed, s->seed));
  CK_TRY(
      ck__state_finite(function, "population", state->population, total * dim));
  CK_TRY(ck__state_finite(function, "island_best_genes",
                          state->island_best_genes, islands * dim));
  CK_TRY(ck__state_finite(function, "best_genes", state->best_genes, dim));
  CK_TRY(ck__state_values(function, "fitness", real, state->fitness, total));
  const ck__state_bests bests = {.values_name = "island_best",
                                 .positions_name = "island_best_genes",
                                 .best_name = "best_value",
                                 .position_name = "best_genes",
                                 .values = state->island_best,
                                 .positions = state->island_best_genes,
                                 .position = state->best_genes,
                                 .best = state->best_value,
                                 .count = islands,
                                 .dim = dim,
                                 .tells = state->tells};
  CK_TRY(ck__state_bests_check(function, real, &bests));
  ga->told = state->tells > 0;
  ga->generation = state->tells > 0 ? state->tells - 1 : 0;
  int which = asked_buffer(ga);
  CK_TRY(ck__rows_write(queue, s->population[which], real, ga->host_x, total,
                        dim, state->population));
  CK_TRY(ck__values_write(queue, s->fitness[which], real, ga->host_f,
                          state->fitness, total));
  CK_TRY(ck__values_write(queue, s->island_best, real, ga->host_f,
                          state->island_best, islands));
  CK_TRY(ck__rows_write(queue, s->island_best_genes, real, ga->host_x, islands,
                        dim, state->island_best_genes));
  CK_TRY(ck__values_write(queue, s->best_value, real, ga->host_f,
                          &state->best_value, 1));
  CK_TRY(ck__reals_write(queue, s->best_genes, real, state->best_genes, dim));
  CK_TRY(ck__ga_set_migrations(ga, state->migrations));
fail:
  return status;
}
