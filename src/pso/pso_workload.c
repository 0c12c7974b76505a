/*
 * pso_workload.c - PSO as a clkit workload: options in, a ck_result out,
 * and the files --out and --trace, written atomically.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "core/workload_internal.h"
#include "clkit/pso.h"

enum { MAX_PRINTED_DIM = 16, TRACE_ROWS = 1000 };

static const ck_option pso_options[] = {
    {"fn", "NAME", "sphere",
     "objective: sphere rastrigin rosenbrock griewank ackley schwefel "
     "michalewicz styblinski-tang f1 f2 lsq"},
    {"objective", "FILE.cl", NULL,
     "user objective: OpenCL C defining float objective(const float *x, int "
     "dim[, __global const float *data])"},
    {"data", "FILE", NULL, "data for lsq (CSV, b last; or clkit binary), or "
                           "for a user objective"},
    {"dim", "D", "30", "dimensions (lsq: taken from the data)"},
    {"particles", "N", "1024", "swarm size"},
    {"iters", "N", "1000", "stop after N iterations"},
    {"evals", "N", NULL, "stop after N objective evaluations"},
    {"target", "F", NULL, "stop once the best value is <= F"},
    {"time", "S", NULL, "stop after S seconds"},
    {"w", "W", "0.7298", "inertia weight"},
    {"c1", "C", "1.49618", "cognitive coefficient"},
    {"c2", "C", "1.49618", "social coefficient"},
    {"constriction", NULL, NULL,
     "constriction form: chi (v + c1 r1 (p-x) + c2 r2 (g-x)), c1 + c2 > 4"},
    {"topology", "T", "gbest", "gbest, or ring:K (lbest, K neighbours)"},
    {"vinit", "F", "0.5", "initial speed up to F x (hi - lo)"},
    {"vmax", "F", "1", "speed clamp: F x (hi - lo) per dimension"},
    {"bounds", "MODE", "clamp", "clamp, reflect or random"},
    {"lo", "X[,X...]", NULL, "lower bound: one value or one per dimension"},
    {"hi", "X[,X...]", NULL, "upper bound: one value or one per dimension"},
    {"precision", "P", "float", "float, or double on devices with fp64"},
    {"lsq-mode", "M", "auto",
     "lsq evaluation: auto, group (work-group per particle) or thread"},
    {"check-every", "K", "auto", "read the best value every K iterations"},
    {"out", "FILE", NULL, "write the best position, one value a line"},
    {"trace", "FILE", NULL, "write a CSV of the best value per iteration"},
    {NULL, NULL, NULL, NULL},
};

/* Parses "x" or "x,y,..." into dim values. */
static ck_status parse_list(const char *option, const char *text, int dim,
                            double **values) {
  double *list = malloc((size_t)dim * sizeof *list);
  if (!list)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  int count = 0;
  const char *at = text;
  for (;;) {
    char *end = NULL;
    errno = 0;
    double value = strtod(at, &end);
    if (end == at || errno == ERANGE || (*end && *end != ',')) {
      free(list);
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s: '%s' is not a number or a comma-separated "
                      "list of numbers",
                      option, text);
    }
    if (count == dim) {
      free(list);
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s: more than %d values for %d dimensions",
                      option, dim, dim);
    }
    list[count++] = value;
    if (!*end)
      break;
    at = end + 1;
  }
  if (count == 1)
    for (int d = 1; d < dim; ++d)
      list[d] = list[0];
  else if (count != dim) {
    free(list);
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: %d values for %d dimensions (give one, or "
                    "one per dimension)",
                    option, count, dim);
  }
  *values = list;
  return CK_OK;
}

static ck_status parse_choice(const char *option, const char *text,
                              const char *const *choices, int *choice) {
  for (int i = 0; choices[i]; ++i) {
    if (strcmp(text, choices[i]) == 0) {
      *choice = i;
      return CK_OK;
    }
  }
  ck__fail(CK_ERROR_INVALID_ARGUMENT, "option --%s: unknown value '%s'; one of:",
           option, text);
  for (int i = 0; choices[i]; ++i)
    ck__fail_append(" %s", choices[i]);
  return CK_ERROR_INVALID_ARGUMENT;
}

