/*
 * queue_cuda.c - the CUDA backend of ck_queue, and its devices.
 *
 * Buffers are device allocations, transfers and launches go to one
 * non-blocking stream, and events are pairs of CUDA events. Programs,
 * their kernels and launches are program_cuda.c's. A workload's CUDA
 * steps replace only its hot kernels with native ones (in
 * src/<workload>/, compiled by nvcc), which reach the stream and buffers
 * through the ck__cuda_ accessors below.
 *
 * Only the CUDA runtime (linked statically, so a machine without the
 * driver still runs clkit and simply lists no CUDA device) and NVRTC are
 * used here.
 */
#include <assert.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* Launch timings are summed as they end, every RETIRE_EVERY launches and
 * without a wait, so that finish() (while the device may wait for the
 * host) has few left to sum; past TIMING_LIMIT pending, the queue waits
 * and sums early. A query a launch would cost the host more than the
 * device's time between them where kernels are short. */
enum { TIMING_LIMIT = 4096, RETIRE_EVERY = 8 };

typedef struct timing {
  cudaEvent_t start, end;
} timing;

typedef struct cuda_queue {
  cudaStream_t stream;
  cudaEvent_t epoch; /* the zero of ck_event_get_times() */
  /* A ring of timing_capacity timings: timing_count pending from
   * timing_first (oldest first), then the free ones. */
  timing *timings;
  size_t timing_first, timing_count, timing_capacity;
  unsigned launches; /* since the last retire_ended */
  int capturing;     /* launches are being recorded into a graph */
} cuda_queue;

static cuda_queue *state(const ck_queue *queue) {
  return (cuda_queue *)queue->backend;
}

/* The k-th pending timing of q's ring, or with k = timing_count, the
 * first free one. */
static timing *pending_timing(const cuda_queue *q, size_t k) {
  assert(k <= q->timing_count && k < q->timing_capacity &&
         q->timing_count <= q->timing_capacity);
  return &q->timings[(q->timing_first + k) % q->timing_capacity];
}

/* The errors CUDA documents as leaving the process's context unusable:
 * every later call on the device returns the same error. */
int ck__cuda_lost(int code) {
  switch (code) {
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchTimeout:
  case cudaErrorAssert:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchFailure:
  case cudaErrorExternalDevice:
    return 1;
  default:
    return 0;
  }
}

/* Later calls fail with the fault's own name, far from its cause: each
 * says that nothing more can run on the device in this process. */
const char *ck__cuda_lost_note(int code) {
  return ck__cuda_lost(code)
             ? "; the device's CUDA context is lost: nothing more runs on it "
               "until the process ends"
             : "";
}

ck_status ck__cuda_fail(const ck_queue *queue, int code, const char *what) {
  assert(queue && what && code != cudaSuccess);
  ck_status status = code == cudaErrorMemoryAllocation ? CK_ERROR_DEVICE_MEMORY
                                                       : CK_ERROR_DEVICE;
  return ck__fail(status, "device %s (%s): %s failed: %s (%s)%s",
                  queue->device.id, queue->device.name, what,
                  cudaGetErrorName(code), cudaGetErrorString(code),
                  ck__cuda_lost_note(code));
}

/* Every call names its device: CUDA's current device is per thread. */
static ck_status use_device(const ck_queue *queue) {
  assert(queue && queue->device.backend == CK_BACKEND_CUDA);
  cudaError_t code = cudaSetDevice(queue->device.device_index);
  return code ? ck__cuda_fail(queue, code, "selecting the device") : CK_OK;
}

/* The oldest architecture this build's own CUDA code (nvcc's) has
 * machine code for: meson's nvcc_architectures. */
#ifndef CK_CUDA_OLDEST_ARCHITECTURE
#define CK_CUDA_OLDEST_ARCHITECTURE 0
#endif

/* The versions every CUDA device of the process reports. */
typedef struct cuda_versions {
  int runtime, driver, nvrtc_major, nvrtc_minor, nvrtc_oldest, nvrtc_newest;
} cuda_versions;

