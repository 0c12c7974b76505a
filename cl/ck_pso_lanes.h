/*
 * ck_pso_lanes.h - the PSO's move over CK_LANES particles a work-item, a
 * particle a lane (ck_lanes.h): the template of ck_pso_move.inc made over
 * vectors, its names ending in _lanes, and the keeping of personal bests.
 * The lanes hold consecutive particles, so that each dimension's row
 * (element (d, p) at d * n + p) is read and written as one vector.
 */
#ifndef CK_PSO_LANES_H
#define CK_PSO_LANES_H

#include "ck_lanes.h"
#include "ck_pso.h"

CK_FN ck_u64_lanes ck_pso_stream_lanes(ck_u32 purpose, ck_u32_lanes particle) {
  return (ck_u64_lanes)((ck_u64)purpose << 32) | ck_convert_u64_lanes(particle);
}

/* The guide's coordinates: one value for every lane under gbest (all
 * indices 0), else a lane's neighbour's, read one by one. */
CK_FN ck_real_lanes ck_pso_guide_lanes(CK_GLOBAL const ck_real *row,
                                       ck_u32_lanes index) {
  if (all(index == index.s0))
    return (ck_real_lanes)row[index.s0];
  return CK_GATHER_LANES(row, index);
}

/* ck_pso_keep_best for the particles of the lanes of p (consecutive):
 * each lane's new position becomes its personal best where value beats
 * it. */
CK_FN void ck_pso_keep_best_lanes(ck_u32_lanes p, ck_u32 n, int dim,
                                  ck_real_lanes value,
                                  CK_GLOBAL ck_real *pbest_value,
                                  CK_GLOBAL const ck_real *x,
                                  CK_GLOBAL ck_real *pbest) {
  ck_u32 first = p.s0;
  ck_real_lanes kept = ck_load_lanes(0, pbest_value + first);
  ck_mask_lanes better = value < kept;
  if (!any(better))
    return;
  ck_store_lanes(better ? value : kept, 0, pbest_value + first);
  x += first;
  pbest += first;
  for (int d = 0; d < dim; ++d, x += n, pbest += n)
    ck_store_lanes(better ? ck_load_lanes(0, x) : ck_load_lanes(0, pbest), 0,
                   pbest);
}

#define CK_TEMPLATE_REAL ck_real_lanes
#define CK_TEMPLATE_INDEX ck_u32_lanes
#define CK_TEMPLATE_FIRST(p) ((p).s0)
#define CK_TEMPLATE_LOAD(pointer) ck_load_lanes(0, pointer)
#define CK_TEMPLATE_STORE(value, pointer) ck_store_lanes(value, 0, pointer)
#define CK_TEMPLATE_NAME(name) name##_lanes
#include "ck_pso_move.inc"

#endif /* CK_PSO_LANES_H */
