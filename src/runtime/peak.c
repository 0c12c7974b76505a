/*
 * peak.c - a device's peaks, measured (clkit/peak.h; docs/peak.md): the
 * kernels of cl/peak.cl through the device's queue, their timing and
 * what each measure records. ref's loops in plain C are peak_host.c's;
 * the cache entries, keyed by the device's identity, peak_cache.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"

enum {
  ITERATIONS = 4096,   /* multiply-add rounds of a work-item (peak.cl) */
  ACCUMULATORS = 8,    /* a work-item's accumulators, as in peak.cl */
  FETCHES = 16,        /* vectors a work-item moves, as in peak.cl */
  GPU_GROUP = 256,     /* the work-group on GPUs */
  CPU_GROUP = 64,      /* and elsewhere (below) */
  MAX_ITEMS = 1 << 22, /* the most work-items of a multiply-add launch */
  MAX_RUNS = 100000,   /* the most timed runs of one measure */
  MAX_OPTION_RUNS = 1000
};

#define MIN_BYTES (1ull << 20)
#define GPU_BYTES (1ull << 30)
#define CPU_LEAST_BYTES (64ull << 20)
#define CPU_UNKNOWN_BYTES (256ull << 20)
#define DEFAULT_SECONDS 0.05
#define DEFAULT_RUNS 5u

static const struct {
  const char *name, *unit;
} metrics[CK_PEAK_METRIC_COUNT] = {
    {"read", "GB/s"},
    {"write", "GB/s"},
    {"copy", "GB/s"},
    {"fp32", "GFLOP/s"},
    {"fp64", "GFLOP/s"},
    {"launch", "us"},
    {"host_to_device", "GB/s"},
    {"device_to_host", "GB/s"},
    {"host_to_device_pinned", "GB/s"},
    {"device_to_host_pinned", "GB/s"},
    {"fp32_chain", "GFLOP/s"},
    {"fp64_chain", "GFLOP/s"},
};

ck_status ck_peak_describe(ck_peak_metric metric, const char **name,
                           const char **unit) {
  if ((unsigned)metric >= CK_PEAK_METRIC_COUNT)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_peak_describe: metric %d is not one of 0 to %d",
                    (int)metric, CK_PEAK_METRIC_COUNT - 1);
  if (name)
    *name = metrics[metric].name;
  if (unit)
    *unit = metrics[metric].unit;
  return CK_OK;
}

ck_status ck_peak_options_init(ck_peak_options *options) {
  CK__REQUIRE(options);
  memset(options, 0, sizeof *options);
  options->seconds = DEFAULT_SECONDS;
  options->runs = DEFAULT_RUNS;
  options->metrics = CK_PEAK_ALL_METRICS;
  options->store = 1;
  return CK_OK;
}

static ck_status check_options(const ck_peak_options *options) {
  if (options->max_bytes != 0 && options->max_bytes < MIN_BYTES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_peak_measure: max_bytes %llu is below 1 MiB (%llu), "
                    "where a cache would be measured instead of memory",
                    options->max_bytes, MIN_BYTES);
  if (!(options->seconds >= 0 && options->seconds <= 60))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_peak_measure: seconds %g is not within 0 to 60",
                    options->seconds);
  if (options->runs < 1 || options->runs > MAX_OPTION_RUNS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_peak_measure: runs %u is not within 1 to %d",
                    options->runs, MAX_OPTION_RUNS);
  if (options->metrics == 0 || (options->metrics & ~CK_PEAK_ALL_METRICS))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_peak_measure: metrics 0x%x names none, or bits past "
                    "the %d metrics",
                    options->metrics, CK_PEAK_METRIC_COUNT);
  return CK_OK;
}

/* ---- Recording --------------------------------------------------------- */

