/*
 * ck_ga_lanes.h - the GA's children over CK_LANES slots of an island a
 * work-item, a child a lane (ck_lanes.h), for the vector form of ga.cl's
 * resident generation. The per-gene steps are ck_ga_genes.inc's template
 * made over vectors; the draws, the crossing and the mutations follow
 * ck_ga.h's ck_ga_draw_child, ck_ga_cross_chunk and ck_ga_mutate_row
 * lane by lane, so that each lane gets the bits of the child form.
 *
 * The island is resident in local memory gene-major (gene d of slot i at
 * d * CK_GA_ISLAND + i), so that the lanes' genes d, consecutive slots,
 * are one vector; parents are gathered.
 */
#ifndef CK_GA_LANES_H
#define CK_GA_LANES_H

#include "ck_ga.h"
#include "ck_lanes.h"

/* Indices as wide as the reals: what comparing two vectors of reals gives,
 * so that positions and reals select alike. */
typedef ck_mask_lanes ck_index_lanes;
#if CK_REAL_DOUBLE
#define ck_convert_index_lanes CK_LANES_PASTE(convert_long, CK_LANES)
#define CK_LOG2_LANES(x) log2(x)
#define CK_POW_POSITIVE_LANES(x, y) pow(x, y)
#define CK_COS_2PI_LANES(x) cospi(CK_R(2) * (x))
#define CK_SIN_2PI_LANES(x) sinpi(CK_R(2) * (x))
#else
#define ck_convert_index_lanes CK_LANES_PASTE(convert_int, CK_LANES)
#define CK_LOG2_LANES(x) ck_log2_lanes(x)
#define CK_POW_POSITIVE_LANES(x, y) ck_pow_positive_lanes(x, y)
#define CK_COS_2PI_LANES(x) ck_cos_2pi_lanes(x)
#define CK_SIN_2PI_LANES(x) ck_sin_2pi_lanes(x)
#endif

#define CK_TEMPLATE_REAL ck_real_lanes
#define CK_TEMPLATE_WORD ck_u32_lanes
#define CK_TEMPLATE_INDEX ck_index_lanes
#define CK_TEMPLATE_CONVERT(word) ck_convert_real_lanes(word)
#define CK_TEMPLATE_TO_INDEX(x) ck_convert_index_lanes(x)
#define CK_TEMPLATE_MULHI(a, b) CK_MULHI32_LANES(b, a)
#define CK_TEMPLATE_LOG2(x) CK_LOG2_LANES(x)
#define CK_TEMPLATE_POW(x, y) CK_POW_POSITIVE_LANES(x, y)
#define CK_TEMPLATE_SQRT(x) sqrt(x)
#define CK_TEMPLATE_COS_2PI(x) CK_COS_2PI_LANES(x)
#define CK_TEMPLATE_SIN_2PI(x) CK_SIN_2PI_LANES(x)
#define CK_TEMPLATE_NAME(name) name##_lanes
#include "ck_ga_genes.inc"

/* ck_ga_child_draws for the lanes' children; the counters' bases are the
 * same in every lane. */
typedef struct ck_ga_child_draws_lanes {
  ck_u64_lanes stream, mutation_stream;
  ck_u64 genes_base, mutation_base;
  ck_u32_lanes a, b; /* the parents' slots */
  ck_mask_lanes cross;
  ck_real_lanes weight;
} ck_ga_child_draws_lanes;

/* ck_better (ck_best.h) lane by lane; the indices (below 2^24) compared as
 * reals, exactly, so that the mask is the reals' kind. */
CK_FN ck_mask_lanes ck_better_lanes(ck_real_lanes value, ck_u32_lanes index,
                                    ck_real_lanes other_value,
                                    ck_u32_lanes other_index) {
  return (value < other_value) |
         ((value == other_value) &
          (ck_convert_real_lanes(index) < ck_convert_real_lanes(other_index)));
}

/* Word w of a child's header (ck_ga_header_word). */
CK_FN ck_u32_lanes ck_ga_header_word_lanes(const ck_philox_counter_lanes *h0,
                                           const ck_philox_counter_lanes *h1,
                                           ck_u64 seed, ck_u64_lanes stream,
                                           ck_u64 base, ck_u32 w) {
  if (w >= 8u)
    return ck_philox_block_lanes(seed, stream, base + (ck_u64)(w >> 2))
        .v[w & 3u];
  return w < 4u ? h0->v[w] : h1->v[w & 3u];
}

