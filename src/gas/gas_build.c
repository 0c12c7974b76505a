/*
 * gas_build.c - a configuration's checks, and the device state it sets:
 * constants, the forms the forces take, buffers and steps. Creation and
 * loading a checkpoint both build a state through it.
 */
#include <math.h>
#include <string.h>

#include "framework/framework.h"
#include "gas/gas_internal.h"

/* Verlet list entries a particle at most: 4 bytes each for every particle,
 * and a list a work-item walks. */
#define MAX_LIST_CAPACITY 4096.0
/* Slots a Verlet list chunk holds on GPUs: a warp's (ck_gas_list_at). */
#define LIST_CHUNK_GPU 32u
/* Cells a particle at most (ck_gas_create sizes the grid): a sparse
 * system gets wider cells, so that the grid's memory and each step's
 * pass over it follow the particles rather than the box's area. */
#define CELLS_PER_PARTICLE 4.0

ck_status ck_gas_config_init(ck_gas_config *config) {
  CK__REQUIRE(config);
  memset(config, 0, sizeof *config);
  ck__fields_init(config, ck__gas_fields, CK__GAS_FIELDS);
  return CK_OK;
}

/* In a periodic box a particle may meet only the nearest image of another:
 * the cutoff must fit in half the box. */
ck_status ck__gas_check_cutoff_fits(const ck_gas_config *config) {
  if (config->model == CK_GAS_LENNARD_JONES && !config->walls &&
      (config->rc > 0.5 * config->box_x || config->rc > 0.5 * config->box_y))
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_gas_config.rc: the cutoff %g is larger than half the box (%g x "
        "%g); "
        "use more particles, a lower density or a smaller cutoff",
        config->rc, config->box_x, config->box_y);
  return CK_OK;
}

double ck__gas_list_capacity(const ck_gas_config *config, double skin) {
  double range = config->rc + skin;
  double density = config->density > 1.2 ? config->density : 1.2;
  return ceil(2.0 * 3.14159265358979 * range * range * density);
}

int ck__gas_lists_fit(const ck_gas_config *config, double skin) {
  return ck__gas_list_capacity(config, skin) <= MAX_LIST_CAPACITY;
}

/* Checks the settings that do not depend on the box. */
ck_status ck__gas_check_config(const ck_gas_config *config) {
  const ck__field *fields = ck__gas_fields;
  ck_status status =
      ck__fields_check("ck_gas_config", config, fields, CK__GAS_FIELDS);
  if (!status && config->model == CK_GAS_LENNARD_JONES)
    status = ck__field_check("ck_gas_config", config, &fields[CK__GAS_RC]);
  if (status)
    return status;
  if (config->model == CK_GAS_SOFT_LOG) {
    if (config->neighbors != CK_GAS_ALL_PAIRS &&
        config->neighbors != CK_GAS_NEIGHBORS_AUTO)
      return ck__fail(
          CK_ERROR_INVALID_ARGUMENT,
          "ck_gas_config.model: the soft-log model has no cutoff; it needs "
          "all pairs (neighbors CK_GAS_ALL_PAIRS)");
    if ((status = ck__field_check("ck_gas_config", config,
                                  &fields[CK__GAS_STRENGTH])) ||
        (status = ck__field_check("ck_gas_config", config,
                                  &fields[CK__GAS_SOFTENING])))
      return status;
  }
  if (config->thermostat != CK_GAS_NVE &&
      (status = ck__field_check("ck_gas_config", config,
                                &fields[CK__GAS_TARGET_TEMPERATURE])))
    return status;
  if (config->thermostat == CK_GAS_LANGEVIN &&
      (status =
           ck__field_check("ck_gas_config", config, &fields[CK__GAS_GAMMA])))
    return status;
  if (config->thermostat == CK_GAS_RESCALE &&
      (status = ck__field_check("ck_gas_config", config,
                                &fields[CK__GAS_RESCALE_EVERY])))
    return status;
  /* A skin past rc only makes lists longer than the pairs they serve. */
  if (config->neighbors == CK_GAS_VERLET &&
      ((status =
            ck__field_check("ck_gas_config", config, &fields[CK__GAS_SKIN])) ||
       !(config->skin <= config->rc)))
    return status ? status
                  : ck__fail(CK_ERROR_INVALID_ARGUMENT,
                             "ck_gas_config.skin: the Verlet skin must be at "
                             "most rc (%g), not %g",
                             config->rc, config->skin);
  return CK_OK;
}

/* A side the simulation can hold (clkit/gas.h says why); NaN is not. */
int ck__gas_side_fits(double side) {
  return ck__field_in_range(&ck__gas_fields[CK__GAS_BOX_X], side);
}

