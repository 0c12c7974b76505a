/*
 * fuzz_tour.c - TSPLIB tours (ck_tsp_tour_load). The first two bytes
 * (little-endian) give the instance's cities, 3 + their value modulo
 * 4093; the rest is the file. An accepted tour must be a permutation.
 */
#include "fuzz.h"

#include "clkit/tsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  if (size < 2)
    return 0;
  uint32_t cities = 3 + (uint32_t)(data[0] | data[1] << 8) % 4093;
  const char *path = fuzz_file_write(&file, data + 2, size - 2, NULL, 0);
  uint32_t *tour = NULL;
  if (ck_tsp_tour_load(path, cities, &tour) != CK_OK) {
    FUZZ_CHECK(tour == NULL);
    return 0;
  }
  uint8_t *seen = calloc(cities, 1);
  FUZZ_CHECK(seen != NULL);
  for (uint32_t p = 0; p < cities; ++p) {
    FUZZ_CHECK(tour[p] < cities && !seen[tour[p]]);
    seen[tour[p]] = 1;
  }
  free(seen);
  free(tour);
  return 0;
}
