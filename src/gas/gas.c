/*
 * gas.c - the gas driver: configuration, the initial state (lattice or XYZ
 * file, velocities at T with zero momentum), the velocity-Verlet loop and
 * its thermostats, observables, the particles in id order, the pair
 * histogram of the RDF, and checkpoints, over the backend's steps (ref,
 * OpenCL, or CUDA).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_philox.h"
#include "framework/framework.h"
#include "gas/gas_internal.h"
#include "gas/gas_io.h"

/* Philox stream of the initial velocities. */
#define VELOCITY_STREAM 0x4741530000000000ull
/* The closest two lattice sites may be: closer, and the first forces
 * would throw particles across the box. */
#define MINIMUM_SPACING 0.75
/* Checkpoint files. */
static const char checkpoint_magic[8] = {'C', 'K', 'G', 'A',
                                         'S', 'C', 'H', 'K'};
#define CHECKPOINT_VERSION 2u
/* Verlet list entries a particle at most: 4 bytes each for every particle,
 * and a list a work-item walks. */
#define MAX_LIST_CAPACITY 4096.0
/* Cells a particle at most (ck_gas_create sizes the grid): a sparse
 * system gets wider cells, so that the grid's memory and each step's
 * pass over it follow the particles rather than the box's area. */
#define CELLS_PER_PARTICLE 4.0

CK__STEPS_TABLE(ck__gas_steps, 20);

gas_state *ck__gas_state(ck_gas *gas) {
  return &gas->state;
}

ck__gas_spread *ck__gas_spread_of(ck_gas *gas) {
  return gas->spread;
}

ck_status ck_gas_config_init(ck_gas_config *config) {
  CK__REQUIRE(config);
  memset(config, 0, sizeof *config);
  ck__fields_init(config, ck__gas_fields, CK__GAS_FIELDS);
  return CK_OK;
}

/* In a periodic box a particle may meet only the nearest image of another:
 * the cutoff must fit in half the box. */
static ck_status check_cutoff_fits(const ck_gas_config *config) {
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

/* Checks the settings that do not depend on the box. */
static ck_status check_config(const ck_gas_config *config) {
  const ck__field *fields = ck__gas_fields;
  ck_status status =
      ck__fields_check("ck_gas_config", config, fields, CK__GAS_FIELDS);
  if (!status && config->model == CK_GAS_LENNARD_JONES)
    status = ck__field_check("ck_gas_config", config, &fields[CK__GAS_RC]);
  if (status)
    return status;
  if (config->model == CK_GAS_SOFT_LOG) {
    if (config->neighbors != CK_GAS_ALL_PAIRS)
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
static int side_fits(double side) {
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
  if (!side_fits(side))
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

/* Lattice sites, n_x a row and n_y rows, filling the box; the triangular
 * lattice shifts every other row by half a site. Fails when two sites
 * would be closer than MINIMUM_SPACING, naming the field that set the
 * box (box_x, or density by default). */
static ck_status place_lattice(const ck_gas_config *config,
                               const char *box_option, double *positions) {
  size_t n = config->particles;
  double aspect = config->box_x / config->box_y;
  double row_factor =
      config->lattice == CK_GAS_TRIANGULAR ? sqrt(3.0) / 2 : 1.0;
  size_t n_x = (size_t)ceil(sqrt((double)n * aspect / row_factor));
  if (n_x < 1)
    n_x = 1;
  size_t n_y = (n + n_x - 1) / n_x;
  double a_x = config->box_x / (double)n_x, a_y = config->box_y / (double)n_y;
  double spacing = a_y < a_x ? a_y : a_x;
  if (config->lattice == CK_GAS_TRIANGULAR && n_y > 1) {
    double diagonal = sqrt(0.25 * a_x * a_x + a_y * a_y);
    spacing = a_x < diagonal ? a_x : diagonal;
  }
  if (n_x == 1 && n_y == 1)
    spacing = config->box_x < config->box_y ? config->box_x : config->box_y;
  if (spacing < MINIMUM_SPACING)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_gas_config.%s: %zu particles do not fit a %g x %g box: lattice "
        "sites would be %.3g apart (at least %.2g needed; the "
        "density is %g)",
        box_option, n, config->box_x, config->box_y, spacing, MINIMUM_SPACING,
        config->density);
  for (size_t k = 0; k < n; ++k) {
    size_t row = k / n_x, column = k % n_x;
    double shift =
        config->lattice == CK_GAS_TRIANGULAR && (row & 1) ? 0.5 : 0.0;
    positions[2 * k] = (column + 0.25 + shift) * a_x;
    positions[2 * k + 1] = (row + 0.5) * a_y;
    if (positions[2 * k] >= config->box_x)
      positions[2 * k] -= config->box_x;
  }
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

/* Normal velocities from Philox keyed by (seed, particle), shifted to zero
 * momentum and scaled to exactly the temperature. */
static void draw_velocities(const ck_gas_config *config, double *velocities) {
  size_t n = config->particles;
  double mean[2] = {0, 0}, kinetic = 0;
  for (size_t k = 0; k < n; ++k) {
    ck_philox_counter r = ck_philox_block(config->seed, VELOCITY_STREAM, k);
    double u1 = 1.0 - ck_uniform_double(r.v[0], r.v[1]);
    double u2 = ck_uniform_double(r.v[2], r.v[3]);
    double radius = sqrt(-2.0 * log(u1)), angle = 6.283185307179586 * u2;
    velocities[2 * k] = radius * cos(angle);
    velocities[2 * k + 1] = radius * sin(angle);
    mean[0] += velocities[2 * k];
    mean[1] += velocities[2 * k + 1];
  }
  for (size_t k = 0; k < 2 * n; ++k) {
    if (n > 1)
      velocities[k] -= mean[k & 1] / (double)n;
    kinetic += 0.5 * velocities[k] * velocities[k];
  }
  double measured =
      kinetic > 0 ? 2.0 * kinetic / ck__gas_degrees_of_freedom(config) : 0;
  double scale = measured > 0 ? sqrt(config->temperature / measured) : 0;
  for (size_t k = 0; k < 2 * n; ++k)
    velocities[k] *= scale;
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
  state->periodic_y = !config->walls;
  /* A member's walls along x are set when it is made: the run's own. */
  if (!state->member)
    state->walls_x = config->walls ? 3 : 0;
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
      device->backend == CK_BACKEND_OPENCL &&
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
   * plausible packing within the range (strips keep none). */
  if (config->neighbors == CK_GAS_VERLET && !state->strips) {
    double density = config->density > 1.2 ? config->density : 1.2;
    double capacity = ceil(2.0 * 3.14159265358979 * range * range * density);
    if (capacity > MAX_LIST_CAPACITY)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_gas_config.neighbors: Verlet lists of %.0f entries a "
              "particle (rc + skin %g); use cell lists or a smaller rc",
              capacity, range);
    state->list_capacity = (uint32_t)capacity;
    if (state->list_capacity < 16)
      state->list_capacity = 16;
  }
fail:
  return status;
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
  double bytes =
      (double)real * (2.0 * (double)padded + 8.0 * (double)n +
                      (reference ? 2.0 * (double)n : 0)) +
      4.0 * (double)n *
          (4.0 + (state->list_capacity ? state->list_capacity + 1.0 : 0)) +
      12.0 * ((double)state->cells + 1) +
      (device->backend == CK_BACKEND_REF ? 32.0 * (double)n : 0) +
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
    CK_TRY(ck__buffer_make_zeroed(state->queue,
                                  n * (size_t)state->list_capacity, 4,
                                  "neighbour lists", &state->list));
    CK_TRY(ck__buffer_make_zeroed(state->queue, n, 4, "neighbour counts",
                                  &state->list_count));
  }
fail:
  return status;
}

/* Sets up the state, buffers and steps for a resolved configuration. */
static ck_status build_state(const ck_device *device, ck_gas *gas,
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

/* Uploads positions and velocities (id order) and computes the forces. */
static ck_status start(ck_gas *gas, const double *positions,
                       const double *velocities) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  uint32_t *ids = malloc((size_t)state->particles * sizeof *ids);
  if (!ids)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  for (uint32_t k = 0; k < state->particles; ++k)
    ids[k] = k;
  CK_TRY(ck__reals_write(state->queue, state->position, state->double_precision,
                         positions, 2 * (size_t)state->particles));
  CK_TRY(ck__reals_write(state->queue, state->velocity, state->double_precision,
                         velocities, 2 * (size_t)state->particles));
  CK_TRY(ck_buffer_write(state->queue, state->id, 0,
                         (size_t)state->particles * 4, ids, CK_BLOCKING, NULL));
  CK_TRY(gas->steps->neighbors(state, 1));
  state->with_energy = 1;
  CK_TRY(gas->steps->forces(state));
fail:
  free(ids);
  return status;
}

/* The configuration's particles and box from an XYZ file (c->xyz_path),
 * read into frame, which is the caller's. With temperature_given set, a
 * file with velocities refuses the temperature, which it would leave
 * unused. */
static ck_status read_start_file(ck_gas_config *c, int temperature_given,
                                 ck__gas_frame *frame) {
  ck_status status = CK_OK;
  CK_TRY(ck__gas_xyz_read(c->xyz_path, frame));
  if (!ck__field_in_range(&ck__gas_fields[CK__GAS_PARTICLES],
                          (double)frame->particles))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s: %zu particles; a run takes at most %.0f", c->xyz_path,
            frame->particles, ck__gas_fields[CK__GAS_PARTICLES].maximum);
  c->particles = frame->particles;
  if (frame->box_x > 0 && frame->box_y > 0) {
    /* A box given beside the file's own would be dropped unseen. */
    if ((c->box_x > 0 || c->box_y > 0) &&
        (c->box_x != frame->box_x || c->box_y != frame->box_y))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_gas_config.box_x: %g x %g, but %s gives its own box by its "
              "Lattice (line 2: %g x %g); leave the box out",
              c->box_x, c->box_y, c->xyz_path, frame->box_x, frame->box_y);
    c->box_x = frame->box_x;
    c->box_y = frame->box_y;
  }
  if (!(c->box_x > 0 && c->box_y > 0))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s has no Lattice; give the box (box_x, box_y)", c->xyz_path);
  if (temperature_given && frame->velocities)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_gas_config.temperature: %s holds the velocities (%s) the "
            "run starts from; leave the temperature unset",
            c->xyz_path, frame->velocity_column);
