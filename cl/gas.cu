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
/* ---- two tiers ------------------------------------------------------------
 *
 * A slab's member (src/gas/gas_cuda.c) sorts its slots in two tiers: the
 * own tier, the slots it held after its move (its particles and those
 * that just left it), and the halo, what it pulled (arrivals and
 * ghosts), sorted apart by cell and id in arrays of its own. A particle's
 * pairs are those of the own tier, then the halo's. So the own tier's
 * sort and its interior's forces need nothing pulled, and run while the
 * neighbours' entries come:
 *
 *   ck_gas_native_scan         the own tier's sort (with _members and
 *                              _place); it begins by publishing the
 *                              step's tag in the control words: the move
 *                              before it has packed the outbox whole
 *   ck_gas_native_slab         (_energy) in one launch: its first blocks
 *                              wait for both neighbours' tags, pull
 *                              their entries into the halo and sort it,
 *                              while the next compute the interior (cell
 *                              columns from_x to to_x); blocks in the
 *                              middle wait for the halo, then compute
 *                              the border from both tiers, append the
 *                              halo after the own tier, and compute the
 *                              arrivals
 *
 * Through the host, ck_gas_native_gather_halo takes the slots appended
 * into the halo and the sort kernels sort it; the slab kernel then finds
 * it sorted. The pull's blocks wait for each other, and for another
 * GPU's sort, which waits for nothing of this launch; the others wait
 * for the pull alone, so the launch always ends (see slab()). Where the
 * queues order the neighbours' steps instead (members that share a GPU,
 * or processes), the tag is 0, which the launch never waits for.
 *
 * Pulled entries lie past the slab's borders (ghosts) or less than half
 * a cell inside (arrivals: a step's move). The host picks from_x and
 * to_x so that no interior particle has a pulled entry in its 3 x 3
 * cells; an entry in columns from_x - 1 to to_x + 1 is flagged
 * (CK_GAS_OVERFLOW_INSIDE), as is one past the halo's cells: a window
 * of columns each side (halo_column), row by row. Whatever the way the
 * entries come, each particle's sums are the same, bit for bit.
 */
#define BORDER_WARPS (CK_GAS_BLOCK / CK_WARP_WIDTH)

/* The halo's column of cell column cx: CK_GAS_HALO_WINDOW columns before
 * from_x - 1, then as many after to_x + 1; -1 where no pulled entry may
 * lie (from_x - 1 to to_x + 1, and farther than the windows). */
static __device__ __forceinline__ int halo_column(int cx, int from_x,
                                                  int to_x) {
  int left = from_x - 1 - CK_GAS_HALO_WINDOW;
  if (cx >= left && cx < from_x - 1)
    return cx - left;
  if (cx > to_x + 1 && cx <= to_x + 1 + CK_GAS_HALO_WINDOW)
    return CK_GAS_HALO_WINDOW + (cx - to_x - 2);
  return -1;
}

/* A halo entry's key: its row by its halo column. An entry where none
 * may lie is flagged. */
static __device__ __forceinline__ unsigned
halo_key(float x, float y, const ck_gas_geometry *g, int from_x, int to_x,
         int halo_columns, unsigned *control) {
  int cx = ck_gas_cell(x, g->cell_inverse_x, g->cells_x);
  int cy = ck_gas_cell(y, g->cell_inverse_y, g->cells_y);
  int column = halo_column(cx, from_x, to_x);
  if (column < 0) {
    atomicOr(&control[CK_GAS_CONTROL_FLAGS], CK_GAS_OVERFLOW_INSIDE);
    column = 0;
  }
  return (unsigned)cy * (unsigned)halo_columns + (unsigned)column;
}

