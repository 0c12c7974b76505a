/*
 * test_peak - a device's measured peaks (clkit/peak.h) at the smallest
 * sizes, on ref and on the OpenCL device of opencl_device.h: every value
 * positive and finite where it applies, flagged with a reason where it
 * does not or fails; their cache entries, kept per device, driver and
 * clkit version; and the default device chosen by them.
 *
 * No check here times anything: how close the peaks come to clpeak's is
 * bench/peak_vs_clpeak.py's business. The test points CLKIT_CACHE_DIR at
 * a fresh directory of its own, so that the peaks it keeps (of synthetic
 * devices too) reach no other test.
 */
#include "check.h"
#include "opencl_device.h"
#include "test_support.h"

#include <errno.h>
#include <unistd.h>

#include "runtime/runtime.h"

/* The fewest runs at the smallest sizes. */
static ck_peak_options tiny_options(void) {
  ck_peak_options options;
  CHECK_OK(ck_peak_options_init(&options));
  options.max_bytes = 1u << 20;
  options.seconds = 0;
  options.runs = 1;
  return options;
}

static int metric_is(const ck_peak *peak, ck_peak_metric metric,
                     ck_peak_state state) {
  return peak->values[metric].state == state;
}

/* A measured value is positive and finite, with its runs and size; one
 * not measured is NaN, with a reason. */
static void check_values(const ck_device *device, const ck_peak *peak) {
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    const ck_peak_value *value = &peak->values[m];
    const char *name = "";
    CHECK_OK(ck_peak_describe((ck_peak_metric)m, &name, NULL));
    if (value->state == CK_PEAK_MEASURED) {
      CHECK_MSG(isfinite(value->value) && value->value > 0, "%s: %s is %g",
                device->id, name, value->value);
      CHECK_MSG(value->runs >= 1 && value->size > 0 && value->seconds > 0,
                "%s: %s: %u runs of %llu in %g s", device->id, name,
                value->runs, value->size, value->seconds);
    } else {
      CHECK_MSG(isnan(value->value) && value->reason[0],
                "%s: %s (state %d) is %g, reason '%s'", device->id, name,
                (int)value->state, value->value, value->reason);
    }
  }
}

/* A second read of the cache gives back what the measurement kept. */
static void check_round_trip(const ck_device *device, const ck_peak *peak) {
  ck_peak loaded;
  CHECK_MSG(peak->stored, "%s: the peaks were not kept", device->id);
  CHECK_OK(ck_peak_load(device, &loaded));
  CHECK(loaded.from_cache == 1 && loaded.stored == 0);
  CHECK(strcmp(loaded.device_id, device->id) == 0);
  CHECK(strcmp(loaded.driver_version, device->driver_version) == 0);
  CHECK(loaded.measured_at == peak->measured_at);
  CHECK(loaded.duration_s == peak->duration_s);
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    const ck_peak_value *a = &peak->values[m], *b = &loaded.values[m];
    CHECK_MSG(
        a->state == b->state && a->width == b->width && a->size == b->size &&
            a->runs == b->runs && a->seconds == b->seconds &&
            strcmp(a->reason, b->reason) == 0 &&
            (a->value == b->value || (isnan(a->value) && isnan(b->value))),
        "%s: metric %d changed in the cache", device->id, m);
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w)
      CHECK(a->widths[w] == b->widths[w] ||
            (isnan(a->widths[w]) && isnan(b->widths[w])));
  }
  /* Another clkit, or another driver, finds none. */
  ck_peak other;
  ck_error_clear();
  CHECK(ck__peak_load_version(device, "0.0.0-other", &other) ==
        CK_ERROR_NOT_FOUND);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "clkit peak --device") != NULL, "%s", message);
  ck_device updated = *device;
  size_t length = strlen(updated.driver_version);
  updated.driver_version[length ? length - 1 : 0] ^= 1; /* another one */
  CHECK(ck_peak_load(&updated, &other) == CK_ERROR_NOT_FOUND);
  /* A measurement of fewer metrics is not kept: the entry stays. */
  ck_peak_options some = tiny_options();
  some.metrics = 1u << CK_PEAK_READ;
  ck_peak partial;
  CHECK_OK(ck_peak_measure(device, &some, &partial));
  CHECK(!partial.stored &&
        metric_is(&partial, CK_PEAK_FP32, CK_PEAK_NOT_ASKED));
  CHECK(metric_is(&partial, CK_PEAK_READ, CK_PEAK_MEASURED));
  CHECK_OK(ck_peak_load(device, &loaded));
  CHECK(metric_is(&loaded, CK_PEAK_FP32, peak->values[CK_PEAK_FP32].state));
}

