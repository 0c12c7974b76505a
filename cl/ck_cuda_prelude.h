/*
 * ck_cuda_prelude.h - OpenCL C 1.2, as clkit's kernels use it, spelled in
 * CUDA C++, so that the cl/ sources also build for CUDA devices (through
 * NVRTC, at run time, with the same defines as for OpenCL). The CUDA
 * backend puts this text before a program's assembled source; it is never
 * included by OpenCL or host code.
 *
 * One spelling needs the sources' help: OpenCL's __local means shared
 * memory in a declaration but only a pointer's address space in a
 * parameter, and CUDA has no qualifier for the second. Kernels therefore
 * declare local arrays with CK_LOCAL (ck_prelude.h), and __local is left
 * for pointers, where it means nothing here. Vector literals such as
 * (float2)(x, y) have no CUDA spelling and are not used in shared code.
 *
 * Work-item functions map to the grid as OpenCL maps NDRanges to groups:
 * the backend launches global / local blocks of local threads, so the
 * global size is always a whole number of blocks.
 */
#ifndef CK_CUDA_PRELUDE_H
#define CK_CUDA_PRELUDE_H

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef unsigned long size_t;

#define __kernel extern "C" __global__
#define __global
#define __local
#define __private
#define __constant const
#define restrict __restrict__
/* reqd_work_group_size(x, 1, 1) becomes CUDA's launch bound. */
#define reqd_work_group_size(x, y, z) launch_bounds((x) * (y) * (z))

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()

static __device__ __forceinline__ size_t ck__pick(unsigned dimension,
                                                  unsigned x, unsigned y,
                                                  unsigned z) {
  return dimension == 0 ? x : dimension == 1 ? y : z;
}
#define get_local_id(d) ck__pick((d), threadIdx.x, threadIdx.y, threadIdx.z)
#define get_group_id(d) ck__pick((d), blockIdx.x, blockIdx.y, blockIdx.z)
#define get_local_size(d) ck__pick((d), blockDim.x, blockDim.y, blockDim.z)
#define get_num_groups(d) ck__pick((d), gridDim.x, gridDim.y, gridDim.z)
#define get_global_id(d) (get_group_id(d) * get_local_size(d) + get_local_id(d))
#define get_global_size(d) (get_num_groups(d) * get_local_size(d))

/* Atomics: OpenCL's names over CUDA's, for the 32-bit integers used. */
#define CK__ATOMIC(name, cuda, type)                                           \
  static __device__ __forceinline__ type name(volatile type *p, type v) {      \
    return cuda((type *)p, v);                                                 \
  }
CK__ATOMIC(atomic_add, atomicAdd, unsigned)
CK__ATOMIC(atomic_add, atomicAdd, int)
CK__ATOMIC(atomic_or, atomicOr, unsigned)
CK__ATOMIC(atomic_and, atomicAnd, unsigned)
CK__ATOMIC(atomic_min, atomicMin, unsigned)
CK__ATOMIC(atomic_min, atomicMin, int)
CK__ATOMIC(atomic_max, atomicMax, unsigned)
CK__ATOMIC(atomic_max, atomicMax, int)
#undef CK__ATOMIC
#define atomic_inc(p) atomic_add((p), 1u)

/* OpenCL's mad is a fused multiply-add on NVIDIA: the same here, whatever
 * the program's contraction. */
#define mad(a, b, c) fma(a, b, c)
#define mul_hi(a, b) __umulhi((a), (b))
#define native_recip(x) __fdividef(1.0f, (x))
#define native_log(x) __logf(x)
#define native_exp(x) __expf(x)

template <typename T, typename C>
static __device__ __forceinline__ T select(T a, T b, C c) {
  return c ? b : a;
}
#define clamp(x, low, high) min(max((x), (low)), (high))

/* The two-component vectors the gas stages in local memory. */
static __device__ __forceinline__ float2 vload2(size_t i, const float *p) {
  return make_float2(p[2 * i], p[2 * i + 1]);
}
static __device__ __forceinline__ double2 vload2(size_t i, const double *p) {
  return make_double2(p[2 * i], p[2 * i + 1]);
}

#pragma nv_diag_suppress 177 /* a static helper a program does not call */
#pragma nv_diag_suppress 550 /* a variable set for one build variant only */

#endif /* CK_CUDA_PRELUDE_H */