static void reset(ck_peak *peak, const ck_device *device) {
  memset(peak, 0, sizeof *peak);
  snprintf(peak->device_id, sizeof peak->device_id, "%s", device->id);
  snprintf(peak->device_name, sizeof peak->device_name, "%s", device->name);
  snprintf(peak->platform, sizeof peak->platform, "%s", device->platform);
  snprintf(peak->platform_version, sizeof peak->platform_version, "%s",
           device->platform_version);
  snprintf(peak->driver_version, sizeof peak->driver_version, "%s",
           device->driver_version);
  snprintf(peak->clkit_version, sizeof peak->clkit_version, "%s",
           CK_VERSION_STRING);
  ck__peak_host_name(peak->host, sizeof peak->host);
  peak->measured_at = (long long)time(NULL);
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    ck_peak_value *value = &peak->values[m];
    value->value = NAN;
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w)
      value->widths[w] = NAN;
  }
}

void ck__peak_mark(ck_peak_value *value, ck_peak_state state,
                   const char *reason) {
  value->state = state;
  value->value = NAN;
  snprintf(value->reason, sizeof value->reason, "%s", reason);
}

void ck__peak_note(ck_peak_value *value, int index, double rate,
                   unsigned long long size, unsigned runs, double seconds) {
  if (index >= 0)
    value->widths[index] = rate;
  if (value->state == CK_PEAK_MEASURED && !(rate > value->value))
    return;
  value->state = CK_PEAK_MEASURED;
  value->value = rate;
  value->width = index >= 0 ? 1u << index : 0;
  value->size = size;
  value->runs = runs;
  value->seconds = seconds;
}

void ck__peak_note_failure(ck_peak_value *value, int index) {
  const char *message = "";
  ck_error_get_last(&message);
  if (value->reason[0])
    return;
  if (index >= 0)
    snprintf(value->reason, sizeof value->reason, "%u lanes: %s", 1u << index,
             message && *message ? message : "failed");
  else
    snprintf(value->reason, sizeof value->reason, "%s",
             message && *message ? message : "failed");
}

void ck__peak_fail_rest(ck_peak *peak, unsigned asked_metrics) {
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    ck_peak_value *value = &peak->values[m];
    if (((asked_metrics >> m) & 1u) && value->state == CK_PEAK_FAILED &&
        !value->reason[0])
      ck__peak_note_failure(value, -1);
  }
}

/* ---- Timing -------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

ck_status ck__peak_time_runs(ck__peak_timing *timing, ck__peak_run run,
                             void *user, double *median, unsigned *runs) {
  ck_status status = CK_OK;
  double seconds = 0, total = 0;
  size_t count = 0;
  CK_TRY(run(user, &seconds));
  while (count < timing->options->runs ||
         (total < timing->options->seconds && count < MAX_RUNS)) {
    if (count == timing->capacity) {
      size_t grown = timing->capacity ? 2 * timing->capacity : 64;
      double *samples = realloc(timing->samples, grown * sizeof *samples);
      if (!samples)
        CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory timing runs");
      timing->samples = samples;
      timing->capacity = grown;
    }
    CK_TRY(run(user, &seconds));
    timing->samples[count++] = seconds;
    total += seconds;
  }
  qsort(timing->samples, count, sizeof *timing->samples, compare_doubles);
  *median =
      count % 2
          ? timing->samples[count / 2]
          : 0.5 * (timing->samples[count / 2 - 1] + timing->samples[count / 2]);
  if (!(*median > 0))
    CK_FAIL(CK_ERROR_DEVICE, "the runs were too short for the clock to time");
  *runs = (unsigned)count;
fail:
  return status;
}

/* ---- The buffers' size --------------------------------------------------- */

/* The first number in the file at path, with a K or M after it read as
 * such; 0 where there is none. */
static unsigned long long read_size(const char *path) {
  FILE *file = fopen(path, "r");
  unsigned long long value = 0;
  char unit = '\0';
  if (!file)
    return 0;
  if (fscanf(file, "%llu%c", &value, &unit) < 1)
    value = 0;
  fclose(file);
  return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
}

/* The bytes of level-3 cache of all the host's CPUs, as Linux lists them
 * (each cache once: where its first CPU lists it); 0 where unknown. The
 * C library's figure is not used: under a hypervisor it may give the
 * whole chip's cache rather than the machine's. */