/* Device n, of the given properties, as clkit describes it. */
static void describe_device(ck_device *device, int n,
                            const struct cudaDeviceProp *properties,
                            const cuda_versions *v) {
  memset(device, 0, sizeof *device);
  snprintf(device->id, sizeof device->id, "cuda:%d", n);
  device->backend = CK_BACKEND_CUDA;
  device->kind = CK_KIND_GPU;
  snprintf(device->name, sizeof device->name, "%s", properties->name);
  snprintf(device->vendor, sizeof device->vendor, "NVIDIA Corporation");
  snprintf(device->platform, sizeof device->platform, "CUDA");
  snprintf(device->platform_version, sizeof device->platform_version,
           "CUDA %d.%d (runtime %d.%d, NVRTC %d.%d)", v->driver / 1000,
           v->driver % 1000 / 10, v->runtime / 1000, v->runtime % 1000 / 10,
           v->nvrtc_major, v->nvrtc_minor);
  snprintf(device->driver_version, sizeof device->driver_version,
           "CUDA %d.%d", v->driver / 1000, v->driver % 1000 / 10);
  snprintf(device->c_version, sizeof device->c_version,
           "CUDA C++ sm_%d%d (OpenCL C 1.2 sources through NVRTC)",
           properties->major, properties->minor);
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, n);
  device->compute_units = (unsigned)properties->multiProcessorCount;
  device->clock_mhz = (unsigned)(clock_khz / 1000);
  device->global_memory = properties->totalGlobalMem;
  /* Static shared memory per block: what kernels may declare. */
  device->local_memory = properties->sharedMemPerBlock;
  device->local_memory_opt_in = properties->sharedMemPerBlockOptin;
  device->max_alloc = properties->totalGlobalMem;
  device->max_work_group_size = (size_t)properties->maxThreadsPerBlock;
  device->has_fp64 = 1;
  device->warp_width = (unsigned)properties->warpSize;
  device->platform_index = -1;
  device->device_index = n;
}

/* Whether this build can make code for device n: where not, it is named
 * in message instead, so that it is neither chosen by default nor asked
 * for by mistake. */
static int reachable(int n, const struct cudaDeviceProp *properties,
                     const cuda_versions *v, char *message,
                     size_t message_capacity) {
  int architecture = properties->major * 10 + properties->minor;
  if (ck__cuda_reach_of(architecture, v->nvrtc_oldest, v->nvrtc_newest,
                        CK_CUDA_OLDEST_ARCHITECTURE) != CK__CUDA_UNREACHABLE)
    return 1;
  size_t used = strlen(message);
  snprintf(message + used, message_capacity - used,
           "%scuda:%d (%s, sm_%d) is not listed: this clkit builds CUDA "
           "code for sm_%d and later (NVRTC %d.%d: sm_%d to sm_%d); "
           "NVIDIA's OpenCL may still reach it.",
           used ? " " : "", n, properties->name, architecture,
           v->nvrtc_oldest > CK_CUDA_OLDEST_ARCHITECTURE
               ? v->nvrtc_oldest
               : CK_CUDA_OLDEST_ARCHITECTURE,
           v->nvrtc_major, v->nvrtc_minor, v->nvrtc_oldest, v->nvrtc_newest);
  return 0;
}

ck_status ck__cuda_enumerate(ck_device *devices, size_t capacity, size_t *count,
                             char *message, size_t message_capacity) {
  int device_count = 0;
  *count = 0;
  cudaError_t code = cudaGetDeviceCount(&device_count);
  if (code != cudaSuccess) {
    snprintf(message, message_capacity,
             "no CUDA device: %s%s (%s). OpenCL and ref devices still work.",
             code == cudaErrorInsufficientDriver
                 ? "no NVIDIA driver is loaded, or it is older than "
                   "clkit's CUDA runtime: "
                 : "",
             cudaGetErrorName(code), cudaGetErrorString(code));
    cudaGetLastError(); /* not sticky: clear it */
    return CK_ERROR_NO_PLATFORM;
  }
  cuda_versions v = {0};
  cudaRuntimeGetVersion(&v.runtime);
  cudaDriverGetVersion(&v.driver);
  nvrtcVersion(&v.nvrtc_major, &v.nvrtc_minor);
  ck__nvrtc_range(&v.nvrtc_oldest, &v.nvrtc_newest);
  int unreachable = 0;
  message[0] = '\0';
  for (int n = 0; n < device_count && *count < capacity; ++n) {
    struct cudaDeviceProp properties;
    if (cudaGetDeviceProperties(&properties, n) != cudaSuccess)
      continue;
    if (!reachable(n, &properties, &v, message, message_capacity)) {
      unreachable++;
      continue;
    }
    describe_device(&devices[(*count)++], n, &properties, &v);
  }
  return *count == 0 && unreachable ? CK_ERROR_UNSUPPORTED : CK_OK;
}

