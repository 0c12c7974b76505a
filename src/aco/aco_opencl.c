/* aco_opencl.c - the OpenCL steps of the ACO: kernels in cl/aco.cl. */
#include <stdio.h>
#include <stdlib.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"

/* items ants, a work-group of s->lanes each; or one work-item each when
 * lanes is 1, in groups of 32, or of one on a CPU, whose runtime runs a
 * work-group on one core: a group an ant spreads the ants over the cores. */
static ck_status launch_ants(aco_state *s, ck_kernel *kernel, size_t items) {
  if (s->lanes <= 1) {
    size_t local = s->device.kind == CK_KIND_CPU ? 1 : 32;
    size_t global = (items + local - 1) / local * local;
    return ck_queue_launch(s->queue, kernel, 1, &global, &local, NULL);
  }
  size_t local = s->lanes, global = items * s->lanes;
  return ck_queue_launch(s->queue, kernel, 1, &global, &local, NULL);
}

static ck_status launch(aco_state *s, ck_kernel *kernel, size_t items) {
  size_t local = s->group;
  size_t global = (items + local - 1) / local * local;
  return ck_queue_launch(s->queue, kernel, 1, &global, &local, NULL);
}

#define SET_VALUE(kernel, index, value)                                        \
  CK_TRY(ck_kernel_set_value(kernel, index, sizeof(value), &(value)))
#define SET_BUFFER(kernel, index, buffer)                                      \
  CK_TRY(ck_kernel_set_buffer(kernel, index, buffer))

ck_status ck__aco_set_construct_arguments(aco_state *s, ck_kernel *k) {
  ck_status status = CK_OK;
  SET_VALUE(k, 0, s->n);
  SET_VALUE(k, 1, s->ants);
  SET_VALUE(k, 2, s->seed);
  SET_VALUE(k, 4, s->q0);
  SET_BUFFER(k, 5, s->matrix);
  SET_BUFFER(k, 6, s->xy);
  SET_BUFFER(k, 7, s->neighbours);
  SET_BUFFER(k, 8, s->choice);
  SET_BUFFER(k, 9, s->tours);
  SET_BUFFER(k, 10, s->flags);
  SET_BUFFER(k, 11, s->lengths);
fail:
  return status;
}

ck_status ck__aco_set_search_arguments(aco_state *s, ck_kernel *k) {
  ck_status status = CK_OK;
  int ranked = s->local_search_ants && s->local_search_ants < s->ants;
  uint32_t count = ranked ? s->local_search_ants : s->ants;
  SET_VALUE(k, 0, s->n);
  SET_VALUE(k, 1, s->longest);
  SET_VALUE(k, 2, s->or_opt);
  SET_VALUE(k, 3, count);
  SET_VALUE(k, 4, ranked);
  SET_BUFFER(k, 6, s->best_tour);
  SET_BUFFER(k, 7, s->best_positions);
  SET_BUFFER(k, 8, s->order);
  SET_BUFFER(k, 9, s->matrix);
  SET_BUFFER(k, 10, s->xy);
  SET_BUFFER(k, 11, s->neighbours);
  SET_BUFFER(k, 12, s->tours);
  SET_BUFFER(k, 13, s->positions);
  SET_BUFFER(k, 14, s->flags);
  SET_BUFFER(k, 15, s->lengths);
fail:
  return status;
}

