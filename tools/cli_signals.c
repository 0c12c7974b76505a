/*
 * cli_signals.c - the command's signals: SIGINT, SIGTERM and SIGHUP stop
 * a run at its next check, or end a rank of an MPI job at once; every
 * ending removes the temporaries of the outputs being written first.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* The signal that asked the runs to stop, or 0. */
static volatile sig_atomic_t interruption;

/* Seconds a SIGTERM or SIGHUP waits for the run's next check. */
enum { TERMINATION_GRACE_S = 10 };

/* Ends the process by the signal's default action, once the temporaries
 * of the outputs being written are gone (the outputs keep their old
 * content): async-signal-safe. Raised inside its own handler, the signal
 * is blocked until that handler returns, and then ends the process. */
static void end_now(int signal_number) {
  ck_file_remove_temporaries();
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

/* A SIGTERM's or SIGHUP's grace has run out: it ends the process as that
 * signal. */
static void grace_over(int signal_number) {
  (void)signal_number;
  end_now(interruption);
}

/* Notes the signal and says so, with write() and alarm() alone
 * (async-signal-safe); a second signal ends the process at once. A
 * SIGTERM comes from a supervisor that expects an end, and a check may be
 * far off (a long build, a hung kernel): SIGALRM ends the process if the
 * run has not stopped by then. */
static void note_interruption(int signal_number) {
  static const char notice[] =
      "\nclkit: stopping at the run's next check (once more to end it now)\n";
  if (interruption) {
    end_now(signal_number);
    return;
  }
  interruption = signal_number;
  if (signal_number == SIGTERM || signal_number == SIGHUP) {
    signal(SIGALRM, grace_over);
    alarm(TERMINATION_GRACE_S);
  }
  ssize_t written = write(cli_stderr_fd, notice, sizeof notice - 1);
  (void)written;
}

/* Under MPI, "clkit: rank R of N: ended by " (set once MPI has started),
 * which a stop signal's message begins with; empty outside MPI. */
static char rank_ending[64];
/* Under MPI, whether this rank is one that writes no outputs (not rank 0). */
static int rank_writes_nothing;

/* Appends text to line (of size bytes, used so far) as far as it fits:
 * async-signal-safe, as string functions need not be. */
static void append(char *line, size_t size, size_t *used, const char *text) {
  while (*text && *used < size)
    line[(*used)++] = *text++;
}

/* A rank of an MPI job ends at once on SIGINT, SIGTERM or SIGHUP: the
 * others may wait for it in the exchange, which never returns, and the
 * launcher ends them all within seconds (Open MPI's mpirun: SIGTERM, then
 * SIGKILL a second later). The temporaries go first, then one line says
 * so, with write() alone (async-signal-safe); the signal then ends the
 * process. Open MPI 4.1's mpirun sends its SIGKILL as soon as one rank it
 * sent SIGTERM has ended: the ranks that write nothing wait 0.2 s, so
 * that rank 0 has removed its temporaries by then. */
static void end_rank(int signal_number) {
  char line[160];
  size_t used = 0;
  ck_file_remove_temporaries();
  if (rank_writes_nothing) {
    struct timespec pause = {0, 200000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
      ;
  }
  append(line, sizeof line, &used, rank_ending);
  append(line, sizeof line, &used,
         signal_number == SIGINT    ? "SIGINT"
         : signal_number == SIGTERM ? "SIGTERM"
                                    : "SIGHUP");
  append(line, sizeof line, &used, "; outputs left as they were\n");
  ssize_t written = write(cli_stderr_fd, line, used);
  (void)written;
  end_now(signal_number);
}

/* Gives a signal to handler, except a signal ignored on entry (a shell's
 * background job, nohup), which stays so. */
static void handle_signal(int signal_number, void (*handler)(int)) {
  struct sigaction action, before;
  if (sigaction(signal_number, NULL, &before) != 0 ||
      before.sa_handler == SIG_IGN)
    return;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, NULL);
}

/* Gives SIGINT, SIGTERM and SIGHUP (a terminal closed) to handler. The
 * two signals that would otherwise kill the process while it writes, and
 * leave its temporaries behind, are taken too: SIGPIPE (a reader gone,
 * as with `| head`) ends the process as it would by default, once the
 * temporaries are gone; SIGXFSZ (a file past `ulimit -f`) is ignored, so
 * that the write fails (EFBIG) and the command ends with that error. */
static void handle_stop_signals(void (*handler)(int)) {
  static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i)
    handle_signal(signals[i], handler);
  handle_signal(SIGPIPE, end_now);
  signal(SIGXFSZ, SIG_IGN);
}

/* Ctrl-C and SIGTERM stop a workload run at its next progress check, as
 * a caller's progress callback cancels one: the library then removes its
 * temporary files and replaces no output, where a process killed outright
 * would leave its temporaries (a trajectory's can be large) behind. Only
 * the commands that run workloads ask for this, and before their options
 * are checked: checking that an output can be written makes and removes
 * a temporary beside it, which a signal then would leave behind. A signal
 * before the run stops it at its first check. */
void cli_catch_interruptions(void) {
  handle_stop_signals(note_interruption);
}

/* For the commands that write outputs without running a workload (gen):
 * Ctrl-C and SIGTERM end the process at once, as they would by default,
 * but only after the temporaries of the outputs being written are gone.
 * Installed before the outputs are checked, as in
 * cli_catch_interruptions. */
void cli_end_on_signals(void) {
  handle_stop_signals(end_now);
}

/* Libraries that the device enumeration loads may take the signals over
 * (LLVM's handlers, in PoCL, do): they are taken back for the run; under
 * MPI, to end the rank at once. */
void cli_catch_interruptions_again(void) {
  handle_stop_signals(*rank_ending ? end_rank : note_interruption);
}

/* The stop signals go to end_rank from now on, which names this rank. */
void cli_end_rank_on_signals(int rank, int ranks) {
  snprintf(rank_ending, sizeof rank_ending, "%s: rank %d of %d: ended by ",
           cli_program_name, rank, ranks);
  rank_writes_nothing = rank != 0;
  cli_catch_interruptions_again();
}

int cli_interrupted(void) {
  return interruption;
}

/* 128 + the signal's number: the status a shell gives a command that a
 * signal ended. */
int cli_report_interruption(void) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "%s: interrupted%s%s\n", cli_program_name,
          message && *message ? ": " : "", message ? message : "");
  return 128 + (int)interruption;
}

int cli_stop_status(void) {
  return interruption ? cli_report_interruption() : 0;
}

/* The status line (cli_status.c) and the stop check, at each report. */
int cli_report_progress(void *user, const ck_progress *progress) {
  (void)user;
  cli_status_progress(progress);
  return interruption != 0;
}
