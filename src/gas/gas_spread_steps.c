/*
 * gas_spread_steps.c - a spread gas's steps over a call
 * (ck__gas_spread_step): resident ones, cells mode without the host
 * between the members of one process or between processes (CUDA IPC,
 * or NCCL: the halo's resident steps, framework/halo.h, over the ops
 * here), where they may go, else steps through the host (gas_spread.c's).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "gas/gas_internal.h"
#include "gas/gas_spread_internal.h"

/* ---- cells mode without the host: resident steps ---------------------
 *
 * Where every member is a CUDA device of this process whose kernels may
 * read its neighbours' memory (one GPU, or GPUs joined by peer access),
 * cells mode's steps are resident (ck_gas.h): each member packs its
 * leavers and exports on its device and marks its queue; each neighbour's
 * queue follows that mark and pulls them from the sender's memory in a
 * kernel of its own, then sorts and computes forces. The counts stay on
 * the devices, so the host queues step after step and waits for none.
 * The members settle every RESIDENT_STEPS steps, at the end of a call,
 * and before a rescale: their control words are read and checked there.
 * An outbox or slots that overflowed fail the run (room is made at each
 * settle so that they do not), and a stray is named as the host path
 * names it. The host path's first step after each start, which grows
 * what it must as it goes, gives the first counts to make room by.
 */
#define RESIDENT_STEPS 32

/* Whether a member can step resident: its backend pulls, in cells mode. */
static int member_can_reside(const ck_gas *gas) {
  return gas->steps->pull != NULL && gas->state.neighbors == CK_GAS_CELLS;
}

/* Ends a member's resident steps: its control words read into words,
 * its slots as its last sort left them. */
static ck_status member_settle(ck_gas *gas,
                               uint32_t words[CK_GAS_CONTROL_WORDS]) {
  gas_state *state = &gas->state;
  ck_status status = ck_buffer_read(state->queue, state->member_control, 0,
                                    CK_GAS_CONTROL_WORDS * sizeof *words, words,
                                    CK_BLOCKING, NULL);
  state->resident = 0;
  if (status == CK_OK)
    state->particles = words[CK_GAS_CONTROL_SORTED];
  return status;
}

/* ---- resident steps between processes ------------------------------
 *
 * Where each process of an MPI job holds one member, all CUDA devices,
 * resident steps go between processes as between the members of one:
 * each member's control words and outbox are a window its neighbours
 * read (framework/window.h), by CUDA IPC on one host, else from mirrors
 * that NCCL fills. The offers cross before each run of resident steps.
 * The agreement that ends each phase (ck__spread_each) orders each
 * step's marks before the neighbours follow them. Where any of this
 * fails on any process, all go through the host from then on.
 */

/* The entries of a leavers region that NCCL sends: four times the most
 * that a region held at the last settle and more, at most the capacity.
 * Few leave a slab in a step, so this sends a fraction of the region;
 * more leavers than that fail the run (CK_GAS_OVERFLOW_CROSSED). */
static uint32_t leavers_room(uint32_t most, uint32_t capacity) {
  uint64_t room = 4 * (uint64_t)most + 256;
  return room < capacity ? (uint32_t)room : capacity;
}

/* A packed outbox's region at a parity (capacity entries a region): its
 * first `leavers` migrants, and its ghosts whole; to or from `peer`. */
static void region_pieces(void *outbox, int parity, uint32_t capacity,
                          uint32_t leavers, int region, size_t peer,
                          ck__exchange_piece *pieces) {
  char *half =
      (char *)outbox + 4 * (size_t)ck_gas_packed_half(parity, capacity);
  pieces[0] = (ck__exchange_piece){
      half + 4 * (size_t)ck_gas_message_at(region, capacity),
      4 * (size_t)CK_GAS_ENTRY_WORDS * leavers, peer};
  pieces[1] =
      (ck__exchange_piece){half + 4 * (size_t)ck_gas_kept_at(region, capacity),
                           4 * (size_t)CK_GAS_GHOST_WORDS * capacity, peer};
}

