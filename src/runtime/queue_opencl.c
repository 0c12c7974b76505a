/*
 * queue_opencl.c - the OpenCL backend of ck_queue, and program builds
 * through the on-disk binary cache (device_opencl.c lists the devices).
 * Targets the OpenCL 1.2 host API.
 */
#include <CL/cl.h>
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* Launch events are kept until finish() to sum kernel time; past this
 * many, the oldest half is waited on and summed early. */
enum { PENDING_LIMIT = 4096 };

typedef struct opencl_queue {
  cl_context context;
  cl_command_queue queue;
  cl_event *pending;
  size_t pending_count;
  size_t pending_capacity;
  int gated; /* launches pass the PoCL gate (below) */
} opencl_queue;

const char *ck__opencl_error_name(int code) {
  switch (code) {
#define NAME(x)                                                                \
  case x:                                                                      \
    return #x;
    NAME(CL_SUCCESS)
    NAME(CL_DEVICE_NOT_FOUND)
    NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES)
    NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME(CL_MEM_COPY_OVERLAP)
    NAME(CL_BUILD_PROGRAM_FAILURE)
    NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE)
    NAME(CL_LINKER_NOT_AVAILABLE)
    NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE)
    NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE)
    NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES)
    NAME(CL_INVALID_COMMAND_QUEUE)
    NAME(CL_INVALID_HOST_PTR)
    NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_BINARY)
    NAME(CL_INVALID_BUILD_OPTIONS)
    NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL_DEFINITION)
    NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX)
    NAME(CL_INVALID_ARG_VALUE)
    NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_WORK_DIMENSION)
    NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE)
    NAME(CL_INVALID_GLOBAL_OFFSET)
    NAME(CL_INVALID_EVENT_WAIT_LIST)
    NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION)
    NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    NAME(CL_PLATFORM_NOT_FOUND_KHR)
#undef NAME
  default:
    return "CL_UNKNOWN_ERROR";
  }
}

/* Maps a runtime error to a status with a message naming the operation. */
static ck_status cl_fail(const ck_queue *queue, cl_int code, const char *what) {
  assert(queue && what && code != CL_SUCCESS);
  ck_status status = CK_ERROR_DEVICE;
  if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
      code == CL_INVALID_BUFFER_SIZE)
    status = CK_ERROR_DEVICE_MEMORY;
  return ck__fail(status, "device %s (%s): %s failed: %s (%d)",
                  queue->device.id, queue->device.name, what,
                  ck__opencl_error_name(code), (int)code);
}

static opencl_queue *state(const ck_queue *queue) {
  return (opencl_queue *)queue->backend;
}

static ck_status refuse(const ck_queue *queue) {
  char what[96];
  snprintf(what, sizeof what, "device %s", queue->device.id);
  return ck__opencl_refuse_forked(what);
}

/* PoCL before 5 (3.1 is Debian 12's) keeps its loaded kernel binaries
 * in one cache for the process. A launch takes the first entry of its
 * kernel that fits its grid; its end releases the first entry of that
 * kernel, fitting or not. While launches of one kernel at two grid sizes
 * run at once, from two queues, the release can miss its entry, and a
 * count falls below zero: PoCL fails an assertion and ends the process.
 * An in-order queue alone cannot do this. So kernels run on one gated
 * queue at a time: before its first launch after another queue's, a
 * queue waits for that queue's last kernel to end. One queue alone never
 * waits; queues taking turns wait at each turn. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_command_queue gate_queue; /* the queue that launched last */
static cl_event gate_last;          /* its last kernel (both retained) */

/* Drops the gate's hold on its queue and kernel; call with gate_lock. */
static void gate_clear(void) {
  if (gate_last)
    clReleaseEvent(gate_last);
  if (gate_queue)
    clReleaseCommandQueue(gate_queue);
  gate_last = NULL;
  gate_queue = NULL;
}

/* Waits, with gate_lock held, until no other queue's kernel runs. */
static void gate_enter(cl_command_queue queue) {
  if (gate_queue && gate_queue != queue) {
    /* A failed kernel of the other queue is that queue's to report. */
    clFlush(gate_queue);
    clWaitForEvents(1, &gate_last);
    gate_clear();
  }
}

