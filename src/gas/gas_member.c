/*
 * gas_member.c - a spread member's device state (ck_gas.h's spread
 * members): its message buffers, the host memory its reads and writes
 * go through, and its slots made again with more room. What crosses is
 * the halo's ops' (gas_member_exchange.c).
 *
 * Members compute in single precision: what crosses is raw floats, as
 * the devices hold them, and ids as words.
 */
#include <stdlib.h>
#include <string.h>

#include "gas/gas_internal.h"

/* The member buffers: the outbox's, for `messages` entries a side
 * (ck__gas_member_messages), then the inbox's, for `entries` received
 * (ck__gas_member_inbox_room), each with its elements an entry (the outbox's
 * with 4 regions of entries for a cells-mode member's step out), whether
 * they are reals (else words), and its name. */
#define OUTBOX_BUFFERS 6
#define MESSAGE_BUFFERS 9
#define PACKED_OUTBOX 4

/* The packed outbox has two halves (ck_gas_packed_half): a resident step
 * packs one while its neighbours may read the other. The counts and the
 * control words have a fixed size (per_entry 0: `fixed` elements). */
static const struct {
  size_t per_entry, fixed;
  int real;
  const char *name;
} shapes[MESSAGE_BUFFERS] = {{2, 0, 0, "member lists"},
                             {0, 4, 0, "member counts"},
                             {8, 0, 1, "outbox"},
                             {4, 0, 0, "export slots"},
                             {2 * CK_GAS_PACKED_WORDS, 0, 0, "packed outbox"},
                             {0, CK_GAS_CONTROL_WORDS, 0, "member control"},
                             {2, 0, 1, "inbox"},
                             {1, 0, 0, "ghost slots"},
                             {CK_GAS_ENTRY_WORDS, 0, 0, "packed inbox"}};

static ck_buffer **message_buffer(gas_state *state, int which) {
  ck_buffer **buffers[MESSAGE_BUFFERS] = {
      &state->member_list,  &state->member_counts, &state->out_real,
      &state->export_slots, &state->out_packed,    &state->member_control,
      &state->in_real,      &state->ghost_slots,   &state->in_packed};
  return buffers[which];
}

/* Each member buffer's elements and their size in bytes, for `size_by`
 * entries. */
static void message_shape(const gas_state *state, uint32_t size_by, int which,
                          size_t *count, size_t *size) {
  *count = shapes[which].per_entry ? (size_t)size_by * shapes[which].per_entry
                                   : shapes[which].fixed;
  *size = shapes[which].real ? state->real_size : 4;
}

double ck__gas_member_message_bytes(const gas_state *state, uint32_t messages) {
  double bytes = 0;
  if (!state->member)
    return 0;
  for (int which = 0; which < MESSAGE_BUFFERS; ++which) {
    size_t count, size;
    /* The inbox starts with room for both sides' entries. */
    message_shape(state, which < OUTBOX_BUFFERS ? messages : 2 * messages,
                  which, &count, &size);
    bytes += (double)count * (double)size;
  }
  return bytes;
}

/* Frees the member buffers from `first` to `end`. */
static void free_buffers(gas_state *state, int first, int end) {
  for (int which = first; which < end; ++which) {
    ck_buffer **buffer = message_buffer(state, which);
    ck_buffer_destroy(*buffer);
    *buffer = NULL;
  }
}

void ck__gas_member_messages_free(gas_state *state) {
  free_buffers(state, 0, MESSAGE_BUFFERS);
  ck_buffer_destroy(state->id_snapshot);
  ck_buffer_destroy(state->part_mark);
  ck_buffer_destroy(state->border_slots);
  state->id_snapshot = state->part_mark = state->border_slots = NULL;
  ck_queue_destroy(state->aside);
  state->aside = NULL;
}

/* Makes the member buffers from `first` to `end` anew, for size_by. The
 * old ones go once the queue's work (copies from them among it) is done. */
static ck_status make_buffers(gas_state *state, int first, int end,
                              uint32_t size_by) {
  ck_status status = CK_OK;
  if (*message_buffer(state, first))
    CK_TRY(ck_queue_finish(state->queue));
  free_buffers(state, first, end);
  for (int which = first; which < end; ++which) {
    size_t count, size;
    message_shape(state, size_by, which, &count, &size);
    CK_TRY(ck__buffer_make_zeroed(state->queue, count, size, shapes[which].name,
                                  message_buffer(state, which)));
  }
fail:
  return status;
}

ck_status ck__gas_member_messages(gas_state *state, uint32_t messages) {
  ck_status status = CK_OK;
  uint32_t *kept = NULL, old = state->message_capacity;
  size_t kept_words = 2 * (size_t)CK_GAS_GHOST_WORDS * old;
  if (messages > UINT32_MAX / CK_GAS_PACKED_WORDS)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%u entries a message", messages);
  /* A grid's stage 1 may grow the outbox while stage 0's exports are
   * kept in it to be found after the sort: they go along. */
  if (state->out_packed && state->neighbors == CK_GAS_VERLET && old > 0) {
    kept = malloc(4 * kept_words);
    if (!kept)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    CK_TRY(ck_buffer_read(state->queue, state->out_packed,
                          4 * (size_t)ck_gas_kept_at(0, old), 4 * kept_words,
                          kept, CK_BLOCKING, NULL));
  }
  CK_TRY(make_buffers(state, 0, OUTBOX_BUFFERS, messages));
  state->message_capacity = messages;
  if (kept) {
    /* Side 1's entries start a side's capacity after side 0's. */
    size_t side = (size_t)CK_GAS_GHOST_WORDS * old;
    for (int s = 0; s < 2; ++s)
      CK_TRY(ck_buffer_write(state->queue, state->out_packed,
                             4 * (size_t)ck_gas_kept_at(s, messages), 4 * side,
                             kept + s * side, CK_BLOCKING, NULL));
  }
  if (!state->in_real) {
    CK_TRY(make_buffers(state, OUTBOX_BUFFERS, MESSAGE_BUFFERS, 2 * messages));
    state->inbox_capacity = 2 * messages;
  }
fail:
  free(kept);
  return status;
}

