/*
 * cli_status.c - the line on standard error that says what a command is
 * waiting for: kernel builds or a run's progress (its rate, the time left
 * and the best so far). On a terminal it is drawn in place once a wait
 * has lasted a second; elsewhere (a pipe, a log file) it is written as a
 * line of its own a few seconds into a build or a run, then every ten
 * seconds. Kernels build from a run's first build to its first progress
 * report: some runtimes (PoCL) compile each kernel again at its first
 * launch, after the program's build has returned. While a program builds,
 * what the device's runtime writes to standard error itself (a compiler's
 * "3 warnings generated.") is held: shown after clkit's own message when
 * the build failed, else only with --verbose.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* A wait shorter than this is not worth a line. */
#define SHOW_AFTER_S 1.0
/* How often the build line's clock moves. */
#define TICK_S 0.25
/* Off a terminal: the first line after this many seconds of a build or a
 * run (CLKIT_PROGRESS_AFTER sets it), and then a line every LINES_EVERY_S.
 * A log gets a line now and then, not one a report. */
#define LINES_AFTER_S 3.0
#define LINES_EVERY_S 10.0

int cli_stderr_fd = STDERR_FILENO;

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t ticker;
  int ticking, ending;
  cli_status_mode mode;
  int verbose;        /* what builds held back is shown when they succeed */
  double lines_after; /* LINES_AFTER_S, or CLKIT_PROGRESS_AFTER's */
  double line_at;     /* when the last line was written (lines); 0: none */
  FILE *out;          /* stderr, apart from file descriptor 2 */
  size_t shown;       /* characters on the line now; 0 when clear */
  char label[96];     /* "compare pso: ocl:0.0 (2 of 3)", or "" for run */
  size_t rows, row;   /* a comparison's runs, and the one running */
  /* The run in progress. */
  double started, first_at, first_fraction, first_steps;
  int reported;
  /* Kernels building: a program's build (in_build), or the first
   * launches after it, until the run's first report. */
  int building, in_build;
  char program[64], device[32];
  double build_started;
  /* What the runtime wrote during builds (held), and where it goes
   * meanwhile. */
  FILE *capture;
  char *held;
  size_t held_size;
} status = {.lock = PTHREAD_MUTEX_INITIALIZER,
            .wake = PTHREAD_COND_INITIALIZER};

static double now(void) {
  struct timespec clock;
  clock_gettime(CLOCK_MONOTONIC, &clock);
  return (double)clock.tv_sec + 1e-9 * (double)clock.tv_nsec;
}

static size_t columns(void) {
  struct winsize size;
  if (ioctl(cli_stderr_fd, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20)
    return size.ws_col - 1u;
  return 79;
}

/* Under the lock. */
static void clear_line(void) {
  if (!status.shown)
    return;
  fprintf(status.out, "\r%*s\r", (int)status.shown, "");
  fflush(status.out);
  status.shown = 0;
}

/* Under the lock: text, cut to the terminal's width. */
static void draw(const char *text) {
  size_t width = columns(), length = strlen(text);
  if (length > width)
    length = width;
  fprintf(status.out, "\r%.*s", (int)length, text);
  if (status.shown > length)
    fprintf(status.out, "%*s\r%.*s", (int)(status.shown - length), "",
            (int)length, text);
  fflush(status.out);
  status.shown = length;
}

/* "12s", "3m05s", "1h02m". */
static void duration(char *text, size_t size, double seconds) {
  long whole = seconds > 0 ? (long)(seconds + 0.5) : 0;
  if (whole < 60)
    snprintf(text, size, "%lds", whole);
  else if (whole < 3600)
    snprintf(text, size, "%ldm%02lds", whole / 60, whole % 60);
  else
    snprintf(text, size, "%ldh%02ldm", whole / 3600, whole % 3600 / 60);
}

/* Under the lock: text, drawn in place on a terminal; elsewhere a line
 * of its own once `elapsed` seconds have passed, and LINES_EVERY_S after
 * the last. */
static void show(const char *text, double elapsed) {
  if (status.mode == CLI_STATUS_DRAWN) {
    if (elapsed >= SHOW_AFTER_S)
      draw(text);
    return;
  }
  double at = now();
  if (status.mode != CLI_STATUS_LINES || elapsed < status.lines_after ||
      (status.line_at > 0 && at - status.line_at < LINES_EVERY_S))
    return;
  fprintf(status.out, "%s\n", text);
  fflush(status.out);
  status.line_at = at;
}

/* Under the lock. */
static void show_build(void) {
  char line[320], waited[32];
  double elapsed = now() - status.build_started;
  duration(waited, sizeof waited, elapsed);
  snprintf(line, sizeof line, "%s%sbuilding kernels: %s for %s, %s%s",
           status.label, status.label[0] ? " " : "", status.program,
           status.device, waited, status.in_build ? "" : " (first launches)");
  show(line, elapsed);
}

static void *tick(void *unused) {
  (void)unused;
  pthread_mutex_lock(&status.lock);
  while (!status.ending) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long nanoseconds = until.tv_nsec + (long)(TICK_S * 1e9);
    until.tv_sec += nanoseconds / 1000000000L;
    until.tv_nsec = nanoseconds % 1000000000L;
    pthread_cond_timedwait(&status.wake, &status.lock, &until);
    if (!status.ending && status.building)
      show_build();
  }
  pthread_mutex_unlock(&status.lock);
  return NULL;
}

