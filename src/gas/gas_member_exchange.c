/*
 * gas_member_exchange.c - what crosses between spread members, on a
 * member's side (ck_gas.h's spread members): slots appended, a rebuild's
 * messages selected, posted and admitted, the sort after it, a
 * cells-mode member's step out, and the exports' positions packed and
 * unpacked between rebuilds. The buffers are gas_member.c's.
 */
#include <assert.h>
#include <string.h>

#include "gas/gas_internal.h"

/* Where a stage's exports toward a side start in export_slots and the
 * outbox: both sides' one after the other, for one read. */
static uint32_t exports_at(const gas_state *state, int stage, int side,
                           uint32_t before) {
  return (uint32_t)(2 * stage) * state->message_capacity + (side ? before : 0);
}

ck_status ck__gas_member_select(ck_gas *member, int mode, double lo, double hi,
                                double reach, int stage, uint32_t counts[2]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  CK_TRY(member->steps->select(state, mode, lo, hi, reach, stage, counts));
  uint32_t most = counts[0] > counts[1] ? counts[0] : counts[1];
  if (most > state->message_capacity) {
    /* Room for the counts and half as many again, then the same
     * selection: a ghost dropped twice stays dropped. */
    uint32_t grown = most + most / 2;
    CK_TRY(ck__gas_member_messages(state, grown));
    CK_TRY(member->steps->select(state, mode, lo, hi, reach, stage, counts));
  }
fail:
  return status;
}

ck_status ck__gas_member_post(ck_gas *member, const uint32_t counts[2],
                              const double shift[2], int ghost, int stage,
                              const void *out[2]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t capacity = state->message_capacity;
  size_t entry = 4 * (size_t)ck_gas_entry_words(ghost);
  size_t at[2], bytes[2];
  for (int side = 0; side < 2; ++side) {
    uint32_t word = ck_gas_message_at(side, capacity);
    at[side] = 4 * (size_t)word;
    bytes[side] = entry * counts[side];
    if (counts[side] > 0)
      CK_TRY(member->steps->post(
          state, (uint32_t)side * capacity, counts[side], shift[side], ghost,
          word, ghost ? ck_gas_kept_at(2 * stage + side, capacity) : 0, stage));
  }
  CK_TRY(ck__staging_read(&state->staging, state->queue, state->out_packed, 2,
                          at, bytes, 0, out, NULL));
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

ck_status ck__gas_member_expect(ck_gas **member, size_t entries,
                                uint32_t kept) {
  (*member)->state.inbox_kept = kept;
  ck_status status =
      ck__gas_member_reserve(member, ck__gas_member_slots(*member) + entries);
  if (status == CK_OK)
    status = ck__gas_member_inbox_room(&(*member)->state,
                                       entries + kept / CK_GAS_GHOST_WORDS);
  return status;
}

ck_status ck__gas_member_admit(ck_gas *member, const uint32_t migrants[2],
                               const uint32_t ghosts[2],
                               const void *const in[2], double lo, double hi,
                               int stage, uint32_t base, uint32_t *stray) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  static const uint32_t none = CK_GAS_NO_STRAY;
  size_t arrived = (size_t)migrants[0] + migrants[1];
  size_t count = arrived + ghosts[0] + ghosts[1];
  const size_t migrant = 4 * CK_GAS_ENTRY_WORDS, ghost = 4 * CK_GAS_GHOST_WORDS;
  if (state->particles + count > member->config.particles ||
      count + base / CK_GAS_GHOST_WORDS > state->inbox_capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "a member of %zu slots given %zu more to its %u",
                    member->config.particles, count, state->particles);
  /* The migrants of both sides, then their ghosts (ck_gas.h's packed
   * inbox, which the accept kernels read), in one write. */
  const void *pieces[4] = {NULL, NULL, NULL, NULL};
  size_t sizes[4];
  for (int kind = 0; kind < 2; ++kind)
    for (int side = 0; side < 2; ++side) {
      const unsigned char *message = in[side];
      size_t size = kind ? ghosts[side] * ghost : migrants[side] * migrant;
      sizes[2 * kind + side] = size;
      if (size > 0)
        pieces[2 * kind + side] =
            message + (kind ? migrants[side] * migrant : 0);
    }
  CK_TRY(ck__staging_write(&state->staging, state->queue, state->in_packed,
                           4 * (size_t)base, 4, pieces, sizes));
  CK_TRY(ck_buffer_write(state->queue, state->member_counts, 8, 4, &none,
                         CK_NONBLOCKING, NULL));
  if (arrived > 0)
    CK_TRY(member->steps->accept(state, state->particles, (uint32_t)arrived, 0,
                                 0, base, lo, hi, stage));
  state->particles += (uint32_t)arrived;
  if (count > arrived)
    CK_TRY(member->steps->accept(
        state, state->particles, (uint32_t)(count - arrived), 1, ghosts[0],
        base + (uint32_t)(arrived * CK_GAS_ENTRY_WORDS), lo, hi, stage));
  state->particles += (uint32_t)(count - arrived);
  CK_TRY(ck_buffer_read(state->queue, state->member_counts, 8, 4, stray,
                        CK_NONBLOCKING, NULL));
fail:
  return status;
}

