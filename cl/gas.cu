/*
 * gas.cu - the native CUDA step of the 2D gas with cell lists: the sort by
 * cell and the forces of every step, in five launches where the OpenCL
 * kernels of gas.cl take eight. The per-particle and per-pair math is
 * ck_gas.h's, as in gas.cl and the ref steps (src/gas/gas_ref.c); what
 * differs is how the work is laid out:
 *
 *   ck_gas_native_move     the first half-step (ck_gas_kick_drift_particle)
 *                          and the count by cell in one pass; lanes of a
 *                          warp in the same cell add to its counter with
 *                          one atomic
 *   ck_gas_native_scan     cell counts to cell starts in one pass (tiles
 *                          chained by decoupled look-back), clearing the
 *                          counters for the next sort
 *   ck_gas_native_members  each cell's ids, in arrival order
 *   ck_gas_native_place    each particle to its slot: its rank by id among
 *                          its cell's members (no insertion sort)
 *   ck_gas_native_forces   the forces from the 3 x 3 cells, read as three
 *   (_energy)              contiguous row ranges, and the second half-kick
 *                          (ck_gas_kick_particle) in the same pass
 *
 * The order that results is the OpenCL kernels' and ref's: by cell, then
 * by id, so it depends only on the positions. Pairs are summed in ref's
 * order (rows, then columns, then slots), and a pair's separation is
 * exactly ref's minimum image, so each pair's force is exactly opposite
 * for its two particles.
 *
 * Build-time defines (src/gas/gas_cuda.c):
 *   CK_GAS_PERIODIC_X    1 for a periodic x axis (at least 3 cells), 0 for
 *                        reflecting walls
 *   CK_GAS_PERIODIC_Y    the same along y
 *   CK_GAS_WALLS_X       where x is not periodic, its walls (gas.cl)
 *   CK_GAS_WALLS_Y       the same along y
 *   CK_GAS_MEMBER        1 for a spread member (ck_gas.h): the forces
 *                        kernels kick its own particles alone; the
 *                        member sorts with gas.cl's kernels
 *   CK_GAS_FORCE_SHIFT   1 for the force-shifted potential, else 0 (the
 *                        pair loop then carries no test for it)
 *   CK_GAS_BLOCK         threads a block of the per-particle kernels (a
 *                        multiple of 32)
 *   CK_GAS_SCAN_THREADS  threads a block of the scan (a multiple of 32, at
 *                        most 1024)
 *   CK_GAS_SCAN_ITEMS    cells a scan thread; a tile is THREADS x ITEMS
 * Single precision only; the Lennard-Jones model (cells need a cutoff).
 */
#define CK_CUDA_NATIVE 1
/* As in gas.cl: GPUs may fuse multiplies and adds in the pair terms. */
#define CK_FUSE_ON_GPU 1
#include "ck_gas.h"
#include "ck_warp.h"

#if !defined(CK_GAS_PERIODIC_X) || !defined(CK_GAS_PERIODIC_Y) ||              \
    !defined(CK_GAS_WALLS_X) || !defined(CK_GAS_WALLS_Y) ||                    \
    !defined(CK_GAS_FORCE_SHIFT) || !defined(CK_GAS_MEMBER) ||                 \
    !defined(CK_GAS_BLOCK) || !defined(CK_GAS_SCAN_THREADS) ||                 \
    !defined(CK_GAS_SCAN_ITEMS)
#error "gas.cu needs its CK_GAS_ defines"
#endif
#if CK_REAL_DOUBLE
#error "gas.cu is single precision"
#endif

#define SCAN_WARPS (CK_GAS_SCAN_THREADS / CK_WARP_WIDTH)
#define SCAN_TILE (CK_GAS_SCAN_THREADS * CK_GAS_SCAN_ITEMS)

/* A member's per-slot kernels also take its control words and whether
 * its step is resident (ck_gas.h): their slot count is then a control
 * word (`which`), not the launch's argument. */
#if CK_GAS_MEMBER
#define CK_GAS_RESIDENT_ARGUMENTS                                              \
  , const unsigned *__restrict__ control, int resident
#define CK_GAS_RESIDENT_CALL , control, resident
#define CK_GAS_RESIDENT_COUNT(n, which)                                        \
  do {                                                                         \
    if (resident)                                                              \
      (n) = control[(which)];                                                  \
  } while (0)
