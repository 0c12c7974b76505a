/*
 * ck_best.h - the (value, index) minimum of a population, shared by the
 * optimisers: comparison helpers for every backend, and, in OpenCL C, the
 * kernels that find the best of n candidates and keep it.
 *
 * Build-time define for the kernels: CK_GROUP, their work-group size (a
 * power of two).
 */
#ifndef CK_BEST_H
#define CK_BEST_H

#include "ck_real.h"

/* (value, index) order: lower value, then lower index; NaN never wins. */
CK_FN int ck_better(ck_real value, ck_u32 index, ck_real other_value,
                    ck_u32 other_index) {
  return value < other_value || (value == other_value && index < other_index);
}

/* A value that may be compared: NaN and +infinity become the largest
 * real, so that every candidate can win against the starting (largest
 * real, no index) of a search, even where every value overflowed. The
 * macro serves vectors too (ck_pso_lanes.h). */
#define CK_COMPARABLE(value)                                                   \
  ((value) <= CK_R(CK_REAL_MAX) ? (value) : CK_R(CK_REAL_MAX))

CK_FN ck_real ck_comparable(ck_real value) {
  return CK_COMPARABLE(value);
}

#if defined(CK_OPENCL_C)
#ifndef CK_GROUP
#error "ck_best.h needs CK_GROUP"
#endif

/*
 * The (value, index) minimum of a work-group of `width` work-items (a
 * power of two; a constant where it is called, so the halving unrolls):
 * work-item l offers its candidate; the group halves the candidates in
 * local memory until entry 0 holds the minimum, visible to every
 * work-item on return.
 */
static void ck_best_minimum_of(uint width, __local ck_real *values,
                               __local uint *indices, uint l, ck_real value,
                               uint index) {
  values[l] = value;
  indices[l] = index;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint span = width / 2; span > 0; span >>= 1) {
    if (l < span &&
        ck_better(values[l + span], indices[l + span], values[l], indices[l])) {
      values[l] = values[l + span];
      indices[l] = indices[l + span];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* The (value, index) minimum of a work-group of CK_GROUP work-items. */
static void ck_best_group_minimum(__local ck_real *values,
                                  __local uint *indices, uint l, ck_real value,
                                  uint index) {
  ck_best_minimum_of(CK_GROUP, values, indices, l, value, index);
}

/*
 * Group g folds entries g*GROUP + l (stepping by the global size) of
 * values into a (value, index) minimum per work-item, then halves them in
 * local memory; work-item 0 writes the group's minimum.
 */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_best_reduce(__global const ck_real *values, uint count,
               __global ck_real *partial_values,
               __global uint *partial_indices) {
  CK_LOCAL ck_real local_values[CK_GROUP];
  CK_LOCAL uint local_indices[CK_GROUP];
  uint l = (uint)get_local_id(0);
  ck_real best = CK_R(CK_REAL_MAX);
  uint best_index = 0xFFFFFFFFu;
  for (uint i = (uint)get_global_id(0); i < count;
       i += (uint)get_global_size(0)) {
    if (ck_better(values[i], i, best, best_index)) {
      best = values[i];
      best_index = i;
    }
  }
  ck_best_group_minimum(local_values, local_indices, l, best, best_index);
  if (l == 0) {
    partial_values[get_group_id(0)] = local_values[0];
    partial_indices[get_group_id(0)] = local_indices[0];
  }
}

/*
 * One work-group. It folds count (value, index) candidates: the partial
 * results of ck_best_reduce, or, when direct is 1, the values themselves
 * (index = position). If the winner beats the global best, the
 * group copies that candidate's vector (dimension-major, stride n) into
 * best_vector (work-item l takes dimensions l, l + GROUP, ...). Work-item 0
 * records the global best value in history[slot], and raises done once it is at
 * or below the target.
 */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_best_update(__global const ck_real *candidate_values,
               __global const uint *candidate_indices, uint count, uint direct,
               uint n, int dim, __global const ck_real *vectors,
               __global ck_real *best_value, __global uint *best_index,
               __global ck_real *best_vector, __global ck_real *history,
               uint slot, ck_real target, uint has_target,
               __global uint *done) {
  CK_LOCAL ck_real local_values[CK_GROUP];
  CK_LOCAL uint local_indices[CK_GROUP];
  CK_LOCAL uint improved;
  uint l = (uint)get_local_id(0);
  ck_real best = CK_R(CK_REAL_MAX);
  uint winner = 0xFFFFFFFFu;
  for (uint i = l; i < count; i += CK_GROUP) {
    uint index = direct ? i : candidate_indices[i];
    if (ck_better(candidate_values[i], index, best, winner)) {
      best = candidate_values[i];
      winner = index;
    }
  }
  ck_best_group_minimum(local_values, local_indices, l, best, winner);
  if (l == 0)
    improved = local_values[0] < best_value[0] ? 1u : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (improved) {
    uint chosen = local_indices[0];
    for (int d = (int)l; d < dim; d += CK_GROUP)
      best_vector[d] = vectors[(ulong)d * n + chosen];
  }
  if (l == 0) {
    if (improved) {
      best_value[0] = local_values[0];
      best_index[0] = local_indices[0];
    }
    ck_real current = improved ? local_values[0] : best_value[0];
    history[slot] = current;
    if (has_target && current <= target)
      done[0] = 1u;
  }
}
#endif /* CK_OPENCL_C */

#endif /* CK_BEST_H */