static ck_status cu_create(ck_queue *queue) {
  ck_status status = CK_OK;
  cudaError_t code;
  cuda_queue *made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a queue");
  queue->backend = made;
  CK_TRY(use_device(queue));
  code = cudaStreamCreateWithFlags(&made->stream, cudaStreamNonBlocking);
  if (code != cudaSuccess) {
    made->stream = NULL;
    status = ck__cuda_fail(queue, code, "creating a stream");
    goto fail;
  }
  if ((code = cudaEventCreate(&made->epoch)) != cudaSuccess) {
    made->epoch = NULL;
    status = ck__cuda_fail(queue, code, "creating an event");
    goto fail;
  }
  if ((code = cudaEventRecord(made->epoch, made->stream)) != cudaSuccess) {
    status = ck__cuda_fail(queue, code, "recording an event");
    goto fail;
  }
  return CK_OK;
fail:
  if (made->epoch)
    cudaEventDestroy(made->epoch);
  if (made->stream)
    cudaStreamDestroy(made->stream);
  free(made);
  queue->backend = NULL;
  return status;
}

/* A stream in the device's primary context, as every queue's: modules
 * and memory made on home serve it too. */
static ck_status cu_create_beside(ck_queue *queue, const ck_queue *home) {
  (void)home;
  return cu_create(queue);
}

/* Adds the oldest pending launch's device time (it has ended) to the
 * queue's, and frees its slot of the ring. */
static void retire_oldest(ck_queue *queue) {
  cuda_queue *q = state(queue);
  const timing *t = pending_timing(q, 0);
  float milliseconds = 0;
  if (cudaEventElapsedTime(&milliseconds, t->start, t->end) == cudaSuccess)
    queue->kernel_seconds += 1e-3 * (double)milliseconds;
  q->timing_first = (q->timing_first + 1) % q->timing_capacity;
  --q->timing_count;
}

/* Sums the device time of the pending launches and empties the list. */
static ck_status retire_timings(ck_queue *queue) {
  cuda_queue *q = state(queue);
  assert(q && q->timing_count <= q->timing_capacity);
  while (q->timing_count > 0) {
    cudaError_t code = cudaEventSynchronize(pending_timing(q, 0)->end);
    if (code != cudaSuccess) {
      q->timing_count = 0;
      return ck__cuda_fail(queue, code, "waiting for kernels");
    }
    retire_oldest(queue);
  }
  return CK_OK;
}

static ck_status cu_finish(ck_queue *queue) {
  ck_status status = use_device(queue);
  if (status != CK_OK)
    return status;
  cudaError_t code = cudaStreamSynchronize(state(queue)->stream);
  if (code != cudaSuccess)
    return ck__cuda_fail(queue, code, "finishing the queue");
  return retire_timings(queue);
}

static void cu_destroy(ck_queue *queue) {
  cuda_queue *q = state(queue);
  if (!q)
    return;
  use_device(queue);
  cudaStreamSynchronize(q->stream);
  for (size_t i = 0; i < q->timing_capacity; ++i) {
    cudaEventDestroy(q->timings[i].start);
    cudaEventDestroy(q->timings[i].end);
  }
  free(q->timings);
  cudaEventDestroy(q->epoch);
  cudaStreamDestroy(q->stream);
  free(q);
  queue->backend = NULL;
}

