/*
 * test_status - status names, the thread-local last error, results as
 * JSON (also under a caller's locale with a decimal comma), the library
 * version, workload parameter validation and the test hooks.
 */
#include "check.h"
#include "test_support.h"
#include "util/util.h"

#include <float.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>

/* The raw text after "key": in an object, or NULL. */
static const char *json_field(const char *json, const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *at = strstr(json, pattern);
  return at ? at + strlen(pattern) : NULL;
}

static int json_number_is(const char *json, const char *key, double value) {
  const char *at = json_field(json, key);
  if (!at)
    return 0;
  char *end = NULL;
  double parsed = strtod(at, &end);
  return end != at && (*end == ',' || *end == '}') && parsed == value;
}

static void check_validator(void) {
  /* The validator itself must tell good from bad, or the checks below
   * prove nothing. */
  CHECK(json_is_object("{}"));
  CHECK(json_is_object("{\"a\":[1,-2.5e3,true,null,\"x\\n\\u0001\"]}"));
  CHECK(!json_is_object("{\"a\":nan}"));
  CHECK(!json_is_object("{\"a\":1,}"));
  CHECK(!json_is_object("{\"a\":\"line\nbreak\"}"));
  CHECK(!json_is_object("{\"a\":\"bad \\q escape\"}"));
  CHECK(!json_is_object("{\"a\":1}x"));
  CHECK(!json_is_object("[1]"));
}

/* ---- status names -------------------------------------------------------- */

static void check_status_names(void) {
  static const struct {
    ck_status status;
    const char *name;
  } names[] = {
      {CK_OK, "CK_OK"},
      {CK_ERROR_INVALID_ARGUMENT, "CK_ERROR_INVALID_ARGUMENT"},
      {CK_ERROR_OUT_OF_MEMORY, "CK_ERROR_OUT_OF_MEMORY"},
      {CK_ERROR_IO, "CK_ERROR_IO"},
      {CK_ERROR_PARSE, "CK_ERROR_PARSE"},
      {CK_ERROR_NOT_FOUND, "CK_ERROR_NOT_FOUND"},
      {CK_ERROR_NO_PLATFORM, "CK_ERROR_NO_PLATFORM"},
      {CK_ERROR_BUILD, "CK_ERROR_BUILD"},
      {CK_ERROR_DEVICE, "CK_ERROR_DEVICE"},
      {CK_ERROR_DEVICE_MEMORY, "CK_ERROR_DEVICE_MEMORY"},
      {CK_ERROR_UNSUPPORTED, "CK_ERROR_UNSUPPORTED"},
      {CK_ERROR_CACHE, "CK_ERROR_CACHE"},
      {CK_ERROR_CANCELLED, "CK_ERROR_CANCELLED"},
      {CK_ERROR_MISMATCH, "CK_ERROR_MISMATCH"},
      {CK_ERROR_EXCHANGE, "CK_ERROR_EXCHANGE"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char *name = NULL;
    CHECK_OK(ck_status_get_name(names[i].status, &name));
    CHECK_MSG(name && strcmp(name, names[i].name) == 0, "status %d: '%s'",
              (int)names[i].status, name ? name : "(null)");
  }
  static const int unknown[] = {15, 99, -1, 1 << 20};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    const char *name = NULL;
    CHECK_OK(ck_status_get_name((ck_status)unknown[i], &name));
    CHECK_MSG(name && strcmp(name, "CK_ERROR_UNKNOWN") == 0, "status %d: '%s'",
              unknown[i], name ? name : "(null)");
  }
  /* Like every failing call, it leaves a message for ck_error_get_last(). */
  ck_error_clear();
  CHECK(ck_status_get_name(CK_OK, NULL) == CK_ERROR_INVALID_ARGUMENT);
  const char *message = NULL;
  CHECK_MSG(ck_error_get_last(&message) == CK_ERROR_INVALID_ARGUMENT,
            "ck_status_get_name(..., NULL) failed without recording why");
  CHECK(message && *message);
  ck_error_clear();
}

/* Every status from the list has its own name, spelt like its enum
 * constant, and a message; values off the list have neither. */
static void check_status_messages(void) {
  static const struct {
    ck_status status;
    const char *name;
  } listed[] = {
#define CHECK_STATUS_ENTRY(symbol, value, text) {CK_##symbol, "CK_" #symbol},
      CK_STATUS_MAP(CHECK_STATUS_ENTRY)
#undef CHECK_STATUS_ENTRY
  };
  size_t count = sizeof listed / sizeof listed[0];
  /* The list runs 0, 1, 2... with no gap; the ABI fixed the last one. */
  CHECK(CK_ERROR_MISMATCH == 13);
  CHECK(CK_ERROR_EXCHANGE == 14);
  for (size_t i = 0; i < count; ++i) {
    CHECK_MSG((size_t)listed[i].status == i, "%s is %d", listed[i].name,
              (int)listed[i].status);
    const char *name = NULL, *message = NULL;
    CHECK_OK(ck_status_get_name(listed[i].status, &name));
    CHECK_MSG(name && strcmp(name, listed[i].name) == 0, "%s named '%s'",
              listed[i].name, name ? name : "(null)");
    CHECK_OK(ck_status_get_message(listed[i].status, &message));
    CHECK_MSG(message && *message, "%s has no message", listed[i].name);
    for (size_t j = 0; j < i; ++j) {
      const char *other = NULL, *other_message = NULL;
      ck_status_get_name(listed[j].status, &other);
      ck_status_get_message(listed[j].status, &other_message);
      CHECK_MSG(name && other && strcmp(name, other) != 0,
                "statuses %zu and %zu share the name '%s'", j, i, name);
      CHECK_MSG(message && other_message && strcmp(message, other_message) != 0,
                "statuses %zu and %zu share the message '%s'", j, i,
                message ? message : "(null)");
    }
  }
  const char *message = NULL;
  CHECK_OK(ck_status_get_message(CK_ERROR_PARSE, &message));
  CHECK(message && strcmp(message, "malformed input data") == 0);

  /* Off the list: refused, and the caller's pointer is left alone. */
  static const int unknown[] = {15, 99, -1, 1 << 20};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    const char *kept = "kept";
    char mention[64];
    snprintf(mention, sizeof mention, "%d is not a clkit status", unknown[i]);
    CHECK_INVALID(ck_status_get_message((ck_status)unknown[i], &kept), mention);
    CHECK_MSG(strcmp(kept, "kept") == 0, "status %d: '%s'", unknown[i], kept);
  }
  CHECK_INVALID(ck_status_get_message(CK_OK, NULL), "message is NULL");
  ck_error_clear();
}

