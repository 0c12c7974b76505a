/*
 * test_objectives.c - the built-in objectives: hand-computed values, the
 * known optima, no sampled point below an optimum, float against double,
 * and the OpenCL kernel against its ref twin; and the single-precision
 * functions ck_real.h writes out (its own logarithm, power and cosine, the
 * same bits on every backend) against the C library in double.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ck_bounds.h"
#include "ck_philox.h"
#include "ck_real.h"
#include "opencl_device.h"

static const ck_objective_info *find(const char *name) {
  const ck_objective_info *info = NULL;
  CHECK_OK(ck_objective_find(name, &info));
  return info;
}

static double value_at(const ck_device *ref, const char *name, const double *x,
                       int dim) {
  double value = NAN;
  CHECK_OK(ck_objective_evaluate(ref, find(name), dim, x, 1, 1, &value));
  return value;
}

static void hand_values(const ck_device *ref) {
  const double a[] = {1, 2, 3}, zero[] = {0, 0}, b[] = {1, 2}, c[] = {0};
  CHECK_NEAR(value_at(ref, "sphere", a, 3), 14, 1e-12);
  CHECK_NEAR(value_at(ref, "rastrigin", b, 2), 5, 1e-9);
  CHECK_NEAR(value_at(ref, "rosenbrock", zero, 2), 1, 1e-12);
  CHECK_NEAR(value_at(ref, "rosenbrock", b, 2), 100, 1e-12);
  CHECK_NEAR(value_at(ref, "griewank", zero, 2), 0, 1e-12);
  CHECK_NEAR(value_at(ref, "griewank", b, 2),
             1 + 5.0 / 4000 - cos(1.0) * cos(2 / sqrt(2.0)), 1e-12);
  CHECK_NEAR(value_at(ref, "ackley", zero, 2), 0, 1e-12);
  CHECK_NEAR(value_at(ref, "styblinski-tang", c, 1), 0, 1e-12);
  CHECK_NEAR(value_at(ref, "styblinski-tang", b, 2),
             0.5 * ((1 - 16 + 5) + (16 - 64 + 10)), 1e-12);
  CHECK_NEAR(value_at(ref, "f1", c, 1), 0, 1e-12);
  CHECK_NEAR(value_at(ref, "f2", b, 2), sin(3.0) + sin(4.0 / 3.0), 1e-12);
  CHECK_NEAR(value_at(ref, "schwefel", c, 1), 418.9828872724338, 1e-9);
  const double m[] = {2.20290552, 1.57079633};
  CHECK_NEAR(value_at(ref, "michalewicz", m, 2), -1.8013034, 1e-6);
}

/* The textbook formulas, written here with libm (not through the
 * project's code), for hand values away from the optima, where no term
 * cancels. */
static const double two_pi = 2 * 3.14159265358979323846;

static double textbook_rastrigin(const double *x, int n) {
  double f = 10.0 * n; /* 10 n + sum x^2 - 10 cos(2 pi x) */
  for (int i = 0; i < n; ++i)
    f += x[i] * x[i] - 10 * cos(two_pi * x[i]);
  return f;
}

static double textbook_ackley(const double *x, int n) {
  /* -20 exp(-0.2 sqrt(mean x^2)) - exp(mean cos(2 pi x)) + 20 + e */
  double squares = 0, cosines = 0;
  for (int i = 0; i < n; ++i) {
    squares += x[i] * x[i];
    cosines += cos(two_pi * x[i]);
  }
  return -20 * exp(-0.2 * sqrt(squares / n)) - exp(cosines / n) + 20 + exp(1.0);
}

static double textbook_rosenbrock(const double *x, int n) {
  double f = 0; /* sum 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2 */
  for (int i = 0; i + 1 < n; ++i)
    f += 100 * pow(x[i + 1] - x[i] * x[i], 2) + pow(1 - x[i], 2);
  return f;
}

static double textbook_schwefel(const double *x, int n) {
  double f = 418.9828872724338 * n; /* 418.98 n - sum x sin(sqrt|x|) */
  for (int i = 0; i < n; ++i)
    f -= x[i] * sin(sqrt(fabs(x[i])));
  return f;
}