/* Records launched, the last kernel of queue; call with gate_lock. */
static void gate_leave(cl_command_queue queue, cl_event launched) {
  if (!launched)
    return;
  if (gate_queue != queue) {
    gate_clear();
    clRetainCommandQueue(queue);
    gate_queue = queue;
  } else if (gate_last) {
    clReleaseEvent(gate_last);
  }
  clRetainEvent(launched);
  gate_last = launched;
}

/* The queues of this process on one device share a context, each
 * holding a reference. On an H200 through NVIDIA's OpenCL, two threads'
 * queues in contexts of their own waited about ten times as long for a
 * small write and read as in one shared (bench_queue's pair_us,
 * bench/RESULTS.md). An entry goes with its last queue; where every
 * entry is taken, a queue makes a context of its own. */
enum { SHARED_CONTEXTS = 64 };
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  cl_device_id device;
  cl_context context;
  size_t queues;
} contexts[SHARED_CONTEXTS];

/* A context for a new queue: home (a queue's, retained) where given,
 * else the device's shared one, retained, or a new one it shares. */
static cl_context share_context(cl_device_id device, cl_context home,
                                cl_int *code) {
  cl_context context = NULL;
  int k = 0, free_k = -1;
  pthread_mutex_lock(&contexts_lock);
  for (; k < SHARED_CONTEXTS; ++k) {
    if (home ? contexts[k].context == home : contexts[k].device == device)
      break;
    if (free_k < 0 && !contexts[k].context)
      free_k = k;
  }
  if (home || k < SHARED_CONTEXTS) {
    context = home ? home : contexts[k].context;
    *code = clRetainContext(context);
    if (*code != CL_SUCCESS)
      context = NULL;
    else if (k < SHARED_CONTEXTS)
      contexts[k].queues += 1;
  } else {
    context = clCreateContext(NULL, 1, &device, NULL, NULL, code);
    if (context && free_k >= 0) {
      contexts[free_k].device = device;
      contexts[free_k].context = context;
      contexts[free_k].queues = 1;
    }
  }
  pthread_mutex_unlock(&contexts_lock);
  return context;
}

/* A queue's reference to its context dropped, and the shared entry with
 * its last queue. */
static void release_context(cl_context context) {
  pthread_mutex_lock(&contexts_lock);
  for (int k = 0; k < SHARED_CONTEXTS; ++k)
    if (contexts[k].context == context && --contexts[k].queues == 0) {
      contexts[k].device = NULL;
      contexts[k].context = NULL;
    }
  pthread_mutex_unlock(&contexts_lock);
  clReleaseContext(context);
}

/* A queue in its device's shared context, or in home's where given. */
static ck_status make_queue(ck_queue *queue, const ck_queue *home) {
  assert(queue && (!home || state(home))); /* beside a made state */
  ck_status status = CK_OK;
  cl_int code = CL_SUCCESS;
  if (ck__opencl_forked())
    return refuse(queue);
  opencl_queue *made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a queue");
  cl_device_id device = (cl_device_id)queue->device.device_handle;
  made->context =
      share_context(device, home ? state(home)->context : NULL, &code);
  if (code != CL_SUCCESS) {
    status = cl_fail(queue, code, "clCreateContext");
    goto fail;
  }
  made->queue = clCreateCommandQueue(made->context, device,
                                     CL_QUEUE_PROFILING_ENABLE, &code);
  if (code != CL_SUCCESS) {
    status = cl_fail(queue, code, "clCreateCommandQueue");
    goto fail;
  }
  int pocl = ck__device_pocl_major(&queue->device);
  made->gated = pocl > 0 && pocl < 5;
  queue->backend = made;
  return CK_OK;
fail:
  /* clCreateContext returns NULL when it fails. */
  if (made->context)
    release_context(made->context);
  free(made);
  return status;
}

static ck_status ocl_create(ck_queue *queue) {
  return make_queue(queue, NULL);
}

/* Beside a session's queue, in its context: programs and buffers made in
 * it serve this queue too. */
static ck_status ocl_create_beside(ck_queue *queue, const ck_queue *home) {
  return make_queue(queue, home);
}

