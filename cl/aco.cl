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

#include "aco_groups.inc"

#endif
