/*
 * gas_checkpoint.c - checkpoints: the file's layout, saving (alone or
 * spread) with its checks, and loading onto one device or a spread.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "gas/gas_internal.h"

/* Checkpoint files. */
static const char checkpoint_magic[8] = {'C', 'K', 'G', 'A',
                                         'S', 'C', 'H', 'K'};
#define CHECKPOINT_VERSION 2u

/* ---- checkpoints ---------------------------------------------------------
 *
 *   offset  size  field
 *        0     8  magic "CKGASCHK"
 *        8     4  version (2; version 1 files are read too)
 *       12     4  real size: 4 (float) or 8 (double)
 *       16     8  step
 *       24   ...  the configuration: particles (8), then lattice, model,
 *                 shift, walls, thermostat, rescale_every, neighbors (4
 *                 each), then density, box_x, box_y, temperature, rc,
 *                 strength, softening, dt, target_temperature, gamma, skin
 *                 (8 each, IEEE-754), seed (8)
 *      156     8  (version 2) the forms the run used: local-memory tiles
 *                 (1 or 0) and strips (1 or 0), 4 bytes each
 *          ...    the state buffers, raw, in slot order: positions,
 *                 velocities, forces (2 N reals each), energies, virials
 *                 (N reals), ids (N words); Verlet mode adds the reference
 *                 positions of the last rebuild and the flags (4 words)
 *                 (version 1 also held the lists and their counts between
 *                 the two)
 *       last 32   SHA-256 of everything before
 *
 * The neighbour structure is not saved: it is a function of the slot order
 * and the positions it was built from (the current ones in cells mode, the
 * reference ones in Verlet mode), and loading builds it again from those,
 * as it was.
 */
#define CHECKPOINT_HEADER (24 + 8 + 7 * 4 + 11 * 8 + 8)
#define CHECKPOINT_FLAGS_BYTES 16

/* The state buffers a checkpoint holds, with their sizes. */
static size_t checkpoint_buffers(gas_state *state, ck_buffer **buffers,
                                 size_t *sizes) {
  size_t n = state->particles, real = state->real_size;
  ck_buffer *list[] = {state->position,  state->velocity, state->force,
                       state->energy,    state->virial,   state->id,
                       state->reference, state->flags};
  size_t bytes[] = {
      2 * n * real, 2 * n * real, 2 * n * real, n * real,
      n * real,     n * 4,        2 * n * real, CHECKPOINT_FLAGS_BYTES};
  size_t total = state->neighbors == CK_GAS_VERLET ? 8 : 6;
  for (size_t i = 0; i < total; ++i) {
    buffers[i] = list[i];
    sizes[i] = bytes[i];
  }
  return total;
}

static void put_config(ck__byte_writer *writer, const ck_gas_config *config) {
  ck__bytes_put_u64(writer, config->particles);
  uint32_t codes[] = {(uint32_t)config->lattice,    (uint32_t)config->model,
                      (uint32_t)config->shift,      (uint32_t)config->walls,
                      (uint32_t)config->thermostat, config->rescale_every,
                      (uint32_t)config->neighbors};
  for (size_t i = 0; i < 7; ++i)
    ck__bytes_put_u32(writer, codes[i]);
  double reals[] = {
      config->density,     config->box_x, config->box_y,
      config->temperature, config->rc,    config->strength,
      config->softening,   config->dt,    config->target_temperature,
      config->gamma,       config->skin};
  for (size_t i = 0; i < 11; ++i)
    ck__bytes_put_f64(writer, reals[i]);
  ck__bytes_put_u64(writer, config->seed);
}

