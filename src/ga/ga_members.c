/*
 * ga_members.c - a GA's run as members of the member engine
 * (framework/engine.h), over one device or several (and processes): the
 * members made and freed, their rounds, and the statistics and best that
 * the run reads from them. ga_spread.c moves what crosses between
 * members.
 *
 * Each member evolves a contiguous slice of the islands, on a host
 * thread of its own. A round is the generations up to a migration, a
 * read or the step's end. In a round each member receives the last
 * round's migrants, makes its generations and sends its own. A GA on
 * one device is a run of one member: its round spans a launch, and
 * nothing crosses. Nothing else is read inside the generation loop: a
 * step ends reading every member's statistics, from which every process
 * finds the best.
 *
 * The result is the one-device GA's, bit for bit, on devices that compute
 * alike: an island draws from its own streams wherever it lives (its
 * number in the whole run), every member plans the run's migrations as
 * one device does, and the best is the least of the members' bests, ties
 * going to the earliest round and then the lowest island, as one device
 * keeps it round by round. The history's mean is the members' means
 * weighted by their islands: one device's to rounding.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

/* A status of the calling thread's, agreed over all processes. */
static ck_status agree(ck__ga_spread *spread, ck_status status) {
  return ck__engine_agree(spread->engine, status);
}

ck__spread_run *ck__ga_spread_run(const ck_ga *ga) {
  return ga->spread ? ck__engine_run(ga->spread->engine) : NULL;
}

static ck__spread_run *run_of(const ck__ga_spread *spread) {
  return ck__engine_run(spread->engine);
}

/* ---- making and freeing ------------------------------------------------ */

/* A member's islands: the checks, its settings and buffers. Every member
 * reads its statistics as often: the gathered ones fit the buffer one
 * device of the padded islands would keep. */
static ck_status allocate(void *self, const ck__engine_member *member,
                          ck_queue **queue) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = self;
  ck_ga **made = &spread->members[member->index].ga;
  const ck__ga_slice share = {
      (uint32_t)member->first, (uint32_t)member->total,
      ck__ga_stats_capacity(member->members * (size_t)member->widest)};
  /* The stopping rules are the front's, over the whole run. An ask/tell
   * GA's member alone keeps the history: the caller tells it each
   * generation (ga.c). */
  ck_ga_config slice = *spread->config;
  slice.islands = (uint32_t)member->units;
  slice.has_target = 0;
  slice.max_evaluations = 0;
  if (!slice.ask_tell)
    slice.keep_island_history = 0;
  slice.progress = NULL;
  CK_TRY(ck__ga_slice_allocate(member->device, &slice, &share, made));
  *queue = (*made)->state.queue;
fail:
  return status;
}

/* A member's kernels and generation 0, and its packs of migrants. */
static ck_status set_up(void *self, size_t i) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = self;
  ga_member *m = &spread->members[i];
  ck_queue *queue = m->ga->state.queue;
  CK_TRY(ck__ga_slice_set_up(m->ga));
  if (spread->crossing && !spread->on_devices) {
    CK_TRY(ck__host_alloc(queue, spread->pack, (void **)&m->out));
    CK_TRY(ck__host_alloc(queue, spread->pack, (void **)&m->in));
  }
fail:
  return status;
}

static void teardown(void *self, size_t i) {
  ga_member *m = &((ck__ga_spread *)self)->members[i];
  if (m->ga) {
    ck__host_free(m->ga->state.queue, m->out);
    ck__host_free(m->ga->state.queue, m->in);
  }
  ck_ga_destroy(m->ga);
  memset(m, 0, sizeof *m);
}

