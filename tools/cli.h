/* cli.h - pieces shared by the clkit command's source files. */
#ifndef CK_CLI_H
#define CK_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "clkit/clkit.h"

enum { EXIT_OK = 0, EXIT_FAILURE_RUN = 1, EXIT_USAGE = 2 };

/* The most long options a command's table holds (run's: the common
 * options and a workload's). */
enum { MAX_LONG_OPTIONS = 160 };

/* The most devices a command selects. */
enum { CLI_MAX_DEVICES = 64 };

/* Option codes of the common options; a workload's come after
 * CLI_OPT_WORKLOAD_BASE, and bench's and compare's (cli_bench.h) after
 * those. */
enum {
  CLI_OPT_HELP = 'h',
  CLI_OPT_DEVICE = 'd',
  CLI_OPT_JSON = 1000,
  CLI_OPT_QUIET,
  CLI_OPT_VERBOSE,
  CLI_OPT_SEED,
  CLI_OPT_DEVICES,
  CLI_OPT_PROBE,
  CLI_OPT_ASSEMBLED,
  CLI_OPT_SPREAD,
  CLI_OPT_SHARES,
  CLI_OPT_WORKLOAD_BASE = 2000
};

/* ---- what the commands share (clkit.c) ---- */

/* The command's name, which its messages begin with. */
extern const char cli_program_name[];

/* The exit status of a failure: 2 for a usage error, else 1. */
int cli_exit_status(ck_status status);

/* The last library error's message ("failed" where none). A library
 * field that an option sets, at its start, is left out and the option
 * given in *option ("--shares:"), else "". */
const char *cli_error_message(const char **option);

/* Prints "clkit: <message>" for the last library error; returns 1 or 2. */
int cli_report(ck_status status);

/* A failure's message, then what the device's runtime said meanwhile. */
int cli_report_failure(ck_status status);

/* muted 1 silences usage errors, in the processes of an MPI launcher
 * other than its rank 0: each parses the same arguments, and rank 0 alone
 * says what is wrong with them. */
void cli_mute_usage(int muted);

/* "clkit COMMAND: MESSAGE" and where to find help; returns 2. */
int cli_usage_error(const char *command, const char *message);

/* getopt's complaint in words (cli_option_message), as a usage error;
 * code is what getopt_long returned, options its table. */
int cli_option_error(const char *command, char **argv, int code,
                     const struct option *options);

/* A usage error that the library described; returns 2. */
int cli_usage_report(ck_status status);

/* Whether an argument asks for help: --help or -h. */
int cli_is_help_flag(const char *argument);

/* An argument no command takes, named; returns 2. */
int cli_unexpected(const char *command, const char *argument);

/* --device's value into *selector: -1 to go on, else the exit status of
 * an empty one. */
int cli_take_selector(const char *command, const char *value,
                      const char **selector);

/* The devices selector picks (no selector: CLKIT_DEVICE's, else the
 * fastest) into indices, at most CLI_MAX_DEVICES; 0, else 2 said. */
int cli_select_devices(const ck_device_set *set, const char *selector,
                       size_t *indices, size_t *count);

/* Whether a selector takes every device: no selector where the command's
 * default is all of them, or "all" itself. A device that refuses such a
 * run is skipped (cli_row_skipped); one the user named fails it. */
int cli_every_device_selected(const char *selector);

/* A warning where the kernel cache cannot be used; the run goes on. */
void cli_warn_if_cache_unusable(void);

/* A workload's report lines (ck_run_options.log): to out, clearing the
 * status line first. With quiet only its warnings, which go to stderr. */
typedef struct cli_line_sink {
  FILE *out;
  int quiet;
  /* 1 for a spread's ranks but 0: rank 0 says what the run's lines say,
   * its warnings too (the ranks' failures come as failures). */
  int muted;
} cli_line_sink;
void cli_print_line(void *user, const char *line);

/* ---- the commands ---- */

/* Each command takes its own name as argv[0], as getopt expects, and
 * returns the exit status: clkit devices (cli_devices.c); run (cli_run.c,
 * a spread run in cli_spread.c); compare, bench and demo (cli_suite.c);
 * kernels and cache (cli_kernels.c). */