fail:
  return status;
}

/* The starting positions and velocities from an XYZ file's frame: the
 * positions wrapped into a periodic box (or refused outside the walls),
 * the velocities the file's or drawn at the temperature. */
static ck_status start_from_frame(const ck_gas_config *c,
                                  const ck__gas_frame *frame,
                                  int double_precision, double *positions,
                                  double *velocities) {
  ck_status status = CK_OK;
  size_t n = c->particles;
  for (size_t k = 0; k < n; ++k) {
    double x = frame->positions[2 * k], y = frame->positions[2 * k + 1];
    int outside = x < 0 || y < 0 || x > c->box_x || y > c->box_y;
    if (outside && c->walls)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "%s: particle %zu at (%g, %g) is outside the walls", c->xyz_path,
              k + 1, x, y);
    if (!c->walls) {
      /* fmod is exact, however many boxes away the file put x. */
      x = fmod(x, c->box_x);
      y = fmod(y, c->box_y);
      x = x < 0 ? x + c->box_x : x;
      y = y < 0 ? y + c->box_y : y;
      x = x >= c->box_x ? 0 : x;
      y = y >= c->box_y ? 0 : y;
    }
    positions[2 * k] = x;
    positions[2 * k + 1] = y;
  }
  /* The reader refused particles at one place; wrapping (0 and the
   * side) or rounding to float may still bring two together. */
  size_t first, second;
  CK_TRY(ck__gas_find_coincident(n, positions, !double_precision, &first,
                                 &second));
  if (second < n)
    CK_FAIL(CK_ERROR_PARSE,
            "%s:%zu: particle %zu lands at (%.9g, %.9g), where particle %zu "
            "(line %zu) is, once wrapped into the box%s: coincident "
            "particles have no force between them",
            c->xyz_path, second + 3, second + 1, positions[2 * second],
            positions[2 * second + 1], first + 1, first + 3,
            double_precision ? "" : " and rounded to single precision");
  if (frame->velocities) {
    /* A speed past float's range would start the run from infinity, and
     * it would fail at step 0 blaming the time step. */
    for (size_t i = 0; !double_precision && i < 2 * n; ++i)
      if (fabs(frame->velocities[i]) > FLT_MAX)
        CK_FAIL(CK_ERROR_PARSE,
                "%s:%zu: particle %zu: %s %g is beyond single precision "
                "(%g), which the run keeps velocities in",
                c->xyz_path, i / 2 + 3, i / 2 + 1, i % 2 ? "vy" : "vx",
                frame->velocities[i], (double)FLT_MAX);
    memcpy(velocities, frame->velocities, 2 * n * sizeof *velocities);
  } else
    draw_velocities(c, velocities);
fail:
  return status;
}

/* The configuration c (the caller's copy) checked and resolved: the XYZ
 * file's particles and box read into frame (the caller's), the box from
 * the density. *box_option names the field that set the box. With
 * temperature_given set, a file with velocities refuses the temperature,
 * which it would leave unused. */
