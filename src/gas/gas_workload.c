/*
 * gas_workload.c - 2D Lennard-Jones dynamics as a clkit workload: options
 * in; log lines through the run's log callback; run averages with block
 * standard errors in the ck_result; the files --rdf, --traj, --thermo,
 * --png, --plot and --checkpoint, each written atomically.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "framework/history.h"
#include "framework/plot.h"
#include "framework/spread.h"
#include "gas/gas_internal.h"
#include "gas/gas_io.h"

/* The options that name files a run writes: --checkpoint first, which
 * may replace the checkpoint --restart reads, then the others. */
static const char *const gas_outputs[] = {"checkpoint", "rdf",  "traj", "png",
                                          "thermo",     "plot", NULL};
static const char *const gas_binary_outputs[] = {"checkpoint", "png", NULL};

typedef struct gas_job {
  ck_gas_config config; /* first: the options' fields are the job's */
  uint64_t steps, equil, log_every, sample_every, rdf_every, traj_every,
      checkpoint_every;
  unsigned blocks, rdf_bins, png_size;
  double rdf_range;
  const char *rdf, *traj, *png, *checkpoint, *restart, *thermo, *plot;
  ck__gas_forms forms;
} gas_job;

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
  { CK__FIELD_OF(gas_job, member, CK__FIELD_UINT64, fallback, low, 1e15) }
#define FILE_FIELD(member)                                                     \
  { CK__FIELD_OF(gas_job, member, CK__FIELD_TEXT, 0, 0, 0) }

static const ck__field gas_job_fields[JOB_FIELDS] = {
    [JOB_STEPS] = STEPS(steps, 1000, 0),
    [JOB_EQUIL] = STEPS(equil, 0, 0),
    [JOB_LOG_EVERY] = STEPS(log_every, 100, 0),
    [JOB_SAMPLE_EVERY] = STEPS(sample_every, 10, 1),
    [JOB_BLOCKS] = {CK__FIELD_OF(gas_job, blocks, CK__FIELD_UINT, 10, 2, 1000)},
    [JOB_RDF] = FILE_FIELD(rdf),
    [JOB_RDF_BINS] = {CK__FIELD_OF(gas_job, rdf_bins, CK__FIELD_UINT, 100, 1,
                                   1 << 20)},
    [JOB_RDF_RANGE] = {CK__FIELD_OF(gas_job, rdf_range, CK__FIELD_REAL, 0, 1e-9,
                                    1e9),
                       .words = automatic},
    [JOB_RDF_EVERY] = STEPS(rdf_every, 100, 1),
    [JOB_TRAJ] = FILE_FIELD(traj),
    [JOB_TRAJ_EVERY] = STEPS(traj_every, 100, 1),
    [JOB_THERMO] = FILE_FIELD(thermo),
    [JOB_PNG] = FILE_FIELD(png),
    [JOB_PNG_SIZE] = {CK__FIELD_OF(gas_job, png_size, CK__FIELD_UINT, 800, 16,
                                   16384)},
    [JOB_CHECKPOINT] = FILE_FIELD(checkpoint),
    [JOB_CHECKPOINT_EVERY] = STEPS(checkpoint_every, 0, 0),
    [JOB_RESTART] = FILE_FIELD(restart),
    [JOB_TILES] = {CK__FIELD_ENUM(gas_job, forms.tiles, -1, tiles)},
    [JOB_STRIPS] = {CK__FIELD_ENUM(gas_job, forms.strips, -1, strips)},
    [JOB_SORT] = {CK__FIELD_ENUM(gas_job, forms.sort, -1, sorts)},
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
  if (strcmp(text, "cells") == 0) {
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
                    "--neighbors: '%s' is not cells, verlet:SKIN (SKIN in %s) "
                    "or allpairs",
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
     "lj, or log:A:S for (A/2) ln(r^2 + S^2) + r^-12 (needs --neighbors "
     "allpairs)",
     GAS(MODEL), .read = parse_model, .sets = "strength softening"},
    {"dt", "DT", "time step", GAS(DT)},
    {"walls", NULL, "reflecting walls instead of periodic boundaries",
     GAS(WALLS)},
    {"thermostat", "K", "none (NVE), langevin:T:GAMMA or rescale:T:EVERY",
     GAS(THERMOSTAT), .read = parse_thermostat,
     .sets = "target_temperature gamma rescale_every"},
    {"neighbors", "N",
     "cells (rebuilt every step), verlet:SKIN (rebuilt when needed; SKIN "
     "%g unless given) or allpairs",
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
                             const gas_job *job) {
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
                             const gas_job *job) {
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
                              const ck_run_options *options, gas_job *job) {
  memset(job, 0, sizeof *job);
  ck_gas_config_init(&job->config);
  ck__fields_init(job, gas_job_fields, JOB_FIELDS);
  job->config.seed = options ? options->seed : 1;
  job->plot = ck__param_find(params, count, "plot");
  return ck__options_read(gas_options, params, count, job);
}

static ck_status job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, gas_job *job) {
  ck_status status = CK_OK;
  /* A run may go on from a checkpoint and replace it, since the restart
   * is read whole before anything is written; nothing else may share. */
  static const char *const reads[] = {"xyz", "restart", NULL};
  const char *plot = NULL;
  if ((status = ck__plot_option(params, count, &plot)) ||
      (status = ck__param_files_apart(params, count, reads, gas_outputs,
                                      "checkpoint", "restart")) ||
      (status = read_options(params, count, options, job)) ||
      (status = check_parts(params, count, job)))
    return status;
  return check_start(params, count, options, job);
}

