/*
 * gas_spread.c - one gas over several devices (and processes): the box is
 * cut into slabs across its longer side, one a member, or where slabs
 * would be too thin into a grid of boxes (docs/scale-out.md).
 *
 * Each member is a device state of its own (gas_member.c) that holds the
 * particles of its slab and ghost copies of its neighbours' within reach
 * (rc + skin) of its borders, and steps them with the kernels one device
 * uses. In Verlet mode members rebuild together, when one of them has a
 * particle that moved half the skin since the last rebuild: the particles
 * that left a slab go to their new owner, then each member sends its
 * neighbours their new ghosts, and sorts. Both messages are packed and
 * appended on the devices; between rebuilds only the ghosts' positions
 * cross, from the slots found at the rebuild. In cells mode members
 * exchange migrants and ghosts every step, packed and appended on the
 * devices too, keeping leavers as ghosts until their next sort. All of
 * it crosses device to device where every member is a CUDA device of one
 * process (ck__peer_copy), the host reading counts alone; else through
 * host memory and the exchange. There a member reads what it sends into
 * its page-locked memory (ck__host_alloc); the exchange sends from there
 * (cells mode from a copy behind an envelope). A member copies what it
 * receives into its page-locked staging once, and writes it in one
 * write. A particle keeps its id wherever it goes: the Langevin noise is
 * drawn from it, and outputs are in its order.
 *
 * Along the cut the members' boxes are closed (their ghosts stand for
 * what lies past their slabs); a member's coordinates run along the cut
 * first (u = x, or y where the box is taller than wide), from its box's
 * start.
 *
 * A grid's members are closed along both axes and exchange in two stages
 * (ck_gas.h): along x with their row, then along y with their column,
 * stage 1 passing on stage 0's ghosts within reach, so that ghosts reach
 * across corners. Everything that crosses in a grid goes through the
 * host; the resident steps and the copies device to device serve slabs.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework/spread.h"
#include "gas/gas_internal.h"
#include "gas/gas_spread_internal.h"

/* The bytes of a message's entries (ck_gas.h's layout): a migrant's, a
 * ghost's. */
#define MIGRANT_BYTES (4 * CK_GAS_ENTRY_WORDS)
#define GHOST_BYTES (4 * CK_GAS_GHOST_WORDS)

/* Infinite bounds: a side with no neighbour (walls) takes none. */
#define NO_BORDER 1e30
/* Without shares, the slabs are cut again by the members' speeds once
 * they have made BALANCE_STEPS steps and computed BALANCE_SECONDS in all,
 * measured from the first rebuild after BALANCE_WARMUP steps (a runtime
 * may compile kernels at their first launch), where that would shorten a
 * step by BALANCE_GAIN or more. */
#define BALANCE_WARMUP 8
#define BALANCE_STEPS 16
#define BALANCE_SECONDS 1.0
#define BALANCE_GAIN 0.1

/* ---- phases -------------------------------------------------------------- */

/* A phase of every local member at once (ck__spread_each: a host thread
 * a member), its time counted as the member's, then the statuses agreed
 * (collective). A phase touches its own member's state and buffers
 * alone. */
typedef ck_status (*phase_fn)(ck__gas_spread *s, member *m, size_t i);

typedef struct phase_call {
  ck__gas_spread *spread;
  phase_fn phase;
} phase_call;

static ck_status run_phase(void *context, size_t i) {
  const phase_call *call = context;
  return call->phase(call->spread, &call->spread->members[i], i);
}

static ck_status each(ck__gas_spread *s, phase_fn phase) {
  phase_call call = {s, phase};
  return ck__spread_each(&s->run, run_phase, &call);
}

/* What each member put in send[side]: to the next member (side NEXT)
 * along the stage's axis, received into its from[PREVIOUS], and to the
 * previous one (PREVIOUS), into its from[NEXT]. Slabs pass along the
 * members' line; a grid's rows and columns are routed. */
static ck_status pass_both(ck__gas_spread *s, size_t item) {
  ck_status status = CK_OK;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL], to[CK_SPREAD_MAX_LOCAL],
      from[CK_SPREAD_MAX_LOCAL];
  for (int side = 0; side < 2; ++side) {
    for (size_t i = 0; i < s->run.local; ++i) {
      member *m = &s->members[i];
      send[i] = m->send[side];
      counts[i] = m->sends[side];
      to[i] = STAGE(m)->neighbour[side];
      from[i] = STAGE(m)->neighbour[!side];
      m->bytes += (uint64_t)(counts[i] * item);
    }
    ck__exchange_buffer *received = s->from[side == NEXT ? PREVIOUS : NEXT];
    if (s->stages == 1)
      CK_TRY(ck__exchange_pass(s->run.exchange, side == NEXT, item, send,
                               counts, received));
    else
      CK_TRY(ck__exchange_route(s->run.exchange, item, send, counts, to, from,
                                received));
  }
fail:
  return status;
}

/* Where every member is local: the member that sends local member i
 * what it receives from a side (`from`), and the side it sends it
 * toward (the previous member's toward its next, and back). */
static member *sender_of(ck__gas_spread *s, size_t i, int from, int *side) {
  size_t n = s->run.local;
  *side = from == PREVIOUS ? NEXT : PREVIOUS;
  return &s->members[from == PREVIOUS ? (i + n - 1) % n : (i + 1) % n];
}

/* Room in scratch for count words and count * stride floats. */
static ck_status hold_scratch(ck__gas_spread *s, size_t i, size_t count,
                              size_t stride) {
  ck_status status = ck__exchange_buffer_hold(&s->words[i], 4, count);
  if (status == CK_OK)
    status = ck__exchange_buffer_hold(&s->reals[i], 4 * stride, count);
  return status;
}

/* ---- a rebuild ------------------------------------------------------------
 *
 * A rebuild's messages are packed on the sender's device as the receiver
 * appends them (ck_gas.h's layout): migrants, then ghosts. They cross
 * device to device where every member is a CUDA device of one process,
 * else through host memory (one read a side, one write for both) and the
 * exchange. The receiver appends them on its device.
 */

/* A particle that arrived must lie in the slab (along the stage's axis):
 * one that crossed two borders since the last rebuild would be in the
 * wrong hands. Rounding of the coordinates' shift may put one a hair
 * outside, which stays (it leaves at the next rebuild if it must). */
static double slack(const ck__gas_spread *s) {
  return 1e-3 * s->reach;
}

/* The failure that names a particle (word) that reached member m at u,
 * in its coordinates along the axis of `stage`, past its borders. */
static ck_status stray_failure(const ck__gas_spread *s, const member *m,
                               int stage, uint32_t word, float u) {
  const axis_link *l = &m->link[stage];
  const char *axis = s->stages == 1 ? "" : stage ? " along y" : " along x";
  return ck__fail(CK_ERROR_MISMATCH,
                  "particle %u reached %s %zu of %zu at %g%s, past its "
                  "borders [%g, %g): it crossed more than one %s since the "
                  "last rebuild (the time step is too large, or particles "
                  "overlap)",
                  word, s->stages == 1 ? "slab" : "box", m->index, s->total,
                  u + l->origin, axis, l->lo, l->hi,
                  s->stages == 1 ? "slab" : "box");
}

/* The first arrival that its last admit found past its borders, named:
 * read once its queue has been waited for. */
static ck_status check_stray(const ck__gas_spread *s, member *m) {
  ck_status status = CK_OK;
  uint32_t word = 0;
  float position[2] = {0, 0};
  if (m->stray == CK_GAS_NO_STRAY)
    return CK_OK;
  int stage = m->stray_base & 1u;
  CK_TRY(ck__gas_member_stray(m->gas, m->stray_base >> 1, m->stray, &word,
                              position));
  status = stray_failure(s, m, stage, word, position[stage]);
fail:
  return status;
}

/* Its messages, counts[side] entries a side (ghost 1: ghosts'), packed
 * on its device; read to send[side] unless they cross device to
 * device. */
static ck_status post(ck__gas_spread *s, member *m, const uint32_t counts[2],
                      int ghost) {
  for (int side = 0; side < 2; ++side) {
    STAGE(m)->posted[ghost][side] = counts[side];
    STAGE(m)->posted[!ghost][side] = 0;
    m->sends[side] = counts[side];
  }
  return ck__gas_member_post(m->gas, counts, STAGE(m)->shift, ghost, s->stage,
                             s->on_devices ? NULL : m->send);
}

/* The entries a member receives in the stage: all of both kinds, from
 * both sides. */
static size_t incoming(const ck__gas_spread *s, const member *m) {
  return (size_t)STAGE(m)->incoming[0][PREVIOUS] + STAGE(m)->incoming[0][NEXT] +
         STAGE(m)->incoming[1][PREVIOUS] + STAGE(m)->incoming[1][NEXT];
}

/* What every member left on its device for its neighbours (posted),
 * copied device to device from the calling thread into each member's
 * packed inbox: room made first, every member's before any copy, as a
 * member made again keeps what it left there. */
static ck_status forward(ck__gas_spread *s) {
  ck_status status = CK_OK;
  size_t n = s->run.local;
  for (size_t i = 0; i < n; ++i) {
    member *m = &s->members[i];
    for (int from = 0, side; from < 2; ++from) {
      const member *sender = sender_of(s, i, from, &side);
      for (int kind = 0; kind < 2; ++kind)
        STAGE(m)->incoming[kind][from] = STAGE(sender)->posted[kind][side];
    }
    CK_TRY(ck__gas_member_expect(&m->gas, incoming(s, m), 0));
    s->run.queues[i] = ck__gas_member_queue(m->gas);
  }
  for (size_t i = 0; i < n; ++i) {
    member *m = &s->members[i];
    for (int from = 0; from < 2; ++from) {
      int side;
      member *sender = sender_of(s, i, from, &side);
      CK_TRY(ck__gas_member_forward(sender->gas, side, m->gas, from,
                                    STAGE(m)->incoming[0],
                                    STAGE(m)->incoming[1], s->peers[from][i]));
      sender->bytes += (uint64_t)MIGRANT_BYTES * STAGE(m)->incoming[0][from] +
                       (uint64_t)GHOST_BYTES * STAGE(m)->incoming[1][from];
    }
  }
fail:
  return status;
}

/* A rebuild's messages received, each member's from its previous and its
 * next member, as entries of `ghost`'s kind: device to device, else by
 * the exchange. */
static ck_status deliver(ck__gas_spread *s, int ghost) {
  ck_status status = CK_OK;
  if (s->on_devices)
    return forward(s);
  CK_TRY(pass_both(s, 4 * (size_t)ck_gas_entry_words(ghost)));
  for (size_t i = 0; i < s->run.local; ++i)
    for (int from = 0; from < 2; ++from) {
      axis_link *l = STAGE(&s->members[i]);
      l->incoming[ghost][from] = (uint32_t)s->from[from][i].count;
      l->incoming[!ghost][from] = 0;
    }
fail:
  return status;
}

