/*
 * peer.c - copies between two queues' buffers without the host
 * (runtime.h's ck__peer): CUDA devices of one process. The copy goes on
 * the destination's stream, by cudaMemcpyPeerAsync between two GPUs or a
 * device copy on one, fenced by events against both queues' streams.
 * For tests, ref's queues copy too (ck__peer_ref_for_tests): a memmove
 * between their host memory, done at the call as ref's operations are.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

#if CK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

struct ck__peer {
  ck_backend backend; /* CUDA's, or ref's for tests */
  int from, to;       /* the devices' CUDA ordinals */
  int direct;         /* 1 where `to`'s kernels may read `from`'s memory */
#if CK_HAVE_CUDA
  cudaEvent_t sent;   /* on the source's device: its queue's work so far */
  cudaEvent_t copied; /* on the destination's device: the copy */
#endif
};

_Thread_local int ck__peer_ref_for_tests;

int ck__peer_enabled(void) {
  return !ck__setting_off("CLKIT_PEER");
}

#if CK_HAVE_CUDA
static ck_status peer_fail(cudaError_t code, const char *what) {
  cudaGetLastError(); /* not sticky: clear it */
  return ck__fail(CK_ERROR_DEVICE, "%s between CUDA devices failed: %s (%s)%s",
                  what, cudaGetErrorName(code), cudaGetErrorString(code),
                  ck__cuda_lost_note(code));
}

/* Makes `device` current, then records event on queue's stream (mark 1)
 * or makes that stream follow the event's last record (mark 0): the
 * marks of peers and of processes alike. */
static cudaError_t mark_or_follow(int device, cudaEvent_t event,
                                  const ck_queue *queue, int mark) {
  cudaError_t code = cudaSetDevice(device);
  if (code != cudaSuccess)
    return code;
  return mark ? cudaEventRecord(event, ck__cuda_stream(queue))
              : cudaStreamWaitEvent(ck__cuda_stream(queue), event, 0);
}

/* Makes `device` current, then makes an event without timing on it. */
static cudaError_t event_on(int device, cudaEvent_t *event) {
  cudaError_t code = cudaSetDevice(device);
  if (code == cudaSuccess)
    code = cudaEventCreateWithFlags(event, cudaEventDisableTiming);
  if (code != cudaSuccess)
    *event = NULL;
  return code;
}

/* Lets `to` read `from`'s memory where the GPUs allow; without it, CUDA
 * copies between them through host memory itself. Enabled already (by
 * an earlier pair in this process) is no failure. Returns 1 where `to`'s
 * kernels may read `from`'s memory. */
static int enable_access(int from, int to) {
  int can = 0;
  cudaError_t code = cudaErrorUnknown;
  if (cudaDeviceCanAccessPeer(&can, to, from) == cudaSuccess && can &&
      cudaSetDevice(to) == cudaSuccess)
    code = cudaDeviceEnablePeerAccess(from, 0);
  if (code != cudaSuccess)
    cudaGetLastError();
  return code == cudaSuccess || code == cudaErrorPeerAccessAlreadyEnabled;
}
#endif

ck_status ck__peer_open(const ck_device *from, const ck_device *to,
                        ck__peer **peer) {
  CK__REQUIRE(from);
  CK__REQUIRE(to);
  CK__REQUIRE(peer);
  *peer = NULL;
  if (ck__peer_ref_for_tests && from->backend == CK_BACKEND_REF &&
      to->backend == CK_BACKEND_REF && ck__peer_enabled()) {
    if (!(*peer = calloc(1, sizeof **peer)))
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    (*peer)->backend = CK_BACKEND_REF;
    (*peer)->direct = 1;
    return CK_OK;
  }
#if CK_HAVE_CUDA
  if (from->backend != CK_BACKEND_CUDA || to->backend != CK_BACKEND_CUDA ||
      !ck__peer_enabled())
    return CK_OK;
  ck__peer *made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  made->backend = CK_BACKEND_CUDA;
  made->from = from->device_index;
  made->to = to->device_index;
  made->direct = made->from == made->to || enable_access(made->from, made->to);
  cudaError_t code = event_on(made->from, &made->sent);
  if (code == cudaSuccess)
    code = event_on(made->to, &made->copied);
  if (code != cudaSuccess) {
    ck__peer_close(made);
    return peer_fail(code, "making events for copies");
  }
  *peer = made;
  return CK_OK;
#else
  return CK_OK;
#endif
}

