/*
 * The on-disk cache of built kernel binaries.
 *
 * Each entry is one file, "<64 hex digits of the key>.ckbin", laid out as
 *
 *   offset  size  field
 *        0     8  magic "CKCACHE1"
 *        8     4  format version (1), little-endian
 *       12     4  reserved, written as 0 and ignored on reading
 *       16     8  payload size in bytes, little-endian
 *       24    32  SHA-256 of the payload
 *       56     n  payload
 *
 * Integers are encoded byte by byte, so an entry reads the same on any
 * host. Writers never touch a final name directly: they fill a private
 * temporary file ".<hex>.tmp.XXXXXX" in the same directory and rename() it
 * into place, which POSIX makes atomic, so a reader sees either the old
 * complete entry, the new complete entry or none, and racing writers of
 * one key simply replace each other's identical result.
 *
 * A writer that dies between creating its temporary file and the rename
 * (killed, or the machine down) leaves the temporary behind; the next
 * store deletes such files once they are CK__CACHE_STALE_SECONDS old.
 * A live writer's temporary is younger than that: it is written in one
 * go right after a build, and every write renews its modification time.
 *
 * The cache is an accelerator only: anything wrong with an entry is
 * treated as a miss (the entry is deleted and rebuilt by the caller).
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define CK__CACHE_PATH_CAPACITY 4096
#define CK__CACHE_HEADER_SIZE 56
#define CK__CACHE_VERSION 1u
#define CK__CACHE_KEY_HEX 64
#define CK__CACHE_STALE_SECONDS (60 * 60)

static const char cache_magic[8] = {'C', 'K', 'C', 'A', 'C', 'H', 'E', '1'};
static const char entry_suffix[] = ".ckbin";
static const char temp_infix[] = ".tmp.";

/* Resolves the directory without recording a message (see callers). */
static ck_status resolve_directory(char *path, size_t capacity) {
  const char *base = getenv("CLKIT_CACHE_DIR");
  const char *tail = "";
  if (!base || !*base) {
    base = getenv("XDG_CACHE_HOME");
    tail = "/clkit";
    /* The XDG spec says relative values are invalid and must be ignored. */
    if (!base || base[0] != '/') {
      base = getenv("HOME");
      tail = "/.cache/clkit";
    }
  }
  if (!base || !*base)
    return CK_ERROR_CACHE;
  int written = snprintf(path, capacity, "%s%s", base, tail);
  if (written < 0 || (size_t)written >= capacity)
    return CK_ERROR_CACHE;
  return CK_OK;
}

ck_status ck__cache_directory(char *path, size_t capacity) {
  if (!path || capacity == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_directory: path is NULL or empty");
  if (resolve_directory(path, capacity) != CK_OK) {
    path[0] = '\0';
    return ck__fail(CK_ERROR_CACHE,
                    "no kernel cache directory: set CLKIT_CACHE_DIR or HOME "
                    "(or a path shorter than %zu bytes)",
                    capacity);
  }
  return CK_OK;
}

/*
 * Reads CLKIT_CACHE into *mode; 0 when the value is none of the spellings
 * below, and *mode is then CK__CACHE_ON: a cache is never required, so a
 * typo must not turn it off, but ck_cache_query() reports it. An empty
 * value counts as unset, as CLKIT_CACHE_DIR's does.
 */
static int read_setting(ck__cache_mode *mode) {
  static const char *const off[] = {"0", "off", "no", "false"};
  static const char *const forced[] = {"1", "on", "yes", "true"};
  const char *value = getenv("CLKIT_CACHE");
  *mode = CK__CACHE_ON;
  if (!value || !*value)
    return 1;
  for (size_t i = 0; i < sizeof off / sizeof off[0]; ++i) {
    if (strcasecmp(value, off[i]) == 0) {
      *mode = CK__CACHE_OFF;
      return 1;
    }
    /* Every way of saying yes means what "1" always has, so that "on"
     * cannot quietly differ from "1". */
    if (strcasecmp(value, forced[i]) == 0) {
      *mode = CK__CACHE_FORCED;
      return 1;
    }
  }
  return 0;
}

ck__cache_mode ck__cache_setting(void) {
  ck__cache_mode mode;
  read_setting(&mode);
  return mode;
}

static int is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int is_hex_prefix(const char *name) {
  for (int i = 0; i < CK__CACHE_KEY_HEX; ++i)
    if (!is_hex_digit(name[i]))
      return 0;
  return 1;
}

/* "<64 hex>.ckbin": only files of this exact shape are counted as ours. */
static int is_entry_name(const char *name) {
  return strlen(name) == CK__CACHE_KEY_HEX + sizeof entry_suffix - 1 &&
         is_hex_prefix(name) &&
         strcmp(name + CK__CACHE_KEY_HEX, entry_suffix) == 0;
}

/* ".<64 hex>.tmp.XXXXXX", as made by ck__cache_store. */
static int is_temp_name(const char *name) {
  size_t length = strlen(name);
  size_t prefix = 1 + CK__CACHE_KEY_HEX + sizeof temp_infix - 1;
  return length > prefix && name[0] == '.' && is_hex_prefix(name + 1) &&
         memcmp(name + 1 + CK__CACHE_KEY_HEX, temp_infix,
                sizeof temp_infix - 1) == 0;
}

static ck_status entry_path(const uint8_t key[32], char *path, size_t capacity,
                            int record) {
  char hex[2 * 32 + 1];
  size_t length;
  if (resolve_directory(path, capacity) != CK_OK) {
    path[0] = '\0';
    return record ? ck__cache_directory(path, capacity) : CK_ERROR_CACHE;
  }
  ck__hex(key, 32, hex);
  length = strlen(path);
  int written =
      snprintf(path + length, capacity - length, "/%s%s", hex, entry_suffix);
  if (written < 0 || (size_t)written >= capacity - length)
    return record ? ck__fail(CK_ERROR_CACHE,
                             "kernel cache path too long under %.*s",
                             (int)length, path)
                  : CK_ERROR_CACHE;
  return CK_OK;
}

/* Reads exactly size bytes; 0 on success, -1 with errno (0 at early EOF). */
static int read_all(int fd, void *buffer, size_t size) {
  uint8_t *at = buffer;
  while (size > 0) {
    ssize_t got = read(fd, at, size);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      if (got == 0)
        errno = 0;
      return -1;
    }
    at += got;
    size -= (size_t)got;
  }
  return 0;
}

