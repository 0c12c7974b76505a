/*
 * clkit/device.h - finding devices and choosing them by selector.
 *
 * A device is the host reference backend ("ref"), an OpenCL device
 * ("ocl:P.D", platform P, device D) or, where built, a CUDA device
 * ("cuda:N"). ck_device_enumerate() lists them all; ck_device_select()
 * resolves a selector string against that list.
 */
#ifndef CLKIT_DEVICE_H
#define CLKIT_DEVICE_H

#include <stddef.h>

#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ck_backend {
  CK_BACKEND_REF = 0,    /* plain serial C on the host */
  CK_BACKEND_OPENCL = 1, /* an OpenCL device */
  CK_BACKEND_CUDA = 2    /* a native CUDA device */
} ck_backend;

typedef enum ck_device_kind {
  CK_KIND_HOST = 0, /* the ref backend */
  CK_KIND_CPU = 1,
  CK_KIND_GPU = 2,
  CK_KIND_ACCELERATOR = 3,
  CK_KIND_OTHER = 4
} ck_device_kind;

typedef struct ck_device {
  char id[32]; /* "ref", "ocl:0.1", "cuda:0" */
  ck_backend backend;
  ck_device_kind kind;
  char name[256];
  char vendor[256];
  char platform[256];         /* platform name */
  char platform_version[256]; /* e.g. "OpenCL 3.0 CUDA 13.0.84" */
  char driver_version[128];
  char c_version[128]; /* OpenCL C version, e.g. "OpenCL C 1.2" */
  unsigned compute_units;
  unsigned clock_mhz;
  unsigned long long global_memory; /* bytes */
  unsigned long long local_memory;  /* bytes per work-group */
  /* Bytes per work-group a native kernel may opt into: on CUDA the
   * dynamic shared memory above the 48 KB a kernel may declare (227 KB on
   * an H100); elsewhere the same as local_memory. */
  unsigned long long local_memory_opt_in;
  unsigned long long max_alloc; /* largest single buffer, bytes */
  size_t max_work_group_size;
  int has_fp64;
  unsigned warp_width; /* SIMD width kernels may assume: 32 on NVIDIA */
  int platform_index, device_index;
  void *platform_handle; /* backend handles, owned by clkit */
  void *device_handle;
  /* 0, or the session the device came from (clkit/session.h): queues made
   * on it, or on a copy of it, come from that session. */
  unsigned long long session;
} ck_device;

typedef struct ck_device_set {
  ck_device *devices; /* devices[0] is always "ref" */
  size_t count;
  /* CK_OK, or why no OpenCL device is listed (CK_ERROR_NO_PLATFORM, ...) */
  ck_status opencl_status;
  char opencl_message[512]; /* a hint for the user when opencl_status != 0 */
  /* CK_OK, or why no CUDA device is listed: CK_ERROR_UNSUPPORTED when
   * clkit was built without CUDA or can make code for none of the GPUs,
   * CK_ERROR_NO_PLATFORM when the driver or a device is missing. */
  ck_status cuda_status;
  /* Why, when cuda_status is not CK_OK; with CK_OK, the GPUs left out as
   * older than what this clkit can make code for, or "" when none is. */
  char cuda_message[512];
} ck_device_set;

/*
 * ck_device_enumerate - list every device.
 * Takes: set, filled in; release it with ck_device_set_free(). Other
 * calls copy a device they are given (or read it during the call only),
 * so the set may be freed while their objects live; backend handles stay
 * owned by clkit.
 * Returns: CK_OK even when OpenCL is absent: "ref" is always listed and
 * set->opencl_status says why OpenCL devices are missing, and
 * set->cuda_status why CUDA devices are. CUDA devices (cuda:N) come
 * before the OpenCL ones.
 * CK_ERROR_INVALID_ARGUMENT if set is NULL; CK_ERROR_OUT_OF_MEMORY if the
 * list cannot be allocated (set is then left empty); CK_ERROR_UNSUPPORTED
 * in a process forked after it called into OpenCL (clkit/queue.h).
 */
