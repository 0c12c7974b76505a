/*
 * ck_aco.h - ant colony optimisation for the symmetric TSP, written once
 * for the OpenCL kernels in aco.cl (a work-item an ant, or a tour edge, or
 * a candidate edge, or a tour segment) and the ref steps in
 * src/aco/aco_ref.c (plain loops over the same items).
 *
 * The graph: n cities; distances from an n x n int matrix (small or
 * EXPLICIT/GEO instances) or from interleaved coordinates xy (x, y per
 * city) with a TSPLIB coordinate metric. Candidate lists: the k nearest
 * neighbours of city i at neighbours[i * k ...], nearest first. Pheromone
 * and the construction weights ("choice" = tau^alpha eta^beta) live on
 * candidate edges only, entry i * k + j for the edge from i to its j-th
 * neighbour, so no n x n array is needed when distances come from
 * coordinates.
 *
 * Coordinate metrics also give construction a grid of the cities
 * (CK_ACO_GRID), searched for the nearest unvisited city.
 *
 * Per ant, arrays of n entries: tour (city at each position), pos
 * (position of each city) and visited / don't-look flags (bytes).
 *
 * Random draws: Philox keyed by the seed; ant a of iteration t uses
 * stream (t << 32) | a, a its index in the whole colony (the members of a
 * spread colony hold slices of it), counter (s - 1) / 2 for the words of
 * construction step s >= 1 (two words a step: the pseudo-random
 * proportional test, then the roulette), and the stream with bit 63 set
 * for its start city.
 */
#ifndef CK_ACO_H
#define CK_ACO_H

#include "ck_grid.h"
#include "ck_philox.h"
#include "ck_tsp.h"

/* Distances from the matrix rather than from coordinates. */
#define CK_ACO_FROM_MATRIX 5

#define CK_ACO_GRAPH                                                           \
  int metric, ck_u32 n, CK_GLOBAL const int *matrix,                           \
      CK_GLOBAL const ck_tsp_coord *xy
#define CK_ACO_GRAPH_ARGS metric, n, matrix, xy

CK_FN int ck_aco_distance(CK_ACO_GRAPH, ck_u32 i, ck_u32 j) {
  if (metric == CK_ACO_FROM_MATRIX)
    return matrix[(ck_u64)i * n + j];
  return ck_tsp_coordinate_distance(metric, xy[2u * i], xy[2u * i + 1u],
                                    xy[2u * j], xy[2u * j + 1u]);
}

/*
 * The grid of a coordinate metric's cities (ck__tsp_grid_pack in
 * src/tsp): grid_cells holds the columns, the rows, the first entry of each
 * cell in row-major order and one past the last cell's, then the cities in
 * cell order; grid_box the grid's left and bottom edges and its cells'
 * width and height. Distances from the matrix need none (any buffer).
 */
#define CK_ACO_GRID                                                            \
  CK_GLOBAL const ck_u32 *grid_cells, CK_GLOBAL const ck_tsp_coord *grid_box
#define CK_ACO_GRID_ARGS grid_cells, grid_box

/* Offers the unvisited cities of one cell as the nearest to `current`:
 * *key is the least (distance << 32 | city) so far, all ones while none. */
CK_FN void ck_aco_offer_cell(CK_ACO_GRAPH, CK_GLOBAL const ck_u32 *grid_cells,
                             ck_i64 column, ck_i64 row, ck_u32 current,
                             CK_GLOBAL const ck_u8 *visited, ck_u64 *key) {
  ck_u64 cells = (ck_u64)grid_cells[0] * grid_cells[1];
  CK_GLOBAL const ck_u32 *start = grid_cells + 2;
  CK_GLOBAL const ck_u32 *city = start + cells + 1;
  ck_u64 cell = (ck_u64)row * grid_cells[0] + (ck_u64)column;
  for (ck_u32 at = start[cell]; at < start[cell + 1u]; ++at) {
    ck_u32 c = city[at];
    if (visited[c])
      continue;
    ck_u64 mine =
        ((ck_u64)(ck_u32)ck_aco_distance(CK_ACO_GRAPH_ARGS, current, c) << 32) |
        c;
    *key = mine < *key ? mine : *key;
  }
}

