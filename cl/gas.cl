/*
 * gas.cl - 2D Lennard-Jones molecular dynamics kernels. Their ref twins
 * are the steps of src/gas/gas_ref.c, which call the same ck_gas.h
 * functions (the parallel counting sort here has the serial sort of
 * ck_gas.h as its twin, and both end in the same order; the strip kernel
 * of CPUs sums the same pairs as ck_gas_force_from_cells, in lanes).
 *
 * Build-time defines (chosen per device by src/gas/gas_opencl.c):
 *   CK_GAS_GROUP         work-group size of the per-particle kernels and
 *                        of the all-pairs tiles (a power of two)
 *   CK_GAS_SCAN_GROUP    work-group size of the scans (a power of two);
 *                        a scan block is 4 x CK_GAS_SCAN_GROUP cells
 *   CK_GAS_MODEL         CK_GAS_MODEL_LENNARD_JONES or _SOFT_LOG
 *   CK_GAS_FORCE_SHIFT   1 for the force-shifted potential, else 0 (the
 *                        pair loops then carry no test for it)
 *   CK_GAS_PERIODIC_X    1 for a periodic x axis, 0 for reflecting walls
 *   CK_GAS_PERIODIC_Y    the same along y
 *   CK_GAS_WALLS_X       where x is not periodic, its walls: 3 both, 1 at
 *                        0, 2 at the side, 0 none (a spread member's box)
 *   CK_GAS_WALLS_Y       the same along y
 *   CK_GAS_TILES         1: all pairs staged through local memory (GPUs);
 *                        0: read straight from memory (CPUs)
 *   CK_GAS_LANES         slots a strip kernel reads at a time: 16 floats or
 *                        8 doubles on CPUs (a 512-bit vector), 0 elsewhere
 *                        (the strip kernel is then left out)
 *   CK_GAS_MEMBER        1 in a spread member's program (ck_gas.h's spread
 *                        members: ghosts are neither moved, kicked nor
 *                        summed, dropped slots sort last), else 0
 *   CK_REAL_DOUBLE       0 or 1
 * The model and the boundaries are fixed per program so that the pair
 * loops carry no branches on them.
 *
 * Every kernel that takes `only_if_flagged` does nothing unless it is 0
 * or flags[0] has one of its bits set (a Verlet rebuild is due): the
 * device decides when to rebuild, without a host round trip. A step's
 * rebuild reads one bit, while the forces that take the next step's
 * first half set the other (ck_gas_forces_list).
 */
/* GPUs may fuse multiplies and adds (see ck_prelude.h): the pair loops
 * then take about a third fewer instructions. GPU results already differ
 * from ref by the hardware reciprocal; the tests compare them within
 * tolerances. */
#define CK_FUSE_ON_GPU 1
#define CK_GAS_COUNT(counts, bin) atomic_inc(&(counts)[bin])
#include "ck_gas.h"

#if !defined(CK_GAS_GROUP) || !defined(CK_GAS_SCAN_GROUP) ||                   \
    !defined(CK_GAS_MODEL) || !defined(CK_GAS_PERIODIC_X) ||                   \
    !defined(CK_GAS_PERIODIC_Y) || !defined(CK_GAS_WALLS_X) ||                 \
    !defined(CK_GAS_WALLS_Y) || !defined(CK_GAS_TILES) ||                      \
    !defined(CK_GAS_LANES) || !defined(CK_GAS_FORCE_SHIFT) ||                  \
    !defined(CK_GAS_MEMBER)
#error "gas.cl needs its CK_GAS_ defines"
#endif
#define CK_GAS_SCAN_BLOCK (4 * CK_GAS_SCAN_GROUP)

#define CK_GAS_PAIR_ARGUMENTS                                                  \
  ck_real rc, ck_real rc2, ck_real energy_shift, ck_real force_shift,          \
      ck_real strength, ck_real softening2, int with_energy
#define CK_GAS_PAIR_BUILD(p)                                                   \
  ck_gas_pair_constants p;                                                     \
  p.rc2 = rc2;                                                                 \
  p.energy_shift = energy_shift;                                               \
  p.force_shift = CK_GAS_FORCE_SHIFT ? force_shift : CK_R(0);                  \
  p.strength = strength;                                                       \
  p.softening2 = softening2;                                                   \
  p.soft_log_weight = -strength / CK_R(12)

/* The second half-kick (and Langevin's step) of ck_gas_kick, which a
 * forces kernel does for its particle once its force is stored, when the
 * host passes kick 1: one launch a step fewer. */
#define CK_GAS_KICK_ARGUMENTS                                                  \
  int kick, ck_real dt, ck_real damping, ck_real noise, ulong seed,            \
      ulong step, __global ck_real *velocity, __global const uint *id
#define CK_GAS_KICK_AFTER_FORCE(i)                                             \
  if (kick && CK_GAS_MOVES(i))                                                 \
  ck_gas_kick_particle(i, velocity, force, id, dt, damping, noise, seed, step)

/* Whether slot k's particle is moved and kicked here: always, but for a
 * spread member's ghosts (their owner moves them). */
#define CK_GAS_MOVES(k) (!CK_GAS_MEMBER || ck_gas_own(id[k]))

/* A spread member's Verlet forces may come in two parts (ck_gas.h's
 * CK_GAS_PART_): part 1 the slots that part_mark says are interior, part
 * 2 those at a border; part 0 every slot. Other programs take part 0.
 * Part 1's work-item k takes slot k; part 2's takes the k-th border slot
 * of border_slots (flags[3] of them, listed at the rebuild), so that the
 * few border slots fill whole groups: slot n where there is none. */
#define CK_GAS_PART_ARGUMENTS                                                  \
  int part, __global const uint *part_mark, __global const uint *border_slots
