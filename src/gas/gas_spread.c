/*
 * gas_spread.c - one gas over several devices (and processes): the box
 * is cut into slabs along x, one a member (docs/scale-out.md).
 *
 * Each member holds the particles of its slab (owned) and, after them,
 * ghost copies of its neighbours' particles within rc + skin of its
 * borders, shifted across the periodic edge where they come from the
 * other end of the line of slabs; in a periodic box, images of both
 * across y follow. The host integrates the owned particles (velocity
 * Verlet, in double precision); a device state of the member's own, in a
 * box with walls that holds the slab and its margins, computes their
 * forces from owned and ghosts alike with the one-device kernels.
 *
 * A rebuild (every step with cell lists, when someone moved more than
 * half the skin with Verlet lists) moves the particles that left a slab
 * to their new holder, makes the ghosts again and sorts the device's
 * particles by cell; between rebuilds only the ghosts' positions cross,
 * and the device keeps its slots and lists. A particle keeps its id
 * (its index in the whole run) wherever it goes: the Langevin noise is
 * drawn from it, and outputs are in its order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_philox.h"
#include "framework/spread.h"
#include "gas/gas_internal.h"

enum { BACKWARD = 0, FORWARD = 1 };

/* A particle as its member holds it. Ghosts and images use x, y and id. */
typedef struct entry {
  double x, y;   /* unwrapped since the last rebuild */
  double vx, vy; /* owned particles only, as below */
  double fx, fy;
  double rx, ry; /* Verlet lists: the position at the last rebuild */
  double energy, virial;
  uint64_t id;
} entry;

/* What crosses between neighbours: a particle that moves to a new
 * holder, a ghost at a rebuild, a ghost's position between rebuilds. */
typedef struct migrant {
  uint64_t id;
  double x, y, vx, vy;
} migrant;
typedef struct ghost {
  uint64_t id;
  double x, y;
} ghost;
typedef struct point {
  double x, y;
} point;

/* An image across y of entry `source`. */
typedef struct image {
  size_t source;
  double shift;
} image;

typedef struct member {
  ck_gas *device;         /* its forces; NULL until made */
  size_t device_capacity; /* the particles the device state holds */
  size_t index;           /* in the whole run */
  double lo, hi;          /* the slab [lo, hi) */
  double origin_x, origin_y, side_x, side_y; /* the device's box */
  double shift[2]; /* added to the ghosts it sends back and forth */
  /* entries: owned [0, owned), ghosts [owned, owned + ghosts), images */
  entry *entries;
  image *images;
  size_t owned, ghosts, count, capacity;
  size_t received[2]; /* ghosts from the previous and the next member */
  /* per device slot (capacity each): the entry in it, the positions
   * sent, and the forces, energies and virials read */
  uint32_t *slot_entry, *upload_ids;
  double *upload, *slot_force, *slot_energy, *slot_virial;
  ck__exchange_buffer exports[2]; /* the entries sent each way (size_t) */
  ck__exchange_buffer out[2];     /* what it sends each way */
  uint32_t overflow;              /* its Verlet lists overflowed */
} member;

struct ck__gas_spread {
  ck__spread_run run;
  ck_device devices[CK_SPREAD_MAX_LOCAL]; /* this process's, copied */
  member *members;                        /* local ones */
  double *fractions;                      /* members + 1 slab bounds / box */
  double *bounds;                         /* members + 1, in x */
  size_t total;                           /* members in all */
  ck_gas_config config;
  ck__gas_forms forms;
  double margin; /* rc + skin: the ghosts' reach */
  double pad;    /* the device's box past the slab: the margin and a skin */
  double damping, noise, dof;
  uint64_t step;
  /* What local member i received: in[FORWARD][i] from the previous
   * member, in[BACKWARD][i] from the next. */
  ck__exchange_buffer in[2][CK_SPREAD_MAX_LOCAL];
};

/* ---- geometry ------------------------------------------------------------ */

/* A coordinate into [0, side) (periodic). */
static double wrap(double x, double side) {
  if (x >= side || x < 0)
    x -= side * floor(x / side);
  return x >= side || x < 0 ? 0 : x;
}

/* A coordinate and its velocity after a reflecting wall at 0 or side, as
 * ck_gas_reflect (cl/ck_gas.h) in double precision. */
static void reflect(double *x, double *v, double side) {
  if (*x < 0) {
    *x = -*x;
    *v = -*v;
  } else if (*x > side) {
    *x = 2 * side - *x;
    *v = -*v;
  }
  if (*x < 0 || *x > side)
    *x = *x < 0 ? 0 : side;
}

/* The member whose slab holds x (in the box), or SIZE_MAX for NaN. */
static size_t owner_of(const ck__gas_spread *s, double x) {
  if (!(x >= 0 && x <= s->config.box_x))
    return SIZE_MAX;
  size_t low = 0, high = s->total - 1;
  while (low < high) {
    size_t middle = (low + high + 1) / 2;
    if (x >= s->bounds[middle])
      low = middle;
    else
      high = middle - 1;
  }
  return low;
}

