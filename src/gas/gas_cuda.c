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
#include <stdlib.h>

#include "gas/gas_internal.h"

/* Threads a block of the per-particle kernels. */
#define NATIVE_BLOCK 256u
/* The scan: threads a block, and cells a thread (a tile of 4096 cells). */
#define SCAN_THREADS 512u
#define SCAN_ITEMS 8u

/* The native steps' own state, which the driver never reads. */
struct gas_native {
  ck_program *program;
  ck_kernel *move_kernel, *scan_kernel, *members_kernel, *place_kernel,
      *forces_kernel, *forces_energy_kernel;
  ck_kernel *pull_kernel;               /* a member's */
  ck_buffer *cell_members;              /* per slot: ids in arrival order */
  ck_buffer *scan_status, *scan_ticket; /* the one-pass scan's tiles */
  uint32_t scan_tiles, scan_epoch;
  /* 1 when the cell keys and ranks are those of the current positions
   * (the native first half-step counts as it moves); a spread member's,
   * of its first `counted` slots (those appended since still count). */
  int cells_counted;
  uint32_t counted;
};

int ck__gas_cuda_native(const gas_state *state) {
  /* The forces walk rows of three cells as contiguous runs, which needs
   * three distinct cells a row (and column) in a periodic box. */
  return !state->double_precision && state->neighbors == CK_GAS_CELLS &&
         state->model == CK_GAS_MODEL_LENNARD_JONES &&
         (!state->periodic_x || state->cells_x >= 3) &&
         (!state->periodic_y || state->cells_y >= 3);
}

/* One thread a particle, in whole blocks: a resident member's, one a
 * slot it has room for (its kernels read their counts on the device). */
static ck_status launch_particles(gas_state *state, ck_kernel *kernel) {
  size_t local = NATIVE_BLOCK;
  size_t count = state->resident ? state->slots : state->particles;
  size_t global = (count + local - 1) / local * local;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

/* A member's per-slot kernels end with its control words and whether
 * its step is resident. */
static void add_resident(const gas_state *state, ck_kernel_args *args) {
  if (state->member) {
    ck_kernel_args_buffer(args, state->member_control);
    ck_kernel_args_i32(args, state->resident);
  }
}

static ck_status cuda_setup(gas_state *state) {
  ck_status status = CK_OK;
  gas_native *native = calloc(1, sizeof *native);
  if (!(state->native = native))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__gas_opencl_steps.setup(state));
  /* A member's dropped slots take one more key, past the last cell. */
  uint32_t keys = state->cells + (state->member ? 1u : 0u);
  native->scan_tiles =
      (keys + SCAN_THREADS * SCAN_ITEMS - 1) / (SCAN_THREADS * SCAN_ITEMS);
  CK_TRY(ck__buffer_make_zeroed(state->queue, state->particles, 4,
                                "cell members", &native->cell_members));
  CK_TRY(ck__buffer_make_zeroed(state->queue, native->scan_tiles, 8,
                                "scan tiles", &native->scan_status));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 1, 4, "scan ticket",
                                &native->scan_ticket));
  char defines[240];
  snprintf(defines, sizeof defines,
           "-DCK_GAS_PERIODIC_X=%d -DCK_GAS_PERIODIC_Y=%d -DCK_GAS_WALLS_X=%d "
           "-DCK_GAS_WALLS_Y=%d -DCK_GAS_FORCE_SHIFT=%d -DCK_GAS_MEMBER=%d "
           "-DCK_GAS_BLOCK=%u "
           "-DCK_GAS_SCAN_THREADS=%u -DCK_GAS_SCAN_ITEMS=%u -DCK_REAL_DOUBLE=0",
           state->periodic_x, state->periodic_y, state->walls_x, state->walls_y,
           state->force_shift != 0, state->member, NATIVE_BLOCK, SCAN_THREADS,
           SCAN_ITEMS);
  CK_TRY(ck_program_build(state->queue, "gas.cu", defines, &native->program));
  struct {
    const char *name;
    ck_kernel **kernel;
  } kernels[] = {
      {"ck_gas_native_move", &native->move_kernel},
      {"ck_gas_native_scan", &native->scan_kernel},
      {"ck_gas_native_members", &native->members_kernel},
      {"ck_gas_native_place", &native->place_kernel},
      {"ck_gas_native_forces", &native->forces_kernel},
      {"ck_gas_native_forces_energy", &native->forces_energy_kernel}};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    CK_TRY(
        ck_kernel_create(native->program, kernels[i].name, kernels[i].kernel));
  if (state->member)
    CK_TRY(ck_kernel_create(native->program, "ck_gas_native_pull",
                            &native->pull_kernel));
fail:
  return status;
}

