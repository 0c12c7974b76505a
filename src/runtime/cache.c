/*
 * The on-disk cache of built kernel binaries.
 *
 * Each entry is one file, "<64 hex digits of the key>.ckbin" for a built
 * program or ".ckpeak" for a device's measured peaks (runtime/peak.c),
 * laid out as
 *
 *   offset  size  field
 *        0     8  magic "CKCACHE1"
 *        8     4  format version (2), little-endian
 *       12     4  size m of the kernel names, little-endian
 *       16     8  size n of the binary, little-endian
 *       24    32  SHA-256 of the kernel names and the binary
 *       56    32  the key
 *       88     m  kernel names, separated by ';' (no NUL)
 *     88+m     n  the binary
 *
 * Integers are encoded byte by byte, so an entry reads the same on any
 * host. The key in the header binds the entry to its name: an entry
 * copied or renamed over another's name is a miss. The kernel names are
 * those of the program built from source; a backend checks that the
 * binary still defines them when it loads it.
 *
 * Writers never touch a final name directly: they fill a private
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
 * What the cache trusts: a binary is loaded as code (PoCL's are host
 * objects), so only a directory that no one else can write is used. The
 * directory must be an absolute path, not a symbolic link, owned by the
 * user and not writable by group or others; it is created 0700. Entries
 * are opened relative to it without following links or blocking, and only
 * a regular file of the user's, not writable by group or others, is read.
 *
 * The cache is an accelerator only: anything wrong with an entry is
 * treated as a miss. A damaged entry (bad header, key or checksum) is
 * deleted; an entry that is not a safe regular file is left unread, and
 * the rebuilt entry is renamed over its name, which never follows a link.
 */
#include "runtime/runtime.h"

#include <assert.h>
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
#define CK__CACHE_HEADER_SIZE 88
#define CK__CACHE_VERSION 2u
#define CK__CACHE_KEY_HEX 64
#define CK__CACHE_NAME_CAPACITY 96 /* a final or temporary file name */
#define CK__CACHE_KERNELS_LIMIT (1u << 20)
#define CK__CACHE_STALE_SECONDS (60 * 60)

static const char cache_magic[8] = {'C', 'K', 'C', 'A', 'C', 'H', 'E', '1'};
/* The file name suffix of each kind of entry (ck__cache_kind). */
static const char *const entry_suffixes[] = {".ckbin", ".ckpeak"};
enum { ENTRY_KINDS = sizeof entry_suffixes / sizeof entry_suffixes[0] };
static const char temp_infix[] = ".tmp.";

typedef enum location { LOCATED, NOWHERE, RELATIVE } location;

/*
 * Resolves the directory without recording a message (see callers). A
 * relative location is written into path but not used: it would put the
 * cache wherever clkit happens to run. *variable names where it came from.
 */
static location resolve_directory(char *path, size_t capacity,
                                  const char **variable) {
  assert(path && capacity > 0 && variable);
  const char *base = getenv("CLKIT_CACHE_DIR");
  const char *tail = "";
  *variable = "CLKIT_CACHE_DIR";
  if (!base || !*base) {
    base = getenv("XDG_CACHE_HOME");
    tail = "/clkit";
    *variable = "XDG_CACHE_HOME";
    /* The XDG spec says relative values are invalid and must be ignored. */
    if (!base || base[0] != '/') {
      base = getenv("HOME");
      tail = "/.cache/clkit";
      *variable = "HOME";
    }
  }
  int written =
      base && *base ? snprintf(path, capacity, "%s%s", base, tail) : -1;
  if (written < 0 || (size_t)written >= capacity) {
    path[0] = '\0';
    return NOWHERE;
  }
  return base[0] == '/' ? LOCATED : RELATIVE;
}

