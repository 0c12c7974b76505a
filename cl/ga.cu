/*
 * ga.cu - the native CUDA form of the GA's island generation (the resident
 * ck_ga_evolve of ga.cl), for streamed objectives in single precision.
 * Its ref twin is ref_evolve in src/ga/ga_ref.c: every child is made from
 * the same Philox draws (keyed by seed, island, slot and generation) with
 * the same ck_ga.h, ck_bounds.h and ck_objectives.h functions, gene after
 * gene, so a run agrees with ref as the OpenCL kernel does. What differs
 * is where things live and how the block agrees:
 *
 *   - the island stays in shared memory for the whole of a task (below),
 *     one row of
 *     float4s per individual with an odd number of float4s a row, so that
 *     the random parents of a quarter-warp's 128-bit reads spread over the
 *     bank groups. The memory is the block's dynamic shared memory, which
 *     may exceed the 48 KB NVIDIA's OpenCL offers (up to 227 KB on an
 *     H100): islands of 512 or 1024 at d = 32 stay resident here, where
 *     the OpenCL steps must work on them in global memory;
 *   - its fitness stays there too: tournaments never go to global memory;
 *   - a child is made in ck_ga.h's three passes, as in ga.cl's resident
 *     kernel: crossed in registers before the barrier (the gene loop
 *     unrolls over CK_DIM); after it, written to its row, where its
 *     mutations are added where they fall, then read back, bounded and
 *     evaluated. Past d = 64 (CK_GA_CHUNK genes) the child is crossed a
 *     chunk at a time, each chunk written to the row after a barrier of
 *     its own (the parents' later chunks are not yet overwritten), so
 *     that only a chunk is held in registers; it is then mutated,
 *     bounded and evaluated on its row;
 *   - with polynomial mutation after SBX, a warp's children share the
 *     work of their mutation steps (warp_mutate_rows): each power is
 *     computed where a mutation falls, by whichever lane the warp's pool
 *     hands it to;
 *   - with gaussian mutation after BLX or SBX at d <= 32, a child's
 *     refills after its first are deferred to a queue that the block's
 *     first warp works off in one pass (deferred_mutate_and_evaluate),
 *     rather than repeated by every warp with a lane that needs one;
 *   - the migrations are made here (ck_ga_migration.h), those that border
 *     a launch and, on a ring, those inside it: before a segment (the
 *     generations between two migrations) the island's worst take the
 *     migrants sent to it (ck_ga_immigrate's picks), and after it the
 *     island's best are copied out (ck_ga_emigrate's), to the other set
 *     of migrant buffers or, inside the launch, to a relay slot that the
 *     island after it on the ring waits for. Where the first warp folds
 *     the statistics (WARP_STATISTICS), it makes the whole migration, from
 *     the island's fitness in shared memory, while the other warps wait
 *     at one barrier; otherwise every thread takes part in a block fold
 *     a pick, and the threads that hold the picked slots copy them;
 *   - blocks are not islands: a launch has as many blocks as the GPU
 *     holds at once, and each takes tasks in ticket order (an island and
 *     one or more segments, loaded once: ck_ga_schedule.h) until none is
 *     left, so that a launch runs up to 64 segments with no launch, and no
 *     last wave of blocks, between them (a clustered island is still its
 *     cluster's, in a launch of one segment);
 *   - minima go through the warps' integer reductions and sums through
 *     shuffles, with one barrier each, not a tree of barriers: a
 *     generation has two barriers (and one more per elite when there are
 *     several). For islands of up to 256 in one block, a generation's
 *     best and sum are the first warp's alone (WARP_STATISTICS): after
 *     the last barrier it folds the island's fitness while the other
 *     warps go on;
 *   - an island too large for one block (more than 1024 slots, or more
 *     rows than a block's shared memory holds) is spread over a cluster of
 *     CK_GA_CLUSTER blocks (sm_90 on), CK_GA_SLOTS consecutive slots a
 *     block, which the cluster schedules together. Each block keeps its
 *     own rows and the whole island's fitness, and writes each child's
 *     fitness to every block's copy through the cluster's distributed
 *     shared memory; the island's barriers and folds become the cluster's.
 *     A parent held by another block is read from that block's copy of
 *     its rows in global memory (rows_global, written a warp's rows at a
 *     time after each generation, so through L2), not through distributed
 *     shared memory: its random 16-byte reads measured slower. NVIDIA's
 *     OpenCL has neither clusters nor this much shared memory, so there
 *     such islands live in global memory.
 *
 * The launch gives the block CK_GA_NATIVE_SHARED_BYTES of dynamic shared
 * memory (ck_ga_native.h, sized by shared_bytes in src/ga/ga_cuda.c),
 * laid out as below.
 *
 * Build-time defines (src/ga/ga_cuda.c): CK_OBJECTIVE (a streamed one),
 * CK_BOUNDS, CK_DIM (at most CK_GA_NATIVE_MAX_DIM), CK_GA_TOURNAMENT,
 * CK_GA_CROSSOVER, CK_GA_MUTATION, CK_GA_ELITE, CK_GA_ISLAND (the island size),
 * CK_GA_CLUSTER (blocks an island: 1, or up to 8 in a cluster),
 * CK_GA_SLOTS (slots a block: the island size over CK_GA_CLUSTER, rounded
 * up; the last block may have fewer), CK_GA_BLOCK (threads a block:
 * CK_GA_SLOTS rounded up to whole warps, at most 1024),
 * CK_GA_DEFER_REFILLS (1 to defer a child's refills after its first,
 * below), CK_GA_POOL_STEPS (1 to pool polynomial steps, below) and
 * CK_GA_ACROSS (1 where a spread run's ring crosses GPUs inside the
 * launch).
 *
 * Across GPUs (CK_GA_ACROSS), a spread run's member relays its last
 * island's migrants as any island's, and raises its count CK_GA_SENT in
 * `crossed` to the migration's number over the run, at the system's
 * scope. The next member's first island waits for that count,
 * reads the migrants in place in the previous member's relay, over
 * NVLink or PCIe, and raises the previous member's CK_GA_TAKEN to it.
 * The counts are never reset, so that a launch never reads a count of
 * an earlier one. Before its first relay of a launch, the last island
 * waits until the next member has taken all it sent before, which the
 * relay's first slots held. Each wait is for tasks of earlier segments
 * or launches, on GPUs that run at once (the host requires one member a
 * GPU), so none can deadlock.
 */
#define CK_CUDA_NATIVE 1
#include "ck_ga.h"
#include "ck_ga_native.h"
#include "ck_ga_schedule.h"
#include "ck_warp.h"

#if !defined(CK_OBJECTIVE) || !defined(CK_BOUNDS) || !defined(CK_DIM) ||       \
    !defined(CK_GA_TOURNAMENT) || !defined(CK_GA_CROSSOVER) ||                 \
    !defined(CK_GA_MUTATION) || !defined(CK_GA_ELITE) ||                       \
    !defined(CK_GA_ISLAND) || !defined(CK_GA_BLOCK) ||                         \
    !defined(CK_GA_CLUSTER) || !defined(CK_GA_SLOTS) ||                        \
    !defined(CK_GA_DEFER_REFILLS) || !defined(CK_GA_POOL_STEPS) ||             \
    !defined(CK_GA_MIGRANTS)
#error "ga.cu needs CK_OBJECTIVE, CK_BOUNDS, CK_DIM, CK_GA_* and CK_GA_BLOCK"
#endif
#if CK_REAL_DOUBLE || CK_OBJECTIVE >= CK_OBJECTIVE_STREAMED_COUNT ||           \
    CK_DIM > CK_GA_NATIVE_MAX_DIM || CK_GA_BLOCK % CK_WARP_WIDTH != 0 ||       \
    CK_GA_BLOCK < CK_GA_SLOTS || CK_GA_ELITE >= CK_GA_ISLAND
#error "ga.cu is for streamed objectives in single precision, a bounded CK_DIM"
#endif
/* Every block of a cluster holds a slot, and the elites (slots 0 ..
 * CK_GA_ELITE - 1) are the first block's. */
#if CK_GA_CLUSTER < 1 || CK_GA_CLUSTER > 8 ||                                  \
    CK_GA_SLOTS * CK_GA_CLUSTER < CK_GA_ISLAND ||                              \
    CK_GA_SLOTS * (CK_GA_CLUSTER - 1) >= CK_GA_ISLAND ||                       \
    CK_GA_ELITE > CK_GA_SLOTS
#error "ga.cu needs CK_GA_CLUSTER blocks of CK_GA_SLOTS slots for an island"
#endif
#define CLUSTERED (CK_GA_CLUSTER > 1)
#ifndef CK_GA_ACROSS
#define CK_GA_ACROSS 0
#endif
/* The counts of a member's `crossed`: the migrations it sent across, and
 * those the next member has taken. */
#define CK_GA_SENT 0
#define CK_GA_TAKEN 1
/* Whether the child is crossed in chunks (ck_ga.h: CK_GA_CHUNK genes). */
#define CHUNKED (CK_DIM > CK_GA_CHUNK)

