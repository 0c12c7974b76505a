/*
 * ga_ref.c - the ref steps of the GA: the readable definition, and the
 * twins of the kernels in cl/ga.cl. Children come from the same ck_ga.h
 * code; islands and slots are plain loops. Compiled once per precision.
 */
#include <stdlib.h>
#include <string.h>

#include "ck_ga.h"
#include "ga/ga_internal.h"
#include "runtime/real_variant.h"

static ck_status ref_setup(ga_state *state) {
  if (state->objective == CK_OBJECTIVE_USER)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "user objectives are OpenCL C: run them on an OpenCL "
                    "device, not on ref");
  return CK_OK;
}

static ck_status ref_initialise(ga_state *state) {
  ck_real *fitness = ck__reals(state->fitness[0]);
  for (uint32_t g = 0; g < state->total; ++g) {
    ck_real value = ck_ga_initialise_individual(
        state->objective, g, state->first_island * state->size, state->dim,
        state->total, state->seed, ck__reals(state->lo), ck__reals(state->hi),
        ck__reals(state->population[0]));
    fitness[g] = state->streamed ? ck_comparable(value) : CK_REAL_MAX;
  }
  return CK_OK;
}

/* The `count` best of an island in (fitness, index) order, or the worst
 * (the best of the mirrored order), as the kernels pick them. The order
 * is total, so the individuals not picked yet are those after the last
 * pick: one pass over the island a pick. */
static void pick(const ck_real *fitness, uint32_t size, uint32_t count,
                 int worst, uint32_t *chosen) {
  ck_real last = 0;
  uint32_t last_index = 0;
  for (uint32_t k = 0; k < count; ++k) {
    ck_real best = CK_REAL_MAX;
    uint32_t best_index = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < size; ++i) {
      ck_real key = worst ? -fitness[i] : fitness[i];
      uint32_t key_index = worst ? 0xFFFFFFFEu - i : i;
      if ((k == 0 || ck_better(last, last_index, key, key_index)) &&
          ck_better(key, key_index, best, best_index)) {
        best = key;
        best_index = key_index;
      }
    }
    chosen[k] = worst ? 0xFFFFFFFEu - best_index : best_index;
    last = best;
    last_index = best_index;
  }
}

/* Island statistics, and the island's best so far with its genes. */
static void island_stats(ga_state *state, int which, uint32_t island,
                         uint32_t slot) {
  const ck_real *fitness =
      ck__reals(state->fitness[which]) + island * state->size;
  const ck_real *population = ck__reals(state->population[which]);
  ck_real best = CK_REAL_MAX, sum = 0;
  uint32_t winner = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < state->size; ++i) {
    sum += fitness[i];
    if (ck_better(fitness[i], i, best, winner)) {
      best = fitness[i];
      winner = i;
    }
  }
  ck_real *stats = ck__reals(state->stats);
  size_t at = ((size_t)slot * state->islands + island) * 2;
  stats[at] = best;
  stats[at + 1] = sum / (ck_real)state->size;
  ck_real *island_best = ck__reals(state->island_best);
  if (best < island_best[island]) {
    island_best[island] = best;
    for (int d = 0; d < state->dim; ++d)
      ck__reals(state->island_best_genes)[(size_t)d * state->islands + island] =
          population[(size_t)d * state->total + island * state->size + winner];
  }
}

/* ref's islands migrate in ref_migrate (fused_migration is 0), so
 * `migration` is always 0 here. */
static ck_status ref_evolve(ga_state *state, uint64_t first, uint32_t count,
                            uint32_t slot, uint32_t migration) {
  (void)migration;
  uint32_t *chosen = malloc(((size_t)state->elite + 1) * sizeof *chosen);
  if (!chosen)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (uint32_t t = 0; t < count; ++t) {
    uint64_t generation = first + t;
    int odd = (int)(generation & 1);
    const ck_real *current = ck__reals(state->population[odd ? 0 : 1]);
    ck_real *next = ck__reals(state->population[odd ? 1 : 0]);
    const ck_real *current_fitness = ck__reals(state->fitness[odd ? 0 : 1]);
    ck_real *next_fitness = ck__reals(state->fitness[odd ? 1 : 0]);
    for (uint32_t island = 0; island < state->islands; ++island) {
      uint32_t base = island * state->size;
      pick(current_fitness + base, state->size, (uint32_t)state->elite, 0,
           chosen);
      for (uint32_t slot_in = 0; slot_in < state->size; ++slot_in) {
        if (slot_in < (uint32_t)state->elite) {
          uint32_t elite = base + chosen[slot_in];
          for (int d = 0; d < state->dim; ++d)
            next[(size_t)d * state->total + base + slot_in] =
                current[(size_t)d * state->total + elite];
          next_fitness[base + slot_in] = current_fitness[elite];
          continue;
        }
        ck_real value = ck_ga_make_child(
            state->objective, state->bounds, state->tournament,
            state->crossover, (ck_real)state->crossover_rate,
            (ck_real)state->crossover_parameter, state->mutation,
            (ck_real)state->mutation_rate, (ck_real)state->mutation_parameter,
            (ck_real)state->inverse_log_keep, state->seed,
            state->first_island + island, slot_in, generation, state->size,
            state->dim, ck__reals(state->lo), ck__reals(state->hi),
            current + base, 1, state->total, current_fitness + base,
            next + base + slot_in, state->total);
        next_fitness[base + slot_in] =
            state->streamed ? ck_comparable(value) : CK_REAL_MAX;
      }
      if (state->streamed)
        island_stats(state, odd ? 1 : 0, island, slot + t);
    }
  }
  free(chosen);
  return CK_OK;
}

