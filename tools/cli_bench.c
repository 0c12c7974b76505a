/*
 * cli_bench.c - bench and compare: each workload on each device at a size
 * that fills the device (or one size for all), checked against ref, with
 * its rate, its cost model's bandwidth and FLOP/s, its share of the
 * device's peak and the speed-ups; then the report (cli_report.c,
 * cli_report_html.c).
 *
 * Agreement is checked at ref's size: ref runs CK_BENCH_REF_RUNG (a size
 * forced by --size, or compare's options as given), and every device runs
 * that configuration too. A device's measured runs are at its own size
 * unless a size is forced; ref's are its check run and its repeats.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_bench.h"

/* compare's options and a rung's, merged. */
enum { MERGED_PARAMS = 192, MAX_REPEAT = 1000 };

const char cli_bench_help[] =
    "      --size S             each workload's size: auto (each device its\n"
    "                           own, grown while a run takes under 0.2 s),\n"
    "                           small, medium, large, or a rung 0 to 6\n"
    "      --repeat N           measured runs a row: their median and range\n"
    "                           (default 1)\n"
    "      --csv, --markdown    print the table as CSV or Markdown\n"
    "      --report FILE.html   also write a self-contained HTML report\n";
const char cli_bench_workloads_help[] =
    "      --workloads LIST     these workloads, comma-separated (default:\n"
    "                           all)\n";

void cli_bench_options_init(cli_bench_options *options) {
  memset(options, 0, sizeof *options);
  options->rung = -1;
  options->size = "auto";
  options->repeat = 1;
  options->format = CLI_FORMAT_TEXT;
}

void cli_bench_long_options(struct option *table, size_t *count, int bench) {
  table[(*count)++] =
      (struct option){"size", required_argument, NULL, CLI_BENCH_OPT_SIZE};
  table[(*count)++] =
      (struct option){"repeat", required_argument, NULL, CLI_BENCH_OPT_REPEAT};
  table[(*count)++] =
      (struct option){"csv", no_argument, NULL, CLI_BENCH_OPT_CSV};
  table[(*count)++] =
      (struct option){"markdown", no_argument, NULL, CLI_BENCH_OPT_MARKDOWN};
  table[(*count)++] =
      (struct option){"report", required_argument, NULL, CLI_BENCH_OPT_REPORT};
  if (bench)
    table[(*count)++] = (struct option){"workloads", required_argument, NULL,
                                        CLI_BENCH_OPT_WORKLOADS};
}

/* The tiers' names and rungs. */
static const struct {
  const char *name;
  int rung;
} tiers[] = {{"auto", -1},
             {"small", CK_BENCH_SMALL},
             {"medium", CK_BENCH_MEDIUM},
             {"large", CK_BENCH_LARGE}};

int cli_bench_option(cli_bench_options *options, int code, const char *value,
                     char *message, size_t size) {
  unsigned long long number = 0;
  switch (code) {
  case CLI_BENCH_OPT_JSON:
  case CLI_BENCH_OPT_CSV:
  case CLI_BENCH_OPT_MARKDOWN:
    options->format = code == CLI_BENCH_OPT_JSON  ? CLI_FORMAT_JSON
                      : code == CLI_BENCH_OPT_CSV ? CLI_FORMAT_CSV
                                                  : CLI_FORMAT_MARKDOWN;
    ++options->formats;
    return 1;
  case CLI_BENCH_OPT_SIZE:
    for (size_t i = 0; i < sizeof tiers / sizeof *tiers; ++i)
      if (strcmp(value, tiers[i].name) == 0) {
        options->rung = tiers[i].rung;
        options->size = value;
        return 1;
      }
    if (strlen(value) == 1 && value[0] >= '0' &&
        value[0] < '0' + CK_BENCH_RUNGS) {
      options->rung = value[0] - '0';
      options->size = value;
      return 1;
    }
    snprintf(message, size,
             "--size '%.40s': give auto, small, medium, large or a rung 0 "
             "to %d",
             value, CK_BENCH_RUNGS - 1);
    return -1;
  case CLI_BENCH_OPT_REPEAT:
    if (cli_parse_unsigned(value, &number) != 0 || number < 1 ||
        number > MAX_REPEAT) {
      snprintf(message, size,
               "--repeat '%.40s': give a whole number of runs from 1 to %d",
               value, MAX_REPEAT);
      return -1;
    }
    options->repeat = (unsigned)number;
    return 1;
  case CLI_BENCH_OPT_REPORT:
    options->report = value;
    return 1;
  case CLI_BENCH_OPT_WORKLOADS:
    options->only = value;
    return 1;
  default:
    return 0;
  }
}

