/*
 * files_read.c - inputs: a file or standard input ("-"), read whole
 * within a limit of bytes, as text or as bytes of a known magic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

int ck__file_open_input(const char *path) {
  /* A copy of standard input, which closing leaves open. */
  if (strcmp(path, "-") == 0)
    return fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
  return open(path, O_RDONLY | O_CLOEXEC);
}

/* Reads path whole into a malloc'd buffer with a NUL after its end. A
 * regular file's size is checked against max_bytes before anything is
 * read; a stream's as it grows, its buffer never past one byte over the
 * limit. Reading ends early (*ended_early) at a NUL with text set, or at
 * the first byte that differs from magic. */
static ck_status read_whole(const char *path, size_t max_bytes, int text,
                            const void *magic, size_t magic_size, char **bytes,
                            size_t *size, int *ended_early) {
  ck_status status = CK_OK;
  char *data = NULL;
  size_t used = 0, capacity = 65536;
  struct stat info;
  *bytes = NULL;
  *ended_early = 0;
  int fd = ck__file_open_input(path);
  if (fd < 0)
    CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
  if (fstat(fd, &info) != 0)
    CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
  if (S_ISDIR(info.st_mode))
    CK_FAIL(CK_ERROR_IO, "cannot read %s: it is a directory", path);
  if (S_ISREG(info.st_mode)) {
    if ((uint64_t)info.st_size > max_bytes)
      CK_FAIL(CK_ERROR_UNSUPPORTED,
              "%s: %llu bytes; clkit reads files of this kind of at most %zu "
              "bytes",
              path, (unsigned long long)info.st_size, max_bytes);
    /* One byte more than the size, to meet the end without growing. */
    capacity = (size_t)info.st_size + 1;
  }
  if (capacity > max_bytes)
    capacity = max_bytes + 1;
  data = malloc(capacity + 1);
  if (!data)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory reading %s", path);
  for (;;) {
    if (used == capacity) {
      size_t larger = capacity < max_bytes / 2 ? 2 * capacity : max_bytes + 1;
      char *grown = realloc(data, larger + 1);
      if (!grown)
        CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory reading %s", path);
      data = grown;
      capacity = larger;
    }
    ssize_t got = read(fd, data + used, capacity - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
    if (got == 0)
      break;
    size_t before = used;
    used += (size_t)got;
    if (used > max_bytes)
      CK_FAIL(CK_ERROR_UNSUPPORTED,
              "%s: more than %zu bytes; clkit reads files of this kind of at "
              "most that size",
              path, max_bytes);
    if (text && memchr(data + before, '\0', (size_t)got)) {
      *ended_early = 1;
      break;
    }
    if (magic && before < magic_size) {
      size_t compared = used < magic_size ? used : magic_size;
      if (memcmp(data, magic, compared) != 0) {
        *ended_early = 1;
        break;
      }
    }
  }
  close(fd);
  data[used] = '\0';
  *bytes = data;
  if (size)
    *size = used;
  return CK_OK;
fail:
  if (fd >= 0)
    close(fd);
  free(data);
  return status;
}

ck_status ck__file_read_bytes(const char *path, size_t max_bytes,
                              const void *magic, size_t magic_size,
                              char **bytes, size_t *size) {
  int ended_early = 0;
  if (!path || !bytes)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "no input file name given");
  return read_whole(path, max_bytes, 0, magic, magic_size, bytes, size,
                    &ended_early);
}

ck_status ck__file_read_text(const char *path, size_t max_bytes, char **text,
                             size_t *size) {
  int ended_early = 0;
  size_t used = 0;
  if (!path || !text)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "no input file name given");
  ck_status status =
      read_whole(path, max_bytes, 1, NULL, 0, text, &used, &ended_early);
  if (status != CK_OK)
    return status;
  if (ended_early) {
    /* The line of the first NUL, as every other text error names one. */
    const char *nul = memchr(*text, '\0', used);
    size_t line = 1;
    for (const char *c = *text; c < nul; ++c)
      line += *c == '\n';
    free(*text);
    *text = NULL;
    return ck__fail(CK_ERROR_PARSE, "%s:%zu: not a text file (a NUL byte)",
                    path, line);
  }
  if (size)
    *size = used;
  return CK_OK;
}

size_t ck__file_binary_max_bytes(void) {
  unsigned long long memory = ck__host_memory();
  return memory == 0 || memory > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)memory;
}
