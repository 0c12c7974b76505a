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
  ck_buffer_get_host_pointer(buffer, &pointer);
  return pointer;
}

#define GRAPH(state)                                                           \
  (state)->metric, (state)->n, (const int *)host((state)->matrix),             \
      (const ck_tsp_coord *)host((state)->xy)

static ck_status ref_setup(aco_state *state) {
  if (state->coord_size != sizeof(ck_tsp_coord))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ref coordinates are doubles (internal error)");
  return CK_OK;
}

/* The focused method's ants: copies of their source changed at up to
 * focus_bound edges. An ant's own source starts at its last length. */
static void focused_construct(aco_state *state, uint64_t iteration) {
  uint32_t *tours = host(state->tours), *positions = host(state->positions);
  int64_t *lengths = host(state->lengths);
  ck_u8 *flags = host(state->flags);
  size_t n = state->n;
  ck__aco_focus_begin(state, lengths);
  ck__aco_source source = ck__aco_focus_source(state);
  uint32_t *source_tours = host(source.tours);
  uint32_t *source_positions = host(source.positions);
  for (size_t j = 0; j < source.kept; ++j)
    for (uint32_t i = 0; i < n; ++i)
      ck_aco_focus_keep(tours + (source.first + j) * n, source_tours + j * n,
                        source_positions + j * n, i);
  for (uint32_t ant = 0; ant < state->ants; ++ant) {
    size_t at = ant * n, from = ant * source.stride;
    for (uint32_t i = 0; i < n; ++i)
      ck_aco_focus_copy(source_tours + from, tours + at, positions + at,
                        flags + at, i);
    uint32_t new_edges;
    lengths[ant] = ck_aco_construct_focused(
        GRAPH(state), state->k, host(state->neighbours), host(state->choice),
        state->q0, state->seed, iteration, state->first + ant,
        source_tours + from, source_positions + from,
        source.stride ? lengths[ant] : state->focus_source_length,
        state->focus_bound, tours + at, positions + at, flags + at, &new_edges);
  }
}

static ck_status ref_construct(aco_state *state, uint64_t iteration) {
  uint32_t *tours = host(state->tours), *uses = host(state->uses);
  const uint32_t *neighbours = host(state->neighbours);
  ck_u8 *flags = host(state->flags);
  int64_t *lengths = host(state->lengths);
  /* Until a best tour exists, every ant builds from scratch. */
  if (state->method == CK_ACO_FOCUSED && state->best_length != INT64_MAX)
    focused_construct(state, iteration);
  for (uint32_t ant = 0; ant < state->ants && !state->focused; ++ant)
    lengths[ant] = ck_aco_construct(
        GRAPH(state), host(state->grid_cells),
        (const ck_tsp_coord *)host(state->grid_box), state->k, neighbours,
        host(state->choice), state->q0, state->seed, iteration,
        state->first + ant, tours + (size_t)ant * state->n,
        flags + (size_t)ant * state->n);
  if (state->algorithm != CK_ACO_ACS)
    return CK_OK;
  for (uint32_t ant = 0; ant < state->ants; ++ant)
    for (uint32_t i = 0; i < state->n; ++i)
      ck_aco_count_edge(state->n, state->k, neighbours,
                        tours + (size_t)ant * state->n, i, uses);
  return CK_OK;
}

static ck_status ref_local_search(aco_state *state, const uint32_t *ants,
                                  uint32_t count) {
  int64_t *lengths = host(state->lengths);
  const uint32_t *listed = ants;
  if (!ants) {
    /* Every ant, or the best local_search_ants by (length, ant). */
    uint32_t *order = host(state->order);
    int ranked =
        state->local_search_ants && state->local_search_ants < state->ants;
    for (uint32_t ant = 0; ant < state->ants; ++ant)
      order[ranked ? ck_aco_rank_of(state->ants, lengths, ant) : ant] = ant;
    count = ranked ? state->local_search_ants : state->ants;
    listed = order;
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t ant = listed[i];
    size_t at = (size_t)ant * state->n;
    uint32_t *tour = (uint32_t *)host(state->tours) + at;
    uint32_t *positions = (uint32_t *)host(state->positions) + at;
    ck_u8 *flags = (ck_u8 *)host(state->flags) + at;
    if (state->focused && state->seeded) {
      /* Only around the edges the tour does not share with its source. */
      uint32_t *queue = (uint32_t *)host(state->queues) + at;
      ck__aco_source source = ck__aco_focus_source(state);
      size_t from = ant * source.stride;
      for (uint32_t p = 0; p < state->n; ++p)
        ck_aco_seed_position(
            state->n, tour, 1, (uint32_t *)host(source.tours) + from,
            (uint32_t *)host(source.positions) + from, positions, flags, p);
      uint32_t queued = ck_aco_queue_dirty(tour, flags, 0, state->n, queue);
      lengths[ant] -= ck_aco_improve_queue(
          GRAPH(state), state->k, host(state->neighbours), state->longest,
          state->or_opt, tour, positions, flags, queue, queued);
      continue;
    }
    for (uint32_t p = 0; p < state->n; ++p)
      ck_aco_seed_position(state->n, tour, state->seeded,
                           host(state->best_tour), host(state->best_positions),
                           positions, flags, p);
    lengths[ant] = ck_aco_improve_from(
        GRAPH(state), state->k, host(state->neighbours), state->longest,
        state->or_opt, !state->seeded, tour, positions, flags, lengths[ant]);
  }
  return CK_OK;
}

