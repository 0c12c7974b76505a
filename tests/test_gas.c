/*
 * test_gas.c - two-dimensional Lennard-Jones dynamics (clkit/gas.h) on ref
 * (float and double) and on an OpenCL device: forces, energies, virial
 * and momentum against an independent all-pairs sum in the test, the
 * three neighbour modes against each other (periodic, walls, grids of 1,
 * 2 and 3 cells, rectangular boxes), Newton's third law, NVE energy
 * conservation, the Langevin and rescaling thermostats, the ideal-gas
 * limit, bit-exact restarts from checkpoints, ref/OpenCL agreement,
 * starting from an XYZ file, the pair histogram of the RDF, bad input and
 * damaged files, and the "gas" workload through the public API (its run
 * averages past the samples' bound too).
 *
 * Files live in a fresh directory made with mkdtemp and removed at the
 * end.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "check.h"
#include "framework/history.h"
#include "gas/gas_internal.h"
#include "opencl_device.h"
#include "test_support.h"

static char work_dir[] = "/tmp/clkit_test_gas_XXXXXX";

/* The worst agreements seen, [0] float and [1] double, printed at the end
 * of the neighbour-mode checks so that the tolerances can be judged. */
static double worst_brute[2], worst_sum[2], worst_mode[2];

/* ---- helpers ------------------------------------------------------------ */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int write_text(const char *path, const char *text) {
  return test_write_bytes(path, text, strlen(text));
}

/* An extended XYZ file with every digit of the doubles (velocities
 * optional). */
static int write_xyz(const char *path, size_t n, double box_x, double box_y,
                     const double *x, const double *v) {
  FILE *file = fopen(path, "w");
  if (!file)
    return -1;
  fprintf(file,
          "%zu\nLattice=\"%.17g 0 0 0 %.17g 0 0 0 1\" "
          "Properties=species:S:1:pos:R:2%s\n",
          n, box_x, box_y, v ? ":velo:R:2" : "");
  for (size_t k = 0; k < n; ++k) {
    fprintf(file, "Ar %.17g %.17g", x[2 * k], x[2 * k + 1]);
    if (v)
      fprintf(file, " %.17g %.17g", v[2 * k], v[2 * k + 1]);
    fputc('\n', file);
  }
  return fclose(file) == 0 ? 0 : -1;
}

static const char *mode_name(ck_gas_neighbors mode) {
  return mode == CK_GAS_CELLS    ? "cells"
         : mode == CK_GAS_VERLET ? "verlet"
                                 : "allpairs";
}

static ck_gas *make(const ck_device *device, const ck_gas_config *config,
                    int double_precision) {
  ck_gas *gas = NULL;
  CHECK_OK(ck__gas_create_tuned(device, config, double_precision,
                                CK__GAS_FORMS_BY_DEVICE, 0, &gas));
  return gas;
}

/* Everything a test reads from a gas: particles, forces, observables. */
typedef struct snapshot {
  size_t n;
  double box_x, box_y;
  double *x, *v, *f;
  ck_gas_observables o;
  ck_gas_config config;
} snapshot;

static void snapshot_free(snapshot *s) {
  free(s->x);
  free(s->v);
  free(s->f);
  memset(s, 0, sizeof *s);
}

static int take(ck_gas *gas, snapshot *s) {
  memset(s, 0, sizeof *s);
  if (!gas)
    return 0;
  CHECK_OK(ck_gas_get_box(gas, &s->box_x, &s->box_y, &s->n));
  CHECK_OK(ck_gas_describe(gas, &s->config));
  s->x = calloc(2 * s->n, sizeof *s->x);
  s->v = calloc(2 * s->n, sizeof *s->v);
  s->f = calloc(2 * s->n, sizeof *s->f);
  if (!s->x || !s->v || !s->f) {
    snapshot_free(s);
    CHECK_MSG(0, "out of memory");
    return 0;
  }
  CHECK_OK(ck_gas_get_particles(gas, s->x, s->v));
  CHECK_OK(ck_gas_get_forces(gas, s->f));
  CHECK_OK(ck_gas_observe(gas, &s->o));
  return 1;
}

/* The separation along one side, by the minimum image when periodic. */
static double separation(double a, double b, double side, int walls) {
  double d = a - b;
  return walls ? d : d - side * floor(d / side + 0.5);
}

/* The largest |a - b| of two position arrays (minimum image). */
static double position_gap(const snapshot *a, const snapshot *b) {
  double worst = 0;
  for (size_t k = 0; k < a->n; ++k) {
    double dx = separation(a->x[2 * k], b->x[2 * k], a->box_x, a->config.walls);
    double dy =
        separation(a->x[2 * k + 1], b->x[2 * k + 1], a->box_y, a->config.walls);
    worst = fmax(worst, fmax(fabs(dx), fabs(dy)));
  }
  return worst;
}

static double array_gap(const double *a, const double *b, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i)
    worst = fmax(worst, fabs(a[i] - b[i]));
  return worst;
}

static double relative(double a, double b, double scale) {
  return fabs(a - b) / scale;
}

/*
 * The pair interaction written out independently of cl/ck_gas.h: the
 * force along r_i - r_j (positive repulsive) and the energy, for the
 * model, cutoff and shift of a configuration. Beyond rc (Lennard-Jones)
 * both are 0.
 */
static double pair_force(const ck_gas_config *config, double r,
                         double *energy) {
  if (config->model == CK_GAS_SOFT_LOG) {
    double soft = r * r + config->softening * config->softening;
    *energy = 0.5 * config->strength * log(soft) + pow(r, -12);
    return -config->strength * r / soft + 12 * pow(r, -13);
  }
  if (r >= config->rc) {
    *energy = 0;
    return 0;
  }
  double u = 4 * (pow(r, -12) - pow(r, -6));
  double f = 48 * pow(r, -13) - 24 * pow(r, -7);
  double uc = 4 * (pow(config->rc, -12) - pow(config->rc, -6));
  double fc = 48 * pow(config->rc, -13) - 24 * pow(config->rc, -7);
  if (config->shift == CK_GAS_SHIFT_ENERGY) {
    u -= uc;
  } else if (config->shift == CK_GAS_SHIFT_FORCE) {
    u = u - uc + (r - config->rc) * fc;
    f -= fc;
  }
  *energy = u;
  return f;
}

/*
 * The all-pairs sums in double: forces (2 N), each particle's sum of
 * |pair force| (the scale of its rounding), the potential energy and the
 * pair virial sum r . F with the sums of their magnitudes. A pair within
 * rounding of the cutoff (|r - rc| < 1e-6 rc) may be in or out on the
 * device: its particles are marked in `edge`, and what it could change
 * is added to edge_energy and edge_virial.
 */
typedef struct brute {
  double *f, *scale;
  unsigned char *edge;
  double energy, energy_scale, virial, virial_scale, scale_sum;
  double edge_energy, edge_virial, edge_gap;
} brute;

static void brute_free(brute *b) {
  free(b->f);
  free(b->scale);
  free(b->edge);
  memset(b, 0, sizeof *b);
}

static int brute_force(const snapshot *s, brute *b) {
  memset(b, 0, sizeof *b);
  size_t n = s->n;
  const ck_gas_config *config = &s->config;
  b->f = calloc(2 * n, sizeof *b->f);
  b->scale = calloc(n, sizeof *b->scale);
  b->edge = calloc(n, 1);
  if (!b->f || !b->scale || !b->edge) {
    brute_free(b);
    return 0;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      double dx = separation(s->x[2 * i], s->x[2 * j], s->box_x, config->walls);
      double dy =
          separation(s->x[2 * i + 1], s->x[2 * j + 1], s->box_y, config->walls);
      double r = sqrt(dx * dx + dy * dy), u;
      if (config->model == CK_GAS_LENNARD_JONES &&
          fabs(r - config->rc) < 1e-6 * config->rc) {
        double u_inside,
            f_inside = pair_force(config, config->rc * (1 - 1e-12), &u_inside);
        b->edge[i] = b->edge[j] = 1;
        if (b->edge_gap == 0 || fabs(r - config->rc) < fabs(b->edge_gap))
          b->edge_gap = r - config->rc;
        b->edge_energy += fabs(u_inside);
        b->edge_virial += fabs(f_inside * config->rc);
      }
      double f = pair_force(config, r, &u);
      if (f == 0 && u == 0)
        continue;
      b->f[2 * i] += f * dx / r;
      b->f[2 * i + 1] += f * dy / r;
      b->f[2 * j] -= f * dx / r;
      b->f[2 * j + 1] -= f * dy / r;
      b->scale[i] += fabs(f);
      b->scale[j] += fabs(f);
      b->energy += u;
      b->energy_scale += fabs(u);
      b->virial += f * r;
      b->virial_scale += fabs(f * r);
    }
  for (size_t i = 0; i < n; ++i)
    b->scale_sum += b->scale[i];
  return 1;
}

/* The degrees of freedom the driver must use: 2 N, less the momentum's 2
 * when periodic without Langevin. */
static double expected_dof(const ck_gas_config *config) {
  double dof = 2.0 * (double)config->particles;
  if (!config->walls && config->thermostat != CK_GAS_LANGEVIN &&
      config->particles > 1)
    dof -= 2;
  return dof;
}

/*
 * A snapshot against the all-pairs sums of its own positions: forces per
 * particle within `tolerance` of its pair-force scale, Newton's third law
 * (the sum of the forces) within `sum_tolerance` of all the scales, the
 * potential energy, pressure, kinetic energy, temperature and momentum.
 */
static void check_against_brute(const char *what, const snapshot *s,
                                int double_precision, double tolerance,
                                double sum_tolerance) {
  brute b;
  if (!brute_force(s, &b)) {
    CHECK_MSG(0, "%s: out of memory", what);
    return;
  }
  size_t n = s->n;
  double worst = 0, sum_x = 0, sum_y = 0;
  size_t edges = 0;
  for (size_t i = 0; i < n; ++i) {
    double scale = b.scale[i] > 0 ? b.scale[i] : 1e-30;
    sum_x += s->f[2 * i];
    sum_y += s->f[2 * i + 1];
    if (b.edge[i]) {
      ++edges;
      continue;
    }
    worst = fmax(worst, fabs(s->f[2 * i] - b.f[2 * i]) / scale);
    worst = fmax(worst, fabs(s->f[2 * i + 1] - b.f[2 * i + 1]) / scale);
  }
  if (edges)
    printf("%s: %zu particles with a pair at the cutoff left out (r - rc = "
           "%.3g)\n",
           what, edges, b.edge_gap);
  worst_brute[double_precision] = fmax(worst_brute[double_precision], worst);
  CHECK_MSG(worst <= tolerance,
            "%s: forces off the all-pairs sum by %.3g of "
            "their scale (tolerance %.3g)",
            what, worst, tolerance);
  double net = hypot(sum_x, sum_y) / (b.scale_sum > 0 ? b.scale_sum : 1);
  worst_sum[double_precision] = fmax(worst_sum[double_precision], net);
  CHECK_MSG(net <= sum_tolerance,
            "%s: the forces sum to (%.3g, %.3g), %.3g of their scale %.3g "
            "(tolerance %.3g)",
            what, sum_x, sum_y, net, b.scale_sum, sum_tolerance);
  double energy_gap =
      (fabs(s->o.potential * (double)n - b.energy) - b.edge_energy) /
      (b.energy_scale > 0 ? b.energy_scale : 1);
  CHECK_MSG(energy_gap <= tolerance,
            "%s: potential energy %.12g per particle, all pairs give %.12g "
            "(gap %.3g of its scale)",
            what, s->o.potential, b.energy / (double)n, energy_gap);
  double kinetic = 0, px = 0, py = 0, speed_sum = 0;
  for (size_t k = 0; k < n; ++k) {
    kinetic +=
        0.5 * (s->v[2 * k] * s->v[2 * k] + s->v[2 * k + 1] * s->v[2 * k + 1]);
    px += s->v[2 * k];
    py += s->v[2 * k + 1];
    speed_sum += fabs(s->v[2 * k]) + fabs(s->v[2 * k + 1]);
  }
  /* Sums of float velocities rounded in float (OpenCL) or double. */
  double float_eps = double_precision ? 1e-13 : 1e-6;
  CHECK_MSG(relative(s->o.kinetic * (double)n, kinetic, kinetic) <= float_eps,
            "%s: kinetic energy %.12g per particle, the velocities give "
            "%.12g",
            what, s->o.kinetic, kinetic / (double)n);
  double temperature = 2 * kinetic / expected_dof(&s->config);
  CHECK_MSG(relative(s->o.temperature, temperature, temperature) <= float_eps,
            "%s: temperature %.12g, 2 KE / dof gives %.12g", what,
            s->o.temperature, temperature);
  CHECK_MSG(relative(s->o.total, s->o.kinetic + s->o.potential, 1) <= 1e-12,
            "%s: total %.12g is not kinetic + potential", what, s->o.total);
  CHECK_MSG(fabs(s->o.momentum_x - px) <= float_eps * speed_sum &&
                fabs(s->o.momentum_y - py) <= float_eps * speed_sum,
            "%s: momentum (%.6g, %.6g), the velocities give (%.6g, %.6g)", what,
            s->o.momentum_x, s->o.momentum_y, px, py);
  /* P A = N T + W / 2 in two dimensions, W the sum of r . F over pairs. */
  double area = s->box_x * s->box_y;
  double pressure = ((double)n * s->o.temperature + 0.5 * b.virial) / area;
  double pressure_scale =
      ((double)n * s->o.temperature + 0.5 * b.virial_scale) / area;
  double allowance = 0.5 * b.edge_virial / area;
  CHECK_MSG(fabs(s->o.pressure - pressure) - allowance <=
                tolerance * pressure_scale,
            "%s: pressure %.12g, the pair virial gives %.12g", what,
            s->o.pressure, pressure);
  brute_free(&b);
}

/* Two snapshots of the same configuration in different neighbour modes:
 * forces within tolerance of each particle's pair-force scale, potential
 * energy and pressure within tolerance. */
static void check_same_forces(const char *what, const snapshot *a,
                              const snapshot *b, int double_precision,
                              double tolerance) {
  brute pairs;
  if (!brute_force(a, &pairs)) {
    CHECK_MSG(0, "%s: out of memory", what);
    return;
  }
  double worst = 0;
  for (size_t i = 0; i < a->n; ++i) {
    double scale = pairs.scale[i] > 0 ? pairs.scale[i] : 1e-30;
    worst = fmax(worst, fabs(a->f[2 * i] - b->f[2 * i]) / scale);
    worst = fmax(worst, fabs(a->f[2 * i + 1] - b->f[2 * i + 1]) / scale);
  }
  worst_mode[double_precision] = fmax(worst_mode[double_precision], worst);
  CHECK_MSG(worst <= tolerance,
            "%s: forces differ by %.3g of their scale (tolerance %.3g)", what,
            worst, tolerance);
  double n = (double)a->n;
  CHECK_MSG(relative(a->o.potential * n, b->o.potential * n,
                     pairs.energy_scale > 0 ? pairs.energy_scale : 1) <=
                tolerance,
            "%s: potential energy %.12g vs %.12g", what, a->o.potential,
            b->o.potential);
  double area = a->box_x * a->box_y;
  double pressure_scale =
      (n * a->o.temperature + 0.5 * pairs.virial_scale) / area;
  CHECK_MSG(relative(a->o.pressure, b->o.pressure, pressure_scale) <= tolerance,
            "%s: pressure %.12g vs %.12g", what, a->o.pressure, b->o.pressure);
  CHECK_MSG(relative(a->o.kinetic, b->o.kinetic, a->o.kinetic) <= tolerance,
            "%s: kinetic energy %.17g vs %.17g", what, a->o.kinetic,
            b->o.kinetic);
  brute_free(&pairs);
}

/* The backends a test runs on: ref in float and double, the OpenCL
 * device in float (and in double where it has fp64); on a CPU device both
 * forms of the pair loops of cells and Verlet modes, strips (its default)
 * and one neighbour at a time, and both sorts of Verlet rebuilds, by one
 * work-item (its default for small systems) and in parallel. */
typedef struct backend {
  const ck_device *device;
  int double_precision;
  ck__gas_forms forms;
  char name[96];
} backend;
#define MAX_BACKENDS 6

static size_t backends_of(const ck_device *ref, const ck_device *ocl,
                          int with_double, backend *out) {
  size_t count = 0;
  out[count++] = (backend){ref, 0, CK__GAS_FORMS_BY_DEVICE, "ref float"};
  if (with_double)
    out[count++] = (backend){ref, 1, CK__GAS_FORMS_BY_DEVICE, "ref double"};
  if (!ocl)
    return count;
  int forms = ocl->kind == CK_KIND_CPU ? 2 : 1;
  for (int precision = 0; precision < 2; ++precision) {
    if (precision && !(with_double && ocl->has_fp64))
      break;
    for (int f = 0; f < forms; ++f) {
      backend b = {ocl, precision, CK__GAS_FORMS_BY_DEVICE, ""};
      if (f == 1) {
        b.forms.strips = 0;
        b.forms.sort = 0;
      }
      snprintf(b.name, sizeof b.name, "%s %s%s", ocl->id,
               precision ? "double" : "float",
               f == 1 ? ", no strips, parallel sort" : "");
      out[count++] = b;
    }
  }
  return count;
}

static ck_gas *make_on(const backend *be, const ck_gas_config *config) {
  ck_gas *gas = NULL;
  CHECK_OK(ck__gas_create_tuned(be->device, config, be->double_precision,
                                be->forms, 0, &gas));
  return gas;
}

/* ---- 1, 2: neighbour modes, all-pairs sums, Newton's third law ---------- */

typedef struct geometry_case {
  const char *name;
  size_t particles;
  double density, box_x, box_y;
  int walls;
  double rc;
  ck_gas_shift shift;
  int cells_x, cells_y; /* the cell grid expected (cells mode) */
} geometry_case;

static const geometry_case geometry_cases[] = {
    /* sqrt(300 / 0.7) = 20.7: 8 x 8 cells of 2.59 */
    {"N 300 square", 300, 0.7, 0, 0, 0, 2.5, CK_GAS_SHIFT_ENERGY, 8, 8},
    {"N 300 walls", 300, 0.7, 0, 0, 1, 2.5, CK_GAS_SHIFT_ENERGY, 8, 8},
    {"N 300 force-shifted", 300, 0.7, 0, 0, 0, 2.5, CK_GAS_SHIFT_FORCE, 8, 8},
    {"N 300 unshifted rc 3", 300, 0.7, 0, 0, 0, 3.0, CK_GAS_SHIFT_NONE, 6, 6},
    /* sqrt(20 / 0.5) = 6.32: 2 x 2 cells, each visited once */
    {"N 20 two cells", 20, 0.5, 0, 0, 0, 2.5, CK_GAS_SHIFT_ENERGY, 2, 2},
    /* sqrt(30 / 0.5) = 7.75: 3 x 3 cells (2 x 2 with the Verlet skin) */
    {"N 30 three cells", 30, 0.5, 0, 0, 0, 2.5, CK_GAS_SHIFT_ENERGY, 3, 3},
    {"6 x 20 box", 84, 0, 6, 20, 0, 2.5, CK_GAS_SHIFT_ENERGY, 2, 8},
    {"30 x 9 box", 189, 0, 30, 9, 0, 2.5, CK_GAS_SHIFT_ENERGY, 12, 3},
    /* walls allow rc beyond half the box: one cell across */
    {"4 x 30 box, walls", 60, 0, 4, 30, 1, 2.5, CK_GAS_SHIFT_ENERGY, 1, 12},
};

static void geometry_config(const geometry_case *g, ck_gas_config *config) {
  ck_gas_config_init(config);
  config->particles = g->particles;
  config->density = g->density > 0 ? g->density : 0.7;
  config->box_x = g->box_x;
  config->box_y = g->box_y;
  config->walls = g->walls;
  config->rc = g->rc;
  config->shift = g->shift;
  config->seed = 7;
}

/* A disordered configuration of the case: 20 steps from the lattice,
 * written to an XYZ file (every digit). Returns 0 on failure. */
static int disordered_xyz(const ck_device *ref, const geometry_case *g,
                          const char *path) {
  ck_gas_config c;
  geometry_config(g, &c);
  c.neighbors = CK_GAS_ALL_PAIRS;
  ck_gas *gas = make(ref, &c, 1);
  if (!gas)
    return 0;
  CHECK_OK(ck_gas_step(gas, 20));
  snapshot s;
  int ok = take(gas, &s);
  ck_gas_destroy(gas);
  if (!ok)
    return 0;
  ok = write_xyz(path, s.n, s.box_x, s.box_y, s.x, s.v) == 0;
  CHECK_MSG(ok, "cannot write %s", path);
  snapshot_free(&s);
  return ok;
}

static void neighbor_modes(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t backend_count = backends_of(ref, ocl, 1, backends);
  for (size_t g = 0; g < sizeof geometry_cases / sizeof geometry_cases[0];
       ++g) {
    const geometry_case *gc = &geometry_cases[g];
    char path[600];
    snprintf(path, sizeof path, "%s/geometry%zu.xyz", work_dir, g);
    if (!disordered_xyz(ref, gc, path))
      continue;
    for (size_t b = 0; b < backend_count; ++b) {
      const backend *be = &backends[b];
      /* Float: each pair's force is computed alike in every mode, so the
       * modes differ only in the order of the sums (a few float epsilons
       * of the pair-force scale); against the double sums in the test the
       * float separations themselves round (about 1e-6 of a unit length,
       * amplified 13 times by r^-13). Double: rounding only. Measured
       * worst cases: 1.7e-5 (float) and 1.1e-14 (double) of the scale
       * against the test's sums, 1.9e-7 and 3.1e-16 between modes, net
       * forces 2e-8 and 6e-17 of the summed scales: margins of 10 to 100. */
      double mode_tolerance = be->double_precision ? 1e-13 : 1e-5;
      double brute_tolerance = be->double_precision ? 1e-12 : 2e-4;
      double sum_tolerance = be->double_precision ? 1e-14 : 1e-6;
      snapshot s[3];
      int have[3] = {0, 0, 0};
      for (int m = 0; m < 3; ++m) {
        ck_gas_config c;
        geometry_config(gc, &c);
        c.xyz_path = path;
        c.neighbors = (ck_gas_neighbors)m;
        ck_gas *gas = make_on(be, &c);
        have[m] = take(gas, &s[m]);
        if (gas && m == CK_GAS_CELLS) {
          gas_state *state = ck__gas_state(gas);
          CHECK_MSG(state->cells_x == gc->cells_x &&
                        state->cells_y == gc->cells_y,
                    "%s: a %d x %d cell grid, expected %d x %d", gc->name,
                    state->cells_x, state->cells_y, gc->cells_x, gc->cells_y);
        }
        ck_gas_destroy(gas);
        if (!have[m])
          continue;
        char what[200];
        snprintf(what, sizeof what, "%s, %s, %s", gc->name, be->name,
                 mode_name((ck_gas_neighbors)m));
        check_against_brute(what, &s[m], be->double_precision, brute_tolerance,
                            sum_tolerance);
      }
      for (int m = 0; m < 2; ++m)
        if (have[m] && have[CK_GAS_ALL_PAIRS]) {
          char what[200];
          snprintf(what, sizeof what, "%s, %s: %s vs allpairs", gc->name,
                   be->name, mode_name((ck_gas_neighbors)m));
          check_same_forces(what, &s[m], &s[CK_GAS_ALL_PAIRS],
                            be->double_precision, mode_tolerance);
        }
      for (int m = 0; m < 3; ++m)
        if (have[m])
          snapshot_free(&s[m]);
    }
  }
  printf("forces against the all-pairs sums: worst %.2g (float), %.2g "
         "(double) of the pair-force scale; net force %.2g, %.2g; modes "
         "apart by %.2g, %.2g\n",
         worst_brute[0], worst_brute[1], worst_sum[0], worst_sum[1],
         worst_mode[0], worst_mode[1]);
}

/*
 * The soft-log model (all pairs, minimum image, no cutoff) against the
 * all-pairs sums of the test: on the lattice it starts from, where rows
 * of an even number of sites put pairs exactly half a box apart, and 20
 * steps later; and the momentum over 50 steps. The pair forces must be
 * antisymmetric at the half-box tie as anywhere else.
 */
static void soft_log_forces(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 1, backends);
  for (size_t b = 0; b < count; ++b) {
    const backend *be = &backends[b];
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 100;
    c.density = 0.3;
    c.model = CK_GAS_SOFT_LOG;
    c.strength = 1.0;
    c.softening = 1.0;
    c.neighbors = CK_GAS_ALL_PAIRS;
    ck_gas *gas = make_on(be, &c);
    if (!gas)
      continue;
    double tolerance = be->double_precision ? 1e-12 : 2e-4;
    double sum_tolerance = be->double_precision ? 1e-14 : 1e-6;
    snapshot s;
    char what[160];
    if (take(gas, &s)) {
      /* At the tie either image is right, as long as both particles of a
       * pair agree: only the sum of the forces is checked here. */
      brute b;
      if (brute_force(&s, &b)) {
        double sum_x = 0, sum_y = 0;
        for (size_t k = 0; k < s.n; ++k) {
          sum_x += s.f[2 * k];
          sum_y += s.f[2 * k + 1];
        }
        CHECK_MSG(hypot(sum_x, sum_y) <= sum_tolerance * b.scale_sum,
                  "soft-log on the lattice, %s: the forces sum to (%.3g, "
                  "%.3g), %.3g of their scale %.3g",
                  be->name, sum_x, sum_y, hypot(sum_x, sum_y) / b.scale_sum,
                  b.scale_sum);
        brute_free(&b);
      }
      snapshot_free(&s);
    }
    ck_gas_observables start, o;
    CHECK_OK(ck_gas_observe(gas, &start));
    CHECK_OK(ck_gas_step(gas, 20));
    if (take(gas, &s)) {
      snprintf(what, sizeof what, "soft-log after 20 steps, %s", be->name);
      check_against_brute(what, &s, be->double_precision, tolerance,
                          sum_tolerance);
      snapshot_free(&s);
    }
    CHECK_OK(ck_gas_step(gas, 30));
    CHECK_OK(ck_gas_observe(gas, &o));
    double bound = be->double_precision ? 1e-10 : 1e-4;
    CHECK_MSG(hypot(start.momentum_x, start.momentum_y) <= bound &&
                  hypot(o.momentum_x, o.momentum_y) <= bound,
              "soft-log, %s: momentum (%.3g, %.3g) after 50 steps from "
              "(%.3g, %.3g)",
              be->name, o.momentum_x, o.momentum_y, start.momentum_x,
              start.momentum_y);
    ck_gas_destroy(gas);
  }
}