static ck_status gas_check(const ck_param *params, size_t count) {
  gas_job job;
  return job_parse(params, count, NULL, &job);
}

static ck_status gas_check_spread(const ck_param *params, size_t count) {
  gas_job job;
  ck_status status = read_options(params, count, NULL, &job);
  if (status == CK_OK)
    status = ck__param_not_spread(
        params, count, "model", job.config.model != CK_GAS_LENNARD_JONES,
        "the soft-log model has no cutoff to cut the box at; use lj");
  if (status == CK_OK)
    status = ck__param_not_spread(
        params, count, "neighbors", job.config.neighbors == CK_GAS_ALL_PAIRS,
        "all pairs do not spread over devices; use cells or verlet:SKIN");
  return status;
}

static void log_line(const ck_run_options *options, const char *line) {
  if (options && options->log)
    options->log(options->log_user, line);
}

/*
 * Mean and standard error of an observable's samples: the mean from their
 * sum (sum, of `samples`), the error from the means of `blocks` equal
 * blocks of the entries (the remainder at the end is left out of the
 * blocks, not of the mean). With too few entries the error is NaN.
 *
 * Each entry is the mean of `stride` consecutive samples (framework/history.h):
 * 1 until the run has made the history's limit of samples, then each
 * doubling of the stride pairs adjacent entries into their mean. That is a
 * blocking step (Flyvbjerg and Petersen): the blocks here are still the
 * means of runs of consecutive samples, a whole number of entries long, so
 * the estimate is the one an unbounded record would give with blocks
 * rounded down to a multiple of the stride (the limit holds a million
 * entries or more, against at most 1000 blocks), and the mean, from the
 * sum of every sample, is the same.
 */
static void block_average(double sum, uint64_t samples, const double *entries,
                          size_t count, unsigned blocks, double *mean,
                          double *error) {
  *mean = samples ? sum / (double)samples : NAN;
  size_t size = count / blocks;
  if (size < 1) {
    *error = NAN;
    return;
  }
  double means[1000], total = 0, spread = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    double block = 0;
    for (size_t i = 0; i < size; ++i)
      block += entries[b * size + i];
    means[b] = block / (double)size;
    total += means[b];
  }
  double average = total / blocks;
  for (unsigned b = 0; b < blocks; ++b)
    spread += (means[b] - average) * (means[b] - average);
  *error = sqrt(spread / (blocks - 1) / blocks);
}

/* Samples of each averaged observable. */
enum { SAMPLE_T, SAMPLE_POTENTIAL, SAMPLE_TOTAL, SAMPLE_PRESSURE, SAMPLES };

/* The columns of a log step's row for --plot, as --thermo writes them. */
enum {
  LOG_STEP,
  LOG_TIME,
  LOG_TEMPERATURE,
  LOG_KINETIC,
  LOG_POTENTIAL,
  LOG_TOTAL,
  LOG_PRESSURE,
  LOG_WIDTH
};

