/*
 * gas_report.c - what a gas run reports: its averages with block
 * standard errors, its drift and rate in the ck_result; the chart of
 * --plot; and the benchmark's sizes and cost model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "framework/plot.h"
#include "gas/gas_internal.h"

/*
 * Mean and standard error of an observable's samples: the mean from their
 * sum (sum, of `samples`), the error from the means of `blocks` equal
 * blocks of the entries (the remainder at the end is left out of the
 * blocks, not of the mean). With too few entries the error is NaN.
 *
 * Each entry is the mean of `stride` consecutive samples (framework/history.h):
 * 1 until the run has made the history's limit of samples, then each
 * doubling of the stride pairs adjacent entries into their mean. That is a
 * blocking step (Flyvbjerg and Petersen): the blocks here are still the
 * means of runs of consecutive samples, a whole number of entries long, so
 * the estimate is the one an unbounded record would give with blocks
 * rounded down to a multiple of the stride (the limit holds a million
 * entries or more, against at most 1000 blocks), and the mean, from the
 * sum of every sample, is the same.
 */
static void block_average(double sum, uint64_t samples, const double *entries,
                          size_t count, unsigned blocks, double *mean,
                          double *error) {
  *mean = samples ? sum / (double)samples : NAN;
  size_t size = count / blocks;
  if (size < 1) {
    *error = NAN;
    return;
  }
  double means[1000], total = 0, spread = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    double block = 0;
    for (size_t i = 0; i < size; ++i)
      block += entries[b * size + i];
    means[b] = block / (double)size;
    total += means[b];
  }
  double average = total / blocks;
  for (unsigned b = 0; b < blocks; ++b)
    spread += (means[b] - average) * (means[b] - average);
  *error = sqrt(spread / (blocks - 1) / blocks);
}

/* The total energy's drift over the samples, and a warning where NVE
 * lost or gained more of it than a sound time step would. */
static void report_drift(const ck__gas_loop *run, const ck_gas_config *c,
                         ck_result *result) {
  ck_gas_observables first = run->first, last = run->last;
  double drift = last.total - first.total;
  ck__result_metric(result, "energy_drift", drift, "");
  ck__result_metric(result, "energy_drift_relative",
                    first.total != 0 ? drift / fabs(first.total) : NAN, "");
  if (ck_gas_check_drift(c, &first, &last) == CK_OK)
    return;
  const char *message = "";
  ck_error_get_last(&message);
  char line[400];
  snprintf(line, sizeof line, "warning: %s", message);
  ck_error_clear(); /* a warning, not a failure */
  ck__gas_log_line(run->options, line);
}

void ck__gas_report(const ck__gas_loop *run, const ck_gas_config *c,
                    double run_s, double setup_s, ck_result *result) {
  const ck__gas_job *job = run->job;
  const ck__history *samples = run->samples;
  uint64_t steps = job->equil + job->steps;
  double mean[CK__GAS_SAMPLES], error[CK__GAS_SAMPLES];
  for (int q = 0; q < CK__GAS_SAMPLES; ++q)
    block_average(samples->total[q], run->sampled, samples->entries[q],
                  samples->count, job->blocks, &mean[q], &error[q]);
  double particle_steps = (double)c->particles * (double)steps;
  result->best = mean[CK__GAS_SAMPLE_POTENTIAL];
  snprintf(result->best_name, sizeof result->best_name, "potential_energy");
  result->throughput = run_s > 0 ? particle_steps / run_s : 0;
  snprintf(result->throughput_unit, sizeof result->throughput_unit,
           "particle-steps/s");
  ck__result_metric(result, "particles", (double)c->particles, "");
  ck__result_metric(result, "box_x", c->box_x, "");
  ck__result_metric(result, "box_y", c->box_y, "");
  ck__result_metric(result, "density",
                    (double)c->particles / (c->box_x * c->box_y), "");
  /* 1 when the forces came from strips (--strips). */
  ck__result_flag(result, "strips", ck__gas_state(run->gas)->strips);
  ck__result_metric(result, "steps", (double)steps, "");
  ck__result_metric(result, "samples", (double)run->sampled, "");
  ck__result_metric(result, "temperature", mean[CK__GAS_SAMPLE_T], "");
  ck__result_metric(result, "temperature_se", error[CK__GAS_SAMPLE_T], "");
  ck__result_metric(result, "potential_energy", mean[CK__GAS_SAMPLE_POTENTIAL],
                    "");
  ck__result_metric(result, "potential_energy_se",
                    error[CK__GAS_SAMPLE_POTENTIAL], "");
  ck__result_metric(result, "total_energy", mean[CK__GAS_SAMPLE_TOTAL], "");
  ck__result_metric(result, "total_energy_se", error[CK__GAS_SAMPLE_TOTAL], "");
  ck__result_metric(result, "pressure", mean[CK__GAS_SAMPLE_PRESSURE], "");
  ck__result_metric(result, "pressure_se", error[CK__GAS_SAMPLE_PRESSURE], "");
  if (run->sampled)
    report_drift(run, c, result);
  ck__result_metric(result, "final_step", (double)(run->begin + steps), "");
  ck__result_metric(result, "run_s", run_s, "s");
  ck__result_metric(result, "setup_s", setup_s, "s");
}