/* A search of the grid around city `current`. */
CK_FN ck_grid_walk ck_aco_grid_begin(CK_GLOBAL const ck_tsp_coord *xy,
                                     CK_ACO_GRID, ck_u32 current) {
  return ck_grid_walk_from(grid_cells[0], grid_cells[1], grid_box[0],
                           grid_box[1], grid_box[2], grid_box[3],
                           xy[2u * current], xy[2u * current + 1u]);
}

/* Whether a search holding `key`, its least (distance << 32 | city) or
 * all ones while none, may end after ring r (ck_grid_ring_ends). */
CK_FN int ck_aco_ring_ends(const ck_grid_walk *w, int metric, ck_i64 r,
                           ck_u64 key) {
  return ck_grid_ring_ends(w, metric, r, key != ~(ck_u64)0,
                           (ck_u32)(key >> 32));
}

/*
 * The nearest unvisited city to `current`, ties to the lower index; one
 * always exists (the caller has cities left). From the matrix it scans
 * every city. With a coordinate metric it searches square rings of grid
 * cells around the current city's, each whole, until ck_aco_ring_ends:
 * the same city as the scan, at a cost that grows with the cities near
 * the gap it jumps. The GPUs' forms (aco.cl, aco.cu) share a ring's cells
 * among an ant's lanes.
 */
CK_FN ck_u32 ck_aco_nearest_unvisited(CK_ACO_GRAPH, CK_ACO_GRID, ck_u32 current,
                                      CK_GLOBAL const ck_u8 *visited) {
  if (metric == CK_ACO_FROM_MATRIX) {
    ck_u32 next = n;
    int nearest = 0;
    for (ck_u32 c = 0; c < n; ++c) {
      if (visited[c])
        continue;
      int d = ck_aco_distance(CK_ACO_GRAPH_ARGS, current, c);
      if (next == n || d < nearest) {
        nearest = d;
        next = c;
      }
    }
    return next;
  }
  ck_grid_walk w = ck_aco_grid_begin(xy, CK_ACO_GRID_ARGS, current);
  ck_u64 key = ~(ck_u64)0;
  for (ck_i64 r = 0;; ++r) {
    ck_grid_ring ring = ck_grid_ring_of(&w, r);
    ck_u64 cells = ck_grid_ring_cells(&ring);
    for (ck_u64 i = 0; i < cells; ++i) {
      ck_i64 column, row;
      ck_grid_ring_cell(&w, &ring, i, &column, &row);
      ck_aco_offer_cell(CK_ACO_GRAPH_ARGS, grid_cells, column, row, current,
                        visited, &key);
    }
    if (ck_aco_ring_ends(&w, metric, r, key))
      return (ck_u32)key;
  }
}

/*
 * A construction step's choice among the unvisited candidates of city
 * `current`: with probability q0 the one of largest choice (ACS's
 * pseudo-random proportional rule; q0 = 0 for MMAS), otherwise one drawn
 * with probability proportional to its choice value. Words `lane` and
 * lane + 1 of the step's Philox block r decide. Returns n when every
 * candidate is visited.
 */
CK_FN ck_u32 ck_aco_choose(ck_u32 n, ck_u32 k,
                           CK_GLOBAL const ck_u32 *neighbours,
                           CK_GLOBAL const float *choice,
                           CK_GLOBAL const ck_u8 *visited, float q0,
                           ck_philox_counter r, ck_u32 lane, ck_u32 current) {
  CK_GLOBAL const ck_u32 *list = neighbours + (ck_u64)current * k;
  CK_GLOBAL const float *weights = choice + (ck_u64)current * k;
  float sum = 0.0f, best_weight = -1.0f;
  ck_u32 best = n;
  for (ck_u32 j = 0; j < k; ++j) {
    ck_u32 c = list[j];
    if (!visited[c]) {
      float w = weights[j];
      sum += w;
      if (w > best_weight) {
        best_weight = w;
        best = c;
      }
    }
  }
  ck_u32 next = best;
  if (best != n &&
      !(q0 > 0.0f && ck_uniform_float(ck_philox_word(r, lane)) < q0)) {
    float target = ck_uniform_float(ck_philox_word(r, lane + 1u)) * sum;
    float running = 0.0f;
    for (ck_u32 j = 0; j < k; ++j) {
      ck_u32 c = list[j];
      if (!visited[c]) {
        running += weights[j];
        next = c;
        if (running > target)
          break;
      }
    }
  }
  return next;
}