static ck_status resolve_start(ck_gas_config *c, int temperature_given,
                               ck__gas_frame *frame, const char **box_option) {
  ck_status status = CK_OK;
  if (c->xyz_path)
    CK_TRY(read_start_file(c, temperature_given, frame));
  CK_TRY(check_config(c));
  *box_option = c->box_x != 0 || c->box_y != 0 ? "box_x" : "density";
  CK_TRY(ck__gas_resolve_box(c));
  CK_TRY(check_cutoff_fits(c));
fail:
  return status;
}

/* The starting positions and velocities (2 N each, allocated here; the
 * caller frees them): the XYZ file's frame, or the lattice and velocities
 * drawn at the temperature. */
static ck_status start_particles(const ck_gas_config *c,
                                 const ck__gas_frame *frame,
                                 const char *box_option, int double_precision,
                                 double **positions, double **velocities) {
  ck_status status = CK_OK;
  size_t n = c->particles;
  *positions = malloc(2 * n * sizeof **positions);
  *velocities = malloc(2 * n * sizeof **velocities);
  if (!*positions || !*velocities)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
  if (frame->positions) {
    CK_TRY(
        start_from_frame(c, frame, double_precision, *positions, *velocities));
  } else {
    CK_TRY(place_lattice(c, box_option, *positions));
    draw_velocities(c, *velocities);
  }
fail:
  return status;
}

/* A gas with its configuration and forms, nothing built yet; NULL when
 * out of memory. */
static ck_gas *new_gas(const ck_gas_config *config, ck__gas_forms forms) {
  ck_gas *gas = calloc(1, sizeof *gas);
  if (!gas)
    return NULL;
  gas->config = *config;
  gas->state.tiles = forms.tiles;
  gas->state.strips_request = forms.strips;
  gas->state.sort_request = forms.sort;
  gas->state.fine_cells = forms.fine_cells;
  return gas;
}

/* With temperature_given set, a file with velocities refuses the
 * temperature, which it would leave unused. */
static ck_status create_gas(const ck_device *device,
                            const ck_gas_config *config, int double_precision,
                            ck__gas_forms forms, int temperature_given,
                            ck_gas **result) {
  ck_status status = CK_OK;
  ck_gas *gas = NULL;
  double *positions = NULL, *velocities = NULL;
  ck__gas_frame frame = {0};
  CK__REQUIRE_IN("ck_gas_create", device);
  CK__REQUIRE_IN("ck_gas_create", config);
  if (!result)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_gas_create: gas is NULL");
  *result = NULL;
  if (double_precision && device->backend != CK_BACKEND_REF &&
      !device->has_fp64)
    return ck__fail(CK_ERROR_UNSUPPORTED, "device %s has no double precision",
                    device->id);
  gas = new_gas(config, forms);
  if (!gas)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  ck_gas_config *c = &gas->config;
  const char *box_option = NULL;
  CK_TRY(resolve_start(c, temperature_given, &frame, &box_option));
  /* The device's buffers first: a system that cannot fit fails there,
   * before the host holds its starting state. */
  CK_TRY(build_state(device, gas, double_precision, 1));
  CK_TRY(start_particles(c, &frame, box_option, double_precision, &positions,
                         &velocities));
  CK_TRY(start(gas, positions, velocities));
  *result = gas;
  gas = NULL;
fail:
  free(positions);
  free(velocities);
  ck__gas_frame_free(&frame);
  ck_gas_destroy(gas);
  return status;
}

ck_status ck__gas_create_tuned(const ck_device *device,
                               const ck_gas_config *config,
                               int double_precision, ck__gas_forms forms,
                               int temperature_given, ck_gas **gas) {
  return create_gas(device, config, double_precision, forms, temperature_given,
                    gas);
}

ck_status ck_gas_create(const ck_device *device, const ck_gas_config *config,
                        ck_gas **gas) {
  return create_gas(device, config, 0, CK__GAS_FORMS_BY_DEVICE, 0, gas);
}

/* ---- spread runs ---------------------------------------------------------
 *
 * A spread gas is a ck_gas whose members (gas_spread.c) hold the
 * particles; each member is a device state of its own (gas_member.c),
 * made here.
 */

ck_status ck__gas_member_build(ck_gas *member) {
  /* The setup sizes its reductions by the slots the member can hold. */
  uint32_t used = member->state.particles;
  member->state.particles = (uint32_t)member->config.particles;
  ck_status status = member->steps->setup(&member->state);
  member->state.particles = used;
  return status;
}

ck_status ck__gas_member_make(const ck_device *device,
                              const ck_gas_config *config, ck__gas_forms forms,
                              uint32_t messages, int walls_x, int build,
                              ck_gas **member) {
  ck_status status = CK_OK;
  ck_gas *gas = new_gas(config, forms);
  *member = NULL;
  if (!gas)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  gas->state.member = 1;
  gas->state.walls_x = walls_x;
  gas->state.message_capacity = messages;
  CK_TRY(build_state(device, gas, 0, build));
  /* Empty until its particles are appended. */
  gas->state.particles = 0;
  *member = gas;
  gas = NULL;
fail:
  ck_gas_destroy(gas);
  return status;
}

/* A spread gas: the wrapper over the spread's members (taken over, and
 * destroyed on failure), which start from positions and velocities (id
 * order) at `step`. */
