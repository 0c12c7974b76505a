/*
 * peer_cuda.c - CUDA's copies between devices and reads between
 * processes (backend.h's ck__peer_ops; built where CUDA is found; peer.c
 * checks the arguments first).
 *
 * - A copy goes on the destination's stream, by cudaMemcpyPeerAsync
 *   between two GPUs or a device copy on one, fenced by events against
 *   both queues' streams.
 * - Between the processes of one node, CUDA IPC: buffers' and events'
 *   handles that another process opens.
 */
#include <assert.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* Copies from one GPU to another (or to itself). */
typedef struct cuda_peer {
  int from, to;       /* the devices' CUDA ordinals */
  cudaEvent_t sent;   /* on the source's device: its queue's work so far */
  cudaEvent_t copied; /* on the destination's device: the copy */
} cuda_peer;

/* An event shared between processes, on the device it was made or
 * opened on. */
typedef struct cuda_ipc_event {
  int device;
  cudaEvent_t event;
} cuda_ipc_event;

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

static void cu_peer_close(void *state) {
  cuda_peer *peer = state;
  if (!peer)
    return;
  if (peer->sent && cudaSetDevice(peer->from) == cudaSuccess)
    cudaEventDestroy(peer->sent);
  if (peer->copied && cudaSetDevice(peer->to) == cudaSuccess)
    cudaEventDestroy(peer->copied);
  cudaGetLastError();
  free(peer);
}

static ck_status cu_peer_open(const ck_device *from, const ck_device *to,
                              void **state, int *direct) {
  assert(from->backend == CK_BACKEND_CUDA && to->backend == CK_BACKEND_CUDA);
  cuda_peer *made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  made->from = from->device_index;
  made->to = to->device_index;
  *direct = made->from == made->to || enable_access(made->from, made->to);
  cudaError_t code = event_on(made->from, &made->sent);
  if (code == cudaSuccess)
    code = event_on(made->to, &made->copied);
  if (code != cudaSuccess) {
    cu_peer_close(made);
    return peer_fail(code, "making events for copies");
  }
  *state = made;
  return CK_OK;
}

static ck_status cu_peer_copy(void *state, ck_queue *to, ck_buffer *destination,
                              size_t destination_offset, ck_queue *from,
                              ck_buffer *source, size_t source_offset,
                              size_t size) {
  cuda_peer *peer = state;
  assert(peer && to->device.device_index == peer->to &&
         from->device.device_index == peer->from);
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
}

static ck_status cu_peer_mark(void *state, ck_queue *from) {
  cuda_peer *peer = state;
  cudaError_t code = mark_or_follow(peer->from, peer->sent, from, 1);
  return code == cudaSuccess ? CK_OK : peer_fail(code, "marking a queue");
}

static ck_status cu_peer_follow(void *state, ck_queue *to) {
  cuda_peer *peer = state;
  cudaError_t code = mark_or_follow(peer->to, peer->sent, to, 0);
  return code == cudaSuccess ? CK_OK : peer_fail(code, "following a mark");
}

static uint64_t cu_peer_address(const ck_buffer *buffer) {
  return (uint64_t)(uintptr_t)ck__cuda_pointer(buffer);
}

/* ---- between processes of one node (CUDA IPC) ------------------------ */

static ck_status ipc_fail(cudaError_t code, const char *what) {
  cudaGetLastError();
  return ck__fail(CK_ERROR_DEVICE, "%s between processes failed: %s (%s)%s",
                  what, cudaGetErrorName(code), cudaGetErrorString(code),
                  ck__cuda_lost_note(code));
}

static ck_status cu_ipc_identity(const ck_device *device, void *identity) {
  struct cudaDeviceProp properties;
  cudaError_t code = cudaGetDeviceProperties(&properties, device->device_index);
  if (code != cudaSuccess)
    return ipc_fail(code, "a GPU's identity");
  memcpy(identity, properties.uuid.bytes, CK__IPC_IDENTITY_BYTES);
  return CK_OK;
}

static ck_status cu_ipc_buffer_handle(ck_buffer *buffer, void *handle) {
  cudaIpcMemHandle_t made;
  cudaError_t code = cudaSetDevice(buffer->queue->device.device_index);
  if (code == cudaSuccess)
    code = cudaIpcGetMemHandle(&made, ck__cuda_pointer(buffer));
  if (code != cudaSuccess)
    return ipc_fail(code, "a buffer's handle for reads");
  memcpy(handle, &made, sizeof made);
  return CK_OK;
}

static ck_status cu_ipc_buffer_open(ck_queue *queue, const void *handle,
                                    uint64_t *address) {
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
  return CK_OK;
}

static void cu_ipc_buffer_close(const ck_device *device, uint64_t address) {
  if (cudaSetDevice(device->device_index) != cudaSuccess ||
      cudaIpcCloseMemHandle((void *)(uintptr_t)address) != cudaSuccess)
    cudaGetLastError();
}

static void cu_ipc_event_close(void *state) {
  cuda_ipc_event *event = state;
  if (!event)
    return;
  if (event->event && (cudaSetDevice(event->device) != cudaSuccess ||
                       cudaEventDestroy(event->event) != cudaSuccess))
    cudaGetLastError();
  free(event);
}

/* An event of this process's (make 1: its handle into handle) or
 * another's (make 0: from handle), on the queue's device. */
static ck_status ipc_event(ck_queue *queue, int make, void *handle,
                           void **state) {
  cuda_ipc_event *got = calloc(1, sizeof *got);
  if (!got)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  got->device = queue->device.device_index;
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
    cu_ipc_event_close(got);
    return ipc_fail(code, make ? "an event for another process"
                               : "opening another process's event");
  }
  if (make)
    memcpy(handle, &shared, sizeof shared);
  *state = got;
  return CK_OK;
}

static ck_status cu_ipc_event_make(ck_queue *queue, void *handle,
                                   void **event) {
  return ipc_event(queue, 1, handle, event);
}

static ck_status cu_ipc_event_open(ck_queue *queue, const void *handle,
                                   void **event) {
  /* Read, not written: the handle given is copied back unchanged. */
  return ipc_event(queue, 0, (void *)handle, event);
}

static ck_status cu_ipc_event_record(void *state, ck_queue *queue) {
  cuda_ipc_event *event = state;
  cudaError_t code =
      mark_or_follow(queue->device.device_index, event->event, queue, 1);
  return code == cudaSuccess ? CK_OK : ipc_fail(code, "marking a queue");
}

static ck_status cu_ipc_event_wait(void *state, ck_queue *queue) {
  cuda_ipc_event *event = state;
  cudaError_t code =
      mark_or_follow(queue->device.device_index, event->event, queue, 0);
  return code == cudaSuccess
             ? CK_OK
             : ipc_fail(code, "following another process's mark");
}

const ck__peer_ops ck__cuda_peer_ops = {
    .open = cu_peer_open,
    .close = cu_peer_close,
    .copy = cu_peer_copy,
    .mark = cu_peer_mark,
    .follow = cu_peer_follow,
    .address = cu_peer_address,
    .identity = cu_ipc_identity,
    .buffer_handle = cu_ipc_buffer_handle,
    .buffer_open = cu_ipc_buffer_open,
    .buffer_close = cu_ipc_buffer_close,
    .event_make = cu_ipc_event_make,
    .event_open = cu_ipc_event_open,
    .event_record = cu_ipc_event_record,
    .event_wait = cu_ipc_event_wait,
    .event_close = cu_ipc_event_close,
};