#define CK_GAS_IN_PART(k)                                                      \
  (!CK_GAS_MEMBER || part == 0 || part_mark[k] + 1u == (uint)part)
#define CK_GAS_PART_SLOT(k, n, flags)                                          \
  (CK_GAS_MEMBER && part == 2 ? ((k) < (flags)[3] ? border_slots[k] : (n))     \
                              : (k))

#define CK_GAS_FLAGGED(only_if_flagged, flags)                                 \
  (!(only_if_flagged) || ((flags)[0] & (uint)(only_if_flagged)) != 0u)
#define CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags)                     \
  if (!CK_GAS_FLAGGED(only_if_flagged, flags))                                 \
  return

/* Work-item k takes k, k + the global size, ... below n: the sort's and
 * the lists' kernels, which a Verlet run launches at every step and which
 * skip themselves on most, are launched over fewer work-items than items
 * there (gas_opencl.c), so that a skipped launch costs little. */
#define CK_GAS_EACH(k, n)                                                      \
  for (uint k = (uint)get_global_id(0); k < (n); k += (uint)get_global_size(0))

/* An inclusive Hillis-Steele scan of the group's sums[] in local memory
 * (CK_GAS_SCAN_GROUP entries, one a work-item l); every work-item of the
 * group must reach it. */
#define CK_GAS_GROUP_SCAN(sums, l)                                             \
  for (uint stride = 1; stride < CK_GAS_SCAN_GROUP; stride *= 2) {             \
    uint add = (l) >= stride ? (sums)[(l)-stride] : 0u;                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    (sums)[l] += add;                                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
  }

/* A tree sum of the group's five sums[q][] (CK_GAS_GROUP entries each)
 * into sums[q][0]; every work-item of the group must reach it. */
#define CK_GAS_GROUP_SUM5(sums, l)                                             \
  for (uint stride = CK_GAS_GROUP / 2; stride > 0; stride /= 2) {              \
    if ((l) < stride)                                                          \
      for (int q = 0; q < 5; ++q)                                              \
        (sums)[q][l] += (sums)[q][(l) + stride];                               \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
  }

/* Work-item k: the first half-step of the particle in slot k; with a
 * rebuild bit (Verlet lists), sets it in flags[0] when the particle moved
 * far enough from its reference. */
__kernel void ck_gas_kick_drift(uint n, ck_real dt, CK_GAS_GEOMETRY_ARGUMENTS,
                                __global ck_real *position,
                                __global ck_real *velocity,
                                __global const ck_real *force,
                                __global const uint *id, uint rebuild_bit,
                                __global const ck_real *reference,
                                ck_real half_skin2, __global uint *flags) {
  uint k = (uint)get_global_id(0);
  if (k >= n || !CK_GAS_MOVES(k))
    return;
  CK_GAS_GEOMETRY_BUILD(g);
  if (ck_gas_kick_drift_particle(k, position, position, velocity, force, dt, &g,
                                 rebuild_bit ? reference : 0, half_skin2))
    atomic_or(&flags[0], rebuild_bit);
}

/* Each slot k (CK_GAS_EACH): the cell of slot k (a member's dropped slot: the
 * key past the last cell), and its rank among the cell's particles in arrival
 * order (an atomic count; fill starts at 0). */
__kernel void ck_gas_count(uint n, CK_GAS_GEOMETRY_ARGUMENTS,
                           __global const ck_real *position,
                           __global const uint *id, __global uint *cell_key,
                           __global uint *cell_rank, __global uint *fill,
                           int only_if_flagged, __global const uint *flags) {
  CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags);
  CK_GAS_GEOMETRY_BUILD(g);
  CK_GAS_EACH(k, n) {
    uint key =
        CK_GAS_MEMBER
            ? ck_gas_member_key(position[2 * k], position[2 * k + 1], id[k], &g)
            : (uint)ck_gas_cell_of(position[2 * k], position[2 * k + 1], &g);
    cell_key[k] = key;
    cell_rank[k] = atomic_inc(&fill[key]);
  }
}

/* A work-group scans one block of CK_GAS_SCAN_BLOCK cells, 4 a work-item:
 * each cell's count, its exclusive prefix within the block, and the
 * block's total. */
__kernel __attribute__((reqd_work_group_size(CK_GAS_SCAN_GROUP, 1, 1))) void
ck_gas_scan_blocks(uint cells, __global const uint *fill,
                   __global uint *cell_count, __global uint *cell_start,
                   __global uint *block_sum, int only_if_flagged,
                   __global const uint *flags) {
  /* No early return before the barriers (some compilers cannot split a
   * work-group loop there): an idle scan just stores nothing. */
  int active = CK_GAS_FLAGGED(only_if_flagged, flags);
  CK_LOCAL uint sums[CK_GAS_SCAN_GROUP];
  uint l = (uint)get_local_id(0);
  uint base = (uint)get_group_id(0) * CK_GAS_SCAN_BLOCK + 4 * l;
  uint counts[4], total = 0;
  for (uint q = 0; q < 4; ++q) {
    counts[q] = active && base + q < cells ? fill[base + q] : 0u;
    total += counts[q];
  }
  sums[l] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Hillis-Steele inclusive scan of the work-items' totals. */
  CK_GAS_GROUP_SCAN(sums, l);
  uint running = sums[l] - total;
  for (uint q = 0; q < 4; ++q)
    if (active && base + q < cells) {
      cell_count[base + q] = counts[q];
      cell_start[base + q] = running;
      running += counts[q];
    }
  if (active && l == CK_GAS_SCAN_GROUP - 1)
    block_sum[get_group_id(0)] = sums[l];
}

/* One work-group: the blocks' totals become their exclusive prefixes.
 * Work-item l adds up its own run of consecutive blocks, the group scans
 * those sums in local memory, and each work-item writes its run's
 * prefixes; the barriers sit in loops of fixed length only (some
 * compilers cannot split a work-group loop inside a loop of run-time
 * length). An idle scan stores nothing. */
