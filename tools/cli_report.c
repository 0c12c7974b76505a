/*
 * cli_report.c - bench's and compare's reports: the text table, JSON, CSV,
 * Markdown, and one self-contained HTML page (inline CSS and SVG charts,
 * nothing fetched), each made into a text the caller prints or writes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli_bench.h"
#include "cli_commit.h"

/* ---- a growing text --------------------------------------------------- */

typedef struct text {
  char *data;
  size_t used, capacity;
  int failed;
} text;

static void put(text *t, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *format, ...) {
  if (t->failed)
    return;
  for (;;) {
    va_list arguments;
    va_start(arguments, format);
    int length =
        vsnprintf(t->data ? t->data + t->used : NULL,
                  t->data ? t->capacity - t->used : 0, format, arguments);
    va_end(arguments);
    if (length < 0) {
      t->failed = 1;
      return;
    }
    if (t->data && t->used + (size_t)length < t->capacity) {
      t->used += (size_t)length;
      return;
    }
    size_t capacity = t->capacity ? t->capacity : 4096;
    while (capacity <= t->used + (size_t)length)
      capacity *= 2;
    char *grown = realloc(t->data, capacity);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->data = grown;
    t->capacity = capacity;
  }
}

/* The text, handed to the caller (NULL when it could not be made). */
static char *finish(text *t) {
  if (t->failed || !t->data) {
    free(t->data);
    return NULL;
  }
  return t->data;
}

/* s with &, <, >, " and ' escaped, for HTML and SVG (XML). */
static void put_markup(text *t, const char *s) {
  for (; *s; ++s) {
    switch (*s) {
    case '&':
      put(t, "&amp;");
      break;
    case '<':
      put(t, "&lt;");
      break;
    case '>':
      put(t, "&gt;");
      break;
    case '"':
      put(t, "&quot;");
      break;
    case '\'':
      put(t, "&#39;");
      break;
    default:
      put(t, "%c", *s);
    }
  }
}

/* A size in words for a page: "1048576 x 100" as "1048576 × 100". */
static void put_size_markup(text *t, const char *size) {
  for (const char *at = size; *at;) {
    if (strncmp(at, " x ", 3) == 0) {
      put(t, " \xc3\x97 ");
      at += 3;
    } else {
      char one[2] = {*at++, 0};
      put_markup(t, one);
    }
  }
}

static void put_json_string(text *t, const char *s) {
  put(t, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
    if (*c == '"' || *c == '\\')
      put(t, "\\%c", *c);
    else if (*c < 0x20)
      put(t, "\\u%04x", *c);
    else
      put(t, "%c", *c);
  }
  put(t, "\"");
}

/* A number in the fewest digits that read back as it, or null where it
 * is none. */
static void put_json_number(text *t, double value) {
  if (!isfinite(value)) {
    put(t, "null");
    return;
  }
  char digits[40];
  for (int precision = 1; precision <= 17; ++precision) {
    snprintf(digits, sizeof digits, "%.*g", precision, value);
    if (strtod(digits, NULL) == value)
      break;
  }
  put(t, "%s", digits);
}

/* A CSV field, quoted where it holds a comma, a quote or a line end. */
static void put_csv(text *t, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    put(t, "%s", s);
    return;
  }
  put(t, "\"");
  for (; *s; ++s)
    put(t, *s == '"' ? "\"\"" : "%c", *s);
  put(t, "\"");
}

/* ---- figures in words ---------------------------------------------------- */

/* A number in 3 significant digits ("1.20e+06"), "-" for none. */
static const char *figure(char *buffer, size_t size, double value) {
  if (!isfinite(value))
    snprintf(buffer, size, "-");
  else
    snprintf(buffer, size, "%.3g", value);
  return buffer;
}

/* A rate with an SI prefix, for charts: "1.20 M". */
static const char *si(char *buffer, size_t size, double value) {
  static const char *const prefixes[] = {"", " k", " M", " G", " T", " P"};
  int step = 0;
  double shown = value;
  while (fabs(shown) >= 1000 && step < 5) {
    shown /= 1000;
    ++step;
  }
  if (!isfinite(value))
    snprintf(buffer, size, "-");
  else
    snprintf(buffer, size, "%.3g%s", shown, prefixes[step]);
  return buffer;
}

static const char *times(char *buffer, size_t size, double value) {
  if (!isfinite(value))
    snprintf(buffer, size, "-");
  else
    snprintf(buffer, size,
             value >= 100  ? "%.0fx"
             : value >= 10 ? "%.1fx"
                           : "%.2fx",
             value);
  return buffer;
}

static const char *percent(char *buffer, size_t size,
                           const cli_bench_row *row) {
  if (!isfinite(row->percent) || !row->bound)
    snprintf(buffer, size, "-");
  else
    snprintf(buffer, size, "%.3g%% %s", row->percent, row->bound);
  return buffer;
}

/* The row's agreement in words. */
static const char *agreement(const cli_bench_row *row) {
  if (row->status != CK_OK)
    return row->skipped ? "skipped" : "failed";
  if (row->is_ref)
    return "(is ref)";
  return row->check->agrees ? "agrees with ref" : "DISAGREES with ref";
}

static int is_compare(const cli_bench_report *report) {
  return strcmp(report->meta.command, "compare") == 0;
}

/* ---- the run's metadata -------------------------------------------------- */

/* The value of "KEY=value" or "KEY\t: value" lines of a small file. */
static void file_value(const char *path, const char *key, char separator,
                       char *value, size_t size) {
  FILE *file = fopen(path, "r");
  char line[512];
  size_t length = strlen(key);
  while (file && fgets(line, sizeof line, file)) {
    if (strncmp(line, key, length) != 0)
      continue;
    char *at = line + length;
    while (*at == ' ' || *at == '\t')
      ++at;
    if (*at != separator)
      continue;
    ++at;
    while (*at == ' ' || *at == '"')
      ++at;
    at[strcspn(at, "\"\n")] = '\0';
    snprintf(value, size, "%s", at);
    break;
  }
  if (file)
    fclose(file);
}

