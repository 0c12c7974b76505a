/*
 * ck_warp.h - the warp as the native CUDA kernels (the .cu files of cl/)
 * use it: its width, the mask of all its lanes, and the sum that several
 * of them fold across it. Included by native kernels only, after the CUDA
 * prelude.
 *
 * The width is the device's (CK_WARP_WIDTH, which the host's build options
 * give every program). The kernels keep one bit a lane in 32-bit words, as
 * CUDA's ballots, shuffles and match masks take them, so a device whose
 * warps are not 32 lanes wide is refused when its program is built.
 */
#ifndef CK_WARP_H
#define CK_WARP_H

#if !defined(CK_WARP_WIDTH) || CK_WARP_WIDTH != 32
#error "the native CUDA kernels need warps of 32 lanes (CK_WARP_WIDTH)"
#endif

/* Every lane of the warp, as the *_sync primitives' mask. */
#define CK_ALL_LANES 0xFFFFFFFFu

/* The sum of `value` over the warp's lanes, in every lane: a butterfly of
 * halving distances. Each step adds the same two partial sums on both
 * lanes of a pair, so floating-point sums agree bit for bit across the
 * warp. */
template <class T> static __device__ __forceinline__ T ck_warp_sum(T value) {
#pragma unroll
  for (unsigned distance = CK_WARP_WIDTH / 2; distance > 0; distance >>= 1)
    value += __shfl_xor_sync(CK_ALL_LANES, value, distance);
  return value;
}

/* The least (MAX false) or greatest `value` of the warp's lanes, in every
 * lane: the integer reductions of sm_80 on, else a butterfly of shuffles
 * (sm_75, which the build also serves). */
template <bool MAX>
static __device__ __forceinline__ unsigned ck_warp_extreme(unsigned value) {
#if __CUDA_ARCH__ >= 800
  return MAX ? __reduce_max_sync(CK_ALL_LANES, value)
             : __reduce_min_sync(CK_ALL_LANES, value);
#else
#pragma unroll
  for (unsigned distance = CK_WARP_WIDTH / 2; distance > 0; distance >>= 1) {
    unsigned other = __shfl_xor_sync(CK_ALL_LANES, value, distance);
    value = (MAX ? other > value : other < value) ? other : value;
  }
  return value;
#endif
}

/* A float's bits as an unsigned integer in the floats' order, zeros of
 * either sign alike (as ck_better compares them); for values that are
 * never NaN (ck_comparable). */
static __device__ __forceinline__ unsigned ck_ordered_key(float value) {
  unsigned bits = __float_as_uint(value + 0.0f);
  return bits ^ (bits >> 31 ? 0xFFFFFFFFu : 0x80000000u);
}

/* The (value, index) minimum of the warp's lanes by ck_better (the least
 * value, then the least index), in every lane, for values that are never
 * NaN: the least key, then the least index among the lanes that hold it,
 * and the value's own bits from such a lane. */
static __device__ __forceinline__ void ck_warp_minimum(float *value,
                                                       unsigned *index) {
  unsigned key = ck_ordered_key(*value);
  unsigned least = ck_warp_extreme<false>(key);
  unsigned least_index =
      ck_warp_extreme<false>(key == least ? *index : 0xFFFFFFFFu);
  unsigned holders =
      __ballot_sync(CK_ALL_LANES, key == least && *index == least_index);
  *value = __shfl_sync(CK_ALL_LANES, *value, __ffs(holders) - 1);
  *index = least_index;
}

#endif
