/*
 * aco.cl - ant colony optimisation kernels for the TSP. Their ref twins
 * are the steps in src/aco/aco_ref.c, which call the same ck_aco.h
 * functions.
 *
 * Build-time defines (chosen per instance and device by src/aco/aco.c):
 *   CK_GROUP       work-group size of the reductions (a power of two)
 *   CK_ACO_METRIC  a CK_TSP_METRIC_ id, or CK_ACO_FROM_MATRIX
 *   CK_ACO_K       candidates a city
 *   CK_ACO_LANES   work-items an ant in the group kernels (a power of
 *                  two; 1 when only the one-work-item-an-ant kernels are
 *                  built)
 *
 * Two forms build and improve tours. The ant kernels give each ant one
 * work-item, which suits CPUs. The group kernels give each ant a
 * work-group of CK_ACO_LANES work-items, which suits GPUs: the
 * candidates of a step, the candidate moves at a city and the entries of
 * a reversal or shift are spread over the group, so the chains of
 * dependent memory reads of one ant become short rounds. They make
 * exactly the choices of the ck_aco.h functions they mirror (same order,
 * same first improving move, same float sums), so ref stays their twin.
 */
#include "ck_aco.h"

#if !defined(CK_GROUP) || !defined(CK_ACO_METRIC) || !defined(CK_ACO_K)
#error "aco.cl needs CK_GROUP, CK_ACO_METRIC and CK_ACO_K"
#endif
#ifndef CK_ACO_LANES
#define CK_ACO_LANES 1
#endif

/* Work-item a builds ant a's tour (tours[a * n ...]) and its length,
 * drawing from the stream of ant first + a of the whole colony (a spread
 * colony's slice begins at first; 0 alone). */
__kernel void ck_aco_build_tours(
    uint n, uint ants, uint first, ulong seed, ulong iteration, float q0,
    __global const int *matrix, __global const ck_tsp_coord *xy,
    __global const uint *neighbours, __global const float *choice,
    __global uint *tours, __global uchar *flags, __global long *lengths,
    __global const uint *grid_cells, __global const ck_tsp_coord *grid_box) {
  uint ant = (uint)get_global_id(0);
  if (ant >= ants)
    return;
  const int metric = CK_ACO_METRIC;
  lengths[ant] =
      ck_aco_construct(CK_ACO_GRAPH_ARGS, CK_ACO_GRID_ARGS, CK_ACO_K,
                       neighbours, choice, q0, seed, iteration, first + ant,
                       tours + (ulong)ant * n, flags + (ulong)ant * n);
}

/* A kernel of a work-item a position of `count` tours of n cities: this
 * work-item's tour and position, or 0 past their end. */
static inline int ck_aco_tour_item(uint n, uint count, uint *tour, uint *i) {
  ulong item = get_global_id(0);
  if (item >= (ulong)count * n)
    return 0;
  *tour = (uint)(item / n);
  *i = (uint)(item - (ulong)*tour * n);
  return 1;
}

/* Work-item a * n + i counts edge i of ant a's tour on both of its
 * candidate entries (ACS's local update). Integer atomics commute, so the
 * counts do not depend on the order. */
__kernel void ck_aco_count_uses(uint n, uint ants,
                                __global const uint *neighbours,
                                __global const uint *tours,
                                __global volatile uint *uses) {
  uint ant, i;
  if (!ck_aco_tour_item(n, ants, &ant, &i))
    return;
  ck_aco_count_edge(n, CK_ACO_K, neighbours, tours + (ulong)ant * n, i,
                    (__global uint *)uses);
}

/* Work-item a writes ant a at its rank by (length, ant) into order. */
__kernel void ck_aco_rank(uint ants, __global const long *lengths,
                          __global uint *order) {
  uint ant = (uint)get_global_id(0);
  if (ant >= ants)
    return;
  order[ck_aco_rank_of(ants, lengths, ant)] = ant;
}

/* Work-item i improves the tour of ant order[i] (ant i when ranked is 0)
 * by local search, for i < count: from scratch, or (seeded) only around
 * the edges it does not share with the best tour (ck_aco_seed_position). */
__kernel void
ck_aco_search(uint n, uint longest, int or_opt, uint count, int ranked,
              int seeded, __global const uint *best_tour,
              __global const uint *best_pos, __global const uint *order,
              __global const int *matrix, __global const ck_tsp_coord *xy,
              __global const uint *neighbours, __global uint *tours,
              __global uint *positions, __global uchar *flags,
              __global long *lengths) {
  uint i = (uint)get_global_id(0);
  if (i >= count)
    return;
  uint ant = ranked ? order[i] : i;
  const int metric = CK_ACO_METRIC;
  ulong at = (ulong)ant * n;
  for (uint p = 0; p < n; ++p)
    ck_aco_seed_position(n, tours + at, seeded, best_tour, best_pos,
                         positions + at, flags + at, p);
  lengths[ant] = ck_aco_improve_from(CK_ACO_GRAPH_ARGS, CK_ACO_K, neighbours,
                                     longest, or_opt, !seeded, tours + at,
                                     positions + at, flags + at, lengths[ant]);
}

