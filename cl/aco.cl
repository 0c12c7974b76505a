/*
 * aco.cl - ant colony optimisation kernels for the TSP. Their ref twins
 * are the steps in src/aco/aco_ref.c, which call the same ck_aco.h
 * functions.
 *
 * Build-time defines (chosen per instance and device by src/aco/aco.c):
 *   CK_GROUP       work-group size of the reductions (a power of two)
 *   CK_ACO_METRIC  a CK_TSP_METRIC_ id, or CK_ACO_FROM_MATRIX
 *   CK_ACO_K       candidates a city
 */
#include "ck_aco.h"

#if !defined(CK_GROUP) || !defined(CK_ACO_METRIC) || !defined(CK_ACO_K)
#error "aco.cl needs CK_GROUP, CK_ACO_METRIC and CK_ACO_K"
#endif

/* Work-item a builds ant a's tour (tours[a * n ...]) and its length. */
__kernel void ck_aco_build_tours(uint n, uint ants, ulong seed, ulong iteration,
                                 float q0, __global const int *matrix,
                                 __global const ck_tsp_coord *xy,
                                 __global const uint *neighbours,
                                 __global const float *choice,
                                 __global uint *tours, __global uchar *flags,
                                 __global long *lengths) {
  uint ant = (uint)get_global_id(0);
  if (ant >= ants)
    return;
  const int metric = CK_ACO_METRIC;
  lengths[ant] = ck_aco_construct(
      CK_ACO_GRAPH_ARGS, CK_ACO_K, neighbours, choice, q0, seed, iteration, ant,
      tours + (ulong)ant * n, flags + (ulong)ant * n);
}

/* Work-item a * n + i counts edge i of ant a's tour on both of its
 * candidate entries (ACS's local update). Integer atomics commute, so the
 * counts do not depend on the order. */
__kernel void ck_aco_count_uses(uint n, uint ants,
                                __global const uint *neighbours,
                                __global const uint *tours,
                                __global volatile uint *uses) {
  ulong item = get_global_id(0);
  if (item >= (ulong)ants * n)
    return;
  uint ant = (uint)(item / n), i = (uint)(item - (ulong)ant * n);
  __global const uint *tour = tours + (ulong)ant * n;
  uint a = tour[i], b = tour[i + 1u == n ? 0u : i + 1u];
  uint j = ck_aco_entry(CK_ACO_K, neighbours, a, b);
  if (j < CK_ACO_K)
    atomic_inc(uses + (ulong)a * CK_ACO_K + j);
  j = ck_aco_entry(CK_ACO_K, neighbours, b, a);
  if (j < CK_ACO_K)
    atomic_inc(uses + (ulong)b * CK_ACO_K + j);
}

/* Work-item a writes ant a at its rank by (length, ant) into order. */
__kernel void ck_aco_rank(uint ants, __global const long *lengths,
                          __global uint *order) {
  uint ant = (uint)get_global_id(0);
  if (ant >= ants)
    return;
  long mine = lengths[ant];
  uint rank = 0;
  for (uint other = 0; other < ants; ++other) {
    long theirs = lengths[other];
    rank += theirs < mine || (theirs == mine && other < ant);
  }
  order[rank] = ant;
}

/* Work-item i improves the tour of ant order[i] (ant i when ranked is 0)
 * by local search, for i < count. */
__kernel void ck_aco_search(uint n, int or_opt, uint count, int ranked,
                            __global const uint *order,
                            __global const int *matrix,
                            __global const ck_tsp_coord *xy,
                            __global const uint *neighbours,
                            __global uint *tours, __global uint *positions,
                            __global uchar *flags, __global long *lengths) {
  uint i = (uint)get_global_id(0);
  if (i >= count)
    return;
  uint ant = ranked ? order[i] : i;
  const int metric = CK_ACO_METRIC;
  ulong at = (ulong)ant * n;
  lengths[ant] =
      ck_aco_improve(CK_ACO_GRAPH_ARGS, CK_ACO_K, neighbours, or_opt,
                     tours + at, positions + at, flags + at, lengths[ant]);
}

/* One work-group: the iteration's shortest tour by (length, ant) into
 * best[0] (length) and best[1] (ant). Work-item l folds ants l, l + GROUP,
 * ..., then the group halves. */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_aco_iteration_best(uint ants, __global const long *lengths,
                      __global long *best) {
  __local long values[CK_GROUP];
  __local uint indices[CK_GROUP];
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
 * rotated tour, with its position and its segment (i / size). */
__kernel void ck_aco_rotate(uint n, uint offset, uint size,
                            __global const uint *best, __global uint *rotated,
                            __global uint *positions, __global uint *segment) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  uint at = i + offset;
  uint city = best[at >= n ? at - n : at];
  rotated[i] = city;
  positions[city] = i;
  segment[city] = i / size;
}

/* Work-item s runs 2-opt with fixed ends on segment s of the rotated tour
 * (positions s * size .. min((s + 1) * size, n) - 1) and writes its gain. */
__kernel void ck_aco_segments(uint n, uint size, uint segments,
                              __global const int *matrix,
                              __global const ck_tsp_coord *xy,
                              __global const uint *neighbours,
                              __global const uint *segment,
                              __global uint *rotated, __global uint *positions,
                              __global long *gains) {
  uint s = (uint)get_global_id(0);
  if (s >= segments)
    return;
  const int metric = CK_ACO_METRIC;
  uint first = s * size;
  uint last = first + size < n ? first + size - 1u : n - 1u;
  gains[s] =
      ck_aco_segment_two_opt(CK_ACO_GRAPH_ARGS, CK_ACO_K, neighbours, segment,
                             s, first, last, rotated, positions);
}