/* Adds the device time of the first count pending events and drops them. */
static ck_status retire_pending(ck_queue *queue, size_t count) {
  opencl_queue *q = state(queue);
  assert(q && count <= q->pending_count);
  ck_status status = CK_OK;
  if (count == 0)
    return CK_OK;
  cl_int code = clWaitForEvents((cl_uint)count, q->pending);
  if (code != CL_SUCCESS)
    status = cl_fail(queue, code, "waiting for kernels");
  for (size_t i = 0; i < count; ++i) {
    cl_ulong start = 0, end = 0;
    if (status == CK_OK &&
        clGetEventProfilingInfo(q->pending[i], CL_PROFILING_COMMAND_START,
                                sizeof start, &start, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(q->pending[i], CL_PROFILING_COMMAND_END,
                                sizeof end, &end, NULL) == CL_SUCCESS &&
        end > start)
      queue->kernel_seconds += (double)(end - start) * 1e-9;
    clReleaseEvent(q->pending[i]);
  }
  memmove(q->pending, q->pending + count,
          (q->pending_count - count) * sizeof *q->pending);
  q->pending_count -= count;
  return status;
}

static ck_status ocl_finish(ck_queue *queue) {
  if (ck__opencl_forked())
    return refuse(queue);
  cl_int code = clFinish(state(queue)->queue);
  if (code != CL_SUCCESS)
    return cl_fail(queue, code, "clFinish");
  return retire_pending(queue, state(queue)->pending_count);
}

static void ocl_destroy(ck_queue *queue) {
  opencl_queue *q = state(queue);
  if (!q)
    return;
  if (!ck__opencl_forked()) {
    clFinish(q->queue);
    retire_pending(queue, q->pending_count);
    if (q->gated) {
      pthread_mutex_lock(&gate_lock);
      if (gate_queue == q->queue)
        gate_clear();
      pthread_mutex_unlock(&gate_lock);
    }
    clReleaseCommandQueue(q->queue);
    release_context(q->context);
  }
  free(q->pending);
  free(q);
  queue->backend = NULL;
}

static ck_status ocl_buffer_create(ck_queue *queue, ck_buffer *buffer) {
  assert(state(queue) && buffer && buffer->size > 0);
  cl_int code = CL_SUCCESS;
  if (ck__opencl_forked())
    return refuse(queue);
  buffer->handle = clCreateBuffer(state(queue)->context, CL_MEM_READ_WRITE,
                                  buffer->size, NULL, &code);
  if (code != CL_SUCCESS) {
    char what[96];
    snprintf(what, sizeof what, "allocating %zu bytes", buffer->size);
    return cl_fail(queue, code, what);
  }
  return CK_OK;
}

static void ocl_buffer_destroy(ck_buffer *buffer) {
  if (!ck__opencl_forked())
    clReleaseMemObject((cl_mem)buffer->handle);
}

/* Page-locked host memory, as OpenCL gives it: a buffer the runtime
 * allocates in host memory (CL_MEM_ALLOC_HOST_PTR), mapped for good.
 * Reads and writes to it move at the bus's full speed on NVIDIA's
 * OpenCL, as its guide says; PoCL maps it in place. The buffer's handle
 * sits in the mapping's first HOST_HEADER bytes, before what the caller
 * gets, so that host_free finds it. */
enum { HOST_HEADER = 64 };

static ck_status ocl_host_alloc(ck_queue *queue, size_t size, void **pointer) {
  cl_int code = CL_SUCCESS;
  opencl_queue *q = state(queue);
  *pointer = NULL;
  if (ck__opencl_forked())
    return refuse(queue);
  if (size > SIZE_MAX - HOST_HEADER)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu bytes",
                    size);
  cl_mem memory =
      clCreateBuffer(q->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                     size + HOST_HEADER, NULL, &code);
  if (code != CL_SUCCESS)
    return cl_fail(queue, code, "allocating page-locked host memory");
  unsigned char *mapped =
      clEnqueueMapBuffer(q->queue, memory, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                         0, size + HOST_HEADER, 0, NULL, NULL, &code);
  if (code != CL_SUCCESS) {
    clReleaseMemObject(memory);
    return cl_fail(queue, code, "mapping page-locked host memory");
  }
  memcpy(mapped, &memory, sizeof memory);
  *pointer = mapped + HOST_HEADER;
  return CK_OK;
}