ck_status ck_device_enumerate(ck_device_set *set);

/*
 * ck_device_set_free - release a list made by ck_device_enumerate();
 * pointers into set->devices are invalid afterwards.
 * Returns: CK_OK. Safe on a zeroed set and on NULL.
 */
ck_status ck_device_set_free(ck_device_set *set);

/*
 * ck_device_select - resolve a selector against a device list.
 * A selector is a comma-separated list of terms; each term is an id
 * ("ref", "ocl:0.1", "cuda:0"), a kind ("gpu", "cpu", "accelerator"), a
 * backend ("cuda", "opencl"), "all", or a case-insensitive substring of
 * vendor, platform or device name. NULL, "" or "default"
 * picks the fastest device (ck_device_choose_default()). "ocl:P" names every
 * device of platform P; "all" names every device, ref included; "ref" is
 * matched by its id only, never by a substring. Matches are returned in
 * term order, each device once, but that an id given again adds its
 * device again ("cuda:0,cuda:0": two members of a gas or GA spread on one
 * GPU).
 * Takes: set, selector, indices (capacity entries), count (set to the
 * number of matches).
 * Returns: CK_OK; CK_ERROR_NOT_FOUND when a term matches nothing (the
 * message lists the devices that exist); CK_ERROR_INVALID_ARGUMENT for a
 * NULL set, indices or count, an empty set, an empty term, a term over
 * 255 bytes or more than 64 terms, or too many matches for capacity.
 */
ck_status ck_device_select(const ck_device_set *set, const char *selector,
                           size_t *indices, size_t capacity, size_t *count);

/*
 * ck_device_choose_default - the device that a selector of "default"
 * (or none) picks: the fastest by measured peaks (clkit/peak.h) where the
 * cache keeps peaks of every device in set but ref, ranked by the
 * geometric mean of FP32 GFLOP/s and read GB/s; else by kind and size
 * (ck_device_rank()), where a kind with a device that reports no clock
 * compares compute units alone. ref comes last unless alone; a GPU listed
 * through CUDA and OpenCL counts once, as its CUDA device; among equals
 * the first listed wins. Nothing is measured: this only reads the cache.
 * Takes: set; index (set to the chosen device's); measured (optional,
 * set to 1 when peaks chose it).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL set or index, or
 * an empty set.
 */
ck_status ck_device_choose_default(const ck_device_set *set, size_t *index,
                                   int *measured);

/*
 * ck_device_rank - a device's score by kind and size, by which the
 * default is chosen where nothing is measured: GPU over accelerator over
 * CPU over other over ref; then compute units times clock in MHz, or
 * units alone for a device that reports no clock (0 MHz); then CUDA over
 * OpenCL. Takes: device and score (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_device_rank(const ck_device *device, double *score);

/*
 * ck_device_get_kind_name - "host", "cpu", "gpu", "accelerator" or "other"
 * (a static string; unknown kinds give "other").
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if name is NULL.
 */
ck_status ck_device_get_kind_name(ck_device_kind kind, const char **name);

typedef struct ck_device_probe_result {
  double cold_build_s;  /* selfcheck program built from source */
  double warm_build_s;  /* the same program loaded from the binary cache
                           (or found in the runtime's own) */
  int warm_from_cache;  /* 1 if the warm build really came from the cache */
  int runtime_cache;    /* 1 if the warm build left clkit's cache to the
                           runtime's own (ck_program_stats) */
  double selfcheck_s;   /* wall time of a small selfcheck run */
  int selfcheck_agrees; /* 1 when its random words and sum match ref */
} ck_device_probe_result;

/*
 * ck_device_probe - build and run the self-check on a device: cold and
 * warm program build times and whether its results match ref.
 * Takes: device, probe (filled in).
 * Returns: CK_OK (a mismatch is reported in probe, not as an error);
 * CK_ERROR_INVALID_ARGUMENT for a NULL argument; any error of the device,
 * of the build or of the self-check run (ck_workload_run()).
 */
ck_status ck_device_probe(const ck_device *device,
                          ck_device_probe_result *probe);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_DEVICE_H */
