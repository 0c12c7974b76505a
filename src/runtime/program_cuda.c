/*
 * program_cuda.c - the CUDA backend's programs, kernels and launches.
 *
 * Programs are the cl/ sources compiled by NVRTC after ck_cuda_prelude.h,
 * with the same defines as for OpenCL, into machine code for the device's
 * architecture (kept in the binary cache), so every workload's kernels
 * run on CUDA unchanged. A kernel keeps its arguments for its launches
 * on the queue's stream (queue_cuda.c's, whose ops table names these).
 */
#include <assert.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* Kernel arguments: index and size limits of the stored values. Where
 * the runtime gives a kernel's parameters, each argument is stored at its
 * parameter's offset, within CUDA's 4 KB of parameters (a struct by
 * value may take most of them); else in a slot of ARGUMENT_BYTES. */
enum { ARGUMENT_LIMIT = 48, ARGUMENT_BYTES = 64, PARAMETER_SPACE = 4096 };

typedef struct cuda_kernel {
  cudaKernel_t handle;
  size_t shared_bytes; /* dynamic shared memory a launch gets */
  /* The kernel's parameters and their sizes, from the runtime; -1 where
   * it cannot say (then only gaps below the highest set are caught). */
  int parameters;
  size_t parameter_bytes[ARGUMENT_LIMIT];
  size_t offset[ARGUMENT_LIMIT]; /* each argument's place in values */
  unsigned argument_count;
  unsigned char set[ARGUMENT_LIMIT];
  _Alignas(16) unsigned char values[PARAMETER_SPACE];
} cuda_kernel;

/* Read from the device rather than the queue's copy of ck_device, which
 * a caller may have filled in itself. */
static ck_status shared_limit(const ck_queue *queue, size_t *bytes) {
  int limit = 0;
  cudaError_t code =
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                             queue->device.device_index);
  if (code != cudaSuccess)
    return ck__cuda_fail(queue, code, "reading the shared-memory limit");
  *bytes = (size_t)limit;
  return CK_OK;
}

ck_status ck__cuda_kernel_set_shared(ck_kernel *kernel, size_t bytes) {
  assert(kernel && kernel->handle && kernel->program);
  ck_queue *queue = kernel->program->queue;
  cuda_kernel *cuda = kernel->handle;
  size_t limit = 0;
  ck_status status = shared_limit(queue, &limit);
  if (status != CK_OK)
    return status;
  if (bytes > limit)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: %zu bytes of shared memory exceed the "
                    "device's %zu",
                    kernel->name, bytes, limit);
  /* Above 48 KB a kernel must ask for its dynamic shared memory first. */
  cudaError_t code = cudaKernelSetAttributeForDevice(
      cuda->handle, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes,
      queue->device.device_index);
  if (code != cudaSuccess) {
    cudaGetLastError();
    return ck__cuda_fail(queue, code, "raising a kernel's shared memory");
  }
  cuda->shared_bytes = bytes;
  return CK_OK;
}

ck_status ck__cuda_kernel_resident(ck_kernel *kernel, size_t threads,
                                   size_t *blocks) {
  assert(kernel && kernel->handle && kernel->program && threads && blocks);
  ck_queue *queue = kernel->program->queue;
  cuda_kernel *cuda = kernel->handle;
  int per_multiprocessor = 0, multiprocessors = 0;
  ck_status status = ck__cuda_use_device(queue);
  if (status != CK_OK)
    return status;
  cudaError_t code = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_multiprocessor, (const void *)cuda->handle, (int)threads,
      cuda->shared_bytes);
  if (code == cudaSuccess)
    code =
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount,
                               queue->device.device_index);
  if (code != cudaSuccess) {
    cudaGetLastError();
    return ck__cuda_fail(queue, code, "reading a kernel's occupancy");
  }
  *blocks = (size_t)per_multiprocessor * (size_t)multiprocessors;
  return CK_OK;
}

/* The cache key: everything that can change the machine code. */
static void cache_key(const ck_device *device, const char *source,
                      const char *options, uint8_t key[32]) {
  char form[32] = "machine code";
  size_t as_ptx = ck__test_value(CK__TEST_CUDA_AS_PTX);
  if (as_ptx)
    snprintf(form, sizeof form, "ptx %zu", as_ptx);
  const char *parts[] = {"cuda",       source,
                         options,      device->platform_version,
                         device->name, device->c_version,
                         form,         CK_VERSION_STRING};
  ck__sha256_strings(parts, sizeof parts / sizeof parts[0], key);
}

