/*
 * ck_ga.h - one child of the island-model genetic algorithm, written once
 * for the OpenCL kernels (a work-item a child slot) and the ref steps (a
 * loop over islands and slots).
 *
 * Layout: the population is dimension-major, gene d of individual g (g =
 * island * size + slot) at d * total + g, so that neighbouring work-items
 * of an island touch neighbouring addresses.
 *
 * Random draws: Philox keyed by the seed and the stream (island << 32 |
 * slot), the island numbered in the whole run, where a spread run deals
 * islands to several devices (callers add the device's first island).
 * Per generation a child uses counters generation * (header blocks + gene
 * blocks) + ...: the header words (one block per four) pick the
 * tournament entrants (2k words), decide crossover and weigh the
 * arithmetic blend; BLX and SBX take one word per gene (one block per four
 * genes). Mutations are placed by geometric gaps (the same law as one
 * Bernoulli(pm) trial per gene, at a draw per mutation rather than per
 * gene), on the stream with bit 62 set, four at a time: refill r of a
 * generation takes the blocks generation * 2 (ceil(dim / 4) + 1) + 2r
 * (four gaps) and + 2r + 1 (four steps). Bounds redraws use the stream
 * with bit 63 set.
 */
#ifndef CK_GA_H
#define CK_GA_H

#include "ck_best.h"
#include "ck_bounds.h"
#include "ck_ga_migration.h"
#include "ck_objectives.h"
#include "ck_philox.h"

/* Address spaces of a child's parents, of the domain's bounds, of the
 * island's fitness and of the child itself: global memory, unless ga.cl
 * keeps an island, its fitness and the bounds resident in local memory
 * and the child in private memory. */
#ifndef CK_GA_PARENTS
#define CK_GA_PARENTS CK_GLOBAL
#endif
#ifndef CK_GA_DOMAIN
#define CK_GA_DOMAIN CK_GLOBAL
#endif
#ifndef CK_GA_FITNESS
#define CK_GA_FITNESS CK_GLOBAL
#endif
#ifndef CK_GA_CHILD
#define CK_GA_CHILD CK_GLOBAL
#endif

#define CK_GA_CROSSOVER_ARITH 0
#define CK_GA_CROSSOVER_BLX 1
#define CK_GA_CROSSOVER_SBX 2
#define CK_GA_MUTATION_GAUSS 0
#define CK_GA_MUTATION_POLY 1

CK_FN ck_u64 ck_ga_stream(ck_u32 island, ck_u32 slot) {
  return ((ck_u64)island << 32) | (ck_u64)slot;
}

/* Header words of one child: 2k tournament picks, crossover, weight. */
CK_FN ck_u32 ck_ga_header_words(int tournament) {
  return 2u * (ck_u32)tournament + 2u;
}

/* Word w of a block sequence from counter base on: block w / 4. */
CK_FN ck_u32 ck_ga_word(ck_u64 seed, ck_u64 stream, ck_u64 base, ck_u32 w) {
  return ck_philox_word(ck_philox_block(seed, stream, base + (ck_u64)(w >> 2)),
                        w & 3u);
}

/* Blocks taken by n words. */
CK_FN ck_u32 ck_ga_blocks(ck_u32 words) {
  return (words + 3u) >> 2;
}

/* 1 / log2(1 - pm), which turns a uniform draw into a geometric gap (any
 * value where pm is 0 or 1, which draw no gaps). */
CK_FN ck_real ck_ga_inverse_log_keep(ck_real rate) {
  return rate > CK_R(0) && rate < CK_R(1) ? CK_R(1) / CK_LOG2(CK_R(1) - rate)
                                          : CK_R(-1);
}

/* The per-gene steps, scalar; cl/ck_ga_lanes.h makes them over vectors
 * of children. */
#define CK_TEMPLATE_REAL ck_real
#define CK_TEMPLATE_WORD ck_u32
#define CK_TEMPLATE_INDEX int
#define CK_TEMPLATE_CONVERT(word) ((ck_real)(word))
#define CK_TEMPLATE_TO_INDEX(x) ((int)(x))
#define CK_TEMPLATE_MULHI(a, b) CK_MULHI32(a, b)
#define CK_TEMPLATE_LOG2(x) CK_LOG2(x)
#define CK_TEMPLATE_POW(x, y) CK_POW_POSITIVE(x, y)
#define CK_TEMPLATE_SQRT(x) CK_SQRT(x)
#define CK_TEMPLATE_COS_2PI(x) CK_COS_2PI(x)
#define CK_TEMPLATE_SIN_2PI(x) CK_SIN_2PI(x)
#define CK_TEMPLATE_NAME(name) name
#include "ck_ga_genes.inc"

