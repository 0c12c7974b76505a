/*
 * cli_spread.c - clkit run --spread: one run shared by the selected
 * devices of this process and, under mpirun, by every process's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_mpi.h"
#include "cli_run.h"

/* The devices of a spread run in this process: those the selector picks,
 * or with none, the fastest device and every other of its backend, kind
 * and platform. Under mpirun, a process that shares its node takes one of
 * them, by its rank on the node. */
static int spread_devices(const ck_device_set *set,
                          const cli_run_config *config, const cli_mpi *mpi,
                          ck_device *devices, size_t *count) {
  size_t indices[CLI_MAX_DEVICES], selected = 0;
  int exit_code = cli_select_devices(set, config->selector, indices, &selected);
  if (exit_code != EXIT_OK)
    return exit_code;
  const char *variable = getenv("CLKIT_DEVICE");
  if (!config->selector && (!variable || !*variable) && selected == 1) {
    const ck_device *fastest = &set->devices[indices[0]];
    selected = 0;
    for (size_t i = 0; i < set->count && selected < CLI_MAX_DEVICES; ++i) {
      const ck_device *d = &set->devices[i];
      if (d->backend == fastest->backend && d->kind == fastest->kind &&
          strcmp(d->platform, fastest->platform) == 0)
        indices[selected++] = i;
    }
  }
  if (selected > CK_SPREAD_MAX_LOCAL)
    selected = CK_SPREAD_MAX_LOCAL;
  if (mpi->local_ranks > 1) {
    indices[0] = indices[(size_t)mpi->local_rank % selected];
    selected = 1;
  }
  for (size_t i = 0; i < selected; ++i)
    devices[i] = set->devices[indices[i]];
  *count = selected;
  /* A device given twice is the user's --device, refused as its other
   * usage errors are; every rank refuses alike, and rank 0 says so. */
  size_t repeated;
  ck_status status = ck_workload_check_spread_devices(config->workload, devices,
                                                      selected, &repeated);
  if (status != CK_OK && repeated < selected) {
    const char *name = "";
    ck_workload_describe(config->workload, &name, NULL, NULL);
    char message[200];
    snprintf(message, sizeof message,
             "--device: %s is given twice; a %s spread takes each device once",
             devices[repeated].id, name);
    return mpi->rank == 0 ? cli_usage_error("run", message) : EXIT_USAGE;
  }
  return status == CK_OK ? EXIT_OK : cli_report(status);
}

/* --shares W,W,...: positive weights, one a member, each read as a
 * workload's numbers are (ck_param_parse_number). Returns 0, or writes
 * what is wrong to message and returns -1. */
static int parse_shares(const char *text, double *shares, size_t capacity,
                        size_t *count, char *message, size_t size) {
  *count = 0;
  for (const char *p = text;; ++p) {
    size_t length = strcspn(p, ",");
    char piece[64];
    double value = 0;
    if (length >= sizeof piece || *count == capacity) {
      snprintf(message, size,
               "--shares: more than %zu shares, or a share "
               "of more than %zu characters",
               capacity, sizeof piece - 1);
      return -1;
    }
    memcpy(piece, p, length);
    piece[length] = '\0';
    if (ck_param_parse_number(piece, &value) != CK_OK || !(value > 0)) {
      snprintf(message, size,
               "--shares: '%s' is not a positive decimal "
               "number; give one a member, separated by commas (e.g. 3,1)",
               piece);
      return -1;
    }
    shares[(*count)++] = value;
    p += length;
    if (!*p)
      return 0;
  }
}

/* --shares given for other than one a device of the spread, over every
 * process: a usage error every rank refuses alike (devices is the count
 * over all of them); rank 0 says so. Returns -1 to go on. */
static int refuse_share_count(size_t shares, unsigned long devices,
                              const cli_mpi *mpi) {
  if (shares == devices)
    return -1;
  char message[160];
  snprintf(message, sizeof message,
           "--shares: %zu share%s for %lu devices%s; give one a device", shares,
           shares == 1 ? "" : "s", devices,
           mpi->ranks > 1 ? " over every process" : "");
  return mpi->rank == 0 ? cli_usage_error("run", message) : EXIT_USAGE;
}

/* Writes all of text to descriptor fd, in one write() where it can. */
static void write_whole(int fd, const char *text, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, text, length);
    if (written <= 0)
      return;
    text += written;
    length -= (size_t)written;
  }
}

/* A run's failure: "clkit: MESSAGE", under MPI "clkit: rank R of N:
 * MESSAGE", in one write(), so that the lines of ranks that fail together
 * cannot interleave; then what the device's runtime said meanwhile. A
 * library field is named as the option that sets it (cli_error_message). */