/*
 * Builds ant `ant`'s tour for iteration `iteration` into tour[0..n-1] and
 * returns its length. Each step moves from the current city to an
 * unvisited candidate (ck_aco_choose). Only when every candidate is
 * visited does it take the nearest unvisited city
 * (ck_aco_nearest_unvisited).
 */
CK_FN ck_i64 ck_aco_construct(CK_ACO_GRAPH, CK_ACO_GRID, ck_u32 k,
                              CK_GLOBAL const ck_u32 *neighbours,
                              CK_GLOBAL const float *choice, float q0,
                              ck_u64 seed, ck_u64 iteration, ck_u32 ant,
                              CK_GLOBAL ck_u32 *tour,
                              CK_GLOBAL ck_u8 *visited) {
  ck_u64 stream = (iteration << 32) | (ck_u64)ant;
  for (ck_u32 c = 0; c < n; ++c)
    visited[c] = 0;
  ck_philox_counter r = ck_philox_block(seed, stream | ((ck_u64)1 << 63), 0u);
  ck_u32 start = CK_MULHI32(r.v[0], n);
  ck_u32 current = start;
  tour[0] = start;
  visited[start] = 1;
  ck_i64 length = 0;
  for (ck_u32 step = 1; step < n; ++step) {
    /* Steps 2s + 1 and 2s + 2 share block s. */
    if (step & 1u)
      r = ck_philox_block(seed, stream, (ck_u64)(step >> 1));
    ck_u32 next = ck_aco_choose(n, k, neighbours, choice, visited, q0, r,
                                ((step - 1u) & 1u) * 2u, current);
    if (next == n)
      next = ck_aco_nearest_unvisited(CK_ACO_GRAPH_ARGS, CK_ACO_GRID_ARGS,
                                      current, visited);
    visited[next] = 1;
    tour[step] = next;
    length += ck_aco_distance(CK_ACO_GRAPH_ARGS, current, next);
    current = next;
  }
  return length + ck_aco_distance(CK_ACO_GRAPH_ARGS, current, start);
}

/* ---- local search on one tour, array representation -------------------- */

#include "ck_aco_search.h"

/* ---- focused construction (Skinderowicz 2022) ---------------------------- */

/* Whether a and b are neighbours in the tour with positions pos. */
CK_FN int ck_aco_has_edge(ck_u32 n, CK_GLOBAL const ck_u32 *tour,
                          CK_GLOBAL const ck_u32 *pos, ck_u32 a, ck_u32 b) {
  return ck_aco_next(n, tour, pos, a) == b ||
         ck_aco_previous(n, tour, pos, a) == b;
}

/*
 * Position i of a focused source kept from a tour: the city there into
 * source, and its position into source_pos. The iteration's best tour and
 * the ants' own tours are kept so before the ants change them.
 */
CK_FN void ck_aco_focus_keep(CK_GLOBAL const ck_u32 *from,
                             CK_GLOBAL ck_u32 *source,
                             CK_GLOBAL ck_u32 *source_pos, ck_u32 i) {
  ck_u32 c = from[i];
  source[i] = c;
  source_pos[c] = i;
}

/*
 * Position i of a focused ant's tour before its walk: the source's city
 * there, that city's position, and city i not yet visited. The copy is
 * its own step so that a device spreads it over all positions.
 */
CK_FN void ck_aco_focus_copy(CK_GLOBAL const ck_u32 *source,
                             CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos,
                             CK_GLOBAL ck_u8 *visited, ck_u32 i) {
  ck_aco_focus_keep(source, tour, pos, i);
  visited[i] = 0;
}

/*
 * A focused walk's splice of city c in after `current` (whose successor
 * is `next`), not yet made: the change in the tour's length, and in
 * *fresh the change in its edges that the source (with positions
 * source_pos) lacks. p c q, current next -> p q, current c next; when q
 * is current, the edge (c, current) leaves and comes back: the sums
 * cancel.
 */
