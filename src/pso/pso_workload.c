/*
 * pso_workload.c - PSO as a clkit workload: options in, a ck_result out,
 * and the files --out and --trace, written atomically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "framework/framework.h"
#include "objectives/problem.h"
#include "pso/pso_internal.h"

/* "gbest", or "ring:K" with K from 2 to the particles (read before). */
static ck_status read_topology(const char *text, void *job) {
  ck_pso_config *config = job;
  long long k = 0;
  if (strcmp(text, "gbest") == 0) {
    config->ring_neighbours = 0;
    return CK_OK;
  }
  const ck__field *ring = &ck__pso_fields[CK__PSO_RING_NEIGHBOURS];
  int read = strncmp(text, "ring:", 5) == 0
                 ? ck__parse_whole(text + 5, text + strlen(text),
                                   (long long)ring->minimum,
                                   (long long)config->particles, &k)
                 : 0;
  if (read == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --topology: '%s' is neither gbest nor ring:K with "
                    "K >= %.0f",
                    text, ring->minimum);
  if (read < 0 && config->particles < ring->minimum)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --topology %s: a ring needs %.0f particles or "
                    "more, and --particles is %zu",
                    text, ring->minimum, config->particles);
  /* Named as typed: K may lie past what the config's int holds. */
  if (read < 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --topology %s: the neighbourhood must hold %.0f to "
                    "%zu particles",
                    text, ring->minimum, config->particles);
  config->ring_neighbours = (int)k;
  return CK_OK;
}

#define PSO(index)                                                             \
  .field = &ck__pso_fields[CK__PSO_##index], .config = "ck_pso_config"

static const ck__option pso_options[] = {
    CK__PROBLEM_OPTIONS(ck__pso_fields, "ck_pso_config", "iteration"),
    {"particles", "N", "swarm size", PSO(PARTICLES)},
    {"iters", "N",
     "stop after N iterations (without it, --evals, --target or --time "
     "alone ends the run)",
     PSO(ITERATIONS)},
    {"w", "W", "inertia weight", PSO(W)},
    {"c1", "C", "cognitive coefficient", PSO(C1)},
    {"c2", "C", "social coefficient", PSO(C2)},
    {"constriction", NULL,
     "constriction form: chi (v + c1 r1 (p-x) + c2 r2 (g-x)), c1 + c2 > 4",
     PSO(CONSTRICTION)},
    {"topology", "T", "gbest, or ring:K (lbest, K neighbours)",
     PSO(RING_NEIGHBOURS), .read = read_topology},
    {"vinit", "F", "initial speed up to F x (hi - lo)", PSO(VELOCITY_INIT)},
    {"vmax", "F", "speed clamp: F x (hi - lo) per dimension", PSO(VMAX)},
    {"move-mode", "M",
     "OpenCL moves: auto, particle (a work-item a particle) or vector (16 "
     "particles a work-item, for CPUs)",
     PSO(MOVE_MODE)},
    {0},
};

/* Clerc and Kennedy's coefficients of the constriction form, c1 + c2 =
 * 4.1, where --constriction is given without them. */
#define CONSTRICTION_C 2.05

/* The options that need no file into config (its defaults in place), so
 * that pso_check can use them. */
static ck_status read_settings(const ck_param *params, size_t count,
                               ck_pso_config *config) {
  ck_status status = ck__options_read(pso_options, params, count, config);
  if (status)
    return status;
  config->has_target = ck__param_find(params, count, "target") != NULL;
  if (config->constriction && ck__param_find(params, count, "w"))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--w has no part in --constriction, whose factor chi "
                    "comes from c1 + c2; give one of them");
  if (config->constriction && !ck__param_find(params, count, "c1"))
    config->c1 = CONSTRICTION_C;
  if (config->constriction && !ck__param_find(params, count, "c2"))
    config->c2 = CONSTRICTION_C;
  return CK_OK;
}

