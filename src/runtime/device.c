/*
 * device.c - the device list (ref, then each backend's devices, as the
 * backend enumerates them), the default device (by measured peaks, else
 * by kind and size), selector resolution, and the memory check of a run.
 */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/backend.h"

void ck__device_reference(ck_device *device) {
  assert(device);
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

/* Where the devices of each backend go: the set and its allocated size. */
typedef struct device_list {
  ck_device_set *set;
  size_t capacity;
} device_list;

/* Appends a copy of device to the list (user). */
static ck_status push_device(void *user, const ck_device *device) {
  device_list *list = user;
  ck_device_set *set = list->set;
  assert(set && device && set->count <= list->capacity);
  if (set->count == list->capacity) {
    size_t grown_capacity = list->capacity ? 2 * list->capacity : 8;
    ck_device *grown =
        realloc(set->devices, grown_capacity * sizeof *set->devices);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory listing devices");
    set->devices = grown;
    list->capacity = grown_capacity;
  }
  set->devices[set->count++] = *device;
  return CK_OK;
}

static ck_status add_cuda_devices(device_list *list) {
  assert(list && list->set);
  ck_device_set *set = list->set;
#if CK_HAVE_CUDA
  ck_device found[16];
  size_t count = 0;
  set->cuda_status =
      ck__cuda_enumerate(found, sizeof found / sizeof found[0], &count,
                         set->cuda_message, sizeof set->cuda_message);
  for (size_t i = 0; i < count; ++i) {
    ck_status status = push_device(list, &found[i]);
    if (status != CK_OK)
      return status;
  }
#else
  set->cuda_status = CK_ERROR_UNSUPPORTED;
  snprintf(set->cuda_message, sizeof set->cuda_message,
           "this clkit was built without CUDA (meson option cuda)");
#endif
  return CK_OK;
}

/* Lists ref, then CUDA's devices and OpenCL's where asked. */
static ck_status enumerate(ck_device_set *set, int cuda, int opencl) {
  ck_status status = CK_OK;
  ck_device device;
  if (!set)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_device_enumerate: NULL set");
  memset(set, 0, sizeof *set);
  device_list list = {set, 0};
  ck__device_reference(&device);
  CK_TRY(push_device(&list, &device));
  if (cuda)
    CK_TRY(add_cuda_devices(&list));
  /* A loader's failure is noted in the set, not returned: the set is
   * dropped only when status is a failure. */
  if (opencl)
    CK_TRY(ck__opencl_enumerate(push_device, &list, &set->opencl_status,
                                set->opencl_message,
                                sizeof set->opencl_message));
  return CK_OK;
fail:
  ck_device_set_free(set);
  return status;
}

ck_status ck_device_enumerate(ck_device_set *set) {
  return enumerate(set, 1, 1);
}

/* Whether term (length bytes) is "cuda:" or "ocl:" (prefix) and digits
 * and dots after it: an id, or OpenCL's platform, of that backend alone. */
static int names_backend(const char *term, size_t length, const char *prefix) {
  assert(term && prefix);
  size_t at = strlen(prefix);
  if (length <= at || strncasecmp(term, prefix, at) != 0)
    return 0;
  for (; at < length; ++at)
    if (!isdigit((unsigned char)term[at]) && term[at] != '.')
      return 0;
  return 1;
}

ck_status ck__device_enumerate_for(const char *selector, ck_device_set *set) {
  int cuda = 0, opencl = 0;
  const char *at = selector ? selector : "";
  do {
    size_t length = strcspn(at, ",");
    const char *term = at;
    while (length && isspace((unsigned char)*term))
      ++term, --length;
    while (length && isspace((unsigned char)term[length - 1]))
      --length;
    int is_ref = length == 3 && strncasecmp(term, "ref", 3) == 0;
    int only_cuda = (length == 4 && strncasecmp(term, "cuda", 4) == 0) ||
                    names_backend(term, length, "cuda:");
    int only_opencl = (length == 6 && strncasecmp(term, "opencl", 6) == 0) ||
                      names_backend(term, length, "ocl:");
    cuda |= !is_ref && !only_opencl;
    opencl |= !is_ref && !only_cuda;
    at += strcspn(at, ",");
  } while (*at++ == ',');
  return enumerate(set, cuda, opencl);
}

ck_status ck_device_set_free(ck_device_set *set) {
  if (!set)
    return CK_OK;
  free(set->devices);
  set->devices = NULL;
  set->count = 0;
  return CK_OK;
}

/* The score by kind and size: compute units times clock (MHz) where
 * with_clock, else units alone. */
static double kind_score(const ck_device *device, int with_clock) {
  static const double kind_weight[] = {0, 2, 4, 3, 1};
  double weight = (unsigned)device->kind < 5 ? kind_weight[device->kind] : 0;
  double units = (double)device->compute_units;
  double size = with_clock ? units * (double)device->clock_mhz : units;
  /* The kind dominates: units times clock stays far below 1e12. A GPU
   * seen through both CUDA and OpenCL ranks first as CUDA, its native
   * backend. */
  return weight * 1e12 + size + (device->backend == CK_BACKEND_CUDA ? 0.5 : 0);
}

ck_status ck_device_rank(const ck_device *device, double *score) {
  CK__REQUIRE(device);
  CK__REQUIRE(score);
  *score = kind_score(device, device->clock_mhz != 0);
  return CK_OK;
}

/* 1 when every device of the kind in the set reports its clock: a kind
 * where one does not compares units alone, rather than taking a missing
 * clock as any number. */
static int clocks_known(const ck_device_set *set, ck_device_kind kind) {
  for (size_t i = 0; i < set->count; ++i)
    if (set->devices[i].kind == kind && set->devices[i].clock_mhz == 0)
      return 0;
  return 1;
}

/* 1 for an OpenCL device that the set also lists through CUDA (a GPU of
 * the same name): that GPU counts once, as its CUDA device. */
static int cuda_twin(const ck_device_set *set, const ck_device *device) {
  if (device->backend != CK_BACKEND_OPENCL)
    return 0;
  for (size_t i = 0; i < set->count; ++i)
    if (set->devices[i].backend == CK_BACKEND_CUDA &&
        strcmp(set->devices[i].name, device->name) == 0)
      return 1;
  return 0;
}

ck_status ck_device_choose_default(const ck_device_set *set, size_t *index,
                                   int *measured) {
  CK__REQUIRE(set);
  CK__REQUIRE(index);
  if (set->count == 0 || !set->devices)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_device_choose_default: set has no devices");
  /* By measurement, where every device but ref has peaks in the cache:
   * one measured and one not cannot be weighed against each other. */
  size_t best = 0, candidates = 0;
  double best_score = 0;
  int every = 1;
  for (size_t i = 0; i < set->count && every; ++i) {
    const ck_device *device = &set->devices[i];
    if (device->backend == CK_BACKEND_REF || cuda_twin(set, device))
      continue;
    double score = ck__peak_score(device);
    every = score > 0;
    ++candidates;
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  if (measured)
    *measured = every && candidates > 0;
  if (every && candidates > 0) {
    *index = best;
    return CK_OK;
  }
  best_score = -1;
  for (size_t i = 0; i < set->count; ++i) {
    const ck_device *device = &set->devices[i];
    double score = kind_score(device, clocks_known(set, device->kind));
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  *index = best;
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
  assert(term && device);
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
  return ck__text_contains_caseless(device->vendor, term) ||
         ck__text_contains_caseless(device->platform, term) ||
         ck__text_contains_caseless(device->platform_version, term) ||
         ck__text_contains_caseless(device->name, term);
}

static ck_status no_match(const ck_device_set *set, const char *term) {
  assert(set && term);
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
    /* A device named by its id again is taken again: cuda:0,cuda:0 makes
     * two members of a spread run on one GPU. */
    int again = 0;
    for (size_t u = 0; u < t; ++u)
      again |= strcasecmp(terms[u], term) == 0;
    if (*term == '\0' || strcasecmp(term, "default") == 0) {
      size_t best = 0;
      ck_device_choose_default(set, &best, NULL);
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
      if (seen && !(again && strcasecmp(term, set->devices[i].id) == 0))
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

ck_status ck__device_memory_check(const ck_device *device, double bytes) {
  assert(device);
  if (ck__memory_exceeded(bytes, device->global_memory))
    return ck__fail(CK_ERROR_DEVICE_MEMORY,
                    "about %.3g GB; device %s has %.3g GB", bytes * 1e-9,
                    device->id, (double)device->global_memory * 1e-9);
  return CK_OK;
}

int ck__device_runs_kernels(const ck_device *device) {
  assert(device);
  return device->backend != CK_BACKEND_REF;
}

int ck__device_is_gpu(const ck_device *device) {
  assert(device);
  return device->kind == CK_KIND_GPU && ck__device_runs_kernels(device);
}

int ck__device_has_fp64(const ck_device *device) {
  assert(device);
  return !ck__device_runs_kernels(device) || device->has_fp64;
}

int ck__device_has_vector_types(const ck_device *device) {
  assert(device);
  return device->backend == CK_BACKEND_OPENCL;
}

int ck__device_shares_between_processes(const ck_device *device) {
  assert(device);
  return device->backend == CK_BACKEND_CUDA;
}

int ck__device_lends_memory(const ck_device *device) {
  assert(device);
  return device->backend == CK_BACKEND_CUDA;
}

int ck__device_has_tf32(const ck_device *device) {
  assert(device);
#if CK_HAVE_CUDA
  return device->backend == CK_BACKEND_CUDA &&
         ck__cuda_architecture(device) >= 80;
#else
  return 0;
#endif
}
