/*
 * gas_workload.c - 2D Lennard-Jones dynamics as a clkit workload: its
 * options, read into a job and checked, and the options as a run
 * resolved them. The run and its files are gas_run.c's; the result's
 * figures, --plot and the cost model, gas_report.c's.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "framework/plot.h"
#include "gas/gas_internal.h"

/* The options that name files a run writes: --checkpoint first, which
 * may replace the checkpoint --restart reads, then the others. */
static const char *const gas_outputs[] = {"checkpoint", "rdf",  "traj", "png",
                                          "thermo",     "plot", NULL};
static const char *const gas_binary_outputs[] = {"checkpoint", "png", NULL};

/* The run's own settings, beside ck_gas_config's (ck__gas_fields). */
enum {
  JOB_STEPS,
  JOB_EQUIL,
  JOB_LOG_EVERY,
  JOB_SAMPLE_EVERY,
  JOB_BLOCKS,
  JOB_RDF,
  JOB_RDF_BINS,
  JOB_RDF_RANGE,
  JOB_RDF_EVERY,
  JOB_TRAJ,
  JOB_TRAJ_EVERY,
  JOB_THERMO,
  JOB_PNG,
  JOB_PNG_SIZE,
  JOB_CHECKPOINT,
  JOB_CHECKPOINT_EVERY,
  JOB_RESTART,
  JOB_TILES,
  JOB_STRIPS,
  JOB_SORT,
  JOB_FIELDS
};

static const ck__field_word automatic[] = {{"auto", 0}, {NULL, 0}};
static const ck__field_word tiles[] = {
    {"direct", 0}, {"local", 1}, {"auto", -1}, {NULL, 0}};
static const ck__field_word strips[] = {
    {"off", 0}, {"on", 1}, {"auto", -1}, {NULL, 0}};
static const ck__field_word sorts[] = {
    {"parallel", 0}, {"whole", 1}, {"auto", -1}, {NULL, 0}};

#define STEPS(member, fallback, low)                                           \
  { CK__FIELD_OF(ck__gas_job, member, CK__FIELD_UINT64, fallback, low, 1e15) }
#define FILE_FIELD(member)                                                     \
  { CK__FIELD_OF(ck__gas_job, member, CK__FIELD_TEXT, 0, 0, 0) }

static const ck__field gas_job_fields[JOB_FIELDS] = {
    [JOB_STEPS] = STEPS(steps, 1000, 0),
    [JOB_EQUIL] = STEPS(equil, 0, 0),
    [JOB_LOG_EVERY] = STEPS(log_every, 100, 0),
    [JOB_SAMPLE_EVERY] = STEPS(sample_every, 10, 1),
    [JOB_BLOCKS] = {CK__FIELD_OF(ck__gas_job, blocks, CK__FIELD_UINT, 10, 2,
                                 1000)},
    [JOB_RDF] = FILE_FIELD(rdf),
    [JOB_RDF_BINS] = {CK__FIELD_OF(ck__gas_job, rdf_bins, CK__FIELD_UINT, 100,
                                   1, 1 << 20)},
    [JOB_RDF_RANGE] = {CK__FIELD_OF(ck__gas_job, rdf_range, CK__FIELD_REAL, 0,
                                    1e-9, 1e9),
                       .words = automatic},
    [JOB_RDF_EVERY] = STEPS(rdf_every, 100, 1),
    [JOB_TRAJ] = FILE_FIELD(traj),
    [JOB_TRAJ_EVERY] = STEPS(traj_every, 100, 1),
    [JOB_THERMO] = FILE_FIELD(thermo),
    [JOB_PNG] = FILE_FIELD(png),
    [JOB_PNG_SIZE] = {CK__FIELD_OF(ck__gas_job, png_size, CK__FIELD_UINT, 800,
                                   16, 16384)},
    [JOB_CHECKPOINT] = FILE_FIELD(checkpoint),
    [JOB_CHECKPOINT_EVERY] = STEPS(checkpoint_every, 0, 0),
    [JOB_RESTART] = FILE_FIELD(restart),
    [JOB_TILES] = {CK__FIELD_ENUM(ck__gas_job, forms.tiles, -1, tiles)},
    [JOB_STRIPS] = {CK__FIELD_ENUM(ck__gas_job, forms.strips, -1, strips)},
    [JOB_SORT] = {CK__FIELD_ENUM(ck__gas_job, forms.sort, -1, sorts)},
};