__kernel __attribute__((reqd_work_group_size(CK_GAS_SCAN_GROUP, 1, 1))) void
ck_gas_scan_totals(uint blocks, __global uint *block_sum, int only_if_flagged,
                   __global const uint *flags) {
  int active = CK_GAS_FLAGGED(only_if_flagged, flags);
  CK_LOCAL uint sums[CK_GAS_SCAN_GROUP];
  uint l = (uint)get_local_id(0);
  uint run = (blocks + CK_GAS_SCAN_GROUP - 1) / CK_GAS_SCAN_GROUP;
  uint begin = l * run, end = begin + run < blocks ? begin + run : blocks;
  uint total = 0;
  for (uint b = begin; active && b < end; ++b)
    total += block_sum[b];
  sums[l] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  CK_GAS_GROUP_SCAN(sums, l);
  uint running = sums[l] - total;
  for (uint b = begin; active && b < end; ++b) {
    uint value = block_sum[b];
    block_sum[b] = running;
    running += value;
  }
}

/* Each slot k (CK_GAS_EACH): slot k's particle to its place in the sorted
 * arrays. */
__kernel void
ck_gas_scatter(uint n, __global const uint *cell_key,
               __global const uint *cell_rank, __global const uint *cell_start,
               __global const uint *block_sum, __global const ck_real *position,
               __global const ck_real *velocity, __global const uint *id,
               __global ck_real *sorted_position,
               __global ck_real *sorted_velocity, __global uint *sorted_id,
               int only_if_flagged, __global const uint *flags) {
  CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags);
  CK_GAS_EACH(k, n) {
    uint key = cell_key[k];
    uint slot =
        block_sum[key / CK_GAS_SCAN_BLOCK] + cell_start[key] + cell_rank[k];
    sorted_position[2 * slot] = position[2 * k];
    sorted_position[2 * slot + 1] = position[2 * k + 1];
    sorted_velocity[2 * slot] = velocity[2 * k];
    sorted_velocity[2 * slot + 1] = velocity[2 * k + 1];
    sorted_id[slot] = id[k];
  }
}

/* Each cell c (CK_GAS_EACH): cell c's final start, its slots ordered by id, and
 * its counter cleared for the next sort; keys past `ordered` (a member's
 * dropped slots) are not ordered. */
__kernel void ck_gas_order(uint cells, uint ordered, __global uint *cell_start,
                           __global const uint *cell_count,
                           __global const uint *block_sum, __global uint *fill,
                           __global ck_real *sorted_position,
                           __global ck_real *sorted_velocity,
                           __global uint *sorted_id, int only_if_flagged,
                           __global const uint *flags) {
  CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags);
  CK_GAS_EACH(c, cells) {
    uint start = cell_start[c] + block_sum[c / CK_GAS_SCAN_BLOCK];
    cell_start[c] = start;
    fill[c] = 0u;
    if (c < ordered)
      ck_gas_order_cell(start, start + cell_count[c], sorted_position,
                        sorted_velocity, sorted_id);
  }
}

/*
 * Each sorted slot s (CK_GAS_EACH; Verlet rebuilds): its particle back
 * into the particle arrays, with its reference position for the next
 * displacement test. The scatter left each cell's slots in arrival order
 * and the order kernel (ordered 0) their final starts; slot s goes to its
 * cell's start plus its rank by id among the cell's slots, ties (a
 * member's ghosts may have them) by arrival. That is where
 * ck_gas_order_cell's stable insertion sort puts it, in one parallel pass
 * in place of a serial one a cell. A member's dropped slots keep their
 * arrival order.
 */
__kernel void ck_gas_place_by_id(
    uint n, uint cells, CK_GAS_GEOMETRY_ARGUMENTS,
    __global const uint *cell_start, __global const uint *cell_count,
    __global const ck_real *sorted_position,
    __global const ck_real *sorted_velocity, __global const uint *sorted_id,
    __global ck_real *position, __global ck_real *velocity, __global uint *id,
    __global ck_real *reference, int only_if_flagged,
    __global const uint *flags) {
  CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags);
  CK_GAS_GEOMETRY_BUILD(g);
  CK_GAS_EACH(s, n) {
    ck_real x = sorted_position[2 * s], y = sorted_position[2 * s + 1];
    uint word = sorted_id[s];
    uint key = CK_GAS_MEMBER ? ck_gas_member_key(x, y, word, &g)
                             : (uint)ck_gas_cell_of(x, y, &g);
    uint slot = s;
    if (key < cells) {
      uint start = cell_start[key], end = start + cell_count[key], rank = 0;
      for (uint j = start; j < end; ++j) {
        uint other = sorted_id[j];
        rank += other < word || (other == word && j < s);
      }
      slot = start + rank;
    }
    position[2 * slot] = reference[2 * slot] = x;
    position[2 * slot + 1] = reference[2 * slot + 1] = y;
    velocity[2 * slot] = sorted_velocity[2 * s];
    velocity[2 * slot + 1] = sorted_velocity[2 * s + 1];
    id[slot] = word;
  }
}

/* One work-item, when flagged: a Verlet rebuild's whole sort by cell,
 * serially (ck_gas_sort_serially), with its reference positions; with
 * clear 1 it then clears the flag (no later kernel of the rebuild reads
 * it). For small systems on CPUs one launch a step that sorts serially
 * costs less than the five of the parallel sort, which nearly every step
 * makes in vain. */
