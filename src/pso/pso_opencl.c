/* pso_opencl.c - the OpenCL steps of PSO: kernels in cl/pso.cl. */
#include <stdio.h>
#include <string.h>

#include "ck_objectives.h"
#include "pso/pso_internal.h"

static ck_status set_real(ck_kernel *kernel, unsigned index, const pso_state *s,
                          double value) {
  return ck__kernel_set_real(kernel, index, s->double_precision, value);
}

static size_t rounded(size_t count, size_t group) {
  return (count + group - 1) / group * group;
}

static ck_status opencl_setup(pso_state *s) {
  ck_status status = CK_OK;
  char defines[256];
  snprintf(defines, sizeof defines,
           "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_PSO_RING=%d "
           "-DCK_GROUP=%u -DCK_DIM=%d -DCK_USER_DATA=%d "
           "-DCK_LSQ_LANES=%u -DCK_LANES=%u -DCK_REAL_DOUBLE=%d",
           s->objective, s->bounds, s->ring ? 1 : 0, (unsigned)s->group, s->dim,
           s->problem->user_has_data, s->lsq.lanes ? s->lsq.lanes : 1u,
           (unsigned)s->move_lanes, s->double_precision);
  CK_TRY(ck__program_build_prefixed(s->queue, "pso", defines,
                                    s->problem->user_name,
                                    s->problem->user_source, &s->program));
  CK_TRY(
      ck_kernel_create(s->program, "ck_pso_initialise", &s->initialise_kernel));
  CK_TRY(ck_kernel_create(
      s->program, s->move_lanes > 1 ? "ck_pso_move_lanes" : "ck_pso_move",
      &s->move_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_best_reduce", &s->reduce_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_best_update", &s->update_kernel));
  if (s->ring)
    CK_TRY(ck_kernel_create(s->program, "ck_pso_neighbours",
                            &s->neighbours_kernel));

  /* Arguments that never change are set once. */
  ck_kernel *k = s->initialise_kernel;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->n, &s->n));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->seed, &s->seed));
  CK_TRY(set_real(k, 3, s, s->velocity_init));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->lo));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->hi));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->vmax));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->x));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->v));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->pbest));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->pbest_value));

  k = s->move_kernel;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->n, &s->n));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->seed, &s->seed));
  CK_TRY(set_real(k, 4, s, s->w));
  CK_TRY(set_real(k, 5, s, s->c1));
  CK_TRY(set_real(k, 6, s, s->c2));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->lo));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->hi));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->vmax));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->x));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->v));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->pbest));
  CK_TRY(ck_kernel_set_buffer(k, 13, s->pbest_value));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->gbest));
  CK_TRY(ck_kernel_set_buffer(k, 15, s->ring ? s->neighbour : s->best_index));
  CK_TRY(ck_kernel_set_buffer(k, 16, s->done));
  CK_TRY(ck_kernel_set_buffer(k, 17, s->ring ? s->values : s->pbest_value));

  if (s->values) {
    CK_TRY(ck_kernel_create(s->program, "ck_pso_keep", &s->keep_kernel));
    k = s->keep_kernel;
    CK_TRY(ck_kernel_set_value(k, 0, sizeof s->n, &s->n));
    CK_TRY(ck_kernel_set_value(k, 1, sizeof s->dim, &s->dim));
    CK_TRY(ck_kernel_set_buffer(k, 2, s->values));
    CK_TRY(ck_kernel_set_buffer(k, 3, s->pbest_value));
    CK_TRY(ck_kernel_set_buffer(k, 4, s->x));
    CK_TRY(ck_kernel_set_buffer(k, 5, s->pbest));
    CK_TRY(ck_kernel_set_buffer(k, 6, s->done));
  }
  if (s->ring) {
    k = s->neighbours_kernel;
    CK_TRY(ck_kernel_set_value(k, 0, sizeof s->n, &s->n));
    CK_TRY(ck_kernel_set_value(k, 1, sizeof s->ring, &s->ring));
    CK_TRY(ck_kernel_set_buffer(k, 2, s->pbest_value));
    CK_TRY(ck_kernel_set_buffer(k, 3, s->neighbour));
    CK_TRY(ck_kernel_set_buffer(k, 4, s->done));
  }

  if (s->partial_count) {
    k = s->reduce_kernel;
    CK_TRY(ck_kernel_set_buffer(k, 0, s->pbest_value));
    CK_TRY(ck_kernel_set_value(k, 1, sizeof s->n, &s->n));
    CK_TRY(ck_kernel_set_buffer(k, 2, s->partial_values));
    CK_TRY(ck_kernel_set_buffer(k, 3, s->partial_indices));
  }
  k = s->update_kernel;
  uint32_t direct = s->partial_count ? 0u : 1u;
  uint32_t candidates = s->partial_count ? s->partial_count : s->n;
  CK_TRY(
      ck_kernel_set_buffer(k, 0, direct ? s->pbest_value : s->partial_values));
  CK_TRY(
      ck_kernel_set_buffer(k, 1, direct ? s->best_index : s->partial_indices));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof candidates, &candidates));
  CK_TRY(ck_kernel_set_value(k, 3, sizeof direct, &direct));
  CK_TRY(ck_kernel_set_value(k, 4, sizeof s->n, &s->n));
  CK_TRY(ck_kernel_set_value(k, 5, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->pbest));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->best_value));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->best_index));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->gbest));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->history));
  uint32_t has_target = s->has_target ? 1u : 0u;
  CK_TRY(set_real(k, 12, s, s->has_target ? s->target : 0.0));
  CK_TRY(ck_kernel_set_value(k, 13, sizeof has_target, &has_target));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->done));

  if (!s->streamed)
    CK_TRY(ck__evaluation_create(&s->evaluation, s->program, s->problem, s->n,
                                 s->rows, &s->lsq, s->group, s->data,
                                 s->lsq_partial, s->done));