static ck_status write_frame(ck_gas *gas, ck__gas_trajectory *trajectory,
                             const char *png, unsigned png_size,
                             const ck_gas_observables *observables) {
  ck_status status = CK_OK;
  double box_x, box_y;
  size_t n;
  ck_gas_get_box(gas, &box_x, &box_y, &n);
  double *positions = malloc(2 * n * sizeof *positions);
  double *velocities = malloc(2 * n * sizeof *velocities);
  if (!positions || !velocities)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck_gas_get_particles(gas, positions, velocities));
  if (trajectory)
    CK_TRY_OUTPUT("traj", ck__gas_trajectory_frame(trajectory, n, box_x, box_y,
                                                   positions, velocities,
                                                   observables->step,
                                                   observables->time));
  if (png)
    CK_TRY_OUTPUT("png",
                  ck__gas_png_write(png, n, box_x, box_y, positions, velocities,
                                    png_size, observables->step,
                                    observables->temperature));
fail:
  free(positions);
  free(velocities);
  return status;
}

/* Waits for the gas's devices (a spread's every member); kernel_s, where
 * not NULL, gets their kernel seconds so far. */
static ck_status finish(ck_gas *gas, double *kernel_s) {
  if (ck__gas_spread_of(gas))
    return ck__gas_spread_finish(ck__gas_spread_of(gas), kernel_s);
  ck_queue *queue = ck__gas_state(gas)->queue;
  ck_status status = ck_queue_finish(queue);
  if (status == CK_OK && kernel_s)
    ck_queue_get_kernel_seconds(queue, kernel_s);
  return status;
}

/* A run's loop over the gas (ck__loop_run): chunks of steps that end
 * where something is due, and, after each, what is due at the step
 * reached: a log line, a sample of the averages, the RDF, a trajectory
 * frame, a checkpoint. */
typedef struct gas_loop {
  ck_gas *gas;
  const gas_job *job;
  const ck_run_options *options;
  int writes; /* 0 on the ranks of a spread run but the first */
  ck__gas_trajectory *trajectory; /* NULL without --traj */
  ck__gas_thermo *thermo;         /* NULL without --thermo */
  ck__history *samples;
  ck__history *log_rows; /* the log steps' observables for --plot, or NULL */
  uint64_t *rdf;         /* NULL without --rdf */
  uint64_t rdf_samples;
  uint64_t begin, production; /* the first step, and the first sampled */
  uint64_t most, sampled;     /* samples: at most, and taken */
  ck_gas_observables o, first, last;
} gas_loop;

static ck_status gas_step(void *self, uint64_t steps) {
  gas_loop *run = self;
  return ck_gas_step(run->gas, steps);
}

/* Does what is due `since` steps into the run. */
static ck_status gas_due_work(void *self, uint64_t since,
                              ck__loop_reading *reading) {
  gas_loop *run = self;
  const gas_job *job = run->job;
  ck_status status = CK_OK;
  ck_gas *gas = run->gas;
  ck_gas_observables *o = &run->o;
  uint64_t step = run->begin + since, production = run->production;
  char line[256];
  (void)reading;
  if (job->log_every && since % job->log_every == 0) {
    CK_TRY(ck_gas_observe(gas, o));
    snprintf(line, sizeof line,
             "%8llu %10.3f %10.5f %10.5f %10.6f %10.5f %10.5f %10.2e",
             (unsigned long long)o->step, o->time, o->kinetic, o->potential,
             o->total, o->temperature, o->pressure,
             hypot(o->momentum_x, o->momentum_y));
    log_line(run->options, line);
    if (run->thermo)
      CK_TRY_OUTPUT("thermo", ck__gas_thermo_row(run->thermo, o));
    if (run->log_rows) {
      const double row[LOG_WIDTH] = {
          (double)o->step, o->time,  o->temperature, o->kinetic,
          o->potential,    o->total, o->pressure};
      CK_TRY(ck__history_push(run->log_rows, row));
    }
  }
  if (step >= production && (step - production) % job->sample_every == 0 &&
      run->sampled < run->most) {
    CK_TRY(ck_gas_observe(gas, o));
    if (run->sampled == 0)
      run->first = *o;
    run->last = *o;
    double row[SAMPLES];
    row[SAMPLE_T] = o->temperature;
    row[SAMPLE_POTENTIAL] = o->potential;
    row[SAMPLE_TOTAL] = o->total;
    row[SAMPLE_PRESSURE] = o->pressure;
    CK_TRY(ck__history_push(run->samples, row));
    ++run->sampled;
  }
  if (run->rdf && step >= production &&
      (step - production) % job->rdf_every == 0) {
    /* Its range is the one argument a run may give past the system's. */
    status =
        ck_gas_accumulate_rdf(gas, job->rdf_bins, job->rdf_range, run->rdf);
    if (status == CK_ERROR_INVALID_ARGUMENT)
      CK_FAIL_PREFIX(status, "option --rdf-range: ");
    CK_TRY(status);
    ++run->rdf_samples;
  }
  /* Every rank of a spread run gathers the frame; the first writes it. */
  if (job->traj && since % job->traj_every == 0) {
    CK_TRY(ck_gas_observe(gas, o));
    CK_TRY(write_frame(gas, run->trajectory, NULL, 0, o));
  }
  if (job->checkpoint && job->checkpoint_every && since > 0 &&
      since % job->checkpoint_every == 0) {
    /* A periodic checkpoint replaces the last at once: a run stopped
     * later goes on from it. */
    int paused = ck__file_hold_pause();
    status = ck_gas_save(gas, job->checkpoint);
    ck__file_hold_resume(paused);
    CK_TRY_OUTPUT("checkpoint", status);
  }
fail:
  return status;
}

