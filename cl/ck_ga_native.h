/*
 * ck_ga_native.h - the dynamic shared memory and the arguments of the
 * native GA kernel (ga.cu, ck_ga_cuda_evolve), in one place for the
 * kernel, which lays them out, and for the host, which sizes the launch,
 * decides whether an island fits and fills the arguments
 * (src/ga/ga_cuda.c). Plain C, for both compilers.
 *
 * In order: the block's rows of the island (all of it, or its share when
 * a cluster of blocks holds it), CK_GA_NATIVE_ROW_QUADS float4s a row (an
 * odd count, so that rows a and b share a bank group only when a = b mod
 * 8); the domain's lo and hi rows, CK_GA_NATIVE_QUADS float4s each; the
 * whole island's fitness; the warps' posted folds (two sets of a value,
 * an index and a sum a warp); in a cluster, the blocks' posted folds;
 * then, sharing one place since a kernel has at
 * most one of them, the warps' pools of polynomial mutation steps
 * (CK_GA_NATIVE_POOL_WORDS words a warp) or the queue of deferred refills
 * (two counts and a job a slot).
 */
#ifndef CK_GA_NATIVE_H
#define CK_GA_NATIVE_H

#include "ck_prelude.h"

/* The most genes the kernel takes: past CK_GA_CHUNK (64) a child is
 * crossed a chunk at a time, and the chunk loops unroll, so the code grows
 * with the dimension. */
#define CK_GA_NATIVE_MAX_DIM 256

#define CK_GA_NATIVE_QUADS(dim) (((dim) + 3) / 4)
#define CK_GA_NATIVE_ROW_QUADS(dim) (CK_GA_NATIVE_QUADS(dim) | 1)
#define CK_GA_NATIVE_POOL_WORDS 128
#define CK_GA_NATIVE_POST_BYTES(warps) ((warps)*2 * 12)

/* The posts of a cluster's blocks, when an island spans several
 * (`cluster` > 1): CK_GA_NATIVE_CLUSTER_POST_SETS sets of a value, an
 * index and a sum a block. */
#define CK_GA_NATIVE_CLUSTER_POST_SETS 3
#define CK_GA_NATIVE_CLUSTER_POST_BYTES(cluster)                               \
  ((cluster) > 1 ? CK_GA_NATIVE_CLUSTER_POST_SETS * (cluster)*12 : 0)

/* Bytes a block for islands of `island`, `slots` of them a block (the
 * island's rows are spread over `cluster` blocks; the fitness of the
 * whole island is in each), `dim` genes and `warps` warps a block;
 * pooled and deferred are 0 or 1 (at most one of them 1). */
#define CK_GA_NATIVE_SHARED_BYTES(island, slots, cluster, dim, warps, pooled,  \
                                  deferred)                                    \
  ((slots)*CK_GA_NATIVE_ROW_QUADS(dim) * 16 + (island)*4 +                     \
   2 * CK_GA_NATIVE_QUADS(dim) * 16 + CK_GA_NATIVE_POST_BYTES(warps) +         \
   CK_GA_NATIVE_CLUSTER_POST_BYTES(cluster) +                                  \
   ((pooled)     ? (warps)*CK_GA_NATIVE_POOL_WORDS * 4                         \
    : (deferred) ? 2 * 4 + 4 * (slots)                                         \
                 : 0))

/*
 * The arguments of ck_ga_cuda_evolve (ga.cu documents what each means).
 * The same text lays the struct out for host C and for CUDA C++: device
 * addresses first (8 bytes each on either side), then 64-bit and 32-bit
 * words, a multiple of 8 in all; the layout is asserted on both sides
 * (below). Buffers a launch does not use (rows, relays, counts) may
 * be NULL.
 */
typedef struct ck_ga_native_args {
  const float *lo, *hi;
  float *population_a, *population_b, *fitness_a, *fitness_b;
  float *stats, *island_best, *island_best_genes;
  float *rows; /* float4s, CK_GA_NATIVE_ROW_QUADS a row */
  const float *migrants_in, *migrant_fitness_in;
  float *migrants_out, *migrant_fitness_out;
  const ck_u32 *migration_source;
  ck_u32 *schedule;
  float *relay, *relay_fitness;
  /* A spread run's ring across GPUs (CK_GA_ACROSS): this member's counts
   * of the migrations its last island relayed and of those the next
   * member took (ga.cu); the previous member's, and its relay at its last
   * island, mapped here. */
  ck_u32 *crossed, *crossed_previous;
  const float *relay_previous, *relay_fitness_previous;
  ck_u64 seed, first_generation;
  ck_u64 previous_segment; /* migrants a segment in the previous relay */
  ck_u32 islands, generations, stats_slot, migration, migrate_every, per_task;
  ck_u32 first_island; /* island 0's number in the whole run */
  float crossover_rate, crossover_parameter, mutation_rate, mutation_parameter;
  float inverse_log_keep;
} ck_ga_native_args;

/* The layout, asserted in each compiler that includes this header (the
 * host's C and NVRTC's C++, which has no offsetof): every member of the
 * size it has on the other side, and the whole the sum of its members (22
 * addresses, 3 64-bit words, 7 32-bit words and 5 floats),
 * so that no padding lies between them and each lies at the sum of the
 * sizes before it. */
#if defined(__cplusplus)
#define CK_GA_NATIVE_ASSERT(condition) static_assert(condition, #condition)
#define CK_GA_NATIVE_ALIGNOF(type) alignof(type)
#else
#define CK_GA_NATIVE_ASSERT(condition) _Static_assert(condition, #condition)
#define CK_GA_NATIVE_ALIGNOF(type) _Alignof(type)
#endif
CK_GA_NATIVE_ASSERT(sizeof(float *) == 8 && sizeof(ck_u32 *) == 8 &&
                    sizeof(ck_u64) == 8 && sizeof(ck_u32) == 4 &&
                    sizeof(float) == 4);
CK_GA_NATIVE_ASSERT(sizeof(ck_ga_native_args) ==
                    22 * 8 + 3 * 8 + 7 * 4 + 5 * 4);
CK_GA_NATIVE_ASSERT(CK_GA_NATIVE_ALIGNOF(ck_ga_native_args) == 8);

#endif /* CK_GA_NATIVE_H */