/* The entries received (incoming), appended on its device: from the
 * exchange's buffers past `skip` bytes of each message (room made
 * first), or as forward copied them. They go into the packed inbox past
 * its first `base` words, which stay. */
static ck_status admit(ck__gas_spread *s, member *m, size_t i, size_t skip,
                       uint32_t base) {
  ck_status status = CK_OK;
  const void *in[2] = {NULL, NULL};
  axis_link *l = STAGE(m);
  if (!s->on_devices) {
    for (int from = 0; from < 2; ++from)
      if (s->from[from][i].data)
        in[from] = (const unsigned char *)s->from[from][i].data + skip;
    CK_TRY(ck__gas_member_expect(&m->gas, incoming(s, m), base));
    s->run.queues[i] = ck__gas_member_queue(m->gas);
  }
  /* A stray is read back with the stage and the inbox word it came by. */
  m->stray_base = base << 1 | (uint32_t)s->stage;
  CK_TRY(ck__gas_member_admit(
      m->gas, l->incoming[0], l->incoming[1], s->on_devices ? NULL : in,
      l->border[PREVIOUS] - slack(s), l->border[NEXT] + slack(s), s->stage,
      base, &m->stray));
fail:
  return status;
}

/* The particles that left the slab, each way, posted with their new
 * owner's coordinates; they (and in stage 0 the old ghosts) are
 * dropped. */
static ck_status take_leavers(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  uint32_t counts[2];
  (void)i;
  CK_TRY(ck__gas_member_select(m->gas, 0, STAGE(m)->border[PREVIOUS],
                               STAGE(m)->border[NEXT], s->reach, s->stage,
                               counts));
  CK_TRY(post(s, m, counts, 0));
  CK_TRY(ck__gas_member_drop(m->gas, counts));
  m->own -= counts[0] + counts[1];
fail:
  return status;
}

/* The particles that arrived, as its own (none past its borders by more
 * than the slack), read on its queue (take_exports waits for it). */
static ck_status take_arrivals(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  CK_TRY(admit(s, m, i, 0, 0));
  m->own += STAGE(m)->incoming[0][PREVIOUS] + STAGE(m)->incoming[0][NEXT];
fail:
  return status;
}

/* Its exports (in stage 1 with stage 0's ghosts), posted each way as
 * ghosts; the last arrivals' stray checked. */
static ck_status take_exports(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  uint32_t counts[2];
  (void)i;
  /* The selection's wait reads the stray too. */
  CK_TRY(ck__gas_member_select(m->gas, 1, STAGE(m)->border[PREVIOUS],
                               STAGE(m)->border[NEXT], s->reach, s->stage,
                               counts));
  CK_TRY(check_stray(s, m));
  CK_TRY(post(s, m, counts, 1));
  STAGE(m)->exports[PREVIOUS] = counts[PREVIOUS];
  STAGE(m)->exports[NEXT] = counts[NEXT];
fail:
  return status;
}

/* Arrivals (take_arrivals), then exports (take_exports): one stage's
 * way through a rebuild of slabs. */
static ck_status take_arrivals_exports(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = take_arrivals(s, m, i);
  return status ? status : take_exports(s, m, i);
}

/* The ghosts a Verlet member takes before those of the stage in
 * progress: a grid's stage 1 follows stage 0's, in the packed inbox and
 * in the ghosts' slots (ck__gas_member_sort). */
static size_t ghosts_before(const ck__gas_spread *s, const member *m) {
  return s->stage ? m->link[0].ghosts[PREVIOUS] + m->link[0].ghosts[NEXT] : 0;
}

/* The ghosts that arrived (the previous member's, then the next's; stage
 * 1's past stage 0's in the packed inbox); at the last stage the sort
 * that drops the rest and finds them all, each stage's exports and
 * ghosts. */
static ck_status take_ghosts(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  uint32_t exports[4] = {0, 0, 0, 0};
  size_t ghosts[4] = {0, 0, 0, 0}, kept = m->own;
  CK_TRY(
      admit(s, m, i, 0, (uint32_t)(CK_GAS_GHOST_WORDS * ghosts_before(s, m))));
  for (int from = 0; from < 2; ++from)
    STAGE(m)->ghosts[from] = STAGE(m)->incoming[1][from];
  if (s->stage + 1 < s->stages)
    return CK_OK;
  for (int stage = 0; stage < s->stages; ++stage)
    for (int side = 0; side < 2; ++side) {
      exports[2 * stage + side] = m->link[stage].exports[side];
      ghosts[2 * stage + side] = m->link[stage].ghosts[side];
      kept += m->link[stage].ghosts[side];
    }
  CK_TRY(ck__gas_member_sort(m->gas, kept, exports, ghosts));
  /* Each slot's part of the forces until the next rebuild: a ghost that
   * arrived a hair inside the slab (slack) stays past the reach. */
  double borders[4] = {m->link[0].border[PREVIOUS], m->link[0].border[NEXT],
                       -NO_BORDER, NO_BORDER};
  if (s->stages > 1) {
    borders[2] = m->link[1].border[PREVIOUS];
    borders[3] = m->link[1].border[NEXT];
  }
  CK_TRY(ck__gas_member_parts(m->gas, borders, s->reach + 2 * slack(s)));
fail:
  return status;
}

/* Particles to their new owners, then the ghosts made again. A grid's
 * leavers move in both stages before any exports are chosen: an export
 * must stay its sender's until the next rebuild. */
static ck_status rebuild(ck__gas_spread *s) {
  ck_status status = CK_OK;
  if (s->stages == 1) {
    CK_TRY(each(s, take_leavers));
    CK_TRY(deliver(s, 0));
    CK_TRY(each(s, take_arrivals_exports));
    CK_TRY(deliver(s, 1));
    CK_TRY(each(s, take_ghosts));
    return CK_OK;
  }
  for (s->stage = 0; s->stage < s->stages; ++s->stage) {
    CK_TRY(each(s, take_leavers));
    CK_TRY(deliver(s, 0));
    CK_TRY(each(s, take_arrivals));
  }
  for (s->stage = 0; s->stage < s->stages; ++s->stage) {
    CK_TRY(each(s, take_exports));
    CK_TRY(deliver(s, 1));
    CK_TRY(each(s, take_ghosts));
  }
fail:
  s->stage = 0;
  return status;
}

/* ---- a step ---------------------------------------------------------------
 */

/* The exports' positions of the stage, and the flags. */
static ck_status pack(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  (void)i;
  /* On devices the positions stay there, for pass_on_devices. */
  for (int side = 0; side < 2; ++side)
    m->sends[side] = STAGE(m)->exports[side];
  CK_TRY(ck__gas_member_pack(m->gas, STAGE(m)->exports, STAGE(m)->shift,
                             s->stage, s->on_devices ? NULL : m->send,
                             m->flags));
  if (m->flags[2])
    CK_FAIL(CK_ERROR_DEVICE,
            "member %zu lost track of a ghost or an export at its last "
            "rebuild",
            m->index);
fail:
  return status;
}

/* The first half-step, then stage 0's exports' positions and the
 * flags. */
static ck_status drift_and_pack(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = ck__gas_member_drift(m->gas);
  return status ? status : pack(s, m, i);
}

/* Member m's ghosts from a side, `count` of them sent: as many as at its
 * last rebuild. */
static ck_status check_ghosts(const ck__gas_spread *s, const member *m,
                              int from, size_t count) {
  if (count == STAGE(m)->ghosts[from])
    return CK_OK;
  return ck__fail(CK_ERROR_EXCHANGE,
                  "member %zu received %zu ghosts, not the %zu of its last "
                  "rebuild",
                  m->index, count, STAGE(m)->ghosts[from]);
}

/* The ghosts' positions received: the previous member's, then the
 * next's, in the order of the last rebuild (a grid's stage 1 after stage
 * 0's). */
static ck_status unpack(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  const void *in[2];
  for (int from = 0; from < 2; ++from) {
    CK_TRY(check_ghosts(s, m, from, s->from[from][i].count));
    in[from] = s->from[from][i].data;
  }
  CK_TRY(
      ck__gas_member_unpack(m->gas, ghosts_before(s, m), STAGE(m)->ghosts, in));
fail:
  return status;
}

/* The ghosts' positions between rebuilds, device to device, from the
 * calling thread between phases: into each local member's ghost slots,
 * its previous member's then its next's, each queued straight from the
 * sender's packed exports (the member's own, alone in a periodic box). */
static ck_status pass_on_devices(ck__gas_spread *s) {
  ck_status status = CK_OK;
  size_t n = s->run.local;
  for (size_t i = 0; i < n; ++i) {
    member *m = &s->members[i];
    size_t first = 0;
    for (int from = 0; from < 2; ++from) {
      int side;
      member *sender = sender_of(s, i, from, &side);
      uint32_t count = STAGE(sender)->exports[side];
      CK_TRY(check_ghosts(s, m, from, count));
      CK_TRY(ck__gas_member_send(sender->gas, side, count, m->gas, first,
                                 s->peers[from][i]));
      sender->bytes += 2 * sizeof(float) * (uint64_t)count;
      first += count;
    }
  }
fail:
  return status;
}

/* The step's forces and kick (of phase_part's slots); energies too
 * where asked. The ghosts' positions that pass_on_devices copied are
 * unpacked first. */
static ck_status forces(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  (void)i;
  if (s->phase_unpack)
    CK_TRY(ck__gas_member_unpack(m->gas, 0, STAGE(m)->ghosts, NULL));
  CK_TRY(ck__gas_member_forces(m->gas, s->phase_part, s->phase_energy,
                               s->phase_step));
fail:
  return status;
}

/* A member's sums of ck__gas_steps.reduce and its overflow flag, and
 * with phase_census its census too (a phase: the members wait for their
 * devices at once). */
static ck_status observe_member(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  uint32_t overflow = 0;
  if (s->phase_census)
    CK_TRY(ck__gas_member_census(m->gas, s->census_of[i]));
  CK_TRY(ck__gas_member_sums(m->gas, s->sums_of[i], &overflow));
  s->sums_of[i][5] = overflow;
fail:
  return status;
}

static ck_status check_census(ck__gas_spread *s);

/* Every member's sums (observe_member), summed over all members; with
 * census 1, every member's census checked first. */
static ck_status all_sums(ck__gas_spread *s, int census, double sums[6]) {
  ck_status status = CK_OK;
  const double *rows[CK_SPREAD_MAX_LOCAL];
  s->phase_census = census;
  CK_TRY(each(s, observe_member));
  if (census)
    CK_TRY(check_census(s));
  for (size_t i = 0; i < s->run.local; ++i)
    rows[i] = s->sums_of[i];
  CK_TRY(ck__exchange_sum(s->run.exchange, rows, sums, 6));
fail:
  return status;
}

/* Velocities scaled to the target temperature, by the kinetic energy of
 * all members. */
static ck_status scale(ck__gas_spread *s, member *m, size_t i) {
  (void)i;
  return ck__gas_member_scale(m->gas, s->phase_factor);
}