#define WARPS (CK_GA_BLOCK / CK_WARP_WIDTH)
/* The SM's limits (resident threads, registers, blocks), given by the host
 * from the device; sm_90's where they are not (a compile-only check). */
#ifndef CK_SM_THREADS
#define CK_SM_THREADS 2048
#endif
#ifndef CK_SM_REGISTERS
#define CK_SM_REGISTERS 65536
#endif
#ifndef CK_SM_BLOCKS
#define CK_SM_BLOCKS 32
#endif
/* Blocks an SM should hold at once, for ptxas's register budget: the
 * child's CK_GA_CHUNK registers and 32 for the rest of a thread's work (4
 * blocks of 256 at d = 32, 64 registers: more values spill than at 3
 * blocks of 80, but the SM has more warps to switch to at a barrier, and
 * it measured faster); within the SM's threads and blocks. A whole child
 * of more than 48 genes gets at most 80 where that budget would leave the
 * SM fewer than 20 warps: 3 blocks of 256 rather than 2 at d = 56 and 64
 * ran faster, where 6 blocks of 128 rather than 5 gained nothing
 * (bench/results/h100-2026-11-25-lazy/); a child crossed in chunks (past
 * d = 64) keeps the budget, which 3 blocks of 256 made slower. */
#define UNCAPPED_BLOCKS (CK_SM_REGISTERS / (CK_GA_BLOCK * (CK_GA_CHUNK + 32)))
#define THREAD_REGISTERS                                                       \
  (!CHUNKED && CK_GA_CHUNK + 32 > 80 && UNCAPPED_BLOCKS * WARPS < 20           \
       ? 80                                                                    \
       : CK_GA_CHUNK + 32)
#define BY_REGISTERS (CK_SM_REGISTERS / (CK_GA_BLOCK * THREAD_REGISTERS))
#define BY_THREADS                                                             \
  (CK_SM_THREADS / CK_GA_BLOCK < CK_SM_BLOCKS ? CK_SM_THREADS / CK_GA_BLOCK    \
                                              : CK_SM_BLOCKS)
#define MIN_BLOCKS                                                             \
  (BY_REGISTERS < 1 ? 1 : BY_REGISTERS > BY_THREADS ? BY_THREADS : BY_REGISTERS)
#define NO_INDEX 0xFFFFFFFFu
/* float4s of genes a row, and the row's stride: odd, so that rows a and b
 * share a bank group only when a = b (mod 8). */
#define QUADS CK_GA_NATIVE_QUADS(CK_DIM)
#define ROW_QUADS CK_GA_NATIVE_ROW_QUADS(CK_DIM)

/* The island's barrier: the block's, or in a cluster every block's, whose
 * writes before it (rows in shared and global memory, fitness, posts) are
 * seen by every block of the cluster after it (release and acquire at the
 * cluster's scope). */
static __device__ __forceinline__ void island_sync(void) {
#if CLUSTERED
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
#else
  __syncthreads();
#endif
}

/* The address in block `rank` of the cluster of what `at` addresses in
 * this block's shared memory (a generic address either way). */
template <class T>
static __device__ __forceinline__ T *in_block(T *at, unsigned rank) {
#if CLUSTERED
  unsigned long long there;
  asm("mapa.u64 %0, %1, %2;"
      : "=l"(there)
      : "l"((unsigned long long)at), "r"(rank));
  return (T *)there;
#else
  (void)rank;
  return at;
#endif
}

/* Gene k (0..3) of a quad; k is a constant once the gene loop unrolls. */
static __device__ __forceinline__ float quad_gene(float4 quad, int k) {
  return k == 0 ? quad.x : k == 1 ? quad.y : k == 2 ? quad.z : quad.w;
}

/* Genes [first, end) of a row as float4s, from genes[0 .. end - first)
 * (the last quad padded with zeros); first is a multiple of four. */
static __device__ __forceinline__ void
store_genes(float4 *row, int first, int end, const float *genes) {
#pragma unroll
  for (int d = first; d < end; d += 4) {
    float4 quad;
    quad.x = genes[d - first];
    quad.y = d + 1 < end ? genes[d + 1 - first] : 0.0f;
    quad.z = d + 2 < end ? genes[d + 2 - first] : 0.0f;
    quad.w = d + 3 < end ? genes[d + 3 - first] : 0.0f;
    row[d / 4] = quad;
  }
}

static __device__ __forceinline__ void load_genes(const float4 *row, int first,
                                                  int end, float *genes) {
#pragma unroll
  for (int d = first; d < end; d += 4) {
    float4 quad = row[d / 4];
#pragma unroll
    for (int k = 0; k < 4 && d + k < end; ++k)
      genes[d + k - first] = quad_gene(quad, k);
  }
}

/* The thread's row from device memory, gene d from at[d stride], read
 * past the SM's L1 (another block may have written it in this launch)
 * and stored a chunk at a time through `child`. */
static __device__ __forceinline__ void load_row(float4 *row, const float *at,
                                                ck_u64 stride, float *child) {
#pragma unroll
  for (int from = 0; from < CK_DIM; from += CK_GA_CHUNK) {
    const int end = from + CK_GA_CHUNK < CK_DIM ? from + CK_GA_CHUNK : CK_DIM;
#pragma unroll
    for (int d = from; d < end; ++d)
      child[d - from] = __ldcg(at + (ck_u64)d * stride);
    store_genes(row, from, end, child);
  }
}

/* The (value, index) minimum of the warp's lanes by ck_better, and with
 * SUM the sum of `sum` too (a butterfly), in every lane. */
template <bool SUM>
static __device__ __forceinline__ void warp_fold(float *value, unsigned *index,
                                                 float *sum) {
  if (SUM)
    *sum = ck_warp_sum(*sum);
  ck_warp_minimum(value, index);
}

/* Where warps post their folds: two sets, used in turn by consecutive
 * block folds, so that one barrier a fold suffices (a set is written
 * again only after the next fold's barrier, which every thread passes
 * after reading it). */
struct posts {
  float values[2][WARPS];
  unsigned indices[2][WARPS];
  float sums[2][WARPS];
};

/* Warp distances that fold the warps' posts: 1, 2, ... below WARPS. */
#define POST_ROUNDS                                                            \
  (WARPS > 16 ? 5 : WARPS > 8 ? 4 : WARPS > 4 ? 3 : WARPS > 2 ? 2 : WARPS > 1)

/*
 * The block's (value, index) minimum of every thread's candidate (and with
 * SUM the sum of `sum`), returned to every thread. Called by all threads
 * alike; `set` alternates between consecutive calls. Each warp folds its
 * lanes and lane 0 posts the warp's result; after the barrier lane w of
 * every warp takes post w and the warp folds the posts again, the sum's
 * from lane 0 (so all threads hold the same bits).
 */
template <bool SUM>
static __device__ __forceinline__ void
block_fold(posts *at, unsigned set, float *value, unsigned *index, float *sum) {
  unsigned lane = threadIdx.x % CK_WARP_WIDTH,
           warp = threadIdx.x / CK_WARP_WIDTH;
  warp_fold<SUM>(value, index, sum);
  if (lane == 0) {
    at->values[set][warp] = *value;
    at->indices[set][warp] = *index;
    if (SUM)
      at->sums[set][warp] = *sum;
  }
  __syncthreads();
  float folded = lane < WARPS ? at->values[set][lane] : CK_REAL_MAX;
  unsigned folded_index = lane < WARPS ? at->indices[set][lane] : NO_INDEX;
  float folded_sum = SUM && lane < WARPS ? at->sums[set][lane] : 0.0f;
  /* Lanes past WARPS hold (CK_REAL_MAX, NO_INDEX), which no post loses
   * to; the sums of lanes 0 .. WARPS - 1 meet in lane 0. */
  ck_warp_minimum(&folded, &folded_index);
  *value = folded;
  *index = folded_index;
  if (SUM) {
#pragma unroll
    for (int round = 0; round < POST_ROUNDS; ++round)
      folded_sum += __shfl_xor_sync(CK_ALL_LANES, folded_sum, 1u << round);
    *sum = __shfl_sync(CK_ALL_LANES, folded_sum, 0);
  }
}

#define CLUSTER_POST_SETS CK_GA_NATIVE_CLUSTER_POST_SETS
/* The sets of posts the next fold uses: the block's (of 2) and the
 * cluster's (of CLUSTER_POST_SETS); island_fold moves both on. */
struct fold_sets {
  unsigned block, cluster;
};

#if CLUSTERED
/* Where the blocks of a cluster post their folds, in every block:
 * CLUSTER_POST_SETS sets used in turn. Two would do, as in posts (a peer
 * writes a set again only after the next fold's cluster barrier, which
 * every thread here passes after reading it); with three, two cluster
 * barriers lie between a read and the next write of a set, which keeps
 * compute-sanitizer's racecheck from reporting the pair across blocks. */
