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
  g.periodic_x = state->periodic_x;
  g.periodic_y = state->periodic_y;
  g.walls_x = state->walls_x;
  g.walls_y = state->walls_y;
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

/* Whether the particle in slot k is moved and kicked here: a member's
 * ghosts are not (their owner moves them). */
static int moves(const gas_state *state, const uint32_t *id, uint32_t k) {
  return !state->member || ck_gas_own(id[k]);
}

static ck_status ref_kick_drift(gas_state *state) {
  ck_gas_geometry g = geometry(state);
  ck_real *position = ck__reals(state->position);
  ck_real *velocity = ck__reals(state->velocity);
  const ck_real *force = ck__reals(state->force);
  const uint32_t *id = ck__words(state->id);
  const ck_real *reference =
      state->neighbors == CK_GAS_VERLET ? ck__reals(state->reference) : NULL;
  ck_real half_skin2 = (ck_real)(0.25 * state->skin * state->skin);
  uint32_t *flags = ck__words(state->flags);
  for (uint32_t k = 0; k < state->particles; ++k)
    if (moves(state, id, k) &&
        ck_gas_kick_drift_particle(k, position, position, velocity, force,
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
      state->particles, state->cells, state->member, &g,
      ck__reals(state->position), ck__reals(state->velocity),
      ck__words(state->id), ck__reals(state->sorted_position),
      ck__reals(state->sorted_velocity), ck__words(state->sorted_id),
      ck__words(state->cell_key), ck__words(state->cell_start),
      ck__words(state->cell_count), ck__words(state->cell_fill),
      state->neighbors == CK_GAS_VERLET ? ck__reals(state->reference) : NULL);
}

static ck_status ref_neighbors(gas_state *state, int force_rebuild) {
  uint32_t *flags = ck__words(state->flags);
  if (state->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  if (state->neighbors == CK_GAS_VERLET && !force_rebuild && !flags[0])
    return CK_OK;
  sort_by_cell(state);
  if (state->resident) {
    /* The slots before the dropped ones' key are those kept. */
    uint32_t *control = ck__words(state->member_control);
    state->particles = ck__words(state->cell_start)[state->cells];
    control[CK_GAS_CONTROL_SORTED] = state->particles;
  }
  if (state->member)
    flags[0] = 0;
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
  const uint32_t *part_mark =
      state->force_part ? ck__words(state->part_mark) : NULL;
  /* A member's part of the forces (ck_gas_member_part): the border's
   * from its list, as the kernels take them. */
  int border = state->force_part == 2;
  uint32_t count = border ? ck__gas_member_border(state) : state->particles;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t i = border ? ck__words(state->border_slots)[k] : k;
    if (part_mark && part_mark[i] + 1u != (uint32_t)state->force_part)
      continue;
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
    if (moves(state, id, k))
      ck_gas_kick_particle(k, velocity, force, id, (ck_real)state->dt,
                           langevin ? (ck_real)state->langevin_damping
                                    : CK_R(0),
                           (ck_real)state->langevin_noise, state->seed, step);
  return CK_OK;
}

static ck_status ref_reduce(gas_state *state, double sums[5]) {
  const ck_real *velocity = ck__reals(state->velocity);
  const ck_real *energy = ck__reals(state->energy);
  const ck_real *virial = ck__reals(state->virial);
  const uint32_t *id = ck__words(state->id);
  memset(sums, 0, 5 * sizeof *sums);
  for (uint32_t k = 0; k < state->particles; ++k) {
    if (!moves(state, id, k))
      continue;
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
        (ck_real)range, bins, ck__words(state->rdf_counts),
        state->member ? ck__words(state->id) : NULL);
  return CK_OK;
}

/* ---- spread members: the twins of gas.cl's ck_gas_member_ kernels ------ */

static ck_status ref_select(gas_state *state, int mode, double lo, double hi,
                            double reach, int stage, uint32_t counts[2]) {
  const ck_real *position = ck__reals(state->position);
  uint32_t *id = ck__words(state->id), *list = ck__words(state->member_list);
  uint32_t capacity = state->message_capacity;
  counts[0] = counts[1] = 0;
  for (uint32_t k = 0; k < state->particles; ++k) {
    if (!ck_gas_own(id[k])) {
      if (mode == 0 && stage == 0)
        id[k] = CK_GAS_DROPPED;
      if (mode == 0 || stage == 0 || id[k] == CK_GAS_DROPPED)
        continue;
    }
    int side = ck_gas_member_side(position[2 * k + stage], (ck_real)lo,
                                  (ck_real)hi, (ck_real)reach, mode);
    if (side < 0)
      continue;
    uint32_t at = counts[side]++;
    if (at < capacity)
      list[(uint32_t)side * capacity + at] = k;
  }
  return CK_OK;
}

/* A member's reals are floats: their bits, and back. */
static uint32_t bits_of(ck_real x) {
  return ck_float_as_bits((float)x);
}

static ck_real real_of(uint32_t bits) {
  return (ck_real)ck_bits_as_float(bits);
}

static ck_status ref_post(gas_state *state, uint32_t base, uint32_t count,
                          double shift, int ghost, uint32_t at, uint32_t kept,
                          int stage) {
  const ck_real *position = ck__reals(state->position);
  const ck_real *velocity = ck__reals(state->velocity);
  uint32_t *id = ck__words(state->id);
  const uint32_t *list = ck__words(state->member_list);
  uint32_t *packed = ck__words(state->out_packed);
  uint32_t words = ck_gas_entry_words(ghost);
  for (uint32_t e = 0; e < count; ++e) {
    uint32_t slot = list[base + e];
    uint32_t *entry = packed + at + (size_t)words * e;
    entry[0] = ck_gas_member_id(id[slot]);
    entry[1] = bits_of(position[2 * slot] + (stage == 0 ? (ck_real)shift : 0));
    entry[2] =
        bits_of(position[2 * slot + 1] + (stage == 1 ? (ck_real)shift : 0));
    if (!ghost) {
      entry[3] = bits_of(velocity[2 * slot]);
      entry[4] = bits_of(velocity[2 * slot + 1]);
    }
    if (kept) {
      uint32_t *own = packed + kept + CK_GAS_GHOST_WORDS * (size_t)e;
      own[0] = id[slot];
      own[1] = bits_of(position[2 * slot]);
      own[2] = bits_of(position[2 * slot + 1]);
    }
    if (!ghost)
      id[slot] = CK_GAS_DROPPED;
  }
  return CK_OK;
}

static ck_status ref_accept(gas_state *state, uint32_t first, uint32_t count,
                            int ghost, uint32_t from_next, uint32_t at,
                            double lo, double hi, int stage) {
  ck_real *position = ck__reals(state->position);
  ck_real *velocity = ck__reals(state->velocity);
  uint32_t *id = ck__words(state->id);
  uint32_t *counts = ck__words(state->member_counts);
  const uint32_t *packed = ck__words(state->in_packed) + at;
  uint32_t words = ck_gas_entry_words(ghost);
  for (uint32_t e = 0; e < count; ++e) {
    const uint32_t *entry = packed + (size_t)words * e;
    uint32_t slot = first + e;
    ck_real x = real_of(entry[1]), y = real_of(entry[2]);
    ck_real u = stage == 0 ? x : y;
    position[2 * slot] = x;
    position[2 * slot + 1] = y;
    velocity[2 * slot] = ghost ? 0 : real_of(entry[3]);
    velocity[2 * slot + 1] = ghost ? 0 : real_of(entry[4]);
    id[slot] = ghost ? ck_gas_ghost_word(entry[0], e, from_next) : entry[0];
    if (!ghost && !(u >= (ck_real)lo && u < (ck_real)hi) && e < counts[2])
      counts[2] = e;
  }
  return CK_OK;
}

static ck_status ref_gather(gas_state *state, uint32_t base, uint32_t count,
                            uint32_t split, const double shifts[2], int stage) {
  const ck_real *position = ck__reals(state->position);
  const uint32_t *slots = ck__words(state->export_slots);
  ck_real *out_real = ck__reals(state->out_real);
  for (uint32_t e = base; e < base + count; ++e) {
    double shift = shifts[e - base >= split];
    out_real[2 * e] =
        position[2 * slots[e]] + (stage == 0 ? (ck_real)shift : 0);
    out_real[2 * e + 1] =
        position[2 * slots[e] + 1] + (stage == 1 ? (ck_real)shift : 0);
  }
  return CK_OK;
}

static ck_status ref_locate(gas_state *state, int ghost, uint32_t base,
                            uint32_t count, uint32_t at, uint32_t from_next) {
  ck_gas_geometry g = geometry(state);
  const uint32_t *packed =
      ck__words(ghost ? state->in_packed : state->out_packed) + at;
  uint32_t *slots = ck__words(ghost ? state->ghost_slots : state->export_slots);
  uint32_t *flags = ck__words(state->flags);
  for (uint32_t e = 0; e < count; ++e) {
    const uint32_t *entry = packed + CK_GAS_GHOST_WORDS * (size_t)e;
    uint32_t word =
        ghost ? ck_gas_ghost_word(entry[0], e, from_next) : entry[0];
    slots[base + e] = ck_gas_member_slot_of(
        real_of(entry[1]), real_of(entry[2]), word,
        ck__words(state->cell_start), ck__words(state->cell_count),
        ck__words(state->id), &g, state->particles);
    if (slots[base + e] == state->particles)
      flags[2] = 1;
  }
  return CK_OK;
}

static ck_status ref_unpack(gas_state *state, uint32_t base, uint32_t count) {
  ck_real *position = ck__reals(state->position);
  const ck_real *in_real = ck__reals(state->in_real);
  const uint32_t *slots = ck__words(state->ghost_slots) + base;
  for (uint32_t e = 0; e < count; ++e) {
    position[2 * slots[e]] = in_real[2 * e];
    position[2 * slots[e] + 1] = in_real[2 * e + 1];
  }
  return CK_OK;
}

static ck_status ref_parts(gas_state *state, const double borders[4],
                           double reach) {
  const ck_real *position = ck__reals(state->position);
  const uint32_t *id = ck__words(state->id);
  uint32_t *part_mark = ck__words(state->part_mark);
  uint32_t *border_slots = ck__words(state->border_slots);
  uint32_t *flags = ck__words(state->flags);
  for (uint32_t k = 0; k < state->particles; ++k) {
    part_mark[k] = ck_gas_member_part(position[2 * k], position[2 * k + 1],
                                      id[k], (ck_real)borders[0],
                                      (ck_real)borders[1], (ck_real)borders[2],
                                      (ck_real)borders[3], (ck_real)reach);
    if (part_mark[k] == CK_GAS_PART_BORDER)
      border_slots[flags[3]++] = k;
  }
  return CK_OK;
}

static ck_status ref_census(gas_state *state, uint64_t census[3]) {
  const uint32_t *id = ck__words(state->id);
  census[0] = census[1] = census[2] = 0;
  for (uint32_t k = 0; k < state->particles; ++k)
    if (ck_gas_own(id[k])) {
      census[0] += 1;
      census[1] += id[k];
      census[2] += ck_gas_id_hash(id[k]);
    }
  return CK_OK;
}

static ck_status ref_leave(gas_state *state, int move, double lo, double hi,
                           double reach, const double shift[2], int again,
                           int stage) {
  if (move)
    ref_kick_drift(state);
  const ck_real *position = ck__reals(state->position);
  const ck_real *velocity = ck__reals(state->velocity);
  uint32_t *id = ck__words(state->id), *packed = ck__words(state->out_packed);
  uint32_t capacity = state->message_capacity;
  uint32_t *counts = ck__words(state->member_counts);
  uint32_t *control = ck__words(state->member_control);
  if (state->resident) {
    /* The parity's counts (zeroed by the last pull) and half. */
    counts = control + ck_gas_control_count(state->parity, 0);
    packed += ck_gas_packed_half(state->parity, capacity);
  } else {
    counts[0] = counts[1] = counts[2] = counts[3] = 0;
  }
  for (uint32_t k = 0; k < state->particles; ++k) {
    uint32_t word = id[k];
    uint32_t own = ck_gas_member_id(word);
    ck_real place[2] = {position[2 * k], position[2 * k + 1]};
    ck_real u = place[stage];
    int region;
    if (again && stage == 0 && word != CK_GAS_DROPPED && !ck_gas_own(word))
      region = u < (ck_real)lo ? 0 : 1; /* stored by the first call */
    else
      region = ck_gas_member_classify(u, &word, (ck_real)lo, (ck_real)hi,
                                      (ck_real)reach, stage);
    if (region >= 0 && counts[region]++ >= capacity) {
      if (state->resident)
        control[CK_GAS_CONTROL_FLAGS] |= CK_GAS_OVERFLOW_OUTBOX;
      continue;
    }
    if (region >= 0) {
      place[stage] += (ck_real)shift[region % 2];
      ck_gas_member_put(packed, capacity, region, counts[region] - 1, own,
                        place[0], place[1], velocity[2 * k],
                        velocity[2 * k + 1]);
    }
    id[k] = word;
  }
  return CK_OK;
}

/* A resident pull, as cl/gas.cu's ck_gas_native_pull makes it: the four
 * segments' entries appended in order after the slots kept. */
static ck_status ref_pull(gas_state *state, const ck__gas_source from[2],
                          double lo, double hi) {
  ck_real *position = ck__reals(state->position);
  ck_real *velocity = ck__reals(state->velocity);
  uint32_t *id = ck__words(state->id);
  uint32_t *control = ck__words(state->member_control);
  int parity = state->parity;
  uint32_t first[5], base = control[CK_GAS_CONTROL_SORTED];
  uint32_t flags = ck_gas_pull_firsts(
      (const uint32_t *)(uintptr_t)from[0].control, from[0].capacity,
      from[0].leavers, (const uint32_t *)(uintptr_t)from[1].control,
      from[1].capacity, from[1].leavers, parity, first);
  for (int segment = 0; segment < 4; ++segment) {
    const ck__gas_source *source = &from[segment % 2];
    const uint32_t *packed = (const uint32_t *)(uintptr_t)source->packed +
                             ck_gas_packed_half(parity, source->capacity);
    for (uint32_t e = 0; e < first[segment + 1] - first[segment]; ++e) {
      uint32_t slot = base + first[segment] + e;
      float x, y, vx, vy;
      uint32_t word = ck_gas_pull_entry(packed, source->capacity, segment, e,
                                        &x, &y, &vx, &vy);
      if (slot >= state->slots)
        break; /* flagged by ck_gas_pull_account */
      if (segment < 2 && !(x >= (float)lo && x < (float)hi) &&
          control[CK_GAS_CONTROL_STRAY] == CK_GAS_NO_STRAY) {
        control[CK_GAS_CONTROL_STRAY] = word;
        control[CK_GAS_CONTROL_STRAY_X] = ck_float_as_bits(x);
      }
      position[2 * slot] = x;
      position[2 * slot + 1] = y;
      velocity[2 * slot] = vx;
      velocity[2 * slot + 1] = vy;
      id[slot] = word;
    }
  }
  ck_gas_pull_account(control, parity, state->message_capacity, state->slots,
                      first);
  control[CK_GAS_CONTROL_FLAGS] |= flags;
  state->particles = control[CK_GAS_CONTROL_APPENDED];
  return CK_OK;
}

static ck_status ref_scale(gas_state *state, double factor) {
  ck_real *velocity = ck__reals(state->velocity);
  for (uint32_t k = 0; k < 2 * state->particles; ++k)
    velocity[k] *= (ck_real)factor;
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
    .select = ref_select,
    .post = ref_post,
    .accept = ref_accept,
    .gather = ref_gather,
    .locate = ref_locate,
    .unpack = ref_unpack,
    .parts = ref_parts,
    .census = ref_census,
    .scale = ref_scale,
    .leave = ref_leave,
    .pull = ref_pull,
};
