/*
 * pso.cl - particle swarm optimisation kernels. Their ref twins are the
 * ref steps in src/pso/pso_ref.c, which call the same ck_pso.h functions.
 *
 * Build-time defines (chosen per run and device by src/pso/pso.c):
 *   CK_OBJECTIVE     an id of ck_objectives.h
 *   CK_PSO_BOUNDS    CK_BOUNDS_CLAMP, _REFLECT or _RANDOM
 *   CK_PSO_RING      1 for the lbest ring topology, 0 for gbest
 *   CK_PSO_GROUP     work-group size of the reductions (a power of two)
 *   CK_PSO_DIM       the dimension (sizes private arrays of user and lsq
 *                    evaluation)
 *   CK_PSO_USER_DATA 1 when the user objective takes a data pointer
 *   CK_REAL_DOUBLE   0 or 1
 * A user objective, when there is one, is placed before this file.
 */
#include "ck_pso.h"

#if !defined(CK_OBJECTIVE) || !defined(CK_PSO_BOUNDS) || \
    !defined(CK_PSO_RING) || !defined(CK_PSO_GROUP) || !defined(CK_PSO_DIM)
#error "pso.cl needs CK_OBJECTIVE, CK_PSO_BOUNDS, CK_PSO_RING, CK_PSO_GROUP and CK_PSO_DIM"
#endif

#define CK_PSO_STREAMED (CK_OBJECTIVE < CK_OBJECTIVE_STREAMED_COUNT)

/* Work-item p initialises particle p; streamed objectives are evaluated
 * here, the others by an evaluation kernel that runs next. */
__kernel void ck_pso_initialise(uint n, int dim, ulong seed,
                                ck_real velocity_init,
                                __global const ck_real *lo,
                                __global const ck_real *hi,
                                __global const ck_real *vmax,
                                __global ck_real *x, __global ck_real *v,
                                __global ck_real *pbest,
                                __global ck_real *pbest_value) {
  uint p = (uint)get_global_id(0);
  if (p >= n)
    return;
  ck_real value = ck_pso_initialise_particle(CK_OBJECTIVE, p, n, dim, seed, lo,
                                             hi, vmax, velocity_init, x, v,
                                             pbest);
  pbest_value[p] = CK_PSO_STREAMED ? ck_pso_comparable(value)
                                   : CK_R(CK_REAL_MAX);
}

/* Work-item p finds the best personal best among its ring neighbours. */
__kernel void ck_pso_neighbours(uint n, uint k,
                                __global const ck_real *pbest_value,
                                __global uint *neighbour,
                                __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p < n && !done[0])
    neighbour[p] = ck_pso_ring_best(p, n, k, pbest_value);
}

/*
 * Work-item p moves particle p and, for streamed objectives, evaluates it
 * in the same pass. With gbest it also keeps its personal best at once;
 * with the ring, neighbours read personal bests during this launch, so the
 * value goes to values[p] and ck_pso_keep_best updates them afterwards.
 */
__kernel void ck_pso_move(uint n, int dim, ulong seed, ulong iteration,
                          ck_real w, ck_real c1, ck_real c2,
                          __global const ck_real *lo,
                          __global const ck_real *hi,
                          __global const ck_real *vmax, __global ck_real *x,
                          __global ck_real *v, __global ck_real *pbest,
                          __global ck_real *pbest_value,
                          __global const ck_real *gbest,
                          __global const uint *neighbour,
                          __global const uint *done,
                          __global ck_real *values) {
  uint p = (uint)get_global_id(0);
  /* Once the target is met, the remaining launches of a batch do nothing. */
  if (p >= n || done[0])
    return;
#if CK_PSO_RING
  __global const ck_real *guide = pbest;
  uint guide_index = neighbour[p], guide_stride = n;
#else
  __global const ck_real *guide = gbest;
  uint guide_index = 0, guide_stride = 1;
#endif
  ck_real value = ck_pso_move_particle(
      CK_OBJECTIVE, CK_PSO_BOUNDS, p, n, dim, seed, iteration, w, c1, c2, lo,
      hi, vmax, x, v, pbest, guide, guide_index, guide_stride);
#if CK_PSO_STREAMED && CK_PSO_RING
  values[p] = ck_pso_comparable(value);
  (void)pbest_value;
#elif CK_PSO_STREAMED
  ck_pso_keep_best(p, n, dim, ck_pso_comparable(value), pbest_value, x, pbest);
  (void)values;
#else
  (void)value;
  (void)values;
  (void)pbest_value;
#endif
}