static double textbook_michalewicz(const double *x, int n) {
  double f = 0; /* -sum sin(x[i]) sin((i+1) x[i]^2 / pi)^20 */
  for (int i = 0; i < n; ++i)
    f -= sin(x[i]) * pow(sin((i + 1) * x[i] * x[i] / (two_pi / 2)), 20);
  return f;
}

static double textbook_f1(const double *x, int n) {
  double f = 0; /* sum sin x + sin(2x/3) */
  for (int i = 0; i < n; ++i)
    f += sin(x[i]) + sin(2 * x[i] / 3);
  return f;
}

static double textbook_f2(const double *x, int n) {
  double f = 0; /* sum sin(x[i] + x[i+1]) + sin(2 x[i] x[i+1] / 3) */
  for (int i = 0; i + 1 < n; ++i)
    f += sin(x[i] + x[i + 1]) + sin(2 * x[i] * x[i + 1] / 3);
  return f;
}

/* Each objective at points where every term counts (no integer
 * coordinates for rastrigin's and ackley's cosines, no zeros for
 * schwefel's and f1's sines), in double and in float, against the
 * textbook formula. Coordinates are exact floats. Double agrees to 1e-12
 * relatively (ref rounds 2 pi x first: a few ulps of the argument). Float
 * within about 1e-6 of the largest term or sum (a few ulps; rastrigin's
 * polynomial is within 4e-7 of a term, ck_cos_2pi within 2e-7 absolute);
 * f2's sin(2 x y / 3) takes an argument near 58 rounded three times by up
 * to 6e-8: 1e-5, so 2e-5. A mutation shows far beyond: ackley's -0.2 as
 * -0.3 moves ackley at (1, 2) by 2.1. */
static void off_optimum_values(const ck_device *ref) {
  static const struct {
    const char *name;
    int dim;
    double x[3];
    double (*textbook)(const double *x, int n);
    double float_tolerance;
  } cases[] = {
      {"ackley", 2, {1, 2}, textbook_ackley, 2e-5},
      {"ackley", 2, {0.5, -1.25}, textbook_ackley, 2e-5},
      {"ackley", 3, {-3.75, 0.125, 7.5}, textbook_ackley, 2e-5},
      {"rastrigin", 2, {0.5, 1.25}, textbook_rastrigin, 3.2e-5}, /* 31.8 */
      {"rastrigin", 3, {-2.375, 0.1, 4.9}, textbook_rastrigin, 6e-5},
      {"rosenbrock", 3, {0.5, -1, 2}, textbook_rosenbrock, 2.6e-4}, /* 260 */
      {"schwefel", 2, {100, -250.5}, textbook_schwefel, 8.4e-4},    /* 840 */
      {"michalewicz", 2, {2, 1.5}, textbook_michalewicz, 2e-6},
      {"f1", 2, {3.5, 12}, textbook_f1, 2e-6},
      {"f2", 3, {3.5, 7.25, 12}, textbook_f2, 2e-5},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    double x[3], truth, value = NAN;
    for (int i = 0; i < cases[k].dim; ++i)
      x[i] = (double)(float)cases[k].x[i];
    truth = cases[k].textbook(x, cases[k].dim);
    if (ref->has_fp64) {
      CHECK_OK(ck_objective_evaluate(ref, find(cases[k].name), cases[k].dim, x,
                                     1, 1, &value));
      CHECK_MSG(fabs(value - truth) <= 1e-12 * (1 + fabs(truth)),
                "%s #%zu double: %.15g, expected %.15g", cases[k].name, k,
                value, truth);
    }
    CHECK_OK(ck_objective_evaluate(ref, find(cases[k].name), cases[k].dim, x, 1,
                                   0, &value));
    CHECK_MSG(fabs(value - truth) <= cases[k].float_tolerance,
              "%s #%zu float: %.9g, expected %.9g (tolerance %.3g)",
              cases[k].name, k, value, truth, cases[k].float_tolerance);
  }
}

/* ck_bound_coordinate (cl/ck_bounds.inc), its scalar form in float as the
 * host compiles it, by hand: clamp onto the bound; reflect at the bound,
 * and clamp a reflection that lands past the other bound; a point inside
 * (the bounds included) unchanged in every mode. */
