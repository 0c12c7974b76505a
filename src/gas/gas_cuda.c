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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gas/gas_internal.h"

/* Threads a block of the per-particle kernels. */
#define NATIVE_BLOCK 256u
/* The most blocks of a slab's pull (cl/gas.cu's pull_halo). */
#define PULL_BLOCKS 16u
/* The halo's cell columns: gas.cu's halo_column, a window each side. */
#define HALO_COLUMNS (2 * CK_GAS_HALO_WINDOW)
/* The scan: threads a block, and cells a thread (a tile of 4096 cells). */
#define SCAN_THREADS 512u
#define SCAN_ITEMS 8u

/* A slab's halo (cl/gas.cu's two tiers): `capacity` entries as pulled
 * and as sorted, the sort's counters for `keys` cells and one more,
 * and its words (CK_GAS_CONTROL_APPENDED: the entries; _SORTED: the
 * scan's count; _READY: the tag of the last halo sorted; _TICKET and
 * the next two: the pull's claim and barrier, cl/gas.cu). On the
 * member's queue. */
typedef struct gas_halo {
  ck_buffer *position, *velocity, *id, *key, *rank, *members;
  ck_buffer *sorted_position, *sorted_velocity, *sorted_id;
  ck_buffer *fill, *count, *start, *scan_status, *scan_ticket, *words;
  uint32_t capacity, keys, tiles, epoch;
} gas_halo;

/* The native steps' own state, which the driver never reads. */
struct gas_native {
  ck_program *program;
  ck_kernel *move_kernel, *scan_kernel, *members_kernel, *place_kernel,
      *forces_kernel, *forces_energy_kernel;
  ck_kernel *pull_kernel; /* a member's */
  /* A slab member's two tiers: its interior's cell columns (from_x to
   * to_x), set at each step out. */
  ck_kernel *gather_kernel, *slab_kernel, *slab_energy_kernel;
  int from_x, to_x;
  gas_halo halo;
  /* The tag the next slab launch's halo is sorted under (from 1 each
   * time the halo is made). */
  uint32_t halo_tag;
  /* Whether the next slab launch pulls (cuda_pull sets it), and its
   * frame: as last written to the device (frame), and as it is now. */
  int pull;
  ck_buffer *frame;
  ck_gas_slab_frame written, now;
  ck_buffer *cell_members;              /* per slot: ids in arrival order */
  ck_buffer *scan_status, *scan_ticket; /* the one-pass scan's tiles */
  uint32_t scan_tiles, scan_epoch;
  /* 1 when the cell keys and ranks are those of the current positions
   * (the native first half-step counts as it moves); a spread member's,
   * of its first `counted` slots (those appended since still count). */
  int cells_counted;
  uint32_t counted;
};

/* Whether the member sorts in two tiers: a slab's (one stage; x closed)
 * large enough (gas_state.tiers). */
static int two_tiers(const gas_state *state) {
  return state->member && state->slab && state->tiers && !state->periodic_x;
}

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
  if (state->member) {
    struct {
      const char *name;
      ck_kernel **kernel;
    } member[] = {{"ck_gas_native_pull", &native->pull_kernel},
                  {"ck_gas_native_gather_halo", &native->gather_kernel},
                  {"ck_gas_native_slab", &native->slab_kernel},
                  {"ck_gas_native_slab_energy", &native->slab_energy_kernel}};
    for (size_t i = 0; i < sizeof member / sizeof member[0]; ++i)
      CK_TRY(
          ck_kernel_create(native->program, member[i].name, member[i].kernel));
  }
  native->from_x = 0;
  native->to_x = state->cells_x - 1;
  state->waits_for_tags = two_tiers(state);
  if (two_tiers(state))
    CK_TRY(ck__buffer_make_zeroed(state->queue, 1, sizeof native->now,
                                  "slab frame", &native->frame));
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

/* The column of cells of x in the member's box, as ck_gas_cell's. */
static int column_of(const gas_state *state, double x) {
  double scaled = x * state->cells_x / state->box_x;
  if (!(scaled > 0))
    return 0;
  return scaled < state->cells_x ? (int)scaled : state->cells_x - 1;
}