static ck_status opencl_setup(aco_state *s) {
  ck_status status = CK_OK;
  char defines[200];
  snprintf(defines, sizeof defines,
           "-DCK_GROUP=%u -DCK_ACO_METRIC=%d -DCK_ACO_K=%uu -DCK_ACO_LANES=%u",
           (unsigned)s->group, s->metric, (unsigned)s->k, (unsigned)s->lanes);
  int groups = s->lanes > 1;
  CK_TRY(ck_program_build(s->queue, "aco", defines, &s->program));
  ck_kernel *k;
  CK_TRY(ck_kernel_create(
      s->program, groups ? "ck_aco_build_tours_groups" : "ck_aco_build_tours",
      &k));
  s->construct_kernel = k;
  CK_TRY(ck__aco_set_construct_arguments(s, k));

  CK_TRY(ck_kernel_create(s->program, "ck_aco_count_uses", &k));
  s->count_kernel = k;
  SET_VALUE(k, 0, s->n);
  SET_VALUE(k, 1, s->ants);
  SET_BUFFER(k, 2, s->neighbours);
  SET_BUFFER(k, 3, s->tours);
  SET_BUFFER(k, 4, s->uses);

  CK_TRY(ck_kernel_create(s->program, "ck_aco_rank", &k));
  s->rank_kernel = k;
  SET_VALUE(k, 0, s->ants);
  SET_BUFFER(k, 1, s->lengths);
  SET_BUFFER(k, 2, s->order);

  CK_TRY(ck_kernel_create(
      s->program, groups ? "ck_aco_search_groups" : "ck_aco_search", &k));
  s->search_kernel = k;
  CK_TRY(ck__aco_set_search_arguments(s, k));

  CK_TRY(ck_kernel_create(s->program, "ck_aco_iteration_best", &k));
  s->best_kernel = k;
  SET_VALUE(k, 0, s->ants);
  SET_BUFFER(k, 1, s->lengths);
  SET_BUFFER(k, 2, s->best);

  CK_TRY(ck_kernel_create(s->program, "ck_aco_deposit", &k));
  s->deposit_kernel = k;
  SET_VALUE(k, 0, s->n);
  SET_BUFFER(k, 1, s->neighbours);

  CK_TRY(ck_kernel_create(s->program, "ck_aco_update", &k));
  s->update_kernel = k;
  uint32_t entries = s->n * s->k;
  SET_VALUE(k, 0, entries);
  SET_BUFFER(k, 1, s->uses);
  SET_VALUE(k, 2, s->xi);
  SET_VALUE(k, 3, s->tau0);
  SET_VALUE(k, 7, s->alpha);
  SET_BUFFER(k, 8, s->eta_beta);
  SET_BUFFER(k, 9, s->tau);
  SET_BUFFER(k, 10, s->choice);

  CK_TRY(ck_kernel_create(s->program, "ck_aco_rotate", &k));
  s->rotate_kernel = k;
  SET_VALUE(k, 0, s->n);
  SET_BUFFER(k, 2, s->best_tour);
  SET_BUFFER(k, 3, s->segment_tour);

  CK_TRY(ck_kernel_create(s->program, "ck_aco_segments", &k));
  s->segment_kernel = k;
  SET_VALUE(k, 0, s->n);
  SET_VALUE(k, 3, s->or_opt);
  SET_VALUE(k, 5, s->seed);
  SET_BUFFER(k, 7, s->matrix);
  SET_BUFFER(k, 8, s->xy);
  SET_BUFFER(k, 9, s->segment_tour);
  SET_BUFFER(k, 11, s->segment_gain);
fail:
  return status;
}

static ck_status opencl_construct(aco_state *s, uint64_t iteration) {
  ck_status status = CK_OK;
  SET_VALUE(s->construct_kernel, 3, iteration);
  CK_TRY(launch_ants(s, s->construct_kernel, s->ants));
  if (s->algorithm == CK_ACO_ACS)
    CK_TRY(launch(s, s->count_kernel, (size_t)s->ants * s->n));
fail:
  return status;
}

static ck_status opencl_local_search(aco_state *s) {
  ck_status status = CK_OK;
  int ranked = s->local_search_ants && s->local_search_ants < s->ants;
  SET_VALUE(s->search_kernel, 5, s->seeded);
  if (ranked)
    CK_TRY(launch(s, s->rank_kernel, s->ants));
  CK_TRY(launch_ants(s, s->search_kernel,
                     ranked ? s->local_search_ants : s->ants));
fail:
  return status;
}

static ck_status opencl_iteration_best(aco_state *s, int64_t *length,
                                       uint32_t *ant) {
  ck_status status = CK_OK;
  int64_t best[2];
  size_t one = s->group;
  CK_TRY(ck_queue_launch(s->queue, s->best_kernel, 1, &one, &one, NULL));
  CK_TRY(ck_buffer_read(s->queue, s->best, 0, sizeof best, best, CK_BLOCKING,
                        NULL));
  *length = best[0];
  *ant = (uint32_t)best[1];
fail:
  return status;
}

static ck_status opencl_keep_best(aco_state *s, uint32_t ant, uint32_t *tour) {
  ck_status status = CK_OK;
  size_t bytes = (size_t)s->n * sizeof(uint32_t);
  CK_TRY(ck_buffer_copy(s->queue, s->best_tour, 0, s->tours,
                        (size_t)ant * bytes, bytes, NULL));
  CK_TRY(ck_buffer_read(s->queue, s->best_tour, 0, bytes, tour, CK_BLOCKING,
                        NULL));
fail:
  return status;
}

