/*
 * ck_aco_search.h - local search on one ant's tour, array representation
 * (tour, pos and don't-look flags): the tour moves (reversal, path shift)
 * and their forms over an ant's lanes (CK_ACO_LANES_REVERSE, _SHIFT), the
 * first improving 2-opt and Or-opt moves at a city, the seeding of the
 * don't-look bits from the best tour, and the search to a local optimum.
 * ck_aco.h includes it after the graph (CK_ACO_GRAPH, ck_aco_distance),
 * which it uses: include ck_aco.h, not this.
 */
#ifndef CK_ACO_SEARCH_H
#define CK_ACO_SEARCH_H

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

/* Entries a lane moves in a round of CK_ACO_LANES_SHIFT: its reads are
 * independent, so they overlap. */
#define CK_ACO_SHIFT_DEPTH 4u

/*
 * CK_ACO_LANES_SHIFT: the shift of ck_aco_move_path, `count` path cities
 * from position `from` going next to the city at position pu: the
 * entries between them (the shorter side) move by `count` in rounds of
 * LANES x CK_ACO_SHIFT_DEPTH (read, SYNC, write, SYNC), the far end first
 * when they move up, so that no round overwrites what a later one reads.
 * Entry i of the side is read from source_ + i moving down, source_ - i
 * moving up. `at` gets the path's new first position; the caller writes
 * the path there.
 */
#define CK_ACO_LANES_SHIFT(from, count, pu, at, LANES, SYNC, CITY)             \
  do {                                                                         \
    ck_u32 from_ = (from), count_ = (count), pu_ = (pu);                       \
    ck_u32 after_ = ck_aco_ahead(from_, count_, n);                            \
    ck_u32 ahead_ = (pu_ >= after_ ? pu_ - after_ : pu_ + n - after_) + 1u;    \
    ck_u32 behind_ = (from_ >= pu_ ? from_ - pu_ : from_ + n - pu_) - 1u;      \
    int down_ = ahead_ <= behind_;                                             \
    ck_u32 total_ = down_ ? ahead_ : behind_;                                  \
    ck_u32 source_ = down_ ? after_ : ck_aco_ahead(pu_, behind_, n);           \
    SYNC();                                                                    \
    for (ck_u32 base_ = 0; base_ < total_;                                     \
         base_ += (LANES)*CK_ACO_SHIFT_DEPTH) {                                \
      ck_u32 c_[CK_ACO_SHIFT_DEPTH];                                           \
      for (ck_u32 d_ = 0; d_ < CK_ACO_SHIFT_DEPTH; ++d_) {                     \
        ck_u32 i_ = base_ + d_ * (LANES) + l;                                  \
        c_[d_] = i_ < total_ ? tour[down_ ? ck_aco_ahead(source_, i_, n)       \
                                          : ck_aco_behind(source_, i_, n)]     \
                             : 0u;                                             \
      }                                                                        \
      SYNC();                                                                  \
      for (ck_u32 d_ = 0; d_ < CK_ACO_SHIFT_DEPTH; ++d_) {                     \
        ck_u32 i_ = base_ + d_ * (LANES) + l;                                  \
        if (i_ < total_) {                                                     \
          ck_u32 p_ =                                                          \
              down_ ? ck_aco_ahead(from_, i_, n)                               \
                    : ck_aco_ahead(ck_aco_behind(source_, i_, n), count_, n);  \
          tour[p_] = (CITY)c_[d_];                                             \
          pos[c_[d_]] = (CITY)p_;                                              \
        }                                                                      \
      }                                                                        \
      SYNC();                                                                  \
    }                                                                          \
    (at) = down_ ? ck_aco_ahead(from_, ahead_, n) : ck_aco_ahead(pu_, 1u, n);  \
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

/* The first improving move at city a: 2-opt, else Or-opt with or_opt.
 * Applies it and returns the gain (0: none); touched[0 .. *ends - 1] get
 * the cities whose tour neighbours changed. */
CK_FN int ck_aco_move_at(CK_ACO_GRAPH, ck_u32 k,
                         CK_GLOBAL const ck_u32 *neighbours, ck_u32 longest,
                         int or_opt, CK_GLOBAL ck_u32 *tour,
                         CK_GLOBAL ck_u32 *pos, ck_u32 a, ck_u32 *touched,
                         int *ends) {
  *ends = 4;
  int gain = ck_aco_two_opt_at(CK_ACO_GRAPH_ARGS, k, neighbours, longest, tour,
                               pos, a, touched);
  if (gain == 0 && or_opt) {
    gain = ck_aco_or_opt_at(CK_ACO_GRAPH_ARGS, k, neighbours, longest, tour,
                            pos, a, touched);
    *ends = 6;
  }
  return gain;
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
      int ends;
      int gain = ck_aco_move_at(CK_ACO_GRAPH_ARGS, k, neighbours, longest,
                                or_opt, tour, pos, a, touched, &ends);
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

#endif /* CK_ACO_SEARCH_H */