/* ---- entries ------------------------------------------------------------- */

/* Room for `needed` entries (and as many device slots). */
static ck_status reserve(member *m, size_t needed) {
  if (needed <= m->capacity)
    return CK_OK;
  size_t grown = m->capacity + m->capacity / 2;
  grown = grown > needed ? grown : needed;
  grown = grown > 64 ? grown : 64;
  entry *entries = realloc(m->entries, grown * sizeof *entries);
  if (entries)
    m->entries = entries;
  image *images = realloc(m->images, grown * sizeof *images);
  if (images)
    m->images = images;
  /* Slot arrays hold nothing across a rebuild, where they grow. */
  free(m->slot_entry);
  free(m->upload);
  m->slot_entry = malloc(grown * 2 * sizeof *m->slot_entry);
  m->upload = malloc(grown * 6 * sizeof *m->upload);
  if (!entries || !images || !m->slot_entry || !m->upload)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for %zu particles of a slab", grown);
  m->upload_ids = m->slot_entry + grown;
  m->slot_force = m->upload + 2 * grown;
  m->slot_energy = m->upload + 4 * grown;
  m->slot_virial = m->upload + 5 * grown;
  m->capacity = grown;
  return CK_OK;
}

/* Appends one item to a buffer. */
static ck_status push(ck__exchange_buffer *buffer, const void *item,
                      size_t size) {
  ck_status status = ck__exchange_buffer_hold(buffer, size, buffer->count + 1);
  if (status == CK_OK)
    memcpy((char *)buffer->data + (buffer->count - 1) * size, item, size);
  return status;
}

/* ---- the steps of a rebuild ---------------------------------------------- */

/* The particles that left the slab, into out[] toward their holder
 * (wrapped across a periodic box); the rest stay, wrapped too. */
static ck_status migrate_out(ck__gas_spread *s, member *m) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  size_t next = (m->index + 1) % s->total;
  size_t previous = (m->index + s->total - 1) % s->total;
  size_t kept = 0;
  m->out[BACKWARD].count = m->out[FORWARD].count = 0;
  for (size_t k = 0; k < m->owned; ++k) {
    entry p = m->entries[k];
    if (!c->walls) {
      p.x = wrap(p.x, c->box_x);
      p.y = wrap(p.y, c->box_y);
    }
    size_t owner = owner_of(s, p.x);
    if (owner == m->index) {
      m->entries[kept++] = p;
      continue;
    }
    if (owner != next && owner != previous)
      CK_FAIL(CK_ERROR_MISMATCH,
              "particle %llu moved to (%g, %g), past the neighbours of slab "
              "%zu, in one step: the time step is too large or particles "
              "overlap",
              (unsigned long long)p.id, p.x, p.y, m->index);
    migrant leaving = {p.id, p.x, p.y, p.vx, p.vy};
    CK_TRY(push(&m->out[owner == next ? FORWARD : BACKWARD], &leaving,
                sizeof leaving));
  }
  m->owned = m->count = kept;
fail:
  return status;
}

/* The particles that arrived, from both sides, as owned ones; then the
 * ghosts each neighbour needs, into out[]. */
static ck_status migrate_in(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  for (int side = 0; side < 2; ++side) {
    const ck__exchange_buffer *in = &s->in[side][i];
    const migrant *arrived = in->data;
    CK_TRY(reserve(m, m->owned + in->count));
    for (size_t k = 0; k < in->count; ++k) {
      entry *p = &m->entries[m->owned++];
      memset(p, 0, sizeof *p);
      p->id = arrived[k].id;
      p->x = arrived[k].x;
      p->y = arrived[k].y;
      p->vx = arrived[k].vx;
      p->vy = arrived[k].vy;
    }
  }
  m->count = m->owned;
  m->ghosts = 0;
  for (int side = 0; side < 2; ++side) {
    m->exports[side].count = 0;
    m->out[side].count = 0;
  }
  int first = m->index == 0, last = m->index + 1 == s->total;
  for (size_t k = 0; k < m->owned; ++k) {
    entry *p = &m->entries[k];
    p->rx = p->x;
    p->ry = p->y;
    int sides[2] = {(!c->walls || !first) && p->x < m->lo + s->margin,
                    (!c->walls || !last) && p->x >= m->hi - s->margin};
    for (int side = 0; side < 2; ++side) {
      if (!sides[side])
        continue;
      ghost copy = {p->id, p->x + m->shift[side], p->y};
      CK_TRY(push(&m->exports[side], &k, sizeof k));
      CK_TRY(push(&m->out[side], &copy, sizeof copy));
    }
  }
fail:
  return status;
}

/* Images across y (periodic) of the owned particles and ghosts within
 * the margin of the box's bottom and top. */
