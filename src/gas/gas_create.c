/*
 * gas_create.c - a gas's starting particles (a lattice, or an XYZ file,
 * with velocities at T), and the creation of a gas alone, spread over
 * devices, or as a spread's member.
 */
#include <float.h>
#include <math.h>
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

/* The caller's arrays as a start (c->positions): alone, in a box given
 * for them, and of finite values, which a file's reader checks as it
 * reads its lines. */
static ck_status check_start_arrays(const ck_gas_config *c) {
  if (c->xyz_path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_gas_config.positions: xyz_path gives the particles "
                    "too; give one");
  if (c->box_x == 0 && c->box_y == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_gas_config.positions: give the box (box_x, box_y) "
                    "the particles are in");
  const double *arrays[] = {c->positions, c->velocities};
  static const char *const names[] = {"positions", "velocities"};
  for (int a = 0; a < 2 && arrays[a]; ++a)
    for (size_t k = 0; k < c->particles; ++k)
      if (!isfinite(arrays[a][2 * k]) || !isfinite(arrays[a][2 * k + 1]))
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.%s: row %zu is (%g, %g); each value "
                        "must be finite",
                        names[a], k, arrays[a][2 * k], arrays[a][2 * k + 1]);
  return CK_OK;
}

/* The given positions into positions, wrapped into a periodic box, or
 * refused outside the walls (file: the XYZ file they came from, else the
 * caller's arrays). */
static ck_status wrap_positions(const ck_gas_config *c, const double *given,
                                double *positions) {
  ck_status status = CK_OK;
  const char *file = c->xyz_path;
  for (size_t k = 0; k < c->particles; ++k) {
    double x = given[2 * k], y = given[2 * k + 1];
    int outside = x < 0 || y < 0 || x > c->box_x || y > c->box_y;
    if (outside && c->walls && file)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "%s: particle %zu at (%g, %g) is outside the walls", file, k + 1,
              x, y);
    if (outside && c->walls)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_gas_config.positions: row %zu is (%g, %g), outside the "
              "walls of the %g x %g box",
              k, x, y, c->box_x, c->box_y);
    if (!c->walls) {
      /* fmod is exact, however many boxes away the start put x. */
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
fail:
  return status;
}

/* Refuses two particles at one place once wrapped (positions) and, in
 * single precision, rounded to float: wrapping (0 and the side) or
 * rounding may bring two together. Messages name the file's lines, or
 * the arrays' rows (given, 0-based). */
static ck_status check_coincident(const ck_gas_config *c, const double *given,
                                  int double_precision,
                                  const double *positions) {
  ck_status status = CK_OK;
  const char *file = c->xyz_path;
  size_t n = c->particles;
  size_t first, second;
  CK_TRY(ck__gas_find_coincident(n, positions, !double_precision, &first,
                                 &second));
  const char *rounded =
      double_precision ? "" : " and rounded to single precision";
  if (second < n && file)
    CK_FAIL(CK_ERROR_PARSE,
            "%s:%zu: particle %zu lands at (%.9g, %.9g), where particle %zu "
            "(line %zu) is, once wrapped into the box%s: coincident "
            "particles have no force between them",
            file, second + 3, second + 1, positions[2 * second],
            positions[2 * second + 1], first + 1, first + 3, rounded);
  if (second < n && given[2 * first] == given[2 * second] &&
      given[2 * first + 1] == given[2 * second + 1])
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_gas_config.positions: rows %zu and %zu are both (%.9g, "
            "%.9g): coincident particles have no force between them",
            first, second, given[2 * first], given[2 * first + 1]);
  if (second < n)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_gas_config.positions: rows %zu and %zu, (%.9g, %.9g) and "
            "(%.9g, %.9g), land at (%.9g, %.9g) once wrapped into the box%s: "
            "coincident particles have no force between them",
            first, second, given[2 * first], given[2 * first + 1],
            given[2 * second], given[2 * second + 1], positions[2 * second],
            positions[2 * second + 1], rounded);
fail:
  return status;
}

/* The given velocities into velocities, or, given none, velocities drawn
 * at the temperature. */
