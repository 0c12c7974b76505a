/*
 * ck_evaluate.h - evaluation kernels for objectives that are not streamed
 * with a move: least squares over data, and user objectives. Shared by the
 * optimisers; each writes values[p] for the points x (dimension-major,
 * element (d, p) at d * n + p). A set done[0] skips the work.
 *
 * Build-time defines: CK_OBJECTIVE, CK_GROUP (a power of two), CK_DIM
 * (sizes private and local copies of a point; for lsq, the data's
 * dimension), CK_USER_DATA (1 when the user objective takes a data
 * pointer), CK_LSQ_LANES (points a work-item of lsq's vector mode: 1
 * leaves that kernel out; else 2, 4, 8 or 16). A user objective is placed
 * before the program that includes this header.
 */
#ifndef CK_EVALUATE_H
#define CK_EVALUATE_H

#include "ck_best.h"
#include "ck_objectives.h"

/* Least squares in group mode cuts the rows into `chunks` ranges: chunk's
 * is [*start, *end). */
CK_FN void ck_lsq_chunk(ck_u32 rows, ck_u32 chunks, ck_u32 chunk, ck_u32 *start,
                        ck_u32 *end) {
  ck_u32 per_chunk = (rows + chunks - 1) / chunks;
  *start = chunk * per_chunk;
  *end = rows < *start + per_chunk ? rows : *start + per_chunk;
}

#if defined(CK_OPENCL_C) && CK_OBJECTIVE == CK_OBJECTIVE_USER
/* Work-item p evaluates the user's objective at point p (copied into
 * private memory, as its signature asks) into values[p]. */
__kernel void ck_evaluate_user(uint n, int dim, __global const ck_real *x,
                               __global ck_real *values,
                               __global const float *data,
                               __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  float position[CK_DIM];
  for (int d = 0; d < dim; ++d)
    position[d] = (float)x[(ulong)d * n + p];
#if CK_USER_DATA
  float value = objective(position, dim, data);
#else
  (void)data;
  float value = objective(position, dim);
#endif
  values[p] = ck_comparable((ck_real)value);
}
#endif

