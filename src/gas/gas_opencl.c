/* gas_opencl.c - the OpenCL steps of the 2D gas: kernels in cl/gas.cl.
 * A spread member's steps are gas_member_opencl.c's. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "gas/gas_internal.h"

void ck__gas_take_sorted(gas_state *state) {
  ck_buffer *swap = state->position;
  state->position = state->sorted_position;
  state->sorted_position = swap;
  swap = state->velocity;
  state->velocity = state->sorted_velocity;
  state->sorted_velocity = swap;
  swap = state->id;
  state->id = state->sorted_id;
  state->sorted_id = swap;
}

void ck__gas_add_geometry(const gas_state *state, ck_kernel_args *args) {
  int real = state->double_precision;
  ck_kernel_args_real(args, state->box_x, real);
  ck_kernel_args_real(args, state->box_y, real);
  ck_kernel_args_real(args, state->cell_inverse_x, real);
  ck_kernel_args_real(args, state->cell_inverse_y, real);
  ck_kernel_args_i32(args, state->cells_x);
  ck_kernel_args_i32(args, state->cells_y);
}

/* The pair model's 7 arguments. */
static void add_pair(const gas_state *state, ck_kernel_args *args) {
  int real = state->double_precision;
  ck_kernel_args_real(args, state->rc, real);
  ck_kernel_args_real(args, state->rc2, real);
  ck_kernel_args_real(args, state->energy_shift, real);
  ck_kernel_args_real(args, state->force_shift, real);
  ck_kernel_args_real(args, state->strength, real);
  ck_kernel_args_real(args, state->softening2, real);
  ck_kernel_args_i32(args, state->with_energy);
}

ck_status ck__gas_opencl_launch(gas_state *state, ck_kernel_args *args,
                                size_t items, size_t group) {
  ck_status status = ck_kernel_args_end(args);
  size_t global = (items + group - 1) / group * group;
  if (global == 0)
    global = group;
  return status ? status
                : ck_queue_launch(state->queue, args->kernel, 1, &global,
                                  &group, NULL);
}

ck_status ck__gas_opencl_run(gas_state *state, ck_kernel *kernel, size_t items,
                             const char *kinds, ...) {
  ck_kernel_args args;
  va_list values;
  ck_kernel_args_begin(kernel, &args);
  va_start(values, kinds);
  ck__kernel_args_list(&args, state->double_precision, kinds, values);
  va_end(values);
  return ck__gas_opencl_launch(state, &args, items, state->group);
}

/* Groups a compute unit that the sort's and the lists' kernels take
 * where they may skip themselves (launch_each). */
#define EACH_GROUPS_PER_UNIT 8u

/* The sort's and the lists' kernels (gas.cl's CK_GAS_EACH) over `items`:
 * a work-item each, or where they skip themselves unless a rebuild is
 * flagged (conditional), at most EACH_GROUPS_PER_UNIT groups a compute
 * unit, each work-item taking several. A Verlet run launches them at
 * every step; skipped, a group for every 256 of 4M particles took about
 * 12 us a launch on an H200. */
static ck_status launch_each(gas_state *state, ck_kernel_args *args,
                             size_t items, int conditional) {
  size_t most =
      (size_t)state->device.compute_units * EACH_GROUPS_PER_UNIT * state->group;
  if (conditional && most && items > most)
    items = most;
  return ck__gas_opencl_launch(state, args, items, state->group);
}

/* Verlet rebuilds of at most this many particles are sorted by one
 * work-item on CPUs (sort_request -1): a launch that sorts serially when
 * a rebuild is due costs less there than the five of the parallel sort,
 * which nearly every step makes in vain (and it lets the strip kernel take
 * the next first half-step). On 2 cores at density 0.8 and skin 0.3 the
 * two broke even at about 8192 particles; at 16384 the parallel sort was
 * 6% faster, at 2048 the whole sort 40%. */
#define CPU_WHOLE_SORT_LIMIT 8192u

/*
 * Work-groups per device: 256 work-items on GPUs (64 on CPUs, where PoCL
 * runs a group as loops) for the per-particle kernels and the all-pairs
 * tiles; scans of 256 (4 cells a work-item); the reduction uses at most
 * 1024 groups, so its second pass is one group's work.
 */
