/*
 * clkit/queue.h - one queue abstraction over every backend.
 *
 * A queue is created on a device, and what is made through it (buffers,
 * programs, kernels, events) belongs to it: ck_queue_destroy() does not
 * release them, so destroy each before its queue (and a kernel before its
 * program); one destroyed after them is undefined behaviour. A buffer is
 * used only with the queue it was made on: in transfers, and as an
 * argument of kernels whose program was built on it; a kernel is launched
 * on its program's queue. Operations are issued
 * in order. On the ref device buffers live in host memory
 * (ck_buffer_get_host_pointer() exposes them) and no kernels run: ref work is
 * plain C in each workload's ref steps.
 *
 * Non-blocking transfers return at once; the host memory they read or
 * write must stay valid until their event completes or ck_queue_finish().
 *
 * A queue, with its buffers, programs, kernels and events, is used by one
 * thread at a time (it may move to another between calls); distinct
 * queues, on one device or several, may be used from distinct threads at
 * once.
 *
 * OpenCL runtimes work on threads of their own, which fork() does not
 * copy. In a process forked after its parent called into OpenCL, every
 * OpenCL call fails at once with CK_ERROR_UNSUPPORTED, its message saying
 * so, where it would wait forever; destroying what the parent made there
 * releases nothing of the runtime's. Other backends are not affected.
 */
#ifndef CLKIT_QUEUE_H
#define CLKIT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ck_queue ck_queue;
typedef struct ck_buffer ck_buffer;
typedef struct ck_program ck_program;
typedef struct ck_kernel ck_kernel;
typedef struct ck_event ck_event;

typedef enum ck_transfer {
  CK_BLOCKING = 0,    /* returns when the data has moved */
  CK_NONBLOCKING = 1, /* returns at once; wait on the event or finish */
} ck_transfer;

/*
 * ck_queue_create - make an in-order queue on a device, with profiling.
 * Takes: device (copied; the set it came from may be freed), queue (set;
 * release with ck_queue_destroy(), after everything made through it).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_UNSUPPORTED for a backend not built into this library;
 * CK_ERROR_OUT_OF_MEMORY; device errors if the runtime refuses.
 */
ck_status ck_queue_create(const ck_device *device, ck_queue **queue);

/* ck_queue_destroy - wait for the queue's operations and release it (not
 * its buffers, programs, kernels or events: destroy them first). NULL is a
 * no-op. Returns: CK_OK. */
ck_status ck_queue_destroy(ck_queue *queue);

/* ck_queue_get_device - the queue's copy of its device, owned by the queue
 * and valid until ck_queue_destroy(). Takes: device (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_queue_get_device(const ck_queue *queue, const ck_device **device);

/* ck_queue_finish - wait until every issued operation has completed, and
 * add their kernel times to ck_queue_get_kernel_seconds().
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL queue; device
 * errors, including those of earlier non-blocking operations. */
ck_status ck_queue_finish(ck_queue *queue);

/*
 * ck_queue_get_kernel_seconds - total device time of the kernels launched on
 * this queue and summed so far, from profiling events: at each
 * ck_queue_finish(), early once some 4096 launches are pending, and on
 * CUDA as they end (looked for every few launches). Zero on ref. Takes:
 * seconds (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_queue_get_kernel_seconds(const ck_queue *queue, double *seconds);

/*
 * ck_buffer_create - allocate size bytes of device memory (uninitialised).
 * Takes: queue; size; buffer (set; release with ck_buffer_destroy() before
 * the queue, which does not release it).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or size 0;
 * CK_ERROR_DEVICE_MEMORY when the device cannot hold it (the message
 * gives the size and the device's limits); CK_ERROR_OUT_OF_MEMORY; device
 * errors.
 */
ck_status ck_buffer_create(ck_queue *queue, size_t size, ck_buffer **buffer);

/* ck_buffer_destroy - release a buffer; its queue must still exist. NULL
 * is a no-op. Returns: CK_OK. */
ck_status ck_buffer_destroy(ck_buffer *buffer);

/* ck_buffer_get_size - the buffer's size in bytes. Takes: size (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_buffer_get_size(const ck_buffer *buffer, size_t *size);

/*
 * ck_buffer_get_host_pointer - the host memory behind a ref buffer (64-byte
 * aligned), owned by the buffer and valid until ck_buffer_destroy().
 * Takes: pointer (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_UNSUPPORTED for buffers of other devices.
 */
ck_status ck_buffer_get_host_pointer(ck_buffer *buffer, void **pointer);

/*
 * ck_buffer_write / ck_buffer_read - move size bytes between host memory
 * and the buffer at offset. event, optional, receives an event to wait on
 * or time (destroy it with ck_event_destroy(), before the queue).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, size 0,
 * a range that exceeds the buffer, or a buffer made on another queue;
 * CK_ERROR_OUT_OF_MEMORY for the event; device errors.
 */
ck_status ck_buffer_write(ck_queue *queue, ck_buffer *buffer, size_t offset,
                          size_t size, const void *source, ck_transfer mode,
                          ck_event **event);
