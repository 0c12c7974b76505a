/*
 * test_halo.c - the halo's steps (framework/halo.h) over a toy workload
 * of its own: walkers in a periodic box, each a point that moves a
 * little every step, held by the member whose slab (or grid box) holds
 * it, on host memory. After every rebuild and every crossing each walker
 * must be held by exactly one member, the right one, and each member must
 * keep as ghosts exactly its neighbours' walkers within reach of its
 * slab, corners of a grid too, where they are. Between rebuilds the
 * forward passes must carry every ghost to where its walker is. A member
 * that expects other ghosts than it receives fails the step. Then the
 * resident steps (halo_resident.c) over a ring of beads whose members
 * read each other's buffers where the halo's views say.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "framework/domain.h"
#include "framework/engine.h"
#include "framework/halo.h"
#include "framework/spread.h"
#include "test_support.h"

#define WALKERS 600
#define MEMBERS 4
#define STEPS 12
#define REACH 2.0
/* A walker's step along each axis is at most this: a rebuild every
 * REBUILD_EVERY steps keeps it within one neighbour's slab. */
#define STRIDE (0.15 * REACH)
#define REBUILD_EVERY 3

static ck_device devices[MEMBERS];

/* An entry as it crosses: its walker's id, then its coordinates in the
 * receiver's box (u along the cut, v across). */
typedef struct entry {
  double id, uv[2];
} entry;

/* Where an export's walker is kept: among the member's own (0) or its
 * stage-0 ghosts (1), at index. */
typedef struct ref {
  int list;
  size_t index;
} ref;

typedef struct list {
  entry *at;
  size_t count, room;
} list;

typedef struct walker_member {
  ck__domain_place place[2];
  list own, ghosts[2], kept; /* kept: the migrants of a crossing */
  list out[2], migrants[2];  /* what it sends each way */
  ref *exports[2][2];        /* [stage][side], their count the halo's */
  size_t export_room[2][2];
} walker_member;

typedef struct walkers {
  ck__domain domain;
  ck__halo halo;
  double truth[2 * WALKERS]; /* every walker's x, y */
  walker_member members[MEMBERS];
  int failed; /* a toy op's own check failed */
} walkers;

static void push(list *l, entry e) {
  if (l->count == l->room) {
    l->room = l->room ? 2 * l->room : 64;
    l->at = realloc(l->at, l->room * sizeof *l->at);
  }
  l->at[l->count++] = e;
}

static void push_ref(walker_member *m, int stage, int side, ref r,
                     size_t count) {
  if (count == m->export_room[stage][side]) {
    m->export_room[stage][side] = count ? 2 * count : 64;
    m->exports[stage][side] = realloc(
        m->exports[stage][side], m->export_room[stage][side] * sizeof(ref));
  }
  m->exports[stage][side][count] = r;
}

/* A walker's coordinate along axis a in member place's box. */
static double local(const walkers *w, const ck__domain_place *place, int a,
                    double x) {
  return ck__domain_wrap(x - place[a].origin, ck__domain_length(&w->domain, a));
}

/* Where walker `id` is, in a member's coordinates: checked against where
 * it truly is. */
static int where_it_is(const walkers *w, const walker_member *m,
                       const entry *e) {
  double xy[2];
  ck__domain_to_box(&w->domain, m->place, e->uv[0], e->uv[1], xy);
  const double *truth = &w->truth[2 * (size_t)e->id];
  for (int a = 0; a < 2; ++a) {
    double gap = fabs(xy[a] - truth[a]), box = w->domain.box[a];
    if (fmin(gap, box - gap) > 1e-9)
      return 0;
  }
  return 1;
}

/* ---- the toy's halo ops -------------------------------------------------- */

static entry shifted(entry e, int stage, double shift) {
  e.uv[stage] += shift;
  return e;
}

/* Whether coordinate c lies within reach of a border toward side. */
static int near(const walkers *w, const ck__domain_place *p, int side,
                double c) {
  return side ? c >= p->border[1] - w->domain.reach
              : c < p->border[0] + w->domain.reach;
}

