/*
 * ga_workload.c - the island GA as a clkit workload: options in, a
 * ck_result out, and the files --out and --trace, written atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "ga/ga_internal.h"
#include "objectives/problem.h"

enum { TRACE_ROWS = 1000 };

static const ck_option ga_options[] = {
    CK__PROBLEM_OPTIONS("10", "generation"),
    {"islands", "I", "64", "number of islands"},
    {"island-size", "N", "64",
     "individuals per island (2 to 4096, above --migrants when "
     "islands migrate)"},
    {"gens", "G", "200",
     "stop after G generations (without it, --evals, --target or --time "
     "alone ends the run)"},
    {"elite", "E", "1", "best individuals kept unchanged per island"},
    {"tournament", "K", "2", "tournament size"},
    {"pc", "P", "0.9", "crossover probability"},
    {"crossover", "C", "arith",
     "arith, blx[:ALPHA] (ALPHA 0.5 unless given) or sbx:ETA"},
    {"pm", "P", "1/dim", "per-gene mutation probability"},
    {"mutation", "M", "gauss:0.1",
     "gauss[:SIGMA] (a fraction of hi - lo, 0.1 unless given) or "
     "poly:ETA"},
    {"migrate-every", "M", "10", "generations between migrations (0: never)"},
    {"migrants", "M", "2", "individuals each island sends"},
    {"topology", "T", "ring", "migration topology: ring or random"},
    {"trace-islands", NULL, NULL, "with --trace: a row per island too"},
    {"generation-mode", "M", "auto",
     "OpenCL generations: auto, child (a work-item a child) or vector (16 "
     "children a work-item, for CPUs)"},
    {NULL, NULL, NULL, NULL},
};

/* "kind" or "kind:parameter" against a list of kinds; the masks hold bit
 * (1 << kind) for the kinds that take a parameter, and that need one;
 * positive: whether the parameter must be above 0 (a mutation's sigma or
 * eta), as ck_ga_create requires. */
static ck_status parse_operator(const char *option, const char *text,
                                const char *const *kinds, int *kind,
                                double *parameter, int takes_parameter,
                                int needs_parameter, int positive) {
  char name[32];
  const char *colon = strchr(text, ':');
  size_t length = colon ? (size_t)(colon - text) : strlen(text);
  if (length >= sizeof name)
    length = sizeof name - 1;
  memcpy(name, text, length);
  name[length] = '\0';
  ck_status status = ck__parse_choice(option, name, kinds, kind);
  if (status)
    return status;
  if (colon && !(takes_parameter & (1 << *kind))) {
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: %s takes no parameter, not '%s'", option,
                    name, text);
  } else if (colon) {
    if (!ck__parse_decimal(colon + 1, colon + 1 + strlen(colon + 1),
                           parameter) ||
        *parameter < 0 || (positive && *parameter == 0) || *parameter > 1e6)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s: '%s' needs a number %s after the colon",
                      option, text,
                      positive ? "above 0 and at most 1e6" : "from 0 to 1e6");
  } else if (needs_parameter & (1 << *kind)) {
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: '%s' needs a parameter, e.g. %s:2", option,
                    text, name);
  }
  return CK_OK;
}

/* The GA's own options into c; the generation count only where it stops
 * the run (stop_by_count); traced: whether --trace is given. Reads no
 * file, so that ga_check can use it. */
