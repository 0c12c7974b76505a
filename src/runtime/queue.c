/*
 * queue.c - the backend-neutral half of ck_queue: argument checks, handle
 * allocation, and dispatch to the device's backend.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

const ck__queue_ops *ck__queue_ops_for(const ck_device *device) {
  assert(device);
  switch (device->backend) {
  case CK_BACKEND_REF:
    return &ck__host_ops;
  case CK_BACKEND_OPENCL:
    return &ck__opencl_ops;
#if CK_HAVE_CUDA
  case CK_BACKEND_CUDA:
    return &ck__cuda_ops;
#endif
  default:
    return NULL;
  }
}

/* Allocates the caller's event handle, if one was asked for. */
static ck_status event_begin(ck_queue *queue, ck_event **out,
                             ck_event **event) {
  assert(queue && event);
  *event = NULL;
  if (!out)
    return CK_OK;
  *out = NULL;
  *event = calloc(1, sizeof **event);
  if (!*event)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for an event");
  (*event)->queue = queue;
  return CK_OK;
}

static ck_status event_end(ck_status status, ck_event **out, ck_event *event) {
  assert(!event || (out && event->queue)); /* made by event_begin */
  if (!event)
    return status;
  if (status == CK_OK) {
    *out = event;
  } else {
    /* What the backend made for the event before the failure (an OpenCL
     * event, a CUDA pair) goes with it. */
    if (event->handle)
      event->queue->ops->event_destroy(event);
    free(event);
  }
  return status;
}

/* A buffer is used only with the queue it was made on (or one made
 * beside that queue): another queue's may belong to another backend or
 * context, whose handle this one's runtime would misread. */
static ck_status check_queue(const char *what, const ck_queue *queue,
                             const ck_buffer *buffer) {
  assert(what && queue && buffer && buffer->queue);
  if (buffer->queue != queue && buffer->queue != queue->shares)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the buffer was made on another queue (device %s), "
                    "not this one (device %s); a buffer is used only with "
                    "the queue it was made on",
                    what, buffer->queue->device.id, queue->device.id);
  return CK_OK;
}