/* The nanoseconds of the GPU's global timer. */
static __device__ __forceinline__ ck_u64 nanoseconds(void) {
  ck_u64 now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/* By one thread: waits until *word holds `tag` or a later one (tags
 * grow by one a step, and wrap), written on this GPU or another, at most
 * CK_GAS_WAIT_SECONDS; 1 once it does. What its writer wrote before it
 * is then visible. A neighbour may publish its next step's tag before
 * this one reads: that step writes the other half of its outbox. */
static __device__ int wait_for_tag(const volatile unsigned *word,
                                   unsigned tag) {
  ck_u64 start = nanoseconds();
  while ((int)(*word - tag) < 0) {
    if (nanoseconds() - start > (ck_u64)CK_GAS_WAIT_SECONDS * 1000000000ull)
      return 0;
#if __CUDA_ARCH__ >= 700
    __nanosleep(200);
#endif
  }
  __threadfence_system();
  return 1;
}

/* The halo's words that the pull's blocks share: who pulls (the launch's
 * halo tag in the high 24 bits, the roles claimed in the low 8), and a
 * barrier's arrivals and generation. */
#define HALO_CLAIM CK_GAS_CONTROL_TICKET
#define HALO_ARRIVALS 8
#define HALO_GENERATION 9
#define PULL_WARPS (CK_GAS_BLOCK / CK_WARP_WIDTH)

/* The calling block's role in the pull, 0 to pullers - 1, or -1 where
 * every role is taken (all threads get it). A role goes to a block
 * that runs, so the pull's barriers always end. */
static __device__ int claim_role(unsigned *halo_words, unsigned halo_tag,
                                 unsigned pullers) {
  __shared__ int role;
  if (threadIdx.x == 0) {
    unsigned *word = &halo_words[HALO_CLAIM];
    unsigned tag = halo_tag & 0xffffffu;
    for (;;) {
      unsigned old = *(volatile unsigned *)word, next;
      if (old >> 8 != tag) {
        next = tag << 8 | 1u;
        role = 0;
      } else if ((old & 0xffu) < pullers) {
        next = old + 1u;
        role = (int)(old & 0xffu);
      } else {
        role = -1;
        break;
      }
      if (atomicCAS(word, old, next) == old)
        break;
    }
  }
  __syncthreads();
  return role;
}

/* A barrier of the pull's blocks (every one calls it as often). */
static __device__ void pull_barrier(unsigned *halo_words, unsigned pullers) {
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned *generation = &halo_words[HALO_GENERATION];
    unsigned mine = *generation;
    __threadfence();
    if (atomicAdd(&halo_words[HALO_ARRIVALS], 1u) == pullers - 1u) {
      atomicExch(&halo_words[HALO_ARRIVALS], 0u);
      __threadfence();
      atomicAdd(&halo_words[HALO_GENERATION], 1u);
    } else {
      while (*generation == mine) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(100);
#endif
      }
    }
    __threadfence();
  }
  __syncthreads();
}

/*
 * The pull into the halo and the halo's sort, by `pullers` blocks of the
 * slab kernel (role: this block's), once both neighbours' tags are
 * there (a neighbour late past CK_GAS_WAIT_SECONDS is flagged, and
 * nothing is pulled). Thread t of all of them takes entries t, t + T,
 * ... (T: their threads) of the four segments in turn
 * (ck_gas_pull_region: the previous member's leavers, the next's, then
 * their ghosts), from its sender's outbox for the step's parity: its key
 * and arrival rank. Then role 0 scans the halo's cell counts (a thread a
 * run of cells), every thread gathers its entries into their cells'
 * members, and places each by id, as ck_gas_native_scan, _members and
 * _place sort the halo through the host; a barrier between each. Role
 * 0 first keeps the control words but the slots (ck_gas_pull_sent) and
 * puts the entries taken in the halo's words. A migrant past [lo, hi)
 * is a stray.
 */