static ck_status size_groups(gas_state *state, int gpu) {
  ck_status status = CK_OK;
  size_t limit = state->device.max_work_group_size
                     ? state->device.max_work_group_size
                     : 256;
  state->group = gpu ? CK__GAS_GPU_GROUP : 64;
  state->scan_block = 256;
  while (state->group > limit)
    state->group /= 2;
  while (state->scan_block > limit)
    state->scan_block /= 2;
  /* A member's dropped slots take one more key, past the last cell. */
  uint32_t keys = state->cells + (state->member ? 1u : 0u);
  state->scan_blocks =
      (keys + 4 * state->scan_block - 1) / (4 * state->scan_block);
  state->reduce_group = state->group;
  state->reduce_groups = (state->particles + state->group - 1) / state->group;
  if (state->reduce_groups > 1024)
    state->reduce_groups = 1024;
  CK_TRY(ck__buffer_make_zeroed(state->queue, state->scan_blocks, 4,
                                "scan totals", &state->block_sum));
  CK_TRY(ck__buffer_make_zeroed(state->queue, (size_t)state->reduce_groups * 5,
                                state->real_size, "partial sums",
                                &state->partial_sums));
fail:
  return status;
}

/* The program, built for the state's groups, model and geometry. */
static ck_status build_program(gas_state *state, int gpu) {
  assert(state->list_chunk >= 1); /* gas_build.c's choose_forms sets it */
  /* Single precision on GPUs flushes subnormals: a reciprocal that keeps
   * them costs about four more instructions a pair on NVIDIA, and forces
   * that small are far below what the integrator resolves. */
  char defines[400];
  snprintf(defines, sizeof defines,
           "-DCK_GAS_GROUP=%u -DCK_GAS_SCAN_GROUP=%u -DCK_GAS_MODEL=%d "
           "-DCK_GAS_PERIODIC_X=%d -DCK_GAS_PERIODIC_Y=%d -DCK_GAS_WALLS_X=%d "
           "-DCK_GAS_WALLS_Y=%d -DCK_GAS_TILES=%d -DCK_GAS_LANES=%u "
           "-DCK_GAS_FORCE_SHIFT=%d -DCK_GAS_LIST_CHUNK=%u "
           "-DCK_GAS_MEMBER=%d -DCK_REAL_DOUBLE=%d%s",
           state->group, state->scan_block, state->model, state->periodic_x,
           state->periodic_y, state->walls_x, state->walls_y,
           state->local_tiles, state->lanes, state->force_shift != 0,
           state->list_chunk, state->member, state->double_precision,
           gpu && !state->double_precision ? " -cl-denorms-are-zero" : "");
  return ck_program_build(state->queue, "gas", defines, &state->program);
}

/* A kernel of the program by its name, and where it goes. */
typedef struct named_kernel {
  const char *name;
  ck_kernel **kernel;
} named_kernel;

static ck_status create_named(gas_state *state, const named_kernel *kernels,
                              size_t count) {
  ck_status status = CK_OK;
  for (size_t i = 0; i < count; ++i)
    CK_TRY(
        ck_kernel_create(state->program, kernels[i].name, kernels[i].kernel));
fail:
  return status;
}

/* The kernels every state runs, and the strips' where it has lanes. */
static ck_status create_kernels(gas_state *state) {
  ck_status status = CK_OK;
  named_kernel kernels[] = {
      {"ck_gas_kick_drift", &state->kick_drift_kernel},
      {"ck_gas_count", &state->count_kernel},
      {"ck_gas_scan_blocks", &state->scan_kernel},
      {"ck_gas_scan_totals", &state->scan_totals_kernel},
      {"ck_gas_scatter", &state->scatter_kernel},
      {"ck_gas_order", &state->order_kernel},
      {"ck_gas_place_by_id", &state->place_kernel},
      {"ck_gas_build_list", &state->list_kernel},
      {"ck_gas_forces_cells", &state->forces_kernel},
      {"ck_gas_forces_list", &state->forces_list_kernel},
      {"ck_gas_forces_all", &state->forces_all_kernel},
      {"ck_gas_kick", &state->kick_kernel},
      {"ck_gas_reduce", &state->reduce_kernel},
      {"ck_gas_reduce_total", &state->reduce_total_kernel},
      {"ck_gas_rescale", &state->rescale_kernel},
      {"ck_gas_accumulate_rdf", &state->rdf_kernel},
      {"ck_gas_sum_slices", &state->sum_slices_kernel}};
  CK_TRY(create_named(state, kernels, sizeof kernels / sizeof kernels[0]));
  if (state->lanes)
    CK_TRY(ck_kernel_create(state->program, "ck_gas_forces_strips",
                            &state->forces_strips_kernel));
fail:
  return status;
}

