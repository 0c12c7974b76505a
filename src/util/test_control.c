/*
 * test_control.c - the hooks through which tests steer the library
 * (util.h, ck__test_control).
 */
#include "util/util.h"

#include <assert.h>
#include <limits.h>
#include <stdatomic.h>

typedef struct hook {
  const char *name;
  int per_thread; /* the calling thread's; else the process's */
  size_t most;    /* the largest value it takes */
} hook;

static const hook hooks[CK__TEST_OPS] = {
    [CK__TEST_HISTORY_LIMIT] = {"CK__TEST_HISTORY_LIMIT", 0, SIZE_MAX},
    [CK__TEST_SPREAD_THREAD_FAILS] = {"CK__TEST_SPREAD_THREAD_FAILS", 1,
                                      SIZE_MAX},
    [CK__TEST_PEER_REF] = {"CK__TEST_PEER_REF", 1, 1},
    [CK__TEST_CUDA_AS_PTX] = {"CK__TEST_CUDA_AS_PTX", 1, INT_MAX},
    [CK__TEST_CUDA_PTX_BUILDS] = {"CK__TEST_CUDA_PTX_BUILDS", 1, SIZE_MAX},
    [CK__TEST_CUDA_LOAD_FAILS] = {"CK__TEST_CUDA_LOAD_FAILS", 1, INT_MAX},
    [CK__TEST_GAS_ROOM] = {"CK__TEST_GAS_ROOM", 1, UINT32_MAX},
    [CK__TEST_GAS_TIERS_FROM] = {"CK__TEST_GAS_TIERS_FROM", 1, SIZE_MAX},
    [CK__TEST_GAS_BALANCE] = {"CK__TEST_GAS_BALANCE", 1, SIZE_MAX},
    [CK__TEST_GAS_ASIDE_FROM] = {"CK__TEST_GAS_ASIDE_FROM", 1, SIZE_MAX},
};

/* A test's thread may set a process hook while a spread's workers read
 * it: atomic, so that each reads a whole value. */
static _Atomic size_t process_values[CK__TEST_OPS];
static _Thread_local size_t thread_values[CK__TEST_OPS];

ck_status ck__test_control(ck__test_op op, size_t value) {
  if ((unsigned)op >= CK__TEST_OPS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__test_control: operation %d is not one", (int)op);
  const hook *h = &hooks[op];
  if (value > h->most)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__test_control: %s takes at most %zu, not %zu", h->name,
                    h->most, value);
  if (h->per_thread)
    thread_values[op] = value;
  else
    atomic_store(&process_values[op], value);
  return CK_OK;
}

size_t ck__test_value(ck__test_op op) {
  assert((unsigned)op < CK__TEST_OPS);
  if ((unsigned)op >= CK__TEST_OPS)
    return 0;
  return hooks[op].per_thread ? thread_values[op]
                              : atomic_load(&process_values[op]);
}