/* Work-item p keeps particle p's new position as its personal best if
 * values[p] beats it (the ring's second half of a move). */
__kernel void ck_pso_keep(uint n, int dim, __global const ck_real *values,
                               __global ck_real *pbest_value,
                               __global const ck_real *x,
                               __global ck_real *pbest,
                               __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p < n && !done[0])
    ck_pso_keep_best(p, n, dim, values[p], pbest_value, x, pbest);
}

/*
 * The work-group's (value, index) minimum: work-item l offers its
 * candidate; the group halves the candidates in local memory until entry
 * 0 holds the minimum, visible to every work-item on return.
 */
static void ck_pso_group_minimum(__local ck_real *values, __local uint *indices,
                                 uint l, ck_real value, uint index) {
  values[l] = value;
  indices[l] = index;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_PSO_GROUP / 2; width > 0; width >>= 1) {
    if (l < width &&
        ck_pso_better(values[l + width], indices[l + width], values[l],
                      indices[l])) {
      values[l] = values[l + width];
      indices[l] = indices[l + width];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/*
 * Group g folds entries g*GROUP + l (stepping by the global size) of
 * values into a (value, index) minimum per work-item, then halves them in
 * local memory; work-item 0 writes the group's minimum.
 */
__kernel __attribute__((reqd_work_group_size(CK_PSO_GROUP, 1, 1)))
void ck_pso_reduce(__global const ck_real *values, uint count,
                   __global ck_real *partial_values,
                   __global uint *partial_indices) {
  __local ck_real local_values[CK_PSO_GROUP];
  __local uint local_indices[CK_PSO_GROUP];
  uint l = (uint)get_local_id(0);
  ck_real best = CK_R(CK_REAL_MAX);
  uint best_index = 0xFFFFFFFFu;
  for (uint i = (uint)get_global_id(0); i < count;
       i += (uint)get_global_size(0)) {
    if (ck_pso_better(values[i], i, best, best_index)) {
      best = values[i];
      best_index = i;
    }
  }
  ck_pso_group_minimum(local_values, local_indices, l, best, best_index);
  if (l == 0) {
    partial_values[get_group_id(0)] = local_values[0];
    partial_indices[get_group_id(0)] = local_indices[0];
  }
}

/*
 * One work-group. It folds count (value, index) candidates: the partial
 * results of ck_pso_reduce, or, when direct is 1, the personal-best values
 * themselves (index = position). If the winner beats the global best, the
 * group copies that particle's personal best into gbest (work-item l takes
 * dimensions l, l + GROUP, ...). Work-item 0 records the global best value
 * in history[slot], and raises done once it is at or below the target.
 */
__kernel __attribute__((reqd_work_group_size(CK_PSO_GROUP, 1, 1)))
void ck_pso_update_best(__global const ck_real *candidate_values,
                        __global const uint *candidate_indices, uint count,
                        uint direct, uint n, int dim,
                        __global const ck_real *pbest,
                        __global ck_real *best_value,
                        __global uint *best_index, __global ck_real *gbest,
                        __global ck_real *history, uint slot,
                        ck_real target, uint has_target,
                        __global uint *done) {
  __local ck_real local_values[CK_PSO_GROUP];
  __local uint local_indices[CK_PSO_GROUP];
  __local uint improved;
  uint l = (uint)get_local_id(0);
  ck_real best = CK_R(CK_REAL_MAX);
  uint winner = 0xFFFFFFFFu;
  for (uint i = l; i < count; i += CK_PSO_GROUP) {
    uint index = direct ? i : candidate_indices[i];
    if (ck_pso_better(candidate_values[i], index, best, winner)) {
      best = candidate_values[i];
      winner = index;
    }
  }
  ck_pso_group_minimum(local_values, local_indices, l, best, winner);
  if (l == 0)
    improved = local_values[0] < best_value[0] ? 1u : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (improved) {
    uint chosen = local_indices[0];
    for (int d = (int)l; d < dim; d += CK_PSO_GROUP)
      gbest[d] = pbest[(ulong)d * n + chosen];
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

#if CK_OBJECTIVE == CK_OBJECTIVE_USER
/* Work-item p evaluates the user's objective at particle p's position
 * (copied into private memory, as its signature asks) and keeps its
 * personal best. */
__kernel void ck_pso_evaluate_user(uint n, int dim, __global const ck_real *x,
                                   __global ck_real *pbest,
                                   __global ck_real *pbest_value,
                                   __global const float *data,
                                   __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  float position[CK_PSO_DIM];
  for (int d = 0; d < dim; ++d)
    position[d] = (float)x[(ulong)d * n + p];
#if CK_PSO_USER_DATA
  float value = objective(position, dim, data);
#else
  (void)data;
  float value = objective(position, dim);
#endif
  ck_pso_keep_best(p, n, dim, ck_pso_comparable((ck_real)value), pbest_value,
                   x, pbest);
}
#endif

#if CK_OBJECTIVE == CK_OBJECTIVE_LSQ
/*
 * Least squares over rows (a_j, b_j), data stored column-major: a_jk at
 * k * rows + j, b_j at dim * rows + j.
 *
 * Group mode, for few particles: the rows are cut into `chunks` ranges and
 * work-group g sums the squared residuals of particle g / chunks over range
 * g % chunks (work-item l takes rows start + l, start + l + GROUP, ...),
 * halving the sums in local memory; work-item 0 writes the partial sum.
 * ck_pso_lsq_finish then adds each particle's partials in order.
 */
__kernel __attribute__((reqd_work_group_size(CK_PSO_GROUP, 1, 1)))
void ck_pso_lsq_group(uint n, int dim, uint rows, uint chunks,
                      __global const ck_real *data,
                      __global const ck_real *x, __global ck_real *partial,
                      __global const uint *done) {
  __local ck_real coefficients[CK_PSO_DIM];
  __local ck_real sums[CK_PSO_GROUP];
  uint group = (uint)get_group_id(0);
  uint p = group / chunks;
  uint chunk = group - p * chunks;
  uint l = (uint)get_local_id(0);
  if (done[0]) /* the same for the whole group: no barrier divergence */
    return;
  uint per_chunk = (rows + chunks - 1) / chunks;
  uint start = chunk * per_chunk;
  uint end = min(rows, start + per_chunk);
  for (int k = (int)l; k < dim; k += CK_PSO_GROUP)
    coefficients[k] = x[(ulong)k * n + p];
  barrier(CLK_LOCAL_MEM_FENCE);
  ck_real sum = CK_R(0);
  for (uint j = start + l; j < end; j += CK_PSO_GROUP) {
    ck_real residual = data[(ulong)dim * rows + j];
    for (int k = 0; k < dim; ++k)
      residual -= coefficients[k] * data[(ulong)k * rows + j];
    sum += residual * residual;
  }
  sums[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_PSO_GROUP / 2; width > 0; width >>= 1) {
    if (l < width)
      sums[l] += sums[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    partial[(ulong)p * chunks + chunk] = sums[0];
}

/* Work-item p adds particle p's partial sums and keeps its personal best. */
__kernel void ck_pso_lsq_finish(uint n, int dim, uint chunks,
                                __global const ck_real *partial,
                                __global const ck_real *x,
                                __global ck_real *pbest,
                                __global ck_real *pbest_value,
                                __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  ck_real sum = CK_R(0);
  for (uint c = 0; c < chunks; ++c)
    sum += partial[(ulong)p * chunks + c];
  ck_pso_keep_best(p, n, dim, ck_pso_comparable(sum), pbest_value, x, pbest);
}

/* Thread mode, for many particles: work-item p evaluates particle p over
 * every row (neighbouring work-items read the same row at once). */
__kernel void ck_pso_lsq_thread(uint n, int dim, uint rows,
                                __global const ck_real *data,
                                __global const ck_real *x,
                                __global ck_real *pbest,
                                __global ck_real *pbest_value,
                                __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  ck_real coefficients[CK_PSO_DIM];
  for (int k = 0; k < dim; ++k)
    coefficients[k] = x[(ulong)k * n + p];
  ck_real sum = CK_R(0);
  for (uint j = 0; j < rows; ++j) {
    ck_real residual = data[(ulong)dim * rows + j];
    for (int k = 0; k < dim; ++k)
      residual -= coefficients[k] * data[(ulong)k * rows + j];
    sum += residual * residual;
  }
  ck_pso_keep_best(p, n, dim, ck_pso_comparable(sum), pbest_value, x, pbest);
}
#endif
