/*
 * cli_run.h - what run (cli_run.c), a spread run (cli_spread.c) and
 * compare (cli_suite.c) share: the common and workload options, read.
 */
#ifndef CK_CLI_RUN_H
#define CK_CLI_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "cli_bench.h"

/* The most workload options a run takes. */
enum { CLI_MAX_PARAMS = 128 };

typedef struct cli_run_config {
  const ck_workload *workload;
  const char *selector;
  uint64_t seed;
  int seed_given, json, quiet, verbose, spread;
  const char *shares; /* --shares, as given */
  ck_param params[CLI_MAX_PARAMS];
  size_t param_count;
  cli_bench_options bench; /* compare's sizes, repeats and reports */
} cli_run_config;

/* Reads run's or compare's (command) options into config: the workload
 * first, then the common options and the workload's. Returns -1 to go on,
 * else an exit status (0 after --help). */
int cli_run_parse_options(const char *command, int argc, char **argv,
                          cli_run_config *config);

/* What every run of run is told: the seed, and where its progress, build
 * notices and report lines (sink) go. */
ck_run_options cli_run_options(const cli_run_config *config,
                               cli_line_sink *sink);

/* A result as one JSON line on stdout (json), else in words to text.
 * Returns the exit status. */
int cli_run_print_result(int json, FILE *text, const ck_result *result);

/* `run --spread`: one run over this process's devices and, under mpirun,
 * every process's (cli_spread.c). Returns the exit status. */
int cli_run_spread(const cli_run_config *config, FILE *text);

#endif
