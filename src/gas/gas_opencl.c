/* gas_opencl.c - the OpenCL steps of the 2D gas: kernels in cl/gas.cl. */
#include <stdio.h>
#include <stdlib.h>

#include "gas/gas_internal.h"
#include "objectives/problem.h"

static ck_status set_real(ck_kernel *kernel, unsigned index, const gas_state *s,
                          double value) {
  return ck__kernel_set_real(kernel, index, s->double_precision, value);
}

ck_status ck__gas_set_uint(ck_kernel *kernel, unsigned index, uint32_t value) {
  return ck_kernel_set_value(kernel, index, sizeof value, &value);
}

ck_status ck__gas_set_int(ck_kernel *kernel, unsigned index, int value) {
  return ck_kernel_set_value(kernel, index, sizeof value, &value);
}

void ck__gas_take_sorted(gas_state *s) {
  ck_buffer *swap = s->position;
  s->position = s->sorted_position;
  s->sorted_position = swap;
  swap = s->velocity;
  s->velocity = s->sorted_velocity;
  s->sorted_velocity = swap;
  swap = s->id;
  s->id = s->sorted_id;
  s->sorted_id = swap;
}

ck_status ck__gas_set_geometry(ck_kernel *k, unsigned at, const gas_state *s) {
  ck_status status = CK_OK;
  CK_TRY(set_real(k, at, s, s->box_x));
  CK_TRY(set_real(k, at + 1, s, s->box_y));
  CK_TRY(set_real(k, at + 2, s, s->cell_inverse_x));
  CK_TRY(set_real(k, at + 3, s, s->cell_inverse_y));
  CK_TRY(ck__gas_set_int(k, at + 4, s->cells_x));
  CK_TRY(ck__gas_set_int(k, at + 5, s->cells_y));
fail:
  return status;
}

/* The pair model's 7 arguments from index `at` on. */
static ck_status set_pair(ck_kernel *k, unsigned at, const gas_state *s) {
  ck_status status = CK_OK;
  CK_TRY(set_real(k, at, s, s->rc));
  CK_TRY(set_real(k, at + 1, s, s->rc2));
  CK_TRY(set_real(k, at + 2, s, s->energy_shift));
  CK_TRY(set_real(k, at + 3, s, s->force_shift));
  CK_TRY(set_real(k, at + 4, s, s->strength));
  CK_TRY(set_real(k, at + 5, s, s->softening2));
  CK_TRY(ck__gas_set_int(k, at + 6, s->with_energy));
fail:
  return status;
}