typedef struct pso_job {
  ck_pso_config config;
  ck_lsq_data data;
  char *source;
  double *lo, *hi;
  const char *out, *trace;
} pso_job;

static void job_release(pso_job *job) {
  ck_lsq_free(&job->data);
  free(job->source);
  free(job->lo);
  free(job->hi);
}

/* Fills a job from parameters; files named by them are read here. */
static ck_status job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, pso_job *job) {
  ck_status status = CK_OK;
  ck_pso_config *c = &job->config;
  long long integer;
  double real;
  const char *text;
  memset(job, 0, sizeof *job);
  ck_pso_config_init(c);
  if (options)
    c->seed = options->seed;
  c->function = ck__param_find(params, count, "fn");
  if (!c->function)
    c->function = "sphere";
  const ck_objective_info *info = NULL;
  const char *objective_path = ck__param_find(params, count, "objective");
  if (objective_path) {
    if (ck__param_find(params, count, "fn"))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "give either --fn or --objective, "
                                         "not both");
    c->function = NULL;
    if ((status = ck__file_read_text(objective_path, &job->source, NULL)))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "option --objective: %s",
              (ck_error_last(&text), text));
    c->objective_source = job->source;
    c->objective_name = objective_path;
  } else {
    CK_TRY(ck_objective_find(c->function, &info));
  }
  const char *data_path = ck__param_find(params, count, "data");
  if (data_path) {
    if ((status = ck_lsq_load(data_path, &job->data)))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "option --data: %s",
              (ck_error_last(&text), text));
    c->data = &job->data;
  } else if (info && info->id == CK_OBJECTIVE_LSQ) {
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "option --fn lsq needs --data FILE");
  }
  CK_TRY(ck__param_integer(params, count, "dim", 30, 1, 100000, &integer));
  c->dim = (int)integer;
  if (info && info->id == CK_OBJECTIVE_LSQ) {
    if (ck__param_find(params, count, "dim") &&
        (size_t)c->dim != job->data.dim)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --dim %d disagrees with the %zu coefficients of %s",
              c->dim, job->data.dim, data_path);
    c->dim = (int)job->data.dim;
  }
  CK_TRY(ck__param_integer(params, count, "particles", 1024, 1, 0x7FFFFFFF,
                           &integer));
  c->particles = (size_t)integer;
  CK_TRY(ck__param_integer(params, count, "iters", 1000, 0, 1e15, &integer));
  c->max_iterations = (uint64_t)integer;
  CK_TRY(ck__param_integer(params, count, "evals", 0, 1, 1e18, &integer));
  c->max_evaluations = (uint64_t)integer;
  if (ck__param_find(params, count, "evals") &&
      !ck__param_find(params, count, "iters"))
    c->max_iterations = 0;
  if (ck__param_find(params, count, "target")) {
    CK_TRY(ck__param_real(params, count, "target", 0, -INFINITY, INFINITY,
                          &c->target));
    c->has_target = 1;
  }
  CK_TRY(ck__param_real(params, count, "time", 0, 0, 1e9, &c->max_seconds));
  if ((c->has_target || c->max_seconds > 0) &&
      !ck__param_find(params, count, "iters"))
    c->max_iterations = 0; /* the target or the clock decides */
  CK_TRY(ck__param_real(params, count, "w", 0.7298, -10, 10, &c->w));
  CK_TRY(ck__param_real(params, count, "c1", c->constriction ? 2.05 : 1.49618,
                        0, 100, &c->c1));
  CK_TRY(ck__param_real(params, count, "c2", 1.49618, 0, 100, &c->c2));
  if (ck__param_find(params, count, "constriction")) {
    c->constriction = 1;
    if (!ck__param_find(params, count, "c1"))
      c->c1 = 2.05;
    if (!ck__param_find(params, count, "c2"))
      c->c2 = 2.05;
  }
  text = ck__param_find(params, count, "topology");
  if (text && strcmp(text, "gbest") != 0) {
    char *end = NULL;
    long k = strncmp(text, "ring:", 5) == 0 ? strtol(text + 5, &end, 10) : -1;
    if (k < 2 || !end || *end)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --topology: '%s' is neither gbest nor ring:K with K >= 2",
              text);
    c->ring_neighbours = (int)(k > 0x7FFFFFFF ? 0x7FFFFFFF : k);
  }
  CK_TRY(ck__param_real(params, count, "vinit", 0.5, 0, 100,
                        &c->velocity_init));
  CK_TRY(ck__param_real(params, count, "vmax", 1.0, 1e-12, 100, &real));
  c->vmax = real;
  static const char *const bounds[] = {"clamp", "reflect", "random", NULL};
  static const char *const precisions[] = {"float", "double", NULL};
  static const char *const modes[] = {"auto", "group", "thread", NULL};
  int choice = 0;
  if ((text = ck__param_find(params, count, "bounds"))) {
    CK_TRY(parse_choice("bounds", text, bounds, &choice));
    c->bounds = (ck_bounds_mode)choice;
  }
  if ((text = ck__param_find(params, count, "precision"))) {
    CK_TRY(parse_choice("precision", text, precisions, &choice));
    c->double_precision = choice;
  }
  if ((text = ck__param_find(params, count, "lsq-mode"))) {
    CK_TRY(parse_choice("lsq-mode", text, modes, &choice));
    c->lsq_mode = (ck_pso_lsq_mode)choice;
  }
  text = ck__param_find(params, count, "check-every");
  if (text && strcmp(text, "auto") != 0) {
    CK_TRY(ck__param_integer(params, count, "check-every", 0, 1, 1024,
                             &integer));
    c->check_every = (unsigned)integer;
  }
  const char *lo = ck__param_find(params, count, "lo");
  const char *hi = ck__param_find(params, count, "hi");
  if (lo || hi) {
    if (!lo || !hi) {
      if (!info)
        CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
                "a user objective needs both --lo and --hi");
    }
    char fallback_lo[32], fallback_hi[32];
    if (info) {
      snprintf(fallback_lo, sizeof fallback_lo, "%.17g", info->lo);
      snprintf(fallback_hi, sizeof fallback_hi, "%.17g", info->hi);
    }
    CK_TRY(parse_list("lo", lo ? lo : fallback_lo, c->dim, &job->lo));
    CK_TRY(parse_list("hi", hi ? hi : fallback_hi, c->dim, &job->hi));
    c->lo = job->lo;
    c->hi = job->hi;
  }
  job->out = ck__param_find(params, count, "out");
  job->trace = ck__param_find(params, count, "trace");
  if (options) {
    c->progress = options->progress;
    c->progress_user = options->progress_user;
  }
  return CK_OK;
