/*
 * window.c - a member's device buffers read by its neighbours' processes
 * (window.h): offers swapped as tickets on the host before each use,
 * then the buffers opened by CUDA IPC, or mirrors made for NCCL.
 */
#include "framework/window.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

enum { PREVIOUS, NEXT };

/* What crosses to each neighbour at a swap: the offer's buffers' handles
 * (IPC) and sizes (mirrors), the mark's handle, and whether the sender
 * failed to make any of it. */
typedef struct ticket {
  unsigned char handles[CK__WINDOW_BUFFERS][CK__IPC_HANDLE_BYTES];
  unsigned char mark[CK__IPC_HANDLE_BYTES];
  uint64_t generation;
  uint64_t bytes[CK__WINDOW_BUFFERS];
  uint32_t words[CK__WINDOW_WORDS];
  uint32_t failed;
} ticket;

struct ck__window {
  ck__spread_run *run;
  ck_device device; /* the member's, for closing after the run */
  int sides;        /* 1: the previous neighbour alone; 2: both */
  int marks;        /* 0 with CK__WINDOW_NO_MARKS */
  int mirrored;
  int closed; /* a swap failed somewhere: nothing opens again */
  /* A queue of the member's device of the window's own: IPC opens on it,
   * and the mirrors (and a first swap's words) are made on it. */
  ck_queue *queue;
  /* By IPC: this process's mark, and what it opened of each neighbour's
   * (the next's the previous one's where one process is both). */
  ck__ipc_event *mark;
  unsigned char mark_handle[CK__IPC_HANDLE_BYTES];
  struct {
    uint64_t generation; /* 0: nothing open */
    uint64_t address[CK__WINDOW_BUFFERS];
    ck__ipc_event *mark;
    int alias;
  } from[2];
  /* With mirrors: each neighbour's buffers' copies, and their sizes. */
  ck_buffer *mirror[2][CK__WINDOW_BUFFERS];
  size_t mirror_bytes[2][CK__WINDOW_BUFFERS];
  ck_buffer *greeting; /* the first swap's words: out, from each side */
  ck__exchange_buffer received[2];
};

ck_status ck__window_open(ck__spread_run *run, int able, unsigned rules,
                          ck__window **window) {
  ck_status status = CK_OK;
  ck__spread_places places;
  assert(run && run->exchange && window);
  *window = NULL;
  if (ck__exchange_ranks(run->exchange) < 2)
    return CK_OK;
  able = able && run->local == 1 &&
         ck__device_shares_between_processes(&run->devices[0]) &&
         ck__peer_enabled();
  CK_TRY(ck__spread_places_find(run, able, &places));
  /* CLKIT_IPC=0: processes of one host go by mirrors too. */
  int by_ipc = !ck__setting_off("CLKIT_IPC") && places.one_host;
  if (!places.able || ((rules & CK__WINDOW_IPC_ONLY) && !by_ipc) ||
      ((rules & CK__WINDOW_OWN_GPUS) && !places.own_gpus))
    return CK_OK;
  ck__window *w = calloc(1, sizeof *w);
  ck_status made =
      w ? ck_queue_create(&run->devices[0], &w->queue)
        : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a window");
  ck_status statuses[1] = {made};
  status = ck__exchange_agree(run->exchange, statuses);
  if (status != CK_OK) {
    ck__window_close(w);
    return status;
  }
  w->run = run;
  w->device = run->devices[0];
  w->sides = rules & CK__WINDOW_PREVIOUS_ONLY ? 1 : 2;
  w->marks = !(rules & CK__WINDOW_NO_MARKS);
  w->mirrored = !by_ipc;
  *window = w;
fail:
  return status;
}

int ck__window_mirrored(const ck__window *window) {
  assert(window);
  return window->mirrored;
}

/* The member's neighbours: the previous, then the next. */
static void neighbours(const ck__window *w, size_t neighbour[2]) {
  size_t total = ck__exchange_members(w->run->exchange);
  size_t index = ck__exchange_first(w->run->exchange);
  neighbour[PREVIOUS] = (index + total - 1) % total;
  neighbour[NEXT] = (index + 1) % total;
}

