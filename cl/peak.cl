/*
 * peak.cl - a device's peaks, measured (src/runtime/peak.c, clkit peak):
 * multiply-add rates in single and double precision, global memory
 * bandwidth (read, write, copy) and kernel launch latency.
 * bench/bench_gas.c sets the gas kernels' arithmetic against ck_peak_fma.
 *
 * Build-time defines (chosen by the host):
 *   CK_PEAK_WIDTH        lanes of every vector: 1 (scalars), 2, 4, 8 or
 *                        16. CUDA spells no vector arithmetic and no
 *                        8- or 16-lane vectors: there the memory kernels
 *                        take 1, 2 or 4, and the multiply-add kernels 1.
 *   CK_PEAK_ITERATIONS   rounds of the multiply-add kernels (a multiple
 *                        of 4)
 *
 * Multiply-adds: a work-item holds CK_PEAK_ACCUMULATORS (8) accumulators
 * of CK_PEAK_WIDTH lanes (peak_fma.inc). Each round is one multiply-add
 * on each accumulator, none waiting on another; flops a work-item are
 * 2 x CK_PEAK_ACCUMULATORS x CK_PEAK_WIDTH x CK_PEAK_ITERATIONS. mad lets
 * each compiler use its fastest multiply-add: a fused FMA on GPUs and on
 * CPUs that have one. The _chain kernels run the same multiply-adds as
 * one dependent chain a work-item, as clpeak's kernels do.
 *
 * Memory: a work-item reads, writes or copies CK_PEAK_FETCHES (16)
 * vectors, in one of two layouts (as clpeak's kernels do):
 *   _block  a work-group's vectors are one block; the work-item's are a
 *           work-group apart within it
 *   _grid   the work-item's vectors are the whole grid apart
 * In both, neighbouring work-items touch neighbouring vectors: coalesced
 * on GPUs, and one SIMD load on CPUs that run work-items in lanes.
 */
#include "ck_prelude.h"

#if !defined(CK_PEAK_ITERATIONS) || !defined(CK_PEAK_WIDTH)
#error "peak.cl needs CK_PEAK_ITERATIONS and CK_PEAK_WIDTH"
#endif
#if CK_PEAK_ITERATIONS % 4 != 0
#error "CK_PEAK_ITERATIONS must be a multiple of 4"
#endif
#if CK_PEAK_WIDTH != 1 && CK_PEAK_WIDTH != 2 && CK_PEAK_WIDTH != 4 &&          \
    CK_PEAK_WIDTH != 8 && CK_PEAK_WIDTH != 16
#error "CK_PEAK_WIDTH must be 1, 2, 4, 8 or 16"
#endif
#if defined(CK_LANG_CUDA) && CK_PEAK_WIDTH > 4
#error "CUDA has no vectors of more than 4 floats"
#endif

#define CK_PEAK_ACCUMULATORS 8
#define CK_PEAK_FETCHES 16

/* A vector's lanes summed: halves added until two lanes are left. The
 * two- and four-lane forms spell the lanes as CUDA's vectors do too. */
#define CK_PEAK_SUM2(v) ((v).x + (v).y)
#define CK_PEAK_SUM4(v) (((v).x + (v).y) + ((v).z + (v).w))
#define CK_PEAK_SUM8(v) CK_PEAK_SUM4((v).lo + (v).hi)
#define CK_PEAK_SUM16(v) CK_PEAK_SUM8((v).lo + (v).hi)

/* ---- Memory ---------------------------------------------------------- */

/* ck_peak_floats: CK_PEAK_WIDTH floats, with CK_PEAK_SPLAT (every lane
 * one value), CK_PEAK_ADD and CK_PEAK_FLOATS_SUM. */
