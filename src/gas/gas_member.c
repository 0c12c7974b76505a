/*
 * gas_member.c - a spread member's device state (ck_gas.h's spread
 * members): the slots of its own particles and of its ghosts, filled,
 * exchanged, sorted and stepped through the backend's steps, for the
 * spread driver (gas_spread.c), which says what crosses between members.
 *
 * Members compute in single precision: what crosses is raw floats, as
 * the devices hold them, and ids as words.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gas/gas_internal.h"

/* The member buffers: the outbox's, for `messages` entries a side
 * (ck__gas_member_messages), then the inbox's, for `entries` received
 * (ck__gas_member_inbox_room), each with its elements an entry (the outbox's
 * with 4 regions of entries for a cells-mode member's step out), whether
 * they are reals (else words), and its name. */
#define OUTBOX_BUFFERS 7
#define MESSAGE_BUFFERS 11
#define PACKED_OUTBOX 5

/* The packed outbox has two halves (ck_gas_packed_half): a resident step
 * packs one while its neighbours may read the other. The counts and the
 * control words have a fixed size (per_entry 0: `fixed` elements). */
static const struct {
  size_t per_entry, fixed;
  int real;
  const char *name;
} shapes[MESSAGE_BUFFERS] = {{2, 0, 0, "member lists"},
                             {0, 4, 0, "member counts"},
                             {4, 0, 0, "outbox words"},
                             {16, 0, 1, "outbox"},
                             {4, 0, 0, "export slots"},
                             {2 * CK_GAS_PACKED_WORDS, 0, 0, "packed outbox"},
                             {0, CK_GAS_CONTROL_WORDS, 0, "member control"},
                             {1, 0, 0, "inbox words"},
                             {4, 0, 1, "inbox"},
                             {1, 0, 0, "ghost slots"},
                             {CK_GAS_ENTRY_WORDS, 0, 0, "packed inbox"}};

static ck_buffer **message_buffer(gas_state *state, int which) {
  ck_buffer **buffers[MESSAGE_BUFFERS] = {
      &state->member_list,    &state->member_counts, &state->out_word,
      &state->out_real,       &state->export_slots,  &state->out_packed,
      &state->member_control, &state->in_word,       &state->in_real,
      &state->ghost_slots,    &state->in_packed};
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
  state->id_snapshot = state->part_mark = NULL;
}

void ck__gas_member_staging_free(gas_state *state) {
  /* Writes from it may be pending: they end before it goes. */
  if (state->staging_pending && state->queue)
    ck_queue_finish(state->queue);
  if (state->queue) {
    ck__host_free(state->queue, state->staging);
    ck__host_free(state->queue, state->read_host);
  }
  state->staging = state->read_host = NULL;
  state->staging_bytes = state->read_bytes = 0;
  state->staging_pending = 0;
}

/* At least `bytes` of the queue's fastest host memory in *memory (of
 * *capacity bytes), made anew where it holds too few; its content goes.
 * Writes pending from it are waited for first. */
static ck_status hold_host(gas_state *state, void **memory, size_t *capacity,
                           size_t bytes) {
  ck_status status = CK_OK;
  if (bytes <= *capacity)
    return CK_OK;
  if (state->staging_pending)
    CK_TRY(ck_queue_finish(state->queue));
  state->staging_pending = 0;
  ck__host_free(state->queue, *memory);
  *memory = NULL;
  *capacity = 0;
  CK_TRY(ck__host_alloc(state->queue, bytes + bytes / 2, memory));
  *capacity = bytes + bytes / 2;
fail:
  return status;
}

/* Writes n pieces (sizes[k] bytes from pieces[k]) one after another to
 * buffer from byte `offset`: copied once into the staging, then one
 * write from it without a wait (one still pending from it is waited for
 * first). */
