/*
 * clkit.c - the clkit command: parses options and calls the public API.
 * Exit status: 0 success, 1 failure, 2 usage error, 128 + N for a run
 * that signal N (SIGINT, SIGTERM, SIGHUP, SIGPIPE) stopped or ended.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_bench.h"
#include "cli_mpi.h"

enum { MAX_DEVICES = 64, MAX_PARAMS = 128 };

/* Option codes of the common options; workload options come after. */
enum {
  OPT_HELP = 'h',
  OPT_DEVICE = 'd',
  OPT_JSON = 1000,
  OPT_QUIET,
  OPT_VERBOSE,
  OPT_SEED,
  OPT_DEVICES,
  OPT_PROBE,
  OPT_ASSEMBLED,
  OPT_SPREAD,
  OPT_SHARES,
  OPT_WORKLOAD_BASE = 2000
};

static const char *program_name = "clkit";

/* The exit status of a failure: 2 for a usage error, else 1. */
static int exit_code_of(ck_status status) {
  return status == CK_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_RUN;
}

int cli_report(ck_status status) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "%s: %s\n", program_name,
          message && *message ? message : "failed");
  return exit_code_of(status);
}

/* 1 in the processes of an MPI launcher other than its rank 0: each parses
 * the same arguments, and rank 0 alone says what is wrong with them. */
static int usage_muted;

static int usage_error(const char *command, const char *message) {
  if (!usage_muted)
    fprintf(stderr, "%s %s: %s\nTry '%s %s --help'.\n", program_name, command,
            message, program_name, command);
  return EXIT_USAGE;
}

/* getopt's complaint in words; opterr is off so getopt itself stays quiet.
 * code is what getopt_long returned, options its table. */
static int option_error(const char *command, char **argv, int code,
                        const struct option *options) {
  char message[256];
  cli_option_message(message, sizeof message, code, argv, optind, options);
  return usage_error(command, message);
}

/* A usage error that the library described. */
static int usage_report(ck_status status) {
  if (!usage_muted)
    cli_report(status);
  return EXIT_USAGE;
}

/* Whether an argument asks for help: --help or -h. */
static int is_help_flag(const char *argument) {
  return strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0;
}

/* An argument no command takes, named. */
static int unexpected(const char *command, const char *argument) {
  char message[200];
  snprintf(message, sizeof message, "unexpected argument '%.160s'", argument);
  return usage_error(command, message);
}

/* Help lines end by this column, as a terminal's and a man page's do. */
enum { HELP_WIDTH = 80 };

/* A blank that print_wrapped prints but does not break at. */
#define UNBROKEN_BLANK '\x1f'

/* Prints "  LEFT" and then text from column `column` on, wrapped at
 * HELP_WIDTH under that column; a LEFT too wide for it stands alone. */
static void print_wrapped(FILE *out, const char *left, int column,
                          const char *text) {
  int used = fprintf(out, "  %s", left);
  if (used < 0 || used >= column) {
    fputc('\n', out);
    used = 0;
  }
  size_t room = (size_t)(HELP_WIDTH - column);
  for (const char *at = text; *at;) {
    size_t length = strlen(at);
    if (length > room) {
      /* The last blank that fits, else the end of a word too long. */
      length = room;
      while (length > 0 && at[length] != ' ')
        --length;
      if (length == 0)
        length = strcspn(at, " ");
    }
    fprintf(out, "%*s", column - used, "");
    for (size_t k = 0; k < length; ++k)
      fputc(at[k] == UNBROKEN_BLANK ? ' ' : at[k], out);
    fputc('\n', out);
    used = 0;
    at += length;
    while (*at == ' ')
      ++at;
  }
  if (used)
    fputc('\n', out);
}

static void print_workloads(FILE *out) {
  const ck_workload *const *workloads;
  size_t count = 0;
  ck_workload_list(&workloads, &count);
  for (size_t i = 0; i < count; ++i) {
    const char *name, *summary;
    ck_workload_describe(workloads[i], &name, &summary, NULL);
    print_wrapped(out, name, 23, summary);
  }
}

static void print_main_help(FILE *out) {
  fprintf(
      out,
      "usage: clkit <command> [options]\n"
      "\n"
      "Commands:\n"
      "  devices              list devices (ref, ocl:P.D, cuda:N)\n"
      "  peak                 measure each device's bandwidth, flops and "
      "latency\n"
      "  run <workload>       run a workload on the selected device(s)\n"
      "  compare <workload>   run one configuration on several devices\n"
      "  bench                measure each workload on the selected "
      "device(s)\n"
      "  kernels [list|show]  list or print the embedded OpenCL C sources\n"
      "  cache [info|clear]   show or empty the kernel binary cache\n"
      "  gen lsq              write synthetic least-squares data\n"
      "  tsp eval|info        check a TSPLIB tour's length, describe an "
      "instance\n"
      "  demo                 run each workload briefly on the default "
      "device\n"
      "  version              print the version\n"
      "  help [command]       this text, or a command's options\n"
      "\n"
      "Device selectors (--device, or CLKIT_DEVICE): an id (ref, ocl:0.1,\n"
      "cuda:0), ocl:P for a whole platform, opencl or cuda for every device\n"
      "of that API, gpu, cpu, accelerator, all, or a case-insensitive part of\n"
      "a vendor, platform or device name; several separated by commas. The\n"
      "default is CLKIT_DEVICE's, else the fastest device (by the peaks that\n"
      "clkit peak measured, where it did), for run and demo; every device for\n"
      "compare, bench, peak and devices --probe.\n"
      "\n"
      "Workloads:\n");
  print_workloads(out);
}

/* Two or three commands each workload's help ends with, as the docs
 * show them (tests/test_cli.c finds each in README.md or docs/). */
static const struct {
  const char *workload;
  const char *commands[4]; /* NULL-ended */
} workload_examples[] = {
    {"selfcheck",
     {"clkit run selfcheck --device pocl --count 4e6 --passes 8",
      "clkit run selfcheck --json", "clkit compare selfcheck --devices all"}},
    {"pso",
     {"clkit run pso --fn rastrigin --dim 30 --particles 4096 --iters 2000",
      "clkit run pso --fn lsq --data data.csv --out fit.txt",
      "clkit run pso --objective my.cl --lo -5 --hi 5 --dim 8 --trace "
      "best.csv"}},
    {"ga",
     {"clkit run ga --fn rastrigin --dim 32 --islands 256 --island-size 64",
      "clkit run ga --fn sphere --target 1e-8 --trace ga.csv --trace-islands",
      "clkit compare ga --fn ackley --dim 20 --devices all"}},
    {"aco",
     {"clkit run aco examples/data/pr1002.tsp --time 10 --tour-out "
      "best.tour",
      "clkit run aco eil51.tsp --optima optima.txt --target-gap 0",
      "clkit run aco random:1000 --iters 100"}},
    {"nn",
     {"clkit compare nn --train spirals:2000 --epochs 5",
      "clkit run nn --load model.ckn --predict rows.csv --out classes.txt"}},
    {"gas",
     {"clkit run gas --particles 1000 --rho 0.7 --T 1.0 --steps 10000",
      "clkit run gas --restart run.ckg --steps 1000",
      "clkit compare gas --particles 2000 --steps 500"}},
};

/* A workload's options, each help wrapped with its default, then its
 * examples. */