static void bounds_hand_values(void) {
  static const struct {
    int mode;
    float x, lo, hi, expected;
  } cases[] = {
      {CK_BOUNDS_CLAMP, 1.3f, 0, 1, 1},
      {CK_BOUNDS_CLAMP, -0.25f, 0, 1, 0},
      {CK_BOUNDS_CLAMP, 2.5f, 0, 1, 1},
      {CK_BOUNDS_CLAMP, -7, -2, 3, -2},
      {CK_BOUNDS_REFLECT, 1.3f, 0, 1, 0.7f},
      {CK_BOUNDS_REFLECT, -0.25f, 0, 1, 0.25f},
      {CK_BOUNDS_REFLECT, 1.25f, 0, 1, 0.75f},
      {CK_BOUNDS_REFLECT, 3.5f, -2, 3, 2.5f},
      {CK_BOUNDS_REFLECT, -2.75f, -2, 3, -1.25f},
      /* Past the other bound after the reflection: clamped there. */
      {CK_BOUNDS_REFLECT, 2.5f, 0, 1, 0},  /* 1 - 1.5 = -0.5 */
      {CK_BOUNDS_REFLECT, -1.5f, 0, 1, 1}, /* 0 + 1.5 = 1.5 */
      {CK_BOUNDS_REFLECT, 9, -2, 3, -2},   /* 3 - 6 = -3 */
      {CK_BOUNDS_REFLECT, -8, -2, 3, 3},   /* -2 + 6 = 4 */
      {CK_BOUNDS_REFLECT, 2, 0, 1, 0},     /* 1 - 1 = 0, exactly lo */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    float moved = ck_bound_coordinate(cases[k].mode, cases[k].x, cases[k].lo,
                                      cases[k].hi, 1, 2, 3);
    CHECK_MSG(fabsf(moved - cases[k].expected) <= 1e-6f,
              "mode %d x=%g in [%g, %g]: %.9g, expected %.9g", cases[k].mode,
              (double)cases[k].x, (double)cases[k].lo, (double)cases[k].hi,
              (double)moved, (double)cases[k].expected);
  }
  static const float inside[][3] = {
      {0.4f, 0, 1}, {0, 0, 1}, {1, 0, 1}, {-1.75f, -2, 3}, {2.9f, -2, 3}};
  for (int mode = CK_BOUNDS_CLAMP; mode <= CK_BOUNDS_RANDOM; ++mode)
    for (size_t k = 0; k < sizeof inside / sizeof inside[0]; ++k)
      CHECK_MSG(ck_bound_coordinate(mode, inside[k][0], inside[k][1],
                                    inside[k][2], 5, k, 7) == inside[k][0],
                "mode %d moved %g, inside [%g, %g]", mode, (double)inside[k][0],
                (double)inside[k][1], (double)inside[k][2]);
}

/* The random mode: N seeded draws for points outside [lo, hi] (below and
 * above in turn) all lie in it, are the same again for the same
 * arguments, and look uniform: a uniform draw in [lo, hi] has mean
 * (lo + hi) / 2 and variance w^2 / 12 (w = hi - lo); the mean of N draws
 * has standard error w / sqrt(12 N), the mean of (v - mid)^2 has
 * w^2 / sqrt(180 N) (the variance of (U - 1/2)^2 is 1/80 - 1/144 = 1/180):
 * each within 6 standard errors. Exactly lo or hi has probability 2^-24
 * a draw: at most one such draw is allowed. */
