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
 * A user objective without data (CK_OBJECTIVE_USER, its source placed
 * before this file) is called on each child where a built-in is
 * evaluated: on its bounded genes (ga_mutation.inc, user_value).
 *
 * Build-time defines (src/ga/ga_cuda.c): CK_OBJECTIVE (a streamed one,
 * or the user's), CK_BOUNDS, CK_DIM (at most CK_GA_NATIVE_MAX_DIM), CK_GA_TOURNAMENT,
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
#define USER (CK_OBJECTIVE == CK_OBJECTIVE_USER)
#if CK_REAL_DOUBLE || (CK_OBJECTIVE >= CK_OBJECTIVE_STREAMED_COUNT && !USER) || \
    CK_DIM > CK_GA_NATIVE_MAX_DIM || CK_GA_BLOCK % CK_WARP_WIDTH != 0 ||       \
    CK_GA_BLOCK < CK_GA_SLOTS || CK_GA_ELITE >= CK_GA_ISLAND
#error "ga.cu is for streamed or user objectives in single precision, a bounded CK_DIM"
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

#include "ga_folds.inc"
#include "ga_mutation.inc"
#include "ga_picks.inc"
#include "ga_rows.inc"
#include "ga_progress.inc"
#include "ga_task.inc"

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
