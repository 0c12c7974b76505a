/*
 * exchange.h - what the members of a spread run exchange, and how.
 *
 * A spread run deals one problem to members, each one device. A process
 * holds one or more of them (its local members); their phases may run on
 * host threads of their own (ck__spread_each), but the calls below are
 * made between phases, from one thread. Where the library is built with MPI
 * and the caller gives a communicator, the processes of that communicator
 * take part too; members are then numbered across processes in rank
 * order, a process's own members consecutively.
 *
 * Every call below is collective: each process of the group makes it, in
 * the same order, once for all its local members, with one entry per
 * local member where an argument is per member. The data live in host
 * memory; drivers move them to and from their devices.
 *
 * Failures. A member that fails must still reach the group's next call to
 * ck__exchange_agree(), passing its status, so that no process waits on
 * one that has stopped: every process then returns the failure, and the
 * message names the member (its device, and its rank under MPI).
 */
#ifndef CK_EXCHANGE_H
#define CK_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/queue.h"
#include "clkit/status.h"

typedef struct ck__exchange ck__exchange;

/* The most members one process holds (clkit/spread.h's limit). */
#define CK__EXCHANGE_MAX_LOCAL 64

/*
 * Makes a group of `local` members (1 or more) in this process, joined by
 * the processes of *(MPI_Comm *)communicator where that is not NULL (the
 * communicator is duplicated; the caller keeps its own). names[i] names
 * local member i in messages (a device id); copied. Collective over the
 * communicator. Errors: CK_ERROR_INVALID_ARGUMENT (no members, or more
 * than CK__EXCHANGE_MAX_LOCAL; a communicator in a build without MPI),
 * CK_ERROR_OUT_OF_MEMORY, CK_ERROR_EXCHANGE (an MPI call failed).
 */
ck_status ck__exchange_create(size_t local, const char *const *names,
                              const void *communicator,
                              ck__exchange **exchange);
/* Frees the group (not collective: a failed run may end without it). */
void ck__exchange_destroy(ck__exchange *exchange);

/* Members in the whole group, and the number of this process's first. */
size_t ck__exchange_members(const ck__exchange *exchange);
size_t ck__exchange_first(const ck__exchange *exchange);
size_t ck__exchange_local(const ck__exchange *exchange);
/* This process's rank and the processes in the group (0 and 1 alone). */
int ck__exchange_rank(const ck__exchange *exchange);
int ck__exchange_ranks(const ck__exchange *exchange);
/* The rank that holds member m. */
int ck__exchange_rank_of(const ck__exchange *exchange, size_t member);
/* Seconds spent inside the calls below since the group was made. */
double ck__exchange_seconds(const ck__exchange *exchange);
/* Bytes local member i sent other members through the calls below on the
 * host: its messages (pass, route, ring), and its part of each gather,
 * sum, least and broadcast once for every other member. What crosses on
 * the devices (sum_buffers, member_sum, member_swap) its callers count,
 * as they know how often a recorded graph replays it. */
uint64_t ck__exchange_sent(const ck__exchange *exchange, size_t i);

/*
 * Agrees on how the members fared: statuses[i] is local member i's
 * (NULL: all CK_OK). Returns CK_OK when all succeeded; otherwise the
 * failure of the lowest-numbered failed member, with a message that names
 * it ("member 2 (ocl:0.0, rank 1) failed: ..."; a process keeps its own
 * members' messages, and another's failure reads "... failed").
 */
ck_status ck__exchange_agree(ck__exchange *exchange, const ck_status *statuses);

/* Sums count doubles across members: local[i] is local member i's
 * values; sum gets the total on every process. Local members are added
 * in their order, then processes in the order MPI chooses. */
ck_status ck__exchange_sum(ck__exchange *exchange, const double *const *local,
                           double *sum, size_t count);

/* The least value across members, and its index and member: local
 * member i offers values[i] at indices[i]. Ties go to the lowest index; a
 * NaN never wins unless every value is NaN. */
ck_status ck__exchange_min(ck__exchange *exchange, const double *values,
                           const uint64_t *indices, double *min,
                           uint64_t *index, size_t *member);

