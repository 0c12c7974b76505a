/*
 * gas_member_exchange.c - a spread gas's halo ops (framework/halo.h):
 * what crosses between members, done on each member's device
 * (ck_gas.h's spread members). A rebuild's messages are selected,
 * posted, admitted and sorted; between rebuilds the exports' positions
 * are packed and unpacked; a cells-mode member steps out and settles;
 * a member's forces. The buffers are gas_member.c's; the halo runs the
 * stages, the counts and the messages.
 *
 * A rebuild's and a crossing's messages are packed on the sender's
 * device as the receiver appends them (ck_gas.h's layout): migrants
 * (whole entries), then ghosts. They cross through host memory (one read
 * a side, one write for both) and the exchange; the receiver appends
 * them on its device. Between rebuilds only the ghosts' positions cross,
 * from the slots found at the rebuild.
 */
#include <assert.h>
#include <string.h>

#include "gas/gas_internal.h"
#include "gas/gas_spread_internal.h"

/* Where a stage's exports toward a side start in export_slots and the
 * outbox: both sides' one after the other, for one read. */
static uint32_t exports_at(const gas_state *state, int stage, int side,
                           uint32_t before) {
  return (uint32_t)(2 * stage) * state->message_capacity + (side ? before : 0);
}

/* Its entries of `kind` toward each side along the stage's axis:
 * migrants (past its borders) with their new owner's coordinates, then
 * dropped (and in stage 0 the old ghosts); or its exports (within reach
 * of a border; in stage 1 with stage 0's ghosts), the last arrivals'
 * stray checked first. Each side's message is packed on the device and
 * read into its page-locked memory (one read a side, one wait). */
