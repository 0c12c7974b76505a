/*
 * problem_options.c - the options every optimiser workload shares: the
 * objective, its data and domain, precision, stopping rules other than the
 * step count, and the --out file.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "framework/framework.h"
#include "framework/plot.h"
#include "objectives/problem.h"

/* Parses "x" or "x,y,..." into dim values. */
static ck_status parse_list(const char *option, const char *text, int dim,
                            double **values) {
  ck_status status = CK_OK;
  double *list = malloc((size_t)dim * sizeof *list);
  if (!list)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  int count = 0;
  const char *at = text;
  for (;;) {
    const char *end = strchr(at, ',');
    if (!end)
      end = at + strlen(at);
    double value = 0;
    if (!ck__parse_decimal(at, end, &value))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --%s: '%s' is not a number or a comma-separated list of "
              "numbers",
              option, text);
    if (count == dim)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --%s: more than %d values for %d dimensions", option, dim,
              dim);
    list[count++] = value;
    if (!*end)
      break;
    at = end + 1;
  }
  if (count == 1)
    for (int d = 1; d < dim; ++d)
      list[d] = list[0];
  else if (count != dim)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "option --%s: %d values for %d dimensions (give one, or one per "
            "dimension)",
            option, count, dim);
  *values = list;
  return CK_OK;
fail:
  free(list);
  return status;
}

void ck__problem_job_release(ck__problem_job *job) {
  ck_lsq_free(&job->data);
  free(job->source);
  free(job->lo);
  free(job->hi);
  memset(job, 0, sizeof *job);
}

/* --lsq-mode only with lsq, whose info is NULL for a user objective. */
static ck_status check_lsq_mode(const ck_param *params, size_t count,
                                const ck_objective_info *info) {
  const ck__option_part parts[] = {
      {"lsq-mode", !info || info->id != CK_OBJECTIVE_LSQ, "--fn lsq"}};
  return ck__param_parts(params, count, parts, 1);
}

/* --lo and --hi into the job's spec, for its dim; a built-in objective
 * (info) gives the one left out. */
static ck_status read_domain(const ck_param *params, size_t count,
                             const ck_objective_info *info,
                             ck__problem_job *job) {
  ck_status status = CK_OK;
  ck__problem_spec *spec = &job->spec;
  const char *lo = ck__param_find(params, count, "lo");
  const char *hi = ck__param_find(params, count, "hi");
  if (!lo && !hi)
    return CK_OK;
  if ((!lo || !hi) && !info)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "a %s objective needs both --lo and --hi",
                    job->spec.host ? "host" : "user");
  char fallback_lo[32] = "", fallback_hi[32] = "";
  if (info) {
    snprintf(fallback_lo, sizeof fallback_lo, "%.17g", info->lo);
    snprintf(fallback_hi, sizeof fallback_hi, "%.17g", info->hi);
  }
  CK_TRY(parse_list("lo", lo ? lo : fallback_lo, spec->dim, &job->lo));
  CK_TRY(parse_list("hi", hi ? hi : fallback_hi, spec->dim, &job->hi));
  spec->lo = job->lo;
  spec->hi = job->hi;
fail:
  return status;
}