void cli_report_meta(cli_bench_meta *meta, int argc, char **argv) {
  memset(meta, 0, sizeof *meta);
  size_t used =
      (size_t)snprintf(meta->command_line, sizeof meta->command_line, "clkit");
  for (int i = 0; i < argc && used < sizeof meta->command_line; ++i) {
    int quoted = strpbrk(argv[i], " \t'\"$") != NULL;
    used += (size_t)snprintf(meta->command_line + used,
                             sizeof meta->command_line - used,
                             quoted ? " '%s'" : " %s", argv[i]);
  }
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc))
    strftime(meta->date, sizeof meta->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  if (gethostname(meta->hostname, sizeof meta->hostname - 1) != 0)
    snprintf(meta->hostname, sizeof meta->hostname, "unknown");
  struct utsname system;
  if (uname(&system) == 0)
    snprintf(meta->kernel, sizeof meta->kernel, "%s %s %s", system.sysname,
             system.release, system.machine);
  snprintf(meta->os, sizeof meta->os, "%s",
           uname(&system) == 0 ? system.sysname : "unknown");
  file_value("/etc/os-release", "PRETTY_NAME", '=', meta->os, sizeof meta->os);
  snprintf(meta->cpu, sizeof meta->cpu, "unknown");
  file_value("/proc/cpuinfo", "model name", ':', meta->cpu, sizeof meta->cpu);
  meta->cpus = sysconf(_SC_NPROCESSORS_ONLN);
  ck_version_get(&meta->version);
  meta->commit = CLI_COMMIT;
}

/* ---- text ------------------------------------------------------------------
 */

static const char *kind_name(const ck_device *device) {
  const char *kind = "";
  ck_device_get_kind_name(device->kind, &kind);
  return kind;
}

/* A device's peaks in words. */
static void peaks_words(char *buffer, size_t size, const cli_peaks *peaks) {
  char gbs[32], fp32[32], fp64[32];
  if (!isfinite(peaks->gbs) && !isfinite(peaks->fp32) && !isfinite(peaks->fp64))
    snprintf(buffer, size, "peaks not measured");
  else
    snprintf(buffer, size, "peaks %s GB/s, %s FP32 and %s FP64 GFLOP/s",
             figure(gbs, sizeof gbs, peaks->gbs),
             figure(fp32, sizeof fp32, peaks->fp32),
             figure(fp64, sizeof fp64, peaks->fp64));
}

void cli_report_text_head(FILE *out, const cli_bench_report *report) {
  const cli_bench_meta *meta = &report->meta;
  fprintf(out, "clkit %s: sizes %s, %u run%s a row, seed %llu\n", meta->command,
          meta->size, meta->repeat, meta->repeat == 1 ? "" : "s",
          (unsigned long long)meta->seed);
  for (size_t k = 0; k < report->device_count; ++k) {
    char peaks[160];
    peaks_words(peaks, sizeof peaks, &report->devices[k].peaks);
    const ck_device *device = report->devices[k].device;
    fprintf(out, "  %-9s %s [%s]%s%s\n", device->id, device->name,
            kind_name(device), device->backend == CK_BACKEND_REF ? "" : "; ",
            device->backend == CK_BACKEND_REF ? "" : peaks);
  }
}

/* The columns every row has, after the device (and bench's workload). */
static void text_columns(FILE *out, const cli_bench_report *report,
                         const cli_bench_row *row) {
  char rate[32], low[32], high[32], gbs[32], gflops[32], peak[48], ref[32],
      first[32], range[72];
  snprintf(range, sizeof range, "%s-%s", figure(low, sizeof low, row->low),
           figure(high, sizeof high, row->high));
  fprintf(out, " %-24s %11s", row->size,
          figure(rate, sizeof rate, row->median->throughput));
  if (report->meta.repeat > 1)
    fprintf(out, " %-19s", range);
  fprintf(out, " %9s %9s %-12s %7s %7s", figure(gbs, sizeof gbs, row->gbs),
          figure(gflops, sizeof gflops, row->gflops),
          percent(peak, sizeof peak, row), times(ref, sizeof ref, row->vs_ref),
          times(first, sizeof first, row->vs_first));
}

static void text_titles(FILE *out, const cli_bench_report *report) {
  fprintf(out, " %-24s %11s", "size", "throughput");
  if (report->meta.repeat > 1)
    fprintf(out, " %-19s", "range");
  fprintf(out, " %9s %9s %-12s %7s %7s", "GB/s", "GFLOP/s", "peak", "x ref",
          "x first");
}

void cli_report_text_workload(FILE *out, const cli_bench_report *report,
                              size_t w) {
  const cli_bench_workload *info = &report->workloads[w];
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  int compare = is_compare(report);
  const char *unit = info->oracle ? info->oracle->throughput_unit : "";
  fputc('\n', out);
  if (compare && report->meta.given_size)
    fprintf(out, "%s: %s, same configuration and seed on each device\n",
            info->name, info->oracle ? info->oracle->best_name : "");
  else if (compare)
    fprintf(out,
            "%s: %s, same seed on each device; agreement at ref's size %s\n",
            info->name, info->oracle ? info->oracle->best_name : "",
            info->check_size);
  else
    fprintf(out, "%s: %s, size %s; agreement checked at %s\n", info->name, unit,
            info->format, info->check_size);
  if (compare)
    fprintf(out, "%-9s", "device");
  else
    fprintf(out, "%-10s %-9s", "workload", "device");
  text_titles(out, report);
  if (compare)
    fprintf(out, " %-16s %14s %11s %s\n", "unit", "best", "vs_ref", "agrees");
  else
    fprintf(out, "  %s\n", "check");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    if (compare)
      fprintf(out, "%-9s", row->device->id);
    else
      fprintf(out, "%-10s %-9s", info->name, row->device->id);
    if (row->status != CK_OK) {
      fprintf(out, " %s: %s\n", row->skipped ? "skipped" : "failed",
              row->error);
      continue;
    }
    text_columns(out, report, row);
    if (compare)
      fprintf(out, " %-16s %14.8g %11.3g %s\n", row->median->throughput_unit,
              row->check->best, row->check->agreement,
              row->check->agrees ? "yes" : "NO");
    else
      fprintf(out, "  %s\n", agreement(row));
  }
}

/* ---- JSON ------------------------------------------------------------------
 */

