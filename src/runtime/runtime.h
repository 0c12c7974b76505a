/*
 * runtime.h - what the compute runtime (devices, queues, programs, kernel
 * sources and their binary cache) offers the rooms above it: the
 * workload framework and the workloads. The backend interface itself is
 * runtime/backend.h.
 */
#ifndef CK_RUNTIME_H
#define CK_RUNTIME_H

#include "util/util.h"

/* ---- Devices (device.c; OpenCL's in queue_opencl.c) ------------------- */

/* CK_OK unless bytes, what a run will keep on the device (in host memory
 * for ref), passes 90% of the device's memory where that is known; then
 * CK_ERROR_DEVICE_MEMORY, "about X GB; device D has Y GB", for the caller
 * to prefix with what needs it (CK_FAIL_PREFIX), before anything is
 * allocated: a run that cannot fit fails at once with the figures, and on
 * the host rather than in an over-committed allocation (device.c). */
ck_status ck__device_memory_check(const ck_device *device, double bytes);

/* The option that builds a program's single-precision division and square
 * root correctly rounded, as C rounds them (which NVIDIA's OpenCL does not
 * by default), where the device is an OpenCL one offering it; "" on other
 * devices (CUDA rounds them correctly unless told otherwise). For
 * programs whose results should match ref's bits: not every program's
 * options, since the rounded forms cost more instructions. */
const char *ck__device_exact_divide_sqrt_option(const ck_device *device);

/* Fills *device with the ref device, plain C on the host, which every
 * device set holds. */
void ck__device_reference(ck_device *device);

/* What a device can do, for the workloads' choices (which never test a
 * backend themselves):
 * - runs_kernels: its steps are kernels over work-items and
 *   work-groups; 0 for ref, whose steps are plain C calls;
 * - has_fp64: it computes in double precision: ref always (plain C),
 *   other devices where their has_fp64 says so;
 * - has_vector_types: it compiles OpenCL C's vector types (float16 and
 *   the like), which the CUDA prelude does not spell;
 * - lends_memory: its buffers can be read in place by other libraries
 *   (a device pointer and a stream, ck__queue_lend), and values taken
 *   from their memory (ck__queue_take_lent_values);
 * - shares_between_processes: other processes can open its buffers and
 *   events (CUDA IPC), and NCCL can send from and into them;
 * - has_tf32: cuBLAS's TF32 products run on tensor cores (CUDA, compute
 *   capability 8.0 or later; before it, TF32 mode quietly computes in
 *   FP32). */
int ck__device_runs_kernels(const ck_device *device);
/* A GPU that runs kernels (ref never does): where the workloads' GPU
 * defaults apply. */
int ck__device_is_gpu(const ck_device *device);
int ck__device_has_fp64(const ck_device *device);
int ck__device_has_vector_types(const ck_device *device);
int ck__device_shares_between_processes(const ck_device *device);
int ck__device_lends_memory(const ck_device *device);
int ck__device_has_tf32(const ck_device *device);

/* A queue on home's device made beside it, into *queue (the caller's:
 * ck_queue_destroy, before home), or NULL where the backend cannot order
 * two queues (OpenCL). Home's buffers and kernels serve it too, so that
 * one state's work may run in two queues at once. Nothing orders the two
 * but marks: ck__queue_mark marks what `beside` has queued so far, and
 * ck__queue_follow makes home's later work wait for its last mark;
 * neither host waits. Each keeps its own finish and kernel seconds (its
 * kernels overlap home's). Errors: the backend's, CK_ERROR_OUT_OF_MEMORY. */
ck_status ck__queue_beside(const ck_queue *home, ck_queue **queue);
ck_status ck__queue_mark(ck_queue *beside);
ck_status ck__queue_follow(ck_queue *home, ck_queue *beside);