__kernel void
ck_gas_sort_whole(uint n, uint cells, CK_GAS_GEOMETRY_ARGUMENTS,
                  __global ck_real *position, __global ck_real *velocity,
                  __global uint *id, __global ck_real *sorted_position,
                  __global ck_real *sorted_velocity, __global uint *sorted_id,
                  __global uint *cell_key, __global uint *cell_start,
                  __global uint *cell_count, __global uint *fill,
                  __global ck_real *reference, int only_if_flagged, int clear,
                  __global uint *flags) {
  CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags);
  if (get_global_id(0) != 0)
    return;
  CK_GAS_GEOMETRY_BUILD(g);
  ck_gas_sort_serially(n, cells, CK_GAS_MEMBER, &g, position, velocity, id,
                       sorted_position, sorted_velocity, sorted_id, cell_key,
                       cell_start, cell_count, fill, reference);
  if (clear)
    flags[0] = 0u;
}

#if CK_GAS_LIST_CHUNK > 1
/* Stages slot j in slot i's list where it is within range: its first
 * CK_GAS_LIST_STAGE entries in the work-item's column of stage (every
 * CK_GAS_GROUP words), the rest straight into the list. */
#define CK_GAS_LIST_TAKE(j)                                                    \
  if ((j) != i && ck_gas_within(xi, yi, position, (j), g, range2)) {           \
    if (found < CK_GAS_LIST_STAGE)                                             \
      stage[found * CK_GAS_GROUP] = (j);                                       \
    else if (found < capacity)                                                 \
      list[ck_gas_list_at(i, found, capacity, CK_GAS_LIST_CHUNK)] = (j);       \
    ++found;                                                                   \
  }

/* Slot i's Verlet list as ck_gas_list_of makes it, in the same order,
 * staged (CK_GAS_LIST_TAKE) and then written out entry by entry. A warp's
 * lanes are a chunk's slots (ck_gas_list_at), so each entry they write
 * out together fills one line, where entries written as each lane finds
 * them would each take a line of their own. Where the grid allows (runs
 * 1: periodic axes of at least 3 cells), the three cells of a row are one
 * run of slots (two at a periodic edge), as ck_gas_run_row and
 * ck_gas_run_columns give them, in place of nine lookups. */
uint ck_gas_list_staged(uint i, __global const ck_real *position,
                        __global const uint *cell_start,
                        __global const uint *cell_count,
                        const ck_gas_geometry *g, ck_real range2,
                        __global uint *list, uint capacity, int runs,
                        __local uint *stage) {
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  uint found = 0;
  if (runs) {
    int cx = ck_gas_cell(xi, g->cell_inverse_x, g->cells_x);
    int cy = ck_gas_cell(yi, g->cell_inverse_y, g->cells_y);
    for (int oy = -1; oy <= 1; ++oy) {
      int row, from, to;
      ck_real shift;
      if (!ck_gas_run_row(cy, oy, g, &row, &shift))
        continue;
      uint base = (uint)row * (uint)g->cells_x;
      for (int run = 0; run < 3; ++run) {
        if (!ck_gas_run_columns(cx, run, g, &from, &to, &shift))
          continue;
        uint end = cell_start[base + (uint)to] + cell_count[base + (uint)to];
        for (uint j = cell_start[base + (uint)from]; j < end; ++j) {
          CK_GAS_LIST_TAKE(j)
        }
      }
    }
  } else {
    // clang-format off
    CK_GAS_NEARBY_SLOTS_BEGIN(xi, yi, cell_start, cell_count, g, j)
      CK_GAS_LIST_TAKE(j)
    CK_GAS_NEARBY_SLOTS_END
    // clang-format on
  }
  uint staged = min(found, min(capacity, CK_GAS_LIST_STAGE));
  for (uint m = 0; m < staged; ++m)
    list[ck_gas_list_at(i, m, capacity, CK_GAS_LIST_CHUNK)] =
        stage[m * CK_GAS_GROUP];
  return found;
}
#endif

/* Each slot i (CK_GAS_EACH; Verlet rebuilds): slot i's neighbour list; an
 * overflow sets flags[1]. */
__kernel void ck_gas_build_list(uint n, CK_GAS_GEOMETRY_ARGUMENTS,
                                ck_real range2,
                                __global const ck_real *position,
                                __global const uint *cell_start,
                                __global const uint *cell_count,
                                __global uint *list, __global uint *list_count,
                                uint capacity, int only_if_flagged,
                                __global uint *flags) {
  CK_GAS_SKIP_UNLESS_FLAGGED(only_if_flagged, flags);
  CK_GAS_GEOMETRY_BUILD(g);
#if CK_GAS_LIST_CHUNK > 1
  CK_LOCAL uint stage[CK_GAS_LIST_STAGE * CK_GAS_GROUP];
  int runs =
      (!g.periodic_x || g.cells_x >= 3) && (!g.periodic_y || g.cells_y >= 3);
#endif
  CK_GAS_EACH(i, n) {
#if CK_GAS_LIST_CHUNK > 1
    uint found =
        ck_gas_list_staged(i, position, cell_start, cell_count, &g, range2,
                           list, capacity, runs, stage + get_local_id(0));
#else
    uint found = ck_gas_list_of(i, position, cell_start, cell_count, &g, range2,
                                list, capacity);
#endif
    list_count[i] = found;
    if (found > capacity)
      atomic_or(&flags[1], 1u);
  }
}

#if CK_REAL_DOUBLE
typedef double2 ck_gas_real2;
typedef double4 ck_gas_real4;
#else
typedef float2 ck_gas_real2;
typedef float4 ck_gas_real4;
#endif

/* Work-item i: the force on slot i from the neighbouring cells, then
 * (kick 1) its second half-kick. */