static void print_workload_options(FILE *out, const ck_workload *workload) {
  const char *name;
  const ck_option *options;
  ck_workload_describe(workload, &name, NULL, &options);
  for (const ck_option *option = options; option->name; ++option) {
    char left[64], text[2048];
    snprintf(left, sizeof left, "--%s%s%s", option->name,
             option->value_name ? " " : "",
             option->value_name ? option->value_name : "");
    /* "(default X)" stays on one line: \x1f is UNBROKEN_BLANK. */
    snprintf(text, sizeof text, "%s%s%s%s", option->help,
             option->default_value ? " (default\x1f" : "",
             option->default_value ? option->default_value : "",
             option->default_value ? ")" : "");
    print_wrapped(out, left, 27, text);
  }
  for (size_t i = 0; i < sizeof workload_examples / sizeof workload_examples[0];
       ++i) {
    if (strcmp(workload_examples[i].workload, name) != 0)
      continue;
    fputs("\nExamples:\n", out);
    for (const char *const *command = workload_examples[i].commands; *command;
         ++command)
      fprintf(out, "  %s\n", *command);
  }
}

static const char version_help[] =
    "usage: clkit version\n\nPrints the library's version.\n";

/* The device options of run and compare, then the options both share. */
static const char run_device_help[] =
    "  -d, --device, --devices SEL\n"
    "                           device selector (default: CLKIT_DEVICE, else\n"
    "                           the fastest device); several run one after\n"
    "                           another\n"
    "      --spread             one run shared by the selected devices (by\n"
    "                           default the fastest device and its like), and\n"
    "                           by the processes of mpirun\n"
    "      --shares W,W,...     with --spread: each device's share of the\n"
    "                           work (default: by each one's measured speed)\n";
static const char compare_device_help[] =
    "  -d, --device, --devices SEL\n"
    "                           devices to compare (default: all); ref always\n"
    "                           runs as the oracle. Over all devices, one "
    "that\n"
    "                           refuses the run is skipped; one named fails "
    "it\n";
static const char common_run_help[] =
    "      --seed N             the run's seed, used on every backend "
    "(default 1)\n"
    "      --json               print the result as one JSON object a line\n"
    "      --quiet              no progress or log lines but warnings\n"
    "      --verbose            show what device compilers wrote as kernels\n"
    "                           built (else shown only when a build fails)\n"
    "  -h, --help               this text\n";

/* `clkit run --help` and `clkit help run` (compare alike): the options
 * every workload takes, and the workloads. */
static void print_run_help(const char *command) {
  int is_compare = strcmp(command, "compare") == 0;
  printf("usage: clkit %s <workload> [options]\n'clkit %s <workload> "
         "--help' lists a workload's options.\n\nCommon options:\n%s%s%s\n"
         "Workloads:\n",
         command, command, is_compare ? compare_device_help : run_device_help,
         is_compare ? cli_bench_help : "", common_run_help);
  print_workloads(stdout);
}

/* ---- interruption -------------------------------------------------------- */

/* The signal that asked the runs to stop, or 0. */
static volatile sig_atomic_t interruption;

/* Seconds a SIGTERM or SIGHUP waits for the run's next check. */
enum { TERMINATION_GRACE_S = 10 };

/* Ends the process by the signal's default action, once the temporaries
 * of the outputs being written are gone (the outputs keep their old
 * content): async-signal-safe. Raised inside its own handler, the signal
 * is blocked until that handler returns, and then ends the process. */
static void end_now(int signal_number) {
  ck_file_remove_temporaries();
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

/* A SIGTERM's or SIGHUP's grace has run out: it ends the process as that
 * signal. */
static void grace_over(int signal_number) {
  (void)signal_number;
  end_now(interruption);
}

/* Notes the signal and says so, with write() and alarm() alone
 * (async-signal-safe); a second signal ends the process at once. A
 * SIGTERM comes from a supervisor that expects an end, and a check may be
 * far off (a long build, a hung kernel): SIGALRM ends the process if the
 * run has not stopped by then. */
static void note_interruption(int signal_number) {
  static const char notice[] =
      "\nclkit: stopping at the run's next check (once more to end it now)\n";
  if (interruption) {
    end_now(signal_number);
    return;
  }
  interruption = signal_number;
  if (signal_number == SIGTERM || signal_number == SIGHUP) {
    signal(SIGALRM, grace_over);
    alarm(TERMINATION_GRACE_S);
  }
  ssize_t written = write(cli_stderr_fd, notice, sizeof notice - 1);
  (void)written;
}

/* Under MPI, "clkit: rank R of N: ended by " (set once MPI has started),
 * which a stop signal's message begins with; empty outside MPI. */
static char rank_ending[64];
/* Under MPI, whether this rank is one that writes no outputs (not rank 0). */
static int rank_writes_nothing;

/* Appends text to line (of size bytes, used so far) as far as it fits:
 * async-signal-safe, as string functions need not be. */
static void append(char *line, size_t size, size_t *used, const char *text) {
  while (*text && *used < size)
    line[(*used)++] = *text++;
}

/* A rank of an MPI job ends at once on SIGINT, SIGTERM or SIGHUP: the
 * others may wait for it in the exchange, which never returns, and the
 * launcher ends them all within seconds (Open MPI's mpirun: SIGTERM, then
 * SIGKILL a second later). The temporaries go first, then one line says
 * so, with write() alone (async-signal-safe); the signal then ends the
 * process. Open MPI 4.1's mpirun sends its SIGKILL as soon as one rank it
 * sent SIGTERM has ended: the ranks that write nothing wait 0.2 s, so
 * that rank 0 has removed its temporaries by then. */
static void end_rank(int signal_number) {
  char line[160];
  size_t used = 0;
  ck_file_remove_temporaries();
  if (rank_writes_nothing) {
    struct timespec pause = {0, 200000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
      ;
  }
  append(line, sizeof line, &used, rank_ending);
  append(line, sizeof line, &used,
         signal_number == SIGINT    ? "SIGINT"
         : signal_number == SIGTERM ? "SIGTERM"
                                    : "SIGHUP");
  append(line, sizeof line, &used, "; outputs left as they were\n");
  ssize_t written = write(cli_stderr_fd, line, used);
  (void)written;
  end_now(signal_number);
}

/* Gives a signal to handler, except a signal ignored on entry (a shell's
 * background job, nohup), which stays so. */
static void handle_signal(int signal_number, void (*handler)(int)) {
  struct sigaction action, before;
  if (sigaction(signal_number, NULL, &before) != 0 ||
      before.sa_handler == SIG_IGN)
    return;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, NULL);
}

/* Gives SIGINT, SIGTERM and SIGHUP (a terminal closed) to handler. The
 * two signals that would otherwise kill the process while it writes, and
 * leave its temporaries behind, are taken too: SIGPIPE (a reader gone,
 * as with `| head`) ends the process as it would by default, once the
 * temporaries are gone; SIGXFSZ (a file past `ulimit -f`) is ignored, so
 * that the write fails (EFBIG) and the command ends with that error. */
static void handle_stop_signals(void (*handler)(int)) {
  static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i)
    handle_signal(signals[i], handler);
  handle_signal(SIGPIPE, end_now);
  signal(SIGXFSZ, SIG_IGN);
}

/* Ctrl-C and SIGTERM stop a workload run at its next progress check, as
 * a caller's progress callback cancels one: the library then removes its
 * temporary files and replaces no output, where a process killed outright
 * would leave its temporaries (a trajectory's can be large) behind. Only
 * the commands that run workloads ask for this, and before their options
 * are checked: checking that an output can be written makes and removes
 * a temporary beside it, which a signal then would leave behind. A signal
 * before the run stops it at its first check. */
