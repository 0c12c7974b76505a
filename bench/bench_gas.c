/*
 * bench_gas.c - throughput of the 2D Lennard-Jones gas per device, set
 * against the device's measured FP32 rate and against LAMMPS on one CPU
 * core.
 *
 *   bench_gas [--device SEL] [--max-particles N] [--seconds S] [--quick]
 *             [--sections LIST] [--lammps LMP] [--rounds R]
 *   bench_gas --print-lammps-input N RHO STEPS
 *
 * Sections, one table each (--sections picks some of peak, lists,
 * allpairs and lammps, comma-separated; all by default):
 *
 * FP32 peak: cl/peak.cl's ck_peak_fma, multiply-adds on 8 independent
 * accumulators of 1, 4 or 16 lanes (GPUs do best with one lane a
 * work-item, CPUs with their SIMD width; the best of the three is the
 * peak). Its global size doubles from 256 work-items a compute unit until a
 * launch lasts 10 ms; the figure is the median of 5 launches (3 with
 * --quick) by profiling events. Not measured on ref, which runs no kernels.
 *
 * Neighbour lists: particle-steps/s for N = 10^3 to 10^7 (up to
 * --max-particles) at density 0.8 on a triangular lattice, Lennard-Jones
 * cut at rc = 2.5 and shifted in energy, T = 1, dt = 0.005, NVE; with cell
 * lists built every step, then with Verlet lists of skin 0.3. Each gas is
 * warmed up 10 steps, then timed over doubling batches of steps until one
 * lasts S seconds (--seconds, default 0.5), each batch closed by
 * ck_gas_observe (a blocking read of the sums reduced on the device).
 *
 * All pairs: N = 2^13, 2^15 and 2^17 (up to the limit), counting
 * N (N - 1) pair evaluations a step. The all-pairs kernel skips the
 * arithmetic of Lennard-Jones pairs beyond rc, which would make such a
 * count meaningless, so this section runs the soft-log model (strength 1,
 * softening 1, density 0.8), which has no cutoff: every pair is computed.
 * The box has reflecting walls, the natural boundary for a logarithmic
 * interaction (no periodic images). GFLOP/s counts 20 flops an
 * interaction, the usual N-body convention; the soft-log force costs a
 * reciprocal and about 15 other operations, and its logarithm is taken
 * only on the steps before an observation. At strength 1 the gas
 * collapses under its own attraction and the energy overflows after some
 * 130 steps between walls (300 to 500 periodic), so no gas runs more than
 * 80 steps: batches double up to 32 steps, and further 32-step batches
 * run on fresh gases (made outside the timing) until they have lasted S
 * seconds together. The arithmetic of a pair does not depend on where the
 * particles are.
 *
 * Sizes whose buffers would not fit the device, and sizes whose step,
 * predicted from the size before (linear in N with neighbour lists,
 * quadratic with all pairs), would last longer than S seconds, are skipped
 * with a note.
 *
 * LAMMPS peer (--lammps, the lmp binary): the same system in LAMMPS on one
 * core (OMP_NUM_THREADS=1, no mpirun, no -sf suffix): N = 4096 and 10^5 at
 * density 0.8, and N = 4096 at 0.7, lj/cut 2.5 with pair_modify shift yes,
 * a hexagonal lattice in a box as near square as N allows (clkit is given
 * the same box), velocities at T = 1, fix nve and enforce2d, neighbor 0.3
 * bin checked every step, dt 0.005. LAMMPS runs 100 warm-up steps and then
 * a timed run (steps chosen from a first calibration run so that it lasts
 * S seconds, and at least 100); its "Loop time" of the timed run gives
 * particle-steps/s. Each round (--rounds R, default 3, 1 with --quick)
 * runs LAMMPS at a point and then clkit's cells and Verlet modes at the
 * same N and box, so that both meet the machine alike (a shared machine's
 * speed wanders); the closing table gives the best and the median of the
 * rounds, and the ratios clkit / LAMMPS of each. The work differs: LAMMPS
 * uses half neighbour lists and Newton's third law, computing each pair
 * once, while clkit's cell and Verlet modes use full lists and compute
 * each pair twice (once for each particle, so that no two work-items write
 * the same force). --print-lammps-input writes the input used for one
 * (N, RHO) and STEPS timed steps, for running LAMMPS by hand:
 *
 *   bench_gas --print-lammps-input 4096 0.8 2000 > in.lj2d
 *   OMP_NUM_THREADS=1 lmp -in in.lj2d
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

enum { MEASURED = 0, FAILED = 1, SKIPPED = 2 };

enum {
  PEAK_ITERATIONS = 4096,
  PEAK_ACCUMULATORS = 8, /* as in cl/peak.cl */
  PEAK_MAX_ITEMS = 1 << 22,
  NEIGHBOR_WARMUP = 10,
  ALL_PAIRS_WARMUP = 2,
  ALL_PAIRS_LARGEST_BATCH = 32,
  ALL_PAIRS_STEPS_PER_GAS = 80,
  LAMMPS_WARMUP = 100,
  LAMMPS_MINIMUM_STEPS = 100,
  LAMMPS_SEED = 87287,
  MAX_ROUNDS = 15
};

static const double DENSITY = 0.8, CUTOFF = 2.5, SKIN = 0.3;

/* ------------------------------------------------------------------ */
/* FP32 peak                                                           */
/* ------------------------------------------------------------------ */

/* Seconds of one launch of the peak kernel over `items` work-items: from
 * profiling events, or the wall clock when the device gives none. */
