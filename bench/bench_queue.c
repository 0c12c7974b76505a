/*
 * bench_queue.c - the queue's costs on each device, against the hardware:
 * launch latency, host-to-device and device-to-host bandwidth,
 * device-side copy bandwidth (bytes read plus bytes written), and a
 * small write's and read's round trip, one queue alone and two queues on
 * one device, each driven by a thread of its own at once (as a spread's
 * members on one device are).
 *
 *   bench_queue [--device SEL] [--megabytes N] [--repeat R]
 *
 * Prints one table; each figure is the median of R repetitions.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

typedef struct figures {
  double launch_us, write_gbs, read_gbs, copy_gbs, trip_us, pair_us;
} figures;

/* A queue of its own on device making `trips` round trips: a 16-byte
 * write, then a blocking read. */
typedef struct trips_call {
  const ck_device *device;
  int trips;
  double us; /* a round trip's median */
  int failed;
} trips_call;

static void *make_trips(void *context) {
  trips_call *call = context;
  ck_queue *queue = NULL;
  ck_buffer *buffer = NULL;
  uint32_t words[4] = {1, 2, 3, 4};
  double *samples = calloc((size_t)call->trips, sizeof *samples);
  call->failed = 1;
  if (!samples || ck_queue_create(call->device, &queue) ||
      ck_buffer_create(queue, sizeof words, &buffer))
    goto done;
  for (int r = -call->trips / 10; r < call->trips; ++r) {
    double t0 = bench_now();
    if (ck_buffer_write(queue, buffer, 0, sizeof words, words, CK_NONBLOCKING,
                        NULL) ||
        ck_buffer_read(queue, buffer, 0, sizeof words, words, CK_BLOCKING,
                       NULL))
      goto done;
    if (r >= 0) /* after a tenth as many untimed */
      samples[r] = bench_now() - t0;
  }
  call->us = bench_median(samples, call->trips) * 1e6;
  call->failed = 0;
done:
  ck_buffer_destroy(buffer);
  ck_queue_destroy(queue);
  free(samples);
  return NULL;
}

/* The round trip alone, then two queues' at once (their mean). */
static int measure_trips(const ck_device *device, int trips, figures *out) {
  trips_call alone = {device, trips, 0, 0}, pair[2] = {alone, alone};
  pthread_t threads[2];
  int started = 0;
  make_trips(&alone);
  for (; started < 2; ++started)
    if (pthread_create(&threads[started], NULL, make_trips, &pair[started]))
      break;
  for (int k = 0; k < started; ++k)
    pthread_join(threads[k], NULL);
  if (alone.failed || started < 2 || pair[0].failed || pair[1].failed)
    return 1;
  out->trip_us = alone.us;
  out->pair_us = 0.5 * (pair[0].us + pair[1].us);
  return 0;
}

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
    if (measure_trips(device, repeat * 200, out)) {
      bench_report(device->id);
      goto done;
    }
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
  printf("%-9s %-34s %12s %12s %12s %14s %10s %10s\n", "device", "name",
         "launch_us", "write_GB/s", "read_GB/s", "copy_GB/s(r+w)", "trip_us",
         "pair_us");
  int failures = 0;
  for (size_t k = 0; k < count; ++k) {
    const ck_device *device = &set.devices[indices[k]];
    figures f;
    if (measure(device, bytes, (int)repeat, &f)) {
      ++failures;
      continue;
    }
    printf("%-9s %-34.34s %12.2f %12.2f %12.2f %14.2f %10.2f %10.2f\n",
           device->id, device->name, f.launch_us, f.write_gbs, f.read_gbs,
           f.copy_gbs, f.trip_us, f.pair_us);
  }
  ck_device_set_free(&set);
  return failures ? 1 : 0;
}