static ck_status write_staged(gas_state *state, ck_buffer *buffer,
                              size_t offset, int n, const void *const *pieces,
                              const size_t *sizes) {
  ck_status status = CK_OK;
  size_t bytes = 0;
  for (int k = 0; k < n; ++k)
    bytes += sizes[k];
  if (bytes == 0)
    return CK_OK;
  if (state->staging_pending)
    CK_TRY(ck_queue_finish(state->queue));
  state->staging_pending = 0;
  CK_TRY(hold_host(state, &state->staging, &state->staging_bytes, bytes));
  unsigned char *at = state->staging;
  for (int k = 0; k < n; ++k)
    if (sizes[k] > 0) {
      memcpy(at, pieces[k], sizes[k]);
      at += sizes[k];
    }
  CK_TRY(ck_buffer_write(state->queue, buffer, offset, bytes, state->staging,
                         CK_NONBLOCKING, NULL));
  state->staging_pending = 1;
fail:
  return status;
}

/* Queues reads of bytes[side] from byte at[side] of buffer for each side
 * into read_host, the sides one after the other (what it held goes);
 * out[side] points at each, NULL where it has none. The caller waits. */
static ck_status read_sides(gas_state *state, ck_buffer *buffer,
                            const size_t at[2], const size_t bytes[2],
                            const void *out[2]) {
  ck_status status = CK_OK;
  out[0] = out[1] = NULL;
  CK_TRY(hold_host(state, &state->read_host, &state->read_bytes,
                   bytes[0] + bytes[1]));
  unsigned char *host = state->read_host;
  for (int side = 0; side < 2; ++side) {
    if (bytes[side] == 0)
      continue;
    out[side] = host + (side ? bytes[0] : 0);
    CK_TRY(ck_buffer_read(state->queue, buffer, at[side], bytes[side],
                          host + (side ? bytes[0] : 0), CK_NONBLOCKING, NULL));
  }
fail:
  return status;
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
  if (!state->in_word) {
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
  if (state->staging_pending)
    CK_TRY(ck_queue_finish(state->queue));
  state->staging_pending = 0;
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

size_t ck__gas_member_slots(const ck_gas *member) {
  return member->state.particles;
}

ck_queue *ck__gas_member_queue(ck_gas *member) {
  return member->state.queue;
}

/* The forms a state was made with, to make it again. */
static ck__gas_forms forms_of(const gas_state *state) {
  return (ck__gas_forms){state->tiles, state->strips_request,
                         state->sort_request, state->fine_cells};
}

/* Reads slots [0, count) of a buffer of `size`-byte elements (2 a slot
 * for positions and velocities) into host memory. */
static ck_status read_slots(gas_state *state, ck_buffer *buffer, size_t count,
                            size_t bytes_a_slot, void *out) {
  if (count == 0)
    return CK_OK;
  return ck_buffer_read(state->queue, buffer, 0, count * bytes_a_slot, out,
                        CK_BLOCKING, NULL);
}

/* Writes count slots from `first` of a buffer. */
static ck_status write_slots(gas_state *state, ck_buffer *buffer, size_t first,
                             size_t count, size_t bytes_a_slot,
                             const void *data) {
  if (count == 0)
    return CK_OK;
  return ck_buffer_write(state->queue, buffer, first * bytes_a_slot,
                         count * bytes_a_slot, data, CK_BLOCKING, NULL);
}

ck_status ck__gas_member_reserve(ck_gas **member, size_t slots) {
  ck_status status = CK_OK;
  ck_gas *old = *member, *grown = NULL;
  gas_state *state = &old->state;
  size_t used = state->particles, real = state->real_size;
  float *positions = NULL, *velocities = NULL, *forces = NULL;
  uint32_t *ids = NULL, *packed = NULL, *inbox = NULL;
  size_t packed_words, word_size, inbox_kept = state->inbox_kept;
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
  positions = malloc((used ? used : 1) * 2 * real);
  velocities = malloc((used ? used : 1) * 2 * real);
  forces = malloc((used ? used : 1) * 2 * real);
  ids = malloc((used ? used : 1) * sizeof *ids);
  packed = malloc(packed_words * sizeof *packed);
  if (!positions || !velocities || !forces || !ids || !packed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu particles",
            used);
  CK_TRY(read_slots(state, state->position, used, 2 * real, positions));
  CK_TRY(read_slots(state, state->velocity, used, 2 * real, velocities));
  /* The forces too: a state made again between steps (a resident
   * settle) takes its next first half-kick from them. */
  CK_TRY(read_slots(state, state->force, used, 2 * real, forces));
  CK_TRY(read_slots(state, state->id, used, 4, ids));
  /* The messages packed at a rebuild, not all sent yet, go along. */
  CK_TRY(read_slots(state, state->out_packed, packed_words, 4, packed));
  /* So do the entries of a grid's stage 0 that its sort will look for. */
  CK_TRY(read_kept_inbox(state, &inbox));
  CK_TRY(ck__gas_member_make(&state->device, &config, forms_of(state),
                             state->message_capacity, state->walls_x,
                             state->slab ? -1 : state->walls_y, state->tiers, 1,
                             &grown));
  gas_state *fresh = &grown->state;
  CK_TRY(write_slots(fresh, fresh->position, 0, used, 2 * real, positions));
  CK_TRY(write_slots(fresh, fresh->velocity, 0, used, 2 * real, velocities));
  CK_TRY(write_slots(fresh, fresh->force, 0, used, 2 * real, forces));
  CK_TRY(write_slots(fresh, fresh->id, 0, used, 4, ids));
  CK_TRY(write_slots(fresh, fresh->out_packed, 0, packed_words, 4, packed));
  if (inbox) {
    CK_TRY(ck__gas_member_inbox_room(fresh, inbox_kept / CK_GAS_GHOST_WORDS));
    CK_TRY(write_slots(fresh, fresh->in_packed, 0, inbox_kept, 4, inbox));
    fresh->inbox_kept = (uint32_t)inbox_kept;
  }
  fresh->particles = (uint32_t)used;
  ck_gas_destroy(old);
  *member = grown;
  grown = NULL;
fail:
  ck_gas_destroy(grown);
  free(positions);
  free(velocities);
  free(forces);
  free(ids);
  free(packed);
  free(inbox);
  return status;
}

/* Room for count more slots' words and 4 floats each (position,
 * velocity) in the member's host memory, to fill; then enter puts them
 * in the slots after those in use. Room must be reserved. */
static ck_status inbox(ck_gas *member, size_t count, uint32_t **words,
                       float **reals) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  if (state->particles + count > member->config.particles)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "a member of %zu slots given %zu more to its %u",
                    member->config.particles, count, state->particles);
  /* The writes read the staging after they are asked for: one still
   * pending is waited for before it is filled again. */
  if (state->staging_pending)
    CK_TRY(ck_queue_finish(state->queue));
  state->staging_pending = 0;
  CK_TRY(ck__gas_member_inbox_room(state, count));
  CK_TRY(hold_host(state, &state->staging, &state->staging_bytes,
                   count * (4 * sizeof(float) + sizeof(uint32_t))));
  *words = state->staging;
  *reals = (float *)(*words + count);
fail:
  return status;
}

