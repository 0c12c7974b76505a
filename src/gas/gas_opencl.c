/* gas_opencl.c - the OpenCL steps of the 2D gas: kernels in cl/gas.cl. */
#include <stdio.h>
#include <stdlib.h>

#include "gas/gas_internal.h"
#include "objectives/problem.h"

static ck_status set_real(ck_kernel *kernel, unsigned index,
                          const gas_state *state, double value) {
  return ck__kernel_set_real(kernel, index, state->double_precision, value);
}

ck_status ck__gas_set_uint(ck_kernel *kernel, unsigned index, uint32_t value) {
  return ck_kernel_set_value(kernel, index, sizeof value, &value);
}

ck_status ck__gas_set_int(ck_kernel *kernel, unsigned index, int value) {
  return ck_kernel_set_value(kernel, index, sizeof value, &value);
}

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

ck_status ck__gas_set_geometry(ck_kernel *kernel, unsigned at,
                               const gas_state *state) {
  ck_status status = CK_OK;
  CK_TRY(set_real(kernel, at, state, state->box_x));
  CK_TRY(set_real(kernel, at + 1, state, state->box_y));
  CK_TRY(set_real(kernel, at + 2, state, state->cell_inverse_x));
  CK_TRY(set_real(kernel, at + 3, state, state->cell_inverse_y));
  CK_TRY(ck__gas_set_int(kernel, at + 4, state->cells_x));
  CK_TRY(ck__gas_set_int(kernel, at + 5, state->cells_y));
fail:
  return status;
}

/* The pair model's 7 arguments from index `at` on. */
static ck_status set_pair(ck_kernel *kernel, unsigned at,
                          const gas_state *state) {
  ck_status status = CK_OK;
  CK_TRY(set_real(kernel, at, state, state->rc));
  CK_TRY(set_real(kernel, at + 1, state, state->rc2));
  CK_TRY(set_real(kernel, at + 2, state, state->energy_shift));
  CK_TRY(set_real(kernel, at + 3, state, state->force_shift));
  CK_TRY(set_real(kernel, at + 4, state, state->strength));
  CK_TRY(set_real(kernel, at + 5, state, state->softening2));
  CK_TRY(ck__gas_set_int(kernel, at + 6, state->with_energy));
fail:
  return status;
}