/* ---- the last error ------------------------------------------------------ */

static void check_last_error(void) {
  const char *message = NULL;
  const ck_workload *workload = NULL;

  CHECK_OK(ck_error_clear());
  CHECK(ck_error_get_last(&message) == CK_OK);
  CHECK(message != NULL && message[0] == '\0');

  CHECK(ck_workload_find("nope", &workload) == CK_ERROR_NOT_FOUND);
  message = NULL;
  CHECK(ck_error_get_last(&message) == CK_ERROR_NOT_FOUND);
  CHECK_MSG(message && strstr(message, "'nope'"), "message: %s",
            message ? message : "(null)");
  /* The message lists what does exist. */
  CHECK_MSG(message && strstr(message, "selfcheck"), "message: %s",
            message ? message : "(null)");

  /* A later successful call leaves the failure in place. */
  CHECK_OK(ck_workload_find("selfcheck", &workload));
  CHECK(workload != NULL);
  message = NULL;
  CHECK(ck_error_get_last(&message) == CK_ERROR_NOT_FOUND);
  CHECK(message && strstr(message, "nope"));

  /* A second failure replaces the first. */
  CHECK(ck_workload_find("second_missing_workload", &workload) ==
        CK_ERROR_NOT_FOUND);
  message = NULL;
  CHECK(ck_error_get_last(&message) == CK_ERROR_NOT_FOUND);
  CHECK(message && strstr(message, "second_missing_workload"));
  CHECK(message && !strstr(message, "nope"));
  CHECK_INVALID(ck_workload_run(NULL, NULL, NULL, 0, NULL, NULL),
                "ck_workload_run: workload is NULL");
  CHECK(ck_error_get_last(&message) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(message && *message && !strstr(message, "second_missing_workload"));

  /* Clearing forgets it. */
  CHECK_OK(ck_error_clear());
  message = NULL;
  CHECK(ck_error_get_last(&message) == CK_OK);
  CHECK(message != NULL && message[0] == '\0');
}

/* Two threads fail at the same time with different names; each must then
 * see only its own message. */
static pthread_barrier_t barrier;

typedef struct thread_report {
  ck_status initial_status;
  char initial_message[64];
  ck_status status;
  char message[512];
} thread_report;

static void *failing_thread(void *argument) {
  thread_report *report = argument;
  const char *message = NULL;
  const ck_workload *workload = NULL;
  /* A new thread starts with no failure, whatever the main thread did. */
  report->initial_status = ck_error_get_last(&message);
  snprintf(report->initial_message, sizeof report->initial_message, "%s",
           message ? message : "(null)");
  pthread_barrier_wait(&barrier); /* main has failed with 'nope' */
  ck_workload_find("thread_only_workload", &workload);
  pthread_barrier_wait(&barrier); /* both have failed */
  pthread_barrier_wait(&barrier); /* main has checked and failed again */
  report->status = ck_error_get_last(&message);
  snprintf(report->message, sizeof report->message, "%s",
           message ? message : "(null)");
  return NULL;
}

static void check_thread_local(void) {
  const ck_workload *workload = NULL;
  const char *message = NULL;
  thread_report report;
  memset(&report, 0, sizeof report);
  ck_error_clear();
  CHECK(pthread_barrier_init(&barrier, NULL, 2) == 0);
  pthread_t thread;
  CHECK(ck_workload_find("nope", &workload) == CK_ERROR_NOT_FOUND);
  if (pthread_create(&thread, NULL, failing_thread, &report) != 0) {
    CHECK_MSG(0, "pthread_create failed");
    pthread_barrier_destroy(&barrier);
    return;
  }
  pthread_barrier_wait(&barrier);
  pthread_barrier_wait(&barrier);
  /* The other thread's failure did not touch this thread's message. */
  CHECK(ck_error_get_last(&message) == CK_ERROR_NOT_FOUND);
  CHECK_MSG(message && strstr(message, "nope") &&
                !strstr(message, "thread_only_workload"),
            "main thread sees: %s", message ? message : "(null)");
  /* Nor does this thread's next failure touch the other's. */
  CHECK(ck_workload_run(NULL, NULL, NULL, 0, NULL, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  pthread_barrier_wait(&barrier);
  pthread_join(thread, NULL);
  pthread_barrier_destroy(&barrier);

  CHECK_MSG(report.initial_status == CK_OK && report.initial_message[0] == 0,
            "new thread starts with %d '%s'", (int)report.initial_status,
            report.initial_message);
  CHECK(report.status == CK_ERROR_NOT_FOUND);
  CHECK_MSG(strstr(report.message, "thread_only_workload") &&
                !strstr(report.message, "nope"),
            "other thread sees: %s", report.message);
  CHECK(ck_error_get_last(&message) == CK_ERROR_INVALID_ARGUMENT);
  ck_error_clear();
}

/* The test hooks: a thread's hook is its own, a process's hook is every
 * thread's, and what a hook cannot take is refused with its name. */
typedef struct hook_report {
  size_t thread_hook, process_hook;
} hook_report;

static void *hook_thread(void *argument) {
  hook_report *report = argument;
  report->thread_hook = ck__test_value(CK__TEST_SPREAD_THREAD_FAILS);
  report->process_hook = ck__test_value(CK__TEST_HISTORY_LIMIT);
  /* Setting its own leaves the main thread's as it was. */
  ck__test_control(CK__TEST_SPREAD_THREAD_FAILS, 9);
  return NULL;
}

static void check_test_control(void) {
  for (int op = 0; op < CK__TEST_OPS; ++op)
    CHECK_MSG(ck__test_value((ck__test_op)op) == 0, "hook %d starts at %zu",
              op, ck__test_value((ck__test_op)op));
  CHECK_OK(ck__test_control(CK__TEST_SPREAD_THREAD_FAILS, 3));
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 12));
  CHECK(ck__test_value(CK__TEST_SPREAD_THREAD_FAILS) == 3);
  CHECK(ck__test_value(CK__TEST_HISTORY_LIMIT) == 12);
  hook_report report = {99, 99};
  pthread_t thread;
  if (pthread_create(&thread, NULL, hook_thread, &report) == 0) {
    pthread_join(thread, NULL);
    CHECK_MSG(report.thread_hook == 0, "another thread sees %zu",
              report.thread_hook);
    CHECK_MSG(report.process_hook == 12, "another thread sees %zu",
              report.process_hook);
    CHECK(ck__test_value(CK__TEST_SPREAD_THREAD_FAILS) == 3);
  } else {
    CHECK_MSG(0, "pthread_create failed");
  }
  CHECK_INVALID(ck__test_control(CK__TEST_PEER_REF, 2), "CK__TEST_PEER_REF");
  CHECK_INVALID(ck__test_control(CK__TEST_CUDA_LOAD_FAILS, (size_t)INT_MAX + 1),
                "CK__TEST_CUDA_LOAD_FAILS takes at most");
  CHECK_INVALID(ck__test_control(CK__TEST_OPS, 1), "operation");
  CHECK_INVALID(ck__test_control((ck__test_op)-1, 1), "operation -1");
  CHECK(ck__test_value(CK__TEST_PEER_REF) == 0);
  CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 1));
  CHECK(ck__test_value(CK__TEST_PEER_REF) == 1);
  for (int op = 0; op < CK__TEST_OPS; ++op)
    CHECK_OK(ck__test_control((ck__test_op)op, 0));
  ck_error_clear();
}