/*
 * Tournament of k entrants drawn with replacement from the island: the
 * best by (fitness, index) wins. `which` (0 or 1) selects the parent.
 */
/* Word w of the header, from its first two blocks when w < 8 (k <= 3, the
 * usual case: no block is computed twice), else computed afresh. */
CK_FN ck_u32 ck_ga_header_word(ck_philox_counter h0, ck_philox_counter h1,
                               ck_u64 seed, ck_u64 stream, ck_u64 base,
                               ck_u32 w) {
  if (w >= 8u)
    return ck_ga_word(seed, stream, base, w);
  return ck_philox_word(w < 4u ? h0 : h1, w & 3u);
}

CK_FN ck_u32 ck_ga_tournament_from(int k, int which, ck_u32 size,
                                   ck_philox_counter h0, ck_philox_counter h1,
                                   ck_u64 seed, ck_u64 stream, ck_u64 base,
                                   CK_GA_FITNESS const ck_real *fitness) {
  ck_u32 winner = ck_ga_index(
      ck_ga_header_word(h0, h1, seed, stream, base, (ck_u32)(which * k)), size);
  for (int t = 1; t < k; ++t) {
    ck_u32 entrant = ck_ga_index(
        ck_ga_header_word(h0, h1, seed, stream, base, (ck_u32)(which * k + t)),
        size);
    if (ck_better(fitness[entrant], entrant, fitness[winner], winner))
      winner = entrant;
  }
  return winner;
}

CK_FN ck_u32 ck_ga_tournament(int k, int which, ck_u32 size, ck_u64 seed,
                              ck_u64 stream, ck_u64 base,
                              CK_GA_FITNESS const ck_real *fitness) {
  return ck_ga_tournament_from(
      k, which, size, ck_philox_block(seed, stream, base),
      ck_philox_block(seed, stream, base + 1u), seed, stream, base, fitness);
}

/* Gene d of a child: its parents' genes pa and pb crossed when `cross`
 * is set (else pa). BLX and SBX take word d of the gene blocks from
 * genes_base on, *r holding the current block (refilled every fourth
 * gene, so genes go in order). */
CK_FN ck_real ck_ga_cross_gene(int kind, int cross, ck_real pa, ck_real pb,
                               ck_u64 seed, ck_u64 stream, ck_u64 genes_base,
                               int d, ck_philox_counter *r, ck_real weight,
                               ck_real parameter) {
  if (!cross)
    return pa;
  ck_u32 word = 0u;
  if (kind != CK_GA_CROSSOVER_ARITH) {
    if ((d & 3) == 0)
      *r = ck_philox_block(seed, stream, genes_base + (ck_u64)(d >> 2));
    word = ck_philox_word(*r, (ck_u32)d & 3u);
  }
  return ck_ga_cross(kind, pa, pb, ck_uniform_real(word), weight, parameter);
}

/* The step of a polynomial mutation from one word (no gaussian here). */
#define CK_GA_POLY_STEP(word, eta)                                             \
  ck_ga_mutation_step(CK_GA_MUTATION_POLY, (word), 0u, (eta))

/* Whether a child has mutations left after the one at `last`: none at
 * pm = 0, nor past the last gene. */
CK_FN int ck_ga_mutations_left(ck_real rate, int last, int dim) {
  return rate > CK_R(0) && last + 1 < dim;
}

/* Step k (0 to 3, a constant once unrolled) of a refill's four, in units
 * of the range, from its block of steps: polynomial from word k, or
 * gaussian from the Box-Muller pair of words k & ~1 and k | 1, computed
 * at the even k into *pair_first and *pair_second and read back at the
 * odd k after it. ck_ga_draw_mutations takes all four steps,
 * ck_ga_mutate_row_refill only as many as its mutations use. */
