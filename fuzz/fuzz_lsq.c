/*
 * fuzz_lsq.c - least-squares data, CSV or binary (ck_lsq_load, on the
 * input as it is). An accepted set must be as clkit/lsq.h describes it.
 */
#include "fuzz.h"

#include <math.h>

#include "clkit/lsq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  const char *path = fuzz_file_write(&file, data, size, NULL, 0);
  ck_lsq_data set;
  if (ck_lsq_load(path, &set) != CK_OK)
    return 0;
  FUZZ_CHECK(set.rows >= 1 && set.dim >= 1 && set.dim <= CK_LSQ_MAX_DIM);
  for (size_t j = 0; j < set.rows; ++j) {
    FUZZ_CHECK(isfinite(set.b[j]));
    for (size_t d = 0; d < set.dim; ++d)
      FUZZ_CHECK(isfinite(set.a[j * set.dim + d]));
  }
  ck_lsq_free(&set);
  return 0;
}