/* ck_ga_tournament_from over the lanes' children. */
CK_FN ck_u32_lanes ck_ga_tournament_lanes(int k, int which, ck_u32 size,
                                          const ck_philox_counter_lanes *h0,
                                          const ck_philox_counter_lanes *h1,
                                          ck_u64 seed, ck_u64_lanes stream,
                                          ck_u64 base,
                                          CK_LOCAL const ck_real *fitness) {
  ck_u32_lanes winner = ck_ga_index_lanes(
      ck_ga_header_word_lanes(h0, h1, seed, stream, base, (ck_u32)(which * k)),
      size);
  ck_real_lanes winner_fitness = CK_GATHER_LANES(fitness, winner);
  for (int t = 1; t < k; ++t) {
    ck_u32_lanes entrant = ck_ga_index_lanes(
        ck_ga_header_word_lanes(h0, h1, seed, stream, base,
                                (ck_u32)(which * k + t)),
        size);
    ck_real_lanes entrant_fitness = CK_GATHER_LANES(fitness, entrant);
    ck_mask_lanes better =
        ck_better_lanes(entrant_fitness, entrant, winner_fitness, winner);
    winner = select(winner, entrant, CK_WORD_MASK_LANES(better));
    winner_fitness = better ? entrant_fitness : winner_fitness;
  }
  return winner;
}

/* ck_ga_draw_child for the children of slots first_slot, first_slot + 1,
 * ..., one a lane, into *draws. */
CK_FN void ck_ga_draw_child_lanes(int tournament, int crossover,
                                  ck_real crossover_rate, ck_u64 seed,
                                  ck_u32 island, ck_u32 first_slot,
                                  ck_u64 generation, ck_u32 size, int dim,
                                  CK_LOCAL const ck_real *island_fitness,
                                  ck_ga_child_draws_lanes *draws) {
  ck_ga_child_draws_lanes c;
  ck_u64_lanes stream = (ck_u64_lanes)ck_ga_stream(island, first_slot) +
                        ck_convert_u64_lanes(CK_LANE_OFFSETS);
  c.stream = stream;
  ck_u32 header_blocks = ck_ga_blocks(ck_ga_header_words(tournament));
  ck_u32 gene_blocks =
      crossover != CK_GA_CROSSOVER_ARITH ? ck_ga_blocks((ck_u32)dim) : 0u;
  ck_u64 base = generation * (ck_u64)(header_blocks + gene_blocks);
  c.genes_base = base + header_blocks;
  ck_philox_counter_lanes h0 = ck_philox_block_lanes(seed, stream, base);
  ck_philox_counter_lanes h1 = ck_philox_block_lanes(seed, stream, base + 1u);
  c.a = ck_ga_tournament_lanes(tournament, 0, size, &h0, &h1, seed, stream,
                               base, island_fitness);
  c.b = ck_ga_tournament_lanes(tournament, 1, size, &h0, &h1, seed, stream,
                               base, island_fitness);
  c.cross = ck_uniform_real_lanes(ck_ga_header_word_lanes(
                &h0, &h1, seed, stream, base, (ck_u32)(2 * tournament))) <
            crossover_rate;
  c.weight = ck_uniform_real_lanes(ck_ga_header_word_lanes(
      &h0, &h1, seed, stream, base, (ck_u32)(2 * tournament + 1)));
  c.mutation_stream = c.stream | (ck_u64_lanes)((ck_u64)1 << 62);
  c.mutation_base = ck_ga_mutation_base(generation, dim);
  *draws = c;
}

/* ck_ga_cross_chunk over all CK_DIM genes of the lanes' children, from
 * the island's gene-major resident copy `genes`, into child[]. */
CK_FN void ck_ga_cross_child_lanes(int crossover,
                                   ck_real crossover_parameter, ck_u64 seed,
                                   const ck_ga_child_draws_lanes *c,
                                   CK_LOCAL const ck_real *genes,
                                   ck_real_lanes *child) {
  ck_philox_counter_lanes r;
  CK_UNROLL
  for (int d = 0; d < CK_DIM; ++d) {
    CK_LOCAL const ck_real *row = genes + d * CK_GA_ISLAND;
    ck_real_lanes a = CK_GATHER_LANES(row, c->a);
    ck_real_lanes b = CK_GATHER_LANES(row, c->b);
    ck_real_lanes u = (ck_real_lanes)CK_R(0);
    if (crossover != CK_GA_CROSSOVER_ARITH) {
      if ((d & 3) == 0)
        r = ck_philox_block_lanes(seed, c->stream,
                                  c->genes_base + (ck_u64)(d >> 2));
      u = ck_uniform_real_lanes(r.v[d & 3]);
    }
    ck_real_lanes crossed =
        ck_ga_cross_lanes(crossover, a, b, u, c->weight, crossover_parameter);
    child[d] = c->cross ? crossed : a;
  }
}