static ck_status enter(ck_gas *member, size_t count) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t *words = state->staging;
  float *reals = (float *)(words + count);
  if (count == 0)
    return CK_OK;
  CK_TRY(ck_buffer_write(state->queue, state->in_word, 0, 4 * count, words,
                         CK_NONBLOCKING, NULL));
  CK_TRY(ck_buffer_write(state->queue, state->in_real, 0, 16 * count, reals,
                         CK_NONBLOCKING, NULL));
  state->staging_pending = 1;
  CK_TRY(member->steps->enter(state, state->particles, (uint32_t)count));
  state->particles += (uint32_t)count;
fail:
  return status;
}

ck_status ck__gas_member_append(ck_gas *member, size_t count,
                                const uint32_t *words, const float *reals,
                                uint32_t stride, int ghost) {
  ck_status status = CK_OK;
  uint32_t *inbox_words = NULL;
  float *inbox_reals = NULL;
  if (count == 0)
    return CK_OK;
  CK_TRY(inbox(member, count, &inbox_words, &inbox_reals));
  /* Position and velocity (a ghost's velocity zero: it is not moved). */
  for (size_t e = 0; e < count; ++e) {
    const float *entry = reals + (size_t)stride * e;
    inbox_reals[4 * e] = entry[0];
    inbox_reals[4 * e + 1] = entry[1];
    inbox_reals[4 * e + 2] = stride == 4 ? entry[2] : 0.0f;
    inbox_reals[4 * e + 3] = stride == 4 ? entry[3] : 0.0f;
    inbox_words[e] = ghost ? words[e] | CK_GAS_GHOST : words[e];
  }
  CK_TRY(enter(member, count));
fail:
  return status;
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
  if (out) {
    CK_TRY(read_sides(state, state->out_packed, at, bytes, out));
    CK_TRY(ck_queue_finish(state->queue));
  }
fail:
  return status;
}

