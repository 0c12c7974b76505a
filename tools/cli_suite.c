/*
 * cli_suite.c - clkit compare, bench and demo: their options, and the
 * devices they run on. compare and bench hand the measurement to
 * cli_bench.c; demo runs each workload briefly, checked against ref.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_run.h"

/* The measurement of bench and compare (cli_bench.c) over the devices
 * selector picks (all by default), with its outputs checked first. */
static int run_measurement(cli_bench_job *job, const char *selector, int quiet,
                           int verbose) {
  char message[600];
  if (cli_bench_options_check(job->options, message, sizeof message) < 0)
    return cli_usage_error(job->command, message);
  ck_device_set set;
  cli_warn_if_cache_unusable();
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[CLI_MAX_DEVICES], count = 0;
  int exit_code =
      cli_select_devices(&set, selector ? selector : "all", indices, &count);
  job->first = count ? indices[0] : 0;
  /* compare's table has ref's row first, as the oracle, whether named or
   * not (set.devices[0] is ref); x first stays over the first listed. */
  if (exit_code == EXIT_OK && strcmp(job->command, "compare") == 0) {
    size_t kept = 0;
    for (size_t k = 0; k < count; ++k)
      if (set.devices[indices[k]].backend != CK_BACKEND_REF)
        indices[kept++] = indices[k];
    if (kept == CLI_MAX_DEVICES)
      --kept;
    memmove(indices + 1, indices, kept * sizeof *indices);
    indices[0] = 0;
    count = kept + 1;
  }
  cli_catch_interruptions_again();
  if (exit_code == EXIT_OK) {
    if (set.opencl_status != CK_OK && job->options->format == CLI_FORMAT_TEXT &&
        strcmp(job->command, "bench") == 0)
      printf("note: %s\n", set.opencl_message);
    /* The table stands for the log lines; warnings still show. */
    cli_line_sink sink = {stderr, 1, 0};
    job->run.log = cli_print_line;
    job->run.log_user = &sink;
    job->run.progress = cli_report_progress;
    job->run.build = cli_status_build;
    job->set = &set;
    job->indices = indices;
    job->count = count;
    job->every_device = cli_every_device_selected(selector);
    job->status =
        cli_status_mode_of(job->options->format != CLI_FORMAT_TEXT, quiet);
    job->verbose = verbose;
    job->stopped = cli_stop_status;
    exit_code = cli_bench_run(job);
  }
  ck_device_set_free(&set);
  return exit_code;
}

int cli_compare(int argc, char **argv) {
  cli_run_config config;
  cli_catch_interruptions();
  int exit_code = cli_run_parse_options("compare", argc, argv, &config);
  if (exit_code >= 0)
    return exit_code;
  /* Options that set the size run as given on every device. */
  const char *size_option = NULL;
  ck_bench_find_size_option(config.workload, config.params, config.param_count,
                            &size_option);
  if (size_option && config.bench.rung >= 0) {
    char message[200];
    snprintf(message, sizeof message,
             "--size and --%s both set the run's size; give one", size_option);
    return cli_usage_error("compare", message);
  }
  cli_bench_job job = {
      .command = "compare",
      .argc = argc,
      .argv = argv,
      .workloads = &config.workload,
      .workload_count = 1,
      .params = config.params,
      .param_count = config.param_count,
      .given_size = size_option != NULL,
      .options = &config.bench,
      .run = {.seed = config.seed, .seed_given = config.seed_given}};
  return run_measurement(&job, config.selector, config.quiet, config.verbose);
}

/* ---- bench's and demo's options ------------------------------------------ */

/* bench's and demo's help (brief: demo's). */
static void print_suite_help(const char *command, int brief) {
  if (!brief) {
    printf("usage: clkit bench [-d|--device|--devices SEL] [options]\n\n"
           "Runs each workload on the selected devices at a size that fills\n"
           "each device, checked against ref at ref's size; prints each\n"
           "row's rate, GB/s and GFLOP/s by the workload's cost model, the\n"
           "percent of the device's peak and the speed-ups.\n\n"
           "  -d, --device, --devices SEL\n"
           "                           the devices (default: all)\n"
           "%s%s"
           "      --json               print the report as one JSON object\n"
           "      --quiet              no progress line on a terminal\n"
           "  -h, --help               this text\n",
           cli_bench_workloads_help, cli_bench_help);
    return;
  }
  printf("usage: clkit %s [-d|--device|--devices SEL] [--json] "
         "[--quiet] [--verbose]\n\n%s\n\n"
         "  -d, --device, --devices SEL\n"
         "                 %s\n"
         "      --json     print the table as one JSON object\n"
         "      --quiet    no progress lines\n"
         "      --verbose  show what device compilers wrote as kernels built\n"
         "  -h, --help     this text\n",
         command,
         "Runs each workload briefly on the default device and checks it "
         "against ref.",
         "the device (default: CLKIT_DEVICE, else the fastest)");
}