static void json_meta(text *t, const cli_bench_report *report) {
  const cli_bench_meta *meta = &report->meta;
  put(t, "\"clkit\":{\"version\":");
  put_json_string(t, meta->version);
  put(t, ",\"commit\":");
  put_json_string(t, meta->commit);
  put(t, "},\"command\":");
  put_json_string(t, meta->command_line);
  put(t, ",\"date\":");
  put_json_string(t, meta->date);
  put(t, ",\"host\":{\"hostname\":");
  put_json_string(t, meta->hostname);
  put(t, ",\"os\":");
  put_json_string(t, meta->os);
  put(t, ",\"kernel\":");
  put_json_string(t, meta->kernel);
  put(t, ",\"cpu\":");
  put_json_string(t, meta->cpu);
  put(t, ",\"cpus\":%ld}", meta->cpus);
  put(t, ",\"settings\":{\"size\":");
  put_json_string(t, meta->size);
  put(t, ",\"repeat\":%u,\"seed\":%llu}", meta->repeat,
      (unsigned long long)meta->seed);
  put(t, ",\"devices\":[");
  for (size_t k = 0; k < report->device_count; ++k) {
    const ck_device *device = report->devices[k].device;
    const cli_peaks *peaks = &report->devices[k].peaks;
    /* As `clkit devices --json` lists it, and its peaks. */
    char *listed = NULL;
    size_t length = 0;
    FILE *stream = open_memstream(&listed, &length);
    if (stream) {
      cli_print_device_json(stream, device);
      fclose(stream);
    }
    if (!stream || !listed || length < 2) {
      free(listed);
      t->failed = 1;
      return;
    }
    listed[length - 1] = '\0'; /* its closing brace */
    put(t, "%s%s,\"peaks\":{\"gb_per_s\":", k ? "," : "", listed);
    free(listed);
    put_json_number(t, peaks->gbs);
    put(t, ",\"fp32_gflop_per_s\":");
    put_json_number(t, peaks->fp32);
    put(t, ",\"fp64_gflop_per_s\":");
    put_json_number(t, peaks->fp64);
    put(t, "}}");
  }
  put(t, "],\"workloads\":[");
  for (size_t w = 0; w < report->workload_count; ++w) {
    const cli_bench_workload *info = &report->workloads[w];
    put(t, "%s{\"workload\":", w ? "," : "");
    put_json_string(t, info->name);
    put(t, ",\"size_format\":");
    put_json_string(t, info->format);
    put(t, ",\"check_size\":");
    put_json_string(t, info->check_size);
    put(t, "}");
  }
  put(t, "]");
}

/* A run as ck_result_format_json writes it, without its closing brace,
 * so that the caller adds fields. */
static void json_run_open(text *t, const ck_result *run) {
  char *json = NULL;
  if (ck_result_format_json(run, &json) != CK_OK) {
    t->failed = 1;
    return;
  }
  size_t length = strlen(json);
  if (length && json[length - 1] == '}')
    json[length - 1] = '\0';
  put(t, "%s", json);
  ck_memory_free(json);
}

/* The identity of a row's device beyond its id and name. */
static void json_device(text *t, const ck_device *device) {
  put(t, ",\"device_kind\":");
  put_json_string(t, kind_name(device));
  put(t, ",\"vendor\":");
  put_json_string(t, device->vendor);
  put(t, ",\"platform\":");
  put_json_string(t, device->platform);
  put(t, ",\"driver_version\":");
  put_json_string(t, device->driver_version);
}

/* A failed row as an object, without its closing brace. */
static void json_failure_open(text *t, const cli_bench_row *row) {
  const char *version = "", *name = "", *workload = "";
  ck_version_get(&version);
  ck_status_get_name(row->status, &name);
  ck_workload_describe(row->workload, &workload, NULL, NULL);
  put(t, "{\"workload\":");
  put_json_string(t, workload);
  put(t, ",\"version\":");
  put_json_string(t, version);
  put(t, ",\"device\":");
  put_json_string(t, row->device->id);
  put(t, ",\"device_name\":");
  put_json_string(t, row->device->name);
  put(t, ",\"status\":");
  put_json_string(t, name);
  put(t, ",\"error\":");
  put_json_string(t, row->error);
  json_device(t, row->device);
}

static void json_row(text *t, const cli_bench_row *row) {
  if (row->status != CK_OK) {
    json_failure_open(t, row);
    put(t, ",\"skipped\":%s}", row->skipped ? "true" : "false");
    return;
  }
  json_run_open(t, row->median);
  json_device(t, row->device);
  put(t, ",\"size\":");
  put_json_string(t, row->size);
  put(t, ",\"rung\":");
  if (row->rung >= 0)
    put(t, "%d", row->rung);
  else
    put(t, "null");
  put(t, ",\"runs\":%zu,\"throughput_min\":", row->run_count);
  put_json_number(t, row->low);
  put(t, ",\"throughput_max\":");
  put_json_number(t, row->high);
  put(t, ",\"cost\":{\"units\":");
  put_json_number(t, row->cost.units);
  put(t, ",\"bytes\":");
  put_json_number(t, row->cost.bytes);
  put(t, ",\"flops\":");
  put_json_number(t, row->cost.flops);
  put(t, ",\"precision\":\"%s\"}",
      row->cost.double_precision ? "fp64" : "fp32");
  put(t, ",\"gb_per_s\":");
  put_json_number(t, row->gbs);
  put(t, ",\"gflop_per_s\":");
  put_json_number(t, row->gflops);
  put(t, ",\"peak_percent\":");
  put_json_number(t, row->percent);
  put(t, ",\"peak_bound\":");
  if (row->bound)
    put_json_string(t, row->bound);
  else
    put(t, "null");
  put(t, ",\"vs_ref\":");
  put_json_number(t, row->vs_ref);
  put(t, ",\"vs_first\":");
  put_json_number(t, row->vs_first);
  put(t, ",\"check_size\":");
  put_json_string(t, row->check_size);
  put(t, ",\"check_best\":");
  put_json_number(t, row->check->best);
  put(t, "}");
}

char *cli_report_json(const cli_bench_report *report) {
  text t = {0};
  int compare = is_compare(report);
  put(&t, "{");
  if (compare && report->workload_count == 1) {
    const cli_bench_workload *info = &report->workloads[0];
    put(&t, "\"workload\":");
    put_json_string(&t, info->name);
    /* The runs checked against ref, ref's first, as compare gave them. */
    put(&t, ",\"results\":[");
    json_run_open(&t, info->oracle);
    put(&t, "}");
    for (size_t k = 0; k < report->device_count; ++k) {
      const cli_bench_row *row = &report->rows[k];
      if (row->is_ref)
        continue;
      put(&t, ",");
      if (row->status != CK_OK) {
        json_failure_open(&t, row);
        put(&t, "}");
      } else {
        json_run_open(&t, row->check);
        put(&t, "}");
      }
    }
    put(&t, "],");
  }
  json_meta(&t, report);
  put(&t, ",\"%s\":[", compare ? "rows" : "bench");
  for (size_t i = 0; i < report->row_count; ++i) {
    put(&t, i ? "," : "");
    json_row(&t, &report->rows[i]);
  }
  put(&t, "]}\n");
  return finish(&t);
}

