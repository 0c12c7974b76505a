/* ga_opencl.c - the OpenCL steps of the GA: kernels in cl/ga.cl. */
#include <stdio.h>

#include "ck_objectives.h"
#include "ga/ga_internal.h"
#include "runtime/runtime.h"

/* `groups` work-groups of `local` work-items. */
static ck_status launch_groups(ga_state *state, ck_kernel *kernel,
                               size_t groups, size_t local) {
  size_t global = groups * local;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

/* Work-groups of state->group: one an item (whole_groups), or enough for one
 * work-item an item. */
static ck_status launch(ga_state *state, ck_kernel *kernel, size_t items,
                        int whole_groups) {
  return launch_groups(state, kernel,
                       whole_groups ? items
                                    : (items + state->group - 1) / state->group,
                       state->group);
}

/* The migration kernels' work-group: an island's pick is a halving tree
 * a migrant, so a narrow group that scans several slots a work-item
 * makes fewer and cheaper barriers than the island's whole group. One
 * warp where the device has a lockstep width (faster on NVIDIA's GPUs:
 * bench/results/h100-2026-11-22-migrate), else 32: on a CPU through
 * PoCL, groups of 1, 8 and 32 measured alike. Never wider than the
 * island's group; both are powers of two. */
static uint32_t migrate_group(const ga_state *state) {
  uint32_t width =
      state->device.warp_width >= 2 && state->device.warp_width <= 256
          ? state->device.warp_width
          : 32;
  return state->group < width ? state->group : width;
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
int ck__ga_resident(const ga_state *state, uint32_t group, uint32_t lanes) {
  size_t row =
      lanes > 1 ? (size_t)state->dim : (((size_t)state->dim + 3) / 4 | 1) * 4;
  size_t local_bytes =
      ((size_t)state->size * (row + 1) + 2 * (size_t)state->dim) *
          state->real_size +
      (size_t)group * (2 * state->real_size + 4) + 1024;
  int pocl = ck__device_pocl_major(&state->device) > 0;
  /* The vector form's work-items fill the island exactly, and its folds
   * halve the work-group. */
  int slots = lanes > 1 ? group > 0 && state->size == group * lanes &&
                              (group & (group - 1)) == 0
                        : state->size <= group;
  /* A fused user objective is called on one child a work-item. */
  return state->streamed && !(state->fused_user && lanes > 1) && slots &&
         state->dim <= CK__GA_RESIDENT_MAX_DIM && !(pocl && state->dim < 4) &&
         state->device.local_memory &&
         local_bytes <= state->device.local_memory;
}

/* Builds cl/ga.cl with the run's settings as defines (resident: the
 * islands live in local memory). */
static ck_status build_program(ga_state *state, int resident) {
  ck_status status = CK_OK;
  char defines[480];
  /* Mutations' square roots and SBX's exponent rounded as ref rounds
   * them, so that a run is the same bits on every device. */
  snprintf(
      defines, sizeof defines,
      "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_GROUP=%u -DCK_DIM=%d "
      "-DCK_USER_DATA=%d -DCK_LSQ_LANES=%u -DCK_GA_TOURNAMENT=%d "
      "-DCK_GA_CROSSOVER=%d "
      "-DCK_GA_MUTATION=%d -DCK_GA_ELITE=%d -DCK_GA_MIGRANTS=%u "
      "-DCK_GA_MIGRATE_GROUP=%u -DCK_GA_RESIDENT=%d -DCK_GA_ISLAND=%u "
      "-DCK_LANES=%u -DCK_REAL_DOUBLE=%d -DCK_GA_FIRST_ISLAND_ZERO=%d "
      "-DCK_GA_FUSE_USER=%d %s",
      state->objective, state->bounds, (unsigned)state->group, state->dim,
      state->problem->user_has_data, state->lsq.lanes ? state->lsq.lanes : 1u,
      state->tournament, state->crossover, state->mutation, state->elite,
      state->migrants ? state->migrants : 1u, (unsigned)migrate_group(state),
      resident, (unsigned)state->size, (unsigned)state->lanes,
      state->double_precision, state->first_island == 0, state->fused_user,
      ck__device_exact_divide_sqrt_option(&state->device));
  CK_TRY(ck__program_build_prefixed(
      state->queue, "ga", defines, state->problem->user_name,
      state->problem->user_source, &state->program));
fail:
  return status;
}

/* The initialisation kernel, its arguments set once. */
static ck_status make_initialise_kernel(ga_state *state) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  CK_TRY(ck_kernel_create(state->program, "ck_ga_initialise",
                          &state->initialise_kernel));
  ck_kernel_args_begin(state->initialise_kernel, &args);
  ck_kernel_args_u32(&args, state->total);
  ck_kernel_args_u32(&args, state->first_island * state->size);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_buffer(&args, state->lo);
  ck_kernel_args_buffer(&args, state->hi);
  ck_kernel_args_buffer(&args, state->population[0]);
  ck_kernel_args_buffer(&args, state->fitness[0]);
  CK_TRY(ck_kernel_args_end(&args));
fail:
  return status;
}

/* The best-so-far kernels, their arguments set once: the update reads the
 * islands' bests directly, or the partial reduction's where there is
 * one. */
static ck_status make_best_kernels(ga_state *state) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  CK_TRY(ck_kernel_create(state->program, "ck_best_reduce",
                          &state->reduce_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_best_update",
                          &state->update_kernel));
  int direct = !state->partial_count;
  ck_kernel_args_begin(state->update_kernel, &args);
  ck_kernel_args_buffer(&args,
                        direct ? state->island_best : state->partial_values);
  ck_kernel_args_buffer(&args,
                        direct ? state->best_index : state->partial_indices);
  ck_kernel_args_u32(&args, direct ? state->islands : state->partial_count);
  ck_kernel_args_u32(&args, (uint32_t)direct);
  ck_kernel_args_u32(&args, state->islands);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_buffer(&args, state->island_best_genes);
  ck_kernel_args_buffer(&args, state->best_value);
  ck_kernel_args_buffer(&args, state->best_index);
  ck_kernel_args_buffer(&args, state->best_genes);
  ck_kernel_args_buffer(&args, state->scratch);
  ck_kernel_args_u32(&args, 0);                             /* history slot */
  ck_kernel_args_real(&args, 0.0, state->double_precision); /* target */
  ck_kernel_args_u32(&args, 0);                             /* has_target */
  ck_kernel_args_buffer(&args, state->done);
  CK_TRY(ck_kernel_args_end(&args));
  if (state->partial_count) {
    ck_kernel_args_begin(state->reduce_kernel, &args);
    ck_kernel_args_buffer(&args, state->island_best);
    ck_kernel_args_u32(&args, state->islands);
    ck_kernel_args_buffer(&args, state->partial_values);
    ck_kernel_args_buffer(&args, state->partial_indices);
    CK_TRY(ck_kernel_args_end(&args));
  }
fail:
  return status;
}

