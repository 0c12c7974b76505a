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

/* The guide's coordinate for particle p: row[index] of a dimension's row
 * (the global best's, or every personal best's, read at p's neighbour). */
CK_FN ck_real ck_pso_guide(CK_GLOBAL const ck_real *row, ck_u32 index) {
  return row[index];
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

/* A particle's move, scalar here; ck_pso_lanes.h makes it over vectors of
 * particles. */
#define CK_TEMPLATE_REAL ck_real
#define CK_TEMPLATE_INDEX ck_u32
#define CK_TEMPLATE_FIRST(p) (p)
#define CK_TEMPLATE_LOAD(pointer) (*(pointer))
#define CK_TEMPLATE_STORE(value, pointer) (*(pointer) = (value))
#define CK_TEMPLATE_NAME(name) name
#include "ck_pso_move.inc"

/*
 * Draws particle p's position uniformly in the domain and its velocity
 * uniformly in +-(hi - lo) * velocity_init (within vmax); pbest starts at
 * the position. Returns the objective there when `objective` is streamed.
 * Its random stream is that of particle first + p of the whole swarm (a
 * slice of a spread swarm begins at first; 0 otherwise).
 */
CK_FN ck_real ck_pso_initialise_particle(
    int objective, ck_u32 p, ck_u32 first, ck_u32 n, int dim, ck_u64 seed,
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
        seed, ck_pso_stream(CK_PSO_STREAM_INIT, first + p), (ck_u64)pair);
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

/*
 * ck_pso_ring_best for particle p of a slice of a spread swarm: particles
 * first .. first + n - 1 of a swarm of `total`, with halo items for the
 * (k - 1) / 2 particles before its first on the ring and the rest after
 * its last, in that order. An item is a personal best's value and then its
 * dim coordinates: item_size = dim + 1 reals. Neighbours are compared by
 * their indices in the swarm, in the whole swarm's order, so the choice is
 * the whole swarm's. Returns a particle of the slice (below n), or n plus
 * the index of a halo item.
 */
CK_FN ck_u32 ck_pso_ring_best_slice(ck_u32 p, ck_u32 n, ck_u32 k, ck_u32 first,
                                    ck_u32 total,
                                    CK_GLOBAL const ck_real *pbest_value,
                                    CK_GLOBAL const ck_real *halo,
                                    ck_u32 item_size) {
  ck_u32 before = (k - 1u) / 2u;
  ck_u32 best = 0, best_index = 0;
  ck_real best_value = CK_R(0);
  /* w runs over the halo before, the slice, then the halo after. */
  for (ck_u32 j = 0; j < k; ++j) {
    ck_u32 w = p + j;
    ck_u32 at = w < before ? n + w : (w < before + n ? w - before : w);
    ck_real value =
        at < n ? pbest_value[at] : halo[(ck_u64)(at - n) * item_size];
    ck_u64 index = (ck_u64)first + w + total - before;
    index = index >= total ? index - total : index;
    index = index >= total ? index - total : index;
    if (j == 0 || ck_better(value, (ck_u32)index, best_value, best_index)) {
      best = at;
      best_value = value;
      best_index = (ck_u32)index;
    }
  }
  return best;
}

/* The guide of a ring particle whose best neighbour is `neighbour`
 * (ck_pso_ring_best or ck_pso_ring_best_slice): its personal best in the
 * slice's rows, stride n, or a halo item's coordinates, stride 1. Returns
 * the row to read at *index, stepping *stride a dimension. */
CK_FN CK_GLOBAL const ck_real *
ck_pso_ring_guide(ck_u32 neighbour, ck_u32 n, int dim,
                  CK_GLOBAL const ck_real *pbest, CK_GLOBAL const ck_real *halo,
                  ck_u32 *index, ck_u32 *stride) {
  if (neighbour < n) {
    *index = neighbour;
    *stride = n;
    return pbest;
  }
  *index = (neighbour - n) * (ck_u32)(dim + 1);
  *stride = 1;
  return halo + 1;
}

/*
 * Item j of a spread member's outbox, which the host reads once an
 * iteration (ck_pso_report in cl/pso.cl): item 0 is the member's best
 * value and gbest; items 1 to `forward` its last `forward` particles'
 * personal bests, for the next member's halo; the `back` items after them
 * its first particles', for the previous member's. An item is a value and
 * dim coordinates. Item 0 also writes the best's index, a word after the
 * items.
 */
CK_FN void ck_pso_report_item(ck_u32 j, ck_u32 n, int dim, ck_u32 forward,
                              ck_u32 back, CK_GLOBAL const ck_real *best_value,
                              CK_GLOBAL const ck_u32 *best_index,
                              CK_GLOBAL const ck_real *gbest,
                              CK_GLOBAL const ck_real *pbest_value,
                              CK_GLOBAL const ck_real *pbest,
                              CK_GLOBAL ck_real *outbox) {
  ck_u64 size = (ck_u64)dim + 1u;
  CK_GLOBAL ck_real *item = outbox + j * size;
  if (j == 0) {
    item[0] = best_value[0];
    for (int d = 0; d < dim; ++d)
      item[1 + d] = gbest[d];
    CK_GLOBAL ck_u32 *word =
        (CK_GLOBAL ck_u32 *)(outbox + (1u + forward + back) * size);
    word[0] = best_index[0];
    return;
  }
  ck_u32 p = j <= forward ? n - forward + (j - 1u) : j - 1u - forward;
  item[0] = pbest_value[p];
  for (int d = 0; d < dim; ++d)
    item[1 + d] = pbest[(ck_u64)d * n + p];
}

#endif /* CK_PSO_H */
