/*
 * bench_pso.c - PSO throughput against the hardware, per device:
 * particle-dimension updates/s and evaluations/s over swarm sizes and
 * dimensions, the fused step's share of the device's copy bandwidth, lsq
 * bandwidth over its data, and iterations/s of a small, launch-bound swarm.
 *
 *   bench_pso [--device SEL] [--max-elements E] [--seconds S] [--quick]
 *
 * Bytes counted for one fused step of one particle in one dimension: x, v
 * and pbest read, x and v written, 20 bytes in float (the reduction and
 * the occasional pbest copy are not counted, so the share is a floor).
 */
#include <math.h>
#include <string.h>

#include "bench_common.h"

static ck_status pso_step(void *self, uint64_t steps) {
  return ck_pso_step(self, steps);
}

static ck_status pso_sync(void *self) {
  double best;
  return ck_pso_get_best(self, &best, NULL);
}

/* Seconds per iteration of a swarm, after two warm-up iterations. */
static int time_swarm(const ck_device *device, const ck_pso_config *config,
                      double seconds, double *per_iteration) {
  ck_pso *pso = NULL;
  if (ck_pso_create(device, config, &pso))
    return bench_report(device->id);
  int failed = bench_seconds_per_step(pso_step, pso_sync, pso, 2, seconds,
                                      1u << 20, device->id, per_iteration);
  ck_pso_destroy(pso);
  return failed;
}

int main(int argc, char **argv) {
  bench_sweep sweep;
  int exit_status =
      bench_sweep_options("bench_pso", "max-elements", 'e', argc, argv, &sweep);
  if (exit_status >= 0)
    return exit_status;
  int failures = 0;
  for (size_t k = 0; k < sweep.count; ++k) {
    const ck_device *device = &sweep.set.devices[sweep.indices[k]];
    ck_queue *queue = NULL;
    double copy = 0;
    if (ck_queue_create(device, &queue) == CK_OK)
      copy = bench_copy_bandwidth(queue, (size_t)256 << 20, 10);
    ck_queue_destroy(queue);
    /* Defaults keep host devices to sizes they finish in reasonable time. */
    double cap = sweep.cap > 0                       ? sweep.cap
                 : device->kind == CK_KIND_GPU       ? 2e9
                 : device->backend == CK_BACKEND_REF ? 1e6
                                                     : 2e7;
    printf("\n%s %s: copy bandwidth %.1f GB/s (read + write)\n", device->id,
           device->name, copy);
    printf("%-10s %9s %5s %12s %14s %14s %10s\n", "function", "particles",
           "dim", "iter/s", "updates/s", "evals/s", "of_copy");
    static const double swarms[] = {1e2, 1e3, 1e4, 1e5, 1e6, 1e7};
    static const int dims[] = {10, 100, 1000};
    for (size_t s = 0; s < sizeof swarms / sizeof swarms[0]; ++s) {
      for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d) {
        if (swarms[s] * dims[d] > cap ||
            (sweep.quick && swarms[s] * dims[d] > 1e6))
          continue;
        for (int f = 0; f < 2; ++f) {
          ck_pso_config config;
          ck_pso_config_init(&config);
          config.function = f ? "rastrigin" : "sphere";
          config.particles = (size_t)swarms[s];
          config.dim = dims[d];
          double per_iteration;
          if (time_swarm(device, &config, sweep.seconds, &per_iteration)) {
            ++failures;
            continue;
          }
          double updates = swarms[s] * dims[d] / per_iteration;
          double bytes = 20.0 * updates * 1e-9;
          printf("%-10s %9.0f %5d %12.1f %14.4g %14.4g %9.1f%%\n",
                 config.function, swarms[s], dims[d], 1.0 / per_iteration,
                 updates, swarms[s] / per_iteration,
                 copy > 0 ? 100.0 * bytes / copy : 0.0);
        }
      }
    }
    /* The launch-bound case: a small swarm's iterations per second. */
    ck_pso_config small;
    ck_pso_config_init(&small);
    small.function = "rastrigin";
    small.particles = 4096;
    small.dim = 30;
    double per_iteration;
    if (time_swarm(device, &small, sweep.seconds, &per_iteration) == 0)
      printf("small swarm: rastrigin 4096 x 30: %.0f iterations/s\n",
             1.0 / per_iteration);
    else
      ++failures;
    /* lsq: a row (a_j, b_j) costs a particle 34 operations (16 products,
     * 16 differences, a square and a sum); "over the data" counts its 68
     * bytes once a particle, as thread mode reads them (vector mode reads
     * a row once for 16 particles). */
    size_t rows =
        sweep.quick || device->backend == CK_BACKEND_REF ? 20000 : 1000000;
    ck_lsq_data data = {0};
    if (ck_lsq_generate(rows, 16, 1, 0.0, &data, NULL)) {
      ++failures;
      bench_report("lsq data");
    } else {
      static const char *const mode_names[] = {"auto", "group", "thread",
                                               "vector"};
      for (int i = 0; i < 6; ++i) {
        double particles = i < 3 ? 64 : 1024;
        int mode = CK_PSO_LSQ_GROUP + i % 3;
        /* ref evaluates one way; CUDA devices take thread mode for
         * vector. */
        if ((device->backend == CK_BACKEND_REF && mode != CK_PSO_LSQ_THREAD) ||
            (device->backend != CK_BACKEND_OPENCL && mode == CK_PSO_LSQ_VECTOR))
          continue;
        ck_pso_config config;
        ck_pso_config_init(&config);
        config.function = "lsq";
        config.data = &data;
        config.particles = (size_t)particles;
        config.lsq_mode = (ck_pso_lsq_mode)mode;
        if (time_swarm(device, &config, sweep.seconds, &per_iteration)) {
          ++failures;
          continue;
        }
        double row_visits = particles * (double)rows / per_iteration;
        double rate = row_visits * 17.0 * 4.0 * 1e-9;
        printf("lsq %zu rows x 16, %4.0f particles, %-6s mode: %8.2f iter/s, "
               "%7.1f GFLOP/s, %7.1f GB/s over the data (%.1f%% of copy)\n",
               rows, particles, mode_names[mode], 1.0 / per_iteration,
               row_visits * 34.0 * 1e-9, rate,
               copy > 0 ? 100.0 * rate / copy : 0.0);
      }
      ck_lsq_free(&data);
    }
  }
  ck_device_set_free(&sweep.set);
  return failures ? 1 : 0;
}