/* Where ck__gas_member_admit reads the entries of `kind` (0: migrants,
 * 1: ghosts) from `side` (0: the previous member) in the packed inbox, in
 * words: both sides' migrants, then both sides' ghosts. */
static size_t inbox_at(int kind, int side, const uint32_t migrants[2],
                       const uint32_t ghosts[2]) {
  const uint32_t *counts = kind ? ghosts : migrants;
  size_t at =
      kind ? CK_GAS_ENTRY_WORDS * ((size_t)migrants[0] + migrants[1]) : 0;
  return at + (side ? ck_gas_entry_words(kind) * (size_t)counts[0] : 0);
}

ck_status ck__gas_member_forward(ck_gas *sender, int side, ck_gas *receiver,
                                 int from, const uint32_t migrants[2],
                                 const uint32_t ghosts[2], ck__peer *peer) {
  ck_status status = CK_OK;
  gas_state *out = &sender->state, *in = &receiver->state;
  uint32_t capacity = out->message_capacity;
  /* A cells-mode step out puts its exports where a rebuild keeps its
   * own (ck_gas_member_put); a rebuild posts either kind as a message. */
  int cells = out->neighbors == CK_GAS_CELLS;
  size_t source[2] = {ck_gas_message_at(side, capacity),
                      cells ? ck_gas_kept_at(side, capacity)
                            : ck_gas_message_at(side, capacity)};
  uint32_t counts[2] = {migrants[from], ghosts[from]};
  for (int kind = 0; kind < 2; ++kind)
    if (counts[kind] > 0)
      CK_TRY(
          ck__peer_copy(peer, in->queue, in->in_packed,
                        4 * inbox_at(kind, from, migrants, ghosts), out->queue,
                        out->out_packed, 4 * source[kind],
                        4 * (size_t)ck_gas_entry_words(kind) * counts[kind]));
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
  assert(in || base == 0);
  if (state->particles + count > member->config.particles ||
      count + base / CK_GAS_GHOST_WORDS > state->inbox_capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "a member of %zu slots given %zu more to its %u",
                    member->config.particles, count, state->particles);
  if (in) {
    /* The migrants of both sides, then the ghosts, in one write. */
    const void *pieces[4] = {NULL, NULL, NULL, NULL};
    size_t sizes[4], at = 0;
    for (int kind = 0; kind < 2; ++kind)
      for (int side = 0; side < 2; ++side) {
        const unsigned char *message = in[side];
        size_t size = kind ? ghosts[side] * ghost : migrants[side] * migrant;
        assert(at == 4 * inbox_at(kind, side, migrants, ghosts));
        sizes[2 * kind + side] = size;
        if (size > 0)
          pieces[2 * kind + side] =
              message + (kind ? migrants[side] * migrant : 0);
        at += size;
      }
    CK_TRY(write_staged(state, state->in_packed, 4 * (size_t)base, 4, pieces,
                        sizes));
  }
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
  /* A new rebuild is flagged from here on, and nothing is missing yet;
   * a list's overflow (flags[1]) stays until the sums report it. */
  static const uint32_t clear = 0;
  CK_TRY(ck_buffer_write(state->queue, state->flags, 0, 4, &clear, CK_BLOCKING,
                         NULL));
  CK_TRY(ck_buffer_write(state->queue, state->flags, 8, 4, &clear, CK_BLOCKING,
                         NULL));
  /* The exports by what the rebuild kept of them, the ghosts by their
   * entries in the packed inbox, as appended: stage 1's past stage 0's. */
  for (int side = 0; side < 4; ++side)
    if (exports[side] > 0)
      CK_TRY(member->steps->locate(state, 0, (uint32_t)side * capacity,
                                   exports[side],
                                   ck_gas_kept_at(side, capacity), 0));
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
  uint32_t *copy = (uint32_t *)state->read_host + 4;
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
                               int entries, ck__gas_outbox *out) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t *counts = NULL;
  assert(stage == 0 || !move);
  if (stage == 1)
    CK_TRY(snapshot_words(state, 0));
  for (int again = 0;; again = 1) {
    size_t capacity = state->message_capacity;
    CK_TRY(hold_host(state, &state->read_host, &state->read_bytes,
                     4 * (4 + (entries ? CK_GAS_PACKED_WORDS * capacity : 0))));
    counts = state->read_host;
    if (again && stage == 1)
      CK_TRY(snapshot_words(state, 1));
    CK_TRY(member->steps->leave(state, again ? 0 : move, lo, hi, reach, shift,
                                again && stage == 0, stage));
    /* The counts and, unasked, as many entries as they are likely to be:
     * one wait in all, most steps. */
    size_t guess[4] = {0, 0, 0, 0};
    CK_TRY(ck_buffer_read(state->queue, state->member_counts, 0,
                          4 * sizeof *counts, counts, CK_NONBLOCKING, NULL));
    for (int region = 0; entries && region < 4; ++region) {
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
      for (int region = 0; entries && region < 4; ++region)
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
    out->entries[region] =
        entries ? counts + 4 + region_at(state, region, &words) : NULL;
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
  return member->steps->kick_drift(&member->state);
}

ck_status ck__gas_member_pack(ck_gas *member, const uint32_t counts[2],
                              const double shift[2], int stage,
                              const void *out[2], uint32_t flags[3]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  size_t at[2], bytes[2];
  for (int side = 0; side < 2; ++side) {
    uint32_t base = (uint32_t)(2 * stage + side) * state->message_capacity;
    at[side] = (size_t)base * 8;
    bytes[side] = (size_t)counts[side] * 8;
    if (counts[side] > 0)
      CK_TRY(
          member->steps->gather(state, base, counts[side], shift[side], stage));
  }
  if (out)
    CK_TRY(read_sides(state, state->out_real, at, bytes, out));
  CK_TRY(ck_buffer_read(state->queue, state->flags, 0, 3 * sizeof *flags, flags,
                        CK_NONBLOCKING, NULL));
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

ck_status ck__gas_member_unpack(ck_gas *member, size_t base,
                                const size_t counts[2],
                                const void *const positions[2]) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  size_t count = counts[0] + counts[1];
  if (count == 0)
    return CK_OK;
  if (positions) {
    size_t sizes[2] = {8 * counts[0], 8 * counts[1]};
    CK_TRY(write_staged(state, state->in_real, 0, 2, positions, sizes));
  }
  CK_TRY(member->steps->unpack(state, (uint32_t)base, (uint32_t)count));
fail:
  return status;
}

ck_status ck__gas_member_send(ck_gas *sender, int side, uint32_t count,
                              ck_gas *receiver, size_t first, ck__peer *peer) {
  gas_state *from = &sender->state, *to = &receiver->state;
  size_t base = (size_t)side * from->message_capacity;
  return ck__peer_copy(peer, to->queue, to->in_real, first * 8, from->queue,
                       from->out_real, base * 8, (size_t)count * 8);
}

ck_status ck__gas_member_forces(ck_gas *member, int part, int with_energy,
                                uint64_t kick_step) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  assert(part == 0 || state->part_mark);
  state->with_energy = with_energy;
  state->kick_step = kick_step;
  state->ahead = 0;
  state->force_part = part;
  CK_TRY(member->steps->forces(state));
  /* A kick the forces did not make kicks every slot: after the last
   * part. */
  if (state->kick_step && part != 1)
    CK_TRY(member->steps->kick(state, kick_step));
fail:
  state->kick_step = 0;
  state->force_part = 0;
  return status;
}

