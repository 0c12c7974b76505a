/*
 * cli_peak.c - the 'clkit peak' command (also 'clkit devices --peak'):
 * each device's measured peaks (clkit/peak.h), from the cache where it
 * keeps them, else measured and kept.
 *
 * Exit status: 0 success, 1 when a device or one of its measures failed
 * (the rest are still shown), 2 usage error.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum {
  PEAK_HELP = 'h',
  PEAK_DEVICE = 'd',
  PEAK_JSON = 1000,
  PEAK_REFRESH,
  PEAK_PEAK,
  MAX_PEAK_DEVICES = 64
};

static const char peak_help[] =
    "usage: clkit peak [--device SEL] [--json] [--refresh]\n"
    "\n"
    "Each device's peaks, measured as clpeak measures them: from the cache\n"
    "where it keeps them for the device, its driver and this clkit, else\n"
    "measured (a few seconds a device) and kept. The default device is\n"
    "the fastest by these peaks once every device has them.\n"
    "'clkit devices --peak [options]' does the same.\n"
    "\n"
    "  -d, --device SEL  the devices (default: all)\n"
    "  --json            one JSON object: metadata and a row a device\n"
    "  --refresh         measure again, even where the cache keeps peaks\n"
    "  -h, --help        this text\n"
    "\n"
    "Measures (the table's columns):\n"
    "  read/write/copy   global memory bandwidth, GB/s (a copy counts bytes\n"
    "                    read and written); the best of 1 to 16 lanes\n"
    "  fp32, fp64        multiply-adds on independent accumulators, GFLOP/s\n"
    "  launch            an empty kernel's launch to its end, microseconds\n"
    "  h2d, d2h          blocking transfers from and to pageable host\n"
    "                    memory, GB/s\n"
    "  h2d_pin, d2h_pin  the same from and to page-locked host memory\n"
    "  fp32_ch, fp64_ch  the same multiply-adds as one dependent chain a\n"
    "                    work-item, as clpeak runs them: on CPUs, their wait\n"
    "A measure that fails or does not apply is shown as such, with the\n"
    "reason: never as 0.\n";

/* The table's column of each metric, in ck_peak_metric order. */
static const char *const columns[CK_PEAK_METRIC_COUNT] = {
    "read", "write", "copy",    "fp32",    "fp64",    "launch",
    "h2d",  "d2h",   "h2d_pin", "d2h_pin", "fp32_ch", "fp64_ch"};

static int peak_usage(const char *command, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "clkit COMMAND: <message>" and a hint; returns the usage status. */
static int peak_usage(const char *command, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "clkit %s: ", command);
  vfprintf(stderr, format, args);
  fprintf(stderr, "\nTry 'clkit %s --help'.\n", command);
  va_end(args);
  return EXIT_USAGE;
}

/* One device's row: its peaks, or why none could be had. */
typedef struct peak_row {
  const ck_device *device;
  ck_peak peak;
  ck_status status; /* CK_OK, or the failure of the whole device */
  char message[512];
} peak_row;

static const char *state_name(ck_peak_state state) {
  switch (state) {
  case CK_PEAK_MEASURED:
    return "measured";
  case CK_PEAK_NOT_APPLICABLE:
    return "not_applicable";
  case CK_PEAK_NOT_ASKED:
    return "not_asked";
  default:
    return "failed";
  }
}

/* A date of the epoch's seconds, "2026-05-01T12:00:00Z". */
static void iso_time(char *text, size_t capacity, long long seconds) {
  time_t when = (time_t)seconds;
  struct tm parts;
  if (!gmtime_r(&when, &parts) ||
      strftime(text, capacity, "%Y-%m-%dT%H:%M:%SZ", &parts) == 0)
    snprintf(text, capacity, "unknown");
}

/* A number for JSON: null where it is not one. */
static void json_number(FILE *out, double value) {
  if (isfinite(value))
    fprintf(out, "%.6g", value);
  else
    fputs("null", out);
}