/* CLKIT_PROGRESS_AFTER's seconds, else LINES_AFTER_S; a value that is no
 * such number is warned of. */
static double lines_after(void) {
  const char *text = getenv("CLKIT_PROGRESS_AFTER");
  double seconds = LINES_AFTER_S;
  if (!text || !*text)
    return seconds;
  if (ck_param_parse_number(text, &seconds) != CK_OK || seconds < 0) {
    fprintf(stderr,
            "clkit: warning: CLKIT_PROGRESS_AFTER: '%s' is not a number of "
            "seconds; progress lines begin after %g s\n",
            text, LINES_AFTER_S);
    seconds = LINES_AFTER_S;
  }
  return seconds;
}

void cli_status_begin(cli_status_mode mode, int verbose, size_t rows) {
  pthread_mutex_lock(&status.lock);
  status.rows = rows;
  status.row = 0;
  status.label[0] = '\0';
  status.started = now();
  status.reported = 0;
  status.verbose = verbose;
  status.line_at = 0;
  if (mode == CLI_STATUS_LINES)
    status.lines_after = lines_after();
  if (!status.out) {
    /* A descriptor of its own: file descriptor 2 is lent to the runtime
     * during builds. */
    int fd = dup(STDERR_FILENO);
    status.out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!status.out) {
      if (fd >= 0)
        close(fd);
      status.out = stderr;
    } else {
      cli_stderr_fd = fd;
    }
  }
  status.mode = mode;
  if (mode != CLI_STATUS_OFF && !status.ticking &&
      pthread_create(&status.ticker, NULL, tick, NULL) == 0)
    status.ticking = 1;
  pthread_mutex_unlock(&status.lock);
}

void cli_status_end(void) {
  cli_status_flush();
  pthread_mutex_lock(&status.lock);
  clear_line();
  status.ending = 1;
  pthread_cond_signal(&status.wake);
  int ticking = status.ticking;
  status.ticking = 0;
  pthread_mutex_unlock(&status.lock);
  if (ticking)
    pthread_join(status.ticker, NULL);
  pthread_mutex_lock(&status.lock);
  status.ending = 0;
  pthread_mutex_unlock(&status.lock);
}

void cli_status_clear(void) {
  pthread_mutex_lock(&status.lock);
  clear_line();
  pthread_mutex_unlock(&status.lock);
}

void cli_status_print(FILE *out, const char *line) {
  pthread_mutex_lock(&status.lock);
  clear_line();
  fprintf(out, "%s\n", line);
  fflush(out);
  pthread_mutex_unlock(&status.lock);
}

/* Under the lock: the time left, the best so far and the rate, in that
 * order, so that a narrow terminal cuts the least wanted. */
