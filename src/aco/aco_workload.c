/*
 * aco_workload.c - ACO for the TSP as a clkit workload: a TSPLIB file and
 * options in, a ck_result out, and the files --tour-out, --trace, --svg
 * and --plot, each written atomically.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_internal.h"
#include "ck_philox.h"
#include "framework/framework.h"
#include "framework/plot.h"

/* The options that name files a run writes. */
static const char *const aco_outputs[] = {"tour-out", "trace", "svg", "plot",
                                          NULL};

typedef struct aco_job {
  ck_aco_config config; /* first: the options' fields are the job's */
  ck_tsp_instance instance;
  const char *tour_out, *trace, *svg, *plot;
  const char *path; /* the instance's file, or its random:N */
} aco_job;

/* The run's own settings, beside ck_aco_config's (ck__aco_fields). */
enum { JOB_PATH, JOB_TOUR_OUT, JOB_TRACE, JOB_SVG, JOB_FIELDS };

static const ck__field aco_job_fields[JOB_FIELDS] = {
    [JOB_PATH] = {CK__FIELD_OF(aco_job, path, CK__FIELD_TEXT, 0, 0, 0),
                  .text = "random:1000"},
    [JOB_TOUR_OUT] = {CK__FIELD_OF(aco_job, tour_out, CK__FIELD_TEXT, 0, 0, 0)},
    [JOB_TRACE] = {CK__FIELD_OF(aco_job, trace, CK__FIELD_TEXT, 0, 0, 0)},
    [JOB_SVG] = {CK__FIELD_OF(aco_job, svg, CK__FIELD_TEXT, 0, 0, 0)},
};

