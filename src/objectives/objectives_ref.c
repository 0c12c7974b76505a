/*
 * objectives_ref.c - ref twin of cl/objectives.cl, compiled once per
 * precision (CK_REAL_DOUBLE=0 and 1).
 */
#include <stddef.h>

#include "ck_objectives.h"
#include "runtime/real_variant.h"

void CK_VARIANT(ck__objectives_ref)(int id, int dim, const double *points,
                                    size_t count, double *values);

/* Point p is evaluated alone, exactly as work-item p does on a device. */
void CK_VARIANT(ck__objectives_ref)(int id, int dim, const double *points,
                                    size_t count, double *values) {
  for (size_t p = 0; p < count; ++p) {
    ck_objective_state s;
    ck_objective_begin(id, &s);
    for (int i = 0; i < dim; ++i)
      ck_objective_add(id, &s, i, (ck_real)points[p * (size_t)dim + (size_t)i]);
    values[p] = (double)ck_objective_finish(id, &s, dim);
  }
}