/* Total momentum over 1000 NVE steps, periodic. */
static void momentum_conserved(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 1, backends);
  /* Every backend and set of forms, in both neighbour modes. */
  for (size_t run = 0; run < 2 * count; ++run) {
    size_t b = run / 2;
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 300;
    c.neighbors = run % 2 ? CK_GAS_VERLET : CK_GAS_CELLS;
    ck_gas *gas = make_on(&backends[b], &c);
    if (!gas)
      continue;
    ck_gas_observables start, end;
    CHECK_OK(ck_gas_observe(gas, &start));
    CHECK_OK(ck_gas_step(gas, 1000));
    CHECK_OK(ck_gas_observe(gas, &end));
    double p0 = hypot(start.momentum_x, start.momentum_y);
    double p1 = hypot(end.momentum_x, end.momentum_y);
    /* Pair forces are exactly antisymmetric (the same separation,
     * negated), so only rounding moves the momentum: each of N velocities
     * rounds by about eps |v| per half-kick, a random walk of about
     * eps sqrt(N steps) ~ 6e-8 * 550 = 3e-5 in float after 1000 steps;
     * the bound is 30 times that. Double: 1e-10. */
    double bound = backends[b].double_precision ? 1e-10 : 1e-3;
    printf("momentum, %s %s: |P| %.3g at the start, %.3g after 1000 steps\n",
           backends[b].name, mode_name(c.neighbors), p0, p1);
    CHECK_MSG(p0 <= bound && p1 <= bound,
              "%s: |P| %.3g, then %.3g after 1000 steps (bound %.3g)",
              backends[b].name, p0, p1, bound);
    ck_gas_destroy(gas);
  }
}

/*
 * Forces stay right as the particles move: cells re-sorted every step,
 * Verlet lists rebuilt when someone has moved half the skin (hot, so that
 * rebuilds are frequent, with walls too), against the sums of the test
 * every 60 steps.
 */
/* Runs `rounds` rounds of `steps` steps on a backend, checking the forces
 * against the test's sums after each. */
static void follow_against_brute(const backend *be, const ck_gas_config *config,
                                 int rounds, int steps, const char *label) {
  ck_gas *gas = make_on(be, config);
  if (!gas)
    return;
  for (int round = 1; round <= rounds; ++round) {
    CHECK_OK(ck_gas_step(gas, (uint64_t)steps));
    snapshot s;
    if (!take(gas, &s))
      break;
    char what[160];
    snprintf(what, sizeof what, "%s, %s%s, step %d", be->name, label,
             config->walls ? ", walls" : "", steps * round);
    check_against_brute(what, &s, be->double_precision,
                        be->double_precision ? 1e-12 : 2e-4,
                        be->double_precision ? 1e-14 : 1e-6);
    snapshot_free(&s);
  }
  ck_gas_destroy(gas);
}

static void moving_neighbors(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 1, backends);
  for (size_t b = 0; b < count; ++b)
    for (int m = 0; m < 2; ++m)
      for (int walls = 0; walls < 2; ++walls) {
        ck_gas_config c;
        ck_gas_config_init(&c);
        c.particles = 200;
        c.temperature = 2.0;
        c.walls = walls;
        c.neighbors = (ck_gas_neighbors)m;
        c.skin = 0.2;
        follow_against_brute(&backends[b], &c, 5, 60, mode_name(c.neighbors));
      }
}

/*
 * Between Verlet rebuilds particles leave the cells they were sorted into;
 * their pairs must still be found (strips look in the cells of the
 * rebuild's positions, lists hold the rebuild's neighbours). A wide skin
 * keeps the structure for many steps; the forces are checked against the
 * test's sums every 4 steps, periodic and between walls.
 */
static void between_rebuilds(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 0, backends);
  for (size_t b = 0; b < count; ++b)
    for (int walls = 0; walls < 2; ++walls) {
      ck_gas_config c;
      ck_gas_config_init(&c);
      c.particles = 300;
      c.density = 0.6;
      c.temperature = 3.0;
      c.walls = walls;
      c.neighbors = CK_GAS_VERLET;
      c.skin = 0.8;
      c.seed = 3;
      follow_against_brute(&backends[b], &c, 40, 4, "verlet, skin 0.8");
    }
}

/* One particle between walls: it keeps its speed, and its place inside. */
static void lone_particle(const ck_device *device) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 1;
  c.density = 0.1; /* a 3.16 box, less than 2 rc: fine with walls */
  c.walls = 1;
  c.temperature = 50; /* fast: many reflections */
  ck_gas *gas = make(device, &c, 0);
  if (!gas)
    return;
  ck_gas_observables start, o;
  CHECK_OK(ck_gas_observe(gas, &start));
  CHECK_NEAR(start.temperature, 50, 1e-4);
  int inside = 1;
  for (int k = 0; k < 20; ++k) {
    CHECK_OK(ck_gas_step(gas, 50));
    double x[2];
    CHECK_OK(ck_gas_get_particles(gas, x, NULL));
    inside &= x[0] >= 0 && x[0] <= 3.1623 && x[1] >= 0 && x[1] <= 3.1623;
  }
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_MSG(inside, "%s: the lone particle left the walls", device->id);
  CHECK_MSG(o.kinetic == start.kinetic && o.potential == 0,
            "%s: a lone particle's kinetic energy %.9g became %.9g", device->id,
            start.kinetic, o.kinetic);
  ck_gas_destroy(gas);
}

/*
 * Free flight, two particles too far apart to interact: reflected by the
 * walls (mirrored, the velocity reversed) or wrapped by the periodic box,
 * they end where straight lines folded into the box put them: to 2e-3,
 * as x += dt v rounds in float by up to half an ulp of 10 (4.8e-7) a
 * step, 5e-4 over 1000 steps; the velocities exactly (to 1e-6).
 */
static void free_flight(const ck_device *device) {
  static const struct {
    int walls;
    double x[4], v[4], end_x[4], end_v[4];
  } cases[] = {
      /* t = 5: from x = 1 left to the wall at t = 1, then right to 4; from
       * y = 8 up to the wall at t = 4, then down to 9.5. */
      {1, {1, 5, 8, 8}, {-1, 0, 0, 0.5}, {4, 5, 8, 9.5}, {1, 0, 0, -0.5}},
      /* t = 5: x 9.9 + 5 wraps to 4.9; y 0.2 - 2.5 wraps to 7.7. */
      {0, {9.9, 5, 3, 0.2}, {1, 0, 0, -0.5}, {4.9, 5, 3, 7.7}, {1, 0, 0, -0.5}},
  };
  for (int k = 0; k < 2; ++k) {
    char path[600];
    test_path_in(work_dir, "flight.xyz", path, sizeof path);
    CHECK(write_xyz(path, 2, 10, 10, cases[k].x, cases[k].v) == 0);
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.walls = cases[k].walls;
    ck_gas *gas = make(device, &c, 0);
    if (!gas)
      continue;
    CHECK_OK(ck_gas_step(gas, 1000));
    double x[4], v[4];
    CHECK_OK(ck_gas_get_particles(gas, x, v));
    CHECK_MSG(array_gap(x, cases[k].end_x, 4) <= 2e-3 &&
                  array_gap(v, cases[k].end_v, 4) <= 1e-6,
              "%s, %s: free flight ends at (%g, %g), (%g, %g) with velocities "
              "(%g, %g), (%g, %g)",
              device->id, cases[k].walls ? "walls" : "periodic", x[0], x[1],
              x[2], x[3], v[0], v[1], v[2], v[3]);
    ck_gas_destroy(gas);
  }
}

/* ---- 3: NVE energy conservation ------------------------------------------ */

/* The total energy's relative change over `blocks` blocks of 500 steps
 * after 500 (the lattice melts in the first few hundred steps): the
 * largest at a block's end, and the last. */
static void drift_of(ck_gas *gas, int blocks, ck_gas_observables *start,
                     ck_gas_observables *o, double *worst, double *end) {
  CHECK_OK(ck_gas_step(gas, 500));
  CHECK_OK(ck_gas_observe(gas, start));
  *worst = *end = 0;
  for (int block = 0; block < blocks; ++block) {
    CHECK_OK(ck_gas_step(gas, 500));
    CHECK_OK(ck_gas_observe(gas, o));
    double change = (o->total - start->total) / fabs(start->total);
    *worst = fmax(*worst, fabs(change));
    *end = change;
  }
}

static void energy_drift(const ck_device *device) {
  ck_gas_config c;
  ck_gas_config_init(&c); /* N 1024, rho 0.7, T 1, dt 0.005, rc 2.5 shifted */
  c.particles = 1000;
  ck_gas *gas = make(device, &c, 0);
  if (!gas)
    return;
  ck_gas_observables start, o;
  double worst = 0, end = 0;
  drift_of(gas, 20, &start, &o, &worst, &end);
  /*
   * Velocity Verlet is symplectic: the energy error stays bounded (it
   * oscillates at O(dt^2) about a shadow energy) instead of growing. What
   * remains is (a) the jumps when pairs cross rc, where the
   * energy-shifted force is discontinuous, and (b) float round-off, a
   * random walk. Measured with 1000 particles over 10^4 steps (ref and
   * PoCL alike, and ref in double too, so (a) dominates): the total
   * energy per particle (about -1.0) wanders by at most 1.3e-4 of itself
   * and ends within 6e-5. The bound, 1e-3 of |E| both at the end and at
   * every 500th step, is 8 times the worst measured excursion: a broken
   * integrator (a wrong half-kick, forces from stale positions) drifts
   * by 1e-2 or more in this many steps.
   */
  const double bound = 1e-3;
  printf("NVE drift on %s: E %.6f per particle; |E_end - E_start| / |E| = "
         "%.3g, worst %.3g over 10^4 steps (bound %.0e)\n",
         device->id, start.total, fabs(end), worst, bound);
  CHECK_MSG(fabs(end) <= bound && worst <= bound,
            "%s: NVE energy drifted by %.3g (worst %.3g) of |E| = %.6f",
            device->id, end, worst, fabs(start.total));
  CHECK(o.step == 10500);
  ck_gas_destroy(gas);
}

/* ---- 4, 5: thermostats and the ideal gas --------------------------------- */

static void langevin(const ck_device *device) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 400;
  c.density = 0.3;
  c.temperature = 0.5;
  c.thermostat = CK_GAS_LANGEVIN;
  c.target_temperature = 1.5;
  c.gamma = 1.0;
  ck_gas *gas = make(device, &c, 0);
  if (!gas)
    return;
  ck_gas_observables o;
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_NEAR(o.temperature, 0.5, 1e-5);
  /* 2000 steps = 10 time units = 20 relaxation times 1 / (2 gamma) of
   * the kinetic energy. */
  CHECK_OK(ck_gas_step(gas, 2000));
  enum { SAMPLES = 400 };
  double sum = 0, block[10] = {0};
  for (int k = 0; k < SAMPLES; ++k) {
    CHECK_OK(ck_gas_step(gas, 10));
    CHECK_OK(ck_gas_observe(gas, &o));
    sum += o.temperature;
    block[k / (SAMPLES / 10)] += o.temperature / (SAMPLES / 10);
  }
  double mean = sum / SAMPLES, spread = 0;
  for (int b = 0; b < 10; ++b)
    spread += (block[b] - mean) * (block[b] - mean);
  double error = sqrt(spread / 9 / 10);
  /*
   * The instantaneous temperature of N = 400 particles fluctuates by
   * T sqrt(2 / 2N) = 0.075 and decorrelates in about 1 / (2 gamma) = 0.5
   * time units (100 steps): 4000 steps give some 40 independent samples,
   * a standard error near 0.012 (0.8 %). The integrator's bias (the
   * friction and noise step after velocity Verlet) is O(dt^2), below
   * 0.1 %. The tolerance, 5 % of 1.5 = 0.075, is 6 standard errors.
   */
  printf("Langevin on %s: mean T %.4f +- %.4f (target 1.5) over %d samples\n",
         device->id, mean, error, SAMPLES);
  CHECK_MSG(fabs(mean - 1.5) <= 0.05 * 1.5,
            "%s: Langevin at T 1.5 holds T = %.4f +- %.4f", device->id, mean,
            error);
  ck_gas_destroy(gas);

  /* Rescaling: the temperature right after a rescaled step is the
   * target, in between it is not (the check can tell). */
  ck_gas_config_init(&c);
  c.particles = 300;
  c.thermostat = CK_GAS_RESCALE;
  c.target_temperature = 2.0;
  c.rescale_every = 10;
  gas = make(device, &c, 0);
  if (!gas)
    return;
  CHECK_OK(ck_gas_step(gas, 9));
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_MSG(fabs(o.temperature - 2.0) > 0.1, "%s: T %.6f before any rescaling",
            device->id, o.temperature);
  CHECK_OK(ck_gas_step(gas, 1));
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_NEAR(o.temperature, 2.0, 2e-5);
  CHECK_OK(ck_gas_step(gas, 25));
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK(o.step == 35);
  CHECK_MSG(fabs(o.temperature - 2.0) > 1e-4,
            "%s: T %.8f 5 steps after a rescaling", device->id, o.temperature);
  CHECK_OK(ck_gas_step(gas, 5));
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_NEAR(o.temperature, 2.0, 2e-5);
  CHECK_NEAR(hypot(o.momentum_x, o.momentum_y), 0, 1e-3);
  ck_gas_destroy(gas);
}

static void ideal_gas(const ck_device *device) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 400;
  c.density = 0.005;
  c.temperature = 1.0;
  ck_gas *gas = make(device, &c, 0);
  if (!gas)
    return;
  double pressure = 0, temperature = 0;
  int samples = 0;
  ck_gas_observables o;
  for (int k = 0; k < 100; ++k) {
    CHECK_OK(ck_gas_step(gas, 30));
    CHECK_OK(ck_gas_observe(gas, &o));
    pressure += o.pressure;
    temperature += o.temperature;
    ++samples;
  }
  pressure /= samples;
  temperature /= samples;
  /*
   * At rho = 0.005 some 20 pairs are inside rc at a time; the second
   * virial coefficient of the 2D Lennard-Jones gas near T = 1 (|B2| of a
   * few sigma^2) moves P / (rho T) by about 1 %. Tolerance 3 % of rho T
   * (and of 1 for T itself: the lattice starts at zero potential energy
   * and converts little of it).
   */
  double ideal = c.density * temperature;
  printf("ideal gas on %s: P %.6g, rho T %.6g (ratio %.4f), T %.4f\n",
         device->id, pressure, ideal, pressure / ideal, temperature);
  CHECK_MSG(fabs(pressure - ideal) <= 0.03 * ideal,
            "%s: ideal gas P %.6g, rho T %.6g", device->id, pressure, ideal);
  CHECK_NEAR(temperature, 1.0, 0.05);
  ck_gas_destroy(gas);
}

/* ---- 6: restarts --------------------------------------------------------- */

static int same_bits(const snapshot *a, const snapshot *b) {
  return a->n == b->n && a->n > 0 &&
         memcmp(a->x, b->x, 2 * a->n * sizeof *a->x) == 0 &&
         memcmp(a->v, b->v, 2 * a->n * sizeof *a->v) == 0 &&
         memcmp(a->f, b->f, 2 * a->n * sizeof *a->f) == 0;
}

/* The run a restart is checked against: `steps` steps, a checkpoint at
 * path, `steps` more; takes the end into *after and destroys gas. Returns
 * take()'s result. */
static int save_midway(ck_gas *gas, const char *path, uint64_t steps,
                       snapshot *after) {
  CHECK_OK(ck_gas_step(gas, steps));
  CHECK_OK(ck_gas_save(gas, path));
  CHECK_OK(ck_gas_step(gas, steps));
  int have = take(gas, after);
  ck_gas_destroy(gas);
  return have;
}

static void restart_case(const backend *be, const char *what,
                         const ck_gas_config *config) {
  char path[600];
  test_path_in(work_dir, "restart.ckpt", path, sizeof path);
  remove(path);
  ck_gas *a = make_on(be, config);
  if (!a)
    return;
  snapshot sa, sb;
  int have_a = save_midway(a, path, 300, &sa);
  ck_gas *b = NULL;
  CHECK_OK(ck_gas_load(be->device, path, &b));
  if (b) {
    ck_gas_observables o;
    CHECK_OK(ck_gas_observe(b, &o));
    CHECK_MSG(o.step == 300, "%s, %s: loaded at step %llu", be->name, what,
              (unsigned long long)o.step);
    CHECK_OK(ck_gas_step(b, 300));
  }
  int have_b = take(b, &sb);
  ck_gas_destroy(b);
  if (have_a && have_b) {
    CHECK_MSG(same_bits(&sa, &sb),
              "%s, %s: the restarted run differs: positions by %.3g, "
              "velocities by %.3g",
              be->name, what, position_gap(&sa, &sb),
              array_gap(sa.v, sb.v, 2 * sa.n));
    CHECK_MSG(sa.o.step == 600 && sb.o.step == 600 &&
                  sb.o.time == 600 * config->dt && sa.o.total == sb.o.total &&
                  sa.o.pressure == sb.o.pressure &&
                  sa.o.temperature == sb.o.temperature,
              "%s, %s: observables after the restart differ (%.17g vs "
              "%.17g)",
              be->name, what, sa.o.total, sb.o.total);
    CHECK_MSG(sa.config.neighbors == sb.config.neighbors &&
                  sa.config.thermostat == sb.config.thermostat &&
                  sa.config.box_x == sb.config.box_x &&
                  sa.config.seed == sb.config.seed &&
                  sa.config.particles == sb.config.particles,
              "%s, %s: the loaded configuration differs", be->name, what);
  }
  if (have_a)
    snapshot_free(&sa);
  if (have_b)
    snapshot_free(&sb);
}

static void restarts(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 0, backends);
  for (size_t b = 0; b < count; ++b) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 300;
    c.seed = 11;
    restart_case(&backends[b], "cells", &c);
    c.neighbors = CK_GAS_VERLET;
    c.skin = 0.3;
    restart_case(&backends[b], "verlet", &c);
    c.neighbors = CK_GAS_ALL_PAIRS;
    c.particles = 150;
    restart_case(&backends[b], "allpairs", &c);
    c.particles = 300;
    c.neighbors = CK_GAS_CELLS;
    c.thermostat = CK_GAS_LANGEVIN;
    c.target_temperature = 1.2;
    restart_case(&backends[b], "cells, Langevin", &c);
    c.neighbors = CK_GAS_VERLET;
    c.walls = 1;
    restart_case(&backends[b], "verlet, Langevin, walls", &c);
    c.neighbors = CK_GAS_CELLS;
    c.walls = 0;
    c.thermostat = CK_GAS_RESCALE;
    c.rescale_every = 7;
    restart_case(&backends[b], "cells, rescaling", &c);
  }
  backend wide = {ref, 1, CK__GAS_FORMS_BY_DEVICE, "ref double"};
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 300;
  c.neighbors = CK_GAS_VERLET;
  c.thermostat = CK_GAS_LANGEVIN;
  restart_case(&wide, "verlet, Langevin", &c);
}

/* ---- 7: ref and OpenCL agree --------------------------------------------- */

/* forms: the OpenCL device's (tiles 1: local-memory tiles for all pairs;
 * strips 0: cells and Verlet modes a neighbour at a time). */
static void agreement_case_in(const ck_device *ref, const ck_device *ocl,
                              const char *what, const ck_gas_config *config,
                              ck__gas_forms forms) {
  snapshot s[2];
  int have[2] = {0, 0};
  const ck_device *devices[2] = {ref, ocl};
  for (int d = 0; d < 2; ++d) {
    ck_gas *gas = NULL;
    CHECK_OK(ck__gas_create_tuned(devices[d], config, 0,
                                  d == 0 ? CK__GAS_FORMS_BY_DEVICE : forms, 0,
                                  &gas));
    if (gas)
      CHECK_OK(ck_gas_step(gas, 100));
    have[d] = take(gas, &s[d]);
    ck_gas_destroy(gas);
  }
  if (have[0] && have[1]) {
    /* Float rounding differs between the compilers; 100 steps (half a
     * time unit) amplify 1e-7 by a factor of ten or so. */
    double gap = position_gap(&s[0], &s[1]);
    double velocity_gap = array_gap(s[0].v, s[1].v, 2 * s[0].n);
    double scale = fabs(s[0].o.potential) + fabs(s[0].o.kinetic);
    double pressure_scale = fabs(s[0].o.pressure) + 1;
    printf("ref/%s, %s: positions %.2g, velocities %.2g, potential %.2g, "
           "pressure %.2g\n",
           ocl->id, what, gap, velocity_gap,
           relative(s[0].o.potential, s[1].o.potential, scale),
           relative(s[0].o.pressure, s[1].o.pressure, pressure_scale));
    CHECK_MSG(gap <= 1e-4 && velocity_gap <= 1e-3,
              "ref/%s, %s: positions differ by %.3g, velocities by %.3g",
              ocl->id, what, gap, velocity_gap);
    CHECK_MSG(relative(s[0].o.potential, s[1].o.potential, scale) <= 1e-5 &&
                  relative(s[0].o.kinetic, s[1].o.kinetic, scale) <= 1e-5 &&
                  relative(s[0].o.pressure, s[1].o.pressure, pressure_scale) <=
                      1e-5,
              "ref/%s, %s: potential %.9g vs %.9g, kinetic %.9g vs %.9g, "
              "pressure %.9g vs %.9g",
              ocl->id, what, s[0].o.potential, s[1].o.potential, s[0].o.kinetic,
              s[1].o.kinetic, s[0].o.pressure, s[1].o.pressure);
  }
  for (int d = 0; d < 2; ++d)
    if (have[d])
      snapshot_free(&s[d]);
}

/* By device, and on a CPU also without strips and with the parallel sort
 * of Verlet rebuilds. */
static void agreement_case(const ck_device *ref, const ck_device *ocl,
                           const char *what, const ck_gas_config *config) {
  agreement_case_in(ref, ocl, what, config, CK__GAS_FORMS_BY_DEVICE);
  if (ocl->kind == CK_KIND_CPU && config->neighbors != CK_GAS_ALL_PAIRS) {
    char named[120];
    snprintf(named, sizeof named, "%s, no strips", what);
    agreement_case_in(ref, ocl, named, config, (ck__gas_forms){-1, 0, 0, 0, 0});
  }
}

/* A Verlet run's rebuilds three ways on one device: sorted serially (one
 * work-item, each cell by insertion), in parallel (each slot placed by
 * its rank by id), and in parallel with lists in the GPUs' layout
 * (ck_gas_list_at, chunks of 32 slots). The same slots in the same order,
 * the same pairs in the same order: the same bits. 1000 particles: a last
 * chunk only part full, more than a CPU's capped launch of the sort's and
 * lists' kernels takes at once (gas_opencl.c's launch_each), and a list
 * built from runs of cells; 30: a periodic grid of 2 cells a side, whose
 * lists are built cell by cell. */
static void rebuild_forms(const ck_device *ocl, uint32_t particles) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = particles;
  c.seed = 9;
  c.neighbors = CK_GAS_VERLET;
  /* Langevin's kick draws noise by step: a half-step taken ahead must
   * follow the same kick. */
  c.thermostat = CK_GAS_LANGEVIN;
  c.target_temperature = 1.2;
  /* The last runs a step a call: its forces never take the next step's
   * first half (ck_gas_forces_list's ahead_bit), the others' do. */
  const ck__gas_forms forms[4] = {
      {-1, 0, 1, 0, 1}, {-1, 0, 0, 0, 1}, {-1, 0, 0, 0, 32}, {-1, 0, 0, 0, 32}};
  const char *names[4] = {"serially", "in parallel", "in chunks of 32",
                          "in chunks of 32, a step a call"};
  snapshot s[4];
  int have[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    ck_gas *gas = NULL;
    CHECK_OK(ck__gas_create_tuned(ocl, &c, 0, forms[k], 0, &gas));
    if (gas) {
      CHECK(ck__gas_state(gas)->list_chunk == forms[k].list_chunk);
      CHECK(particles > 100 || ck__gas_state(gas)->cells_x < 3);
      for (int calls = 0; calls < (k == 3 ? 60 : 1); ++calls)
        CHECK_OK(ck_gas_step(gas, k == 3 ? 1 : 60));
    }
    have[k] = take(gas, &s[k]);
    ck_gas_destroy(gas);
  }
  for (int k = 1; k < 4; ++k)
    if (have[0] && have[k])
      CHECK_MSG(position_gap(&s[0], &s[k]) == 0 &&
                    array_gap(s[0].v, s[k].v, 2 * s[0].n) == 0 &&
                    s[0].o.potential == s[k].o.potential,
                "%s: a Verlet run rebuilt %s moved other bits than one "
                "sorted serially (positions %.3g apart)",
                ocl->id, names[k], position_gap(&s[0], &s[k]));
  for (int k = 0; k < 4; ++k)
    snapshot_free(&s[k]);
}

static void agreement_case_tiled(const ck_device *ref, const ck_device *ocl,
                                 const char *what,
                                 const ck_gas_config *config) {
  agreement_case_in(ref, ocl, what, config, (ck__gas_forms){1, -1, -1, 0, 0});
}

static void agreement(const ck_device *ref, const ck_device *ocl) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 300;
  c.seed = 5;
  agreement_case(ref, ocl, "cells", &c);
  c.neighbors = CK_GAS_VERLET;
  agreement_case(ref, ocl, "verlet", &c);
  c.neighbors = CK_GAS_ALL_PAIRS;
  agreement_case(ref, ocl, "allpairs", &c);
  c.neighbors = CK_GAS_CELLS;
  c.walls = 1;
  agreement_case(ref, ocl, "cells, walls", &c);
  c.neighbors = CK_GAS_VERLET;
  agreement_case(ref, ocl, "verlet, walls", &c);
  c.walls = 0;
  c.neighbors = CK_GAS_CELLS;
  c.thermostat = CK_GAS_LANGEVIN;
  c.target_temperature = 1.3;
  agreement_case(ref, ocl, "cells, Langevin", &c);
  c.thermostat = CK_GAS_RESCALE;
  c.rescale_every = 5;
  agreement_case(ref, ocl, "cells, rescaling", &c);
  ck_gas_config_init(&c);
  c.particles = 100;
  c.density = 0.3;
  c.model = CK_GAS_SOFT_LOG;
  c.strength = 1.0;
  c.softening = 1.0;
  c.neighbors = CK_GAS_ALL_PAIRS;
  agreement_case(ref, ocl, "soft-log from the lattice", &c);
  /* The same from a disordered start, away from half-box ties. */
  char path[600];
  snprintf(path, sizeof path, "%s/geometry0.xyz", work_dir);
  c.xyz_path = path;
  agreement_case(ref, ocl, "soft-log from an XYZ file", &c);
  /* The local-memory tiles of GPUs, whose full tiles without the particle
   * itself sum twelfths of the force (gas.cl), on any OpenCL device. */
  agreement_case_tiled(ref, ocl, "soft-log, local tiles", &c);
  c.xyz_path = NULL;
  c.particles = 300;
  c.walls = 1;
  agreement_case_tiled(ref, ocl, "soft-log, local tiles, walls", &c);
}

/* ---- 8: bad input ---------------------------------------------------------
 */