/* Whether path ends in suffix, in any case. */
static int ends_with(const char *path, const char *suffix) {
  size_t length = strlen(path), tail = strlen(suffix);
  return length > tail && strcasecmp(path + length - tail, suffix) == 0;
}

int cli_bench_options_check(const cli_bench_options *options, char *message,
                            size_t size) {
  if (options->formats > 1) {
    snprintf(message, size,
             "--json, --csv and --markdown each choose what standard output "
             "gets; give one");
    return -1;
  }
  if (!options->report)
    return 0;
  if (!ends_with(options->report, ".html") &&
      !ends_with(options->report, ".htm")) {
    snprintf(message, size,
             "--report '%.200s': the report is an HTML page; name a file "
             "ending in .html",
             options->report);
    return -1;
  }
  ck_status status = ck_file_check_writable(options->report);
  if (status != CK_OK) {
    const char *why = "";
    ck_error_get_last(&why);
    snprintf(message, size, "--report: %s", why);
    return -1;
  }
  return 0;
}

/* ---- peaks ---------------------------------------------------------------
 */

/* A measured peak's value, else NaN. */
static double measured(const ck_peak *peak, ck_peak_metric metric) {
  const ck_peak_value *value = &peak->values[metric];
  return value->state == CK_PEAK_MEASURED ? value->value : NAN;
}

/*
 * The device's measured peaks: memory bandwidth (GB/s, the best of read,
 * write and copy) and FP32 and FP64 GFLOP/s, each NaN where unknown;
 * returns 1 when any is known. They come from the cache of each device's
 * peaks (`clkit peak`); where measure is set, a device the cache lacks is
 * measured now and kept (a few seconds, once), else its peaks stay
 * unknown and the percent-of-peak columns say "-" (JSON null).
 * CLKIT_PEAKS_FOR_TESTS="GBS,FP32,FP64" gives every device those peaks,
 * for the tests of those columns.
 */
static int device_peaks(const ck_device *device, int measure, int said,
                        double *gbs, double *fp32_gflops, double *fp64_gflops) {
  *gbs = *fp32_gflops = *fp64_gflops = NAN;
  const char *given = getenv("CLKIT_PEAKS_FOR_TESTS");
  double values[3];
  if (given) {
    if (sscanf(given, "%lf,%lf,%lf", &values[0], &values[1], &values[2]) != 3)
      return 0;
    *gbs = values[0];
    *fp32_gflops = values[1];
    *fp64_gflops = values[2];
    return 1;
  }
  ck_peak peak;
  ck_status status = ck_peak_load(device, &peak);
  if (status == CK_ERROR_NOT_FOUND && measure) {
    if (said)
      fprintf(stderr,
              "clkit: measuring the peaks of %s once (clkit peak); the cache "
              "keeps them\n",
              device->id);
    status = ck_peak_measure(device, NULL, &peak);
  }
  if (status != CK_OK)
    return 0;
  *gbs = fmax(fmax(measured(&peak, CK_PEAK_READ), measured(&peak, CK_PEAK_WRITE)),
              measured(&peak, CK_PEAK_COPY));
  *fp32_gflops = measured(&peak, CK_PEAK_FP32);
  *fp64_gflops = measured(&peak, CK_PEAK_FP64);
  return !isnan(*gbs) || !isnan(*fp32_gflops) || !isnan(*fp64_gflops);
}

/* ---- the measurement ------------------------------------------------------
 */

typedef struct bench_state {
  const cli_bench_job *job;
  cli_bench_report *report;
  ck_param merged[MERGED_PARAMS];
} bench_state;