static ck_status rescale(ck__gas_spread *s) {
  ck_status status = CK_OK;
  double sums[6];
  CK_TRY(all_sums(s, 0, sums));
  double temperature = 2.0 * sums[0] / s->dof;
  s->phase_factor =
      temperature > 0 ? sqrt(s->config.target_temperature / temperature) : 1;
  CK_TRY(each(s, scale));
fail:
  return status;
}

/* ---- cells mode: an exchange every step ----------------------------------
 *
 * Cell lists sort every step, as one device does: each member's leavers
 * go to their new owner (and stay here as its ghosts until the sort), and
 * every own particle within rc of a border goes to that neighbour as a
 * ghost, in one message each way; the old ghosts are dropped at the
 * sort. Where every member is a CUDA device of this process, the entries
 * stay on the devices: the host reads each outbox's counts alone, and
 * forward copies the entries device to device. */

/* A message's counts of leavers and ghosts, which follow it. */
typedef struct envelope {
  uint32_t migrants, ghosts;
} envelope;

/* The first half-step (with phase_move, in stage 0), then what goes each
 * way along the stage's axis: its leavers (whole) and its exports (as
 * ghosts; in stage 1 stage 0's ghosts too) for that neighbour, as its
 * device packed them; posted for forward, or read into one message each
 * way. */
static ck_status step_out(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  ck__gas_outbox box;
  (void)i;
  CK_TRY(ck__gas_member_leave(m->gas, s->stage ? 0 : s->phase_move,
                              STAGE(m)->border[PREVIOUS],
                              STAGE(m)->border[NEXT], s->reach, STAGE(m)->shift,
                              s->stage, !s->on_devices, &box));
  CK_TRY(check_stray(s, m)); /* the last admit's, read by the wait */
  assert(box.counts[0] + box.counts[1] <= m->own); /* leavers are its own */
  m->own -= box.counts[0] + box.counts[1];
  m->kept = (s->stage ? m->kept : 0) + box.counts[0] + box.counts[1];
  /* Regions 0 and 1 leave toward the previous and the next member; 2
   * and 3 are ghosts for them. */
  for (int side = 0; side < 2; ++side) {
    STAGE(m)->posted[0][side] = box.counts[side];
    STAGE(m)->posted[1][side] = box.counts[2 + side];
  }
  /* Through the host: one message each way, its envelope first. */
  for (int side = 0; side < 2 && !s->on_devices; ++side) {
    envelope head = {STAGE(m)->posted[0][side], STAGE(m)->posted[1][side]};
    size_t leavers = head.migrants * MIGRANT_BYTES;
    size_t bytes = sizeof head + leavers + head.ghosts * GHOST_BYTES;
    CK_TRY(ck__exchange_buffer_hold(&m->out[side], 1, bytes));
    unsigned char *out = m->out[side].data;
    memcpy(out, &head, sizeof head);
    memcpy(out + sizeof head, box.entries[side], leavers);
    memcpy(out + sizeof head + leavers, box.entries[2 + side],
           bytes - sizeof head - leavers);
    m->send[side] = out;
    m->sends[side] = bytes;
  }
fail:
  return status;
}

/* A message received (from[side][i]): its envelope, checked against its
 * size. */
static ck_status open_envelope(const ck__gas_spread *s, const member *m,
                               size_t i, int side, envelope *head) {
  const ck__exchange_buffer *in = &s->from[side][i];
  if (in->count >= sizeof *head)
    memcpy(head, in->data, sizeof *head);
  if (in->count < sizeof *head ||
      in->count != sizeof *head + head->migrants * MIGRANT_BYTES +
                       head->ghosts * GHOST_BYTES)
    return ck__fail(CK_ERROR_EXCHANGE,
                    "member %zu received a message of %zu bytes that does not "
                    "hold what it says",
                    m->index, in->count);
  return CK_OK;
}

/* The particles and ghosts that arrived (the messages' entries are in
 * ck_gas.h's layout, from the exchange's messages or as forward copied
 * them), appended on its device; after the last stage, the sort that
 * drops the old ghosts, and the step's forces and kick. */
static ck_status step_in(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  for (int side = 0; side < 2 && !s->on_devices; ++side) {
    envelope head;
    CK_TRY(open_envelope(s, m, i, side, &head));
    STAGE(m)->incoming[0][side] = head.migrants;
    STAGE(m)->incoming[1][side] = head.ghosts;
  }
  CK_TRY(admit(s, m, i, sizeof(envelope), 0));
  size_t arrived =
      (size_t)STAGE(m)->incoming[0][PREVIOUS] + STAGE(m)->incoming[0][NEXT];
  for (int side = 0; side < 2; ++side)
    STAGE(m)->ghosts[side] = STAGE(m)->incoming[1][side];
  m->own += arrived;
  if (s->stage + 1 < s->stages)
    return CK_OK;
  size_t kept = m->own + m->kept;
  for (int stage = 0; stage < s->stages; ++stage)
    kept += m->link[stage].ghosts[PREVIOUS] + m->link[stage].ghosts[NEXT];
  CK_TRY(ck__gas_member_resort(m->gas, kept));
  CK_TRY(ck__gas_member_forces(m->gas, 0, s->phase_energy, s->phase_step));
fail:
  return status;
}

/* The failure of a slab whose halo held an entry a cell or more inside
 * its borders (CK_GAS_OVERFLOW_INSIDE). */
static ck_status inside_failure(const ck__gas_spread *s, const member *m) {
  return ck__fail(CK_ERROR_MISMATCH,
                  "slab %zu of %zu received a particle half a cell or more "
                  "inside its borders, or farther than a cell past them: it "
                  "moved that far (at least rc / 2 = %g) in one step; the "
                  "time step is too large, or particles overlap",
                  m->index, s->total, 0.5 * s->config.rc);
}

/* After a call's last step in cells mode: what it admitted, checked. */
static ck_status settle(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  int inside = 0;
  (void)i;
  CK_TRY(ck_queue_finish(ck__gas_member_queue(m->gas)));
  CK_TRY(check_stray(s, m));
  CK_TRY(ck__gas_member_inside(m->gas, &inside));
  if (inside)
    CK_TRY(inside_failure(s, m));
fail:
  return status;
}

/* Cells mode's step: out, across, in; stage after stage. */
static ck_status cells_step(ck__gas_spread *s, uint64_t step, int last) {
  ck_status status = CK_OK;
  s->phase_move = step > 0;
  s->phase_step = step;
  s->phase_energy = last;
  for (s->stage = 0; s->stage < s->stages; ++s->stage) {
    CK_TRY(each(s, step_out));
    CK_TRY(s->on_devices ? forward(s) : pass_both(s, 1));
    CK_TRY(each(s, step_in));
  }
fail:
  s->stage = 0;
  return status;
}

/* Verlet mode's step: the ghosts' positions, or a rebuild. Returns 1 in
 * *rebuilt after a rebuild. */
static ck_status verlet_step(ck__gas_spread *s, uint64_t step, int last,
                             int *rebuilt) {
  ck_status status = CK_OK;
  CK_TRY(each(s, drift_and_pack));
  double moved[CK_SPREAD_MAX_LOCAL], anyone = 0;
  const double *rows[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < s->run.local; ++i) {
    moved[i] = s->members[i].flags[0] != 0;
    rows[i] = &moved[i];
  }
  CK_TRY(ck__exchange_sum(s->run.exchange, rows, &anyone, 1));
  *rebuilt = anyone > 0;
  s->phase_step = step;
  s->phase_energy = last;
  if (*rebuilt) {
    CK_TRY(rebuild(s));
    CK_TRY(each(s, forces));
    return CK_OK;
  }
  /* The interior's forces, queued first: they run while the ghosts'
   * positions cross; the border's follow. */
  s->phase_part = 1;
  CK_TRY(each(s, forces));
  if (s->on_devices) {
    CK_TRY(pass_on_devices(s));
    s->phase_unpack = 1;
  } else {
    /* A grid's stage 1 sends on stage 0's ghosts as they are now. */
    for (s->stage = 0; s->stage < s->stages; ++s->stage) {
      if (s->stage > 0)
        CK_TRY(each(s, pack));
      CK_TRY(pass_both(s, 2 * sizeof(float)));
      CK_TRY(each(s, unpack));
    }
    s->stage = 0;
  }
  s->phase_part = 2;
  CK_TRY(each(s, forces));
fail:
  s->phase_unpack = 0;
  s->phase_part = 0;
  s->stage = 0;
  return status;
}

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

/* A slab of this many particles or more sorts in two tiers, its
 * interior's forces computed while its neighbours' entries come
 * (cl/gas.cu): 4M particles a GPU stepped faster so, 200,000 slower
 * (the pull's blocks and their waits outlast half of a small interior). */
#define TWO_TIERS_FROM 2000000u

/* ---- resident steps between processes ------------------------------
 *
 * Where each process of an MPI job holds one member, all CUDA devices of
 * one node, resident steps go between processes as between the members
 * of one: each member's outbox and control words are opened by its
 * neighbours' processes (CUDA IPC), and its mark is an event they open.
 * The processes swap tickets (the handles) before each run of resident
 * steps and open them again where the buffers were made again (their
 * generation). The agreement that ends each phase (ck__spread_each)
 * orders each step's marks before the neighbours follow them. Where any
 * of this fails on any process, all go through the host from then on.
 */
typedef struct ipc_ticket {
  unsigned char packed[CK__IPC_HANDLE_BYTES];
  unsigned char control[CK__IPC_HANDLE_BYTES];
  unsigned char mark[CK__IPC_HANDLE_BYTES];
  uint64_t generation;
  uint32_t capacity, leavers, failed;
} ipc_ticket;

/* Whether resident steps may go between processes (collective): every
 * process holds one CUDA member, with CLKIT_PEER not 0; by CUDA IPC where
 * all are on one host, else by NCCL where every process has it. */