static void expect_failure(ck_status got, ck_status expected,
                           const char *needle, const char *what) {
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(got == expected, "%s: status %d, expected %d (%s)", what, (int)got,
            (int)expected, message);
  CHECK_MSG(got == CK_OK || strstr(message, needle) != NULL,
            "%s: the message \"%s\" does not name \"%s\"", what, message,
            needle);
}

static void expect_create_failure(const ck_device *device,
                                  const ck_gas_config *config,
                                  ck_status expected, const char *needle,
                                  const char *what) {
  ck_gas *gas = NULL;
  ck_error_clear();
  ck_status status = ck_gas_create(device, config, &gas);
  expect_failure(status, expected, needle, what);
  CHECK_MSG(status == CK_OK || gas == NULL, "%s: a gas despite failing", what);
  ck_gas_destroy(gas);
}

/* The mode CK_GAS_NEIGHBORS_AUTO picks on device with n particles, model
 * and cutoff rc (0: the default), and the skin it took (0 where it is not
 * Verlet). */
static ck_gas_neighbors auto_mode(const ck_device *device, size_t n,
                                  ck_gas_model model, double rc, double *skin) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = n;
  c.model = model;
  if (rc > 0)
    c.rc = rc;
  ck_gas *gas = NULL;
  ck_gas_neighbors mode = CK_GAS_NEIGHBORS_AUTO;
  *skin = 0;
  CHECK_OK(ck_gas_create(device, &c, &gas));
  if (gas) {
    ck_gas_describe(gas, &c);
    mode = c.neighbors;
    *skin = mode == CK_GAS_VERLET ? c.skin : 0;
  }
  ck_gas_destroy(gas);
  return mode;
}

/* The mode CK_GAS_NEIGHBORS_AUTO picks for a spread of `members`, all
 * GPUs or not, their cells resident or not, with n particles and cutoff
 * rc (0: the default). */
static ck_gas_neighbors members_mode(size_t members, int gpus, int resident,
                                     size_t n, double rc) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = n;
  if (rc > 0)
    c.rc = rc;
  ck__gas_place place = {NULL, members, gpus, resident};
  ck__gas_pick_neighbors(&place, &c);
  CHECK(c.neighbors != CK_GAS_VERLET || c.skin == CK_GAS_AUTO_SKIN);
  return c.neighbors;
}

/* A spread of several members takes Verlet lists where all are GPUs and
 * each holds CK_GAS_AUTO_VERLET_MEMBER_FROM particles on average, or
 * CK_GAS_AUTO_VERLET_HOST_FROM where their cells are not resident; a
 * mode asked for stays. */
static void neighbors_auto_members(void) {
  size_t from = CK_GAS_AUTO_VERLET_MEMBER_FROM;
  size_t host = CK_GAS_AUTO_VERLET_HOST_FROM;
  CHECK(host < from);
  CHECK(members_mode(2, 1, 1, 2 * from, 0) == CK_GAS_VERLET);
  CHECK(members_mode(3, 1, 1, 3 * from, 0) == CK_GAS_VERLET);
  CHECK(members_mode(2, 1, 1, 2 * from - 1, 0) == CK_GAS_CELLS);
  CHECK(members_mode(3, 1, 1, 2 * from, 0) == CK_GAS_CELLS);
  CHECK(members_mode(2, 0, 0, 4 * from, 0) == CK_GAS_CELLS);
  CHECK(members_mode(2, 1, 1, 2 * from, 25) == CK_GAS_CELLS);
  /* Cells through the host: lists from `host` a member. */
  CHECK(members_mode(2, 1, 0, 2 * host, 0) == CK_GAS_VERLET);
  CHECK(members_mode(2, 1, 0, 2 * host - 1, 0) == CK_GAS_CELLS);
  CHECK(members_mode(4, 1, 0, 2 * from - 1, 0) == CK_GAS_VERLET);
  CHECK(members_mode(2, 1, 0, 2 * from, 25) == CK_GAS_CELLS);
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 4 * from;
  c.neighbors = CK_GAS_CELLS;
  ck__gas_place place = {NULL, 2, 1, 0};
  ck__gas_pick_neighbors(&place, &c);
  CHECK(c.neighbors == CK_GAS_CELLS);
}

/* The default neighbours' mode is chosen by device, size and model. */
static void neighbors_auto(const ck_device *ref, const ck_device *ocl) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  CHECK(c.neighbors == CK_GAS_NEIGHBORS_AUTO);
  double skin;
  neighbors_auto_members();
  CHECK(auto_mode(ref, 500, CK_GAS_LENNARD_JONES, 0, &skin) == CK_GAS_CELLS);
  CHECK(auto_mode(ref, 500, CK_GAS_SOFT_LOG, 0, &skin) == CK_GAS_ALL_PAIRS);
  /* Verlet lists asked for at rc 25 are refused (their lists would be too
   * long): where auto would meet that, it keeps cells (below). */
  ck_gas_config_init(&c);
  c.particles = 2000;
  c.rc = 25;
  c.neighbors = CK_GAS_VERLET;
  c.skin = CK_GAS_AUTO_SKIN;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT, "Verlet lists of",
                        "Verlet lists at rc 25");
  if (!ocl)
    return;
  int gpu = ocl->kind == CK_KIND_GPU;
  CHECK(auto_mode(ocl, 500, CK_GAS_LENNARD_JONES, 0, &skin) == CK_GAS_CELLS);
  /* 2^20 particles are built only where they take little time. */
  if (gpu) {
    CHECK(auto_mode(ocl, CK_GAS_AUTO_VERLET_FROM, CK_GAS_LENNARD_JONES, 0,
                    &skin) == CK_GAS_VERLET &&
          skin == CK_GAS_AUTO_SKIN);
    CHECK(auto_mode(ocl, CK_GAS_AUTO_VERLET_FROM - 1, CK_GAS_LENNARD_JONES, 0,
                    &skin) == CK_GAS_CELLS);
    /* Lists longer than lists serve (rc 25: 2 pi 25.5^2 1.2 entries)
     * keep cells, where verlet asked for is refused. */
    CHECK(auto_mode(ocl, CK_GAS_AUTO_VERLET_FROM, CK_GAS_LENNARD_JONES, 25,
                    &skin) == CK_GAS_CELLS);
  }
}

static void bad_config(const ck_device *device) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.particles", "0 particles");
  ck_gas_config_init(&c);
  c.particles = 1000; /* a 14.1 box: rc fits, the lattice does not */
  c.density = 5;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.density", "density 5");
  c.particles = 100; /* a 4.5 box: rc does not fit either */
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "density",
                        "100 particles at density 5");
  c.density = -1;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.density", "density -1");
  ck_gas_config_init(&c);
  /* sqrt(15 / 0.7) = 4.63 < 2 rc (20 particles give 5.35, which fits) */
  c.particles = 15;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "rc",
                        "rc 2.5 in a 4.6 box");
  c.particles = 20;
  c.rc = 3.0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "rc",
                        "rc 3 in a 5.3 box");
  c.rc = 2.5;
  c.box_x = 30;
  c.box_y = 4.9;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "rc",
                        "rc 2.5 in a 30 x 4.9 box");
  c.box_y = 0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "box",
                        "a 30 x 0 box");
  c.rc = 0;
  c.box_x = 0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "rc", "rc 0");
  /* A box of NaN or negative sides was read as none given. */
  static const double bad_sides[] = {NAN, -10};
  for (int i = 0; i < 2; ++i) {
    ck_gas_config_init(&c);
    c.particles = 100;
    c.box_x = c.box_y = bad_sides[i];
    char what[40];
    snprintf(what, sizeof what, "a box of sides %g", bad_sides[i]);
    expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                          "ck_gas_config.box_x", what);
  }
  /* Past CK_GAS_MAX_DT (1e300 made NaN of the first step). */
  static const double bad_dt[] = {0, -0.005, NAN, INFINITY, 1e300};
  for (int i = 0; i < 5; ++i) {
    ck_gas_config_init(&c);
    c.particles = 100;
    c.dt = bad_dt[i];
    char what[40];
    snprintf(what, sizeof what, "dt %g", bad_dt[i]);
    expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                          "ck_gas_config.dt", what);
  }
  ck_gas_config_init(&c);
  c.particles = 100;
  c.model = CK_GAS_SOFT_LOG;
  c.neighbors = CK_GAS_CELLS;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.model: the soft-log model has no cutoff",
                        "soft-log with cells");
  c.neighbors = CK_GAS_VERLET;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "model",
                        "soft-log with Verlet lists");
  c.neighbors = CK_GAS_ALL_PAIRS;
  c.softening = -1;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "softening",
                        "negative softening");
  ck_gas_config_init(&c);
  c.particles = 100;
  c.temperature = -1;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "temperature",
                        "T -1");
  c.temperature = 1e300;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "temperature",
                        "T 1e300");
  ck_gas_config_init(&c);
  c.particles = 100;
  c.neighbors = CK_GAS_VERLET;
  c.skin = 0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "skin",
                        "Verlet skin 0");
  c.skin = -0.3;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "skin",
                        "Verlet skin -0.3");
  ck_gas_config_init(&c);
  c.particles = 100;
  c.thermostat = CK_GAS_LANGEVIN;
  c.gamma = 0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.gamma", "Langevin gamma 0");
  c.gamma = 1e300;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.gamma", "Langevin gamma 1e300");
  c.gamma = 1;
  c.target_temperature = -2;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.target_temperature", "Langevin at T -2");
  c.target_temperature = 1;
  c.thermostat = CK_GAS_RESCALE;
  c.rescale_every = 0;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.rescale_every",
                        "rescaling every 0 steps");
  ck_gas_config_init(&c);
  c.particles = 100;
  c.neighbors = (ck_gas_neighbors)7;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.neighbors", "neighbour mode 7");

  /* XYZ files: missing, malformed, without a box, outside the walls. */
  char path[600];
  ck_gas_config_init(&c);
  test_path_in(work_dir, "missing.xyz", path, sizeof path);
  c.xyz_path = path;
  expect_create_failure(device, &c, CK_ERROR_IO, path, "a missing XYZ file");
  test_path_in(work_dir, "bad.xyz", path, sizeof path);
  write_text(path, "3\nLattice=\"10 0 0 0 10 0 0 0 1\" "
                   "Properties=species:S:1:pos:R:2\nAr 1 1\nAr 2 x\nAr 3 3\n");
  char located[620];
  snprintf(located, sizeof located, "%s:4", path);
  expect_create_failure(device, &c, CK_ERROR_PARSE, located,
                        "a malformed XYZ file");
  test_path_in(work_dir, "short.xyz", path, sizeof path);
  write_text(path, "3\nLattice=\"10 0 0 0 10 0 0 0 1\" "
                   "Properties=species:S:1:pos:R:2\nAr 1 1\nAr 5 5\n");
  expect_create_failure(device, &c, CK_ERROR_PARSE, path,
                        "an XYZ file with a line missing");
  test_path_in(work_dir, "nobox.xyz", path, sizeof path);
  write_text(path, "2\ncomment\nAr 1 1 0\nAr 5 5 0\n");
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "Lattice",
                        "an XYZ file without a box");
  test_path_in(work_dir, "outside.xyz", path, sizeof path);
  write_text(path, "2\nLattice=\"10 0 0 0 10 0 0 0 1\" "
                   "Properties=species:S:1:pos:R:2\nAr 1 1\nAr 5 10.5\n");
  c.walls = 1;
  expect_create_failure(device, &c, CK_ERROR_INVALID_ARGUMENT, "outside",
                        "an XYZ particle outside the walls");
  c.walls = 0; /* periodic: wrapped into the box */
  c.rc = 2.5;
  ck_gas *gas = make(device, &c, 0);
  if (gas) {
    double x[4];
    CHECK_OK(ck_gas_get_particles(gas, x, NULL));
    CHECK_NEAR(x[3], 0.5, 1e-6);
    ck_gas_destroy(gas);
  }
}

/* The geometry's limits (clkit/gas.h), and XYZ starts that would leave a
 * setting unused or hold particles at one place. On ref: what succeeds
 * here builds programs, which PoCL does slowly. */
static void geometry_limits(const ck_device *ref) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.box_x = c.box_y = 1e308;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.box_x: 1e+308 is outside",
                        "a 1e308 box");
  c.box_x = 70000;
  c.box_y = 10;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT, "65536",
                        "a 70000 x 10 box");
  c.walls = 1;
  c.box_x = 1e-300;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.box_x: 1e-300 is outside",
                        "a 1e-300 x 10 box between walls");
  /* A system past the device's memory fails before anything is allocated
   * (ref's memory is the host's; here a copy that claims 64 MB). */
  ck_device small = *ref;
  small.global_memory = 64ull << 20;
  ck_gas_config_init(&c);
  c.particles = 1000000; /* about 99 MB on ref in single precision */
  expect_create_failure(&small, &c, CK_ERROR_DEVICE_MEMORY,
                        "1000000 particles need about 0.0987 GB; device ref "
                        "has 0.0671 GB",
                        "10^6 particles in 64 MB");
  c.particles = 100000;
  {
    ck_gas *gas = NULL;
    CHECK_OK(ck_gas_create(&small, &c, &gas));
    ck_gas_destroy(gas);
  }
  ck_gas_config_init(&c);
  c.particles = 1000;
  c.density = 1e-9; /* a side of 10^6 */
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.density: 1000",
                        "1000 particles at density 1e-9");
  /* Too many particles for their lattice: the field that set the box is
   * named, the density by default and box_x when given. */
  c.density = 30; /* sites 0.18 apart */
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.density: 1000 particles do not fit",
                        "1000 particles at density 30");
  c.box_x = c.box_y = 10;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT,
                        "ck_gas_config.box_x: 1000 particles do not fit",
                        "1000 particles in a 10 x 10 box");
  ck_gas_config_init(&c);
  c.particles = 100;
  c.rc = 0.1;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT, "rc",
                        "a cutoff of 0.1");
  /* A long box of fine cells: at most 2^16 a row, so that the cell index
   * computed in float stays exact (2^15 particles allow 4 cells each). */
  ck_gas_config_init(&c);
  c.particles = 32768;
  c.walls = 1;
  c.rc = 0.5;
  c.box_x = 65536;
  c.box_y = 1;
  c.temperature = 0;
  ck_gas *gas = make(ref, &c, 0);
  if (gas) {
    gas_state *state = ck__gas_state(gas);
    CHECK_MSG(state->cells_x == 65536 && state->cells_y == 2,
              "a 65536 x 1 box in cells of 0.5: a %d x %d grid, expected "
              "65536 x 2",
              state->cells_x, state->cells_y);
    ck_gas_destroy(gas);
  }

  char path[600], located[700];
  ck_gas_config_init(&c);
  c.xyz_path = path;
  /* 0 and the side are one place in a periodic box. */
  test_path_in(work_dir, "wrapped.xyz", path, sizeof path);
  CHECK(write_text(path, "3\nLattice=\"10 0 0 0 10 0 0 0 1\"\n"
                         "Ar 0 3 0\nAr 5 5 0\nAr 10 3 0\n") == 0);
  snprintf(located, sizeof located,
           "%s:5: particle 3 lands at (0, 3), where particle 1 (line 3) is",
           path);
  expect_create_failure(ref, &c, CK_ERROR_PARSE, located,
                        "particles at 0 and 10 in a periodic box of 10");
  c.walls = 1; /* between walls they are a box apart */
  gas = make(ref, &c, 0);
  if (gas) {
    double x[6];
    CHECK_OK(ck_gas_get_particles(gas, x, NULL));
    CHECK_MSG(x[0] == 0 && x[4] == 10,
              "particles on the walls moved to %g and %g", x[0], x[4]);
    ck_gas_destroy(gas);
  }
  c.walls = 0;
  /* Apart in double, at one place in float. */
  test_path_in(work_dir, "rounded.xyz", path, sizeof path);
  CHECK(write_text(path, "2\nLattice=\"10 0 0 0 10 0 0 0 1\"\n"
                         "Ar 1.00000001 1 0\nAr 1.00000002 1 0\n") == 0);
  snprintf(located, sizeof located, "%s:4: particle 2 lands at", path);
  expect_create_failure(ref, &c, CK_ERROR_PARSE, located,
                        "particles one float apart");
  gas = make(ref, &c, 1);
  if (gas) {
    ck_gas_observables o;
    CHECK_OK(ck_gas_observe(gas, &o));
    CHECK_MSG(o.potential > 1e80, "two particles 1e-8 apart: potential %g",
              o.potential);
    ck_gas_destroy(gas);
  }
  /* A box that differs from the file's Lattice; the same box is fine. */
  test_path_in(work_dir, "velocities.xyz", path, sizeof path);
  CHECK(write_text(path, "2\nLattice=\"10 0 0 0 10 0 0 0 1\" "
                         "Properties=species:S:1:pos:R:2:velo:R:2\n"
                         "Ar 1 1 0.5 0\nAr 5 5 -0.5 0\n") == 0);
  c.box_x = c.box_y = 12;
  expect_create_failure(ref, &c, CK_ERROR_INVALID_ARGUMENT, path,
                        "a 12 x 12 box beside a Lattice of 10 x 10");
  c.box_x = c.box_y = 10;
  gas = make(ref, &c, 0);
  ck_gas_destroy(gas);
  /* A velocity past float's range, named where the file gives it; in
   * double precision it is kept. */
  test_path_in(work_dir, "fast.xyz", path, sizeof path);
  CHECK(write_text(path, "2\nLattice=\"10 0 0 0 10 0 0 0 1\" "
                         "Properties=species:S:1:pos:R:2:velo:R:2\n"
                         "Ar 1 1 0.5 0\nAr 5 5 0 -1e39\n") == 0);
  snprintf(located, sizeof located,
           "%s:4: particle 2: vy -1e+39 is beyond single precision", path);
  expect_create_failure(ref, &c, CK_ERROR_PARSE, located,
                        "a velocity of -1e39 in single precision");
  gas = make(ref, &c, 1);
  if (gas) {
    double v[4] = {0};
    CHECK_OK(ck_gas_get_particles(gas, NULL, v));
    CHECK_MSG(v[3] == -1e39, "the double run's vy: %g", v[3]);
    ck_gas_destroy(gas);
  }
  /* A temperature given beside velocities would be unused. */
  c.box_x = c.box_y = 0;
  gas = (ck_gas *)&c; /* must come back NULL */
  ck_error_clear();
  expect_failure(
      ck__gas_create_tuned(ref, &c, 0, CK__GAS_FORMS_BY_DEVICE, 1, &gas),
      CK_ERROR_INVALID_ARGUMENT, "leave the temperature", "T beside velo");
  CHECK(gas == NULL);
  if (gas != (ck_gas *)&c)
    ck_gas_destroy(gas);
}

/* A Verlet list one entry past its capacity fails the run, as a longer
 * overflow does: capacity + 2 particles on a circle of diameter 1.2, all
 * within rc + skin = 1.4 of each other, have capacity + 1 neighbours
 * each; capacity + 1 particles fill the lists exactly and run. On every
 * backend that keeps lists (strips keep the rebuild's cells instead). */
static void list_overflow(const ck_device *ref, const ck_device *ocl) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 16;
  c.box_x = c.box_y = 10;
  c.rc = 1.1;
  c.skin = 0.3;
  c.neighbors = CK_GAS_VERLET;
  c.temperature = 0;
  ck_gas *gas = make(ref, &c, 0);
  if (!gas)
    return;
  uint32_t capacity = ck__gas_state(gas)->list_capacity;
  ck_gas_destroy(gas);
  enum { MOST = 64 };
  CHECK_MSG(capacity >= 16 && capacity + 2 <= MOST, "a capacity of %u",
            (unsigned)capacity);
  if (capacity < 16 || capacity + 2 > MOST)
    return;
  char paths[2][600];
  double x[2 * MOST];
  for (int over = 0; over < 2; ++over) {
    size_t n = capacity + 1 + over;
    for (size_t k = 0; k < n; ++k) {
      double angle = 6.283185307179586 * (double)k / (double)n;
      x[2 * k] = 5 + 0.6 * cos(angle);
      x[2 * k + 1] = 5 + 0.6 * sin(angle);
    }
    test_path_in(work_dir, over ? "overflowing.xyz" : "full.xyz", paths[over],
                 sizeof paths[over]);
    CHECK(write_xyz(paths[over], n, 10, 10, x, NULL) == 0);
  }
  c.box_x = c.box_y = 0;
  char overflowed[80];
  snprintf(overflowed, sizeof overflowed, "overflowed its %u neighbours",
           (unsigned)capacity);
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 1, backends);
  for (size_t b = 0; b < count; ++b)
    for (int over = 0; over < 2; ++over) {
      c.xyz_path = paths[over];
      gas = make_on(&backends[b], &c);
      if (!gas)
        continue;
      if (ck__gas_state(gas)->list_capacity == capacity) {
        char what[160];
        snprintf(what, sizeof what, "%s: %u neighbours in lists of %u",
                 backends[b].name, (unsigned)capacity + over,
                 (unsigned)capacity);
        ck_gas_observables o;
        ck_error_clear();
        ck_status status = ck_gas_observe(gas, &o);
        if (over)
          expect_failure(status, CK_ERROR_DEVICE, overflowed, what);
        else {
          const char *message = "";
          ck_error_get_last(&message);
          CHECK_MSG(status == CK_OK, "%s: %d (%s)", what, (int)status, message);
        }
      }
      ck_gas_destroy(gas);
    }
}

/* A checkpoint's bytes with the checksum made to match again. */
static void reseal(uint8_t *bytes, size_t size) {
  ck__sha256(bytes, size - 32, bytes + size - 32);
}

static void expect_load_failure(const ck_device *device, const char *path,
                                ck_status expected, const char *needle,
                                const char *what) {
  ck_gas *gas = NULL;
  ck_error_clear();
  ck_status status = ck_gas_load(device, path, &gas);
  expect_failure(status, expected, needle, what);
  CHECK_MSG(status == CK_OK || gas == NULL, "%s: a gas despite failing", what);
  ck_gas_destroy(gas);
}

/* A gas of config c, `steps` steps on, saved to path: the file's bytes
 * (size set), or NULL. */
static char *saved_after(const ck_device *device, const ck_gas_config *config,
                         uint64_t steps, const char *path, size_t *size) {
  ck_gas *gas = make(device, config, 0);
  if (!gas)
    return NULL;
  CHECK_OK(ck_gas_step(gas, steps));
  CHECK_OK(ck_gas_save(gas, path));
  ck_gas_destroy(gas);
  return test_read_file(path, size);
}

/* Writes value as a saved real of real_size bytes (4: rounded to float). */
static void put_saved_real(uint8_t *at, double value, uint32_t real_size) {
  if (real_size == 8) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    ck__put_u64(at, bits);
  } else {
    float narrow = (float)value;
    uint32_t narrow_bits;
    memcpy(&narrow_bits, &narrow, 4);
    ck__put_u32(at, narrow_bits);
  }
}

