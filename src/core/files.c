/* files.c - output files written so that a reader never sees half of one. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"

/* A name for a temporary file that is unlikely to be taken. */
static unsigned temporary_token(void) {
  static _Thread_local uint64_t counter;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t z = (uint64_t)getpid() ^ ((uint64_t)now.tv_nsec << 20) ^
               ((uint64_t)now.tv_sec << 40) ^ (uint64_t)(uintptr_t)&counter ^
               (++counter * UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return (unsigned)(z ^ (z >> 31));
}

ck_status ck__file_open_temporary(const char *path, char **temp, int *fd) {
  const char *slash = strrchr(path, '/');
  size_t directory = slash ? (size_t)(slash - path) + 1 : 0;
  const char *name = path + directory;
  size_t size = strlen(path) + 32;
  ck_status status;
  *temp = NULL;
  *fd = -1;
  if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s names a directory, not a file", path);
  struct stat target;
  int exists = stat(path, &target) == 0;
  if (exists && S_ISDIR(target.st_mode))
    return ck__fail(CK_ERROR_IO, "cannot write %s: it is a directory", path);
  if (exists && !S_ISREG(target.st_mode)) {
    /* A device or a pipe (/dev/null, a FIFO) is written in place: a rename
     * would replace the node itself. */
    int opened = open(path, O_WRONLY | O_CLOEXEC);
    if (opened < 0)
      return ck__fail(CK_ERROR_IO, "cannot write %s: %s", path,
                      strerror(errno));
    *temp = strdup(path);
    if (!*temp) {
      close(opened);
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    *fd = opened;
    return CK_OK;
  }
  char *candidate = malloc(size);
  if (!candidate)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory: %zu bytes for a file name", size);
  memcpy(candidate, path, directory);
  for (int attempt = 0; attempt < 100; ++attempt) {
    snprintf(candidate + directory, size - directory, ".%s.tmp.%08x", name,
             temporary_token());
    int opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (opened >= 0) {
      *temp = candidate;
      *fd = opened;
      return CK_OK;
    }
    if (errno != EEXIST) {
      int error = errno;
      status = ck__fail(CK_ERROR_IO,
                        "cannot write %s: cannot create the temporary file "
                        "%s: %s",
                        path, candidate, strerror(error));
      free(candidate);
      return status;
    }
  }
  free(candidate);
  return ck__fail(CK_ERROR_IO,
                  "cannot write %s: no free temporary file name beside it",
                  path);
}

int ck__write_all(int fd, const void *buffer, size_t size) {
  const uint8_t *at = buffer;
  while (size > 0) {
    ssize_t put = write(fd, at, size);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      if (put == 0)
        errno = EIO;
      return -1;
    }
    at += put;
    size -= (size_t)put;
  }
  return 0;
}

/* Whether fd was opened on the target itself (not a regular file). */
static int written_in_place(int fd) {
  struct stat opened;
  return fstat(fd, &opened) == 0 && !S_ISREG(opened.st_mode);
}

ck_status ck__file_commit(int fd, char *temp, const char *path) {
  ck_status status = CK_OK;
  int in_place = written_in_place(fd);
  /* On disk before the rename, so a crash cannot leave an empty file. */
  if (fsync(fd) != 0 && errno != EINVAL)
    status =
        ck__fail(CK_ERROR_IO, "cannot write %s: %s", temp, strerror(errno));
  if (close(fd) != 0 && status == CK_OK)
    status =
        ck__fail(CK_ERROR_IO, "cannot write %s: %s", temp, strerror(errno));
  if (status == CK_OK && !in_place && rename(temp, path) != 0)
    status = ck__fail(CK_ERROR_IO, "cannot rename %s to %s: %s", temp, path,
                      strerror(errno));
  if (status != CK_OK && !in_place)
    unlink(temp);
  free(temp);
  return status;
}

void ck__file_abandon(int fd, char *temp) {
  int in_place = fd >= 0 && written_in_place(fd);
  if (fd >= 0)
    close(fd);
  if (temp && !in_place)
    unlink(temp);
  free(temp);
}

ck_status ck__file_write_atomic(const char *path, const void *data,
                                size_t size) {
  char *temp = NULL;
  int fd = -1;
  if (!path || !*path || (size && !data))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "no output file name given");
  ck_status status = ck__file_open_temporary(path, &temp, &fd);
  if (status)
    return status;
  if (ck__write_all(fd, data, size) != 0) {
    status =
        ck__fail(CK_ERROR_IO, "cannot write %s: %s", temp, strerror(errno));
    ck__file_abandon(fd, temp);
    return status;
  }
  return ck__file_commit(fd, temp, path);
}