static __device__ __noinline__ void
pull_halo(const ck_gas_geometry *geometry, const ck_gas_slab_frame *frame,
          unsigned *halo_words, unsigned *control, int parity, int from_x,
          int to_x, unsigned tag, int role, unsigned pullers) {
  __shared__ unsigned first[5];
  __shared__ unsigned warp_total[PULL_WARPS], before_warp[PULL_WARPS];
  float2 *halo_position = (float2 *)frame->halo[CK_GAS_HALO_POSITION];
  float2 *halo_velocity = (float2 *)frame->halo[CK_GAS_HALO_VELOCITY];
  unsigned *halo_id = (unsigned *)frame->halo[CK_GAS_HALO_ID];
  unsigned *halo_key_of = (unsigned *)frame->halo[CK_GAS_HALO_KEY];
  unsigned *halo_rank = (unsigned *)frame->halo[CK_GAS_HALO_RANK];
  unsigned *halo_fill = (unsigned *)frame->halo[CK_GAS_HALO_FILL];
  unsigned *halo_members = (unsigned *)frame->halo[CK_GAS_HALO_MEMBERS];
  unsigned *halo_count = (unsigned *)frame->halo[CK_GAS_HALO_COUNT];
  unsigned *halo_start = (unsigned *)frame->halo[CK_GAS_HALO_START];
  const unsigned *previous_control = (const unsigned *)frame->control[0];
  const unsigned *next_control = (const unsigned *)frame->control[1];
  unsigned t = threadIdx.x, lane = t % CK_WARP_WIDTH, warp = t / CK_WARP_WIDTH;
  unsigned stride = pullers * CK_GAS_BLOCK;
  unsigned mine = (unsigned)role * CK_GAS_BLOCK + t;
  const ck_gas_geometry g = *geometry;
  if (t == 0) {
    int late = !wait_for_tag(previous_control + CK_GAS_CONTROL_READY, tag) ||
               !wait_for_tag(next_control + CK_GAS_CONTROL_READY, tag);
    unsigned firsts[5] = {0, 0, 0, 0, 0};
    unsigned flags = CK_GAS_OVERFLOW_LATE;
    if (!late)
      flags = ck_gas_pull_firsts(
          previous_control, frame->capacity[0], frame->leavers[0], next_control,
          frame->capacity[1], frame->leavers[1], parity, firsts);
    for (int s = 0; s < 5; ++s)
      first[s] = firsts[s];
    if (role == 0) {
      if (!late)
        ck_gas_pull_sent(control, parity, frame->message_capacity, firsts);
      halo_words[CK_GAS_CONTROL_APPENDED] = firsts[4];
    }
    if (flags)
      atomicOr(&control[CK_GAS_CONTROL_FLAGS], flags);
  }
  __syncthreads();
  unsigned total = first[4];
  for (unsigned h = mine; h < total; h += stride) {
    int s = 0;
    while (s < 3 && h >= first[s + 1])
      ++s;
    unsigned e = h - first[s];
    unsigned room = frame->capacity[s % 2];
    const unsigned *packed = (const unsigned *)frame->packed[s % 2] +
                             ck_gas_packed_half(parity, room);
    float x, y, vx, vy;
    unsigned word = ck_gas_pull_entry(packed, room, s, e, &x, &y, &vx, &vy);
    if (s < 2 && !(x >= frame->lo && x < frame->hi) &&
        atomicCAS(&control[CK_GAS_CONTROL_STRAY], CK_GAS_NO_STRAY, word) ==
            CK_GAS_NO_STRAY)
      control[CK_GAS_CONTROL_STRAY_X] = ck_float_as_bits(x);
    halo_position[h] = make_float2(x, y);
    halo_velocity[h] = make_float2(vx, vy);
    halo_id[h] = word;
    unsigned key =
        halo_key(x, y, &g, from_x, to_x, frame->halo_columns, control);
    halo_key_of[h] = key;
    halo_rank[h] = atomicAdd(&halo_fill[key], 1u);
  }
  pull_barrier(halo_words, pullers);
  if (role == 0) {
    /* The counts to starts: thread t's run of cells, then the block's. */
    unsigned keys = frame->keys;
    unsigned per = (keys + CK_GAS_BLOCK - 1) / CK_GAS_BLOCK;
    unsigned from = t * per, to = from + per < keys ? from + per : keys;
    unsigned sum = 0;
    for (unsigned k = from; k < to; ++k)
      sum += halo_fill[k];
    unsigned inclusive = warp_inclusive_sum(sum, lane);
    if (lane == CK_WARP_WIDTH - 1)
      warp_total[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      unsigned own = lane < PULL_WARPS ? warp_total[lane] : 0u;
      unsigned before = warp_inclusive_sum(own, lane) - own;
      if (lane < PULL_WARPS)
        before_warp[lane] = before;
    }
    __syncthreads();
    unsigned running = before_warp[warp] + inclusive - sum;
    for (unsigned k = from; k < to; ++k) {
      unsigned count = halo_fill[k];
      halo_count[k] = count;
      halo_start[k] = running;
      halo_fill[k] = 0u; /* for the next pull */
      running += count;
    }
  }
  pull_barrier(halo_words, pullers);
  for (unsigned h = mine; h < total; h += stride)
    halo_members[halo_start[halo_key_of[h]] + halo_rank[h]] = halo_id[h];
  pull_barrier(halo_words, pullers);
  float2 *sorted_position = (float2 *)frame->halo[CK_GAS_HALO_SORTED_POSITION];
  float2 *sorted_velocity = (float2 *)frame->halo[CK_GAS_HALO_SORTED_VELOCITY];
  unsigned *sorted_id = (unsigned *)frame->halo[CK_GAS_HALO_SORTED_ID];
  for (unsigned h = mine; h < total; h += stride) {
    unsigned key = halo_key_of[h], start = halo_start[key];
    unsigned end = start + halo_count[key], arrived = start + halo_rank[h];
    unsigned own = halo_id[h], rank = 0;
    for (unsigned m = start; m < end; ++m) {
      unsigned other = halo_members[m];
      rank += other < own || (other == own && m < arrived);
    }
    sorted_position[start + rank] = halo_position[h];
    sorted_velocity[start + rank] = halo_velocity[h];
    sorted_id[start + rank] = own;
  }
  pull_barrier(halo_words, pullers);
}