/* Creates both events of a timing pair. */
static ck_status make_timing(const ck_queue *queue, timing *pair) {
  cudaError_t code = cudaEventCreate(&pair->start);
  if (code == cudaSuccess &&
      (code = cudaEventCreate(&pair->end)) != cudaSuccess)
    cudaEventDestroy(pair->start);
  return code == cudaSuccess ? CK_OK
                             : ck__cuda_fail(queue, code, "creating events");
}

/* Records an event on the queue's stream. */
static ck_status record(const ck_queue *queue, cudaEvent_t event) {
  assert(state(queue) && event);
  cudaError_t code = cudaEventRecord(event, state(queue)->stream);
  return code == cudaSuccess ? CK_OK
                             : ck__cuda_fail(queue, code, "recording an event");
}

/* The pending launches that have ended, oldest first, summed without a
 * wait; their slots become free, their events kept. */
static void retire_ended(ck_queue *queue) {
  cuda_queue *q = state(queue);
  q->launches = 0;
  while (q->timing_count > 0 &&
         cudaEventQuery(pending_timing(q, 0)->end) == cudaSuccess)
    retire_oldest(queue);
}

/* Grows a full ring of timings to capacity, its pending ones first in
 * order, and creates the events of the new ones. */
static ck_status grow_timings(ck_queue *queue, size_t capacity) {
  cuda_queue *q = state(queue);
  assert(q->timing_count == q->timing_capacity && capacity > q->timing_count);
  timing *grown = malloc(capacity * sizeof *grown);
  if (!grown)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for events");
  for (size_t k = 0; k < q->timing_count; ++k)
    grown[k] = *pending_timing(q, k);
  free(q->timings);
  q->timings = grown;
  q->timing_first = 0;
  for (size_t i = q->timing_capacity; i < capacity; ++i) {
    ck_status status = make_timing(queue, &grown[i]);
    if (status != CK_OK)
      return status;
    q->timing_capacity = i + 1;
  }
  return CK_OK;
}

/* The next free timing of the pool, growing it (and creating its events)
 * when full. */
static ck_status next_timing(ck_queue *queue, timing **out) {
  cuda_queue *q = state(queue);
  assert(q && out && q->timing_count <= q->timing_capacity);
  ck_status status;
  if (++q->launches >= RETIRE_EVERY)
    retire_ended(queue);
  if (q->timing_count >= TIMING_LIMIT) {
    cudaError_t code = cudaStreamSynchronize(q->stream);
    if (code != cudaSuccess)
      return ck__cuda_fail(queue, code, "waiting for kernels");
    if ((status = retire_timings(queue)) != CK_OK)
      return status;
  }
  if (q->timing_count == q->timing_capacity &&
      (status = grow_timings(queue, q->timing_capacity ? 2 * q->timing_capacity
                                                       : 64)) != CK_OK)
    return status;
  *out = pending_timing(q, q->timing_count++);
  return CK_OK;
}

ck_status ck__cuda_use_device(const ck_queue *queue) {
  return use_device(queue);
}

ck_status ck__cuda_kernel_begin(ck_queue *queue, void **span) {
  assert(queue && state(queue) && span);
  timing *t = NULL;
  *span = NULL;
  /* The launch that follows (a graph, cuBLAS, a kernel of nvcc's) runs on
   * the thread's current device, which another queue's calls may have
   * changed since this queue's last. */
  ck_status status = use_device(queue);
  if (status != CK_OK)
    return status;
  /* A recorded launch is timed with its graph's. */
  if (state(queue)->capturing)
    return CK_OK;
  status = next_timing(queue, &t);
  if (status != CK_OK)
    return status;
  if ((status = record(queue, t->start)) != CK_OK) {
    --state(queue)->timing_count;
    return status;
  }
  *span = t;
  return CK_OK;
}

ck_status ck__cuda_kernel_end(ck_queue *queue, void *span) {
  return span ? record(queue, ((timing *)span)->end) : CK_OK;
}