/* One side of --box: a positive decimal number filling [begin, end). */
static int parse_side(const char *begin, const char *end, double *side) {
  return ck__parse_decimal(begin, end, side) && *side > 0;
}

static ck_status parse_box(const char *text, void *job) {
  ck_gas_config *config = job;
  const char *separator = strpbrk(text, "xX");
  const char *end = text + strlen(text);
  double x = 0, y = 0;
  int good = separator ? parse_side(text, separator, &x) &&
                             parse_side(separator + 1, end, &y)
                       : parse_side(text, end, &x);
  if (!separator)
    y = x;
  if (!good)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--box: '%s' is not LxW or L with positive sides (e.g. "
                    "40x30)",
                    text);
  config->box_x = x;
  config->box_y = y;
  return CK_OK;
}

/* none, langevin:T:GAMMA or rescale:T:EVERY, each field read whole as
 * option values are, in the range of its config field (sscanf's %u would
 * wrap -1 and 10^11). */
static ck_status parse_thermostat(const char *text, void *job) {
  ck_gas_config *config = job;
  const ck__field *target = &ck__gas_fields[CK__GAS_TARGET_TEMPERATURE];
  const ck__field *friction = &ck__gas_fields[CK__GAS_GAMMA];
  const ck__field *every_field = &ck__gas_fields[CK__GAS_RESCALE_EVERY];
  if (strcmp(text, "none") == 0) {
    config->thermostat = CK_GAS_NVE;
    return CK_OK;
  }
  const char *first = NULL, *second = NULL;
  int langevin = ck__parse_two_fields(text, "langevin:", &first, &second);
  int rescale =
      !langevin && ck__parse_two_fields(text, "rescale:", &first, &second);
  const char *end = text + strlen(text);
  double t = -1, gamma = 0;
  long long every = 0;
  int good = (langevin || rescale) &&
             ck__parse_decimal(first, second - 1, &t) &&
             ck__field_in_range(target, t);
  if (good && langevin)
    good = ck__parse_decimal(second, end, &gamma) &&
           ck__field_in_range(friction, gamma);
  else if (good)
    good = ck__parse_whole(second, end, (long long)every_field->minimum,
                           (long long)every_field->maximum, &every) == 1;
  if (!good) {
    char t_range[96], gamma_range[96], every_range[96];
    ck__field_range_text(target, t_range, sizeof t_range);
    ck__field_range_text(friction, gamma_range, sizeof gamma_range);
    ck__field_range_text(every_field, every_range, sizeof every_range);
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--thermostat: '%s' is not none, langevin:T:GAMMA or "
                    "rescale:T:EVERY (T in %s, GAMMA in %s, EVERY a whole "
                    "number in %s)",
                    text, t_range, gamma_range, every_range);
  }
  config->thermostat = langevin ? CK_GAS_LANGEVIN : CK_GAS_RESCALE;
  config->target_temperature = t;
  if (langevin)
    config->gamma = gamma;
  else
    config->rescale_every = (unsigned)every;
  return CK_OK;
}

static ck_status parse_neighbors(const char *text, void *job) {
  ck_gas_config *config = job;
  const ck__field *skin_field = &ck__gas_fields[CK__GAS_SKIN];
  double skin = 0;
  if (strcmp(text, "auto") == 0) {
    config->neighbors = CK_GAS_NEIGHBORS_AUTO;
  } else if (strcmp(text, "cells") == 0) {
    config->neighbors = CK_GAS_CELLS;
  } else if (strcmp(text, "allpairs") == 0) {
    config->neighbors = CK_GAS_ALL_PAIRS;
  } else if (strcmp(text, "verlet") == 0) {
    config->neighbors = CK_GAS_VERLET;
  } else if (strncmp(text, "verlet:", 7) == 0 &&
             ck__parse_decimal(text + 7, text + strlen(text), &skin) &&
             ck__field_in_range(skin_field, skin)) {
    config->neighbors = CK_GAS_VERLET;
    config->skin = skin;
  } else {
    char range[96];
    ck__field_range_text(skin_field, range, sizeof range);
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--neighbors: '%s' is not auto, cells, verlet:SKIN (SKIN "
                    "in %s) or allpairs",
                    text, range);
  }
  return CK_OK;
}

