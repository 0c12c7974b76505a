/*
 * pso_spread.c - one swarm over several devices (and processes): each
 * member moves a slice of the particles, and after every iteration the
 * members agree on the global best, which the member that holds it sends
 * to all. Under the ring topology each member also takes, before every
 * iteration, its halo: the personal bests of the particles past its ends
 * that its particles' neighbourhoods reach.
 *
 * The result is the one-device swarm's, bit for bit, on devices that
 * compute alike: a particle draws from its own random stream wherever it
 * lives (its index in the whole swarm), the global best is the least
 * personal best, ties going to the lowest index, as one device finds it,
 * and a ring neighbourhood is searched in the whole swarm's order.
 *
 * Members' device work runs in phases, on every local member at once
 * (ck__spread_each); what crosses between members crosses on the calling
 * thread, between phases. An iteration reads a member's device once, its
 * outbox (its best, and its end particles for the ring), and writes it
 * once at most: the ring's halo where it changed, or the global best that
 * another member found.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "pso/pso_internal.h"

/* The ring's two ways: items passed forward, to the next member (its
 * halo before its particles), and back. */
enum { FORWARD, BACK };

struct ck__pso_spread {
  ck__spread_run run;
  ck_pso **members; /* local ones */
  int dim;
  int double_precision;
  size_t real, item; /* bytes of a real, and of an item (ck_pso_report) */
  double best;       /* the global best value, and where it is */
  uint64_t best_index;
  double *position;   /* dim: the global best position */
  void *best_item;    /* its item, as its holder's outbox held it */
  int has_target;     /* once the best meets it, moves stop, as the */
  double target;      /* kernels of a swarm alone stop on the device */
  uint64_t iteration; /* the next phase's */
  /* Local member i's inbox_host is new: its next phase writes it. */
  int changed[CK_SPREAD_MAX_LOCAL];
  /* The ring: the halo's items each way (0: no halo), the passes that
   * fill it where slices are smaller than it, what local member i
   * received each way and what it sends. */
  uint32_t halo[2];
  size_t passes[2];
  ck__exchange_buffer from[2][CK_SPREAD_MAX_LOCAL], out[CK_SPREAD_MAX_LOCAL];
};

static pso_state *member_state(ck__pso_spread *spread, size_t i) {
  return ck__pso_state(spread->members[i]);
}

/* A real of the swarm's precision, in host memory, as a double. */
static double real_at(const ck__pso_spread *spread, const void *at) {
  if (spread->double_precision) {
    double value;
    memcpy(&value, at, sizeof value);
    return value;
  }
  float value;
  memcpy(&value, at, sizeof value);
  return value;
}

/* ---- members ------------------------------------------------------------- */