static void check_ref(const ck_device *ref) {
  ck_peak_options options = tiny_options();
  ck_peak peak;
  ck_peak before;
  ck_error_clear();
  CHECK(ck_peak_load(ref, &before) == CK_ERROR_NOT_FOUND);
  CHECK_OK(ck_peak_measure(ref, &options, &peak));
  check_values(ref, &peak);
  for (int m = CK_PEAK_READ; m <= CK_PEAK_FP64; ++m)
    CHECK_MSG(metric_is(&peak, (ck_peak_metric)m, CK_PEAK_MEASURED),
              "ref metric %d: %s", m, peak.values[m].reason);
  /* Nothing is launched or transferred on ref: said so, never 0. */
  for (int m = CK_PEAK_LAUNCH; m < CK_PEAK_METRIC_COUNT; ++m)
    CHECK_MSG(metric_is(&peak, (ck_peak_metric)m, CK_PEAK_NOT_APPLICABLE),
              "ref metric %d is state %d", m, (int)peak.values[m].state);
  CHECK(strstr(peak.values[CK_PEAK_LAUNCH].reason, "no kernels") != NULL);
  CHECK(peak.values[CK_PEAK_READ].width == 0);
  CHECK(peak.values[CK_PEAK_READ].size == 1u << 20);
  CHECK(peak.values[CK_PEAK_COPY].size == 2u << 20);
  check_round_trip(ref, &peak);
  /* With the cache off, nothing is kept, and the measurement says so. */
  size_t removed = 0;
  CHECK_OK(ck_cache_clear(&removed));
  setenv("CLKIT_CACHE", "off", 1);
  CHECK_OK(ck_peak_measure(ref, &options, &peak));
  unsetenv("CLKIT_CACHE");
  CHECK(!peak.stored);
  CHECK(ck_peak_load(ref, &before) == CK_ERROR_NOT_FOUND);
}

static void check_opencl(const ck_device *device) {
  ck_peak_options options = tiny_options();
  ck_peak peak;
  CHECK_OK(ck_peak_measure(device, &options, &peak));
  check_values(device, &peak);
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m)
    CHECK_MSG(metric_is(&peak, (ck_peak_metric)m, CK_PEAK_MEASURED) ||
                  ((m == CK_PEAK_FP64 || m == CK_PEAK_FP64_CHAIN) &&
                   !device->has_fp64),
              "%s metric %d: state %d: %s", device->id, m,
              (int)peak.values[m].state, peak.values[m].reason);
  /* Each width of an OpenCL device's kernels, and the best one's lanes. */
  static const ck_peak_metric widened[] = {CK_PEAK_READ, CK_PEAK_WRITE,
                                           CK_PEAK_COPY, CK_PEAK_FP32,
                                           CK_PEAK_FP32_CHAIN};
  for (size_t k = 0; k < sizeof widened / sizeof widened[0]; ++k) {
    const ck_peak_value *value = &peak.values[widened[k]];
    unsigned width = value->width;
    CHECK_MSG(width >= 1 && width <= 16 && (width & (width - 1)) == 0,
              "width %u", width);
    /* CUDA's kernels (through NVRTC) load up to 4 floats and multiply-add
     * scalars alone: its wider widths are not measured, NaN. */
    int arithmetic =
        widened[k] == CK_PEAK_FP32 || widened[k] == CK_PEAK_FP32_CHAIN;
    int lanes = device->backend != CK_BACKEND_CUDA ? 16 : arithmetic ? 1 : 4;
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w)
      CHECK_MSG((1 << w) > lanes
                    ? isnan(value->widths[w])
                    : isfinite(value->widths[w]) && value->widths[w] > 0 &&
                          value->widths[w] <= value->value,
                "metric %d, %d lanes: %g (best %g)", (int)widened[k], 1 << w,
                value->widths[w], value->value);
  }
  CHECK(isnan(peak.values[CK_PEAK_LAUNCH].widths[0]));
  check_round_trip(device, &peak);
}

/* With peak.cl broken, what its kernels measure fails, with the build's
 * message; the transfers, which need no kernel, are still measured. */
