/*
 * clkit.c - the clkit command: main, each command by its name, and what
 * the commands share (usage errors, device selection, report lines).
 * Exit status: 0 success, 1 failure, 2 usage error, 128 + N for a run
 * that signal N (SIGINT, SIGTERM, SIGHUP, SIGPIPE) stopped or ended.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char cli_program_name[] = "clkit";

/* ---- failures and usage errors ------------------------------------------- */

int cli_exit_status(ck_status status) {
  return status == CK_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_RUN;
}

const char *cli_error_message(const char **option) {
  /* The library's fields that the command line sets, by its options. */
  static const char *const fields[][2] = {{"ck_spread.shares:", "--shares:"}};
  const char *message = "";
  ck_error_get_last(&message);
  *option = "";
  if (!message || !*message)
    return "failed";
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k) {
    size_t length = strlen(fields[k][0]);
    if (strncmp(message, fields[k][0], length) == 0) {
      *option = fields[k][1];
      return message + length;
    }
  }
  return message;
}

int cli_report(ck_status status) {
  const char *option = "";
  const char *message = cli_error_message(&option);
  fprintf(stderr, "%s: %s%s\n", cli_program_name, option, message);
  return cli_exit_status(status);
}

int cli_report_failure(ck_status status) {
  int exit_code = cli_report(status);
  cli_status_flush();
  return exit_code;
}

static int usage_muted;

void cli_mute_usage(int muted) {
  usage_muted = muted;
}

int cli_usage_error(const char *command, const char *message) {
  if (!usage_muted)
    fprintf(stderr, "%s %s: %s\nTry '%s %s --help'.\n", cli_program_name,
            command, message, cli_program_name, command);
  return EXIT_USAGE;
}

/* opterr is off so getopt itself stays quiet. */
int cli_option_error(const char *command, char **argv, int code,
                     const struct option *options) {
  char message[256];
  cli_option_message(message, sizeof message, code, argv, optind, options);
  return cli_usage_error(command, message);
}

int cli_usage_report(ck_status status) {
  if (!usage_muted)
    cli_report(status);
  return EXIT_USAGE;
}

int cli_is_help_flag(const char *argument) {
  return strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0;
}

int cli_unexpected(const char *command, const char *argument) {
  char message[200];
  snprintf(message, sizeof message, "unexpected argument '%.160s'", argument);
  return cli_usage_error(command, message);
}

int cli_take_selector(const char *command, const char *value,
                      const char **selector) {
  if (!*value)
    return cli_usage_error(command, "--device: an empty selector");
  *selector = value;
  return -1;
}

/* ---- devices, the cache and report lines --------------------------------- */

int cli_select_devices(const ck_device_set *set, const char *selector,
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
      ck_device_select(set, selector, indices, CLI_MAX_DEVICES, count);
  if (status != CK_OK) {
    const char *message = "";
    ck_error_get_last(&message);
    fprintf(stderr, "%s: %s%s\n", cli_program_name, variable ? variable : "",
            message);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}

int cli_every_device_selected(const char *selector) {
  return !selector || strcmp(selector, "all") == 0;
}

/* A kernel cache that cannot be used costs every run its builds, silently
 * but for this: a CLKIT_CACHE_DIR that is a file, a directory that cannot
 * be read or is refused (relative, a link, writable by others), a
 * CLKIT_CACHE value clkit does not know. */
void cli_warn_if_cache_unusable(void) {
  ck_cache_stats stats;
  ck_status status = ck_cache_query(&stats);
  if (status == CK_OK || !stats.enabled)
    return;
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "%s: warning: %s%s\n", cli_program_name, message,
          status == CK_ERROR_IO || status == CK_ERROR_CACHE
              ? "; kernels are built without the cache"
              : "");
}

/* The status line is for a person: drawn at a terminal, and elsewhere
 * (a pipe, a log) written as a line now and then; not with --quiet, nor
 * beside --json, which a program reads. */