void ck__cuda_kernel_abandon(ck_queue *queue, void *span) {
  /* The span is the queue's last slot: nothing on this queue took one
   * since its begin. Left counted, its start would be paired with an end
   * from the slot's last use. */
  if (!span)
    return;
  assert(state(queue)->timing_count > 0 &&
         span == pending_timing(state(queue), state(queue)->timing_count - 1));
  --state(queue)->timing_count;
}

int ck__cuda_architecture(const ck_device *device) {
  int major = 0, minor = 0;
  if (!device || device->backend != CK_BACKEND_CUDA ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                             device->device_index) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                             device->device_index) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return major * 10 + minor;
}

void ck__cuda_multiprocessor(const ck_device *device, int *threads,
                             int *registers, int *blocks) {
  *threads = *registers = *blocks = 0;
  if (!device || device->backend != CK_BACKEND_CUDA ||
      cudaDeviceGetAttribute(threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                             device->device_index) != cudaSuccess ||
      cudaDeviceGetAttribute(registers,
                             cudaDevAttrMaxRegistersPerMultiprocessor,
                             device->device_index) != cudaSuccess ||
      cudaDeviceGetAttribute(blocks, cudaDevAttrMaxBlocksPerMultiprocessor,
                             device->device_index) != cudaSuccess) {
    cudaGetLastError();
    *threads = *registers = *blocks = 0;
  }
}

ck_status ck__cuda_capture_begin(ck_queue *queue) {
  ck_status status = use_device(queue);
  if (status != CK_OK)
    return status;
  cudaError_t code = cudaStreamBeginCapture(state(queue)->stream,
                                            cudaStreamCaptureModeThreadLocal);
  if (code != cudaSuccess)
    return ck__cuda_fail(queue, code, "starting a graph capture");
  state(queue)->capturing = 1;
  return CK_OK;
}

ck_status ck__cuda_capture_end(ck_queue *queue, void **graph) {
  assert(state(queue) && state(queue)->capturing && graph);
  cudaGraph_t captured = NULL;
  cudaGraphExec_t runnable = NULL;
  *graph = NULL;
  state(queue)->capturing = 0;
  /* The capture ends whatever follows: a stream left capturing would
   * refuse every later call on the queue. */
  cudaError_t code = cudaStreamEndCapture(state(queue)->stream, &captured);
  ck_status status = use_device(queue);
  if (status != CK_OK)
    goto fail;
  if (code == cudaSuccess)
    code = cudaGraphInstantiate(&runnable, captured, 0);
  if (code != cudaSuccess) {
    cudaGetLastError();
    status = ck__cuda_fail(queue, code, "building a graph of launches");
    goto fail;
  }
  *graph = runnable;
fail: /* the graph, instantiated or not, is no longer needed */
  if (captured)
    cudaGraphDestroy(captured);
  return status;
}

ck_status ck__cuda_graph_launch(ck_queue *queue, void *graph) {
  void *span = NULL;
  ck_status status = ck__cuda_kernel_begin(queue, &span);
  if (status != CK_OK)
    return status;
  cudaError_t code =
      cudaGraphLaunch((cudaGraphExec_t)graph, state(queue)->stream);
  if (code != cudaSuccess) {
    cudaGetLastError();
    ck__cuda_kernel_abandon(queue, span);
    return ck__cuda_fail(queue, code, "launching a graph");
  }
  return ck__cuda_kernel_end(queue, span);
}

