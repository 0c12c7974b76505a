/*
 * test_bench.c - benchmark sizes (src/framework/bench.c and each
 * workload's ladder): the rung each kind of device starts at, the growth
 * rule on devices simulated by their rates (an H200's reaches the large
 * rung; a small GPU stops where its memory ends), the estimates of memory,
 * a run's size in words, the cost models against their formulas on small
 * runs on ref, ck_result_agree, ck_file_write and nn's blobs:N:F:C data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "test_support.h"

static const ck_workload *workload_named(const char *name) {
  const ck_workload *workload = NULL;
  CHECK_OK(ck_workload_find(name, &workload));
  return workload;
}

/* The value of the rung's option name, or NULL. */
static const char *rung_value(const char *workload, unsigned rung,
                              const char *name) {
  const ck_param *params = NULL;
  size_t count = 0;
  CHECK_OK(ck_bench_size(workload_named(workload), rung, &params, &count));
  const char *value = NULL;
  for (size_t i = 0; i < count; ++i)
    if (strcmp(params[i].name, name) == 0)
      value = params[i].value;
  return value;
}

static int rung_is(const char *workload, unsigned rung, const char *name,
                   const char *value) {
  const char *found = rung_value(workload, rung, name);
  return found && strcmp(found, value) == 0;
}

/* Devices as the classes the rungs know, with their memory. */
static ck_device device_of(ck_backend backend, ck_device_kind kind,
                           double global, double max_alloc) {
  ck_device device;
  memset(&device, 0, sizeof device);
  snprintf(device.id, sizeof device.id, "%s",
           backend == CK_BACKEND_REF ? "ref" : "ocl:9.0");
  device.backend = backend;
  device.kind = kind;
  device.global_memory = (unsigned long long)global;
  device.max_alloc = (unsigned long long)max_alloc;
  return device;
}

/* Every workload's ladder: CK_BENCH_RUNGS rungs of options a run takes,
 * each more work than the one below; the large rung holds the sizes a
 * large GPU is measured at. */
static void check_ladders(void) {
  printf("ladders\n");
  const ck_workload *const *workloads;
  size_t count = 0;
  CHECK_OK(ck_workload_list(&workloads, &count));
  for (size_t w = 0; w < count; ++w) {
    const char *format = NULL;
    CHECK_OK(ck_bench_describe(workloads[w], &format));
    CHECK(format && (strstr(format, " x ") || strchr(format, '/')));
    for (unsigned rung = 0; rung < CK_BENCH_RUNGS; ++rung) {
      const ck_param *params = NULL;
      size_t n = 0;
      CHECK_OK(ck_bench_size(workloads[w], rung, &params, &n));
      CHECK(n >= 2);
      CHECK_OK(ck_workload_check(workloads[w], params, n));
      const char *option = NULL;
      CHECK_OK(ck_bench_find_size_option(workloads[w], params, n, &option));
      CHECK_MSG(option != NULL, "rung %u of workload %zu sets no size", rung,
                w);
    }
    const ck_param *params = NULL;
    size_t n = 0;
    CHECK_INVALID(ck_bench_size(workloads[w], CK_BENCH_RUNGS, &params, &n),
                  "rung 7");
  }
  CHECK(rung_is("pso", CK_BENCH_LARGE, "particles", "1048576"));
  CHECK(rung_is("pso", CK_BENCH_LARGE, "dim", "100"));
  CHECK(rung_is("ga", CK_BENCH_LARGE, "islands", "4096"));
  CHECK(rung_is("ga", CK_BENCH_LARGE, "island-size", "256"));
  CHECK(rung_is("gas", CK_BENCH_LARGE, "particles", "4194304"));
  CHECK(rung_is("nn", CK_BENCH_LARGE, "layers", "784,1024,1024,10"));
  CHECK(rung_is("nn", CK_BENCH_LARGE, "batch", "1024"));
  CHECK(rung_is("nn", CK_BENCH_LARGE, "train", "blobs:65536:784:10"));
  CHECK(CK_BENCH_SMALL == 0 && CK_BENCH_LARGE == CK_BENCH_RUNGS - 1);
  CHECK(CK_BENCH_SMALL < CK_BENCH_MEDIUM && CK_BENCH_MEDIUM < CK_BENCH_LARGE);
}