ck_status ck__peer_copy(ck__peer *peer, ck_queue *to, ck_buffer *destination,
                        size_t destination_offset, ck_queue *from,
                        ck_buffer *source, size_t source_offset, size_t size) {
  CK__REQUIRE(peer);
  CK__REQUIRE(to);
  CK__REQUIRE(destination);
  CK__REQUIRE(from);
  CK__REQUIRE(source);
  int cuda = peer->backend == CK_BACKEND_CUDA;
  if (destination->queue != to || source->queue != from ||
      to->device.backend != peer->backend ||
      from->device.backend != peer->backend ||
      (cuda && (to->device.device_index != peer->to ||
                from->device.device_index != peer->from)))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__peer_copy: the buffers are not the queues', or the "
                    "queues not the devices the copies were opened for");
  if (destination_offset > destination->size ||
      size > destination->size - destination_offset ||
      source_offset > source->size || size > source->size - source_offset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__peer_copy: %zu bytes from %zu of a %zu-byte buffer "
                    "to %zu of a %zu-byte one",
                    size, source_offset, source->size, destination_offset,
                    destination->size);
  if (size == 0)
    return CK_OK;
  if (!cuda) {
    memmove((char *)destination->handle + destination_offset,
            (const char *)source->handle + source_offset, size);
    return CK_OK;
  }
#if CK_HAVE_CUDA
  cudaStream_t sending = ck__cuda_stream(from), receiving = ck__cuda_stream(to);
  char *target = (char *)ck__cuda_pointer(destination) + destination_offset;
  const char *origin = (const char *)ck__cuda_pointer(source) + source_offset;
  cudaError_t code = cudaSuccess;
  if (from == to) {
    /* One queue: its own order is the fence. */
    if ((code = cudaSetDevice(peer->to)) == cudaSuccess)
      code = cudaMemcpyAsync(target, origin, size, cudaMemcpyDeviceToDevice,
                             receiving);
    return code == cudaSuccess ? CK_OK : peer_fail(code, "a copy");
  }
  /* After the source's work so far; the source's later work waits for
   * the copy, so that it cannot overwrite what is being read. */
  if ((code = cudaSetDevice(peer->from)) != cudaSuccess ||
      (code = cudaEventRecord(peer->sent, sending)) != cudaSuccess ||
      (code = cudaSetDevice(peer->to)) != cudaSuccess ||
      (code = cudaStreamWaitEvent(receiving, peer->sent, 0)) != cudaSuccess)
    return peer_fail(code, "ordering a copy");
  code = peer->from == peer->to
             ? cudaMemcpyAsync(target, origin, size, cudaMemcpyDeviceToDevice,
                               receiving)
             : cudaMemcpyPeerAsync(target, peer->to, origin, peer->from, size,
                                   receiving);
  if (code != cudaSuccess)
    return peer_fail(code, "a copy");
  if ((code = cudaEventRecord(peer->copied, receiving)) != cudaSuccess ||
      (code = cudaSetDevice(peer->from)) != cudaSuccess ||
      (code = cudaStreamWaitEvent(sending, peer->copied, 0)) != cudaSuccess ||
      (code = cudaSetDevice(peer->to)) != cudaSuccess)
    return peer_fail(code, "ordering a copy");
  return CK_OK;
#else
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "copies between devices need CUDA, which this clkit lacks");
#endif
}

ck_status ck__peer_mark(ck__peer *peer, ck_queue *from) {
  CK__REQUIRE(peer);
  CK__REQUIRE(from);
  if (peer->backend != CK_BACKEND_CUDA)
    return CK_OK; /* ref: done at the call */
#if CK_HAVE_CUDA
  cudaError_t code = mark_or_follow(peer->from, peer->sent, from, 1);
  return code == cudaSuccess ? CK_OK : peer_fail(code, "marking a queue");
#else
  return CK_OK;
#endif
}

