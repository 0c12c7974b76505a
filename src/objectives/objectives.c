/*
 * objectives.c - the table of built-in objectives (domains and known
 * optima) and batch evaluation on any device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "objectives/problem.h"
#include "util/util.h"

/* Domains and optima as usually published for these test functions. */
static const ck_objective_info objective_table[] = {
    {"sphere", CK_OBJECTIVE_SPHERE, "sum x^2", -5.12, 5.12, 1, 1, 0, 0, 0},
    {"rastrigin", CK_OBJECTIVE_RASTRIGIN, "10 d + sum x^2 - 10 cos(2 pi x)",
     -5.12, 5.12, 1, 1, 0, 0, 0},
    {"rosenbrock", CK_OBJECTIVE_ROSENBROCK,
     "sum 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2", -5, 10, 1, 1, 0, 0, 1},
    {"griewank", CK_OBJECTIVE_GRIEWANK,
     "1 + sum x^2 / 4000 - prod cos(x[i] / sqrt(i+1))", -600, 600, 1, 1, 0, 0,
     0},
    {"ackley", CK_OBJECTIVE_ACKLEY,
     "-20 exp(-0.2 sqrt(mean x^2)) - exp(mean cos(2 pi x)) + 20 + e", -32.768,
     32.768, 1, 1, 0, 0, 0},
    {"schwefel", CK_OBJECTIVE_SCHWEFEL,
     "418.9829 d - sum x sin(sqrt|x|) (Schwefel 2.26)", -500, 500, 1, 1, 0, 0,
     420.96874681163},
    {"michalewicz", CK_OBJECTIVE_MICHALEWICZ,
     "-sum sin(x[i]) sin((i+1) x[i]^2 / pi)^20", 0, CK_PI, 1, 0, 0, 0, NAN},
    {"styblinski-tang", CK_OBJECTIVE_STYBLINSKI_TANG,
     "sum (x^4 - 16 x^2 + 5 x) / 2", -5, 5, 1, 1, -39.16616570377142, 0,
     -2.903534007056716},
    {"f1", CK_OBJECTIVE_SINE_SUM, "sum sin x + sin(2x/3)", 3, 13, 1, 1,
     -1.2159821750809088, 0, 5.362247561175215},
    {"f2", CK_OBJECTIVE_SINE_PAIRS,
     "sum sin(x[i] + x[i+1]) + sin(2 x[i] x[i+1] / 3)", 3, 13, 1, 0, 0, 0, NAN},
    {"lsq", CK_OBJECTIVE_LSQ, "sum_j (b_j - sum_d x_d a_jd)^2 over --data", -10,
     10, 0, 1, 0, 0, NAN},
};
static const size_t objective_count =
    sizeof objective_table / sizeof objective_table[0];

ck_status ck_objective_list(const ck_objective_info **table, size_t *count) {
  CK__REQUIRE(table);
  CK__REQUIRE(count);
  *table = objective_table;
  *count = objective_count;
  return CK_OK;
}

ck_status ck_objective_find(const char *name, const ck_objective_info **info) {
  CK__REQUIRE(name);
  CK__REQUIRE(info);
  for (size_t i = 0; i < objective_count; ++i) {
    if (strcmp(objective_table[i].name, name) == 0) {
      *info = &objective_table[i];
      return CK_OK;
    }
  }
  ck__nearest nearest;
  ck__nearest_begin(&nearest, name);
  ck__fail(CK_ERROR_INVALID_ARGUMENT, "unknown function '%s'; built in:", name);
  for (size_t i = 0; i < objective_count; ++i) {
    ck__fail_append(" %s", objective_table[i].name);
    ck__nearest_offer(&nearest, objective_table[i].name);
  }
  return ck__nearest_append(&nearest, "");
}

