/*
 * bench_ga.c - island GA throughput and quality against time, per device:
 * gene-generations per second (individuals x islands x genes x
 * generations / s) over islands x island size x dimensions, and the best
 * rastrigin value reached after given wall times.
 *
 *   bench_ga [--device SEL] [--max-genes G] [--seconds S] [--quick]
 */
#include <math.h>

#include "bench_common.h"

static ck_status ga_step(void *self, uint64_t steps) {
  return ck_ga_step(self, steps);
}

static ck_status ga_sync(void *self) {
  double best;
  return ck_ga_get_best(self, &best, NULL);
}

/* Seconds per generation; the warm-up passes a migration. */
static int time_ga(const ck_device *device, const ck_ga_config *config,
                   double seconds, double *per_generation) {
  ck_ga *ga = NULL;
  if (ck_ga_create(device, config, &ga))
    return bench_report(device->id);
  int failed =
      bench_seconds_per_step(ga_step, ga_sync, ga, config->migrate_every + 2,
                             seconds, 1u << 16, device->id, per_generation);
  ck_ga_destroy(ga);
  return failed;
}

int main(int argc, char **argv) {
  bench_sweep sweep;
  int exit_status =
      bench_sweep_options("bench_ga", "max-genes", 'g', argc, argv, &sweep);
  if (exit_status >= 0)
    return exit_status;
  int failures = 0;
  for (size_t k = 0; k < sweep.count; ++k) {
    const ck_device *device = &sweep.set.devices[sweep.indices[k]];
    double cap = sweep.cap > 0                       ? sweep.cap
                 : device->kind == CK_KIND_GPU       ? 3e9
                 : device->backend == CK_BACKEND_REF ? 1e6
                                                     : 1e7;
    printf("\n%s %s\n", device->id, device->name);
    printf("%-10s %8s %6s %5s %12s %16s\n", "function", "islands", "size",
           "dim", "gens/s", "gene-gens/s");
    static const double islands[] = {64, 256, 1024, 4096, 16384, 65536};
    static const double sizes[] = {32, 256, 1024, 4096};
    static const int dims[] = {2, 32, 100};
    for (size_t i = 0; i < sizeof islands / sizeof islands[0]; ++i)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d) {
          double genes = islands[i] * sizes[s] * dims[d];
          if (genes > cap || (sweep.quick && genes > 1e6))
            continue;
          ck_ga_config config;
          ck_ga_config_init(&config);
          config.function = "rastrigin";
          config.islands = (size_t)islands[i];
          config.island_size = (size_t)sizes[s];
          config.dim = dims[d];
          double per_generation;
          if (time_ga(device, &config, sweep.seconds, &per_generation)) {
            ++failures;
            continue;
          }
          printf("%-10s %8.0f %6.0f %5d %12.1f %16.4g\n", config.function,
                 islands[i], sizes[s], dims[d], 1.0 / per_generation,
                 genes / per_generation);
        }
    /* Quality against time: the best rastrigin value after each budget. */
    ck_ga_config config;
    ck_ga_config_init(&config);
    config.function = "rastrigin";
    config.dim = 32;
    int large = device->kind == CK_KIND_GPU && !sweep.quick;
    config.islands = large ? 4096 : 64;
    config.island_size = large ? 256 : 64;
    config.max_generations = 0;
    static const double budgets[] = {0.1, 0.3, 1.0};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; ++b) {
      ck_ga *ga = NULL;
      ck_ga_report report;
      config.max_seconds = budgets[b];
      if (ck_ga_create(device, &config, &ga) || ck_ga_run(ga, &report)) {
        bench_report(device->id);
        ++failures;
      } else {
        printf("quality: rastrigin d=32, %zu x %zu, %.1f s: best %.6g after "
               "%llu generations (%.4g gene-gens/s)\n",
               config.islands, config.island_size, budgets[b], report.best,
               (unsigned long long)report.generations, report.genes_per_s);
      }
      ck_ga_destroy(ga);
    }
  }
  ck_device_set_free(&sweep.set);
  return failures ? 1 : 0;
}