ck_status ck_buffer_read(ck_queue *queue, ck_buffer *buffer, size_t offset,
                         size_t size, void *destination, ck_transfer mode,
                         ck_event **event);

/*
 * ck_buffer_copy - device-side copy of size bytes; ranges must not overlap.
 * event as for ck_buffer_write().
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, size 0,
 * a range outside its buffer, overlapping ranges, or a buffer made on
 * another queue; CK_ERROR_OUT_OF_MEMORY for the event; device errors.
 */
ck_status ck_buffer_copy(ck_queue *queue, ck_buffer *destination,
                         size_t destination_offset, ck_buffer *source,
                         size_t source_offset, size_t size, ck_event **event);

/*
 * ck_buffer_fill - repeat a pattern of pattern_size bytes (1, 2, 4, 8, 16,
 * 32, 64 or 128) over size bytes from offset; both multiples of it. The
 * pattern is read during the call. event as for ck_buffer_write().
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, another
 * pattern size, size 0, a range outside the buffer or not a multiple of
 * the pattern, or a buffer made on another queue; CK_ERROR_OUT_OF_MEMORY
 * for the event; device errors.
 */
ck_status ck_buffer_fill(ck_queue *queue, ck_buffer *buffer,
                         const void *pattern, size_t pattern_size,
                         size_t offset, size_t size, ck_event **event);

/*
 * ck_program_build - build a program from cl/<name>.cl for the queue's
 * device, through the binary cache (PoCL's own, by default, on PoCL:
 * clkit/cache.h). defines, optional, adds build options
 * such as "-DCK_GROUP=128". Device options (-cl-std=CL1.2, device type,
 * fp64, warp width) are added by clkit. Takes: program (set; release with
 * ck_program_destroy(), after its kernels and before the queue, which
 * does not release it).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, a name
 * empty or over 60 characters, or defines that make the options longer
 * than 1023 bytes;
 * CK_ERROR_NOT_FOUND if no such source or include; CK_ERROR_IO if
 * CLKIT_KERNEL_DIR is set and a file cannot be read; CK_ERROR_PARSE for an
 * include cycle; CK_ERROR_BUILD with the program, device, options and the
 * build log (naming cl/ files and lines) when compilation fails;
 * CK_ERROR_UNSUPPORTED on ref; CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_program_build(ck_queue *queue, const char *name,
                           const char *defines, ck_program **program);

typedef struct ck_program_stats {
  double build_seconds; /* wall time of ck_program_build() */
  int from_cache;       /* 1 when the binary came from the cache */
  int runtime_cache;    /* 1 when the build left clkit's cache to the
                           runtime's own (PoCL with its kernel cache on;
                           CLKIT_CACHE=1 uses clkit's there too) */
  int from_session;     /* 1 when a session kept it built: no build ran
                           (clkit/session.h) */
  char options[1024];   /* the full option string */
} ck_program_stats;

/* ck_program_query - how the program was built. Takes: stats (filled in).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_program_query(const ck_program *program, ck_program_stats *stats);

/* ck_program_destroy - release a program; its kernels must be destroyed
 * first and its queue must still exist. NULL is a no-op. Returns: CK_OK. */
ck_status ck_program_destroy(ck_program *program);

/*
 * ck_kernel_create - a kernel of a built program, by function name.
 * Takes: program; name (copied, at most 127 bytes); kernel (set; release
 * with ck_kernel_destroy() before its program and queue, which do not
 * release it).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or a
 * longer name;
 * CK_ERROR_NOT_FOUND if the program has no such kernel;
 * CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_kernel_create(ck_program *program, const char *name,
                           ck_kernel **kernel);

/* ck_kernel_destroy - release a kernel; its program and queue must still
 * exist. NULL is a no-op. Returns: CK_OK. */
ck_status ck_kernel_destroy(ck_kernel *kernel);

/*
 * ck_kernel_set_buffer / ck_kernel_set_value / ck_kernel_set_local -
 * kernel argument index: a buffer, a value of size bytes, or size bytes
 * of local memory. The value is copied; the buffer is referred to, not
 * owned, and must outlive the launches that use it. A buffer must be made
 * on the queue the kernel's program was built on. On CUDA devices index
 * is below 48, and an argument at most 64 bytes, or where the runtime
 * gives the kernel's parameters, their size within 4 KB in all (a struct
 * by value).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, size 0,
 * a buffer of another queue, or an argument the runtime refuses (a bad
 * index or size); CK_ERROR_UNSUPPORTED from ck_kernel_set_local() on CUDA
 * devices (declare the array in the kernel instead).
 */
ck_status ck_kernel_set_buffer(ck_kernel *kernel, unsigned index,
                               ck_buffer *buffer);
ck_status ck_kernel_set_value(ck_kernel *kernel, unsigned index, size_t size,
                              const void *value);
ck_status ck_kernel_set_local(ck_kernel *kernel, unsigned index, size_t size);