CK_FN ck_real ck_ga_refill_step(int kind, ck_real parameter,
                                ck_philox_counter steps, int k,
                                ck_real *pair_first, ck_real *pair_second) {
  if (kind == CK_GA_MUTATION_POLY)
    return CK_GA_POLY_STEP(ck_philox_word(steps, (ck_u32)k), parameter);
  if ((k & 1) == 0)
    ck_ga_gaussian_pair(ck_philox_word(steps, (ck_u32)k),
                        ck_philox_word(steps, (ck_u32)k + 1u), parameter,
                        pair_first, pair_second);
  return (k & 1) == 0 ? *pair_first : *pair_second;
}

/* The counter of refill r's block of gaps; its block of steps follows. */
CK_FN ck_u64 ck_ga_refill_block(ck_u64 base, ck_u32 refill) {
  return base + (ck_u64)(2u * refill);
}

/*
 * The genes of a child's next four mutations after the one at *last
 * (*at0 <= *at1 <= ..., dim for none), from the gaps of refill *refills of
 * the mutation stream (see the top of the file); moves *last to *at3 and
 * counts the refill. Returns the counter of the refill's block of steps.
 * For a child with mutations left (ck_ga_mutations_left).
 */
CK_FN ck_u64 ck_ga_draw_positions(ck_u64 seed, ck_u64 stream, ck_u64 base,
                                  ck_u32 *refills, int *last, ck_real rate,
                                  ck_real inverse_log_keep, int dim, int *at0,
                                  int *at1, int *at2, int *at3) {
  ck_u64 at = ck_ga_refill_block(base, *refills);
  ck_philox_counter gaps = ck_philox_block(seed, stream, at);
  *refills += 1u;
  *at0 = ck_ga_after(*last, gaps.v[0], rate, inverse_log_keep, dim);
  *at1 = ck_ga_after(*at0, gaps.v[1], rate, inverse_log_keep, dim);
  *at2 = ck_ga_after(*at1, gaps.v[2], rate, inverse_log_keep, dim);
  *at3 = ck_ga_after(*at2, gaps.v[3], rate, inverse_log_keep, dim);
  *last = *at3;
  return at + 1u;
}

/*
 * The next four mutations of a child after the one at *last: their genes
 * (ck_ga_draw_positions) and steps in units of the range, from refill
 * *refills of the mutation stream. pm = 1 mutates every gene, pm = 0
 * none. Drawing four at a time, with gaussian steps in Box-Muller pairs,
 * halves the transcendental work per mutation and keeps the work-items of
 * a SIMD group in step.
 */
CK_FN void ck_ga_draw_mutations(ck_u64 seed, ck_u64 stream, ck_u64 base,
                                ck_u32 *refills, int *last, ck_real rate,
                                ck_real inverse_log_keep, int dim, int kind,
                                ck_real parameter, int *at0, int *at1, int *at2,
                                int *at3, ck_real *step0, ck_real *step1,
                                ck_real *step2, ck_real *step3) {
  *step0 = *step1 = *step2 = *step3 = CK_R(0);
  if (!ck_ga_mutations_left(rate, *last, dim)) {
    *last = *at0 = *at1 = *at2 = *at3 = dim;
    return;
  }
  /* The steps' block drawn before the gaps': the same bits, and NVIDIA's
   * OpenCL lays out the global-memory kernel far better for it. */
  ck_philox_counter steps =
      ck_philox_block(seed, stream, ck_ga_refill_block(base, *refills) + 1u);
  ck_ga_draw_positions(seed, stream, base, refills, last, rate,
                       inverse_log_keep, dim, at0, at1, at2, at3);
  ck_real pair_first = CK_R(0), pair_second = CK_R(0);
  *step0 =
      ck_ga_refill_step(kind, parameter, steps, 0, &pair_first, &pair_second);
  *step1 =
      ck_ga_refill_step(kind, parameter, steps, 1, &pair_first, &pair_second);
  *step2 =
      ck_ga_refill_step(kind, parameter, steps, 2, &pair_first, &pair_second);
  *step3 =
      ck_ga_refill_step(kind, parameter, steps, 3, &pair_first, &pair_second);
}

/*
 * What the child in slot `slot` of island `island` draws before its genes
 * in generation `generation`: its streams' counters, both tournaments'
 * winners over island_fitness, whether it crosses and the arithmetic
 * blend's weight (the header words; see the top of the file).
 */