#define ACO(index)                                                             \
  .field = &ck__aco_fields[CK__ACO_##index], .config = "ck_aco_config"
#define JOB(index) .field = &aco_job_fields[JOB_##index]

static const ck__option aco_options[] = {
    {"instance", "FILE.tsp",
     "the TSPLIB instance (also the first argument after the workload); "
     "random:N for N random cities",
     JOB(PATH)},
    {"algo", "A", "mmas (MAX-MIN Ant System) or acs", ACO(ALGORITHM)},
    {"method", "M",
     "classic (each ant builds a tour), focused (each ant changes the best "
     "tour at a few places; one device) or auto (focused from 5000 cities "
     "on a GPU or a CPU of 8 compute units or more, from 2000 on other "
     "devices)",
     ACO(METHOD)},
    {"focus-edges", "N",
     "focused: the most edges a tour may have that its source lacks "
     "(auto: adaptive, from 8)",
     ACO(FOCUS_EDGES)},
    {"focus-source", "S",
     "focused: the tour an ant copies: best (the best so far), iteration "
     "(the last iteration's best) or own (the ant's last tour)",
     ACO(FOCUS_SOURCE)},
    {"ants", "M", "ants an iteration (auto: from the device)", ACO(ANTS)},
    {"candidates", "K", "nearest neighbours a city", ACO(CANDIDATES),
     .flags = CK__OPTION_RANGE},
    {"alpha", "A", "pheromone exponent", ACO(ALPHA)},
    {"beta", "B", "heuristic exponent", ACO(BETA)},
    {"rho", "R", "evaporation: 0.2 with local search, 0.02 without; ACS 0.1",
     ACO(RHO)},
    {"q0", "Q", "ACS: probability of the greedy choice", ACO(Q0)},
    {"ls", "MODE", "local search: none, 2opt or 2opt+oropt", ACO(LOCAL_SEARCH)},
    {"ls-ants", "N", "local search on the best N tours (0: all)",
     ACO(LOCAL_SEARCH_ANTS)},
    {"ls-longest", "L",
     "leave out moves that reverse or shift more than L tour entries",
     ACO(LONGEST_MOVE)},
    {"ls-full", NULL,
     "local search from scratch to a true local optimum on every tour "
     "(default: only around the edges a tour does not share with the best)",
     ACO(SEEDED_SEARCH), .flags = CK__OPTION_CLEARS},
    {"restart", "N",
     "MMAS: reset pheromone after N iterations without improvement (0: "
     "never)",
     ACO(RESTART_AFTER)},
    {"partition", "K",
     "improve the best tour in segments of K cities each iteration (0: off)",
     ACO(PARTITION), .flags = CK__OPTION_RANGE},
    {"kicks", "N",
     "partitioning: iterated local search kicks a segment and pass, K the "
     "segment size (0: local search only)",
     ACO(KICKS)},
    {"lanes", "W",
     "work-items an ant on OpenCL devices: 1, or a power of two (a "
     "work-group an ant); auto: the SIMD width on GPUs, 1 on CPUs",
     ACO(LANES)},
    {"spread-colonies", "K",
     "with --spread: a colony on each device, all adopting the best tour "
     "every K iterations (0: one colony, bit for bit one device's)",
     ACO(SPREAD_COLONIES)},
    {"iters", "N",
     "stop after N iterations (without it, --time or --target-gap alone "
     "ends the run)",
     ACO(MAX_ITERATIONS)},
    {"time", "S", "stop after S seconds", ACO(MAX_SECONDS),
     .flags = CK__OPTION_OFF},
    {"target-gap", "P",
     "stop within P% of the optimum (alone, the run ends only then or at "
     "Ctrl-C)",
     ACO(TARGET_GAP), .flags = CK__OPTION_OFF, .sets = "has_target"},
    {"optimum", "L", "the known optimal length", ACO(OPTIMUM),
     .flags = CK__OPTION_OFF},
    {"optima", "FILE", "a file of 'name : length' lines", .field = NULL},
    {"tour-out", "FILE", "write the best tour (TSPLIB .tour)", JOB(TOUR_OUT),
     .format = "tour"},
    {"trace", "FILE", "write a CSV of time, iteration, best length", JOB(TRACE),
     .format = "csv"},
    {"svg", "FILE", "draw the best tour over the cities", JOB(SVG),
     .format = "svg"},
    {"plot", "FILE",
     "chart the best tour length over time, iterations along the top: "
     "FILE.svg or FILE.png",
     .field = NULL, .format = "chart"},
    {0},
};

/* "random:N": N cities uniform in a 1000 x 1000 square (EUC_2D), drawn
 * from Philox with the run's seed, for demonstrations and benchmarks. */
static ck_status random_instance(const char *spec, uint64_t seed,
                                 ck_tsp_instance *instance) {
  long long n = 0;
  if (ck__parse_whole(spec + 7, spec + strlen(spec), CK_ACO_MIN_CITIES,
                      CK_TSP_MAX_CITIES, &n) != 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --instance: '%s' should be random:N with N from "
                    "%u to %u",
                    spec, CK_ACO_MIN_CITIES, CK_TSP_MAX_CITIES);
  size_t capacity = (size_t)n * 40 + 200, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  used += (size_t)snprintf(text, capacity,
                           "NAME : random%lld\nTYPE : TSP\nDIMENSION : %lld\n"
                           "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n",
                           n, n);
  for (long long i = 0; i < n; ++i) {
    ck_philox_counter r =
        ck_philox_block(seed, 0x7453500000000000ull, (uint64_t)i);
    used += (size_t)snprintf(text + used, capacity - used, "%lld %.3f %.3f\n",
                             i + 1, (r.v[0] >> 8) * (1000.0 / 16777216.0),
                             (r.v[1] >> 8) * (1000.0 / 16777216.0));
  }
  used += (size_t)snprintf(text + used, capacity - used, "EOF\n");
  ck_status status = ck_tsp_parse(text, used, spec, instance);
  free(text);
  return status;
}

/* The stopping rules: the iteration count where it stops the run (or
 * nothing else would), and a target gap only against an optimum. */
static ck_status read_stopping(const ck_param *params, size_t count,
                               ck_aco_config *config) {
  int by_time = ck__param_find(params, count, "time") != NULL;
  int by_target = ck__param_find(params, count, "target-gap") != NULL;
  int by_count = ck__param_find(params, count, "iters") != NULL;
  int optimum = ck__param_find(params, count, "optimum") != NULL;
  int optima = ck__param_find(params, count, "optima") != NULL;
  if (!by_count && (by_time || by_target))
    config->max_iterations = 0;
  if (optimum && optima)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --optimum: give --optima or --optimum, not both");
  /* Whether the optima list has the instance is known once it is read;
   * a run given neither source is refused before that. */
  if (by_target && !optimum && !optima)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --target-gap: needs the optimum; give --optimum "
                    "or --optima");
  config->has_target = by_target;
  return CK_OK;
}

