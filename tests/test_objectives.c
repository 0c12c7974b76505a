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

int main(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  hand_values(ref);
  optima(ref);
  written_out_math();
  long opencl = test_opencl_device(&set);
  agreement(ref, opencl >= 0 ? &set.devices[opencl] : NULL);
  double value;
  CHECK(ck_objective_evaluate(ref, find("lsq"), 2, &value, 1, 0, &value) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
