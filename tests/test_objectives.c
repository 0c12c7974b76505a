/*
 * test_objectives.c - the built-in objectives: hand-computed values, the
 * known optima, no sampled point below an optimum, float against double,
 * and the OpenCL kernel against its ref twin.
 */
#include <stdint.h>

#include "check.h"
#include "ck_philox.h"
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
      CHECK_OK(ck_objective_optimum(info, dim, &optimum));
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
  CHECK(ck_objective_optimum(find("f2"), 5, &value) == CK_ERROR_NOT_FOUND);
  CHECK_OK(ck_objective_optimum(find("michalewicz"), 10, &value));
  CHECK_NEAR(value, -9.66015, 1e-9);
  CHECK(ck_objective_optimum(find("michalewicz"), 3, &value) ==
        CK_ERROR_NOT_FOUND);
  const ck_objective_info *unknown = NULL;
  CHECK(ck_objective_find("rastrign", &unknown) == CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_last(&message);
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

int main(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  hand_values(ref);
  optima(ref);
  long opencl = test_opencl_device(&set);
  agreement(ref, opencl >= 0 ? &set.devices[opencl] : NULL);
  double value;
  CHECK(ck_objective_evaluate(ref, find("lsq"), 2, &value, 1, 0, &value) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
