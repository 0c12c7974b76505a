/*
 * test_alloc - every host allocation clkit makes may fail: each call then
 * returns a failure status (never CK_OK with a broken result), frees what
 * it had taken and leaves nothing half made, so that LeakSanitizer and
 * AddressSanitizer, under which the suite runs, find nothing.
 *
 * The test is linked with -Wl,--wrap for the allocation functions, so the
 * library's own calls (it is linked statically) go through the wrappers
 * below while those of libc and the OpenCL runtime do not. Each case is a
 * sequence of API calls run again and again: the first time with its Nth
 * allocation failing for N = 1, 2, 3 ..., until a run makes fewer than N
 * allocations; that run must succeed, and a run with a failed allocation
 * that still returns CK_OK must give the same result as one without.
 *
 * Only the ref device is used (OCL_ICD_VENDORS names no driver), so the
 * counts do not depend on an OpenCL runtime; the device list is made
 * outside the sweeps, since a CUDA runtime linked statically would have
 * its allocations counted too.
 */
#include "aco/aco_internal.h"
#include "check.h"
#include "runtime/runtime.h"
#include "test_support.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CK_HAVE_ZLIB
#include <zlib.h>
#endif

/* ---- the allocation wrappers -------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *memory, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
char *__real_strdup(const char *text);
char *__real_strndup(const char *text, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *memory, size_t size);
void *__wrap_aligned_alloc(size_t alignment, size_t size);
char *__wrap_strdup(const char *text);
char *__wrap_strndup(const char *text, size_t size);

static struct {
  int armed;          /* counting allocations */
  long calls;         /* allocations since armed */
  long fail_at;       /* the call that fails (1-based) */
  const char *failed; /* the function that failed, once it has */
} injector;

static int inject(const char *function) {
  if (!injector.armed || ++injector.calls != injector.fail_at)
    return 0;
  injector.failed = function;
  errno = ENOMEM;
  return 1;
}

void *__wrap_malloc(size_t size) {
  return inject("malloc") ? NULL : __real_malloc(size);
}
void *__wrap_calloc(size_t count, size_t size) {
  return inject("calloc") ? NULL : __real_calloc(count, size);
}
void *__wrap_realloc(void *memory, size_t size) {
  return inject("realloc") ? NULL : __real_realloc(memory, size);
}
void *__wrap_aligned_alloc(size_t alignment, size_t size) {
  return inject("aligned_alloc") ? NULL : __real_aligned_alloc(alignment, size);
}
char *__wrap_strdup(const char *text) {
  return inject("strdup") ? NULL : __real_strdup(text);
}
char *__wrap_strndup(const char *text, size_t size) {
  return inject("strndup") ? NULL : __real_strndup(text, size);
}

/* ---- the sweep ----------------------------------------------------------- */

/* A case: runs its calls, releases everything it made, and stores in
 * *value a figure of its result when it returns CK_OK. */
typedef ck_status (*case_fn)(const void *arg, double *value);

/* strict: the case has no allocation it may do without, so CK_OK after a
 * failed one means that some of its work was skipped. */
static void sweep_case(const char *name, case_fn run, const void *arg,
                       int strict) {
  double expected = 0;
  ck_status status = run(arg, &expected);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_OK, "%s: fails without an injected failure: %s", name,
            message);
  if (status != CK_OK)
    return;
  long n = 1;
  for (;; ++n) {
    injector.calls = 0;
    injector.fail_at = n;
    injector.failed = NULL;
    ck_error_clear();
    double value = 0;
    injector.armed = 1;
    status = run(arg, &value);
    injector.armed = 0;
    ck_error_get_last(&message);
    if (!injector.failed) {
      CHECK_MSG(status == CK_OK, "%s: no failure at %ld, yet status %d: %s",
                name, n, (int)status, message);
      break;
    }
    if (status == CK_OK && strict)
      CHECK_MSG(0, "%s: allocation %ld (%s) failed, yet CK_OK", name, n,
                injector.failed);
    else if (status == CK_OK)
      CHECK_MSG(value == expected,
                "%s: allocation %ld (%s) failed, CK_OK with %.17g, not %.17g",
                name, n, injector.failed, value, expected);
    else if (!*message)
      CHECK_MSG(0, "%s: allocation %ld (%s) failed, status %d, no message",
                name, n, injector.failed, (int)status);
    else
      /* A ref buffer is the device's memory, whose failure says so. */
      CHECK_MSG(status == CK_ERROR_OUT_OF_MEMORY ||
                    (status == CK_ERROR_DEVICE_MEMORY &&
                     strcmp(injector.failed, "aligned_alloc") == 0),
                "%s: allocation %ld (%s) failed, status %d: %s", name, n,
                injector.failed, (int)status, message);
  }
  printf("%s: %ld allocations\n", name, n - 1);
}

static void sweep(const char *name, case_fn run, const void *arg) {
  sweep_case(name, run, arg, 0);
}

/* ---- the cases ----------------------------------------------------------- */

static ck_device_set devices;
static char work_dir[512];

static const ck_device *ref(void) {
  return &devices.devices[0];
}

typedef struct workload_case {
  const char *workload;
  const ck_param *params;
  size_t count;
  const char *outputs[6]; /* files the run writes the same way each time */
} workload_case;

/* FNV-1a, over bytes and over a file's content (or its absence). */
static uint64_t hash_bytes(uint64_t hash, const void *bytes, size_t size) {
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ ((const unsigned char *)bytes)[i]) * 1099511628211u;
  return hash;
}

static uint64_t hash_file(uint64_t hash, const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return hash_bytes(hash, "missing", 7);
  unsigned char block[4096];
  size_t got;
  while ((got = fread(block, 1, sizeof block, file)) > 0)
    hash = hash_bytes(hash, block, got);
  fclose(file);
  return hash;
}

/* The run's figures and output files, hashed: a run that returns CK_OK
 * after a failed allocation must have written them all, the same. */