/* ---- the focused method: one work-item an ant walks and searches ---- */

/* Work-item j * n + i keeps position i of the tour of ant first + j as
 * source j, with its positions (ck_aco_focus_keep): the iteration's best
 * tour (kept 1) or every ant's own (kept ants, first 0). */
__kernel void ck_aco_focus_keep_sources(uint n, uint kept, uint first,
                                        __global const uint *tours,
                                        __global uint *sources,
                                        __global uint *source_pos) {
  uint j, i;
  if (!ck_aco_tour_item(n, kept, &j, &i))
    return;
  ulong at = (ulong)j * n;
  ck_aco_focus_keep(tours + (ulong)(first + j) * n, sources + at,
                    source_pos + at, i);
}

/* Work-item a * n + i copies position i of ant a's source (at
 * sources + a * stride) into its tour, positions and visited flags
 * (ck_aco_focus_copy). */
__kernel void ck_aco_focus_copy_tours(uint n, uint ants, ulong stride,
                                      __global const uint *sources,
                                      __global uint *tours,
                                      __global uint *positions,
                                      __global uchar *flags) {
  uint ant, i;
  if (!ck_aco_tour_item(n, ants, &ant, &i))
    return;
  ulong at = (ulong)ant * n;
  ck_aco_focus_copy(sources + ant * stride, tours + at, positions + at,
                    flags + at, i);
}

/* Work-item a walks ant a's copy of its source (at sources + a * stride,
 * of length source_length, or of the ant's last length with a stride),
 * changing it at up to `bound` edges (ck_aco_construct_focused), from the
 * stream of ant first + a. */
__kernel void ck_aco_build_focused(
    uint n, uint ants, uint first, ulong seed, ulong iteration, float q0,
    uint bound, long source_length, ulong stride, __global const int *matrix,
    __global const ck_tsp_coord *xy, __global const uint *neighbours,
    __global const float *choice, __global const uint *sources,
    __global const uint *source_pos, __global uint *tours,
    __global uint *positions, __global uchar *flags, __global long *lengths) {
  uint ant = (uint)get_global_id(0);
  if (ant >= ants)
    return;
  const int metric = CK_ACO_METRIC;
  ulong at = (ulong)ant * n, from = ant * stride;
  uint new_edges;
  lengths[ant] = ck_aco_construct_focused(
      CK_ACO_GRAPH_ARGS, CK_ACO_K, neighbours, choice, q0, seed, iteration,
      first + ant, sources + from, source_pos + from,
      stride ? lengths[ant] : source_length, bound, tours + at, positions + at,
      flags + at, &new_edges);
}

/* The longest queue ck_aco_search_focused sorts; past it the ant scans
 * its whole tour, which gives the same queue. */
#define CK_ACO_SORT_MOST 512u

/* Work-item i * n + p seeds position p of the tour of ant order[i] (ant i
 * when ranked is 0) against its source, at sources + ant * stride
 * (ck_aco_seed_position). A dirty city's position goes onto the ant's
 * queue, in any order: ck_aco_search_focused sorts it. */
__kernel void
ck_aco_focus_dirty(uint n, uint count, int ranked, __global const uint *order,
                   ulong stride, __global const uint *sources,
                   __global const uint *source_pos, __global const uint *tours,
                   __global uint *positions, __global uchar *flags,
                   __global uint *queues, __global volatile uint *queued) {
  uint i, p;
  if (!ck_aco_tour_item(n, count, &i, &p))
    return;
  uint ant = ranked ? order[i] : i;
  ulong at = (ulong)ant * n, from = ant * stride;
  ck_aco_seed_position(n, tours + at, 1, sources + from, source_pos + from,
                       positions + at, flags + at, p);
  if (!flags[at + tours[at + p]]) {
    uint slot = atomic_inc((volatile __global uint *)&queued[ant]);
    if (slot < CK_ACO_SORT_MOST)
      queues[at + slot] = p;
  }
}

/* Work-item i improves the tour of ant order[i] (ant i when ranked is 0)
 * from its dirty cities (ck_aco_improve_queue) and clears its count. */
__kernel void ck_aco_search_focused(
    uint n, uint longest, int or_opt, uint count, int ranked,
    __global const uint *order, __global const int *matrix,
    __global const ck_tsp_coord *xy, __global const uint *neighbours,
    __global uint *tours, __global uint *positions, __global uchar *flags,
    __global uint *queues, __global uint *queued, __global long *lengths) {
  uint i = (uint)get_global_id(0);
  if (i >= count)
    return;
  uint ant = ranked ? order[i] : i;
  const int metric = CK_ACO_METRIC;
  ulong at = (ulong)ant * n;
  uint listed = queued[ant];
  queued[ant] = 0;
  if (listed > CK_ACO_SORT_MOST)
    listed = ck_aco_queue_dirty(tours + at, flags + at, 0, n, queues + at);
  else
    ck_aco_queue_sorted(tours + at, queues + at, listed);
  lengths[ant] -= ck_aco_improve_queue(
      CK_ACO_GRAPH_ARGS, CK_ACO_K, neighbours, longest, or_opt, tours + at,
      positions + at, flags + at, queues + at, listed);
}