static ck_status check_range(const char *what, const ck_buffer *buffer,
                             size_t offset, size_t size) {
  assert(what && buffer);
  if (size == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: size is 0", what);
  if (offset > buffer->size || size > buffer->size - offset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: range [%zu, %zu) exceeds the buffer's %zu bytes", what,
                    offset, offset + size, buffer->size);
  return CK_OK;
}

ck_status ck_queue_create(const ck_device *device, ck_queue **queue) {
  ck_status status = CK_OK;
  ck_queue *made = NULL;
  CK__REQUIRE(device);
  CK__REQUIRE(queue);
  *queue = NULL;
  const ck__queue_ops *ops = ck__queue_ops_for(device);
  if (!ops)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "device %s: its backend is not built into this library",
            device->id);
  made = calloc(1, sizeof *made);
  if (!made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a queue");
  made->ops = ops;
  made->device = *device;
  /* A session's device lends the session's queue. */
  CK_TRY(device->session ? ck__session_queue_take(made) : ops->create(made));
  *queue = made;
  return CK_OK;
fail:
  free(made);
  return status;
}

ck_status ck__queue_beside(const ck_queue *home, ck_queue **queue) {
  ck_status status = CK_OK;
  ck_queue *made = NULL;
  ck__peer *marks = NULL;
  assert(home && queue && !home->shares);
  *queue = NULL;
  CK_TRY(ck__peer_open_self(&home->device, &marks));
  if (!marks)
    return CK_OK;
  made = calloc(1, sizeof *made);
  if (!made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a queue");
  made->ops = home->ops;
  made->device = home->device;
  made->shares = home;
  /* In its device's primary context (CUDA); ref's buffers are host
   * memory that any of its queues reads. */
  CK_TRY(home->ops->create_beside ? home->ops->create_beside(made, home)
                                  : home->ops->create(made));
  made->marks = marks;
  *queue = made;
  return CK_OK;
fail:
  ck__peer_close(marks);
  free(made);
  return status;
}

ck_status ck__queue_mark(ck_queue *beside) {
  assert(beside && beside->marks);
  return ck__peer_mark(beside->marks, beside);
}

ck_status ck__queue_follow(ck_queue *home, ck_queue *beside) {
  assert(home && beside && beside->shares == home && beside->marks);
  return ck__peer_follow(beside->marks, home);
}

ck_status ck_queue_destroy(ck_queue *queue) {
  if (!queue)
    return CK_OK;
  if (queue->kept)
    ck__session_queue_give(queue);
  else
    queue->ops->destroy(queue);
  ck__peer_close(queue->marks);
  free(queue);
  return CK_OK;
}

ck_status ck_queue_get_device(const ck_queue *queue, const ck_device **device) {
  CK__REQUIRE(queue);
  CK__REQUIRE(device);
  *device = &queue->device;
  return CK_OK;
}

ck_status ck_queue_finish(ck_queue *queue) {
  if (!queue)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_queue_finish: NULL queue");
  return queue->ops->finish(queue);
}

ck_status ck_queue_get_kernel_seconds(const ck_queue *queue, double *seconds) {
  CK__REQUIRE(queue);
  CK__REQUIRE(seconds);
  *seconds = queue->kernel_seconds;
  return CK_OK;
}

/* A buffer of a session's queue: one the session kept, else a new one.
 * Memory the session keeps gives way to what a run asks for: a failed
 * allocation releases it and tries again, and one that then succeeds
 * leaves the last failure as it was. */
static ck_status session_buffer(ck_queue *queue, ck_buffer *buffer) {
  assert(queue && buffer && buffer->queue == queue);
  if (ck__session_buffer_take(buffer))
    return CK_OK;
  ck__error_saved saved;
  ck__error_save(&saved);
  ck_status status = queue->ops->buffer_create(queue, buffer);
  if (status == CK_ERROR_DEVICE_MEMORY && ck__session_buffers_drop(queue) &&
      (status = queue->ops->buffer_create(queue, buffer)) == CK_OK)
    ck__error_restore(&saved);
  return status;
}

ck_status ck_buffer_create(ck_queue *queue, size_t size, ck_buffer **buffer) {
  ck_status status = CK_OK;
  ck_buffer *made = NULL;
  CK__REQUIRE(queue);
  CK__REQUIRE(buffer);
  *buffer = NULL;
  if (size == 0)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "ck_buffer_create: size is 0");
  if (queue->device.max_alloc && size > queue->device.max_alloc)
    CK_FAIL(CK_ERROR_DEVICE_MEMORY,
            "device %s (%s) cannot hold a buffer of %zu bytes: its largest "
            "allocation is %llu bytes of %llu in all",
            queue->device.id, queue->device.name, size, queue->device.max_alloc,
            queue->device.global_memory);
  made = calloc(1, sizeof *made);
  if (!made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a buffer");
  made->queue = queue;
  made->size = size;
  if (queue->kept)
    CK_TRY(session_buffer(queue, made));
  else
    CK_TRY(queue->ops->buffer_create(queue, made));
  *buffer = made;
  return CK_OK;
fail:
  free(made);
  return status;
}

ck_status ck_buffer_destroy(ck_buffer *buffer) {
  if (!buffer)
    return CK_OK;
  if (!ck__session_buffer_give(buffer))
    buffer->queue->ops->buffer_destroy(buffer);
  free(buffer);
  return CK_OK;
}

ck_status ck_buffer_get_size(const ck_buffer *buffer, size_t *size) {
  CK__REQUIRE(buffer);
  CK__REQUIRE(size);
  *size = buffer->size;
  return CK_OK;
}

ck_status ck_buffer_get_host_pointer(ck_buffer *buffer, void **pointer) {
  CK__REQUIRE(buffer);
  CK__REQUIRE(pointer);
  if (buffer->queue->device.backend != CK_BACKEND_REF)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "device %s: buffers live in device memory; read them with "
                    "ck_buffer_read",
                    buffer->queue->device.id);
  *pointer = buffer->handle;
  return CK_OK;
}

ck_status ck_buffer_write(ck_queue *queue, ck_buffer *buffer, size_t offset,
                          size_t size, const void *source, ck_transfer mode,
                          ck_event **event) {
  ck_status status;
  ck_event *made;
  CK__REQUIRE(queue);
  CK__REQUIRE(buffer);
  CK__REQUIRE(source);
  if ((status = check_queue("ck_buffer_write", queue, buffer)) != CK_OK ||
      (status = check_range("ck_buffer_write", buffer, offset, size)) != CK_OK)
    return status;
  if ((status = event_begin(queue, event, &made)) != CK_OK)
    return status;
  status = queue->ops->write(queue, buffer, offset, size, source, mode, made);
  return event_end(status, event, made);
}

ck_status ck_buffer_read(ck_queue *queue, ck_buffer *buffer, size_t offset,
                         size_t size, void *destination, ck_transfer mode,
                         ck_event **event) {
  ck_status status;
  ck_event *made;
  CK__REQUIRE(queue);
  CK__REQUIRE(buffer);
  CK__REQUIRE(destination);
  if ((status = check_queue("ck_buffer_read", queue, buffer)) != CK_OK ||
      (status = check_range("ck_buffer_read", buffer, offset, size)) != CK_OK)
    return status;
  if ((status = event_begin(queue, event, &made)) != CK_OK)
    return status;
  status =
      queue->ops->read(queue, buffer, offset, size, destination, mode, made);
  return event_end(status, event, made);
}

ck_status ck_buffer_copy(ck_queue *queue, ck_buffer *destination,
                         size_t destination_offset, ck_buffer *source,
                         size_t source_offset, size_t size, ck_event **event) {
  ck_status status;
  ck_event *made;
  CK__REQUIRE(queue);
  CK__REQUIRE(destination);
  CK__REQUIRE(source);
  if ((status = check_queue("ck_buffer_copy (source)", queue, source)) !=
          CK_OK ||
      (status = check_queue("ck_buffer_copy (destination)", queue,
                            destination)) != CK_OK ||
      (status = check_range("ck_buffer_copy (source)", source, source_offset,
                            size)) != CK_OK ||
      (status = check_range("ck_buffer_copy (destination)", destination,
                            destination_offset, size)) != CK_OK)
    return status;
  if (source == destination && source_offset < destination_offset + size &&
      destination_offset < source_offset + size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_buffer_copy: source and destination ranges overlap");
  if ((status = event_begin(queue, event, &made)) != CK_OK)
    return status;
  status = queue->ops->copy(queue, destination, destination_offset, source,
                            source_offset, size, made);
  return event_end(status, event, made);
}

ck_status ck_buffer_fill(ck_queue *queue, ck_buffer *buffer,
                         const void *pattern, size_t pattern_size,
                         size_t offset, size_t size, ck_event **event) {
  ck_status status;
  ck_event *made;
  CK__REQUIRE(queue);
  CK__REQUIRE(buffer);
  CK__REQUIRE(pattern);
  if ((status = check_queue("ck_buffer_fill", queue, buffer)) != CK_OK)
    return status;
  if (pattern_size == 0 || pattern_size > 128 ||
      (pattern_size & (pattern_size - 1)) != 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_buffer_fill: pattern size %zu is not a power of two "
                    "from 1 to 128",
                    pattern_size);
  if (offset % pattern_size || size % pattern_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_buffer_fill: offset and size must be multiples of the "
                    "%zu-byte pattern",
                    pattern_size);
  if ((status = check_range("ck_buffer_fill", buffer, offset, size)) != CK_OK)
    return status;
  if ((status = event_begin(queue, event, &made)) != CK_OK)
    return status;
  status = queue->ops->fill(queue, buffer, pattern, pattern_size, offset, size,
                            made);
  return event_end(status, event, made);
}

ck_status ck_kernel_create(ck_program *program, const char *name,
                           ck_kernel **kernel) {
  ck_status status = CK_OK;
  ck_kernel *made = NULL;
  CK__REQUIRE(program);
  CK__REQUIRE(name);
  CK__REQUIRE(kernel);
  *kernel = NULL;
  /* A name cut to fit would look up another kernel, or none. */
  if (strlen(name) >= sizeof made->name)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_kernel_create: a kernel name of %zu bytes is longer "
                    "than %zu",
                    strlen(name), sizeof made->name - 1);
  made = calloc(1, sizeof *made);
  if (!made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a kernel");
  made->program = program;
  snprintf(made->name, sizeof made->name, "%s", name);
  CK_TRY(program->queue->ops->kernel_create(program, made));
  made->argument_count = program->queue->ops->kernel_argument_count(made);
  *kernel = made;
  return CK_OK;
fail:
  free(made);
  return status;
}

ck_status ck_kernel_destroy(ck_kernel *kernel) {
  if (!kernel)
    return CK_OK;
  kernel->program->queue->ops->kernel_destroy(kernel);
  free(kernel);
  return CK_OK;
}

ck_status ck_kernel_set_buffer(ck_kernel *kernel, unsigned index,
                               ck_buffer *buffer) {
  CK__REQUIRE(kernel);
  CK__REQUIRE(buffer);
  /* The kernel's queue is its program's. */
  char what[160];
  snprintf(what, sizeof what, "kernel %s, argument %u", kernel->name, index);
  ck_status status = check_queue(what, kernel->program->queue, buffer);
  if (status != CK_OK)
    return status;
  return kernel->program->queue->ops->kernel_set_arg(
      kernel, index, CK__ARG_BUFFER, sizeof(void *), buffer);
}

ck_status ck_kernel_set_value(ck_kernel *kernel, unsigned index, size_t size,
                              const void *value) {
  CK__REQUIRE(kernel);
  CK__REQUIRE(value);
  if (size == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_kernel_set_value: size is 0");
  return kernel->program->queue->ops->kernel_set_arg(
      kernel, index, CK__ARG_VALUE, size, value);
}

ck_status ck_kernel_set_local(ck_kernel *kernel, unsigned index, size_t size) {
  if (!kernel || size == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_kernel_set_local: NULL kernel or size 0");
  return kernel->program->queue->ops->kernel_set_arg(kernel, index,
                                                     CK__ARG_LOCAL, size, NULL);
}

/* "A x B x C": sizes per dimension, for messages. */
static void sizes_text(char *text, size_t capacity, unsigned dims,
                       const size_t *sizes) {
  assert(text && capacity > 0 && sizes && dims <= 3);
  size_t used = 0;
  text[0] = '\0';
  for (unsigned d = 0; d < dims && used < capacity; ++d) {
    int length = snprintf(text + used, capacity - used, "%s%zu", d ? " x " : "",
                          sizes[d]);
    if (length < 0)
      return;
    used += (size_t)length;
  }
}

ck_status ck_queue_launch(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                          const size_t *global, const size_t *local,
                          ck_event **event) {
  ck_status status;
  ck_event *made;
  char sizes[96];
  CK__REQUIRE(queue);
  CK__REQUIRE(kernel);
  CK__REQUIRE(global);
  if (kernel->program->queue != queue &&
      kernel->program->queue != queue->shares)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "launch of %s: its program was built on another queue "
                    "(device %s), not this one (device %s)",
                    kernel->name, kernel->program->queue->device.id,
                    queue->device.id);
  if (dims < 1 || dims > 3)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "launch of %s: %u dimensions (1 to 3 allowed)",
                    kernel->name, dims);
  /* The count of work-items is taken only where it fits: past SIZE_MAX it
   * would wrap (2^33 by 2^33 to 0). A local size divides its global one,
   * so the work-group's product, never above the count, fits as well. */
  size_t items = 1, group = 1;
  for (unsigned d = 0; d < dims; ++d) {
    if (global[d] == 0)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "launch of %s: global size %u is 0", kernel->name, d);
    if (global[d] > SIZE_MAX / items) {
      sizes_text(sizes, sizeof sizes, dims, global);
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "launch of %s: global sizes %s make more work-items "
                      "than a size_t counts (%zu)",
                      kernel->name, sizes, (size_t)SIZE_MAX);
    }
    items *= global[d];
    if (local) {
      if (local[d] == 0 || global[d] % local[d] != 0)
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "launch of %s: global size %zu is not a multiple of "
                        "local size %zu in dimension %u",
                        kernel->name, global[d], local[d], d);
      group *= local[d];
    }
  }
  if (local && queue->device.max_work_group_size &&
      group > queue->device.max_work_group_size) {
    sizes_text(sizes, sizeof sizes, dims, local);
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "launch of %s: a work-group of %s work-items exceeds the "
                    "device's maximum of %zu",
                    kernel->name, sizes, queue->device.max_work_group_size);
  }
  if ((status = event_begin(queue, event, &made)) != CK_OK)
    return status;
  status = queue->ops->launch(queue, kernel, dims, global, local, made);
  return event_end(status, event, made);
}

