/*
 * pso_spread.c - the PSO's partition, for the member engine
 * (framework/engine.h): each member moves a slice of the particles, and
 * after every iteration the members agree on the global best, which the
 * member that holds it sends to all. Under the ring topology each member
 * also takes, before every iteration, its halo: the personal bests of
 * the particles past its ends that its particles' neighbourhoods reach.
 *
 * The result is the one-device swarm's, bit for bit, on devices that
 * compute alike: a particle draws from its own random stream wherever it
 * lives (its index in the whole swarm), the global best is the least
 * personal best, ties going to the lowest index, as one device finds it,
 * and a ring neighbourhood is searched in the whole swarm's order.
 *
 * A member's device side is its two boxes. Its post reads its outbox (its
 * best, and its end particles for the ring); its step writes its inbox
 * where it changed: the ring's halo, or the global best that another
 * member found. A swarm on one device is the run's one member: its steps
 * keep the history, and it posts only when its best is asked for.
 */
#include <assert.h>
#include <string.h>

#include "pso/pso_internal.h"

/* Particles a slice holds a multiple of (but the last): whole warps, so
 * that each member's rows of x, v and pbest (d * n + p) start aligned as
 * a swarm's alone do; an odd slice made an H200's moves half as slow
 * again. */
#define SLICE_GRANULE 32

/* A probe's batches of iterations hold at most this many. */
#define PROBE_ITERATIONS 64

/* Its boxes: the outbox holds its best item, its end items and its
 * best's index; the inbox the ring's halo, or one item (the global best). */
static ck_status make_boxes(pso_swarm *swarm, uint32_t before, uint32_t after) {
  ck_status status = CK_OK;
  pso_state *state = &swarm->state;
  assert(before + after == 0 || before + after + 1 == state->ring);
  state->halo_before = before;
  state->halo_after = after;
  state->send_forward = before < state->n ? before : state->n;
  state->send_back = after < state->n ? after : state->n;
  size_t item = ((size_t)state->dim + 1) * state->real_size;
  size_t halo = (size_t)before + after;
  state->outbox_bytes =
      (1 + (size_t)state->send_forward + state->send_back) * item +
      sizeof(uint32_t);
  state->inbox_bytes = (halo ? halo : 1) * item;
  CK_TRY(ck__buffer_make_zeroed(state->queue, 1, state->outbox_bytes,
                                "a member's outbox", &state->outbox));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 1, state->inbox_bytes,
                                "a member's inbox", &state->inbox));
  CK_TRY(
      ck__host_alloc(state->queue, state->outbox_bytes, &state->outbox_host));
  CK_TRY(ck__host_alloc(state->queue, state->inbox_bytes, &state->inbox_host));
  /* As the device's inbox is: a halo is written where it differs. */
  memset(state->inbox_host, 0, state->inbox_bytes);
fail:
  return status;
}

ck_status ck__pso_member_make(const ck_device *device,
                              const ck_pso_config *config, uint32_t first,
                              size_t total, uint32_t before, uint32_t after,
                              pso_swarm **made) {
  ck_status status = ck__pso_swarm_allocate(device, config, first, total, made);
  return status ? status : make_boxes(*made, before, after);
}

ck_status ck__pso_member_post(pso_swarm *swarm) {
  pso_state *state = &swarm->state;
  ck_status status = swarm->steps->report(state);
  return status ? status
                : ck_buffer_read(state->queue, state->outbox, 0,
                                 state->outbox_bytes, state->outbox_host,
                                 CK_BLOCKING, NULL);
}

/* A member as the engine describes it: its slice of the caller's swarm,
 * which (several members) watches no target of its own: the run stops
 * their moves where the agreed best meets it. */
static ck_status make_member(const ck_pso *pso, const ck__engine_member *member,
                             pso_swarm **made) {
  ck_pso_config slice = *pso->given;
  slice.particles = member->units;
  slice.has_target = member->members == 1 && slice.has_target;
  ck_status status = ck__pso_member_make(
      member->device, &slice, (uint32_t)member->first, member->total,
      (uint32_t)member->halo[CK__ENGINE_BEFORE],
      (uint32_t)member->halo[CK__ENGINE_AFTER], made);
  if (*made)
    (*made)->number = member->number;
  return status;
}

/* ---- the phases (on each member's thread) ------------------------------ */

/* A probe's member, and the iterations it has made. */
typedef struct probe_swarm {
  pso_swarm *swarm;
  uint64_t done;
} probe_swarm;

static ck_status probe_step(void *context, uint64_t count) {
  probe_swarm *trial = context;
  ck_status status = ck__pso_advance(trial->swarm, trial->done + 1, count);
  trial->done += count;
  return status ? status : ck_queue_finish(trial->swarm->state.queue);
}