static ck_status launch(gas_state *s, ck_kernel *kernel, size_t items,
                        size_t group) {
  size_t global = (items + group - 1) / group * group;
  if (global == 0)
    global = group;
  return ck_queue_launch(s->queue, kernel, 1, &global, &group, NULL);
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
static ck_status opencl_setup(gas_state *s) {
  ck_status status = CK_OK;
  int gpu = s->device.kind == CK_KIND_GPU;
  size_t limit =
      s->device.max_work_group_size ? s->device.max_work_group_size : 256;
  s->group = gpu ? 256 : 64;
  s->scan_block = 256;
  while (s->group > limit)
    s->group /= 2;
  while (s->scan_block > limit)
    s->scan_block /= 2;
  s->scan_blocks = (s->cells + 4 * s->scan_block - 1) / (4 * s->scan_block);
  s->reduce_group = s->group;
  s->reduce_groups = (s->particles + s->group - 1) / s->group;
  if (s->reduce_groups > 1024)
    s->reduce_groups = 1024;
  CK_TRY(ck__buffer_make_zeroed(s->queue, s->scan_blocks, 4, "scan totals",
                                &s->block_sum));
  CK_TRY(ck__buffer_make_zeroed(s->queue, (size_t)s->reduce_groups * 5,
                                s->real_size, "partial sums",
                                &s->partial_sums));
  s->local_tiles = s->tiles >= 0 ? s->tiles : gpu;
  /* Single precision on GPUs flushes subnormals: a reciprocal that keeps
   * them costs about four more instructions a pair on NVIDIA, and forces
   * that small are far below what the integrator resolves. */
  char defines[260];
  snprintf(defines, sizeof defines,
           "-DCK_GAS_GROUP=%u -DCK_GAS_SCAN_GROUP=%u -DCK_GAS_MODEL=%d "
           "-DCK_GAS_WALLS=%d -DCK_GAS_TILES=%d -DCK_GAS_LANES=%u "
           "-DCK_GAS_FORCE_SHIFT=%d -DCK_REAL_DOUBLE=%d%s",
           s->group, s->scan_block, s->model, s->walls, s->local_tiles,
           s->lanes, s->force_shift != 0, s->double_precision,
           gpu && !s->double_precision ? " -cl-denorms-are-zero" : "");
  CK_TRY(ck_program_build(s->queue, "gas", defines, &s->program));
  struct {
    const char *name;
    ck_kernel **kernel;
  } kernels[] = {{"ck_gas_kick_drift", &s->kick_drift_kernel},
                 {"ck_gas_count", &s->count_kernel},
                 {"ck_gas_scan_blocks", &s->scan_kernel},
                 {"ck_gas_scan_totals", &s->scan_totals_kernel},
                 {"ck_gas_scatter", &s->scatter_kernel},
                 {"ck_gas_order", &s->order_kernel},
                 {"ck_gas_copy_back", &s->copy_back_kernel},
                 {"ck_gas_build_list", &s->list_kernel},
                 {"ck_gas_forces_cells", &s->forces_kernel},
                 {"ck_gas_forces_list", &s->forces_list_kernel},
                 {"ck_gas_forces_all", &s->forces_all_kernel},
                 {"ck_gas_kick", &s->kick_kernel},
                 {"ck_gas_reduce", &s->reduce_kernel},
                 {"ck_gas_reduce_total", &s->reduce_total_kernel},
                 {"ck_gas_rescale", &s->rescale_kernel},
                 {"ck_gas_rdf", &s->rdf_kernel},
                 {"ck_gas_sum_slices", &s->sum_slices_kernel}};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    CK_TRY(ck_kernel_create(s->program, kernels[i].name, kernels[i].kernel));
  if (s->lanes)
    CK_TRY(ck_kernel_create(s->program, "ck_gas_forces_strips",
                            &s->forces_strips_kernel));
  s->sort_whole = s->neighbors == CK_GAS_VERLET &&
                  (s->sort_request > 0 ||
                   (s->sort_request < 0 && s->device.kind == CK_KIND_CPU &&
                    s->particles <= CPU_WHOLE_SORT_LIMIT));
  if (s->sort_whole)
    CK_TRY(ck_kernel_create(s->program, "ck_gas_sort_whole",
                            &s->sort_whole_kernel));
  /* Tiled all pairs: enough slices of the j range for about 8192
   * work-items a compute unit, so that small systems fill the device. */
  s->slices = 1;
  if (s->neighbors == CK_GAS_ALL_PAIRS && s->local_tiles) {
    size_t wanted =
        (size_t)(s->device.compute_units ? s->device.compute_units : 1) * 8192;
    size_t tiles = (s->particles + s->group - 1) / s->group;
    size_t slices = (wanted + s->particles - 1) / s->particles;
    slices = slices > 64 ? 64 : slices;
    slices = slices > tiles ? tiles : slices;
    s->slices = slices < 1 ? 1 : (uint32_t)slices;
    CK_TRY(ck__buffer_make_zeroed(
        s->queue, (size_t)s->slices * s->particles * 4, s->real_size,
        "all-pairs slices", &s->slice_sums));
  }
fail:
  return status;
}

static ck_status opencl_kick_drift(gas_state *s) {
  ck_status status = CK_OK;
  ck_kernel *k = s->kick_drift_kernel;
  int verlet = s->neighbors == CK_GAS_VERLET;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(set_real(k, 1, s, s->dt));
  CK_TRY(ck__gas_set_geometry(k, 2, s));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->force));
  CK_TRY(ck__gas_set_int(k, 11, verlet));
  CK_TRY(ck_kernel_set_buffer(k, 12, verlet ? s->reference : s->position));
  CK_TRY(set_real(k, 13, s, 0.25 * s->skin * s->skin));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->flags));
  CK_TRY(launch(s, k, s->particles, s->group));