static void catch_interruptions(void) {
  handle_stop_signals(note_interruption);
}

/* For the commands that write outputs without running a workload (gen):
 * Ctrl-C and SIGTERM end the process at once, as they would by default,
 * but only after the temporaries of the outputs being written are gone.
 * Installed before the outputs are checked, as in catch_interruptions. */
void cli_end_on_signals(void) {
  handle_stop_signals(end_now);
}

/* Libraries that the device enumeration loads may take the signals over
 * (LLVM's handlers, in PoCL, do): they are taken back for the run; under
 * MPI, to end the rank at once. */
static void catch_interruptions_again(void) {
  handle_stop_signals(*rank_ending ? end_rank : note_interruption);
}

/* Makes the stop signals end this rank of an MPI job at once (end_rank). */
static void end_rank_on_signals(const cli_mpi *mpi) {
  snprintf(rank_ending, sizeof rank_ending, "%s: rank %d of %d: ended by ",
           program_name, mpi->rank, mpi->ranks);
  rank_writes_nothing = mpi->rank != 0;
  catch_interruptions_again();
}

/* A run the signal stopped: the run's own message, and the status a shell
 * gives a command a signal ended (128 + the signal's number). */
static int report_interruption(void) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "%s: interrupted%s%s\n", program_name,
          message && *message ? ": " : "", message ? message : "");
  return 128 + (int)interruption;
}

/* ---- progress ------------------------------------------------------------ */

/* The status line (cli_status.c) and the stop check, at each report. */
static int report_progress(void *user, const ck_progress *progress) {
  (void)user;
  cli_status_progress(progress);
  return interruption != 0;
}

/* A workload's report lines: to stdout, or to stderr beside --json output,
 * clearing the status line first. With --quiet only its warnings. */
typedef struct line_sink {
  FILE *out;
  int quiet;
  /* 1 for a spread's ranks but 0: rank 0 says what the run's lines say,
   * its warnings too (the ranks' failures come as failures). */
  int muted;
} line_sink;

static void print_line(void *user, const char *line) {
  line_sink *sink = user;
  int warning = strncmp(line, "warning: ", 9) == 0;
  if (sink->muted || (sink->quiet && !warning))
    return;
  /* Warnings go where every command's go, to stderr. */
  cli_status_print(warning ? stderr : sink->out, line);
}

/* A failure's message, then what the device's runtime said meanwhile. */
static int report_failure(ck_status status) {
  int exit_code = cli_report(status);
  cli_status_flush();
  return exit_code;
}

/* ---- devices ---------------------------------------------------------------
 */

static int select_devices(const ck_device_set *set, const char *selector,
                          size_t *indices, size_t *count) {
  /* No --device: CLKIT_DEVICE's selector, which a message names; unset or
   * empty, the fastest device. */
  const char *variable = NULL;
  if (!selector) {
    selector = getenv("CLKIT_DEVICE");
    if (selector && !*selector)
      selector = NULL;
    variable = selector ? "CLKIT_DEVICE: " : "";
  }
  ck_status status =
      ck_device_select(set, selector, indices, MAX_DEVICES, count);
  if (status != CK_OK) {
    const char *message = "";
    ck_error_get_last(&message);
    fprintf(stderr, "%s: %s%s\n", program_name, variable ? variable : "",
            message);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}

/* Whether a selector takes every device: no selector where the command's
 * default is all of them, or "all" itself. A device that refuses such a
 * run is skipped (cli_row_skipped); one the user named fails it. */
static int every_device_selected(const char *selector) {
  return !selector || strcmp(selector, "all") == 0;
}

static int command_devices(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i)
    if (strcmp(argv[i], "--peak") == 0)
      return cli_peak(argc, argv);
  int json = 0, probe = 0;
  const char *selector = NULL;
  static const struct option options[] = {
      {"json", no_argument, NULL, OPT_JSON},
      {"probe", no_argument, NULL, OPT_PROBE},
      {"device", required_argument, NULL, OPT_DEVICE},
      {"help", no_argument, NULL, OPT_HELP},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case OPT_JSON:
      json = 1;
      break;
    case OPT_PROBE:
      probe = 1;
      break;
    case OPT_DEVICE:
      if (!*optarg)
        return usage_error("devices", "--device: an empty selector");
      selector = optarg;
      break;
    case OPT_HELP:
      printf("usage: clkit devices [--json] [--probe [--device SEL]]\n"
             "  --json      print the list as JSON\n"
             "  --probe     build and run the self-check on each device:\n"
             "              cold and warm build times, agreement with ref\n"
             "  --peak      each device's measured peaks (clkit peak)\n"
             "  -d, --device SEL\n"
             "              probe only these devices (default: all)\n");
      return EXIT_OK;
    default:
      return option_error("devices", argv, c, options);
    }
  }
  if (optind < argc)
    return unexpected("devices", argv[optind]);
  if (selector && !probe)
    return usage_error("devices", "--device chooses what --probe probes; "
                                  "'clkit devices' lists every device");
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  int exit_code = EXIT_OK;
  if (!probe) {
    cli_print_devices(stdout, &set, json);
  } else {
    size_t indices[MAX_DEVICES], count = 0;
    exit_code =
        select_devices(&set, selector ? selector : "all", indices, &count);
    if (exit_code == EXIT_OK && json)
      printf("{\"probes\":[");
    for (size_t k = 0; exit_code == EXIT_OK && k < count; ++k) {
      const ck_device *device = &set.devices[indices[k]];
      ck_device_probe_result result;
      status = ck_device_probe(device, &result);
      if (status != CK_OK) {
        exit_code = cli_report(status);
        break;
      }
      if (json)
        printf("%s{\"device\":\"%s\",\"cold_build_s\":%.6f,\"warm_build_s\":"
               "%.6f,\"warm_from_cache\":%s,\"runtime_cache\":%s,"
               "\"selfcheck_s\":%.6f,\"selfcheck_agrees\":%s}",
               k ? "," : "", device->id, result.cold_build_s,
               result.warm_build_s, result.warm_from_cache ? "true" : "false",
               result.runtime_cache ? "true" : "false", result.selfcheck_s,
               result.selfcheck_agrees ? "true" : "false");
      else
        printf("%-9s %-40.40s build cold %8.3f s, warm %8.3f s%s; "
               "selfcheck %s (%.3f s)\n",
               device->id, device->name, result.cold_build_s,
               result.warm_build_s,
               result.warm_from_cache || device->backend == CK_BACKEND_REF ? ""
               : result.runtime_cache ? " (runtime's cache)"
                                      : " (cache off)",
               result.selfcheck_agrees ? "agrees with ref" : "DISAGREES",
               result.selfcheck_s);
      if (!result.selfcheck_agrees)
        exit_code = EXIT_FAILURE_RUN;
    }
    if (json && count)
      printf("]}\n");
  }
  ck_device_set_free(&set);
  return exit_code;
}

/* ---- run and compare --------------------------------------------------------
 */

typedef struct run_config {
  const ck_workload *workload;
  const char *selector;
  uint64_t seed;
  int seed_given, json, quiet, verbose, spread;
  const char *shares; /* --shares, as given */
  ck_param params[MAX_PARAMS];
  size_t param_count;
  cli_bench_options bench; /* compare's sizes, repeats and reports */
} run_config;

/* Parses common and workload options; returns -1 to go on, else an exit code.
 */