#else
#define CK_GAS_RESIDENT_ARGUMENTS
#define CK_GAS_RESIDENT_CALL
#define CK_GAS_RESIDENT_COUNT(n, which)                                        \
  do {                                                                         \
  } while (0)
#endif

/* A member's forces also take whether its slots sort in two tiers (a
 * slab's: see "two tiers" below), and then its interior's cell columns,
 * from_x to to_x, whose forces they compute alone. */
#if CK_GAS_MEMBER
#define CK_GAS_TIER_ARGUMENTS , int two_tier, int from_x, int to_x
#define CK_GAS_TIER_CALL , two_tier, from_x, to_x
#else
#define CK_GAS_TIER_ARGUMENTS
#define CK_GAS_TIER_CALL
#endif

/* The rank of the calling lane among the particles that reach counter
 * `key` (a cell's, or an outbox region's): the lanes of `live` with the
 * same key share one atomic add, made by their lowest lane, and take
 * consecutive ranks in lane order. */
static __device__ __forceinline__ unsigned
arrival_rank(unsigned *fill, unsigned key, unsigned live) {
#if __CUDA_ARCH__ >= 700
  unsigned lane = threadIdx.x % CK_WARP_WIDTH;
  unsigned same = __match_any_sync(live, key);
  unsigned leader = (unsigned)__ffs((int)same) - 1u;
  unsigned base = 0;
  if (lane == leader)
    base = atomicAdd(&fill[key], (unsigned)__popc((int)same));
  base = __shfl_sync(same, base, (int)leader);
  return base + (unsigned)__popc((int)(same & ((1u << lane) - 1u)));
#else
  (void)live;
  return atomicAdd(&fill[key], 1u);
#endif
}

/*
 * Thread k (slot first + k): with move 1, the first half-step of the slot
 * (v += dt/2 f, x += dt v, wrap or reflect), written back in place; then,
 * moved or not, its cell key and its rank among the cell's particles in
 * arrival order (the counters in fill start at 0; the scan clears them
 * again). A spread member's own particles alone move; with classify 1 it
 * also takes its step out in the same pass (gas.cl's
 * ck_gas_member_leave: the outbox, counts, again), and its dropped slots
 * take the key past the last cell.
 */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK)
    ck_gas_native_move(unsigned n, float dt, CK_GAS_GEOMETRY_ARGUMENTS,
                       float2 *position, float2 *velocity,
                       const float2 *__restrict__ force, int move,
                       unsigned *cell_key, unsigned *cell_rank, unsigned *fill
#if CK_GAS_MEMBER
                       ,
                       unsigned first, unsigned *id, int classify, float lo,
                       float hi, float reach, float shift_previous,
                       float shift_next, int again, int stage,
                       unsigned capacity, unsigned *packed, unsigned *counts,
                       unsigned *control, int resident, int parity
#endif
    ) {
  unsigned k = blockIdx.x * CK_GAS_BLOCK + threadIdx.x;
#if CK_GAS_MEMBER
  /* A resident step's slots are counted on the device; the grid covers
   * every slot there is room for. Its counts and outbox half are those
   * of the step's parity, and an entry with no room is flagged. */
  if (resident) {
    n = control[CK_GAS_CONTROL_SORTED];
    counts = control + ck_gas_control_count(parity, 0);
    packed += ck_gas_packed_half(parity, capacity);
  }
#endif
  /* Whole warps reach the ballot (the grid is whole blocks). */
  unsigned live = __ballot_sync(CK_ALL_LANES, k < n);
  if (k >= n)
    return;
  CK_GAS_GEOMETRY_BUILD(g);
#if CK_GAS_MEMBER
  k += first;
#endif
  /* Every load at once, before any depends on the id: one wait on
   * memory a slot, not two. */
  float2 place = position[k], speed = velocity[k], pull = force[k];
#if CK_GAS_MEMBER
  unsigned before = id[k], word = before;
  if (!ck_gas_own(word))
    move = 0; /* a ghost: its owner moves it */
#endif
  if (move) {
    /* The shared step on this particle's values, kept in registers. */
    float x[2] = {place.x, place.y}, v[2] = {speed.x, speed.y};
    const float f[2] = {pull.x, pull.y};
    ck_gas_kick_drift_particle(0, x, x, v, f, dt, &g, 0, CK_R(0));
    place = make_float2(x[0], x[1]);
    speed = make_float2(v[0], v[1]);
    position[k] = place;
    velocity[k] = speed;
  }
#if CK_GAS_MEMBER
  if (classify) {
    unsigned own = ck_gas_member_id(word);
    float u = stage ? place.y : place.x;
    int region;
    if (again && stage == 0 && word != CK_GAS_DROPPED && !ck_gas_own(word))
      region = u < lo ? 0 : 1; /* stored by the first call */
    else
      region = ck_gas_member_classify(u, &word, lo, hi, reach, stage);
    /* The lanes going one way share an atomic add. */
    unsigned going = __ballot_sync(live, region >= 0);
    if (region >= 0) {
      unsigned e = arrival_rank(counts, (unsigned)region, going);
      float shift = region % 2 ? shift_next : shift_previous;
      if (e >= capacity) {
        word = before; /* not stored: it stays here, and goes next call */
        if (resident)
          atomicOr(&control[CK_GAS_CONTROL_FLAGS], CK_GAS_OVERFLOW_OUTBOX);
      } else
        ck_gas_member_put(packed, capacity, region, e, own,
                          place.x + (stage ? 0.0f : shift),
                          place.y + (stage ? shift : 0.0f), speed.x, speed.y);
    }
    if (word != before)
      id[k] = word;
  }
  unsigned key = ck_gas_member_key(place.x, place.y, word, &g);
#else
  unsigned key = (unsigned)ck_gas_cell_of(place.x, place.y, &g);
#endif
  cell_key[k] = key;
  cell_rank[k] = arrival_rank(fill, key, live);
}