ck_status ck__gas_write_plot(const ck__gas_loop *run, const ck_gas_config *c,
                             const ck_result *result) {
  const ck__history *kept = run->log_rows;
  size_t count = kept->count, every = ck__history_show_every(count), used = 0;
  double *rows = malloc((count ? count : 1) * CK__GAS_LOG_WIDTH * sizeof *rows);
  if (!rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s",
                    run->job->plot);
  for (size_t i = 0; i < count; ++i)
    if (i % every == 0 || i + 1 == count)
      memcpy(rows + used++ * CK__GAS_LOG_WIDTH,
             kept->entries[0] + i * CK__GAS_LOG_WIDTH,
             CK__GAS_LOG_WIDTH * sizeof *rows);
  static const struct {
    const char *name, *axis;
    size_t column;
  } shown[] = {
      {"potential", "energy / N (ε)", CK__GAS_LOG_POTENTIAL},
      {"kinetic", "energy / N (ε)", CK__GAS_LOG_KINETIC},
      {"total", "energy / N (ε)", CK__GAS_LOG_TOTAL},
      {"temperature", "temperature (ε/k)", CK__GAS_LOG_TEMPERATURE},
      {"pressure", "pressure (ε/σ²)", CK__GAS_LOG_PRESSURE},
  };
  ck__plot_series series[sizeof shown / sizeof *shown];
  for (size_t k = 0; k < sizeof shown / sizeof *shown; ++k)
    series[k] = (ck__plot_series){.name = shown[k].name,
                                  .axis = shown[k].axis,
                                  .x = rows + CK__GAS_LOG_STEP,
                                  .y = rows + shown[k].column,
                                  .count = used,
                                  .stride = CK__GAS_LOG_WIDTH};
  char what[200], details[300];
  double density = (double)c->particles / (c->box_x * c->box_y);
  snprintf(what, sizeof what, "%zu particles, density %.3g", c->particles,
           density);
  snprintf(
      details, sizeof details,
      "box %.4g × %.4g · dt %g · rc %g · thermostat %s · %s · %llu steps "
      "in %.3g s",
      c->box_x, c->box_y, c->dt, c->rc,
      ck__field_word_of(&ck__gas_fields[CK__GAS_THERMOSTAT], c->thermostat),
      ck__field_word_of(&ck__gas_fields[CK__GAS_NEIGHBORS], c->neighbors),
      (unsigned long long)(run->job->equil + run->job->steps), result->wall_s);
  const ck__plot plot = {.result = result,
                         .what = what,
                         .details = details,
                         .x_label = "step",
                         .top_label = "time (τ)",
                         .top_x = rows + CK__GAS_LOG_STEP,
                         .top_value = rows + CK__GAS_LOG_TIME,
                         .top_count = used,
                         .top_stride = CK__GAS_LOG_WIDTH,
                         .series = series,
                         .series_count = sizeof shown / sizeof *shown};
  ck_status status = ck__plot_write(run->job->plot, &plot);
  free(rows);
  return status;
}

/* ---- benchmark sizes and the cost model (docs/gas.md, "Cost model") ---- */