static unsigned long long host_cache_bytes(void) {
  unsigned long long total = 0;
  for (unsigned cpu = 0; cpu < 4096; ++cpu) {
    char path[128];
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu%u/cache/index3/shared_cpu_list", cpu);
    FILE *file = fopen(path, "r");
    if (!file)
      break;
    unsigned first = 0;
    int read = fscanf(file, "%u", &first);
    fclose(file);
    if (read != 1 || first != cpu)
      continue;
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu%u/cache/index3/size", cpu);
    total += read_size(path);
  }
  return total;
}

/* The default largest buffer: on CPUs eight times the host's level-3
 * cache, so that it measures memory, not the cache (no less than 64 MiB;
 * 256 MiB where the cache is unknown); 1 GiB elsewhere. */
static unsigned long long default_bytes(const ck_device *device) {
  if (device->kind != CK_KIND_HOST && device->kind != CK_KIND_CPU)
    return GPU_BYTES;
  unsigned long long cache = host_cache_bytes();
  if (cache == 0)
    return CPU_UNKNOWN_BYTES;
  return 8 * cache > CPU_LEAST_BYTES ? 8 * cache : CPU_LEAST_BYTES;
}

unsigned long long ck__peak_buffer_bytes(const ck_device *device,
                                         const ck_peak_options *options) {
  unsigned long long most =
      options->max_bytes ? options->max_bytes : default_bytes(device);
  if (device->global_memory && device->global_memory / 4 < most)
    most = device->global_memory / 4;
  if (device->max_alloc && device->max_alloc < most)
    most = device->max_alloc;
  unsigned long long bytes = MIN_BYTES;
  while (2 * bytes <= most)
    bytes *= 2;
  return bytes <= most ? bytes : 0;
}

/* ---- Devices with kernels ---------------------------------------------- */

typedef struct device_run {
  const ck_device *device;
  const ck_peak_options *options;
  ck_peak *peak;
  ck__peak_timing timing;
  ck_queue *queue;
  ck_buffer *in, *out; /* bytes each; in holds 1.0f in every float */
  size_t bytes;
  const size_t *local; /* NULL: the runtime chooses */
  size_t group;
} device_run;

/* One kernel's launch to its end: the profiling event's span, or the wall
 * time where the runtime gives none (or wall is set). */
typedef struct launch {
  ck_queue *queue;
  ck_kernel *kernel;
  size_t global;
  const size_t *local;
  int wall;
} launch;

static ck_status run_launch(void *user, double *seconds) {
  launch *l = user;
  ck_event *event = NULL;
  uint64_t start = 0, end = 0;
  double started = ck__seconds();
  ck_status status = ck_queue_launch(l->queue, l->kernel, 1, &l->global,
                                     l->local, l->wall ? NULL : &event);
  if (status == CK_OK)
    status = ck_queue_finish(l->queue);
  double wall = ck__seconds() - started;
  if (status == CK_OK && event)
    status = ck_event_get_times(event, &start, &end);
  ck_event_destroy(event);
  *seconds = end > start ? 1e-9 * (double)(end - start) : wall;
  return status;
}

static int asked(const device_run *run, ck_peak_metric metric) {
  return (run->options->metrics >> metric) & 1u;
}

/* The first float of out, which each memory kernel's check reads. */
static ck_status first_out(device_run *run, float *value) {
  return ck_buffer_read(run->queue, run->out, 0, sizeof *value, value,
                        CK_BLOCKING, NULL);
}

/* A memory kernel of metric at width index: each layout's median, the
 * faster kept, and the first float of out checked against expected. */