/* Through the host: thread k takes slot first + k, appended by the
 * host's admit, into halo entry k, with its key and arrival rank; thread
 * 0 puts the count in the halo's words. */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK)
    ck_gas_native_gather_halo(unsigned first, unsigned count,
                              CK_GAS_GEOMETRY_ARGUMENTS,
                              const float2 *__restrict__ position,
                              const float2 *__restrict__ velocity,
                              const unsigned *__restrict__ id,
                              float2 *halo_position, float2 *halo_velocity,
                              unsigned *halo_id, unsigned *halo_key_of,
                              unsigned *halo_rank, unsigned *halo_fill,
                              unsigned *halo_words, unsigned *control,
                              int from_x, int to_x, int halo_columns) {
  unsigned k = blockIdx.x * CK_GAS_BLOCK + threadIdx.x;
  if (k == 0)
    halo_words[CK_GAS_CONTROL_APPENDED] = count;
  unsigned live = __ballot_sync(CK_ALL_LANES, k < count);
  if (k >= count)
    return;
  float2 place = position[first + k];
  halo_position[k] = place;
  halo_velocity[k] = velocity[first + k];
  halo_id[k] = id[first + k];
  CK_GAS_GEOMETRY_BUILD(g);
  unsigned key =
      halo_key(place.x, place.y, &g, from_x, to_x, halo_columns, control);
  halo_key_of[k] = key;
  halo_rank[k] = arrival_rank(halo_fill, key, live);
}

/* The pairs one particle at `own` (cell cx, cy) has: the own tier's runs
 * of its 3 x 3 cells (three rows), then the halo's (a cell each, three a
 * row): run r's first slot and where its items start among all of them,
 * set by lanes 0 to 11 in a warp's shared table. */
#define BORDER_RUNS 12
struct border_runs {
  unsigned begin[BORDER_RUNS], offset[BORDER_RUNS + 1];
  float shift_y[BORDER_RUNS];
};

/* The force on the particle at `own` from both tiers, summed by the
 * lanes of a warp: lane l takes items l, l + 32, ... of the runs in
 * order, and the lanes' sums fold as ck_warp_sum does, so every lane
 * ends with the same sums. x is closed (a member's). */