/* Every member's `size` bytes, in member order: local[i] is local member
 * i's; all gets members * size bytes on every process. */
ck_status ck__exchange_gather(ck__exchange *exchange, const void *const *local,
                              size_t size, void *all);

/* ck__exchange_sum and ck__exchange_gather over rows of one block: local
 * member i's row at rows + i * stride (stride in doubles for the sum, in
 * bytes for the gather; 0: one row for all). */
ck_status ck__exchange_sum_rows(ck__exchange *exchange, const double *rows,
                                size_t stride, double *sum, size_t count);
ck_status ck__exchange_gather_rows(ck__exchange *exchange, const void *rows,
                                   size_t stride, size_t size, void *all);

/* Sends member `from`'s bytes to every process: data is read on the
 * process that holds it and written on the others. */
ck_status ck__exchange_broadcast(ck__exchange *exchange, size_t from,
                                 void *data, size_t size);

/* A ring: member m sends `size` bytes from send[i] (m its local index i)
 * to member (m + 1) mod members, and receives into receive[i] those of
 * member (m - 1) mod members. */
ck_status ck__exchange_ring(ck__exchange *exchange, const void *const *send,
                            void *const *receive, size_t size);

/*
 * Whether sums of device buffers (ck__exchange_sum_buffers) go device to
 * device: where the library has NCCL and every member of every process is
 * a CUDA device (queues[i], local member i's); CLKIT_NCCL=0 turns it off.
 * Decided once, on the first call, which sets NCCL up (collective).
 */
ck_status ck__exchange_on_devices(ck__exchange *exchange,
                                  ck_queue *const *queues, int *on_devices);

/* Whether sums of device buffers may average (where
 * ck__exchange_on_devices said they go device to device): every process's
 * NCCL can. Decided with it. */
int ck__exchange_averages(const ck__exchange *exchange);

/* Whether a member's sums (ck__exchange_member_sum) may be queued on a
 * stream that records a CUDA graph: they go device to device and this
 * process's NCCL records collectives (2.9 on). Decided with
 * ck__exchange_on_devices, for this process alone. */
int ck__exchange_captures(const ck__exchange *exchange);

/*
 * Sums count reals (doubles where double_precision, else floats) of each
 * local member's buffer across members, in place: buffers[i] on
 * queues[i]; averaged over the members where average (which
 * ck__exchange_averages allows on devices). Device to device where
 * ck__exchange_on_devices says so, queued on each member's queue;
 * otherwise read to the host, summed in double (ck__exchange_sum) and
 * written back.
 */
ck_status ck__exchange_sum_buffers(ck__exchange *exchange,
                                   ck_queue *const *queues,
                                   ck_buffer *const *buffers, size_t count,
                                   int double_precision, int average);

/*
 * Local member i's part of a sum of device buffers, where
 * ck__exchange_on_devices said they go device to device; not collective
 * on the host: each local member makes it on its own thread (ck__spread_each),
 * and every member of every process makes the same calls in the same
 * order. The n arrays data[k] (device addresses) of counts[k] reals are
 * summed over every member in place, averaged where average; queued on
 * stream, a cudaStream_t of member i's device, which may be capturing a
 * CUDA graph where ck__exchange_captures says so (the sum is then
 * recorded, and runs at each replay).
 * Errors: CK_ERROR_EXCHANGE; CK_ERROR_UNSUPPORTED without NCCL.
 */
ck_status ck__exchange_member_sum(ck__exchange *exchange, size_t i,
                                  void *stream, void *const *data,
                                  const size_t *counts, size_t n,
                                  int double_precision, int average);

/* A piece of a swap between members: `bytes` at data (a device address
 * of the member's GPU), to or from the member numbered peer over all
 * processes. */
typedef struct ck__exchange_piece {
  void *data;
  size_t bytes, peer;
} ck__exchange_piece;

/*
 * Whether members may swap device buffers (ck__exchange_member_swap):
 * they exchange on the devices and every process's NCCL has sends and
 * receives. Decided with ck__exchange_on_devices (collective, once).
 */
ck_status ck__exchange_swaps(ck__exchange *exchange, ck_queue *const *queues,
                             int *swaps);