/* Its walkers past a border along the stage's axis, taken from its own
 * into to[side] in the receiver's coordinates (and into kept, where not
 * NULL, in its own). */
static void take_migrants(walker_member *m, int stage, list to[2], list *kept) {
  const ck__domain_place *p = &m->place[stage];
  size_t stay = 0;
  to[0].count = to[1].count = 0;
  for (size_t k = 0; k < m->own.count; ++k) {
    entry e = m->own.at[k];
    double c = e.uv[stage];
    int side = c < p->border[0] ? 0 : c >= p->border[1] ? 1 : -1;
    if (side < 0) {
      m->own.at[stay++] = e;
      continue;
    }
    push(&to[side], shifted(e, stage, p->shift[side]));
    if (kept)
      push(kept, e);
  }
  m->own.count = stay;
}

/* Its exports toward each side into to[side]: its own within reach of a
 * border, and in stage 1 the ghosts of stage 0 too (so that a grid's
 * corners are reached); where each is kept, recorded for the forward
 * passes. */
static void take_exports(const walkers *w, walker_member *m, int stage,
                         list to[2]) {
  const ck__domain_place *p = &m->place[stage];
  to[0].count = to[1].count = 0;
  for (int from = 0; from < 1 + (stage == 1); ++from) {
    const list *source = from ? &m->ghosts[0] : &m->own;
    for (size_t k = 0; k < source->count; ++k)
      for (int side = 0; side < 2; ++side)
        if (near(w, p, side, source->at[k].uv[stage])) {
          push_ref(m, stage, side, (ref){from, k}, to[side].count);
          push(&to[side], shifted(source->at[k], stage, p->shift[side]));
        }
  }
}

static void give(list from[2], uint32_t counts[2], const void *out[2]) {
  for (int side = 0; side < 2; ++side) {
    counts[side] = (uint32_t)from[side].count;
    out[side] = from[side].at;
  }
}

static ck_status walk_post(void *self, size_t i, int stage, int kind,
                           uint32_t counts[2], const void *out[2]) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  if (kind == CK__HALO_MIGRANT) {
    /* A rebuild drops the old ghosts first. */
    if (stage == 0)
      m->ghosts[0].count = m->ghosts[1].count = 0;
    take_migrants(m, stage, m->out, NULL);
  } else {
    take_exports(w, m, stage, m->out);
  }
  give(m->out, counts, out);
  return CK_OK;
}

static ck_status walk_admit(void *self, size_t i, int stage,
                            const ck__halo_link *l, const void *const in[2],
                            size_t before) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  const ck__domain_place *p = &m->place[stage];
  /* A rebuild's later stage follows the earlier ones' ghosts. */
  w->failed += before != 0 && before != m->ghosts[0].count;
  for (int side = 0; side < 2; ++side) {
    const entry *e = in[side];
    for (uint32_t k = 0; k < l->incoming[CK__HALO_MIGRANT][side]; ++k, ++e) {
      double c = e->uv[stage];
      if (c < p->border[0] - 1e-9 || c >= p->border[1] + 1e-9)
        return ck__fail(CK_ERROR_MISMATCH, "walker %g arrived past a border",
                        e->id);
      push(&m->own, *e);
    }
    for (uint32_t k = 0; k < l->incoming[CK__HALO_GHOST][side]; ++k, ++e)
      push(&m->ghosts[stage], *e);
  }
  return CK_OK;
}

static ck_status walk_sort(void *self, size_t i, const ck__halo_member *h) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  /* The halo counts what the member holds. */
  w->failed += h->own != m->own.count;
  for (int stage = 0; stage < w->domain.stages; ++stage)
    w->failed += h->link[stage].ghosts[0] + h->link[stage].ghosts[1] !=
                 m->ghosts[stage].count;
  return CK_OK;
}

static ck_status walk_pack(void *self, size_t i, int stage,
                           const uint32_t exports[2], const void *out[2]) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  const ck__domain_place *p = &m->place[stage];
  for (int side = 0; side < 2; ++side) {
    m->out[side].count = 0;
    for (uint32_t k = 0; k < exports[side]; ++k) {
      ref r = m->exports[stage][side][k];
      const list *source = r.list ? &m->ghosts[0] : &m->own;
      push(&m->out[side], shifted(source->at[r.index], stage, p->shift[side]));
    }
    out[side] = m->out[side].at;
  }
  return CK_OK;
}

