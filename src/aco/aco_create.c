/*
 * aco_create.c - a colony's creation: configuration checks, the settings
 * drawn from the device and the instance, the graph and the colony's
 * buffers on the device as a member's slice, and a colony of members
 * (one on one device).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"
#include "framework/framework.h"
#include "tsp/tsp_internal.h"

enum {
  MATRIX_LIMIT = 4096, /* distances come from a matrix up to this n */
  GROUP = 64
};

/* Per-ant work arrays, at most this many bytes when ants are automatic. */
#define AUTO_ANT_BYTES (512.0 * 1024 * 1024)

ck_status ck_aco_config_init(ck_aco_config *config) {
  CK__REQUIRE(config);
  memset(config, 0, sizeof *config);
  ck__fields_init(config, ck__aco_fields, CK__ACO_FIELDS);
  return CK_OK;
}

static ck_status check_config(const ck_aco_config *config, uint32_t n) {
  const ck__field *fields = ck__aco_fields;
  ck_status status =
      ck__fields_check("ck_aco_config", config, fields, CK__ACO_FIELDS);
  if (status)
    return status;
  if (config->candidates >= n)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_aco_config.candidates: %u is not below the %u cities",
                    config->candidates, n);
  /* Negative: automatic. */
  if ((!(config->rho < 0) &&
       (status =
            ck__field_check("ck_aco_config", config, &fields[CK__ACO_RHO]))) ||
      (!(config->q0 < 0) && (status = ck__field_check("ck_aco_config", config,
                                                      &fields[CK__ACO_Q0]))))
    return status;
  if (config->lanes & (config->lanes - 1))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_aco_config.lanes: %u is not 1 or a power of two",
                    config->lanes);
  if (config->partition > n)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_aco_config.partition: segments of %u cities, but the "
                    "instance has %u",
                    config->partition, n);
  if (config->has_target && !config->optimum)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_aco_config.target_gap: needs a known optimum");
  if (config->has_target)
    return ck__field_check("ck_aco_config", config,
                           &fields[CK__ACO_TARGET_GAP]);
  return CK_OK;
}

/* Bytes an ant keeps a city: its tour, positions and flags; a focused
 * ant's queue; and the source tour and positions of an ant whose source
 * is its own last tour. */
static double ant_city_bytes(int focused, ck_aco_focus_source source) {
  return !focused ? 9.0 : source == CK_ACO_SOURCE_OWN ? 21.0 : 13.0;
}

/* Ants when the configuration leaves it to clkit, on a GPU (a multiple of
 * 32; an ant is a work-group): four a compute unit for a classic colony,
 * two for a focused one (which takes at least 4 sqrt(n) anyway). On an
 * H200 (132 units) a classic iteration of 512 ants took about as long as
 * one of 256, and pr2392 came within 0.17% in 10 s, against 0.27% (mean
 * of 6 seeds; 1024 ants gave 0.18%). On a CPU, four a core. Fewer when
 * the per-ant arrays would pass AUTO_ANT_BYTES. */
uint32_t ck__aco_automatic_ants(const ck_device *device, uint32_t n,
                                int focused, ck_aco_focus_source source) {
  double ants;
  if (!ck__device_runs_kernels(device))
    ants = 16;
  else if (device->kind == CK_KIND_CPU)
    ants = 4.0 * (device->compute_units ? device->compute_units : 1);
  else
    ants = (focused ? 2.0 : 4.0) *
           (device->compute_units ? device->compute_units : 16);
  /* A focused ant makes a few changes, not a tour: on a GPU, at least
   * 4 sqrt(n) of them to the nearest 64 (Skinderowicz 2022's count). */
  double many = 64.0 * floor(4.0 * sqrt((double)n) / 64.0 + 0.5);
  if (focused && device->kind == CK_KIND_GPU &&
      ck__device_runs_kernels(device) && ants < many)
    ants = many;
  ants = ants < 16 ? 16 : ants > 1024 ? 1024 : ants;
  double fit = AUTO_ANT_BYTES / (ant_city_bytes(focused, source) * n);
  if (ants > fit)
    ants = fit < 4 ? 4 : fit;
  uint32_t whole = (uint32_t)ants;
  return whole >= 64 ? whole / 32 * 32 : whole;
}