/*
 * Deletes a bad entry, but only if the name still refers to the file we
 * read: a racing writer may already have renamed a good one over it.
 */
static void discard_entry(const char *path, int fd) {
  struct stat opened, named;
  if (fstat(fd, &opened) != 0 || stat(path, &named) != 0)
    return;
  if (opened.st_dev == named.st_dev && opened.st_ino == named.st_ino)
    unlink(path);
}

ck_status ck__cache_load(const uint8_t key[32], void **payload, size_t *size) {
  ck_status status = CK_OK;
  char path[CK__CACHE_PATH_CAPACITY];
  uint8_t header[CK__CACHE_HEADER_SIZE];
  uint8_t digest[32];
  uint8_t *data = NULL;
  int fd = -1, corrupt = 0;
  struct stat info;
  uint64_t declared = 0;
/* The entry is damaged (short, or its header or digest wrong). */
#define CORRUPT()                                                              \
  do {                                                                         \
    corrupt = 1;                                                               \
    goto fail;                                                                 \
  } while (0)

  if (!key || !payload || !size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_load: key, payload and size are required");
  *payload = NULL;
  *size = 0;
  /* Without a usable location every lookup is an ordinary miss. */
  if (ck__cache_setting() == CK__CACHE_OFF ||
      entry_path(key, path, sizeof path, 0) != CK_OK)
    return CK_ERROR_NOT_FOUND;

  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return CK_ERROR_NOT_FOUND;
    CK_FAIL(CK_ERROR_CACHE, "cannot open kernel cache entry %s: %s", path,
            strerror(errno));
  }
  if (fstat(fd, &info) != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot stat kernel cache entry %s: %s", path,
            strerror(errno));
  if (read_all(fd, header, sizeof header) != 0) {
    if (errno != 0)
      CK_FAIL(CK_ERROR_CACHE, "cannot read kernel cache entry %s: %s", path,
              strerror(errno));
    CORRUPT();
  }

  declared = ck__get_u64(header + 16);
  if (memcmp(header, cache_magic, sizeof cache_magic) != 0 ||
      ck__get_u32(header + 8) != CK__CACHE_VERSION ||
      info.st_size < CK__CACHE_HEADER_SIZE ||
      declared != (uint64_t)info.st_size - CK__CACHE_HEADER_SIZE ||
      declared >= (uint64_t)SIZE_MAX)
    CORRUPT();

  data = malloc(declared ? (size_t)declared : 1);
  if (!data)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory reading kernel cache entry %s (%llu bytes)", path,
            (unsigned long long)declared);
  if (read_all(fd, data, (size_t)declared) != 0) {
    if (errno != 0)
      CK_FAIL(CK_ERROR_CACHE, "cannot read kernel cache entry %s: %s", path,
              strerror(errno));
    CORRUPT();
  }
  ck__sha256(data, (size_t)declared, digest);
  if (memcmp(digest, header + 24, sizeof digest) != 0)
    CORRUPT();

  *payload = data;
  *size = (size_t)declared;
  data = NULL;
