/*
 * ck_ga_schedule.h - how one launch of the native GA generation (ga.cu)
 * takes its islands through the ring migrations inside it, written once
 * for the kernel and for the host, which sizes the launch and tests the
 * order (tests/test_ga.c).
 *
 * A launch makes generations first .. first + count - 1. With migrations
 * every `every` generations, one follows each generation that is a
 * multiple of `every`; those after a generation before the launch's last
 * cut the launch into segments, and one after its last is the launch's to
 * send and the next launch's to receive (CK_GA_EMIGRATE, CK_GA_IMMIGRATE).
 *
 * Island i starts segment j > 0 by receiving the migrants that its source
 * i - 1 (the ring) sent after segment j - 1. The islands do not all fit
 * on the GPU at once, so each goes through device memory now and then;
 * rather than after every segment (a launch a migration), an island is
 * loaded once for up to `per_task` = K segments (a task), and tasks are
 * taken in ticket order by whichever block is free. Sweep s holds a task
 * for every island, and after it island i has made
 *
 *   min(segments, s K + lead(i))
 *
 * segments. The islands fall into K classes, i mod K, each a segment
 * ahead of the class before: lead(i) = 1 + i mod K. A sweep takes the
 * classes in order, each in falling ring order, so that the segments an
 * island needs from its source were made about I / K tickets before, by
 * the class before in the same sweep or, for class 0, whose source is of
 * class K - 1, in the sweep before: the tasks it waits for have long
 * been running, where with the islands in ring order each waits for the
 * one taken just before it. When K does not divide I, the last I mod K
 * islands follow the classes in ring order, each a segment ahead of the
 * island before, whose task it may wait for; the source of island 0 is
 * then still at least K - 1 segments ahead of it. Every task waits only
 * for tasks of earlier tickets, whose blocks are already running, so the
 * order cannot deadlock, however few blocks run at once. per_task is at
 * most the number of islands.
 */
#ifndef CK_GA_SCHEDULE_H
#define CK_GA_SCHEDULE_H

#include "ck_prelude.h"

/* Segments of a launch of `count` generations from `first` (one when
 * nothing migrates inside it, `every` 0, or it makes none). */
CK_FN ck_u32 ck_ga_segments(ck_u64 first, ck_u32 count, ck_u32 every) {
  if (every == 0u || count < 2u)
    return 1u;
  ck_u64 last = first + count - 1u;
  ck_u64 boundary = (first + every - 1u) / every * every;
  if (boundary >= last)
    return 1u;
  return 2u + (ck_u32)((last - 1u - boundary) / every);
}

/* The first generation of segment `segment` (below ck_ga_segments) and,
 * in *made, how many generations it makes. */
CK_FN ck_u64 ck_ga_segment_start(ck_u64 first, ck_u32 count, ck_u32 every,
                                 ck_u32 segment, ck_u32 *made) {
  if (every == 0u || count == 0u) {
    *made = count;
    return first;
  }
  ck_u64 last = first + count - 1u;
  ck_u64 boundary = (first + every - 1u) / every * every;
  ck_u64 start =
      segment == 0u ? first : boundary + (ck_u64)(segment - 1u) * every + 1u;
  ck_u64 end = boundary + (ck_u64)segment * every;
  end = end < last ? end : last;
  *made = (ck_u32)(end - start + 1u);
  return start;
}

/* The number over the run of the migration that follows segment
 * `segment` of a launch from `first` (migration n follows generation
 * n x every, every > 0): the launch's first boundary's, then one a
 * segment. Kernels on several GPUs count the migrations that cross them
 * by it. */
CK_FN ck_u32 ck_ga_segment_migration(ck_u64 first, ck_u32 every,
                                     ck_u32 segment) {
  return (ck_u32)((first + every - 1u) / every) + segment;
}

/* Sweeps of tasks that take every island through `segments`. */
CK_FN ck_u32 ck_ga_sweeps(ck_u32 segments, ck_u32 per_task) {
  return segments < 2u ? 1u : (segments - 2u) / per_task + 2u;
}

/* The segments island `island` of `islands` has made, beyond s K, after
 * sweep s (lead(i) above). */
CK_FN ck_u32 ck_ga_lead(ck_u32 island, ck_u32 islands, ck_u32 per_task) {
  ck_u32 classed = islands - islands % per_task;
  return island < classed ? 1u + island % per_task
                          : per_task + 1u + (island - classed);
}

/* Segments island `island` has made after sweep `sweep`. */
CK_FN ck_u32 ck_ga_sweep_end(ck_u32 sweep, ck_u32 island, ck_u32 islands,
                             ck_u32 segments, ck_u32 per_task) {
  ck_u64 end = (ck_u64)sweep * per_task + ck_ga_lead(island, islands, per_task);
  return end < segments ? (ck_u32)end : segments;
}

/* The island at place `place` of a sweep: class by class (i mod K), each
 * in falling ring order, then the islands past the last whole class. */
CK_FN ck_u32 ck_ga_sweep_island(ck_u32 place, ck_u32 islands, ck_u32 per_task) {
  ck_u32 a_class = islands / per_task;
  if (place >= a_class * per_task)
    return place;
  return place / a_class + per_task * (a_class - 1u - place % a_class);
}

/* The task of ticket `ticket` (below ck_ga_sweeps x islands): returns its
 * island, and its segments in [*begin, *end) (none when they are equal). */
CK_FN ck_u32 ck_ga_task(ck_u32 ticket, ck_u32 islands, ck_u32 segments,
                        ck_u32 per_task, ck_u32 *begin, ck_u32 *end) {
  ck_u32 sweep = ticket / islands;
  ck_u32 island = ck_ga_sweep_island(ticket % islands, islands, per_task);
  *begin =
      sweep ? ck_ga_sweep_end(sweep - 1u, island, islands, segments, per_task)
            : 0u;
  *end = ck_ga_sweep_end(sweep, island, islands, segments, per_task);
  return island;
}

#endif /* CK_GA_SCHEDULE_H */