/* The rung's options (none for rung -1), then the job's, into
 * state->merged; their count. */
static size_t merge(bench_state *state, const ck_workload *workload, int rung) {
  const ck_param *own = NULL;
  size_t count = 0, used = 0;
  if (rung >= 0 &&
      ck_bench_size(workload, (unsigned)rung, &own, &count) == CK_OK)
    for (; used < count && used < MERGED_PARAMS; ++used)
      state->merged[used] = own[used];
  for (size_t i = 0; i < state->job->param_count && used < MERGED_PARAMS; ++i)
    state->merged[used++] = state->job->params[i];
  return used;
}

/* A result moved: to takes what from owned, which then owns nothing. */
static void move_result(ck_result *to, ck_result *from) {
  *to = *from;
  memset(from, 0, sizeof *from);
}

/* The rung that agreement is checked at: a forced size's, ref's, or -1
 * for compare's options as given. */
static int check_rung(const cli_bench_job *job) {
  if (job->given_size)
    return -1;
  return job->options->rung >= 0 ? job->options->rung : CK_BENCH_REF_RUNG;
}

/* One run on the device at index (ref as the oracle: with its oracle
 * values, when oracle) into *result: a device's failure is the result's
 * status. Returns 0, or the exit status that ends the command (a signal,
 * an error before the run). */
static int run_once(bench_state *state, const ck_workload *workload,
                    size_t index, int oracle, size_t count, ck_result *result) {
  const cli_bench_job *job = state->job;
  size_t produced = 0;
  ck_status status =
      oracle ? ck_compare_run(workload, job->set, NULL, 0, 0, state->merged,
                              count, &job->run, result, 1, &produced)
             : ck_compare_run(workload, job->set, &index, 1, 1, state->merged,
                              count, &job->run, result, 1, &produced);
  cli_status_clear();
  int stop = job->stopped();
  if (stop) {
    if (produced)
      ck_result_release(result);
    return stop;
  }
  if (status != CK_OK)
    return cli_report(status);
  return 0;
}

/* A row's failure from the run that failed. */
static void row_fails(const cli_bench_job *job, cli_bench_row *row,
                      ck_result *failed) {
  row->status = failed->status;
  row->skipped = cli_row_skipped(failed, job->every_device);
  snprintf(row->error, sizeof row->error, "%s", failed->error);
  ck_result_release(failed);
}

/* The device's own size (auto): from its class's rung (lower where it
 * would not fit), up while runs are short (ck_bench_next_rung); the check
 * run serves where the rungs meet, and a run refused for its memory ends
 * the growth at the last size that ran. Leaves the run kept in
 * row->runs[0]. Returns 0 or an exit status. */
static int grow(bench_state *state, cli_bench_row *row, size_t index,
                unsigned start) {
  const cli_bench_job *job = state->job;
  const ck_workload *workload = row->workload;
  unsigned rung = start, checked = (unsigned)check_rung(job);
  int fits = 0;
  while (rung > 0 &&
         ck_bench_fits(workload, rung, job->params, job->param_count,
                       row->device, &fits) == CK_OK &&
         !fits)
    --rung;
  ck_result kept, trial;
  memset(&kept, 0, sizeof kept);
  int have_kept = 0, at_check = 1; /* what the latest run that ran is */
  unsigned kept_rung = checked;
  for (;;) {
    const ck_result *current = &row->own_check;
    if (rung != checked) {
      memset(&trial, 0, sizeof trial);
      cli_status_more(1);
      int stop = run_once(state, workload, index, 0,
                          merge(state, workload, (int)rung), &trial);
      if (stop) {
        if (have_kept)
          ck_result_release(&kept);
        return stop;
      }
      if (trial.status == CK_ERROR_DEVICE_MEMORY) {
        ck_result_release(&trial);
        break;
      }
      if (trial.status != CK_OK) {
        if (have_kept)
          ck_result_release(&kept);
        row_fails(job, row, &trial);
        return 0;
      }
      if (have_kept)
        ck_result_release(&kept);
      move_result(&kept, &trial);
      have_kept = 1;
      kept_rung = rung;
      current = &kept;
    }
    at_check = current == &row->own_check;
    unsigned next = rung;
    if (ck_bench_next_rung(workload, rung, current->wall_s, job->params,
                           job->param_count, row->device, &next) != CK_OK ||
        next == rung)
      break;
    rung = next;
  }
  if (at_check) {
    if (have_kept)
      ck_result_release(&kept);
    move_result(&row->runs[0], &row->own_check);
    row->check = &row->runs[0];
    row->rung = (int)checked;
  } else {
    move_result(&row->runs[0], &kept);
    row->rung = (int)kept_rung;
  }
  return 0;
}