/* A caller's locale with a decimal comma (an embedding program that calls
 * setlocale) changes neither how option values are read nor how numbers
 * are written: "0.5" is still a number, and JSON still has "0.5". */
static void check_caller_locale(void) {
  static const char *const comma_locales[] = {
      "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
      "nl_NL.UTF-8", "nl_NL.utf8", "ru_RU.UTF-8", "ru_RU.utf8"};
  char saved[256];
  const char *current = setlocale(LC_NUMERIC, NULL);
  snprintf(saved, sizeof saved, "%s", current ? current : "C");
  const char *chosen = NULL;
  for (size_t i = 0;
       !chosen && i < sizeof comma_locales / sizeof *comma_locales; ++i)
    if (setlocale(LC_NUMERIC, comma_locales[i]) &&
        strcmp(localeconv()->decimal_point, ",") == 0)
      chosen = comma_locales[i];
  if (!chosen) {
    setlocale(LC_NUMERIC, saved);
    printf("no locale with a decimal comma is installed: the caller's "
           "locale case is skipped\n");
    return;
  }

  double value = 0;
  CHECK_OK(ck_param_parse_number("0.5", &value));
  CHECK_MSG(value == 0.5, "0.5 read as %.17g under %s", value, chosen);
  CHECK(ck_param_parse_number("0,5", &value) == CK_ERROR_INVALID_ARGUMENT);

  const ck_workload *pso = NULL;
  ck_device_set set;
  ck_result result;
  const ck_param params[] = {
      {"particles", "16"}, {"iters", "5"}, {"dim", "2"}, {"w", "0.5"}};
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK_OK(ck_workload_check(pso, params, 4));
  CHECK_OK(ck_device_enumerate(&set));
  ck_status status =
      ck_workload_run(pso, &set.devices[0], params, 4, NULL, &result);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_OK, "pso --w 0.5 under %s: %s", chosen, message);
  ck_device_set_free(&set);
  ck_result_release(&result);

  memset(&result, 0, sizeof result);
  result.best = 0.5;
  result.wall_s = 1.25;
  char *json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  CHECK_MSG(json && strstr(json, "\"best\":0.5,") &&
                strstr(json, "\"wall_s\":1.25,"),
            "under %s: %s", chosen, json ? json : "(null)");
  ck_memory_free(json);

  /* The caller's own locale is left as it was. */
  CHECK(strcmp(localeconv()->decimal_point, ",") == 0);
  setlocale(LC_NUMERIC, saved);
}

/* ---- results as JSON ----------------------------------------------------- */

static void make_result(ck_result *result) {
  memset(result, 0, sizeof *result);
  snprintf(result->workload, sizeof result->workload, "selfcheck");
  snprintf(result->device, sizeof result->device, "ocl:0.1");
  snprintf(result->device_name, sizeof result->device_name,
           "GPU \"quoted\" back\\slash\nnew line\ttab");
  result->seed = UINT64_MAX; /* past a double's 53 bits: every digit */
  result->total_s = 2.5;
  result->build_s = 0.75;
  result->wall_s = 1.5;
  result->kernel_s = 0.25;
  result->best = 0.4999847412109375;
  snprintf(result->best_name, sizeof result->best_name, "mean");
  result->throughput = 1e6;
  snprintf(result->throughput_unit, sizeof result->throughput_unit,
           "numbers/s");
  result->agreement = NAN;
  result->agrees = 1;
  result->status = CK_OK;
  result->metric_count = 3;
  snprintf(result->metrics[0].name, sizeof result->metrics[0].name, "passes");
  result->metrics[0].value = 4;
  snprintf(result->metrics[1].name, sizeof result->metrics[1].name,
           "xor_checksum");
  result->metrics[1].value = 1957336997;
  snprintf(result->metrics[2].name, sizeof result->metrics[2].name,
           "unknown_metric");
  result->metrics[2].value = NAN;
}