fail:
  return status;
}

/* Verlet strips sorted whole: the sort clears the rebuild flag (the strip
 * kernel may then set it, taking the next step's first half-step). */
static int flag_cleared_by_sort(const gas_state *s) {
  return s->sort_whole && s->strips;
}

/* The whole sort by one work-item (a Verlet rebuild), skipped on the
 * device unless a rebuild is flagged when conditional. */
static ck_status sort_whole(gas_state *s, int conditional) {
  ck_status status = CK_OK;
  ck_kernel *k = s->sort_whole_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_uint(k, 1, s->cells));
  CK_TRY(ck__gas_set_geometry(k, 2, s));
  ck_buffer *buffers[] = {s->position,        s->velocity,        s->id,
                          s->sorted_position, s->sorted_velocity, s->sorted_id,
                          s->cell_key,        s->cell_start,      s->cell_count,
                          s->cell_fill,       s->reference};
  for (unsigned b = 0; b < sizeof buffers / sizeof buffers[0]; ++b)
    CK_TRY(ck_kernel_set_buffer(k, 8 + b, buffers[b]));
  CK_TRY(ck__gas_set_int(k, 19, conditional));
  CK_TRY(ck__gas_set_int(k, 20, flag_cleared_by_sort(s)));
  CK_TRY(ck_kernel_set_buffer(k, 21, s->flags));
  CK_TRY(launch(s, k, 1, 1));
fail:
  return status;
}

/* The parallel counting sort by cell (and for Verlet, the copy back into
 * the particle arrays), each kernel skipping itself on the device unless a
 * rebuild is flagged when conditional. */
static ck_status sort_in_parallel(gas_state *s, int conditional) {
  ck_status status = CK_OK;
  ck_kernel *k = s->count_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_geometry(k, 1, s));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->cell_key));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->cell_rank));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->cell_fill));
  CK_TRY(ck__gas_set_int(k, 11, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->flags));
  CK_TRY(launch(s, k, s->particles, s->group));

  k = s->scan_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->cells));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->cell_fill));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->block_sum));
  CK_TRY(ck__gas_set_int(k, 5, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->flags));
  CK_TRY(launch(s, k, (size_t)s->scan_blocks * s->scan_block, s->scan_block));

  k = s->scan_totals_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->scan_blocks));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->block_sum));
  CK_TRY(ck__gas_set_int(k, 2, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->flags));
  CK_TRY(launch(s, k, s->scan_block, s->scan_block));

  k = s->scatter_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->cell_key));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->cell_rank));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->block_sum));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->id));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->sorted_position));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->sorted_id));
  CK_TRY(ck__gas_set_int(k, 11, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->flags));
  CK_TRY(launch(s, k, s->particles, s->group));

  k = s->order_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->cells));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->block_sum));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->cell_fill));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->sorted_position));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->sorted_id));
  CK_TRY(ck__gas_set_int(k, 8, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->flags));
  CK_TRY(launch(s, k, s->cells, s->group));

  if (s->neighbors != CK_GAS_VERLET) {
    /* Every step sorts: the sorted arrays simply become the particles. */
    ck__gas_take_sorted(s);
    return CK_OK;
  }
  k = s->copy_back_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->sorted_position));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->sorted_id));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->id));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->reference));
  CK_TRY(ck__gas_set_int(k, 8, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->flags));
  CK_TRY(launch(s, k, s->particles, s->group));