CK_FN ck_i64 ck_aco_splice_change(CK_ACO_GRAPH, CK_GLOBAL const ck_u32 *source,
                                  CK_GLOBAL const ck_u32 *source_pos,
                                  CK_GLOBAL const ck_u32 *tour,
                                  CK_GLOBAL const ck_u32 *pos, ck_u32 current,
                                  ck_u32 next, ck_u32 c, int *fresh) {
  ck_u32 p = ck_aco_previous(n, tour, pos, c);
  ck_u32 q = ck_aco_next(n, tour, pos, c);
  *fresh = !ck_aco_has_edge(n, source, source_pos, current, c) +
           !ck_aco_has_edge(n, source, source_pos, c, next) +
           !ck_aco_has_edge(n, source, source_pos, p, q) -
           !ck_aco_has_edge(n, source, source_pos, p, c) -
           !ck_aco_has_edge(n, source, source_pos, c, q) -
           !ck_aco_has_edge(n, source, source_pos, current, next);
  return (ck_i64)ck_aco_distance(CK_ACO_GRAPH_ARGS, current, c) +
         ck_aco_distance(CK_ACO_GRAPH_ARGS, c, next) +
         ck_aco_distance(CK_ACO_GRAPH_ARGS, p, q) -
         ck_aco_distance(CK_ACO_GRAPH_ARGS, p, c) -
         ck_aco_distance(CK_ACO_GRAPH_ARGS, c, q) -
         ck_aco_distance(CK_ACO_GRAPH_ARGS, current, next);
}

/*
 * Builds ant `ant`'s tour of iteration `iteration` from a copy of `source`
 * (positions source_pos, length source_length; ck_aco_focus_copy set
 * tour, pos and visited for every position) changed at a few places.
 * The ant walks the copy from its start city, drawn as ck_aco_construct
 * draws it. Each step chooses among the unvisited candidates with
 * ck_aco_construct's Philox words (ck_aco_choose). A choice other than
 * the tour's next city is spliced in after the current city
 * (ck_aco_move_path), which changes at most three edges. The walk ends
 * once `bound` edges are not the source's, before a splice that would
 * pass that, or at the tour's end. Without an unvisited candidate the
 * ant keeps the tour's next city. Writes tour, pos, visited flags and
 * *new_edges (the tour's edges the source lacks); returns the length.
 */
CK_FN ck_i64 ck_aco_construct_focused(
    CK_ACO_GRAPH, ck_u32 k, CK_GLOBAL const ck_u32 *neighbours,
    CK_GLOBAL const float *choice, float q0, ck_u64 seed, ck_u64 iteration,
    ck_u32 ant, CK_GLOBAL const ck_u32 *source,
    CK_GLOBAL const ck_u32 *source_pos, ck_i64 source_length, ck_u32 bound,
    CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos, CK_GLOBAL ck_u8 *visited,
    ck_u32 *new_edges) {
  ck_u64 stream = (iteration << 32) | (ck_u64)ant;
  ck_philox_counter r = ck_philox_block(seed, stream | ((ck_u64)1 << 63), 0u);
  ck_u32 current = CK_MULHI32(r.v[0], n);
  visited[current] = 1;
  ck_i64 length = source_length, added = 0;
  for (ck_u32 step = 1; step < n && added < (ck_i64)bound; ++step) {
    if (step & 1u)
      r = ck_philox_block(seed, stream, (ck_u64)(step >> 1));
    ck_u32 next = ck_aco_next(n, tour, pos, current);
    ck_u32 c = ck_aco_choose(n, k, neighbours, choice, visited, q0, r,
                             ((step - 1u) & 1u) * 2u, current);
    if (c != n && c != next) {
      int fresh;
      ck_i64 change =
          ck_aco_splice_change(CK_ACO_GRAPH_ARGS, source, source_pos, tour, pos,
                               current, next, c, &fresh);
      if (added + fresh > (ck_i64)bound)
        break;
      length += change;
      ck_aco_move_path(n, tour, pos, pos[c], 1u, current, 0);
      added += fresh;
      next = c;
    }
    visited[next] = 1;
    current = next;
  }
  *new_edges = (ck_u32)added;
  return length;
}

/*
 * The dirty cities at positions first .. last - 1 of a tour whose
 * don't-look bits ck_aco_seed_position set against its source: those
 * with a clear bit, in tour order, into queue (only counted when queue
 * is 0). Returns their count. The whole tour (0 .. n) gives the queue of
 * ck_aco_improve_queue; a device's lanes take blocks of it.
 */
