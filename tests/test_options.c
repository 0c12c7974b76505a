/*
 * test_options.c - every workload option against its config field, over
 * the option tables themselves: the default that --help shows reads back
 * as the value config_init gives, and a value just past either end of the
 * field's range is refused by the option reader (naming the option and
 * the field) and by the library's create (naming the field), at the same
 * bound, but where the library gives that value a meaning of its own.
 */
#include <float.h>
#include <stddef.h>

#include "aco/aco_internal.h"
#include "check.h"
#include "framework/framework.h"
#include "ga/ga_internal.h"
#include "gas/gas_internal.h"
#include "nn/nn_internal.h"
#include "pso/pso_internal.h"

/* Room for any workload's job (its config first). */
typedef union job_room {
  max_align_t align;
  unsigned char bytes[1 << 16];
} job_room;

static ck_tsp_instance instance;

static ck_status gas_init(void *config) {
  return ck_gas_config_init(config);
}
static ck_status pso_init(void *config) {
  return ck_pso_config_init(config);
}
static ck_status ga_init(void *config) {
  return ck_ga_config_init(config);
}
static ck_status aco_init(void *config) {
  return ck_aco_config_init(config);
}
static ck_status nn_init(void *config) {
  return ck_nn_config_init(config);
}
static ck_status dataset_init(void *config) {
  return ck_dataset_options_init(config);
}

/* Small settings that create quickly on ref, and those under which the
 * library checks the field tested. */
static void gas_small(void *config, const char *field) {
  (void)field;
  ((ck_gas_config *)config)->particles = 64;
}
static void pso_small(void *config, const char *field) {
  ck_pso_config *c = config;
  (void)field;
  c->particles = 8;
  c->dim = 2;
}
static void ga_small(void *config, const char *field) {
  ck_ga_config *c = config;
  (void)field;
  c->islands = 2;
  c->island_size = 8;
  c->dim = 2;
}
static void aco_small(void *config, const char *field) {
  ck_aco_config *c = config;
  if (strcmp(field, "target_gap") == 0) {
    c->has_target = 1;
    c->optimum = 100;
  }
}
static void nn_small(void *config, const char *field) {
  (void)config;
  (void)field;
}

static ck_status gas_create(const ck_device *ref, const void *config) {
  ck_gas *gas = NULL;
  ck_status status = ck_gas_create(ref, config, &gas);
  ck_gas_destroy(gas);
  return status;
}
static ck_status pso_create(const ck_device *ref, const void *config) {
  ck_pso *pso = NULL;
  ck_status status = ck_pso_create(ref, config, &pso);
  ck_pso_destroy(pso);
  return status;
}
static ck_status ga_create(const ck_device *ref, const void *config) {
  ck_ga *ga = NULL;
  ck_status status = ck_ga_create(ref, config, &ga);
  ck_ga_destroy(ga);
  return status;
}
static ck_status aco_create(const ck_device *ref, const void *config) {
  ck_aco *aco = NULL;
  ck_status status = ck_aco_create(ref, &instance, config, &aco);
  ck_aco_destroy(aco);
  return status;
}
static ck_status nn_create(const ck_device *ref, const void *config) {
  ck_nn *nn = NULL;
  ck_status status = ck_nn_create(ref, config, &nn);
  ck_nn_destroy(nn);
  return status;
}

/* A public config: its init, and its create on ref (NULL: checked only
 * where its data are read, ck_dataset_load). */
typedef struct config_kind {
  const char *name;
  ck_status (*init)(void *config);
  void (*small)(void *config, const char *field);
  ck_status (*create)(const ck_device *ref, const void *config);
} config_kind;

static const config_kind kinds[] = {
    {"ck_gas_config", gas_init, gas_small, gas_create},
    {"ck_pso_config", pso_init, pso_small, pso_create},
    {"ck_ga_config", ga_init, ga_small, ga_create},
    {"ck_aco_config", aco_init, aco_small, aco_create},
    {"ck_nn_config", nn_init, nn_small, nn_create},
    {"ck_dataset_options", dataset_init, NULL, NULL},
};