__kernel void ck_gas_forces_cells(
    uint n, CK_GAS_GEOMETRY_ARGUMENTS, CK_GAS_PAIR_ARGUMENTS,
    __global const ck_real *position, __global const uint *cell_start,
    __global const uint *cell_count, __global ck_real *force,
    __global ck_real *energy, __global ck_real *virial, CK_GAS_KICK_ARGUMENTS) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  CK_GAS_GEOMETRY_BUILD(g);
  CK_GAS_PAIR_BUILD(p);
  ck_gas_force_from_cells(i, position, cell_start, cell_count, &g, CK_GAS_MODEL,
                          &p, rc, with_energy, force, energy, virial);
  CK_GAS_KICK_AFTER_FORCE(i);
}

/* Work-item i: the force on slot i from its Verlet list, then (kick 1)
 * its second half-kick. This step's rebuild bit was read by the rebuild
 * kernels before this one and is cleared here, by work-item 0. With
 * ahead_bit (the other bit; the kick done, nothing to read or change the
 * state before the next step), it also takes the next step's first
 * half-step, as ck_gas_kick_drift would, into next_position while others
 * still read these positions, and sets ahead_bit where that step must
 * rebuild: one launch a step fewer. */
__kernel void
ck_gas_forces_list(uint n, CK_GAS_GEOMETRY_ARGUMENTS, CK_GAS_PAIR_ARGUMENTS,
                   __global const ck_real *position, __global const uint *list,
                   __global const uint *list_count, uint capacity,
                   __global ck_real *force, __global ck_real *energy,
                   __global ck_real *virial, __global uint *flags,
                   CK_GAS_KICK_ARGUMENTS, uint rebuild_bit, uint ahead_bit,
                   ck_real half_skin2, __global const ck_real *reference,
                   __global ck_real *next_position, CK_GAS_PART_ARGUMENTS) {
  uint k = (uint)get_global_id(0), i = CK_GAS_PART_SLOT(k, n, flags);
  if (k == 0)
    atomic_and(&flags[0], ~rebuild_bit);
  if (i >= n || !CK_GAS_IN_PART(i))
    return;
  CK_GAS_GEOMETRY_BUILD(g);
  CK_GAS_PAIR_BUILD(p);
  ck_gas_force_from_list(i, position, list, list_count, capacity, &g,
                         CK_GAS_MODEL, &p, rc, with_energy, force, energy,
                         virial);
  CK_GAS_KICK_AFTER_FORCE(i);
  if (ahead_bit && CK_GAS_MOVES(i) &&
      ck_gas_kick_drift_particle(i, position, next_position, velocity, force,
                                 dt, &g, reference, half_skin2))
    atomic_or(&flags[0], ahead_bit);
}

#if CK_GAS_LANES > 1
#define CK_GAS_GLUE_(a, b) a##b
#define CK_GAS_GLUE(a, b) CK_GAS_GLUE_(a, b)
/* A vector of CK_GAS_LANES reals, and the integers its comparisons give
 * (long lanes for double). */
#if CK_REAL_DOUBLE
typedef CK_GAS_GLUE(double, CK_GAS_LANES) ck_gas_lanes;
typedef CK_GAS_GLUE(long, CK_GAS_LANES) ck_gas_lane_index;
typedef double8 ck_gas_real8;
#else
typedef CK_GAS_GLUE(float, CK_GAS_LANES) ck_gas_lanes;
typedef CK_GAS_GLUE(int, CK_GAS_LANES) ck_gas_lane_index;
typedef float8 ck_gas_real8;
#endif
#if CK_GAS_LANES == 16
#define CK_GAS_LANE_NUMBERS                                                    \
  (ck_gas_lane_index)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#elif CK_GAS_LANES == 8
#define CK_GAS_LANE_NUMBERS (ck_gas_lane_index)(0, 1, 2, 3, 4, 5, 6, 7)
#elif CK_GAS_LANES == 4
#define CK_GAS_LANE_NUMBERS (ck_gas_lane_index)(0, 1, 2, 3)
#else
#error "CK_GAS_LANES must be 0, 4, 8 or 16"
#endif

/* 1/x for a vector: exact, as ck_gas_pair's on CPUs (strips are a CPU
 * form; a GPU runs them only when asked to, for a test). */
#define CK_GAS_LANES_RECIPROCAL(x) (CK_R(1) / (x))

/* The sum of a vector's lanes, halves added pairwise (a fixed order). */
CK_FN ck_real ck_gas_lanes_total(ck_gas_lanes v) {
#if CK_GAS_LANES == 16
  ck_gas_real8 a8 = v.lo + v.hi;
  ck_gas_real4 a4 = a8.lo + a8.hi;
#elif CK_GAS_LANES == 8
  ck_gas_real4 a4 = v.lo + v.hi;
#else
  ck_gas_real4 a4 = v;
#endif
  ck_gas_real2 a2 = a4.lo + a4.hi;
  return a2.x + a2.y;
}

#define CK_GAS_LOAD_LANES CK_GAS_GLUE(vload, CK_GAS_LANES)

/* The pairs of (xi, yi) with slots [begin, end), CK_GAS_LANES at a time:
 * two vector loads of interleaved positions, split into x and y (the
 * even and odd reals); lanes past the run, outside the cutoff or at
 * distance 0 (the particle itself) add nothing. Each lane's pair terms
 * are ck_gas_add_pair's. ENERGY and IMAGE (1: take the minimum image) are
 * literals, so that each use compiles to its own loop. */
