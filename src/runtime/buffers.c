/*
 * buffers.c - buffers as the workloads make and fill them: at least one
 * byte, zeroed from the host, and reals of a run's precision; the host
 * memory a queue moves fastest, and a queue's staging in it.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

ck_status ck__reals_write(ck_queue *queue, ck_buffer *buffer,
                          int double_precision, const double *values,
                          size_t count) {
  assert(queue && buffer && (values || count == 0));
  size_t width = double_precision ? sizeof(double) : sizeof(float);
  void *staging = malloc(count * width);
  if (!staging)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t i = 0; i < count; ++i) {
    if (double_precision)
      ((double *)staging)[i] = values[i];
    else
      ((float *)staging)[i] = (float)values[i];
  }
  ck_status status = ck_buffer_write(queue, buffer, 0, count * width, staging,
                                     CK_BLOCKING, NULL);
  free(staging);
  return status;
}

ck_status ck__reals_read(ck_queue *queue, ck_buffer *buffer,
                         int double_precision, double *values, size_t count) {
  assert(queue && buffer && (values || count == 0));
  size_t width = double_precision ? sizeof(double) : sizeof(float);
  void *staging = malloc(count * width);
  if (!staging)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  ck_status status = ck_buffer_read(queue, buffer, 0, count * width, staging,
                                    CK_BLOCKING, NULL);
  for (size_t i = 0; status == CK_OK && i < count; ++i)
    values[i] = double_precision ? ((double *)staging)[i]
                                 : (double)((float *)staging)[i];
  free(staging);
  return status;
}

ck_status ck__host_alloc(ck_queue *queue, size_t size, void **pointer) {
  assert(queue && queue->ops && pointer);
  size = size ? size : 1;
  if (queue->ops->host_alloc)
    return queue->ops->host_alloc(queue, size, pointer);
  *pointer = malloc(size);
  return *pointer ? CK_OK
                  : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                             "out of host memory for %zu bytes", size);
}

void ck__host_free(ck_queue *queue, void *pointer) {
  if (!pointer)
    return;
  assert(queue && queue->ops);
  if (queue->ops->host_free)
    queue->ops->host_free(queue, pointer);
  else
    free(pointer);
}

ck_status ck__buffer_make(ck_queue *queue, size_t bytes, ck_buffer **buffer) {
  return ck_buffer_create(queue, bytes ? bytes : 1, buffer);
}

ck_status ck__buffer_make_zeroed(ck_queue *queue, size_t count, size_t size,
                                 const char *what, ck_buffer **buffer) {
  assert(what && buffer);
  if (count && size > SIZE_MAX / count)
    return ck__fail(CK_ERROR_DEVICE_MEMORY, "%s: %zu elements are too many",
                    what, count);
  size_t bytes = count * size > 0 ? count * size : 1;
  ck_status status = ck_buffer_create(queue, bytes, buffer);
  if (status != CK_OK)
    return ck__fail_prefix(status, "%s (%zu bytes): ", what, bytes);
  void *zeros = calloc(1, bytes);
  if (!zeros)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", what);
  status = ck_buffer_write(queue, *buffer, 0, bytes, zeros, CK_BLOCKING, NULL);
  free(zeros);
  return status;
}

ck_status ck__staging_settle(ck__staging *s) {
  ck_status status = CK_OK;
  if (s->written) {
    status = ck_event_wait(s->written);
    ck_event_destroy(s->written);
    s->written = NULL;
  }
  return status;
}

ck_status ck__staging_hold(ck__staging *s, ck_queue *queue, void **memory,
                           size_t *capacity, size_t bytes) {
  ck_status status = CK_OK;
  assert(memory == &s->write || memory == &s->read);
  if (bytes <= *capacity)
    return CK_OK;
  CK_TRY(ck__staging_settle(s));
  ck__host_free(queue, *memory);
  *memory = NULL;
  *capacity = 0;
  CK_TRY(ck__host_alloc(queue, bytes + bytes / 2, memory));
  *capacity = bytes + bytes / 2;
fail:
  return status;
}

ck_status ck__staging_write(ck__staging *s, ck_queue *queue, ck_buffer *buffer,
                            size_t offset, int n, const void *const *pieces,
                            const size_t *sizes) {
  ck_status status = CK_OK;
  size_t bytes = 0;
  for (int k = 0; k < n; ++k)
    bytes += sizes[k];
  if (bytes == 0)
    return CK_OK;
  CK_TRY(ck__staging_settle(s));
  CK_TRY(ck__staging_hold(s, queue, &s->write, &s->write_bytes, bytes));
  unsigned char *at = s->write;
  for (int k = 0; k < n; ++k)
    if (sizes[k] > 0) {
      memcpy(at, pieces[k], sizes[k]);
      at += sizes[k];
    }
  assert(!s->written);
  CK_TRY(ck_buffer_write(queue, buffer, offset, bytes, s->write, CK_NONBLOCKING,
                         &s->written));
fail:
  return status;
}

ck_status ck__staging_read(ck__staging *s, ck_queue *queue, ck_buffer *buffer,
                           int n, const size_t *at, const size_t *sizes,
                           size_t tail, const void **out, void **room) {
  ck_status status = CK_OK;
  size_t bytes = tail, from = 0, to = 0;
  if (room)
    *room = NULL;
  assert(s && queue && buffer && n >= 0 && (n == 0 || (at && sizes && out)));
  for (int k = 0; k < n; ++k) {
    out[k] = NULL;
    bytes += sizes[k];
  }
  CK_TRY(ck__staging_hold(s, queue, &s->read, &s->read_bytes, bytes));
  unsigned char *host = s->read;
  /* Bytes [from, to) of the read side: a run of ranges that follow each
   * other in buffer, read at once. */
  for (int k = 0; k < n; ++k) {
    out[k] = sizes[k] ? host + to : NULL;
    to += sizes[k];
    if (k + 1 < n && at[k] + sizes[k] == at[k + 1])
      continue;
    if (to > from)
      CK_TRY(ck_buffer_read(queue, buffer, at[k] + sizes[k] - (to - from),
                            to - from, host + from, CK_NONBLOCKING, NULL));
    from = to;
  }
  if (room)
    *room = host + to;
fail:
  return status;
}

void ck__staging_free(ck__staging *s, ck_queue *queue) {
  if (queue) {
    /* Writes from it may be pending: they end before it goes. */
    if (s->written)
      ck_queue_finish(queue);
    ck_event_destroy(s->written);
    ck__host_free(queue, s->write);
    ck__host_free(queue, s->read);
  }
  memset(s, 0, sizeof *s);
}