static int report_rank_failure(ck_status status, const cli_mpi *mpi) {
  const char *option = "";
  const char *message = cli_error_message(&option);
  char rank[48] = "";
  if (mpi->ranks > 1)
    snprintf(rank, sizeof rank, "rank %d of %d: ", mpi->rank, mpi->ranks);
  const char *format = "%s: %s%s%s\n";
  int length =
      snprintf(NULL, 0, format, cli_program_name, rank, option, message);
  char *line = length > 0 ? malloc((size_t)length + 1) : NULL;
  fflush(stderr);
  if (line) {
    snprintf(line, (size_t)length + 1, format, cli_program_name, rank, option,
             message);
    write_whole(fileno(stderr), line, (size_t)length);
  } else {
    fprintf(stderr, format, cli_program_name, rank, option, message);
  }
  free(line);
  cli_status_flush();
  return cli_exit_status(status);
}

/* What every rank refuses alike before any device work: --shares that
 * are not numbers, and the options, read once into *job with what
 * contradicts a spread over these processes (usage errors all). Rank 0
 * alone says so. options->spread is the spread, whose devices are filled
 * in later. Returns -1 to go on, else an exit code. */
static int refuse_spread(const cli_run_config *config, const cli_mpi *mpi,
                         const ck_run_options *options, double *shares,
                         size_t capacity, size_t *count, ck_job **job) {
  int speaks = mpi->rank == 0;
  char message[256];
  *count = 0;
  if (config->shares && parse_shares(config->shares, shares, capacity, count,
                                     message, sizeof message) != 0)
    return speaks ? cli_usage_error("run", message) : EXIT_USAGE;
  ck_status status = ck_job_prepare(config->workload, config->params,
                                    config->param_count, options, job);
  if (status == CK_OK)
    status =
        ck_workload_check_processes(config->workload, config->params,
                                    config->param_count, (size_t)mpi->ranks);
  if (status != CK_OK)
    return speaks ? cli_usage_report(status) : EXIT_USAGE;
  return -1;
}

/* The one run of job over the spread's devices, which every rank shares:
 * rank 0, the leader, alone shows the status line and prints the result. */
static int run_spread(const cli_run_config *config, FILE *text,
                      const cli_mpi *mpi, ck_job *job,
                      const ck_spread *spread) {
  int leader = mpi->rank == 0;
  cli_catch_interruptions_again();
  cli_status_begin(leader ? cli_status_mode_of(config->json, config->quiet)
                          : CLI_STATUS_OFF,
                   config->verbose, 0);
  ck_result result;
  ck_status status = ck_job_run(job, &spread->devices[0], &result);
  cli_status_clear();
  int exit_code = EXIT_OK;
  if (status == CK_ERROR_CANCELLED && cli_interrupted())
    exit_code = cli_report_interruption();
  else if (status != CK_OK)
    exit_code = report_rank_failure(status, mpi);
  else if (leader)
    exit_code = cli_run_print_result(config->json, text, &result);
  if (status == CK_OK)
    ck_result_release(&result);
  cli_status_end();
  return exit_code;
}

int cli_run_spread(const cli_run_config *config, FILE *text) {
  cli_mpi mpi;
  int started = cli_mpi_begin(NULL, NULL, &mpi);
  if (started < 0) {
    fprintf(stderr, "%s: %s\n", cli_program_name,
            started == -1 ? "MPI failed to start"
                          : "started by an MPI launcher, but this clkit was "
                            "built without MPI: each process would run alone");
    return EXIT_FAILURE_RUN;
  }
  if (started)
    cli_end_rank_on_signals(mpi.rank, mpi.ranks);
  static double shares[1024];
  size_t share_count = 0;
  /* The spread the job runs over: its devices are found after the options
   * are read, so that a refused option stops every rank first. */
  ck_spread spread = {.communicator = mpi.communicator};
  cli_line_sink sink = {config->json ? stderr : text, config->quiet,
                        mpi.rank != 0};
  ck_run_options options = cli_run_options(config, &sink);
  options.spread = &spread;
  ck_job *job = NULL;
  int exit_code =
      refuse_spread(config, &mpi, &options, shares, 1024, &share_count, &job);
  if (exit_code >= 0) {
    /* Every rank refused alike: none waits for another. */
    ck_job_free(job);
    cli_mpi_end(0);
    return exit_code;
  }
  exit_code = EXIT_OK;
  ck_device devices[CLI_MAX_DEVICES];
  size_t count = 0;
  ck_device_set set = {0};
  ck_status status = CK_OK;
  if ((status = ck_device_enumerate(&set)) != CK_OK)
    exit_code = cli_report(status);
  if (exit_code == EXIT_OK)
    exit_code = spread_devices(&set, config, &mpi, devices, &count);
  if (exit_code == EXIT_OK && share_count) {
    int refused =
        refuse_share_count(share_count, cli_mpi_sum(&mpi, count), &mpi);
    exit_code = refused < 0 ? EXIT_OK : refused;
  }
  if (exit_code == EXIT_OK) {
    spread.devices = devices;
    spread.device_count = count;
    spread.shares = share_count ? shares : NULL;
    spread.share_count = share_count;
    exit_code = run_spread(config, text, &mpi, job, &spread);
  }
  ck_job_free(job);
  ck_device_set_free(&set);
  cli_mpi_end(exit_code != EXIT_OK);
  return exit_code;
}