/* A spread member's kernels, and its census sums. */
static ck_status create_member_kernels(gas_state *state) {
  ck_status status = CK_OK;
  named_kernel members[] = {{"ck_gas_member_select", &state->select_kernel},
                            {"ck_gas_member_gather", &state->gather_kernel},
                            {"ck_gas_member_locate", &state->locate_kernel},
                            {"ck_gas_member_unpack", &state->unpack_kernel},
                            {"ck_gas_member_census", &state->census_kernel},
                            {"ck_gas_member_scale", &state->scale_kernel},
                            {"ck_gas_member_leave", &state->leave_kernel},
                            {"ck_gas_member_post", &state->post_kernel},
                            {"ck_gas_member_accept", &state->accept_kernel},
                            {"ck_gas_member_parts", &state->parts_kernel}};
  CK_TRY(create_named(state, members, sizeof members / sizeof members[0]));
  CK_TRY(ck__buffer_make_zeroed(state->queue, (size_t)state->reduce_groups * 3,
                                8, "census sums", &state->census_sums));
fail:
  return status;
}

/* Tiled all pairs: enough slices of the j range for about 8192
 * work-items a compute unit, so that small systems fill the device. */
static ck_status size_slices(gas_state *state) {
  state->slices = 1;
  if (state->neighbors != CK_GAS_ALL_PAIRS || !state->local_tiles)
    return CK_OK;
  size_t wanted =
      (size_t)(state->device.compute_units ? state->device.compute_units : 1) *
      8192;
  size_t tiles = (state->particles + state->group - 1) / state->group;
  size_t slices = (wanted + state->particles - 1) / state->particles;
  slices = slices > 64 ? 64 : slices;
  slices = slices > tiles ? tiles : slices;
  state->slices = slices < 1 ? 1 : (uint32_t)slices;
  return ck__buffer_make_zeroed(
      state->queue, (size_t)state->slices * state->particles * 4,
      state->real_size, "all-pairs slices", &state->slice_sums);
}

static ck_status opencl_setup(gas_state *state) {
  ck_status status = CK_OK;
  int gpu = state->device.kind == CK_KIND_GPU;
  CK_TRY(size_groups(state, gpu));
  state->local_tiles = state->tiles >= 0 ? state->tiles : gpu;
  CK_TRY(build_program(state, gpu));
  CK_TRY(create_kernels(state));
  if (state->member)
    CK_TRY(create_member_kernels(state));
  /* A member sorts in parallel: the one work-item's sort keeps no room
   * for its dropped slots' key. */
  state->sort_whole =
      !state->member && state->neighbors == CK_GAS_VERLET &&
      (state->sort_request > 0 ||
       (state->sort_request < 0 && state->device.kind == CK_KIND_CPU &&
        state->particles <= CPU_WHOLE_SORT_LIMIT));
  if (state->sort_whole)
    CK_TRY(ck_kernel_create(state->program, "ck_gas_sort_whole",
                            &state->sort_whole_kernel));
  CK_TRY(size_slices(state));
fail:
  return status;
}

/* The bit of flags[0] that this step's Verlet rebuild reads, and the
 * other, which forces taking the next step's first half set. */
static uint32_t rebuild_bit(const gas_state *state) {
  return 1u << state->rebuild_parity;
}
static uint32_t next_rebuild_bit(const gas_state *state) {
  return 1u << (state->rebuild_parity ^ 1);
}

ck_status ck__gas_opencl_kick_drift(gas_state *state) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel *kernel = state->kick_drift_kernel;
  int verlet = state->neighbors == CK_GAS_VERLET;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_real(&args, state->dt, real);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_u32(&args, verlet ? rebuild_bit(state) : 0u);
  ck_kernel_args_buffer(&args, verlet ? state->reference : state->position);
  ck_kernel_args_real(&args, 0.25 * state->skin * state->skin, real);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
fail:
  return status;
}

/* Verlet strips sorted whole: the sort clears the rebuild flag (the strip
 * kernel may then set it, taking the next step's first half-step). */
