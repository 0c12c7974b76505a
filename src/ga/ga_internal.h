/*
 * ga_internal.h - the GA driver's state and its table of steps per
 * backend. The driver (ga.c) owns the generation loop, migration schedule
 * and stopping rules; ga_create.c makes and frees a GA; a step does one
 * phase for every island.
 *
 * Buffers come in pairs: generation t reads population[(t - 1) & 1] and
 * writes population[t & 1] (likewise fitness); generation 0 is in [0].
 */
#ifndef CK_GA_INTERNAL_H
#define CK_GA_INTERNAL_H

#include "ck_ga_migration.h"
#include "clkit/clkit.h"
#include "clkit/ga.h"
#include "framework/engine.h"
#include "framework/spread.h"
#include "framework/window.h"
#include "objectives/problem.h"
#include "runtime/runtime.h"

typedef struct ga_state ga_state;

typedef struct ck__ga_steps {
  ck_status (*setup)(ga_state *state);
  /* Generation 0 into buffer 0; streamed objectives evaluated. */
  ck_status (*initialise)(ga_state *state);
  /* `count` generations from `first`; streamed objectives record each
   * generation's island statistics from stats slot `slot` on. Where
   * state->fused_migration, `migration` (CK_GA_IMMIGRATE, CK_GA_EMIGRATE)
   * asks for the halves of the migrations that border the launch: the
   * receiving of the one made after generation first - 1, before the
   * first generation, and the sending of the one after the last; else it
   * is 0. Where span_segments > 1 the call may also cross migrations of
   * the ring (at most span_segments - 1), which the step makes itself. */
  ck_status (*evolve)(ga_state *state, uint64_t first, uint32_t count,
                      uint32_t slot, uint32_t migration);
  /* Non-streamed objectives: fitness of buffer `which`. */
  ck_status (*evaluate)(ga_state *state, int which);
  /* Island best and mean of buffer `which` into stats slot `slot`; the
   * islands' bests so far are kept (evolve does this too, for streamed
   * objectives). */
  ck_status (*stats)(ga_state *state, int which, uint32_t slot);
  /* Best `migrants` of island source[i] replace the worst of island i, in
   * buffer `which`: the islands' best sent to the migrant buffers
   * (CK_GA_EMIGRATE in `parts`), then received (CK_GA_IMMIGRATE). */
  ck_status (*migrate)(ga_state *state, int which, uint32_t parts);
  /* The best of the islands' bests so far, kept with its genes. */
  ck_status (*update_best)(ga_state *state);
  /* Stats slots [0, slots) folded over the islands into `folded` (best of
   * the bests, mean of the means, per slot), so that the host reads two
   * values a generation; NULL where the statistics are in host memory
   * already (ref), and the host folds them. */
  ck_status (*fold_stats)(ga_state *state, uint32_t slots);
  void (*teardown)(ga_state *state);
} ck__ga_steps;