static ck_status make_images(ck__gas_spread *s, member *m) {
  ck_status status = CK_OK;
  double box_y = s->config.box_y;
  size_t sources = m->owned + m->ghosts;
  m->count = sources;
  for (size_t k = 0; !s->config.walls && k < sources; ++k) {
    double y = m->entries[k].y;
    double shifts[2] = {y < s->margin ? box_y : 0,
                        y >= box_y - s->margin ? -box_y : 0};
    for (int a = 0; a < 2; ++a) {
      if (shifts[a] == 0)
        continue;
      CK_TRY(reserve(m, m->count + 1));
      m->images[m->count - sources] = (image){k, shifts[a]};
      entry *copy = &m->entries[m->count++];
      *copy = m->entries[k];
      copy->y += shifts[a];
    }
  }
fail:
  return status;
}

/* The ghosts received from both sides, after the owned particles (the
 * previous member's first), then the images. */
static ck_status take_ghosts(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  size_t from_previous = s->in[FORWARD][i].count;
  size_t from_next = s->in[BACKWARD][i].count;
  CK_TRY(reserve(m, m->owned + from_previous + from_next));
  m->count = m->owned;
  for (int side = FORWARD; side >= BACKWARD; --side) {
    const ghost *copies = s->in[side][i].data;
    for (size_t k = 0; k < s->in[side][i].count; ++k) {
      entry *p = &m->entries[m->count++];
      memset(p, 0, sizeof *p);
      p->id = copies[k].id;
      p->x = copies[k].x;
      p->y = copies[k].y;
    }
  }
  m->received[0] = from_previous;
  m->received[1] = from_next;
  m->ghosts = from_previous + from_next;
  CK_TRY(make_images(s, m));
fail:
  return status;
}

/* Between rebuilds: the positions of the ghosts this member sends. */
static ck_status pack_points(member *m) {
  ck_status status = CK_OK;
  for (int side = 0; side < 2; ++side) {
    const size_t *exports = m->exports[side].data;
    size_t count = m->exports[side].count;
    CK_TRY(ck__exchange_buffer_hold(&m->out[side], sizeof(point), count));
    point *points = m->out[side].data;
    for (size_t k = 0; k < count; ++k) {
      const entry *p = &m->entries[exports[k]];
      points[k] = (point){p->x + m->shift[side], p->y};
    }
  }
fail:
  return status;
}

/* The ghosts' positions received, and their images'. */
static ck_status place_points(ck__gas_spread *s, member *m, size_t i) {
  size_t at = m->owned;
  for (int side = FORWARD; side >= BACKWARD; --side) {
    const ck__exchange_buffer *in = &s->in[side][i];
    const point *points = in->data;
    if (in->count != m->received[side == FORWARD ? 0 : 1])
      return ck__fail(CK_ERROR_EXCHANGE,
                      "slab %zu received %zu ghosts, not the %zu of its last "
                      "rebuild",
                      m->index, in->count,
                      m->received[side == FORWARD ? 0 : 1]);
    for (size_t k = 0; k < in->count; ++k, ++at) {
      m->entries[at].x = points[k].x;
      m->entries[at].y = points[k].y;
    }
  }
  size_t sources = m->owned + m->ghosts;
  for (size_t k = sources; k < m->count; ++k) {
    const image *im = &m->images[k - sources];
    m->entries[k].x = m->entries[im->source].x;
    m->entries[k].y = m->entries[im->source].y + im->shift;
  }
  return CK_OK;
}

/* ---- forces -------------------------------------------------------------- */

/* The member's device state, made again where it holds too few
 * particles. */
static ck_status fit_device(ck__gas_spread *s, member *m, size_t i) {
  if (m->device && m->device_capacity >= m->count)
    return CK_OK;
  size_t capacity = m->count + m->count / 4 + 64;
  /* A first guess from the density over the device's box. */
  double expected = 1.25 * s->config.density * m->side_x * m->side_y + 64;
  if (!m->device && expected > (double)capacity && expected < 4e9)
    capacity = (size_t)expected;
  ck_gas_config c = s->config;
  c.particles = capacity;
  c.walls = 1;
  c.box_x = m->side_x;
  c.box_y = m->side_y;
  c.thermostat = CK_GAS_NVE;
  c.xyz_path = NULL;
  ck_gas_destroy(m->device);
  m->device = NULL;
  s->run.queues[i] = NULL;
  ck_status status =
      ck__gas_member_create(&s->devices[i], &c, s->forms, &m->device);
  if (status == CK_OK) {
    m->device_capacity = capacity;
    s->run.queues[i] = ck__gas_member_queue(m->device);
  }
  return status;
}

/* Queues the member's forces: after a rebuild every entry in entry order
 * (the device sorts them and says where each went), else in the slots of
 * the last sort. */