static ck_status own_parse(const ck_param *params, size_t count,
                           int stop_by_count, int traced,
                           ck_ga_config *config) {
  ck_status status = CK_OK;
  long long integer;
  const char *text;
  CK_TRY(ck__param_integer(params, count, "islands", 64, 1, CK_GA_ISLANDS_MAX,
                           &integer));
  config->islands = (size_t)integer;
  /* Each option's own range here; the checks that name a relation between
   * options (elite below the island size, ...) live in ck_ga_create(). */
  CK_TRY(ck__param_integer(params, count, "island-size", 64, 2,
                           CK_GA_ISLAND_SIZE_MAX, &integer));
  config->island_size = (size_t)integer;
  CK_TRY(ck__param_integer(params, count, "gens", 200, 1, 1e15, &integer));
  config->max_generations = stop_by_count ? (uint64_t)integer : 0;
  CK_TRY(ck__param_integer(params, count, "elite", 1, 0,
                           CK_GA_ISLAND_SIZE_MAX - 1, &integer));
  config->elite = (int)integer;
  CK_TRY(ck__param_integer(params, count, "tournament", 2, 1,
                           CK_GA_ISLAND_SIZE_MAX, &integer));
  config->tournament = (int)integer;
  CK_TRY(
      ck__param_real(params, count, "pc", 0.9, 0, 1, &config->crossover_rate));
  text = ck__param_find(params, count, "pm");
  if (text && strcmp(text, "1/dim") != 0)
    CK_TRY(
        ck__param_real(params, count, "pm", -1, 0, 1, &config->mutation_rate));
  static const char *const crossovers[] = {"arith", "blx", "sbx", NULL};
  static const char *const mutations[] = {"gauss", "poly", NULL};
  static const char *const topologies[] = {"ring", "random", NULL};
  int kind = 0;
  if ((text = ck__param_find(params, count, "crossover"))) {
    config->crossover_parameter = 0.5;
    CK_TRY(parse_operator("crossover", text, crossovers, &kind,
                          &config->crossover_parameter,
                          1 << CK_GA_BLX | 1 << CK_GA_SBX, 1 << CK_GA_SBX, 0));
    config->crossover = (ck_ga_crossover)kind;
  }
  if ((text = ck__param_find(params, count, "mutation"))) {
    CK_TRY(parse_operator(
        "mutation", text, mutations, &kind, &config->mutation_parameter,
        1 << CK_GA_GAUSSIAN | 1 << CK_GA_POLYNOMIAL, 1 << CK_GA_POLYNOMIAL, 1));
    config->mutation = (ck_ga_mutation)kind;
  }
  if ((text = ck__param_find(params, count, "topology"))) {
    CK_TRY(ck__parse_choice("topology", text, topologies, &kind));
    config->topology = (ck_ga_topology)kind;
  }
  if ((text = ck__param_find(params, count, "generation-mode"))) {
    static const char *const modes[] = {"auto", "child", "vector", NULL};
    CK_TRY(ck__parse_choice("generation-mode", text, modes, &kind));
    config->generation_mode = (ck_ga_generation_mode)kind;
  }
  CK_TRY(
      ck__param_integer(params, count, "migrate-every", 10, 0, 1e9, &integer));
  config->migrate_every = (unsigned)integer;
  CK_TRY(ck__param_integer(params, count, "migrants", 2, 0,
                           CK_GA_ISLAND_SIZE_MAX - 1, &integer));
  config->migrants = (unsigned)integer;
  config->keep_island_history =
      ck__param_find(params, count, "trace-islands") != NULL;
  if (config->keep_island_history && !traced)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "--trace-islands adds rows to --trace FILE; give --trace too");
  /* Options that a run would ignore. */
  const ck__option_part parts[] = {
      {"migrants", config->migrate_every == 0,
       "migrations (--migrate-every > 0)"},
      {"topology", config->migrate_every == 0,
       "migrations (--migrate-every > 0)"},
      {"crossover", config->crossover_rate == 0, "crossing (--pc > 0)"},
      {"mutation", config->mutation_rate == 0, "mutation (--pm > 0)"}};
  CK_TRY(ck__param_parts(params, count, parts, sizeof parts / sizeof *parts));
fail:
  return status;
}

static ck_status job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, ck__problem_job *job,
                           ck_ga_config *config) {
  ck_status status = CK_OK;
  CK_TRY(ck__problem_job_parse(params, count, 10, "gens", job));
  ck_ga_config_init(config);
  CK__PROBLEM_FROM_JOB(config, job, options);
  CK_TRY(
      own_parse(params, count, job->stop_by_count, job->trace != NULL, config));
  return CK_OK;
fail:
  ck__problem_job_release(job);
  return status;
}

static ck_status ga_check(const ck_param *params, size_t count) {
  ck_status status = ck__problem_options_check(params, count, "gens");
  if (status)
    return status;
  ck_ga_config c;
  ck_ga_config_init(&c);
  return own_parse(params, count, 1,
                   ck__param_find(params, count, "trace") != NULL, &c);
}

/* About TRACE_ROWS generations of the history, evenly spread, and its
 * last; an entry g is generation g x stride (the history thins out on long
 * runs). */