ck_aco_method ck__aco_method_for(const ck_device *device, uint32_t n,
                                 ck_aco_method asked) {
  if (asked != CK_ACO_METHOD_AUTO)
    return asked;
  int gpu = ck__device_is_gpu(device);
  int wide = gpu || device->compute_units >= CK_ACO_WIDE_CPU_UNITS;
  return n >= (wide ? CK_ACO_FOCUS_FROM_GPU : CK_ACO_FOCUS_FROM_CPU)
             ? CK_ACO_FOCUSED
             : CK_ACO_CLASSIC;
}

/* Whether the device's runtime can compile the group kernels: PoCL 5's
 * kernel compiler aborts the process on them (an assertion in its
 * work-item loop pass), so they are refused there rather than built. */
static int group_kernels_supported(const ck_device *device) {
  int pocl = ck__device_pocl_major(device);
  return device->kind != CK_KIND_CPU || !pocl || pocl < 5;
}

static ck_status make(aco_state *state, size_t bytes, ck_buffer **buffer) {
  return ck__buffer_make(state->queue, bytes, buffer);
}

uint32_t ck__aco_kicks(const aco_state *state, uint32_t size) {
  return state->kicks == CK_ACO_KICKS_SEGMENT ? size : state->kicks;
}

ck_status ck__aco_segment_scratch(aco_state *state, uint32_t size) {
  size_t segments = (state->n + size - 1) / size;
  size_t bytes = segments * (size_t)ck_aco_segment_words(size, state->k) * 4;
  size_t held = 0;
  if (state->segment_scratch)
    ck_buffer_get_size(state->segment_scratch, &held);
  if (held >= bytes)
    return CK_OK;
  ck_buffer_destroy(state->segment_scratch);
  state->segment_scratch = NULL;
  return make(state, bytes, &state->segment_scratch);
}

static ck_status upload(aco_state *state, ck_buffer *buffer, const void *data,
                        size_t bytes) {
  return ck_buffer_write(state->queue, buffer, 0, bytes, data, CK_BLOCKING,
                         NULL);
}

/* Entry `index` of an array of the device's coordinates (ck_tsp_coord:
 * doubles, or floats without fp64). */
static void store_coordinate(const aco_state *state, void *array, size_t index,
                             double value) {
  if (state->coord_size == sizeof(double))
    ((double *)array)[index] = value;
  else
    ((float *)array)[index] = (float)value;
}

/* The instance's distance matrix onto the device, checked (n x n int32),
 * with a token coordinate buffer. */
static ck_status upload_matrix(aco_state *state,
                               const ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  uint32_t n = state->n;
  int32_t *matrix = malloc((size_t)n * n * sizeof *matrix);
  if (!matrix)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of host memory for a %u x %u "
            "distance matrix",
            n, n);
  /* The parser holds distances to CK_TSP_MAX_DISTANCE, so that the
   * local search's sums of four fit an int, and EXPLICIT matrices to
   * symmetry; an instance made otherwise is checked here. */
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      int64_t d = ck__tsp_distance_of(instance, i, j);
      if (d < 0 || d > CK_TSP_MAX_DISTANCE)
        CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
                "instance %s: the distance from city %u to %u is %lld, "
                "outside 0..%d",
                instance->name, i, j, (long long)d, CK_TSP_MAX_DISTANCE);
      if (instance->metric == CK_TSP_EXPLICIT && j < i &&
          matrix[(size_t)j * n + i] != (int32_t)d)
        CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
                "instance %s: the distance from city %u to %u is %lld, "
                "from %u to %u %d; the ACO needs a symmetric instance",
                instance->name, i, j, (long long)d, j, i,
                matrix[(size_t)j * n + i]);
      matrix[(size_t)i * n + j] = (int32_t)d;
    }
  CK_TRY(make(state, (size_t)n * n * sizeof *matrix, &state->matrix));
  CK_TRY(upload(state, state->matrix, matrix, (size_t)n * n * sizeof *matrix));
  CK_TRY(make(state, 8, &state->xy));
fail:
  free(matrix);
  return status;
}

/* The cities' coordinates onto the device (ck_tsp_coord pairs), with the
 * grid of cities and its box, and a token matrix buffer. */