struct ga_state {
  ck_queue *queue;
  ck_device device;
  const ck__problem *problem;
  /* streamed: evaluated in the generation's launch (built-ins, and a
   * fused user objective's); fused_user: a user objective without data so
   * evaluated (CK_GA_FUSE_USER of cl/ga.cl), with a child a work-item,
   * in the global-memory form or the resident one: a launch and a pass
   * over the population fewer each generation. */
  int objective, streamed, fused_user, dim, double_precision;
  size_t real_size;
  uint32_t islands, size, total;
  int elite, tournament, crossover, mutation, bounds;
  double crossover_rate, crossover_parameter, mutation_rate, mutation_parameter;
  /* ck_ga_inverse_log_keep(mutation_rate) in the run's precision, computed
   * once on the host and passed to every backend, whose divisions and logs
   * need not round as the host's do. */
  double inverse_log_keep;
  uint32_t migrants;
  uint32_t migrate_every; /* generations between migrations; 0: none */
  /* A spread run's device holds islands first_island .. first_island +
   * islands - 1 of the run's run_islands (0 and islands alone); its
   * children draw from the streams of their islands in the whole run.
   * Migrants from other devices land in `incoming` migrant slots past the
   * islands' own: island i's at slot islands + i. */
  uint32_t first_island, run_islands, incoming;
  int ring; /* migrations go round the ring of islands */
  /* Whether evolve makes the migrations that border its launches (set by
   * setup: the resident island generations). */
  int fused_migration;
  /* The most segments (runs of generations between migrations) one evolve
   * call may make with a ring's migrations between them (set by setup: 1,
   * the driver then stops each call at a migration, unless the steps make
   * the migrations inside their launches: CUDA's native generation,
   * cl/ck_ga_schedule.h; a spread run's front: ck__ga_spread_create's). */
  uint32_t span_segments;
  uint64_t seed;
  ck_buffer *lo, *hi;
  ck_buffer *population[2], *fitness[2]; /* dim * total, total */
  ck_buffer *stats; /* stats_capacity x islands x (best, mean) */
  uint32_t stats_capacity;
  ck_buffer *folded; /* stats_capacity x (best, mean), with fold_stats */
  /* Migrants, (islands + incoming) * migrants each, in two sets: a launch
   * that
   * receives one migration and sends the next reads one set and writes
   * the other. The driver makes the first; steps that need the second
   * make it in their setup (ref sends and receives in one call). */
  ck_buffer *migrant_genes[2], *migrant_fitness[2];
  uint32_t migrant_set;         /* the set the last emigration wrote */
  ck_buffer *source;            /* islands: who sends to island i */
  ck_buffer *data;              /* lsq or user data */
  ck_buffer *island_best;       /* islands: each island's best so far */
  ck_buffer *island_best_genes; /* dim x islands, dimension-major */
  ck_buffer *best_value, *best_index, *best_genes;
  ck_buffer *partial_values, *partial_indices;
  ck_buffer *scratch; /* the best kernels' history, unused here */
  ck_buffer *done;    /* always 0: no early stop inside kernels */
  ck_buffer *lsq_partial;
  uint32_t group, partial_count, rows;
  uint32_t lanes;   /* children a work-item of the OpenCL generation: 1, or
                       16 (8 in double precision) in its vector form */
  ck__lsq_plan lsq; /* lsq: how it is evaluated */
  /* OpenCL */
  ck_program *program;
  ck_kernel *initialise_kernel, *evolve_kernel, *stats_kernel, *emigrate_kernel,
      *immigrate_kernel, *reduce_kernel, *update_kernel, *fold_kernel;
  ck__evaluation evaluation; /* lsq and user objectives */
  /* CUDA: the native island generation of cl/ga.cu */
  ck_program *native_program;
  ck_kernel *native_evolve_kernel;
  uint32_t native_block;   /* threads a block: its slots in whole warps */
  uint32_t native_cluster; /* blocks an island: 1, or a cluster's */
  ck_buffer *native_rows;  /* a clustered island's rows, for its blocks */
  /* The launch's tickets and each island's segments sent and stored
   * (1 + 2 x islands counters), and the migrants sent inside a launch
   * ((span_segments - 1) x islands x migrants, genes and fitness). */
  ck_buffer *native_schedule, *native_relay, *native_relay_fitness;
  /* A spread member's ring across GPUs inside its launches (cl/ga.cu,
   * CK_GA_ACROSS): across_wanted, set by the spread before setup where
   * each member has a GPU of its own that reads its previous member's
   * memory; across, set by setup (0: the spread migrates between
   * launches); its counts (`crossed`), and the previous member's
   * addresses here, set by the spread after setup: its counts, its relay
   * and relay fitness at its last island, and its migrants a segment. */
  int across_wanted, across;
  ck_buffer *native_crossed;
  uint64_t crossed_previous, relay_previous, relay_fitness_previous;
  uint64_t previous_segment;
  size_t native_resident; /* blocks the device holds at once */
  /* At most this many blocks a launch, where not 0: for tests, which
   * make blocks wait for each other's tasks. */
  size_t native_grid_limit;
};

