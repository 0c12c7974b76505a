/*
 * opencl_device.h - picks the device a test's kernel checks run on: the
 * first OpenCL device, or the first OpenCL or CUDA device matching
 * $CLKIT_TEST_DEVICE when it is set; or none, with a reason. A device
 * asked for by name that is not there fails the test rather than skipping
 * its checks: a run meant for a GPU must not pass as a run on ref alone.
 */
#ifndef CK_TEST_OPENCL_DEVICE_H
#define CK_TEST_OPENCL_DEVICE_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clkit/clkit.h"

/* Returns the device's index in set, or -1 after printing why none. */
static long test_opencl_device(const ck_device_set *set) {
  const char *selector = getenv("CLKIT_TEST_DEVICE");
  if (!selector || !*selector)
    selector = "all";
  size_t indices[64], count = 0;
  /* The first OpenCL device the selector names; a CUDA device only when
   * it names no OpenCL one ("cuda:0"), so that the same checks run on both
   * backends. CUDA devices are listed first, and "nvidia" names both the
   * CUDA and the OpenCL form of a GPU: the OpenCL one is meant. */
  int named = strcmp(selector, "all") != 0;
  if (ck_device_select(set, selector, indices, 64, &count) == CK_OK) {
    for (size_t k = 0; k < count; ++k)
      if (set->devices[indices[k]].backend == CK_BACKEND_OPENCL)
        return (long)indices[k];
    for (size_t k = 0; named && k < count; ++k)
      if (set->devices[indices[k]].backend == CK_BACKEND_CUDA)
        return (long)indices[k];
  }
  CHECK_MSG(!named, "CLKIT_TEST_DEVICE=%s matches no OpenCL or CUDA device%s%s",
            selector, set->opencl_status != CK_OK ? ": " : "",
            set->opencl_status != CK_OK ? set->opencl_message : "");
  printf("no OpenCL device matches '%s'%s%s: OpenCL checks skipped\n", selector,
         set->opencl_status != CK_OK ? ": " : "",
         set->opencl_status != CK_OK ? set->opencl_message : "");
  return -1;
}

#endif