/* The options that set a size are found, others are not. */
static void check_size_options(void) {
  printf("size options\n");
  const ck_workload *pso = workload_named("pso");
  const ck_param settings[] = {{"fn", "sphere"}, {"seed", "3"}};
  const ck_param sized[] = {{"fn", "sphere"}, {"iters", "3"}};
  const char *option = "unset";
  CHECK_OK(ck_bench_find_size_option(pso, settings, 2, &option));
  CHECK(option == NULL);
  CHECK_OK(ck_bench_find_size_option(pso, sized, 2, &option));
  CHECK(option && strcmp(option, "iters") == 0);
  CHECK_OK(ck_bench_find_size_option(pso, NULL, 0, &option));
  CHECK(option == NULL);
  CHECK_INVALID(ck_bench_find_size_option(pso, NULL, 1, &option),
                "params is NULL");
  CHECK_INVALID(ck_bench_find_size_option(NULL, sized, 2, &option),
                "workload is NULL");
}

/* ref stays at its rung; a CPU starts lower than a GPU, and both grow. */
static void check_first_rungs(void) {
  printf("first rungs\n");
  const struct {
    ck_backend backend;
    ck_device_kind kind;
    unsigned rung;
    int grows;
  } cases[] = {
      {CK_BACKEND_REF, CK_KIND_HOST, CK_BENCH_REF_RUNG, 0},
      {CK_BACKEND_OPENCL, CK_KIND_CPU, CK_BENCH_CPU_RUNG, 1},
      {CK_BACKEND_OPENCL, CK_KIND_GPU, CK_BENCH_GPU_RUNG, 1},
      {CK_BACKEND_CUDA, CK_KIND_GPU, CK_BENCH_GPU_RUNG, 1},
      {CK_BACKEND_OPENCL, CK_KIND_ACCELERATOR, CK_BENCH_GPU_RUNG, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    ck_device device = device_of(cases[i].backend, cases[i].kind, 1e10, 1e9);
    unsigned rung = 99;
    int grows = -1;
    CHECK_OK(ck_bench_first_rung(&device, &rung, &grows));
    CHECK_MSG(rung == cases[i].rung && grows == cases[i].grows,
              "case %zu: rung %u grows %d", i, rung, grows);
  }
  CHECK(CK_BENCH_REF_RUNG < CK_BENCH_CPU_RUNG &&
        CK_BENCH_CPU_RUNG < CK_BENCH_GPU_RUNG);
}

/* A run's seconds on a simulated device: a fixed cost a step (a launch)
 * and the work at the device's rate, in the workload's throughput unit
 * (as measured on an H100 and an H200: docs/bench.md). */
typedef struct simulated {
  const char *workload;
  const char *steps_option; /* the option that counts steps */
  double latency;           /* seconds a step */
  double rate;              /* units a second */
} simulated;

static double number_of(const char *workload, unsigned rung, const char *name) {
  const char *value = rung_value(workload, rung, name);
  return value ? strtod(value, NULL) : 0;
}

/* The units of a rung's run, as the workload counts its throughput. */
static double units_of(const char *workload, unsigned rung) {
  if (strcmp(workload, "pso") == 0)
    return number_of(workload, rung, "particles") *
           number_of(workload, rung, "iters");
  if (strcmp(workload, "ga") == 0)
    return number_of(workload, rung, "islands") *
           number_of(workload, rung, "island-size") *
           number_of(workload, rung, "dim") * number_of(workload, rung, "gens");
  if (strcmp(workload, "gas") == 0)
    return number_of(workload, rung, "particles") *
           number_of(workload, rung, "steps");
  /* nn: the rows of blobs:N:F:C, every epoch. */
  const char *train = rung_value(workload, rung, "train");
  return strtod(train + 6, NULL) * number_of(workload, rung, "epochs");
}

static double simulated_seconds(const simulated *device, unsigned rung) {
  return device->latency *
             number_of(device->workload, rung, device->steps_option) +
         units_of(device->workload, rung) / device->rate;
}

/* Where the growth rule leaves a device: from its first rung, up while
 * ck_bench_next_rung says so. */
static unsigned grown(const ck_workload *workload, const ck_device *device,
                      const simulated *model) {
  unsigned rung = 0, next = 0;
  int grows = 0;
  CHECK_OK(ck_bench_first_rung(device, &rung, &grows));
  for (int step = 0; grows && step < CK_BENCH_RUNGS; ++step) {
    double seconds = model ? simulated_seconds(model, rung) : 0.01;
    CHECK_OK(
        ck_bench_next_rung(workload, rung, seconds, NULL, 0, device, &next));
    if (next == rung)
      break;
    CHECK(next == rung + 1);
    rung = next;
  }
  return rung;
}

static void check_growth(void) {
  printf("growth\n");
  /* An H200: 141 GB, a quarter of it in one buffer. The rates are those
   * measured there and on an H100, with 10 us a launch. */
  ck_device h200 = device_of(CK_BACKEND_CUDA, CK_KIND_GPU, 141e9, 35e9);
  const simulated rates[] = {{"pso", "iters", 10e-6, 1.1e9},
                             {"ga", "gens", 10e-6, 6.0e11},
                             {"gas", "steps", 30e-6, 6.4e9},
                             {"nn", "epochs", 5e-3, 2.5e6}};
  for (size_t i = 0; i < sizeof rates / sizeof *rates; ++i) {
    const ck_workload *workload = workload_named(rates[i].workload);
    unsigned rung = grown(workload, &h200, &rates[i]);
    CHECK_MSG(rung == CK_BENCH_LARGE, "%s on an H200 grew to rung %u",
              rates[i].workload, rung);
    /* The large rung's run is long enough to measure there. */
    CHECK_MSG(simulated_seconds(&rates[i], CK_BENCH_LARGE) > 0.05,
              "%s: %.3g s on an H200", rates[i].workload,
              simulated_seconds(&rates[i], CK_BENCH_LARGE));
  }
  /* A device as slow as ref on a GPU's rung keeps it; a run of exactly
   * the threshold too; a time that is no number grows nothing. */
  const ck_workload *pso = workload_named("pso");
  unsigned next = 99;
  CHECK_OK(ck_bench_next_rung(pso, 4, 0.3, NULL, 0, &h200, &next));
  CHECK(next == 4);
  CHECK_OK(
      ck_bench_next_rung(pso, 4, CK_BENCH_GROW_BELOW_S, NULL, 0, &h200, &next));
  CHECK(next == 4);
  CHECK_OK(ck_bench_next_rung(pso, 4, NAN, NULL, 0, &h200, &next));
  CHECK(next == 4);
  CHECK_OK(ck_bench_next_rung(pso, 4, 0.19, NULL, 0, &h200, &next));
  CHECK(next == 5);
  CHECK_OK(
      ck_bench_next_rung(pso, CK_BENCH_LARGE, 0.001, NULL, 0, &h200, &next));
  CHECK(next == CK_BENCH_LARGE);
  CHECK_INVALID(
      ck_bench_next_rung(pso, CK_BENCH_RUNGS, 0.1, NULL, 0, &h200, &next),
      "rung 7");
  /* A GPU of 1 GB, 200 MB a buffer: PSO's swarm of 262144 particles in
   * 100 dimensions (about 317 MB, 105 MB a buffer) fits, one of a
   * million does not, so growth stops at rung 5 however fast it is. */
  ck_device small = device_of(CK_BACKEND_OPENCL, CK_KIND_GPU, 1e9, 200e6);
  CHECK(grown(pso, &small, NULL) == CK_BENCH_LARGE - 1);
  int fits = -1;
  CHECK_OK(ck_bench_fits(pso, CK_BENCH_LARGE, NULL, 0, &small, &fits));
  CHECK(fits == 0);
  CHECK_OK(ck_bench_fits(pso, CK_BENCH_LARGE - 1, NULL, 0, &small, &fits));
  CHECK(fits == 1);
  /* Options after the rung's count: in double precision a buffer of the
   * swarm (210 MB) passes max_alloc. */
  const ck_param doubles[] = {{"precision", "double"}};
  CHECK_OK(ck_bench_fits(pso, CK_BENCH_LARGE - 1, doubles, 1, &small, &fits));
  CHECK(fits == 0);
  /* One buffer past max_alloc does not fit, though the memory would. */
  ck_device narrow = device_of(CK_BACKEND_OPENCL, CK_KIND_GPU, 64e9, 100e6);
  CHECK_OK(ck_bench_fits(pso, CK_BENCH_LARGE - 1, NULL, 0, &narrow, &fits));
  CHECK(fits == 0);
  /* Every rung of every workload fits an H200. */
  const ck_workload *const *workloads;
  size_t count = 0;
  CHECK_OK(ck_workload_list(&workloads, &count));
  for (size_t w = 0; w < count; ++w)
    for (unsigned rung = 0; rung < CK_BENCH_RUNGS; ++rung) {
      CHECK_OK(ck_bench_fits(workloads[w], rung, NULL, 0, &h200, &fits));
      CHECK_MSG(fits == 1, "workload %zu rung %u does not fit an H200", w,
                rung);
    }
  /* ref stays at its rung, however short its runs. */
  ck_device ref = device_of(CK_BACKEND_REF, CK_KIND_HOST, 16e9, 16e9);
  CHECK(grown(pso, &ref, NULL) == CK_BENCH_REF_RUNG);
}

/* A run on ref of params. */
static void run_ref(const char *name, const ck_param *params, size_t count,
                    ck_result *result) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  CHECK_OK(test_workload_run(workload_named(name), &set.devices[0], params,
                             count, NULL, result));
  ck_device_set_free(&set);
}