/*
 * Local member i's sends and receives of device buffers, queued on stream
 * (a cudaStream_t of its device) in one group, where ck__exchange_swaps
 * said so. Not collective on the host, as ck__exchange_member_sum; the
 * pieces between two members pair in the order given, and their sizes
 * must match.
 * Errors: CK_ERROR_EXCHANGE; CK_ERROR_UNSUPPORTED without NCCL.
 */
ck_status
ck__exchange_member_swap(ck__exchange *exchange, size_t i, void *stream,
                         const ck__exchange_piece *sends, size_t n_sends,
                         const ck__exchange_piece *receives, size_t n_receives);

/* Ends the members' device exchanges at once, those in flight included:
 * for a failed run, whose partners may never come, before its buffers
 * are freed. Sums and swaps on the devices fail after it. */
void ck__exchange_abort_devices(ck__exchange *exchange);

/* ---- variable sizes: neighbours in a line, and gathers ----------------- */

/* A host buffer that the calls below fill and grow: count items of the
 * call's item size in data, capacity bytes allocated (the caller frees
 * data with free()). Zeroed, it is empty. */
typedef struct ck__exchange_buffer {
  void *data;
  size_t count;
  size_t capacity;
} ck__exchange_buffer;

/* Room for count items of `item` bytes in buffer, which then holds count
 * items (kept where it held them; the rest are the caller's to fill).
 * Errors: CK_ERROR_OUT_OF_MEMORY. */
ck_status ck__exchange_buffer_hold(ck__exchange_buffer *buffer, size_t item,
                                   size_t count);

/*
 * Members in a line, each sending to one neighbour: local member i
 * (member m) sends counts[i] items of `item` bytes from send[i] to member
 * (m + 1) mod members when forward is 1, else to (m - 1) mod members, and
 * receives into received[i] those of the member on its other side (itself
 * when alone). The counts cross first, then the items. Errors:
 * CK_ERROR_OUT_OF_MEMORY, CK_ERROR_UNSUPPORTED (more than 2^31 - 1 items
 * to another process), CK_ERROR_EXCHANGE.
 */
ck_status ck__exchange_pass(ck__exchange *exchange, int forward, size_t item,
                            const void *const *send, const size_t *counts,
                            ck__exchange_buffer *received);

/*
 * Members in any pairing, each sending to one member and receiving from
 * one: local member i (member m) sends counts[i] items of `item` bytes
 * from send[i] to member to[i], and receives into received[i] those of
 * member from[i]. Every member must name its partners alike: to[] of
 * member from[i] is m. The counts cross first, then the items. Errors as
 * ck__exchange_pass; CK_ERROR_INVALID_ARGUMENT for a member out of range.
 */
ck_status ck__exchange_route(ck__exchange *exchange, size_t item,
                             const void *const *send, const size_t *counts,
                             const size_t *to, const size_t *from,
                             ck__exchange_buffer *received);

/*
 * Every member's items, in member order, on every process: local member
 * i offers counts[i] items of `item` bytes from send[i]; all gets them
 * all, and member_counts (NULL, or members entries) each member's count.
 * Errors as ck__exchange_pass.
 */
ck_status ck__exchange_gather_items(ck__exchange *exchange, size_t item,
                                    const void *const *send,
                                    const size_t *counts,
                                    ck__exchange_buffer *all,
                                    size_t *member_counts);

/*
 * Every member's records on every process, each written by its key:
 * local member i offers counts[i] records of `fields` doubles from
 * send[i], each a key and then widths[q] values for each non-NULL
 * into[q] (q < arrays), which go to into[q] from widths[q] x key. The
 * members must offer `total` records, each key a whole number below
 * total and given once; else CK_ERROR_MISMATCH, `what` naming the
 * records (the arrays may then be written in part). Errors as
 * ck__exchange_pass.
 */
ck_status ck__exchange_gather_keyed(ck__exchange *exchange, size_t fields,
                                    const void *const *send,
                                    const size_t *counts, size_t total,
                                    int arrays, double *const *into,
                                    const size_t *widths, const char *what);

#endif /* CK_EXCHANGE_H */
