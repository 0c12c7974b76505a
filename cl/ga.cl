/*
 * ga.cl - island-model genetic algorithm kernels. Their ref twins are the
 * ref steps in src/ga/ga_ref.c, which call the same ck_ga.h functions.
 * A work-group evolves one island; work-item l takes child slots l,
 * l + GROUP, ... of it.
 *
 * Build-time defines (chosen per run and device by src/ga/ga_create.c,
 * passed by ga_opencl.c):
 *   CK_OBJECTIVE       an id of ck_objectives.h
 *   CK_BOUNDS          CK_BOUNDS_CLAMP, _REFLECT or _RANDOM
 *   CK_GROUP           work-group size (a power of two)
 *   CK_DIM             the dimension
 *   CK_USER_DATA       1 when the user objective takes a data pointer
 *   CK_LSQ_LANES       points a work-item of lsq's vector mode (1: none)
 *   CK_GA_TOURNAMENT   tournament size k
 *   CK_GA_CROSSOVER    CK_GA_CROSSOVER_ARITH, _BLX or _SBX
 *   CK_GA_MUTATION     CK_GA_MUTATION_GAUSS or _POLY
 *   CK_GA_ELITE        elites kept per island (0 allowed)
 *   CK_GA_MIGRANTS     migrants per island (at least 1 for the program)
 *   CK_GA_MIGRATE_GROUP work-group size of the migration kernels (a power
 *                      of two, at most CK_GROUP)
 *   CK_GA_RESIDENT     1 for the resident form of ck_ga_evolve (streamed
 *                      objectives, CK_DIM <= 64, islands that fit in local
 *                      memory with one slot a work-item)
 *   CK_GA_ISLAND       the island size (sizes the resident copy)
 *   CK_LANES           1 (or absent), or 16 (8 in double precision) for
 *                      the vector form of the resident generation (CPUs):
 *                      a work-item makes the children of CK_LANES
 *                      consecutive slots, a lane each (ck_ga_lanes.h);
 *                      CK_GROUP x CK_LANES = CK_GA_ISLAND
 *   CK_REAL_DOUBLE     0 or 1
 *   CK_GA_FUSE_USER    1: a user objective is evaluated where the child is
 *                      made, as built-ins are (the host asks it for
 *                      objectives without data, in the global-memory form
 *                      and in the resident form of one slot a work-item);
 *                      0: by ck_evaluate_user after the generation
 * The kernels of ck_best.h and ck_evaluate.h are part of this program.
 * A user objective, when there is one, is placed before this file.
 */
#ifndef CK_LANES
#define CK_LANES 1
#endif
#if CK_GA_RESIDENT
#define CK_GA_PARENTS __local
#define CK_GA_DOMAIN __local
#define CK_GA_FITNESS __local
#define CK_GA_CHILD
/* A resident individual's row: an odd number of 4-gene quads, so that the
 * rows of random parents spread over the local memory's banks. */
#define CK_GA_ROW ((((CK_DIM) + 3) / 4 | 1) * 4)
#endif
#include "ck_best.h"
#include "ck_evaluate.h"
#include "ck_ga.h"
#if CK_LANES > 1
#include "ck_ga_lanes.h"
#endif

#if !defined(CK_GA_TOURNAMENT) || !defined(CK_GA_CROSSOVER) ||                 \
    !defined(CK_GA_MUTATION) || !defined(CK_GA_ELITE) ||                       \
    !defined(CK_GA_MIGRANTS) || !defined(CK_BOUNDS) ||                         \
    !defined(CK_GA_RESIDENT) || !defined(CK_GA_ISLAND) ||                      \
    !defined(CK_GA_MIGRATE_GROUP)
#error "ga.cl needs its CK_GA_ defines and CK_BOUNDS"
#endif

#ifndef CK_GA_FUSE_USER
#define CK_GA_FUSE_USER 0
#endif
#if CK_GA_FUSE_USER &&                                                         \
    (CK_OBJECTIVE != CK_OBJECTIVE_USER || CK_USER_DATA || CK_LANES > 1)