/*
 * The options alone, every range checked where it is defined: what
 * aco_check validates and aco_run uses, so the two cannot disagree; with
 * `spread`, what a spread run refuses too. The instance is not read here
 * (job->instance stays empty); aco_load does that and checks what
 * depends on it.
 */
static ck_status options_parse(const ck_param *params, size_t count,
                               const ck_run_options *options, int spread,
                               aco_job *job) {
  ck_status status = CK_OK;
  memset(job, 0, sizeof *job);
  ck_aco_config *config = &job->config;
  ck_aco_config_init(config);
  ck__fields_init(job, aco_job_fields, JOB_FIELDS);
  config->seed = options ? options->seed : 1;
  if (options) {
    config->progress = options->progress;
    config->progress_user = options->progress_user;
  }
  config->keep_trace = 1;
  static const char *const reads[] = {"instance", "optima", NULL};
  CK_TRY(ck__plot_option(params, count, &job->plot));
  CK_TRY(ck__param_files_apart(params, count, reads, aco_outputs, NULL, NULL));
  /* The first argument after the workload becomes --instance too, so two
   * values are two instances: refused rather than one dropped unseen. */
  const char *instance = NULL;
  for (size_t i = 0; i < count; ++i) {
    if (!params[i].name || strcmp(params[i].name, "instance") != 0)
      continue;
    if (instance)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --instance: two instances, '%s' and '%s' (each "
              "given by --instance or as the first argument after the "
              "workload); give one",
              instance, params[i].value ? params[i].value : "");
    instance = params[i].value;
  }
  CK_TRY(ck__options_read(aco_options, params, count, job));
  const char *search = "a local search (--ls 2opt or 2opt+oropt)";
  int no_search = config->local_search == CK_ACO_LS_NONE;
  const ck__option_part parts[] = {
      {"q0", config->algorithm != CK_ACO_ACS, "--algo acs"},
      {"restart", config->algorithm != CK_ACO_MMAS, "--algo mmas"},
      {"focus-edges", config->method == CK_ACO_CLASSIC,
       "--method focused or auto"},
      {"focus-source", config->method == CK_ACO_CLASSIC,
       "--method focused or auto"},
      {"kicks", config->partition == 0, "--partition K"},
      {"ls-ants", no_search, search},
      {"ls-longest", no_search, search},
      {"ls-full", no_search, search},
      {"spread-colonies", options && !options->spread, "--spread"},
  };
  CK_TRY(ck__param_parts(params, count, parts, sizeof parts / sizeof *parts));
  CK_TRY(read_stopping(params, count, config));
  if (spread)
    CK_TRY(ck__param_not_spread(
        params, count, "focus-source",
        config->focus_source != CK_ACO_SOURCE_BEST,
        "a spread colony's ants copy the best tour; use best"));
fail:
  return status;
}