extern const ck__ga_steps ck__ga_ref_steps_f32;
extern const ck__ga_steps ck__ga_ref_steps_f64;
/* ck_ga_inverse_log_keep in float and in double (ga_ref.c). */
double ck__ga_inverse_log_keep_f32(double rate);
double ck__ga_inverse_log_keep_f64(double rate);
extern const ck__ga_steps ck__ga_opencl_steps;
/* The most dimensions of an island resident in local memory (a
 * work-item's child in registers, its gene loop unrolled). */
#define CK__GA_RESIDENT_MAX_DIM 64

/* The device memory of a population: two generations of genes and two
 * values an individual (ga_create.c; the benchmark's estimate too). */
double ck__ga_population_bytes(double individuals, double dim,
                               double real_size);

/* Whether an OpenCL device keeps the islands resident in local memory
 * with work-groups of `group`, each work-item making `lanes` children
 * (ga.cl's CK_GA_RESIDENT). */
int ck__ga_resident(const ga_state *state, uint32_t group, uint32_t lanes);
/* Built with CUDA only (CK__CUDA_STEPS): the OpenCL steps with the
 * generation replaced by cl/ga.cu's native kernel, for the GAs
 * ck__ga_cuda_supports() accepts (its queue made): streamed objectives in
 * single precision whose islands fit in the shared memory a block may have,
 * opt-in included (227 KB on an H100, against the 48 KB NVIDIA's OpenCL
 * offers), or from sm_90 on in that of a cluster of up to 8 blocks. Other GAs
 * on CUDA devices keep the OpenCL steps (built for CUDA). */
extern const ck__ga_steps ck__ga_cuda_steps;
int ck__ga_cuda_supports(const ga_state *state);
/* The most segments a launch of the native generation makes over a ring
 * of run_islands islands, as its relay's memory allows. One device and a
 * spread run's members make the same launches from it. */
uint32_t ck__ga_span(uint32_t run_islands, uint32_t migrants, int dim);

/* The OpenCL generation's arguments from the seed to first_island,
 * added to a cursor: `count` generations from `first`, their statistics
 * from history slot `slot` on. The native CUDA generation takes the same
 * values in its one struct (ck_ga_native_args, cl/ck_ga_native.h). */
void ck__ga_add_generation(const ga_state *state, ck_kernel_args *args,
                           uint64_t first, uint32_t count, uint32_t slot);
/* For an island generation that makes migrations (CK_GA_IMMIGRATE,
 * CK_GA_EMIGRATE in `migration`): adds `migration` to its arguments, then
 * the migrant buffers it receives from (genes, fitness: the set the last
 * emigration wrote) and sends to (the other set). */
void ck__ga_add_migration(const ga_state *state, ck_kernel_args *args,
                          uint32_t migration);
/* Makes migrant set `set` (0 or 1) of the GA's sizes. */
ck_status ck__ga_make_migrants(ga_state *state, unsigned set);
/* After a launch or step that sent migrants (CK_GA_EMIGRATE in
 * `migration`): the set it wrote becomes the one the next receiving
 * reads. */
void ck__ga_migration_made(ga_state *state, uint32_t migration);

/* Generations between host reads, at most. */
#define CK__GA_MAX_CHUNK 256

typedef struct ck__ga_spread ck__ga_spread;

/* A GA: a run's front (spread), whose members hold the islands and whose
 * state holds the whole run's settings, or a member (ga_members.c)
 * on one device. A GA made on one device is a run of one member. */