static ck_status wrap_spread(ck__gas_spread *spread, const ck_gas_config *c,
                             uint64_t step, ck__gas_forms forms,
                             const double *positions, const double *velocities,
                             ck_gas **result) {
  ck_status status = CK_OK;
  ck_gas *gas = calloc(1, sizeof *gas);
  if (!gas) {
    ck__gas_spread_destroy(spread);
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  gas->spread = spread;
  gas->config = *c;
  gas->config.xyz_path = NULL;
  gas->step = step;
  gas->state.box_x = c->box_x;
  gas->state.box_y = c->box_y;
  gas->state.particles = (uint32_t)c->particles;
  gas->state.dt = c->dt;
  gas->state.neighbors = c->neighbors;
  gas->state.rc = c->rc;
  gas->state.degrees_of_freedom = ck__gas_degrees_of_freedom(c);
  CK_TRY(ck__gas_spread_start(spread, &gas->config, step, forms, positions,
                              velocities));
  gas->state.strips = ck__gas_spread_strips(spread);
  *result = gas;
  gas = NULL;
fail:
  ck_gas_destroy(gas);
  return status;
}

ck_status ck__gas_create_spread_tuned(const ck_spread *spread,
                                      const ck_gas_config *config,
                                      ck__gas_forms forms,
                                      int temperature_given, ck_gas **gas) {
  ck_status status = CK_OK;
  double *positions = NULL, *velocities = NULL;
  ck__gas_frame frame = {0};
  CK__REQUIRE_IN("ck_gas_create_spread", spread);
  CK__REQUIRE_IN("ck_gas_create_spread", config);
  CK__REQUIRE_IN("ck_gas_create_spread", gas);
  *gas = NULL;
  ck_gas_config c = *config;
  const char *box_option = NULL;
  CK_TRY(resolve_start(&c, temperature_given, &frame, &box_option));
  CK_TRY(ck__gas_spread_check(&c));
  CK_TRY(start_particles(&c, &frame, box_option, 0, &positions, &velocities));
  ck__gas_spread *members = NULL;
  CK_TRY(ck__gas_spread_begin(spread, &members));
  CK_TRY(wrap_spread(members, &c, 0, forms, positions, velocities, gas));
fail:
  free(positions);
  free(velocities);
  ck__gas_frame_free(&frame);
  return status;
}

ck_status ck_gas_create_spread(const ck_spread *spread,
                               const ck_gas_config *config, ck_gas **gas) {
  return ck__gas_create_spread_tuned(spread, config, CK__GAS_FORMS_BY_DEVICE, 0,
                                     gas);
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

ck_status ck_gas_accumulate_rdf(ck_gas *gas, size_t bins, double range,
                                uint64_t *counts) {
  ck_status status = CK_OK;
  uint32_t *sample = NULL;
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
  if (gas->spread)
    return ck__gas_spread_rdf(gas->spread, bins, range, counts);
  if (state->rdf_bins != bins) {
    ck_buffer_destroy(state->rdf_counts);
    state->rdf_counts = NULL;
    state->rdf_bins = 0;
    CK_TRY(ck__buffer_make_zeroed(state->queue, bins, 4, "rdf histogram",
                                  &state->rdf_counts));
    state->rdf_bins = (uint32_t)bins;
  }
  sample = calloc(bins, sizeof *sample);
  if (!sample)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck_buffer_write(state->queue, state->rdf_counts, 0, bins * 4, sample,
                         CK_BLOCKING, NULL));
  CK_TRY(gas->steps->rdf(state, (uint32_t)bins, range));
  CK_TRY(ck_buffer_read(state->queue, state->rdf_counts, 0, bins * 4, sample,
                        CK_BLOCKING, NULL));
  for (size_t b = 0; b < bins; ++b)
    counts[b] += sample[b];
fail:
  free(sample);
  return status;
}

ck_status ck_gas_describe(const ck_gas *gas, ck_gas_config *config) {
  CK__REQUIRE(gas);
  CK__REQUIRE(config);
  *config = gas->config;
  config->xyz_path = NULL;
  return CK_OK;
}

/* ---- checkpoints ---------------------------------------------------------
 *
 *   offset  size  field
 *        0     8  magic "CKGASCHK"
 *        8     4  version (2; version 1 files are read too)
 *       12     4  real size: 4 (float) or 8 (double)
 *       16     8  step
 *       24   ...  the configuration: particles (8), then lattice, model,
 *                 shift, walls, thermostat, rescale_every, neighbors (4
 *                 each), then density, box_x, box_y, temperature, rc,
 *                 strength, softening, dt, target_temperature, gamma, skin
 *                 (8 each, IEEE-754), seed (8)
 *      156     8  (version 2) the forms the run used: local-memory tiles
 *                 (1 or 0) and strips (1 or 0), 4 bytes each
 *          ...    the state buffers, raw, in slot order: positions,
 *                 velocities, forces (2 N reals each), energies, virials
 *                 (N reals), ids (N words); Verlet mode adds the reference
 *                 positions of the last rebuild and the flags (4 words)
 *                 (version 1 also held the lists and their counts between
 *                 the two)
 *       last 32   SHA-256 of everything before
 *
 * The neighbour structure is not saved: it is a function of the slot order
 * and the positions it was built from (the current ones in cells mode, the
 * reference ones in Verlet mode), and loading builds it again from those,
 * as it was.
 */
#define CHECKPOINT_HEADER (24 + 8 + 7 * 4 + 11 * 8 + 8)
#define CHECKPOINT_FLAGS_BYTES 16

/* The state buffers a checkpoint holds, with their sizes. */
static size_t checkpoint_buffers(gas_state *state, ck_buffer **buffers,
                                 size_t *sizes) {
  size_t n = state->particles, real = state->real_size;
  ck_buffer *list[] = {state->position,  state->velocity, state->force,
                       state->energy,    state->virial,   state->id,
                       state->reference, state->flags};
  size_t bytes[] = {
      2 * n * real, 2 * n * real, 2 * n * real, n * real,
      n * real,     n * 4,        2 * n * real, CHECKPOINT_FLAGS_BYTES};
  size_t total = state->neighbors == CK_GAS_VERLET ? 8 : 6;
  for (size_t i = 0; i < total; ++i) {
    buffers[i] = list[i];
    sizes[i] = bytes[i];
  }
  return total;
}

static void put_config(ck__byte_writer *writer, const ck_gas_config *config) {
  ck__bytes_put_u64(writer, config->particles);
  uint32_t codes[] = {(uint32_t)config->lattice,    (uint32_t)config->model,
                      (uint32_t)config->shift,      (uint32_t)config->walls,
                      (uint32_t)config->thermostat, config->rescale_every,
                      (uint32_t)config->neighbors};
  for (size_t i = 0; i < 7; ++i)
    ck__bytes_put_u32(writer, codes[i]);
  double reals[] = {
      config->density,     config->box_x, config->box_y,
      config->temperature, config->rc,    config->strength,
      config->softening,   config->dt,    config->target_temperature,
      config->gamma,       config->skin};
  for (size_t i = 0; i < 11; ++i)
    ck__bytes_put_f64(writer, reals[i]);
  ck__bytes_put_u64(writer, config->seed);
}

/* Entry i of a saved array of reals of real_size bytes. */
static double saved_real(const uint8_t *saved, size_t i, size_t real_size) {
  if (real_size == 8) {
    uint64_t bits = ck__get_u64(saved + 8 * i);
    double value;
    memcpy(&value, &bits, 8);
    return value;
  }
  uint32_t bits = ck__get_u32(saved + 4 * i);
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

/* Whether (x, y) lies in the box, edges included; NaN does not. */
static int in_box(const gas_state *state, double x, double y) {
  return x >= 0 && x <= state->box_x && y >= 0 && y <= state->box_y;
}

/* A checkpoint's particles (path "" for a live state's, which messages
 * then name no file): finite positions inside the box, finite
 * velocities and forces (the next step's first kick), finite energies and
 * virials (reported as the loaded step's observables), the reference
 * positions of Verlet mode (NULL otherwise) inside the box too, and ids
 * that are a permutation of 0 .. N - 1 (a sealed file may still have been
 * written by hand). Messages count particles from 1, as those of XYZ
 * files do. */
static ck_status check_saved_particles(
    const char *path, const gas_state *state, const uint8_t *positions,
    const uint8_t *velocities, const uint8_t *forces, const uint8_t *energies,
    const uint8_t *virials, const uint8_t *ids, const uint8_t *reference) {
  ck_status status = CK_OK;
  uint8_t *seen = NULL;
  const char *colon = *path ? ": " : "";
  for (size_t i = 0; i < state->particles; ++i) {
    double x = saved_real(positions, 2 * i, state->real_size);
    double y = saved_real(positions, 2 * i + 1, state->real_size);
    double vx = saved_real(velocities, 2 * i, state->real_size);
    double vy = saved_real(velocities, 2 * i + 1, state->real_size);
    if (!in_box(state, x, y))
      CK_FAIL(CK_ERROR_PARSE,
              "%s%sparticle %zu is at (%g, %g), outside the %g x %g box", path,
              colon, i + 1, x, y, state->box_x, state->box_y);
    if (!isfinite(vx) || !isfinite(vy))
      CK_FAIL(CK_ERROR_PARSE, "%s%sparticle %zu has velocity (%g, %g)", path,
              colon, i + 1, vx, vy);
    double fx = saved_real(forces, 2 * i, state->real_size);
    double fy = saved_real(forces, 2 * i + 1, state->real_size);
    if (!isfinite(fx) || !isfinite(fy))
      CK_FAIL(CK_ERROR_PARSE, "%s%sparticle %zu has force (%g, %g)", path,
              colon, i + 1, fx, fy);
    double energy = saved_real(energies, i, state->real_size);
    double virial = saved_real(virials, i, state->real_size);
    if (!isfinite(energy) || !isfinite(virial))
      CK_FAIL(CK_ERROR_PARSE, "%s%sparticle %zu has energy %g and virial %g",
              path, colon, i + 1, energy, virial);
    if (!reference)
      continue;
    x = saved_real(reference, 2 * i, state->real_size);
    y = saved_real(reference, 2 * i + 1, state->real_size);
    if (!in_box(state, x, y))
      CK_FAIL(CK_ERROR_PARSE,
              "%s%sparticle %zu's reference position (%g, %g) is outside the "
              "%g x %g box",
              path, colon, i + 1, x, y, state->box_x, state->box_y);
  }
  /* The particles are put back in id order by their ids. */
  seen = calloc(state->particles, 1);
  if (!seen)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s%sout of memory", path, colon);
  for (size_t i = 0; i < state->particles; ++i) {
    uint32_t id = ck__get_u32(ids + 4 * i);
    if (id >= state->particles || seen[id])
      CK_FAIL(CK_ERROR_PARSE,
              "%s%sparticle %zu has id %u; the ids of %u particles are 0 .. "
              "%u, each once",
              path, colon, i + 1, id, state->particles, state->particles - 1);
    seen[id] = 1;
  }
fail:
  free(seen);
  return status;
}

/* A checkpoint's header: magic, version, real size, step, configuration
 * and the forms the run used. */
static void put_header(ck__byte_writer *b, uint32_t real_size, uint64_t step,
                       const ck_gas_config *config, int tiles, int strips) {
  ck__bytes_put(b, checkpoint_magic, 8);
  ck__bytes_put_u32(b, CHECKPOINT_VERSION);
  ck__bytes_put_u32(b, real_size);
  ck__bytes_put_u64(b, step);
  put_config(b, config);
  ck__bytes_put_u32(b, tiles ? 1u : 0u);
  ck__bytes_put_u32(b, strips ? 1u : 0u);
}

/* Saves the checkpoint in b, whose `count` particle buffers begin at
 * offsets: unless loading would refuse it (a particle thrown out of the
 * box by a step too large, before the energy shows it), so that it
 * cannot replace the last checkpoint a run could restart from. path
 * NULL only checks (ck_gas_check). state gives the particles' count,
 * real size, box and neighbour mode. */
static ck_status save_checked(ck__byte_writer *b, const char *path,
                              const gas_state *state, const size_t *offsets,
                              size_t count, uint64_t step) {
  ck_status status = CK_OK;
  if (!b->failed) {
    const uint8_t *at[8] = {0};
    for (size_t i = 0; i < count; ++i)
      at[i] = b->bytes + offsets[i];
    status = check_saved_particles(path ? path : "", state, at[0], at[1], at[2],
                                   at[3], at[4], at[5], at[6]);
    if (status == CK_ERROR_PARSE && path)
      CK_FAIL_PREFIX(CK_ERROR_MISMATCH,
                     "not writing the checkpoint of step %llu, which a run "
                     "could not restart from (the time step may be too "
                     "large): ",
                     (unsigned long long)step);
    if (status == CK_ERROR_PARSE)
      CK_FAIL_PREFIX(CK_ERROR_MISMATCH,
                     "the state of step %llu has blown up, and a run could "
                     "not restart from it (the time step may be too "
                     "large): ",
                     (unsigned long long)step);
    CK_TRY(status);
  }
  if (path)
    CK_TRY(ck__bytes_save(b, path));
  else if (b->failed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory checking a state");
fail:
  return status;
}

/* A spread gas's checkpoint, as one device writes its own: the particles
 * gathered in id order (every process takes part; rank 0 writes), in
 * single precision, as the members compute; Verlet mode's reference
 * positions are the current ones, which a loaded run builds its lists
 * from. Every process returns rank 0's outcome. */
static ck_status save_spread(ck_gas *gas, const char *path) {
  const char *name = path ? path : "the state";
  ck_status status = CK_OK;
  ck__byte_writer b = {0};
  size_t n = gas->config.particles;
  double *arrays[5] = {0};
  size_t lengths[5] = {2 * n, 2 * n, 2 * n, n, n};
  for (int a = 0; a < 5; ++a)
    if (!(arrays[a] = malloc(lengths[a] * sizeof(double))))
      status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
  /* The gather is collective: every process goes on to it, or none. */
  status = ck__gas_spread_agree(gas->spread, status);
  if (status == CK_OK)
    status = ck__gas_spread_particles(gas->spread, arrays[0], arrays[1],
                                      arrays[2], arrays[3], arrays[4]);
  if (status == CK_OK && ck__gas_spread_rank(gas->spread) == 0) {
    gas_state shape = {0};
    shape.particles = (uint32_t)n;
    shape.real_size = sizeof(float);
    shape.box_x = gas->config.box_x;
    shape.box_y = gas->config.box_y;
    shape.neighbors = gas->config.neighbors;
    put_header(&b, sizeof(float), gas->step, &gas->config, 0,
               ck__gas_spread_strips(gas->spread));
    size_t offsets[8];
    /* positions, velocities, forces, energies, virials, ids, and for
     * Verlet the reference positions (the current ones) and the flags */
    int order[7] = {0, 1, 2, 3, 4, -1, 0};
    size_t count = gas->config.neighbors == CK_GAS_VERLET ? 8 : 6;
    for (size_t i = 0; i < count; ++i) {
      offsets[i] = b.size;
      if (i == 5)
        for (size_t k = 0; k < n; ++k)
          ck__bytes_put_u32(&b, (uint32_t)k);
      else if (i == 7)
        for (size_t k = 0; k < CHECKPOINT_FLAGS_BYTES / 4; ++k)
          ck__bytes_put_u32(&b, 0);
      else
        for (size_t k = 0; k < lengths[order[i]]; ++k)
          ck__bytes_put_f32(&b, (float)arrays[order[i]][k]);
    }
    status = save_checked(&b, path, &shape, offsets, count, gas->step);
  }
  status = ck__gas_spread_agree(gas->spread, status);
  for (int a = 0; a < 5; ++a)
    free(arrays[a]);
  ck__bytes_free(&b);
  return status;
}

/* A checkpoint of gas into path, or with path NULL only its check. */
static ck_status save_or_check(ck_gas *gas, const char *path) {
  ck_status status = CK_OK;
  ck__byte_writer b = {0};
  uint8_t *raw = NULL;
  if (gas->spread)
    return save_spread(gas, path);
  gas_state *state = &gas->state;
  put_header(&b, (uint32_t)state->real_size, gas->step, &gas->config,
             state->local_tiles, state->strips);
  ck_buffer *buffers[8];
  size_t sizes[8], offsets[8] = {0};
  size_t count = checkpoint_buffers(state, buffers, sizes);
  for (size_t i = 0; i < count; ++i) {
    offsets[i] = b.size;
    /* The buffer's bytes, raw, as the device holds them. */
    raw = malloc(sizes[i] ? sizes[i] : 1);
    if (!raw)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory writing a checkpoint",
              path ? path : "the state");
    CK_TRY(ck_buffer_read(state->queue, buffers[i], 0, sizes[i], raw,
                          CK_BLOCKING, NULL));
    ck__bytes_put(&b, raw, sizes[i]);
    free(raw);
    raw = NULL;
  }
  CK_TRY(save_checked(&b, path, state, offsets, count, gas->step));
fail:
  free(raw);
  ck__bytes_free(&b);
  return status;
}

ck_status ck_gas_save(ck_gas *gas, const char *path) {
  CK__REQUIRE(gas);
  CK__REQUIRE(path);
  return save_or_check(gas, path);
}

ck_status ck_gas_check(ck_gas *gas) {
  CK__REQUIRE(gas);
  return save_or_check(gas, NULL);
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

/* Element k of n of a saved array, as its slot s in the loaded order
 * (slot_of maps ids to the saved slots), into out: bytes each. */
static void permute_saved(const uint8_t *saved, size_t bytes, size_t n,
                          const uint32_t *ids, const uint32_t *slot_of,
                          uint8_t *out) {
  for (size_t s = 0; s < n; ++s)
    memcpy(out + s * bytes, saved + (size_t)slot_of[ids[s]] * bytes, bytes);
}

/* The loaded state's neighbour structure, built again as the saved run
 * had it. Cells mode: the cells of the current positions. Verlet mode:
 * the rebuild's, from the reference positions: they go through the
 * rebuild in the positions' place, then the current positions and the
 * flags are put back. A run's own checkpoint is in slot order already,
 * and the sort moves nothing; one in another order (a spread run's, in
 * id order) moves, and the forces, energies, virials and Verlet mode's
 * current positions then follow their particles by id. saved: the
 * checkpoint's buffers (checkpoint_buffers). */
static ck_status rebuild_loaded(ck_gas *gas, const uint8_t *const *saved) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  size_t n = state->particles, real = state->real_size;
  size_t bytes = 2 * n * real;
  uint32_t *ids = NULL, *slot_of = NULL;
  uint8_t *moved = NULL;
  int verlet = state->neighbors == CK_GAS_VERLET;
  if (state->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  if (verlet)
    CK_TRY(ck_buffer_write(state->queue, state->position, 0, bytes, saved[6],
                           CK_BLOCKING, NULL));
  CK_TRY(gas->steps->neighbors(state, 1));
  ids = malloc(n * sizeof *ids);
  slot_of = malloc(n * sizeof *slot_of);
  moved = malloc(bytes);
  if (!ids || !slot_of || !moved)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck_buffer_read(state->queue, state->id, 0, 4 * n, ids, CK_BLOCKING,
                        NULL));
  int same = 1;
  for (size_t s = 0; s < n; ++s) {
    slot_of[ck__get_u32(saved[5] + 4 * s)] = (uint32_t)s;
    same = same && ids[s] == ck__get_u32(saved[5] + 4 * s);
  }
  if (verlet) {
    if (!same)
      permute_saved(saved[0], 2 * real, n, ids, slot_of, moved);
    CK_TRY(ck_buffer_write(state->queue, state->position, 0, bytes,
                           same ? saved[0] : moved, CK_BLOCKING, NULL));
    CK_TRY(ck_buffer_write(state->queue, state->flags, 0,
                           CHECKPOINT_FLAGS_BYTES, saved[7], CK_BLOCKING,
                           NULL));
  }
  if (same)
    goto fail;
  ck_buffer *follow[] = {state->force, state->energy, state->virial};
  size_t sizes[] = {2 * real, real, real};
  for (int a = 0; a < 3; ++a) {
    permute_saved(saved[2 + a], sizes[a], n, ids, slot_of, moved);
    CK_TRY(ck_buffer_write(state->queue, follow[a], 0, sizes[a] * n, moved,
                           CK_BLOCKING, NULL));
  }
fail:
  free(ids);
  free(slot_of);
  free(moved);
  return status;
}

/* A checkpoint's frame: its magic, its version, its size and checksum,
 * and a real size the device (where not NULL) can hold. */
static ck_status check_checkpoint(const ck_device *device, const char *path,
                                  const uint8_t *in, size_t size,
                                  uint32_t *version, uint32_t *real_size) {
  ck_status status = CK_OK;
  if (size < 8 || memcmp(in, checkpoint_magic, 8) != 0)
    CK_FAIL(CK_ERROR_PARSE, "%s: not a clkit gas checkpoint", path);
  if (size < CHECKPOINT_HEADER + 32)
    CK_FAIL(CK_ERROR_PARSE, "%s: truncated (%zu bytes)", path, size);
  *version = ck__get_u32(in + 8);
  if (*version != 1 && *version != CHECKPOINT_VERSION)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: checkpoint version %u; this clkit reads versions 1 and %u",
            path, *version, CHECKPOINT_VERSION);
  size_t header = CHECKPOINT_HEADER + (*version >= 2 ? 8 : 0);
  if (size < header + 32)
    CK_FAIL(CK_ERROR_PARSE, "%s: truncated (%zu bytes)", path, size);
  uint8_t digest[32];
  ck__sha256(in, size - 32, digest);
  if (memcmp(digest, in + size - 32, 32) != 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: checksum mismatch: the file is damaged or truncated", path);
  *real_size = ck__get_u32(in + 12);
  if (*real_size != 4 && *real_size != 8)
    CK_FAIL(CK_ERROR_PARSE, "%s: real size %u", path, *real_size);
  /* As ck_gas_create() refuses double precision where the device has none. */
  if (device && *real_size == 8 && device->backend != CK_BACKEND_REF &&
      !device->has_fp64)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "%s: a double-precision checkpoint; device %s has no double "
            "precision",
            path, device->id);
fail:
  return status;
}

/* The saved step, configuration and forms, into loaded; *at_out is the
 * byte after them (put_config wrote them). */
static ck_status read_saved_config(const char *path, const uint8_t *in,
                                   uint32_t version, ck_gas *loaded,
                                   size_t *at_out) {
  ck_status status = CK_OK;
  loaded->step = ck__get_u64(in + 16);
  ck_gas_config *config = &loaded->config;
  ck_gas_config_init(config);
  size_t at = 24;
  config->particles = (size_t)ck__get_u64(in + at);
  at += 8;
  uint32_t codes[7];
  for (size_t i = 0; i < 7; ++i, at += 4)
    codes[i] = ck__get_u32(in + at);
  if (codes[3] > 1)
    CK_FAIL(CK_ERROR_PARSE, "%s: a walls flag of %u, not 0 or 1", path,
            codes[3]);
  config->lattice = (ck_gas_lattice)codes[0];
  config->model = (ck_gas_model)codes[1];
  config->shift = (ck_gas_shift)codes[2];
  config->walls = (int)codes[3];
  config->thermostat = (ck_gas_thermostat)codes[4];
  config->rescale_every = codes[5];
  config->neighbors = (ck_gas_neighbors)codes[6];
  double reals[11];
  for (size_t i = 0; i < 11; ++i, at += 8) {
    uint64_t bits = ck__get_u64(in + at);
    memcpy(&reals[i], &bits, 8);
  }
  config->density = reals[0];
  config->box_x = reals[1];
  config->box_y = reals[2];
  config->temperature = reals[3];
  config->rc = reals[4];
  config->strength = reals[5];
  config->softening = reals[6];
  config->dt = reals[7];
  config->target_temperature = reals[8];
  config->gamma = reals[9];
  config->skin = reals[10];
  config->seed = ck__get_u64(in + at);
  at += 8;
  /* The forms the saved run used, so that the sums go in its order;
   * version 1 runs knew no strips. */
  loaded->state.tiles = -1;
  loaded->state.strips_request = 0;
  loaded->state.sort_request = -1;
  if (version >= 2) {
    uint32_t tiles = ck__get_u32(in + at), strips = ck__get_u32(in + at + 4);
    if (tiles > 1 || strips > 1)
      CK_FAIL(CK_ERROR_PARSE, "%s: unknown forms (tiles %u, strips %u)", path,
              tiles, strips);
    loaded->state.tiles = (int)tiles;
    loaded->state.strips_request = (int)strips;
    at += 8;
  }
  *at_out = at;
fail:
  return status;
}

/* The saved configuration judged as ck_gas_create() judges one, with
 * `left` bytes of particle state after it. */
static ck_status check_saved_config(const char *path,
                                    const ck_gas_config *config, size_t left,
                                    uint32_t real_size) {
  ck_status status = CK_OK;
  /* The particle state must be there before buffers are made for it. */
  if (config->particles < 1 ||
      left / (8 * (size_t)real_size + 4) < config->particles)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: %zu bytes of particle state cannot hold %llu particles", path,
            left, (unsigned long long)config->particles);
  status = check_config(config);
  if (status == CK_OK &&
      (!side_fits(config->box_x) || !side_fits(config->box_y)))
    status = ck__fail(CK_ERROR_INVALID_ARGUMENT, "bad box %g x %g",
                      config->box_x, config->box_y);
  /* The density is the particles over the box's area, as
   * ck__gas_resolve_box set it (to rounding, when the box came from it). */
  double area_density = status == CK_OK ? (double)config->particles /
                                              (config->box_x * config->box_y)
                                        : 0;
  if (status == CK_OK &&
      !(fabs(config->density - area_density) <= 1e-9 * area_density))
    status = ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "density %g, but %zu particles in a %g x %g box have %g",
                      config->density, config->particles, config->box_x,
                      config->box_y, area_density);
  if (status == CK_OK)
    status = check_cutoff_fits(config);
  if (status != CK_OK)
    CK_FAIL_PREFIX(CK_ERROR_PARSE, "%s: a bad configuration: ", path);