/* The neighbours' offers' words and addresses as the pull reads them. */
static void sources_of(const ck__window_view from[2], ck__gas_source out[2]) {
  for (int side = 0; side < 2; ++side)
    out[side] = (ck__gas_source){.control = from[side].address[0],
                                 .packed = from[side].address[1],
                                 .capacity = from[side].words[0],
                                 .leavers = from[side].words[1]};
}

/* What a member's NCCL group sends and receives at the step's parity:
 * to its next member, then its previous, its control words and the
 * regions toward each (ck_gas_member_classify); from its previous, then
 * its next, the same into the mirrors (from). Where both neighbours are
 * one member, the pieces still pair in order: that member's toward its
 * next come first. */
static ck_status resident_swap(void *self, size_t i,
                               const ck__window_view from[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  gas_state *state = ck__gas_state(m->gas);
  size_t total = s->total, index = m->index;
  size_t neighbor[2] = {(index + total - 1) % total, (index + 1) % total};
  ck__exchange_piece sends[6], receives[6];
  ck__gas_source sources[2];
  void *control = NULL, *packed = NULL, *stream = NULL;
  int ordinal = 0, parity = s->phase_parity;
  sources_of(from, sources);
  CK_TRY(ck__queue_lend(state->queue, state->member_control, &control, &ordinal,
                        &stream));
  CK_TRY(ck__queue_lend(state->queue, state->out_packed, &packed, &ordinal,
                        &stream));
  size_t n = 0, words = 4 * CK_GAS_CONTROL_WORDS;
  for (int k = 0; k < 2; ++k, n += 3) {
    int toward = k == 0 ? NEXT : PREVIOUS, side = k == 0 ? PREVIOUS : NEXT;
    const ck__gas_source *source = &sources[side];
    sends[n] = (ck__exchange_piece){control, words, neighbor[toward]};
    receives[n] = (ck__exchange_piece){(void *)(uintptr_t)source->control,
                                       words, neighbor[side]};
    /* Toward side `toward`: its regions `toward` and `toward` + 2. From
     * `side`: what it sent toward this member, its region `toward`
     * too (its next is this member where it is the previous). */
    region_pieces(packed, parity, state->message_capacity, s->leavers_sent,
                  toward, neighbor[toward], &sends[n + 1]);
    region_pieces((void *)(uintptr_t)source->packed, parity, source->capacity,
                  source->leavers, toward, neighbor[side], &receives[n + 1]);
  }
  for (size_t k = 0; k < n; ++k)
    m->bytes += sends[k].bytes;
  CK_TRY(ck__exchange_member_swap(s->run->exchange, 0, stream, sends, n,
                                  receives, n));
fail:
  return status;
}

/* What its neighbours' pulls read of it: its control words and packed
 * outbox, the outbox's capacity, and the leavers of a region that NCCL
 * sends of it. It can step so where its member steps can. */
static int resident_offer(void *self, size_t i, ck__window_offer *offer) {
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  gas_state *state = ck__gas_state(m->gas);
  uint32_t capacity = state->message_capacity;
  s->leavers_sent = ck__halo_mirrored(&s->halo)
                        ? leavers_room(s->most_leavers[i], capacity)
                        : capacity;
  *offer =
      (ck__window_offer){.buffers = {state->member_control, state->out_packed},
                         .generation = s->generation,
                         .words = {capacity, s->leavers_sent}};
  return member_can_reside(m->gas);
}

/* Ends resident steps begun (resident_reside) that go through the
 * host after all. */
static ck_status resident_unreside(void *self, size_t i) {
  ck__gas_spread *s = self;
  uint32_t words[CK_GAS_CONTROL_WORDS];
  return member_settle(s->members[i].gas, words);
}

/* Where resident steps may go now: between processes, the window's swap
 * agrees on the members' steps (resident_offer). */
static int can_reside(const ck__gas_spread *s) {
  if (!ck__halo_may_reside(&s->halo) || !ck__halo_direct(&s->halo) ||
      !s->resident_ready || s->pace.on || s->config.neighbors != CK_GAS_CELLS)
    return 0;
  for (size_t i = 0; s->halo.between <= 0 && i < s->run->local; ++i)
    if (!member_can_reside(s->members[i].gas))
      return 0;
  return 1;
}

/* Room for resident steps, from the most entries an outbox region held
 * at the last step: twice as many in each region, and each step's pull
 * (four regions' worth) past the slots in use and a margin for those
 * that arrive meanwhile. A member made again (*m->gas changes) keeps its
 * slots. */
static ck_status make_room(ck__gas_spread *s, member *m, size_t i,
                           uint32_t most) {
  ck_status status = CK_OK;
  gas_state *state = ck__gas_state(m->gas);
  ck_gas *before = m->gas;
  uint32_t messages = 2 * most + 256, made = messages + messages / 2;
  if (s->room_for_tests)
    messages = made = most + s->room_for_tests;
  if (state->message_capacity < messages ||
      (s->room_for_tests && state->message_capacity != made)) {
    CK_TRY(ck_queue_finish(state->queue));
    CK_TRY(ck__gas_member_messages(state, made));
    s->generation += 1;
  }
  size_t slots = (size_t)state->particles +
                 4 * (size_t)state->message_capacity + state->particles / 64 +
                 256;
  CK_TRY(ck__gas_member_reserve(&m->gas, slots));
  s->run->queues[i] = m->gas->state.queue;
  if (m->gas != before)
    s->generation += 1;
fail:
  return status;
}

/* Member i's most entries in a region, and in a leavers region, from
 * the counts of its 4 regions (leavers first). */
static void keep_most(ck__gas_spread *s, size_t i, const uint32_t counts[4]) {
  for (int region = 0; region < 4; ++region) {
    if (counts[region] > s->most[i])
      s->most[i] = counts[region];
    if (region < 2 && counts[region] > s->most_leavers[i])
      s->most_leavers[i] = counts[region];
  }
}

/* After a cells-mode step through the host (the first at a start): its
 * counts are the first to make room for resident steps by. */
void ck__gas_spread_ready_to_reside(ck__gas_spread *s) {
  int devices = ck__halo_may_reside(&s->halo);
  for (size_t i = 0; devices && i < s->run->local; ++i) {
    uint32_t counts[4]; /* posted[kind][side]: leavers first */
    memcpy(counts, s->halo.members[i].link[0].posted, sizeof counts);
    s->most[i] = s->most_leavers[i] = 0;
    keep_most(s, i, counts);
  }
  s->resident_ready = devices;
}

/* Room by the most entries a region held when the member last settled
 * (before resident steps begin: a state made again keeps its forces, but
 * not the energies that a call's last step leaves for the observables),
 * then the resident steps begun. */
static ck_status resident_reside(void *self, size_t i) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  CK_TRY(make_room(s, m, i, s->most[i]));
  gas_state *state = ck__gas_state(m->gas);
  uint32_t words[CK_GAS_CONTROL_WORDS];
  memset(words, 0, sizeof words);
  words[CK_GAS_CONTROL_SORTED] = state->particles;
  words[CK_GAS_CONTROL_APPENDED] = state->particles;
  words[CK_GAS_CONTROL_OWN] = (uint32_t)s->halo.members[i].own;
  words[CK_GAS_CONTROL_STRAY] = CK_GAS_NO_STRAY;
  /* From the staging, without a wait. */
  const void *pieces[1] = {words};
  const size_t sizes[1] = {sizeof words};
  CK_TRY(ck__staging_write(&state->staging, state->queue, state->member_control,
                           0, 1, pieces, sizes));
  /* A slab's neighbours read its tag (CK_GAS_CONTROL_READY) without its
   * queue's order: it is 0 on the device before any of them steps. */
  if (state->slab)
    CK_TRY(ck_queue_finish(state->queue));
  state->resident = 1;
fail:
  return status;
}