static ck_status between_decide(ck__gas_spread *s) {
  ck_status status = CK_OK;
  /* Each member's: whether it may take part, and its host's name. */
  struct {
    char able;
    char host[63];
  } mine, *all = NULL;
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i)
    pieces[i] = &mine;
  s->between = 0;
  if (ck__exchange_ranks(s->run.exchange) < 2)
    return CK_OK;
  memset(&mine, 0, sizeof mine);
  gethostname(mine.host, sizeof mine.host - 1);
  mine.able = s->run.local == 1 &&
              ck__device_shares_between_processes(&s->devices[0]) &&
              ck__peer_enabled() && s->config.neighbors == CK_GAS_CELLS &&
              s->stages == 1;
  all = calloc(s->total, sizeof mine);
  CK_TRY(ck__gas_spread_agree(
      s, all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory")));
  CK_TRY(ck__exchange_gather(s->run.exchange, pieces, sizeof mine, all));
  /* CLKIT_IPC=0: processes of one host go by NCCL too. */
  int able = 1, one_host = !ck__setting_off("CLKIT_IPC");
  for (size_t m = 0; m < s->total; ++m) {
    able = able && all[m].able;
    one_host = one_host && strcmp(all[m].host, all[0].host) == 0;
  }
  /* Whether NCCL can is known once the members' queues are made
   * (nccl_decide). */
  s->between = able;
  s->by_nccl = able && !one_host;
fail:
  free(all);
  return status;
}

static void ipc_close(ck__gas_spread *s, int side) {
  const ck_device *device = &s->devices[0];
  if (!s->ipc_from[side].alias) {
    ck__ipc_buffer_close(device, s->ipc_from[side].packed);
    ck__ipc_buffer_close(device, s->ipc_from[side].control);
    ck__ipc_event_close(s->ipc_from[side].mark);
  }
  memset(&s->ipc_from[side], 0, sizeof s->ipc_from[side]);
}

/* Opens what a ticket hands out, for this process's member. */
static ck_status ipc_open(ck__gas_spread *s, int side, const ipc_ticket *t) {
  ck_status status = CK_OK;
  ck_queue *queue = ck__gas_member_queue(s->members[0].gas);
  ipc_close(s, side);
  CK_TRY(ck__ipc_buffer_open(queue, t->packed, &s->ipc_from[side].packed));
  CK_TRY(ck__ipc_buffer_open(queue, t->control, &s->ipc_from[side].control));
  CK_TRY(ck__ipc_event_open(queue, t->mark, &s->ipc_from[side].mark));
  s->ipc_from[side].generation = t->generation;
fail:
  return status;
}

/* Whether the members' speeds need measuring (collective): not where
 * every member's device is of one model (backend, name, compute units
 * and clock). Equal shares serve those, and their steps go device to
 * device from the first; measuring goes through the host (about 0.2 s at
 * 8M particles over two H100s). */
static ck_status alike_decide(ck__gas_spread *s) {
  ck_status status = CK_OK;
  struct {
    int backend;
    unsigned compute_units, clock_mhz;
    char name[116];
  } mine[CK_SPREAD_MAX_LOCAL], *all = NULL;
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  if (!s->balancing)
    return CK_OK; /* alike on every process: the shares are the run's */
  memset(mine, 0, sizeof mine);
  for (size_t i = 0; i < s->run.local; ++i) {
    const ck_device *device = &s->devices[i];
    mine[i].backend = (int)device->backend;
    mine[i].compute_units = device->compute_units;
    mine[i].clock_mhz = device->clock_mhz;
    snprintf(mine[i].name, sizeof mine[i].name, "%s", device->name);
    pieces[i] = &mine[i];
  }
  all = calloc(s->total, sizeof mine[0]);
  CK_TRY(ck__gas_spread_agree(
      s, all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory")));
  CK_TRY(ck__exchange_gather(s->run.exchange, pieces, sizeof mine[0], all));
  int alike = 1;
  for (size_t m = 1; m < s->total; ++m)
    alike = alike && memcmp(&all[m], &all[0], sizeof all[0]) == 0;
  if (alike)
    s->balancing = 0;
fail:
  free(all);
  return status;
}

/* The entries of a leavers region that NCCL sends: four times the most
 * that a region held at the last settle and more, at most the capacity.
 * Few leave a slab in a step, so this sends a fraction of the region;
 * more leavers than that fail the run (CK_GAS_OVERFLOW_CROSSED). */
static uint32_t leavers_room(uint32_t most, uint32_t capacity) {
  uint64_t room = 4 * (uint64_t)most + 256;
  return room < capacity ? (uint32_t)room : capacity;
}
#if !CK_HAVE_NCCL
/* Without NCCL (gas_spread_cuda.c has it), by_nccl stays 0. */
ck_status ck__gas_spread_nccl_decide(ck__gas_spread *s) {
  s->between = s->by_nccl = 0;
  return CK_OK;
}
ck_status ck__gas_spread_mirror_make(ck__gas_spread *s, int side,
                                     uint32_t capacity, uint32_t leavers,
                                     ck__gas_source *source) {
  (void)s, (void)side, (void)capacity, (void)leavers, (void)source;
  return ck__fail(CK_ERROR_UNSUPPORTED, "NCCL, which this clkit lacks");
}
ck_status ck__gas_spread_nccl_swap(ck__gas_spread *s, member *m, int parity) {
  (void)s, (void)m, (void)parity;
  return ck__fail(CK_ERROR_UNSUPPORTED, "NCCL, which this clkit lacks");
}
#endif

/* The tickets swapped with both neighbours, and what changed opened, or
 * mirrors made for NCCL (collective). A failure anywhere sets between to
 * -1 on every process. */
static ck_status links_swap(ck__gas_spread *s) {
  ck_status status = CK_OK, made = CK_OK;
  member *m = &s->members[0];
  gas_state *state = ck__gas_state(m->gas);
  ipc_ticket mine, from[2];
  memset(&mine, 0, sizeof mine);
  /* A member without resident steps makes every process go through the
   * host (the members' steps agree). */
  if (!ck__gas_member_can_reside(m->gas))
    made = ck__fail(CK_ERROR_UNSUPPORTED, "no resident steps");
  if (made == CK_OK && !s->by_nccl && !s->ipc_mark)
    made = ck__ipc_event_make(state->queue, &s->ipc_mark, s->ipc_mark_handle);
  if (made == CK_OK && !s->by_nccl)
    made = ck__ipc_buffer_handle(state->out_packed, mine.packed);
  if (made == CK_OK && !s->by_nccl)
    made = ck__ipc_buffer_handle(state->member_control, mine.control);
  memcpy(mine.mark, s->ipc_mark_handle, sizeof mine.mark);
  mine.generation = s->ipc_generation;
  mine.capacity = state->message_capacity;
  s->leavers_sent = mine.leavers =
      s->by_nccl ? leavers_room(s->most_leavers[0], mine.capacity)
                 : mine.capacity;
  mine.failed = made != CK_OK;
  for (int side = 0; side < 2; ++side) {
    /* Forward: each member's to its next, received from the previous. */
    const void *send[1] = {&mine};
    size_t counts[1] = {1};
    CK_TRY(ck__exchange_pass(s->run.exchange, side == PREVIOUS, sizeof mine,
                             send, counts, &s->from[side][0]));
    if (s->from[side][0].count == 1)
      memcpy(&from[side], s->from[side][0].data, sizeof from[side]);
    else
      memset(&from[side], 0, sizeof from[side]), from[side].failed = 1;
  }
  size_t total = s->total, index = m->index;
  int same =
      ck__exchange_rank_of(s->run.exchange, (index + total - 1) % total) ==
      ck__exchange_rank_of(s->run.exchange, (index + 1) % total);
  for (int side = 0; side < 2 && made == CK_OK; ++side) {
    if (from[side].failed) {
      made = CK_ERROR_DEVICE;
      break;
    } else if (s->by_nccl) {
      made =
          ck__gas_spread_mirror_make(s, side, from[side].capacity,
                                     from[side].leavers, &s->sources[0][side]);
      continue;
    } else if (side == NEXT && same) {
      if (!s->ipc_from[NEXT].alias)
        ipc_close(s, NEXT);
      s->ipc_from[NEXT] = s->ipc_from[PREVIOUS];
      s->ipc_from[NEXT].alias = 1;
    } else if (from[side].generation != s->ipc_from[side].generation) {
      made = ipc_open(s, side, &from[side]);
    }
    s->sources[0][side].packed = s->ipc_from[side].packed;
    s->sources[0][side].control = s->ipc_from[side].control;
    s->sources[0][side].capacity = from[side].capacity;
    s->sources[0][side].leavers = from[side].leavers;
  }
  /* Through the host, on every process, where one failed. */
  double failed = made != CK_OK, any = 0;
  const double *rows[1] = {&failed};
  CK_TRY(ck__exchange_sum(s->run.exchange, rows, &any, 1));
  if (any > 0) {
    s->between = -1;
    for (int side = 1; side >= 0; --side)
      ipc_close(s, side);
  }
fail:
  return status;
}

/* Ends resident steps begun (ck__gas_member_reside) that go through the
 * host after all. */
static ck_status unreside(ck__gas_spread *s, member *m, size_t i) {
  uint32_t words[CK_GAS_CONTROL_WORDS];
  (void)s;
  (void)i;
  return ck__gas_member_settle(m->gas, words);
}

/* Where resident steps may go now. */
static int can_reside(const ck__gas_spread *s) {
  if (!(s->on_devices || s->between > 0) || !s->resident_ready ||
      s->balancing || s->config.neighbors != CK_GAS_CELLS)
    return 0;
  /* Between processes, links_swap agrees on the members' steps. */
  for (size_t i = 0; s->on_devices && i < s->run.local; ++i)
    if (!ck__gas_member_can_reside(s->members[i].gas) ||
        !ck__peer_direct(s->peers[PREVIOUS][i]) ||
        !ck__peer_direct(s->peers[NEXT][i]))
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
    s->ipc_generation += 1;
  }
  size_t slots = (size_t)state->particles +
                 4 * (size_t)state->message_capacity + state->particles / 64 +
                 256;
  CK_TRY(ck__gas_member_reserve(&m->gas, slots));
  s->run.queues[i] = ck__gas_member_queue(m->gas);
  if (m->gas != before)
    s->ipc_generation += 1;
fail:
  return status;
}

/* After a cells-mode step through the host (the first at a start): its
 * counts are the first to make room for resident steps by. */
static void ready_to_reside(ck__gas_spread *s) {
  int devices = s->on_devices || s->between > 0;
  for (size_t i = 0; devices && i < s->run.local; ++i) {
    const member *m = &s->members[i];
    s->most[i] = s->most_leavers[i] = 0;
    for (int kind = 0; kind < 2; ++kind)
      for (int side = 0; side < 2; ++side) {
        if (STAGE(m)->posted[kind][side] > s->most[i])
          s->most[i] = STAGE(m)->posted[kind][side];
        if (kind == 0 && STAGE(m)->posted[kind][side] > s->most_leavers[i])
          s->most_leavers[i] = STAGE(m)->posted[kind][side];
      }
  }
  s->resident_ready = devices;
}

/* Room by the most entries a region held when the member last settled
 * (before resident steps begin: a state made again keeps its forces, but
 * not the energies that a call's last step leaves for the observables),
 * then the resident steps begun. */
static ck_status reside(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  CK_TRY(make_room(s, m, i, s->most[i]));
  CK_TRY(ck__gas_member_reside(m->gas, m->own));
fail:
  return status;
}

/* The step's way out, and marks for both neighbours to follow. */
static ck_status resident_out(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  size_t n = s->run.local;
  ck_queue *queue = ck__gas_member_queue(m->gas);
  CK_TRY(ck__gas_member_go(m->gas, s->phase_parity, s->phase_move,
                           STAGE(m)->border[PREVIOUS], STAGE(m)->border[NEXT],
                           s->reach, STAGE(m)->shift, s->phase_tag));
  /* By NCCL, the swap follows in resident_in: no mark. By tags, none
   * either: the neighbours' devices wait for this one's tag. */
  if (s->between > 0 && !s->by_nccl) {
    CK_TRY(ck__ipc_event_record(s->ipc_mark, queue));
  } else if (s->between <= 0 && !s->by_tags) {
    /* The next member reads this one as its previous, and back. */
    CK_TRY(ck__peer_mark(s->peers[PREVIOUS][(i + 1) % n], queue));
    CK_TRY(ck__peer_mark(s->peers[NEXT][(i + n - 1) % n], queue));
  }
fail:
  return status;
}

/* The way in, after both neighbours' marks: the pull, the sort, forces
 * and the kick. */
static ck_status resident_in(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  ck_queue *queue = ck__gas_member_queue(m->gas);
  if (s->by_nccl)
    CK_TRY(ck__gas_spread_nccl_swap(s, m, s->phase_parity));
  for (int from = 0; from < 2 && !s->by_nccl && !s->by_tags; ++from)
    CK_TRY(s->between > 0 ? ck__ipc_event_wait(s->ipc_from[from].mark, queue)
                          : ck__peer_follow(s->peers[from][i], queue));
  CK_TRY(ck__gas_member_come(m->gas, s->phase_parity, s->sources[i],
                             STAGE(m)->border[PREVIOUS] - slack(s),
                             STAGE(m)->border[NEXT] + slack(s), s->phase_energy,
                             s->phase_step));
fail:
  return status;
}

/* Waits for the member's queue and checks what its control words say:
 * overflows, a stray; then room for the next resident steps. */
static ck_status resident_settle(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  uint32_t words[CK_GAS_CONTROL_WORDS];
  gas_state *state = ck__gas_state(m->gas);
  CK_TRY(ck__gas_member_settle(m->gas, words));
  /* Own particles and ghosts share the slots the last pull left. */
  assert(words[CK_GAS_CONTROL_OWN] <= words[CK_GAS_CONTROL_APPENDED] &&
         words[CK_GAS_CONTROL_APPENDED] <= state->slots);
  m->own = words[CK_GAS_CONTROL_OWN];
  /* By NCCL, the bytes sent were counted as they went (whole regions). */
  if (!s->by_nccl)
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
            m->index, s->total, s->sources[0][PREVIOUS].leavers,
            s->sources[0][NEXT].leavers);
  if (words[CK_GAS_CONTROL_FLAGS] & CK_GAS_OVERFLOW_INSIDE)
    CK_TRY(inside_failure(s, m));
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
    CK_TRY(stray_failure(s, m, 0, words[CK_GAS_CONTROL_STRAY],
                         ck_bits_as_float(words[CK_GAS_CONTROL_STRAY_X])));
  s->most[i] = s->most_leavers[i] = 0;
  for (int parity = 0; parity < 2; ++parity)
    for (int region = 0; region < 4; ++region) {
      uint32_t count = words[ck_gas_control_count(parity, region)];
      s->most[i] = count > s->most[i] ? count : s->most[i];
      if (region < 2 && count > s->most_leavers[i])
        s->most_leavers[i] = count;
    }
fail:
  return status;
}

/* Whether the members' steps wait for tags on their devices: every
 * local member's step can, and each has a GPU of its own, in one
 * process. Members that share a GPU (or ranks) follow marks instead: a
 * kernel's wait for another queue's work on its own GPU could hold the
 * blocks that work needs. */
static int by_tags(const ck__gas_spread *s) {
  size_t n = s->run.local;
  if (!s->on_devices || s->between != 0 || n < 2)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ck__gas_member_waits(s->members[i].gas))
      return 0;
    for (size_t j = 0; j < i; ++j)
      if (s->devices[j].device_index == s->devices[i].device_index)
        return 0;
  }
  return 1;
}