ck_status ck_event_wait(ck_event *event) {
  if (!event)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_event_wait: NULL event");
  return event->queue->ops->event_wait(event);
}

ck_status ck_event_get_times(ck_event *event, uint64_t *start_ns,
                             uint64_t *end_ns) {
  if (!event)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_event_get_times: NULL event");
  uint64_t start = 0, end = 0;
  ck_status status = event->queue->ops->event_times(event, &start, &end);
  if (status != CK_OK)
    return status;
  if (start_ns)
    *start_ns = start;
  if (end_ns)
    *end_ns = end;
  return CK_OK;
}

ck_status ck_event_destroy(ck_event *event) {
  if (!event)
    return CK_OK;
  event->queue->ops->event_destroy(event);
  free(event);
  return CK_OK;
}

/* ---- ck_kernel_args: arguments in order, first failure kept ---------- */

static ck_status args_start(ck_kernel *kernel, unsigned index, int whole,
                            ck_kernel_args *args, const char *function) {
  if (!args)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: args is NULL", function);
  *args = (ck_kernel_args){kernel, index, whole, CK_OK};
  if (!kernel)
    args->status =
        ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: kernel is NULL", function);
  return args->status;
}

ck_status ck_kernel_args_begin(ck_kernel *kernel, ck_kernel_args *args) {
  return args_start(kernel, 0, 1, args, __func__);
}

