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
  int real = state->double_precision;
  static const uint32_t zero[2] = {0, 0};
  CK_TRY(ck_buffer_write(state->queue, state->member_counts, 0, sizeof zero,
                         zero, CK_NONBLOCKING, NULL));
  ck_kernel_args args;
  ck_kernel_args_begin(state->select_kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_i32(&args, mode);
  ck_kernel_args_real(&args, lo, real);
  ck_kernel_args_real(&args, hi, real);
  ck_kernel_args_real(&args, reach, real);
  ck_kernel_args_i32(&args, stage);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_u32(&args, state->message_capacity);
  ck_kernel_args_buffer(&args, state->member_list);
  ck_kernel_args_buffer(&args, state->member_counts);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
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
  ck_kernel_args args;
  ck_kernel_args_begin(state->post_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, base);
  ck_kernel_args_buffer(&args, state->member_list);
  ck_kernel_args_real(&args, shift, state->double_precision);
  ck_kernel_args_i32(&args, ghost);
  ck_kernel_args_u32(&args, at);
  ck_kernel_args_u32(&args, kept);
  ck_kernel_args_i32(&args, stage);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->out_packed);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_accept(gas_state *state, uint32_t first,
                                uint32_t count, int ghost, uint32_t from_next,
                                uint32_t at, double lo, double hi, int stage) {
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel_args_begin(state->accept_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, first);
  ck_kernel_args_i32(&args, ghost);
  ck_kernel_args_u32(&args, from_next);
  ck_kernel_args_u32(&args, at);
  ck_kernel_args_real(&args, lo, real);
  ck_kernel_args_real(&args, hi, real);
  ck_kernel_args_i32(&args, stage);
  ck_kernel_args_buffer(&args, state->in_packed);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->member_counts);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_gather(gas_state *state, uint32_t base, uint32_t count,
                                uint32_t split, const double shift[2],
                                int stage) {
  if (count == 0)
    return CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->gather_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, base);
  ck_kernel_args_u32(&args, split);
  ck_kernel_args_buffer(&args, state->export_slots);
  ck_kernel_args_real(&args, shift[0], state->double_precision);
  ck_kernel_args_real(&args, shift[1], state->double_precision);
  ck_kernel_args_i32(&args, stage);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->out_real);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_mark(gas_state *state, uint32_t base, uint32_t count) {
  if (count == 0)
    return CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->mark_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, base);
  ck_kernel_args_buffer(&args, state->member_list);
  ck_kernel_args_buffer(&args, state->id);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_locate(gas_state *state, int ghost, uint32_t base,
                                uint32_t count, uint32_t at,
                                uint32_t from_next) {
  if (count == 0)
    return CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->locate_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, base);
  ck__gas_add_geometry(state, &args);
  ck_kernel_args_buffer(&args, ghost ? state->in_packed : state->out_packed);
  ck_kernel_args_u32(&args, at);
  ck_kernel_args_i32(&args, ghost);
  ck_kernel_args_u32(&args, from_next);
  ck_kernel_args_buffer(&args, state->cell_start);
  ck_kernel_args_buffer(&args, state->cell_count);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_buffer(&args,
                        ghost ? state->ghost_slots : state->export_slots);
  ck_kernel_args_buffer(&args, state->flags);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_unpack(gas_state *state, uint32_t base,
                                uint32_t count) {
  if (count == 0)
    return CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->unpack_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, base);
  ck_kernel_args_buffer(&args, state->ghost_slots);
  ck_kernel_args_buffer(&args, state->in_real);
  ck_kernel_args_buffer(&args, state->position);
  return ck__gas_opencl_launch(state, &args, count, state->group);
}

ck_status ck__gas_opencl_parts(gas_state *state, const double borders[4],
                               double reach) {
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel_args_begin(state->parts_kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  for (int b = 0; b < 4; ++b)
    ck_kernel_args_real(&args, borders[b], real);
  ck_kernel_args_real(&args, reach, real);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->part_mark);
  ck_kernel_args_buffer(&args, state->border_slots);
  ck_kernel_args_buffer(&args, state->flags);
  return ck__gas_opencl_launch(state, &args, state->particles, state->group);
}

ck_status ck__gas_opencl_census(gas_state *state, uint64_t census[3]) {
  ck_status status = CK_OK;
  size_t groups = state->reduce_groups;
  uint64_t *partial = calloc(3 * groups, sizeof *partial);
  if (!partial)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  ck_kernel_args args;
  ck_kernel_args_begin(state->census_kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_buffer(&args, state->census_sums);
  CK_TRY(
      ck__gas_opencl_launch(state, &args, groups * state->group, state->group));
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
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel_args_begin(state->scale_kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_real(&args, factor, real);
  ck_kernel_args_buffer(&args, state->velocity);
  return ck__gas_opencl_launch(state, &args, state->particles, state->group);
}

ck_status ck__gas_opencl_leave(gas_state *state, int move, double lo, double hi,
                               double reach, const double shift[2], int again,
                               int stage) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  static const uint32_t zero[4] = {0, 0, 0, 0};
  if (move)
    CK_TRY(ck__gas_opencl_kick_drift(state));
  CK_TRY(ck_buffer_write(state->queue, state->member_counts, 0, sizeof zero,
                         zero, CK_NONBLOCKING, NULL));
  ck_kernel_args args;
  ck_kernel_args_begin(state->leave_kernel, &args);
  ck_kernel_args_u32(&args, state->particles);
  ck_kernel_args_real(&args, lo, real);
  ck_kernel_args_real(&args, hi, real);
  ck_kernel_args_real(&args, reach, real);
  ck_kernel_args_real(&args, shift[0], real);
  ck_kernel_args_real(&args, shift[1], real);
  ck_kernel_args_i32(&args, again);
  ck_kernel_args_i32(&args, stage);
  ck_kernel_args_buffer(&args, state->position);
  ck_kernel_args_buffer(&args, state->velocity);
  ck_kernel_args_buffer(&args, state->id);
  ck_kernel_args_u32(&args, state->message_capacity);
  ck_kernel_args_buffer(&args, state->out_packed);
  ck_kernel_args_buffer(&args, state->member_counts);
  CK_TRY(ck__gas_opencl_launch(state, &args, state->particles, state->group));
fail:
  return status;
}