/* Inclusive prefix sum over the warp's lanes (every lane calls it). */
static __device__ __forceinline__ unsigned warp_inclusive_sum(unsigned value,
                                                              unsigned lane) {
  for (unsigned distance = 1; distance < CK_WARP_WIDTH; distance <<= 1) {
    unsigned below = __shfl_up_sync(CK_ALL_LANES, value, distance);
    if (lane >= distance)
      value += below;
  }
  return value;
}

/* A tile's status word: a tag in the high half, a count in the low one.
 * Tags change every launch (epoch, from 1), so words of an earlier launch
 * read as not yet published and need no clearing. */
static __device__ __forceinline__ unsigned long long tile_word(unsigned tag,
                                                               unsigned value) {
  return ((unsigned long long)tag << 32) | value;
}

/*
 * Decoupled look-back, by the 32 lanes of one warp of tile `tile`: the
 * tile publishes its own total (`aggregate`), then sums its predecessors'
 * words from the nearest back, 32 at a time, until it meets one that holds
 * an inclusive prefix (tile 0 always does); it then publishes its own
 * inclusive prefix and returns the exclusive one. A tile only waits on
 * tiles with lower tickets, which are running already, so it always ends.
 */
static __device__ unsigned look_back(volatile unsigned long long *status,
                                     unsigned tile, unsigned aggregate,
                                     unsigned epoch, unsigned lane) {
  const unsigned total_tag = 2u * epoch + 1u, prefix_tag = 2u * epoch + 2u;
  if (tile == 0) {
    if (lane == 0)
      status[0] = tile_word(prefix_tag, aggregate);
    return 0;
  }
  if (lane == 0)
    status[tile] = tile_word(total_tag, aggregate);
  unsigned exclusive = 0;
  for (long window = (long)tile - 1;; window -= CK_WARP_WIDTH) {
    long predecessor = window - (long)lane;
    unsigned long long word;
    unsigned tag;
    do {
      /* Before tile 0: a prefix of 0, so the walk always stops. */
      word = predecessor >= 0 ? status[predecessor] : tile_word(prefix_tag, 0);
      tag = (unsigned)(word >> 32);
    } while (!__all_sync(CK_ALL_LANES, tag == total_tag || tag == prefix_tag));
    unsigned prefixes = __ballot_sync(CK_ALL_LANES, tag == prefix_tag);
    /* Lanes up to the nearest prefix count; farther ones are in it. */
    unsigned stop =
        prefixes ? (unsigned)__ffs((int)prefixes) - 1u : CK_WARP_WIDTH - 1u;
    exclusive += ck_warp_sum(lane <= stop ? (unsigned)word : 0u);
    if (prefixes)
      break;
  }
  if (lane == 0)
    status[tile] = tile_word(prefix_tag, exclusive + aggregate);
  return exclusive;
}

