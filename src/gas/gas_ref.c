/*
 * gas_ref.c - the ref steps of the 2D gas: loops over particles calling
 * the same cl/ck_gas.h functions as the kernels of cl/gas.cl, and a
 * serial counting sort by cell that ends in the same order as the
 * kernels' parallel one. Compiled for float and for double.
 */
#include <stdlib.h>
#include <string.h>

#include "gas/gas_internal.h"
#include "runtime/real_variant.h"

static ck_gas_geometry geometry(const gas_state *state) {
  ck_gas_geometry g;
  g.box_x = (ck_real)state->box_x;
  g.box_y = (ck_real)state->box_y;
  g.cell_inverse_x = (ck_real)state->cell_inverse_x;
  g.cell_inverse_y = (ck_real)state->cell_inverse_y;
  g.cells_x = state->cells_x;
  g.cells_y = state->cells_y;
  g.walls = state->walls;
  return g;
}

static ck_gas_pair_constants constants(const gas_state *state) {
  ck_gas_pair_constants pair;
  pair.rc2 = (ck_real)state->rc2;
  pair.energy_shift = (ck_real)state->energy_shift;
  pair.force_shift = (ck_real)state->force_shift;
  pair.strength = (ck_real)state->strength;
  pair.softening2 = (ck_real)state->softening2;
  pair.soft_log_weight = -pair.strength / (ck_real)12;
  return pair;
}

static ck_status ref_setup(gas_state *state) {
  (void)state;
  return CK_OK;
}

static ck_status ref_kick_drift(gas_state *state) {
  ck_gas_geometry g = geometry(state);
  ck_real *position = ck__reals(state->position);
  ck_real *velocity = ck__reals(state->velocity);
  const ck_real *force = ck__reals(state->force);
  const ck_real *reference =
      state->neighbors == CK_GAS_VERLET ? ck__reals(state->reference) : NULL;
  ck_real half_skin2 = (ck_real)(0.25 * state->skin * state->skin);
  uint32_t *flags = ck__words(state->flags);
  for (uint32_t k = 0; k < state->particles; ++k)
    if (ck_gas_kick_drift_particle(k, position, position, velocity, force,
                                   (ck_real)state->dt, &g, reference,
                                   half_skin2))
      flags[0] = 1;
  return CK_OK;
}

/* The sort by cell (ck_gas_sort_serially), filling the cell ranges;
 * Verlet mode also keeps the sorted positions as its reference. */
static void sort_by_cell(gas_state *state) {
  ck_gas_geometry g = geometry(state);
  ck_gas_sort_serially(
      state->particles, state->cells, &g, ck__reals(state->position),
      ck__reals(state->velocity), ck__words(state->id),
      ck__reals(state->sorted_position), ck__reals(state->sorted_velocity),
      ck__words(state->sorted_id), ck__words(state->cell_key),
      ck__words(state->cell_start), ck__words(state->cell_count),
      ck__words(state->cell_fill),
      state->neighbors == CK_GAS_VERLET ? ck__reals(state->reference) : NULL);
}