/* Entry i of a saved array of reals of real_size bytes. */
static double saved_real(const uint8_t *saved, size_t i, size_t real_size) {
  if (real_size == 8) {
    uint64_t bits = ck__get_u64(saved + 8 * i);
    double value;
    memcpy(&value, &bits, 8);
    return value;
  }
  uint32_t bits = ck__get_u32(saved + 4 * i);
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

/* Whether (x, y) lies in the box, edges included; NaN does not. */
static int in_box(const gas_state *state, double x, double y) {
  return x >= 0 && x <= state->box_x && y >= 0 && y <= state->box_y;
}

/* A checkpoint's particles (path "" for a live state's, which messages
 * then name no file): finite positions inside the box, finite
 * velocities and forces (the next step's first kick), finite energies and
 * virials (reported as the loaded step's observables), the reference
 * positions of Verlet mode (NULL otherwise) inside the box too, and ids
 * that are a permutation of 0 .. N - 1 (a sealed file may still have been
 * written by hand). Messages count particles from 1, as those of XYZ
 * files do. */
static ck_status check_saved_particles(
    const char *path, const gas_state *state, const uint8_t *positions,
    const uint8_t *velocities, const uint8_t *forces, const uint8_t *energies,
    const uint8_t *virials, const uint8_t *ids, const uint8_t *reference) {
  ck_status status = CK_OK;
  uint8_t *seen = NULL;
  const char *colon = *path ? ": " : "";
  for (size_t i = 0; i < state->particles; ++i) {
    double x = saved_real(positions, 2 * i, state->real_size);
    double y = saved_real(positions, 2 * i + 1, state->real_size);
    double vx = saved_real(velocities, 2 * i, state->real_size);
    double vy = saved_real(velocities, 2 * i + 1, state->real_size);
    if (!in_box(state, x, y))
      CK_FAIL(CK_ERROR_PARSE,
              "%s%sparticle %zu is at (%g, %g), outside the %g x %g box", path,
              colon, i + 1, x, y, state->box_x, state->box_y);
    if (!isfinite(vx) || !isfinite(vy))
      CK_FAIL(CK_ERROR_PARSE, "%s%sparticle %zu has velocity (%g, %g)", path,
              colon, i + 1, vx, vy);
    double fx = saved_real(forces, 2 * i, state->real_size);
    double fy = saved_real(forces, 2 * i + 1, state->real_size);
    if (!isfinite(fx) || !isfinite(fy))
      CK_FAIL(CK_ERROR_PARSE, "%s%sparticle %zu has force (%g, %g)", path,
              colon, i + 1, fx, fy);
    double energy = saved_real(energies, i, state->real_size);
    double virial = saved_real(virials, i, state->real_size);
    if (!isfinite(energy) || !isfinite(virial))
      CK_FAIL(CK_ERROR_PARSE, "%s%sparticle %zu has energy %g and virial %g",
              path, colon, i + 1, energy, virial);
    if (!reference)
      continue;
    x = saved_real(reference, 2 * i, state->real_size);
    y = saved_real(reference, 2 * i + 1, state->real_size);
    if (!in_box(state, x, y))
      CK_FAIL(CK_ERROR_PARSE,
              "%s%sparticle %zu's reference position (%g, %g) is outside the "
              "%g x %g box",
              path, colon, i + 1, x, y, state->box_x, state->box_y);
  }
  /* The particles are put back in id order by their ids. */
  seen = calloc(state->particles, 1);
  if (!seen)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s%sout of memory", path, colon);
  for (size_t i = 0; i < state->particles; ++i) {
    uint32_t id = ck__get_u32(ids + 4 * i);
    if (id >= state->particles || seen[id])
      CK_FAIL(CK_ERROR_PARSE,
              "%s%sparticle %zu has id %u; the ids of %u particles are 0 .. "
              "%u, each once",
              path, colon, i + 1, id, state->particles, state->particles - 1);
    seen[id] = 1;
  }
fail:
  free(seen);
  return status;
}

/* A checkpoint's header: magic, version, real size, step, configuration
 * and the forms the run used. */
static void put_header(ck__byte_writer *b, uint32_t real_size, uint64_t step,
                       const ck_gas_config *config, int tiles, int strips) {
  ck__bytes_put(b, checkpoint_magic, 8);
  ck__bytes_put_u32(b, CHECKPOINT_VERSION);
  ck__bytes_put_u32(b, real_size);
  ck__bytes_put_u64(b, step);
  put_config(b, config);
  ck__bytes_put_u32(b, tiles ? 1u : 0u);
  ck__bytes_put_u32(b, strips ? 1u : 0u);
}

/* Saves the checkpoint in b, whose `count` particle buffers begin at
 * offsets: unless loading would refuse it (a particle thrown out of the
 * box by a step too large, before the energy shows it), so that it
 * cannot replace the last checkpoint a run could restart from. path
 * NULL only checks (ck_gas_check). state gives the particles' count,
 * real size, box and neighbour mode. */
static ck_status save_checked(ck__byte_writer *b, const char *path,
                              const gas_state *state, const size_t *offsets,
                              size_t count, uint64_t step) {
  ck_status status = CK_OK;
  if (!b->failed) {
    const uint8_t *at[8] = {0};
    for (size_t i = 0; i < count; ++i)
      at[i] = b->bytes + offsets[i];
    status = check_saved_particles(path ? path : "", state, at[0], at[1], at[2],
                                   at[3], at[4], at[5], at[6]);
    if (status == CK_ERROR_PARSE && path)
      CK_FAIL_PREFIX(CK_ERROR_MISMATCH,
                     "not writing the checkpoint of step %llu, which a run "
                     "could not restart from (the time step may be too "
                     "large): ",
                     (unsigned long long)step);
    if (status == CK_ERROR_PARSE)
      CK_FAIL_PREFIX(CK_ERROR_MISMATCH,
                     "the state of step %llu has blown up, and a run could "
                     "not restart from it (the time step may be too "
                     "large): ",
                     (unsigned long long)step);
    CK_TRY(status);
  }
  if (path)
    CK_TRY(ck__bytes_save(b, path));
  else if (b->failed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory checking a state");
fail:
  return status;
}

/* A spread gas's checkpoint, as one device writes its own: the particles
 * gathered in id order (every process takes part; rank 0 writes), in
 * single precision, as the members compute; Verlet mode's reference
 * positions are the current ones, which a loaded run builds its lists
 * from. Every process returns rank 0's outcome. */
static ck_status save_spread(ck_gas *gas, const char *path) {
  const char *name = path ? path : "the state";
  ck_status status = CK_OK;
  ck__byte_writer b = {0};
  size_t n = gas->config.particles;
  double *arrays[5] = {0};
  size_t lengths[5] = {2 * n, 2 * n, 2 * n, n, n};
  for (int a = 0; a < 5; ++a)
    if (!(arrays[a] = malloc(lengths[a] * sizeof(double))))
      status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
  /* The gather is collective: every process goes on to it, or none. */
  status = ck__gas_spread_agree(gas->spread, status);
  if (status == CK_OK)
    status = ck__gas_spread_particles(gas->spread, arrays[0], arrays[1],
                                      arrays[2], arrays[3], arrays[4]);
  if (status == CK_OK && ck__gas_spread_rank(gas->spread) == 0) {
    gas_state shape = {0};
    shape.particles = (uint32_t)n;
    shape.real_size = sizeof(float);
    shape.box_x = gas->config.box_x;
    shape.box_y = gas->config.box_y;
    shape.neighbors = gas->config.neighbors;
    put_header(&b, sizeof(float), gas->step, &gas->config, 0,
               ck__gas_spread_strips(gas->spread));
    size_t offsets[8];
    /* positions, velocities, forces, energies, virials, ids, and for
     * Verlet the reference positions (the current ones) and the flags */
    int order[7] = {0, 1, 2, 3, 4, -1, 0};
    size_t count = gas->config.neighbors == CK_GAS_VERLET ? 8 : 6;
    for (size_t i = 0; i < count; ++i) {
      offsets[i] = b.size;
      if (i == 5)
        for (size_t k = 0; k < n; ++k)
          ck__bytes_put_u32(&b, (uint32_t)k);
      else if (i == 7)
        for (size_t k = 0; k < CHECKPOINT_FLAGS_BYTES / 4; ++k)
          ck__bytes_put_u32(&b, 0);
      else
        for (size_t k = 0; k < lengths[order[i]]; ++k)
          ck__bytes_put_f32(&b, (float)arrays[order[i]][k]);
    }
    status = save_checked(&b, path, &shape, offsets, count, gas->step);
  }
  status = ck__gas_spread_agree(gas->spread, status);
  for (int a = 0; a < 5; ++a)
    free(arrays[a]);
  ck__bytes_free(&b);
  return status;
}

/* A checkpoint of gas into path, or with path NULL only its check. */
static ck_status save_or_check(ck_gas *gas, const char *path) {
  ck_status status = CK_OK;
  ck__byte_writer b = {0};
  uint8_t *raw = NULL;
  /* A whole box's member saves its own buffers, as they are. */
  gas = ck__gas_alone(gas);
  if (gas->spread)
    return save_spread(gas, path);
  gas_state *state = &gas->state;
  put_header(&b, (uint32_t)state->real_size, gas->step, &gas->config,
             state->local_tiles, state->strips);
  ck_buffer *buffers[8];
  size_t sizes[8], offsets[8] = {0};
  size_t count = checkpoint_buffers(state, buffers, sizes);
  for (size_t i = 0; i < count; ++i) {
    offsets[i] = b.size;
    /* The buffer's bytes, raw, as the device holds them. */
    raw = malloc(sizes[i] ? sizes[i] : 1);
    if (!raw)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory writing a checkpoint",
              path ? path : "the state");
    CK_TRY(ck_buffer_read(state->queue, buffers[i], 0, sizes[i], raw,
                          CK_BLOCKING, NULL));
    ck__bytes_put(&b, raw, sizes[i]);
    free(raw);
    raw = NULL;
  }
  CK_TRY(save_checked(&b, path, state, offsets, count, gas->step));
fail:
  free(raw);
  ck__bytes_free(&b);
  return status;
}

ck_status ck_gas_save(ck_gas *gas, const char *path) {
  CK__REQUIRE(gas);
  CK__REQUIRE(path);
  return save_or_check(gas, path);
}

ck_status ck_gas_check(ck_gas *gas) {
  CK__REQUIRE(gas);
  return save_or_check(gas, NULL);
}

/* Element k of n of a saved array, as its slot s in the loaded order
 * (slot_of maps ids to the saved slots), into out: bytes each. */
static void permute_saved(const uint8_t *saved, size_t bytes, size_t n,
                          const uint32_t *ids, const uint32_t *slot_of,
                          uint8_t *out) {
  for (size_t s = 0; s < n; ++s)
    memcpy(out + s * bytes, saved + (size_t)slot_of[ids[s]] * bytes, bytes);
}

/* The loaded state's neighbour structure, built again as the saved run
 * had it. Cells mode: the cells of the current positions. Verlet mode:
 * the rebuild's, from the reference positions: they go through the
 * rebuild in the positions' place, then the current positions and the
 * flags are put back. A run's own checkpoint is in slot order already,
 * and the sort moves nothing; one in another order (a spread run's, in
 * id order) moves, and the forces, energies, virials and Verlet mode's
 * current positions then follow their particles by id. saved: the
 * checkpoint's buffers (checkpoint_buffers). */
static ck_status rebuild_loaded(ck_gas *gas, const uint8_t *const *saved) {
  ck_status status = CK_OK;
  gas_state *state = &gas->state;
  size_t n = state->particles, real = state->real_size;
  size_t bytes = 2 * n * real;
  uint32_t *ids = NULL, *slot_of = NULL;
  uint8_t *moved = NULL;
  int verlet = state->neighbors == CK_GAS_VERLET;
  if (state->neighbors == CK_GAS_ALL_PAIRS)
    return CK_OK;
  if (verlet)
    CK_TRY(ck_buffer_write(state->queue, state->position, 0, bytes, saved[6],
                           CK_BLOCKING, NULL));
  CK_TRY(gas->steps->neighbors(state, 1));
  ids = malloc(n * sizeof *ids);
  slot_of = malloc(n * sizeof *slot_of);
  moved = malloc(bytes);
  if (!ids || !slot_of || !moved)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck_buffer_read(state->queue, state->id, 0, 4 * n, ids, CK_BLOCKING,
                        NULL));
  int same = 1;
  for (size_t s = 0; s < n; ++s) {
    slot_of[ck__get_u32(saved[5] + 4 * s)] = (uint32_t)s;
    same = same && ids[s] == ck__get_u32(saved[5] + 4 * s);
  }
  if (verlet) {
    if (!same)
      permute_saved(saved[0], 2 * real, n, ids, slot_of, moved);
    CK_TRY(ck_buffer_write(state->queue, state->position, 0, bytes,
                           same ? saved[0] : moved, CK_BLOCKING, NULL));
    CK_TRY(ck_buffer_write(state->queue, state->flags, 0,
                           CHECKPOINT_FLAGS_BYTES, saved[7], CK_BLOCKING,
                           NULL));
  }
  if (same)
    goto fail;
  ck_buffer *follow[] = {state->force, state->energy, state->virial};
  size_t sizes[] = {2 * real, real, real};
  for (int a = 0; a < 3; ++a) {
    permute_saved(saved[2 + a], sizes[a], n, ids, slot_of, moved);
    CK_TRY(ck_buffer_write(state->queue, follow[a], 0, sizes[a] * n, moved,
                           CK_BLOCKING, NULL));
  }
fail:
  free(ids);
  free(slot_of);
  free(moved);
  return status;
}