fail:
  return status;
}

/* The particle state of a checkpoint, from byte at of in (size bytes,
 * the checksum last), checked: saved[i] points at buffer i of
 * checkpoint_buffers (sizes[i] bytes; count of them), for state's
 * particles, precision, box and neighbour mode. */
static ck_status locate_saved(const char *path, const uint8_t *in, size_t size,
                              size_t at, uint32_t version, gas_state *state,
                              const uint8_t **saved, size_t *sizes,
                              size_t *count) {
  ck_status status = CK_OK;
  ck_buffer *buffers[8];
  *count = checkpoint_buffers(state, buffers, sizes);
  size_t needed = 0, skipped = 0;
  for (size_t i = 0; i < *count; ++i)
    needed += sizes[i];
  /* Version 1 Verlet files hold the lists and their counts (4 (capacity
   * + 1) bytes a particle) between the reference positions and the
   * flags: they are skipped and built again. */
  if (version == 1 && state->neighbors == CK_GAS_VERLET &&
      size - 32 - at > needed)
    skipped = size - 32 - at - needed;
  if (size - 32 - at != needed + skipped ||
      skipped % (4 * (size_t)state->particles) != 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: %zu bytes of particle state where %u particles need %zu", path,
            size - 32 - at, state->particles, needed);
  for (size_t i = 0; i < *count; ++i) {
    if (i == 7)
      at += skipped;
    saved[i] = in + at;
    at += sizes[i];
  }
  CK_TRY(check_saved_particles(path, state, saved[0], saved[1], saved[2],
                               saved[3], saved[4], saved[5], saved[6]));
fail:
  return status;
}

