/*
 * gas_cuda.c - the CUDA steps of the 2D gas with cell lists: every step's
 * sort by cell and its forces run as the native kernels of cl/gas.cu (the
 * first half-step with the count, a one-pass scan, the members of each
 * cell, the placing by id, and the forces with the second half-kick: five
 * launches where the OpenCL steps take eight). Setup, observables,
 * rescaling and the RDF are the OpenCL steps' kernels, built for CUDA;
 * so are Verlet lists, all pairs and double precision, which never reach
 * these steps (ck__gas_cuda_native()).
 */
#include <stdio.h>

#include "gas/gas_internal.h"
#include "objectives/problem.h"

/* Threads a block of the per-particle kernels. */
#define NATIVE_BLOCK 256u
/* The scan: threads a block, and cells a thread (a tile of 4096 cells). */
#define SCAN_THREADS 512u
#define SCAN_ITEMS 8u

int ck__gas_cuda_native(const gas_state *s) {
  /* The forces walk rows of three cells as contiguous runs, which needs
   * three distinct cells a row (and column) in a periodic box. */
  return !s->double_precision && s->neighbors == CK_GAS_CELLS &&
         s->model == CK_GAS_MODEL_LENNARD_JONES &&
         (s->walls || (s->cells_x >= 3 && s->cells_y >= 3));
}

static ck_status set_real(ck_kernel *kernel, unsigned index, double value) {
  return ck__kernel_set_real(kernel, index, 0, value);
}

/* One thread a particle, in whole blocks. */
static ck_status launch_particles(gas_state *s, ck_kernel *kernel) {
  size_t local = NATIVE_BLOCK;
  size_t global = ((size_t)s->particles + local - 1) / local * local;
  return ck_queue_launch(s->queue, kernel, 1, &global, &local, NULL);
}

static ck_status cuda_setup(gas_state *s) {
  ck_status status = CK_OK;
  CK_TRY(ck__gas_opencl_steps.setup(s));
  s->scan_tiles =
      (s->cells + SCAN_THREADS * SCAN_ITEMS - 1) / (SCAN_THREADS * SCAN_ITEMS);
  CK_TRY(ck__buffer_make_zeroed(s->queue, s->particles, 4, "cell members",
                                &s->cell_members));
  CK_TRY(ck__buffer_make_zeroed(s->queue, s->scan_tiles, 8, "scan tiles",
                                &s->scan_status));
  CK_TRY(
      ck__buffer_make_zeroed(s->queue, 1, 4, "scan ticket", &s->scan_ticket));
  char defines[200];
  snprintf(defines, sizeof defines,
           "-DCK_GAS_WALLS=%d -DCK_GAS_FORCE_SHIFT=%d -DCK_GAS_BLOCK=%u "
           "-DCK_GAS_SCAN_THREADS=%u -DCK_GAS_SCAN_ITEMS=%u -DCK_REAL_DOUBLE=0",
           s->walls, s->force_shift != 0, NATIVE_BLOCK, SCAN_THREADS,
           SCAN_ITEMS);
  CK_TRY(ck_program_build(s->queue, "gas.cu", defines, &s->native_program));
  struct {
    const char *name;
    ck_kernel **kernel;
  } kernels[] = {
      {"ck_gas_native_move", &s->native_move_kernel},
      {"ck_gas_native_scan", &s->native_scan_kernel},
      {"ck_gas_native_members", &s->native_members_kernel},
      {"ck_gas_native_place", &s->native_place_kernel},
      {"ck_gas_native_forces", &s->native_forces_kernel},
      {"ck_gas_native_forces_energy", &s->native_forces_energy_kernel}};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    CK_TRY(ck_kernel_create(s->native_program, kernels[i].name,
                            kernels[i].kernel));
fail:
  return status;
}

/* The first half-step (move 1) or none (0), then every particle's cell
 * key and arrival rank. */
static ck_status move_and_count(gas_state *s, int move) {
  ck_status status = CK_OK;
  ck_kernel *k = s->native_move_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(set_real(k, 1, s->dt));
  CK_TRY(ck__gas_set_geometry(k, 2, s));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->force));
  CK_TRY(ck__gas_set_int(k, 11, move));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->cell_key));
  CK_TRY(ck_kernel_set_buffer(k, 13, s->cell_rank));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->cell_fill));
  CK_TRY(launch_particles(s, k));
  s->cells_counted = 1;
