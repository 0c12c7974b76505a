/*
 * ck_philox.h - the Philox4x32-10 counter-based generator (Salmon et al.,
 * SC'11), shared by host C, OpenCL C and CUDA so that one seed gives the
 * same streams on every backend and device.
 *
 * Stream convention used across clkit: the key is the 64-bit run seed
 * (low word first); the counter is (index low, index high, stream low,
 * stream high), where "stream" names a purpose (a particle, an island, an
 * ant) and "index" counts blocks of four outputs within it.
 */
#ifndef CK_PHILOX_H
#define CK_PHILOX_H

#include "ck_prelude.h"

#define CK_PHILOX_M0 0xD2511F53u
#define CK_PHILOX_M1 0xCD9E8D57u
#define CK_PHILOX_W0 0x9E3779B9u
#define CK_PHILOX_W1 0xBB67AE85u

typedef struct ck_philox_counter {
  ck_u32 v[4];
} ck_philox_counter;

typedef struct ck_philox_key {
  ck_u32 v[2];
} ck_philox_key;

/* One round on counter words c0 .. c3 with key words k0 and k1, in place:
 * TYPE is the words' type (ck_u32, or a vector of them in the CPU forms of
 * kernels, cl/ck_lanes.h) and MULHI its high word of a product. */
#define CK_PHILOX_ROUND(TYPE, MULHI, c0, c1, c2, c3, k0, k1)                   \
  do {                                                                         \
    TYPE high0_ = MULHI(CK_PHILOX_M0, c0), low0_ = CK_PHILOX_M0 * (c0);        \
    TYPE high1_ = MULHI(CK_PHILOX_M1, c2), low1_ = CK_PHILOX_M1 * (c2);        \
    (c0) = high1_ ^ (c1) ^ (k0);                                               \
    (c1) = low1_;                                                              \
    (c2) = high0_ ^ (c3) ^ (k1);                                               \
    (c3) = low0_;                                                              \
  } while (0)

/* Ten rounds, with the key bumped by the Weyl constants between rounds,
 * in place (TYPE and MULHI as for CK_PHILOX_ROUND; the key words are
 * ck_u32 variables). */
#define CK_PHILOX_TEN_ROUNDS(TYPE, MULHI, c0, c1, c2, c3, k0, k1)              \
  do {                                                                         \
    for (int round_ = 0; round_ < 10; ++round_) {                              \
      if (round_ > 0) {                                                        \
        (k0) += CK_PHILOX_W0;                                                  \
        (k1) += CK_PHILOX_W1;                                                  \
      }                                                                        \
      CK_PHILOX_ROUND(TYPE, MULHI, c0, c1, c2, c3, k0, k1);                    \
    }                                                                          \
  } while (0)

CK_FN ck_philox_counter ck_philox4x32_10(ck_philox_counter c, ck_philox_key k) {
  CK_PHILOX_TEN_ROUNDS(ck_u32, CK_MULHI32, c.v[0], c.v[1], c.v[2], c.v[3],
                       k.v[0], k.v[1]);
  return c;
}

/* One block of four outputs for (seed, stream, index). */
CK_FN ck_philox_counter ck_philox_block(ck_u64 seed, ck_u64 stream,
                                        ck_u64 index) {
  ck_philox_counter c;
  ck_philox_key k;
  c.v[0] = (ck_u32)index;
  c.v[1] = (ck_u32)(index >> 32);
  c.v[2] = (ck_u32)stream;
  c.v[3] = (ck_u32)(stream >> 32);
  k.v[0] = (ck_u32)seed;
  k.v[1] = (ck_u32)(seed >> 32);
  return ck_philox4x32_10(c, k);
}

/* Word `lane` (0..3) of a block, picked by value: no run-time index into
 * the block, which would put it in memory on a GPU. */
CK_FN ck_u32 ck_philox_word(ck_philox_counter r, ck_u32 lane) {
  return lane == 0u   ? r.v[0]
         : lane == 1u ? r.v[1]
         : lane == 2u ? r.v[2]
                      : r.v[3];
}

/* Uniform in [0,1) from the top 24 bits: exact in float, never 1. */
CK_FN float ck_uniform_float(ck_u32 x) {
  return (float)(x >> 8) * (1.0f / 16777216.0f);
}

#if CK_HAS_FP64
/* Uniform in [0,1) from 53 bits of two words. */
CK_FN double ck_uniform_double(ck_u32 hi, ck_u32 lo) {
  ck_u64 bits = ((ck_u64)(hi >> 5) << 26) | (ck_u64)(lo >> 6);
  return (double)bits * (1.0 / 9007199254740992.0);
}
#endif

/*
 * Two standard normal variates by Box-Muller from two words. The first
 * uniform is taken in (0,1] so that its logarithm is finite.
 */
CK_FN void ck_normal_float2(ck_u32 a, ck_u32 b, float *z0, float *z1) {
  float u1 = ((float)(a >> 8) + 1.0f) * (1.0f / 16777216.0f);
  float u2 = ck_uniform_float(b);
  float radius = sqrtf(-2.0f * logf(u1));
  float angle = 6.283185307179586f * u2;
  *z0 = radius * cosf(angle);
  *z1 = radius * sinf(angle);
}

#endif /* CK_PHILOX_H */
