/*
 * window.h - a member's device buffers that its two neighbours' kernels
 * read, where each process of a run holds one member of a line (as a
 * gas's slabs are, the last member's next the first):
 * - by CUDA IPC where the processes share a host: each neighbour opens
 *   the buffers in place, and its queue follows the member's mark;
 * - else (or with CLKIT_IPC=0) from mirrors: this process's copies of
 *   each neighbour's buffers, laid out as they are, which the caller
 *   fills with NCCL's swaps (ck__exchange_member_swap) on its queue.
 * A window knows nothing of what its buffers hold: the caller's kernels
 * read them, and its words (sizes, say) cross with the buffers.
 */
#ifndef CK_FRAMEWORK_WINDOW_H
#define CK_FRAMEWORK_WINDOW_H

#include "framework/spread.h"

#define CK__WINDOW_BUFFERS 3
#define CK__WINDOW_WORDS 2

/* What a window's caller asks of the processes (ck__window_open's
 * rules), any together:
 * - IPC_ONLY: by CUDA IPC alone: no window where the processes are on
 *   several hosts (or CLKIT_IPC=0);
 * - OWN_GPUS: no two processes on one GPU (kernels that wait on each
 *   other's could hold the blocks the other needs);
 * - PREVIOUS_ONLY: each member reads its previous neighbour alone;
 * - NO_MARKS: the caller neither marks nor follows (ck__window_mark):
 *   no events are made or opened for them. */
enum {
  CK__WINDOW_IPC_ONLY = 1,
  CK__WINDOW_OWN_GPUS = 2,
  CK__WINDOW_PREVIOUS_ONLY = 4,
  CK__WINDOW_NO_MARKS = 8
};

typedef struct ck__window ck__window;

/* What a member offers its neighbours: its buffers (the caller's, which
 * stay so; NULL past the last it offers), their generation (one more each time
 * any of them is made again: a neighbour opens them again then), and words of
 * the caller's that cross as they are. */
typedef struct ck__window_offer {
  ck_buffer *buffers[CK__WINDOW_BUFFERS];
  uint64_t generation;
  uint32_t words[CK__WINDOW_WORDS];
} ck__window_offer;

/* What a neighbour's offer gives this member: the address at which its
 * kernels read each buffer (opened, or its mirror; 0: none), and the
 * words. With PREVIOUS_ONLY, the next neighbour's view stays zero. */
typedef struct ck__window_view {
  uint64_t address[CK__WINDOW_BUFFERS];
  uint32_t words[CK__WINDOW_WORDS];
} ck__window_view;

/*
 * Opens the run's windows into *window (the caller's: ck__window_close),
 * or sets it NULL where they cannot go: one process, a process with
 * more than one member, `able` 0 on any process (the caller's say), a
 * device that shares nothing between processes, CLKIT_PEER=0, or what
 * the rules (CK__WINDOW_*) ask not given. Collective. Errors: the
 * exchange's, CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__window_open(ck__spread_run *run, int able, unsigned rules,
                          ck__window **window);
/* 1 where the window's views are mirrors that the caller fills. */
int ck__window_mirrored(const ck__window *window);

/*
 * For mirrors, once the member's queue is made: whether every process's
 * NCCL swaps; if so a first swap connects each member with its
 * neighbours. *usable 0 where not (the window then opens nothing).
 * Collective. A failure aborts the exchange's swaps in flight.
 */
ck_status ck__window_connect(ck__window *window, ck_queue *queue, int *usable);

/*
 * Swaps offers with both neighbours (views[0]: the previous member's,
 * [1]: the next's), then opens what changed, or makes mirrors as large
 * as the neighbours' buffers (on a queue of the window's own, which
 * outlives the caller's). ready 0 (the caller cannot use the window
 * now), or a failure on any process, sets *usable 0 on every one: the
 * window is then closed to its neighbours for good. Collective.
 */
ck_status ck__window_swap(ck__window *window, const ck__window_offer *offer,
                          int ready, ck__window_view views[2], int *usable);

/* By IPC: the member's mark on queue, after what it wrote for its
 * neighbours, and queue's wait for a neighbour's (side's) last mark;
 * neither host waits. With mirrors, nothing: the swaps order them. */
ck_status ck__window_mark(ck__window *window, ck_queue *queue);
ck_status ck__window_follow(ck__window *window, int side, ck_queue *queue);

/* Closes what the window opened and frees it (NULL: nothing). */
void ck__window_close(ck__window *window);

#endif /* CK_FRAMEWORK_WINDOW_H */
