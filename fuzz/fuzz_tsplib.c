/*
 * fuzz_tsplib.c - TSPLIB instances (ck_tsp_parse, the reader ck_tsp_load
 * uses, on the input as it is). An accepted instance must keep what
 * clkit/tsp.h promises: its coordinates or matrix, within the limits.
 */
#include "fuzz.h"

#include "clkit/tsp.h"
#include "tsp/tsp_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ck_tsp_instance instance;
  if (ck_tsp_parse((const char *)data, size, "fuzz.tsp", &instance) != CK_OK)
    return 0;
  FUZZ_CHECK(instance.cities >= 3 && instance.cities <= CK_TSP_MAX_CITIES);
  FUZZ_CHECK(instance.metric == CK_TSP_EXPLICIT ? instance.matrix != NULL
                                                : instance.x && instance.y);
  FUZZ_CHECK(ck__tsp_check_distances(&instance, "fuzz") == CK_OK);
  int64_t distance = -1;
  FUZZ_CHECK(ck_tsp_get_distance(&instance, 0, instance.cities - 1,
                                 &distance) == CK_OK);
  FUZZ_CHECK(distance >= 0 && distance <= CK_TSP_MAX_DISTANCE);
  ck_tsp_free(&instance);
  return 0;
}