static ck_status run_workload(const void *arg, double *value) {
  const workload_case *c = arg;
  const ck_workload *workload;
  ck_status status = ck_workload_find(c->workload, &workload);
  if (status != CK_OK)
    return status;
  for (size_t i = 0; c->outputs[i]; ++i)
    unlink(c->outputs[i]);
  ck_run_options options = {.seed = 7};
  ck_result result = {0};
  status = test_workload_run(workload, ref(), c->params, c->count, &options,
                             &result);
  if (status != CK_OK)
    return status;
  char *json = NULL;
  status = ck_result_format_json(&result, &json);
  ck_memory_free(json);
  uint64_t hash = 14695981039346656037u;
  hash = hash_bytes(hash, &result.best, sizeof result.best);
  hash = hash_bytes(hash, &result.metric_count, sizeof result.metric_count);
  hash = hash_bytes(hash, &result.option_count, sizeof result.option_count);
  if (result.position)
    hash = hash_bytes(hash, result.position,
                      result.position_count * sizeof *result.position);
  for (size_t i = 0; c->outputs[i]; ++i)
    hash = hash_file(hash, c->outputs[i]);
  *value = (double)(hash >> 11);
  ck_result_release(&result);
  return status;
}

static ck_status queue_round_trip(const void *arg, double *value) {
  (void)arg;
  ck_queue *queue = NULL;
  ck_buffer *a = NULL, *b = NULL;
  float in[64], out[64] = {0};
  for (int i = 0; i < 64; ++i)
    in[i] = (float)i;
  ck_status status = ck_queue_create(ref(), &queue);
  if (status == CK_OK)
    status = ck_buffer_create(queue, sizeof in, &a);
  if (status == CK_OK)
    status = ck_buffer_create(queue, sizeof in, &b);
  if (status == CK_OK)
    status = ck_buffer_write(queue, a, 0, sizeof in, in, CK_BLOCKING, NULL);
  if (status == CK_OK)
    status = ck_buffer_copy(queue, b, 0, a, 0, sizeof in, NULL);
  if (status == CK_OK)
    status = ck_buffer_read(queue, b, 0, sizeof out, out, CK_BLOCKING, NULL);
  if (status == CK_OK)
    *value = out[63];
  ck_buffer_destroy(b);
  ck_buffer_destroy(a);
  ck_queue_destroy(queue);
  return status;
}

static ck_status load_tsp(const void *arg, double *value) {
  ck_tsp_instance instance;
  ck_status status = ck_tsp_load(arg, &instance);
  if (status != CK_OK)
    return status;
  uint32_t *tour = NULL;
  char tour_path[600];
  snprintf(tour_path, sizeof tour_path, "%s/tsplib/tours/eil51.opt.tour",
           getenv("CLKIT_TEST_DATA"));
  status = ck_tsp_tour_load(tour_path, instance.cities, &tour);
  int64_t length = 0;
  if (status == CK_OK)
    status = ck_tsp_tour_measure(&instance, tour, &length);
  int64_t optimum = 0;
  char optima[600];
  snprintf(optima, sizeof optima, "%s/tsplib/optima.txt",
           getenv("CLKIT_TEST_DATA"));
  if (status == CK_OK)
    status =
        ck_tsp_optimum_find(optima, instance.name, arg, NULL, NULL, &optimum);
  /* A matrix with coordinates to draw it by. */
  static const char display[] =
      "NAME : shown\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
      "EDGE_WEIGHT_FORMAT : LOWER_DIAG_ROW\nDISPLAY_DATA_TYPE : TWOD_DISPLAY\n"
      "EDGE_WEIGHT_SECTION\n 0 7 0\n 9 8 0\nDISPLAY_DATA_SECTION\n"
      "1 1.0 2.0\n2 3.0 4.0\n3 5.0 6.0\nEOF\n";
  ck_tsp_instance shown;
  if (status == CK_OK)
    status = ck_tsp_parse(display, sizeof display - 1, "shown.tsp", &shown);
  if (status == CK_OK) {
    *value = (double)length + (double)optimum + shown.matrix[2] + shown.x[2];
    ck_tsp_free(&shown);
  }
  ck_memory_free(tour);
  ck_tsp_free(&instance);
  return status;
}

static ck_status load_lsq(const void *arg, double *value) {
  ck_lsq_data data;
  ck_status status = ck_lsq_load(arg, &data);
  if (status != CK_OK)
    return status;
  *value = data.b[data.rows - 1] + (double)data.rows;
  ck_lsq_free(&data);
  return CK_OK;
}

static ck_status load_dataset(const void *arg, double *value) {
  ck_dataset dataset, head, tail;
  ck_status status = ck_dataset_load(arg, NULL, &dataset);
  if (status != CK_OK)
    return status;
  status = ck_dataset_split_random(&dataset, 0.5, 3, &head, &tail);
  if (status == CK_OK) {
    *value = (double)head.rows + head.values[0];
    ck_dataset_free(&head);
    ck_dataset_free(&tail);
  }
  ck_dataset_free(&dataset);
  return status;
}

static ck_status api_pso(const void *arg, double *value) {
  (void)arg;
  ck_pso_config config;
  ck_pso_config_init(&config);
  config.function = "rosenbrock";
  config.dim = 3;
  config.particles = 6;
  config.max_iterations = 4;
  config.double_precision = 1;
  ck_pso *pso = NULL;
  const double *history = NULL;
  size_t count = 0;
  double position[3];
  ck_status status = ck_pso_create(ref(), &config, &pso);
  if (status == CK_OK)
    status = ck_pso_step(pso, 2);
  if (status == CK_OK)
    status = ck_pso_get_history(pso, &history, &count);
  if (status == CK_OK)
    status = ck_pso_get_best(pso, value, position);
  if (status == CK_OK)
    *value += (double)count + history[count - 1];
  ck_pso_destroy(pso);
  return status;
}

/* A session of ref: made, two runs on its device (the second on the
 * queue the first gave back), destroyed. */