static ck_status walk_unpack(void *self, size_t i, int stage, size_t before,
                             const size_t ghosts[2], const void *const in[2]) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  list *kept = &m->ghosts[stage];
  size_t at = 0;
  w->failed += before != (stage ? m->ghosts[0].count : 0);
  w->failed += ghosts[0] + ghosts[1] != kept->count;
  /* An update here is a whole entry (forward_bytes): its id checked. */
  for (int side = 0; side < 2; ++side)
    for (size_t k = 0; k < ghosts[side] && at < kept->count; ++k, ++at) {
      const entry *e = (const entry *)in[side] + k;
      w->failed += e->id != kept->at[at].id;
      kept->at[at] = *e;
    }
  return CK_OK;
}

static ck_status walk_leave(void *self, size_t i, int stage,
                            uint32_t counts[2][2], const void *out[2][2]) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  const ck__domain_place *p = &m->place[stage];
  /* A crossing drops the last one's ghosts and migrants first. */
  if (stage == 0)
    m->ghosts[0].count = m->ghosts[1].count = m->kept.count = 0;
  size_t earlier = m->kept.count;
  take_migrants(m, stage, m->migrants, &m->kept);
  take_exports(w, m, stage, m->out);
  /* Stage 1 passes on stage 0's migrants too: ghosts here now. */
  for (size_t k = 0; stage == 1 && k < earlier; ++k)
    for (int side = 0; side < 2; ++side)
      if (near(w, p, side, m->kept.at[k].uv[stage]))
        push(&m->out[side], shifted(m->kept.at[k], stage, p->shift[side]));
  give(m->migrants, counts[CK__HALO_MIGRANT], out[CK__HALO_MIGRANT]);
  give(m->out, counts[CK__HALO_GHOST], out[CK__HALO_GHOST]);
  return CK_OK;
}

static ck_status walk_settle(void *self, size_t i, size_t kept) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  w->failed += kept != m->own.count + m->kept.count + m->ghosts[0].count +
                           m->ghosts[1].count;
  return CK_OK;
}

static const ck__halo_ops walk_ops = {.bytes = {sizeof(entry), sizeof(entry)},
                                      .forward_bytes = sizeof(entry),
                                      .post = walk_post,
                                      .admit = walk_admit,
                                      .sort = walk_sort,
                                      .pack = walk_pack,
                                      .unpack = walk_unpack,
                                      .leave = walk_leave,
                                      .settle = walk_settle};

/* ---- the toy on the member engine ---------------------------------------- */

/* The box cut by equal weights; each member's place and walkers counted. */
static ck_status walk_cut(void *self, ck__engine *engine, uint64_t *units) {
  walkers *w = self;
  double weights[MEMBERS] = {1, 1, 1, 1};
  ck_status status = ck__domain_cut(&w->domain, w->truth, WALKERS, weights);
  for (size_t i = 0; status == CK_OK && i < ck__engine_local(engine); ++i) {
    walker_member *m = &w->members[i];
    ck__domain_place_member(&w->domain, i, m->place);
    w->halo.members[i].place = m->place;
    units[i] = 0;
    for (size_t k = 0; k < WALKERS; ++k) {
      double uv[2];
      ck__domain_point(&w->domain, w->truth, k, uv);
      units[i] += (uint64_t)ck__domain_holds(&w->domain, m->place, uv);
    }
    w->halo.members[i].own = units[i];
  }
  return status;
}

static ck_status walk_allocate(void *self, const ck__engine_member *member,
                               ck_queue **queue) {
  (void)self;
  (void)member;
  *queue = NULL;
  return CK_OK;
}

/* Its walkers, in its coordinates. */
static ck_status walk_set_up(void *self, size_t i) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  for (size_t k = 0; k < WALKERS; ++k) {
    double uv[2];
    ck__domain_point(&w->domain, w->truth, k, uv);
    if (!ck__domain_holds(&w->domain, m->place, uv))
      continue;
    entry e = {(double)k,
               {local(w, m->place, 0, uv[0]), local(w, m->place, 1, uv[1])}};
    push(&m->own, e);
  }
  return CK_OK;
}