/* What a result owns: the whole position as an array, every option by its
 * kind, yes/no metrics as booleans; released once, then again safely. */
static void check_result_json_owned(void) {
  ck_result result;
  make_result(&result);
  snprintf(result.workload, sizeof result.workload, "ga");
  result.metric_count = 1;
  snprintf(result.metrics[0].name, sizeof result.metrics[0].name,
           "stopped_early");
  result.metrics[0].value = 1;
  result.metrics[0].is_flag = 1;
  static const double position[] = {1.5, -2, 0.25, 1e300};
  result.position = malloc(sizeof position);
  result.position_count = 4;
  static const ck_param options[] = {
      {"islands", "64"},    {"trace-islands", "0"}, {"out", NULL},
      {"pm", "1e-3"},       {"pc", ".5"},           {"mutation", "gauss:0.1"},
      {"objective", "123"}, {"constriction", "1"}};
  size_t count = sizeof options / sizeof options[0];
  result.options = calloc(count, sizeof *result.options);
  if (!result.position || !result.options) {
    CHECK(!"out of memory");
    ck_result_release(&result);
    return;
  }
  memcpy(result.position, position, sizeof position);
  for (size_t i = 0; i < count; ++i) {
    result.options[i].name = options[i].name;
    result.options[i].value =
        options[i].value ? strdup(options[i].value) : NULL;
  }
  result.option_count = count;
  char *json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json) {
    CHECK_MSG(json_is_object(json), "%s", json);
    CHECK_MSG(strstr(json, "\"x\":[1.5,-2,0.25,1.0000000000000001e+300],"
                           "\"stopped_early\":true,\"options\":{") != NULL,
              "%s", json);
    /* Numbers as JSON spells them, ".5" read as a number; a flag as a
     * boolean; a file name as a string whatever it spells; no value as
     * null; an option the workload does not have, by its spelling. */
    CHECK_MSG(strstr(json, "\"options\":{\"islands\":64,"
                           "\"trace-islands\":false,\"out\":null,"
                           "\"pm\":1e-3,\"pc\":0.5,"
                           "\"mutation\":\"gauss:0.1\","
                           "\"objective\":\"123\","
                           "\"constriction\":1}}") != NULL,
              "%s", json);
    ck_memory_free(json);
  }
  result.metrics[0].value = 0;
  json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json)
    CHECK_MSG(strstr(json, "\"stopped_early\":false,") != NULL, "%s", json);
  ck_memory_free(json);
  CHECK_OK(ck_result_release(&result));
  CHECK(!result.position && !result.position_count && !result.options &&
        !result.option_count);
  CHECK(strcmp(result.workload, "ga") == 0); /* the rest is kept */
  CHECK_OK(ck_result_release(&result));
  CHECK(ck_result_release(NULL) == CK_ERROR_INVALID_ARGUMENT);
}