static int parse_run_options(const char *command, int argc, char **argv,
                             run_config *config) {
  struct option options[MAX_LONG_OPTIONS];
  size_t count = 0;
  const ck_option *workload_options = NULL;
  memset(config, 0, sizeof *config);
  config->seed = 1;
  cli_bench_options_init(&config->bench);
  if (argc < 2 || argv[1][0] == '-') {
    if (argc >= 2 && is_help_flag(argv[1])) {
      print_run_help(command);
      return EXIT_OK;
    }
    /* The workload's name decides which options exist, so it comes first;
     * one given later is named rather than missed. */
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
      return usage_error(command, message);
    }
    return usage_error(command, "which workload? (see 'clkit help')");
  }
  ck_status status = ck_workload_find(argv[1], &config->workload);
  if (status != CK_OK)
    return usage_report(status);
  ck_workload_describe(config->workload, NULL, NULL, &workload_options);
  int is_compare = strcmp(command, "compare") == 0;
  options[count++] =
      (struct option){"device", required_argument, NULL, OPT_DEVICE};
  options[count++] =
      (struct option){"devices", required_argument, NULL, OPT_DEVICES};
  options[count++] = (struct option){"seed", required_argument, NULL, OPT_SEED};
  options[count++] = (struct option){"json", no_argument, NULL, OPT_JSON};
  options[count++] = (struct option){"quiet", no_argument, NULL, OPT_QUIET};
  options[count++] = (struct option){"verbose", no_argument, NULL, OPT_VERBOSE};
  options[count++] = (struct option){"help", no_argument, NULL, OPT_HELP};
  if (!is_compare) {
    options[count++] = (struct option){"spread", no_argument, NULL, OPT_SPREAD};
    options[count++] =
        (struct option){"shares", required_argument, NULL, OPT_SHARES};
  } else {
    cli_bench_long_options(options, &count, 0);
  }
  size_t first_workload = count;
  for (const ck_option *workload_option = workload_options;
       workload_option->name && count + 1 < MAX_LONG_OPTIONS;
       ++workload_option, ++count)
    options[count] = (struct option){
        workload_option->name,
        workload_option->value_name ? required_argument : no_argument, NULL,
        OPT_WORKLOAD_BASE + (int)(count - first_workload)};
  options[count] = (struct option){NULL, 0, NULL, 0};

  optind = 1;
  int c;
  while ((c = cli_next_option(argc - 1, argv + 1, ":hd:", options)) != -1) {
    switch (c) {
    case OPT_DEVICE:
    case OPT_DEVICES:
      if (!*optarg)
        return usage_error(command, "--device: an empty selector");
      config->selector = optarg;
      break;
    case OPT_SEED: {
      unsigned long long seed = 0;
      if (cli_parse_unsigned(optarg, &seed) != 0)
        return usage_error(command, "--seed takes a whole number from 0 to "
                                    "2^64 - 1");
      config->seed = seed;
      config->seed_given = 1;
      break;
    }
    case OPT_JSON:
      config->json = 1;
      cli_bench_option(&config->bench, CLI_BENCH_OPT_JSON, NULL, NULL, 0);
      break;
    case OPT_QUIET:
      config->quiet = 1;
      break;
    case OPT_VERBOSE:
      config->verbose = 1;
      break;
    case OPT_SPREAD:
      config->spread = 1;
      break;
    case OPT_SHARES:
      config->shares = optarg;
      break;
    case OPT_HELP:
      printf("usage: clkit %s %s [options]\n\nCommon options:\n%s%s%s"
             "\nOptions of %s:\n",
             command, argv[1],
             is_compare ? compare_device_help : run_device_help,
             is_compare ? cli_bench_help : "", common_run_help, argv[1]);
      print_workload_options(stdout, config->workload);
      return EXIT_OK;
    default:
      if (is_compare && c >= CLI_BENCH_OPT_JSON) {
        char message[300];
        if (cli_bench_option(&config->bench, c, optarg, message,
                             sizeof message) < 0)
          return usage_error(command, message);
        break;
      }
      if (c >= OPT_WORKLOAD_BASE) {
        if (config->param_count == MAX_PARAMS)
          return usage_error(command, "too many options");
        ck_param *param = &config->params[config->param_count++];
        param->name =
            options[first_workload + (size_t)(c - OPT_WORKLOAD_BASE)].name;
        param->value = optarg ? optarg : "1";
        break;
      }
      /* Named with the workload, whose --help lists its own options. */
      char with_workload[96];
      snprintf(with_workload, sizeof with_workload, "%s %s", command, argv[1]);
      return option_error(with_workload, argv + 1, c, options);
    }
  }
  /* One argument after the options names the workload's input, for the
   * workloads that take one (e.g. 'clkit run aco FILE.tsp'). */
  if (optind + 2 == argc) {
    const char *input = NULL;
    for (const ck_option *workload_option = workload_options;
         workload_option->name; ++workload_option)
      if (strcmp(workload_option->name, "instance") == 0)
        input = workload_option->name;
    if (!input)
      return unexpected(command, argv[1 + optind]);
    if (config->param_count == MAX_PARAMS)
      return usage_error(command, "too many options");
    config->params[config->param_count++] = (ck_param){input, argv[1 + optind]};
  } else if (optind + 1 < argc) {
    return unexpected(command, argv[argc - 1]);
  }
  if (config->shares && !config->spread)
    return usage_error(command, "--shares applies only with --spread");
  status =
      ck_workload_check(config->workload, config->params, config->param_count);
  /* An output that cannot be written there, found before the run, is a
   * usage error too: nothing ran, and the command line must change. */
  if (status != CK_OK)
    return usage_report(status);
  return -1;
}

/* A kernel cache that cannot be used costs every run its builds, silently
 * but for this: a CLKIT_CACHE_DIR that is a file, a directory that cannot
 * be read or is refused (relative, a link, writable by others), a
 * CLKIT_CACHE value clkit does not know. The run goes on. */
static void warn_if_cache_unusable(void) {
  ck_cache_stats stats;
  ck_status status = ck_cache_query(&stats);
  if (status == CK_OK || !stats.enabled)
    return;
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "%s: warning: %s%s\n", program_name, message,
          status == CK_ERROR_IO || status == CK_ERROR_CACHE
              ? "; kernels are built without the cache"
              : "");
}

/* The status line is for a person: drawn at a terminal, and elsewhere
 * (a pipe, a log) written as a line now and then; not with --quiet, nor
 * beside --json, which a program reads. */
static cli_status_mode status_mode(int json, int quiet) {
  if (json || quiet)
    return CLI_STATUS_OFF;
  return isatty(STDERR_FILENO) ? CLI_STATUS_DRAWN : CLI_STATUS_LINES;
}

/* What every run of run and compare is told: the seed, and where its
 * progress, build notices and report lines go. */
static ck_run_options run_options(const run_config *config, line_sink *sink) {
  ck_run_options options = {.seed = config->seed,
                            .seed_given = config->seed_given,
                            .progress = report_progress,
                            .log = print_line,
                            .log_user = sink,
                            .build = cli_status_build};
  return options;
}

/* Where a run prints its own text (results, report lines): stdout,
 * unless an output of the run goes there ("--tour-out -"): then stderr,
 * so that a pipe's reader gets the output alone. --json asks for stdout
 * too, which is refused. Returns -1 to go on, else an exit code. */
static int choose_text_stream(const run_config *config, FILE **text) {
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
    return usage_error("run", message);
  }
  return -1;
}