static ck_status parse_model(const char *text, void *job) {
  ck_gas_config *config = job;
  double strength = 0, softening = 0;
  if (strcmp(text, "lj") == 0) {
    config->model = CK_GAS_LENNARD_JONES;
    return CK_OK;
  }
  const char *first = NULL, *second = NULL;
  if (ck__parse_two_fields(text, "log:", &first, &second) &&
      ck__parse_decimal(first, second - 1, &strength) &&
      ck__parse_decimal(second, text + strlen(text), &softening) &&
      ck__field_in_range(&ck__gas_fields[CK__GAS_SOFTENING], softening)) {
    config->model = CK_GAS_SOFT_LOG;
    config->strength = strength;
    config->softening = softening;
    return CK_OK;
  }
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "--model: '%s' is not lj or log:A:S (S >= 0)", text);
}

#define GAS(index)                                                             \
  .field = &ck__gas_fields[CK__GAS_##index], .config = "ck_gas_config"
#define JOB(index) .field = &gas_job_fields[JOB_##index]

/* The system's settings come first, up to --steps: a checkpoint carries
 * them, so --restart refuses them (check_start), --xyz with its own
 * message. */
static const ck__option gas_options[] = {
    {"particles", "N", "number of particles", GAS(PARTICLES)},
    {"rho", "D", "number density (a square box); or give --box", GAS(DENSITY)},
    {"box", "LxW", "box sides, e.g. 40x40 (sets the density)",
     .read = parse_box, .config = "ck_gas_config", .sets = "box_x box_y"},
    {"lattice", "L", "initial lattice: triangular or square", GAS(LATTICE)},
    {"T", "T", "temperature of the initial velocities", GAS(TEMPERATURE)},
    {"xyz", "FILE",
     "start from an extended-XYZ file (particles, positions, box and "
     "velocities; not with --particles, --rho or --lattice)",
     GAS(XYZ_PATH)},
    {"rc", "R", "Lennard-Jones cutoff", GAS(RC), .flags = CK__OPTION_RANGE},
    {"shift", "S", "energy (U - U(rc)), force (also F - F(rc)) or none",
     GAS(SHIFT)},
    {"model", "M",
     "lj, or log:A:S for (A/2) ln(r^2 + S^2) + r^-12 (all pairs: "
     "--neighbors auto or allpairs)",
     GAS(MODEL), .read = parse_model, .sets = "strength softening"},
    {"dt", "DT", "time step", GAS(DT)},
    {"walls", NULL, "reflecting walls instead of periodic boundaries",
     GAS(WALLS)},
    {"thermostat", "K", "none (NVE), langevin:T:GAMMA or rescale:T:EVERY",
     GAS(THERMOSTAT), .read = parse_thermostat,
     .sets = "target_temperature gamma rescale_every"},
    {"neighbors", "N",
     "auto (Verlet lists on a GPU where they run faster, all pairs for "
     "--model log, else cells), cells (rebuilt every step), verlet:SKIN "
     "(rebuilt when needed; SKIN %g unless given) or allpairs",
     GAS(NEIGHBORS), .read = parse_neighbors, .sets = "skin",
     .detail = &ck__gas_fields[CK__GAS_SKIN]},
    {"tiles", "T",
     "how all pairs read positions on OpenCL devices: local (staged in "
     "local memory, GPUs), direct (CPUs) or auto",
     JOB(TILES)},
    {"strips", "S",
     "how cells and Verlet modes read pairs on OpenCL devices: strips (runs "
     "of slots in the cells around a particle, a vector at a time; Verlet "
     "mode then keeps its rebuild's cells instead of lists) on CPUs (auto) "
     "or on any device (on), or one neighbour at a time (off)",
     JOB(STRIPS)},
    {"sort", "S",
     "how Verlet rebuilds sort on OpenCL devices: whole (one work-item, one "
     "launch a step; small systems on CPUs), parallel (a counting sort "
     "across the device) or auto",
     JOB(SORT)},
    {"steps", "S", "production steps (after --equil)", JOB(STEPS)},
    {"equil", "E", "steps run before averaging starts", JOB(EQUIL)},
    {"log-every", "K", "print the observables every K steps (0: off)",
     JOB(LOG_EVERY)},
    {"sample-every", "K", "steps between samples of the averages",
     JOB(SAMPLE_EVERY)},
    {"blocks", "B", "blocks for the standard errors of the averages",
     JOB(BLOCKS)},
    {"rdf", "FILE", "write g(r), averaged over the production run", JOB(RDF),
     .format = "csv"},
    {"rdf-bins", "B", "histogram bins of --rdf (needs --rdf)", JOB(RDF_BINS)},
    {"rdf-range", "R",
     "largest distance of --rdf (auto: rc, or half the box with all pairs)",
     JOB(RDF_RANGE)},
    {"rdf-every", "K", "steps between --rdf samples (needs --rdf)",
     JOB(RDF_EVERY)},
    {"traj", "FILE", "write an extended-XYZ trajectory", JOB(TRAJ),
     .format = "xyz"},
    {"traj-every", "K", "steps between --traj frames (needs --traj)",
     JOB(TRAJ_EVERY)},
    {"thermo", "FILE",
     "write the observables of each log step as CSV (step, time, "
     "temperature, kinetic, potential, total, pressure)",
     JOB(THERMO), .format = "csv"},
    {"png", "FILE",
     "draw the final configuration: discs coloured by speed, or a density "
     "field where discs would be under 2 pixels in radius",
     JOB(PNG), .format = "png"},
    {"png-size", "PX", "the picture's longer side in pixels (needs --png)",
     JOB(PNG_SIZE)},
    {"plot", "FILE",
     "chart the energies, temperature and pressure of each log step, the "
     "time along the top: FILE.svg or FILE.png",
     .field = NULL, .format = "chart"},
    {"checkpoint", "FILE",
     "write a checkpoint at the end (and every --checkpoint-every steps)",
     JOB(CHECKPOINT), .format = "gas-checkpoint"},
    {"checkpoint-every", "K", "steps between checkpoints (0: the end)",
     JOB(CHECKPOINT_EVERY)},
    {"restart", "FILE",
     "continue bit-exactly from a checkpoint (its settings; --steps more)",
     JOB(RESTART)},
    {0},
};

/* Options that mean something only beside another part of the run. */
static ck_status check_parts(const ck_param *params, size_t count,
                             const ck__gas_job *job) {
  const ck__option_part parts[] = {
      {"traj-every", !job->traj, "--traj FILE"},
      {"rdf-bins", !job->rdf, "--rdf FILE"},
      {"rdf-range", !job->rdf, "--rdf FILE"},
      {"rdf-every", !job->rdf, "--rdf FILE"},
      {"png-size", !job->png, "--png FILE"},
      {"checkpoint-every", !job->checkpoint, "--checkpoint FILE"},
      /* A row per log step: none without them. */
      {"thermo", job->log_every == 0, "--log-every above 0"},
      {"plot", job->log_every == 0, "--log-every above 0"},
  };
  ck_status status =
      ck__param_parts(params, count, parts, sizeof parts / sizeof *parts);
  if (status || job->restart)
    return status;
  /* A kernel form of another neighbour mode; "auto" leaves it to clkit,
   * which holds for any mode. */
  int verlet = job->config.neighbors == CK_GAS_VERLET;
  int all_pairs = job->config.neighbors == CK_GAS_ALL_PAIRS;
  const ck__option_part forms[] = {
      {"sort", !verlet && job->forms.sort >= 0, "--neighbors verlet:SKIN"},
      {"tiles", !all_pairs && job->forms.tiles >= 0, "--neighbors allpairs"},
      {"strips", all_pairs && job->forms.strips >= 0,
       "--neighbors cells or verlet:SKIN"},
  };
  return ck__param_parts(params, count, forms, sizeof forms / sizeof *forms);
}

/* Where the run starts: a lattice, an XYZ file or a checkpoint, each
 * refusing the settings it gives itself. */
static ck_status check_start(const ck_param *params, size_t count,
                             const ck_run_options *options,
                             const ck__gas_job *job) {
  const ck_gas_config *config = &job->config;
  if (job->restart && config->xyz_path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--restart and --xyz both give the starting state; give "
                    "one");
  if (config->xyz_path && !job->restart) {
    /* The file gives the particles, their positions and the box (its
     * Lattice, else --box): these would be ignored, so they are refused.
     * --box against a Lattice and --T against the file's velocities are
     * refused once the file is read (ck__gas_create_tuned). */
    static const char *const from_file[] = {"particles", "rho", "lattice",
                                            NULL};
    for (const char *const *name = from_file; *name; ++name)
      if (ck__param_find(params, count, *name))
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "--%s: --xyz gives the particles, their positions "
                        "and the box; leave --%s out",
                        *name, *name);
  }
  if (!job->restart && !config->xyz_path) {
    if (ck__param_find(params, count, "rho") &&
        ck__param_find(params, count, "box"))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "--rho: --box gives the box, which sets the density; "
                      "give one");
    ck_gas_config resolved = *config;
    return ck__gas_resolve_box(&resolved);
  }
  if (!job->restart)
    return CK_OK;
  /* A restart continues bit-exactly with the checkpoint's system, model,
   * integration, kernel forms and seed: a setting given beside it would
   * be ignored, so it is refused rather than dropped unseen. */
  if (options && options->seed_given)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--seed: --restart continues with the checkpoint's seed; "
                    "leave --seed out");
  for (const ck__option *option = gas_options;
       option->name && strcmp(option->name, "steps") != 0; ++option)
    if (strcmp(option->name, "xyz") != 0 &&
        ck__param_find(params, count, option->name))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "--%s: --restart continues with the checkpoint's "
                      "settings; leave --%s out",
                      option->name, option->name);
  return CK_OK;
}