/* The instance, once the options are read, and what depends on it. */
static ck_status aco_load(void *read, const ck_param *params, size_t count,
                          const ck_run_options *options) {
  ck_status status = CK_OK;
  aco_job *job = read;
  ck_aco_config *config = &job->config;
  const char *path = job->path;
  if (strncmp(path, "random:", 7) == 0)
    CK_TRY(random_instance(path, config->seed, &job->instance));
  else
    CK_TRY(ck_tsp_load(path, &job->instance));
  uint32_t n = job->instance.cities;
  /* A well-formed file the ACO cannot use: the input's fault, not the
   * options', so named as a file and not a usage error. */
  if (n < CK_ACO_MIN_CITIES)
    CK_FAIL(CK_ERROR_PARSE, "%s: %u cities; the ACO needs at least %u", path, n,
            CK_ACO_MIN_CITIES);
  /* Known before the run, not after it. */
  if (job->svg && !job->instance.x)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "option --svg: instance %s has no coordinates to draw (its "
            "distances are given as weights)",
            job->instance.name);
  const char *optima = ck__param_find(params, count, "optima");
  if (optima) {
    int64_t found = 0;
    ck_log_fn log = options ? options->log : NULL;
    void *log_user = options ? options->log_user : NULL;
    /* random:N is no file whose name the optima could list. */
    int random = strncmp(path, "random:", 7) == 0;
    status = ck_tsp_optimum_find(optima, job->instance.name,
                                 random ? NULL : path, log, log_user, &found);
    if (status == CK_ERROR_NOT_FOUND && config->has_target) {
      ck__fail_prefix(CK_ERROR_INVALID_ARGUMENT,
                      "option --target-gap: the optimum of %s is unknown: ",
                      job->instance.name);
      status = ck__fail_append("; give --optimum or an --optima file that "
                               "lists it");
      goto fail;
    }
    if (status == CK_ERROR_NOT_FOUND) {
      /* Unknown optimum: the run goes on without a gap, and says why. */
      const char *message = "";
      ck_error_get_last(&message);
      if (log) {
        char line[CK__ERROR_MESSAGE_BYTES + 64];
        snprintf(line, sizeof line, "warning: %s; no gap is reported", message);
        log(log_user, line);
      }
      status = CK_OK;
      ck_error_clear();
    }
    CK_TRY(status);
    config->optimum = found;
  }
  return CK_OK;
fail:
  ck_tsp_free(&job->instance);
  return status;
}

static ck_status aco_check(const ck_param *params, size_t count) {
  aco_job job;
  return options_parse(params, count, NULL, 0, &job);
}

static ck_status aco_check_spread(const ck_param *params, size_t count) {
  aco_job job;
  return options_parse(params, count, NULL, 1, &job);
}

static ck_status write_trace(const char *path, const ck_aco *aco) {
  const ck_aco_trace_point *points;
  size_t count;
  ck_status status = ck_aco_get_trace(aco, &points, &count);
  if (status)
    return status;
  size_t capacity = (count + 1) * 80, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  used += (size_t)snprintf(text, capacity, "time_s,iteration,best_length\n");
  for (size_t i = 0; i < count; ++i)
    used += (size_t)snprintf(
        text + used, capacity - used, "%.6f,%llu,%lld\n", points[i].time_s,
        (unsigned long long)points[i].iteration, (long long)points[i].length);
  status = ck__file_write_atomic(path, text, used);
  free(text);
  return status;
}

/* text with XML's five special characters as entities, cut to fit. */
static void xml_escape(char *out, size_t capacity, const char *text) {
  size_t used = 0;
  for (; *text; ++text) {
    const char *entity = ck__text_xml_entity(*text);
    size_t length = entity ? strlen(entity) : 1;
    if (used + length + 1 > capacity)
      break;
    memcpy(out + used, entity ? entity : text, length);
    used += length;
  }
  out[used] = '\0';
}

/* An SVG of the tour over the cities, 800 pixels on the longer side (y
 * upwards, as in the coordinates), under lines of text: the instance's
 * name, the length and, with an optimum (> 0), the gap to it in percent. */
