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
 * Per ant, arrays of n entries: tour (city at each position), pos
 * (position of each city) and visited / don't-look flags (bytes).
 *
 * Random draws: Philox keyed by the seed; ant a of iteration t uses
 * stream (t << 32) | a, counter (s - 1) / 2 for the words of construction
 * step s >= 1 (two words a step: the pseudo-random proportional test, then
 * the roulette), and the stream with bit 63 set for its start city.
 */
#ifndef CK_ACO_H
#define CK_ACO_H

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
 * Builds ant `ant`'s tour for iteration `iteration` into tour[0..n-1] and
 * returns its length. Each step moves from the current city to an
 * unvisited candidate: with probability q0 the one of largest choice
 * (ACS's pseudo-random proportional rule; q0 = 0 for MMAS), otherwise one
 * drawn with probability proportional to its choice value. Only when every
 * candidate is visited does it take the nearest unvisited city, scanning
 * all of them (ties to the lower index).
 */
CK_FN ck_i64 ck_aco_construct(CK_ACO_GRAPH, ck_u32 k,
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
    ck_u32 lane = ((step - 1u) & 1u) * 2u;
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
    if (best == n) {
      /* Every candidate is visited: the nearest unvisited city. */
      int nearest = 0x7FFFFFFF;
      for (ck_u32 c = 0; c < n; ++c) {
        if (visited[c])
          continue;
        int d = ck_aco_distance(CK_ACO_GRAPH_ARGS, current, c);
        if (d < nearest) {
          nearest = d;
          next = c;
        }
      }
    } else if (!(q0 > 0.0f && ck_uniform_float(ck_philox_word(r, lane)) < q0)) {
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
    visited[next] = 1;
    tour[step] = next;
    length += ck_aco_distance(CK_ACO_GRAPH_ARGS, current, next);
    current = next;
  }
  return length + ck_aco_distance(CK_ACO_GRAPH_ARGS, current, start);
}

/* ---- local search on one tour, array representation -------------------- */

/* Reverses the tour path from position i forward to position j (cyclic),
 * or, when shorter, the complementary path: the same cyclic tour. */
CK_FN void ck_aco_reverse(ck_u32 n, CK_GLOBAL ck_u32 *tour,
                          CK_GLOBAL ck_u32 *pos, ck_u32 i, ck_u32 j) {
  ck_u32 count = (j + n - i) % n + 1u;
  if (2u * count > n) {
    ck_u32 first = (j + 1u) % n;
    j = (i + n - 1u) % n;
    i = first;
    count = n - count;
  }
  for (ck_u32 t = 0; t < count / 2u; ++t) {
    ck_u32 a = tour[i], b = tour[j];
    tour[i] = b;
    pos[b] = i;
    tour[j] = a;
    pos[a] = j;
    i = i + 1u == n ? 0u : i + 1u;
    j = j == 0u ? n - 1u : j - 1u;
  }
}

CK_FN ck_u32 ck_aco_next(ck_u32 n, CK_GLOBAL const ck_u32 *tour,
                         CK_GLOBAL const ck_u32 *pos, ck_u32 c) {
  ck_u32 p = pos[c] + 1u;
  return tour[p == n ? 0u : p];
}

CK_FN ck_u32 ck_aco_previous(ck_u32 n, CK_GLOBAL const ck_u32 *tour,
                             CK_GLOBAL const ck_u32 *pos, ck_u32 c) {
  ck_u32 p = pos[c];
  return tour[p == 0u ? n - 1u : p - 1u];
}

/* Entries ck_aco_reverse moves for the path from position i to j. */
CK_FN ck_u32 ck_aco_reversal_size(ck_u32 n, ck_u32 i, ck_u32 j) {
  ck_u32 count = (j >= i ? j - i : j + n - i) + 1u;
  return 2u * count > n ? n - count : count;
}

/* Entries ck_aco_move_path shifts to move `count` entries from position
 * `from` next to the city at position pu. */
CK_FN ck_u32 ck_aco_shift_size(ck_u32 n, ck_u32 from, ck_u32 count, ck_u32 pu) {
  ck_u32 after = (from + count) % n;
  ck_u32 ahead = (pu + n - after) % n + 1u;
  ck_u32 behind = (from + n - pu) % n - 1u;
  return ahead <= behind ? ahead : behind;
}

/* i + t and j - t on a cycle of n (t <= n), without a remainder. */
CK_FN ck_u32 ck_aco_ahead(ck_u32 i, ck_u32 t, ck_u32 n) {
  ck_u32 p = i + t;
  return p >= n ? p - n : p;
}

CK_FN ck_u32 ck_aco_behind(ck_u32 j, ck_u32 t, ck_u32 n) {
  return j >= t ? j - t : j + n - t;
}

/*
 * The tour moves of the kernels that spread an ant over LANES lanes (the
 * group kernels of aco.cl, the warp kernels of aco.cu), written once:
 * lane l takes entries l, l + LANES, ...; SYNC() waits for the ant's
 * lanes; CITY is the type tour and pos store. They use the names of the
 * caller's arguments, n, tour, pos and l, and every lane has read what it
 * needs before either starts.
 *
 * CK_ACO_LANES_REVERSE: ck_aco_reverse of positions i..j (the shorter
 * side of the cycle), pairs swapped in place (disjoint: no lane reads an
 * entry another one writes).
 */
#define CK_ACO_LANES_REVERSE(i, j, LANES, SYNC, CITY)                          \
  do {                                                                         \
    ck_u32 i_ = (i), j_ = (j);                                                 \
    ck_u32 count_ = (j_ >= i_ ? j_ - i_ : j_ + n - i_) + 1u;                   \
    ck_u32 first_ = i_, last_ = j_;                                            \
    if (2u * count_ > n) {                                                     \
      first_ = j_ + 1u == n ? 0u : j_ + 1u;                                    \
      last_ = i_ == 0u ? n - 1u : i_ - 1u;                                     \
      count_ = n - count_;                                                     \
    }                                                                          \
    SYNC();                                                                    \
    for (ck_u32 t_ = l; t_ < count_ / 2u; t_ += (LANES)) {                     \
      ck_u32 p_ = ck_aco_ahead(first_, t_, n);                                 \
      ck_u32 q_ = ck_aco_behind(last_, t_, n);                                 \
      CITY a_ = tour[p_], b_ = tour[q_];                                       \
      tour[p_] = b_;                                                           \
      pos[b_] = (CITY)p_;                                                      \
      tour[q_] = a_;                                                           \
      pos[a_] = (CITY)q_;                                                      \
    }                                                                          \
    SYNC();                                                                    \
  } while (0)

/*
 * CK_ACO_LANES_SHIFT: the shift of ck_aco_move_path, `count` path cities
 * from position `from` going next to the city at position pu: the entries
 * between them move by `count` in rounds of LANES (read, SYNC, write,
 * SYNC), the far end first when they move up, so that no round
 * overwrites what a later one reads. `at` gets the path's new first
 * position; the caller writes the path there.
 */
#define CK_ACO_LANES_SHIFT(from, count, pu, at, LANES, SYNC, CITY)             \
  do {                                                                         \
    ck_u32 from_ = (from), count_ = (count), pu_ = (pu);                       \
    ck_u32 after_ = ck_aco_ahead(from_, count_, n);                            \
    ck_u32 ahead_ = (pu_ >= after_ ? pu_ - after_ : pu_ + n - after_) + 1u;    \
    ck_u32 behind_ = (from_ >= pu_ ? from_ - pu_ : from_ + n - pu_) - 1u;      \
    SYNC();                                                                    \
    if (ahead_ <= behind_) {                                                   \
      for (ck_u32 base_ = 0; base_ < ahead_; base_ += (LANES)) {               \
        ck_u32 t_ = base_ + l, c_ = 0;                                         \
        if (t_ < ahead_)                                                       \
          c_ = tour[ck_aco_ahead(after_, t_, n)];                              \
        SYNC();                                                                \
        if (t_ < ahead_) {                                                     \
          ck_u32 p_ = ck_aco_ahead(from_, t_, n);                              \
          tour[p_] = (CITY)c_;                                                 \
          pos[c_] = (CITY)p_;                                                  \
        }                                                                      \
        SYNC();                                                                \
      }                                                                        \
      (at) = ck_aco_ahead(from_, ahead_, n);                                   \
    } else {                                                                   \
      for (ck_u32 top_ = behind_; top_ > 0;) {                                 \
        ck_u32 chunk_ = top_ < (LANES) ? top_ : (LANES);                       \
        ck_u32 t_ = top_ - l, c_ = 0;                                          \
        if (l < chunk_)                                                        \
          c_ = tour[ck_aco_ahead(pu_, t_, n)];                                 \
        SYNC();                                                                \
        if (l < chunk_) {                                                      \
          ck_u32 p_ = ck_aco_ahead(pu_, t_ + count_, n);                       \
          tour[p_] = (CITY)c_;                                                 \
          pos[c_] = (CITY)p_;                                                  \
        }                                                                      \
        SYNC();                                                                \
        top_ -= chunk_;                                                        \
      }                                                                        \
      (at) = ck_aco_ahead(pu_, 1u, n);                                         \
    }                                                                          \
  } while (0)

/*
 * The first improving 2-opt move at city a, by its neighbour list: for
 * each tour neighbour b of a (successor, then predecessor) and each
 * candidate c with d(a, c) < d(a, b), exchange edges (a, b) and (c, c')
 * (c' on the same side of c as b of a) for (a, c) and (b, c'), unless
 * the reversal would move more than `longest` entries. Applies it and
 * returns the gain (0: none); touched[0..3] get the four end cities.
 */
CK_FN int ck_aco_two_opt_at(CK_ACO_GRAPH, ck_u32 k,
                            CK_GLOBAL const ck_u32 *neighbours, ck_u32 longest,
                            CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos,
                            ck_u32 a, ck_u32 *touched) {
  CK_GLOBAL const ck_u32 *list = neighbours + (ck_u64)a * k;
  for (int forward = 1; forward >= 0; --forward) {
    ck_u32 b = forward ? ck_aco_next(n, tour, pos, a)
                       : ck_aco_previous(n, tour, pos, a);
    int d_ab = ck_aco_distance(CK_ACO_GRAPH_ARGS, a, b);
    for (ck_u32 j = 0; j < k; ++j) {
      ck_u32 c = list[j];
      int d_ac = ck_aco_distance(CK_ACO_GRAPH_ARGS, a, c);
      if (d_ac >= d_ab)
        break;
      ck_u32 c2 = forward ? ck_aco_next(n, tour, pos, c)
                          : ck_aco_previous(n, tour, pos, c);
      if (c2 == a || c == b)
        continue;
      int gain = d_ab + ck_aco_distance(CK_ACO_GRAPH_ARGS, c, c2) - d_ac -
                 ck_aco_distance(CK_ACO_GRAPH_ARGS, b, c2);
      if (gain > 0 && ck_aco_reversal_size(n, forward ? pos[b] : pos[c],
                                           forward ? pos[c] : pos[b]) > longest)
        continue;
      if (gain > 0) {
        /* forward: a b ... c c2 -> a c ... b c2; backward: the mirror. */
        if (forward)
          ck_aco_reverse(n, tour, pos, pos[b], pos[c]);
        else
          ck_aco_reverse(n, tour, pos, pos[c], pos[b]);
        touched[0] = a;
        touched[1] = b;
        touched[2] = c;
        touched[3] = c2;
        return gain;
      }
    }
  }
  return 0;
}

/*
 * Moves the path of `count` positions from position `from` (cyclic) so
 * that it sits between cities u and v = next(u), first city next to u when
 * `reversed` is 0, else last city next to u. Shifts whichever side of the
 * tour between the path and u is shorter.
 */
CK_FN void ck_aco_move_path(ck_u32 n, CK_GLOBAL ck_u32 *tour,
                            CK_GLOBAL ck_u32 *pos, ck_u32 from, ck_u32 count,
                            ck_u32 u, int reversed) {
  ck_u32 path[3];
  for (ck_u32 t = 0; t < count; ++t)
    path[t] = tour[(from + t) % n];
  ck_u32 after = (from + count) % n; /* first position past the path */
  ck_u32 pu = pos[u];
  ck_u32 ahead = (pu + n - after) % n + 1u; /* positions after..pu */
  ck_u32 behind = (from + n - pu) % n - 1u; /* positions pu+1..from-1 */
  ck_u32 at;
  if (ahead <= behind) {
    /* [path][after .. u] -> [after .. u][path] */
    for (ck_u32 t = 0; t < ahead; ++t) {
      ck_u32 c = tour[(after + t) % n];
      ck_u32 p = (from + t) % n;
      tour[p] = c;
      pos[c] = p;
    }
    at = (from + ahead) % n;
  } else {
    /* [v .. before path][path] -> [path][v .. before path] */
    for (ck_u32 t = behind; t > 0; --t) {
      ck_u32 c = tour[(pu + t) % n];
      ck_u32 p = (pu + t + count) % n;
      tour[p] = c;
      pos[c] = p;
    }
    at = (pu + 1u) % n;
  }
  for (ck_u32 t = 0; t < count; ++t) {
    ck_u32 c = reversed ? path[count - 1u - t] : path[t];
    ck_u32 p = (at + t) % n;
    tour[p] = c;
    pos[c] = p;
  }
}

/* Offset of position p after position from, on a cycle of n. */
CK_FN ck_u32 ck_aco_offset(ck_u32 p, ck_u32 from, ck_u32 n) {
  return p >= from ? p - from : p + n - from;
}

/* The Or-opt move of the path (first .. last, `count` cities from position
 * `from`) next to candidate c of end e, on side `side` (0: between c and
 * its successor, 1: between its predecessor and c), with e next to c: its
 * insertion city u (the path goes between u and its successor), whether
 * the path is reversed, and its gain (0 when u or v lies on the path). */
CK_FN int ck_aco_or_move(CK_ACO_GRAPH, CK_GLOBAL const ck_u32 *tour,
                         CK_GLOBAL const ck_u32 *pos, ck_u32 from, ck_u32 count,
                         ck_u32 first, ck_u32 last, ck_u32 e, ck_u32 c,
                         int side, int removed, ck_u32 *u_out, int *reversed) {
  ck_u32 u = side ? ck_aco_previous(n, tour, pos, c) : c;
  ck_u32 v = side ? c : ck_aco_next(n, tour, pos, c);
  if (ck_aco_offset(pos[u], from, n) < count ||
      ck_aco_offset(pos[v], from, n) < count)
    return 0;
  ck_u32 near_u = side ? (e == first ? last : first) : e;
  ck_u32 near_v = near_u == first ? last : first;
  int added = ck_aco_distance(CK_ACO_GRAPH_ARGS, u, near_u) +
              ck_aco_distance(CK_ACO_GRAPH_ARGS, near_v, v) -
              ck_aco_distance(CK_ACO_GRAPH_ARGS, u, v);
  *u_out = u;
  *reversed = near_u != first;
  return removed - added;
}

/*
 * The first improving Or-opt move at city a: the path of 1 to 3 cities
 * starting at a (forward) is taken out and put between a candidate c of
 * its first or last city and one of c's tour neighbours, in the
 * orientation that puts that end next to c, unless that would shift more
 * than `longest` entries. Applies it and returns the gain (0: none);
 * touched[0..5] get the ends involved.
 */
CK_FN int ck_aco_or_opt_at(CK_ACO_GRAPH, ck_u32 k,
                           CK_GLOBAL const ck_u32 *neighbours, ck_u32 longest,
                           CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos,
                           ck_u32 a, ck_u32 *touched) {
  ck_u32 from = pos[a];
  for (ck_u32 count = 1; count <= 3u && count + 3u <= n; ++count) {
    ck_u32 first = a, last = tour[(from + count - 1u) % n];
    ck_u32 p = tour[(from + n - 1u) % n], q = tour[(from + count) % n];
    int removed = ck_aco_distance(CK_ACO_GRAPH_ARGS, p, first) +
                  ck_aco_distance(CK_ACO_GRAPH_ARGS, last, q) -
                  ck_aco_distance(CK_ACO_GRAPH_ARGS, p, q);
    if (removed <= 0)
      continue;
    for (int end = 0; end < 2; ++end) {
      ck_u32 e = end ? last : first;
      if (end && count == 1u)
        break;
      CK_GLOBAL const ck_u32 *list = neighbours + (ck_u64)e * k;
      for (ck_u32 j = 0; j < k; ++j) {
        ck_u32 c = list[j];
        int d_ec = ck_aco_distance(CK_ACO_GRAPH_ARGS, e, c);
        if (d_ec >= removed)
          break;
        if (ck_aco_offset(pos[c], from, n) < count)
          continue; /* c lies on the path */
        for (int side = 0; side < 2; ++side) {
          ck_u32 u;
          int reversed;
          int gain =
              ck_aco_or_move(CK_ACO_GRAPH_ARGS, tour, pos, from, count, first,
                             last, e, c, side, removed, &u, &reversed);
          if (gain > 0 && ck_aco_shift_size(n, from, count, pos[u]) > longest)
            continue;
          if (gain > 0) {
            ck_u32 v = ck_aco_next(n, tour, pos, u);
            ck_aco_move_path(n, tour, pos, from, count, u, reversed);
            touched[0] = p;
            touched[1] = q;
            touched[2] = first;
            touched[3] = last;
            touched[4] = u;
            touched[5] = v;
            return gain;
          }
        }
      }
    }
  }
  return 0;
}

/*
 * Position i of a tour before local search: the city's position, and its
 * don't-look bit. With `seeded`, the bit starts set when the city's two
 * tour neighbours are its two neighbours in the best tour so far (given
 * with its positions): the best tour is a local optimum, so moves are
 * looked for only around the edges this tour does not share with it.
 */
CK_FN void ck_aco_seed_position(ck_u32 n, CK_GLOBAL const ck_u32 *tour,
                                int seeded, CK_GLOBAL const ck_u32 *best_tour,
                                CK_GLOBAL const ck_u32 *best_pos,
                                CK_GLOBAL ck_u32 *pos,
                                CK_GLOBAL ck_u8 *dont_look, ck_u32 i) {
  ck_u32 a = tour[i];
  pos[a] = i;
  int same = 0;
  if (seeded) {
    ck_u32 previous = tour[i == 0u ? n - 1u : i - 1u];
    ck_u32 next = tour[i + 1u == n ? 0u : i + 1u];
    ck_u32 at = best_pos[a];
    ck_u32 b1 = best_tour[at == 0u ? n - 1u : at - 1u];
    ck_u32 b2 = best_tour[at + 1u == n ? 0u : at + 1u];
    same = (previous == b1 || previous == b2) && (next == b1 || next == b2);
  }
  dont_look[a] = (ck_u8)same;
}

/*
 * Local search on one tour of the given length, whose pos and dont_look
 * the caller has set (ck_aco_seed_position), by 2-opt (and Or-opt when
 * or_opt is 1) moves from neighbour lists with don't-look bits: cities are
 * visited in tour order, a city whose moves all fail is marked, and the
 * ends of every applied move are unmarked. With `final_round`, once the
 * bits settle after a round that moved something, every bit is cleared for
 * another round (a marked city is not looked at again when a later move
 * changes its candidates' tour neighbours), so the search ends at a true
 * local optimum. Moves that would reverse or shift more than `longest`
 * entries are left out (n: none is). Returns the new length.
 */
CK_FN ck_i64 ck_aco_improve_from(CK_ACO_GRAPH, ck_u32 k,
                                 CK_GLOBAL const ck_u32 *neighbours,
                                 ck_u32 longest, int or_opt, int final_round,
                                 CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos,
                                 CK_GLOBAL ck_u8 *dont_look, ck_i64 length) {
  int improved = 1, moved = 0;
  while (improved) {
    improved = 0;
    for (ck_u32 i = 0; i < n; ++i) {
      ck_u32 a = tour[i];
      if (dont_look[a])
        continue;
      ck_u32 touched[6];
      int gain = ck_aco_two_opt_at(CK_ACO_GRAPH_ARGS, k, neighbours, longest,
                                   tour, pos, a, touched);
      int ends = 4;
      if (gain == 0 && or_opt) {
        gain = ck_aco_or_opt_at(CK_ACO_GRAPH_ARGS, k, neighbours, longest, tour,
                                pos, a, touched);
        ends = 6;
      }
      if (gain > 0) {
        length -= gain;
        improved = moved = 1;
        for (int t = 0; t < ends; ++t)
          dont_look[touched[t]] = 0;
      } else {
        dont_look[a] = 1;
      }
    }
    if (!improved && moved && final_round) {
      for (ck_u32 c = 0; c < n; ++c)
        dont_look[c] = 0;
      improved = 1;
      moved = 0;
    }
  }
  return length;
}

/* Local search from scratch (every bit clear) to a true local optimum. */
CK_FN ck_i64 ck_aco_improve(CK_ACO_GRAPH, ck_u32 k,
                            CK_GLOBAL const ck_u32 *neighbours, int or_opt,
                            CK_GLOBAL ck_u32 *tour, CK_GLOBAL ck_u32 *pos,
                            CK_GLOBAL ck_u8 *dont_look, ck_i64 length) {
  for (ck_u32 i = 0; i < n; ++i)
    ck_aco_seed_position(n, tour, 0, tour, pos, pos, dont_look, i);
  return ck_aco_improve_from(CK_ACO_GRAPH_ARGS, k, neighbours, n, or_opt, 1,
                             tour, pos, dont_look, length);
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

/* Position i of the best tour rotated by `offset` positions: its city,
 * the city's position and its segment (i / size). */
CK_FN void ck_aco_rotate_position(ck_u32 n, ck_u32 offset, ck_u32 size,
                                  CK_GLOBAL const ck_u32 *best,
                                  CK_GLOBAL ck_u32 *rotated,
                                  CK_GLOBAL ck_u32 *positions,
                                  CK_GLOBAL ck_u32 *segment, ck_u32 i) {
  ck_u32 at = i + offset;
  ck_u32 city = best[at >= n ? at - n : at];
  rotated[i] = city;
  positions[city] = i;
  segment[city] = i / size;
}

/*
 * 2-opt restricted to positions first .. last of a tour (their cities keep
 * their ends fixed): moves exchange two edges inside the segment and
 * reverse the path between them, found by neighbour lists; a candidate is
 * used only when segment[c] == id. Runs to a local optimum and returns the
 * gain.
 */
CK_FN ck_i64 ck_aco_segment_two_opt(CK_ACO_GRAPH, ck_u32 k,
                                    CK_GLOBAL const ck_u32 *neighbours,
                                    CK_GLOBAL const ck_u32 *segment, ck_u32 id,
                                    ck_u32 first, ck_u32 last,
                                    CK_GLOBAL ck_u32 *tour,
                                    CK_GLOBAL ck_u32 *pos) {
  ck_i64 total = 0;
  int improved = 1;
  while (improved) {
    improved = 0;
    for (ck_u32 i = first; i < last; ++i) {
      /*
       * Edge (a, b) at positions i, i + 1. Side 0 pairs a with a candidate
       * c and b with c's successor; side 1 pairs b with c and a with c's
       * predecessor. The other edge out is at position `other`; the path
       * between the two edges is reversed.
       */
      ck_u32 a = tour[i], b = tour[i + 1u];
      int d_ab = ck_aco_distance(CK_ACO_GRAPH_ARGS, a, b);
      int moved = 0;
      for (int side = 0; side < 2 && !moved; ++side) {
        ck_u32 e = side ? b : a, f = side ? a : b;
        CK_GLOBAL const ck_u32 *list = neighbours + (ck_u64)e * k;
        for (ck_u32 j = 0; j < k; ++j) {
          ck_u32 c = list[j];
          int d_ec = ck_aco_distance(CK_ACO_GRAPH_ARGS, e, c);
          if (d_ec >= d_ab)
            break;
          if (segment[c] != id)
            continue;
          ck_u32 pc = pos[c];
          if (side ? pc <= first : pc >= last)
            continue;
          ck_u32 other = side ? pc - 1u : pc;
          if (other == i)
            continue;
          ck_u32 c2 = tour[side ? pc - 1u : pc + 1u];
          int gain = d_ab + ck_aco_distance(CK_ACO_GRAPH_ARGS, c, c2) - d_ec -
                     ck_aco_distance(CK_ACO_GRAPH_ARGS, f, c2);
          if (gain > 0) {
            ck_u32 low = i < other ? i : other, high = i < other ? other : i;
            for (ck_u32 s = low + 1u, t = high; s < t; ++s, --t) {
              ck_u32 u = tour[s], v = tour[t];
              tour[s] = v;
              pos[v] = s;
              tour[t] = u;
              pos[u] = t;
            }
            total += gain;
            moved = improved = 1;
            break;
          }
        }
      }
    }
  }
  return total;
}

/* Segment `id` (positions id * size .. min((id + 1) * size, n) - 1) of a
 * rotated tour, improved by ck_aco_segment_two_opt; returns the gain. */
CK_FN ck_i64 ck_aco_improve_segment(CK_ACO_GRAPH, ck_u32 k,
                                    CK_GLOBAL const ck_u32 *neighbours,
                                    CK_GLOBAL const ck_u32 *segment, ck_u32 id,
                                    ck_u32 size, CK_GLOBAL ck_u32 *rotated,
                                    CK_GLOBAL ck_u32 *positions) {
  ck_u32 first = id * size;
  ck_u32 last = first + size < n ? first + size - 1u : n - 1u;
  return ck_aco_segment_two_opt(CK_ACO_GRAPH_ARGS, k, neighbours, segment, id,
                                first, last, rotated, positions);
}

#endif /* CK_ACO_H */
