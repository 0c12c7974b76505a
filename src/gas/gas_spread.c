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
 * devices too, keeping leavers as ghosts until their next sort. Steps
 * that are not resident (gas_spread_steps.c) go through host memory and
 * the exchange (framework/halo.h). There a member reads what it sends
 * into its page-locked memory (ck__host_alloc); the exchange sends from
 * there (cells mode from a copy in an envelope). A member copies what it
 * receives into its page-locked staging once, and writes it in one
 * write. A particle keeps its id wherever it goes: the
 * Langevin noise is drawn from it, and outputs are in its order.
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
 * host; the resident steps serve slabs.
 *
 * A spread of one member holds the whole box, with no cut and no ghosts:
 * a gas as on one device, stepped by gas.c (ck__gas_spread.whole); a
 * gas on one device is one (gas_engine.c).
 *
 * This file holds the phases, the halo's ops (what a member does when
 * its halo crosses: framework/halo.c runs the stages, the counts and the
 * messages) and a step through the host, in Verlet and cells mode;
 * gas_spread_steps.c a call's steps of slabs, resident ones too;
 * gas_spread_deal.c the slabs' making and dealing, and what the run
 * reads.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "gas/gas_internal.h"
#include "gas/gas_spread_internal.h"

/* ---- strays ------------------------------------------------------------ */

/* A particle that arrived must lie in the slab (along the stage's axis):
 * one that crossed two borders since the last rebuild would be in the
 * wrong hands. Rounding of the coordinates' shift may put one a hair
 * outside, which stays (it leaves at the next rebuild if it must). */
double ck__gas_spread_slack(const ck__gas_spread *s) {
  return 1e-3 * s->domain.reach;
}

/* The failure that names a particle (word) that reached member m at u,
 * in its coordinates along the axis of `stage`, past its borders. */
ck_status ck__gas_spread_stray_failure(const ck__gas_spread *s, const member *m,
                                       int stage, uint32_t word, float u) {
  const ck__domain_place *l = &m->place[stage];
  int slabs = s->domain.stages == 1;
  const char *shape = slabs ? "slab" : "box";
  const char *axis = slabs ? "" : stage ? " along y" : " along x";
  return ck__fail(CK_ERROR_MISMATCH,
                  "particle %u reached %s %zu of %zu at %g%s, past its "
                  "borders [%g, %g): it crossed more than one %s since the "
                  "last rebuild (the time step is too large, or particles "
                  "overlap)",
                  word, shape, m->index, s->total, u + l->origin, axis, l->lo,
                  l->hi, shape);
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
  status = ck__gas_spread_stray_failure(s, m, stage, word, position[stage]);
fail:
  return status;
}

/* ---- the halo's ops (framework/halo.h) -----------------------------------
 *
 * A rebuild's and a crossing's messages are packed on the sender's
 * device as the receiver appends them (ck_gas.h's layout): migrants
 * (whole entries), then ghosts. They cross through host memory (one read
 * a side, one write for both) and the exchange; the receiver appends
 * them on its device. Between rebuilds only the ghosts' positions cross,
 * from the slots found at the rebuild.
 */

/* Its entries of `kind` toward each side: migrants with their new
 * owner's coordinates, then dropped (and in stage 0 the old ghosts);
 * or its exports (in stage 1 with stage 0's ghosts), the last
 * arrivals' stray checked first. */