static ck_status queue_forces(ck__gas_spread *s, member *m, size_t i,
                              int rebuilt, int with_energy) {
  ck_status status = CK_OK;
  if (rebuilt)
    CK_TRY(fit_device(s, m, i));
  for (size_t slot = 0; slot < m->count; ++slot) {
    size_t k = rebuilt ? slot : m->slot_entry[slot];
    m->upload[2 * slot] = m->entries[k].x - m->origin_x;
    m->upload[2 * slot + 1] = m->entries[k].y - m->origin_y;
    m->upload_ids[slot] = (uint32_t)slot;
  }
  CK_TRY(ck__gas_member_forces(m->device, m->count, m->upload,
                               rebuilt ? m->upload_ids : NULL, with_energy));
fail:
  return status;
}

/* The forces read back onto the owned particles. */
static ck_status read_forces(member *m, int rebuilt, int with_energy,
                             int verlet) {
  ck_status status = CK_OK;
  uint32_t overflow = 0;
  CK_TRY(ck__gas_member_read(m->device, rebuilt ? m->slot_entry : NULL,
                             m->slot_force, with_energy ? m->slot_energy : NULL,
                             with_energy ? m->slot_virial : NULL,
                             rebuilt && verlet ? &overflow : NULL));
  /* A device made again for more particles starts with a clear flag. */
  m->overflow |= overflow;
  for (size_t slot = 0; slot < m->count; ++slot) {
    size_t k = m->slot_entry[slot];
    if (k >= m->owned)
      continue;
    entry *p = &m->entries[k];
    p->fx = m->slot_force[2 * slot];
    p->fy = m->slot_force[2 * slot + 1];
    if (with_energy) {
      p->energy = m->slot_energy[slot];
      p->virial = m->slot_virial[slot];
    }
  }
fail:
  return status;
}

/* Every member's forces: all queued, then each read. */
static ck_status all_forces(ck__gas_spread *s, int rebuilt, int with_energy) {
  ck__spread_run *run = &s->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = queue_forces(s, &s->members[i], i, rebuilt, with_energy);
    run->compute_s[i] += ck__seconds() - started;
  }
  int verlet = s->config.neighbors == CK_GAS_VERLET;
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    if (statuses[i] == CK_OK)
      statuses[i] = read_forces(&s->members[i], rebuilt, with_energy, verlet);
    run->compute_s[i] += ck__seconds() - started;
  }
  return ck__exchange_agree(run->exchange, statuses);
}

/* ---- exchanges ----------------------------------------------------------- */

/* What each member put in out[], to its neighbours: forward into the
 * next member's in[FORWARD], backward into the previous one's
 * in[BACKWARD]. */
static ck_status pass_both(ck__gas_spread *s, size_t item) {
  ck_status status = CK_OK;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  for (int side = 0; side < 2; ++side) {
    for (size_t i = 0; i < s->run.local; ++i) {
      send[i] = s->members[i].out[side].data;
      counts[i] = s->members[i].out[side].count;
    }
    CK_TRY(ck__exchange_pass(s->run.exchange, side == FORWARD, item, send,
                             counts, s->in[side]));
  }
fail:
  return status;
}

/* The statuses of one phase over the members, agreed. */
#define EACH_MEMBER(s, call)                                                   \
  do {                                                                         \
    ck_status statuses_[CK_SPREAD_MAX_LOCAL];                                  \
    for (size_t i = 0; i < (s)->run.local; ++i) {                              \
      member *m = &(s)->members[i];                                            \
      double started_ = ck__seconds();                                         \
      statuses_[i] = (call);                                                   \
      (s)->run.compute_s[i] += ck__seconds() - started_;                       \
      (void)m;                                                                 \
    }                                                                          \
    CK_TRY(ck__exchange_agree((s)->run.exchange, statuses_));                  \
  } while (0)

/* Particles to their new holders, then the ghosts made again. */
static ck_status rebuild(ck__gas_spread *s) {
  ck_status status = CK_OK;
  EACH_MEMBER(s, migrate_out(s, m));
  CK_TRY(pass_both(s, sizeof(migrant)));
  EACH_MEMBER(s, migrate_in(s, m, i));
  CK_TRY(pass_both(s, sizeof(ghost)));
  EACH_MEMBER(s, take_ghosts(s, m, i));
fail:
  return status;
}

/* The ghosts' new positions, between rebuilds. */
static ck_status refresh(ck__gas_spread *s) {
  ck_status status = CK_OK;
  EACH_MEMBER(s, pack_points(m));
  CK_TRY(pass_both(s, sizeof(point)));
  EACH_MEMBER(s, place_points(s, m, i));
fail:
  return status;
}

/* ---- integration --------------------------------------------------------- */

/* v += dt/2 f, x += dt v for the owned particles, reflected at walls;
 * returns 1 when one moved past half the skin since the last rebuild. */