static void check_build_failure(const ck_device *device,
                                const char root[1024]) {
  char directory[1100], path[1200];
  snprintf(directory, sizeof directory, "%s/kernels", root);
  CHECK(mkdir(directory, 0700) == 0);
  test_write_text(directory, "peak.cl",
                  "#error \"peak.cl broken for test_peak\"\n", path,
                  sizeof path);
  setenv("CLKIT_KERNEL_DIR", directory, 1);
  ck_peak_options options = tiny_options();
  ck_peak peak;
  ck_peak before;
  CHECK_OK(ck_peak_load(device, &before));
  CHECK_OK(ck_peak_measure(device, &options, &peak));
  unsetenv("CLKIT_KERNEL_DIR");
  check_values(device, &peak);
  for (int m = CK_PEAK_READ; m < CK_PEAK_METRIC_COUNT; ++m) {
    const ck_peak_value *value = &peak.values[m];
    if (m >= CK_PEAK_HOST_TO_DEVICE && m <= CK_PEAK_DEVICE_TO_HOST_PINNED)
      continue; /* transfers build no program */
    if ((m == CK_PEAK_FP64 || m == CK_PEAK_FP64_CHAIN) && !device->has_fp64)
      continue;
    /* The reason names the failed build; the compiler's own words fit
     * in it where they come first (OpenCL's log; NVRTC's status comes
     * before its log). */
    CHECK_MSG(value->state == CK_PEAK_FAILED &&
                  (strstr(value->reason, "broken for test_peak") != NULL ||
                   (device->backend == CK_BACKEND_CUDA &&
                    strstr(value->reason, "building program 'peak'") != NULL)),
              "metric %d: state %d, '%s'", m, (int)value->state, value->reason);
  }
  for (int m = CK_PEAK_HOST_TO_DEVICE; m <= CK_PEAK_DEVICE_TO_HOST_PINNED; ++m)
    CHECK(metric_is(&peak, (ck_peak_metric)m, CK_PEAK_MEASURED));
  /* A failed measurement is kept as such, and says so from the cache. */
  ck_peak loaded;
  CHECK(peak.stored);
  CHECK_OK(ck_peak_load(device, &loaded));
  CHECK(metric_is(&loaded, CK_PEAK_READ, CK_PEAK_FAILED));
  CHECK(before.measured_at <= loaded.measured_at);
}

static void check_options(const ck_device *ref) {
  ck_peak_options options;
  ck_peak peak;
  CHECK_OK(ck_peak_options_init(&options));
  CHECK(options.max_bytes == 0 && options.seconds > 0 && options.runs >= 1 &&
        options.metrics == CK_PEAK_ALL_METRICS && options.store == 1);
  CHECK_INVALID(ck_peak_options_init(NULL), "options is NULL");
  CHECK_INVALID(ck_peak_measure(NULL, &options, &peak), "device is NULL");
  CHECK_INVALID(ck_peak_measure(ref, &options, NULL), "peak is NULL");
  CHECK_INVALID(ck_peak_load(NULL, &peak), "device is NULL");
  CHECK_INVALID(ck_peak_load(ref, NULL), "peak is NULL");
  static const struct {
    const char *field;
    unsigned long long max_bytes;
    double seconds;
    unsigned runs, metrics;
  } bad[] = {
      {"max_bytes", 1000, 0, 1, CK_PEAK_ALL_METRICS},
      {"seconds", 0, -1, 1, CK_PEAK_ALL_METRICS},
      {"seconds", 0, NAN, 1, CK_PEAK_ALL_METRICS},
      {"runs", 0, 0, 0, CK_PEAK_ALL_METRICS},
      {"runs", 0, 0, 1001, CK_PEAK_ALL_METRICS},
      {"metrics", 0, 0, 1, 0},
      {"metrics", 0, 0, 1, CK_PEAK_ALL_METRICS + 1},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    options.max_bytes = bad[k].max_bytes;
    options.seconds = bad[k].seconds;
    options.runs = bad[k].runs;
    options.metrics = bad[k].metrics;
    CHECK_INVALID(ck_peak_measure(ref, &options, &peak), bad[k].field);
  }
  /* Every metric has a name and a unit of its own. */
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    const char *name = NULL, *unit = NULL;
    CHECK_OK(ck_peak_describe((ck_peak_metric)m, &name, &unit));
    CHECK(name && *name && unit && *unit);
    for (int n = 0; n < m; ++n) {
      const char *other = NULL;
      CHECK_OK(ck_peak_describe((ck_peak_metric)n, &other, NULL));
      CHECK(strcmp(name, other) != 0);
    }
  }
  CHECK_INVALID(ck_peak_describe(CK_PEAK_METRIC_COUNT, NULL, NULL), "metric");
}

/* ---- The default device by measured peaks --------------------------------
 */

