/*
 * ga_cuda.c - the CUDA steps of the GA: the island generation is the
 * native kernel of cl/ga.cu (islands resident in shared memory, a block's
 * or a cluster's of blocks, children crossed in registers, warp-shuffle
 * folds), which also makes the migrations that border its launches; the
 * other steps (generation 0, its statistics, a migration a test asks for,
 * the global best, the statistics' fold before the host reads them) are
 * the OpenCL steps' kernels, built for CUDA by NVRTC, which run once,
 * once a launch or once a read.
 */
#include <stdio.h>
#include <string.h>

#include "ck_ga_native.h"
#include "ck_ga_schedule.h"
#include "ga/ga_internal.h"
#include "runtime/runtime.h"

enum {
  WARP = CK__CUDA_WARP,
  MAX_BLOCK = 1024,
  /* Blocks an island may span: the largest cluster every sm_90 device
   * schedules (a portable cluster size). */
  MAX_CLUSTER = 8,
  CLUSTER_ARCHITECTURE = 90, /* clusters and distributed shared memory */
  /* Clusters only past 8 genes: at 4 and 8 genes the global-memory steps
   * measured faster, from 12 on several times slower
   * (bench/results/h100-2026-11-23-cluster/shapes.txt). */
  MIN_CLUSTER_DIM = 9,
  /* Nor for blocks of fewer slots (warps) than this: with so few warps an
   * SM, the parents read from other blocks' rows wait on L2. Past d = 128
   * a block holds fewer than 440 slots; clusters of fewer slots a block
   * than this measured slower than the global-memory steps, and of this
   * many or more faster (bench/results/h100-2026-11-23-ga-wide/). */
  MIN_CLUSTER_SLOTS = 192,
  /* Segments (runs of generations between migrations) a launch may make,
   * and the bytes the migrants sent inside it may take in device memory:
   * a slot of every island's migrants a migration. */
  MAX_SEGMENTS = 64,
  RELAY_BYTES = 64 << 20,
};

/* How ck_ga_cuda_evolve holds an island: `cluster` blocks of `slots`
 * slots each and `block` threads (the slots in whole warps). */
typedef struct {
  uint32_t cluster, slots, block;
} native_shape;

/* Whether a child's refills after its first go through the block's
 * queue (cl/ga.cu, DEFERRED): for gaussian mutation after BLX or SBX
 * crossover at d <= 32, where it measured faster; after arithmetic
 * crossover, and at d = 64, slower (docs/ga.md, "Deferred refills"). */
static int defers_refills(const ga_state *state) {
  return state->mutation == CK_GA_GAUSSIAN &&
         state->crossover != CK_GA_ARITHMETIC && state->dim <= 32;
}

/* Whether a warp's polynomial mutation steps go through its pool
 * (cl/ga.cu, POOLED): after SBX crossover, where it measured as fast as
 * each child drawing its own or faster; after arithmetic or BLX crossover
 * each child's own measured faster (bench/results/h100-2026-11-25-lazy/). */
static int pools_steps(const ga_state *state) {
  return state->mutation == CK_GA_POLYNOMIAL && state->crossover == CK_GA_SBX;
}

/* Segments a task, between an island's load and its store
 * (ck_ga_schedule.h): 4, 2 where a child's refills are deferred, 1 where
 * a warp's polynomial steps are pooled. Longer tasks store and load an
 * island less often; the schedule keeps an island's source a class of
 * tickets ahead, so the segments of a task after its first rarely wait,
 * but a launch's first and last sweeps are uneven (tasks of 1 to K
 * segments). Four a task beat two on every shape measured but 4096 x 64,
 * whose small loss is kept; deferred refills keep two and pooled steps
 * one, which beat four there (bench/results/h100-2026-11-25-classes/). */
static uint32_t per_task(const ga_state *state) {
  uint32_t segments = pools_steps(state) ? 1u : defers_refills(state) ? 2u : 4u;
  return segments < state->islands ? segments : state->islands;
}

/* Bytes of a launch's schedule (cl/ga.cu): its ticket, and each island's
 * segments sent and stored. */
static size_t schedule_bytes(const ga_state *state) {
  return (1 + 2 * (size_t)state->islands) * sizeof(uint32_t);
}