/* One work-group: the iteration's shortest tour by (length, ant) into
 * best[0] (length) and best[1] (ant). Work-item l folds ants l, l + GROUP,
 * ..., then the group halves. */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_aco_iteration_best(uint ants, __global const long *lengths,
                      __global long *best) {
  CK_LOCAL long values[CK_GROUP];
  CK_LOCAL uint indices[CK_GROUP];
  uint l = (uint)get_local_id(0);
  long value = 0x7FFFFFFFFFFFFFFFL;
  uint index = 0xFFFFFFFFu;
  for (uint a = l; a < ants; a += CK_GROUP)
    if (lengths[a] < value) {
      value = lengths[a];
      index = a;
    }
  values[l] = value;
  indices[l] = index;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_GROUP / 2; width > 0; width >>= 1) {
    if (l < width) {
      long v = values[l + width];
      uint x = indices[l + width];
      if (v < values[l] || (v == values[l] && x < indices[l])) {
        values[l] = v;
        indices[l] = x;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    best[0] = values[0];
    best[1] = (long)indices[0];
  }
}

/* Work-item i deposits on edge i of the tour at tours[offset ...]. */
__kernel void ck_aco_deposit(uint n, __global const uint *neighbours,
                             __global const uint *tours, ulong offset,
                             float scale, float amount, __global float *tau) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  ck_aco_deposit_edge(n, CK_ACO_K, neighbours, tours + offset, i, scale, amount,
                      tau);
}

/* Work-item e updates candidate entry e (of n * K). */
__kernel void ck_aco_update(uint entries, __global uint *uses, float xi,
                            float tau0, float keep, float tau_min,
                            float tau_max, float alpha,
                            __global const float *eta_beta, __global float *tau,
                            __global float *choice) {
  uint e = (uint)get_global_id(0);
  if (e >= entries)
    return;
  float weight;
  tau[e] = ck_aco_update_entry(tau[e], uses[e], xi, tau0, keep, tau_min,
                               tau_max, alpha, eta_beta[e], &weight);
  choice[e] = weight;
  uses[e] = 0u;
}

/* Work-item i puts city best[(i + offset) % n] at position i of the
 * rotated tour. */
__kernel void ck_aco_rotate(uint n, uint offset, __global const uint *best,
                            __global uint *rotated) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  ck_aco_rotate_position(n, offset, best, rotated, i);
}

/* Work-item s optimises segment s of the rotated tour (positions s * size
 * .. min((s + 1) * size, n) - 1) with its ends fixed, in its own part of
 * scratch, and writes its gain. */
__kernel void ck_aco_segments(uint n, uint size, uint segments, int or_opt,
                              uint kicks, ulong seed, ulong pass,
                              __global const int *matrix,
                              __global const ck_tsp_coord *xy,
                              __global uint *rotated, __global uint *scratch,
                              __global long *gains) {
  uint s = (uint)get_global_id(0);
  if (s >= segments)
    return;
  const int metric = CK_ACO_METRIC;
  gains[s] = ck_aco_optimise_segment(CK_ACO_GRAPH_ARGS, CK_ACO_K, or_opt, kicks,
                                     seed, pass, s, size, rotated, scratch);
}

#if CK_ACO_LANES > 1

/* Every barrier of the group kernels orders global memory too: work-items
 * read what others wrote to the ant's arrays in the step before. */
#define CK_ACO_BOTH_FENCES (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

/* The group's helpers, which wait at barriers, are always inlined: PoCL
 * 3.1 kept a call to one that two kernels share, and the kernel crashed. */
#define CK_ACO_GROUP_FN static inline __attribute__((always_inline))

/*
 * The start of every group kernel: work-group g serves slot g of `slots`
 * and work-item l is its lane; groups past the last slot return before
 * any barrier. The slot's ant is ant_of_slot (an expression of `slot`).
 * Its rows of the kernel's n-city arrays begin at `at`, and `tour` is its
 * row of `tours`.
 */
#define CK_ACO_GROUP_BEGIN(slots, ant_of_slot)                                 \
  const uint slot = (uint)get_group_id(0), l = (uint)get_local_id(0);          \
  if (slot >= (slots))                                                         \
    return;                                                                    \
  const uint ant = (ant_of_slot);                                              \
  const int metric = CK_ACO_METRIC;                                            \
  const ulong at = (ulong)ant * n;                                             \
  __global uint *tour = tours + at

/* The smallest of the group's values (each work-item gives one). */
CK_ACO_GROUP_FN uint ck_aco_group_min(volatile __local uint *pick, uint l,
                                      uint value) {
  if (l == 0)
    *pick = 0xFFFFFFFFu;
  barrier(CK_ACO_BOTH_FENCES);
  atomic_min(pick, value);
  barrier(CK_ACO_BOTH_FENCES);
  uint result = *pick;
  barrier(CK_ACO_BOTH_FENCES);
  return result;
}

/* The group's wait in CK_ACO_LANES_REVERSE and _SHIFT (ck_aco.h). */
#define CK_ACO_GROUP_SYNC() barrier(CK_ACO_BOTH_FENCES)

/* ck_aco_reverse by the group: work-item l swaps pairs l, l + LANES, ...
 * The positions were read by every work-item before the call. */
