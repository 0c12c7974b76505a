/*
 * cli_gen.c - the 'clkit gen' command: writes synthetic data sets.
 *
 * One generator so far, lsq: P rows (a_j, b_j) for the least-squares
 * objective with known coefficients x*, which are printed to stdout (one
 * "%.17g" value a line), or written to the file --coef names instead.
 * Exit status: 0 success, 1 failure (I/O, memory), 2 usage error.
 */
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clkit/lsq.h"

enum {
  GEN_HELP = 'h',
  GEN_ROWS = 1000,
  GEN_DIM,
  GEN_OUT,
  GEN_FORMAT,
  GEN_NOISE,
  GEN_SEED,
  GEN_COEF
};

static const char gen_help[] =
    "usage: clkit gen lsq --rows P --dim D --out FILE [options]\n"
    "\n"
    "Writes a synthetic least-squares data set: P rows a_j with entries\n"
    "uniform in [-1, 1) and b_j = a_j . x* + SIGMA * N(0,1), where the true\n"
    "coefficients x* are uniform in [-2, 2). x* is printed to stdout, one\n"
    "value a line (to stderr when --out is -, standard output), or\n"
    "written to the --coef file instead. Files are replaced atomically.\n"
    "\n"
    "  --rows P          number of rows, at least 1\n"
    "  --dim D           coefficients per row, 1..64\n"
    "  --out FILE        the data file\n"
    "  --format F        csv (default) or bin (also: binary)\n"
    "  --noise SIGMA     standard deviation of the noise on b (default 0)\n"
    "  --seed N          the generator's seed (default 1)\n"
    "  --coef FILE       write x* to FILE, one value a line, not to stdout\n"
    "  -h, --help        this text\n"
    "\n"
    "Examples:\n"
    "  clkit gen lsq --rows 100000 --dim 8 --out data.csv --coef truth.txt\n"
    "  clkit gen lsq --rows 1000000 --dim 16 --out data.bin --format bin\n";

static int gen_usage(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/* Prints "clkit gen: <message>" and a hint; returns the usage status. */
static int gen_usage(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fputs("clkit gen: ", stderr);
  vfprintf(stderr, format, args);
  fputs("\nTry 'clkit gen lsq --help'.\n", stderr);
  va_end(args);
  return EXIT_USAGE;
}

/* The library's message for a failed call; 2 for bad arguments, else 1. */
static int gen_report(ck_status status) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "clkit gen: %s\n", message && *message ? message : "failed");
  return status == CK_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_RUN;
}

/* A count written as a workload's numbers are (1e6, 1000), whole and in
 * [least, most]; 1 when it is one. */
static int whole_number(const char *text, double least, double most,
                        unsigned long long *value) {
  double number = 0;
  if (ck_param_parse_number(text, &number) != CK_OK || number < least ||
      number > most || number != floor(number))
    return 0;
  *value = (unsigned long long)number;
  return 1;
}

/* The options of gen, read. */
typedef struct gen_options {
  unsigned long long rows, dim, seed;
  int have_rows, have_dim;
  double noise;
  const char *out, *coef;
  ck_lsq_format format;
} gen_options;

/* One option, as getopt_long returned it (c): -1 to go on, else an exit
 * status (0 after --help). */
static int read_gen_option(int c, char **argv, const struct option *options,
                           gen_options *gen) {
  switch (c) {
  case GEN_ROWS:
    /* Read as a workload's counts are: 1e6 is a number. */
    if (!whole_number(optarg, 1, 1e15, &gen->rows))
      return gen_usage("--rows takes a whole number from 1 to 1e15, not '%s'",
                       optarg);
    gen->have_rows = 1;
    return -1;
  case GEN_DIM:
    if (!whole_number(optarg, 1, CK_LSQ_MAX_DIM, &gen->dim))
      return gen_usage("--dim takes a whole number from 1 to 64, not '%s'",
                       optarg);
    gen->have_dim = 1;
    return -1;
  case GEN_OUT:
    gen->out = optarg;
    return -1;
  case GEN_FORMAT:
    if (strcmp(optarg, "csv") == 0)
      gen->format = CK_LSQ_CSV;
    else if (strcmp(optarg, "bin") == 0 || strcmp(optarg, "binary") == 0)
      gen->format = CK_LSQ_BINARY;
    else
      return gen_usage("unknown format '%s' (expected csv or bin)", optarg);
    return -1;
  case GEN_NOISE:
    /* Past 1e300 a row's b could overflow a double. */
    if (ck_param_parse_number(optarg, &gen->noise) != CK_OK ||
        !(gen->noise >= 0.0 && gen->noise <= 1e300))
      return gen_usage("--noise takes a number from 0 to 1e300, not '%s'",
                       optarg);
    return -1;
  case GEN_SEED:
    if (cli_parse_unsigned(optarg, &gen->seed) != 0)
      return gen_usage("--seed takes a non-negative whole number, not '%s'",
                       optarg);
    return -1;
  case GEN_COEF:
    gen->coef = optarg;
    return -1;
  case GEN_HELP:
    fputs(gen_help, stdout);
    return EXIT_OK;
  default: {
    char message[160];
    cli_option_message(message, sizeof message, c, argv, optind, options);
    return gen_usage("%s", message);
  }
  }
}

/* The options and the data set's name: -1 to go on, else an exit
 * status. */
