/*
 * pso_ref.c - the ref steps of PSO: the readable definition, and the
 * twins of the kernels in cl/pso.cl. They call the same per-particle code
 * (cl/ck_pso.h) in a loop over particles. Compiled once per precision.
 */
#include <string.h>

#include "ck_pso.h"
#include "core/real_variant.h"
#include "pso/pso_internal.h"

static ck_status ref_setup(pso_state *s) {
  if (s->objective == CK_OBJECTIVE_USER)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "user objectives are OpenCL C: run them on an OpenCL "
                    "device, not on ref");
  return CK_OK;
}

static ck_status ref_initialise(pso_state *s) {
  ck_real *pbest_value = ck__reals(s->pbest_value);
  for (uint32_t p = 0; p < s->n; ++p) {
    ck_real value = ck_pso_initialise_particle(
        s->objective, p, s->n, s->dim, s->seed, ck__reals(s->lo),
        ck__reals(s->hi), ck__reals(s->vmax), (ck_real)s->velocity_init,
        ck__reals(s->x), ck__reals(s->v), ck__reals(s->pbest));
    pbest_value[p] = s->streamed ? ck_comparable(value) : CK_REAL_MAX;
  }
  return CK_OK;
}

static int target_met(pso_state *s) {
  return ck__words(s->done)[0] != 0;
}

static ck_status ref_neighbours(pso_state *s) {
  uint32_t *neighbour = ck__words(s->neighbour);
  if (target_met(s))
    return CK_OK;
  for (uint32_t p = 0; p < s->n; ++p)
    neighbour[p] =
        ck_pso_ring_best(p, s->n, s->ring, ck__reals(s->pbest_value));
  return CK_OK;
}

static ck_status ref_move(pso_state *s, uint64_t iteration) {
  const uint32_t *neighbour = s->ring ? ck__words(s->neighbour) : NULL;
  if (target_met(s))
    return CK_OK;
  for (uint32_t p = 0; p < s->n; ++p) {
    ck_real value = ck_pso_move_particle(
        s->objective, s->bounds, p, s->n, s->dim, s->seed, iteration,
        (ck_real)s->w, (ck_real)s->c1, (ck_real)s->c2, ck__reals(s->lo),
        ck__reals(s->hi), ck__reals(s->vmax), ck__reals(s->x), ck__reals(s->v),
        ck__reals(s->pbest),
        s->ring ? ck__reals(s->pbest) : ck__reals(s->gbest),
        s->ring ? neighbour[p] : 0, s->ring ? s->n : 1);
    /* The ring reads neighbours' personal bests: keep them until every
     * particle has moved, as the kernels do. */
    if (s->streamed && s->ring)
      ck__reals(s->values)[p] = ck_comparable(value);
    else if (s->streamed)
      ck_pso_keep_best(p, s->n, s->dim, ck_comparable(value),
                       ck__reals(s->pbest_value), ck__reals(s->x),
                       ck__reals(s->pbest));
  }
  for (uint32_t p = 0; s->streamed && s->ring && p < s->n; ++p)
    ck_pso_keep_best(p, s->n, s->dim, ck__reals(s->values)[p],
                     ck__reals(s->pbest_value), ck__reals(s->x),
                     ck__reals(s->pbest));
  return CK_OK;
}

/* lsq only (user objectives never reach ref): rows summed in order. */
static ck_status ref_evaluate(pso_state *s) {
  const ck_real *data = ck__reals(s->data), *x = ck__reals(s->x);
  if (target_met(s))
    return CK_OK;
  for (uint32_t p = 0; p < s->n; ++p) {
    ck_real sum = 0;
    for (uint32_t j = 0; j < s->rows; ++j) {
      ck_real residual = data[(size_t)s->dim * s->rows + j];
      for (int k = 0; k < s->dim; ++k)
        residual -= x[(size_t)k * s->n + p] * data[(size_t)k * s->rows + j];
      sum += residual * residual;
    }
    ck_pso_keep_best(p, s->n, s->dim, ck_comparable(sum),
                     ck__reals(s->pbest_value), ck__reals(s->x),
                     ck__reals(s->pbest));
  }
  return CK_OK;
}

static ck_status ref_update_best(pso_state *s, uint32_t slot) {
  const ck_real *pbest_value = ck__reals(s->pbest_value);
  ck_real *best_value = ck__reals(s->best_value);
  uint32_t *best_index = ck__words(s->best_index);
  ck_real winner_value = CK_REAL_MAX;
  uint32_t winner = 0xFFFFFFFFu;
  for (uint32_t p = 0; p < s->n; ++p) {
    if (ck_better(pbest_value[p], p, winner_value, winner)) {
      winner_value = pbest_value[p];
      winner = p;
    }
  }
  if (winner_value < best_value[0]) {
    best_value[0] = winner_value;
    best_index[0] = winner;
    const ck_real *pbest = ck__reals(s->pbest);
    ck_real *gbest = ck__reals(s->gbest);
    for (int d = 0; d < s->dim; ++d)
      gbest[d] = pbest[(size_t)d * s->n + winner];
  }
  ck__reals(s->history)[slot] = best_value[0];
  if (s->has_target && best_value[0] <= (ck_real)s->target)
    ck__words(s->done)[0] = 1;
  return CK_OK;
}

static void ref_teardown(pso_state *s) {
  (void)s;
}

const ck__pso_steps CK_VARIANT(ck__pso_ref_steps) = {
    ref_setup,    ref_initialise,  ref_neighbours, ref_move,
    ref_evaluate, ref_update_best, ref_teardown,   NULL};
