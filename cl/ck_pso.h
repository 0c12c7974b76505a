/*
 * ck_pso.h - one particle's share of particle swarm optimisation, written
 * once for the OpenCL kernels (one work-item a particle) and the ref steps
 * (a loop over particles).
 *
 * Layout: every per-particle vector is stored dimension-major, element
 * (d, p) at d * n + p for n particles, so that neighbouring work-items
 * touch neighbouring addresses. Random draws: Philox keyed by the run's
 * seed, stream (purpose << 32 | particle), so init, moves and boundary
 * re-draws never share numbers.
 */
#ifndef CK_PSO_H
#define CK_PSO_H

#include "ck_best.h"
#include "ck_bounds.h"
#include "ck_objectives.h"
#include "ck_philox.h"

#define CK_PSO_STREAM_INIT 0u
#define CK_PSO_STREAM_MOVE 1u
#define CK_PSO_STREAM_BOUNDS 2u

CK_FN ck_u64 ck_pso_stream(ck_u32 purpose, ck_u32 particle) {
  return ((ck_u64)purpose << 32) | (ck_u64)particle;
}

/* Bounding a moved coordinate: ck_bound_coordinate in ck_bounds.h, with
 * the particle's own stream for the random mode. */
CK_FN ck_real ck_pso_bound(int mode, ck_real x, ck_real lo, ck_real hi,
                           ck_u64 seed, ck_u32 particle, ck_u64 draw) {
  return ck_bound_coordinate(mode, x, lo, hi, seed,
                             ck_pso_stream(CK_PSO_STREAM_BOUNDS, particle),
                             draw);
}

/* The velocity after a bound was hit: reversed by reflection, else zero. */
CK_FN ck_real ck_pso_bound_velocity(int mode, ck_real x, ck_real velocity,
                                    ck_real lo, ck_real hi) {
  if (x >= lo && x <= hi)
    return velocity;
  return mode == CK_BOUNDS_REFLECT ? -velocity : CK_R(0);
}

/*
 * Draws particle p's position uniformly in the domain and its velocity
 * uniformly in +-(hi - lo) * velocity_init (within vmax); pbest starts at
 * the position. Returns the objective there when `objective` is streamed.
 */
CK_FN ck_real ck_pso_initialise_particle(
    int objective, ck_u32 p, ck_u32 n, int dim, ck_u64 seed,
    CK_GLOBAL const ck_real *lo, CK_GLOBAL const ck_real *hi,
    CK_GLOBAL const ck_real *vmax, ck_real velocity_init, CK_GLOBAL ck_real *x,
    CK_GLOBAL ck_real *v, CK_GLOBAL ck_real *pbest) {
  ck_objective_state s;
  ck_objective_begin(objective, &s);
  x += p;
  v += p;
  pbest += p;
  /* One Philox block serves a pair of dimensions. */
  for (int pair = 0; 2 * pair < dim; ++pair) {
    ck_philox_counter r = ck_philox_block(
        seed, ck_pso_stream(CK_PSO_STREAM_INIT, p), (ck_u64)pair);
    for (int lane = 0; lane < 2 && 2 * pair + lane < dim;
         ++lane, x += n, v += n, pbest += n) {
      int d = 2 * pair + lane;
      ck_real range = hi[d] - lo[d];
      /* Words picked by value, not by a run-time index into r. */
      ck_u32 first = lane ? r.v[2] : r.v[0], second = lane ? r.v[3] : r.v[1];
      ck_real xi = lo[d] + ck_uniform_real(first) * range;
      ck_real vi =
          (CK_R(2) * ck_uniform_real(second) - CK_R(1)) * range * velocity_init;
      xi = xi > hi[d] ? hi[d] : xi;
      vi = vi > vmax[d] ? vmax[d] : (vi < -vmax[d] ? -vmax[d] : vi);
      *x = xi;
      *v = vi;
      *pbest = xi;
      ck_objective_add(objective, &s, d, xi);
    }
  }
  return ck_objective_finish(objective, &s, dim);
}

/*
 * Coordinate d of particle p's synchronous move, given its random factors
 * r1 and r2 in [0, 1):
 *   v <- w v + c1 r1 (pbest - x) + c2 r2 (guide - x), |v| <= vmax,
 *   x <- x + v, put back into [lo, hi] by the bounds mode.
 * Takes the old x and *velocity; returns the new x and leaves the new
 * velocity in *velocity.
 */