static void bounds_random(void) {
  enum { N = 400 };
  const float lo = -2, hi = 3, w = hi - lo, mid = (lo + hi) / 2;
  double sum = 0, squares = 0;
  int outside = 0, at_bound = 0, repeatable = 1;
  for (int d = 0; d < N; ++d) {
    float x = d % 2 ? hi + 0.5f + (float)d : lo - 0.25f - (float)d;
    float v = ck_bound_coordinate(CK_BOUNDS_RANDOM, x, lo, hi, 11,
                                  (uint64_t)(d % 7), (uint64_t)d);
    outside += !(v >= lo && v <= hi);
    at_bound += v == lo || v == hi;
    repeatable &= ck_bound_coordinate(CK_BOUNDS_RANDOM, x, lo, hi, 11,
                                      (uint64_t)(d % 7), (uint64_t)d) == v;
    sum += v;
    squares += ((double)v - mid) * ((double)v - mid);
  }
  double mean = sum / N, spread = squares / N;
  double mean_error = w / sqrt(12.0 * N),
         spread_error = (double)w * w / sqrt(180.0 * N);
  CHECK_MSG(outside == 0, "%d random draws outside [%g, %g]", outside,
            (double)lo, (double)hi);
  CHECK_MSG(at_bound <= 1, "%d random draws on a bound", at_bound);
  CHECK(repeatable);
  CHECK_MSG(fabs(mean - mid) <= 6 * mean_error,
            "random draws' mean %.4g, expected %.4g within %.3g", mean,
            (double)mid, 6 * mean_error);
  CHECK_MSG(fabs(spread - (double)w * w / 12) <= 6 * spread_error,
            "random draws' mean (v - mid)^2 %.4g, expected %.4g within %.3g",
            spread, (double)w * w / 12, 6 * spread_error);
}

/* At the known optimum point the value is the known optimum, and no
 * point drawn in the domain is lower. */
static void optima(const ck_device *ref) {
  const ck_objective_info *table;
  size_t count;
  CHECK_OK(ck_objective_list(&table, &count));
  for (size_t k = 0; k < count; ++k) {
    const ck_objective_info *info = &table[k];
    if (!info->streamed || !info->has_optimum)
      continue;
    for (int dim = 1; dim <= 30; dim += 7) {
      double point[30], value = NAN, optimum = NAN;
      for (int i = 0; i < dim; ++i)
        point[i] = info->optimum_x;
      CHECK_OK(ck_objective_get_optimum(info, dim, &optimum));
      CHECK_OK(ck_objective_evaluate(ref, info, dim, point, 1, 1, &value));
      CHECK_MSG(fabs(value - optimum) <= 1e-9 * (1 + fabs(optimum)),
                "%s d=%d: %.12g at the optimum, expected %.12g", info->name,
                dim, value, optimum);
      /* Random points never beat it. */
      enum { SAMPLES = 200 };
      static double points[SAMPLES * 30], values[SAMPLES];
      for (int p = 0; p < SAMPLES; ++p)
        for (int i = 0; i < dim; ++i) {
          ck_philox_counter r = ck_philox_block(k, (uint64_t)p, (uint64_t)i);
          points[p * dim + i] =
              info->lo +
              (info->hi - info->lo) * ck_uniform_double(r.v[0], r.v[1]);
        }
      CHECK_OK(
          ck_objective_evaluate(ref, info, dim, points, SAMPLES, 1, values));
      int below = 0;
      for (int p = 0; p < SAMPLES; ++p)
        below += values[p] < optimum - 1e-9 * (1 + fabs(optimum));
      CHECK_MSG(below == 0, "%s d=%d: %d samples below the optimum", info->name,
                dim, below);
    }
  }
  double value;
  CHECK(ck_objective_get_optimum(find("f2"), 5, &value) == CK_ERROR_NOT_FOUND);
  CHECK_OK(ck_objective_get_optimum(find("michalewicz"), 10, &value));
  CHECK_NEAR(value, -9.66015, 1e-9);
  CHECK(ck_objective_get_optimum(find("michalewicz"), 3, &value) ==
        CK_ERROR_NOT_FOUND);
  const ck_objective_info *unknown = NULL;
  CHECK(ck_objective_find("rastrign", &unknown) == CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "rastrign") && strstr(message, "rastrigin"), "%s",
            message);
}

/* Random points: float and double on ref agree closely; a device agrees
 * with ref in each precision. */