static ck_status memory_kernel(device_run *run, ck_program *program,
                               ck_peak_metric metric, int index,
                               double *seconds, unsigned *runs) {
  static const char *const layouts[] = {"block", "grid"};
  ck_status status = CK_OK;
  ck_kernel *kernel = NULL;
  unsigned lanes = 1u << index;
  float value = 2.0f, expected = metric == CK_PEAK_READ    ? FETCHES * lanes
                                 : metric == CK_PEAK_WRITE ? value
                                                           : 1.0f;
  *seconds = INFINITY;
  for (int layout = 0; layout < 2; ++layout) {
    char name[64];
    snprintf(name, sizeof name, "ck_peak_%s_%s", metrics[metric].name,
             layouts[layout]);
    ck_kernel_args args;
    CK_TRY(ck_kernel_create(program, name, &kernel));
    ck_kernel_args_begin(kernel, &args);
    if (metric != CK_PEAK_WRITE)
      ck_kernel_args_buffer(&args, run->in);
    ck_kernel_args_buffer(&args, run->out);
    if (metric == CK_PEAK_WRITE)
      ck_kernel_args_f32(&args, value);
    CK_TRY(ck_kernel_args_end(&args));
    launch l = {run->queue, kernel,
                run->bytes / (sizeof(float) * lanes * FETCHES), run->local, 0};
    double median = 0;
    unsigned count = 0;
    CK_TRY(ck__peak_time_runs(&run->timing, run_launch, &l, &median, &count));
    float got = 0;
    CK_TRY(first_out(run, &got));
    if (got != expected)
      CK_FAIL(CK_ERROR_MISMATCH, "%s wrote %g, not %g", name, (double)got,
              (double)expected);
    if (median < *seconds) {
      *seconds = median;
      *runs = count;
    }
    ck_kernel_destroy(kernel);
    kernel = NULL;
  }
fail:
  ck_kernel_destroy(kernel);
  return status;
}

static void measure_memory(device_run *run, ck_program *program, int index) {
  static const ck_peak_metric kinds[] = {CK_PEAK_READ, CK_PEAK_WRITE,
                                         CK_PEAK_COPY};
  for (size_t k = 0; k < 3; ++k) {
    ck_peak_metric metric = kinds[k];
    ck_peak_value *value = &run->peak->values[metric];
    double seconds = 0;
    unsigned runs = 0;
    if (!asked(run, metric))
      continue;
    if (memory_kernel(run, program, metric, index, &seconds, &runs) != CK_OK) {
      ck__peak_note_failure(value, index);
      continue;
    }
    /* A copy reads and writes each byte. */
    double moved = (double)run->bytes * (metric == CK_PEAK_COPY ? 2 : 1);
    ck__peak_note(value, index, moved / seconds * 1e-9,
                  (unsigned long long)moved, runs, seconds);
  }
}

/* The multiply-add kernel (chain: the chained one) at width index in a
 * precision: its work-items double until a launch lasts options->seconds /
 * options->runs. */
static ck_status multiply_adds(device_run *run, ck_program *program, int index,
                               int fp64, int chain, double *rate,
                               unsigned long long *size, double *seconds,
                               unsigned *runs) {
  ck_status status = CK_OK;
  ck_kernel *kernel = NULL;
  ck_kernel_args args;
  size_t real = fp64 ? sizeof(double) : sizeof(float);
  size_t units = run->device->compute_units ? run->device->compute_units : 1;
  size_t items = GPU_GROUP * units, most = run->bytes / real;
  most = most < MAX_ITEMS ? most : MAX_ITEMS;
  items = items < most ? items : most;
  static const char *const names[2][2] = {
      {"ck_peak_fma", "ck_peak_chain"},
      {"ck_peak_fma_fp64", "ck_peak_chain_fp64"}};
  CK_TRY(ck_kernel_create(program, names[fp64][chain], &kernel));
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_buffer(&args, run->out);
  ck_kernel_args_real(&args, 0.999, fp64);
  ck_kernel_args_real(&args, 0.001, fp64);
  CK_TRY(ck_kernel_args_end(&args));
  launch l = {run->queue, kernel, items, run->local, 0};
  double once = 0, target = run->options->seconds / run->options->runs;
  CK_TRY(run_launch(&l, &once)); /* compiles, on some runtimes */
  for (;;) {
    CK_TRY(run_launch(&l, &once));
    if (once >= target || 2 * l.global > most)
      break;
    l.global *= 2;
  }
  CK_TRY(ck__peak_time_runs(&run->timing, run_launch, &l, seconds, runs));
  double first = 0;
  if (fp64) {
    CK_TRY(ck_buffer_read(run->queue, run->out, 0, sizeof first, &first,
                          CK_BLOCKING, NULL));
  } else {
    float single = 0;
    CK_TRY(ck_buffer_read(run->queue, run->out, 0, sizeof single, &single,
                          CK_BLOCKING, NULL));
    first = single;
  }
  if (!isfinite(first) || !(first > 0))
    CK_FAIL(CK_ERROR_MISMATCH, "the multiply-add kernel wrote %g", first);
  *size =
      (unsigned long long)ACCUMULATORS * (1u << index) * ITERATIONS * l.global;
  *rate = 2.0 * (double)*size / *seconds * 1e-9;
fail:
  ck_kernel_destroy(kernel);
  return status;
}