#define CK_GAS_STRIP(ENERGY, IMAGE)                                            \
  for (uint m = begin; m < end; m += CK_GAS_LANES) {                           \
    ck_gas_lanes low = CK_GAS_LOAD_LANES(0, position + 2 * m);                 \
    ck_gas_lanes high = CK_GAS_LOAD_LANES(1, position + 2 * m);                \
    ck_gas_lanes dx = xi - (ck_gas_lanes)(low.even, high.even);                \
    ck_gas_lanes dy = yi - (ck_gas_lanes)(low.odd, high.odd);                  \
    if (IMAGE && CK_GAS_PERIODIC_X)                                            \
      dx = CK_GAS_MINIMUM_IMAGE(dx, g.box_x, half_x);                          \
    if (IMAGE && CK_GAS_PERIODIC_Y)                                            \
      dy = CK_GAS_MINIMUM_IMAGE(dy, g.box_y, half_y);                          \
    ck_gas_lanes r2 = dx * dx + dy * dy;                                       \
    ck_gas_lane_index inside =                                                 \
        (lanes + (ck_gas_lane_index)m < (ck_gas_lane_index)end) &              \
        (r2 < p.rc2) & (r2 > CK_R(0));                                         \
    ck_gas_lanes force_over_r, pair_energy;                                    \
    CK_GAS_LENNARD_JONES(ck_gas_lanes, CK_GAS_LANES_RECIPROCAL, r2, &p, rc,    \
                         ENERGY, force_over_r, pair_energy)                    \
    force_over_r = select((ck_gas_lanes)CK_R(0), force_over_r, inside);        \
    fx += force_over_r * dx;                                                   \
    fy += force_over_r * dy;                                                   \
    if (ENERGY) {                                                              \
      e += select((ck_gas_lanes)CK_R(0), CK_R(0.5) * pair_energy, inside);     \
      w += CK_R(0.5) * force_over_r * r2;                                      \
    }                                                                          \
  }

/*
 * Work-item i (CPUs): the force on slot i (Lennard-Jones) from the runs of
 * slots of the 3 x 3 cells around the cell of anchor's slot i
 * (ck_gas_run_row, ck_gas_run_columns), read CK_GAS_LANES slots at a time
 * with vector loads (no gathers), the lanes' sums added at the end; then
 * (kick 1) its second half-kick. The anchor is the positions the cells
 * were sorted by: the current ones in cells mode, or those of the last
 * Verlet rebuild, whose cells are rc + skin wide, so that every pair
 * within rc is still in them (the separation is the minimum image of the
 * current positions). The ref twin is ck_gas_force_from_cells over the
 * same cells: the same slots in the same order, the same pair terms, only
 * the sums in another order. With clear 1, work-item 0 clears the Verlet
 * rebuild flag, as ck_gas_forces_list (else ck_gas_sort_whole does).
 * With ahead 1 (Verlet mode, the kick done, nothing to read or change
 * the state before the next step), it also takes the next step's first
 * half-step and flags that step's rebuild, as ck_gas_kick_drift would:
 * one launch a step fewer. Positions are read up to CK_GAS_LANES slots
 * past the last (the host pads the arrays); periodic grids have at least
 * 3 cells each way.
 */
__kernel void ck_gas_forces_strips(
    uint n, CK_GAS_GEOMETRY_ARGUMENTS, CK_GAS_PAIR_ARGUMENTS,
    __global const ck_real *position, __global const ck_real *anchor,
    __global const uint *cell_start, __global const uint *cell_count,
    __global ck_real *force, __global ck_real *energy, __global ck_real *virial,
    __global uint *flags, CK_GAS_KICK_ARGUMENTS, int clear, int ahead,
    ck_real half_skin2, __global ck_real *next_position,
    CK_GAS_PART_ARGUMENTS) {
  uint k = (uint)get_global_id(0), i = CK_GAS_PART_SLOT(k, n, flags);
  if (clear && k == 0)
    flags[0] = 0u;
  if (i >= n || !CK_GAS_IN_PART(i))
    return;
  CK_GAS_GEOMETRY_BUILD(g);
  CK_GAS_PAIR_BUILD(p);
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  ck_real half_x = CK_R(0.5) * g.box_x, half_y = CK_R(0.5) * g.box_y;
  int cx = ck_gas_cell(anchor[2 * i], g.cell_inverse_x, g.cells_x);
  int cy = ck_gas_cell(anchor[2 * i + 1], g.cell_inverse_y, g.cells_y);
  /* Away from a periodic box's edges no pair needs the minimum image:
   * the 3 x 3 cells of a cell two or more from every edge lie one or more
   * cells inside, and what was sorted into them has not crossed the
   * box's side since (a particle moves less than a cell between Verlet
   * rebuilds); there the image is the separation itself, bit for bit,
   * for every pair within a cell's width. */
  int image = (CK_GAS_PERIODIC_X && (cx < 2 || cx > g.cells_x - 3)) ||
              (CK_GAS_PERIODIC_Y && (cy < 2 || cy > g.cells_y - 3));
  ck_gas_lane_index lanes = CK_GAS_LANE_NUMBERS;
  ck_gas_lanes fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  for (int oy = -1; oy <= 1; ++oy) {
    int row, from, to;
    ck_real shift;
    if (!ck_gas_run_row(cy, oy, &g, &row, &shift))
      continue;
    uint base = (uint)row * (uint)g.cells_x;
    for (int run = 0; run < 3; ++run) {
      if (!ck_gas_run_columns(cx, run, &g, &from, &to, &shift))
        continue;
      uint begin = cell_start[base + (uint)from];
      uint end = cell_start[base + (uint)to] + cell_count[base + (uint)to];
      if (with_energy && image) {
        CK_GAS_STRIP(1, 1)
      } else if (with_energy) {
        CK_GAS_STRIP(1, 0)
      } else if (image) {
        CK_GAS_STRIP(0, 1)
      } else {
        CK_GAS_STRIP(0, 0)
      }
    }
  }
  ck_gas_store_force(i, ck_gas_lanes_total(fx), ck_gas_lanes_total(fy),
                     ck_gas_lanes_total(e), ck_gas_lanes_total(w), with_energy,
                     force, energy, virial);
  CK_GAS_KICK_AFTER_FORCE(i);
  /* The next step's first half, its positions into next_position while
   * others still read these. */
  if (ahead && CK_GAS_MOVES(i) &&
      ck_gas_kick_drift_particle(i, position, next_position, velocity, force,
                                 dt, &g, anchor, half_skin2))
    atomic_or(&flags[0], 1u);
}
#endif

