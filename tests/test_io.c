/*
 * test_io - an output that cannot be finished loses nothing: when writing
 * its data, syncing it to disk or renaming it over the old file fails
 * (a full disk, an I/O error), the saver returns CK_ERROR_IO naming the
 * output (not only its temporary), the file that was there keeps its old
 * contents, and no temporary is left beside it. The same save then succeeds
 * once the failure is gone, so that the checks cannot pass by a saver that
 * writes nothing.
 *
 * The test is linked with -Wl,--wrap for write, fsync and rename, so the
 * library's own calls (it is linked statically) go through the wrappers
 * below, which fail the armed one. The savers cover the three ways clkit
 * writes: a TSPLIB tour and an lsq data set stream into a temporary and
 * commit it; coefficients are written whole (the path of every other
 * output: reports, traces, checkpoints, models).
 */
#include "check.h"
#include "test_support.h"

#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the wrappers ---------------------------------------------------------
 */

ssize_t __real_write(int fd, const void *buffer, size_t size);
int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
ssize_t __wrap_write(int fd, const void *buffer, size_t size);
int __wrap_fsync(int fd);
int __wrap_rename(const char *from, const char *to);

typedef enum { FAIL_NONE, FAIL_WRITE, FAIL_FSYNC, FAIL_RENAME } failure;
static const char *const failure_names[] = {"none", "write", "fsync", "rename"};

static struct {
  failure armed;
  int met; /* calls failed since armed */
} injector;

static int inject(failure point, int error) {
  if (injector.armed != point)
    return 0;
  ++injector.met;
  errno = error;
  return 1;
}

ssize_t __wrap_write(int fd, const void *buffer, size_t size) {
  return inject(FAIL_WRITE, ENOSPC) ? -1 : __real_write(fd, buffer, size);
}

int __wrap_fsync(int fd) {
  return inject(FAIL_FSYNC, EIO) ? -1 : __real_fsync(fd);
}

/* The temporary of the last rename, for the checks of its name. */
static char renamed_from[8192];

int __wrap_rename(const char *from, const char *to) {
  snprintf(renamed_from, sizeof renamed_from, "%s", from);
  return inject(FAIL_RENAME, EXDEV) ? -1 : __real_rename(from, to);
}

/* ---- the savers -----------------------------------------------------------
 */

static ck_lsq_data lsq_data;
static double coefficients[3];
static const uint32_t tour[5] = {0, 3, 1, 4, 2};

static ck_status save_tour(const char *path) {
  return ck_tsp_tour_save(path, "five", tour, 5, 123);
}

static ck_status save_lsq_csv(const char *path) {
  return ck_lsq_save(path, &lsq_data, CK_LSQ_CSV);
}

static ck_status save_lsq_binary(const char *path) {
  return ck_lsq_save(path, &lsq_data, CK_LSQ_BINARY);
}

static ck_status save_coefficients(const char *path) {
  return ck_lsq_save_coefficients(path, coefficients, 3);
}

typedef struct {
  const char *name;
  const char *file;
  ck_status (*save)(const char *path);
} saver;

static const saver savers[] = {
    {"ck_tsp_tour_save", "best.tour", save_tour},
    {"ck_lsq_save csv", "rows.csv", save_lsq_csv},
    {"ck_lsq_save binary", "rows.lsq", save_lsq_binary},
    {"ck_lsq_save_coefficients", "fit.txt", save_coefficients},
};

/* Entries of directory other than name itself (temporaries left over). */
static int others_in(const char *directory, const char *name) {
  DIR *dir = opendir(directory);
  int count = 0;
  struct dirent *entry;
  if (!dir)
    return -1;
  while ((entry = readdir(dir)) != NULL)
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0 &&
        strcmp(entry->d_name, name) != 0)
      ++count;
  closedir(dir);
  return count;
}

static const char old_contents[] = "the previous output, to be kept\n";