static void damaged_checkpoints(const ck_device *device) {
  char path[600], damaged[600];
  test_path_in(work_dir, "good.ckpt", path, sizeof path);
  test_path_in(work_dir, "damaged.ckpt", damaged, sizeof damaged);
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 50;
  c.density = 0.5;
  c.neighbors = CK_GAS_VERLET;
  size_t size = 0;
  uint8_t *good = (uint8_t *)saved_after(device, &c, 10, path, &size);
  CHECK_MSG(good && size > 200, "the checkpoint %s was not written", path);
  if (!good || size <= 200) {
    free(good);
    return;
  }
  uint8_t *bytes = malloc(size);
  if (!bytes) {
    free(good);
    return;
  }
  /* The file as written loads. */
  ck_gas *gas = NULL;
  CHECK_OK(ck_gas_load(device, path, &gas));
  /* Saving where no directory is fails, naming the file. */
  char nowhere[700];
  snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/x.ckpt", work_dir);
  if (gas) {
    ck_error_clear();
    expect_failure(ck_gas_save(gas, nowhere), CK_ERROR_IO, nowhere,
                   "a checkpoint in a missing directory");
  }
  ck_gas_destroy(gas);

  char missing[600];
  test_path_in(work_dir, "missing.ckpt", missing, sizeof missing);
  expect_load_failure(device, missing, CK_ERROR_IO, missing,
                      "a missing checkpoint");
  size_t cuts[] = {0, 5, 100, 156, 200, size / 2, size - 32, size - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; ++i) {
    test_write_bytes(damaged, good, cuts[i]);
    char what[80];
    snprintf(what, sizeof what, "a checkpoint cut to %zu of %zu bytes", cuts[i],
             size);
    expect_load_failure(device, damaged, CK_ERROR_PARSE, damaged, what);
  }
  size_t flips[] = {20, 30, 100, 170, size / 2, size - 40, size - 1};
  for (size_t i = 0; i < sizeof flips / sizeof flips[0]; ++i) {
    memcpy(bytes, good, size);
    bytes[flips[i]] ^= 0x10;
    test_write_bytes(damaged, bytes, size);
    char what[80];
    snprintf(what, sizeof what, "a checkpoint with byte %zu flipped", flips[i]);
    expect_load_failure(device, damaged, CK_ERROR_PARSE, "checksum", what);
  }
  memcpy(bytes, good, size);
  bytes[0] = 'X';
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "not a clkit gas",
                      "a checkpoint with the wrong magic");
  /* Damage the checksum cannot see: the file resealed after the edit. */
  memcpy(bytes, good, size);
  ck__put_u32(bytes + 8, 3);
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "version",
                      "a checkpoint of version 3");
  memcpy(bytes, good, size);
  ck__put_u32(bytes + 12, 5);
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "real size",
                      "a checkpoint of 5-byte reals");
  memcpy(bytes, good, size);
  ck__put_u64(bytes + 24, 51); /* particles */
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, damaged,
                      "a checkpoint of 51 particles holding 50");
  memcpy(bytes, good, size);
  ck__put_u32(bytes + 24 + 8 + 3 * 4, 2); /* walls: the 4th code */
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "walls flag of 2",
                      "a checkpoint with a walls flag of 2");
  memcpy(bytes, good, size);
  ck__put_u32(bytes + 24 + 8 + 6 * 4, CK_GAS_NEIGHBORS_AUTO); /* 7th code */
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "no neighbours' mode",
                      "a checkpoint whose neighbours' mode is auto");
  memcpy(bytes, good, size);
  double dt = -0.005; /* dt: the 8th real after 24 + 8 + 7 * 4 bytes */
  uint64_t bits;
  memcpy(&bits, &dt, 8);
  ck__put_u64(bytes + 60 + 7 * 8, bits);
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "dt",
                      "a checkpoint with dt -0.005");
  memcpy(bytes, good, size);
  double side = 1e308; /* box_x: the 2nd real */
  memcpy(&bits, &side, 8);
  ck__put_u64(bytes + 60 + 1 * 8, bits);
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "bad box 1e+308",
                      "a checkpoint with a box side of 1e308");
  memcpy(bytes, good, size);
  double cutoff = 1e6; /* rc: the 5th real, past half any box allowed */
  memcpy(&bits, &cutoff, 8);
  ck__put_u64(bytes + 60 + 4 * 8, bits);
  reseal(bytes, size);
  test_write_bytes(damaged, bytes, size);
  expect_load_failure(device, damaged, CK_ERROR_PARSE, "half the box",
                      "a checkpoint with rc 1e6");
  /* The forms the run used (tiles, then strips, after the seed) are 0 or 1
   * each: other codes name no form and are refused, not run as some form
   * (0xffffffff would read as "by device"). */
  const uint32_t forms[][2] = {{0xffffffffu, 2}, {2, 0}, {0, 0xffffffffu}};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; ++i) {
    memcpy(bytes, good, size);
    ck__put_u32(bytes + 60 + 11 * 8 + 8, forms[i][0]);
    ck__put_u32(bytes + 60 + 11 * 8 + 8 + 4, forms[i][1]);
    reseal(bytes, size);
    test_write_bytes(damaged, bytes, size);
    char what[80];
    snprintf(what, sizeof what, "unknown forms (tiles %u, strips %u)",
             (unsigned)forms[i][0], (unsigned)forms[i][1]);
    expect_load_failure(device, damaged, CK_ERROR_PARSE, what, what);
  }
  /* The particles, after the 11 reals, the seed and the forms: the first
   * x not a number, then the first y outside the box, then the first
   * velocity infinite, then the last particle's vy. Particles are counted
   * from 1, as in XYZ messages. */
  uint32_t real_size = ck__get_u32(good + 12);
  size_t particles_at = 60 + 11 * 8 + 8 + 8, n = ck__get_u64(good + 24);
  CHECK(ck__get_u32(good + 8) == 2 && (real_size == 4 || real_size == 8));
  double box[2]; /* box_x and box_y: the 2nd and 3rd reals */
  for (size_t i = 0; i < 2; ++i) {
    bits = ck__get_u64(good + 60 + (1 + i) * 8);
    memcpy(&box[i], &bits, 8);
  }
  char last_velocity[64];
  snprintf(last_velocity, sizeof last_velocity, ": particle %zu has velocity",
           n);
  const struct {
    size_t at;
    double value;
    const char *mention;
  } particles[] = {
      {particles_at, NAN, ": particle 1 is at"},
      {particles_at + real_size, -1.0, ": particle 1 is at"},
      /* Past the far sides by less than 1. */
      {particles_at, box[0] + 0.5, ": particle 1 is at"},
      {particles_at + real_size, box[1] + 0.5, ": particle 1 is at"},
      {particles_at + 2 * n * real_size, INFINITY, ": particle 1 has velocity"},
      {particles_at + (4 * n - 1) * real_size, -INFINITY, last_velocity},
      /* The forces give the next step's first kick. */
      {particles_at + 4 * n * real_size, NAN, ": particle 1 has force"},
      /* Energies and virials, one a particle, after the forces. */
      {particles_at + 6 * n * real_size, INFINITY, ": particle 1 has energy"},
      {particles_at + (8 * n - 1) * real_size, NAN, "virial nan"},
      /* Verlet mode's reference positions, after the forces, energies,
       * virials and ids: the neighbour lists are built again from them. */
      {particles_at + 8 * n * real_size + 4 * n, NAN,
       ": particle 1's reference position"},
      {particles_at + (10 * n - 1) * real_size + 4 * n, 1e6,
       "reference position"},
  };
  for (size_t i = 0; i < sizeof particles / sizeof particles[0]; ++i) {
    memcpy(bytes, good, size);
    put_saved_real(bytes + particles[i].at, particles[i].value, real_size);
    reseal(bytes, size);
    test_write_bytes(damaged, bytes, size);
    expect_load_failure(device, damaged, CK_ERROR_PARSE, particles[i].mention,
                        particles[i].mention);
  }
  /* The box's edges are in it: particle 1 on the far side x = box_x or
   * y = box_y loads (a wrap in float may leave one there); the next real
   * past it is refused. The sides (10) are exact in float. */
  CHECK(box[0] == (float)box[0] && box[1] == (float)box[1]);
  for (size_t axis = 0; axis < 2; ++axis) {
    double past = real_size == 8 ? nextafter(box[axis], INFINITY)
                                 : nextafterf((float)box[axis], INFINITY);
    for (int beyond = 0; beyond < 2; ++beyond) {
      double value = beyond ? past : box[axis];
      memcpy(bytes, good, size);
      put_saved_real(bytes + particles_at + axis * real_size, value, real_size);
      reseal(bytes, size);
      test_write_bytes(damaged, bytes, size);
      char what[80];
      snprintf(what, sizeof what, "particle 1 at %s = %.9g in a side of %g",
               axis ? "y" : "x", value, box[axis]);
      if (beyond) {
        expect_load_failure(device, damaged, CK_ERROR_PARSE,
                            ": particle 1 is at", what);
        continue;
      }
      gas = NULL;
      ck_error_clear();
      ck_status status = ck_gas_load(device, damaged, &gas);
      const char *message = "";
      ck_error_get_last(&message);
      CHECK_MSG(status == CK_OK, "%s: refused (%d: %s)", what, (int)status,
                message);
      ck_gas_destroy(gas);
    }
  }
  /* The ids put the particles back in id order (ck_gas_get_particles): each of
   * 0 .. n - 1 once. */
  size_t ids_at = particles_at + 8 * n * real_size;
  const struct {
    size_t particle;
    uint32_t id;
  } ids[] = {
      {0, (uint32_t)n}, {n - 1, 0xffffffffu}, {1, ck__get_u32(good + ids_at)}};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; ++i) {
    memcpy(bytes, good, size);
    ck__put_u32(bytes + ids_at + 4 * ids[i].particle, ids[i].id);
    reseal(bytes, size);
    test_write_bytes(damaged, bytes, size);
    char what[80];
    snprintf(what, sizeof what, "particle %zu has id %u", ids[i].particle + 1,
             (unsigned)ids[i].id);
    expect_load_failure(device, damaged, CK_ERROR_PARSE, what, what);
  }
  /* The density must be the particles over the box's area; an infinite
   * one made Verlet lists of infinite length (CK_ERROR_INVALID_ARGUMENT,
   * naming no file). */
  double densities[] = {INFINITY, NAN, 0.25};
  for (size_t i = 0; i < sizeof densities / sizeof densities[0]; ++i) {
    memcpy(bytes, good, size);
    memcpy(&bits, &densities[i], 8);
    ck__put_u64(bytes + 60, bits); /* density: the 1st real */
    reseal(bytes, size);
    test_write_bytes(damaged, bytes, size);
    char what[80];
    snprintf(what, sizeof what, "a checkpoint with density %g", densities[i]);
    expect_load_failure(device, damaged, CK_ERROR_PARSE, damaged, what);
  }
  free(bytes);
  free(good);
}

/*
 * A version 1 checkpoint, as clkit wrote them before strips: no forms
 * after the configuration, and in Verlet mode the lists and their counts
 * between the reference positions and the flags. Made here from a version
 * 2 file of the same run on ref; it loads, and continues bit for bit as
 * the run that wrote it.
 */
/* NVE's drift past a tenth of the energy's scale is refused in words
 * that name both energies and dt; a thermostat's is not checked. */
static void drift_check(void) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.dt = 0.25;
  ck_gas_observables first = {.kinetic = 1, .potential = -3, .total = -2};
  ck_gas_observables last = first;
  last.total = -1.65;
  CHECK_OK(ck_gas_check_drift(&c, &first, &last));
  last.total = -1.5;
  CHECK(ck_gas_check_drift(&c, &first, &last) == CK_ERROR_MISMATCH);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "went from -2 to -1.5, which NVE conserves") &&
                strstr(message, "--dt 0.25 is too large"),
            "message: %s", message);
  c.thermostat = CK_GAS_LANGEVIN;
  CHECK_OK(ck_gas_check_drift(&c, &first, &last));
}

/* A state thrown out of the box by a time step far too large (before its
 * energy shows it) is not saved: loading would refuse it, and the last
 * checkpoint a run could restart from stays. */
static void blown_up_checkpoint(const ck_device *device) {
  char path[600];
  test_path_in(work_dir, "kept.ckpt", path, sizeof path);
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 64;
  c.density = 0.7;
  size_t size = 0, after_size = 0;
  char *good = saved_after(device, &c, 10, path, &size);
  if (!good)
    return;
  c.dt = 0.1;
  ck_gas *gas = make(device, &c, 0);
  if (gas) {
    CHECK_OK(ck_gas_check(gas));
    CHECK_OK(ck_gas_step(gas, 10));
    CHECK(ck_gas_save(gas, path) == CK_ERROR_MISMATCH);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "not writing the checkpoint of step 10") &&
                  strstr(message, "outside the"),
              "message: %s", message);
    /* The same check, without a file. */
    CHECK(ck_gas_check(gas) == CK_ERROR_MISMATCH);
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "the state of step 10 has blown up") &&
                  strstr(message, ": particle ") &&
                  strstr(message, "outside the"),
              "message: %s", message);
  }
  ck_gas_destroy(gas);
  char *after = test_read_file(path, &after_size);
  CHECK_MSG(good && after && size == after_size &&
                memcmp(good, after, size) == 0,
            "%s was replaced", path);
  gas = NULL;
  CHECK_OK(ck_gas_load(device, path, &gas));
  ck_gas_destroy(gas);
  free(good);
  free(after);
}

/* A double-precision checkpoint on an OpenCL device without fp64 (a copy
 * of the device that says so) is refused as ck_gas_create() refuses double
 * precision there: CK_ERROR_UNSUPPORTED, naming the file and the device.
 * Ref always has double precision. */
static void double_checkpoint_without_fp64(const ck_device *ref,
                                           const ck_device *ocl) {
  char path[600];
  test_path_in(work_dir, "double.ckpt", path, sizeof path);
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 50;
  ck_gas *gas = make(ref, &c, 1);
  if (!gas)
    return;
  CHECK_OK(ck_gas_step(gas, 5));
  CHECK_OK(ck_gas_save(gas, path));
  ck_gas_destroy(gas);
  ck_device single = *ocl;
  single.has_fp64 = 0;
  gas = (ck_gas *)&c; /* must come back NULL */
  ck_error_clear();
  expect_failure(
      ck__gas_create_tuned(&single, &c, 1, CK__GAS_FORMS_BY_DEVICE, 0, &gas),
      CK_ERROR_UNSUPPORTED, "no double precision",
      "a double gas on a device without fp64");
  CHECK(gas == NULL);
  char named[800];
  snprintf(named, sizeof named,
           "%s: a double-precision checkpoint; device %s has no double "
           "precision",
           path, single.id);
  expect_load_failure(&single, path, CK_ERROR_UNSUPPORTED, named,
                      "a double checkpoint on a device without fp64");
  ck_device ref_single = *ref;
  ref_single.has_fp64 = 0;
  gas = NULL;
  CHECK_OK(ck_gas_load(&ref_single, path, &gas));
  ck_gas_destroy(gas);
}

static void version_one_checkpoint(const ck_device *ref) {
  char path[600], old[600];
  test_path_in(work_dir, "v2.ckpt", path, sizeof path);
  test_path_in(work_dir, "v1.ckpt", old, sizeof old);
  for (int m = 0; m < 2; ++m) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 120;
    c.neighbors = m ? CK_GAS_VERLET : CK_GAS_CELLS;
    c.seed = 9;
    ck_gas *gas = make(ref, &c, 0);
    if (!gas)
      return;
    snapshot a, b;
    int have_a = save_midway(gas, path, 40, &a);
    size_t size = 0;
    uint8_t *v2 = (uint8_t *)test_read_file(path, &size);
    /* 8 bytes of forms out; 16 bytes of lists and counts (capacity 3) a
     * particle in, before the 16 bytes of flags and the 32 of the digest. */
    size_t lists = m ? 16 * c.particles : 0, form_at = 156;
    uint8_t *v1 = malloc(size + lists);
    if (!v2 || !v1 || size < 220 || !have_a) {
      CHECK_MSG(0, "cannot make a version 1 checkpoint");
      free(v1);
      free(v2);
      if (have_a)
        snapshot_free(&a);
      return;
    }
    size_t tail = m ? 16 + 32 : 32, body = size - tail;
    memcpy(v1, v2, form_at);
    memcpy(v1 + form_at, v2 + form_at + 8, body - form_at - 8);
    memset(v1 + body - 8, 0xA5, lists);
    memcpy(v1 + body - 8 + lists, v2 + body, tail);
    size_t v1_size = size - 8 + lists;
    ck__put_u32(v1 + 8, 1);
    reseal(v1, v1_size);
    test_write_bytes(old, v1, v1_size);
    gas = NULL;
    CHECK_OK(ck_gas_load(ref, old, &gas));
    if (gas)
      CHECK_OK(ck_gas_step(gas, 40));
    int have_b = take(gas, &b);
    ck_gas_destroy(gas);
    if (have_b) {
      CHECK_MSG(same_bits(&a, &b),
                "%s: a run continued from a version 1 checkpoint differs "
                "(positions by %.3g)",
                mode_name(c.neighbors), position_gap(&a, &b));
      snapshot_free(&b);
    }
    snapshot_free(&a);
    free(v1);
    free(v2);
  }
}

/* ---- 9: a start from an XYZ file ------------------------------------------
 */

static void xyz_start(const ck_device *device, int double_precision) {
  static const double x[8] = {1.0, 1.5, 4.25, 2.0, 7.5, 6.0, 2.0, 7.0};
  static const double v[8] = {0.5, -0.25, 0.0, 1.0, -1.5, 0.125, 0.3, -0.7};
  char path[600];
  test_path_in(work_dir, "start.xyz", path, sizeof path);
  CHECK(write_xyz(path, 4, 10.0, 8.0, x, v) == 0);
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 999; /* the file's count wins */
  c.xyz_path = path;
  ck_gas *gas = make(device, &c, double_precision);
  if (!gas)
    return;
  double box_x, box_y, xs[8], vs[8];
  size_t n = 0;
  CHECK_OK(ck_gas_get_box(gas, &box_x, &box_y, &n));
  CHECK(n == 4 && box_x == 10.0 && box_y == 8.0);
  CHECK_OK(ck_gas_get_particles(gas, xs, vs));
  /* The positions are exact in float; the velocities as the precision
   * rounds them. */
  double rounded[8];
  for (int i = 0; i < 8; ++i)
    rounded[i] = double_precision ? v[i] : (double)(float)v[i];
  CHECK_MSG(memcmp(xs, x, sizeof x) == 0 &&
                memcmp(vs, rounded, sizeof rounded) == 0,
            "%s: the particles from %s came back changed (velocities by "
            "%.3g)",
            device->id, path, array_gap(vs, v, 8));
  ck_gas_config used;
  CHECK_OK(ck_gas_describe(gas, &used));
  CHECK(used.particles == 4 && used.xyz_path == NULL);
  CHECK_NEAR(used.density, 4 / 80.0, 1e-15);
  ck_gas_destroy(gas);

  /* Without velocities: drawn at T, with zero momentum. */
  test_path_in(work_dir, "start_novelo.xyz", path, sizeof path);
  CHECK(write_xyz(path, 4, 10.0, 8.0, x, NULL) == 0);
  c.temperature = 0.8;
  gas = make(device, &c, double_precision);
  if (!gas)
    return;
  ck_gas_observables o;
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_NEAR(o.temperature, 0.8, 1e-6);
  CHECK_NEAR(hypot(o.momentum_x, o.momentum_y), 0, 1e-6);
  CHECK_OK(ck_gas_get_particles(gas, xs, NULL));
  CHECK(memcmp(xs, x, sizeof x) == 0);
  ck_gas_destroy(gas);
}

/* ---- 10: the pair histogram ------------------------------------------------
 */

/* Pairs within range binned as the library bins them, from all pairs in
 * the test, in float arithmetic for float runs so that a distance lands
 * in the same bin. */
static void brute_rdf(const snapshot *s, int double_precision, size_t bins,
                      double range, uint64_t *counts) {
  memset(counts, 0, bins * sizeof *counts);
  int walls = s->config.walls;
  if (double_precision) {
    double per_bin = (double)bins / range, inverse_x = 1.0 / s->box_x,
           inverse_y = 1.0 / s->box_y;
    for (size_t i = 0; i < s->n; ++i)
      for (size_t j = i + 1; j < s->n; ++j) {
        double dx = s->x[2 * i] - s->x[2 * j];
        double dy = s->x[2 * i + 1] - s->x[2 * j + 1];
        if (!walls) {
          dx -= s->box_x * floor(dx * inverse_x + 0.5);
          dy -= s->box_y * floor(dy * inverse_y + 0.5);
        }
        double r2 = dx * dx + dy * dy;
        if (r2 < range * range) {
          size_t bin = (size_t)(sqrt(r2) * per_bin);
          ++counts[bin < bins ? bin : bins - 1];
        }
      }
    return;
  }
  float box_x = (float)s->box_x, box_y = (float)s->box_y;
  float inverse_x = (float)(1.0 / s->box_x),
        inverse_y = (float)(1.0 / s->box_y);
  float range_f = (float)range, range2 = range_f * range_f;
  float per_bin = (float)bins / range_f;
  for (size_t i = 0; i < s->n; ++i)
    for (size_t j = i + 1; j < s->n; ++j) {
      float dx = (float)s->x[2 * i] - (float)s->x[2 * j];
      float dy = (float)s->x[2 * i + 1] - (float)s->x[2 * j + 1];
      if (!walls) {
        dx -= box_x * floorf(dx * inverse_x + 0.5f);
        dy -= box_y * floorf(dy * inverse_y + 0.5f);
      }
      float r2 = dx * dx + dy * dy;
      if (r2 < range2) {
        size_t bin = (size_t)(sqrtf(r2) * per_bin);
        ++counts[bin < bins ? bin : bins - 1];
      }
    }
}

static void rdf_case(const backend *be, const char *xyz, int walls,
                     ck_gas_neighbors mode, size_t bins, double range,
                     const char *what) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.xyz_path = xyz;
  c.walls = walls;
  c.neighbors = mode;
  ck_gas *gas = make_on(be, &c);
  if (!gas)
    return;
  /* A few steps, so that Verlet lists are older than the positions. */
  CHECK_OK(ck_gas_step(gas, 15));
  snapshot s;
  if (!take(gas, &s)) {
    ck_gas_destroy(gas);
    return;
  }
  uint64_t *counts = calloc(bins, sizeof *counts);
  uint64_t *expected = calloc(bins, sizeof *expected);
  if (counts && expected) {
    CHECK_OK(ck_gas_accumulate_rdf(gas, bins, range, counts));
    brute_rdf(&s, be->double_precision, bins, range, expected);
    size_t differ = 0;
    uint64_t total = 0, total_expected = 0;
    for (size_t b = 0; b < bins; ++b) {
      differ += counts[b] != expected[b];
      total += counts[b];
      total_expected += expected[b];
    }
    CHECK_MSG(differ == 0 && total > 0,
              "%s, %s, %s: %zu of %zu bins differ from the all-pairs count "
              "(%llu pairs, expected %llu)",
              what, be->name, mode_name(mode), differ, bins,
              (unsigned long long)total, (unsigned long long)total_expected);
    /* Counts accumulate. */
    CHECK_OK(ck_gas_accumulate_rdf(gas, bins, range, counts));
    differ = 0;
    for (size_t b = 0; b < bins; ++b)
      differ += counts[b] != 2 * expected[b];
    CHECK_MSG(differ == 0,
              "%s, %s, %s: a second ck_gas_accumulate_rdf did not add up", what,
              be->name, mode_name(mode));
    /* Beyond what the mode sees. */
    gas_state *state = ck__gas_state(gas);
    double reach = mode == CK_GAS_ALL_PAIRS ? 0.5 * fmin(s.box_x, s.box_y)
                   : mode == CK_GAS_VERLET  ? s.config.rc
                                            : fmin(s.box_x / state->cells_x,
                                                   s.box_y / state->cells_y);
    ck_error_clear();
    expect_failure(ck_gas_accumulate_rdf(gas, bins, reach * 1.01, counts),
                   CK_ERROR_INVALID_ARGUMENT, "range", "rdf beyond reach");
    CHECK_OK(ck_gas_accumulate_rdf(gas, bins, reach, counts));
  }
  free(counts);
  free(expected);
  snapshot_free(&s);
  ck_gas_destroy(gas);
}

static void rdf(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 1, backends);
  char square[600], walls[600], small[600];
  snprintf(square, sizeof square, "%s/geometry0.xyz", work_dir);
  snprintf(walls, sizeof walls, "%s/geometry1.xyz", work_dir);
  snprintf(small, sizeof small, "%s/geometry4.xyz", work_dir);
  for (size_t b = 0; b < count; ++b) {
    for (int m = 0; m < 3; ++m) {
      rdf_case(&backends[b], square, 0, (ck_gas_neighbors)m, 50, 2.5,
               "N 300 square");
      rdf_case(&backends[b], walls, 1, (ck_gas_neighbors)m, 37, 2.4,
               "N 300 walls");
    }
    rdf_case(&backends[b], square, 0, CK_GAS_ALL_PAIRS, 64, 10.0,
             "N 300 square, range 10");
    rdf_case(&backends[b], small, 0, CK_GAS_CELLS, 20, 3.1,
             "N 20 two cells, range 3.1");
  }
  /* Bad arguments. */
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 100;
  ck_gas *gas = make(ref, &c, 0);
  if (gas) {
    uint64_t counts[4] = {0};
    ck_error_clear();
    CHECK_INVALID(ck_gas_accumulate_rdf(gas, 0, 1.0, counts),
                  "ck_gas_accumulate_rdf: bins is 0");
    CHECK_INVALID(ck_gas_accumulate_rdf(gas, (1u << 20) + 1, 1.0, counts),
                  "ck_gas_accumulate_rdf: bins is 1048577");
    CHECK_INVALID(ck_gas_accumulate_rdf(gas, 4, 0.0, counts),
                  "ck_gas_accumulate_rdf: range is 0");
    CHECK_INVALID(ck_gas_accumulate_rdf(gas, 4, -1.0, counts),
                  "ck_gas_accumulate_rdf: range is -1");
    CHECK_INVALID(ck_gas_accumulate_rdf(gas, 4, NAN, counts),
                  "ck_gas_accumulate_rdf: range is nan");
    CHECK_INVALID(ck_gas_accumulate_rdf(gas, 4, 1.0, NULL),
                  "ck_gas_accumulate_rdf: counts is NULL");
    CHECK_INVALID(ck_gas_accumulate_rdf(NULL, 4, 1.0, counts),
                  "ck_gas_accumulate_rdf: gas is NULL");
    ck_gas_destroy(gas);
  }
}

/* ---- 11: the workload ------------------------------------------------------
 */

static ck_status run_workload(const ck_workload *w, const ck_device *device,
                              const ck_param *params, size_t count,
                              ck_result *result) {
  ck_error_clear();
  return test_workload_run(w, device, params, count, NULL, result);
}

static void workload_restart(const ck_workload *w, const ck_device *device) {
  char first[600], second[600], whole[600];
  test_path_in(work_dir, "w_first.ckpt", first, sizeof first);
  test_path_in(work_dir, "w_second.ckpt", second, sizeof second);
  test_path_in(work_dir, "w_whole.ckpt", whole, sizeof whole);
  ck_result *result = calloc(1, sizeof *result);
  if (!result)
    return;
  double value = NAN;
  ck_param a[] = {{"particles", "150"},
                  {"steps", "200"},
                  {"log-every", "0"},
                  {"neighbors", "verlet:0.3"},
                  {"thermostat", "langevin:1.2:0.5"},
                  {"checkpoint", first}};
  CHECK_OK(run_workload(w, device, a, 6, result));
  ck_param b[] = {{"steps", "100"},
                  {"log-every", "0"},
                  {"restart", first},
                  {"checkpoint", second}};
  /* The checkpoint's seed goes on: a seed the caller chose, even the
   * checkpoint's own, is refused rather than ignored. */
  ck_run_options chosen = {.seed = 1, .seed_given = 1};
  ck_error_clear();
  expect_failure(test_workload_run(w, device, b, 4, &chosen, result),
                 CK_ERROR_INVALID_ARGUMENT, "--seed",
                 "a seed beside --restart");
  CHECK_OK(run_workload(w, device, b, 4, result));
  CHECK_OK(ck_result_get_metric(result, "final_step", &value));
  CHECK(value == 300);
  ck_param c[] = {{"particles", "150"},
                  {"steps", "300"},
                  {"log-every", "0"},
                  {"neighbors", "verlet:0.3"},
                  {"thermostat", "langevin:1.2:0.5"},
                  {"checkpoint", whole},
                  {"checkpoint-every", "120"}};
  CHECK_OK(run_workload(w, device, c, 7, result));
  CHECK_OK(ck_result_get_metric(result, "final_step", &value));
  CHECK(value == 300);
  /* The two checkpoints at step 300 hold the same state. */
  ck_gas *g1 = NULL, *g2 = NULL;
  CHECK_OK(ck_gas_load(device, second, &g1));
  CHECK_OK(ck_gas_load(device, whole, &g2));
  snapshot s1, s2;
  int have1 = take(g1, &s1), have2 = take(g2, &s2);
  if (have1 && have2) {
    CHECK_MSG(same_bits(&s1, &s2) && s1.o.step == 300 && s2.o.step == 300,
              "%s: 200 + 100 workload steps differ from 300 (positions by "
              "%.3g)",
              device->id, position_gap(&s1, &s2));
    CHECK(s1.config.thermostat == CK_GAS_LANGEVIN &&
          s1.config.neighbors == CK_GAS_VERLET && s1.config.skin == 0.3);
  }
  size_t size1 = 0, size2 = 0;
  char *bytes1 = test_read_file(second, &size1);
  char *bytes2 = test_read_file(whole, &size2);
  CHECK_MSG(
      bytes1 && bytes2 && size1 == size2 && memcmp(bytes1, bytes2, size1) == 0,
      "%s: the checkpoints of 200 + 100 and of 300 steps differ", device->id);
  free(bytes1);
  free(bytes2);
  if (have1)
    snapshot_free(&s1);
  if (have2)
    snapshot_free(&s2);
  ck_gas_destroy(g1);
  ck_gas_destroy(g2);
  test_results_release(result, 1);
  free(result);
}

static int cancel_at_once(void *user, const ck_progress *progress) {
  (void)progress;
  ++*(int *)user;
  return 1;
}

static int cancel_after_half(void *user, const ck_progress *progress) {
  (void)user;
  return progress->fraction >= 0.5;
}

/* A run replaces its outputs only once it has written them all: one that
 * fails after its trajectory is written (its last checkpoint refused, the
 * state gone bad), or is cancelled, leaves each file as it was, except
 * the periodic checkpoints, which stay to go on from. */
