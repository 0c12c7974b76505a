/*
 * exchange_backend.h - the transports behind the exchange (exchange.h),
 * seen only by exchange.c and the transports themselves.
 *
 * exchange.c holds what every transport shares: the group's numbering,
 * each collective's local part and shape, the counts checked once, and
 * the failure agreement. A transport fills in one ops table:
 *
 * - between processes (ck__exchange_ops): exchange_local.c, a process
 *   alone, whose members meet in its memory; exchange_mpi.c, ranks whose
 *   messages cross through host memory;
 * - on the devices (ck__exchange_device_ops): exchange_nccl.c, CUDA
 *   members summing and swapping GPU to GPU.
 *
 * A transport sees only requests that already passed exchange.c's
 * checks. Its file is built only where its library is found, and this
 * header alone says which were.
 */
#ifndef CK_EXCHANGE_BACKEND_H
#define CK_EXCHANGE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/exchange.h"

/* A candidate of ck__exchange_min, as the processes move it. */
typedef struct ck__exchange_min_entry {
  double value;
  uint64_t index;
  uint64_t member;
} ck__exchange_min_entry;

/* 1 when a beats b: the lower value, a number over NaN, then the lower
 * index (exchange.c; a transport's reduction uses it). */
int ck__exchange_min_beats(const ck__exchange_min_entry *a,
                           const ck__exchange_min_entry *b);

/*
 * Messages between the processes of a group. Every call but post and
 * receive is collective over the group's processes. state is what join
 * made. Items are `item` bytes each; counts are in items.
 */
typedef struct ck__exchange_ops {
  /* What one message carries: at most most_items items, each of
   * least_item .. most_item bytes (exchange.c checks before each call). */
  size_t most_items, least_item, most_item;
  /* Joins the processes of communicator (NULL: this one alone) into
   * *state; sets this process's rank and the number of ranks. */
  ck_status (*join)(const void *communicator, void **state, int *rank,
                    int *ranks);
  void (*leave)(void *state);
  /* every[r] gets rank r's mine. */
  ck_status (*share)(void *state, uint64_t mine, uint64_t *every);
  /* The least of the ranks' *value, into *value on every rank. */
  ck_status (*least)(void *state, uint64_t *value);
  /* The ranks' sums of count doubles, in place. */
  ck_status (*sum)(void *state, double *values, size_t count);
  /* The ranks' best *entry (ck__exchange_min_beats), in place. */
  ck_status (*min)(void *state, ck__exchange_min_entry *entry);
  /* size bytes at data, from rank root to the others. */
  ck_status (*broadcast)(void *state, int root, void *data, size_t size);
  /* Rank r's items lie at offsets[r] .. offsets[r + 1] of all (ranks + 1
   * offsets); each rank's own are in place, and every rank gets all. */
  ck_status (*gather)(void *state, void *all, size_t item,
                      const size_t *offsets);
  /* out items to rank `to` while in items arrive from rank `from`; tag
   * tells a collective's messages apart. */
  ck_status (*sendrecv)(void *state, int tag, size_t item, const void *send,
                        size_t out, int to, void *receive, size_t in, int from);
  /* A send to another rank that returns at once: send stays the
   * caller's, unchanged, until settle. Not collective. */
  ck_status (*post)(void *state, int tag, size_t item, const void *send,
                    size_t count, int to);
  /* A message from another rank, waited for. Not collective. */
  ck_status (*receive)(void *state, int tag, size_t item, void *data,
                       size_t count, int from);
  /* Waits for every send posted; called after any post, even failed. */
  ck_status (*settle)(void *state);
} ck__exchange_ops;

/* The members of one process, in its memory (exchange_local.c). */
extern const ck__exchange_ops ck__exchange_local_ops;

/* What a process's members can do on their devices (ck__exchange_device_ops
 * able). */
enum {
  CK__DEVICES_SUM = 1,     /* sums of device buffers */
  CK__DEVICES_AVERAGE = 2, /* ... that average */
  CK__DEVICES_SWAP = 4,    /* sends and receives */
  CK__DEVICES_CAPTURE = 8  /* ... recorded into a graph */
};

/*
 * Members exchanging on their devices, every member of every process
 * alike. The member calls run on each member's own thread; the rest are
 * made from one thread, as the exchange's.
 */
typedef struct ck__exchange_device_ops {
  /* CK__DEVICES_* that this process's members (queues[i], local member
   * i's) can do; 0 where they cannot sum on their devices. */
  unsigned (*able)(ck_queue *const *queues, size_t local);
  /* Joins every member of the group (collective; it may use the
   * exchange's host collectives) into *state. */
  ck_status (*join)(ck__exchange *exchange, ck_queue *const *queues,
                    void **state);
  /* As ck__exchange_sum_buffers, for every local member, queued. */
  ck_status (*sum)(void *state, ck_queue *const *queues,
                   ck_buffer *const *buffers, size_t count,
                   int double_precision, int average);
  /* As ck__exchange_member_sum and ck__exchange_member_swap. */
  ck_status (*member_sum)(void *state, size_t i, void *stream,
                          void *const *data, const size_t *counts, size_t n,
                          int double_precision, int average);
  ck_status (*member_swap)(void *state, size_t i, void *stream,
                           const ck__exchange_piece *sends, size_t n_sends,
                           const ck__exchange_piece *receives,
                           size_t n_receives);
  /* Ends every exchange in flight; leave still frees the rest. */
  void (*abort)(void *state);
  void (*leave)(void *state);
} ck__exchange_device_ops;

/* The transports this build has; NULL for one it lacks. */
#if CK_HAVE_MPI
extern const ck__exchange_ops ck__exchange_mpi_ops;
static inline const ck__exchange_ops *ck__exchange_between_processes(void) {
  return &ck__exchange_mpi_ops;
}
#else
static inline const ck__exchange_ops *ck__exchange_between_processes(void) {
  return NULL;
}
#endif
#if CK_HAVE_NCCL
extern const ck__exchange_device_ops ck__exchange_nccl_ops;
static inline const ck__exchange_device_ops *ck__exchange_on_devices_ops(void) {
  return &ck__exchange_nccl_ops;
}
#else
static inline const ck__exchange_device_ops *ck__exchange_on_devices_ops(void) {
  return NULL;
}
#endif

#endif /* CK_EXCHANGE_BACKEND_H */
