/* ga_opencl.c - the OpenCL steps of the GA: kernels in cl/ga.cl. */
#include <stdio.h>

#include "ck_objectives.h"
#include "core/queue_internal.h"
#include "ga/ga_internal.h"

static ck_status set_real(ck_kernel *kernel, unsigned index, const ga_state *s,
                          double value) {
  return ck__kernel_set_real(kernel, index, s->double_precision, value);
}

/* `groups` work-groups of `local` work-items. */
static ck_status launch_groups(ga_state *s, ck_kernel *kernel, size_t groups,
                               size_t local) {
  size_t global = groups * local;
  return ck_queue_launch(s->queue, kernel, 1, &global, &local, NULL);
}

/* Work-groups of s->group: one an item (whole_groups), or enough for one
 * work-item an item. */
static ck_status launch(ga_state *s, ck_kernel *kernel, size_t items,
                        int whole_groups) {
  return launch_groups(s, kernel,
                       whole_groups ? items : (items + s->group - 1) / s->group,
                       s->group);
}

/* The migration kernels' work-group: an island's pick is a halving tree
 * a migrant, so a narrow group that scans several slots a work-item
 * makes fewer and cheaper barriers than the island's whole group. One
 * warp where the device has a lockstep width (on NVIDIA's GPUs a
 * migration of 4096 islands of 256 took 36 µs on an H100 where it took
 * 44, bench/results/h100-2026-11-22-migrate), else 32: on a CPU through
 * PoCL, groups of 1, 8 and 32 measured alike. Never wider than the
 * island's group; both are powers of two. */
static uint32_t migrate_group(const ga_state *s) {
  uint32_t width = s->device.warp_width >= 2 && s->device.warp_width <= 256
                       ? s->device.warp_width
                       : 32;
  return s->group < width ? s->group : width;
}

/* Islands live in local memory across generations when the objective
 * is streamed, a work-item can hold its children, and the island's genes
 * (rows of an odd number of 4-gene quads each, as ga.cl's CK_GA_ROW, or
 * gene-major for lanes), its fitness and the bounds fit beside the
 * reduction arrays (with room for the runtime's own use). PoCL's
 * optimiser (3.1 and 5.0 measured) miscompiles the child form below four
 * genes: the islands stop evolving. Built with -cl-opt-disable, on
 * Oclgrind and through NVIDIA's OpenCL the same source agrees with ref, so
 * on PoCL such islands take the global kernel, which agrees. */
int ck__ga_resident(const ga_state *s, uint32_t group, uint32_t lanes) {
  size_t row = lanes > 1 ? (size_t)s->dim : (((size_t)s->dim + 3) / 4 | 1) * 4;
  size_t local_bytes =
      ((size_t)s->size * (row + 1) + 2 * (size_t)s->dim) * s->real_size +
      (size_t)group * (2 * s->real_size + 4) + 1024;
  int pocl = ck__device_pocl_major(&s->device) > 0;
  /* The vector form's work-items fill the island exactly, and its folds
   * halve the work-group. */
  int slots = lanes > 1 ? group > 0 && s->size == group * lanes &&
                              (group & (group - 1)) == 0
                        : s->size <= group;
  return s->streamed && slots && s->dim <= 64 && !(pocl && s->dim < 4) &&
         s->device.local_memory && local_bytes <= s->device.local_memory;
}