static void check_result_json(void) {
  ck_result result;
  char *json = NULL;
  make_result(&result);
  CHECK_OK(ck_result_format_json(&result, &json));
  CHECK(json != NULL);
  if (!json)
    return;
  printf("%s\n", json);
  CHECK_MSG(json_is_object(json), "not one JSON object: %s", json);
  CHECK(strchr(json, '\n') == NULL); /* one line, no trailing newline */
  CHECK(strstr(json, "\"workload\":\"selfcheck\"") != NULL);
  CHECK(strstr(json, "\"device\":\"ocl:0.1\"") != NULL);
  CHECK(strstr(json, "\"device_name\":\"GPU \\\"quoted\\\" back\\\\slash\\n"
                     "new line\\") != NULL);
  CHECK(strstr(json, "\"best_name\":\"mean\"") != NULL);
  CHECK(strstr(json, "\"throughput_unit\":\"numbers/s\"") != NULL);
  CHECK(json_number_is(json, "wall_s", 1.5));
  CHECK(json_number_is(json, "kernel_s", 0.25));
  CHECK(json_number_is(json, "best", 0.4999847412109375)); /* exact */
  CHECK(json_number_is(json, "throughput", 1e6));
  /* Not compared: no claim of agreement either way, whatever agrees holds. */
  CHECK(strstr(json, "\"agreement\":null") != NULL);
  CHECK(strstr(json, "\"agrees\":null") != NULL);
  CHECK(strstr(json, "\"version\":\"" CK_VERSION_STRING "\"") != NULL);
  CHECK(strstr(json, "\"seed\":18446744073709551615,") != NULL);
  CHECK(json_number_is(json, "total_s", 2.5));
  CHECK(json_number_is(json, "build_s", 0.75));
  CHECK(json_number_is(json, "passes", 4));
  CHECK(json_number_is(json, "xor_checksum", 1957336997));
  CHECK(strstr(json, "\"unknown_metric\":null") != NULL);
  /* Metrics come after the common keys, in their order. */
  const char *agrees = strstr(json, "\"agrees\":");
  const char *passes = strstr(json, "\"passes\":");
  const char *checksum = strstr(json, "\"xor_checksum\":");
  CHECK(agrees && passes && checksum && agrees < passes && passes < checksum);
  /* Common keys in the documented order. */
  static const char *const keys[] = {
      "workload",  "version",    "device",          "device_name", "seed",
      "total_s",   "build_s",    "wall_s",          "kernel_s",    "best",
      "best_name", "throughput", "throughput_unit", "agreement",   "agrees",
      "stopped_by"};
  const char *previous = json;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
    const char *at = json_field(previous, keys[i]);
    CHECK_MSG(at != NULL, "key %s missing or out of order", keys[i]);
    if (at)
      previous = at;
  }
  /* A successful result carries no status or error; a run of a set
   * length has no stop; a workload without a position, no x. */
  CHECK(strstr(json, "\"error\":") == NULL);
  CHECK(strstr(json, "\"stopped_by\":null,\"passes\":") != NULL);
  CHECK(strstr(json, "\"x\":") == NULL);
  CHECK(strstr(json, "\"options\":") == NULL);
  CHECK_OK(ck_memory_free(json));

  /* Why the run ended, as a word after the common keys. */
  snprintf(result.stopped_by, sizeof result.stopped_by, "target");
  json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json) {
    CHECK_MSG(json_is_object(json), "%s", json);
    CHECK_MSG(strstr(json, "\"agrees\":null,\"stopped_by\":\"target\","
                           "\"passes\":") != NULL,
              "%s", json);
    ck_memory_free(json);
  }
  result.stopped_by[0] = '\0';

  /* A finite agreement, a disagreement, and no metrics. */
  result.agreement = 0.001;
  result.agrees = 0;
  result.metric_count = 0;
  json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json) {
    CHECK_MSG(json_is_object(json), "%s", json);
    CHECK(json_number_is(json, "agreement", 0.001));
    CHECK(strstr(json, "\"agrees\":false,") != NULL);
    CHECK(strstr(json, "passes") == NULL);
    ck_memory_free(json);
  }

  /* A failed row of a comparison names its status and error. */
  result.status = CK_ERROR_BUILD;
  snprintf(result.error, sizeof result.error,
           "build failed:\n<source>:3: error: \"x\" undeclared");
  json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json) {
    CHECK_MSG(json_is_object(json), "%s", json);
    CHECK(strstr(json, "\"status\":\"CK_ERROR_BUILD\"") != NULL);
    CHECK(strstr(json, "\"error\":\"build failed:\\n<source>:3: error: "
                       "\\\"x\\\" undeclared\"") != NULL);
    ck_memory_free(json);
  }

  /* Every control character is escaped, and long texts still fit. */
  make_result(&result);
  for (int i = 0; i < 31; ++i)
    result.device_name[i] = (char)(i + 1);
  result.device_name[31] = '\0';
  memset(result.error, 'e', sizeof result.error - 1);
  result.error[sizeof result.error - 1] = '\0';
  result.status = CK_ERROR_DEVICE;
  result.metric_count = CK_RESULT_MAX_METRICS;
  for (size_t i = 0; i < CK_RESULT_MAX_METRICS; ++i) {
    snprintf(result.metrics[i].name, sizeof result.metrics[i].name,
             "metric_%02zu", i);
    result.metrics[i].value = (double)i * 0.5 - 3;
  }
  json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json) {
    CHECK_MSG(json_is_object(json), "%s", json);
    CHECK(strlen(json) > sizeof result.error);
    CHECK(json_number_is(json, "metric_00", -3));
    CHECK(json_number_is(json, "metric_47", 20.5));
    ck_memory_free(json);
  }

  /* A count past the array is refused, not read beyond it. */
  result.metric_count = CK_RESULT_MAX_METRICS + 1;
  json = NULL;
  CHECK(ck_result_format_json(&result, &json) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(json == NULL);
  result.metric_count = 1000;
  CHECK(ck_result_format_json(&result, &json) == CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "metric_count 1000"), "%s", message);
  CHECK(json == NULL);

  /* A text field without its NUL is read to its end, not past it. */
  make_result(&result);
  memset(result.workload, 'w', sizeof result.workload);
  memset(result.stopped_by, 's', sizeof result.stopped_by);
  json = NULL;
  CHECK_OK(ck_result_format_json(&result, &json));
  if (json) {
    CHECK_MSG(json_is_object(json), "%s", json);
    CHECK(strstr(json, "\"workload\":\"wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww\",") !=
          NULL);
    CHECK(strstr(json, "\"stopped_by\":\"ssssssssssssssss\",") != NULL);
    ck_memory_free(json);
  }

  CHECK_INVALID(ck_result_format_json(NULL, &json), "result is NULL");
  CHECK_INVALID(ck_result_format_json(&result, NULL), "json is NULL");
  CHECK_OK(ck_memory_free(NULL));
}