/*
 * ck_kernel_args - a cursor that sets a kernel's arguments in order, in
 * place of numbered indices. Begin it on a kernel, add each argument in
 * the kernel's parameter order, then end it:
 *
 *   ck_kernel_args args;
 *   ck_kernel_args_begin(kernel, &args);
 *   ck_kernel_args_buffer(&args, values);
 *   ck_kernel_args_u32(&args, count);
 *   ck_kernel_args_real(&args, scale, double_precision);
 *   status = ck_kernel_args_end(&args);
 *
 * The cursor keeps the first failure: later calls on it do nothing and
 * return that status, so a sequence needs one check, at the end. The
 * cursor is a plain value owned by the caller, with nothing to release;
 * its fields are clkit's. Each call sets its argument at once, as the
 * ck_kernel_set_ calls do, with their rules and errors.
 */
typedef struct ck_kernel_args {
  ck_kernel *kernel;
  unsigned next;    /* the index the next argument takes */
  int whole;        /* begun at the first argument: the end counts them */
  ck_status status; /* the first failure, or CK_OK */
} ck_kernel_args;

/*
 * ck_kernel_args_begin - a cursor at the kernel's first argument, whose
 * end checks that every argument was set. ck_kernel_args_at - a cursor at
 * argument index, for setting again the few that change between launches
 * (a step number); its end counts nothing. Takes: kernel (must outlive
 * the cursor's use); args (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument (kept in
 * args when args is not NULL).
 */
ck_status ck_kernel_args_begin(ck_kernel *kernel, ck_kernel_args *args);
ck_status ck_kernel_args_at(ck_kernel *kernel, unsigned index,
                            ck_kernel_args *args);

/*
 * ck_kernel_args_buffer / _value / _i32 / _u32 / _u64 / _f32 / _local -
 * set the cursor's argument and move to the next: a buffer (referred to,
 * as by ck_kernel_set_buffer()), a value of size bytes (copied), a
 * fixed-width scalar, or size bytes of local memory.
 * ck_kernel_args_real - a real in the program's precision: a double when
 * double_precision is nonzero, else a float rounded from value.
 * Returns: CK_OK; the cursor's first failure, once it has one; else the
 * errors of ck_kernel_set_buffer(), ck_kernel_set_value() and
 * ck_kernel_set_local(); CK_ERROR_INVALID_ARGUMENT for a NULL args (or
 * buffer or value, kept in args).
 */
ck_status ck_kernel_args_buffer(ck_kernel_args *args, ck_buffer *buffer);
ck_status ck_kernel_args_value(ck_kernel_args *args, size_t size,
                               const void *value);
ck_status ck_kernel_args_i32(ck_kernel_args *args, int32_t value);
ck_status ck_kernel_args_u32(ck_kernel_args *args, uint32_t value);
ck_status ck_kernel_args_u64(ck_kernel_args *args, uint64_t value);
ck_status ck_kernel_args_f32(ck_kernel_args *args, float value);
ck_status ck_kernel_args_real(ck_kernel_args *args, double value,
                              int double_precision);
ck_status ck_kernel_args_local(ck_kernel_args *args, size_t size);

/*
 * ck_kernel_args_end - the cursor's first failure; for a cursor from
 * ck_kernel_args_begin(), also whether it set as many arguments as the
 * kernel takes (where the runtime says; every OpenCL device does). The
 * arguments set stay set either way.
 * Returns: CK_OK; the cursor's first failure (ck_error_get_last() still
 * gives its message unless a later clkit call failed);
 * CK_ERROR_INVALID_ARGUMENT for a NULL args, or a count that differs
 * from the kernel's (the message names both).
 */
ck_status ck_kernel_args_end(ck_kernel_args *args);

/*
 * ck_queue_launch - enqueue a kernel over dims (1 to 3) dimensions.
 * global: work-items per dimension; local: work-group size per dimension,
 * or NULL to let the runtime choose. Each global size must be a multiple
 * of its local size, the work-items in all must fit in a size_t, a
 * work-group may not exceed the device's max_work_group_size, and an
 * OpenCL launch with local sizes may have up to 2^32 - 1 work-groups.
 * kernel must come from a program built on queue. event as for
 * ck_buffer_write().
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, bad sizes
 * (a grid past CUDA's limits too), a kernel of another queue, or on CUDA
 * an argument never set; CK_ERROR_OUT_OF_MEMORY; device errors (with the
 * runtime's error name) when the launch is refused.
 */
ck_status ck_queue_launch(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                          const size_t *global, const size_t *local,
                          ck_event **event);

/* ck_event_wait - block until the event's operation completes.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL event; device
 * errors. */
ck_status ck_event_wait(ck_event *event);

/*
 * ck_event_get_times - profiling times of a completed operation, in
 * nanoseconds of the device clock (start, end); NULL to skip one. Zero on
 * ref.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL event; device
 * errors (CK_ERROR_DEVICE for an operation not yet complete).
 */
ck_status ck_event_get_times(ck_event *event, uint64_t *start_ns,
                             uint64_t *end_ns);

/* ck_event_destroy - release an event; its queue must still exist. NULL is
 * a no-op. Returns: CK_OK. */
ck_status ck_event_destroy(ck_event *event);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_QUEUE_H */