static void check_cost(const ck_result *result, double units, double bytes,
                       double flops, int double_precision) {
  ck_cost cost;
  CHECK_OK(ck_result_get_cost(result, &cost));
  CHECK_MSG(cost.units == units && fabs(cost.bytes - bytes) <= 1e-9 * bytes &&
                fabs(cost.flops - flops) <= 1e-9 * flops &&
                cost.double_precision == double_precision,
            "%s: units %.9g bytes %.9g flops %.9g fp64 %d; want %.9g %.9g "
            "%.9g %d",
            result->workload, cost.units, cost.bytes, cost.flops,
            cost.double_precision, units, bytes, flops, double_precision);
}

/* Each cost model against its formula (docs/bench.md), on small runs. */
static void check_costs(void) {
  printf("cost models\n");
  ck_result result;
  memset(&result, 0, sizeof result);
  char size[96];
  /* PSO: 5 reals a coordinate, the move's 13 flops and rastrigin's 7. */
  const ck_param pso[] = {
      {"fn", "rastrigin"}, {"dim", "6"}, {"particles", "32"}, {"iters", "5"}};
  run_ref("pso", pso, 4, &result);
  check_cost(&result, 32 * 5, 32 * 5 * 6 * 5 * 4.0, 32 * 5 * 6 * (13 + 7.0), 0);
  CHECK_OK(ck_result_describe_size(&result, size, sizeof size));
  CHECK_MSG(strcmp(size, "32 x 6 x 5") == 0, "%s", size);
  const ck_param pso_double[] = {{"fn", "sphere"},
                                 {"dim", "4"},
                                 {"particles", "16"},
                                 {"iters", "3"},
                                 {"precision", "double"}};
  run_ref("pso", pso_double, 5, &result);
  check_cost(&result, 16 * 3, 16 * 3 * 4 * 5 * 8.0, 16 * 3 * 4 * (13 + 2.0), 1);
  /* GA, resident: a gene each way a launch of --migrate-every 10
   * generations and a fitness a generation; 3 + pm 8 + sphere's 2. */
  const ck_param ga[] = {{"fn", "sphere"},       {"dim", "8"},
                         {"islands", "2"},       {"island-size", "16"},
                         {"gens", "20"},         {"pm", "0.25"},
                         {"migrate-every", "10"}};
  run_ref("ga", ga, 7, &result);
  double genes = 2 * 16 * 20 * 8.0;
  check_cost(&result, genes, 2 * 16 * 20 * (2 * 8 / 10.0 + 1) * 4.0,
             genes * (3 + 0.25 * 8 + 2), 0);
  CHECK_OK(ck_result_describe_size(&result, size, sizeof size));
  CHECK_MSG(strcmp(size, "2 x 16 x 20") == 0, "%s", size);
  /* selfcheck: 16 bytes and 2 flops a number. */
  const ck_param selfcheck[] = {{"count", "4096"}, {"passes", "3"}};
  run_ref("selfcheck", selfcheck, 2, &result);
  check_cost(&result, 4096 * 3, 4096 * 3 * 16.0, 4096 * 3 * 2.0, 0);
  /* gas: particles x steps; its flops rest on the cells visited. */
  const ck_param gas[] = {
      {"particles", "400"}, {"steps", "10"}, {"log-every", "0"}};
  run_ref("gas", gas, 3, &result);
  ck_cost cost;
  CHECK_OK(ck_result_get_cost(&result, &cost));
  CHECK(cost.units == 400 * 10);
  CHECK_NEAR(cost.bytes, 400 * 10 * (18 * 4.0 + 12), 1e-6);
  /* 400 particles at 0.7 in a box of 23.9: 9 x 9 cells of 2.5, so a
   * particle visits 9 x 400 / 81 = 44.4; pi 2.5^2 0.7 = 13.7 in range. */
  double visited = 9 * 400 / 81.0, in_range = 3.14159265358979 * 6.25 * 0.7;
  CHECK_NEAR(cost.flops, 4000 * (7 * visited + 12 * in_range + 14), 1e-3);
  CHECK_OK(ck_result_describe_size(&result, size, sizeof size));
  CHECK_MSG(strcmp(size, "400 x 10") == 0, "%s", size);
  /* nn: 6 flops a weight's product a sample, Adam's 10 a weight a step. */
  const ck_param nn[] = {{"train", "spirals:96"},
                         {"layers", "2,8,3"},
                         {"batch", "16"},
                         {"epochs", "2"},
                         {"patience", "0"}};
  run_ref("nn", nn, 5, &result);
  double products = 2 * 8 + 8 * 3, weights = 3 * 8 + 9 * 3;
  double samples = 96 * 2;
  check_cost(&result, samples, samples * 4 * (2 + 4 * 11 + 10 * weights / 16),
             samples * (6 * products + 10 * weights / 16), 0);
  CHECK_OK(ck_result_describe_size(&result, size, sizeof size));
  CHECK_MSG(strcmp(size, "2-8-3/16/2") == 0, "%s", size);
  /* aco: tours of construction and one search pass, and each iteration's
   * candidate edges. */
  const ck_param aco[] = {{"instance", "random:30"},
                          {"ants", "4"},
                          {"iters", "3"},
                          {"candidates", "8"}};
  run_ref("aco", aco, 4, &result);
  double edges = 30 * 8, tours = 4 * 3;
  check_cost(&result, tours,
             tours * (edges * (9 + 8) + 8 * 30) + 3 * edges * 12,
             tours * edges * (2 + 10) + 3 * edges * 5, 0);
  CHECK_OK(ck_result_describe_size(&result, size, sizeof size));
  CHECK_MSG(strcmp(size, "30 x 4 x 3") == 0, "%s", size);
  /* A user objective's flops are unknown; its bytes are not. */
  ck_result_release(&result);
  ck_result failed;
  memset(&failed, 0, sizeof failed);
  snprintf(failed.workload, sizeof failed.workload, "pso");
  failed.status = CK_ERROR_DEVICE;
  CHECK_INVALID(ck_result_get_cost(&failed, &cost), "failed");
  snprintf(failed.workload, sizeof failed.workload, "nosuch");
  CHECK_INVALID(ck_result_describe_size(&failed, size, sizeof size),
                "no known workload");
}

