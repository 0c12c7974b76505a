/*
 * pso.cl - particle swarm optimisation kernels. Their ref twins are the
 * ref steps in src/pso/pso_ref.c, which call the same ck_pso.h functions.
 *
 * Build-time defines (chosen per run and device by src/pso/pso.c):
 *   CK_OBJECTIVE     an id of ck_objectives.h
 *   CK_BOUNDS        CK_BOUNDS_CLAMP, _REFLECT or _RANDOM
 *   CK_PSO_RING      1 for the lbest ring topology, 0 for gbest
 *   CK_GROUP         work-group size of the reductions (a power of two)
 *   CK_DIM           the dimension (sizes private arrays of user and lsq
 *                    evaluation)
 *   CK_USER_DATA     1 when the user objective takes a data pointer
 *   CK_PSO_FUSE_USER 1: a user objective is evaluated in the move's own
 *                    launch, as built-ins are (ck_pso_move; the host asks
 *                    it for objectives without data, moved one a
 *                    work-item); 0: by ck_evaluate_user after it
 *   CK_LSQ_LANES     points a work-item of lsq's vector mode (1: none)
 *   CK_LANES         particles a work-item of ck_pso_move_lanes (1: that
 *                    kernel is not built)
 *   CK_REAL_DOUBLE   0 or 1
 * The kernels of ck_best.h (global best) and ck_evaluate.h (lsq and user
 * objectives) are part of this program.
 * A user objective, when there is one, is placed before this file.
 */
#include "ck_pso.h"
#include "ck_best.h"
#include "ck_evaluate.h"
#if defined(CK_LANES) && CK_LANES > 1
#include "ck_pso_lanes.h"
#endif

#if !defined(CK_OBJECTIVE) || !defined(CK_BOUNDS) || \
    !defined(CK_PSO_RING) || !defined(CK_GROUP) || !defined(CK_DIM)
#error "pso.cl needs CK_OBJECTIVE, CK_BOUNDS, CK_PSO_RING, CK_GROUP and CK_DIM"
#endif

#if !defined(CK_PSO_FUSE_USER)
#define CK_PSO_FUSE_USER 0
#endif
#if CK_PSO_FUSE_USER &&                                                        \
    (CK_OBJECTIVE != CK_OBJECTIVE_USER || CK_USER_DATA ||                      \
     (defined(CK_LANES) && CK_LANES > 1))
#error "CK_PSO_FUSE_USER needs a user objective without data, one a work-item"
#endif

/* Objectives evaluated in the launch that moves the particle. */
#define CK_PSO_STREAMED                                                        \
  (CK_OBJECTIVE < CK_OBJECTIVE_STREAMED_COUNT || CK_PSO_FUSE_USER)

#if CK_PSO_FUSE_USER
/* The user's objective at particle p's position, which this work-item has
 * just written: gathered into private memory, as its signature asks, as
 * ck_evaluate_user does, so that the values are the same bits. The
 * dimension is the constant CK_DIM (the run's dim), so that a compiler can
 * unroll both loops and keep the position in registers. */
static ck_real fused_user_value(uint p, uint n, __global const ck_real *x) {
  float position[CK_DIM];
  for (int d = 0; d < CK_DIM; ++d)
    position[d] = (float)x[(ulong)d * n + p];
  return (ck_real)objective(position, CK_DIM);
}
#endif

/* Work-item p initialises particle p (first + p of a spread swarm);
 * streamed objectives are evaluated here, the others by an evaluation
 * kernel that runs next. */
__kernel void ck_pso_initialise(uint n, uint first, int dim, ulong seed,
                                ck_real velocity_init,
                                __global const ck_real *lo,
                                __global const ck_real *hi,
                                __global const ck_real *vmax,
                                __global ck_real *x, __global ck_real *v,
                                __global ck_real *pbest,
                                __global ck_real *pbest_value) {
  uint p = (uint)get_global_id(0);
  if (p >= n)
    return;
  ck_real value = ck_pso_initialise_particle(CK_OBJECTIVE, p, first, n, dim,
                                             seed, lo, hi, vmax,
                                             velocity_init, x, v, pbest);
#if CK_PSO_FUSE_USER
  value = fused_user_value(p, n, x);
#endif
  pbest_value[p] = CK_PSO_STREAMED ? ck_comparable(value)
                                   : CK_R(CK_REAL_MAX);
}

/* Work-item p finds the best personal best among its ring neighbours:
 * in the whole swarm, or, in a slice of a spread swarm (n below total),
 * among the slice's particles and its halo (ck_pso_ring_best_slice). */
__kernel void ck_pso_neighbours(uint n, uint k, uint first, uint total,
                                int dim, __global const ck_real *pbest_value,
                                __global const ck_real *halo,
                                __global uint *neighbour,
                                __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p >= n || done[0])
    return;
  neighbour[p] = n < total ? ck_pso_ring_best_slice(p, n, k, first, total,
                                                    pbest_value, halo,
                                                    (uint)dim + 1u)
                           : ck_pso_ring_best(p, n, k, pbest_value);
}

/* Particle p's move (ck_pso_move_particle) and what follows it in the
 * same launch (ck_pso_after_move). */
