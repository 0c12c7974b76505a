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

#endif