static ck_status launch(gas_state *state, ck_kernel *kernel, size_t items,
                        size_t group) {
  size_t global = (items + group - 1) / group * group;
  if (global == 0)
    global = group;
  return ck_queue_launch(state->queue, kernel, 1, &global, &group, NULL);
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
static ck_status opencl_setup(gas_state *state) {
  ck_status status = CK_OK;
  int gpu = state->device.kind == CK_KIND_GPU;
  size_t limit = state->device.max_work_group_size
                     ? state->device.max_work_group_size
                     : 256;
  state->group = gpu ? 256 : 64;
  state->scan_block = 256;
  while (state->group > limit)
    state->group /= 2;
  while (state->scan_block > limit)
    state->scan_block /= 2;
  state->scan_blocks =
      (state->cells + 4 * state->scan_block - 1) / (4 * state->scan_block);
  state->reduce_group = state->group;
  state->reduce_groups = (state->particles + state->group - 1) / state->group;
  if (state->reduce_groups > 1024)
    state->reduce_groups = 1024;
  CK_TRY(ck__buffer_make_zeroed(state->queue, state->scan_blocks, 4,
                                "scan totals", &state->block_sum));
  CK_TRY(ck__buffer_make_zeroed(state->queue, (size_t)state->reduce_groups * 5,
                                state->real_size, "partial sums",
                                &state->partial_sums));
  state->local_tiles = state->tiles >= 0 ? state->tiles : gpu;
  /* Single precision on GPUs flushes subnormals: a reciprocal that keeps
   * them costs about four more instructions a pair on NVIDIA, and forces
   * that small are far below what the integrator resolves. */
  char defines[260];
  snprintf(defines, sizeof defines,
           "-DCK_GAS_GROUP=%u -DCK_GAS_SCAN_GROUP=%u -DCK_GAS_MODEL=%d "
           "-DCK_GAS_WALLS=%d -DCK_GAS_TILES=%d -DCK_GAS_LANES=%u "
           "-DCK_GAS_FORCE_SHIFT=%d -DCK_REAL_DOUBLE=%d%s",
           state->group, state->scan_block, state->model, state->walls,
           state->local_tiles, state->lanes, state->force_shift != 0,
           state->double_precision,
           gpu && !state->double_precision ? " -cl-denorms-are-zero" : "");
  CK_TRY(ck_program_build(state->queue, "gas", defines, &state->program));
  struct {
    const char *name;
    ck_kernel **kernel;
  } kernels[] = {{"ck_gas_kick_drift", &state->kick_drift_kernel},
                 {"ck_gas_count", &state->count_kernel},
                 {"ck_gas_scan_blocks", &state->scan_kernel},
                 {"ck_gas_scan_totals", &state->scan_totals_kernel},
                 {"ck_gas_scatter", &state->scatter_kernel},
                 {"ck_gas_order", &state->order_kernel},
                 {"ck_gas_copy_back", &state->copy_back_kernel},
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
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    CK_TRY(
        ck_kernel_create(state->program, kernels[i].name, kernels[i].kernel));
  if (state->lanes)
    CK_TRY(ck_kernel_create(state->program, "ck_gas_forces_strips",
                            &state->forces_strips_kernel));
  state->sort_whole =
      state->neighbors == CK_GAS_VERLET &&
      (state->sort_request > 0 ||
       (state->sort_request < 0 && state->device.kind == CK_KIND_CPU &&
        state->particles <= CPU_WHOLE_SORT_LIMIT));
  if (state->sort_whole)
    CK_TRY(ck_kernel_create(state->program, "ck_gas_sort_whole",
                            &state->sort_whole_kernel));
  /* Tiled all pairs: enough slices of the j range for about 8192
   * work-items a compute unit, so that small systems fill the device. */
  state->slices = 1;
  if (state->neighbors == CK_GAS_ALL_PAIRS && state->local_tiles) {
    size_t wanted =
        (size_t)(state->device.compute_units ? state->device.compute_units
                                             : 1) *
        8192;
    size_t tiles = (state->particles + state->group - 1) / state->group;
    size_t slices = (wanted + state->particles - 1) / state->particles;
    slices = slices > 64 ? 64 : slices;
    slices = slices > tiles ? tiles : slices;
    state->slices = slices < 1 ? 1 : (uint32_t)slices;
    CK_TRY(ck__buffer_make_zeroed(
        state->queue, (size_t)state->slices * state->particles * 4,
        state->real_size, "all-pairs slices", &state->slice_sums));
  }
fail:
  return status;
}

static ck_status opencl_kick_drift(gas_state *state) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->kick_drift_kernel;
  int verlet = state->neighbors == CK_GAS_VERLET;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(set_real(kernel, 1, state, state->dt));
  CK_TRY(ck__gas_set_geometry(kernel, 2, state));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->position));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->force));
  CK_TRY(ck__gas_set_int(kernel, 11, verlet));
  CK_TRY(ck_kernel_set_buffer(kernel, 12,
                              verlet ? state->reference : state->position));
  CK_TRY(set_real(kernel, 13, state, 0.25 * state->skin * state->skin));
  CK_TRY(ck_kernel_set_buffer(kernel, 14, state->flags));
  CK_TRY(launch(state, kernel, state->particles, state->group));
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
  ck_kernel *kernel = state->sort_whole_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck__gas_set_uint(kernel, 1, state->cells));
  CK_TRY(ck__gas_set_geometry(kernel, 2, state));
  ck_buffer *buffers[] = {
      state->position,        state->velocity,        state->id,
      state->sorted_position, state->sorted_velocity, state->sorted_id,
      state->cell_key,        state->cell_start,      state->cell_count,
      state->cell_fill,       state->reference};
  for (unsigned b = 0; b < sizeof buffers / sizeof buffers[0]; ++b)
    CK_TRY(ck_kernel_set_buffer(kernel, 8 + b, buffers[b]));
  CK_TRY(ck__gas_set_int(kernel, 19, conditional));
  CK_TRY(ck__gas_set_int(kernel, 20, flag_cleared_by_sort(state)));
  CK_TRY(ck_kernel_set_buffer(kernel, 21, state->flags));
  CK_TRY(launch(state, kernel, 1, 1));