/* Particle-iterations a second, on a member of an equal share. */
static ck_status probe(void *self, const ck__engine_member *trial,
                       double *per_second) {
  probe_swarm swarm = {NULL, 0};
  double iterations = 0;
  ck_status status = make_member(self, trial, &swarm.swarm);
  if (status == CK_OK)
    status = ck__pso_swarm_set_up(swarm.swarm);
  if (status == CK_OK)
    status = ck__spread_time(probe_step, &swarm, PROBE_ITERATIONS, &iterations);
  *per_second = iterations * (double)trial->units;
  ck__pso_swarm_destroy(swarm.swarm);
  return status;
}

static ck_status allocate(void *self, const ck__engine_member *member,
                          ck_queue **queue) {
  ck_pso *pso = self;
  pso_swarm **made = &pso->swarms[member->index];
  ck_status status = make_member(pso, member, made);
  if (status)
    return status;
  /* A member alone keeps the run's history. */
  (*made)->history = member->members == 1 ? &pso->history : NULL;
  *queue = (*made)->state.queue;
  return CK_OK;
}

static ck_status set_up(void *self, size_t i) {
  return ck__pso_swarm_set_up(((ck_pso *)self)->swarms[i]);
}

/* Its inbox where it changed, queued without a wait (the post's read
 * waits for it); under gbest copied on the device into its best value
 * and gbest. Then its moves, unless the agreed best met the target. */
static ck_status step(void *self, size_t i, uint64_t first, uint64_t count) {
  ck_status status = CK_OK;
  ck_pso *pso = self;
  pso_swarm *swarm = pso->swarms[i];
  pso_state *state = &swarm->state;
  if (pso->met)
    return CK_OK;
  if (swarm->inbox_new) {
    swarm->inbox_new = 0;
    CK_TRY(ck_buffer_write(state->queue, state->inbox, 0, state->inbox_bytes,
                           state->inbox_host, CK_NONBLOCKING, NULL));
    if (state->halo_before + state->halo_after == 0) {
      CK_TRY(ck_buffer_copy(state->queue, state->best_value, 0, state->inbox, 0,
                            pso->real, NULL));
      CK_TRY(ck_buffer_copy(state->queue, state->gbest, 0, state->inbox,
                            pso->real, pso->item - pso->real, NULL));
    }
  }
  CK_TRY(ck__pso_advance(swarm, first, count));
fail:
  return status;
}

static ck_status post(void *self, size_t i) {
  return ck__pso_member_post(((ck_pso *)self)->swarms[i]);
}

/* ---- between phases (on the calling thread) ---------------------------- */

static void offer(void *self, size_t i, ck__engine_offer *offer) {
  const ck_pso *pso = self;
  const pso_state *state = &pso->swarms[i]->state;
  const unsigned char *box = state->outbox_host;
  uint32_t index = 0;
  assert(state->outbox_bytes ==
         (1 + (size_t)state->send_forward + state->send_back) * pso->item +
             sizeof index);
  memcpy(&index, box + state->outbox_bytes - sizeof index, sizeof index);
  offer->value = ck__pso_real(pso, box);
  offer->index = index;
  offer->item = box;
  offer->ends[CK__ENGINE_BEFORE] = box + pso->item;
  offer->ends[CK__ENGINE_AFTER] =
      box + pso->item * (1 + (size_t)state->send_forward);
}

/* A ring's halo, into its inbox where it changed. */
static void take_halo(void *self, size_t i, const void *items) {
  pso_swarm *swarm = ((ck_pso *)self)->swarms[i];
  pso_state *state = &swarm->state;
  if (memcmp(state->inbox_host, items, state->inbox_bytes) != 0) {
    memcpy(state->inbox_host, items, state->inbox_bytes);
    swarm->inbox_new = 1;
  }
}

/* The agreed best, into the history, and (gbest) into the inboxes of the
 * members that do not hold it. */
static ck_status reduced(void *self, const ck__engine_round *round) {
  ck_pso *pso = self;
  for (size_t i = 0; round->best_changed && i < pso->local; ++i) {
    pso_swarm *swarm = pso->swarms[i];
    pso_state *state = &swarm->state;
    if (swarm->number == round->holder ||
        state->halo_before + state->halo_after)
      continue;
    memcpy(state->inbox_host, round->best_item, pso->item);
    swarm->inbox_new = 1;
  }
  /* The target met: the best stays, recorded again as one device's
   * finished launches record it. Every process sees the same best. */
  pso->met = pso->config.has_target && round->best <= pso->target;
  return ck__history_push_rows(&pso->history, &round->best, 1);
}

static void teardown(void *self, size_t i) {
  ck_pso *pso = self;
  ck__pso_swarm_destroy(pso->swarms[i]);
  pso->swarms[i] = NULL;
}

const ck__engine_kind ck__pso_kind = {.unit_name = "particles",
                                      .granule = SLICE_GRANULE,
                                      .best = CK__ENGINE_BEST_SO_FAR,
                                      .probe = probe,
                                      .allocate = allocate,
                                      .set_up = set_up,
                                      .step = step,
                                      .post = post,
                                      .offer = offer,
                                      .take_halo = take_halo,
                                      .reduced = reduced,
                                      .teardown = teardown};