static int time_peak_launch(ck_queue *queue, ck_kernel *kernel, size_t items,
                            const size_t *local, double *seconds) {
  ck_event *event = NULL;
  double started = bench_now();
  if (ck_queue_launch(queue, kernel, 1, &items, local, &event) ||
      ck_queue_finish(queue)) {
    ck_event_destroy(event);
    return bench_report("peak kernel");
  }
  double wall = bench_now() - started;
  uint64_t start_ns = 0, end_ns = 0;
  ck_status status = ck_event_get_times(event, &start_ns, &end_ns);
  ck_event_destroy(event);
  if (status)
    return bench_report("peak kernel times");
  *seconds = end_ns > start_ns ? 1e-9 * (double)(end_ns - start_ns) : wall;
  return 0;
}

/* GFLOP/s of ck_peak_fma at one accumulator width, printed as a row;
 * 0 on failure (reported). */
static double peak_at_width(ck_queue *queue, const ck_device *device,
                            ck_buffer *result, int width, int repeat) {
  char defines[96];
  snprintf(defines, sizeof defines,
           "-DCK_PEAK_ITERATIONS=%d -DCK_PEAK_WIDTH=%d", PEAK_ITERATIONS,
           width);
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  double gflops = 0, samples[16];
  float scale = 0.999f, offset = 0.001f, check = 0;
  if (ck_program_build(queue, "peak", defines, &program) ||
      ck_kernel_create(program, "ck_peak_fma", &kernel) ||
      ck_kernel_set_buffer(kernel, 0, result) ||
      ck_kernel_set_value(kernel, 1, sizeof scale, &scale) ||
      ck_kernel_set_value(kernel, 2, sizeof offset, &offset)) {
    bench_report("peak kernel");
    goto done;
  }
  /* GPUs get work-groups of 256; CPU runtimes choose their own. */
  size_t group = 256;
  const size_t *local =
      device->kind == CK_KIND_GPU && device->max_work_group_size >= group
          ? &group
          : NULL;
  size_t units = device->compute_units ? device->compute_units : 1;
  size_t items = 256 * units;
  double seconds = 0;
  /* A first launch, untimed: some runtimes finish compiling in it. */
  if (time_peak_launch(queue, kernel, items, local, &seconds))
    goto done;
  for (;;) {
    if (time_peak_launch(queue, kernel, items, local, &seconds))
      goto done;
    if (seconds >= 0.01 || 2 * items > PEAK_MAX_ITEMS)
      break;
    items *= 2;
  }
  for (int r = 0; r < repeat; ++r)
    if (time_peak_launch(queue, kernel, items, local, &samples[r]))
      goto done;
  if (ck_buffer_read(queue, result, 0, sizeof check, &check, CK_BLOCKING,
                     NULL)) {
    bench_report("peak result");
    goto done;
  }
  if (!isfinite(check)) {
    fprintf(stderr, "bench_gas: %s: the peak kernel wrote %g\n", device->id,
            (double)check);
    goto done;
  }
  seconds = bench_median(samples, repeat);
  double flops =
      2.0 * PEAK_ACCUMULATORS * width * (double)PEAK_ITERATIONS * (double)items;
  gflops = flops / seconds * 1e-9;
  printf("%-10s %5u %6d %10zu %10.3f %12.1f\n", device->id,
         device->compute_units, width, items, 1e3 * seconds, gflops);
  fflush(stdout);
done:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  return gflops;
}

/* The best GFLOP/s over the widths (0 and reported on failure). */
static double measure_peak(const ck_device *device, int repeat) {
  static const int widths[] = {1, 4, 16};
  ck_queue *queue = NULL;
  ck_buffer *result = NULL;
  double best = 0;
  if (ck_queue_create(device, &queue) ||
      ck_buffer_create(queue, PEAK_MAX_ITEMS * sizeof(float), &result)) {
    bench_report(device->id);
    goto done;
  }
  /* CUDA's float4 has no arithmetic: one float a thread, which is what
   * GPUs do best anyway. */
  size_t width_count =
      device->backend == CK_BACKEND_CUDA ? 1 : sizeof widths / sizeof widths[0];
  for (size_t w = 0; w < width_count; ++w) {
    double gflops = peak_at_width(queue, device, result, widths[w], repeat);
    if (gflops <= 0) {
      best = 0;
      goto done;
    }
    if (gflops > best)
      best = gflops;
  }
done:
  ck_buffer_destroy(result);
  ck_queue_destroy(queue);
  return best;
}

/* ------------------------------------------------------------------ */
/* The gas                                                             */
/* ------------------------------------------------------------------ */

/* The gas of the neighbour-list sections at N particles. */
static void neighbor_config(size_t particles, ck_gas_neighbors neighbors,
                            ck_gas_config *config) {
  ck_gas_config_init(config);
  config->particles = particles;
  config->density = DENSITY;
  config->rc = CUTOFF;
  config->shift = CK_GAS_SHIFT_ENERGY;
  config->temperature = 1.0;
  config->lattice = CK_GAS_TRIANGULAR;
  config->dt = 0.005;
  config->thermostat = CK_GAS_NVE;
  config->neighbors = neighbors;
  config->skin = SKIN;
}

static const char *mode_name(ck_gas_neighbors neighbors) {
  return neighbors == CK_GAS_CELLS    ? "cells"
         : neighbors == CK_GAS_VERLET ? "verlet"
                                      : "allpairs";
}

/*
 * Whether the gas's buffers fit the device, by the sizes the library
 * allocates (in float): about 64 bytes a particle, and with Verlet lists a
 * reference position and a list of room for twice the neighbours of a
 * packing at density max(rho, 1.2). Returns 0, or 1 with why filled in.
 */