static ck_status ref_neighbors(gas_state *state, int force_rebuild) {
  uint32_t *flags = ck__words(state->flags);
  if (state->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  if (state->neighbors == CK_GAS_VERLET && !force_rebuild && !flags[0])
    return CK_OK;
  sort_by_cell(state);
  if (state->neighbors == CK_GAS_VERLET) {
    ck_gas_geometry g = geometry(state);
    const ck_real *position = ck__reals(state->position);
    uint32_t *list = ck__words(state->list),
             *list_count = ck__words(state->list_count);
    double range = state->rc + state->skin;
    for (uint32_t i = 0; i < state->particles; ++i) {
      list_count[i] =
          ck_gas_list_of(i, position, ck__words(state->cell_start),
                         ck__words(state->cell_count), &g,
                         (ck_real)(range * range), list, state->list_capacity);
      if (list_count[i] > state->list_capacity)
        flags[1] = 1;
    }
    flags[0] = 0;
  }
  return CK_OK;
}

static ck_status ref_forces(gas_state *state) {
  ck_gas_geometry g = geometry(state);
  ck_gas_pair_constants pair = constants(state);
  const ck_real *position = ck__reals(state->position);
  ck_real *force = ck__reals(state->force);
  ck_real *energy = ck__reals(state->energy);
  ck_real *virial = ck__reals(state->virial);
  ck_real rc = (ck_real)state->rc;
  for (uint32_t i = 0; i < state->particles; ++i) {
    if (state->neighbors == CK_GAS_CELLS)
      ck_gas_force_from_cells(i, position, ck__words(state->cell_start),
                              ck__words(state->cell_count), &g, state->model,
                              &pair, rc, state->with_energy, force, energy,
                              virial);
    else if (state->neighbors == CK_GAS_VERLET)
      ck_gas_force_from_list(i, position, ck__words(state->list),
                             ck__words(state->list_count), state->list_capacity,
                             &g, state->model, &pair, rc, state->with_energy,
                             force, energy, virial);
    else
      ck_gas_force_from_all(i, state->particles, position, &g, state->model,
                            &pair, rc, state->with_energy, force, energy,
                            virial);
  }
  return CK_OK;
}

static ck_status ref_kick(gas_state *state, uint64_t step) {
  ck_real *velocity = ck__reals(state->velocity);
  const ck_real *force = ck__reals(state->force);
  const uint32_t *id = ck__words(state->id);
  int langevin = state->thermostat == CK_GAS_LANGEVIN;
  for (uint32_t k = 0; k < state->particles; ++k)
    ck_gas_kick_particle(k, velocity, force, id, (ck_real)state->dt,
                         langevin ? (ck_real)state->langevin_damping : CK_R(0),
                         (ck_real)state->langevin_noise, state->seed, step);
  return CK_OK;
}

static ck_status ref_reduce(gas_state *state, double sums[5]) {
  const ck_real *velocity = ck__reals(state->velocity);
  const ck_real *energy = ck__reals(state->energy);
  const ck_real *virial = ck__reals(state->virial);
  memset(sums, 0, 5 * sizeof *sums);
  for (uint32_t k = 0; k < state->particles; ++k) {
    double vx = velocity[2 * k], vy = velocity[2 * k + 1];
    sums[0] += 0.5 * (vx * vx + vy * vy);
    sums[1] += energy[k];
    sums[2] += virial[k];
    sums[3] += vx;
    sums[4] += vy;
  }
  return CK_OK;
}

static ck_status ref_rescale(gas_state *state) {
  double sums[5];
  ref_reduce(state, sums);
  double temperature = 2.0 * sums[0] / state->degrees_of_freedom;
  ck_real scale = temperature > 0
                      ? (ck_real)sqrt(state->target_temperature / temperature)
                      : CK_R(1);
  ck_real *velocity = ck__reals(state->velocity);
  for (uint32_t k = 0; k < 2 * state->particles; ++k)
    velocity[k] *= scale;
  return CK_OK;
}

static ck_status ref_rdf(gas_state *state, uint32_t bins, double range) {
  ck_gas_geometry g = geometry(state);
  int verlet = state->neighbors == CK_GAS_VERLET;
  int cells = state->neighbors == CK_GAS_CELLS;
  for (uint32_t i = 0; i < state->particles; ++i)
    ck_gas_rdf_pairs(
        i, state->particles, ck__reals(state->position),
        ck__reals(state->position), cells ? ck__words(state->cell_start) : NULL,
        cells ? ck__words(state->cell_count) : NULL,
        verlet ? ck__words(state->list) : NULL,
        verlet ? ck__words(state->list_count) : NULL, state->list_capacity, &g,
        (ck_real)range, bins, ck__words(state->rdf_counts));
  return CK_OK;
}

static void ref_teardown(gas_state *state) {
  (void)state;
}

const ck__gas_steps CK_VARIANT(ck__gas_ref_steps) = {
    .setup = ref_setup,
    .kick_drift = ref_kick_drift,
    .neighbors = ref_neighbors,
    .forces = ref_forces,
    .kick = ref_kick,
    .rescale = ref_rescale,
    .reduce = ref_reduce,
    .rdf = ref_rdf,
    .teardown = ref_teardown,
};