static void ocl_host_free(ck_queue *queue, void *pointer) {
  assert(state(queue) && pointer); /* ck__host_free skips NULL */
  if (ck__opencl_forked())
    return;
  unsigned char *mapped = (unsigned char *)pointer - HOST_HEADER;
  cl_mem memory;
  memcpy(&memory, mapped, sizeof memory);
  cl_command_queue handle = state(queue)->queue;
  if (clEnqueueUnmapMemObject(handle, memory, mapped, 0, NULL, NULL) ==
      CL_SUCCESS)
    clFinish(handle);
  clReleaseMemObject(memory);
}

static ck_status ocl_write(ck_queue *queue, ck_buffer *buffer, size_t offset,
                           size_t size, const void *source, ck_transfer mode,
                           ck_event *event) {
  /* queue.c checked the range. */
  assert(buffer && source && offset + size <= buffer->size);
  if (ck__opencl_forked())
    return refuse(queue);
  cl_int code = clEnqueueWriteBuffer(
      state(queue)->queue, (cl_mem)buffer->handle,
      mode == CK_BLOCKING ? CL_TRUE : CL_FALSE, offset, size, source, 0, NULL,
      event ? (cl_event *)&event->handle : NULL);
  return code == CL_SUCCESS ? CK_OK : cl_fail(queue, code, "writing a buffer");
}

static ck_status ocl_read(ck_queue *queue, ck_buffer *buffer, size_t offset,
                          size_t size, void *destination, ck_transfer mode,
                          ck_event *event) {
  assert(buffer && destination && offset + size <= buffer->size);
  if (ck__opencl_forked())
    return refuse(queue);
  cl_int code = clEnqueueReadBuffer(state(queue)->queue, (cl_mem)buffer->handle,
                                    mode == CK_BLOCKING ? CL_TRUE : CL_FALSE,
                                    offset, size, destination, 0, NULL,
                                    event ? (cl_event *)&event->handle : NULL);
  return code == CL_SUCCESS ? CK_OK : cl_fail(queue, code, "reading a buffer");
}

static ck_status ocl_copy(ck_queue *queue, ck_buffer *destination,
                          size_t destination_offset, ck_buffer *source,
                          size_t source_offset, size_t size, ck_event *event) {
  if (ck__opencl_forked())
    return refuse(queue);
  cl_int code = clEnqueueCopyBuffer(state(queue)->queue, (cl_mem)source->handle,
                                    (cl_mem)destination->handle, source_offset,
                                    destination_offset, size, 0, NULL,
                                    event ? (cl_event *)&event->handle : NULL);
  return code == CL_SUCCESS ? CK_OK : cl_fail(queue, code, "copying a buffer");
}

static ck_status ocl_fill(ck_queue *queue, ck_buffer *buffer,
                          const void *pattern, size_t pattern_size,
                          size_t offset, size_t size, ck_event *event) {
  if (ck__opencl_forked())
    return refuse(queue);
  cl_int code = clEnqueueFillBuffer(
      state(queue)->queue, (cl_mem)buffer->handle, pattern, pattern_size,
      offset, size, 0, NULL, event ? (cl_event *)&event->handle : NULL);
  return code == CL_SUCCESS ? CK_OK : cl_fail(queue, code, "filling a buffer");
}

/* The cache key: everything that can change the binary. */
static void cache_key(const ck_device *device, const char *source,
                      const char *options, uint8_t key[32]) {
  const char *parts[] = {source,           options,
                         device->platform, device->platform_version,
                         device->name,     device->driver_version,
                         CK_VERSION_STRING};
  ck__sha256_strings(parts, sizeof parts / sizeof parts[0], key);
}

static ck_status ocl_program_key(const ck_queue *queue, const char *source,
                                 const char *options, uint8_t key[32]) {
  cache_key(&queue->device, source, options, key);
  return CK_OK;
}

