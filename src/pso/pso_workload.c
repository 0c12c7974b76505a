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

enum { TRACE_ROWS = 1000 };

static const ck_option pso_options[] = {
    CK__PROBLEM_OPTIONS("30", "iteration"),
    {"particles", "N", "1024", "swarm size"},
    {"iters", "N", "1000",
     "stop after N iterations (without it, --evals, --target or --time "
     "alone ends the run)"},
    {"w", "W", "0.7298", "inertia weight"},
    {"c1", "C", "1.49618", "cognitive coefficient"},
    {"c2", "C", "1.49618", "social coefficient"},
    {"constriction", NULL, NULL,
     "constriction form: chi (v + c1 r1 (p-x) + c2 r2 (g-x)), c1 + c2 > 4"},
    {"topology", "T", "gbest", "gbest, or ring:K (lbest, K neighbours)"},
    {"vinit", "F", "0.5", "initial speed up to F x (hi - lo)"},
    {"vmax", "F", "1", "speed clamp: F x (hi - lo) per dimension"},
    {"move-mode", "M", "auto",
     "OpenCL moves: auto, particle (a work-item a particle) or vector (16 "
     "particles a work-item, for CPUs)"},
    {NULL, NULL, NULL, NULL},
};

/* PSO's own options into c; the iteration count only where it stops the
 * run (stop_by_count). Reads no file, so that pso_check can use it. */
static ck_status own_parse(const ck_param *params, size_t count,
                           int stop_by_count, ck_pso_config *config) {
  ck_status status = CK_OK;
  long long integer;
  const char *text;
  CK_TRY(ck__param_integer(params, count, "particles", 1024, 1, 0x7FFFFFFF,
                           &integer));
  config->particles = (size_t)integer;
  CK_TRY(ck__param_integer(params, count, "iters", 1000, 1, 1e15, &integer));
  config->max_iterations = stop_by_count ? (uint64_t)integer : 0;
  CK_TRY(ck__param_real(params, count, "w", 0.7298, -10, 10, &config->w));
  int constriction = ck__param_find(params, count, "constriction") != NULL;
  if (constriction && ck__param_find(params, count, "w"))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "--w has no part in --constriction, whose factor chi comes from "
            "c1 + c2; give one of them");
  double default_c = constriction ? 2.05 : 1.49618;
  CK_TRY(ck__param_real(params, count, "c1", default_c, 0, 100, &config->c1));
  CK_TRY(ck__param_real(params, count, "c2", default_c, 0, 100, &config->c2));
  config->constriction = constriction;
  text = ck__param_find(params, count, "topology");
  if (text && strcmp(text, "gbest") != 0) {
    long long k = 0;
    int read = strncmp(text, "ring:", 5) == 0
                   ? ck__parse_whole(text + 5, text + strlen(text), 2,
                                     (long long)config->particles, &k)
                   : 0;
    if (read == 0)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --topology: '%s' is neither gbest nor ring:K with K >= 2",
              text);
    if (read < 0 && config->particles < 2)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --topology %s: a ring needs 2 particles or more, and "
              "--particles is %zu",
              text, config->particles);
    /* Named as typed: K may lie past what the config's int holds. */
    if (read < 0)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --topology %s: the neighbourhood must hold 2 to %zu "
              "particles",
              text, config->particles);
    config->ring_neighbours = (int)k;
  }
  CK_TRY(ck__param_real(params, count, "vinit", 0.5, 0, 100,
                        &config->velocity_init));
  CK_TRY(ck__param_real(params, count, "vmax", 1.0, 1e-12, 100, &config->vmax));
  if ((text = ck__param_find(params, count, "move-mode"))) {
    static const char *const modes[] = {"auto", "particle", "vector", NULL};
    int choice = 0;
    CK_TRY(ck__parse_choice("move-mode", text, modes, &choice));
    config->move_mode = (ck_pso_move_mode)choice;
  }
fail:
  return status;
}