/* ---- CSV -------------------------------------------------------------------
 */

static void put_csv_number(text *t, double value) {
  if (isfinite(value))
    put_json_number(t, value);
}

char *cli_report_csv(const cli_bench_report *report) {
  text t = {0};
  put(&t, "workload,device,device_name,driver_version,size,rung,runs,"
          "throughput,"
          "throughput_min,throughput_max,throughput_unit,wall_s,gb_per_s,"
          "gflop_per_s,peak_percent,peak_bound,vs_ref,vs_first,check_size,"
          "best,agreement,agrees,status,error\n");
  for (size_t i = 0; i < report->row_count; ++i) {
    const cli_bench_row *row = &report->rows[i];
    const cli_bench_workload *info =
        &report->workloads[i / report->device_count];
    put_csv(&t, info->name);
    put(&t, ",");
    put_csv(&t, row->device->id);
    put(&t, ",");
    put_csv(&t, row->device->name);
    put(&t, ",");
    put_csv(&t, row->device->driver_version);
    put(&t, ",");
    if (row->status != CK_OK) {
      const char *name = "";
      ck_status_get_name(row->status, &name);
      put(&t, ",,,,,,,,,,,,,,,,,,%s,", row->skipped ? "skipped" : name);
      put_csv(&t, row->error);
      put(&t, "\n");
      continue;
    }
    put_csv(&t, row->size);
    put(&t, ",");
    if (row->rung >= 0)
      put(&t, "%d", row->rung);
    put(&t, ",%zu,", row->run_count);
    put_csv_number(&t, row->median->throughput);
    put(&t, ",");
    put_csv_number(&t, row->low);
    put(&t, ",");
    put_csv_number(&t, row->high);
    put(&t, ",");
    put_csv(&t, row->median->throughput_unit);
    const double numbers[] = {row->median->wall_s, row->gbs, row->gflops,
                              row->percent};
    for (size_t n = 0; n < sizeof numbers / sizeof *numbers; ++n) {
      put(&t, ",");
      put_csv_number(&t, numbers[n]);
    }
    put(&t, ",%s,", row->bound ? row->bound : "");
    put_csv_number(&t, row->vs_ref);
    put(&t, ",");
    put_csv_number(&t, row->vs_first);
    put(&t, ",");
    put_csv(&t, row->check_size);
    put(&t, ",");
    put_csv_number(&t, row->check->best);
    put(&t, ",");
    put_csv_number(&t, row->check->agreement);
    put(&t, ",%s,CK_OK,\n", row->check->agrees ? "true" : "false");
  }
  return finish(&t);
}

/* ---- Markdown ------------------------------------------------------------
 */

/* A table cell's text, its pipes escaped. */
static void put_cell(text *t, const char *s) {
  for (; *s; ++s)
    put(t, *s == '|' ? "\\|" : "%c", *s);
}

char *cli_report_markdown(const cli_bench_report *report) {
  text t = {0};
  const cli_bench_meta *meta = &report->meta;
  put(&t, "# clkit %s\n\n", meta->command);
  put(&t, "- Date: %s\n", meta->date);
  put(&t, "- Host: %s; %s; %s; %s (%ld CPUs)\n", meta->hostname, meta->os,
      meta->kernel, meta->cpu, meta->cpus);
  put(&t, "- clkit: %s, commit %s\n", meta->version, meta->commit);
  put(&t, "- Command: `%s`\n", meta->command_line);
  put(&t, "- Sizes: %s; %u run%s a row; seed %llu\n\n", meta->size,
      meta->repeat, meta->repeat == 1 ? "" : "s",
      (unsigned long long)meta->seed);
  put(&t, "## Devices\n\n| device | name | kind | driver | memory | peaks |\n"
          "| --- | --- | --- | --- | --- | --- |\n");
  for (size_t k = 0; k < report->device_count; ++k) {
    const ck_device *device = report->devices[k].device;
    char memory[32], peaks[160];
    cli_human_bytes(memory, sizeof memory, device->global_memory);
    peaks_words(peaks, sizeof peaks, &report->devices[k].peaks);
    put(&t, "| `%s` | ", device->id);
    put_cell(&t, device->name);
    put(&t, " | %s | ", kind_name(device));
    put_cell(&t, device->driver_version[0] ? device->driver_version : "-");
    put(&t, " | %s | %s |\n", memory, peaks);
  }
  for (size_t w = 0; w < report->workload_count; ++w) {
    const cli_bench_workload *info = &report->workloads[w];
    put(&t, "\n## %s\n\nSize: %s; agreement checked at %s.\n\n", info->name,
        info->format, info->check_size);
    put(&t,
        "| device | size | throughput | unit |%s GB/s | GFLOP/s | "
        "peak | x ref | x first | check |\n| --- | --- | ---: | --- |%s "
        "---: | ---: | --- | ---: | ---: | --- |\n",
        meta->repeat > 1 ? " range |" : "", meta->repeat > 1 ? " --- |" : "");
    for (size_t k = 0; k < report->device_count; ++k) {
      const cli_bench_row *row = &report->rows[w * report->device_count + k];
      put(&t, "| `%s` | ", row->device->id);
      if (row->status != CK_OK) {
        put(&t, "%s: ", row->skipped ? "skipped" : "failed");
        put_cell(&t, row->error);
        put(&t, " |%s\n", " | | | | | | | |");
        continue;
      }
      char rate[32], low[32], high[32], gbs[32], gflops[32], peak[48], ref[32],
          first[32];
      put(&t, "%s | %s | %s |", row->size,
          figure(rate, sizeof rate, row->median->throughput),
          row->median->throughput_unit);
      if (meta->repeat > 1)
        put(&t, " %s-%s |", figure(low, sizeof low, row->low),
            figure(high, sizeof high, row->high));
      put(&t, " %s | %s | %s | %s | %s | %s |\n",
          figure(gbs, sizeof gbs, row->gbs),
          figure(gflops, sizeof gflops, row->gflops),
          percent(peak, sizeof peak, row), times(ref, sizeof ref, row->vs_ref),
          times(first, sizeof first, row->vs_first), agreement(row));
    }
  }
  return finish(&t);
}