CK_FN ck_u32 ck_aco_queue_dirty(CK_GLOBAL const ck_u32 *tour,
                                CK_GLOBAL const ck_u8 *dont_look, ck_u32 first,
                                ck_u32 last, CK_GLOBAL ck_u32 *queue) {
  ck_u32 count = 0;
  for (ck_u32 p = first; p < last; ++p)
    if (!dont_look[tour[p]]) {
      if (queue)
        queue[count] = tour[p];
      ++count;
    }
  return count;
}

/*
 * The queue of ck_aco_queue_dirty from the dirty cities' positions in any
 * order (a device finds them in parallel): sorted by insertion, then
 * turned into cities. For short queues: the sort is quadratic.
 */
CK_FN void ck_aco_queue_sorted(CK_GLOBAL const ck_u32 *tour,
                               CK_GLOBAL ck_u32 *queue, ck_u32 count) {
  for (ck_u32 i = 1; i < count; ++i) {
    ck_u32 p = queue[i], j = i;
    for (; j > 0u && queue[j - 1u] > p; --j)
      queue[j] = queue[j - 1u];
    queue[j] = p;
  }
  for (ck_u32 i = 0; i < count; ++i)
    queue[i] = tour[queue[i]];
}

/*
 * The ends of an applied move (touched[0 .. ends - 1]) whose don't-look
 * bits are set get them cleared and join the queue (a ring of n entries
 * whose `count` cities wait from `head`), in the order given. Returns the
 * new count.
 */
CK_FN ck_u32 ck_aco_queue_push(ck_u32 n, CK_GLOBAL ck_u8 *dont_look,
                               CK_GLOBAL ck_u32 *queue, ck_u32 head,
                               ck_u32 count, const ck_u32 *touched, int ends) {
  for (int t = 0; t < ends; ++t) {
    ck_u32 c = touched[t];
    if (dont_look[c]) {
      dont_look[c] = 0;
      queue[ck_aco_ahead(head, count, n)] = c;
      ++count;
    }
  }
  return count;
}

/*
 * Local search from a set of dirty cities: queue[0..count) lists them,
 * each once with its don't-look bit clear; every other bit is set. A city
 * taken from the queue gets its bit set and tries ck_aco_two_opt_at, then
 * ck_aco_or_opt_at with or_opt. The ends of an applied move whose bits
 * are set are cleared and queued again. A queued city's bit is clear, so
 * at most n wait at once: the queue is a ring of n entries. Ends with the
 * queue empty and every bit set; returns the gain (the length taken off).
 */
CK_FN ck_i64 ck_aco_improve_queue(CK_ACO_GRAPH, ck_u32 k,
                                  CK_GLOBAL const ck_u32 *neighbours,
                                  ck_u32 longest, int or_opt,
                                  CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos,
                                  CK_GLOBAL ck_u8 *dont_look,
                                  CK_GLOBAL ck_u32 *queue, ck_u32 count) {
  ck_i64 total = 0;
  ck_u32 head = 0;
  while (count > 0u) {
    ck_u32 a = queue[head];
    head = head + 1u == n ? 0u : head + 1u;
    --count;
    dont_look[a] = 1;
    ck_u32 touched[6];
    int ends;
    int gain = ck_aco_move_at(CK_ACO_GRAPH_ARGS, k, neighbours, longest, or_opt,
                              tour, pos, a, touched, &ends);
    if (gain <= 0)
      continue;
    total += gain;
    count = ck_aco_queue_push(n, dont_look, queue, head, count, touched, ends);
  }
  return total;
}

/* The fewest new edges and the first bound of the adaptive rule. */
#define CK_ACO_FOCUS_FEWEST 3u
#define CK_ACO_FOCUS_FIRST 8u

/*
 * The adaptive bound on new edges after an iteration in which `improved`
 * of `ants` focused ants ended shorter than their source: a quarter more
 * (rounded up) when more than a fifth improved, a fifth less otherwise,
 * kept within CK_ACO_FOCUS_FEWEST .. n.
 */
CK_FN ck_u32 ck_aco_focus_bound(ck_u32 bound, ck_u32 improved, ck_u32 ants,
                                ck_u32 n) {
  ck_u64 next = 5u * (ck_u64)improved > ants ? bound + (bound + 3u) / 4u
                                             : bound - (bound + 4u) / 5u;
  next = next < CK_ACO_FOCUS_FEWEST ? CK_ACO_FOCUS_FEWEST : next;
  return next > n ? n : (ck_u32)next;
}

/* ---- pheromone ----------------------------------------------------------- */