ck_status ck__peer_follow(ck__peer *peer, ck_queue *to) {
  CK__REQUIRE(peer);
  CK__REQUIRE(to);
  if (peer->backend != CK_BACKEND_CUDA)
    return CK_OK;
#if CK_HAVE_CUDA
  cudaError_t code = mark_or_follow(peer->to, peer->sent, to, 0);
  return code == cudaSuccess ? CK_OK : peer_fail(code, "following a mark");
#else
  return CK_OK;
#endif
}

ck_status ck__peer_address(const ck__peer *peer, ck_buffer *source,
                           uint64_t *address) {
  CK__REQUIRE(peer);
  CK__REQUIRE(source);
  CK__REQUIRE(address);
  *address = 0;
  if (!peer->direct)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "CUDA device %d cannot read the memory of device %d",
                    peer->to, peer->from);
  if (peer->backend != CK_BACKEND_CUDA) {
    *address = (uint64_t)(uintptr_t)source->handle;
    return CK_OK;
  }
#if CK_HAVE_CUDA
  *address = (uint64_t)(uintptr_t)ck__cuda_pointer(source);
#endif
  return CK_OK;
}

int ck__peer_direct(const ck__peer *peer) {
  return peer && peer->direct;
}

/* ---- between processes of one node (CUDA IPC) ------------------------ */

struct ck__ipc_event {
  int device; /* the CUDA ordinal of the queue it was made or opened on */
#if CK_HAVE_CUDA
  cudaEvent_t event;
#endif
};

#if CK_HAVE_CUDA
static ck_status ipc_fail(cudaError_t code, const char *what) {
  cudaGetLastError();
  return ck__fail(CK_ERROR_DEVICE, "%s between processes failed: %s (%s)%s",
                  what, cudaGetErrorName(code), cudaGetErrorString(code),
                  ck__cuda_lost_note(code));
}
#endif

/* The queue and handle that a call between processes is given, checked
 * (function: the caller's name); CUDA IPC needs CUDA queues, and the rest
 * is refused. */
static ck_status ipc_given(const char *function, const ck_queue *queue,
                           const void *handle) {
  CK__REQUIRE_IN(function, queue);
  CK__REQUIRE_IN(function, handle);
#if CK_HAVE_CUDA
  if (queue->device.backend == CK_BACKEND_CUDA)
    return CK_OK;
#endif
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "reads between processes need CUDA devices");
}

ck_status ck__ipc_device_identity(const ck_device *device, void *identity) {
  CK__REQUIRE(device);
  CK__REQUIRE(identity);
  memset(identity, 0, CK__IPC_IDENTITY_BYTES);
#if CK_HAVE_CUDA
  if (device->backend == CK_BACKEND_CUDA) {
    struct cudaDeviceProp properties;
    cudaError_t code =
        cudaGetDeviceProperties(&properties, device->device_index);
    if (code != cudaSuccess)
      return ipc_fail(code, "a GPU's identity");
    memcpy(identity, properties.uuid.bytes, CK__IPC_IDENTITY_BYTES);
  }
#endif
  return CK_OK;
}

ck_status ck__ipc_buffer_handle(ck_buffer *buffer, void *handle) {
  CK__REQUIRE(buffer);
  ck_status status = ipc_given(__func__, buffer->queue, handle);
  if (status != CK_OK)
    return status;
#if CK_HAVE_CUDA
  cudaIpcMemHandle_t made;
  cudaError_t code = cudaSetDevice(buffer->queue->device.device_index);
  if (code == cudaSuccess)
    code = cudaIpcGetMemHandle(&made, ck__cuda_pointer(buffer));
  if (code != cudaSuccess)
    return ipc_fail(code, "a buffer's handle for reads");
  memcpy(handle, &made, sizeof made);
#endif
  return CK_OK;
}

ck_status ck__ipc_buffer_open(ck_queue *queue, const void *handle,
                              uint64_t *address) {
  CK__REQUIRE(address);
  *address = 0;
  ck_status status = ipc_given(__func__, queue, handle);
  if (status != CK_OK)
    return status;
#if CK_HAVE_CUDA
  cudaIpcMemHandle_t opened;
  void *pointer = NULL;
  memcpy(&opened, handle, sizeof opened);
  cudaError_t code = cudaSetDevice(queue->device.device_index);
  if (code == cudaSuccess)
    code =
        cudaIpcOpenMemHandle(&pointer, opened, cudaIpcMemLazyEnablePeerAccess);
  if (code != cudaSuccess)
    return ipc_fail(code, "opening another process's buffer");
  *address = (uint64_t)(uintptr_t)pointer;
#endif
  return CK_OK;
}

