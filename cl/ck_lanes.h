/*
 * ck_lanes.h - the CPU forms of kernels (OpenCL C only): a work-item works
 * on CK_LANES particles at once, each a lane of one vector, so that every
 * operation fills a CPU's vector register. PoCL vectorises a kernel across
 * its work-items only where no loop runs inside them, and the loop over
 * the dimensions does; written in vectors, the loop's body runs on all
 * the lanes at once.
 *
 * Build-time define: CK_LANES, 16 in single precision and 8 in double
 * (512 bits). The templates of ck_turns.inc, ck_powers.inc,
 * ck_objectives.inc and ck_bounds.inc are made here over those vectors,
 * their names ending in _lanes. Every operation is lane by lane, so each lane gets the bits of
 * the scalar form.
 */
#ifndef CK_LANES_H
#define CK_LANES_H

#include "ck_bounds.h"
#include "ck_objectives.h"

#if !defined(CK_LANG_OPENCL) || !defined(CK_LANES) || CK_LANES < 2
#error "ck_lanes.h is OpenCL C with CK_LANES of 2 or more"
#endif

/* Functions are always inlined from here on (only CPU programs include
 * this file): PoCL 3.1 (LLVM 15) passed wrong values to a call it kept
 * that took vectors and a local pointer (a GA tournament's winners came
 * out wrong). */
#undef CK_FN
#define CK_FN static inline __attribute__((always_inline))

#define CK_LANES_PASTE_(a, b) a##b
#define CK_LANES_PASTE(a, b) CK_LANES_PASTE_(a, b)

#if CK_REAL_DOUBLE
typedef CK_LANES_PASTE(double, CK_LANES) ck_real_lanes;
typedef CK_LANES_PASTE(long, CK_LANES) ck_mask_lanes;
#define ck_convert_real_lanes CK_LANES_PASTE(convert_double, CK_LANES)
#else
typedef CK_LANES_PASTE(float, CK_LANES) ck_real_lanes;
typedef CK_LANES_PASTE(int, CK_LANES) ck_mask_lanes;
#define ck_convert_real_lanes CK_LANES_PASTE(convert_float, CK_LANES)
#endif
typedef CK_LANES_PASTE(uint, CK_LANES) ck_u32_lanes;
typedef CK_LANES_PASTE(ulong, CK_LANES) ck_u64_lanes;
#define ck_convert_u32_lanes CK_LANES_PASTE(convert_uint, CK_LANES)
#define ck_convert_u64_lanes CK_LANES_PASTE(convert_ulong, CK_LANES)
#define ck_load_lanes CK_LANES_PASTE(vload, CK_LANES)
#define ck_store_lanes CK_LANES_PASTE(vstore, CK_LANES)