/* The options into job, over the defaults. */
static ck_status read_options(const ck_param *params, size_t count,
                              const ck_run_options *options, ck__gas_job *job) {
  memset(job, 0, sizeof *job);
  ck_gas_config_init(&job->config);
  ck__fields_init(job, gas_job_fields, JOB_FIELDS);
  job->config.seed = options ? options->seed : 1;
  job->plot = ck__param_find(params, count, "plot");
  return ck__options_read(gas_options, params, count, job);
}

/* The job, and with `spread` what a spread run refuses too. */
static ck_status job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, int spread,
                           ck__gas_job *job) {
  ck_status status = CK_OK;
  /* A run may go on from a checkpoint and replace it, since the restart
   * is read whole before anything is written; nothing else may share. */
  static const char *const reads[] = {"xyz", "restart", NULL};
  const char *plot = NULL;
  if ((status = ck__plot_option(params, count, &plot)) ||
      (status = ck__param_files_apart(params, count, reads, gas_outputs,
                                      "checkpoint", "restart")) ||
      (status = read_options(params, count, options, job)) ||
      (status = check_parts(params, count, job)) ||
      (status = check_start(params, count, options, job)) || !spread)
    return status;
  if ((status = ck__param_not_spread(
           params, count, "model", job->config.model != CK_GAS_LENNARD_JONES,
           "the soft-log model has no cutoff to cut the box at; use lj")))
    return status;
  return ck__param_not_spread(
      params, count, "neighbors", job->config.neighbors == CK_GAS_ALL_PAIRS,
      "all pairs do not spread over devices; use cells or verlet:SKIN");
}

