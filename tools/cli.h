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

/* Prints "clkit: <message>" for the last library error; returns 1 or 2. */
int cli_report(ck_status status);

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

/* Makes SIGINT and SIGTERM remove the temporaries of the outputs being
 * written before they end the process (for commands that run no
 * workload, which would otherwise stop at the run's next check). */
void cli_end_on_signals(void);

/* clkit gen: synthetic data sets (argv[0] is "gen"). */
int cli_gen(int argc, char **argv);

/* clkit tsp: TSPLIB instances and tours (argv[0] is "tsp"). */
int cli_tsp(int argc, char **argv);

/* clkit peak, and clkit devices --peak (argv[0] is "peak" or "devices"):
 * each device's measured peaks (cli_peak.c). */
int cli_peak(int argc, char **argv);

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