#error "CK_GA_FUSE_USER needs a user objective without data, one slot an item"
#endif

/* Objectives evaluated in the launch that makes the individual. */
#define CK_GA_STREAMED                                                         \
  (CK_OBJECTIVE < CK_OBJECTIVE_STREAMED_COUNT || CK_GA_FUSE_USER)

#if CK_GA_FUSE_USER
/* The user's objective on a child's genes in private memory (the
 * resident form holds them there): copied into a float position, as its
 * signature asks, as ck_evaluate_user does, so that the values are the
 * same bits. CK_DIM is the run's dim, so that a compiler can unroll the
 * loops and keep the genes in registers. */
static ck_real fused_user_value_of(const ck_real *child) {
  float position[CK_DIM];
  for (int d = 0; d < CK_DIM; ++d)
    position[d] = (float)child[d];
  return (ck_real)objective(position, CK_DIM);
}

/* The same at individual i of `total` (gene-major), which this work-item
 * has just written. */
static ck_real fused_user_value(ulong i, uint total,
                                __global const ck_real *genes) {
  ck_real child[CK_DIM];
  for (int d = 0; d < CK_DIM; ++d)
    child[d] = genes[(ulong)d * total + i];
  return fused_user_value_of(child);
}
#endif
/* The resident copy's reals a slot, and gene d of slot i in it: in rows
 * (CK_GA_ROW), or gene-major in the vector form, where the lanes' slots
 * are neighbours. */
#if CK_GA_RESIDENT && CK_LANES > 1
#define CK_GA_RESIDENT_STRIDE CK_DIM
#define CK_GA_RESIDENT_AT(i, d) ((uint)(d) * CK_GA_ISLAND + (i))
#elif CK_GA_RESIDENT
#define CK_GA_RESIDENT_STRIDE CK_GA_ROW
#define CK_GA_RESIDENT_AT(i, d) ((i) * CK_GA_ROW + (uint)(d))
#else
#define CK_GA_RESIDENT_AT(i, d) ((i) + (uint)(d)) /* no resident copy */
#endif
/* The island whose streams island i draws from: first_island + i, where
 * a spread run's device holds islands from first_island on. The host
 * defines CK_GA_FIRST_ISLAND_ZERO where that is 0 (one device), which
 * keeps the sum out of the kernel: NVIDIA's OpenCL runs the global-memory
 * form a quarter slower with it. */
#ifndef CK_GA_FIRST_ISLAND_ZERO
#define CK_GA_FIRST_ISLAND_ZERO 0
#endif
#define CK_GA_STREAM_ISLAND(i)                                                 \
  (CK_GA_FIRST_ISLAND_ZERO ? (i) : first_island + (i))

#define CK_GA_CHOSEN_MAX                                                       \
  (CK_GA_ELITE > CK_GA_MIGRANTS ? CK_GA_ELITE : CK_GA_MIGRANTS)

/* Work-item g draws individual g of generation 0, from the stream of
 * individual first + g of the whole run. */
__kernel void ck_ga_initialise(uint total, uint first, int dim, ulong seed,
                               __global const ck_real *lo,
                               __global const ck_real *hi,
                               __global ck_real *population,
                               __global ck_real *fitness) {
  uint g = (uint)get_global_id(0);
  if (g >= total)
    return;
  ck_real value = ck_ga_initialise_individual(CK_OBJECTIVE, g, first, dim,
                                              total, seed, lo, hi, population);
#if CK_GA_FUSE_USER
  value = fused_user_value(g, total, population);
#endif
  fitness[g] = CK_GA_STREAMED ? ck_comparable(value) : CK_R(CK_REAL_MAX);
}

/*
 * A work-group of `width` work-items (a constant where it is called)
 * picks `count` individuals of an island in (fitness, index) order, best
 * first (worst first when `worst`), into chosen[]: one group minimum a
 * pick, skipping those already picked.
 */