/* Steps from `since` steps into the run to the next step where something
 * is due. */
static uint64_t gas_due(void *self, uint64_t since) {
  const gas_loop *run = self;
  const gas_job *job = run->job;
  uint64_t begin = run->begin, production = run->production;
  uint64_t step = begin + since, next = UINT64_MAX;
  uint64_t periods[] = {job->log_every, job->traj_every, job->checkpoint_every};
  for (int p = 0; p < 3; ++p)
    if (periods[p] && (p != 1 || job->traj) && (p != 2 || job->checkpoint)) {
      uint64_t due = begin + (since / periods[p] + 1) * periods[p];
      next = due < next ? due : next;
    }
  uint64_t sample_periods[] = {job->sample_every,
                               run->rdf ? job->rdf_every : 0};
  for (int p = 0; p < 2; ++p)
    if (sample_periods[p]) {
      uint64_t due =
          step < production
              ? production
              : production + ((step - production) / sample_periods[p] + 1) *
                                 sample_periods[p];
      next = due < next ? due : next;
    }
  return next - step;
}

/* What the run writes as it goes, opened before its first step: the RDF's
 * counts (with its range, where --rdf-range left it to the run), the
 * trajectory, the thermo table and the samples of the averages. */
static ck_status open_outputs(gas_loop *run, gas_job *job,
                              const ck_gas_config *c) {
  ck_status status = CK_OK;
  if (job->rdf) {
    if (job->rdf_range <= 0)
      job->rdf_range = c->neighbors == CK_GAS_ALL_PAIRS
                           ? 0.5 * fmin(c->box_x, c->box_y)
                           : c->rc;
    run->rdf = calloc(job->rdf_bins, sizeof *run->rdf);
    if (!run->rdf)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  if (job->traj && run->writes)
    CK_TRY_OUTPUT("traj", ck__gas_trajectory_open(job->traj, !c->walls,
                                                  &run->trajectory));
  if (job->thermo && run->writes)
    CK_TRY_OUTPUT("thermo", ck__gas_thermo_open(job->thermo, &run->thermo));
  /* The samples grow as the run makes them, up to the history's limit,
   * past which adjacent entries are paired into their means (block_average
   * says why the averages and errors stand). */
  static const size_t observables[SAMPLES] = {1, 1, 1, 1};
  CK_TRY(ck__history_init(run->samples, CK__HISTORY_AVERAGE, SAMPLES,
                          observables, "samples of the observables"));
  if (run->log_rows) {
    static const size_t row[] = {LOG_WIDTH};
    CK_TRY(ck__history_init(run->log_rows, CK__HISTORY_SAMPLE, 1, row,
                            "the observables of the log steps"));
  }
fail:
  return status;
}

/* The steps, from the gas's own step through equilibration and
 * production, through the framework's loop; *run_s is their time. */
static ck_status run_steps(gas_loop *run, const ck_run_options *options,
                           double *run_s) {
  ck_status status = CK_OK;
  const gas_job *job = run->job;
  ck_gas_observables o;
  CK_TRY(ck_gas_observe(run->gas, &o));
  uint64_t begin = o.step, end = begin + job->equil + job->steps;
  run->begin = begin;
  run->production = begin + job->equil;
  if (job->log_every) {
    log_line(options, "    step       time    kinetic  potential      total"
                      "          T          P   momentum");
  }
  const ck__loop_rules rules = {.shape = CK__LOOP_SCHEDULE,
                                .max_steps = end - begin,
                                .default_steps = end - begin,
                                .check_every = UINT64_MAX,
                                .progress = options ? options->progress : NULL,
                                .progress_user =
                                    options ? options->progress_user : NULL,
                                .step_name = "steps",
                                .best_name = "",
                                .cancelled = "stopped at step %lld",
                                .cancel_offset = (long long)begin};
  const ck__loop_driver driver = {run, gas_step, gas_due_work, gas_due};
  ck__loop_outcome outcome;
  double run_started = ck__seconds();
  CK_TRY(ck__loop_run(&rules, &driver, &outcome));
  CK_TRY(finish(run->gas, NULL));
  *run_s = ck__seconds() - run_started;
fail:
  return status;
}

/* What the run writes at its end: the trajectory and thermo table
 * closed, the checkpoint, the picture and the RDF. */
static ck_status close_outputs(gas_loop *run, const ck_gas_config *c) {
  ck_status status = CK_OK;
  const gas_job *job = run->job;
  ck_gas *gas = run->gas;
  if (run->trajectory) {
    ck__gas_trajectory *closing = run->trajectory;
    run->trajectory = NULL;
    CK_TRY_OUTPUT("traj", ck__gas_trajectory_close(closing, 1));
  }
  if (run->thermo) {
    ck__gas_thermo *closing = run->thermo;
    run->thermo = NULL;
    CK_TRY_OUTPUT("thermo", ck__gas_thermo_close(closing, 1));
  }
  if (job->checkpoint)
    CK_TRY_OUTPUT("checkpoint", ck_gas_save(gas, job->checkpoint));
  if (job->png) {
    ck_gas_observables o;
    CK_TRY(ck_gas_observe(gas, &o));
    CK_TRY(write_frame(gas, NULL, run->writes ? job->png : NULL, job->png_size,
                       &o));
  }
  if (run->rdf && run->writes)
    CK_TRY_OUTPUT("rdf",
                  ck__gas_rdf_write(job->rdf, job->rdf_bins, job->rdf_range,
                                    run->rdf, run->rdf_samples, c->particles,
                                    c->box_x * c->box_y));
fail:
  return status;
}

/* The total energy's drift over the samples, and a warning where NVE
 * lost or gained more of it than a sound time step would. */
static void report_drift(const gas_loop *run, const ck_gas_config *c,
                         ck_result *result) {
  ck_gas_observables first = run->first, last = run->last;
  double drift = last.total - first.total;
  ck__result_metric(result, "energy_drift", drift, "");
  ck__result_metric(result, "energy_drift_relative",
                    first.total != 0 ? drift / fabs(first.total) : NAN, "");
  if (ck_gas_check_drift(c, &first, &last) == CK_OK)
    return;
  const char *message = "";
  ck_error_get_last(&message);
  char line[400];
  snprintf(line, sizeof line, "warning: %s", message);
  ck_error_clear(); /* a warning, not a failure */
  log_line(run->options, line);
}

/* The result's figures: the averages with their errors, the rate, the
 * system's size and the drift. */
static void report_gas(const gas_loop *run, const ck_gas_config *c,
                       double run_s, double setup_s, ck_result *result) {
  const gas_job *job = run->job;
  const ck__history *samples = run->samples;
  uint64_t steps = job->equil + job->steps;
  double mean[SAMPLES], error[SAMPLES];
  for (int q = 0; q < SAMPLES; ++q)
    block_average(samples->total[q], run->sampled, samples->entries[q],
                  samples->count, job->blocks, &mean[q], &error[q]);
  double particle_steps = (double)c->particles * (double)steps;
  result->best = mean[SAMPLE_POTENTIAL];
  snprintf(result->best_name, sizeof result->best_name, "potential_energy");
  result->throughput = run_s > 0 ? particle_steps / run_s : 0;
  snprintf(result->throughput_unit, sizeof result->throughput_unit,
           "particle-steps/s");
  ck__result_metric(result, "particles", (double)c->particles, "");
  ck__result_metric(result, "box_x", c->box_x, "");
  ck__result_metric(result, "box_y", c->box_y, "");
  ck__result_metric(result, "density",
                    (double)c->particles / (c->box_x * c->box_y), "");
  /* 1 when the forces came from strips (--strips). */
  ck__result_flag(result, "strips", ck__gas_state(run->gas)->strips);
  ck__result_metric(result, "steps", (double)steps, "");
  ck__result_metric(result, "samples", (double)run->sampled, "");
  ck__result_metric(result, "temperature", mean[SAMPLE_T], "");
  ck__result_metric(result, "temperature_se", error[SAMPLE_T], "");
  ck__result_metric(result, "potential_energy", mean[SAMPLE_POTENTIAL], "");
  ck__result_metric(result, "potential_energy_se", error[SAMPLE_POTENTIAL], "");
  ck__result_metric(result, "total_energy", mean[SAMPLE_TOTAL], "");
  ck__result_metric(result, "total_energy_se", error[SAMPLE_TOTAL], "");
  ck__result_metric(result, "pressure", mean[SAMPLE_PRESSURE], "");
  ck__result_metric(result, "pressure_se", error[SAMPLE_PRESSURE], "");
  if (run->sampled)
    report_drift(run, c, result);
  ck__result_metric(result, "final_step", (double)(run->begin + steps), "");
  ck__result_metric(result, "run_s", run_s, "s");
  ck__result_metric(result, "setup_s", setup_s, "s");
}

/* A real of a compound option's value ("langevin:T:GAMMA") as an option
 * reads it back. */
static const char *number_text(char text[40], double value) {
  ck__shortest_number(text, 40, value);
  return text;
}

/*
 * The system's options as the run resolved them, so that the result says
 * what ran: the checkpoint's settings and forms on a restart, an XYZ
 * file's particles and box, the box --rho made, or the density --box
 * made. c is the gas's own (ck_gas_describe). A restart or an XYZ file
 * starts from no lattice, and a restart or a file's velocities leave --T
 * unused.
 */
static ck_status report_system(ck_result *result, const gas_job *job,
                               ck_gas *gas, const ck_gas_config *c) {
  ck_status status = CK_OK;
  const gas_state *state = ck__gas_state(gas);
  gas_job shown = *job;
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

/* --plot: the energies per particle, the temperature and the pressure of
 * each log step (as --thermo writes them), in three panels over the
 * steps; the time along the top. */
static ck_status write_plot(const gas_loop *run, const ck_gas_config *c,
                            const ck_result *result) {
  const ck__history *kept = run->log_rows;
  size_t count = kept->count, every = ck__history_show_every(count), used = 0;
  double *rows = malloc((count ? count : 1) * LOG_WIDTH * sizeof *rows);
  if (!rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s",
                    run->job->plot);
  for (size_t i = 0; i < count; ++i)
    if (i % every == 0 || i + 1 == count)
      memcpy(rows + used++ * LOG_WIDTH, kept->entries[0] + i * LOG_WIDTH,
             LOG_WIDTH * sizeof *rows);
  static const struct {
    const char *name, *axis;
    size_t column;
  } shown[] = {
      {"potential", "energy / N (ε)", LOG_POTENTIAL},
      {"kinetic", "energy / N (ε)", LOG_KINETIC},
      {"total", "energy / N (ε)", LOG_TOTAL},
      {"temperature", "temperature (ε/k)", LOG_TEMPERATURE},
      {"pressure", "pressure (ε/σ²)", LOG_PRESSURE},
  };
  ck__plot_series series[sizeof shown / sizeof *shown];
  for (size_t k = 0; k < sizeof shown / sizeof *shown; ++k)
    series[k] = (ck__plot_series){.name = shown[k].name,
                                  .axis = shown[k].axis,
                                  .x = rows + LOG_STEP,
                                  .y = rows + shown[k].column,
                                  .count = used,
                                  .stride = LOG_WIDTH};
  char what[200], details[300];
  double density = (double)c->particles / (c->box_x * c->box_y);
  snprintf(what, sizeof what, "%zu particles, density %.3g", c->particles,
           density);
  snprintf(
      details, sizeof details,
      "box %.4g × %.4g · dt %g · rc %g · thermostat %s · %s · %llu steps "
      "in %.3g s",
      c->box_x, c->box_y, c->dt, c->rc,
      ck__field_word_of(&ck__gas_fields[CK__GAS_THERMOSTAT], c->thermostat),
      ck__field_word_of(&ck__gas_fields[CK__GAS_NEIGHBORS], c->neighbors),
      (unsigned long long)(run->job->equil + run->job->steps), result->wall_s);
  const ck__plot plot = {.result = result,
                         .what = what,
                         .details = details,
                         .x_label = "step",
                         .top_label = "time (τ)",
                         .top_x = rows + LOG_STEP,
                         .top_value = rows + LOG_TIME,
                         .top_count = used,
                         .top_stride = LOG_WIDTH,
                         .series = series,
                         .series_count = sizeof shown / sizeof *shown};
  ck_status status = ck__plot_write(run->job->plot, &plot);
  free(rows);
  return status;
}

static ck_status gas_run(const ck_device *device, const ck_param *params,
                         size_t count, const ck_run_options *options,
                         ck_result *result) {
  ck_status status = CK_OK;
  gas_job job;
  ck_gas *gas = NULL;
  ck__history samples = {0}, log_rows = {0};
  gas_loop run = {.job = &job, .options = options, .samples = &samples};
  if ((status = job_parse(params, count, options, &job)))
    return status;
  if (job.plot)
    run.log_rows = &log_rows;
  run.most = job.steps / job.sample_every + 2;
  double started = ck__seconds();
  int temperature_given = ck__param_find(params, count, "T") != NULL;
  const ck_spread *spread = options ? options->spread : NULL;
  if (spread && job.restart)
    CK_TRY(ck_gas_load_spread(spread, job.restart, &gas));
  else if (spread)
    CK_TRY(ck__gas_create_spread_tuned(spread, &job.config, job.forms,
                                       temperature_given, &gas));
  else if (job.restart)
    CK_TRY(ck_gas_load(device, job.restart, &gas));
  else
    CK_TRY(ck__gas_create_tuned(device, &job.config, 0, job.forms,
                                temperature_given, &gas));
  run.gas = gas;
  /* A spread run's outputs are written once, by rank 0. */
  run.writes = ck__gas_spread_rank(ck__gas_spread_of(gas)) == 0;
  ck_gas_config c;
  ck_gas_describe(gas, &c);
  result->seed = c.seed; /* a checkpoint's own, on a restart */
  CK_TRY(report_system(result, &job, gas, &c));
  /* The run's times leave the setup out (its kernel builds and first
   * forces), as every workload's do: the result gives it as setup_s. */
  double kernel_at_setup = 0;
  CK_TRY(finish(gas, &kernel_at_setup));
  double setup_s = ck__seconds() - started;
  CK_TRY(open_outputs(&run, &job, &c));
  /* "auto" resolved: rc, or half the box with all pairs. */
  if (job.rdf)
    CK_TRY(ck__result_option_number(result, "rdf-range", job.rdf_range));
  double run_s = 0;
  CK_TRY(run_steps(&run, options, &run_s));
  CK_TRY(close_outputs(&run, &c));
  /* kernel_s over wall_s's span: from the setup's end to the last frame
   * and checkpoint, whose kernels a read after the step loop missed. */
  CK_TRY(finish(gas, &result->kernel_s));
  result->kernel_s -= kernel_at_setup;
  result->wall_s = ck__seconds() - started - setup_s;
  report_gas(&run, &c, run_s, setup_s, result);
  if (job.plot && run.writes)
    CK_TRY_OUTPUT("plot", write_plot(&run, &c, result));
  if (ck__gas_spread_of(gas)) {
    CK_TRY(ck__gas_spread_report(ck__gas_spread_of(gas), result));
    char line[512];
    ck__spread_verdict(result, (double)(job.equil + job.steps), line,
                       sizeof line);
    if (line[0])
      log_line(options, line);
  }
fail:
  if (run.trajectory)
    ck__gas_trajectory_close(run.trajectory, 0);
  if (run.thermo)
    ck__gas_thermo_close(run.thermo, 0);
  ck__history_free(&samples);
  ck__history_free(&log_rows);
  free(run.rdf);
  ck_gas_destroy(gas);
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
  gas_job job;
  ck_status status = job_parse(params, count, NULL, &job);
  if (status == CK_OK)
    *config = job.config;
  return status;
}

static const ck_param gas_demo[] = {
    {"particles", "400"}, {"steps", "200"}, {"log-every", "0"}};

/* ---- benchmark sizes and the cost model (docs/gas.md, "Cost model") ---- */

#define GAS_RUNG(particles)                                                    \
  {                                                                            \
    {"log-every", "0"}, {"steps", "200"}, {"particles", particles}, {          \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param gas_rungs[CK_BENCH_RUNGS][4] = {
    GAS_RUNG("1024"),   GAS_RUNG("4096"),   GAS_RUNG("16384"),
    GAS_RUNG("65536"),  GAS_RUNG("262144"), GAS_RUNG("1048576"),
    GAS_RUNG("4194304")};
static const char *const gas_size_options[] = {
    "particles", "box", "xyz", "restart", "steps", "equil", NULL};
static const char *const gas_size_metrics[] = {"particles", "steps", NULL};

/* What a particle keeps on the device, as the reals of its position,
 * velocity, force and sorted copies (GAS_PARTICLE_REALS) and the words
 * of its cell and order (GAS_PARTICLE_WORDS); Verlet lists come on top. */
enum { GAS_PARTICLE_REALS = 12, GAS_PARTICLE_WORDS = 8 };

static void gas_footprint(const ck_param *params, size_t count,
                          const ck_device *device, double *total,
                          double *largest) {
  (void)device;
  double n = ck__param_number(params, count, "particles",
                              ck__gas_fields[CK__GAS_PARTICLES].value);
  *total = n * (GAS_PARTICLE_REALS * sizeof(float) + GAS_PARTICLE_WORDS * 4.0);
  *largest = 2 * n * sizeof(float);
}

/* A unit is one particle's time step. Its force visits the particles of
 * the 3 x 3 cells around its own (cells at least rc wide), those of its
 * Verlet list, or every other particle, GAS_VISIT_FLOPS each (two
 * differences, two minimum images, a squared distance), and the pairs
 * within rc (pi rc^2 density of them) GAS_PAIR_FLOPS each (the
 * Lennard-Jones force and its sum; --model log's pairs have no cutoff).
 * The two half kicks and the drift take GAS_STEP_FLOPS. It moves
 * GAS_STEP_REALS reals (reading and writing its position and velocity,
 * reading and writing its force, its sorted copy) and GAS_STEP_WORDS
 * bytes of cell indices; the neighbours' positions are read from cache. */
enum {
  GAS_VISIT_FLOPS = 7,
  GAS_PAIR_FLOPS = 12,
  GAS_STEP_FLOPS = 14,
  GAS_STEP_REALS = 18,
  GAS_STEP_WORDS = 12
};

static ck_status gas_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"particles", "steps",   "box_x",
                                      "box_y",     "density", NULL};
  double values[5];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  double n = values[0], density = values[4];
  const char *text = ck__result_option_text(result, "rc");
  double rc = text ? strtod(text, NULL) : ck__gas_fields[CK__GAS_RC].value;
  const char *equil = ck__result_option_text(result, "equil");
  const char *neighbors = ck__result_option_text(result, "neighbors");
  const char *model = ck__result_option_text(result, "model");
  int soft = model && strncmp(model, "log", 3) == 0;
  double others = n > 1 ? n - 1 : 0;
  double in_range = soft ? others : CK_PI * rc * rc * density;
  double visited;
  if (soft || (neighbors && strcmp(neighbors, "allpairs") == 0)) {
    visited = others;
  } else if (neighbors && strcmp(neighbors, "verlet") == 0) {
    double range = rc + ck__gas_fields[CK__GAS_SKIN].value;
    visited = CK_PI * range * range * density;
  } else {
    double cells =
        fmax(1, floor(values[2] / rc)) * fmax(1, floor(values[3] / rc));
    visited = 9 * n / cells;
  }
  if (visited > others)
    visited = others;
  if (in_range > visited)
    in_range = visited;
  cost->units = n * (values[1] + (equil ? strtod(equil, NULL) : 0));
  cost->flops = cost->units * (GAS_VISIT_FLOPS * visited +
                               GAS_PAIR_FLOPS * in_range + GAS_STEP_FLOPS);
  cost->bytes = cost->units * (GAS_STEP_REALS * sizeof(float) + GAS_STEP_WORDS);
  return CK_OK;
}

static const ck__bench gas_bench = {
    .format = "particles x steps",
    .rungs = {gas_rungs[0], gas_rungs[1], gas_rungs[2], gas_rungs[3],
              gas_rungs[4], gas_rungs[5], gas_rungs[6]},
    .size_options = gas_size_options,
    .footprint = gas_footprint,
    .size_metrics = gas_size_metrics,
    .cost = gas_cost};

const ck_workload ck__gas_workload = {
    .name = "gas",
    .summary = "2D Lennard-Jones molecular dynamics (NVE, Langevin, rescaling)",
    .options = gas_options,
    CK__OPTIONS_SHOWN(gas_options),
    .tolerance = 0.02,
    .check = gas_check,
    .run = gas_run,
    .outputs = gas_outputs,
    .binary_outputs = gas_binary_outputs,
    .demo = gas_demo,
    .demo_count = sizeof gas_demo / sizeof gas_demo[0],
    .spreads = 1,
    .check_spread = gas_check_spread,
    .spread_shares_devices = 1,
    .bench = &gas_bench,
};
