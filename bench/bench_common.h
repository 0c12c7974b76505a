/*
 * bench_common.h - what the benchmarks share: checked option values, a
 * sweep's options, a clock, medians, and the device's copy bandwidth, the
 * ceiling that memory-bound steps are measured against.
 */
#ifndef CK_BENCH_COMMON_H
#define CK_BENCH_COMMON_H

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clkit/clkit.h"

static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int bench_compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static inline double bench_median(double *values, int count) {
  qsort(values, (size_t)count, sizeof *values, bench_compare_doubles);
  return count % 2 ? values[count / 2]
                   : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/*
 * An option's number: all of text, finite, within [low, high], and whole
 * where `whole` is set. Returns 0 with *value set, or prints
 * "TOOL: --OPTION: ..." and returns 2, the usage exit status.
 */
static inline int bench_number(const char *tool, const char *option,
                               const char *text, double low, double high,
                               int whole, double *value) {
  double read = 0;
  if (ck_param_parse_number(text, &read) != CK_OK || read < low ||
      read > high || (whole && read != floor(read))) {
    fprintf(stderr, "%s: --%s: '%s' is not a %s from %.16g to %.16g\n", tool,
            option, text, whole ? "whole number" : "number", low, high);
    return 2;
  }
  *value = read;
  return 0;
}

/* An option's choice among `names` (NULL-terminated), as its index; 0, or
 * a message listing the names and 2, as bench_number. */
static inline int bench_choice(const char *tool, const char *option,
                               const char *text, const char *const *names,
                               int *index) {
  for (int i = 0; names[i]; ++i)
    if (strcmp(text, names[i]) == 0) {
      *index = i;
      return 0;
    }
  fprintf(stderr, "%s: --%s: unknown value '%s'; one of:", tool, option, text);
  for (int i = 0; names[i]; ++i)
    fprintf(stderr, " %s", names[i]);
  fprintf(stderr, "\n");
  return 2;
}

/* Whether arguments remain after the options (from `first`): 0, or a
 * message naming the first and 2, as bench_number. */
static inline int bench_no_operands(const char *tool, int argc, char **argv,
                                    int first) {
  if (first >= argc)
    return 0;
  fprintf(stderr, "%s: unexpected argument '%s' (--help lists the options)\n",
          tool, argv[first]);
  return 2;
}

static inline int bench_report(const char *what) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "bench: %s: %s\n", what, message);
  return 1;
}

/* The devices a selector picks, into set and indices (up to 64); returns 0,
 * or reports the failure and returns 1 (set is then freed). */
static inline int bench_select(const char *selector, ck_device_set *set,
                               size_t *indices, size_t *count) {
  if (ck_device_enumerate(set))
    return bench_report("listing devices");
  if (ck_device_select(set, selector, indices, 64, count)) {
    ck_device_set_free(set);
    return bench_report("selecting devices");
  }
  return 0;
}

/* The options of a sweep over sizes: --device SEL, a cap on its size
 * (--CAP_OPTION, short -CAP_LETTER), --seconds S a point and --quick; and
 * the devices SEL picks. */
typedef struct bench_sweep {
  const char *selector; /* "all" unless given */
  double cap;           /* 0: the tool's default for each device */
  double seconds;       /* 0.3 unless given */
  int quick;
  ck_device_set set;         /* the caller frees it after a -1 return */
  size_t indices[64], count; /* set.devices[indices[k]], k < count */
} bench_sweep;

/* Parses a sweep's options into sweep and selects its devices. Returns -1
 * to go on, or the status to exit with: 0 after --help (usage printed), 2
 * after a usage error, 1 when the devices cannot be listed or selected
 * (each message printed). */