CK_ACO_GROUP_FN void ck_aco_group_reverse(uint n, __global uint *tour,
                                          __global uint *pos, uint i, uint j,
                                          uint l) {
  CK_ACO_LANES_REVERSE(i, j, CK_ACO_LANES, CK_ACO_GROUP_SYNC, uint);
}

/* ck_aco_move_path by the group: the entries between the path and u move
 * by `count` in rounds of LANES x CK_ACO_SHIFT_DEPTH (read, wait, write,
 * wait), the far end first when they move up, so that no round
 * overwrites what a later one reads. Work-item l then writes path cities
 * l, l + LANES, ...: with two lanes, a path of three has its third city
 * written by work-item 0. */
CK_ACO_GROUP_FN void ck_aco_group_move_path(uint n, __global uint *tour,
                                            __global uint *pos, uint from,
                                            uint count, uint u, int reversed,
                                            uint l) {
  uint path[3];
  for (uint t = 0; t < count; ++t)
    path[t] = tour[ck_aco_ahead(from, t, n)];
  uint at;
  CK_ACO_LANES_SHIFT(from, count, pos[u], at, CK_ACO_LANES, CK_ACO_GROUP_SYNC,
                     uint);
  for (uint t = l; t < count; t += CK_ACO_LANES) {
    uint c = reversed ? path[count - 1u - t] : path[t];
    uint p = ck_aco_ahead(at, t, n);
    tour[p] = c;
    pos[c] = p;
  }
  barrier(CK_ACO_BOTH_FENCES);
}

/* Order of the candidate moves at a city, as the serial search tries
 * them: 2-opt with the successor, 2-opt with the predecessor, then Or-opt
 * paths of 1, 2 and 3 cities from the city (the path's first end, then
 * its last). A move's key is (kind << 16) | (candidate << 1) | side. */
#define CK_ACO_TWO_OPT_NEXT 0u
#define CK_ACO_TWO_OPT_PREVIOUS 1u
#define CK_ACO_KEY(kind, j, side) (((kind) << 16) | ((j) << 1) | (side))
#define CK_ACO_NO_MOVE 0xFFFFFFFFu

/* Or-opt kind of a path of `count` cities moved by end `end`. */
static uint ck_aco_or_kind(uint count, int end) {
  return count == 1u ? 2u : count == 2u ? 3u + (uint)end : 5u + (uint)end;
}

/*
 * ck_aco_two_opt_at, then ck_aco_or_opt_at, by the group, in one pass:
 * work-item l takes candidates l, l + LANES, ... of the city (and of each
 * Or-opt path's last city) through every kind of move, keeping the
 * smallest key of an improving one; the group's smallest key is the move
 * the serial search would have made first. Applies it; returns its gain
 * (0: none) with the ends to unmark in touched and their number in *ends.
 */