/* What a spread member's native first half-step also does: its step out
 * (ck__gas_steps.leave), on slots from `first`. */
typedef struct member_move {
  uint32_t first;
  int classify, again;
  double lo, hi, reach, shift[2];
  int stage;
} member_move;

/* The first half-step (move 1) or none (0), then every particle's cell
 * key and arrival rank; a member's from slot out->first, with its step
 * out where out->classify. */
static ck_status move_and_count(gas_state *state, int move,
                                const member_move *out) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  ck_kernel *kernel = native->move_kernel;
  uint32_t first = state->member ? out->first : 0;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles - first);
  ck_kernel_args_f32(&args, (float)state->dt);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_i32(&args, move);
  ck_kernel_args_buffer(&args, state->cell_key);
  ck_kernel_args_buffer(&args, state->cell_rank);
  ck_kernel_args_buffer(&args, state->cell_fill);
  if (state->member) {
    ck_kernel_args_u32(&args, first);
    ck_kernel_args_buffer(&args, state->id);
    ck_kernel_args_i32(&args, out->classify);
    ck_kernel_args_f32(&args, (float)out->lo);
    ck_kernel_args_f32(&args, (float)out->hi);
    ck_kernel_args_f32(&args, (float)out->reach);
    ck_kernel_args_f32(&args, (float)out->shift[0]);
    ck_kernel_args_f32(&args, (float)out->shift[1]);
    ck_kernel_args_i32(&args, out->again);
    ck_kernel_args_i32(&args, out->stage);
    ck_kernel_args_u32(&args, state->message_capacity);
    ck_kernel_args_buffer(&args, state->out_packed);
    ck_kernel_args_buffer(&args, state->member_counts);
    add_resident(state, &args);
    ck_kernel_args_i32(&args, state->parity);
  }
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = NATIVE_BLOCK;
  size_t count = state->resident ? state->slots : state->particles - first;
  size_t global = (count + local - 1) / local * local;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, global ? &global : &local,
                         &local, NULL));
  native->cells_counted = 1;
  native->counted = state->particles;
fail:
  return status;
}

/* A cells-mode member's step out (ck__gas_steps.leave): the first
 * half-step, its leavers and exports, and its own cell keys in one pass.
 * Asked again (the outbox grown), the counters start anew and nothing
 * moves. */
static ck_status cuda_leave(gas_state *state, int move, double lo, double hi,
                            double reach, const double shift[2], int again,
                            int stage) {
  ck_status status = CK_OK;
  static const uint32_t zero[4] = {0, 0, 0, 0};
  member_move out = {0, 1, again, lo, hi, reach, {shift[0], shift[1]}, stage};
  /* A resident step's counts were zeroed by its last pull. */
  if (!state->resident)
    CK_TRY(ck_buffer_write(state->queue, state->member_counts, 0, sizeof zero,
                           zero, CK_NONBLOCKING, NULL));
  /* Stage 1 counts every slot's key anew, stage 0's arrivals among them. */
  if (again || stage == 1) {
    static const uint32_t none = 0;
    CK_TRY(ck_buffer_fill(state->queue, state->cell_fill, &none, 4, 0,
                          ((size_t)state->cells + 1) * 4, NULL));
  }
  CK_TRY(move_and_count(state, move && !again, &out));
fail:
  return status;
}

/* A spread member moves with gas.cl's kernel (it sorts only at its
 * rebuilds, with gas.cl's sort: see cuda_neighbors). */
static ck_status cuda_kick_drift(gas_state *state) {
  if (state->member)
    return ck__gas_opencl_steps.kick_drift(state);
  return move_and_count(state, 1, NULL);
}

/* Cells mode sorts at every call (force_rebuild matters to Verlet lists
 * only): counts unless the half-step counted, scans, gathers each cell's
 * members, places every particle, and the sorted arrays become the
 * particles. */
