/*
 * device.c - device enumeration (ref, CUDA and OpenCL), the default-device
 * ranking, selector resolution, and the per-device build options.
 */
#include <CL/cl.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/queue_internal.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

static const char no_platform_hint[] =
    "no OpenCL platform found: install an OpenCL driver (for CPUs, Debian "
    "and Ubuntu's pocl-opencl-icd; for GPUs, the vendor's driver) and check "
    "that /etc/OpenCL/vendors (or $OCL_ICD_VENDORS) lists it. The ref "
    "device still works.";

static void fill_ref(ck_device *device) {
  memset(device, 0, sizeof *device);
  snprintf(device->id, sizeof device->id, "ref");
  device->backend = CK_BACKEND_REF;
  device->kind = CK_KIND_HOST;
  snprintf(device->name, sizeof device->name,
           "reference (serial C on the host)");
  snprintf(device->vendor, sizeof device->vendor, "clkit");
  snprintf(device->platform, sizeof device->platform, "host");
  snprintf(device->platform_version, sizeof device->platform_version,
           "clkit %s", CK_VERSION_STRING);
  snprintf(device->driver_version, sizeof device->driver_version, "%s",
           CK_VERSION_STRING);
  snprintf(device->c_version, sizeof device->c_version, "C11");
  device->compute_units = 1;
  device->global_memory = ck__host_memory();
  device->max_alloc = device->global_memory;
  device->max_work_group_size = 1;
  device->has_fp64 = 1;
  device->warp_width = 1;
  device->platform_index = -1;
  device->device_index = -1;
}

static int contains_ignoring_case(const char *haystack, const char *needle) {
  size_t length = strlen(needle);
  if (length == 0)
    return 0;
  for (; *haystack; ++haystack) {
    size_t i = 0;
    while (i < length && haystack[i] &&
           tolower((unsigned char)haystack[i]) ==
               tolower((unsigned char)needle[i]))
      ++i;
    if (i == length)
      return 1;
  }
  return 0;
}

/* Reads a string property; an error leaves "" rather than failing the list. */
static void device_string(cl_device_id device, cl_device_info what, char *out,
                          size_t capacity) {
  out[0] = '\0';
  if (clGetDeviceInfo(device, what, capacity, out, NULL) != CL_SUCCESS)
    out[0] = '\0';
  out[capacity - 1] = '\0';
  /* Some drivers pad their strings (NVIDIA: "OpenCL C 1.2 "). */
  size_t length = strlen(out);
  while (length && isspace((unsigned char)out[length - 1]))
    out[--length] = '\0';
}