typedef struct ck_ga_child_draws {
  ck_u64 stream, genes_base;             /* per-gene crossover words */
  ck_u64 mutation_stream, mutation_base; /* refills of four mutations */
  ck_u32 a, b;                           /* the parents' slots */
  int cross;
  ck_real weight;
} ck_ga_child_draws;

/* A child's mutation stream (bit 62 of its stream set), and the counter of
 * generation `generation`'s first refill on it (see the top of the file). */
CK_FN ck_u64 ck_ga_mutation_stream(ck_u64 stream) {
  return stream | ((ck_u64)1 << 62);
}

CK_FN ck_u64 ck_ga_mutation_base(ck_u64 generation, int dim) {
  return generation * (ck_u64)(2u * (ck_ga_blocks((ck_u32)dim) + 1u));
}

CK_FN ck_ga_child_draws ck_ga_draw_child(
    int tournament, int crossover, ck_real crossover_rate, ck_u64 seed,
    ck_u32 island, ck_u32 slot, ck_u64 generation, ck_u32 size, int dim,
    CK_GA_FITNESS const ck_real *island_fitness) {
  ck_ga_child_draws c;
  c.stream = ck_ga_stream(island, slot);
  ck_u32 header_blocks = ck_ga_blocks(ck_ga_header_words(tournament));
  ck_u32 gene_blocks =
      crossover != CK_GA_CROSSOVER_ARITH ? ck_ga_blocks((ck_u32)dim) : 0u;
  ck_u64 base = generation * (ck_u64)(header_blocks + gene_blocks);
  c.genes_base = base + header_blocks;
  /* The header's first two blocks, computed once (enough for k <= 3). */
  ck_philox_counter h0 = ck_philox_block(seed, c.stream, base);
  ck_philox_counter h1 = ck_philox_block(seed, c.stream, base + 1u);
  c.a = ck_ga_tournament_from(tournament, 0, size, h0, h1, seed, c.stream, base,
                              island_fitness);
  c.b = ck_ga_tournament_from(tournament, 1, size, h0, h1, seed, c.stream, base,
                              island_fitness);
  c.cross = ck_uniform_real(ck_ga_header_word(h0, h1, seed, c.stream, base,
                                              (ck_u32)(2 * tournament))) <
            crossover_rate;
  c.weight = ck_uniform_real(ck_ga_header_word(h0, h1, seed, c.stream, base,
                                               (ck_u32)(2 * tournament + 1)));
  c.mutation_stream = ck_ga_mutation_stream(c.stream);
  c.mutation_base = ck_ga_mutation_base(generation, dim);
  return c;
}

/* Only what the mutations of the child in slot `slot` draw from in
 * generation `generation` (its streams and the refills' counters, as
 * ck_ga_draw_child sets them); the other draws zero. */
CK_FN ck_ga_child_draws ck_ga_mutation_draws(ck_u32 island, ck_u32 slot,
                                             ck_u64 generation, int dim) {
  ck_ga_child_draws c;
  c.stream = ck_ga_stream(island, slot);
  c.genes_base = 0u;
  c.mutation_stream = ck_ga_mutation_stream(c.stream);
  c.mutation_base = ck_ga_mutation_base(generation, dim);
  c.a = c.b = 0u;
  c.cross = 0;
  c.weight = CK_R(0);
  return c;
}

/* Bit g - first set: gene g of a chunk of a child mutates
 * (ck_ga_take_mutations). One 32-bit word where the dimension, fixed
 * when the program is built, allows it: a gene's test is then one
 * instruction. CK_GA_CHUNK genes share a mask. */
#if defined(CK_DIM) && CK_DIM <= 32
typedef ck_u32 ck_ga_mutation_mask;
#define CK_GA_CHUNK CK_DIM
#else
typedef ck_u64 ck_ga_mutation_mask;
#if defined(CK_DIM) && CK_DIM <= 64
#define CK_GA_CHUNK CK_DIM
#else
#define CK_GA_CHUNK 64
#endif
#endif

/* A child's drawn mutations not yet taken: a refill of four (genes
 * ascending, dim for none) and how many of it are used. */
typedef struct ck_ga_mutation_queue {
  int at[4];
  ck_real step[4];
  int used, last;
  ck_u32 refills;
} ck_ga_mutation_queue;

