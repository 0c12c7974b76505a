/*
 * ga_spread.c - one GA over several devices (and processes): each member
 * evolves a contiguous slice of the islands, on a host thread of its own
 * (ck__spread_each), and the migrants that cross a member's boundary go
 * between its rounds.
 *
 * A round is the generations up to a migration, a read or the step's end.
 * In a round each member receives the last round's migrants, makes its
 * generations and sends its own. Members may share a device, each with
 * a queue and memory of its own there. Where every member is a CUDA
 * device of one process, those that leave for another member go device
 * to device (ck__peer_copy; a device copy where both share one) into its
 * incoming slots, in both queues' order, without the host. Elsewhere
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
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

/* A probe's batches of generations hold at most this many. */
#define PROBE_GENERATIONS 32

/* A local member. */
typedef struct member {
  ck_ga *ga;
  /* Its migrants to other members and from them: packs in host memory
   * that its queue moves fastest (ck__host_alloc: page-locked on CUDA). */
  unsigned char *out, *in;
} member;

struct ck__ga_spread {
  ck__spread_run run;
  member *members; /* local ones */
  size_t count;    /* the run's members */
  /* Every member's slice: its first island and islands. */
  uint64_t *firsts, *units;
  uint32_t widest; /* the most islands a member holds */
  int dim, ring, double_precision;
  uint32_t migrants;
  size_t real; /* bytes a real */
  /* Migrants cross between members (several, migrating); the bytes of a
   * pack of them (ring: an island's; random: the widest member's). */
  int crossing;
  size_t pack;
  /* Copies without the host into local member i from local member j
   * (peers[i * local + j]: a ring's previous member, or every other),
   * where every member is a CUDA device of this one process; on_devices:
   * the crossing migrants go through them, and the packs are unused. */
  ck__peer **peers;
  int on_devices;
  /* Between processes: the previous member's counts, relay and relay
   * fitness, opened here (CUDA IPC), to close. */
  uint64_t opened[3];
  unsigned char *gathered; /* random: every member's pack */
  /* The round the members make: its generations, and whether a
   * migration follows them. */
  uint64_t round_count;
  int round_migrates;
  uint32_t round_inside; /* the migrations inside its launches */
  /* The members owe the last round's receiving (due), which migrated or
   * not (due_migrates): made at the start of their next phase. */
  int due, due_migrates;
  /* Rounds made (generation 0's is round 0), and the round of each
   * statistics slot not yet read. */
  uint64_t rounds, *slot_round;
  /* Every member's best so far, as the reads found it, and the round
   * that first reached it; the run's best, its member and its genes. */
  double *member_best;
  uint64_t *member_round;
  double best;
  size_t holder;
  double *genes;
  /* Every island's statistics (keep_island_history): every local
   * member's, padded to the widest, then every member's. */
  unsigned char *stats, *all_stats;
  uint32_t stats_capacity;
  /* A read's slots, and whether it takes every island's statistics. */
  uint32_t slots;
  int every_island;
  /* Folded statistics: (best, mean) a generation, every local member's,
   * every member's, and the run's. */
  double *folded, *all_folded, *rows;
};

ck__spread_run *ck__ga_spread_run(const ck_ga *ga) {
  return ga->spread ? &ga->spread->run : NULL;
}