struct cluster_posts {
  float values[CLUSTER_POST_SETS][CK_GA_CLUSTER];
  unsigned indices[CLUSTER_POST_SETS][CK_GA_CLUSTER];
  float sums[CLUSTER_POST_SETS][CK_GA_CLUSTER];
};
#endif

/*
 * The island's (value, index) minimum (and with SUM its sum), returned to
 * every thread: block_fold, and in a cluster then the blocks' folds, which
 * each block's thread 0 posts to every block (`cluster_at`, the block's
 * cluster_posts; `rank`, the block's place in the cluster), folded after
 * the cluster's barrier in rank order, so that every block holds the same
 * bits. Uses the posts `sets` names and moves them on for the next fold.
 * Called by all threads of the cluster alike.
 */
template <bool SUM>
static __device__ __forceinline__ void
island_fold(posts *at, void *cluster_at, fold_sets *sets, unsigned rank,
            float *value, unsigned *index, float *sum) {
  const unsigned cluster_set = sets->cluster;
  block_fold<SUM>(at, sets->block, value, index, sum);
  sets->block ^= 1u;
  sets->cluster = cluster_set + 1 == CLUSTER_POST_SETS ? 0 : cluster_set + 1;
#if CLUSTERED
  cluster_posts *mine = (cluster_posts *)cluster_at;
  if (threadIdx.x == 0) {
#pragma unroll
    for (unsigned r = 0; r < CK_GA_CLUSTER; ++r) {
      cluster_posts *there = in_block(mine, r);
      there->values[cluster_set][rank] = *value;
      there->indices[cluster_set][rank] = *index;
      if (SUM)
        there->sums[cluster_set][rank] = *sum;
    }
  }
  island_sync();
  float folded = mine->values[cluster_set][0];
  unsigned folded_index = mine->indices[cluster_set][0];
  float folded_sum = SUM ? mine->sums[cluster_set][0] : 0.0f;
#pragma unroll
  for (unsigned r = 1; r < CK_GA_CLUSTER; ++r) {
    float candidate = mine->values[cluster_set][r];
    unsigned candidate_index = mine->indices[cluster_set][r];
    if (ck_better(candidate, candidate_index, folded, folded_index)) {
      folded = candidate;
      folded_index = candidate_index;
    }
    if (SUM)
      folded_sum += mine->sums[cluster_set][r];
  }
  *value = folded;
  *index = folded_index;
  if (SUM)
    *sum = folded_sum;
#else
  (void)cluster_at;
  (void)cluster_set;
  (void)rank;
#endif
}

/* Polynomial mutation after SBX (CK_GA_POOL_STEPS, chosen by
 * src/ga/ga_cuda.c) draws its steps through the warp's pool
 * (warp_mutate_rows); other mutations each lane its own
 * (ck_ga_mutate_row, which draws a refill's steps only where its
 * mutations need them). */
#define POOLED (CK_GA_POOL_STEPS && CK_GA_MUTATION == CK_GA_MUTATION_POLY)
/* Words in a warp's pool: four mutations a lane. */
#define POOL_WORDS CK_GA_NATIVE_POOL_WORDS

/*
 * ck_ga_mutate_row for the warp's children at once, for polynomial
 * mutation: the same refills of four mutations, their genes, steps and
 * bounds (so the same bits), but a step (a power) is computed only where
 * a mutation falls, and by whichever lane the pool hands it to rather
 * than by its child's own: the warp's 30-odd mutations of a refill cost
 * one or two passes, where each lane's four steps cost four, and a
 * refill that one child needs costs one. Lane l mutates when `mutates`
 * (its child's draws in c, its row); `pool` is the warp's POOL_WORDS
 * words. Called by every lane of the warp alike.
 */
static __device__ __forceinline__ void
warp_mutate_rows(bool mutates, float rate, float parameter,
                 float inverse_log_keep, unsigned long long seed,
                 const ck_ga_child_draws *c, unsigned long long generation,
                 const float *lo, const float *hi, float *row, unsigned *pool) {
  const unsigned lane = threadIdx.x % CK_WARP_WIDTH, below = (1u << lane) - 1u;
  int last = -1;
  unsigned refills = 0u;
  bool pending = mutates && ck_ga_mutations_left(rate, last, CK_DIM);
  while (__any_sync(CK_ALL_LANES, pending)) {
    int at[4] = {CK_DIM, CK_DIM, CK_DIM, CK_DIM};
    ck_philox_counter words;
    words.v[0] = words.v[1] = words.v[2] = words.v[3] = 0u;
    if (pending) {
      ck_u64 steps_at = ck_ga_draw_positions(
          seed, c->mutation_stream, c->mutation_base, &refills, &last, rate,
          inverse_log_keep, CK_DIM, &at[0], &at[1], &at[2], &at[3]);
      /* The block of steps only where a mutation falls. */
      if (at[0] < CK_DIM)
        words = ck_philox_block(seed, c->mutation_stream, steps_at);
    }
    /* A job a mutation, in the pool by (k, lane): its word in, its step
     * out, in place. */
    unsigned slot[4], jobs = 0u;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      unsigned needs = __ballot_sync(CK_ALL_LANES, at[k] < CK_DIM);
      slot[k] = jobs + __popc(needs & below);
      jobs += __popc(needs);
      if (at[k] < CK_DIM)
        pool[slot[k]] = words.v[k];
    }
    __syncwarp();
    for (unsigned j = lane; j < jobs; j += CK_WARP_WIDTH)
      pool[j] = __float_as_uint(CK_GA_POLY_STEP(pool[j], parameter));
    __syncwarp();
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (at[k] < CK_DIM)
        ck_ga_mutate_row_gene(CK_BOUNDS, CK_GA_CROSSOVER, seed, c, generation,
                              CK_DIM, lo, hi, row, at[k],
                              __uint_as_float(pool[slot[k]]));
    /* The pool is free again once every lane has taken its steps. */
    __syncwarp();
    pending = pending && ck_ga_mutations_left(rate, last, CK_DIM);
  }
}

/* The mutations of the warp's children on their rows: pooled (POOLED),
 * with every lane of the warp, else each mutating lane its own
 * (ck_ga_mutate_row). */
static __device__ __forceinline__ void
mutate_rows(bool mutates, float rate, float parameter, float inverse_log_keep,
            unsigned long long seed, const ck_ga_child_draws *c,
            unsigned long long generation, const float *lo, const float *hi,
            float *row, unsigned *pool) {
#if POOLED
  warp_mutate_rows(mutates, rate, parameter, inverse_log_keep, seed, c,
                   generation, lo, hi, row, pool);
#else
  (void)pool;
  if (mutates)
    ck_ga_mutate_row(CK_BOUNDS, CK_GA_CROSSOVER, CK_GA_MUTATION, rate,
                     parameter, inverse_log_keep, seed, c, generation, CK_DIM,
                     lo, hi, row);
#endif
}

/* The fitness of the child on `row` (read back into `child`, bounded and
 * evaluated: ck_ga_evaluate_row) when the thread makes one (`makes`),
 * else `made` unchanged. */
static __device__ __forceinline__ float
evaluate_made(bool makes, float made, unsigned long long seed,
              const ck_ga_child_draws *c, unsigned long long generation,
              const float *lo, const float *hi, float *row, float *child) {
  if (!makes)
    return made;
  return ck_comparable(ck_ga_evaluate_row(CK_OBJECTIVE, CK_BOUNDS,
                                          CK_GA_CROSSOVER, seed, c, generation,
                                          CK_DIM, lo, hi, row, child));
}

/* What follows a child's write to its row: its mutations there
 * (mutate_rows, which every thread of the warp calls) and its evaluation.
 * Returns the child's fitness for a thread that makes one (`makes`),
 * else `made` unchanged. A whole child is read back into `child`
 * (ck_ga_evaluate_row); a chunked one is evaluated on the row itself. */
static __device__ __forceinline__ float
mutate_and_evaluate(bool makes, float made, float rate, float parameter,
                    float inverse_log_keep, unsigned long long seed,
                    const ck_ga_child_draws *c, unsigned long long generation,
                    const float *lo, const float *hi, float *row,
                    unsigned *pool, float *child) {
  mutate_rows(makes, rate, parameter, inverse_log_keep, seed, c, generation, lo,
              hi, row, pool);
#if CHUNKED
  (void)child;
  if (!makes)
    return made;
  return ck_comparable(ck_ga_evaluate_child(CK_OBJECTIVE, CK_BOUNDS,
                                            CK_GA_CROSSOVER, seed, c,
                                            generation, CK_DIM, lo, hi, row));
#else
  return evaluate_made(makes, made, seed, c, generation, lo, hi, row, child);
#endif
}

/* Refills after a child's first, for gaussian mutation after BLX or SBX
 * at d <= 32 (CK_GA_DEFER_REFILLS, chosen by src/ga/ga_cuda.c): a warp
 * repeats a refill while any lane has mutations left, 1.39 refills a
 * warp-generation at pm = 1/d with d = 32, where one child in 60 needs a
 * second. Deferred, the block's children that need more post themselves
 * to a queue, and after a barrier thread j takes the j-th: the same
 * draws, usually in one pass of the block's first warp. Mutations fall
 * on distinct genes, so the order in which they are added changes no
 * bit. */