/*
 * Takes child c's mutations of genes [first, end) from the queue, drawing
 * refills of four (ck_ga_draw_mutations) in order as they run out:
 * returns their mask (bit g - first for gene g) and puts their steps (in
 * units of the range) in steps[0 ..] in gene order. end - first <=
 * CK_GA_CHUNK. The queue starts with used = 4, last = -1, refills = 0.
 */
CK_FN ck_ga_mutation_mask ck_ga_take_mutations(
    ck_u64 seed, const ck_ga_child_draws *c, ck_real rate,
    ck_real inverse_log_keep, int dim, int kind, ck_real parameter, int first,
    int end, ck_ga_mutation_queue *q, ck_real *steps) {
  ck_ga_mutation_mask mutated = 0;
  int count = 0, more = 1;
  while (more) {
    if (q->used == 4) {
      if (q->last >= dim)
        break;
      ck_ga_draw_mutations(seed, c->mutation_stream, c->mutation_base,
                           &q->refills, &q->last, rate, inverse_log_keep, dim,
                           kind, parameter, &q->at[0], &q->at[1], &q->at[2],
                           &q->at[3], &q->step[0], &q->step[1], &q->step[2],
                           &q->step[3]);
      q->used = 0;
    }
    /* k is a constant once unrolled: the queue stays in registers. */
    for (int k = 0; k < 4; ++k) {
      if (more && k >= q->used) {
        if (q->at[k] < end) {
          mutated |= (ck_ga_mutation_mask)1 << (q->at[k] - first);
          steps[count++] = q->step[k];
          q->used = k + 1;
        } else {
          more = 0;
        }
      }
    }
  }
  return mutated;
}

/*
 * Crosses genes [first, end) of the child drawn in c into crossed[0 ..
 * end - first): no mutation, no bounds yet. Gene d of its parents is
 * parent_a[d * gene_stride] and parent_b[d * gene_stride]; first is a
 * multiple of four and end - first <= CK_GA_CHUNK. Genes are read four at
 * a time, a 128-bit read where the layout is rows of a multiple of four.
 */
CK_FN void ck_ga_cross_chunk(int crossover, ck_real crossover_parameter,
                             ck_u64 seed, const ck_ga_child_draws *c, int first,
                             int end, CK_GA_PARENTS const ck_real *parent_a,
                             CK_GA_PARENTS const ck_real *parent_b,
                             ck_u32 gene_stride, ck_real *crossed) {
  ck_philox_counter r;
  r.v[0] = r.v[1] = r.v[2] = r.v[3] = 0u;
  CK_UNROLL
  for (int quad = first; quad < end; quad += 4) {
    ck_real a[4], b[4];
    /* All four read together; past the chunk's end gene `quad` again, so
     * that nothing past the dimension is read. */
    for (int k = 0; k < 4; ++k) {
      int d = quad + k < end ? quad + k : quad;
      a[k] = parent_a[(ck_u64)d * gene_stride];
      b[k] = parent_b[(ck_u64)d * gene_stride];
    }
    for (int k = 0; k < 4 && quad + k < end; ++k)
      crossed[quad + k - first] = ck_ga_cross_gene(
          crossover, c->cross, a[k], b[k], seed, c->stream, c->genes_base,
          quad + k, &r, c->weight, crossover_parameter);
  }
}

/* Whether gene d is bounded: every gene after BLX or SBX, which may leave
 * the domain, but after arithmetic crossover (or none) only a mutated one.
 * An arithmetic child's gene lies between its parents' (ck_ga_cross), so
 * within the domain where the parents are, and every bounds mode leaves
 * such a gene as it is: bounding it would change no bit. */
CK_FN int ck_ga_bounds_gene(int crossover, int mutated) {
  return mutated || crossover != CK_GA_CROSSOVER_ARITH;
}

/* Gene d of the child drawn in c, put back into [low, high] by the bounds
 * mode (its random mode keyed by the child and the gene). */
CK_FN ck_real ck_ga_bound_gene(int bounds, ck_real gene, ck_real low,
                               ck_real high, ck_u64 seed,
                               const ck_ga_child_draws *c, ck_u64 generation,
                               int dim, int d) {
  return ck_bound_coordinate(bounds, gene, low, high, seed,
                             c->stream | ((ck_u64)1 << 63),
                             generation * (ck_u64)dim + (ck_u64)d);
}