ck_status ck__gas_resolve_box(ck_gas_config *config) {
  /* A box given (NaN or negative sides too, which are refused) or, with
   * both sides 0, one from the density. */
  if (config->box_x != 0 || config->box_y != 0) {
    /* The range: positions are single-precision floats. */
    ck_status status = ck__field_check("ck_gas_config", config,
                                       &ck__gas_fields[CK__GAS_BOX_X]);
    if (status == CK_OK)
      status = ck__field_check("ck_gas_config", config,
                               &ck__gas_fields[CK__GAS_BOX_Y]);
    if (status)
      return status;
    config->density =
        (double)config->particles / (config->box_x * config->box_y);
    return CK_OK;
  }
  ck_status status = ck__field_check("ck_gas_config", config,
                                     &ck__gas_fields[CK__GAS_DENSITY]);
  if (status)
    return status;
  double side = sqrt((double)config->particles / config->density);
  if (!ck__gas_side_fits(side))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_gas_config.density: %zu particles at density %g "
                    "need a box side of %g, outside [%g, %g] (positions are "
                    "single-precision floats): change the density or the "
                    "particles",
                    config->particles, config->density, side, CK_GAS_MIN_SIDE,
                    CK_GAS_MAX_SIDE);
  config->box_x = config->box_y = side;
  return CK_OK;
}

double ck__gas_degrees_of_freedom(const ck_gas_config *config) {
  double dof = 2.0 * (double)config->particles;
  /* Periodic NVE and rescaling keep the total momentum at zero. */
  if (!config->walls && config->thermostat != CK_GAS_LANGEVIN &&
      config->particles > 1)
    dof -= 2.0;
  return dof;
}

/* The pair constants of the model: shifts at rc for Lennard-Jones. */
static void pair_constants(const ck_gas_config *config, gas_state *state) {
  double rc = config->rc, inverse6 = pow(rc, -6.0);
  double energy = 4.0 * inverse6 * (inverse6 - 1.0);
  double force = 24.0 / rc * inverse6 * (2.0 * inverse6 - 1.0);
  state->rc2 = rc * rc;
  state->energy_shift = config->shift == CK_GAS_SHIFT_NONE ? 0 : energy;
  state->force_shift = config->shift == CK_GAS_SHIFT_FORCE ? force : 0;
  state->strength = config->strength;
  state->softening2 = config->softening * config->softening;
}

/* The cell grid, cells_x by cells_y, for cells at least range wide: a
 * particle's partners within range then lie in the 3 x 3 cells around
 * it. Counted in double before an int holds them (a tiny rc would
 * overflow it): at most 2^16 a row (so that a cell index computed in
 * float is exact; clkit/gas.h) and 10^8 in all. Unless fine, at most
 * CELLS_PER_PARTICLE a particle (or 9): wider cells hold the same pairs,
 * and a side keeps 3 cells where it had them, so that a periodic grid's
 * 3 x 3 block stays 9 distinct cells. */
static void size_cells(const ck_gas_config *config, double range, int fine,
                       int *cells_x, int *cells_y) {
  double x = fmax(1.0, fmin(floor(config->box_x / range), 65536.0));
  double y = fmax(1.0, fmin(floor(config->box_y / range), 65536.0));
  if (x * y > 1e8) {
    x = fmin(x, 10000.0);
    y = fmin(y, 10000.0);
  }
  double most = fmax(9.0, CELLS_PER_PARTICLE * (double)config->particles);
  if (!fine && x * y > most) {
    /* Both sides shrink by one factor, keeping the cells' shape; a side
     * held at its floor leaves the other what remains. */
    double low_x = fmin(x, 3.0), low_y = fmin(y, 3.0);
    double shrink = sqrt(x * y / most);
    double wide_x = fmax(low_x, floor(x / shrink));
    double wide_y = fmax(low_y, floor(y / shrink));
    if (wide_x * wide_y > most) {
      if (wide_x == low_x)
        wide_y = fmax(low_y, floor(most / wide_x));
      else
        wide_x = fmax(low_x, floor(most / wide_y));
    }
    x = wide_x;
    y = wide_y;
  }
  *cells_x = (int)x;
  *cells_y = (int)y;
}

/* The state's constants, as the configuration and the precision set
 * them. */