ck_status ck__pso_spread_member(const ck_device *device,
                                const ck_pso_config *config, uint32_t first,
                                size_t total, uint32_t before, uint32_t after,
                                ck_pso **made) {
  ck_status status = CK_OK;
  CK_TRY(ck__pso_slice_allocate(device, config, first, total, made));
  pso_state *state = ck__pso_state(*made);
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

/* Its outbox, read: an iteration's one read of a member's device. */
static ck_status read_outbox(pso_state *state) {
  return ck_buffer_read(state->queue, state->outbox, 0, state->outbox_bytes,
                        state->outbox_host, CK_BLOCKING, NULL);
}

/* What the member's next iteration needs, where it changed: the ring's
 * halo, or (gbest) the global best that another member found, copied on
 * the device into its best value and gbest. Queued without a wait: the
 * outbox's read, later in the phase, waits for it. */
static ck_status write_inbox(ck__pso_spread *spread, size_t i) {
  ck_status status = CK_OK;
  pso_state *state = member_state(spread, i);
  if (!spread->changed[i])
    return CK_OK;
  spread->changed[i] = 0;
  CK_TRY(ck_buffer_write(state->queue, state->inbox, 0, state->inbox_bytes,
                         state->inbox_host, CK_NONBLOCKING, NULL));
  if (state->halo_before + state->halo_after == 0) {
    CK_TRY(ck_buffer_copy(state->queue, state->best_value, 0, state->inbox, 0,
                          spread->real, NULL));
    CK_TRY(ck_buffer_copy(state->queue, state->gbest, 0, state->inbox,
                          spread->real, spread->item - spread->real, NULL));
  }
fail:
  return status;
}

/* The making of the members: their slices and boxes, then (a second
 * phase, once all agree that their swarms fit) their kernels and their
 * initial swarms, the outbox read. */
typedef struct make_call {
  ck__pso_spread *spread;
  const ck_spread *given;
  const ck_pso_config *config;
} make_call;

static ck_status allocate_phase(void *context, size_t i) {
  const make_call *call = context;
  ck__pso_spread *spread = call->spread;
  ck__spread_run *run = &spread->run;
  /* The target is the driver's to watch, over the whole swarm. */
  ck_pso_config slice = *call->config;
  slice.particles = run->units[i];
  slice.has_target = 0;
  ck_status status = ck__pso_spread_member(
      &call->given->devices[i], &slice, (uint32_t)run->first[i],
      call->config->particles, spread->halo[FORWARD], spread->halo[BACK],
      &spread->members[i]);
  if (status == CK_OK)
    run->queues[i] = member_state(spread, i)->queue;
  return status;
}

static ck_status set_up_phase(void *context, size_t i) {
  ck__pso_spread *spread = context;
  ck_status status = ck__pso_slice_set_up(spread->members[i]);
  return status ? status : read_outbox(member_state(spread, i));
}

/* An iteration of a member: its inbox, its device work, its outbox. */
static ck_status iterate_phase(void *context, size_t i) {
  ck__pso_spread *spread = context;
  ck_status status = write_inbox(spread, i);
  if (status == CK_OK)
    status = ck__pso_slice_iterate(spread->members[i], spread->iteration);
  return status ? status : read_outbox(member_state(spread, i));
}

/* ---- between phases ------------------------------------------------------ */

/* The global best after every member's iteration, from their outboxes:
 * the least of the members' bests (a member that found nothing better
 * offers the best it was given). The holder's item then goes to every
 * process and, under gbest, into the inboxes of the members that do not
 * hold it. */
static ck_status agree_on_best(ck__pso_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  double values[CK_SPREAD_MAX_LOCAL];
  uint64_t indices[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    const pso_state *state = member_state(spread, i);
    const unsigned char *box = state->outbox_host;
    uint32_t index = 0;
    assert(state->outbox_bytes ==
           (1 + (size_t)state->send_forward + state->send_back) * spread->item +
               sizeof index);
    memcpy(&index, box + state->outbox_bytes - sizeof index, sizeof index);
    values[i] = real_at(spread, box);
    if (values[i] < spread->best)
      indices[i] = run->first[i] + index;
    else {
      values[i] = spread->best;
      indices[i] = spread->best_index;
    }
  }
  double best = 0;
  uint64_t index = 0;
  size_t holder = 0;
  CK_TRY(
      ck__exchange_min(run->exchange, values, indices, &best, &index, &holder));
  if (!(best < spread->best))
    return CK_OK;
  spread->best = best;
  spread->best_index = index;
  size_t first = ck__exchange_first(run->exchange);
  if (holder >= first && holder < first + run->local)
    memcpy(spread->best_item, member_state(spread, holder - first)->outbox_host,
           spread->item);
  CK_TRY(ck__exchange_broadcast(run->exchange, holder, spread->best_item,
                                spread->item));
  const unsigned char *coordinates =
      (const unsigned char *)spread->best_item + spread->real;
  for (int d = 0; d < spread->dim; ++d)
    spread->position[d] = real_at(spread, coordinates + d * spread->real);
  for (size_t i = 0;
       i < run->local && !spread->halo[FORWARD] && !spread->halo[BACK]; ++i) {
    if (first + i == holder)
      continue;
    memcpy(member_state(spread, i)->inbox_host, spread->best_item,
           spread->item);
    spread->changed[i] = 1;
  }
fail:
  return status;
}

/* The items local member i sends `side`'s way in a pass: its own end
 * particles (after its best item in the outbox: its last ones, then its
 * first), with what it received that way before, in ring order; at most
 * the halo's count, those nearest the receiver. */
static ck_status to_send(ck__pso_spread *spread, int side, size_t i,
                         const void **send, size_t *count) {
  ck_status status = CK_OK;
  const pso_state *state = member_state(spread, i);
  const ck__exchange_buffer *got = &spread->from[side][i];
  ck__exchange_buffer *out = &spread->out[i];
  size_t item = spread->item;
  size_t own = side == FORWARD ? state->send_forward : state->send_back;
  const unsigned char *mine =
      (const unsigned char *)state->outbox_host +
      item * (side == FORWARD ? 1 : 1 + (size_t)state->send_forward);
  size_t all = got->count + own;
  CK_TRY(ck__exchange_buffer_hold(out, item, all));
  unsigned char *at = out->data;
  /* Forward: what came from before, then its own; back: its own, then
   * what came from after. */
  if (got->count)
    memcpy(at + (side == FORWARD ? 0 : own * item), got->data,
           got->count * item);
  if (own)
    memcpy(at + (side == FORWARD ? got->count * item : 0), mine, own * item);
  *count = all < spread->halo[side] ? all : spread->halo[side];
  *send = side == FORWARD ? at + (all - *count) * item : at;
fail:
  return status;
}

/* The ring's halos for the next iteration, from the members' outboxes:
 * each member's last particles go forward to the next member, its first
 * back to the previous, and again, with what came, where slices are
 * smaller than the halo. A member whose halo changed writes it at its
 * next phase. */
static ck_status pass_halos(ck__pso_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  for (int side = FORWARD; side <= BACK; ++side) {
    for (size_t i = 0; i < run->local; ++i)
      spread->from[side][i].count = 0;
    for (size_t pass = 0; pass < spread->passes[side]; ++pass) {
      for (size_t i = 0; i < run->local; ++i) {
        CK_TRY(to_send(spread, side, i, &send[i], &counts[i]));
        run->bytes_sent[i] += counts[i] * spread->item;
      }
      CK_TRY(ck__exchange_pass(run->exchange, side == FORWARD, spread->item,
                               send, counts, spread->from[side]));
    }
  }
  /* Each member's halo, before then after, into its inbox where it
   * changed. */
  for (size_t i = 0; i < run->local; ++i) {
    pso_state *state = member_state(spread, i);
    const ck__exchange_buffer *before = &spread->from[FORWARD][i],
                              *after = &spread->from[BACK][i];
    ck__exchange_buffer *halo = &spread->out[i];
    assert(before->count == state->halo_before &&
           after->count == state->halo_after);
    assert(state->inbox_bytes == (before->count + after->count) * spread->item);
    CK_TRY(ck__exchange_buffer_hold(halo, spread->item,
                                    before->count + after->count));
    size_t split = before->count * spread->item;
    if (before->count)
      memcpy(halo->data, before->data, split);
    if (after->count)
      memcpy((unsigned char *)halo->data + split, after->data,
             state->inbox_bytes - split);
    if (memcmp(state->inbox_host, halo->data, state->inbox_bytes) != 0) {
      memcpy(state->inbox_host, halo->data, state->inbox_bytes);
      spread->changed[i] = 1;
    }
  }
fail:
  return status;
}

/* The passes each way that fill every member's halo: as many as the
 * fewest consecutive slices that hold it need (one where every slice
 * holds a halo). Every process finds the same, from all members' slices
 * (collective). */
static ck_status plan_passes(ck__pso_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t members = ck__exchange_members(run->exchange);
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {CK_OK};
  uint64_t *units = calloc(members, sizeof *units);
  if (!units)
    statuses[0] = ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  for (size_t i = 0; i < run->local; ++i)
    pieces[i] = &run->units[i];
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof *units, units));
  uint64_t sum = 0;
  for (size_t m = 0; m < members; ++m)
    sum += units[m];
  assert(sum == run->total);
  for (int side = FORWARD; side <= BACK; ++side) {
    for (size_t m = 0; m < members; ++m) {
      size_t passes = 0;
      for (uint64_t got = 0; got < spread->halo[side]; ++passes)
        got += units[side == FORWARD
                         ? (m + members - 1 - passes % members) % members
                         : (m + 1 + passes) % members];
      /* The halo holds fewer than the swarm's particles. */
      assert(passes <= members);
      if (passes > spread->passes[side])
        spread->passes[side] = passes;
    }
  }