static void measure_arithmetic(device_run *run, ck_program *program,
                               int index) {
  static const ck_peak_metric kinds[2][2] = {
      {CK_PEAK_FP32, CK_PEAK_FP32_CHAIN}, {CK_PEAK_FP64, CK_PEAK_FP64_CHAIN}};
  for (int k = 0; k < 4; ++k) {
    int fp64 = k & 1, chain = k >> 1;
    ck_peak_metric metric = kinds[fp64][chain];
    ck_peak_value *value = &run->peak->values[metric];
    double rate = 0, seconds = 0;
    unsigned long long size = 0;
    unsigned runs = 0;
    if (!asked(run, metric) || value->state == CK_PEAK_NOT_APPLICABLE)
      continue;
    if (multiply_adds(run, program, index, fp64, chain, &rate, &size, &seconds,
                      &runs) != CK_OK)
      ck__peak_note_failure(value, index);
    else
      ck__peak_note(value, index, rate, size, runs, seconds);
  }
}

static void measure_latency(device_run *run, ck_program *program) {
  ck_peak_value *value = &run->peak->values[CK_PEAK_LAUNCH];
  ck_kernel *kernel = NULL;
  ck_kernel_args args;
  double seconds = 0;
  unsigned runs = 0;
  ck_status status = ck_kernel_create(program, "ck_peak_launch", &kernel);
  if (status == CK_OK) {
    ck_kernel_args_begin(kernel, &args);
    ck_kernel_args_buffer(&args, run->out);
    status = ck_kernel_args_end(&args);
  }
  /* One work-item, timed by the host: what the caller waits. */
  launch l = {run->queue, kernel, 1, NULL, 1};
  if (status == CK_OK)
    status = ck__peak_time_runs(&run->timing, run_launch, &l, &seconds, &runs);
  if (status != CK_OK)
    ck__peak_note_failure(value, -1);
  else
    ck__peak_note(value, -1, 1e6 * seconds, 1, runs, seconds);
  ck_kernel_destroy(kernel);
}

/* A blocking transfer of the whole buffer from or to host memory. */
typedef struct transfer {
  device_run *run;
  void *host;
  int to_device;
} transfer;

static ck_status run_transfer(void *user, double *seconds) {
  transfer *t = user;
  device_run *run = t->run;
  double started = ck__seconds();
  ck_status status = t->to_device
                         ? ck_buffer_write(run->queue, run->in, 0, run->bytes,
                                           t->host, CK_BLOCKING, NULL)
                         : ck_buffer_read(run->queue, run->in, 0, run->bytes,
                                          t->host, CK_BLOCKING, NULL);
  *seconds = ck__seconds() - started;
  return status;
}