static void check_result_metric(void) {
  ck_result result;
  make_result(&result);
  double value = 0;
  CHECK_OK(ck_result_get_metric(&result, "xor_checksum", &value));
  CHECK(value == 1957336997);
  CHECK(ck_result_get_metric(&result, "absent", &value) == CK_ERROR_NOT_FOUND);
  const char *message = NULL;
  ck_error_get_last(&message);
  CHECK(message && strstr(message, "absent"));
  /* A count past the array is refused, not read beyond it. */
  result.metric_count = 1000;
  value = 7;
  CHECK(ck_result_get_metric(&result, "absent", &value) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(message && strstr(message, "metric_count 1000"), "%s",
            message ? message : "(null)");
  result.metric_count = CK_RESULT_MAX_METRICS + 1;
  CHECK(ck_result_get_metric(&result, "xor_checksum", &value) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(value == 7);
}

/* ---- version ------------------------------------------------------------- */

static void check_version(void) {
  const char *version = NULL;
  CHECK_OK(ck_version_get(&version));
  CHECK_MSG(version && strcmp(version, CK_VERSION_STRING) == 0, "'%s' vs '%s'",
            version ? version : "(null)", CK_VERSION_STRING);
  char expected[64];
  snprintf(expected, sizeof expected, "%d.%d.%d", CK_VERSION_MAJOR,
           CK_VERSION_MINOR, CK_VERSION_PATCH);
  CHECK_MSG(strcmp(CK_VERSION_STRING, expected) == 0, "'%s' vs '%s'",
            CK_VERSION_STRING, expected);
  CHECK(ck_version_get(NULL) == CK_ERROR_INVALID_ARGUMENT);
}

/* ---- workload parameters ------------------------------------------------- */

typedef struct param_case {
  const char *name;
  const char *value;
  ck_status expected;
  const char *message_names; /* NULL when the call must succeed */
} param_case;

static const param_case param_cases[] = {
    {"count", "1000", CK_OK, NULL},
    {"count", "1", CK_OK, NULL},
    {"passes", "2", CK_OK, NULL},
    {"bogus", "1", CK_ERROR_INVALID_ARGUMENT, "bogus"},
    {"seed", "1", CK_ERROR_INVALID_ARGUMENT, "seed"}, /* a CLI option only */
    {"count", "0", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"count", "-5", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"count", "abc", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"count", "", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"count", "12abc", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"count", "2.5", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"count", "1e300", CK_ERROR_INVALID_ARGUMENT, "--count"},
    {"passes", "1.5", CK_ERROR_INVALID_ARGUMENT, "--passes"},
    {"passes", "0", CK_ERROR_INVALID_ARGUMENT, "--passes"},
    {"passes", "many", CK_ERROR_INVALID_ARGUMENT, "--passes"},
};

static void check_workload_params(void) {
  const ck_workload *selfcheck = NULL;
  CHECK_OK(ck_workload_find("selfcheck", &selfcheck));
  if (!selfcheck)
    return;
  for (size_t c = 0; c < sizeof param_cases / sizeof param_cases[0]; ++c) {
    const param_case *test = &param_cases[c];
    ck_param param = {test->name, test->value};
    ck_error_clear();
    ck_status status = ck_workload_check(selfcheck, &param, 1);
    CHECK_MSG(status == test->expected, "--%s '%s' gave %d, want %d",
              test->name, test->value, (int)status, (int)test->expected);
    if (!test->message_names)
      continue;
    const char *message = NULL;
    CHECK(ck_error_get_last(&message) == test->expected);
    CHECK_MSG(message && strstr(message, test->message_names),
              "--%s '%s': message does not name %s: %s", test->name,
              test->value, test->message_names, message ? message : "(null)");
  }

  /* A bad value after good ones is still found, and named. */
  ck_param mixed[] = {{"count", "64"}, {"passes", "3"}, {"passes", "x"}};
  CHECK(ck_workload_check(selfcheck, mixed, 3) == CK_ERROR_INVALID_ARGUMENT);
  const char *message = NULL;
  ck_error_get_last(&message);
  CHECK(message && strstr(message, "--passes"));
  CHECK_OK(ck_workload_check(selfcheck, mixed, 2));
  /* No parameters at all is fine. */
  CHECK_OK(ck_workload_check(selfcheck, NULL, 0));
  /* A missing value, a missing name, a missing workload. */
  ck_param no_value = {"count", NULL};
  CHECK(ck_workload_check(selfcheck, &no_value, 1) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_param no_name = {NULL, "1"};
  CHECK(ck_workload_check(selfcheck, &no_name, 1) == CK_ERROR_INVALID_ARGUMENT);
  CHECK_INVALID(ck_workload_check(NULL, NULL, 0), "workload is NULL");
  CHECK_INVALID(ck_workload_check(selfcheck, NULL, 1), "params is NULL");

  /* The options the checks rely on are the ones the workload declares. */
  const char *name = NULL, *summary = NULL;
  const ck_option *options = NULL;
  CHECK_OK(ck_workload_describe(selfcheck, &name, &summary, &options));
  CHECK(name && strcmp(name, "selfcheck") == 0);
  CHECK(summary && *summary);
  int has_count = 0, has_passes = 0;
  for (const ck_option *option = options; option && option->name; ++option) {
    has_count |= strcmp(option->name, "count") == 0;
    has_passes |= strcmp(option->name, "passes") == 0;
    CHECK_MSG(option->help && *option->help, "option %s has no help",
              option->name);
  }
  CHECK(has_count && has_passes);

  const ck_workload *const *workloads = NULL;
  size_t count = 0;
  CHECK_OK(ck_workload_list(&workloads, &count));
  int listed = 0;
  for (size_t i = 0; i < count; ++i)
    listed |= workloads[i] == selfcheck;
  CHECK(listed);
}

/* ck_param_parse_number: plain decimals read, everything else refused
 * with the value left alone. */
static void check_parse_number(void) {
  static const struct {
    const char *text;
    double value;
  } good[] = {{"0", 0},
              {"5", 5},
              {"-2.5", -2.5},
              {"1e3", 1000},
              {"1E-3", 1e-3},
              {".5", 0.5},
              {"+7", 7},
              {"3.", 3},
              {"0e-400", 0},
              /* Subnormal: strtod says ERANGE, and they are numbers. */
              {"4.9e-324", DBL_TRUE_MIN},
              {"-4.9e-324", -DBL_TRUE_MIN},
              {"1e-310", 1e-310},
              {"2.2250738585072009e-308", DBL_MIN - DBL_TRUE_MIN},
              {"2.2250738585072014e-308", DBL_MIN},
              {"1.7976931348623157e308", DBL_MAX}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
    double value = NAN;
    CHECK_MSG(ck_param_parse_number(good[i].text, &value) == CK_OK &&
                  value == good[i].value,
              "'%s' read as %g", good[i].text, value);
  }
  static const char *const bad[] = {"",    " 5",     "5 ",      "0x10",   "inf",
                                    "nan", "-inf",   "1e400",   "1e-400", "5x",
                                    "1,5", "--1",    "e",       ".",      "1e",
                                    "+",   "2e-324", "1.8e308", "-1e-330"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    double value = 42;
    CHECK_MSG(ck_param_parse_number(bad[i], &value) ==
                      CK_ERROR_INVALID_ARGUMENT &&
                  value == 42,
              "'%s' was taken (%g)", bad[i], value);
  }
  double value = 0;
  CHECK_INVALID(ck_param_parse_number(NULL, &value), "text is NULL");
  CHECK_INVALID(ck_param_parse_number("1", NULL), "value is NULL");
}

static void expect_last_message(const char *mention) {
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, mention) != NULL, "the message is '%s', not '%s'",
            message, mention);
}

/* ck_param_suggest: the name a mistyped word meant, or none; and the
 * library's own messages for its tables, which use the same rule. */
static void check_param_suggest(void) {
  static const char *const options[] = {
      "iters",  "particles",   "island-size", "islands", "dim",      "time",
      "target", "check-every", "lo",          "hi",      "log-every"};
  static const struct {
    const char *word;
    const char *nearest; /* NULL: none near enough */
  } cases[] = {
      {"iterations", "iters"},        /* abbreviated */
      {"itres", "iters"},             /* two letters swapped */
      {"iter", "iters"},              /* one missing */
      {"ITERS", "iters"},             /* any case */
      {"particle", "particles"},      /* one missing */
      {"partciles", "particles"},     /* swapped */
      {"island-sise", "island-size"}, /* one wrong */
      {"islandsize", "island-size"},  /* one missing, not islands */
      {"dimension", "dim"},           /* abbreviated */
      {"tiem", "time"},               /* swapped */
      {"targte", "target"},           /* swapped */
      {"check-evry", "check-every"},  /* one missing */
      {"seed", NULL},                 /* nothing near */
      {"bogus", NULL},
      {"x", NULL},  /* too short to be near */
      {"it", NULL}, /* too short to abbreviate */
      {"", NULL},
  };
  size_t count = sizeof options / sizeof *options;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const char *nearest = "unset";
    CHECK_OK(ck_param_suggest(cases[i].word, options, count, &nearest));
    CHECK_MSG(nearest == cases[i].nearest ||
                  (nearest && cases[i].nearest &&
                   strcmp(nearest, cases[i].nearest) == 0),
              "'%s' suggested %s, not %s", cases[i].word,
              nearest ? nearest : "nothing",
              cases[i].nearest ? cases[i].nearest : "nothing");
  }
  /* A NULL name is skipped; no names suggest nothing. */
  const char *const holes[] = {NULL, "rastrigin", NULL};
  const char *nearest = NULL;
  CHECK_OK(ck_param_suggest("rastrign", holes, 3, &nearest));
  CHECK(nearest == holes[1]);
  CHECK_OK(ck_param_suggest("rastrign", NULL, 0, &nearest));
  CHECK(nearest == NULL);
  CHECK_INVALID(ck_param_suggest("x", NULL, 2, &nearest),
                "ck_param_suggest: names is NULL but count is 2");

  /* The library's tables: workloads, a workload's options, functions. */
  const ck_workload *workload = NULL;
  CHECK(ck_workload_find("psoo", &workload) == CK_ERROR_NOT_FOUND);
  expect_last_message("unknown workload 'psoo'; known: selfcheck pso ga aco "
                      "nn gas; did you mean pso?");
  CHECK_OK(ck_workload_find("pso", &workload));
  const ck_param unknown = {"iterations", "5"};
  CHECK_INVALID(ck_workload_check(workload, &unknown, 1),
                "workload pso has no option --iterations; did you mean "
                "--iters?");
  const ck_objective_info *info = NULL;
  CHECK_INVALID(ck_objective_find("rastrign", &info),
                "unknown function 'rastrign'; built in: sphere rastrigin "
                "rosenbrock griewank ackley schwefel michalewicz "
                "styblinski-tang f1 f2 lsq; did you mean rastrigin?");
  CHECK(ck_objective_find("nosuch", &info) == CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "built in: sphere") &&
                !strstr(message, "did you mean"),
            "'nosuch': %s", message);
}