/* Records why there is no usable location; path as resolve_directory. */
static ck_status unlocated(location where, const char *variable,
                           size_t capacity) {
  if (where == RELATIVE)
    return ck__fail(CK_ERROR_CACHE,
                    "kernel cache directory %s (%s) is not an absolute path",
                    getenv(variable), variable);
  return ck__fail(CK_ERROR_CACHE,
                  "no kernel cache directory: set CLKIT_CACHE_DIR or HOME "
                  "(or a path shorter than %zu bytes)",
                  capacity);
}

ck_status ck__cache_directory(char *path, size_t capacity) {
  const char *variable = NULL;
  if (!path || capacity == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_directory: path is NULL or empty");
  location where = resolve_directory(path, capacity, &variable);
  if (where != LOCATED) {
    path[0] = '\0';
    return unlocated(where, variable, capacity);
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

_Thread_local int ck__build_from_source;

static int is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int is_hex_prefix(const char *name) {
  assert(name);
  for (int i = 0; i < CK__CACHE_KEY_HEX; ++i)
    if (!is_hex_digit(name[i]))
      return 0;
  return 1;
}

/* "<64 hex>.ckbin" or "<64 hex>.ckpeak": only files of this exact shape
 * are counted as ours. Returns 1 + their ck__cache_kind, or 0. */
static int is_entry_name(const char *name) {
  if (strlen(name) <= CK__CACHE_KEY_HEX || !is_hex_prefix(name))
    return 0;
  for (int kind = 0; kind < ENTRY_KINDS; ++kind)
    if (strcmp(name + CK__CACHE_KEY_HEX, entry_suffixes[kind]) == 0)
      return 1 + kind;
  return 0;
}

/* ".<64 hex>.tmp.XXXXXX", as made by ck__cache_store. */
static int is_temp_name(const char *name) {
  size_t length = strlen(name);
  size_t prefix = 1 + CK__CACHE_KEY_HEX + sizeof temp_infix - 1;
  return length > prefix && name[0] == '.' && is_hex_prefix(name + 1) &&
         memcmp(name + 1 + CK__CACHE_KEY_HEX, temp_infix,
                sizeof temp_infix - 1) == 0;
}

/* The file name of key's entry of a kind, inside the cache directory. */
static void entry_name(ck__cache_kind kind, const uint8_t key[32],
                       char name[CK__CACHE_NAME_CAPACITY]) {
  assert((unsigned)kind < ENTRY_KINDS && key && name);
  char hex[2 * 32 + 1];
  ck__hex(key, 32, hex);
  snprintf(name, CK__CACHE_NAME_CAPACITY, "%s%s", hex, entry_suffixes[kind]);
}

/* 1 when only this user can change the file: its owner, not writable by
 * group or others. */
static int private_to_user(const struct stat *info) {
  return info->st_uid == geteuid() &&
         (info->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* Creates path and its missing parents, like mkdir -p, each 0700 (as the
 * XDG spec asks of a directory it creates). */
static ck_status make_directories(char *path) {
  assert(path && path[0] == '/'); /* only a located directory is made */
  /* Each '/' is briefly cut to a NUL so that every prefix is created. */
  for (char *slash = strchr(path + 1, '/'); slash;
       slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    int result = mkdir(path, 0700);
    int error = errno;
    *slash = '/';
    if (result != 0 && error != EEXIST)
      return ck__fail(CK_ERROR_CACHE,
                      "cannot create kernel cache directory %s: %s", path,
                      strerror(error));
  }
  if (mkdir(path, 0700) != 0 && errno != EEXIST)
    return ck__fail(CK_ERROR_CACHE,
                    "cannot create kernel cache directory %s: %s", path,
                    strerror(errno));
  return CK_OK;
}

/*
 * Opens the cache directory path (created first when create is set) and
 * checks that it may be trusted: not a symbolic link, owned by the user,
 * not writable by group or others. Everything after goes through *fd, so
 * the checked directory is the one used. Returns CK_OK; CK_ERROR_NOT_FOUND,
 * without a message, when it does not exist and create is 0;
 * CK_ERROR_CACHE when it is refused; CK_ERROR_IO when it cannot be opened.
 */
static ck_status open_directory(char *path, int create, int *fd) {
  assert(path && fd);
  ck_status status = CK_OK;
  struct stat info;
  int opened = -1;
  *fd = -1;
  if (create)
    CK_TRY(make_directories(path));
  opened = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (opened < 0) {
    int error = errno;
    if (error == ENOENT && !create)
      return CK_ERROR_NOT_FOUND;
    if (lstat(path, &info) == 0 && S_ISLNK(info.st_mode))
      return ck__fail(CK_ERROR_CACHE,
                      "kernel cache directory %s is a symbolic link, which "
                      "clkit does not follow",
                      path);
    return ck__fail(CK_ERROR_IO, "cannot read kernel cache directory %s: %s",
                    path, strerror(error));
  }
  if (fstat(opened, &info) != 0)
    CK_FAIL(CK_ERROR_IO, "cannot read kernel cache directory %s: %s", path,
            strerror(errno));
  if (info.st_uid != geteuid())
    CK_FAIL(CK_ERROR_CACHE,
            "kernel cache directory %s belongs to uid %lu, not to this user "
            "(uid %lu)",
            path, (unsigned long)info.st_uid, (unsigned long)geteuid());
  if (!private_to_user(&info))
    CK_FAIL(CK_ERROR_CACHE,
            "kernel cache directory %s is writable by group or others "
            "(mode %03o)",
            path, (unsigned)(info.st_mode & 0777));
  *fd = opened;
  return CK_OK;
fail:
  if (opened >= 0)
    close(opened);
  return status;
}

/* Resolves the cache directory into path and opens it, as open_directory;
 * no location, or a relative one, is CK_ERROR_CACHE. */
static ck_status locate(char *path, size_t capacity, int create, int *fd) {
  const char *variable = NULL;
  location where = resolve_directory(path, capacity, &variable);
  *fd = -1;
  if (where != LOCATED)
    return unlocated(where, variable, capacity);
  return open_directory(path, create, fd);
}

/* The cache directory opened for a lookup, or -1 where the cache is off,
 * or cannot be used or trusted: then every lookup misses, quietly, and
 * ck_cache_query() says why. */
static int lookup_directory(char *path, size_t capacity) {
  ck__error_saved saved;
  int dir = -1;
  if (ck__cache_setting() == CK__CACHE_OFF)
    return -1;
  ck__error_save(&saved);
  if (locate(path, capacity, 0, &dir) != CK_OK)
    dir = -1;
  ck__error_restore(&saved);
  return dir;
}

/* Reads exactly size bytes; 0 on success, -1 with errno (0 at early EOF). */
static int read_all(int fd, void *buffer, size_t size) {
  assert(fd >= 0 && (buffer || size == 0));
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
static void discard_entry(int directory, const char *name, int fd) {
  assert(directory >= 0 && name && fd >= 0);
  struct stat opened, named;
  if (fstat(fd, &opened) != 0 ||
      fstatat(directory, name, &named, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (opened.st_dev == named.st_dev && opened.st_ino == named.st_ino)
    unlinkat(directory, name, 0);
}

/* The SHA-256 of an entry's kernel names and binary, as its header holds
 * it. */
static void entry_digest(const char *names, size_t names_size, const void *data,
                         size_t size, uint8_t digest[32]) {
  ck__sha256_context context;
  ck__sha256_init(&context);
  ck__sha256_update(&context, names, names_size);
  ck__sha256_update(&context, data, size);
  ck__sha256_final(&context, digest);
}

/*
 * Opens the entry name in dir for reading into *fd, and *info its status.
 * A missing entry is CK_ERROR_NOT_FOUND without a message, as is one that
 * is not a regular file of the user's; *fd is then -1.
 */
static ck_status open_entry(int dir, const char *directory, const char *name,
                            int *fd, struct stat *info) {
  ck_status status = CK_OK;
  *fd = -1;
  /* O_NONBLOCK: a FIFO in an entry's place must not stall the open. A
   * link is a miss (ELOOP), as is anything but a regular file of the
   * user's: it is not read, and the rebuilt entry is renamed over it. */
  int opened =
      openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (opened < 0) {
    if (errno == ENOENT || errno == ELOOP)
      return CK_ERROR_NOT_FOUND;
    return ck__fail(CK_ERROR_CACHE, "cannot open kernel cache entry %s/%s: %s",
                    directory, name, strerror(errno));
  }
  if (fstat(opened, info) != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot stat kernel cache entry %s/%s: %s",
            directory, name, strerror(errno));
  if (!S_ISREG(info->st_mode) || !private_to_user(info)) {
    status = CK_ERROR_NOT_FOUND;
    goto fail;
  }
  *fd = opened;
  return CK_OK;
fail:
  close(opened);
  return status;
}

/* Reads the next size bytes of the entry at fd. An entry that ends early
 * is damaged: *corrupt is set, and the status is CK_ERROR_NOT_FOUND. */
static ck_status read_part(int fd, void *buffer, size_t size,
                           const char *directory, const char *name,
                           int *corrupt) {
  if (read_all(fd, buffer, size) == 0)
    return CK_OK;
  if (errno != 0)
    return ck__fail(CK_ERROR_CACHE, "cannot read kernel cache entry %s/%s: %s",
                    directory, name, strerror(errno));
  *corrupt = 1;
  return CK_ERROR_NOT_FOUND;
}

/* 1 when header begins an entry of this format for key, and the sizes it
 * declares add up to the file's: *names_size and *declared are then those
 * of the kernel names and of the binary. 0 when the entry is damaged. */
static int header_fits(const uint8_t header[CK__CACHE_HEADER_SIZE],
                       const uint8_t key[32], const struct stat *info,
                       uint32_t *names_size, uint64_t *declared) {
  *names_size = ck__get_u32(header + 12);
  *declared = ck__get_u64(header + 16);
  if (memcmp(header, cache_magic, sizeof cache_magic) != 0 ||
      ck__get_u32(header + 8) != CK__CACHE_VERSION ||
      memcmp(header + 56, key, 32) != 0 ||
      info->st_size < CK__CACHE_HEADER_SIZE ||
      *names_size > CK__CACHE_KERNELS_LIMIT)
    return 0;
  uint64_t body = (uint64_t)info->st_size - CK__CACHE_HEADER_SIZE;
  return *names_size <= body && *declared == body - *names_size &&
         *declared < (uint64_t)SIZE_MAX;
}

/* 1 when the kernel names (NUL-terminated) and the binary are what the
 * header's digest was made of, and the names hold no NUL of their own. */
static int contents_match(const uint8_t header[CK__CACHE_HEADER_SIZE],
                          const char *names, uint32_t names_size,
                          const uint8_t *data, uint64_t declared) {
  uint8_t digest[32];
  entry_digest(names, names_size, data, (size_t)declared, digest);
  return memcmp(digest, header + 24, sizeof digest) == 0 &&
         strlen(names) == names_size;
}

ck_status ck__cache_load_kind(ck__cache_kind kind, const uint8_t key[32],
                              void **payload, size_t *size, char **kernels) {
  ck_status status = CK_OK;
  char directory[CK__CACHE_PATH_CAPACITY];
  char name[CK__CACHE_NAME_CAPACITY];
  uint8_t header[CK__CACHE_HEADER_SIZE];
  uint8_t *data = NULL;
  char *names = NULL;
  int dir = -1, fd = -1, corrupt = 0;
  struct stat info;
  uint64_t declared = 0;
  uint32_t names_size = 0;
/* The entry is damaged (short, or its header, key or digest wrong). */
#define CORRUPT()                                                              \
  do {                                                                         \
    corrupt = 1;                                                               \
    goto fail;                                                                 \
  } while (0)

  if (!key || !payload || !size || (unsigned)kind >= ENTRY_KINDS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_load: key, payload, size and a kind are "
                    "required");
  *payload = NULL;
  *size = 0;
  if (kernels)
    *kernels = NULL;
  if ((dir = lookup_directory(directory, sizeof directory)) < 0)
    return CK_ERROR_NOT_FOUND;

  entry_name(kind, key, name);
  CK_TRY(open_entry(dir, directory, name, &fd, &info));
  CK_TRY(read_part(fd, header, sizeof header, directory, name, &corrupt));
  if (!header_fits(header, key, &info, &names_size, &declared))
    CORRUPT();

  names = malloc((size_t)names_size + 1);
  data = malloc(declared ? (size_t)declared : 1);
  if (!names || !data)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory reading kernel cache entry %s/%s (%llu bytes)",
            directory, name, (unsigned long long)(names_size + declared));
  CK_TRY(read_part(fd, names, names_size, directory, name, &corrupt));
  CK_TRY(read_part(fd, data, (size_t)declared, directory, name, &corrupt));
  names[names_size] = '\0';
  if (!contents_match(header, names, names_size, data, declared))
    CORRUPT();

  *payload = data;
  *size = (size_t)declared;
  data = NULL;
  if (kernels) {
    *kernels = names;
    names = NULL;
  }
fail:
  /* A damaged entry is deleted, and is a miss: it will be rebuilt. */
  if (corrupt) {
    discard_entry(dir, name, fd);
    status = CK_ERROR_NOT_FOUND;
  }
  free(data);
  free(names);
  if (fd >= 0)
    close(fd);
  if (dir >= 0)
    close(dir);
  return status;
}

#undef CORRUPT

ck_status ck__cache_load(const uint8_t key[32], void **payload, size_t *size,
                         char **kernels) {
  return ck__cache_load_kind(CK__CACHE_BINARY, key, payload, size, kernels);
}

/*
 * Deletes the temporaries of writers that died before their rename. Each
 * is checked by its age, not its key: a build whose writer was killed may
 * never be stored again. Failures are ignored; the store goes on.
 */
static void discard_stale_temporaries(int dir) {
  assert(dir >= 0);
  int copy = fcntl(dir, F_DUPFD_CLOEXEC, 0);
  DIR *directory = copy >= 0 ? fdopendir(copy) : NULL;
  struct dirent *item;
  time_t now = time(NULL);
  if (!directory) {
    if (copy >= 0)
      close(copy);
    return;
  }
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

/* Creates a new temporary file ".<hex of key>.tmp.<token>" in dir for
 * writing: its name in temp, its descriptor in *fd. */
static ck_status create_temporary(int dir, const char *directory,
                                  const uint8_t key[32],
                                  char temp[CK__CACHE_NAME_CAPACITY], int *fd) {
  char hex[2 * 32 + 1];
  ck__hex(key, 32, hex);
  *fd = -1;
  /* O_CLOEXEC at the open itself (mkstemp has no such flag, and a later
   * fcntl leaves a window): a child that another thread of the caller
   * starts meanwhile must not inherit the descriptor. */
  for (int attempt = 0; *fd < 0; ++attempt) {
    snprintf(temp, CK__CACHE_NAME_CAPACITY, ".%s%s%08x", hex, temp_infix,
             ck__temporary_token());
    *fd = openat(dir, temp,
                 O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (*fd < 0 && (errno != EEXIST || attempt == 99))
      return ck__fail(CK_ERROR_CACHE,
                      "cannot create temporary cache file %s/%s: %s", directory,
                      temp, strerror(errno));
  }
  return CK_OK;
}

/* Lays out the header of key's entry (see the top of this file). */
static void fill_header(uint8_t header[CK__CACHE_HEADER_SIZE],
                        const uint8_t key[32], const char *kernels,
                        size_t names_size, const void *payload, size_t size) {
  memcpy(header, cache_magic, sizeof cache_magic);
  ck__put_u32(header + 8, CK__CACHE_VERSION);
  ck__put_u32(header + 12, (uint32_t)names_size);
  ck__put_u64(header + 16, (uint64_t)size);
  entry_digest(kernels, names_size, payload, size, header + 24);
  memcpy(header + 56, key, 32);
}

ck_status ck__cache_store_kind(ck__cache_kind kind, const uint8_t key[32],
                               const char *kernels, const void *payload,
                               size_t size) {
  ck_status status = CK_OK;
  char directory[CK__CACHE_PATH_CAPACITY];
  char name[CK__CACHE_NAME_CAPACITY];
  char temp[CK__CACHE_NAME_CAPACITY];
  uint8_t header[CK__CACHE_HEADER_SIZE];
  size_t names_size = kernels ? strlen(kernels) : 0;
  int dir = -1, fd = -1;
  int have_temp = 0;
  int closed;

  if (!key || (!payload && size > 0) || (unsigned)kind >= ENTRY_KINDS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_store: key, payload and a kind are required");
  if (names_size > CK__CACHE_KERNELS_LIMIT)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__cache_store: %zu bytes of kernel names exceed %u",
                    names_size, (unsigned)CK__CACHE_KERNELS_LIMIT);
  if (ck__cache_setting() == CK__CACHE_OFF)
    return CK_OK;

  CK_TRY(locate(directory, sizeof directory, 1, &dir));
  discard_stale_temporaries(dir);
  CK_TRY(create_temporary(dir, directory, key, temp, &fd));
  have_temp = 1;

  fill_header(header, key, kernels, names_size, payload, size);
  if (ck__write_all(fd, header, sizeof header) != 0 ||
      ck__write_all(fd, kernels, names_size) != 0 ||
      ck__write_all(fd, payload, size) != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot write temporary cache file %s/%s: %s",
            directory, temp, strerror(errno));
  closed = close(fd);
  fd = -1;
  /* Some file systems report deferred write errors only at close. */
  if (closed != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot write temporary cache file %s/%s: %s",
            directory, temp, strerror(errno));
  /* rename replaces whatever has the name (a planted file, a link, a
   * FIFO) and never follows it. */
  entry_name(kind, key, name);
  if (renameat(dir, temp, dir, name) != 0)
    CK_FAIL(CK_ERROR_CACHE, "cannot rename %s/%s to %s: %s", directory, temp,
            name, strerror(errno));
  close(dir);
  return CK_OK;

fail:
  if (fd >= 0)
    close(fd);
  if (have_temp)
    unlinkat(dir, temp, 0);
  if (dir >= 0)
    close(dir);
  return status;
}

ck_status ck__cache_store(const uint8_t key[32], const char *kernels,
                          const void *payload, size_t size) {
  return ck__cache_store_kind(CK__CACHE_BINARY, key, kernels, payload, size);
}

ck_status ck__cache_remove(const uint8_t key[32]) {
  ck_status status = CK_OK;
  char directory[CK__CACHE_PATH_CAPACITY];
  char name[CK__CACHE_NAME_CAPACITY];
  int dir = -1;
  if (!key)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__cache_remove: key is NULL");
  /* Nothing is ever read from a cache that cannot be used. */
  if ((dir = lookup_directory(directory, sizeof directory)) < 0)
    return CK_OK;
  entry_name(CK__CACHE_BINARY, key, name);
  /* unlinkat removes a link itself, never what it points to. */
  if (unlinkat(dir, name, 0) != 0 && errno != ENOENT)
    status =
        ck__fail(CK_ERROR_CACHE, "cannot remove kernel cache entry %s/%s: %s",
                 directory, name, strerror(errno));
  close(dir);
  return status;
}

/* 1 when the ';'-separated list holds the name of length bytes. */
static int lists_name(const char *list, const char *name, size_t length) {
  assert(list && name);
  for (const char *at = list; *at;) {
    size_t span = strcspn(at, ";");
    if (span == length && memcmp(at, name, length) == 0)
      return 1;
    at += span + (at[span] == ';');
  }
  return 0;
}

int ck__cache_kernels_present(const char *wanted, const char *present) {
  assert(wanted && present);
  for (const char *at = wanted; *at;) {
    size_t span = strcspn(at, ";");
    if (span > 0 && !lists_name(present, at, span))
      return 0;
    at += span + (at[span] == ';');
  }
  return 1;
}

ck_status ck_cache_query(ck_cache_stats *stats) {
  ck_status status = CK_OK;
  DIR *directory = NULL;
  struct dirent *item;
  const char *variable = NULL;
  int dir = -1;

  if (!stats)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_cache_query: stats is NULL");
  memset(stats, 0, sizeof *stats);
  ck__cache_mode mode;
  int recognised = read_setting(&mode);
  stats->enabled = mode != CK__CACHE_OFF;
  stats->pocl_builds = mode == CK__CACHE_FORCED;
  /* A cache with no location, or no directory yet, holds nothing; that is
   * not an error here. One that is refused or cannot be read is, with the
   * stats filled in as far as they go. */
  location where =
      resolve_directory(stats->directory, sizeof stats->directory, &variable);
  if (where == RELATIVE) {
    status = unlocated(where, variable, sizeof stats->directory);
    goto fail;
  }
  if (where == LOCATED) {
    status = open_directory(stats->directory, 0, &dir);
    if (status == CK_ERROR_NOT_FOUND)
      status = CK_OK;
    if (status != CK_OK)
      goto fail;
  }
  if (dir >= 0) {
    if (!(directory = fdopendir(dir)))
      CK_FAIL(CK_ERROR_IO, "cannot read kernel cache directory %s: %s",
              stats->directory, strerror(errno));
    dir = -1; /* closed with directory */
  }
  while (directory && (errno = 0, item = readdir(directory)) != NULL) {
    struct stat info;
    int kind = is_entry_name(item->d_name);
    if (!kind)
      continue;
    /* An entry deleted since readdir saw it is simply not counted, nor is
     * anything but a regular file (links are not followed). */
    if (fstatat(dirfd(directory), item->d_name, &info, AT_SYMLINK_NOFOLLOW) !=
            0 ||
        !S_ISREG(info.st_mode))
      continue;
    stats->entries += 1;
    stats->peaks += kind - 1 == CK__CACHE_PEAKS;
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
  if (dir >= 0)
    close(dir);
  return status;
}

ck_status ck_cache_clear(size_t *removed) {
  ck_status status = CK_OK;
  char path[CK__CACHE_PATH_CAPACITY];
  const char *variable = NULL;
  DIR *directory = NULL;
  struct dirent *item;
  size_t count = 0;
  int dir = -1;

  if (removed)
    *removed = 0;
  location where = resolve_directory(path, sizeof path, &variable);
  if (where == NOWHERE)
    return CK_OK;
  if (where == RELATIVE)
    return unlocated(where, variable, sizeof path);
  /* A directory that is a link, or another user's, is not emptied. */
  status = open_directory(path, 0, &dir);
  if (status == CK_ERROR_NOT_FOUND)
    return CK_OK;
  if (status != CK_OK)
    return status;
  if (!(directory = fdopendir(dir))) {
    close(dir);
    return ck__fail(CK_ERROR_IO, "cannot read kernel cache directory %s: %s",
                    path, strerror(errno));
  }
  /* Keep going past a failed unlink so one bad file does not pin the rest.
   * unlinkat removes a link, not what it points to. */
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
  closedir(directory);
  if (removed)
    *removed = count;
  return status;
}