ck_status ck_pso_config_read(const ck_param *params, size_t count,
                             ck_pso_config *config) {
  static const ck__field *const run_fields[] = {
      &ck__pso_fields[CK__PSO_ITERATIONS], NULL};
  CK__REQUIRE_IN("ck_pso_config_read", config);
  ck_pso_config read;
  ck_pso_config_init(&read);
  ck_status status =
      ck__problem_settings_check("ck_pso_config_read", pso_options,
                                 ck__pso_fields, run_fields, params, count);
  if (status == CK_OK)
    status = read_settings(params, count, &read);
  if (status == CK_OK)
    *config = read;
  return status;
}

/* The problem's options that name files, and its files, over the
 * settings read (job->config); the iteration count only where it stops
 * the run. */
static ck_status load_problem(const ck_param *params, size_t count,
                              const ck_run_options *options,
                              ck__problem_job *job, ck_pso_config *config) {
  ck__problem_spec settings =
      CK__PROBLEM_SPEC(config, "ck_pso_config", ck__pso_fields);
  settings.host = options && (options->objective || options->device_objective);
  ck_status status =
      ck__problem_job_parse(params, count, &settings, "iters", job);
  if (status)
    return status;
  CK__PROBLEM_FROM_JOB(config, job, options);
  if (!job->stop_by_count)
    config->max_iterations = 0;
  return CK_OK;
}

/* The settings into config, and all that check refuses; no file read. */
static ck_status check_settings(const ck_param *params, size_t count,
                                ck_pso_config *config) {
  ck_pso_config_init(config);
  ck_status status = read_settings(params, count, config);
  return status ? status : ck__problem_options_check(params, count);
}

static ck_status pso_check(const ck_param *params, size_t count) {
  ck_pso_config config;
  return check_settings(params, count, &config);
}

/* The history's count entries, entry i after iteration i x stride (the
 * history thins out on long runs). */
static ck_status history_of(ck_pso *pso, const double **history, size_t *count,
                            uint64_t *stride) {
  ck_status status = ck_pso_get_history(pso, history, count);
  return status ? status : ck_pso_get_history_stride(pso, stride);
}

/* The rows of the history that ck__history_show_every shows. */
static ck_status write_trace(const char *path, ck_pso *pso) {
  const double *history;
  size_t count;
  uint64_t stride;
  ck_status status = history_of(pso, &history, &count, &stride);
  if (status)
    return status;
  size_t every = ck__history_show_every(count);
  size_t capacity = (count / every + 2) * 48 + 32, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  used += (size_t)snprintf(text, capacity, "iteration,best\n");
  for (size_t i = 0; i < count; ++i)
    if (i % every == 0 || i + 1 == count)
      used += (size_t)snprintf(text + used, capacity - used, "%llu,%.17g\n",
                               (unsigned long long)(i * stride), history[i]);
  status = ck__file_write_atomic(path, text, used);
  free(text);
  return status;
}

/* --plot: the best value over the run's seconds, the iterations along the
 * top. */
static ck_status write_plot(const ck__problem_job *job, ck_pso *pso,
                            const ck_result *result,
                            const ck_pso_config *config,
                            const ck_pso_report *report,
                            const ck__history *timeline) {
  const double *history;
  size_t count;
  uint64_t stride;
  ck_status status = history_of(pso, &history, &count, &stride);
  if (status)
    return status;
  char details[200];
  snprintf(details, sizeof details, "%zu particles · %llu iterations in %.3g s",
           config->particles, (unsigned long long)report->iterations,
           report->wall_s);
  const double *columns[] = {history};
  const char *names[] = {"best so far"};
  return ck__problem_plot(job, result, "iteration", details, columns, names, 1,
                          count, stride, timeline);
}

/* A run's reading: the problem's options and files, and the settings. */
typedef struct pso_job {
  ck__problem_job problem;
  ck_pso_config config;
} pso_job;