/* A checkpoint's frame: its magic, its version, its size and checksum,
 * and a real size the device (where not NULL) can hold. */
static ck_status check_checkpoint(const ck_device *device, const char *path,
                                  const uint8_t *in, size_t size,
                                  uint32_t *version, uint32_t *real_size) {
  ck_status status = CK_OK;
  if (size < 8 || memcmp(in, checkpoint_magic, 8) != 0)
    CK_FAIL(CK_ERROR_PARSE, "%s: not a clkit gas checkpoint", path);
  if (size < CHECKPOINT_HEADER + 32)
    CK_FAIL(CK_ERROR_PARSE, "%s: truncated (%zu bytes)", path, size);
  *version = ck__get_u32(in + 8);
  if (*version != 1 && *version != CHECKPOINT_VERSION)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: checkpoint version %u; this clkit reads versions 1 and %u",
            path, *version, CHECKPOINT_VERSION);
  size_t header = CHECKPOINT_HEADER + (*version >= 2 ? 8 : 0);
  if (size < header + 32)
    CK_FAIL(CK_ERROR_PARSE, "%s: truncated (%zu bytes)", path, size);
  uint8_t digest[32];
  ck__sha256(in, size - 32, digest);
  if (memcmp(digest, in + size - 32, 32) != 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: checksum mismatch: the file is damaged or truncated", path);
  *real_size = ck__get_u32(in + 12);
  if (*real_size != 4 && *real_size != 8)
    CK_FAIL(CK_ERROR_PARSE, "%s: real size %u", path, *real_size);
  /* As ck_gas_create() refuses double precision where the device has none. */
  if (device && *real_size == 8 && !ck__device_has_fp64(device))
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "%s: a double-precision checkpoint; device %s has no double "
            "precision",
            path, device->id);
