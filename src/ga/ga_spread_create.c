/*
 * ga_spread_create.c - a spread GA's making and freeing, through the
 * member engine (framework/engine.h), which deals the islands and owns
 * the members: the probe that times a member, each member allocated and
 * set up, the copies between their devices opened (peers in a process,
 * CUDA IPC between the ranks of one host), the rings across GPUs wired,
 * and the caller's buffers.
 */
#include <assert.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

/* A probe's batches of generations hold at most this many. */
#define PROBE_GENERATIONS 32

/* A status of the calling thread's, agreed over all processes. */
static ck_status agree(ck__ga_spread *spread, ck_status status) {
  return ck__engine_agree(spread->engine, status);
}

static ck__spread_run *run_of(const ck__ga_spread *spread) {
  return ck__engine_run(spread->engine);
}

/* ---- the members' phases (ck__ga_kind) ---------------------------------- */

/* A trial's generations, waited for: a step ends reading them. */
static ck_status probe_step(void *context, uint64_t count) {
  return ck_ga_step(context, count);
}

/* A member's island-generations a second, on a GA of its equal share of
 * the islands (migrating never): the speeds the islands are dealt by. */
static ck_status probe(void *self, const ck__engine_member *trial,
                       double *per_second) {
  const ck__ga_spread *spread = self;
  ck_ga_config config = *spread->config;
  config.islands = (uint32_t)trial->units;
  config.migrate_every = 0;
  config.max_evaluations = 0;
  config.has_target = 0;
  config.keep_island_history = 0;
  config.progress = NULL;
  ck_ga *ga = NULL;
  double generations = 0;
  ck_status status = ck_ga_create(trial->device, &config, &ga);
  if (status == CK_OK)
    status = ck__spread_time(probe_step, ga, PROBE_GENERATIONS, &generations);
  *per_second = generations * (double)trial->units;
  ck_ga_destroy(ga);
  return status;
}

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

/* Copies without the host into each member from its previous one, where
 * migrants cross a ring (ck__spread_peers_open). Random cycles go through
 * the host: their islands' sources scatter over the members, and copying
 * them island by island took 70 times as long on two H200s. */
static ck_status open_peers(ck__ga_spread *spread) {
  if (!spread->crossing || !spread->ring)
    return CK_OK;
  ck_status status = ck__spread_peers_open(run_of(spread), 1, spread->peers);
  spread->on_devices = status == CK_OK && spread->peers[0][0] != NULL;
  return status;
}

/* Whether the members' launches may cross GPUs on the ring (cl/ga.cu,
 * CK_GA_ACROSS): every member a CUDA device of this process that reads
 * its previous member's memory, each on a GPU of its own (two members on
 * one GPU could wait on each other's blocks, which that GPU might never
 * run at once). */
static int wants_across(const ck__ga_spread *spread) {
  const ck__spread_run *run = run_of(spread);
  size_t n = run->local;
  if (!spread->on_devices || !spread->ring || !spread->crossing)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ck__peer_direct(spread->peers[0][i]))
      return 0;
    for (size_t j = 0; j < i; ++j)
      if (strcmp(run->devices[i].id, run->devices[j].id) == 0)
        return 0;
  }
  return 1;
}

/* Where a member's kernel reads its previous member's counts, and the
 * relay of that member's last island (of `islands`), given the
 * addresses at which it reads that member's buffers. */
static void point_at_previous(ga_state *to, uint64_t crossed, uint64_t relay,
                              uint64_t fitness, uint64_t islands) {
  size_t last = (size_t)(islands - 1) * to->migrants;
  to->crossed_previous = crossed;
  to->relay_previous = relay + last * (size_t)to->dim * sizeof(float);
  to->relay_fitness_previous = fitness + last * sizeof(float);
  to->previous_segment = islands * to->migrants;
}

/* Member i's view of its previous member h, in this process. */
static ck_status wire_member(ck__ga_spread *spread, size_t i, size_t h) {
  ck_status status = CK_OK;
  ck__peer *peer = spread->peers[0][i];
  const ga_state *from = &spread->members[h].ga->state;
  uint64_t crossed, relay, fitness;
  CK_TRY(ck__peer_address(peer, from->native_crossed, &crossed));
  CK_TRY(ck__peer_address(peer, from->native_relay, &relay));
  CK_TRY(ck__peer_address(peer, from->native_relay_fitness, &fitness));
  point_at_previous(&spread->members[i].ga->state, crossed, relay, fitness,
                    from->islands);
fail:
  return status;
}

/* The span of the members' rounds, once they are set up, into *made:
 * their launches' where every member makes the ring's migrations inside
 * them (one member, or every one across GPUs, reading its previous one's
 * memory), else 1. */
