/*
 * pso_ref.c - the ref steps of PSO: the readable definition, and the
 * twins of the kernels in cl/pso.cl. They call the same per-particle code
 * (cl/ck_pso.h) in a loop over particles. Compiled once per precision.
 */
#include <string.h>

#include "ck_pso.h"
#include "pso/pso_internal.h"
#include "runtime/real_variant.h"

static ck_status ref_setup(pso_state *state) {
  if (state->objective == CK_OBJECTIVE_USER)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "user objectives are OpenCL C: run them on an OpenCL "
                    "device, not on ref");
  return CK_OK;
}

static ck_status ref_initialise(pso_state *state) {
  ck_real *pbest_value = ck__reals(state->pbest_value);
  for (uint32_t p = 0; p < state->n; ++p) {
    ck_real value = ck_pso_initialise_particle(
        state->objective, p, state->first, state->n, state->dim, state->seed,
        ck__reals(state->lo), ck__reals(state->hi), ck__reals(state->vmax),
        (ck_real)state->velocity_init, ck__reals(state->x), ck__reals(state->v),
        ck__reals(state->pbest));
    pbest_value[p] = state->streamed ? ck_comparable(value) : CK_REAL_MAX;
  }
  return CK_OK;
}

static int target_met(pso_state *state) {
  return ck__words(state->done)[0] != 0;
}

/* The kernel ck_pso_neighbours: the whole swarm's ring, or a slice's
 * with its halo. */
static ck_status ref_neighbours(pso_state *state) {
  uint32_t *neighbour = ck__words(state->neighbour);
  const ck_real *pbest_value = ck__reals(state->pbest_value);
  if (target_met(state))
    return CK_OK;
  for (uint32_t p = 0; p < state->n; ++p)
    neighbour[p] =
        state->n < state->total
            ? ck_pso_ring_best_slice(p, state->n, state->ring, state->first,
                                     state->total, pbest_value,
                                     ck__reals(state->inbox),
                                     (uint32_t)state->dim + 1u)
            : ck_pso_ring_best(p, state->n, state->ring, pbest_value);
  return CK_OK;
}

/* Each particle's position kept as its personal best where values[p]
 * beats it (the kernel ck_pso_keep). */
static void keep_values(pso_state *state) {
  for (uint32_t p = 0; p < state->n; ++p)
    ck_pso_keep_best(p, state->n, state->dim, ck__reals(state->values)[p],
                     ck__reals(state->pbest_value), ck__reals(state->x),
                     ck__reals(state->pbest));
}

static ck_status ref_move(pso_state *state, uint64_t iteration) {
  const uint32_t *neighbour = state->ring ? ck__words(state->neighbour) : NULL;
  if (target_met(state))
    return CK_OK;
  for (uint32_t p = 0; p < state->n; ++p) {
    const ck_real *guide = ck__reals(state->gbest);
    uint32_t guide_index = 0, guide_stride = 1;
    if (state->ring)
      guide = ck_pso_ring_guide(
          neighbour[p], state->n, state->dim, ck__reals(state->pbest),
          ck__reals(state->inbox), &guide_index, &guide_stride);
    ck_real value = ck_pso_move_particle(
        state->objective, state->bounds, p, state->first, state->n, state->dim,
        state->seed, iteration, (ck_real)state->w, (ck_real)state->c1,
        (ck_real)state->c2, ck__reals(state->lo), ck__reals(state->hi),
        ck__reals(state->vmax), ck__reals(state->x), ck__reals(state->v),
        ck__reals(state->pbest), guide, guide_index, guide_stride);
    /* The ring reads neighbours' personal bests: keep them until every
     * particle has moved, as the kernels do. */
    if (state->streamed && state->ring)
      ck__reals(state->values)[p] = ck_comparable(value);
    else if (state->streamed)
      ck_pso_keep_best(p, state->n, state->dim, ck_comparable(value),
                       ck__reals(state->pbest_value), ck__reals(state->x),
                       ck__reals(state->pbest));
  }
  if (state->streamed && state->ring)
    keep_values(state);
  return CK_OK;
}

/* lsq: rows summed in order; host objectives: the values the driver
 * wrote kept (user objectives never reach ref). */
static ck_status ref_evaluate(pso_state *state) {
  const ck_real *data = ck__reals(state->data), *x = ck__reals(state->x);
  if (target_met(state))
    return CK_OK;
  if (state->objective == CK_OBJECTIVE_HOST) {
    keep_values(state);
    return CK_OK;
  }
  for (uint32_t p = 0; p < state->n; ++p) {
    ck_real sum = 0;
    for (uint32_t j = 0; j < state->rows; ++j) {
      ck_real residual = data[(size_t)state->dim * state->rows + j];
      for (int k = 0; k < state->dim; ++k)
        residual -=
            x[(size_t)k * state->n + p] * data[(size_t)k * state->rows + j];
      sum += residual * residual;
    }
    ck_pso_keep_best(p, state->n, state->dim, ck_comparable(sum),
                     ck__reals(state->pbest_value), ck__reals(state->x),
                     ck__reals(state->pbest));
  }
  return CK_OK;
}

static ck_status ref_update_best(pso_state *state, uint32_t slot) {
  const ck_real *pbest_value = ck__reals(state->pbest_value);
  ck_real *best_value = ck__reals(state->best_value);
  uint32_t *best_index = ck__words(state->best_index);
  ck_real winner_value = CK_REAL_MAX;
  uint32_t winner = 0xFFFFFFFFu;
  for (uint32_t p = 0; p < state->n; ++p) {
    if (ck_better(pbest_value[p], p, winner_value, winner)) {
      winner_value = pbest_value[p];
      winner = p;
    }
  }
  if (winner_value < best_value[0]) {
    best_value[0] = winner_value;
    best_index[0] = winner;
    const ck_real *pbest = ck__reals(state->pbest);
    ck_real *gbest = ck__reals(state->gbest);
    for (int d = 0; d < state->dim; ++d)
      gbest[d] = pbest[(size_t)d * state->n + winner];
  }
  ck__reals(state->history)[slot] = best_value[0];
  if (state->has_target && best_value[0] <= (ck_real)state->target)
    ck__words(state->done)[0] = 1;
  return CK_OK;
}

/* The kernel ck_pso_report: a spread member's outbox. */
static ck_status ref_report(pso_state *state) {
  for (uint32_t j = 0; j <= state->send_forward + state->send_back; ++j)
    ck_pso_report_item(j, state->n, state->dim, state->send_forward,
                       state->send_back, ck__reals(state->best_value),
                       ck__words(state->best_index), ck__reals(state->gbest),
                       ck__reals(state->pbest_value), ck__reals(state->pbest),
                       ck__reals(state->outbox));
  return CK_OK;
}

static void ref_teardown(pso_state *state) {
  (void)state;
}

const ck__pso_steps CK_VARIANT(ck__pso_ref_steps) = {
    .setup = ref_setup,
    .initialise = ref_initialise,
    .neighbours = ref_neighbours,
    .move = ref_move,
    .evaluate = ref_evaluate,
    .update_best = ref_update_best,
    .report = ref_report,
    .teardown = ref_teardown,
};