/* The options of bench and demo (brief): -1 to go on, else an exit
 * status (0 after --help). */
typedef struct suite_options {
  const char *selector;
  int json, quiet, verbose;
  cli_bench_options bench;
} suite_options;

static int parse_suite_options(const char *command, int argc, char **argv,
                               int brief, suite_options *suite) {
  memset(suite, 0, sizeof *suite);
  cli_bench_options_init(&suite->bench);
  struct option options[16] = {
      {"device", required_argument, NULL, CLI_OPT_DEVICE},
      {"devices", required_argument, NULL, CLI_OPT_DEVICES},
      {"json", no_argument, NULL, CLI_OPT_JSON},
      {"quiet", no_argument, NULL, CLI_OPT_QUIET},
      {"verbose", no_argument, NULL, CLI_OPT_VERBOSE},
      {"help", no_argument, NULL, CLI_OPT_HELP}};
  size_t option_count = 6;
  if (!brief)
    cli_bench_long_options(options, &option_count, 1);
  options[option_count] = (struct option){NULL, 0, NULL, 0};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case CLI_OPT_DEVICE:
    case CLI_OPT_DEVICES:
      if (cli_take_selector(command, optarg, &suite->selector) >= 0)
        return EXIT_USAGE;
      break;
    case CLI_OPT_JSON:
      suite->json = 1;
      cli_bench_option(&suite->bench, CLI_BENCH_OPT_JSON, NULL, NULL, 0);
      break;
    case CLI_OPT_QUIET:
      suite->quiet = 1;
      break;
    case CLI_OPT_VERBOSE:
      suite->verbose = 1;
      break;
    case CLI_OPT_HELP:
      print_suite_help(command, brief);
      return EXIT_OK;
    default: {
      char message[300];
      int read = brief ? 0
                       : cli_bench_option(&suite->bench, c, optarg, message,
                                          sizeof message);
      if (read < 0)
        return cli_usage_error(command, message);
      if (read == 0)
        return cli_option_error(command, argv, c, options);
    }
    }
  }
  if (optind < argc)
    return cli_unexpected(command, argv[optind]);
  return -1;
}

/* ---- bench --------------------------------------------------------------- */

/* bench's --workloads: the workloads listed, in their order, each once;
 * -1 to go on, else an exit status. */
static int choose_workloads(const char *list, const ck_workload **chosen,
                            size_t capacity, size_t *count) {
  *count = 0;
  for (const char *at = list; *at;) {
    size_t length = strcspn(at, ",");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(length < 63 ? length : 63), at);
    const ck_workload *workload = NULL;
    if (ck_workload_find(name, &workload) != CK_OK) {
      const char *message = "";
      ck_error_get_last(&message);
      char text[600];
      snprintf(text, sizeof text, "--workloads: %s", message);
      return cli_usage_error("bench", text);
    }
    int seen = 0;
    for (size_t i = 0; i < *count; ++i)
      seen |= chosen[i] == workload;
    if (!seen && *count < capacity)
      chosen[(*count)++] = workload;
    at += length;
    if (*at == ',')
      ++at;
  }
  if (*count == 0)
    return cli_usage_error("bench", "--workloads: name one workload or more");
  return -1;
}

int cli_bench(int argc, char **argv) {
  suite_options suite;
  int exit_code = parse_suite_options("bench", argc, argv, 0, &suite);
  if (exit_code >= 0)
    return exit_code;
  cli_catch_interruptions();
  /* Every workload, or --workloads, on every selected device. */
  const ck_workload *const *every;
  const ck_workload *chosen[CLI_MAX_DEVICES];
  size_t count = 0;
  ck_workload_list(&every, &count);
  if (suite.bench.only) {
    exit_code =
        choose_workloads(suite.bench.only, chosen, CLI_MAX_DEVICES, &count);
    if (exit_code >= 0)
      return exit_code;
    every = chosen;
  }
  cli_bench_job job = {.command = "bench",
                       .argc = argc,
                       .argv = argv,
                       .workloads = every,
                       .workload_count = count,
                       .options = &suite.bench,
                       .run = {.seed = 1}};
  return run_measurement(&job, suite.selector, suite.quiet, suite.verbose);
}

/* ---- demo ---------------------------------------------------------------- */

/* The suite table's head: in text, the device (demo), a note where
 * OpenCL could not be read, and the column titles; in JSON, the opening
 * of the object. */