static int flag_cleared_by_sort(const gas_state *state) {
  return state->sort_whole && state->strips;
}

/* The whole sort by one work-item (a Verlet rebuild), skipped on the
 * device unless a rebuild is flagged when conditional. */
static ck_status sort_whole(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel *kernel = state->sort_whole_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_u32(&args, state->cells);
  ck__gas_add_geometry(state, &args);
  ck_buffer *buffers[] = {
      state->position,        state->velocity,        state->id,
      state->sorted_position, state->sorted_velocity, state->sorted_id,
      state->cell_key,        state->cell_start,      state->cell_count,
      state->cell_fill,       state->reference};
  for (unsigned b = 0; b < sizeof buffers / sizeof buffers[0]; ++b)
    ck_kernel_args_buffer(&args, buffers[b]);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_i32(&args, flag_cleared_by_sort(state));
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(ck__gas_opencl_launch(state, &args, 1, 1));
fail:
  return status;
}

/* The parallel counting sort's first pass: each particle's cell and its
 * rank there, counted in cell_fill. */
static ck_status sort_count(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel *kernel = state->count_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->cell_key);
  ck_kernel_args_buffer(&args, state->cell_rank);
  ck_kernel_args_buffer(&args, state->cell_fill);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(launch_each(state, &args, state->particles, conditional));
fail:
  return status;
}

/* The scan of the keys' counts: within blocks, then the blocks' totals. */
static ck_status sort_scan(gas_state *state, int conditional, uint32_t keys) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel *kernel = state->scan_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, keys);
  ck_kernel_args_buffer(&args, state->cell_fill);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->block_sum);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(ck__gas_opencl_launch(state, &args,
                               (size_t)state->scan_blocks * state->scan_block,
                               state->scan_block));

  kernel = state->scan_totals_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->scan_blocks);
  ck_kernel_args_buffer(&args, state->block_sum);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->scan_block,
                               state->scan_block));
fail:
  return status;
}

/* Each particle scattered to its place in the sorted arrays, then each
 * cell's order within them made. */
static ck_status sort_scatter(gas_state *state, int conditional,
                              uint32_t keys) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel *kernel = state->scatter_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_buffer(&args, state->cell_key);
  ck_kernel_args_buffer(&args, state->cell_rank);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->block_sum);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->sorted_position);
  ck_kernel_args_buffer(&args, state->sorted_velocity);
  ck_kernel_args_buffer(&args, state->sorted_id);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(launch_each(state, &args, state->particles, conditional));

  /* Verlet's cells are ordered as they are placed back (sort_place). */
  kernel = state->order_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, keys);
  ck_kernel_args_u32(&args,
                     state->neighbors == CK_GAS_VERLET ? 0u : state->cells);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, state->block_sum);
  ck_kernel_args_buffer(&args, state->cell_fill);
  ck_kernel_args_buffer(&args, state->sorted_position);
  ck_kernel_args_buffer(&args, state->sorted_velocity);
  ck_kernel_args_buffer(&args, state->sorted_id);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(launch_each(state, &args, keys, conditional));
fail:
  return status;
}

/* Verlet's sorted arrays back into the particle arrays, each cell's
 * slots placed by id (gas.cl's ck_gas_place_by_id). */
static ck_status sort_place(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel *kernel = state->place_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_u32(&args, state->cells);
  ck__gas_add_geometry(state, &args);
  ck_buffer *buffers[] = {
      state->cell_start,      state->cell_count, state->sorted_position,
      state->sorted_velocity, state->sorted_id,  state->position,
      state->velocity,        state->id,         state->reference};
  for (unsigned b = 0; b < sizeof buffers / sizeof buffers[0]; ++b)
    ck_kernel_args_buffer(&args, buffers[b]);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(launch_each(state, &args, state->particles, conditional));
fail:
  return status;
}

/* The parallel counting sort by cell (and for Verlet, the placing back
 * into the particle arrays), each kernel skipping itself on the device unless a
 * rebuild is flagged when conditional. */
static ck_status sort_in_parallel(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  uint32_t keys = state->cells + (state->member ? 1u : 0u);
  CK_TRY(sort_count(state, conditional));
  CK_TRY(sort_scan(state, conditional, keys));
  CK_TRY(sort_scatter(state, conditional, keys));
  if (state->neighbors != CK_GAS_VERLET) {
    /* Every step sorts: the sorted arrays simply become the particles. */
    ck__gas_take_sorted(state);
    return CK_OK;
  }
  CK_TRY(sort_place(state, conditional));
fail:
  return status;
}