static void check_saver(const char *directory, const saver *output,
                        failure point) {
  char path[4096];
  test_write_text(directory, output->file, old_contents, path, sizeof path);
  const char *label = failure_names[point];

  injector.armed = point;
  injector.met = 0;
  ck_status status = output->save(path);
  injector.armed = FAIL_NONE;
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(injector.met > 0, "%s: no %s call was made to fail", output->name,
            label);
  CHECK_MSG(status == CK_ERROR_IO, "%s, %s failing: status %d (%s)",
            output->name, label, (int)status, message);
  CHECK_MSG(strstr(message, path) != NULL,
            "%s, %s failing: the message does not name %s: %s", output->name,
            label, path, message);
  char *kept = test_read_file(path, NULL);
  CHECK_MSG(kept && strcmp(kept, old_contents) == 0,
            "%s, %s failing: the old file was not kept", output->name, label);
  free(kept);
  CHECK_MSG(others_in(directory, output->file) == 0,
            "%s, %s failing: a temporary was left in %s", output->name, label,
            directory);

  /* Without the failure the same save replaces the file. */
  CHECK_OK(output->save(path));
  char *saved = test_read_file(path, NULL);
  CHECK_MSG(saved && strcmp(saved, old_contents) != 0,
            "%s after %s: the file was not replaced", output->name, label);
  free(saved);
  CHECK(others_in(directory, output->file) == 0);
  unlink(path);
}

/*
 * Names of 242 to 255 bytes fit NAME_MAX but their temporaries, 14 bytes
 * longer, would not: the temporary keeps only the part of the name that
 * fits, beside the output, without splitting a UTF-8 character. Each
 * saver writes a 250-byte name of one-byte characters and one of
 * two-byte characters, whose cut would fall inside one.
 */
static void check_long_names(const char *directory) {
  char names[2][256];
  memset(names[0], 'n', 250);
  names[0][250] = '\0';
  for (size_t i = 0; i < 250; i += 2)
    memcpy(names[1] + i, "\xc3\xa9", 2); /* U+00E9 */
  names[1][250] = '\0';
  for (size_t n = 0; n < 2; ++n) {
    const char *name = names[n];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    CHECK_MSG(ck_file_check_writable(path) == CK_OK,
              "a %zu-byte name is not writable", strlen(name));
    for (size_t i = 0; i < sizeof savers / sizeof savers[0]; ++i) {
      renamed_from[0] = '\0';
      ck_status status = savers[i].save(path);
      const char *message = "";
      ck_error_get_last(&message);
      CHECK_MSG(status == CK_OK, "%s of a %zu-byte name: %s", savers[i].name,
                strlen(name), message);
      struct stat info;
      CHECK_MSG(stat(path, &info) == 0 && S_ISREG(info.st_mode) &&
                    info.st_size > 0,
                "%s: the %zu-byte name was not written", savers[i].name,
                strlen(name));
      CHECK_MSG(others_in(directory, name) == 0,
                "%s: a temporary was left beside the %zu-byte name",
                savers[i].name, strlen(name));
      const char *slash = strrchr(renamed_from, '/');
      const char *temporary = slash ? slash + 1 : renamed_from;
      size_t directory_length = (size_t)(temporary - renamed_from);
      size_t length = strlen(temporary);
      const char *infix = strstr(temporary, ".tmp.");
      CHECK_MSG(directory_length == strlen(directory) + 1 &&
                    strncmp(renamed_from, directory, directory_length - 1) == 0,
                "%s: temporary %s is not beside %s", savers[i].name,
                renamed_from, path);
      CHECK_MSG(length > 0 && length <= 255 && temporary[0] == '.' && infix &&
                    strlen(infix) == 13,
                "%s: temporary %s (%zu bytes) has not the shape "
                ".NAME.tmp.TOKEN within 255 bytes",
                savers[i].name, temporary, length);
      if (infix) {
        size_t kept = (size_t)(infix - temporary) - 1;
        CHECK_MSG(kept >= 200 && strncmp(temporary + 1, name, kept) == 0 &&
                      ((unsigned char)name[kept] & 0xC0) != 0x80,
                  "%s: temporary %s does not begin with a whole-character "
                  "part of %s",
                  savers[i].name, temporary, name);
      }
      unlink(path);
    }
  }

  /* A name past NAME_MAX cannot be written, and is refused before any
   * temporary is made. */
  char path[4096];
  int used = snprintf(path, sizeof path, "%s/", directory);
  memset(path + used, 'n', 256);
  path[used + 256] = '\0';
  CHECK(ck_file_check_writable(path) == CK_ERROR_IO);
  CHECK(save_coefficients(path) == CK_ERROR_IO);
  CHECK(others_in(directory, "") == 0);
}