fail:
  /* A damaged entry is deleted, and is a miss: it will be rebuilt. */
  if (corrupt) {
    discard_entry(path, fd);
    status = CK_ERROR_NOT_FOUND;
  }
  free(data);
  if (fd >= 0)
    close(fd);
  return status;
}

#undef CORRUPT

/* Creates path and its missing parents, like mkdir -p. */
static ck_status make_directories(char *path) {
  /* Each '/' is briefly cut to a NUL so that every prefix is created. */
  for (char *slash = strchr(path + 1, '/'); slash;
       slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    int result = mkdir(path, 0755);
    int error = errno;
    *slash = '/';
    if (result != 0 && error != EEXIST)
      return ck__fail(CK_ERROR_CACHE,
                      "cannot create kernel cache directory %s: %s", path,
                      strerror(error));
  }
  if (mkdir(path, 0755) != 0 && errno != EEXIST)
    return ck__fail(CK_ERROR_CACHE,
                    "cannot create kernel cache directory %s: %s", path,
                    strerror(errno));
  return CK_OK;
}

/*
 * Deletes the temporaries of writers that died before their rename. Each
 * is checked by its age, not its key: a build whose writer was killed may
 * never be stored again. Failures are ignored; the store goes on.
 */
static void discard_stale_temporaries(const char *path) {
  DIR *directory = opendir(path);
  struct dirent *item;
  time_t now = time(NULL);
  if (!directory)
    return;
  while ((item = readdir(directory)) != NULL) {
    struct stat info;
    if (!is_temp_name(item->d_name) ||
        fstatat(dirfd(directory), item->d_name, &info, AT_SYMLINK_NOFOLLOW) !=
            0 ||
        !S_ISREG(info.st_mode) || now - info.st_mtime < CK__CACHE_STALE_SECONDS)
      continue;
    unlinkat(dirfd(directory), item->d_name, 0);
  }
  closedir(directory);
}

