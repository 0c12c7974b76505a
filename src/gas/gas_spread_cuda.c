/*
 * gas_spread_cuda.c - the spread gas's CUDA half: resident steps between
 * processes by NCCL (built with CUDA; its body with NCCL).
 *
 * Where the processes are on several hosts (or CLKIT_IPC=0), each
 * member's step out is followed by one NCCL group on its stream: to each
 * neighbour its control words and the two regions of its outbox meant for
 * it (leavers and ghosts, a capacity's worth each), and from each
 * neighbour the same, into a mirror laid out as that neighbour's
 * control words and outbox. The pull then reads the mirrors as it reads
 * a neighbour's memory. The stream orders every use, so the host waits
 * for nothing; a failed run aborts NCCL's calls in flight.
 */
#include <stdint.h>
#include <string.h>

#include "gas/gas_spread_internal.h"

#if CK_HAVE_NCCL
/* The mirror of a neighbour's (side's) words at `capacity` entries a
 * region, made anew where it is smaller; source set to it. */
ck_status ck__gas_spread_mirror_make(ck__gas_spread *s, int side,
                                     uint32_t capacity, uint32_t leavers,
                                     ck__gas_source *source) {
  ck_status status = CK_OK;
  size_t words =
      MIRROR_CONTROL_WORDS + 2 * (size_t)CK_GAS_PACKED_WORDS * (size_t)capacity;
  if (!s->mirror_queue)
    CK_TRY(ck_queue_create(&s->run->devices[0], &s->mirror_queue));
  if (!s->mirror[side] || s->mirror_capacity[side] < capacity) {
    ck_buffer_destroy(s->mirror[side]);
    s->mirror[side] = NULL;
    s->mirror_capacity[side] = 0;
    CK_TRY(ck_buffer_create(s->mirror_queue, 4 * words, &s->mirror[side]));
    s->mirror_capacity[side] = capacity;
  }
  uint64_t base = (uint64_t)(uintptr_t)ck__cuda_pointer(s->mirror[side]);
  source->control = base;
  source->packed = base + 4 * MIRROR_CONTROL_WORDS;
  source->capacity = capacity;
  source->leavers = leavers;
fail:
  return status;
}

/* A swap's pieces of control words: the member's sent toward its side
 * `toward`, and those of its side `from` received into that side's
 * mirror; neighbor: the members on each side. */
static void control_pieces(const ck__gas_spread *s, gas_state *state,
                           const size_t neighbor[2], int toward, int from,
                           ck__exchange_piece *send,
                           ck__exchange_piece *receive) {
  *send = (ck__exchange_piece){ck__cuda_pointer(state->member_control),
                               4 * CK_GAS_CONTROL_WORDS, neighbor[toward]};
  *receive =
      (ck__exchange_piece){(void *)(uintptr_t)s->sources[0][from].control,
                           4 * CK_GAS_CONTROL_WORDS, neighbor[from]};
}

/* What a member's NCCL group sends and receives at a parity: to its next
 * member, then its previous, its control words and the regions toward
 * each (ck_gas_member_classify); from its previous, then its next, the
 * same into the mirrors. Where both neighbours are one member, the pieces
 * still pair in order: that member's toward its next come first. */
ck_status ck__gas_spread_nccl_swap(ck__gas_spread *s, member *m, int parity) {
  gas_state *state = ck__gas_state(m->gas);
  size_t total = s->total, index = m->index;
  size_t neighbor[2] = {(index + total - 1) % total, (index + 1) % total};
  ck__exchange_piece sends[6], receives[6];
  size_t n = 0;
  for (int k = 0; k < 2; ++k, n += 3) {
    int toward = k == 0 ? NEXT : PREVIOUS, from = k == 0 ? PREVIOUS : NEXT;
    /* Toward side `toward`: regions `toward` and `toward` + 2. */
    uint32_t mine = state->message_capacity,
             theirs = s->sources[0][from].capacity;
    char *out = (char *)ck__cuda_pointer(state->out_packed) +
                4 * (size_t)ck_gas_packed_half(parity, mine);
    char *in = (char *)(uintptr_t)s->sources[0][from].packed +
               4 * (size_t)ck_gas_packed_half(parity, theirs);
    int region = toward; /* the sender's region toward the receiver */
    control_pieces(s, state, neighbor, toward, from, &sends[n], &receives[n]);
    sends[n + 1] = (ck__exchange_piece){
        out + 4 * (size_t)ck_gas_message_at(region, mine),
        4 * (size_t)CK_GAS_ENTRY_WORDS * s->leavers_sent, neighbor[toward]};
    sends[n + 2] = (ck__exchange_piece){
        out + 4 * (size_t)ck_gas_kept_at(region, mine),
        4 * (size_t)CK_GAS_GHOST_WORDS * mine, neighbor[toward]};
    /* From side `from`: what it sent toward this member, its region
     * `toward` too (its next is this member where it is the previous). */
    receives[n + 1] = (ck__exchange_piece){
        in + 4 * (size_t)ck_gas_message_at(region, theirs),
        4 * (size_t)CK_GAS_ENTRY_WORDS * s->sources[0][from].leavers,
        neighbor[from]};
    receives[n + 2] = (ck__exchange_piece){
        in + 4 * (size_t)ck_gas_kept_at(region, theirs),
        4 * (size_t)CK_GAS_GHOST_WORDS * theirs, neighbor[from]};
  }
  for (size_t k = 0; k < n; ++k)
    m->bytes += sends[k].bytes;
  return ck__exchange_member_swap(s->run->exchange, 0,
                                  ck__cuda_stream(state->queue), sends, n,
                                  receives, n);
}

/* Whether every process's NCCL can swap (collective, once the members'
 * queues are made): if so, a first swap of the control words connects
 * the neighbours before the steps, else the processes go through the
 * host. */
ck_status ck__gas_spread_nccl_decide(ck__gas_spread *s) {
  ck_status status = CK_OK, made = CK_OK;
  int swaps = 0;
  CK_TRY(ck__exchange_swaps(s->run->exchange, s->run->queues, &swaps));
  if (!swaps) {
    s->between = s->by_nccl = 0;
    return CK_OK;
  }
  gas_state *state = ck__gas_state(s->members[0].gas);
  size_t total = s->total, index = s->members[0].index;
  size_t neighbor[2] = {(index + total - 1) % total, (index + 1) % total};
  ck__exchange_piece sends[2], receives[2];
  for (int side = 0; side < 2 && made == CK_OK; ++side)
    made = ck__gas_spread_mirror_make(s, side, 0, 0, &s->sources[0][side]);
  /* Every process posts its swap, or none: a partner left waiting for a
   * process that never posts would wait forever. */
  CK_TRY(ck__gas_spread_agree(s, made));
  for (int k = 0; k < 2; ++k)
    control_pieces(s, state, neighbor, k == 0 ? NEXT : PREVIOUS,
                   k == 0 ? PREVIOUS : NEXT, &sends[k], &receives[k]);
  made = ck__exchange_member_swap(s->run->exchange, 0,
                                  ck__cuda_stream(state->queue), sends, 2,
                                  receives, 2);
  /* Where a process could not post it, the others' calls in flight end
   * with the abort. */
  status = ck__gas_spread_agree(s, made);
  if (status == CK_OK)
    status = ck__gas_spread_agree(s, ck_queue_finish(state->queue));
  if (status != CK_OK)
    ck__exchange_abort_devices(s->run->exchange);
fail:
  return status;
}
#endif
