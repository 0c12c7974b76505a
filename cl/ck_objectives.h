/*
 * ck_objectives.h - the built-in objectives, shared by the PSO and GA
 * kernels and by their ref steps (host C), in either precision.
 *
 * Each objective is evaluated as a stream over the dimensions, so that a
 * kernel can fold the evaluation into the same loop that updates a
 * position (no second pass over memory):
 *
 *   ck_objective_state s;
 *   ck_objective_begin(id, &s);
 *   for (i = 0; i < dim; ++i) ck_objective_add(id, &s, i, x[i]);
 *   value = ck_objective_finish(id, &s, dim);
 *
 * In kernels `id` is a build-time constant, so the switches fold away.
 * Domains and known optima are in src/objectives/objectives.c.
 */
#ifndef CK_OBJECTIVES_H
#define CK_OBJECTIVES_H

#include "ck_real.h"

#define CK_OBJECTIVE_SPHERE 0
#define CK_OBJECTIVE_RASTRIGIN 1
#define CK_OBJECTIVE_ROSENBROCK 2
#define CK_OBJECTIVE_GRIEWANK 3
#define CK_OBJECTIVE_ACKLEY 4
#define CK_OBJECTIVE_SCHWEFEL 5
#define CK_OBJECTIVE_MICHALEWICZ 6
#define CK_OBJECTIVE_STYBLINSKI_TANG 7
#define CK_OBJECTIVE_SINE_SUM 8   /* f1: sum of sin x + sin(2x/3) */
#define CK_OBJECTIVE_SINE_PAIRS 9 /* f2: pairs of neighbouring coordinates */
#define CK_OBJECTIVE_STREAMED_COUNT 10
#define CK_OBJECTIVE_LSQ 10  /* data-driven least squares: separate kernels */
#define CK_OBJECTIVE_USER 11 /* user OpenCL C: in the move or after it */
#define CK_OBJECTIVE_HOST 12 /* evaluated on the host: values written */
/* Whether ck_objective_term gives a second share to fold (its aux_term). */
#define CK_OBJECTIVE_HAS_AUX(id)                                               \
  ((id) == CK_OBJECTIVE_GRIEWANK || (id) == CK_OBJECTIVE_ACKLEY)

/* Schwefel 2.26's offset: 418.98288727243380 per dimension. */
#define CK_SCHWEFEL_OFFSET 418.9828872724337998

/* The scalar forms; cl/ck_lanes.h makes the same functions over vectors
 * of particles. */
#define CK_TEMPLATE_REAL ck_real
#define CK_TEMPLATE_NAME(name) name
#include "ck_objectives.inc"

#endif /* CK_OBJECTIVES_H */