ck_status ck__gas_member_parts(ck_gas *member, const double borders[4],
                               double reach) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  if (!state->part_mark)
    CK_TRY(ck__buffer_make_zeroed(state->queue, state->slots, 4, "part marks",
                                  &state->part_mark));
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

ck_status ck__gas_member_rdf(ck_gas *member, size_t bins, double range,
                             uint64_t *counts) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  uint32_t *sample = calloc(bins, sizeof *sample);
  if (!sample)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  if (state->rdf_bins != bins) {
    ck_buffer_destroy(state->rdf_counts);
    state->rdf_counts = NULL;
    state->rdf_bins = 0;
    CK_TRY(ck__buffer_make_zeroed(state->queue, bins, 4, "rdf histogram",
                                  &state->rdf_counts));
    state->rdf_bins = (uint32_t)bins;
  }
  if (state->particles > 0) {
    CK_TRY(ck_buffer_write(state->queue, state->rdf_counts, 0, bins * 4, sample,
                           CK_BLOCKING, NULL));
    CK_TRY(member->steps->rdf(state, (uint32_t)bins, range));
    CK_TRY(ck_buffer_read(state->queue, state->rdf_counts, 0, bins * 4, sample,
                          CK_BLOCKING, NULL));
  }
  for (size_t b = 0; b < bins; ++b)
    counts[b] += sample[b];