fail:
  return status;
}

/* A Verlet rebuild's lists, as the sort's kernels when conditional. */
static ck_status build_lists(gas_state *s, int conditional) {
  ck_status status = CK_OK;
  ck_kernel *k = s->list_kernel;
  double range = s->rc + s->skin;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_geometry(k, 1, s));
  CK_TRY(set_real(k, 7, s, range * range));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->list));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->list_count));
  CK_TRY(ck__gas_set_uint(k, 13, s->list_capacity));
  CK_TRY(ck__gas_set_int(k, 14, conditional));
  CK_TRY(ck_kernel_set_buffer(k, 15, s->flags));
  CK_TRY(launch(s, k, s->particles, s->group));
fail:
  return status;
}

/* The sort by cell, and for Verlet lists the lists: every step in cells
 * mode; in Verlet mode when forced, or else by kernels that skip
 * themselves on the device unless a rebuild is flagged. */
static ck_status opencl_neighbors(gas_state *s, int force_rebuild) {
  ck_status status = CK_OK;
  if (s->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  int conditional = s->neighbors == CK_GAS_VERLET && !force_rebuild;
  if (s->sort_whole)
    CK_TRY(sort_whole(s, conditional));
  else
    CK_TRY(sort_in_parallel(s, conditional));
  /* Strips keep the rebuild's cells instead of lists. */
  if (s->neighbors == CK_GAS_VERLET && !s->strips)
    CK_TRY(build_lists(s, conditional));
fail:
  return status;
}

ck_status ck__gas_set_kick(ck_kernel *k, unsigned at, const gas_state *s) {
  ck_status status = CK_OK;
  int langevin = s->thermostat == CK_GAS_LANGEVIN;
  CK_TRY(ck__gas_set_int(k, at, s->kick_step != 0));
  CK_TRY(set_real(k, at + 1, s, s->dt));
  CK_TRY(set_real(k, at + 2, s, langevin ? s->langevin_damping : 0.0));
  CK_TRY(set_real(k, at + 3, s, s->langevin_noise));
  CK_TRY(ck_kernel_set_value(k, at + 4, sizeof s->seed, &s->seed));
  CK_TRY(ck_kernel_set_value(k, at + 5, sizeof s->kick_step, &s->kick_step));
  CK_TRY(ck_kernel_set_buffer(k, at + 6, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, at + 7, s->id));
fail:
  return status;
}

/* The arguments every forces kernel begins with: the particle count, the
 * geometry, the pair model and the positions (indices 0 to 14). */
static ck_status set_forces_head(ck_kernel *k, const gas_state *s) {
  ck_status status = CK_OK;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_geometry(k, 1, s));
  CK_TRY(set_pair(k, 7, s));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->position));
fail:
  return status;
}

/* Cells and Verlet modes: the forces and, when the driver has one due,
 * the kick in the same launch. */