/* ---- HTML ------------------------------------------------------------------
 */

/* One colour a device, the same in every chart. */
static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define PALETTE (sizeof palette / sizeof *palette)

static const char style[] =
    ":root{--ink:#1b2533;--muted:#5f6b7a;--line:#e3e7ec;--bg:#f4f6f9;"
    "--card:#fff;--good:#2b8a3e;--bad:#c92a2a}"
    "*{box-sizing:border-box}"
    "body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 "
    "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',"
    "Arial,sans-serif}"
    ".wrap{max-width:1060px;margin:0 auto;padding:0 24px}"
    "header{background:linear-gradient(120deg,#17233d,#2c4a86);color:#fff;"
    "padding:30px 0 26px}"
    ".eyebrow{margin:0;font-size:12px;letter-spacing:.14em;"
    "text-transform:uppercase;opacity:.75}"
    "h1{margin:4px 0 6px;font-size:27px;font-weight:600}"
    ".sub{margin:0;opacity:.85;font-size:14px}"
    "section{margin:26px 0}"
    "h2{margin:0 0 12px;font-size:18px;padding-bottom:6px;"
    "border-bottom:2px solid var(--line)}"
    "h3{margin:0;font-size:17px}"
    "h3 .unit{font-weight:400;color:var(--muted);font-size:14px;"
    "margin-left:8px}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,"
    "minmax(190px,1fr));gap:12px}"
    ".card{background:var(--card);border:1px solid var(--line);"
    "border-radius:8px;padding:12px 16px}"
    ".card b{display:block;font-size:22px;font-weight:600}"
    ".card span{color:var(--muted);font-size:13px}"
    "article{background:var(--card);border:1px solid var(--line);"
    "border-radius:10px;padding:18px 22px;margin:0 0 18px;"
    "box-shadow:0 1px 2px rgba(20,30,50,.05)}"
    ".note{margin:2px 0 6px;color:var(--muted);font-size:13.5px}"
    ".label{margin:14px 0 0;font-size:12px;font-weight:600;"
    "color:var(--muted);text-transform:uppercase;letter-spacing:.05em}"
    "table{width:100%;border-collapse:collapse;font-size:13.5px}"
    "th,td{padding:6px 10px;border-bottom:1px solid var(--line);"
    "text-align:left;vertical-align:top}"
    "th{font-size:11.5px;font-weight:600;color:var(--muted);"
    "text-transform:uppercase;letter-spacing:.04em}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}td:first-child{white-space:nowrap}"
    "code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
    ".ok{color:var(--good);font-weight:600}"
    ".no{color:var(--bad);font-weight:600}"
    ".quiet{color:var(--muted)}"
    ".swatch{display:inline-block;width:10px;height:10px;border-radius:2px;"
    "margin-right:6px}"
    "svg{display:block;width:100%;height:auto;margin:6px 0 10px}"
    "dl{display:grid;grid-template-columns:150px 1fr;gap:4px 16px;"
    "margin:0;font-size:14px}"
    "dt{color:var(--muted)}dd{margin:0}"
    "footer{margin:30px 0 40px;color:var(--muted);font-size:12.5px}";

/* The chart's geometry: labels left, values right. */
enum {
  CHART_WIDTH = 780,
  CHART_LEFT = 190,
  CHART_RIGHT = 190,
  CHART_ROW = 34,
  CHART_TOP = 8,
  CHART_AXIS = 28
};
#define CHART_PLOT (CHART_WIDTH - CHART_LEFT - CHART_RIGHT)

/* A linear axis's end: 1, 2, 2.5 or 5 times a power of ten, at least
 * value. */
static double nice_top(double value) {
  if (!(value > 0))
    return 1;
  double power = pow(10, floor(log10(value)));
  static const double steps[] = {1, 2, 2.5, 5, 10};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; ++i)
    if (steps[i] * power >= value)
      return steps[i] * power;
  return 10 * power;
}

typedef struct axis {
  int log;
  double low, high; /* decades (log) or values */
} axis;

static double axis_x(const axis *scale, double value) {
  double at = scale->log
                  ? (log10(value) - scale->low) / (scale->high - scale->low)
                  : (value - scale->low) / (scale->high - scale->low);
  if (!(at > 0))
    at = 0;
  if (at > 1)
    at = 1;
  return CHART_LEFT + at * CHART_PLOT;
}

/* The axis's grid lines and their labels, under the bars. */
static void chart_grid(text *t, const axis *scale, int height,
                       const char *suffix) {
  int ticks = scale->log ? (int)(scale->high - scale->low) : 4;
  for (int i = 0; i <= ticks; ++i) {
    double value = scale->log
                       ? pow(10, scale->low + i)
                       : scale->low + (scale->high - scale->low) * i / ticks;
    double x = axis_x(scale, value);
    char label[32];
    put(t,
        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
        "stroke=\"#e3e7ec\"/>",
        x, CHART_TOP, x, height - CHART_AXIS + 4);
    put(t,
        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#5f6b7a\">"
        "%s%s</text>",
        x, height - 8, si(label, sizeof label, value), suffix);
  }
}

/* A row's label: the device's id, and its name below, cut short. */
static void chart_label(text *t, const ck_device *device, int y) {
  char name[40];
  snprintf(name, sizeof name, "%.34s%s", device->name,
           strlen(device->name) > 34 ? "\xe2\x80\xa6" : "");
  put(t, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\">",
      CHART_LEFT - 10, y + 15);
  put_markup(t, device->id);
  put(t,
      "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
      "font-size=\"10.5\" fill=\"#5f6b7a\">",
      CHART_LEFT - 10, y + 28);
  put_markup(t, name);
  put(t, "</text>");
}

static void svg_open(text *t, int height, const char *label) {
  put(t,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
      "width=\"%d\" height=\"%d\" role=\"img\" font-family=\"-apple-system,"
      "BlinkMacSystemFont,Segoe UI,Roboto,Helvetica Neue,Arial,sans-serif\" "
      "font-size=\"12\" fill=\"#1b2533\" aria-label=\"",
      CHART_WIDTH, height, CHART_WIDTH, height);
  put_markup(t, label);
  put(t, "\">");
}