static ck_status opencl_setup(ga_state *s) {
  ck_status status = CK_OK;
  char defines[440];
  int resident = ck__ga_resident(s, s->group, s->lanes);
  /* Mutations' square roots and SBX's exponent rounded as ref rounds
   * them, so that a run is the same bits on every device. */
  snprintf(defines, sizeof defines,
           "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_GROUP=%u -DCK_DIM=%d "
           "-DCK_USER_DATA=%d -DCK_LSQ_LANES=%u -DCK_GA_TOURNAMENT=%d "
           "-DCK_GA_CROSSOVER=%d "
           "-DCK_GA_MUTATION=%d -DCK_GA_ELITE=%d -DCK_GA_MIGRANTS=%u "
           "-DCK_GA_MIGRATE_GROUP=%u -DCK_GA_RESIDENT=%d -DCK_GA_ISLAND=%u "
           "-DCK_LANES=%u -DCK_REAL_DOUBLE=%d %s",
           s->objective, s->bounds, (unsigned)s->group, s->dim,
           s->problem->user_has_data, s->lsq.lanes ? s->lsq.lanes : 1u,
           s->tournament, s->crossover, s->mutation, s->elite,
           s->migrants ? s->migrants : 1u, (unsigned)migrate_group(s), resident,
           (unsigned)s->size, (unsigned)s->lanes, s->double_precision,
           ck__device_exact_divide_sqrt_option(&s->device));
  CK_TRY(ck__program_build_prefixed(s->queue, "ga", defines,
                                    s->problem->user_name,
                                    s->problem->user_source, &s->program));
  ck_kernel *k;
  CK_TRY(ck_kernel_create(s->program, "ck_ga_initialise", &k));
  s->initialise_kernel = k;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->total, &s->total));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->seed, &s->seed));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->lo));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->hi));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->population[0]));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->fitness[0]));

  CK_TRY(ck_kernel_create(s->program, "ck_ga_evolve", &k));
  s->evolve_kernel = k;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->islands, &s->islands));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->size, &s->size));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_value(k, 3, sizeof s->seed, &s->seed));
  CK_TRY(set_real(k, 6, s, s->crossover_rate));
  CK_TRY(set_real(k, 7, s, s->crossover_parameter));
  CK_TRY(set_real(k, 8, s, s->mutation_rate));
  CK_TRY(set_real(k, 9, s, s->mutation_parameter));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->lo));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->hi));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->population[0]));
  CK_TRY(ck_kernel_set_buffer(k, 13, s->population[1]));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->fitness[0]));
  CK_TRY(ck_kernel_set_buffer(k, 15, s->fitness[1]));
  CK_TRY(ck_kernel_set_buffer(k, 16, s->stats));
  CK_TRY(ck_kernel_set_buffer(k, 18, s->island_best));
  CK_TRY(ck_kernel_set_buffer(k, 19, s->island_best_genes));
  CK_TRY(set_real(k, 20, s, s->inverse_log_keep));
  CK_TRY(ck_kernel_set_buffer(k, 26, s->source));
  /* The resident island generation makes the migrations that border it. */
  s->fused_migration = resident;

  CK_TRY(ck_kernel_create(s->program, "ck_ga_stats", &k));
  s->stats_kernel = k;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->islands, &s->islands));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->size, &s->size));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->stats));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->island_best));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->island_best_genes));

  CK_TRY(ck_kernel_create(s->program, "ck_ga_fold_stats", &k));
  s->fold_kernel = k;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->islands, &s->islands));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->stats));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->folded));

  CK_TRY(ck_kernel_create(s->program, "ck_ga_emigrate", &k));
  s->emigrate_kernel = k;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->islands, &s->islands));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->size, &s->size));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_create(s->program, "ck_ga_immigrate", &k));
  s->immigrate_kernel = k;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->islands, &s->islands));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->size, &s->size));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->source));

  CK_TRY(ck_kernel_create(s->program, "ck_best_reduce", &s->reduce_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_best_update", &s->update_kernel));
  k = s->update_kernel;
  uint32_t direct = s->partial_count ? 0u : 1u, zero = 0;
  uint32_t candidates = s->partial_count ? s->partial_count : s->islands;
  CK_TRY(
      ck_kernel_set_buffer(k, 0, direct ? s->island_best : s->partial_values));
  CK_TRY(
      ck_kernel_set_buffer(k, 1, direct ? s->best_index : s->partial_indices));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof candidates, &candidates));
  CK_TRY(ck_kernel_set_value(k, 3, sizeof direct, &direct));
  CK_TRY(ck_kernel_set_value(k, 4, sizeof s->islands, &s->islands));
  CK_TRY(ck_kernel_set_value(k, 5, sizeof s->dim, &s->dim));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->island_best_genes));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->best_value));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->best_index));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->best_genes));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->scratch));
  CK_TRY(ck_kernel_set_value(k, 11, sizeof zero, &zero));
  CK_TRY(set_real(k, 12, s, 0.0));
  CK_TRY(ck_kernel_set_value(k, 13, sizeof zero, &zero));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->done));
  if (s->partial_count) {
    k = s->reduce_kernel;
    CK_TRY(ck_kernel_set_buffer(k, 0, s->island_best));
    CK_TRY(ck_kernel_set_value(k, 1, sizeof s->islands, &s->islands));
    CK_TRY(ck_kernel_set_buffer(k, 2, s->partial_values));
    CK_TRY(ck_kernel_set_buffer(k, 3, s->partial_indices));
  }

  if (!s->streamed)
    CK_TRY(ck__evaluation_create(&s->evaluation, s->program, s->problem,
                                 s->total, s->rows, &s->lsq, s->group, s->data,
                                 s->lsq_partial, s->done));
fail:
  return status;
}

static ck_status opencl_initialise(ga_state *s) {
  return launch(s, s->initialise_kernel, s->total, 0);
}

