/*
 * lsq.cu - the native CUDA evaluation of least-squares objectives: the
 * kernels of ck_evaluate.h's lsq part, with the same names, arguments and
 * results, so that ck__evaluation_create() takes them from this program
 * in place of the OpenCL ones. Rows (a_j, b_j) are stored column-major:
 * a_jk at k * rows + j, b_j at dim * rows + j; points dimension-major.
 *
 * What differs from the OpenCL kernels: a block's sums meet by warp
 * shuffles and one exchange through shared memory instead of a halving
 * tree with a barrier a level, and the read-only data goes through the
 * read-only cache.
 *
 * Build-time defines: CK_DIM, CK_GROUP (a multiple of the warp width up
 * to 1024),
 * CK_REAL_DOUBLE.
 */
#define CK_CUDA_NATIVE 1
#include "ck_evaluate.h"
#include "ck_warp.h"

#if !defined(CK_DIM) || !defined(CK_GROUP)
#error "lsq.cu needs CK_DIM and CK_GROUP"
#endif

#define WARPS (CK_GROUP / CK_WARP_WIDTH)

/* The squared residuals of rows j = first, first + stride, ... < end for
 * the point whose coefficients are given. */
static __device__ ck_real squared_residuals(int dim, unsigned rows,
                                            unsigned first, unsigned end,
                                            unsigned stride,
                                            const ck_real *coefficients,
                                            const ck_real *__restrict__ data) {
  ck_real sum = CK_R(0);
#pragma unroll 1
  for (unsigned j = first; j < end; j += stride) {
    ck_real residual = __ldg(data + (size_t)dim * rows + j);
#pragma unroll
    for (int k = 0; k < dim; ++k)
      residual -= coefficients[k] * __ldg(data + (size_t)k * rows + j);
    sum += residual * residual;
  }
  return sum;
}

/*
 * Group mode: block g sums point g / chunks over row range g % chunks
 * (thread l takes rows start + l, start + l + GROUP, ...); each warp adds
 * its lanes' sums by shuffles, and the first warp adds the warps'.
 * Thread 0 writes the partial sum; ck_evaluate_lsq_finish adds a point's
 * partials in order.
 */
extern "C" __global__ void __launch_bounds__(CK_GROUP)
    ck_evaluate_lsq_group(unsigned n, int dim, unsigned rows, unsigned chunks,
                          const ck_real *__restrict__ data,
                          const ck_real *__restrict__ x, ck_real *partial,
                          const unsigned *done) {
  __shared__ ck_real coefficients[CK_DIM];
  __shared__ ck_real warp_sums[WARPS];
  unsigned group = blockIdx.x, p = group / chunks, chunk = group - p * chunks;
  unsigned l = threadIdx.x, lane = l % CK_WARP_WIDTH, warp = l / CK_WARP_WIDTH;
  if (*done) /* the same for the whole grid */
    return;
  ck_u32 start, end;
  ck_lsq_chunk(rows, chunks, chunk, &start, &end);
  for (int k = (int)l; k < dim; k += CK_GROUP)
    coefficients[k] = x[(size_t)k * n + p];
  __syncthreads();
  ck_real sum = squared_residuals(dim, rows, start + l, end, CK_GROUP,
                                  coefficients, data);
  sum = ck_warp_sum(sum);
  if (lane == 0)
    warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < WARPS ? warp_sums[lane] : CK_R(0);
    sum = ck_warp_sum(sum);
    if (lane == 0)
      partial[(size_t)p * chunks + chunk] = sum;
  }
}

/* Thread p adds point p's partial sums into values[p]. */
extern "C" __global__ void ck_evaluate_lsq_finish(unsigned n, unsigned chunks,
                                                  const ck_real *partial,
                                                  ck_real *values,
                                                  const unsigned *done) {
  unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n || *done)
    return;
  ck_real sum = CK_R(0);
  for (unsigned c = 0; c < chunks; ++c)
    sum += partial[(size_t)p * chunks + c];
  values[p] = ck_comparable(sum);
}

/* Thread mode, for many points: thread p evaluates point p over every
 * row, its coefficients in registers; a warp's threads read the same row
 * at once, one broadcast load each. */
extern "C" __global__ void ck_evaluate_lsq_thread(
    unsigned n, int dim, unsigned rows, const ck_real *__restrict__ data,
    const ck_real *__restrict__ x, ck_real *values, const unsigned *done) {
  unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n || *done)
    return;
  ck_real coefficients[CK_DIM];
  /* CK_DIM is dim; as a constant it keeps the array in registers. */
  (void)dim;
#pragma unroll
  for (int k = 0; k < CK_DIM; ++k)
    coefficients[k] = x[(size_t)k * n + p];
  values[p] = ck_comparable(
      squared_residuals(CK_DIM, rows, 0, rows, 1, coefficients, data));
}