static ck_status neighbor_forces(gas_state *s) {
  ck_status status = CK_OK;
  ck_kernel *k = s->strips                      ? s->forces_strips_kernel
                 : s->neighbors == CK_GAS_CELLS ? s->forces_kernel
                                                : s->forces_list_kernel;
  CK_TRY(set_forces_head(k, s));
  unsigned at = 15;
  if (s->strips) {
    int verlet = s->neighbors == CK_GAS_VERLET;
    CK_TRY(ck_kernel_set_buffer(k, at++, verlet ? s->reference : s->position));
  }
  if (s->neighbors == CK_GAS_CELLS || s->strips) {
    CK_TRY(ck_kernel_set_buffer(k, at++, s->cell_start));
    CK_TRY(ck_kernel_set_buffer(k, at++, s->cell_count));
  } else {
    CK_TRY(ck_kernel_set_buffer(k, at++, s->list));
    CK_TRY(ck_kernel_set_buffer(k, at++, s->list_count));
    CK_TRY(ck__gas_set_uint(k, at++, s->list_capacity));
  }
  CK_TRY(ck_kernel_set_buffer(k, at++, s->force));
  CK_TRY(ck_kernel_set_buffer(k, at++, s->energy));
  CK_TRY(ck_kernel_set_buffer(k, at++, s->virial));
  if (s->neighbors == CK_GAS_VERLET || s->strips)
    CK_TRY(ck_kernel_set_buffer(k, at++, s->flags));
  CK_TRY(ck__gas_set_kick(k, at, s));
  int ahead = 0;
  if (s->strips) {
    /* Strips in Verlet mode take the next first half-step too, when the
     * driver allows it and the sort clears the flag they set. */
    ahead = s->ahead && s->kick_step != 0 && flag_cleared_by_sort(s);
    at += 8;
    CK_TRY(ck__gas_set_int(k, at++, !flag_cleared_by_sort(s)));
    CK_TRY(ck__gas_set_int(k, at++, ahead));
    CK_TRY(set_real(k, at++, s, 0.25 * s->skin * s->skin));
    CK_TRY(ck_kernel_set_buffer(k, at++, s->sorted_position));
  }
  CK_TRY(launch(s, k, s->particles, s->group));
  s->kick_step = 0;
  if (ahead) {
    /* The next positions are in the spare array: it becomes the
     * positions. */
    ck_buffer *swap = s->position;
    s->position = s->sorted_position;
    s->sorted_position = swap;
    s->drifted = 1;
  }
fail:
  return status;
}

static ck_status opencl_forces(gas_state *s) {
  ck_status status = CK_OK;
  if (s->neighbors != CK_GAS_ALL_PAIRS)
    return neighbor_forces(s);
  ck_kernel *k = s->forces_all_kernel;
  CK_TRY(set_forces_head(k, s));
  unsigned at = 15;
  CK_TRY(ck_kernel_set_buffer(k, at++, s->force));
  CK_TRY(ck_kernel_set_buffer(k, at++, s->energy));
  CK_TRY(ck_kernel_set_buffer(k, at++, s->virial));
  if (!s->local_tiles) {
    CK_TRY(ck__gas_set_uint(k, at++, 1));
    CK_TRY(ck_kernel_set_buffer(k, at++, s->force)); /* unused */
    CK_TRY(launch(s, k, s->particles, s->group));
    return CK_OK;
  }
  CK_TRY(ck__gas_set_uint(k, at++, s->slices));
  CK_TRY(ck_kernel_set_buffer(k, at++, s->slice_sums));
  size_t local[2] = {s->group, 1};
  size_t global[2] = {(s->particles + s->group - 1) / s->group * s->group,
                      s->slices};
  CK_TRY(ck_queue_launch(s->queue, k, 2, global, local, NULL));
  k = s->sum_slices_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_uint(k, 1, s->slices));
  CK_TRY(ck__gas_set_int(k, 2, s->with_energy));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->slice_sums));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->force));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->energy));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->virial));
  CK_TRY(launch(s, k, s->particles, s->group));
fail:
  return status;
}

static ck_status opencl_kick(gas_state *s, uint64_t step) {
  ck_status status = CK_OK;
  ck_kernel *k = s->kick_kernel;
  int langevin = s->thermostat == CK_GAS_LANGEVIN;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(set_real(k, 1, s, s->dt));
  CK_TRY(set_real(k, 2, s, langevin ? s->langevin_damping : 0.0));
  CK_TRY(set_real(k, 3, s, s->langevin_noise));
  CK_TRY(ck_kernel_set_value(k, 4, sizeof s->seed, &s->seed));
  CK_TRY(ck_kernel_set_value(k, 5, sizeof step, &step));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->force));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->id));
  CK_TRY(launch(s, k, s->particles, s->group));
fail:
  return status;
}