ck_status ck__window_connect(ck__window *w, ck_queue *queue, int *usable) {
  ck_status status = CK_OK, made = CK_OK;
  int swaps = 0;
  void *address = NULL, *stream = NULL;
  int ordinal = 0;
  size_t neighbour[2];
  assert(w && w->mirrored && queue && usable);
  *usable = 0;
  CK_TRY(ck__exchange_swaps(w->run->exchange, &queue, &swaps));
  if (!swaps)
    return CK_OK;
  /* Every process posts its swap, or none: a partner left waiting for a
   * process that never posts would wait forever. */
  made = ck__buffer_make_zeroed(w->queue, 3, sizeof(uint32_t),
                                "a window's greeting", &w->greeting);
  if (made == CK_OK)
    made = ck__queue_lend(w->queue, w->greeting, &address, &ordinal, &stream);
  CK_TRY(ck__exchange_agree(w->run->exchange, &made));
  neighbours(w, neighbour);
  char *words = address;
  const ck__exchange_piece sends[2] = {{words, 4, neighbour[NEXT]},
                                       {words, 4, neighbour[PREVIOUS]}};
  const ck__exchange_piece receives[2] = {{words + 4, 4, neighbour[PREVIOUS]},
                                          {words + 8, 4, neighbour[NEXT]}};
  made = ck__exchange_member_swap(w->run->exchange, 0, stream, sends, 2,
                                  receives, 2);
  /* Where a process could not post it, the others' calls in flight end
   * with the abort. */
  CK_TRY(ck__exchange_agree(w->run->exchange, &made));
  made = ck_queue_finish(w->queue);
  CK_TRY(ck__exchange_agree(w->run->exchange, &made));
  *usable = 1;
fail:
  if (status != CK_OK)
    ck__exchange_abort_devices(w->run->exchange);
  return status;
}

/* What this process opened of a neighbour's (side's), closed. */
static void close_side(ck__window *w, int side) {
  const ck_device *device = &w->device;
  if (!w->from[side].alias) {
    for (int k = 0; k < CK__WINDOW_BUFFERS; ++k)
      if (w->from[side].address[k])
        ck__ipc_buffer_close(device, w->from[side].address[k]);
    ck__ipc_event_close(w->from[side].mark);
  }
  memset(&w->from[side], 0, sizeof w->from[side]);
}

/* The member's ticket: handles of its buffers and mark by IPC, their
 * sizes for mirrors. */
static ck_status make_ticket(ck__window *w, const ck__window_offer *offer,
                             ticket *mine) {
  ck_status status = CK_OK;
  memset(mine, 0, sizeof *mine);
  mine->generation = offer->generation;
  memcpy(mine->words, offer->words, sizeof mine->words);
  if (!w->mirrored && w->marks && !w->mark)
    CK_TRY(ck__ipc_event_make(w->queue, &w->mark, w->mark_handle));
  memcpy(mine->mark, w->mark_handle, sizeof mine->mark);
  for (int k = 0; k < CK__WINDOW_BUFFERS && offer->buffers[k]; ++k) {
    size_t bytes = 0;
    CK_TRY(ck_buffer_get_size(offer->buffers[k], &bytes));
    mine->bytes[k] = bytes;
    if (!w->mirrored)
      CK_TRY(ck__ipc_buffer_handle(offer->buffers[k], mine->handles[k]));
  }
fail:
  return status;
}

/* A neighbour's (side's) buffers opened by what its ticket hands out,
 * where they changed. */
static ck_status open_side(ck__window *w, int side, const ticket *t) {
  ck_status status = CK_OK;
  if (t->generation == w->from[side].generation)
    return CK_OK;
  close_side(w, side);
  for (int k = 0; k < CK__WINDOW_BUFFERS && t->bytes[k]; ++k)
    CK_TRY(ck__ipc_buffer_open(w->queue, t->handles[k],
                               &w->from[side].address[k]));
  if (w->marks)
    CK_TRY(ck__ipc_event_open(w->queue, t->mark, &w->from[side].mark));
  w->from[side].generation = t->generation;
fail:
  return status;
}

/* Mirrors of a neighbour's (side's) buffers, each made anew where smaller
 * than the one it copies. */
static ck_status mirror_side(ck__window *w, int side, const ticket *t,
                             uint64_t address[CK__WINDOW_BUFFERS]) {
  ck_status status = CK_OK;
  for (int k = 0; k < CK__WINDOW_BUFFERS && t->bytes[k]; ++k) {
    void *at = NULL, *stream = NULL;
    int ordinal = 0;
    if (!w->mirror[side][k] || w->mirror_bytes[side][k] < t->bytes[k]) {
      ck_buffer_destroy(w->mirror[side][k]);
      w->mirror[side][k] = NULL;
      w->mirror_bytes[side][k] = 0;
      CK_TRY(
          ck_buffer_create(w->queue, (size_t)t->bytes[k], &w->mirror[side][k]));
      w->mirror_bytes[side][k] = (size_t)t->bytes[k];
    }
    CK_TRY(
        ck__queue_lend(w->queue, w->mirror[side][k], &at, &ordinal, &stream));
    address[k] = (uint64_t)(uintptr_t)at;
  }
fail:
  return status;
}