static void json_metric(FILE *out, const ck_peak_value *value,
                        ck_peak_metric metric) {
  const char *name = "", *unit = "";
  ck_peak_describe(metric, &name, &unit);
  int measured = value->state == CK_PEAK_MEASURED;
  fprintf(out, "\"%s\":{\"value\":", name);
  json_number(out, measured ? value->value : NAN);
  fprintf(out, ",\"unit\":\"%s\",\"state\":\"%s\",\"reason\":", unit,
          state_name(value->state));
  if (value->reason[0])
    cli_json_string(out, value->reason);
  else
    fputs("null", out);
  fputs(",\"width\":", out);
  if (measured && value->width)
    fprintf(out, "%u", value->width);
  else
    fputs("null", out);
  fputs(",\"widths\":", out);
  if (measured && value->width) {
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w) {
      fprintf(out, "%s\"%u\":", w ? "," : "{", 1u << w);
      json_number(out, value->widths[w]);
    }
    fputc('}', out);
  } else
    fputs("null", out);
  fputs(",\"size\":", out);
  if (measured)
    fprintf(out, "%llu,\"runs\":%u,\"seconds\":", value->size, value->runs);
  else
    fputs("null,\"runs\":null,\"seconds\":", out);
  json_number(out, measured ? value->seconds : NAN);
  fputc('}', out);
}

static void print_json(FILE *out, const peak_row *rows, size_t count,
                       const ck_device *chosen, int by_peaks) {
  const char *version = "";
  char host[256] = "";
  ck_version_get(&version);
  if (gethostname(host, sizeof host) != 0)
    host[0] = '\0';
  host[sizeof host - 1] = '\0';
  fputs("{\"clkit\":", out);
  cli_json_string(out, version);
  fputs(",\"host\":", out);
  cli_json_string(out, host);
  fputs(",\"devices\":[", out);
  for (size_t r = 0; r < count; ++r) {
    const peak_row *row = &rows[r];
    const ck_peak *peak = &row->peak;
    fprintf(out, "%s{\"id\":", r ? "," : "");
    cli_json_string(out, row->device->id);
    fputs(",\"name\":", out);
    cli_json_string(out, row->device->name);
    fputs(",\"platform\":", out);
    cli_json_string(out, row->device->platform);
    fputs(",\"driver_version\":", out);
    cli_json_string(out, row->device->driver_version);
    if (row->status != CK_OK) {
      fputs(",\"error\":", out);
      cli_json_string(out, row->message);
      fputc('}', out);
      continue;
    }
    char when[32];
    iso_time(when, sizeof when, peak->measured_at);
    fprintf(out,
            ",\"error\":null,\"cached\":%s,\"measured_at\":\"%s\","
            "\"duration_s\":",
            peak->from_cache ? "true" : "false", when);
    json_number(out, peak->duration_s);
    fputs(",\"metrics\":{", out);
    for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
      if (m)
        fputc(',', out);
      json_metric(out, &peak->values[m], (ck_peak_metric)m);
    }
    fputs("}}", out);
  }
  fputs("],\"default\":", out);
  if (chosen) {
    cli_json_string(out, chosen->id);
    fprintf(out, ",\"default_by\":\"%s\"", by_peaks ? "peaks" : "kind");
  } else
    fputs("null,\"default_by\":null", out);
  fputs("}\n", out);
}

/* A value in at most 7 characters, or what stands in its place. */
static void cell(char *text, size_t capacity, const ck_peak_value *value) {
  if (value->state == CK_PEAK_NOT_APPLICABLE)
    snprintf(text, capacity, "n/a");
  else if (value->state == CK_PEAK_NOT_ASKED)
    snprintf(text, capacity, "-");
  else if (value->state != CK_PEAK_MEASURED)
    snprintf(text, capacity, "failed");
  else if (value->value >= 100)
    snprintf(text, capacity, "%.0f", value->value);
  else if (value->value >= 10)
    snprintf(text, capacity, "%.1f", value->value);
  else
    snprintf(text, capacity, "%.2f", value->value);
}