fail:
  free(units);
  return status;
}

/* ---- the probe ----------------------------------------------------------- */

/* Particles a slice holds a multiple of (but the last). */
#define SLICE_GRANULE 32

/* A probe's batches of iterations hold at most this many. */
#define PROBE_ITERATIONS 64

/* A probe's swarm, and the iterations it has made. */
typedef struct probe_swarm {
  ck_pso *pso;
  uint64_t done;
} probe_swarm;

static ck_status probe_step(void *context, uint64_t count) {
  probe_swarm *swarm = context;
  ck_status status = CK_OK;
  for (uint64_t k = 0; k < count && status == CK_OK; ++k)
    status = ck__pso_slice_iterate(swarm->pso, ++swarm->done);
  return status ? status : ck_queue_finish(ck__pso_state(swarm->pso)->queue);
}

typedef struct probe_call {
  ck__pso_spread *spread;
  const ck_spread *given;
  ck_pso_config trial;
  size_t total;
  double *speeds;
} probe_call;

/* A member's particle-iterations a second, on a member's swarm of an
 * equal share. */
static ck_status probe_phase(void *context, size_t i) {
  probe_call *call = context;
  probe_swarm swarm = {NULL, 0};
  double per_second = 0;
  const uint32_t *halo = call->spread->halo;
  ck_status status =
      ck__pso_spread_member(&call->given->devices[i], &call->trial, 0,
                            call->total, halo[FORWARD], halo[BACK], &swarm.pso);
  if (status == CK_OK)
    status = ck__pso_slice_set_up(swarm.pso);
  if (status == CK_OK)
    status = ck__spread_time(probe_step, &swarm, PROBE_ITERATIONS, &per_second);
  call->speeds[i] = per_second * (double)call->trial.particles;
  ck_pso_destroy(swarm.pso);
  return status;
}

