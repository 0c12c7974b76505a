/*
 * files.c - output files written so that a reader never sees half of one:
 * temporaries, their renames and the output hold. Checks of names are
 * files_check.c's; inputs, files_read.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

unsigned ck__temporary_token(void) {
  static _Thread_local uint64_t counter;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t z = (uint64_t)getpid() ^ ((uint64_t)now.tv_nsec << 20) ^
               ((uint64_t)now.tv_sec << 40) ^ (uint64_t)(uintptr_t)&counter ^
               (++counter * UINT64_C(0x9e3779b97f4a7c15));
  return (unsigned)ck__mix64(z);
}

/* The descriptor an output's path names as "-" (standard output, as for
 * Unix tools), /dev/fd/N, /proc/self/fd/N, /dev/stdout or /dev/stderr,
 * open or not; else -1. Such a path is a link to whatever
 * the descriptor has open, which may be a regular file (a shell's
 * redirection): replacing that file by a rename would lose what the
 * process wrote there, and as the super-user the rename would replace the
 * link in /dev itself. So it is only ever written through the
 * descriptor. */
int ck__file_descriptor_named(const char *path) {
  static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
  long number = -1;
  if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
    number = 1;
  else if (strcmp(path, "/dev/stderr") == 0)
    number = 2;
  for (size_t i = 0; number < 0 && i < 2; ++i) {
    size_t length = strlen(prefixes[i]);
    if (strncmp(path, prefixes[i], length) != 0 || !path[length])
      continue;
    char *end = NULL;
    errno = 0;
    long value = strtol(path + length, &end, 10);
    if (!errno && *end == '\0' && value >= 0 && value <= 0x7fffffff &&
        path[length] >= '0' && path[length] <= '9')
      number = value;
  }
  return (int)number;
}

/* CK_OK when the descriptor is open for writing; else CK_ERROR_IO naming
 * path. */
static ck_status check_descriptor(const char *path, int descriptor) {
  int flags = fcntl(descriptor, F_GETFL);
  if (flags < 0)
    return ck__fail(CK_ERROR_IO, "cannot write %s: descriptor %d is not open",
                    path, descriptor);
  if ((flags & O_ACCMODE) == O_RDONLY)
    return ck__fail(CK_ERROR_IO,
                    "cannot write %s: descriptor %d is open for reading only",
                    path, descriptor);
  return CK_OK;
}

/* The stream a descriptor is, as messages name it. */
static void descriptor_words(int descriptor, char *words, size_t size) {
  if (descriptor == 1 || descriptor == 2)
    snprintf(words, size, "standard %s", descriptor == 1 ? "output" : "error");
  else
    snprintf(words, size, "descriptor %d", descriptor);
}

ck_status ck__file_check_binary(const char *path) {
  int descriptor = ck__file_descriptor_named(path);
  char words[32];
  if (descriptor < 0 || !isatty(descriptor))
    return CK_OK;
  descriptor_words(descriptor, words, sizeof words);
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s (%s) is a terminal, and this output is binary: "
                  "redirect it to a file or a program, or name a file",
                  path, words);
}

ck_status ck__file_descriptors_apart(const char *first_option,
                                     const char *first,
                                     const char *second_option,
                                     const char *second) {
  int descriptor = ck__file_descriptor_named(first);
  char words[32];
  if (descriptor < 0 || descriptor != ck__file_descriptor_named(second))
    return CK_OK;
  descriptor_words(descriptor, words, sizeof words);
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "--%s and --%s both write to %s, where they would run "
                  "together; give each output its own file",
                  first_option, second_option, words);
}

ck_status ck_file_check_stdout(const char *path, int *is_stdout) {
  CK__REQUIRE(path);
  CK__REQUIRE(is_stdout);
  *is_stdout = ck__file_descriptor_named(path) == STDOUT_FILENO;
  return CK_OK;
}

