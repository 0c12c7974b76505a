/*
 * steps.c - picking a workload's steps table for a device: the base table
 * of its backend, or a native table with the base's steps where it names
 * none (see framework.h and docs/architecture.md).
 */
#include <assert.h>
#include <string.h>

#include "framework/framework.h"

const void *ck__steps_pick(const ck_device *device, const void *ref,
                           const void *opencl, const void *native, void *merged,
                           size_t size) {
  assert(device && size % sizeof(ck__step_fn) == 0);
  const void *base = device->backend == CK_BACKEND_REF ? ref : opencl;
  assert(base && (!native || merged));
  if (!native)
    return base;
  /* Entry by entry through memcpy: the bytes of each function pointer
   * move between tables of one type, as the same member. */
  const unsigned char *from = native, *fallback = base;
  unsigned char *to = merged;
  for (size_t at = 0; at + sizeof(ck__step_fn) <= size;
       at += sizeof(ck__step_fn)) {
    ck__step_fn step;
    memcpy(&step, from + at, sizeof step);
    memcpy(to + at, step ? from + at : fallback + at, sizeof step);
  }
  return merged;
}
