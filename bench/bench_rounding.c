/*
 * bench_rounding.c - how each OpenCL device rounds single-precision sqrt,
 * division, log and pow, against the host's C library: the reason the GA
 * takes clkit's own logarithm and power (cl/ck_real.h) and builds with
 * -cl-fp32-correctly-rounded-divide-sqrt (docs/ga.md).
 *
 * A million floats x in [2^-20, 2^20) go through sqrt(x), 1 / (x + 1),
 * log(x) and pow(x, 0.37) in a kernel, once built without and once with
 * that option where the device offers it; the counts are the results
 * whose bits differ from the host's sqrtf, division, logf and powf (the
 * first two correctly rounded in C).
 *
 * usage: bench_rounding (it takes no arguments but --help)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNT = 1 << 20, OUTPUTS = 4 };

/* Work-item i takes x[i] through the four operations. */
static const char source[] =
    "__kernel void rounding(__global const float *x, __global float *root,\n"
    "                       __global float *quotient, __global float *log_x,\n"
    "                       __global float *power) {\n"
    "  size_t i = get_global_id(0);\n"
    "  root[i] = sqrt(x[i]);\n"
    "  quotient[i] = 1.0f / (x[i] + 1.0f);\n"
    "  log_x[i] = log(x[i]);\n"
    "  power[i] = pow(x[i], 0.37f);\n"
    "}\n";

/* The host's result of operation k at x. */
static float on_host(int k, float x) {
  switch (k) {
  case 0:
    return sqrtf(x);
  case 1:
    return 1.0f / (x + 1.0f);
  case 2:
    return logf(x);
  default:
    return powf(x, 0.37f);
  }
}

/* Builds the kernel with `options` and counts each operation's results
 * that differ from the host's; 0 on success. */
static int measure(cl_context context, cl_command_queue queue,
                   cl_device_id device, const char *options, const float *x,
                   float *results, long *differ) {
  int failed = 1;
  const char *text = source;
  cl_int error = CL_SUCCESS;
  cl_kernel kernel = NULL;
  cl_mem buffers[1 + OUTPUTS] = {NULL};
  cl_program program =
      clCreateProgramWithSource(context, 1, &text, NULL, &error);
  if (!program || clBuildProgram(program, 1, &device, options, NULL, NULL))
    goto fail;
  kernel = clCreateKernel(program, "rounding", &error);
  if (!kernel)
    goto fail;
  buffers[0] = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              COUNT * sizeof *x, (void *)x, &error);
  for (int k = 1; k <= OUTPUTS; ++k)
    buffers[k] = clCreateBuffer(context, CL_MEM_WRITE_ONLY, COUNT * sizeof *x,
                                NULL, &error);
  for (int k = 0; k <= OUTPUTS; ++k)
    if (!buffers[k] ||
        clSetKernelArg(kernel, (cl_uint)k, sizeof buffers[k], &buffers[k]))
      goto fail;
  size_t global = COUNT;
  if (clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL,
                             NULL))
    goto fail;
  for (int k = 0; k < OUTPUTS; ++k) {
    if (clEnqueueReadBuffer(queue, buffers[1 + k], CL_TRUE, 0,
                            COUNT * sizeof *x, results, 0, NULL, NULL))
      goto fail;
    differ[k] = 0;
    for (long i = 0; i < COUNT; ++i)
      differ[k] += results[i] != on_host(k, x[i]);
  }
  failed = 0;
fail:
  for (int k = 0; k <= OUTPUTS; ++k)
    if (buffers[k])
      clReleaseMemObject(buffers[k]);
  if (kernel)
    clReleaseKernel(kernel);
  if (program)
    clReleaseProgram(program);
  return failed;
}

int main(int argc, char **argv) {
  if (argc > 1) {
    int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
    if (help && argc == 2) {
      printf("usage: bench_rounding\n");
      return 0;
    }
    fprintf(stderr,
            "bench_rounding: unexpected argument '%s' (it takes none)\n",
            argv[help ? 2 : 1]);
    return 2;
  }
  float *x = malloc(COUNT * sizeof *x), *results = malloc(COUNT * sizeof *x);
  if (!x || !results) {
    fprintf(stderr, "bench_rounding: out of memory\n");
    return 1;
  }
  /* Spread over 40 binades by a fixed linear congruential sequence. */
  uint32_t state = 1;
  for (long i = 0; i < COUNT; ++i) {
    state = state * 1664525u + 1013904223u;
    x[i] = ldexpf((float)(state >> 8) / 16777216.0f + 0.5f,
                  (int)(state % 40) - 20);
  }
  cl_platform_id platforms[16];
  cl_uint platform_count = 0;
  if (clGetPlatformIDs(16, platforms, &platform_count) || !platform_count) {
    fprintf(stderr, "bench_rounding: no OpenCL platform\n");
    return 1;
  }
  printf("operation results that differ from the host C library's, of %d\n",
         COUNT);
  int status = 0;
  for (cl_uint p = 0; p < platform_count; ++p) {
    cl_device_id devices[16];
    cl_uint device_count = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices,
                       &device_count))
      continue;
    for (cl_uint d = 0; d < device_count; ++d) {
      char name[256] = "";
      cl_device_fp_config single = 0;
      clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name, name, NULL);
      clGetDeviceInfo(devices[d], CL_DEVICE_SINGLE_FP_CONFIG, sizeof single,
                      &single, NULL);
      int offers = (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
      cl_int error = CL_SUCCESS;
      cl_context context =
          clCreateContext(NULL, 1, &devices[d], NULL, NULL, &error);
      cl_command_queue queue =
          context ? clCreateCommandQueue(context, devices[d], 0, &error) : NULL;
      printf("ocl:%u.%u %s (offers correctly rounded divide and sqrt: %s)\n", p,
             d, name, offers ? "yes" : "no");
      for (int exact = 0; exact <= offers && queue; ++exact) {
        const char *options =
            exact ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
        long differ[OUTPUTS];
        if (measure(context, queue, devices[d], options, x, results, differ)) {
          printf("  %-40s failed\n", exact ? options : "(default)");
          status = 1;
          continue;
        }
        printf("  %-40s sqrt %7ld  division %7ld  log %7ld  pow %7ld\n",
               exact ? options : "(default)", differ[0], differ[1], differ[2],
               differ[3]);
      }
      if (queue)
        clReleaseCommandQueue(queue);
      if (context)
        clReleaseContext(context);
    }
  }
  free(x);
  free(results);
  return status;
}