fail:
  return status;
}

/* The parallel counting sort by cell (and for Verlet, the copy back into
 * the particle arrays), each kernel skipping itself on the device unless a
 * rebuild is flagged when conditional. */
static ck_status sort_in_parallel(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->count_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck__gas_set_geometry(kernel, 1, state));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->position));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->cell_key));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->cell_rank));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->cell_fill));
  CK_TRY(ck__gas_set_int(kernel, 11, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 12, state->flags));
  CK_TRY(launch(state, kernel, state->particles, state->group));

  kernel = state->scan_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->cells));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->cell_fill));
  CK_TRY(ck_kernel_set_buffer(kernel, 2, state->cell_count));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->cell_start));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->block_sum));
  CK_TRY(ck__gas_set_int(kernel, 5, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->flags));
  CK_TRY(launch(state, kernel, (size_t)state->scan_blocks * state->scan_block,
                state->scan_block));

  kernel = state->scan_totals_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->scan_blocks));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->block_sum));
  CK_TRY(ck__gas_set_int(kernel, 2, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->flags));
  CK_TRY(launch(state, kernel, state->scan_block, state->scan_block));

  kernel = state->scatter_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->cell_key));
  CK_TRY(ck_kernel_set_buffer(kernel, 2, state->cell_rank));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->cell_start));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->block_sum));
  CK_TRY(ck_kernel_set_buffer(kernel, 5, state->position));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->id));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->sorted_position));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->sorted_id));
  CK_TRY(ck__gas_set_int(kernel, 11, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 12, state->flags));
  CK_TRY(launch(state, kernel, state->particles, state->group));

  kernel = state->order_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->cells));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->cell_start));
  CK_TRY(ck_kernel_set_buffer(kernel, 2, state->cell_count));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->block_sum));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->cell_fill));
  CK_TRY(ck_kernel_set_buffer(kernel, 5, state->sorted_position));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->sorted_id));
  CK_TRY(ck__gas_set_int(kernel, 8, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->flags));
  CK_TRY(launch(state, kernel, state->cells, state->group));

  if (state->neighbors != CK_GAS_VERLET) {
    /* Every step sorts: the sorted arrays simply become the particles. */
    ck__gas_take_sorted(state);
    return CK_OK;
  }
  kernel = state->copy_back_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->sorted_position));
  CK_TRY(ck_kernel_set_buffer(kernel, 2, state->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->sorted_id));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->position));
  CK_TRY(ck_kernel_set_buffer(kernel, 5, state->velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->id));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->reference));
  CK_TRY(ck__gas_set_int(kernel, 8, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->flags));
  CK_TRY(launch(state, kernel, state->particles, state->group));

fail:
  return status;
}

/* A Verlet rebuild's lists, as the sort's kernels when conditional. */
static ck_status build_lists(gas_state *state, int conditional) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->list_kernel;
  double range = state->rc + state->skin;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck__gas_set_geometry(kernel, 1, state));
  CK_TRY(set_real(kernel, 7, state, range * range));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->position));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->cell_start));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->cell_count));
  CK_TRY(ck_kernel_set_buffer(kernel, 11, state->list));
  CK_TRY(ck_kernel_set_buffer(kernel, 12, state->list_count));
  CK_TRY(ck__gas_set_uint(kernel, 13, state->list_capacity));
  CK_TRY(ck__gas_set_int(kernel, 14, conditional));
  CK_TRY(ck_kernel_set_buffer(kernel, 15, state->flags));
  CK_TRY(launch(state, kernel, state->particles, state->group));
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
  int conditional = state->neighbors == CK_GAS_VERLET && !force_rebuild;
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