/*
 * Makes the child in slot `slot` of island `island` for generation
 * `generation`: two tournaments over the island's fitness, crossover with
 * probability crossover_rate, per-gene mutation with probability
 * mutation_rate (inverse_log_keep from ck_ga_inverse_log_keep), bounds.
 * Gene d of island slot i is parents[i * slot_stride + d * gene_stride]
 * (gene-major populations: 1 and the population size; the resident
 * kernels' rows: the row length and 1), fitness from island_fitness (the
 * island's own); gene d of the child goes to child[d * child_stride].
 * Returns the objective at the child when the objective is streamed.
 *
 * Genes go in chunks of CK_GA_CHUNK (all of them when CK_DIM is defined
 * and at most 64): the chunk's mutations are marked first, so that its
 * gene loop holds no refill and unrolls when the dimension is a build
 * constant (the child then stays in registers). The resident kernels make
 * the same child in three passes instead (ck_ga_mutate_row).
 */
CK_FN ck_real ck_ga_make_child(
    int objective, int bounds, int tournament, int crossover,
    ck_real crossover_rate, ck_real crossover_parameter, int mutation,
    ck_real mutation_rate, ck_real mutation_parameter, ck_real inverse_log_keep,
    ck_u64 seed, ck_u32 island, ck_u32 slot, ck_u64 generation, ck_u32 size,
    int dim, CK_GA_DOMAIN const ck_real *lo, CK_GA_DOMAIN const ck_real *hi,
    CK_GA_PARENTS const ck_real *parents, ck_u32 slot_stride,
    ck_u32 gene_stride, CK_GA_FITNESS const ck_real *island_fitness,
    CK_GA_CHILD ck_real *child, ck_u32 child_stride) {
  ck_ga_child_draws c =
      ck_ga_draw_child(tournament, crossover, crossover_rate, seed, island,
                       slot, generation, size, dim, island_fitness);
  CK_GA_PARENTS const ck_real *parent_a = parents + c.a * slot_stride;
  CK_GA_PARENTS const ck_real *parent_b = parents + c.b * slot_stride;
  ck_ga_mutation_queue q;
  for (int k = 0; k < 4; ++k) {
    q.at[k] = dim;
    q.step[k] = CK_R(0);
  }
  q.used = 4;
  q.last = -1;
  q.refills = 0u;
  ck_real steps[CK_GA_CHUNK], crossed[CK_GA_CHUNK];
  ck_objective_state s;
  ck_objective_begin(objective, &s);
  for (int first = 0; first < dim; first += CK_GA_CHUNK) {
    int end = dim - first > CK_GA_CHUNK ? first + CK_GA_CHUNK : dim;
    ck_ga_mutation_mask mutated = ck_ga_take_mutations(
        seed, &c, mutation_rate, inverse_log_keep, dim, mutation,
        mutation_parameter, first, end, &q, steps);
    ck_ga_cross_chunk(crossover, crossover_parameter, seed, &c, first, end,
                      parent_a, parent_b, gene_stride, crossed);
    int next_step = 0;
    CK_UNROLL
    for (int d = first; d < end; ++d) {
      ck_real gene = crossed[d - first];
      int mutates = (int)((mutated >> (d - first)) & 1u);
      if (mutates)
        gene = ck_ga_mutated_gene(gene, steps[next_step++], lo[d], hi[d]);
      if (ck_ga_bounds_gene(crossover, mutates))
        gene = ck_ga_bound_gene(bounds, gene, lo[d], hi[d], seed, &c,
                                generation, dim, d);
      child[(ck_u64)d * child_stride] = gene;
      ck_objective_add(objective, &s, d, gene);
    }
  }
  return ck_objective_finish(objective, &s, dim);
}

/*
 * The resident kernels' child, made in three passes around the barrier
 * after which a child may overwrite its parent's slot, with the same
 * operations per gene in the same order as ck_ga_make_child (so the same
 * bits):
 *
 *   before the barrier, ck_ga_draw_child and ck_ga_cross_chunk over all
 *   genes, into private memory;
 *   after it, the crossed genes go to the child's own row, where
 *   ck_ga_mutate_row adds each mutation at its gene, and
 *   ck_ga_evaluate_child bounds the genes and evaluates the objective.
 *
 * A gene's mutation costs work only where one falls (one gene in 1 / pm),
 * not a test and a pending step at every gene.
 *
 * ck_ga_finish_child does all that follows the barrier.
 *
 * ck_ga_mutate_row: the mutations of the child drawn in c, in refills of
 * four (ck_ga_mutate_row_refill, with ck_ga_draw_mutations' draws made
 * only as its mutations need them), each added to gene d of `row` (its own
 * row, which may be indexed at run time) as step x (hi[d] - lo[d]), and
 * bounded there unless the third pass bounds every gene
 * (ck_ga_mutate_row_gene, one mutation).
 */