/* The caller's memory: the gathered packs, the statistics, the bests. */
static ck_status make_buffers(ck__ga_spread *spread) {
  size_t local = spread->local, count = spread->count;
  size_t stats =
      (size_t)spread->stats_capacity * spread->widest * 2 * spread->real;
  size_t pairs = (size_t)spread->stats_capacity * 2;
  spread->genes = calloc((size_t)spread->dim, sizeof *spread->genes);
  int gathers = spread->crossing && !spread->ring;
  spread->gathered = gathers ? calloc(count, spread->pack) : NULL;
  spread->stats = calloc(local, stats);
  spread->all_stats = calloc(count, stats);
  spread->folded = calloc(local * pairs, sizeof *spread->folded);
  spread->all_folded = calloc(count * pairs, sizeof *spread->folded);
  spread->rows = calloc(pairs, sizeof *spread->rows);
  spread->slot_round =
      calloc(spread->stats_capacity, sizeof *spread->slot_round);
  spread->member_best = calloc(count, sizeof *spread->member_best);
  spread->member_round = calloc(count, sizeof *spread->member_round);
  if (!spread->genes || (gathers && !spread->gathered) || !spread->stats ||
      !spread->all_stats || !spread->folded || !spread->all_folded ||
      !spread->rows || !spread->slot_round || !spread->member_best ||
      !spread->member_round)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for a spread GA's exchanges");
  /* Nothing found yet: the largest real, as each device starts. */
  spread->best = spread->double_precision ? DBL_MAX : FLT_MAX;
  for (size_t m = 0; m < count; ++m)
    spread->member_best[m] = spread->best;
  return CK_OK;
}

/* After every member's allocate (ck__ga_kind's connect): what crosses
 * between them, the copies between their devices, and whether their
 * launches cross GPUs on the ring. Collective. */
static ck_status connect(void *self, ck__engine *engine) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = self;
  spread->engine = engine;
  spread->local = ck__engine_local(engine);
  spread->count = ck__engine_members(engine);
  const ga_state *state = &spread->members[0].ga->state;
  spread->dim = state->dim;
  spread->ring = state->ring;
  spread->double_precision = state->double_precision;
  spread->migrants = state->migrants;
  spread->real = state->real_size;
  spread->crossing = spread->count > 1 && spread->migrants > 0;
  spread->widest = (uint32_t)ck__engine_widest(engine);
  if (spread->count > 1) {
    spread->pack = ck__ga_spread_pack_bytes(spread);
    CK_TRY(ck__ga_spread_connect_devices(spread));
  }
fail:
  return status;
}

const ck__engine_kind ck__ga_kind = {.unit_name = "islands",
                                     .granule = 1,
                                     .shares_devices = 1,
                                     .probe = ck__ga_spread_probe,
                                     .allocate = allocate,
                                     .connect = connect,
                                     .set_up = set_up,
                                     .step = ck__ga_spread_round,
                                     .post = ck__ga_spread_post,
                                     .round = ck__ga_spread_whole,
                                     .cross = ck__ga_spread_cross,
                                     .teardown = teardown};