/* Each device's speed, the particles are dealt by; its time is not the
 * run's. */
static ck_status probe(ck__pso_spread *spread, const ck_spread *given,
                       const ck_pso_config *config, double *speeds) {
  ck__spread_run *run = &spread->run;
  probe_call call = {spread, given, *config, config->particles, speeds};
  call.trial.particles =
      config->particles / ck__exchange_members(run->exchange);
  if (call.trial.particles < 1)
    call.trial.particles = 1;
  call.trial.has_target = 0;
  ck_status status = ck__spread_each(run, probe_phase, &call);
  memset(run->compute_s, 0, run->local * sizeof *run->compute_s);
  return status;
}

/* ---- the spread ---------------------------------------------------------- */

ck_status ck__pso_spread_create(const ck_spread *given,
                                const ck_pso_config *config,
                                ck__history *history, ck__pso_spread **made) {
  ck_status status = CK_OK;
  ck__pso_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin(given, "particles", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->has_target = config->has_target;
  spread->best = INFINITY;
  spread->best_index = UINT64_MAX;
  spread->members = calloc(run->local, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  size_t members = ck__exchange_members(run->exchange);
  /* The ring past a member's ends, as ck_pso_ring_best reaches. */
  if (config->ring_neighbours && members > 1) {
    spread->halo[FORWARD] = (uint32_t)(config->ring_neighbours - 1) / 2;
    spread->halo[BACK] =
        (uint32_t)config->ring_neighbours - 1 - spread->halo[FORWARD];
  }
  double speeds[CK_SPREAD_MAX_LOCAL];
  int measure = !given->shares && members > 1;
  if (measure)
    CK_TRY(probe(spread, given, config, speeds));
  /* Slices in whole warps of particles, so that each member's rows of
   * x, v and pbest (d * n + p) start aligned as a swarm's alone do: an
   * odd slice made an H200's moves half as slow again. */
  CK_TRY(ck__spread_deal(run, given, config->particles, SLICE_GRANULE,
                         measure ? speeds : NULL));
  if (spread->halo[FORWARD] + spread->halo[BACK])
    CK_TRY(plan_passes(spread));
  /* A swarm too large for its device is known before any member builds
   * its kernels and makes its swarm, which can take many seconds. */
  make_call call = {spread, given, config};
  CK_TRY(ck__spread_each(run, allocate_phase, &call));
  CK_TRY(ck__spread_each(run, set_up_phase, spread));
  pso_state *state = member_state(spread, 0);
  spread->dim = state->dim;
  spread->double_precision = state->double_precision;
  spread->real = state->real_size;
  spread->item = ((size_t)state->dim + 1) * state->real_size;
  /* In the swarm's precision, as its kernels compare. */
  spread->target =
      spread->double_precision ? config->target : (double)(float)config->target;
  spread->position = calloc((size_t)spread->dim, sizeof *spread->position);
  spread->best_item = calloc(1, spread->item);
  if (!spread->position || !spread->best_item)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* The initial swarm's best, as one device records it at creation. */
  CK_TRY(agree_on_best(spread));
  CK_TRY(ck__history_push_rows(history, &spread->best, 1));
  *made = spread;
  return CK_OK;
fail:
  ck__pso_spread_destroy(spread);
  return status;
}

ck_status ck__pso_spread_step(ck__pso_spread *spread, uint64_t iteration,
                              uint64_t count, ck__history *history) {
  ck_status status = CK_OK;
  for (uint64_t k = 0; k < count; ++k, ++iteration) {
    /* The target met: the best stays, recorded again as one device's
     * finished launches record it. Every process sees the same best. */
    if (spread->has_target && spread->best <= spread->target) {
      CK_TRY(ck__history_push_rows(history, &spread->best, 1));
      continue;
    }
    if (spread->halo[FORWARD] + spread->halo[BACK])
      CK_TRY(pass_halos(spread));
    spread->iteration = iteration;
    CK_TRY(ck__spread_each(&spread->run, iterate_phase, spread));
    CK_TRY(agree_on_best(spread));
    CK_TRY(ck__history_push_rows(history, &spread->best, 1));
  }
fail:
  return status;
}

ck__spread_run *ck__pso_spread_run(ck__pso_spread *spread) {
  return &spread->run;
}

ck_status ck__pso_spread_best(ck__pso_spread *spread, double *value,
                              double *position) {
  if (value)
    *value = spread->best;
  if (position)
    memcpy(position, spread->position, (size_t)spread->dim * sizeof *position);
  return CK_OK;
}

double ck__pso_spread_kernel_seconds(ck__pso_spread *spread) {
  return ck__spread_kernel_seconds(&spread->run);
}

ck_status ck__pso_spread_report(ck__pso_spread *spread, ck_result *result) {
  return ck__spread_report_queues(&spread->run, result);
}

int ck__pso_spread_rank(const ck__pso_spread *spread) {
  return spread ? ck__exchange_rank(spread->run.exchange) : 0;
}

void ck__pso_spread_destroy(ck__pso_spread *spread) {
  if (!spread)
    return;
  for (size_t i = 0; spread->members && i < spread->run.local; ++i) {
    ck_pso_destroy(spread->members[i]);
    free(spread->from[FORWARD][i].data);
    free(spread->from[BACK][i].data);
    free(spread->out[i].data);
  }
  free(spread->members);
  free(spread->position);
  free(spread->best_item);
  ck__spread_end(&spread->run);
  free(spread);
}