static ck_status upload_coordinates(aco_state *state,
                                    const ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  uint32_t n = state->n;
  uint32_t *grid_cells = NULL;
  double grid_box[4]; /* room for 4 of either width */
  void *xy = malloc((size_t)n * 2 * state->coord_size);
  if (!xy)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (uint32_t i = 0; i < n; ++i) {
    store_coordinate(state, xy, 2 * (size_t)i, instance->x[i]);
    store_coordinate(state, xy, 2 * (size_t)i + 1, instance->y[i]);
  }
  CK_TRY(make(state, (size_t)n * 2 * state->coord_size, &state->xy));
  CK_TRY(upload(state, state->xy, xy, (size_t)n * 2 * state->coord_size));
  CK_TRY(make(state, sizeof(int32_t), &state->matrix));
  double box[4];
  size_t count = 0;
  CK_TRY(ck__tsp_grid_pack(instance, "the cities' grid", &grid_cells, &count,
                           box));
  CK_TRY(make(state, count * sizeof *grid_cells, &state->grid_cells));
  CK_TRY(
      upload(state, state->grid_cells, grid_cells, count * sizeof *grid_cells));
  for (int i = 0; i < 4; ++i)
    store_coordinate(state, grid_box, (size_t)i, box[i]);
  CK_TRY(make(state, 4 * state->coord_size, &state->grid_box));
  CK_TRY(upload(state, state->grid_box, grid_box, 4 * state->coord_size));
fail:
  free(xy);
  free(grid_cells);
  return status;
}

/* Each city's k candidates and their eta^beta onto the device, and tau0
 * from the nearest-neighbour tour over them. */
static ck_status upload_candidates(ck_aco *aco,
                                   const ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  uint32_t n = state->n, k = state->k;
  size_t entries = (size_t)n * k;
  uint32_t *neighbours = malloc(entries * sizeof *neighbours);
  float *eta_beta = malloc(entries * sizeof *eta_beta);
  if (!neighbours || !eta_beta)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for candidate lists");
  CK_TRY(ck_tsp_find_candidates(instance, k, neighbours));
  for (size_t e = 0; e < entries; ++e) {
    int64_t d = ck__tsp_distance_of(instance, (uint32_t)(e / k), neighbours[e]);
    /* eta = 1 / (d + 0.1): finite for coincident cities. */
    eta_beta[e] = (float)pow(1.0 / ((double)d + 0.1), aco->config.beta);
  }
  int64_t nearest = 0;
  CK_TRY(ck__tsp_nearest_neighbour_length(instance, neighbours, k, &nearest));
  state->tau0 = aco->config.algorithm == CK_ACO_ACS
                    ? (float)(1.0 / ((double)n * (double)nearest))
                    : (float)(1.0 / (aco->rho * (double)nearest));
  CK_TRY(make(state, entries * sizeof *neighbours, &state->neighbours));
  CK_TRY(upload(state, state->neighbours, neighbours,
                entries * sizeof *neighbours));
  CK_TRY(make(state, entries * sizeof *eta_beta, &state->eta_beta));
  CK_TRY(upload(state, state->eta_beta, eta_beta, entries * sizeof *eta_beta));
fail:
  free(neighbours);
  free(eta_beta);
  return status;
}

/* Distances, coordinates, candidates and eta^beta onto the device. */
static ck_status upload_graph(ck_aco *aco, const ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  if (state->metric == CK_ACO_FROM_MATRIX)
    CK_TRY(upload_matrix(state, instance));
  else
    CK_TRY(upload_coordinates(state, instance));
  if (!state->grid_cells) {
    CK_TRY(make(state, sizeof(uint32_t), &state->grid_cells));
    CK_TRY(make(state, sizeof(double), &state->grid_box));
  }
  CK_TRY(upload_candidates(aco, instance));
fail:
  return status;
}

/* The colony's settings, from the configuration, the instance and the
 * device. */