static ck_status write_svg(const char *path, const ck_tsp_instance *instance,
                           const uint32_t *tour, int64_t length,
                           int64_t optimum, double gap) {
  if (!instance->x)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "option --svg: instance %s has no coordinates to draw",
                    instance->name);
  uint32_t n = instance->cities;
  double x0 = instance->x[0], x1 = x0, y0 = instance->y[0], y1 = y0;
  for (uint32_t i = 1; i < n; ++i) {
    x0 = fmin(x0, instance->x[i]);
    x1 = fmax(x1, instance->x[i]);
    y0 = fmin(y0, instance->y[i]);
    y1 = fmax(y1, instance->y[i]);
  }
  double span = fmax(fmax(x1 - x0, y1 - y0), 1e-9), scale = 780.0 / span;
  /* The text's band above the drawing, a line every `pitch` pixels, and a
   * width that holds a line of about 36 characters. */
  const double pitch = 20;
  int text_lines = optimum > 0 ? 3 : 2;
  double band = pitch * text_lines + 8;
  double width = fmax((x1 - x0) * scale + 20, 300);
  double height = (y1 - y0) * scale + 20 + band;
  double dot = n > 5000 ? 0.6 : n > 500 ? 1.2 : 2.5;
  char title[6 * sizeof instance->name];
  xml_escape(title, sizeof title, instance->name);
  size_t capacity = (size_t)n * 110 + 2 * sizeof title + 1024, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  used += (size_t)snprintf(
      text, capacity,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
      "<title>%s: %u cities, tour length %lld</title>\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<g font-family=\"sans-serif\" font-size=\"15\" fill=\"#222\">\n"
      "<text x=\"10\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n"
      "<text x=\"10\" y=\"%.0f\">length %lld</text>\n",
      width, height, width, height, title, n, (long long)length, pitch, title,
      2 * pitch, (long long)length);
  if (optimum > 0)
    used += (size_t)snprintf(text + used, capacity - used,
                             "<text x=\"10\" y=\"%.0f\">gap %.2f%% (optimum "
                             "%lld)</text>\n",
                             3 * pitch, gap, (long long)optimum);
  used += (size_t)snprintf(text + used, capacity - used,
                           "</g>\n<polygon fill=\"none\" stroke=\"#1f5fbf\" "
                           "stroke-width=\"%.2f\" points=\"",
                           dot * 0.6);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t c = tour[i];
    used += (size_t)snprintf(text + used, capacity - used, "%.1f,%.1f ",
                             (instance->x[c] - x0) * scale + 10,
                             (y1 - instance->y[c]) * scale + 10 + band);
  }
  used += (size_t)snprintf(text + used, capacity - used,
                           "\"/>\n<g fill=\"#c0392b\">\n");
  for (uint32_t c = 0; c < n; ++c)
    used += (size_t)snprintf(text + used, capacity - used,
                             "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n",
                             (instance->x[c] - x0) * scale + 10,
                             (y1 - instance->y[c]) * scale + 10 + band, dot);
  used += (size_t)snprintf(text + used, capacity - used, "</g>\n</svg>\n");
  ck_status status = ck__file_write_atomic(path, text, used);
  free(text);
  return status;
}

/* --plot: the best length at each improvement, held until the next and
 * to the run's end, over its seconds; the iterations along the top. */