ck_status ck__gas_job_parse(const ck_param *params, size_t count,
                            const ck_run_options *options, ck__gas_job *job) {
  return job_parse(params, count, options, options && options->spread, job);
}

static ck_status gas_prepare(const ck_param *params, size_t count,
                             const ck_run_options *options, void *job) {
  return ck__gas_job_parse(params, count, options, job);
}

static ck_status gas_check(const ck_param *params, size_t count) {
  ck__gas_job job;
  return job_parse(params, count, NULL, 0, &job);
}

static ck_status gas_check_spread(const ck_param *params, size_t count) {
  ck__gas_job job;
  return job_parse(params, count, NULL, 1, &job);
}

/* A real of a compound option's value ("langevin:T:GAMMA") as an option
 * reads it back. */
static const char *number_text(char text[40], double value) {
  ck__shortest_number(text, 40, value);
  return text;
}

ck_status ck__gas_report_system(ck_result *result, const ck__gas_job *job,
                                ck_gas *gas, const ck_gas_config *c) {
  ck_status status = CK_OK;
  const gas_state *state = ck__gas_state(gas);
  ck__gas_job shown = *job;
  shown.config = *c;
  shown.config.xyz_path = job->config.xyz_path;
  shown.forms.tiles = state->tiles;
  shown.forms.strips = state->strips_request;
  shown.forms.sort = state->sort_request;
  /* The options up to --steps describe the system (as check_start has
   * it); those with a syntax of their own are written below. */
  for (const ck__option *option = gas_options;
       option->name && strcmp(option->name, "steps") != 0; ++option)
    if (!option->read)
      CK_TRY(ck__result_option_field(result, option, &shown));
  char a[40], b[40], text[128];
  snprintf(text, sizeof text, "%sx%s", number_text(a, c->box_x),
           number_text(b, c->box_y));
  CK_TRY(ck__result_option(result, "box", text));
  if (c->model == CK_GAS_SOFT_LOG)
    snprintf(text, sizeof text, "log:%s:%s", number_text(a, c->strength),
             number_text(b, c->softening));
  else
    snprintf(text, sizeof text, "lj");
  CK_TRY(ck__result_option(result, "model", text));
  if (c->thermostat == CK_GAS_LANGEVIN)
    snprintf(text, sizeof text, "langevin:%s:%s",
             number_text(a, c->target_temperature), number_text(b, c->gamma));
  else if (c->thermostat == CK_GAS_RESCALE)
    snprintf(text, sizeof text, "rescale:%s:%u",
             number_text(a, c->target_temperature), c->rescale_every);
  else
    snprintf(text, sizeof text, "none");
  CK_TRY(ck__result_option(result, "thermostat", text));
  if (c->neighbors == CK_GAS_VERLET)
    snprintf(text, sizeof text, "verlet:%s", number_text(a, c->skin));
  else
    snprintf(text, sizeof text, "%s",
             c->neighbors == CK_GAS_ALL_PAIRS ? "allpairs" : "cells");
  CK_TRY(ck__result_option(result, "neighbors", text));
  if (job->restart || job->config.xyz_path)
    CK_TRY(ck__result_option(result, "lattice", NULL));
  if (!gas->drew_velocities)
    CK_TRY(ck__result_option(result, "T", NULL));
fail:
  return status;
}