static ck_status opencl_deposit(aco_state *s, uint32_t ant, float scale,
                                float amount) {
  ck_status status = CK_OK;
  ck_kernel *k = s->deposit_kernel;
  uint64_t offset = ant == CK__ACO_BEST ? 0 : (uint64_t)ant * s->n;
  SET_BUFFER(k, 2, ant == CK__ACO_BEST ? s->best_tour : s->tours);
  SET_VALUE(k, 3, offset);
  SET_VALUE(k, 4, scale);
  SET_VALUE(k, 5, amount);
  SET_BUFFER(k, 6, s->tau);
  CK_TRY(launch(s, k, s->n));
fail:
  return status;
}

static ck_status opencl_update(aco_state *s, float keep, float tau_min,
                               float tau_max) {
  ck_status status = CK_OK;
  ck_kernel *k = s->update_kernel;
  SET_VALUE(k, 4, keep);
  SET_VALUE(k, 5, tau_min);
  SET_VALUE(k, 6, tau_max);
  CK_TRY(launch(s, k, (size_t)s->n * s->k));
fail:
  return status;
}

/* Written from the host rather than by a fill, which Oclgrind counts as
 * uninitialised memory; resets are rare (setup and MMAS restarts). */
static ck_status opencl_reset(aco_state *s, float value) {
  size_t entries = (size_t)s->n * s->k;
  float *values = malloc(entries * sizeof *values);
  if (!values)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t e = 0; e < entries; ++e)
    values[e] = value;
  ck_status status = ck_buffer_write(
      s->queue, s->tau, 0, entries * sizeof *values, values, CK_BLOCKING, NULL);
  free(values);
  return status;
}

static ck_status opencl_partition(aco_state *s, uint32_t size, uint32_t offset,
                                  uint64_t pass, uint32_t *tour,
                                  int64_t *gain) {
  ck_status status = CK_OK;
  uint32_t segments = (s->n + size - 1) / size;
  int64_t *gains = malloc((size_t)segments * sizeof *gains);
  if (!gains)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__aco_segment_scratch(s, size));
  SET_VALUE(s->rotate_kernel, 1, offset);
  CK_TRY(launch(s, s->rotate_kernel, s->n));
  SET_VALUE(s->segment_kernel, 1, size);
  SET_VALUE(s->segment_kernel, 2, segments);
  uint32_t kicks = ck__aco_kicks(s, size);
  SET_VALUE(s->segment_kernel, 4, kicks);
  SET_VALUE(s->segment_kernel, 6, pass);
  SET_BUFFER(s->segment_kernel, 10, s->segment_scratch);
  /* A work-group a segment: the segments are serial searches, one to a
   * compute unit. */
  size_t one = 1, count = segments;
  CK_TRY(ck_queue_launch(s->queue, s->segment_kernel, 1, &count, &one, NULL));
  CK_TRY(ck_buffer_read(s->queue, s->segment_gain, 0,
                        (size_t)segments * sizeof *gains, gains, CK_BLOCKING,
                        NULL));
  *gain = 0;
  for (uint32_t i = 0; i < segments; ++i)
    *gain += gains[i];
  /* Without a gain the best tour stays as it was (and matches the
   * positions uploaded with it); no copy, no read. */
  if (*gain > 0) {
    size_t bytes = (size_t)s->n * sizeof(uint32_t);
    CK_TRY(ck_buffer_copy(s->queue, s->best_tour, 0, s->segment_tour, 0, bytes,
                          NULL));
    CK_TRY(ck_buffer_read(s->queue, s->best_tour, 0, bytes, tour, CK_BLOCKING,
                          NULL));
  }
fail:
  free(gains);
  return status;
}

static void opencl_teardown(aco_state *s) {
  ck_kernel *kernels[] = {
      s->construct_kernel, s->count_kernel,  s->rank_kernel,
      s->search_kernel,    s->best_kernel,   s->deposit_kernel,
      s->update_kernel,    s->rotate_kernel, s->segment_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(s->program);
}

const ck__aco_steps ck__aco_opencl_steps = {
    opencl_setup,          opencl_construct, opencl_local_search,
    opencl_iteration_best, opencl_keep_best, opencl_deposit,
    opencl_update,         opencl_reset,     opencl_partition,
    opencl_teardown};