CK_ACO_GROUP_FN int ck_aco_group_move_at(
    int metric, uint n, __global const int *matrix,
    __global const ck_tsp_coord *xy, __global const uint *neighbours,
    uint longest, __global uint *tour, __global uint *pos, uint a, int or_opt,
    uint *touched, int *ends, volatile __local uint *pick, uint l) {
  __global const uint *list = neighbours + (ulong)a * CK_ACO_K;
  uint from = pos[a];
  uint next_a = tour[ck_aco_ahead(from, 1u, n)];
  uint previous_a = tour[ck_aco_behind(from, 1u, n)];
  int d_next = ck_aco_distance(CK_ACO_GRAPH_ARGS, a, next_a);
  int d_previous = ck_aco_distance(CK_ACO_GRAPH_ARGS, previous_a, a);
  /* Path ends and removal gains of the Or-opt paths of 1 to 3 cities. */
  uint last[3], after[3];
  int removed[3];
  for (uint t = 0; t < 3u; ++t) {
    uint count = t + 1u;
    last[t] = tour[ck_aco_ahead(from, count - 1u, n)];
    after[t] = tour[ck_aco_ahead(from, count, n)];
    removed[t] =
        or_opt && count + 3u <= n
            ? d_previous +
                  ck_aco_distance(CK_ACO_GRAPH_ARGS, last[t], after[t]) -
                  ck_aco_distance(CK_ACO_GRAPH_ARGS, previous_a, after[t])
            : 0;
  }
  uint found = CK_ACO_NO_MOVE;
  for (uint j = l; j < CK_ACO_K; j += CK_ACO_LANES) {
    uint c = list[j];
    int d_ac = ck_aco_distance(CK_ACO_GRAPH_ARGS, a, c);
    for (int forward = 1; forward >= 0; --forward) {
      uint kind = forward ? CK_ACO_TWO_OPT_NEXT : CK_ACO_TWO_OPT_PREVIOUS;
      uint b = forward ? next_a : previous_a;
      int d_ab = forward ? d_next : d_previous;
      if (CK_ACO_KEY(kind, j, 0u) >= found || d_ac >= d_ab)
        continue;
      uint c2 = forward ? ck_aco_next(n, tour, pos, c)
                        : ck_aco_previous(n, tour, pos, c);
      if (c2 == a || c == b)
        continue;
      int gain = d_ab + ck_aco_distance(CK_ACO_GRAPH_ARGS, c, c2) - d_ac -
                 ck_aco_distance(CK_ACO_GRAPH_ARGS, b, c2);
      if (gain > 0 &&
          ck_aco_reversal_size(n, forward ? pos[b] : pos[c],
                               forward ? pos[c] : pos[b]) <= longest)
        found = CK_ACO_KEY(kind, j, 0u);
    }
    for (uint t = 0; t < 3u; ++t) {
      if (removed[t] <= 0)
        continue;
      for (int end = 0; end < 2; ++end) {
        if (end && t == 0u)
          break;
        uint kind = ck_aco_or_kind(t + 1u, end);
        if (CK_ACO_KEY(kind, j, 0u) >= found)
          break;
        uint e = end ? last[t] : a;
        uint candidate = end ? neighbours[(ulong)e * CK_ACO_K + j] : c;
        int d_ec =
            end ? ck_aco_distance(CK_ACO_GRAPH_ARGS, e, candidate) : d_ac;
        if (d_ec >= removed[t] ||
            ck_aco_offset(pos[candidate], from, n) < t + 1u)
          continue;
        for (int side = 0; side < 2; ++side) {
          uint u;
          int reversed;
          if (ck_aco_or_move(CK_ACO_GRAPH_ARGS, tour, pos, from, t + 1u, a,
                             last[t], e, candidate, side, removed[t], &u,
                             &reversed) > 0 &&
              ck_aco_shift_size(n, from, t + 1u, pos[u]) <= longest) {
            found = CK_ACO_KEY(kind, j, (uint)side);
            break;
          }
        }
      }
    }
  }
  uint key = ck_aco_group_min(pick, l, found);
  if (key == CK_ACO_NO_MOVE)
    return 0;
  uint kind = key >> 16, j = (key >> 1) & 0x7FFFu;
  int side = (int)(key & 1u);
  if (kind <= CK_ACO_TWO_OPT_PREVIOUS) {
    int forward = kind == CK_ACO_TWO_OPT_NEXT;
    uint b = forward ? next_a : previous_a;
    uint c = list[j];
    uint c2 = forward ? ck_aco_next(n, tour, pos, c)
                      : ck_aco_previous(n, tour, pos, c);
    int gain = (forward ? d_next : d_previous) +
               ck_aco_distance(CK_ACO_GRAPH_ARGS, c, c2) -
               ck_aco_distance(CK_ACO_GRAPH_ARGS, a, c) -
               ck_aco_distance(CK_ACO_GRAPH_ARGS, b, c2);
    uint pb = pos[b], pc = pos[c];
    ck_aco_group_reverse(n, tour, pos, forward ? pb : pc, forward ? pc : pb, l);
    touched[0] = a;
    touched[1] = b;
    touched[2] = c;
    touched[3] = c2;
    *ends = 4;
    return gain;
  }
  uint t = kind == 2u ? 0u : kind <= 4u ? 1u : 2u;
  int end = kind == 4u || kind == 6u;
  uint e = end ? last[t] : a;
  uint candidate = neighbours[(ulong)e * CK_ACO_K + j];
  uint u;
  int reversed;
  int gain =
      ck_aco_or_move(CK_ACO_GRAPH_ARGS, tour, pos, from, t + 1u, a, last[t], e,
                     candidate, side, removed[t], &u, &reversed);
  uint v = ck_aco_next(n, tour, pos, u);
  ck_aco_group_move_path(n, tour, pos, from, t + 1u, u, reversed, l);
  touched[0] = previous_a;
  touched[1] = after[t];
  touched[2] = a;
  touched[3] = last[t];
  touched[4] = u;
  touched[5] = v;
  *ends = 6;
  return gain;
}

/* The least of the work-group's keys (key from work-item l), in every
 * work-item: a halving tree in keys, one entry a work-item. */
CK_ACO_GROUP_FN ulong group_least(__local ulong *keys, ulong key, uint l) {
  keys[l] = key;
  barrier(CK_ACO_BOTH_FENCES);
  for (uint width = CK_ACO_LANES / 2; width > 0; width >>= 1) {
    if (l < width && keys[l + width] < keys[l])
      keys[l] = keys[l + width];
    barrier(CK_ACO_BOTH_FENCES);
  }
  ulong least = keys[0];
  /* keys is written again by the next call. */
  barrier(CK_ACO_BOTH_FENCES);
  return least;
}

/* The local memory of a group's construction step: the candidates of
 * the current city, their visited flags and weights, and the choice. */
typedef struct ck_aco_group_step {
  uint cities[CK_ACO_K];
  uchar seen[CK_ACO_K];
  float weights[CK_ACO_K];
  uint chosen;
} ck_aco_group_step;

/*
 * ck_aco_choose by the group: work-item l reads candidates l, l + LANES,
 * ... of city `current` (ids, visited flags, weights) into local memory,
 * and work-item 0 makes the choice over them in list order, with the
 * serial loop's float sums. Every work-item gets it (n: every candidate
 * is visited). A barrier before the call orders the writes to visited.
 */