static ck_status write_trace(const char *path, ck_ga *ga, int per_island,
                             size_t islands) {
  const double *best, *mean, *island_best, *island_mean;
  size_t count;
  uint64_t stride;
  ck_status status =
      ck_ga_get_history(ga, &best, &mean, &island_best, &island_mean, &count);
  if (status == CK_OK)
    status = ck_ga_get_history_stride(ga, &stride);
  if (status)
    return status;
  size_t every = count > TRACE_ROWS ? (count + TRACE_ROWS - 1) / TRACE_ROWS : 1;
  size_t rows = (count / every + 2) * (per_island ? islands + 1 : 1);
  /* A row: a generation (up to 16 digits), an island, two %.17g values
   * (up to 24 characters each). */
  size_t capacity = rows * 96 + 64, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  used += (size_t)snprintf(text, capacity, "generation,island,best,mean\n");
  for (size_t g = 0; g < count; ++g) {
    if (g % every && g + 1 != count)
      continue;
    unsigned long long generation = g * stride;
    used +=
        (size_t)snprintf(text + used, capacity - used, "%llu,all,%.17g,%.17g\n",
                         generation, best[g], mean[g]);
    for (size_t i = 0; per_island && i < islands; ++i)
      used += (size_t)snprintf(
          text + used, capacity - used, "%llu,%zu,%.17g,%.17g\n", generation, i,
          island_best[g * islands + i], island_mean[g * islands + i]);
  }
  status = ck__file_write_atomic(path, text, used);
  free(text);
  return status;
}

static ck_status ga_run(const ck_device *device, const ck_param *params,
                        size_t count, const ck_run_options *options,
                        ck_result *result) {
  ck_status status = CK_OK;
  ck__problem_job job;
  ck_ga_config config;
  ck_ga *ga = NULL;
  double *position = NULL;
  ck_ga_report report;
  if ((status = job_parse(params, count, options, &job, &config)))
    return status;
  CK_TRY(ck_ga_create(device, &config, &ga));
  CK_TRY(ck_ga_run(ga, &report));
  int dim = ck__ga_dim(ga);
  position = malloc((size_t)dim * sizeof *position);
  if (!position)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck_ga_get_best(ga, &result->best, position));
  CK_TRY(ck__problem_best_check(&job, result->best));
  if (job.out)
    CK_TRY_OUTPUT("out", ck__write_position(job.out, position, dim));
  if (job.trace)
    CK_TRY_OUTPUT(
        "trace",
        write_trace(job.trace, ga, config.keep_island_history, config.islands));
  snprintf(result->best_name, sizeof result->best_name, "objective");
  result->wall_s = report.wall_s;
  result->kernel_s = report.kernel_s;
  result->throughput = report.genes_per_s;
  snprintf(result->throughput_unit, sizeof result->throughput_unit,
           "gene-gens/s");
  ck__result_metric(result, "generations", (double)report.generations, "");
  ck__result_metric(result, "evaluations", (double)report.evaluations, "");
  ck__result_metric(result, "evaluations_per_s", report.evaluations_per_s,
                    "evals/s");
  ck__result_metric(result, "islands", (double)config.islands, "");
  ck__result_metric(result, "island_size", (double)config.island_size, "");
  ck__result_metric(result, "dim", dim, "");
  ck__result_metric(result, "children_per_work_item",
                    (double)report.children_per_work_item, "");
  snprintf(result->stopped_by, sizeof result->stopped_by, "%s",
           ck__stop_name(report.stopped_by, "generations"));
  if (report.stopped_by == CK_STOP_TARGET)
    ck__result_metric(result, "target_generation",
                      (double)report.target_generation, "");
  CK_TRY(ck__problem_result(result, &job, position, dim));
  if (config.mutation_rate < 0)
    CK_TRY(ck__result_option_number(result, "pm", 1.0 / dim));
fail:
  free(position);
  ck_ga_destroy(ga);
  ck__problem_job_release(&job);
  return status;
}

static const ck_param ga_demo[] = {{"fn", "rastrigin"},
                                   {"dim", "10"},
                                   {"islands", "16"},
                                   {"island-size", "32"},
                                   {"gens", "100"}};

const ck_workload ck__ga_workload = {
    .name = "ga",
    .summary = "island-model genetic algorithm over the same objectives",
    .options = ga_options,
    .tolerance = 1e-3,
    .check = ga_check,
    .run = ga_run,
    .agree = ck__optimiser_agree,
    .outputs = ck__problem_outputs,
    .demo = ga_demo,
    .demo_count = sizeof ga_demo / sizeof ga_demo[0],
};