fail:
  return status;
}

/* The saved step, configuration and forms, into loaded; *at_out is the
 * byte after them (put_config wrote them). */
static ck_status read_saved_config(const char *path, const uint8_t *in,
                                   uint32_t version, ck_gas *loaded,
                                   size_t *at_out) {
  ck_status status = CK_OK;
  loaded->step = ck__get_u64(in + 16);
  ck_gas_config *config = &loaded->config;
  ck_gas_config_init(config);
  size_t at = 24;
  config->particles = (size_t)ck__get_u64(in + at);
  at += 8;
  uint32_t codes[7];
  for (size_t i = 0; i < 7; ++i, at += 4)
    codes[i] = ck__get_u32(in + at);
  if (codes[3] > 1)
    CK_FAIL(CK_ERROR_PARSE, "%s: a walls flag of %u, not 0 or 1", path,
            codes[3]);
  config->lattice = (ck_gas_lattice)codes[0];
  config->model = (ck_gas_model)codes[1];
  config->shift = (ck_gas_shift)codes[2];
  config->walls = (int)codes[3];
  config->thermostat = (ck_gas_thermostat)codes[4];
  config->rescale_every = codes[5];
  config->neighbors = (ck_gas_neighbors)codes[6];
  double reals[11];
  for (size_t i = 0; i < 11; ++i, at += 8) {
    uint64_t bits = ck__get_u64(in + at);
    memcpy(&reals[i], &bits, 8);
  }
  config->density = reals[0];
  config->box_x = reals[1];
  config->box_y = reals[2];
  config->temperature = reals[3];
  config->rc = reals[4];
  config->strength = reals[5];
  config->softening = reals[6];
  config->dt = reals[7];
  config->target_temperature = reals[8];
  config->gamma = reals[9];
  config->skin = reals[10];
  config->seed = ck__get_u64(in + at);
  at += 8;
  /* The forms the saved run used, so that the sums go in its order;
   * version 1 runs knew no strips. */
  loaded->state.tiles = -1;
  loaded->state.strips_request = 0;
  loaded->state.sort_request = -1;
  if (version >= 2) {
    uint32_t tiles = ck__get_u32(in + at), strips = ck__get_u32(in + at + 4);
    if (tiles > 1 || strips > 1)
      CK_FAIL(CK_ERROR_PARSE, "%s: unknown forms (tiles %u, strips %u)", path,
              tiles, strips);
    loaded->state.tiles = (int)tiles;
    loaded->state.strips_request = (int)strips;
    at += 8;
  }
  *at_out = at;
fail:
  return status;
}