CK_FN ck_real ck_pso_move_coordinate(int bounds, ck_u32 p, int dim, int d,
                                     ck_u64 seed, ck_u64 iteration, ck_real w,
                                     ck_real c1, ck_real c2, ck_real r1,
                                     ck_real r2, ck_real x, ck_real *velocity,
                                     ck_real pbest, ck_real guide, ck_real lo,
                                     ck_real hi, ck_real limit) {
  ck_real vi = w * *velocity + c1 * r1 * (pbest - x) + c2 * r2 * (guide - x);
  vi = vi > limit ? limit : (vi < -limit ? -limit : vi);
  ck_real moved = x + vi;
  ck_real xi = ck_pso_bound(bounds, moved, lo, hi, seed, p,
                            iteration * (ck_u64)dim + (ck_u64)d);
  *velocity = ck_pso_bound_velocity(bounds, moved, vi, lo, hi);
  return xi;
}

/* The Philox block of particle p's move that gives r1 and r2 for the
 * dimensions 2 * pair and 2 * pair + 1: words 0 and 1 for the first, 2
 * and 3 for the second. */
CK_FN ck_philox_counter ck_pso_move_block(ck_u64 seed, ck_u32 p, int dim,
                                          ck_u64 iteration, int pair) {
  ck_u64 pairs = (ck_u64)((dim + 1) / 2);
  return ck_philox_block(seed, ck_pso_stream(CK_PSO_STREAM_MOVE, p),
                         iteration * pairs + (ck_u64)pair);
}

/*
 * One synchronous move of particle p, every coordinate by
 * ck_pso_move_coordinate, with r1 and r2 fresh per dimension. The guide
 * is the global best (guide_stride 1, guide_index 0) or a neighbour's
 * pbest (stride n, index of the neighbour). Returns the objective at the
 * new position when `objective` is streamed, evaluated in the same pass.
 */
CK_FN ck_real ck_pso_move_particle(
    int objective, int bounds, ck_u32 p, ck_u32 n, int dim, ck_u64 seed,
    ck_u64 iteration, ck_real w, ck_real c1, ck_real c2,
    CK_GLOBAL const ck_real *lo, CK_GLOBAL const ck_real *hi,
    CK_GLOBAL const ck_real *vmax, CK_GLOBAL ck_real *x, CK_GLOBAL ck_real *v,
    CK_GLOBAL const ck_real *pbest, CK_GLOBAL const ck_real *guide,
    ck_u32 guide_index, ck_u32 guide_stride) {
  ck_objective_state s;
  ck_objective_begin(objective, &s);
  x += p;
  v += p;
  pbest += p;
  guide += guide_index;
  for (int pair = 0; 2 * pair < dim; ++pair) {
    ck_philox_counter r = ck_pso_move_block(seed, p, dim, iteration, pair);
    for (int lane = 0; lane < 2 && 2 * pair + lane < dim;
         ++lane, x += n, v += n, pbest += n, guide += guide_stride) {
      int d = 2 * pair + lane;
      /* Words picked by value, not by a run-time index into r. */
      ck_real r1 = ck_uniform_real(lane ? r.v[2] : r.v[0]);
      ck_real r2 = ck_uniform_real(lane ? r.v[3] : r.v[1]);
      ck_real vi = *v;
      ck_real xi = ck_pso_move_coordinate(bounds, p, dim, d, seed, iteration, w,
                                          c1, c2, r1, r2, *x, &vi, *pbest,
                                          *guide, lo[d], hi[d], vmax[d]);
      *x = xi;
      *v = vi;
      ck_objective_add(objective, &s, d, xi);
    }
  }
  return ck_objective_finish(objective, &s, dim);
}

/* Keeps particle p's new position as its personal best if it is better. */
CK_FN void ck_pso_keep_best(ck_u32 p, ck_u32 n, int dim, ck_real value,
                            CK_GLOBAL ck_real *pbest_value,
                            CK_GLOBAL const ck_real *x,
                            CK_GLOBAL ck_real *pbest) {
  if (!(value < pbest_value[p]))
    return;
  pbest_value[p] = value;
  x += p;
  pbest += p;
  for (int d = 0; d < dim; ++d, x += n, pbest += n)
    *pbest = *x;
}

/* The best personal best among the k ring neighbours of p (p itself,
 * (k-1)/2 before it and the rest after it, wrapping around). */
CK_FN ck_u32 ck_pso_ring_best(ck_u32 p, ck_u32 n, ck_u32 k,
                              CK_GLOBAL const ck_real *pbest_value) {
  ck_u32 before = (k - 1u) / 2u % n;
  ck_u32 first = (p + n - before) % n;
  ck_u32 best = first;
  for (ck_u32 j = 1; j < k; ++j) {
    ck_u32 q = (first + j) % n;
    if (ck_better(pbest_value[q], q, pbest_value[best], best))
      best = q;
  }
  return best;
}

#endif /* CK_PSO_H */