static void set_constants(const ck_device *device, ck_gas *gas,
                          int double_precision) {
  gas_state *state = &gas->state;
  const ck_gas_config *config = &gas->config;
  state->device = *device;
  state->double_precision = double_precision;
  state->real_size = double_precision ? sizeof(double) : sizeof(float);
  state->particles = (uint32_t)config->particles;
  state->model = config->model == CK_GAS_SOFT_LOG ? CK_GAS_MODEL_SOFT_LOG
                                                  : CK_GAS_MODEL_LENNARD_JONES;
  state->walls = config->walls;
  /* A spread member's box is closed along x, the cut: its neighbours'
   * ghosts stand for what lies past its slab. */
  state->periodic_x = !config->walls && !state->member;
  /* A member's walls are set when it is made: the run's own; walls_y
   * below 0 leaves y as the run's. */
  if (!state->member)
    state->walls_x = state->walls_y = config->walls ? 3 : 0;
  if (!state->member || state->walls_y < 0) {
    state->periodic_y = !config->walls;
    state->walls_y = config->walls ? 3 : 0;
  } else {
    state->periodic_y = 0;
  }
  state->neighbors = config->neighbors;
  state->thermostat = config->thermostat;
  state->box_x = config->box_x;
  state->box_y = config->box_y;
  state->dt = config->dt;
  state->rc = config->rc;
  state->skin = config->neighbors == CK_GAS_VERLET ? config->skin : 0;
  state->seed = config->seed;
  pair_constants(config, state);
  state->target_temperature = config->target_temperature;
  state->degrees_of_freedom = ck__gas_degrees_of_freedom(config);
  double damping = exp(-config->gamma * config->dt);
  state->langevin_damping = damping;
  state->langevin_noise =
      sqrt((1.0 - damping * damping) * config->target_temperature);
}

/* The forms the forces take on this device: the cell grid, strips or
 * not, and the Verlet lists' length. */
static ck_status choose_forms(const ck_device *device, ck_gas *gas) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  const ck_gas_config *config = &gas->config;
  int double_precision = state->double_precision;
  /* Cells at least the interaction range (plus the skin) wide. */
  double range = config->rc + state->skin;
  /* All pairs needs no cells, and a soft-log rc is not a range to size by. */
  if (config->neighbors == CK_GAS_ALL_PAIRS)
    state->cells_x = state->cells_y = 1;
  else
    size_cells(config, range, state->fine_cells, &state->cells_x,
               &state->cells_y);
  state->cells = (uint32_t)state->cells_x * (uint32_t)state->cells_y;
  state->cell_inverse_x = state->cells_x / config->box_x;
  state->cell_inverse_y = state->cells_y / config->box_y;
  /* Strips: the OpenCL steps on CPU devices read a particle's pairs as
   * runs of slots, a 512-bit vector at a time (gas.cl), in cells and
   * Verlet modes (Lennard-Jones) on grids the runs can walk: with walls,
   * or at least 3 cells each way (fewer would visit a wrapped cell
   * twice). Asked for (1), any OpenCL device takes them (a simulator,
   * for one); GPU programs otherwise leave the strip kernel out. */
  int vector_kernel =
      ck__device_has_vector_types(device) &&
      (device->kind != CK_KIND_GPU || state->strips_request > 0);
  state->lanes = vector_kernel ? (double_precision ? 8u : 16u) : 0u;
  state->strips =
      vector_kernel &&
      (state->strips_request > 0 ||
       (state->strips_request < 0 && device->kind == CK_KIND_CPU)) &&
      config->model == CK_GAS_LENNARD_JONES &&
      config->neighbors != CK_GAS_ALL_PAIRS &&
      (!state->periodic_x || state->cells_x >= 3) &&
      (!state->periodic_y || state->cells_y >= 3);
  /* Verlet lists: room for twice the neighbours of the densest
   * plausible packing within the range (strips keep none). Without
   * lists the chunk is 1, so that the kernels' define is always one. */
  state->list_chunk = 1;
  if (config->neighbors == CK_GAS_VERLET && !state->strips) {
    double capacity = ck__gas_list_capacity(config, state->skin);
    if (capacity > MAX_LIST_CAPACITY)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_gas_config.neighbors: Verlet lists of %.0f entries a "
              "particle (rc + skin %g); use cell lists or a smaller rc",
              capacity, range);
    state->list_capacity = (uint32_t)capacity;
    if (state->list_capacity < 16)
      state->list_capacity = 16;
    /* ref's lists are its host code's: a slot's entries together. GPUs
     * stage CK_GAS_LIST_STAGE entries a work-item in local memory. */
    int stages = device->local_memory >=
                 (unsigned long long)CK_GAS_LIST_STAGE * 4 * CK__GAS_GPU_GROUP;
    state->list_chunk = !ck__device_runs_kernels(device) ? 1
                        : state->list_chunk_request ? state->list_chunk_request
                        : device->kind == CK_KIND_GPU && stages ? LIST_CHUNK_GPU
                                                                : 1;
  }
fail:
  return status;
}

/* The entries of the Verlet lists: a row of capacity for every slot, the
 * slots rounded up to a whole chunk (ck_gas_list_at). */