ck_status ck__gas_member_stray(ck_gas *member, uint32_t base, uint32_t entry,
                               uint32_t *word, float position[2]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t read[3];
  size_t at = 4 * ((size_t)base + (size_t)entry * CK_GAS_ENTRY_WORDS);
  CK_TRY(ck_buffer_read(state->queue, state->in_packed, at, sizeof read, read,
                        CK_BLOCKING, NULL));
  *word = read[0];
  memcpy(position, &read[1], 2 * sizeof *position);
fail:
  return status;
}

ck_status ck__gas_member_drop(ck_gas *member, const uint32_t counts[2]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  for (int side = 0; side < 2; ++side)
    CK_TRY(member->steps->mark(state, (uint32_t)side * state->message_capacity,
                               counts[side]));
fail:
  return status;
}

ck_status ck__gas_member_sort(ck_gas *member, size_t kept,
                              const uint32_t exports[4],
                              const size_t ghosts[4]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t capacity = state->message_capacity;
  CK_TRY(member->steps->neighbors(state, 1));
  state->particles = (uint32_t)kept;
  /* A new rebuild is flagged from here on; nothing is missing or listed
   * yet; a list's overflow (flags[1]) stays until the sums report it. */
  static const uint32_t clear[2] = {0, 0};
  CK_TRY(ck_buffer_write(state->queue, state->flags, 0, 4, clear,
                         CK_NONBLOCKING, NULL));
  CK_TRY(ck_buffer_write(state->queue, state->flags, 8, 8, clear,
                         CK_NONBLOCKING, NULL));
  state->border_known = 0;
  /* The exports by what the rebuild kept of them, the ghosts by their
   * entries in the packed inbox, as appended: stage 1's past stage 0's. */
  for (int side = 0; side < 4; ++side)
    if (exports[side] > 0)
      CK_TRY(member->steps->locate(
          state, 0, exports_at(state, side / 2, side % 2, exports[side & ~1]),
          exports[side], ck_gas_kept_at(side, capacity), 0));
  size_t first = ghosts[0] + ghosts[1];
  CK_TRY(member->steps->locate(state, 1, 0, (uint32_t)first, 0,
                               (uint32_t)ghosts[0]));
  if (ghosts[2] + ghosts[3] > 0)
    CK_TRY(member->steps->locate(
        state, 1, (uint32_t)first, (uint32_t)(ghosts[2] + ghosts[3]),
        (uint32_t)(first * CK_GAS_GHOST_WORDS), (uint32_t)ghosts[2]));
  state->inbox_kept = 0;
fail:
  return status;
}

