/* gas_member_opencl.c - the OpenCL steps of a spread member of the 2D gas
 * (ck_gas.h's spread members): kernels ck_gas_member_* in cl/gas.cl, in
 * the steps table of gas_opencl.c. */
#include <stdio.h>
#include <stdlib.h>

#include "gas/gas_internal.h"

ck_status ck__gas_opencl_select(gas_state *state, int mode, double lo,
                                double hi, double reach, int stage,
                                uint32_t counts[2]) {
  ck_status status = CK_OK;
  static const uint32_t zero[2] = {0, 0};
  CK_TRY(ck_buffer_write(state->queue, state->member_counts, 0, sizeof zero,
                         zero, CK_NONBLOCKING, NULL));
  CK_TRY(ck__gas_opencl_run(
      state, state->select_kernel, state->particles, "uirrribbubb",
      state->particles, mode, lo, hi, reach, stage, state->position, state->id,
      state->message_capacity, state->member_list, state->member_counts));
  CK_TRY(ck_buffer_read(state->queue, state->member_counts, 0,
                        2 * sizeof *counts, counts, CK_BLOCKING, NULL));
fail:
  return status;
}

ck_status ck__gas_opencl_post(gas_state *state, uint32_t base, uint32_t count,
                              double shift, int ghost, uint32_t at,
                              uint32_t kept, int stage) {
  if (count == 0)
    return CK_OK;
  return ck__gas_opencl_run(state, state->post_kernel, count, "uubriuuibbbb",
                            count, base, state->member_list, shift, ghost, at,
                            kept, stage, state->position, state->velocity,
                            state->id, state->out_packed);
}

ck_status ck__gas_opencl_accept(gas_state *state, uint32_t first,
                                uint32_t count, int ghost, uint32_t from_next,
                                uint32_t at, double lo, double hi, int stage) {
  return ck__gas_opencl_run(state, state->accept_kernel, count, "uuiuurribbbbb",
                            count, first, ghost, from_next, at, lo, hi, stage,
                            state->in_packed, state->position, state->velocity,
                            state->id, state->member_counts);
}

ck_status ck__gas_opencl_gather(gas_state *state, uint32_t base, uint32_t count,
                                uint32_t split, const double shift[2],
                                int stage) {
  if (count == 0)
    return CK_OK;
  return ck__gas_opencl_run(state, state->gather_kernel, count, "uuubrribb",
                            count, base, split, state->export_slots, shift[0],
                            shift[1], stage, state->position, state->out_real);
}

ck_status ck__gas_opencl_locate(gas_state *state, int ghost, uint32_t base,
                                uint32_t count, uint32_t at,
                                uint32_t from_next) {
  if (count == 0)
    return CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->locate_kernel, &args);
  ck__kernel_args_add(&args, state->double_precision, "uu", count, base);
  ck__gas_add_geometry(state, &args);
  ck__kernel_args_add(
      &args, state->double_precision, "buiubbbubb",
      ghost ? state->in_packed : state->out_packed, at, ghost, from_next,
      state->cell_start, state->cell_count, state->id, state->particles,
      ghost ? state->ghost_slots : state->export_slots, state->flags);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_unpack(gas_state *state, uint32_t base,
                                uint32_t count) {
  if (count == 0)
    return CK_OK;
  return ck__gas_opencl_run(state, state->unpack_kernel, count, "uubbb", count,
                            base, state->ghost_slots, state->in_real,
                            state->position);
}

ck_status ck__gas_opencl_parts(gas_state *state, const double borders[4],
                               double reach) {
  return ck__gas_opencl_run(state, state->parts_kernel, state->particles,
                            "urrrrrbbbbb", state->particles, borders[0],
                            borders[1], borders[2], borders[3], reach,
                            state->position, state->id, state->part_mark,
                            state->border_slots, state->flags);
}

ck_status ck__gas_opencl_census(gas_state *state, uint64_t census[3]) {
  ck_status status = CK_OK;
  size_t groups = state->reduce_groups;
  uint64_t *partial = calloc(3 * groups, sizeof *partial);
  if (!partial)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__gas_opencl_run(state, state->census_kernel, groups * state->group,
                            "ubb", state->particles, state->id,
                            state->census_sums));
  CK_TRY(ck_buffer_read(state->queue, state->census_sums, 0,
                        3 * groups * sizeof *partial, partial, CK_BLOCKING,
                        NULL));
  census[0] = census[1] = census[2] = 0;
  for (size_t b = 0; b < groups; ++b)
    for (int q = 0; q < 3; ++q)
      census[q] += partial[3 * b + (size_t)q];
fail:
  free(partial);
  return status;
}

ck_status ck__gas_opencl_scale(gas_state *state, double factor) {
  return ck__gas_opencl_run(state, state->scale_kernel, state->particles, "urb",
                            state->particles, factor, state->velocity);
}

ck_status ck__gas_opencl_leave(gas_state *state, int move, double lo, double hi,
                               double reach, const double shift[2], int again,
                               int stage) {
  ck_status status = CK_OK;
  static const uint32_t zero[4] = {0, 0, 0, 0};
  if (move)
    CK_TRY(ck__gas_opencl_kick_drift(state));
  CK_TRY(ck_buffer_write(state->queue, state->member_counts, 0, sizeof zero,
                         zero, CK_NONBLOCKING, NULL));
  CK_TRY(ck__gas_opencl_run(state, state->leave_kernel, state->particles,
                            "urrrrriibbbubb", state->particles, lo, hi, reach,
                            shift[0], shift[1], again, stage, state->position,
                            state->velocity, state->id, state->message_capacity,
                            state->out_packed, state->member_counts));
fail:
  return status;
}