/* Step k of a run of `count` resident steps is next (k == count: the
 * run is done): the step before it is done. */
static void resident_step(void *self, uint64_t k, uint64_t count) {
  ck__gas_spread *s = self;
  if (k > 0) {
    s->step += 1;
    s->resident_steps += 1;
  }
  if (k == count)
    return;
  s->phase_move = 1;
  s->phase_step = s->step + 1;
  s->phase_parity = (int)(s->phase_step % 2);
  s->phase_energy = s->resident_last && k + 1 == count;
}

/* The step's way out, after its tag where its neighbours' devices wait
 * for it. */
static ck_status resident_out(void *self, size_t i, uint32_t tag) {
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  gas_state *state = ck__gas_state(m->gas);
  assert(state->resident);
  state->parity = s->phase_parity;
  state->step_tag = tag;
  return m->gas->steps->leave(
      state, s->phase_move, m->place[0].border[PREVIOUS],
      m->place[0].border[NEXT], s->domain.reach, m->place[0].shift, 0, 0);
}

/* The way in: the pull, the sort, forces and the kick. */
static ck_status resident_in(void *self, size_t i,
                             const ck__window_view from[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  gas_state *state = ck__gas_state(m->gas);
  ck__gas_source sources[2];
  double slack = ck__gas_spread_slack(s);
  assert(state->resident);
  sources_of(from, sources);
  state->parity = s->phase_parity;
  CK_TRY(m->gas->steps->pull(state, sources,
                             m->place[0].border[PREVIOUS] - slack,
                             m->place[0].border[NEXT] + slack));
  CK_TRY(m->gas->steps->neighbors(state, 1));
  CK_TRY(ck__gas_member_forces(m->gas, 0, s->phase_energy, s->phase_step, 0));
fail:
  return status;
}

/* Waits for the member's queue and checks what its control words say:
 * overflows, a stray; then room for the next resident steps. */
static ck_status resident_settle(void *self, size_t i) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  uint32_t words[CK_GAS_CONTROL_WORDS];
  gas_state *state = ck__gas_state(m->gas);
  CK_TRY(member_settle(m->gas, words));
  /* Own particles and ghosts share the slots the last pull left. */
  assert(words[CK_GAS_CONTROL_OWN] <= words[CK_GAS_CONTROL_APPENDED] &&
         words[CK_GAS_CONTROL_APPENDED] <= state->slots);
  s->halo.members[i].own = words[CK_GAS_CONTROL_OWN];
  /* By NCCL, the bytes sent were counted as they went (whole regions). */
  if (!ck__halo_mirrored(&s->halo))
    m->bytes += (uint64_t)MIGRANT_BYTES * words[CK_GAS_CONTROL_SENT] +
                (uint64_t)GHOST_BYTES * words[CK_GAS_CONTROL_SENT + 1];
  if (words[CK_GAS_CONTROL_FLAGS] & CK_GAS_OVERFLOW_OUTBOX)
    CK_FAIL(CK_ERROR_DEVICE,
            "slab %zu of %zu sent more particles in a step than its outbox "
            "holds (%u a side): its particles near a border grew faster "
            "than the room made for them",
            m->index, s->total, state->message_capacity);
  if (words[CK_GAS_CONTROL_FLAGS] & CK_GAS_OVERFLOW_CROSSED)
    CK_FAIL(CK_ERROR_DEVICE,
            "slab %zu of %zu: a neighbour's leavers in a step were more than "
            "NCCL sends of them (%u from the previous slab, %u from the "
            "next): more crossed a border than ever before",
            m->index, s->total, s->halo.views[0][PREVIOUS].words[1],
            s->halo.views[0][NEXT].words[1]);
  if (words[CK_GAS_CONTROL_FLAGS] & CK_GAS_OVERFLOW_INSIDE)
    CK_TRY(ck__gas_spread_inside_failure(s, m));
  if (words[CK_GAS_CONTROL_FLAGS] & CK_GAS_OVERFLOW_LATE)
    CK_FAIL(CK_ERROR_DEVICE,
            "slab %zu of %zu waited %d s for a neighbour's step: its device "
            "stopped or never began it",
            m->index, s->total, CK_GAS_WAIT_SECONDS);
  if (words[CK_GAS_CONTROL_FLAGS] & CK_GAS_OVERFLOW_SLOTS)
    CK_FAIL(CK_ERROR_DEVICE,
            "slab %zu of %zu received more particles than it has slots for "
            "(%u)",
            m->index, s->total, state->slots);
  if (words[CK_GAS_CONTROL_STRAY] != CK_GAS_NO_STRAY)
    CK_TRY(ck__gas_spread_stray_failure(
        s, m, 0, words[CK_GAS_CONTROL_STRAY],
        ck_bits_as_float(words[CK_GAS_CONTROL_STRAY_X])));
  s->most[i] = s->most_leavers[i] = 0;
  for (int parity = 0; parity < 2; ++parity)
    keep_most(s, i, &words[ck_gas_control_count(parity, 0)]);
fail:
  return status;
}

