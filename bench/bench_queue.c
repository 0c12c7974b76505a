/*
 * bench_queue.c - the queue's costs on each device, against the hardware:
 * launch latency, host-to-device and device-to-host bandwidth, and
 * device-side copy bandwidth (bytes read plus bytes written).
 *
 *   bench_queue [--device SEL] [--megabytes N] [--repeat R]
 *
 * Prints one table; each figure is the median of R repetitions.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

typedef struct figures {
  double launch_us, write_gbs, read_gbs, copy_gbs;
} figures;

static int measure(const ck_device *device, size_t bytes, int repeat,
                   figures *out) {
  ck_queue *queue = NULL;
  ck_buffer *a = NULL, *b = NULL, *values = NULL, *bits = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  double *samples = calloc((size_t)repeat * 64, sizeof *samples);
  char *host = malloc(bytes);
  int failed = 1;
  memset(out, 0, sizeof *out);
  if (!samples || !host)
    goto done;
  for (size_t i = 0; i < bytes; ++i)
    host[i] = (char)(i * 131u);
  if (ck_queue_create(device, &queue) || ck_buffer_create(queue, bytes, &a) ||
      ck_buffer_create(queue, bytes, &b)) {
    bench_report(device->id);
    goto done;
  }
  /* Warm-up moves the pages in and lets the driver settle. */
  if (ck_buffer_write(queue, a, 0, bytes, host, CK_BLOCKING, NULL) ||
      ck_buffer_read(queue, a, 0, bytes, host, CK_BLOCKING, NULL)) {
    bench_report(device->id);
    goto done;
  }
  for (int r = 0; r < repeat; ++r) {
    double t0 = bench_now();
    ck_buffer_write(queue, a, 0, bytes, host, CK_BLOCKING, NULL);
    samples[r] = bench_now() - t0;
  }
  out->write_gbs = (double)bytes / bench_median(samples, repeat) * 1e-9;
  for (int r = 0; r < repeat; ++r) {
    double t0 = bench_now();
    ck_buffer_read(queue, a, 0, bytes, host, CK_BLOCKING, NULL);
    samples[r] = bench_now() - t0;
  }
  out->read_gbs = (double)bytes / bench_median(samples, repeat) * 1e-9;
  out->copy_gbs = bench_copy_bandwidth(queue, bytes, repeat);

  if (device->backend != CK_BACKEND_REF) {
    /* Launch latency: a one-work-item kernel, launched and finished. */
    uint32_t count = 4, zero = 0;
    if (ck_program_build(queue, "selfcheck", "-DCK_SELFCHECK_GROUP=1",
                         &program) ||
        ck_kernel_create(program, "ck_selfcheck_generate", &kernel) ||
        ck_buffer_create(queue, 16, &values) ||
        ck_buffer_create(queue, 16, &bits)) {
      bench_report(device->id);
      goto done;
    }
    ck_kernel_set_buffer(kernel, 0, values);
    ck_kernel_set_buffer(kernel, 1, bits);
    ck_kernel_set_value(kernel, 2, sizeof count, &count);
    ck_kernel_set_value(kernel, 3, sizeof zero, &zero);
    ck_kernel_set_value(kernel, 4, sizeof zero, &zero);
    ck_kernel_set_value(kernel, 5, sizeof zero, &zero);
    size_t one = 1;
    for (int r = 0; r < repeat * 64; ++r) {
      double t0 = bench_now();
      if (ck_queue_launch(queue, kernel, 1, &one, &one, NULL) ||
          ck_queue_finish(queue)) {
        bench_report(device->id);
        goto done;
      }
      samples[r] = bench_now() - t0;
    }
    out->launch_us = bench_median(samples, repeat * 64) * 1e6;
  }
  failed = 0;
done:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_buffer_destroy(values);
  ck_buffer_destroy(bits);
  ck_buffer_destroy(a);
  ck_buffer_destroy(b);
  ck_queue_destroy(queue);
  free(samples);
  free(host);
  return failed;
}

int main(int argc, char **argv) {
  const char *selector = "all";
  long megabytes = 256, repeat = 10;
  double number = 0;
  static const struct option options[] = {
      {"device", required_argument, NULL, 'd'},
      {"megabytes", required_argument, NULL, 'm'},
      {"repeat", required_argument, NULL, 'r'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "d:m:r:h", options, NULL)) != -1) {
    switch (c) {
    case 'd':
      selector = optarg;
      break;
    case 'm':
      if (bench_number("bench_queue", "megabytes", optarg, 1, 65536, 1,
                       &number))
        return 2;
      megabytes = (long)number;
      break;
    case 'r':
      if (bench_number("bench_queue", "repeat", optarg, 1, 1000, 1, &number))
        return 2;
      repeat = (long)number;
      break;
    case 'h':
      printf(
          "usage: bench_queue [--device SEL] [--megabytes N] [--repeat R]\n");
      return 0;
    default:
      return 2;
    }
  }
  if (bench_no_operands("bench_queue", argc, argv, optind))
    return 2;
  ck_device_set set;
  size_t indices[64], count = 0;
  if (bench_select(selector, &set, indices, &count))
    return 1;
  size_t bytes = (size_t)megabytes << 20;
  printf("%-9s %-34s %12s %12s %12s %14s\n", "device", "name", "launch_us",
         "write_GB/s", "read_GB/s", "copy_GB/s(r+w)");
  int failures = 0;
  for (size_t k = 0; k < count; ++k) {
    const ck_device *device = &set.devices[indices[k]];
    figures f;
    if (measure(device, bytes, (int)repeat, &f)) {
      ++failures;
      continue;
    }
    printf("%-9s %-34.34s %12.2f %12.2f %12.2f %14.2f\n", device->id,
           device->name, f.launch_us, f.write_gbs, f.read_gbs, f.copy_gbs);
  }
  ck_device_set_free(&set);
  return failures ? 1 : 0;
}