CK_ACO_GROUP_FN uint ck_aco_group_choose(
    uint n, __global const uint *neighbours, __global const float *choice,
    __global const uchar *visited, float q0, ck_philox_counter r, uint lane,
    uint current, __local ck_aco_group_step *step, uint l) {
  __global const uint *list = neighbours + (ulong)current * CK_ACO_K;
  __global const float *row = choice + (ulong)current * CK_ACO_K;
  for (uint j = l; j < CK_ACO_K; j += CK_ACO_LANES) {
    uint c = list[j];
    step->cities[j] = c;
    step->seen[j] = visited[c];
    step->weights[j] = row[j];
  }
  barrier(CK_ACO_BOTH_FENCES);
  if (l == 0) {
    float sum = 0.0f, best_weight = -1.0f;
    uint best = n;
    for (uint j = 0; j < CK_ACO_K; ++j)
      if (!step->seen[j]) {
        float w = step->weights[j];
        sum += w;
        if (w > best_weight) {
          best_weight = w;
          best = step->cities[j];
        }
      }
    uint next = best;
    if (best != n &&
        !(q0 > 0.0f && ck_uniform_float(ck_philox_word(r, lane)) < q0)) {
      float target = ck_uniform_float(ck_philox_word(r, lane + 1u)) * sum;
      float running = 0.0f;
      for (uint j = 0; j < CK_ACO_K; ++j)
        if (!step->seen[j]) {
          running += step->weights[j];
          next = step->cities[j];
          if (running > target)
            break;
        }
    }
    step->chosen = next;
  }
  barrier(CK_ACO_BOTH_FENCES);
  return step->chosen;
}

/* Work-group a builds ant a's tour, as ck_aco_construct: each step's
 * choice is ck_aco_group_choose's; when every candidate is visited, the
 * group looks for the nearest unvisited city together. Work-item 0
 * records the steps. The arguments are ck_aco_build_tours's. */
__kernel __attribute__((reqd_work_group_size(CK_ACO_LANES, 1, 1))) void
ck_aco_build_tours_groups(uint n, uint ants, uint first, ulong seed,
                          ulong iteration, float q0, __global const int *matrix,
                          __global const ck_tsp_coord *xy,
                          __global const uint *neighbours,
                          __global const float *choice, __global uint *tours,
                          __global uchar *flags, __global long *lengths,
                          __global const uint *grid_cells,
                          __global const ck_tsp_coord *grid_box) {
  CK_LOCAL ck_aco_group_step step_memory;
  CK_LOCAL ulong keys[CK_ACO_LANES];
  CK_ACO_GROUP_BEGIN(ants, slot);
  __global uchar *visited = flags + at;
  ulong stream = (iteration << 32) | (ulong)(first + ant);
  for (uint c = l; c < n; c += CK_ACO_LANES)
    visited[c] = 0;
  ck_philox_counter r = ck_philox_block(seed, stream | ((ulong)1 << 63), 0u);
  uint start = mul_hi(r.v[0], n);
  barrier(CK_ACO_BOTH_FENCES);
  if (l == 0) {
    tour[0] = start;
    visited[start] = 1;
  }
  barrier(CK_ACO_BOTH_FENCES);
  uint current = start;
  long length = 0;
  for (uint step = 1; step < n; ++step) {
    if (step & 1u)
      r = ck_philox_block(seed, stream, (ulong)(step >> 1));
    uint next =
        ck_aco_group_choose(n, neighbours, choice, visited, q0, r,
                            ((step - 1u) & 1u) * 2u, current, &step_memory, l);
    if (next == n) {
      /* Every candidate is visited: the nearest unvisited city, by the
       * smallest (distance << 32 | city) over the group. From the matrix,
       * work-item l scans cities l, l + LANES, ...; with coordinates, it
       * searches cells l, l + LANES, ... of each ring of the grid, and the
       * group ends together (ck_aco_nearest_unvisited). */
      ulong key = 0xFFFFFFFFFFFFFFFFUL;
      if (metric == CK_ACO_FROM_MATRIX) {
        for (uint c = l; c < n; c += CK_ACO_LANES)
          if (!visited[c]) {
            ulong mine =
                ((ulong)(uint)ck_aco_distance(CK_ACO_GRAPH_ARGS, current, c)
                 << 32) |
                (ulong)c;
            key = mine < key ? mine : key;
          }
        key = group_least(keys, key, l);
      } else {
        ck_grid_walk walk = ck_aco_grid_begin(xy, CK_ACO_GRID_ARGS, current);
        for (long r = 0;; ++r) {
          ck_grid_ring ring = ck_grid_ring_of(&walk, r);
          ulong cells = ck_grid_ring_cells(&ring);
          for (ulong i = l; i < cells; i += CK_ACO_LANES) {
            long column, row;
            ck_grid_ring_cell(&walk, &ring, i, &column, &row);
            ck_aco_offer_cell(CK_ACO_GRAPH_ARGS, grid_cells, column, row,
                              current, visited, &key);
          }
          key = group_least(keys, key, l);
          if (ck_aco_ring_ends(&walk, metric, r, key))
            break;
        }
      }
      next = (uint)(key & 0xFFFFFFFFUL);
    }
    if (l == 0) {
      visited[next] = 1;
      tour[step] = next;
      length += ck_aco_distance(CK_ACO_GRAPH_ARGS, current, next);
    }
    barrier(CK_ACO_BOTH_FENCES);
    current = next;
  }
  if (l == 0)
    lengths[ant] = length + ck_aco_distance(CK_ACO_GRAPH_ARGS, current, start);
}