static void walk_teardown(void *self, size_t i) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  list *lists[] = {&m->own,    &m->ghosts[0], &m->ghosts[1],   &m->kept,
                   &m->out[0], &m->out[1],    &m->migrants[0], &m->migrants[1]};
  for (size_t k = 0; k < sizeof lists / sizeof lists[0]; ++k)
    free(lists[k]->at);
  for (int stage = 0; stage < 2; ++stage)
    for (int side = 0; side < 2; ++side)
      free(m->exports[stage][side]);
  memset(m, 0, sizeof *m);
}

static const ck__engine_kind walk_kind = {.unit_name = "walkers",
                                          .granule = 1,
                                          .cut = walk_cut,
                                          .allocate = walk_allocate,
                                          .set_up = walk_set_up,
                                          .teardown = walk_teardown};

/* A step of its own walkers, each by its id and the step (a phase). */
static uint64_t moving_step;
static ck_status walk_move(void *self, size_t i) {
  walkers *w = self;
  walker_member *m = &w->members[i];
  for (size_t k = 0; k < m->own.count; ++k) {
    entry *e = &m->own.at[k];
    size_t id = (size_t)e->id;
    double d[2] = {STRIDE * sin(0.7 * (double)id + 1.3 * (double)moving_step),
                   STRIDE * cos(1.1 * (double)id + 0.9 * (double)moving_step)};
    for (int a = 0; a < 2; ++a) {
      e->uv[a] += d[a];
      w->truth[2 * id + (size_t)a] = ck__domain_wrap(
          w->truth[2 * id + (size_t)a] + d[a], w->domain.box[a]);
    }
  }
  return CK_OK;
}

static ck_status walk_pack_first(void *self, size_t i) {
  walkers *w = self;
  return ck__halo_pack(&w->halo, i);
}

/* ---- checks -------------------------------------------------------------- */

/* How far x lies outside [lo, hi) along a periodic axis of `length`. */
static double outside(double x, double lo, double hi, double length) {
  if (x >= lo && x < hi)
    return 0;
  double below = ck__domain_wrap(lo - x, length);
  double above = ck__domain_wrap(x - hi, length);
  return below < above ? below : above;
}

/* Every walker held by one member, the one whose slab holds it, where it
 * is; the halo's count of each member's own as it holds them. */
static void check_owners(const walkers *w, const char *what) {
  int held[WALKERS];
  memset(held, 0, sizeof held);
  for (size_t i = 0; i < w->domain.members; ++i) {
    const walker_member *m = &w->members[i];
    CHECK_MSG(w->halo.members[i].own == m->own.count, "%s: member %zu", what,
              i);
    for (size_t k = 0; k < m->own.count; ++k) {
      const entry *e = &m->own.at[k];
      double uv[2];
      ck__domain_point(&w->domain, w->truth, (size_t)e->id, uv);
      held[(size_t)e->id] += 1;
      CHECK_MSG(where_it_is(w, m, e) &&
                    ck__domain_holds(&w->domain, m->place, uv),
                "%s: walker %g held by member %zu", what, e->id, i);
    }
  }
  for (size_t k = 0; k < WALKERS; ++k)
    CHECK_MSG(held[k] == 1, "%s: walker %zu held %d times", what, k, held[k]);
}

/* Each member's ghosts where their walkers are, none its own or twice;
 * with `whole`, every walker of another within reach of its slab among
 * them (corners too). */
