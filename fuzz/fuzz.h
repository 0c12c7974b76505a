/*
 * fuzz.h - what the libFuzzer harnesses share: a file in memory that each
 * input is written to (the readers take a path), the files of sealed
 * formats with a fresh SHA-256 after them, the ref device, and a check
 * that aborts where a reader accepted something it should not have.
 */
#ifndef CK_FUZZ_H
#define CK_FUZZ_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clkit/device.h"
#include "util/util.h"

/* A promise a reader broke, or a failure of the harness itself: a crash,
 * which libFuzzer reports with the input. */
#define FUZZ_CHECK(condition)                                                  \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,         \
              #condition);                                                     \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* A memory file (memfd), opened once and rewritten for every input; the
 * readers open it again by its /proc path, as any other file. */
typedef struct fuzz_file {
  int fd;
  char path[40];
} fuzz_file;

/* Makes file hold data then tail (tail may be NULL); returns its path. */
static inline const char *fuzz_file_write(fuzz_file *file, const void *data,
                                          size_t size, const void *tail,
                                          size_t tail_size) {
  if (file->path[0] == '\0') {
    file->fd = memfd_create("clkit-fuzz", MFD_CLOEXEC);
    FUZZ_CHECK(file->fd >= 0);
    snprintf(file->path, sizeof file->path, "/proc/self/fd/%d", file->fd);
  }
  FUZZ_CHECK(ftruncate(file->fd, 0) == 0);
  FUZZ_CHECK(size == 0 || pwrite(file->fd, data, size, 0) == (ssize_t)size);
  FUZZ_CHECK(tail_size == 0 || pwrite(file->fd, tail, tail_size, (off_t)size) ==
                                   (ssize_t)tail_size);
  return file->path;
}

/* A sealed file (a model or a checkpoint, which end in the SHA-256 of the
 * bytes before it). With the low bit of the first byte set, the rest of
 * the input followed by its SHA-256, so that mutations reach the fields
 * behind the check; clear, the rest as it is, so that the check itself is
 * fuzzed too. */
static inline const char *fuzz_sealed_file(fuzz_file *file, const uint8_t *data,
                                           size_t size) {
  if (size == 0)
    return fuzz_file_write(file, NULL, 0, NULL, 0);
  if ((data[0] & 1) == 0)
    return fuzz_file_write(file, data + 1, size - 1, NULL, 0);
  uint8_t digest[32];
  ck__sha256(data + 1, size - 1, digest);
  return fuzz_file_write(file, data + 1, size - 1, digest, sizeof digest);
}

/* The ref device, as ck_device_enumerate() lists it first (enumerating
 * would load every OpenCL driver into the harness for nothing), but with
 * 256 MiB of memory: a small file may ask for much more (a gas of a few
 * particles in a box of 10^8 cells), which is refused then, not made. */
static inline const ck_device *fuzz_ref_device(void) {
  static ck_device device;
  if (device.id[0] != '\0')
    return &device;
  snprintf(device.id, sizeof device.id, "ref");
  device.backend = CK_BACKEND_REF;
  device.kind = CK_KIND_HOST;
  device.compute_units = 1;
  device.global_memory = device.max_alloc = 256ull << 20;
  device.max_work_group_size = 1;
  device.has_fp64 = 1;
  device.warp_width = 1;
  device.platform_index = -1;
  device.device_index = -1;
  return &device;
}

#endif