static void outputs_held(const ck_workload *w, const ck_device *ref) {
  char traj[600], checkpoint[600];
  test_path_in(work_dir, "held.xyz", traj, sizeof traj);
  test_path_in(work_dir, "held.ckpt", checkpoint, sizeof checkpoint);
  ck_result *result = calloc(1, sizeof *result);
  if (!result)
    return;
  CHECK(test_write_bytes(traj, "old\n", 4) == 0);
  CHECK(test_write_bytes(checkpoint, "old\n", 4) == 0);
  ck_param hot[] = {{"particles", "100"}, {"steps", "20"},
                    {"log-every", "0"},   {"T", "1e6"},
                    {"traj", traj},       {"checkpoint", checkpoint}};
  CHECK(run_workload(w, ref, hot, 6, result) != CK_OK);
  char *kept = test_read_file(traj, NULL);
  CHECK_MSG(kept && strcmp(kept, "old\n") == 0,
            "a refused checkpoint left %s as '%.20s'", traj,
            kept ? kept : "(nothing)");
  free(kept);
  kept = test_read_file(checkpoint, NULL);
  CHECK_MSG(kept && strcmp(kept, "old\n") == 0, "%s became '%.20s'", checkpoint,
            kept ? kept : "(nothing)");
  free(kept);
  /* Cancelled halfway through 400 steps, after checkpoints at 100 and
   * 200. */
  CHECK(test_write_bytes(traj, "old\n", 4) == 0);
  ck_param periodic[] = {
      {"particles", "100"},       {"steps", "400"},
      {"log-every", "0"},         {"traj", traj},
      {"checkpoint", checkpoint}, {"checkpoint-every", "100"}};
  ck_run_options cancelling = {.seed = 1, .progress = cancel_after_half};
  CHECK(test_workload_run(w, ref, periodic, 6, &cancelling, result) ==
        CK_ERROR_CANCELLED);
  kept = test_read_file(traj, NULL);
  CHECK_MSG(kept && strcmp(kept, "old\n") == 0,
            "a cancelled run left %s as '%.20s'", traj,
            kept ? kept : "(nothing)");
  free(kept);
  ck_gas *gas = NULL;
  CHECK_OK(ck_gas_load(ref, checkpoint, &gas));
  ck_gas_observables o = {0};
  if (gas)
    CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_MSG(gas && o.step >= 100 && o.step % 100 == 0,
            "the periodic checkpoint holds step %llu",
            (unsigned long long)o.step);
  ck_gas_destroy(gas);
  test_results_release(result, 1);
  free(result);
}

/* A run's samples grow as it makes them: one of 10^15 steps asked for
 * 8 x 10^15 bytes a sample set before its first step (a failure, or an
 * abort under AddressSanitizer), where it should simply start, here to
 * be cancelled at its first report. */
static void long_run(const ck_workload *w, const ck_device *ref) {
  ck_param params[] = {
      {"particles", "100"}, {"steps", "1e15"}, {"log-every", "0"}};
  int calls = 0;
  ck_run_options options = {
      .seed = 1, .progress = cancel_at_once, .progress_user = &calls};
  ck_result *result = calloc(1, sizeof *result);
  if (!result)
    return;
  ck_status status = test_workload_run(w, ref, params, 3, &options, result);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_CANCELLED && calls == 1,
            "status %d after %d reports: %s", (int)status, calls, message);
  test_results_release(result, 1);
  free(result);
}

/* The run averages past the samples' bound (set small here, as a run of
 * hours would reach it): the samples counted and the means the same, bit
 * for bit (each is the sum of every sample over their count); the
 * standard errors the same to rounding where the blocks of the means the
 * history keeps are the blocks of the unbounded run (65 samples in 4
 * blocks of 16, from 8 entries of 8), and still finite where they are not
 * (101 samples: 6 entries of 16, blocks of 16 samples instead of 25). Below
 * the bound nothing changes. */
static void bounded_samples(const ck_workload *w, const ck_device *ref) {
  static const char *const means[] = {"temperature", "potential_energy",
                                      "total_energy", "pressure"};
  static const char *const steps[] = {"64", "100"};
  ck_result *result = calloc(3, sizeof *result);
  if (!result)
    return;
  for (size_t k = 0; k < 2; ++k) {
    ck_param params[] = {{"particles", "64"},
                         {"steps", steps[k]},
                         {"sample-every", "1"},
                         {"log-every", "0"},
                         {"blocks", "4"}};
    static const size_t limits[] = {0, 128, 8};
    for (int run = 0; run < 3; ++run) {
      CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, limits[run]));
      CHECK_OK(run_workload(w, ref, params, 5, &result[run]));
      CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
    }
    double samples[3] = {NAN, NAN, NAN};
    for (int run = 0; run < 3; ++run)
      CHECK_OK(ck_result_get_metric(&result[run], "samples", &samples[run]));
    CHECK(samples[0] == (k ? 101 : 65) && samples[1] == samples[0] &&
          samples[2] == samples[0]);
    for (size_t q = 0; q < sizeof means / sizeof means[0]; ++q) {
      char name[64];
      double mean[3], error[3];
      snprintf(name, sizeof name, "%s_se", means[q]);
      for (int run = 0; run < 3; ++run) {
        mean[run] = error[run] = NAN;
        CHECK_OK(ck_result_get_metric(&result[run], means[q], &mean[run]));
        CHECK_OK(ck_result_get_metric(&result[run], name, &error[run]));
      }
      CHECK_MSG(mean[1] == mean[0] && error[1] == error[0],
                "%s below the bound: %.17g +- %.17g, unbounded %.17g +- "
                "%.17g",
                means[q], mean[1], error[1], mean[0], error[0]);
      CHECK_MSG(mean[2] == mean[0], "%s past the bound: %.17g, want %.17g",
                means[q], mean[2], mean[0]);
      int close = k == 0 ? fabs(error[2] - error[0]) <= 1e-9 * error[0]
                         : isfinite(error[2]) && error[2] > 0;
      CHECK_MSG(close && error[0] > 0,
                "%s past the bound after %s steps: error %.17g, unbounded "
                "%.17g",
                name, steps[k], error[2], error[0]);
    }
  }
  test_results_release(result, 3);
  free(result);
}

static void workload(const ck_device *ref, const ck_device *ocl) {
  const ck_workload *w = NULL;
  CHECK_OK(ck_workload_find("gas", &w));
  if (!w)
    return;
  ck_result *result = calloc(1, sizeof *result);
  if (!result)
    return;
  long_run(w, ref);
  bounded_samples(w, ref);
  ck_param basic[] = {
      {"particles", "200"}, {"steps", "100"}, {"log-every", "0"}};
  CHECK_OK(run_workload(w, ref, basic, 3, result));
  static const char *const metrics[] = {
      "temperature",         "temperature_se", "potential_energy",
      "potential_energy_se", "pressure",       "pressure_se",
      "total_energy",        "energy_drift",   "energy_drift_relative"};
  double value = NAN, ref_potential = NAN;
  for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; ++i) {
    value = NAN;
    CHECK_OK(ck_result_get_metric(result, metrics[i], &value));
    CHECK_MSG(isfinite(value), "metric %s is %g", metrics[i], value);
  }
  CHECK_OK(ck_result_get_metric(result, "temperature", &value));
  CHECK_MSG(value > 0.5 && value < 1.5, "temperature %g", value);
  CHECK_OK(ck_result_get_metric(result, "final_step", &value));
  CHECK(value == 100);
  CHECK_OK(ck_result_get_metric(result, "samples", &value));
  CHECK(value == 11);
  CHECK_OK(ck_result_get_metric(result, "particles", &value));
  CHECK(value == 200);
  CHECK_OK(ck_result_get_metric(result, "energy_drift_relative", &value));
  CHECK_MSG(fabs(value) < 1e-3, "energy drift %g over 100 steps", value);
  CHECK_OK(ck_result_get_metric(result, "potential_energy", &ref_potential));
  CHECK(result->best == ref_potential);
  if (ocl) {
    CHECK_OK(run_workload(w, ocl, basic, 3, result));
    CHECK_OK(ck_result_get_metric(result, "potential_energy", &value));
    CHECK_MSG(fabs(value - ref_potential) <= 1e-4 * fabs(ref_potential),
              "workload potential energy: ref %.9g, %s %.9g", ref_potential,
              ocl->id, value);
    /* kernel_s spans what wall_s does, the setup's end to the last
     * frame: on OpenCL more than 0 and not more than wall_s; the step
     * loop's time lies inside wall_s, and the setup's inside total_s
     * beside it. With --png the final frame's reductions run after the
     * step loop and count too. */
    char png[600];
    test_path_in(work_dir, "w_timing.png", png, sizeof png);
    ck_param timed[] = {
        {"particles", "200"}, {"steps", "1"}, {"log-every", "0"}, {"png", png}};
    for (size_t n = 3; n <= 4; ++n) {
      double setup_s = NAN, run_s = NAN;
      CHECK_OK(run_workload(w, ocl, timed, n, result));
      CHECK_OK(ck_result_get_metric(result, "setup_s", &setup_s));
      CHECK_OK(ck_result_get_metric(result, "run_s", &run_s));
      CHECK_MSG(result->kernel_s > 0 && result->kernel_s <= result->wall_s &&
                    run_s <= result->wall_s &&
                    setup_s + result->wall_s <= result->total_s,
                "%s, 1 step%s: kernel_s %g, wall_s %g, setup_s %g, run_s %g",
                ocl->id, n == 4 ? " and a PNG" : "", result->kernel_s,
                result->wall_s, setup_s, run_s);
    }
  }

  /* Bad options, each named. */
  static const struct {
    const char *name, *value, *needle;
  } bad[] = {
      {"box", "0x5", "--box"},
      {"box", "10by5", "--box"},
      {"thermostat", "junk", "--thermostat"},
      {"thermostat", "langevin:1:0", "--thermostat"},
      {"thermostat", "rescale:1:0", "--thermostat"},
      {"thermostat", "rescale:1:-1", "--thermostat"},
      {"thermostat", "rescale:1:99999999999", "--thermostat"},
      {"thermostat", "rescale:1:4294967296", "--thermostat"},
      {"thermostat", "rescale:1:5x", "--thermostat"},
      {"thermostat", "rescale:inf:5", "--thermostat"},
      {"thermostat", "langevin:inf:1", "--thermostat"},
      {"thermostat", "langevin:1:inf", "--thermostat"},
      {"thermostat", "langevin: 1:1", "--thermostat"},
      {"thermostat", "langevin:1:0x1", "--thermostat"},
      {"thermostat", "langevin:1:1:1", "--thermostat"},
      {"box", "1e308x1e308", "--box"},
      {"box", "70000x10", "--box"},
      {"box", "1e-300", "--box"},
      {"rho", "1e-9", "--rho"},
      {"rc", "0.1", "--rc"},
      {"traj-every", "5", "--traj-every applies only with --traj"},
      {"rdf-bins", "5", "--rdf-bins applies only with --rdf"},
      {"rdf-every", "5", "--rdf-every applies only with --rdf"},
      {"rdf-range", "1", "--rdf-range applies only with --rdf"},
      {"png-size", "100", "--png-size applies only with --png"},
      {"neighbors", "verlet:-1", "--neighbors"},
      {"neighbors", "verlet:0x1", "--neighbors"},
      {"neighbors", "verlet: 1", "--neighbors"},
      {"neighbors", "octree", "--neighbors"},
      {"model", "log:1", "--model"},
      {"model", "log:1:-1", "--model"},
      {"model", "log:0x1p-5:1", "--model"},
      {"model", "log: 0.02:1", "--model"},
      {"model", "log:1:1:1", "--model"},
      {"model", "log:nan:1", "--model"},
      {"particles", "0", "particles"},
      {"dt", "0", "dt"},
      {"shift", "sideways", "shift"},
      {"lattice", "hexagonal", "lattice"},
      {"checkpoint-every", "10", "--checkpoint-every"},
      {"checkpoint-every", "0", "--checkpoint-every"},
      /* Kernel forms of another neighbour mode than cells. */
      {"sort", "whole", "--sort applies only with --neighbors verlet"},
      {"tiles", "local", "--tiles applies only with --neighbors allpairs"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    ck_param params[] = {{"particles", "200"},
                         {"steps", "10"},
                         {"log-every", "0"},
                         {bad[i].name, bad[i].value}};
    size_t first = strcmp(bad[i].name, "particles") == 0 ? 1 : 0;
    char what[100];
    snprintf(what, sizeof what, "--%s %s", bad[i].name, bad[i].value);
    expect_failure(run_workload(w, ref, params + first, 4 - first, result),
                   CK_ERROR_INVALID_ARGUMENT, bad[i].needle, what);
    ck_error_clear();
    expect_failure(ck_workload_check(w, params + first, 4 - first),
                   CK_ERROR_INVALID_ARGUMENT, bad[i].needle, what);
  }
  /* A skin past rc, and lists past their room, fail when the run starts
   * (the configuration checks that need the whole of it). */
  ck_param skins[][4] = {
      {{"particles", "200"}, {"steps", "10"}, {"neighbors", "verlet:3"}},
      {{"particles", "3000"}, /* a 65 box, past 2 rc */
       {"steps", "10"},
       {"rc", "30"},
       {"neighbors", "verlet:1"}}};
  const char *skin_needles[] = {"at most rc", "use cell lists"};
  for (size_t i = 0; i < 2; ++i)
    expect_failure(run_workload(w, ref, skins[i], 3 + i, result),
                   CK_ERROR_INVALID_ARGUMENT, skin_needles[i], skin_needles[i]);
  /* The largest EVERY is taken. */
  ck_param longest[] = {{"particles", "200"},
                        {"thermostat", "rescale:1:4294967295"}};
  CHECK_OK(ck_workload_check(w, longest, 2));
  /* Fields are read as option values are: an exponent makes a whole
   * number. */
  ck_param exponents[] = {{"particles", "200"},
                          {"thermostat", "rescale:1:1e1"},
                          {"neighbors", "allpairs"},
                          {"model", "log:2e-2:1"}};
  CHECK_OK(ck_workload_check(w, exponents, 4));
  /* --rho and --box both set the box. */
  ck_param rho_and_box[] = {{"rho", "0.5"}, {"box", "20"}};
  expect_failure(ck_workload_check(w, rho_and_box, 2),
                 CK_ERROR_INVALID_ARGUMENT, "--rho", "--rho beside --box");
  /* An XYZ start: what the file gives is refused beside it, not dropped. */
  char xyz[600], plain[600], overlap[600];
  test_path_in(work_dir, "w_start.xyz", xyz, sizeof xyz);
  test_path_in(work_dir, "w_plain.xyz", plain, sizeof plain);
  test_path_in(work_dir, "w_overlap.xyz", overlap, sizeof overlap);
  CHECK(write_text(xyz, "2\nLattice=\"10 0 0 0 10 0 0 0 1\" "
                        "Properties=species:S:1:pos:R:2:velo:R:2\n"
                        "Ar 1 1 0.5 0\nAr 5 5 -0.5 0\n") == 0);
  CHECK(write_text(plain, "2\nLattice=\"10 0 0 0 10 0 0 0 1\"\n"
                          "Ar 1 1 0\nAr 5 5 0\n") == 0);
  CHECK(write_text(overlap, "2\nLattice=\"10 0 0 0 10 0 0 0 1\"\n"
                            "Ar 1 1 0\nAr 1 1 0\n") == 0);
  static const struct {
    const char *name, *value, *needle;
    int checked; /* refused before the file is read */
  } beside_xyz[] = {{"particles", "100", "--particles", 1},
                    {"rho", "0.5", "--rho", 1},
                    {"lattice", "square", "--lattice", 1},
                    {"T", "2", "--T", 0},
                    {"box", "12", "--box", 0}};
  for (size_t i = 0; i < sizeof beside_xyz / sizeof beside_xyz[0]; ++i) {
    ck_param params[] = {{"xyz", xyz},
                         {"steps", "10"},
                         {"log-every", "0"},
                         {beside_xyz[i].name, beside_xyz[i].value}};
    char what[100];
    snprintf(what, sizeof what, "--xyz with --%s %s", beside_xyz[i].name,
             beside_xyz[i].value);
    expect_failure(run_workload(w, ref, params, 4, result),
                   CK_ERROR_INVALID_ARGUMENT, beside_xyz[i].needle, what);
    if (beside_xyz[i].checked) {
      ck_error_clear();
      expect_failure(ck_workload_check(w, params, 4), CK_ERROR_INVALID_ARGUMENT,
                     beside_xyz[i].needle, what);
    }
  }
  /* The box the file gives, and --T for a file without velocities, are
   * used. */
  ck_param same_box[] = {
      {"xyz", xyz}, {"steps", "10"}, {"log-every", "0"}, {"box", "10"}};
  CHECK_OK(run_workload(w, ref, same_box, 4, result));
  ck_param drawn[] = {
      {"xyz", plain}, {"steps", "10"}, {"log-every", "0"}, {"T", "2"}};
  CHECK_OK(run_workload(w, ref, drawn, 4, result));
  value = NAN;
  CHECK_OK(ck_result_get_metric(result, "temperature", &value));
  CHECK_MSG(fabs(value - 2) < 1e-6, "--xyz with --T 2: temperature %g", value);
  ck_param coincident[] = {{"xyz", overlap}, {"steps", "2"}, {"rc", "1"}};
  char located[700];
  snprintf(located, sizeof located, "%s:4:", overlap);
  expect_failure(run_workload(w, ref, coincident, 3, result), CK_ERROR_PARSE,
                 located, "--xyz with two particles at (1, 1)");
  /* Settings the library rejects once the box is known. */
  ck_param soft_cells[] = {{"particles", "200"},
                           {"model", "log:1:1"},
                           {"neighbors", "cells"},
                           {"log-every", "0"}};
  expect_failure(run_workload(w, ref, soft_cells, 4, result),
                 CK_ERROR_INVALID_ARGUMENT,
                 "option --model: ck_gas_config.model: the soft-log model",
                 "--model log:1:1 with cells");
  ck_param big_rc[] = {{"particles", "20"}, {"rc", "3"}, {"log-every", "0"}};
  expect_failure(run_workload(w, ref, big_rc, 3, result),
                 CK_ERROR_INVALID_ARGUMENT, "rc", "--rc 3 with 20 particles");

  /* Files: trajectory, RDF, picture. */
  char traj[600], rdf_path[600], png[600];
  test_path_in(work_dir, "run.xyz", traj, sizeof traj);
  test_path_in(work_dir, "run_rdf.csv", rdf_path, sizeof rdf_path);
  test_path_in(work_dir, "run.png", png, sizeof png);
  ck_param files[] = {{"particles", "200"}, {"steps", "100"},
                      {"log-every", "0"},   {"traj", traj},
                      {"traj-every", "50"}, {"rdf", rdf_path},
                      {"rdf-every", "20"},  {"rdf-bins", "25"},
                      {"png", png},         {"png-size", "64"}};
  ck_status status = run_workload(w, ref, files, 10, result);
#ifdef CK_HAVE_PNG
  CHECK_OK(status);
  size_t size = 0;
  char *bytes = test_read_file(png, &size);
  CHECK_MSG(bytes && size > 8 && memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0,
            "%s is not a PNG file", png);
  free(bytes);
#else
  expect_failure(status, CK_ERROR_UNSUPPORTED, "png", "--png without libpng");
  status = run_workload(w, ref, files, 8, result);
  CHECK_OK(status);
#endif
  if (status == CK_OK) {
    char *text = test_read_file(traj, NULL);
    size_t frames = 0;
    for (const char *at = text; at && (at = strstr(at, "Lattice=")); ++at)
      ++frames;
    CHECK_MSG(text && strncmp(text, "200\n", 4) == 0 && frames == 3,
              "%s: %zu frames (expected 3: steps 0, 50, 100)", traj, frames);
    free(text);
    text = test_read_file(rdf_path, NULL);
    size_t lines = 0;
    for (const char *at = text; at && *at; ++at)
      lines += *at == '\n';
    CHECK_MSG(text && strncmp(text, "r,g,count", 9) == 0 && lines == 26,
              "%s: %zu lines (expected a header and 25 bins)", rdf_path, lines);
    free(text);
  }
  test_results_release(result, 1);
  free(result);

  workload_restart(w, ref);
  if (ocl)
    workload_restart(w, ocl);
  outputs_held(w, ref);
}

/* ---- 12: the thermo file --------------------------------------------------
 */

/* The log's first line of numbers (step 0), kept. */
typedef struct first_log {
  int lines;
  double values[7]; /* step, time, kinetic, potential, total, T, P */
  int found;
} first_log;

static void keep_first_log(void *user, const char *line) {
  first_log *log = user;
  double *v = log->values;
  ++log->lines;
  if (!log->found && sscanf(line, "%lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1],
                            &v[2], &v[3], &v[4], &v[5], &v[6]) == 7)
    log->found = 1;
}

/* --thermo: a header, then a row per log step (steps 0, 20, ..., 100 of
 * 100 after 20 of equilibration), each with the time of its step, a total
 * that is the kinetic and potential energies' sum and a temperature of
 * 2 KE / (2N - 2); the first row is the log's first line. Without log
 * steps it is refused. */
static void thermo_file(const ck_workload *w, const ck_device *ref) {
  char path[600];
  test_path_in(work_dir, "thermo.csv", path, sizeof path);
  ck_result *result = calloc(1, sizeof *result);
  if (!result)
    return;
  ck_param params[] = {{"particles", "64"}, {"rho", "0.5"},
                       {"rc", "1.5"},       {"steps", "100"},
                       {"equil", "20"},     {"log-every", "20"},
                       {"thermo", path}};
  first_log log = {0};
  ck_run_options options = {.seed = 1, .log = keep_first_log, .log_user = &log};
  CHECK_OK(test_workload_run(w, ref, params, 7, &options, result));
  char *text = test_read_file(path, NULL);
  CHECK_MSG(text != NULL, "%s not written", path);
  const char *header = "step,time,temperature,kinetic,potential,total,"
                       "pressure\n";
  CHECK_MSG(text && strncmp(text, header, strlen(header)) == 0, "header: %.80s",
            text ? text : "");
  size_t rows = 0;
  for (const char *line = text ? strchr(text, '\n') : NULL; line && line[1];
       line = strchr(line + 1, '\n')) {
    double step = NAN, time = NAN, t = NAN, kinetic = NAN, potential = NAN,
           total = NAN, pressure = NAN;
    int fields = sscanf(line + 1, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &step, &time,
                        &t, &kinetic, &potential, &total, &pressure);
    CHECK_MSG(fields == 7, "row %zu: %.80s", rows, line + 1);
    CHECK_MSG(step == 20.0 * (double)rows &&
                  fabs(time - 0.005 * step) < 1e-12 &&
                  fabs(total - (kinetic + potential)) <= 1e-6 &&
                  fabs(t - kinetic * 64 / 63) <= 1e-6 * t && isfinite(pressure),
              "row %zu: step %g, time %g, T %g, kinetic %g, potential %g, "
              "total %g, pressure %g",
              rows, step, time, t, kinetic, potential, total, pressure);
    if (rows == 0 && log.found) {
      /* The log prints 5 decimals (6 for the total). */
      double *v = log.values;
      CHECK_MSG(v[0] == step && fabs(v[1] - time) < 1e-3 &&
                    fabs(v[2] - kinetic) < 1e-5 &&
                    fabs(v[3] - potential) < 1e-5 &&
                    fabs(v[4] - total) < 1e-6 && fabs(v[5] - t) < 1e-5 &&
                    fabs(v[6] - pressure) < 1e-5,
                "the first row differs from the log's step 0: %g %g %g %g %g "
                "%g %g",
                v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    }
    ++rows;
  }
  CHECK_MSG(log.found, "the run logged no step 0");
  CHECK_MSG(rows == 7 && log.lines == 8,
            "%zu rows, %d log lines (expected 7 log steps and a header)", rows,
            log.lines);
  free(text);

  /* A row per log step: without log steps there would be none. */
  ck_param quiet[] = {
      {"particles", "64"}, {"log-every", "0"}, {"thermo", path}};
  ck_error_clear();
  expect_failure(ck_workload_check(w, quiet, 3), CK_ERROR_INVALID_ARGUMENT,
                 "--thermo applies only with --log-every above 0",
                 "--thermo with --log-every 0");
  test_results_release(result, 1);
  free(result);
}

/* ---- 13: a start from ASE's momenta -------------------------------------- */

/* The velocities of a file ASE wrote are its momenta over its masses:
 * given as 1, or those of species X; the gas starts from them, in double
 * precision exactly, rather than from velocities drawn at T. */
static void ase_momenta_start(const ck_device *ref) {
  static const char *const files[] = {
      "2\nLattice=\"6.0 0.0 0.0 0.0 6.0 0.0 0.0 0.0 1.0\" "
      "Properties=species:S:1:pos:R:3:momenta:R:3:masses:R:1 pbc=\"T T F\"\n"
      "Ar 1.00000000 1.00000000 0.00000000 0.50000000 0.25000000 0.00000000 "
      "1.00000000\n"
      "Ar 4.00000000 4.00000000 0.00000000 -0.50000000 -0.25000000 "
      "0.00000000 1.00000000\n",
      "2\nLattice=\"6.0 0.0 0.0 0.0 6.0 0.0 0.0 0.0 1.0\" "
      "Properties=species:S:1:pos:R:3:momenta:R:3 pbc=\"T T F\"\n"
      "X 1 1 0 0.5 0.25 0\nX 4 4 0 -0.5 -0.25 0\n"};
  static const double expected[4] = {0.5, 0.25, -0.5, -0.25};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
    char path[600];
    test_path_in(work_dir, "ase_start.xyz", path, sizeof path);
    CHECK(write_text(path, files[i]) == 0);
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.rc = 1.5;
    ck_gas *gas = make(ref, &c, 1);
    if (!gas)
      continue;
    double v[4] = {0};
    CHECK_OK(ck_gas_get_particles(gas, NULL, v));
    CHECK_MSG(memcmp(v, expected, sizeof v) == 0,
              "ASE file %zu: the run starts from (%g, %g), (%g, %g)", i, v[0],
              v[1], v[2], v[3]);
    ck_gas_destroy(gas);
  }
}

/* ---- main ------------------------------------------------------------------
 */

/* ---- NULL arguments, named ----------------------------------------------- */

/* A small gas, made once, for the calls whose gas is not the NULL. */
typedef struct null_context {
  const ck_device *device;
  ck_gas_config config;
  ck_gas *gas;
  char path[600];
} null_context;

static ck_status null_gas_config_init(void *context, int which) {
  (void)context;
  ck_gas_config config;
  return ck_gas_config_init(NULL_AT(0, &config));
}

static ck_status null_gas_create(void *context, int which) {
  null_context *c = context;
  ck_gas *gas = NULL;
  ck_status status = ck_gas_create(NULL_AT(0, c->device),
                                   NULL_AT(1, &c->config), NULL_AT(2, &gas));
  ck_gas_destroy(gas);
  return status;
}

static ck_status null_gas_step(void *context, int which) {
  null_context *c = context;
  return ck_gas_step(NULL_AT(0, c->gas), 1);
}

static ck_status null_gas_observe(void *context, int which) {
  null_context *c = context;
  ck_gas_observables observables;
  return ck_gas_observe(NULL_AT(0, c->gas), NULL_AT(1, &observables));
}