/* The devices of a spread run in this process: those the selector picks,
 * or with none, the fastest device and every other of its backend, kind
 * and platform. Under mpirun, a process that shares its node takes one of
 * them, by its rank on the node. */
static int spread_devices(const ck_device_set *set, const run_config *config,
                          const cli_mpi *mpi, ck_device *devices,
                          size_t *count) {
  size_t indices[MAX_DEVICES], selected = 0;
  int exit_code = select_devices(set, config->selector, indices, &selected);
  if (exit_code != EXIT_OK)
    return exit_code;
  const char *variable = getenv("CLKIT_DEVICE");
  if (!config->selector && (!variable || !*variable) && selected == 1) {
    const ck_device *fastest = &set->devices[indices[0]];
    selected = 0;
    for (size_t i = 0; i < set->count && selected < MAX_DEVICES; ++i) {
      const ck_device *d = &set->devices[i];
      if (d->backend == fastest->backend && d->kind == fastest->kind &&
          strcmp(d->platform, fastest->platform) == 0)
        indices[selected++] = i;
    }
  }
  if (selected > CK_SPREAD_MAX_LOCAL)
    selected = CK_SPREAD_MAX_LOCAL;
  if (mpi->local_ranks > 1) {
    indices[0] = indices[(size_t)mpi->local_rank % selected];
    selected = 1;
  }
  for (size_t i = 0; i < selected; ++i)
    devices[i] = set->devices[indices[i]];
  *count = selected;
  /* A device given twice is the user's --device, refused as its other
   * usage errors are; every rank refuses alike, and rank 0 says so. */
  size_t repeated;
  ck_status status = ck_workload_check_spread_devices(config->workload, devices,
                                                      selected, &repeated);
  if (status != CK_OK && repeated < selected) {
    const char *name = "";
    ck_workload_describe(config->workload, &name, NULL, NULL);
    char message[200];
    snprintf(message, sizeof message,
             "--device: %s is given twice; a %s spread takes each device once",
             devices[repeated].id, name);
    return mpi->rank == 0 ? usage_error("run", message) : EXIT_USAGE;
  }
  return status == CK_OK ? EXIT_OK : cli_report(status);
}

/* --shares W,W,...: positive weights, one a member, each read as a
 * workload's numbers are (ck_param_parse_number). Returns 0, or writes
 * what is wrong to message and returns -1. */
static int parse_shares(const char *text, double *shares, size_t capacity,
                        size_t *count, char *message, size_t size) {
  *count = 0;
  for (const char *p = text;; ++p) {
    size_t length = strcspn(p, ",");
    char piece[64];
    double value = 0;
    if (length >= sizeof piece || *count == capacity) {
      snprintf(message, size,
               "--shares: more than %zu shares, or a share "
               "of more than %zu characters",
               capacity, sizeof piece - 1);
      return -1;
    }
    memcpy(piece, p, length);
    piece[length] = '\0';
    if (ck_param_parse_number(piece, &value) != CK_OK || !(value > 0)) {
      snprintf(message, size,
               "--shares: '%s' is not a positive decimal "
               "number; give one a member, separated by commas (e.g. 3,1)",
               piece);
      return -1;
    }
    shares[(*count)++] = value;
    p += length;
    if (!*p)
      return 0;
  }
}

/* Writes all of text to descriptor fd, in one write() where it can. */
static void write_whole(int fd, const char *text, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, text, length);
    if (written <= 0)
      return;
    text += written;
    length -= (size_t)written;
  }
}

/* A rank's failure under MPI: "clkit: rank R of N: MESSAGE" in one
 * write(), so that the lines of ranks that fail together cannot
 * interleave; then what the device's runtime said meanwhile. */
static int report_rank_failure(ck_status status, const cli_mpi *mpi) {
  if (mpi->ranks < 2)
    return report_failure(status);
  const char *message = "";
  ck_error_get_last(&message);
  if (!message || !*message)
    message = "failed";
  const char *format = "%s: rank %d of %d: %s\n";
  int length =
      snprintf(NULL, 0, format, program_name, mpi->rank, mpi->ranks, message);
  char *line = length > 0 ? malloc((size_t)length + 1) : NULL;
  fflush(stderr);
  if (line) {
    snprintf(line, (size_t)length + 1, format, program_name, mpi->rank,
             mpi->ranks, message);
    write_whole(fileno(stderr), line, (size_t)length);
  } else {
    fprintf(stderr, format, program_name, mpi->rank, mpi->ranks, message);
  }
  free(line);
  cli_status_flush();
  return exit_code_of(status);
}

/* What every rank refuses alike before any device work: --shares that
 * are not numbers, and options that contradict a spread over these
 * processes. Rank 0 alone says so. Returns -1 to go on, else an exit
 * code. */
static int refuse_spread(const run_config *config, const cli_mpi *mpi,
                         double *shares, size_t capacity, size_t *count) {
  int speaks = mpi->rank == 0;
  char message[256];
  *count = 0;
  if (config->shares && parse_shares(config->shares, shares, capacity, count,
                                     message, sizeof message) != 0)
    return speaks ? usage_error("run", message) : EXIT_USAGE;
  ck_status status =
      ck_workload_check_spread(config->workload, config->params,
                               config->param_count, (size_t)mpi->ranks);
  if (status != CK_OK)
    return speaks ? cli_report(status) : exit_code_of(status);
  return -1;
}

/* `run --spread`: one run over this process's devices and, under mpirun,
 * every process's. Only rank 0 prints the result. */
static int command_run_spread(run_config *config, FILE *text) {
  cli_mpi mpi;
  int started = cli_mpi_begin(NULL, NULL, &mpi);
  if (started < 0) {
    fprintf(stderr, "%s: %s\n", program_name,
            started == -1 ? "MPI failed to start"
                          : "started by an MPI launcher, but this clkit was "
                            "built without MPI: each process would run alone");
    return EXIT_FAILURE_RUN;
  }
  if (started)
    end_rank_on_signals(&mpi);
  static double shares[1024];
  size_t share_count = 0;
  int exit_code = refuse_spread(config, &mpi, shares, 1024, &share_count);
  if (exit_code >= 0) {
    /* Every rank refused alike: none waits for another. */
    cli_mpi_end(0);
    return exit_code;
  }
  exit_code = EXIT_OK;
  ck_device devices[MAX_DEVICES];
  size_t count = 0;
  ck_device_set set = {0};
  ck_status status = CK_OK;
  if ((status = ck_device_enumerate(&set)) != CK_OK)
    exit_code = cli_report(status);
  if (exit_code == EXIT_OK)
    exit_code = spread_devices(&set, config, &mpi, devices, &count);
  if (exit_code != EXIT_OK) {
    ck_device_set_free(&set);
    cli_mpi_end(1);
    return exit_code;
  }
  ck_spread spread = {.devices = devices,
                      .device_count = count,
                      .shares = share_count ? shares : NULL,
                      .share_count = share_count,
                      .communicator = mpi.communicator};
  int leader = mpi.rank == 0;
  line_sink sink = {config->json ? stderr : text, config->quiet, !leader};
  ck_run_options options = run_options(config, &sink);
  options.spread = &spread;
  catch_interruptions_again();
  cli_status_begin(leader ? status_mode(config->json, config->quiet)
                          : CLI_STATUS_OFF,
                   config->verbose, 0);
  ck_result result;
  status = ck_workload_run(config->workload, &devices[0], config->params,
                           config->param_count, &options, &result);
  cli_status_clear();
  if (status == CK_ERROR_CANCELLED && interruption) {
    exit_code = report_interruption();
  } else if (status != CK_OK) {
    exit_code = report_rank_failure(status, &mpi);
  } else if (leader && config->json) {
    char *json = NULL;
    if ((status = ck_result_format_json(&result, &json)) != CK_OK)
      exit_code = cli_report(status);
    else
      printf("%s\n", json);
    ck_memory_free(json);
  } else if (leader) {
    cli_print_result(text, &result);
  }
  if (status == CK_OK)
    ck_result_release(&result);
  cli_status_end();
  ck_device_set_free(&set);
  cli_mpi_end(exit_code != EXIT_OK);
  return exit_code;
}

