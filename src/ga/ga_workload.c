/*
 * ga_workload.c - the island GA as a clkit workload: options in, a
 * ck_result out, and the files --out and --trace, written atomically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "ga/ga_internal.h"
#include "objectives/problem.h"

/* "kind" or "kind:parameter", the kinds the words of kinds; the masks hold
 * bit (1 << kind) for the kinds that take a parameter, and that need one,
 * which must lie in the range of its field. */
static ck_status parse_operator(const char *option, const char *text,
                                const ck__field *kinds,
                                const ck__field *parameter_field, int *kind,
                                double *parameter, int takes_parameter,
                                int needs_parameter) {
  const char *colon = strchr(text, ':');
  size_t length = colon ? (size_t)(colon - text) : strlen(text);
  const ck__field_word *word = ck__field_word_named(kinds, text, length);
  if (!word)
    return ck__fail_word(option, NULL, kinds, text, length);
  *kind = (int)word->value;
  if (colon && !(takes_parameter & (1 << *kind))) {
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: %s takes no parameter, not '%s'", option,
                    word->word, text);
  } else if (colon) {
    char range[96];
    ck__field_range_text(parameter_field, range, sizeof range);
    if (!ck__parse_decimal(colon + 1, colon + 1 + strlen(colon + 1),
                           parameter) ||
        !ck__field_in_range(parameter_field, *parameter))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s: '%s' needs a number in %s after the colon",
                      option, text, range);
  } else if (needs_parameter & (1 << *kind)) {
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: '%s' needs a parameter, e.g. %s:2", option,
                    text, word->word);
  }
  return CK_OK;
}

static ck_status read_crossover(const char *text, void *job) {
  ck_ga_config *config = job;
  int kind = 0;
  ck_status status =
      parse_operator("crossover", text, &ck__ga_fields[CK__GA_CROSSOVER],
                     &ck__ga_fields[CK__GA_CROSSOVER_PARAMETER], &kind,
                     &config->crossover_parameter,
                     1 << CK_GA_BLX | 1 << CK_GA_SBX, 1 << CK_GA_SBX);
  config->crossover = (ck_ga_crossover)kind;
  return status;
}

static ck_status read_mutation(const char *text, void *job) {
  ck_ga_config *config = job;
  int kind = 0;
  ck_status status = parse_operator(
      "mutation", text, &ck__ga_fields[CK__GA_MUTATION],
      &ck__ga_fields[CK__GA_MUTATION_PARAMETER], &kind,
      &config->mutation_parameter, 1 << CK_GA_GAUSSIAN | 1 << CK_GA_POLYNOMIAL,
      1 << CK_GA_POLYNOMIAL);
  config->mutation = (ck_ga_mutation)kind;
  return status;
}

#define GA(index)                                                              \
  .field = &ck__ga_fields[CK__GA_##index], .config = "ck_ga_config"

static const ck__option ga_options[] = {
    CK__PROBLEM_OPTIONS(ck__ga_fields, "ck_ga_config", "generation"),
    {"islands", "I", "number of islands", GA(ISLANDS)},
    {"island-size", "N",
     "individuals per island, above --migrants when islands migrate",
     GA(ISLAND_SIZE), .flags = CK__OPTION_RANGE},
    {"gens", "G",
     "stop after G generations (without it, --evals, --target or --time "
     "alone ends the run)",
     GA(GENERATIONS)},
    {"elite", "E", "best individuals kept unchanged per island", GA(ELITE)},
    {"tournament", "K", "tournament size", GA(TOURNAMENT)},
    {"pc", "P", "crossover probability", GA(CROSSOVER_RATE)},
    {"crossover", "C", "arith, blx[:ALPHA] (ALPHA %g unless given) or sbx:ETA",
     GA(CROSSOVER), .read = read_crossover, .sets = "crossover_parameter",
     .detail = &ck__ga_fields[CK__GA_CROSSOVER_PARAMETER]},
    {"pm", "P", "per-gene mutation probability", GA(MUTATION_RATE)},
    {"mutation", "M",
     "gauss[:SIGMA] (a fraction of hi - lo, %g unless given) or poly:ETA",
     GA(MUTATION), .read = read_mutation, .sets = "mutation_parameter",
     .detail = &ck__ga_fields[CK__GA_MUTATION_PARAMETER]},
    {"migrate-every", "M", "generations between migrations (0: never)",
     GA(MIGRATE_EVERY)},
    {"migrants", "M", "individuals each island sends", GA(MIGRANTS)},
    {"topology", "T", "migration topology: ring or random", GA(TOPOLOGY)},
    {"trace-islands", NULL, "with --trace: a row per island too",
     GA(KEEP_ISLAND_HISTORY)},
    {"generation-mode", "M",
     "OpenCL generations: auto, child (a work-item a child) or vector (16 "
     "children a work-item, for CPUs)",
     GA(GENERATION_MODE)},
    {0},
};

/* The options that need no file into config (its defaults in place), so
 * that ga_check can use them. */
static ck_status read_settings(const ck_param *params, size_t count,
                               ck_ga_config *config) {
  ck_status status = ck__options_read(ga_options, params, count, config);
  if (status)
    return status;
  config->has_target = ck__param_find(params, count, "target") != NULL;
  if (config->keep_island_history && !ck__param_find(params, count, "trace"))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--trace-islands adds rows to --trace FILE; give --trace "
                    "too");
  /* Options that a run would ignore. */
  const ck__option_part parts[] = {
      {"migrants", config->migrate_every == 0,
       "migrations (--migrate-every > 0)"},
      {"topology", config->migrate_every == 0,
       "migrations (--migrate-every > 0)"},
      {"crossover", config->crossover_rate == 0, "crossing (--pc > 0)"},
      {"mutation", config->mutation_rate == 0, "mutation (--pm > 0)"}};
  return ck__param_parts(params, count, parts, sizeof parts / sizeof *parts);
}