static ck_status null_gas_get_particles(void *context, int which) {
  null_context *c = context;
  return ck_gas_get_particles(NULL_AT(0, c->gas), NULL, NULL);
}

static ck_status null_gas_get_forces(void *context, int which) {
  null_context *c = context;
  double forces[2 * 100];
  return ck_gas_get_forces(NULL_AT(0, c->gas), NULL_AT(1, forces));
}

static ck_status null_gas_get_box(void *context, int which) {
  null_context *c = context;
  return ck_gas_get_box(NULL_AT(0, c->gas), NULL, NULL, NULL);
}

static ck_status null_gas_accumulate_rdf(void *context, int which) {
  null_context *c = context;
  uint64_t counts[4] = {0};
  return ck_gas_accumulate_rdf(NULL_AT(0, c->gas), 4, 1.0, NULL_AT(1, counts));
}

static ck_status null_gas_describe(void *context, int which) {
  null_context *c = context;
  ck_gas_config config;
  return ck_gas_describe(NULL_AT(0, c->gas), NULL_AT(1, &config));
}

static ck_status null_gas_save(void *context, int which) {
  null_context *c = context;
  return ck_gas_save(NULL_AT(0, c->gas), NULL_AT(1, c->path));
}

static ck_status null_gas_check(void *context, int which) {
  null_context *c = context;
  return ck_gas_check(NULL_AT(0, c->gas));
}

static ck_status null_gas_check_drift(void *context, int which) {
  null_context *c = context;
  ck_gas_observables first = {0}, last = {0};
  return ck_gas_check_drift(NULL_AT(0, &c->config), NULL_AT(1, &first),
                            NULL_AT(2, &last));
}

static ck_status null_gas_load(void *context, int which) {
  null_context *c = context;
  ck_gas *gas = NULL;
  ck_status status =
      ck_gas_load(NULL_AT(0, c->device), NULL_AT(1, c->path), NULL_AT(2, &gas));
  ck_gas_destroy(gas);
  return status;
}

static void null_arguments(const ck_device *ref) {
  static const check_null_case cases[] = {
      {"ck_gas_config_init", {"config"}, null_gas_config_init},
      {"ck_gas_create", {"device", "config", "gas"}, null_gas_create},
      {"ck_gas_step", {"gas"}, null_gas_step},
      {"ck_gas_observe", {"gas", "observables"}, null_gas_observe},
      {"ck_gas_get_particles", {"gas"}, null_gas_get_particles},
      {"ck_gas_get_forces", {"gas", "forces"}, null_gas_get_forces},
      {"ck_gas_get_box", {"gas"}, null_gas_get_box},
      {"ck_gas_accumulate_rdf", {"gas", "counts"}, null_gas_accumulate_rdf},
      {"ck_gas_describe", {"gas", "config"}, null_gas_describe},
      {"ck_gas_save", {"gas", "path"}, null_gas_save},
      {"ck_gas_check", {"gas"}, null_gas_check},
      {"ck_gas_check_drift", {"config", "first", "last"}, null_gas_check_drift},
      {"ck_gas_load", {"device", "path", "gas"}, null_gas_load},
  };
  null_context c = {.device = ref};
  ck_gas_config_init(&c.config);
  c.config.particles = 100;
  test_path_in(work_dir, "null-arguments.ckpt", c.path, sizeof c.path);
  CHECK_OK(ck_gas_create(ref, &c.config, &c.gas));
  if (c.gas)
    check_null_arguments(cases, sizeof cases / sizeof cases[0], &c);
  ck_gas_destroy(c.gas);
}

/* ---- sparse systems: a cell grid that follows the particles ------------- */

/* The grid of a sparse system: at most max(9, 4 N) cells whatever the box,
 * each at least the range (rc + skin) wide, and 3 or more along a side
 * that could hold 3 (a periodic 3 x 3 block of distinct cells). */
static void check_sparse_grid(const char *what, ck_gas *gas) {
  gas_state *state = ck__gas_state(gas);
  double range = state->rc + state->skin;
  double most = fmax(9, 4.0 * state->particles);
  int low_x = state->box_x >= 3 * range ? 3 : 1;
  int low_y = state->box_y >= 3 * range ? 3 : 1;
  CHECK_MSG(state->cells ==
                    (uint32_t)state->cells_x * (uint32_t)state->cells_y &&
                (double)state->cells <= most,
            "%s: %d x %d cells for %u particles (at most %g)", what,
            state->cells_x, state->cells_y, state->particles, most);
  CHECK_MSG(state->box_x / state->cells_x >= range &&
                state->box_y / state->cells_y >= range &&
                state->cells_x >= low_x && state->cells_y >= low_y,
            "%s: %d x %d cells of a %g x %g box, for a range of %g", what,
            state->cells_x, state->cells_y, state->box_x, state->box_y, range);
}

/*
 * Two particles 1.25 apart in the 20000 x 5000 box (across its periodic
 * edge, or inside walls), in cells and Verlet modes: a grid of at most 9
 * cells, and the exact Lennard-Jones pair (half its energy a particle,
 * the force along x, `side` the sign of x_1 - x_2); a lone particle of a
 * 46-byte XYZ file in a 49597 x 8787 box on the same few cells.
 */
static void sparse_pair(const backend *be) {
  static const struct {
    int walls;
    double side, x[4];
  } cases[] = {{0, 1, {0.5, 2500, 19999.25, 2500}},
               {1, -1, {10000.5, 2500.25, 10001.75, 2500.25}}};
  for (size_t k = 0; k < 2; ++k)
    for (int m = 0; m < 2; ++m) {
      char path[600], what[200];
      test_path_in(work_dir, "sparse_pair.xyz", path, sizeof path);
      CHECK(write_xyz(path, 2, 20000, 5000, cases[k].x, NULL) == 0);
      ck_gas_config c;
      ck_gas_config_init(&c);
      c.xyz_path = path;
      c.walls = cases[k].walls;
      c.temperature = 0;
      c.neighbors = (ck_gas_neighbors)m;
      snprintf(what, sizeof what, "%s, 2 particles in 20000 x 5000, %s, %s",
               be->name, cases[k].walls ? "walls" : "periodic",
               mode_name(c.neighbors));
      ck_gas *gas = make_on(be, &c);
      if (!gas)
        continue;
      check_sparse_grid(what, gas);
      snapshot s;
      if (take(gas, &s)) {
        double energy,
            force = cases[k].side * pair_force(&s.config, 1.25, &energy);
        double tolerance = be->double_precision ? 1e-12 : 1e-5;
        CHECK_MSG(relative(s.o.potential, 0.5 * energy, fabs(energy)) <=
                          tolerance &&
                      relative(s.f[0], force, fabs(force)) <= tolerance &&
                      relative(s.f[2], -force, fabs(force)) <= tolerance &&
                      s.f[1] == 0 && s.f[3] == 0,
                  "%s: potential %.9g a particle (expected %.9g), forces "
                  "(%.9g, %.9g), (%.9g, %.9g) (expected +-%.9g along x)",
                  what, s.o.potential, 0.5 * energy, s.f[0], s.f[1], s.f[2],
                  s.f[3], force);
        snapshot_free(&s);
      }
      ck_gas_destroy(gas);
    }
  char path[600];
  test_path_in(work_dir, "sparse_one.xyz", path, sizeof path);
  CHECK(write_text(path, "1\nLattice=\"49597 0 0 0 8787 0 0 0 1\"\n"
                         "Ar 1 1 0\n") == 0);
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.xyz_path = path;
  ck_gas *gas = make_on(be, &c);
  if (!gas)
    return;
  char what[200];
  snprintf(what, sizeof what, "%s, 1 particle in 49597 x 8787", be->name);
  check_sparse_grid(what, gas);
  ck_gas_observables start, o;
  CHECK_OK(ck_gas_observe(gas, &start));
  CHECK_OK(ck_gas_step(gas, 20));
  CHECK_OK(ck_gas_observe(gas, &o));
  CHECK_MSG(o.potential == 0 && o.kinetic == start.kinetic,
            "%s: potential %g, kinetic energy %.9g became %.9g", what,
            o.potential, start.kinetic, o.kinetic);
  ck_gas_destroy(gas);
}

/*
 * A sparse cluster (a patch of 12 particles, and 3 across a periodic
 * corner) in a 120 x 60 box, on the capped grid and on the fine grid of
 * cells rc (+ skin) wide: the same pairs, so the same forces up to the
 * order of the sums (against the test's all-pairs sums too), and the same
 * run for 100 steps to float rounding.
 */
static void sparse_cluster(const backend *be) {
  double x[30];
  size_t n = 0;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i, ++n) {
      x[2 * n] = 30 + 1.1 * i + (j & 1 ? 0.55 : 0);
      x[2 * n + 1] = 15 + 0.95 * j;
    }
  static const double corner[6] = {0.55, 0.5, 119.5, 0.5, 0.5, 59.4};
  memcpy(x + 2 * n, corner, sizeof corner);
  n += 3;
  char path[600];
  test_path_in(work_dir, "sparse_cluster.xyz", path, sizeof path);
  CHECK(write_xyz(path, n, 120, 60, x, NULL) == 0);
  double mode_tolerance = be->double_precision ? 1e-13 : 1e-5;
  double brute_tolerance = be->double_precision ? 1e-12 : 2e-4;
  double sum_tolerance = be->double_precision ? 1e-14 : 1e-6;
  for (int m = 0; m < 2; ++m) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.temperature = 0.5;
    c.neighbors = (ck_gas_neighbors)m;
    snapshot s[2][2];
    int have[2][2] = {{0, 0}, {0, 0}};
    uint32_t cells[2] = {0, 0};
    for (int fine = 0; fine < 2; ++fine) {
      backend grid = *be;
      grid.forms.fine_cells = fine;
      ck_gas *gas = make_on(&grid, &c);
      if (!gas)
        continue;
      cells[fine] = ck__gas_state(gas)->cells;
      have[fine][0] = take(gas, &s[fine][0]);
      CHECK_OK(ck_gas_step(gas, 100));
      have[fine][1] = take(gas, &s[fine][1]);
      ck_gas_destroy(gas);
    }
    char what[200];
    snprintf(what, sizeof what, "%s, sparse cluster, %s: %u cells vs %u",
             be->name, mode_name(c.neighbors), cells[0], cells[1]);
    /* 48 x 24 cells of 2.5 (40 x 21 of 2.8 with the skin) at most;
     * capped at 4 a particle. */
    CHECK_MSG(cells[0] <= 4 * n && cells[1] >= 40 * 21, "%s: the grids", what);
    if (have[0][0])
      check_against_brute(what, &s[0][0], be->double_precision, brute_tolerance,
                          sum_tolerance);
    if (have[0][0] && have[1][0])
      check_same_forces(what, &s[0][0], &s[1][0], be->double_precision,
                        mode_tolerance);
    if (have[0][1] && have[1][1]) {
      double gap = position_gap(&s[0][1], &s[1][1]);
      CHECK_MSG(gap <= (be->double_precision ? 1e-12 : 1e-4),
                "%s: after 100 steps, positions %.3g apart", what, gap);
    }
    for (int fine = 0; fine < 2; ++fine)
      for (int t = 0; t < 2; ++t)
        if (have[fine][t])
          snapshot_free(&s[fine][t]);
  }
}

/* The soft-log model ignores rc and keeps all pairs: a checkpoint's rc of
 * 1e-300 or NaN must not size a grid of 10^8 cells it never uses. */
static void sparse_all_pairs(const backend *be) {
  static const double rcs[] = {1e-300, NAN};
  for (int k = 0; k < 2; ++k) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 64;
    c.model = CK_GAS_SOFT_LOG;
    c.neighbors = CK_GAS_ALL_PAIRS;
    c.rc = rcs[k];
    ck_gas *gas = make_on(be, &c);
    if (!gas)
      continue;
    gas_state *state = ck__gas_state(gas);
    CHECK_MSG(state->cells == 1, "%s, soft-log, rc %g: %d x %d cells", be->name,
              rcs[k], state->cells_x, state->cells_y);
    ck_gas_destroy(gas);
  }
}

static void sparse(const ck_device *ref, const ck_device *ocl) {
  backend backends[MAX_BACKENDS];
  size_t count = backends_of(ref, ocl, 1, backends);
  for (size_t b = 0; b < count; ++b) {
    sparse_pair(&backends[b]);
    sparse_cluster(&backends[b]);
    sparse_all_pairs(&backends[b]);
  }
}

/* ---- a gas spread over devices --------------------------------------------
 */

/* A gas spread over `count` devices (shares NULL: equal slabs). */
static ck_gas *make_spread(const ck_device *devices, size_t count,
                           const double *shares, const ck_gas_config *config) {
  ck_spread spread = {.devices = devices,
                      .device_count = count,
                      .shares = shares,
                      .share_count = shares ? count : 0};
  ck_gas *gas = NULL;
  CHECK_OK(ck_gas_create_spread(&spread, config, &gas));
  return gas;
}

/* Each member's particles (units), as a result reports them. */
static size_t spread_units(ck_gas *gas, uint64_t *units, size_t capacity) {
  ck_result r;
  memset(&r, 0, sizeof r);
  CHECK_OK(ck__gas_spread_report(ck__gas_spread_of(gas), &r));
  size_t count = r.member_count;
  for (size_t m = 0; m < count && m < capacity; ++m)
    units[m] = r.members[m].units;
  CHECK_MSG(strcmp(r.member_units, "particles") == 0, "units: %s",
            r.member_units);
  ck_result_release(&r);
  return count;
}

/* A Verlet spread's forces come in two parts between rebuilds: no slot
 * that a member marked interior has a ghost in its list (its force
 * would come from ghosts' positions of the step before), and ghosts
 * take no part. Some member has an interior (a slab cut by speeds may be
 * too thin for one). */
static void check_parts(const char *what, ck_gas *gas) {
  ck__gas_spread *spread = ck__gas_spread_of(gas);
  ck_gas *member;
  size_t interiors = 0;
  for (size_t i = 0; (member = ck__gas_spread_member(spread, i)); ++i) {
    gas_state *state = ck__gas_state(member);
    size_t n = state->particles, capacity = state->list_capacity;
    uint32_t *id = calloc(n + 1, 4), *mark = calloc(n + 1, 4);
    size_t chunk = state->list_chunk;
    size_t entries = (n + chunk - 1) / chunk * chunk * capacity;
    uint32_t *count = calloc(n + 1, 4), *list = calloc(entries + 1, 4);
    size_t interior = 0, border = 0, wrong = 0;
    if (id && mark && count && list && n > 0 && state->part_mark) {
      CHECK_OK(ck_buffer_read(state->queue, state->id, 0, 4 * n, id,
                              CK_BLOCKING, NULL));
      CHECK_OK(ck_buffer_read(state->queue, state->part_mark, 0, 4 * n, mark,
                              CK_BLOCKING, NULL));
      /* Strips (CPUs) keep no lists: the cells around each particle. */
      if (state->list) {
        CHECK_OK(ck_buffer_read(state->queue, state->list_count, 0, 4 * n,
                                count, CK_BLOCKING, NULL));
        CHECK_OK(ck_buffer_read(state->queue, state->list, 0, 4 * entries, list,
                                CK_BLOCKING, NULL));
      }
      for (size_t k = 0; k < n; ++k) {
        interior += mark[k] == CK_GAS_PART_INTERIOR;
        border += mark[k] == CK_GAS_PART_BORDER;
        CHECK_MSG(mark[k] == (ck_gas_own(id[k]) ? mark[k] : CK_GAS_PART_NONE),
                  "%s: member %zu's ghost slot %zu has part %u", what, i, k,
                  mark[k]);
        if (mark[k] != CK_GAS_PART_INTERIOR)
          continue;
        for (size_t e = 0; e < count[k] && e < capacity; ++e)
          wrong += !ck_gas_own(id[list[ck_gas_list_at(
              (ck_u32)k, (ck_u32)e, (ck_u32)capacity, (ck_u32)chunk)]]);
      }
    }
    /* A member alone between walls has no border. */
    CHECK_MSG(state->part_mark && wrong == 0 &&
                  (border > 0 || state->walls_x == 3),
              "%s: member %zu: %zu interior and %zu border slots; %zu ghosts "
              "in interior lists",
              what, i, interior, border, wrong);
    interiors += interior;
    free(id);
    free(mark);
    free(count);
    free(list);
  }
  CHECK_MSG(interiors > 0, "%s: no member has an interior", what);
}

/*
 * Slabs stay right as particles cross them: forces, energies, pressure
 * and momentum against the test's all-pairs sums after every 40 steps of
 * a hot gas, in both neighbour modes, periodic and between walls, on one
 * member (the whole box), on ref and the OpenCL device (equal slabs, and 2:1),
 * on the OpenCL device and ref, and on a grid of 2 x 2 boxes (4 members, ref
 * and the OpenCL device, which slabs of twice rc + skin do not fit); every
 * particle is held once throughout. Ref and the OpenCL device without
 * shares cut their slabs again by their speeds once (CK__TEST_GAS_BALANCE).
 */
static void spread_forces(const ck_device *ref, const ck_device *ocl) {
  ck_device devices[2] = {*ref, ocl ? *ocl : *ref};
  ck_device swapped[2] = {devices[1], devices[0]};
  ck_device four[4] = {devices[0], devices[1], devices[1], devices[0]};
  static const double two_to_one[2] = {2, 1};
  struct {
    const ck_device *devices;
    size_t count;
    const double *shares;
    const char *name;
  } sets[] = {{devices, 1, NULL, "ref alone"},
              {four, 4, NULL, "a grid of 4"},
              {devices, 2, NULL, "ref + OpenCL"},
              {swapped, 2, two_to_one, "OpenCL + ref, 2:1"}};
  size_t set_count = ocl ? 4 : 2;
  for (size_t set = 0; set < set_count; ++set)
    for (int mode = 0; mode < 2; ++mode)
      for (int walls = 0; walls < 2; ++walls) {
        ck_gas_config c;
        ck_gas_config_init(&c);
        c.particles = 200;
        c.temperature = 2.0;
        c.walls = walls;
        c.neighbors = mode ? CK_GAS_VERLET : CK_GAS_CELLS;
        c.skin = 0.2;
        int balance = set == 2; /* devices unlike, no shares */
        CHECK_OK(ck__test_control(CK__TEST_GAS_BALANCE, (size_t)balance));
        ck_gas *gas = make_spread(sets[set].devices, sets[set].count,
                                  sets[set].shares, &c);
        if (!gas)
          continue;
        for (int round = 0; round <= 3; ++round) {
          if (round)
            CHECK_OK(ck_gas_step(gas, 40));
          snapshot s;
          if (!take(gas, &s))
            break;
          char what[160];
          snprintf(what, sizeof what, "spread over %s, %s%s, step %d",
                   sets[set].name, mode_name(c.neighbors),
                   walls ? ", walls" : "", 40 * round);
          check_against_brute(what, &s, 0, 2e-4, 1e-6);
          /* One member holds the whole box, a gas as on one device: no
           * slab, no ghosts, no parts. */
          ck_gas *first = ck__gas_spread_member(ck__gas_spread_of(gas), 0);
          CHECK_MSG(first &&
                        ck__gas_state(first)->member == (sets[set].count > 1),
                    "%s: member 0 is %sa slab", what,
                    first && ck__gas_state(first)->member ? "" : "not ");
          if (mode && sets[set].count > 1)
            check_parts(what, gas);
          uint64_t units[4] = {0, 0, 0, 0}, held = 0;
          size_t members = spread_units(gas, units, 4);
          for (size_t m = 0; m < members && m < 4; ++m)
            held += units[m];
          CHECK_MSG(members == sets[set].count && held == 200,
                    "%s: %zu members hold %llu particles", what, members,
                    (unsigned long long)held);
          snapshot_free(&s);
        }
        /* Cut again once, by the speeds measured from the first rebuild
         * after 8 steps, over 16 (the hook adds 1). */
        CHECK_MSG(ck__test_value(CK__TEST_GAS_BALANCE) == 2 * (size_t)balance,
                  "%s, %s: cut again %zu times", sets[set].name,
                  mode_name(c.neighbors),
                  ck__test_value(CK__TEST_GAS_BALANCE) - (size_t)balance);
        CHECK_OK(ck__test_control(CK__TEST_GAS_BALANCE, 0));
        ck_gas_destroy(gas);
      }
}

/*
 * A spread runs as one device does, to float rounding: positions,
 * velocities, energies and pressure after 30 steps, in both neighbour
 * modes, periodic and between walls, with either thermostat (a
 * particle's Langevin noise is drawn from its id wherever it is held;
 * rescaling scales by the temperature of all members), on one member
 * (ref), on ref and the OpenCL device, and on a grid of 2 x 2 boxes (ref
 * and the OpenCL device twice each, where four slabs do not fit).
 */
static void spread_against_one(const ck_device *ref, const ck_device *ocl) {
  ck_device devices[4] = {*ref, ocl ? *ocl : *ref, ocl ? *ocl : *ref, *ref};
  for (int variant = 0; variant < 18; ++variant) {
    size_t members = variant < 6 ? 1 : variant < 12 ? 4 : 2;
    if (members == 2 && !ocl)
      break;
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 150;
    c.seed = 5;
    c.neighbors = variant % 2 ? CK_GAS_VERLET : CK_GAS_CELLS;
    c.skin = 0.3;
    c.walls = variant % 6 == 2 || variant % 6 == 3;
    if (variant % 6 == 4) {
      c.thermostat = CK_GAS_LANGEVIN;
      c.target_temperature = 1.5;
    } else if (variant % 6 == 5) {
      c.thermostat = CK_GAS_RESCALE;
      c.target_temperature = 0.8;
      c.rescale_every = 10;
    }
    char what[120];
    snprintf(what, sizeof what, "%zu member%s, %s%s%s", members,
             members > 1 ? "s" : "", mode_name(c.neighbors),
             c.walls ? ", walls" : "",
             variant % 6 == 4   ? ", Langevin"
             : variant % 6 == 5 ? ", rescaling"
                                : "");
    ck_gas *alone = make(ref, &c, 0);
    ck_gas *spread = make_spread(devices, members, NULL, &c);
    snapshot a, b;
    int have_a = 0, have_b = 0;
    if (spread && members == 4) {
      ck_result r;
      memset(&r, 0, sizeof r);
      CHECK_OK(ck__gas_spread_report(ck__gas_spread_of(spread), &r));
      CHECK_MSG(r.member_count == 4 && r.members[0].slab_axis == 2,
                "%s: %zu members, axis %d, not a grid of 4 boxes", what,
                r.member_count, r.member_count ? r.members[0].slab_axis : -1);
      ck_result_release(&r);
    }
    if (alone && spread) {
      CHECK_OK(ck_gas_step(alone, 30));
      CHECK_OK(ck_gas_step(spread, 30));
      have_a = take(alone, &a);
      have_b = take(spread, &b);
    }
    if (have_a && have_b) {
      double dx = position_gap(&a, &b), dv = array_gap(a.v, b.v, 2 * a.n);
      printf("%s: positions within %.3g, velocities within %.3g, E %.9f "
             "vs %.9f\n",
             what, dx, dv, a.o.total, b.o.total);
      /* Float and double on one device part by 5e-6 and 6e-5 here. */
      CHECK_MSG(dx <= 1e-4 && dv <= 1e-3,
                "%s: positions differ by %.3g, velocities by %.3g", what, dx,
                dv);
      CHECK_MSG(fabs(a.o.potential - b.o.potential) <= 1e-5 &&
                    fabs(a.o.kinetic - b.o.kinetic) <= 1e-5 &&
                    fabs(a.o.pressure - b.o.pressure) <= 1e-4 &&
                    a.o.step == 30 && b.o.step == 30,
                "%s: potential %.9g vs %.9g, kinetic %.9g vs %.9g, pressure "
                "%.9g vs %.9g",
                what, a.o.potential, b.o.potential, a.o.kinetic, b.o.kinetic,
                a.o.pressure, b.o.pressure);
    }
    if (have_a)
      snapshot_free(&a);
    if (have_b)
      snapshot_free(&b);
    ck_gas_destroy(alone);
    ck_gas_destroy(spread);
  }
}

/* Whether a particle at (x, y) lies in a member's slab, or its box. */
static int member_holds(const ck_spread_member *member, double x, double y) {
  double u = member->slab_axis == 1 ? y : x;
  int inside = u >= member->slab[0] && u < member->slab[1];
  if (member->slab_axis == 2)
    inside = inside && y >= member->slab_y[0] && y < member->slab_y[1];
  return inside;
}

/*
 * Five particles in free flight (none within rc of another) in a box of
 * 20, spread over `count` members for `steps` steps, in both neighbour
 * modes: each ends where x + v t puts it (within `tolerance`: the members
 * step in single precision, as one device does), held by the member of
 * its slab or box (axis: the slabs' or 2, a grid's).
 */
static void spread_free_flight(const char *what, const ck_device *devices,
                               size_t count, int axis, const double x[10],
                               const double v[10], int steps,
                               double tolerance) {
  char path[600];
  test_path_in(work_dir, "crossings.xyz", path, sizeof path);
  CHECK(write_xyz(path, 5, 20, 20, x, v) == 0);
  for (int mode = 0; mode < 2; ++mode) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.neighbors = mode ? CK_GAS_VERLET : CK_GAS_CELLS;
    c.skin = 0.3;
    ck_gas *gas = make_spread(devices, count, NULL, &c);
    if (!gas)
      continue;
    CHECK_OK(ck_gas_step(gas, (uint64_t)steps));
    double at[10], speed[10];
    CHECK_OK(ck_gas_get_particles(gas, at, speed));
    for (size_t k = 0; k < 10; ++k) {
      double expected = x[k] + steps * c.dt * v[k];
      expected -= 20 * floor(expected / 20);
      CHECK_MSG(fabs(at[k] - expected) <= tolerance &&
                    fabs(speed[k] - v[k]) <= 1e-6,
                "%s, %s: particle %zu, coordinate %zu at %.12g (v %g), not "
                "%.12g",
                what, mode_name(c.neighbors), k / 2, k % 2, at[k], speed[k],
                expected);
    }
    /* Each member holds the particles that end in its slab or box. */
    ck_result r;
    memset(&r, 0, sizeof r);
    CHECK_OK(ck__gas_spread_report(ck__gas_spread_of(gas), &r));
    uint64_t held = 0;
    for (size_t m = 0; m < r.member_count; ++m) {
      const ck_spread_member *member = &r.members[m];
      uint64_t inside = 0;
      for (size_t k = 0; k < 5; ++k)
        inside += member_holds(member, at[2 * k], at[2 * k + 1]);
      held += member->units;
      CHECK_MSG(member->slab_axis == axis && member->units == inside,
                "%s, %s: member %zu holds %llu particles; %llu end in its "
                "slab [%g, %g) (and [%g, %g)) along axis %d",
                what, mode_name(c.neighbors), m,
                (unsigned long long)member->units, (unsigned long long)inside,
                member->slab[0], member->slab[1], member->slab_y[0],
                member->slab_y[1], member->slab_axis);
    }
    CHECK_MSG(r.member_count == count && held == 5,
              "%s, %s: %zu members hold %llu particles", what,
              mode_name(c.neighbors), r.member_count, (unsigned long long)held);
    ck_result_release(&r);
    ck_gas_destroy(gas);
  }
}