ck_status ck__cache_store(const uint8_t key[32], const void *payload,
                          size_t size) {
  ck_status status = CK_OK;
  char directory[CK__CACHE_PATH_CAPACITY];
  char path[CK__CACHE_PATH_CAPACITY];
  char temp[CK__CACHE_PATH_CAPACITY];
  char hex[2 * 32 + 1];
  uint8_t header[CK__CACHE_HEADER_SIZE];
  int fd = -1;
  int have_temp = 0;
  int written;
  int closed;

  if (!key || (!payload && size > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_store: key and payload are required");
  if (ck__cache_setting() == CK__CACHE_OFF)
    return CK_OK;

  CK_TRY(ck__cache_directory(directory, sizeof directory));
  CK_TRY(entry_path(key, path, sizeof path, 1));
  ck__hex(key, 32, hex);
  CK_TRY(make_directories(directory));
  discard_stale_temporaries(directory);

  /* O_CLOEXEC at the open itself (mkstemp has no such flag, and a later
   * fcntl leaves a window): a child that another thread of the caller
   * starts meanwhile must not inherit the descriptor. */
  for (int attempt = 0; fd < 0; ++attempt) {
    written = snprintf(temp, sizeof temp, "%s/.%s%s%08x", directory, hex,
                       temp_infix, ck__temporary_token());
    if (written < 0 || (size_t)written >= sizeof temp)
      CK_FAIL(CK_ERROR_CACHE, "kernel cache path too long under %s", directory);
    fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && (errno != EEXIST || attempt == 99))
      CK_FAIL(CK_ERROR_CACHE, "cannot create temporary cache file %s: %s", temp,
              strerror(errno));
  }
  have_temp = 1;

  memcpy(header, cache_magic, sizeof cache_magic);
  ck__put_u32(header + 8, CK__CACHE_VERSION);
  ck__put_u32(header + 12, 0);
  ck__put_u64(header + 16, (uint64_t)size);
  ck__sha256(payload, size, header + 24);
  if (ck__write_all(fd, header, sizeof header) != 0 ||
      ck__write_all(fd, payload, size) != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot write temporary cache file %s: %s", temp,
            strerror(errno));
  closed = close(fd);
  fd = -1;
  /* Some file systems report deferred write errors only at close. */
  if (closed != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot write temporary cache file %s: %s", temp,
            strerror(errno));
  if (rename(temp, path) != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot rename %s to %s: %s", temp, path,
            strerror(errno));
  return CK_OK;

fail:
  if (fd >= 0)
    close(fd);
  if (have_temp)
    unlink(temp);
  return status;
}

ck_status ck__cache_remove(const uint8_t key[32]) {
  char path[CK__CACHE_PATH_CAPACITY];
  if (!key)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__cache_remove: key is NULL");
  /* Nothing is ever read from a disabled or unlocatable cache. */
  if (ck__cache_setting() == CK__CACHE_OFF ||
      entry_path(key, path, sizeof path, 0) != CK_OK)
    return CK_OK;
  if (unlink(path) != 0 && errno != ENOENT)
    return ck__fail(CK_ERROR_CACHE, "cannot remove kernel cache entry %s: %s",
                    path, strerror(errno));
  return CK_OK;
}

ck_status ck_cache_query(ck_cache_stats *stats) {
  ck_status status = CK_OK;
  DIR *directory = NULL;
  struct dirent *item;

  if (!stats)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_cache_query: stats is NULL");
  memset(stats, 0, sizeof *stats);
  ck__cache_mode mode;
  int recognised = read_setting(&mode);
  stats->enabled = mode != CK__CACHE_OFF;
  stats->pocl_builds = mode == CK__CACHE_FORCED;
  /* A cache with no location, or no directory yet, holds nothing; that is
   * not an error here. */
  if (resolve_directory(stats->directory, sizeof stats->directory) != CK_OK)
    stats->directory[0] = '\0';
  else if (!(directory = opendir(stats->directory)) && errno != ENOENT)
    CK_FAIL(CK_ERROR_IO, "cannot read kernel cache directory %s: %s",
            stats->directory, strerror(errno));
  while (directory && (errno = 0, item = readdir(directory)) != NULL) {
    struct stat info;
    if (!is_entry_name(item->d_name))
      continue;
    /* An entry deleted since readdir saw it is simply not counted. */
    if (fstatat(dirfd(directory), item->d_name, &info, 0) != 0 ||
        !S_ISREG(info.st_mode))
      continue;
    stats->entries += 1;
    stats->bytes += (unsigned long long)info.st_size;
  }
  if (directory && errno != 0)
    CK_FAIL(CK_ERROR_IO, "cannot read kernel cache directory %s: %s",
            stats->directory, strerror(errno));
  /* Reported last, with stats complete, so that a caller can show both. */
  if (!recognised)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "CLKIT_CACHE=%.64s is not a setting clkit knows (0, off, no or "
            "false disable the cache; 1, on, yes or true also store PoCL's "
            "builds), so the cache stays on",
            getenv("CLKIT_CACHE"));
fail:
  if (directory)
    closedir(directory);
  return status;
}

ck_status ck_cache_clear(size_t *removed) {
  ck_status status = CK_OK;
  char path[CK__CACHE_PATH_CAPACITY];
  DIR *directory = NULL;
  struct dirent *item;
  size_t count = 0;

  if (removed)
    *removed = 0;
  if (resolve_directory(path, sizeof path) != CK_OK)
    return CK_OK;
  directory = opendir(path);
  if (!directory) {
    if (errno == ENOENT)
      return CK_OK;
    CK_FAIL(CK_ERROR_IO, "cannot read kernel cache directory %s: %s", path,
            strerror(errno));
  }
  /* Keep going past a failed unlink so one bad file does not pin the rest. */
  while ((errno = 0, item = readdir(directory)) != NULL) {
    if (!is_entry_name(item->d_name) && !is_temp_name(item->d_name))
      continue;
    if (unlinkat(dirfd(directory), item->d_name, 0) == 0)
      count += 1;
    else if (errno != ENOENT && status == CK_OK)
      status = ck__fail(CK_ERROR_IO, "cannot delete %s/%s: %s", path,
                        item->d_name, strerror(errno));
  }
  if (errno != 0 && status == CK_OK)
    status = ck__fail(CK_ERROR_IO, "cannot read kernel cache directory %s: %s",
                      path, strerror(errno));
  if (status != CK_OK)
    goto fail;
  closedir(directory);
  if (removed)
    *removed = count;
  return CK_OK;

fail:
  if (directory)
    closedir(directory);
  if (removed)
    *removed = count;
  return status;
}