/* 0, 1, ..., CK_LANES - 1: lane q's offset from a work-item's first. */
#if CK_LANES == 16
#define CK_LANE_OFFSETS                                                        \
  ((ck_u32_lanes)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#elif CK_LANES == 8
#define CK_LANE_OFFSETS ((ck_u32_lanes)(0, 1, 2, 3, 4, 5, 6, 7))
#elif CK_LANES == 4
#define CK_LANE_OFFSETS ((ck_u32_lanes)(0, 1, 2, 3))
#else
#error "CK_LANES must be 4, 8 or 16"
#endif

/* The values at pointer[index] for each lane's index, read one by one
 * into a vector of `type`; CK_GATHER_LANES reads reals. */
#if CK_LANES == 16
#define CK_GATHER_LANES_OF(type, pointer, index)                               \
  ((type)((pointer)[(index).s0], (pointer)[(index).s1], (pointer)[(index).s2], \
          (pointer)[(index).s3], (pointer)[(index).s4], (pointer)[(index).s5], \
          (pointer)[(index).s6], (pointer)[(index).s7], (pointer)[(index).s8], \
          (pointer)[(index).s9], (pointer)[(index).sa], (pointer)[(index).sb], \
          (pointer)[(index).sc], (pointer)[(index).sd], (pointer)[(index).se], \
          (pointer)[(index).sf]))
#elif CK_LANES == 8
#define CK_GATHER_LANES_OF(type, pointer, index)                               \
  ((type)((pointer)[(index).s0], (pointer)[(index).s1], (pointer)[(index).s2], \
          (pointer)[(index).s3], (pointer)[(index).s4], (pointer)[(index).s5], \
          (pointer)[(index).s6], (pointer)[(index).s7]))
#else
#define CK_GATHER_LANES_OF(type, pointer, index)                               \
  ((type)((pointer)[(index).s0], (pointer)[(index).s1], (pointer)[(index).s2], \
          (pointer)[(index).s3]))
#endif
#define CK_GATHER_LANES(pointer, index)                                        \
  CK_GATHER_LANES_OF(ck_real_lanes, pointer, index)

/* A comparison of reals as a mask for selecting between words (select's
 * third argument): the same vector in single precision, narrowed from
 * 64-bit lanes in double. */
#if CK_REAL_DOUBLE
#define CK_WORD_MASK_LANES(mask) CK_LANES_PASTE(convert_int, CK_LANES)(mask)
#else
#define CK_WORD_MASK_LANES(mask) (mask)
#endif

/* Philox4x32-10 (ck_philox.h) with a stream per lane. */
typedef struct ck_philox_counter_lanes {
  ck_u32_lanes v[4];
} ck_philox_counter_lanes;

#define CK_MULHI32_LANES(a, b) mul_hi((ck_u32_lanes)(a), (b))

CK_FN ck_philox_counter_lanes ck_philox_block_lanes(ck_u64 seed,
                                                    ck_u64_lanes stream,
                                                    ck_u64 index) {
  ck_philox_counter_lanes c;
  c.v[0] = (ck_u32_lanes)((ck_u32)index);
  c.v[1] = (ck_u32_lanes)((ck_u32)(index >> 32));
  c.v[2] = ck_convert_u32_lanes(stream);
  c.v[3] = ck_convert_u32_lanes(stream >> 32);
  ck_u32 k0 = (ck_u32)seed, k1 = (ck_u32)(seed >> 32);
  CK_PHILOX_TEN_ROUNDS(ck_u32_lanes, CK_MULHI32_LANES, c.v[0], c.v[1], c.v[2],
                       c.v[3], k0, k1);
  return c;
}

/* ck_uniform_real (ck_real.h) in every lane. */
CK_FN ck_real_lanes ck_uniform_real_lanes(ck_u32_lanes word) {
  return CK_UNIFORM_REAL(ck_convert_real_lanes, word);
}

#if !CK_REAL_DOUBLE
#define CK_TEMPLATE_REAL ck_real_lanes
#define CK_TEMPLATE_NAME(name) name##_lanes
#include "ck_turns.inc"
#define CK_TEMPLATE_REAL ck_real_lanes
#define CK_TEMPLATE_BITS ck_u32_lanes
#define CK_TEMPLATE_AS_BITS(x) CK_LANES_PASTE(as_uint, CK_LANES)(x)
#define CK_TEMPLATE_AS_REAL(bits) CK_LANES_PASTE(as_float, CK_LANES)(bits)
#define CK_TEMPLATE_TO_REAL(bits) ck_convert_real_lanes(bits)
#define CK_TEMPLATE_TO_BITS(x) ck_convert_u32_lanes(x)
#define CK_TEMPLATE_NAME(name) name##_lanes
#include "ck_powers.inc"
#endif
/* e^x lane by lane through the scalar function: PoCL's vector exp rounds
 * otherwise than its scalar one (PoCL 3.1: 1% of floats, 10% of doubles
 * differ in the last bit). Only ackley's finish calls it, twice an
 * evaluation. */
CK_FN ck_real_lanes ck_exp_lanes(ck_real_lanes x) {
  ck_real values[CK_LANES];
  ck_store_lanes(x, 0, values);
  for (int q = 0; q < CK_LANES; ++q)
    values[q] = CK_EXP(values[q]);
  return ck_load_lanes(0, values);
}

#define CK_TEMPLATE_REAL ck_real_lanes
#define CK_TEMPLATE_NAME(name) name##_lanes
#define CK_TEMPLATE_EXP(x) ck_exp_lanes(x)
#include "ck_objectives.inc"

/* ck_bound_uniform (ck_bounds.h) in every lane. */
CK_FN ck_real_lanes ck_bound_uniform_lanes(ck_u64 seed, ck_u64_lanes stream,
                                           ck_u64 draw) {
  return ck_uniform_real_lanes(ck_philox_block_lanes(seed, stream, draw).v[0]);
}

#define CK_TEMPLATE_REAL ck_real_lanes
#define CK_TEMPLATE_STREAM ck_u64_lanes
#define CK_TEMPLATE_MASK ck_mask_lanes
#define CK_TEMPLATE_ALL(mask) all(mask)
#define CK_TEMPLATE_NAME(name) name##_lanes
#include "ck_bounds.inc"

#endif /* CK_LANES_H */