/* ---- temporaries left by a killed writer --------------------------------
 */

/* 1 when directory/name exists, a link or not. */
static int entry_exists(const char *directory, const char *name) {
  char path[4096];
  struct stat info;
  test_path_in(directory, name, path, sizeof path);
  return lstat(path, &info) == 0;
}

/* A writer killed before its rename leaves its temporary, which the next
 * write of that output removes: a regular file of this user's named
 * exactly as the output's temporaries are, whose lock is free (an empty
 * one only once an hour old). Nothing else beside it is touched. */
static void check_stale_temporaries(const char *directory) {
  char stale[1100], path[4096], entry[4096], victim[4096];
  snprintf(stale, sizeof stale, "%s/stale", directory);
  CHECK(mkdir(stale, 0700) == 0);
  test_path_in(stale, "out.txt", path, sizeof path);
  static const char *const removed[] = {
      ".out.txt.tmp.0123abcd", /* half an output */
      ".out.txt.tmp.00000000", /* empty, made an hour ago */
  };
  static const char *const kept[] = {
      ".out.txt.tmp.00000001",  /* empty and new: maybe not locked yet */
      ".out.txt.tmp.0123abc",   /* a token too short */
      ".out.txt.tmp.0123abcde", /* too long */
      ".out.txt.tmp.0123ABCD",  /* not as clkit spells tokens */
      ".out.txt.tmp.0123abcg",  /* not hexadecimal */
      ".out.txt.tmp-0123abcd",  /* not the infix */
      ".other.tmp.0123abcd",    /* another output's */
      ".out.txtx.tmp.0123abcd", /* another output's */
      "out.txt.tmp.0123abcd",   /* no leading dot */
      ".out.txt.tmp.89abcdef",  /* a link, made below */
      ".out.txt.tmp.fedcba98",  /* a directory, made below */
      ".out.txt.tmp.76543210",  /* another user's, made below */
  };
  size_t removed_count = sizeof removed / sizeof removed[0];
  size_t kept_count = sizeof kept / sizeof kept[0];
  test_write_text(stale, removed[0], "half of an output", entry, sizeof entry);
  test_write_text(stale, removed[1], "", entry, sizeof entry);
  struct timespec old[2] = {{time(NULL) - 2 * 60 * 60, 0},
                            {time(NULL) - 2 * 60 * 60, 0}};
  CHECK(utimensat(AT_FDCWD, entry, old, 0) == 0);
  for (size_t i = 0; i < kept_count - 3; ++i)
    test_write_text(stale, kept[i], i ? "not a temporary of out.txt" : "",
                    entry, sizeof entry);
  test_write_text(stale, "victim", "a file a link leads to", victim,
                  sizeof victim);
  test_path_in(stale, kept[kept_count - 3], entry, sizeof entry);
  CHECK(symlink(victim, entry) == 0);
  test_path_in(stale, kept[kept_count - 2], entry, sizeof entry);
  CHECK(mkdir(entry, 0700) == 0);
  test_write_text(stale, kept[kept_count - 1], "another user's", entry,
                  sizeof entry);
  int foreign = geteuid() == 0 && chown(entry, 65534, 65534) == 0;
  if (!foreign) {
    printf("skipped: another user's temporary (needs the super-user)\n");
    unlink(entry);
    --kept_count;
  }

  CHECK_OK(ck__file_write_atomic(path, "new\n", 4));
  for (size_t i = 0; i < removed_count; ++i)
    CHECK_MSG(!entry_exists(stale, removed[i]), "stale %s was not removed",
              removed[i]);
  for (size_t i = 0; i < kept_count; ++i)
    CHECK_MSG(entry_exists(stale, kept[i]), "%s was removed", kept[i]);
  CHECK(entry_exists(stale, "victim"));
  CHECK(others_in(stale, "out.txt") == (int)kept_count + 1);

  /* A long name's temporaries keep only a part of it: those of exactly
   * that part are its own; one of a shorter part is another output's. */
  char name[256], own[256], shorter[256];
  memset(name, 'n', 250);
  name[250] = '\0';
  snprintf(own, sizeof own, ".%.241s.tmp.0123abcd", name);
  snprintf(shorter, sizeof shorter, ".%.240s.tmp.0123abcd", name);
  test_write_text(stale, own, "half", entry, sizeof entry);
  test_write_text(stale, shorter, "another output's", entry, sizeof entry);
  test_path_in(stale, name, path, sizeof path);
  CHECK_OK(ck__file_write_atomic(path, "new\n", 4));
  CHECK_MSG(!entry_exists(stale, own), "a long name's stale temporary stays");
  CHECK_MSG(entry_exists(stale, shorter), "another output's was removed");
  remove_tree(stale);
}