static int kick_drift(const ck__gas_spread *s, member *m) {
  const ck_gas_config *c = &s->config;
  double dt = c->dt, half = 0.5 * dt, half_skin2 = 0.25 * c->skin * c->skin;
  int moved = 0;
  for (size_t k = 0; k < m->owned; ++k) {
    entry *p = &m->entries[k];
    p->vx += half * p->fx;
    p->vy += half * p->fy;
    p->x += dt * p->vx;
    p->y += dt * p->vy;
    if (c->walls) {
      reflect(&p->x, &p->vx, c->box_x);
      reflect(&p->y, &p->vy, c->box_y);
    }
    double dx = p->x - p->rx, dy = p->y - p->ry;
    moved |= dx * dx + dy * dy > half_skin2;
  }
  return moved;
}

/* v += dt/2 f, then Langevin's friction and noise, drawn as the kernels
 * draw them (ck_gas_kick_particle) from the particle's id and the step. */
static void kick(const ck__gas_spread *s, member *m, uint64_t step) {
  const ck_gas_config *c = &s->config;
  double half = 0.5 * c->dt;
  int langevin = c->thermostat == CK_GAS_LANGEVIN;
  for (size_t k = 0; k < m->owned; ++k) {
    entry *p = &m->entries[k];
    p->vx += half * p->fx;
    p->vy += half * p->fy;
    if (!langevin)
      continue;
    ck_philox_counter r = ck_philox_block(c->seed, step, p->id);
    double u1 = ((double)(r.v[0] >> 8) + 1) * (1.0 / 16777216.0);
    double u2 = (double)(r.v[1] >> 8) * (1.0 / 16777216.0);
    double radius = sqrt(-2 * log(u1)), angle = 6.283185307179586 * u2;
    p->vx = s->damping * p->vx + s->noise * radius * cos(angle);
    p->vy = s->damping * p->vy + s->noise * radius * sin(angle);
  }
}

/* Each member's sums of ck__gas_steps.reduce, and its overflow flag. */
static void member_sums(const member *m, double sums[6]) {
  memset(sums, 0, 6 * sizeof *sums);
  for (size_t k = 0; k < m->owned; ++k) {
    const entry *p = &m->entries[k];
    sums[0] += 0.5 * (p->vx * p->vx + p->vy * p->vy);
    sums[1] += p->energy;
    sums[2] += p->virial;
    sums[3] += p->vx;
    sums[4] += p->vy;
  }
  sums[5] = m->overflow;
}

static ck_status all_sums(ck__gas_spread *s, double sums[6]) {
  double local[CK_SPREAD_MAX_LOCAL][6];
  const double *rows[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < s->run.local; ++i) {
    member_sums(&s->members[i], local[i]);
    rows[i] = local[i];
  }
  return ck__exchange_sum(s->run.exchange, rows, sums, 6);
}

/* Velocities scaled to the target temperature, from the kinetic energy
 * of all members. */
static ck_status rescale(ck__gas_spread *s) {
  double sums[6];
  ck_status status = all_sums(s, sums);
  if (status)
    return status;
  double temperature = 2.0 * sums[0] / s->dof;
  double scale =
      temperature > 0 ? sqrt(s->config.target_temperature / temperature) : 1;
  for (size_t i = 0; i < s->run.local; ++i)
    for (size_t k = 0; k < s->members[i].owned; ++k) {
      s->members[i].entries[k].vx *= scale;
      s->members[i].entries[k].vy *= scale;
    }
  return CK_OK;
}

ck_status ck__gas_spread_step(ck__gas_spread *s, uint64_t steps) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  ck__spread_run *run = &s->run;
  for (uint64_t k = 0; k < steps; ++k) {
    uint64_t step = s->step + 1;
    double moved[CK_SPREAD_MAX_LOCAL], anyone = 0;
    const double *rows[CK_SPREAD_MAX_LOCAL];
    for (size_t i = 0; i < run->local; ++i) {
      double started = ck__seconds();
      moved[i] = kick_drift(s, &s->members[i]);
      rows[i] = &moved[i];
      run->compute_s[i] += ck__seconds() - started;
    }
    int rebuilt = c->neighbors == CK_GAS_CELLS;
    if (!rebuilt) {
      CK_TRY(ck__exchange_sum(run->exchange, rows, &anyone, 1));
      rebuilt = anyone > 0;
    }
    CK_TRY(rebuilt ? rebuild(s) : refresh(s));
    /* Energies are read only after the last step of a call. */
    CK_TRY(all_forces(s, rebuilt, k + 1 == steps));
    for (size_t i = 0; i < run->local; ++i) {
      double started = ck__seconds();
      kick(s, &s->members[i], step);
      run->compute_s[i] += ck__seconds() - started;
    }
    if (c->thermostat == CK_GAS_RESCALE && step % c->rescale_every == 0)
      CK_TRY(rescale(s));
    s->step = step;
  }
fail:
  return status;
}