static ck_status halo_post(void *self, size_t i, int stage, int kind,
                           uint32_t counts[2], const void *out[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  const ck__domain_place *p = &m->place[stage];
  /* The selection's wait reads the stray too. */
  CK_TRY(ck__gas_member_select(m->gas, kind, p->border[PREVIOUS],
                               p->border[NEXT], s->domain.reach, stage,
                               counts));
  if (kind == CK__HALO_GHOST)
    CK_TRY(check_stray(s, m));
  CK_TRY(ck__gas_member_post(m->gas, counts, p->shift, kind, stage, out));
  if (kind == CK__HALO_MIGRANT)
    CK_TRY(ck__gas_member_drop(m->gas, counts));
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
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  const ck__domain_place *p = &m->place[stage];
  uint32_t base = (uint32_t)(CK_GAS_GHOST_WORDS * before);
  size_t incoming = (size_t)l->incoming[0][PREVIOUS] + l->incoming[0][NEXT] +
                    l->incoming[1][PREVIOUS] + l->incoming[1][NEXT];
  CK_TRY(ck__gas_member_expect(&m->gas, incoming, base));
  s->run->queues[i] = ck__gas_member_queue(m->gas);
  /* A stray is read back with the stage and the inbox word it came by. */
  m->stray_base = base << 1 | (uint32_t)stage;
  double slack = ck__gas_spread_slack(s);
  CK_TRY(ck__gas_member_admit(m->gas, l->incoming[0], l->incoming[1], in,
                              p->border[PREVIOUS] - slack,
                              p->border[NEXT] + slack, stage, base, &m->stray));
fail:
  return status;
}

/* The sort that drops the rest and finds every ghost and each stage's
 * exports, then each slot's part of the forces until the next rebuild. */
static ck_status halo_sort(void *self, size_t i, const ck__halo_member *h) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  uint32_t exports[4] = {0, 0, 0, 0};
  size_t ghosts[4] = {0, 0, 0, 0}, kept = h->own;
  for (int stage = 0; stage < s->domain.stages; ++stage)
    for (int side = 0; side < 2; ++side) {
      exports[2 * stage + side] = h->link[stage].exports[side];
      ghosts[2 * stage + side] = h->link[stage].ghosts[side];
      kept += h->link[stage].ghosts[side];
    }
  CK_TRY(ck__gas_member_sort(m->gas, kept, exports, ghosts));
  /* A ghost that arrived a hair inside the slab (slack) stays past the
   * reach. */
  double borders[4] = {m->place[0].border[PREVIOUS], m->place[0].border[NEXT],
                       m->place[1].border[PREVIOUS], m->place[1].border[NEXT]};
  CK_TRY(ck__gas_member_parts(m->gas, borders,
                              s->domain.reach + 2 * ck__gas_spread_slack(s)));
fail:
  return status;
}

/* The exports' positions of the stage, and the flags. */
static ck_status halo_pack(void *self, size_t i, int stage,
                           const uint32_t exports[2], const void *out[2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  CK_TRY(ck__gas_member_pack(m->gas, exports, m->place[stage].shift, stage, out,
                             m->flags));
  if (m->flags[2])
    CK_FAIL(CK_ERROR_DEVICE,
            "member %zu lost track of a ghost or an export at its last "
            "rebuild",
            m->index);
fail:
  return status;
}

/* The ghosts' positions received, past the earlier stages' ghosts. */
static ck_status halo_unpack(void *self, size_t i, int stage, size_t before,
                             const size_t ghosts[2], const void *const in[2]) {
  ck__gas_spread *s = self;
  (void)stage; /* its ghosts' slots run on across stages */
  /* Large slabs write them beside the interior's forces, which the
   * border's follow (a grid's stage 1 would pack them before). */
  int aside = s->domain.stages == 1 && s->halo.members[i].own >= s->aside_from;
  return ck__gas_member_unpack(s->members[i].gas, before, ghosts, in, aside);
}

/* Cells mode's way out: the first half-step (with phase_move, in stage
 * 0), then its leavers (whole) and its exports (as ghosts; in stage 1
 * stage 0's ghosts too) each way, as its device packed them. */
static ck_status halo_leave(void *self, size_t i, int stage,
                            uint32_t counts[2][2], const void *out[2][2]) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  const ck__domain_place *p = &m->place[stage];
  ck__gas_outbox box;
  CK_TRY(ck__gas_member_leave(m->gas, stage ? 0 : s->phase_move,
                              p->border[PREVIOUS], p->border[NEXT],
                              s->domain.reach, p->shift, stage, &box));
  CK_TRY(check_stray(s, m)); /* the last admit's, read by the wait */
  /* Regions 0 and 1 leave toward the previous and the next member; 2
   * and 3 are ghosts for them. */
  for (int kind = 0; kind < 2; ++kind)
    for (int side = 0; side < 2; ++side) {
      counts[kind][side] = box.counts[2 * kind + side];
      out[kind][side] = box.entries[2 * kind + side];
    }
fail:
  return status;
}