/* Order of runs by throughput. */
static const ck_result *sorting_runs;
static int by_throughput(const void *a, const void *b) {
  double x = sorting_runs[*(const size_t *)a].throughput,
         y = sorting_runs[*(const size_t *)b].throughput;
  return (x > y) - (x < y);
}

/* Measures one row: the check run (ref's: the oracle), the device's own
 * size, then the repeats. Returns 0 or an exit status. */
static int measure_row(bench_state *state, cli_bench_workload *info,
                       cli_bench_row *row, size_t index) {
  const cli_bench_job *job = state->job;
  const ck_workload *workload = row->workload;
  unsigned repeat = job->options->repeat;
  row->runs = calloc(repeat, sizeof *row->runs);
  row->order = calloc(repeat, sizeof *row->order);
  if (!row->runs || !row->order) {
    fprintf(stderr, "clkit: out of memory\n");
    return EXIT_FAILURE_RUN;
  }
  int checked = check_rung(job);
  unsigned start = 0;
  int grows = 0;
  ck_bench_first_rung(row->device, &start, &grows);
  int auto_size = !job->given_size && job->options->rung < 0;
  if (row->is_ref) {
    /* The oracle's run is the row's first. */
    move_result(&row->runs[0], &info->oracle_run);
    info->oracle = &row->runs[0];
    row->check = &row->runs[0];
    row->rung = checked;
  } else {
    int stop = run_once(state, workload, index, 0,
                        merge(state, workload, checked), &row->own_check);
    if (stop)
      return stop;
    if (row->own_check.status != CK_OK) {
      row_fails(job, row, &row->own_check);
      return 0;
    }
    ck_result_agree(info->oracle, &row->own_check);
    row->check = &row->own_check;
    if (auto_size && grows) {
      if ((stop = grow(state, row, index, start)) != 0 || row->status != CK_OK)
        return stop;
    } else {
      move_result(&row->runs[0], &row->own_check);
      row->check = &row->runs[0];
      row->rung = checked;
    }
  }
  row->run_count = 1;
  /* The repeats, at the size the first measured run had. */
  size_t count = merge(state, workload, row->rung);
  for (unsigned i = 1; i < repeat; ++i) {
    int stop =
        run_once(state, workload, index, row->is_ref, count, &row->runs[i]);
    if (stop)
      return stop;
    if (row->runs[i].status != CK_OK) {
      row_fails(job, row, &row->runs[i]);
      return 0;
    }
    row->run_count = i + 1;
  }
  for (size_t i = 0; i < row->run_count; ++i)
    row->order[i] = i;
  sorting_runs = row->runs;
  qsort(row->order, row->run_count, sizeof *row->order, by_throughput);
  row->median = &row->runs[row->order[(row->run_count - 1) / 2]];
  row->low = row->runs[row->order[0]].throughput;
  row->high = row->runs[row->order[row->run_count - 1]].throughput;
  return 0;
}

/* ---- rates, peaks and speed-ups ------------------------------------------
 */

/* The run's cost and its rates in GB/s and GFLOP/s (NaN where unknown). */
static void rates(const ck_result *run, ck_cost *cost, double *gbs,
                  double *gflops) {
  *gbs = *gflops = NAN;
  if (ck_result_get_cost(run, cost) != CK_OK) {
    cost->units = cost->bytes = cost->flops = NAN;
    cost->double_precision = 0;
    return;
  }
  if (cost->units > 0 && run->throughput > 0) {
    *gbs = cost->bytes / cost->units * run->throughput * 1e-9;
    *gflops = cost->flops / cost->units * run->throughput * 1e-9;
  }
}

