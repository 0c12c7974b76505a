/*
 * gas.c - the gas driver: the velocity-Verlet loop and its thermostats
 * over the backend's steps (ref, OpenCL, or CUDA), the observables, the
 * particles in id order, the pair histogram of the RDF, and destruction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "gas/gas_internal.h"

CK__STEPS_TABLE(ck__gas_steps, 20);

ck_gas *ck__gas_alone(ck_gas *gas) {
  ck_gas *whole = gas->spread ? ck__gas_spread_whole(gas->spread) : NULL;
  return whole ? whole : gas;
}

gas_state *ck__gas_state(ck_gas *gas) {
  return &ck__gas_alone(gas)->state;
}

ck__gas_spread *ck__gas_spread_of(ck_gas *gas) {
  return gas->spread;
}

ck_status ck_gas_step(ck_gas *gas, uint64_t steps) {
  ck_status status = CK_OK;
  CK__REQUIRE(gas);
  gas_state *state = &gas->state;
  if (gas->spread) {
    status = ck__gas_spread_step(gas->spread, steps);
    /* The steps done, whatever the spread reports. */
    gas->step = ck__gas_spread_steps(gas->spread);
    return status;
  }
  const ck__gas_steps *backend = gas->steps;
  for (uint64_t k = 0; k < steps; ++k) {
    uint64_t step = gas->step + 1;
    int rescale = state->thermostat == CK_GAS_RESCALE &&
                  step % gas->config.rescale_every == 0;
    if (!state->drifted)
      CK_TRY(backend->kick_drift(state));
    state->drifted = 0;
    CK_TRY(backend->neighbors(state, 0));
    /* Energies are read only after the last step of a call. */
    state->with_energy = k + 1 == steps;
    /* The forces step may fold the kick into its pass (kick_step then
     * reads 0), and then the next step's first half, but for the last
     * step of a call (the caller may read the state) or before a
     * rescale. */
    state->kick_step = step;
    state->ahead = k + 1 < steps && !rescale;
    CK_TRY(backend->forces(state));
    if (state->kick_step)
      CK_TRY(backend->kick(state, step));
    state->kick_step = 0;
    if (rescale)
      CK_TRY(backend->rescale(state));
    gas->step = step;
  }
fail:
  state->kick_step = 0;
  state->ahead = 0;
  return status;
}

ck_status ck_gas_observe(ck_gas *gas, ck_gas_observables *observables) {
  ck_status status = CK_OK;
  CK__REQUIRE(gas);
  CK__REQUIRE(observables);
  gas = ck__gas_alone(gas);
  gas_state *state = &gas->state;
  double sums[5];
  uint32_t flags[2] = {0, 0}, capacity = state->list_capacity;
  if (gas->spread) {
    CK_TRY(ck__gas_spread_sums(gas->spread, sums, &flags[1], &capacity));
  } else {
    CK_TRY(gas->steps->reduce(state, sums));
    if (state->neighbors == CK_GAS_VERLET)
      CK_TRY(ck_buffer_read(state->queue, state->flags, 0, sizeof flags, flags,
                            CK_BLOCKING, NULL));
  }
  if (flags[1])
    CK_FAIL(CK_ERROR_DEVICE,
            "a Verlet list overflowed its %u neighbours; the results are "
            "wrong: use a smaller skin or cell lists",
            capacity);
  double n = state->particles, area = state->box_x * state->box_y;
  memset(observables, 0, sizeof *observables);
  observables->step = gas->step;
  observables->time = (double)gas->step * state->dt;
  observables->kinetic = sums[0] / n;
  observables->potential = sums[1] / n;
  observables->total = observables->kinetic + observables->potential;
  observables->temperature = 2.0 * sums[0] / state->degrees_of_freedom;
  observables->pressure =
      (2.0 * sums[0] / state->degrees_of_freedom * n + 0.5 * sums[2]) / area;
  observables->momentum_x = sums[3];
  observables->momentum_y = sums[4];
  if (!isfinite(observables->total))
    CK_FAIL(CK_ERROR_MISMATCH,
            "the energy became %g at step %llu: the time step is too large "
            "or particles overlap",
            observables->total, (unsigned long long)gas->step);
fail:
  return status;
}

/* An array of 2 N reals (or N when pairs is 0) in id order. */
static ck_status read_by_id(ck_gas *gas, ck_buffer *buffer, double *out) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  size_t n = state->particles;
  double *slots = malloc(2 * n * sizeof *slots);
  uint32_t *ids = malloc(n * sizeof *ids);
  if (!slots || !ids)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck__reals_read(state->queue, buffer, state->double_precision, slots,
                        2 * n));
  CK_TRY(ck_buffer_read(state->queue, state->id, 0, n * 4, ids, CK_BLOCKING,
                        NULL));
  for (size_t k = 0; k < n; ++k) {
    out[2 * (size_t)ids[k]] = slots[2 * k];
    out[2 * (size_t)ids[k] + 1] = slots[2 * k + 1];
  }
fail:
  free(slots);
  free(ids);
  return status;
}

ck_status ck_gas_get_particles(ck_gas *gas, double *positions,
                               double *velocities) {
  ck_status status = CK_OK;
  CK__REQUIRE(gas);
  gas = ck__gas_alone(gas);
  if (gas->spread)
    return ck__gas_spread_particles(gas->spread, positions, velocities, NULL,
                                    NULL, NULL);
  if (positions)
    CK_TRY(read_by_id(gas, gas->state.position, positions));
  if (velocities)
    CK_TRY(read_by_id(gas, gas->state.velocity, velocities));
fail:
  return status;
}