static const config_kind *kind_of(const char *config) {
  for (size_t i = 0; config && i < sizeof kinds / sizeof *kinds; ++i)
    if (strcmp(kinds[i].name, config) == 0)
      return &kinds[i];
  return NULL;
}

/*
 * The ends past which the library gives a value a meaning, where the
 * option refuses it, beside a word's value and an unset 0: any count of
 * steps or evaluations is taken; a negative q0 or pm is the default; any
 * nonzero precision is double.
 */
static const struct {
  const char *field; /* CONFIG.FIELD */
  int low, high;     /* the ends the library takes */
} meanings[] = {
    {"ck_pso_config.max_evaluations", 0, 1},
    {"ck_pso_config.max_iterations", 1, 1},
    {"ck_ga_config.max_evaluations", 0, 1},
    {"ck_ga_config.max_generations", 1, 1},
    {"ck_aco_config.max_iterations", 1, 1},
    {"ck_aco_config.q0", 1, 0},
    {"ck_ga_config.mutation_rate", 1, 0},
    {"ck_pso_config.double_precision", 1, 1},
    {"ck_ga_config.double_precision", 1, 1},
};

static int library_takes(const char *config, const ck__field *field, int high,
                         double value) {
  char name[96];
  if (ck__field_word_of(field, value) ||
      (field->flags & CK__FIELD_UNSET && value == 0))
    return 1;
  snprintf(name, sizeof name, "%s.%s", config, field->name);
  for (size_t i = 0; i < sizeof meanings / sizeof *meanings; ++i)
    if (strcmp(meanings[i].field, name) == 0)
      return high ? meanings[i].high : meanings[i].low;
  return 0;
}

static int is_integer(const ck__field *field) {
  return field->type != CK__FIELD_REAL && field->type != CK__FIELD_TEXT;
}

/* The largest value a field's type holds, and the least. */
static double type_maximum(const ck__field *field) {
  switch (field->type) {
  case CK__FIELD_INT:
    return 2147483647.0;
  case CK__FIELD_UINT:
    return 4294967295.0;
  case CK__FIELD_INT64:
    return 0x1p63;
  case CK__FIELD_SIZE:
  case CK__FIELD_UINT64:
    return 0x1p64;
  default:
    return DBL_MAX;
  }
}
static double type_minimum(const ck__field *field) {
  switch (field->type) {
  case CK__FIELD_INT:
    return -2147483648.0;
  case CK__FIELD_INT64:
    return -0x1p63;
  case CK__FIELD_REAL:
    return -DBL_MAX;
  default:
    return 0;
  }
}

/* A config (or job) with its defaults in place, at base in room. */
static void fresh(job_room *room, const ck__option *option) {
  memset(room, 0, sizeof *room);
  const config_kind *kind = kind_of(option->config);
  void *at = room->bytes + option->base;
  if (kind)
    CHECK_OK(kind->init(at));
  else
    ck__fields_init(at, option->field, 1);
}

/* The option alone, given text, into room. */
static ck_status read_one(const ck__option *option, const char *text,
                          job_room *room) {
  const ck__option one[] = {*option, {0}};
  const ck_param param = {option->name, text};
  return ck__options_read(one, &param, 1, room->bytes);
}

/* The default --help shows reads back as the config's own default. */
static void check_default(const char *workload, const ck__option *option,
                          const ck_option *shown) {
  const ck__field *field = option->field;
  job_room *expected = calloc(1, sizeof *expected);
  job_room *read = calloc(1, sizeof *read);
  if (!expected || !read)
    abort();
  fresh(expected, option);
  fresh(read, option);
  const unsigned char *want = expected->bytes + option->base;
  const unsigned char *got = read->bytes + option->base;
  if (shown->default_value) {
    CHECK_OK(read_one(option, shown->default_value, read));
  } else {
    /* A file with no default, or a rule off unless given: the field is
     * empty or 0. */
    CHECK_MSG(field->type == CK__FIELD_TEXT
                  ? field->text == NULL
                  : field->value == 0 || (option->flags & CK__OPTION_OFF) ||
                        !option->value_name,
              "%s --%s shows no default, but %s defaults to %g", workload,
              option->name, field->name, field->value);
  }
  if (field->type == CK__FIELD_TEXT) {
    const char *a, *b;
    memcpy(&a, want + field->offset, sizeof a);
    memcpy(&b, got + field->offset, sizeof b);
    CHECK_MSG((!a && !b) || (a && b && strcmp(a, b) == 0),
              "%s --%s: default '%s', read back '%s'", workload, option->name,
              a ? a : "(null)", b ? b : "(null)");
  } else {
    double a = ck__field_get(want, field), b = ck__field_get(got, field);
    CHECK_MSG(a == b && a == field->value,
              "%s --%s: config_init gives %s = %.17g, the table %.17g, the "
              "shown default '%s' reads %.17g",
              workload, option->name, field->name, a, field->value,
              shown->default_value ? shown->default_value : "(none)", b);
  }
  free(expected);
  free(read);
}