static ck_status write_plot(const aco_job *job, const ck_aco *aco,
                            const ck_result *result,
                            const ck_aco_report *report) {
  const ck_aco_trace_point *points;
  size_t count;
  ck_status status = ck_aco_get_trace(aco, &points, &count);
  if (status)
    return status;
  /* A row a point: seconds, iteration, length; and the run's end. */
  double *rows = malloc((count + 1) * 3 * sizeof *rows);
  if (!rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s",
                    job->plot);
  for (size_t i = 0; i < count; ++i) {
    rows[3 * i] = points[i].time_s;
    rows[3 * i + 1] = (double)points[i].iteration;
    rows[3 * i + 2] = (double)points[i].length;
  }
  rows[3 * count] = report->wall_s;
  rows[3 * count + 1] = (double)report->iterations;
  rows[3 * count + 2] = (double)report->best_length;
  const ck__plot_series series = {.name = "best so far",
                                  .axis = "tour length",
                                  .x = rows,
                                  .y = rows + 2,
                                  .count = count,
                                  .stride = 3,
                                  .steps = 1,
                                  .until = report->wall_s};
  char what[160], details[300];
  snprintf(what, sizeof what, "%s, %u cities", job->instance.name,
           job->instance.cities);
  int used = snprintf(details, sizeof details,
                      "%s · %s · local search %s · %u ants · %llu "
                      "iterations in %.3g s",
                      ck__field_word_of(&ck__aco_fields[CK__ACO_ALGORITHM],
                                        job->config.algorithm),
                      report->method == CK_ACO_FOCUSED ? "focused" : "classic",
                      ck__field_word_of(&ck__aco_fields[CK__ACO_LOCAL_SEARCH],
                                        job->config.local_search),
                      report->ants, (unsigned long long)report->iterations,
                      report->wall_s);
  if (job->config.optimum && used > 0 && (size_t)used < sizeof details)
    snprintf(details + used, sizeof details - (size_t)used,
             " · gap %.2f%% to %lld", report->gap,
             (long long)job->config.optimum);
  const ck__plot plot = {.result = result,
                         .what = what,
                         .details = details,
                         .x_label = "time (s)",
                         .top_label = "iteration",
                         .top_x = rows,
                         .top_value = rows + 1,
                         .top_count = count + 1,
                         .top_stride = 3,
                         .series = &series,
                         .series_count = 1};
  status = ck__plot_write(job->plot, &plot);
  free(rows);
  return status;
}

/* The run's result: the best tour's length, its times and throughput,
 * and its metrics; a warning logged where the best tour is shorter than
 * the optimum given. */
static ck_status fill_result(ck_result *result, const aco_job *job,
                             const ck_aco_report *report, int64_t length,
                             const ck_run_options *options) {
  ck_status status = CK_OK;
  result->best = (double)length;
  snprintf(result->best_name, sizeof result->best_name, "tour_length");
  result->wall_s = report->wall_s;
  result->kernel_s = report->kernel_s;
  result->throughput = report->tours_per_s;
  snprintf(result->throughput_unit, sizeof result->throughput_unit, "tours/s");
  ck__result_metric(result, "cities", job->instance.cities, "");
  if (job->config.optimum) {
    ck__result_metric(result, "optimum", (double)job->config.optimum, "");
    ck__result_metric(result, "gap_percent", report->gap, "%");
    /* A valid tour shorter than the optimum given proves that optimum
     * wrong for this instance (another instance's, or a typing slip); the
     * run stands, and its negative gap is explained. */
    if (length < job->config.optimum && options && options->log) {
      char line[300];
      snprintf(line, sizeof line,
               "warning: the best tour, %lld, is shorter than the optimum "
               "given, %lld: that is not %s's optimum",
               (long long)length, (long long)job->config.optimum,
               job->instance.name);
      options->log(options->log_user, line);
    }
  }
  ck__result_metric(result, "iterations", (double)report->iterations, "");
  ck__result_metric(result, "best_iteration", (double)report->best_iteration,
                    "");
  ck__result_metric(result, "best_time_s", report->best_time_s, "s");
  ck__result_metric(result, "ants", report->ants, "");
  CK_TRY(ck__result_option_number(result, "ants", report->ants));
  ck__result_metric(result, "candidates", report->candidates, "");
  ck__result_metric(result, "focused", report->method == CK_ACO_FOCUSED, "");
  ck__result_metric(result, "restarts", (double)report->restarts, "");
  ck__result_metric(result, "setup_s", report->setup_s, "s");
  snprintf(result->stopped_by, sizeof result->stopped_by, "%s",
           ck__stop_name(report->stopped_by, "iterations"));
fail:
  return status;
}