ck_status ck__problem_job_parse(const ck_param *params, size_t count,
                                const ck__problem_spec *settings,
                                const char *count_option,
                                ck__problem_job *job) {
  ck_status status = CK_OK;
  ck__problem_spec *spec = &job->spec;
  memset(job, 0, sizeof *job);
  *spec = *settings;
  CK_TRY(ck__problem_options_check(params, count)); /* the check's first */
  const ck_objective_info *info = NULL;
  const char *objective_path = ck__param_find(params, count, "objective");
  if (spec->host) {
    /* The caller's callback is the objective: another would be dropped. */
    static const char *const others[] = {"fn", "objective", "data"};
    for (size_t i = 0; i < sizeof others / sizeof *others; ++i)
      if (ck__param_find(params, count, others[i]))
        CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
                "option --%s: the run's objective is evaluated on the host "
                "(ck_run_options.objective); give no --%s",
                others[i], others[i]);
    spec->function = NULL;
  } else if (objective_path) {
    if (ck__param_find(params, count, "fn"))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "give either --fn or --objective, "
                                         "not both");
    spec->function = NULL;
    if ((status = ck__file_read_text(objective_path, CK__SOURCE_FILE_MAX_BYTES,
                                     &job->source, NULL)))
      CK_FAIL_PREFIX(status, "option --objective: ");
    spec->source = job->source;
    spec->source_name = objective_path;
  } else {
    CK_TRY(ck_objective_find(spec->function, &info));
  }
  const char *data_path = ck__param_find(params, count, "data");
  /* Refused before the file is read: a usage error whether or not the
   * file exists (the user objective's own check is on its source). */
  CK_TRY(ck__problem_data_check(spec->config, info, data_path != NULL));
  if (data_path) {
    if ((status = ck_lsq_load(data_path, &job->data)))
      CK_FAIL_PREFIX(status, "option --data: ");
    spec->data = &job->data;
  } else if (info && info->id == CK_OBJECTIVE_LSQ) {
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "option --fn lsq needs --data FILE");
  }
  if (info && info->id == CK_OBJECTIVE_LSQ) {
    if (ck__param_find(params, count, "dim") &&
        (size_t)spec->dim != job->data.dim)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --dim %d disagrees with the %zu coefficients of %s",
              spec->dim, job->data.dim, data_path);
    spec->dim = (int)job->data.dim;
  }
  /* Without an explicit count, a target, a clock or evals decide alone. */
  job->stop_by_count = ck__param_find(params, count, count_option) ||
                       !(spec->has_target || spec->max_seconds > 0 ||
                         ck__param_find(params, count, "evals"));
  CK_TRY(check_lsq_mode(params, count, info));
  /* A single-precision run holds the data as floats: past FLT_MAX a value
   * would become infinite, and every evaluation with it. */
  for (size_t j = 0; data_path && !spec->double_precision && j < job->data.rows;
       ++j)
    for (size_t d = 0; d <= job->data.dim; ++d) {
      double value = d < job->data.dim ? job->data.a[j * job->data.dim + d]
                                       : job->data.b[j];
      if (fabs(value) > FLT_MAX)
        CK_FAIL(CK_ERROR_PARSE,
                "option --data: %s: row %zu holds %g, past single precision; "
                "give --precision double",
                data_path, j + 1, value);
    }
  CK_TRY(read_domain(params, count, info, job));
  job->out = ck__param_find(params, count, "out");
  job->trace = ck__param_find(params, count, "trace");
  CK_TRY(ck__plot_option(params, count, &job->plot));
  return CK_OK;
fail:
  ck__problem_job_release(job);
  return status;
}

const char *const ck__problem_outputs[] = {"out", "trace", "plot", NULL};

ck_status ck__problem_options_check(const ck_param *params, size_t count) {
  ck_status status;
  const char *function = ck__param_find(params, count, "fn");
  const ck_objective_info *info = NULL;
  const char *plot = NULL;
  static const char *const reads[] = {"objective", "data", NULL};
  if ((status = ck__plot_option(params, count, &plot)) ||
      (status = ck__param_files_apart(params, count, reads, ck__problem_outputs,
                                      NULL, NULL)))
    return status;
  if (function && (status = ck_objective_find(function, &info)))
    return ck__fail_prefix(status, "option --fn: ");
  return check_lsq_mode(params, count, info);
}

/* Whether option sets a field, and one that no stopping rule of a run
 * holds. */
static int sets_setting(const ck__option *option, const ck__field *fields,
                        const ck__field *const *run_fields) {
  static const int rules[] = {CK__PROBLEM_EVALUATIONS, CK__PROBLEM_TARGET,
                              CK__PROBLEM_TIME, CK__PROBLEM_CHECK_EVERY};
  if (!option->field)
    return 0;
  for (size_t i = 0; i < sizeof rules / sizeof *rules; ++i)
    if (option->field == &fields[rules[i]])
      return 0;
  for (const ck__field *const *run = run_fields; run && *run; ++run)
    if (option->field == *run)
      return 0;
  return 1;
}