uint64_t ck__gas_spread_steps(const ck__gas_spread *s) {
  return s->step;
}

ck_status ck__gas_spread_sums(ck__gas_spread *s, double sums[5],
                              uint32_t *overflowed, uint32_t *capacity) {
  double all[6];
  ck_status status = all_sums(s, all);
  if (status)
    return status;
  memcpy(sums, all, 5 * sizeof *sums);
  *overflowed = all[5] > 0;
  gas_state *device = ck__gas_state(s->members[0].device);
  *capacity = device->list_capacity;
  return CK_OK;
}

/* ---- making and dealing -------------------------------------------------- */

ck_status ck__gas_spread_check(const ck_gas_config *config) {
  if (config->model != CK_GAS_LENNARD_JONES)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.model: only the Lennard-Jones model "
                    "spreads over devices (the soft-log model has no "
                    "cutoff to cut the box at)");
  if (config->neighbors == CK_GAS_ALL_PAIRS)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.neighbors: all pairs does not spread over "
                    "devices; use cell lists or Verlet lists");
  return CK_OK;
}

ck_status ck__gas_spread_begin(const ck_spread *spread, ck__gas_spread **made) {
  ck_status status = CK_OK;
  ck__gas_spread *s = calloc(1, sizeof *s);
  *made = NULL;
  if (!s)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin(spread, "particles", &s->run));
  ck__spread_run *run = &s->run;
  memcpy(s->devices, spread->devices, run->local * sizeof *s->devices);
  run->devices = s->devices;
  s->total = ck__exchange_members(run->exchange);
  s->members = calloc(run->local, sizeof *s->members);
  s->fractions = calloc(s->total + 1, sizeof *s->fractions);
  s->bounds = calloc(s->total + 1, sizeof *s->bounds);
  if (!s->members || !s->fractions || !s->bounds)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* Slabs in proportion to the shares, else equal. */
  ck__spread_fractions(spread->shares, s->total, s->fractions);
  double running = 0;
  for (size_t m = 0; m < s->total; ++m) {
    double fraction = s->fractions[m];
    s->fractions[m] = running;
    running += fraction;
  }
  s->fractions[s->total] = 1;
  *made = s;
  return CK_OK;
fail:
  ck__gas_spread_destroy(s);
  return status;
}

/* The slabs' bounds, each at least the ghosts' reach wide. */
static ck_status cut_slabs(ck__gas_spread *s) {
  const ck_gas_config *c = &s->config;
  for (size_t m = 0; m <= s->total; ++m)
    s->bounds[m] = s->fractions[m] * c->box_x;
  s->bounds[s->total] = c->box_x;
  for (size_t m = 0; m < s->total; ++m) {
    double width = s->bounds[m + 1] - s->bounds[m];
    if (!(width >= s->margin))
      return ck__fail(
          CK_ERROR_INVALID_ARGUMENT,
          "ck_gas_config.rc: slab %zu of %zu is %g wide (box %g), narrower "
          "than rc + skin (%g), which its neighbours' ghosts must reach: use "
          "fewer devices, other shares, a wider box or a smaller cutoff",
          m, s->total, width, c->box_x, s->margin);
  }
  for (size_t i = 0; i < s->run.local; ++i) {
    member *m = &s->members[i];
    m->index = ck__exchange_first(s->run.exchange) + i;
    m->lo = s->bounds[m->index];
    m->hi = s->bounds[m->index + 1];
    m->origin_x = m->lo - s->pad;
    m->side_x = m->hi - m->lo + 2 * s->pad;
    m->origin_y = c->walls ? 0 : -s->pad;
    m->side_y = c->walls ? c->box_y : c->box_y + 2 * s->pad;
    int first = m->index == 0, last = m->index + 1 == s->total;
    m->shift[BACKWARD] = first && !c->walls ? c->box_x : 0;
    m->shift[FORWARD] = last && !c->walls ? -c->box_x : 0;
  }
  return CK_OK;
}

/* The particles of member m's slab, from the whole run's. */
static ck_status take_particles(ck__gas_spread *s, member *m,
                                const double *positions,
                                const double *velocities) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  m->owned = m->count = 0;
  for (size_t k = 0; k < c->particles; ++k) {
    double x = positions[2 * k], y = positions[2 * k + 1];
    if (!c->walls) {
      x = wrap(x, c->box_x);
      y = wrap(y, c->box_y);
    }
    if (owner_of(s, x) != m->index)
      continue;
    CK_TRY(reserve(m, m->owned + 1));
    entry *p = &m->entries[m->owned++];
    memset(p, 0, sizeof *p);
    p->id = k;
    p->x = x;
    p->y = y;
    p->vx = velocities[2 * k];
    p->vy = velocities[2 * k + 1];
  }
  m->count = m->owned;
fail:
  return status;
}