char *ck__file_output_target(const char *path) {
  struct stat link, target;
  char *current = strdup(path);
  /* Links of links, as far as the system follows them. */
  for (int depth = 0; current && depth < 40; ++depth) {
    if (lstat(current, &link) != 0 || !S_ISLNK(link.st_mode))
      break;
    if (stat(current, &target) == 0) {
      char *resolved = S_ISREG(target.st_mode) ? realpath(current, NULL) : NULL;
      if (resolved) {
        free(current);
        return resolved;
      }
      break;
    }
    /* A dangling link: its text, read beside the link when relative. */
    char text[4096];
    ssize_t length = readlink(current, text, sizeof text - 1);
    if (length <= 0)
      break;
    text[length] = '\0';
    const char *slash = strrchr(current, '/');
    size_t directory =
        text[0] == '/' || !slash ? 0 : (size_t)(slash - current) + 1;
    char *next = malloc(directory + (size_t)length + 1);
    if (next) {
      memcpy(next, current, directory);
      memcpy(next + directory, text, (size_t)length + 1);
    }
    free(current);
    current = next;
  }
  return current;
}

/* The temporaries being written now, for ck_file_remove_temporaries(): a
 * slot holds a temporary's name from its creation until its commit or
 * abandonment. Lock-free atomics, so that a signal handler may take the
 * names. A name the handler has taken is never freed (the process is
 * ending), so that a thread in the middle of a commit cannot free it
 * under the handler's unlink. */
enum { TEMPORARY_SLOTS = 64 };
static _Atomic(char *) temporaries[TEMPORARY_SLOTS];

/* Registers a temporary's name; with every slot taken it goes unlisted. */
static void temporary_listed(char *name) {
  for (size_t i = 0; i < TEMPORARY_SLOTS; ++i) {
    char *empty = NULL;
    if (atomic_compare_exchange_strong(&temporaries[i], &empty, name))
      return;
  }
}

/* Takes a temporary's name off the list; 0 when it is not there, because
 * ck_file_remove_temporaries() took it (then it is never freed) or because
 * no slot was free (then its few bytes are never freed: 64 outputs being
 * written at once is far beyond any run). */
static int temporary_unlisted(char *name) {
  for (size_t i = 0; i < TEMPORARY_SLOTS; ++i) {
    char *expected = name;
    if (atomic_compare_exchange_strong(&temporaries[i], &expected, NULL))
      return 1;
  }
  return 0;
}

ck_status ck_file_remove_temporaries(void) {
  for (size_t i = 0; i < TEMPORARY_SLOTS; ++i) {
    char *name = atomic_exchange(&temporaries[i], NULL);
    if (name)
      unlink(name);
  }
  return CK_OK;
}

/* Opens path itself for writing in place: *temp becomes a copy of path,
 * which tells commit and abandon that there is nothing to rename or
 * remove. */