#define DEFERRED (CK_GA_DEFER_REFILLS && !POOLED && !CHUNKED)

/* The queue: a count for each parity of the generation (one is reset
 * while the other is in use, so no barrier is spent on the reset) and
 * the jobs, slot | last mutation's gene << 16. */
struct deferred_refills {
  unsigned count[2];
  unsigned jobs[CK_GA_SLOTS];
};

/* The layout below (ck_ga_cuda_evolve) is the one the host sizes. */
static_assert(sizeof(posts) == CK_GA_NATIVE_POST_BYTES(WARPS) &&
                  sizeof(deferred_refills) == 2 * 4 + 4 * CK_GA_SLOTS &&
#if CLUSTERED
                  sizeof(cluster_posts) ==
                      CK_GA_NATIVE_CLUSTER_POST_BYTES(CK_GA_CLUSTER) &&
#endif
                  !(POOLED && DEFERRED),
              "ga.cu's shared memory differs from ck_ga_native.h");

/*
 * deferred_mutate_and_evaluate: mutate_and_evaluate for DEFERRED. The
 * thread's child (when it makes one: `makes`) is on its row; it draws its
 * first refill there, posts itself to the queue if it has mutations left,
 * and after the block's barrier thread j finishes the j-th posted
 * child's refills (ck_ga_mutate_row_refill from where the first left off)
 * on its row (the block's rows begin at slot `first_slot` of the
 * island); after a second barrier (none when nothing was posted) each
 * child is evaluated as in mutate_and_evaluate. Returns
 * the child's fitness, or `made` when the thread makes none. Every thread
 * of the block calls it.
 */
static __device__ __forceinline__ float deferred_mutate_and_evaluate(
    bool makes, float made, float rate, float parameter, float inverse_log_keep,
    unsigned long long seed, const ck_ga_child_draws *c,
    unsigned long long generation, unsigned island, unsigned first_slot,
    const float *lo, const float *hi, float4 *genes, deferred_refills *queue,
    float *child) {
  const unsigned l = threadIdx.x, lane = l % CK_WARP_WIDTH;
  const unsigned parity = (unsigned)(generation & 1);
  float *row = (float *)(genes + l * ROW_QUADS);
  int last = -1;
  ck_u32 refills = 0u;
  bool posts = false;
  if (makes) {
    /* With no mutation left, the refill draws nothing and ends the child. */
    ck_ga_mutate_row_refill(CK_BOUNDS, CK_GA_CROSSOVER, CK_GA_MUTATION, rate,
                            parameter, inverse_log_keep, seed, c, generation,
                            CK_DIM, lo, hi, row, &last, &refills);
    posts = last < CK_DIM;
  }
  /* One atomic a warp: its posting lanes take consecutive jobs. */
  unsigned posting = __ballot_sync(CK_ALL_LANES, posts);
  if (posting) {
    unsigned leader = (unsigned)__ffs(posting) - 1u, first = 0u;
    if (lane == leader)
      first = atomicAdd(&queue->count[parity], (unsigned)__popc(posting));
    first = __shfl_sync(CK_ALL_LANES, first, leader);
    if (posts)
      queue->jobs[first + __popc(posting & ((1u << lane) - 1u))] =
          l | ((unsigned)last << 16);
  }
  __syncthreads();
  const unsigned jobs = queue->count[parity];
  if (jobs) {
    /* At most one job a thread: a child posts itself once. */
    if (l < jobs) {
      unsigned job = queue->jobs[l], posted_row_index = job & 0xFFFFu;
      ck_ga_child_draws posted = ck_ga_mutation_draws(
          island, first_slot + posted_row_index, generation, CK_DIM);
      int posted_last = (int)(job >> 16);
      ck_u32 posted_refills = 1u;
      float *posted_row = (float *)(genes + posted_row_index * ROW_QUADS);
      while (posted_last < CK_DIM)
        ck_ga_mutate_row_refill(CK_BOUNDS, CK_GA_CROSSOVER, CK_GA_MUTATION,
                                rate, parameter, inverse_log_keep, seed,
                                &posted, generation, CK_DIM, lo, hi, posted_row,
                                &posted_last, &posted_refills);
    }
    __syncthreads();
  }
  /* The next generation's count: last read before this generation's
   * first barrier, next added to after its last. */
  if (l == 0)
    queue->count[parity ^ 1u] = 0u;
  return evaluate_made(makes, made, seed, c, generation, lo, hi, row, child);
}

/*
 * The pick (0 .. CK_GA_MIGRANTS - 1) at which the thread's slot is chosen
 * among the island's CK_GA_MIGRANTS best by (fitness, index), or with
 * WORST its worst (the least of (-fitness, 0xFFFFFFFE - index)), each
 * pick an island minimum over the slots not yet chosen, as ck_ga_pick
 * orders them; -1 when it is not chosen. Called by all threads of the
 * island alike.
 */
template <bool WORST>
static __device__ __forceinline__ int
migrant_pick(posts *folds, void *cluster_folds, fold_sets *sets, unsigned rank,
             bool live, float value, unsigned slot) {
  const unsigned own = WORST ? 0xFFFFFFFEu - slot : slot;
  float unused = 0.0f;
  int chosen = -1;
  for (int pick = 0; pick < CK_GA_MIGRANTS; ++pick) {
    const bool candidate = live && chosen < 0;
    float key = candidate ? (WORST ? -value : value) : CK_REAL_MAX;
    unsigned index = candidate ? own : NO_INDEX;
    island_fold<false>(folds, cluster_folds, sets, rank, &key, &index, &unused);
    if (candidate && index == own)
      chosen = pick;
  }
  return chosen;
}

/* Whether a generation's statistics are the first warp's alone
 * (fitness_fold), or every thread's (island_fold). The first warp's fold
 * ran faster for islands of 128 and 256, but slower for islands of 1024,
 * whose 32 values a lane the other warps wait for, and with deferred
 * refills or the warps' pool of polynomial steps it made ptxas spill
 * registers (bench/results/h100-2026-11-25-fold/). Clusters fold across
 * blocks. */
#define WARP_STATISTICS                                                        \
  (!CLUSTERED && !POOLED && !DEFERRED && CK_GA_ISLAND <= 8 * CK_WARP_WIDTH)
/* The threads that take part in a generation's statistics. */
#define STATISTICS_THREADS (WARP_STATISTICS ? CK_WARP_WIDTH : CK_GA_BLOCK)

/* Whether an island's migrations are the first warp's alone, where its
 * statistics are (WARP_STATISTICS), rather than every thread's
 * (migrant_pick's folds): it picks the migrants from the island's fitness
 * in shared memory, copies them, waits for and tells the island's ring
 * neighbours, and with one elite finds the island's best for a segment's
 * first generation, before one barrier of the block's. */
#define WARP_MIGRATION WARP_STATISTICS
/* The island's slots a lane of the first warp takes: j, j + 32, ... */
#define LANE_SLOTS ((CK_GA_ISLAND + CK_WARP_WIDTH - 1) / CK_WARP_WIDTH)

/* The island's (fitness, index) minimum and its sum over the island's
 * fitness in shared memory, with one warp: lane j takes slots j, j + 32,
 * ..., then the warp folds; every lane gets the result. */
#if WARP_STATISTICS
static __device__ __forceinline__ void fitness_fold(const float *fitness,
                                                    float *best,
                                                    unsigned *best_index,
                                                    float *sum) {
  float lowest = CK_REAL_MAX, total = 0.0f;
  unsigned lowest_index = NO_INDEX;
  for (unsigned i = threadIdx.x; i < CK_GA_ISLAND; i += CK_WARP_WIDTH) {
    const float value = fitness[i];
    total += value;
    if (ck_better(value, i, lowest, lowest_index)) {
      lowest = value;
      lowest_index = i;
    }
  }
  warp_fold<true>(&lowest, &lowest_index, &total);
  *best = lowest;
  *best_index = lowest_index;
  *sum = total;
}
#endif

#if WARP_MIGRATION
/*
 * In the first warp: the island's next best slot by (fitness, index) or
 * with WORST its next worst (the least of (-fitness, 0xFFFFFFFE - index)),
 * among those not yet taken, as migrant_pick's folds order them (the
 * order is total, so any fold finds the same slot); returned in every
 * lane. Lane j's bit k of *taken stands for slot j + 32 k; the pick sets
 * its slot's.
 */