/* Loads cubin into program; *device_at_fault (optional) is set when it
 * fails for want of memory or a lost context rather than for the image. */
static ck_status load(ck_queue *queue, ck_program *program, const void *cubin,
                      int *device_at_fault) {
  assert(queue && program && cubin);
  cudaLibrary_t library = NULL;
  int fails = (int)ck__test_value(CK__TEST_CUDA_LOAD_FAILS);
  cudaError_t code = fails ? (cudaError_t)fails
                           : cudaLibraryLoadData(&library, cubin, NULL, NULL, 0,
                                                 NULL, NULL, 0);
  (void)ck__test_control(CK__TEST_CUDA_LOAD_FAILS, 0);
  if (device_at_fault)
    *device_at_fault = code == cudaErrorMemoryAllocation || ck__cuda_lost(code);
  if (code != cudaSuccess) {
    cudaGetLastError();
    return ck__cuda_fail(queue, code, "loading a program");
  }
  program->handle = library;
  return CK_OK;
}

/* The library's kernel names, ';'-separated, stored with its cache entry
 * (a malloc'd string); NULL where the runtime cannot list them: the entry
 * is then stored without names, and its kernels go unchecked at load. */
static char *kernel_names(cudaLibrary_t library) {
  unsigned count = 0;
  cudaKernel_t *kernels = NULL;
  const char **each = NULL;
  char *names = NULL;
  size_t length = 0;
  if (cudaLibraryGetKernelCount(&count, library) != cudaSuccess ||
      !(kernels = calloc((size_t)count + 1, sizeof *kernels)) ||
      !(each = calloc((size_t)count + 1, sizeof *each)) ||
      cudaLibraryEnumerateKernels(kernels, count, library) != cudaSuccess)
    goto done;
  for (unsigned i = 0; i < count; ++i) {
    if (cudaFuncGetName(&each[i], (const void *)kernels[i]) != cudaSuccess ||
        !each[i])
      goto done;
    length += strlen(each[i]) + 1;
  }
  if (!(names = malloc(length + 1)))
    goto done;
  names[0] = '\0';
  for (size_t i = 0, at = 0; i < count; ++i)
    at += (size_t)snprintf(names + at, length + 1 - at, "%s%s", i ? ";" : "",
                           each[i]);
done:
  cudaGetLastError();
  free(each);
  free(kernels);
  return names;
}

/* 1 when library defines every kernel of names, a ';'-separated list
 * (cut into its names here): a cached image lacking one would fail only
 * at ck_kernel_create, and at every run after. */
static int defines_kernels(cudaLibrary_t library, char *names) {
  for (char *name = names; name && *name;) {
    char *next = strchr(name, ';');
    cudaKernel_t kernel = NULL;
    if (next)
      *next++ = '\0';
    if (*name && cudaLibraryGetKernel(&kernel, library, name) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    name = next;
  }
  return 1;
}

/* The prelude is always the embedded copy, fixed with clkit's version,
 * which the key holds. */
ck_status ck__cuda_program_key(const ck_queue *queue, const char *source,
                               const char *options, uint8_t key[32]) {
  cache_key(&queue->device, source, options, key);
  return CK_OK;
}

ck_status ck__cuda_program_build(ck_queue *queue, ck_program *program,
                                 const char *source, const char *options) {
  ck_status status = CK_OK;
  char *full = NULL;
  void *cubin = NULL;
  char *kernels = NULL; /* stored with the cache entry */
  size_t cubin_size = 0;
  uint8_t key[32];
  ck__error_saved saved;
  int use_cache = ck__cache_setting() != CK__CACHE_OFF;
  CK_TRY(ck__cuda_use_device(queue));
  CK_TRY(ck__nvrtc_with_prelude(program->name, source, &full));
  if (use_cache)
    cache_key(&queue->device, full, options, key);
  /* A miss, or an entry stale or damaged (rebuilt), is no failure. */
  ck__error_save(&saved);
  if (use_cache && !ck__build_from_source &&
      ck__cache_load(key, &cubin, &cubin_size, &kernels) == CK_OK) {
    int device_at_fault = 0;
    status = load(queue, program, cubin, &device_at_fault);
    if (status == CK_OK && defines_kernels(program->handle, kernels)) {
      program->stats.from_cache = 1;
      goto fail; /* with CK_OK: only the temporaries are left to free */
    }
    if (status == CK_OK) {
      cudaLibraryUnload((cudaLibrary_t)program->handle);
      program->handle = NULL;
    }
    /* The entry is kept where the device, not the entry, is at fault: a
     * build would fail to load as well. */
    else if (device_at_fault)
      goto fail;
    status = CK_OK;
    ck__cache_remove(key);
    free(cubin);
    cubin = NULL;
  }
  ck__error_restore(&saved);
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                         queue->device.device_index);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                         queue->device.device_index);
  char target[320];
  snprintf(target, sizeof target, "device %s (%s)", queue->device.id,
           queue->device.name);
  CK_TRY(ck__nvrtc_compile(major * 10 + minor, target, program->name, full,
                           options, &cubin, &cubin_size));
  CK_TRY(load(queue, program, cubin, NULL));
  program->stats.from_cache = 0;
  if (use_cache) {
    free(kernels);
    kernels = kernel_names(program->handle);
    /* failing to cache is not fatal */
    ck__cache_store(key, kernels, cubin, cubin_size);
    ck__error_restore(&saved);
  }
