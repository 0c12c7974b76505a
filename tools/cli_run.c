/*
 * cli_run.c - clkit run: the common and workload options (compare's too),
 * then the workload on each selected device in turn; a spread run is
 * cli_spread.c's.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_mpi.h"
#include "cli_run.h"

/* ---- options ------------------------------------------------------------- */

/* A command line without a workload first: the help, else what is
 * wrong. The workload's name decides which options exist, so it comes
 * first; one given later is named rather than missed. */
static int no_workload(const char *command, int argc, char **argv) {
  if (argc >= 2 && cli_is_help_flag(argv[1])) {
    cli_print_run_help(command);
    return EXIT_OK;
  }
  const ck_workload *later = NULL;
  for (int i = 2; i < argc && !later; ++i)
    if (ck_workload_find(argv[i], &later) != CK_OK)
      later = NULL;
  const char *name = NULL;
  if (later && ck_workload_describe(later, &name, NULL, NULL) == CK_OK) {
    char message[160];
    snprintf(message, sizeof message,
             "the workload comes before its options: 'clkit %s %s ...'",
             command, name);
    return cli_usage_error(command, message);
  }
  return cli_usage_error(command, "which workload? (see 'clkit help')");
}

/* The getopt_long table of run (is_compare 0) or compare: the common
 * options, then the workload's from *first_workload on, each coded
 * CLI_OPT_WORKLOAD_BASE + its place. */
static void run_option_table(int is_compare, const ck_option *workload_options,
                             struct option *options, size_t *first_workload) {
  size_t count = 0;
  options[count++] =
      (struct option){"device", required_argument, NULL, CLI_OPT_DEVICE};
  options[count++] =
      (struct option){"devices", required_argument, NULL, CLI_OPT_DEVICES};
  options[count++] =
      (struct option){"seed", required_argument, NULL, CLI_OPT_SEED};
  options[count++] = (struct option){"json", no_argument, NULL, CLI_OPT_JSON};
  options[count++] = (struct option){"quiet", no_argument, NULL, CLI_OPT_QUIET};
  options[count++] =
      (struct option){"verbose", no_argument, NULL, CLI_OPT_VERBOSE};
  options[count++] = (struct option){"help", no_argument, NULL, CLI_OPT_HELP};
  if (!is_compare) {
    options[count++] =
        (struct option){"spread", no_argument, NULL, CLI_OPT_SPREAD};
    options[count++] =
        (struct option){"shares", required_argument, NULL, CLI_OPT_SHARES};
  } else {
    cli_bench_long_options(options, &count, 0);
  }
  *first_workload = count;
  for (const ck_option *workload_option = workload_options;
       workload_option->name && count + 1 < MAX_LONG_OPTIONS;
       ++workload_option, ++count)
    options[count] = (struct option){
        workload_option->name,
        workload_option->value_name ? required_argument : no_argument, NULL,
        CLI_OPT_WORKLOAD_BASE + (int)(count - *first_workload)};
  options[count] = (struct option){NULL, 0, NULL, 0};
}

/* An option that is not a common one: compare's shared with bench, or
 * the workload's, else unknown. -1 to go on, else an exit status. */
static int read_other_option(const char *command, char **argv, int c,
                             const struct option *options,
                             size_t first_workload, cli_run_config *config) {
  if (strcmp(command, "compare") == 0 && c >= CLI_BENCH_OPT_JSON) {
    char message[300];
    if (cli_bench_option(&config->bench, c, optarg, message, sizeof message) <
        0)
      return cli_usage_error(command, message);
    return -1;
  }
  if (c >= CLI_OPT_WORKLOAD_BASE) {
    if (config->param_count == CLI_MAX_PARAMS)
      return cli_usage_error(command, "too many options");
    ck_param *param = &config->params[config->param_count++];
    param->name =
        options[first_workload + (size_t)(c - CLI_OPT_WORKLOAD_BASE)].name;
    param->value = optarg ? optarg : "1";
    return -1;
  }
  /* Named with the workload, whose --help lists its own options. */
  char with_workload[96];
  snprintf(with_workload, sizeof with_workload, "%s %s", command, argv[1]);
  return cli_option_error(with_workload, argv + 1, c, options);
}

/* One option, as getopt_long returned it (c): -1 to go on, else an exit
 * status. */