/* How many times the base's rate a row's is: by the cost model's work
 * rate (GFLOP/s), which holds across sizes; where that is unknown, by
 * throughput, but only at the same size. NaN where neither is known. */
static double speedup(double gflops, double throughput, const char *size,
                      double base_gflops, double base_throughput,
                      const char *base_size) {
  if (gflops > 0 && base_gflops > 0 && isfinite(gflops) &&
      isfinite(base_gflops))
    return gflops / base_gflops;
  if (strcmp(size, base_size) == 0 && throughput > 0 && base_throughput > 0)
    return throughput / base_throughput;
  return NAN;
}

/* The percent of the device's peak that bounds the row: the higher of its
 * share of the bandwidth and of the FLOP/s of its precision. */
static void percent_of_peak(cli_bench_row *row, const cli_peaks *peaks) {
  double flops_peak = row->cost.double_precision ? peaks->fp64 : peaks->fp32;
  double memory = 100 * row->gbs / peaks->gbs,
         compute = 100 * row->gflops / flops_peak;
  row->percent = NAN;
  row->bound = NULL;
  if (isfinite(memory) && memory >= 0) {
    row->percent = memory;
    row->bound = "memory";
  }
  if (isfinite(compute) && compute >= 0 && !(row->percent >= compute)) {
    row->percent = compute;
    row->bound = row->cost.double_precision ? "fp64" : "fp32";
  }
}

/* The derived figures of workload w's rows, once all are measured. */
static void derive(cli_bench_report *report, size_t w) {
  cli_bench_workload *info = &report->workloads[w];
  cli_bench_row *rows = &report->rows[w * report->device_count];
  const cli_bench_row *first = &rows[report->first];
  for (size_t k = 0; k < report->device_count; ++k) {
    cli_bench_row *row = &rows[k];
    row->gbs = row->gflops = row->percent = NAN;
    row->vs_ref = row->vs_first = NAN;
    row->cost.units = row->cost.bytes = row->cost.flops = NAN;
    if (row->status != CK_OK || !row->median)
      continue;
    ck_result_describe_size(row->median, row->size, sizeof row->size);
    ck_result_describe_size(row->check, row->check_size,
                            sizeof row->check_size);
    rates(row->median, &row->cost, &row->gbs, &row->gflops);
    percent_of_peak(row, &report->devices[row->device_at].peaks);
    /* The median run speaks for the row: its agreement is the check's. */
    ck_result *median = &row->runs[row->order[(row->run_count - 1) / 2]];
    median->agreement = row->check->agreement;
    median->agrees = row->check->agrees;
    if (row->is_ref) {
      info->ref_throughput = row->median->throughput;
      info->ref_gflops = row->gflops;
      snprintf(info->ref_size, sizeof info->ref_size, "%s", row->size);
    }
  }
  for (size_t k = 0; k < report->device_count; ++k) {
    cli_bench_row *row = &rows[k];
    if (row->status != CK_OK || !row->median)
      continue;
    row->vs_ref =
        speedup(row->gflops, row->median->throughput, row->size,
                info->ref_gflops, info->ref_throughput, info->ref_size);
    if (first->status == CK_OK && first->median)
      row->vs_first =
          speedup(row->gflops, row->median->throughput, row->size,
                  first->gflops, first->median->throughput, first->size);
  }
}

/* ref's rate from the oracle, for speed-ups where no ref row is listed. */
static void reference_from_oracle(cli_bench_workload *info) {
  ck_cost cost;
  double gbs = NAN;
  info->ref_throughput = info->oracle->throughput;
  rates(info->oracle, &cost, &gbs, &info->ref_gflops);
  snprintf(info->ref_size, sizeof info->ref_size, "%s", info->check_size);
}

/* Whether a measured row fails the command: it failed (but for a skip),
 * or disagrees with ref. */
static int row_failed(const cli_bench_row *row) {
  if (row->status != CK_OK)
    return !row->skipped;
  return !row->is_ref && row->check && !row->check->agrees;
}

/* ---- the command ----------------------------------------------------------
 */

