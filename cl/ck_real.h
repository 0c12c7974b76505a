/*
 * ck_real.h - the working precision of a kernel or ref step: float by
 * default, double where CK_REAL_DOUBLE is 1 (the host sets it, and only on
 * devices with fp64). Math is spelled through CK_ macros so that one source
 * serves both precisions in every language.
 */
#ifndef CK_REAL_H
#define CK_REAL_H

#include "ck_prelude.h"

#ifndef CK_REAL_DOUBLE
#define CK_REAL_DOUBLE 0
#endif

#if CK_REAL_DOUBLE
#if defined(CK_LANG_OPENCL) && !CK_HAS_FP64
#error "double precision needs a device with fp64"
#endif
typedef double ck_real;
#define CK_R(x) ((double)(x))
#define CK_SQRT(x) sqrt(x)
#define CK_EXP(x) exp(x)
#define CK_LOG(x) log(x)
#define CK_SIN(x) sin(x)
#define CK_COS(x) cos(x)
#define CK_FABS(x) fabs(x)
#define CK_POW(x, y) pow(x, y)
#define CK_TANH(x) tanh(x)
#define CK_REAL_MAX 1.7976931348623157e308
#else
typedef float ck_real;
#define CK_R(x) ((float)(x))
#define CK_SQRT(x) sqrtf(x)
#define CK_EXP(x) expf(x)
#define CK_LOG(x) logf(x)
#define CK_SIN(x) sinf(x)
#define CK_COS(x) cosf(x)
#define CK_FABS(x) fabsf(x)
#define CK_POW(x, y) powf(x, y)
#if defined(CK_LANG_OPENCL)
#define CK_TANH(x) tanh(x)
#else
#define CK_TANH(x) tanhf(x)
#endif
#define CK_REAL_MAX 3.402823466e38f
#endif

#define CK_PI 3.14159265358979323846

/* cos(2 pi x) and sin(2 pi x). OpenCL C's and CUDA's cospi reduce their
 * argument exactly and need no slow path for large arguments, so kernels
 * use them; C11 has no cospi, and ref rounds 2 pi x first (a difference of
 * a few ulps of the argument). */
#if defined(CK_LANG_OPENCL) || (defined(CK_LANG_CUDA) && CK_REAL_DOUBLE)
#define CK_COS_2PI(x) cospi(CK_R(2) * (x))
#define CK_SIN_2PI(x) sinpi(CK_R(2) * (x))
#elif defined(CK_LANG_CUDA)
#define CK_COS_2PI(x) cospif(CK_R(2) * (x))
#define CK_SIN_2PI(x) sinpif(CK_R(2) * (x))
#else
#define CK_COS_2PI(x) CK_COS(CK_R(2 * CK_PI) * (x))
#define CK_SIN_2PI(x) CK_SIN(CK_R(2 * CK_PI) * (x))
#endif

/* A uniform draw in [0,1) in the working precision, from one 32-bit word
 * (24 bits of resolution in both precisions, so both draw alike). */
CK_FN ck_real ck_uniform_real(ck_u32 word) {
  return (ck_real)(word >> 8) * CK_R(1.0 / 16777216.0);
}

#endif /* CK_REAL_H */