ck_status ck__gas_set_kick(ck_kernel *kernel, unsigned at,
                           const gas_state *state) {
  ck_status status = CK_OK;
  int langevin = state->thermostat == CK_GAS_LANGEVIN;
  CK_TRY(ck__gas_set_int(kernel, at, state->kick_step != 0));
  CK_TRY(set_real(kernel, at + 1, state, state->dt));
  CK_TRY(set_real(kernel, at + 2, state,
                  langevin ? state->langevin_damping : 0.0));
  CK_TRY(set_real(kernel, at + 3, state, state->langevin_noise));
  CK_TRY(ck_kernel_set_value(kernel, at + 4, sizeof state->seed, &state->seed));
  CK_TRY(ck_kernel_set_value(kernel, at + 5, sizeof state->kick_step,
                             &state->kick_step));
  CK_TRY(ck_kernel_set_buffer(kernel, at + 6, state->velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, at + 7, state->id));
fail:
  return status;
}

/* The arguments every forces kernel begins with: the particle count, the
 * geometry, the pair model and the positions (indices 0 to 14). */
static ck_status set_forces_head(ck_kernel *kernel, const gas_state *state) {
  ck_status status = CK_OK;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck__gas_set_geometry(kernel, 1, state));
  CK_TRY(set_pair(kernel, 7, state));
  CK_TRY(ck_kernel_set_buffer(kernel, 14, state->position));
fail:
  return status;
}

/* Cells and Verlet modes: the forces and, when the driver has one due,
 * the kick in the same launch. */
static ck_status neighbor_forces(gas_state *state) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->strips ? state->forces_strips_kernel
                      : state->neighbors == CK_GAS_CELLS
                          ? state->forces_kernel
                          : state->forces_list_kernel;
  CK_TRY(set_forces_head(kernel, state));
  unsigned at = 15;
  if (state->strips) {
    int verlet = state->neighbors == CK_GAS_VERLET;
    CK_TRY(ck_kernel_set_buffer(kernel, at++,
                                verlet ? state->reference : state->position));
  }
  if (state->neighbors == CK_GAS_CELLS || state->strips) {
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->cell_start));
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->cell_count));
  } else {
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->list));
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->list_count));
    CK_TRY(ck__gas_set_uint(kernel, at++, state->list_capacity));
  }
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->force));
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->energy));
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->virial));
  if (state->neighbors == CK_GAS_VERLET || state->strips)
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->flags));
  CK_TRY(ck__gas_set_kick(kernel, at, state));
  int ahead = 0;
  if (state->strips) {
    /* Strips in Verlet mode take the next first half-step too, when the
     * driver allows it and the sort clears the flag they set. */
    ahead =
        state->ahead && state->kick_step != 0 && flag_cleared_by_sort(state);
    at += 8;
    CK_TRY(ck__gas_set_int(kernel, at++, !flag_cleared_by_sort(state)));
    CK_TRY(ck__gas_set_int(kernel, at++, ahead));
    CK_TRY(set_real(kernel, at++, state, 0.25 * state->skin * state->skin));
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->sorted_position));
  }
  CK_TRY(launch(state, kernel, state->particles, state->group));
  state->kick_step = 0;
  if (ahead) {
    /* The next positions are in the spare array: it becomes the
     * positions. */
    ck_buffer *swap = state->position;
    state->position = state->sorted_position;
    state->sorted_position = swap;
    state->drifted = 1;
  }
fail:
  return status;
}

static ck_status opencl_forces(gas_state *state) {
  ck_status status = CK_OK;
  if (state->neighbors != CK_GAS_ALL_PAIRS)
    return neighbor_forces(state);
  ck_kernel *kernel = state->forces_all_kernel;
  CK_TRY(set_forces_head(kernel, state));
  unsigned at = 15;
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->force));
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->energy));
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->virial));
  if (!state->local_tiles) {
    CK_TRY(ck__gas_set_uint(kernel, at++, 1));
    CK_TRY(ck_kernel_set_buffer(kernel, at++, state->force)); /* unused */
    CK_TRY(launch(state, kernel, state->particles, state->group));
    return CK_OK;
  }
  CK_TRY(ck__gas_set_uint(kernel, at++, state->slices));
  CK_TRY(ck_kernel_set_buffer(kernel, at++, state->slice_sums));
  size_t local[2] = {state->group, 1};
  size_t global[2] = {(state->particles + state->group - 1) / state->group *
                          state->group,
                      state->slices};
  CK_TRY(ck_queue_launch(state->queue, kernel, 2, global, local, NULL));
  kernel = state->sum_slices_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck__gas_set_uint(kernel, 1, state->slices));
  CK_TRY(ck__gas_set_int(kernel, 2, state->with_energy));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->slice_sums));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->force));
  CK_TRY(ck_kernel_set_buffer(kernel, 5, state->energy));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->virial));
  CK_TRY(launch(state, kernel, state->particles, state->group));