/*
 * Particles cross slabs both ways, and the periodic edges across x and
 * y. Then a grid of 2 x 2 boxes (4 members, in a box of 20 that four
 * slabs of twice rc + skin do not fit): particles all at one velocity
 * cross its borders along x, along y, both at once through a corner, and
 * the periodic edges.
 */
static void spread_crossings(const ck_device *ref, const ck_device *ocl) {
  static const double x[] = {9.95, 2, 10.05, 6, 19.95, 10, 0.05, 14, 5, 19.95};
  static const double v[] = {1, 0, -1, 0.3, 1, 0, -1, 0, 0, 1};
  static const double grid_x[] = {1,   1,    6,    3.3, 11.2,
                                  7.1, 16.3, 12.4, 3.7, 16.9};
  static const double grid_v[] = {4, 3, 4, 3, 4, 3, 4, 3, 4, 3};
  ck_device devices[4] = {*ref, ocl ? *ocl : *ref, ocl ? *ocl : *ref, *ref};
  spread_free_flight("slabs", devices, ocl ? 2 : 1, 0, x, v, 100, 1e-4);
  spread_free_flight("a grid", devices, 4, 2, grid_x, grid_v, 600, 1e-3);
}

/*
 * NVE over slabs conserves the energy as one device does (energy_drift
 * says how the bound was set): 400 particles on ref and the OpenCL
 * device, 4000 steps after 500 of melting.
 */
static void spread_energy_drift(const ck_device *ref, const ck_device *ocl) {
  ck_device devices[2] = {*ref, ocl ? *ocl : *ref};
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 400;
  ck_gas *gas = make_spread(devices, ocl ? 2 : 1, NULL, &c);
  if (!gas)
    return;
  ck_gas_observables start, o;
  double worst = 0, end = 0;
  drift_of(gas, 8, &start, &o, &worst, &end);
  const double bound = 1e-3;
  printf("NVE drift spread over %zu devices: E %.6f per particle; |E_end - "
         "E_start| / |E| = %.3g, worst %.3g over 4000 steps (bound %.0e); "
         "|P| %.3g\n",
         ocl ? (size_t)2 : (size_t)1, start.total, fabs(end), worst, bound,
         hypot(o.momentum_x, o.momentum_y));
  CHECK_MSG(fabs(end) <= bound && worst <= bound,
            "spread NVE energy drifted by %.3g (worst %.3g) of |E| = %.6f", end,
            worst, fabs(start.total));
  CHECK_MSG(hypot(o.momentum_x, o.momentum_y) <= 1e-3,
            "spread NVE momentum %.3g, %.3g", o.momentum_x, o.momentum_y);
  ck_gas_destroy(gas);
}

/*
 * Checkpoints cross the number of devices: one written spread over ref
 * and the OpenCL device loads on one device and spread over one member,
 * and all three continue alike (to float rounding, grown over 20 steps);
 * one written on one device loads spread.
 */
static void spread_checkpoints(const ck_device *ref, const ck_device *ocl) {
  ck_device devices[4] = {*ref, ocl ? *ocl : *ref, *ref, ocl ? *ocl : *ref};
  char path[600], alone_path[600];
  test_path_in(work_dir, "spread.ckpt", path, sizeof path);
  test_path_in(work_dir, "alone.ckpt", alone_path, sizeof alone_path);
  /* Written by 2 slabs (1 without OpenCL), then by a grid of 4 boxes. */
  for (int mode = 0; mode < 4; ++mode) {
    size_t count = mode >= 2 ? 4 : ocl ? 2 : 1;
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 200;
    c.neighbors = mode % 2 ? CK_GAS_VERLET : CK_GAS_CELLS;
    c.skin = 0.3;
    c.thermostat = mode % 2 ? CK_GAS_LANGEVIN : CK_GAS_NVE;
    c.target_temperature = 1.2;
    ck_spread one = {.devices = devices, .device_count = 1};
    ck_spread both = {.devices = devices, .device_count = ocl ? 2 : 1};
    ck_gas *spread = make_spread(devices, count, NULL, &c);
    ck_gas *loaded = NULL, *respread = NULL;
    if (!spread)
      continue;
    CHECK_OK(ck_gas_step(spread, 40));
    CHECK_OK(ck_gas_save(spread, path));
    CHECK_OK(ck_gas_load(ref, path, &loaded));
    CHECK_OK(ck_gas_load_spread(&one, path, &respread));
    ck_gas *runs[3] = {spread, loaded, respread};
    snapshot s[3];
    int have[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r)
      if (runs[r]) {
        CHECK_OK(ck_gas_step(runs[r], 20));
        have[r] = take(runs[r], &s[r]);
      }
    for (int r = 1; r < 3; ++r) {
      if (!have[0] || !have[r])
        continue;
      double dx = position_gap(&s[0], &s[r]);
      CHECK_MSG(dx <= 1e-3 && s[r].o.step == 60 &&
                    fabs(s[0].o.total - s[r].o.total) <= 1e-4,
                "%s, %zu members: the checkpoint %s continues %.3g away, E "
                "%.9g vs %.9g at step %llu",
                mode_name(c.neighbors), count,
                r == 1 ? "loaded on ref" : "loaded spread", dx, s[r].o.total,
                s[0].o.total, (unsigned long long)s[r].o.step);
    }
    /* And back: one device's checkpoint, spread. */
    ck_gas *back = NULL;
    if (loaded) {
      CHECK_OK(ck_gas_save(loaded, alone_path));
      CHECK_OK(ck_gas_load_spread(&both, alone_path, &back));
    }
    snapshot t;
    if (back && take(back, &t)) {
      if (have[1])
        CHECK_MSG(position_gap(&t, &s[1]) <= 1e-6 &&
                      fabs(t.o.total - s[1].o.total) <= 1e-5,
                  "%s: one device's checkpoint loaded spread is %.3g away",
                  mode_name(c.neighbors), position_gap(&t, &s[1]));
      snapshot_free(&t);
    }
    for (int r = 0; r < 3; ++r) {
      if (have[r])
        snapshot_free(&s[r]);
      ck_gas_destroy(runs[r]);
    }
    ck_gas_destroy(back);
  }
}

/* Counts the program builds begun on a thread (ck__build_watching). */
static void build_begun(void *user, const char *program) {
  (void)program;
  *(size_t *)user += 1;
}

static void build_ended(void *user, const char *program, double seconds,
                        int failed) {
  (void)user, (void)program, (void)seconds, (void)failed;
}

/* A checkpoint loaded over both devices, every program build counted:
 * none comes from the cache, and the members' threads report theirs
 * (test_spread.c's build watch). */
static size_t builds_of_load(ck_spread *both, const char *path,
                             ck_status *status) {
  size_t builds = 0;
  ck_gas *gas = NULL;
  const ck__build_watch watch = {build_begun, build_ended, &builds};
  ck__build_watching = &watch;
  ck__build_from_source = 1;
  *status = ck_gas_load_spread(both, path, &gas);
  ck__build_watching = NULL;
  ck__build_from_source = 0;
  ck_gas_destroy(gas);
  return builds;
}

/* What a spread refuses: all pairs, the soft-log model, a box too small
 * for slabs of twice rc + skin. */
static void spread_refusals(const ck_device *ref, const ck_device *ocl) {
  ck_device devices[2] = {*ref, ocl ? *ocl : *ref};
  ck_spread spread = {.devices = devices, .device_count = 1};
  ck_gas_config c;
  ck_gas *gas = NULL;
  ck_gas_config_init(&c);
  c.neighbors = CK_GAS_ALL_PAIRS;
  expect_failure(ck_gas_create_spread(&spread, &c, &gas), CK_ERROR_UNSUPPORTED,
                 "neighbors", "spread all pairs");
  c.model = CK_GAS_SOFT_LOG;
  expect_failure(ck_gas_create_spread(&spread, &c, &gas), CK_ERROR_UNSUPPORTED,
                 "model", "spread soft-log");
  CHECK(gas == NULL);
  /* A soft-log checkpoint is refused as it loads, naming the file, on
   * one member as on two. */
  char path[600];
  test_path_in(work_dir, "soft-log.ckpt", path, sizeof path);
  c.particles = 400; /* a box that two slabs can cut */
  CHECK_OK(ck_gas_create(ref, &c, &gas));
  if (gas)
    CHECK_OK(ck_gas_save(gas, path));
  ck_gas_destroy(gas);
  gas = NULL;
  for (size_t count = 1; count <= (ocl ? 2u : 1u); ++count) {
    ck_spread some = {.devices = devices, .device_count = count};
    expect_failure(ck_gas_load_spread(&some, path, &gas), CK_ERROR_UNSUPPORTED,
                   "soft-log.ckpt: ck_gas_config.model",
                   "a soft-log checkpoint spread");
    CHECK(gas == NULL);
  }
  if (!ocl)
    return;
  /* Refused before either member's device builds its programs: a box
   * that slabs can cut would build them next. */
  ck_spread both = {.devices = devices, .device_count = 2};
  ck_status status = CK_OK;
  size_t builds = builds_of_load(&both, path, &status);
  CHECK_MSG(status == CK_ERROR_UNSUPPORTED && builds == 0,
            "a soft-log checkpoint spread: status %d, %zu builds", (int)status,
            builds);
  /* 100 particles at 0.7: a box of 12, which two slabs of 2 (4 + 0.3)
   * cannot fit; the message names the members and the box. */
  ck_gas_config_init(&c);
  c.particles = 100;
  c.rc = 4;
  expect_failure(ck_gas_create_spread(&both, &c, &gas),
                 CK_ERROR_INVALID_ARGUMENT,
                 "2 members cannot cut the box (11.9", "slabs too narrow");
  CHECK(gas == NULL);
  /* Four members there: a grid of 2 x 2 boxes of 6 is too narrow too. */
  ck_device four_devices[4] = {devices[0], devices[1], devices[0], devices[1]};
  ck_spread four = {.devices = four_devices, .device_count = 4};
  expect_failure(ck_gas_create_spread(&four, &c, &gas),
                 CK_ERROR_INVALID_ARGUMENT, "4 members cannot cut the box",
                 "boxes too narrow");
  CHECK(gas == NULL);
  /* Five members make no grid of columns and rows at all. */
  ck_device five_devices[5] = {devices[0], devices[1], devices[0], devices[1],
                               devices[0]};
  ck_spread five = {.devices = five_devices, .device_count = 5};
  expect_failure(ck_gas_create_spread(&five, &c, &gas),
                 CK_ERROR_INVALID_ARGUMENT, "they make no grid",
                 "five members, slabs too narrow");
  CHECK(gas == NULL);
  /* A grid takes equal shares alone: its boxes hold as many each. */
  static const double uneven_four[4] = {1, 2, 1, 1};
  ck_spread shared = {.devices = four_devices,
                      .device_count = 4,
                      .shares = uneven_four,
                      .share_count = 4};
  ck_gas_config_init(&c);
  c.particles = 200;
  expect_failure(ck_gas_create_spread(&shared, &c, &gas),
                 CK_ERROR_INVALID_ARGUMENT, "grid of 2 by 2 boxes",
                 "a grid with unequal shares");
  CHECK(gas == NULL);
  /* Shares 1:5 in a box that fits two slabs: the narrow one is widened to
   * twice rc + skin, and the run goes on. */
  static const double shares[2] = {1, 5};
  ck_spread uneven = {.devices = devices,
                      .device_count = 2,
                      .shares = shares,
                      .share_count = 2};
  ck_gas_config_init(&c);
  c.particles = 100;
  CHECK_OK(ck_gas_create_spread(&uneven, &c, &gas));
  uint64_t units[2] = {0, 0};
  if (gas && spread_units(gas, units, 2) == 2)
    CHECK_MSG(units[0] > 100 / 6 && units[1] < 100 * 5 / 6,
              "shares 1:5 in a small box: %llu and %llu particles",
              (unsigned long long)units[0], (unsigned long long)units[1]);
  ck_gas_destroy(gas);
  gas = NULL;
}

static void spread_rdf_over(const ck_device *ref, const ck_device *devices,
                            size_t count) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 300;
  c.neighbors = CK_GAS_VERLET;
  c.skin = 0.3;
  ck_gas *alone = make(ref, &c, 0);
  ck_gas *spread = make_spread(devices, count, NULL, &c);
  if (!alone || !spread) {
    ck_gas_destroy(alone);
    ck_gas_destroy(spread);
    return;
  }
  CHECK_OK(ck_gas_step(alone, 20));
  CHECK_OK(ck_gas_step(spread, 20));
  uint64_t a[50] = {0}, b[50] = {0}, total_a = 0, total_b = 0, off = 0;
  CHECK_OK(ck_gas_accumulate_rdf(alone, 50, c.rc, a));
  CHECK_OK(ck_gas_accumulate_rdf(spread, 50, c.rc, b));
  for (int k = 0; k < 50; ++k) {
    total_a += a[k];
    total_b += b[k];
    off += a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
  }
  printf("RDF spread over %zu: %llu pairs, %llu alone; %llu binned apart\n",
         count, (unsigned long long)total_b, (unsigned long long)total_a,
         (unsigned long long)off);
  CHECK_MSG(total_a > 1000 && off <= 4,
            "RDF spread over %zu: %llu pairs vs %llu, %llu apart", count,
            (unsigned long long)total_b, (unsigned long long)total_a,
            (unsigned long long)off);
  uint64_t wide[4] = {0};
  expect_failure(ck_gas_accumulate_rdf(spread, 4, 1.01 * c.rc, wide),
                 CK_ERROR_INVALID_ARGUMENT, "spread over devices",
                 "a spread RDF past rc");
  ck_gas_destroy(alone);
  ck_gas_destroy(spread);
}

/* The spread halves of the RDF: the pairs a spread bins are those one
 * device bins, to a few at bin edges; over slabs, and over a grid of 2 x
 * 2 boxes (4 members, where four slabs do not fit). */
static void spread_rdf(const ck_device *ref, const ck_device *ocl) {
  ck_device devices[4] = {*ref, ocl ? *ocl : *ref, ocl ? *ocl : *ref, *ref};
  for (int grid = 0; grid < 2; ++grid)
    spread_rdf_over(ref, devices, grid ? 4 : ocl ? 2 : 1);
}

/*
 * The workload spread over ref and the OpenCL device: every output
 * written, the members in the result, the averages of one device's run,
 * and a restart from its checkpoint spread over one member.
 */
static void spread_workload(const ck_device *ref, const ck_device *ocl) {
  const ck_workload *w = NULL;
  CHECK_OK(ck_workload_find("gas", &w));
  ck_result *result = calloc(2, sizeof *result);
  if (!w || !result) {
    free(result);
    return;
  }
  ck_device devices[2] = {*ref, ocl ? *ocl : *ref};
  size_t count = ocl ? 2 : 1;
  char files[5][600];
  const char *names[5] = {"sw.rdf", "sw.xyz", "sw.csv", "sw.ckpt", "sw.png"};
  for (int f = 0; f < 5; ++f) {
    test_path_in(work_dir, names[f], files[f], sizeof files[f]);
    remove(files[f]);
  }
  ck_param params[] = {
      {"particles", "200"},        {"steps", "60"},      {"log-every", "20"},
      {"neighbors", "verlet:0.3"}, {"rdf", files[0]},    {"rdf-every", "20"},
      {"traj", files[1]},          {"traj-every", "30"}, {"thermo", files[2]},
      {"checkpoint", files[3]},    {"png", files[4]},    {"png-size", "64"}};
  size_t n = sizeof params / sizeof *params;
  ck_spread spread = {.devices = devices, .device_count = count};
  ck_run_options options = {.seed = 2, .spread = &spread};
  CHECK_OK(test_workload_run(w, ref, params, n, &options, &result[0]));
  ck_run_options alone = {.seed = 2};
  CHECK_OK(test_workload_run(w, ref, params, n, &alone, &result[1]));
  uint64_t held = 0;
  for (size_t m = 0; m < result[0].member_count; ++m)
    held += result[0].members[m].units;
  CHECK_MSG(result[0].member_count == count && held == 200 &&
                strcmp(result[0].member_units, "particles") == 0,
            "the spread workload reports %zu members holding %llu %s",
            result[0].member_count, (unsigned long long)held,
            result[0].member_units);
  double spread_e = NAN, alone_e = NAN;
  CHECK_OK(ck_result_get_metric(&result[0], "total_energy", &spread_e));
  CHECK_OK(ck_result_get_metric(&result[1], "total_energy", &alone_e));
  CHECK_MSG(fabs(spread_e - alone_e) <= 1e-4,
            "the spread workload's energy %.9g, one device's %.9g", spread_e,
            alone_e);
  for (int f = 0; f < 5; ++f) {
    size_t size = 0;
    char *bytes = test_read_file(files[f], &size);
    CHECK_MSG(bytes && size > 0, "the spread workload wrote no %s", names[f]);
    free(bytes);
  }
  ck_spread one = {.devices = devices, .device_count = 1};
  ck_run_options restart = {.seed = 1, .spread = &one};
  ck_param more[] = {
      {"restart", files[3]}, {"steps", "10"}, {"log-every", "0"}};
  CHECK_OK(test_workload_run(w, ref, more, 3, &restart, &result[0]));
  double final_step = 0;
  CHECK_OK(ck_result_get_metric(&result[0], "final_step", &final_step));
  CHECK_MSG(final_step == 70 && result[0].member_count == 1,
            "a spread restart ends at step %g over %zu members", final_step,
            result[0].member_count);
  test_results_release(result, 2);
  free(result);
}

/* Writes the XYZ file of a dense cluster (10 x 10 at the spacing of
 * LJ's minimum) moving along x (at 1.5, and along y at vy) through a
 * dilute gas, in a 40 x 40 box, to `name` in the work folder; its path in
 * path (600 bytes). */
static void write_cluster(const char *name, double vy, char *path) {
  enum { CLUSTER = 100, DILUTE = 64, N = CLUSTER + DILUTE };
  double x[2 * N], v[2 * N];
  for (size_t k = 0; k < CLUSTER; ++k) {
    x[2 * k] = 14 + 1.12 * (double)(k % 10);
    x[2 * k + 1] = 14 + 1.12 * (double)(k / 10);
    v[2 * k] = 1.5;
    v[2 * k + 1] = vy;
  }
  for (size_t k = 0; k < DILUTE; ++k) {
    size_t at = 2 * (CLUSTER + k);
    x[at] = 2.5 * (double)(k % 8) + (k % 8 >= 4 ? 20 : 0) + 1;
    x[at + 1] = 5 * (double)(k / 8) + 1.3;
    v[at] = k % 2 ? 0.5 : -0.5;
    v[at + 1] = k % 3 ? 0.4 : -0.4;
  }
  test_path_in(work_dir, name, path, 600);
  CHECK(write_xyz(path, N, 40, 40, x, v) == 0);
}

/*
 * A dense cluster (10 x 10 at the spacing of LJ's minimum) that moves
 * across a border through a dilute gas, in both modes: the members pass
 * it on whole (their census finds every id at every observation), and
 * the energy and momentum are one device's. Then over a grid of 4 x 2
 * boxes (8 members, which slabs do not fit), the cluster moving across a
 * corner, each member's outbox starting at 4 entries a side and its
 * slots 4 past its particles (CK__TEST_GAS_ROOM): outboxes, inboxes
 * and members grow as it comes, in both stages, and the run stays one
 * device's.
 */
static void spread_cluster(const ck_device *ref, const ck_device *ocl) {
  char path[600];
  ck_device devices[8];
  for (size_t k = 0; k < 8; ++k)
    devices[k] = k % 2 && ocl ? *ocl : *ref;
  for (int run = 0; run < 4; ++run) {
    int mode = run % 2, grid = run >= 2;
    write_cluster("cluster.xyz", grid ? 1.5 : 0, path);
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.neighbors = mode ? CK_GAS_VERLET : CK_GAS_CELLS;
    ck_gas *alone = make(ref, &c, 0);
    CHECK_OK(ck__test_control(CK__TEST_GAS_ROOM, grid ? 4 : 0));
    ck_gas *gas = make_spread(devices, grid ? 8 : ocl ? 2 : 1, NULL, &c);
    CHECK_OK(ck__test_control(CK__TEST_GAS_ROOM, 0));
    if (!alone || !gas) {
      ck_gas_destroy(alone);
      ck_gas_destroy(gas);
      continue;
    }
    for (int part = 0; part < 6; ++part) {
      ck_gas_observables a, b;
      CHECK_OK(ck_gas_step(alone, 100));
      CHECK_OK(ck_gas_step(gas, 100));
      CHECK_OK(ck_gas_observe(alone, &a));
      CHECK_OK(ck_gas_observe(gas, &b));
      CHECK_MSG(fabs(a.total - b.total) <= 1e-3 * fabs(a.total) &&
                    fabs(a.momentum_x - b.momentum_x) <= 1e-2 &&
                    fabs(a.momentum_y - b.momentum_y) <= 1e-2,
                "%s cluster%s, step %llu: E %.9g spread, %.9g alone; P (%g, "
                "%g) and (%g, %g)",
                mode_name(c.neighbors), grid ? " on a grid" : "",
                (unsigned long long)b.step, b.total, a.total, b.momentum_x,
                b.momentum_y, a.momentum_x, a.momentum_y);
    }
    ck_gas_destroy(alone);
    ck_gas_destroy(gas);
  }
}

/*
 * Resident steps (ref's members copying through the runtime's switch for
 * tests, as CUDA members pull): the dense cluster of spread_cluster
 * crossing a border, each member's outbox sized by the test's knob
 * (CK__TEST_GAS_ROOM) to a few entries past the most a region last
 * held. With 24 to spare the outboxes are made again as the cluster
 * comes, the run is one device's and every id survives (the census of
 * each observation); with 1 to spare an outbox overflows in a step, and
 * the run is refused with a message, never continued with a particle
 * left behind.
 */
/*
 * A resident pull's segments (ck_gas_pull_firsts): each neighbour's
 * count at the parity, held to the room of its outbox and, for leavers,
 * to the entries that crossed (NCCL sends only the first so many of a
 * leavers region). Leavers past those are flagged, never taken.
 */
static void pull_firsts(void) {
  static const struct {
    uint32_t capacity[2], leavers[2];
    uint32_t first[5], flags;
  } rows[] = {
      {{10, 10}, {10, 10}, {0, 5, 8, 15, 17}, 0},
      {{10, 10}, {4, 10}, {0, 4, 7, 14, 16}, CK_GAS_OVERFLOW_CROSSED},
      {{10, 10}, {10, 2}, {0, 5, 7, 14, 16}, CK_GAS_OVERFLOW_CROSSED},
      {{10, 10}, {5, 3}, {0, 5, 8, 15, 17}, 0},
      /* Ghosts past the room are the sender's overflow, not this flag. */
      {{6, 10}, {6, 10}, {0, 5, 8, 14, 16}, 0},
  };
  uint32_t previous[CK_GAS_CONTROL_WORDS] = {0},
           next[CK_GAS_CONTROL_WORDS] = {0};
  int parity = 1;
  /* Segments: the previous member's leavers (its region 1), the next's
   * (region 0), then their ghosts (regions 3 and 2). */
  previous[ck_gas_control_count(parity, 1)] = 5;
  next[ck_gas_control_count(parity, 0)] = 3;
  previous[ck_gas_control_count(parity, 3)] = 7;
  next[ck_gas_control_count(parity, 2)] = 2;
  /* The other parity's counts are not read. */
  previous[ck_gas_control_count(0, 1)] = 99;
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
    uint32_t first[5];
    uint32_t flags = ck_gas_pull_firsts(
        previous, rows[r].capacity[0], rows[r].leavers[0], next,
        rows[r].capacity[1], rows[r].leavers[1], parity, first);
    CHECK_MSG(flags == rows[r].flags &&
                  memcmp(first, rows[r].first, sizeof first) == 0,
              "pull firsts, row %zu: %u %u %u %u %u, flags %u", r, first[0],
              first[1], first[2], first[3], first[4], flags);
  }
}

static void spread_resident_room(const ck_device *ref) {
  char path[600];
  write_cluster("resident_cluster.xyz", 0, path);
  ck_device pair[2] = {*ref, *ref};
  static const double equal[2] = {1, 1};
  for (int spare = 24; spare >= 1; spare -= 23) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    ck_gas *alone = make(ref, &c, 0);
    CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 1));
    CHECK_OK(ck__test_control(CK__TEST_GAS_ROOM, (uint32_t)spare));
    ck_gas *gas = make_spread(pair, 2, equal, &c);
    CHECK_OK(ck__test_control(CK__TEST_GAS_ROOM, 0));
    CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
    if (!alone || !gas) {
      ck_gas_destroy(alone);
      ck_gas_destroy(gas);
      continue;
    }
    ck__gas_spread *spread = ck__gas_spread_of(gas);
    uint32_t least = UINT32_MAX, most = 0;
    ck_status failed = CK_OK;
    for (int part = 0; part < 6 && failed == CK_OK; ++part) {
      ck_gas_observables a, b;
      CHECK_OK(ck_gas_step(alone, 100));
      failed = ck_gas_step(gas, 100);
      for (size_t i = 0; i < 2; ++i) {
        uint32_t room =
            ck__gas_state(ck__gas_spread_member(spread, i))->message_capacity;
        least = room < least ? room : least;
        most = room > most ? room : most;
      }
      if (failed != CK_OK)
        break;
      CHECK_OK(ck_gas_observe(alone, &a));
      CHECK_OK(ck_gas_observe(gas, &b)); /* the census */
      CHECK_MSG(fabs(a.total - b.total) <= 1e-3 * fabs(a.total) &&
                    fabs(a.momentum_x - b.momentum_x) <= 1e-2,
                "resident cluster, %d to spare, step %llu: E %.9g spread, "
                "%.9g alone",
                spare, (unsigned long long)b.step, b.total, a.total);
    }
    if (spare > 1) {
      CHECK_OK(failed);
      CHECK_MSG(ck__gas_spread_resident_steps(spread) == 600 && most > least,
                "resident cluster: %llu resident steps, outboxes of %u to %u",
                (unsigned long long)ck__gas_spread_resident_steps(spread),
                least, most);
      printf("resident cluster, %d to spare: outboxes of %u to %u entries\n",
             spare, least, most);
    } else {
      expect_failure(failed, CK_ERROR_DEVICE, "outbox holds",
                     "a resident outbox overflowed");
    }
    ck_gas_destroy(alone);
    ck_gas_destroy(gas);
  }
}

/* A particle that crosses two borders between exchanges (a time step far
 * too large for its speed) is refused with a message, never lost. */