/* `count` resident steps, the last of them the call's last where `last`
 * (its energies kept); every member settles after them. *taken is the
 * steps taken: none where the processes' swap failed (they go through
 * the host from then on). */
static ck_status resident_steps(ck__gas_spread *s, uint64_t count, int last,
                                uint64_t *taken) {
  ck_status status = CK_OK;
  size_t n = s->run.local;
  *taken = 0;
  CK_TRY(each(s, reside));
  if (s->between > 0) {
    CK_TRY(links_swap(s));
    if (s->between < 0)
      return each(s, unreside);
  }
  for (size_t i = 0; s->on_devices && i < n; ++i)
    for (int from = 0, side; from < 2; ++from)
      CK_TRY(ck__gas_member_source(sender_of(s, i, from, &side)->gas,
                                   s->peers[from][i], &s->sources[i][from]));
  s->by_tags = by_tags(s);
  *taken = count;
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t step = s->step + 1;
    /* Tags only where the devices wait for them; 0 is always there. */
    s->phase_tag = s->by_tags ? (uint32_t)k + 1u : 0u;
    s->phase_move = 1;
    s->phase_parity = (int)(step % 2);
    s->phase_step = step;
    s->phase_energy = last && k + 1 == count;
    CK_TRY(each(s, resident_out));
    CK_TRY(each(s, resident_in));
    s->step = step;
    s->resident_steps += 1;
  }
  CK_TRY(each(s, resident_settle));
fail:
  /* NCCL's calls queued here may wait for partners that never come. */
  if (status != CK_OK && s->by_nccl)
    ck__exchange_abort_devices(s->run.exchange);
  return status;
}

uint64_t ck__gas_spread_resident_steps(const ck__gas_spread *s) {
  return s->resident_steps;
}

static ck_status balance(ck__gas_spread *s);

ck_status ck__gas_spread_step(ck__gas_spread *s, uint64_t steps) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  if (s->balancing && s->measuring && s->measured_steps >= BALANCE_STEPS)
    CK_TRY(balance(s));
  for (uint64_t k = 0; k < steps; ++k) {
    uint64_t step = s->step + 1;
    if (can_reside(s)) {
      /* Up to a settle: at most RESIDENT_STEPS, and a rescale's step. */
      uint64_t count = steps - k < RESIDENT_STEPS ? steps - k : RESIDENT_STEPS;
      if (c->thermostat == CK_GAS_RESCALE) {
        uint64_t due = c->rescale_every - (step - 1) % c->rescale_every;
        count = due < count ? due : count;
      }
      uint64_t taken = 0;
      CK_TRY(resident_steps(s, count, k + count == steps, &taken));
      if (taken > 0) {
        s->settled = 1;
        if (c->thermostat == CK_GAS_RESCALE && s->step % c->rescale_every == 0)
          CK_TRY(rescale(s));
        k += taken - 1;
        continue;
      }
    }
    /* Energies are read only after the last step of a call. */
    int last = k + 1 == steps, rebuilt = 1;
    s->settled = 0;
    if (c->neighbors == CK_GAS_CELLS)
      CK_TRY(cells_step(s, step, last));
    else
      CK_TRY(verlet_step(s, step, last, &rebuilt));
    if (c->neighbors == CK_GAS_CELLS && !s->resident_ready)
      ready_to_reside(s);
    ++s->measured_steps;
    if (rebuilt && !s->measuring && s->measured_steps >= BALANCE_WARMUP) {
      for (size_t i = 0; i < s->run.local; ++i)
        s->measured_from[i] = s->run.compute_s[i];
      s->measuring = 1;
      s->measured_steps = 0;
    }
    if (c->thermostat == CK_GAS_RESCALE && step % c->rescale_every == 0)
      CK_TRY(rescale(s));
    s->step = step;
  }
  /* Resident steps settle as they end; a step through the host here. */
  if (c->neighbors == CK_GAS_CELLS && steps > 0 && !s->settled)
    CK_TRY(each(s, settle));
fail:
  return status;
}

uint64_t ck__gas_spread_steps(const ck__gas_spread *s) {
  return s->step;
}

int ck__gas_spread_on_devices(const ck__gas_spread *s) {
  return s->on_devices;
}

/* Every member's census, checked against the run's particles: a particle
 * lost, doubled or given another id at a border is never silent. */
static ck_status check_census(ck__gas_spread *s) {
  ck_status status = CK_OK;
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *all = calloc(3 * s->total, sizeof *all);
  CK_TRY(ck__gas_spread_agree(
      s, all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  for (size_t i = 0; i < s->run.local; ++i)
    pieces[i] = s->census_of[i];
  CK_TRY(ck__exchange_gather(s->run.exchange, pieces, sizeof s->census_of[0],
                             all));
  uint64_t sum[3] = {0, 0, 0};
  for (size_t m = 0; m < s->total; ++m)
    for (int q = 0; q < 3; ++q)
      sum[q] += all[3 * m + (size_t)q];
  if (sum[0] != s->census[0] || sum[1] != s->census[1] ||
      sum[2] != s->census[2])
    CK_FAIL(CK_ERROR_MISMATCH,
            "the slabs hold %llu particles (id sum %llu), not the run's %llu "
            "(id sum %llu): a particle was lost or doubled between members",
            (unsigned long long)sum[0], (unsigned long long)sum[1],
            (unsigned long long)s->census[0], (unsigned long long)s->census[1]);
fail:
  free(all);
  return status;
}

ck_status ck__gas_spread_sums(ck__gas_spread *s, double sums[5],
                              uint32_t *overflowed, uint32_t *capacity) {
  ck_status status = CK_OK;
  double all[6];
  CK_TRY(all_sums(s, 1, all));
  /* Sums along the cut and across: momentum x and y back in order. */
  memcpy(sums, all, 3 * sizeof *sums);
  sums[3] = all[3 + s->axis];
  sums[4] = all[4 - s->axis];
  *overflowed = all[5] > 0;
  *capacity = ck__gas_state(s->members[0].gas)->list_capacity;
fail:
  return status;
}

/* ---- making and dealing -------------------------------------------------- */

ck_status ck__gas_spread_check(const ck_gas_config *config) {
  if (config->model != CK_GAS_LENNARD_JONES)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.model: only the Lennard-Jones model "
                    "spreads over devices (the soft-log model has no "
                    "cutoff to cut the box at)");
  if (config->neighbors == CK_GAS_ALL_PAIRS)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.neighbors: all pairs does not spread over "
                    "devices; use cell lists or Verlet lists");
  if (config->particles > CK_GAS_FROM_NEXT)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.particles: %zu particles; a spread run "
                    "holds at most 2^30",
                    config->particles);
  return CK_OK;
}

static void close_peers(ck__gas_spread *s) {
  for (int from = 0; from < 2; ++from)
    for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i) {
      ck__peer_close(s->peers[from][i]);
      s->peers[from][i] = NULL;
    }
}

/* Copies without the host into each local member from its neighbours
 * (modulo the members, as ck__exchange_pass pairs them), where all
 * members are CUDA devices of this one process: every one, or none. */
static ck_status open_peers(ck__gas_spread *s) {
  ck_status status = CK_OK;
  size_t n = s->run.local;
  int all = ck__exchange_ranks(s->run.exchange) == 1;
  for (size_t i = 0; all && i < n; ++i)
    for (int from = 0; all && from < 2; ++from) {
      size_t sender = from == PREVIOUS ? (i + n - 1) % n : (i + 1) % n;
      CK_TRY(ck__peer_open(&s->devices[sender], &s->devices[i],
                           &s->peers[from][i]));
      all = s->peers[from][i] != NULL;
    }
  if (!all)
    close_peers(s);
fail:
  return status;
}