fail:
  return status;
}

static ck_status opencl_kick(gas_state *state, uint64_t step) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->kick_kernel;
  int langevin = state->thermostat == CK_GAS_LANGEVIN;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(set_real(kernel, 1, state, state->dt));
  CK_TRY(set_real(kernel, 2, state, langevin ? state->langevin_damping : 0.0));
  CK_TRY(set_real(kernel, 3, state, state->langevin_noise));
  CK_TRY(ck_kernel_set_value(kernel, 4, sizeof state->seed, &state->seed));
  CK_TRY(ck_kernel_set_value(kernel, 5, sizeof step, &step));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->force));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->id));
  CK_TRY(launch(state, kernel, state->particles, state->group));
fail:
  return status;
}

/* The totals into state->sums on the device (5 reals). */
static ck_status reduce_on_device(gas_state *state) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->reduce_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->velocity));
  CK_TRY(ck_kernel_set_buffer(kernel, 2, state->energy));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->virial));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->partial_sums));
  CK_TRY(launch(state, kernel, (size_t)state->reduce_groups * state->group,
                state->group));
  kernel = state->reduce_total_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->reduce_groups));
  CK_TRY(ck_kernel_set_buffer(kernel, 1, state->partial_sums));
  CK_TRY(ck_kernel_set_buffer(kernel, 2, state->sums));
  CK_TRY(launch(state, kernel, state->group, state->group));
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
  CK_TRY(reduce_on_device(state));
  ck_kernel *kernel = state->rescale_kernel;
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(set_real(kernel, 1, state, state->target_temperature));
  CK_TRY(set_real(kernel, 2, state, state->degrees_of_freedom));
  CK_TRY(ck_kernel_set_buffer(kernel, 3, state->sums));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->velocity));
  CK_TRY(launch(state, kernel, state->particles, state->group));
fail:
  return status;
}

static ck_status opencl_rdf(gas_state *state, uint32_t bins, double range) {
  ck_status status = CK_OK;
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
  CK_TRY(ck__gas_set_uint(kernel, 0, state->particles));
  CK_TRY(ck__gas_set_geometry(kernel, 1, state));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->position));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, anchor));
  CK_TRY(ck__gas_set_int(kernel, 9, mode));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->cell_start));
  CK_TRY(ck_kernel_set_buffer(kernel, 11, state->cell_count));
  CK_TRY(ck_kernel_set_buffer(kernel, 12, list));
  CK_TRY(ck_kernel_set_buffer(kernel, 13, list_count));
  CK_TRY(ck__gas_set_uint(kernel, 14, state->list_capacity));
  CK_TRY(set_real(kernel, 15, state, range));
  CK_TRY(ck__gas_set_uint(kernel, 16, bins));
  CK_TRY(ck_kernel_set_buffer(kernel, 17, state->rdf_counts));
  CK_TRY(launch(state, kernel, state->particles, state->group));
fail:
  return status;
}

static void opencl_teardown(gas_state *state) {
  ck_kernel *kernels[] = {state->kick_drift_kernel, state->count_kernel,
                          state->scan_kernel,       state->scan_totals_kernel,
                          state->scatter_kernel,    state->order_kernel,
                          state->copy_back_kernel,  state->list_kernel,
                          state->forces_kernel,     state->forces_list_kernel,
                          state->forces_all_kernel, state->kick_kernel,
                          state->reduce_kernel,     state->reduce_total_kernel,
                          state->rescale_kernel,    state->rdf_kernel,
                          state->sum_slices_kernel, state->forces_strips_kernel,
                          state->sort_whole_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(state->program);
  ck_buffer_destroy(state->slice_sums);
}

const ck__gas_steps ck__gas_opencl_steps = {
    opencl_setup,  opencl_kick_drift, opencl_neighbors,
    opencl_forces, opencl_kick,       opencl_rescale,
    opencl_reduce, opencl_rdf,        opencl_teardown};