/* The candidate entry of edge (a, b) in a's list, or k when b is not a
 * candidate of a. */
CK_FN ck_u32 ck_aco_entry(ck_u32 k, CK_GLOBAL const ck_u32 *neighbours,
                          ck_u32 a, ck_u32 b) {
  CK_GLOBAL const ck_u32 *list = neighbours + (ck_u64)a * k;
  for (ck_u32 j = 0; j < k; ++j)
    if (list[j] == b)
      return j;
  return k;
}

/* One more use of a candidate entry: an atomic increment on devices, where
 * ants run at once (integer increments commute, so counts do not depend on
 * the order). */
#if defined(CK_OPENCL_C)
#define CK_ACO_COUNT(p) atomic_inc((volatile CK_GLOBAL ck_u32 *)(p))
#else
#define CK_ACO_COUNT(p) (++*(p))
#endif

/* Edge i of a tour counted on both of its candidate entries in uses (the
 * ants' use of edges, for ACS's local update). */
CK_FN void ck_aco_count_edge(ck_u32 n, ck_u32 k,
                             CK_GLOBAL const ck_u32 *neighbours,
                             CK_GLOBAL const ck_u32 *tour, ck_u32 i,
                             CK_GLOBAL ck_u32 *uses) {
  ck_u32 a = tour[i], b = tour[i + 1u == n ? 0u : i + 1u];
  ck_u32 j = ck_aco_entry(k, neighbours, a, b);
  if (j < k)
    CK_ACO_COUNT(uses + (ck_u64)a * k + j);
  j = ck_aco_entry(k, neighbours, b, a);
  if (j < k)
    CK_ACO_COUNT(uses + (ck_u64)b * k + j);
}

/* The rank of ant `ant` by (length, ant) among `ants`. */
CK_FN ck_u32 ck_aco_rank_of(ck_u32 ants, CK_GLOBAL const ck_i64 *lengths,
                            ck_u32 ant) {
  ck_i64 mine = lengths[ant];
  ck_u32 rank = 0;
  for (ck_u32 other = 0; other < ants; ++other) {
    ck_i64 theirs = lengths[other];
    rank += theirs < mine || (theirs == mine && other < ant);
  }
  return rank;
}

/* Edge i of a tour (its cities at positions i and i + 1): on both of its
 * candidate entries, tau = tau * scale + amount. Each edge of a tour is
 * one work-item's alone, so entries are never shared. */
CK_FN void ck_aco_deposit_edge(ck_u32 n, ck_u32 k,
                               CK_GLOBAL const ck_u32 *neighbours,
                               CK_GLOBAL const ck_u32 *tour, ck_u32 i,
                               float scale, float amount,
                               CK_GLOBAL float *tau) {
  ck_u32 a = tour[i], b = tour[i + 1u == n ? 0u : i + 1u];
  ck_u32 j = ck_aco_entry(k, neighbours, a, b);
  if (j < k)
    tau[(ck_u64)a * k + j] = tau[(ck_u64)a * k + j] * scale + amount;
  j = ck_aco_entry(k, neighbours, b, a);
  if (j < k)
    tau[(ck_u64)b * k + j] = tau[(ck_u64)b * k + j] * scale + amount;
}

/*
 * One candidate entry after an iteration: ACS's local update for the
 * `uses` ants that took it (tau moves toward tau0 by (1 - xi) per use),
 * evaporation by `keep` (1 - rho for MMAS, 1 for ACS), the MMAS bounds,
 * and the choice weight tau^alpha eta^beta (eta_beta precomputed).
 */
CK_FN float ck_aco_update_entry(float tau, ck_u32 uses, float xi, float tau0,
                                float keep, float tau_min, float tau_max,
                                float alpha, float eta_beta, float *choice) {
  if (uses > 0u) {
    float kept = powf(1.0f - xi, (float)uses);
    tau = kept * tau + (1.0f - kept) * tau0;
  }
  tau *= keep;
  tau = tau < tau_min ? tau_min : tau;
  tau = tau > tau_max ? tau_max : tau;
  *choice = (alpha == 1.0f ? tau : powf(tau, alpha)) * eta_beta;
  return tau;
}

/* ---- tour segments with fixed ends (partitioning) ------------------------ */

