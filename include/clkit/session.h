/*
 * clkit/session.h - devices kept open between runs.
 *
 * A session opens the devices a selector names once and keeps, for each,
 * a queue (its OpenCL context or CUDA stream), the programs built on it
 * and buffers that runs gave back. Its devices (ck_session_get_devices)
 * carry the session: a queue made on one of them, or on a copy, comes
 * from the session. So ck_workload_run(), ck_nn_create(), ck_gas_create()
 * and ck_queue_create() on a session's device reuse what earlier calls
 * left, and a second run with the same kernels builds nothing.
 *
 * What a session keeps:
 *   - per device, one queue, lent to one queue of the caller at a time;
 *     another queue made meanwhile is new, in the same OpenCL context,
 *     and is kept once destroyed, for the next call at the same time;
 *   - per device, built programs, keyed as the binary cache keys them
 *     (source, options, device), each serving every queue of the device
 *     at once; runs at the same time build a program once;
 *   - per device, the buffers the last run destroyed, handed to a later
 *     ck_buffer_create() of the same size (not on ref). A buffer's
 *     contents are undefined, as ever.
 *
 * Threads: a session may be used from several threads at once. Its
 * bookkeeping takes a lock; runs on one device at the same time each get
 * their own queue. Each queue, program and workload object keeps the
 * rules of its own header.
 */
#ifndef CLKIT_SESSION_H
#define CLKIT_SESSION_H

#include <stddef.h>

#include "clkit/device.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ck_session ck_session;

/* What a session has done since it was created. */
typedef struct ck_session_stats {
  size_t devices;                 /* devices it holds */
  unsigned long long runs;        /* ck_workload_run() calls on them */
  unsigned long long queues_made; /* backend queues created */
  unsigned long long queues_lent; /* queues made that reused a kept one */
  /* Programs the backend built, from source or from the binary cache. */
  unsigned long long programs_built;
  /* Programs served from the session's table: no build at all. */
  unsigned long long programs_reused;
  size_t programs;                   /* programs kept now */
  unsigned long long buffers_reused; /* buffers served from those kept */
  size_t buffers;                    /* buffers kept now */
  unsigned long long buffer_bytes;   /* their bytes */
} ck_session_stats;

/*
 * ck_session_create - open the devices a selector names (as
 * ck_device_select() reads it) and keep them. Only the backends the
 * selector needs are enumerated: "cuda:0" lists no OpenCL platform,
 * "ref" neither. Queues are made at first use.
 * Takes: selector (NULL or "": the fastest device); session (set; release
 * with ck_session_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL session or a
 * malformed selector; CK_ERROR_NOT_FOUND when a term matches no device
 * (the message lists those there are); CK_ERROR_UNSUPPORTED where the
 * selector needs OpenCL in a process forked after it called into OpenCL
 * (clkit/queue.h); CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_session_create(const char *selector, ck_session **session);

/*
 * ck_session_destroy - close a session. Calls that use it after (a device
 * of it, or a copy) fail with CK_ERROR_INVALID_ARGUMENT. A
 * ck_workload_run() under way on it finishes, whichever thread or
 * callback destroyed it; the queues it makes after are its own. Queues
 * and objects made on it that still live keep working; what they hold is
 * released when the last is destroyed. Everything else the session kept
 * is released now. NULL is a no-op. Returns: CK_OK.
 */
ck_status ck_session_destroy(ck_session *session);

/*
 * ck_session_get_devices - the session's devices, in the selector's order:
 * copies owned by the session, valid until ck_session_destroy(). Pass one
 * to ck_workload_run() and the other calls that take a device.
 * Takes: devices and count (set).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_session_get_devices(const ck_session *session,
                                 const ck_device **devices, size_t *count);

/*
 * ck_session_query - what the session has done and holds.
 * Takes: stats (filled in).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_session_query(const ck_session *session, ck_session_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_SESSION_H */