ck_status ck_kernel_args_at(ck_kernel *kernel, unsigned index,
                            ck_kernel_args *args) {
  return args_start(kernel, index, 0, args, __func__);
}

/* Sets the cursor's next argument unless it already failed; keeps the
 * first failure. */
static ck_status args_set(ck_kernel_args *args, ck__arg_kind kind, size_t size,
                          const void *value, const char *function) {
  if (!args)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: args is NULL", function);
  if (args->status != CK_OK)
    return args->status;
  if (kind != CK__ARG_LOCAL && !value)
    return args->status =
               ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", function,
                        kind == CK__ARG_BUFFER ? "buffer" : "value");
  unsigned index = args->next++;
  switch (kind) {
  case CK__ARG_BUFFER:
    args->status =
        ck_kernel_set_buffer(args->kernel, index, (ck_buffer *)value);
    break;
  case CK__ARG_LOCAL:
    args->status = ck_kernel_set_local(args->kernel, index, size);
    break;
  default:
    args->status = ck_kernel_set_value(args->kernel, index, size, value);
    break;
  }
  return args->status;
}

ck_status ck_kernel_args_buffer(ck_kernel_args *args, ck_buffer *buffer) {
  return args_set(args, CK__ARG_BUFFER, sizeof buffer, buffer, __func__);
}