static void fill_opencl(ck_device *device, cl_platform_id platform,
                        cl_device_id handle, int platform_index,
                        int device_index, const char *platform_name,
                        const char *platform_version) {
  memset(device, 0, sizeof *device);
  snprintf(device->id, sizeof device->id, "ocl:%d.%d", platform_index,
           device_index);
  device->backend = CK_BACKEND_OPENCL;
  device->platform_index = platform_index;
  device->device_index = device_index;
  device->platform_handle = platform;
  device->device_handle = handle;
  snprintf(device->platform, sizeof device->platform, "%s", platform_name);
  snprintf(device->platform_version, sizeof device->platform_version, "%s",
           platform_version);
  device_string(handle, CL_DEVICE_NAME, device->name, sizeof device->name);
  device_string(handle, CL_DEVICE_VENDOR, device->vendor,
                sizeof device->vendor);
  device_string(handle, CL_DRIVER_VERSION, device->driver_version,
                sizeof device->driver_version);
  device_string(handle, CL_DEVICE_OPENCL_C_VERSION, device->c_version,
                sizeof device->c_version);
  cl_device_type type = 0;
  cl_uint units = 0, clock = 0;
  cl_ulong global = 0, local = 0, max_alloc = 0;
  cl_device_fp_config fp64 = 0;
  size_t group = 0;
  clGetDeviceInfo(handle, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  clGetDeviceInfo(handle, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                  NULL);
  clGetDeviceInfo(handle, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock,
                  NULL);
  clGetDeviceInfo(handle, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global,
                  NULL);
  clGetDeviceInfo(handle, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  clGetDeviceInfo(handle, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                  &max_alloc, NULL);
  clGetDeviceInfo(handle, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof group, &group,
                  NULL);
  if (clGetDeviceInfo(handle, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64,
                      NULL) != CL_SUCCESS)
    fp64 = 0;
  if (type & CL_DEVICE_TYPE_GPU)
    device->kind = CK_KIND_GPU;
  else if (type & CL_DEVICE_TYPE_CPU)
    device->kind = CK_KIND_CPU;
  else if (type & CL_DEVICE_TYPE_ACCELERATOR)
    device->kind = CK_KIND_ACCELERATOR;
  else
    device->kind = CK_KIND_OTHER;
  device->compute_units = units;
  device->clock_mhz = clock;
  device->global_memory = global;
  device->local_memory = local;
  device->local_memory_opt_in = local;
  device->max_alloc = max_alloc;
  device->max_work_group_size = group;
  device->has_fp64 = fp64 != 0;
  /* Lockstep width kernels may tune for; 1 means "assume none". */
  device->warp_width = 1;
  if (device->kind == CK_KIND_GPU) {
    if (contains_ignoring_case(device->vendor, "nvidia"))
      device->warp_width = 32;
    else if (contains_ignoring_case(device->vendor, "advanced micro") ||
             contains_ignoring_case(device->vendor, "amd"))
      device->warp_width = 64;
  }
}

static ck_status push_device(ck_device_set *set, size_t *capacity,
                             const ck_device *device) {
  if (set->count == *capacity) {
    size_t grown_capacity = *capacity ? 2 * *capacity : 8;
    ck_device *grown =
        realloc(set->devices, grown_capacity * sizeof *set->devices);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory listing devices");
    set->devices = grown;
    *capacity = grown_capacity;
  }
  set->devices[set->count++] = *device;
  return CK_OK;
}

static void note_opencl(ck_device_set *set, ck_status status,
                        const char *message) {
  set->opencl_status = status;
  snprintf(set->opencl_message, sizeof set->opencl_message, "%s", message);
}

static ck_status add_cuda_devices(ck_device_set *set, size_t *capacity) {
#if CK_HAVE_CUDA
  ck_device found[16];
  size_t count = 0;
  set->cuda_status =
      ck__cuda_enumerate(found, sizeof found / sizeof found[0], &count,
                         set->cuda_message, sizeof set->cuda_message);
  for (size_t i = 0; i < count; ++i) {
    ck_status status = push_device(set, capacity, &found[i]);
    if (status != CK_OK)
      return status;
  }
#else
  (void)capacity;
  set->cuda_status = CK_ERROR_UNSUPPORTED;
  snprintf(set->cuda_message, sizeof set->cuda_message,
           "this clkit was built without CUDA (meson option cuda)");
#endif
  return CK_OK;
}

ck_status ck_device_enumerate(ck_device_set *set) {
  ck_status status = CK_OK;
  cl_platform_id *platforms = NULL;
  cl_device_id *devices = NULL;
  size_t capacity = 0;
  ck_device device;
  if (!set)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_device_enumerate: NULL set");
  memset(set, 0, sizeof *set);
  fill_ref(&device);
  CK_TRY(push_device(set, &capacity, &device));
  CK_TRY(add_cuda_devices(set, &capacity));
  size_t before_opencl = set->count;

  cl_uint platform_count = 0;
  cl_int code = clGetPlatformIDs(0, NULL, &platform_count);
  if (code == CL_PLATFORM_NOT_FOUND_KHR ||
      (code == CL_SUCCESS && platform_count == 0)) {
    note_opencl(set, CK_ERROR_NO_PLATFORM, no_platform_hint);
    return CK_OK;
  }
  if (code != CL_SUCCESS) {
    char message[256];
    snprintf(message, sizeof message,
             "the OpenCL loader failed to list platforms: %s (%d)",
             ck__opencl_error_name(code), (int)code);
    note_opencl(set, CK_ERROR_DEVICE, message);
    return CK_OK;
  }
  platforms = calloc(platform_count, sizeof *platforms);
  if (!platforms)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory listing platforms");
  code = clGetPlatformIDs(platform_count, platforms, NULL);
  if (code != CL_SUCCESS) {
    note_opencl(set, CK_ERROR_DEVICE,
                "the OpenCL loader failed to list platforms");
    goto fail;
  }
  for (cl_uint p = 0; p < platform_count; ++p) {
    char platform_name[256] = "", platform_version[256] = "";
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof platform_name,
                      platform_name, NULL);
    clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION,
                      sizeof platform_version, platform_version, NULL);
    platform_name[sizeof platform_name - 1] = '\0';
    platform_version[sizeof platform_version - 1] = '\0';
    cl_uint device_count = 0;
    code = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL,
                          &device_count);
    if (code != CL_SUCCESS || device_count == 0)
      continue; /* a platform with no devices is not an error */
    devices = calloc(device_count, sizeof *devices);
    if (!devices)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory listing devices");
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, device_count, devices,
                       NULL) == CL_SUCCESS) {
      for (cl_uint d = 0; d < device_count; ++d) {
        fill_opencl(&device, platforms[p], devices[d], (int)p, (int)d,
                    platform_name, platform_version);
        CK_TRY(push_device(set, &capacity, &device));
      }
    }
    free(devices);
    devices = NULL;
  }
  if (set->count == before_opencl)
    note_opencl(set, CK_ERROR_NO_PLATFORM,
                "OpenCL platforms exist but offer no devices; the ref device "
                "still works.");