static ck_status open_in_place(const char *path, int descriptor, char **temp,
                               int *fd) {
  ck_status status = CK_OK;
  int opened = descriptor >= 0 ? fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
                               : open(path, O_WRONLY | O_CLOEXEC);
  if (opened < 0)
    CK_FAIL(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  *temp = strdup(path);
  if (!*temp)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  *fd = opened;
  return CK_OK;
fail:
  if (opened >= 0)
    close(opened);
  return status;
}

/* A temporary's name: ".NAME" TEMPORARY_INFIX and a token of
 * TOKEN_DIGITS lowercase hexadecimal digits. */
#define TEMPORARY_INFIX ".tmp."
enum { TOKEN_DIGITS = 8 };

/* How much of name goes into its temporary ".NAME.tmp.TOKEN", which adds
 * 14 bytes: all of it when the temporary still fits NAME_MAX, else as
 * much as fits without splitting a UTF-8 sequence, so that a listing
 * still shows a whole character where the name was cut. */
static size_t temporary_name_length(const char *name) {
  enum { ADDED = 1 + (sizeof TEMPORARY_INFIX - 1) + TOKEN_DIGITS };
  return ck__text_utf8_cut(name, NAME_MAX - ADDED);
}

/* A writer holds an exclusive flock() on its temporary from its creation
 * until its rename or removal; a process that ends, even by SIGKILL,
 * loses its locks, so a temporary whose lock is free has no writer.
 * Blocking: a cleanup holds the lock only a moment. On a file system
 * without locks the temporary stays unlocked, and a cleanup there cannot
 * lock it either. */
static void lock_temporary(int fd) {
  while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
}

/* 1 when entry has the exact shape of a temporary of the output whose
 * temporaries keep the first kept bytes of name. */
static int is_temporary_of(const char *entry, const char *name, size_t kept) {
  size_t infix = sizeof TEMPORARY_INFIX - 1;
  if (strlen(entry) != 1 + kept + infix + TOKEN_DIGITS || entry[0] != '.' ||
      memcmp(entry + 1, name, kept) != 0 ||
      memcmp(entry + 1 + kept, TEMPORARY_INFIX, infix) != 0)
    return 0;
  for (const char *digit = entry + 1 + kept + infix; *digit; ++digit)
    if (!(*digit >= '0' && *digit <= '9') && !(*digit >= 'a' && *digit <= 'f'))
      return 0;
  return 1;
}

/* A temporary still empty may be one just created, whose writer has not
 * yet taken its lock: it is left until it is this old. */
enum { EMPTY_TEMPORARY_STALE_SECONDS = 60 * 60 };

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Removes the temporaries of an output that writers killed before their
 * rename left behind: in target's directory (its first `directory`
 * bytes), each regular file of this user's named as a temporary of the
 * output, whose lock is free. Links are not followed; failures leave the
 * file, and the write goes on. No allocation of the library's own. */