fail:
  free(kernels);
  free(cubin);
  free(full);
  return status;
}

void ck__cuda_program_destroy(ck_program *program) {
  if (program->handle) {
    ck__cuda_use_device(program->queue);
    cudaLibraryUnload((cudaLibrary_t)program->handle);
  }
}

ck_status ck__cuda_kernel_create(ck_program *program, ck_kernel *kernel) {
  ck_status status = CK_OK;
  cuda_kernel *made = calloc(1, sizeof *made);
  if (!made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a kernel");
  cudaError_t code = cudaLibraryGetKernel(
      &made->handle, (cudaLibrary_t)program->handle, kernel->name);
  if (code != cudaSuccess) {
    cudaGetLastError();
    if (code == cudaErrorSymbolNotFound ||
        code == cudaErrorInvalidDeviceFunction)
      CK_FAIL(CK_ERROR_NOT_FOUND, "program '%s' has no kernel '%s'",
              program->name, kernel->name);
    status = ck__cuda_fail(program->queue, code, "finding a kernel");
    goto fail;
  }
  /* cudaLaunchKernel reads as many argument pointers as the kernel has
   * parameters: knowing them, a launch with one unset is refused, as
   * OpenCL refuses it, instead of reading past the arguments given. The
   * first index past the last parameter is an invalid value. */
  made->parameters = -1;
  size_t offsets[ARGUMENT_LIMIT] = {0};
  for (int i = 0; i < ARGUMENT_LIMIT; ++i) {
    size_t offset = 0, size = 0;
    code = cudaFuncGetParamInfo((const void *)made->handle, (size_t)i, &offset,
                                &size);
    if (code != cudaSuccess) {
      cudaGetLastError();
      if (code == cudaErrorInvalidValue)
        made->parameters = i;
      break;
    }
    made->parameter_bytes[i] = size;
    offsets[i] = offset;
  }
  for (int i = 0; i < ARGUMENT_LIMIT; ++i)
    made->offset[i] =
        i < made->parameters ? offsets[i] : (size_t)i * ARGUMENT_BYTES;
  kernel->handle = made;
  return CK_OK;
fail:
  free(made);
  return status;
}

void ck__cuda_kernel_destroy(ck_kernel *kernel) {
  free(kernel->handle);
}

ck_status ck__cuda_kernel_set_arg(ck_kernel *kernel, unsigned index,
                                  ck__arg_kind kind, size_t size,
                                  const void *value) {
  cuda_kernel *cuda = kernel->handle;
  if (kind == CK__ARG_LOCAL)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "kernel %s: local-memory arguments are not offered on "
                    "CUDA devices; declare the array in the kernel",
                    kernel->name);
  if (kind == CK__ARG_BUFFER) {
    value = &((const ck_buffer *)value)->handle;
    size = sizeof(void *);
  }
  size_t room = index >= ARGUMENT_LIMIT ? 0
                : cuda->parameters < 0  ? ARGUMENT_BYTES
                : cuda->offset[index] < PARAMETER_SPACE
                    ? PARAMETER_SPACE - cuda->offset[index]
                    : 0;
  if (size > room)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: argument %u (%zu bytes) exceeds the CUDA "
                    "backend's limits (%d arguments of %d bytes, or %d "
                    "bytes in all where CUDA gives the parameters)",
                    kernel->name, index, size, ARGUMENT_LIMIT, ARGUMENT_BYTES,
                    PARAMETER_SPACE);
  if (cuda->parameters >= 0 && index >= (unsigned)cuda->parameters)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: argument %u, but the kernel takes %d",
                    kernel->name, index, cuda->parameters);
  if (cuda->parameters >= 0 && size != cuda->parameter_bytes[index])
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: argument %u given %zu bytes; the parameter "
                    "has %zu",
                    kernel->name, index, size, cuda->parameter_bytes[index]);
  if (cuda->parameters < 0)
    memset(cuda->values + cuda->offset[index], 0, ARGUMENT_BYTES);
  memcpy(cuda->values + cuda->offset[index], value, size);
  cuda->set[index] = 1;
  if (index + 1 > cuda->argument_count)
    cuda->argument_count = index + 1;
  return CK_OK;
}