/* The particle state, from byte at of in (size bytes, the checksum last),
 * onto the loaded state's buffers, checked, with the neighbour structure
 * built again. */
static ck_status upload_saved(const char *path, const uint8_t *in, size_t size,
                              size_t at, uint32_t version, ck_gas *loaded) {
  ck_status status = CK_OK;
  gas_state *state = &loaded->state;
  ck_buffer *buffers[8];
  const uint8_t *saved[8] = {0};
  size_t sizes[8], count = 0;
  CK_TRY(
      locate_saved(path, in, size, at, version, state, saved, sizes, &count));
  checkpoint_buffers(state, buffers, sizes);
  for (size_t i = 0; i < count; ++i)
    CK_TRY(ck_buffer_write(state->queue, buffers[i], 0, sizes[i], saved[i],
                           CK_BLOCKING, NULL));
  CK_TRY(rebuild_loaded(loaded, saved));
fail:
  return status;
}

/* A checkpoint's frame (check_checkpoint; device may be NULL), then its
 * step, configuration and forms into *loaded (made here; the caller
 * destroys it), judged as ck_gas_create() judges one; *at is the byte
 * after them. */
static ck_status open_checkpoint(const ck_device *device, const char *path,
                                 const uint8_t *in, size_t size,
                                 ck_gas **loaded, uint32_t *version,
                                 uint32_t *real_size, size_t *at) {
  ck_status status = CK_OK;
  CK_TRY(check_checkpoint(device, path, in, size, version, real_size));
  *loaded = calloc(1, sizeof **loaded);
  if (!*loaded)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(read_saved_config(path, in, *version, *loaded, at));
  CK_TRY(check_saved_config(path, &(*loaded)->config, size - 32 - *at,
                            *real_size));
fail:
  return status;
}

