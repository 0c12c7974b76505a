/*
 * test_cli - the clkit command from the outside: exit codes (0 success,
 * 1 failure, 2 usage error) and what it prints, in a controlled
 * environment: a private cache directory, no CLKIT_DEVICE, and for the
 * no-platform cases an OpenCL loader that finds no driver.
 *
 * The path of the clkit binary is the first argument.
 */
/* posix_openpt and its kin, for a stderr that is a terminal. */
#define _XOPEN_SOURCE 700

#include "check.h"
#include "cli.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 32
#define RUN_TIMEOUT_S 120

static const char *clkit_path;
static char work_dir[512];
static char cache_dir[600];
static char empty_vendors[600];

typedef struct run_output {
  int exit_code; /* -1 when the command did not exit normally */
  char *out;
  char *err;
} run_output;

/* Environment changes for one run: "NAME=VALUE" sets, "NAME" unsets. */
static void apply_environment(const char *const *changes) {
  for (; changes && *changes; ++changes) {
    const char *equals = strchr(*changes, '=');
    if (!equals) {
      unsetenv(*changes);
      continue;
    }
    char name[128];
    size_t length = (size_t)(equals - *changes);
    if (length >= sizeof name)
      continue;
    memcpy(name, *changes, length);
    name[length] = '\0';
    setenv(name, equals + 1, 1);
  }
}

/* Runs clkit with argv (NULL-terminated, without the program) and the
 * environment changes; stdin is /dev/null, stdout and stderr are caught. */
/* Where the next runs' stdout goes instead of a file read back (NULL:
 * that file). */
static const char *stdout_target;
/* The file the next runs read as stdin (NULL: /dev/null), and the
 * directory they run in (NULL: this test's). */
static const char *stdin_source;
static const char *run_directory;
/* When set, the next runs get SIGINT once a file whose name begins so
 * appears in the work directory with bytes in it (a run's temporary
 * output, written: by then it is running). */
static const char *interrupt_when;
/* With interrupt_when: a second SIGINT soon after the first. */
static int interrupt_twice;
/* With interrupt_when: the signal sent (0: SIGINT). */
static int interrupt_signal;
/* When set, the next runs may write files of at most this many bytes
 * (ulimit -f). */
static rlim_t file_size_limit;
/* When set, the next runs may map at most this many bytes (ulimit -v). */
static rlim_t address_space_limit;
/* When set and this test is the super-user, the next runs drop to
 * UNPRIVILEGED_ID (nobody, nogroup) before exec: root passes every
 * permission check, so a refusal that rests on one is only met so. The
 * directory named is one that user must be able to write in; a run that
 * cannot drop, write there or run clkit exits UNPRIVILEGED_UNREACHABLE with
 * the reason on stderr, not what clkit would do. */
static const char *unprivileged_in;
#define UNPRIVILEGED_ID 65534
#define UNPRIVILEGED_UNREACHABLE 125
/* When set, the next runs' stderr is a terminal (a pseudo-terminal whose
 * output is read back as their stderr), as a person at one sees it. */
static int stderr_on_terminal;

/* A pseudo-terminal: *primary for the parent, its secondary's path in
 * name. Returns 0, or -1. */
static int open_terminal(int *primary, char *name, size_t size) {
  int fd = posix_openpt(O_RDWR | O_NOCTTY);
  const char *secondary = NULL;
  if (fd < 0 || grantpt(fd) != 0 || unlockpt(fd) != 0 ||
      !(secondary = ptsname(fd)) || strlen(secondary) >= size) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  snprintf(name, size, "%s", secondary);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  *primary = fd;
  return 0;
}

/* What the terminal has for the parent, appended to *text (*used bytes). */
static void read_terminal(int primary, char **text, size_t *used) {
  char block[4096];
  ssize_t got;
  while (primary >= 0 && (got = read(primary, block, sizeof block)) > 0) {
    char *grown = realloc(*text, *used + (size_t)got + 1);
    if (!grown)
      return;
    memcpy(grown + *used, block, (size_t)got);
    *used += (size_t)got;
    grown[*used] = '\0';
    *text = grown;
  }
}

/* In the forked child, after its redirections: become UNPRIVILEGED_ID for
 * good (the supplementary groups first, then the group, then the user: each
 * needs the privilege the next one gives up), or exit saying why. */
static void become_unprivileged(void) {
  const char *failed = NULL;
  if (setgroups(0, NULL) != 0)
    failed = "setgroups";
  else if (setgid(UNPRIVILEGED_ID) != 0)
    failed = "setgid";
  else if (setuid(UNPRIVILEGED_ID) != 0)
    failed = "setuid";
  if (failed) {
    fprintf(stderr, "cannot become uid %d: %s: %s\n", UNPRIVILEGED_ID, failed,
            strerror(errno));
    _exit(UNPRIVILEGED_UNREACHABLE);
  }
  /* Should setuid have left a way back, the run would prove nothing. */
  if (getuid() != UNPRIVILEGED_ID || geteuid() != UNPRIVILEGED_ID ||
      getegid() != UNPRIVILEGED_ID || setuid(0) == 0) {
    fprintf(stderr, "uid %d kept privileges\n", UNPRIVILEGED_ID);
    _exit(UNPRIVILEGED_UNREACHABLE);
  }
  /* access() asks as the real user, now this one. */
  if (access(unprivileged_in, W_OK | X_OK) != 0) {
    fprintf(stderr, "uid %d cannot write in %s: %s\n", UNPRIVILEGED_ID,
            unprivileged_in, strerror(errno));
    _exit(UNPRIVILEGED_UNREACHABLE);
  }
  if (access(clkit_path, X_OK) != 0) {
    fprintf(stderr, "uid %d cannot run %s: %s\n", UNPRIVILEGED_ID, clkit_path,
            strerror(errno));
    _exit(UNPRIVILEGED_UNREACHABLE);
  }
}

/* Whether the work directory holds a file whose name begins with prefix
 * (with written 1, one that holds some bytes already: the check of an
 * output's path before a run makes an empty temporary for a moment). */
static int work_dir_holds(const char *prefix, int written) {
  DIR *directory = opendir(work_dir);
  struct dirent *item;
  int found = 0;
  while (directory && !found && (item = readdir(directory))) {
    found = strncmp(item->d_name, prefix, strlen(prefix)) == 0;
    if (found && written) {
      char path[1200];
      struct stat info;
      snprintf(path, sizeof path, "%s/%s", work_dir, item->d_name);
      found = stat(path, &info) == 0 && info.st_size > 0;
    }
  }
  if (directory)
    closedir(directory);
  return found;
}

static int work_dir_has(const char *prefix) {
  return work_dir_holds(prefix, 0);
}

/* clkit's argv for arguments (NULL-terminated, at most MAX_ARGS). */
static void clkit_argv(const char *const *arguments, char **argv) {
  size_t argc = 0;
  argv[argc++] = (char *)clkit_path;
  for (; arguments[argc - 1] && argc <= MAX_ARGS; ++argc)
    argv[argc] = (char *)arguments[argc - 1];
  argv[argc] = NULL;
}

static run_output run_clkit_env(const char *const *environment,
                                const char *const *arguments) {
  run_output result = {-1, NULL, NULL};
  char out_path[700], err_path[700];
  snprintf(out_path, sizeof out_path, "%s/stdout", work_dir);
  snprintf(err_path, sizeof err_path, "%s/stderr", work_dir);
  char *argv[MAX_ARGS + 2];
  clkit_argv(arguments, argv);

  int primary = -1;
  char terminal[256] = "", *shown = NULL;
  size_t shown_size = 0;
  if (stderr_on_terminal &&
      open_terminal(&primary, terminal, sizeof terminal) != 0) {
    fprintf(stderr, "no pseudo-terminal: %s\n", strerror(errno));
    return result;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "fork: %s\n", strerror(errno));
    return result;
  }
  if (child == 0) {
    int in = open(stdin_source ? stdin_source : "/dev/null", O_RDONLY);
    int out = open(stdout_target ? stdout_target : out_path,
                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = primary >= 0 ? open(terminal, O_RDWR | O_NOCTTY)
                           : open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0)
      _exit(126);
    if (primary >= 0)
      close(primary);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    close(in);
    close(out);
    close(err);
    if (run_directory && chdir(run_directory) != 0)
      _exit(126);
    apply_environment(environment);
    if (file_size_limit) {
      struct rlimit limit = {file_size_limit, file_size_limit};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
        _exit(126);
    }
    if (address_space_limit) {
      struct rlimit limit = {address_space_limit, address_space_limit};
      if (setrlimit(RLIMIT_AS, &limit) != 0)
        _exit(126);
    }
    if (unprivileged_in && geteuid() == 0)
      become_unprivileged();
    execv(clkit_path, argv);
    _exit(127);
  }
  int status = 0, interrupted = 0;
  struct timespec pause = {0, 5 * 1000 * 1000};
  long waited_ms = 0;
  for (;;) {
    pid_t done = waitpid(child, &status, WNOHANG);
    read_terminal(primary, &shown, &shown_size);
    if (done == child)
      break;
    if (interrupt_when && !interrupted && work_dir_holds(interrupt_when, 1)) {
      kill(child, interrupt_signal ? interrupt_signal : SIGINT);
      interrupted = 1;
      if (interrupt_twice) {
        struct timespec between = {0, 2 * 1000 * 1000};
        nanosleep(&between, NULL);
        kill(child, SIGINT);
      }
    }
    if (done < 0 && errno != EINTR) {
      fprintf(stderr, "waitpid: %s\n", strerror(errno));
      return result;
    }
    if (waited_ms >= RUN_TIMEOUT_S * 1000L) {
      fprintf(stderr, "clkit took over %d s; killing it\n", RUN_TIMEOUT_S);
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      status = -1;
      break;
    }
    nanosleep(&pause, NULL);
    waited_ms += 5;
  }
  /* A signal's end reads as a shell gives it: 128 + the signal. */
  if (status != -1 && WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (status != -1 && WIFSIGNALED(status)) {
    fprintf(stderr, "clkit died of signal %d\n", WTERMSIG(status));
    result.exit_code = 128 + WTERMSIG(status);
  }
  result.out = stdout_target ? NULL : test_read_file(out_path, NULL);
  if (primary >= 0) {
    read_terminal(primary, &shown, &shown_size);
    close(primary);
    result.err = shown;
  } else {
    result.err = test_read_file(err_path, NULL);
  }
  if (!result.out)
    result.out = calloc(1, 1);
  if (!result.err)
    result.err = calloc(1, 1);
  return result;
}

static run_output run_clkit(const char *const *arguments) {
  return run_clkit_env(NULL, arguments);
}

static void release(run_output *output) {
  free(output->out);
  free(output->err);
  output->out = output->err = NULL;
}

/* A readable label for failure messages. */
static const char *label_of(const char *const *arguments) {
  static char label[512];
  size_t used = 0;
  label[0] = '\0';
  for (; *arguments && used + 1 < sizeof label; ++arguments) {
    int written = snprintf(label + used, sizeof label - used, "%s%s",
                           used ? " " : "", *arguments);
    if (written < 0)
      break;
    used += (size_t)written;
  }
  if (used >= sizeof label)
    used = sizeof label - 1;
  label[used] = '\0';
  return label;
}

static int has(const char *text, const char *part) {
  return text && strstr(text, part) != NULL;
}

static int count_lines(const char *text) {
  int lines = 0;
  for (; text && *text; ++text)
    lines += *text == '\n';
  return lines;
}

/* Is there a line starting with prefix? */
static int has_line_starting(const char *text, const char *prefix) {
  size_t length = strlen(prefix);
  for (const char *line = text; line && *line;) {
    if (strncmp(line, prefix, length) == 0)
      return 1;
    line = strchr(line, '\n');
    if (line)
      ++line;
  }
  return 0;
}

#define EXPECT_EXIT(output, code, arguments)                                   \
  CHECK_MSG((output).exit_code == (code),                                      \
            "'clkit %s' exited %d, want %d\n--- stdout:\n%s--- stderr:\n%s",   \
            label_of(arguments), (output).exit_code, (code), (output).out,     \
            (output).err)

#define EXPECT_HAS(text, part, arguments)                                      \
  CHECK_MSG(has((text), (part)), "'clkit %s': output lacks \"%s\":\n%s",       \
            label_of(arguments), (part), (text) ? (text) : "(none)")

/* Runs clkit with the environment changes (NULL: none) and checks its exit
 * status and that its stdout, or its stderr with on_stderr, contains text. */
static void expect_output(const char *const *environment,
                          const char *const *arguments, int exit_code,
                          int on_stderr, const char *text) {
  run_output r = run_clkit_env(environment, arguments);
  EXPECT_EXIT(r, exit_code, arguments);
  EXPECT_HAS(on_stderr ? r.err : r.out, text, arguments);
  release(&r);
}

/* Runs a command that must fail: it exits exit_code, its stderr contains
 * names (the option, file or line at fault), and it prints nothing on
 * stdout. */
static void expect_refusal(const char *const *arguments, int exit_code,
                           const char *names) {
  run_output r = run_clkit(arguments);
  EXPECT_EXIT(r, exit_code, arguments);
  EXPECT_HAS(r.err, names, arguments);
  CHECK_MSG(r.out[0] == '\0', "'clkit %s' printed to stdout: %s",
            label_of(arguments), r.out);
  release(&r);
}

/* Runs alone (a run on one device) and spread (its spread form), both
 * with --json: both succeed, spread's output holds `member` (its members,
 * say), and its best and x are alone's. */
static void expect_as_alone(const char *const *alone, const char *const *spread,
                            const char *member) {
  run_output a = run_clkit(alone), b = run_clkit(spread);
  EXPECT_EXIT(a, 0, alone);
  EXPECT_EXIT(b, 0, spread);
  EXPECT_HAS(b.out, member, spread);
  const char *best_a = strstr(a.out, "\"best\":"),
             *best_b = strstr(b.out, "\"best\":");
  const char *x_a = strstr(a.out, "\"x\":["), *x_b = strstr(b.out, "\"x\":[");
  CHECK(best_a && best_b && x_a && x_b);
  if (best_a && best_b && x_a && x_b)
    CHECK_MSG(strtod(best_a + 7, NULL) == strtod(best_b + 7, NULL) &&
                  strcspn(x_a, "]") == strcspn(x_b, "]") &&
                  strncmp(x_a, x_b, strcspn(x_a, "]")) == 0,
              "'clkit %s': %s, alone %s", label_of(spread), b.out, a.out);
  release(&a);
  release(&b);
}

static int json_object_line(const char *text) {
  if (!text || count_lines(text) != 1 || text[strlen(text) - 1] != '\n')
    return 0;
  json_reader reader = {text, 0};
  if (*reader.at != '{' || !json_value(&reader))
    return 0;
  return strcmp(reader.at, "\n") == 0;
}

static int make_directories(void) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  snprintf(work_dir, sizeof work_dir, "%s/clkit-test-cli-XXXXXX", base);
  if (!mkdtemp(work_dir))
    return 0;
  snprintf(cache_dir, sizeof cache_dir, "%s/cache", work_dir);
  snprintf(empty_vendors, sizeof empty_vendors, "%s/no-vendors", work_dir);
  return mkdir(empty_vendors, 0700) == 0;
}

/* ---- the cases --------------------------------------------------------------
 */

/* gen lsq over a data file holding "old\n" (name, in the work directory),
 * with stdout on a full device (coefficients NULL) or --coef coefficients:
 * exit 1 with a message holding `message`, the file as it was, and no
 * temporary beside it. */
static void expect_gen_keeps_data(const char *name, const char *coefficients,
                                  const char *message) {
  char data[700], temporary[128];
  test_write_text(work_dir, name, "old\n", data, sizeof data);
  snprintf(temporary, sizeof temporary, ".%s.tmp.", name);
  const char *args[] = {"gen",   "lsq", "--rows", "10",         "--dim", "3",
                        "--out", data,  "--coef", coefficients, NULL};
  if (!coefficients) {
    args[8] = NULL;
    stdout_target = "/dev/full";
  }
  run_output r = run_clkit(args);
  stdout_target = NULL;
  EXPECT_EXIT(r, 1, args);
  EXPECT_HAS(r.err, message, args);
  char *kept = test_read_file(data, NULL);
  CHECK_MSG(kept && strcmp(kept, "old\n") == 0, "%s holds '%.20s'", data,
            kept ? kept : "(nothing)");
  free(kept);
  CHECK_MSG(!work_dir_has(temporary), "gen left %s... in %s", temporary,
            work_dir);
  release(&r);
}