static ck_status build_failure(ck_queue *queue, ck_program *program,
                               cl_program handle, cl_int code,
                               const char *options) {
  assert(queue && program && code != CL_SUCCESS && options);
  cl_device_id device = (cl_device_id)queue->device.device_handle;
  ck__fail(CK_ERROR_BUILD,
           "building program '%s' for device %s (%s) failed: %s\n"
           "options: %s\n",
           program->name, queue->device.id, queue->device.name,
           ck__opencl_error_name(code), options);
  size_t log_size = 0;
  if (handle &&
      clGetProgramBuildInfo(handle, device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                            &log_size) == CL_SUCCESS &&
      log_size > 1) {
    char *log = malloc(log_size + 1);
    if (log && clGetProgramBuildInfo(handle, device, CL_PROGRAM_BUILD_LOG,
                                     log_size, log, NULL) == CL_SUCCESS) {
      log[log_size] = '\0';
      ck__fail_append("build log:\n%s", log);
    }
    free(log);
  }
  return CK_ERROR_BUILD;
}

/* The program's kernel names (CL_PROGRAM_KERNEL_NAMES: ';'-separated), a
 * malloc'd string; NULL if the runtime cannot say. */
static char *kernel_names(cl_program handle) {
  size_t size = 0;
  if (clGetProgramInfo(handle, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) !=
          CL_SUCCESS ||
      size == 0)
    return NULL;
  char *names = malloc(size + 1);
  if (names && clGetProgramInfo(handle, CL_PROGRAM_KERNEL_NAMES, size, names,
                                NULL) != CL_SUCCESS) {
    free(names);
    return NULL;
  }
  if (names)
    names[size] = '\0';
  return names;
}

/*
 * Tries the cached binary; returns NULL (and drops the entry) if unusable:
 * refused by the driver, or lacking a kernel that the program built from
 * source had (stored with the entry), which would fail only at
 * clCreateKernel, and at every run after.
 */
static cl_program build_from_cache(ck_queue *queue, const uint8_t key[32],
                                   const char *options) {
  void *binary = NULL;
  char *stored = NULL, *present = NULL;
  size_t size = 0;
  cl_program handle = NULL;
  ck__error_saved saved; /* a miss or a damaged entry is no failure */
  ck__error_save(&saved);
  if (ck__cache_load(key, &binary, &size, &stored) != CK_OK) {
    ck__error_restore(&saved);
    return NULL;
  }
  cl_device_id device = (cl_device_id)queue->device.device_handle;
  cl_int binary_status = CL_SUCCESS, code = CL_SUCCESS;
  const unsigned char *bytes = binary;
  handle = clCreateProgramWithBinary(state(queue)->context, 1, &device, &size,
                                     &bytes, &binary_status, &code);
  if (code == CL_SUCCESS && binary_status == CL_SUCCESS)
    code = clBuildProgram(handle, 1, &device, options, NULL, NULL);
  if (code == CL_SUCCESS && binary_status == CL_SUCCESS &&
      (!(present = kernel_names(handle)) ||
       !ck__cache_kernels_present(stored, present)))
    code = CL_INVALID_KERNEL_NAME;
  if (code != CL_SUCCESS || binary_status != CL_SUCCESS) {
    /* A driver update or a damaged file: rebuild from source instead. */
    if (handle)
      clReleaseProgram(handle);
    handle = NULL;
    ck__cache_remove(key);
  }
  free(present);
  free(stored);
  free(binary);
  ck__error_restore(&saved);
  return handle;
}

/* Stores the binary with the kernel names, which a later load checks. */
static void store_in_cache(cl_program handle, const uint8_t key[32]) {
  size_t size = 0;
  if (clGetProgramInfo(handle, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                       NULL) != CL_SUCCESS ||
      size == 0)
    return;
  char *names = kernel_names(handle);
  unsigned char *binary = malloc(size);
  if (names && binary &&
      clGetProgramInfo(handle, CL_PROGRAM_BINARIES, sizeof binary, &binary,
                       NULL) == CL_SUCCESS) {
    ck__error_saved saved; /* a cache that fails is not fatal */
    ck__error_save(&saved);
    ck__cache_store(key, names, binary, size);
    ck__error_restore(&saved);
  }
  free(binary);
  free(names);
}