static void measure_transfers(device_run *run) {
  static const ck_peak_metric kinds[] = {
      CK_PEAK_HOST_TO_DEVICE, CK_PEAK_DEVICE_TO_HOST,
      CK_PEAK_HOST_TO_DEVICE_PINNED, CK_PEAK_DEVICE_TO_HOST_PINNED};
  void *memory[2] = {NULL, NULL}; /* pageable, page-locked */
  char why[2][200] = {"", ""};    /* why one could not be had */
  int any = 0;
  for (size_t k = 0; k < 4; ++k)
    any |= asked(run, kinds[k]);
  if (!any)
    return;
  /* Last of the measures: the transfers overwrite the input's ones. */
  memory[0] = malloc(run->bytes);
  if (!memory[0])
    snprintf(why[0], sizeof why[0], "out of host memory for %zu bytes",
             run->bytes);
  if (ck__host_alloc(run->queue, run->bytes, &memory[1]) != CK_OK) {
    const char *message = "";
    ck_error_get_last(&message);
    snprintf(why[1], sizeof why[1], "%s", message);
    memory[1] = NULL;
  }
  for (size_t k = 0; k < 4; ++k) {
    ck_peak_metric metric = kinds[k];
    ck_peak_value *value = &run->peak->values[metric];
    int pinned = k >= 2;
    double seconds = 0;
    unsigned runs = 0;
    if (!asked(run, metric))
      continue;
    if (!memory[pinned]) {
      snprintf(value->reason, sizeof value->reason, "%s", why[pinned]);
      continue;
    }
    /* Every page is touched before the first write reads it. */
    if (k == 0 || k == 2)
      memset(memory[pinned], 0x3f, run->bytes);
    transfer t = {run, memory[pinned],
                  metric == CK_PEAK_HOST_TO_DEVICE ||
                      metric == CK_PEAK_HOST_TO_DEVICE_PINNED};
    if (ck__peak_time_runs(&run->timing, run_transfer, &t, &seconds, &runs) !=
        CK_OK)
      ck__peak_note_failure(value, -1);
    else
      ck__peak_note(value, -1, (double)run->bytes / seconds * 1e-9, run->bytes,
                    runs, seconds);
  }
  free(memory[0]);
  ck__host_free(run->queue, memory[1]);
}

static int is_arithmetic(int metric) {
  return metric == CK_PEAK_FP32 || metric == CK_PEAK_FP64 ||
         metric == CK_PEAK_FP32_CHAIN || metric == CK_PEAK_FP64_CHAIN;
}

/* The widths whose programs a device builds: 1 to 16 lanes on OpenCL, 1
 * to 4 on CUDA (peak.cl), whose multiply-adds take scalars alone. */
static int width_count(const ck_device *device) {
  return device->backend == CK_BACKEND_CUDA ? 3 : CK_PEAK_WIDTHS;
}

static int arithmetic_at(const ck_device *device, int index) {
  return device->backend != CK_BACKEND_CUDA || index == 0;
}

/* The two buffers, as large as the device gives up to run->bytes, in
 * holding ones. */
static ck_status make_buffers(device_run *run) {
  ck_status status = CK_OK;
  for (;;) {
    status = ck_buffer_create(run->queue, run->bytes, &run->in);
    if (status == CK_OK)
      status = ck_buffer_create(run->queue, run->bytes, &run->out);
    if (status != CK_ERROR_DEVICE_MEMORY || run->bytes / 2 < MIN_BYTES)
      break;
    ck_buffer_destroy(run->in);
    run->in = NULL;
    run->bytes /= 2;
  }
  CK_TRY(status);
  float one = 1.0f;
  CK_TRY(ck_buffer_fill(run->queue, run->in, &one, sizeof one, 0, run->bytes,
                        NULL));
  CK_TRY(ck_queue_finish(run->queue));
fail:
  return status;
}