ck_status ck_gas_get_forces(ck_gas *gas, double *forces) {
  CK__REQUIRE(gas);
  CK__REQUIRE(forces);
  gas = ck__gas_alone(gas);
  if (gas->spread)
    return ck__gas_spread_particles(gas->spread, NULL, NULL, forces, NULL,
                                    NULL);
  return read_by_id(gas, gas->state.force, forces);
}

ck_status ck_gas_get_box(const ck_gas *gas, double *box_x, double *box_y,
                         size_t *particles) {
  CK__REQUIRE(gas);
  if (box_x)
    *box_x = gas->state.box_x;
  if (box_y)
    *box_y = gas->state.box_y;
  if (particles)
    *particles = gas->state.particles;
  return CK_OK;
}

/* One gas's histogram (a whole box, or a spread's member): its pairs
 * counted on its device, added to counts. */
ck_status ck__gas_member_rdf(ck_gas *member, size_t bins, double range,
                             uint64_t *counts) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t *sample = calloc(bins, sizeof *sample);
  if (!sample)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  if (state->rdf_bins != bins) {
    ck_buffer_destroy(state->rdf_counts);
    state->rdf_counts = NULL;
    state->rdf_bins = 0;
    CK_TRY(ck__buffer_make_zeroed(state->queue, bins, 4, "rdf histogram",
                                  &state->rdf_counts));
    state->rdf_bins = (uint32_t)bins;
  }
  if (state->particles > 0) {
    CK_TRY(ck_buffer_write(state->queue, state->rdf_counts, 0, bins * 4, sample,
                           CK_BLOCKING, NULL));
    CK_TRY(member->steps->rdf(state, (uint32_t)bins, range));
    CK_TRY(ck_buffer_read(state->queue, state->rdf_counts, 0, bins * 4, sample,
                          CK_BLOCKING, NULL));
  }
  for (size_t b = 0; b < bins; ++b)
    counts[b] += sample[b];
fail:
  free(sample);
  return status;
}

ck_status ck_gas_accumulate_rdf(ck_gas *gas, size_t bins, double range,
                                uint64_t *counts) {
  CK__REQUIRE(gas);
  CK__REQUIRE(counts);
  if (bins < 1 || bins > (1u << 20))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_gas_accumulate_rdf: bins is %zu, outside 1..%u", bins,
                    1u << 20);
  if (!(range > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_gas_accumulate_rdf: range is %g; it must be positive",
                    range);
  gas = ck__gas_alone(gas);
  gas_state *state = &gas->state;
  double reach =
      state->neighbors == CK_GAS_ALL_PAIRS
          ? 0.5 * (state->box_x < state->box_y ? state->box_x : state->box_y)
      : state->neighbors == CK_GAS_VERLET || gas->spread
          ? state->rc
          : fmin(1.0 / state->cell_inverse_x, 1.0 / state->cell_inverse_y);
  if (range > reach * (1 + 1e-12))
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_gas_accumulate_rdf: the range %g is beyond what this run can see "
        "(%g: a cell's width, rc with Verlet lists or spread over devices, "
        "or half the box with all pairs)",
        range, reach);
  /* A whole box's gas is a member alone: the same histogram. */
  return gas->spread ? ck__gas_spread_rdf(gas->spread, bins, range, counts)
                     : ck__gas_member_rdf(gas, bins, range, counts);
}

ck_status ck_gas_describe(const ck_gas *gas, ck_gas_config *config) {
  CK__REQUIRE(gas);
  CK__REQUIRE(config);
  *config = gas->config;
  config->xyz_path = NULL;
  return CK_OK;
}

ck_status ck_gas_check_drift(const ck_gas_config *config,
                             const ck_gas_observables *first,
                             const ck_gas_observables *last) {
  CK__REQUIRE(config);
  CK__REQUIRE(first);
  CK__REQUIRE(last);
  /* NVE conserves the energy to about 1e-4 of its scale at sound time
   * steps (docs/gas.md); a tenth of it lost or gained means a step too
   * large for the temperature and density, and figures that only look
   * like a result. */
  double drift = last->total - first->total;
  double scale = first->kinetic + fabs(first->potential);
  if (config->thermostat != CK_GAS_NVE || !(fabs(drift) > 0.1 * scale + 1e-6))
    return CK_OK;
  return ck__fail(CK_ERROR_MISMATCH,
                  "the total energy per particle went from %.6g to %.6g, "
                  "which NVE conserves: --dt %g is too large for this "
                  "temperature and density, and the averages do not "
                  "describe the system",
                  first->total, last->total, config->dt);
}

ck_status ck_gas_destroy(ck_gas *gas) {
  if (!gas)
    return CK_OK;
  ck__gas_spread_destroy(gas->spread);
  gas_state *state = &gas->state;
  ck__staging_free(&state->staging, state->queue);
  if (gas->steps && state->queue)
    gas->steps->teardown(state);
  ck_buffer *buffers[] = {state->position,
                          state->velocity,
                          state->force,
                          state->energy,
                          state->virial,
                          state->id,
                          state->sorted_position,
                          state->sorted_velocity,
                          state->sorted_id,
                          state->cell_key,
                          state->cell_rank,
                          state->cell_count,
                          state->cell_start,
                          state->cell_fill,
                          state->block_sum,
                          state->reference,
                          state->list,
                          state->list_count,
                          state->flags,
                          state->sums,
                          state->partial_sums,
                          state->rdf_counts};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_buffer_destroy(buffers[i]);
  ck__gas_member_messages_free(state);
  ck_queue_destroy(state->queue);
  free(gas);
  return CK_OK;
}
