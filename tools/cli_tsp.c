/*
 * cli_tsp.c - the 'clkit tsp' command: TSPLIB instances and tours.
 *
 *   clkit tsp eval FILE.tsp TOUR.tour [--optima FILE | --optimum N]
 *   clkit tsp info FILE.tsp
 *
 * eval checks that the tour visits every city once and prints its exact
 * length, with the gap to the optimum when one is known. A FILE of "-"
 * is standard input.
 * Exit status: 0 success, 1 failure (unreadable or malformed file), 2
 * usage error.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clkit/tsp.h"

enum { TSP_HELP = 'h', TSP_OPTIMA = 1000, TSP_OPTIMUM };

static const char tsp_help[] =
    "usage: clkit tsp eval FILE.tsp TOUR.tour [--optima FILE | --optimum N]\n"
    "       clkit tsp info FILE.tsp\n"
    "\n"
    "Symmetric TSPLIB instances (EUC_2D, CEIL_2D, ATT, GEO, EXPLICIT).\n"
    "\n"
    "  eval              check that the tour visits every city once and\n"
    "                    print \"NAME: length L\", with the optimum and the\n"
    "                    gap to it when one is known\n"
    "  info              print the instance's name, cities, metric and\n"
    "                    comment\n"
    "\n"
    "  --optima FILE     known optima, lines \"name : value\" (eval)\n"
    "  --optimum N       the optimum of this instance (eval)\n"
    "  -h, --help        this text\n";

static const char *const metric_names[] = {"EUC_2D", "CEIL_2D", "ATT", "GEO",
                                           "EXPLICIT"};

static int tsp_usage(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/* Prints "clkit tsp: <message>" and a hint; returns the usage status. */
static int tsp_usage(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fputs("clkit tsp: ", stderr);
  vfprintf(stderr, format, args);
  fputs("\nTry 'clkit tsp --help'.\n", stderr);
  va_end(args);
  return EXIT_USAGE;
}

/* The library's message (it names the file and line) for a failed call.
 * Files are the user's input, so every failure here is a run failure. */
static int tsp_report(void) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "clkit: %s\n", message && *message ? message : "failed");
  return EXIT_FAILURE_RUN;
}

/* A warning of the library's ("warning: ..."), on stderr. */
static void tsp_warn(void *user, const char *line) {
  (void)user;
  fprintf(stderr, "clkit tsp: %s\n", line);
}

/* Text from a file, with its control characters (an escape sequence
 * that would drive the terminal, say) shown as \xHH instead. */
static void print_visible(const char *text) {
  for (const unsigned char *at = (const unsigned char *)text; *at; ++at)
    if ((*at < 0x20 && *at != '\t') || *at == 0x7f)
      printf("\\x%02x", *at);
    else
      putchar(*at);
}

static int tsp_info(const char *path) {
  ck_tsp_instance instance;
  if (ck_tsp_load(path, &instance) != CK_OK)
    return tsp_report();
  printf("name      %s\n", instance.name);
  printf("cities    %" PRIu32 "\n", instance.cities);
  printf("metric    %s\n", metric_names[instance.metric]);
  printf("comment   ");
  print_visible(instance.comment);
  putchar('\n');
  ck_tsp_free(&instance);
  return EXIT_OK; /* main checks that stdout took it */
}

/* optima: a file to look the name up in, or NULL; optimum: given with
 * --optimum (>= 1), or -1. */
static int tsp_eval(const char *path, const char *tour_path, const char *optima,
                    int64_t optimum) {
  ck_tsp_instance instance;
  uint32_t *tour = NULL;
  int64_t length = 0;
  int code = EXIT_OK;
  if (ck_tsp_load(path, &instance) != CK_OK)
    return tsp_report();
  if (ck_tsp_tour_load(tour_path, instance.cities, &tour) != CK_OK ||
      ck_tsp_tour_measure(&instance, tour, &length) != CK_OK) {
    code = tsp_report();
    goto done;
  }
  if (optima) {
    ck_status found = ck_tsp_optimum_find(optima, instance.name, path, tsp_warn,
                                          NULL, &optimum);
    if (found == CK_ERROR_NOT_FOUND) {
      /* Not listed: the length alone, and why. */
      const char *message = "";
      ck_error_get_last(&message);
      fprintf(stderr, "clkit tsp: warning: %s; no gap is shown\n", message);
      optimum = -1;
    } else if (found != CK_OK) {
      code = tsp_report();
      goto done;
    }
  }
  printf("%s: length %" PRId64, instance.name, length);
  if (optimum > 0)
    printf(", optimum %" PRId64 ", gap %.2f%%", optimum,
           100.0 * (double)(length - optimum) / (double)optimum);
  putchar('\n');
  /* A valid tour shorter than the optimum proves the optimum wrong. */
  if (optimum > length)
    fprintf(stderr,
            "clkit tsp: warning: the tour is shorter than the optimum "
            "given, %" PRId64 ": that is not %s's optimum\n",
            optimum, instance.name);
done:
  free(tour);
  ck_tsp_free(&instance);
  return code;
}

int cli_tsp(int argc, char **argv) {
  static const struct option options[] = {
      {"optima", required_argument, NULL, TSP_OPTIMA},
      {"optimum", required_argument, NULL, TSP_OPTIMUM},
      {"help", no_argument, NULL, TSP_HELP},
      {NULL, 0, NULL, 0}};
  const char *optima = NULL;
  int64_t optimum = -1;
  int c;

  opterr = 0;
  optind = 1;
  /* The leading ':' makes a missing value come back as ':'. */
  while ((c = cli_next_option(argc, argv, ":h", options)) != -1) {
    switch (c) {
    case TSP_OPTIMA:
      optima = optarg;
      break;
    case TSP_OPTIMUM: {
      unsigned long long value = 0;
      if (cli_parse_unsigned(optarg, &value) != 0 || value < 1 ||
          value > INT64_MAX)
        return tsp_usage("--optimum takes a whole number >= 1, not '%s'",
                         optarg);
      optimum = (int64_t)value;
      break;
    }
    case TSP_HELP:
      fputs(tsp_help, stdout);
      return EXIT_OK;
    default: {
      char message[160];
      cli_option_message(message, sizeof message, c, argv, optind, options);
      return tsp_usage("%s", message);
    }
    }
  }
  if (optind >= argc)
    return tsp_usage("which action? (eval or info)");
  const char *action = argv[optind];
  int operands = argc - optind - 1;
  char **operand = argv + optind + 1;
  if (strcmp(action, "info") == 0) {
    if (optima || optimum >= 0)
      return tsp_usage("--optima and --optimum go with eval, not info");
    if (operands < 1)
      return tsp_usage("info needs FILE.tsp");
    if (operands > 1)
      return tsp_usage("unexpected argument '%s'", operand[1]);
    return tsp_info(operand[0]);
  }
  if (strcmp(action, "eval") == 0) {
    if (optima && optimum >= 0)
      return tsp_usage("give --optima or --optimum, not both");
    if (operands < 2)
      return tsp_usage("eval needs FILE.tsp and TOUR.tour");
    if (operands > 2)
      return tsp_usage("unexpected argument '%s'", operand[2]);
    /* "-" is standard input, which holds one file. */
    if ((strcmp(operand[0], "-") == 0) + (strcmp(operand[1], "-") == 0) +
            (optima && strcmp(optima, "-") == 0) >
        1)
      return tsp_usage("more than one file is \"-\", standard input, "
                       "which holds one file; name the others");
    return tsp_eval(operand[0], operand[1], optima, optimum);
  }
  return tsp_usage("unknown action '%s' (expected eval or info)", action);
}