struct ck_ga {
  ga_state state;
  const ck__ga_steps *steps;
  ck__ga_steps merged_steps; /* native steps over the base's */
  ck_ga_config config;
  ck__problem problem;
  uint64_t generation; /* generations made */
  uint64_t migrations; /* migrations made */
  /* The last migration's receiving is left to the next evolve launch
   * (state.fused_migration), which sent its migrants already. */
  int immigration_pending;
  ck__ga_spread *spread; /* a front's members (ga_members.c); NULL: a member */
  uint32_t stats_used;   /* device slots not yet read */
  /* Best and mean per generation in every stride, and with
   * keep_island_history each island's too: the parts of a row. */
  ck__history history;
  /* Where ck_ga_run keeps its reads' times (ck__loop_rules.timeline),
   * borrowed; NULL: nowhere. */
  ck__history *timeline;
  double *row;      /* the row being made: 2, or 2 + 2 x islands */
  uint32_t *source; /* who sends to each island of the run */
  /* The source buffer's host copy: island i's source on this device, or
   * its incoming slot (state.incoming). */
  uint32_t *local_source;
  /* The statistics buffer's host copy, allocated and touched once at
   * creation so that reading it costs only the transfer. */
  void *stats_host;
  double *folded_rows; /* stats_capacity x (best, mean), without islands */
  double build_seconds;
  /* Host objectives: a generation as the device holds it, row-major, and
   * its values; told: ck_ga_tell has had generation 0's. */
  double *host_x, *host_rows, *host_f;
  int told;
  ck__batch_host batch_host; /* a device objective's individuals, off CUDA */
};

/* The generations the next call may make, up to `count`: without filling
 * the statistics buffer or crossing a migration, unless the steps make a
 * ring's migrations inside their launches (up to span_segments - 1 of
 * them, *inside). *migrates: whether a migration follows them. */
uint64_t ck__ga_next_run(const ck_ga *ga, uint64_t count, int *migrates,
                         uint32_t *inside);
/* Reads the statistics of the generations not yet read into the history
 * (a spread run's from every member: collective). */
ck_status ck__ga_flush_stats(ck_ga *ga);
/* The fitness of buffer `which` (generation `generation`) of a GA whose
 * objective is not streamed with the generation: the evaluate step's, or
 * the host objective's, written to the device. */
ck_status ck__ga_evaluate(ck_ga *ga, int which, uint64_t generation);

/* For ga_state.c: CK_OK for a GA made for ask/tell, else the failure
 * naming function; and the count of migrations made set, the ring planned
 * where it is not 0 (a GA plans a ring once, at its first migration). */
ck_status ck__ga_check_ask_tell(const ck_ga *ga, const char *function);
ck_status ck__ga_set_migrations(ck_ga *ga, uint64_t migrations);

/* ---- a run's members (ga_members.c, ga_spread.c) ------------------------ */

/* A member's share of a spread run's islands. */
typedef struct ck__ga_slice {
  uint32_t first_island, run_islands;
  /* Generations of statistics between reads: the same on every member,
   * so that they read them together. */
  uint32_t stats_capacity;
} ck__ga_slice;

/* The generations of statistics a GA of `islands` islands keeps between
 * reads (a spread run's counts every member's, padded to the widest). */
uint32_t ck__ga_stats_capacity(size_t islands);

/* A member made in two parts, so that the members agree that their
 * islands fit before any builds kernels: the checks, the settings, the
 * memory check and the buffers; then the uploads, the kernels and
 * generation 0 (a GA that fails it is the caller's to destroy). A
 * member's slice holds config->islands islands from
 * slice->first_island of the run's, drawing from their streams there. Its
 * migrations are the driver's between launches, but a ring's inside them
 * where it reads its previous member's memory (state.across_wanted), and
 * it keeps generation 0's statistics for the run. */
ck_status ck__ga_slice_allocate(const ck_device *device,
                                const ck_ga_config *config,
                                const ck__ga_slice *slice, ck_ga **ga);
ck_status ck__ga_slice_set_up(ck_ga *ga);
/* A member's round of `count` generations, which do not fill its
 * statistics nor cross a migration, but the `inside` ones its launch
 * makes (a ring across GPUs: state.across): the generations and,
 * where `migrates`, the migration's plan and the sending of its
 * migrants, into migrant set state.migrant_set; then (once the migrants
 * from other members are in their incoming slots) their receiving, and
 * the best. */
ck_status ck__ga_slice_send(ck_ga *slice, uint64_t count, int migrates,
                            uint32_t inside);