/* ---- NULL arguments, named ----------------------------------------------- */

static const ck_workload *selfcheck_workload(void) {
  const ck_workload *workload = NULL;
  CHECK_OK(ck_workload_find("selfcheck", &workload));
  return workload;
}

/* Each passes NULL for parameter `which` alone (NULL_AT), so that the
 * message must say which of them it was. */
static ck_status null_device_rank(void *context, int which) {
  (void)context;
  ck_device device = {0};
  double score = 0;
  return ck_device_rank(NULL_AT(0, &device), NULL_AT(1, &score));
}

static ck_status null_workload_find(void *context, int which) {
  (void)context;
  const ck_workload *workload = NULL;
  return ck_workload_find(NULL_AT(0, "selfcheck"), NULL_AT(1, &workload));
}

static ck_status null_workload_list(void *context, int which) {
  (void)context;
  const ck_workload *const *workloads = NULL;
  size_t count = 0;
  return ck_workload_list(NULL_AT(0, &workloads), NULL_AT(1, &count));
}

static ck_status null_workload_run_demo(void *context, int which) {
  const ck_param *params = NULL;
  size_t count = 0;
  return ck_workload_run_demo(NULL_AT(0, (const ck_workload *)context),
                              NULL_AT(1, &params), NULL_AT(2, &count));
}

static ck_status null_workload_check(void *context, int which) {
  return ck_workload_check(NULL_AT(0, (const ck_workload *)context), NULL, 0);
}

static ck_status null_workload_check_devices(void *context, int which) {
  return ck_workload_check_devices(NULL_AT(0, (const ck_workload *)context),
                                   NULL, 0, 2);
}

static ck_status null_workload_check_processes(void *context, int which) {
  return ck_workload_check_processes(NULL_AT(0, (const ck_workload *)context),
                                     NULL, 0, 2);
}

static ck_status null_workload_check_spread_devices(void *context, int which) {
  size_t repeated;
  return ck_workload_check_spread_devices(
      NULL_AT(0, (const ck_workload *)context), NULL, 0, NULL_AT(1, &repeated));
}