static int does_not_fit(const ck_device *device, const ck_gas_config *config,
                        char *why, size_t why_size) {
  if (!device->global_memory)
    return 0;
  double particles = (double)config->particles;
  double bytes = 64.0 * particles, largest = 8.0 * particles;
  if (config->neighbors == CK_GAS_VERLET) {
    double range = config->rc + config->skin;
    double density = config->density > 1.2 ? config->density : 1.2;
    double capacity = ceil(2.0 * 3.14159265358979 * range * range * density);
    largest = 4.0 * capacity * particles;
    bytes += 12.0 * particles + largest;
  }
  if (bytes > 0.8 * (double)device->global_memory ||
      (device->max_alloc && largest > (double)device->max_alloc)) {
    snprintf(why, why_size,
             "needs about %.2g GB (largest buffer %.2g GB) of %.2g GB",
             bytes * 1e-9, largest * 1e-9,
             (double)device->global_memory * 1e-9);
    return 1;
  }
  return 0;
}

/*
 * How a gas is timed: `warmup` steps on each new gas, then batches of
 * steps doubling from 1 until one lasts `seconds`, each closed by
 * ck_gas_observe (a blocking read of the sums reduced on the device).
 * Batches grow to largest_batch at most; a gas runs steps_per_gas steps at
 * most (0: no limit), after which a fresh one is made (outside the
 * timing). Once batches are as large as allowed, the time of further
 * batches is pooled until they have lasted `seconds` together.
 */
typedef struct timing {
  uint64_t warmup, largest_batch, steps_per_gas;
  double seconds;
} timing;

/* A new gas, warmed up: MEASURED; SKIPPED with why filled in when the
 * device has not the memory; FAILED (reported). */
static int start_gas(const ck_device *device, const ck_gas_config *config,
                     uint64_t warmup, ck_gas **gas, char *why,
                     size_t why_size) {
  ck_gas_observables observables;
  ck_status status = ck_gas_create(device, config, gas);
  if (status == CK_ERROR_DEVICE_MEMORY || status == CK_ERROR_OUT_OF_MEMORY) {
    const char *message = "";
    ck_error_get_last(&message);
    snprintf(why, why_size, "does not fit: %s", message);
    return SKIPPED;
  }
  if (status || ck_gas_step(*gas, warmup) ||
      ck_gas_observe(*gas, &observables)) {
    bench_report(device->id);
    ck_gas_destroy(*gas);
    *gas = NULL;
    return FAILED;
  }
  return MEASURED;
}

/* Seconds a step of the gas takes, by the plan: MEASURED, SKIPPED (why
 * filled in) or FAILED (reported). */
static int time_gas(const ck_device *device, const ck_gas_config *config,
                    const timing *plan, double *per_step, char *why,
                    size_t why_size) {
  if (does_not_fit(device, config, why, why_size))
    return SKIPPED;
  ck_gas *gas = NULL;
  ck_gas_observables observables;
  uint64_t batch = 1, age = 0, pooled_steps = 0;
  double pooled_seconds = 0;
  int outcome = MEASURED;
  for (;;) {
    if (!gas || (plan->steps_per_gas && age + batch > plan->steps_per_gas)) {
      ck_gas_destroy(gas);
      gas = NULL;
      outcome = start_gas(device, config, plan->warmup, &gas, why, why_size);
      if (outcome != MEASURED)
        break;
      age = plan->warmup;
    }
    double started = bench_now();
    if (ck_gas_step(gas, batch) || ck_gas_observe(gas, &observables)) {
      bench_report(device->id);
      outcome = FAILED;
      break;
    }
    double elapsed = bench_now() - started;
    age += batch;
    if (elapsed >= plan->seconds) {
      *per_step = elapsed / (double)batch;
      break;
    }
    if (2 * batch <= plan->largest_batch) {
      batch *= 2;
      continue;
    }
    pooled_seconds += elapsed;
    pooled_steps += batch;
    if (pooled_seconds >= plan->seconds) {
      *per_step = pooled_seconds / (double)pooled_steps;
      break;
    }
  }
  ck_gas_destroy(gas);
  return outcome;
}

/*
 * Whether a size is worth timing: SKIPPED (why filled in) when a step,
 * predicted from the last size measured (last_particles, last_step
 * seconds; 0 when none) by N^power, would last longer than `seconds`.
 */
static int predict_too_long(size_t particles, size_t last_particles,
                            double last_step, int power, double seconds,
                            char *why, size_t why_size) {
  if (!last_particles || !(last_step > 0))
    return MEASURED;
  double predicted =
      last_step * pow((double)particles / (double)last_particles, power);
  if (predicted <= seconds)
    return MEASURED;
  snprintf(why, why_size,
           "a step would take about %.2g s (over --seconds %.2g)", predicted,
           seconds);
  return SKIPPED;
}