template <bool WORST>
static __device__ __forceinline__ unsigned warp_pick(const float *fitness,
                                                     unsigned *taken) {
  static_assert(LANE_SLOTS <= 32, "a lane's slots are bits of a word");
  const unsigned lane = threadIdx.x % CK_WARP_WIDTH;
  float key = CK_REAL_MAX;
  unsigned index = NO_INDEX;
#pragma unroll
  for (unsigned k = 0; k < LANE_SLOTS; ++k) {
    const unsigned slot = lane + k * CK_WARP_WIDTH;
    if (slot < CK_GA_ISLAND && !((*taken >> k) & 1u)) {
      const float candidate = WORST ? -fitness[slot] : fitness[slot];
      const unsigned candidate_index = WORST ? 0xFFFFFFFEu - slot : slot;
      if (ck_better(candidate, candidate_index, key, index)) {
        key = candidate;
        index = candidate_index;
      }
    }
  }
  ck_warp_minimum(&key, &index);
  const unsigned slot = WORST ? 0xFFFFFFFEu - index : index;
  if (slot % CK_WARP_WIDTH == lane)
    *taken |= 1u << (slot / CK_WARP_WIDTH);
  return slot;
}

/* In the first warp, as ck_ga_emigrate: the island's CK_GA_MIGRANTS best,
 * best first, from its rows and fitness (final: after a barrier) to its
 * place in `leaving` and `leaving_fitness`. */
static __device__ __forceinline__ void
warp_emigrate(const float4 *genes, const float *fitness, float *leaving,
              float *leaving_fitness, unsigned island) {
  const unsigned lane = threadIdx.x % CK_WARP_WIDTH;
  unsigned taken = 0u;
  for (int pick = 0; pick < CK_GA_MIGRANTS; ++pick) {
    const unsigned slot = warp_pick<false>(fitness, &taken);
    const float *row = (const float *)(genes + slot * ROW_QUADS);
    const ck_u64 to = (ck_u64)island * CK_GA_MIGRANTS + pick;
    for (unsigned d = lane; d < CK_DIM; d += CK_WARP_WIDTH)
      leaving[to * CK_DIM + d] = row[d];
    if (lane == 0)
      leaving_fitness[to] = fitness[slot];
  }
}

/* In the first warp, as ck_ga_immigrate: the island's CK_GA_MIGRANTS
 * worst, worst first, take the migrants island `from_island` sent, best
 * first, on their rows and in the fitness. A pick never reads a slot
 * taken before it, which the migrant may already hold. */
static __device__ __forceinline__ void
warp_immigrate(float4 *genes, float *fitness, const float *arrived,
               const float *arrived_fitness, unsigned from_island) {
  const unsigned lane = threadIdx.x % CK_WARP_WIDTH;
  unsigned taken = 0u;
  for (int pick = 0; pick < CK_GA_MIGRANTS; ++pick) {
    const unsigned slot = warp_pick<true>(fitness, &taken);
    const ck_u64 migrant = (ck_u64)from_island * CK_GA_MIGRANTS + pick;
    float *row = (float *)(genes + slot * ROW_QUADS);
    /* The row's padding past CK_DIM stays zero, as store_genes leaves it. */
    for (unsigned d = lane; d < 4 * QUADS; d += CK_WARP_WIDTH)
      row[d] = d < CK_DIM ? __ldcg(arrived + migrant * CK_DIM + d) : 0.0f;
    if (lane == 0)
      fitness[slot] = __ldcg(arrived_fitness + migrant);
  }
}
#endif

/* The row of slot `slot` of the island to read a parent or an elite
 * from: in this block's shared memory, or in a cluster, where another
 * block holds it, that block's copy in global memory (publish_rows). */
static __device__ __forceinline__ const float *
island_row(float4 *genes, unsigned slot, const float4 *rows_global,
           unsigned island) {
#if CLUSTERED
  if (slot / CK_GA_SLOTS != blockIdx.x % CK_GA_CLUSTER)
    return (const float *)(rows_global +
                           ((ck_u64)island * CK_GA_ISLAND + slot) * ROW_QUADS);
  return (const float *)(genes + (slot % CK_GA_SLOTS) * ROW_QUADS);
#else
  (void)rows_global;
  (void)island;
  return (const float *)(genes + slot * ROW_QUADS);
#endif
}

/* The row of slot `slot` in the shared memory of the block that holds it
 * (in a cluster, through its distributed shared memory): for the island's
 * best child after a fold, whose copy in global memory is not written in
 * a launch's last generation. */
static __device__ __forceinline__ const float *held_row(float4 *genes,
                                                        unsigned slot) {
  return (const float *)(in_block(genes, slot / CK_GA_SLOTS) +
                         (slot % CK_GA_SLOTS) * ROW_QUADS);
}

/* The slots a block holds: CK_GA_SLOTS, or fewer in a cluster's last
 * block. */
static __device__ __forceinline__ unsigned held_slots(unsigned first_slot) {
  return CK_GA_ISLAND - first_slot < CK_GA_SLOTS ? CK_GA_ISLAND - first_slot
                                                 : CK_GA_SLOTS;
}

/* In a cluster, the rows of the thread's warp, which lie side by side in
 * shared memory as in rows_global, copied there for the island's other
 * blocks, with every lane of the warp (coalesced); called by every thread
 * alike once the warp's rows are final. */
static __device__ __forceinline__ void publish_rows(const float4 *genes,
                                                    float4 *rows_global,
                                                    unsigned island,
                                                    unsigned first_slot) {
#if CLUSTERED
  __syncwarp();
  const unsigned warp_first = threadIdx.x / CK_WARP_WIDTH * CK_WARP_WIDTH,
                 held = held_slots(first_slot);
  const unsigned rows = warp_first >= held                  ? 0u
                        : held - warp_first < CK_WARP_WIDTH ? held - warp_first
                                                            : CK_WARP_WIDTH;
  float4 *to =
      rows_global +
      ((ck_u64)island * CK_GA_ISLAND + first_slot + warp_first) * ROW_QUADS;
  const float4 *from = genes + warp_first * ROW_QUADS;
  for (unsigned q = threadIdx.x % CK_WARP_WIDTH; q < rows * ROW_QUADS;
       q += CK_WARP_WIDTH)
    to[q] = from[q];
#else
  (void)genes;
  (void)rows_global;
  (void)island;
  (void)first_slot;
#endif
}

/* The progress of other blocks' islands in a launch (ck_ga_schedule.h):
 * counters in device memory that one block raises once its writes are
 * done (announce) and others wait on before reading them (wait_for), at
 * the GPU's scope. Data another block wrote in this launch is read past
 * the SM's L1, which nothing keeps coherent (__ldcg). */
static __device__ __forceinline__ unsigned load_acquire(const unsigned *at) {
  unsigned value;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];"
               : "=r"(value)
               : "l"(at)
               : "memory");
  return value;
}

/* The threads that wait and announce together: the block, or (WARP) the
 * first warp. */
template <bool WARP> static __device__ __forceinline__ void together(void) {
  if (WARP)
    __syncwarp();
  else
    __syncthreads();
}

/* Waits, with the block or (WARP) the calling warp, until *at reaches
 * `wanted`. */
template <bool WARP>
static __device__ __forceinline__ void wait_for(const unsigned *at,
                                                unsigned wanted) {
  if (threadIdx.x % (WARP ? CK_WARP_WIDTH : CK_GA_BLOCK) == 0)
    while (load_acquire(at) < wanted)
      __nanosleep(64);
  together<WARP>();
}

/* Sets *at to `value` once every write before it of the block's threads
 * or (WARP) the calling warp's is visible to the whole GPU; called by all
 * of them. The barrier orders their writes before the first thread's
 * release, which makes them visible at the GPU's scope (as a grid-wide
 * barrier does). */
template <bool WARP>
static __device__ __forceinline__ void announce(unsigned *at, unsigned value) {
  together<WARP>();
  if (threadIdx.x % (WARP ? CK_WARP_WIDTH : CK_GA_BLOCK) == 0)
    asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(at), "r"(value)
                 : "memory");
}

/* As wait_for and announce, at the system's scope: for the counts
 * another GPU raises or waits on. Every thread's writes are fenced at
 * that scope before the barrier, not only ordered at the GPU's, so that
 * the other GPU sees them once it sees the count. */
template <bool WARP>
static __device__ __forceinline__ void wait_for_system(const unsigned *at,
                                                       unsigned wanted) {
  if (threadIdx.x % (WARP ? CK_WARP_WIDTH : CK_GA_BLOCK) == 0)
    for (;;) {
      unsigned value;
      asm volatile("ld.acquire.sys.u32 %0, [%1];"
                   : "=r"(value)
                   : "l"(at)
                   : "memory");
      if (value >= wanted)
        break;
      __nanosleep(128);
    }
  together<WARP>();
}

template <bool WARP>
static __device__ __forceinline__ void announce_system(unsigned *at,
                                                       unsigned value) {
  __threadfence_system();
  together<WARP>();
  if (threadIdx.x % (WARP ? CK_WARP_WIDTH : CK_GA_BLOCK) == 0)
    asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(at), "r"(value)
                 : "memory");
}

/* Where the islands' migrants sent after segment `segment` of a launch
 * are relayed: their genes (in *genes) and fitness (in *fitness). */