static void make_device(ck_device *device, const char *id, ck_backend backend,
                        ck_device_kind kind, const char *name, unsigned units,
                        unsigned clock_mhz) {
  memset(device, 0, sizeof *device);
  snprintf(device->id, sizeof device->id, "%s", id);
  device->backend = backend;
  device->kind = kind;
  snprintf(device->name, sizeof device->name, "%s", name);
  snprintf(device->vendor, sizeof device->vendor, "test vendor");
  snprintf(device->platform, sizeof device->platform, "test platform");
  snprintf(device->driver_version, sizeof device->driver_version, "1.0");
  device->compute_units = units;
  device->clock_mhz = clock_mhz;
}

/* Keeps peaks of fp32 GFLOP/s and read GB/s for device, as a
 * measurement would. */
static void keep_peaks(const ck_device *device, double fp32, double read) {
  ck_peak peak;
  memset(&peak, 0, sizeof peak);
  snprintf(peak.device_id, sizeof peak.device_id, "%s", device->id);
  snprintf(peak.device_name, sizeof peak.device_name, "%s", device->name);
  snprintf(peak.clkit_version, sizeof peak.clkit_version, "%s",
           CK_VERSION_STRING);
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    peak.values[m].state = CK_PEAK_NOT_APPLICABLE;
    peak.values[m].value = NAN;
    snprintf(peak.values[m].reason, sizeof peak.values[m].reason, "test");
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w)
      peak.values[m].widths[w] = NAN;
  }
  peak.values[CK_PEAK_FP32].state = CK_PEAK_MEASURED;
  peak.values[CK_PEAK_FP32].value = fp32;
  peak.values[CK_PEAK_FP32].reason[0] = '\0';
  peak.values[CK_PEAK_READ].state = CK_PEAK_MEASURED;
  peak.values[CK_PEAK_READ].value = read;
  peak.values[CK_PEAK_READ].reason[0] = '\0';
  if (!isfinite(fp32)) {
    peak.values[CK_PEAK_FP32].state = CK_PEAK_FAILED;
    snprintf(peak.values[CK_PEAK_FP32].reason,
             sizeof peak.values[CK_PEAK_FP32].reason, "test failure");
  }
  CHECK_OK(ck__peak_store_version(device, CK_VERSION_STRING, &peak));
}

static size_t chosen(ck_device *devices, size_t count, int *by_peaks) {
  ck_device_set set = {0};
  set.devices = devices;
  set.count = count;
  size_t index = 99, indices[4] = {0}, matched = 0;
  *by_peaks = -1;
  CHECK_OK(ck_device_choose_default(&set, &index, by_peaks));
  /* ck_device_select's default is the same device. */
  CHECK_OK(ck_device_select(&set, NULL, indices, 4, &matched));
  CHECK(matched == 1 && indices[0] == index);
  return index;
}