ck_status ck__gas_spread_begin(const ck_spread *spread, ck__gas_spread **made) {
  ck_status status = CK_OK;
  ck__gas_spread *s = calloc(1, sizeof *s);
  *made = NULL;
  if (!s)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin_shared(spread, "particles", &s->run));
  ck__spread_run *run = &s->run;
  memcpy(s->devices, spread->devices, run->local * sizeof *s->devices);
  run->devices = s->devices;
  s->total = ck__exchange_members(run->exchange);
  s->members = calloc(run->local, sizeof *s->members);
  s->weights = calloc(s->total, sizeof *s->weights);
  s->bounds = calloc(s->total + 1, sizeof *s->bounds);
  s->bounds_y = calloc(s->total + 1, sizeof *s->bounds_y);
  if (!s->members || !s->weights || !s->bounds || !s->bounds_y)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* The shares, else equal: each slab holds its share of the particles. */
  ck__spread_fractions(spread->shares, s->total, s->weights);
  s->balancing = !spread->shares && s->total > 1;
  s->room_for_tests = (uint32_t)ck__test_value(CK__TEST_GAS_ROOM);
  size_t tiers_from = ck__test_value(CK__TEST_GAS_TIERS_FROM);
  s->tiers_forced = tiers_from != 0;
  s->tiers_from = s->tiers_forced ? tiers_from : TWO_TIERS_FROM;
  CK_TRY(open_peers(s));
  *made = s;
  return CK_OK;
fail:
  ck__gas_spread_destroy(s);
  return status;
}

/* A coordinate into [0, side) (periodic). */
static double wrap(double x, double side) {
  if (x >= side || x < 0)
    x -= side * floor(x / side);
  return x >= side || x < 0 ? 0 : x;
}

/* The side of the box along the cut, and across it. */
static double along(const ck__gas_spread *s) {
  return s->axis ? s->config.box_y : s->config.box_x;
}
static double across(const ck__gas_spread *s) {
  return s->axis ? s->config.box_x : s->config.box_y;
}

/* Particle k's coordinate along the cut (a = 0) or across it (a = 1), in
 * the box. */
static double coordinate(const ck__gas_spread *s, const double *positions,
                         size_t k, int a) {
  double u = positions[2 * k + (size_t)(a ? 1 - s->axis : s->axis)];
  return s->config.walls ? u : wrap(u, a ? across(s) : along(s));
}

/*
 * How the box is cut: in slabs across its longer side where each can be
 * at least twice the reach wide, so that a particle is a ghost of one
 * neighbour at most and nothing crosses two borders between rebuilds.
 * Else in a grid of columns and rows, each box twice the reach both ways,
 * the squarest such grid. Refused where none fits, or where the shares
 * differ: a grid's boxes hold as many particles each.
 */
static ck_status choose_grid(ck__gas_spread *s) {
  double narrowest = 2 * s->reach, best = 0;
  double length = along(s), width = across(s);
  int grids = 0; /* the ways to deal the members in columns and rows */
  s->grid[0] = s->total;
  s->grid[1] = 1;
  s->stages = 1;
  if (length >= (double)s->total * narrowest)
    return CK_OK;
  /* A grid's columns run along x and its rows along y. */
  s->axis = 0;
  for (size_t columns = 2; columns <= s->total / 2; ++columns) {
    size_t rows = s->total / columns;
    if (columns * rows != s->total)
      continue;
    grids += 1;
    double x = s->config.box_x / (double)columns;
    double y = s->config.box_y / (double)rows;
    if (fmin(x, y) >= narrowest && fmin(x, y) > best) {
      best = fmin(x, y);
      s->grid[0] = columns;
      s->grid[1] = rows;
    }
  }
  s->stages = best > 0 ? 2 : 1;
  for (size_t m = 1; best > 0 && m < s->total; ++m)
    if (s->weights[m] != s->weights[0])
      return ck__fail(
          CK_ERROR_INVALID_ARGUMENT,
          "ck_spread.shares: %zu members cut the box (%g by %g) in a "
          "grid of %zu by %zu boxes (slabs would be narrower "
          "than 2 (rc + skin) = %g), and a grid's boxes hold "
          "as many particles each: give equal shares, or none",
          s->total, s->config.box_x, s->config.box_y, s->grid[0], s->grid[1],
          narrowest);
  if (best > 0)
    return CK_OK;
  return ck__fail(
      CK_ERROR_INVALID_ARGUMENT,
      "ck_gas_config.rc: %zu members cannot cut the box (%g by %g): slabs "
      "across its %g side, or the boxes of a grid of them, must be at least "
      "2 (rc + skin) = %g wide each way, and %s: use fewer devices (or a "
      "count with factors, for a grid), a larger box, or a smaller rc or "
      "skin",
      s->total, s->config.box_x, s->config.box_y, fmax(length, width),
      narrowest,
      grids ? "no grid of them fits"
            : "they make no grid of 2 or more "
              "columns and rows");
}

/* The bin of a histogram of `bins` over [0, length) that holds u: a
 * function that never decreases with u, so that the bins keep the
 * coordinates' order. */
static size_t bin_of(double u, double length, size_t bins) {
  double bin = u / length * (double)bins;
  return bin > 0 ? (bin < (double)bins ? (size_t)bin : bins - 1) : 0;
}

static int ascending_reals(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/*
 * The border along axis a that leaves `wanted` particles below it (0 <
 * wanted < n), or as near that as their coordinates allow: particles at
 * one coordinate (a lattice's row) stay on one side, the lower count on
 * a tie. It lies halfway between the last particle below it and the
 * first above. The particle of rank `wanted` is found in its bin of the
 * histogram (bins of them, the counts of each), whose particles alone
 * are sorted; *scratch grows to hold them.
 */
static ck_status border_at(const ck__gas_spread *s, const double *positions,
                           int a, const uint64_t *histogram, size_t bins,
                           uint64_t wanted, double **scratch, size_t *capacity,
                           double *border) {
  double length = a ? across(s) : along(s);
  size_t n = s->config.particles, b = 0;
  uint64_t before = 0;
  while (before + histogram[b] <= wanted)
    before += histogram[b++];
  if (histogram[b] > *capacity) {
    double *grown = realloc(*scratch, histogram[b] * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    *scratch = grown;
    *capacity = histogram[b];
  }
  size_t held = 0;
  for (size_t k = 0; k < n; ++k) {
    double u = coordinate(s, positions, k, a);
    if (bin_of(u, length, bins) == b)
      (*scratch)[held++] = u;
  }
  qsort(*scratch, held, sizeof **scratch, ascending_reals);
  double v = (*scratch)[wanted - before];
  /* The particles below v, at v, and their neighbours on either side. */
  uint64_t below = 0, at = 0;
  double lower = -INFINITY, upper = INFINITY;
  for (size_t k = 0; k < n; ++k) {
    double u = coordinate(s, positions, k, a);
    below += u < v;
    at += u == v;
    if (u < v && u > lower)
      lower = u;
    if (u > v && u < upper)
      upper = u;
  }
  /* Below every particle at v, or above them all: the nearer count. */
  int under = wanted - below <= below + at - wanted;
  double from = under ? lower : v, to = under ? v : upper;
  if (under && below == 0)
    *border = 0;
  else if (!under && below + at == n)
    *border = length;
  else {
    *border = from + 0.5 * (to - from);
    if (!(*border > from))
      *border = to; /* neighbours one rounding apart */
  }
  return CK_OK;
}

/*
 * The borders of `count` slabs along the cut (a = 0) or across it (a =
 * 1), into bounds (count + 1): each holds its share of the particles
 * (weights, which sum to 1), as ck__spread_apportion counts it, as
 * nearly as their coordinates allow (border_at), and is at least twice
 * the reach wide (choose_grid saw that the side holds them).
 */
static ck_status cut_slabs(ck__gas_spread *s, const double *positions, int a,
                           size_t count, const double *weights,
                           double *bounds) {
  ck_status status = CK_OK;
  double length = a ? across(s) : along(s), narrowest = 2 * s->reach;
  size_t n = s->config.particles, capacity = 0;
  size_t bins = (size_t)fmin(1e7, fmax(1, ceil(length / (0.25 * s->reach))));
  uint64_t *histogram = calloc(bins, sizeof *histogram);
  uint64_t *counts = calloc(count, sizeof *counts);
  double *quotas = calloc(count, sizeof *quotas), *scratch = NULL;
  if (!histogram || !counts || !quotas)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t k = 0; k < n; ++k)
    histogram[bin_of(coordinate(s, positions, k, a), length, bins)] += 1;
  for (size_t m = 0; m < count; ++m)
    quotas[m] = weights[m] * (double)n;
  ck__spread_apportion(quotas, count, n, 0, counts);
  bounds[0] = 0;
  bounds[count] = length;
  uint64_t wanted = 0;
  for (size_t m = 1; m < count; ++m) {
    wanted += counts[m - 1];
    if (wanted == 0 || wanted >= n)
      bounds[m] = wanted == 0 ? 0 : length;
    else
      CK_TRY(border_at(s, positions, a, histogram, bins, wanted, &scratch,
                       &capacity, &bounds[m]));
  }
  /* At least the narrowest: pushed up from below, then down from above. */
  for (size_t m = 1; m < count; ++m)
    bounds[m] = fmax(bounds[m], bounds[m - 1] + narrowest);
  for (size_t m = count - 1; m > 0; --m)
    bounds[m] = fmin(bounds[m], bounds[m + 1] - narrowest);
  /* The side is long enough (choose_grid): every slab is the narrowest or
   * more, up to rounding. */
  for (size_t m = 0; m < count; ++m)
    assert(bounds[m + 1] - bounds[m] >= narrowest * (1 - 1e-9));
fail:
  free(histogram);
  free(counts);
  free(quotas);
  free(scratch);
  return status;
}

/* The box cut: slabs by the weights (the shares, or the speeds a probe
 * measured), or a grid's columns and rows, each holding as many
 * particles. */
static ck_status cut_box(ck__gas_spread *s, const double *positions) {
  ck_status status = CK_OK;
  double *equal = NULL;
  if (s->stages == 1) {
    ck__spread_fractions(s->weights, s->total, s->weights);
    return cut_slabs(s, positions, 0, s->total, s->weights, s->bounds);
  }
  equal = malloc(s->total * sizeof *equal);
  if (!equal)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int a = 0; a < 2; ++a) {
    for (size_t m = 0; m < s->grid[a]; ++m)
      equal[m] = 1.0 / (double)s->grid[a];
    CK_TRY(cut_slabs(s, positions, a, s->grid[a], equal,
                     a ? s->bounds_y : s->bounds));
  }
fail:
  free(equal);
  return status;
}