static ck_status api_session(const void *arg, double *value) {
  (void)arg;
  static const ck_param params[] = {
      {"fn", "sphere"}, {"dim", "3"}, {"particles", "6"}, {"iters", "4"}};
  ck_session *session = NULL;
  const ck_device *device = NULL;
  const ck_workload *pso = NULL;
  size_t count = 0;
  ck_run_options options = {.seed = 7};
  ck_status status = ck_workload_find("pso", &pso);
  if (status == CK_OK)
    status = ck_session_create("ref", &session);
  if (status == CK_OK)
    status = ck_session_get_devices(session, &device, &count);
  for (int run = 0; status == CK_OK && run < 2; ++run) {
    ck_result result = {0};
    status = ck_workload_run(pso, device, params, 4, &options, &result);
    if (status == CK_OK)
      *value += result.best;
    ck_result_release(&result);
  }
  ck_session_destroy(session);
  return status;
}

/* A host objective: sphere, as a callback and through ask/tell. */
static ck_status api_pso_host(const void *arg, double *value) {
  (void)arg;
  static const double lo[2] = {-1, -1}, hi[2] = {1, 1};
  ck_pso_config config;
  ck_pso_config_init(&config);
  config.function = NULL;
  config.evaluate = test_host_sphere;
  config.dim = 2;
  config.particles = 4;
  config.max_iterations = 3;
  config.lo = lo;
  config.hi = hi;
  ck_pso *pso = NULL;
  ck_pso_report report;
  double x[8], f[4], told = 0;
  ck_status status = ck_pso_create(ref(), &config, &pso);
  if (status == CK_OK)
    status = ck_pso_run(pso, &report);
  if (status == CK_OK)
    status = ck_pso_get_best(pso, value, NULL);
  ck_pso_destroy(pso);
  pso = NULL;
  config.evaluate = NULL;
  config.ask_tell = 1;
  if (status == CK_OK)
    status = ck_pso_create(ref(), &config, &pso);
  for (int i = 0; status == CK_OK && i < 3; ++i) {
    status = ck_pso_ask(pso, x);
    test_host_sphere(x, 4, 2, f, NULL);
    if (status == CK_OK)
      status = ck_pso_tell(pso, f);
  }
  if (status == CK_OK)
    status = ck_pso_get_best(pso, &told, NULL);
  if (status == CK_OK)
    *value += told;
  ck_pso_destroy(pso);
  return status;
}

static ck_status api_ga_host(const void *arg, double *value) {
  (void)arg;
  static const double lo[2] = {-1, -1}, hi[2] = {1, 1};
  ck_ga_config config;
  ck_ga_config_init(&config);
  config.function = NULL;
  config.evaluate = test_host_sphere;
  config.dim = 2;
  config.islands = 2;
  config.island_size = 4;
  config.migrants = 1;
  config.migrate_every = 1;
  config.max_generations = 3;
  config.lo = lo;
  config.hi = hi;
  ck_ga *ga = NULL;
  ck_ga_report report;
  double x[16], f[8], told = 0;
  ck_status status = ck_ga_create(ref(), &config, &ga);
  if (status == CK_OK)
    status = ck_ga_run(ga, &report);
  if (status == CK_OK)
    status = ck_ga_get_best(ga, value, NULL);
  ck_ga_destroy(ga);
  ga = NULL;
  config.evaluate = NULL;
  config.ask_tell = 1;
  if (status == CK_OK)
    status = ck_ga_create(ref(), &config, &ga);
  for (int i = 0; status == CK_OK && i < 3; ++i) {
    status = ck_ga_ask(ga, x);
    test_host_sphere(x, 8, 2, f, NULL);
    if (status == CK_OK)
      status = ck_ga_tell(ga, f);
  }
  if (status == CK_OK)
    status = ck_ga_get_best(ga, &told, NULL);
  if (status == CK_OK)
    *value += told;
  ck_ga_destroy(ga);
  return status;
}

/* A workload spread over ref as its one member (so that the result's
 * members are made too). */
static ck_status run_spread(const char *name, const ck_param *params,
                            size_t count, double *value) {
  const ck_workload *workload = NULL;
  ck_status status = ck_workload_find(name, &workload);
  ck_spread spread = {.devices = ref(), .device_count = 1};
  ck_run_options options = {.seed = 2, .spread = &spread};
  ck_result result;
  if (status == CK_OK)
    status = ck_workload_run(workload, ref(), params, count, &options, &result);
  if (status == CK_OK) {
    *value = result.best + (double)result.member_count;
    ck_result_release(&result);
  }
  return status;
}

static ck_status api_pso_spread(const void *arg, double *value) {
  (void)arg;
  const ck_param params[] = {
      {"fn", "sphere"}, {"dim", "2"}, {"particles", "6"}, {"iters", "3"}};
  return run_spread("pso", params, 4, value);
}

static ck_status api_ga(const void *arg, double *value) {
  (void)arg;
  ck_ga_config config;
  ck_ga_config_init(&config);
  config.function = "griewank";
  config.dim = 2;
  config.islands = 3;
  config.island_size = 4;
  config.migrants = 1;
  config.migrate_every = 1;
  config.max_generations = 70;
  config.keep_island_history = 1;
  ck_ga *ga = NULL;
  ck_ga_report report;
  const double *best, *mean, *island_best, *island_mean;
  size_t count = 0;
  ck_status status = ck_ga_create(ref(), &config, &ga);
  if (status == CK_OK)
    status = ck_ga_run(ga, &report);
  if (status == CK_OK)
    status =
        ck_ga_get_history(ga, &best, &mean, &island_best, &island_mean, &count);
  if (status == CK_OK)
    *value = best[count - 1] + island_mean[3 * count - 1] + (double)count;
  ck_ga_destroy(ga);
  return status;
}

/* The GA spread over one member, ref, migrating. */
static ck_status api_ga_spread(const void *arg, double *value) {
  (void)arg;
  const ck_param params[] = {{"dim", "2"},           {"islands", "3"},
                             {"island-size", "4"},   {"migrants", "1"},
                             {"migrate-every", "2"}, {"gens", "9"}};
  return run_spread("ga", params, 6, value);
}

static const char explicit_tsp[] =
    "NAME : five\nTYPE : TSP\nDIMENSION : 6\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
    "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
    "3 5 7 9 4\n2 6 8 5\n3 7 2\n4 6\n5\nEOF\n";