template <int WITH_ENERGY>
static __device__ __forceinline__ void border_pairs(
    float2 own, const ck_gas_geometry *g, const ck_gas_pair_constants *pair,
    float rc, const float2 *__restrict__ position,
    const unsigned *__restrict__ cell_start,
    const unsigned *__restrict__ cell_count, const float2 *halo_position,
    const unsigned *halo_start, const unsigned *halo_count, int from_x,
    int to_x, int halo_columns, border_runs *runs, unsigned lane, float *fx,
    float *fy, float *e, float *w) {
  int cx = ck_gas_cell(own.x, g->cell_inverse_x, g->cells_x);
  int cy = ck_gas_cell(own.y, g->cell_inverse_y, g->cells_y);
  unsigned begin = 0, items = 0;
  float shift_y = 0.0f;
  if (lane < BORDER_RUNS) {
    int halo = lane >= 3, oy = (halo ? ((int)lane - 3) / 3 : (int)lane) - 1;
    int row;
    if (ck_gas_run_row(cy, oy, g, &row, &shift_y)) {
      unsigned base = (unsigned)row * (unsigned)g->cells_x;
      if (!halo) {
        int from = cx > 0 ? cx - 1 : 0;
        int to = cx < g->cells_x - 1 ? cx + 1 : g->cells_x - 1;
        begin = cell_start[base + (unsigned)from];
        items = cell_start[base + (unsigned)to] +
                cell_count[base + (unsigned)to] - begin;
      } else {
        int c = cx - 1 + ((int)lane - 3) % 3;
        int column =
            c >= 0 && c < g->cells_x ? halo_column(c, from_x, to_x) : -1;
        if (column >= 0) {
          unsigned key =
              (unsigned)row * (unsigned)halo_columns + (unsigned)column;
          begin = halo_start[key];
          items = halo_count[key];
        }
      }
    }
  }
  /* Where each run's items start: an exclusive scan over the lanes. */
  unsigned inclusive = items;
  for (unsigned distance = 1; distance < 16; distance <<= 1) {
    unsigned below = __shfl_up_sync(CK_ALL_LANES, inclusive, distance);
    if (lane >= distance)
      inclusive += below;
  }
  if (lane < BORDER_RUNS) {
    runs->begin[lane] = begin;
    runs->offset[lane] = inclusive - items;
    runs->shift_y[lane] = shift_y;
  }
  unsigned total = __shfl_sync(CK_ALL_LANES, inclusive, BORDER_RUNS - 1);
  if (lane == 0)
    runs->offset[BORDER_RUNS] = total;
  __syncwarp();
  float sx = 0.0f, sy = 0.0f, se = 0.0f, sw = 0.0f;
  int r = 0;
  for (unsigned t = lane; t < total; t += CK_WARP_WIDTH) {
    while (t >= runs->offset[r + 1])
      ++r;
    unsigned j = runs->begin[r] + (t - runs->offset[r]);
    float2 other = r < 3 ? position[j] : halo_position[j];
    float dx = own.x - other.x, dy = own.y - other.y;
#if CK_GAS_PERIODIC_Y
    dy -= runs->shift_y[r];
#endif
    ck_gas_add_pair(CK_GAS_MODEL_LENNARD_JONES, dx, dy, pair, rc, WITH_ENERGY,
                    &sx, &sy, &se, &sw);
  }
  *fx = ck_warp_sum(sx);
  *fy = ck_warp_sum(sy);
  if (WITH_ENERGY) {
    *e = ck_warp_sum(se);
    *w = ck_warp_sum(sw);
  }
  /* The table is the next particle's once every lane has read it. */
  __syncwarp();
}

/* Adds to a particle's sums at `own` the pairs of the halo's entries in
 * its 3 x 3 cells, in order: rows, columns, then entries (by id). */
