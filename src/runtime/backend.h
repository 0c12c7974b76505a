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

/*
 * Copies between two devices of one backend without the host, and reads
 * between the processes of one node (peer.c checks the arguments and
 * owns the handles). Optional ones are NULL where the backend has none.
 */
typedef struct ck__peer_ops {
  /* Copies from device `from` to device `to`: their state into *state,
   * and *direct 1 where `to`'s kernels may read `from`'s memory. */
  ck_status (*open)(const ck_device *from, const ck_device *to, void **state,
                    int *direct);
  /* Optional: frees what open made. */
  void (*close)(void *state);
  /* size bytes from source on queue `from` to destination on queue `to`,
   * after the work queued on both, before their later work. */
  ck_status (*copy)(void *state, ck_queue *to, ck_buffer *destination,
                    size_t destination_offset, ck_queue *from,
                    ck_buffer *source, size_t source_offset, size_t size);
  /* Optional: a mark on the source's queue, and the destination's queue
   * made to wait for it (NULL: copies are done at the call). */
  ck_status (*mark)(void *state, ck_queue *from);
  ck_status (*follow)(void *state, ck_queue *to);
  /* The address at which kernels read buffer. */
  uint64_t (*address)(const ck_buffer *buffer);
  /* Optional, all or none: between processes (runtime.h's ck__ipc_*). A
   * device's identity, buffers' handles, and events (*event: the
   * backend's, freed by event_close). */
  ck_status (*identity)(const ck_device *device, void *identity);
  ck_status (*buffer_handle)(ck_buffer *buffer, void *handle);
  ck_status (*buffer_open)(ck_queue *queue, const void *handle,
                           uint64_t *address);
  void (*buffer_close)(const ck_device *device, uint64_t address);
  ck_status (*event_make)(ck_queue *queue, void *handle, void **event);
  ck_status (*event_open)(ck_queue *queue, const void *handle, void **event);
  ck_status (*event_record)(void *event, ck_queue *queue);
  ck_status (*event_wait)(void *event, ck_queue *queue);
  void (*event_close)(void *event);
} ck__peer_ops;

typedef struct ck__queue_ops {
  ck_status (*create)(ck_queue *queue);
  /* Optional: create, sharing what it can with home, a live queue of the
   * same device (a session's: the OpenCL context, so that the session's
   * programs and buffers serve this queue too). NULL: create, and the
   * queue shares none of them. */
  ck_status (*create_beside)(ck_queue *queue, const ck_queue *home);
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
  /* Optional: the key of a program as the binary cache keys it (source,
   * options, device), for a session's table of programs; source may be
   * text that stands for the program's (its name and a digest). NULL
   * keeps none there. Errors: CK_ERROR_OUT_OF_MEMORY. */
  ck_status (*program_key)(const ck_queue *queue, const char *source,
                           const char *options, uint8_t key[32]);
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
  /* Optional: copies between this backend's devices, and between
   * processes (peer.c); NULL for none. */
  const ck__peer_ops *peer;
} ck__queue_ops;

/* A device's share of a session (session.c): its kept queue, programs
 * and buffers. */
typedef struct ck__session_device ck__session_device;