/* A slab's interior, from its borders [lo, hi) (infinite at walls):
 * pulled entries lie past them (ghosts) or a step's move inside
 * (arrivals), far less than half a cell, which leaves room for the
 * rounding of positions too. The interior starts two columns clear of
 * the columns they may lie in, so that no interior cell's 3 x 3 block
 * holds one. */
static void set_band(gas_state *state, double lo, double hi) {
  gas_native *native = state->native;
  double half = 0.5 * state->box_x / state->cells_x;
  int low = isfinite(lo) ? column_of(state, lo + half) : -2;
  int high = isfinite(hi) ? column_of(state, hi - half) : state->cells_x + 1;
  /* With no column left between, the interior is empty: every particle
   * is the border's. */
  native->from_x = low + 2;
  native->to_x = high - 2;
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
  if (two_tiers(state) && stage == 0)
    set_band(state, lo, hi);
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

/* The scan of `keys` cell counts in fill to starts, with the scan's
 * own tiles; its count before the last key to
 * words[CK_GAS_CONTROL_SORTED] (a member's), and a tag not 0 to
 * words[CK_GAS_CONTROL_READY] as it begins (a resident slab's). */
static ck_status scan_cells(gas_state *state, uint32_t keys, ck_buffer *fill,
                            ck_buffer *count, ck_buffer *start,
                            ck_buffer *tiles, ck_buffer *ticket,
                            uint32_t *epoch, ck_buffer *words, uint32_t tag) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  ck_kernel *kernel = native->scan_kernel;
  /* Tags of 1 .. 2^30: never the zeroed words of a new buffer, and never
   * the previous launch's. */
  *epoch = *epoch % 0x40000000u + 1u;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, keys);
  ck_kernel_args_buffer(&args, fill);
  ck_kernel_args_buffer(&args, count);
  ck_kernel_args_buffer(&args, start);
  ck_kernel_args_buffer(&args, tiles);
  ck_kernel_args_buffer(&args, ticket);
  ck_kernel_args_u32(&args, *epoch);
  if (state->member) {
    ck_kernel_args_buffer(&args, words);
    ck_kernel_args_u32(&args, tag);
  }
  CK_TRY(ck_kernel_args_end(&args));
  size_t tile = SCAN_THREADS * SCAN_ITEMS;
  size_t local = SCAN_THREADS, global = (keys + tile - 1) / tile * local;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
fail:
  return status;
}

/* The particles' arrays and the sort's, for gather_and_place: the
 * member's own, or a slab's halo. */
typedef struct sort_arrays {
  ck_buffer *key, *rank, *start, *count, *members, *position, *velocity, *id,
      *sorted_position, *sorted_velocity, *sorted_id, *words;
  uint32_t cells;
} sort_arrays;

/* Each cell's members, then every particle placed by id: n slots, or
 * where `resident`, as many as words[CK_GAS_CONTROL_APPENDED] says
 * (launched over `room`). */
static ck_status gather_and_place(gas_state *state, const sort_arrays *a,
                                  uint32_t n, int resident, size_t room) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  size_t local = NATIVE_BLOCK, global = (room + local - 1) / local * local;
  if (global == 0)
    global = local;
  ck_kernel *kernel = native->members_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, n);
  ck_buffer *members[] = {a->key, a->rank, a->start, a->id, a->members};
  for (size_t i = 0; i < sizeof members / sizeof members[0]; ++i)
    ck_kernel_args_buffer(&args, members[i]);
  if (state->member) {
    ck_kernel_args_buffer(&args, a->words);
    ck_kernel_args_i32(&args, resident);
  }
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));

  kernel = native->place_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, n);
  ck_kernel_args_u32(&args, a->cells);
  ck_buffer *in[] = {a->key,
                     a->rank,
                     a->start,
                     a->count,
                     a->members,
                     a->position,
                     a->velocity,
                     a->id,
                     a->sorted_position,
                     a->sorted_velocity,
                     a->sorted_id};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; ++i)
    ck_kernel_args_buffer(&args, in[i]);
  if (state->member) {
    ck_kernel_args_buffer(&args, a->words);
    ck_kernel_args_i32(&args, resident);
  }
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
fail:
  return status;
}