fail:
  job_release(job);
  return status;
}

static ck_status pso_check(const ck_param *params, size_t count) {
  /* Reading files belongs to the run; here only the plain options. */
  ck_pso_config config;
  long long integer;
  double real;
  ck_status status;
  ck_pso_config_init(&config);
  const char *function = ck__param_find(params, count, "fn");
  const ck_objective_info *info;
  if (function && (status = ck_objective_find(function, &info)))
    return ck__fail(status, "option --fn: unknown function '%s'", function);
  if ((status = ck__param_integer(params, count, "dim", 30, 1, 100000,
                                  &integer)) ||
      (status = ck__param_integer(params, count, "particles", 1024, 1,
                                  0x7FFFFFFF, &integer)) ||
      (status = ck__param_integer(params, count, "iters", 1000, 0, 1e15,
                                  &integer)) ||
      (status = ck__param_integer(params, count, "evals", 1, 1, 1e18,
                                  &integer)) ||
      (status = ck__param_real(params, count, "time", 0, 0, 1e9, &real)) ||
      (status = ck__param_real(params, count, "target", 0, -INFINITY,
                               INFINITY, &real)))
    return status;
  return CK_OK;
}

static ck_status write_outputs(const pso_job *job, ck_pso *pso, int dim,
                               const double *position) {
  ck_status status = CK_OK;
  char *text = NULL;
  if (job->out) {
    size_t capacity = (size_t)dim * 32 + 1, used = 0;
    text = malloc(capacity);
    if (!text)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (int d = 0; d < dim; ++d)
      used += (size_t)snprintf(text + used, capacity - used, "%.17g\n",
                               position[d]);
    status = ck__file_write_atomic(job->out, text, used);
    free(text);
    text = NULL;
    if (status)
      return status;
  }
  if (job->trace) {
    const double *history;
    size_t count;
    if ((status = ck_pso_history(pso, &history, &count)))
      return status;
    size_t every = count > TRACE_ROWS ? (count + TRACE_ROWS - 1) / TRACE_ROWS
                                      : 1;
    size_t capacity = (count / every + 2) * 48 + 32, used = 0;
    text = malloc(capacity);
    if (!text)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    used += (size_t)snprintf(text, capacity, "iteration,best\n");
    for (size_t i = 0; i < count; ++i)
      if (i % every == 0 || i + 1 == count)
        used += (size_t)snprintf(text + used, capacity - used, "%zu,%.17g\n",
                                 i, history[i]);
    status = ck__file_write_atomic(job->trace, text, used);
    free(text);
  }
  return status;
}