/* A status of the calling thread's, agreed over all processes. */
static ck_status agree(ck__ga_spread *spread, ck_status status) {
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {status};
  return ck__exchange_agree(spread->run.exchange, statuses);
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

/* A member's migrants that other members receive (a ring's last
 * island's; random cycles: every island's), from the set the last
 * emigration wrote, copied into its out pack behind its queued work; then
 * it waits for the copy, which the exchange reads. */
static ck_status send_out(const ck__ga_spread *spread, member *m) {
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

/* The member that holds island `island` of the run. */
static size_t holder_of(const ck__ga_spread *spread, uint64_t island) {
  size_t low = 0, high = spread->count - 1;
  while (low < high) {
    size_t middle = (low + high + 1) / 2;
    if (spread->firsts[middle] <= island)
      low = middle;
    else
      high = middle - 1;
  }
  return low;
}

/* A random cycle's migrants for local member i's islands whose source
 * another member holds, from the gathered packs into its in pack. */
static void take_incoming(const ck__ga_spread *spread, size_t i) {
  member *m = &spread->members[i];
  size_t room = pack_room(spread);
  size_t genes = gene_bytes(spread), fitness = fitness_bytes(spread);
  uint64_t first = spread->run.first[i];
  uint32_t islands = m->ga->state.islands;
  for (uint32_t j = 0; j < islands; ++j) {
    uint64_t from = m->ga->source[first + j];
    if (from - first < islands)
      continue; /* its own island sends */
    size_t holder = holder_of(spread, from);
    size_t at = (size_t)(from - spread->firsts[holder]);
    assert(holder != ck__exchange_first(spread->run.exchange) + i &&
           at < spread->units[holder]);
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
static ck_status upload(const ck__ga_spread *spread, member *m) {
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
  member *m = &spread->members[i];
  if (spread->due_migrates && spread->crossing && !spread->on_devices) {
    if (!spread->ring)
      take_incoming(spread, i);
    CK_TRY(upload(spread, m));
  }
  CK_TRY(ck__ga_slice_receive(m->ga, spread->due_migrates));
fail:
  return status;
}

/* A member's round (ck__spread_each): the last round's receiving, its
 * generations, and its migrants out. */
static ck_status round_member(void *context, size_t i) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = context;
  member *m = &spread->members[i];
  if (spread->due)
    CK_TRY(settle(spread, i));
  CK_TRY(ck__ga_slice_send(m->ga, spread->round_count, spread->round_migrates,
                           spread->round_inside));
  if (spread->round_migrates && spread->crossing && !spread->on_devices)
    CK_TRY(send_out(spread, m));
fail:
  return status;
}

/* The migrants that cross: around the members' ring (member m's last
 * island feeds the first of member m + 1), or every member's to all. */
static ck_status exchange(ck__ga_spread *spread) {
  ck__spread_run *run = &spread->run;
  const void *send[CK_SPREAD_MAX_LOCAL];
  void *receive[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    send[i] = spread->members[i].out;
    receive[i] = spread->members[i].in;
    run->bytes_sent[i] +=
        spread->ring ? spread->pack : (spread->count - 1) * spread->pack;
  }
  if (spread->ring)
    return ck__exchange_ring(run->exchange, send, receive, spread->pack);
  return ck__exchange_gather(run->exchange, send, spread->pack,
                             spread->gathered);
}

/* Device to device: `count` islands' migrants of local member h from its
 * island `at` on, into local member i's incoming slots from slot `j` on
 * (island i's own j), in the sets the last emigrations wrote. */
static ck_status copy_islands(ck__ga_spread *spread, size_t i, uint32_t j,
                              size_t h, uint64_t at, uint32_t count) {
  ck_status status = CK_OK;
  ga_state *to = &spread->members[i].ga->state;
  ga_state *from = &spread->members[h].ga->state;
  ck__peer *peer = spread->peers[i * spread->run.local + h];
  size_t genes = gene_bytes(spread), fitness = fitness_bytes(spread);
  size_t slot = (size_t)to->islands + j;
  assert(peer && j + count <= to->incoming && at + count <= from->islands);
  CK_TRY(ck__peer_copy(peer, to->queue, to->migrant_genes[to->migrant_set],
                       slot * genes, from->queue,
                       from->migrant_genes[from->migrant_set], at * genes,
                       count * genes));
  CK_TRY(ck__peer_copy(peer, to->queue, to->migrant_fitness[to->migrant_set],
                       slot * fitness, from->queue,
                       from->migrant_fitness[from->migrant_set], at * fitness,
                       count * fitness));
  spread->run.bytes_sent[h] += count * (genes + fitness);
fail:
  return status;
}

/* The migrants that cross, device to device, queued from the calling
 * thread between phases: a ring's previous member's last island into
 * each member's one incoming slot, or each island's source held by
 * another member into its own slot (runs of neighbouring islands that
 * neighbour at their holder too in one copy). Every member is local
 * here, so a member's number in the run is its local one. */
static ck_status pass_on_devices(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  size_t n = spread->run.local;
  for (size_t i = 0; i < n; ++i) {
    ck_ga *ga = spread->members[i].ga;
    if (spread->ring) {
      size_t h = (i + n - 1) % n;
      CK_TRY(copy_islands(spread, i, 0, h,
                          spread->members[h].ga->state.islands - 1, 1));
      continue;
    }
    uint64_t first = spread->run.first[i];
    uint32_t islands = ga->state.islands, start = 0, count = 0;
    size_t holder = 0;
    uint64_t at = 0;
    for (uint32_t j = 0; j <= islands; ++j) {
      uint64_t from = j < islands ? ga->source[first + j] : first;
      int remote = from - first >= islands;
      size_t h = remote ? holder_of(spread, from) : 0;
      uint64_t from_at = remote ? from - spread->firsts[h] : 0;
      if (count && remote && h == holder && from_at == at + count) {
        ++count;
        continue;
      }
      if (count)
        CK_TRY(copy_islands(spread, i, start, holder, at, count));
      count = remote ? 1 : 0;
      start = j;
      holder = h;
      at = from_at;
    }
  }
fail:
  return status;
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

/* A member's read (ck__spread_each): the last round's receiving where
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
  ck_status status = ck__spread_each(&spread->run, read_member, spread);
  spread->due = 0;
  return status;
}

ck_status ck__ga_spread_stats(ck__ga_spread *spread, uint32_t slots,
                              void *stats) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t island = 2 * spread->real, room = spread->widest;
  size_t bytes = (size_t)slots * room * island;
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  CK_TRY(read_members(spread, slots, 1));
  for (size_t i = 0; i < run->local; ++i) {
    pieces[i] = spread->stats + i * bytes;
    run->bytes_sent[i] += (spread->count - 1) * bytes;
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, bytes, spread->all_stats));
  /* Slot by slot, the members' islands in order: the run's islands. */
  size_t run_islands = (size_t)spread->firsts[spread->count - 1] +
                       spread->units[spread->count - 1];
  for (size_t m = 0; m < spread->count; ++m) {
    for (uint32_t slot = 0; slot < slots; ++slot) {
      const unsigned char *held =
          spread->all_stats + m * bytes + (size_t)slot * room * island;
      memcpy((unsigned char *)stats +
                 (slot * run_islands + spread->firsts[m]) * island,
             held, spread->units[m] * island);
      for (size_t j = 0; j < spread->units[m]; ++j)
        keep_best(spread, m, slot, real_at(spread, held, 2 * j));
    }
  }
fail:
  return status;
}

ck_status ck__ga_spread_folded(ck__ga_spread *spread, uint32_t slots,
                               const double **rows) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t pairs = (size_t)slots * 2;
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  CK_TRY(read_members(spread, slots, 0));
  for (size_t i = 0; i < run->local; ++i) {
    pieces[i] = spread->folded + i * pairs;
    run->bytes_sent[i] += (spread->count - 1) * pairs * sizeof(double);
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, pairs * sizeof(double),
                             spread->all_folded));
  double islands = (double)(spread->firsts[spread->count - 1] +
                            spread->units[spread->count - 1]);
  for (uint32_t slot = 0; slot < slots; ++slot) {
    double best = INFINITY, sum = 0;
    for (size_t m = 0; m < spread->count; ++m) {
      const double *pair = spread->all_folded + m * pairs + 2 * slot;
      keep_best(spread, m, slot, pair[0]);
      best = pair[0] < best ? pair[0] : best;
      sum += pair[1] * (double)spread->units[m];
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

/* The best's holder's genes, read where it is local (ck__spread_each). */
static ck_status genes_member(void *context, size_t i) {
  ck__ga_spread *spread = context;
  if (ck__exchange_first(spread->run.exchange) + i != spread->holder)
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
  CK_TRY(ck__spread_each(&spread->run, genes_member, spread));
  CK_TRY(ck__exchange_broadcast(spread->run.exchange, winner, spread->genes,
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
    CK_TRY(ck__spread_each(&spread->run, round_member, spread));
    spread->due = 1;
    spread->due_migrates = migrates;
    if (migrates && spread->crossing)
      CK_TRY(spread->on_devices ? pass_on_devices(spread) : exchange(spread));
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

/* ---- creation ------------------------------------------------------------ */

/* What a phase of the creation takes. */
typedef struct create_call {
  ck__ga_spread *spread;
  const ck_ga_config *config; /* the probe's, or the members' */
  size_t run_islands;
  double speeds[CK_SPREAD_MAX_LOCAL];
} create_call;

static ck_status probe_step(void *context, uint64_t count) {
  ck_ga *ga = context;
  ck_status status = ck_ga_step(ga, count);
  return status ? status : ck_queue_finish(ga->state.queue);
}

/* A member's island-generations a second, on a GA of its equal share of
 * the islands (migrating never): the speeds the islands are dealt by. */
static ck_status probe_member(void *context, size_t i) {
  create_call *call = context;
  ck_ga *ga = NULL;
  double per_second = 0;
  ck_status status =
      ck_ga_create(&call->spread->run.devices[i], call->config, &ga);
  if (status == CK_OK)
    status = ck__spread_time(probe_step, ga, PROBE_GENERATIONS, &per_second);
  call->speeds[i] = per_second * (double)call->config->islands;
  ck_ga_destroy(ga);
  return status;
}

static ck_status probe(ck__ga_spread *spread, const ck_ga_config *config,
                       create_call *call) {
  ck_ga_config trial = *config;
  trial.islands = config->islands / spread->count;
  if (trial.islands < 1)
    trial.islands = 1;
  trial.migrate_every = 0;
  trial.max_evaluations = 0;
  trial.has_target = 0;
  trial.keep_island_history = 0;
  call->config = &trial;
  ck_status status = ck__spread_each(&spread->run, probe_member, call);
  /* The members' compute times start with their islands. */
  memset(spread->run.compute_s, 0,
         spread->run.local * sizeof *spread->run.compute_s);
  return status;
}

/* A member's islands: the checks, its settings and buffers. */
static ck_status allocate_member(void *context, size_t i) {
  ck_status status = CK_OK;
  create_call *call = context;
  ck__ga_spread *spread = call->spread;
  ck__spread_run *run = &spread->run;
  const ck__ga_slice share = {(uint32_t)run->first[i],
                              (uint32_t)call->run_islands,
                              spread->stats_capacity};
  ck_ga_config slice = *call->config;
  slice.islands = run->units[i];
  CK_TRY(ck__ga_slice_allocate(&run->devices[i], &slice, &share,
                               &spread->members[i].ga));
  run->queues[i] = spread->members[i].ga->state.queue;
fail:
  return status;
}

/* A member's kernels and generation 0, and its packs of migrants. */
static ck_status set_up_member(void *context, size_t i) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = context;
  member *m = &spread->members[i];
  ck_queue *queue = m->ga->state.queue;
  CK_TRY(ck__ga_slice_set_up(m->ga));
  if (spread->crossing && !spread->on_devices) {
    CK_TRY(ck__host_alloc(queue, spread->pack, (void **)&m->out));
    CK_TRY(ck__host_alloc(queue, spread->pack, (void **)&m->in));
  }
fail:
  return status;
}

/* Every member's slice (first island, islands), and the widest. */
static ck_status learn_slices(ck__ga_spread *spread, size_t islands) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  uint64_t local[CK_SPREAD_MAX_LOCAL][2];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *all = calloc(spread->count * 2, sizeof *all);
  spread->firsts = calloc(spread->count, sizeof *spread->firsts);
  spread->units = calloc(spread->count, sizeof *spread->units);
  CK_TRY(agree(spread,
               all && spread->firsts && spread->units
                   ? CK_OK
                   : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  for (size_t i = 0; i < run->local; ++i) {
    local[i][0] = run->first[i];
    local[i][1] = run->units[i];
    pieces[i] = local[i];
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof local[0], all));
  uint64_t dealt = 0;
  for (size_t m = 0; m < spread->count; ++m) {
    spread->firsts[m] = all[2 * m];
    spread->units[m] = all[2 * m + 1];
    assert(spread->firsts[m] == dealt && spread->units[m] > 0);
    dealt += spread->units[m];
    if (spread->units[m] > spread->widest)
      spread->widest = (uint32_t)spread->units[m];
  }
  assert(dealt == islands);
  (void)islands;
fail:
  free(all);
  return status;
}

/* The caller's memory: the gathered packs, the statistics, the bests. */
static ck_status make_buffers(ck__ga_spread *spread) {
  size_t local = spread->run.local, count = spread->count;
  size_t stats =
      (size_t)spread->stats_capacity * spread->widest * 2 * spread->real;
  size_t pairs = (size_t)spread->stats_capacity * 2;
  spread->genes = calloc((size_t)spread->dim, sizeof *spread->genes);
  int gathers = spread->crossing && !spread->ring && !spread->on_devices;
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

static void close_peers(ck__ga_spread *spread) {
  for (size_t k = 0; spread->peers && k < spread->run.local * spread->run.local;
       ++k)
    ck__peer_close(spread->peers[k]);
  free(spread->peers);
  spread->peers = NULL;
}

/* Copies without the host into each member from those it takes migrants
 * from, where migrants cross and every member is a CUDA device of this
 * one process: every one, or none. */
static ck_status open_peers(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  size_t n = spread->run.local;
  if (!spread->crossing || ck__exchange_ranks(spread->run.exchange) != 1)
    return CK_OK;
  if (!(spread->peers = calloc(n * n, sizeof *spread->peers)))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  int all = 1;
  for (size_t i = 0; all && i < n; ++i)
    for (size_t j = 0; all && j < n; ++j) {
      if (j == i || (spread->ring && j != (i + n - 1) % n))
        continue;
      CK_TRY(ck__peer_open(&spread->run.devices[j], &spread->run.devices[i],
                           &spread->peers[i * n + j]));
      all = spread->peers[i * n + j] != NULL;
    }
  spread->on_devices = all;
fail:
  if (!spread->on_devices)
    close_peers(spread);
  return status;
}

/* Whether the members' launches may cross GPUs on the ring (cl/ga.cu,
 * CK_GA_ACROSS): every member a CUDA device of this process that reads
 * its previous member's memory, each on a GPU of its own (two members on
 * one GPU could wait on each other's blocks, which that GPU might never
 * run at once). */
static int wants_across(const ck__ga_spread *spread) {
  const ck__spread_run *run = &spread->run;
  size_t n = run->local;
  if (!spread->on_devices || !spread->ring || !spread->crossing)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ck__peer_direct(spread->peers[i * n + (i + n - 1) % n]))
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
  ck__peer *peer = spread->peers[i * spread->run.local + h];
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
  size_t n = spread->run.local;
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
  ck_status status = CK_OK;
  const ck__spread_run *run = &spread->run;
  struct {
    unsigned char gpu[CK__IPC_IDENTITY_BYTES];
    char able, host[47];
  } mine, *all = NULL;
  const void *pieces[CK_SPREAD_MAX_LOCAL] = {&mine};
  *wanted = 0;
  memset(&mine, 0, sizeof mine);
  mine.able = run->local == 1 && ck__device_shares_between_processes(&run->devices[0]) &&
              spread->ring && spread->crossing && ck__peer_enabled() &&
              !ck__setting_off("CLKIT_IPC") &&
              ck__ipc_device_identity(&run->devices[0], mine.gpu) == CK_OK &&
              gethostname(mine.host, sizeof mine.host - 1) == 0;
  all = calloc(spread->count, sizeof mine);
  CK_TRY(agree(spread,
               all ? CK_OK
                   : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof mine, all));
  int able = 1;
  for (size_t m = 0; m < spread->count; ++m) {
    able = able && all[m].able && strcmp(all[m].host, all[0].host) == 0;
    for (size_t k = 0; k < m; ++k)
      able = able && memcmp(all[m].gpu, all[k].gpu, sizeof mine.gpu) != 0;
  }
  *wanted = able;
fail:
  free(all);
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
  ck__spread_run *run = &spread->run;
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
      ck__ipc_buffer_close(&spread->run.devices[0], spread->opened[k]);
      spread->opened[k] = 0;
    }
}

int ck__ga_spread_on_devices(const ck_ga *ga) {
  return ga->spread && ga->spread->on_devices;
}

uint32_t ck__ga_spread_span(const ck_ga *ga) {
  return ga->spread ? ga->state.span_segments : 0;
}

ck_status ck__ga_spread_create(const ck_spread *given,
                               const ck_ga_config *config, ck__ga_spread **made,
                               uint32_t *stats_capacity,
                               uint32_t *span_segments) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin_shared(given, "islands", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->count = ck__exchange_members(run->exchange);
  create_call call = {.spread = spread, .run_islands = config->islands};
  int measure = !given->shares && spread->count > 1;
  if (measure)
    CK_TRY(probe(spread, config, &call));
  CK_TRY(ck__spread_deal(run, given, config->islands, 1,
                         measure ? call.speeds : NULL));
  CK_TRY(learn_slices(spread, config->islands));
  /* Every member reads its statistics as often: the gathered ones fit
   * the buffer one device of the padded islands would keep. */
  spread->stats_capacity =
      ck__ga_stats_capacity(spread->count * (size_t)spread->widest);
  spread->members = calloc(run->local, sizeof *spread->members);
  CK_TRY(agree(spread, spread->members ? CK_OK
                                       : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                                                  "out of host memory")));
  /* The stopping rules are the driver's, over the whole run. */
  ck_ga_config slice = *config;
  slice.has_target = 0;
  slice.max_evaluations = 0;
  slice.keep_island_history = 0;
  slice.progress = NULL;
  call.config = &slice;
  /* Islands too many for their device are known before any member builds
   * its kernels and makes generation 0, which can take many seconds. */
  CK_TRY(ck__spread_each(run, allocate_member, &call));
  const ga_state *state = &spread->members[0].ga->state;
  spread->dim = state->dim;
  spread->ring = state->ring;
  spread->double_precision = state->double_precision;
  spread->migrants = state->migrants;
  spread->real = state->real_size;
  spread->crossing = spread->count > 1 && spread->migrants > 0;
  spread->pack =
      pack_room(spread) * (gene_bytes(spread) + fitness_bytes(spread));
  CK_TRY(agree(spread, open_peers(spread)));
  int between = ck__exchange_ranks(run->exchange) > 1, across = 0;
  if (between)
    CK_TRY(across_processes_wanted(spread, &across));
  else
    across = wants_across(spread);
  for (size_t i = 0; across && i < run->local; ++i)
    spread->members[i].ga->state.across_wanted = 1;
  CK_TRY(ck__spread_each(run, set_up_member, spread));
  /* Between processes where they may not cross GPUs, every round stops
   * at each migration. */
  *span_segments = 1;
  if (between && across)
    CK_TRY(open_across(spread, span_segments));
  else if (!between)
    CK_TRY(agree(spread, wire_across(spread, span_segments)));
  CK_TRY(agree(spread, make_buffers(spread)));
  *stats_capacity = spread->stats_capacity;
  *made = spread;
  return CK_OK;
fail:
  ck__ga_spread_destroy(spread);
  return status;
}

ck_status ck__ga_spread_best(ck__ga_spread *spread, double *value,
                             double *position) {
  if (value)
    *value = spread->best;
  if (position)
    memcpy(position, spread->genes, (size_t)spread->dim * sizeof *position);
  return CK_OK;
}

void ck__ga_spread_destroy(ck__ga_spread *spread) {
  if (!spread)
    return;
  /* No copy may still read or write the packs, or another member's
   * buffers. */
  for (size_t i = 0; spread->members && i < spread->run.local; ++i)
    if (spread->members[i].ga)
      ck_queue_finish(spread->members[i].ga->state.queue);
  close_peers(spread);
  close_across(spread);
  for (size_t i = 0; spread->members && i < spread->run.local; ++i) {
    member *m = &spread->members[i];
    if (m->ga) {
      ck__host_free(m->ga->state.queue, m->out);
      ck__host_free(m->ga->state.queue, m->in);
    }
    ck_ga_destroy(m->ga);
  }
  free(spread->members);
  free(spread->firsts);
  free(spread->units);
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
  ck__spread_end(&spread->run);
  free(spread);
}