/* Whether cell `at` of `count` along an axis has a neighbour on a side:
 * always in a periodic box; with walls, all but the first before and the
 * last after. */
static int has_neighbour(const ck__gas_spread *s, size_t at, size_t count,
                         int side) {
  return !s->config.walls || (side == PREVIOUS ? at > 0 : at + 1 < count);
}

/* Where cell `at` of `count` along an axis starts its box: the reach and
 * the pad before its slab, or its slab at a wall. */
static double origin_of(const ck__gas_spread *s, const double *bounds,
                        size_t at, size_t count) {
  double lo = bounds[at];
  return has_neighbour(s, at, count, PREVIOUS) ? lo - s->reach - s->pad : lo;
}

/* A member's place along axis a (0: the cut, 1: y in a grid), where it is
 * cell `at` of `count` and its neighbours there are `stride` members
 * apart: its slab, its box, and what it adds to what it sends. */
static void place_along(const ck__gas_spread *s, axis_link *l, int a,
                        size_t index, size_t at, size_t count, size_t stride) {
  const double *bounds = a ? s->bounds_y : s->bounds;
  double length = a ? across(s) : along(s), margin = s->reach + s->pad;
  int first = at == 0, last = at + 1 == count;
  int has[2] = {has_neighbour(s, at, count, PREVIOUS),
                has_neighbour(s, at, count, NEXT)};
  size_t previous = (at + count - 1) % count, next = (at + 1) % count;
  l->neighbour[PREVIOUS] = index - at * stride + previous * stride;
  l->neighbour[NEXT] = index - at * stride + next * stride;
  l->lo = bounds[at];
  l->hi = bounds[at + 1];
  l->origin = origin_of(s, bounds, at, count);
  l->side = (has[NEXT] ? l->hi + margin : l->hi) - l->origin;
  l->border[PREVIOUS] = has[PREVIOUS] ? l->lo - l->origin : -NO_BORDER;
  l->border[NEXT] = has[NEXT] ? l->hi - l->origin : NO_BORDER;
  /* To a neighbour's coordinates: from this box's start to its, across
   * the periodic edge where the neighbour is at the other end. */
  l->shift[PREVIOUS] =
      l->origin - origin_of(s, bounds, previous, count) + (first ? length : 0);
  l->shift[NEXT] =
      l->origin - origin_of(s, bounds, next, count) - (last ? length : 0);
}

/* Member i's slab (or box), along the cut and, in a grid, along y. A
 * grid's member m is column m % columns of row m / columns. */
static void place_member(ck__gas_spread *s, member *m, size_t i) {
  size_t columns = s->grid[0];
  m->index = ck__exchange_first(s->run.exchange) + i;
  m->stray = CK_GAS_NO_STRAY;
  m->stray_base = 0;
  place_along(s, &m->link[0], 0, m->index, m->index % columns, columns, 1);
  if (s->stages > 1)
    place_along(s, &m->link[1], 1, m->index, m->index / columns, s->grid[1],
                columns);
}

/* The run's own walls at a member's ends along an axis (ck_gas_reflect's
 * bits). */
static int walls_along(const ck__gas_spread *s, size_t at, size_t count) {
  return s->config.walls ? (at == 0 ? 1 : 0) | (at + 1 == count ? 2 : 0) : 0;
}

/* Member i's device state, made to hold its particles and ghosts. */
static ck_status make_member(ck__gas_spread *s, member *m, size_t i,
                             size_t own) {
  ck_gas_config c = s->config;
  int grid = s->stages > 1;
  size_t columns = s->grid[0];
  /* Ghosts of both sides (and of both ways in a grid) at the run's
   * density, and some to spare. */
  double width = grid ? m->link[1].side : across(s);
  double ghosts = 2.0 * c.density * s->reach * width * 1.5;
  if (grid)
    ghosts += 2.0 * c.density * s->reach * m->link[0].side * 1.5;
  size_t messages = (size_t)(ghosts / 2) + 256;
  c.particles = own + (size_t)ghosts + own / 8 + 256;
  /* Tests start the outboxes and the slots small, to see them grow. */
  if (s->room_for_tests) {
    messages = s->room_for_tests;
    c.particles = own + s->room_for_tests;
  }
  c.box_x = m->link[0].side;
  c.box_y = width;
  c.xyz_path = NULL;
  if (c.thermostat == CK_GAS_RESCALE)
    c.thermostat = CK_GAS_NVE; /* the spread rescales over all members */
  if (messages > UINT32_MAX / 4)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%zu ghosts a border", messages);
  /* The run's own walls along the cut (and along y in a grid): before the
   * first slab and past the last. */
  int walls_x = walls_along(s, m->index % columns, columns);
  int walls_y = grid ? walls_along(s, m->index / columns, s->grid[1]) : -1;
  /* Two tiers where the steps go device to device: through the host each
   * step would also gather and sort the halo apart (4 GPUs reached 62%
   * weak so, 70% in one tier). Tests may ask for them every way. */
  int devices = s->on_devices || s->between > 0 || s->tiers_forced;
  int tiers =
      !grid && devices && s->config.particles / s->total >= s->tiers_from;
  ck_status status =
      ck__gas_member_make(&s->devices[i], &c, s->forms, (uint32_t)messages,
                          walls_x, walls_y, tiers, 0, &m->gas);
  if (status == CK_OK)
    s->run.queues[i] = ck__gas_member_queue(m->gas);
  return status;
}

/* Whether member m holds the particle at u along the cut and v across
 * it (the box's far ends belong to the last slab). */
static int holds(const ck__gas_spread *s, const member *m, double u, double v) {
  const axis_link *x = &m->link[0], *y = &m->link[1];
  if (!(u >= x->lo && (u < x->hi || x->hi >= along(s))))
    return 0;
  return s->stages == 1 || (v >= y->lo && (v < y->hi || y->hi >= across(s)));
}

/* Member i's slab, and its device state for the particles in it, its
 * memory taken but its programs not built yet. */
static ck_status make_slab(ck__gas_spread *s, member *m, size_t i,
                           const double *positions) {
  place_member(s, m, i);
  m->own = 0;
  for (size_t k = 0; k < s->config.particles; ++k)
    m->own += holds(s, m, coordinate(s, positions, k, 0),
                    coordinate(s, positions, k, 1));
  return make_member(s, m, i, m->own);
}

/* Member i's programs, then its own particles from the whole run's, in
 * its coordinates. */
static ck_status take_particles(ck__gas_spread *s, member *m, size_t i,
                                const double *positions,
                                const double *velocities) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  int a = s->axis;
  size_t own = m->own;
  double across_origin = s->stages > 1 ? m->link[1].origin : 0;
  CK_TRY(ck__gas_member_build(m->gas));
  CK_TRY(hold_scratch(s, i, own, 4));
  uint32_t *words = s->words[i].data;
  float *reals = s->reals[i].data;
  size_t at = 0;
  for (size_t k = 0; k < c->particles && at < own; ++k) {
    double u = coordinate(s, positions, k, 0);
    double v = coordinate(s, positions, k, 1);
    if (!holds(s, m, u, v))
      continue;
    words[at] = (uint32_t)k;
    reals[4 * at] = (float)(u - m->link[0].origin);
    reals[4 * at + 1] = (float)(v - across_origin);
    reals[4 * at + 2] = (float)velocities[2 * k + (size_t)a];
    reals[4 * at + 3] = (float)velocities[2 * k + 1 - (size_t)a];
    ++at;
  }
  assert(at == own); /* make_slab counted them with the same test */
  CK_TRY(ck__gas_member_append(m->gas, own, words, reals, 4, 0));
fail:
  return status;
}

/* The first ghosts: each member's exports, as at a rebuild. */
static ck_status first_exports(ck__gas_spread *s, member *m, size_t i) {
  memset(STAGE(m)->incoming, 0, sizeof STAGE(m)->incoming);
  s->from[PREVIOUS][i].count = s->from[NEXT][i].count = 0;
  return take_exports(s, m, i);
}

/* The run's particles dealt to slabs cut by the weights: each member's
 * own, then its first ghosts and forces. */
typedef struct deal_call {
  ck__gas_spread *spread;
  const double *positions, *velocities;
  int fill; /* 0: make the slabs' states; 1: build them and fill them */
} deal_call;

static ck_status deal_member(void *context, size_t i) {
  const deal_call *call = context;
  ck__gas_spread *s = call->spread;
  if (!call->fill)
    return make_slab(s, &s->members[i], i, call->positions);
  return take_particles(s, &s->members[i], i, call->positions,
                        call->velocities);
}

/* The members agree that all of their states fit before any builds its
 * programs (which can take seconds): a member too small for its slab is
 * reported at once. */
static ck_status deal(ck__gas_spread *s, const double *positions,
                      const double *velocities) {
  ck_status status = CK_OK;
  deal_call call = {s, positions, velocities, 0};
  CK_TRY(cut_box(s, positions));
  CK_TRY(ck__spread_each(&s->run, deal_member, &call));
  call.fill = 1;
  CK_TRY(ck__spread_each(&s->run, deal_member, &call));
  s->resident_ready = 0;
  s->ipc_generation += 1; /* every member made anew */
  if (s->config.neighbors == CK_GAS_CELLS) {
    /* The first ghosts, and forces without a kick. */
    CK_TRY(cells_step(s, 0, 1));
    ready_to_reside(s);
  } else {
    for (s->stage = 0; s->stage < s->stages; ++s->stage) {
      CK_TRY(each(s, first_exports));
      CK_TRY(deliver(s, 1));
      CK_TRY(each(s, take_ghosts));
    }
    s->stage = 0;
    s->phase_step = 0;
    s->phase_energy = 1;
    CK_TRY(each(s, forces));
  }
  s->measuring = 0;
  s->measured_steps = 0;
fail:
  s->stage = 0;
  return status;
}

/* The slabs cut again by the members' speeds over the steps since the
 * last cut, where that shortens a step by BALANCE_GAIN or more: every
 * particle gathered and dealt anew (collective). */
