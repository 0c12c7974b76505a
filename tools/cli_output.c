/* cli_output.c - human-readable and JSON printing for the clkit command. */
#include <math.h>
#include <string.h>

#include "cli.h"

static void json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
    if (*c == '"' || *c == '\\')
      fprintf(out, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(out, "\\u%04x", *c);
    else
      fputc(*c, out);
  }
  fputc('"', out);
}

void cli_json_string(FILE *out, const char *text) {
  json_string(out, text);
}

void cli_human_bytes(char *text, size_t capacity, unsigned long long bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = (double)bytes;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  snprintf(text, capacity, unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
}

void cli_print_device_json(FILE *out, const ck_device *device) {
  const char *kind = "";
  ck_device_get_kind_name(device->kind, &kind);
  fprintf(out, "{\"id\":");
  json_string(out, device->id);
  fprintf(out, ",\"kind\":");
  json_string(out, kind);
  fprintf(out, ",\"name\":");
  json_string(out, device->name);
  fprintf(out, ",\"vendor\":");
  json_string(out, device->vendor);
  fprintf(out, ",\"platform\":");
  json_string(out, device->platform);
  fprintf(out, ",\"platform_version\":");
  json_string(out, device->platform_version);
  fprintf(out, ",\"driver_version\":");
  json_string(out, device->driver_version);
  fprintf(out, ",\"c_version\":");
  json_string(out, device->c_version);
  fprintf(out,
          ",\"compute_units\":%u,\"clock_mhz\":%u,\"global_memory\":%llu,"
          "\"local_memory\":%llu,\"local_memory_opt_in\":%llu,"
          "\"max_alloc\":%llu,"
          "\"max_work_group_size\":%zu,\"fp64\":%s,\"warp_width\":%u}",
          device->compute_units, device->clock_mhz, device->global_memory,
          device->local_memory, device->local_memory_opt_in, device->max_alloc,
          device->max_work_group_size, device->has_fp64 ? "true" : "false",
          device->warp_width);
}

void cli_print_devices(FILE *out, const ck_device_set *set, int json) {
  if (json) {
    fprintf(out, "{\"devices\":[");
    for (size_t i = 0; i < set->count; ++i) {
      fprintf(out, "%s", i ? "," : "");
      cli_print_device_json(out, &set->devices[i]);
    }
    fprintf(out, "],\"opencl\":");
    if (set->opencl_status == CK_OK)
      fprintf(out, "\"ok\"");
    else
      json_string(out, set->opencl_message);
    fprintf(out, ",\"cuda\":");
    if (set->cuda_status == CK_OK)
      fprintf(out, "\"ok\"");
    else
      json_string(out, set->cuda_message);
    if (set->cuda_status == CK_OK && set->cuda_message[0]) {
      fprintf(out, ",\"cuda_note\":");
      json_string(out, set->cuda_message);
    }
    fprintf(out, "}\n");
    return;
  }
  for (size_t i = 0; i < set->count; ++i) {
    const ck_device *device = &set->devices[i];
    const char *kind = "";
    char global[32], local[32], opt_in[32], local_text[80];
    ck_device_get_kind_name(device->kind, &kind);
    cli_human_bytes(global, sizeof global, device->global_memory);
    cli_human_bytes(local, sizeof local, device->local_memory);
    cli_human_bytes(opt_in, sizeof opt_in, device->local_memory_opt_in);
    /* CUDA's native kernels may opt into more than a kernel declares. */
    if (device->local_memory_opt_in > device->local_memory)
      snprintf(local_text, sizeof local_text, "%s (%s opt-in)", local, opt_in);
    else
      snprintf(local_text, sizeof local_text, "%s", local);
    fprintf(out, "%-9s %s [%s]\n", device->id, device->name, kind);
    if (device->backend == CK_BACKEND_REF) {
      fprintf(out, "          plain serial C on the host; always present\n");
      continue;
    }
    fprintf(out, "          vendor %s; platform %s (%s)\n", device->vendor,
            device->platform, device->platform_version);
    fprintf(out, "          driver %s; %s; fp64 %s\n", device->driver_version,
            device->c_version, device->has_fp64 ? "yes" : "no");
    fprintf(out,
            "          %u compute units at %u MHz; global %s; local %s; "
            "work-group up to %zu\n",
            device->compute_units, device->clock_mhz, global, local_text,
            device->max_work_group_size);
  }
  /* Why a backend lists no device goes where messages go, so that stdout
   * holds the list alone (JSON carries it as a field instead). */
  if (set->opencl_status != CK_OK)
    fprintf(stderr, "clkit: note: %s\n", set->opencl_message);
  if (set->cuda_message[0])
    fprintf(stderr, "clkit: note: %s\n", set->cuda_message);
}

static void print_quantity(FILE *out, const char *name, double value,
                           const char *unit) {
  if (value == floor(value) && fabs(value) < 1e15)
    fprintf(out, "  %-18s %.0f %s\n", name, value, unit);
  else if (fabs(value) >= 1e6 || (fabs(value) < 1e-3 && value != 0))
    fprintf(out, "  %-18s %.6g %s\n", name, value, unit);
  else
    fprintf(out, "  %-18s %.6f %s\n", name, value, unit);
}

/* The best position, whole up to a screenful, else its first values and
 * how many were left out. */
static void print_position(FILE *out, const ck_result *result) {
  enum { WHOLE = 32, SHOWN = 16 };
  size_t count = result->position_count;
  if (!result->position)
    return;
  size_t shown = count <= WHOLE ? count : SHOWN;
  fprintf(out, "  %-18s", "x");
  for (size_t i = 0; i < shown; ++i)
    fprintf(out, "%s%.9g",
            i % 4 ? " "
            : i   ? "\n  "
                    "                   "
                  : " ",
            result->position[i]);
  fputc('\n', out);
  if (shown < count)
    fprintf(out, "  %-18s %zu more of %zu values: --out FILE writes all\n", "",
            count - shown, count);
}

/* A spread run's members: each one's device, share, times and bytes
 * sent, and a gas's slabs. */
static void print_members(FILE *out, const ck_result *result) {
  if (!result->members)
    return;
  int slabs = result->members[0].slab_axis >= 0;
  fprintf(out, "  %-18s %-10s %5s %14s %7s %11s %12s %10s%s\n", "members",
          "device", "rank", result->member_units, "share", "compute (s)",
          "exchange (s)", "sent (MB)",
          !slabs                              ? ""
          : result->members[0].slab_axis == 2 ? "  box along x, y"
          : result->members[0].slab_axis == 1 ? "  slab along y"
                                              : "  slab along x");
  for (size_t i = 0; i < result->member_count; ++i) {
    const ck_spread_member *member = &result->members[i];
    fprintf(out, "  %-18zu %-10s %5d %14llu %6.1f%% %11.3f %12.3f %10.3f", i,
            member->device, member->rank, (unsigned long long)member->units,
            100 * member->share, member->compute_s, member->exchange_s,
            (double)member->bytes_sent / 1e6);
    if (member->slab_axis == 2)
      fprintf(out, "  %g to %g, %g to %g", member->slab[0], member->slab[1],
              member->slab_y[0], member->slab_y[1]);
    else if (slabs)
      fprintf(out, "  %g to %g", member->slab[0], member->slab[1]);
    fputc('\n', out);
  }
}

void cli_print_result(FILE *out, const ck_result *result) {
  if (result->members)
    fprintf(out, "%s spread over %zu device%s\n", result->workload,
            result->member_count, result->member_count == 1 ? "" : "s");
  else
    fprintf(out, "%s on %s (%s)\n", result->workload, result->device,
            result->device_name);
  print_quantity(out, result->best_name, result->best, "");
  print_quantity(out, "wall", result->wall_s, "s");
  if (result->kernel_s > 0)
    print_quantity(out, "kernel", result->kernel_s, "s");
  print_quantity(out, "throughput", result->throughput,
                 result->throughput_unit);
  if (result->stopped_by[0])
    fprintf(out, "  %-18s %s\n", "stopped_by", result->stopped_by);
  /* A metric that is also the headline is shown once, as the headline. */
  for (size_t i = 0; i < result->metric_count; ++i) {
    const ck_metric *metric = &result->metrics[i];
    if (strcmp(metric->name, result->best_name) == 0)
      continue;
    if (metric->is_flag)
      fprintf(out, "  %-18s %s\n", metric->name, metric->value ? "yes" : "no");
    else
      print_quantity(out, metric->name, metric->value, metric->unit);
  }
  print_position(out, result);
  print_members(out, result);
}

int cli_row_skipped(const ck_result *result, int every_device) {
  return every_device && result->status == CK_ERROR_UNSUPPORTED;
}