CK_FN void ck_ga_mutate_row_gene(int bounds, int crossover, ck_u64 seed,
                                 const ck_ga_child_draws *c, ck_u64 generation,
                                 int dim, CK_GA_DOMAIN const ck_real *lo,
                                 CK_GA_DOMAIN const ck_real *hi,
                                 CK_GA_PARENTS ck_real *row, int d,
                                 ck_real step) {
  ck_real gene = ck_ga_mutated_gene(row[d], step, lo[d], hi[d]);
  if (!ck_ga_bounds_gene(crossover, 0))
    gene = ck_ga_bound_gene(bounds, gene, lo[d], hi[d], seed, c, generation,
                            dim, d);
  row[d] = gene;
}

/* One refill of ck_ga_mutate_row: the four mutations after the one at
 * *last, each added to its gene of `row`, with the draws of
 * ck_ga_draw_mutations (so the same bits); moves *last and counts
 * *refills as it does. Each draw is made only once a mutation needs it:
 * the block of steps after a first gene, the second gaussian pair after a
 * third, so that a refill that places no mutation costs one block and
 * one logarithm. */
CK_FN void ck_ga_mutate_row_refill(
    int bounds, int crossover, int mutation, ck_real mutation_rate,
    ck_real mutation_parameter, ck_real inverse_log_keep, ck_u64 seed,
    const ck_ga_child_draws *c, ck_u64 generation, int dim,
    CK_GA_DOMAIN const ck_real *lo, CK_GA_DOMAIN const ck_real *hi,
    CK_GA_PARENTS ck_real *row, int *last, ck_u32 *refills) {
  if (!ck_ga_mutations_left(mutation_rate, *last, dim)) {
    *last = dim;
    return;
  }
  ck_u64 at = ck_ga_refill_block(c->mutation_base, *refills);
  ck_philox_counter gaps = ck_philox_block(seed, c->mutation_stream, at);
  *refills += 1u;
  int gene =
      ck_ga_after(*last, gaps.v[0], mutation_rate, inverse_log_keep, dim);
  *last = gene;
  if (gene >= dim)
    return;
  ck_philox_counter steps = ck_philox_block(seed, c->mutation_stream, at + 1u);
  ck_real pair_first = CK_R(0), pair_second = CK_R(0);
  CK_UNROLL
  for (int k = 0; k < 4; ++k) {
    if (k > 0) {
      gene = ck_ga_after(gene, ck_philox_word(gaps, (ck_u32)k), mutation_rate,
                         inverse_log_keep, dim);
      *last = gene;
      if (gene >= dim)
        return;
    }
    ck_real step = ck_ga_refill_step(mutation, mutation_parameter, steps, k,
                                     &pair_first, &pair_second);
    ck_ga_mutate_row_gene(bounds, crossover, seed, c, generation, dim, lo, hi,
                          row, gene, step);
  }
}

CK_FN void ck_ga_mutate_row(int bounds, int crossover, int mutation,
                            ck_real mutation_rate, ck_real mutation_parameter,
                            ck_real inverse_log_keep, ck_u64 seed,
                            const ck_ga_child_draws *c, ck_u64 generation,
                            int dim, CK_GA_DOMAIN const ck_real *lo,
                            CK_GA_DOMAIN const ck_real *hi,
                            CK_GA_PARENTS ck_real *row) {
  int last = -1;
  ck_u32 refills = 0u;
  while (last < dim)
    ck_ga_mutate_row_refill(bounds, crossover, mutation, mutation_rate,
                            mutation_parameter, inverse_log_keep, seed, c,
                            generation, dim, lo, hi, row, &last, &refills);
}

/* The third pass: the child's genes (private, read back from its row)
 * bounded in place where ck_ga_bounds_gene says so for a gene that did not
 * mutate (after arithmetic crossover ck_ga_mutate_row bounded the mutated
 * ones), and the objective there when streamed. */