static void check_ghosts(const walkers *w, int whole, const char *what) {
  for (size_t i = 0; i < w->domain.members; ++i) {
    const walker_member *m = &w->members[i];
    int seen[WALKERS], mine[WALKERS];
    memset(seen, 0, sizeof seen);
    memset(mine, 0, sizeof mine);
    for (size_t k = 0; k < m->own.count; ++k)
      mine[(size_t)m->own.at[k].id] = 1;
    const list *kinds[3] = {&m->ghosts[0], &m->ghosts[1], &m->kept};
    for (int q = 0; q < 3; ++q)
      for (size_t k = 0; k < kinds[q]->count; ++k) {
        const entry *e = &kinds[q]->at[k];
        seen[(size_t)e->id] += 1;
        CHECK_MSG(where_it_is(w, m, e), "%s: member %zu's ghost %g", what, i,
                  e->id);
      }
    for (size_t k = 0; k < WALKERS; ++k) {
      double uv[2], far = 0;
      ck__domain_point(&w->domain, w->truth, k, uv);
      for (int a = 0; a < 2; ++a) {
        double gap = outside(uv[a], m->place[a].lo, m->place[a].hi,
                             ck__domain_length(&w->domain, a));
        far = gap > far ? gap : far;
      }
      int needed = whole && !mine[k] && far < w->domain.reach - 1e-6;
      CHECK_MSG(seen[k] <= 1 && !(seen[k] && mine[k]) && seen[k] >= needed,
                "%s: member %zu keeps walker %zu %d times (%g past its slab)",
                what, i, k, seen[k], far);
    }
  }
}

/* ---- runs ---------------------------------------------------------------- */

/* The walkers scattered by a seeded generator over a box of x by y, cut
 * for `members`, on the engine with the halo bound. */
static ck_status begin(walkers *w, double x, double y, size_t members,
                       ck__engine **engine) {
  double weights[MEMBERS] = {1, 1, 1, 1};
  uint64_t seed = 12345;
  memset(w, 0, sizeof *w);
  w->domain = (ck__domain){.box = {x, y},
                           .reach = REACH,
                           .pad = 0.5 * REACH,
                           .members = members,
                           .reach_option = "test.reach",
                           .reach_name = "reach"};
  for (size_t k = 0; k < 2 * WALKERS; ++k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    w->truth[k] =
        (double)(seed >> 11) / 9007199254740992.0 * w->domain.box[k % 2];
  }
  ck_spread spread = {.devices = devices, .device_count = members};
  ck_status status = ck__domain_plan(&w->domain, weights);
  if (status == CK_OK)
    status = ck__engine_open(&walk_kind, w, &spread, engine);
  if (status == CK_OK) {
    ck__halo_bind(&w->halo, *engine, &w->domain, &walk_ops, w);
    status = ck__engine_populate(*engine, WALKERS);
  }
  return status;
}

static void end(walkers *w, ck__engine *engine) {
  ck__engine_destroy(engine);
  ck__halo_free(&w->halo);
  ck__domain_free(&w->domain);
}

/* Rebuilds every REBUILD_EVERY steps, the ghosts passed forward between
 * them; then a member that expects a ghost more than it receives. */
static void rebuilds(double x, double y, size_t members, int stages) {
  static walkers w;
  ck__engine *engine = NULL;
  char what[64];
  CHECK_OK(begin(&w, x, y, members, &engine));
  CHECK(w.domain.stages == stages && w.domain.axis == 0);
  CHECK_OK(ck__halo_rebuild(&w.halo, 1));
  snprintf(what, sizeof what, "%zu members, first ghosts", members);
  check_owners(&w, what);
  check_ghosts(&w, 1, what);
  for (moving_step = 1; moving_step <= STEPS && !check_failures;
       ++moving_step) {
    int rebuild = moving_step % REBUILD_EVERY == 0;
    snprintf(what, sizeof what, "%zu members, step %llu", members,
             (unsigned long long)moving_step);
    CHECK_OK(ck__engine_each(engine, walk_move, &w));
    if (rebuild) {
      CHECK_OK(ck__halo_rebuild(&w.halo, 0));
      check_owners(&w, what);
    } else {
      CHECK_OK(ck__engine_each(engine, walk_pack_first, &w));
      CHECK_OK(ck__halo_forward(&w.halo));
    }
    check_ghosts(&w, rebuild, what);
  }
  CHECK_MSG(w.failed == 0, "%zu members: %d checks of the ops failed", members,
            w.failed);
  w.halo.members[1].link[0].ghosts[0] += 1;
  CHECK_OK(ck__engine_each(engine, walk_pack_first, &w));
  const char *message = "";
  ck_status status = ck__halo_forward(&w.halo);
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_EXCHANGE && strstr(message, "member 1 received"),
            "a ghost too many: %d, %s", (int)status, message);
  end(&w, engine);
}