template <class T>
static __device__ __forceinline__ void
relay_at(T *relay, T *relay_fitness, unsigned segment, unsigned islands,
         T **genes, T **fitness) {
  const ck_u64 first = (ck_u64)segment * islands * CK_GA_MIGRANTS;
  *genes = relay + first * CK_DIM;
  *fitness = relay_fitness + first;
}

/*
 * What a thread of a task holds of its island: the block's shared memory
 * (its rows, the domain, the island's fitness, the posted folds, the
 * warp's pool or the block's queue), its place (block `rank` of the
 * cluster, thread l, slot `slot` of the island, live where it holds one)
 * and the task's island (its slots `first` .. of the population), whose
 * children draw from the streams of island `drawn` of the whole run.
 */
struct island_view {
  float4 *genes;
  const float *lo, *hi;
  float *fitness;
  posts *folds;
  void *cluster_folds;
  unsigned *pool;
  deferred_refills *queue;
  unsigned rank, l, first_slot, slot, total;
  bool live;
  unsigned island, first, drawn;
};

/* The domain into shared memory, padded with zeros to whole quads. */
static __device__ __forceinline__ void load_domain(const ck_ga_native_args &a,
                                                   float4 *lo, float4 *hi) {
  for (unsigned d = threadIdx.x; d < 4 * QUADS; d += CK_GA_BLOCK) {
    ((float *)lo)[d] = d < CK_DIM ? __ldg(a.lo + d) : 0.0f;
    ((float *)hi)[d] = d < CK_DIM ? __ldg(a.hi + d) : 0.0f;
  }
}

/* The island as its last task left it (task segment `begin`): the rows
 * and the fitness into shared memory, the thread's slot's fitness into
 * *value, the island's best so far into *best_so_far; then the rows
 * published, in a cluster to every block. */
static __device__ __forceinline__ void
load_island(const ck_ga_native_args &a, const island_view &v, unsigned begin,
            float *child, float *value, float *best_so_far) {
  if (begin > 0)
    wait_for<false>(a.schedule + 1 + a.islands + v.island, begin);
  unsigned long long task_first;
  {
    unsigned made;
    task_first = ck_ga_segment_start(a.first_generation, a.generations,
                                     a.migrate_every, begin, &made);
  }
  *value = CK_REAL_MAX; /* the fitness of the thread's slot */
  const float *source = (task_first & 1) ? a.population_a : a.population_b;
  const float *source_fitness = (task_first & 1) ? a.fitness_a : a.fitness_b;
  if (v.live) {
    load_row(v.genes + v.l * ROW_QUADS, source + v.first + v.slot, v.total,
             child);
    *value = __ldcg(source_fitness + v.first + v.slot);
  }
  for (unsigned i = v.l; i < CK_GA_ISLAND; i += CK_GA_BLOCK)
    v.fitness[i] = __ldcg(source_fitness + v.first + i);
  /* Only this island's blocks change its best during the task; the
   * first of them writes it. */
  *best_so_far = __ldcg(a.island_best + v.island);
  /* The queue's counts, whatever the parity of the task's first
   * generation. */
  if (DEFERRED && v.l < 2)
    v.queue->count[v.l] = 0u;
  publish_rows(v.genes, (float4 *)a.rows, v.island, v.first_slot);
  /* In a cluster, also: every block has started, so its shared memory
   * may be read and written by the others. */
  island_sync();
}

/* As ck_ga_immigrate, before segment `segment`: the CK_GA_MIGRANTS worst,
 * worst first, take the migrants of island migration_source[island], best
 * first, sent before the launch or after its segment before this one
 * (in the previous member's relay, where the source is its last island).
 * The worst by (fitness, index) is the least of (-fitness, 0xFFFFFFFE -
 * index). */
static __device__ __forceinline__ void
receive_migrants(const ck_ga_native_args &a, const island_view &v,
                 unsigned segment, fold_sets *sets, float *value,
                 float *child) {
  const unsigned from_island = __ldg(a.migration_source + v.island);
  const float *arrived = a.migrants_in, *arrived_fitness = a.migrant_fitness_in;
  /* The source's place in `arrived`. */
  unsigned from = from_island;
  if (segment > 0)
    relay_at<const float>(a.relay, a.relay_fitness, segment - 1, a.islands,
                          &arrived, &arrived_fitness);
  const unsigned *sent = a.schedule + 1;
  /* Another member's island sent them inside the launch. */
  const bool crossed = CK_GA_ACROSS && segment > 0 && from_island >= a.islands;
  const unsigned migration =
      crossed ? ck_ga_segment_migration(a.first_generation, a.migrate_every,
                                        segment - 1)
              : 0u;
  if (crossed) {
    arrived =
        a.relay_previous + (ck_u64)(segment - 1) * a.previous_segment * CK_DIM;
    arrived_fitness =
        a.relay_fitness_previous + (ck_u64)(segment - 1) * a.previous_segment;
    from = 0;
  }
#if WARP_MIGRATION
  (void)sets;
  (void)value;
  (void)child;
  if (v.l < CK_WARP_WIDTH) {
    if (crossed)
      wait_for_system<true>(a.crossed_previous + CK_GA_SENT, migration);
    else if (segment > 0)
      wait_for<true>(sent + from_island, segment);
    warp_immigrate(v.genes, v.fitness, arrived, arrived_fitness, from);
    if (crossed)
      announce_system<true>(a.crossed_previous + CK_GA_TAKEN, migration);
  }
#else
  if (crossed)
    wait_for_system<false>(a.crossed_previous + CK_GA_SENT, migration);
  else if (segment > 0)
    wait_for<false>(sent + from_island, segment);
  const int received = migrant_pick<true>(v.folds, v.cluster_folds, sets,
                                          v.rank, v.live, *value, v.slot);
  if (received >= 0) {
    const ck_u64 migrant = (ck_u64)from * CK_GA_MIGRANTS + received;
    load_row(v.genes + v.l * ROW_QUADS, arrived + migrant * CK_DIM, 1, child);
    *value = __ldcg(arrived_fitness + migrant);
#pragma unroll
    for (unsigned r = 0; r < CK_GA_CLUSTER; ++r)
      in_block(v.fitness, r)[v.slot] = *value;
  }
  if (crossed)
    announce_system<false>(a.crossed_previous + CK_GA_TAKEN, migration);
  publish_rows(v.genes, (float4 *)a.rows, v.island, v.first_slot);
  island_sync();
#endif
}

/* The elites by (fitness, index), for generation t of a segment: one
 * island minimum a pick, each thread's own slot withdrawn once picked;
 * thread `pick`'s elite is the pick's slot. With one elite after the
 * segment's first generation, the last statistics already found it
 * (`winner`). Returns the thread's elite (`elite` unchanged for a thread
 * past the elites). */
static __device__ __forceinline__ unsigned
pick_elite(const island_view &v, unsigned t, unsigned winner, unsigned elite,
           float value, fold_sets *sets) {
  if (CK_GA_ELITE == 1 && (t > 0 || WARP_MIGRATION))
    return winner;
  float unused = 0.0f;
  bool taken_elite = false;
  for (int pick = 0; pick < CK_GA_ELITE; ++pick) {
    float candidate = v.live && !taken_elite ? value : CK_REAL_MAX;
    unsigned index = v.live && !taken_elite ? v.slot : NO_INDEX;
    island_fold<false>(v.folds, v.cluster_folds, sets, v.rank, &candidate,
                       &index, &unused);
    taken_elite |= index == v.slot;
    if (v.slot == (unsigned)pick)
      elite = index;
  }
  return elite;
}

#if !CHUNKED
/* Before the island's barrier: the thread's child in registers (`child`),
 * an elite's copy or, selected by tournament (*draws), its parents'
 * crossing. Returns an elite's fitness, else CK_REAL_MAX. */
static __device__ __forceinline__ float
select_and_cross(const ck_ga_native_args &a, const island_view &v,
                 unsigned long long generation, unsigned elite,
                 ck_ga_child_draws *draws, float *child) {
  const float4 *rows = (const float4 *)a.rows;
  if (v.slot < CK_GA_ELITE) {
    load_genes((const float4 *)island_row(v.genes, elite, rows, v.island), 0,
               CK_DIM, child);
    return v.fitness[elite];
  }
  if (v.live) {
    *draws = ck_ga_draw_child(CK_GA_TOURNAMENT, CK_GA_CROSSOVER,
                              a.crossover_rate, a.seed, v.drawn, v.slot,
                              generation, CK_GA_ISLAND, CK_DIM, v.fitness);
    ck_ga_cross_chunk(CK_GA_CROSSOVER, a.crossover_parameter, a.seed, draws, 0,
                      CK_DIM, island_row(v.genes, draws->a, rows, v.island),
                      island_row(v.genes, draws->b, rows, v.island), 1, child);
  }
  return CK_REAL_MAX;
}

/* After the barrier: the child written over its slot, mutated there and
 * evaluated. Returns its fitness, or `made` for an elite or a thread
 * that makes none. Called by every thread of the block. */