ck_status ck_kernel_args_value(ck_kernel_args *args, size_t size,
                               const void *value) {
  return args_set(args, CK__ARG_VALUE, size, value, __func__);
}

ck_status ck_kernel_args_i32(ck_kernel_args *args, int32_t value) {
  return args_set(args, CK__ARG_VALUE, sizeof value, &value, __func__);
}

ck_status ck_kernel_args_u32(ck_kernel_args *args, uint32_t value) {
  return args_set(args, CK__ARG_VALUE, sizeof value, &value, __func__);
}

ck_status ck_kernel_args_u64(ck_kernel_args *args, uint64_t value) {
  return args_set(args, CK__ARG_VALUE, sizeof value, &value, __func__);
}

ck_status ck_kernel_args_f32(ck_kernel_args *args, float value) {
  return args_set(args, CK__ARG_VALUE, sizeof value, &value, __func__);
}

ck_status ck_kernel_args_real(ck_kernel_args *args, double value,
                              int double_precision) {
  float narrow = (float)value;
  return double_precision ? ck_kernel_args_value(args, sizeof value, &value)
                          : ck_kernel_args_value(args, sizeof narrow, &narrow);
}

ck_status ck_kernel_args_local(ck_kernel_args *args, size_t size) {
  return args_set(args, CK__ARG_LOCAL, size, NULL, __func__);
}

ck_status ck_kernel_args_end(ck_kernel_args *args) {
  CK__REQUIRE(args);
  if (args->status != CK_OK)
    return args->status;
  int expected = args->kernel->argument_count;
  if (args->whole && expected >= 0 && args->next != (unsigned)expected)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel %s: %u arguments set, but it takes %d",
                    args->kernel->name, args->next, expected);
  return CK_OK;
}

