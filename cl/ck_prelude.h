/*
 * ck_prelude.h - lets one source compile as OpenCL C 1.2, as CUDA and as
 * host C11. Every shared header in cl/ includes it first.
 *
 * It defines:
 *   CK_FN          qualifiers for a helper callable from kernels and host
 *   CK_GLOBAL      the address space of buffers (__global in OpenCL C)
 *   CK_LOCAL       declares a work-group's local array in a kernel
 *                  (__local in OpenCL C, __shared__ in CUDA); pointers to
 *                  local memory keep OpenCL's __local
 *   ck_u32/ck_u64  fixed-width unsigned integers
 *   ck_u8/ck_i64   a byte and a 64-bit signed integer
 *   CK_HAS_FP64    1 where double is usable (the host sets it per device)
 *   CK_OPENCL_C    1 where the text is compiled as OpenCL C: by an OpenCL
 *                  compiler, or by NVRTC after ck_cuda_prelude.h (but not
 *                  in a native CUDA program, which defines
 *                  CK_CUDA_NATIVE); shared headers keep their kernels
 *                  under it
 *   CK_UNROLL      before a loop that kernels want unrolled (nothing in C)
 *   sqrtf, logf, sinf, cosf, expf, fabsf, floorf, powf
 *                  available under their C names in every language
 */
#ifndef CK_PRELUDE_H
#define CK_PRELUDE_H

#if defined(__OPENCL_VERSION__)
#define CK_LANG_OPENCL 1
#define CK_OPENCL_C 1
#define CK_FN static inline
#define CK_GLOBAL __global
#define CK_LOCAL __local
typedef uint ck_u32;
typedef ulong ck_u64;
typedef uchar ck_u8;
typedef long ck_i64;
#ifndef CK_HAS_FP64
#define CK_HAS_FP64 0
#endif
#if CK_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* OpenCL C spells the float overloads without the f suffix. */
#define sqrtf(x) sqrt(x)
#define logf(x) log(x)
#define sinf(x) sin(x)
#define cosf(x) cos(x)
#define expf(x) exp(x)
#define fabsf(x) fabs(x)
#define floorf(x) floor(x)
#define powf(x, y) pow(x, y)
#define CK_MULHI32(a, b) mul_hi((ck_u32)(a), (ck_u32)(b))
#define CK_UNROLL _Pragma("unroll")
/* No silent fused multiply-adds: ref C (ISO mode) does not contract
 * either, so both sides round alike. A program whose GPU results need not
 * match ref's rounding defines CK_FUSE_ON_GPU before its first include,
 * and then GPUs may fuse. */
#if defined(CK_FUSE_ON_GPU) && defined(CK_DEVICE_GPU) && CK_DEVICE_GPU
#pragma OPENCL FP_CONTRACT ON
#else
#pragma OPENCL FP_CONTRACT OFF
#endif

#elif defined(__CUDACC__)
#define CK_LANG_CUDA 1
/* Native CUDA programs (the .cu files of cl/) define CK_CUDA_NATIVE: they have
 * the prelude too but are not OpenCL C, so shared headers leave out their
 * OpenCL kernels there. */
#if defined(CK_CUDA_PRELUDE_H) && !defined(CK_CUDA_NATIVE)
#define CK_OPENCL_C 1
#endif
#define CK_FN static __host__ __device__ inline
#define CK_GLOBAL
#define CK_LOCAL __shared__
/* NVRTC has no C library headers; the widths are CUDA's own. */
typedef unsigned int ck_u32;
typedef unsigned long ck_u64;
typedef unsigned char ck_u8;
typedef long ck_i64;
#ifndef CK_HAS_FP64
#define CK_HAS_FP64 1
#endif
/* __umulhi in device code, as OpenCL's mul_hi: from a 64-bit product,
 * NVRTC keeps a wide multiply, a shift and a conversion, 3% of the GA's
 * generation on an H100 (Philox's rounds are most of them). Both halves
 * of a round's products from one PTX mul.wide.u32 measured no better
 * there; on the GA's islands in global memory it won with SBX (80 to 58
 * ms) but lost with the default operators (92 to 107 ms), and ACO's
 * tours lost 1%. */
#if defined(__CUDA_ARCH__)
#define CK_MULHI32(a, b) __umulhi((ck_u32)(a), (ck_u32)(b))
#else
#define CK_MULHI32(a, b) ((ck_u32)(((ck_u64)(a) * (ck_u64)(b)) >> 32))
#endif
#define CK_UNROLL _Pragma("unroll")

#else
#define CK_LANG_HOST 1
#define CK_FN static inline
#define CK_GLOBAL
#define CK_LOCAL
#include <math.h>
#include <stdint.h>
typedef uint32_t ck_u32;
typedef uint64_t ck_u64;
typedef uint8_t ck_u8;
typedef int64_t ck_i64;
#ifndef CK_HAS_FP64
#define CK_HAS_FP64 1
#endif
#define CK_MULHI32(a, b) ((ck_u32)(((ck_u64)(a) * (ck_u64)(b)) >> 32))
#define CK_UNROLL
#endif

#endif /* CK_PRELUDE_H */