static ck_status start_velocities(const ck_gas_config *c,
                                  const double *given_velocities,
                                  int double_precision, double *velocities) {
  ck_status status = CK_OK;
  const char *file = c->xyz_path;
  size_t n = c->particles;
  if (!given_velocities) {
    draw_velocities(c, velocities);
    return CK_OK;
  }
  /* A speed past float's range would start the run from infinity, and
   * it would fail at step 0 blaming the time step. */
  for (size_t i = 0; !double_precision && i < 2 * n; ++i) {
    if (!(fabs(given_velocities[i]) > FLT_MAX))
      continue;
    const char *axis = i % 2 ? "vy" : "vx";
    if (file)
      CK_FAIL(CK_ERROR_PARSE,
              "%s:%zu: particle %zu: %s %g is beyond single precision "
              "(%g), which the run keeps velocities in",
              file, i / 2 + 3, i / 2 + 1, axis, given_velocities[i],
              (double)FLT_MAX);
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_gas_config.velocities: row %zu: %s %g is beyond single "
            "precision (%g), which the run keeps velocities in",
            i / 2, axis, given_velocities[i], (double)FLT_MAX);
  }
  memcpy(velocities, given_velocities, 2 * n * sizeof *velocities);
fail:
  return status;
}

/* The starting positions and velocities from those given, an XYZ file's
 * frame or the caller's arrays (velocities NULL: drawn at the
 * temperature): the positions wrapped into a periodic box (or refused
 * outside the walls). A file's reader has refused two particles at one
 * place as read; arrays are searched once, after wrapping. Messages name
 * the file's lines, or the arrays' rows (0-based). */
static ck_status start_from(const ck_gas_config *c, const double *given,
                            const double *given_velocities,
                            int double_precision, double *positions,
                            double *velocities) {
  ck_status status = CK_OK;
  CK_TRY(wrap_positions(c, given, positions));
  CK_TRY(check_coincident(c, given, double_precision, positions));
  CK_TRY(start_velocities(c, given_velocities, double_precision, velocities));
fail:
  return status;
}

/* Verlet lists only where they would be accepted had they been asked
 * for. On an H200 at density 0.7, Verlet lists with skin 0.5 and cells
 * broke even at about 1M particles alone; over two, lists led from 1M a
 * member, and from 128K where cells crossed through the host
 * (bench/RESULTS.md). */
void ck__gas_pick_neighbors(const ck__gas_place *place, ck_gas_config *c) {
  if (c->neighbors != CK_GAS_NEIGHBORS_AUTO)
    return;
  const ck_device *device = place->device;
  int alone = device != NULL;
  int gpu = alone ? ck__device_is_gpu(device) : place->gpus;
  size_t each = alone ? c->particles : c->particles / place->members;
  size_t from = alone             ? CK_GAS_AUTO_VERLET_FROM
                : place->resident ? CK_GAS_AUTO_VERLET_MEMBER_FROM
                                  : CK_GAS_AUTO_VERLET_HOST_FROM;
  if (c->model == CK_GAS_SOFT_LOG) {
    c->neighbors = CK_GAS_ALL_PAIRS;
  } else if (gpu && each >= from && CK_GAS_AUTO_SKIN <= c->rc &&
             ck__gas_lists_fit(c, CK_GAS_AUTO_SKIN)) {
    c->neighbors = CK_GAS_VERLET;
    c->skin = CK_GAS_AUTO_SKIN;
  } else {
    c->neighbors = CK_GAS_CELLS;
  }
}

/* The configuration c (the caller's copy) checked and resolved for its
 * place: the XYZ file's particles and box read into frame (the
 * caller's), or the caller's arrays checked; the neighbours' mode; the
 * box from the density. *box_option names the
 * field that set the box. With temperature_given set, a file with
 * velocities refuses the temperature, which it would leave unused. */
