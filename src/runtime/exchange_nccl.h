/*
 * exchange_nccl.h - NCCL under the exchange's sums of device buffers
 * (exchange_nccl.c; built where CUDA and NCCL are found).
 */
#ifndef CK_EXCHANGE_NCCL_H
#define CK_EXCHANGE_NCCL_H

#include <stddef.h>

#include "clkit/queue.h"
#include "clkit/status.h"
#include "runtime/exchange.h"

typedef struct ck__nccl ck__nccl;

/* 1 when libnccl.so.2 could be opened (on first call). */
int ck__nccl_available(void);
/* The bytes of an NCCL id, and a fresh one (made on one process and sent
 * to the others before ck__nccl_create). */
size_t ck__nccl_id_size(void);
ck_status ck__nccl_unique_id(void *id, size_t size);
/* Communicators for this process's `local` members, numbered first ..
 * first + local - 1 of `members` over all processes; collective. */
ck_status ck__nccl_create(const void *id, size_t members, size_t first,
                          ck_queue *const *queues, size_t local,
                          ck__nccl **made);
/* 1 where the library opened can average (ncclAvg, NCCL 2.10 on). */
int ck__nccl_averages(void);
/* 1 where the library opened records its collectives into CUDA graphs
 * (NCCL 2.9 on). */
int ck__nccl_captures(void);
/* Sums (or averages) count reals of every member's buffer in place,
 * queued on each member's stream (the host does not wait). */
ck_status ck__nccl_sum(ck__nccl *nccl, ck_queue *const *queues,
                       ck_buffer *const *buffers, size_t count,
                       int double_precision, int average);
/* Local member i's part alone, on its own thread: the n arrays data[k] of
 * counts[k] reals summed (or averaged) in place, in one group, queued on
 * stream (a cudaStream_t of member i's device; it may be capturing). */
ck_status ck__nccl_member_sum(ck__nccl *nccl, size_t i, void *stream,
                              void *const *data, const size_t *counts, size_t n,
                              int double_precision, int average);
/* 1 where the library opened sends and receives (NCCL 2.7 on). */
int ck__nccl_swaps(void);
/* Local member i's sends and receives, in one group queued on stream (a
 * cudaStream_t of its device). Pieces between two members pair in the
 * order given. */
ck_status ck__nccl_member_swap(ck__nccl *nccl, size_t i, void *stream,
                               const ck__exchange_piece *sends, size_t n_sends,
                               const ck__exchange_piece *receives,
                               size_t n_receives);
/* Ends every communicator at once, its calls in flight included (a failed
 * run, whose partners may never come); destroy still frees the rest. */
void ck__nccl_abort(ck__nccl *nccl);
void ck__nccl_destroy(ck__nccl *nccl);

#endif /* CK_EXCHANGE_NCCL_H */
