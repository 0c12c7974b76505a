/*
 * backend.h - the backend interface behind ck_queue, seen only inside the
 * runtime.
 *
 * queue.c checks arguments and owns the handle structs; each backend
 * (queue_opencl.c, queue_host.c, queue_cuda.c) fills in one ops table and
 * enumerates its devices for device.c. A backend sees only requests that
 * already passed validation.
 */
#ifndef CK_BACKEND_H
#define CK_BACKEND_H

#include "runtime/runtime.h"

typedef enum ck__arg_kind {
  CK__ARG_BUFFER,
  CK__ARG_VALUE,
  CK__ARG_LOCAL
} ck__arg_kind;

typedef struct ck__queue_ops {
  ck_status (*create)(ck_queue *queue);
  void (*destroy)(ck_queue *queue);
  ck_status (*finish)(ck_queue *queue);
  ck_status (*buffer_create)(ck_queue *queue, ck_buffer *buffer);
  void (*buffer_destroy)(ck_buffer *buffer);
  ck_status (*write)(ck_queue *queue, ck_buffer *buffer, size_t offset,
                     size_t size, const void *source, ck_transfer mode,
                     ck_event *event);
  ck_status (*read)(ck_queue *queue, ck_buffer *buffer, size_t offset,
                    size_t size, void *destination, ck_transfer mode,
                    ck_event *event);
  ck_status (*copy)(ck_queue *queue, ck_buffer *destination,
                    size_t destination_offset, ck_buffer *source,
                    size_t source_offset, size_t size, ck_event *event);
  ck_status (*fill)(ck_queue *queue, ck_buffer *buffer, const void *pattern,
                    size_t pattern_size, size_t offset, size_t size,
                    ck_event *event);
  ck_status (*program_build)(ck_queue *queue, ck_program *program,
                             const char *source, const char *options);
  void (*program_destroy)(ck_program *program);
  ck_status (*kernel_create)(ck_program *program, ck_kernel *kernel);
  void (*kernel_destroy)(ck_kernel *kernel);
  ck_status (*kernel_set_arg)(ck_kernel *kernel, unsigned index,
                              ck__arg_kind kind, size_t size,
                              const void *value);
  /* The kernel's parameter count, or -1 where the runtime cannot say. */
  int (*kernel_argument_count)(const ck_kernel *kernel);
  ck_status (*launch)(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                      const size_t *global, const size_t *local,
                      ck_event *event);
  /* Host memory the queue's transfers move fastest (page-locked), or
   * NULL for plain memory (ck__host_alloc). */
  ck_status (*host_alloc)(ck_queue *queue, size_t size, void **pointer);
  void (*host_free)(ck_queue *queue, void *pointer);
  ck_status (*event_wait)(ck_event *event);
  ck_status (*event_times)(ck_event *event, uint64_t *start_ns,
                           uint64_t *end_ns);
  void (*event_destroy)(ck_event *event);
} ck__queue_ops;

struct ck_queue {
  const ck__queue_ops *ops;
  ck_device device;
  void *backend;         /* backend state */
  double kernel_seconds; /* summed by finish() */
};

struct ck_buffer {
  ck_queue *queue;
  size_t size;
  void *handle; /* cl_mem, or host memory on ref */
};

struct ck_program {
  ck_queue *queue;
  void *handle;
  char name[64];
  ck_program_stats stats;
};

struct ck_kernel {
  ck_program *program;
  void *handle;
  char name[128];
  int argument_count; /* its parameters, or -1 where unknown */
};

struct ck_event {
  ck_queue *queue;
  void *handle;
};

extern const ck__queue_ops ck__opencl_ops;
extern const ck__queue_ops ck__host_ops;

/* OpenCL devices, as ck_device entries (ids ocl:P.D, platform by
 * platform), each passed to add with user, which may fail. What leaves
 * the list empty (no platform, a loader that fails, platforms without
 * devices) is no failure: *noted is then CK_ERROR_NO_PLATFORM or
 * CK_ERROR_DEVICE and message says why, else CK_OK and "". Returns CK_OK,
 * CK_ERROR_OUT_OF_MEMORY, or add's failure. */
ck_status ck__opencl_enumerate(ck_status (*add)(void *user,
                                                const ck_device *device),
                               void *user, ck_status *noted, char *message,
                               size_t capacity);

#if CK_HAVE_CUDA
extern const ck__queue_ops ck__cuda_ops;

/* CUDA devices, as ck_device entries (ids cuda:N, N the CUDA ordinal).
 * A GPU this build cannot make code for (ck__cuda_reach_of) is left out
 * and named in message, which is otherwise left empty. Returns CK_OK
 * (message naming any left out), CK_ERROR_NO_PLATFORM with why none is
 * listed in message, or CK_ERROR_UNSUPPORTED when every GPU was left out. */
ck_status ck__cuda_enumerate(ck_device *devices, size_t capacity, size_t *count,
                             char *message, size_t message_capacity);
#endif

/* "CL_OUT_OF_RESOURCES" and so on, for messages. */
const char *ck__opencl_error_name(int code);

#endif /* CK_BACKEND_H */