static ck_status ref_iteration_best(aco_state *state, int64_t *length,
                                    uint32_t *ant) {
  const int64_t *lengths = host(state->lengths);
  *length = INT64_MAX;
  *ant = 0;
  for (uint32_t a = 0; a < state->ants; ++a)
    if (lengths[a] < *length) {
      *length = lengths[a];
      *ant = a;
    }
  return CK_OK;
}

static ck_status ref_keep_best(aco_state *state, uint32_t ant, uint32_t *tour) {
  const uint32_t *from =
      (const uint32_t *)host(state->tours) + (size_t)ant * state->n;
  memcpy(host(state->best_tour), from, (size_t)state->n * sizeof *from);
  memcpy(tour, from, (size_t)state->n * sizeof *from);
  return CK_OK;
}

static ck_status ref_deposit(aco_state *state, uint32_t ant, float scale,
                             float amount) {
  const uint32_t *tour =
      ant == CK__ACO_BEST
          ? (const uint32_t *)host(state->best_tour)
          : (const uint32_t *)host(state->tours) + (size_t)ant * state->n;
  for (uint32_t i = 0; i < state->n; ++i)
    ck_aco_deposit_edge(state->n, state->k, host(state->neighbours), tour, i,
                        scale, amount, host(state->tau));
  return CK_OK;
}

static ck_status ref_update(aco_state *state, float keep, float tau_min,
                            float tau_max) {
  float *tau = host(state->tau), *choice = host(state->choice);
  const float *eta_beta = host(state->eta_beta);
  uint32_t *uses = host(state->uses);
  size_t entries = (size_t)state->n * state->k;
  for (size_t e = 0; e < entries; ++e) {
    tau[e] = ck_aco_update_entry(tau[e], uses[e], state->xi, state->tau0, keep,
                                 tau_min, tau_max, state->alpha, eta_beta[e],
                                 &choice[e]);
    uses[e] = 0;
  }
  return CK_OK;
}

static ck_status ref_reset(aco_state *state, float value) {
  float *tau = host(state->tau);
  for (size_t e = 0; e < (size_t)state->n * state->k; ++e)
    tau[e] = value;
  return CK_OK;
}

static ck_status ref_partition(aco_state *state, uint32_t size, uint32_t offset,
                               uint64_t pass, uint32_t *tour, int64_t *gain) {
  ck_status status = ck__aco_segment_scratch(state, size);
  if (status != CK_OK)
    return status;
  uint32_t *best = host(state->best_tour), *rotated = host(state->segment_tour);
  for (uint32_t i = 0; i < state->n; ++i)
    ck_aco_rotate_position(state->n, offset, best, rotated, i);
  uint32_t segments = (state->n + size - 1) / size;
  *gain = 0;
  for (uint32_t id = 0; id < segments; ++id)
    *gain += ck_aco_optimise_segment(
        GRAPH(state), state->k, state->or_opt, ck__aco_kicks(state, size),
        state->seed, pass, id, size, rotated, host(state->segment_scratch));
  /* Without a gain the best tour stays as it was, so that the positions
   * uploaded with it still match it. */
  if (*gain > 0) {
    memcpy(best, rotated, (size_t)state->n * sizeof *best);
    memcpy(tour, rotated, (size_t)state->n * sizeof *tour);
  }
  return CK_OK;
}

static void ref_teardown(aco_state *state) {
  (void)state;
}

const ck__aco_steps ck__aco_ref_steps = {
    .setup = ref_setup,
    .construct = ref_construct,
    .local_search = ref_local_search,
    .iteration_best = ref_iteration_best,
    .keep_best = ref_keep_best,
    .deposit = ref_deposit,
    .update = ref_update,
    .reset = ref_reset,
    .partition = ref_partition,
    .teardown = ref_teardown,
};
