/*
 * queue_internal.h - the backend interface behind ck_queue.
 *
 * queue.c checks arguments and owns the handle structs; each backend
 * (queue_opencl.c, queue_host.c, queue_cuda.c) fills in one ops table. A
 * backend sees only requests that already passed validation.
 */
#ifndef CK_QUEUE_INTERNAL_H
#define CK_QUEUE_INTERNAL_H

#include "core/internal.h"

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

/* What can run on a GPU of compute capability `architecture` (major * 10
 * + minor), given the oldest and newest architectures NVRTC builds for (0
 * where unknown) and the oldest this build's nvcc code was compiled for:
 * machine code from NVRTC; PTX for NVRTC's newest architecture, which the
 * driver compiles for a GPU newer than NVRTC; or nothing, for a GPU older
 * than either. */
typedef enum ck__cuda_reach {
  CK__CUDA_MACHINE_CODE,
  CK__CUDA_THROUGH_PTX,
  CK__CUDA_UNREACHABLE
} ck__cuda_reach;
ck__cuda_reach ck__cuda_reach_of(int architecture, int nvrtc_oldest,
                                 int nvrtc_newest, int native_oldest);

/* "" for a CUDA error code (cudaError_t) that leaves the context usable;
 * for one that does not (an illegal address in a kernel, ...), a note to
 * append to its message saying so. */
const char *ck__cuda_lost_note(int code);

/* For tests: when 1, the calling thread's programs are built as PTX for
 * their device's architecture, as for a GPU newer than NVRTC, and loaded
 * through the driver's compiler; when an older architecture (75 for
 * sm_75), as PTX for that one, so that the fallbacks the kernels keep for
 * older GPUs run on this one. ck__cuda_ptx_builds counts the programs
 * built as PTX. */
extern _Thread_local int ck__cuda_programs_as_ptx;
extern _Thread_local unsigned ck__cuda_ptx_builds;

/* For tests: when nonzero, the calling thread's next load of a program's
 * machine code fails with this CUDA error code (cudaError_t) instead of
 * loading, and the switch goes back to 0. */
extern _Thread_local int ck__cuda_next_load_fails;

/* For a workload's native CUDA steps: the queue's stream (a
 * cudaStream_t), a buffer's device pointer, and a timing span around
 * their launches, so that ck_queue_get_kernel_seconds() counts them. */
void *ck__cuda_stream(const ck_queue *queue);
void *ck__cuda_pointer(const ck_buffer *buffer);
ck_status ck__cuda_kernel_begin(ck_queue *queue, void **span);
ck_status ck__cuda_kernel_end(ck_queue *queue, void *span);
/* Gives back a span whose launch failed, before anything else on the
 * queue begins one. */
void ck__cuda_kernel_abandon(ck_queue *queue, void *span);
/* Makes the queue's device the calling thread's current one, for a call
 * into a CUDA library outside a timing span (kernel_begin does it too):
 * another queue's calls may have changed it. */
ck_status ck__cuda_use_device(const ck_queue *queue);

/* Shared memory beyond what a kernel declares, for its extern __shared__
 * array: makes every later launch of kernel (built for the queue's
 * device) get `bytes` of it, up to the device's opt-in limit
 * (ck_device.local_memory_opt_in, over the 48 KB a kernel may declare
 * itself). Errors: CK_ERROR_INVALID_ARGUMENT past the limit,
 * CK_ERROR_DEVICE with CUDA's reason. */
ck_status ck__cuda_kernel_set_shared(ck_kernel *kernel, size_t bytes);

/* How many blocks of `threads` threads of a CUDA kernel (with the shared
 * memory ck__cuda_kernel_set_shared gave it) the whole device holds at
 * once, into *blocks (0 where a block does not fit). Errors:
 * CK_ERROR_DEVICE with CUDA's reason. */
ck_status ck__cuda_kernel_resident(ck_kernel *kernel, size_t threads,
                                   size_t *blocks);

/* The compute capability of a CUDA device as major * 10 + minor (90 for
 * an H100), or 0 where it cannot be read or the device is not CUDA's. */
int ck__cuda_architecture(const ck_device *device);
/* The warp width the native kernels (the .cu files of cl/) are written
 * for: their lane masks are 32-bit words (cl/ck_warp.h refuses other
 * widths), and host code sizes their blocks by it. */
#define CK__CUDA_WARP 32
/* A CUDA device's limits an SM (resident threads, 32-bit registers,
 * resident blocks), by which native kernels choose their launch bounds;
 * all 0 where the device cannot say. */
void ck__cuda_multiprocessor(const ck_device *device, int *threads,
                             int *registers, int *blocks);

/* CUDA graphs, for launch-bound loops. Between capture_begin and
 * capture_end the queue's launches are recorded, not run (nor timed);
 * capture_end returns the recording, ready to run, in *graph (owned by
 * the caller: ck__cuda_graph_destroy). graph_launch runs it on the queue,
 * timed as one span. Recorded launches keep the arguments they had, so a
 * graph suits a sequence that reads what changes from device memory.
 * Errors: CK_ERROR_DEVICE with CUDA's reason. */
ck_status ck__cuda_capture_begin(ck_queue *queue);
ck_status ck__cuda_capture_end(ck_queue *queue, void **graph);
ck_status ck__cuda_graph_launch(ck_queue *queue, void *graph);
void ck__cuda_graph_destroy(void *graph);

/* Compiles kernel program name (a cl/ file, as ck_program_build names it)
 * through NVRTC for sm_<architecture> with defines, as a CUDA device of a
 * typical shape would build it, but with no device: for tests on machines
 * without a GPU. Returns CK_OK, or CK_ERROR_BUILD with the log in the
 * message. */
ck_status ck__cuda_compile_check(const char *name, const char *defines,
                                 int architecture);
#endif

/* The option that builds a program's single-precision division and square
 * root correctly rounded, as C rounds them (which NVIDIA's OpenCL does not
 * by default), where the device is an OpenCL one offering it; "" on other
 * devices (CUDA rounds them correctly unless told otherwise). For
 * programs whose results should match ref's bits: not every program's
 * options, since the rounded forms cost more instructions. */
const char *ck__device_exact_divide_sqrt_option(const ck_device *device);

/* The major version of PoCL that runs an OpenCL device, or 0 for any
 * other runtime or backend: for working around what a PoCL release is
 * known to miscompile. */
int ck__device_pocl_major(const ck_device *device);

/* 1 when the device's runtime keeps its own on-disk cache of builds, so
 * that clkit's is left alone (unless CLKIT_CACHE=1): PoCL, unless
 * POCL_KERNEL_CACHE=0. PoCL caches both the program and the kernels it
 * compiles at their first launch, while the binary that clkit's cache
 * would store makes PoCL compile every kernel of the program once more
 * for any work-group size (11 of a GA program's 15 s on PoCL 3.1). */
int ck__device_caches_builds(const ck_device *device);

/* The build options clkit adds for a device (one place for all of them). */
ck_status ck__device_build_options(const ck_device *device, char *options,
                                   size_t capacity);

/* When set, builds skip loading from the cache (but still store): the
 * cold-build measurement of ck_device_probe(). */
extern _Thread_local int ck__build_from_source;

/* "CL_OUT_OF_RESOURCES" and so on, for messages. */
const char *ck__opencl_error_name(int code);

#endif /* CK_QUEUE_INTERNAL_H */