/* Shared memory a block of ck_ga_cuda_evolve (cl/ck_ga_native.h). */
static size_t shared_bytes(const ga_state *state, const native_shape *shape) {
  return CK_GA_NATIVE_SHARED_BYTES((size_t)state->size, (size_t)shape->slots,
                                   (size_t)shape->cluster, (size_t)state->dim,
                                   (size_t)(shape->block / WARP),
                                   pools_steps(state), defers_refills(state));
}

/* The fewest blocks that hold an island: one where its slots and rows fit
 * a block (threads and the shared memory it may opt into, past 48 KB),
 * else a cluster of up to MAX_CLUSTER on devices that have clusters, from
 * MIN_CLUSTER_DIM genes on, of at least MIN_CLUSTER_SLOTS slots a block.
 * Returns 0 where none holds it (the OpenCL steps then work on it in
 * global memory). */
static int find_shape(const ga_state *state, native_shape *shape) {
  size_t shared = (size_t)state->device.local_memory_opt_in;
  size_t threads = state->device.max_work_group_size
                       ? state->device.max_work_group_size
                       : MAX_BLOCK;
  uint32_t most =
      ck__cuda_architecture(&state->device) >= CLUSTER_ARCHITECTURE &&
              state->dim >= MIN_CLUSTER_DIM
          ? MAX_CLUSTER
          : 1;
  /* ga.cu's generation knows the built-in objectives and the user's
   * without data (fused_user). */
  if (!state->streamed || state->double_precision ||
      state->dim > CK_GA_NATIVE_MAX_DIM)
    return 0;
  for (uint32_t cluster = 1; cluster <= most; ++cluster) {
    shape->cluster = cluster;
    shape->slots = (state->size + cluster - 1) / cluster;
    shape->block = (shape->slots + WARP - 1) / WARP * WARP;
    /* Every block holds a slot, and the first block the elites. */
    if (shape->slots * (cluster - 1) >= state->size ||
        shape->slots < (uint32_t)state->elite ||
        (cluster > 1 && shape->slots < MIN_CLUSTER_SLOTS))
      continue;
    if (shape->block <= MAX_BLOCK && shape->block <= threads &&
        shared_bytes(state, shape) <= shared)
      return 1;
  }
  return 0;
}

uint32_t ck__ga_span(uint32_t run_islands, uint32_t migrants, int dim) {
  size_t migrant_bytes =
      (size_t)run_islands * migrants * ((size_t)dim + 1) * sizeof(float);
  size_t fits = migrant_bytes ? RELAY_BYTES / migrant_bytes + 1 : 1;
  return fits < MAX_SEGMENTS ? (uint32_t)fits : MAX_SEGMENTS;
}

int ck__ga_cuda_supports(const ga_state *state) {
  native_shape shape;
  return find_shape(state, &shape);
}