int cli_devices(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_kernels(int argc, char **argv);
int cli_cache(int argc, char **argv);

/* getopt_long(argc, argv, short_options, options, NULL), noting where it
 * began so that cli_option_message can find the option at fault. */
int cli_next_option(int argc, char **argv, const char *short_options,
                    const struct option *options);

/* getopt_long's complaint in words, after cli_next_option returned code,
 * for the option at argv[index - 1] (index is optind) or the letter
 * optopt inside a cluster of short options:
 * code is ':' (a missing value, with a leading ':' in the short options)
 * or '?' (unknown, or a value given to a flag); options is the table
 * given to getopt_long. Writes at most size bytes to message. */
void cli_option_message(char *message, size_t size, int code, char **argv,
                        int index, const struct option *options);

/* Reads a whole number: decimal (with an exponent too, as 1e3 or 2.5e1,
 * read exactly), or hexadecimal after 0x, with nothing before or after
 * it. Returns 0, or -1 (value unspecified) when text is not one or is past
 * 2^64 - 1. */
int cli_parse_unsigned(const char *text, unsigned long long *value);

/* clkit gen: synthetic data sets (argv[0] is "gen"). */
int cli_gen(int argc, char **argv);

/* clkit tsp: TSPLIB instances and tours (argv[0] is "tsp"). */
int cli_tsp(int argc, char **argv);

/* clkit peak, and clkit devices --peak (argv[0] is "peak" or "devices"):
 * each device's measured peaks (cli_peak.c). */
int cli_peak(int argc, char **argv);

/* ---- help (cli_help.c) ---- */

/* `clkit help`: the commands, device selectors and workloads. */
void cli_print_main_help(FILE *out);
/* `clkit run --help` and `clkit help run` (compare alike): the options
 * every workload takes, and the workloads. */
void cli_print_run_help(const char *command);
/* `clkit run W --help` (compare alike): the common options, then the
 * workload's, each with its default, and its examples. */
void cli_print_workload_help(const char *command, const char *name,
                             const ck_workload *workload);

/* ---- signals (cli_signals.c) ---- */

/* Ctrl-C, SIGTERM and SIGHUP stop a workload run at its next progress
 * check; installed before the options are checked. */
void cli_catch_interruptions(void);
/* The same again once the devices are listed (their libraries may take
 * the signals over); under MPI, to end the rank at once. */
void cli_catch_interruptions_again(void);
/* Makes the stop signals end this process, rank rank of ranks of an MPI
 * job, at once. */
void cli_end_rank_on_signals(int rank, int ranks);
/* Makes SIGINT and SIGTERM remove the temporaries of the outputs being
 * written before they end the process (for commands that run no
 * workload, which would otherwise stop at the run's next check). */
void cli_end_on_signals(void);
/* The signal that asked the runs to stop, or 0. */
int cli_interrupted(void);
/* A run the signal stopped: the run's message; returns 128 + the
 * signal's number. */
int cli_report_interruption(void);
/* 0 while no signal asked the runs to stop; else the status to exit
 * with, said. */
int cli_stop_status(void);
/* A ck_run_options.progress: the status line, and the stop check. */
int cli_report_progress(void *user, const ck_progress *progress);

/* ---- the status line (cli_status.c) ---- */

/* Standard error's descriptor for the command's own output: a copy of 2
 * once cli_status_begin has run, since 2 is lent to the device runtime
 * while kernels build. For writes from signal handlers. */
extern int cli_stderr_fd;

/* How the status line is shown: not at all (--quiet, --json), drawn in
 * place (stderr is a terminal), or as lines now and then (elsewhere). */
typedef enum cli_status_mode {
  CLI_STATUS_OFF,
  CLI_STATUS_DRAWN,
  CLI_STATUS_LINES
} cli_status_mode;

/* How a command's runs show the line: by where stderr goes, and off
 * with --json (json) or --quiet (quiet) (clkit.c). */
cli_status_mode cli_status_mode_of(int json, int quiet);

/* Begins a command's runs: mode says how to show the line; verbose
 * (--verbose) shows what the device's runtime wrote while kernels built,
 * which is otherwise shown only for a build that failed; rows is how
 * many runs the command makes, so that the line names the workload, the
 * device and the run's place (0: a single run, which the line need not
 * name). */
void cli_status_begin(cli_status_mode mode, int verbose, size_t rows);
/* Adds runs to the command's count, for runs it decides on as it goes
 * (bench's sizes, grown). */
void cli_status_more(size_t runs);
/* Clears the line, stops its clock and shows what builds held back. */
void cli_status_end(void);
/* For ck_run_options.progress (the caller returns whether to stop). */
void cli_status_progress(const ck_progress *progress);
/* A ck_build_fn: shows "building kernels" once a build has lasted a
 * while, and holds what the runtime writes on descriptor 2 meanwhile. */
void cli_status_build(void *user, const char *program, const char *device,
                      ck_build_state state, double seconds);
/* Clears the line and prints line to out. */
void cli_status_print(FILE *out, const char *line);
void cli_status_clear(void);
/* Prints what the runtime wrote during builds and was held back: after
 * clkit's message on a failed build. */
void cli_status_flush(void);

/* A size in bytes in words: "512 B", "1.5 GiB". */
void cli_human_bytes(char *text, size_t capacity, unsigned long long bytes);

/* A device as one JSON object, as `clkit devices --json` lists it. */
void cli_print_device_json(FILE *out, const ck_device *device);

/* The device list, as a table or JSON; a table's notes on why a backend
 * lists no device (no OpenCL platform, no CUDA) go to stderr. */
void cli_print_devices(FILE *out, const ck_device_set *set, int json);
/* text as a JSON string, quoted and escaped. */
void cli_json_string(FILE *out, const char *text);
void cli_print_result(FILE *out, const ck_result *result);
/* Whether a device's row is skipped rather than failed: with every
 * device selected (every_device), a device that does not offer what the
 * run asks for (CK_ERROR_UNSUPPORTED: TF32 off CUDA, double precision
 * without fp64) is not one the user asked for by name. */
int cli_row_skipped(const ck_result *result, int every_device);

#endif