static void remove_stale_temporaries(char *target, size_t directory,
                                     size_t kept) {
  /* The directory's name ends at its last slash; cut there for the open. */
  char first = target[directory];
  target[directory] = '\0';
  int dir = open(directory ? target : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  target[directory] = first;
  DIR *listing = dir >= 0 ? fdopendir(dir) : NULL;
  if (!listing) {
    if (dir >= 0)
      close(dir);
    return;
  }
  const char *name = target + directory;
  uid_t user = geteuid();
  time_t now = time(NULL);
  struct dirent *item;
  while ((item = readdir(listing)) != NULL) {
    struct stat named, opened;
    if (!is_temporary_of(item->d_name, name, kept) ||
        fstatat(dir, item->d_name, &named, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(named.st_mode) || named.st_uid != user)
      continue;
    /* Read and write: flock() on NFS locks only a file open for writing. */
    int fd = openat(dir, item->d_name,
                    O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
      continue;
    /* Removed by name only while that name is still the file locked. */
    if (fstat(fd, &opened) == 0 && same_file(&opened, &named) &&
        (opened.st_size > 0 ||
         now - opened.st_mtime >= EMPTY_TEMPORARY_STALE_SECONDS) &&
        flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        fstatat(dir, item->d_name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        same_file(&opened, &named))
      unlinkat(dir, item->d_name, 0);
    close(fd);
  }
  closedir(listing);
}

/* What a path to write names, checked: no directory, nor a loop of
 * links, nor a file this user may not write. *exists says whether it
 * names something, in *existing; a device or a pipe passes unchecked. */
static ck_status check_replaced(const char *path, struct stat *existing,
                                int *exists) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s names a directory, not a file", path);
  *exists = stat(path, existing) == 0;
  /* Links in a loop lead to no file: replacing the link would break it. */
  if (!*exists && errno == ELOOP)
    return ck__fail(CK_ERROR_IO, "cannot write %s: %s", path, strerror(ELOOP));
  if (*exists && S_ISDIR(existing->st_mode))
    return ck__fail(CK_ERROR_IO, "cannot write %s: it is a directory", path);
  if (*exists && !S_ISREG(existing->st_mode))
    return CK_OK;
  /* A file replaced is one this user may write, as with the shell's `>`:
   * the directory's permission alone would let a rename replace a
   * read-only file, or another user's. */
  if (*exists && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
    return ck__fail(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  return CK_OK;
}

/* Creates a temporary of name (its first kept bytes) for path, at one
 * fresh token after another: *candidate holds size bytes, the
 * directory's first. The file is listed (*listed) and locked, open in
 * *opened. *candidate becomes NULL where ck_file_remove_temporaries()
 * took its name, which must then stay. */
static ck_status create_temporary(const char *path, const char *name,
                                  size_t kept, size_t directory, size_t size,
                                  char **candidate, int *opened, int *listed) {
  ck_status status = CK_OK;
  for (int attempt = 0; attempt < 100 && *opened < 0; ++attempt) {
    snprintf(*candidate + directory, size - directory,
             ".%.*s" TEMPORARY_INFIX "%0*x", (int)kept, name, TOKEN_DIGITS,
             ck__temporary_token());
    /* Listed before it exists, so that no moment passes in which a signal
     * could end the process and leave the file behind. */
    temporary_listed(*candidate);
    *listed = 1;
    *opened = open(*candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (*opened >= 0) {
      lock_temporary(*opened);
      break;
    }
    int error = errno;
    *listed = 0;
    if (!temporary_unlisted(*candidate)) {
      *candidate = NULL; /* taken by ck_file_remove_temporaries: kept */
      CK_FAIL(CK_ERROR_CANCELLED,
              "cannot write %s: its temporaries were "
              "removed while it was being opened",
              path);
    }
    if (error != EEXIST)
      CK_FAIL(CK_ERROR_IO,
              "cannot write %s: cannot create the temporary file %s: %s", path,
              *candidate, strerror(error));
  }
  if (*opened < 0)
    CK_FAIL(CK_ERROR_IO,
            "cannot write %s: no free temporary file name beside it", path);
fail:
  return status;
}

/* The file replaced keeps its permissions (a private file stays
 * private), and its owner and group where this process may give
 * them; otherwise it becomes this user's, as a copy would. */
static ck_status keep_owner_and_mode(int fd, const struct stat *existing,
                                     const char *path, const char *temp) {
  if (fchown(fd, existing->st_uid, existing->st_gid) != 0 &&
      fchown(fd, (uid_t)-1, existing->st_gid) != 0) {
    /* Neither is ours to give: the new file is this user's. */
  }
  if (fchmod(fd, existing->st_mode & 0777) != 0)
    return ck__fail(CK_ERROR_IO,
                    "cannot write %s: cannot set the mode of %s: %s", path,
                    temp, strerror(errno));
  return CK_OK;
}

ck_status ck__file_open_temporary(const char *path, char **temp, int *fd) {
  ck_status status = CK_OK;
  char *target = NULL, *candidate = NULL;
  int opened = -1, listed = 0, exists = 0;
  struct stat existing;
  *temp = NULL;
  *fd = -1;
  int descriptor = ck__file_descriptor_named(path);
  if (descriptor >= 0) {
    if ((status = check_descriptor(path, descriptor)))
      return status;
    return open_in_place(path, descriptor, temp, fd);
  }
  if ((status = check_replaced(path, &existing, &exists)))
    return status;
  /* A device or a pipe (/dev/null, a FIFO) is written in place: a rename
   * would replace the node itself. */
  if (exists && !S_ISREG(existing.st_mode))
    return open_in_place(path, -1, temp, fd);
  /* The temporary goes beside the file renamed over, which for a link is
   * the file it leads to: a rename cannot cross file systems. */
  if (!(target = ck__file_output_target(path)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  const char *slash = strrchr(target, '/');
  size_t directory = slash ? (size_t)(slash - target) + 1 : 0;
  const char *name = target + directory;
  /* Checked here, since a name that could never be renamed to would
   * otherwise pass ck_file_check_writable with a shortened temporary. */
  if (strlen(name) > NAME_MAX)
    CK_FAIL(CK_ERROR_IO, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
  size_t kept = temporary_name_length(name);
  remove_stale_temporaries(target, directory, kept);
  size_t size = strlen(target) + 32;
  if (!(candidate = malloc(size)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory: %zu bytes for a file name",
            size);
  memcpy(candidate, target, directory);
  CK_TRY(create_temporary(path, name, kept, directory, size, &candidate,
                          &opened, &listed));
  if (exists)
    CK_TRY(keep_owner_and_mode(opened, &existing, path, candidate));
  *temp = candidate;
  *fd = opened;
  candidate = NULL;
  opened = -1;
fail:
  /* Also the way out on success, where the caller has taken the file. */
  if (listed && candidate && !temporary_unlisted(candidate))
    candidate = NULL; /* removed already, and the name must stay */
  if (opened >= 0) {
    if (candidate)
      unlink(candidate);
    close(opened);
  }
  free(candidate);
  free(target);
  return status;
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

/* The outputs a hold keeps back: written, synced and closed temporaries
 * (still listed for removal on a signal) with the files they replace, in
 * the order they were committed, and a descriptor of each that keeps its
 * lock (-1 if none). Per thread, as a run is. Holds nest (a run inside a
 * callback of another): each output carries the level that held it, so
 * that a level's outputs are the tail of the list when it ends. depth
 * counts the levels begun; holding is the level commits go to (0 while
 * paused or outside every hold). */
typedef struct held_output {
  char *temp, *target;
  int keeper, level;
} held_output;
static _Thread_local held_output *held;
static _Thread_local size_t held_count, held_capacity;
static _Thread_local int depth, holding;

int ck__file_hold_begin(void) {
  holding = ++depth;
  return depth;
}

int ck__file_hold_pause(void) {
  int was = holding;
  holding = 0;
  return was;
}

void ck__file_hold_resume(int paused) {
  holding = paused;
}

ck_status ck__file_hold_end(int level, int commit) {
  ck_status status = CK_OK;
  if (level <= 0 || level > depth)
    return CK_OK;
  /* This level's outputs, and any of a deeper one left unended. */
  size_t first = held_count;
  while (first > 0 && held[first - 1].level >= level)
    --first;
  for (size_t i = first; i < held_count; ++i) {
    held_output *output = &held[i];
    /* After one rename fails, it and the rest are removed, not renamed. */
    int wanted = commit && status == CK_OK;
    if (!wanted || rename(output->temp, output->target) != 0) {
      if (wanted)
        status = ck__fail(CK_ERROR_IO, "cannot rename %s to %s: %s",
                          output->temp, output->target, strerror(errno));
      unlink(output->temp);
    }
    if (output->keeper >= 0)
      close(output->keeper);
    if (temporary_unlisted(output->temp))
      free(output->temp);
    free(output->target);
  }
  held_count = first;
  depth = level - 1;
  holding = depth;
  if (held_count == 0) {
    free(held);
    held = NULL;
    held_capacity = 0;
  }
  return status;
}

/* Keeps a finished temporary back until the hold ends; takes temp,
 * target and keeper. */
static ck_status hold_output(char *temp, char *target, int keeper,
                             const char *path) {
  if (held_count == held_capacity) {
    size_t capacity = held_capacity ? 2 * held_capacity : 8;
    held_output *grown = realloc(held, capacity * sizeof *grown);
    if (!grown) {
      unlink(temp);
      if (keeper >= 0)
        close(keeper);
      if (temporary_unlisted(temp))
        free(temp);
      free(target);
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "cannot write %s: out of memory",
                      path);
    }
    held = grown;
    held_capacity = capacity;
  }
  held[held_count++] = (held_output){temp, target, keeper, holding};
  return CK_OK;
}

ck_status ck__file_commit(int fd, char *temp, const char *path) {
  ck_status status = CK_OK;
  int in_place = strcmp(temp, path) == 0;
  /* On disk before the rename, so a crash cannot leave an empty file. */
  if (fsync(fd) != 0 && errno != EINVAL)
    status =
        ck__fail(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  /* A copy keeps the temporary's lock past the close, which is where some
   * file systems report a failed write, until the rename or removal. */
  int keeper = in_place ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (close(fd) != 0 && status == CK_OK)
    status =
        ck__fail(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  char *target = NULL;
  if (status == CK_OK && !in_place && !(target = ck__file_output_target(path)))
    status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  if (status == CK_OK && !in_place && holding)
    return hold_output(temp, target, keeper, path);
  if (status == CK_OK && !in_place && rename(temp, target) != 0)
    status = ck__fail(CK_ERROR_IO, "cannot rename %s to %s: %s", temp, target,
                      strerror(errno));
  if (status != CK_OK && !in_place)
    unlink(temp);
  if (keeper >= 0)
    close(keeper);
  free(target);
  if (in_place || temporary_unlisted(temp))
    free(temp);
  return status;
}

void ck__file_abandon(int fd, char *temp, const char *path) {
  int in_place = temp && strcmp(temp, path) == 0;
  /* Removed before the close lets its lock go. */
  if (temp && !in_place)
    unlink(temp);
  if (fd >= 0)
    close(fd);
  if (temp && (in_place || temporary_unlisted(temp)))
    free(temp);
}

ck_status ck__file_write_atomic(const char *path, const void *data,
                                size_t size) {
  ck_status status = CK_OK;
  char *temp = NULL;
  int fd = -1;
  if (!path || !*path || (size && !data))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "no output file name given");
  CK_TRY(ck__file_open_temporary(path, &temp, &fd));
  if (ck__write_all(fd, data, size) != 0)
    CK_FAIL(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  /* The commit takes the file, renamed or removed. */
  return ck__file_commit(fd, temp, path);
fail:
  ck__file_abandon(fd, temp, path);
  return status;
}

ck_status ck_file_write(const char *path, const void *data, size_t size) {
  return ck__file_write_atomic(path, data, size);
}

ck_status ck_file_check_writable(const char *path) {
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "no output file name given");
  int descriptor = ck__file_descriptor_named(path);
  if (descriptor >= 0)
    return check_descriptor(path, descriptor);
  /* What exists and is not a regular file is written in place; opening a
   * FIFO now would wait for its reader, and close it for the reader. */
  struct stat existing;
  if (stat(path, &existing) == 0 && !S_ISREG(existing.st_mode) &&
      !S_ISDIR(existing.st_mode))
    return CK_OK;
  char *temp = NULL;
  int fd = -1;
  ck_status status = ck__file_open_temporary(path, &temp, &fd);
  if (status)
    return status;
  /* In a sticky directory (/tmp) a rename may not replace another user's
   * file, though the temporary could be made beside it. */
  struct stat directory;
  uid_t user = geteuid();
  char *target = ck__file_output_target(path);
  /* Without the target the check cannot be made, which is no pass. */
  if (!target)
    status =
        ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory checking %s", path);
  int foreign = target && user != 0 && stat(target, &existing) == 0 &&
                existing.st_uid != user;
  char *slash = foreign ? strrchr(target, '/') : NULL;
  if (slash)
    slash[slash == target ? 1 : 0] = '\0';
  if (foreign && stat(slash ? target : ".", &directory) == 0 &&
      (directory.st_mode & S_ISVTX) && directory.st_uid != user)
    status = ck__fail(CK_ERROR_IO,
                      "cannot write %s: it belongs to another user, in a "
                      "directory where only its owner may replace it",
                      path);
  free(target);
  ck__file_abandon(fd, temp, path);
  return status;
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