static ck_status balance(ck__gas_spread *s) {
  ck_status status = CK_OK;
  double mine[CK_SPREAD_MAX_LOCAL][2];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  double *all = calloc(2 * s->total, sizeof *all);
  double *positions = NULL, *velocities = NULL;
  CK_TRY(ck__gas_spread_agree(
      s, all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory")));
  for (size_t i = 0; i < s->run.local; ++i) {
    mine[i][0] = (double)s->members[i].own;
    mine[i][1] = s->run.compute_s[i] - s->measured_from[i];
    pieces[i] = mine[i];
  }
  CK_TRY(ck__exchange_gather(s->run.exchange, pieces, sizeof mine[0], all));
  double seconds = 0, slowest = 0, speed = 0;
  for (size_t m = 0; m < s->total; ++m) {
    seconds += all[2 * m + 1];
    slowest = fmax(slowest, all[2 * m + 1]);
  }
  if (seconds < BALANCE_SECONDS)
    goto fail; /* every process decides alike, from the same figures */
  s->balancing = 0;
  /* Each member's particles a second; cut so that all take as long. */
  for (size_t m = 0; m < s->total; ++m) {
    double rate = all[2 * m + 1] > 0 ? all[2 * m] / all[2 * m + 1] : 0;
    s->weights[m] = rate > 0 ? rate : 1e-9;
    speed += rate;
  }
  double balanced = speed > 0 ? (double)s->config.particles / speed : slowest;
  if (!(balanced < (1 - BALANCE_GAIN) * slowest))
    goto fail;
  size_t n = s->config.particles;
  positions = malloc(2 * n * sizeof *positions);
  velocities = malloc(2 * n * sizeof *velocities);
  CK_TRY(ck__gas_spread_agree(
      s, positions && velocities
             ? CK_OK
             : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                        "out of memory for %zu particles", n)));
  CK_TRY(ck__gas_spread_particles(s, positions, velocities, NULL, NULL, NULL));
  for (size_t i = 0; i < s->run.local; ++i) {
    member *m = &s->members[i];
    ck_gas_destroy(m->gas);
    m->gas = NULL;
    s->run.queues[i] = NULL;
  }
  CK_TRY(deal(s, positions, velocities));
fail:
  free(all);
  free(positions);
  free(velocities);
  return status;
}

ck_status ck__gas_spread_start(ck__gas_spread *s, const ck_gas_config *config,
                               uint64_t step, ck__gas_forms forms,
                               const double *positions,
                               const double *velocities) {
  ck_status status = CK_OK;
  ck__spread_run *run = &s->run;
  s->config = *config;
  s->config.xyz_path = NULL;
  s->forms = forms;
  s->forms.fine_cells = 0;
  s->step = step;
  s->axis = config->box_y > config->box_x;
  /* Ghosts within the interaction range of a border, which cell lists
   * send again every step (with a hair to spare for the rounding of the
   * coordinates' shift), and Verlet lists at rebuilds, the skin added. */
  s->reach = config->neighbors == CK_GAS_CELLS ? config->rc * (1 + 1e-4)
                                               : config->rc + config->skin;
  s->pad = config->skin;
  s->dof = ck__gas_degrees_of_freedom(config);
  CK_TRY(choose_grid(s));
  /* A grid's members go through the host, and keep their boxes. */
  if (s->stages > 1)
    s->balancing = 0;
  s->on_devices = s->peers[PREVIOUS][0] != NULL && s->stages == 1;
  CK_TRY(between_decide(s));
  CK_TRY(alike_decide(s));
  s->census[0] = config->particles;
  for (size_t k = 0; k < config->particles; ++k) {
    s->census[1] += k;
    s->census[2] += ck_gas_id_hash((uint32_t)k);
  }
  CK_TRY(deal(s, positions, velocities));
  if (s->by_nccl)
    CK_TRY(ck__gas_spread_nccl_decide(s));
  run->total = config->particles;
fail:
  return status;
}

/* ---- what the run reads -------------------------------------------------- */

ck_status ck__gas_spread_particles(ck__gas_spread *s, double *positions,
                                   double *velocities, double *forces,
                                   double *energies, double *virials) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  ck__exchange_buffer all = {0};
  int a = s->axis;
  double *pairs[3] = {positions, velocities, forces};
  double *singles[2] = {energies, virials};
  size_t fields = 1;
  for (int q = 0; q < 3; ++q)
    fields += pairs[q] ? 2 : 0;
  for (int q = 0; q < 2; ++q)
    fields += singles[q] ? 1 : 0;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  float *read = NULL;
  for (size_t i = 0; i < s->run.local; ++i) {
    member *m = &s->members[i];
    size_t slots = ck__gas_member_slots(m->gas), own = 0;
    free(read);
    read = malloc((slots ? slots : 1) * 8 * sizeof *read);
    statuses[i] = read ? hold_scratch(s, i, slots, 1)
                       : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
    float *p = read, *v = read + 2 * slots, *f = read + 4 * slots,
          *e = read + 6 * slots, *w = read + 7 * slots;
    if (statuses[i] == CK_OK)
      statuses[i] = ck__gas_member_own(m->gas, &own, s->words[i].data,
                                       positions ? p : NULL,
                                       velocities ? v : NULL, forces ? f : NULL,
                                       energies ? e : NULL, virials ? w : NULL);
    if (statuses[i] == CK_OK)
      statuses[i] =
          ck__exchange_buffer_hold(&m->out[0], fields * sizeof(double), own);
    if (statuses[i] != CK_OK)
      continue;
    /* Each own particle as its id and the fields asked for, in the run's
     * coordinates. */
    const uint32_t *ids = s->words[i].data;
    double *record = m->out[0].data;
    for (size_t k = 0; k < own; ++k) {
      double u = p[2 * k] + m->link[0].origin;
      double across_value =
          p[2 * k + 1] + (s->stages > 1 ? m->link[1].origin : 0);
      if (!c->walls) {
        u = wrap(u, along(s));
        across_value = wrap(across_value, across(s));
      }
      double values[6] = {
          a ? across_value : u,        a ? u : across_value,
          a ? v[2 * k + 1] : v[2 * k], a ? v[2 * k] : v[2 * k + 1],
          a ? f[2 * k + 1] : f[2 * k], a ? f[2 * k] : f[2 * k + 1]};
      *record++ = (double)ids[k];
      for (int q = 0; q < 3; ++q)
        if (pairs[q]) {
          *record++ = values[2 * q];
          *record++ = values[2 * q + 1];
        }
      if (energies)
        *record++ = e[k];
      if (virials)
        *record++ = w[k];
    }
    send[i] = m->out[0].data;
    counts[i] = own;
  }
  free(read);
  CK_TRY(ck__exchange_agree(s->run.exchange, statuses));
  CK_TRY(ck__exchange_gather_items(s->run.exchange, fields * sizeof(double),
                                   send, counts, &all, NULL));
  if (all.count != c->particles)
    CK_FAIL(CK_ERROR_MISMATCH, "the slabs hold %zu particles, not %zu",
            all.count, c->particles);
  const double *record = all.data;
  for (size_t k = 0; k < all.count; ++k) {
    size_t id = (size_t)*record++;
    for (int q = 0; q < 3; ++q)
      if (pairs[q]) {
        pairs[q][2 * id] = *record++;
        pairs[q][2 * id + 1] = *record++;
      }
    for (int q = 0; q < 2; ++q)
      if (singles[q])
        singles[q][id] = *record++;
  }
fail:
  free(all.data);
  return status;
}

ck_status ck__gas_spread_rdf(ck__gas_spread *s, size_t bins, double range,
                             uint64_t *counts) {
  ck_status status = CK_OK;
  size_t local = s->run.local;
  uint64_t *mine = calloc(local * bins, sizeof *mine);
  double *sums = calloc((local + 1) * bins, sizeof *sums);
  const double *rows[CK_SPREAD_MAX_LOCAL];
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  CK_TRY(ck__gas_spread_agree(
      s, mine && sums ? CK_OK
                      : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                                 "out of host memory for the RDF")));
  for (size_t i = 0; i < local; ++i) {
    statuses[i] =
        ck__gas_member_rdf(s->members[i].gas, bins, range, mine + i * bins);
    for (size_t b = 0; b < bins; ++b)
      sums[i * bins + b] = (double)mine[i * bins + b];
    rows[i] = sums + i * bins;
  }
  CK_TRY(ck__exchange_agree(s->run.exchange, statuses));
  double *total = sums + local * bins;
  CK_TRY(ck__exchange_sum(s->run.exchange, rows, total, bins));
  for (size_t b = 0; b < bins; ++b)
    counts[b] += (uint64_t)total[b];
fail:
  free(mine);
  free(sums);
  return status;
}

/* ---- the rest ------------------------------------------------------------ */

ck_status ck__gas_spread_agree(ck__gas_spread *s, ck_status status) {
  char message[512] = "";
  const char *last = NULL;
  if (status) {
    ck_error_get_last(&last);
    snprintf(message, sizeof message, "%s", last ? last : "");
  }
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {status};
  ck_status agreed = ck__exchange_agree(s->run.exchange, statuses);
  /* The process that failed keeps its message as it was. */
  if (agreed && status)
    return ck__fail(status, "%s", message);
  return agreed;
}

ck_status ck__gas_spread_broadcast(ck__gas_spread *s, void *data, size_t size) {
  return ck__exchange_broadcast(s->run.exchange, 0, data, size);
}

ck_gas *ck__gas_spread_member(ck__gas_spread *s, size_t i) {
  return i < s->run.local ? s->members[i].gas : NULL;
}

int ck__gas_spread_rank(const ck__gas_spread *s) {
  return s ? ck__exchange_rank(s->run.exchange) : 0;
}

int ck__gas_spread_strips(const ck__gas_spread *s) {
  return s->members[0].gas ? ck__gas_state(s->members[0].gas)->strips : 0;
}

ck_status ck__gas_spread_finish(ck__gas_spread *s, double *kernel_s) {
  ck_status status = CK_OK;
  for (size_t i = 0; i < s->run.local; ++i)
    if (s->run.queues[i])
      CK_TRY(ck_queue_finish(s->run.queues[i]));
  if (kernel_s)
    *kernel_s = ck__spread_kernel_seconds(&s->run);
fail:
  return status;
}

ck_status ck__gas_spread_report(ck__gas_spread *s, ck_result *result) {
  /* A grid's boxes: x, then y. */
  s->run.slab_axis = s->stages > 1 ? 2 : s->axis;
  for (size_t i = 0; i < s->run.local; ++i) {
    const member *m = &s->members[i];
    s->run.units[i] = m->own;
    s->run.bytes_sent[i] = m->bytes;
    s->run.slab[i][0] = m->link[0].lo;
    s->run.slab[i][1] = m->link[0].hi;
    s->run.slab[i][2] = s->stages > 1 ? m->link[1].lo : NAN;
    s->run.slab[i][3] = s->stages > 1 ? m->link[1].hi : NAN;
  }
  s->run.total = s->config.particles;
  return ck__spread_report(&s->run, result);
}

void ck__gas_spread_destroy(ck__gas_spread *s) {
  if (!s)
    return;
  for (size_t i = 0; s->members && i < s->run.local; ++i) {
    member *m = &s->members[i];
    ck_gas_destroy(m->gas);
    for (int side = 0; side < 2; ++side)
      free(m->out[side].data);
  }
  for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i) {
    for (int side = 0; side < 2; ++side)
      free(s->from[side][i].data);
    free(s->words[i].data);
    free(s->reals[i].data);
  }
  close_peers(s);
  for (int side = 1; side >= 0; --side)
    ipc_close(s, side);
  ck__ipc_event_close(s->ipc_mark);
  for (int side = 0; side < 2; ++side)
    ck_buffer_destroy(s->mirror[side]);
  ck_queue_destroy(s->mirror_queue);
  free(s->members);
  free(s->weights);
  free(s->bounds);
  free(s->bounds_y);
  ck__spread_end(&s->run);
  free(s);
}