static ck_status resolve_start(const ck__gas_place *place, ck_gas_config *c,
                               int temperature_given, ck__gas_frame *frame,
                               const char **box_option) {
  ck_status status = CK_OK;
  if (c->velocities && !c->positions)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_gas_config.velocities: given without positions");
  if (c->xyz_path && !c->positions)
    CK_TRY(read_start_file(c, temperature_given, frame));
  CK_TRY(ck__gas_check_config(c));
  if (c->positions)
    CK_TRY(check_start_arrays(c));
  *box_option = c->box_x != 0 || c->box_y != 0 ? "box_x" : "density";
  CK_TRY(ck__gas_resolve_box(c));
  ck__gas_pick_neighbors(place, c);
  CK_TRY(ck__gas_check_cutoff_fits(c));
fail:
  return status;
}

/* The starting positions and velocities (2 N each, allocated here; the
 * caller frees them): the XYZ file's frame, the caller's arrays, or the
 * lattice and velocities drawn at the temperature. The caller's arrays
 * are read here alone: c no longer points at them after. */
static ck_status start_particles(ck_gas_config *c, const ck__gas_frame *frame,
                                 const char *box_option, int double_precision,
                                 double **positions, double **velocities) {
  ck_status status = CK_OK;
  size_t n = c->particles;
  *positions = malloc(2 * n * sizeof **positions);
  *velocities = malloc(2 * n * sizeof **velocities);
  if (!*positions || !*velocities)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
  if (frame->positions)
    CK_TRY(start_from(c, frame->positions, frame->velocities, double_precision,
                      *positions, *velocities));
  else if (c->positions)
    CK_TRY(start_from(c, c->positions, c->velocities, double_precision,
                      *positions, *velocities));
  else {
    CK_TRY(place_lattice(c, box_option, *positions));
    draw_velocities(c, *velocities);
  }
fail:
  c->positions = c->velocities = NULL;
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
  gas->state.list_chunk_request = forms.list_chunk;
  return gas;
}

/* A gas on device from its resolved configuration c (the caller's copy)
 * and its start (the file's frame, c's arrays, or drawn), adopted as a
 * spread of one member (ck__gas_wrap_alone). */
static ck_status make_alone(const ck_device *device, const ck_gas_config *c,
                            const ck__gas_frame *frame, const char *box_option,
                            int double_precision, ck__gas_forms forms,
                            ck_gas **result) {
  ck_status status = CK_OK;
  double *positions = NULL, *velocities = NULL;
  ck_gas *gas = new_gas(c, forms);
  if (!gas)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  /* The device's buffers first: a system that cannot fit fails there,
   * before the host holds its starting state. */
  CK_TRY(ck__gas_build_state(device, gas, double_precision, 1));
  CK_TRY(start_particles(&gas->config, frame, box_option, double_precision,
                         &positions, &velocities));
  CK_TRY(start(gas, positions, velocities));
  gas->drew_velocities = !frame->velocities;
  ck_gas *taken = gas;
  gas = NULL;
  CK_TRY(ck__gas_wrap_alone(device, taken, result));
fail:
  free(positions);
  free(velocities);
  ck_gas_destroy(gas);
  return status;
}

/* With temperature_given set, a file with velocities refuses the
 * temperature, which it would leave unused. */
static ck_status create_gas(const ck_device *device,
                            const ck_gas_config *config, int double_precision,
                            ck__gas_forms forms, int temperature_given,
                            ck_gas **result) {
  ck_status status = CK_OK;
  ck__gas_frame frame = {0};
  CK__REQUIRE_IN("ck_gas_create", device);
  CK__REQUIRE_IN("ck_gas_create", config);
  if (!result)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_gas_create: gas is NULL");
  *result = NULL;
  if (double_precision && !ck__device_has_fp64(device))
    return ck__fail(CK_ERROR_UNSUPPORTED, "device %s has no double precision",
                    device->id);
  ck_gas_config c = *config;
  const char *box_option = NULL;
  ck__gas_place place = {device, 1, 0, 0};
  CK_TRY(resolve_start(&place, &c, temperature_given, &frame, &box_option));
  CK_TRY(make_alone(device, &c, &frame, box_option, double_precision, forms,
                    result));
fail:
  ck__gas_frame_free(&frame);
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

/* A spread's member gas (new_gas's, taken over; NULL when out of memory)
 * given its device state in single precision, its programs built where
 * build says. */
static ck_status build_member(const ck_device *device, ck_gas *gas, int build,
                              ck_gas **member) {
  ck_status status = CK_OK;
  *member = NULL;
  if (!gas)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck__gas_build_state(device, gas, 0, build));
  *member = gas;
  gas = NULL;
fail:
  ck_gas_destroy(gas);
  return status;
}

