/* probe.c - cold and warm build times and a self-check run on a device. */
#include <string.h>

#include "framework/framework.h"

/* runtime_cache may be NULL. */
static ck_status timed_build(const ck_device *device, int from_source,
                             double *seconds, int *from_cache,
                             int *runtime_cache) {
  ck_status status = CK_OK;
  ck_queue *queue = NULL;
  ck_program *program = NULL;
  ck_program_stats stats;
  CK_TRY(ck_queue_create(device, &queue));
  ck__build_from_source = from_source;
  status =
      ck_program_build(queue, "selfcheck", "-DCK_SELFCHECK_GROUP=1", &program);
  ck__build_from_source = 0;
  if (status != CK_OK)
    goto fail;
  CK_TRY(ck_program_query(program, &stats));
  *seconds = stats.build_seconds;
  *from_cache = stats.from_cache;
  if (runtime_cache)
    *runtime_cache = stats.runtime_cache;
fail:
  ck_program_destroy(program);
  ck_queue_destroy(queue);
  return status;
}

ck_status ck_device_probe(const ck_device *device,
                          ck_device_probe_result *probe) {
  ck_status status = CK_OK;
  ck_device reference;
  ck_result expected = {0}, measured = {0};
  int from_cache = 0;
  CK__REQUIRE(device);
  CK__REQUIRE(probe);
  memset(probe, 0, sizeof *probe);
  if (ck__device_runs_kernels(device)) {
    /* Whether the runtime's cache served is said of the warm build, the
     * one that could have come from a cache. */
    CK_TRY(timed_build(device, 1, &probe->cold_build_s, &from_cache, NULL));
    CK_TRY(timed_build(device, 0, &probe->warm_build_s, &probe->warm_from_cache,
                       &probe->runtime_cache));
  }
  const ck_param params[] = {{"count", "65537"}, {"passes", "2"}};
  const ck_run_options options = {.seed = 7};
  ck__device_reference(&reference);
  CK_TRY(ck_workload_run(&ck__selfcheck_workload, &reference, params, 2,
                         &options, &expected));
  CK_TRY(ck_workload_run(&ck__selfcheck_workload, device, params, 2, &options,
                         &measured));
  probe->selfcheck_s = measured.wall_s;
  double difference = 0;
  ck__selfcheck_workload.agree(&expected, &measured, &difference,
                               &probe->selfcheck_agrees);
fail:
  ck_result_release(&expected);
  ck_result_release(&measured);
  return status;
}