/*
 * The exclusive prefix sum of the cells' counts, in one pass. Block b
 * takes the next tile (a ticket, so tiles start in order) of SCAN_TILE
 * cells, CK_GAS_SCAN_ITEMS consecutive cells a thread; the block scans its
 * tile (warp shuffles, then the warps' totals), warp 0 gets the tiles
 * before it by look-back, and every thread writes its cells' counts and
 * starts and clears their counters for the next sort.
 */
extern "C" __global__ void __launch_bounds__(CK_GAS_SCAN_THREADS)
    ck_gas_native_scan(unsigned cells, unsigned *fill, unsigned *cell_count,
                       unsigned *cell_start, unsigned long long *tile_status,
                       unsigned *tile_ticket, unsigned epoch
#if CK_GAS_MEMBER
                       ,
                       unsigned *control, unsigned tag
#endif
    ) {
  __shared__ unsigned tile_shared, before_tile;
  __shared__ unsigned warp_total[SCAN_WARPS], before_warp[SCAN_WARPS];
  unsigned thread = threadIdx.x, lane = thread % CK_WARP_WIDTH,
           warp = thread / CK_WARP_WIDTH;
#if CK_GAS_MEMBER
  /* A resident slab's sort follows its step out, whose outbox is whole
   * now: its tag (not 0) tells its neighbours (two tiers, below). */
  if (tag != 0u && blockIdx.x == 0 && thread == 0) {
    __threadfence_system();
    atomicExch(&control[CK_GAS_CONTROL_READY], tag);
  }
#endif
  if (thread == 0) {
    unsigned ticket = atomicAdd(tile_ticket, 1u);
    /* Every block holds its ticket now: reset for the next launch. */
    if (ticket == gridDim.x - 1)
      atomicExch(tile_ticket, 0u);
    tile_shared = ticket;
  }
  __syncthreads();
  unsigned tile = tile_shared;
  unsigned first = tile * SCAN_TILE + thread * CK_GAS_SCAN_ITEMS;
  unsigned counts[CK_GAS_SCAN_ITEMS], total = 0;
#pragma unroll
  for (unsigned q = 0; q < CK_GAS_SCAN_ITEMS; ++q) {
    unsigned cell = first + q;
    counts[q] = cell < cells ? fill[cell] : 0u;
    total += counts[q];
  }
  unsigned inclusive = warp_inclusive_sum(total, lane);
  if (lane == CK_WARP_WIDTH - 1)
    warp_total[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    unsigned own = lane < SCAN_WARPS ? warp_total[lane] : 0u;
    unsigned warps_inclusive = warp_inclusive_sum(own, lane);
    if (lane < SCAN_WARPS)
      before_warp[lane] = warps_inclusive - own;
    unsigned aggregate =
        __shfl_sync(CK_ALL_LANES, warps_inclusive, CK_WARP_WIDTH - 1);
    unsigned before = look_back(tile_status, tile, aggregate, epoch, lane);
    if (lane == 0)
      before_tile = before;
  }
  __syncthreads();
  unsigned running = before_tile + before_warp[warp] + inclusive - total;
#pragma unroll
  for (unsigned q = 0; q < CK_GAS_SCAN_ITEMS; ++q) {
    unsigned cell = first + q;
    if (cell < cells) {
      cell_count[cell] = counts[q];
      cell_start[cell] = running;
      fill[cell] = 0u;
#if CK_GAS_MEMBER
      /* A member's last key is its dropped slots': the others before it
       * are the slots the sort keeps. */
      if (cell == cells - 1u)
        control[CK_GAS_CONTROL_SORTED] = running;
#endif
    }
    running += counts[q];
  }
}

/* Thread k: slot k's id into its cell's run of members, at its arrival
 * rank. */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK)
    ck_gas_native_members(unsigned n, const unsigned *__restrict__ cell_key,
                          const unsigned *__restrict__ cell_rank,
                          const unsigned *__restrict__ cell_start,
                          const unsigned *__restrict__ id,
                          unsigned *members CK_GAS_RESIDENT_ARGUMENTS) {
  unsigned k = blockIdx.x * CK_GAS_BLOCK + threadIdx.x;
  CK_GAS_RESIDENT_COUNT(n, CK_GAS_CONTROL_APPENDED);
  if (k >= n)
    return;
  members[cell_start[cell_key[k]] + cell_rank[k]] = id[k];
}