/* Cell lists, then Verlet lists, over the sizes; returns failures. */
static int neighbor_section(const ck_device *device, double max_particles,
                            double seconds, int quick) {
  static const double sizes[] = {1e3, 1e4, 1e5, 1e6, 1e7};
  static const ck_gas_neighbors modes[] = {CK_GAS_CELLS, CK_GAS_VERLET};
  const timing plan = {NEIGHBOR_WARMUP, 1u << 22, 0, seconds};
  int failures = 0;
  for (size_t m = 0; m < 2; ++m) {
    size_t last_particles = 0;
    double last_step = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
      if (sizes[s] > max_particles || (quick && s > 0))
        break;
      ck_gas_config config;
      neighbor_config((size_t)sizes[s], modes[m], &config);
      char why[256];
      double per_step = 0;
      int outcome = predict_too_long(config.particles, last_particles,
                                     last_step, 1, seconds, why, sizeof why);
      if (outcome == MEASURED)
        outcome = time_gas(device, &config, &plan, &per_step, why, sizeof why);
      if (outcome == FAILED) {
        ++failures;
        break;
      }
      if (outcome == SKIPPED) {
        printf("%-10s %9zu %-8s skipped: %s\n", device->id, config.particles,
               mode_name(modes[m]), why);
        break;
      }
      double rate = (double)config.particles / per_step;
      printf("%-10s %9zu %-8s %10.1f %10.4f %16.4g %12.2f\n", device->id,
             config.particles, mode_name(modes[m]), 1.0 / per_step,
             1e3 * per_step, rate, 1e9 / rate);
      fflush(stdout);
      last_particles = config.particles;
      last_step = per_step;
    }
  }
  return failures;
}