/* Sets the cursor's next arguments from a list, one letter of kinds an
 * argument, each taking the next of values: 'b' a ck_buffer *, 'i' an int
 * (set as an int32_t), 'u' an unsigned (a uint32_t), 'r' a double (set by
 * ck_kernel_args_real with double_precision). Variadic arguments are not
 * checked, so callers pass exactly these types: uint32_t or unsigned,
 * int, double and pointers, with size_t and uint64_t values cast. Keeps
 * the first failure as the cursor's calls do, and returns args->status;
 * an unknown letter is CK_ERROR_INVALID_ARGUMENT (kept in args, the
 * message naming it), as is a NULL args or kinds. */
ck_status ck__kernel_args_list(ck_kernel_args *args, int double_precision,
                               const char *kinds, va_list values);
/* The same, with the values given in place. */
ck_status ck__kernel_args_add(ck_kernel_args *args, int double_precision,
                              const char *kinds, ...);

/* A buffer lent in place, where ck__device_lends_memory(): its device
 * address, its device's ordinal and the queue's stream (a cudaStream_t).
 * Returns CK_OK, or CK_ERROR_UNSUPPORTED elsewhere. */
ck_status ck__queue_lend(ck_queue *queue, const ck_buffer *buffer,
                         void **address, int *ordinal, void **stream);

/* A lender's values into `to`, in the queue's order: count values of
 * from_size bytes (4 or 8) at `from` in the device's memory, stride
 * apart, into to_size bytes each (4 or 8), NaN as the largest value of
 * to's precision and the rest clamped to its range. CK_ERROR_UNSUPPORTED
 * where the device lends no memory. */
ck_status ck__queue_take_lent_values(ck_queue *queue, const void *from,
                                     size_t from_size, size_t stride,
                                     ck_buffer *to, size_t to_size,
                                     size_t count);

/* count values of from_size bytes, stride apart, in the memory of the
 * lending device `ordinal`, copied in `stream`'s order into host memory
 * as doubles, once the stream's work before them is done.
 * CK_ERROR_UNSUPPORTED in a build that lends no memory. */
ck_status ck__lent_values_read(int ordinal, void *stream, const void *from,
                               size_t from_size, size_t stride, double *to,
                               size_t count);

/*
 * Stream order for memory a device lends (CUDA streams, cudaStream_t):
 * - ck__lent_stream_wait: work queued on `consumer` from now on waits for
 *   the work queued on `producer` so far, with no wait on the host;
 * - ck__lent_mark_record: *mark (made at its first record, a cudaEvent_t)
 *   marks the work queued on `stream` so far;
 * - ck__lent_mark_wait: the host waits until that work is done (at once
 *   for a NULL mark); ck__lent_mark_free frees one (NULL too).
 * CK_ERROR_UNSUPPORTED in a build that lends no memory.
 */
ck_status ck__lent_stream_wait(int ordinal, void *producer, void *consumer);
ck_status ck__lent_mark_record(int ordinal, void *stream, void **mark);
ck_status ck__lent_mark_wait(int ordinal, void *mark);
void ck__lent_mark_free(void *mark);

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

/* The build options clkit adds for a device (one place for all of them,
 * in sources.c). */
ck_status ck__device_build_options(const ck_device *device, char *options,
                                   size_t capacity);

/* ck_device_enumerate() of the backends a selector needs: ref alone for
 * "ref", CUDA alone for "cuda" and "cuda:N", OpenCL alone for "opencl"
 * and "ocl:..."; every backend for any other term. A backend left out is
 * neither listed nor noted (its status CK_OK). */
ck_status ck__device_enumerate_for(const char *selector, ck_device_set *set);

/* ---- Peaks (peak.c, peak_host.c, peak_cache.c) -------------------------- */

/* The score of a device's cached peaks, by which measured devices are
 * ranked (device.c): the geometric mean of its FP32 GFLOP/s and its read
 * GB/s, so that neither unit outweighs the other. 0 where no peaks are
 * kept or either failed. Records no error. */
double ck__peak_score(const ck_device *device);
/* ck_peak_load() and the store of ck_peak_measure() as a given clkit
 * version keys them: tests check that another version misses, and put
 * chosen peaks in a cache. */
ck_status ck__peak_load_version(const ck_device *device, const char *version,
                                ck_peak *peak);
