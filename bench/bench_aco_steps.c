/*
 * bench_aco_steps.c - where a focused ACO iteration's time goes: the
 * copies of the best tour, the walks, the dirty cities, the searches and
 * the rest (iteration best, deposit, update), for each number of lanes
 * an ant. Each step ends with a queue finish.
 *
 *   bench_aco_steps FILE.tsp [--device SEL] [--lanes 1,8,...] [--ants M]
 *                   [--iters N] [--warmup W] [--seed S]
 *
 * Each configuration first runs W iterations (the first tour, kernel
 * builds, the pheromone settling), then N timed ones. The steps are
 * those the driver calls; the figures are milliseconds an iteration.
 */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "aco/aco_internal.h"
#include "bench_common.h"

/* The steps a device's colony runs construction and local search with:
 * ref's, or the OpenCL ones (which launch the native kernels on CUDA). */
static const ck__aco_steps *steps_of(const ck_device *device) {
  return device->backend == CK_BACKEND_REF ? &ck__aco_ref_steps
                                           : &ck__aco_opencl_steps;
}

/* The columns: construction is the copies and the walks, local search
 * the dirty cities and the searches. */
enum { COPY, WALK, DIRTY, SEARCH, REST, PHASES };

/* Milliseconds a launch of `kernel` over `items` work-items with the
 * arguments of its last launch, over `times` launches. */
static int time_kernel(aco_state *state, ck_kernel *kernel, size_t items,
                       unsigned times, double *ms) {
  size_t local = state->group, global = (items + local - 1) / local * local;
  double started = bench_now();
  for (unsigned i = 0; i < times; ++i)
    if (ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL))
      return 1;
  if (ck_queue_finish(state->queue))
    return 1;
  *ms = 1e3 * (bench_now() - started) / times;
  return 0;
}

/* Milliseconds an iteration in each phase, over `iters` iterations after
 * `warmup`. The copies and the dirty cities are their kernels alone, run
 * again after the iterations (ref has none: its walks and searches hold
 * them). Returns 0, or 1 with the library's message printed. */
static int time_steps(const ck_device *device, const ck_tsp_instance *tsp,
                      const ck_aco_config *config, unsigned warmup,
                      unsigned iters, double *ms, uint32_t *ants) {
  ck_aco *aco = NULL;
  int failed = 1;
  if (ck_aco_create(device, tsp, config, &aco) || ck_aco_step(aco, warmup))
    goto done;
  aco_state *state = ck__aco_state(aco);
  const ck__aco_steps *steps = steps_of(device);
  *ants = state->ants;
  double sums[PHASES] = {0};
  for (unsigned i = 0; i < iters; ++i) {
    double t0 = bench_now();
    if (steps->construct(state, warmup + i) || ck_queue_finish(state->queue))
      goto done;
    double t1 = bench_now();
    if (steps->local_search(state, NULL, 0) || ck_queue_finish(state->queue))
      goto done;
    double t2 = bench_now();
    if (ck__aco_iterate_end(aco) || ck_queue_finish(state->queue))
      goto done;
    double t3 = bench_now();
    sums[WALK] += t1 - t0;
    sums[SEARCH] += t2 - t1;
    sums[REST] += t3 - t2;
  }
  for (int s = 0; s < PHASES; ++s)
    ms[s] = 1e3 * sums[s] / iters;
  if (device->backend != CK_BACKEND_REF) {
    size_t items = (size_t)state->ants * state->n;
    if (time_kernel(state, state->focus_copy_kernel, items, iters, &ms[COPY]) ||
        time_kernel(state, state->focus_dirty_kernel, items, iters, &ms[DIRTY]))
      goto done;
    ms[WALK] -= ms[COPY];
    ms[SEARCH] -= ms[DIRTY];
  }
  failed = 0;
done:
  if (failed)
    bench_report(device->id);
  ck_aco_destroy(aco);
  return failed;
}