int ck__cuda_kernel_argument_count(const ck_kernel *kernel) {
  return ((const cuda_kernel *)kernel->handle)->parameters;
}

/* With no local size, OpenCL picks one that divides the global size; so
 * does this: the largest divisor up to `most`. */
static size_t block_for(size_t global, size_t most) {
  assert(global >= 1 && most >= 1);
  for (size_t block = global < most ? global : most; block > 1; --block)
    if (global % block == 0)
      return block;
  return 1;
}

ck_status ck__cuda_launch(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                          const size_t *global, const size_t *local,
                          ck_event *event) {
  cuda_kernel *cuda = kernel->handle;
  assert(queue->backend && cuda && dims >= 1 && dims <= 3 && global);
  ck_status status;
  size_t block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
  /* Chosen sizes share 256 threads a block over the dimensions, so that
   * the block stays within CUDA's 1024 threads whatever the dimensions. */
  size_t room = 256;
  for (unsigned d = 0; d < dims; ++d) {
    block[d] = local ? local[d] : block_for(global[d], room);
    room /= block[d] ? block[d] : 1;
    room = room ? room : 1;
    grid[d] = global[d] / block[d];
  }
  if (grid[0] > 0x7FFFFFFFu || grid[1] > 65535 || grid[2] > 65535)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: %zu x %zu x %zu blocks exceed CUDA's grid",
                    kernel->name, grid[0], grid[1], grid[2]);
  void *arguments[ARGUMENT_LIMIT];
  unsigned needed =
      cuda->parameters >= 0 ? (unsigned)cuda->parameters : cuda->argument_count;
  assert(needed <= ARGUMENT_LIMIT); /* as create and set_arg keep it */
  for (unsigned i = 0; i < needed; ++i) {
    if (!cuda->set[i])
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "kernel %s: argument %u was never set", kernel->name, i);
    arguments[i] = cuda->values + cuda->offset[i];
  }
  void *span = NULL;
  if ((status = ck__cuda_use_device(queue)) != CK_OK ||
      (status = ck__cuda_event_start(queue, event)) != CK_OK ||
      (status = ck__cuda_kernel_begin(queue, &span)) != CK_OK)
    return status;
  dim3 grid_size = {(unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2]};
  dim3 block_size = {(unsigned)block[0], (unsigned)block[1],
                     (unsigned)block[2]};
  cudaError_t code =
      cudaLaunchKernel((const void *)cuda->handle, grid_size, block_size,
                       arguments, cuda->shared_bytes, ck__cuda_stream(queue));
  if (code != cudaSuccess) {
    cudaGetLastError();
    ck__cuda_kernel_abandon(queue, span);
    char what[200];
    snprintf(what, sizeof what, "launching kernel %s", kernel->name);
    return ck__cuda_fail(queue, code, what);
  }
  if ((status = ck__cuda_kernel_end(queue, span)) != CK_OK)
    return status;
  return ck__cuda_event_stop(queue, event);
}
