/*
 * cli_report.c - bench's and compare's reports: the text table, JSON, CSV
 * and Markdown, each made into a text the caller prints or writes; and
 * what the HTML page (cli_report_html.c) shares with them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli_commit.h"
#include "cli_report.h"

/* ---- a growing text --------------------------------------------------- */

void cli_put(cli_text *t, const char *format, ...) {
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

char *cli_text_finish(cli_text *t) {
  if (t->failed || !t->data) {
    free(t->data);
    return NULL;
  }
  return t->data;
}

static void put_json_string(cli_text *t, const char *s) {
  cli_put(t, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
    if (*c == '"' || *c == '\\')
      cli_put(t, "\\%c", *c);
    else if (*c < 0x20)
      cli_put(t, "\\u%04x", *c);
    else
      cli_put(t, "%c", *c);
  }
  cli_put(t, "\"");
}

/* A number in the fewest digits that read back as it, or null where it
 * is none. */
static void put_json_number(cli_text *t, double value) {
  if (!isfinite(value)) {
    cli_put(t, "null");
    return;
  }
  char digits[40];
  for (int precision = 1; precision <= 17; ++precision) {
    snprintf(digits, sizeof digits, "%.*g", precision, value);
    if (strtod(digits, NULL) == value)
      break;
  }
  cli_put(t, "%s", digits);
}

/* A CSV field, quoted where it holds a comma, a quote or a line end. */
static void put_csv(cli_text *t, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    cli_put(t, "%s", s);
    return;
  }
  cli_put(t, "\"");
  for (; *s; ++s)
    cli_put(t, *s == '"' ? "\"\"" : "%c", *s);
  cli_put(t, "\"");
}

/* ---- figures in words ---------------------------------------------------- */

const char *cli_figure(char *buffer, size_t size, double value) {
  if (!isfinite(value))
    snprintf(buffer, size, "-");
  else
    snprintf(buffer, size, "%.3g", value);
  return buffer;
}