ck_status ck__problem_settings_check(const char *caller,
                                     const ck__option *options,
                                     const ck__field *fields,
                                     const ck__field *const *run_fields,
                                     const ck_param *params, size_t count) {
  if (count && !params)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: params is NULL", caller);
  for (size_t i = 0; i < count; ++i) {
    const char *name = params[i].name ? params[i].name : "(null)";
    const ck__option *option = options;
    while (option->name && strcmp(option->name, name) != 0)
      ++option;
    if (!option->name) {
      ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: unknown option --%s", caller,
               name);
      return ck__option_suggest(options, name);
    }
    if (!sets_setting(option, fields, run_fields))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: option --%s belongs to a run (its stopping rules, "
                      "files and outputs), not to an optimiser its caller "
                      "steps",
                      caller, name);
  }
  return ck__problem_options_check(params, count);
}

ck_status ck__write_position(const char *path, const double *position,
                             int dim) {
  size_t capacity = (size_t)dim * 32 + 1, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int d = 0; d < dim; ++d)
    used +=
        (size_t)snprintf(text + used, capacity - used, "%.17g\n", position[d]);
  ck_status status = ck__file_write_atomic(path, text, used);
  free(text);
  return status;
}

ck_status ck__problem_best_check(const ck__problem_job *job, double best) {
  /* Values are stored as comparable (ck_best.h): overflow and NaN become
   * the largest real of the run's precision; -inf and values below the
   * least real become that least real. */
  int single = !job->spec.double_precision;
  double largest = single ? (double)FLT_MAX : DBL_MAX;
  if (best >= largest)
    return ck__fail(CK_ERROR_MISMATCH,
                    "no evaluation gave a finite objective value: every one "
                    "overflowed or was not a number; narrow --lo/--hi%s",
                    single ? " or use --precision double" : "");
  if (best <= -largest)
    return ck__fail(CK_ERROR_MISMATCH,
                    "the objective gave -inf, or a value below %g, the least "
                    "a %s-precision run holds: a minimum clkit cannot report; "
                    "bound the objective from below%s",
                    -largest, single ? "single" : "double",
                    single ? " or use double precision" : "");
  return CK_OK;
}

ck_status ck__problem_result(ck_result *result, const ck__problem_job *job,
                             const double *position, int dim,
                             const ck_run_options *options) {
  const ck_objective_info *info = NULL;
  double optimum;
  ck_status status = CK_OK;
  if (job->spec.function && !job->spec.host &&
      ck_objective_find(job->spec.function, &info) == CK_OK && info->streamed) {
    /* The run's own value, in its precision and the device's arithmetic,
     * may lie below the minimum; the position's value in double does
     * not, but by a double's rounding. */
    double value = 0;
    ck__objectives_ref_f64(info->id, dim, position, 1, &value);
    result->best = value;
  }
  if (info && ck_objective_get_optimum(info, dim, &optimum) == CK_OK) {
    ck__result_metric(result, "optimum", optimum, "");
    ck__result_metric(result, "gap", result->best - optimum, "");
    if (result->best < optimum && options && options->log) {
      char line[300];
      snprintf(line, sizeof line,
               "warning: the best value, %.17g, lies below %s's known minimum "
               "in %d dimensions, %.17g, by rounding: the gap is 0 to within "
               "%.3g",
               result->best, info->name, dim, optimum, optimum - result->best);
      options->log(options->log_user, line);
    }
  }
  ck_error_clear(); /* an unknown optimum is no failure */
  /* A host objective has no --fn: its default names none. */
  if (job->spec.host)
    status = ck__result_option(result, "fn", NULL);
  /* Without --lo and --hi, the objective's own domain. */
  if (info && !job->lo) {
    status = ck__result_option_number(result, "lo", info->lo);
    if (status == CK_OK)
      status = ck__result_option_number(result, "hi", info->hi);
  }
  if (status == CK_OK)
    status = ck__result_option_number(result, "dim", dim);
  if (status == CK_OK)
    status = ck__result_position(result, position, (size_t)dim);
  return status;
}

ck_status ck__optimiser_agree(const ck_result *reference,
                              const ck_result *result, double *difference,
                              int *agrees) {
  double scale = fabs(reference->best);
  *difference = fabs(result->best - reference->best) / (scale > 0 ? scale : 1);
  *agrees = fabs(result->best - reference->best) <= 1e-3 * scale + 1e-6;
  return CK_OK;
}