static ck_status api_aco(const void *arg, double *value) {
  const char *tour_path = arg;
  ck_tsp_instance instance;
  ck_status status = ck_tsp_parse(explicit_tsp, sizeof explicit_tsp - 1,
                                  "five.tsp", &instance);
  if (status != CK_OK)
    return status;
  ck_aco_config config;
  ck_aco_config_init(&config);
  config.ants = 3;
  config.max_iterations = 80;
  config.keep_trace = 1;
  config.restart_after = 2;
  ck_aco *aco = NULL;
  ck_aco_report report;
  const ck_aco_trace_point *points = NULL;
  size_t count = 0;
  uint32_t tour[6], neighbours[6 * 3];
  int64_t length = 0;
  status = ck_tsp_find_candidates(&instance, 3, neighbours);
  if (status == CK_OK)
    status = ck_aco_create(ref(), &instance, &config, &aco);
  if (status == CK_OK)
    status = ck_aco_run(aco, &report);
  if (status == CK_OK)
    status = ck_aco_get_trace(aco, &points, &count);
  if (status == CK_OK)
    status = ck_aco_get_best(aco, &length, tour);
  if (status == CK_OK)
    status = ck_tsp_tour_save(tour_path, instance.name, tour, 6, length);
  if (status == CK_OK)
    *value = (double)length + (double)points[count - 1].length + neighbours[17];
  ck_aco_destroy(aco);
  ck_tsp_free(&instance);
  return status;
}

/* The gas API's calls, on ref, or spread over ref alone (spread not
 * NULL: its slab's ghosts then come from itself). */
static ck_status gas_calls(const char *path, const ck_spread *spread,
                           double *value) {
  ck_gas_config config;
  ck_gas_config_init(&config);
  config.particles = 16;
  config.rc = 1.5;
  config.neighbors = CK_GAS_VERLET;
  config.skin = 0.3;
  ck_gas *gas = NULL, *loaded = NULL;
  ck_gas_observables observables;
  uint64_t counts[8] = {0};
  double positions[32];
  ck_status status = spread ? ck_gas_create_spread(spread, &config, &gas)
                            : ck_gas_create(ref(), &config, &gas);
  if (status == CK_OK)
    status = ck_gas_step(gas, 3);
  if (status == CK_OK)
    status = ck_gas_observe(gas, &observables);
  if (status == CK_OK)
    status = ck_gas_accumulate_rdf(gas, 8, 1.5, counts);
  if (status == CK_OK)
    status = ck_gas_save(gas, path);
  if (status == CK_OK)
    status = spread ? ck_gas_load_spread(spread, path, &loaded)
                    : ck_gas_load(ref(), path, &loaded);
  if (status == CK_OK)
    status = ck_gas_step(loaded, 1);
  if (status == CK_OK)
    status = ck_gas_get_particles(loaded, positions, NULL);
  if (status == CK_OK)
    *value = positions[31] + (double)counts[7];
  ck_gas_destroy(loaded);
  ck_gas_destroy(gas);
  return status;
}

static ck_status api_gas(const void *arg, double *value) {
  return gas_calls(arg, NULL, value);
}

static ck_status api_gas_spread(const void *arg, double *value) {
  ck_spread spread = {.devices = ref(), .device_count = 1};
  return gas_calls(arg, &spread, value);
}

typedef struct nn_paths {
  const char *images, *model;
} nn_paths;

static ck_status api_nn(const void *arg, double *value) {
  const nn_paths *paths = arg;
  ck_dataset all = {0}, train = {0}, test = {0};
  ck_normalization normalization = {0};
  ck_nn *nn = NULL, *loaded = NULL;
  ck_status status = ck_dataset_load(paths->images, NULL, &all);
  if (status == CK_OK)
    status = ck_dataset_split(&all, 6, &train, &test);
  if (status == CK_OK)
    status = ck_dataset_normalization_fit(&train, CK_NORMALIZE_ZSCORE,
                                          &normalization);
  if (status == CK_OK)
    status = ck_dataset_normalize(&normalization, &test);
  ck_nn_config config;
  ck_nn_config_init(&config);
  config.layer_count = 3;
  config.sizes[0] = 4;
  config.sizes[1] = 3;
  config.sizes[2] = 2;
  config.batch = 2;
  float weights[12], biases[3];
  int32_t classes[4];
  double loss = 0, accuracy = 0;
  if (status == CK_OK)
    status = ck_nn_create(ref(), &config, &nn);
  if (status == CK_OK)
    status = ck_nn_set_preprocessing(nn, &train, CK_NORMALIZE_MINMAX);
  if (status == CK_OK)
    status = ck_nn_attach(nn, CK_NN_TRAIN, &train);
  if (status == CK_OK)
    status = ck_nn_attach(nn, CK_NN_TEST, &test);
  ck_nn_epoch epoch;
  if (status == CK_OK)
    status = ck_nn_train_epoch(nn, &epoch);
  if (status == CK_OK)
    status = ck_nn_evaluate(nn, CK_NN_TEST, &loss, &accuracy, NULL);
  if (status == CK_OK)
    status = ck_nn_get_weights(nn, 0, weights, biases);
  if (status == CK_OK)
    status = ck_nn_set_weights(nn, 0, weights, biases);
  if (status == CK_OK)
    status = ck_nn_save(nn, paths->model);
  if (status == CK_OK)
    status = ck_nn_load(ref(), paths->model, NULL, &loaded);
  if (status == CK_OK)
    status = ck_nn_predict(loaded, &test, classes);
  if (status == CK_OK)
    *value =
        loss + classes[0] + 2 * classes[1] + 4 * classes[2] + 8 * classes[3];
  ck_nn_destroy(loaded);
  ck_nn_destroy(nn);
  ck_dataset_normalization_free(&normalization);
  ck_dataset_free(&test);
  ck_dataset_free(&train);
  ck_dataset_free(&all);
  return status;
}