ck_status ck__ga_spread_create(ck_ga *front, const ck_spread *given,
                               const ck_ga_config *config, ck__ga_spread **made,
                               uint32_t *stats_capacity,
                               uint32_t *span_segments) {
  ck_status status = CK_OK;
  ck__engine *engine = NULL;
  ck__ga_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  spread->front = front;
  spread->config = config;
  spread->members = calloc(given->device_count, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* connect holds the engine from the members' allocation on. */
  status =
      ck__engine_create(&ck__ga_kind, spread, given, config->islands, &engine);
  spread->engine = engine;
  CK_TRY(status);
  spread->config = NULL;
  spread->stats_capacity = spread->members[0].ga->state.stats_capacity;
  /* A member alone makes the ring's migrations inside its launches
   * where its steps can. */
  *span_segments = spread->members[0].ga->state.span_segments;
  if (spread->count > 1)
    CK_TRY(ck__ga_spread_wire(spread, span_segments));
  CK_TRY(agree(spread, make_buffers(spread)));
  *stats_capacity = spread->stats_capacity;
  *made = spread;
  return CK_OK;
fail:
  ck__ga_spread_destroy(spread);
  return status;
}

double ck__ga_spread_build_seconds(const ck__ga_spread *spread) {
  double most = 0;
  for (size_t i = 0; i < spread->local; ++i)
    if (spread->members[i].ga->build_seconds > most)
      most = spread->members[i].ga->build_seconds;
  return most;
}

void ck__ga_spread_destroy(ck__ga_spread *spread) {
  if (!spread)
    return;
  /* No copy may still read or write the packs, or another member's
   * buffers. */
  for (size_t i = 0; spread->engine && i < spread->local; ++i)
    if (spread->members[i].ga)
      ck_queue_finish(spread->members[i].ga->state.queue);
  if (spread->count > 1)
    ck__ga_spread_unwire(spread);
  ck__engine_destroy(spread->engine);
  free(spread->members);
  free(spread->genes);
  free(spread->gathered);
  free(spread->stats);
  free(spread->all_stats);
  free(spread->folded);
  free(spread->all_folded);
  free(spread->rows);
  free(spread->slot_round);
  free(spread->member_best);
  free(spread->member_round);
  free(spread);
}

/* ---- rounds -------------------------------------------------------------- */

/* Local member i's receiving of the last round: the migrants from other
 * members uploaded, then its own receiving and best. */
static ck_status settle(ck__ga_spread *spread, size_t i) {
  ck_status status = CK_OK;
  ga_member *m = &spread->members[i];
  if (spread->due_migrates && spread->crossing && !spread->on_devices)
    CK_TRY(ck__ga_spread_take_in(spread, i));
  CK_TRY(ck__ga_slice_receive(m->ga, spread->due_migrates));
fail:
  return status;
}

/* A member's round (the engine's step): the last round's receiving, and
 * its generations (those the front planned) with the sending. */
ck_status ck__ga_spread_round(void *self, size_t i, uint64_t first,
                              uint64_t count) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = self;
  ga_member *m = &spread->members[i];
  assert(count == spread->round_count);
  (void)first;
  (void)count;
  if (spread->due)
    CK_TRY(settle(spread, i));
  CK_TRY(ck__ga_slice_send(m->ga, spread->round_count, spread->round_migrates,
                           spread->round_inside));
fail:
  return status;
}

/* Its migrants out to the host, where they cross through it (the
 * engine's post). */
ck_status ck__ga_spread_post(void *self, size_t i) {
  ck__ga_spread *spread = self;
  if (spread->round_migrates && spread->crossing && !spread->on_devices)
    return ck__ga_spread_send_out(spread, i);
  return CK_OK;
}

/* A round is what the front planned (ck__ga_next_run): all of it. */
uint64_t ck__ga_spread_whole(void *self, uint64_t first, uint64_t count) {
  (void)self;
  (void)first;
  return count;
}

/* ---- statistics and the best ------------------------------------------- */

/* Real `index` of a buffer of the run's reals, as a double. */
static double real_at(const ck__ga_spread *spread, const void *reals,
                      size_t index) {
  return spread->double_precision ? ((const double *)reals)[index]
                                  : (double)((const float *)reals)[index];
}

/* Member m's best of statistics slot `slot`: kept where it beats the
 * member's best so far, with the slot's round. */
static void keep_best(ck__ga_spread *spread, size_t m, uint32_t slot,
                      double value) {
  if (value < spread->member_best[m]) {
    spread->member_best[m] = value;
    spread->member_round[m] = spread->slot_round[slot];
  }
}

/* A member's read (ck__engine_each): the last round's receiving where
 * due, then its statistics since the last read, folded or every
 * island's (padded to the widest member's), into its part of the
 * spread's. */
