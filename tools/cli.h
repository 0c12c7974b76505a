/* cli.h - pieces shared by the clkit command's source files. */
#ifndef CK_CLI_H
#define CK_CLI_H

#include <stdio.h>

#include "clkit/clkit.h"

enum { EXIT_OK = 0, EXIT_FAILURE_RUN = 1, EXIT_USAGE = 2 };

/* Prints "clkit: <message>" for the last library error; returns 1 or 2. */
int cli_report(ck_status status);

/* clkit gen: synthetic data sets (argv[0] is "gen"). */
int cli_gen(int argc, char **argv);

/* clkit tsp: TSPLIB instances and tours (argv[0] is "tsp"). */
int cli_tsp(int argc, char **argv);

void cli_print_devices(FILE *out, const ck_device_set *set, int json);
void cli_print_result(FILE *out, const ck_result *result);
void cli_print_compare(FILE *out, const ck_result *results, size_t count);

#endif