ck_status ck__peak_store_version(const ck_device *device, const char *version,
                                 const ck_peak *peak);

/* What peak.c's measures and ref's (peak_host.c) share. */

/* The host's name, as gethostname() gives it; "" where it gives none. */
void ck__peak_host_name(char *name, size_t capacity);
/* Marks a metric with a state other than measured, and why. */
void ck__peak_mark(ck_peak_value *value, ck_peak_state state,
                   const char *reason);
/* A width (index, or -1 where widths do not apply) measured rate in a run
 * of size that took seconds (the median of runs): the metric's value when
 * it is the best so far. */
void ck__peak_note(ck_peak_value *value, int index, double rate,
                   unsigned long long size, unsigned runs, double seconds);
/* The last failure's message, as a width's (index, or -1) reason: the
 * first one a metric meets is kept. */
void ck__peak_note_failure(ck_peak_value *value, int index);
/* Every metric asked that is still unmarked fails with the last failure's
 * message. */
void ck__peak_fail_rest(ck_peak *peak, unsigned asked_metrics);
/* The buffer size: the largest power of two within what options and the
 * device allow (a quarter of its memory, its largest allocation). */
unsigned long long ck__peak_buffer_bytes(const ck_device *device,
                                         const ck_peak_options *options);

/* The runs' samples, kept from one measure to the next. */
typedef struct ck__peak_timing {
  const ck_peak_options *options;
  double *samples;
  size_t capacity;
} ck__peak_timing;
/* One run of a measure: its seconds, or a failure (recorded). */
typedef ck_status (*ck__peak_run)(void *user, double *seconds);
/* Timed runs of run, after one untimed (a runtime may finish compiling
 * in it): at least options->runs of them, and more until they last
 * options->seconds in all. The median's seconds into *median. */
ck_status ck__peak_time_runs(ck__peak_timing *timing, ck__peak_run run,
                             void *user, double *median, unsigned *runs);
/* ref's measures (peak_host.c): memory and multiply-adds in plain C;
 * launches and transfers do not apply. */
void ck__peak_measure_host(const ck_device *device,
                           const ck_peak_options *options, ck_peak *peak,
                           ck__peak_timing *timing);

/* ---- Sessions (session.c) ----------------------------------------------- */

/* A run on device begins: CK_OK where device belongs to no session, or
 * to a live one, whose runs it counts; else CK_ERROR_INVALID_ARGUMENT
 * naming the device and the destroyed session. The session is then the
 * calling thread's until ck__session_run_end(outer): a run finishes on
 * the session it began on, though it is destroyed meanwhile (from a
 * callback, say), its later queues its own. *outer keeps the thread's
 * session before, for a run inside a run. */
ck_status ck__session_run_begin(const ck_device *device, ck_session **outer);
void ck__session_run_end(ck_session *outer);
/* The session of the run under way on the calling thread, or NULL; a
 * spread run's threads take their caller's. */
extern _Thread_local ck_session *ck__session_running;

/* ---- Buffers (buffers.c) ------------------------------------------------ */

/* Reals to and from a buffer, as doubles or floats (double_precision 0). */
ck_status ck__reals_write(ck_queue *queue, ck_buffer *buffer,
                          int double_precision, const double *values,
                          size_t count);
ck_status ck__reals_read(ck_queue *queue, ck_buffer *buffer,
                         int double_precision, double *values, size_t count);

/* Host memory of at least size bytes that the queue's reads and writes
 * move fastest: page-locked on CUDA (transfers then go at the bus's
 * speed, and without a wait where asked), plain memory elsewhere. Free
 * it with ck__host_free on the same queue. Errors:
 * CK_ERROR_OUT_OF_MEMORY. */
ck_status ck__host_alloc(ck_queue *queue, size_t size, void **pointer);
void ck__host_free(ck_queue *queue, void *pointer);