/* Each neighbour's ticket (from[0]: the previous member's): each member's
 * passed forward to its next, then back to its previous. */
static ck_status swap_tickets(ck__window *w, const ticket *mine,
                              ticket from[2]) {
  ck_status status = CK_OK;
  /* sides is 1 or 2 (ck__window_open): the bound says so to the compiler. */
  for (int side = 0; side < w->sides && side < 2; ++side) {
    const void *send[1] = {mine};
    size_t counts[1] = {1};
    ck__exchange_buffer *in = &w->received[side];
    CK_TRY(ck__exchange_pass(w->run->exchange, side == PREVIOUS, sizeof *mine,
                             send, counts, in));
    if (in->count == 1)
      memcpy(&from[side], in->data, sizeof from[side]);
    else
      memset(&from[side], 0, sizeof from[side]), from[side].failed = 1;
  }
fail:
  return status;
}

ck_status ck__window_swap(ck__window *w, const ck__window_offer *offer,
                          int ready, ck__window_view views[2], int *usable) {
  ck_status status = CK_OK, made = CK_OK;
  ticket mine, from[2];
  size_t neighbour[2];
  assert(w && offer && views && usable);
  *usable = 0;
  memset(views, 0, 2 * sizeof *views);
  made = ready && !w->closed ? make_ticket(w, offer, &mine)
                             : ck__fail(CK_ERROR_UNSUPPORTED, "not ready");
  if (made != CK_OK)
    memset(&mine, 0, sizeof mine);
  mine.failed = made != CK_OK;
  memset(from, 0, sizeof from);
  CK_TRY(swap_tickets(w, &mine, from));
  neighbours(w, neighbour);
  int same = ck__exchange_rank_of(w->run->exchange, neighbour[PREVIOUS]) ==
             ck__exchange_rank_of(w->run->exchange, neighbour[NEXT]);
  for (int side = 0; side < w->sides && made == CK_OK; ++side) {
    memcpy(views[side].words, from[side].words, sizeof views[side].words);
    if (from[side].failed) {
      made = CK_ERROR_DEVICE;
    } else if (w->mirrored) {
      made = mirror_side(w, side, &from[side], views[side].address);
      continue;
    } else if (side == NEXT && same) {
      if (!w->from[NEXT].alias)
        close_side(w, NEXT);
      w->from[NEXT] = w->from[PREVIOUS];
      w->from[NEXT].alias = 1;
    } else {
      made = open_side(w, side, &from[side]);
    }
    memcpy(views[side].address, w->from[side].address,
           sizeof views[side].address);
  }
  /* Closed on every process, where one failed. */
  double failed = made != CK_OK, any = 0;
  const double *rows[1] = {&failed};
  CK_TRY(ck__exchange_sum(w->run->exchange, rows, &any, 1));
  if (any > 0) {
    w->closed = 1;
    for (int side = 1; !w->mirrored && side >= 0; --side)
      close_side(w, side);
  }
  *usable = any == 0;
fail:
  return status;
}

ck_status ck__window_mark(ck__window *w, ck_queue *queue) {
  assert(w && queue && !w->closed && w->marks);
  return w->mirrored ? CK_OK : ck__ipc_event_record(w->mark, queue);
}

ck_status ck__window_follow(ck__window *w, int side, ck_queue *queue) {
  assert(w && queue && !w->closed && w->marks &&
         (side == PREVIOUS || side == NEXT));
  return w->mirrored ? CK_OK : ck__ipc_event_wait(w->from[side].mark, queue);
}

void ck__window_close(ck__window *w) {
  if (!w)
    return;
  for (int side = 1; w->run && !w->mirrored && side >= 0; --side)
    close_side(w, side);
  ck__ipc_event_close(w->mark);
  for (int side = 0; side < 2; ++side) {
    for (int k = 0; k < CK__WINDOW_BUFFERS; ++k)
      ck_buffer_destroy(w->mirror[side][k]);
    free(w->received[side].data);
  }
  ck_buffer_destroy(w->greeting);
  ck_queue_destroy(w->queue);
  free(w);
}
