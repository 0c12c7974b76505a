/*
 * ck_ga_native.h - the dynamic shared memory of the native GA kernel
 * (ga.cu, ck_ga_cuda_evolve), in one place for the kernel, which lays it
 * out, and for the host, which sizes the launch and decides whether an
 * island fits (src/ga/ga_cuda.c). Plain C macros, for both compilers.
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

#endif /* CK_GA_NATIVE_H */