/* ck_result_agree: the workload's own test, as compare makes it. */
static void check_agree(void) {
  printf("agreement\n");
  ck_result reference, same, other;
  memset(&reference, 0, sizeof reference);
  memset(&same, 0, sizeof same);
  memset(&other, 0, sizeof other);
  const ck_param pso[] = {{"dim", "3"}, {"particles", "16"}, {"iters", "4"}};
  run_ref("pso", pso, 3, &reference);
  run_ref("pso", pso, 3, &same);
  CHECK_OK(ck_result_agree(&reference, &same));
  CHECK(same.agreement == 0 && same.agrees == 1);
  const ck_param gas[] = {{"particles", "100"}, {"steps", "2"}};
  run_ref("gas", gas, 2, &other);
  CHECK_INVALID(ck_result_agree(&reference, &other), "cannot be checked");
  same.best = reference.best + 1 + fabs(reference.best);
  CHECK_OK(ck_result_agree(&reference, &same));
  CHECK(same.agrees == 0 && same.agreement > 0);
  ck_result_release(&reference);
  ck_result_release(&same);
  ck_result_release(&other);
}

/* ck_file_write replaces a file whole. */
static void check_file_write(void) {
  printf("file write\n");
  char path[] = "/tmp/clkit-test-bench-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  close(fd);
  static const char page[] = "<!DOCTYPE html>\n<p>report</p>\n";
  CHECK_OK(ck_file_write(path, page, sizeof page - 1));
  size_t size = 0;
  char *back = test_read_file(path, &size);
  CHECK(back && size == sizeof page - 1 && memcmp(back, page, size) == 0);
  free(back);
  CHECK_INVALID(ck_file_write("", page, 1), "no output file name");
  CHECK_INVALID(ck_file_write(path, NULL, 1), "no output file name");
  unlink(path);
}