ck_status ck__kernel_args_list(ck_kernel_args *args, int double_precision,
                               const char *kinds, va_list values) {
  CK__REQUIRE(args);
  CK__REQUIRE(kinds);
  for (const char *kind = kinds; *kind && args->status == CK_OK; ++kind) {
    switch (*kind) {
    case 'b':
      ck_kernel_args_buffer(args, va_arg(values, ck_buffer *));
      break;
    case 'i':
      ck_kernel_args_i32(args, (int32_t)va_arg(values, int));
      break;
    case 'u':
      ck_kernel_args_u32(args, (uint32_t)va_arg(values, unsigned));
      break;
    case 'r':
      ck_kernel_args_real(args, va_arg(values, double), double_precision);
      break;
    default:
      args->status = ck__fail(CK_ERROR_INVALID_ARGUMENT,
                              "%s: unknown argument kind '%c' in \"%s\"",
                              __func__, *kind, kinds);
      break;
    }
  }
  return args->status;
}

ck_status ck__kernel_args_add(ck_kernel_args *args, int double_precision,
                              const char *kinds, ...) {
  va_list values;
  va_start(values, kinds);
  ck_status status =
      ck__kernel_args_list(args, double_precision, kinds, values);
  va_end(values);
  return status;
}

/* ---- Memory lent to other libraries (CUDA's device arrays) ------------- */

ck_status ck__queue_lend(ck_queue *queue, const ck_buffer *buffer,
                         void **address, int *ordinal, void **stream) {
  assert(queue && buffer && address && ordinal && stream);
#if CK_HAVE_CUDA
  if (ck__device_lends_memory(&queue->device)) {
    *address = ck__cuda_pointer(buffer);
    *ordinal = queue->device.device_index;
    *stream = ck__cuda_stream(queue);
    return CK_OK;
  }
#endif
  return ck__fail(CK_ERROR_UNSUPPORTED, "device %s lends no memory",
                  queue->device.id);
}

ck_status ck__queue_take_lent_values(ck_queue *queue, const void *from,
                                     size_t from_size, size_t stride,
                                     ck_buffer *to, size_t to_size,
                                     size_t count) {
  assert(queue && to);
#if CK_HAVE_CUDA
  if (ck__device_lends_memory(&queue->device))
    return ck__cuda_take_values(queue, from, from_size, stride, to, to_size,
                                count);
#else
  (void)from, (void)from_size, (void)stride, (void)to_size, (void)count;
#endif
  return ck__fail(CK_ERROR_UNSUPPORTED, "device %s lends no memory",
                  queue->device.id);
}

ck_status ck__lent_values_read(int ordinal, void *stream, const void *from,
                               size_t from_size, size_t stride, double *to,
                               size_t count) {
#if CK_HAVE_CUDA
  return ck__cuda_read_values(ordinal, stream, from, from_size, stride, to,
                              count);
#else
  (void)stream, (void)from, (void)from_size, (void)stride, (void)to,
      (void)count;
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "device memory of ordinal %d: this clkit has no CUDA",
                  ordinal);
#endif
}

/* This clkit lends no memory: what a stream order asks of it fails. */
#if !CK_HAVE_CUDA
static ck_status no_lending(int ordinal) {
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "device memory of ordinal %d: this clkit has no CUDA",
                  ordinal);
}
#endif

ck_status ck__lent_stream_wait(int ordinal, void *producer, void *consumer) {
#if CK_HAVE_CUDA
  return ck__cuda_stream_wait(ordinal, producer, consumer);
#else
  (void)producer, (void)consumer;
  return no_lending(ordinal);
#endif
}

ck_status ck__lent_mark_record(int ordinal, void *stream, void **mark) {
  assert(mark);
#if CK_HAVE_CUDA
  return ck__cuda_mark_record(ordinal, stream, mark);
#else
  (void)stream;
  return no_lending(ordinal);
#endif
}

ck_status ck__lent_mark_wait(int ordinal, void *mark) {
  if (!mark)
    return CK_OK;
#if CK_HAVE_CUDA
  return ck__cuda_mark_wait(ordinal, mark);
#else
  return no_lending(ordinal);
#endif
}

void ck__lent_mark_free(void *mark) {
#if CK_HAVE_CUDA
  ck__cuda_mark_free(mark);
#else
  (void)mark;
#endif
}