/* A cells-mode member's region (ck_gas_member_put) in its packed
 * outbox: its first word, and its words an entry. */
static size_t region_at(const gas_state *state, int region, size_t *words) {
  uint32_t capacity = state->message_capacity;
  *words = ck_gas_entry_words(region >= 2);
  return region < 2 ? ck_gas_message_at(region, capacity)
                    : ck_gas_kept_at(region - 2, capacity);
}

/* Reads entries [from, to) of a cells-mode member's region to the same
 * place in its host copy of the packed outbox (past 4 words of counts),
 * without a wait. */
static ck_status read_entries(gas_state *state, int region, size_t from,
                              size_t to) {
  size_t words, at = region_at(state, region, &words) + words * from;
  uint32_t *copy = (uint32_t *)state->staging.read + 4;
  if (to <= from)
    return CK_OK;
  return ck_buffer_read(state->queue, state->out_packed, 4 * at,
                        4 * words * (to - from), copy + at, CK_NONBLOCKING,
                        NULL);
}

/* A grid's stage 1 asked again starts from its words as they were: its
 * first call made ghosts of the leavers it stored, which stage 1 would
 * pass on as ghosts. Kept in the member's id snapshot (made to hold its
 * slots). */
static ck_status snapshot_words(gas_state *state, int back) {
  ck_status status = CK_OK;
  size_t bytes = 4 * (size_t)state->particles, size = 0;
  if (bytes == 0)
    return CK_OK;
  if (state->id_snapshot)
    CK_TRY(ck_buffer_get_size(state->id_snapshot, &size));
  if (!back && size < bytes) {
    ck_buffer_destroy(state->id_snapshot);
    state->id_snapshot = NULL;
    CK_TRY(ck__buffer_make_zeroed(state->queue, state->slots, 4, "id snapshot",
                                  &state->id_snapshot));
  }
  CK_TRY(back ? ck_buffer_copy(state->queue, state->id, 0, state->id_snapshot,
                               0, bytes, NULL)
              : ck_buffer_copy(state->queue, state->id_snapshot, 0, state->id,
                               0, bytes, NULL));
fail:
  return status;
}

ck_status ck__gas_member_leave(ck_gas *member, int move, double lo, double hi,
                               double reach, const double shift[2], int stage,
                               ck__gas_outbox *out) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t *counts = NULL;
  assert(stage == 0 || !move);
  if (stage == 1)
    CK_TRY(snapshot_words(state, 0));
  for (int again = 0;; again = 1) {
    size_t capacity = state->message_capacity;
    ck__staging *staging = &state->staging;
    CK_TRY(ck__staging_hold(staging, state->queue, &staging->read,
                            &staging->read_bytes,
                            4 * (4 + CK_GAS_PACKED_WORDS * capacity)));
    counts = staging->read;
    if (again && stage == 1)
      CK_TRY(snapshot_words(state, 1));
    CK_TRY(member->steps->leave(state, again ? 0 : move, lo, hi, reach, shift,
                                again && stage == 0, stage));
    /* The counts and, unasked, as many entries as they are likely to be:
     * one wait in all, most steps. */
    size_t guess[4] = {0, 0, 0, 0};
    CK_TRY(ck_buffer_read(state->queue, state->member_counts, 0,
                          4 * sizeof *counts, counts, CK_NONBLOCKING, NULL));
    for (int region = 0; region < 4; ++region) {
      guess[region] = state->leave_guess[region] < capacity
                          ? state->leave_guess[region]
                          : capacity;
      CK_TRY(read_entries(state, region, 0, guess[region]));
    }
    CK_TRY(ck_queue_finish(state->queue));
    uint32_t most = 0, more = 0;
    for (int region = 0; region < 4; ++region)
      most = counts[region] > most ? counts[region] : most;
    if (most <= capacity) {
      for (int region = 0; region < 4; ++region)
        if (counts[region] > guess[region]) {
          CK_TRY(read_entries(state, region, guess[region], counts[region]));
          more = 1;
        }
      if (more)
        CK_TRY(ck_queue_finish(state->queue));
      break;
    }
    if (again)
      CK_FAIL(CK_ERROR_DEVICE, "a member's outbox overflowed twice");
    /* Room for them and half as many again; the leavers stored already
     * are ghosts here now, and are stored again as such. */
    CK_TRY(ck__gas_member_messages(state, most + most / 2 + 1));
  }
  for (int region = 0; region < 4; ++region) {
    size_t words;
    state->leave_guess[region] = counts[region] + counts[region] / 4 + 32;
    out->counts[region] = counts[region];
    out->entries[region] = counts + 4 + region_at(state, region, &words);
  }
