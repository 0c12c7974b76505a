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

CK_FN ck_philox_counter ck_philox_round(ck_philox_counter c, ck_philox_key k) {
  ck_u32 hi0 = CK_MULHI32(CK_PHILOX_M0, c.v[0]);
  ck_u32 lo0 = CK_PHILOX_M0 * c.v[0];
  ck_u32 hi1 = CK_MULHI32(CK_PHILOX_M1, c.v[2]);
  ck_u32 lo1 = CK_PHILOX_M1 * c.v[2];
  ck_philox_counter out;
  out.v[0] = hi1 ^ c.v[1] ^ k.v[0];
  out.v[1] = lo1;
  out.v[2] = hi0 ^ c.v[3] ^ k.v[1];
  out.v[3] = lo0;
  return out;
}

/* Ten rounds, with the key bumped by the Weyl constants between rounds. */
CK_FN ck_philox_counter ck_philox4x32_10(ck_philox_counter c, ck_philox_key k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k.v[0] += CK_PHILOX_W0;
      k.v[1] += CK_PHILOX_W1;
    }
    c = ck_philox_round(c, k);
  }
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