static ck_status opencl_setup(ga_state *state) {
  ck_status status = CK_OK;
  int resident = ck__ga_resident(state, state->group, state->lanes);
  ck_kernel_args args;
  /* A launch or step may receive one migration and send the next. */
  CK_TRY(ck__ga_make_migrants(state, 1));
  CK_TRY(build_program(state, resident));
  CK_TRY(make_initialise_kernel(state));

  /* The generation, the statistics and the migration kernels set all
   * their arguments at each launch. */
  CK_TRY(
      ck_kernel_create(state->program, "ck_ga_evolve", &state->evolve_kernel));
  /* The resident island generation makes the migrations that border it. */
  state->fused_migration = resident;
  CK_TRY(ck_kernel_create(state->program, "ck_ga_stats", &state->stats_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_ga_emigrate",
                          &state->emigrate_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_ga_immigrate",
                          &state->immigrate_kernel));

  CK_TRY(ck_kernel_create(state->program, "ck_ga_fold_stats",
                          &state->fold_kernel));
  ck_kernel_args_begin(state->fold_kernel, &args);
  ck_kernel_args_u32(&args, state->islands);
  ck_kernel_args_buffer(&args, state->stats);
  ck_kernel_args_buffer(&args, state->folded);
  CK_TRY(ck_kernel_args_end(&args));

  CK_TRY(make_best_kernels(state));
  if (!state->streamed && state->objective != CK_OBJECTIVE_HOST)
    CK_TRY(ck__evaluation_create(&state->evaluation, state->program,
                                 state->problem, state->total, state->rows,
                                 &state->lsq, state->group, state->data,
                                 state->lsq_partial, state->done));
fail:
  return status;
}

static ck_status opencl_initialise(ga_state *state) {
  return launch(state, state->initialise_kernel, state->total, 0);
}

static ck_status opencl_evolve(ga_state *state, uint64_t first, uint32_t count,
                               uint32_t slot, uint32_t migration) {
  ck_status status;
  ck_kernel_args args;
  ck_kernel_args_begin(state->evolve_kernel, &args);
  ck_kernel_args_u32(&args, state->islands);
  ck_kernel_args_u32(&args, state->size);
  ck_kernel_args_i32(&args, state->dim);
  ck__ga_add_generation(state, &args, first, count, slot);
  ck__ga_add_migration(state, &args, migration);
  ck_kernel_args_buffer(&args, state->source);
  if ((status = ck_kernel_args_end(&args)) ||
      (status = launch(state, state->evolve_kernel, state->islands, 1)))
    return status;
  ck__ga_migration_made(state, migration);
  return CK_OK;
}

/* The points are buffer `which`; their values land in its fitness (a
 * host objective's are written by the driver). */
static ck_status opencl_evaluate(ga_state *state, int which) {
  if (state->objective == CK_OBJECTIVE_HOST)
    return CK_OK;
  return ck__evaluation_run(&state->evaluation, state->queue,
                            state->population[which], state->fitness[which]);
}