ck_status ck__gas_member_make(const ck_device *device,
                              const ck_gas_config *config, ck__gas_forms forms,
                              uint32_t messages, int walls_x, int walls_y,
                              int tiers, int build, ck_gas **member) {
  ck_gas *gas = new_gas(config, forms);
  if (gas) {
    gas->state.member = 1;
    gas->state.slots = (uint32_t)config->particles;
    gas->state.walls_x = walls_x;
    gas->state.walls_y = walls_y;
    gas->state.slab = walls_y < 0;
    gas->state.tiers = tiers;
    gas->state.message_capacity = messages;
  }
  ck_status status = build_member(device, gas, build, member);
  if (status == CK_OK)
    (*member)->state.particles = 0; /* empty until its particles come */
  return status;
}

/* A spread gas: the wrapper over the spread's members (taken over, and
 * destroyed on failure), which start from positions and velocities (id
 * order) at `step`. */
ck_status ck__gas_wrap_spread(ck__gas_spread *spread, const ck_gas_config *c,
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
  /* The forms asked for, as a gas on one device keeps them (new_gas). */
  gas->state.tiles = forms.tiles;
  gas->state.strips_request = forms.strips;
  gas->state.sort_request = forms.sort;
  CK_TRY(ck__gas_spread_start(spread, &gas->config, step, forms, positions,
                              velocities));
  gas->state.strips = ck__gas_spread_strips(spread);
  *result = gas;
  gas = NULL;
fail:
  ck_gas_destroy(gas);
  return status;
}

ck_status ck__gas_wrap_alone(const ck_device *device, ck_gas *whole,
                             ck_gas **result) {
  ck_spread one = {.devices = device, .device_count = 1};
  ck__gas_spread *members = NULL;
  *result = NULL;
  ck_status status = ck__gas_spread_begin(&one, &members);
  if (status) {
    ck_gas_destroy(whole);
    return status;
  }
  /* What the wrapper keeps of it, read before it is taken over. */
  ck_gas_config c = whole->config;
  uint64_t step = whole->step;
  int drew = whole->drew_velocities;
  const gas_state *state = &whole->state;
  ck__gas_forms forms = {state->tiles, state->strips_request,
                         state->sort_request, state->fine_cells,
                         state->list_chunk_request};
  ck__gas_spread_adopt(members, whole);
  status = ck__gas_wrap_spread(members, &c, step, forms, NULL, NULL, result);
  if (status == CK_OK)
    (*result)->drew_velocities = drew;
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
  ck__gas_spread *members = NULL;
  CK_TRY(ck__gas_spread_begin(spread, &members));
  /* A whole box's member picks its neighbours' mode as one device does. */
  ck__gas_place place = ck__gas_spread_place(members);
  CK_TRY(resolve_start(&place, &c, temperature_given, &frame, &box_option));
  CK_TRY(ck__gas_spread_check(&c));
  if (place.device) {
    /* One member: the gas on its device, as ck_gas_create makes it. */
    ck__gas_spread_destroy(members);
    members = NULL;
    CK_TRY(
        make_alone(&spread->devices[0], &c, &frame, box_option, 0, forms, gas));
  } else {
    CK_TRY(start_particles(&c, &frame, box_option, 0, &positions, &velocities));
    ck__gas_spread *taken = members;
    members = NULL;
    CK_TRY(
        ck__gas_wrap_spread(taken, &c, 0, forms, positions, velocities, gas));
    (*gas)->drew_velocities = !frame.velocities;
  }
fail:
  ck__gas_spread_destroy(members);
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