#if CK_PEAK_WIDTH == 1
typedef float ck_peak_floats;
#define CK_PEAK_FLOATS_SUM(v) (v)
#elif CK_PEAK_WIDTH == 2
typedef float2 ck_peak_floats;
#define CK_PEAK_FLOATS_SUM(v) CK_PEAK_SUM2(v)
#elif CK_PEAK_WIDTH == 4
typedef float4 ck_peak_floats;
#define CK_PEAK_FLOATS_SUM(v) CK_PEAK_SUM4(v)
#elif CK_PEAK_WIDTH == 8
typedef float8 ck_peak_floats;
#define CK_PEAK_FLOATS_SUM(v) CK_PEAK_SUM8(v)
#else
typedef float16 ck_peak_floats;
#define CK_PEAK_FLOATS_SUM(v) CK_PEAK_SUM16(v)
#endif

#if defined(CK_LANG_CUDA)
static __device__ __forceinline__ float ck_peak_add(float a, float b) {
  return a + b;
}
static __device__ __forceinline__ float2 ck_peak_add(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
static __device__ __forceinline__ float4 ck_peak_add(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
#define CK_PEAK_ADD(a, b) ck_peak_add((a), (b))
#if CK_PEAK_WIDTH == 1
#define CK_PEAK_SPLAT(x) (x)
#elif CK_PEAK_WIDTH == 2
#define CK_PEAK_SPLAT(x) make_float2((x), (x))
#else
#define CK_PEAK_SPLAT(x) make_float4((x), (x), (x), (x))
#endif
#else
#define CK_PEAK_ADD(a, b) ((a) + (b))
#define CK_PEAK_SPLAT(x) ((ck_peak_floats)(x))
#endif

/* Where a work-item's first vector is, and how far its next ones are. */
#define CK_PEAK_BLOCK_FIRST                                                    \
  (get_group_id(0) * get_local_size(0) * CK_PEAK_FETCHES + get_local_id(0))
#define CK_PEAK_BLOCK_STEP get_local_size(0)
#define CK_PEAK_GRID_FIRST get_global_id(0)
#define CK_PEAK_GRID_STEP get_global_size(0)

/* Reads: the sum of a work-item's vectors goes to out[work-item], so that
 * the loads cannot be dropped (and the host checks one sum). */
#define CK_PEAK_READ(name, first, step)                                        \
  __kernel void name(__global const ck_peak_floats *in, __global float *out) { \
    size_t at = first, stride = step;                                          \
    ck_peak_floats sum = in[at];                                               \
    for (uint k = 1; k < CK_PEAK_FETCHES; ++k)                                 \
      sum = CK_PEAK_ADD(sum, in[at + k * stride]);                             \
    out[get_global_id(0)] = CK_PEAK_FLOATS_SUM(sum);                           \
  }

#define CK_PEAK_WRITE(name, first, step)                                       \
  __kernel void name(__global ck_peak_floats *out, float value) {              \
    size_t at = first, stride = step;                                          \
    ck_peak_floats lanes = CK_PEAK_SPLAT(value);                               \
    for (uint k = 0; k < CK_PEAK_FETCHES; ++k)                                 \
      out[at + k * stride] = lanes;                                            \
  }

#define CK_PEAK_COPY(name, first, step)                                        \
  __kernel void name(__global const ck_peak_floats *in,                        \
                     __global ck_peak_floats *out) {                           \
    size_t at = first, stride = step;                                          \
    for (uint k = 0; k < CK_PEAK_FETCHES; ++k)                                 \
      out[at + k * stride] = in[at + k * stride];                              \
  }

CK_PEAK_READ(ck_peak_read_block, CK_PEAK_BLOCK_FIRST, CK_PEAK_BLOCK_STEP)
CK_PEAK_READ(ck_peak_read_grid, CK_PEAK_GRID_FIRST, CK_PEAK_GRID_STEP)
CK_PEAK_WRITE(ck_peak_write_block, CK_PEAK_BLOCK_FIRST, CK_PEAK_BLOCK_STEP)
CK_PEAK_WRITE(ck_peak_write_grid, CK_PEAK_GRID_FIRST, CK_PEAK_GRID_STEP)
CK_PEAK_COPY(ck_peak_copy_block, CK_PEAK_BLOCK_FIRST, CK_PEAK_BLOCK_STEP)
CK_PEAK_COPY(ck_peak_copy_grid, CK_PEAK_GRID_FIRST, CK_PEAK_GRID_STEP)

/* ---- Launch latency ------------------------------------------------------ */

/* Nothing to do: what a launch costs beyond its work. */
__kernel void ck_peak_launch(__global float *out) {
  (void)out;
}

/* ---- Multiply-adds ------------------------------------------------------- */

#if CK_PEAK_WIDTH == 1 || !defined(CK_LANG_CUDA)

/* Lane values 0, 1, 2, ... as literals of a type: suffix f or nothing. */
#define CK_PEAK_LANES2(s) 0.0##s, 1.0##s
#define CK_PEAK_LANES4(s) CK_PEAK_LANES2(s), 2.0##s, 3.0##s
#define CK_PEAK_LANES8(s) CK_PEAK_LANES4(s), 4.0##s, 5.0##s, 6.0##s, 7.0##s
#define CK_PEAK_LANES16(s)                                                     \
  CK_PEAK_LANES8(s), 8.0##s, 9.0##s, 10.0##s, 11.0##s, 12.0##s, 13.0##s,       \
      14.0##s, 15.0##s

#if CK_PEAK_WIDTH == 1
#define CK_PEAK_VECTOR_SUM(v) (v)
#define CK_PEAK_LANES(type, s) ((type)0)
#elif CK_PEAK_WIDTH == 2
#define CK_PEAK_VECTOR_SUM(v) CK_PEAK_SUM2(v)
#define CK_PEAK_LANES(type, s) ((type)(CK_PEAK_LANES2(s)))
#elif CK_PEAK_WIDTH == 4
#define CK_PEAK_VECTOR_SUM(v) CK_PEAK_SUM4(v)
#define CK_PEAK_LANES(type, s) ((type)(CK_PEAK_LANES4(s)))
#elif CK_PEAK_WIDTH == 8
#define CK_PEAK_VECTOR_SUM(v) CK_PEAK_SUM8(v)
#define CK_PEAK_LANES(type, s) ((type)(CK_PEAK_LANES8(s)))
#else
#define CK_PEAK_VECTOR_SUM(v) CK_PEAK_SUM16(v)
#define CK_PEAK_LANES(type, s) ((type)(CK_PEAK_LANES16(s)))
#endif

/* Pastes a type's name and the width: float4, double16. */
#define CK_PEAK_PASTE(a, b) a##b
#define CK_PEAK_TYPE(a, b) CK_PEAK_PASTE(a, b)
#if CK_PEAK_WIDTH == 1
#define CK_PEAK_OF(scalar) scalar
#else
#define CK_PEAK_OF(scalar) CK_PEAK_TYPE(scalar, CK_PEAK_WIDTH)
#endif

#define CK_PEAK_FMA_NAME ck_peak_fma
#define CK_PEAK_CHAIN_NAME ck_peak_chain
#define CK_PEAK_REAL float
#define CK_PEAK_VECTOR CK_PEAK_OF(float)
#define CK_PEAK_LITERAL(x) x##f
#define CK_PEAK_LANE_VALUES CK_PEAK_LANES(CK_PEAK_VECTOR, f)
#include "peak_fma.inc"

#if CK_HAS_FP64
#define CK_PEAK_FMA_NAME ck_peak_fma_fp64
#define CK_PEAK_CHAIN_NAME ck_peak_chain_fp64
#define CK_PEAK_REAL double
#define CK_PEAK_VECTOR CK_PEAK_OF(double)
#define CK_PEAK_LITERAL(x) x
#define CK_PEAK_LANE_VALUES CK_PEAK_LANES(CK_PEAK_VECTOR, )
#include "peak_fma.inc"
#endif

#endif