static ck_status opencl_stats(ga_state *state, int which, uint32_t slot) {
  ck_status status;
  ck_kernel_args args;
  ck_kernel_args_begin(state->stats_kernel, &args);
  ck_kernel_args_u32(&args, state->islands);
  ck_kernel_args_u32(&args, state->size);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_buffer(&args, state->fitness[which]);
  ck_kernel_args_buffer(&args, state->population[which]);
  ck_kernel_args_buffer(&args, state->stats);
  ck_kernel_args_u32(&args, slot);
  ck_kernel_args_buffer(&args, state->island_best);
  ck_kernel_args_buffer(&args, state->island_best_genes);
  if ((status = ck_kernel_args_end(&args)))
    return status;
  return launch(state, state->stats_kernel, state->islands, 1);
}

/* Emigration or immigration of population `which` through migrant set
 * `set`: a group an island. */
static ck_status migrate(ga_state *state, ck_kernel *kernel, int which,
                         uint32_t set) {
  ck_status status;
  ck_kernel_args args;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->islands);
  ck_kernel_args_u32(&args, state->size);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_buffer(&args, state->population[which]);
  ck_kernel_args_buffer(&args, state->fitness[which]);
  ck_kernel_args_buffer(&args, state->migrant_genes[set]);
  ck_kernel_args_buffer(&args, state->migrant_fitness[set]);
  if (kernel == state->immigrate_kernel)
    ck_kernel_args_buffer(&args, state->source);
  if ((status = ck_kernel_args_end(&args)))
    return status;
  return launch_groups(state, kernel, state->islands, migrate_group(state));
}

static ck_status opencl_migrate(ga_state *state, int which, uint32_t parts) {
  ck_status status;
  /* Two launches: every island has emigrated before any receives. */
  if (parts & CK_GA_EMIGRATE) {
    if ((status = migrate(state, state->emigrate_kernel, which,
                          state->migrant_set ^ 1u)))
      return status;
    ck__ga_migration_made(state, CK_GA_EMIGRATE);
  }
  if (parts & CK_GA_IMMIGRATE)
    return migrate(state, state->immigrate_kernel, which, state->migrant_set);
  return CK_OK;
}

void ck__ga_add_generation(const ga_state *state, ck_kernel_args *args,
                           uint64_t first, uint32_t count, uint32_t slot) {
  int real = state->double_precision;
  ck_kernel_args_u64(args, state->seed);
  ck_kernel_args_u64(args, first);
  ck_kernel_args_u32(args, count);
  ck_kernel_args_real(args, state->crossover_rate, real);
  ck_kernel_args_real(args, state->crossover_parameter, real);
  ck_kernel_args_real(args, state->mutation_rate, real);
  ck_kernel_args_real(args, state->mutation_parameter, real);
  ck_kernel_args_buffer(args, state->lo);
  ck_kernel_args_buffer(args, state->hi);
  ck_kernel_args_buffer(args, state->population[0]);
  ck_kernel_args_buffer(args, state->population[1]);
  ck_kernel_args_buffer(args, state->fitness[0]);
  ck_kernel_args_buffer(args, state->fitness[1]);
  ck_kernel_args_buffer(args, state->stats);
  ck_kernel_args_u32(args, slot);
  ck_kernel_args_buffer(args, state->island_best);
  ck_kernel_args_buffer(args, state->island_best_genes);
  ck_kernel_args_real(args, state->inverse_log_keep, real);
  ck_kernel_args_u32(args, state->first_island);
}

void ck__ga_add_migration(const ga_state *state, ck_kernel_args *args,
                          uint32_t migration) {
  uint32_t in = state->migrant_set, out = state->migrant_set ^ 1u;
  ck_kernel_args_u32(args, migration);
  ck_kernel_args_buffer(args, state->migrant_genes[in]);
  ck_kernel_args_buffer(args, state->migrant_fitness[in]);
  ck_kernel_args_buffer(args, state->migrant_genes[out]);
  ck_kernel_args_buffer(args, state->migrant_fitness[out]);
}

void ck__ga_migration_made(ga_state *state, uint32_t migration) {
  if (migration & CK_GA_EMIGRATE)
    state->migrant_set ^= 1u;
}

static ck_status opencl_update_best(ga_state *state) {
  ck_status status;
  if (state->partial_count &&
      (status = launch(state, state->reduce_kernel, state->partial_count, 1)))
    return status;
  return launch(state, state->update_kernel, 1, 1);
}

/* A work-group a slot. */
static ck_status opencl_fold_stats(ga_state *state, uint32_t slots) {
  return launch(state, state->fold_kernel, slots, 1);
}

static void opencl_teardown(ga_state *state) {
  ck_kernel *kernels[] = {state->initialise_kernel, state->evolve_kernel,
                          state->stats_kernel,      state->emigrate_kernel,
                          state->immigrate_kernel,  state->reduce_kernel,
                          state->update_kernel,     state->fold_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck__evaluation_destroy(&state->evaluation);
  ck_program_destroy(state->program);
}

const ck__ga_steps ck__ga_opencl_steps = {
    .setup = opencl_setup,
    .initialise = opencl_initialise,
    .evolve = opencl_evolve,
    .evaluate = opencl_evaluate,
    .stats = opencl_stats,
    .migrate = opencl_migrate,
    .update_best = opencl_update_best,
    .fold_stats = opencl_fold_stats,
    .teardown = opencl_teardown,
};