static ck_status halo_post(void *self, size_t i, int stage, int kind,
                           uint32_t counts[2], const void *out[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  const ck__domain_place *p = &m->place[stage];
  ck_gas *gas = m->gas;
  gas_state *state = &gas->state;
  double lo = p->border[PREVIOUS], hi = p->border[NEXT],
         reach = s->domain.reach;
  /* The selection's wait reads the stray too. */
  CK_TRY(gas->steps->select(state, kind, lo, hi, reach, stage, counts));
  uint32_t most = counts[0] > counts[1] ? counts[0] : counts[1];
  if (most > state->message_capacity) {
    /* Room for the counts and half as many again, then the same
     * selection: a ghost dropped twice stays dropped. */
    CK_TRY(ck__gas_member_messages(state, most + most / 2));
    CK_TRY(gas->steps->select(state, kind, lo, hi, reach, stage, counts));
  }
  if (kind == CK__HALO_GHOST)
    CK_TRY(ck__gas_spread_check_stray(s, m));
  uint32_t capacity = state->message_capacity;
  size_t entry = 4 * (size_t)ck_gas_entry_words(kind), at[2], bytes[2];
  for (int side = 0; side < 2; ++side) {
    uint32_t word = ck_gas_message_at(side, capacity);
    at[side] = 4 * (size_t)word;
    bytes[side] = entry * counts[side];
    /* Ghosts are kept as posted too, to find the exports after the sort. */
    if (counts[side] > 0)
      CK_TRY(gas->steps->post(
          state, (uint32_t)side * capacity, counts[side], p->shift[side], kind,
          word, kind ? ck_gas_kept_at(2 * stage + side, capacity) : 0, stage));
  }
  CK_TRY(ck__staging_read(&state->staging, state->queue, state->out_packed, 2,
                          at, bytes, 0, out, NULL));
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

ck_status ck__gas_member_admit(ck_gas **member, const uint32_t migrants[2],
                               const uint32_t ghosts[2],
                               const void *const in[2], double lo, double hi,
                               int stage, uint32_t base, uint32_t *stray) {
  ck_status status = CK_OK;
  static const uint32_t none = CK_GAS_NO_STRAY;
  size_t arrived = (size_t)migrants[0] + migrants[1];
  size_t count = arrived + ghosts[0] + ghosts[1];
  const size_t migrant = 4 * CK_GAS_ENTRY_WORDS, ghost = 4 * CK_GAS_GHOST_WORDS;
  /* Room first: the member may be made again, its inbox's first `base`
   * words (a grid's stage 0 ghosts' entries) carried. */
  (*member)->state.inbox_kept = base;
  CK_TRY(ck__gas_member_reserve(member, (*member)->state.particles + count));
  ck_gas *gas = *member;
  gas_state *state = &gas->state;
  CK_TRY(ck__gas_member_inbox_room(state, count + base / CK_GAS_GHOST_WORDS));
  assert(state->particles + count <= gas->config.particles);
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
    CK_TRY(gas->steps->accept(state, state->particles, (uint32_t)arrived, 0, 0,
                              base, lo, hi, stage));
  state->particles += (uint32_t)arrived;
  if (count > arrived)
    CK_TRY(gas->steps->accept(
        state, state->particles, (uint32_t)(count - arrived), 1, ghosts[0],
        base + (uint32_t)(arrived * CK_GAS_ENTRY_WORDS), lo, hi, stage));
  state->particles += (uint32_t)(count - arrived);
  CK_TRY(ck_buffer_read(state->queue, state->member_counts, 8, 4, stray,
                        CK_NONBLOCKING, NULL));
fail:
  return status;
}

/* The entries received, appended on its device (room made first) into
 * the packed inbox past the ghosts of earlier stages, which stay. An
 * arrival past its borders by more than the slack is read back (a
 * stray) once its queue has been waited for. */
static ck_status halo_admit(void *self, size_t i, int stage,
                            const ck__halo_link *l, const void *const in[2],
                            size_t before) {
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  const ck__domain_place *p = &m->place[stage];
  uint32_t base = (uint32_t)(CK_GAS_GHOST_WORDS * before);
  double slack = ck__gas_spread_slack(s);
  /* A stray is read back with the stage and the inbox word it came by. */
  m->stray_base = base << 1 | (uint32_t)stage;
  ck_status status = ck__gas_member_admit(
      &m->gas, l->incoming[0], l->incoming[1], in, p->border[PREVIOUS] - slack,
      p->border[NEXT] + slack, stage, base, &m->stray);
  s->run->queues[i] = m->gas->state.queue;
  return status;
}

/* The sort that drops the rest and finds every ghost and each stage's
 * exports (by what the rebuild kept of them; the ghosts by their entries
 * in the packed inbox, stage 1's past stage 0's), then each slot's part
 * of the forces until the next rebuild. */
static ck_status halo_sort(void *self, size_t i, const ck__halo_member *h) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  ck_gas *gas = m->gas;
  gas_state *state = &gas->state;
  uint32_t capacity = state->message_capacity;
  size_t kept = h->own, first = 0;
  for (int stage = 0; stage < s->domain.stages; ++stage)
    kept += h->link[stage].ghosts[0] + h->link[stage].ghosts[1];
  CK_TRY(gas->steps->neighbors(state, 1));
  state->particles = (uint32_t)kept;
  /* A new rebuild is flagged from here on; nothing is missing or listed
   * yet; a list's overflow (flags[1]) stays until the sums report it. */
  static const uint32_t clear[2] = {0, 0};
  CK_TRY(ck_buffer_write(state->queue, state->flags, 0, 4, clear,
                         CK_NONBLOCKING, NULL));
  CK_TRY(ck_buffer_write(state->queue, state->flags, 8, 8, clear,
                         CK_NONBLOCKING, NULL));
  state->border_known = 0;
  for (int stage = 0; stage < s->domain.stages; ++stage) {
    const ck__halo_link *l = &h->link[stage];
    for (int side = 0; side < 2; ++side)
      if (l->exports[side] > 0)
        CK_TRY(gas->steps->locate(
            state, 0, exports_at(state, stage, side, l->exports[0]),
            l->exports[side], ck_gas_kept_at(2 * stage + side, capacity), 0));
    size_t ghosts = l->ghosts[0] + l->ghosts[1];
    CK_TRY(gas->steps->locate(state, 1, (uint32_t)first, (uint32_t)ghosts,
                              (uint32_t)(first * CK_GAS_GHOST_WORDS),
                              (uint32_t)l->ghosts[0]));
    first += ghosts;
  }
  state->inbox_kept = 0;
  if (!state->part_mark)
    CK_TRY(ck__buffer_make_zeroed(state->queue, state->slots, 4, "part marks",
                                  &state->part_mark));
  if (!state->border_slots)
    CK_TRY(ck__buffer_make_zeroed(state->queue, state->slots, 4, "border slots",
                                  &state->border_slots));
  /* A ghost that arrived a hair inside the slab (slack) stays past the
   * reach. */
  double borders[4] = {m->place[0].border[PREVIOUS], m->place[0].border[NEXT],
                       m->place[1].border[PREVIOUS], m->place[1].border[NEXT]};
  CK_TRY(gas->steps->parts(state, borders,
                           s->domain.reach + 2 * ck__gas_spread_slack(s)));
fail:
  return status;
}

/* Between rebuilds: the exports' positions of the stage (2 reals each,
 * shift[side] added along its axis) and its flags (a rebuild due, a list
 * overflowed, a ghost or export not found), read together with the count
 * of the border's slots into its page-locked memory: one wait. */
static ck_status halo_pack(void *self, size_t i, int stage,
                           const uint32_t exports[2], const void *out[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  ck_gas *gas = m->gas;
  gas_state *state = &gas->state;
  uint32_t base = exports_at(state, stage, 0, 0);
  size_t entry = 2 * state->real_size;
  CK_TRY(ck__gas_member_join(state));
  size_t at[2] = {entry * base,
                  entry * exports_at(state, stage, 1, exports[0])};
  size_t bytes[2] = {entry * exports[0], entry * exports[1]};
  CK_TRY(gas->steps->gather(state, base, exports[0] + exports[1], exports[0],
                            m->place[stage].shift, stage));
  /* The flags into page-locked memory too (a read into the caller's
   * would wait for the device as it is queued). */
  void *room = NULL;
  CK_TRY(ck__staging_read(&state->staging, state->queue, state->out_real, 2, at,
                          bytes, 4 * sizeof *m->flags, out, &room));
  CK_TRY(ck_buffer_read(state->queue, state->flags, 0, 4 * sizeof *m->flags,
                        room, CK_NONBLOCKING, NULL));
  CK_TRY(ck_queue_finish(state->queue));
  memcpy(m->flags, room, sizeof m->flags);
  state->border_count = ((const uint32_t *)room)[3];
  state->border_known = 1;
  if (m->flags[2])
    CK_FAIL(CK_ERROR_DEVICE,
            "member %zu lost track of a ghost or an export at its last "
            "rebuild",
            m->index);
fail:
  return status;
}

ck_status ck__gas_member_join(gas_state *state) {
  if (!state->aside_marked)
    return CK_OK;
  state->aside_marked = 0;
  return ck__queue_follow(state->queue, state->aside);
}

ck_status ck__gas_member_forces(ck_gas *member, int part, int with_energy,
                                uint64_t kick_step, int ahead) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  assert(part == 0 || state->part_mark);
  assert(!state->drifted);
  CK_TRY(ck__gas_member_join(state)); /* the ghosts' positions written */
  state->with_energy = with_energy;
  state->kick_step = kick_step;
  /* Strips flag a rebuild as their sort clears it: lists alone here. */
  state->ahead = ahead && !state->strips;
  state->force_part = part;
  CK_TRY(member->steps->forces(state));
  /* A kick the forces did not make kicks every slot: after the last part. */
  if (state->kick_step && part != 1)
    CK_TRY(member->steps->kick(state, kick_step));
fail:
  state->kick_step = 0;
  state->force_part = 0;
  state->ahead = 0;
  return status;
}

/* The ghosts' positions received, past the earlier stages' ghosts (their
 * slots run on across stages). Large slabs write them, and unpack them
 * into their slots, on a queue beside their own, its mark after them:
 * the interior's forces, queued before, read no ghost, and the border's
 * follow the mark (a grid's stage 1 would pack them before). */
static ck_status halo_unpack(void *self, size_t i, int stage, size_t before,
                             const size_t ghosts[2], const void *const in[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  ck_gas *gas = s->members[i].gas;
  gas_state *state = &gas->state;
  ck_queue *own = state->queue;
  size_t count = ghosts[0] + ghosts[1];
  size_t sizes[2] = {8 * ghosts[0], 8 * ghosts[1]};
  int aside = s->domain.stages == 1 && s->halo.members[i].own >= s->aside_from;
  (void)stage;
  if (count == 0)
    return CK_OK;
  if (aside && !state->aside_tried) {
    state->aside_tried = 1;
    CK_TRY(ck__queue_beside(state->queue, &state->aside));
  }
  int beside = aside && state->aside;
  if (beside)
    state->queue = state->aside;
  status = ck__staging_write(&state->staging, state->queue, state->in_real, 0,
                             2, in, sizes);
  if (status == CK_OK)
    status = gas->steps->unpack(state, (uint32_t)before, (uint32_t)count);
  state->queue = own;
  CK_TRY(status);
  if (beside) {
    CK_TRY(ck__queue_mark(state->aside));
    state->aside_marked = 1;
  }
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

/* Cells mode's way out: the first half-step (with phase_move, in stage
 * 0), then its leavers (whole: regions 0 and 1, toward the previous and
 * the next member) and its exports (as ghosts, regions 2 and 3; in stage
 * 1 stage 0's ghosts too) each way, as its device packed them, read with
 * their counts (its outbox grown where it held too few). Its old ghosts
 * are dropped at the settle; its leavers stay as ghosts until then. */
static ck_status halo_leave(void *self, size_t i, int stage,
                            uint32_t counts[2][2], const void *out[2][2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  const ck__domain_place *p = &m->place[stage];
  ck_gas *gas = m->gas;
  gas_state *state = &gas->state;
  uint32_t *read = NULL;
  int move = stage ? 0 : s->phase_move;
  if (stage == 1)
    CK_TRY(snapshot_words(state, 0));
  for (int again = 0;; again = 1) {
    size_t capacity = state->message_capacity;
    ck__staging *staging = &state->staging;
    CK_TRY(ck__staging_hold(staging, state->queue, &staging->read,
                            &staging->read_bytes,
                            4 * (4 + CK_GAS_PACKED_WORDS * capacity)));
    read = staging->read;
    if (again && stage == 1)
      CK_TRY(snapshot_words(state, 1));
    CK_TRY(gas->steps->leave(state, again ? 0 : move, p->border[PREVIOUS],
                             p->border[NEXT], s->domain.reach, p->shift,
                             again && stage == 0, stage));
    /* The counts and, unasked, as many entries as they are likely to be:
     * one wait in all, most steps. */
    size_t guess[4] = {0, 0, 0, 0};
    CK_TRY(ck_buffer_read(state->queue, state->member_counts, 0,
                          4 * sizeof *read, read, CK_NONBLOCKING, NULL));
    for (int region = 0; region < 4; ++region) {
      guess[region] = state->leave_guess[region] < capacity
                          ? state->leave_guess[region]
                          : capacity;
      CK_TRY(read_entries(state, region, 0, guess[region]));
    }
    CK_TRY(ck_queue_finish(state->queue));
    uint32_t most = 0, more = 0;
    for (int region = 0; region < 4; ++region)
      most = read[region] > most ? read[region] : most;
    if (most <= capacity) {
      for (int region = 0; region < 4; ++region)
        if (read[region] > guess[region]) {
          CK_TRY(read_entries(state, region, guess[region], read[region]));
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
    state->leave_guess[region] = read[region] + read[region] / 4 + 32;
    counts[region / 2][region % 2] = read[region];
    out[region / 2][region % 2] = read + 4 + region_at(state, region, &words);
  }
  CK_TRY(ck__gas_spread_check_stray(
      s, m)); /* the last admit's, read by the wait */
fail:
  return status;
}

/* Cells mode's sort, which drops the old ghosts (`kept` slots remain),
 * then the step's forces and kick. */
static ck_status halo_settle(void *self, size_t i, size_t kept) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  CK_TRY(m->gas->steps->neighbors(&m->gas->state, 1));
  m->gas->state.particles = (uint32_t)kept;
  CK_TRY(ck__gas_member_forces(m->gas, 0, s->phase_energy, s->phase_step, 0));
fail:
  return status;
}

const ck__halo_ops ck__gas_halo_ops = {.bytes = {MIGRANT_BYTES, GHOST_BYTES},
                                       .forward_bytes = 2 * sizeof(float),
                                       .post = halo_post,
                                       .admit = halo_admit,
                                       .sort = halo_sort,
                                       .pack = halo_pack,
                                       .unpack = halo_unpack,
                                       .leave = halo_leave,
                                       .settle = halo_settle};