static ck_status tune(ck_aco *created, const ck_device *device,
                      const ck_tsp_instance *instance,
                      const ck_aco_config *config) {
  ck_status status = CK_OK;
  created->config = *config;
  created->best_length = INT64_MAX;
  aco_state *state = &created->state;
  state->device = *device;
  state->instance = instance;
  state->n = instance->cities;
  uint32_t n = state->n;
  state->k =
      config->candidates ? config->candidates : (n - 1 < 20 ? n - 1 : 20);
  state->method = ck__aco_method_for(device, n, config->method);
  state->ants =
      config->ants
          ? config->ants
          : ck__aco_automatic_ants(device, n, state->method == CK_ACO_FOCUSED,
                                   config->focus_source);
  state->algorithm = config->algorithm;
  state->local_search = config->local_search != CK_ACO_LS_NONE;
  state->or_opt = config->local_search == CK_ACO_LS_2OPT_OROPT;
  state->local_search_ants = config->local_search_ants;
  state->longest = config->longest_move ? config->longest_move : n;
  state->seed = config->seed;
  state->kicks = config->kicks;
  state->best_length = INT64_MAX;
  state->focus_adaptive = config->focus_edges == 0;
  state->focus_source = config->focus_source;
  state->focus_bound =
      config->focus_edges ? config->focus_edges : CK_ACO_FOCUS_FIRST;
  state->alpha = (float)config->alpha;
  state->xi = (float)config->xi;
  state->q0 = config->algorithm == CK_ACO_ACS
                  ? (float)(config->q0 < 0 ? ck__aco_fields[CK__ACO_Q0].value
                                           : config->q0)
                  : 0.0f;
  state->group = GROUP;
  state->lanes = config->lanes ? config->lanes
                 : device->kind == CK_KIND_GPU
                     ? (device->warp_width >= 2 && device->warp_width <= 256
                            ? device->warp_width
                            : 32)
                     : 1;
  if (state->lanes > 1 && ck__device_runs_kernels(device) &&
      !group_kernels_supported(device))
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "ck_aco_config.lanes: %u work-items an ant need the group "
            "kernels, which the kernel compiler of %s aborts on; use 1 lane "
            "on device %s",
            state->lanes, device->platform_version, device->id);
  /* ref makes the same choices as either form and has no work-groups: it
   * takes --lanes and ignores it, as every device's form options, so that
   * compare can give every device the same ones. */
  if (ck__device_runs_kernels(device) && device->max_work_group_size &&
      state->lanes > device->max_work_group_size)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_aco_config.lanes: %u is above the work-group limit of "
            "device %s (%zu)",
            state->lanes, device->id, device->max_work_group_size);
  created->rho = config->rho > 0                   ? config->rho
                 : config->algorithm == CK_ACO_ACS ? 0.1
                 : state->local_search             ? 0.2
                                                   : 0.02;
  created->p_best = config->p_best;
  int needs_matrix =
      instance->metric == CK_TSP_GEO || instance->metric == CK_TSP_EXPLICIT;
  state->metric = needs_matrix || n <= MATRIX_LIMIT ? CK_ACO_FROM_MATRIX
                                                    : (int)instance->metric;
  if (needs_matrix && n > 2 * MATRIX_LIMIT)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "instance %s: %u cities of a GEO or EXPLICIT metric need an n x n "
            "matrix; clkit keeps one up to %d cities",
            instance->name, n, 2 * MATRIX_LIMIT);
  int fp64 = ck__device_has_fp64(device);
  state->coord_size = fp64 ? sizeof(double) : sizeof(float);
fail:
  return status;
}

/* Once the device is known to hold the colony: the host's copies of the
 * best tour, and the steps. */
static ck_status allocate(ck_aco *created, const ck_device *device) {
  ck_status status = CK_OK;
  aco_state *state = &created->state;
  uint32_t n = state->n;
  int focused = state->method == CK_ACO_FOCUSED;
  double per_ant = ant_city_bytes(focused, state->focus_source) * n + 16.0;
  /* The iteration's best tour as a source: its tour and positions. */
  double source =
      focused && state->focus_source == CK_ACO_SOURCE_ITERATION ? 8.0 * n : 0.0;
  double bytes = per_ant * state->ants + source +
                 (state->metric == CK_ACO_FROM_MATRIX ? 4.0 * n * n : 0.0) +
                 (double)n * state->k * 20.0 + 32.0 * n;
  if ((status = ck__device_memory_check(device, bytes)))
    CK_FAIL_PREFIX(status, "%u ants on %u cities need ", state->ants, n);
  created->best_tour = malloc((size_t)n * sizeof *created->best_tour);
  created->best_positions = malloc((size_t)n * sizeof *created->best_positions);
  if (!created->best_tour || !created->best_positions)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");

  /* Construction and local search natively where those kernels serve the
   * configuration; elsewhere the OpenCL steps, built for CUDA. */
  created->steps = ck__steps_pick(
      device, &ck__aco_ref_steps, &ck__aco_opencl_steps,
      CK__CUDA_STEPS(device, ck__aco_cuda_steps, ck__aco_cuda_supports(state)),
      &created->merged_steps, sizeof created->merged_steps);
fail:
  return status;
}