/* A Verlet rebuild's lists, as the sort's kernels when conditional. */
static ck_status build_lists(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel *kernel = state->list_kernel;
  double range = state->rc + state->skin;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_real(&args, range * range, real);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, state->list);
  ck_kernel_args_buffer(&args, state->list_count);
  ck_kernel_args_u32(&args, state->list_capacity);
  ck_kernel_args_i32(&args, conditional);
  ck_kernel_args_buffer(&args, state->flags);
  CK_TRY(launch_each(state, &args, state->particles, conditional));
fail:
  return status;
}

/* The sort by cell, and for Verlet lists the lists: every step in cells
 * mode; in Verlet mode when forced, or else by kernels that skip
 * themselves on the device unless a rebuild is flagged. */
static ck_status opencl_neighbors(gas_state *state, int force_rebuild) {
  ck_status status = CK_OK;
  if (state->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  /* The kernels' only_if_flagged: the rebuild bit, or 0 for always. */
  int conditional = state->neighbors == CK_GAS_VERLET && !force_rebuild
                        ? (int)rebuild_bit(state)
                        : 0;
  if (state->sort_whole)
    CK_TRY(sort_whole(state, conditional));
  else
    CK_TRY(sort_in_parallel(state, conditional));
  /* Strips keep the rebuild's cells instead of lists. */
  if (state->neighbors == CK_GAS_VERLET && !state->strips)
    CK_TRY(build_lists(state, conditional));
fail:
  return status;
}

void ck__gas_add_kick(const gas_state *state, ck_kernel_args *args) {
  int real = state->double_precision;
  int langevin = state->thermostat == CK_GAS_LANGEVIN;
  ck_kernel_args_i32(args, state->kick_step != 0);
  ck_kernel_args_real(args, state->dt, real);
  ck_kernel_args_real(args, langevin ? state->langevin_damping : 0.0, real);
  ck_kernel_args_real(args, state->langevin_noise, real);
  ck_kernel_args_u64(args, state->seed);
  ck_kernel_args_u64(args, state->kick_step);
  ck_kernel_args_buffer(args, state->velocity);
  ck_kernel_args_buffer(args, state->id);
}

/* The arguments every forces kernel begins with: the particle count, the
 * geometry, the pair model and the positions. */
static void begin_forces(const gas_state *state, ck_kernel *kernel,
                         ck_kernel_args *args) {
  ck_kernel_args_begin(kernel, args);
  ck_kernel_args_u32(args, state->particles);
  ck__gas_add_geometry(state, args);
  add_pair(state, args);
  ck_kernel_args_buffer(args, state->position);
}

/* Cells and Verlet modes: the forces and, when the driver has one due,
 * the kick in the same launch. */
static ck_status neighbor_forces(gas_state *state) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->strips ? state->forces_strips_kernel
                      : state->neighbors == CK_GAS_CELLS
                          ? state->forces_kernel
                          : state->forces_list_kernel;
  int real = state->double_precision;
  ck_kernel_args args;
  begin_forces(state, kernel, &args);
  if (state->strips)
    ck_kernel_args_buffer(&args, state->neighbors == CK_GAS_VERLET
                                     ? state->reference
                                     : state->position);
  if (state->neighbors == CK_GAS_CELLS || state->strips) {
    ck_kernel_args_buffer(&args, state->cell_start);
    ck_kernel_args_buffer(&args, state->cell_count);
  } else {
    ck_kernel_args_buffer(&args, state->list);
    ck_kernel_args_buffer(&args, state->list_count);
    ck_kernel_args_u32(&args, state->list_capacity);
  }
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_buffer(&args, state->energy);
  ck_kernel_args_buffer(&args, state->virial);
  if (state->neighbors == CK_GAS_VERLET || state->strips)
    ck_kernel_args_buffer(&args, state->flags);
  ck__gas_add_kick(state, &args);
  int ahead = 0;
  if (kernel == state->forces_list_kernel) {
    /* Lists take the next first half-step when the driver allows it. */
    ahead = state->ahead && state->kick_step != 0;
    ck_kernel_args_u32(&args, rebuild_bit(state));
    ck_kernel_args_u32(&args, ahead ? next_rebuild_bit(state) : 0u);
    ck_kernel_args_real(&args, 0.25 * state->skin * state->skin, real);
    ck_kernel_args_buffer(&args, state->reference);
    ck_kernel_args_buffer(&args, state->sorted_position);
  } else if (state->strips) {
    /* Strips in Verlet mode take the next first half-step too, when the
     * driver allows it and the sort clears the flag they set. */
    ahead =
        state->ahead && state->kick_step != 0 && flag_cleared_by_sort(state);
    ck_kernel_args_i32(&args, !flag_cleared_by_sort(state));
    ck_kernel_args_i32(&args, ahead);
    ck_kernel_args_real(&args, 0.25 * state->skin * state->skin, real);
    ck_kernel_args_buffer(&args, state->sorted_position);
  }
  size_t items = state->particles;
  if (kernel != state->forces_kernel) {
    /* A member's part of the forces (CK_GAS_PART_ARGUMENTS); the marks
     * and the border's slots are read in parts alone, the border's a
     * work-item each. */
    ck_kernel_args_i32(&args, state->force_part);
    ck_kernel_args_buffer(&args,
                          state->part_mark ? state->part_mark : state->id);
    ck_kernel_args_buffer(&args, state->border_slots ? state->border_slots
                                                     : state->id);
    if (state->force_part == 2)
      items = ck__gas_member_border(state);
  }
  CK_TRY(ck__gas_opencl_launch(state, &args, items, state->group));
  state->kick_step = 0;
  /* A member's interior (part 1) leaves the arrays to its border. */
  if (ahead && state->force_part != 1) {
    /* The next positions are in the spare array: it becomes the
     * positions. */
    ck_buffer *swap = state->position;
    state->position = state->sorted_position;
    state->sorted_position = swap;
    state->drifted = 1;
    if (kernel == state->forces_list_kernel)
      state->rebuild_parity ^= 1;
  }
fail:
  return status;
}