/* The throughput of each device on one workload: log-scaled where the
 * devices differ by a decade or more. One bar a device that ran, class
 * "bar", with its range where several runs were made. */
static void chart_throughput(text *t, const cli_bench_report *report,
                             size_t w) {
  const cli_bench_workload *info = &report->workloads[w];
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  double least = INFINITY, most = 0;
  for (size_t k = 0; k < report->device_count; ++k)
    if (rows[k].status == CK_OK && rows[k].median &&
        rows[k].median->throughput > 0) {
      least = fmin(least, fmin(rows[k].low, rows[k].median->throughput));
      most = fmax(most, fmax(rows[k].high, rows[k].median->throughput));
    }
  axis scale = {0, 0, nice_top(most)};
  if (most > 0 && least > 0 && most / least >= 10) {
    scale.log = 1;
    scale.low = floor(log10(least));
    scale.high = ceil(log10(most));
    if (scale.high <= scale.low)
      scale.high = scale.low + 1;
  }
  int height = CHART_TOP + (int)report->device_count * CHART_ROW + CHART_AXIS;
  char label[160];
  snprintf(label, sizeof label, "%s throughput by device%s", info->name,
           scale.log ? " (log scale)" : "");
  svg_open(t, height, label);
  chart_grid(t, &scale, height, "");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    int y = CHART_TOP + (int)k * CHART_ROW;
    chart_label(t, row->device, y);
    if (row->status != CK_OK || !row->median) {
      put(t, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-style=\"italic\">",
          CHART_LEFT + 6, y + 19, row->skipped ? "#8a94a1" : "#c92a2a");
      put_markup(t, row->skipped ? "skipped" : "failed");
      put(t, "</text>");
      continue;
    }
    double rate = row->median->throughput;
    double end = rate > 0 ? axis_x(&scale, rate) : CHART_LEFT;
    double width = end - CHART_LEFT < 2 ? 2 : end - CHART_LEFT;
    char value[48], unit[48];
    put(t, "<rect class=\"bar\" data-workload=\"%s\" data-device=\"",
        info->name);
    put_markup(t, row->device->id);
    put(t,
        "\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" rx=\"3\" "
        "fill=\"%s\"><title>",
        CHART_LEFT, y + 5, width, palette[row->device_at % PALETTE]);
    put_markup(t, row->device->id);
    put(t, ": %s %s</title></rect>", figure(value, sizeof value, rate),
        row->median->throughput_unit);
    if (row->run_count > 1 && row->low < row->high) {
      double from = axis_x(&scale, row->low), to = axis_x(&scale, row->high);
      put(t,
          "<path d=\"M%.1f %d v8 M%.1f %d H%.1f M%.1f %d v8\" "
          "stroke=\"#1b2533\" stroke-width=\"1.2\" fill=\"none\"/>",
          from, y + 10, from, y + 14, to, to, y + 10);
    }
    snprintf(unit, sizeof unit, "%s", row->median->throughput_unit);
    /* The label goes past the bar and its range. */
    double after = CHART_LEFT + width;
    if (row->run_count > 1 && row->high > 0)
      after = fmax(after, axis_x(&scale, row->high));
    put(t, "<text x=\"%.1f\" y=\"%d\">%s ", after + 8, y + 19,
        si(value, sizeof value, rate));
    put_markup(t, unit);
    put(t, "</text>");
    const char *mark = row->is_ref          ? "oracle"
                       : row->check->agrees ? "\xe2\x9c\x93 agrees"
                                            : "\xe2\x9c\x97 disagrees";
    put(t,
        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\" "
        "fill=\"%s\">%s</text>",
        CHART_WIDTH - 4, y + 19,
        row->is_ref          ? "#5f6b7a"
        : row->check->agrees ? "#2b8a3e"
                             : "#c92a2a",
        mark);
  }
  put(t, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\"/>",
      CHART_LEFT, CHART_TOP, CHART_LEFT, height - CHART_AXIS + 4);
  put(t, "</svg>");
}

/* Each device's percent of its bounding peak on one workload, 0 to 100%
 * (class "peak"); a device without measured peaks says so. */
static void chart_peak(text *t, const cli_bench_report *report, size_t w) {
  const cli_bench_workload *info = &report->workloads[w];
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  double most = 100;
  for (size_t k = 0; k < report->device_count; ++k)
    if (isfinite(rows[k].percent))
      most = fmax(most, rows[k].percent);
  axis scale = {0, 0, nice_top(most)};
  int height = CHART_TOP + (int)report->device_count * CHART_ROW + CHART_AXIS;
  char label[160];
  snprintf(label, sizeof label, "%s percent of peak by device", info->name);
  svg_open(t, height, label);
  chart_grid(t, &scale, height, "%");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    int y = CHART_TOP + (int)k * CHART_ROW;
    chart_label(t, row->device, y);
    if (!isfinite(row->percent)) {
      put(t,
          "<text x=\"%d\" y=\"%d\" fill=\"#8a94a1\" font-style=\"italic\">%s"
          "</text>",
          CHART_LEFT + 6, y + 19,
          row->status != CK_OK ? "no run" : "peak not measured");
      continue;
    }
    double end = axis_x(&scale, row->percent);
    double width = end - CHART_LEFT < 2 ? 2 : end - CHART_LEFT;
    put(t,
        "<rect class=\"peak\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" "
        "rx=\"3\" fill=\"%s\" fill-opacity=\"0.75\"/>",
        CHART_LEFT, y + 5, width, palette[row->device_at % PALETTE]);
    put(t, "<text x=\"%.1f\" y=\"%d\">%.3g%% of %s</text>",
        CHART_LEFT + width + 8, y + 19, row->percent,
        strcmp(row->bound, "memory") == 0 ? "bandwidth"
        : strcmp(row->bound, "fp64") == 0 ? "FP64 peak"
                                          : "FP32 peak");
  }
  put(t, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\"/>",
      CHART_LEFT, CHART_TOP, CHART_LEFT, height - CHART_AXIS + 4);
  put(t, "</svg>");
}

/* Every device's speed-up over ref, a group of bars a workload, on a log
 * scale around ref's 1x (class "speedup"); nothing where no row but ref's
 * has one. */