/* The saved configuration judged as ck_gas_create() judges one, with
 * `left` bytes of particle state after it. */
static ck_status check_saved_config(const char *path,
                                    const ck_gas_config *config, size_t left,
                                    uint32_t real_size) {
  ck_status status = CK_OK;
  /* The particle state must be there before buffers are made for it. */
  if (config->particles < 1 ||
      left / (8 * (size_t)real_size + 4) < config->particles)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: %zu bytes of particle state cannot hold %llu particles", path,
            left, (unsigned long long)config->particles);
  if (config->neighbors == CK_GAS_NEIGHBORS_AUTO)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: no neighbours' mode (a saved run has cells, verlet or all "
            "pairs)",
            path);
  status = ck__gas_check_config(config);
  if (status == CK_OK &&
      (!ck__gas_side_fits(config->box_x) || !ck__gas_side_fits(config->box_y)))
    status = ck__fail(CK_ERROR_INVALID_ARGUMENT, "bad box %g x %g",
                      config->box_x, config->box_y);
  /* The density is the particles over the box's area, as
   * ck__gas_resolve_box set it (to rounding, when the box came from it). */
  double area_density = status == CK_OK ? (double)config->particles /
                                              (config->box_x * config->box_y)
                                        : 0;
  if (status == CK_OK &&
      !(fabs(config->density - area_density) <= 1e-9 * area_density))
    status = ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "density %g, but %zu particles in a %g x %g box have %g",
                      config->density, config->particles, config->box_x,
                      config->box_y, area_density);
  if (status == CK_OK)
    status = ck__gas_check_cutoff_fits(config);
  if (status != CK_OK)
    CK_FAIL_PREFIX(CK_ERROR_PARSE, "%s: a bad configuration: ", path);