/* The pairs of particle (xi, yi) with a tile's COUNT positions, in
 * order; full tiles pass a literal ENERGY, so that each use compiles to
 * its own loop, and the constant CK_GAS_GROUP, which the compiler can
 * unroll.
 * A particle meets itself at distance 0, which ck_gas_add_pair skips. */
#define CK_GAS_ALL_PAIRS_TILE(ENERGY, COUNT)                                   \
  for (uint t = 0; t < (COUNT); ++t) {                                         \
    ck_gas_real2 other = tile[t];                                              \
    ck_real dx, dy;                                                            \
    ck_gas_separation(xi, yi, other.x, other.y, &g, &dx, &dy);                 \
    ck_gas_add_pair(CK_GAS_MODEL, dx, dy, &p, rc, ENERGY, &fx, &fy, &e, &w);   \
  }

/* Work-item l stages slot T * CK_GAS_GROUP + l of the positions (or the
 * origin past the last) in the group's tile. */
#define CK_GAS_STAGE_TILE(T)                                                   \
  {                                                                            \
    uint j_ = (T)*CK_GAS_GROUP + l;                                            \
    ck_gas_real2 staged; /* spelled without a vector literal, for CUDA */      \
    staged.x = CK_R(0);                                                        \
    staged.y = CK_R(0);                                                        \
    if (j_ < n)                                                                \
      staged = vload2(j_, position);                                           \
    tile[l] = staged;                                                          \
  }

/* Soft-log forces only, over a full tile that does not hold particle i
 * (no pair at r2 = 0, so no select): the twelfths of F/r
 * (ck_gas_soft_log_twelfth) summed into fx12, fy12. Two positions a
 * 128-bit local read, eight such reads an unrolled round. */
#define CK_GAS_SOFT_LOG_PAIR(OX, OY)                                           \
  {                                                                            \
    ck_real dx, dy, unused;                                                    \
    ck_gas_separation(xi, yi, OX, OY, &g, &dx, &dy);                           \
    ck_real twelfth = ck_gas_soft_log_twelfth(dx * dx + dy * dy, softening2,   \
                                              p.soft_log_weight, &unused);     \
    fx12 += twelfth * dx;                                                      \
    fy12 += twelfth * dy;                                                      \
  }
#define CK_GAS_SOFT_LOG_TILE()                                                 \
  _Pragma("unroll 8") for (uint t = 0; t < CK_GAS_GROUP / 2; ++t) {            \
    ck_gas_real4 two = tile4[t];                                               \
    CK_GAS_SOFT_LOG_PAIR(two.x, two.y)                                         \
    CK_GAS_SOFT_LOG_PAIR(two.z, two.w)                                         \
  }

/*
 * All pairs. CPUs (CK_GAS_TILES 0): work-item i sums over every j in slot
 * order, straight from memory, into force, energy and virial. GPUs: the
 * j range is cut into `slices` runs of whole tiles so that small systems
 * still fill the device; work-item (i, s) sums slot i's pairs with slice
 * s, its group staging CK_GAS_GROUP positions at a time in local memory,
 * and stores the partial sums at entry s n + i of partial (4 reals: fx,
 * fy, energy, virial); ck_gas_sum_slices adds them in slice order.
 */