/* lsq: rows summed in order (a host objective's fitness is written by
 * the driver). */
static ck_status ref_evaluate(ga_state *state, int which) {
  if (state->objective == CK_OBJECTIVE_HOST)
    return CK_OK;
  const ck_real *data = ck__reals(state->data),
                *x = ck__reals(state->population[which]);
  ck_real *fitness = ck__reals(state->fitness[which]);
  for (uint32_t g = 0; g < state->total; ++g) {
    ck_real sum = 0;
    for (uint32_t j = 0; j < state->rows; ++j) {
      ck_real residual = data[(size_t)state->dim * state->rows + j];
      for (int k = 0; k < state->dim; ++k)
        residual -=
            x[(size_t)k * state->total + g] * data[(size_t)k * state->rows + j];
      sum += residual * residual;
    }
    fitness[g] = ck_comparable(sum);
  }
  return CK_OK;
}

static ck_status ref_stats(ga_state *state, int which, uint32_t slot) {
  for (uint32_t island = 0; island < state->islands; ++island)
    island_stats(state, which, island, slot);
  return CK_OK;
}

static ck_status ref_migrate(ga_state *state, int which, uint32_t parts) {
  ck_real *population = ck__reals(state->population[which]);
  ck_real *fitness = ck__reals(state->fitness[which]);
  /* One set of migrant buffers: ref sends and receives in one call. */
  ck_real *genes = ck__reals(state->migrant_genes[0]);
  ck_real *migrant_fitness = ck__reals(state->migrant_fitness[0]);
  const uint32_t *source = ck__words(state->source);
  uint32_t *chosen = malloc(state->migrants * sizeof *chosen);
  if (!chosen)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* Every island's emigrants are taken before any island receives. */
  if (parts & CK_GA_EMIGRATE) {
    for (uint32_t island = 0; island < state->islands; ++island) {
      uint32_t base = island * state->size;
      pick(fitness + base, state->size, state->migrants, 0, chosen);
      for (uint32_t k = 0; k < state->migrants; ++k) {
        size_t to = (size_t)island * state->migrants + k;
        for (int d = 0; d < state->dim; ++d)
          genes[to * state->dim + d] =
              population[(size_t)d * state->total + base + chosen[k]];
        migrant_fitness[to] = fitness[base + chosen[k]];
      }
    }
  }
  if (parts & CK_GA_IMMIGRATE) {
    for (uint32_t island = 0; island < state->islands; ++island) {
      uint32_t base = island * state->size;
      pick(fitness + base, state->size, state->migrants, 1, chosen);
      for (uint32_t k = 0; k < state->migrants; ++k) {
        size_t from = (size_t)source[island] * state->migrants + k;
        for (int d = 0; d < state->dim; ++d)
          population[(size_t)d * state->total + base + chosen[k]] =
              genes[from * state->dim + d];
        fitness[base + chosen[k]] = migrant_fitness[from];
      }
    }
  }
  free(chosen);
  return CK_OK;
}

static ck_status ref_update_best(ga_state *state) {
  const ck_real *island_best = ck__reals(state->island_best);
  ck_real *best_value = ck__reals(state->best_value);
  ck_real winner_value = CK_REAL_MAX;
  uint32_t winner = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < state->islands; ++i) {
    if (ck_better(island_best[i], i, winner_value, winner)) {
      winner_value = island_best[i];
      winner = i;
    }
  }
  if (winner_value < best_value[0]) {
    best_value[0] = winner_value;
    ck__words(state->best_index)[0] = winner;
    for (int d = 0; d < state->dim; ++d)
      ck__reals(state->best_genes)[d] = ck__reals(
          state->island_best_genes)[(size_t)d * state->islands + winner];
  }
  return CK_OK;
}

static void ref_teardown(ga_state *state) {
  (void)state;
}

double CK_VARIANT(ck__ga_inverse_log_keep)(double rate) {
  return (double)ck_ga_inverse_log_keep((ck_real)rate);
}

/* No fold_stats: the host folds ref's statistics where they are. */
const ck__ga_steps CK_VARIANT(ck__ga_ref_steps) = {
    .setup = ref_setup,
    .initialise = ref_initialise,
    .evolve = ref_evolve,
    .evaluate = ref_evaluate,
    .stats = ref_stats,
    .migrate = ref_migrate,
    .update_best = ref_update_best,
    .teardown = ref_teardown,
};