fail:
  /* Also the way out with CK_OK (a loader's failure is noted in the set,
   * not returned): the set is dropped only when status is a failure. */
  free(platforms);
  free(devices);
  if (status != CK_OK)
    ck_device_set_free(set);
  return status;
}

ck_status ck_device_set_free(ck_device_set *set) {
  if (!set)
    return CK_OK;
  free(set->devices);
  set->devices = NULL;
  set->count = 0;
  return CK_OK;
}

ck_status ck_device_rank(const ck_device *device, double *score) {
  static const double kind_weight[] = {0, 2, 4, 3, 1};
  CK__REQUIRE(device);
  CK__REQUIRE(score);
  double weight = (unsigned)device->kind < 5 ? kind_weight[device->kind] : 0;
  double clock = device->clock_mhz ? device->clock_mhz : 1;
  /* The kind dominates: units times clock stays far below 1e12. A GPU
   * seen through both CUDA and OpenCL ranks first as CUDA, its native
   * backend. */
  *score = weight * 1e12 + (double)device->compute_units * clock +
           (device->backend == CK_BACKEND_CUDA ? 0.5 : 0);
  return CK_OK;
}

ck_status ck_device_get_kind_name(ck_device_kind kind, const char **name) {
  static const char *const names[] = {"host", "cpu", "gpu", "accelerator",
                                      "other"};
  if (!name)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_device_get_kind_name: NULL name");
  *name = (unsigned)kind < 5 ? names[kind] : "other";
  return CK_OK;
}

/* Does one selector term match this device? */
static int term_matches(const char *term, const ck_device *device) {
  if (strcasecmp(term, "all") == 0)
    return 1;
  if (strcasecmp(term, device->id) == 0)
    return 1;
  if (strcasecmp(term, "gpu") == 0)
    return device->kind == CK_KIND_GPU;
  if (strcasecmp(term, "cpu") == 0)
    return device->kind == CK_KIND_CPU;
  if (strcasecmp(term, "accelerator") == 0)
    return device->kind == CK_KIND_ACCELERATOR;
  if (strcasecmp(term, "ref") == 0)
    return device->backend == CK_BACKEND_REF;
  if (strcasecmp(term, "cuda") == 0)
    return device->backend == CK_BACKEND_CUDA;
  if (strcasecmp(term, "opencl") == 0)
    return device->backend == CK_BACKEND_OPENCL;
  /* "ocl:P" names a whole platform; P is digits only (strtol alone would
   * take "ocl: 0" and "ocl:+0"). */
  if (strncasecmp(term, "ocl:", 4) == 0) {
    char *end = NULL;
    long platform = strtol(term + 4, &end, 10);
    return isdigit((unsigned char)term[4]) && *end == '\0' &&
           device->backend == CK_BACKEND_OPENCL &&
           device->platform_index == platform;
  }
  if (device->backend == CK_BACKEND_REF)
    return 0; /* ref is chosen by name only, never by a substring */
  return contains_ignoring_case(device->vendor, term) ||
         contains_ignoring_case(device->platform, term) ||
         contains_ignoring_case(device->platform_version, term) ||
         contains_ignoring_case(device->name, term);
}

static ck_status no_match(const ck_device_set *set, const char *term) {
  ck__fail(CK_ERROR_NOT_FOUND,
           "device selector '%s' matches no device. Devices here:", term);
  for (size_t i = 0; i < set->count; ++i)
    ck__fail_append("\n  %-10s %s (%s)", set->devices[i].id,
                    set->devices[i].name, set->devices[i].platform);
  if (set->opencl_status != CK_OK)
    ck__fail_append("\n%s", set->opencl_message);
  if (set->cuda_message[0] && strncasecmp(term, "cuda", 4) == 0)
    ck__fail_append("\n%s", set->cuda_message);
  return CK_ERROR_NOT_FOUND;
}

