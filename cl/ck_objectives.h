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
#define CK_OBJECTIVE_USER 11 /* user OpenCL C: separate kernel */

/* Schwefel 2.26's offset: 418.98288727243380 per dimension. */
#define CK_SCHWEFEL_OFFSET 418.9828872724337998

typedef struct ck_objective_state {
  ck_real sum;
  ck_real aux;      /* griewank's product, ackley's cosine sum */
  ck_real previous; /* the last coordinate, for the pairwise objectives */
} ck_objective_state;

CK_FN void ck_objective_begin(int id, ck_objective_state *s) {
  s->sum = CK_R(0);
  s->aux = id == CK_OBJECTIVE_GRIEWANK ? CK_R(1) : CK_R(0);
  s->previous = CK_R(0);
}

/*
 * Rastrigin's term x^2 + 10 - 10 cos(2 pi x), written x^2 + 20 sin^2(pi x):
 * the same function without the cancellation of 10 - 10 cos near the
 * minima (relative error under 4e-7 everywhere in single precision), and
 * fewer instructions. In single precision sin(pi x) is clkit's own, so
 * that every backend gets the same bits: y = x - rint(x), exactly, in
 * [-1/2, 1/2]; w = sqrt(20) sin(pi y) = y P(y^2), P of degree 4 fitted at
 * 400 Chebyshev nodes of y^2 in [0, 1/4] (|sin(pi y)| = |sin(pi x)|);
 * then x^2 + w^2 in one fused multiply-add.
 */
CK_FN ck_real ck_rastrigin_term(ck_real x) {
#if CK_REAL_DOUBLE
#if defined(CK_LANG_OPENCL) || defined(CK_LANG_CUDA)
  ck_real w = sinpi(x);
#else
  ck_real w = sin(CK_PI * (x - rint(x)));
#endif
  return CK_FMA(CK_R(20) * w, w, x * x);
#else
  float y = x - CK_RINT(x), s = y * y;
  float p = CK_FMA(
      CK_FMA(CK_FMA(CK_FMA(0.347295612f, s, -2.67563987f), s, 11.4042931f), s,
             -23.1107025f),
      s, 14.0496292f);
  float w = y * p;
  return CK_FMA(w, w, x * x);
#endif
}

/*
 * Coordinate i's share of the objective, computed on its own so that
 * coordinates may be worked on in parallel: *sum_term and *aux_term, given
 * x and the previous coordinate (read by the pairwise objectives only).
 * ck_objective_combine then folds the shares into the state in coordinate
 * order; ck_objective_add does both, and rounds exactly as they do.
 */
CK_FN void ck_objective_term(int id, int i, ck_real x, ck_real previous,
                             ck_real *sum_term, ck_real *aux_term) {
  ck_real t, u;
  *sum_term = CK_R(0);
  *aux_term = CK_R(0);
  switch (id) {
  case CK_OBJECTIVE_SPHERE:
    *sum_term = x * x;
    break;
  case CK_OBJECTIVE_RASTRIGIN:
    *sum_term = ck_rastrigin_term(x);
    break;
  case CK_OBJECTIVE_ROSENBROCK:
    t = x - previous * previous;
    u = CK_R(1) - previous;
    *sum_term = CK_R(100) * t * t + u * u;
    break;
  case CK_OBJECTIVE_GRIEWANK:
    *sum_term = x * x;
    *aux_term = CK_COS(x / CK_SQRT((ck_real)(i + 1)));
    break;
  case CK_OBJECTIVE_ACKLEY:
    *sum_term = x * x;
    *aux_term = CK_COS_2PI(x);
    break;
  case CK_OBJECTIVE_SCHWEFEL:
    *sum_term = x * CK_SIN(CK_SQRT(CK_FABS(x)));
    break;
  case CK_OBJECTIVE_MICHALEWICZ:
    /* sin(x) * sin((i+1) x^2 / pi)^(2m) with m = 10, subtracted */
    t = CK_SIN((ck_real)(i + 1) * x * x * CK_R(1.0 / CK_PI));
    t = t * t;         /* ^2 */
    u = t * t;         /* ^4 */
    u = u * u;         /* ^8 */
    u = u * u * t * t; /* ^20 */
    *sum_term = CK_SIN(x) * u;
    break;
  case CK_OBJECTIVE_STYBLINSKI_TANG:
    t = x * x;
    *sum_term = t * t - CK_R(16) * t + CK_R(5) * x;
    break;
  case CK_OBJECTIVE_SINE_SUM:
    *sum_term = CK_SIN(x) + CK_SIN(CK_R(2.0 / 3.0) * x);
    break;
  case CK_OBJECTIVE_SINE_PAIRS:
    *sum_term = CK_SIN(previous + x) + CK_SIN(CK_R(2.0 / 3.0) * previous * x);
    break;
  default:
    break;
  }
}

/* Folds coordinate i's shares (ck_objective_term) into the state; x is
 * kept as the previous coordinate for the next one. */
CK_FN void ck_objective_combine(int id, ck_objective_state *s, int i, ck_real x,
                                ck_real sum_term, ck_real aux_term) {
  switch (id) {
  case CK_OBJECTIVE_ROSENBROCK:
  case CK_OBJECTIVE_SINE_PAIRS:
    /* Pairs start at the second coordinate. */
    if (i > 0)
      s->sum += sum_term;
    s->previous = x;
    break;
  case CK_OBJECTIVE_GRIEWANK:
    s->sum += sum_term;
    s->aux *= aux_term;
    break;
  case CK_OBJECTIVE_ACKLEY:
    s->sum += sum_term;
    s->aux += aux_term;
    break;
  case CK_OBJECTIVE_MICHALEWICZ:
    s->sum -= sum_term;
    break;
  default:
    s->sum += sum_term;
    break;
  }
}

CK_FN void ck_objective_add(int id, ck_objective_state *s, int i, ck_real x) {
  ck_real sum_term, aux_term;
  ck_objective_term(id, i, x, s->previous, &sum_term, &aux_term);
  ck_objective_combine(id, s, i, x, sum_term, aux_term);
}

CK_FN ck_real ck_objective_finish(int id, const ck_objective_state *s,
                                  int dim) {
  ck_real n = (ck_real)dim;
  switch (id) {
  case CK_OBJECTIVE_GRIEWANK:
    return CK_R(1) + s->sum * CK_R(1.0 / 4000.0) - s->aux;
  case CK_OBJECTIVE_ACKLEY:
    return CK_R(-20) * CK_EXP(CK_R(-0.2) * CK_SQRT(s->sum / n)) -
           CK_EXP(s->aux / n) + CK_R(20) + CK_R(2.718281828459045);
  case CK_OBJECTIVE_SCHWEFEL:
    return CK_R(CK_SCHWEFEL_OFFSET) * n - s->sum;
  case CK_OBJECTIVE_STYBLINSKI_TANG:
    return CK_R(0.5) * s->sum;
  default:
    return s->sum;
  }
}

#endif /* CK_OBJECTIVES_H */