static void release_report(cli_bench_report *report, unsigned repeat) {
  for (size_t i = 0; report->rows && i < report->row_count; ++i) {
    cli_bench_row *row = &report->rows[i];
    for (unsigned r = 0; row->runs && r < repeat; ++r)
      ck_result_release(&row->runs[r]);
    ck_result_release(&row->own_check);
    free(row->runs);
    free(row->order);
  }
  for (size_t w = 0; report->workloads && w < report->workload_count; ++w)
    ck_result_release(&report->workloads[w].oracle_run);
  free(report->rows);
  free(report->workloads);
  free(report->devices);
}

/* Prints text to standard output; 0, or 1 when it could not. */
static int print_text(char *text) {
  if (!text) {
    fprintf(stderr, "clkit: out of memory for the report\n");
    return EXIT_FAILURE_RUN;
  }
  fputs(text, stdout);
  free(text);
  return EXIT_OK;
}

/* Writes the HTML report: 0, or 1 when it could not. */
static int write_html(const char *path, const cli_bench_report *report) {
  char *page = cli_report_html(report);
  if (!page) {
    fprintf(stderr, "clkit: out of memory for the report\n");
    return EXIT_FAILURE_RUN;
  }
  ck_status status = ck_file_write(path, page, strlen(page));
  free(page);
  return status == CK_OK ? EXIT_OK : cli_report(status);
}

/* The report's metadata and its arrays, from the job: 0, or 1 out of
 * memory (said). */
static int begin_report(const cli_bench_job *job, cli_bench_report *report) {
  const cli_bench_options *options = job->options;
  cli_report_meta(&report->meta, job->argc, job->argv);
  report->meta.command = job->command;
  report->meta.size = job->given_size ? "as given" : options->size;
  report->meta.repeat = options->repeat;
  report->meta.seed = job->run.seed;
  report->meta.given_size = job->given_size;
  report->every_device = job->every_device;
  report->device_count = job->count;
  report->workload_count = job->workload_count;
  report->row_count = job->count * job->workload_count;
  report->devices =
      calloc(job->count ? job->count : 1, sizeof *report->devices);
  report->workloads = calloc(job->workload_count ? job->workload_count : 1,
                             sizeof *report->workloads);
  report->rows =
      calloc(report->row_count ? report->row_count : 1, sizeof *report->rows);
  if (!report->devices || !report->workloads || !report->rows) {
    fprintf(stderr, "clkit: out of memory\n");
    return EXIT_FAILURE_RUN;
  }
  return EXIT_OK;
}

/* Each device with its peaks, each workload, and each row waiting for
 * its runs. Returns how many measured runs a workload makes. */
static size_t plan_report(const cli_bench_job *job, cli_bench_report *report) {
  const cli_bench_options *options = job->options;
  size_t planned = 0;
  for (size_t k = 0; k < job->count; ++k) {
    cli_bench_device *device = &report->devices[k];
    device->device = &job->set->devices[job->indices[k]];
    if (job->indices[k] == job->first)
      report->first = k;
    /* bench measures the peaks the cache lacks; compare reads them. */
    device_peaks(device->device, strcmp(job->command, "bench") == 0,
                 job->status != CLI_STATUS_OFF, &device->peaks.gbs,
                 &device->peaks.fp32, &device->peaks.fp64);
    planned += device->device->backend == CK_BACKEND_REF ? options->repeat - 1
                                                         : options->repeat;
  }
  for (size_t w = 0; w < job->workload_count; ++w) {
    cli_bench_workload *info = &report->workloads[w];
    info->workload = job->workloads[w];
    ck_workload_describe(info->workload, &info->name, NULL, NULL);
    ck_bench_describe(info->workload, &info->format);
    info->ref_throughput = info->ref_gflops = NAN;
    for (size_t k = 0; k < job->count; ++k) {
      cli_bench_row *row = &report->rows[w * job->count + k];
      row->workload = info->workload;
      row->device = report->devices[k].device;
      row->device_at = k;
      row->is_ref = row->device->backend == CK_BACKEND_REF;
      row->rung = -1;
    }
  }
  return planned;
}