static __device__ __forceinline__ float
mutate_and_evaluate_child(const ck_ga_native_args &a, const island_view &v,
                          unsigned long long generation, float made,
                          const ck_ga_child_draws *draws, float *child) {
  float4 *row = v.genes + v.l * ROW_QUADS;
  const bool elite_slot = v.slot < CK_GA_ELITE;
#if POOLED
  if (v.live)
    store_genes(row, 0, CK_DIM, child);
  return mutate_and_evaluate(v.live && !elite_slot, made, a.mutation_rate,
                             a.mutation_parameter, a.inverse_log_keep, a.seed,
                             draws, generation, v.lo, v.hi, (float *)row,
                             v.pool, child);
#elif DEFERRED
  if (v.live)
    store_genes(row, 0, CK_DIM, child);
  return deferred_mutate_and_evaluate(
      v.live && !elite_slot, made, a.mutation_rate, a.mutation_parameter,
      a.inverse_log_keep, a.seed, draws, generation, v.drawn, v.first_slot,
      v.lo, v.hi, v.genes, v.queue, child);
#else
  /* The same passes in one function: measured faster here than the
   * pooled form's split (store_genes, mutate_and_evaluate). */
  if (v.live) {
    if (elite_slot)
      store_genes(row, 0, CK_DIM, child);
    else
      made = ck_comparable(ck_ga_finish_child(
          CK_OBJECTIVE, CK_BOUNDS, CK_GA_CROSSOVER, CK_GA_MUTATION,
          a.mutation_rate, a.mutation_parameter, a.inverse_log_keep, a.seed,
          draws, generation, CK_DIM, v.lo, v.hi, (float *)row, child));
  }
  return made;
#endif
}

/* The thread's child of the generation: selected and crossed, written
 * over its slot once every parent has been read, mutated and evaluated.
 * Returns its fitness (an elite's, for an elite; CK_REAL_MAX for a thread
 * that holds no slot). */
static __device__ __forceinline__ float
make_child(const ck_ga_native_args &a, const island_view &v,
           unsigned long long generation, unsigned elite, float *child) {
  ck_ga_child_draws draws = {};
  float made = select_and_cross(a, v, generation, elite, &draws, child);
  /* Every parent has been read before any slot is overwritten. */
  island_sync();
  return mutate_and_evaluate_child(a, v, generation, made, &draws, child);
}
#else
/* make_child past CK_GA_CHUNK genes: the child crossed a chunk at a time,
 * each chunk written over its slot after a barrier, then mutated and
 * evaluated on the row. */
static __device__ __forceinline__ float
make_child(const ck_ga_native_args &a, const island_view &v,
           unsigned long long generation, unsigned elite, float *child) {
  const float4 *rows = (const float4 *)a.rows;
  float made = CK_REAL_MAX;
  ck_ga_child_draws draws = {};
  float4 *row = v.genes + v.l * ROW_QUADS;
  const bool elite_slot = v.slot < CK_GA_ELITE;
  if (elite_slot)
    made = v.fitness[elite];
  else if (v.live)
    draws = ck_ga_draw_child(CK_GA_TOURNAMENT, CK_GA_CROSSOVER,
                             a.crossover_rate, a.seed, v.drawn, v.slot,
                             generation, CK_GA_ISLAND, CK_DIM, v.fitness);
#pragma unroll
  for (int from = 0; from < CK_DIM; from += CK_GA_CHUNK) {
    /* A chunk of every parent has been read before that chunk of any
     * slot is overwritten; later chunks are still the parents'. */
    const int end = from + CK_GA_CHUNK < CK_DIM ? from + CK_GA_CHUNK : CK_DIM;
    if (elite_slot)
      load_genes((const float4 *)island_row(v.genes, elite, rows, v.island),
                 from, end, child);
    else if (v.live)
      ck_ga_cross_chunk(CK_GA_CROSSOVER, a.crossover_parameter, a.seed, &draws,
                        from, end, island_row(v.genes, draws.a, rows, v.island),
                        island_row(v.genes, draws.b, rows, v.island), 1, child);
    island_sync();
    if (v.live)
      store_genes(row, from, end, child);
  }
  /* ck_ga_finish_child's passes after the first, on the row itself. */
  return mutate_and_evaluate(v.live && !elite_slot, made, a.mutation_rate,
                             a.mutation_parameter, a.inverse_log_keep, a.seed,
                             &draws, generation, v.lo, v.hi, (float *)row,
                             v.pool, child);
}
#endif

/* For a thread that holds a slot: its child's fitness `made` into every
 * block's copy of the island's fitness (the tournaments that read it are
 * past, before the barrier above, and the next ones follow the fold's
 * barrier); in the task's last generation (`out`), the child and its
 * fitness to device memory too (the other buffer is not read before a
 * task writes it again). */
static __device__ __forceinline__ void keep_child(const ck_ga_native_args &a,
                                                  const island_view &v,
                                                  unsigned long long generation,
                                                  bool out, float made,
                                                  const float *child) {
#pragma unroll
  for (unsigned r = 0; r < CK_GA_CLUSTER; ++r)
    in_block(v.fitness, r)[v.slot] = made;
  if (!out)
    return;
  const int odd = (int)(generation & 1);
  float *next = odd ? a.population_b : a.population_a;
  float *next_fitness = odd ? a.fitness_b : a.fitness_a;
#if CHUNKED
  (void)child;
  const float4 *row = v.genes + v.l * ROW_QUADS;
#endif
#pragma unroll
  for (int d = 0; d < CK_DIM; ++d)
#if CHUNKED
    next[(ck_u64)d * v.total + v.first + v.slot] = ((const float *)row)[d];
#else
    next[(ck_u64)d * v.total + v.first + v.slot] = child[d];
#endif
  next_fitness[v.first + v.slot] = made;
}

/*
 * The generation's statistics: the island's best and sum. Only the first
 * warp needs them where the island is one block's (the elite is slot 0's,
 * the best's copy and the statistics are the first warp's to write): with
 * WARP_STATISTICS, after a plain barrier that publishes the rows and
 * fitness just written, it folds the island's fitness while the other
 * warps go on to the next generation, whose tournaments only read that
 * fitness. Otherwise every thread folds them (island_fold), whose barrier
 * publishes the rows and fitness. The threads that folded set *winner,
 * and when the island's best so far improves, the first block's copy it
 * (threads d < CK_DIM, gene d); thread 0 of that block writes the
 * statistics.
 */
static __device__ __forceinline__ void
record_statistics(const ck_ga_native_args &a, const island_view &v,
                  unsigned long long generation, float value, fold_sets *sets,
                  unsigned *winner, float *best_so_far) {
  float best = value, sum = v.live ? value : 0.0f;
  unsigned best_index = v.live ? v.slot : NO_INDEX;
#if WARP_STATISTICS
  (void)sets;
  __syncthreads();
  if (v.l < CK_WARP_WIDTH)
    fitness_fold(v.fitness, &best, &best_index, &sum);
#else
  island_fold<true>(v.folds, v.cluster_folds, sets, v.rank, &best, &best_index,
                    &sum);
#endif
  if (WARP_STATISTICS && v.l >= CK_WARP_WIDTH)
    return;
  *winner = best_index;
  if (best < *best_so_far) {
    *best_so_far = best;
    if (v.rank == 0) {
      const float *best_row = held_row(v.genes, *winner);
      for (unsigned d = v.l; d < CK_DIM; d += STATISTICS_THREADS)
        a.island_best_genes[(ck_u64)d * a.islands + v.island] = best_row[d];
      if (v.l == 0)
        a.island_best[v.island] = best;
    }
  }
  if (v.rank == 0 && v.l == 0) {
    ck_u64 at =
        ((ck_u64)(a.stats_slot + (unsigned)(generation - a.first_generation)) *
             a.islands +
         v.island) *
        2;
    a.stats[at] = best;
    a.stats[at + 1] = sum / (float)CK_GA_ISLAND;
  }
}

/* As ck_ga_emigrate, after segment `segment`: the CK_GA_MIGRANTS best by
 * (fitness, index), best first, copied by the first warp (WARP_MIGRATION)
 * or each by the thread that holds it, for the next segment of the
 * island it sends to (`relay`, announced: to the next member, where that
 * island is its first, by `crossed`) or for the next launch
 * (migrants_out). */
