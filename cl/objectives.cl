/*
 * objectives.cl - batch evaluation of a built-in objective. Its ref twin
 * is ref_evaluate() in src/objectives/objectives.c.
 *
 * Build-time defines: CK_OBJECTIVE (an id of ck_objectives.h),
 * CK_REAL_DOUBLE (0 or 1).
 */
#include "ck_objectives.h"

#ifndef CK_OBJECTIVE
#error "CK_OBJECTIVE must be defined by the host"
#endif

/* Work-item p evaluates point p (row p of points, dim coordinates). */
__kernel void ck_objectives_evaluate(__global const ck_real *points,
                                     uint count, int dim,
                                     __global ck_real *values) {
  uint p = (uint)get_global_id(0);
  if (p >= count)
    return;
  ck_objective_state s;
  ck_objective_begin(CK_OBJECTIVE, &s);
  for (int i = 0; i < dim; ++i)
    ck_objective_add(CK_OBJECTIVE, &s, i, points[(size_t)p * dim + i]);
  values[p] = ck_objective_finish(CK_OBJECTIVE, &s, dim);
}