static ck_status measure_device(device_run *run) {
  ck_status status = CK_OK;
  const ck_device *device = run->device;
  ck_peak *peak = run->peak;
  ck_program *program = NULL;
  if (!device->has_fp64) {
    ck__peak_mark(&peak->values[CK_PEAK_FP64], CK_PEAK_NOT_APPLICABLE,
                  "the device has no double precision");
    ck__peak_mark(&peak->values[CK_PEAK_FP64_CHAIN], CK_PEAK_NOT_APPLICABLE,
                  "the device has no double precision");
  }
  CK_TRY(ck_queue_create(device, &run->queue));
  run->bytes = (size_t)ck__peak_buffer_bytes(device, run->options);
  if (run->bytes == 0) {
    ck__fail(CK_ERROR_DEVICE_MEMORY,
             "device %s cannot hold two buffers of 1 MiB", device->id);
    ck__peak_fail_rest(peak, run->options->metrics);
    goto fail;
  }
  /* A CPU runtime left to choose may make one work-group of a small
   * launch, which runs on one core (half of PoCL's rate on 2 cores), and
   * large groups make PoCL's scalar stores slow (5 to 8 times). */
  run->group = device->kind == CK_KIND_CPU ? CPU_GROUP : GPU_GROUP;
  if (device->max_work_group_size >= run->group)
    run->local = &run->group;
  if (make_buffers(run) != CK_OK) {
    ck__peak_fail_rest(peak, run->options->metrics);
    goto fail;
  }
  for (int index = 0; index < width_count(device); ++index) {
    char defines[96];
    snprintf(defines, sizeof defines,
             "-DCK_PEAK_WIDTH=%u -DCK_PEAK_ITERATIONS=%d", 1u << index,
             ITERATIONS);
    if (ck_program_build(run->queue, "peak", defines, &program) != CK_OK) {
      /* What this width's program would have measured fails. */
      for (int m = CK_PEAK_READ; m < CK_PEAK_METRIC_COUNT; ++m)
        if ((m < CK_PEAK_FP32 ||
             (is_arithmetic(m) && arithmetic_at(device, index)) ||
             (m == CK_PEAK_LAUNCH && index == 0)) &&
            peak->values[m].state != CK_PEAK_NOT_APPLICABLE &&
            peak->values[m].state != CK_PEAK_NOT_ASKED)
          ck__peak_note_failure(&peak->values[m], index);
      continue;
    }
    measure_memory(run, program, index);
    if (arithmetic_at(device, index))
      measure_arithmetic(run, program, index);
    if (index == 0 && asked(run, CK_PEAK_LAUNCH))
      measure_latency(run, program);
    ck_program_destroy(program);
    program = NULL;
  }
  measure_transfers(run);
fail:
  ck_program_destroy(program);
  ck_buffer_destroy(run->in);
  ck_buffer_destroy(run->out);
  ck_queue_destroy(run->queue);
  return status;
}

/* ---- The whole measurement ----------------------------------------------- */

ck_status ck_peak_measure(const ck_device *device,
                          const ck_peak_options *options, ck_peak *peak) {
  ck_status status = CK_OK;
  ck_peak_options defaults;
  ck__error_saved saved;
  CK__REQUIRE(device);
  CK__REQUIRE(peak);
  if (!options) {
    ck_peak_options_init(&defaults);
    options = &defaults;
  }
  CK_TRY(check_options(options));
  ck__error_save(&saved);
  reset(peak, device);
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m)
    if (!((options->metrics >> m) & 1u))
      ck__peak_mark(&peak->values[m], CK_PEAK_NOT_ASKED, "not asked for");
    else
      peak->values[m].state = CK_PEAK_FAILED; /* until measured */
  ck__peak_timing timing = {options, NULL, 0};
  double started = ck__seconds();
  if (device->backend == CK_BACKEND_REF)
    ck__peak_measure_host(device, options, peak, &timing);
  else {
    device_run run = {
        .device = device, .options = options, .peak = peak, .timing = timing};
    status = measure_device(&run);
    timing = run.timing;
  }
  free(timing.samples);
  if (status != CK_OK)
    goto fail;
  ck__peak_fail_rest(peak, options->metrics);
  peak->duration_s = ck__seconds() - started;
  /* A cache turned off takes the store quietly, and keeps nothing. */
  if (options->store && options->metrics == CK_PEAK_ALL_METRICS &&
      ck__cache_setting() != CK__CACHE_OFF)
    peak->stored =
        ck__peak_store_version(device, CK_VERSION_STRING, peak) == CK_OK;
  ck__error_restore(&saved);
  return CK_OK;
fail:
  return status;
}