static ck_status pso_prepare(const ck_param *params, size_t count,
                             const ck_run_options *options, void *job) {
  (void)options;
  return check_settings(params, count, &((pso_job *)job)->config);
}

static ck_status pso_load(void *job, const ck_param *params, size_t count,
                          const ck_run_options *options) {
  pso_job *read = job;
  return load_problem(params, count, options, &read->problem, &read->config);
}

static void pso_release(void *job) {
  ck__problem_job_release(&((pso_job *)job)->problem);
}

static ck_status pso_run(const void *prepared, const ck_device *device,
                         const ck_param *params, size_t count,
                         const ck_run_options *options, ck_result *result) {
  ck_status status = CK_OK;
  const pso_job *read = prepared;
  (void)params; /* read into the job */
  (void)count;
  const ck__problem_job *job = &read->problem;
  /* The run's own hooks (its progress) over the reading's. */
  ck_pso_config config = read->config;
  CK__PROBLEM_FROM_JOB(&config, job, options);
  ck_pso *pso = NULL;
  double *position = NULL;
  ck_pso_report report;
  ck__history timeline = {0};
  if (options->spread)
    CK_TRY(ck_pso_create_spread(options->spread, &config, &pso));
  else
    CK_TRY(ck_pso_create(device, &config, &pso));
  if (job->plot) {
    static const size_t row[] = {2};
    CK_TRY(ck__history_init(&timeline, CK__HISTORY_SAMPLE, 1, row,
                            "the times of the run's reads"));
    pso->timeline = &timeline;
  }
  CK_TRY(ck_pso_run(pso, &report));
  /* A spread run's outputs are written once, by rank 0. */
  int writes = ck__engine_rank(pso->engine) == 0;
  int dim = config.dim;
  position = malloc((size_t)dim * sizeof *position);
  if (!position)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck_pso_get_best(pso, &result->best, position));
  CK_TRY(ck__problem_best_check(job, result->best));
  if (job->out && writes)
    CK_TRY_OUTPUT("out", ck__write_position(job->out, position, dim));
  if (job->trace && writes)
    CK_TRY_OUTPUT("trace", write_trace(job->trace, pso));
  if (options->spread)
    CK_TRY(ck__engine_report(pso->engine, result));
  snprintf(result->best_name, sizeof result->best_name, "objective");
  result->wall_s = report.wall_s;
  result->kernel_s = report.kernel_s;
  result->throughput = report.evaluations_per_s;
  snprintf(result->throughput_unit, sizeof result->throughput_unit, "evals/s");
  ck__result_metric(result, "iterations", (double)report.iterations, "");
  ck__result_metric(result, "evaluations", (double)report.evaluations, "");
  ck__result_metric(result, "updates_per_s", report.updates_per_s,
                    "particle-dims/s");
  ck__result_metric(result, "particles", (double)config.particles, "");
  /* --constriction without them takes Clerc and Kennedy's c1 and c2;
   * its factor chi stands in for w. */
  if (config.constriction) {
    CK_TRY(ck__result_option(result, "w", NULL));
    CK_TRY(ck__result_option_number(result, "c1", config.c1));
    CK_TRY(ck__result_option_number(result, "c2", config.c2));
  }
  ck__result_metric(result, "dim", dim, "");
  snprintf(result->stopped_by, sizeof result->stopped_by, "%s",
           ck__stop_name(report.stopped_by, "iterations"));
  if (report.stopped_by == CK_STOP_TARGET)
    ck__result_metric(result, "target_iteration",
                      (double)report.target_iteration, "");
  CK_TRY(ck__problem_result(result, job, position, dim, options));
  if (job->plot && writes)
    CK_TRY_OUTPUT("plot",
                  write_plot(job, pso, result, &config, &report, &timeline));
fail:
  ck__history_free(&timeline);
  free(position);
  ck_pso_destroy(pso);
  return status;
}

