/*
 * test_selfcheck.c - the selfcheck workload on ref and OpenCL: the same
 * random words on both, agreement through ck_compare_run, reproducibility,
 * seed sensitivity, cancellation and parameter errors (a comparison's bad
 * device index or too few result slots refused before anything runs).
 */
#include "check.h"
#include "opencl_device.h"

static const ck_param small[] = {{"count", "10007"}, {"passes", "3"}};

static int stop_at_once(void *user, const ck_progress *progress) {
  (void)progress;
  ++*(int *)user;
  return 1;
}

static int count_progress(void *user, const ck_progress *progress) {
  (void)progress;
  ++*(int *)user;
  return 0;
}

static double metric(const ck_result *result, const char *name) {
  double value = -1;
  CHECK_OK(ck_result_get_metric(result, name, &value));
  return value;
}

int main(void) {
  const ck_workload *workload = NULL;
  ck_device_set set;
  CHECK_OK(ck_workload_find("selfcheck", &workload));
  CHECK_OK(ck_device_enumerate(&set));
  if (!workload || set.count == 0)
    return CHECK_DONE();
  const ck_device *ref = &set.devices[0];
  ck_run_options options = {.seed = 42};
  ck_result a = {0}, b = {0}, c = {0};

  /* ref: a plausible mean, reproducible, seed-sensitive. */
  CHECK_OK(test_workload_run(workload, ref, small, 2, &options, &a));
  CHECK_OK(test_workload_run(workload, ref, small, 2, &options, &b));
  CHECK(a.best == b.best &&
        metric(&a, "xor_checksum") == metric(&b, "xor_checksum"));
  CHECK_MSG(fabs(metric(&a, "mean_sigmas")) < 5, "mean %.6f", a.best);
  CHECK(strcmp(a.best_name, "mean") == 0 && strcmp(a.device, "ref") == 0);
  CHECK(a.throughput > 0 && a.wall_s > 0);
  options.seed = 43;
  CHECK_OK(test_workload_run(workload, ref, small, 2, &options, &c));
  CHECK(metric(&c, "xor_checksum") != metric(&a, "xor_checksum"));
  options.seed = 42;

  /* Cancellation through the progress callback. */
  int calls = 0;
  ck_run_options cancelling = {
      .seed = 42, .progress = stop_at_once, .progress_user = &calls};
  CHECK(test_workload_run(workload, ref, small, 2, &cancelling, &c) ==
        CK_ERROR_CANCELLED);
  CHECK(calls == 1);

  /* Parameter errors name the option. */
  const ck_param bad[] = {{"count", "-5"}};
  CHECK(test_workload_run(workload, ref, bad, 1, &options, &c) ==
        CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "--count") != NULL, "%s", message);
  const ck_param unknown[] = {{"colour", "red"}};
  CHECK(test_workload_run(workload, ref, unknown, 1, &options, &c) ==
        CK_ERROR_INVALID_ARGUMENT);

  /* Without an oracle run, ref's own row is the oracle and agrees; it is
   * set.devices[0]. */
  {
    size_t index = 0, produced = 0;
    ck_result results[1] = {0};
    CHECK_OK(test_compare_run(workload, &set, &index, 1, 1, small, 2, &options,
                              results, 1, &produced));
    CHECK(produced == 1 && results[0].agrees && results[0].agreement == 0);
    test_results_release(results, 1);
  }

  /* A bad index or too few result slots is refused before ref runs as
   * the oracle: nothing runs, nothing is produced. */
  {
    int calls = 0;
    ck_run_options counted = {
        .seed = 42, .progress = count_progress, .progress_user = &calls};
    size_t bad[2] = {0, set.count}, twice[2] = {0, 0}, produced = 7;
    ck_result results[3] = {0};
    /* Slots the refused calls must not touch (not results to release). */
    memset(results, 0x5A, sizeof results);
    CHECK(ck_compare_run(workload, &set, bad, 2, 0, small, 2, &counted, results,
                         3, &produced) == CK_ERROR_INVALID_ARGUMENT);
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "out of range"), "%s", message);
    CHECK(produced == 0 && calls == 0 && results[0].workload[0] == 0x5A);
    CHECK(ck_compare_run(workload, &set, bad + 1, 1, 1, small, 2, &counted,
                         results, 3, &produced) == CK_ERROR_INVALID_ARGUMENT);
    CHECK(produced == 0 && calls == 0 && results[0].workload[0] == 0x5A);
    /* ref twice without an oracle is two runs: one slot is too few. */
    CHECK(ck_compare_run(workload, &set, twice, 2, 1, small, 2, &counted,
                         results, 1, &produced) == CK_ERROR_INVALID_ARGUMENT);
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "result slots"), "%s", message);
    CHECK(produced == 0 && calls == 0 && results[0].workload[0] == 0x5A);
    memset(results, 0, sizeof results);
    CHECK_OK(test_compare_run(workload, &set, twice, 2, 1, small, 2, &counted,
                              results, 2, &produced));
    CHECK(produced == 2 && calls > 0);
    test_results_release(results, 3);
  }

  long opencl = test_opencl_device(&set);
  if (opencl >= 0) {
    const ck_device *device = &set.devices[opencl];
    CHECK_OK(test_workload_run(workload, device, small, 2, &options, &b));
    CHECK(metric(&b, "xor_checksum") == metric(&a, "xor_checksum"));
    CHECK_NEAR(b.best, a.best, 1e-5 * a.best);
    CHECK(b.kernel_s > 0);
    CHECK_OK(test_workload_run(workload, device, small, 2, &options, &c));
    CHECK(c.best == b.best); /* same seed, same device: identical */

    size_t index = (size_t)opencl, produced = 0;
    ck_result results[2] = {0};
    CHECK_OK(test_compare_run(workload, &set, &index, 1, 0, small, 2, &options,
                              results, 2, &produced));
    CHECK(produced == 2);
    if (produced == 2) {
      CHECK(strcmp(results[0].device, "ref") == 0 && results[0].agrees);
      CHECK(strcmp(results[1].device, device->id) == 0);
      CHECK_MSG(results[1].agrees && results[1].status == CK_OK,
                "agreement %g: %s", results[1].agreement, results[1].error);
      CHECK(results[1].agreement <= 1e-5);
    }
    test_results_release(results, 2);
  }
  ck_result_release(&a);
  ck_result_release(&b);
  ck_result_release(&c);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