/* A value just past one end of the field's range, or 0 where none can be
 * typed or stored. */
static int past_end(const ck__field *field, int high, double *value) {
  int open =
      high ? field->flags & CK__FIELD_BELOW : field->flags & CK__FIELD_ABOVE;
  double end = high ? field->maximum : field->minimum;
  if (open)
    *value = end;
  else if (is_integer(field))
    *value = high ? end + 1 : end - 1;
  /* A real's next; an integer's past 2^53, where a step of 1 is lost. */
  if (!open && (!is_integer(field) || *value == end))
    *value = nextafter(end, high ? INFINITY : -INFINITY);
  return isfinite(*value) && *value <= type_maximum(field) &&
         *value >= type_minimum(field);
}

/* The option reader and the library refuse a value past either end. */
static void check_bounds(const ck_workload *workload, const char *name,
                         const ck__option *option, const ck_device *ref) {
  const ck__field *field = option->field;
  const config_kind *kind = kind_of(option->config);
  int is_enum = field->minimum > field->maximum;
  for (int high = 0; high < 2; ++high) {
    double value = 0;
    char text[64];
    if (is_enum) {
      /* A word the field lacks, and a value past its words. */
      if (high)
        break;
      snprintf(text, sizeof text, "%s", "bogus");
      value = 0;
      for (const ck__field_word *word = field->words; word->word; ++word)
        if (word->value >= value)
          value = word->value + 1;
    } else if (!past_end(field, high, &value)) {
      continue;
    } else {
      snprintf(text, sizeof text, "%.17g", value);
    }
    const ck_param param = {option->name, text};
    ck_status status = ck_workload_check(workload, &param, 1);
    const char *message = "";
    ck_error_get_last(&message);
    char option_name[80], field_name[96];
    snprintf(option_name, sizeof option_name, "option --%s: ", option->name);
    snprintf(field_name, sizeof field_name, "%s.%s: ", option->config,
             field->name);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                  strstr(message, option_name) &&
                  (!option->config || strstr(message, field_name)),
              "%s --%s %s: status %d, '%s'", name, option->name, text,
              (int)status, message);
    if (!kind || !kind->create)
      continue;
    /* The library, the value stored as its config field holds it. */
    job_room *room = calloc(1, sizeof *room);
    if (!room)
      abort();
    CHECK_OK(kind->init(room->bytes));
    kind->small(room->bytes, field->name);
    ck__field_set(room->bytes, field, value);
    status = kind->create(ref, room->bytes);
    ck_error_get_last(&message);
    if (library_takes(option->config, field, high, value))
      CHECK_MSG(status != CK_ERROR_INVALID_ARGUMENT, "%s %s = %s: '%s'",
                option->config, field->name, text, message);
    else
      CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                    strstr(message, field_name),
                "%s %s = %s: status %d, '%s'", option->config, field->name,
                text, (int)status, message);
    free(room);
  }
}

/* Each option with a field, in each workload's table. */
static void check_workloads(const ck_device *ref) {
  const ck_workload *const *workloads = NULL;
  size_t count = 0;
  CHECK_OK(ck_workload_list(&workloads, &count));
  for (size_t w = 0; w < count; ++w) {
    const char *name = NULL;
    const ck_option *shown = NULL;
    CHECK_OK(ck_workload_describe(workloads[w], &name, NULL, &shown));
    printf("%s\n", name);
    for (size_t i = 0; workloads[w]->options[i].name; ++i) {
      const ck__option *option = &workloads[w]->options[i];
      CHECK(strcmp(option->name, shown[i].name) == 0);
      if (!option->field || !option->value_name)
        continue;
      check_default(name, option, &shown[i]);
      /* A syntax of its own reads its ranges from the same fields
       * (tested with each workload); a file has none. */
      if (!option->read && option->field->type != CK__FIELD_TEXT)
        check_bounds(workloads[w], name, option, ref);
    }
  }
}