/* blobs:N:F:C: the rows, features and classes asked for, a test set of
 * a quarter of the rows, and a refusal that names the form. */
static void check_blobs(void) {
  printf("blobs\n");
  ck_result result;
  memset(&result, 0, sizeof result);
  const ck_param nn[] = {{"train", "blobs:200:5:4"}, {"epochs", "3"}};
  run_ref("nn", nn, 2, &result);
  double rows = 0, tests = 0;
  CHECK_OK(ck_result_get_metric(&result, "train_rows", &rows));
  CHECK_OK(ck_result_get_metric(&result, "test_rows", &tests));
  CHECK(rows == 200 && tests == 50);
  const char *layers = NULL;
  for (size_t i = 0; i < result.option_count; ++i)
    if (strcmp(result.options[i].name, "layers") == 0)
      layers = result.options[i].value;
  CHECK_MSG(layers && strncmp(layers, "5,", 2) == 0 &&
                strcmp(layers + strlen(layers) - 2, ",4") == 0,
            "layers %s", layers ? layers : "(none)");
  /* The same seed makes the same data, and so the same run. */
  double best = result.best;
  run_ref("nn", nn, 2, &result);
  CHECK(result.best == best);
  ck_result_release(&result);
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const char *const bad[] = {"blobs:200:5:1", "blobs:3:5:4", "blobs:200:0:4",
                             "blobs:200:5", "blobs:2e9:784:10"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    const ck_param params[] = {{"train", bad[i]}};
    CHECK_INVALID(test_workload_run(workload_named("nn"), &set.devices[0],
                                    params, 1, NULL, &result),
                  "blobs:N:F:C needs");
  }
  ck_device_set_free(&set);
}