/* Two writers of one output both complete, the later rename winning:
 * neither takes the other's temporary for a stale one, in another process
 * or in a hold of this one, which keeps its temporaries until it ends. */
static void check_live_temporaries(const char *directory) {
  char live[1100], path[4096];
  snprintf(live, sizeof live, "%s/live", directory);
  CHECK(mkdir(live, 0700) == 0);
  test_path_in(live, "out.txt", path, sizeof path);
  int ready[2], go[2];
  CHECK(pipe(ready) == 0 && pipe(go) == 0);
  pid_t child = fork();
  if (child == 0) {
    char *temp = NULL;
    int fd = -1;
    char byte = 0;
    close(ready[0]);
    close(go[1]);
    if (ck__file_open_temporary(path, &temp, &fd) != CK_OK ||
        ck__write_all(fd, "the child's\n", 12) != 0)
      _exit(2);
    /* Told when the parent has written; then commits. */
    if (__real_write(ready[1], "r", 1) != 1 || read(go[0], &byte, 1) != 0)
      _exit(3);
    _exit(ck__file_commit(fd, temp, path) == CK_OK ? 0 : 1);
  }
  close(ready[1]);
  close(go[0]);
  char byte = 0;
  CHECK(child > 0 && read(ready[0], &byte, 1) == 1);
  CHECK_OK(ck__file_write_atomic(path, "the parent's\n", 13));
  CHECK_MSG(others_in(live, "out.txt") == 1,
            "the child's temporary is gone (%d entries beside the output)",
            others_in(live, "out.txt"));
  close(go[1]);
  int status = -1;
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "the child's write failed: status %d", status);
  close(ready[0]);
  char *text = test_read_file(path, NULL);
  CHECK(text && strcmp(text, "the child's\n") == 0);
  free(text);
  CHECK(others_in(live, "out.txt") == 0);

  int begun = ck__file_hold_begin();
  CHECK(begun);
  CHECK_OK(ck__file_write_atomic(path, "first\n", 6));
  CHECK_OK(ck__file_write_atomic(path, "second\n", 7));
  CHECK(others_in(live, "out.txt") == 2);
  CHECK_OK(ck__file_hold_end(begun, 1));
  text = test_read_file(path, NULL);
  CHECK(text && strcmp(text, "second\n") == 0);
  free(text);
  CHECK(others_in(live, "out.txt") == 0);
  remove_tree(live);
}

/* Entries of directory, "." and ".." left out. */
static int entries_in(const char *directory) {
  return others_in(directory, ".");
}

/* Whether the file name in directory holds text. */
static int holds_text(const char *directory, const char *name,
                      const char *text) {
  char path[4096];
  test_path_in(directory, name, path, sizeof path);
  char *read = test_read_file(path, NULL);
  int same = read && strcmp(read, text) == 0;
  free(read);
  return same;
}

static ck_status write_in(const char *directory, const char *name,
                          const char *text) {
  char path[4096];
  test_path_in(directory, name, path, sizeof path);
  return ck__file_write_atomic(path, text, strlen(text));
}