ck_status ck_gas_load(const ck_device *device, const char *path, ck_gas **gas) {
  ck_status status = CK_OK;
  char *bytes = NULL;
  size_t size = 0;
  ck_gas *loaded = NULL;
  CK__REQUIRE(device);
  CK__REQUIRE(path);
  CK__REQUIRE(gas);
  *gas = NULL;
  CK_TRY(ck__file_read_bytes(path, ck__file_binary_max_bytes(),
                             checkpoint_magic, 8, &bytes, &size));
  const uint8_t *in = (const uint8_t *)bytes;
  uint32_t version = 0, real_size = 0;
  size_t at = 0;
  CK_TRY(open_checkpoint(device, path, in, size, &loaded, &version, &real_size,
                         &at));
  /* The state's own checks (the Verlet lists' length, from the density
   * and the range) judge the file's configuration too. */
  status = build_state(device, loaded, real_size == 8, 1);
  if (status == CK_ERROR_INVALID_ARGUMENT)
    CK_FAIL_PREFIX(CK_ERROR_PARSE, "%s: a bad configuration: ", path);
  CK_TRY(status);
  CK_TRY(upload_saved(path, in, size, at, version, loaded));
  *gas = loaded;
  loaded = NULL;
fail:
  ck_gas_destroy(loaded);
  free(bytes);
  return status;
}