void ck__ipc_buffer_close(const ck_device *device, uint64_t address) {
  if (!device || !address)
    return;
#if CK_HAVE_CUDA
  if (cudaSetDevice(device->device_index) != cudaSuccess ||
      cudaIpcCloseMemHandle((void *)(uintptr_t)address) != cudaSuccess)
    cudaGetLastError();
#endif
}

/* An event of this process's (make 1: its handle into handle) or
 * another's (make 0: from handle), on the queue's device. */
static ck_status ipc_event(const char *function, ck_queue *queue, int make,
                           void *handle, ck__ipc_event **event) {
  CK__REQUIRE_IN(function, event);
  *event = NULL;
  ck_status status = ipc_given(function, queue, handle);
  if (status != CK_OK)
    return status;
  ck__ipc_event *got = calloc(1, sizeof *got);
  if (!got)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  got->device = queue->device.device_index;
#if CK_HAVE_CUDA
  cudaIpcEventHandle_t shared;
  memcpy(&shared, handle, sizeof shared);
  cudaError_t code = cudaSetDevice(got->device);
  if (code == cudaSuccess && make)
    code = cudaEventCreateWithFlags(&got->event, cudaEventDisableTiming |
                                                     cudaEventInterprocess);
  if (code == cudaSuccess)
    code = make ? cudaIpcGetEventHandle(&shared, got->event)
                : cudaIpcOpenEventHandle(&got->event, shared);
  if (code != cudaSuccess) {
    ck__ipc_event_close(got);
    return ipc_fail(code, make ? "an event for another process"
                               : "opening another process's event");
  }
  if (make)
    memcpy(handle, &shared, sizeof shared);
#else
  (void)make;
#endif
  *event = got;
  return CK_OK;
}

ck_status ck__ipc_event_make(ck_queue *queue, ck__ipc_event **event,
                             void *handle) {
  return ipc_event(__func__, queue, 1, handle, event);
}

ck_status ck__ipc_event_open(ck_queue *queue, const void *handle,
                             ck__ipc_event **event) {
  /* Read, not written: the handle given is copied back unchanged. */
  return ipc_event(__func__, queue, 0, (void *)handle, event);
}

ck_status ck__ipc_event_record(ck__ipc_event *event, ck_queue *queue) {
  CK__REQUIRE(event);
  CK__REQUIRE(queue);
#if CK_HAVE_CUDA
  cudaError_t code =
      mark_or_follow(queue->device.device_index, event->event, queue, 1);
  if (code != cudaSuccess)
    return ipc_fail(code, "marking a queue");
#endif
  return CK_OK;
}

ck_status ck__ipc_event_wait(ck__ipc_event *event, ck_queue *queue) {
  CK__REQUIRE(event);
  CK__REQUIRE(queue);
#if CK_HAVE_CUDA
  cudaError_t code =
      mark_or_follow(queue->device.device_index, event->event, queue, 0);
  if (code != cudaSuccess)
    return ipc_fail(code, "following another process's mark");
#endif
  return CK_OK;
}

void ck__ipc_event_close(ck__ipc_event *event) {
  if (!event)
    return;
#if CK_HAVE_CUDA
  if (event->event && (cudaSetDevice(event->device) != cudaSuccess ||
                       cudaEventDestroy(event->event) != cudaSuccess))
    cudaGetLastError();
#endif
  free(event);
}

void ck__peer_close(ck__peer *peer) {
  if (!peer)
    return;
#if CK_HAVE_CUDA
  if (peer->backend == CK_BACKEND_CUDA && peer->sent &&
      cudaSetDevice(peer->from) == cudaSuccess)
    cudaEventDestroy(peer->sent);
  if (peer->backend == CK_BACKEND_CUDA && peer->copied &&
      cudaSetDevice(peer->to) == cudaSuccess)
    cudaEventDestroy(peer->copied);
  if (peer->backend == CK_BACKEND_CUDA)
    cudaGetLastError();
#endif
  free(peer);
}