static void check_basic_commands(void) {
  {
    const char *const args[] = {"version", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(strncmp(r.out, "clkit ", 6) == 0, "version printed: %s", r.out);
    EXPECT_HAS(r.out, CK_VERSION_STRING, args);
    CHECK(count_lines(r.out) == 1);
    release(&r);
  }
  /* Each command's exit status and a piece of what it prints. */
  static const struct {
    const char *args[8];
    int exit_code;
    int on_stderr;
    const char *text;
  } cases[] = {
      {{"help", NULL}, 0, 0, "usage: clkit"},
      {{"help", NULL}, 0, 0, "selfcheck"}, /* the workloads are listed */
      {{"help", "run", NULL}, 0, 0, "--device"},
      {{"run", "selfcheck", "--help", NULL}, 0, 0, "--count"},
      {{"run", "selfcheck", "--help", NULL}, 0, 0, "--passes"},
      {{NULL}, 2, 1, "usage"},
      {{"cache", "info", "--help", NULL}, 0, 0, "usage: clkit cache"},
      /* A program's name serves without its .cl, as with --assembled. */
      {{"kernels", "show", "selfcheck", NULL}, 0, 0, "selfcheck.cl"},
      {{"frobnicate", NULL}, 2, 1, "frobnicate"},
      /* The --help that a usage error suggests works for every command. */
      {{"version", "--help", NULL}, 0, 0, "usage: clkit version"},
      {{"help", "--help", NULL}, 0, 0, "usage: clkit"},
      /* The run's options, and the workloads, as `clkit help run` says. */
      {{"run", "--help", NULL}, 0, 0, "--seed N"},
      {{"run", "--help", NULL}, 0, 0, "  gas "},
      {{"compare", "--help", NULL}, 0, 0, "ref always"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    expect_output(NULL, cases[c].args, cases[c].exit_code, cases[c].on_stderr,
                  cases[c].text);
  {
    /* A device is written in place, not replaced by a renamed file, and
     * may take every output of a run. */
    const char *const args[] = {
        "run", "pso",   "--device",  "ref",     "--dim",     "2", "--iters",
        "2",   "--out", "/dev/null", "--trace", "/dev/null", NULL};
    struct stat before, after;
    CHECK(stat("/dev/null", &before) == 0);
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode) &&
          after.st_ino == before.st_ino);
    release(&r);
  }
  {
    /* A result that cannot be written is a failure, said on stderr. */
    const char *const args[] = {"run",      "selfcheck", "--device",
                                "ref",      "--count",   "16",
                                "--passes", "1",         NULL};
    stdout_target = "/dev/full";
    run_output r = run_clkit(args);
    stdout_target = NULL;
    EXPECT_EXIT(r, 1, args);
    EXPECT_HAS(r.err, "cannot write to standard output", args);
    release(&r);
  }
  /* gen's coefficients go to stdout before its data replaces a file:
   * where they cannot, the file stays as it was. */
  expect_gen_keeps_data("kept.csv", NULL, "cannot write to standard output");
  /* --coef that cannot take the coefficients (a full device, written in
   * place) leaves the data file as it was too. */
  expect_gen_keeps_data("kept-too.csv", "/dev/full", "/dev/full");
}

static void check_run_usage_errors(void) {
  static const struct {
    const char *args[12];
    const char *stderr_names; /* the message must contain this */
  } cases[] = {
      {{"run", NULL}, "workload"},
      {{"run", "nosuch", NULL}, "nosuch"},
      {{"compare", "nosuch", NULL}, "nosuch"},
      {{"run", "selfcheck", "--bogus", NULL}, "--bogus"},
      {{"run", "selfcheck", "--count", "0", NULL}, "--count"},
      {{"run", "selfcheck", "--count", "abc", NULL}, "--count"},
      {{"run", "selfcheck", "--passes", "1.5", NULL}, "--passes"},
      {{"run", "selfcheck", "--device", "ref", "--seed", "-1", NULL}, "--seed"},
      {{"run", "selfcheck", "--device", "ref", "--seed", "12x", NULL},
       "--seed"},
      {{"run", "selfcheck", "--device", "nosuchdevice", NULL}, "nosuchdevice"},
      {{"run", "selfcheck", "--device", "ref,,ref", NULL}, "ref,,ref"},
      {{"run", "selfcheck", "extra", NULL}, "unexpected"},
      /* getopt_long takes abbreviations: the message names the option
       * meant, or the ones an ambiguous abbreviation begins. */
      {{"run", "selfcheck", "--device", "ref", "--pass", NULL},
       "option '--passes' needs a value"},
      {{"run", "selfcheck", "--device", "ref", "--jso=1", NULL},
       "option '--json' takes no value"},
      {{"run", "selfcheck", "--dev", "ref", NULL},
       "'--dev' is ambiguous: --device, --devices"},
      {{"devices", "--prob=1", NULL}, "option '--probe' takes no value"},
      {{"tsp", "eval", "--optim", "5", "a", "b", NULL},
       "'--optim' is ambiguous: --optima, --optimum"},
      /* An empty selector is refused everywhere, not read as the
       * default. */
      {{"demo", "--device", "", NULL}, "--device: an empty selector"},
      {{"devices", "--probe", "--device", "", NULL},
       "--device: an empty selector"},
      {{"bench", "--device", "", NULL}, "--device: an empty selector"},
      /* bench takes --devices as compare does. */
      {{"bench", "--devices", "", NULL}, "--device: an empty selector"},
      {{"bench", "--devices", "nosuchdevice", NULL}, "nosuchdevice"},
      {{"bench", "--dev", "ref", NULL},
       "'--dev' is ambiguous: --device, --devices"},
      /* Evaluation budgets and step counts (test_pso, test_ga). */
      {{"run", "pso", "--device", "ref", "--iters", "0", NULL}, "--iters"},
      {{"run", "ga", "--device", "ref", "--evals", "100", NULL}, "--evals"},
      {{"version", "extra", NULL}, "unexpected argument 'extra'"},
      {{"help", "run", "extra", NULL}, "unexpected argument 'extra'"},
      {{"compare", "selfcheck", "--devices", "nosuchdevice", NULL},
       "nosuchdevice"},
      /* pso: every kind of bad input is a usage error naming its cause. */
      {{"run", "pso", "--device", "ref", "--fn", "nosuch", NULL}, "nosuch"},
      {{"run", "pso", "--device", "ref", "--dim", "0", NULL}, "--dim"},
      {{"run", "pso", "--device", "ref", "--particles", "0", NULL},
       "--particles"},
      {{"run", "pso", "--device", "ref", "--lo", "nan", "--hi", "1", NULL},
       "--lo"},
      {{"run", "pso", "--device", "ref", "--lo", "2", "--hi", "1", NULL},
       "below"},
      {{"run", "pso", "--device", "ref", "--fn", "lsq", NULL}, "--data"},
      /* Data for an objective that takes none, before the file is read. */
      {{"run", "pso", "--device", "ref", "--data", "no-such-file.csv", NULL},
       "option --data: ck_pso_config.data: the function sphere takes no "
       "data"},
      {{"run", "pso", "--device", "ref", "--topology", "star", NULL},
       "--topology"},
      /* ga: the relations between options are usage errors too. */
      {{"run", "ga", "--device", "ref", "--island-size", "1", NULL},
       "--island-size"},
      {{"run", "ga", "--device", "ref", "--migrants", "64", NULL},
       "--migrants"},
      {{"run", "ga", "--device", "ref", "--pc", "1.5", NULL}, "--pc"},
      {{"run", "ga", "--device", "ref", "--pm", "-0.1", NULL}, "--pm"},
      {{"run", "ga", "--device", "ref", "--tournament", "65", NULL},
       "--tournament"},
      {{"run", "ga", "--device", "ref", "--crossover", "sbx", NULL},
       "--crossover"},
      {{"run", "ga", "--device", "ref", "--crossover", "arith:5", NULL},
       "arith takes no parameter"},
      {{"run", "ga", "--device", "ref", "--island-size", "-5", NULL},
       "-5 is outside [2, 4096]"},
      {{"run", "ga", "--device", "ref", "--elite", "1e30", NULL}, "--elite"},
      {{"run", "ga", "--device", "ref", "--trace-islands", NULL},
       "give --trace too"},
      {{"run", "pso", "--device", "ref", "--constriction", "--w", "0.5", NULL},
       "--w"},
      /* getopt's complaints, worded for the option at fault. */
      {{"run", "selfcheck", "--bogus=3", NULL}, "unknown option '--bogus'"},
      /* The hint names the help that lists the workload's options. */
      {{"run", "ga", "--migration", "ring:0", NULL},
       "Try 'clkit run ga --help'."},
      /* A letter inside a cluster is the option at fault, not the
       * argument before the cluster. */
      {{"run", "selfcheck", "--device=ref", "-xh", NULL},
       "unknown option '-x'"},
      {{"tsp", "--optimum=5", "-qh", "eval", NULL}, "unknown option '-q'"},
      {{"run", "selfcheck", "--=x", NULL}, "unknown option '--=x'"},
      /* The workload's name decides its options, so it comes first. */
      {{"run", "-d", "ref", "selfcheck", NULL},
       "the workload comes before its options: 'clkit run selfcheck ...'"},
      {{"compare", "--json", "pso", NULL},
       "the workload comes before its options: 'clkit compare pso ...'"},
      {{"run", "selfcheck", "--help=x", NULL}, "'--help' takes no value"},
      {{"run", "selfcheck", "--device", NULL}, "'--device' needs a value"},
      {{"run", "selfcheck", "-d", NULL}, "'-d' needs a value"},
      {{"run", "selfcheck", "--device", "ref", "--seed", " 5", NULL}, "--seed"},
      {{"run", "selfcheck", "--device", "ref", "--seed", "18446744073709551616",
        NULL},
       "--seed"},
      {{"devices", "--device", "ref", NULL}, "--probe"},
      {{"kernels", "list", "extra", NULL}, "'list' takes no argument"},
      {{"run", "pso", "--device", "ref", "--out", "", NULL},
       "option --out: an empty file name"},
      {{"run", "pso", "--device", "", NULL}, "an empty selector"},
      {{"run", "pso", "--device", "ref", "--iters", " 1", NULL}, "--iters"},
      {{"run", "pso", "--device", "ref", "--iters", "0x10", NULL}, "--iters"},
      {{"run", "ga", "--device", "ref", "--pm", "1e-9", NULL},
       "--pm: ck_ga_config.mutation_rate: 1e-09 is too small for single "
       "precision"},
      {{"run", "ga", "--device", "ref", "--mutation", "gauss:1e30", NULL},
       "needs a number in (0, 1000000]"},
      {{"run", "ga", "--device", "ref", "--crossover", "sbx:1e30", NULL},
       "needs a number in [0, 1000000]"},
      {{"run", "selfcheck", "--device", "ref", "a", "b", NULL},
       "unexpected argument 'b'"},
      {{"gen", "lsq", "--rows", "5", "--dim", "2", "--out", "d.csv", "--coef",
        "", NULL},
       "--coef: an empty file name"},
      {{"run", "aco", "--device", "ref", "--tour-out", "", NULL},
       "option --tour-out: an empty file name"},
      {{"gen", "lsq", "--rows", "5", "--dim", "2", "--out", "d.csv", "--noise",
        "1e308", NULL},
       "--noise"},
      {{"gen", "lsq", "--rows", "5", "--dim", "2", "--out", "d.csv", "--noise",
        "0x10", NULL},
       "--noise takes a number"},
      /* No output may replace another output or an input. */
      {{"run", "pso", "--device", "ref", "--out", "same.txt", "--trace",
        "./same.txt", NULL},
       "--out and --trace both name"},
      /* A model or checkpoint may replace only its own input. */
      {{"run", "nn", "--device", "ref", "--save", "same.ckn", "--trace",
        "./same.ckn", NULL},
       "--save and --trace both name"},
      {{"run", "nn", "--device", "ref", "--save", "same.ckn", "--predict",
        "./same.ckn", NULL},
       "--save and --predict both name"},
      {{"run", "gas", "--device", "ref", "--checkpoint", "same.ckg", "--png",
        "./same.ckg", NULL},
       "--checkpoint and --png both name"},
      {{"run", "gas", "--device", "ref", "--checkpoint", "same.xyz", "--xyz",
        "./same.xyz", NULL},
       "--checkpoint and --xyz both name"},
      {{"gen", "lsq", "--rows", "5", "--dim", "2", "--out", "d.csv", "--coef",
        "./d.csv", NULL},
       "one file"},
      /* nn: options that would be dropped unseen. */
      {{"run", "nn", "--device", "ref", "--load", "m.ckn", "--layers", "2,3,4",
        NULL},
       "--layers comes from the model"},
      {{"run", "nn", "--device", "ref", "--load", "m.ckn", "--tol", "0.1",
        NULL},
       "option --tol applies only with --train FILE"},
      {{"run", "nn", "--device", "ref", "--momentum", "0.5", NULL},
       "--momentum applies only with --optimizer sgd"},
      {{"run", "nn", "--device", "ref", "--label-col", "2", NULL},
       "option --label-col describes CSV files, and this run reads none"},
      {{"run", "nn", "--device", "ref", "--header", "yes", "--epochs", "1",
        NULL},
       "option --header describes CSV files"},
      {{"run", "nn", "--device", "ref", "--load", "m.ckn", "--epochs", "3",
        NULL},
       "option --epochs applies only with --train FILE"},
      {{"run", "nn", "--device", "ref", "--load", "m.ckn", "--save", "n.ckn",
        NULL},
       "option --save applies only with --train FILE"},
      {{"run", "nn", "--device", "ref", "--test-labels", "t.idx", NULL},
       "option --test-labels applies only with --test FILE"},
      {{"run", "nn", "--device", "ref", "--load", "m.ckn", "--predict-labels",
        "p.idx", NULL},
       "option --predict-labels applies only with --predict FILE"},
      /* pso and ga: what only lsq reads. */
      {{"run", "pso", "--device", "ref", "--lsq-mode", "group", NULL},
       "option --lsq-mode applies only with --fn lsq"},
      {{"run", "ga", "--device", "ref", "--fn", "rastrigin", "--lsq-mode",
        "thread", NULL},
       "option --lsq-mode applies only with --fn lsq"},
      /* gas: the strips read cells and Verlet lists. */
      {{"run", "gas", "--device", "ref", "--neighbors", "allpairs", "--strips",
        "on", NULL},
       "option --strips applies only with --neighbors cells or verlet"},
      {{"run", "gas", "--neighbors", "allpairs", "--strips", "auto", "--tiles",
        "direct", "--particles", "2000000000", NULL},
       "--particles"},
      {{"run", "nn", "--device", "ref", "--split", "1e-9", "--epochs", "1",
        NULL},
       "--split 1e-09 of the 2000 rows"},
      {{"run", "nn", "--device", "ref", "--val", "1e-4", "--epochs", "1", NULL},
       "--val 0.0001 of the 2000 rows of spirals:2000"},
      {{"gen", "lsq", "--rows", "10", "--dim", "2", NULL}, "--out"},
      {{"gen", "lsq", "--rows", "0", "--dim", "2", "--out", "x.csv", NULL},
       "--rows"},
      {{"gen", "lsq", "--rows", "2.5", "--dim", "2", "--out", "x.csv", NULL},
       "--rows takes a whole number"},
      /* What contradicts a spread, named beside --spread. */
      {{"run", "gas", "--device", "ref", "--spread", "--neighbors", "allpairs",
        NULL},
       "option --neighbors: allpairs with --spread"},
      {{"run", "gas", "--device", "ref", "--spread", "--model", "log:1:1",
        "--neighbors", "allpairs", NULL},
       "option --model: log:1:1 with --spread"},
      {{"run", "aco", "random:20", "--device", "ref", "--spread", "--method",
        "focused", "--focus-source", "iteration", NULL},
       "option --focus-source: iteration with --spread"},
      {{"run", "selfcheck", "--device", "ref", "--spread", NULL},
       "selfcheck does not spread over several devices (--spread)"},
      /* A device given twice holds two members of a gas or GA spread
       * alone (the GA's: check_ref_runs). */
      {{"run", "pso", "--device", "ref,ref", "--spread", NULL},
       "clkit run: --device: ref is given twice; a pso spread takes each "
       "device once"},
      /* bench's and compare's sizes, repeats and reports: refused before
       * any run (nothing on stdout). */
      {{"bench", "--device", "ref", "--repeat", "0", NULL},
       "--repeat '0': give a whole number of runs from 1 to 1000"},
      {{"compare", "selfcheck", "--device", "ref", "--repeat", "0", NULL},
       "--repeat '0'"},
      {{"bench", "--repeat", "1001", NULL}, "--repeat '1001'"},
      {{"bench", "--size", "huge", NULL},
       "--size 'huge': give auto, small, medium, large or a rung 0 to 6"},
      {{"bench", "--size", "7", NULL}, "--size '7'"},
      {{"bench", "--device", "ref", "--report", "r.txt", NULL},
       "--report 'r.txt': the report is an HTML page"},
      {{"compare", "pso", "--report", "r.svg", NULL}, "--report 'r.svg'"},
      {{"bench", "--device", "ref", "--report", "/nonexistent-clkit-dir/r.html",
        NULL},
       "--report: "},
      {{"bench", "--json", "--csv", NULL}, "give one"},
      {{"compare", "pso", "--markdown", "--json", NULL}, "give one"},
      {{"bench", "--workloads", "pso,nosuch", NULL},
       "--workloads: unknown workload 'nosuch'"},
      {{"compare", "pso", "--size", "small", "--particles", "64", NULL},
       "--size and --particles both set the run's size; give one"},
      {{"demo", "--size", "small", NULL}, "--size"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    expect_refusal(cases[c].args, 2, cases[c].stderr_names);
  /* --shares reads numbers as the workloads' options do: one share, for
   * the one member. */
  static const char *const shares[] = {" 1", "0x10", "inf", "nan", "1e400"};
  for (size_t s = 0; s < sizeof shares / sizeof shares[0]; ++s) {
    const char *const spread[] = {"run",     "pso", "--device", "ref",
                                  "--iters", "1",   "--spread", "--shares",
                                  shares[s], NULL};
    char named[64];
    snprintf(named, sizeof named, "--shares: '%s' is not a positive decimal",
             shares[s]);
    expect_refusal(spread, 2, named);
  }
  /* An unknown device lists the devices that exist. */
  const char *const args[] = {"run", "selfcheck", "--device", "nosuchdevice",
                              NULL};
  run_output r = run_clkit(args);
  EXPECT_HAS(r.err, "ref", args);
  release(&r);
}

/* A name that is no option, command, workload or function suggests the
 * one it most likely meant (the library's rule, ck_param_suggest), and
 * one near nothing suggests nothing. */
static void check_suggestions(void) {
  static const struct {
    const char *args[8];
    const char *message; /* on stderr, exit 2 */
  } cases[] = {
      {{"run", "pso", "--iterations", "5", NULL},
       "unknown option '--iterations'; did you mean --iters?"},
      {{"run", "pso", "--device", "ref", "--partciles", "8", NULL},
       "unknown option '--partciles'; did you mean --particles?"},
      {{"run", "ga", "--island-sise", "8", NULL},
       "unknown option '--island-sise'; did you mean --island-size?"},
      /* The common options too. */
      {{"run", "selfcheck", "--sede", "5", NULL},
       "unknown option '--sede'; did you mean --seed?"},
      {{"bench", "--quite", NULL},
       "unknown option '--quite'; did you mean --quiet?"},
      {{"run", "pso", "--device", "ref", "--fn", "rastrign", NULL},
       "unknown function 'rastrign'; built in: sphere rastrigin"},
      {{"run", "pso", "--device", "ref", "--fn", "rastrign", NULL},
       "; did you mean rastrigin?"},
      {{"run", "psoo", NULL},
       "unknown workload 'psoo'; known: selfcheck pso ga aco nn gas; did "
       "you mean pso?"},
      {{"devcies", NULL}, "unknown command 'devcies'; did you mean devices?"},
      {{"help", "bnech", NULL}, "unknown command 'bnech'; did you mean bench?"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    expect_refusal(cases[c].args, 2, cases[c].message);
  static const char *const far[][8] = {
      {"run", "selfcheck", "--bogus", NULL},
      {"run", "pso", "--device", "ref", "--fn", "nosuch", NULL},
      {"frobnicate", NULL},
  };
  for (size_t c = 0; c < sizeof far / sizeof far[0]; ++c) {
    run_output r = run_clkit(far[c]);
    EXPECT_EXIT(r, 2, far[c]);
    CHECK_MSG(!has(r.err, "did you mean"), "'clkit %s' suggested: %s",
              label_of(far[c]), r.err);
    release(&r);
  }
}

/* A file the user may not write is refused even where its directory would
 * let a rename replace it. Run as the super-user (as CI runs), no file is
 * one it may not write, so clkit is run here as nobody, in a directory of
 * nobody's own: only the check of the file itself stands between that run
 * and a rename over its own read-only file or root's private one, and a
 * file it may write is replaced there as anywhere. */
static void check_unwritable_unprivileged(void) {
  /* Another user is met by check_pso_files: its read-only file. */
  if (geteuid() != 0)
    return;
  char own[760], cache[800], cache_setting[840];
  snprintf(own, sizeof own, "%s/unprivileged", work_dir);
  snprintf(cache, sizeof cache, "%s/cache", own);
  snprintf(cache_setting, sizeof cache_setting, "CLKIT_CACHE_DIR=%s", cache);
  /* Its own cache: the common one is root's, in a directory kept 0700. */
  const char *const environment[] = {cache_setting, NULL};
  int ready = mkdir(own, 0700) == 0 &&
              chown(own, UNPRIVILEGED_ID, UNPRIVILEGED_ID) == 0;
  CHECK_MSG(ready, "cannot make %s for uid %d: %s", own, UNPRIVILEGED_ID,
            strerror(errno));
  if (!ready)
    return;
  /* mkdtemp made the work directory 0700; nobody may pass through it (not
   * list or write it) only while these runs last. */
  struct stat work;
  CHECK(stat(work_dir, &work) == 0);
  if (chmod(work_dir, 0711) != 0) {
    CHECK_MSG(0, "cannot open %s to uid %d: %s", work_dir, UNPRIVILEGED_ID,
              strerror(errno));
    return;
  }
  unprivileged_in = own;
  /* Whether nobody can run clkit here at all (the build directory or a
   * library it loads may be closed to it, or this root may not change
   * user): if not, that is this machine, not clkit, so the runs are left
   * out, saying why. */
  const char *const version[] = {"version", NULL};
  run_output r = run_clkit_env(environment, version);
  int reachable = r.exit_code == 0;
  if (r.exit_code == UNPRIVILEGED_UNREACHABLE ||
      (r.exit_code == 127 &&
       has(r.err, "error while loading shared libraries")))
    printf("clkit not run as uid %d, so its refusal of a file that user "
           "may not write is not tested as root: %s",
           UNPRIVILEGED_ID, r.err);
  else
    EXPECT_EXIT(r, 0, version);
  release(&r);
  const struct {
    const char *name;
    mode_t mode;
    uid_t owner;
    int refused;
  } cases[] = {
      {"own.txt", 0644, UNPRIVILEGED_ID, 0},
      {"own-read-only.txt", 0444, UNPRIVILEGED_ID, 1},
      {"roots-private.txt", 0600, 0, 1},
  };
  for (size_t c = 0; reachable && c < sizeof cases / sizeof cases[0]; ++c) {
    char kept[820];
    snprintf(kept, sizeof kept, "%s/%s", own, cases[c].name);
    CHECK(test_write_bytes(kept, "old\n", 4) == 0);
    CHECK(chown(kept, cases[c].owner, cases[c].owner) == 0);
    CHECK(chmod(kept, cases[c].mode) == 0);
    const char *const replace[] = {"run",   "pso", "--device", "ref",
                                   "--dim", "2",   "--iters",  "4",
                                   "--out", kept,  NULL};
    r = run_clkit_env(environment, replace);
    EXPECT_EXIT(r, cases[c].refused ? 2 : 0, replace);
    if (cases[c].refused)
      EXPECT_HAS(r.err, "Permission denied", replace);
    release(&r);
    struct stat replaced;
    CHECK_MSG(stat(kept, &replaced) == 0 &&
                  (replaced.st_mode & 0777) == cases[c].mode &&
                  replaced.st_uid == cases[c].owner,
              "%s: mode %o, owner %d; want %o, %d", kept,
              (unsigned)(replaced.st_mode & 0777), (int)replaced.st_uid,
              (unsigned)cases[c].mode, (int)cases[c].owner);
    char *text = test_read_file(kept, NULL);
    CHECK_MSG(text && (strcmp(text, "old\n") == 0) == cases[c].refused,
              "%s holds %s", kept, text ? text : "nothing");
    free(text);
  }
  unprivileged_in = NULL;
  CHECK_MSG(chmod(work_dir, work.st_mode & 07777) == 0,
            "cannot close %s again: %s", work_dir, strerror(errno));
}

/* clkit gen lsq writes data whose coefficients pso recovers, and pso
 * writes --out and --trace. */
/* A small PSO run writing its trace to trace: expects exit_code and, when
 * given, a part of stderr. */
static void expect_pso_trace(const char *trace, int exit_code,
                             const char *message) {
  const char *const args[] = {"run",     "pso", "--device", "ref", "--dim", "2",
                              "--iters", "4",   "--trace",  trace, NULL};
  run_output r = run_clkit(args);
  EXPECT_EXIT(r, exit_code, args);
  if (message)
    EXPECT_HAS(r.err, message, args);
  release(&r);
}

static void check_pso_files(void) {
  char data[700], coefficients[700], out[700], trace[700];
  snprintf(data, sizeof data, "%s/gen.csv", work_dir);
  snprintf(coefficients, sizeof coefficients, "%s/gen.coef", work_dir);
  snprintf(out, sizeof out, "%s/best.txt", work_dir);
  snprintf(trace, sizeof trace, "%s/trace.csv", work_dir);
  const char *const gen[] = {
      "gen",   "lsq", "--rows", "5e2", /* as workloads read counts */
      "--dim", "3",   "--out",  data,  "--coef", coefficients, NULL};
  run_output r = run_clkit(gen);
  EXPECT_EXIT(r, 0, gen);
  release(&r);
  const char *const pso[] = {
      "run",    "pso", "--device",    "ref", "--fn",    "lsq",
      "--data", data,  "--particles", "32",  "--iters", "300",
      "--out",  out,   "--trace",     trace, NULL};
  r = run_clkit(pso);
  EXPECT_EXIT(r, 0, pso);
  release(&r);
  /* Data beside an objective that reads none would be dropped unseen. */
  const char *const sphere[] = {"run",    "pso",    "--device", "ref", "--fn",
                                "sphere", "--data", data,       NULL};
  r = run_clkit(sphere);
  EXPECT_EXIT(r, 2, sphere);
  EXPECT_HAS(r.err,
             "option --data: ck_pso_config.data: the function sphere takes "
             "no data",
             sphere);
  release(&r);
  /* compare's oracle is ref, which cannot run a user objective (OpenCL
   * C): a request compare cannot serve, refused before any device runs. */
  char objective[700];
  snprintf(objective, sizeof objective, "%s/user.cl", work_dir);
  static const char user_source[] =
      "float objective(const float *x, int dim) { return x[0] * x[0]; }\n";
  CHECK(test_write_bytes(objective, user_source, sizeof user_source - 1) == 0);
  const char *const user[] = {
      "compare", "pso",   "--objective", objective, "--lo", "-1", "--hi",
      "1",       "--dim", "2",           "--iters", "2",    NULL};
  r = run_clkit(user);
  EXPECT_EXIT(r, 2, user);
  EXPECT_HAS(r.err, "ref, the comparison's oracle, cannot run this", user);
  EXPECT_HAS(r.err, "user objectives are OpenCL C", user);
  CHECK_MSG(!has_line_starting(r.out, "ref "), "a row was printed: %s", r.out);
  release(&r);
  remove(objective);
  /* A CSV file's rows carry their labels; a labels file is refused. */
  const char *const labels[] = {"run",     "nn", "--device",       "ref",
                                "--train", data, "--train-labels", coefficients,
                                NULL};
  r = run_clkit(labels);
  EXPECT_EXIT(r, 2, labels);
  EXPECT_HAS(r.err, "is CSV, whose rows carry their labels", labels);
  release(&r);
  char *truth = test_read_file(coefficients, NULL),
       *found = test_read_file(out, NULL);
  char *history = test_read_file(trace, NULL);
  CHECK(truth && found && history);
  /* Every output is checked before the run: one that cannot be written
   * (a directory, a missing directory) is a usage error (exit 2) and
   * leaves the outputs before it as they were. gen finds it as it writes,
   * after generating: a failure (exit 1). */
  char missing[760];
  snprintf(missing, sizeof missing, "%s/absent/trace.csv", work_dir);
  const char *const unwritable[] = {work_dir, missing};
  for (int k = 0; k < 2; ++k) {
    const char *const again[] = {
        "run",     "pso",     "--device",    "ref",         "--fn",
        "lsq",     "--data",  data,          "--particles", "8",
        "--iters", "5",       "--seed",      "2",           "--out",
        out,       "--trace", unwritable[k], NULL};
    r = run_clkit(again);
    EXPECT_EXIT(r, 2, again);
    EXPECT_HAS(r.err, "option --trace: cannot write", again);
    release(&r);
    const char *const regenerate[] = {
        "gen", "lsq",   "--rows", "20",     "--dim",       "3", "--seed",
        "2",   "--out", data,     "--coef", unwritable[k], NULL};
    r = run_clkit(regenerate);
    EXPECT_EXIT(r, 1, regenerate);
    EXPECT_HAS(r.err, "cannot write", regenerate);
    release(&r);
  }
  char *kept_out = test_read_file(out, NULL);
  char *kept_data = test_read_file(coefficients, NULL);
  CHECK(kept_out && found && strcmp(kept_out, found) == 0);
  CHECK(kept_data && truth && strcmp(kept_data, truth) == 0);
  char *kept_rows = test_read_file(data, NULL);
  CHECK(kept_rows && count_lines(kept_rows) == 501); /* a header, 500 rows */
  free(kept_rows);
  free(kept_out);
  free(kept_data);
  /* A link to a file stays a link, the file it leads to replaced; a
   * descriptor named as /dev/fd/1 (or /dev/stdout, not tried here: before
   * the fix a super-user's run replaced that link) is written through,
   * here into the file that stdout is redirected to, not renamed over. */
  char link_path[760];
  snprintf(link_path, sizeof link_path, "%s/trace-link.csv", work_dir);
  CHECK(symlink(trace, link_path) == 0);
  const char *const linked[] = {
      "run", "pso",     "--device", "ref",     "--dim",   "2", "--particles",
      "8",   "--iters", "4",        "--trace", link_path, NULL};
  r = run_clkit(linked);
  EXPECT_EXIT(r, 0, linked);
  release(&r);
  struct stat link_status;
  CHECK(lstat(link_path, &link_status) == 0 && S_ISLNK(link_status.st_mode));
  char *relinked = test_read_file(trace, NULL);
  CHECK(relinked && count_lines(relinked) == 6);
  free(relinked);
  /* An output may go there, as to a pipe; the run's own text then goes
   * to stderr. */
  const char *const to_stdout[] = {
      "run", "pso",     "--device", "ref",     "--dim",     "2", "--particles",
      "8",   "--iters", "4",        "--trace", "/dev/fd/1", NULL};
  r = run_clkit(to_stdout);
  EXPECT_EXIT(r, 0, to_stdout);
  EXPECT_HAS(r.out, "iteration,best\n0,", to_stdout);
  EXPECT_HAS(r.out, "4,", to_stdout);
  EXPECT_HAS(r.err, "stopped_by         iterations", to_stdout);
  release(&r);
  /* A descriptor that is not open is refused before the run (a usage
   * error); it is never replaced by a file. */
  expect_pso_trace("/dev/fd/999", 2,
                   "option --trace: cannot write /dev/fd/999: descriptor 999 "
                   "is not open");
  /* A device that fills up fails the write itself, after the run, and the
   * message still names the option. */
  if (access("/dev/full", W_OK) == 0)
    expect_pso_trace("/dev/full", 1,
                     "option --trace: cannot write /dev/full: No space left");
  /* A dangling link makes the file it names, and stays a link. */
  char dangling[760], named[760];
  snprintf(dangling, sizeof dangling, "%s/dangling.csv", work_dir);
  snprintf(named, sizeof named, "%s/named-by-link.csv", work_dir);
  CHECK(symlink("named-by-link.csv", dangling) == 0);
  expect_pso_trace(dangling, 0, NULL);
  CHECK(lstat(dangling, &link_status) == 0 && S_ISLNK(link_status.st_mode));
  char *made = test_read_file(named, NULL);
  CHECK(made && count_lines(made) == 6);
  free(made);
  /* An output and a dangling link to the same file not made yet: one
   * would be lost, so the run is refused and makes nothing. */
  char aliased[760], alias[760];
  snprintf(aliased, sizeof aliased, "%s/aliased.txt", work_dir);
  snprintf(alias, sizeof alias, "%s/alias.csv", work_dir);
  CHECK(symlink("aliased.txt", alias) == 0);
  const char *const aliases[] = {
      "run", "pso",   "--device", "ref",     "--dim", "2", "--iters",
      "4",   "--out", aliased,    "--trace", alias,   NULL};
  r = run_clkit(aliases);
  EXPECT_EXIT(r, 2, aliases);
  EXPECT_HAS(r.err, "--out and --trace both name", aliases);
  release(&r);
  CHECK(access(aliased, F_OK) != 0);
  /* Links in a loop name no file: refused, and both stay links. */
  char loop_a[760], loop_b[760];
  snprintf(loop_a, sizeof loop_a, "%s/loop-a.csv", work_dir);
  snprintf(loop_b, sizeof loop_b, "%s/loop-b.csv", work_dir);
  CHECK(symlink("loop-b.csv", loop_a) == 0);
  CHECK(symlink("loop-a.csv", loop_b) == 0);
  expect_pso_trace(loop_a, 2, "Too many levels of symbolic links");
  CHECK(lstat(loop_a, &link_status) == 0 && S_ISLNK(link_status.st_mode));
  CHECK(lstat(loop_b, &link_status) == 0 && S_ISLNK(link_status.st_mode));
  /* A file replaced keeps its permissions: a private one stays private.
   * One this user may not write is refused, as the shell's `>` refuses it
   * (a super-user may write it, and then it stays read-only; the refusal
   * is then met by check_unwritable_unprivileged). */
  const mode_t modes[] = {0600, 0444};
  for (int m = 0; m < 2; ++m) {
    char kept[760];
    snprintf(kept, sizeof kept, "%s/mode-%o.txt", work_dir, (unsigned)modes[m]);
    CHECK(test_write_bytes(kept, "old\n", 4) == 0);
    CHECK(chmod(kept, modes[m]) == 0);
    const char *const replace[] = {"run",   "pso", "--device", "ref",
                                   "--dim", "2",   "--iters",  "4",
                                   "--out", kept,  NULL};
    int refused = modes[m] == 0444 && geteuid() != 0;
    r = run_clkit(replace);
    EXPECT_EXIT(r, refused ? 1 : 0, replace);
    if (refused)
      EXPECT_HAS(r.err, "Permission denied", replace);
    release(&r);
    struct stat replaced;
    CHECK(stat(kept, &replaced) == 0 && (replaced.st_mode & 0777) == modes[m]);
    char *text = test_read_file(kept, NULL);
    CHECK_MSG(text && (strcmp(text, "old\n") == 0) == refused, "%s holds %s",
              kept, text ? text : "nothing");
    free(text);
  }
  check_unwritable_unprivileged();
  if (truth && found) {
    const char *a = truth, *b = found;
    for (int d = 0; d < 3; ++d) {
      char *end_a, *end_b;
      double x = strtod(a, &end_a), y = strtod(b, &end_b);
      CHECK_MSG(end_a != a && end_b != b && fabs(x - y) < 1e-3,
                "coefficient %d: %s vs %s", d, a, b);
      a = end_a;
      b = end_b;
    }
  }
  if (history) {
    CHECK(strncmp(history, "iteration,best\n0,", 17) == 0);
    CHECK(count_lines(history) == 302);
  }
  free(truth);
  free(found);
  free(history);
}

static void check_ref_runs(void) {
  {
    const char *const args[] = {"run",     "selfcheck", "--device", "ref",
                                "--count", "1000",      "--passes", "2",
                                "--json",  NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "\"device\":\"ref\"", args);
    EXPECT_HAS(r.out, "\"workload\":\"selfcheck\"", args);
    EXPECT_HAS(r.out, "\"best\":", args);
    EXPECT_HAS(r.out, "\"count\":1000", args);
    EXPECT_HAS(r.out, "\"passes\":2", args);
    release(&r);
  }
  {
    /* The same seed gives the same result; another seed another one. */
    const char *const one[] = {"run",     "selfcheck", "--device", "ref",
                               "--count", "1000",      "--seed",   "7",
                               "--json",  NULL};
    const char *const other[] = {"run",     "selfcheck", "--device", "ref",
                                 "--count", "1000",      "--seed",   "8",
                                 "--json",  NULL};
    /* 7 written with an exponent is the same seed. */
    const char *const same[] = {"run",     "selfcheck", "--device", "ref",
                                "--count", "1000",      "--seed",   "0.7e1",
                                "--json",  NULL};
    run_output a = run_clkit(one), b = run_clkit(same), c = run_clkit(other);
    EXPECT_EXIT(a, 0, one);
    EXPECT_EXIT(b, 0, same);
    EXPECT_EXIT(c, 0, other);
    const char *best_a = strstr(a.out, "\"best\":");
    const char *best_b = strstr(b.out, "\"best\":");
    const char *best_c = strstr(c.out, "\"best\":");
    CHECK(best_a && best_b && best_c);
    if (best_a && best_b && best_c) {
      CHECK_MSG(strtod(best_a + 7, NULL) == strtod(best_b + 7, NULL),
                "seeds 7 and 0.7e1: %s vs %s", a.out, b.out);
      CHECK_MSG(strtod(best_a + 7, NULL) != strtod(best_c + 7, NULL),
                "seeds 7 and 8 agree: %s", c.out);
    }
    release(&a);
    release(&b);
    release(&c);
  }
  {
    const char *const args[] = {"run",     "selfcheck", "--device", "ref",
                                "--count", "1000",      NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "selfcheck on ref", args);
    release(&r);
  }
  {
    const char *const args[] = {"compare", "selfcheck", "--devices", "ref",
                                "--count", "1000",      NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(has_line_starting(r.out, "ref "), "no ref row: %s", r.out);
    EXPECT_HAS(r.out, "yes", args);
    release(&r);
  }
  {
    /* A ring spreads: the best and its position are one device's. */
    const char *const alone[] = {"run",        "pso",    "--device",    "ref",
                                 "--topology", "ring:3", "--particles", "40",
                                 "--iters",    "20",     "--json",      NULL};
    const char *const spread[] = {
        "run",      "pso",         "--device", "ref",     "--topology",
        "ring:3",   "--particles", "40",       "--iters", "20",
        "--spread", "--json",      NULL};
    expect_as_alone(alone, spread, "\"device\":\"ref\"");
  }
  {
    /* A GA takes a device given twice: two members on ref, whose
     * migrants cross between them, end as ref alone does. */
    const char *const alone[] = {"run",       "ga", "--device", "ref",
                                 "--islands", "4",  "--gens",   "20",
                                 "--json",    NULL};
    const char *const spread[] = {
        "run", "ga",       "--device", "ref,ref", "--islands", "4", "--gens",
        "20",  "--spread", "--shares", "1,5",     "--json",    NULL};
    expect_as_alone(alone, spread,
                    "\"members\":[{\"device\":\"ref\",\"device_name\":"
                    "\"reference (serial C on the host)\",\"rank\":0,"
                    "\"units\":1,\"share\":0.25,");
  }
  {
    /* CLKIT_DEVICE selects the device when --device is absent. */
    const char *const environment[] = {"CLKIT_DEVICE=ref", NULL};
    const char *const args[] = {"run", "selfcheck", "--count",
                                "100", "--json",    NULL};
    expect_output(environment, args, 0, 0, "\"device\":\"ref\"");
    const char *const bad[] = {"CLKIT_DEVICE=nosuchdevice", NULL};
    expect_output(bad, args, 2, 1,
                  "CLKIT_DEVICE: device selector 'nosuchdevice'");
  }
}

/* Returns whether an OpenCL device is listed. */
static int check_devices(void) {
  int opencl = 0;
  {
    const char *const args[] = {"devices", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(has_line_starting(r.out, "ref "), "ref not listed: %s", r.out);
    release(&r);
  }
  {
    const char *const args[] = {"devices", "--json", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(strncmp(r.out, "{\"devices\":[", 12) == 0, "devices --json: %s",
              r.out);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "{\"id\":\"ref\"", args);
    EXPECT_HAS(r.out, "\"opencl\":", args);
    opencl = has(r.out, "\"id\":\"ocl:");
    release(&r);
  }
  {
    const char *const args[] = {"devices", "--bogus", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 2, args);
    release(&r);
  }
  return opencl;
}

static void check_kernels(void) {
  {
    const char *const args[] = {"kernels", "list", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "selfcheck.cl", args);
    EXPECT_HAS(r.out, "ck_philox.h", args);
    release(&r);
  }
  {
    const char *const args[] = {"kernels", "show", "selfcheck.cl", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "#include \"ck_philox.h\"", args);
    EXPECT_HAS(r.out, "__kernel", args);
    release(&r);
  }
  {
    const char *const args[] = {"kernels", "show", "selfcheck", "--assembled",
                                NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "#line 1 \"cl/ck_philox.h\"", args);
    EXPECT_HAS(r.out, "#line 1 \"cl/selfcheck.cl\"", args);
    EXPECT_HAS(r.out, "ck_selfcheck_generate", args);
    CHECK_MSG(!has(r.out, "#include \"ck_philox.h\""),
              "assembled source still includes ck_philox.h");
    CHECK_MSG(!has(r.out, "#include \"ck_prelude.h\""),
              "assembled source still includes ck_prelude.h");
    release(&r);
  }
  {
    /* An unknown name is a usage error, as an unknown command is. */
    const char *const args[] = {"kernels", "show", "nosuch", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 2, args);
    EXPECT_HAS(r.err, "nosuch", args);
    release(&r);
  }
  {
    const char *const args[] = {"kernels", "show", "nosuch", "--assembled",
                                NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 2, args);
    EXPECT_HAS(r.err, "nosuch", args);
    release(&r);
  }
}

static void check_cache(void) {
  const char *const args[] = {"cache", "info", NULL};
  run_output r = run_clkit(args);
  EXPECT_EXIT(r, 0, args);
  EXPECT_HAS(r.out, cache_dir, args);
  EXPECT_HAS(r.out, "pocl       builds left to PoCL's own cache", args);
  release(&r);
  const char *const environment[] = {"CLKIT_CACHE=1", NULL};
  expect_output(environment, args, 0, 0, "pocl       builds stored here too");
  const char *const bad[] = {"cache", "shred", NULL};
  expect_output(NULL, bad, 2, 1, "shred");
  /* Every spelling of off turns the cache off; a value clkit does not
   * know leaves it on, with a warning rather than silence. */
  const char *const off[] = {"CLKIT_CACHE=Off", NULL};
  expect_output(off, args, 0, 0, "enabled    no (CLKIT_CACHE is off)");
  const char *const unknown[] = {"CLKIT_CACHE=banana", NULL};
  r = run_clkit_env(unknown, args);
  EXPECT_EXIT(r, 0, args);
  EXPECT_HAS(r.out, "enabled    yes", args);
  EXPECT_HAS(r.err, "warning: CLKIT_CACHE=banana is not a setting", args);
  release(&r);
  /* Nowhere to keep a cache: said, not printed as an empty name. */
  const char *const nowhere[] = {"CLKIT_CACHE_DIR", "XDG_CACHE_HOME", "HOME",
                                 NULL};
  expect_output(nowhere, args, 0, 0, "directory  none (set CLKIT_CACHE_DIR");
  const char *const clear[] = {"cache", "clear", NULL};
  expect_output(nowhere, clear, 0, 0, "nothing to clear: no cache directory");
  /* A cache directory that is a file: a run goes on without the cache,
   * and says so, as it does for a setting it does not know. */
  char not_a_directory[700], file_setting[760];
  test_write_text(work_dir, "not-a-dir", "", not_a_directory,
                  sizeof not_a_directory);
  snprintf(file_setting, sizeof file_setting, "CLKIT_CACHE_DIR=%s",
           not_a_directory);
  const char *const as_file[] = {file_setting, NULL};
  const char *const run[] = {"run", "selfcheck", "--device",
                             "ref", "--quiet",   NULL};
  r = run_clkit_env(as_file, run);
  EXPECT_EXIT(r, 0, run);
  EXPECT_HAS(r.err, "Not a directory; kernels are built without the cache",
             run);
  release(&r);
  r = run_clkit_env(unknown, run);
  EXPECT_EXIT(r, 0, run);
  EXPECT_HAS(r.err, "warning: CLKIT_CACHE=banana is not a setting", run);
  release(&r);
}

/* The environment changes of a machine with no OpenCL driver and no CUDA
 * device visible (static). */
static const char *const *no_driver_environment(void) {
  static char vendors[700], vendor_path[700];
  /* OCL_ICD_FILENAMES would name drivers beside the vendor directory. */
  static const char *environment[] = {vendors, vendor_path, "OCL_ICD_FILENAMES",
                                      "CUDA_VISIBLE_DEVICES=", NULL};
  snprintf(vendors, sizeof vendors, "OCL_ICD_VENDORS=%s", empty_vendors);
  snprintf(vendor_path, sizeof vendor_path, "OPENCL_VENDOR_PATH=%s",
           empty_vendors);
  return environment;
}

/* With no OpenCL driver (and no CUDA device visible) the command still
 * works on ref. */
static void check_no_platform(void) {
  const char *const *environment = no_driver_environment();
  {
    const char *const args[] = {"devices", NULL};
    run_output r = run_clkit_env(environment, args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(has_line_starting(r.out, "ref "), "ref not listed: %s", r.out);
    EXPECT_HAS(r.err, "no OpenCL platform", args);
    CHECK_MSG(!has(r.out, "ocl:"), "an OpenCL device without a driver: %s",
              r.out);
    release(&r);
  }
  {
    const char *const args[] = {"devices", "--json", NULL};
    run_output r = run_clkit_env(environment, args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "no OpenCL platform", args);
    release(&r);
  }
  {
    const char *const args[] = {"run",     "selfcheck", "--device", "ref",
                                "--count", "100",       NULL};
    run_output r = run_clkit_env(environment, args);
    EXPECT_EXIT(r, 0, args);
    release(&r);
  }
  {
    /* The default device is ref when nothing else exists. */
    const char *const args[] = {"run", "selfcheck", "--count",
                                "100", "--json",    NULL};
    expect_output(environment, args, 0, 0, "\"device\":\"ref\"");
  }
  {
    const char *const args[] = {"run", "selfcheck", "--device", "gpu", NULL};
    run_output r = run_clkit_env(environment, args);
    EXPECT_EXIT(r, 2, args);
    EXPECT_HAS(r.err, "ref", args);
    EXPECT_HAS(r.err, "no OpenCL platform", args);
    release(&r);
  }
}

/* Copies the kernel sources into directory, with the self-check's
 * generator made to write other bits than ref's: a device that disagrees
 * with the oracle, as a faulty one would. 0 on success. */
static int copy_kernels_disagreeing(const char *directory) {
  const char *source = getenv("CLKIT_KERNEL_DIR_FOR_TESTS");
  DIR *dir = source && *source ? opendir(source) : NULL;
  if (!dir || mkdir(directory, 0700) != 0) {
    if (dir)
      closedir(dir);
    return -1;
  }
  int failed = 0, changed = 0;
  for (struct dirent *entry; !failed && (entry = readdir(dir));) {
    if (entry->d_name[0] == '.')
      continue;
    char from[1024], to[1024];
    snprintf(from, sizeof from, "%s/%s", source, entry->d_name);
    snprintf(to, sizeof to, "%s/%s", directory, entry->d_name);
    size_t size = 0;
    char *text = test_read_file(from, &size);
    if (!text)
      continue; /* not a plain file */
    static const char written[] = "bits[first + k] = block.v[k];";
    char *at = strcmp(entry->d_name, "selfcheck.cl") == 0
                   ? strstr(text, written)
                   : NULL;
    if (at) {
      /* Flip the lowest bit of the first word alone, which changes the
       * words' xor checksum (flipping every word would keep it for an
       * even count). */
      static const char flipped[] =
          "bits[first + k] = block.v[k] ^ (first + k == 0u ? 1u : 0u);";
      size_t before = (size_t)(at - text),
             after = size - before - (sizeof written - 1);
      char *edited = malloc(size + sizeof flipped);
      if (!edited) {
        free(text);
        failed = 1;
        break;
      }
      memcpy(edited, text, before);
      memcpy(edited + before, flipped, sizeof flipped - 1);
      memcpy(edited + before + sizeof flipped - 1, at + sizeof written - 1,
             after);
      free(text);
      text = edited;
      size = before + sizeof flipped - 1 + after;
      changed = 1;
    }
    failed = test_write_bytes(to, text, size) != 0;
    free(text);
  }
  closedir(dir);
  return failed || !changed ? -1 : 0;
}

static void check_opencl_runs(void) {
  {
    /* A file the run writes, on two devices: refused before either runs,
     * as in compare (ref and the OpenCL devices), so that no device's
     * output replaces another's and none starts from another's model. */
    char out[600];
    snprintf(out, sizeof out, "%s/two-devices.txt", work_dir);
    const char *const run_args[] = {"run",        "pso",     "--device",
                                    "ref,opencl", "--iters", "2",
                                    "--out",      out,       NULL};
    const char *const compare_args[] = {"compare", "pso", "--iters", "2",
                                        "--out",   out,   NULL};
    const char *const *cases[] = {run_args, compare_args};
    for (int c = 0; c < 2; ++c) {
      run_output r = run_clkit(cases[c]);
      EXPECT_EXIT(r, 2, cases[c]);
      EXPECT_HAS(r.err, "option --out: ", cases[c]);
      EXPECT_HAS(r.err, " devices would each write ", cases[c]);
      CHECK_MSG(access(out, F_OK) != 0, "%s was written", out);
      release(&r);
    }
  }
  {
    const char *const args[] = {"compare",  "selfcheck", "--count", "5000",
                                "--passes", "1",         NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(has_line_starting(r.out, "ref "), "no ref row: %s", r.out);
    CHECK_MSG(has_line_starting(r.out, "ocl:"), "no OpenCL row: %s", r.out);
    /* Header, column names, and one row per device, each agreeing. */
    int rows = 0, agreeing = 0;
    for (const char *line = r.out; line && *line;) {
      const char *end = strchr(line, '\n');
      size_t length = end ? (size_t)(end - line) : strlen(line);
      if (strncmp(line, "ref ", 4) == 0 || strncmp(line, "ocl:", 4) == 0) {
        ++rows;
        agreeing += length >= 4 && strncmp(line + length - 4, " yes", 4) == 0;
      }
      line = end ? end + 1 : NULL;
    }
    CHECK_MSG(rows >= 2 && agreeing == rows, "%d rows, %d agree:\n%s", rows,
              agreeing, r.out);
    release(&r);
  }
  {
    /* A device whose results disagree with ref fails the comparison:
     * its row says so and the exit status is 1, so that a script can
     * rely on it. */
    char kernels[600];
    test_path_in(work_dir, "kernels-disagreeing", kernels, sizeof kernels);
    if (copy_kernels_disagreeing(kernels) == 0) {
      setenv("CLKIT_KERNEL_DIR", kernels, 1);
      const char *const args[] = {"compare",  "selfcheck", "--count", "5000",
                                  "--passes", "1",         NULL};
      run_output r = run_clkit(args);
      EXPECT_EXIT(r, 1, args);
      int disagreeing = 0;
      for (const char *line = r.out; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        disagreeing += strncmp(line, "ocl:", 4) == 0 && length >= 3 &&
                       strncmp(line + length - 3, " NO", 3) == 0;
        line = end ? end + 1 : NULL;
      }
      CHECK_MSG(disagreeing >= 1, "no disagreeing OpenCL row:\n%s", r.out);
      release(&r);
      /* A row that fails fails the table, not the rest of it: with a
       * selfcheck that does not build, the workloads after it still run. */
      char broken[700];
      snprintf(broken, sizeof broken, "%s/selfcheck.cl", kernels);
      static const char not_c[] = "this is not OpenCL C;\n";
      CHECK(test_write_bytes(broken, not_c, sizeof not_c - 1) == 0);
      const char *const demo[] = {"demo", "--device", "opencl", NULL};
      r = run_clkit(demo);
      EXPECT_EXIT(r, 1, demo);
      CHECK_MSG(has_line_starting(r.out, "selfcheck  ocl:"),
                "no selfcheck row:\n%s", r.out);
      EXPECT_HAS(r.out, " failed: ", demo);
      EXPECT_HAS(r.out, "/selfcheck.cl:1:1: error: unknown type name 'this'\n",
                 demo);
      EXPECT_HAS(r.out, "\nbuilding program 'selfcheck'", demo);
      CHECK_MSG(has_line_starting(r.out, "gas "), "demo stopped early:\n%s",
                r.out);
      release(&r);
      unsetenv("CLKIT_KERNEL_DIR");
    } else {
      CHECK_MSG(0, "cannot copy the kernel sources to %s", kernels);
    }
  }
  {
    /* TF32, which OpenCL devices refuse: with every device selected (the
     * default, or "all") their rows say "skipped:" and the comparison
     * stands on the rest; an OpenCL device named by the user fails it. */
    const char *const every[] = {"compare",     "nn",       "--train",
                                 "spirals:200", "--epochs", "1",
                                 "--math",      "tf32",     NULL};
    const char *const all[] = {"compare",   "nn",  "--train", "spirals:200",
                               "--epochs",  "1",   "--math",  "tf32",
                               "--devices", "all", NULL};
    const char *const named[] = {
        "compare", "nn",   "--train",   "spirals:200", "--epochs", "1",
        "--math",  "tf32", "--devices", "opencl",      NULL};
    const char *const *cases[] = {every, all, named};
    for (int c = 0; c < 3; ++c) {
      run_output r = run_clkit(cases[c]);
      int by_name = cases[c] == named;
      EXPECT_EXIT(r, by_name ? 1 : 0, cases[c]);
      CHECK_MSG(has_line_starting(r.out, "ref "), "no ref row: %s", r.out);
      EXPECT_HAS(r.out,
                 by_name ? " failed: option --math: ck_nn_config.math: TF32"
                         : " skipped: option --math: ck_nn_config.math: TF32",
                 cases[c]);
      CHECK_MSG(strstr(r.out, by_name ? "skipped:" : "failed:") == NULL,
                "a row %s: %s", by_name ? "skipped" : "failed", r.out);
      release(&r);
    }
  }
  {
    const char *const args[] = {"run",     "selfcheck", "--device", "ocl:0.0",
                                "--count", "5000",      "--passes", "1",
                                "--json",  NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "\"device\":\"ocl:0.0\"", args);
    EXPECT_HAS(r.out, "\"best\":", args);
    release(&r);
  }
  {
    /* A build whose loops the compiler cannot unroll as asked (the GA
     * at d = 99): nothing of it reaches stderr (PoCL prints a warning
     * count there unless warnings are inhibited). */
    const char *const args[] = {
        "run",    "ga", "--device",  "ocl:0.0", "--fn",          "rastrigin",
        "--dim",  "99", "--islands", "2",       "--island-size", "16",
        "--gens", "2",  "--quiet",   NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(r.err && r.err[0] == '\0', "stderr of a quiet run: %s",
              r.err ? r.err : "(none)");
    release(&r);
  }
  {
    /* Asked for on every device (PoCL keeps its own cache of builds,
     * which clkit's otherwise leaves to it), a build goes into the
     * private cache. */
    const char *const environment[] = {"CLKIT_CACHE=1", NULL};
    const char *const args[] = {"run",     "selfcheck", "--device", "ocl:0.0",
                                "--count", "5000",      "--quiet",  NULL};
    run_output r = run_clkit_env(environment, args);
    EXPECT_EXIT(r, 0, args);
    release(&r);
  }
  {
    const char *const args[] = {"cache", "info", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(!has(r.out, "entries    0\n"), "cache still empty:\n%s", r.out);
    release(&r);
  }
}

/* clkit tsp: eval prints a tour's length (and its gap to an optimum),
 * info describes an instance, bad files exit 1 naming file and line, and
 * bad arguments exit 2. */
static void check_tsp(void) {
  const char *data = getenv("CLKIT_TEST_DATA");
  if (!data || !*data) {
    printf("CLKIT_TEST_DATA is not set: clkit tsp not tested\n");
    return;
  }
  char instance[700], tour[700], optima[700], bad_tour[700];
  snprintf(instance, sizeof instance, "%s/tsplib/berlin52.tsp", data);
  snprintf(tour, sizeof tour, "%s/tsplib/tours/berlin52.opt.tour", data);
  snprintf(optima, sizeof optima, "%s/tsplib/optima.txt", data);
  snprintf(bad_tour, sizeof bad_tour, "%s/bad.tour", work_dir);
  {
    /* A comment's control characters (here a terminal's escape sequence
     * and a bell) are shown, not sent to the terminal; a tab stays. */
    char controlled[700];
    test_write_text(work_dir, "controlled.tsp",
                    "NAME : controlled\nCOMMENT : \033[31mred\007\tend\n"
                    "DIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                    "NODE_COORD_SECTION\n1 0 0\n2 1 0\n3 0 1\nEOF\n",
                    controlled, sizeof controlled);
    const char *const args[] = {"tsp", "info", controlled, NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "comment   \\x1b[31mred\\x07\tend\n", args);
    CHECK_MSG(!strchr(r.out, '\033') && !strchr(r.out, '\007'),
              "control characters printed: %s", r.out);
    release(&r);
  }
  {
    const char *const args[] = {"tsp", "eval", instance, tour, NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "berlin52: length 7542\n", args);
    release(&r);
  }
  {
    const char *const args[] = {"tsp",      "eval", instance, tour,
                                "--optima", optima, NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "berlin52: length 7542, optimum 7542, gap 0.00%", args);
    release(&r);
  }
  {
    const char *const args[] = {"tsp",    "eval", "--optimum", "7000",
                                instance, tour,   NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "optimum 7000, gap 7.74%", args);
    CHECK_MSG(strstr(r.err, "warning") == NULL, "a true optimum warned: %s",
              r.err);
    release(&r);
  }
  {
    /* An optimum above a valid tour's length cannot be this instance's. */
    const char *const args[] = {"tsp",    "eval", "--optimum", "8000",
                                instance, tour,   NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "optimum 8000, gap -5.72%", args);
    EXPECT_HAS(r.err,
               "warning: the tour is shorter than the optimum given, "
               "8000: that is not berlin52's optimum",
               args);
    release(&r);
  }
  {
    const char *const args[] = {"tsp", "info", instance, NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "berlin52", args);
    EXPECT_HAS(r.out, "52", args);
    EXPECT_HAS(r.out, "EUC_2D", args);
    EXPECT_HAS(r.out, "Groetschel", args);
    release(&r);
  }
  {
    const char *const args[] = {"help", "tsp", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "usage: clkit tsp", args);
    release(&r);
  }
  /* A tour that visits city 2 twice: exit 1, file and line named. */
  FILE *file = fopen(bad_tour, "w");
  CHECK(file != NULL);
  if (file) {
    fputs("NAME : bad.tour\nTYPE : TOUR\nTOUR_SECTION\n1\n2\n2\n", file);
    for (int id = 4; id <= 52; ++id)
      fprintf(file, "%d\n", id);
    fputs("-1\nEOF\n", file);
    fclose(file);
    const char *const args[] = {"tsp", "eval", instance, bad_tour, NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 1, args);
    char needle[800];
    snprintf(needle, sizeof needle, "clkit: %s:6: city id 2 is repeated",
             bad_tour);
    EXPECT_HAS(r.err, needle, args);
    release(&r);
  }
  {
    const char *const args[] = {"tsp", "info", bad_tour, NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 1, args);
    EXPECT_HAS(r.err, "bad.tour:2: TYPE TOUR is not supported", args);
    release(&r);
  }
  {
    const char *const args[] = {"tsp", "eval", "/nonexistent/x.tsp", tour,
                                NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 1, args);
    EXPECT_HAS(r.err, "/nonexistent/x.tsp", args);
    release(&r);
  }
  static const struct {
    const char *args[8];
    const char *stderr_names;
  } usage[] = {
      {{"tsp", NULL}, "eval or info"},
      {{"tsp", "eval", NULL}, "eval needs"},
      {{"tsp", "eval", "a.tsp", NULL}, "eval needs"},
      {{"tsp", "eval", "a.tsp", "b.tour", "c", NULL}, "unexpected"},
      {{"tsp", "info", NULL}, "info needs"},
      {{"tsp", "solve", "a.tsp", NULL}, "solve"},
      {{"tsp", "eval", "a.tsp", "b.tour", "--bogus", NULL}, "--bogus"},
      {{"tsp", "eval", "a.tsp", "b.tour", "--optimum", "abc", NULL},
       "--optimum"},
      {{"tsp", "eval", "a.tsp", "b.tour", "--optimum", "0", NULL},
       "--optimum takes a whole number >= 1"},
      {{"tsp", "eval", "a.tsp", "b.tour", "--optima", NULL}, "--optima"},
      /* info reads no tour: an optimum beside it is refused, not dropped. */
      {{"tsp", "info", "a.tsp", "--optimum", "5", NULL},
       "--optima and --optimum go with eval, not info"},
      {{"tsp", "info", "a.tsp", "--optima", "o.txt", NULL},
       "--optima and --optimum go with eval, not info"},
  };
  for (size_t c = 0; c < sizeof usage / sizeof usage[0]; ++c)
    expect_refusal(usage[c].args, 2, usage[c].stderr_names);
}

/* clkit run aco: a short ref run writes a tour that loads back as a
 * permutation of the reported length, a trace and an SVG; bad options exit
 * 2 naming the option, unreadable or malformed files exit 1 naming the
 * file. */
static void check_aco_run(void) {
  const char *data = getenv("CLKIT_TEST_DATA");
  if (!data || !*data) {
    printf("CLKIT_TEST_DATA is not set: clkit run aco not tested\n");
    return;
  }
  char instance[700], optima[700], tour[700], trace[700], svg[700];
  char malformed[700], missing[700], nowhere[700];
  snprintf(instance, sizeof instance, "%s/tsplib/eil51.tsp", data);
  snprintf(optima, sizeof optima, "%s/tsplib/optima.txt", data);
  snprintf(tour, sizeof tour, "%s/aco.tour", work_dir);
  snprintf(trace, sizeof trace, "%s/aco-trace.csv", work_dir);
  snprintf(svg, sizeof svg, "%s/aco.svg", work_dir);
  snprintf(malformed, sizeof malformed, "%s/malformed.tsp", work_dir);
  snprintf(missing, sizeof missing, "%s/missing.tsp", work_dir);
  snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/aco.tour", work_dir);
  {
    /* An optimum above the best tour's length is explained, not hidden:
     * on stderr, as every warning is. */
    const char *const args[] = {"run",       "aco",     instance, "--device",
                                "ref",       "--iters", "2",      "--optimum",
                                "100000000", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.err,
               "is shorter than the optimum given, 100000000: that is not "
               "eil51's optimum",
               args);
    release(&r);
  }
  {
    /* --quiet hides log lines, not the warning (it once hid both), which
     * goes to stderr as tsp eval's does; with --json the object has the
     * negative gap. */
    const char *const args[] = {"run",       "aco",     instance, "--device",
                                "ref",       "--iters", "2",      "--optimum",
                                "100000000", "--quiet", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.err, "warning: the best tour, 4", args);
    EXPECT_HAS(r.err,
               "is shorter than the optimum given, 100000000: that is not "
               "eil51's optimum",
               args);
    release(&r);
    const char *const json_args[] = {
        "run", "aco",       instance,    "--device", "ref",    "--iters",
        "2",   "--optimum", "100000000", "--quiet",  "--json", NULL};
    r = run_clkit(json_args);
    EXPECT_EXIT(r, 0, json_args);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "\"gap_percent\":-99.99", json_args);
    EXPECT_HAS(r.err,
               "is shorter than the optimum given, 100000000: that is not "
               "eil51's optimum",
               json_args);
    release(&r);
    /* compare shows warnings too, beside its table, each naming the
     * device whose run gave it. */
    const char *const compare_args[] = {
        "compare", "aco", instance,    "--devices", "ref",
        "--iters", "2",   "--optimum", "100000000", NULL};
    r = run_clkit(compare_args);
    EXPECT_EXIT(r, 0, compare_args);
    EXPECT_HAS(r.err, "warning: ref: the best tour, 4", compare_args);
    EXPECT_HAS(r.out, "vs_ref", compare_args);
    release(&r);
  }
  {
    const char *const args[] = {
        "run", "aco",      instance, "--device",   "ref", "--iters",
        "20",  "--optima", optima,   "--tour-out", tour,  "--trace",
        trace, "--svg",    svg,      "--json",     NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "\"workload\":\"aco\"", args);
    EXPECT_HAS(r.out, "\"best_name\":\"tour_length\"", args);
    EXPECT_HAS(r.out, "\"optimum\":426", args);
    EXPECT_HAS(r.out, "\"cities\":51", args);
    const char *best_at = strstr(r.out, "\"best\":");
    long long best = best_at ? strtoll(best_at + 7, NULL, 10) : -1;
    CHECK_MSG(best >= 426, "best %lld in %s", best, r.out);
    /* The tour: a permutation whose length is the reported best. */
    ck_tsp_instance tsp = {0};
    uint32_t *cities = NULL;
    CHECK_OK(ck_tsp_load(instance, &tsp));
    CHECK_OK(ck_tsp_tour_load(tour, 51, &cities));
    if (cities && tsp.cities == 51) {
      int64_t length = -1;
      CHECK_OK(ck_tsp_tour_measure(&tsp, cities, &length));
      CHECK_MSG(length == best, "tour file %lld, reported %lld",
                (long long)length, best);
    }
    free(cities);
    ck_tsp_free(&tsp);
    /* The trace: the header, then rows ending at the best. */
    char *csv = test_read_file(trace, NULL);
    CHECK(csv != NULL);
    if (csv) {
      CHECK_MSG(strncmp(csv, "time_s,iteration,best_length\n", 29) == 0 &&
                    count_lines(csv) >= 2,
                "trace: %s", csv);
      size_t size = strlen(csv);
      const char *last = csv + size - (size > 0 && csv[size - 1] == '\n');
      while (last > csv && last[-1] != '\n')
        --last;
      const char *comma = strrchr(last, ',');
      CHECK_MSG(comma && strtoll(comma + 1, NULL, 10) == best,
                "trace's last row '%s', best %lld", last, best);
    }
    free(csv);
    char *picture = test_read_file(svg, NULL);
    CHECK_MSG(picture && strncmp(picture, "<svg", 4) == 0 &&
                  strstr(picture, "</svg>"),
              "svg: %.80s", picture ? picture : "(missing)");
    free(picture);
    release(&r);
  }
  {
    /* A name with XML's special characters stays text in the SVG. */
    char special[700];
    test_write_text(work_dir, "special.tsp",
                    "NAME : a<b&\"c\nDIMENSION : 5\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                    "NODE_COORD_SECTION\n1 0 0\n2 10 0\n3 10 10\n4 0 10\n"
                    "5 5 5\nEOF\n",
                    special, sizeof special);
    const char *const args[] = {"run",     "aco", special, "--device", "ref",
                                "--iters", "1",   "--svg", svg,        NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    char *picture = test_read_file(svg, NULL);
    CHECK_MSG(picture && strstr(picture, "<title>a&lt;b&amp;&quot;c: 5 cities"),
              "svg: %.200s", picture ? picture : "(missing)");
    free(picture);
    release(&r);
  }
  {
    /* A run replaces no output unless it makes them all: an SVG of an
     * instance without coordinates is refused before the run, a trace
     * that cannot be written fails it after, and the tour written before
     * the trace stays as it was either way. */
    char weights[700], kept[700];
    test_write_text(work_dir, "weights.tsp",
                    "NAME : weights\nDIMENSION : 6\nEDGE_WEIGHT_TYPE : "
                    "EXPLICIT\nEDGE_WEIGHT_FORMAT : UPPER_ROW\n"
                    "EDGE_WEIGHT_SECTION\n1 2 3 4 5\n6 7 8 9\n1 2 3\n4 5\n6\n"
                    "EOF\n",
                    weights, sizeof weights);
    test_write_text(work_dir, "kept.tour", "old\n", kept, sizeof kept);
    const char *const drawn[] = {"run", "aco",     weights, "--device",
                                 "ref", "--iters", "2",     "--tour-out",
                                 kept,  "--svg",   svg,     NULL};
    const char *const traced[] = {"run", "aco",     instance,    "--device",
                                  "ref", "--iters", "2",         "--tour-out",
                                  kept,  "--trace", "/dev/full", NULL};
    run_output r = run_clkit(drawn);
    EXPECT_EXIT(r, 2, drawn);
    EXPECT_HAS(r.err, "option --svg: instance weights has no coordinates",
               drawn);
    release(&r);
    r = run_clkit(traced);
    EXPECT_EXIT(r, 1, traced);
    EXPECT_HAS(r.err, "/dev/full", traced);
    release(&r);
    char *content = test_read_file(kept, NULL);
    CHECK_MSG(content && strcmp(content, "old\n") == 0, "%s holds '%.20s'",
              kept, content ? content : "(nothing)");
    free(content);
  }
  FILE *file = fopen(malformed, "w");
  CHECK(file != NULL);
  if (file) {
    fputs("NAME : malformed\nTYPE : TSP\nDIMENSION : 5\n"
          "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 x 1\n"
          "3 1 1\n4 2 2\n5 3 3\nEOF\n",
          file);
    fclose(file);
  }
  char malformed_line[720];
  snprintf(malformed_line, sizeof malformed_line, "%s:7:", malformed);
  /* Well formed, but too few cities: the file is named, exit 1. */
  char tiny[700], tiny_message[760];
  test_write_text(work_dir, "tiny.tsp",
                  "NAME : x\nTYPE : TSP\nDIMENSION : 3\n"
                  "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                  "1 0 0\n2 1 0\n3 0 1\nEOF\n",
                  tiny, sizeof tiny);
  snprintf(tiny_message, sizeof tiny_message,
           "clkit: %s: 3 cities; the ACO needs at least 5", tiny);
  const struct {
    const char *args[10];
    int exit_code;
    const char *names; /* stderr must contain this */
  } cases[] = {
      {{"run", "aco", instance, "--candidates", "0", "--device", "ref", NULL},
       2,
       "--candidates"},
      {{"run", "aco", instance, "--candidates", "51", "--device", "ref", NULL},
       2,
       "--candidates"},
      {{"run", "aco", instance, "--ls", "bogus", "--device", "ref", NULL},
       2,
       "--ls"},
      {{"run", "aco", instance, "--target-gap", "1", "--device", "ref", NULL},
       2,
       "--target-gap"},
      {{"run", "aco", instance, "--partition", "4", "--device", "ref", NULL},
       2,
       "--partition"},
      {{"run", "aco", "random:3", "--device", "ref", NULL}, 2, "random:3"},
      {{"run", "aco", missing, "--device", "ref", NULL}, 1, missing},
      {{"run", "pso", "--fn", "lsq", "--data", missing, "--device", "ref",
        NULL},
       1,
       missing},
      {{"run", "aco", malformed, "--device", "ref", NULL}, 1, malformed_line},
      {{"run", "aco", tiny, "--device", "ref", NULL}, 1, tiny_message},
      {{"run", "aco", instance, "--optima", missing, "--device", "ref", NULL},
       1,
       missing},
      {{"run", "aco", instance, "--tour-out", nowhere, "--device", "ref", NULL},
       2,
       nowhere},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    expect_refusal(cases[c].args, cases[c].exit_code, cases[c].names);
}

/* clkit run nn: training from CSV with letter classes writes a model, a
 * trace and per-epoch lines; the model predicts into a file of class
 * names; bad options and files give exit 2 or 1 with the culprit named. */
static void check_nn_run(void) {
  char train[700], rows[700], model[700], trace[700], predicted[700];
  char malformed[700], missing[700], nowhere[700], damaged[700], narrow[700];
  /* Three classes by the sign pattern of the first two features. */
  char text[8192] = "x,y,z,class\n";
  char unlabelled[4096] = "";
  for (int r = 0; r < 60; ++r) {
    double x = (r % 7) - 3.2, y = (r % 5) - 1.9, z = (r % 3) * 0.5;
    const char *name = x < 0 ? "A" : y < 0 ? "B" : "C";
    size_t used = strlen(text);
    snprintf(text + used, sizeof text - used, "%.2f,%.2f,%.2f,%s\n", x, y, z,
             name);
    if (r < 10) {
      used = strlen(unlabelled);
      snprintf(unlabelled + used, sizeof unlabelled - used, "%.2f,%.2f,%.2f\n",
               x, y, z);
    }
  }
  test_write_text(work_dir, "nn-train.csv", text, train, sizeof train);
  test_write_text(work_dir, "nn-rows.csv", unlabelled, rows, sizeof rows);
  test_write_text(work_dir, "nn-bad.csv", "1,2,A\n3,4,B\n5,six,A\n", malformed,
                  sizeof malformed);
  test_write_text(work_dir, "nn-narrow.csv", "1,2,A\n3,4,B\n", narrow,
                  sizeof narrow);
  test_write_text(work_dir, "nn-damaged.ckn", "CKNNMODL\1\0\0\0 not a model",
                  damaged, sizeof damaged);
  snprintf(model, sizeof model, "%s/nn.ckn", work_dir);
  snprintf(trace, sizeof trace, "%s/nn-trace.csv", work_dir);
  snprintf(predicted, sizeof predicted, "%s/nn-predicted.txt", work_dir);
  snprintf(missing, sizeof missing, "%s/missing.csv", work_dir);
  snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/out.txt", work_dir);
  {
    const char *const args[] = {"run",         "nn",    "--train",  train,
                                "--label-col", "last",  "--split",  "45",
                                "--layers",    "3,8,3", "--epochs", "3",
                                "--save",      model,   "--trace",  trace,
                                "--device",    "ref",   NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "epoch   1/3", args);
    EXPECT_HAS(r.out, "epoch   3/3", args);
    EXPECT_HAS(r.out, "confusion matrix", args);
    EXPECT_HAS(r.out, "test_accuracy", args);
    /* The training fields a predict-only run leaves out (below). */
    EXPECT_HAS(r.out, "best_epoch", args);
    EXPECT_HAS(r.out, "train_s", args);
    char *csv = test_read_file(trace, NULL);
    CHECK_MSG(csv && strncmp(csv, "epoch,seconds,train_loss", 24) == 0 &&
                  count_lines(csv) == 4,
              "trace: %s", csv ? csv : "(missing)");
    free(csv);
    CHECK_MSG(access(model, R_OK) == 0, "no model at %s", model);
    release(&r);
  }
  {
    const char *const args[] = {"run",       "nn",      "--load",      model,
                                "--predict", rows,      "--label-col", "last",
                                "--out",     predicted, "--device",    "ref",
                                "--json",    NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    EXPECT_HAS(r.out, "\"predicted_rows\":10", args);
    /* Without training, the headline is the predictions, not a NaN. */
    EXPECT_HAS(r.out, "\"best\":10,\"best_name\":\"predicted_rows\"", args);
    CHECK_MSG(!strstr(r.out, "predict_accuracy"),
              "unlabelled rows were scored: %s", r.out);
    /* Nothing was trained: no training fields at zero (the options the
     * run was given, at the end, list every one, --epochs too). */
    char *options = strstr(r.out, ",\"options\":{");
    EXPECT_HAS(options, "\"train\":null,", args);
    if (options)
      *options = '\0';
    CHECK_MSG(!strstr(r.out, "\"epochs\"") && !strstr(r.out, "\"train_s\"") &&
                  !strstr(r.out, "\"best_epoch\"") &&
                  !strstr(r.out, "\"stopped_early\"") &&
                  !strstr(r.out, "validation_loss") &&
                  !strstr(r.out, "train_rows") && !strstr(r.out, "test_rows") &&
                  !strstr(r.out, "validation_rows"),
              "training fields in a predict-only report: %s", r.out);
    char *lines = test_read_file(predicted, NULL);
    CHECK_MSG(lines && count_lines(lines) == 10, "predictions: %s",
              lines ? lines : "(missing)");
    for (const char *at = lines; at && *at; at = strchr(at, '\n') + 1) {
      CHECK_MSG((at[0] == 'A' || at[0] == 'B' || at[0] == 'C') && at[1] == '\n',
                "prediction line '%.10s'", at);
      if (!strchr(at, '\n'))
        break;
    }
    free(lines);
    release(&r);
  }
  {
    /* Labelled rows are scored as well as predicted. */
    const char *const args[] = {"run",       "nn",      "--load",      model,
                                "--predict", train,     "--label-col", "last",
                                "--out",     predicted, "--device",    "ref",
                                "--json",    NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "\"predicted_rows\":60", args);
    EXPECT_HAS(r.out, "\"predict_accuracy\":", args);
    EXPECT_HAS(r.out, "\"best_name\":\"predict_accuracy\"", args);
    release(&r);
  }
  {
    /* Class numbers up to 65535 make 65536 classes: trained and scored,
     * without a confusion matrix of 2^32 counts. */
    char wide[700];
    test_write_text(work_dir, "nn-wide.csv",
                    "0,1,2\n65535,3,4\n0,1,1\n65535,2,2\n", wide, sizeof wide);
    const char *const args[] = {
        "run", "nn",       "--train",   wide,       "--split", "2", "--epochs",
        "1",   "--layers", "2,4,65536", "--device", "ref",     NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "no confusion matrix: over 1024 classes", args);
    EXPECT_HAS(r.out, "test_accuracy", args);
    release(&r);
  }
  {
    /* An output may replace the model it was read from, nothing else. */
    const char *const args[] = {
        "run",  "nn",    "--load", model,      "--predict", rows, "--label-col",
        "last", "--out", model,    "--device", "ref",       NULL};
    size_t before_size = 0, after_size = 0;
    char *before = test_read_file(model, &before_size);
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 2, args);
    EXPECT_HAS(r.err, "--out and --load both name", args);
    char *after = test_read_file(model, &after_size);
    CHECK_MSG(before && after && before_size == after_size &&
                  memcmp(before, after, before_size) == 0,
              "the model at %s changed", model);
    free(before);
    free(after);
    release(&r);
  }
  char malformed_line[720], beyond_fields[760];
  snprintf(malformed_line, sizeof malformed_line, "%s:3:", malformed);
  /* --label-col counts from 1, and so does its message. */
  snprintf(beyond_fields, sizeof beyond_fields,
           "%s:1: --label-col 4 is beyond the line's 3 fields", malformed);
  const struct {
    const char *args[16];
    int exit_code;
    const char *names; /* stderr must contain this */
  } cases[] = {
      {{"run", "nn", "--predict", rows, "--out", predicted, "--device", "ref",
        NULL},
       2,
       "--predict"},
      {{"run", "nn", "--train", train, "--split", "40", "--test", train,
        "--device", "ref", NULL},
       2,
       "--split"},
      {{"run", "nn", "--layers", "5", "--device", "ref", NULL}, 2, "--layers"},
      {{"run", "nn", "--act", "swish", "--device", "ref", NULL}, 2, "--act"},
      {{"run", "nn", "--schedule", "junk", "--device", "ref", NULL},
       2,
       "--schedule"},
      {{"run", "nn", "--tiles", "local:7", "--device", "ref", NULL},
       2,
       "--tiles"},
      {{"run", "nn", "--tiles", "vector:8", "--device", "ref", NULL},
       2,
       "--tiles"},
      {{"run", "nn", "--tiles", "local: 16", "--device", "ref", NULL},
       2,
       "--tiles"},
      {{"run", "nn", "--tiles", "vectors:16", "--device", "ref", NULL},
       2,
       "--tiles"},
      {{"run", "nn", "--lr", "0", "--device", "ref", NULL}, 2, "--lr"},
      {{"run", "nn", "--train", train, "--label-col", "last", "--layers",
        "4,8,3", "--device", "ref", NULL},
       2,
       "--layers: the input layer has 4 units"},
      /* Three classes for an output layer of two: the option's fault. */
      {{"run", "nn", "--train", train, "--label-col", "last", "--layers",
        "3,8,2", "--device", "ref", NULL},
       2,
       "--layers: the output layer has 2 units"},
      {{"run", "nn", "--train", missing, "--device", "ref", NULL}, 1, missing},
      /* Data that does not fit the network (2 features a row for 3 units)
       * is a fault of its file, not of the options. */
      {{"run", "nn", "--train", train, "--test", narrow, "--label-col", "last",
        "--device", "ref", NULL},
       1,
       narrow},
      {{"run", "nn", "--load", model, "--train", narrow, "--label-col", "last",
        "--device", "ref", NULL},
       1,
       "input layer has 3 units, but the training data has 2 features"},
      {{"run", "nn", "--train", malformed, "--label-col", "last", "--device",
        "ref", NULL},
       1,
       malformed_line},
      {{"run", "nn", "--train", malformed, "--label-col", "4", "--device",
        "ref", NULL},
       1,
       beyond_fields},
      {{"run", "nn", "--load", damaged, "--test", train, "--device", "ref",
        NULL},
       1,
       damaged},
      {{"run", "nn", "--load", model, "--predict", rows, "--label-col", "last",
        "--out", nowhere, "--device", "ref", NULL},
       2,
       nowhere},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    expect_refusal(cases[c].args, cases[c].exit_code, cases[c].names);
}

/* clkit run gas: a short run prints its log and averages and writes its
 * files; a checkpoint restarts; bad options and files give exit 2 or 1
 * with the culprit named. */
static void check_gas_run(void) {
  {
    /* A step ten times too large: NVE's energy runs away while staying
     * finite, and the run says its averages mean nothing. */
    const char *const args[] = {"run",     "gas",  "--particles", "64",
                                "--steps", "200",  "--log-every", "0",
                                "--dt",    "0.05", "--device",    "ref",
                                "--quiet", NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.err, "warning: the total energy per particle went from", args);
    EXPECT_HAS(r.err, "--dt 0.05 is too large", args);
    release(&r);
  }
  char rdf[700], traj[700], checkpoint[700], missing[700], bad_xyz[700];
  snprintf(rdf, sizeof rdf, "%s/gas-rdf.csv", work_dir);
  snprintf(traj, sizeof traj, "%s/gas.xyz", work_dir);
  snprintf(checkpoint, sizeof checkpoint, "%s/gas.ckg", work_dir);
  snprintf(missing, sizeof missing, "%s/missing.xyz", work_dir);
  test_write_text(work_dir, "gas-bad.xyz",
                  "3\nLattice=\"10 0 0 0 10 0 0 0 1\"\n"
                  "Ar 1 1 0\nAr 2 x 0\nAr 3 3 0\n",
                  bad_xyz, sizeof bad_xyz);
  {
    const char *const args[] = {
        "run",      "gas",         "--particles",  "100",   "--steps",
        "40",       "--log-every", "20",           "--rdf", rdf,
        "--traj",   traj,          "--traj-every", "20",    "--checkpoint",
        checkpoint, "--device",    "ref",          NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "    step       time", args);
    EXPECT_HAS(r.out, "potential_energy_se", args);
    EXPECT_HAS(r.out, "energy_drift", args);
    CHECK_MSG(!has(r.err, "warning"), "a sound NVE run warned: %s", r.err);
    char *csv = test_read_file(rdf, NULL);
    CHECK_MSG(csv && strncmp(csv, "r,g,count\n", 10) == 0 &&
                  count_lines(csv) == 101,
              "rdf: %.60s", csv ? csv : "(missing)");
    free(csv);
    char *frames = test_read_file(traj, NULL);
    int frame_count = 0;
    for (const char *at = frames; at && (at = strstr(at, "Lattice=")); ++at)
      ++frame_count;
    CHECK_MSG(frame_count == 3, "%d frames in %s", frame_count, traj);
    free(frames);
    release(&r);
  }
  {
    /* --quiet: the log lines go (only warnings stay), the result stays. */
    const char *const args[] = {"run",      "gas", "--particles", "100",
                                "--steps",  "40",  "--log-every", "20",
                                "--device", "ref", "--quiet",     NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(!strstr(r.out, "    step       time") && r.err[0] == '\0',
              "a quiet gas run logged: %s%s", r.out, r.err);
    EXPECT_HAS(r.out, "energy_drift", args);
    release(&r);
  }
  {
    const char *const args[] = {"run",     "gas", "--restart", checkpoint,
                                "--steps", "10",  "--json",    "--device",
                                "ref",     NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "\"final_step\":50", args);
    release(&r);
  }
  {
    /* Going on from a checkpoint and replacing it with the new state is
     * the one output allowed over an input: the next restart starts
     * there. */
    char again[600];
    test_path_in(work_dir, "gas-again.ckg", again, sizeof again);
    char *bytes = NULL;
    size_t size = 0;
    bytes = test_read_file(checkpoint, &size);
    CHECK(bytes != NULL && test_write_bytes(again, bytes, size) == 0);
    free(bytes);
    const char *const in_place[] = {
        "run",     "gas", "--restart", again,      "--checkpoint", again,
        "--steps", "10",  "--json",    "--device", "ref",          NULL};
    run_output r = run_clkit(in_place);
    EXPECT_EXIT(r, 0, in_place);
    EXPECT_HAS(r.out, "\"final_step\":50", in_place);
    release(&r);
    const char *const onward[] = {"run",     "gas", "--restart", again,
                                  "--steps", "10",  "--json",    "--device",
                                  "ref",     NULL};
    r = run_clkit(onward);
    EXPECT_EXIT(r, 0, onward);
    EXPECT_HAS(r.out, "\"final_step\":60", onward);
    release(&r);
  }
  const struct {
    const char *args[10];
    int exit_code;
    const char *names; /* stderr must contain this */
  } cases[] = {
      {{"run", "gas", "--particles", "0", "--device", "ref", NULL},
       2,
       "--particles"},
      {{"run", "gas", "--rho", "5", "--device", "ref", NULL}, 2, "rho"},
      {{"run", "gas", "--particles", "16", "--device", "ref", NULL}, 2, "rc"},
      {{"run", "gas", "--dt", "0", "--device", "ref", NULL}, 2, "--dt"},
      {{"run", "gas", "--thermostat", "hot", "--device", "ref", NULL},
       2,
       "--thermostat"},
      {{"run", "gas", "--neighbors", "verlet:0", "--device", "ref", NULL},
       2,
       "--neighbors"},
      {{"run", "gas", "--model", "log:1:1", "--neighbors", "cells", "--device",
        "ref", NULL},
       2,
       "option --model: ck_gas_config.model: the soft-log model has no "
       "cutoff; it needs all pairs"},
      {{"run", "gas", "--strips", "always", "--device", "ref", NULL},
       2,
       "--strips"},
      {{"run", "gas", "--sort", "quick", "--device", "ref", NULL}, 2, "--sort"},
      {{"run", "gas", "--xyz", missing, "--device", "ref", NULL}, 1, missing},
      {{"run", "gas", "--xyz", bad_xyz, "--device", "ref", NULL}, 1, ":4:"},
      {{"run", "gas", "--restart", bad_xyz, "--device", "ref", NULL},
       1,
       bad_xyz},
      /* A restart keeps the checkpoint's settings: one given beside it
       * is refused, not dropped. */
      {{"run", "gas", "--restart", checkpoint, "--dt", "0.01", "--device",
        "ref", NULL},
       2,
       "--dt"},
      {{"run", "gas", "--restart", checkpoint, "--strips", "on", "--device",
        "ref", NULL},
       2,
       "--strips"},
      {{"run", "gas", "--restart", checkpoint, "--walls", "--device", "ref",
        NULL},
       2,
       "--walls"},
      {{"run", "gas", "--restart", checkpoint, "--seed", "7", "--device", "ref",
        NULL},
       2,
       "--seed"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    expect_refusal(cases[c].args, cases[c].exit_code, cases[c].names);
}

/* Runs args with a SIGINT sent once a file named temporary... appears in
 * work_dir (twice: a second right after the first) and checks that the
 * run ended as a shell's SIGINT (130), with output's old bytes ("old\n")
 * kept and no temporary left. Returns the run's output. */
/* Runs args, sending signal (0: SIGINT; twice: two of them) once
 * temporary appears, or under a file size limit of limit bytes (0: none);
 * expects exit_code, output keeping its old bytes, and no temporary. */
static run_output interrupted_run_by(const char *const *args,
                                     const char *output, const char *temporary,
                                     int twice, int signal_number, rlim_t limit,
                                     int exit_code) {
  CHECK(test_write_bytes(output, "old\n", 4) == 0);
  interrupt_when = limit ? NULL : temporary;
  interrupt_twice = twice;
  interrupt_signal = signal_number;
  file_size_limit = limit;
  run_output r = run_clkit(args);
  interrupt_when = NULL;
  interrupt_twice = 0;
  interrupt_signal = 0;
  file_size_limit = 0;
  EXPECT_EXIT(r, exit_code, args);
  char *kept = test_read_file(output, NULL);
  CHECK_MSG(kept && strcmp(kept, "old\n") == 0, "%s: %s holds '%.20s'",
            label_of(args), output, kept ? kept : "(nothing)");
  free(kept);
  CHECK_MSG(!work_dir_has(temporary), "%s: a temporary was left in %s",
            label_of(args), work_dir);
  remove(output);
  return r;
}

static run_output interrupted_run(const char *const *args, const char *output,
                                  const char *temporary, int twice) {
  return interrupted_run_by(args, output, temporary, twice, 0, 0, 130);
}

/* Ctrl-C stops a run at its next progress check: the temporary of its
 * trajectory is removed, the file it would have replaced keeps its bytes,
 * and the status is a shell's for SIGINT (130). */
static void check_interrupt(void) {
  char traj[700];
  snprintf(traj, sizeof traj, "%s/interrupted.xyz", work_dir);
  const char *const args[] = {"run",         "gas", "--device",     "ref",
                              "--particles", "64",  "--steps",      "1e9",
                              "--traj",      traj,  "--traj-every", "10",
                              "--quiet",     NULL};
  run_output r = interrupted_run(args, traj, ".interrupted.xyz.tmp.", 0);
  EXPECT_HAS(r.err, "interrupted: stopped at step", args);
  release(&r);
  /* Twice: the second ends the process at once (by SIGINT, unless the
   * first has stopped the run already), and its temporaries go with it;
   * the frames between the run's checks (1000 steps of 4096 particles)
   * leave the second signal time to come first. */
  const char *const twice[] = {"run",         "gas",  "--device",     "ref",
                               "--particles", "4096", "--steps",      "1e9",
                               "--traj",      traj,   "--traj-every", "1000",
                               "--quiet",     NULL};
  r = interrupted_run(twice, traj, ".interrupted.xyz.tmp.", 1);
  release(&r);
  /* gen runs no workload: a signal ends it at once, but not before its
   * output's temporary is gone. */
  char data[700];
  snprintf(data, sizeof data, "%s/interrupted.csv", work_dir);
  const char *const gen[] = {"gen", "lsq",   "--rows", "2e5", "--dim",
                             "64",  "--out", data,     NULL};
  r = interrupted_run(gen, data, ".interrupted.csv.tmp.", 0);
  release(&r);
  /* A terminal closed (SIGHUP) stops a run as Ctrl-C does (129); a reader
   * gone (SIGPIPE) ends it at once (141); neither leaves a temporary. */
  r = interrupted_run_by(args, traj, ".interrupted.xyz.tmp.", 0, SIGHUP, 0,
                         129);
  EXPECT_HAS(r.err, "interrupted: stopped at step", args);
  release(&r);
  r = interrupted_run_by(args, traj, ".interrupted.xyz.tmp.", 0, SIGPIPE, 0,
                         128 + SIGPIPE);
  release(&r);
  r = interrupted_run_by(gen, data, ".interrupted.csv.tmp.", 0, SIGPIPE, 0,
                         128 + SIGPIPE);
  release(&r);
  /* A file past ulimit -f fails its write, not the process. */
  r = interrupted_run_by(gen, data, ".interrupted.csv.tmp.", 0, 0, 100000, 1);
  EXPECT_HAS(r.err, "File too large", gen);
  release(&r);
  r = interrupted_run_by(args, traj, ".interrupted.xyz.tmp.", 0, 0, 100000, 1);
  EXPECT_HAS(r.err, "File too large", args);
  release(&r);
}

/* How many numbers the JSON array after "key": holds (-1: no such array). */
static int json_array_length(const char *json, const char *key) {
  char field[64];
  snprintf(field, sizeof field, "\"%s\":[", key);
  const char *at = json ? strstr(json, field) : NULL;
  if (!at)
    return -1;
  at += strlen(field);
  int count = *at != ']';
  for (; *at && *at != ']'; ++at)
    count += *at == ',';
  return *at == ']' ? count : -1;
}

/* An optimiser's result whole: every coordinate of the best position in
 * the JSON and in the text (or a word on what the text left out), and a
 * JSON result that says how it was made: the seed, clkit's version, the
 * device and every option as resolved, defaults included, with flags as
 * booleans and no claim of agreement in a run not compared. */
static void check_results_whole(void) {
  printf("results whole\n");
  const char *const json_args[] = {"run",    "pso",  "--device", "ref",
                                   "--dim",  "40",   "--iters",  "3",
                                   "--seed", "0x2a", "--json",   NULL};
  run_output r = run_clkit(json_args);
  EXPECT_EXIT(r, 0, json_args);
  CHECK_MSG(json_object_line(r.out), "not one JSON line: %s", r.out);
  CHECK_MSG(json_array_length(r.out, "x") == 40, "x of %d values: %s",
            json_array_length(r.out, "x"), r.out);
  static const char *const fields[] = {
      "\"seed\":42,", "\"version\":\"", "\"device\":\"ref\",",
      "\"agrees\":null", "\"stopped_by\":\"iterations\"",
      "\"total_s\":", "\"build_s\":0,",
      /* Every option: given, defaulted, resolved, a flag, an unset file. */
      "\"options\":{", "\"dim\":40", "\"iters\":3", "\"particles\":1024",
      "\"w\":0.7298", "\"topology\":\"gbest\"", "\"lo\":-5.12",
      "\"constriction\":false", "\"out\":null"};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; ++i)
    EXPECT_HAS(r.out, fields[i], json_args);
  CHECK_MSG(!has(r.out, "\"x0\""), "x0 as a metric: %s", r.out);
  release(&r);
  /* The GA's position is whole too, and a flag given is true. */
  char trace[600];
  snprintf(trace, sizeof trace, "%s/whole-trace.csv", work_dir);
  const char *const ga_args[] = {
      "run", "ga",     "--device", "ref", "--dim",           "20", "--gens",
      "2",   "--json", "--trace",  trace, "--trace-islands", NULL};
  r = run_clkit(ga_args);
  EXPECT_EXIT(r, 0, ga_args);
  CHECK_MSG(json_array_length(r.out, "x") == 20, "x: %s", r.out);
  EXPECT_HAS(r.out, "\"trace-islands\":true", ga_args);
  EXPECT_HAS(r.out, "\"pm\":0.05,", ga_args); /* 1/dim, resolved */
  release(&r);
  /* --constriction reports the c1 and c2 it ran with. */
  const char *const chi_args[] = {
      "run",  "pso", "--device", "ref", "--iters", "2", "--constriction",
      "--c2", "2.2", "--json",   NULL};
  r = run_clkit(chi_args);
  EXPECT_EXIT(r, 0, chi_args);
  EXPECT_HAS(r.out, "\"c1\":2.05,", chi_args);
  EXPECT_HAS(r.out, "\"c2\":2.2,", chi_args);
  EXPECT_HAS(r.out, "\"w\":null,", chi_args);
  release(&r);
  /* Text: a short position whole; a long one cut, saying so. */
  const char *const few_args[] = {"run", "pso",     "--device", "ref", "--dim",
                                  "5",   "--iters", "3",        NULL};
  r = run_clkit(few_args);
  EXPECT_EXIT(r, 0, few_args);
  EXPECT_HAS(r.out, "\n  x                  ", few_args);
  CHECK_MSG(!has(r.out, "more of"), "a whole position cut: %s", r.out);
  release(&r);
  const char *const many_args[] = {"run", "pso",     "--device", "ref", "--dim",
                                   "40",  "--iters", "3",        NULL};
  r = run_clkit(many_args);
  EXPECT_EXIT(r, 0, many_args);
  EXPECT_HAS(r.out, "24 more of 40 values: --out FILE writes all", many_args);
  release(&r);
}

/* On a terminal, a run's progress shows its rate, the time left and the
 * best so far; compare says which workload and device it runs; --quiet
 * shows none of it. Elsewhere the same text comes as a line now and
 * then. */
static void check_terminal_progress(void) {
  printf("progress on a terminal\n");
  const char *const args[] = {"run",    "pso", "--device",    "ref",
                              "--dim",  "4",   "--particles", "64",
                              "--time", "2.5", NULL};
  stderr_on_terminal = 1;
  run_output r = run_clkit(args);
  EXPECT_EXIT(r, 0, args);
  static const char *const parts[] = {"] ", "% ", " iterations/s", " left",
                                      "  best "};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; ++i)
    EXPECT_HAS(r.err, parts[i], args);
  release(&r);
  const char *const compare_args[] = {"compare",  "selfcheck", "--devices",
                                      "ref",      "--count",   "3e7",
                                      "--passes", "3",         NULL};
  r = run_clkit(compare_args);
  EXPECT_EXIT(r, 0, compare_args);
  EXPECT_HAS(r.err, "selfcheck on ref (1 of 1) [", compare_args);
  EXPECT_HAS(r.err, " passes/s", compare_args);
  release(&r);
  const char *const quiet_args[] = {"run",    "pso", "--device",    "ref",
                                    "--dim",  "4",   "--particles", "64",
                                    "--time", "1.5", "--quiet",     NULL};
  r = run_clkit(quiet_args);
  EXPECT_EXIT(r, 0, quiet_args);
  CHECK_MSG(r.err[0] == '\0', "--quiet drew: %s", r.err);
  release(&r);
  stderr_on_terminal = 0;
  /* Not on a terminal: nothing drawn in place, but a line of its own a
   * while into the run (CLKIT_PROGRESS_AFTER's seconds), and then one
   * every ten seconds: here one. */
  const char *const soon[] = {"CLKIT_PROGRESS_AFTER=0.5", NULL};
  r = run_clkit_env(soon, args);
  EXPECT_EXIT(r, 0, args);
  CHECK_MSG(count_lines(r.err) == 1 && !strchr(r.err, '\r') &&
                has_line_starting(r.err, "[") && has(r.err, "% ") &&
                has(r.err, " iterations/s\n"),
            "not one progress line off a terminal: %s", r.err);
  release(&r);
  /* Not with --quiet, nor beside --json. */
  const char *const json_args[] = {"run",    "pso", "--device",    "ref",
                                   "--dim",  "4",   "--particles", "64",
                                   "--time", "1.5", "--json",      NULL};
  const char *const *silent[] = {quiet_args, json_args};
  for (size_t i = 0; i < 2; ++i) {
    r = run_clkit_env(soon, silent[i]);
    EXPECT_EXIT(r, 0, silent[i]);
    CHECK_MSG(r.err[0] == '\0', "progress lines beside %s: %s",
              i ? "--json" : "--quiet", r.err);
    release(&r);
  }
  /* By default, a run of a second or less writes none. */
  const char *const by_default[] = {"CLKIT_PROGRESS_AFTER", NULL};
  const char *const brief[] = {"run",    "pso", "--device",    "ref",
                               "--dim",  "4",   "--particles", "64",
                               "--time", "0.5", NULL};
  r = run_clkit_env(by_default, brief);
  EXPECT_EXIT(r, 0, brief);
  CHECK_MSG(r.err[0] == '\0', "a progress line in half a second: %s", r.err);
  release(&r);
  /* A value that is no number of seconds is warned of. */
  const char *const wrong[] = {"CLKIT_PROGRESS_AFTER=soon", NULL};
  r = run_clkit_env(wrong, brief);
  EXPECT_EXIT(r, 0, brief);
  EXPECT_HAS(r.err, "warning: CLKIT_PROGRESS_AFTER: 'soon' is not a number",
             brief);
  release(&r);
}

/* On PoCL, with its caches off (environment): what the compiler writes to
 * stderr while a program builds is kept out of a run that succeeds, and
 * shown with --verbose. The compiler's warnings (a user objective's
 * unused variable, say) never reach stderr; PoCL's debug output
 * (POCL_DEBUG=llvm) is the chatter a build writes there, echoing the
 * build's options. Off a terminal, a long build says so in a line. */
static void check_compiler_chatter(const char *const *environment) {
  char source[600];
  test_write_text(work_dir, "warns.cl",
                  "float objective(const float *x, int dim) {\n"
                  "  float unused = 1.0f;\n"
                  "  x[0] + 1.0f;\n"
                  "  return x[0] * x[0];\n"
                  "}\n",
                  source, sizeof source);
  const char *const quiet[] = {
      "run",         "pso", "--device", "pocl", "--objective", source,
      "--lo",        "-1",  "--hi",     "1",    "--dim",       "2",
      "--particles", "16",  "--iters",  "5",    "--quiet",     NULL};
  run_output r = run_clkit_env(environment, quiet);
  EXPECT_EXIT(r, 0, quiet);
  CHECK_MSG(r.err[0] == '\0', "a build's warnings on stderr: %s", r.err);
  release(&r);

  const char *with_debug[8] = {NULL};
  size_t count = 0;
  for (; environment[count] && count + 3 < 8; ++count)
    with_debug[count] = environment[count];
  with_debug[count++] = "POCL_DEBUG=llvm";
  with_debug[count++] = "CLKIT_PROGRESS_AFTER=0.2";
  const char *const plain[] = {
      "run",         "pso", "--device", "pocl", "--objective", source,
      "--lo",        "-1",  "--hi",     "1",    "--dim",       "2",
      "--particles", "16",  "--iters",  "5",    NULL};
  const char *const verbose[] = {
      "run",         "pso", "--device", "pocl", "--objective", source,
      "--lo",        "-1",  "--hi",     "1",    "--dim",       "2",
      "--particles", "16",  "--iters",  "5",    "--verbose",   NULL};
  static const char echoed[] = "CK_DEVICE_CPU=1";
  r = run_clkit_env(with_debug, verbose);
  EXPECT_EXIT(r, 0, verbose);
  int chatters = has(r.err, echoed);
  release(&r);
  if (!chatters) {
    printf("PoCL's debug output echoes no build options: --verbose not "
           "tested\n");
    return;
  }
  r = run_clkit_env(with_debug, plain);
  EXPECT_EXIT(r, 0, plain);
  CHECK_MSG(!has(r.err, echoed), "a build's chatter without --verbose:\n%s",
            r.err);
  EXPECT_HAS(r.err, "building kernels: pso for ocl:", plain);
  release(&r);
}

/* On an OpenCL device: a build that takes seconds (PoCL, its caches off)
 * is shown on a terminal, and a kernel that does not build says first
 * where the user's error is, then the device and options, then what the
 * runtime itself wrote. */
static void check_builds_shown(void) {
  printf("kernel builds shown\n");
  const char *const environment[] = {"CLKIT_CACHE=0", "POCL_KERNEL_CACHE=0",
                                     NULL};
  const char *const list[] = {"devices", NULL};
  run_output r = run_clkit(list);
  /* PoCL builds the GA's kernels for seconds; a GPU's driver may not. */
  int pocl = has(r.out, "Portable Computing Language");
  release(&r);
  const char *const args[] = {
      "run",           "ga", "--device", "pocl", "--dim", "3", "--islands", "4",
      "--island-size", "8",  "--gens",   "5",    NULL};
  if (pocl) {
    stderr_on_terminal = 1;
    r = run_clkit_env(environment, args);
    stderr_on_terminal = 0;
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.err, "building kernels: ga for ocl:", args);
    release(&r);
    check_compiler_chatter(environment);
  } else {
    printf("no PoCL device: a slow build's notice not tested\n");
  }

  char broken[600];
  test_write_text(work_dir, "broken.cl",
                  "float objective(const float *x, int dim) {\n"
                  "  float s = 0.0f;\n"
                  "  return x[0] * undeclared_thing;\n"
                  "}\n",
                  broken, sizeof broken);
  const char *const bad[] = {
      "run", "pso",  "--device", "opencl", "--objective", broken, "--lo",
      "-1",  "--hi", "1",        "--dim",  "2",           NULL};
  r = run_clkit_env(environment, bad);
  EXPECT_EXIT(r, 1, bad);
  char first[700];
  snprintf(first, sizeof first, "clkit: %s:3:", broken);
  CHECK_MSG(strncmp(r.err, first, strlen(first)) == 0 &&
                strstr(r.err, "error: ") < strchr(r.err, '\n'),
            "the user's error is not first:\n%s", r.err);
  const char *options = strstr(r.err, "\noptions: -cl-std=CL1.2");
  const char *generated = strstr(r.err, "error generated");
  CHECK_MSG(options && (!generated || generated > options),
            "options, then the runtime's lines:\n%s", r.err);
  release(&r);
}

/* AddressSanitizer reserves terabytes of address space at start, so an
 * address-space limit says nothing of the program under it. */
#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADDRESS_SANITIZER 1
#endif
#endif

/* clkit tsp with an optima file: an instance found by its NAME without
 * .tsp, a malformed line of another instance's warned of, one of its own
 * refused, an unlisted instance named with the file searched. */
static void check_tsp_optima(void) {
  char instance[700], tour[700], optima[700], message[1600];
  test_write_text(work_dir, "square.tsp",
                  "NAME : sq.tsp\nTYPE : TSP\nDIMENSION : 4\n"
                  "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                  "1 0 0\n2 10 0\n3 10 10\n4 0 10\nEOF\n",
                  instance, sizeof instance);
  test_write_text(work_dir, "square.tour",
                  "TYPE : TOUR\nTOUR_SECTION\n1\n2\n3\n4\n-1\nEOF\n", tour,
                  sizeof tour);
  const char *const args[] = {"tsp",      "eval", instance, tour,
                              "--optima", optima, NULL};
  /* Each case: the optima file, the exit status, stdout, and stderr with
   * %s for the optima file's path. */
  static const struct {
    const char *text;
    int exit_code;
    const char *out, *err;
  } cases[] = {
      {"pla : 18660188 (CEIL_2D)\nsq : 36\n", 0,
       "sq.tsp: length 40, optimum 36, gap 11.11%\n",
       "clkit tsp: warning: %s:1: the optimum of pla, \"18660188 "
       "(CEIL_2D)\", is not a whole number >= 1; the line is skipped\n"},
      {"sq : 36 (EUC_2D)\n", 1, "",
       "clkit: %s:1: the optimum of sq, \"36 (EUC_2D)\", is not a whole "
       "number >= 1\n"},
      {"berlin52 : 7542\n", 0, "sq.tsp: length 40\n",
       "clkit tsp: warning: %s lists none of \"sq.tsp\", \"sq\" and "
       "\"square\"; no gap is shown\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    test_write_text(work_dir, "optima.txt", cases[i].text, optima,
                    sizeof optima);
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, cases[i].exit_code, args);
    snprintf(message, sizeof message, cases[i].err, optima);
    CHECK_MSG(strcmp(r.out, cases[i].out) == 0 && strcmp(r.err, message) == 0,
              "optima case %zu: stdout '%s', stderr '%s', expected '%s'", i,
              r.out, r.err, message);
    release(&r);
  }
}

/* The memory of tsp info grows with the instance, not with the libraries
 * linked: a few MB for 4 cities, within 64 MB of address space (NVRTC and
 * cuBLAS, when linked, took about 900 MB of it). */
static void check_tsp_memory(void) {
#ifdef ADDRESS_SANITIZER
  printf("AddressSanitizer: tsp info under an address-space limit not "
         "tested\n");
#else
  char instance[700];
  test_write_text(work_dir, "small.tsp",
                  "NAME : small\nTYPE : TSP\nDIMENSION : 4\n"
                  "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                  "1 0 0\n2 10 0\n3 10 10\n4 0 10\nEOF\n",
                  instance, sizeof instance);
  const char *const args[] = {"tsp", "info", instance, NULL};
  address_space_limit = (rlim_t)64 << 20;
  run_output r = run_clkit(args);
  address_space_limit = 0;
  EXPECT_EXIT(r, 0, args);
  EXPECT_HAS(r.out, "name      small\ncities    4\n", args);
  release(&r);
#endif
}

/* The command's reader of whole numbers (--seed, tsp --optimum), called
 * directly: every form it takes, exactly, and every one it refuses. */
static void check_whole_number_parser(void) {
  static const struct {
    const char *text;
    unsigned long long value;
  } taken[] = {
      {"0", 0},
      {"42", 42},
      {"007", 7},
      {"0x2a", 42},
      {"0XFF", 255},
      {"1e3", 1000},
      {"1E3", 1000},
      {"1e+3", 1000},
      {"2.5e1", 25},
      {"1.0", 1},
      {"1.e3", 1000},
      {"1000e-3", 1},
      {"0e400", 0},
      {"0.0e-5", 0},
      {"18446744073709551615", 18446744073709551615ULL},
      {"1.8446744073709551615e19", 18446744073709551615ULL},
      /* Past 2^53 every digit counts, as no double could hold it. */
      {"9007199254740993e0", 9007199254740993ULL},
      {"1e19", 10000000000000000000ULL},
  };
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; ++i) {
    unsigned long long value = 0;
    int read = cli_parse_unsigned(taken[i].text, &value);
    CHECK_MSG(read == 0 && value == taken[i].value,
              "'%s' read as %d, %llu (wanted %llu)", taken[i].text, read, value,
              taken[i].value);
  }
  /* clang-format off */
  static const char *const refused[] = {
      "", "-1", "+1", " 5", "5 ", "12x", "0x", "0xg", "1.5", "1e-3", "5e-1",
      "1e", "1e+", "e3", ".5e1", "1.2.3", "1e3x", "1e20",
      "18446744073709551616", "1.8446744073709551616e19", "2e19", "1e1000",
      "0x1p3", "inf", "nan"};
  /* clang-format on */
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
    unsigned long long value = 0;
    CHECK_MSG(cli_parse_unsigned(refused[i], &value) != 0,
              "'%s' was taken, as %llu", refused[i], value);
  }
}

/* Whether every line of text is a device's: its id, or its details
 * indented under it. */
static int only_device_lines(const char *text) {
  for (const char *line = text; line && *line;) {
    if (strncmp(line, "ref ", 4) != 0 && strncmp(line, "ocl:", 4) != 0 &&
        strncmp(line, "cuda:", 5) != 0 && strncmp(line, "          ", 10) != 0)
      return 0;
    line = strchr(line, '\n');
    if (line)
      ++line;
  }
  return 1;
}

/* clkit devices prints the device list alone on stdout: the notes on why
 * a backend lists no device (CUDA without a driver or built without it,
 * no OpenCL platform) go to stderr; JSON keeps them as fields. */
static void check_device_notes(void) {
  const char *const *environments[] = {NULL, no_driver_environment()};
  for (int e = 0; e < 2; ++e) {
    const char *const args[] = {"devices", NULL};
    run_output r = run_clkit_env(environments[e], args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(only_device_lines(r.out), "not only devices on stdout:\n%s",
              r.out);
    CHECK_MSG(!has(r.out, "note:"), "a note on stdout:\n%s", r.out);
    /* No CUDA device is visible in the second environment. */
    if (e == 1) {
      CHECK_MSG(has(r.err, "note: ") && has(r.err, "CUDA"),
                "no CUDA note on stderr:\n%s", r.err ? r.err : "(none)");
      EXPECT_HAS(r.err, "note: no OpenCL platform", args);
    }
    release(&r);
    const char *const json[] = {"devices", "--json", NULL};
    r = run_clkit_env(environments[e], json);
    EXPECT_EXIT(r, 0, json);
    CHECK_MSG(json_object_line(r.out), "not one JSON object line: %s", r.out);
    CHECK_MSG(r.err[0] == '\0', "devices --json wrote to stderr: %s", r.err);
    if (e == 1)
      CHECK_MSG(!has(r.out, "\"cuda\":\"ok\""), "CUDA listed as ok: %s", r.out);
    release(&r);
    /* The notes are the device list's: a run says none of them, the
     * default device's choice included. */
    const char *const runs[][10] = {
        {"run", "pso", "--device", "ref", "--dim", "2", "--iters", "3", NULL},
        {"run", "selfcheck", "--count", "100", NULL},
        {"compare", "selfcheck", "--devices", "ref", "--count", "100", NULL}};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; ++i) {
      r = run_clkit_env(environments[e], runs[i]);
      EXPECT_EXIT(r, 0, runs[i]);
      CHECK_MSG(
          !has(r.err, "note:") && !has(r.err, "NVIDIA") && !has(r.err, "CUDA"),
          "'clkit %s' told of the devices:\n%s", label_of(runs[i]), r.err);
      release(&r);
    }
  }
}

/* gen lsq prints the coefficients on stdout, or with --coef writes them
 * to that file alone. */
static void check_gen_coefficients(void) {
  char data[700], coefficients[700];
  snprintf(data, sizeof data, "%s/coef-only.csv", work_dir);
  snprintf(coefficients, sizeof coefficients, "%s/coef-only.txt", work_dir);
  const char *const printed[] = {"gen", "lsq",   "--rows", "20", "--dim",
                                 "4",   "--out", data,     NULL};
  run_output r = run_clkit(printed);
  EXPECT_EXIT(r, 0, printed);
  CHECK_MSG(count_lines(r.out) == 4, "not 4 coefficients on stdout: %s", r.out);
  char *expected = r.out;
  r.out = NULL;
  release(&r);
  const char *const written[] = {"gen",    "lsq",        "--rows", "20",
                                 "--dim",  "4",          "--out",  data,
                                 "--coef", coefficients, NULL};
  r = run_clkit(written);
  EXPECT_EXIT(r, 0, written);
  CHECK_MSG(r.out[0] == '\0', "gen --coef printed to stdout: %s", r.out);
  char *file = test_read_file(coefficients, NULL);
  CHECK_MSG(file && expected && strcmp(file, expected) == 0,
            "%s holds '%s', not '%s'", coefficients, file ? file : "(none)",
            expected ? expected : "(none)");
  free(file);
  free(expected);
  release(&r);
  remove(data);
  remove(coefficients);
}

/* The first words of the entries under the line "title:" of a help
 * text, into names (at most capacity, each under 32 bytes); their count. */
static size_t help_entries(const char *text, const char *title,
                           char names[][32], size_t capacity) {
  char heading[64];
  snprintf(heading, sizeof heading, "\n%s:\n", title);
  const char *line = text ? strstr(text, heading) : NULL;
  size_t count = 0;
  for (line = line ? line + strlen(heading) : NULL;
       line && *line && *line != '\n' && count < capacity;) {
    if (strncmp(line, "  ", 2) == 0 && line[2] != ' ')
      snprintf(names[count++], 32, "%.*s", (int)strcspn(line + 2, " \n"),
               line + 2);
    line = strchr(line, '\n');
    if (line)
      ++line;
  }
  return count;
}

/* The longest line of text, in columns (its bytes: the help is ASCII). */
static size_t longest_line(const char *text, const char **where) {
  size_t longest = 0;
  for (const char *line = text; line && *line;) {
    size_t length = strcspn(line, "\n");
    if (length > longest) {
      longest = length;
      *where = line;
    }
    line += length;
    if (*line)
      ++line;
  }
  return longest;
}

/* Whether the file at root/name holds text. */
static int file_holds(const char *root, const char *name, const char *text) {
  char path[2400];
  snprintf(path, sizeof path, "%s/%s", root, name);
  char *content = test_read_file(path, NULL);
  int found = content && strstr(content, text) != NULL;
  free(content);
  return found;
}

/* Whether README.md or a page of docs/ shows command. */
static int documented(const char *root, const char *command) {
  if (file_holds(root, "README.md", command))
    return 1;
  char docs[1024];
  snprintf(docs, sizeof docs, "%s/docs", root);
  DIR *directory = opendir(docs);
  int found = 0;
  for (struct dirent *entry;
       directory && !found && (entry = readdir(directory));) {
    size_t length = strlen(entry->d_name);
    if (length > 3 && strcmp(entry->d_name + length - 3, ".md") == 0)
      found = file_holds(docs, entry->d_name, command);
  }
  if (directory)
    closedir(directory);
  return found;
}

/* Runs clkit with args (ending in --help), expecting exit 0 and help lines
 * of at most 80 columns; returns the help (the caller frees it). */
static char *expect_narrow_help(const char *const *args) {
  run_output r = run_clkit(args);
  EXPECT_EXIT(r, 0, args);
  const char *where = "";
  size_t longest = longest_line(r.out, &where);
  CHECK_MSG(longest <= 80, "'clkit %s' has a line of %zu columns: %.*s",
            label_of(args), longest, (int)longest, where);
  CHECK_MSG(r.out[0] != '\0', "'clkit %s' printed no help", label_of(args));
  char *help = r.out;
  r.out = NULL;
  release(&r);
  return help;
}

/* Each command's and workload's help fits 80 columns, and each workload's
 * ends with two or three examples: commands of that workload that README.md
 * or docs/ show, whose options its help lists. */
static void check_help_texts(void) {
  const char *const main_args[] = {"help", NULL};
  char *main_help = expect_narrow_help(main_args);
  char commands[32][32], workloads[16][32];
  size_t command_count = help_entries(main_help, "Commands", commands, 32);
  size_t workload_count = help_entries(main_help, "Workloads", workloads, 16);
  CHECK_MSG(command_count >= 10 && workload_count >= 6,
            "%zu commands, %zu workloads in:\n%s", command_count,
            workload_count, main_help);
  free(main_help);
  for (size_t c = 0; c < command_count; ++c) {
    const char *const help_args[] = {"help", commands[c], NULL};
    const char *const flag_args[] = {commands[c], "--help", NULL};
    free(expect_narrow_help(help_args));
    free(expect_narrow_help(flag_args));
  }
  const char *root = getenv("CLKIT_SOURCE_ROOT");
  if (!root || !*root)
    printf("CLKIT_SOURCE_ROOT is not set: examples not sought in the docs\n");
  for (size_t w = 0; w < workload_count; ++w) {
    const char *const compare_args[] = {"compare", workloads[w], "--help",
                                        NULL};
    free(expect_narrow_help(compare_args));
    const char *const args[] = {"run", workloads[w], "--help", NULL};
    char *help = expect_narrow_help(args);
    const char *examples = help ? strstr(help, "\n\nExamples:\n") : NULL;
    CHECK_MSG(examples != NULL, "'clkit %s' has no examples:\n%s",
              label_of(args), help);
    int count = 0;
    for (const char *line = examples ? examples + 12 : NULL; line && *line;) {
      size_t length = strcspn(line, "\n");
      char command[200], run[64], compare[64];
      snprintf(command, sizeof command, "%.*s", (int)length, line);
      snprintf(run, sizeof run, "  clkit run %s ", workloads[w]);
      snprintf(compare, sizeof compare, "  clkit compare %s ", workloads[w]);
      CHECK_MSG(strncmp(command, run, strlen(run)) == 0 ||
                    strncmp(command, compare, strlen(compare)) == 0,
                "'clkit %s': not a command of %s: '%s'", label_of(args),
                workloads[w], command);
      CHECK_MSG(!root || !*root || documented(root, command + 2),
                "'%s' is in no page of README.md or docs/", command + 2);
      /* Each option it gives is one the help lists. */
      for (const char *option = strstr(command, " --"); option;
           option = strstr(option + 1, " --")) {
        int length = (int)strcspn(option + 1, " ");
        char value[64], flag[64], alias[64];
        snprintf(value, sizeof value, "%.*s ", length, option + 1);
        snprintf(flag, sizeof flag, "%.*s\n", length, option + 1);
        snprintf(alias, sizeof alias, "%.*s,", length, option + 1);
        CHECK_MSG(has(help, value) || has(help, flag) || has(help, alias),
                  "'%s': %.*s is not in the help", command + 2, length,
                  option + 1);
      }
      ++count;
      line += length;
      if (*line)
        ++line;
    }
    CHECK_MSG(count >= 2 && count <= 3, "'clkit %s' has %d examples",
              label_of(args), count);
    free(help);
  }
}

/* kernels show NAME --assembled --device SEL: the program with the
 * options clkit builds it with on that device, as a comment and as
 * #defines (tests/test_program.c builds such output); --device needs
 * --assembled and one OpenCL device. */
static void check_kernels_for_device(void) {
  static const struct {
    const char *args[8];
    const char *stderr_names;
  } refused[] = {
      {{"kernels", "show", "selfcheck", "--device", "ref", NULL},
       "--device goes with --assembled"},
      {{"kernels", "list", "--device", "ref", NULL}, "--device goes with"},
      {{"kernels", "show", "selfcheck", "--assembled", "--device", "nosuch",
        NULL},
       "'nosuch' matches no device"},
      {{"kernels", "show", "selfcheck", "--assembled", "--device", "ref", NULL},
       "ref builds no kernels"},
      {{"kernels", "show", "selfcheck", "--assembled", "--device", "all", NULL},
       "--device 'all' matches "},
      {{"kernels", "show", "selfcheck", "--assembled", "--device", "", NULL},
       "--device: an empty selector"},
  };
  for (size_t c = 0; c < sizeof refused / sizeof refused[0]; ++c)
    expect_refusal(refused[c].args, 2, refused[c].stderr_names);
  const char *const list[] = {"devices", NULL};
  run_output r = run_clkit(list);
  const char *line = r.out;
  while (line && *line && strncmp(line, "ocl:", 4) != 0) {
    line = strchr(line, '\n');
    if (line)
      ++line;
  }
  char id[32] = "";
  if (line && *line)
    snprintf(id, sizeof id, "%.*s", (int)strcspn(line, " "), line);
  release(&r);
  if (!id[0]) {
    printf("no OpenCL device: kernels show --device not tested\n");
    return;
  }
  const char *const header[] = {
      "kernels", "show", "ck_philox.h", "--assembled", "--device", id, NULL};
  expect_refusal(header, 2, "not one of clkit's OpenCL programs");
  const char *const args[] = {"kernels", "show", "selfcheck", "--assembled",
                              "-d",      id,     NULL};
  r = run_clkit(args);
  EXPECT_EXIT(r, 0, args);
  CHECK_MSG(strncmp(r.out, "/*\n", 3) == 0, "no leading comment:\n%.400s",
            r.out);
  EXPECT_HAS(r.out, id, args);
  EXPECT_HAS(r.out, " -DCK_DEVICE_CPU=", args);
  EXPECT_HAS(r.out, " -DCK_SELFCHECK_GROUP=", args);
  EXPECT_HAS(r.out, "\n#define CK_LOCAL_MEMORY ", args);
  EXPECT_HAS(r.out, "\n#ifndef CK_SELFCHECK_GROUP\n#define CK_SELFCHECK_GROUP ",
             args);
  EXPECT_HAS(r.out, "#line 1 \"cl/selfcheck.cl\"", args);
  CHECK_MSG(strstr(r.out, "#define CK_SELFCHECK_GROUP") <
                strstr(r.out, "#line 1 \"cl/selfcheck.cl\""),
            "the defines do not come before the source");
  release(&r);
}

/* clkit run gas --thermo writes a CSV row per log step and needs log
 * steps; --xyz reads ASE's momenta, and refuses those of argon's own
 * mass, naming the file, line and column. */
static void check_gas_thermo_and_momenta(void) {
  char thermo[700], ase[700], argon[700];
  snprintf(thermo, sizeof thermo, "%s/gas-thermo.csv", work_dir);
  test_write_text(work_dir, "gas-ase.xyz",
                  "2\nLattice=\"6.0 0.0 0.0 0.0 6.0 0.0 0.0 0.0 1.0\" "
                  "Properties=species:S:1:pos:R:3:momenta:R:3:masses:R:1 "
                  "pbc=\"T T F\"\n"
                  "Ar 1 1 0 0.5 0 0 1.00000000\nAr 4 4 0 -0.5 0 0 1.00000000\n",
                  ase, sizeof ase);
  test_write_text(work_dir, "gas-argon.xyz",
                  "2\nLattice=\"6.0 0.0 0.0 0.0 6.0 0.0 0.0 0.0 1.0\" "
                  "Properties=species:S:1:pos:R:3:momenta:R:3 pbc=\"T T F\"\n"
                  "Ar 1 1 0 19.974 0 0\nAr 4 4 0 -19.974 0 0\n",
                  argon, sizeof argon);
  {
    const char *const args[] = {"run",      "gas",  "--particles", "100",
                                "--steps",  "40",   "--log-every", "20",
                                "--thermo", thermo, "--device",    "ref",
                                NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    char *csv = test_read_file(thermo, NULL);
    CHECK_MSG(csv &&
                  strncmp(csv,
                          "step,time,temperature,kinetic,potential,total,"
                          "pressure\n0,0,",
                          58) == 0 &&
                  count_lines(csv) == 4,
              "thermo: %.120s", csv ? csv : "(missing)");
    free(csv);
    release(&r);
  }
  static const struct {
    const char *args[14];
    int code;
    const char *needle;
  } cases[] = {
      {{"run", "gas", "--particles", "100", "--log-every", "0", "--thermo",
        "t.csv", "--device", "ref", NULL},
       2,
       "--thermo applies only with --log-every above 0"},
      {{"run", "gas", "--xyz", NULL, "--rc", "1.5", "--steps", "1", "--device",
        "ref", NULL},
       1,
       ":3: particle 1: momenta without masses"},
      {{"run", "gas", "--xyz", NULL, "--rc", "1.5", "--steps", "1", "--T", "2",
        "--device", "ref", NULL},
       2,
       "holds the velocities (momenta)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const char *args[14];
    memcpy(args, cases[i].args, sizeof args);
    if (i > 0)
      args[3] = i == 1 ? argon : ase;
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, cases[i].code, args);
    EXPECT_HAS(r.err, cases[i].needle, args);
    if (i == 1)
      EXPECT_HAS(r.err, argon, args);
    release(&r);
  }
}

/* The JSON text of option `name` in a result's "options" (up to the ','
 * or '}' after it), into value; 0 where the result has none. */
static int json_option(const char *json, const char *name, char *value,
                       size_t size) {
  char key[80];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char *options = json ? strstr(json, "\"options\":{") : NULL;
  const char *at = options ? strstr(options, key) : NULL;
  if (!at)
    return 0;
  at += strlen(key);
  snprintf(value, size, "%.*s", (int)strcspn(at, ",}"), at);
  return 1;
}

/* Each option of a result's JSON against the text wanted (a number's
 * text is read as a number: 3 is 3.0). */
typedef struct option_want {
  const char *name, *text;
} option_want;

static void expect_options(const char *const *args, const char *json,
                           const option_want *wants, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    char value[700] = "";
    int found = json_option(json, wants[i].name, value, sizeof value);
    char *end = NULL, *wanted_end = NULL;
    double number = strtod(value, &end),
           wanted = strtod(wants[i].text, &wanted_end);
    int numbers = found && *value && !*end && *wants[i].text && !*wanted_end;
    CHECK_MSG(found && (numbers ? number == wanted
                                : strcmp(value, wants[i].text) == 0),
              "'clkit %s': option %s is %s, not %s", label_of(args),
              wants[i].name, found ? value : "(missing)", wants[i].text);
  }
}

/* Runs args, which must succeed, and checks its result's options. */
static void expect_run_options(const char *const *args,
                               const option_want *wants, size_t count) {
  run_output r = run_clkit(args);
  EXPECT_EXIT(r, 0, args);
  expect_options(args, r.out, wants, count);
  release(&r);
}

/* A restart reports the options it ran with: the checkpoint's system,
 * dynamics, seed and kernel forms (those of ref, which wrote it), and
 * the steps and outputs given beside it; the lattice and the temperature
 * that made the first state are not used again (null). Settings of the
 * system or the seed beside --restart are refused, naming the option.
 * A fresh run reports the box it made and the density --box made; a
 * start from an XYZ file the file's particles, and no lattice. */
static void check_restart_options(void) {
  char checkpoint[700], frames[700], quoted[720];
  test_path_in(work_dir, "restart-options.ckg", checkpoint, sizeof checkpoint);
  test_path_in(work_dir, "restart-options.xyz", frames, sizeof frames);
  snprintf(quoted, sizeof quoted, "\"%s\"", checkpoint);
  {
    const char *const args[] = {"run",
                                "gas",
                                "--particles",
                                "100",
                                "--box",
                                "16x10",
                                "--lattice",
                                "square",
                                "--T",
                                "1.5",
                                "--dt",
                                "0.002",
                                "--rc",
                                "3",
                                "--neighbors",
                                "verlet:0.4",
                                "--thermostat",
                                "langevin:1.2:0.5",
                                "--walls",
                                "--seed",
                                "7",
                                "--steps",
                                "20",
                                "--log-every",
                                "0",
                                "--checkpoint",
                                checkpoint,
                                "--traj",
                                frames,
                                "--device",
                                "ref",
                                NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    release(&r);
  }
  static const option_want restarted[] = {
      {"particles", "100"},
      {"rho", "0.625"},
      {"box", "\"16x10\""},
      {"lattice", "null"},
      {"T", "null"},
      {"xyz", "null"},
      {"rc", "3"},
      {"shift", "\"energy\""},
      {"model", "\"lj\""},
      {"dt", "0.002"},
      {"walls", "true"},
      {"thermostat", "\"langevin:1.2:0.5\""},
      {"neighbors", "\"verlet:0.4\""},
      {"tiles", "\"direct\""},
      {"strips", "\"off\""},
      {"sort", "\"auto\""},
      {"steps", "10"},
      {"equil", "4"},
      {"log-every", "5"},
      {"sample-every", "2"},
  };
  /* On one device and spread over two: the same settings. */
  for (int spread = 0; spread < 2; ++spread) {
    const char *const args[] = {"run",
                                "gas",
                                "--restart",
                                checkpoint,
                                "--steps",
                                "10",
                                "--equil",
                                "4",
                                "--log-every",
                                "5",
                                "--sample-every",
                                "2",
                                "--json",
                                "--quiet",
                                "--device",
                                spread ? "ref,ref" : "ref",
                                spread ? "--spread" : NULL,
                                NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    expect_options(args, r.out, restarted,
                   sizeof restarted / sizeof restarted[0]);
    const option_want file[] = {{"restart", quoted}};
    expect_options(args, r.out, file, 1);
    EXPECT_HAS(r.out, "\"seed\":7,", args);
    release(&r);
  }
  {
    /* The text result shows the checkpoint's system too. */
    const char *const args[] = {"run",      "gas", "--restart",   checkpoint,
                                "--steps",  "2",   "--log-every", "0",
                                "--device", "ref", "--quiet",     NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.out, "  particles          100 \n", args);
    EXPECT_HAS(r.out, "  box_x              16 \n", args);
    EXPECT_HAS(r.out, "  box_y              10 \n", args);
    release(&r);
  }
  static const char *const refused[][2] = {
      {"--particles", "100"},   {"--rho", "0.5"},    {"--box", "16x10"},
      {"--lattice", "square"},  {"--T", "1.5"},      {"--rc", "3"},
      {"--dt", "0.002"},        {"--walls", NULL},   {"--thermostat", "none"},
      {"--neighbors", "cells"}, {"--tiles", "auto"}, {"--seed", "7"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
    const char *const args[] = {"run",         "gas",         "--restart",
                                checkpoint,    "--device",    "ref",
                                refused[i][0], refused[i][1], NULL};
    expect_refusal(args, 2, refused[i][0]);
  }
  {
    const char *const args[] = {
        "run", "gas",    "--particles", "100",      "--box", "20x16", "--steps",
        "1",   "--json", "--quiet",     "--device", "ref",   NULL};
    static const option_want boxed[] = {{"rho", "0.3125"},
                                        {"box", "\"20x16\""},
                                        {"lattice", "\"triangular\""},
                                        {"T", "1"}};
    expect_run_options(args, boxed, sizeof boxed / sizeof boxed[0]);
  }
  {
    /* The frame holds velocities: --T goes unused. */
    const char *const args[] = {
        "run", "gas",    "--xyz",   frames,     "--rc", "3", "--steps",
        "1",   "--json", "--quiet", "--device", "ref",  NULL};
    static const option_want started[] = {{"particles", "100"},
                                          {"box", "\"16x10\""},
                                          {"lattice", "null"},
                                          {"T", "null"}};
    expect_run_options(args, started, sizeof started / sizeof started[0]);
  }
}

/* args (16 at most): command, then option and path, the work directory's
 * file name (path holds 700 bytes). */
static void output_args(const char *const *command, const char *option,
                        const char *name, char *path, const char **args) {
  size_t argc = 0;
  for (const char *const *a = command; *a && argc < 13; ++a)
    args[argc++] = *a;
  test_path_in(work_dir, name, path, 700);
  args[argc++] = option;
  args[argc++] = path;
  args[argc] = NULL;
}

/* An output whose name's extension says another format than the one it
 * is written in is refused (exit 2), naming the option, the format the
 * name says and the extensions it may end in; nothing is written. A
 * name of no known format, or the right one in any case, is taken. */
static void check_output_extensions(void) {
  static const char *const gas[] = {"run", "gas", "--device", "ref", NULL};
  static const char *const pso[] = {"run", "pso", "--device", "ref", NULL};
  static const char *const ga[] = {"run", "ga", "--device", "ref", NULL};
  static const char *const aco[] = {"run",      "aco", "random:10",
                                    "--device", "ref", NULL};
  static const char *const nn[] = {"run", "nn", "--device", "ref", NULL};
  static const char *const nn_predict[] = {"run",       "nn",       "--device",
                                           "ref",       "--load",   "m.ckn",
                                           "--predict", "rows.csv", NULL};
  static const char *const gen[] = {"gen",   "lsq", "--rows", "10",
                                    "--dim", "2",   NULL};
  static const char *const gen_bin[] = {
      "gen", "lsq", "--rows", "10", "--dim", "2", "--format", "bin", NULL};
  static const char *const gen_csv[] = {
      "gen", "lsq", "--rows", "10", "--dim", "2", "--out", "/dev/null", NULL};
  static const struct {
    const char *const *command;
    const char *option, *name, *says;
  } refused[] = {
      {gas, "--traj", "out.dcd",
       "ends in .dcd (DCD), but the file is extended XYZ: end its name in "
       ".xyz or .extxyz"},
      {gas, "--traj", "out.xyz.gz", "ends in .gz (gzip)"},
      {gas, "--png", "out.jpg",
       "ends in .jpg (JPEG), but the file is PNG: end its name in .png"},
      {gas, "--png", "out.svg", "ends in .svg (SVG)"},
      {gas, "--rdf", "g.json",
       "ends in .json (JSON), but the file is CSV: end its name in .csv or "
       ".txt"},
      {gas, "--thermo", "t.xyz", "ends in .xyz (extended XYZ)"},
      {gas, "--checkpoint", "c.xyz",
       "but the file is a gas checkpoint: end its name in .ckg or .bin"},
      {pso, "--out", "x.json",
       "but the file is plain text: end its name in .txt or .csv"},
      {pso, "--trace", "t.png", "ends in .png (PNG), but the file is CSV"},
      {ga, "--out", "x.npy", "ends in .npy (NumPy)"},
      {ga, "--trace", "t.svg", "ends in .svg (SVG), but the file is CSV"},
      {aco, "--tour-out", "t.csv",
       "but the file is a TSPLIB tour: end its name in .tour or .txt"},
      {aco, "--svg", "s.png", "but the file is SVG: end its name in .svg"},
      {aco, "--trace", "t.tour", "ends in .tour (a TSPLIB tour)"},
      {nn, "--save", "m.onnx",
       "but the file is a clkit model or safetensors: end its name in .ckn "
       "or .safetensors or .bin"},
      {nn, "--trace", "t.xlsx", "ends in .xlsx (Excel)"},
      {nn_predict, "--out", "p.json", "but the file is plain text"},
      {gen, "--out", "d.bin",
       "ends in .bin (binary data), but the file is CSV: end its name in "
       ".csv or .txt (or give --format bin)"},
      {gen_bin, "--out", "d.csv",
       "but the file is clkit's binary least-squares data: end its name in "
       ".bin (or give --format csv)"},
      {gen_csv, "--coef", "c.png", "but the file is plain text"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
    const char *args[16];
    char path[700], named[760];
    output_args(refused[i].command, refused[i].option, refused[i].name, path,
                args);
    snprintf(named, sizeof named, "%s: '%s' %s", refused[i].option, path,
             refused[i].says);
    if (strncmp(refused[i].says, "but", 3) == 0)
      snprintf(named, sizeof named, "%s: '%s' ends in", refused[i].option,
               path);
    expect_refusal(args, 2, named);
    expect_refusal(args, 2, refused[i].says);
    CHECK_MSG(access(path, F_OK) != 0, "'clkit %s' wrote %s", label_of(args),
              path);
  }
  /* Taken: the format's own extension in another case, and names that
   * say no format. */
  static const char *const gas_run[] = {"run",      "gas", "--particles", "64",
                                        "--steps",  "1",   "--log-every", "0",
                                        "--device", "ref", "--quiet",     NULL};
  static const char *const pso_run[] = {
      "run", "pso", "--dim", "2", "--iters", "2", "--device", "ref", NULL};
  static const struct {
    const char *const *command;
    const char *option, *name;
  } taken[] = {
      {gas_run, "--png", "upper.PNG"},    {gas_run, "--traj", "frames.extxyz"},
      {gas_run, "--checkpoint", "state"}, {pso_run, "--out", "best.dat"},
      {pso_run, "--trace", "trace.TXT"},  {pso_run, "--out", "best.v2"},
  };
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; ++i) {
    const char *args[16];
    char path[700];
    output_args(taken[i].command, taken[i].option, taken[i].name, path, args);
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(access(path, F_OK) == 0, "'clkit %s' wrote no %s", label_of(args),
              path);
    release(&r);
  }
}

/* A JSON result's number named key (its first), or NaN. */
static double result_number(const char *json, const char *key) {
  char quoted[80];
  snprintf(quoted, sizeof quoted, "\"%s\":", key);
  const char *at = json ? strstr(json, quoted) : NULL;
  return at ? strtod(at + strlen(quoted), NULL) : NAN;
}

/* A single-precision run whose best lies within a float's rounding of
 * Styblinski-Tang's minimum: its own value lies below that minimum, and
 * the result gives its position's value in double instead, never below
 * the minimum, with the gap the difference of the two and no warning. */
static void check_best_not_below_optimum(void) {
  static const char *const runs[][20] = {
      {"run", "pso", "--fn", "styblinski-tang", "--dim", "10", "--particles",
       "64", "--iters", "250", "--seed", "3", "--precision", "float",
       "--device", "ref", "--json", NULL},
      {"run",           "ga",  "--fn",        "styblinski-tang",
       "--dim",         "10",  "--islands",   "32",
       "--island-size", "32",  "--gens",      "2000",
       "--seed",        "1",   "--precision", "float",
       "--device",      "ref", "--json",      NULL},
  };
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
    run_output r = run_clkit(runs[i]);
    EXPECT_EXIT(r, 0, runs[i]);
    double best = result_number(r.out, "best");
    double optimum = result_number(r.out, "optimum");
    double gap = result_number(r.out, "gap");
    CHECK_MSG(best >= optimum && gap >= 0 && gap == best - optimum &&
                  gap < 1e-3,
              "'clkit %s': best %.17g, optimum %.17g, gap %.17g",
              label_of(runs[i]), best, optimum, gap);
    CHECK_MSG(!has(r.err, "warning"), "'clkit %s' warned: %s",
              label_of(runs[i]), r.err);
    release(&r);
  }
}

/* Runs clkit with stdout a pipe that this test reads to the end, or
 * closed (closed nonzero); stderr is caught. */
static run_output run_clkit_stdout_piped(const char *const *arguments,
                                         int closed) {
  run_output result = {-1, NULL, NULL};
  char err_path[700];
  snprintf(err_path, sizeof err_path, "%s/stderr", work_dir);
  char *argv[MAX_ARGS + 2];
  clkit_argv(arguments, argv);
  int ends[2];
  if (pipe(ends) != 0)
    return result;
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child == 0) {
    int in = open("/dev/null", O_RDONLY);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || err < 0)
      _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(err, STDERR_FILENO);
    if (closed)
      close(STDOUT_FILENO);
    else
      dup2(ends[1], STDOUT_FILENO);
    close(ends[0]);
    close(ends[1]);
    execv(clkit_path, argv);
    _exit(127);
  }
  close(ends[1]);
  size_t used = 0, capacity = 4096;
  char *out = malloc(capacity);
  for (ssize_t got = 1; out && got > 0;) {
    if (used + 1 == capacity) {
      char *grown = realloc(out, 2 * capacity);
      if (!grown)
        break;
      out = grown;
      capacity *= 2;
    }
    got = read(ends[0], out + used, capacity - used - 1);
    if (got > 0)
      used += (size_t)got;
  }
  close(ends[0]);
  int status = 0;
  if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  if (out)
    out[used] = '\0';
  result.out = out ? out : calloc(1, 1);
  result.err = test_read_file(err_path, NULL);
  if (!result.err)
    result.err = calloc(1, 1);
  return result;
}

/* clkit run nn on CSV label columns: a label column of one value (an
 * image's corner pixel, where the label is last) is refused, exit 1,
 * naming the file, the column and --label-col last; one of measurements
 * beside a last column of labels is warned of on stderr, even with
 * --quiet. Saves nn-pixels.ckn, whose classes are 0 and 1. */
static void check_nn_label_column(void) {
  char pixels[4096] = "", measured[4096] = "", path[700], meas_path[700];
  char model[700];
  for (int r = 0; r < 40; ++r) {
    int k = r % 2;
    size_t used = strlen(pixels);
    snprintf(pixels + used, sizeof pixels - used, "0,%d,%d,%d\n",
             k ? 200 : 10 + r % 7, k ? 10 + r % 5 : 200, k);
    used = strlen(measured);
    snprintf(measured + used, sizeof measured - used, "%.2f,%d,%d\n",
             k + 0.05 * (r % 9) + 0.01, r % 4, k);
  }
  test_write_text(work_dir, "nn-pixels.csv", pixels, path, sizeof path);
  test_write_text(work_dir, "nn-measured.csv", measured, meas_path,
                  sizeof meas_path);
  snprintf(model, sizeof model, "%s/nn-pixels.ckn", work_dir);
  {
    const char *const args[] = {"run", "nn",       "--train", path, "--split",
                                "0.2", "--device", "ref",     NULL};
    char column[800];
    snprintf(column, sizeof column,
             "%s: column 1, the label column, holds one value ('0') in all "
             "40 rows",
             path);
    expect_refusal(args, 1, column);
    expect_refusal(args, 1,
                   "Column 4 holds 2 distinct integers, as labels "
                   "do: give --label-col last");
  }
  {
    const char *const args[] = {"run",      "nn",  "--train",  meas_path,
                                "--split",  "0.2", "--epochs", "1",
                                "--device", "ref", "--quiet",  NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    EXPECT_HAS(r.err, "warning: ", args);
    EXPECT_HAS(r.err, meas_path, args);
    EXPECT_HAS(r.err,
               "column 1, the label column, holds numbers that are not "
               "integers",
               args);
    EXPECT_HAS(r.err, "give --label-col last", args);
    release(&r);
  }
  {
    const char *const args[] = {"run",         "nn",   "--train",  path,
                                "--label-col", "last", "--epochs", "40",
                                "--lr",        "0.05", "--save",   model,
                                "--device",    "ref",  NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(!has(r.err, "warning"), "a warning: %s", r.err);
    release(&r);
  }
}

/* "-" as a file name: standard output for an output, standard input for
 * an input, as for Unix tools. The run's own text leaves stdout to the
 * output; no file named "-" is made. */
static void check_standard_streams(void) {
  char clkit[4096], tiny[700], lsq[700], nn[700], idx[700];
  /* The runs go in the work directory, where clkit must still be found. */
  if (!realpath(clkit_path, clkit)) {
    CHECK_MSG(0, "realpath %s: %s", clkit_path, strerror(errno));
    return;
  }
  const char *given_path = clkit_path;
  clkit_path = clkit;
  run_directory = work_dir;
  test_write_text(work_dir, "stream.tsp",
                  "NAME : stream\nDIMENSION : 5\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                  "NODE_COORD_SECTION\n1 0 0\n2 10 0\n3 10 10\n4 0 10\n"
                  "5 5 5\nEOF\n",
                  tiny, sizeof tiny);
  test_write_text(work_dir, "stream-lsq.csv",
                  "a1,a2,b\n1,0,1\n0,1,2\n1,1,3\n2,1,4\n", lsq, sizeof lsq);
  test_write_text(work_dir, "stream-nn.csv",
                  "x,y,class\n-1,-1,A\n1,1,B\n-2,-1,A\n2,1,B\n-1,-2,A\n"
                  "1,2,B\n",
                  nn, sizeof nn);
  /* 2 images of 2 x 2 bytes. */
  static const unsigned char images[] = {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2,
                                         0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8};
  test_path_in(work_dir, "stream-images", idx, sizeof idx);
  CHECK(test_write_bytes(idx, images, sizeof images) == 0);
  {
    /* The best position, one value a line, is all that stdout gets. */
    const char *const args[] = {
        "run", "pso",         "--device", "ref",   "--dim", "2", "--iters",
        "3",   "--particles", "8",        "--out", "-",     NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(count_lines(r.out) == 2 && !has(r.out, "objective"),
              "stdout of --out -: %s", r.out);
    EXPECT_HAS(r.err, "stopped_by         iterations", args);
    release(&r);
  }
  {
    const char *const args[] = {"run", "aco",     tiny, "--device",
                                "ref", "--iters", "2",  "--tour-out",
                                "-",   NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    size_t size = strlen(r.out);
    CHECK_MSG(strncmp(r.out, "NAME", 4) == 0 && has(r.out, "TOUR_SECTION") &&
                  size > 4 && strcmp(r.out + size - 4, "EOF\n") == 0 &&
                  !has(r.out, "tour_length"),
              "stdout of --tour-out -: %s", r.out);
    EXPECT_HAS(r.err, "tour_length", args);
    release(&r);
  }
  CHECK_MSG(!work_dir_has("-"), "a file named '-' in %s", work_dir);
  {
    /* An instance, a CSV of nn and one of lsq read from stdin. */
    const char *const aco[] = {"run", "aco",     "-", "--device",
                               "ref", "--iters", "2", NULL};
    const char *const train[] = {"run",         "nn",   "--train",  "-",
                                 "--label-col", "last", "--layers", "2,4,2",
                                 "--epochs",    "1",    "--device", "ref",
                                 NULL};
    const char *const data[] = {
        "run", "pso",     "--fn", "lsq",         "--data", "-", "--device",
        "ref", "--iters", "3",    "--particles", "8",      NULL};
    const struct {
      const char *const *args;
      const char *file, *text;
    } cases[] = {{aco, tiny, "cities             5"},
                 {train, nn, "train_rows         6"},
                 {data, lsq, "objective"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      stdin_source = cases[c].file;
      run_output r = run_clkit(cases[c].args);
      stdin_source = NULL;
      EXPECT_EXIT(r, 0, cases[c].args);
      EXPECT_HAS(r.out, cases[c].text, cases[c].args);
      release(&r);
    }
  }
  {
    /* An IDX features file on stdin has no name to find its labels by. */
    const char *const args[] = {"run",      "nn",  "--train",  "-",
                                "--layers", "4,2", "--epochs", "1",
                                "--device", "ref", NULL};
    stdin_source = idx;
    expect_refusal(args, 2, "give the labels file's path with --train-labels");
    stdin_source = NULL;
  }
  const struct {
    const char *args[16];
    const char *names;
  } refused[] = {
      {{"run", "pso", "--device", "ref", "--out", "-", "--trace", "-", NULL},
       "--out and --trace both write to standard output"},
      {{"run", "pso", "--device", "ref", "--out", "-", "--trace", "/dev/stdout",
        NULL},
       "--out and --trace both write to standard output"},
      {{"run", "aco", tiny, "--device", "ref", "--tour-out", "-", "--json",
        NULL},
       "--json and --tour-out both write to standard output"},
      {{"run", "aco", "-", "--optima", "-", "--device", "ref", NULL},
       "--instance and --optima both read standard input"},
      {{"gen", "lsq", "--rows", "3", "--dim", "2", "--out", "-", "--coef", "-",
        NULL},
       "--coef and --out both write to standard output"},
      {{"tsp", "eval", "-", "-", NULL}, "more than one file is \"-\""},
  };
  for (size_t c = 0; c < sizeof refused / sizeof refused[0]; ++c)
    expect_refusal(refused[c].args, 2, refused[c].names);
  {
    /* gen's data on stdout, x* beside it on stderr. */
    const char *const args[] = {"gen", "lsq",   "--rows", "3", "--dim",
                                "2",   "--out", "-",      NULL};
    run_output r = run_clkit(args);
    EXPECT_EXIT(r, 0, args);
    CHECK_MSG(strncmp(r.out, "a1,a2,b\n", 8) == 0 && count_lines(r.out) == 4,
              "stdout of gen --out -: %s", r.out);
    CHECK_MSG(count_lines(r.err) == 2, "x* on stderr: %s", r.err);
    release(&r);
  }
  CHECK_MSG(!work_dir_has("-"), "a file named '-' in %s", work_dir);
  {
    /* Runs on several devices would each read standard input: the first
     * would take it all. The output on stdout is found by any name. */
    const ck_workload *aco = NULL;
    const ck_param piped[] = {{"instance", "-"}, {"trace", "/dev/fd/1"}};
    const char *option = NULL, *message = "";
    CHECK_OK(ck_workload_find("aco", &aco));
    CHECK(ck_workload_check_devices(aco, piped, 2, 2) ==
          CK_ERROR_INVALID_ARGUMENT);
    ck_error_get_last(&message);
    CHECK_MSG(has(message, "option --instance: 2 devices would each read "
                           "standard input"),
              "%s", message);
    CHECK_OK(ck_workload_check_devices(aco, piped, 1, 1));
    CHECK_OK(ck_workload_find_stdout(aco, piped, 2, &option));
    CHECK_MSG(option && strcmp(option, "trace") == 0, "%s",
              option ? option : "(none)");
    CHECK_OK(ck_workload_find_stdout(aco, piped, 1, &option));
    CHECK(option == NULL);
  }
  int master = -1;
  char terminal[64];
  if (open_terminal(&master, terminal, sizeof terminal) == 0) {
    /* A binary output is not sprayed over a terminal. */
    const char *const args[] = {"run",      "nn",  "--train", "spirals:30",
                                "--epochs", "1",   "--save",  "-",
                                "--device", "ref", NULL};
    stdout_target = terminal;
    run_output r = run_clkit(args);
    stdout_target = NULL;
    EXPECT_EXIT(r, 2, args);
    EXPECT_HAS(r.err, "option --save: - (standard output) is a terminal", args);
    release(&r);
    close(master);
  } else {
    printf("no terminal to be had: binary outputs on one not tested\n");
  }
  run_directory = NULL;
  clkit_path = given_path;
}

/* --predict without --out writes the classes alone on stdout (a file or
 * a pipe), the report and result going to stderr; --json, which would
 * write there too, is refused (exit 2); with stdout closed the run fails,
 * exit 1. Uses check_nn_label_column's model. */
static void check_nn_predict_stdout(void) {
  char model[700], rows[700];
  snprintf(model, sizeof model, "%s/nn-pixels.ckn", work_dir);
  test_write_text(work_dir, "nn-pixel-rows.csv",
                  "0,200,12\n0,11,200\n0,200,15\n", rows, sizeof rows);
  const char *const predict[] = {
      "run", "nn", "--load", model, "--predict", rows, "--device", "ref", NULL};
  const char *const predict_json[] = {"run",       "nn", "--load",   model,
                                      "--predict", rows, "--device", "ref",
                                      "--json",    NULL};
  for (int i = 0; i < 2; ++i) {
    run_output r =
        i == 0 ? run_clkit(predict) : run_clkit_stdout_piped(predict, 0);
    EXPECT_EXIT(r, 0, predict);
    CHECK_MSG(strcmp(r.out, "1\n0\n1\n") == 0,
              "'clkit %s' (stdout %s): stdout is not the classes alone:\n%s",
              label_of(predict), i == 0 ? "a file" : "a pipe", r.out);
    EXPECT_HAS(r.err, "predicted_rows", predict);
    release(&r);
  }
  expect_refusal(predict_json, 2,
                 "--json and --out (not given: standard output) both write "
                 "to standard output; give --out a file");
  {
    run_output r = run_clkit_stdout_piped(predict, 1);
    EXPECT_EXIT(r, 2, predict);
    EXPECT_HAS(r.err,
               "--predict without --out writes the classes to standard "
               "output: cannot write -: descriptor 1 is not open",
               predict);
    release(&r);
  }
}

/* With an OpenCL device beside ref: --predict without --out on several
 * devices, by run or compare, is refused (exit 2), as each run would
 * write its classes to stdout in turn. Uses the files of
 * check_nn_predict_stdout. */
static void check_nn_stdout_devices(void) {
  char model[700], rows[700];
  snprintf(model, sizeof model, "%s/nn-pixels.ckn", work_dir);
  snprintf(rows, sizeof rows, "%s/nn-pixel-rows.csv", work_dir);
  const char *const run_args[] = {
      "run", "nn", "--load", model, "--predict", rows, "--device", "all", NULL};
  const char *const compare_args[] = {"compare",   "nn", "--load", model,
                                      "--predict", rows, NULL};
  expect_refusal(run_args, 2,
                 "devices would each write to standard output in turn "
                 "(where --out goes without a file)");
  expect_refusal(compare_args, 2,
                 "devices would each write to standard output in turn "
                 "(where --out goes without a file)");
}

/* A kernel cache clkit may not trust is not used: a relative
 * CLKIT_CACHE_DIR or a directory that is a link gets one warning, and the
 * run goes on; cache clear leaves the link's target alone. */
static void check_cache_refused(void) {
  const char *const run[] = {"run", "selfcheck", "--device",
                             "ref", "--quiet",   NULL};
  const char *const info[] = {"cache", "info", NULL};
  const char *const clear[] = {"cache", "clear", NULL};
  const char *const relative[] = {"CLKIT_CACHE_DIR=relative/cache", NULL};
  run_output r = run_clkit_env(relative, run);
  EXPECT_EXIT(r, 0, run);
  EXPECT_HAS(r.err,
             "warning: kernel cache directory relative/cache "
             "(CLKIT_CACHE_DIR) is not an absolute path; kernels are built "
             "without the cache",
             run);
  const char *second = strstr(r.err, "warning:");
  CHECK_MSG(second && !strstr(second + 1, "warning:"), "not one warning: %s",
            r.err);
  release(&r);
  expect_output(relative, info, 0, 0,
                "enabled    no (the directory is refused)");
  expect_output(relative, clear, 1, 1, "not an absolute path");

  char target[700], entry[800], link[700], setting[760];
  snprintf(target, sizeof target, "%s/cache-target", work_dir);
  snprintf(link, sizeof link, "%s/cache-link", work_dir);
  CHECK(mkdir(target, 0700) == 0 && symlink(target, link) == 0);
  test_write_text(target,
                  "0000000000000000000000000000000000000000000000000000000000"
                  "000000.ckbin",
                  "not to be deleted", entry, sizeof entry);
  snprintf(setting, sizeof setting, "CLKIT_CACHE_DIR=%s", link);
  const char *const linked[] = {setting, NULL};
  r = run_clkit_env(linked, run);
  EXPECT_EXIT(r, 0, run);
  EXPECT_HAS(r.err, "is a symbolic link", run);
  release(&r);
  expect_output(linked, clear, 1, 1, "is a symbolic link");
  CHECK_MSG(access(entry, F_OK) == 0, "cache clear deleted %s", entry);
  unlink(link);
}

/* A checkpoint's temporary that a killed run left behind (a run killed
 * with SIGKILL cannot remove it) goes when the next run writes that
 * checkpoint; another output's stays. */
static void check_stale_temporary_removed(void) {
  char directory[700], checkpoint[760], stale[800], other[800];
  snprintf(directory, sizeof directory, "%s/stale", work_dir);
  CHECK(mkdir(directory, 0700) == 0);
  snprintf(checkpoint, sizeof checkpoint, "%s/gas.ckg", directory);
  test_write_text(directory, ".gas.ckg.tmp.0badc0de",
                  "half a checkpoint, its writer killed", stale, sizeof stale);
  test_write_text(directory, ".gas2.ckg.tmp.0badc0de", "another output's",
                  other, sizeof other);
  const char *const args[] = {
      "run",          "gas",      "--particles",        "64", "--steps",  "10",
      "--checkpoint", checkpoint, "--checkpoint-every", "5",  "--device", "ref",
      "--quiet",      NULL};
  run_output r = run_clkit(args);
  EXPECT_EXIT(r, 0, args);
  release(&r);
  CHECK_MSG(access(stale, F_OK) != 0, "%s is still there", stale);
  CHECK_MSG(access(other, F_OK) == 0, "%s was removed", other);
  CHECK_MSG(access(checkpoint, F_OK) == 0, "no checkpoint %s", checkpoint);
  remove_tree(directory);
}

/* clkit peak (and devices --peak): usage errors exit 2; ref's peaks as
 * JSON, measured once and then read from the cache; what does not apply
 * to ref is shown as such, never as 0; cache info counts them. */
static void check_peak(void) {
  const char *const bad[][4] = {
      {"peak", "--bogus", NULL},       {"peak", "extra", NULL},
      {"peak", "--device", NULL},      {"peak", "--device", "", NULL},
      {"peak", "--peak", NULL},        {"peak", "--device", "no-such", NULL},
      {"devices", "--peak", "x", NULL}};
  const char *const named[] = {"--bogus", "extra",   "--device", "--device",
                               "--peak",  "no-such", "'x'"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k)
    expect_refusal(bad[k], 2, named[k]);

  const char *const json[] = {"peak", "--device", "ref", "--json", NULL};
  for (int again = 0; again < 2; ++again) {
    run_output r = run_clkit(json);
    EXPECT_EXIT(r, 0, json);
    CHECK_MSG(json_is_object(r.out), "not one JSON object:\n%s", r.out);
    EXPECT_HAS(r.out, "\"devices\":[{\"id\":\"ref\"", json);
    EXPECT_HAS(r.out, again ? "\"cached\":true" : "\"cached\":false", json);
    EXPECT_HAS(r.out, "\"read\":{\"value\":", json);
    EXPECT_HAS(r.out, "\"unit\":\"GFLOP/s\",\"state\":\"measured\"", json);
    EXPECT_HAS(r.out,
               "\"launch\":{\"value\":null,\"unit\":\"us\",\"state\":"
               "\"not_applicable\",\"reason\":\"ref runs no kernels",
               json);
    EXPECT_HAS(r.out, "\"default\":", json);
    CHECK_MSG(!has(r.out, "\"read\":{\"value\":null"), "%s", r.out);
    release(&r);
  }
  const char *const alias[] = {"devices", "--peak", "--device", "ref", NULL};
  run_output r = run_clkit(alias);
  EXPECT_EXIT(r, 0, alias);
  EXPECT_HAS(r.out, "GFLOP/s", alias);
  EXPECT_HAS(r.out, "n/a", alias);
  EXPECT_HAS(r.out, "launch: not applicable: ref runs no kernels", alias);
  EXPECT_HAS(r.out, "kept since", alias);
  CHECK_MSG(!has(r.out, " 0.00 "), "a value shown as 0:\n%s", r.out);
  release(&r);
  const char *const info[] = {"cache", "info", NULL};
  expect_output(NULL, info, 0, 0, "(1 of them devices' peaks)");
}

int main(int argc, char **argv) {
  if (argc < 2)
    CHECK_SKIP("usage: test_cli PATH-TO-CLKIT");
  clkit_path = argv[1];
  if (access(clkit_path, X_OK) != 0) {
    fprintf(stderr, "%s is not an executable: %s\n", clkit_path,
            strerror(errno));
    return 1;
  }
  if (!make_directories()) {
    fprintf(stderr, "cannot make a temporary directory: %s\n", strerror(errno));
    return 1;
  }
  /* What every run sees: a private cache, the default device choice and
   * the embedded kernel sources. */
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  unsetenv("CLKIT_DEVICE");
  unsetenv("CLKIT_CACHE");
  unsetenv("CLKIT_KERNEL_DIR");
  /* Off a terminal, a run writes its progress after seconds: what the
   * other checks find on stderr would then depend on the machine's speed.
   * The checks of progress set their own. */
  setenv("CLKIT_PROGRESS_AFTER", "600", 1);

  check_whole_number_parser();
  check_basic_commands();
  check_run_usage_errors();
  check_suggestions();
  check_ref_runs();
  check_results_whole();
  check_terminal_progress();
  check_pso_files();
  check_tsp();
  check_tsp_optima();
  check_tsp_memory();
  check_aco_run();
  check_nn_run();
  check_nn_label_column();
  check_nn_predict_stdout();
  check_gas_run();
  check_gas_thermo_and_momenta();
  check_restart_options();
  check_output_extensions();
  check_best_not_below_optimum();
  check_standard_streams();
  check_interrupt();
  check_kernels();
  check_cache();
  check_peak();
  check_cache_refused();
  check_stale_temporary_removed();
  check_no_platform();
  check_device_notes();
  check_gen_coefficients();
  check_help_texts();
  check_kernels_for_device();
  if (check_devices()) {
    check_opencl_runs();
    check_builds_shown();
    check_nn_stdout_devices();
  } else
    printf("no OpenCL device: OpenCL runs not tested\n");

  remove_tree(work_dir);
  return CHECK_DONE();
}