static void check_default_by_peaks(void) {
  ck_device devices[4];
  int by_peaks = 0;
  size_t removed = 0;
  CHECK_OK(ck_cache_clear(&removed));
  make_device(&devices[0], "ref", CK_BACKEND_REF, CK_KIND_HOST, "ref", 1, 0);
  make_device(&devices[1], "ocl:0.0", CK_BACKEND_OPENCL, CK_KIND_CPU, "big cpu",
              64, 3000);
  make_device(&devices[2], "ocl:1.0", CK_BACKEND_OPENCL, CK_KIND_CPU,
              "small cpu", 2, 2000);
  /* Nothing measured: units x clock, the bigger CPU. */
  CHECK(chosen(devices, 3, &by_peaks) == 1 && by_peaks == 0);
  /* Peaks of one device only: the rule stays, since one measured device
   * cannot be weighed against one that is not. */
  keep_peaks(&devices[2], 500, 50);
  CHECK(chosen(devices, 3, &by_peaks) == 1 && by_peaks == 0);
  /* Both measured: the faster by its peaks, though smaller in units x
   * clock. ref needs no peaks and never outranks them. */
  keep_peaks(&devices[1], 100, 20);
  CHECK(chosen(devices, 3, &by_peaks) == 2 && by_peaks == 1);
  keep_peaks(&devices[0], 1e6, 1e6);
  CHECK(chosen(devices, 3, &by_peaks) == 2 && by_peaks == 1);
  /* The score weighs both: more flops but far less bandwidth loses. */
  keep_peaks(&devices[1], 1000, 10); /* sqrt(1e4) = 100 < sqrt(25000) */
  CHECK(chosen(devices, 3, &by_peaks) == 2 && by_peaks == 1);
  keep_peaks(&devices[1], 1000, 40); /* sqrt(4e4) = 200 > 158 */
  CHECK(chosen(devices, 3, &by_peaks) == 1 && by_peaks == 1);
  /* Peaks whose fp32 failed count as none. */
  keep_peaks(&devices[2], NAN, 50);
  CHECK(chosen(devices, 3, &by_peaks) == 1 && by_peaks == 0);
  /* Peaks of another driver are not this one's. */
  keep_peaks(&devices[2], 5000, 50);
  CHECK(chosen(devices, 3, &by_peaks) == 2 && by_peaks == 1);
  snprintf(devices[2].driver_version, sizeof devices[2].driver_version, "2.0");
  CHECK(chosen(devices, 3, &by_peaks) == 1 && by_peaks == 0);
  snprintf(devices[2].driver_version, sizeof devices[2].driver_version, "1.0");

  /* A GPU seen through CUDA and OpenCL counts once, as CUDA: its OpenCL
   * twin needs no peaks, and scores nothing above it. */
  make_device(&devices[3], "cuda:0", CK_BACKEND_CUDA, CK_KIND_GPU, "a gpu", 100,
              1500);
  make_device(&devices[1], "ocl:0.0", CK_BACKEND_OPENCL, CK_KIND_GPU, "a gpu",
              100, 1500);
  CHECK(chosen(devices, 4, &by_peaks) == 3 && by_peaks == 0);
  keep_peaks(&devices[3], 4000, 1000);
  CHECK(chosen(devices, 4, &by_peaks) == 3 && by_peaks == 1);
  keep_peaks(&devices[1], 8000, 2000);
  CHECK(chosen(devices, 4, &by_peaks) == 3 && by_peaks == 1);
  /* ... but a faster device of another kind wins on its peaks. */
  keep_peaks(&devices[2], 100000, 1000);
  CHECK(chosen(devices, 4, &by_peaks) == 2 && by_peaks == 1);

  /* The cache counts the peaks it keeps apart, and clear deletes them. */
  ck_cache_stats stats;
  CHECK_OK(ck_cache_query(&stats));
  CHECK_MSG(stats.peaks == 5 && stats.entries >= stats.peaks,
            "%zu peaks of %zu entries", stats.peaks, stats.entries);
  CHECK_OK(ck_cache_clear(&removed));
  CHECK(removed == 5);
  CHECK(chosen(devices, 4, &by_peaks) == 3 && by_peaks == 0);
}

/* Without peaks, a kind where a device reports no clock compares units
 * alone: a missing clock is not taken as any number. */
static void check_default_without_clock(void) {
  ck_device devices[4];
  int by_peaks = 0;
  make_device(&devices[0], "ref", CK_BACKEND_REF, CK_KIND_HOST, "ref", 1, 0);
  make_device(&devices[1], "ocl:0.0", CK_BACKEND_OPENCL, CK_KIND_CPU, "clocked",
              4, 2000);
  make_device(&devices[2], "ocl:1.0", CK_BACKEND_OPENCL, CK_KIND_CPU,
              "no clock", 8, 0);
  CHECK(chosen(devices, 3, &by_peaks) == 2 && by_peaks == 0);
  /* The kind still comes first: a GPU without a clock over both CPUs. */
  make_device(&devices[3], "ocl:2.0", CK_BACKEND_OPENCL, CK_KIND_GPU, "gpu", 1,
              0);
  CHECK(chosen(devices, 4, &by_peaks) == 3 && by_peaks == 0);
  /* Alone in its kind, a device without a clock scores its units. */
  double score = 0, clocked = 0;
  CHECK_OK(ck_device_rank(&devices[2], &score));
  CHECK_OK(ck_device_rank(&devices[1], &clocked));
  CHECK(score > 0 && clocked > score);
}

int main(void) {
  char root[1024], cache[1100];
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/clkit-test-peak-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(root)) {
    fprintf(stderr, "cannot create a temporary directory %s: %s\n", root,
            strerror(errno));
    return 1;
  }
  snprintf(cache, sizeof cache, "%s/cache", root);
  setenv("CLKIT_CACHE_DIR", cache, 1);
  unsetenv("CLKIT_CACHE");
  unsetenv("CLKIT_KERNEL_DIR");

  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  check_options(&set.devices[0]);
  check_ref(&set.devices[0]);
  long opencl = test_opencl_device(&set);
  if (opencl >= 0) {
    check_opencl(&set.devices[opencl]);
    check_build_failure(&set.devices[opencl], root);
  }
  ck_device_set_free(&set);
  check_default_by_peaks();
  check_default_without_clock();
  remove_tree(root);
  return CHECK_DONE();
}
