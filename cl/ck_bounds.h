/*
 * ck_bounds.h - keeping a coordinate inside [lo, hi], shared by the
 * optimisers (PSO moves, GA children) on every backend.
 */
#ifndef CK_BOUNDS_H
#define CK_BOUNDS_H

#include "ck_philox.h"
#include "ck_real.h"

#define CK_BOUNDS_CLAMP 0   /* onto the bound */
#define CK_BOUNDS_REFLECT 1 /* mirrored at the bound */
#define CK_BOUNDS_RANDOM 2  /* redrawn uniformly in [lo, hi] */

/*
 * Puts x back into [lo, hi] by the mode. The random mode draws word 0 of
 * Philox block (seed, stream, draw). A reflection that lands outside
 * again (a step longer than the domain) is clamped.
 */
CK_FN ck_real ck_bound_coordinate(int mode, ck_real x, ck_real lo, ck_real hi,
                                  ck_u64 seed, ck_u64 stream, ck_u64 draw) {
  /* Clamping written as two selections: the same value for every x (a
   * NaN and signed zeros included) as the general path below, in half
   * the instructions of a hot loop. */
  if (mode == CK_BOUNDS_CLAMP)
    return x < lo ? lo : (x > hi ? hi : x);
  if (x >= lo && x <= hi)
    return x;
  if (mode == CK_BOUNDS_REFLECT) {
    x = x < lo ? lo + (lo - x) : hi - (x - hi);
  } else if (mode == CK_BOUNDS_RANDOM) {
    ck_philox_counter r = ck_philox_block(seed, stream, draw);
    x = lo + ck_uniform_real(r.v[0]) * (hi - lo);
  }
  return x < lo ? lo : (x > hi ? hi : x);
}

#endif /* CK_BOUNDS_H */
