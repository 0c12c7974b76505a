/*
 * cli_kernels.c - clkit kernels, the embedded OpenCL C sources (as they
 * stand, or assembled for a device), and clkit cache, the kernel binary
 * cache.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A program assembled for the one device selector names (kernels show
 * NAME --assembled --device SEL), printed. */
static int show_assembled_for_device(const char *name, const char *selector) {
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  size_t indices[CLI_MAX_DEVICES], count = 0;
  int exit_code = EXIT_OK;
  status = ck_device_select(&set, selector, indices, CLI_MAX_DEVICES, &count);
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
    exit_code = cli_usage_error("kernels", message);
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

/* The options of kernels: -1 to go on, else an exit status (0 after
 * --help). */
static int parse_kernels_options(int argc, char **argv, int *assembled,
                                 const char **selector) {
  static const struct option options[] = {
      {"assembled", no_argument, NULL, CLI_OPT_ASSEMBLED},
      {"device", required_argument, NULL, CLI_OPT_DEVICE},
      {"help", no_argument, NULL, CLI_OPT_HELP},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case CLI_OPT_ASSEMBLED:
      *assembled = 1;
      break;
    case CLI_OPT_DEVICE:
      if (cli_take_selector("kernels", optarg, selector) >= 0)
        return EXIT_USAGE;
      break;
    case CLI_OPT_HELP:
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
      return cli_option_error("kernels", argv, c, options);
    }
  }
  return -1;
}

/* kernels list: each embedded source and its size. */
static int list_kernels(void) {
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

/* kernels show NAME: the embedded source as it stands. */
static int show_kernel(const char *name) {
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
          cli_program_name, name);
  return EXIT_USAGE;
}

/* kernels show NAME --assembled: the program with its headers inlined. */
static int show_assembled(const char *name) {
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

int cli_kernels(int argc, char **argv) {
  int assembled = 0;
  const char *selector = NULL;
  int exit_code = parse_kernels_options(argc, argv, &assembled, &selector);
  if (exit_code >= 0)
    return exit_code;
  const char *action = optind < argc ? argv[optind] : "list";
  if (strcmp(action, "list") == 0) {
    if (optind + 1 < argc)
      return cli_usage_error("kernels", "'list' takes no argument");
    if (assembled || selector)
      return cli_usage_error("kernels",
                             assembled ? "--assembled goes with 'show NAME'"
                                       : "--device goes with 'show NAME "
                                         "--assembled'");
    return list_kernels();
  }
  if (strcmp(action, "show") != 0)
    return cli_usage_error("kernels", "expected 'list' or 'show NAME'");
  if (optind + 2 != argc)
    return cli_usage_error("kernels", "'show' takes one source name");
  const char *name = argv[optind + 1];
  if (selector && !assembled)
    return cli_usage_error("kernels", "--device goes with --assembled");
  if (selector)
    return show_assembled_for_device(name, selector);
  if (assembled)
    return show_assembled(name);
  return show_kernel(name);
}

int cli_cache(int argc, char **argv) {
  const char *action = argc > 1 ? argv[1] : "info";
  int help = 0;
  for (int i = 1; i < argc; ++i)
    help |= cli_is_help_flag(argv[i]);
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
    return cli_unexpected("cache", argv[2]);
  if (strcmp(action, "info") != 0 && strcmp(action, "clear") != 0) {
    char message[160];
    snprintf(message, sizeof message,
             "unknown action '%.100s'; expected 'info' or 'clear'", action);
    return cli_usage_error("cache", message);
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
    fprintf(stderr, "%s: warning: %s\n", cli_program_name, message);
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