ck_status ck__ga_slice_receive(ck_ga *slice, int migrates);
/* A GA's (or a spread member's) statistics since the last read, folded
 * over its islands: (best, mean) a generation into pairs, as doubles;
 * folded on the device where its backend can. */
ck_status ck__ga_slice_folded(ck_ga *slice, double *pairs);

/* Deals config's islands to the spread's members (the member engine),
 * makes their slices; *stats_capacity: the slices'; *span_segments: the
 * most segments of a round (the front's ck__ga_next_run). Generation 0's
 * statistics and best are the front's to read (ck__ga_spread_step with
 * no generations). front is the run's GA, which outlives the spread. */
ck_status ck__ga_spread_create(ck_ga *front, const ck_spread *spread,
                               const ck_ga_config *config, ck__ga_spread **made,
                               uint32_t *stats_capacity,
                               uint32_t *span_segments);
/* A run's generations (ck_ga_step): rounds that end at a migration or
 * a full statistics buffer (ck__ga_next_run), every member making each on
 * its own thread; then the statistics not yet read, and the run's best
 * agreed. Collective. */
ck_status ck__ga_spread_step(ck_ga *ga, uint64_t generations);
/* Every member's statistics of the last `slots` generations, into stats
 * as one device lays out its stats buffer (slots x the run's islands x
 * (best, mean), in the run's precision). */
ck_status ck__ga_spread_stats(ck__ga_spread *spread, uint32_t slots,
                              void *stats);
/* The run's (best, mean) for each of `slots` generations, in *rows (the
 * spread's): the least of the members' bests and the islands' mean, from
 * what every member folded of its own. */
ck_status ck__ga_spread_folded(ck__ga_spread *spread, uint32_t slots,
                               const double **rows);
/* The run's best so far, and its genes (either may be NULL). */
ck_status ck__ga_spread_best(ck__ga_spread *spread, double *value,
                             double *position);
/* The run behind a GA, as the framework keeps it (its exchange, and its
 * members' queues, slices and times). */
ck__spread_run *ck__ga_spread_run(const ck_ga *ga);
/* 1 where a spread run's migrants cross device to device (every member
 * a CUDA device of one process, or ref's for tests), else 0. */
int ck__ga_spread_on_devices(const ck_ga *ga);
/* The most segments a run's rounds make: past 1, a ring's migrations go
 * inside the members' launches. */
uint32_t ck__ga_spread_span(const ck_ga *ga);
/* The longest of this process's members' kernel builds. */
double ck__ga_spread_build_seconds(const ck__ga_spread *spread);
void ck__ga_spread_destroy(ck__ga_spread *spread);

/* What ga_members.c, which makes a run's members and steps them, shares
 * with ga_spread.c, which moves what crosses between them. */

/* A local member. */
typedef struct ga_member {
  ck_ga *ga;
  /* Its migrants to other members and from them: packs in host memory
   * that its queue moves fastest (ck__host_alloc: page-locked on CUDA). */
  unsigned char *out, *in;
} ga_member;