static ck_status aco_prepare(const ck_param *params, size_t count,
                             const ck_run_options *options, void *job) {
  return options_parse(params, count, options, options && options->spread, job);
}

static void aco_release(void *job) {
  ck_tsp_free(&((aco_job *)job)->instance);
}

static ck_status aco_run(const void *prepared, const ck_device *device,
                         const ck_param *params, size_t count,
                         const ck_run_options *options, ck_result *result) {
  ck_status status = CK_OK;
  const aco_job *job = prepared;
  assert(options); /* the framework's, or its defaults */
  (void)params;    /* read into the job */
  (void)count;
  /* The run's own progress over the reading's. */
  ck_aco_config config = job->config;
  config.progress = options->progress;
  config.progress_user = options->progress_user;
  ck_aco *aco = NULL;
  uint32_t *tour = NULL;
  ck_aco_report report;
  /* What the ACO cannot hold of a well-formed instance (a GEO or EXPLICIT
   * one too large for its matrix) is named by its file. */
  const ck_spread *spread = options->spread;
  status = spread ? ck_aco_create_spread(spread, &job->instance, &config, &aco)
                  : ck_aco_create(device, &job->instance, &config, &aco);
  if (status == CK_ERROR_UNSUPPORTED)
    CK_FAIL_PREFIX(status, "%s: ", job->path);
  CK_TRY(status);
  CK_TRY(ck_aco_run(aco, &report));
  tour = malloc((size_t)job->instance.cities * sizeof *tour);
  if (!tour)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  int64_t length;
  CK_TRY(ck_aco_get_best(aco, &length, tour));
  /* A spread run's outputs are written once, by rank 0. */
  int writes = ck__aco_spread_rank(ck__aco_spread_of(aco)) == 0;
  if (job->tour_out && writes)
    CK_TRY_OUTPUT("tour-out",
                  ck_tsp_tour_save(job->tour_out, job->instance.name, tour,
                                   job->instance.cities, length));
  if (job->trace && writes)
    CK_TRY_OUTPUT("trace", write_trace(job->trace, aco));
  if (options->spread)
    CK_TRY(ck__aco_spread_report(ck__aco_spread_of(aco), result));
  if (job->svg && writes)
    CK_TRY_OUTPUT("svg", write_svg(job->svg, &job->instance, tour, length,
                                   job->config.optimum, report.gap));
  CK_TRY(fill_result(result, job, &report, length, options));
  if (job->plot && writes)
    CK_TRY_OUTPUT("plot", write_plot(job, aco, result, &report));
fail:
  free(tour);
  ck_aco_destroy(aco);
  return status;
}

/* ---- benchmark sizes and the cost model (docs/aco.md, "Cost model") ---- */

/* The classic method on every rung, so that the rungs run one algorithm
 * (auto would focus the largest on a CPU of many cores). */