fail:
  return status;
}

static ck_status cuda_kick_drift(gas_state *s) {
  return move_and_count(s, 1);
}

/* Cells mode sorts at every call (force_rebuild matters to Verlet lists
 * only): counts unless the half-step counted, scans, gathers each cell's
 * members, places every particle, and the sorted arrays become the
 * particles. */
static ck_status cuda_neighbors(gas_state *s, int force_rebuild) {
  ck_status status = CK_OK;
  (void)force_rebuild;
  if (!s->cells_counted)
    CK_TRY(move_and_count(s, 0));
  s->cells_counted = 0;

  ck_kernel *k = s->native_scan_kernel;
  /* Tags of 1 .. 2^30: never the zeroed words of a new buffer, and never
   * the previous launch's. */
  s->scan_epoch = s->scan_epoch % 0x40000000u + 1u;
  CK_TRY(ck__gas_set_uint(k, 0, s->cells));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->cell_fill));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->scan_status));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->scan_ticket));
  CK_TRY(ck__gas_set_uint(k, 6, s->scan_epoch));
  size_t local = SCAN_THREADS, global = (size_t)s->scan_tiles * SCAN_THREADS;
  CK_TRY(ck_queue_launch(s->queue, k, 1, &global, &local, NULL));

  k = s->native_members_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->cell_key));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->cell_rank));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->id));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->cell_members));
  CK_TRY(launch_particles(s, k));

  k = s->native_place_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->cell_key));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->cell_rank));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->cell_members));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->velocity));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->id));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->sorted_position));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->sorted_velocity));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->sorted_id));
  CK_TRY(launch_particles(s, k));

  ck__gas_take_sorted(s);
fail:
  return status;
}

/* The forces, and when the driver has a kick due, that kick in the same
 * pass. */
static ck_status cuda_forces(gas_state *s) {
  ck_status status = CK_OK;
  ck_kernel *k =
      s->with_energy ? s->native_forces_energy_kernel : s->native_forces_kernel;
  CK_TRY(ck__gas_set_uint(k, 0, s->particles));
  CK_TRY(ck__gas_set_geometry(k, 1, s));
  CK_TRY(set_real(k, 7, s->rc));
  CK_TRY(set_real(k, 8, s->rc2));
  CK_TRY(set_real(k, 9, s->energy_shift));
  CK_TRY(set_real(k, 10, s->force_shift));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->position));
  CK_TRY(ck_kernel_set_buffer(k, 12, s->cell_start));
  CK_TRY(ck_kernel_set_buffer(k, 13, s->cell_count));
  CK_TRY(ck_kernel_set_buffer(k, 14, s->force));
  CK_TRY(ck_kernel_set_buffer(k, 15, s->energy));
  CK_TRY(ck_kernel_set_buffer(k, 16, s->virial));
  CK_TRY(ck__gas_set_kick(k, 17, s));
  CK_TRY(launch_particles(s, k));
  s->kick_step = 0;
fail:
  return status;
}

static ck_status cuda_kick(gas_state *s, uint64_t step) {
  return ck__gas_opencl_steps.kick(s, step);
}

static ck_status cuda_rescale(gas_state *s) {
  return ck__gas_opencl_steps.rescale(s);
}

static ck_status cuda_reduce(gas_state *s, double sums[5]) {
  return ck__gas_opencl_steps.reduce(s, sums);
}

static ck_status cuda_rdf(gas_state *s, uint32_t bins, double range) {
  return ck__gas_opencl_steps.rdf(s, bins, range);
}

static void cuda_teardown(gas_state *s) {
  ck_kernel *kernels[] = {
      s->native_move_kernel,    s->native_scan_kernel,
      s->native_members_kernel, s->native_place_kernel,
      s->native_forces_kernel,  s->native_forces_energy_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(s->native_program);
  ck_buffer_destroy(s->cell_members);
  ck_buffer_destroy(s->scan_status);
  ck_buffer_destroy(s->scan_ticket);
  ck__gas_opencl_steps.teardown(s);
}

const ck__gas_steps ck__gas_cuda_steps = {
    cuda_setup,   cuda_kick_drift, cuda_neighbors, cuda_forces,  cuda_kick,
    cuda_rescale, cuda_reduce,     cuda_rdf,       cuda_teardown};