static ck_status wire_across(ck__ga_spread *spread, uint32_t *made) {
  ck_status status = CK_OK;
  size_t n = spread->local;
  uint32_t span = spread->members[0].ga->state.span_segments;
  int inside = span > 1;
  for (size_t i = 0; i < n; ++i) {
    const ga_state *state = &spread->members[i].ga->state;
    if (state->span_segments != span || (spread->count > 1 && !state->across))
      inside = 0;
  }
  *made = 1;
  if (!inside)
    return CK_OK;
  for (size_t i = 0; spread->count > 1 && i < n; ++i)
    CK_TRY(wire_member(spread, i, (i + n - 1) % n));
  *made = span;
fail:
  return status;
}

/* Between processes (collective): whether the members' launches may
 * cross GPUs, each process holding one CUDA member on a GPU of its own,
 * all on one host (CUDA IPC), with neither CLKIT_PEER nor CLKIT_IPC 0. */
static ck_status across_processes_wanted(ck__ga_spread *spread, int *wanted) {
  ck__spread_run *run = run_of(spread);
  int able = run->local == 1 &&
             ck__device_shares_between_processes(&run->devices[0]) &&
             spread->ring && spread->crossing && ck__peer_enabled() &&
             !ck__setting_off("CLKIT_IPC");
  ck__spread_places places;
  ck_status status = ck__spread_places_find(run, able, &places);
  *wanted =
      status == CK_OK && places.able && places.one_host && places.own_gpus;
  return status;
}

/* What a process's member hands to the next (CUDA IPC): its counts',
 * relay's and relay fitness's handles, and its islands. */
typedef struct across_ticket {
  unsigned char handles[3][CK__IPC_HANDLE_BYTES];
  uint64_t islands;
  uint32_t failed, unused;
} across_ticket;

/* Between processes, once the members are set up (collective): each
 * opens its previous member's buffers; *span, the rounds' span: their
 * launches' where every member could, else 1. */
static ck_status open_across(ck__ga_spread *spread, uint32_t *span) {
  ck_status status = CK_OK, made = CK_OK;
  ck__spread_run *run = run_of(spread);
  ga_state *state = &spread->members[0].ga->state;
  ck_buffer *buffers[3] = {state->native_crossed, state->native_relay,
                           state->native_relay_fitness};
  across_ticket mine, from;
  memset(&mine, 0, sizeof mine);
  memset(&from, 0, sizeof from);
  if (!state->across)
    made = CK_ERROR_UNSUPPORTED;
  for (int k = 0; k < 3 && made == CK_OK; ++k)
    made = ck__ipc_buffer_handle(buffers[k], mine.handles[k]);
  mine.islands = state->islands;
  mine.failed = made != CK_OK;
  const void *send[1] = {&mine};
  void *receive[1] = {&from};
  CK_TRY(ck__exchange_ring(run->exchange, send, receive, sizeof mine));
  if (made == CK_OK && from.failed)
    made = CK_ERROR_UNSUPPORTED;
  for (int k = 0; k < 3 && made == CK_OK; ++k)
    made =
        ck__ipc_buffer_open(state->queue, from.handles[k], &spread->opened[k]);
  if (made == CK_OK)
    point_at_previous(state, spread->opened[0], spread->opened[1],
                      spread->opened[2], from.islands);
  /* Where any process could not, every round stops at each migration. */
  double failed = made != CK_OK, any = 0;
  const double *rows[1] = {&failed};
  CK_TRY(ck__exchange_sum(run->exchange, rows, &any, 1));
  *span = any > 0 ? 1 : state->span_segments;
fail:
  return status;
}

static void close_across(ck__ga_spread *spread) {
  for (int k = 0; k < 3; ++k)
    if (spread->opened[k]) {
      ck__ipc_buffer_close(&run_of(spread)->devices[0], spread->opened[k]);
      spread->opened[k] = 0;
    }
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
  spread->pack = ck__ga_spread_pack_bytes(spread);
  CK_TRY(agree(spread, open_peers(spread)));
  int between = ck__exchange_ranks(run_of(spread)->exchange) > 1, across = 0;
  if (between)
    CK_TRY(across_processes_wanted(spread, &across));
  else
    across = wants_across(spread);
  for (size_t i = 0; across && i < spread->local; ++i)
    spread->members[i].ga->state.across_wanted = 1;
fail:
  return status;
}

const ck__engine_kind ck__ga_kind = {.unit_name = "islands",
                                     .granule = 1,
                                     .shares_devices = 1,
                                     .probe = probe,
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
  /* Between processes where they may not cross GPUs, every round stops
   * at each migration. */
  *span_segments = 1;
  if (ck__exchange_ranks(run_of(spread)->exchange) > 1 &&
      spread->members[0].ga->state.across_wanted)
    CK_TRY(open_across(spread, span_segments));
  else if (ck__exchange_ranks(run_of(spread)->exchange) == 1)
    CK_TRY(agree(spread, wire_across(spread, span_segments)));
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
  ck__spread_peers_close(spread->peers);
  if (spread->engine)
    close_across(spread);
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