/* City i of the best tour rotated by `offset` positions. */
CK_FN void ck_aco_rotate_position(ck_u32 n, ck_u32 offset,
                                  CK_GLOBAL const ck_u32 *best,
                                  CK_GLOBAL ck_u32 *rotated, ck_u32 i) {
  ck_u32 at = i + offset;
  rotated[i] = best[at >= n ? at - n : at];
}

/*
 * A segment of m cities is optimised as a cycle of m local cities
 * (0 .. m - 1 in tour order) whose closing edge, between its end cities 0
 * and m - 1, is worth -CK_ACO_CLOSING: every move that would remove it
 * loses more than any tour gains, so the ends stay fixed and the usual
 * cyclic local search (ck_aco_improve_from over a local distance matrix)
 * serves unchanged. With distances at most D = CK_TSP_MAX_DISTANCE =
 * 2^29 - 1 (clkit/tsp.h), 2^30 >= 2D: a 2-opt move removing the edge
 * gains at most D - 2^30 and an Or-opt move inserting a path into it at
 * most 2D - 2^30, and every sum of the moves still fits an int (|sum| <=
 * 2^30 + 2D < 2^31).
 */
#define CK_ACO_CLOSING (1 << 30)

/* The longest of the two sub-paths a kick swaps. */
#define CK_ACO_KICK_REACH 30u

/* 32-bit words of scratch a segment of at most `size` cities needs with
 * k candidates: its distance matrix, neighbour lists, cities, tour,
 * positions, the tour before a kick, and don't-look bytes. */
CK_FN ck_u64 ck_aco_segment_words(ck_u32 size, ck_u32 k) {
  return (ck_u64)size * size + (ck_u64)size * k + 4u * (ck_u64)size +
         (size + 3u) / 4u;
}

/*
 * Segment `id` of a rotated tour (positions id * size .. min((id + 1) *
 * size, n) - 1) improved with its end cities fixed: local search to a
 * local optimum (2-opt, and Or-opt when or_opt is 1, on the segment's own
 * k-nearest-neighbour lists), then `kicks` rounds of iterated local
 * search: a double bridge that swaps two adjacent sub-paths of 1 to
 * CK_ACO_KICK_REACH cities, local search from the six cities it touched,
 * and the result kept when it is no longer than before (else the tour is
 * put back). Kick t draws from Philox (seed, stream 2^62 | pass << 32 |
 * id, counter t). Works in `scratch` (ck_aco_segment_words(size, k)
 * words a segment), writes the segment back into `rotated` and returns
 * the gain.
 */