static ck_status cuda_neighbors(gas_state *state, int force_rebuild) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  (void)force_rebuild;
  /* A member's slots appended since its step out count now (a resident
   * pull counted its own). */
  if (state->member && !state->resident && native->cells_counted &&
      native->counted < state->particles) {
    member_move appended = {native->counted, 0, 0, 0, 0, 0, {0, 0}, 0};
    CK_TRY(move_and_count(state, 0, &appended));
  }
  if (!native->cells_counted) {
    member_move all = {0, 0, 0, 0, 0, 0, {0, 0}, 0};
    CK_TRY(move_and_count(state, 0, &all));
  }
  native->cells_counted = 0;
  /* A member's dropped slots take one more key, past the last cell. */
  uint32_t keys = state->cells + (state->member ? 1u : 0u);

  ck_kernel *kernel = native->scan_kernel;
  /* Tags of 1 .. 2^30: never the zeroed words of a new buffer, and never
   * the previous launch's. */
  native->scan_epoch = native->scan_epoch % 0x40000000u + 1u;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, keys);
  ck_kernel_args_buffer(&args, state->cell_fill);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, native->scan_status);
  ck_kernel_args_buffer(&args, native->scan_ticket);
  ck_kernel_args_u32(&args, native->scan_epoch);
  if (state->member)
    ck_kernel_args_buffer(&args, state->member_control);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = SCAN_THREADS,
         global = (size_t)native->scan_tiles * SCAN_THREADS;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));

  kernel = native->members_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_buffer(&args, state->cell_key);
  ck_kernel_args_buffer(&args, state->cell_rank);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, native->cell_members);
  add_resident(state, &args);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_particles(state, kernel));

  kernel = native->place_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_u32(&args, state->cells);
  ck_kernel_args_buffer(&args, state->cell_key);
  ck_kernel_args_buffer(&args, state->cell_rank);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, native->cell_members);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->sorted_position);
  ck_kernel_args_buffer(&args, state->sorted_velocity);
  ck_kernel_args_buffer(&args, state->sorted_id);
  add_resident(state, &args);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_particles(state, kernel));

  ck__gas_take_sorted(state);
fail:
  return status;
}

/* The forces, and when the driver has a kick due, that kick in the same
 * pass. */
static ck_status cuda_forces(gas_state *state) {
  ck_status status = CK_OK;
  const gas_native *native = state->native;
  ck_kernel_args args;
  ck_kernel *kernel =
      state->with_energy ? native->forces_energy_kernel : native->forces_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_f32(&args, (float)state->rc);
  ck_kernel_args_f32(&args, (float)state->rc2);
  ck_kernel_args_f32(&args, (float)state->energy_shift);
  ck_kernel_args_f32(&args, (float)state->force_shift);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, state->force);
  ck_kernel_args_buffer(&args, state->energy);
  ck_kernel_args_buffer(&args, state->virial);
  ck__gas_add_kick(state, &args);
  add_resident(state, &args);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_particles(state, kernel));
  state->kick_step = 0;
fail:
  return status;
}

/* A resident member's pull (ck__gas_steps.pull): a thread an entry of
 * the four segments, each as long as the larger of the two neighbours'
 * regions; the neighbours' outboxes and counts are read where they are,
 * on their devices. */
static ck_status cuda_pull(gas_state *state, const ck__gas_source from[2],
                           double lo, double hi) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  ck_kernel *kernel = native->pull_kernel;
  uint32_t segment =
      from[0].capacity > from[1].capacity ? from[0].capacity : from[1].capacity;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, segment);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->cell_key);
  ck_kernel_args_buffer(&args, state->cell_rank);
  ck_kernel_args_buffer(&args, state->cell_fill);
  ck_kernel_args_buffer(&args, state->member_control);
  ck_kernel_args_i32(&args, state->parity);
  ck_kernel_args_u32(&args, state->slots);
  ck_kernel_args_u32(&args, state->message_capacity);
  ck_kernel_args_f32(&args, (float)lo);
  ck_kernel_args_f32(&args, (float)hi);
  for (int side = 0; side < 2; ++side) {
    ck_kernel_args_u64(&args, from[side].packed);
    ck_kernel_args_u64(&args, from[side].control);
    ck_kernel_args_u32(&args, from[side].capacity);
    ck_kernel_args_u32(&args, from[side].leavers);
  }
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = NATIVE_BLOCK;
  size_t global = (4 * (size_t)segment + local - 1) / local * local;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
fail:
  return status;
}

static void cuda_teardown(gas_state *state) {
  gas_native *native = state->native;
  if (native) {
    ck_kernel *kernels[] = {
        native->move_kernel,    native->scan_kernel,
        native->members_kernel, native->place_kernel,
        native->forces_kernel,  native->forces_energy_kernel,
        native->pull_kernel};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
      ck_kernel_destroy(kernels[i]);
    ck_program_destroy(native->program);
    ck_buffer_destroy(native->cell_members);
    ck_buffer_destroy(native->scan_status);
    ck_buffer_destroy(native->scan_ticket);
    free(native);
    state->native = NULL;
  }
  ck__gas_opencl_steps.teardown(state);
}

/* The kick (where the forces did not make it), rescaling, the sums and
 * the RDF are the OpenCL steps. */
const ck__gas_steps ck__gas_cuda_steps = {
    .setup = cuda_setup,
    .kick_drift = cuda_kick_drift,
    .neighbors = cuda_neighbors,
    .forces = cuda_forces,
    .teardown = cuda_teardown,
    .leave = cuda_leave,
    .pull = cuda_pull,
};