static ck_status ocl_program_build(ck_queue *queue, ck_program *program,
                                   const char *source, const char *options) {
  assert(state(queue) && program && source && options);
  cl_device_id device = (cl_device_id)queue->device.device_handle;
  uint8_t key[32];
  ck__cache_mode mode = ck__cache_setting();
  int left_to_runtime =
      mode == CK__CACHE_ON && ck__device_caches_builds(&queue->device);
  int use_cache = mode != CK__CACHE_OFF && !left_to_runtime;
  ck_status status = CK_OK;
  cl_program handle = NULL;
  if (ck__opencl_forked())
    return refuse(queue);
  program->stats.runtime_cache = left_to_runtime;
  cl_int code = CL_SUCCESS;
  if (use_cache)
    cache_key(&queue->device, source, options, key);
  if (use_cache && !ck__build_from_source) {
    handle = build_from_cache(queue, key, options);
    if (handle) {
      program->handle = handle;
      program->stats.from_cache = 1;
      return CK_OK;
    }
  }
  size_t length = strlen(source);
  handle = clCreateProgramWithSource(state(queue)->context, 1, &source, &length,
                                     &code);
  if (code != CL_SUCCESS)
    return cl_fail(queue, code, "clCreateProgramWithSource");
  code = clBuildProgram(handle, 1, &device, options, NULL, NULL);
  if (code != CL_SUCCESS) {
    /* The log is read from the handle, so it is released only after. */
    status = build_failure(queue, program, handle, code, options);
    goto fail;
  }
  if (use_cache)
    store_in_cache(handle, key);
  program->handle = handle;
  program->stats.from_cache = 0;
  return CK_OK;
fail:
  if (handle)
    clReleaseProgram(handle);
  return status;
}

static void ocl_program_destroy(ck_program *program) {
  if (program->handle && !ck__opencl_forked())
    clReleaseProgram((cl_program)program->handle);
}

static ck_status ocl_kernel_create(ck_program *program, ck_kernel *kernel) {
  cl_int code = CL_SUCCESS;
  if (ck__opencl_forked())
    return refuse(program->queue);
  kernel->handle =
      clCreateKernel((cl_program)program->handle, kernel->name, &code);
  if (code == CL_INVALID_KERNEL_NAME)
    return ck__fail(CK_ERROR_NOT_FOUND, "program '%s' has no kernel '%s'",
                    program->name, kernel->name);
  if (code != CL_SUCCESS)
    return cl_fail(program->queue, code, "clCreateKernel");
  return CK_OK;
}

static void ocl_kernel_destroy(ck_kernel *kernel) {
  if (kernel->handle && !ck__opencl_forked())
    clReleaseKernel((cl_kernel)kernel->handle);
}

static ck_status ocl_kernel_set_arg(ck_kernel *kernel, unsigned index,
                                    ck__arg_kind kind, size_t size,
                                    const void *value) {
  cl_int code;
  cl_mem memory;
  if (ck__opencl_forked())
    return refuse(kernel->program->queue);
  switch (kind) {
  case CK__ARG_BUFFER:
    memory = (cl_mem)((const ck_buffer *)value)->handle;
    code = clSetKernelArg((cl_kernel)kernel->handle, index, sizeof memory,
                          &memory);
    break;
  case CK__ARG_LOCAL:
    code = clSetKernelArg((cl_kernel)kernel->handle, index, size, NULL);
    break;
  default:
    code = clSetKernelArg((cl_kernel)kernel->handle, index, size, value);
    break;
  }
  if (code != CL_SUCCESS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: argument %u (%zu bytes) refused: %s",
                    kernel->name, index, size, ck__opencl_error_name(code));
  return CK_OK;
}

static int ocl_kernel_argument_count(const ck_kernel *kernel) {
  cl_uint count = 0;
  if (ck__opencl_forked())
    return -1;
  return clGetKernelInfo((cl_kernel)kernel->handle, CL_KERNEL_NUM_ARGS,
                         sizeof count, &count, NULL) == CL_SUCCESS
             ? (int)count
             : -1;
}