/* The number a size's text counts: N of random:N and of blobs:N:F:C. */
static void shown_value(const char *value, char *shown, size_t size) {
  const char *from = strncmp(value, "random:", 7) == 0  ? value + 7
                     : strncmp(value, "blobs:", 6) == 0 ? value + 6
                                                        : value;
  snprintf(shown, size, "%.*s", (int)strcspn(from, ":"), from);
}

/* docs/bench.md's table of the ladders gives each rung's sizes: the
 * values of every option that changes from rung to rung, in order, on
 * the workload's row. */
static void check_ladders_documented(void) {
  printf("ladders in docs/bench.md\n");
  const char *root = getenv("CLKIT_SOURCE_ROOT");
  if (!root) {
    printf("  no CLKIT_SOURCE_ROOT: not checked\n");
    return;
  }
  char path[600];
  snprintf(path, sizeof path, "%s/docs/bench.md", root);
  size_t size = 0;
  char *docs = test_read_file(path, &size);
  CHECK_MSG(docs != NULL, "cannot read %s", path);
  if (!docs)
    return;
  const ck_workload *const *workloads;
  size_t count = 0;
  CHECK_OK(ck_workload_list(&workloads, &count));
  for (size_t w = 0; w < count; ++w) {
    const char *name = NULL;
    ck_workload_describe(workloads[w], &name, NULL, NULL);
    char start[64];
    snprintf(start, sizeof start, "\n| `%s` |", name);
    const char *row = strstr(docs, start);
    CHECK_MSG(row != NULL, "docs/bench.md has no row of %s", name);
    if (!row)
      continue;
    size_t length = strcspn(row + 1, "\n") + 1;
    const ck_param *first = NULL;
    size_t options = 0;
    CHECK_OK(ck_bench_size(workloads[w], 0, &first, &options));
    for (size_t o = 0; o < options; ++o) {
      const char *at = row, *end = row + length;
      int varies = 0;
      for (unsigned rung = 1; rung < CK_BENCH_RUNGS; ++rung)
        varies |=
            strcmp(rung_value(name, rung, first[o].name), first[o].value) != 0;
      for (unsigned rung = 0; varies && rung < CK_BENCH_RUNGS; ++rung) {
        char shown[64], text[80];
        shown_value(rung_value(name, rung, first[o].name), shown, sizeof shown);
        snprintf(text, sizeof text, " %s", shown);
        const char *found = strstr(at, text);
        CHECK_MSG(found && found < end,
                  "docs/bench.md: %s's row lacks --%s %s of rung %u (in order)",
                  name, first[o].name, shown, rung);
        if (found && found < end)
          at = found + strlen(text);
      }
    }
  }
  free(docs);
}