/* The sort of the first n slots (or a resident step's, counted on the
 * device) by cell and id, already counted: the scan, each cell's
 * members, every particle placed; the sorted arrays become the
 * particles. */
static ck_status sort_slots(gas_state *state, uint32_t n) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  /* A member's dropped slots take one more key, past the last cell. */
  uint32_t keys = state->cells + (state->member ? 1u : 0u);
  CK_TRY(
      scan_cells(state, keys, state->cell_fill, state->cell_count,
                 state->cell_start, native->scan_status, native->scan_ticket,
                 &native->scan_epoch, state->member_control,
                 state->resident && two_tiers(state) ? state->step_tag : 0u));
  sort_arrays own = {state->cell_key,
                     state->cell_rank,
                     state->cell_start,
                     state->cell_count,
                     native->cell_members,
                     state->position,
                     state->velocity,
                     state->id,
                     state->sorted_position,
                     state->sorted_velocity,
                     state->sorted_id,
                     state->member_control,
                     state->cells};
  CK_TRY(gather_and_place(state, &own, n, state->resident,
                          state->resident ? state->slots : n));
  ck__gas_take_sorted(state);
fail:
  return status;
}

/* One of a halo's buffers: where it is kept, and its length for
 * `capacity` entries and `keys` cells. */
typedef struct halo_buffer {
  ck_buffer **buffer;
  size_t count, size;
  const char *what;
} halo_buffer;
#define HALO_BUFFERS 15

static void halo_buffers(gas_halo *halo, size_t capacity, size_t keys,
                         halo_buffer out[HALO_BUFFERS]) {
  size_t tile = SCAN_THREADS * SCAN_ITEMS;
  const halo_buffer all[HALO_BUFFERS] = {
      {&halo->position, capacity, 8, "halo positions"},
      {&halo->velocity, capacity, 8, "halo velocities"},
      {&halo->id, capacity, 4, "halo ids"},
      {&halo->key, capacity, 4, "halo keys"},
      {&halo->rank, capacity, 4, "halo ranks"},
      {&halo->members, capacity, 4, "halo members"},
      {&halo->sorted_position, capacity, 8, "halo positions"},
      {&halo->sorted_velocity, capacity, 8, "halo velocities"},
      {&halo->sorted_id, capacity, 4, "halo ids"},
      {&halo->fill, keys + 1, 4, "halo fill"},
      {&halo->count, keys + 1, 4, "halo counts"},
      {&halo->start, keys + 1, 4, "halo starts"},
      {&halo->scan_status, (keys + tile) / tile, 8, "halo scan tiles"},
      {&halo->scan_ticket, 1, 4, "halo scan ticket"},
      {&halo->words, CK_GAS_CONTROL_WORDS, 4, "halo words"}};
  memcpy(out, all, sizeof all);
}

static void free_halo(gas_halo *halo) {
  halo_buffer buffers[HALO_BUFFERS];
  halo_buffers(halo, 0, 0, buffers);
  for (size_t i = 0; i < HALO_BUFFERS; ++i) {
    ck_buffer_destroy(*buffers[i].buffer);
    *buffers[i].buffer = NULL;
  }
  halo->capacity = halo->keys = 0;
}

/* A halo of at least `capacity` entries for the current band's cells,
 * made anew (after its queue's work) where it is smaller. */