fail:
  return status;
}

/* The particle state of a checkpoint, from byte at of in (size bytes,
 * the checksum last), checked: saved[i] points at buffer i of
 * checkpoint_buffers (sizes[i] bytes; count of them), for state's
 * particles, precision, box and neighbour mode. */
static ck_status locate_saved(const char *path, const uint8_t *in, size_t size,
                              size_t at, uint32_t version, gas_state *state,
                              const uint8_t **saved, size_t *sizes,
                              size_t *count) {
  ck_status status = CK_OK;
  ck_buffer *buffers[8];
  *count = checkpoint_buffers(state, buffers, sizes);
  size_t needed = 0, skipped = 0;
  for (size_t i = 0; i < *count; ++i)
    needed += sizes[i];
  /* Version 1 Verlet files hold the lists and their counts (4 (capacity
   * + 1) bytes a particle) between the reference positions and the
   * flags: they are skipped and built again. */
  if (version == 1 && state->neighbors == CK_GAS_VERLET &&
      size - 32 - at > needed)
    skipped = size - 32 - at - needed;
  if (size - 32 - at != needed + skipped ||
      skipped % (4 * (size_t)state->particles) != 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: %zu bytes of particle state where %u particles need %zu", path,
            size - 32 - at, state->particles, needed);
  for (size_t i = 0; i < *count; ++i) {
    if (i == 7)
      at += skipped;
    saved[i] = in + at;
    at += sizes[i];
  }
  CK_TRY(check_saved_particles(path, state, saved[0], saved[1], saved[2],
                               saved[3], saved[4], saved[5], saved[6]));
fail:
  return status;
}