#define ACO_RUNG(instance)                                                     \
  {                                                                            \
    {"method", "classic"}, {"iters", "30"}, {"instance", instance}, {          \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param aco_rungs[CK_BENCH_RUNGS][4] = {
    ACO_RUNG("random:100"), ACO_RUNG("random:200"),  ACO_RUNG("random:400"),
    ACO_RUNG("random:800"), ACO_RUNG("random:1600"), ACO_RUNG("random:3200"),
    ACO_RUNG("random:6400")};
static const char *const aco_size_options[] = {
    "instance", "ants", "iters", "time", "target-gap", NULL};
static const char *const aco_size_metrics[] = {"cities", "ants", "iterations",
                                               NULL};

/* Per city of an ant: its tour, its position and its visited flag. */
enum { ACO_ANT_CITY_BYTES = 9, ACO_MAX_CANDIDATES = 32 };

/* An upper bound: the colony's arrays, the distance matrix (as the
 * largest instances without one), and the candidate edges' pheromone,
 * choice weights and uses. A TSPLIB file's size is not read here. */
static void aco_footprint(const ck_param *params, size_t count,
                          const ck_device *device, double *total,
                          double *largest) {
  const char *instance = ck__param_find(params, count, "instance");
  double n = 0;
  if (instance && strncmp(instance, "random:", 7) == 0 &&
      !ck__parse_decimal(instance + 7, instance + strlen(instance), &n))
    n = 0;
  double ants = ck__param_number(params, count, "ants", 0);
  if (!(ants > 0) && n >= 1 && n < 4294967296.0)
    ants = ck__aco_automatic_ants(device, (uint32_t)n, 0, CK_ACO_SOURCE_BEST);
  double matrix = 4.0 * n * n;
  double colony = ants * (ACO_ANT_CITY_BYTES * n + 16.0);
  *total = colony + matrix + n * ACO_MAX_CANDIDATES * 12.0 + 32.0 * n;
  *largest = matrix > 4.0 * ants * n ? matrix : 4.0 * ants * n;
}

/* A unit is one ant's tour. Its construction scans each city's
 * candidates (k of them: the candidate, its choice weight and the visited
 * flag, ACO_ANT_CITY_BYTES, and a multiply-add each) and writes its tour
 * and positions; with --ls, one pass of the local search over the
 * candidates (ACO_SEARCH_FLOPS a candidate: two distances and their
 * gain) is counted, a lower bound for the passes a search makes. Each
 * iteration evaporates and deposits the candidate edges' pheromone and
 * recomputes their choice weights (ACO_EDGE_FLOPS, ACO_EDGE_BYTES). */
enum {
  ACO_CHOICE_FLOPS = 2,
  ACO_SEARCH_FLOPS = 10,
  ACO_SEARCH_BYTES = 8,
  ACO_EDGE_FLOPS = 5,
  ACO_EDGE_BYTES = 12
};

static ck_status aco_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"cities", "candidates", "ants",
                                      "iterations", NULL};
  double values[4];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  double n = values[0], edges = values[0] * values[1];
  double iterations = values[3], tours = values[2] * values[3];
  const char *ls = ck__result_option_text(result, "ls");
  int searched = ls && strcmp(ls, "none") != 0;
  cost->units = tours;
  cost->bytes =
      tours *
          (edges * (ACO_ANT_CITY_BYTES + (searched ? ACO_SEARCH_BYTES : 0)) +
           8.0 * n) +
      iterations * edges * ACO_EDGE_BYTES;
  cost->flops =
      tours * edges * (ACO_CHOICE_FLOPS + (searched ? ACO_SEARCH_FLOPS : 0)) +
      iterations * edges * ACO_EDGE_FLOPS;
  return CK_OK;
}

static const ck__bench aco_bench = {
    .format = "cities x ants x iters",
    .rungs = {aco_rungs[0], aco_rungs[1], aco_rungs[2], aco_rungs[3],
              aco_rungs[4], aco_rungs[5], aco_rungs[6]},
    .size_options = aco_size_options,
    .footprint = aco_footprint,
    .size_metrics = aco_size_metrics,
    .cost = aco_cost};

static const ck_param aco_demo[] = {{"instance", "random:100"},
                                    {"iters", "30"}};

const ck_workload ck__aco_workload = {
    .name = "aco",
    .summary = "ant colony optimisation (MMAS, ACS) for TSPLIB instances",
    .options = aco_options,
    CK__OPTIONS_SHOWN(aco_options),
    .tolerance = 0.02,
    .check = aco_check,
    .job_bytes = sizeof(aco_job),
    .prepare = aco_prepare,
    .load = aco_load,
    .run = aco_run,
    .release = aco_release,
    .outputs = aco_outputs,
    .demo = aco_demo,
    .demo_count = sizeof aco_demo / sizeof aco_demo[0],
    .spreads = 1,
    .check_spread = aco_check_spread,
    .bench = &aco_bench,
};