fail:
  return status;
}

static ck_status launch_per_particle(pso_state *s, ck_kernel *kernel) {
  size_t local = s->group;
  size_t global = rounded(s->n, local);
  return ck_queue_launch(s->queue, kernel, 1, &global, &local, NULL);
}

static ck_status opencl_initialise(pso_state *s) {
  return launch_per_particle(s, s->initialise_kernel);
}

static ck_status opencl_neighbours(pso_state *s) {
  return launch_per_particle(s, s->neighbours_kernel);
}

static ck_status opencl_move(pso_state *s, uint64_t iteration) {
  ck_status status =
      ck_kernel_set_value(s->move_kernel, 3, sizeof iteration, &iteration);
  if (!status) {
    /* A work-item per move_lanes particles (1 but on CPUs). */
    size_t local = s->move_local;
    size_t global = rounded((s->n + s->move_lanes - 1) / s->move_lanes, local);
    status =
        ck_queue_launch(s->queue, s->move_kernel, 1, &global, &local, NULL);
  }
  if (!status && s->ring && s->streamed)
    status = launch_per_particle(s, s->keep_kernel);
  return status;
}

/* Values of lsq or user objectives, then personal bests kept. */
static ck_status opencl_evaluate(pso_state *s) {
  ck_status status =
      ck__evaluation_run(&s->evaluation, s->queue, s->x, s->values);
  return status ? status : launch_per_particle(s, s->keep_kernel);
}

static ck_status opencl_update_best(pso_state *s, uint32_t slot) {
  ck_status status;
  size_t local = s->group;
  if (s->partial_count) {
    size_t global = (size_t)s->partial_count * s->group;
    status =
        ck_queue_launch(s->queue, s->reduce_kernel, 1, &global, &local, NULL);
    if (status)
      return status;
  }
  status = ck_kernel_set_value(s->update_kernel, 11, sizeof slot, &slot);
  return status ? status
                : ck_queue_launch(s->queue, s->update_kernel, 1, &local, &local,
                                  NULL);
}

static void opencl_teardown(pso_state *s) {
  ck_kernel_destroy(s->initialise_kernel);
  ck_kernel_destroy(s->neighbours_kernel);
  ck_kernel_destroy(s->move_kernel);
  ck_kernel_destroy(s->reduce_kernel);
  ck_kernel_destroy(s->update_kernel);
  ck__evaluation_destroy(&s->evaluation);
  ck_kernel_destroy(s->keep_kernel);
  ck_program_destroy(s->program);
}

const ck__pso_steps ck__pso_opencl_steps = {
    opencl_setup,    opencl_initialise,  opencl_neighbours, opencl_move,
    opencl_evaluate, opencl_update_best, opencl_teardown,   NULL};