static ck_status opencl_forces(gas_state *state) {
  ck_status status = CK_OK;
  if (state->neighbors != CK_GAS_ALL_PAIRS)
    return neighbor_forces(state);
  ck_kernel *kernel = state->forces_all_kernel;
  ck_kernel_args args;
  begin_forces(state, kernel, &args);
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_buffer(&args, state->energy);
  ck_kernel_args_buffer(&args, state->virial);
  if (!state->local_tiles) {
    ck_kernel_args_u32(&args, 1);
    ck_kernel_args_buffer(&args, state->force); /* unused */
    CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
    return CK_OK;
  }
  ck_kernel_args_u32(&args, state->slices);
  ck_kernel_args_buffer(&args, state->slice_sums);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local[2] = {state->group, 1};
  size_t global[2] = {(state->particles + state->group - 1) / state->group *
                          state->group,
                      state->slices};
  CK_TRY(ck_queue_launch(state->queue, kernel, 2, global, local, NULL));
  kernel = state->sum_slices_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_u32(&args, state->slices);
  ck_kernel_args_i32(&args, state->with_energy);
  ck_kernel_args_buffer(&args, state->slice_sums);
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_buffer(&args, state->energy);
  ck_kernel_args_buffer(&args, state->virial);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
fail:
  return status;
}

static ck_status opencl_kick(gas_state *state, uint64_t step) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel *kernel = state->kick_kernel;
  int langevin = state->thermostat == CK_GAS_LANGEVIN;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_real(&args, state->dt, real);
  ck_kernel_args_real(&args, langevin ? state->langevin_damping : 0.0, real);
  ck_kernel_args_real(&args, state->langevin_noise, real);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_u64(&args, step);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_buffer(&args, state->id);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
fail:
  return status;
}

/* The totals into state->sums on the device (5 reals). */
static ck_status reduce_on_device(gas_state *state) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel *kernel = state->reduce_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->energy);
  ck_kernel_args_buffer(&args, state->virial);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->partial_sums);
  CK_TRY(ck__gas_opencl_launch(
      state, &args, (size_t)state->reduce_groups * state->group, state->group));
  kernel = state->reduce_total_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->reduce_groups);
  ck_kernel_args_buffer(&args, state->partial_sums);
  ck_kernel_args_buffer(&args, state->sums);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->group, state->group));
fail:
  return status;
}