template <int WITH_ENERGY>
static __device__ __forceinline__ void
halo_pairs(float2 own, const ck_gas_geometry *g,
           const ck_gas_pair_constants *pair, float rc,
           const float2 *halo_position, const unsigned *halo_start,
           const unsigned *halo_count, int from_x, int to_x, int halo_columns,
           float *fx, float *fy, float *e, float *w) {
  int cx = ck_gas_cell(own.x, g->cell_inverse_x, g->cells_x);
  int cy = ck_gas_cell(own.y, g->cell_inverse_y, g->cells_y);
#pragma unroll 1
  for (int oy = -1; oy <= 1; ++oy) {
    int row;
    float shift_y;
    if (!ck_gas_run_row(cy, oy, g, &row, &shift_y))
      continue;
#pragma unroll 1
    for (int c = cx - 1; c <= cx + 1; ++c) {
      int column = c >= 0 && c < g->cells_x ? halo_column(c, from_x, to_x) : -1;
      if (column < 0)
        continue;
      unsigned key = (unsigned)row * (unsigned)halo_columns + (unsigned)column;
      unsigned begin = halo_start[key], end = begin + halo_count[key];
      /* The halo is x closed: no shift along x. */
      entry_pairs<WITH_ENERGY, 0>(own, begin, end, halo_position, 0.0f,
                                  shift_y, pair, rc, fx, fy, e, w);
    }
  }
}

/* The store of a particle's force (and energies) at `slot`, and its
 * second half-kick and Langevin step with the word at `word`. */
template <int WITH_ENERGY>
static __device__ __forceinline__ void
border_store(unsigned slot, float2 speed, const unsigned *word, float fx,
             float fy, float e, float w, float2 *force, float *energy,
             float *virial, float2 *velocity, int kick, float dt, float damping,
             float noise, ck_u64 seed, ck_u64 step) {
  force[slot] = make_float2(fx, fy);
  if (WITH_ENERGY) {
    energy[slot] = e;
    virial[slot] = w;
  }
  if (kick) {
    float v[2] = {speed.x, speed.y};
    const float f[2] = {fx, fy};
    ck_gas_kick_particle(0, v, f, word, dt, damping, noise, seed, step);
    speed = make_float2(v[0], v[1]);
  }
  velocity[slot] = speed;
}

/* The slab kernel's arguments, and the call of slab() with them. */
#define SLAB_ARGUMENTS                                                         \
  unsigned pullers, unsigned own_blocks, unsigned side_blocks,                 \
      unsigned rest_blocks, int pull, unsigned tag, unsigned halo_tag,         \
      CK_GAS_GEOMETRY_ARGUMENTS, float rc, float rc2, float energy_shift,      \
      float force_shift, float2 *position, float2 *velocity, unsigned *id,     \
      float2 *force, float *energy, float *virial,                             \
      const unsigned *__restrict__ cell_start,                                 \
      const unsigned *__restrict__ cell_count, unsigned *halo_words,           \
      const ck_gas_slab_frame *__restrict__ frame, unsigned *control,          \
      int resident, unsigned slots, int parity, int from_x, int to_x,          \
      int kick, float dt, float damping, float noise, ck_u64 seed, ck_u64 step
#define SLAB_CALL                                                              \
  pullers, own_blocks, side_blocks, rest_blocks, pull, tag, halo_tag, box_x,   \
      box_y, cell_inverse_x, cell_inverse_y, cells_x, cells_y, rc, rc2,        \
      energy_shift, force_shift, position, velocity, id, force, energy,        \
      virial, cell_start, cell_count, halo_words, frame, control, resident,    \
      slots, parity, from_x, to_x, kick, dt, damping, noise, seed, step

/*
 * A slab's forces in one launch:
 *
 *   blocks 0 to pullers - 1   the pull (pull_halo) where `pull` (else
 *                        the halo is sorted already); the halo's words
 *                        then say halo_tag
 *   own_blocks, around the next two kinds (half before, half after)
 *                        a thread an own-tier slot: the interior's
 *                        forces and kicks (forces(), two tiers)
 *   side_blocks          warp k takes side k of the rows (row k / 2's
 *                        cells left of from_x for k even, right of to_x
 *                        for odd), a lane an own slot of them in turn:
 *                        its own tier's pairs, then the halo's, and kick
 *   rest_blocks          warp k takes halo entries 32 k to 32 k + 31 (and
 *                        on, by the warps of these blocks), a
 *                        lane each, to slots sorted + h (sorted: the own
 *                        tier's count); then, together, its arrivals'
 *                        forces from both tiers (border_pairs) and their
 *                        kicks. The first counts the slots after
 *                        (resident: in the control words).
 *
 * The border's and the rest's warps wait for the halo, which the pull
 * has sorted, as it is, by the time half the interior is done. The
 * pull's roles
 * go to the first blocks of those and of the pull's own to start
 * (claim_role): the pull's, where blocks start in order, as they do; the
 * launch ends in any order. pullers is at most the blocks but the
 * interior's.
 */