static ck_status cuda_setup(ga_state *state) {
  ck_status status = CK_OK;
  char defines[640];
  native_shape shape;
  int sm_threads, sm_registers, sm_blocks;
  CK_TRY(ck__ga_opencl_steps.setup(state));
  if (!find_shape(state, &shape))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "the native GA kernel cannot hold islands of %u at d = %d",
            (unsigned)state->size, state->dim);
  state->native_block = shape.block;
  state->native_cluster = shape.cluster;
  /* A clustered island's blocks run as one, a launch of one segment: the
   * ring's migrations inside a launch are for islands of one block (a
   * random topology's cycle changes at every migration, and the driver
   * ends a launch at each), on a ring this device holds whole or, for a
   * spread member, whose previous member's memory it reads
   * (across_wanted). */
  uint32_t span = 1;
  if (shape.cluster == 1 && state->ring && state->migrate_every &&
      (state->run_islands == state->islands || state->across_wanted))
    span = ck__ga_span(state->run_islands, state->migrants, state->dim);
  state->across = state->across_wanted && span > 1;
  /* The kernel's launch bounds come from this device's SM; ga.cu takes
   * sm_90's where the device cannot say. */
  ck__cuda_multiprocessor(&state->device, &sm_threads, &sm_registers,
                          &sm_blocks);
  if (!sm_threads || !sm_registers || !sm_blocks)
    sm_threads = 2048, sm_registers = 65536, sm_blocks = 32;
  snprintf(
      defines, sizeof defines,
      "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_DIM=%d "
      "-DCK_GA_TOURNAMENT=%d -DCK_GA_CROSSOVER=%d -DCK_GA_MUTATION=%d "
      "-DCK_GA_ELITE=%d -DCK_GA_ISLAND=%u -DCK_GA_CLUSTER=%u "
      "-DCK_GA_SLOTS=%u -DCK_GA_BLOCK=%u -DCK_GA_MIGRANTS=%u "
      "-DCK_GA_DEFER_REFILLS=%d -DCK_GA_POOL_STEPS=%d -DCK_REAL_DOUBLE=0 "
      "-DCK_SM_THREADS=%d -DCK_SM_REGISTERS=%d -DCK_SM_BLOCKS=%d "
      "-DCK_GA_ACROSS=%d",
      state->objective, state->bounds, state->dim, state->tournament,
      state->crossover, state->mutation, state->elite, (unsigned)state->size,
      (unsigned)shape.cluster, (unsigned)shape.slots, (unsigned)shape.block,
      (unsigned)(state->migrants ? state->migrants : 1u), defers_refills(state),
      pools_steps(state), sm_threads, sm_registers, sm_blocks, state->across);
  CK_TRY(ck__program_build_prefixed(
      state->queue, "ga.cu", defines, state->problem->user_name,
      state->problem->user_source, &state->native_program));
  ck_kernel *kernel;
  CK_TRY(ck_kernel_create(state->native_program, "ck_ga_cuda_evolve", &kernel));
  state->native_evolve_kernel = kernel;
  CK_TRY(ck__cuda_kernel_set_shared(kernel, shared_bytes(state, &shape)));
  if (shape.cluster > 1)
    CK_TRY(ck__buffer_make(state->queue,
                           (size_t)state->islands * state->size *
                               CK_GA_NATIVE_ROW_QUADS((size_t)state->dim) * 16,
                           &state->native_rows));
  CK_TRY(ck__buffer_make(state->queue, schedule_bytes(state),
                         &state->native_schedule));
  /* Its counts of migrations sent across and taken (cl/ga.cu). */
  if (state->across)
    CK_TRY(ck__buffer_make_zeroed(state->queue, 4, sizeof(uint32_t),
                                  "the GA's counts across GPUs",
                                  &state->native_crossed));
  if (span > 1) {
    size_t slots = (size_t)(span - 1) * state->islands * state->migrants;
    CK_TRY(ck__buffer_make(state->queue, slots * state->dim * sizeof(float),
                           &state->native_relay));
    CK_TRY(ck__buffer_make(state->queue, slots * sizeof(float),
                           &state->native_relay_fitness));
  }
  CK_TRY(
      ck__cuda_kernel_resident(kernel, shape.block, &state->native_resident));
  state->span_segments = span;
  /* The native generation makes the migrations that border its launches,
   * and those inside them. */
  state->fused_migration = 1;
fail:
  return status;
}

/* Device memory for ck_ga_cuda_evolve's arguments; NULL for none. */
static float *device_reals(const ck_buffer *buffer) {
  return buffer ? (float *)ck__cuda_pointer(buffer) : NULL;
}

/* The one argument of ck_ga_cuda_evolve (cl/ga.cu), at each launch: the
 * generations from `first` and their statistics' slot, as the OpenCL
 * generation takes them (ck__ga_add_generation), and the migrations (the
 * migrant sets as ck__ga_add_migration gives them). Reals in single
 * precision, the kernel's. Buffers the shape does not use (the rows copy
 * of an island one block holds, the relay where no migrants are relayed)
 * are NULL. */