static ck_status api_lsq(const void *arg, double *value) {
  const char *path = arg;
  ck_lsq_data data = {0}, loaded = {0};
  double coefficients[3];
  ck_status status = ck_lsq_generate(5, 3, 9, 0.1, &data, coefficients);
  if (status == CK_OK)
    status = ck_lsq_save(path, &data, CK_LSQ_BINARY);
  if (status == CK_OK)
    status = ck_lsq_load(path, &loaded);
  if (status == CK_OK)
    status = ck_lsq_save(path, &loaded, CK_LSQ_CSV);
  if (status == CK_OK)
    status = ck_lsq_save_coefficients(path, coefficients, 3);
  if (status == CK_OK)
    status = ck_lsq_evaluate(&loaded, coefficients, value);
  ck_lsq_free(&loaded);
  ck_lsq_free(&data);
  return status;
}

static ck_status api_kernels(const void *arg, double *value) {
  (void)arg;
  size_t count = 0;
  ck_status status = ck_kernels_count(&count);
  for (size_t i = 0; status == CK_OK && i < count; ++i) {
    const char *name, *text;
    size_t size;
    char *whole = NULL;
    status = ck_kernels_get(i, &name, &text, &size);
    if (status == CK_OK)
      status = ck_kernels_assemble(name, &whole, &size);
    if (status == CK_OK)
      *value += (double)size;
    ck_memory_free(whole);
  }
  /* A program assembled for a device (a described one: no runtime). */
  ck_device device = {.id = "ocl:0.0",
                      .backend = CK_BACKEND_OPENCL,
                      .kind = CK_KIND_CPU,
                      .name = "a */ device",
                      .c_version = "OpenCL C 1.2",
                      .max_work_group_size = 256,
                      .local_memory = 65536};
  char *standalone = NULL;
  size_t standalone_size = 0;
  if (status == CK_OK)
    status = ck_kernels_assemble_for_device("pso", &device, &standalone,
                                            &standalone_size);
  if (status == CK_OK)
    *value += (double)standalone_size;
  ck_memory_free(standalone);
  const ck_objective_info *info = NULL;
  double points[4] = {0.5, 0.25, -1, 2}, values[2];
  if (status == CK_OK)
    status = ck_objective_find("michalewicz", &info);
  if (status == CK_OK)
    status = ck_objective_evaluate(ref(), info, 2, points, 2, 1, values);
  if (status == CK_OK)
    *value += values[0] + values[1];
  return status;
}

static ck_status api_compare(const void *arg, double *value) {
  (void)arg;
  const ck_workload *workload;
  ck_status status = ck_workload_find("pso", &workload);
  static const ck_param params[] = {
      {"fn", "sphere"}, {"dim", "2"}, {"particles", "4"}, {"iters", "2"}};
  size_t index = 0, produced = 0;
  ck_result results[2] = {0};
  ck_run_options options = {.seed = 3};
  if (status == CK_OK)
    status = ck_workload_check(workload, params, 4);
  if (status == CK_OK)
    status = ck_workload_check_devices(workload, params, 4, 2);
  if (status == CK_OK)
    status = test_compare_run(workload, &devices, &index, 1, 0, params, 4,
                              &options, results, 2, &produced);
  /* A failed device's row carries its status; the comparison goes on. */
  for (size_t i = 0; status == CK_OK && i < produced; ++i)
    status = results[i].status;
  if (status == CK_OK)
    *value = results[0].best + results[1].best + (double)produced;
  test_results_release(results, 2);
  return status;
}

/* Two spellings of one file that does not exist yet: ck_file_check_same must
 * resolve both to say so, and ck_file_check_writable check the file. */
typedef struct two_paths {
  const char *a, *b;
} two_paths;

static ck_status file_checks(const void *arg, double *value) {
  const two_paths *paths = arg;
  int same = 0;
  ck_status status = ck_file_check_same(paths->a, paths->b, &same);
  if (status == CK_OK)
    status = ck_file_check_writable(paths->b);
  if (status == CK_OK)
    *value = same;
  return status;
}

/* Outputs that name one file are refused before a run; a failed
 * allocation may stop the check, but never let the pair through. */
static ck_status outputs_apart(const void *arg, double *value) {
  const two_paths *paths = arg;
  const ck_workload *workload;
  ck_status status = ck_workload_find("pso", &workload);
  if (status != CK_OK)
    return status;
  const ck_param params[] = {
      {"fn", "sphere"}, {"out", paths->a}, {"trace", paths->b}};
  status = ck_workload_check(workload, params, 3);
  const char *message = "";
  ck_error_get_last(&message);
  if (status == CK_ERROR_INVALID_ARGUMENT && strstr(message, "both name")) {
    *value = 1;
    return CK_OK;
  }
  /* CK_ERROR_MISMATCH: the check let the pair through. */
  return status == CK_OK ? CK_ERROR_MISMATCH : status;
}

/* A result whose JSON outgrows the first block: every metric, a long
 * error. */
static ck_status result_json(const void *arg, double *value) {
  (void)arg;
  static ck_result result = {0};
  memset(&result, 0, sizeof result);
  snprintf(result.workload, sizeof result.workload, "gas");
  snprintf(result.device, sizeof result.device, "ref");
  result.status = CK_ERROR_MISMATCH;
  memset(result.error, 'e', sizeof result.error - 1);
  result.metric_count = CK_RESULT_MAX_METRICS;
  for (size_t i = 0; i < CK_RESULT_MAX_METRICS; ++i) {
    snprintf(result.metrics[i].name, sizeof result.metrics[i].name,
             "metric_with_a_long_name_%zu", i);
    result.metrics[i].value = (double)i / 7;
  }
  char *json = NULL;
  ck_status status = ck_result_format_json(&result, &json);
  if (status == CK_OK)
    *value = (double)strlen(json);
  ck_memory_free(json);
  return status;
}

#if CK_HAVE_CUDA
/* NVRTC's compilation, which needs no device: its machine code is copied
 * into memory of clkit's own. */
static ck_status cuda_compile(const void *arg, double *value) {
  (void)arg;
  ck_status status =
      ck__cuda_compile_check("selfcheck", NULL, "-DCK_SELFCHECK_GROUP=256", 90);
  if (status == CK_OK)
    *value = 1;
  return status;
}
#endif

