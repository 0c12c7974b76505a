/*
 * queue_host.c - the ref device's queue: buffers in host memory, transfers
 * as memcpy, and no kernels (ref work is each workload's plain-C steps).
 * Everything completes before the call returns, so events are trivial.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

static ck_status host_create(ck_queue *queue) {
  (void)queue;
  return CK_OK;
}

static void host_destroy(ck_queue *queue) {
  (void)queue;
}

static ck_status host_finish(ck_queue *queue) {
  (void)queue;
  return CK_OK;
}

static ck_status host_buffer_create(ck_queue *queue, ck_buffer *buffer) {
  assert(queue && buffer && buffer->size > 0);
  /* 64-byte alignment lets ref steps use vector loads like a device would;
   * a size whose rounding would wrap is past any host's memory. */
  size_t rounded = (buffer->size + 63) & ~(size_t)63;
  buffer->handle =
      buffer->size <= SIZE_MAX - 63 ? aligned_alloc(64, rounded) : NULL;
  if (!buffer->handle)
    return ck__fail(CK_ERROR_DEVICE_MEMORY,
                    "device %s: cannot allocate %zu bytes of host memory",
                    queue->device.id, buffer->size);
  return CK_OK;
}

static void host_buffer_destroy(ck_buffer *buffer) {
  free(buffer->handle);
}

static ck_status host_write(ck_queue *queue, ck_buffer *buffer, size_t offset,
                            size_t size, const void *source, ck_transfer mode,
                            ck_event *event) {
  (void)queue, (void)mode, (void)event;
  /* queue.c checked the range. */
  assert(buffer->handle && source && offset + size <= buffer->size);
  memcpy((char *)buffer->handle + offset, source, size);
  return CK_OK;
}

static ck_status host_read(ck_queue *queue, ck_buffer *buffer, size_t offset,
                           size_t size, void *destination, ck_transfer mode,
                           ck_event *event) {
  (void)queue, (void)mode, (void)event;
  assert(buffer->handle && destination && offset + size <= buffer->size);
  memcpy(destination, (const char *)buffer->handle + offset, size);
  return CK_OK;
}

static ck_status host_copy(ck_queue *queue, ck_buffer *destination,
                           size_t destination_offset, ck_buffer *source,
                           size_t source_offset, size_t size, ck_event *event) {
  (void)queue, (void)event;
  assert(destination_offset + size <= destination->size &&
         source_offset + size <= source->size);
  memcpy((char *)destination->handle + destination_offset,
         (const char *)source->handle + source_offset, size);
  return CK_OK;
}

static ck_status host_fill(ck_queue *queue, ck_buffer *buffer,
                           const void *pattern, size_t pattern_size,
                           size_t offset, size_t size, ck_event *event) {
  (void)queue, (void)event;
  assert(pattern_size > 0 && size % pattern_size == 0 &&
         offset + size <= buffer->size);
  char *target = (char *)buffer->handle + offset;
  for (size_t at = 0; at < size; at += pattern_size)
    memcpy(target + at, pattern, pattern_size);
  return CK_OK;
}

static ck_status host_no_kernels(const ck_queue *queue) {
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "device %s runs no kernels: ref work is plain C in each "
                  "workload's ref steps",
                  queue->device.id);
}

static ck_status host_program_build(ck_queue *queue, ck_program *program,
                                    const char *source, const char *options) {
  (void)program, (void)source, (void)options;
  return host_no_kernels(queue);
}

static void host_program_destroy(ck_program *program) {
  (void)program;
}

static ck_status host_kernel_create(ck_program *program, ck_kernel *kernel) {
  (void)kernel;
  return host_no_kernels(program->queue);
}

static void host_kernel_destroy(ck_kernel *kernel) {
  (void)kernel;
}

static ck_status host_kernel_set_arg(ck_kernel *kernel, unsigned index,
                                     ck__arg_kind kind, size_t size,
                                     const void *value) {
  (void)index, (void)kind, (void)size, (void)value;
  return host_no_kernels(kernel->program->queue);
}

/* Never called: ref makes no kernels. */
static int host_kernel_argument_count(const ck_kernel *kernel) {
  (void)kernel;
  return -1;
}

static ck_status host_launch(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                             const size_t *global, const size_t *local,
                             ck_event *event) {
  (void)kernel, (void)dims, (void)global, (void)local, (void)event;
  return host_no_kernels(queue);
}

static ck_status host_event_wait(ck_event *event) {
  (void)event;
  return CK_OK;
}

static ck_status host_event_times(ck_event *event, uint64_t *start_ns,
                                  uint64_t *end_ns) {
  (void)event;
  *start_ns = 0;
  *end_ns = 0;
  return CK_OK;
}

static void host_event_destroy(ck_event *event) {
  (void)event;
}

/* Copies between ref devices, for tests (CK__TEST_PEER_REF): a
 * memmove between their host memory, done at the call. */
static ck_status host_peer_open(const ck_device *from, const ck_device *to,
                                void **state, int *direct) {
  (void)from, (void)to;
  *state = NULL;
  *direct = 1;
  return CK_OK;
}

static ck_status host_peer_copy(void *state, ck_queue *to,
                                ck_buffer *destination,
                                size_t destination_offset, ck_queue *from,
                                ck_buffer *source, size_t source_offset,
                                size_t size) {
  (void)state, (void)to, (void)from;
  memmove((char *)destination->handle + destination_offset,
          (const char *)source->handle + source_offset, size);
  return CK_OK;
}

static uint64_t host_peer_address(const ck_buffer *buffer) {
  return (uint64_t)(uintptr_t)buffer->handle;
}

static const ck__peer_ops host_peer_ops = {
    .open = host_peer_open,
    .copy = host_peer_copy,
    .address = host_peer_address,
};

const ck__queue_ops ck__host_ops = {
    .create = host_create,
    .destroy = host_destroy,
    .finish = host_finish,
    .buffer_create = host_buffer_create,
    .buffer_destroy = host_buffer_destroy,
    .write = host_write,
    .read = host_read,
    .copy = host_copy,
    .fill = host_fill,
    .program_build = host_program_build,
    .program_destroy = host_program_destroy,
    .kernel_create = host_kernel_create,
    .kernel_destroy = host_kernel_destroy,
    .kernel_set_arg = host_kernel_set_arg,
    .kernel_argument_count = host_kernel_argument_count,
    .launch = host_launch,
    .event_wait = host_event_wait,
    .event_times = host_event_times,
    .event_destroy = host_event_destroy,
    .peer = &host_peer_ops,
};