void ck__cuda_graph_destroy(void *graph) {
  if (graph)
    cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

void *ck__cuda_stream(const ck_queue *queue) {
  return state(queue)->stream;
}

void *ck__cuda_pointer(const ck_buffer *buffer) {
  return buffer->handle;
}

int ck__cuda_values_launch(void *stream, const void *from, size_t from_size,
                           size_t stride, void *to, size_t to_size,
                           size_t count);

ck_status ck__cuda_take_values(ck_queue *queue, const void *from,
                               size_t from_size, size_t stride, ck_buffer *to,
                               size_t to_size, size_t count) {
  assert(queue && from && to && to->handle);
  void *span;
  ck_status status = ck__cuda_kernel_begin(queue, &span);
  if (status != CK_OK)
    return status;
  int code = ck__cuda_values_launch(state(queue)->stream, from, from_size,
                                    stride, to->handle, to_size, count);
  if (code) {
    ck__cuda_kernel_abandon(queue, span);
    return ck__cuda_fail(queue, (cudaError_t)code,
                         "taking a device objective's values");
  }
  return ck__cuda_kernel_end(queue, span);
}

ck_status ck__cuda_read_values(int ordinal, void *stream, const void *from,
                               size_t from_size, size_t stride, double *to,
                               size_t count) {
  assert(from_size == 4 || from_size == 8); /* floats or doubles */
  assert(stride >= 1 && (from || count == 0) && (to || count == 0));
  /* Doubles land in place; floats in the upper half of `to`, each read
   * before the double it becomes overwrites it. */
  unsigned char *raw = (unsigned char *)to + count * (8 - from_size);
  cudaError_t code = cudaSetDevice(ordinal);
  if (code == cudaSuccess && count)
    code =
        cudaMemcpy2DAsync(raw, from_size, from, stride * from_size, from_size,
                          count, cudaMemcpyDeviceToHost, (cudaStream_t)stream);
  if (code == cudaSuccess)
    code = cudaStreamSynchronize((cudaStream_t)stream);
  if (code != cudaSuccess) {
    cudaGetLastError();
    return ck__fail(code == cudaErrorMemoryAllocation ? CK_ERROR_DEVICE_MEMORY
                                                      : CK_ERROR_DEVICE,
                    "CUDA device %d: reading a device objective's values "
                    "failed: %s (%s)%s",
                    ordinal, cudaGetErrorName(code), cudaGetErrorString(code),
                    ck__cuda_lost_note(code));
  }
  for (size_t i = 0; from_size == 4 && i < count; ++i) {
    float value;
    memcpy(&value, raw + i * sizeof value, sizeof value);
    to[i] = value;
  }
  return CK_OK;
}

/* A failed call between a lender's stream and another, named. */
static ck_status lent_fail(int ordinal, cudaError_t code, const char *what) {
  if (code == cudaSuccess)
    return CK_OK;
  cudaGetLastError();
  return ck__fail(CK_ERROR_DEVICE, "CUDA device %d: %s failed: %s (%s)%s",
                  ordinal, what, cudaGetErrorName(code),
                  cudaGetErrorString(code), ck__cuda_lost_note(code));
}

/* The calling thread's current device is left as it was: a borrower
 * (PyTorch, say) on this thread keeps its own. */
ck_status ck__cuda_stream_wait(int ordinal, void *producer, void *consumer) {
  if (producer == consumer)
    return CK_OK;
  int was = -1;
  cudaEvent_t event = NULL;
  cudaError_t code = cudaGetDevice(&was);
  if (code == cudaSuccess)
    code = cudaSetDevice(ordinal);
  if (code == cudaSuccess)
    code = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (code == cudaSuccess)
    code = cudaEventRecord(event, (cudaStream_t)producer);
  if (code == cudaSuccess)
    code = cudaStreamWaitEvent((cudaStream_t)consumer, event, 0);
  /* Destroyed once recorded and waited for: CUDA frees it when done. */
  if (event)
    cudaEventDestroy(event);
  if (was >= 0 && was != ordinal)
    cudaSetDevice(was);
  return lent_fail(ordinal, code, "ordering a stream after the positions");
}

ck_status ck__cuda_mark_record(int ordinal, void *stream, void **mark) {
  cudaEvent_t event = *mark;
  cudaError_t code = cudaSetDevice(ordinal);
  if (code == cudaSuccess && !event) {
    code = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    *mark = code == cudaSuccess ? event : NULL;
  }
  if (code == cudaSuccess)
    code = cudaEventRecord(event, (cudaStream_t)stream);
  return lent_fail(ordinal, code, "marking a device objective's values");
}

ck_status ck__cuda_mark_wait(int ordinal, void *mark) {
  return lent_fail(ordinal, cudaEventSynchronize((cudaEvent_t)mark),
                   "waiting for a device objective's values");
}

void ck__cuda_mark_free(void *mark) {
  if (mark)
    cudaEventDestroy((cudaEvent_t)mark);
}

/* Operation events: a pair around the operation, owned by the ck_event. */
ck_status ck__cuda_event_start(ck_queue *queue, ck_event *event) {
  ck_status status = CK_OK;
  if (!event)
    return CK_OK;
  timing *pair = calloc(1, sizeof *pair);
  if (!pair)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for events");
  CK_TRY(make_timing(queue, pair)); /* which destroys what it made */
  /* The event owns the pair from here, a failed record included. */
  event->handle = pair;
  return record(queue, pair->start);
fail:
  free(pair);
  return status;
}

ck_status ck__cuda_event_stop(ck_queue *queue, ck_event *event) {
  return event ? record(queue, ((timing *)event->handle)->end) : CK_OK;
}

static ck_status cu_buffer_create(ck_queue *queue, ck_buffer *buffer) {
  ck_status status = use_device(queue);
  if (status != CK_OK)
    return status;
  void *memory = NULL;
  cudaError_t code = cudaMalloc(&memory, buffer->size);
  if (code != cudaSuccess) {
    cudaGetLastError();
    char what[160];
    snprintf(what, sizeof what,
             "allocating %zu bytes (the device has %llu in all)", buffer->size,
             queue->device.global_memory);
    return ck__cuda_fail(queue, code, what);
  }
  buffer->handle = memory;
  return CK_OK;
}

static void cu_buffer_destroy(ck_buffer *buffer) {
  if (buffer->handle) {
    use_device(buffer->queue);
    cudaFree(buffer->handle);
  }
}

/* Host-to-device, device-to-host and device-to-device moves alike. */
static ck_status move(ck_queue *queue, void *to, const void *from, size_t size,
                      enum cudaMemcpyKind kind, ck_transfer mode,
                      ck_event *event, const char *what) {
  ck_status status;
  if ((status = use_device(queue)) != CK_OK ||
      (status = ck__cuda_event_start(queue, event)) != CK_OK)
    return status;
  cudaError_t code =
      cudaMemcpyAsync(to, from, size, kind, state(queue)->stream);
  if (code != cudaSuccess)
    return ck__cuda_fail(queue, code, what);
  if ((status = ck__cuda_event_stop(queue, event)) != CK_OK)
    return status;
  if (mode == CK_BLOCKING &&
      (code = cudaStreamSynchronize(state(queue)->stream)) != cudaSuccess)
    return ck__cuda_fail(queue, code, what);
  return CK_OK;
}

static ck_status cu_write(ck_queue *queue, ck_buffer *buffer, size_t offset,
                          size_t size, const void *source, ck_transfer mode,
                          ck_event *event) {
  return move(queue, (char *)buffer->handle + offset, source, size,
              cudaMemcpyHostToDevice, mode, event, "writing a buffer");
}

static ck_status cu_read(ck_queue *queue, ck_buffer *buffer, size_t offset,
                         size_t size, void *destination, ck_transfer mode,
                         ck_event *event) {
  return move(queue, destination, (const char *)buffer->handle + offset, size,
              cudaMemcpyDeviceToHost, mode, event, "reading a buffer");
}

static ck_status cu_host_alloc(ck_queue *queue, size_t size, void **pointer) {
  ck_status status = use_device(queue);
  if (status != CK_OK)
    return status;
  cudaError_t code = cudaMallocHost(pointer, size);
  if (code != cudaSuccess) {
    cudaGetLastError();
    *pointer = NULL;
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of page-locked host memory for %zu bytes (%s)", size,
                    cudaGetErrorString(code));
  }
  return CK_OK;
}