static ck_status opencl_reduce(gas_state *state, double sums[5]) {
  ck_status status = CK_OK;
  CK_TRY(reduce_on_device(state));
  double wide[5];
  float narrow[5];
  if (state->double_precision) {
    CK_TRY(ck_buffer_read(state->queue, state->sums, 0, sizeof wide, wide,
                          CK_BLOCKING, NULL));
  } else {
    CK_TRY(ck_buffer_read(state->queue, state->sums, 0, sizeof narrow, narrow,
                          CK_BLOCKING, NULL));
    for (int q = 0; q < 5; ++q)
      wide[q] = narrow[q];
  }
  for (int q = 0; q < 5; ++q)
    sums[q] = wide[q];
fail:
  return status;
}

static ck_status opencl_rescale(gas_state *state) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  ck_kernel_args args;
  CK_TRY(reduce_on_device(state));
  ck_kernel *kernel = state->rescale_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_real(&args, state->target_temperature, real);
  ck_kernel_args_real(&args, state->degrees_of_freedom, real);
  ck_kernel_args_buffer(&args, state->sums);
  ck_kernel_args_buffer(&args, state->velocity);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
fail:
  return status;
}

static ck_status opencl_rdf(gas_state *state, uint32_t bins, double range) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel *kernel = state->rdf_kernel;
  /* Verlet strips keep the rebuild's cells: pairs from those, around the
   * rebuild's positions. */
  int verlet_lists = state->neighbors == CK_GAS_VERLET && !state->strips;
  int mode = state->neighbors == CK_GAS_ALL_PAIRS ? 2 : verlet_lists ? 1 : 0;
  ck_buffer *anchor =
      state->neighbors == CK_GAS_VERLET ? state->reference : state->position;
  /* Buffers the mode does not use still need a valid argument. */
  ck_buffer *list = mode == 1 ? state->list : state->cell_start;
  ck_buffer *list_count = mode == 1 ? state->list_count : state->cell_count;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, anchor);
  ck_kernel_args_i32(&args, mode);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, list);
  ck_kernel_args_buffer(&args, list_count);
  ck_kernel_args_u32(&args, state->list_capacity);
  ck_kernel_args_real(&args, range, real);
  ck_kernel_args_u32(&args, bins);
  ck_kernel_args_buffer(&args, state->rdf_counts);
  ck_kernel_args_buffer(&args, state->id);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
fail:
  return status;
}

static void opencl_teardown(gas_state *state) {
  ck_kernel *kernels[] = {state->kick_drift_kernel, state->count_kernel,
                          state->scan_kernel,       state->scan_totals_kernel,
                          state->scatter_kernel,    state->order_kernel,
                          state->place_kernel,      state->list_kernel,
                          state->forces_kernel,     state->forces_list_kernel,
                          state->forces_all_kernel, state->kick_kernel,
                          state->reduce_kernel,     state->reduce_total_kernel,
                          state->rescale_kernel,    state->rdf_kernel,
                          state->sum_slices_kernel, state->forces_strips_kernel,
                          state->sort_whole_kernel, state->select_kernel,
                          state->gather_kernel,     state->locate_kernel,
                          state->unpack_kernel,     state->census_kernel,
                          state->scale_kernel,      state->leave_kernel,
                          state->post_kernel,       state->accept_kernel,
                          state->parts_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(state->program);
  ck_buffer_destroy(state->slice_sums);
  ck_buffer_destroy(state->census_sums);
}

const ck__gas_steps ck__gas_opencl_steps = {
    .setup = opencl_setup,
    .kick_drift = ck__gas_opencl_kick_drift,
    .neighbors = opencl_neighbors,
    .forces = opencl_forces,
    .kick = opencl_kick,
    .rescale = opencl_rescale,
    .reduce = opencl_reduce,
    .rdf = opencl_rdf,
    .teardown = opencl_teardown,
    .select = ck__gas_opencl_select,
    .post = ck__gas_opencl_post,
    .accept = ck__gas_opencl_accept,
    .gather = ck__gas_opencl_gather,
    .locate = ck__gas_opencl_locate,
    .unpack = ck__gas_opencl_unpack,
    .parts = ck__gas_opencl_parts,
    .census = ck__gas_opencl_census,
    .scale = ck__gas_opencl_scale,
    .leave = ck__gas_opencl_leave,
};