/* The shared problem options, then PSO's own. */
static ck_status job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, ck__problem_job *job,
                           ck_pso_config *config) {
  ck_status status = CK_OK;
  CK_TRY(ck__problem_job_parse(params, count, 30, "iters", job));
  ck_pso_config_init(config);
  CK__PROBLEM_FROM_JOB(config, job, options);
  CK_TRY(own_parse(params, count, job->stop_by_count, config));
  return CK_OK;
fail:
  ck__problem_job_release(job);
  return status;
}

static ck_status pso_check(const ck_param *params, size_t count) {
  ck_status status = ck__problem_options_check(params, count, "iters");
  if (status)
    return status;
  ck_pso_config c;
  ck_pso_config_init(&c);
  return own_parse(params, count, 1, &c);
}

/* About TRACE_ROWS rows of the history, evenly spread, and its last; an
 * entry i is iteration i x stride (the history thins out on long runs). */
static ck_status write_trace(const char *path, ck_pso *pso) {
  const double *history;
  size_t count;
  uint64_t stride;
  ck_status status = ck_pso_get_history(pso, &history, &count);
  if (status == CK_OK)
    status = ck_pso_get_history_stride(pso, &stride);
  if (status)
    return status;
  size_t every = count > TRACE_ROWS ? (count + TRACE_ROWS - 1) / TRACE_ROWS : 1;
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

static ck_status pso_run(const ck_device *device, const ck_param *params,
                         size_t count, const ck_run_options *options,
                         ck_result *result) {
  ck_status status = CK_OK;
  ck__problem_job job;
  ck_pso_config config;
  ck_pso *pso = NULL;
  double *position = NULL;
  ck_pso_report report;
  if ((status = job_parse(params, count, options, &job, &config)))
    return status;
  if (options->spread)
    CK_TRY(ck_pso_create_spread(options->spread, &config, &pso));
  else
    CK_TRY(ck_pso_create(device, &config, &pso));
  CK_TRY(ck_pso_run(pso, &report));
  /* A spread run's outputs are written once, by rank 0. */
  int writes = ck__pso_spread_rank(ck__pso_spread_of(pso)) == 0;
  int dim = config.dim;
  position = malloc((size_t)dim * sizeof *position);
  if (!position)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck_pso_get_best(pso, &result->best, position));
  CK_TRY(ck__problem_best_check(&job, result->best));
  if (job.out && writes)
    CK_TRY_OUTPUT("out", ck__write_position(job.out, position, dim));
  if (job.trace && writes)
    CK_TRY_OUTPUT("trace", write_trace(job.trace, pso));
  if (ck__pso_spread_of(pso))
    CK_TRY(ck__pso_spread_report(ck__pso_spread_of(pso), result));
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
  ck__result_metric(result, "dim", dim, "");
  snprintf(result->stopped_by, sizeof result->stopped_by, "%s",
           ck__stop_name(report.stopped_by, "iterations"));
  if (report.stopped_by == CK_STOP_TARGET)
    ck__result_metric(result, "target_iteration",
                      (double)report.target_iteration, "");
  CK_TRY(ck__problem_result(result, &job, position, dim));
fail:
  free(position);
  ck_pso_destroy(pso);
  ck__problem_job_release(&job);
  return status;
}

static const ck_param pso_demo[] = {
    {"fn", "rastrigin"}, {"dim", "10"}, {"particles", "256"}, {"iters", "300"}};

const ck_workload ck__pso_workload = {
    .name = "pso",
    .summary = "particle swarm optimisation of built-in, lsq or user "
               "objectives",
    .options = pso_options,
    .tolerance = 1e-3,
    .check = pso_check,
    .run = pso_run,
    .agree = ck__optimiser_agree,
    .outputs = ck__problem_outputs,
    .demo = pso_demo,
    .demo_count = sizeof pso_demo / sizeof pso_demo[0],
    .spreads = 1,
};
