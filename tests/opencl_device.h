/*
 * opencl_device.h - picks the device a test's kernel checks run on: the
 * first OpenCL device, or the first OpenCL or CUDA device matching
 * $CLKIT_TEST_DEVICE when it is set; or none, with a reason.
 */
#ifndef CK_TEST_OPENCL_DEVICE_H
#define CK_TEST_OPENCL_DEVICE_H

#include <stdlib.h>
#include <string.h>

#include "clkit/clkit.h"

/* Returns the device's index in set, or -1 after printing why none. */
static long test_opencl_device(const ck_device_set *set) {
  const char *selector = getenv("CLKIT_TEST_DEVICE");
  if (!selector || !*selector)
    selector = "all";
  size_t indices[64], count = 0;
  /* By default the first OpenCL device; a CUDA device when named, so that
   * the same checks run on both backends. */
  int named = strcmp(selector, "all") != 0;
  if (ck_device_select(set, selector, indices, 64, &count) == CK_OK)
    for (size_t k = 0; k < count; ++k)
      if (set->devices[indices[k]].backend == CK_BACKEND_OPENCL ||
          (named && set->devices[indices[k]].backend == CK_BACKEND_CUDA))
        return (long)indices[k];
  printf("no OpenCL device matches '%s'%s%s: OpenCL checks skipped\n", selector,
         set->opencl_status != CK_OK ? ": " : "",
         set->opencl_status != CK_OK ? set->opencl_message : "");
  return -1;
}

#endif