static ck_status halo_room(gas_state *state, uint32_t capacity) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  gas_halo *halo = &native->halo;
  uint32_t keys = (uint32_t)state->cells_y * HALO_COLUMNS;
  if (halo->position && capacity <= halo->capacity && keys == halo->keys)
    return CK_OK;
  CK_TRY(ck_queue_finish(state->queue));
  if (capacity < halo->capacity)
    capacity = halo->capacity;
  capacity = capacity > 256 ? capacity : 256;
  free_halo(halo);
  halo_buffer made[HALO_BUFFERS];
  halo_buffers(halo, capacity, keys, made);
  for (size_t i = 0; i < HALO_BUFFERS; ++i)
    CK_TRY(ck__buffer_make_zeroed(state->queue, made[i].count, made[i].size,
                                  made[i].what, made[i].buffer));
  halo->capacity = capacity;
  halo->keys = keys;
  /* Its words are zero again: the tags start anew. */
  native->halo_tag = 0;
fail:
  return status;
}

/* The halo's sort by cell and id, its entries counted by
 * ck_gas_native_gather_halo (through the host; a resident pull sorts
 * its own). */
static ck_status sort_halo(gas_state *state) {
  ck_status status = CK_OK;
  gas_halo *halo = &state->native->halo;
  CK_TRY(scan_cells(state, halo->keys + 1, halo->fill, halo->count, halo->start,
                    halo->scan_status, halo->scan_ticket, &halo->epoch,
                    halo->words, 0u));
  sort_arrays arrays = {halo->key,
                        halo->rank,
                        halo->start,
                        halo->count,
                        halo->members,
                        halo->position,
                        halo->velocity,
                        halo->id,
                        halo->sorted_position,
                        halo->sorted_velocity,
                        halo->sorted_id,
                        halo->words,
                        halo->keys};
  CK_TRY(gather_and_place(state, &arrays, 0, 1, halo->capacity));
fail:
  return status;
}

/* Through the host, a slab's two tiers: slots from `first` (appended by
 * the host) into the halo, with their keys and ranks. */
static ck_status gather_halo(gas_state *state, uint32_t first) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  gas_halo *halo = &native->halo;
  ck_kernel_args args;
  uint32_t count = state->particles - first;
  CK_TRY(halo_room(state, count));
  ck_kernel *kernel = native->gather_kernel;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, first);
  ck_kernel_args_u32(&args, count);
  ck__gas_add_geometry(state, &args);
  ck_buffer *buffers[] = {state->position, state->velocity,      state->id,
                          halo->position,  halo->velocity,       halo->id,
                          halo->key,       halo->rank,           halo->fill,
                          halo->words,     state->member_control};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_kernel_args_buffer(&args, buffers[i]);
  ck_kernel_args_i32(&args, native->from_x);
  ck_kernel_args_i32(&args, native->to_x);
  ck_kernel_args_i32(&args, HALO_COLUMNS);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = NATIVE_BLOCK;
  size_t global = count ? ((size_t)count + local - 1) / local * local : local;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
fail:
  return status;
}

/* Cells mode sorts at every call (force_rebuild matters to Verlet lists
 * only): counts unless the half-step counted, scans, gathers each cell's
 * members, places every particle, and the sorted arrays become the
 * particles. A slab's member sorts what it held after its step out as
 * its own tier, and what the host appended since as its halo. */
static ck_status cuda_neighbors(gas_state *state, int force_rebuild) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  (void)force_rebuild;
  uint32_t n = state->particles;
  if (two_tiers(state) && !state->resident && native->cells_counted) {
    n = native->counted;
    CK_TRY(gather_halo(state, n));
  } else if (state->member && !state->resident && native->cells_counted &&
             native->counted < state->particles) {
    /* A member's slots appended since its step out count now (a resident
     * pull counted its own). */
    member_move appended = {native->counted, 0, 0, 0, 0, 0, {0, 0}, 0};
    CK_TRY(move_and_count(state, 0, &appended));
  }
  if (!native->cells_counted) {
    member_move all = {0, 0, 0, 0, 0, 0, {0, 0}, 0};
    CK_TRY(move_and_count(state, 0, &all));
    if (two_tiers(state))
      CK_TRY(gather_halo(state, state->particles));
  }
  native->cells_counted = 0;
  CK_TRY(sort_slots(state, n));
  /* A resident slab's halo is pulled and sorted in its slab launch. */
  if (two_tiers(state) && !state->resident)
    CK_TRY(sort_halo(state));