static __device__ __forceinline__ void
send_migrants(const ck_ga_native_args &a, const island_view &v,
              unsigned segment, unsigned segments, fold_sets *sets,
              float value) {
  const bool relayed = segment + 1 < segments;
  float *leaving = a.migrants_out, *leaving_fitness = a.migrant_fitness_out;
  if (relayed)
    relay_at(a.relay, a.relay_fitness, segment, a.islands, &leaving,
             &leaving_fitness);
  unsigned *sent = a.schedule + 1;
  /* The next member's first island takes them: before the launch's first
   * relay, it has taken all the relay held before. */
  const bool crosses = CK_GA_ACROSS && relayed && v.island + 1 == a.islands;
#if WARP_MIGRATION
  (void)sets;
  (void)value;
  if (v.l < CK_WARP_WIDTH) {
    if (crosses && segment == 0)
      wait_for_system<true>(a.crossed + CK_GA_TAKEN,
                            __ldcg(a.crossed + CK_GA_SENT));
    warp_emigrate(v.genes, v.fitness, leaving, leaving_fitness, v.island);
    if (crosses)
      announce_system<true>(a.crossed + CK_GA_SENT,
                            ck_ga_segment_migration(a.first_generation,
                                                    a.migrate_every, segment));
    else if (relayed)
      announce<true>(sent + v.island, segment + 1);
  }
#else
  if (crosses && segment == 0)
    wait_for_system<false>(a.crossed + CK_GA_TAKEN,
                           __ldcg(a.crossed + CK_GA_SENT));
  const int picked = migrant_pick<false>(v.folds, v.cluster_folds, sets, v.rank,
                                         v.live, value, v.slot);
  if (picked >= 0) {
    const ck_u64 to = (ck_u64)v.island * CK_GA_MIGRANTS + picked;
    const float *row = (const float *)(v.genes + v.l * ROW_QUADS);
    for (int d = 0; d < CK_DIM; ++d)
      leaving[to * CK_DIM + d] = row[d];
    leaving_fitness[to] = value;
  }
  if (crosses)
    announce_system<false>(
        a.crossed + CK_GA_SENT,
        ck_ga_segment_migration(a.first_generation, a.migrate_every, segment));
  else if (relayed)
    announce<false>(sent + v.island, segment + 1);
#endif
}

/*
 * Evolves the islands through `generations` generations from
 * first_generation on, as the resident ck_ga_evolve of ga.cl does (buffers
 * A and B alternate by the generation's parity; populations
 * dimension-major over all islands), with the migrations inside the
 * launch (every `migrate_every` generations, on the ring of
 * migration_source) made here too. Its arguments come in one struct
 * (ck_ga_native_args, ck_ga_native.h); the names below are its fields.
 * The work comes in tasks (one island, one or more segments between
 * migrations: ck_ga_schedule.h), which a block takes in ticket order
 * (schedule[0]; schedule[1 + i] counts the segments island i has sent migrants
 * for, schedule[1 + islands + i] those whose island is back in device memory;
 * zero at the launch), until none is left. A task loads its island into shared
 * memory (after its last task stored it: load_island), and for each segment
 * receives the migrants its source sent after the segment before
 * (receive_migrants: from `relay`, once the source's counter says they are
 * there; before the launch's first generation from migrants_in, with
 * CK_GA_IMMIGRATE), makes the segment's generations, and sends its own
 * (send_migrants: to `relay`, or after the launch's last generation to
 * migrants_out, with CK_GA_EMIGRATE); genes and fitness go back to device
 * memory in the task's last generation. A clustered island (blocks i C .. i C +
 * C - 1, C = CK_GA_CLUSTER, block r holding slots r CK_GA_SLOTS on) is cluster
 * i's alone, in a launch of one segment.
 *
 * Thread l owns the block's row l, slot `slot` of the island: it loads the
 * slot into shared memory, and each generation crosses the slot's child
 * in registers (an elite copies its elite: pick_elite, make_child), waits
 * until every parent has been read, writes the child over its slot,
 * mutates and evaluates it there (mutate_and_evaluate, in which with
 * polynomial mutation every thread of the warp takes part; past
 * CK_GA_CHUNK genes crossed a chunk at a time up to the write), posts its
 * fitness to every block of the island (keep_child) and offers it to the
 * island's minimum and sum (record_statistics); threads past the
 * island's slots only take part in those folds and pools. Thread 0 of the
 * island's first block writes the generation's statistics; when the
 * island's best so far improves, that block's threads d < CK_DIM copy gene
 * d of it. Migrants are picked as ck_ga_immigrate and ck_ga_emigrate pick
 * them: the driver's migration step, made here. Island i's children draw
 * from the streams of island first_island + i of the whole run (a spread
 * run's device holds the islands from first_island on).
 */
extern "C" __global__ void __launch_bounds__(CK_GA_BLOCK, MIN_BLOCKS)
#if CLUSTERED
    __cluster_dims__(CK_GA_CLUSTER, 1, 1)
#endif
        ck_ga_cuda_evolve(const __grid_constant__ ck_ga_native_args a) {
  /* The block's rows, the domain, the island's fitness, the posted folds
   * (the cluster's too), and the pools or the queue. */
  extern __shared__ float4 shared[];
  island_view v;
  v.genes = shared;
  float4 *lo = v.genes + CK_GA_SLOTS * ROW_QUADS, *hi = lo + QUADS;
  v.lo = (const float *)lo;
  v.hi = (const float *)hi;
  v.fitness = (float *)(hi + QUADS);
  v.folds = (posts *)(v.fitness + CK_GA_ISLAND);
  v.cluster_folds = v.folds + 1;
  unsigned char *after_folds = (unsigned char *)(v.folds + 1) +
                               CK_GA_NATIVE_CLUSTER_POST_BYTES(CK_GA_CLUSTER);
  v.rank = blockIdx.x % CK_GA_CLUSTER;
  v.l = threadIdx.x;
  v.first_slot = v.rank * CK_GA_SLOTS;
  v.slot = v.first_slot + v.l;
  v.total = a.islands * CK_GA_ISLAND;
  v.live = v.l < held_slots(v.first_slot);
  /* The warp's pool of mutation steps (POOLED). */
  v.pool = POOLED ? (unsigned *)after_folds + (v.l / CK_WARP_WIDTH) * POOL_WORDS
                  : NULL;
  /* The queue of deferred refills (DEFERRED). */
  v.queue = (deferred_refills *)after_folds;
  load_domain(a, lo, hi);
  const unsigned segments =
      ck_ga_segments(a.first_generation, a.generations, a.migrate_every);
  /* The child in registers, whole or a chunk at a time (CHUNKED). */
  float child[CK_GA_CHUNK];
#if CLUSTERED
  /* The cluster's island, in one task of the launch's one segment. */
  for (unsigned task = 0; task < 1; ++task) {
    const unsigned island = blockIdx.x / CK_GA_CLUSTER, begin = 0,
                   end = segments;
#else
  __shared__ unsigned ticket;
  const unsigned tickets = ck_ga_sweeps(segments, a.per_task) * a.islands;
  for (;;) {
    /* After the block's last task: its shared memory is free again. */
    if (v.l == 0)
      ticket = atomicAdd(a.schedule, 1u);
    __syncthreads();
    const unsigned taken = ticket;
    /* Every thread has its ticket before thread 0 takes the next. */
    __syncthreads();
    if (taken >= tickets)
      break;
    unsigned begin, end;
    const unsigned island =
        ck_ga_task(taken, a.islands, segments, a.per_task, &begin, &end);
    if (begin == end)
      continue;
#endif
    v.island = island;
    v.first = island * CK_GA_ISLAND;
    v.drawn = a.first_island + island;
    float value, best_so_far;
    load_island(a, v, begin, child, &value, &best_so_far);
    fold_sets sets = {0, 0};
    unsigned winner = NO_INDEX, elite = NO_INDEX;
    for (unsigned segment = begin; segment < end; ++segment) {
      unsigned segment_generations;
      const unsigned long long segment_first =
          ck_ga_segment_start(a.first_generation, a.generations,
                              a.migrate_every, segment, &segment_generations);
      if (segment > 0 || (a.migration & CK_GA_IMMIGRATE))
        receive_migrants(a, v, segment, &sets, &value, child);
#if WARP_MIGRATION
      /* With one elite, the first warp finds it for the segment's first
       * generation (later ones take the statistics' best); then one
       * barrier shows every thread the migrants. */
      if (CK_GA_ELITE == 1 && v.l < CK_WARP_WIDTH) {
        unsigned none_taken = 0u;
        winner = warp_pick<false>(v.fitness, &none_taken);
      }
      __syncthreads();
      if (v.live)
        value = v.fitness[v.slot];
#endif
      /* The task's last generation goes out. */
      const bool task_ends = segment + 1 == end;
      for (unsigned t = 0; t < segment_generations; ++t) {
        const unsigned long long generation = segment_first + t;
        const bool out = task_ends && t + 1 == segment_generations;
        elite = pick_elite(v, t, winner, elite, value, &sets);
        const float made = make_child(a, v, generation, elite, child);
        if (v.live) {
          keep_child(a, v, generation, out, made, child);
          value = made;
        }
        if (!out)
          publish_rows(v.genes, (float4 *)a.rows, v.island, v.first_slot);
        record_statistics(a, v, generation, value, &sets, &winner,
                          &best_so_far);
      }
      if (segment + 1 < segments || (a.migration & CK_GA_EMIGRATE))
        send_migrants(a, v, segment, segments, &sets, value);
    }
    /* The island is back in device memory for its next task. */
    if (end < segments)
      announce<false>(a.schedule + 1 + a.islands + island, end);

#if CLUSTERED
    /* No block leaves while another may still read its rows. */
    island_sync();
#endif
  }
}