/* Under the table, each device's name and origin, then its measures
 * that have a reason, those with the same one together. */
static void print_notes(FILE *out, const peak_row *row) {
  const ck_peak *peak = &row->peak;
  if (row->status != CK_OK) {
    fprintf(out, "%-9s %s: failed: %s\n", row->device->id, row->device->name,
            row->message);
    return;
  }
  char when[32];
  iso_time(when, sizeof when, peak->measured_at);
  if (peak->from_cache)
    fprintf(out, "%-9s %s: kept since %s (--refresh measures again)\n",
            row->device->id, row->device->name, when);
  else
    fprintf(out, "%-9s %s: measured in %.1f s%s\n", row->device->id,
            row->device->name, peak->duration_s,
            peak->stored ? "" : " (not kept: the cache is off or refused)");
  int shown[CK_PEAK_METRIC_COUNT] = {0};
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    const ck_peak_value *value = &peak->values[m];
    if (shown[m] || !value->reason[0])
      continue;
    fprintf(out, "          %s", columns[m]);
    for (int n = m + 1; n < CK_PEAK_METRIC_COUNT; ++n)
      if (!shown[n] && peak->values[n].state == value->state &&
          strcmp(peak->values[n].reason, value->reason) == 0) {
        fprintf(out, ", %s", columns[n]);
        shown[n] = 1;
      }
    fprintf(out, ": %s%s\n",
            value->state == CK_PEAK_NOT_APPLICABLE ? "not applicable: "
            : value->state == CK_PEAK_MEASURED     ? "measured, but "
            : value->state == CK_PEAK_NOT_ASKED    ? ""
                                                   : "failed: ",
            value->reason);
  }
}

static void print_table(FILE *out, const peak_row *rows, size_t count,
                        const ck_device *chosen, int by_peaks) {
  fprintf(out, "%-9s", "device");
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m)
    fprintf(out, " %7s", columns[m]);
  fprintf(out, "\n%-9s", "");
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    const char *unit = "";
    ck_peak_describe((ck_peak_metric)m, NULL, &unit);
    fprintf(out, " %7s", unit);
  }
  fputc('\n', out);
  for (size_t r = 0; r < count; ++r) {
    fprintf(out, "%-9s", rows[r].device->id);
    for (int m = 0; m < CK_PEAK_METRIC_COUNT && rows[r].status == CK_OK; ++m) {
      char text[32];
      cell(text, sizeof text, &rows[r].peak.values[m]);
      fprintf(out, " %7s", text);
    }
    fprintf(out, "%s\n", rows[r].status == CK_OK ? "" : " failed");
  }
  fputc('\n', out);
  for (size_t r = 0; r < count; ++r)
    print_notes(out, &rows[r]);
  if (chosen)
    fprintf(out, "default device: %s (%s)\n", chosen->id,
            by_peaks ? "the fastest by measured peaks"
                     : "by kind and size: not every device has peaks");
}

/* The options of peak, and of devices --peak (command): -1 to go on,
 * else an exit status (0 after --help). */