fail:
  return status;
}

/* The forces of the slots, and when the driver has a kick due, that
 * kick in the same pass. */
static ck_status launch_forces(gas_state *state) {
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
  if (state->member) {
    ck_kernel_args_i32(&args, 0);
    ck_kernel_args_i32(&args, native->from_x);
    ck_kernel_args_i32(&args, native->to_x);
  }
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_particles(state, kernel));
fail:
  return status;
}

/* The blocks of a slab's launch, in the order its kernel deals them. */
typedef struct slab_blocks {
  size_t pullers, own, sides, rest;
} slab_blocks;

static slab_blocks count_slab_blocks(const gas_state *state) {
  const gas_halo *halo = &state->native->halo;
  size_t local = NATIVE_BLOCK, warps = NATIVE_BLOCK / 32;
  size_t count = state->resident ? state->slots : state->particles;
  slab_blocks b;
  b.own = (count + local - 1) / local;
  /* A warp a side of each row, then a warp 32 halo entries. */
  size_t sides = 2 * (size_t)state->cells_y;
  b.sides = (sides + warps - 1) / warps;
  size_t chunks = (halo->capacity + 31) / 32;
  /* The pull's blocks: a thread four entries the halo has room for, at
   * most PULL_BLOCKS (they wait for each other). */
  b.pullers = (halo->capacity + 4 * local - 1) / (4 * local);
  b.pullers = b.pullers < 1             ? 1
              : b.pullers > PULL_BLOCKS ? PULL_BLOCKS
                                        : b.pullers;
  /* Those of the halo's entries: a warp 32 at once, in as many as 32
   * blocks. */
  b.rest = (chunks + warps - 1) / warps;
  b.rest = b.rest > 32 ? 32 : b.rest < 1 ? 1 : b.rest;
  return b;
}

/* The halo's arrays and sizes into the slab's frame, written to the
 * device where they changed: few launches change it, the first of each
 * run of resident steps. */
static ck_status write_slab_frame(gas_state *state) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  const gas_halo *halo = &native->halo;
  ck_gas_slab_frame *frame = &native->now;
  ck_buffer *arrays[CK_GAS_HALO_ARRAYS] = {
      [CK_GAS_HALO_POSITION] = halo->position,
      [CK_GAS_HALO_VELOCITY] = halo->velocity,
      [CK_GAS_HALO_ID] = halo->id,
      [CK_GAS_HALO_KEY] = halo->key,
      [CK_GAS_HALO_RANK] = halo->rank,
      [CK_GAS_HALO_FILL] = halo->fill,
      [CK_GAS_HALO_MEMBERS] = halo->members,
      [CK_GAS_HALO_COUNT] = halo->count,
      [CK_GAS_HALO_START] = halo->start,
      [CK_GAS_HALO_SORTED_POSITION] = halo->sorted_position,
      [CK_GAS_HALO_SORTED_VELOCITY] = halo->sorted_velocity,
      [CK_GAS_HALO_SORTED_ID] = halo->sorted_id};
  for (int i = 0; i < CK_GAS_HALO_ARRAYS; ++i)
    frame->halo[i] = (uint64_t)(uintptr_t)ck__cuda_pointer(arrays[i]);
  frame->halo_columns = HALO_COLUMNS;
  frame->keys = halo->keys;
  frame->message_capacity = state->message_capacity;
  if (memcmp(frame, &native->written, sizeof *frame) != 0) {
    CK_TRY(ck_buffer_write(state->queue, native->frame, 0, sizeof *frame, frame,
                           CK_BLOCKING, NULL));
    native->written = *frame;
  }
fail:
  return status;
}

/* A slab's forces in one launch (ck_gas_native_slab): the pull and the
 * halo's sort where a resident step pulls (else the halo is sorted
 * already), the interior, the border from both tiers, the halo appended
 * after the own tier and the arrivals' forces; and the kicks due. */
