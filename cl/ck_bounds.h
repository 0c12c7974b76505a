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

/* A uniform draw for the random mode: word 0 of Philox block (seed,
 * stream, draw). */
CK_FN ck_real ck_bound_uniform(ck_u64 seed, ck_u64 stream, ck_u64 draw) {
  return ck_uniform_real(ck_philox_block(seed, stream, draw).v[0]);
}

/* The scalar form; cl/ck_lanes.h makes it over vectors of coordinates. */
#define CK_TEMPLATE_REAL ck_real
#define CK_TEMPLATE_STREAM ck_u64
#define CK_TEMPLATE_MASK int
#define CK_TEMPLATE_ALL(mask) (mask)
#define CK_TEMPLATE_NAME(name) name
#include "ck_bounds.inc"

#endif /* CK_BOUNDS_H */