static void spread_two_borders(const ck_device *ref, const ck_device *ocl) {
  static const double x[] = {5, 5, 15, 15, 30, 15};
  static const double v[] = {9000, 0, 0, 0, 0, 0};
  char path[600];
  test_path_in(work_dir, "fast.xyz", path, sizeof path);
  CHECK(write_xyz(path, 3, 40, 20, x, v) == 0);
  ck_device devices[2] = {*ref, ocl ? *ocl : *ref};
  for (int mode = 0; ocl && mode < 2; ++mode) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.neighbors = mode ? CK_GAS_VERLET : CK_GAS_CELLS;
    ck_gas *gas = make_spread(devices, 2, NULL, &c);
    if (!gas)
      continue;
    expect_failure(ck_gas_step(gas, 2), CK_ERROR_MISMATCH,
                   "crossed more than one slab", "a particle past two borders");
    ck_gas_destroy(gas);
  }
}

/* A spread of one member is the gas on that device: the whole box and
 * the same steps, bit for bit, with cells, Verlet lists and `auto` (one
 * device's choice), under a Langevin thermostat and with rescaling. */
/* A gas on one device is a spread of one member, made or loaded: its
 * member holds every particle, and a checkpoint loaded steps on as the
 * gas saved does, bit for bit. */
static void check_alone_is_member(const ck_device *device, ck_gas *alone,
                                  size_t particles) {
  ck__gas_spread *of = ck__gas_spread_of(alone);
  ck_gas *member = ck__gas_alone(alone);
  uint64_t units[2] = {0, 0};
  CHECK_MSG(of && member != alone && ck__gas_spread_whole(of) == member &&
                ck__gas_state(alone) == &member->state &&
                spread_units(alone, units, 2) == 1 && units[0] == particles,
            "a gas on %s is not a spread of one member that holds its %zu "
            "particles",
            device->id, particles);
  char path[600];
  test_path_in(work_dir, "alone.ckpt", path, sizeof path);
  ck_gas *loaded = NULL;
  CHECK_OK(ck_gas_save(alone, path));
  CHECK_OK(ck_gas_load(device, path, &loaded));
  snapshot runs[2];
  memset(runs, 0, sizeof runs);
  int taken = 0;
  if (loaded) {
    CHECK_MSG(ck__gas_spread_of(loaded) &&
                  ck__gas_spread_whole(ck__gas_spread_of(loaded)) ==
                      ck__gas_alone(loaded),
              "a gas loaded on %s is not a spread of one member", device->id);
    CHECK_OK(ck_gas_step(alone, 9));
    CHECK_OK(ck_gas_step(loaded, 9));
    taken = take(alone, &runs[0]) + take(loaded, &runs[1]);
  }
  size_t bytes = 2 * particles * sizeof(double);
  CHECK_MSG(taken == 2 && memcmp(runs[0].x, runs[1].x, bytes) == 0 &&
                memcmp(runs[0].v, runs[1].v, bytes) == 0 &&
                runs[0].o.step == runs[1].o.step,
            "a gas loaded on %s did not step on as the gas saved", device->id);
  snapshot_free(&runs[0]);
  snapshot_free(&runs[1]);
  ck_gas_destroy(loaded);
}

static void spread_of_one(const ck_device *ref, const ck_device *ocl) {
  const ck_device *devices[2] = {ref, ocl};
  for (int d = 0; d < (ocl ? 2 : 1); ++d)
    for (int mode = 0; mode < 4; ++mode) {
      ck_gas_config c;
      ck_gas_config_init(&c);
      c.particles = 300;
      c.seed = 7;
      c.neighbors = mode == 0   ? CK_GAS_CELLS
                    : mode == 1 ? CK_GAS_VERLET
                                : CK_GAS_NEIGHBORS_AUTO;
      c.thermostat = mode == 3 ? CK_GAS_RESCALE : CK_GAS_LANGEVIN;
      c.target_temperature = 1.2;
      c.rescale_every = 7;
      ck_gas *alone = NULL;
      CHECK_OK(ck_gas_create(devices[d], &c, &alone));
      ck_gas *spread = make_spread(devices[d], 1, NULL, &c);
      snapshot runs[2];
      memset(runs, 0, sizeof runs);
      int taken = 0;
      if (alone && spread) {
        CHECK_OK(ck_gas_step(alone, 25));
        CHECK_OK(ck_gas_step(alone, 35));
        CHECK_OK(ck_gas_step(spread, 25));
        CHECK_OK(ck_gas_step(spread, 35));
        taken = take(alone, &runs[0]) + take(spread, &runs[1]);
      }
      size_t bytes = 2 * c.particles * sizeof(double);
      CHECK_MSG(taken == 2 && memcmp(runs[0].x, runs[1].x, bytes) == 0 &&
                    memcmp(runs[0].v, runs[1].v, bytes) == 0 &&
                    memcmp(runs[0].f, runs[1].f, bytes) == 0 &&
                    runs[0].o.potential == runs[1].o.potential &&
                    runs[0].o.pressure == runs[1].o.pressure &&
                    runs[1].o.step == 60 &&
                    runs[0].config.neighbors == runs[1].config.neighbors,
                "spread of one on %s, mode %d: not the gas on one device",
                devices[d]->id, mode);
      if (taken == 2)
        printf("spread of one on %s, mode %d: U %.9f, as one device\n",
               devices[d]->id, mode, runs[1].o.potential);
      if (alone)
        check_alone_is_member(devices[d], alone, c.particles);
      snapshot_free(&runs[0]);
      snapshot_free(&runs[1]);
      ck_gas_destroy(alone);
      ck_gas_destroy(spread);
    }
}

/* A spread's Verlet forces take the next step's first half-step within a
 * call, on devices with lists (strips off): a call of 40 steps ends
 * where 40 calls of one step, which never take it, end, bit for bit. */
static void spread_ahead(const ck_device *ocl) {
  if (!ocl)
    return;
  ck_device pair[2] = {*ocl, *ocl};
  ck_spread spread = {.devices = pair, .device_count = 2};
  ck__gas_forms forms = CK__GAS_FORMS_BY_DEVICE;
  forms.strips = 0;
  for (int rescale = 0; rescale < 2; ++rescale) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 900;
    c.temperature = 1.4; /* rebuilds within the 40 steps */
    c.neighbors = CK_GAS_VERLET;
    c.skin = 0.2;
    if (rescale) {
      c.thermostat = CK_GAS_RESCALE;
      c.target_temperature = 1.0;
      c.rescale_every = 6;
    }
    ck_gas *gases[2] = {NULL, NULL};
    snapshot runs[2];
    memset(runs, 0, sizeof runs);
    int taken = 0;
    for (int g = 0; g < 2; ++g)
      CHECK_OK(ck__gas_create_spread_tuned(&spread, &c, forms, 0, &gases[g]));
    if (gases[0] && gases[1]) {
      CHECK_OK(ck_gas_step(gases[0], 40));
      for (int k = 0; k < 40; ++k)
        CHECK_OK(ck_gas_step(gases[1], 1));
      taken = take(gases[0], &runs[0]) + take(gases[1], &runs[1]);
    }
    /* Each step that took the half-step turned its member's parity: 39
     * of the 40 (the last does not), 33 with a rescale every 6 (steps 6,
     * 12, .., 36 do not either). */
    int turned = -1, kept = -1;
    if (taken == 2) {
      turned = (int)ck__gas_state(ck__gas_spread_member(
                   ck__gas_spread_of(gases[0]), 0))->rebuild_parity;
      kept = (int)ck__gas_state(ck__gas_spread_member(
                 ck__gas_spread_of(gases[1]), 0))->rebuild_parity;
    }
    size_t bytes = 2 * c.particles * sizeof(double);
    CHECK_MSG(taken == 2 && memcmp(runs[0].x, runs[1].x, bytes) == 0 &&
                  memcmp(runs[0].v, runs[1].v, bytes) == 0 &&
                  memcmp(runs[0].f, runs[1].f, bytes) == 0 &&
                  runs[0].o.potential == runs[1].o.potential &&
                  kept == 0 && turned == 1,
              "a spread's steps ahead%s: not the steps one at a time "
              "(parity %d and %d)",
              rescale ? " with rescaling" : "", turned, kept);
    snapshot_free(&runs[0]);
    snapshot_free(&runs[1]);
    ck_gas_destroy(gases[0]);
    ck_gas_destroy(gases[1]);
  }
}

/* The members' census finds an id doubled (a particle given another's
 * id) at the next observation. */
static void spread_census(const ck_device *ref) {
  ck_gas_config c;
  ck_gas_config_init(&c);
  c.particles = 400;
  ck_device pair[2] = {*ref, *ref};
  ck_gas *gas = make_spread(pair, 2, NULL, &c);
  if (!gas)
    return;
  ck_gas_observables o;
  CHECK_OK(ck_gas_observe(gas, &o));
  ck_gas *member = ck__gas_spread_member(ck__gas_spread_of(gas), 0);
  uint32_t *id = NULL;
  CHECK_OK(ck_buffer_get_host_pointer(ck__gas_state(member)->id, (void **)&id));
  size_t slots = ck__gas_state(member)->particles, first = slots;
  for (size_t k = 0; id && k < slots; ++k)
    if (ck_gas_own(id[k]) && first == slots) {
      first = k;
    } else if (ck_gas_own(id[k])) {
      id[first] = id[k];
      break;
    }
  expect_failure(ck_gas_observe(gas, &o), CK_ERROR_MISMATCH, "lost or doubled",
                 "a doubled id");
  ck_gas_destroy(gas);
}

/* How many particles end in another member's slab than they started in
 * (slabs as a result reports them). */
static size_t slab_changes(ck_gas *gas, const double *start, const double *end,
                           size_t n) {
  ck_result r;
  size_t changed = 0;
  memset(&r, 0, sizeof r);
  CHECK_OK(ck__gas_spread_report(ck__gas_spread_of(gas), &r));
  for (size_t k = 0; k < n; ++k)
    for (size_t m = 0; m < r.member_count; ++m) {
      const ck_spread_member *member = &r.members[m];
      int axis = member->slab_axis;
      double a = start[2 * k + (size_t)axis], b = end[2 * k + (size_t)axis];
      int was = a >= member->slab[0] && a < member->slab[1];
      int is = b >= member->slab[0] && b < member->slab[1];
      changed += was && !is;
    }
  ck_result_release(&r);
  return changed;
}

/*
 * What crosses between members goes either through the exchange's host
 * buffers or, with cell lists, by ck__peer_copy where members can copy
 * (on ref through the runtime's switch for tests, as CUDA members do):
 * every step's leavers and ghosts, as each member's step out packed
 * them. Verlet lists go through the host either way; with copies, their
 * ghosts' positions are written on a queue beside each member's own
 * (from one particle a member: CK__TEST_GAS_ASIDE_FROM). The two runs agree
 * bit for bit, and count the same bytes sent, but for the counts that
 * head each cells-mode message through the host (two messages a member
 * at each step and at the start). Device to device, cells mode's steps
 * are resident: the counts stay on the devices, and every step but the
 * start's is counted as resident. Two members
 * on ref, periodic and between walls, 150 steps of a hot gas; and three
 * members, 400 steps of a hotter one, with a census every 50 steps, where some
 * fifty particles end in another slab. Both neighbour modes.
 */
static void spread_copies(const ck_device *ref) {
  ck_device trio[3] = {*ref, *ref, *ref};
  static const double equal[3] = {1, 1, 1};
  for (int run = 0; run < 6; ++run) {
    int variant = run % 3, cells = run >= 3;
    size_t members = variant < 2 ? 2 : 3;
    int steps = variant == 2 ? 400 : 150;
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.particles = 600;
    c.temperature = variant == 2 ? 3.0 : 2.0;
    c.neighbors = cells ? CK_GAS_CELLS : CK_GAS_VERLET;
    c.skin = cells ? c.skin : 0.3;
    c.seed = 11;
    c.walls = variant == 1;
    snapshot runs[2];
    uint64_t sent[2][3] = {{0, 0, 0}, {0, 0, 0}};
    size_t changed[2] = {0, 0};
    int taken = 0;
    for (int copies = 0; copies < 2; ++copies) {
      CHECK_OK(ck__test_control(CK__TEST_PEER_REF, copies));
      CHECK_OK(ck__test_control(CK__TEST_GAS_ASIDE_FROM, copies));
      ck_gas *gas = make_spread(trio, members, equal, &c);
      CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
      CHECK_OK(ck__test_control(CK__TEST_GAS_ASIDE_FROM, 0));
      if (!gas)
        break;
      int on_devices = ck__gas_spread_on_devices(ck__gas_spread_of(gas));
      CHECK_MSG(on_devices == (copies && cells),
                "variant %d, cells %d: copies %d, on devices %d", variant,
                cells, copies, on_devices);
      double *start = calloc(2 * c.particles, sizeof *start);
      double *end = calloc(2 * c.particles, sizeof *end);
      CHECK(start && end);
      if (start && end)
        CHECK_OK(ck_gas_get_particles(gas, start, NULL));
      for (int done = 0; done < steps; done += 50) {
        ck_gas_observables o;
        CHECK_OK(ck_gas_step(gas, steps - done < 50 ? steps - done : 50));
        CHECK_OK(ck_gas_observe(gas, &o)); /* the census */
      }
      if (start && end) {
        CHECK_OK(ck_gas_get_particles(gas, end, NULL));
        changed[copies] = slab_changes(gas, start, end, c.particles);
      }
      /* Cells mode device to device is resident: every step. */
      uint64_t resident = ck__gas_spread_resident_steps(ck__gas_spread_of(gas));
      CHECK_MSG(resident == (copies && cells ? (uint64_t)steps : 0),
                "variant %d, cells %d, copies %d: %llu resident steps of %d",
                variant, cells, copies, (unsigned long long)resident, steps);
      free(start);
      free(end);
      ck_result r;
      memset(&r, 0, sizeof r);
      CHECK_OK(ck__gas_spread_report(ck__gas_spread_of(gas), &r));
      for (size_t m = 0; m < r.member_count && m < 3; ++m)
        sent[copies][m] = r.members[m].bytes_sent;
      ck_result_release(&r);
      taken += take(gas, &runs[copies]);
      ck_gas_destroy(gas);
    }
    if (taken < 2) {
      if (taken)
        snapshot_free(&runs[0]);
      continue;
    }
    size_t bytes = 2 * c.particles * sizeof(double);
    CHECK_MSG(memcmp(runs[0].x, runs[1].x, bytes) == 0 &&
                  memcmp(runs[0].v, runs[1].v, bytes) == 0 &&
                  memcmp(runs[0].f, runs[1].f, bytes) == 0,
              "variant %d, cells %d: particles differ between the host's "
              "buffers and copies between members",
              variant, cells);
    CHECK_MSG(runs[0].o.potential == runs[1].o.potential &&
                  runs[0].o.kinetic == runs[1].o.kinetic &&
                  runs[0].o.pressure == runs[1].o.pressure &&
                  runs[1].o.step == (uint64_t)steps,
              "variant %d, cells %d: potential %.17g and %.17g", variant, cells,
              runs[0].o.potential, runs[1].o.potential);
    /* Two 8-byte heads a member a step: resident steps send none. The
     * first step, at the start, goes through the host either way. */
    uint64_t heads = cells ? 2 * 8 * (uint64_t)steps : 0;
    int alike = sent[1][0] > 0;
    for (size_t m = 0; m < 3; ++m)
      alike &= sent[0][m] == (m < members ? sent[1][m] + heads : 0);
    CHECK_MSG(alike,
              "variant %d, cells %d: bytes sent %llu, %llu, %llu and %llu, "
              "%llu, %llu",
              variant, cells, (unsigned long long)sent[0][0],
              (unsigned long long)sent[0][1], (unsigned long long)sent[0][2],
              (unsigned long long)sent[1][0], (unsigned long long)sent[1][1],
              (unsigned long long)sent[1][2]);
    CHECK_MSG(changed[0] == changed[1] &&
                  (variant == 2 ? changed[1] >= 40 : changed[1] > 0),
              "variant %d, cells %d: %zu and %zu particles changed slabs",
              variant, cells, changed[0], changed[1]);
    printf("spread copies, variant %d, cells %d: U %.9f alike; %llu bytes "
           "sent; %zu particles changed slabs\n",
           variant, cells, runs[1].o.potential, (unsigned long long)sent[1][0],
           changed[1]);
    snapshot_free(&runs[0]);
    snapshot_free(&runs[1]);
  }
}

/* On ref alone, three members: a particle that crosses two slabs between
 * rebuilds (Verlet lists) or in a step (cell lists) is refused where it
 * arrives, by the device's check, its message through the host (Verlet
 * lists either way) or device to device, naming it. */
static void spread_two_slabs(const ck_device *ref) {
  static const double x[] = {5, 5, 25, 15, 45, 15};
  static const double v[] = {9000, 0, 0, 0, 0, 0};
  char path[600];
  test_path_in(work_dir, "two_slabs.xyz", path, sizeof path);
  CHECK(write_xyz(path, 3, 60, 20, x, v) == 0);
  ck_device trio[3] = {*ref, *ref, *ref};
  static const double equal[3] = {1, 1, 1};
  for (int variant = 0; variant < 4; ++variant) {
    ck_gas_config c;
    ck_gas_config_init(&c);
    c.xyz_path = path;
    c.neighbors = variant < 2 ? CK_GAS_VERLET : CK_GAS_CELLS;
    CHECK_OK(ck__test_control(CK__TEST_PEER_REF, variant % 2));
    ck_gas *gas = make_spread(trio, 3, equal, &c);
    CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
    if (!gas)
      continue;
    CHECK(ck__gas_spread_on_devices(ck__gas_spread_of(gas)) == variant / 3);
    char what[80];
    snprintf(what, sizeof what, "two slabs at once, variant %d", variant);
    expect_failure(ck_gas_step(gas, 1), CK_ERROR_MISMATCH,
                   "particle 0 reached slab 1 of 3 at 50", what);
    /* Cells mode device to device found it in a resident step. */
    CHECK(ck__gas_spread_resident_steps(ck__gas_spread_of(gas)) ==
          (variant == 3 ? 1u : 0u));
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "crossed more than one slab") != NULL,
              "%s: the message \"%s\" says no more", what, message);
    ck_gas_destroy(gas);
  }
}

/* Shares cut the box so that each slab holds its share of the particles,
 * as ck__spread_apportion deals them, either way round: 40 particles at
 * 40 distinct x in a 40 x 10 box. At 20 x of two particles each, a pair
 * stays in one slab: a share of 13 (or 27) takes the lower of 12 and 14
 * (26 and 28). */
static void spread_shares(const ck_device *ref) {
  enum { N = 40 };
  static const struct {
    int paired; /* two particles at each x */
    size_t members;
    double shares[3];
    uint64_t units[3];
  } cases[] = {
      {0, 2, {1, 3}, {10, 30}},        {0, 2, {3, 1}, {30, 10}},
      {0, 2, {1, 2}, {13, 27}},        {0, 2, {2, 1}, {27, 13}},
      {0, 3, {1, 2, 1}, {10, 20, 10}}, {0, 3, {2, 1, 1}, {20, 10, 10}},
      {0, 3, {1, 1, 2}, {10, 10, 20}}, {0, 3, {1, 1, 1}, {14, 13, 13}},
      {1, 2, {1, 3}, {10, 30}},        {1, 2, {1, 2}, {12, 28}},
      {1, 2, {2, 1}, {26, 14}},
  };
  char paths[2][600];
  for (int paired = 0; paired < 2; ++paired) {
    double x[2 * N];
    for (int k = 0; k < N; ++k) {
      x[2 * k] = paired ? 1 + 2 * (k / 2) : 0.5 + k;
      x[2 * k + 1] = paired ? 2.5 + 5 * (k % 2) : 1 + 2 * (k % 5);
    }
    test_path_in(work_dir, paired ? "paired.xyz" : "distinct.xyz",
                 paths[paired], sizeof paths[paired]);
    CHECK(write_xyz(paths[paired], N, 40, 10, x, NULL) == 0);
  }
  ck_device trio[3] = {*ref, *ref, *ref};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ck_gas_config config;
    ck_gas_config_init(&config);
    config.xyz_path = paths[cases[c].paired];
    ck_gas *gas = make_spread(trio, cases[c].members, cases[c].shares, &config);
    uint64_t units[3] = {0, 0, 0};
    if (!gas || spread_units(gas, units, 3) != cases[c].members) {
      CHECK_MSG(0, "case %zu: no spread of %zu members", c, cases[c].members);
      ck_gas_destroy(gas);
      continue;
    }
    for (size_t m = 0; m < cases[c].members; ++m)
      CHECK_MSG(units[m] == cases[c].units[m],
                "case %zu (%zu members%s): member %zu, share %g, holds %llu "
                "particles, not %llu",
                c, cases[c].members, cases[c].paired ? ", pairs" : "", m,
                cases[c].shares[m], (unsigned long long)units[m],
                (unsigned long long)cases[c].units[m]);
    ck_gas_destroy(gas);
  }
}

static void spread_gas(const ck_device *ref, const ck_device *ocl) {
  spread_shares(ref);
  spread_copies(ref);
  pull_firsts();
  spread_resident_room(ref);
  spread_two_slabs(ref);
  spread_census(ref);
  spread_of_one(ref, ocl);
  spread_ahead(ocl);
  spread_cluster(ref, ocl);
  spread_two_borders(ref, ocl);
  spread_forces(ref, ocl);
  spread_against_one(ref, ocl);
  spread_crossings(ref, ocl);
  spread_energy_drift(ref, ocl);
  spread_checkpoints(ref, ocl);
  spread_refusals(ref, ocl);
  spread_rdf(ref, ocl);
  spread_workload(ref, ocl);
}

/* ck_gas_config_read reads the command's options into a configuration:
 * the command's words and messages, and only the system's options. */
static void config_read(void) {
  ck_gas_config config, defaults;
  ck_gas_config_init(&defaults);
  CHECK_OK(ck_gas_config_read(NULL, 0, &config));
  CHECK(memcmp(&config, &defaults, sizeof config) == 0);
  const ck_param params[] = {{"particles", "64"},
                             {"box", "12x10"},
                             {"T", "0.5"},
                             {"thermostat", "langevin:0.8:2"},
                             {"neighbors", "verlet:0.4"},
                             {"shift", "force"},
                             {"walls", "1"}};
  CHECK_OK(ck_gas_config_read(params, sizeof params / sizeof *params, &config));
  CHECK(config.particles == 64 && config.box_x == 12 && config.box_y == 10);
  CHECK(config.temperature == 0.5 && config.thermostat == CK_GAS_LANGEVIN &&
        config.target_temperature == 0.8 && config.gamma == 2);
  CHECK(config.neighbors == CK_GAS_VERLET && config.skin == 0.4 &&
        config.shift == CK_GAS_SHIFT_FORCE && config.walls == 1 &&
        config.seed == 1);
  const ck_param xyz[] = {{"xyz", "start.xyz"}};
  CHECK_OK(ck_gas_config_read(xyz, 1, &config));
  CHECK(config.xyz_path == xyz[0].value);
  const struct {
    ck_param params[2];
    size_t count;
    const char *mention;
  } bad[] = {
      {{{"particles", "0"}}, 1, "--particles"},
      {{{"thermostat", "hot"}}, 1, "--thermostat"},
      {{{"rho", "0.5"}, {"box", "10x10"}}, 2, "--rho"},
      {{{"xyz", "start.xyz"}, {"particles", "10"}}, 2, "--particles"},
      {{{"steps", "10"}}, 1, "--steps does not describe the system"},
      {{{"strips", "on"}}, 1, "--strips does not describe"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    config = defaults;
    CHECK_INVALID(ck_gas_config_read(bad[i].params, bad[i].count, &config),
                  bad[i].mention);
    CHECK(memcmp(&config, &defaults, sizeof config) == 0);
  }
  CHECK_INVALID(ck_gas_config_read(NULL, 0, NULL),
                "ck_gas_config_read: config is NULL");
  CHECK_INVALID(ck_gas_config_read(NULL, 1, &config), "params is NULL");
}

int main(void) {
  if (!mkdtemp(work_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", work_dir, strerror(errno));
    return 1;
  }
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  CHECK(ref->backend == CK_BACKEND_REF);
  long opencl = test_opencl_device(&set);
  const ck_device *ocl = opencl >= 0 ? &set.devices[opencl] : NULL;
  double started = now_s(), mark = started;
#define SECTION(name)                                                          \
  do {                                                                         \
    double t_ = now_s();                                                       \
    printf("-- %s: %.2f s\n", name, t_ - mark);                                \
    mark = t_;                                                                 \
  } while (0)

  neighbor_modes(ref, ocl);
  soft_log_forces(ref, ocl);
  SECTION("neighbour modes and all-pairs sums");
  momentum_conserved(ref, ocl);
  moving_neighbors(ref, ocl);
  between_rebuilds(ref, ocl);
  lone_particle(ref);
  free_flight(ref);
  if (ocl) {
    lone_particle(ocl);
    free_flight(ocl);
  }
  SECTION("momentum, moving neighbours");
  energy_drift(ref);
  if (ocl)
    energy_drift(ocl);
  SECTION("NVE drift");
  langevin(ref);
  if (ocl)
    langevin(ocl);
  ideal_gas(ref);
  if (ocl)
    ideal_gas(ocl);
  SECTION("thermostats, ideal gas");
  restarts(ref, ocl);
  SECTION("restarts");
  if (ocl) {
    agreement(ref, ocl);
    rebuild_forms(ocl, 1000);
    rebuild_forms(ocl, 30);
  }
  neighbors_auto(ref, ocl);
  SECTION("ref/OpenCL agreement");
  bad_config(ref);
  if (ocl)
    bad_config(ocl);
  geometry_limits(ref);
  list_overflow(ref, ocl);
  damaged_checkpoints(ref);
  version_one_checkpoint(ref);
  drift_check();
  blown_up_checkpoint(ref);
  if (ocl) {
    damaged_checkpoints(ocl);
    blown_up_checkpoint(ocl);
    double_checkpoint_without_fp64(ref, ocl);
  }
  xyz_start(ref, 0);
  xyz_start(ref, 1);
  if (ocl)
    xyz_start(ocl, 0);
  SECTION("bad input, XYZ start");
  rdf(ref, ocl);
  SECTION("rdf");
  null_arguments(ref);
  config_read();
  SECTION("NULL arguments");
  sparse(ref, ocl);
  SECTION("sparse systems");
  spread_gas(ref, ocl);
  SECTION("spread over devices");
  workload(ref, ocl);
  const ck_workload *gas_workload = NULL;
  if (ck_workload_find("gas", &gas_workload) == CK_OK)
    thermo_file(gas_workload, ref);
  ase_momenta_start(ref);
  SECTION("workload");
  if (!ocl)
    printf("SKIP: the OpenCL halves of every check, and ref/OpenCL "
           "agreement: no OpenCL device\n");
  printf("total %.2f s\n", now_s() - started);

  ck_device_set_free(&set);
  remove_tree(work_dir);
  return CHECK_DONE();
}