/* Readings of the workload's option table by one call of f. */
#define READS(f)                                                               \
  (reads_before = ck__options_reads(), (f), ck__options_reads() - reads_before)

/* ck_workload_run reads its params once, as ck_workload_check does (and,
 * spread over one ref member, ck_workload_check_spread), for the demo of
 * every workload on ref. */
static void read_once(const ck_device *ref) {
  const ck_workload *const *workloads = NULL;
  size_t count = 0;
  uint64_t reads_before = 0;
  CHECK_OK(ck_workload_list(&workloads, &count));
  ck_spread alone = {.devices = ref, .device_count = 1};
  for (size_t w = 0; w < count; ++w) {
    const ck_workload *workload = workloads[w];
    const ck_param *params = workload->demo;
    size_t n = workload->demo_count;
    for (int spread = 0; spread <= workload->spreads; ++spread) {
      ck_status checked = CK_OK;
      uint64_t check_reads = READS(
          checked = spread ? ck_workload_check_spread(workload, params, n, 1)
                           : ck_workload_check(workload, params, n));
      ck_run_options options = {.seed = 1, .spread = spread ? &alone : NULL};
      ck_result result;
      ck_status ran = CK_OK;
      uint64_t run_reads = READS(
          ran = ck_workload_run(workload, ref, params, n, &options, &result));
      CHECK_MSG(checked == CK_OK && ran == CK_OK, "%s%s demo: check %d, run %d",
                workload->name, spread ? " spread" : "", checked, ran);
      CHECK_MSG(check_reads == 1 && run_reads == 1,
                "%s%s: the check reads the options %llu times, the run %llu",
                workload->name, spread ? " spread" : "",
                (unsigned long long)check_reads, (unsigned long long)run_reads);
      if (ran == CK_OK)
        ck_result_release(&result);
    }
  }
}

/* A prepared job reads its params once and runs twice without reading
 * them again, each run as ck_workload_run's; its refusals are the run's. */