static int resident_waits(void *self, size_t i) {
  ck__gas_spread *s = self;
  return ck__gas_state(s->members[i].gas)->waits_for_tags;
}

static const ck__halo_resident_ops gas_resident = {.reside = resident_reside,
                                                   .unreside =
                                                       resident_unreside,
                                                   .offer = resident_offer,
                                                   .waits = resident_waits,
                                                   .step = resident_step,
                                                   .out = resident_out,
                                                   .swap = resident_swap,
                                                   .in = resident_in,
                                                   .settle = resident_settle};

uint64_t ck__gas_spread_resident_steps(const ck__gas_spread *s) {
  return s->resident_steps;
}

ck_status ck__gas_spread_slab_steps(ck__gas_spread *s, uint64_t steps) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  if (ck__engine_pace_due(&s->pace, BALANCE_STEPS))
    CK_TRY(ck__gas_spread_balance(s));
  for (uint64_t k = 0; k < steps; ++k) {
    uint64_t step = s->step + 1;
    if (can_reside(s)) {
      /* Up to a settle: at most RESIDENT_STEPS, and a rescale's step. */
      uint64_t count = steps - k < RESIDENT_STEPS ? steps - k : RESIDENT_STEPS;
      if (c->thermostat == CK_GAS_RESCALE) {
        uint64_t due = c->rescale_every - (step - 1) % c->rescale_every;
        count = due < count ? due : count;
      }
      /* Every member settles after them; none are taken where the
       * processes' swap failed (through the host from then on). The
       * call's last step keeps its energies. */
      uint64_t taken = 0;
      s->resident_last = k + count == steps;
      CK_TRY(ck__halo_reside(&s->halo, &gas_resident, count, &taken));
      if (taken > 0) {
        s->settled = 1;
        if (c->thermostat == CK_GAS_RESCALE && s->step % c->rescale_every == 0)
          CK_TRY(ck__gas_spread_rescale(s));
        k += taken - 1;
        continue;
      }
    }
    /* Energies are read only after the last step of a call. */
    int last = k + 1 == steps, rebuilt = 1;
    s->settled = 0;
    if (c->neighbors == CK_GAS_CELLS)
      CK_TRY(ck__gas_spread_cells_step(s, step, last));
    else
      CK_TRY(ck__gas_spread_verlet_step(s, step, last, &rebuilt));
    if (c->neighbors == CK_GAS_CELLS && !s->resident_ready)
      ck__gas_spread_ready_to_reside(s);
    ck__engine_pace_step(s->engine, &s->pace, rebuilt, BALANCE_WARMUP);
    if (c->thermostat == CK_GAS_RESCALE && step % c->rescale_every == 0)
      CK_TRY(ck__gas_spread_rescale(s));
    s->step = step;
  }
  /* Resident steps settle as they end; a step through the host here. */
  if (c->neighbors == CK_GAS_CELLS && steps > 0 && !s->settled)
    CK_TRY(ck__gas_spread_each(s, ck__gas_spread_settle));
fail:
  return status;
}

int ck__gas_spread_on_devices(const ck__gas_spread *s) {
  return s->halo.peers[PREVIOUS][0] != NULL;
}
