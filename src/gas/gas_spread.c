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
 * This file holds the strays, the phases, the sums and a step through
 * the host; gas_spread_internal.h lists the others.
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
ck_status ck__gas_spread_check_stray(const ck__gas_spread *s, member *m) {
  ck_status status = CK_OK;
  gas_state *state = ck__gas_state(m->gas);
  uint32_t read[3];
  float position[2];
  if (m->stray == CK_GAS_NO_STRAY)
    return CK_OK;
  int stage = m->stray_base & 1u;
  size_t at = 4 * ((size_t)(m->stray_base >> 1) +
                   (size_t)m->stray * CK_GAS_ENTRY_WORDS);
  CK_TRY(ck_buffer_read(state->queue, state->in_packed, at, sizeof read, read,
                        CK_BLOCKING, NULL));
  memcpy(position, &read[1], sizeof position);
  status = ck__gas_spread_stray_failure(s, m, stage, read[0], position[stage]);
fail:
  return status;
}

/* ---- a step ------------------------------------------------------------- */

/* The first half-step (unless the last step's forces took it), then
 * stage 0's exports' positions and the flags. */
static ck_status drift_and_pack(ck__gas_spread *s, member *m, size_t i) {
  gas_state *state = ck__gas_state(m->gas);
  ck_status status = state->drifted ? CK_OK : m->gas->steps->kick_drift(state);
  state->drifted = 0;
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
  ck_gas *gas = s->members[i].gas;
  gas_state *state = &gas->state;
  uint32_t flags[2] = {0, 0};
  /* A member that holds nothing has nothing to sum. */
  memset(row, 0, 5 * sizeof *row);
  memset(s->census_of[i], 0, sizeof s->census_of[i]);
  if (s->phase_census && state->particles > 0)
    CK_TRY(gas->steps->census(state, s->census_of[i]));
  if (state->particles > 0)
    CK_TRY(gas->steps->reduce(state, row));
  CK_TRY(ck_buffer_read(state->queue, state->flags, 0, sizeof flags, flags,
                        CK_BLOCKING, NULL));
  row[5] = flags[1];
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
  gas_state *state = ck__gas_state(m->gas);
  (void)i;
  return state->particles ? m->gas->steps->scale(state, s->phase_factor)
                          : CK_OK;
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
  gas_state *state = ck__gas_state(m->gas);
  uint32_t flags = 0;
  (void)i;
  CK_TRY(ck_queue_finish(state->queue));
  CK_TRY(ck__gas_spread_check_stray(s, m));
  if (state->member_control)
    CK_TRY(ck_buffer_read(state->queue, state->member_control,
                          4 * CK_GAS_CONTROL_FLAGS, sizeof flags, &flags,
                          CK_BLOCKING, NULL));
  if (flags & CK_GAS_OVERFLOW_INSIDE)
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