/*
 * Thread k: slot k's particle to its sorted slot, the cell's start plus
 * the number of the cell's members with a smaller id (ties, which valid
 * ids never have, by arrival), so that each cell ends ordered by id as
 * ck_gas_order_cell leaves it.
 */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK) ck_gas_native_place(
    unsigned n, unsigned cells, const unsigned *__restrict__ cell_key,
    const unsigned *__restrict__ cell_rank,
    const unsigned *__restrict__ cell_start,
    const unsigned *__restrict__ cell_count,
    const unsigned *__restrict__ members, const float2 *__restrict__ position,
    const float2 *__restrict__ velocity, const unsigned *__restrict__ id,
    float2 *sorted_position, float2 *sorted_velocity,
    unsigned *sorted_id CK_GAS_RESIDENT_ARGUMENTS) {
  unsigned k = blockIdx.x * CK_GAS_BLOCK + threadIdx.x;
  CK_GAS_RESIDENT_COUNT(n, CK_GAS_CONTROL_APPENDED);
  if (k >= n)
    return;
  unsigned key = cell_key[k];
  if (key >= cells)
    return; /* a member's dropped slot: it has no place */
  unsigned start = cell_start[key], end = start + cell_count[key];
  unsigned arrived = start + cell_rank[k], own = id[k], rank = 0;
  for (unsigned t = start; t < end; ++t) {
    unsigned other = members[t];
    rank += other < own || (other == own && t < arrived);
  }
  unsigned slot = start + rank;
  sorted_position[slot] = position[k];
  sorted_velocity[slot] = velocity[k];
  sorted_id[slot] = own;
}

/*
 * Thread i: the force on slot i from the cells around it, then (kick 1)
 * its second half-kick and Langevin step. The 3 x 3 cells are walked as
 * three to six runs of consecutive slots (ck_gas_run_row,
 * ck_gas_run_columns) instead of nine cells. A run across the periodic
 * boundary carries the box side that the minimum image would subtract:
 * (x_i - x_j) - shift is exactly ck_gas_minimum_image(x_i - x_j) for every
 * pair inside the cutoff, since with at least 3 cells a row the image
 * only flips pairs a cell or more apart. Runs go in ref's order (rows,
 * then columns, then slots). The particle itself is in its own cell's run
 * at distance 0, which ck_gas_add_pair skips.
 */
/* The pair constants of the Lennard-Jones cells kernels. */
static __device__ __forceinline__ ck_gas_pair_constants
pair_constants(float rc2, float energy_shift, float force_shift) {
  ck_gas_pair_constants pair;
  pair.rc2 = rc2;
  pair.energy_shift = energy_shift;
  pair.force_shift = CK_GAS_FORCE_SHIFT ? force_shift : CK_R(0);
  pair.strength = CK_R(0);
  pair.softening2 = CK_R(0);
  pair.soft_log_weight = CK_R(0);
  return pair;
}

/* Adds to *fx, *fy, *e, *w the pairs a particle at `own` has with the
 * entries from `begin` to `end`, in order, each shifted by (shift_x,
 * shift_y) along the periodic axes. CACHED 1 reads them through the
 * read-only cache: never entries this launch writes (a slab's halo). */
template <int WITH_ENERGY, int CACHED>
static __device__ __forceinline__ void
entry_pairs(float2 own, unsigned begin, unsigned end, const float2 *position,
            float shift_x, float shift_y, const ck_gas_pair_constants *pair,
            float rc, float *fx, float *fy, float *e, float *w) {
  (void)shift_x;
  (void)shift_y;
  for (unsigned j = begin; j < end; ++j) {
    float2 other = CACHED ? __ldg(position + j) : position[j];
    float dx = own.x - other.x, dy = own.y - other.y;
#if CK_GAS_PERIODIC_X
    dx -= shift_x;
#endif
#if CK_GAS_PERIODIC_Y
    dy -= shift_y;
#endif
    ck_gas_add_pair(CK_GAS_MODEL_LENNARD_JONES, dx, dy, pair, rc, WITH_ENERGY,
                    fx, fy, e, w);
  }
}

/* The sums of the pairs a particle at `own` (cell cx, cy) has with the
 * slots of its 3 x 3 cells, added to *fx, *fy, *e, *w in ref's order. */