static void show_progress(const ck_progress *progress, double elapsed) {
  char line[320], bar[21], waited[32], rate[48] = "", left[40] = "",
                                       best[64] = "";
  double fraction = progress->fraction < 0   ? 0
                    : progress->fraction > 1 ? 1
                                             : progress->fraction;
  /* A shorter bar beside a label that names the run. */
  int width = status.label[0] ? 10 : 20;
  int filled = (int)(fraction * width + 0.5);
  memset(bar, '#', (size_t)filled);
  memset(bar + filled, ' ', (size_t)(width - filled));
  bar[width] = '\0';
  duration(waited, sizeof waited, elapsed);
  /* Rates from the first report of the run on, leaving its setup out. */
  double span = now() - status.first_at;
  if (status.reported > 1 && span > 0 && progress->step_name[0]) {
    double per_second = (progress->steps - status.first_steps) / span;
    snprintf(rate, sizeof rate, "  %.3g %s/s", per_second, progress->step_name);
  }
  double done = fraction - status.first_fraction;
  if (status.reported > 1 && done > 0 && fraction < 1) {
    char remaining[32];
    duration(remaining, sizeof remaining, span * (1 - fraction) / done);
    snprintf(left, sizeof left, "  %s left", remaining);
  }
  if (!isnan(progress->best))
    snprintf(best, sizeof best, "  %s %.6g", progress->best_name,
             progress->best);
  snprintf(line, sizeof line, "%s%s[%s] %3.0f%% %s%s%s%s", status.label,
           status.label[0] ? " " : "", bar, fraction * 100, waited, left, best,
           rate);
  show(line, elapsed);
}

void cli_status_more(size_t runs) {
  pthread_mutex_lock(&status.lock);
  if (status.rows)
    status.rows += runs;
  pthread_mutex_unlock(&status.lock);
}

void cli_status_progress(const ck_progress *progress) {
  pthread_mutex_lock(&status.lock);
  double at = now();
  if (!progress->step_name[0]) {
    /* A run begins (a comparison's next device). */
    status.started = at;
    status.reported = 0;
    status.building = 0;
    status.line_at = 0;
    if (status.rows)
      snprintf(status.label, sizeof status.label, "%s on %s (%zu of %zu)",
               progress->workload, progress->device, ++status.row, status.rows);
  } else {
    if (!status.reported++) {
      status.building = 0; /* its kernels run */
      status.first_at = at;
      status.first_fraction = progress->fraction;
      status.first_steps = progress->steps;
    }
    show_progress(progress, at - status.started);
  }
  pthread_mutex_unlock(&status.lock);
}

/* Appends what the capture holds to the held text, and empties it. */
static void take_capture(void) {
  if (!status.capture)
    return;
  long size = ftell(status.capture);
  if (size > 0 && fseek(status.capture, 0, SEEK_SET) == 0) {
    char *grown = realloc(status.held, status.held_size + (size_t)size + 1);
    if (grown) {
      status.held = grown;
      status.held_size += fread(status.held + status.held_size, 1, (size_t)size,
                                status.capture);
      status.held[status.held_size] = '\0';
    }
  }
  fclose(status.capture);
  status.capture = NULL;
}

void cli_status_build(void *user, const char *program, const char *device,
                      ck_build_state state, double seconds) {
  (void)user;
  (void)seconds;
  pthread_mutex_lock(&status.lock);
  fflush(stderr);
  if (state == CK_BUILD_BEGINS) {
    if (!status.building)
      status.build_started = now();
    status.building = status.in_build = 1;
    snprintf(status.program, sizeof status.program, "%s", program);
    snprintf(status.device, sizeof status.device, "%s", device);
    /* The runtime writes to file descriptor 2 itself: held meanwhile. */
    if (status.out != stderr && !status.capture &&
        (status.capture = tmpfile()) != NULL &&
        dup2(fileno(status.capture), STDERR_FILENO) < 0) {
      fclose(status.capture);
      status.capture = NULL;
    }
  } else {
    status.in_build = 0;
    status.building = state == CK_BUILD_DONE && !status.reported;
    if (status.capture) {
      dup2(cli_stderr_fd, STDERR_FILENO);
      take_capture();
    }
    if (!status.building)
      clear_line();
    /* After a build that succeeded, what the runtime said (warnings, a
     * count of them) is shown with --verbose alone; after one that failed,
     * once clkit has said why (cli_status_flush). */
    if (state == CK_BUILD_DONE && status.held_size) {
      if (status.verbose) {
        clear_line();
        fputs(status.held, stderr);
        fflush(stderr);
      }
      status.held_size = 0;
    }
  }
  pthread_mutex_unlock(&status.lock);
}

void cli_status_flush(void) {
  pthread_mutex_lock(&status.lock);
  if (status.capture) {
    dup2(cli_stderr_fd, STDERR_FILENO);
    take_capture();
  }
  if (status.held_size) {
    clear_line();
    fputs(status.held, stderr);
    fflush(stderr);
  }
  free(status.held);
  status.held = NULL;
  status.held_size = 0;
  pthread_mutex_unlock(&status.lock);
}