__kernel __attribute__((reqd_work_group_size(CK_GAS_GROUP, 1, 1))) void
ck_gas_forces_all(uint n, CK_GAS_GEOMETRY_ARGUMENTS, CK_GAS_PAIR_ARGUMENTS,
                  __global const ck_real *position, __global ck_real *force,
                  __global ck_real *energy, __global ck_real *virial,
                  uint slices, __global ck_real *partial) {
  CK_GAS_GEOMETRY_BUILD(g);
  CK_GAS_PAIR_BUILD(p);
  uint i = (uint)get_global_id(0);
#if !CK_GAS_TILES
  if (i >= n)
    return;
  ck_gas_force_from_all(i, n, position, &g, CK_GAS_MODEL, &p, rc, with_energy,
                        force, energy, virial);
#else
  /* Staged a position a work-item, read two at a time. */
  CK_LOCAL ck_gas_real4 tile4[CK_GAS_GROUP / 2];
  __local ck_gas_real2 *tile = (__local ck_gas_real2 *)tile4;
  uint l = (uint)get_local_id(0), slice = (uint)get_global_id(1);
  uint tiles = (n + CK_GAS_GROUP - 1) / CK_GAS_GROUP;
  uint first_tile = slice * tiles / slices;
  uint end_tile = (slice + 1) * tiles / slices;
  ck_real xi = i < n ? position[2 * i] : CK_R(0);
  ck_real yi = i < n ? position[2 * i + 1] : CK_R(0);
  ck_real fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  ck_real fx12 = CK_R(0), fy12 = CK_R(0);
  uint own_tile = (uint)get_group_id(0);
  /* Whole tiles, then the last tile when it is partial, each between
   * barriers with no branch around a loop of run-time length (PoCL 5.0's
   * compiler aborts on that shape). */
  uint whole_end = n / CK_GAS_GROUP < end_tile ? n / CK_GAS_GROUP : end_tile;
  for (uint t0 = first_tile; t0 < whole_end; ++t0) {
    CK_GAS_STAGE_TILE(t0)
    barrier(CLK_LOCAL_MEM_FENCE);
    if (CK_GAS_MODEL == CK_GAS_MODEL_SOFT_LOG && !with_energy &&
        t0 != own_tile) {
      CK_GAS_SOFT_LOG_TILE()
    } else if (with_energy) {
      CK_GAS_ALL_PAIRS_TILE(1, CK_GAS_GROUP)
    } else {
      CK_GAS_ALL_PAIRS_TILE(0, CK_GAS_GROUP)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (whole_end < end_tile) {
    CK_GAS_STAGE_TILE(whole_end)
    barrier(CLK_LOCAL_MEM_FENCE);
    uint count = n - whole_end * CK_GAS_GROUP;
    CK_GAS_ALL_PAIRS_TILE(with_energy, count)
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) {
    __global ck_real *out = partial + 4 * ((size_t)slice * n + i);
    out[0] = fx + CK_R(12) * fx12;
    out[1] = fy + CK_R(12) * fy12;
    out[2] = e;
    out[3] = w;
  }
#endif
}

/* Work-item i (GPUs): slot i's partial sums of the all-pairs slices,
 * added in slice order into its force, energy and virial. */
__kernel void ck_gas_sum_slices(uint n, uint slices, int with_energy,
                                __global const ck_real *partial,
                                __global ck_real *force,
                                __global ck_real *energy,
                                __global ck_real *virial) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  ck_real fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  for (uint s = 0; s < slices; ++s) {
    __global const ck_real *in = partial + 4 * ((size_t)s * n + i);
    fx += in[0];
    fy += in[1];
    e += in[2];
    w += in[3];
  }
  ck_gas_store_force(i, fx, fy, e, w, with_energy, force, energy, virial);
}

/* Work-item k: the second half-kick of slot k, and Langevin's step. */
__kernel void ck_gas_kick(uint n, ck_real dt, ck_real damping, ck_real noise,
                          ulong seed, ulong step, __global ck_real *velocity,
                          __global const ck_real *force,
                          __global const uint *id) {
  uint k = (uint)get_global_id(0);
  if (k >= n || !CK_GAS_MOVES(k))
    return;
  ck_gas_kick_particle(k, velocity, force, id, dt, damping, noise, seed, step);
}

/* Work-item l of group b sums kinetic energy, potential energy, virial
 * and momentum over particles b * GROUP + l, then strided by the grid (a
 * member's own particles alone); a tree adds the group's sums into
 * partial[5 b ..]. */
__kernel __attribute__((reqd_work_group_size(CK_GAS_GROUP, 1, 1))) void
ck_gas_reduce(uint n, __global const ck_real *velocity,
              __global const ck_real *energy, __global const ck_real *virial,
              __global const uint *id, __global ck_real *partial) {
  CK_LOCAL ck_real sums[5][CK_GAS_GROUP];
  uint l = (uint)get_local_id(0);
  ck_real kinetic = CK_R(0), potential = CK_R(0), w = CK_R(0);
  ck_real px = CK_R(0), py = CK_R(0);
  for (uint k = (uint)get_global_id(0); k < n; k += (uint)get_global_size(0)) {
    if (!CK_GAS_MOVES(k))
      continue;
    ck_real vx = velocity[2 * k], vy = velocity[2 * k + 1];
    kinetic += CK_R(0.5) * (vx * vx + vy * vy);
    potential += energy[k];
    w += virial[k];
    px += vx;
    py += vy;
  }
  sums[0][l] = kinetic;
  sums[1][l] = potential;
  sums[2][l] = w;
  sums[3][l] = px;
  sums[4][l] = py;
  barrier(CLK_LOCAL_MEM_FENCE);
  CK_GAS_GROUP_SUM5(sums, l);
  if (l < 5)
    partial[5 * get_group_id(0) + l] = sums[l][0];
}

/* One work-group: the groups' partial sums into totals[0 .. 4]. */
__kernel __attribute__((reqd_work_group_size(CK_GAS_GROUP, 1, 1))) void
ck_gas_reduce_total(uint groups, __global const ck_real *partial,
                    __global ck_real *totals) {
  CK_LOCAL ck_real sums[5][CK_GAS_GROUP];
  uint l = (uint)get_local_id(0);
  for (int q = 0; q < 5; ++q) {
    ck_real sum = CK_R(0);
    for (uint b = l; b < groups; b += CK_GAS_GROUP)
      sum += partial[5 * b + q];
    sums[q][l] = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  CK_GAS_GROUP_SUM5(sums, l);
  if (l < 5)
    totals[l] = sums[l][0];
}

/* Work-item k: both velocity components of slot k scaled so that the
 * kinetic energy in totals[0] matches the target temperature. */
__kernel void ck_gas_rescale(uint n, ck_real target, ck_real degrees,
                             __global const ck_real *totals,
                             __global ck_real *velocity) {
  uint k = (uint)get_global_id(0);
  if (k >= n)
    return;
  ck_real temperature = CK_R(2) * totals[0] / degrees;
  ck_real scale =
      temperature > CK_R(0) ? CK_SQRT(target / temperature) : CK_R(1);
  velocity[2 * k] *= scale;
  velocity[2 * k + 1] *= scale;
}

/* Work-item i: slot i's pairs that it counts (ck_gas_rdf_counts), binned
 * (atomically); mode 0 from the cells around anchor's slot i, 1 from its
 * Verlet list, 2 from every slot. */
__kernel void ck_gas_accumulate_rdf(
    uint n, CK_GAS_GEOMETRY_ARGUMENTS, __global const ck_real *position,
    __global const ck_real *anchor, int mode, __global const uint *cell_start,
    __global const uint *cell_count, __global const uint *list,
    __global const uint *list_count, uint capacity, ck_real range, uint bins,
    __global uint *counts, __global const uint *id) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  CK_GAS_GEOMETRY_BUILD(g);
  ck_gas_rdf_pairs(i, n, position, anchor, mode == 0 ? cell_start : 0,
                   mode == 0 ? cell_count : 0, mode == 1 ? list : 0,
                   mode == 1 ? list_count : 0, capacity, &g, range, bins,
                   counts, CK_GAS_MEMBER ? id : 0);
}

#if CK_GAS_MEMBER
#include "gas_member.inc"
#endif
