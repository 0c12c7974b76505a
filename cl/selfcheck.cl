/*
 * selfcheck.cl - the built-in self-check: Philox streams and a reduction.
 * Its ref twin is src/selfcheck/selfcheck.c (ref_generate, ref_reduce).
 *
 * Build-time defines: CK_SELFCHECK_GROUP, the work-group size of
 * ck_selfcheck_reduce (a power of two chosen per device by the host).
 */
#include "ck_philox.h"

#ifndef CK_SELFCHECK_GROUP
#error "CK_SELFCHECK_GROUP must be defined by the host"
#endif

/*
 * Work-item i writes elements 4i .. 4i+3 (those below count): the four
 * words of Philox block i of stream `pass` under the run's seed, raw into
 * bits and as uniform floats into values.
 */
__kernel void ck_selfcheck_generate(__global float *values,
                                    __global uint *bits, uint count,
                                    uint seed_low, uint seed_high, uint pass) {
  uint item = (uint)get_global_id(0);
  uint first = 4u * item;
  if (first >= count)
    return;
  ulong seed = ((ulong)seed_high << 32) | (ulong)seed_low;
  ck_philox_counter block = ck_philox_block(seed, pass, item);
  for (uint k = 0; k < 4u && first + k < count; ++k) {
    bits[first + k] = block.v[k];
    values[first + k] = ck_uniform_float(block.v[k]);
  }
}

/*
 * Work-item (g, l) first folds elements g*GROUP + l, stepping by the global
 * size, into a private float sum and word xor; the group then halves its
 * partials in local memory, and work-item 0 writes group g's sum and xor.
 */
__kernel __attribute__((reqd_work_group_size(CK_SELFCHECK_GROUP, 1, 1)))
void ck_selfcheck_reduce(__global const float *values,
                         __global const uint *bits, uint count,
                         __global float *sums, __global uint *xors) {
  CK_LOCAL float local_sums[CK_SELFCHECK_GROUP];
  CK_LOCAL uint local_xors[CK_SELFCHECK_GROUP];
  uint local_id = (uint)get_local_id(0);
  uint stride = (uint)get_global_size(0);
  float sum = 0.0f;
  uint folded = 0u;
  for (uint i = (uint)get_global_id(0); i < count; i += stride) {
    sum += values[i];
    folded ^= bits[i];
  }
  local_sums[local_id] = sum;
  local_xors[local_id] = folded;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_SELFCHECK_GROUP / 2; width > 0; width >>= 1) {
    if (local_id < width) {
      local_sums[local_id] += local_sums[local_id + width];
      local_xors[local_id] ^= local_xors[local_id + width];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (local_id == 0) {
    sums[get_group_id(0)] = local_sums[0];
    xors[get_group_id(0)] = local_xors[0];
  }
}