int main(int argc, char **argv) {
  const char *tool = "bench_aco_steps", *selector = "all", *lanes = "1,8";
  unsigned long ants = 0, iters = 10, warmup = 5;
  uint64_t seed = 1;
  double number = 0;
  static const struct option options[] = {
      {"device", required_argument, NULL, 'd'},
      {"lanes", required_argument, NULL, 'l'},
      {"ants", required_argument, NULL, 'a'},
      {"iters", required_argument, NULL, 'i'},
      {"warmup", required_argument, NULL, 'w'},
      {"seed", required_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "d:l:a:i:w:S:h", options, NULL)) != -1) {
    switch (c) {
    case 'd':
      selector = optarg;
      break;
    case 'l':
      lanes = optarg;
      break;
    case 'a': /* 0: from the device */
      if (bench_number(tool, "ants", optarg, 0, 65536, 1, &number))
        return 2;
      ants = (unsigned long)number;
      break;
    case 'i':
      if (bench_number(tool, "iters", optarg, 1, 1e6, 1, &number))
        return 2;
      iters = (unsigned long)number;
      break;
    case 'w':
      if (bench_number(tool, "warmup", optarg, 1, 1e6, 1, &number))
        return 2;
      warmup = (unsigned long)number;
      break;
    case 'S':
      if (bench_number(tool, "seed", optarg, 0, 9007199254740992.0, 1, &number))
        return 2;
      seed = (uint64_t)number;
      break;
    case 'h':
      printf("usage: bench_aco_steps FILE.tsp [--device SEL] [--lanes "
             "1,8,...] [--ants M] [--iters N] [--warmup W] [--seed S]\n");
      return 0;
    default:
      return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "%s: FILE.tsp is needed (--help lists the options)\n",
            tool);
    return 2;
  }
  if (bench_no_operands(tool, argc, argv, optind + 1))
    return 2;
  /* The lanes: a comma-separated list of powers of two up to 256. */
  unsigned lane_list[16], lane_count = 0;
  for (const char *at = lanes; *at;) {
    char *end;
    unsigned long value = strtoul(at, &end, 10);
    if (end == at || (*end && *end != ',') || value < 1 || value > 256 ||
        (value & (value - 1)) || lane_count == 16) {
      fprintf(stderr,
              "%s: --lanes: '%s' is not a list of powers of two "
              "from 1 to 256\n",
              tool, lanes);
      return 2;
    }
    lane_list[lane_count++] = (unsigned)value;
    at = *end ? end + 1 : end;
  }
  ck_tsp_instance instance;
  if (ck_tsp_load(argv[optind], &instance))
    return bench_report(argv[optind]);
  ck_device_set set;
  size_t indices[64], devices = 0;
  if (bench_select(selector, &set, indices, &devices)) {
    ck_tsp_free(&instance);
    return 1;
  }
  int failures = 0;
  printf("%s, %u cities: milliseconds an iteration, after %lu warm-up "
         "iterations, over %lu\n",
         instance.name, instance.cities, warmup, iters);
  printf("%-12s %5s %5s %8s %8s %8s %8s %8s %8s\n", "device", "lanes", "ants",
         "copy", "walk", "dirty", "search", "rest", "total");
  for (size_t k = 0; k < devices; ++k)
    for (unsigned l = 0; l < lane_count; ++l) {
      const ck_device *device = &set.devices[indices[k]];
      ck_aco_config config;
      ck_aco_config_init(&config);
      config.method = CK_ACO_FOCUSED;
      config.lanes = lane_list[l];
      config.ants = (uint32_t)ants;
      config.seed = seed;
      double ms[PHASES], total = 0;
      uint32_t colony = 0;
      if (time_steps(device, &instance, &config, (unsigned)warmup,
                     (unsigned)iters, ms, &colony)) {
        ++failures;
        continue;
      }
      printf("%-12s %5u %5u", device->id, lane_list[l], colony);
      for (int s = 0; s < PHASES; ++s) {
        printf(" %8.2f", ms[s]);
        total += ms[s];
      }
      printf(" %8.2f\n", total);
      fflush(stdout);
    }
  ck_device_set_free(&set);
  ck_tsp_free(&instance);
  return failures ? 1 : 0;
}
