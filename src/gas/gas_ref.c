/*
 * gas_ref.c - the ref steps of the 2D gas: loops over particles calling
 * the same cl/ck_gas.h functions as the kernels of cl/gas.cl, and a
 * serial counting sort by cell that ends in the same order as the
 * kernels' parallel one. Compiled for float and for double.
 */
#include <stdlib.h>
#include <string.h>

#include "core/real_variant.h"
#include "gas/gas_internal.h"

static ck_gas_geometry geometry(const gas_state *s) {
  ck_gas_geometry g;
  g.box_x = (ck_real)s->box_x;
  g.box_y = (ck_real)s->box_y;
  g.cell_inverse_x = (ck_real)s->cell_inverse_x;
  g.cell_inverse_y = (ck_real)s->cell_inverse_y;
  g.cells_x = s->cells_x;
  g.cells_y = s->cells_y;
  g.walls = s->walls;
  return g;
}

static ck_gas_pair_constants constants(const gas_state *s) {
  ck_gas_pair_constants pair;
  pair.rc2 = (ck_real)s->rc2;
  pair.energy_shift = (ck_real)s->energy_shift;
  pair.force_shift = (ck_real)s->force_shift;
  pair.strength = (ck_real)s->strength;
  pair.softening2 = (ck_real)s->softening2;
  pair.soft_log_weight = -pair.strength / (ck_real)12;
  return pair;
}

static ck_status ref_setup(gas_state *state) {
  (void)state;
  return CK_OK;
}

static ck_status ref_kick_drift(gas_state *s) {
  ck_gas_geometry g = geometry(s);
  ck_real *position = ck__reals(s->position);
  ck_real *velocity = ck__reals(s->velocity);
  const ck_real *force = ck__reals(s->force);
  const ck_real *reference =
      s->neighbors == CK_GAS_VERLET ? ck__reals(s->reference) : NULL;
  ck_real half_skin2 = (ck_real)(0.25 * s->skin * s->skin);
  uint32_t *flags = ck__words(s->flags);
  for (uint32_t k = 0; k < s->particles; ++k)
    if (ck_gas_kick_drift_particle(k, position, position, velocity, force,
                                   (ck_real)s->dt, &g, reference, half_skin2))
      flags[0] = 1;
  return CK_OK;
}

/* The sort by cell (ck_gas_sort_serially), filling the cell ranges;
 * Verlet mode also keeps the sorted positions as its reference. */
static void sort_by_cell(gas_state *s) {
  ck_gas_geometry g = geometry(s);
  ck_gas_sort_serially(
      s->particles, s->cells, &g, ck__reals(s->position),
      ck__reals(s->velocity), ck__words(s->id), ck__reals(s->sorted_position),
      ck__reals(s->sorted_velocity), ck__words(s->sorted_id),
      ck__words(s->cell_key), ck__words(s->cell_start),
      ck__words(s->cell_count), ck__words(s->cell_fill),
      s->neighbors == CK_GAS_VERLET ? ck__reals(s->reference) : NULL);
}

