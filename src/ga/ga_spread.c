/*
 * ga_spread.c - what crosses between a GA's members (ga_members.c) where
 * a run has several: the probe that deals the islands by speed, the
 * migrants that leave a member's slice, and the copies between the
 * members' devices (docs/ga.md, "Spread over devices").
 *
 * Migrants go device to device on a ring of CUDA members of one process
 * (ck__peer_copy), in both queues' order. Elsewhere the sender's queue
 * copies them into host memory, the exchange moves them, and the
 * receiver's queue uploads them before the launch that receives them.
 * On a ring of GPUs, each its own, the migrations inside a round cross
 * in the kernels (cl/ga.cu, CK_GA_ACROSS; peer access or CUDA IPC).
 */
#include <assert.h>
#include <string.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

/* A probe's batches of generations hold at most this many. */
#define PROBE_GENERATIONS 32

/* A trial's generations, waited for: a step ends reading them. */
static ck_status probe_step(void *context, uint64_t count) {
  return ck_ga_step(context, count);
}

/* A member's island-generations a second, on a GA of its equal share of
 * the islands (migrating never): the speeds the islands are dealt by. */
ck_status ck__ga_spread_probe(void *self, const ck__engine_member *trial,
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

/* ---- migrants ------------------------------------------------------------ */

/* Bytes of an island's migrants' genes, and of their fitness. */
static size_t gene_bytes(const ck__ga_spread *spread) {
  return (size_t)spread->migrants * (size_t)spread->dim * spread->real;
}

static size_t fitness_bytes(const ck__ga_spread *spread) {
  return (size_t)spread->migrants * spread->real;
}

/* The islands a pack has room for: genes, then fitness, for each. */
static size_t pack_room(const ck__ga_spread *spread) {
  return spread->ring ? 1 : spread->widest;
}

size_t ck__ga_spread_pack_bytes(const ck__ga_spread *spread) {
  return pack_room(spread) * (gene_bytes(spread) + fitness_bytes(spread));
}

/* A member's migrants that other members receive (a ring's last
 * island's; random cycles: every island's), from the set the last
 * emigration wrote, copied into its out pack behind its queued work; then
 * it waits for the copy, which the exchange reads. */
static ck_status send_out(const ck__ga_spread *spread, ga_member *m) {
  ck_status status = CK_OK;
  ga_state *state = &m->ga->state;
  size_t genes = gene_bytes(spread), fitness = fitness_bytes(spread);
  uint32_t from = spread->ring ? state->islands - 1 : 0;
  uint32_t islands = spread->ring ? 1 : state->islands;
  uint32_t set = state->migrant_set;
  ck_event *copied = NULL;
  assert(state->migrants == spread->migrants && islands <= pack_room(spread));
  CK_TRY(ck_buffer_read(state->queue, state->migrant_genes[set], from * genes,
                        islands * genes, m->out, CK_NONBLOCKING, NULL));
  CK_TRY(ck_buffer_read(state->queue, state->migrant_fitness[set],
                        from * fitness, islands * fitness,
                        m->out + pack_room(spread) * genes, CK_NONBLOCKING,
                        &copied));
  /* The queue is in order: the last copy done, all are. */
  CK_TRY(ck_event_wait(copied));
fail:
  ck_event_destroy(copied);
  return status;
}

ck_status ck__ga_spread_send_out(const ck__ga_spread *spread, size_t i) {
  return send_out(spread, &spread->members[i]);
}

/* A random cycle's migrants for local member i's islands whose source
 * another member holds, from the gathered packs into its in pack. */
static void take_incoming(const ck__ga_spread *spread, size_t i) {
  ga_member *m = &spread->members[i];
  size_t room = pack_room(spread);
  size_t genes = gene_bytes(spread), fitness = fitness_bytes(spread);
  uint64_t first = m->ga->state.first_island;
  uint32_t islands = m->ga->state.islands;
  for (uint32_t j = 0; j < islands; ++j) {
    uint64_t from = m->ga->source[first + j];
    if (from - first < islands)
      continue; /* its own island sends */
    size_t holder = ck__engine_holder(spread->engine, from);
    uint64_t held_first = 0, held_islands = 0;
    ck__engine_slice(spread->engine, holder, &held_first, &held_islands);
    size_t at = (size_t)(from - held_first);
    assert(holder !=
               ck__exchange_first(ck__engine_run(spread->engine)->exchange) +
                   i &&
           at < held_islands);
    const unsigned char *held = spread->gathered + holder * spread->pack;
    memcpy(m->in + j * genes, held + at * genes, genes);
    memcpy(m->in + room * genes + j * fitness,
           held + room * genes + at * fitness, fitness);
  }
}

/* The migrants received into the incoming slots of the set the receiving
 * reads (island i's at slot islands + i), behind the member's queued
 * work. The in pack stays untouched until then: the exchange writes it
 * again only after the member's next copy out, which is queued after. */
static ck_status upload(const ck__ga_spread *spread, ga_member *m) {
  ck_status status = CK_OK;
  ga_state *state = &m->ga->state;
  size_t genes = gene_bytes(spread), fitness = fitness_bytes(spread);
  uint32_t islands = spread->ring ? 1 : state->islands;
  uint32_t set = state->migrant_set;
  assert(islands == state->incoming);
  CK_TRY(ck_buffer_write(state->queue, state->migrant_genes[set],
                         state->islands * genes, islands * genes, m->in,
                         CK_NONBLOCKING, NULL));
  CK_TRY(ck_buffer_write(state->queue, state->migrant_fitness[set],
                         state->islands * fitness, islands * fitness,
                         m->in + pack_room(spread) * genes, CK_NONBLOCKING,
                         NULL));
fail:
  return status;
}

ck_status ck__ga_spread_take_in(const ck__ga_spread *spread, size_t i) {
  if (!spread->ring)
    take_incoming(spread, i);
  return upload(spread, &spread->members[i]);
}

/* The migrants that cross: around the members' ring (member m's last
 * island feeds the first of member m + 1), or every member's to all. */
static ck_status exchange(ck__ga_spread *spread) {
  ck__spread_run *run = ck__engine_run(spread->engine);
  const void *send[CK_SPREAD_MAX_LOCAL];
  void *receive[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    send[i] = spread->members[i].out;
    receive[i] = spread->members[i].in;
  }
  if (spread->ring)
    return ck__exchange_ring(run->exchange, send, receive, spread->pack);
  return ck__exchange_gather(run->exchange, send, spread->pack,
                             spread->gathered);
}

/* Device to device, queued from the calling thread between phases: a
 * ring's previous member's last island's migrants into each member's one
 * incoming slot, in the sets the last emigrations wrote, in both queues'
 * order. Every member is local here, so a member's number in the run is
 * its local one. */
static ck_status pass_on_devices(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  size_t n = spread->local;
  size_t genes = gene_bytes(spread), fitness = fitness_bytes(spread);
  assert(spread->ring);
  for (size_t i = 0; i < n; ++i) {
    size_t h = (i + n - 1) % n;
    ga_state *to = &spread->members[i].ga->state;
    ga_state *from = &spread->members[h].ga->state;
    size_t slot = to->islands, at = from->islands - 1;
    assert(spread->peers[0][i] && to->incoming == 1);
    CK_TRY(ck__peer_copy(spread->peers[0][i], to->queue,
                         to->migrant_genes[to->migrant_set], slot * genes,
                         from->queue, from->migrant_genes[from->migrant_set],
                         at * genes, genes));
    CK_TRY(ck__peer_copy(spread->peers[0][i], to->queue,
                         to->migrant_fitness[to->migrant_set], slot * fitness,
                         from->queue, from->migrant_fitness[from->migrant_set],
                         at * fitness, fitness));
    ck__engine_run(spread->engine)->bytes_sent[h] += genes + fitness;
  }
fail:
  return status;
}

/* What crosses after a round that migrates (the engine's cross). */
ck_status ck__ga_spread_cross(void *self, ck__engine *engine, uint64_t first,
                              uint64_t count) {
  ck__ga_spread *spread = self;
  (void)engine;
  (void)first;
  if (!count || !spread->round_migrates || !spread->crossing)
    return CK_OK;
  return spread->on_devices ? pass_on_devices(spread) : exchange(spread);
}

/* ---- copies between devices ---------------------------------------------- */

/* Copies without the host into each member from its previous one, where
 * migrants cross a ring (ck__spread_peers_open). Random cycles go through
 * the host: their islands' sources scatter over the members, and copying
 * them island by island took 70 times as long on two H200s. */
static ck_status open_peers(ck__ga_spread *spread) {
  if (!spread->crossing || !spread->ring)
    return CK_OK;
  ck_status status =
      ck__spread_peers_open(ck__engine_run(spread->engine), 1, spread->peers);
  spread->on_devices = status == CK_OK && spread->peers[0][0] != NULL;
  return status;
}

/* Whether the members' launches may cross GPUs on the ring (cl/ga.cu,
 * CK_GA_ACROSS): every member a CUDA device of this process that reads
 * its previous member's memory, each on a GPU of its own (two members on
 * one GPU could wait on each other's blocks, which that GPU might never
 * run at once). */
static int wants_across(const ck__ga_spread *spread) {
  const ck__spread_run *run = ck__engine_run(spread->engine);
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

/* Between processes, once the members are set up (collective): each
 * opens its previous member's counts, relay and relay fitness through
 * the window (framework/window.h), its islands a word of its offer;
 * *span, the rounds' span: their launches' where every member could,
 * else 1. */
static ck_status open_across(ck__ga_spread *spread, uint32_t *span) {
  ck_status status = CK_OK;
  ga_state *state = &spread->members[0].ga->state;
  ck__window_offer offer = {.buffers = {state->native_crossed,
                                        state->native_relay,
                                        state->native_relay_fitness},
                            .generation = 1,
                            .words = {state->islands}};
  ck__window_view views[2];
  int usable = 0;
  CK_TRY(
      ck__window_swap(spread->window, &offer, state->across, views, &usable));
  const ck__window_view *from = &views[0];
  if (usable)
    point_at_previous(state, from->address[0], from->address[1],
                      from->address[2], from->words[0]);
  /* Where any process could not, every round stops at each migration. */
  *span = usable ? state->span_segments : 1;
fail:
  return status;
}

ck_status ck__ga_spread_connect_devices(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  CK_TRY(ck__engine_agree(spread->engine, open_peers(spread)));
  ck__spread_run *run = ck__engine_run(spread->engine);
  int across = 0;
  /* Between processes: one CUDA member each, on GPUs of their own, all
   * on one host (CUDA IPC). */
  if (ck__exchange_ranks(run->exchange) > 1) {
    CK_TRY(ck__window_open(run, spread->ring && spread->crossing,
                           CK__WINDOW_IPC_ONLY | CK__WINDOW_OWN_GPUS |
                               CK__WINDOW_PREVIOUS_ONLY | CK__WINDOW_NO_MARKS,
                           &spread->window));
    across = spread->window != NULL;
  } else {
    across = wants_across(spread);
  }
  for (size_t i = 0; across && i < spread->local; ++i)
    spread->members[i].ga->state.across_wanted = 1;
fail:
  return status;
}

ck_status ck__ga_spread_wire(ck__ga_spread *spread, uint32_t *span) {
  /* Between processes where they may not cross GPUs, every round stops
   * at each migration. */
  *span = 1;
  if (ck__exchange_ranks(ck__engine_run(spread->engine)->exchange) > 1)
    return spread->window ? open_across(spread, span) : CK_OK;
  return ck__engine_agree(spread->engine, wire_across(spread, span));
}

void ck__ga_spread_unwire(ck__ga_spread *spread) {
  ck__spread_peers_close(spread->peers);
  ck__window_close(spread->window);
  spread->window = NULL;
}
