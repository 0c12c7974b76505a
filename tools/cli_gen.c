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

int cli_gen(int argc, char **argv) {
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
  unsigned long long rows = 0, dim = 0, seed = 1;
  int have_rows = 0, have_dim = 0;
  double noise = 0.0;
  const char *out = NULL, *coef = NULL;
  ck_lsq_format format = CK_LSQ_CSV;
  int c;

  opterr = 0;
  optind = 1;
  /* The leading ':' makes a missing value come back as ':'. */
  while ((c = cli_next_option(argc, argv, ":h", options)) != -1) {
    switch (c) {
    case GEN_ROWS:
      /* Read as a workload's counts are: 1e6 is a number. */
      if (!whole_number(optarg, 1, 1e15, &rows))
        return gen_usage("--rows takes a whole number from 1 to 1e15, not '%s'",
                         optarg);
      have_rows = 1;
      break;
    case GEN_DIM:
      if (!whole_number(optarg, 1, CK_LSQ_MAX_DIM, &dim))
        return gen_usage("--dim takes a whole number from 1 to 64, not '%s'",
                         optarg);
      have_dim = 1;
      break;
    case GEN_OUT:
      out = optarg;
      break;
    case GEN_FORMAT:
      if (strcmp(optarg, "csv") == 0)
        format = CK_LSQ_CSV;
      else if (strcmp(optarg, "bin") == 0 || strcmp(optarg, "binary") == 0)
        format = CK_LSQ_BINARY;
      else
        return gen_usage("unknown format '%s' (expected csv or bin)", optarg);
      break;
    case GEN_NOISE:
      /* Past 1e300 a row's b could overflow a double. */
      if (ck_param_parse_number(optarg, &noise) != CK_OK ||
          !(noise >= 0.0 && noise <= 1e300))
        return gen_usage("--noise takes a number from 0 to 1e300, not '%s'",
                         optarg);
      break;
    case GEN_SEED:
      if (cli_parse_unsigned(optarg, &seed) != 0)
        return gen_usage("--seed takes a non-negative whole number, not '%s'",
                         optarg);
      break;
    case GEN_COEF:
      coef = optarg;
      break;
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
  if (optind >= argc)
    return gen_usage("which data set? (lsq is the only one)");
  if (strcmp(argv[optind], "lsq") != 0)
    return gen_usage("unknown data set '%s' (expected lsq)", argv[optind]);
  if (optind + 1 < argc)
    return gen_usage("unexpected argument '%s'", argv[optind + 1]);
  if (!have_rows)
    return gen_usage("--rows P is required");
  if (!have_dim)
    return gen_usage("--dim D is required");
  if (!out || !*out)
    return gen_usage("--out FILE is required");
  if (coef && !*coef)
    return gen_usage("--coef: an empty file name");
  /* A name that says another format than the one written is refused. */
  const char *named = "--out";
  ck_status status =
      ck_file_check_format(out, format == CK_LSQ_BINARY ? "lsq-binary" : "csv");
  if (status == CK_OK && coef) {
    named = "--coef";
    status = ck_file_check_format(coef, "text");
  }
  if (status != CK_OK) {
    const char *message = "";
    ck_error_get_last(&message);
    /* The other format, where the name says it, may be the one meant. */
    char said[1024];
    snprintf(said, sizeof said, "%s", message);
    const char *other = format == CK_LSQ_BINARY ? "csv" : "lsq-binary";
    int other_fits =
        strcmp(named, "--out") == 0 && ck_file_check_format(out, other) == CK_OK;
    return gen_usage("%s: %s%s", named, said,
                     !other_fits               ? ""
                     : format == CK_LSQ_BINARY ? " (or give --format csv)"
                                               : " (or give --format bin)");
  }
  /* An output on stdout ("-") has it to itself: x* is printed to stderr. */
  int out_on_stdout = 0, coef_on_stdout = 0, same = 0;
  ck_file_check_stdout(out, &out_on_stdout);
  if (coef)
    ck_file_check_stdout(coef, &coef_on_stdout);
  if (out_on_stdout && coef_on_stdout)
    return gen_usage("--coef and --out both write to standard output; give "
                     "one of them a file");
  FILE *printed = out_on_stdout || coef_on_stdout ? stderr : stdout;
  status = coef ? ck_file_check_same(coef, out, &same) : CK_OK;
  if (status != CK_OK)
    return gen_report(status);
  if (same)
    return gen_usage("--coef '%s' and --out '%s' name one file", coef, out);

  /* From here on outputs are written: a signal must not leave their
   * temporaries behind. */
  cli_end_on_signals();
  /* Both outputs checked first: one that cannot be written must not
   * leave the other replaced. */
  status = ck_file_check_writable(out);
  if (status == CK_OK && coef)
    status = ck_file_check_writable(coef);
  if (status != CK_OK)
    return gen_report(status);

  double x[CK_LSQ_MAX_DIM];
  ck_lsq_data data = {0, 0, NULL, NULL};
  status = ck_lsq_generate((size_t)rows, (size_t)dim, (uint64_t)seed, noise,
                           &data, x);
  if (status != CK_OK)
    return gen_report(status);
  /* Without --coef the coefficients reach stdout (stderr beside --out -)
   * before any file is replaced: a stream that cannot take them (a full
   * disk) must not leave the data replaced and what made it lost. */
  for (size_t d = 0; !coef && d < (size_t)dim; ++d)
    fprintf(printed, "%.17g\n", x[d]);
  if (!coef && (fflush(printed) != 0 || ferror(printed))) {
    ck_lsq_free(&data);
    return EXIT_FAILURE_RUN; /* main says why */
  }
  /* With --coef, both files are replaced or neither. */
  status = coef ? ck_lsq_save_generated(out, &data, format, coef, x)
                : ck_lsq_save(out, &data, format);
  ck_lsq_free(&data);
  return status != CK_OK ? gen_report(status) : EXIT_OK;
}
