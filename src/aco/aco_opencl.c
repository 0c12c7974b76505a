/* aco_opencl.c - the OpenCL steps of the ACO: kernels in cl/aco.cl. */
#include <stdio.h>
#include <stdlib.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"

/* items work-items, one an ant: in groups of 32, or of one on a CPU. */
static ck_status launch_single(aco_state *state, ck_kernel *kernel,
                               size_t items) {
  size_t local = state->device.kind == CK_KIND_CPU ? 1 : 32;
  size_t global = (items + local - 1) / local * local;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

/* items ants, a work-group of state->lanes each; or one work-item each when
 * lanes is 1, in groups of 32, or of one on a CPU, whose runtime runs a
 * work-group on one core: a group an ant spreads the ants over the cores. */
static ck_status launch_ants(aco_state *state, ck_kernel *kernel,
                             size_t items) {
  if (state->lanes <= 1)
    return launch_single(state, kernel, items);
  size_t local = state->lanes, global = items * state->lanes;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

static ck_status launch(aco_state *state, ck_kernel *kernel, size_t items) {
  size_t local = state->group;
  size_t global = (items + local - 1) / local * local;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

/* Arguments set again at each launch, by position: the iteration and q0
 * of tour construction, and the tours local search takes and its seeding
 * (cl/aco.cl; the native kernels of cl/aco.cu keep them there too).
 * Setup sets them first, with the rest. */
enum { CONSTRUCT_ITERATION = 4, SEARCH_COUNT = 3 };

void ck__aco_add_construct_arguments(const aco_state *state,
                                     ck_kernel_args *args) {
  ck_kernel_args_u32(args, state->n);
  ck_kernel_args_u32(args, state->ants);
  ck_kernel_args_u32(args, state->first);
  ck_kernel_args_u64(args, state->seed);
  ck_kernel_args_u64(args, 0); /* CONSTRUCT_ITERATION */
  ck_kernel_args_f32(args, state->q0);
  ck_kernel_args_buffer(args, state->matrix);
  ck_kernel_args_buffer(args, state->xy);
  ck_kernel_args_buffer(args, state->neighbours);
  ck_kernel_args_buffer(args, state->choice);
  ck_kernel_args_buffer(args, state->tours);
  ck_kernel_args_buffer(args, state->flags);
  ck_kernel_args_buffer(args, state->lengths);
  ck_kernel_args_buffer(args, state->grid_cells);
  ck_kernel_args_buffer(args, state->grid_box);
}

void ck__aco_add_search_arguments(const aco_state *state,
                                  ck_kernel_args *args) {
  int ranked =
      state->local_search_ants && state->local_search_ants < state->ants;
  ck_kernel_args_u32(args, state->n);
  ck_kernel_args_u32(args, state->longest);
  ck_kernel_args_i32(args, state->or_opt);
  ck_kernel_args_u32(args, ranked ? state->local_search_ants : state->ants);
  ck_kernel_args_i32(args, ranked);        /* SEARCH_COUNT, ranked and */
  ck_kernel_args_i32(args, state->seeded); /* seeded: set at each launch */
  ck_kernel_args_buffer(args, state->best_tour);
  ck_kernel_args_buffer(args, state->best_positions);
  ck_kernel_args_buffer(args, state->order);
  ck_kernel_args_buffer(args, state->matrix);
  ck_kernel_args_buffer(args, state->xy);
  ck_kernel_args_buffer(args, state->neighbours);
  ck_kernel_args_buffer(args, state->tours);
  ck_kernel_args_buffer(args, state->positions);
  ck_kernel_args_buffer(args, state->flags);
  ck_kernel_args_buffer(args, state->lengths);
}

static ck_status opencl_setup(aco_state *state) {
  ck_status status = CK_OK;
  char defines[200];
  snprintf(defines, sizeof defines,
           "-DCK_GROUP=%u -DCK_ACO_METRIC=%d -DCK_ACO_K=%uu -DCK_ACO_LANES=%u",
           (unsigned)state->group, state->metric, (unsigned)state->k,
           (unsigned)state->lanes);
  int groups = state->lanes > 1;
  CK_TRY(ck_program_build(state->queue, "aco", defines, &state->program));
  ck_kernel_args args;
  CK_TRY(ck_kernel_create(state->program,
                          groups ? "ck_aco_build_tours_groups"
                                 : "ck_aco_build_tours",
                          &state->construct_kernel));
  ck_kernel_args_begin(state->construct_kernel, &args);
  ck__aco_add_construct_arguments(state, &args);
  CK_TRY(ck_kernel_args_end(&args));

  CK_TRY(ck_kernel_create(state->program, "ck_aco_count_uses",
                          &state->count_kernel));
  ck_kernel_args_begin(state->count_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->ants);
  ck_kernel_args_buffer(&args, state->neighbours);
  ck_kernel_args_buffer(&args, state->tours);
  ck_kernel_args_buffer(&args, state->uses);
  CK_TRY(ck_kernel_args_end(&args));

  CK_TRY(ck_kernel_create(state->program, "ck_aco_rank", &state->rank_kernel));
  ck_kernel_args_begin(state->rank_kernel, &args);
  ck_kernel_args_u32(&args, state->ants);
  ck_kernel_args_buffer(&args, state->lengths);
  ck_kernel_args_buffer(&args, state->order);
  CK_TRY(ck_kernel_args_end(&args));

  CK_TRY(ck_kernel_create(state->program,
                          groups ? "ck_aco_search_groups" : "ck_aco_search",
                          &state->search_kernel));
  ck_kernel_args_begin(state->search_kernel, &args);
  ck__aco_add_search_arguments(state, &args);
  CK_TRY(ck_kernel_args_end(&args));

  CK_TRY(ck_kernel_create(state->program, "ck_aco_iteration_best",
                          &state->best_kernel));
  ck_kernel_args_begin(state->best_kernel, &args);
  ck_kernel_args_u32(&args, state->ants);
  ck_kernel_args_buffer(&args, state->lengths);
  ck_kernel_args_buffer(&args, state->best);
  CK_TRY(ck_kernel_args_end(&args));

  /* Deposits, updates, rotations and segments set all their arguments
   * at each launch. */
  CK_TRY(ck_kernel_create(state->program, "ck_aco_deposit",
                          &state->deposit_kernel));
  CK_TRY(
      ck_kernel_create(state->program, "ck_aco_update", &state->update_kernel));
  CK_TRY(
      ck_kernel_create(state->program, "ck_aco_rotate", &state->rotate_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_aco_segments",
                          &state->segment_kernel));
  if (state->method == CK_ACO_FOCUSED) {
    CK_TRY(ck_kernel_create(state->program, "ck_aco_focus_keep_sources",
                            &state->focus_keep_kernel));
    CK_TRY(ck_kernel_create(state->program, "ck_aco_focus_copy_tours",
                            &state->focus_copy_kernel));
    CK_TRY(ck_kernel_create(state->program,
                            groups ? "ck_aco_build_focused_groups"
                                   : "ck_aco_build_focused",
                            &state->focus_build_kernel));
    CK_TRY(ck_kernel_create(state->program, "ck_aco_focus_dirty",
                            &state->focus_dirty_kernel));
    CK_TRY(ck_kernel_create(state->program,
                            groups ? "ck_aco_search_focused_groups"
                                   : "ck_aco_search_focused",
                            &state->focus_search_kernel));
  }
fail:
  return status;
}

/* The focused method's ants (aco_ref.c's focused_construct): the source
 * kept from the ants' tours where it is theirs, copied to every ant, then
 * each ant's walk, by a work-item or a work-group an ant as
 * construction. */
static ck_status focused_construct(aco_state *state, uint64_t iteration) {
  ck_status status = CK_OK;
  int64_t *lengths = NULL;
  if (state->focused && state->focus_adaptive) {
    if (!(lengths = malloc((size_t)state->ants * sizeof *lengths)))
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    CK_TRY(ck_buffer_read(state->queue, state->lengths, 0,
                          (size_t)state->ants * sizeof *lengths, lengths,
                          CK_BLOCKING, NULL));
  }
  ck__aco_focus_begin(state, lengths);
  ck__aco_source source = ck__aco_focus_source(state);
  ck_kernel_args args;
  if (source.kept) {
    ck_kernel_args_begin(state->focus_keep_kernel, &args);
    ck_kernel_args_u32(&args, state->n);
    ck_kernel_args_u32(&args, source.kept);
    ck_kernel_args_u32(&args, source.first);
    ck_kernel_args_buffer(&args, state->tours);
    ck_kernel_args_buffer(&args, source.tours);
    ck_kernel_args_buffer(&args, source.positions);
    CK_TRY(ck_kernel_args_end(&args));
    CK_TRY(launch(state, state->focus_keep_kernel,
                  (size_t)source.kept * state->n));
  }
  ck_kernel_args_begin(state->focus_copy_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->ants);
  ck_kernel_args_u64(&args, source.stride);
  ck_kernel_args_buffer(&args, source.tours);
  ck_kernel_args_buffer(&args, state->tours);
  ck_kernel_args_buffer(&args, state->positions);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(
      launch(state, state->focus_copy_kernel, (size_t)state->ants * state->n));
  ck_kernel_args_begin(state->focus_build_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->ants);
  ck_kernel_args_u32(&args, state->first);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_u64(&args, iteration);
  ck_kernel_args_f32(&args, state->q0);
  ck_kernel_args_u32(&args, state->focus_bound);
  ck_kernel_args_u64(&args, (uint64_t)state->focus_source_length);
  ck_kernel_args_u64(&args, source.stride);
  ck_kernel_args_buffer(&args, state->matrix);
  ck_kernel_args_buffer(&args, state->xy);
  ck_kernel_args_buffer(&args, state->neighbours);
  ck_kernel_args_buffer(&args, state->choice);
  ck_kernel_args_buffer(&args, source.tours);
  ck_kernel_args_buffer(&args, source.positions);
  ck_kernel_args_buffer(&args, state->tours);
  ck_kernel_args_buffer(&args, state->positions);
  ck_kernel_args_buffer(&args, state->flags);
  ck_kernel_args_buffer(&args, state->lengths);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_ants(state, state->focus_build_kernel, state->ants));
fail:
  free(lengths);
  return status;
}

/* Local search of `count` focused ants (listed in order when ranked):
 * their dirty cities found over every position, then a search an ant, by
 * a work-item or a work-group as construction. */
static ck_status focused_search(aco_state *state, uint32_t count, int ranked) {
  ck_status status = CK_OK;
  ck__aco_source source = ck__aco_focus_source(state);
  ck_kernel_args args;
  ck_kernel_args_begin(state->focus_dirty_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_i32(&args, ranked);
  ck_kernel_args_buffer(&args, state->order);
  ck_kernel_args_u64(&args, source.stride);
  ck_kernel_args_buffer(&args, source.tours);
  ck_kernel_args_buffer(&args, source.positions);
  ck_kernel_args_buffer(&args, state->tours);
  ck_kernel_args_buffer(&args, state->positions);
  ck_kernel_args_buffer(&args, state->flags);
  ck_kernel_args_buffer(&args, state->queues);
  ck_kernel_args_buffer(&args, state->queued);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch(state, state->focus_dirty_kernel, (size_t)count * state->n));
  ck_kernel_args_begin(state->focus_search_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->longest);
  ck_kernel_args_i32(&args, state->or_opt);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_i32(&args, ranked);
  ck_kernel_args_buffer(&args, state->order);
  ck_kernel_args_buffer(&args, state->matrix);
  ck_kernel_args_buffer(&args, state->xy);
  ck_kernel_args_buffer(&args, state->neighbours);
  ck_kernel_args_buffer(&args, state->tours);
  ck_kernel_args_buffer(&args, state->positions);
  ck_kernel_args_buffer(&args, state->flags);
  ck_kernel_args_buffer(&args, state->queues);
  ck_kernel_args_buffer(&args, state->queued);
  ck_kernel_args_buffer(&args, state->lengths);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_ants(state, state->focus_search_kernel, count));
fail:
  return status;
}

static ck_status opencl_construct(aco_state *state, uint64_t iteration) {
  ck_status status = CK_OK;
  /* Until a best tour exists, every ant builds from scratch. */
  if (state->method == CK_ACO_FOCUSED && state->best_length != INT64_MAX) {
    CK_TRY(focused_construct(state, iteration));
  } else {
    ck_kernel_args args;
    ck_kernel_args_at(state->construct_kernel, CONSTRUCT_ITERATION, &args);
    ck_kernel_args_u64(&args, iteration);
    CK_TRY(ck_kernel_args_f32(&args, state->q0)); /* the focused start's */
    CK_TRY(launch_ants(state, state->construct_kernel, state->ants));
  }
  if (state->algorithm == CK_ACO_ACS)
    CK_TRY(launch(state, state->count_kernel, (size_t)state->ants * state->n));
fail:
  return status;
}

static ck_status opencl_local_search(aco_state *state, const uint32_t *ants,
                                     uint32_t count) {
  ck_status status = CK_OK;
  int ranked =
      state->local_search_ants && state->local_search_ants < state->ants;
  if (ants)
    /* The driver's list, in the ranking's place. */
    CK_TRY(ck_buffer_write(state->queue, state->order, 0,
                           (size_t)count * sizeof *ants, ants, CK_BLOCKING,
                           NULL));
  else
    count = ranked ? state->local_search_ants : state->ants;
  if (ranked && !ants)
    CK_TRY(launch(state, state->rank_kernel, state->ants));
  if (state->focused && state->seeded)
    return focused_search(state, count, ants || ranked);
  ck_kernel_args args;
  ck_kernel_args_at(state->search_kernel, SEARCH_COUNT, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_i32(&args, ants || ranked);
  CK_TRY(ck_kernel_args_i32(&args, state->seeded));
  CK_TRY(launch_ants(state, state->search_kernel, count));
fail:
  return status;
}

static ck_status opencl_iteration_best(aco_state *state, int64_t *length,
                                       uint32_t *ant) {
  ck_status status = CK_OK;
  int64_t best[2];
  size_t one = state->group;
  CK_TRY(
      ck_queue_launch(state->queue, state->best_kernel, 1, &one, &one, NULL));
  CK_TRY(ck_buffer_read(state->queue, state->best, 0, sizeof best, best,
                        CK_BLOCKING, NULL));
  *length = best[0];
  *ant = (uint32_t)best[1];
fail:
  return status;
}

static ck_status opencl_keep_best(aco_state *state, uint32_t ant,
                                  uint32_t *tour) {
  ck_status status = CK_OK;
  size_t bytes = (size_t)state->n * sizeof(uint32_t);
  CK_TRY(ck_buffer_copy(state->queue, state->best_tour, 0, state->tours,
                        (size_t)ant * bytes, bytes, NULL));
  CK_TRY(ck_buffer_read(state->queue, state->best_tour, 0, bytes, tour,
                        CK_BLOCKING, NULL));
fail:
  return status;
}

static ck_status opencl_deposit(aco_state *state, uint32_t ant, float scale,
                                float amount) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  int best = ant == CK__ACO_BEST;
  ck_kernel_args_begin(state->deposit_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_buffer(&args, state->neighbours);
  ck_kernel_args_buffer(&args, best ? state->best_tour : state->tours);
  ck_kernel_args_u64(&args, best ? 0 : (uint64_t)ant * state->n);
  ck_kernel_args_f32(&args, scale);
  ck_kernel_args_f32(&args, amount);
  ck_kernel_args_buffer(&args, state->tau);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch(state, state->deposit_kernel, state->n));
fail:
  return status;
}

static ck_status opencl_update(aco_state *state, float keep, float tau_min,
                               float tau_max) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->update_kernel, &args);
  ck_kernel_args_u32(&args, state->n * state->k);
  ck_kernel_args_buffer(&args, state->uses);
  ck_kernel_args_f32(&args, state->xi);
  ck_kernel_args_f32(&args, state->tau0);
  ck_kernel_args_f32(&args, keep);
  ck_kernel_args_f32(&args, tau_min);
  ck_kernel_args_f32(&args, tau_max);
  ck_kernel_args_f32(&args, state->alpha);
  ck_kernel_args_buffer(&args, state->eta_beta);
  ck_kernel_args_buffer(&args, state->tau);
  ck_kernel_args_buffer(&args, state->choice);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch(state, state->update_kernel, (size_t)state->n * state->k));