static size_t list_entries(const gas_state *state) {
  size_t n = state->particles, chunk = state->list_chunk;
  return (n + chunk - 1) / chunk * chunk * state->list_capacity;
}

/* The device's buffers, once the device's memory is known to hold them. */
static ck_status make_buffers(const ck_device *device, ck_gas *gas) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  const ck_gas_config *config = &gas->config;
  size_t n = state->particles, real = state->real_size;
  /* Strips read positions up to a vector past the last slot. */
  size_t padded = 2 * (n + (state->strips ? state->lanes : 0));
  /* The buffers below, and on ref the host's starting positions and
   * velocities beside them (create_gas), before any is allocated. */
  int reference = config->neighbors == CK_GAS_VERLET;
  double bytes = (double)real * (2.0 * (double)padded + 8.0 * (double)n +
                                 (reference ? 2.0 * (double)n : 0)) +
                 4.0 * (double)n * (4.0 + (state->list_capacity ? 1.0 : 0)) +
                 4.0 * (double)list_entries(state) +
                 12.0 * ((double)state->cells + 1) +
                 (ck__device_runs_kernels(device) ? 0 : 32.0 * (double)n) +
                 ck__gas_member_message_bytes(state, state->message_capacity);
  if ((status = ck__device_memory_check(device, bytes)))
    CK_FAIL_PREFIX(status, "%zu particles need ", n);
  CK_TRY(ck_queue_create(device, &state->queue));
  CK_TRY(ck__buffer_make_zeroed(state->queue, padded, real, "positions",
                                &state->position));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 2 * n, real, "velocities",
                                &state->velocity));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 2 * n, real, "forces",
                                &state->force));
  CK_TRY(ck__buffer_make_zeroed(state->queue, n, real, "energies",
                                &state->energy));
  CK_TRY(
      ck__buffer_make_zeroed(state->queue, n, real, "virials", &state->virial));
  CK_TRY(ck__buffer_make_zeroed(state->queue, n, 4, "ids", &state->id));
  CK_TRY(ck__buffer_make_zeroed(state->queue, padded, real, "positions",
                                &state->sorted_position));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 2 * n, real, "velocities",
                                &state->sorted_velocity));
  CK_TRY(ck__buffer_make_zeroed(state->queue, n, 4, "ids", &state->sorted_id));
  CK_TRY(ck__buffer_make_zeroed(state->queue, n, 4, "cell keys",
                                &state->cell_key));
  CK_TRY(ck__buffer_make_zeroed(state->queue, n, 4, "cell ranks",
                                &state->cell_rank));
  /* One more cell than the grid's: a spread member's dropped slots. */
  CK_TRY(ck__buffer_make_zeroed(state->queue, state->cells + 1, 4, "cells",
                                &state->cell_count));
  CK_TRY(ck__buffer_make_zeroed(state->queue, state->cells + 1, 4, "cells",
                                &state->cell_start));
  CK_TRY(ck__buffer_make_zeroed(state->queue, state->cells + 1, 4, "cells",
                                &state->cell_fill));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 4, 4, "flags", &state->flags));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 8, sizeof(double), "sums",
                                &state->sums));
  if (reference)
    CK_TRY(ck__buffer_make_zeroed(state->queue, 2 * n, real,
                                  "reference positions", &state->reference));
  if (state->member)
    CK_TRY(ck__gas_member_messages(state, state->message_capacity));
  if (state->list_capacity) {
    CK_TRY(ck__buffer_make_zeroed(state->queue, list_entries(state), 4,
                                  "neighbour lists", &state->list));
    CK_TRY(ck__buffer_make_zeroed(state->queue, n, 4, "neighbour counts",
                                  &state->list_count));
  }
fail:
  return status;
}

/* Sets up the state, buffers and steps for a resolved configuration. */
ck_status ck__gas_build_state(const ck_device *device, ck_gas *gas,
                              int double_precision, int build) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  set_constants(device, gas, double_precision);
  CK_TRY(choose_forms(device, gas));
  /* Cell lists take the native kernels of cl/gas.cu; the other modes,
   * double precision and narrow periodic grids keep the OpenCL kernels,
   * built for CUDA. */
  gas->steps = ck__steps_pick(
      device,
      double_precision ? &ck__gas_ref_steps_f64 : &ck__gas_ref_steps_f32,
      &ck__gas_opencl_steps,
      CK__CUDA_STEPS(device, ck__gas_cuda_steps, ck__gas_cuda_native(state)),
      &gas->merged_steps, sizeof gas->merged_steps);
  CK_TRY(make_buffers(device, gas));
  if (build)
    CK_TRY(gas->steps->setup(state));
fail:
  return status;
}