static void agreement(const ck_device *ref, const ck_device *device) {
  enum { POINTS = 257, DIM = 13 };
  static double points[POINTS * DIM], f32[POINTS], f64[POINTS],
      device_f32[POINTS], device_f64[POINTS];
  const ck_objective_info *table;
  size_t count;
  CHECK_OK(ck_objective_list(&table, &count));
  for (size_t k = 0; k < count; ++k) {
    const ck_objective_info *info = &table[k];
    if (!info->streamed)
      continue;
    for (int i = 0; i < POINTS * DIM; ++i) {
      ck_philox_counter r = ck_philox_block(99, k, (uint64_t)i);
      points[i] =
          info->lo + (info->hi - info->lo) * ck_uniform_double(r.v[0], r.v[1]);
      points[i] = (double)(float)points[i]; /* exact in both precisions */
    }
    CHECK_OK(ck_objective_evaluate(ref, info, DIM, points, POINTS, 0, f32));
    CHECK_OK(ck_objective_evaluate(ref, info, DIM, points, POINTS, 1, f64));
    double worst = 0, worst_device32 = 0, worst_device64 = 0;
    /* Relative to the function's scale over the sample, since values
     * pass through zero. */
    double scale = 1e-30;
    for (int p = 0; p < POINTS; ++p)
      scale = fmax(scale, fabs(f64[p]));
    for (int p = 0; p < POINTS; ++p)
      worst = fmax(worst, fabs(f32[p] - f64[p]) / scale);
    CHECK_MSG(worst < 1e-5, "%s: float vs double %.3g", info->name, worst);
    if (!device)
      continue;
    CHECK_OK(ck_objective_evaluate(device, info, DIM, points, POINTS, 0,
                                   device_f32));
    for (int p = 0; p < POINTS; ++p)
      worst_device32 =
          fmax(worst_device32, fabs(device_f32[p] - f32[p]) / scale);
    CHECK_MSG(worst_device32 < 1e-5, "%s: %s float vs ref %.3g", info->name,
              device->id, worst_device32);
    if (device->has_fp64) {
      CHECK_OK(ck_objective_evaluate(device, info, DIM, points, POINTS, 1,
                                     device_f64));
      for (int p = 0; p < POINTS; ++p)
        worst_device64 =
            fmax(worst_device64, fabs(device_f64[p] - f64[p]) / scale);
      CHECK_MSG(worst_device64 < 1e-12, "%s: %s double vs ref %.3g", info->name,
                device->id, worst_device64);
    }
  }
}

