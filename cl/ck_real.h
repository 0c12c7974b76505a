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

/* A fused multiply-add and round-to-nearest-integer in the working
 * precision: rounded once, so the same bits in every language. */
#if defined(CK_LANG_OPENCL) || CK_REAL_DOUBLE
#define CK_FMA(a, b, c) fma(a, b, c)
#define CK_RINT(x) rint(x)
#else
#define CK_FMA(a, b, c) fmaf(a, b, c)
#define CK_RINT(x) rintf(x)
#endif

/* cos(2 pi x) and sin(2 pi x). In double precision OpenCL C's and CUDA's
 * cospi, which reduce their argument exactly; C11 has no cospi, and ref
 * rounds 2 pi x first (a difference of a few ulps of the argument). */
#if CK_REAL_DOUBLE
#if defined(CK_LANG_OPENCL) || defined(CK_LANG_CUDA)
#define CK_COS_2PI(x) cospi(CK_R(2) * (x))
#define CK_SIN_2PI(x) sinpi(CK_R(2) * (x))
#else
#define CK_COS_2PI(x) CK_COS(CK_R(2 * CK_PI) * (x))
#define CK_SIN_2PI(x) CK_SIN(CK_R(2 * CK_PI) * (x))
#endif
#else
/* In single precision, written out here, so that ref, OpenCL and CUDA get
 * the same bits (their cosf and cospi differ in the last ones), in under
 * half of cospi's instructions on GPUs (the rastrigin and ackley terms
 * are mostly this):
 *   y = x - rint(x), exactly, in [-1/2, 1/2];
 *   b = min(|y|, 1/2 - |y|), exactly, in [0, 1/4]: cos(2 pi y) is
 *   cos(2 pi b), negated where |y| > 1/4; sin(2 pi y) is sin(2 pi b) with
 *   b = y, or (1/2 - |y|) with y's sign;
 *   then a polynomial of degree 5 in b^2 by fused multiply-adds, correctly
 *   rounded everywhere. The coefficients interpolate cos(2 pi b) and
 *   sin(2 pi b) / b at 200 Chebyshev nodes of b^2 in [0, 1/16], truncated
 *   to degree 5; the largest error over [-1/2, 1/2] is 1.0e-7 for the
 *   cosine and 1.7e-7 for the sine, about one and two ulps of 1. */

#define CK_TEMPLATE_REAL float
#define CK_TEMPLATE_NAME(name) name
#include "ck_turns.inc"

#define CK_COS_2PI(x) ck_cos_2pi(x)
#define CK_SIN_2PI(x) ck_sin_2pi(x)
#endif

/* The bits of a float and back (in either working precision): a union,
 * which every language here reads as the same bits. */
typedef union ck_float_bits {
  float value;
  ck_u32 bits;
} ck_float_bits;

CK_FN ck_u32 ck_float_as_bits(float x) {
  ck_float_bits in;
  in.value = x;
  return in.bits;
}

CK_FN float ck_bits_as_float(ck_u32 bits) {
  ck_float_bits out;
  out.bits = bits;
  return out.value;
}

/* log2(x) for positive normal x, and x^y for x in [0, 2^126) (0 at x =
 * 0) where the result is normal. In double precision the library's; in
 * single precision written out here, for the reason cos(2 pi x) is: the
 * libraries' logf and powf differ in their last bits from one device to
 * the next (NVIDIA's OpenCL log in 4% of floats, its pow in 37%, against
 * glibc's), and the GA draws its mutations and SBX children through
 * them. */
#if CK_REAL_DOUBLE
#define CK_LOG2(x) log2(x)
#define CK_POW_POSITIVE(x, y) pow(x, y)
#else
/* The scalar forms; cl/ck_lanes.h makes the same functions over vectors
 * of floats. */
#define CK_TEMPLATE_REAL float
#define CK_TEMPLATE_BITS ck_u32
#define CK_TEMPLATE_AS_BITS(x) ck_float_as_bits(x)
#define CK_TEMPLATE_AS_REAL(bits) ck_bits_as_float(bits)
#define CK_TEMPLATE_TO_REAL(bits) ((float)(bits))
#define CK_TEMPLATE_TO_BITS(x) ((ck_u32)(x))
#define CK_TEMPLATE_NAME(name) name
#include "ck_powers.inc"

#define CK_LOG2(x) ck_log2(x)
#define CK_POW_POSITIVE(x, y) ck_pow_positive(x, y)
#endif

/* A uniform draw in [0,1) in the working precision, from one 32-bit word
 * (24 bits of resolution in both precisions, so both draw alike); CONVERT
 * turns the word's top 24 bits into reals (a cast, or an OpenCL C
 * vector's conversion in ck_lanes.h). */
#define CK_UNIFORM_REAL(CONVERT, word)                                         \
  (CONVERT((word) >> 8) * CK_R(1.0 / 16777216.0))

CK_FN ck_real ck_uniform_real(ck_u32 word) {
  return CK_UNIFORM_REAL((ck_real), word);
}

#endif /* CK_REAL_H */