static void cu_host_free(ck_queue *queue, void *pointer) {
  (void)queue;
  cudaFreeHost(pointer);
}

static ck_status cu_copy(ck_queue *queue, ck_buffer *destination,
                         size_t destination_offset, ck_buffer *source,
                         size_t source_offset, size_t size, ck_event *event) {
  return move(queue, (char *)destination->handle + destination_offset,
              (const char *)source->handle + source_offset, size,
              cudaMemcpyDeviceToDevice, CK_NONBLOCKING, event,
              "copying a buffer");
}

/* A pattern whose bytes are all alike is a memset; any other is written
 * once and doubled by device copies, so no kernel is needed. */
static ck_status cu_fill(ck_queue *queue, ck_buffer *buffer,
                         const void *pattern, size_t pattern_size,
                         size_t offset, size_t size, ck_event *event) {
  ck_status status;
  const unsigned char *bytes = pattern;
  char *base = (char *)buffer->handle + offset;
  cudaStream_t stream = state(queue)->stream;
  cudaError_t code = cudaSuccess;
  int uniform = 1;
  for (size_t i = 1; i < pattern_size; ++i)
    uniform &= bytes[i] == bytes[0];
  if ((status = use_device(queue)) != CK_OK ||
      (status = ck__cuda_event_start(queue, event)) != CK_OK)
    return status;
  if (uniform) {
    code = cudaMemsetAsync(base, bytes[0], size, stream);
  } else {
    /* The first copy reads pageable host memory, which CUDA stages
     * before returning; the doublings are device to device. */
    code = cudaMemcpyAsync(base, pattern, pattern_size, cudaMemcpyHostToDevice,
                           stream);
    for (size_t done = pattern_size; code == cudaSuccess && done < size;) {
      size_t step = done < size - done ? done : size - done;
      code = cudaMemcpyAsync(base + done, base, step, cudaMemcpyDeviceToDevice,
                             stream);
      done += step;
    }
  }
  if (code != cudaSuccess)
    return ck__cuda_fail(queue, code, "filling a buffer");
  return ck__cuda_event_stop(queue, event);
}