struct ck_queue {
  const ck__queue_ops *ops;
  ck_device device;
  void *backend;         /* backend state */
  double kernel_seconds; /* summed by finish() (CUDA: also as they end) */
  /* The session's share of the device where the device is a session's,
   * else NULL; home is 1 when backend is the session's kept state (lent,
   * not owned). */
  ck__session_device *kept;
  int home;
  /* Which making of the session's kept state this queue shares (its
   * OpenCL context): the session's programs and buffers of that making
   * serve it. 0 for a queue of its own, which shares none. */
  unsigned long long generation;
  /* A queue made beside another (ck__queue_beside): that queue's
   * buffers and kernels serve this one too, and marks (a peer of the
   * device with itself) order the two. NULL for any other. */
  const ck_queue *shares;
  ck__peer *marks;
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
  void *kept; /* the session's entry that owns handle (lent), or NULL */
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

/* The operations of the device's backend; NULL for one not built in. */
const ck__queue_ops *ck__queue_ops_for(const ck_device *device);

/* ---- Sessions (session.c), for queue.c and program.c ------------------- */

/* Gives queue (its device a session's, its ops set) the session's kept
 * state of the device where it is free, else a new one beside it; sets
 * queue->kept and queue->home. Errors: CK_ERROR_INVALID_ARGUMENT for a
 * session destroyed; the backend's. */
ck_status ck__session_queue_take(ck_queue *queue);
/* In place of the backend's destroy: waits for the queue's work and gives
 * a kept state back (a new one is destroyed). */
void ck__session_queue_give(ck_queue *queue);

/* Serves program (its queue the session's) from the session's table, by
 * key: 1, with program->handle and program->kept set. Where another
 * thread builds the key's program, waits for its build. 0 where the
 * caller must build it; then program->kept, where set, is the entry that
 * others wait on, which ck__session_program_keep() fills, or
 * ck__session_program_give() gives up if the build fails. */
int ck__session_program_take(ck_program *program, const uint8_t key[32]);
/* After a build of the program take() left to the caller, counted: the
 * session keeps the handle where take() kept it a place and there is
 * room (program->kept stays set; else it is NULL and the program owns
 * its handle). */
void ck__session_program_keep(ck_program *program);
/* In place of the backend's program_destroy for a kept program, or one
 * whose build take() left to it and that failed. */
void ck__session_program_give(ck_program *program);

/* A buffer of buffer->size bytes that the session kept (1, handle set),
 * or 0. */
int ck__session_buffer_take(ck_buffer *buffer);
/* In place of the backend's buffer_destroy: 1 when the session keeps the
 * buffer's memory, 0 when the caller must release it. */
int ck__session_buffer_give(ck_buffer *buffer);
/* Releases the kept buffers of the queue's device that no queue may
 * still use, for an allocation that failed: 1 when there were any. */
int ck__session_buffers_drop(ck_queue *queue);

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
extern const ck__peer_ops ck__cuda_peer_ops;

/* CUDA devices, as ck_device entries (ids cuda:N, N the CUDA ordinal).
 * A GPU this build cannot make code for (ck__cuda_reach_of) is left out
 * and named in message, which is otherwise left empty. Returns CK_OK
 * (message naming any left out), CK_ERROR_NO_PLATFORM with why none is
 * listed in message, or CK_ERROR_UNSUPPORTED when every GPU was left out. */
ck_status ck__cuda_enumerate(ck_device *devices, size_t capacity, size_t *count,
                             char *message, size_t message_capacity);

/* queue_cuda.c's, for program_cuda.c. code is a cudaError_t. */
/* 1 where code leaves the process's CUDA context unusable, else 0. */
int ck__cuda_lost(int code);
/* Fails naming the queue's device, what failed and CUDA's reason for it. */
ck_status ck__cuda_fail(const ck_queue *queue, int code, const char *what);
/* Gives event (where not NULL) a pair of CUDA events; records its start. */
ck_status ck__cuda_event_start(ck_queue *queue, ck_event *event);
/* Records the end of event's pair, where event is not NULL. */
ck_status ck__cuda_event_stop(ck_queue *queue, ck_event *event);

/* program_cuda.c's: the programs, kernels and launches of ck__cuda_ops. */
/* Builds a program through NVRTC and the binary cache, and loads it. */
ck_status ck__cuda_program_build(ck_queue *queue, ck_program *program,
                                 const char *source, const char *options);
/* The program's cache key: the device, the source and the options. */
ck_status ck__cuda_program_key(const ck_queue *queue, const char *source,
                               const char *options, uint8_t key[32]);
/* Unloads a program's CUDA library. */
void ck__cuda_program_destroy(ck_program *program);
/* Finds a kernel in its program, and the sizes of its parameters. */
ck_status ck__cuda_kernel_create(ck_program *program, ck_kernel *kernel);
/* Frees what ck__cuda_kernel_create made. */
void ck__cuda_kernel_destroy(ck_kernel *kernel);
/* Stores an argument of a kernel, checked against its parameter. */
ck_status ck__cuda_kernel_set_arg(ck_kernel *kernel, unsigned index,
                                  ck__arg_kind kind, size_t size,
                                  const void *value);
/* How many parameters a kernel has, or -1 where CUDA cannot say. */
int ck__cuda_kernel_argument_count(const ck_kernel *kernel);
/* Launches a kernel on the queue's stream, timed, with event's pair. */
ck_status ck__cuda_launch(ck_queue *queue, ck_kernel *kernel, unsigned dims,
                          const size_t *global, const size_t *local,
                          ck_event *event);
#endif

/* "CL_OUT_OF_RESOURCES" and so on, for messages. */
const char *ck__opencl_error_name(int code);

/* Whether this process is a child forked after it first called into
 * OpenCL (device_opencl.c): then it makes no OpenCL call. */
int ck__opencl_forked(void);

/* The failure of every OpenCL call in such a child; what names the
 * device (or "") and comes first. Returns CK_ERROR_UNSUPPORTED. */
ck_status ck__opencl_refuse_forked(const char *what);

#endif /* CK_BACKEND_H */