/* The first state->inbox_kept words of the packed inbox, read into
 * *words (malloc'd; NULL where none are kept). */
static ck_status read_kept_inbox(gas_state *state, uint32_t **words) {
  *words = NULL;
  if (state->inbox_kept == 0 || !state->in_packed)
    return CK_OK;
  *words = malloc(4 * state->inbox_kept);
  if (!*words)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  return ck_buffer_read(state->queue, state->in_packed, 0,
                        4 * state->inbox_kept, *words, CK_BLOCKING, NULL);
}

ck_status ck__gas_member_inbox_room(gas_state *state, size_t entries) {
  ck_status status = CK_OK;
  uint32_t *kept = NULL;
  if (entries <= state->inbox_capacity)
    return CK_OK;
  if (entries > UINT32_MAX / 8)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%zu entries received", entries);
  uint32_t grown = (uint32_t)(entries + entries / 2);
  /* Pending writes from the staging go to the old inbox first. */
  CK_TRY(ck__staging_settle(&state->staging));
  CK_TRY(read_kept_inbox(state, &kept));
  CK_TRY(make_buffers(state, OUTBOX_BUFFERS, MESSAGE_BUFFERS, grown));
  state->inbox_capacity = grown;
  if (kept)
    CK_TRY(ck_buffer_write(state->queue, state->in_packed, 0,
                           4 * state->inbox_kept, kept, CK_BLOCKING, NULL));
fail:
  free(kept);
  return status;
}

/* What a state made again carries (ck__gas_member_reserve): the slots'
 * positions, velocities, forces (a state made again between steps, a
 * resident settle's, takes its next first half-kick from them) and ids;
 * the messages packed at a rebuild, not all sent yet; and the entries of
 * a grid's stage 0 that its sort will look for. */
#define CARRIED 6
static ck_buffer **carried_buffer(gas_state *state, int which) {
  ck_buffer **buffers[CARRIED] = {&state->position,   &state->velocity,
                                  &state->force,      &state->id,
                                  &state->out_packed, &state->in_packed};
  return buffers[which];
}

ck_status ck__gas_member_reserve(ck_gas **member, size_t slots) {
  ck_status status = CK_OK;
  ck_gas *old = *member, *grown = NULL;
  gas_state *state = &old->state;
  size_t used = state->particles, real = state->real_size;
  size_t packed_words, word_size, inbox_kept = state->inbox_kept;
  unsigned char *kept[CARRIED] = {NULL, NULL, NULL, NULL, NULL, NULL};
  if (slots <= old->config.particles)
    return CK_OK;
  message_shape(state, state->message_capacity, PACKED_OUTBOX, &packed_words,
                &word_size);
  /* A quarter more than asked, so that a slab that fills slowly is not
   * made again at every rebuild. */
  ck_gas_config config = old->config;
  config.particles = slots + slots / 4;
  if (config.particles > UINT32_MAX / 2)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "a slab of %zu particles and ghosts: at most 2^31", slots);
  size_t bytes[CARRIED] = {2 * real * used, 2 * real * used,  2 * real * used,
                           4 * used,        4 * packed_words, 4 * inbox_kept};
  for (int k = 0; k < CARRIED; ++k) {
    if (!(kept[k] = malloc(bytes[k] ? bytes[k] : 1)))
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu particles",
              used);
    if (bytes[k])
      CK_TRY(ck_buffer_read(state->queue, *carried_buffer(state, k), 0,
                            bytes[k], kept[k], CK_BLOCKING, NULL));
  }
  /* Made again in the forms it was made in. */
  ck__gas_forms forms = {state->tiles, state->strips_request,
                         state->sort_request, state->fine_cells,
                         state->list_chunk_request};
  CK_TRY(ck__gas_member_make(
      &state->device, &config, forms, state->message_capacity, state->walls_x,
      state->slab ? -1 : state->walls_y, state->tiers, 1, &grown));
  gas_state *fresh = &grown->state;
  CK_TRY(ck__gas_member_inbox_room(fresh, inbox_kept / CK_GAS_GHOST_WORDS));
  fresh->inbox_kept = (uint32_t)inbox_kept;
  for (int k = 0; k < CARRIED; ++k)
    if (bytes[k])
      CK_TRY(ck_buffer_write(fresh->queue, *carried_buffer(fresh, k), 0,
                             bytes[k], kept[k], CK_BLOCKING, NULL));
  fresh->particles = (uint32_t)used;
  ck_gas_destroy(old);
  *member = grown;
  grown = NULL;
fail:
  ck_gas_destroy(grown);
  for (int k = 0; k < CARRIED; ++k)
    free(kept[k]);
  return status;
}