static void ck_ga_pick(uint width, __global const ck_real *fitness, uint size,
                       uint count, int worst, __local uint *chosen,
                       __local ck_real *values, __local uint *indices, uint l) {
  for (uint pick = 0; pick < count; ++pick) {
    ck_real best = CK_R(CK_REAL_MAX);
    uint best_index = 0xFFFFFFFFu;
    for (uint i = l; i < size; i += width) {
      int taken = 0;
      for (uint k = 0; k < pick; ++k)
        taken |= chosen[k] == i;
      /* The worst by (value, index) is the best of the mirrored order. */
      ck_real key = worst ? -fitness[i] : fitness[i];
      uint key_index = worst ? 0xFFFFFFFEu - i : i;
      if (!taken && ck_better(key, key_index, best, best_index)) {
        best = key;
        best_index = key_index;
      }
    }
    ck_best_minimum_of(width, values, indices, l, best, best_index);
    if (l == 0)
      chosen[pick] = worst ? 0xFFFFFFFEu - indices[0] : indices[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/*
 * The group writes the island's best and mean fitness into stats[slot],
 * and keeps the island's best so far (value and genes, these dimension-
 * major over islands) when this generation beats it, so that no best is
 * lost between host reads, elitism or not. The minimum and the sum share
 * one halving tree (values/indices and sums); on return indices[0] holds
 * the island's best slot, which the resident kernel takes as the next
 * generation's elite when it keeps one.
 */
static void ck_ga_island_stats(
    __global const ck_real *fitness, __global const ck_real *population,
    uint size, uint islands, uint island, int dim, __global ck_real *stats,
    uint slot, __global ck_real *island_best,
    __global ck_real *island_best_genes, __local const ck_real *resident,
    int from_resident, __local ck_real *values, __local uint *indices,
    __local ck_real *sums, __local uint *improved, uint l) {
  uint total = islands * size, first = island * size;
  ck_real best = CK_R(CK_REAL_MAX), sum = CK_R(0);
  uint best_index = 0xFFFFFFFFu;
  for (uint i = l; i < size; i += CK_GROUP) {
    sum += fitness[first + i];
    if (ck_better(fitness[first + i], i, best, best_index)) {
      best = fitness[first + i];
      best_index = i;
    }
  }
  values[l] = best;
  indices[l] = best_index;
  sums[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_GROUP / 2; width > 0; width >>= 1) {
    if (l < width) {
      if (ck_better(values[l + width], indices[l + width], values[l],
                    indices[l])) {
        values[l] = values[l + width];
        indices[l] = indices[l + width];
      }
      sums[l] += sums[l + width];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  ck_real island_value = values[0];
  uint winner = indices[0];
  if (l == 0)
    *improved = island_value < island_best[island] ? 1u : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (*improved) {
    /* The genes come from the resident copy when the island lives in
     * local memory, else from the population buffer. */
    for (int d = (int)l; d < dim; d += CK_GROUP)
      island_best_genes[(ulong)d * islands + island] =
          from_resident ? resident[CK_GA_RESIDENT_AT(winner, d)]
                        : population[(ulong)d * total + first + winner];
  }
  if (l == 0) {
    ulong at = ((ulong)slot * islands + island) * 2;
    stats[at] = island_value;
    stats[at + 1] = sums[0] / (ck_real)size;
    if (*improved)
      island_best[island] = island_value;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/*
 * ck_ga_evolve's parameters, the same in both forms. Island i draws from
 * the streams of island first_island + i of the whole run (a spread run's
 * device holds islands from first_island on). `migration` (bits
 * CK_GA_IMMIGRATE and CK_GA_EMIGRATE, ck_ga_migration.h) asks the
 * resident form to receive the migration made after the previous launch
 * (from migration_source and the migrant buffers *_in) and to send this
 * launch's migrants (to *_out, another set, which no island of the launch
 * reads); it is 0 for the global-memory form, whose islands migrate in
 * the migration kernels below.
 */
#define CK_GA_EVOLVE_PARAMETERS                                                \
  uint islands, uint size, int dim, ulong seed, ulong first_generation,        \
      uint generations, ck_real crossover_rate, ck_real crossover_parameter,   \
      ck_real mutation_rate, ck_real mutation_parameter,                       \
      __global const ck_real *lo, __global const ck_real *hi,                  \
      __global ck_real *population_a, __global ck_real *population_b,          \
      __global ck_real *fitness_a, __global ck_real *fitness_b,                \
      __global ck_real *stats, uint stats_slot, __global ck_real *island_best, \
      __global ck_real *island_best_genes, ck_real inverse_log_keep,           \
      uint first_island, uint migration,                                       \
      __global const ck_real *migrants_in,                                     \
      __global const ck_real *migrant_fitness_in,                              \
      __global ck_real *migrants_out, __global ck_real *migrant_fitness_out,   \
      __global const uint *migration_source

#if CK_GA_RESIDENT
/*
 * The resident form of ck_ga_evolve, for streamed objectives whose islands
 * fit in local memory with one slot a work-item: work-group i loads island
 * i's genes into local memory once, in rows (CK_GA_ROW), with the
 * island's fitness and the domain's bounds; then for each generation
 * work-item l crosses the child of slot l in private memory (the elite
 * copies its elite; the dimension is a build constant, so the gene loop
 * unrolls and the child stays in registers), the group waits until every
 * parent has been read, and each work-item writes its child over its slot,
 * adds its mutations there where they fall, reads it back to bound and
 * evaluate it (ck_ga_finish_child), and writes its fitness. Fitness also goes
 * to global memory every generation, for the statistics; the genes go back to
 * global memory only in the launch's last generation, into the buffer it
 * writes (the other buffer is not read before a launch writes it again).
 * The migrations that border the launch are made here (`migration`): the
 * island receives after its load and sends after its last generation.
 */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_ga_evolve(CK_GA_EVOLVE_PARAMETERS) {
  CK_LOCAL ck_real values[CK_GROUP];
  CK_LOCAL uint indices[CK_GROUP];
  CK_LOCAL ck_real sums[CK_GROUP];
  CK_LOCAL uint chosen[CK_GA_CHOSEN_MAX + 1];
  CK_LOCAL uint improved;
  CK_LOCAL ck_real genes[CK_GA_ISLAND * CK_GA_RESIDENT_STRIDE]
      __attribute__((aligned(4 * sizeof(ck_real))));
  CK_LOCAL ck_real lo_local[CK_DIM]
      __attribute__((aligned(4 * sizeof(ck_real))));
  CK_LOCAL ck_real hi_local[CK_DIM]
      __attribute__((aligned(4 * sizeof(ck_real))));
  CK_LOCAL ck_real fitness[CK_GA_ISLAND];
  uint island = (uint)get_group_id(0);
  uint l = (uint)get_local_id(0);
  for (uint d = l; d < CK_DIM; d += CK_GROUP) {
    lo_local[d] = lo[d];
    hi_local[d] = hi[d];
  }
  uint total = islands * size, first = island * size;
  __global const ck_real *source =
      (first_generation & 1) ? population_a : population_b;
  __global ck_real *source_fitness =
      (first_generation & 1) ? fitness_a : fitness_b;
  for (uint i = l; i < size; i += CK_GROUP) {
    for (int d = 0; d < CK_DIM; ++d)
      genes[CK_GA_RESIDENT_AT(i, d)] = source[(ulong)d * total + first + i];
    fitness[i] = source_fitness[first + i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (migration & CK_GA_IMMIGRATE) {
    /* As ck_ga_immigrate: the MIGRANTS worst, worst first, take the
     * migrants of island migration_source[island], best first; here in
     * the local copy, and in the fitness buffer, which the first
     * generation's elite pick reads. Its genes there stay as they were:
     * the launch's last generation writes the other buffer or over them. */
    ck_ga_pick(CK_GROUP, source_fitness + first, size, CK_GA_MIGRANTS, 1,
               chosen, values, indices, l);
    ulong from = (ulong)migration_source[island] * CK_GA_MIGRANTS;
    for (uint k = 0; k < CK_GA_MIGRANTS; ++k) {
      uint i = chosen[k];
      if (i % CK_GROUP == l) {
        for (int d = 0; d < CK_DIM; ++d)
          genes[CK_GA_RESIDENT_AT(i, d)] = migrants_in[(from + k) * CK_DIM + d];
        fitness[i] = migrant_fitness_in[from + k];
        source_fitness[first + i] = fitness[i];
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  }
  for (uint t = 0; t < generations; ++t) {
    ulong generation = first_generation + t;
    int odd = (int)(generation & 1);
    __global ck_real *next_fitness = odd ? fitness_b : fitness_a;
    /* With one elite, the previous generation's statistics already found
     * it (indices[0], same order), and the pick's reduction is skipped. */
    int elite_known = CK_GA_ELITE == 1 && t > 0;
    if (!elite_known)
      ck_ga_pick(CK_GROUP, odd ? fitness_a + first : fitness_b + first, size,
                 CK_GA_ELITE, 0, chosen, values, indices, l);
#if CK_LANES > 1
    /* The vector form: work-item l makes the children of slots first_slot
     * .. first_slot + CK_LANES - 1, one a lane; elite slots' lanes take
     * their elites (frozen, and their fitness kept). */
    uint first_slot = l * CK_LANES;
    ck_u32_lanes slots = (ck_u32_lanes)first_slot + CK_LANE_OFFSETS;
    ck_real_lanes child[CK_DIM];
    ck_ga_child_draws_lanes draws;
    ck_ga_draw_child_lanes(CK_GA_TOURNAMENT, CK_GA_CROSSOVER, crossover_rate,
                           seed, CK_GA_STREAM_ISLAND(island), first_slot,
                           generation, size, CK_DIM,
                           fitness, &draws);
    ck_ga_cross_child_lanes(CK_GA_CROSSOVER, crossover_parameter, seed, &draws,
                            genes, child);
    ck_mask_lanes frozen = ck_convert_real_lanes(slots) < (ck_real)CK_GA_ELITE;
    ck_real_lanes elite_value = (ck_real_lanes)CK_R(0);
    if (any(frozen)) {
      /* Lanes past the elites read slot 0's pick, and keep their own. */
      ck_u32_lanes pick = select((ck_u32_lanes)0u, slots,
                                 CK_WORD_MASK_LANES(frozen));
      ck_u32_lanes elite = elite_known ? (ck_u32_lanes)indices[0]
                                       : CK_GATHER_LANES_OF(ck_u32_lanes, chosen, pick);
      for (int d = 0; d < CK_DIM; ++d)
        child[d] = frozen ? CK_GATHER_LANES(genes + d * CK_GA_ISLAND, elite)
                          : child[d];
      elite_value = CK_GATHER_LANES(fitness, elite);
    }
    /* Every parent has been read before any slot is overwritten. */
    barrier(CLK_LOCAL_MEM_FENCE);
    ck_real_lanes value = ck_ga_finish_lanes(
        CK_OBJECTIVE, CK_BOUNDS, CK_GA_MUTATION, mutation_rate,
        mutation_parameter, inverse_log_keep, seed, &draws, generation, frozen,
        lo_local, hi_local, child);
    value = frozen ? elite_value : CK_COMPARABLE(value);
    __global ck_real *next = odd ? population_b : population_a;
    CK_UNROLL
    for (int d = 0; d < CK_DIM; ++d) {
      ck_store_lanes(child[d], 0, genes + d * CK_GA_ISLAND + first_slot);
      if (t + 1 == generations)
        ck_store_lanes(child[d], 0, next + (ulong)d * total + first + first_slot);
    }
    ck_store_lanes(value, 0, fitness + first_slot);
    ck_store_lanes(value, 0, next_fitness + first + first_slot);
#else
    ck_real child[CK_DIM];
    ck_real value = CK_R(0);
    ck_ga_child_draws draws = {0};
    if (l < CK_GA_ELITE) {
      uint elite = elite_known ? indices[0] : chosen[l];
      CK_UNROLL
      for (int d = 0; d < CK_DIM; ++d)
        child[d] = genes[elite * CK_GA_ROW + d];
      value = fitness[elite];
    } else if (l < size) {
      draws =
          ck_ga_draw_child(CK_GA_TOURNAMENT, CK_GA_CROSSOVER, crossover_rate,
                           seed, CK_GA_STREAM_ISLAND(island), l, generation,
                           size, CK_DIM, fitness);
      ck_ga_cross_chunk(CK_GA_CROSSOVER, crossover_parameter, seed, &draws, 0,
                        CK_DIM, genes + draws.a * CK_GA_ROW,
                        genes + draws.b * CK_GA_ROW, 1, child);
    }
    /* Every parent has been read before any slot is overwritten. */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < size) {
      __local ck_real *row = genes + l * CK_GA_ROW;
      if (l < CK_GA_ELITE) {
        CK_UNROLL
        for (int d = 0; d < CK_DIM; ++d)
          row[d] = child[d];
      } else {
        value = ck_comparable(ck_ga_finish_child(
            CK_OBJECTIVE, CK_BOUNDS, CK_GA_CROSSOVER, CK_GA_MUTATION,
            mutation_rate, mutation_parameter, inverse_log_keep, seed, &draws,
            generation, CK_DIM, lo_local, hi_local, row, child));
#if CK_GA_FUSE_USER
        /* child holds the bounded genes that the slot now holds. */
        value = ck_comparable(fused_user_value_of(child));
#endif
      }
      __global ck_real *next = odd ? population_b : population_a;
      if (t + 1 == generations) {
        CK_UNROLL
        for (int d = 0; d < CK_DIM; ++d)
          next[(ulong)d * total + first + l] = child[d];
      }
      fitness[l] = value;
      next_fitness[first + l] = value;
    }
#endif
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    ck_ga_island_stats(next_fitness, population_a, size, islands, island, dim,
                       stats, stats_slot + t, island_best, island_best_genes,
                       genes, 1, values, indices, sums, &improved, l);
  }
  if (migration & CK_GA_EMIGRATE) {
    /* As ck_ga_emigrate, from the local copy of the last generation. */
    ulong last = first_generation + generations - 1;
    ck_ga_pick(CK_GROUP, ((last & 1) ? fitness_b : fitness_a) + first, size,
               CK_GA_MIGRANTS, 0, chosen, values, indices, l);
    /* Each migrant copied by the work-item of its slot (when the group
     * shared each copy out, PoCL 3.1 wrote the first migrant's genes
     * only). */
    for (uint k = 0; k < CK_GA_MIGRANTS; ++k) {
      uint i = chosen[k];
      if (i % CK_GROUP == l) {
        ulong to = (ulong)island * CK_GA_MIGRANTS + k;
        for (int d = 0; d < CK_DIM; ++d)
          migrants_out[to * CK_DIM + d] = genes[CK_GA_RESIDENT_AT(i, d)];
        migrant_fitness_out[to] = fitness[i];
      }
    }
  }
}

#else
/*
 * Work-group i evolves island i through `generations` generations from
 * first_generation on. Generation t reads population and fitness A when t
 * is odd and writes B, and the other way round when t is even. Each
 * generation: the elites are copied to slots 0 .. ELITE-1 unchanged, every
 * other slot gets a child (evaluated in the same pass for streamed
 * objectives), and the island's best and mean go to stats[stats_slot + t].
 */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_ga_evolve(CK_GA_EVOLVE_PARAMETERS) {
  CK_LOCAL ck_real values[CK_GROUP];
  CK_LOCAL uint indices[CK_GROUP];
  CK_LOCAL ck_real sums[CK_GROUP];
  CK_LOCAL uint chosen[CK_GA_CHOSEN_MAX + 1];
  CK_LOCAL uint improved;
  uint island = (uint)get_group_id(0);
  uint l = (uint)get_local_id(0);
  uint total = islands * size, first = island * size;
  for (uint t = 0; t < generations; ++t) {
    ulong generation = first_generation + t;
    int odd = (int)(generation & 1);
    __global const ck_real *current = odd ? population_a : population_b;
    __global ck_real *next = odd ? population_b : population_a;
    __global const ck_real *current_fitness = odd ? fitness_a : fitness_b;
    __global ck_real *next_fitness = odd ? fitness_b : fitness_a;
    ck_ga_pick(CK_GROUP, current_fitness + first, size, CK_GA_ELITE, 0, chosen,
               values, indices, l);
    for (uint slot = l; slot < size; slot += CK_GROUP) {
      if (slot < CK_GA_ELITE) {
        uint elite = first + chosen[slot];
        for (int d = 0; d < dim; ++d)
          next[(ulong)d * total + first + slot] =
              current[(ulong)d * total + elite];
        next_fitness[first + slot] = current_fitness[elite];
      } else {
        ck_real value = ck_ga_make_child(
            CK_OBJECTIVE, CK_BOUNDS, CK_GA_TOURNAMENT, CK_GA_CROSSOVER,
            crossover_rate, crossover_parameter, CK_GA_MUTATION, mutation_rate,
            mutation_parameter, inverse_log_keep, seed,
            CK_GA_STREAM_ISLAND(island), slot, generation, size, CK_DIM, lo,
            hi, current + first, 1, total, current_fitness + first,
            next + first + slot, total);
#if CK_GA_FUSE_USER
        value = fused_user_value(first + slot, total, next);
#endif
        next_fitness[first + slot] =
            CK_GA_STREAMED ? ck_comparable(value) : CK_R(CK_REAL_MAX);
      }
    }
    /* The next generation reads what this one wrote. */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
#if CK_GA_STREAMED
    ck_ga_island_stats(next_fitness, next, size, islands, island, dim, stats,
                       stats_slot + t, island_best, island_best_genes, values,
                       0, values, indices, sums, &improved, l);
#endif
  }
#if !CK_GA_STREAMED
  (void)stats;
  (void)stats_slot;
  (void)island_best;
  (void)island_best_genes;
  (void)improved;
#endif
  (void)migration;
  (void)migrants_in;
  (void)migrant_fitness_in;
  (void)migrants_out;
  (void)migrant_fitness_out;
  (void)migration_source;
}

#endif

/* Sums of the islands' means: in double where the device has it. */
#if CK_HAS_FP64
typedef double ck_ga_sum;
#else
typedef ck_real ck_ga_sum;
#endif

/*
 * Work-group i folds statistics slot i over the islands: the best of the
 * islands' bests into folded[2 i] and the mean of their means into
 * folded[2 i + 1], so that the host reads two values a generation, not
 * two an island. Work-item l takes islands l, l + CK_GROUP, ... in order;
 * then a halving tree over the work-items that took any. The best is the
 * host fold's exactly (a minimum); the mean may differ from it in its last
 * bits (another order of summation).
 */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_ga_fold_stats(uint islands, __global const ck_real *stats,
                 __global ck_real *folded) {
  CK_LOCAL ck_real bests[CK_GROUP];
  CK_LOCAL ck_ga_sum sums[CK_GROUP];
  uint slot = (uint)get_group_id(0), l = (uint)get_local_id(0);
  uint taking = islands < CK_GROUP ? islands : CK_GROUP;
  __global const ck_real *row = stats + (ulong)slot * islands * 2;
  if (l < taking) {
    ck_real best = row[2 * l];
    ck_ga_sum sum = (ck_ga_sum)row[2 * l + 1];
    for (uint island = l + CK_GROUP; island < islands; island += CK_GROUP) {
      ck_real value = row[2 * (ulong)island];
      best = value < best ? value : best;
      sum += (ck_ga_sum)row[2 * (ulong)island + 1];
    }
    bests[l] = best;
    sums[l] = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CK_GROUP / 2; width > 0; width >>= 1) {
    if (l < width && l + width < taking) {
      bests[l] = bests[l + width] < bests[l] ? bests[l + width] : bests[l];
      sums[l] += sums[l + width];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    folded[2 * slot] = bests[0];
    folded[2 * slot + 1] = (ck_real)(sums[0] / (ck_ga_sum)islands);
  }
}

/* Generation 0, and objectives evaluated by ck_evaluate.h: work-group i
 * records island i's statistics once its fitness is known. */
__kernel __attribute__((reqd_work_group_size(CK_GROUP, 1, 1))) void
ck_ga_stats(uint islands, uint size, int dim, __global const ck_real *fitness,
            __global const ck_real *population, __global ck_real *stats,
            uint slot, __global ck_real *island_best,
            __global ck_real *island_best_genes) {
  CK_LOCAL ck_real values[CK_GROUP];
  CK_LOCAL uint indices[CK_GROUP];
  CK_LOCAL ck_real sums[CK_GROUP];
  CK_LOCAL uint improved;
  ck_ga_island_stats(fitness, population, size, islands, (uint)get_group_id(0),
                     dim, stats, slot, island_best, island_best_genes, values,
                     0, values, indices, sums, &improved,
                     (uint)get_local_id(0));
}

/* The migration step where islands are not resident (ck_ga_evolve makes
 * it otherwise), and for a migration asked for on its own.
 * Work-group i copies the MIGRANTS best of island i, best first, into
 * slots i * MIGRANTS + k of the migrant buffers; work-item l scans slots
 * l, l + CK_GA_MIGRATE_GROUP, ... for each pick, and copies genes l,
 * l + CK_GA_MIGRATE_GROUP, ... */
__kernel __attribute__((reqd_work_group_size(CK_GA_MIGRATE_GROUP, 1, 1))) void
ck_ga_emigrate(uint islands, uint size, int dim,
               __global const ck_real *population,
               __global const ck_real *fitness, __global ck_real *migrants,
               __global ck_real *migrant_fitness) {
  CK_LOCAL ck_real values[CK_GA_MIGRATE_GROUP];
  CK_LOCAL uint indices[CK_GA_MIGRATE_GROUP];
  CK_LOCAL uint chosen[CK_GA_CHOSEN_MAX + 1];
  uint island = (uint)get_group_id(0), l = (uint)get_local_id(0);
  uint total = islands * size, first = island * size;
  ck_ga_pick(CK_GA_MIGRATE_GROUP, fitness + first, size, CK_GA_MIGRANTS, 0,
             chosen, values, indices, l);
  for (uint k = 0; k < CK_GA_MIGRANTS; ++k) {
    uint from = first + chosen[k];
    ulong to = (ulong)island * CK_GA_MIGRANTS + k;
    for (int d = (int)l; d < dim; d += CK_GA_MIGRATE_GROUP)
      migrants[to * dim + d] = population[(ulong)d * total + from];
    if (l == 0)
      migrant_fitness[to] = fitness[from];
  }
}

/* Work-group i replaces the MIGRANTS worst of island i, worst first, with
 * the migrants of island source[i], best first; its work-items share the
 * work as ck_ga_emigrate's do. */
__kernel __attribute__((reqd_work_group_size(CK_GA_MIGRATE_GROUP, 1, 1))) void
ck_ga_immigrate(uint islands, uint size, int dim, __global ck_real *population,
                __global ck_real *fitness, __global const ck_real *migrants,
                __global const ck_real *migrant_fitness,
                __global const uint *source) {
  CK_LOCAL ck_real values[CK_GA_MIGRATE_GROUP];
  CK_LOCAL uint indices[CK_GA_MIGRATE_GROUP];
  CK_LOCAL uint chosen[CK_GA_CHOSEN_MAX + 1];
  uint island = (uint)get_group_id(0), l = (uint)get_local_id(0);
  uint total = islands * size, first = island * size;
  ck_ga_pick(CK_GA_MIGRATE_GROUP, fitness + first, size, CK_GA_MIGRANTS, 1,
             chosen, values, indices, l);
  /* Every work-item has read the island's fitness before any slot of it
   * is overwritten. */
  barrier(CLK_GLOBAL_MEM_FENCE);
  uint from_island = source[island];
  for (uint k = 0; k < CK_GA_MIGRANTS; ++k) {
    uint to = first + chosen[k];
    ulong from = (ulong)from_island * CK_GA_MIGRANTS + k;
    for (int d = (int)l; d < dim; d += CK_GA_MIGRATE_GROUP)
      population[(ulong)d * total + to] = migrants[from * dim + d];
    if (l == 0)
      fitness[to] = migrant_fitness[from];
  }
}
