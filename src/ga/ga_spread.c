/*
 * ga_spread.c - a GA's run as members of the member engine
 * (framework/engine.h), over one device or several (and processes): each
 * member evolves a contiguous slice of the islands, on a host thread of
 * its own, and the migrants that cross a member's boundary go between
 * its rounds. A GA on one device is a run of one member: its round spans
 * a launch, and nothing crosses.
 *
 * A round is the generations up to a migration, a read or the step's end.
 * In a round each member receives the last round's migrants, makes its
 * generations and sends its own. Members may share a device, each with
 * a queue and memory of its own there. On a ring where every member is a
 * CUDA device of one process, those that leave for the next member go
 * device to device (ck__peer_copy; a device copy where both share one)
 * into its incoming slot, in both queues' order, without the host. Elsewhere
 * they are copied behind the sender's queued work into host memory
 * (page-locked on CUDA), and the member waits for that copy alone. The
 * exchange then moves them (copies in a process, MPI between processes),
 * and each member uploads those it received, in its queue's order,
 * before the launch that receives them.
 * On a ring where each member has a GPU of its own (in this process, or
 * a rank's of one host), a round runs as long as one device's launch:
 * the migrations inside it cross GPUs in the kernels, each member
 * reading its previous member's relay in place (cl/ga.cu, CK_GA_ACROSS;
 * peer access or CUDA IPC). Only the migration at a round's end goes as
 * above.
 * Nothing else is read inside the generation loop: a step ends reading
 * every member's statistics, from which every process finds the best.
 *
 * The result is the one-device GA's, bit for bit, on devices that compute
 * alike: an island draws from its own streams wherever it lives (its
 * number in the whole run), every member plans the run's migrations as
 * one device does, and the best is the least of the members' bests, ties
 * going to the earliest round and then the lowest island, as one device
 * keeps it round by round. The history's mean is the members' means
 * weighted by their islands: one device's to rounding.
 *
 * ga_spread_create.c makes the spread (the probe, the dealing, the
 * members and the copies between their devices) and frees it.
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

ck__spread_run *ck__ga_spread_run(const ck_ga *ga) {
  return ga->spread ? ck__engine_run(ga->spread->engine) : NULL;
}

static ck__spread_run *run_of(const ck__ga_spread *spread) {
  return ck__engine_run(spread->engine);
}

uint64_t ck__ga_spread_first(const ck__ga_spread *spread, size_t m) {
  uint64_t first = 0, units = 0;
  ck__engine_slice(spread->engine, m, &first, &units);
  return first;
}

uint64_t ck__ga_spread_islands(const ck__ga_spread *spread, size_t m) {
  uint64_t first = 0, units = 0;
  ck__engine_slice(spread->engine, m, &first, &units);
  return units;
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
    size_t at = (size_t)(from - ck__ga_spread_first(spread, holder));
    assert(holder != ck__exchange_first(run_of(spread)->exchange) + i &&
           at < ck__ga_spread_islands(spread, holder));
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

/* Local member i's receiving of the last round: the migrants from other
 * members uploaded, then its own receiving and best. */
static ck_status settle(ck__ga_spread *spread, size_t i) {
  ck_status status = CK_OK;
  ga_member *m = &spread->members[i];
  if (spread->due_migrates && spread->crossing && !spread->on_devices) {
    if (!spread->ring)
      take_incoming(spread, i);
    CK_TRY(upload(spread, m));
  }
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
    return send_out(spread, &spread->members[i]);
  return CK_OK;
}

/* A round is what the front planned (ck__ga_next_run): all of it. */
uint64_t ck__ga_spread_whole(void *self, uint64_t first, uint64_t count) {
  (void)self;
  (void)first;
  return count;
}

/* The migrants that cross: around the members' ring (member m's last
 * island feeds the first of member m + 1), or every member's to all. */
static ck_status exchange(ck__ga_spread *spread) {
  ck__spread_run *run = run_of(spread);
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
    run_of(spread)->bytes_sent[h] += genes + fitness;
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
    uint64_t first = ck__ga_spread_first(spread, m);
    uint64_t islands = ck__ga_spread_islands(spread, m);
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
      sum += pair[1] * (double)ck__ga_spread_islands(spread, m);
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
  if (value)
    *value = spread->best;
  if (position)
    memcpy(position, spread->genes, (size_t)spread->dim * sizeof *position);
  return CK_OK;
}