static void job_reads_once(const ck_device *ref) {
  const ck_workload *workload = NULL;
  uint64_t reads_before = 0;
  CHECK_OK(ck_workload_find("pso", &workload));
  const ck_param params[] = {
      {"fn", "sphere"}, {"dim", "4"}, {"particles", "64"}, {"iters", "20"}};
  ck_run_options options = {.seed = 3};
  ck_job *job = NULL;
  ck_status prepared = CK_OK;
  uint64_t prepare_reads =
      READS(prepared = ck_job_prepare(workload, params, 4, &options, &job));
  CHECK_OK(prepared);
  ck_result runs[5];
  ck_status ran[2] = {CK_OK, CK_OK};
  uint64_t run_reads = READS((ran[0] = ck_job_run(job, ref, &runs[0]),
                              ran[1] = ck_job_run(job, ref, &runs[1])));
  CHECK_OK(ran[0]);
  CHECK_OK(ran[1]);
  CHECK_MSG(prepare_reads == 1 && run_reads == 0,
            "a job reads its options %llu times, its runs %llu",
            (unsigned long long)prepare_reads, (unsigned long long)run_reads);
  CHECK_OK(ck_workload_run(workload, ref, params, 4, &options, &runs[2]));
  /* A comparison reads them once for its two runs too. */
  ck_device_set set = {.devices = (ck_device *)ref, .count = 1};
  const size_t twice[2] = {0, 0};
  size_t produced = 0;
  ck_status compared = CK_OK;
  uint64_t compare_reads =
      READS(compared = ck_compare_run(workload, &set, twice, 2, 1, params, 4,
                                      &options, &runs[3], 2, &produced));
  CHECK_OK(compared);
  CHECK_MSG(compare_reads == 1 && produced == 2,
            "a comparison reads its options %llu times for %zu runs",
            (unsigned long long)compare_reads, produced);
  for (int r = 0; r < 5; ++r)
    if (r != 2)
      CHECK_MSG(runs[r].best == runs[2].best && runs[r].seed == 3,
                "run %d: best %.17g against %.17g", r, runs[r].best,
                runs[2].best);
  for (int r = 0; r < 3 + (int)produced; ++r)
    ck_result_release(&runs[r]);
  CHECK_OK(ck_job_free(job));
  CHECK_OK(ck_job_free(NULL));
  /* Refused as a run refuses them, and no job made. */
  const ck_param bad[] = {{"fn", "sphere"}, {"dim", "0"}};
  job = (ck_job *)&options;
  CHECK(ck_job_prepare(workload, bad, 2, NULL, &job) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(job == NULL);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "--dim") != NULL, "message: %s", message);
  const ck_param unknown[] = {{"fnn", "sphere"}};
  CHECK(ck_job_prepare(workload, unknown, 1, NULL, &job) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_job_prepare(NULL, params, 4, NULL, &job) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_job_prepare(workload, params, 4, NULL, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_job_run(NULL, ref, &runs[0]) == CK_ERROR_INVALID_ARGUMENT);
  /* A missing input file is no refused option: the job is made, and its
   * load (or, without one, its run) fails naming the file. */
  const ck_workload *aco = NULL;
  CHECK_OK(ck_workload_find("aco", &aco));
  const ck_param missing[] = {{"instance", "no-such-file.tsp"}};
  CHECK_OK(ck_job_prepare(aco, missing, 1, NULL, &job));
  CHECK(ck_job_load(job) == CK_ERROR_IO);
  CHECK(ck_job_run(job, ref, &runs[0]) == CK_ERROR_IO);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "no-such-file.tsp") != NULL, "message: %s",
            message);
  CHECK_OK(ck_job_free(job));
  CHECK(ck_job_load(NULL) == CK_ERROR_INVALID_ARGUMENT);
}

/* Each field's range and default fit its type, and the default lies in
 * the range or is one of its words. */
static void check_fields(const char *config, const ck__field *fields,
                         size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const ck__field *field = &fields[i];
    CHECK_MSG(field->name != NULL, "%s: field %zu has no entry", config, i);
    if (!field->name || field->type == CK__FIELD_TEXT)
      continue;
    int is_enum = field->minimum > field->maximum;
    CHECK_MSG(is_enum || (field->minimum >= type_minimum(field) &&
                          field->maximum <= type_maximum(field)),
              "%s.%s: range [%g, %g] past its type", config, field->name,
              field->minimum, field->maximum);
    CHECK_MSG(ck__field_in_range(field, field->value) ||
                  ck__field_word_of(field, field->value) ||
                  (field->flags & CK__FIELD_UNSET && field->value == 0),
              "%s.%s: default %g outside its range and words", config,
              field->name, field->value);
  }
}

int main(void) {
  check_fields("ck_gas_config", ck__gas_fields, CK__GAS_FIELDS);
  check_fields("ck_pso_config", ck__pso_fields, CK__PSO_FIELDS);
  check_fields("ck_ga_config", ck__ga_fields, CK__GA_FIELDS);
  check_fields("ck_aco_config", ck__aco_fields, CK__ACO_FIELDS);
  check_fields("ck_nn_config", ck__nn_fields, CK__NN_FIELDS);
  check_fields("ck_dataset_options", ck__dataset_fields, CK__DATASET_FIELDS);
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  /* Ten cities on a circle of radius 100 (EUC_2D). */
  static const char cities[] = "NAME : ring10\nTYPE : TSP\nDIMENSION : 10\n"
                               "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                               "1 100 0\n2 81 59\n3 31 95\n4 -31 95\n"
                               "5 -81 59\n6 -100 0\n7 -81 -59\n8 -31 -95\n"
                               "9 31 -95\n10 81 -59\nEOF\n";
  CHECK_OK(ck_tsp_parse(cities, sizeof cities - 1, "ring10", &instance));
  check_workloads(ref);
  read_once(ref);
  job_reads_once(ref);
  ck_tsp_free(&instance);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
