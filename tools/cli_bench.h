/*
 * cli_bench.h - bench's and compare's measurements of devices side by
 * side (cli_bench.c) and their reports: text, JSON, CSV, Markdown
 * (cli_report.c) and a self-contained HTML page (cli_report_html.c).
 */
#ifndef CK_CLI_BENCH_H
#define CK_CLI_BENCH_H

#include <getopt.h>
#include <stdint.h>

#include "cli.h"

/* What standard output gets. */
typedef enum cli_format {
  CLI_FORMAT_TEXT,
  CLI_FORMAT_JSON,
  CLI_FORMAT_CSV,
  CLI_FORMAT_MARKDOWN
} cli_format;

/* The options bench and compare share (docs/bench.md). */
typedef struct cli_bench_options {
  int rung;           /* --size's rung, or -1 for each device's own size */
  const char *size;   /* --size as given ("auto" when not) */
  unsigned repeat;    /* --repeat: measured runs a row, at least 1 */
  cli_format format;  /* --json, --csv or --markdown; text without */
  const char *report; /* --report FILE.html, or NULL */
  const char *only;   /* bench's --workloads W,W, or NULL for all */
  int formats;        /* how many of --json, --csv, --markdown were given */
} cli_bench_options;

/* Option codes of the shared options, after cli.h's own. */
enum {
  CLI_BENCH_OPT_JSON = 3000,
  CLI_BENCH_OPT_SIZE,
  CLI_BENCH_OPT_REPEAT,
  CLI_BENCH_OPT_CSV,
  CLI_BENCH_OPT_MARKDOWN,
  CLI_BENCH_OPT_REPORT,
  CLI_BENCH_OPT_WORKLOADS
};

/* The shared options' help lines (bench's adds --workloads). */
extern const char cli_bench_help[];
extern const char cli_bench_workloads_help[];

void cli_bench_options_init(cli_bench_options *options);

/* Appends the shared options but --json, which both commands read
 * themselves and hand on as CLI_BENCH_OPT_JSON (with bench, --workloads
 * too), to a getopt_long table at table[*count], moving *count on; the
 * caller ends the table. */
void cli_bench_long_options(struct option *table, size_t *count, int bench);

/* Reads one shared option (code from the table above): 1 when read, 0
 * when code is none of them, -1 with message set for a bad value. */
int cli_bench_option(cli_bench_options *options, int code, const char *value,
                     char *message, size_t size);

/* The checks made once every option is read, before any run: one output
 * format, a --report ending in .html or .htm that can be written there.
 * 0, or -1 with message set. */
int cli_bench_options_check(const cli_bench_options *options, char *message,
                            size_t size);

/* A device's measured peaks, NaN where unknown. */
typedef struct cli_peaks {
  double gbs;  /* memory bandwidth, GB/s */
  double fp32; /* GFLOP/s */
  double fp64;
} cli_peaks;

/* One device's measurement of one workload. */
typedef struct cli_bench_row {
  const ck_workload *workload;
  const ck_device *device;
  size_t device_at; /* the device's place in the report's devices */
  int is_ref;
  /* CK_OK, or why the device could not run it (skipped: a device that
   * does not offer what the run asks, with every device selected). */
  ck_status status;
  int skipped;
  char error[2048];
  int rung;      /* the measured runs' rung; -1 for options as given */
  char size[96]; /* their size in words */
  /* The measured runs, and their order by throughput. */
  ck_result *runs;
  size_t run_count;
  size_t *order;
  /* The run of median throughput (for an even count, the lower middle). */
  const ck_result *median;
  double low, high; /* the least and the greatest throughput */
  /* The run that agreement was checked on (ref's size; a measured run
   * where the sizes are the same), and its size. */
  const ck_result *check;
  ck_result own_check; /* its storage when it is not a measured run */
  char check_size[96];
  /* The median run's cost and rates; NaN where unknown. */
  ck_cost cost;
  double gbs, gflops;
  /* Percent of the bounding peak (the higher of bandwidth and FLOP/s) and
   * which: "memory", "fp32" or "fp64"; NaN and NULL where unknown. */
  double percent;
  const char *bound;
  double vs_ref, vs_first; /* speed-ups; NaN where unknown */
} cli_bench_row;

/* A device of the report: its peaks. */
typedef struct cli_bench_device {
  const ck_device *device;
  cli_peaks peaks;
} cli_bench_device;

/* A workload of the report: ref's run that the rows are checked against. */
typedef struct cli_bench_workload {
  const ck_workload *workload;
  const char *name, *format;
  /* ref's run as the oracle, where a ref row does not hold it; and the
   * run itself, wherever it is (NULL until it ran). */
  ck_result oracle_run;
  const ck_result *oracle;
  char check_size[96];
  /* ref's rate (its row's median, else the oracle's) and its size, the
   * speed-ups' base; NaN where unknown. */
  double ref_throughput, ref_gflops;
  char ref_size[96];
} cli_bench_workload;

/* Where and when the report was made. */
typedef struct cli_bench_meta {
  const char *command; /* "bench" or "compare" */
  char command_line[2048];
  char date[32];
  char hostname[256], os[256], kernel[256], cpu[256];
  long cpus;
  const char *version, *commit;
  const char *size;
  unsigned repeat;
  uint64_t seed;
  int given_size; /* compare's size options, as given, on every device */
} cli_bench_meta;

typedef struct cli_bench_report {
  cli_bench_meta meta;
  cli_bench_device *devices;
  size_t device_count;
  cli_bench_workload *workloads;
  size_t workload_count;
  cli_bench_row *rows; /* by workload, then device */
  size_t row_count;
  size_t first; /* the first device listed, of devices */
  int every_device;
} cli_bench_report;

/* What bench and compare hand the measurement. */
typedef struct cli_bench_job {
  const char *command; /* "bench" or "compare" */
  int argc;            /* the command's arguments, argv[0] its name */
  char **argv;
  const ck_device_set *set;
  const size_t *indices; /* the selected devices */
  size_t count;
  size_t first; /* the first device listed (an index of set): x first's */
  const ck_workload *const *workloads;
  size_t workload_count;
  const ck_param *params; /* compare's workload options */
  size_t param_count;
  int given_size; /* compare: params set the size, run as given */
  int every_device;
  const cli_bench_options *options;
  ck_run_options run; /* seed, progress, log and build callbacks */
  cli_status_mode status; /* how the status line is shown */
  int verbose;            /* --verbose: the runtime's build output too */
  /* 0 while no signal asked to stop; else reports it and returns the
   * exit status. */
  int (*stopped)(void);
} cli_bench_job;

/* Measures every workload on every device, prints the report and writes
 * --report. Returns the exit status. */
int cli_bench_run(const cli_bench_job *job);

/* ---- reports (cli_report.c; the HTML page, cli_report_html.c) ---- */

/* The host, the date and clkit's version and commit into meta. */
void cli_report_meta(cli_bench_meta *meta, int argc, char **argv);

/* A workload's block of the text table (bench's rows, or compare's
 * table), printed as soon as its rows are measured. */
void cli_report_text_head(FILE *out, const cli_bench_report *report);
void cli_report_text_workload(FILE *out, const cli_bench_report *report,
                              size_t workload);

/* The whole report in a format into a malloc'd text (NULL when out of
 * memory). */
char *cli_report_json(const cli_bench_report *report);
char *cli_report_csv(const cli_bench_report *report);
char *cli_report_markdown(const cli_bench_report *report);
char *cli_report_html(const cli_bench_report *report);

#endif