ck_status ck_ga_config_read(const ck_param *params, size_t count,
                            ck_ga_config *config) {
  static const ck__field *const run_fields[] = {
      &ck__ga_fields[CK__GA_GENERATIONS],
      &ck__ga_fields[CK__GA_KEEP_ISLAND_HISTORY], NULL};
  CK__REQUIRE_IN("ck_ga_config_read", config);
  ck_ga_config read;
  ck_ga_config_init(&read);
  ck_status status =
      ck__problem_settings_check("ck_ga_config_read", ga_options, ck__ga_fields,
                                 run_fields, params, count);
  if (status == CK_OK)
    status = read_settings(params, count, &read);
  if (status == CK_OK)
    *config = read;
  return status;
}

/* The problem's options that name files, and its files, over the
 * settings read (job->config); the generation count only where it stops
 * the run. */
static ck_status load_problem(const ck_param *params, size_t count,
                              const ck_run_options *options,
                              ck__problem_job *job, ck_ga_config *config) {
  ck__problem_spec settings =
      CK__PROBLEM_SPEC(config, "ck_ga_config", ck__ga_fields);
  settings.host = options && (options->objective || options->device_objective);
  ck_status status =
      ck__problem_job_parse(params, count, &settings, "gens", job);
  if (status)
    return status;
  CK__PROBLEM_FROM_JOB(config, job, options);
  if (!job->stop_by_count)
    config->max_generations = 0;
  return CK_OK;
}

/* The settings into config, and all that check refuses; no file read. */
static ck_status check_settings(const ck_param *params, size_t count,
                                ck_ga_config *config) {
  ck_ga_config_init(config);
  ck_status status = read_settings(params, count, config);
  return status ? status : ck__problem_options_check(params, count);
}

static ck_status ga_check(const ck_param *params, size_t count) {
  ck_ga_config config;
  return check_settings(params, count, &config);
}

/* The history: count entries, entry g after generation g x stride (the
 * history thins out on long runs); the islands' with --trace-islands. */
typedef struct ga_history {
  const double *best, *mean, *island_best, *island_mean;
  size_t count;
  uint64_t stride;
} ga_history;

static ck_status history_of(ck_ga *ga, ga_history *h) {
  ck_status status = ck_ga_get_history(ga, &h->best, &h->mean, &h->island_best,
                                       &h->island_mean, &h->count);
  return status ? status : ck_ga_get_history_stride(ga, &h->stride);
}