const char *cli_times(char *buffer, size_t size, double value) {
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

const char *cli_percent(char *buffer, size_t size, const cli_bench_row *row) {
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

const char *cli_kind_name(const ck_device *device) {
  const char *kind = "";
  ck_device_get_kind_name(device->kind, &kind);
  return kind;
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

/* A device's peaks in words. */
static void peaks_words(char *buffer, size_t size, const cli_peaks *peaks) {
  char gbs[32], fp32[32], fp64[32];
  if (!isfinite(peaks->gbs) && !isfinite(peaks->fp32) && !isfinite(peaks->fp64))
    snprintf(buffer, size, "peaks not measured");
  else
    snprintf(buffer, size, "peaks %s GB/s, %s FP32 and %s FP64 GFLOP/s",
             cli_figure(gbs, sizeof gbs, peaks->gbs),
             cli_figure(fp32, sizeof fp32, peaks->fp32),
             cli_figure(fp64, sizeof fp64, peaks->fp64));
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
            cli_kind_name(device),
            device->backend == CK_BACKEND_REF ? "" : "; ",
            device->backend == CK_BACKEND_REF ? "" : peaks);
  }
}

/* The columns every row has, after the device (and bench's workload). */
static void text_columns(FILE *out, const cli_bench_report *report,
                         const cli_bench_row *row) {
  char rate[32], low[32], high[32], gbs[32], gflops[32], peak[48], ref[32],
      first[32], range[72];
  snprintf(range, sizeof range, "%s-%s", cli_figure(low, sizeof low, row->low),
           cli_figure(high, sizeof high, row->high));
  fprintf(out, " %-24s %11s", row->size,
          cli_figure(rate, sizeof rate, row->median->throughput));
  if (report->meta.repeat > 1)
    fprintf(out, " %-19s", range);
  fprintf(out, " %9s %9s %-12s %7s %7s", cli_figure(gbs, sizeof gbs, row->gbs),
          cli_figure(gflops, sizeof gflops, row->gflops),
          cli_percent(peak, sizeof peak, row),
          cli_times(ref, sizeof ref, row->vs_ref),
          cli_times(first, sizeof first, row->vs_first));
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

static void json_meta(cli_text *t, const cli_bench_report *report) {
  const cli_bench_meta *meta = &report->meta;
  cli_put(t, "\"clkit\":{\"version\":");
  put_json_string(t, meta->version);
  cli_put(t, ",\"commit\":");
  put_json_string(t, meta->commit);
  cli_put(t, "},\"command\":");
  put_json_string(t, meta->command_line);
  cli_put(t, ",\"date\":");
  put_json_string(t, meta->date);
  cli_put(t, ",\"host\":{\"hostname\":");
  put_json_string(t, meta->hostname);
  cli_put(t, ",\"os\":");
  put_json_string(t, meta->os);
  cli_put(t, ",\"kernel\":");
  put_json_string(t, meta->kernel);
  cli_put(t, ",\"cpu\":");
  put_json_string(t, meta->cpu);
  cli_put(t, ",\"cpus\":%ld}", meta->cpus);
  cli_put(t, ",\"settings\":{\"size\":");
  put_json_string(t, meta->size);
  cli_put(t, ",\"repeat\":%u,\"seed\":%llu}", meta->repeat,
          (unsigned long long)meta->seed);
  cli_put(t, ",\"devices\":[");
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
    cli_put(t, "%s%s,\"peaks\":{\"gb_per_s\":", k ? "," : "", listed);
    free(listed);
    put_json_number(t, peaks->gbs);
    cli_put(t, ",\"fp32_gflop_per_s\":");
    put_json_number(t, peaks->fp32);
    cli_put(t, ",\"fp64_gflop_per_s\":");
    put_json_number(t, peaks->fp64);
    cli_put(t, "}}");
  }
  cli_put(t, "],\"workloads\":[");
  for (size_t w = 0; w < report->workload_count; ++w) {
    const cli_bench_workload *info = &report->workloads[w];
    cli_put(t, "%s{\"workload\":", w ? "," : "");
    put_json_string(t, info->name);
    cli_put(t, ",\"size_format\":");
    put_json_string(t, info->format);
    cli_put(t, ",\"check_size\":");
    put_json_string(t, info->check_size);
    cli_put(t, "}");
  }
  cli_put(t, "]");
}

/* A run as ck_result_format_json writes it, without its closing brace,
 * so that the caller adds fields. */
static void json_run_open(cli_text *t, const ck_result *run) {
  char *json = NULL;
  if (ck_result_format_json(run, &json) != CK_OK) {
    t->failed = 1;
    return;
  }
  size_t length = strlen(json);
  if (length && json[length - 1] == '}')
    json[length - 1] = '\0';
  cli_put(t, "%s", json);
  ck_memory_free(json);
}

/* The identity of a row's device beyond its id and name. */
static void json_device(cli_text *t, const ck_device *device) {
  cli_put(t, ",\"device_kind\":");
  put_json_string(t, cli_kind_name(device));
  cli_put(t, ",\"vendor\":");
  put_json_string(t, device->vendor);
  cli_put(t, ",\"platform\":");
  put_json_string(t, device->platform);
  cli_put(t, ",\"driver_version\":");
  put_json_string(t, device->driver_version);
}

/* A failed row as an object, without its closing brace. */
static void json_failure_open(cli_text *t, const cli_bench_row *row) {
  const char *version = "", *name = "", *workload = "";
  ck_version_get(&version);
  ck_status_get_name(row->status, &name);
  ck_workload_describe(row->workload, &workload, NULL, NULL);
  cli_put(t, "{\"workload\":");
  put_json_string(t, workload);
  cli_put(t, ",\"version\":");
  put_json_string(t, version);
  cli_put(t, ",\"device\":");
  put_json_string(t, row->device->id);
  cli_put(t, ",\"device_name\":");
  put_json_string(t, row->device->name);
  cli_put(t, ",\"status\":");
  put_json_string(t, name);
  cli_put(t, ",\"error\":");
  put_json_string(t, row->error);
  json_device(t, row->device);
}

static void json_row(cli_text *t, const cli_bench_row *row) {
  if (row->status != CK_OK) {
    json_failure_open(t, row);
    cli_put(t, ",\"skipped\":%s}", row->skipped ? "true" : "false");
    return;
  }
  json_run_open(t, row->median);
  json_device(t, row->device);
  cli_put(t, ",\"size\":");
  put_json_string(t, row->size);
  cli_put(t, ",\"rung\":");
  if (row->rung >= 0)
    cli_put(t, "%d", row->rung);
  else
    cli_put(t, "null");
  cli_put(t, ",\"runs\":%zu,\"throughput_min\":", row->run_count);
  put_json_number(t, row->low);
  cli_put(t, ",\"throughput_max\":");
  put_json_number(t, row->high);
  cli_put(t, ",\"cost\":{\"units\":");
  put_json_number(t, row->cost.units);
  cli_put(t, ",\"bytes\":");
  put_json_number(t, row->cost.bytes);
  cli_put(t, ",\"flops\":");
  put_json_number(t, row->cost.flops);
  cli_put(t, ",\"precision\":\"%s\"}",
          row->cost.double_precision ? "fp64" : "fp32");
  cli_put(t, ",\"gb_per_s\":");
  put_json_number(t, row->gbs);
  cli_put(t, ",\"gflop_per_s\":");
  put_json_number(t, row->gflops);
  cli_put(t, ",\"peak_percent\":");
  put_json_number(t, row->percent);
  cli_put(t, ",\"peak_bound\":");
  if (row->bound)
    put_json_string(t, row->bound);
  else
    cli_put(t, "null");
  cli_put(t, ",\"vs_ref\":");
  put_json_number(t, row->vs_ref);
  cli_put(t, ",\"vs_first\":");
  put_json_number(t, row->vs_first);
  cli_put(t, ",\"check_size\":");
  put_json_string(t, row->check_size);
  cli_put(t, ",\"check_best\":");
  put_json_number(t, row->check->best);
  cli_put(t, "}");
}

char *cli_report_json(const cli_bench_report *report) {
  cli_text t = {0};
  int compare = is_compare(report);
  cli_put(&t, "{");
  if (compare && report->workload_count == 1) {
    const cli_bench_workload *info = &report->workloads[0];
    cli_put(&t, "\"workload\":");
    put_json_string(&t, info->name);
    /* The runs checked against ref, ref's first, as compare gave them. */
    cli_put(&t, ",\"results\":[");
    json_run_open(&t, info->oracle);
    cli_put(&t, "}");
    for (size_t k = 0; k < report->device_count; ++k) {
      const cli_bench_row *row = &report->rows[k];
      if (row->is_ref)
        continue;
      cli_put(&t, ",");
      if (row->status != CK_OK) {
        json_failure_open(&t, row);
        cli_put(&t, "}");
      } else {
        json_run_open(&t, row->check);
        cli_put(&t, "}");
      }
    }
    cli_put(&t, "],");
  }
  json_meta(&t, report);
  cli_put(&t, ",\"%s\":[", compare ? "rows" : "bench");
  for (size_t i = 0; i < report->row_count; ++i) {
    cli_put(&t, i ? "," : "");
    json_row(&t, &report->rows[i]);
  }
  cli_put(&t, "]}\n");
  return cli_text_finish(&t);
}

/* ---- CSV -------------------------------------------------------------------
 */

static void put_csv_number(cli_text *t, double value) {
  if (isfinite(value))
    put_json_number(t, value);
}

char *cli_report_csv(const cli_bench_report *report) {
  cli_text t = {0};
  cli_put(&t, "workload,device,device_name,driver_version,size,rung,runs,"
              "throughput,"
              "throughput_min,throughput_max,throughput_unit,wall_s,gb_per_s,"
              "gflop_per_s,peak_percent,peak_bound,vs_ref,vs_first,check_size,"
              "best,agreement,agrees,status,error\n");
  for (size_t i = 0; i < report->row_count; ++i) {
    const cli_bench_row *row = &report->rows[i];
    const cli_bench_workload *info =
        &report->workloads[i / report->device_count];
    put_csv(&t, info->name);
    cli_put(&t, ",");
    put_csv(&t, row->device->id);
    cli_put(&t, ",");
    put_csv(&t, row->device->name);
    cli_put(&t, ",");
    put_csv(&t, row->device->driver_version);
    cli_put(&t, ",");
    if (row->status != CK_OK) {
      const char *name = "";
      ck_status_get_name(row->status, &name);
      cli_put(&t, ",,,,,,,,,,,,,,,,,,%s,", row->skipped ? "skipped" : name);
      put_csv(&t, row->error);
      cli_put(&t, "\n");
      continue;
    }
    put_csv(&t, row->size);
    cli_put(&t, ",");
    if (row->rung >= 0)
      cli_put(&t, "%d", row->rung);
    cli_put(&t, ",%zu,", row->run_count);
    put_csv_number(&t, row->median->throughput);
    cli_put(&t, ",");
    put_csv_number(&t, row->low);
    cli_put(&t, ",");
    put_csv_number(&t, row->high);
    cli_put(&t, ",");
    put_csv(&t, row->median->throughput_unit);
    const double numbers[] = {row->median->wall_s, row->gbs, row->gflops,
                              row->percent};
    for (size_t n = 0; n < sizeof numbers / sizeof *numbers; ++n) {
      cli_put(&t, ",");
      put_csv_number(&t, numbers[n]);
    }
    cli_put(&t, ",%s,", row->bound ? row->bound : "");
    put_csv_number(&t, row->vs_ref);
    cli_put(&t, ",");
    put_csv_number(&t, row->vs_first);
    cli_put(&t, ",");
    put_csv(&t, row->check_size);
    cli_put(&t, ",");
    put_csv_number(&t, row->check->best);
    cli_put(&t, ",");
    put_csv_number(&t, row->check->agreement);
    cli_put(&t, ",%s,CK_OK,\n", row->check->agrees ? "true" : "false");
  }
  return cli_text_finish(&t);
}

/* ---- Markdown ------------------------------------------------------------
 */

/* A table cell's text, its pipes escaped. */
static void put_cell(cli_text *t, const char *s) {
  for (; *s; ++s)
    cli_put(t, *s == '|' ? "\\|" : "%c", *s);
}

char *cli_report_markdown(const cli_bench_report *report) {
  cli_text t = {0};
  const cli_bench_meta *meta = &report->meta;
  cli_put(&t, "# clkit %s\n\n", meta->command);
  cli_put(&t, "- Date: %s\n", meta->date);
  cli_put(&t, "- Host: %s; %s; %s; %s (%ld CPUs)\n", meta->hostname, meta->os,
          meta->kernel, meta->cpu, meta->cpus);
  cli_put(&t, "- clkit: %s, commit %s\n", meta->version, meta->commit);
  cli_put(&t, "- Command: `%s`\n", meta->command_line);
  cli_put(&t, "- Sizes: %s; %u run%s a row; seed %llu\n\n", meta->size,
          meta->repeat, meta->repeat == 1 ? "" : "s",
          (unsigned long long)meta->seed);
  cli_put(&t,
          "## Devices\n\n| device | name | kind | driver | memory | peaks |\n"
          "| --- | --- | --- | --- | --- | --- |\n");
  for (size_t k = 0; k < report->device_count; ++k) {
    const ck_device *device = report->devices[k].device;
    char memory[32], peaks[160];
    cli_human_bytes(memory, sizeof memory, device->global_memory);
    peaks_words(peaks, sizeof peaks, &report->devices[k].peaks);
    cli_put(&t, "| `%s` | ", device->id);
    put_cell(&t, device->name);
    cli_put(&t, " | %s | ", cli_kind_name(device));
    put_cell(&t, device->driver_version[0] ? device->driver_version : "-");
    cli_put(&t, " | %s | %s |\n", memory, peaks);
  }
  for (size_t w = 0; w < report->workload_count; ++w) {
    const cli_bench_workload *info = &report->workloads[w];
    cli_put(&t, "\n## %s\n\nSize: %s; agreement checked at %s.\n\n", info->name,
            info->format, info->check_size);
    cli_put(&t,
            "| device | size | throughput | unit |%s GB/s | GFLOP/s | "
            "peak | x ref | x first | check |\n| --- | --- | ---: | --- |%s "
            "---: | ---: | --- | ---: | ---: | --- |\n",
            meta->repeat > 1 ? " range |" : "",
            meta->repeat > 1 ? " --- |" : "");
    for (size_t k = 0; k < report->device_count; ++k) {
      const cli_bench_row *row = &report->rows[w * report->device_count + k];
      cli_put(&t, "| `%s` | ", row->device->id);
      if (row->status != CK_OK) {
        cli_put(&t, "%s: ", row->skipped ? "skipped" : "failed");
        put_cell(&t, row->error);
        cli_put(&t, " |%s\n", " | | | | | | | |");
        continue;
      }
      char rate[32], low[32], high[32], gbs[32], gflops[32], peak[48], ref[32],
          first[32];
      cli_put(&t, "%s | %s | %s |", row->size,
              cli_figure(rate, sizeof rate, row->median->throughput),
              row->median->throughput_unit);
      if (meta->repeat > 1)
        cli_put(&t, " %s-%s |", cli_figure(low, sizeof low, row->low),
                cli_figure(high, sizeof high, row->high));
      cli_put(&t, " %s | %s | %s | %s | %s | %s |\n",
              cli_figure(gbs, sizeof gbs, row->gbs),
              cli_figure(gflops, sizeof gflops, row->gflops),
              cli_percent(peak, sizeof peak, row),
              cli_times(ref, sizeof ref, row->vs_ref),
              cli_times(first, sizeof first, row->vs_first), agreement(row));
    }
  }
  return cli_text_finish(&t);
}