static ck_status read_member(void *context, size_t i) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = context;
  ck_ga *ga = spread->members[i].ga;
  ga_state *state = &ga->state;
  uint32_t slots = spread->slots;
  if (spread->due)
    CK_TRY(settle(spread, i));
  assert(ga->stats_used == slots);
  if (!spread->every_island)
    return ck__ga_slice_folded(ga, spread->folded + i * 2 * (size_t)slots);
  size_t island = 2 * spread->real, room = spread->widest;
  size_t islands = state->islands;
  CK_TRY(ck_buffer_read(state->queue, state->stats, 0, slots * islands * island,
                        ga->stats_host, CK_BLOCKING, NULL));
  ga->stats_used = 0;
  unsigned char *padded = spread->stats + i * slots * room * island;
  for (uint32_t slot = 0; slot < slots; ++slot)
    memcpy(padded + slot * room * island,
           (const unsigned char *)ga->stats_host + slot * islands * island,
           islands * island);
fail:
  return status;
}

/* Every member's read of `slots` slots; then nothing is due. */
static ck_status read_members(ck__ga_spread *spread, uint32_t slots,
                              int every_island) {
  spread->slots = slots;
  spread->every_island = every_island;
  ck_status status = ck__engine_each(spread->engine, read_member, spread);
  spread->due = 0;
  return status;
}

ck_status ck__ga_spread_stats(ck__ga_spread *spread, uint32_t slots,
                              void *stats) {
  ck_status status = CK_OK;
  ck__spread_run *run = run_of(spread);
  size_t island = 2 * spread->real, room = spread->widest;
  size_t bytes = (size_t)slots * room * island;
  CK_TRY(read_members(spread, slots, 1));
  CK_TRY(ck__exchange_gather_rows(run->exchange, spread->stats, bytes, bytes,
                                  spread->all_stats));
  /* Slot by slot, the members' islands in order: the run's islands. */
  size_t run_islands = spread->front->state.run_islands;
  for (size_t m = 0; m < spread->count; ++m) {
    uint64_t first = 0, islands = 0;
    ck__engine_slice(spread->engine, m, &first, &islands);
    for (uint32_t slot = 0; slot < slots; ++slot) {
      const unsigned char *held =
          spread->all_stats + m * bytes + (size_t)slot * room * island;
      memcpy((unsigned char *)stats + (slot * run_islands + first) * island,
             held, islands * island);
      for (size_t j = 0; j < islands; ++j)
        keep_best(spread, m, slot, real_at(spread, held, 2 * j));
    }
  }
fail:
  return status;
}

ck_status ck__ga_spread_folded(ck__ga_spread *spread, uint32_t slots,
                               const double **rows) {
  ck_status status = CK_OK;
  ck__spread_run *run = run_of(spread);
  size_t pairs = (size_t)slots * 2, row = pairs * sizeof(double);
  CK_TRY(read_members(spread, slots, 0));
  CK_TRY(ck__exchange_gather_rows(run->exchange, spread->folded, row, row,
                                  spread->all_folded));
  double islands = (double)spread->front->state.run_islands;
  for (uint32_t slot = 0; slot < slots; ++slot) {
    double best = INFINITY, sum = 0;
    for (size_t m = 0; m < spread->count; ++m) {
      const double *pair = spread->all_folded + m * pairs + 2 * slot;
      keep_best(spread, m, slot, pair[0]);
      best = pair[0] < best ? pair[0] : best;
      uint64_t islands_m = 0;
      ck__engine_slice(spread->engine, m, NULL, &islands_m);
      sum += pair[1] * (double)islands_m;
    }
    spread->rows[2 * slot] = best;
    /* One member's mean is the run's as it stands. */
    spread->rows[2 * slot + 1] =
        spread->count == 1 ? spread->all_folded[2 * slot + 1] : sum / islands;
  }
  *rows = spread->rows;
fail:
  return status;
}

/* The best's holder's genes, read where it is local (ck__engine_each). */
static ck_status genes_member(void *context, size_t i) {
  ck__ga_spread *spread = context;
  if (ck__exchange_first(run_of(spread)->exchange) + i != spread->holder)
    return CK_OK;
  ga_state *state = &spread->members[i].ga->state;
  return ck__reals_read(state->queue, state->best_genes,
                        spread->double_precision, spread->genes,
                        (size_t)spread->dim);
}