template <int WITH_ENERGY>
static __device__ __noinline__ void slab_rest(SLAB_ARGUMENTS);

template <int WITH_ENERGY>
static __device__ __forceinline__ void slab(SLAB_ARGUMENTS) {
  unsigned block = blockIdx.x - pullers, half = own_blocks / 2u;
  unsigned border = side_blocks + rest_blocks;
  if (blockIdx.x >= pullers && (block < half || block >= half + border))
    forces<WITH_ENERGY>(block < half ? block : block - border, 0u, box_x, box_y,
                        cell_inverse_x, cell_inverse_y, cells_x, cells_y, rc,
                        rc2, energy_shift, force_shift, position, cell_start,
                        cell_count, force, energy, virial, kick, dt, damping,
                        noise, seed, step, velocity, id, control, resident, 1,
                        from_x, to_x);
  else
    slab_rest<WITH_ENERGY>(SLAB_CALL);
}

/* The slab kernel's blocks but the interior's (apart, so that their
 * registers do not weigh on the interior's). */
template <int WITH_ENERGY>
static __device__ __noinline__ void slab_rest(SLAB_ARGUMENTS) {
  __shared__ border_runs tables[BORDER_WARPS];
  unsigned block = blockIdx.x;
  CK_GAS_GEOMETRY_BUILD(g);
  int role = claim_role(halo_words, halo_tag, pull ? pullers : 1u);
  if (role >= 0) {
    if (pull)
      pull_halo(&g, frame, halo_words, control, parity, from_x, to_x, tag, role,
                pullers);
    if (role == 0 && threadIdx.x == 0) {
      __threadfence();
      atomicExch(&halo_words[CK_GAS_CONTROL_READY], halo_tag);
    }
  }
  if (block < pullers)
    return;
  block -= pullers + own_blocks / 2u;
  unsigned lane = threadIdx.x % CK_WARP_WIDTH,
           warp = threadIdx.x / CK_WARP_WIDTH;
  if (lane == 0)
    wait_for_tag(&halo_words[CK_GAS_CONTROL_READY], halo_tag);
  __syncwarp();
  const float2 *halo_position =
      (const float2 *)frame->halo[CK_GAS_HALO_SORTED_POSITION];
  const float2 *halo_velocity =
      (const float2 *)frame->halo[CK_GAS_HALO_SORTED_VELOCITY];
  const unsigned *halo_id =
      (const unsigned *)frame->halo[CK_GAS_HALO_SORTED_ID];
  const unsigned *halo_start = (const unsigned *)frame->halo[CK_GAS_HALO_START];
  const unsigned *halo_count = (const unsigned *)frame->halo[CK_GAS_HALO_COUNT];
  int halo_columns = frame->halo_columns;
  border_runs *runs = &tables[warp];
  ck_gas_pair_constants pair = pair_constants(rc2, energy_shift, force_shift);
  unsigned cells = (unsigned)cells_x * (unsigned)cells_y;
  unsigned sorted = cell_start[cells];
  unsigned pulled = ((volatile unsigned *)halo_words)[CK_GAS_CONTROL_APPENDED];
  float fx, fy, e = 0.0f, w = 0.0f;
  if (block < side_blocks) {
    unsigned sides = 2u * (unsigned)cells_y;
    unsigned side = block * BORDER_WARPS + warp;
    if (side >= sides)
      return;
    unsigned row = side / 2u;
    int left = side % 2u == 0u;
    /* Where the interior is empty, the sides meet and do not overlap. */
    int first = left ? 0 : (to_x + 1 > from_x ? to_x + 1 : from_x);
    int last = left ? from_x - 1 : cells_x - 1;
    if (first < 0)
      first = 0;
    if (last > cells_x - 1)
      last = cells_x - 1;
    if (first > last)
      return;
    unsigned base = row * (unsigned)cells_x;
    unsigned begin = cell_start[base + (unsigned)first];
    unsigned end =
        cell_start[base + (unsigned)last] + cell_count[base + (unsigned)last];
    for (unsigned j = begin + lane; j < end; j += CK_WARP_WIDTH) {
      if (!ck_gas_own(id[j]))
        continue;
      float2 place = position[j];
      int cx = ck_gas_cell(place.x, cell_inverse_x, cells_x);
      int cy = ck_gas_cell(place.y, cell_inverse_y, cells_y);
      fx = fy = e = w = 0.0f;
      own_pairs<WITH_ENERGY>(place, cx, cy, &g, &pair, rc, position, cell_start,
                             cell_count, &fx, &fy, &e, &w);
      halo_pairs<WITH_ENERGY>(place, &g, &pair, rc, halo_position, halo_start,
                              halo_count, from_x, to_x, halo_columns, &fx, &fy,
                              &e, &w);
      border_store<WITH_ENERGY>(j, velocity[j], id + j, fx, fy, e, w, force,
                                energy, virial, velocity, kick, dt, damping,
                                noise, seed, step);
    }
    return;
  }
  block -= side_blocks;
  if (block == 0u && threadIdx.x == 0 && resident) {
    unsigned total = sorted + pulled;
    if (total > slots) {
      control[CK_GAS_CONTROL_FLAGS] |= CK_GAS_OVERFLOW_SLOTS;
      total = slots;
    }
    control[CK_GAS_CONTROL_SORTED] = total;
    control[CK_GAS_CONTROL_APPENDED] = total;
  }
  /* Warp k takes entries 32 k to 32 k + 31, a lane each, then their
   * arrivals one after another; then the same 32 W further on (W: the
   * warps of these blocks). */
  for (unsigned chunk = (block * BORDER_WARPS + warp) * CK_WARP_WIDTH;
       chunk < pulled; chunk += rest_blocks * CK_GAS_BLOCK) {
    unsigned h = chunk + lane, word = 0;
    int valid = h < pulled && sorted + h < slots;
    float2 place = make_float2(0.0f, 0.0f), speed = place;
    if (valid) {
      word = halo_id[h];
      place = halo_position[h];
      speed = halo_velocity[h];
      position[sorted + h] = place;
      id[sorted + h] = word;
      if (!ck_gas_own(word))
        velocity[sorted + h] = speed;
    }
    unsigned arrivals = __ballot_sync(CK_ALL_LANES, valid && ck_gas_own(word));
    while (arrivals) {
      unsigned b = (unsigned)__ffs((int)arrivals) - 1u;
      arrivals &= arrivals - 1u;
      float2 at = make_float2(__shfl_sync(CK_ALL_LANES, place.x, (int)b),
                              __shfl_sync(CK_ALL_LANES, place.y, (int)b));
      border_pairs<WITH_ENERGY>(at, &g, &pair, rc, position, cell_start,
                                cell_count, halo_position, halo_start,
                                halo_count, from_x, to_x, halo_columns, runs,
                                lane, &fx, &fy, &e, &w);
      if (lane == b)
        border_store<WITH_ENERGY>(sorted + h, speed, halo_id + h, fx, fy, e, w,
                                  force, energy, virial, velocity, kick, dt,
                                  damping, noise, seed, step);
    }
  }
}

/* As many blocks a multiprocessor as the plain forces kernel's (its
 * registers), so that the interior runs as fast; the pull and the border
 * may spill. */
#define SLAB_BLOCKS (2048 / CK_GAS_BLOCK)

extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK, SLAB_BLOCKS)
    ck_gas_native_slab(SLAB_ARGUMENTS) {
  slab<0>(SLAB_CALL);
}

/* The same, and each slot's halves of its pairs' energy and virial. */
extern "C" __global__ void __launch_bounds__(CK_GAS_BLOCK, SLAB_BLOCKS)
    ck_gas_native_slab_energy(SLAB_ARGUMENTS) {
  slab<1>(SLAB_CALL);
}
#endif
