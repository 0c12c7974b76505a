/*
 * clkit/peak.h - a device's peaks, measured: global memory bandwidth,
 * multiply-add rates, kernel launch latency and host transfers, as clpeak
 * measures them (docs/peak.md).
 *
 * ck_peak_measure() runs cl/peak.cl's kernels through the device's queue
 * (on ref, the same loops in plain C) and keeps the result in clkit's
 * cache (clkit/cache.h). ck_peak_load() reads it back without measuring:
 * for showing a run's share of its device's peak, and for choosing the
 * default device (ck_device_select()).
 *
 * A cache entry is keyed by the device (its backend, name, vendor,
 * platform and version, driver version, compute units and memory), the
 * host's name and clkit's version: another driver or clkit finds none.
 * Devices of one model on one host share an entry.
 */
#ifndef CLKIT_PEAK_H
#define CLKIT_PEAK_H

#include "clkit/device.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What is measured; ck_peak_describe() gives each a name and a unit. */
typedef enum ck_peak_metric {
  CK_PEAK_READ = 0,   /* global memory read, GB/s */
  CK_PEAK_WRITE = 1,  /* global memory write, GB/s */
  CK_PEAK_COPY = 2,   /* global memory copy, GB/s of bytes read and written */
  CK_PEAK_FP32 = 3,   /* single-precision multiply-adds, GFLOP/s (2 each) */
  CK_PEAK_FP64 = 4,   /* double-precision multiply-adds, GFLOP/s */
  CK_PEAK_LAUNCH = 5, /* an empty kernel's launch to its end, microseconds */
  CK_PEAK_HOST_TO_DEVICE = 6, /* blocking writes from pageable memory, GB/s */
  CK_PEAK_DEVICE_TO_HOST = 7, /* blocking reads into pageable memory, GB/s */
  CK_PEAK_HOST_TO_DEVICE_PINNED = 8, /* the same from page-locked memory */
  CK_PEAK_DEVICE_TO_HOST_PINNED = 9,
  /* fp32's and fp64's multiply-adds as one dependent chain a work-item,
   * as clpeak's kernels run them, GFLOP/s: on CPUs, their wait. */
  CK_PEAK_FP32_CHAIN = 10,
  CK_PEAK_FP64_CHAIN = 11,
  CK_PEAK_METRIC_COUNT = 12
} ck_peak_metric;

typedef enum ck_peak_state {
  CK_PEAK_MEASURED = 0,
  CK_PEAK_FAILED = 1,         /* reason says why */
  CK_PEAK_NOT_APPLICABLE = 2, /* reason says why: transfers on ref, ... */
  CK_PEAK_NOT_ASKED = 3       /* left out of ck_peak_options.metrics */
} ck_peak_state;

/* Vector widths measured: 1 << i lanes for i below CK_PEAK_WIDTHS, from
 * scalars to 16 lanes (float16, double16). */
#define CK_PEAK_WIDTHS 5

typedef struct ck_peak_value {
  ck_peak_state state;
  /* In the metric's unit: the best width's median run. NaN unless
   * state is CK_PEAK_MEASURED: never read a value without its state. */
  double value;
  /* Lanes of the width that gave value (1 to 16); 0 where widths do not
   * apply (launch, transfers, ref). */
  unsigned width;
  /* Each width's value (widths[i] for 1 << i lanes); NaN for a width
   * not measured (CUDA has no 8- or 16-lane vectors) or not applicable. */
  double widths[CK_PEAK_WIDTHS];
  /* What a run of the best width did: bytes moved for bandwidth and
   * transfers (a copy counts bytes read and written), multiply-adds for
   * fp32 and fp64, one kernel for launch. */
  unsigned long long size;
  unsigned runs;    /* timed runs; value comes from their median */
  double seconds;   /* the median run's seconds */
  char reason[256]; /* why not measured; "" when measured */
} ck_peak_value;

typedef struct ck_peak {
  /* The device measured and where. device_id is the id it had then (ids
   * may change as devices come and go: the cache key does not use it). */
  char device_id[32];
  char device_name[256];
  char platform[256];
  char platform_version[256];
  char driver_version[128];
  char clkit_version[32];
  char host[256];
  long long measured_at; /* seconds since 1970-01-01 UTC */
  double duration_s;     /* wall time of the whole measurement */
  int from_cache;        /* 1 when ck_peak_load() read it */
  int stored;            /* 1 when ck_peak_measure() kept it in the cache */
  ck_peak_value values[CK_PEAK_METRIC_COUNT]; /* by ck_peak_metric */
} ck_peak;

typedef struct ck_peak_options {
  /* The largest buffer of bandwidth and transfers, in bytes: 0 lets
   * clkit choose (docs/peak.md), else at least 1 MiB. Smaller buffers
   * may fit in a cache and measure it instead of memory. */
  unsigned long long max_bytes;
  /* Each measure's timed runs last at least this long in all; a
   * multiply-add run grows until it lasts seconds / runs. Default 0.05;
   * 0 takes the fewest runs at the smallest sizes (for tests). */
  double seconds;
  unsigned runs;    /* at least this many timed runs, 1 to 1000; default 5 */
  unsigned metrics; /* bit 1u << metric for each measured; default all */
  /* 1 (the default): ck_peak_measure() keeps a measurement of every
   * metric in the cache; one of fewer is never kept. */
  int store;
} ck_peak_options;

/* All metrics, for ck_peak_options.metrics. */
#define CK_PEAK_ALL_METRICS ((1u << CK_PEAK_METRIC_COUNT) - 1u)

/* ck_peak_options_init - the defaults above. Takes: options (filled in).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL options. */
ck_status ck_peak_options_init(ck_peak_options *options);

/*
 * ck_peak_measure - measure a device's peaks (a few seconds; docs/peak.md
 * gives each method) and, where options->store and the cache allow,
 * keep them in the cache for ck_peak_load().
 * Takes: device (read during the call); options (NULL for the defaults);
 * peak (filled in, owned by the caller).
 * Returns: CK_OK once peak is filled in, with a metric that failed or
 * does not apply marked so in its state and reason (a cache that cannot
 * be written leaves peak->stored 0); CK_ERROR_INVALID_ARGUMENT for a NULL
 * device or peak, or options out of range; CK_ERROR_OUT_OF_MEMORY; device
 * errors when no queue can be made on the device.
 */
ck_status ck_peak_measure(const ck_device *device,
                          const ck_peak_options *options, ck_peak *peak);

/*
 * ck_peak_load - the peaks the cache keeps for a device, without
 * measuring.
 * Takes: device (read during the call); peak (filled in, from_cache 1).
 * Returns: CK_OK; CK_ERROR_NOT_FOUND when none is kept for this device,
 * driver, host and clkit version (or the cache is off, or its entry is
 * damaged), with a message naming `clkit peak`; CK_ERROR_INVALID_ARGUMENT
 * for a NULL argument.
 */
ck_status ck_peak_load(const ck_device *device, ck_peak *peak);

/*
 * ck_peak_describe - a metric's name ("read", "fp32", "launch",
 * "host_to_device_pinned", ...; the keys of `clkit peak --json`) and unit
 * ("GB/s", "GFLOP/s" or "us"), both static strings. Either may be NULL.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a metric out of range.
 */
ck_status ck_peak_describe(ck_peak_metric metric, const char **name,
                           const char **unit);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_PEAK_H */
