/*
 * aco_ref.c - the ref steps of the ACO: the readable definition, and the
 * twins of the kernels in cl/aco.cl. Tours, local search and pheromone
 * updates come from the same ck_aco.h code; ants, edges and segments are
 * plain loops.
 */
#include <string.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"

static void *host(ck_buffer *buffer) {
  void *pointer = NULL;
  ck_buffer_host_pointer(buffer, &pointer);
  return pointer;
}

#define GRAPH(s)                                                               \
  (s)->metric, (s)->n, (const int *)host((s)->matrix),                         \
      (const ck_tsp_coord *)host((s)->xy)

static ck_status ref_setup(aco_state *s) {
  if (s->coord_size != sizeof(ck_tsp_coord))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ref coordinates are doubles (internal error)");
  return CK_OK;
}

static ck_status ref_construct(aco_state *s, uint64_t iteration) {
  uint32_t *tours = host(s->tours), *uses = host(s->uses);
  const uint32_t *neighbours = host(s->neighbours);
  ck_u8 *flags = host(s->flags);
  int64_t *lengths = host(s->lengths);
  for (uint32_t ant = 0; ant < s->ants; ++ant)
    lengths[ant] = ck_aco_construct(
        GRAPH(s), s->k, neighbours, host(s->choice), s->q0, s->seed, iteration,
        ant, tours + (size_t)ant * s->n, flags + (size_t)ant * s->n);
  if (s->algorithm != CK_ACO_ACS)
    return CK_OK;
  for (uint32_t ant = 0; ant < s->ants; ++ant)
    for (uint32_t i = 0; i < s->n; ++i)
      ck_aco_count_edge(s->n, s->k, neighbours, tours + (size_t)ant * s->n, i,
                        uses);
  return CK_OK;
}

static ck_status ref_local_search(aco_state *s) {
  int64_t *lengths = host(s->lengths);
  uint32_t *order = host(s->order);
  uint32_t count = s->ants;
  if (s->local_search_ants && s->local_search_ants < s->ants) {
    for (uint32_t ant = 0; ant < s->ants; ++ant)
      order[ck_aco_rank_of(s->ants, lengths, ant)] = ant;
    count = s->local_search_ants;
  } else {
    for (uint32_t ant = 0; ant < s->ants; ++ant)
      order[ant] = ant;
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t ant = order[i];
    size_t at = (size_t)ant * s->n;
    uint32_t *tour = (uint32_t *)host(s->tours) + at;
    uint32_t *positions = (uint32_t *)host(s->positions) + at;
    ck_u8 *flags = (ck_u8 *)host(s->flags) + at;
    for (uint32_t p = 0; p < s->n; ++p)
      ck_aco_seed_position(s->n, tour, s->seeded, host(s->best_tour),
                           host(s->best_positions), positions, flags, p);
    lengths[ant] = ck_aco_improve_from(GRAPH(s), s->k, host(s->neighbours),
                                       s->longest, s->or_opt, !s->seeded, tour,
                                       positions, flags, lengths[ant]);
  }
  return CK_OK;
}

static ck_status ref_iteration_best(aco_state *s, int64_t *length,
                                    uint32_t *ant) {
  const int64_t *lengths = host(s->lengths);
  *length = INT64_MAX;
  *ant = 0;
  for (uint32_t a = 0; a < s->ants; ++a)
    if (lengths[a] < *length) {
      *length = lengths[a];
      *ant = a;
    }
  return CK_OK;
}

static ck_status ref_keep_best(aco_state *s, uint32_t ant, uint32_t *tour) {
  const uint32_t *from = (const uint32_t *)host(s->tours) + (size_t)ant * s->n;
  memcpy(host(s->best_tour), from, (size_t)s->n * sizeof *from);
  memcpy(tour, from, (size_t)s->n * sizeof *from);
  return CK_OK;
}

static ck_status ref_deposit(aco_state *s, uint32_t ant, float scale,
                             float amount) {
  const uint32_t *tour =
      ant == CK__ACO_BEST
          ? (const uint32_t *)host(s->best_tour)
          : (const uint32_t *)host(s->tours) + (size_t)ant * s->n;
  for (uint32_t i = 0; i < s->n; ++i)
    ck_aco_deposit_edge(s->n, s->k, host(s->neighbours), tour, i, scale, amount,
                        host(s->tau));
  return CK_OK;
}

static ck_status ref_update(aco_state *s, float keep, float tau_min,
                            float tau_max) {
  float *tau = host(s->tau), *choice = host(s->choice);
  const float *eta_beta = host(s->eta_beta);
  uint32_t *uses = host(s->uses);
  size_t entries = (size_t)s->n * s->k;
  for (size_t e = 0; e < entries; ++e) {
    tau[e] = ck_aco_update_entry(tau[e], uses[e], s->xi, s->tau0, keep, tau_min,
                                 tau_max, s->alpha, eta_beta[e], &choice[e]);
    uses[e] = 0;
  }
  return CK_OK;
}

static ck_status ref_reset(aco_state *s, float value) {
  float *tau = host(s->tau);
  for (size_t e = 0; e < (size_t)s->n * s->k; ++e)
    tau[e] = value;
  return CK_OK;
}

static ck_status ref_partition(aco_state *s, uint32_t size, uint32_t offset,
                               uint64_t pass, uint32_t *tour, int64_t *gain) {
  ck_status status = ck__aco_segment_scratch(s, size);
  if (status != CK_OK)
    return status;
  uint32_t *best = host(s->best_tour), *rotated = host(s->segment_tour);
  for (uint32_t i = 0; i < s->n; ++i)
    ck_aco_rotate_position(s->n, offset, best, rotated, i);
  uint32_t segments = (s->n + size - 1) / size;
  *gain = 0;
  for (uint32_t id = 0; id < segments; ++id)
    *gain += ck_aco_optimise_segment(GRAPH(s), s->k, s->or_opt,
                                     ck__aco_kicks(s, size), s->seed, pass, id,
                                     size, rotated, host(s->segment_scratch));
  /* Without a gain the best tour stays as it was, so that the positions
   * uploaded with it still match it. */
  if (*gain > 0) {
    memcpy(best, rotated, (size_t)s->n * sizeof *best);
    memcpy(tour, rotated, (size_t)s->n * sizeof *tour);
  }
  return CK_OK;
}

static void ref_teardown(aco_state *s) {
  (void)s;
}

const ck__aco_steps ck__aco_ref_steps = {
    ref_setup,     ref_construct, ref_local_search, ref_iteration_best,
    ref_keep_best, ref_deposit,   ref_update,       ref_reset,
    ref_partition, ref_teardown};