/*
 * A queue's staging: host memory of ck__host_alloc's that writes to its
 * buffers go from without a wait (write, write_bytes of it), and reads
 * for the host go to (read). Writes queued from it may read it until the
 * queue has done them. `written` is the event of the last (the queue
 * keeps their order), waited for before the write side is filled again:
 * waiting for the queue's later work would stall the host.
 * Zeroed: empty. The caller keeps the queue it was made on, and frees it
 * there.
 */
typedef struct ck__staging {
  void *write, *read;
  size_t write_bytes, read_bytes;
  ck_event *written;
} ck__staging;

/* At least `bytes` in *memory (*capacity bytes of one side of s), made
 * anew where it holds too few (its content goes; half as much again, to
 * grow seldom). Pending writes are waited for first. */
ck_status ck__staging_hold(ck__staging *s, ck_queue *queue, void **memory,
                           size_t *capacity, size_t bytes);
/* Waits for the writes pending from s, if any. */
ck_status ck__staging_settle(ck__staging *s);
/* Writes n pieces (sizes[k] bytes from pieces[k]) one after another to
 * buffer from byte `offset`: copied once into s's write side (once the
 * writes pending from it are done), then one write from it without a
 * wait. */
ck_status ck__staging_write(ck__staging *s, ck_queue *queue, ck_buffer *buffer,
                            size_t offset, int n, const void *const *pieces,
                            const size_t *sizes);
/* Queues reads of n ranges (sizes[k] bytes from byte at[k] of buffer)
 * one after another into s's read side, with `tail` bytes of room past
 * them (what it held goes): ranges that follow each other in buffer go
 * in one read. out[k] points at each, NULL where it is empty, and *room
 * (where room is not NULL) at the tail's room; the caller waits for the
 * queue before it reads them. */
ck_status ck__staging_read(ck__staging *s, ck_queue *queue, ck_buffer *buffer,
                           int n, const size_t *at, const size_t *sizes,
                           size_t tail, const void **out, void **room);
/* Frees s once its pending writes are done (queue NULL: nothing held). */
void ck__staging_free(ck__staging *s, ck_queue *queue);

/* A buffer of at least one byte. */
ck_status ck__buffer_make(ck_queue *queue, size_t bytes, ck_buffer **buffer);
/* A buffer of count elements of size bytes (at least one byte), zeroed by
 * a write from the host, so that no kernel reads an unwritten value
 * (checkers such as Oclgrind treat device fills as unwritten). Errors
 * name `what`: CK_ERROR_DEVICE_MEMORY (too large, or refused),
 * CK_ERROR_OUT_OF_MEMORY. */
ck_status ck__buffer_make_zeroed(ck_queue *queue, size_t count, size_t size,
                                 const char *what, ck_buffer **buffer);

/* ---- Copies between devices (peer.c) ------------------------------------ */

/* Copies from the buffers of one device's queues into those of another's
 * (or the same device's), without the host: between CUDA devices of this
 * process. */
typedef struct ck__peer ck__peer;

/* 0 where CLKIT_PEER is "0", which turns such copies off (read at each
 * call); else 1. */
int ck__peer_enabled(void);

/*
 * Opens copies from buffers of device `from` to buffers of device `to`
 * into *peer (the caller's: ck__peer_close), or sets it NULL where there
 * are none: unless both are CUDA devices, or when ck__peer_enabled() is
 * 0. Two GPUs get peer access, where they allow it, once for the
 * process; without it CUDA copies through host memory itself. Errors:
 * CK_ERROR_OUT_OF_MEMORY, CK_ERROR_DEVICE.
 */
/* A device's peer with itself, whatever CLKIT_PEER says, for marks
 * between two of its queues (ck__queue_beside); NULL where its backend
 * has no peers (OpenCL). Errors: as ck__peer_open's. */
ck_status ck__peer_open_self(const ck_device *device, ck__peer **peer);
ck_status ck__peer_open(const ck_device *from, const ck_device *to,
                        ck__peer **peer);