/* Soft-log all pairs over the sizes; returns failures. */
static int all_pairs_section(const ck_device *device, double peak,
                             double max_particles, double seconds, int quick) {
  static const size_t sizes[] = {1u << 13, 1u << 15, 1u << 17};
  const timing plan = {ALL_PAIRS_WARMUP, ALL_PAIRS_LARGEST_BATCH,
                       ALL_PAIRS_STEPS_PER_GAS, seconds};
  size_t last_particles = 0;
  double last_step = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    if ((double)sizes[s] > max_particles || (quick && s > 0))
      break;
    ck_gas_config config;
    neighbor_config(sizes[s], CK_GAS_ALL_PAIRS, &config);
    config.model = CK_GAS_SOFT_LOG;
    config.strength = 1.0;
    config.softening = 1.0;
    config.walls = 1;
    char why[256];
    double per_step = 0;
    int outcome = predict_too_long(sizes[s], last_particles, last_step, 2,
                                   seconds, why, sizeof why);
    if (outcome == MEASURED)
      outcome = time_gas(device, &config, &plan, &per_step, why, sizeof why);
    if (outcome == FAILED)
      return 1;
    if (outcome == SKIPPED) {
      printf("%-10s %9zu skipped: %s\n", device->id, sizes[s], why);
      return 0;
    }
    double n = (double)sizes[s];
    double interactions = n * (n - 1) / per_step;
    double gflops = 20.0 * interactions * 1e-9;
    char share[32] = "-";
    if (peak > 0)
      snprintf(share, sizeof share, "%.1f%%", 100.0 * gflops / peak);
    printf("%-10s %9zu %10.3f %16.4g %10.1f %9s\n", device->id, sizes[s],
           1e3 * per_step, interactions, gflops, share);
    fflush(stdout);
    last_particles = sizes[s];
    last_step = per_step;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* LAMMPS                                                              */
/* ------------------------------------------------------------------ */

/* The hexagonal lattice LAMMPS builds for N particles at a density:
 * cells_x by cells_y unit cells of 2 sites, each a by sqrt(3) a, in a box
 * as near square as the factors of N / 2 allow. */
typedef struct lammps_layout {
  size_t cells_x, cells_y;
  double box_x, box_y;
} lammps_layout;

/* 0, or -1 with a message when N is odd or N / 2 has no factors giving a
 * box of sides within a factor of 2 of each other. */
static int lammps_layout_for(size_t particles, double density,
                             lammps_layout *layout) {
  double best = INFINITY;
  size_t cells = particles / 2;
  if (particles >= 2 && particles % 2 == 0 && density > 0 && isfinite(density))
    for (size_t y = 1; y <= cells; ++y) {
      if (cells % y)
        continue;
      size_t x = cells / y;
      double aspect = fabs(log((double)x / (sqrt(3.0) * (double)y)));
      if (aspect < best) {
        best = aspect;
        layout->cells_x = x;
        layout->cells_y = y;
      }
    }
  if (!(best <= log(2.0))) {
    fprintf(stderr,
            "bench_gas: %zu particles at density %g cannot be laid out as a "
            "hexagonal lattice of 2 x nx x ny sites in a near-square box; "
            "give an even N with N / 2 = nx x ny, nx / ny near 1.7 "
            "(4096 and 100000 work)\n",
            particles, density);
    return -1;
  }
  double spacing = sqrt(2.0 / (sqrt(3.0) * density));
  layout->box_x = spacing * (double)layout->cells_x;
  layout->box_y = spacing * sqrt(3.0) * (double)layout->cells_y;
  return 0;
}

/* The LAMMPS input for N particles at a density: LAMMPS_WARMUP steps, then
 * `steps` timed. The single source of the peer's settings. */
static void write_lammps_input(FILE *out, size_t particles, double density,
                               const lammps_layout *layout,
                               unsigned long long steps) {
  fprintf(out,
          "# 2D Lennard-Jones, %zu particles at density %.10g: the peer of "
          "clkit's\n"
          "# bench_gas. Run on one core, without mpirun or -sf:\n"
          "#   OMP_NUM_THREADS=1 lmp -in FILE\n"
          "# The timed run's \"Loop time of X on 1 procs for S steps with N "
          "atoms\"\n"
          "# gives N S / X particle-steps/s.\n"
          "units           lj\n"
          "dimension       2\n"
          "boundary        p p p\n"
          "atom_style      atomic\n"
          "lattice         hex %.10g\n"
          "region          box block 0 %zu 0 %zu -0.5 0.5\n"
          "create_box      1 box\n"
          "create_atoms    1 box\n"
          "mass            1 1.0\n"
          "velocity        all create 1.0 %d mom yes dist gaussian\n"
          "pair_style      lj/cut %g\n"
          "pair_coeff      1 1 1.0 1.0 %g\n"
          "pair_modify     shift yes\n"
          "neighbor        %g bin\n"
          "neigh_modify    every 1 delay 0 check yes\n"
          "fix             1 all nve\n"
          "fix             2 all enforce2d\n"
          "timestep        0.005\n"
          "thermo          %llu\n"
          "# warm-up\n"
          "run             %d\n"
          "# timed\n"
          "run             %llu\n",
          particles, density, density, layout->cells_x, layout->cells_y,
          LAMMPS_SEED, CUTOFF, CUTOFF, SKIN,
          steps > LAMMPS_WARMUP ? steps : (unsigned long long)LAMMPS_WARMUP,
          LAMMPS_WARMUP, steps);
}

/* text in single quotes for the shell (a ' becomes '\''), into out. */
static int shell_quote(const char *text, char *out, size_t size) {
  size_t used = 0;
  if (size < 3)
    return -1;
  out[used++] = '\'';
  for (; *text; ++text) {
    const char *piece = *text == '\'' ? "'\\''" : NULL;
    size_t length = piece ? 4 : 1;
    if (used + length + 2 > size)
      return -1;
    if (piece)
      memcpy(out + used, piece, length);
    else
      out[used] = *text;
    used += length;
  }
  out[used++] = '\'';
  out[used] = '\0';
  return 0;
}

typedef struct lammps_run {
  double loop_seconds;
  unsigned long long steps, atoms;
  char version[128];
} lammps_run;

/* Runs LAMMPS on the input in directory/in.lj2d and reads the last "Loop
 * time" line; 0, or -1 with the reason and the end of its output. */
static int run_lammps(const char *lammps, const char *directory,
                      lammps_run *run) {
  char quoted_binary[1200], quoted_directory[1200], command[2600];
  if (shell_quote(lammps, quoted_binary, sizeof quoted_binary) ||
      shell_quote(directory, quoted_directory, sizeof quoted_directory)) {
    fprintf(stderr, "bench_gas: the LAMMPS path is too long\n");
    return -1;
  }
  snprintf(command, sizeof command,
           "cd %s && OMP_NUM_THREADS=1 exec %s -log none -in in.lj2d 2>&1",
           quoted_directory, quoted_binary);
  FILE *pipe = popen(command, "r");
  if (!pipe) {
    fprintf(stderr, "bench_gas: cannot run %s: %s\n", lammps, strerror(errno));
    return -1;
  }
  /* The whole output is kept, to show its end when something fails. */
  size_t capacity = 1 << 16, length = 0;
  char *output = malloc(capacity), line[1024];
  int found = 0, out_of_memory = !output;
  if (output)
    output[0] = '\0';
  memset(run, 0, sizeof *run);
  while (fgets(line, sizeof line, pipe)) {
    unsigned long long steps, atoms;
    double seconds;
    int processes;
    if (sscanf(line, "Loop time of %lf on %d procs for %llu steps with %llu",
               &seconds, &processes, &steps, &atoms) == 4) {
      found = processes == 1;
      run->loop_seconds = seconds;
      run->steps = steps;
      run->atoms = atoms;
    }
    if (!run->version[0] && strncmp(line, "LAMMPS (", 8) == 0) {
      size_t kept = strcspn(line, "\n");
      if (kept >= sizeof run->version)
        kept = sizeof run->version - 1;
      memcpy(run->version, line, kept);
      run->version[kept] = '\0';
    }
    size_t piece = strlen(line);
    if (!out_of_memory && length + piece + 1 > capacity) {
      char *grown = realloc(output, 2 * capacity + piece);
      if (grown) {
        output = grown;
        capacity = 2 * capacity + piece;
      } else {
        out_of_memory = 1;
      }
    }
    if (!out_of_memory) {
      memcpy(output + length, line, piece + 1);
      length += piece;
    }
  }
  int status = pclose(pipe);
  int exited_well =
      status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  int failed = !exited_well || !found || !(run->loop_seconds > 0);
  if (failed) {
    fprintf(stderr, "bench_gas: LAMMPS (%s in %s) ", lammps, directory);
    if (!exited_well)
      fprintf(stderr, "failed (exit status %d)",
              status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : status);
    else
      fprintf(stderr, "printed no \"Loop time of X on 1 procs\" line");
    const char *tail = output && length > 3000 ? output + length - 3000
                       : output                ? output
                                               : "";
    fprintf(stderr, "; the end of its output:\n%s\n", tail);
  }
  free(output);
  return failed ? -1 : 0;
}

/* Writes the input for N, density and steps into directory/in.lj2d and
 * runs it; 0 or -1 (reported). */
static int lammps_once(const char *lammps, const char *directory,
                       size_t particles, double density,
                       const lammps_layout *layout, unsigned long long steps,
                       lammps_run *run) {
  char path[1100];
  snprintf(path, sizeof path, "%s/in.lj2d", directory);
  FILE *input = fopen(path, "w");
  if (!input) {
    fprintf(stderr, "bench_gas: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  write_lammps_input(input, particles, density, layout, steps);
  if (fclose(input)) {
    fprintf(stderr, "bench_gas: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (run_lammps(lammps, directory, run))
    return -1;
  if (run->atoms != particles || run->steps != steps) {
    fprintf(stderr,
            "bench_gas: LAMMPS ran %llu steps with %llu atoms, not %llu with "
            "%zu\n",
            run->steps, run->atoms, steps, particles);
    return -1;
  }
  return 0;
}

typedef struct lammps_point {
  size_t particles;
  double density;
} lammps_point;

/* The steps of a LAMMPS run lasting about `seconds` at one point, from a
 * calibration run of LAMMPS_MINIMUM_STEPS (0 on failure, reported). */
static unsigned long long
lammps_steps(const char *lammps, const char *directory,
             const lammps_point *point, const lammps_layout *layout,
             double seconds, char *version, size_t version_size) {
  lammps_run run;
  unsigned long long steps = LAMMPS_MINIMUM_STEPS;
  if (lammps_once(lammps, directory, point->particles, point->density, layout,
                  steps, &run))
    return 0;
  snprintf(version, version_size, "%s", run.version);
  double per_step = run.loop_seconds / (double)run.steps;
  double wanted = ceil(seconds / per_step);
  if (wanted > (double)steps)
    steps = wanted < 1e9 ? (unsigned long long)wanted : 1000000000ull;
  return steps;
}

/* LAMMPS's particle-steps/s at one point over `steps` timed steps (0 on
 * failure, reported), printed as a row of round `round`. */
static double lammps_rate(const char *lammps, const char *directory,
                          const lammps_point *point,
                          const lammps_layout *layout, unsigned long long steps,
                          int round) {
  lammps_run run;
  if (lammps_once(lammps, directory, point->particles, point->density, layout,
                  steps, &run))
    return 0;
  double rate = (double)run.atoms * (double)run.steps / run.loop_seconds;
  printf("%5d %-10s %9zu %6.2f %-8s %8.2f x %-8.2f %8llu %10.3f %16.4g\n",
         round, "lammps", point->particles, point->density, "", layout->box_x,
         layout->box_y, run.steps, run.loop_seconds, rate);
  fflush(stdout);
  return rate;
}

/* Removes what LAMMPS and this file left in the directory, then it. */
static void remove_directory(const char *directory) {
  static const char *const names[] = {"in.lj2d", "log.lammps", "log.cite"};
  char path[1100];
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
    snprintf(path, sizeof path, "%s/%s", directory, names[k]);
    if (unlink(path) && errno != ENOENT)
      fprintf(stderr, "bench_gas: cannot remove %s: %s\n", path,
              strerror(errno));
  }
  if (rmdir(directory))
    fprintf(stderr, "bench_gas: cannot remove %s: %s\n", directory,
            strerror(errno));
}

/* The best and the median of `count` rates (0 when any is missing). */
static void best_and_median(const double *rates, int count, double *best,
                            double *median) {
  double sorted[MAX_ROUNDS];
  *best = *median = 0;
  for (int r = 0; r < count; ++r) {
    if (!(rates[r] > 0))
      return;
    sorted[r] = rates[r];
  }
  *median = bench_median(sorted, count); /* sorts `sorted` in place */
  *best = sorted[count - 1];
}

/*
 * The LAMMPS section: `rounds` rounds, each running LAMMPS at every point
 * and then every device's cells and Verlet modes at the same points, so
 * that both see the machine alike; then a table of the best and the median
 * rates of the rounds, with the ratios clkit / LAMMPS. Returns failures.
 */
static int lammps_section(const char *lammps, const ck_device_set *set,
                          const size_t *indices, size_t device_count,
                          double max_particles, double seconds, int quick,
                          int rounds) {
  static const lammps_point points[] = {
      {4096, 0.8}, {100000, 0.8}, {4096, 0.7}};
  static const ck_gas_neighbors modes[] = {CK_GAS_CELLS, CK_GAS_VERLET};
  enum { POINTS = sizeof points / sizeof points[0], MODES = 2, DEVICES = 8 };
  const timing plan = {NEIGHBOR_WARMUP, 1u << 22, 0, seconds};
  lammps_layout layouts[POINTS];
  unsigned long long steps[POINTS] = {0};
  static double lammps_rates[POINTS][MAX_ROUNDS];
  static double clkit_rates[DEVICES][POINTS][MODES][MAX_ROUNDS];
  int failures = 0, wanted[POINTS];
  if (device_count > DEVICES)
    device_count = DEVICES;
  memset(lammps_rates, 0, sizeof lammps_rates);
  memset(clkit_rates, 0, sizeof clkit_rates);
  const char *base = getenv("TMPDIR");
  char directory[1024], version[128] = "";
  snprintf(directory, sizeof directory, "%s/bench_gas_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(directory)) {
    fprintf(stderr, "bench_gas: cannot make a directory %s: %s\n", directory,
            strerror(errno));
    return 1;
  }
  printf("\nLAMMPS peer (%s): one core, OMP_NUM_THREADS=1, no mpirun, no "
         "suffix; lj/cut %g shifted, neighbor %g bin every step, NVE, dt "
         "0.005;\n%d warm-up steps, then a timed run of at least %d steps "
         "and %g s; clkit beside it on the same N and box, %d round%s\n",
         lammps, CUTOFF, SKIN, LAMMPS_WARMUP, LAMMPS_MINIMUM_STEPS, seconds,
         rounds, rounds == 1 ? "" : "s");
  for (size_t p = 0; p < POINTS; ++p) {
    wanted[p] = (double)points[p].particles <= max_particles &&
                !(quick && points[p].particles > 4096);
    if (!wanted[p]) {
      printf("lammps %9zu %6.2f skipped: %s\n", points[p].particles,
             points[p].density, quick ? "--quick" : "over --max-particles");
      continue;
    }
    if (lammps_layout_for(points[p].particles, points[p].density,
                          &layouts[p]) ||
        !(steps[p] = lammps_steps(lammps, directory, &points[p], &layouts[p],
                                  seconds, version, sizeof version))) {
      wanted[p] = 0;
      ++failures;
    }
  }
  printf("%5s %-10s %9s %6s %-8s %19s %8s %10s %16s\n", "round", "program", "N",
         "rho", "mode", "box", "steps", "loop_s", "particle-steps/s");
  for (int round = 0; round < rounds; ++round)
    for (size_t p = 0; p < POINTS; ++p) {
      if (!wanted[p])
        continue;
      lammps_rates[p][round] = lammps_rate(lammps, directory, &points[p],
                                           &layouts[p], steps[p], round + 1);
      if (!(lammps_rates[p][round] > 0))
        ++failures;
      for (size_t d = 0; d < device_count; ++d) {
        const ck_device *device = &set->devices[indices[d]];
        for (size_t m = 0; m < MODES; ++m) {
          ck_gas_config config;
          neighbor_config(points[p].particles, modes[m], &config);
          config.box_x = layouts[p].box_x;
          config.box_y = layouts[p].box_y;
          char why[256];
          double per_step = 0;
          int outcome =
              time_gas(device, &config, &plan, &per_step, why, sizeof why);
          if (outcome == FAILED) {
            ++failures;
            continue;
          }
          if (outcome == SKIPPED) {
            printf("%5d %-10s %9zu %6.2f %-8s skipped: %s\n", round + 1,
                   device->id, points[p].particles, points[p].density,
                   mode_name(modes[m]), why);
            continue;
          }
          double rate = (double)config.particles / per_step;
          clkit_rates[d][p][m][round] = rate;
          printf("%5d %-10s %9zu %6.2f %-8s %19s %8s %10s %16.4g\n", round + 1,
                 device->id, points[p].particles, points[p].density,
                 mode_name(modes[m]), "", "", "", rate);
          fflush(stdout);
        }
      }
    }
  remove_directory(directory);
  if (version[0])
    printf("(%s)\n", version);
  printf("\nclkit beside LAMMPS, the best and the median of %d round%s "
         "(same N and box; LAMMPS computes each pair once, clkit each pair "
         "twice)\n",
         rounds, rounds == 1 ? "" : "s");
  printf("%-10s %9s %6s %-8s %12s %12s %12s %12s %10s %10s\n", "device", "N",
         "rho", "mode", "clkit best", "median", "LAMMPS best", "median",
         "best/best", "med/med");
  for (size_t d = 0; d < device_count; ++d)
    for (size_t p = 0; p < POINTS; ++p) {
      double lammps_best, lammps_median;
      best_and_median(lammps_rates[p], rounds, &lammps_best, &lammps_median);
      if (!wanted[p] || !(lammps_best > 0))
        continue;
      for (size_t m = 0; m < MODES; ++m) {
        double best, median;
        best_and_median(clkit_rates[d][p][m], rounds, &best, &median);
        if (!(best > 0))
          continue;
        printf("%-10s %9zu %6.2f %-8s %12.4g %12.4g %12.4g %12.4g %10.2f "
               "%10.2f\n",
               set->devices[indices[d]].id, points[p].particles,
               points[p].density, mode_name(modes[m]), best, median,
               lammps_best, lammps_median, best / lammps_best,
               median / lammps_median);
      }
    }
  return failures;
}

/* ------------------------------------------------------------------ */

static void usage(FILE *out) {
  fprintf(out,
          "usage: bench_gas [--device SEL] [--max-particles N] [--seconds S] "
          "[--quick] [--sections LIST] [--lammps LMP] [--rounds R]\n"
          "       bench_gas --print-lammps-input N RHO STEPS\n");
}

/* Section bits, for --sections. */
enum {
  SECTION_PEAK = 1,
  SECTION_LISTS = 2,
  SECTION_ALL_PAIRS = 4,
  SECTION_LAMMPS = 8
};

/* The bits of a comma-separated --sections list, or -1 with a message. */
static int parse_sections(const char *list) {
  static const struct {
    const char *name;
    int bit;
  } names[] = {{"peak", SECTION_PEAK},
               {"lists", SECTION_LISTS},
               {"allpairs", SECTION_ALL_PAIRS},
               {"lammps", SECTION_LAMMPS}};
  int bits = 0;
  for (const char *word = list; *word;) {
    size_t length = strcspn(word, ",");
    size_t n = 0;
    while (n < sizeof names / sizeof names[0] &&
           (strlen(names[n].name) != length ||
            strncmp(names[n].name, word, length) != 0))
      ++n;
    if (n == sizeof names / sizeof names[0]) {
      fprintf(stderr,
              "bench_gas: --sections: '%.*s' is not one of peak, lists, "
              "allpairs, lammps\n",
              (int)length, word);
      return -1;
    }
    bits |= names[n].bit;
    word += length;
    if (*word == ',')
      ++word;
  }
  if (!bits)
    fprintf(stderr, "bench_gas: --sections names no section\n");
  return bits ? bits : -1;
}

/* --print-lammps-input N RHO STEPS: the LAMMPS input, on stdout. */
static int print_lammps_input(char **arguments) {
  const char *tool = "bench_gas";
  double particles = 0, density = 0, steps = 0;
  if (bench_number(tool, "print-lammps-input N", arguments[0], 2, 1e12, 1,
                   &particles) ||
      bench_number(tool, "print-lammps-input RHO", arguments[1], 1e-12, 1e6, 0,
                   &density) ||
      bench_number(tool, "print-lammps-input STEPS", arguments[2], 1, 1e15, 1,
                   &steps))
    return 2;
  lammps_layout layout;
  if (lammps_layout_for((size_t)particles, density, &layout))
    return 2;
  write_lammps_input(stdout, (size_t)particles, density, &layout,
                     (unsigned long long)steps);
  return 0;
}

int main(int argc, char **argv) {
  const char *selector = "all", *lammps = NULL;
  double max_particles = 1e7, seconds = 0.5, number = 0;
  int quick = 0, print_input = 0, sections = -1, rounds = 0;
  static const struct option options[] = {
      {"device", required_argument, NULL, 'd'},
      {"max-particles", required_argument, NULL, 'n'},
      {"seconds", required_argument, NULL, 's'},
      {"quick", no_argument, NULL, 'q'},
      {"lammps", required_argument, NULL, 'l'},
      {"sections", required_argument, NULL, 'S'},
      {"rounds", required_argument, NULL, 'r'},
      {"print-lammps-input", no_argument, NULL, 'p'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int option;
  while ((option = getopt_long(argc, argv, "d:n:s:ql:h", options, NULL)) !=
         -1) {
    switch (option) {
    case 'd':
      selector = optarg;
      break;
    case 'n':
      if (bench_number("bench_gas", "max-particles", optarg, 1, 1e12, 0,
                       &max_particles))
        return 2;
      break;
    case 's':
      if (bench_number("bench_gas", "seconds", optarg, 1e-3, 3600, 0, &seconds))
        return 2;
      break;
    case 'q':
      quick = 1;
      break;
    case 'l':
      lammps = optarg;
      break;
    case 'S':
      if ((sections = parse_sections(optarg)) < 0)
        return 2;
      break;
    case 'r':
      if (bench_number("bench_gas", "rounds", optarg, 1, MAX_ROUNDS, 1,
                       &number))
        return 2;
      rounds = (int)number;
      break;
    case 'p':
      print_input = 1;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (print_input) {
    if (argc - optind != 3) {
      usage(stderr);
      return 2;
    }
    return print_lammps_input(argv + optind);
  }
  if (optind != argc) {
    usage(stderr);
    return 2;
  }
  if (sections != -1 && (sections & SECTION_LAMMPS) && !lammps) {
    fprintf(stderr, "bench_gas: --sections lammps needs --lammps LMP\n");
    return 2;
  }
  if (lammps && access(lammps, X_OK)) {
    fprintf(stderr, "bench_gas: --lammps %s: %s\n", lammps, strerror(errno));
    return 2;
  }
  ck_device_set set;
  size_t indices[64], device_count = 0;
  if (bench_select(selector, &set, indices, &device_count))
    return 1;
  int failures = 0, repeat = quick ? 3 : 5;
  double peaks[64] = {0};
  /* The all-pairs section reports its share of the peak. */
  if (sections & SECTION_ALL_PAIRS)
    sections |= SECTION_PEAK;

  if (sections & SECTION_PEAK) {
    printf(
        "FP32 peak: ck_peak_fma, %d multiply-adds on each of %d "
        "accumulators of `width` floats a work-item; median of %d launches\n",
        PEAK_ITERATIONS, PEAK_ACCUMULATORS, repeat);
    printf("%-10s %5s %6s %10s %10s %12s\n", "device", "CUs", "width",
           "work-items", "ms", "GFLOP/s");
    for (size_t d = 0; d < device_count; ++d) {
      const ck_device *device = &set.devices[indices[d]];
      if (device->backend == CK_BACKEND_REF) {
        printf("%-10s (runs no kernels)\n", device->id);
        continue;
      }
      peaks[d] = measure_peak(device, repeat);
      if (peaks[d] > 0)
        printf("%-10s peak %.1f GFLOP/s (%s)\n", device->id, peaks[d],
               device->name);
      else
        ++failures;
    }
  }

  if (sections & SECTION_LISTS) {
    printf("\nLennard-Jones, rho %g, rc %g shifted, T 1, dt 0.005, NVE; "
           "cell lists every step, Verlet lists skin %g\n",
           DENSITY, CUTOFF, SKIN);
    printf("%-10s %9s %-8s %10s %10s %16s %12s\n", "device", "N", "mode",
           "steps/s", "ms/step", "particle-steps/s", "ns/p-step");
    for (size_t d = 0; d < device_count; ++d)
      failures += neighbor_section(&set.devices[indices[d]], max_particles,
                                   seconds, quick);
  }

  if (sections & SECTION_ALL_PAIRS) {
    printf("\nAll pairs, soft-log model (strength 1, softening 1, rho %g, "
           "walls): no "
           "cutoff, every pair computed;\nN (N - 1) interactions a step, 20 "
           "flops an interaction\n",
           DENSITY);
    printf("%-10s %9s %10s %16s %10s %9s\n", "device", "N", "ms/step",
           "interactions/s", "GFLOP/s", "of peak");
    for (size_t d = 0; d < device_count; ++d)
      failures += all_pairs_section(&set.devices[indices[d]], peaks[d],
                                    max_particles, seconds, quick);
  }

  if (lammps && (sections & SECTION_LAMMPS))
    failures += lammps_section(lammps, &set, indices, device_count,
                               max_particles, seconds, quick,
                               rounds  ? rounds
                               : quick ? 1
                                       : 3);
  ck_device_set_free(&set);
  return failures ? 1 : 0;
}