struct ck__ga_spread {
  ck__engine *engine; /* its members, threads and exchange */
  ck_ga *front;       /* the run's GA, whose schedule the rounds follow */
  const ck_ga_config *config; /* the caller's, while it is made */
  ga_member *members;         /* local ones */
  size_t local, count;        /* members here, and in the run */
  uint32_t widest;            /* the most islands a member holds */
  int dim, ring, double_precision;
  uint32_t migrants;
  size_t real; /* bytes a real */
  /* Migrants cross between members (several, migrating); the bytes of a
   * pack of them (ring: an island's; random: the widest member's). */
  int crossing;
  size_t pack;
  /* Copies without the host into local member i from its previous one
   * (peers[0][i]), where a ring's migrants cross and every member is a
   * CUDA device of this one process; on_devices: the crossing migrants
   * go through them, and the packs are unused. */
  ck__peer *peers[2][CK_SPREAD_MAX_LOCAL];
  int on_devices;
  /* Between processes: the window through which each member reads its
   * previous member's counts, relay and relay fitness (CUDA IPC). */
  ck__window *window;
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
  int genes_unread; /* a member alone's genes of the best, not read yet */
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

/* The GA's partition for the member engine (ga_members.c), and the
 * phases of its rounds: a round's generations, the migrants read out,
 * its length (the front's plan, whole), and the migrants' crossing
 * (ga_spread.c). */
extern const ck__engine_kind ck__ga_kind;
ck_status ck__ga_spread_round(void *self, size_t i, uint64_t first,
                              uint64_t count);
ck_status ck__ga_spread_post(void *self, size_t i);
uint64_t ck__ga_spread_whole(void *self, uint64_t first, uint64_t count);
ck_status ck__ga_spread_cross(void *self, ck__engine *engine, uint64_t first,
                              uint64_t count);
/* What crosses between several members (ga_spread.c): the probe of a
 * member's speed (the kind's); local member i's migrants out to its pack
 * (after a round that migrates), and those it received into its incoming
 * slots (before the next); after every member's allocate, the copies
 * between their devices opened and whether their launches cross GPUs
 * (collective); once they are set up, each member's view of its previous
 * member's relay, and *span, the rounds' span (collective); and the
 * copies and views closed. */
ck_status ck__ga_spread_probe(void *self, const ck__engine_member *trial,
                              double *per_second);
ck_status ck__ga_spread_send_out(const ck__ga_spread *spread, size_t i);
ck_status ck__ga_spread_take_in(const ck__ga_spread *spread, size_t i);
ck_status ck__ga_spread_connect_devices(ck__ga_spread *spread);
ck_status ck__ga_spread_wire(ck__ga_spread *spread, uint32_t *span);
void ck__ga_spread_unwire(ck__ga_spread *spread);

/* The bytes of a pack of migrants (ck__ga_spread's pack). */
size_t ck__ga_spread_pack_bytes(const ck__ga_spread *spread);

/* A GA made on one device: its member, whose generations ask/tell drives
 * and whose state the tests' hooks read (the first local member of a
 * run of several). A member: itself. */
ck_ga *ck__ga_alone(ck_ga *ga);
/* The state behind a GA (its first local member's), for tests that
 * inspect islands. */
ga_state *ck__ga_state(ck_ga *ga);
/* Receives now a migration that the next generation would receive (the
 * resident generations defer it), so that the population buffers hold
 * the islands as migrated; for tests that read them. Returns
 * ck_status. */
ck_status ck__ga_settle(ck_ga *ga);
/* The GA's dimension (taken from the data for lsq). */
int ck__ga_dim(const ck_ga *ga);

/* The fields of ck_ga_config with their defaults and ranges (ga_fields.c),
 * the problem's first: ck_ga_config_init and the checks read them, and
 * the workload's options point into them. */
enum {
  CK__GA_ISLANDS = CK__PROBLEM_FIELDS,
  CK__GA_ISLAND_SIZE,
  CK__GA_GENERATIONS,
  CK__GA_ELITE,
  CK__GA_TOURNAMENT,
  CK__GA_CROSSOVER_RATE,
  CK__GA_CROSSOVER,
  CK__GA_CROSSOVER_PARAMETER,
  CK__GA_MUTATION_RATE,
  CK__GA_MUTATION,
  CK__GA_MUTATION_PARAMETER,
  CK__GA_MIGRATE_EVERY,
  CK__GA_MIGRANTS,
  CK__GA_TOPOLOGY,
  CK__GA_GENERATION_MODE,
  CK__GA_KEEP_ISLAND_HISTORY,
  CK__GA_SEED,
  CK__GA_FIELDS
};
extern const ck__field ck__ga_fields[CK__GA_FIELDS];
/* The steps a run makes when no rule stops it. */
#define CK__GA_DEFAULT_STEPS ((uint64_t)ck__ga_fields[CK__GA_GENERATIONS].value)

#endif /* CK_GA_INTERNAL_H */