/*
 * Queues a copy of size bytes from source (on queue `from`, of the
 * peer's source device) into destination (on queue `to`, of its
 * destination device). It runs after the work queued so far on both
 * queues, and before the work either queues later: the host waits for
 * neither. Both queues must be free of other threads during the call.
 * A queue to itself copies in its own order. Errors:
 * CK_ERROR_INVALID_ARGUMENT (buffers not the queues', queues not the
 * devices, bytes past a buffer's end), CK_ERROR_DEVICE.
 */
ck_status ck__peer_copy(ck__peer *peer, ck_queue *to, ck_buffer *destination,
                        size_t destination_offset, ck_queue *from,
                        ck_buffer *source, size_t source_offset, size_t size);
/* Where the destination reads the source's memory in its own kernels
 * (a pull): mark queues, on the source's queue, a point that follow
 * makes the destination's queue wait for, without the host (the mark
 * last queued before the follow). Neither waits on ref. Errors:
 * CK_ERROR_DEVICE. */
ck_status ck__peer_mark(ck__peer *peer, ck_queue *from);
ck_status ck__peer_follow(ck__peer *peer, ck_queue *to);
/* 1 where the destination's kernels may read the source's memory: one
 * GPU, two joined by peer access, or ref for tests. */
int ck__peer_direct(const ck__peer *peer);
/* The address at which the destination's kernels read a buffer of the
 * source's device (on ref, its host memory). Errors:
 * CK_ERROR_UNSUPPORTED where they may not (ck__peer_direct). */
ck_status ck__peer_address(const ck__peer *peer, ck_buffer *source,
                           uint64_t *address);
void ck__peer_close(ck__peer *peer);

/*
 * Reads between the processes of one node (CUDA IPC):
 * - A process hands out a buffer's handle (CK__IPC_HANDLE_BYTES); another
 *   opens it, for its own queue's kernels to read at *address, and closes
 *   it on the queue's device.
 * - Likewise an event: one process records it on its queue, and another's
 *   queue waits for it; neither host waits. A wait follows the record
 *   last made before the call.
 * Errors: CK_ERROR_UNSUPPORTED off CUDA, CK_ERROR_DEVICE,
 * CK_ERROR_OUT_OF_MEMORY.
 */
#define CK__IPC_HANDLE_BYTES 64
/* A GPU's identity, the same in every process of its node (its UUID);
 * zeros for a device not CUDA's. */
#define CK__IPC_IDENTITY_BYTES 16
ck_status ck__ipc_device_identity(const ck_device *device, void *identity);
typedef struct ck__ipc_event ck__ipc_event;
ck_status ck__ipc_buffer_handle(ck_buffer *buffer, void *handle);
ck_status ck__ipc_buffer_open(ck_queue *queue, const void *handle,
                              uint64_t *address);
void ck__ipc_buffer_close(const ck_device *device, uint64_t address);
ck_status ck__ipc_event_make(ck_queue *queue, ck__ipc_event **event,
                             void *handle);
ck_status ck__ipc_event_open(ck_queue *queue, const void *handle,
                             ck__ipc_event **event);
ck_status ck__ipc_event_record(ck__ipc_event *event, ck_queue *queue);
ck_status ck__ipc_event_wait(ck__ipc_event *event, ck_queue *queue);
void ck__ipc_event_close(ck__ipc_event *event);

/* ---- On-disk kernel binary cache (cache.c) ------------------------------ */
/*
 * The cache directory: $CLKIT_CACHE_DIR, else $XDG_CACHE_HOME/clkit, else
 * $HOME/.cache/clkit. Written into path (capacity bytes). A relative one
 * is refused (CK_ERROR_CACHE, path left empty).
 */
ck_status ck__cache_directory(char *path, size_t capacity);
/* How CLKIT_CACHE sets the cache, any case: "0", "off", "no" or "false"
 * turn it off; "1", "on", "yes" or "true" ask for it on every device,
 * even where the runtime keeps its own cache of builds
 * (ck__device_caches_builds); nothing, "" or any other value leaves it on
 * (ck_cache_query() reports another value). */