template <int WITH_ENERGY>
static __device__ __forceinline__ void
own_pairs(float2 own, int cx, int cy, const ck_gas_geometry *g,
          const ck_gas_pair_constants *pair, float rc,
          const float2 *__restrict__ position,
          const unsigned *__restrict__ cell_start,
          const unsigned *__restrict__ cell_count, float *fx, float *fy,
          float *e, float *w) {
#pragma unroll 1
  for (int oy = -1; oy <= 1; ++oy) {
    int row, from, to;
    float shift_x, shift_y;
    if (!ck_gas_run_row(cy, oy, g, &row, &shift_y))
      continue;
    unsigned base = (unsigned)row * (unsigned)g->cells_x;
#pragma unroll 1
    for (int run = 0; run < 3; ++run) {
      if (!ck_gas_run_columns(cx, run, g, &from, &to, &shift_x))
        continue;
      unsigned begin = cell_start[base + (unsigned)from];
      unsigned end =
          cell_start[base + (unsigned)to] + cell_count[base + (unsigned)to];
      entry_pairs<WITH_ENERGY, 1>(own, begin, end, position, shift_x, shift_y,
                                  pair, rc, fx, fy, e, w);
    }
  }
}

/* Thread threadIdx.x of block `block`: slot i's forces (own_pairs), then
 * its kick. A slab's two tiers (two_tier 1) leave the border's particles
 * (cell columns outside from_x to to_x) to the border's warps. */
template <int WITH_ENERGY>
static __device__ __forceinline__ void
forces(unsigned block, unsigned n, CK_GAS_GEOMETRY_ARGUMENTS, float rc,
       float rc2, float energy_shift, float force_shift,
       const float2 *__restrict__ position,
       const unsigned *__restrict__ cell_start,
       const unsigned *__restrict__ cell_count, float2 *force, float *energy,
       float *virial, int kick, float dt, float damping, float noise,
       ck_u64 seed, ck_u64 step, float2 *velocity,
       const unsigned *__restrict__ id CK_GAS_RESIDENT_ARGUMENTS
           CK_GAS_TIER_ARGUMENTS) {
  unsigned i = block * CK_GAS_BLOCK + threadIdx.x;
#if CK_GAS_MEMBER
  /* Two tiers: the own tier's slots alone (the sort's count before its
   * dropped key; a later block may change the control words). */
  if (two_tier)
    n = cell_start[cells_x * cells_y];
  else
#endif
    CK_GAS_RESIDENT_COUNT(n, CK_GAS_CONTROL_SORTED);
  if (i >= n)
    return;
  ck_gas_pair_constants pair = pair_constants(rc2, energy_shift, force_shift);
  CK_GAS_GEOMETRY_BUILD(g);
  float2 own = position[i];
  int cx = ck_gas_cell(own.x, cell_inverse_x, cells_x);
  int cy = ck_gas_cell(own.y, cell_inverse_y, cells_y);
#if CK_GAS_MEMBER
  if (two_tier && (cx < from_x || cx > to_x))
    return;
#endif
  float fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  own_pairs<WITH_ENERGY>(own, cx, cy, &g, &pair, rc, position, cell_start,
                         cell_count, &fx, &fy, &e, &w);
  force[i] = make_float2(fx, fy);
  if (WITH_ENERGY) {
    energy[i] = e;
    virial[i] = w;
  }
  /* The velocity is loaded with the id that decides, not after it. */
  float2 speed = kick ? velocity[i] : make_float2(0.0f, 0.0f);
  if (kick && (!CK_GAS_MEMBER || ck_gas_own(id[i]))) {
    /* The shared kick on this particle's values, kept in registers. */
    float v[2] = {speed.x, speed.y};
    const float f[2] = {fx, fy};
    ck_gas_kick_particle(0, v, f, id + i, dt, damping, noise, seed, step);
    velocity[i] = make_float2(v[0], v[1]);
  }
}

/* The force kernels' arguments, and the call of forces() with them. */
#define FORCES_ARGUMENTS                                                       \
  unsigned n, CK_GAS_GEOMETRY_ARGUMENTS, float rc, float rc2,                  \
      float energy_shift, float force_shift,                                   \
      const float2 *__restrict__ position,                                     \
      const unsigned *__restrict__ cell_start,                                 \
      const unsigned *__restrict__ cell_count, float2 *force, float *energy,   \
      float *virial, int kick, float dt, float damping, float noise,           \
      ck_u64 seed, ck_u64 step, float2 *velocity,                              \
      const unsigned *__restrict__ id CK_GAS_RESIDENT_ARGUMENTS                \
          CK_GAS_TIER_ARGUMENTS
