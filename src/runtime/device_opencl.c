/*
 * device_opencl.c - the OpenCL devices: their enumeration, what clkit must
 * know of their runtimes, and the mark of a forked child, which every
 * OpenCL call of clkit's checks first. Targets the OpenCL 1.2 host API.
 */
#include <CL/cl.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* OpenCL runtimes do their work on threads of their own (PoCL's pthread
 * device runs every command on them), which fork() does not copy: a child
 * of a process that used OpenCL would wait for them forever. So once this
 * process first calls into OpenCL, a fork marks the child, which then
 * makes no OpenCL call: those that work fail, those that release leak. */
static pthread_once_t fork_watch = PTHREAD_ONCE_INIT;
static int forked;

static void mark_child(void) {
  forked = 1;
}

static void watch_forks(void) {
  pthread_atfork(NULL, NULL, mark_child);
}

int ck__opencl_forked(void) {
  return forked;
}

ck_status ck__opencl_refuse_forked(const char *what) {
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "%s%sOpenCL cannot run in this process: it was forked "
                  "from one that had used OpenCL, whose runtime threads a "
                  "fork does not copy (its calls would hang). Start workers "
                  "as new programs (exec after fork), or fork before the "
                  "first OpenCL call",
                  what, *what ? ": " : "");
}

/* ---- OpenCL devices ---------------------------------------------------- */

static const char no_platform_hint[] =
    "no OpenCL platform found: install an OpenCL driver (for CPUs, Debian "
    "and Ubuntu's pocl-opencl-icd; for GPUs, the vendor's driver) and check "
    "that /etc/OpenCL/vendors (or $OCL_ICD_VENDORS) lists it. The ref "
    "device still works.";

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
    if (ck__text_contains_caseless(device->vendor, "nvidia"))
      device->warp_width = 32;
    else if (ck__text_contains_caseless(device->vendor, "advanced micro") ||
             ck__text_contains_caseless(device->vendor, "amd"))
      device->warp_width = 64;
  }
}

ck_status ck__opencl_enumerate(ck_status (*add)(void *user,
                                                const ck_device *device),
                               void *user, ck_status *noted, char *message,
                               size_t capacity) {
  ck_status status = CK_OK;
  cl_platform_id *platforms = NULL;
  cl_device_id *devices = NULL;
  ck_device device;
  size_t added = 0;
  *noted = CK_OK;
  message[0] = '\0';
  /* Before the first call into OpenCL: a fork after it marks the child. */
  pthread_once(&fork_watch, watch_forks);
  if (forked)
    return ck__opencl_refuse_forked("");
  cl_uint platform_count = 0;
  cl_int code = clGetPlatformIDs(0, NULL, &platform_count);
  if (code == CL_PLATFORM_NOT_FOUND_KHR ||
      (code == CL_SUCCESS && platform_count == 0)) {
    *noted = CK_ERROR_NO_PLATFORM;
    snprintf(message, capacity, "%s", no_platform_hint);
    return CK_OK;
  }
  if (code != CL_SUCCESS) {
    *noted = CK_ERROR_DEVICE;
    snprintf(message, capacity,
             "the OpenCL loader failed to list platforms: %s (%d)",
             ck__opencl_error_name(code), (int)code);
    return CK_OK;
  }
  platforms = calloc(platform_count, sizeof *platforms);
  if (!platforms)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory listing platforms");
  code = clGetPlatformIDs(platform_count, platforms, NULL);
  if (code != CL_SUCCESS) {
    *noted = CK_ERROR_DEVICE;
    snprintf(message, capacity, "the OpenCL loader failed to list platforms");
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
        CK_TRY(add(user, &device));
        ++added;
      }
    }
    free(devices);
    devices = NULL;
  }
  if (added == 0) {
    *noted = CK_ERROR_NO_PLATFORM;
    snprintf(message, capacity,
             "OpenCL platforms exist but offer no devices; the ref device "
             "still works.");
  }
fail:
  free(platforms);
  free(devices);
  return status;
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
      !device->device_handle || forked ||
      clGetDeviceInfo((cl_device_id)device->device_handle,
                      CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single,
                      NULL) != CL_SUCCESS)
    return "";
  return (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
             ? "-cl-fp32-correctly-rounded-divide-sqrt"
             : "";
}