/* The totals into s->sums on the device (5 reals). */
static ck_status reduce_on_device(gas_state *s) {
  ck_status status = CK_OK;
  ck_kernel *k = s->reduce_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->energy));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->virial));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->partial_sums));
  CK_TRY(launch(s, k, (size_t)s->reduce_groups * s->group, s->group));
  k = s->reduce_total_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->reduce_groups));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->partial_sums));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->sums));
  CK_TRY(launch(s, k, s->group, s->group));
fail:
  return status;
}

static ck_status opencl_reduce(gas_state *s, double sums[5]) {
  ck_status status = CK_OK;
  CK_TRY(reduce_on_device(s));
  double wide[5];
  float narrow[5];
  if (s->double_precision) {
    CK_TRY(ck_buffer_read(s->queue, s->sums, 0, sizeof wide, wide, CK_BLOCKING,
                          NULL));
  } else {
    CK_TRY(ck_buffer_read(s->queue, s->sums, 0, sizeof narrow, narrow,
                          CK_BLOCKING, NULL));
    for (int q = 0; q < 5; ++q)
      wide[q] = narrow[q];
  }
  for (int q = 0; q < 5; ++q)
    sums[q] = wide[q];
fail:
  return status;
}

static ck_status opencl_rescale(gas_state *s) {
  ck_status status = CK_OK;
  CK_TRY(reduce_on_device(s));
  ck_kernel *k = s->rescale_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(set_real(k, 1, s, s->target_temperature));
  CK_TRY(set_real(k, 2, s, s->degrees_of_freedom));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->sums));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->velocity));
  CK_TRY(launch(s, k, s->particles, s->group));
fail:
  return status;
}

static ck_status opencl_rdf(gas_state *s, uint32_t bins, double range) {
  ck_status status = CK_OK;
  ck_kernel *k = s->rdf_kernel;
  /* Verlet strips keep the rebuild's cells: pairs from those, around the
   * rebuild's positions. */
  int verlet_lists = s->neighbors == CK_GAS_VERLET && !s->strips;
  int mode = s->neighbors == CK_GAS_ALL_PAIRS ? 2 : verlet_lists ? 1 : 0;
  ck_buffer *anchor =
      s->neighbors == CK_GAS_VERLET ? s->reference : s->position;
  /* Buffers the mode does not use still need a valid argument. */
  ck_buffer *list = mode == 1 ? s->list : s->cell_start;
  ck_buffer *list_count = mode == 1 ? s->list_count : s->cell_count;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_geometry(k, 1, s));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 8, anchor));
  CK_TRY(ck__gas_set_int(k, 9, mode));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 12, list));
  CK_TRY(ck_kernel_set_buffer(k, 13, list_count));
  CK_TRY(ck__gas_set_uint(k, 14, s->list_capacity));
  CK_TRY(set_real(k, 15, s, range));
  CK_TRY(ck__gas_set_uint(k, 16, bins));
  CK_TRY(ck_kernel_set_buffer(k, 17, s->rdf_counts));
  CK_TRY(launch(s, k, s->particles, s->group));
fail:
  return status;
}

static void opencl_teardown(gas_state *s) {
  ck_kernel *kernels[] = {
      s->kick_drift_kernel,  s->count_kernel,        s->scan_kernel,
      s->scan_totals_kernel, s->scatter_kernel,      s->order_kernel,
      s->copy_back_kernel,   s->list_kernel,         s->forces_kernel,
      s->forces_list_kernel, s->forces_all_kernel,   s->kick_kernel,
      s->reduce_kernel,      s->reduce_total_kernel, s->rescale_kernel,
      s->rdf_kernel,         s->sum_slices_kernel,   s->forces_strips_kernel,
      s->sort_whole_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(s->program);
  ck_buffer_destroy(s->slice_sums);
}

const ck__gas_steps ck__gas_opencl_steps = {
    opencl_setup,  opencl_kick_drift, opencl_neighbors,
    opencl_forces, opencl_kick,       opencl_rescale,
    opencl_reduce, opencl_rdf,        opencl_teardown};