/* The generations of the history that ck__history_show_every shows. */
static ck_status write_trace(const char *path, ck_ga *ga, int per_island,
                             size_t islands) {
  ga_history h;
  ck_status status = history_of(ga, &h);
  if (status)
    return status;
  const double *best = h.best, *mean = h.mean, *island_best = h.island_best,
               *island_mean = h.island_mean;
  size_t count = h.count;
  uint64_t stride = h.stride;
  size_t every = ck__history_show_every(count);
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

/* --plot: the best and the mean over the run's seconds, the generations
 * along the top. */
static ck_status write_plot(const ck__problem_job *job, ck_ga *ga,
                            const ck_result *result, const ck_ga_config *config,
                            const ck_ga_report *report,
                            const ck__history *timeline) {
  ga_history h;
  ck_status status = history_of(ga, &h);
  if (status)
    return status;
  char details[200];
  snprintf(details, sizeof details,
           "%zu islands of %zu · %llu generations in %.3g s", config->islands,
           config->island_size, (unsigned long long)report->generations,
           report->wall_s);
  const double *columns[] = {h.best, h.mean};
  const char *names[] = {"population best", "population mean"};
  return ck__problem_plot(job, result, "generation", details, columns, names, 2,
                          h.count, h.stride, timeline);
}

/* A run's reading: the problem's options and files, and the settings. */
typedef struct ga_job {
  ck__problem_job problem;
  ck_ga_config config;
} ga_job;

static ck_status ga_prepare(const ck_param *params, size_t count,
                            const ck_run_options *options, void *job) {
  (void)options;
  return check_settings(params, count, &((ga_job *)job)->config);
}

static ck_status ga_load(void *job, const ck_param *params, size_t count,
                         const ck_run_options *options) {
  ga_job *read = job;
  return load_problem(params, count, options, &read->problem, &read->config);
}

static void ga_release(void *job) {
  ck__problem_job_release(&((ga_job *)job)->problem);
}

static ck_status ga_run(const void *prepared, const ck_device *device,
                        const ck_param *params, size_t count,
                        const ck_run_options *options, ck_result *result) {
  ck_status status = CK_OK;
  const ga_job *read = prepared;
  (void)params; /* read into the job */
  (void)count;
  const ck__problem_job *job = &read->problem;
  /* The run's own hooks (its progress) over the reading's. */
  ck_ga_config config = read->config;
  CK__PROBLEM_FROM_JOB(&config, job, options);
  ck_ga *ga = NULL;
  double *position = NULL;
  ck_ga_report report;
  ck__history timeline = {0};
  if (options->spread)
    CK_TRY(ck_ga_create_spread(options->spread, &config, &ga));
  else
    CK_TRY(ck_ga_create(device, &config, &ga));
  if (job->plot) {
    static const size_t row[] = {2};
    CK_TRY(ck__history_init(&timeline, CK__HISTORY_SAMPLE, 1, row,
                            "the times of the run's reads"));
    ga->timeline = &timeline;
  }
  CK_TRY(ck_ga_run(ga, &report));
  /* A spread run's outputs are written once, by rank 0. */
  ck__spread_run *spread = ck__ga_spread_run(ga);
  int writes = !spread || ck__exchange_rank(spread->exchange) == 0;
  int dim = ck__ga_dim(ga);
  position = malloc((size_t)dim * sizeof *position);
  if (!position)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck_ga_get_best(ga, &result->best, position));
  CK_TRY(ck__problem_best_check(job, result->best));
  if (job->out && writes)
    CK_TRY_OUTPUT("out", ck__write_position(job->out, position, dim));
  if (job->trace && writes)
    CK_TRY_OUTPUT("trace",
                  write_trace(job->trace, ga, config.keep_island_history,
                              config.islands));
  if (options->spread)
    CK_TRY(ck__spread_report_queues(spread, result));
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
  CK_TRY(ck__problem_result(result, job, position, dim, options));
  if (config.mutation_rate < 0)
    CK_TRY(ck__result_option_number(result, "pm", 1.0 / dim));
  if (job->plot && writes)
    CK_TRY_OUTPUT("plot",
                  write_plot(job, ga, result, &config, &report, &timeline));
fail:
  ck__history_free(&timeline);
  free(position);
  ck_ga_destroy(ga);
  return status;
}

/* ---- benchmark sizes and the cost model (docs/ga.md, "Cost model") ----- */