/* Each public function names the argument that is NULL. */
static ck_status null_size(void *context, int which) {
  const ck_param *params = NULL;
  size_t count = 0;
  return ck_bench_size(NULL_AT(0, context), 0, NULL_AT(1, &params),
                       NULL_AT(2, &count));
}

static ck_status null_describe(void *context, int which) {
  const char *format = NULL;
  return ck_bench_describe(NULL_AT(0, context), NULL_AT(1, &format));
}

static ck_status null_first_rung(void *context, int which) {
  (void)context;
  ck_device device = device_of(CK_BACKEND_REF, CK_KIND_HOST, 1e9, 1e9);
  unsigned rung = 0;
  int grows = 0;
  return ck_bench_first_rung(NULL_AT(0, &device), NULL_AT(1, &rung),
                             NULL_AT(2, &grows));
}

static ck_status null_fits(void *context, int which) {
  ck_device device = device_of(CK_BACKEND_REF, CK_KIND_HOST, 1e9, 1e9);
  int fits = 0;
  return ck_bench_fits(NULL_AT(0, context), 0, NULL, 0, NULL_AT(1, &device),
                       NULL_AT(2, &fits));
}

static ck_status null_next_rung(void *context, int which) {
  ck_device device = device_of(CK_BACKEND_REF, CK_KIND_HOST, 1e9, 1e9);
  unsigned next = 0;
  return ck_bench_next_rung(NULL_AT(0, context), 0, 0.1, NULL, 0,
                            NULL_AT(1, &device), NULL_AT(2, &next));
}

static ck_status null_get_cost(void *context, int which) {
  (void)context;
  ck_result result;
  memset(&result, 0, sizeof result);
  snprintf(result.workload, sizeof result.workload, "pso");
  ck_cost cost;
  return ck_result_get_cost(NULL_AT(0, &result), NULL_AT(1, &cost));
}

static ck_status null_describe_size(void *context, int which) {
  (void)context;
  ck_result result;
  memset(&result, 0, sizeof result);
  snprintf(result.workload, sizeof result.workload, "pso");
  char text[32];
  return ck_result_describe_size(NULL_AT(0, &result), NULL_AT(1, text),
                                 sizeof text);
}

static ck_status null_agree(void *context, int which) {
  (void)context;
  ck_result a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  return ck_result_agree(NULL_AT(0, &a), NULL_AT(1, &b));
}

static void check_null_names(void) {
  printf("NULL arguments\n");
  static const check_null_case cases[] = {
      {"ck_bench_size", {"workload", "params", "count"}, null_size},
      {"ck_bench_describe", {"workload", "format"}, null_describe},
      {"ck_bench_first_rung", {"device", "rung", "grows"}, null_first_rung},
      {"ck_bench_fits", {"workload", "device", "fits"}, null_fits},
      {"ck_bench_next_rung", {"workload", "device", "next"}, null_next_rung},
      {"ck_result_get_cost", {"result", "cost"}, null_get_cost},
      {"ck_result_describe_size", {"result", "text"}, null_describe_size},
      {"ck_result_agree", {"reference", "result"}, null_agree},
  };
  check_null_arguments(cases, sizeof cases / sizeof *cases,
                       (void *)workload_named("pso"));
}

int main(void) {
  check_ladders();
  check_size_options();
  check_first_rungs();
  check_growth();
  check_costs();
  check_agree();
  check_file_write();
  check_blobs();
  check_null_names();
  check_ladders_documented();
  return CHECK_DONE();
}