/* A crossing every step: migrants and ghosts at once. */
static void crossings(double x, double y, size_t members, int stages) {
  static walkers w;
  ck__engine *engine = NULL;
  char what[64];
  CHECK_OK(begin(&w, x, y, members, &engine));
  CHECK(w.domain.stages == stages);
  for (moving_step = 0; moving_step <= STEPS && !check_failures;
       ++moving_step) {
    snprintf(what, sizeof what, "%zu members, crossing %llu", members,
             (unsigned long long)moving_step);
    if (moving_step > 0)
      CHECK_OK(ck__engine_each(engine, walk_move, &w));
    CHECK_OK(ck__halo_cross(&w.halo));
    check_owners(&w, what);
    check_ghosts(&w, 1, what);
  }
  CHECK_MSG(w.failed == 0, "%zu members: %d checks of the ops failed", members,
            w.failed);
  end(&w, engine);
}

/* ---- resident steps: beads on a ring ------------------------------------ */

/* A ring of BEADS members, each a bead's value in its device's buffer.
 * In a resident step each writes its value (out), then reads its two
 * neighbours' buffers where the halo's views say (in): its value becomes
 * a third of the three, plus one. Ref's buffers are host memory that a
 * view's address points at (CK__TEST_PEER_REF opens the peers). */
#define BEADS 3

typedef struct bead {
  ck_queue *queue;
  ck_buffer *value;
  double now;
  int resided, settled;
} bead;

typedef struct beads {
  ck__domain domain;
  ck__halo halo;
  bead members[BEADS];
  uint64_t steps_seen; /* step's k, as it came */
  int failed;
} beads;

static ck_status bead_allocate(void *self, const ck__engine_member *member,
                               ck_queue **queue) {
  beads *b = self;
  bead *m = &b->members[member->index];
  ck_status status = ck_queue_create(member->device, &m->queue);
  if (status == CK_OK)
    status = ck_buffer_create(m->queue, sizeof(double), &m->value);
  m->now = (double)member->number * member->number + 1.0;
  *queue = m->queue;
  return status;
}

static void bead_teardown(void *self, size_t i) {
  beads *b = self;
  ck_buffer_destroy(b->members[i].value);
  ck_queue_destroy(b->members[i].queue);
  memset(&b->members[i], 0, sizeof b->members[i]);
}

static ck_status bead_set_up(void *self, size_t i) {
  (void)self;
  (void)i;
  return CK_OK;
}

static ck_status bead_reside(void *self, size_t i) {
  beads *b = self;
  b->members[i].resided += 1;
  return CK_OK;
}

static ck_status bead_unreside(void *self, size_t i) {
  beads *b = self;
  b->failed += 1; /* one process: the window never fails */
  (void)i;
  return CK_OK;
}

static int bead_offer(void *self, size_t i, ck__window_offer *offer) {
  beads *b = self;
  offer->buffers[0] = b->members[i].value;
  offer->words[0] = (uint32_t)i + 1;
  return 1;
}

static int bead_waits(void *self, size_t i) {
  (void)self;
  (void)i;
  return 0;
}

static void bead_step(void *self, uint64_t k, uint64_t count) {
  beads *b = self;
  (void)count;
  b->failed += k != b->steps_seen;
  b->steps_seen += 1;
}

static ck_status bead_out(void *self, size_t i, uint32_t tag) {
  beads *b = self;
  bead *m = &b->members[i];
  b->failed += tag != 0; /* members that share a device follow marks */
  return ck_buffer_write(m->queue, m->value, 0, sizeof m->now, &m->now,
                         CK_BLOCKING, NULL);
}

static ck_status bead_swap(void *self, size_t i,
                           const ck__window_view from[2]) {
  beads *b = self;
  (void)i;
  (void)from;
  b->failed += 1; /* no mirrors in one process */
  return CK_OK;
}