static void chart_speedups(text *t, const cli_bench_report *report) {
  double least = 1, most = 1;
  size_t bars = 0;
  for (size_t i = 0; i < report->row_count; ++i) {
    const cli_bench_row *row = &report->rows[i];
    if (row->is_ref || !(row->vs_ref > 0) || !isfinite(row->vs_ref))
      continue;
    least = fmin(least, row->vs_ref);
    most = fmax(most, row->vs_ref);
    ++bars;
  }
  if (!bars)
    return;
  size_t others = 0;
  for (size_t k = 0; k < report->device_count; ++k)
    others += report->devices[k].device->backend != CK_BACKEND_REF;
  enum { BAR = 16, GAP = 4, GROUP_GAP = 14 };
  axis scale = {1, floor(log10(least)), ceil(log10(most))};
  if (scale.high <= scale.low)
    scale.high = scale.low + 1;
  int group = (int)others * (BAR + GAP) + GROUP_GAP;
  int height = CHART_TOP + (int)report->workload_count * group + CHART_AXIS;
  put(t, "<section><h2>Speed-up over ref</h2><article><p class=\"note\">"
         "Each device's rate over ref's by the cost model's GFLOP/s, "
         "each at its own size; log scale.</p>");
  svg_open(t, height, "speed-up over ref by workload and device");
  chart_grid(t, &scale, height, "x");
  for (size_t w = 0; w < report->workload_count; ++w) {
    int y = CHART_TOP + (int)w * group;
    put(t,
        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\">"
        "%s</text>",
        CHART_LEFT - 10, y + (group - GROUP_GAP) / 2 + 4,
        report->workloads[w].name);
    int slot = 0;
    for (size_t k = 0; k < report->device_count; ++k) {
      const cli_bench_row *row = &report->rows[w * report->device_count + k];
      if (row->is_ref)
        continue;
      int top = y + slot++ * (BAR + GAP);
      if (!(row->vs_ref > 0) || !isfinite(row->vs_ref)) {
        put(t,
            "<text x=\"%d\" y=\"%d\" fill=\"#8a94a1\" font-size=\"11\" "
            "font-style=\"italic\">",
            CHART_LEFT + 6, top + 12);
        put_markup(t, row->device->id);
        put(t, ": %s</text>",
            row->status != CK_OK ? (row->skipped ? "skipped" : "failed")
                                 : "no rate");
        continue;
      }
      /* From ref's 1x: right for faster, left for slower. */
      double one = axis_x(&scale, 1), end = axis_x(&scale, row->vs_ref);
      double from = fmin(one, end), width = fmax(fabs(end - one), 2);
      char value[32];
      put(t,
          "<rect class=\"speedup\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
          "height=\"%d\" rx=\"3\" fill=\"%s\"><title>",
          from, top, width, BAR, palette[row->device_at % PALETTE]);
      put_markup(t, row->device->id);
      put(t, "</title></rect><text x=\"%.1f\" y=\"%d\" font-size=\"11\">",
          fmax(one, end) + 6, top + 12);
      put_markup(t, row->device->id);
      put(t, " %s</text>", times(value, sizeof value, row->vs_ref));
    }
  }
  double one = axis_x(&scale, 1);
  put(t,
      "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
      "stroke=\"#1b2533\" stroke-dasharray=\"4 3\"/>",
      one, CHART_TOP, one, height - CHART_AXIS + 4);
  put(t, "</svg></article></section>");
}

/* The rows of one workload as a table. */
static void html_rows(text *t, const cli_bench_report *report, size_t w) {
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  put(t,
      "<table><thead><tr><th>Device</th><th>Size</th>"
      "<th>Throughput</th>%s<th>GB/s</th><th>GFLOP/s</th>"
      "<th>%% of peak</th><th>\xc3\x97 ref</th><th>\xc3\x97 first</th>"
      "<th>Agreement</th></tr></thead><tbody>",
      report->meta.repeat > 1 ? "<th>Range</th>" : "");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    put(t,
        "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>"
        "<code>",
        palette[row->device_at % PALETTE]);
    put_markup(t, row->device->id);
    put(t, "</code></td>");
    if (row->status != CK_OK) {
      put(t, "<td colspan=\"%d\" class=\"%s\">%s: ",
          report->meta.repeat > 1 ? 9 : 8, row->skipped ? "quiet" : "no",
          row->skipped ? "skipped" : "failed");
      put_markup(t, row->error);
      put(t, "</td></tr>");
      continue;
    }
    char rate[32], low[32], high[32], gbs[32], gflops[32], peak[48], ref[32],
        first[32];
    put(t, "<td>");
    put_size_markup(t, row->size);
    put(t, "</td><td class=\"n\">%s <span class=\"quiet\">",
        figure(rate, sizeof rate, row->median->throughput));
    put_markup(t, row->median->throughput_unit);
    put(t, "</span></td>");
    if (report->meta.repeat > 1)
      put(t, "<td class=\"n\">%s\xe2\x80\x93%s</td>",
          figure(low, sizeof low, row->low),
          figure(high, sizeof high, row->high));
    put(t,
        "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
        "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>",
        figure(gbs, sizeof gbs, row->gbs),
        figure(gflops, sizeof gflops, row->gflops),
        percent(peak, sizeof peak, row), times(ref, sizeof ref, row->vs_ref),
        times(first, sizeof first, row->vs_first));
    if (row->is_ref)
      put(t, "<td class=\"quiet\">oracle</td></tr>");
    else
      put(t,
          "<td class=\"%s\">%s <span class=\"quiet\">(%.2g)</span></td>"
          "</tr>",
          row->check->agrees ? "ok" : "no",
          row->check->agrees ? "\xe2\x9c\x93 agrees" : "\xe2\x9c\x97 disagrees",
          row->check->agreement);
  }
  put(t, "</tbody></table>");
}