static ck_status launch_slab(gas_state *state) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  ck_kernel *kernel =
      state->with_energy ? native->slab_energy_kernel : native->slab_kernel;
  size_t local = NATIVE_BLOCK;
  slab_blocks b = count_slab_blocks(state);
  size_t global = (b.pullers + b.own + b.sides + b.rest) * local;
  CK_TRY(write_slab_frame(state));
  native->halo_tag = native->halo_tag % 0xfffffffeu + 1u;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, (uint32_t)b.pullers);
  ck_kernel_args_u32(&args, (uint32_t)b.own);
  ck_kernel_args_u32(&args, (uint32_t)b.sides);
  ck_kernel_args_u32(&args, (uint32_t)b.rest);
  ck_kernel_args_i32(&args, native->pull);
  ck_kernel_args_u32(&args, state->step_tag);
  ck_kernel_args_u32(&args, native->halo_tag);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_f32(&args, (float)state->rc);
  ck_kernel_args_f32(&args, (float)state->rc2);
  ck_kernel_args_f32(&args, (float)state->energy_shift);
  ck_kernel_args_f32(&args, (float)state->force_shift);
  ck_buffer *buffers[] = {
      state->position,   state->velocity,      state->id,
      state->force,      state->energy,        state->virial,
      state->cell_start, state->cell_count,    native->halo.words,
      native->frame,     state->member_control};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_kernel_args_buffer(&args, buffers[i]);
  ck_kernel_args_i32(&args, state->resident);
  ck_kernel_args_u32(&args, state->slots);
  ck_kernel_args_i32(&args, state->parity);
  ck_kernel_args_i32(&args, native->from_x);
  ck_kernel_args_i32(&args, native->to_x);
  int langevin = state->thermostat == CK_GAS_LANGEVIN;
  ck_kernel_args_i32(&args, state->kick_step != 0);
  ck_kernel_args_f32(&args, (float)state->dt);
  ck_kernel_args_f32(&args, langevin ? (float)state->langevin_damping : 0.0f);
  ck_kernel_args_f32(&args, (float)state->langevin_noise);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_u64(&args, state->kick_step);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
  native->pull = 0;
fail:
  return status;
}

/* The forces, and when the driver has a kick due, that kick in the same
 * pass; a slab's in one launch with its halo (launch_slab). */
static ck_status cuda_forces(gas_state *state) {
  ck_status status = CK_OK;
  CK_TRY(two_tiers(state) ? launch_slab(state) : launch_forces(state));
  state->kick_step = 0;
fail:
  return status;
}

/* A resident member's pull (ck__gas_steps.pull). A slab's is made in its
 * slab launch: this keeps its sources and makes room in the halo for
 * the four segments. Else a thread an entry of the four segments, each
 * as long as the larger of the two neighbours' regions; the neighbours'
 * outboxes and counts are read where they are, on their devices. */
static ck_status cuda_pull(gas_state *state, const ck__gas_source from[2],
                           double lo, double hi) {
  ck_status status = CK_OK;
  gas_native *native = state->native;
  ck_kernel_args args;
  ck_kernel *kernel = native->pull_kernel;
  uint32_t segment =
      from[0].capacity > from[1].capacity ? from[0].capacity : from[1].capacity;
  if (two_tiers(state)) {
    CK_TRY(halo_room(state, 4 * segment));
    for (int side = 0; side < 2; ++side) {
      native->now.packed[side] = from[side].packed;
      native->now.control[side] = from[side].control;
      native->now.capacity[side] = from[side].capacity;
      native->now.leavers[side] = from[side].leavers;
    }
    native->now.lo = (float)lo;
    native->now.hi = (float)hi;
    native->pull = 1;
    return CK_OK;
  }
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
        native->pull_kernel,    native->gather_kernel,
        native->slab_kernel,    native->slab_energy_kernel};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
      ck_kernel_destroy(kernels[i]);
    ck_program_destroy(native->program);
    free_halo(&native->halo);
    ck_buffer_destroy(native->frame);
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