#define GAS_RUNG(particles)                                                    \
  {                                                                            \
    {"log-every", "0"}, {"steps", "200"}, {"particles", particles}, {          \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param gas_rungs[CK_BENCH_RUNGS][4] = {
    GAS_RUNG("1024"),   GAS_RUNG("4096"),   GAS_RUNG("16384"),
    GAS_RUNG("65536"),  GAS_RUNG("262144"), GAS_RUNG("1048576"),
    GAS_RUNG("4194304")};
static const char *const gas_size_options[] = {
    "particles", "box", "xyz", "restart", "steps", "equil", NULL};
static const char *const gas_size_metrics[] = {"particles", "steps", NULL};

/* What a particle keeps on the device, as the reals of its position,
 * velocity, force and sorted copies (GAS_PARTICLE_REALS) and the words
 * of its cell and order (GAS_PARTICLE_WORDS); Verlet lists come on top. */
enum { GAS_PARTICLE_REALS = 12, GAS_PARTICLE_WORDS = 8 };

static void gas_footprint(const ck_param *params, size_t count,
                          const ck_device *device, double *total,
                          double *largest) {
  (void)device;
  double n = ck__param_number(params, count, "particles",
                              ck__gas_fields[CK__GAS_PARTICLES].value);
  *total = n * (GAS_PARTICLE_REALS * sizeof(float) + GAS_PARTICLE_WORDS * 4.0);
  *largest = 2 * n * sizeof(float);
}

/* A unit is one particle's time step. Its force visits the particles of
 * the 3 x 3 cells around its own (cells at least rc wide), those of its
 * Verlet list, or every other particle, GAS_VISIT_FLOPS each (two
 * differences, two minimum images, a squared distance), and the pairs
 * within rc (pi rc^2 density of them) GAS_PAIR_FLOPS each (the
 * Lennard-Jones force and its sum; --model log's pairs have no cutoff).
 * The two half kicks and the drift take GAS_STEP_FLOPS. It moves
 * GAS_STEP_REALS reals (reading and writing its position and velocity,
 * reading and writing its force, its sorted copy) and GAS_STEP_WORDS
 * bytes of cell indices; the neighbours' positions are read from cache. */
enum {
  GAS_VISIT_FLOPS = 7,
  GAS_PAIR_FLOPS = 12,
  GAS_STEP_FLOPS = 14,
  GAS_STEP_REALS = 18,
  GAS_STEP_WORDS = 12
};

static ck_status gas_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"particles", "steps",   "box_x",
                                      "box_y",     "density", NULL};
  double values[5];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  double n = values[0], density = values[4];
  const char *text = ck__result_option_text(result, "rc");
  double rc = text ? strtod(text, NULL) : ck__gas_fields[CK__GAS_RC].value;
  const char *equil = ck__result_option_text(result, "equil");
  const char *neighbors = ck__result_option_text(result, "neighbors");
  const char *model = ck__result_option_text(result, "model");
  int soft = model && strncmp(model, "log", 3) == 0;
  double others = n > 1 ? n - 1 : 0;
  double in_range = soft ? others : CK_PI * rc * rc * density;
  double visited;
  if (soft || (neighbors && strcmp(neighbors, "allpairs") == 0)) {
    visited = others;
  } else if (neighbors && strcmp(neighbors, "verlet") == 0) {
    double range = rc + ck__gas_fields[CK__GAS_SKIN].value;
    visited = CK_PI * range * range * density;
  } else {
    double cells =
        fmax(1, floor(values[2] / rc)) * fmax(1, floor(values[3] / rc));
    visited = 9 * n / cells;
  }
  if (visited > others)
    visited = others;
  if (in_range > visited)
    in_range = visited;
  cost->units = n * (values[1] + (equil ? strtod(equil, NULL) : 0));
  cost->flops = cost->units * (GAS_VISIT_FLOPS * visited +
                               GAS_PAIR_FLOPS * in_range + GAS_STEP_FLOPS);
  cost->bytes = cost->units * (GAS_STEP_REALS * sizeof(float) + GAS_STEP_WORDS);
  return CK_OK;
}

const ck__bench ck__gas_bench = {
    .format = "particles x steps",
    .rungs = {gas_rungs[0], gas_rungs[1], gas_rungs[2], gas_rungs[3],
              gas_rungs[4], gas_rungs[5], gas_rungs[6]},
    .size_options = gas_size_options,
    .footprint = gas_footprint,
    .size_metrics = gas_size_metrics,
    .cost = gas_cost};