static void html_devices(text *t, const cli_bench_report *report) {
  put(t, "<section><h2>Devices</h2><table><thead><tr><th>Device</th>"
         "<th>Name</th><th>Kind</th><th>Platform and driver</th>"
         "<th>Units</th><th>Memory</th><th>Bandwidth</th><th>FP32</th>"
         "<th>FP64</th></tr></thead><tbody>");
  int measured = 0;
  for (size_t k = 0; k < report->device_count; ++k) {
    const ck_device *device = report->devices[k].device;
    const cli_peaks *peaks = &report->devices[k].peaks;
    char memory[32], gbs[32], fp32[32], fp64[32];
    cli_human_bytes(memory, sizeof memory, device->global_memory);
    measured |=
        isfinite(peaks->gbs) || isfinite(peaks->fp32) || isfinite(peaks->fp64);
    put(t,
        "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>"
        "<code>",
        palette[k % PALETTE]);
    put_markup(t, device->id);
    put(t, "</code></td><td>");
    put_markup(t, device->name);
    put(t, "</td><td>%s</td><td>", kind_name(device));
    put_markup(t, device->backend == CK_BACKEND_REF ? "clkit's serial C"
                                                    : device->platform);
    if (device->driver_version[0]) {
      put(t, " <span class=\"quiet\">");
      put_markup(t, device->driver_version);
      put(t, "</span>");
    }
    put(t,
        "</td><td class=\"n\">%u</td><td class=\"n\">%s</td>"
        "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
        "</td></tr>",
        device->compute_units, memory, figure(gbs, sizeof gbs, peaks->gbs),
        figure(fp32, sizeof fp32, peaks->fp32),
        figure(fp64, sizeof fp64, peaks->fp64));
  }
  put(t, "</tbody></table>");
  put(t, measured ? "<p class=\"note\">Peaks in GB/s and GFLOP/s.</p>"
                  : "<p class=\"note\">No device's peaks are measured yet: "
                    "percent of peak shows \xe2\x80\x9c-\xe2\x80\x9d.</p>");
  put(t, "</section>");
}

static void html_meta(text *t, const cli_bench_report *report) {
  const cli_bench_meta *meta = &report->meta;
  static const char *const labels[] = {
      "Command", "Date", "Host",  "Operating system",
      "Kernel",  "CPU",  "clkit", "Commit"};
  char cpu[320], version[64];
  snprintf(cpu, sizeof cpu, "%s (%ld CPUs)", meta->cpu, meta->cpus);
  snprintf(version, sizeof version, "%s", meta->version);
  const char *values[] = {
      meta->command_line, meta->date, meta->hostname, meta->os,
      meta->kernel,       cpu,        version,        meta->commit};
  put(t, "<section><h2>Run</h2><article><dl>");
  for (size_t i = 0; i < sizeof labels / sizeof *labels; ++i) {
    put(t, "<dt>%s</dt><dd>%s", labels[i], i == 0 || i == 7 ? "<code>" : "");
    put_markup(t, values[i]);
    put(t, "%s</dd>", i == 0 || i == 7 ? "</code>" : "");
  }
  put(t,
      "<dt>Sizes</dt><dd>%s</dd><dt>Runs a row</dt><dd>%u (median and "
      "range)</dd><dt>Seed</dt><dd>%llu</dd></dl></article></section>",
      meta->size, meta->repeat, (unsigned long long)meta->seed);
}

char *cli_report_html(const cli_bench_report *report) {
  text t = {0};
  const cli_bench_meta *meta = &report->meta;
  size_t agreeing = 0, checked = 0, failed = 0, skipped = 0;
  int peaks = 0;
  for (size_t i = 0; i < report->row_count; ++i) {
    const cli_bench_row *row = &report->rows[i];
    peaks |= isfinite(row->percent);
    if (row->status != CK_OK) {
      failed += !row->skipped;
      skipped += row->skipped != 0;
      continue;
    }
    if (!row->is_ref) {
      ++checked;
      agreeing += row->check->agrees != 0;
    }
  }
  put(&t,
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\"><title>clkit %s: ",
      meta->command);
  put_markup(&t, meta->hostname);
  put(&t, ", %s</title><style>%s</style></head><body>", meta->date, style);
  put(&t,
      "<header><div class=\"wrap\"><p class=\"eyebrow\">clkit %s "
      "report</p><h1>",
      meta->command);
  put_markup(&t, meta->hostname);
  put(&t,
      ": %zu device%s, %zu workload%s</h1><p class=\"sub\">%s \xc2\xb7 "
      "clkit %s (",
      report->device_count, report->device_count == 1 ? "" : "s",
      report->workload_count, report->workload_count == 1 ? "" : "s",
      meta->date, meta->version);
  put_markup(&t, meta->commit);
  put(&t, ") \xc2\xb7 sizes %s \xc2\xb7 %u run%s a row</p></div></header>",
      meta->size, meta->repeat, meta->repeat == 1 ? "" : "s");
  put(&t, "<main class=\"wrap\"><section class=\"cards\">");
  put(&t, "<div class=\"card\"><b>%zu</b><span>devices</span></div>",
      report->device_count);
  put(&t, "<div class=\"card\"><b>%zu</b><span>workloads</span></div>",
      report->workload_count);
  put(&t,
      "<div class=\"card\"><b class=\"%s\">%zu of %zu</b><span>rows agree "
      "with ref</span></div>",
      agreeing == checked && !failed ? "ok" : "no", agreeing, checked);
  if (failed)
    put(&t,
        "<div class=\"card\"><b class=\"no\">%zu</b><span>rows "
        "failed</span></div>",
        failed);
  if (skipped)
    put(&t,
        "<div class=\"card\"><b class=\"quiet\">%zu</b><span>rows "
        "skipped: the device does not offer the run</span></div>",
        skipped);
  put(&t, "</section>");
  html_devices(&t, report);
  chart_speedups(&t, report);
  put(&t, "<section><h2>Results</h2>");
  for (size_t w = 0; w < report->workload_count; ++w) {
    const cli_bench_workload *info = &report->workloads[w];
    put(&t, "<article id=\"%s\"><h3>%s<span class=\"unit\">", info->name,
        info->name);
    put_markup(&t, info->oracle ? info->oracle->throughput_unit : "");
    put(&t, "</span></h3><p class=\"note\">Size: ");
    put_size_markup(&t, info->format);
    put(&t, ". Agreement with ref checked at ");
    put_size_markup(&t, info->check_size);
    put(&t, ".</p><p class=\"label\">Throughput</p>");
    chart_throughput(&t, report, w);
    if (peaks) {
      put(&t, "<p class=\"label\">Percent of peak</p>");
      chart_peak(&t, report, w);
    }
    html_rows(&t, report, w);
    put(&t, "</article>");
  }
  put(&t, "</section>");
  html_meta(&t, report);
  put(&t,
      "<footer>Throughput is each row's median run. GB/s and GFLOP/s follow "
      "each workload's cost model; percent of peak is the higher of the two "
      "shares of the device's measured peaks. Speed-ups compare GFLOP/s, "
      "which hold across sizes. Made by clkit %s.</footer></main></body>"
      "</html>\n",
      meta->version);
  return finish(&t);
}