CK_FN ck_real ck_ga_evaluate_child(int objective, int bounds, int crossover,
                                   ck_u64 seed, const ck_ga_child_draws *c,
                                   ck_u64 generation, int dim,
                                   CK_GA_DOMAIN const ck_real *lo,
                                   CK_GA_DOMAIN const ck_real *hi,
                                   ck_real *genes) {
  ck_objective_state s;
  ck_objective_begin(objective, &s);
  CK_UNROLL
  for (int d = 0; d < dim; ++d) {
    if (ck_ga_bounds_gene(crossover, 0))
      genes[d] = ck_ga_bound_gene(bounds, genes[d], lo[d], hi[d], seed, c,
                                  generation, dim, d);
    ck_objective_add(objective, &s, d, genes[d]);
  }
  return ck_objective_finish(objective, &s, dim);
}

/* After the barrier, the rest of a resident child drawn in c: its crossed
 * genes (`child`, private) written to its own `row`, mutated there, read
 * back, bounded and evaluated, and the bounded genes written to the row
 * again where bounds may have moved any. Returns the objective.
 * ck_ga_evaluate_row does what follows the mutations: from the read back
 * on (`child` is then scratch for the genes). */
CK_FN ck_real ck_ga_evaluate_row(int objective, int bounds, int crossover,
                                 ck_u64 seed, const ck_ga_child_draws *c,
                                 ck_u64 generation, int dim,
                                 CK_GA_DOMAIN const ck_real *lo,
                                 CK_GA_DOMAIN const ck_real *hi,
                                 CK_GA_PARENTS ck_real *row, ck_real *child) {
  CK_UNROLL
  for (int d = 0; d < dim; ++d)
    child[d] = row[d];
  ck_real value = ck_ga_evaluate_child(objective, bounds, crossover, seed, c,
                                       generation, dim, lo, hi, child);
  if (ck_ga_bounds_gene(crossover, 0)) {
    CK_UNROLL
    for (int d = 0; d < dim; ++d)
      row[d] = child[d];
  }
  return value;
}

CK_FN ck_real ck_ga_finish_child(int objective, int bounds, int crossover,
                                 int mutation, ck_real mutation_rate,
                                 ck_real mutation_parameter,
                                 ck_real inverse_log_keep, ck_u64 seed,
                                 const ck_ga_child_draws *c, ck_u64 generation,
                                 int dim, CK_GA_DOMAIN const ck_real *lo,
                                 CK_GA_DOMAIN const ck_real *hi,
                                 CK_GA_PARENTS ck_real *row, ck_real *child) {
  CK_UNROLL
  for (int d = 0; d < dim; ++d)
    row[d] = child[d];
  ck_ga_mutate_row(bounds, crossover, mutation, mutation_rate,
                   mutation_parameter, inverse_log_keep, seed, c, generation,
                   dim, lo, hi, row);
  return ck_ga_evaluate_row(objective, bounds, crossover, seed, c, generation,
                            dim, lo, hi, row, child);
}

/* Draws individual g's genes uniformly in the domain (generation 0);
 * returns the objective there when streamed. `first` is the index of
 * individual 0 in the whole run (a device's share of a spread run), whose
 * stream individual g draws from. */
CK_FN ck_real ck_ga_initialise_individual(int objective, ck_u32 g, ck_u32 first,
                                          int dim, ck_u32 total, ck_u64 seed,
                                          CK_GLOBAL const ck_real *lo,
                                          CK_GLOBAL const ck_real *hi,
                                          CK_GLOBAL ck_real *population) {
  ck_objective_state s;
  ck_objective_begin(objective, &s);
  for (int d = 0; d < dim; ++d) {
    ck_philox_counter r = ck_philox_block(
        seed, ((ck_u64)0x7FFFFFFFu << 32) | (ck_u64)(first + g), (ck_u64)d);
    ck_real gene = lo[d] + ck_uniform_real(r.v[0]) * (hi[d] - lo[d]);
    gene = gene > hi[d] ? hi[d] : gene;
    population[(ck_u64)d * total + g] = gene;
    ck_objective_add(objective, &s, d, gene);
  }
  return ck_objective_finish(objective, &s, dim);
}

#endif /* CK_GA_H */