ck_status ck__gas_spread_start(ck__gas_spread *s, const ck_gas_config *config,
                               uint64_t step, ck__gas_forms forms,
                               const double *positions,
                               const double *velocities) {
  ck_status status = CK_OK;
  ck__spread_run *run = &s->run;
  s->config = *config;
  s->config.xyz_path = NULL;
  s->forms = forms;
  s->forms.fine_cells = 0;
  s->step = step;
  double skin = config->neighbors == CK_GAS_VERLET ? config->skin : 0;
  s->config.skin = skin;
  s->margin = config->rc + skin;
  s->pad = s->margin + skin;
  s->dof = ck__gas_degrees_of_freedom(config);
  s->damping = exp(-config->gamma * config->dt);
  s->noise = sqrt((1.0 - s->damping * s->damping) * config->target_temperature);
  CK_TRY(cut_slabs(s));
  EACH_MEMBER(s, take_particles(s, m, positions, velocities));
  CK_TRY(rebuild(s));
  CK_TRY(all_forces(s, 1, 1));
  run->total = config->particles;
fail:
  return status;
}

/* ---- what the run reads -------------------------------------------------- */

ck_status ck__gas_spread_particles(ck__gas_spread *s, double *positions,
                                   double *velocities, double *forces,
                                   double *energies, double *virials) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  ck__exchange_buffer all = {0};
  double *pairs[3] = {positions, velocities, forces};
  double *singles[2] = {energies, virials};
  size_t fields = 1;
  for (int a = 0; a < 3; ++a)
    fields += pairs[a] ? 2 : 0;
  for (int a = 0; a < 2; ++a)
    fields += singles[a] ? 1 : 0;
  /* Each owned particle as its id and the fields asked for. */
  EACH_MEMBER(s, ck__exchange_buffer_hold(&m->out[0], fields * sizeof(double),
                                          m->owned));
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < s->run.local; ++i) {
    member *m = &s->members[i];
    double *record = m->out[0].data;
    for (size_t k = 0; k < m->owned; ++k) {
      const entry *p = &m->entries[k];
      double x = c->walls ? p->x : wrap(p->x, c->box_x);
      double y = c->walls ? p->y : wrap(p->y, c->box_y);
      double values[] = {x, y, p->vx, p->vy, p->fx, p->fy};
      *record++ = (double)p->id;
      for (int a = 0; a < 3; ++a)
        if (pairs[a]) {
          *record++ = values[2 * a];
          *record++ = values[2 * a + 1];
        }
      if (energies)
        *record++ = p->energy;
      if (virials)
        *record++ = p->virial;
    }
    send[i] = m->out[0].data;
    counts[i] = m->owned;
  }
  CK_TRY(ck__exchange_gather_items(s->run.exchange, fields * sizeof(double),
                                   send, counts, &all, NULL));
  if (all.count != c->particles)
    CK_FAIL(CK_ERROR_EXCHANGE, "the slabs hold %zu particles, not %zu",
            all.count, c->particles);
  const double *record = all.data;
  for (size_t k = 0; k < all.count; ++k) {
    size_t id = (size_t)*record++;
    for (int a = 0; a < 3; ++a)
      if (pairs[a]) {
        pairs[a][2 * id] = *record++;
        pairs[a][2 * id + 1] = *record++;
      }
    for (int a = 0; a < 2; ++a)
      if (singles[a])
        singles[a][id] = *record++;
  }
fail:
  free(all.data);
  return status;
}

/* Member m's pairs (i, j) within range, i owned and j of a larger id,
 * binned into counts (bins doubles): each pair of the run once, wherever
 * its particles are, from a grid of cells at least range wide over the
 * member's box. */