static ck_status set_evolve_arguments(ga_state *state, uint64_t first,
                                      uint32_t count, uint32_t slot,
                                      uint32_t migration) {
  uint32_t in = state->migrant_set, out = state->migrant_set ^ 1u;
  ck_ga_native_args native;
  /* The padding too, so that every launch passes the same bytes. */
  memset(&native, 0, sizeof native);
  native.lo = device_reals(state->lo);
  native.hi = device_reals(state->hi);
  native.population_a = device_reals(state->population[0]);
  native.population_b = device_reals(state->population[1]);
  native.fitness_a = device_reals(state->fitness[0]);
  native.fitness_b = device_reals(state->fitness[1]);
  native.stats = device_reals(state->stats);
  native.island_best = device_reals(state->island_best);
  native.island_best_genes = device_reals(state->island_best_genes);
  native.rows = device_reals(state->native_rows);
  native.migrants_in = device_reals(state->migrant_genes[in]);
  native.migrant_fitness_in = device_reals(state->migrant_fitness[in]);
  native.migrants_out = device_reals(state->migrant_genes[out]);
  native.migrant_fitness_out = device_reals(state->migrant_fitness[out]);
  native.migration_source = (const uint32_t *)ck__cuda_pointer(state->source);
  native.schedule = (uint32_t *)ck__cuda_pointer(state->native_schedule);
  native.relay = device_reals(state->native_relay);
  native.relay_fitness = device_reals(state->native_relay_fitness);
  native.crossed = state->native_crossed
                       ? (uint32_t *)ck__cuda_pointer(state->native_crossed)
                       : NULL;
  native.crossed_previous = (uint32_t *)(uintptr_t)state->crossed_previous;
  native.relay_previous = (const float *)(uintptr_t)state->relay_previous;
  native.relay_fitness_previous =
      (const float *)(uintptr_t)state->relay_fitness_previous;
  native.previous_segment = state->previous_segment;
  native.seed = state->seed;
  native.first_generation = first;
  native.islands = state->islands;
  native.generations = count;
  native.stats_slot = slot;
  native.migration = migration;
  native.migrate_every = state->migrate_every;
  native.per_task = per_task(state);
  native.first_island = state->first_island;
  native.crossover_rate = (float)state->crossover_rate;
  native.crossover_parameter = (float)state->crossover_parameter;
  native.mutation_rate = (float)state->mutation_rate;
  native.mutation_parameter = (float)state->mutation_parameter;
  native.inverse_log_keep = (float)state->inverse_log_keep;
  ck_kernel_args args;
  ck_kernel_args_begin(state->native_evolve_kernel, &args);
  ck_kernel_args_value(&args, sizeof native, &native);
  return ck_kernel_args_end(&args);
}

/* One launch for `count` generations: a cluster of native_cluster blocks
 * an island, or blocks that take the islands' tasks (ck_ga_schedule.h)
 * in turn, as many as the device holds at once and the tasks need. */
static ck_status cuda_evolve(ga_state *state, uint64_t first, uint32_t count,
                             uint32_t slot, uint32_t migration) {
  ck_status status;
  ck_kernel *kernel = state->native_evolve_kernel;
  size_t local = state->native_block,
         global = (size_t)state->islands * state->native_cluster * local;
  if (state->native_cluster == 1) {
    uint32_t segments = ck_ga_segments(first, count, state->migrate_every);
    size_t tickets =
        (size_t)ck_ga_sweeps(segments, per_task(state)) * state->islands;
    size_t blocks = state->native_resident && state->native_resident < tickets
                        ? state->native_resident
                        : tickets;
    uint32_t zero = 0;
    if (state->native_grid_limit && state->native_grid_limit < blocks)
      blocks = state->native_grid_limit;
    global = blocks * local;
    if ((status = ck_buffer_fill(state->queue, state->native_schedule, &zero,
                                 sizeof zero, 0, schedule_bytes(state), NULL)))
      return status;
  }
  if ((status = set_evolve_arguments(state, first, count, slot, migration)) ||
      (status =
           ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL)))
    return status;
  ck__ga_migration_made(state, migration);
  return CK_OK;
}

static void cuda_teardown(ga_state *state) {
  ck_kernel_destroy(state->native_evolve_kernel);
  state->native_evolve_kernel = NULL;
  ck_buffer_destroy(state->native_rows);
  state->native_rows = NULL;
  ck_buffer_destroy(state->native_schedule);
  ck_buffer_destroy(state->native_relay);
  ck_buffer_destroy(state->native_relay_fitness);
  ck_buffer_destroy(state->native_crossed);
  state->native_crossed = NULL;
  state->crossed_previous = state->relay_previous = 0;
  state->relay_fitness_previous = 0;
  state->native_schedule = state->native_relay = NULL;
  state->native_relay_fitness = NULL;
  ck_program_destroy(state->native_program);
  state->native_program = NULL;
  ck__ga_opencl_steps.teardown(state);
}

/* For the GAs ck__ga_cuda_supports() accepts; the other steps are the
 * OpenCL ones. */
const ck__ga_steps ck__ga_cuda_steps = {
    .setup = cuda_setup,
    .evolve = cuda_evolve,
    .teardown = cuda_teardown,
};