static ck_status cu_event_wait(ck_event *event) {
  cudaError_t code = cudaEventSynchronize(((timing *)event->handle)->end);
  return code == cudaSuccess
             ? CK_OK
             : ck__cuda_fail(event->queue, code, "waiting for an event");
}

static ck_status cu_event_times(ck_event *event, uint64_t *start_ns,
                                uint64_t *end_ns) {
  timing *pair = event->handle;
  float start = 0, span = 0;
  cudaEvent_t epoch = state(event->queue)->epoch;
  cudaError_t code = cudaEventElapsedTime(&start, epoch, pair->start);
  /* The span from its own pair of events: a float of milliseconds since
   * the queue began loses microseconds once the queue is old, where the
   * span's float keeps them. */
  if (code == cudaSuccess)
    code = cudaEventElapsedTime(&span, pair->start, pair->end);
  if (code != cudaSuccess)
    return ck__cuda_fail(event->queue, code, "reading event times");
  *start_ns = (uint64_t)((double)start * 1e6);
  *end_ns = *start_ns + (uint64_t)((double)span * 1e6);
  return CK_OK;
}

static void cu_event_destroy(ck_event *event) {
  timing *pair = event->handle;
  if (!pair)
    return;
  cudaEventDestroy(pair->start);
  cudaEventDestroy(pair->end);
  free(pair);
}

const ck__queue_ops ck__cuda_ops = {
    .create = cu_create,
    .create_beside = cu_create_beside,
    .destroy = cu_destroy,
    .finish = cu_finish,
    .buffer_create = cu_buffer_create,
    .buffer_destroy = cu_buffer_destroy,
    .write = cu_write,
    .read = cu_read,
    .copy = cu_copy,
    .fill = cu_fill,
    .program_build = ck__cuda_program_build,
    .program_key = ck__cuda_program_key,
    .program_destroy = ck__cuda_program_destroy,
    .kernel_create = ck__cuda_kernel_create,
    .kernel_destroy = ck__cuda_kernel_destroy,
    .kernel_set_arg = ck__cuda_kernel_set_arg,
    .kernel_argument_count = ck__cuda_kernel_argument_count,
    .launch = ck__cuda_launch,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .event_wait = cu_event_wait,
    .event_times = cu_event_times,
    .event_destroy = cu_event_destroy,
    .peer = &ck__cuda_peer_ops,
};