/* Bits of a float, and the float of some bits. */
static float float_of(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static uint32_t bits_of(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static void written_out_math(void) {
  /* log2 over every 61st float from 2^-30 to 2^30: within 1.5e-7 of the
   * true value relatively (about one ulp near 1, where it matters most;
   * half an ulp of the result's rounding elsewhere). */
  double worst_log = 0, worst_at = 0;
  for (uint32_t b = bits_of(0x1p-30f); b < bits_of(0x1p30f); b += 61) {
    float x = float_of(b);
    if (x == 1.0f)
      continue;
    double truth = log2((double)x);
    double relative = fabs((double)ck_log2(x) - truth) / fabs(truth);
    if (relative > worst_log) {
      worst_log = relative;
      worst_at = x;
    }
  }
  CHECK_MSG(worst_log <= 1.5e-7, "ck_log2: relative error %.3g at %.9g",
            worst_log, worst_at);
  int exact = ck_log2(1.0f) == 0.0f;
  for (int k = -126; k <= 127; ++k)
    exact &= ck_log2(ldexpf(1.0f, k)) == (float)k &&
             ck_exp2((float)k) == ldexpf(1.0f, k);
  CHECK_MSG(exact, "ck_log2 and ck_exp2 are not exact at powers of two");
  /* exp2 over [-126, 127]: within 1e-7 relatively. */
  double worst_exp = 0;
  for (long i = 0; i <= 2000000; ++i) {
    float z = -126.0f + 253.0f * (float)i / 2000000.0f;
    double truth = exp2((double)z);
    worst_exp = fmax(worst_exp, fabs((double)ck_exp2(z) - truth) / truth);
  }
  CHECK_MSG(worst_exp <= 1e-7, "ck_exp2: relative error %.3g", worst_exp);
  CHECK(ck_exp2(-127.5f) == 0.0f);
  /* x^y as the GA takes it (x in (0, 2], y in [-1, 1]): the product y
   * log2(x) rounds to within |y log2 x| 6e-8, then exp2's own error. */
  double worst_pow = 0;
  for (uint64_t i = 0; i < 1000000; ++i) {
    ck_philox_counter r = ck_philox_block(5, 17, i);
    float x = 2.0f * (float)((r.v[0] >> 8) + 1) * 0x1p-24f;
    float y = 2.0f * ck_uniform_real(r.v[1]) - 1.0f;
    double product = fabs((double)y * log2((double)x));
    double truth = pow((double)x, (double)y);
    double relative = fabs((double)ck_pow_positive(x, y) - truth) / truth;
    worst_pow = fmax(worst_pow, relative / (6e-8 * product + 1.5e-7));
  }
  CHECK_MSG(worst_pow <= 1.0, "ck_pow_positive: %.3g of its bound", worst_pow);
  CHECK(ck_pow_positive(0.0f, 0.5f) == 0.0f &&
        ck_pow_positive(1.0f, 0.3f) == 1.0f);
  /* cos(2 pi x) and sin(2 pi x) over [-2, 2]: within 2e-7 (absolute). */
  double worst_cos = 0, worst_sin = 0;
  for (long i = 0; i <= 4000000; ++i) {
    float x = -2.0f + 4.0f * (float)i / 4000000.0f;
    double angle = 2 * 3.14159265358979323846 * (double)x;
    worst_cos = fmax(worst_cos, fabs((double)ck_cos_2pi(x) - cos(angle)));
    worst_sin = fmax(worst_sin, fabs((double)ck_sin_2pi(x) - sin(angle)));
  }
  CHECK_MSG(worst_cos <= 2e-7 && worst_sin <= 2e-7,
            "cos(2 pi x) off by %.3g, sin(2 pi x) by %.3g", worst_cos,
            worst_sin);
}

/* ---- NULL arguments and bad counts, named ---------------------------------
 */

static ck_status null_objective_list(void *context, int which) {
  (void)context;
  const ck_objective_info *table = NULL;
  size_t count = 0;
  return ck_objective_list(NULL_AT(0, &table), NULL_AT(1, &count));
}

static ck_status null_objective_find(void *context, int which) {
  (void)context;
  const ck_objective_info *info = NULL;
  return ck_objective_find(NULL_AT(0, "sphere"), NULL_AT(1, &info));
}

static ck_status null_objective_get_optimum(void *context, int which) {
  (void)context;
  double value = 0;
  return ck_objective_get_optimum(NULL_AT(0, find("sphere")), 2,
                                  NULL_AT(1, &value));
}

static ck_status null_objective_evaluate(void *context, int which) {
  double points[2] = {0, 0}, values[1];
  return ck_objective_evaluate(NULL_AT(0, (const ck_device *)context),
                               NULL_AT(1, find("sphere")), 2,
                               NULL_AT(2, points), 1, 0, NULL_AT(3, values));
}

static void null_arguments(const ck_device *ref) {
  static const check_null_case cases[] = {
      {"ck_objective_list", {"table", "count"}, null_objective_list},
      {"ck_objective_find", {"name", "info"}, null_objective_find},
      {"ck_objective_get_optimum",
       {"info", "value"},
       null_objective_get_optimum},
      {"ck_objective_evaluate",
       {"device", "info", "points", "values"},
       null_objective_evaluate},
  };
  check_null_arguments(cases, sizeof cases / sizeof cases[0], (void *)ref);
  double points[2] = {0, 0}, value = 0;
  CHECK_INVALID(ck_objective_get_optimum(find("sphere"), 0, &value),
                "ck_objective_get_optimum: dim is 0");
  CHECK_INVALID(
      ck_objective_evaluate(ref, find("sphere"), -1, points, 1, 0, &value),
      "ck_objective_evaluate: dim is -1");
  CHECK_INVALID(
      ck_objective_evaluate(ref, find("sphere"), 2, points, 0, 0, &value),
      "ck_objective_evaluate: count is 0");
}

int main(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  hand_values(ref);
  off_optimum_values(ref);
  bounds_hand_values();
  bounds_random();
  optima(ref);
  written_out_math();
  null_arguments(ref);
  long opencl = test_opencl_device(&set);
  agreement(ref, opencl >= 0 ? &set.devices[opencl] : NULL);
  double value;
  CHECK(ck_objective_evaluate(ref, find("lsq"), 2, &value, 1, 0, &value) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