/* Work-group i improves the tour of ant order[i] (ant i when ranked is 0),
 * as ck_aco_improve, for i < count: the group visits the cities in tour
 * order together and shares each city's candidate moves. */
__kernel __attribute__((reqd_work_group_size(CK_ACO_LANES, 1, 1))) void
ck_aco_search_groups(uint n, uint longest, int or_opt, uint count, int ranked,
                     int seeded, __global const uint *best_tour,
                     __global const uint *best_pos, __global const uint *order,
                     __global const int *matrix,
                     __global const ck_tsp_coord *xy,
                     __global const uint *neighbours, __global uint *tours,
                     __global uint *positions, __global uchar *flags,
                     __global long *lengths) {
  CK_LOCAL uint pick;
  CK_ACO_GROUP_BEGIN(count, ranked ? order[slot] : slot);
  __global uint *pos = positions + at;
  __global uchar *dont_look = flags + at;
  for (uint p = l; p < n; p += CK_ACO_LANES)
    ck_aco_seed_position(n, tour, seeded, best_tour, best_pos, pos, dont_look,
                         p);
  barrier(CK_ACO_BOTH_FENCES);
  long length = lengths[ant];
  int improved = 1, moved = 0;
  while (improved) {
    improved = 0;
    for (uint p = 0; p < n; ++p) {
      uint a = tour[p];
      if (dont_look[a])
        continue;
      uint touched[6];
      int ends = 0;
      int gain =
          ck_aco_group_move_at(CK_ACO_GRAPH_ARGS, neighbours, longest, tour,
                               pos, a, or_opt, touched, &ends, &pick, l);
      if (l == 0) {
        if (gain > 0)
          for (int t = 0; t < ends; ++t)
            dont_look[touched[t]] = 0;
        else
          dont_look[a] = 1;
      }
      if (gain > 0) {
        length -= gain;
        improved = moved = 1;
      }
      barrier(CK_ACO_BOTH_FENCES);
    }
    /* Cities skipped by their bits pass no barrier: every work-item has
     * read the bits before any is cleared. */
    barrier(CK_ACO_BOTH_FENCES);
    if (!improved && moved && !seeded) {
      for (uint c = l; c < n; c += CK_ACO_LANES)
        dont_look[c] = 0;
      barrier(CK_ACO_BOTH_FENCES);
      improved = 1;
      moved = 0;
    }
  }
  if (l == 0)
    lengths[ant] = length;
}

/* ---- the focused method: a work-group an ant walks and searches ---- */

/* Work-group a walks ant a's copy of its source, as
 * ck_aco_construct_focused: each step's choice is ck_aco_group_choose's,
 * every work-item weighs a splice (ck_aco_splice_change), and the group
 * shares its shift (ck_aco_group_move_path). Work-item 0 marks the
 * visited cities and writes the length. The arguments are
 * ck_aco_build_focused's. */
__kernel __attribute__((reqd_work_group_size(CK_ACO_LANES, 1, 1))) void
ck_aco_build_focused_groups(
    uint n, uint ants, uint first, ulong seed, ulong iteration, float q0,
    uint bound, long source_length, ulong stride, __global const int *matrix,
    __global const ck_tsp_coord *xy, __global const uint *neighbours,
    __global const float *choice, __global const uint *sources,
    __global const uint *source_pos, __global uint *tours,
    __global uint *positions, __global uchar *flags, __global long *lengths) {
  CK_LOCAL ck_aco_group_step step_memory;
  CK_ACO_GROUP_BEGIN(ants, slot);
  ulong from = ant * stride;
  __global const uint *source = sources + from;
  __global const uint *source_at = source_pos + from;
  __global uint *pos = positions + at;
  __global uchar *visited = flags + at;
  ulong stream = (iteration << 32) | (ulong)(first + ant);
  ck_philox_counter r = ck_philox_block(seed, stream | ((ulong)1 << 63), 0u);
  uint current = mul_hi(r.v[0], n);
  if (l == 0)
    visited[current] = 1;
  /* Read before the barrier: work-item 0 writes the length at the end. */
  long length = stride ? lengths[ant] : source_length, added = 0;
  barrier(CK_ACO_BOTH_FENCES);
  for (uint step = 1; step < n && added < (long)bound; ++step) {
    if (step & 1u)
      r = ck_philox_block(seed, stream, (ulong)(step >> 1));
    uint next = ck_aco_next(n, tour, pos, current);
    uint c =
        ck_aco_group_choose(n, neighbours, choice, visited, q0, r,
                            ((step - 1u) & 1u) * 2u, current, &step_memory, l);
    if (c != n && c != next) {
      int fresh;
      long change = ck_aco_splice_change(CK_ACO_GRAPH_ARGS, source, source_at,
                                         tour, pos, current, next, c, &fresh);
      if (added + fresh > (long)bound)
        break;
      length += change;
      ck_aco_group_move_path(n, tour, pos, pos[c], 1u, current, 0, l);
      added += fresh;
      next = c;
    }
    if (l == 0)
      visited[next] = 1;
    barrier(CK_ACO_BOTH_FENCES);
    current = next;
  }
  if (l == 0)
    lengths[ant] = length;
}