/* The options of the system and its dynamics, as against a run's steps,
 * outputs and kernel forms. */
static int describes_system(const char *name) {
  for (const ck__option *option = gas_options; option->name; ++option)
    if (strcmp(option->name, name) == 0)
      return option->config && strcmp(option->config, "ck_gas_config") == 0;
  return 0;
}

ck_status ck_gas_config_read(const ck_param *params, size_t count,
                             ck_gas_config *config) {
  CK__REQUIRE_IN("ck_gas_config_read", config);
  if (count && !params)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_gas_config_read: params is NULL");
  for (size_t i = 0; i < count; ++i)
    if (!params[i].name || !describes_system(params[i].name))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s does not describe the system or its "
                      "dynamics",
                      params[i].name ? params[i].name : "(null)");
  ck__gas_job job;
  ck_status status = ck__gas_job_parse(params, count, NULL, &job);
  if (status == CK_OK)
    *config = job.config;
  return status;
}

static const ck_param gas_demo[] = {
    {"particles", "400"}, {"steps", "200"}, {"log-every", "0"}};

const ck_workload ck__gas_workload = {
    .name = "gas",
    .summary = "2D Lennard-Jones molecular dynamics (NVE, Langevin, rescaling)",
    .options = gas_options,
    CK__OPTIONS_SHOWN(gas_options),
    .tolerance = 0.02,
    .check = gas_check,
    .job_bytes = sizeof(ck__gas_job),
    .prepare = gas_prepare,
    .run = ck__gas_run,
    .outputs = gas_outputs,
    .binary_outputs = gas_binary_outputs,
    .demo = gas_demo,
    .demo_count = sizeof gas_demo / sizeof gas_demo[0],
    .spreads = 1,
    .check_spread = gas_check_spread,
    .spread_shares_devices = 1,
    .bench = &ck__gas_bench,
};