/* A checkpoint's bytes, read by rank 0 and sent to every process. */
static ck_status read_shared(ck__gas_spread *spread, const char *path,
                             char **bytes, size_t *size) {
  ck_status status = CK_OK;
  uint64_t shared = 0;
  if (ck__gas_spread_rank(spread) == 0)
    status = ck__file_read_bytes(path, ck__file_binary_max_bytes(),
                                 checkpoint_magic, 8, bytes, size);
  CK_TRY(ck__gas_spread_agree(spread, status));
  shared = *size;
  CK_TRY(ck__gas_spread_broadcast(spread, &shared, sizeof shared));
  if (ck__gas_spread_rank(spread) != 0) {
    *size = (size_t)shared;
    *bytes = malloc(*size ? *size : 1);
  }
  CK_TRY(ck__gas_spread_agree(
      spread, *bytes
                  ? CK_OK
                  : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                             "%s: out of memory for %zu bytes", path, *size)));
  CK_TRY(ck__gas_spread_broadcast(spread, *bytes, *size));
fail:
  return status;
}

ck_status ck_gas_load_spread(const ck_spread *spread, const char *path,
                             ck_gas **gas) {
  ck_status status = CK_OK;
  char *bytes = NULL;
  size_t size = 0;
  ck_gas *loaded = NULL;
  ck__gas_spread *members = NULL;
  double *positions = NULL, *velocities = NULL;
  CK__REQUIRE_IN("ck_gas_load_spread", spread);
  CK__REQUIRE_IN("ck_gas_load_spread", path);
  CK__REQUIRE_IN("ck_gas_load_spread", gas);
  *gas = NULL;
  CK_TRY(ck__gas_spread_begin(spread, &members));
  CK_TRY(read_shared(members, path, &bytes, &size));
  /* Every process judges the same bytes alike. */
  const uint8_t *in = (const uint8_t *)bytes;
  uint32_t version = 0, real_size = 0;
  size_t at = 0;
  CK_TRY(open_checkpoint(NULL, path, in, size, &loaded, &version, &real_size,
                         &at));
  ck_gas_config *c = &loaded->config;
  gas_state *shape = &loaded->state;
  shape->particles = (uint32_t)c->particles;
  shape->real_size = real_size;
  shape->box_x = c->box_x;
  shape->box_y = c->box_y;
  shape->neighbors = c->neighbors;
  const uint8_t *saved[8] = {0};
  size_t sizes[8], count = 0;
  CK_TRY(
      locate_saved(path, in, size, at, version, shape, saved, sizes, &count));
  status = ck__gas_spread_check(c);
  if (status)
    CK_FAIL_PREFIX(status, "%s: ", path);
  size_t n = c->particles;
  positions = malloc(2 * n * sizeof *positions);
  velocities = malloc(2 * n * sizeof *velocities);
  if (!positions || !velocities)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
  for (size_t k = 0; k < n; ++k) {
    size_t id = ck__get_u32(saved[5] + 4 * k);
    for (int d = 0; d < 2; ++d) {
      positions[2 * id + d] = saved_real(saved[0], 2 * k + d, real_size);
      velocities[2 * id + d] = saved_real(saved[1], 2 * k + d, real_size);
    }
  }
  ck__gas_forms forms = {shape->tiles, shape->strips_request, -1, 0};
  ck__gas_spread *taken = members;
  members = NULL;
  CK_TRY(
      wrap_spread(taken, c, loaded->step, forms, positions, velocities, gas));
fail:
  ck__gas_spread_destroy(members);
  ck_gas_destroy(loaded);
  free(bytes);
  free(positions);
  free(velocities);
  return status;
}

ck_status ck_gas_destroy(ck_gas *gas) {
  if (!gas)
    return CK_OK;
  ck__gas_spread_destroy(gas->spread);
  gas_state *state = &gas->state;
  ck__gas_member_staging_free(state);
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