fail:
  return status;
}

/* Written from the host rather than by a fill, which Oclgrind counts as
 * uninitialised memory; resets are rare (setup and MMAS restarts). */
static ck_status opencl_reset(aco_state *state, float value) {
  size_t entries = (size_t)state->n * state->k;
  float *values = malloc(entries * sizeof *values);
  if (!values)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t e = 0; e < entries; ++e)
    values[e] = value;
  ck_status status =
      ck_buffer_write(state->queue, state->tau, 0, entries * sizeof *values,
                      values, CK_BLOCKING, NULL);
  free(values);
  return status;
}

static ck_status opencl_partition(aco_state *state, uint32_t size,
                                  uint32_t offset, uint64_t pass,
                                  uint32_t *tour, int64_t *gain) {
  ck_status status = CK_OK;
  uint32_t segments = (state->n + size - 1) / size;
  int64_t *gains = malloc((size_t)segments * sizeof *gains);
  if (!gains)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__aco_segment_scratch(state, size));
  ck_kernel_args args;
  ck_kernel_args_begin(state->rotate_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, offset);
  ck_kernel_args_buffer(&args, state->best_tour);
  ck_kernel_args_buffer(&args, state->segment_tour);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch(state, state->rotate_kernel, state->n));
  ck_kernel_args_begin(state->segment_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, size);
  ck_kernel_args_u32(&args, segments);
  ck_kernel_args_i32(&args, state->or_opt);
  ck_kernel_args_u32(&args, ck__aco_kicks(state, size));
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_u64(&args, pass);
  ck_kernel_args_buffer(&args, state->matrix);
  ck_kernel_args_buffer(&args, state->xy);
  ck_kernel_args_buffer(&args, state->segment_tour);
  ck_kernel_args_buffer(&args, state->segment_scratch);
  ck_kernel_args_buffer(&args, state->segment_gain);
  CK_TRY(ck_kernel_args_end(&args));
  /* A work-group a segment: the segments are serial searches, one to a
   * compute unit. */
  size_t one = 1, count = segments;
  CK_TRY(ck_queue_launch(state->queue, state->segment_kernel, 1, &count, &one,
                         NULL));
  CK_TRY(ck_buffer_read(state->queue, state->segment_gain, 0,
                        (size_t)segments * sizeof *gains, gains, CK_BLOCKING,
                        NULL));
  *gain = 0;
  for (uint32_t i = 0; i < segments; ++i)
    *gain += gains[i];
  /* Without a gain the best tour stays as it was (and matches the
   * positions uploaded with it); no copy, no read. */
  if (*gain > 0) {
    size_t bytes = (size_t)state->n * sizeof(uint32_t);
    CK_TRY(ck_buffer_copy(state->queue, state->best_tour, 0,
                          state->segment_tour, 0, bytes, NULL));
    CK_TRY(ck_buffer_read(state->queue, state->best_tour, 0, bytes, tour,
                          CK_BLOCKING, NULL));
  }
fail:
  free(gains);
  return status;
}

static void opencl_teardown(aco_state *state) {
  ck_kernel *kernels[] = {
      state->construct_kernel,   state->count_kernel,
      state->rank_kernel,        state->search_kernel,
      state->best_kernel,        state->deposit_kernel,
      state->update_kernel,      state->rotate_kernel,
      state->segment_kernel,     state->focus_keep_kernel,
      state->focus_copy_kernel,  state->focus_build_kernel,
      state->focus_dirty_kernel, state->focus_search_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(state->program);
}

const ck__aco_steps ck__aco_opencl_steps = {
    .setup = opencl_setup,
    .construct = opencl_construct,
    .local_search = opencl_local_search,
    .iteration_best = opencl_iteration_best,
    .keep_best = opencl_keep_best,
    .deposit = opencl_deposit,
    .update = opencl_update,
    .reset = opencl_reset,
    .partition = opencl_partition,
    .teardown = opencl_teardown,
};