static void move_one(uint p, uint first, uint n, int dim, ulong seed,
                     ulong iteration,
                     ck_real w, ck_real c1, ck_real c2,
                     __global const ck_real *lo, __global const ck_real *hi,
                     __global const ck_real *vmax, __global ck_real *x,
                     __global ck_real *v, __global ck_real *pbest,
                     __global ck_real *pbest_value,
                     __global const ck_real *gbest,
                     __global const uint *neighbour,
                     __global const ck_real *halo,
                     __global ck_real *values) {
#if CK_PSO_RING
  uint guide_index, guide_stride;
  __global const ck_real *guide = ck_pso_ring_guide(
      neighbour[p], n, dim, pbest, halo, &guide_index, &guide_stride);
#else
  __global const ck_real *guide = gbest;
  uint guide_index = 0, guide_stride = 1;
#endif
  ck_real value = ck_pso_move_particle(
      CK_OBJECTIVE, CK_BOUNDS, p, first, n, dim, seed, iteration, w, c1, c2,
      lo,
      hi, vmax, x, v, pbest, guide, guide_index, guide_stride);
#if CK_PSO_FUSE_USER
  value = fused_user_value(p, n, x);
#endif
  ck_pso_after_move(CK_PSO_STREAMED, CK_PSO_RING, p, n, dim, value,
                    pbest_value, x, pbest, values);
}

/*
 * Work-item p moves particle p and, for streamed objectives, evaluates it
 * in the same pass (move_one).
 */
__kernel void ck_pso_move(uint n, uint first, int dim, ulong seed,
                          ulong iteration,
                          ck_real w, ck_real c1, ck_real c2,
                          __global const ck_real *lo,
                          __global const ck_real *hi,
                          __global const ck_real *vmax, __global ck_real *x,
                          __global ck_real *v, __global ck_real *pbest,
                          __global ck_real *pbest_value,
                          __global const ck_real *gbest,
                          __global const uint *neighbour,
                          __global const ck_real *halo,
                          __global const uint *done,
                          __global ck_real *values) {
  uint p = (uint)get_global_id(0);
  /* Once the target is met, the remaining launches of a batch do nothing. */
  if (p >= n || done[0])
    return;
  move_one(p, first, n, dim, seed, iteration, w, c1, c2, lo, hi, vmax, x, v,
           pbest, pbest_value, gbest, neighbour, halo, values);
}

#if defined(CK_LANES) && CK_LANES > 1
/*
 * The CPU form of ck_pso_move (ck_pso_lanes.h): work-item i moves
 * particles i * CK_LANES to i * CK_LANES + CK_LANES - 1, a lane each, with
 * the same bits as ck_pso_move. A last work-item with fewer particles
 * than lanes moves them one by one.
 */
__kernel void ck_pso_move_lanes(uint n, uint first, int dim, ulong seed,
                                ulong iteration,
                                ck_real w, ck_real c1, ck_real c2,
                                __global const ck_real *lo,
                                __global const ck_real *hi,
                                __global const ck_real *vmax,
                                __global ck_real *x, __global ck_real *v,
                                __global ck_real *pbest,
                                __global ck_real *pbest_value,
                                __global const ck_real *gbest,
                                __global const uint *neighbour,
                                __global const ck_real *halo,
                                __global const uint *done,
                                __global ck_real *values) {
  uint lead = (uint)get_global_id(0) * CK_LANES;
  if (lead >= n || done[0])
    return;
  int one_by_one = n - lead < CK_LANES;
#if CK_PSO_RING
  /* Lanes of which one is guided by a halo item (a slice of a spread
   * swarm, at its ends) move one by one too. */
  one_by_one = one_by_one ||
               any(ck_load_lanes(0, neighbour + lead) >= (ck_u32_lanes)n);
#endif
  if (one_by_one) {
    for (uint p = lead; p < n && p < lead + CK_LANES; ++p)
      move_one(p, first, n, dim, seed, iteration, w, c1, c2, lo, hi, vmax, x,
               v, pbest, pbest_value, gbest, neighbour, halo, values);
    return;
  }
  ck_u32_lanes particles = (ck_u32_lanes)lead + CK_LANE_OFFSETS;
#if CK_PSO_RING
  __global const ck_real *guide = pbest;
  ck_u32_lanes guide_index = ck_load_lanes(0, neighbour + lead);
  uint guide_stride = n;
#else
  __global const ck_real *guide = gbest;
  ck_u32_lanes guide_index = (ck_u32_lanes)0;
  uint guide_stride = 1;
#endif
  ck_real_lanes value = ck_pso_move_particle_lanes(
      CK_OBJECTIVE, CK_BOUNDS, particles, first, n, dim, seed, iteration, w,
      c1, c2, lo, hi, vmax, x, v, pbest, guide, guide_index, guide_stride);
  ck_pso_after_move_lanes(CK_PSO_STREAMED, CK_PSO_RING, particles, n, dim,
                          value, pbest_value, x, pbest, values);
}
#endif

/* Work-item j fills item j of a spread member's outbox, its best and its
 * boundary particles' personal bests (ck_pso_report_item). */
__kernel void ck_pso_report(uint n, int dim, uint forward, uint back,
                            __global const ck_real *best_value,
                            __global const uint *best_index,
                            __global const ck_real *gbest,
                            __global const ck_real *pbest_value,
                            __global const ck_real *pbest,
                            __global ck_real *outbox) {
  uint j = (uint)get_global_id(0);
  if (j <= forward + back)
    ck_pso_report_item(j, n, dim, forward, back, best_value, best_index,
                       gbest, pbest_value, pbest, outbox);
}

/* Work-item p keeps particle p's new position as its personal best if
 * values[p] beats it: the ring's second half of a move, and what follows
 * the evaluation kernels of lsq and user objectives. */
__kernel void ck_pso_keep(uint n, int dim, __global const ck_real *values,
                               __global ck_real *pbest_value,
                               __global const ck_real *x,
                               __global ck_real *pbest,
                               __global const uint *done) {
  uint p = (uint)get_global_id(0);
  if (p < n && !done[0])
    ck_pso_keep_best(p, n, dim, values[p], pbest_value, x, pbest);
}