typedef enum ck__cache_mode {
  CK__CACHE_OFF,
  CK__CACHE_ON,
  CK__CACHE_FORCED
} ck__cache_mode;
ck__cache_mode ck__cache_setting(void);
/*
 * Looks an entry up by its 32-byte key. On a hit stores a malloc'd copy of
 * the payload (caller frees) and its size, and, when kernels is not NULL,
 * the kernel names stored with it (a malloc'd ';'-separated list, caller
 * frees), and returns CK_OK. A missing entry returns CK_ERROR_NOT_FOUND
 * without recording an error message; so do a directory that cannot be
 * used or trusted, and an entry that is not a regular file private to the
 * user (not read). An entry whose header, key or checksum is wrong is
 * deleted and reported as missing.
 */
ck_status ck__cache_load(const uint8_t key[32], void **payload, size_t *size,
                         char **kernels);
/*
 * Stores an entry atomically, with the key and the kernel names (a
 * ';'-separated list, or NULL for none) in its header: written to a
 * temporary file in the cache directory, then renamed over the final
 * name, so that concurrent writers and readers never see a partial entry.
 * The directory is created 0700; one that may not be trusted is refused
 * (CK_ERROR_CACHE).
 */
ck_status ck__cache_store(const uint8_t key[32], const char *kernels,
                          const void *payload, size_t size);
/* The kinds of entry: a built program's binary, which the two calls above
 * load and store, or a device's measured peaks (runtime/peak.c, whose
 * entries hold no kernel names). Each kind has its own file names, so
 * that ck_cache_query() counts them apart. */
typedef enum ck__cache_kind {
  CK__CACHE_BINARY,
  CK__CACHE_PEAKS
} ck__cache_kind;
ck_status ck__cache_load_kind(ck__cache_kind kind, const uint8_t key[32],
                              void **payload, size_t *size, char **kernels);
ck_status ck__cache_store_kind(ck__cache_kind kind, const uint8_t key[32],
                               const char *kernels, const void *payload,
                               size_t size);
/* Deletes one binary's entry (for a binary the device rejected). */
ck_status ck__cache_remove(const uint8_t key[32]);
/* 1 when every name of the ';'-separated list wanted is in present: a
 * cached binary must define the kernels stored with it. */
int ck__cache_kernels_present(const char *wanted, const char *present);

/* When set, builds skip loading from the cache (but still store): the
 * cold-build measurement of ck_device_probe(). */
extern _Thread_local int ck__build_from_source;

/* ---- Program builds (program.c) ----------------------------------------- */

/*
 * ck_program_build() with a caller's source placed before cl/<name>.cl:
 * a user objective, say. prefix_name names it in compiler messages.
 */
ck_status ck__program_build_prefixed(ck_queue *queue, const char *name,
                                     const char *defines,
                                     const char *prefix_name,
                                     const char *prefix_text,
                                     ck_program **program);

/* Told of each program build on the calling thread as it begins, and as
 * it ends after seconds (failed or not): the workload framework watches
 * a run's builds, for its caller's build callback and its build time. */
typedef struct ck__build_watch {
  void (*started)(void *user, const char *program);
  void (*ended)(void *user, const char *program, double seconds, int failed);
  void *user;
} ck__build_watch;
/* The calling thread's watch; NULL (none) but while a run is in progress. */
extern _Thread_local const ck__build_watch *ck__build_watching;

/* ---- Kernel sources (sources.c, kernels_embedded.c) --------------------- */
typedef struct ck__source {
  const char *name; /* file name inside cl/, e.g. "ck_philox.h" */
  const char *text;
  size_t size;
} ck__source;

/* Where each line of an assembled source came from. */
typedef struct ck__line_origin {
  char file[256]; /* as shown in messages: "cl/pso.cl", or a user's file */
  size_t line;    /* 1-based; 0 for a #line directive clkit inserted */
} ck__line_origin;

typedef struct ck__source_map {
  ck__line_origin *lines; /* one per assembled line */
  size_t line_count, line_capacity;
} ck__source_map;

/* ck_kernels_assemble() that also fills map (release with _free). */
ck_status ck__kernels_assemble_mapped(const char *name, char **text,
                                      size_t *size, ck__source_map *map);