ck_status ck_device_select(const ck_device_set *set, const char *selector,
                           size_t *indices, size_t capacity, size_t *count) {
  CK__REQUIRE(set);
  CK__REQUIRE(indices);
  CK__REQUIRE(count);
  if (set->count == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_device_select: set has no devices");
  *count = 0;
  if (!selector)
    selector = "";
  char terms[64][256];
  size_t term_count = 0;
  /* Split and check every term before matching any, so that a malformed
   * selector is reported as such wherever its fault lies. */
  for (const char *at = selector;;) {
    const char *end = strchr(at, ',');
    size_t length = end ? (size_t)(end - at) : strlen(at);
    while (length && isspace((unsigned char)*at))
      ++at, --length;
    while (length && isspace((unsigned char)at[length - 1]))
      --length;
    int only = !end && term_count == 0;
    if ((length == 0 && !only) || length >= sizeof terms[0] ||
        term_count == sizeof terms / sizeof terms[0])
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "device selector '%s' has an empty or overlong term",
                      selector);
    memcpy(terms[term_count], at, length);
    terms[term_count++][length] = '\0';
    if (!end)
      break;
    at = end + 1;
  }
  for (size_t t = 0; t < term_count; ++t) {
    const char *term = terms[t];
    if (*term == '\0' || strcasecmp(term, "default") == 0) {
      size_t best = 0;
      double best_score = -1;
      for (size_t i = 0; i < set->count; ++i) {
        double score = 0;
        ck_device_rank(&set->devices[i], &score);
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      int seen = 0;
      for (size_t k = 0; k < *count; ++k)
        seen |= indices[k] == best;
      if (!seen) {
        if (*count == capacity)
          return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                          "device selector '%s' matches more than %zu devices",
                          selector, capacity);
        indices[(*count)++] = best;
      }
      continue;
    }
    int matched = 0;
    for (size_t i = 0; i < set->count; ++i) {
      if (!term_matches(term, &set->devices[i]))
        continue;
      matched = 1;
      int seen = 0;
      for (size_t k = 0; k < *count; ++k)
        seen |= indices[k] == i;
      if (seen)
        continue;
      if (*count == capacity)
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "device selector '%s' matches more than %zu devices",
                        selector, capacity);
      indices[(*count)++] = i;
    }
    if (!matched)
      return no_match(set, term);
  }
  return CK_OK;
}

int ck__device_pocl_major(const ck_device *device) {
  const char *pocl = device && device->backend == CK_BACKEND_OPENCL
                         ? strstr(device->platform_version, "PoCL ")
                         : NULL;
  return pocl ? atoi(pocl + 5) : 0;
}

int ck__device_caches_builds(const ck_device *device) {
  const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
  return ck__device_pocl_major(device) > 0 &&
         !(pocl_cache && strcmp(pocl_cache, "0") == 0);
}

const char *ck__device_exact_divide_sqrt_option(const ck_device *device) {
  cl_device_fp_config single = 0;
  if (!device || device->backend != CK_BACKEND_OPENCL ||
      !device->device_handle ||
      clGetDeviceInfo((cl_device_id)device->device_handle,
                      CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single,
                      NULL) != CL_SUCCESS)
    return "";
  return (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
             ? "-cl-fp32-correctly-rounded-divide-sqrt"
             : "";
}

ck_status ck__device_build_options(const ck_device *device, char *options,
                                   size_t capacity) {
  /* OpenCL C 1.2 is what every target offers (NVIDIA's included). */
  int has_c12 = strstr(device->c_version, "OpenCL C 1.0") == NULL &&
                strstr(device->c_version, "OpenCL C 1.1") == NULL;
  /* PoCL's compiler writes the count of a build's warnings (a loop it
   * could not unroll as asked, say) to the process's stderr, past the
   * caller: CPU builds inhibit warnings (-w, a standard option). Errors
   * still reach the build log. */
  int inhibit_warnings =
      device->backend == CK_BACKEND_OPENCL && device->kind == CK_KIND_CPU;
  int written = snprintf(
      options, capacity,
      "%s%s-DCK_DEVICE_GPU=%d -DCK_DEVICE_CPU=%d -DCK_DEVICE_NVIDIA=%d "
      "-DCK_HAS_FP64=%d -DCK_WARP_WIDTH=%u -DCK_MAX_WORK_GROUP=%zu "
      "-DCK_LOCAL_MEMORY=%llu",
      has_c12 ? "-cl-std=CL1.2 " : "", inhibit_warnings ? "-w " : "",
      device->kind == CK_KIND_GPU, device->kind == CK_KIND_CPU,
      device->kind == CK_KIND_GPU && strstr(device->vendor, "NVIDIA") != NULL,
      device->has_fp64 ? 1 : 0, device->warp_width, device->max_work_group_size,
      device->local_memory);
  if (written < 0 || (size_t)written >= capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "build options overflow");
  return CK_OK;
}

ck_status ck__device_memory_check(const ck_device *device, double bytes) {
  if (ck__memory_exceeded(bytes, device->global_memory))
    return ck__fail(CK_ERROR_DEVICE_MEMORY,
                    "about %.3g GB; device %s has %.3g GB", bytes * 1e-9,
                    device->id, (double)device->global_memory * 1e-9);
  return CK_OK;
}

int ck__memory_exceeded(double bytes, unsigned long long memory) {
  return memory > 0 && bytes > 0.9 * (double)memory;
}

unsigned long long ck__host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0
             ? (unsigned long long)pages * (unsigned long long)page_size
             : 0;
}