/* Outputs that every run would write again, and inputs read once, are
 * refused before anything runs (ck_workload_check_devices): 0, or the
 * exit status said. */
static int check_outputs(bench_state *state, size_t planned) {
  const cli_bench_job *job = state->job;
  const cli_bench_report *report = state->report;
  size_t runs = planned + 1;
  for (size_t k = 0; k < job->count; ++k)
    runs += !job->given_size && job->options->rung < 0 &&
            report->devices[k].device->backend != CK_BACKEND_REF;
  for (size_t w = 0; w < job->workload_count; ++w) {
    const ck_workload *workload = report->workloads[w].workload;
    ck_status status = ck_workload_check_devices(
        workload, state->merged, merge(state, workload, check_rung(job)), runs);
    if (status != CK_OK)
      return cli_report(status);
  }
  return EXIT_OK;
}

/* Workload w: ref's run as the oracle, then each device's row (ref's
 * first), the rates, and in text its block of the table. */
static int measure_workload(bench_state *state, size_t w) {
  const cli_bench_job *job = state->job;
  cli_bench_report *report = state->report;
  cli_bench_workload *info = &report->workloads[w];
  int exit_code = run_once(state, info->workload, 0, 1,
                           merge(state, info->workload, check_rung(job)),
                           &info->oracle_run);
  if (exit_code != EXIT_OK)
    return exit_code;
  info->oracle = &info->oracle_run;
  ck_result_describe_size(info->oracle, info->check_size,
                          sizeof info->check_size);
  reference_from_oracle(info);
  /* ref's row first: its runs are the oracle's and its repeats. */
  for (int pass = 0; pass < 2 && exit_code == EXIT_OK; ++pass)
    for (size_t k = 0; k < job->count && exit_code == EXIT_OK; ++k) {
      cli_bench_row *row = &report->rows[w * job->count + k];
      if (row->is_ref == (pass == 0))
        exit_code = measure_row(state, info, row, job->indices[k]);
    }
  if (exit_code != EXIT_OK)
    return exit_code;
  derive(report, w);
  if (job->options->format == CLI_FORMAT_TEXT) {
    cli_report_text_workload(stdout, report, w);
    fflush(stdout);
  }
  return EXIT_OK;
}

/* The report in the format asked for, and the HTML page; then 1 where a
 * row failed or disagrees. */
static int finish_report(const cli_bench_options *options,
                         const cli_bench_report *report) {
  int exit_code = EXIT_OK;
  if (options->format == CLI_FORMAT_JSON)
    exit_code = print_text(cli_report_json(report));
  else if (options->format == CLI_FORMAT_CSV)
    exit_code = print_text(cli_report_csv(report));
  else if (options->format == CLI_FORMAT_MARKDOWN)
    exit_code = print_text(cli_report_markdown(report));
  if (exit_code == EXIT_OK && options->report)
    exit_code = write_html(options->report, report);
  for (size_t i = 0; exit_code == EXIT_OK && i < report->row_count; ++i)
    if (row_failed(&report->rows[i]))
      exit_code = EXIT_FAILURE_RUN;
  return exit_code;
}

int cli_bench_run(const cli_bench_job *job) {
  const cli_bench_options *options = job->options;
  cli_bench_report report;
  memset(&report, 0, sizeof report);
  bench_state state = {job, &report, {{0}}};
  int exit_code = begin_report(job, &report);
  if (exit_code != EXIT_OK) {
    release_report(&report, options->repeat);
    return exit_code;
  }
  size_t planned = plan_report(job, &report);
  exit_code = check_outputs(&state, planned);
  if (exit_code != EXIT_OK) {
    release_report(&report, options->repeat);
    return exit_code;
  }
  cli_status_begin(job->status, job->verbose,
                   job->workload_count * (planned + 1));
  if (options->format == CLI_FORMAT_TEXT)
    cli_report_text_head(stdout, &report);
  for (size_t w = 0; exit_code == EXIT_OK && w < job->workload_count; ++w)
    exit_code = measure_workload(&state, w);
  cli_status_end();
  if (exit_code == EXIT_OK)
    exit_code = finish_report(options, &report);
  release_report(&report, options->repeat);
  return exit_code;
}