/* Cells mode's sort, which drops the old ghosts, then the step's forces
 * and kick. */
static ck_status halo_settle(void *self, size_t i, size_t kept) {
  ck_status status = CK_OK;
  ck__gas_spread *s = self;
  member *m = &s->members[i];
  CK_TRY(ck__gas_member_resort(m->gas, kept));
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

/* ---- a step ------------------------------------------------------------- */

/* The first half-step, then stage 0's exports' positions and the flags. */
static ck_status drift_and_pack(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = ck__gas_member_drift(m->gas);
  return status ? status : ck__halo_pack(&s->halo, i);
}

/* The step's forces and kick (of phase_part's slots), energies where
 * asked. */
ck_status ck__gas_spread_forces(ck__gas_spread *s, member *m, size_t i) {
  (void)i;
  return ck__gas_member_forces(m->gas, s->phase_part, s->phase_energy,
                               s->phase_step, s->phase_ahead);
}

/* A member's sums of ck__gas_steps.reduce and its overflow flag, and
 * with phase_census its census too (a phase: the members wait for their
 * devices at once). */
static ck_status observe_member(void *context, size_t i, double *row) {
  ck_status status = CK_OK;
  ck__gas_spread *s = context;
  member *m = &s->members[i];
  uint32_t overflow = 0;
  if (s->phase_census)
    CK_TRY(ck__gas_member_census(m->gas, s->census_of[i]));
  CK_TRY(ck__gas_member_sums(m->gas, row, &overflow));
  row[5] = overflow;
fail:
  return status;
}

/* Every member's sums (observe_member), summed over all members; with
 * census 1, every member's census checked too. */
static ck_status all_sums(ck__gas_spread *s, int census, double sums[6]) {
  ck_status status = CK_OK;
  /* A whole box's sums are its gas's own (ck__gas_alone). */
  assert(!s->whole);
  s->phase_census = census;
  CK_TRY(ck__engine_sum_each(s->engine, observe_member, s, 6, sums));
  /* A particle lost, doubled or given another id at a border is never
   * silent. */
  if (s->phase_census)
    CK_TRY(ck__engine_census(s->engine, s->census_of, s->census));
fail:
  return status;
}

/* Velocities scaled to the target temperature, by the kinetic energy of
 * all members. */
static ck_status scale(ck__gas_spread *s, member *m, size_t i) {
  (void)i;
  return ck__gas_member_scale(m->gas, s->phase_factor);
}

ck_status ck__gas_spread_rescale(ck__gas_spread *s) {
  ck_status status = CK_OK;
  double sums[6];
  CK_TRY(all_sums(s, 0, sums));
  double temperature = 2.0 * sums[0] / s->dof;
  s->phase_factor =
      temperature > 0 ? sqrt(s->config.target_temperature / temperature) : 1;
  CK_TRY(ck__gas_spread_each(s, scale));
fail:
  return status;
}

ck_status ck__gas_spread_sums(ck__gas_spread *s, double sums[5],
                              uint32_t *overflowed, uint32_t *capacity) {
  ck_status status = CK_OK;
  double all[6];
  CK_TRY(all_sums(s, 1, all));
  /* Sums along the cut and across: momentum x and y back in order. */
  memcpy(sums, all, 3 * sizeof *sums);
  sums[3] = all[3 + s->domain.axis];
  sums[4] = all[4 - s->domain.axis];
  *overflowed = all[5] > 0;
  *capacity = ck__gas_state(s->members[0].gas)->list_capacity;
fail:
  return status;
}

/* ---- cells mode: an exchange every step ----------------------------------
 *
 * Cell lists sort every step, as one device does: each member's leavers
 * go to their new owner (and stay here as its ghosts until the sort), and
 * every own particle within rc of a border goes to that neighbour as a
 * ghost, in one message each way (ck__halo_cross); the old ghosts are
 * dropped at the sort. Such steps go through the host; where the members'
 * devices can, cell lists step resident instead (gas_spread_steps.c). */

/* The failure of a slab whose halo held an entry a cell or more inside
 * its borders (CK_GAS_OVERFLOW_INSIDE). */
ck_status ck__gas_spread_inside_failure(const ck__gas_spread *s,
                                        const member *m) {
  return ck__fail(CK_ERROR_MISMATCH,
                  "slab %zu of %zu received a particle half a cell or more "
                  "inside its borders, or farther than a cell past them: it "
                  "moved that far (at least rc / 2 = %g) in one step; the "
                  "time step is too large, or particles overlap",
                  m->index, s->total, 0.5 * s->config.rc);
}

/* After a call's last step in cells mode: what it admitted, checked. */
ck_status ck__gas_spread_settle(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  int inside = 0;
  (void)i;
  CK_TRY(ck_queue_finish(ck__gas_member_queue(m->gas)));
  CK_TRY(check_stray(s, m));
  CK_TRY(ck__gas_member_inside(m->gas, &inside));
  if (inside)
    CK_TRY(ck__gas_spread_inside_failure(s, m));
fail:
  return status;
}

/* Cells mode's step: out, across, in; stage after stage. */
ck_status ck__gas_spread_cells_step(ck__gas_spread *s, uint64_t step,
                                    int last) {
  s->phase_move = step > 0;
  s->phase_step = step;
  s->phase_energy = last;
  return ck__halo_cross(&s->halo);
}

/* Between rebuilds: the interior's forces, then the border's once the
 * ghosts' positions are in; the interior's run while they cross. */
static ck_status refresh(ck__gas_spread *s) {
  ck_status status = CK_OK;
  s->phase_part = 1;
  CK_TRY(ck__gas_spread_each(s, ck__gas_spread_forces));
  CK_TRY(ck__halo_forward(&s->halo));
  s->phase_part = 2;
  CK_TRY(ck__gas_spread_each(s, ck__gas_spread_forces));
fail:
  s->phase_part = 0;
  return status;
}

/* Verlet mode's step: the ghosts' positions, or a rebuild. Returns 1 in
 * *rebuilt after a rebuild. The forces take the next step's first
 * half-step but for a call's last step (the caller may read the state)
 * and before a rescale, as one device's do. */
ck_status ck__gas_spread_verlet_step(ck__gas_spread *s, uint64_t step, int last,
                                     int *rebuilt) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  CK_TRY(ck__gas_spread_each(s, drift_and_pack));
  double moved[CK_SPREAD_MAX_LOCAL], anyone = 0;
  const double *rows[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < s->run->local; ++i) {
    moved[i] = s->members[i].flags[0] != 0;
    rows[i] = &moved[i];
  }
  CK_TRY(ck__exchange_sum(s->run->exchange, rows, &anyone, 1));
  *rebuilt = anyone > 0;
  s->phase_step = step;
  s->phase_energy = last;
  s->phase_ahead = !last && !(c->thermostat == CK_GAS_RESCALE &&
                              step % c->rescale_every == 0);
  if (*rebuilt) {
    CK_TRY(ck__halo_rebuild(&s->halo, 0));
    CK_TRY(ck__gas_spread_each(s, ck__gas_spread_forces));
  } else {
    CK_TRY(refresh(s));
  }
fail:
  s->phase_ahead = 0;
  return status;
}

ck_status ck__gas_spread_first_ghosts(ck__gas_spread *s) {
  ck_status status = CK_OK;
  if (s->config.neighbors == CK_GAS_CELLS) {
    /* The first ghosts, and forces without a kick. */
    CK_TRY(ck__gas_spread_cells_step(s, 0, 1));
    ck__gas_spread_ready_to_reside(s);
    return CK_OK;
  }
  CK_TRY(ck__halo_rebuild(&s->halo, 1));
  s->phase_step = 0;
  s->phase_energy = 1;
  CK_TRY(ck__gas_spread_each(s, ck__gas_spread_forces));
fail:
  return status;
}