#define GA_RUNG(islands, gens)                                                 \
  {                                                                            \
    {"fn", "rastrigin"}, {"dim", "32"}, {"island-size", "256"},                \
        {"islands", islands}, {"gens", gens}, {                                \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param ga_rungs[CK_BENCH_RUNGS][6] = {
    GA_RUNG("1", "100"),    GA_RUNG("4", "100"),    GA_RUNG("16", "200"),
    GA_RUNG("64", "500"),   GA_RUNG("256", "1000"), GA_RUNG("1024", "2000"),
    GA_RUNG("4096", "4000")};
static const char *const ga_size_options[] = {
    "islands", "island-size", "gens", "dim", "evals", "time", "target", NULL};
static const char *const ga_size_metrics[] = {"islands", "island_size",
                                              "generations", NULL};

static void ga_footprint(const ck_param *params, size_t count,
                         const ck_device *device, double *total,
                         double *largest) {
  (void)device;
  double real = (double)ck__param_real_size(params, count);
  double individuals =
      ck__param_number(params, count, "islands",
                       ck__ga_fields[CK__GA_ISLANDS].value) *
      ck__param_number(params, count, "island-size",
                       ck__ga_fields[CK__GA_ISLAND_SIZE].value);
  double dim = ck__param_number(params, count, "dim",
                                ck__ga_fields[CK__PROBLEM_DIM].value);
  *total = ck__ga_population_bytes(individuals, dim, real);
  *largest = individuals * dim * real;
}

/* A unit is one gene of one individual in one generation. A child's gene
 * is crossed (GA_CROSS_FLOPS: the blend's difference, product and sum),
 * mutated where a mutation falls (GA_MUTATION_FLOPS, on a --pm share of
 * genes: a gaussian step's logarithm, square root, cosine and scale) and
 * evaluated (the objective's term). Where the islands stay in local memory
 * (a built-in objective other than lsq, d <= CK__GA_RESIDENT_MAX_DIM), a
 * gene reaches device memory once each way a launch, a launch running to
 * the next migration, and a fitness is written each generation; elsewhere
 * a child reads two parents and writes itself (GA_REALS_A_GENE a gene)
 * and its fitness, read again by the tournaments. lsq and user objectives
 * leave the flops unknown. */
enum { GA_CROSS_FLOPS = 3, GA_MUTATION_FLOPS = 8, GA_REALS_A_GENE = 3 };

static ck_status ga_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"islands", "island_size", "dim",
                                      "generations", NULL};
  double values[4];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  double real = (double)ck__result_real_size(result);
  double dim = values[2], generations = values[3];
  double individual_generations = values[0] * values[1] * generations;
  const char *fn = ck__result_option_text(result, "fn");
  int streamed = !ck__result_option_text(result, "objective") && fn &&
                 strcmp(fn, "lsq") != 0;
  double term = streamed ? ck__objective_term_flops(fn) : NAN;
  const char *pm = ck__result_option_text(result, "pm");
  double mutated = pm ? strtod(pm, NULL) : 0;
  const char *every = ck__result_option_text(result, "migrate-every");
  double launch =
      every && strtod(every, NULL) > 0 ? strtod(every, NULL) : generations;
  double reals = streamed && dim <= CK__GA_RESIDENT_MAX_DIM
                     ? 2.0 * dim / (launch > 0 ? launch : 1) + 1.0
                     : GA_REALS_A_GENE * dim + 2.0;
  cost->units = individual_generations * dim;
  cost->bytes = individual_generations * reals * real;
  cost->flops =
      cost->units * (GA_CROSS_FLOPS + mutated * GA_MUTATION_FLOPS + term);
  cost->double_precision = real == 8;
  return CK_OK;
}

static const ck__bench ga_bench = {
    .format = "islands x island size x gens",
    .rungs = {ga_rungs[0], ga_rungs[1], ga_rungs[2], ga_rungs[3], ga_rungs[4],
              ga_rungs[5], ga_rungs[6]},
    .size_options = ga_size_options,
    .footprint = ga_footprint,
    .size_metrics = ga_size_metrics,
    .cost = ga_cost};

static const ck_param ga_demo[] = {{"fn", "rastrigin"},
                                   {"dim", "10"},
                                   {"islands", "16"},
                                   {"island-size", "32"},
                                   {"gens", "100"}};

const ck_workload ck__ga_workload = {
    .name = "ga",
    .summary = "island-model genetic algorithm over the same objectives",
    .options = ga_options,
    CK__OPTIONS_SHOWN(ga_options),
    .tolerance = 1e-3,
    .check = ga_check,
    .job_bytes = sizeof(ga_job),
    .prepare = ga_prepare,
    .load = ga_load,
    .run = ga_run,
    .release = ga_release,
    .agree = ck__optimiser_agree,
    .outputs = ck__problem_outputs,
    .demo = ga_demo,
    .demo_count = sizeof ga_demo / sizeof ga_demo[0],
    .spreads = 1,
    .spread_shares_devices = 1,
    .objectives = 1,
    .device_objectives = 1,
    .bench = &ga_bench,
};