/*
 * The queue of ck_aco_queue_sorted by the group: work-item l loads
 * positions l, l + LANES, ... into local memory (at most
 * CK_ACO_SORT_MOST), then ranks them by counting the smaller ones and
 * writes the city at each rank. Positions are distinct, so the ranks are
 * the insertion sort's order.
 */
CK_ACO_GROUP_FN void ck_aco_group_queue_sorted(__global const uint *tour,
                                               __global uint *queue, uint count,
                                               __local uint *held, uint l) {
  for (uint i = l; i < count; i += CK_ACO_LANES)
    held[i] = queue[i];
  barrier(CK_ACO_BOTH_FENCES);
  for (uint i = l; i < count; i += CK_ACO_LANES) {
    uint p = held[i], rank = 0;
    for (uint j = 0; j < count; ++j)
      rank += held[j] < p;
    queue[rank] = tour[p];
  }
  barrier(CK_ACO_BOTH_FENCES);
}

/*
 * ck_aco_queue_dirty of the whole tour by the group: work-item l counts
 * the dirty cities of its block of positions (blocks in tour order, one
 * a work-item, in local memory `held`), then writes them after those of
 * the blocks before it. Returns their count.
 */
CK_ACO_GROUP_FN uint ck_aco_group_queue_dirty(uint n, __global const uint *tour,
                                              __global const uchar *dont_look,
                                              __global uint *queue,
                                              __local uint *held, uint l) {
  uint size = (n + CK_ACO_LANES - 1u) / CK_ACO_LANES;
  uint first = min(l * size, n), last = min(first + size, n);
  held[l] = ck_aco_queue_dirty(tour, dont_look, first, last, 0);
  barrier(CK_ACO_BOTH_FENCES);
  uint before = 0, count = 0;
  for (uint j = 0; j < CK_ACO_LANES; ++j) {
    before += j < l ? held[j] : 0u;
    count += held[j];
  }
  ck_aco_queue_dirty(tour, dont_look, first, last, queue + before);
  barrier(CK_ACO_BOTH_FENCES);
  return count;
}

/* Work-group i improves the tour of ant order[i] (ant i when ranked is 0)
 * from its dirty cities, as ck_aco_search_focused: the group makes the
 * queue (ck_aco_group_queue_sorted, or _dirty past CK_ACO_SORT_MOST),
 * then takes its cities in turn; ck_aco_group_move_at tries each city's
 * moves over the group and applies the first. Work-item 0 keeps the
 * don't-look bits and the queue (ck_aco_queue_push), the length and the
 * ant's count. The arguments are ck_aco_search_focused's. */
__kernel __attribute__((reqd_work_group_size(CK_ACO_LANES, 1, 1))) void
ck_aco_search_focused_groups(uint n, uint longest, int or_opt, uint count,
                             int ranked, __global const uint *order,
                             __global const int *matrix,
                             __global const ck_tsp_coord *xy,
                             __global const uint *neighbours,
                             __global uint *tours, __global uint *positions,
                             __global uchar *flags, __global uint *queues,
                             __global uint *queued, __global long *lengths) {
  CK_LOCAL uint
      held[CK_ACO_SORT_MOST > CK_ACO_LANES ? CK_ACO_SORT_MOST : CK_ACO_LANES];
  CK_LOCAL uint pick, waiting;
  CK_ACO_GROUP_BEGIN(count, ranked ? order[slot] : slot);
  __global uint *pos = positions + at;
  __global uchar *dont_look = flags + at;
  __global uint *queue = queues + at;
  /* Work-item 0 clears the count after the barriers below. */
  uint listed = queued[ant];
  if (listed > CK_ACO_SORT_MOST)
    listed = ck_aco_group_queue_dirty(n, tour, dont_look, queue, held, l);
  else
    ck_aco_group_queue_sorted(tour, queue, listed, held, l);
  long total = 0;
  uint head = 0;
  while (listed > 0u) {
    uint a = queue[head];
    head = ck_aco_ahead(head, 1u, n);
    --listed;
    if (l == 0)
      dont_look[a] = 1;
    uint touched[6];
    int ends = 0;
    int gain =
        ck_aco_group_move_at(CK_ACO_GRAPH_ARGS, neighbours, longest, tour, pos,
                             a, or_opt, touched, &ends, &pick, l);
    if (gain <= 0)
      continue;
    total += gain;
    /* The next write to `waiting` follows the barriers of the next
     * move's reduction, so every work-item has read this one. */
    if (l == 0)
      waiting =
          ck_aco_queue_push(n, dont_look, queue, head, listed, touched, ends);
    barrier(CK_ACO_BOTH_FENCES);
    listed = waiting;
  }
  if (l == 0) {
    lengths[ant] -= total;
    queued[ant] = 0;
  }
}

#endif
