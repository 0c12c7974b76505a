/*
 * fuzz_checkpoint.c - gas checkpoints, .ckg (ck_gas_load on the ref
 * device). The low bit of the first byte says whether the rest gets a
 * fresh SHA-256 after it or is read as it is (fuzz.h). An accepted
 * checkpoint must give back its particles inside its box.
 */
#include "fuzz.h"

#include <math.h>

#include "clkit/gas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  const char *path = fuzz_sealed_file(&file, data, size);
  ck_gas *gas = NULL;
  if (ck_gas_load(fuzz_ref_device(), path, &gas) != CK_OK) {
    FUZZ_CHECK(gas == NULL);
    return 0;
  }
  double box_x = 0, box_y = 0;
  size_t particles = 0;
  FUZZ_CHECK(ck_gas_get_box(gas, &box_x, &box_y, &particles) == CK_OK);
  FUZZ_CHECK(particles >= 1);
  double *positions = malloc(2 * particles * sizeof *positions);
  double *velocities = malloc(2 * particles * sizeof *velocities);
  FUZZ_CHECK(positions && velocities);
  FUZZ_CHECK(ck_gas_get_particles(gas, positions, velocities) == CK_OK);
  for (size_t i = 0; i < particles; ++i) {
    double x = positions[2 * i], y = positions[2 * i + 1];
    FUZZ_CHECK(x >= 0 && x <= box_x && y >= 0 && y <= box_y);
    FUZZ_CHECK(isfinite(velocities[2 * i]) && isfinite(velocities[2 * i + 1]));
  }
  free(positions);
  free(velocities);
  ck_gas_destroy(gas);
  return 0;
}