static ck_status ref_neighbors(gas_state *s, int force_rebuild) {
  uint32_t *flags = ck__words(s->flags);
  if (s->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  if (s->neighbors == CK_GAS_VERLET && !force_rebuild && !flags[0])
    return CK_OK;
  sort_by_cell(s);
  if (s->neighbors == CK_GAS_VERLET) {
    ck_gas_geometry g = geometry(s);
    const ck_real *position = ck__reals(s->position);
    uint32_t *list = ck__words(s->list), *list_count = ck__words(s->list_count);
    double range = s->rc + s->skin;
    for (uint32_t i = 0; i < s->particles; ++i) {
      list_count[i] = ck_gas_list_of(
          i, position, ck__words(s->cell_start), ck__words(s->cell_count), &g,
          (ck_real)(range * range), list, s->list_capacity);
      if (list_count[i] > s->list_capacity)
        flags[1] = 1;
    }
    flags[0] = 0;
  }
  return CK_OK;
}

static ck_status ref_forces(gas_state *s) {
  ck_gas_geometry g = geometry(s);
  ck_gas_pair_constants pair = constants(s);
  const ck_real *position = ck__reals(s->position);
  ck_real *force = ck__reals(s->force);
  ck_real *energy = ck__reals(s->energy);
  ck_real *virial = ck__reals(s->virial);
  ck_real rc = (ck_real)s->rc;
  for (uint32_t i = 0; i < s->particles; ++i) {
    if (s->neighbors == CK_GAS_CELLS)
      ck_gas_force_from_cells(i, position, ck__words(s->cell_start),
                              ck__words(s->cell_count), &g, s->model, &pair, rc,
                              s->with_energy, force, energy, virial);
    else if (s->neighbors == CK_GAS_VERLET)
      ck_gas_force_from_list(i, position, ck__words(s->list),
                             ck__words(s->list_count), s->list_capacity, &g,
                             s->model, &pair, rc, s->with_energy, force, energy,
                             virial);
    else
      ck_gas_force_from_all(i, s->particles, position, &g, s->model, &pair, rc,
                            s->with_energy, force, energy, virial);
  }
  return CK_OK;
}

static ck_status ref_kick(gas_state *s, uint64_t step) {
  ck_real *velocity = ck__reals(s->velocity);
  const ck_real *force = ck__reals(s->force);
  const uint32_t *id = ck__words(s->id);
  int langevin = s->thermostat == CK_GAS_LANGEVIN;
  for (uint32_t k = 0; k < s->particles; ++k)
    ck_gas_kick_particle(k, velocity, force, id, (ck_real)s->dt,
                         langevin ? (ck_real)s->langevin_damping : CK_R(0),
                         (ck_real)s->langevin_noise, s->seed, step);
  return CK_OK;
}

static ck_status ref_reduce(gas_state *s, double sums[5]) {
  const ck_real *velocity = ck__reals(s->velocity);
  const ck_real *energy = ck__reals(s->energy);
  const ck_real *virial = ck__reals(s->virial);
  memset(sums, 0, 5 * sizeof *sums);
  for (uint32_t k = 0; k < s->particles; ++k) {
    double vx = velocity[2 * k], vy = velocity[2 * k + 1];
    sums[0] += 0.5 * (vx * vx + vy * vy);
    sums[1] += energy[k];
    sums[2] += virial[k];
    sums[3] += vx;
    sums[4] += vy;
  }
  return CK_OK;
}

static ck_status ref_rescale(gas_state *s) {
  double sums[5];
  ref_reduce(s, sums);
  double temperature = 2.0 * sums[0] / s->degrees_of_freedom;
  ck_real scale = temperature > 0
                      ? (ck_real)sqrt(s->target_temperature / temperature)
                      : CK_R(1);
  ck_real *velocity = ck__reals(s->velocity);
  for (uint32_t k = 0; k < 2 * s->particles; ++k)
    velocity[k] *= scale;
  return CK_OK;
}

static ck_status ref_rdf(gas_state *s, uint32_t bins, double range) {
  ck_gas_geometry g = geometry(s);
  int verlet = s->neighbors == CK_GAS_VERLET;
  int cells = s->neighbors == CK_GAS_CELLS;
  for (uint32_t i = 0; i < s->particles; ++i)
    ck_gas_rdf_pairs(i, s->particles, ck__reals(s->position),
                     ck__reals(s->position),
                     cells ? ck__words(s->cell_start) : NULL,
                     cells ? ck__words(s->cell_count) : NULL,
                     verlet ? ck__words(s->list) : NULL,
                     verlet ? ck__words(s->list_count) : NULL, s->list_capacity,
                     &g, (ck_real)range, bins, ck__words(s->rdf_counts));
  return CK_OK;
}

static void ref_teardown(gas_state *state) {
  (void)state;
}

const ck__gas_steps CK_VARIANT(ck__gas_ref_steps) = {
    ref_setup,   ref_kick_drift, ref_neighbors, ref_forces,  ref_kick,
    ref_rescale, ref_reduce,     ref_rdf,       ref_teardown};