static int read_run_option(const char *command, char **argv, int c,
                           const struct option *options, size_t first_workload,
                           cli_run_config *config) {
  switch (c) {
  case CLI_OPT_DEVICE:
  case CLI_OPT_DEVICES:
    return cli_take_selector(command, optarg, &config->selector);
  case CLI_OPT_SEED: {
    unsigned long long seed = 0;
    if (cli_parse_unsigned(optarg, &seed) != 0)
      return cli_usage_error(command, "--seed takes a whole number from 0 to "
                                      "2^64 - 1");
    config->seed = seed;
    config->seed_given = 1;
    return -1;
  }
  case CLI_OPT_JSON:
    config->json = 1;
    cli_bench_option(&config->bench, CLI_BENCH_OPT_JSON, NULL, NULL, 0);
    return -1;
  case CLI_OPT_QUIET:
    config->quiet = 1;
    return -1;
  case CLI_OPT_VERBOSE:
    config->verbose = 1;
    return -1;
  case CLI_OPT_SPREAD:
    config->spread = 1;
    return -1;
  case CLI_OPT_SHARES:
    config->shares = optarg;
    return -1;
  case CLI_OPT_HELP:
    cli_print_workload_help(command, argv[1], config->workload);
    return EXIT_OK;
  default:
    return read_other_option(command, argv, c, options, first_workload, config);
  }
}

/* What follows the options: one argument names the workload's input, for
 * the workloads that take one (e.g. 'clkit run aco FILE.tsp'); then the
 * checks of the whole. -1 to go on, else an exit status. */
static int finish_run_options(const char *command, int argc, char **argv,
                              const ck_option *workload_options,
                              cli_run_config *config) {
  if (optind + 2 == argc) {
    const char *input = NULL;
    for (const ck_option *workload_option = workload_options;
         workload_option->name; ++workload_option)
      if (strcmp(workload_option->name, "instance") == 0)
        input = workload_option->name;
    if (!input)
      return cli_unexpected(command, argv[1 + optind]);
    if (config->param_count == CLI_MAX_PARAMS)
      return cli_usage_error(command, "too many options");
    config->params[config->param_count++] = (ck_param){input, argv[1 + optind]};
  } else if (optind + 1 < argc) {
    return cli_unexpected(command, argv[argc - 1]);
  }
  if (config->shares && !config->spread)
    return cli_usage_error(command, "--shares applies only with --spread");
  /* run reads the options once, into its job (cli_run); a spread's own
   * check (cli_spread.c) makes every refusal of this one. */
  int read_later = config->spread || strcmp(command, "run") == 0;
  ck_status status = read_later
                         ? CK_OK
                         : ck_workload_check(config->workload, config->params,
                                             config->param_count);
  /* An output that cannot be written there, found before the run, is a
   * usage error too: nothing ran, and the command line must change. */
  if (status != CK_OK)
    return cli_usage_report(status);
  return -1;
}

int cli_run_parse_options(const char *command, int argc, char **argv,
                          cli_run_config *config) {
  memset(config, 0, sizeof *config);
  config->seed = 1;
  cli_bench_options_init(&config->bench);
  if (argc < 2 || argv[1][0] == '-')
    return no_workload(command, argc, argv);
  ck_status status = ck_workload_find(argv[1], &config->workload);
  if (status != CK_OK)
    return cli_usage_report(status);
  const ck_option *workload_options = NULL;
  ck_workload_describe(config->workload, NULL, NULL, &workload_options);
  struct option options[MAX_LONG_OPTIONS];
  size_t first_workload = 0;
  run_option_table(strcmp(command, "compare") == 0, workload_options, options,
                   &first_workload);
  optind = 1;
  int c;
  while ((c = cli_next_option(argc - 1, argv + 1, ":hd:", options)) != -1) {
    int exit_code =
        read_run_option(command, argv, c, options, first_workload, config);
    if (exit_code >= 0)
      return exit_code;
  }
  return finish_run_options(command, argc, argv, workload_options, config);
}

/* ---- the run ------------------------------------------------------------- */

ck_run_options cli_run_options(const cli_run_config *config,
                               cli_line_sink *sink) {
  ck_run_options options = {.seed = config->seed,
                            .seed_given = config->seed_given,
                            .progress = cli_report_progress,
                            .log = cli_print_line,
                            .log_user = sink,
                            .build = cli_status_build};
  return options;
}

