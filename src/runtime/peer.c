/*
 * peer.c - copies between two queues' buffers without the host, and
 * reads between the processes of one node (runtime.h's ck__peer and
 * ck__ipc_*): the arguments checked, then the backend's ck__peer_ops
 * (backend.h). CUDA's (peer_cuda.c) copies between GPUs of one process,
 * and through CUDA IPC between processes. For tests, ref's queues copy
 * too (CK__TEST_PEER_REF): a memmove between their host memory,
 * done at the call as ref's operations are (queue_host.c).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

struct ck__peer {
  const ck__peer_ops *ops;
  ck_backend backend; /* of both devices */
  int from, to;       /* the devices' indices */
  int direct;         /* 1 where `to`'s kernels may read `from`'s memory */
  void *state;        /* the backend's */
};

struct ck__ipc_event {
  const ck__peer_ops *ops;
  void *state; /* the backend's */
};

int ck__peer_enabled(void) {
  return !ck__setting_off("CLKIT_PEER");
}

/* The copies and reads of the device's backend, or NULL. */
static const ck__peer_ops *peer_ops(const ck_device *device) {
  const ck__queue_ops *queue = ck__queue_ops_for(device);
  return queue ? queue->peer : NULL;
}

/* The backend's peer (ops) from `from` to `to`, into *peer. */
static ck_status open_with(const ck__peer_ops *ops, const ck_device *from,
                           const ck_device *to, ck__peer **peer) {
  ck__peer *made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  made->ops = ops;
  made->backend = from->backend;
  made->from = from->device_index;
  made->to = to->device_index;
  ck_status status = ops->open(from, to, &made->state, &made->direct);
  if (status != CK_OK) {
    free(made);
    return status;
  }
  *peer = made;
  return CK_OK;
}

ck_status ck__peer_open(const ck_device *from, const ck_device *to,
                        ck__peer **peer) {
  CK__REQUIRE(from);
  CK__REQUIRE(to);
  CK__REQUIRE(peer);
  *peer = NULL;
  /* Between devices of one backend that copies; ref's are for tests. */
  const ck__peer_ops *ops = peer_ops(from);
  if (from->backend != to->backend || !ops || !ck__peer_enabled() ||
      (from->backend == CK_BACKEND_REF && !ck__test_value(CK__TEST_PEER_REF)))
    return CK_OK;
  return open_with(ops, from, to, peer);
}

ck_status ck__peer_open_self(const ck_device *device, ck__peer **peer) {
  CK__REQUIRE(device);
  CK__REQUIRE(peer);
  *peer = NULL;
  const ck__peer_ops *ops = peer_ops(device);
  return ops ? open_with(ops, device, device, peer) : CK_OK;
}

ck_status ck__peer_copy(ck__peer *peer, ck_queue *to, ck_buffer *destination,
                        size_t destination_offset, ck_queue *from,
                        ck_buffer *source, size_t source_offset, size_t size) {
  CK__REQUIRE(peer);
  CK__REQUIRE(to);
  CK__REQUIRE(destination);
  CK__REQUIRE(from);
  CK__REQUIRE(source);
  if (destination->queue != to || source->queue != from ||
      to->device.backend != peer->backend ||
      from->device.backend != peer->backend ||
      to->device.device_index != peer->to ||
      from->device.device_index != peer->from)
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
  assert(peer->ops && peer->ops->copy);
  return peer->ops->copy(peer->state, to, destination, destination_offset, from,
                         source, source_offset, size);
}

ck_status ck__peer_mark(ck__peer *peer, ck_queue *from) {
  CK__REQUIRE(peer);
  CK__REQUIRE(from);
  assert(peer->ops);
  return peer->ops->mark ? peer->ops->mark(peer->state, from) : CK_OK;
}

ck_status ck__peer_follow(ck__peer *peer, ck_queue *to) {
  CK__REQUIRE(peer);
  CK__REQUIRE(to);
  assert(peer->ops);
  return peer->ops->follow ? peer->ops->follow(peer->state, to) : CK_OK;
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
  assert(peer->ops && peer->ops->address);
  *address = peer->ops->address(source);
  return CK_OK;
}

int ck__peer_direct(const ck__peer *peer) {
  return peer && peer->direct;
}