static inline int bench_sweep_options(const char *tool, const char *cap_option,
                                      char cap_letter, int argc, char **argv,
                                      bench_sweep *sweep) {
  const struct option options[] = {
      {"device", required_argument, NULL, 'd'},
      {cap_option, required_argument, NULL, cap_letter},
      {"seconds", required_argument, NULL, 's'},
      {"quick", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  char letters[] = {'d', ':', cap_letter, ':', 's', ':', 'q', 'h', '\0'};
  *sweep = (bench_sweep){.selector = "all", .seconds = 0.3};
  int c;
  while ((c = getopt_long(argc, argv, letters, options, NULL)) != -1) {
    if (c == 'd')
      sweep->selector = optarg;
    else if (c == cap_letter) {
      if (bench_number(tool, cap_option, optarg, 1, 1e15, 0, &sweep->cap))
        return 2;
    } else if (c == 's') {
      if (bench_number(tool, "seconds", optarg, 1e-3, 3600, 0, &sweep->seconds))
        return 2;
    } else if (c == 'q')
      sweep->quick = 1;
    else if (c == 'h') {
      printf("usage: %s [--device SEL] [--%s %c] [--seconds S] [--quick]\n",
             tool, cap_option, toupper((unsigned char)cap_letter));
      return 0;
    } else
      return 2;
  }
  if (bench_no_operands(tool, argc, argv, optind))
    return 2;
  return bench_select(sweep->selector, &sweep->set, sweep->indices,
                      &sweep->count)
             ? 1
             : -1;
}

/*
 * Device-side copy bandwidth in GB/s, counting bytes read plus bytes
 * written: the median of `repeat` copies of `bytes` after a warm-up.
 * Returns 0 on failure (the message is printed).
 */
static inline double bench_copy_bandwidth(ck_queue *queue, size_t bytes,
                                          int repeat) {
  ck_buffer *a = NULL, *b = NULL;
  double *samples = calloc((size_t)repeat, sizeof *samples);
  double result = 0;
  uint32_t pattern = 0x3F800000u;
  if (!samples || ck_buffer_create(queue, bytes, &a) ||
      ck_buffer_create(queue, bytes, &b) ||
      ck_buffer_fill(queue, a, &pattern, sizeof pattern, 0, bytes, NULL) ||
      ck_buffer_copy(queue, b, 0, a, 0, bytes, NULL) ||
      ck_queue_finish(queue)) {
    bench_report("copy bandwidth");
    goto done;
  }
  for (int r = 0; r < repeat; ++r) {
    double started = bench_now();
    if (ck_buffer_copy(queue, b, 0, a, 0, bytes, NULL) ||
        ck_queue_finish(queue)) {
      bench_report("copy bandwidth");
      goto done;
    }
    samples[r] = bench_now() - started;
  }
  result = 2.0 * (double)bytes / bench_median(samples, repeat) * 1e-9;
done:
  ck_buffer_destroy(a);
  ck_buffer_destroy(b);
  free(samples);
  return result;
}

/*
 * Seconds per step of an optimiser: `warmup` steps first (so that no
 * kernel is first run, and on some drivers compiled, inside the timing),
 * then batches of steps doubling until one lasts `seconds` (or reaches
 * max_batch), each closed by `sync`, a blocking read. Returns 1 and
 * prints the library's message on failure.
 */
typedef ck_status (*bench_step_fn)(void *self, uint64_t steps);
typedef ck_status (*bench_sync_fn)(void *self);

static inline int bench_seconds_per_step(bench_step_fn step, bench_sync_fn sync,
                                         void *self, uint64_t warmup,
                                         double seconds, uint64_t max_batch,
                                         const char *what, double *per_step) {
  if (step(self, warmup) || sync(self))
    return bench_report(what);
  for (uint64_t batch = 1;; batch *= 2) {
    double started = bench_now();
    if (step(self, batch) || sync(self))
      return bench_report(what);
    double elapsed = bench_now() - started;
    if (elapsed >= seconds || batch >= max_batch) {
      *per_step = elapsed / (double)batch;
      return 0;
    }
  }
}

#endif /* CK_BENCH_COMMON_H */