CK_FN ck_i64 ck_aco_optimise_segment(CK_ACO_GRAPH, ck_u32 k, int or_opt,
                                     ck_u32 kicks, ck_u64 seed, ck_u64 pass,
                                     ck_u32 id, ck_u32 size,
                                     CK_GLOBAL ck_u32 *rotated,
                                     CK_GLOBAL ck_u32 *scratch) {
  ck_u32 first = id * size;
  ck_u32 m = n - first < size ? n - first : size;
  /* A path with fixed ends needs four cities for any move. */
  if (m < 5u)
    return 0;
  CK_GLOBAL ck_u32 *base = scratch + (ck_u64)id * ck_aco_segment_words(size, k);
  CK_GLOBAL int *dist = (CK_GLOBAL int *)base;
  CK_GLOBAL ck_u32 *lists = base + (ck_u64)size * size;
  CK_GLOBAL ck_u32 *cities = lists + (ck_u64)size * k;
  CK_GLOBAL ck_u32 *tour = cities + size;
  CK_GLOBAL ck_u32 *pos = tour + size;
  CK_GLOBAL ck_u32 *saved = pos + size;
  CK_GLOBAL ck_u8 *dont_look = (CK_GLOBAL ck_u8 *)(saved + size);
  for (ck_u32 i = 0; i < m; ++i)
    cities[i] = rotated[first + i];
  for (ck_u32 i = 0; i < m; ++i)
    for (ck_u32 j = 0; j < m; ++j)
      dist[i * m + j] =
          (i == 0u && j == m - 1u) || (j == 0u && i == m - 1u)
              ? -CK_ACO_CLOSING
              : ck_aco_distance(CK_ACO_GRAPH_ARGS, cities[i], cities[j]);
  /* Nearest first by (distance, city), leaving out the city itself and
   * its closing partner: the lists do not depend on the segment's order,
   * so a segment at a local optimum stays there in a later pass. */
  ck_u32 kl = k < m - 2u ? k : m - 2u;
  for (ck_u32 i = 0; i < m; ++i) {
    CK_GLOBAL ck_u32 *list = lists + i * kl;
    ck_u32 held = 0;
    for (ck_u32 j = 0; j < m; ++j) {
      int d = dist[i * m + j];
      if (j == i || d == -CK_ACO_CLOSING)
        continue;
      ck_u32 at = held < kl ? held++ : kl;
      while (at > 0u) {
        ck_u32 o = list[at - 1u];
        int e = dist[i * m + o];
        if (e < d || (e == d && cities[o] < cities[j]))
          break;
        if (at < kl)
          list[at] = o;
        --at;
      }
      if (at < kl)
        list[at] = j;
    }
  }
  ck_i64 length = 0;
  for (ck_u32 i = 0; i < m; ++i) {
    tour[i] = i;
    if (i + 1u < m)
      length += dist[i * m + i + 1u];
  }
  const ck_i64 start = length;
  length = ck_aco_improve(CK_ACO_FROM_MATRIX, m, dist, xy, kl, lists, or_opt,
                          tour, pos, dont_look, length);
  ck_u32 reach = (m - 2u) / 2u;
  reach = reach < CK_ACO_KICK_REACH ? reach : CK_ACO_KICK_REACH;
  ck_u64 stream = ((ck_u64)1 << 62) | (pass << 32) | (ck_u64)id;
  for (ck_u32 kick = 0; kick < kicks; ++kick) {
    ck_philox_counter r = ck_philox_block(seed, stream, (ck_u64)kick);
    ck_u32 s = CK_MULHI32(r.v[0], m);
    ck_u32 l1 = 1u + CK_MULHI32(r.v[1], reach);
    ck_u32 l2 = 1u + CK_MULHI32(r.v[2], reach);
    /* a [B: l1 cities] [C: l2 cities] d  ->  a C B d */
    ck_u32 pb = ck_aco_ahead(s, 1u, m), pc = ck_aco_ahead(pb, l1, m);
    ck_u32 pd = ck_aco_ahead(pc, l2, m);
    ck_u32 a = tour[s], b1 = tour[pb], bl = tour[ck_aco_behind(pc, 1u, m)];
    ck_u32 c1 = tour[pc], cl = tour[ck_aco_behind(pd, 1u, m)], d = tour[pd];
    int ab = dist[a * m + b1], bc = dist[bl * m + c1], cd = dist[cl * m + d];
    if (ab == -CK_ACO_CLOSING || bc == -CK_ACO_CLOSING || cd == -CK_ACO_CLOSING)
      continue;
    for (ck_u32 i = 0; i < m; ++i) {
      saved[i] = tour[i];
      dont_look[i] = 1;
    }
    for (ck_u32 t = 0; t < l1 + l2; ++t) {
      ck_u32 p = ck_aco_ahead(pb, t, m);
      ck_u32 c = t < l2 ? saved[ck_aco_ahead(pc, t, m)]
                        : saved[ck_aco_ahead(pb, t - l2, m)];
      tour[p] = c;
      pos[c] = p;
    }
    ck_u32 ends[6] = {a, b1, bl, c1, cl, d};
    for (int e = 0; e < 6; ++e)
      dont_look[ends[e]] = 0;
    ck_i64 kicked = length + dist[a * m + c1] + dist[cl * m + b1] +
                    dist[bl * m + d] - ab - bc - cd;
    kicked = ck_aco_improve_from(CK_ACO_FROM_MATRIX, m, dist, xy, kl, lists, m,
                                 or_opt, 0, tour, pos, dont_look, kicked);
    if (kicked <= length) {
      length = kicked;
    } else {
      for (ck_u32 i = 0; i < m; ++i) {
        tour[i] = saved[i];
        pos[saved[i]] = i;
      }
    }
  }
  /* Read the cycle from city 0 away from its closing partner m - 1. */
  ck_u32 p = pos[0];
  int backward = tour[ck_aco_ahead(p, 1u, m)] == m - 1u;
  for (ck_u32 t = 0; t < m; ++t) {
    rotated[first + t] = cities[tour[p]];
    p = backward ? ck_aco_behind(p, 1u, m) : ck_aco_ahead(p, 1u, m);
  }
  return start - length;
}

#endif /* CK_ACO_H */