/* The focused source's own tours and positions: the iteration's best, or
 * every ant's last (with their lengths on the host when the bound
 * adapts). The best tour needs none. */
static ck_status make_sources(aco_state *state) {
  ck_status status = CK_OK;
  if (state->focus_source == CK_ACO_SOURCE_BEST)
    return CK_OK;
  int own = state->focus_source == CK_ACO_SOURCE_OWN;
  size_t entries = (size_t)state->n * (own ? state->ants : 1);
  CK_TRY(make(state, entries * sizeof(uint32_t), &state->source_tours));
  CK_TRY(make(state, entries * sizeof(uint32_t), &state->source_positions));
  if (own && state->focus_adaptive &&
      !(state->source_lengths =
            malloc((size_t)state->ants * sizeof *state->source_lengths)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
fail:
  return status;
}

/* The queue, then the graph and the colony's buffers on the device. */
static ck_status upload_colony(ck_aco *created, const ck_device *device,
                               const ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  aco_state *state = &created->state;
  uint32_t n = state->n;
  CK_TRY(ck_queue_create(device, &state->queue));
  CK_TRY(upload_graph(created, instance));
  size_t entries = (size_t)n * state->k, per = (size_t)state->ants * n;
  CK_TRY(make(state, entries * sizeof(float), &state->tau));
  CK_TRY(make(state, entries * sizeof(float), &state->choice));
  CK_TRY(make(state, entries * sizeof(uint32_t), &state->uses));
  /* Zeros written from the host rather than by a fill: Oclgrind counts
   * filled memory as uninitialised. */
  uint32_t *zeros = calloc(entries, sizeof *zeros);
  if (!zeros)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  status = upload(state, state->uses, zeros, entries * sizeof *zeros);
  free(zeros);
  CK_TRY(status);
  CK_TRY(make(state, per * sizeof(uint32_t), &state->tours));
  CK_TRY(
      make(state, (per > n ? per : n) * sizeof(uint32_t), &state->positions));
  CK_TRY(make(state, per, &state->flags));
  if (state->method == CK_ACO_FOCUSED) {
    CK_TRY(make(state, per * sizeof(uint32_t), &state->queues));
    CK_TRY(make(state, (size_t)state->ants * sizeof(uint32_t), &state->queued));
    zeros = calloc(state->ants, sizeof *zeros);
    if (!zeros)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    status = upload(state, state->queued, zeros,
                    (size_t)state->ants * sizeof *zeros);
    free(zeros);
    CK_TRY(status);
    CK_TRY(make_sources(state));
  }
  CK_TRY(make(state, (size_t)state->ants * sizeof(int64_t), &state->lengths));
  CK_TRY(make(state, (size_t)state->ants * sizeof(uint32_t), &state->order));
  CK_TRY(make(state, 2 * sizeof(int64_t), &state->best));
  CK_TRY(make(state, (size_t)n * sizeof(uint32_t), &state->best_tour));
  CK_TRY(make(state, (size_t)n * sizeof(uint32_t), &state->best_positions));
  CK_TRY(make(state, (size_t)n * sizeof(uint32_t), &state->segment_tour));
  CK_TRY(
      make(state, ((size_t)n / 8 + 1) * sizeof(int64_t), &state->segment_gain));
fail:
  return status;
}

/* The steps' setup and the first pheromone. */
static ck_status set_up(ck_aco *created) {
  ck_status status = CK_OK;
  aco_state *state = &created->state;
  CK_TRY(created->steps->setup(state));
  /* Every edge starts at tau0 (tau_max of the nearest-neighbour tour for
   * MMAS); the update computes the first choice weights. */
  CK_TRY(created->steps->reset(state, state->tau0));
  CK_TRY(created->steps->update(state, 1.0f, 0.0f, 3.0e38f));
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

/* What every ACO is checked for before anything is made: the instance
 * and the configuration; caller names the function in messages. */
static ck_status check_input(const ck_tsp_instance *instance,
                             const ck_aco_config *config, const char *caller) {
  ck_status status = CK_OK;
  /* First, so that every count below the least (0 too) has one message. */
  if (instance->cities < CK_ACO_MIN_CITIES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: instance %.*s has %u cities; the ACO needs at least "
                    "%u",
                    caller, (int)sizeof instance->name, instance->name,
                    instance->cities, CK_ACO_MIN_CITIES);
  /* Once for the instance; the graph's loops then take its distances
   * unchecked. */
  CK_TRY(ck__tsp_check_distances(instance, caller));
  CK_TRY(check_config(config, instance->cities));
fail:
  return status;
}

ck_status ck__aco_slice_allocate(const ck_device *device,
                                 const ck_tsp_instance *instance,
                                 const ck_aco_config *config, uint32_t first,
                                 ck_aco **aco) {
  ck_status status = CK_OK;
  ck_aco *created = calloc(1, sizeof *created);
  *aco = NULL;
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for an ACO");
  CK_TRY(tune(created, device, instance, config));
  created->state.first = first;
  CK_TRY(allocate(created, device));
  double started = ck__seconds();
  CK_TRY(upload_colony(created, device, instance));
  created->setup_s = ck__seconds() - started;
  *aco = created;
  return CK_OK;
fail:
  ck_aco_destroy(created);
  return status;
}

ck_status ck__aco_slice_set_up(ck_aco *aco) {
  double started = ck__seconds();
  ck_status status = set_up(aco);
  aco->setup_s += ck__seconds() - started;
  return status;
}

ck_status ck__aco_create_slice(const ck_device *device,
                               const ck_tsp_instance *instance,
                               const ck_aco_config *config, uint32_t first,
                               ck_aco **aco) {
  ck_status status =
      ck__aco_slice_allocate(device, instance, config, first, aco);
  if (status == CK_OK && (status = ck__aco_slice_set_up(*aco)) != CK_OK) {
    ck_aco_destroy(*aco);
    *aco = NULL;
  }
  return status;
}

/* A colony over spread's devices (one member a device): the driver's
 * settings are any member's, its ants the colony's; the buffers and the
 * queues stay the members'. */
static ck_status create_colony(const ck_spread *spread,
                               const ck_tsp_instance *instance,
                               const ck_aco_config *config, ck_aco **aco) {
  ck_status status = CK_OK;
  /* The host's memory first: a process that failed once the members
   * exist would leave the others waiting. */
  size_t n = instance->cities;
  ck_aco *created = calloc(1, sizeof *created);
  if (created) {
    created->best_tour = malloc(n * sizeof *created->best_tour);
    created->best_positions = malloc(n * sizeof *created->best_positions);
  }
  if (!created || !created->best_tour || !created->best_positions)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for an ACO");
  double started = ck__seconds();
  CK_TRY(ck__aco_spread_create(spread, instance, config, &created->spread));
  const ck_aco *model = ck__aco_spread_member(created->spread);
  const aco_state *from = &model->state;
  aco_state *state = &created->state;
  created->config = *config;
  created->rho = model->rho;
  created->p_best = model->p_best;
  created->best_length = INT64_MAX;
  state->device = from->device;
  state->instance = instance;
  state->n = from->n;
  state->k = from->k;
  state->ants = ck__aco_spread_ants(created->spread);
  state->algorithm = from->algorithm;
  state->local_search = from->local_search;
  state->method = from->method;
  state->kicks = from->kicks;
  created->setup_s = ck__seconds() - started;
  *aco = created;
  return CK_OK;
fail:
  ck_aco_destroy(created);
  return status;
}

/* A public create's checks (caller names it), then the colony over
 * spread's devices. */
static ck_status create_checked(const char *caller, const ck_spread *spread,
                                const ck_tsp_instance *instance,
                                const ck_aco_config *config, ck_aco **aco) {
  CK__REQUIRE_IN(caller, instance);
  CK__REQUIRE_IN(caller, config);
  CK__REQUIRE_IN(caller, aco);
  *aco = NULL;
  ck_status status = check_input(instance, config, caller);
  return status ? status : create_colony(spread, instance, config, aco);
}

/* A colony on one device is a colony of one member. */
ck_status ck_aco_create(const ck_device *device,
                        const ck_tsp_instance *instance,
                        const ck_aco_config *config, ck_aco **aco) {
  CK__REQUIRE(device);
  const ck_spread one = {.devices = device, .device_count = 1};
  return create_checked(__func__, &one, instance, config, aco);
}

ck_status ck_aco_create_spread(const ck_spread *spread,
                               const ck_tsp_instance *instance,
                               const ck_aco_config *config, ck_aco **aco) {
  CK__REQUIRE(spread);
  return create_checked(__func__, spread, instance, config, aco);
}