static int command_run(int argc, char **argv) {
  run_config config;
  FILE *text = stdout;
  catch_interruptions();
  usage_muted = cli_mpi_launched_rank() != 0;
  int exit_code = parse_run_options("run", argc, argv, &config);
  if (exit_code < 0)
    exit_code = choose_text_stream(&config, &text);
  if (exit_code >= 0)
    return exit_code;
  warn_if_cache_unusable();
  if (config.spread)
    return command_run_spread(&config, text);
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[MAX_DEVICES], count = 0;
  exit_code = select_devices(&set, config.selector, indices, &count);
  if (exit_code == EXIT_OK &&
      (status = ck_workload_check_devices(config.workload, config.params,
                                          config.param_count, count)))
    exit_code = cli_report(status);
  catch_interruptions_again();
  if (exit_code == EXIT_OK)
    cli_status_begin(status_mode(config.json, config.quiet), config.verbose,
                     count > 1 ? count : 0);
  for (size_t k = 0; exit_code == EXIT_OK && k < count; ++k) {
    line_sink sink = {config.json ? stderr : text, config.quiet, 0};
    ck_run_options options = run_options(&config, &sink);
    ck_result result;
    status =
        ck_workload_run(config.workload, &set.devices[indices[k]],
                        config.params, config.param_count, &options, &result);
    cli_status_clear();
    if (status == CK_ERROR_CANCELLED && interruption) {
      exit_code = report_interruption();
      break;
    }
    if (status != CK_OK) {
      exit_code = report_failure(status);
      break;
    }
    if (config.json) {
      char *json = NULL;
      if ((status = ck_result_format_json(&result, &json)) != CK_OK)
        exit_code = cli_report(status);
      else
        printf("%s\n", json);
      ck_memory_free(json);
    } else {
      cli_print_result(text, &result);
    }
    ck_result_release(&result);
  }
  cli_status_end();
  ck_device_set_free(&set);
  return exit_code;
}

/* 0 while no signal asked the runs to stop; else the status to exit
 * with, said. */
static int stop_status(void) {
  return interruption ? report_interruption() : 0;
}

/* The measurement of bench and compare (cli_bench.c) over the devices
 * selector picks (all by default), with its outputs checked first. */
static int run_measurement(cli_bench_job *job, const char *selector,
                           int quiet, int verbose) {
  char message[600];
  if (cli_bench_options_check(job->options, message, sizeof message) < 0)
    return usage_error(job->command, message);
  ck_device_set set;
  warn_if_cache_unusable();
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[MAX_DEVICES], count = 0;
  int exit_code =
      select_devices(&set, selector ? selector : "all", indices, &count);
  job->first = count ? indices[0] : 0;
  /* compare's table has ref's row first, as the oracle, whether named or
   * not (set.devices[0] is ref); x first stays over the first listed. */
  if (exit_code == EXIT_OK && strcmp(job->command, "compare") == 0) {
    size_t kept = 0;
    for (size_t k = 0; k < count; ++k)
      if (set.devices[indices[k]].backend != CK_BACKEND_REF)
        indices[kept++] = indices[k];
    if (kept == MAX_DEVICES)
      --kept;
    memmove(indices + 1, indices, kept * sizeof *indices);
    indices[0] = 0;
    count = kept + 1;
  }
  catch_interruptions_again();
  if (exit_code == EXIT_OK) {
    if (set.opencl_status != CK_OK && job->options->format == CLI_FORMAT_TEXT &&
        strcmp(job->command, "bench") == 0)
      printf("note: %s\n", set.opencl_message);
    /* The table stands for the log lines; warnings still show. */
    line_sink sink = {stderr, 1, 0};
    job->run.log = print_line;
    job->run.log_user = &sink;
    job->run.progress = report_progress;
    job->run.build = cli_status_build;
    job->set = &set;
    job->indices = indices;
    job->count = count;
    job->every_device = every_device_selected(selector);
    job->status =
        status_mode(job->options->format != CLI_FORMAT_TEXT, quiet);
    job->verbose = verbose;
    job->stopped = stop_status;
    exit_code = cli_bench_run(job);
  }
  ck_device_set_free(&set);
  return exit_code;
}

static int command_compare(int argc, char **argv) {
  run_config config;
  catch_interruptions();
  int exit_code = parse_run_options("compare", argc, argv, &config);
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
    return usage_error("compare", message);
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

/* ---- bench and demo
 * ----------------------------------------------------------- */

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
      .seed = 1, .progress = report_progress, .build = cli_status_build};
  int is_ref = set->devices[*at].backend == CK_BACKEND_REF;
  const ck_param *params = NULL;
  size_t param_count = 0;
  if (brief)
    ck_workload_run_demo(workload, &params, &param_count);
  ck_status status = ck_compare_run(workload, set, at, 1, is_ref, params,
                                    param_count, &run, results, 2, &produced);
  cli_status_clear();
  if (interruption || status != CK_OK) {
    int exit_code = interruption ? report_interruption() : cli_report(status);
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

/* Runs each workload with its defaults on each selected device. */
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
      return usage_error("bench", text);
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
    return usage_error("bench", "--workloads: name one workload or more");
  return -1;
}

/* bench: every workload (or --workloads) on every selected device. */
static int command_bench(int argc, char **argv, const char *selector, int quiet,
                         int verbose, const cli_bench_options *options) {
  const ck_workload *const *every;
  const ck_workload *chosen[MAX_DEVICES];
  size_t count = 0;
  ck_workload_list(&every, &count);
  if (options->only) {
    int exit_code =
        choose_workloads(options->only, chosen, MAX_DEVICES, &count);
    if (exit_code >= 0)
      return exit_code;
    every = chosen;
  }
  cli_bench_job job = {.command = "bench",
                       .argc = argc,
                       .argv = argv,
                       .workloads = every,
                       .workload_count = count,
                       .options = options,
                       .run = {.seed = 1}};
  return run_measurement(&job, selector, quiet, verbose);
}