fail:
  free(sample);
  return status;
}

ck_status ck__gas_member_own(ck_gas *member, size_t *count, uint32_t *ids,
                             float *positions, float *velocities, float *forces,
                             float *energies, float *virials) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  size_t n = state->particles;
  uint32_t *words = malloc((n ? n : 1) * sizeof *words);
  float *scratch = malloc((n ? n : 1) * 2 * sizeof *scratch);
  if (!words || !scratch)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu particles", n);
  CK_TRY(read_slots(state, state->id, n, 4, words));
  size_t own = 0;
  for (size_t k = 0; k < n; ++k)
    if (ck_gas_own(words[k]))
      ids[own++] = words[k];
  *count = own;
  /* Each array asked for, compacted to the own slots alone. */
  struct {
    float *out;
    ck_buffer *buffer;
    size_t width;
  } arrays[] = {{positions, state->position, 2},
                {velocities, state->velocity, 2},
                {forces, state->force, 2},
                {energies, state->energy, 1},
                {virials, state->virial, 1}};
  for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a) {
    if (!arrays[a].out)
      continue;
    size_t width = arrays[a].width;
    CK_TRY(read_slots(state, arrays[a].buffer, n, width * 4, scratch));
    size_t at = 0;
    for (size_t k = 0; k < n; ++k)
      if (ck_gas_own(words[k])) {
        memcpy(arrays[a].out + width * at, scratch + width * k,
               width * sizeof *scratch);
        ++at;
      }
  }
fail:
  free(words);
  free(scratch);
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
      write_staged(state, state->member_control, 0, 1, pieces, sizes);
  /* A slab's neighbours read its tag (CK_GAS_CONTROL_READY) without its
   * queue's order: it is 0 on the device before any of them steps. */
  if (status == CK_OK && state->slab)
    status = ck_queue_finish(state->queue);
  if (status == CK_OK)
    state->resident = 1;
  return status;
}

ck_status ck__gas_member_source(ck_gas *member, const ck__peer *peer,
                                ck__gas_source *source) {
  ck_status status = CK_OK;
  gas_state *state = &member->state;
  CK_TRY(ck__peer_address(peer, state->out_packed, &source->packed));
  CK_TRY(ck__peer_address(peer, state->member_control, &source->control));
  source->capacity = state->message_capacity;
  source->leavers = state->message_capacity;
fail:
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
  CK_TRY(ck__gas_member_forces(member, 0, with_energy, kick_step));
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