static ck_status bead_in(void *self, size_t i, const ck__window_view from[2]) {
  beads *b = self;
  bead *m = &b->members[i];
  double side[2];
  for (int s = 0; s < 2; ++s) {
    size_t sender = s == 0 ? (i + BEADS - 1) % BEADS : (i + 1) % BEADS;
    b->failed += from[s].words[0] != sender + 1;
    memcpy(&side[s], (const void *)(uintptr_t)from[s].address[0],
           sizeof side[s]);
  }
  m->now = (side[0] + m->now + side[1]) / 3.0 + 1.0;
  return CK_OK;
}

static ck_status bead_settle(void *self, size_t i) {
  beads *b = self;
  b->members[i].settled += 1;
  return CK_OK;
}

static const ck__halo_resident_ops bead_ops = {.reside = bead_reside,
                                               .unreside = bead_unreside,
                                               .offer = bead_offer,
                                               .waits = bead_waits,
                                               .step = bead_step,
                                               .out = bead_out,
                                               .swap = bead_swap,
                                               .in = bead_in,
                                               .settle = bead_settle};

static const ck__engine_kind bead_kind = {.unit_name = "beads",
                                          .granule = 1,
                                          .allocate = bead_allocate,
                                          .set_up = bead_set_up,
                                          .teardown = bead_teardown};

/* Two runs of resident steps over a ring of beads, each as the host's
 * twin of the rule steps it; every member resides and settles once a
 * run. */
static void resident_ring(void) {
  static beads b;
  static const ck__halo_ops none;
  ck__engine *engine = NULL;
  double weights[BEADS] = {1, 1, 1}, twin[BEADS], next[BEADS];
  memset(&b, 0, sizeof b);
  b.domain = (ck__domain){.box = {30, 10},
                          .reach = REACH,
                          .members = BEADS,
                          .reach_option = "test.reach",
                          .reach_name = "reach"};
  ck_spread spread = {.devices = devices, .device_count = BEADS};
  CHECK_OK(ck__domain_plan(&b.domain, weights));
  CHECK_OK(ck__engine_create(&bead_kind, &b, &spread, BEADS, &engine));
  if (!engine)
    return;
  ck__halo_bind(&b.halo, engine, &b.domain, &none, &b);
  CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 1));
  CHECK_OK(ck__halo_reside_open(&b.halo, 1));
  CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
  CHECK(ck__halo_may_reside(&b.halo) && ck__halo_direct(&b.halo) &&
        !ck__halo_mirrored(&b.halo));
  for (size_t m = 0; m < BEADS; ++m)
    twin[m] = (double)m * m + 1.0;
  for (int run = 0; run < 2; ++run) {
    uint64_t taken = 0, count = run ? 7 : 5;
    b.steps_seen = 0;
    CHECK_OK(ck__halo_reside(&b.halo, &bead_ops, count, &taken));
    CHECK(taken == count && b.steps_seen == count + 1);
    for (uint64_t k = 0; k < count; ++k) {
      for (size_t m = 0; m < BEADS; ++m)
        next[m] =
            (twin[(m + BEADS - 1) % BEADS] + twin[m] + twin[(m + 1) % BEADS]) /
                3.0 +
            1.0;
      memcpy(twin, next, sizeof twin);
    }
    for (size_t m = 0; m < BEADS; ++m)
      CHECK_MSG(b.members[m].now == twin[m] &&
                    b.members[m].resided == run + 1 &&
                    b.members[m].settled == run + 1,
                "run %d, bead %zu: %.17g, its twin %.17g", run, m,
                b.members[m].now, twin[m]);
  }
  CHECK_MSG(b.failed == 0, "%d checks of the resident ops failed", b.failed);
  ck__engine_destroy(engine);
  ck__halo_free(&b.halo);
  ck__domain_free(&b.domain);
}

int main(void) {
  if (!test_ref_members(devices, MEMBERS))
    return CHECK_DONE();
  rebuilds(40, 10, 3, 1);
  rebuilds(12, 12, 4, 2);
  crossings(40, 10, 3, 1);
  crossings(12, 12, 4, 2);
  resident_ring();
  return CHECK_DONE();
}