ck_status ck_objective_get_optimum(const ck_objective_info *info, int dim,
                                   double *value) {
  /* Published minima of Michalewicz's function (m = 10). */
  static const struct {
    int dim;
    double value;
  } michalewicz[] = {{2, -1.8013034}, {5, -4.687658}, {10, -9.66015}};
  CK__REQUIRE(info);
  CK__REQUIRE(value);
  if (dim < 1)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_objective_get_optimum: dim is %d; it must be at least 1", dim);
  if (info->id == CK_OBJECTIVE_MICHALEWICZ) {
    for (size_t i = 0; i < sizeof michalewicz / sizeof michalewicz[0]; ++i) {
      if (michalewicz[i].dim == dim) {
        *value = michalewicz[i].value;
        return CK_OK;
      }
    }
  }
  if (!info->has_optimum || info->id == CK_OBJECTIVE_LSQ)
    return ck__fail(CK_ERROR_NOT_FOUND,
                    "no known optimum for %s in %d dimensions", info->name,
                    dim);
  *value = info->optimum_per_dim * dim + info->optimum_constant;
  return CK_OK;
}

/* ck_objective_evaluate's checks of its arguments past the pointers: a
 * batch the kernel can index, of a function that needs no data, in a
 * precision the device has. */
static ck_status check_evaluation(const ck_device *device,
                                  const ck_objective_info *info, int dim,
                                  size_t count, int double_precision) {
  if (dim < 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_objective_evaluate: dim is %d; it must be at least 1",
                    dim);
  if (count == 0 || count > UINT32_MAX)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_objective_evaluate: count is %zu, outside 1 to "
                    "2^32 - 1",
                    count);
  if (!info->streamed)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_objective_evaluate: %s needs its data; it is "
                    "evaluated by its workload",
                    info->name);
  if (double_precision && !device->has_fp64)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "device %s has no fp64: double precision is unavailable",
                    device->id);
  return CK_OK;
}

ck_status ck_objective_evaluate(const ck_device *device,
                                const ck_objective_info *info, int dim,
                                const double *points, size_t count,
                                int double_precision, double *values) {
  ck_status status = CK_OK;
  ck_queue *queue = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  ck_buffer *input = NULL, *output = NULL;
  void *staging = NULL;
  CK__REQUIRE(device);
  CK__REQUIRE(info);
  CK__REQUIRE(points);
  CK__REQUIRE(values);
  CK_TRY(check_evaluation(device, info, dim, count, double_precision));
  if (!ck__device_runs_kernels(device)) {
    (double_precision ? ck__objectives_ref_f64 : ck__objectives_ref_f32)(
        info->id, dim, points, count, values);
    return CK_OK;
  }
  size_t elements = count * (size_t)dim;
  size_t width = double_precision ? sizeof(double) : sizeof(float);
  staging = malloc(elements * width > count * width ? elements * width
                                                    : count * width);
  if (!staging)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu points", count);
  for (size_t i = 0; i < elements; ++i) {
    if (double_precision)
      ((double *)staging)[i] = points[i];
    else
      ((float *)staging)[i] = (float)points[i];
  }
  char defines[96];
  snprintf(defines, sizeof defines, "-DCK_OBJECTIVE=%d -DCK_REAL_DOUBLE=%d",
           info->id, double_precision ? 1 : 0);
  CK_TRY(ck_queue_create(device, &queue));
  CK_TRY(ck_program_build(queue, "objectives", defines, &program));
  CK_TRY(ck_kernel_create(program, "ck_objectives_evaluate", &kernel));
  CK_TRY(ck_buffer_create(queue, elements * width, &input));
  CK_TRY(ck_buffer_create(queue, count * width, &output));
  CK_TRY(ck_buffer_write(queue, input, 0, elements * width, staging,
                         CK_BLOCKING, NULL));
  ck_kernel_args args;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_buffer(&args, input);
  ck_kernel_args_u32(&args, (uint32_t)count);
  ck_kernel_args_i32(&args, dim);
  ck_kernel_args_buffer(&args, output);
  CK_TRY(ck_kernel_args_end(&args));
  size_t global = count;
  CK_TRY(ck_queue_launch(queue, kernel, 1, &global, NULL, NULL));
  CK_TRY(ck_buffer_read(queue, output, 0, count * width, staging, CK_BLOCKING,
                        NULL));
  for (size_t i = 0; i < count; ++i)
    values[i] = double_precision ? ((double *)staging)[i]
                                 : (double)((float *)staging)[i];
fail:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_buffer_destroy(input);
  ck_buffer_destroy(output);
  ck_queue_destroy(queue);
  free(staging);
  return status;
}