static int run_suite(const char *command, int argc, char **argv, int brief) {
  const char *selector = NULL;
  int json = 0, quiet = 0, verbose = 0;
  cli_bench_options bench;
  cli_bench_options_init(&bench);
  struct option options[16] = {
      {"device", required_argument, NULL, OPT_DEVICE},
      {"devices", required_argument, NULL, OPT_DEVICES},
      {"json", no_argument, NULL, OPT_JSON},
      {"quiet", no_argument, NULL, OPT_QUIET},
      {"verbose", no_argument, NULL, OPT_VERBOSE},
      {"help", no_argument, NULL, OPT_HELP}};
  size_t option_count = 6;
  if (!brief)
    cli_bench_long_options(options, &option_count, 1);
  options[option_count] = (struct option){NULL, 0, NULL, 0};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case OPT_DEVICE:
    case OPT_DEVICES:
      if (!*optarg)
        return usage_error(command, "--device: an empty selector");
      selector = optarg;
      break;
    case OPT_JSON:
      json = 1;
      cli_bench_option(&bench, CLI_BENCH_OPT_JSON, NULL, NULL, 0);
      break;
    case OPT_QUIET:
      quiet = 1;
      break;
    case OPT_VERBOSE:
      verbose = 1;
      break;
    case OPT_HELP:
      print_suite_help(command, brief);
      return EXIT_OK;
    default: {
      char message[300];
      int read =
          brief ? 0
                : cli_bench_option(&bench, c, optarg, message, sizeof message);
      if (read < 0)
        return usage_error(command, message);
      if (read == 0)
        return option_error(command, argv, c, options);
    }
    }
  }
  if (optind < argc)
    return unexpected(command, argv[optind]);
  if (!brief) {
    catch_interruptions();
    return command_bench(argc, argv, selector, quiet, verbose, &bench);
  }
  ck_device_set set;
  warn_if_cache_unusable();
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[MAX_DEVICES], count = 0;
  /* demo: the default device, or the one named. */
  int exit_code = select_devices(&set, selector, indices, &count);
  int every_device = 0;
  const ck_workload *const *workloads;
  size_t workload_count = 0;
  ck_workload_list(&workloads, &workload_count);
  int first = 1, row_failed = 0;
  if (exit_code == EXIT_OK) {
    print_suite_head(command, &set, indices, brief, json);
    catch_interruptions();
    /* Each workload on each device, and ref before each other device as
     * its oracle. */
    size_t runs = 0;
    for (size_t k = 0; k < count; ++k)
      runs += set.devices[indices[k]].backend == CK_BACKEND_REF ? 1 : 2;
    cli_status_begin(status_mode(json, quiet), verbose, runs * workload_count);
  }
  /* A row that fails or disagrees does not stop the table: the other
   * workloads and devices still run, and the exit status says it failed.
   * Only an interruption or an error outside the rows stops it. */
  for (size_t w = 0; exit_code == EXIT_OK && w < workload_count; ++w)
    for (size_t k = 0; exit_code == EXIT_OK && k < count; ++k)
      exit_code = run_suite_row(workloads[w], &set, &indices[k], brief, json,
                                every_device, &first, &row_failed);
  cli_status_end();
  if (json && count)
    printf("]}\n");
  ck_device_set_free(&set);
  return exit_code == EXIT_OK && row_failed ? EXIT_FAILURE_RUN : exit_code;
}

/* ---- kernels, cache, version
 * ---------------------------------------------------- */

/* A program assembled for the one device selector names (kernels show
 * NAME --assembled --device SEL), printed. */
static int show_assembled_for_device(const char *name, const char *selector) {
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[MAX_DEVICES], count = 0;
  int exit_code = EXIT_OK;
  status = ck_device_select(&set, selector, indices, MAX_DEVICES, &count);
  if (status != CK_OK) {
    cli_report(status);
    exit_code = EXIT_USAGE;
  } else if (count != 1) {
    char message[400];
    int used = snprintf(
        message, sizeof message,
        "--device '%.60s' matches %zu devices; name one:", selector, count);
    for (size_t k = 0;
         k < count && k < 8 && used > 0 && (size_t)used < sizeof message; ++k)
      used += snprintf(message + used, sizeof message - (size_t)used, " %s",
                       set.devices[indices[k]].id);
    exit_code = usage_error("kernels", message);
  } else {
    char *text = NULL;
    status = ck_kernels_assemble_for_device(name, &set.devices[indices[0]],
                                            &text, NULL);
    if (status == CK_OK)
      fputs(text, stdout);
    else
      exit_code = cli_report(status);
    /* A name or device this cannot serve is a usage error. */
    if (status == CK_ERROR_NOT_FOUND || status == CK_ERROR_UNSUPPORTED)
      exit_code = EXIT_USAGE;
    ck_memory_free(text);
  }
  ck_device_set_free(&set);
  return exit_code;
}

static int command_kernels(int argc, char **argv) {
  int assembled = 0;
  const char *selector = NULL;
  static const struct option options[] = {
      {"assembled", no_argument, NULL, OPT_ASSEMBLED},
      {"device", required_argument, NULL, OPT_DEVICE},
      {"help", no_argument, NULL, OPT_HELP},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case OPT_ASSEMBLED:
      assembled = 1;
      break;
    case OPT_DEVICE:
      if (!*optarg)
        return usage_error("kernels", "--device: an empty selector");
      selector = optarg;
      break;
    case OPT_HELP:
      printf("usage: clkit kernels [list]\n"
             "       clkit kernels show NAME [--assembled [-d|--device SEL]]\n"
             "  list       the embedded cl/ sources and their sizes\n"
             "  show       print one source; with --assembled, a program\n"
             "             with its headers inlined, ready for another tool\n"
             "  -d, --device SEL\n"
             "             with --assembled: for the one OpenCL device SEL\n"
             "             names, with the options clkit builds it with there\n"
             "             as #defines (and example values of the program's\n"
             "             own), so that it builds as it stands\n"
             "\n"
             "Examples:\n"
             "  clkit kernels list\n"
             "  clkit kernels show selfcheck --assembled --device pocl > "
             "selfcheck.cl\n");
      return EXIT_OK;
    default:
      return option_error("kernels", argv, c, options);
    }
  }
  const char *action = optind < argc ? argv[optind] : "list";
  if (strcmp(action, "list") == 0) {
    if (optind + 1 < argc)
      return usage_error("kernels", "'list' takes no argument");
    if (assembled || selector)
      return usage_error("kernels", assembled
                                        ? "--assembled goes with 'show NAME'"
                                        : "--device goes with 'show NAME "
                                          "--assembled'");
    size_t count = 0;
    ck_kernels_count(&count);
    for (size_t i = 0; i < count; ++i) {
      const char *name;
      size_t size;
      ck_kernels_get(i, &name, NULL, &size);
      printf("%-24s %8zu bytes\n", name, size);
    }
    return EXIT_OK;
  }
  if (strcmp(action, "show") != 0)
    return usage_error("kernels", "expected 'list' or 'show NAME'");
  if (optind + 2 != argc)
    return usage_error("kernels", "'show' takes one source name");
  const char *name = argv[optind + 1];
  if (selector && !assembled)
    return usage_error("kernels", "--device goes with --assembled");
  if (selector)
    return show_assembled_for_device(name, selector);
  if (assembled) {
    char *text = NULL;
    ck_status status = ck_kernels_assemble(name, &text, NULL);
    /* An unknown name is a usage error, as an unknown command is. */
    if (status != CK_OK) {
      int exit_code = cli_report(status);
      return status == CK_ERROR_NOT_FOUND ? EXIT_USAGE : exit_code;
    }
    fputs(text, stdout);
    ck_memory_free(text);
    return EXIT_OK;
  }
  size_t count = 0;
  ck_kernels_count(&count);
  for (size_t i = 0; i < count; ++i) {
    const char *entry, *text;
    ck_kernels_get(i, &entry, &text, NULL);
    /* A program may be named without its .cl, as with --assembled. */
    size_t length = strlen(name);
    if (strcmp(entry, name) == 0 || (strncmp(entry, name, length) == 0 &&
                                     strcmp(entry + length, ".cl") == 0)) {
      fputs(text, stdout);
      return EXIT_OK;
    }
  }
  fprintf(stderr,
          "%s: no embedded kernel source named '%s' (see 'clkit "
          "kernels list')\n",
          program_name, name);
  return EXIT_USAGE;
}