static ck_status pso_run(const ck_device *device, const ck_param *params,
                         size_t count, const ck_run_options *options,
                         ck_result *result) {
  ck_status status = CK_OK;
  pso_job job;
  ck_pso *pso = NULL;
  double *position = NULL;
  ck_pso_report report;
  if ((status = job_parse(params, count, options, &job)))
    return status;
  CK_TRY(ck_pso_create(device, &job.config, &pso));
  CK_TRY(ck_pso_run(pso, &report));
  int dim = job.config.dim;
  position = malloc((size_t)dim * sizeof *position);
  if (!position)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck_pso_best(pso, &result->best, position));
  CK_TRY(write_outputs(&job, pso, dim, position));
  snprintf(result->best_name, sizeof result->best_name, "objective");
  result->wall_s = report.wall_s;
  result->kernel_s = report.kernel_s;
  result->throughput = report.evaluations_per_s;
  snprintf(result->throughput_unit, sizeof result->throughput_unit, "evals/s");
  ck__result_metric(result, "iterations", (double)report.iterations, "");
  ck__result_metric(result, "evaluations", (double)report.evaluations, "");
  ck__result_metric(result, "updates_per_s", report.updates_per_s,
                    "particle-dims/s");
  ck__result_metric(result, "particles", (double)job.config.particles, "");
  ck__result_metric(result, "dim", dim, "");
  ck__result_metric(result, "build_s", report.build_s, "s");
  static const char *const stops[] = {"none", "iterations", "evaluations",
                                      "target", "time"};
  ck__result_metric(result, "stopped_by", (double)report.stopped_by,
                    stops[report.stopped_by]);
  if (report.stopped_by == CK_PSO_STOP_TARGET)
    ck__result_metric(result, "target_iteration",
                      (double)report.target_iteration, "");
  const ck_objective_info *info = NULL;
  double optimum;
  if (job.config.function &&
      ck_objective_find(job.config.function, &info) == CK_OK &&
      ck_objective_optimum(info, dim, &optimum) == CK_OK) {
    ck__result_metric(result, "optimum", optimum, "");
    ck__result_metric(result, "gap", result->best - optimum, "");
  }
  ck_error_clear();
  for (int d = 0; d < dim && d < MAX_PRINTED_DIM; ++d) {
    char name[16];
    snprintf(name, sizeof name, "x%d", d);
    ck__result_metric(result, name, position[d], "");
  }
fail:
  free(position);
  ck_pso_destroy(pso);
  job_release(&job);
  return status;
}

/* Runs agree while rounding has not yet split their trajectories, or once
 * both have converged to the same value. */
static ck_status pso_agree(const ck_result *reference, const ck_result *result,
                           double *difference, int *agrees) {
  double scale = fabs(reference->best);
  *difference = fabs(result->best - reference->best) / (scale > 0 ? scale : 1);
  *agrees = fabs(result->best - reference->best) <= 1e-3 * scale + 1e-6;
  return CK_OK;
}

const ck_workload ck__pso_workload = {
    .name = "pso",
    .summary = "particle swarm optimisation of built-in, lsq or user "
               "objectives",
    .options = pso_options,
    .tolerance = 1e-3,
    .check = pso_check,
    .run = pso_run,
    .agree = pso_agree,
};