/* ---- benchmark sizes and the cost model (docs/pso.md, "Cost model") ---- */

#define PSO_RUNG(particles)                                                    \
  {                                                                            \
    {"fn", "rastrigin"}, {"dim", "100"}, {"iters", "200"},                     \
        {"particles", particles}, {                                            \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param pso_rungs[CK_BENCH_RUNGS][5] = {
    PSO_RUNG("256"),    PSO_RUNG("1024"),  PSO_RUNG("4096"),
    PSO_RUNG("16384"),  PSO_RUNG("65536"), PSO_RUNG("262144"),
    PSO_RUNG("1048576")};
static const char *const pso_size_options[] = {
    "particles", "dim", "iters", "evals", "time", "target", NULL};
static const char *const pso_size_metrics[] = {"particles", "dim", "iterations",
                                               NULL};

static void pso_footprint(const ck_param *params, size_t count,
                          const ck_device *device, double *total,
                          double *largest) {
  (void)device;
  double real = (double)ck__param_real_size(params, count);
  double particles = ck__param_number(params, count, "particles",
                                      ck__pso_fields[CK__PSO_PARTICLES].value);
  double dim = ck__param_number(params, count, "dim",
                                ck__pso_fields[CK__PROBLEM_DIM].value);
  *total = ck__pso_swarm_bytes(particles, dim, real);
  *largest = particles * dim * real;
}

/* A unit is one particle's move and evaluation. Per dimension it loads
 * x, v and the personal best and stores x and v (PSO_REALS_MOVED); the
 * guide and the bounds stay in cache, and a personal best copied where it
 * improved is not counted. The move takes PSO_MOVE_FLOPS (w v, two
 * differences, four products with c r, two sums, x + v, two uniforms
 * scaled), the objective its term; Philox's integer work is not counted.
 * lsq and user objectives leave the flops unknown. */
enum { PSO_REALS_MOVED = 5, PSO_MOVE_FLOPS = 13 };

static ck_status pso_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"particles", "iterations", "dim", NULL};
  double values[3];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  double real = (double)ck__result_real_size(result);
  double coordinates = values[0] * values[1] * values[2];
  double term =
      ck__result_option_text(result, "objective")
          ? NAN
          : ck__objective_term_flops(ck__result_option_text(result, "fn"));
  cost->units = values[0] * values[1];
  cost->bytes = coordinates * PSO_REALS_MOVED * real;
  cost->flops = coordinates * (PSO_MOVE_FLOPS + term);
  cost->double_precision = real == 8;
  return CK_OK;
}

static const ck__bench pso_bench = {
    .format = "particles x dims x iters",
    .rungs = {pso_rungs[0], pso_rungs[1], pso_rungs[2], pso_rungs[3],
              pso_rungs[4], pso_rungs[5], pso_rungs[6]},
    .size_options = pso_size_options,
    .footprint = pso_footprint,
    .size_metrics = pso_size_metrics,
    .cost = pso_cost};

static const ck_param pso_demo[] = {
    {"fn", "rastrigin"}, {"dim", "10"}, {"particles", "256"}, {"iters", "300"}};

const ck_workload ck__pso_workload = {
    .name = "pso",
    .summary = "particle swarm optimisation of built-in, lsq or user "
               "objectives",
    .options = pso_options,
    CK__OPTIONS_SHOWN(pso_options),
    .tolerance = 1e-3,
    .check = pso_check,
    .job_bytes = sizeof(pso_job),
    .prepare = pso_prepare,
    .load = pso_load,
    .run = pso_run,
    .release = pso_release,
    .agree = ck__optimiser_agree,
    .outputs = ck__problem_outputs,
    .demo = pso_demo,
    .demo_count = sizeof pso_demo / sizeof pso_demo[0],
    .spreads = 1,
    .objectives = 1,
    .device_objectives = 1,
    .bench = &pso_bench,
};