static int command_cache(int argc, char **argv) {
  const char *action = argc > 1 ? argv[1] : "info";
  int help = 0;
  for (int i = 1; i < argc; ++i)
    help |= is_help_flag(argv[i]);
  if (help) {
    printf("usage: clkit cache [info|clear]\n"
           "  info    where the kernel binary cache is, and its size\n"
           "  clear   delete every entry, measured peaks included\n"
           "Location: $CLKIT_CACHE_DIR, else $XDG_CACHE_HOME/clkit, else\n"
           "~/.cache/clkit. CLKIT_CACHE=0 (or off, no, false) disables\n"
           "the cache. PoCL keeps its own cache of builds, so builds for\n"
           "PoCL leave this one alone unless CLKIT_CACHE=1 (or on, yes,\n"
           "true), or POCL_KERNEL_CACHE=0.\n");
    return EXIT_OK;
  }
  if (argc > 2)
    return unexpected("cache", argv[2]);
  if (strcmp(action, "info") != 0 && strcmp(action, "clear") != 0) {
    char message[160];
    snprintf(message, sizeof message,
             "unknown action '%.100s'; expected 'info' or 'clear'", action);
    return usage_error("cache", message);
  }
  static const char where[] = "set CLKIT_CACHE_DIR, XDG_CACHE_HOME or HOME";
  ck_cache_stats stats;
  ck_status status = ck_cache_query(&stats);
  /* With stats given, this status means a CLKIT_CACHE value the library
   * does not know: the cache stays on, and the stats are still true. A
   * refused directory (CK_ERROR_CACHE) is shown, but not cleared. */
  int refused = status == CK_ERROR_CACHE;
  if (status == CK_ERROR_INVALID_ARGUMENT ||
      (refused && strcmp(action, "info") == 0)) {
    const char *message = "";
    ck_error_get_last(&message);
    fprintf(stderr, "%s: warning: %s\n", program_name, message);
  } else if (status != CK_OK)
    return cli_report(status);
  if (strcmp(action, "info") == 0) {
    int located = stats.directory[0] != '\0';
    if (located)
      printf("directory  %s\n", stats.directory);
    else
      printf("directory  none (%s)\n", where);
    printf("enabled    %s\nentries    %zu (%zu of them devices' peaks)\n"
           "bytes      %llu\n",
           !located         ? "no (no directory)"
           : !stats.enabled ? "no (CLKIT_CACHE is off)"
           : refused        ? "no (the directory is refused)"
                            : "yes",
           stats.entries, stats.peaks, stats.bytes);
    if (located && stats.enabled && !refused)
      printf("pocl       %s\n",
             stats.pocl_builds
                 ? "builds stored here too (CLKIT_CACHE=1)"
                 : "builds left to PoCL's own cache (unless "
                   "POCL_KERNEL_CACHE=0; CLKIT_CACHE=1 stores them here)");
    return EXIT_OK;
  }
  size_t removed = 0;
  if (stats.directory[0] == '\0') {
    printf("nothing to clear: no cache directory (%s)\n", where);
    return EXIT_OK;
  }
  status = ck_cache_clear(&removed);
  if (status != CK_OK)
    return cli_report(status);
  printf("removed %zu file%s\n", removed, removed == 1 ? "" : "s");
  return EXIT_OK;
}

/* "unknown command 'NAME'", and the command it most likely meant. */
static int unknown_command(const char *name) {
  static const char *const commands[] = {
      "devices", "run",  "compare", "bench",   "peak", "kernels",
      "cache",   "gen",  "tsp",     "demo",    "version", "help"};
  const char *nearest = NULL;
  ck_param_suggest(name, commands, sizeof commands / sizeof *commands,
                   &nearest);
  fprintf(stderr, "%s: unknown command '%s'%s%s%s\n", program_name, name,
          nearest ? "; did you mean " : "", nearest ? nearest : "",
          nearest ? "?" : "");
  return EXIT_USAGE;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    print_main_help(stderr);
    return EXIT_USAGE;
  }
  const char *command = argv[1];
  /* Each command sees its own name as argv[0], as getopt expects. */
  int sub_argc = argc - 1;
  char **sub_argv = argv + 1;
  if (strcmp(command, "help") == 0 || is_help_flag(command)) {
    if (argc > 3)
      return unexpected("help", argv[3]);
    if (argc > 2) {
      char *help_argv[] = {argv[2], "--help", NULL};
      if (strcmp(argv[2], "run") == 0 || strcmp(argv[2], "compare") == 0) {
        print_run_help(argv[2]);
        return EXIT_OK;
      }
      if (strcmp(argv[2], "help") != 0 && !is_help_flag(argv[2])) {
        const char *name = argv[2];
        argv[1] = (char *)name;
        if (strcmp(name, "devices") == 0)
          return command_devices(2, help_argv);
        if (strcmp(name, "bench") == 0)
          return run_suite("bench", 2, help_argv, 0);
        if (strcmp(name, "demo") == 0)
          return run_suite("demo", 2, help_argv, 1);
        if (strcmp(name, "kernels") == 0)
          return command_kernels(2, help_argv);
        if (strcmp(name, "cache") == 0)
          return command_cache(2, help_argv);
        if (strcmp(name, "gen") == 0)
          return cli_gen(2, help_argv);
        if (strcmp(name, "tsp") == 0)
          return cli_tsp(2, help_argv);
        if (strcmp(name, "peak") == 0)
          return cli_peak(2, help_argv);
        if (strcmp(name, "version") == 0) {
          fputs(version_help, stdout);
          return EXIT_OK;
        }
        return unknown_command(name);
      }
    }
    print_main_help(stdout);
    return EXIT_OK;
  }
  if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0) {
    if (argc == 3 && is_help_flag(argv[2])) {
      fputs(version_help, stdout);
      return EXIT_OK;
    }
    if (argc > 2)
      return unexpected("version", argv[2]);
    const char *version = "";
    ck_version_get(&version);
    printf("clkit %s\n", version);
    return EXIT_OK;
  }
  if (strcmp(command, "devices") == 0)
    return command_devices(sub_argc, sub_argv);
  if (strcmp(command, "run") == 0)
    return command_run(sub_argc, sub_argv);
  if (strcmp(command, "compare") == 0)
    return command_compare(sub_argc, sub_argv);
  if (strcmp(command, "bench") == 0)
    return run_suite("bench", sub_argc, sub_argv, 0);
  if (strcmp(command, "demo") == 0)
    return run_suite("demo", sub_argc, sub_argv, 1);
  if (strcmp(command, "kernels") == 0)
    return command_kernels(sub_argc, sub_argv);
  if (strcmp(command, "cache") == 0)
    return command_cache(sub_argc, sub_argv);
  if (strcmp(command, "gen") == 0)
    return cli_gen(sub_argc, sub_argv);
  if (strcmp(command, "tsp") == 0)
    return cli_tsp(sub_argc, sub_argv);
  if (strcmp(command, "peak") == 0)
    return cli_peak(sub_argc, sub_argv);
  unknown_command(command);
  print_main_help(stderr);
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  opterr = 0;
  int exit_code = dispatch(argc, argv);
  /* A result that never reached its reader (a full disk, a closed pipe) is
   * a failure, even though every call before it succeeded. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: cannot write to standard output: %s\n", program_name,
            strerror(errno));
    if (exit_code == EXIT_OK)
      exit_code = EXIT_FAILURE_RUN;
  }
  return exit_code;
}