static ck_status opencl_evolve(ga_state *s, uint64_t first, uint32_t count,
                               uint32_t slot, uint32_t migration) {
  ck_status status;
  ck_kernel *k = s->evolve_kernel;
  if ((status = ck_kernel_set_value(k, 4, sizeof first, &first)) ||
      (status = ck_kernel_set_value(k, 5, sizeof count, &count)) ||
      (status = ck_kernel_set_value(k, 17, sizeof slot, &slot)) ||
      (status = ck__ga_set_migration(s, k, 21, migration)) ||
      (status = launch(s, k, s->islands, 1)))
    return status;
  ck__ga_migration_made(s, migration);
  return CK_OK;
}

/* The points are buffer `which`; their values land in its fitness. */
static ck_status opencl_evaluate(ga_state *s, int which) {
  return ck__evaluation_run(&s->evaluation, s->queue, s->population[which],
                            s->fitness[which]);
}

static ck_status opencl_stats(ga_state *s, int which, uint32_t slot) {
  ck_status status;
  ck_kernel *k = s->stats_kernel;
  if ((status = ck_kernel_set_buffer(k, 3, s->fitness[which])) ||
      (status = ck_kernel_set_buffer(k, 4, s->population[which])) ||
      (status = ck_kernel_set_value(k, 6, sizeof slot, &slot)))
    return status;
  return launch(s, s->stats_kernel, s->islands, 1);
}

static ck_status opencl_migrate(ga_state *s, int which, uint32_t parts) {
  ck_status status;
  ck_kernel *out = s->emigrate_kernel, *in = s->immigrate_kernel;
  if ((status = ck_kernel_set_buffer(out, 3, s->population[which])) ||
      (status = ck_kernel_set_buffer(out, 4, s->fitness[which])) ||
      (status = ck_kernel_set_buffer(in, 3, s->population[which])) ||
      (status = ck_kernel_set_buffer(in, 4, s->fitness[which])))
    return status;
  /* Two launches: every island has emigrated before any receives. A
   * group an island. */
  if (parts & CK_GA_EMIGRATE) {
    uint32_t set = s->migrant_set ^ 1u;
    if ((status = ck_kernel_set_buffer(out, 5, s->migrant_genes[set])) ||
        (status = ck_kernel_set_buffer(out, 6, s->migrant_fitness[set])) ||
        (status = launch_groups(s, out, s->islands, migrate_group(s))))
      return status;
    ck__ga_migration_made(s, CK_GA_EMIGRATE);
  }
  if (parts & CK_GA_IMMIGRATE) {
    uint32_t set = s->migrant_set;
    if ((status = ck_kernel_set_buffer(in, 5, s->migrant_genes[set])) ||
        (status = ck_kernel_set_buffer(in, 6, s->migrant_fitness[set])))
      return status;
    return launch_groups(s, in, s->islands, migrate_group(s));
  }
  return CK_OK;
}

ck_status ck__ga_set_migration(ga_state *s, ck_kernel *kernel, unsigned index,
                               uint32_t migration) {
  ck_status status = CK_OK;
  uint32_t in = s->migrant_set, out = s->migrant_set ^ 1u;
  CK_TRY(ck_kernel_set_value(kernel, index, sizeof migration, &migration));
  CK_TRY(ck_kernel_set_buffer(kernel, index + 1, s->migrant_genes[in]));
  CK_TRY(ck_kernel_set_buffer(kernel, index + 2, s->migrant_fitness[in]));
  CK_TRY(ck_kernel_set_buffer(kernel, index + 3, s->migrant_genes[out]));
  CK_TRY(ck_kernel_set_buffer(kernel, index + 4, s->migrant_fitness[out]));
fail:
  return status;
}

void ck__ga_migration_made(ga_state *s, uint32_t migration) {
  if (migration & CK_GA_EMIGRATE)
    s->migrant_set ^= 1u;
}

static ck_status opencl_update_best(ga_state *s) {
  ck_status status;
  if (s->partial_count &&
      (status = launch(s, s->reduce_kernel, s->partial_count, 1)))
    return status;
  return launch(s, s->update_kernel, 1, 1);
}

/* A work-group a slot. */
static ck_status opencl_fold_stats(ga_state *s, uint32_t slots) {
  return launch(s, s->fold_kernel, slots, 1);
}

static void opencl_teardown(ga_state *s) {
  ck_kernel *kernels[] = {s->initialise_kernel, s->evolve_kernel,
                          s->stats_kernel,      s->emigrate_kernel,
                          s->immigrate_kernel,  s->reduce_kernel,
                          s->update_kernel,     s->fold_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck__evaluation_destroy(&s->evaluation);
  ck_program_destroy(s->program);
}

const ck__ga_steps ck__ga_opencl_steps = {opencl_setup,       opencl_initialise,
                                          opencl_evolve,      opencl_evaluate,
                                          opencl_stats,       opencl_migrate,
                                          opencl_update_best, opencl_fold_stats,
                                          opencl_teardown,    2};