/* Holds nest, as a run inside another run's callback does: the inner
 * level's outputs are renamed at its end, the outer's at the outer end;
 * an inner level that fails (or whose rename fails) removes only its own,
 * and a pause renames at once. */
static void check_nested_holds(const char *directory) {
  char nested[1100];
  snprintf(nested, sizeof nested, "%s/nested", directory);
  CHECK(mkdir(nested, 0700) == 0);
  int outer = ck__file_hold_begin();
  CHECK_OK(write_in(nested, "outer.txt", "outer\n"));
  int inner = ck__file_hold_begin();
  CHECK_MSG(inner > outer, "levels %d, then %d", outer, inner);
  CHECK_OK(write_in(nested, "inner.txt", "inner\n"));
  CHECK(entries_in(nested) == 2 && !entry_exists(nested, "inner.txt"));
  CHECK_OK(ck__file_hold_end(inner, 1));
  CHECK_MSG(holds_text(nested, "inner.txt", "inner\n"),
            "the inner level's output is there at its end");
  CHECK(!entry_exists(nested, "outer.txt") && entries_in(nested) == 2);

  /* A failed inner level, then one whose rename fails. */
  inner = ck__file_hold_begin();
  CHECK_OK(write_in(nested, "failed.txt", "failed\n"));
  CHECK_OK(ck__file_hold_end(inner, 0));
  inner = ck__file_hold_begin();
  CHECK_OK(write_in(nested, "unrenamed.txt", "unrenamed\n"));
  injector.armed = FAIL_RENAME;
  CHECK(ck__file_hold_end(inner, 1) == CK_ERROR_IO);
  injector.armed = FAIL_NONE;
  CHECK(!entry_exists(nested, "failed.txt") &&
        !entry_exists(nested, "unrenamed.txt"));
  CHECK_MSG(entries_in(nested) == 2,
            "the outer level's temporary and inner.txt stay (%d entries)",
            entries_in(nested));

  /* A pause renames at once, inside the outer level. */
  int paused = ck__file_hold_pause();
  CHECK_OK(write_in(nested, "checkpoint.txt", "now\n"));
  ck__file_hold_resume(paused);
  CHECK(holds_text(nested, "checkpoint.txt", "now\n"));
  CHECK_OK(ck__file_hold_end(outer, 1));
  CHECK(holds_text(nested, "outer.txt", "outer\n"));
  CHECK_MSG(entries_in(nested) == 3, "%d entries, no temporary left",
            entries_in(nested));

  /* Every level ended: a commit renames at once again. */
  CHECK_OK(write_in(nested, "after.txt", "after\n"));
  CHECK(holds_text(nested, "after.txt", "after\n"));
  remove_tree(nested);
}

/* ---- reading ------------------------------------------------------------
 */

static const char *last_message(void) {
  const char *message = "";
  ck_error_get_last(&message);
  return message;
}

/* A child that writes `total` bytes of `fill` (or forever, for 0) into a
 * pipe; *reader becomes "/dev/fd/N" for the read end. */
static pid_t start_writer(size_t total, char fill, char *reader,
                          size_t reader_size) {
  int ends[2];
  if (pipe(ends) != 0)
    return -1;
  pid_t child = fork();
  if (child == 0) {
    close(ends[0]);
    char block[4096];
    memset(block, fill, sizeof block);
    for (size_t sent = 0; total == 0 || sent < total;) {
      size_t part =
          total && total - sent < sizeof block ? total - sent : sizeof block;
      ssize_t put = __real_write(ends[1], block, part);
      if (put <= 0)
        _exit(0); /* the reader has gone */
      sent += (size_t)put;
    }
    _exit(0);
  }
  close(ends[1]);
  snprintf(reader, reader_size, "/dev/fd/%d", ends[0]);
  return child;
}

static void stop_writer(pid_t child, const char *reader) {
  close(atoi(reader + strlen("/dev/fd/")));
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
}

/* Whole-file reads take a file up to their limit, refuse one past it (a
 * regular file by its size, a stream as it grows, so that an endless one
 * ends), end a text read at its first NUL and a binary one at the first
 * byte that differs from the magic. */