void ck__peer_close(ck__peer *peer) {
  if (!peer)
    return;
  if (peer->ops->close)
    peer->ops->close(peer->state);
  free(peer);
}

/* ---- between processes of one node ------------------------------------ */

/* The reads between processes of the queue's backend, given the queue
 * and handle of a call (function: the caller's name), checked: CUDA's
 * alone has them (CUDA IPC), and the rest is refused. */
static ck_status ipc_given(const char *function, const ck_queue *queue,
                           const void *handle, const ck__peer_ops **ops) {
  CK__REQUIRE_IN(function, queue);
  CK__REQUIRE_IN(function, handle);
  *ops = peer_ops(&queue->device);
  if (*ops && (*ops)->buffer_handle) {
    /* All or none (backend.h). */
    assert((*ops)->buffer_open && (*ops)->event_make && (*ops)->event_open &&
           (*ops)->event_close);
    return CK_OK;
  }
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "reads between processes need CUDA devices");
}

ck_status ck__ipc_device_identity(const ck_device *device, void *identity) {
  CK__REQUIRE(device);
  CK__REQUIRE(identity);
  memset(identity, 0, CK__IPC_IDENTITY_BYTES);
  const ck__peer_ops *ops = peer_ops(device);
  return ops && ops->identity ? ops->identity(device, identity) : CK_OK;
}

ck_status ck__ipc_buffer_handle(ck_buffer *buffer, void *handle) {
  CK__REQUIRE(buffer);
  const ck__peer_ops *ops = NULL;
  ck_status status = ipc_given(__func__, buffer->queue, handle, &ops);
  return status == CK_OK ? ops->buffer_handle(buffer, handle) : status;
}

ck_status ck__ipc_buffer_open(ck_queue *queue, const void *handle,
                              uint64_t *address) {
  CK__REQUIRE(address);
  *address = 0;
  const ck__peer_ops *ops = NULL;
  ck_status status = ipc_given(__func__, queue, handle, &ops);
  return status == CK_OK ? ops->buffer_open(queue, handle, address) : status;
}

void ck__ipc_buffer_close(const ck_device *device, uint64_t address) {
  if (!device || !address)
    return;
  const ck__peer_ops *ops = peer_ops(device);
  if (ops && ops->buffer_close)
    ops->buffer_close(device, address);
}

/* An event of this process's (make 1: its handle into handle) or
 * another's (make 0: from handle), on the queue's device. */
static ck_status ipc_event(const char *function, ck_queue *queue, int make,
                           void *handle, ck__ipc_event **event) {
  CK__REQUIRE_IN(function, event);
  *event = NULL;
  const ck__peer_ops *ops = NULL;
  ck_status status = ipc_given(function, queue, handle, &ops);
  if (status != CK_OK)
    return status;
  ck__ipc_event *got = calloc(1, sizeof *got);
  if (!got)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  got->ops = ops;
  status = make ? ops->event_make(queue, handle, &got->state)
                : ops->event_open(queue, handle, &got->state);
  if (status != CK_OK) {
    free(got);
    return status;
  }
  *event = got;
  return CK_OK;
}

ck_status ck__ipc_event_make(ck_queue *queue, ck__ipc_event **event,
                             void *handle) {
  return ipc_event(__func__, queue, 1, handle, event);
}

ck_status ck__ipc_event_open(ck_queue *queue, const void *handle,
                             ck__ipc_event **event) {
  /* Read, not written, where make is 0. */
  return ipc_event(__func__, queue, 0, (void *)handle, event);
}

ck_status ck__ipc_event_record(ck__ipc_event *event, ck_queue *queue) {
  CK__REQUIRE(event);
  CK__REQUIRE(queue);
  assert(event->ops && event->ops->event_record);
  return event->ops->event_record(event->state, queue);
}

ck_status ck__ipc_event_wait(ck__ipc_event *event, ck_queue *queue) {
  CK__REQUIRE(event);
  CK__REQUIRE(queue);
  assert(event->ops && event->ops->event_wait);
  return event->ops->event_wait(event->state, queue);
}

void ck__ipc_event_close(ck__ipc_event *event) {
  if (!event)
    return;
  event->ops->event_close(event->state);
  free(event);
}