fail:
  return status;
}

ck_status ck__gas_member_resort(ck_gas *member, size_t kept) {
  ck_status status = member->steps->neighbors(&member->state, 1);
  if (status == CK_OK)
    member->state.particles = (uint32_t)kept;
  return status;
}

ck_status ck__gas_member_drift(ck_gas *member) {
  gas_state *state = &member->state;
  if (!state->drifted)
    return member->steps->kick_drift(state);
  state->drifted = 0; /* the last step's forces took this half-step */
  return CK_OK;
}

ck_status ck__gas_member_pack(ck_gas *member, const uint32_t counts[2],
                              const double shift[2], int stage,
                              const void *out[2], uint32_t flags[3]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t base = exports_at(state, stage, 0, 0);
  size_t entry = 2 * state->real_size; /* 2 reals an entry */
  CK_TRY(ck__gas_member_join(state));
  size_t at[2] = {entry * base, entry * exports_at(state, stage, 1, counts[0])};
  size_t bytes[2] = {entry * counts[0], entry * counts[1]};
  CK_TRY(member->steps->gather(state, base, counts[0] + counts[1], counts[0],
                               shift, stage));
  /* The flags into page-locked memory too (a read into the caller's
   * would wait for the device as it is queued), and the border's count. */
  void *room = NULL;
  CK_TRY(ck__staging_read(&state->staging, state->queue, state->out_real, 2, at,
                          bytes, 4 * sizeof *flags, out, &room));
  CK_TRY(ck_buffer_read(state->queue, state->flags, 0, 4 * sizeof *flags, room,
                        CK_NONBLOCKING, NULL));
  CK_TRY(ck_queue_finish(state->queue));
  memcpy(flags, room, 3 * sizeof *flags);
  state->border_count = ((const uint32_t *)room)[3];
  state->border_known = 1;
fail:
  return status;
}

ck_status ck__gas_member_join(gas_state *state) {
  if (!state->aside_marked)
    return CK_OK;
  state->aside_marked = 0;
  return ck__queue_follow(state->queue, state->aside);
}

ck_status ck__gas_member_unpack(ck_gas *member, size_t base,
                                const size_t counts[2],
                                const void *const positions[2], int aside) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  ck_queue *own = state->queue;
  size_t count = counts[0] + counts[1];
  size_t sizes[2] = {8 * counts[0], 8 * counts[1]};
  if (count == 0)
    return CK_OK;
  if (aside && !state->aside_tried) {
    state->aside_tried = 1;
    CK_TRY(ck__queue_beside(state->queue, &state->aside));
  }
  /* The write and the kernel on the queue beside, its mark after them:
   * the interior's forces, queued before, read no ghost. */
  int beside = aside && state->aside;
  if (beside)
    state->queue = state->aside;
  status = ck__staging_write(&state->staging, state->queue, state->in_real, 0,
                             2, positions, sizes);
  if (status == CK_OK)
    status = member->steps->unpack(state, (uint32_t)base, (uint32_t)count);
  state->queue = own;
  CK_TRY(status);
  if (beside) {
    CK_TRY(ck__queue_mark(state->aside));
    state->aside_marked = 1;
  }
fail:
  return status;
}