static void check_read_limits(const char *directory) {
  char path[1100], reader[64];
  char *bytes = NULL;
  size_t size = 0;
  snprintf(path, sizeof path, "%s/input.txt", directory);
  FILE *file = fopen(path, "w");
  CHECK(file != NULL);
  if (!file)
    return;
  for (int i = 0; i < 100; ++i)
    fputc('a' + i % 26, file);
  fclose(file);
  CHECK_OK(ck__file_read_text(path, 100, &bytes, &size));
  CHECK(bytes && size == 100 && bytes[99] == 'a' + 99 % 26 && !bytes[100]);
  free(bytes);
  bytes = NULL;
  CHECK(ck__file_read_text(path, 99, &bytes, &size) == CK_ERROR_UNSUPPORTED);
  CHECK(bytes == NULL);
  CHECK_MSG(strstr(last_message(), path) &&
                strstr(last_message(), "100 bytes") &&
                strstr(last_message(), "at most 99 bytes"),
            "%s", last_message());

  /* Streams: exactly the limit, then one byte past it, then endless. */
  pid_t child = start_writer(5000, 'x', reader, sizeof reader);
  CHECK_OK(ck__file_read_text(reader, 5000, &bytes, &size));
  CHECK(bytes && size == 5000 && bytes[4999] == 'x');
  free(bytes);
  bytes = NULL;
  stop_writer(child, reader);
  child = start_writer(5001, 'x', reader, sizeof reader);
  CHECK(ck__file_read_text(reader, 5000, &bytes, &size) ==
        CK_ERROR_UNSUPPORTED);
  CHECK_MSG(strstr(last_message(), "more than 5000 bytes"), "%s",
            last_message());
  stop_writer(child, reader);
  child = start_writer(0, 'x', reader, sizeof reader);
  CHECK(ck__file_read_bytes(reader, (size_t)1 << 20, NULL, 0, &bytes, &size) ==
        CK_ERROR_UNSUPPORTED);
  CHECK(bytes == NULL);
  stop_writer(child, reader);

  /* An endless stream of NULs: refused as text at once, and read as a
   * binary file only as far as its first byte differs from the magic. */
  child = start_writer(0, '\0', reader, sizeof reader);
  CHECK(ck__file_read_text(reader, CK__TEXT_FILE_MAX_BYTES, &bytes, &size) ==
        CK_ERROR_PARSE);
  CHECK_MSG(strstr(last_message(), "NUL"), "%s", last_message());
  stop_writer(child, reader);
  child = start_writer(0, '\0', reader, sizeof reader);
  CHECK_OK(
      ck__file_read_bytes(reader, SIZE_MAX / 2, "CKNNMODL", 8, &bytes, &size));
  CHECK(bytes && size >= 1 && size <= 65536 && bytes[0] == '\0');
  free(bytes);
  bytes = NULL;
  stop_writer(child, reader);
  /* A file that begins with the magic is read whole. */
  file = fopen(path, "w");
  CHECK(file != NULL);
  if (file) {
    fputs("CKNNMODL and more", file);
    fclose(file);
  }
  CHECK_OK(ck__file_read_bytes(path, 1000, "CKNNMODL", 8, &bytes, &size));
  CHECK(bytes && size == 17 && strcmp(bytes, "CKNNMODL and more") == 0);
  free(bytes);
  remove(path);
}

int main(void) {
  char directory[1024];
  const char *base = getenv("TMPDIR");
  snprintf(directory, sizeof directory, "%s/clkit-test-io-XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(directory)) {
    fprintf(stderr, "cannot make a directory in %s\n", directory);
    return 1;
  }
  CHECK_OK(ck_lsq_generate(8, 3, 7, 0.01, &lsq_data, coefficients));
  for (size_t i = 0; i < sizeof savers / sizeof savers[0]; ++i)
    for (failure point = FAIL_WRITE; point <= FAIL_RENAME; ++point)
      check_saver(directory, &savers[i], point);
  check_long_names(directory);
  check_stale_temporaries(directory);
  check_live_temporaries(directory);
  check_nested_holds(directory);
  check_read_limits(directory);
  ck_lsq_free(&lsq_data);
  remove_tree(directory);
  return CHECK_DONE();
}