static ck_status ocl_launch(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                            const size_t *global, const size_t *local,
                            ck_event *event) {
  opencl_queue *q = state(queue);
  assert(q && kernel && kernel->handle && dims >= 1 && dims <= 3 && global);
  ck_status status;
  if (ck__opencl_forked())
    return refuse(queue);
  /* PoCL 3.1's scheduler fails an assertion, ending the process, at 2^33
   * work-groups (2^32 ran); no launch of clkit's comes near 2^32. */
  if (local) {
    size_t groups = 1;
    for (unsigned d = 0; d < dims; ++d)
      groups *= global[d] / local[d]; /* at most the work-items' count */
    if (groups > UINT32_MAX)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "launch of %s: %zu work-groups exceed the %lu an "
                      "OpenCL launch may have",
                      kernel->name, groups, (unsigned long)UINT32_MAX);
  }
  if (q->pending_count == q->pending_capacity) {
    if (q->pending_count >= PENDING_LIMIT &&
        (status = retire_pending(queue, q->pending_count / 2)) != CK_OK)
      return status;
    if (q->pending_count == q->pending_capacity) {
      size_t capacity = q->pending_capacity ? 2 * q->pending_capacity : 64;
      cl_event *grown = realloc(q->pending, capacity * sizeof *grown);
      if (!grown)
        return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                        "out of host memory for events");
      q->pending = grown;
      q->pending_capacity = capacity;
    }
  }
  cl_event launched = NULL;
  if (q->gated) {
    pthread_mutex_lock(&gate_lock);
    gate_enter(q->queue);
  }
  cl_int code =
      clEnqueueNDRangeKernel(q->queue, (cl_kernel)kernel->handle, dims, NULL,
                             global, local, 0, NULL, &launched);
  if (q->gated) {
    gate_leave(q->queue, code == CL_SUCCESS ? launched : NULL);
    pthread_mutex_unlock(&gate_lock);
  }
  if (code != CL_SUCCESS) {
    char what[200];
    snprintf(what, sizeof what, "launching kernel %s", kernel->name);
    return cl_fail(queue, code, what);
  }
  q->pending[q->pending_count++] = launched;
  if (event) {
    clRetainEvent(launched);
    event->handle = launched;
  }
  return CK_OK;
}

static ck_status ocl_event_wait(ck_event *event) {
  cl_event handle = (cl_event)event->handle;
  if (ck__opencl_forked())
    return refuse(event->queue);
  cl_int code = clWaitForEvents(1, &handle);
  return code == CL_SUCCESS
             ? CK_OK
             : cl_fail(event->queue, code, "waiting for an event");
}

static ck_status ocl_event_times(ck_event *event, uint64_t *start_ns,
                                 uint64_t *end_ns) {
  cl_event handle = (cl_event)event->handle;
  cl_ulong start = 0, end = 0;
  if (ck__opencl_forked())
    return refuse(event->queue);
  cl_int code = clGetEventProfilingInfo(handle, CL_PROFILING_COMMAND_START,
                                        sizeof start, &start, NULL);
  if (code == CL_SUCCESS)
    code = clGetEventProfilingInfo(handle, CL_PROFILING_COMMAND_END, sizeof end,
                                   &end, NULL);
  if (code != CL_SUCCESS)
    return cl_fail(event->queue, code, "reading event times");
  *start_ns = start;
  *end_ns = end;
  return CK_OK;
}

static void ocl_event_destroy(ck_event *event) {
  if (event->handle && !ck__opencl_forked())
    clReleaseEvent((cl_event)event->handle);
}

const ck__queue_ops ck__opencl_ops = {
    .create = ocl_create,
    .create_beside = ocl_create_beside,
    .destroy = ocl_destroy,
    .finish = ocl_finish,
    .buffer_create = ocl_buffer_create,
    .buffer_destroy = ocl_buffer_destroy,
    .write = ocl_write,
    .read = ocl_read,
    .copy = ocl_copy,
    .fill = ocl_fill,
    .program_build = ocl_program_build,
    .program_key = ocl_program_key,
    .program_destroy = ocl_program_destroy,
    .kernel_create = ocl_kernel_create,
    .kernel_destroy = ocl_kernel_destroy,
    .kernel_set_arg = ocl_kernel_set_arg,
    .kernel_argument_count = ocl_kernel_argument_count,
    .launch = ocl_launch,
    .host_alloc = ocl_host_alloc,
    .host_free = ocl_host_free,
    .event_wait = ocl_event_wait,
    .event_times = ocl_event_times,
    .event_destroy = ocl_event_destroy,
};