int cli_run_print_result(int json, FILE *text, const ck_result *result) {
  if (!json) {
    cli_print_result(text, result);
    return EXIT_OK;
  }
  int exit_code = EXIT_OK;
  char *line = NULL;
  ck_status status = ck_result_format_json(result, &line);
  if (status != CK_OK)
    exit_code = cli_report(status);
  else
    printf("%s\n", line);
  ck_memory_free(line);
  return exit_code;
}

/* Where a run prints its own text (results, report lines): stdout,
 * unless an output of the run goes there ("--tour-out -"): then stderr,
 * so that a pipe's reader gets the output alone. --json asks for stdout
 * too, which is refused. Returns -1 to go on, else an exit code. */
static int choose_text_stream(const cli_run_config *config, FILE **text) {
  const char *option = NULL;
  ck_status status = ck_workload_find_stdout(config->workload, config->params,
                                             config->param_count, &option);
  if (status != CK_OK)
    return cli_report(status);
  *text = option ? stderr : stdout;
  if (option && config->json) {
    /* An output may go there without being named (nn's --out). */
    int named = 0;
    for (size_t i = 0; i < config->param_count; ++i)
      named |= strcmp(config->params[i].name, option) == 0;
    char message[200];
    snprintf(message, sizeof message,
             "--json and --%s%s both write to standard output; give --%s "
             "a file",
             option, named ? "" : " (not given: standard output)", option);
    return cli_usage_error("run", message);
  }
  return -1;
}

/* The job on each device at indices, one after another, each result
 * printed; the first failure stops them. */
static int run_each(const cli_run_config *config, FILE *text, ck_job *job,
                    const ck_device_set *set, const size_t *indices,
                    size_t count) {
  int exit_code = EXIT_OK;
  for (size_t k = 0; exit_code == EXIT_OK && k < count; ++k) {
    ck_result result;
    ck_status status = ck_job_run(job, &set->devices[indices[k]], &result);
    cli_status_clear();
    if (status == CK_ERROR_CANCELLED && cli_interrupted())
      return cli_report_interruption();
    if (status != CK_OK)
      return cli_report_failure(status);
    exit_code = cli_run_print_result(config->json, text, &result);
    ck_result_release(&result);
  }
  return exit_code;
}

int cli_run(int argc, char **argv) {
  cli_run_config config;
  FILE *text = stdout;
  cli_catch_interruptions();
  cli_mute_usage(cli_mpi_launched_rank() != 0);
  int exit_code = cli_run_parse_options("run", argc, argv, &config);
  if (exit_code < 0)
    exit_code = choose_text_stream(&config, &text);
  if (exit_code >= 0)
    return exit_code;
  cli_warn_if_cache_unusable();
  if (config.spread)
    return cli_run_spread(&config, text);
  /* The options read once, then the inputs the runs share, before any
   * device. A refused option is a usage error, as is an output that
   * cannot be written there: nothing ran, and the command line must
   * change. An input that cannot be read is a failure. */
  cli_line_sink sink = {config.json ? stderr : text, config.quiet, 0};
  ck_run_options options = cli_run_options(&config, &sink);
  ck_job *job = NULL;
  ck_status status = ck_job_prepare(config.workload, config.params,
                                    config.param_count, &options, &job);
  if (status != CK_OK)
    return cli_usage_report(status);
  if ((status = ck_job_load(job)) != CK_OK) {
    ck_job_free(job);
    return cli_report(status);
  }
  ck_device_set set;
  if ((status = ck_device_enumerate(&set)) != CK_OK) {
    ck_job_free(job);
    return cli_report(status);
  }
  size_t indices[CLI_MAX_DEVICES], count = 0;
  exit_code = cli_select_devices(&set, config.selector, indices, &count);
  if (exit_code == EXIT_OK &&
      (status = ck_workload_check_devices(config.workload, config.params,
                                          config.param_count, count)))
    exit_code = cli_report(status);
  cli_catch_interruptions_again();
  if (exit_code == EXIT_OK) {
    cli_status_begin(cli_status_mode_of(config.json, config.quiet),
                     config.verbose, count > 1 ? count : 0);
    exit_code = run_each(&config, text, job, &set, indices, count);
  }
  cli_status_end();
  ck_device_set_free(&set);
  ck_job_free(job);
  return exit_code;
}