static int parse_peak_options(const char *command, int argc, char **argv,
                              int *json, int *refresh, const char **selector) {
  static const struct option options[] = {
      {"device", required_argument, NULL, PEAK_DEVICE},
      {"json", no_argument, NULL, PEAK_JSON},
      {"refresh", no_argument, NULL, PEAK_REFRESH},
      {"peak", no_argument, NULL, PEAK_PEAK},
      {"help", no_argument, NULL, PEAK_HELP},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case PEAK_DEVICE:
      if (!*optarg)
        return peak_usage(command, "--device: an empty selector");
      *selector = optarg;
      break;
    case PEAK_JSON:
      *json = 1;
      break;
    case PEAK_REFRESH:
      *refresh = 1;
      break;
    case PEAK_PEAK:
      if (strcmp(command, "devices") != 0)
        return peak_usage(command, "unknown option '--peak'");
      break;
    case PEAK_HELP:
      fputs(peak_help, stdout);
      return EXIT_OK;
    default: {
      char message[256];
      cli_option_message(message, sizeof message, c, argv, optind, options);
      return peak_usage(command, "%s", message);
    }
    }
  }
  if (optind < argc)
    return peak_usage(command, "unexpected argument '%.160s'", argv[optind]);
  return -1;
}

/* Each row's peaks: those kept, else (or with refresh) measured, saying
 * so on a terminal (talk). Returns the exit status: 1 where a device or
 * one of its measurements failed. */
static int measure_rows(peak_row *rows, size_t count, int refresh, int talk) {
  for (size_t k = 0; k < count; ++k) {
    peak_row *row = &rows[k];
    if (!refresh && ck_peak_load(row->device, &row->peak) == CK_OK)
      continue;
    if (talk)
      fprintf(stderr, "clkit: measuring %s (%s)...\n", row->device->id,
              row->device->name);
    row->status = ck_peak_measure(row->device, NULL, &row->peak);
    if (row->status != CK_OK) {
      const char *message = "";
      ck_error_get_last(&message);
      snprintf(row->message, sizeof row->message, "%s", message);
    }
  }
  int exit_code = EXIT_OK;
  for (size_t k = 0; k < count; ++k) {
    if (rows[k].status != CK_OK)
      exit_code = EXIT_FAILURE_RUN;
    for (int m = 0; m < CK_PEAK_METRIC_COUNT && rows[k].status == CK_OK; ++m)
      if (rows[k].peak.values[m].state == CK_PEAK_FAILED)
        exit_code = EXIT_FAILURE_RUN;
  }
  return exit_code;
}

/* The devices selector picks, measured and printed. */
static int peak_devices(const char *command, const ck_device_set *set,
                        const char *selector, int json, int refresh) {
  size_t indices[MAX_PEAK_DEVICES], count = 0;
  ck_status status =
      ck_device_select(set, selector, indices, MAX_PEAK_DEVICES, &count);
  if (status != CK_OK) {
    const char *message = "";
    ck_error_get_last(&message);
    fprintf(stderr, "clkit %s: %s\n", command, message);
    return EXIT_USAGE;
  }
  peak_row *rows = calloc(count, sizeof *rows);
  if (!rows) {
    fprintf(stderr, "clkit %s: out of memory\n", command);
    return EXIT_FAILURE_RUN;
  }
  for (size_t k = 0; k < count; ++k)
    rows[k].device = &set->devices[indices[k]];
  int exit_code =
      measure_rows(rows, count, refresh, !json && isatty(STDERR_FILENO));
  size_t chosen = 0;
  int by_peaks = 0;
  int have_default = ck_device_choose_default(set, &chosen, &by_peaks) == CK_OK;
  const ck_device *default_device = have_default ? &set->devices[chosen] : NULL;
  if (json)
    print_json(stdout, rows, count, default_device, by_peaks);
  else
    print_table(stdout, rows, count, default_device, by_peaks);
  free(rows);
  return exit_code;
}

int cli_peak(int argc, char **argv) {
  /* As 'clkit devices --peak', argv[0] is "devices" and --peak is taken. */
  const char *command = strcmp(argv[0], "devices") == 0 ? "devices" : "peak";
  int json = 0, refresh = 0;
  const char *selector = "all";
  int exit_code =
      parse_peak_options(command, argc, argv, &json, &refresh, &selector);
  if (exit_code >= 0)
    return exit_code;
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  exit_code = peak_devices(command, &set, selector, json, refresh);
  ck_device_set_free(&set);
  return exit_code;
}