static int parse_gen_options(int argc, char **argv, gen_options *gen) {
  static const struct option options[] = {
      {"rows", required_argument, NULL, GEN_ROWS},
      {"dim", required_argument, NULL, GEN_DIM},
      {"out", required_argument, NULL, GEN_OUT},
      {"format", required_argument, NULL, GEN_FORMAT},
      {"noise", required_argument, NULL, GEN_NOISE},
      {"seed", required_argument, NULL, GEN_SEED},
      {"coef", required_argument, NULL, GEN_COEF},
      {"help", no_argument, NULL, GEN_HELP},
      {NULL, 0, NULL, 0}};
  *gen = (gen_options){.seed = 1, .format = CK_LSQ_CSV};
  int c;
  opterr = 0;
  optind = 1;
  /* The leading ':' makes a missing value come back as ':'. */
  while ((c = cli_next_option(argc, argv, ":h", options)) != -1) {
    int exit_code = read_gen_option(c, argv, options, gen);
    if (exit_code >= 0)
      return exit_code;
  }
  if (optind >= argc)
    return gen_usage("which data set? (lsq is the only one)");
  if (strcmp(argv[optind], "lsq") != 0)
    return gen_usage("unknown data set '%s' (expected lsq)", argv[optind]);
  if (optind + 1 < argc)
    return gen_usage("unexpected argument '%s'", argv[optind + 1]);
  if (!gen->have_rows)
    return gen_usage("--rows P is required");
  if (!gen->have_dim)
    return gen_usage("--dim D is required");
  if (!gen->out || !*gen->out)
    return gen_usage("--out FILE is required");
  if (gen->coef && !*gen->coef)
    return gen_usage("--coef: an empty file name");
  return -1;
}

/* A name that says another format than the one written is refused: -1
 * to go on, else an exit status. */
static int check_gen_formats(const gen_options *gen) {
  const char *named = "--out";
  ck_status status = ck_file_check_format(
      gen->out, gen->format == CK_LSQ_BINARY ? "lsq-binary" : "csv");
  if (status == CK_OK && gen->coef) {
    named = "--coef";
    status = ck_file_check_format(gen->coef, "text");
  }
  if (status == CK_OK)
    return -1;
  const char *message = "";
  ck_error_get_last(&message);
  /* The other format, where the name says it, may be the one meant. */
  char said[1024];
  snprintf(said, sizeof said, "%s", message);
  const char *other = gen->format == CK_LSQ_BINARY ? "csv" : "lsq-binary";
  int other_fits = strcmp(named, "--out") == 0 &&
                   ck_file_check_format(gen->out, other) == CK_OK;
  return gen_usage("%s: %s%s", named, said,
                   !other_fits                    ? ""
                   : gen->format == CK_LSQ_BINARY ? " (or give --format csv)"
                                                  : " (or give --format bin)");
}

/* Where the outputs go: an output on stdout ("-") has it to itself, and
 * x* is printed to stderr (*printed) then; one file may not be named
 * twice. -1 to go on, else an exit status. */
static int check_gen_streams(const gen_options *gen, FILE **printed) {
  int out_on_stdout = 0, coef_on_stdout = 0, same = 0;
  ck_file_check_stdout(gen->out, &out_on_stdout);
  if (gen->coef)
    ck_file_check_stdout(gen->coef, &coef_on_stdout);
  if (out_on_stdout && coef_on_stdout)
    return gen_usage("--coef and --out both write to standard output; give "
                     "one of them a file");
  *printed = out_on_stdout || coef_on_stdout ? stderr : stdout;
  ck_status status =
      gen->coef ? ck_file_check_same(gen->coef, gen->out, &same) : CK_OK;
  if (status != CK_OK)
    return gen_report(status);
  if (same)
    return gen_usage("--coef '%s' and --out '%s' name one file", gen->coef,
                     gen->out);
  return -1;
}

/* The data set made and written, and x* printed or written. */
static int write_gen(const gen_options *gen, FILE *printed) {
  /* From here on outputs are written: a signal must not leave their
   * temporaries behind. */
  cli_end_on_signals();
  /* Both outputs checked first: one that cannot be written must not
   * leave the other replaced. */
  ck_status status = ck_file_check_writable(gen->out);
  if (status == CK_OK && gen->coef)
    status = ck_file_check_writable(gen->coef);
  if (status != CK_OK)
    return gen_report(status);

  double x[CK_LSQ_MAX_DIM];
  ck_lsq_data data = {0, 0, NULL, NULL};
  status = ck_lsq_generate((size_t)gen->rows, (size_t)gen->dim,
                           (uint64_t)gen->seed, gen->noise, &data, x);
  if (status != CK_OK)
    return gen_report(status);
  /* Without --coef the coefficients reach stdout (stderr beside --out -)
   * before any file is replaced: a stream that cannot take them (a full
   * disk) must not leave the data replaced and what made it lost. */
  for (size_t d = 0; !gen->coef && d < (size_t)gen->dim; ++d)
    fprintf(printed, "%.17g\n", x[d]);
  if (!gen->coef && (fflush(printed) != 0 || ferror(printed))) {
    ck_lsq_free(&data);
    return EXIT_FAILURE_RUN; /* main says why */
  }
  /* With --coef, both files are replaced or neither. */
  status = gen->coef ? ck_lsq_save_generated(gen->out, &data, gen->format,
                                             gen->coef, x)
                     : ck_lsq_save(gen->out, &data, gen->format);
  ck_lsq_free(&data);
  return status != CK_OK ? gen_report(status) : EXIT_OK;
}

int cli_gen(int argc, char **argv) {
  gen_options gen;
  int exit_code = parse_gen_options(argc, argv, &gen);
  if (exit_code < 0)
    exit_code = check_gen_formats(&gen);
  FILE *printed = stdout;
  if (exit_code < 0)
    exit_code = check_gen_streams(&gen, &printed);
  if (exit_code < 0)
    exit_code = write_gen(&gen, printed);
  return exit_code;
}
