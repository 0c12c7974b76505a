/*
 * fuzz_xyz.c - extended XYZ frames (ck__gas_xyz_read, on the input as it
 * is). An accepted frame must hold finite positions, no two alike, and a
 * box that fits the limits of clkit/gas.h where the file gives one.
 */
#include "fuzz.h"

#include <math.h>

#include "clkit/gas.h"
#include "gas/gas_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  const char *path = fuzz_file_write(&file, data, size, NULL, 0);
  ck__gas_frame frame;
  if (ck__gas_xyz_read(path, &frame) != CK_OK)
    return 0;
  FUZZ_CHECK(frame.particles >= 1 && frame.positions);
  FUZZ_CHECK(
      (frame.box_x == 0 && frame.box_y == 0) ||
      (frame.box_x >= CK_GAS_MIN_SIDE && frame.box_x <= CK_GAS_MAX_SIDE &&
       frame.box_y >= CK_GAS_MIN_SIDE && frame.box_y <= CK_GAS_MAX_SIDE));
  for (size_t i = 0; i < 2 * frame.particles; ++i) {
    FUZZ_CHECK(isfinite(frame.positions[i]));
    FUZZ_CHECK(!frame.velocities || isfinite(frame.velocities[i]));
  }
  size_t first = 0, second = 0;
  FUZZ_CHECK(ck__gas_find_coincident(frame.particles, frame.positions, 0,
                                     &first, &second) == CK_OK);
  FUZZ_CHECK(first == frame.particles && second == frame.particles);
  ck__gas_frame_free(&frame);
  return 0;
}