/* An MLP spread over ref alone, through the API and as a workload run. */
static ck_status api_nn_spread(const void *arg, double *value) {
  const nn_paths *paths = arg;
  ck_dataset all = {0}, train = {0}, test = {0};
  ck_spread spread = {.devices = ref(), .device_count = 1};
  ck_nn_config config;
  ck_nn_config_init(&config);
  config.layer_count = 3;
  config.sizes[0] = 4;
  config.sizes[1] = 3;
  config.sizes[2] = 2;
  config.batch = 4;
  ck_nn *nn = NULL;
  double loss = 0;
  uint64_t confusion[4];
  int32_t classes[4];
  float weights[12], biases[3];
  ck_status status = ck_dataset_load(paths->images, NULL, &all);
  if (status == CK_OK)
    status = ck_dataset_split(&all, 6, &train, &test);
  if (status == CK_OK)
    status = ck_nn_create_spread(&spread, &config, &nn);
  if (status == CK_OK)
    status = ck_nn_set_preprocessing(nn, &train, CK_NORMALIZE_ZSCORE);
  if (status == CK_OK)
    status = ck_nn_attach(nn, CK_NN_TRAIN, &train);
  if (status == CK_OK)
    status = ck_nn_attach(nn, CK_NN_VALIDATION, &test);
  ck_nn_training plan = {2, 1, NULL, NULL, 0};
  ck_nn_report report;
  if (status == CK_OK)
    status = ck_nn_train(nn, &plan, &report);
  if (status == CK_OK)
    status = ck_nn_evaluate(nn, CK_NN_VALIDATION, &loss, NULL, confusion);
  if (status == CK_OK)
    status = ck_nn_get_weights(nn, 0, weights, biases);
  if (status == CK_OK)
    status = ck_nn_set_weights(nn, 0, weights, biases);
  if (status == CK_OK)
    status = ck_nn_predict(nn, &test, classes);
  const ck_workload *workload = NULL;
  if (status == CK_OK)
    status = ck_workload_find("nn", &workload);
  const ck_param params[] = {{"train", "spirals:40"},
                             {"epochs", "1"},
                             {"layers", "2,4,3"},
                             {"batch", "8"},
                             {"save", paths->model}};
  ck_run_options options = {.seed = 7, .spread = &spread};
  ck_result result = {0};
  if (status == CK_OK)
    status = test_workload_run(workload, ref(), params, 5, &options, &result);
  if (status == CK_OK)
    *value = loss + (double)confusion[1] + classes[0] + 2 * classes[1] +
             result.best + (double)result.members[0].units;
  if (status == CK_OK)
    ck_result_release(&result);
  ck_nn_destroy(nn);
  ck_dataset_free(&test);
  ck_dataset_free(&train);
  ck_dataset_free(&all);
  return status;
}

/* A colony spread over ref alone: one colony ranking its ants for local
 * search, then ACS colonies sharing their best. */
static ck_status api_aco_spread(const void *arg, double *value) {
  (void)arg;
  ck_tsp_instance instance;
  ck_status status = ck_tsp_parse(explicit_tsp, sizeof explicit_tsp - 1,
                                  "five.tsp", &instance);
  if (status != CK_OK)
    return status;
  ck_spread spread = {.devices = ref(), .device_count = 1};
  ck_aco_config config;
  ck_aco_config_init(&config);
  config.ants = 4;
  config.max_iterations = 6;
  config.keep_trace = 1;
  config.restart_after = 2;
  config.local_search_ants = 2;
  *value = 0;
  /* MMAS ranked, ACS colonies, then a focused colony whose bound adapts
   * over its members. */
  for (int form = 0; form < 3 && status == CK_OK; ++form) {
    ck_aco *aco = NULL;
    ck_aco_report report;
    int64_t length = 0;
    ck_result result;
    memset(&result, 0, sizeof result);
    status = ck_aco_create_spread(&spread, &instance, &config, &aco);
    if (status == CK_OK)
      status = ck_aco_run(aco, &report);
    if (status == CK_OK)
      status = ck_aco_get_best(aco, &length, NULL);
    if (status == CK_OK)
      status = ck__aco_spread_report(ck__aco_spread_of(aco), &result);
    if (status == CK_OK)
      *value += (double)length + (double)result.members[0].units;
    ck_result_release(&result);
    ck_aco_destroy(aco);
    config.algorithm = form == 0 ? CK_ACO_ACS : CK_ACO_MMAS;
    config.spread_colonies = form == 0 ? 2 : 0;
    if (form == 1) {
      config.method = CK_ACO_FOCUSED;
      config.focus_edges = 0;
    }
  }
  ck_tsp_free(&instance);
  return status;
}