void ck__source_map_free(ck__source_map *map);
/* A copy of a build log with anonymous positions mapped back to cl/. */
char *ck__source_map_rewrite(const ck__source_map *map, const char *log);

/* A failed build's message (malloc'd; NULL when out of memory) with the
 * compiler's errors first, each as "FILE:LINE[:COL]: error: TEXT"
 * whatever the compiler's own form: what the user wrote wrong comes
 * before the device, the options and the whole log, which follow. */
char *ck__build_errors_first(const char *message);

extern const ck__source ck__embedded_sources[];
extern const size_t ck__embedded_source_count;

/* ---- CUDA (queue_cuda.c, program_cuda.c): for native steps and tests -- */

#if CK_HAVE_CUDA
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

/* nvrtc_cuda.c: the oldest and newest architectures NVRTC builds for
 * (sm_XY as XY), or 0 and 0 where it cannot say; the prelude, then
 * source, as a malloc'd text in *full; and that text compiled for
 * sm_<architecture> into a malloc'd *cubin: machine code, or PTX where
 * the GPU is newer than NVRTC (or CK__TEST_CUDA_AS_PTX asks). target
 * names the device in messages. */
void ck__nvrtc_range(int *oldest, int *newest);
ck_status ck__nvrtc_with_prelude(const char *name, const char *source,
                                 char **full);
ck_status ck__nvrtc_compile(int architecture, const char *target,
                            const char *name, const char *source,
                            const char *options, void **cubin,
                            size_t *cubin_size);

/* "" for a CUDA error code (cudaError_t) that leaves the context usable;
 * for one that does not (an illegal address in a kernel, ...), a note to
 * append to its message saying so. */
const char *ck__cuda_lost_note(int code);

/* For a workload's native CUDA steps: the queue's stream (a
 * cudaStream_t), a buffer's device pointer, and a timing span around
 * their launches, so that ck_queue_get_kernel_seconds() counts them. */
void *ck__cuda_stream(const ck_queue *queue);
void *ck__cuda_pointer(const ck_buffer *buffer);
/* A device objective's values into `to`, in the queue's order: count
 * values of from_size bytes (4 or 8) in device memory, stride apart,
 * into to_size bytes each (4 or 8), NaN as the largest value of to's
 * precision and the rest clamped to its range (ck_device_batch). */
ck_status ck__cuda_take_values(ck_queue *queue, const void *from,
                               size_t from_size, size_t stride, ck_buffer *to,
                               size_t to_size, size_t count);
/* count values of from_size bytes (4 or 8), stride apart, in the memory
 * of CUDA device `ordinal`, copied in `stream`'s order (a cudaStream_t;
 * NULL: the legacy default stream) into host memory as doubles, once the
 * stream's work before them is done. */
ck_status ck__cuda_read_values(int ordinal, void *stream, const void *from,
                               size_t from_size, size_t stride, double *to,
                               size_t count);
/* Stream order between a lender and its borrowers (ck__lent_stream_wait,
 * ck__lent_mark_*), on CUDA device `ordinal`. */
ck_status ck__cuda_stream_wait(int ordinal, void *producer, void *consumer);
ck_status ck__cuda_mark_record(int ordinal, void *stream, void **mark);
ck_status ck__cuda_mark_wait(int ordinal, void *mark);
void ck__cuda_mark_free(void *mark);
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
 * itself). The limit it raises is the program's, which a session lends to
 * runs at once: bytes must follow from the program's defines. Errors:
 * CK_ERROR_INVALID_ARGUMENT past the limit, CK_ERROR_DEVICE with CUDA's
 * reason. */
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
 * without a GPU. prefix: a user objective's source placed before the
 * program (ck__program_build_prefixed), or NULL. Returns CK_OK, or
 * CK_ERROR_BUILD with the log in the message. */
ck_status ck__cuda_compile_check(const char *name, const char *prefix,
                                 const char *defines, int architecture);
#endif

#endif /* CK_RUNTIME_H */