static void print_suite_head(const char *command, const ck_device_set *set,
                             const size_t *indices, int brief, int json) {
  if (json) {
    printf("{\"%s\":[", command);
    return;
  }
  if (brief)
    printf("clkit demo on %s (%s)\n", set->devices[indices[0]].id,
           set->devices[indices[0]].name);
  if (set->opencl_status != CK_OK)
    printf("note: %s\n", set->opencl_message);
  printf("%-10s %-9s %12s %10s %14s %-16s %s\n", "workload", "device", "result",
         "wall_s", "throughput", "unit", "check");
}

/* One row of the suite: the workload on the device at *at (briefly
 * where brief), and ref as its oracle, printed. Returns an exit code for
 * what stops the table; *row_failed is set by a row that fails or
 * disagrees, which does not. */
static int run_suite_row(const ck_workload *workload, const ck_device_set *set,
                         const size_t *at, int brief, int json,
                         int every_device, int *first, int *row_failed) {
  ck_result results[2];
  size_t produced = 0;
  ck_run_options run = {
      .seed = 1, .progress = cli_report_progress, .build = cli_status_build};
  int is_ref = set->devices[*at].backend == CK_BACKEND_REF;
  const ck_param *params = NULL;
  size_t param_count = 0;
  if (brief)
    ck_workload_run_demo(workload, &params, &param_count);
  ck_status status = ck_compare_run(workload, set, at, 1, is_ref, params,
                                    param_count, &run, results, 2, &produced);
  cli_status_clear();
  if (cli_interrupted() || status != CK_OK) {
    int exit_code =
        cli_interrupted() ? cli_report_interruption() : cli_report(status);
    for (size_t i = 0; i < produced; ++i)
      ck_result_release(&results[i]);
    return exit_code;
  }
  const ck_result *result = &results[produced - 1];
  if (json) {
    char *text = NULL;
    if (ck_result_format_json(result, &text) == CK_OK) {
      printf("%s%s", *first ? "" : ",", text);
      ck_memory_free(text);
    }
    *first = 0;
  } else if (result->status != CK_OK) {
    printf("%-10s %-9s %s: %s\n", result->workload, result->device,
           cli_row_skipped(result, every_device) ? "skipped" : "failed",
           result->error);
  } else {
    printf("%-10s %-9s %12.6g %10.4f %14.4g %-16s %s\n", result->workload,
           result->device, result->best, result->wall_s, result->throughput,
           result->throughput_unit,
           is_ref           ? "(is ref)"
           : result->agrees ? "agrees with ref"
                            : "DISAGREES with ref");
  }
  if (!cli_row_skipped(result, every_device) &&
      (result->status != CK_OK || (!is_ref && !result->agrees)))
    *row_failed = 1;
  for (size_t i = 0; i < produced; ++i)
    ck_result_release(&results[i]);
  return EXIT_OK;
}

/* Begins demo's table: its head, and the status line over its runs, each
 * workload on each device with ref before each other device as its
 * oracle. */
static void begin_demo(const ck_device_set *set, const size_t *indices,
                       size_t count, size_t workload_count,
                       const suite_options *suite) {
  print_suite_head("demo", set, indices, 1, suite->json);
  cli_catch_interruptions();
  size_t runs = 0;
  for (size_t k = 0; k < count; ++k)
    runs += set->devices[indices[k]].backend == CK_BACKEND_REF ? 1 : 2;
  cli_status_begin(cli_status_mode_of(suite->json, suite->quiet),
                   suite->verbose, runs * workload_count);
}

int cli_demo(int argc, char **argv) {
  suite_options suite;
  int exit_code = parse_suite_options("demo", argc, argv, 1, &suite);
  if (exit_code >= 0)
    return exit_code;
  ck_device_set set;
  cli_warn_if_cache_unusable();
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[CLI_MAX_DEVICES], count = 0;
  /* The default device, or the one named. */
  exit_code = cli_select_devices(&set, suite.selector, indices, &count);
  const ck_workload *const *workloads;
  size_t workload_count = 0;
  ck_workload_list(&workloads, &workload_count);
  int first = 1, row_failed = 0;
  if (exit_code == EXIT_OK)
    begin_demo(&set, indices, count, workload_count, &suite);
  /* A row that fails or disagrees does not stop the table: the other
   * workloads and devices still run, and the exit status says it failed.
   * Only an interruption or an error outside the rows stops it. */
  for (size_t w = 0; exit_code == EXIT_OK && w < workload_count; ++w)
    for (size_t k = 0; exit_code == EXIT_OK && k < count; ++k)
      exit_code = run_suite_row(workloads[w], &set, &indices[k], 1, suite.json,
                                0, &first, &row_failed);
  cli_status_end();
  if (suite.json && count)
    printf("]}\n");
  ck_device_set_free(&set);
  return exit_code == EXIT_OK && row_failed ? EXIT_FAILURE_RUN : exit_code;
}