/*
 * The run's best at a step's end, from every member's best as the reads
 * found it: the least, ties to the earliest round and then the lowest
 * member, so the lowest island (one device keeps its best so at each
 * round's end). Where it beats the best so far, its holder's genes go to
 * every process. Every process decides alike, from the same reads.
 * Collective.
 */
static ck_status agree_on_best(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  size_t winner = 0;
  for (size_t m = 1; m < spread->count; ++m)
    if (spread->member_best[m] < spread->member_best[winner] ||
        (spread->member_best[m] == spread->member_best[winner] &&
         spread->member_round[m] < spread->member_round[winner]))
      winner = m;
  if (!(spread->member_best[winner] < spread->best))
    return CK_OK;
  spread->best = spread->member_best[winner];
  spread->holder = winner;
  /* A member alone reads them when they are asked for: nothing waits on
   * them at each step's end. */
  spread->genes_unread = spread->count == 1;
  if (spread->genes_unread)
    return CK_OK;
  CK_TRY(ck__engine_each(spread->engine, genes_member, spread));
  CK_TRY(ck__exchange_broadcast(run_of(spread)->exchange, winner, spread->genes,
                                (size_t)spread->dim * sizeof *spread->genes));
fail:
  return status;
}

/* ck__ga_spread_step's rounds, then the statistics and the best. */
static ck_status step_rounds(ck_ga *ga, uint64_t generations) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = ga->spread;
  while (generations > 0) {
    int migrates = 0;
    uint32_t inside = 0;
    uint64_t k = ck__ga_next_run(ga, generations, &migrates, &inside);
    assert(k > 0 && (inside == 0 || ga->state.span_segments > 1));
    spread->round_count = k;
    spread->round_migrates = migrates;
    spread->round_inside = inside;
    ++spread->rounds;
    for (uint64_t t = 0; t < k; ++t)
      spread->slot_round[ga->stats_used + t] = spread->rounds;
    CK_TRY(ck__engine_step(spread->engine, ga->generation + 1, k));
    spread->due = 1;
    spread->due_migrates = migrates;
    ga->generation += k;
    ga->stats_used += (uint32_t)k;
    ga->migrations += inside + (migrates ? 1u : 0u);
    generations -= k;
    if (ga->stats_used == ga->state.stats_capacity)
      CK_TRY(ck__ga_flush_stats(ga));
  }
  /* Every process holds the history and the best at each step's end. */
  CK_TRY(ck__ga_flush_stats(ga));
  assert(!spread->due);
  CK_TRY(agree_on_best(spread));
fail:
  return status;
}

/* Held by the steps whose kernels wait on other GPUs' (a ring across
 * GPUs). Their launches fill each GPU, so two such runs of one process
 * stepping at once could each hold a GPU the other waits on; they take
 * turns instead. Unlocked between calls; processes time-slice a GPU. */
static pthread_mutex_t across_steps = PTHREAD_MUTEX_INITIALIZER;

ck_status ck__ga_spread_step(ck_ga *ga, uint64_t generations) {
  int across = ga->state.span_segments > 1 && ga->spread->count > 1;
  if (across)
    pthread_mutex_lock(&across_steps);
  ck_status status = step_rounds(ga, generations);
  if (across)
    pthread_mutex_unlock(&across_steps);
  return status;
}

int ck__ga_spread_on_devices(const ck_ga *ga) {
  return ga->spread && ga->spread->on_devices;
}

uint32_t ck__ga_spread_span(const ck_ga *ga) {
  return ga->spread ? ga->state.span_segments : 0;
}

ck_status ck__ga_spread_best(ck__ga_spread *spread, double *value,
                             double *position) {
  ck_status status = CK_OK;
  if (value)
    *value = spread->best;
  if (position && spread->genes_unread) {
    CK_TRY(ck__engine_each(spread->engine, genes_member, spread));
    spread->genes_unread = 0;
  }
  if (position)
    memcpy(position, spread->genes, (size_t)spread->dim * sizeof *position);
fail:
  return status;
}