ck_status ck__file_read_bytes(const char *path, char **bytes, size_t *size) {
  ck_status status = CK_OK;
  FILE *file = NULL;
  char *data = NULL;
  size_t used = 0, capacity = 0;
  if (!path || !bytes)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "no input file name given");
  *bytes = NULL;
  file = fopen(path, "rb");
  if (!file)
    return ck__fail(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
  for (;;) {
    if (used + 4096 + 1 > capacity) {
      capacity = capacity ? 2 * capacity : 65536;
      char *grown = realloc(data, capacity);
      if (!grown)
        CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory reading %s", path);
      data = grown;
    }
    size_t got = fread(data + used, 1, capacity - used - 1, file);
    used += got;
    if (got == 0) {
      if (ferror(file))
        CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
      break;
    }
  }
  data[used] = '\0';
  fclose(file);
  *bytes = data;
  if (size)
    *size = used;
  return CK_OK;
fail:
  if (file)
    fclose(file);
  free(data);
  return status;
}

ck_status ck__file_read_text(const char *path, char **text, size_t *size) {
  size_t used = 0;
  ck_status status = ck__file_read_bytes(path, text, &used);
  if (status != CK_OK)
    return status;
  if (memchr(*text, '\0', used)) {
    free(*text);
    *text = NULL;
    return ck__fail(CK_ERROR_PARSE, "%s: not a text file (it holds NUL bytes)",
                    path);
  }
  if (size)
    *size = used;
  return CK_OK;
}

ck_status ck__c_locale_enter(ck__c_locale *scope, const char *source) {
  locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (c == (locale_t)0)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: cannot create the C locale for numbers: %s", source,
                    strerror(errno));
  scope->c = c;
  scope->previous = uselocale(c);
  return CK_OK;
}

void ck__c_locale_leave(ck__c_locale *scope) {
  if (!scope->c)
    return;
  uselocale((locale_t)scope->previous);
  freelocale((locale_t)scope->c);
  scope->c = NULL;
}

void ck__bytes_put(ck__byte_writer *writer, const void *data, size_t size) {
  if (writer->failed || size == 0)
    return;
  if (writer->size + size > writer->capacity) {
    size_t capacity = writer->capacity ? writer->capacity : 4096;
    while (capacity < writer->size + size)
      capacity *= 2;
    uint8_t *grown = realloc(writer->bytes, capacity);
    if (!grown) {
      writer->failed = 1;
      return;
    }
    writer->bytes = grown;
    writer->capacity = capacity;
  }
  memcpy(writer->bytes + writer->size, data, size);
  writer->size += size;
}

void ck__bytes_put_u32(ck__byte_writer *writer, uint32_t value) {
  uint8_t bytes[4];
  ck__put_u32(bytes, value);
  ck__bytes_put(writer, bytes, 4);
}

void ck__bytes_put_u64(ck__byte_writer *writer, uint64_t value) {
  uint8_t bytes[8];
  ck__put_u64(bytes, value);
  ck__bytes_put(writer, bytes, 8);
}

void ck__bytes_put_f32(ck__byte_writer *writer, float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  ck__bytes_put_u32(writer, bits);
}

void ck__bytes_put_f64(ck__byte_writer *writer, double value) {
  uint64_t bits;
  memcpy(&bits, &value, 8);
  ck__bytes_put_u64(writer, bits);
}

ck_status ck__bytes_save(ck__byte_writer *writer, const char *path) {
  ck_status status = CK_OK;
  if (!writer->failed) {
    uint8_t digest[32];
    ck__sha256(writer->bytes, writer->size, digest);
    ck__bytes_put(writer, digest, sizeof digest);
  }
  if (writer->failed)
    status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", path);
  else
    status = ck__file_write_atomic(path, writer->bytes, writer->size);
  ck__bytes_free(writer);
  return status;
}

void ck__bytes_free(ck__byte_writer *writer) {
  free(writer->bytes);
  memset(writer, 0, sizeof *writer);
}

/* The path with its directories resolved: the whole path's real path when
 * it exists, else its directory's followed by its last name; NULL when
 * neither resolves or memory runs out. */
static char *resolved_path(const char *path) {
  char *whole = realpath(path, NULL);
  if (whole)
    return whole;
  const char *slash = strrchr(path, '/');
  char *directory =
      slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
            : strdup(".");
  char *resolved = directory ? realpath(directory, NULL) : NULL;
  free(directory);
  if (!resolved)
    return NULL;
  const char *name = slash ? slash + 1 : path;
  size_t length = strlen(resolved) + strlen(name) + 2;
  char *joined = malloc(length);
  if (joined)
    snprintf(joined, length, "%s/%s", resolved, name);
  free(resolved);
  return joined;
}

ck_status ck_file_same(const char *a, const char *b, int *same) {
  if (!a || !b || !same)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_file_same: NULL argument");
  *same = strcmp(a, b) == 0;
  if (*same)
    return CK_OK;
  struct stat first, second;
  if (stat(a, &first) == 0 && stat(b, &second) == 0) {
    /* Links and other spellings of one existing file. */
    *same = first.st_dev == second.st_dev && first.st_ino == second.st_ino;
    return CK_OK;
  }
  char *resolved_a = resolved_path(a), *resolved_b = resolved_path(b);
  *same = resolved_a && resolved_b && strcmp(resolved_a, resolved_b) == 0;
  free(resolved_a);
  free(resolved_b);
  return CK_OK;
}