/* The particle state, from byte at of in (size bytes, the checksum last),
 * onto the loaded state's buffers, checked, with the neighbour structure
 * built again. */
static ck_status upload_saved(const char *path, const uint8_t *in, size_t size,
                              size_t at, uint32_t version, ck_gas *loaded) {
  ck_status status = CK_OK;
  gas_state *state = &loaded->state;
  ck_buffer *buffers[8];
  const uint8_t *saved[8] = {0};
  size_t sizes[8], count = 0;
  CK_TRY(
      locate_saved(path, in, size, at, version, state, saved, sizes, &count));
  checkpoint_buffers(state, buffers, sizes);
  for (size_t i = 0; i < count; ++i)
    CK_TRY(ck_buffer_write(state->queue, buffers[i], 0, sizes[i], saved[i],
                           CK_BLOCKING, NULL));
  CK_TRY(rebuild_loaded(loaded, saved));
fail:
  return status;
}

/* A checkpoint's frame (check_checkpoint; device may be NULL), then its
 * step, configuration and forms into *loaded (made here; the caller
 * destroys it), judged as ck_gas_create() judges one; *at is the byte
 * after them. */
static ck_status open_checkpoint(const ck_device *device, const char *path,
                                 const uint8_t *in, size_t size,
                                 ck_gas **loaded, uint32_t *version,
                                 uint32_t *real_size, size_t *at) {
  ck_status status = CK_OK;
  CK_TRY(check_checkpoint(device, path, in, size, version, real_size));
  *loaded = calloc(1, sizeof **loaded);
  if (!*loaded)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(read_saved_config(path, in, *version, *loaded, at));
  CK_TRY(check_saved_config(path, &(*loaded)->config, size - 32 - *at,
                            *real_size));
fail:
  return status;
}

/* A gas loaded on one device from a checkpoint's bytes, as ck_gas_load
 * loads it. */
static ck_status load_alone(const ck_device *device, const char *path,
                            const uint8_t *in, size_t size, ck_gas **gas) {
  ck_status status = CK_OK;
  ck_gas *loaded = NULL;
  uint32_t version = 0, real_size = 0;
  size_t at = 0;
  CK_TRY(open_checkpoint(device, path, in, size, &loaded, &version, &real_size,
                         &at));
  /* The state's own checks (the Verlet lists' length, from the density
   * and the range) judge the file's configuration too. */
  status = ck__gas_build_state(device, loaded, real_size == 8, 1);
  if (status == CK_ERROR_INVALID_ARGUMENT)
    CK_FAIL_PREFIX(CK_ERROR_PARSE, "%s: a bad configuration: ", path);
  CK_TRY(status);
  CK_TRY(upload_saved(path, in, size, at, version, loaded));
  ck_gas *taken = loaded;
  loaded = NULL;
  CK_TRY(ck__gas_wrap_alone(device, taken, gas));
fail:
  ck_gas_destroy(loaded);
  return status;
}

ck_status ck_gas_load(const ck_device *device, const char *path, ck_gas **gas) {
  ck_status status = CK_OK;
  char *bytes = NULL;
  size_t size = 0;
  CK__REQUIRE(device);
  CK__REQUIRE(path);
  CK__REQUIRE(gas);
  *gas = NULL;
  CK_TRY(ck__file_read_bytes(path, ck__file_binary_max_bytes(),
                             checkpoint_magic, 8, &bytes, &size));
  CK_TRY(load_alone(device, path, (const uint8_t *)bytes, size, gas));
fail:
  free(bytes);
  return status;
}