cli_status_mode cli_status_mode_of(int json, int quiet) {
  if (json || quiet)
    return CLI_STATUS_OFF;
  return isatty(STDERR_FILENO) ? CLI_STATUS_DRAWN : CLI_STATUS_LINES;
}

void cli_print_line(void *user, const char *line) {
  cli_line_sink *sink = user;
  int warning = strncmp(line, "warning: ", 9) == 0;
  if (sink->muted || (sink->quiet && !warning))
    return;
  /* Warnings go where every command's go, to stderr. */
  cli_status_print(warning ? stderr : sink->out, line);
}

/* ---- the commands by name ------------------------------------------------ */

static const char version_help[] =
    "usage: clkit version\n\nPrints the library's version.\n";

static int command_version(int argc, char **argv) {
  if (argc == 2 && cli_is_help_flag(argv[1])) {
    fputs(version_help, stdout);
    return EXIT_OK;
  }
  if (argc > 1)
    return cli_unexpected("version", argv[1]);
  const char *version = "";
  ck_version_get(&version);
  printf("clkit %s\n", version);
  return EXIT_OK;
}

/* The commands, in the order a suggestion for a mistyped one takes them. */
static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} commands[] = {{"devices", cli_devices},
                {"run", cli_run},
                {"compare", cli_compare},
                {"bench", cli_bench},
                {"peak", cli_peak},
                {"kernels", cli_kernels},
                {"cache", cli_cache},
                {"gen", cli_gen},
                {"tsp", cli_tsp},
                {"demo", cli_demo},
                {"version", command_version}};
enum { COMMANDS = sizeof commands / sizeof *commands };

/* Runs the command of that name; -1 where there is none. */
static int run_command(const char *name, int argc, char **argv) {
  for (size_t i = 0; i < COMMANDS; ++i)
    if (strcmp(commands[i].name, name) == 0)
      return commands[i].run(argc, argv);
  return -1;
}

/* "unknown command 'NAME'", and the command it most likely meant. */
static int unknown_command(const char *name) {
  const char *names[COMMANDS + 1];
  for (size_t i = 0; i < COMMANDS; ++i)
    names[i] = commands[i].name;
  names[COMMANDS] = "help";
  const char *nearest = NULL;
  ck_param_suggest(name, names, COMMANDS + 1, &nearest);
  fprintf(stderr, "%s: unknown command '%s'%s%s%s\n", cli_program_name, name,
          nearest ? "; did you mean " : "", nearest ? nearest : "",
          nearest ? "?" : "");
  return EXIT_USAGE;
}

/* clkit help [COMMAND], and --help or -h in place of a command. */
static int command_help(int argc, char **argv) {
  if (argc > 3)
    return cli_unexpected("help", argv[3]);
  if (argc > 2) {
    const char *name = argv[2];
    if (strcmp(name, "run") == 0 || strcmp(name, "compare") == 0) {
      cli_print_run_help(name);
      return EXIT_OK;
    }
    if (strcmp(name, "help") != 0 && !cli_is_help_flag(name)) {
      char *help_argv[] = {argv[2], "--help", NULL};
      int exit_code = run_command(name, 2, help_argv);
      return exit_code >= 0 ? exit_code : unknown_command(name);
    }
  }
  cli_print_main_help(stdout);
  return EXIT_OK;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    cli_print_main_help(stderr);
    return EXIT_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "help") == 0 || cli_is_help_flag(command))
    return command_help(argc, argv);
  if (strcmp(command, "--version") == 0)
    command = "version";
  /* Each command sees its own name as argv[0], as getopt expects. */
  int exit_code = run_command(command, argc - 1, argv + 1);
  if (exit_code >= 0)
    return exit_code;
  unknown_command(command);
  cli_print_main_help(stderr);
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  opterr = 0;
  int exit_code = dispatch(argc, argv);
  /* A result that never reached its reader (a full disk, a closed pipe) is
   * a failure, even though every call before it succeeded. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: cannot write to standard output: %s\n",
            cli_program_name, strerror(errno));
    if (exit_code == EXIT_OK)
      exit_code = EXIT_FAILURE_RUN;
  }
  return exit_code;
}