#if defined(CK_OPENCL_C) && CK_OBJECTIVE == CK_OBJECTIVE_LSQ
/*
 * Least squares over rows (a_j, b_j), data stored column-major: a_jk at
 * k * rows + j, b_j at dim * rows + j.
 *
 * Group mode, for few points: the rows are cut into `chunks` ranges and
 * work-group g sums the squared residuals of point g / chunks over range
 * g % chunks (work-item l takes rows start + l, start + l + GROUP, ...),
 * halving the sums in local memory; work-item 0 writes the partial sum.
 * ck_evaluate_lsq_finish then adds each point's partials in order.
 */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_evaluate_lsq_group(uint n, int dim, uint rows, uint chunks,
                      __global const ck_real *data, __global const ck_real *x,
                      __global ck_real *partial, __global const uint *done) {
  CK_LOCAL ck_real coefficients[CK_DIM];
  CK_LOCAL ck_real sums[CK_GROUP];
  uint group = (uint)get_group_id(0);
  uint p = group / chunks;
  uint chunk = group - p * chunks;
  uint l = (uint)get_local_id(0);
  if (done[0]) /* the same for the whole group: no barrier divergence */
    return;
  uint start, end;
  ck_lsq_chunk(rows, chunks, chunk, &start, &end);
  for (int k = (int)l; k < dim; k += CK_GROUP)
    coefficients[k] = x[(ulong)k * n + p];
  barrier(CLK_LOCAL_MEM_FENCE);
  ck_real sum = CK_R(0);
  for (uint j = start + l; j < end; j += CK_GROUP) {
    ck_real residual = data[(ulong)dim * rows + j];
    for (int k = 0; k < dim; ++k)
      residual -= coefficients[k] * data[(ulong)k * rows + j];
    sum += residual * residual;
  }
  sums[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_GROUP / 2; width > 0; width >>= 1) {
    if (l < width)
      sums[l] += sums[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    partial[(ulong)p * chunks + chunk] = sums[0];
}

/* Work-item p adds point p's partial sums into values[p]. */
__kernel void ck_evaluate_lsq_finish(uint n, uint chunks,
                                     __global const ck_real *partial,
                                     __global ck_real *values,
                                     __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  ck_real sum = CK_R(0);
  for (uint c = 0; c < chunks; ++c)
    sum += partial[(ulong)p * chunks + c];
  values[p] = ck_comparable(sum);
}

/* Thread mode, for many points: work-item p evaluates point p over every
 * row (neighbouring work-items read the same row at once). */
__kernel void ck_evaluate_lsq_thread(uint n, int dim, uint rows,
                                     __global const ck_real *data,
                                     __global const ck_real *x,
                                     __global ck_real *values,
                                     __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  ck_real coefficients[CK_DIM];
  for (int k = 0; k < dim; ++k)
    coefficients[k] = x[(ulong)k * n + p];
  ck_real sum = CK_R(0);
  for (uint j = 0; j < rows; ++j) {
    ck_real residual = data[(ulong)dim * rows + j];
    for (int k = 0; k < dim; ++k)
      residual -= coefficients[k] * data[(ulong)k * rows + j];
    sum += residual * residual;
  }
  values[p] = ck_comparable(sum);
}

#if defined(CK_LANG_OPENCL) && defined(CK_LSQ_LANES) && CK_LSQ_LANES > 1
#define CK_LSQ_PASTE_(a, b) a##b
#define CK_LSQ_PASTE(a, b) CK_LSQ_PASTE_(a, b)
#if CK_REAL_DOUBLE
#define CK_LSQ_VECTOR CK_LSQ_PASTE(double, CK_LSQ_LANES)
#else
#define CK_LSQ_VECTOR CK_LSQ_PASTE(float, CK_LSQ_LANES)
#endif
/*
 * Vector mode, for many points on CPUs: work-item i evaluates points
 * i * CK_LSQ_LANES + q (q < CK_LSQ_LANES) as the lanes of one vector, so
 * that a row is read once for all its lanes and every operation fills a
 * vector register. A work-item per point, as in thread mode, runs as
 * scalar code there, since the loop over rows sits inside the loop over
 * work-items that a CPU compiler vectorises. Each lane sums its point's
 * rows in order, as thread mode and ref do: the same bits. Lanes past n
 * compute on zeros and are not written.
 */
__kernel void ck_evaluate_lsq_vector(uint n, int dim, uint rows,
                                     __global const ck_real *data,
                                     __global const ck_real *x,
                                     __global ck_real *values,
                                     __global const uint *done) {
  uint first = (uint)get_global_id(0) * CK_LSQ_LANES;
  (void)dim; /* CK_DIM, known at build time, bounds the unrolled loops */
  if (first >= n || done[0])
    return;
  ck_real lanes[CK_LSQ_LANES];
  CK_LSQ_VECTOR coefficients[CK_DIM];
  for (int k = 0; k < CK_DIM; ++k) {
    for (uint q = 0; q < CK_LSQ_LANES; ++q)
      lanes[q] = first + q < n ? x[(ulong)k * n + first + q] : CK_R(0);
    coefficients[k] = CK_LSQ_PASTE(vload, CK_LSQ_LANES)(0, lanes);
  }
  CK_LSQ_VECTOR sum = (CK_LSQ_VECTOR)(CK_R(0));
  for (uint j = 0; j < rows; ++j) {
    CK_LSQ_VECTOR residual = (CK_LSQ_VECTOR)(data[(ulong)CK_DIM * rows + j]);
    for (int k = 0; k < CK_DIM; ++k)
      residual -= coefficients[k] * data[(ulong)k * rows + j];
    sum += residual * residual;
  }
  CK_LSQ_PASTE(vstore, CK_LSQ_LANES)(sum, 0, lanes);
  for (uint q = 0; q < CK_LSQ_LANES && first + q < n; ++q)
    values[first + q] = ck_comparable(lanes[q]);
}
#endif /* vector mode */
#endif

#endif /* CK_EVALUATE_H */