/* A checkpoint's bytes, read by rank 0 and sent to every process. */
static ck_status read_shared(ck__gas_spread *spread, const char *path,
                             char **bytes, size_t *size) {
  ck_status status = CK_OK;
  uint64_t shared = 0;
  if (ck__gas_spread_rank(spread) == 0)
    status = ck__file_read_bytes(path, ck__file_binary_max_bytes(),
                                 checkpoint_magic, 8, bytes, size);
  CK_TRY(ck__gas_spread_agree(spread, status));
  shared = *size;
  CK_TRY(ck__gas_spread_broadcast(spread, &shared, sizeof shared));
  if (ck__gas_spread_rank(spread) != 0) {
    *size = (size_t)shared;
    *bytes = malloc(*size ? *size : 1);
  }
  CK_TRY(ck__gas_spread_agree(
      spread, *bytes
                  ? CK_OK
                  : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                             "%s: out of memory for %zu bytes", path, *size)));
  CK_TRY(ck__gas_spread_broadcast(spread, *bytes, *size));
fail:
  return status;
}

/* A checkpoint (opened into loaded, its records from at) dealt over a
 * spread's members; *members is taken once the gas wraps them. */
static ck_status load_members(ck__gas_spread **members, const char *path,
                              const uint8_t *in, size_t size, size_t at,
                              uint32_t version, uint32_t real_size,
                              ck_gas *loaded, ck_gas **gas) {
  ck_status status = CK_OK;
  double *positions = NULL, *velocities = NULL;
  ck_gas_config *c = &loaded->config;
  gas_state *shape = &loaded->state;
  shape->particles = (uint32_t)c->particles;
  shape->real_size = real_size;
  shape->box_x = c->box_x;
  shape->box_y = c->box_y;
  shape->neighbors = c->neighbors;
  const uint8_t *saved[8] = {0};
  size_t sizes[8], count = 0;
  CK_TRY(
      locate_saved(path, in, size, at, version, shape, saved, sizes, &count));
  size_t n = c->particles;
  positions = malloc(2 * n * sizeof *positions);
  velocities = malloc(2 * n * sizeof *velocities);
  if (!positions || !velocities)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
  for (size_t k = 0; k < n; ++k) {
    size_t id = ck__get_u32(saved[5] + 4 * k);
    for (int d = 0; d < 2; ++d) {
      positions[2 * id + d] = saved_real(saved[0], 2 * k + d, real_size);
      velocities[2 * id + d] = saved_real(saved[1], 2 * k + d, real_size);
    }
  }
  ck__gas_forms forms = {shape->tiles, shape->strips_request, -1, 0, 0};
  ck__gas_spread *taken = *members;
  *members = NULL;
  CK_TRY(ck__gas_wrap_spread(taken, c, loaded->step, forms, positions,
                             velocities, gas));
fail:
  free(positions);
  free(velocities);
  return status;
}

ck_status ck_gas_load_spread(const ck_spread *spread, const char *path,
                             ck_gas **gas) {
  ck_status status = CK_OK;
  char *bytes = NULL;
  size_t size = 0;
  ck_gas *loaded = NULL;
  ck__gas_spread *members = NULL;
  CK__REQUIRE_IN("ck_gas_load_spread", spread);
  CK__REQUIRE_IN("ck_gas_load_spread", path);
  CK__REQUIRE_IN("ck_gas_load_spread", gas);
  *gas = NULL;
  CK_TRY(ck__gas_spread_begin(spread, &members));
  CK_TRY(read_shared(members, path, &bytes, &size));
  /* Every process judges the same bytes alike. */
  const uint8_t *in = (const uint8_t *)bytes;
  uint32_t version = 0, real_size = 0;
  size_t at = 0;
  CK_TRY(open_checkpoint(NULL, path, in, size, &loaded, &version, &real_size,
                         &at));
  /* A spread's refusals (soft-log, all pairs) before any device builds. */
  status = ck__gas_spread_check(&loaded->config);
  if (status)
    CK_FAIL_PREFIX(status, "%s: ", path);
  if (ck__gas_spread_place(members).device) {
    /* One member: the gas loaded on its device, as ck_gas_load loads it. */
    ck__gas_spread_destroy(members);
    members = NULL;
    status = load_alone(&spread->devices[0], path, in, size, gas);
  } else {
    status = load_members(&members, path, in, size, at, version, real_size,
                          loaded, gas);
  }
fail:
  ck__gas_spread_destroy(members);
  ck_gas_destroy(loaded);
  free(bytes);
  return status;
}
