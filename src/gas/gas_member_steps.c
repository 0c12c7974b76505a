/*
 * gas_member_steps.c - a spread member's own steps (ck_gas.h's spread
 * members): its forces in parts, its sums, census and scaling,
 * its own particles read back, and its resident steps. What crosses
 * between members is gas_member_exchange.c's.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gas/gas_internal.h"

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

ck_status ck__gas_member_parts(ck_gas *member, const double borders[4],
                               double reach) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  assert(state->border_known == 0); /* the sort cleared the border's count */
  if (!state->part_mark)
    CK_TRY(ck__buffer_make_zeroed(state->queue, state->slots, 4, "part marks",
                                  &state->part_mark));
  if (!state->border_slots)
    CK_TRY(ck__buffer_make_zeroed(state->queue, state->slots, 4, "border slots",
                                  &state->border_slots));
  CK_TRY(member->steps->parts(state, borders, reach));
fail:
  return status;
}

ck_status ck__gas_member_sums(ck_gas *member, double sums[5],
                              uint32_t *overflow) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t flags[2] = {0, 0};
  if (state->particles == 0) {
    memset(sums, 0, 5 * sizeof *sums);
  } else {
    CK_TRY(member->steps->reduce(state, sums));
  }
  CK_TRY(ck_buffer_read(state->queue, state->flags, 0, sizeof flags, flags,
                        CK_BLOCKING, NULL));
  *overflow = flags[1];
fail:
  return status;
}

ck_status ck__gas_member_census(ck_gas *member, uint64_t census[3]) {
  if (member->state.particles == 0) {
    census[0] = census[1] = census[2] = 0;
    return CK_OK;
  }
  return member->steps->census(&member->state, census);
}

ck_status ck__gas_member_scale(ck_gas *member, double factor) {
  if (member->state.particles == 0)
    return CK_OK;
  return member->steps->scale(&member->state, factor);
}

ck_status ck__gas_member_read(ck_gas *member, uint32_t *words,
                              float *const out[5]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  size_t n = state->particles;
  ck_buffer *const buffers[5] = {state->position, state->velocity, state->force,
                                 state->energy, state->virial};
  CK_TRY(ck__gas_read_slots(state, state->id, n, 4, words));
  for (int a = 0; a < 5; ++a)
    if (out[a])
      CK_TRY(ck__gas_read_slots(state, buffers[a], n, a < 3 ? 8 : 4, out[a]));
fail:
  return status;
}

/* ---- resident steps -------------------------------------------------- */

int ck__gas_member_can_reside(const ck_gas *member) {
  return member->steps->pull != NULL && member->state.neighbors == CK_GAS_CELLS;
}

ck_status ck__gas_member_reside(ck_gas *member, size_t own) {
  gas_state *state = &member->state;
  uint32_t words[CK_GAS_CONTROL_WORDS];
  memset(words, 0, sizeof words);
  words[CK_GAS_CONTROL_SORTED] = state->particles;
  words[CK_GAS_CONTROL_APPENDED] = state->particles;
  words[CK_GAS_CONTROL_OWN] = (uint32_t)own;
  words[CK_GAS_CONTROL_STRAY] = CK_GAS_NO_STRAY;
  /* From the staging, without a wait. */
  const void *pieces[1] = {words};
  const size_t sizes[1] = {sizeof words};
  ck_status status =
      ck__staging_write(&state->staging, state->queue, state->member_control, 0,
                        1, pieces, sizes);
  /* A slab's neighbours read its tag (CK_GAS_CONTROL_READY) without its
   * queue's order: it is 0 on the device before any of them steps. */
  if (status == CK_OK && state->slab)
    status = ck_queue_finish(state->queue);
  if (status == CK_OK)
    state->resident = 1;
  return status;
}

ck_status ck__gas_member_go(ck_gas *member, int parity, int move, double lo,
                            double hi, double reach, const double shift[2],
                            uint32_t tag) {
  gas_state *state = &member->state;
  assert(state->resident);
  state->parity = parity;
  state->step_tag = tag;
  return member->steps->leave(state, move, lo, hi, reach, shift, 0, 0);
}

ck_status ck__gas_member_come(ck_gas *member, int parity,
                              const ck__gas_source from[2], double lo,
                              double hi, int with_energy, uint64_t kick_step) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  assert(state->resident);
  state->parity = parity;
  CK_TRY(member->steps->pull(state, from, lo, hi));
  CK_TRY(member->steps->neighbors(state, 1));
  CK_TRY(ck__gas_member_forces(member, 0, with_energy, kick_step, 0));
fail:
  return status;
}

ck_status ck__gas_member_inside(ck_gas *member, int *inside) {
  uint32_t flags = 0;
  gas_state *state = &member->state;
  *inside = 0;
  if (!state->member_control)
    return CK_OK;
  ck_status status = ck_buffer_read(state->queue, state->member_control,
                                    4 * CK_GAS_CONTROL_FLAGS, sizeof flags,
                                    &flags, CK_BLOCKING, NULL);
  *inside = (flags & CK_GAS_OVERFLOW_INSIDE) != 0;
  return status;
}

int ck__gas_member_waits(const ck_gas *member) {
  return member->state.waits_for_tags;
}

ck_status ck__gas_member_settle(ck_gas *member,
                                uint32_t words[CK_GAS_CONTROL_WORDS]) {
  gas_state *state = &member->state;
  ck_status status = ck_buffer_read(state->queue, state->member_control, 0,
                                    CK_GAS_CONTROL_WORDS * sizeof *words, words,
                                    CK_BLOCKING, NULL);
  state->resident = 0;
  if (status == CK_OK)
    state->particles = words[CK_GAS_CONTROL_SORTED];
  return status;
}