/*
 * ck_ga_mutate_row and ck_ga_evaluate_child for the lanes' children in
 * child[] (lanes set in `frozen`, the elites, are left as they are):
 * refills of four mutations drawn for every lane while any has some left,
 * each mutation added at its gene, then every gene bounded (which changes
 * no bit of a gene that lies in the domain, such as an arithmetic child's
 * unmutated one) and the objective streamed over the genes. Returns the
 * objective.
 */
CK_FN ck_real_lanes ck_ga_finish_lanes(
    int objective, int bounds, int mutation, ck_real mutation_rate,
    ck_real mutation_parameter, ck_real inverse_log_keep, ck_u64 seed,
    const ck_ga_child_draws_lanes *c, ck_u64 generation, ck_mask_lanes frozen,
    CK_LOCAL const ck_real *lo, CK_LOCAL const ck_real *hi,
    ck_real_lanes *child) {
  ck_index_lanes last = frozen ? (ck_index_lanes)CK_DIM : (ck_index_lanes)-1;
  for (ck_u32 refill = 0; mutation_rate > CK_R(0) && any(last < CK_DIM);
       ++refill) {
    /* ck_ga_mutations_left, lane by lane. */
    ck_index_lanes left = last + 1 < CK_DIM;
    ck_u64 at = ck_ga_refill_block(c->mutation_base, refill);
    ck_philox_counter_lanes steps =
        ck_philox_block_lanes(seed, c->mutation_stream, at + 1u);
    ck_philox_counter_lanes gaps =
        ck_philox_block_lanes(seed, c->mutation_stream, at);
    ck_index_lanes at0 = ck_ga_after_lanes(last, gaps.v[0], mutation_rate,
                                           inverse_log_keep, CK_DIM);
    ck_index_lanes at1 = ck_ga_after_lanes(at0, gaps.v[1], mutation_rate,
                                           inverse_log_keep, CK_DIM);
    ck_index_lanes at2 = ck_ga_after_lanes(at1, gaps.v[2], mutation_rate,
                                           inverse_log_keep, CK_DIM);
    ck_index_lanes at3 = ck_ga_after_lanes(at2, gaps.v[3], mutation_rate,
                                           inverse_log_keep, CK_DIM);
    at0 = left ? at0 : (ck_index_lanes)CK_DIM;
    at1 = left ? at1 : (ck_index_lanes)CK_DIM;
    at2 = left ? at2 : (ck_index_lanes)CK_DIM;
    at3 = left ? at3 : (ck_index_lanes)CK_DIM;
    last = at3;
    ck_real_lanes step0, step1, step2, step3;
    if (mutation == CK_GA_MUTATION_POLY) {
      step0 = ck_ga_mutation_step_lanes(mutation, steps.v[0], steps.v[0],
                                        mutation_parameter);
      step1 = ck_ga_mutation_step_lanes(mutation, steps.v[1], steps.v[1],
                                        mutation_parameter);
      step2 = ck_ga_mutation_step_lanes(mutation, steps.v[2], steps.v[2],
                                        mutation_parameter);
      step3 = ck_ga_mutation_step_lanes(mutation, steps.v[3], steps.v[3],
                                        mutation_parameter);
    } else {
      ck_ga_gaussian_pair_lanes(steps.v[0], steps.v[1], mutation_parameter,
                                &step0, &step1);
      ck_ga_gaussian_pair_lanes(steps.v[2], steps.v[3], mutation_parameter,
                                &step2, &step3);
    }
    CK_UNROLL
    for (int d = 0; d < CK_DIM; ++d) {
      ck_index_lanes hit0 = at0 == d, hit1 = at1 == d, hit2 = at2 == d,
                     hit3 = at3 == d;
      ck_index_lanes hit = hit0 | hit1 | hit2 | hit3;
      if (any(hit)) {
        ck_real_lanes step =
            hit0 ? step0 : (hit1 ? step1 : (hit2 ? step2 : step3));
        ck_real_lanes moved = ck_ga_mutated_gene_lanes(
            child[d], step, (ck_real_lanes)lo[d], (ck_real_lanes)hi[d]);
        child[d] = hit ? moved : child[d];
      }
    }
  }
  ck_u64_lanes bounds_stream = c->stream | (ck_u64_lanes)((ck_u64)1 << 63);
  ck_objective_state_lanes s;
  ck_objective_begin_lanes(objective, &s);
  CK_UNROLL
  for (int d = 0; d < CK_DIM; ++d) {
    child[d] = ck_bound_coordinate_lanes(
        bounds, child[d], (ck_real_lanes)lo[d], (ck_real_lanes)hi[d], seed,
        bounds_stream, generation * (ck_u64)CK_DIM + (ck_u64)d);
    ck_objective_add_lanes(objective, &s, d, child[d]);
  }
  return ck_objective_finish_lanes(objective, &s, CK_DIM);
}

#endif /* CK_GA_LANES_H */