int main(void) {
  const char *data = getenv("CLKIT_TEST_DATA");
  if (!data)
    CHECK_SKIP("CLKIT_TEST_DATA is not set");
  /* No OpenCL driver: the list is ref alone, on every machine. */
  setenv("OCL_ICD_VENDORS", "/nonexistent-clkit-test", 1);
  CHECK_OK(ck_device_enumerate(&devices));
  snprintf(work_dir, sizeof work_dir, "/tmp/clkit-test-alloc-XXXXXX");
  CHECK(mkdtemp(work_dir) != NULL);

  char eil51[600], lsq[600], csv[600];
  snprintf(eil51, sizeof eil51, "%s/tsplib/eil51.tsp", data);
  snprintf(lsq, sizeof lsq, "%s/lsq_small.csv", data);
  test_write_text(work_dir, "iris.csv",
                  "label,a,b\nx,1,2\ny,3,4\nx,5,6\nz,7,8\n", csv, sizeof csv);

  /* Ten 2x2 images and their labels, IDX. */
  char images[600], labels[600];
  test_path_in(work_dir, "tiny-images-idx3-ubyte", images, sizeof images);
  test_path_in(work_dir, "tiny-labels-idx1-ubyte", labels, sizeof labels);
  uint8_t image_bytes[16 + 40] = {0, 0, 8, 3, 0, 0, 0, 10,
                                  0, 0, 0, 2, 0, 0, 0, 2};
  uint8_t label_bytes[8 + 10] = {0, 0, 8, 1, 0, 0, 0, 10};
  for (int i = 0; i < 40; ++i)
    image_bytes[16 + i] = (uint8_t)(i * 37 % 251);
  for (int i = 0; i < 10; ++i)
    label_bytes[8 + i] = (uint8_t)(i % 2);
  CHECK(test_write_bytes(images, image_bytes, sizeof image_bytes) == 0);
  CHECK(test_write_bytes(labels, label_bytes, sizeof label_bytes) == 0);

  sweep("queue round trip", queue_round_trip, NULL);
  sweep("ck_tsp_load", load_tsp, eil51);
  sweep("ck_lsq_load", load_lsq, lsq);
  sweep("ck_dataset_load", load_dataset, csv);

  char out[600], trace[600], svg[600], model[600], checkpoint[600], traj[600],
      rdf[600], png[600], optima[600], train[600], predicted[600], thermo[600],
      plot_svg[600], plot_png[600];
  test_path_in(work_dir, "out.txt", out, sizeof out);
  test_path_in(work_dir, "trace.csv", trace, sizeof trace);
  test_path_in(work_dir, "tour.svg", svg, sizeof svg);
  test_path_in(work_dir, "model.ckn", model, sizeof model);
  test_path_in(work_dir, "gas.ckpt", checkpoint, sizeof checkpoint);
  test_path_in(work_dir, "traj.xyz", traj, sizeof traj);
  test_path_in(work_dir, "rdf.csv", rdf, sizeof rdf);
  test_path_in(work_dir, "gas.png", png, sizeof png);
  test_path_in(work_dir, "thermo.csv", thermo, sizeof thermo);
  /* Charts hold the run's times, which differ from run to run: they are
   * written by cases that hash no outputs. */
  test_path_in(work_dir, "plot.svg", plot_svg, sizeof plot_svg);
  test_path_in(work_dir, "plot.png", plot_png, sizeof plot_png);
  test_path_in(work_dir, "predicted.txt", predicted, sizeof predicted);
  snprintf(optima, sizeof optima, "%s/tsplib/optima.txt", data);
  test_write_text(work_dir, "train.csv",
                  "1,0.1,0.2\n0,0.3,0.1\n1,0.5,0.9\n0,0.7,0.2\n1,0.2,0.8\n"
                  "0,0.9,0.1\n1,0.4,0.6\n0,0.8,0.3\n",
                  train, sizeof train);

  char named[600], named_model[600], gzip[600];
  test_write_text(work_dir, "named.csv", "label,a,b\ny,2,3\nz,8,7\nx,4,4\n",
                  named, sizeof named);
  test_path_in(work_dir, "named.ckn", named_model, sizeof named_model);
  /* The images compressed. */
  test_path_in(work_dir, "tiny-images-idx3-ubyte.gz", gzip, sizeof gzip);
#ifdef CK_HAVE_ZLIB
  gzFile compressed = gzopen(gzip, "wb");
  CHECK(compressed && gzwrite(compressed, image_bytes, sizeof image_bytes) ==
                          (int)sizeof image_bytes);
  CHECK(compressed && gzclose(compressed) == Z_OK);
  const ck_param nn_gzip[] = {
      {"train", gzip}, {"train-labels", labels}, {"epochs", "1"}};
#else
  const ck_param nn_gzip[] = {{"train", images}, {"epochs", "1"}};
#endif
  const ck_param pso[] = {{"fn", "rastrigin"}, {"dim", "3"}, {"particles", "8"},
                          {"iters", "3"},      {"out", out}, {"trace", trace}};
  /* An output through a link to a file not made yet, and one written in
   * place. */
  char link[600], linked[600];
  test_path_in(work_dir, "link.txt", link, sizeof link);
  test_path_in(work_dir, "linked.txt", linked, sizeof linked);
  CHECK(symlink("linked.txt", link) == 0);
  const ck_param pso_link[] = {{"fn", "sphere"},   {"dim", "2"},
                               {"particles", "4"}, {"iters", "2"},
                               {"out", link},      {"trace", "/dev/null"}};
  const ck_param pso_ring[] = {{"fn", "ackley"},       {"dim", "2"},
                               {"particles", "6"},     {"iters", "2"},
                               {"topology", "ring:2"}, {"precision", "double"},
                               {"bounds", "reflect"},  {"lo", "-1,-2"},
                               {"hi", "1,2"},          {"plot", plot_svg}};
  const ck_param pso_lsq[] = {
      {"fn", "lsq"}, {"data", lsq}, {"particles", "4"}, {"iters", "2"}};
  const ck_param ga[] = {
      {"fn", "sphere"},       {"dim", "3"},          {"islands", "2"},
      {"island-size", "4"},   {"gens", "3"},         {"trace", trace},
      {"trace-islands", "1"}, {"out", out},          {"migrate-every", "1"},
      {"migrants", "1"},      {"topology", "random"}};
  const ck_param ga_lsq[] = {{"fn", "lsq"},           {"data", lsq},
                             {"islands", "2"},        {"island-size", "4"},
                             {"gens", "2"},           {"crossover", "sbx:2"},
                             {"mutation", "poly:20"}, {"plot", plot_png}};
  const ck_param aco[] = {
      {"instance", eil51}, {"ants", "4"},    {"iters", "2"}, {"optima", optima},
      {"tour-out", out},   {"trace", trace}, {"svg", svg}};
  const ck_param aco_acs[] = {{"instance", "random:30"},
                              {"algo", "acs"},
                              {"ants", "3"},
                              {"iters", "2"},
                              {"ls", "2opt"},
                              {"candidates", "5"},
                              {"plot", plot_svg}};
  const ck_param aco_partition[] = {
      {"instance", "random:40"}, {"ants", "2"},  {"iters", "2"},
      {"partition", "8"},        {"kicks", "1"}, {"restart", "1"}};
  const ck_param aco_focused[] = {{"instance", "random:30"},
                                  {"method", "focused"},
                                  {"ants", "3"},
                                  {"iters", "3"}};
  const ck_param nn[] = {{"train", "spirals:40"}, {"epochs", "2"},
                         {"layers", "2,4,3"},     {"val", "0.25"},
                         {"trace", trace},        {"save", model}};
  const ck_param nn_csv[] = {
      {"train", train},        {"split", "0.25"},    {"epochs", "2"},
      {"batch", "3"},          {"optimizer", "sgd"}, {"schedule", "cosine"},
      {"normalize", "minmax"}, {"act", "tanh"},      {"plot", plot_png}};
  const ck_param nn_named[] = {{"train", csv},
                               {"test", named},
                               {"epochs", "1"},
                               {"batch", "2"},
                               {"save", named_model}};
  const ck_param nn_named_predict[] = {
      {"load", named_model}, {"predict", named}, {"out", predicted}};
  const ck_param nn_load[] = {
      {"load", model}, {"epochs", "1"}, {"train", "spirals:20"}};
  const ck_param nn_predict[] = {
      {"load", model}, {"predict", train}, {"out", predicted}};
  const ck_param gas[] = {{"particles", "20"}, {"steps", "3"},
                          {"log-every", "1"},  {"rdf", rdf},
                          {"rdf-every", "1"},  {"traj", traj},
                          {"traj-every", "2"}, {"png", png},
                          {"png-size", "16"},  {"checkpoint", checkpoint},
                          {"thermo", thermo}};
  const ck_param gas_verlet[] = {{"particles", "20"},
                                 {"steps", "3"},
                                 {"neighbors", "verlet:0.3"},
                                 {"thermostat", "langevin:1:0.5"},
                                 {"walls", "1"},
                                 {"plot", plot_svg}};
  const ck_param gas_allpairs[] = {{"particles", "12"},
                                   {"steps", "2"},
                                   {"rc", "1.5"},
                                   {"neighbors", "allpairs"},
                                   {"thermostat", "rescale:1:1"},
                                   {"lattice", "square"}};
  const ck_param gas_restart[] = {{"restart", checkpoint}, {"steps", "2"}};
  const ck_param gas_xyz[] = {{"xyz", traj}, {"steps", "2"}};
  static const ck_param selfcheck[] = {{"count", "100"}};
  const workload_case cases[] = {
#define COUNTED(params) params, sizeof params / sizeof *params
      {"pso", COUNTED(pso), {out}},
      {"pso", COUNTED(pso_link), {linked}},
      {"pso", COUNTED(pso_ring), {NULL}},
      {"pso", COUNTED(pso_lsq), {NULL}},
      {"ga", COUNTED(ga), {out}},
      {"ga", COUNTED(ga_lsq), {NULL}},
      {"aco", COUNTED(aco), {out, svg}},
      {"aco", COUNTED(aco_acs), {NULL}},
      {"aco", COUNTED(aco_partition), {NULL}},
      {"aco", COUNTED(aco_focused), {NULL}},
      {"nn", COUNTED(nn), {model}},
      {"nn", COUNTED(nn_csv), {NULL}},
      {"nn", COUNTED(nn_load), {NULL}},
      {"nn", COUNTED(nn_predict), {predicted}},
      {"nn", COUNTED(nn_named), {named_model}},
      {"nn", COUNTED(nn_named_predict), {predicted}},
      {"nn", COUNTED(nn_gzip), {NULL}},
      {"gas", COUNTED(gas), {rdf, traj, png, checkpoint, thermo}},
      {"gas", COUNTED(gas_verlet), {NULL}},
      {"gas", COUNTED(gas_allpairs), {NULL}},
      {"gas", COUNTED(gas_restart), {NULL}},
      {"gas", COUNTED(gas_xyz), {NULL}},
      {"selfcheck", COUNTED(selfcheck), {NULL}},
#undef COUNTED
  };
  char file[600];
  test_path_in(work_dir, "file", file, sizeof file);
  char fresh[600], respelled[600];
  test_path_in(work_dir, "fresh.txt", fresh, sizeof fresh);
  test_path_in(work_dir, "./fresh.txt", respelled, sizeof respelled);
  const two_paths spellings = {fresh, respelled};
  sweep_case("ck_file_check_same", file_checks, &spellings, 1);
  sweep("outputs apart", outputs_apart, &spellings);
  sweep_case("ck_result_format_json", result_json, NULL, 1);
#if CK_HAVE_CUDA
  sweep("CUDA compilation", cuda_compile, NULL);
#endif
  sweep("pso API", api_pso, NULL);
  sweep("session", api_session, NULL);
  sweep("pso host objective API", api_pso_host, NULL);
  sweep("ga host objective API", api_ga_host, NULL);
  sweep("pso spread", api_pso_spread, NULL);
  sweep("ga API", api_ga, NULL);
  sweep("ga spread", api_ga_spread, NULL);
  sweep("aco API", api_aco, file);
  sweep("aco spread", api_aco_spread, NULL);
  sweep("gas API", api_gas, file);
  sweep("gas spread API", api_gas_spread, file);
  const nn_paths nn_files = {images, model};
  sweep("nn API", api_nn, &nn_files);
  sweep("nn spread", api_nn_spread, &nn_files);
  sweep("lsq API", api_lsq, file);
  sweep("kernels", api_kernels, NULL);
  sweep("compare", api_compare, NULL);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    char name[64];
    snprintf(name, sizeof name, "%s case %zu", cases[i].workload, i);
    sweep(name, run_workload, &cases[i]);
  }

  /* Runs stopped by a failure left no temporary files behind. */
  DIR *directory = opendir(work_dir);
  CHECK(directory != NULL);
  struct dirent *entry;
  while (directory && (entry = readdir(directory)) != NULL)
    CHECK_MSG(strstr(entry->d_name, ".tmp.") == NULL, "%s/%s is left", work_dir,
              entry->d_name);
  if (directory)
    closedir(directory);

  ck_device_set_free(&devices);
  remove_tree(work_dir);
  return CHECK_DONE();
}