static ck_status null_workload_run(void *context, int which) {
  ck_device device = {0};
  ck_result result;
  return ck_workload_run(NULL_AT(0, (const ck_workload *)context),
                         NULL_AT(1, &device), NULL, 0, NULL,
                         NULL_AT(2, &result));
}

static ck_status null_compare_run(void *context, int which) {
  ck_device device = {0};
  ck_device_set set = {.devices = &device, .count = 1};
  ck_result results[2];
  size_t produced = 0;
  return ck_compare_run(NULL_AT(0, (const ck_workload *)context),
                        NULL_AT(1, &set), NULL, 0, 0, NULL, 0, NULL,
                        NULL_AT(2, results), 2, NULL_AT(3, &produced));
}

static ck_status null_param_parse_number(void *context, int which) {
  (void)context;
  double value = 0;
  return ck_param_parse_number(NULL_AT(0, "1"), NULL_AT(1, &value));
}

static ck_status null_param_suggest(void *context, int which) {
  (void)context;
  const char *const names[] = {"iters"};
  const char *nearest = NULL;
  return ck_param_suggest(NULL_AT(0, "itres"), names, 1, NULL_AT(1, &nearest));
}

static ck_status null_result_get_metric(void *context, int which) {
  (void)context;
  ck_result result;
  make_result(&result);
  double value = 0;
  return ck_result_get_metric(NULL_AT(0, &result), NULL_AT(1, "passes"),
                              NULL_AT(2, &value));
}

static ck_status null_result_format_json(void *context, int which) {
  (void)context;
  ck_result result;
  make_result(&result);
  char *json = NULL;
  ck_status status =
      ck_result_format_json(NULL_AT(0, &result), NULL_AT(1, &json));
  ck_memory_free(json);
  return status;
}

static ck_status null_file_check_same(void *context, int which) {
  (void)context;
  int same = 0;
  return ck_file_check_same(NULL_AT(0, "a"), NULL_AT(1, "b"),
                            NULL_AT(2, &same));
}

static ck_status null_kernels_assemble(void *context, int which) {
  (void)context;
  char *text = NULL;
  ck_status status =
      ck_kernels_assemble(NULL_AT(0, "selfcheck"), NULL_AT(1, &text), NULL);
  ck_memory_free(text);
  return status;
}

static ck_status null_kernels_assemble_for_device(void *context, int which) {
  (void)context;
  char *text = NULL;
  ck_device device = {.id = "ocl:0.0", .backend = CK_BACKEND_OPENCL};
  ck_status status = ck_kernels_assemble_for_device(
      NULL_AT(0, "selfcheck"), NULL_AT(1, &device), NULL_AT(2, &text), NULL);
  ck_memory_free(text);
  return status;
}

static void check_null_messages(void) {
  static const check_null_case cases[] = {
      {"ck_device_rank", {"device", "score"}, null_device_rank},
      {"ck_workload_find", {"name", "workload"}, null_workload_find},
      {"ck_workload_list", {"workloads", "count"}, null_workload_list},
      {"ck_workload_run_demo",
       {"workload", "params", "count"},
       null_workload_run_demo},
      {"ck_workload_check", {"workload"}, null_workload_check},
      {"ck_workload_check_devices", {"workload"}, null_workload_check_devices},
      {"ck_workload_check_processes",
       {"workload"},
       null_workload_check_processes},
      {"ck_workload_check_spread_devices",
       {"workload", "repeated"},
       null_workload_check_spread_devices},
      {"ck_workload_run", {"workload", "device", "result"}, null_workload_run},
      {"ck_compare_run",
       {"workload", "set", "results", "produced"},
       null_compare_run},
      {"ck_param_parse_number", {"text", "value"}, null_param_parse_number},
      {"ck_param_suggest", {"word", "nearest"}, null_param_suggest},
      {"ck_result_get_metric",
       {"result", "name", "value"},
       null_result_get_metric},
      {"ck_result_format_json", {"result", "json"}, null_result_format_json},
      {"ck_file_check_same", {"first", "second", "same"}, null_file_check_same},
      {"ck_kernels_assemble", {"name", "text"}, null_kernels_assemble},
      {"ck_kernels_assemble_for_device",
       {"name", "device", "text"},
       null_kernels_assemble_for_device},
  };
  const ck_workload *selfcheck = selfcheck_workload();
  if (!selfcheck)
    return;
  check_null_arguments(cases, sizeof cases / sizeof cases[0],
                       (void *)selfcheck);
  /* A count with no array names both. */
  CHECK_INVALID(ck_workload_check(selfcheck, NULL, 2),
                "ck_workload_check: params is NULL but count is 2");
  CHECK_INVALID(ck_workload_check_devices(selfcheck, NULL, 2, 2),
                "ck_workload_check_devices: params is NULL but count is 2");
  size_t repeated = 0;
  CHECK_INVALID(ck_workload_check_spread_devices(selfcheck, NULL, 2, &repeated),
                "ck_workload_check_spread_devices: devices is NULL but count "
                "is 2");
  ck_device device = {0};
  ck_result result;
  CHECK_INVALID(ck_workload_run(selfcheck, &device, NULL, 2, NULL, &result),
                "ck_workload_run: params is NULL but count is 2");
  ck_device_set set = {.devices = &device, .count = 1};
  size_t produced = 0;
  CHECK_INVALID(ck_compare_run(selfcheck, &set, NULL, 1, 0, NULL, 0, NULL,
                               &result, 1, &produced),
                "ck_compare_run: indices is NULL but count is 1");
}

int main(void) {
  check_validator();
  check_parse_number();
  check_param_suggest();
  check_status_names();
  check_status_messages();
  check_last_error();
  check_thread_local();
  check_test_control();
  check_result_json();
  check_result_json_owned();
  check_caller_locale();
  check_result_metric();
  check_version();
  check_workload_params();
  check_null_messages();
  return CHECK_DONE();
}