#define FORCES_CALL                                                            \
  blockIdx.x, n, box_x, box_y, cell_inverse_x, cell_inverse_y, cells_x,        \
      cells_y, rc, rc2, energy_shift, force_shift, position, cell_start,       \
      cell_count, force, energy, virial, kick, dt, damping, noise, seed, step, \
      velocity, id CK_GAS_RESIDENT_CALL CK_GAS_TIER_CALL

/* Thread i: slot i's force (see forces()), energies and virials left
 * alone. */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK)
    ck_gas_native_forces(FORCES_ARGUMENTS) {
  forces<0>(FORCES_CALL);
}

/* Thread i: the same, and slot i's halves of its pairs' energy and
 * virial. */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK)
    ck_gas_native_forces_energy(FORCES_ARGUMENTS) {
  forces<1>(FORCES_CALL);
}

#if CK_GAS_MEMBER
/*
 * A resident member's pull, a thread an entry: thread t takes entry
 * t % segment of segment t / segment (ck_gas_pull_region: the previous
 * member's leavers, the next's, then their ghosts), from its sender's
 * half of the outbox for the step's parity (another GPU's memory, where
 * the sender is there), and appends it after the slots the last sort
 * kept, in the order ck__gas_member_admit appends them through the host.
 * Its cell key and arrival rank are counted as the move counts its own.
 * A migrant past [lo, hi) is named in the control words (a stray).
 * Thread 0 keeps the other control words (ck_gas_pull_account); the
 * other parity's counts it zeroes were last read by the neighbours'
 * pulls of the step before, which ended before the neighbours packed
 * this step, which this launch follows.
 */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK)
    ck_gas_native_pull(unsigned segment, CK_GAS_GEOMETRY_ARGUMENTS,
                       float2 *position, float2 *velocity, unsigned *id,
                       unsigned *cell_key, unsigned *cell_rank, unsigned *fill,
                       unsigned *control, int parity, unsigned slots,
                       unsigned capacity, float lo, float hi,
                       const unsigned *__restrict__ previous_packed,
                       const unsigned *__restrict__ previous_control,
                       unsigned previous_capacity, unsigned previous_leavers,
                       const unsigned *__restrict__ next_packed,
                       const unsigned *__restrict__ next_control,
                       unsigned next_capacity, unsigned next_leavers) {
  __shared__ unsigned first[5], base, flags;
  unsigned t = blockIdx.x * CK_GAS_BLOCK + threadIdx.x;
  if (threadIdx.x == 0) {
    unsigned firsts[5];
    flags = ck_gas_pull_firsts(previous_control, previous_capacity,
                               previous_leavers, next_control, next_capacity,
                               next_leavers, parity, firsts);
    for (int s = 0; s < 5; ++s)
      first[s] = firsts[s];
    base = control[CK_GAS_CONTROL_SORTED];
  }
  __syncthreads();
  unsigned s = t / segment, e = t % segment;
  int valid = s < 4u && e < first[s + 1] - first[s];
  unsigned slot = base + (valid ? first[s] + e : 0u);
  if (t == 0) {
    unsigned firsts[5] = {first[0], first[1], first[2], first[3], first[4]};
    ck_gas_pull_account(control, parity, capacity, slots, firsts);
    control[CK_GAS_CONTROL_FLAGS] |= flags;
  }
  valid = valid && slot < slots;
  unsigned live = __ballot_sync(CK_ALL_LANES, valid);
  if (!valid)
    return;
  unsigned room = s % 2 ? next_capacity : previous_capacity;
  const unsigned *packed = (s % 2 ? next_packed : previous_packed) +
                           ck_gas_packed_half(parity, room);
  float x, y, vx, vy;
  unsigned word = ck_gas_pull_entry(packed, room, (int)s, e, &x, &y, &vx, &vy);
  if (s < 2u && !(x >= lo && x < hi) &&
      atomicCAS(&control[CK_GAS_CONTROL_STRAY], CK_GAS_NO_STRAY, word) ==
          CK_GAS_NO_STRAY)
    control[CK_GAS_CONTROL_STRAY_X] = ck_float_as_bits(x);
  position[slot] = make_float2(x, y);
  velocity[slot] = make_float2(vx, vy);
  id[slot] = word;
  CK_GAS_GEOMETRY_BUILD(g);
  unsigned key = ck_gas_member_key(x, y, word, &g);
  cell_key[slot] = key;
  cell_rank[slot] = arrival_rank(fill, key, live);
}
#include "gas_two_tiers.inc"
#endif