static ck_status member_rdf(const member *m, size_t bins, double range,
                            double *counts) {
  ck_status status = CK_OK;
  double most = 4.0 * (double)m->count + 16;
  double cells_x = fmax(1, floor(m->side_x / range));
  double cells_y = fmax(1, floor(m->side_y / range));
  if (cells_x * cells_y > most) {
    double shrink = sqrt(cells_x * cells_y / most);
    cells_x = fmax(1, floor(cells_x / shrink));
    cells_y = fmax(1, floor(cells_y / shrink));
  }
  size_t nx = (size_t)cells_x, ny = (size_t)cells_y, cells = nx * ny;
  size_t *start = calloc(cells + 1, sizeof *start);
  size_t *order = malloc((m->count ? m->count : 1) * sizeof *order);
  size_t *cell = malloc((m->count ? m->count : 1) * sizeof *cell);
  if (!start || !order || !cell)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for the RDF");
  for (size_t k = 0; k < m->count; ++k) {
    double fx = (m->entries[k].x - m->origin_x) / m->side_x * cells_x;
    double fy = (m->entries[k].y - m->origin_y) / m->side_y * cells_y;
    size_t cx = fx > 0 ? (fx < cells_x ? (size_t)fx : nx - 1) : 0;
    size_t cy = fy > 0 ? (fy < cells_y ? (size_t)fy : ny - 1) : 0;
    cell[k] = cy * nx + cx;
    ++start[cell[k] + 1];
  }
  for (size_t c = 0; c < cells; ++c)
    start[c + 1] += start[c];
  for (size_t k = 0; k < m->count; ++k)
    order[start[cell[k]]++] = k;
  for (size_t c = cells; c > 0; --c)
    start[c] = start[c - 1];
  start[0] = 0;
  double range2 = range * range, per_bin = (double)bins / range;
  for (size_t i = 0; i < m->owned; ++i) {
    const entry *a = &m->entries[i];
    size_t cx = cell[i] % nx, cy = cell[i] / nx;
    for (size_t y = cy > 0 ? cy - 1 : 0; y <= cy + 1 && y < ny; ++y)
      for (size_t x = cx > 0 ? cx - 1 : 0; x <= cx + 1 && x < nx; ++x)
        for (size_t at = start[y * nx + x]; at < start[y * nx + x + 1]; ++at) {
          const entry *b = &m->entries[order[at]];
          if (b->id <= a->id)
            continue;
          double dx = a->x - b->x, dy = a->y - b->y, r2 = dx * dx + dy * dy;
          if (r2 >= range2)
            continue;
          size_t bin = (size_t)(sqrt(r2) * per_bin);
          counts[bin < bins ? bin : bins - 1] += 1;
        }
  }
fail:
  free(start);
  free(order);
  free(cell);
  return status;
}

ck_status ck__gas_spread_rdf(ck__gas_spread *s, size_t bins, double range,
                             uint64_t *counts) {
  ck_status status = CK_OK;
  size_t local = s->run.local;
  double *histograms = calloc((local + 1) * bins, sizeof *histograms);
  const double *rows[CK_SPREAD_MAX_LOCAL];
  CK_TRY(ck__gas_spread_agree(
      s, histograms ? CK_OK
                    : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                               "out of host memory for the RDF")));
  for (size_t i = 0; i < local; ++i)
    rows[i] = histograms + i * bins;
  EACH_MEMBER(s, member_rdf(m, bins, range, histograms + i * bins));
  double *total = histograms + local * bins;
  CK_TRY(ck__exchange_sum(s->run.exchange, rows, total, bins));
  for (size_t b = 0; b < bins; ++b)
    counts[b] += (uint64_t)total[b];
fail:
  free(histograms);
  return status;
}

/* ---- the rest ------------------------------------------------------------ */

ck_status ck__gas_spread_agree(ck__gas_spread *s, ck_status status) {
  char message[512] = "";
  const char *last = NULL;
  if (status) {
    ck_error_get_last(&last);
    snprintf(message, sizeof message, "%s", last ? last : "");
  }
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {status};
  ck_status agreed = ck__exchange_agree(s->run.exchange, statuses);
  /* The process that failed keeps its message as it was. */
  if (agreed && status)
    return ck__fail(status, "%s", message);
  return agreed;
}

ck_status ck__gas_spread_broadcast(ck__gas_spread *s, void *data, size_t size) {
  return ck__exchange_broadcast(s->run.exchange, 0, data, size);
}

int ck__gas_spread_rank(const ck__gas_spread *s) {
  return s ? ck__exchange_rank(s->run.exchange) : 0;
}

int ck__gas_spread_strips(const ck__gas_spread *s) {
  return s->members[0].device ? ck__gas_state(s->members[0].device)->strips : 0;
}

ck_status ck__gas_spread_finish(ck__gas_spread *s, double *kernel_s) {
  ck_status status = CK_OK;
  for (size_t i = 0; i < s->run.local; ++i)
    if (s->run.queues[i])
      CK_TRY(ck_queue_finish(s->run.queues[i]));
  if (kernel_s)
    *kernel_s = ck__spread_kernel_seconds(&s->run);
fail:
  return status;
}

ck_status ck__gas_spread_report(ck__gas_spread *s, ck_result *result) {
  for (size_t i = 0; i < s->run.local; ++i)
    s->run.units[i] = s->members[i].owned;
  s->run.total = s->config.particles;
  return ck__spread_report(&s->run, result);
}

void ck__gas_spread_destroy(ck__gas_spread *s) {
  if (!s)
    return;
  for (size_t i = 0; s->members && i < s->run.local; ++i) {
    member *m = &s->members[i];
    ck_gas_destroy(m->device);
    free(m->entries);
    free(m->images);
    free(m->slot_entry);
    free(m->upload);
    for (int side = 0; side < 2; ++side) {
      free(m->exports[side].data);
      free(m->out[side].data);
    }
  }
  for (int side = 0; side < 2; ++side)
    for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i)
      free(s->in[side][i].data);
  free(s->members);
  free(s->fractions);
  free(s->bounds);
  ck__spread_end(&s->run);
  free(s);
}
