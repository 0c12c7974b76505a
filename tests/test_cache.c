/*
 * test_cache - SHA-256 against the FIPS 180-4 examples, and the on-disk
 * kernel cache: misses, hits, overwrites, corrupt entries, disabling,
 * query/clear, the temporaries of writers killed before their rename,
 * several processes storing one entry at once, what the cache refuses to
 * trust (entries under another key, links, FIFOs, another user's files,
 * directories others may write, relative locations), and, on an OpenCL
 * device, swapped entries and binaries lacking their kernels rebuilt.
 *
 * The test points CLKIT_CACHE_DIR at a fresh directory of its own, so it
 * never touches a user's cache and runs the same wherever it is started.
 */
#include "runtime/runtime.h"

#include "check.h"
#include "opencl_device.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HEADER_SIZE 88
#define WRITERS 4
#define STORES_PER_WRITER 20

static uint64_t rng_state = 0x0123456789abcdefull;

/* splitmix64: a fixed seed makes every run see the same bytes. */
static uint64_t next_random(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void fill_random(uint8_t *bytes, size_t size) {
  for (size_t i = 0; i < size; ++i)
    bytes[i] = (uint8_t)next_random();
}

static void digest_hex(const void *data, size_t size, char hex[65]) {
  uint8_t digest[32];
  ck__sha256(data, size, digest);
  ck__hex(digest, 32, hex);
}

static void make_key(const char *label, uint8_t key[32]) {
  ck__sha256(label, strlen(label), key);
}

/* Sized so that every path built from it fits a 4096-byte buffer. */
static char cache_dir[1100];

static void entry_file(const uint8_t key[32], char *path, size_t capacity) {
  char hex[65];
  ck__hex(key, 32, hex);
  snprintf(path, capacity, "%s/%s.ckbin", cache_dir, hex);
}

static int file_exists(const char *path) {
  struct stat info;
  return stat(path, &info) == 0;
}

static long long file_size(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 ? (long long)info.st_size : -1;
}

/* Counts directory entries ending in suffix (or containing it, if any). */
static int count_names(const char *directory, const char *text, int suffix) {
  DIR *dir = opendir(directory);
  struct dirent *item;
  int count = 0;
  if (!dir)
    return -1;
  while ((item = readdir(dir)) != NULL) {
    size_t length = strlen(item->d_name), wanted = strlen(text);
    if (suffix ? length >= wanted &&
                     strcmp(item->d_name + length - wanted, text) == 0
               : strstr(item->d_name, text) != NULL)
      ++count;
  }
  closedir(dir);
  return count;
}

/* A load that must miss quietly: no payload and no recorded message. */
static void check_quiet_miss(const uint8_t key[32]) {
  void *payload = (void *)&rng_state;
  size_t size = 123;
  ck_error_clear();
  ck_status status = ck__cache_load(key, &payload, &size, NULL);
  CHECK_MSG(status == CK_ERROR_NOT_FOUND, "load returned %d", (int)status);
  CHECK(payload == NULL);
  CHECK(size == 0);
  const char *message = NULL;
  CHECK(ck_error_get_last(&message) == CK_OK);
  CHECK(message && message[0] == '\0');
}

/* A load that must hit with exactly these bytes. */
static void check_hit(const uint8_t key[32], const void *expected,
                      size_t expected_size) {
  void *payload = NULL;
  size_t size = 0;
  CHECK_OK(ck__cache_load(key, &payload, &size, NULL));
  CHECK(payload != NULL);
  CHECK_MSG(size == expected_size, "%zu vs %zu bytes", size, expected_size);
  if (payload && size == expected_size && size > 0)
    CHECK(memcmp(payload, expected, size) == 0);
  free(payload);
}

static void test_sha256_vectors(void) {
  static const char *const million_a_hex =
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  static const struct {
    const char *message;
    const char *hex;
  } vectors[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklm"
       "nopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
  };
  char hex[65];
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; ++i) {
    digest_hex(vectors[i].message, strlen(vectors[i].message), hex);
    CHECK_MSG(strcmp(hex, vectors[i].hex) == 0, "\"%s\": %s",
              vectors[i].message, hex);
  }

  size_t million = 1000000;
  char *as = malloc(million);
  CHECK(as != NULL);
  if (!as)
    return;
  memset(as, 'a', million);
  digest_hex(as, million, hex);
  CHECK_MSG(strcmp(hex, million_a_hex) == 0, "one million 'a': %s", hex);

  /* The same million bytes fed in pieces that straddle block edges. */
  ck__sha256_context context;
  uint8_t digest[32];
  ck__sha256_init(&context);
  for (size_t done = 0; done < million;) {
    size_t piece = (size_t)(next_random() % 200);
    if (piece > million - done)
      piece = million - done;
    ck__sha256_update(&context, as + done, piece);
    done += piece;
  }
  ck__sha256_final(&context, digest);
  ck__hex(digest, 32, hex);
  CHECK_MSG(strcmp(hex, million_a_hex) == 0, "chunked million 'a': %s", hex);
  free(as);

  uint8_t bytes[4] = {0x00, 0x1f, 0xa0, 0xff};
  ck__hex(bytes, 4, hex);
  CHECK(strcmp(hex, "001fa0ff") == 0);
}

/* Random messages, every length near the padding edges, random splits. */
static void test_sha256_chunking(void) {
  uint8_t message[1000];
  fill_random(message, sizeof message);
  for (size_t length = 0; length <= 300; ++length) {
    uint8_t whole[32], split[32];
    ck__sha256(message, length, whole);
    for (int trial = 0; trial < 4; ++trial) {
      ck__sha256_context context;
      ck__sha256_init(&context);
      size_t done = 0;
      while (done < length) {
        size_t piece = (size_t)(next_random() % (length - done + 1));
        ck__sha256_update(&context, message + done, piece);
        done += piece;
      }
      ck__sha256_final(&context, split);
      CHECK_MSG(memcmp(whole, split, 32) == 0, "length %zu trial %d", length,
                trial);
    }
    /* One byte at a time is the most fragmented split possible. */
    ck__sha256_context context;
    ck__sha256_init(&context);
    for (size_t i = 0; i < length; ++i)
      ck__sha256_update(&context, message + i, 1);
    ck__sha256_final(&context, split);
    CHECK_MSG(memcmp(whole, split, 32) == 0, "bytewise length %zu", length);
  }
}

static void test_directory_resolution(const char *root) {
  char path[4096];
  const char *saved = getenv("CLKIT_CACHE_DIR");
  char saved_dir[4096];
  snprintf(saved_dir, sizeof saved_dir, "%s", saved ? saved : "");

  CHECK_OK(ck__cache_directory(path, sizeof path));
  CHECK(strcmp(path, saved_dir) == 0);

  unsetenv("CLKIT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  setenv("HOME", "/home/someone", 1);
  CHECK_OK(ck__cache_directory(path, sizeof path));
  CHECK_MSG(strcmp(path, "/xdg/cache/clkit") == 0, "%s", path);
  /* A relative XDG_CACHE_HOME is invalid by the XDG spec and ignored. */
  setenv("XDG_CACHE_HOME", "relative", 1);
  CHECK_OK(ck__cache_directory(path, sizeof path));
  CHECK_MSG(strcmp(path, "/home/someone/.cache/clkit") == 0, "%s", path);
  unsetenv("XDG_CACHE_HOME");
  CHECK_OK(ck__cache_directory(path, sizeof path));
  CHECK_MSG(strcmp(path, "/home/someone/.cache/clkit") == 0, "%s", path);
  /* An empty override falls through to the next choice. */
  setenv("CLKIT_CACHE_DIR", "", 1);
  CHECK_OK(ck__cache_directory(path, sizeof path));
  CHECK_MSG(strcmp(path, "/home/someone/.cache/clkit") == 0, "%s", path);

  /* Too small a buffer is an error, not a truncated path. */
  setenv("CLKIT_CACHE_DIR", root, 1);
  char tiny[4];
  CHECK(ck__cache_directory(tiny, sizeof tiny) == CK_ERROR_CACHE);
  CHECK(ck__cache_directory(NULL, 10) == CK_ERROR_INVALID_ARGUMENT);

  setenv("CLKIT_CACHE_DIR", saved_dir, 1);
}

static void test_store_and_load(void) {
  uint8_t key[32], other[32];
  char path[4096];
  make_key("first entry", key);
  make_key("never stored", other);
  entry_file(key, path, sizeof path);

  /* Nothing exists yet, not even the directory. */
  CHECK(!file_exists(cache_dir));
  check_quiet_miss(key);
  ck_cache_stats stats;
  CHECK_OK(ck_cache_query(&stats));
  CHECK(strcmp(stats.directory, cache_dir) == 0);
  CHECK(stats.enabled == 1);
  CHECK(stats.pocl_builds == 0);
  CHECK(stats.entries == 0 && stats.bytes == 0);

  uint8_t first[10000];
  fill_random(first, sizeof first);
  CHECK_OK(ck__cache_store(key, NULL, first, sizeof first));
  CHECK(file_exists(path));
  CHECK(file_size(path) == HEADER_SIZE + (long long)sizeof first);
  check_hit(key, first, sizeof first);
  check_quiet_miss(other);

  /* A second store replaces the entry, even with a different size. */
  uint8_t second[777];
  fill_random(second, sizeof second);
  CHECK_OK(ck__cache_store(key, NULL, second, sizeof second));
  check_hit(key, second, sizeof second);
  CHECK(file_size(path) == HEADER_SIZE + (long long)sizeof second);

  /* An empty payload is a valid entry. */
  uint8_t empty_key[32];
  make_key("empty entry", empty_key);
  CHECK_OK(ck__cache_store(empty_key, NULL, NULL, 0));
  check_hit(empty_key, NULL, 0);

  /* Removing is idempotent. */
  CHECK_OK(ck__cache_remove(empty_key));
  check_quiet_miss(empty_key);
  CHECK_OK(ck__cache_remove(empty_key));

  CHECK(count_names(cache_dir, ".tmp", 0) == 0);

  void *payload = NULL;
  size_t size = 0;
  CHECK(ck__cache_load(NULL, &payload, &size, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__cache_load(key, NULL, &size, NULL) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__cache_store(NULL, NULL, first, 1) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__cache_store(key, NULL, NULL, 1) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_cache_query(NULL) == CK_ERROR_INVALID_ARGUMENT);
}

/* Stores an entry, damages its file with damage(), expects a quiet miss. */
static void check_corruption(const char *label, void (*damage)(const char *)) {
  uint8_t key[32], payload[5000];
  char path[4096];
  make_key(label, key);
  fill_random(payload, sizeof payload);
  entry_file(key, path, sizeof path);
  CHECK_OK(ck__cache_store(key, NULL, payload, sizeof payload));
  check_hit(key, payload, sizeof payload);
  damage(path);
  check_quiet_miss(key);
  CHECK_MSG(!file_exists(path), "%s: damaged entry was not deleted", label);
  /* The next store repairs it. */
  CHECK_OK(ck__cache_store(key, NULL, payload, sizeof payload));
  check_hit(key, payload, sizeof payload);
  CHECK_OK(ck__cache_remove(key));
}

static void flip_byte_at(const char *path, off_t offset) {
  int fd = open(path, O_RDWR);
  uint8_t byte = 0;
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  CHECK(pread(fd, &byte, 1, offset) == 1);
  byte ^= 0x40;
  CHECK(pwrite(fd, &byte, 1, offset) == 1);
  close(fd);
}

static void flip_payload_byte(const char *path) {
  flip_byte_at(path, HEADER_SIZE + 1234);
}
static void flip_magic(const char *path) {
  flip_byte_at(path, 0);
}
static void flip_version(const char *path) {
  flip_byte_at(path, 8);
}
static void flip_checksum(const char *path) {
  flip_byte_at(path, 24 + 7);
}
static void truncate_payload(const char *path) {
  CHECK(truncate(path, HEADER_SIZE + 100) == 0);
}
static void truncate_header(const char *path) {
  CHECK(truncate(path, 20) == 0);
}
static void truncate_empty(const char *path) {
  CHECK(truncate(path, 0) == 0);
}
static void append_byte(const char *path) {
  int fd = open(path, O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(write(fd, "x", 1) == 1);
    close(fd);
  }
}

/* The size field must agree with the file; a huge one must not allocate. */
static void write_size_field(const char *path, uint64_t value) {
  uint8_t field[8];
  for (int i = 0; i < 8; ++i)
    field[i] = (uint8_t)(value >> (8 * i));
  int fd = open(path, O_WRONLY);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(pwrite(fd, field, 8, 16) == 8);
    close(fd);
  }
}
static void huge_size_field(const char *path) {
  write_size_field(path, UINT64_MAX);
}
static void short_size_field(const char *path) {
  write_size_field(path, 4999);
}

static void test_corruption(void) {
  check_corruption("flipped payload byte", flip_payload_byte);
  check_corruption("flipped magic", flip_magic);
  check_corruption("flipped version", flip_version);
  check_corruption("flipped checksum", flip_checksum);
  check_corruption("truncated payload", truncate_payload);
  check_corruption("truncated header", truncate_header);
  check_corruption("empty file", truncate_empty);
  check_corruption("trailing garbage", append_byte);
  check_corruption("huge size field", huge_size_field);
  check_corruption("short size field", short_size_field);
}

static void test_disabled(void) {
  uint8_t key[32], fresh[32], payload[300];
  char path[4096], fresh_path[4096];
  make_key("survives disabling", key);
  make_key("stored while disabled", fresh);
  fill_random(payload, sizeof payload);
  entry_file(key, path, sizeof path);
  entry_file(fresh, fresh_path, sizeof fresh_path);
  CHECK_OK(ck__cache_store(key, NULL, payload, sizeof payload));

  setenv("CLKIT_CACHE", "0", 1);
  CHECK(ck__cache_setting() == CK__CACHE_OFF);
  check_quiet_miss(key);
  CHECK(file_exists(path));
  CHECK_OK(ck__cache_store(fresh, NULL, payload, sizeof payload));
  CHECK(!file_exists(fresh_path));
  ck_cache_stats stats;
  CHECK_OK(ck_cache_query(&stats));
  CHECK(stats.enabled == 0);

  /* The usual spellings, in any case: "0" and its kin disable; "1" and
   * its kin ask for the cache even where the runtime caches builds
   * itself. */
  static const char *const disabling[] = {"0",  "off",   "OFF",
                                          "No", "false", "FALSE"};
  static const char *const forcing[] = {"1",   "on",   "On",  "yes",
                                        "YES", "true", "True"};
  for (size_t i = 0; i < sizeof disabling / sizeof disabling[0]; ++i) {
    setenv("CLKIT_CACHE", disabling[i], 1);
    CHECK_MSG(ck__cache_setting() == CK__CACHE_OFF, "CLKIT_CACHE=%s",
              disabling[i]);
    CHECK_OK(ck_cache_query(&stats));
    CHECK_MSG(stats.enabled == 0, "CLKIT_CACHE=%s", disabling[i]);
  }
  for (size_t i = 0; i < sizeof forcing / sizeof forcing[0]; ++i) {
    setenv("CLKIT_CACHE", forcing[i], 1);
    CHECK_MSG(ck__cache_setting() == CK__CACHE_FORCED, "CLKIT_CACHE=%s",
              forcing[i]);
    CHECK_OK(ck_cache_query(&stats));
    CHECK_MSG(stats.enabled == 1 && stats.pocl_builds == 1, "CLKIT_CACHE=%s",
              forcing[i]);
  }

  /* Any other value keeps the cache on, as a cache is never required,
   * but is not taken silently: the query reports it, with the stats
   * still filled in. */
  static const char *const unknown[] = {"banana", "2", "offf", " off", "y"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    setenv("CLKIT_CACHE", unknown[i], 1);
    CHECK_MSG(ck__cache_setting() == CK__CACHE_ON, "CLKIT_CACHE=%s",
              unknown[i]);
    ck_error_clear();
    memset(&stats, 0, sizeof stats);
    CHECK(ck_cache_query(&stats) == CK_ERROR_INVALID_ARGUMENT);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "CLKIT_CACHE") && strstr(message, unknown[i]),
              "CLKIT_CACHE=%s: %s", unknown[i], message);
    CHECK_MSG(stats.enabled == 1 && stats.pocl_builds == 0 &&
                  stats.directory[0] != '\0' && stats.entries >= 1,
              "CLKIT_CACHE=%s: stats not filled in", unknown[i]);
  }
  check_hit(key, payload, sizeof payload);
  CHECK_OK(ck__cache_store(fresh, NULL, payload, sizeof payload));
  CHECK(file_exists(fresh_path));
  CHECK_OK(ck__cache_remove(fresh));

  /* Unset or empty, it is on, and the query has nothing to report. */
  setenv("CLKIT_CACHE", "", 1);
  CHECK(ck__cache_setting() == CK__CACHE_ON);
  CHECK_OK(ck_cache_query(&stats));
  CHECK(stats.enabled == 1 && stats.pocl_builds == 0);
  unsetenv("CLKIT_CACHE");
  CHECK(ck__cache_setting() == CK__CACHE_ON);
  CHECK_OK(ck_cache_query(&stats));
  check_hit(key, payload, sizeof payload);
  CHECK_OK(ck__cache_remove(key));
}

static void test_query_and_clear(const char *root) {
  size_t removed = 99;
  CHECK_OK(ck_cache_clear(&removed));
  ck_cache_stats stats;
  CHECK_OK(ck_cache_query(&stats));
  CHECK(stats.entries == 0 && stats.bytes == 0);

  static const size_t sizes[3] = {10, 4096, 70000};
  uint8_t *payload = malloc(sizes[2]);
  CHECK(payload != NULL);
  if (!payload)
    return;
  fill_random(payload, sizes[2]);
  unsigned long long expected_bytes = 0;
  for (int i = 0; i < 3; ++i) {
    char label[32];
    uint8_t key[32];
    snprintf(label, sizeof label, "query entry %d", i);
    make_key(label, key);
    CHECK_OK(ck__cache_store(key, NULL, payload, sizes[i]));
    expected_bytes += HEADER_SIZE + sizes[i];
  }
  free(payload);

  /* A stale temporary file of ours, and a file that is not ours. */
  char stale[4096], foreign[4096];
  uint8_t stale_key[32];
  char stale_hex[65];
  make_key("crashed writer", stale_key);
  ck__hex(stale_key, 32, stale_hex);
  snprintf(stale, sizeof stale, "%s/.%s.tmp.Ab12Cd", cache_dir, stale_hex);
  snprintf(foreign, sizeof foreign, "%s/notes.ckbin.txt", cache_dir);
  FILE *file = fopen(stale, "wb");
  CHECK(file != NULL);
  if (file)
    fclose(file);
  file = fopen(foreign, "wb");
  CHECK(file != NULL);
  if (file) {
    fputs("not a cache entry\n", file);
    fclose(file);
  }

  CHECK_OK(ck_cache_query(&stats));
  CHECK_MSG(stats.entries == 3, "%zu entries", stats.entries);
  CHECK_MSG(stats.bytes == expected_bytes, "%llu vs %llu bytes", stats.bytes,
            expected_bytes);

  CHECK_OK(ck_cache_clear(&removed));
  CHECK_MSG(removed == 4, "removed %zu", removed);
  CHECK(!file_exists(stale));
  CHECK(file_exists(foreign));
  CHECK_OK(ck_cache_query(&stats));
  CHECK(stats.entries == 0 && stats.bytes == 0);
  CHECK_OK(ck_cache_clear(NULL));
  unlink(foreign);

  /* A cache directory that does not exist is an empty cache. */
  char missing[4096];
  snprintf(missing, sizeof missing, "%s/does/not/exist", root);
  setenv("CLKIT_CACHE_DIR", missing, 1);
  CHECK_OK(ck_cache_query(&stats));
  CHECK(stats.entries == 0 && strcmp(stats.directory, missing) == 0);
  removed = 99;
  CHECK_OK(ck_cache_clear(&removed));
  CHECK(removed == 0);
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
}

/* A cache directory that cannot be created: store fails with a message. */
static void test_store_failure(const char *root) {
  char blocker[2048], below[4096];
  snprintf(blocker, sizeof blocker, "%s/plain-file", root);
  snprintf(below, sizeof below, "%s/cache", blocker);
  FILE *file = fopen(blocker, "wb");
  CHECK(file != NULL);
  if (file)
    fclose(file);
  setenv("CLKIT_CACHE_DIR", below, 1);

  uint8_t key[32];
  make_key("unstorable", key);
  ck_error_clear();
  ck_status status = ck__cache_store(key, NULL, "abc", 3);
  CHECK_MSG(status == CK_ERROR_CACHE, "store returned %d", (int)status);
  const char *message = "";
  CHECK(ck_error_get_last(&message) == CK_ERROR_CACHE);
  CHECK_MSG(strstr(message, "plain-file") != NULL, "message: %s", message);
  check_quiet_miss(key);

  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  unlink(blocker);
}

/* Makes an empty file at path, last modified age seconds ago. */
static void make_file_aged(const char *path, time_t age) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK_MSG(fd >= 0, "cannot create %s", path);
  if (fd < 0)
    return;
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = time(NULL) - age;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  CHECK(futimens(fd, times) == 0);
  close(fd);
}

/* A writer killed before its rename leaves its temporary file: the next
 * store deletes those an hour old (of any key), and leaves a younger one,
 * which may be a live writer's, and files that are not the cache's. */
static void test_stale_temporaries(void) {
  uint8_t key[32], other[32], payload[100];
  char hex[65], other_hex[65];
  char stale[4096], stale_other[4096], live[4096], foreign[4096];
  make_key("killed while writing", key);
  make_key("never stored again", other);
  ck__hex(key, 32, hex);
  ck__hex(other, 32, other_hex);
  fill_random(payload, sizeof payload);
  CHECK_OK(ck_cache_clear(NULL));
  CHECK_OK(ck__cache_store(other, NULL, payload, sizeof payload));
  CHECK_OK(ck__cache_remove(other));

  snprintf(stale, sizeof stale, "%s/.%s.tmp.0a1b2c3d", cache_dir, hex);
  snprintf(stale_other, sizeof stale_other, "%s/.%s.tmp.XyZ123", cache_dir,
           other_hex);
  snprintf(live, sizeof live, "%s/.%s.tmp.live0001", cache_dir, hex);
  snprintf(foreign, sizeof foreign, "%s/notes.tmp.old", cache_dir);
  make_file_aged(stale, 2 * 60 * 60);
  make_file_aged(stale_other, 3 * 24 * 60 * 60);
  make_file_aged(live, 10);
  make_file_aged(foreign, 2 * 60 * 60);

  CHECK_OK(ck__cache_store(key, NULL, payload, sizeof payload));
  check_hit(key, payload, sizeof payload);
  CHECK_MSG(!file_exists(stale), "a stale temporary of the key stayed");
  CHECK_MSG(!file_exists(stale_other), "another key's stale temporary stayed");
  CHECK_MSG(file_exists(live), "a young temporary was deleted");
  CHECK_MSG(file_exists(foreign), "a file not of the cache was deleted");
  unlink(live);
  unlink(foreign);
  CHECK_OK(ck__cache_remove(key));
}

/* Each writer stores the same entry repeatedly; its exit status says how. */
static int run_writer(const uint8_t key[32], const uint8_t *payload,
                      size_t size) {
  for (int i = 0; i < STORES_PER_WRITER; ++i)
    if (ck__cache_store(key, NULL, payload, size) != CK_OK)
      return 1;
  return 0;
}

static void test_concurrent_writers(void) {
  size_t size = (1u << 20) + 123;
  uint8_t key[32];
  uint8_t *payload = malloc(size);
  CHECK(payload != NULL);
  if (!payload)
    return;
  fill_random(payload, size);
  make_key("contended entry", key);
  CHECK_OK(ck_cache_clear(NULL));

  /* Unwritten stdio buffers would otherwise be flushed by every child. */
  fflush(stdout);
  fflush(stderr);
  pid_t children[WRITERS];
  int started = 0;
  for (int i = 0; i < WRITERS; ++i) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
      _exit(run_writer(key, payload, size));
    if (pid > 0)
      children[started++] = pid;
  }

  /* Read while they write: a hit must never be a partial or mixed entry. */
  int running = started, loads = 0, hits = 0, bad = 0, errors = 0;
  int exit_ok[WRITERS] = {0};
  while (running > 0) {
    void *got = NULL;
    size_t got_size = 0;
    ck_status status = ck__cache_load(key, &got, &got_size, NULL);
    ++loads;
    if (status == CK_OK) {
      ++hits;
      if (got_size != size || memcmp(got, payload, size) != 0)
        ++bad;
    } else if (status != CK_ERROR_NOT_FOUND) {
      ++errors;
    }
    free(got);
    for (int i = 0; i < started; ++i) {
      int wstatus;
      if (children[i] > 0 && waitpid(children[i], &wstatus, WNOHANG) > 0) {
        exit_ok[i] = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
        children[i] = 0;
        --running;
      }
    }
  }
  CHECK(started == WRITERS);
  for (int i = 0; i < started; ++i)
    CHECK_MSG(exit_ok[i], "writer %d failed", i);
  CHECK_MSG(bad == 0, "%d of %d hits had wrong bytes", bad, hits);
  CHECK_MSG(errors == 0, "%d loads failed outright", errors);
  printf("concurrent writers: %d loads, %d hits during writing\n", loads, hits);

  check_hit(key, payload, size);
  CHECK(count_names(cache_dir, ".ckbin", 1) == 1);
  CHECK(count_names(cache_dir, ".tmp", 0) == 0);
  ck_cache_stats stats;
  CHECK_OK(ck_cache_query(&stats));
  CHECK(stats.entries == 1 && stats.bytes == HEADER_SIZE + size);
  free(payload);
}

/* ---- what the cache trusts ----------------------------------------------- */

/* The message of the last failure (never NULL). */
static const char *last_message(void) {
  const char *message = "";
  ck_error_get_last(&message);
  return message ? message : "";
}

static void copy_file(const char *from, const char *to) {
  size_t size = 0;
  char *bytes = test_read_file(from, &size);
  CHECK_MSG(bytes != NULL, "cannot read %s", from);
  if (bytes)
    CHECK(test_write_bytes(to, bytes, size) == 0);
  free(bytes);
}

/* The key is in the header: an entry copied over another key's name is a
 * miss, deleted, and the other key's entry is unharmed. Kernel names come
 * back as stored. */
static void test_key_binding(void) {
  uint8_t first[32], second[32], payload[300];
  char first_path[4096], second_path[4096];
  make_key("bound entry one", first);
  make_key("bound entry two", second);
  entry_file(first, first_path, sizeof first_path);
  entry_file(second, second_path, sizeof second_path);
  fill_random(payload, sizeof payload);
  CHECK_OK(ck__cache_store(first, "alpha;beta", payload, sizeof payload));
  CHECK_OK(ck__cache_store(second, "gamma", payload, 100));
  copy_file(first_path, second_path);
  check_quiet_miss(second);
  CHECK_MSG(!file_exists(second_path), "an entry under another key stayed");

  void *got = NULL;
  size_t size = 0;
  char *kernels = NULL;
  CHECK_OK(ck__cache_load(first, &got, &size, &kernels));
  CHECK(size == sizeof payload && got && memcmp(got, payload, size) == 0);
  CHECK_MSG(kernels && strcmp(kernels, "alpha;beta") == 0, "kernels: %s",
            kernels ? kernels : "(none)");
  free(got);
  free(kernels);
  /* Names are covered by the checksum. */
  flip_byte_at(first_path, HEADER_SIZE + 2);
  check_quiet_miss(first);
  CHECK(!file_exists(first_path));

  static const struct {
    const char *wanted, *present;
    int covered;
  } lists[] = {
      {"", "", 1},        {"a", "a", 1},         {"a;b", "b;a", 1},
      {"a", "a;b", 1},    {"a;b", "a", 0},       {"ab", "a;b", 0},
      {"a", "ab", 0},     {"a", "", 0},          {"b", "a;b;c", 1},
      {"a;;b", "b;a", 1}, {"scale", "other", 0}, {"x", "xy;yx;x", 1},
  };
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; ++i)
    CHECK_MSG(ck__cache_kernels_present(lists[i].wanted, lists[i].present) ==
                  lists[i].covered,
              "\"%s\" in \"%s\"", lists[i].wanted, lists[i].present);
}

/* A load that blocks is ended by an alarm, which says so. */
static void on_alarm(int signal_number) {
  static const char message[] = "test_cache: a cache load blocked\n";
  (void)signal_number;
  if (write(STDERR_FILENO, message, sizeof message - 1) < 0)
    _exit(2);
  _exit(1);
}

/* Stores key's entry, lets prepare() change it, and expects a quiet miss
 * that leaves the file in place, unread; a store then replaces it with a
 * regular file of the user's that hits. */
static void check_untrusted_entry(const char *label,
                                  int (*prepare)(const char *path)) {
  uint8_t key[32], payload[200];
  char path[4096];
  make_key(label, key);
  entry_file(key, path, sizeof path);
  fill_random(payload, sizeof payload);
  CHECK_OK(ck__cache_store(key, "k", payload, sizeof payload));
  if (!prepare(path)) {
    printf("%s: not tested (%s)\n", label, strerror(errno));
    CHECK_OK(ck__cache_remove(key));
    return;
  }
  /* A load that blocked (a FIFO opened for reading waits for a writer)
   * ends the test here rather than hanging it. */
  signal(SIGALRM, on_alarm);
  alarm(10);
  check_quiet_miss(key);
  alarm(0);
  struct stat info;
  CHECK_MSG(lstat(path, &info) == 0, "%s: the entry was deleted", label);
  CHECK_OK(ck__cache_store(key, "k", payload, sizeof payload));
  CHECK_MSG(lstat(path, &info) == 0 && S_ISREG(info.st_mode) &&
                info.st_uid == geteuid() && (info.st_mode & 0777) == 0600,
            "%s: not replaced by a private regular file", label);
  check_hit(key, payload, sizeof payload);
  CHECK_OK(ck__cache_remove(key));
}

static int make_fifo(const char *path) {
  return unlink(path) == 0 && mkfifo(path, 0600) == 0;
}
static int to_nobody(const char *path) {
  return chown(path, 65534, 65534) == 0;
}
static int group_writable(const char *path) {
  return chmod(path, 0620) == 0;
}
static int others_writable(const char *path) {
  return chmod(path, 0602) == 0;
}
/* Moves the entry out of the cache and links to it: a valid entry, but
 * reached through a link. */
static char link_target[4096];
static int make_link(const char *path) {
  snprintf(link_target, sizeof link_target, "%s.target", cache_dir);
  return rename(path, link_target) == 0 && symlink(link_target, path) == 0;
}

static void test_untrusted_entries(void) {
  check_untrusted_entry("a FIFO", make_fifo);
  check_untrusted_entry("another user's entry", to_nobody);
  check_untrusted_entry("a group-writable entry", group_writable);
  check_untrusted_entry("an entry others may write", others_writable);
  check_untrusted_entry("a link to an entry", make_link);
  CHECK_MSG(file_size(link_target) > HEADER_SIZE, "the link's target changed");

  /* Clearing deletes a link, not what it points to. */
  uint8_t key[32];
  char path[4096];
  make_key("cleared link", key);
  entry_file(key, path, sizeof path);
  CHECK_OK(ck_cache_clear(NULL));
  CHECK(symlink(link_target, path) == 0);
  ck_cache_stats stats;
  CHECK_OK(ck_cache_query(&stats));
  CHECK_MSG(stats.entries == 0, "a link counted as an entry");
  size_t removed = 0;
  CHECK_OK(ck_cache_clear(&removed));
  CHECK(removed == 1);
  struct stat info;
  CHECK(lstat(path, &info) != 0);
  CHECK_MSG(file_size(link_target) > HEADER_SIZE, "clear emptied a target");
  unlink(link_target);
}

/* With CLKIT_CACHE_DIR set to directory, the cache is refused: the query
 * says why (its message holds reason), a store fails with that reason,
 * nothing is read, and clear deletes nothing. */
static void check_refused_directory(const char *directory, const char *reason,
                                    const uint8_t key[32]) {
  setenv("CLKIT_CACHE_DIR", directory, 1);
  ck_cache_stats stats;
  ck_error_clear();
  CHECK_MSG(ck_cache_query(&stats) == CK_ERROR_CACHE, "%s: query %s", directory,
            last_message());
  CHECK_MSG(strstr(last_message(), reason) != NULL, "%s: %s", directory,
            last_message());
  CHECK(stats.enabled == 1 && stats.entries == 0);
  check_quiet_miss(key);
  ck_error_clear();
  CHECK(ck__cache_store(key, NULL, "x", 1) == CK_ERROR_CACHE);
  CHECK_MSG(strstr(last_message(), reason) != NULL, "%s: store: %s", directory,
            last_message());
  size_t removed = 99;
  ck_error_clear();
  CHECK(ck_cache_clear(&removed) == CK_ERROR_CACHE);
  CHECK_MSG(strstr(last_message(), reason) != NULL, "%s: clear: %s", directory,
            last_message());
  CHECK(removed == 0);
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
}

static void test_untrusted_directory(const char *root) {
  uint8_t key[32], payload[64];
  char path[4096], linked[2048], fresh[2048];
  make_key("behind a refused directory", key);
  fill_random(payload, sizeof payload);
  entry_file(key, path, sizeof path);
  CHECK_OK(ck_cache_clear(NULL));
  CHECK_OK(ck__cache_store(key, NULL, payload, sizeof payload));

  /* A link to the cache: its entries are neither read nor cleared. */
  snprintf(linked, sizeof linked, "%s/linked-cache", root);
  CHECK(symlink(cache_dir, linked) == 0);
  check_refused_directory(linked, "symbolic link", key);
  CHECK_MSG(file_exists(path), "an entry behind a link was deleted");
  unlink(linked);

  /* Writable by group or others. */
  static const mode_t modes[] = {0770, 0707, 0730};
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
    CHECK(chmod(cache_dir, modes[i]) == 0);
    check_refused_directory(cache_dir, "writable by group or others", key);
    CHECK(file_exists(path));
  }
  CHECK(chmod(cache_dir, 0700) == 0);
  check_hit(key, payload, sizeof payload);

  /* Another user's. */
  if (chown(cache_dir, 65534, 65534) == 0) {
    check_refused_directory(cache_dir, "belongs to uid 65534", key);
    CHECK(chown(cache_dir, geteuid(), getegid()) == 0);
    CHECK(file_exists(path));
  } else
    printf("another user's cache directory: not tested (%s)\n",
           strerror(errno));
  check_hit(key, payload, sizeof payload);

  /* A relative location would put the cache wherever clkit runs. */
  char here[4096], relative[4096], resolved[4096];
  CHECK(getcwd(here, sizeof here) != NULL);
  CHECK(chdir(root) == 0);
  check_refused_directory("relative/cache", "not an absolute path", key);
  setenv("CLKIT_CACHE_DIR", "relative/cache", 1);
  CHECK(ck__cache_directory(resolved, sizeof resolved) == CK_ERROR_CACHE);
  CHECK(resolved[0] == '\0');
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  CHECK(chdir(here) == 0);
  snprintf(relative, sizeof relative, "%s/relative", root);
  CHECK_MSG(!file_exists(relative), "a relative cache was made");

  /* A directory the cache makes is private to the user, its parents too. */
  snprintf(fresh, sizeof fresh, "%s/fresh/private", root);
  setenv("CLKIT_CACHE_DIR", fresh, 1);
  CHECK_OK(ck__cache_store(key, NULL, payload, sizeof payload));
  struct stat info;
  CHECK_MSG(stat(fresh, &info) == 0 && (info.st_mode & 0777) == 0700,
            "a new cache directory is mode %o",
            (unsigned)(info.st_mode & 0777));
  snprintf(fresh, sizeof fresh, "%s/fresh", root);
  CHECK_MSG(stat(fresh, &info) == 0 && (info.st_mode & 0777) == 0700,
            "a new parent directory is mode %o",
            (unsigned)(info.st_mode & 0777));
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  CHECK_OK(ck__cache_remove(key));
}

/* ---- cached programs on an OpenCL device --------------------------------- */

/* Two tiny programs (read through CLKIT_KERNEL_DIR): the same kernel name
 * with a factor that the defines choose, and a program without it. */
static const char scale_cl[] = "__kernel void scale(__global int *data) {\n"
                               "  data[get_global_id(0)] *= FACTOR;\n"
                               "}\n";
static const char other_cl[] = "__kernel void other(__global int *data) {\n"
                               "  data[get_global_id(0)] = 0;\n"
                               "}\n";

/* The key of the one entry in directory (0 if not exactly one). */
static int only_entry(const char *directory, uint8_t key[32]) {
  DIR *dir = opendir(directory);
  struct dirent *item;
  int count = 0;
  while (dir && (item = readdir(dir)) != NULL) {
    if (strlen(item->d_name) != 64 + 6 || !strstr(item->d_name, ".ckbin"))
      continue;
    for (int i = 0; i < 32; ++i) {
      unsigned byte = 0;
      sscanf(item->d_name + 2 * i, "%2x", &byte);
      key[i] = (uint8_t)byte;
    }
    ++count;
  }
  if (dir)
    closedir(dir);
  return count == 1;
}

/* Builds scale with FACTOR=factor through the cache at directory and runs
 * it: 1 when it multiplied by factor. *from_cache says where it came from. */
static int scaled(ck_queue *queue, const char *directory, int factor,
                  int *from_cache) {
  char defines[32];
  int data[64], right = 1;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  ck_buffer *buffer = NULL;
  ck_program_stats stats;
  size_t global = 64;
  snprintf(defines, sizeof defines, "-DFACTOR=%d", factor);
  setenv("CLKIT_CACHE_DIR", directory, 1);
  for (int i = 0; i < 64; ++i)
    data[i] = i - 5;
  CHECK_OK(ck_program_build(queue, "scale", defines, &program));
  *from_cache = -1;
  if (program && ck_program_query(program, &stats) == CK_OK)
    *from_cache = stats.from_cache;
  CHECK_OK(ck_kernel_create(program, "scale", &kernel));
  CHECK_OK(ck_buffer_create(queue, sizeof data, &buffer));
  right = kernel && buffer &&
          ck_buffer_write(queue, buffer, 0, sizeof data, data, CK_BLOCKING,
                          NULL) == CK_OK &&
          ck_kernel_set_buffer(kernel, 0, buffer) == CK_OK &&
          ck_queue_launch(queue, kernel, 1, &global, NULL, NULL) == CK_OK &&
          ck_buffer_read(queue, buffer, 0, sizeof data, data, CK_BLOCKING,
                         NULL) == CK_OK;
  for (int i = 0; right && i < 64; ++i)
    right = data[i] == factor * (i - 5);
  ck_kernel_destroy(kernel);
  ck_buffer_destroy(buffer);
  ck_program_destroy(program);
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  return right;
}

/* An entry copied over another key's name, and one whose binary lacks the
 * kernels stored with it, are misses: the program is built from source,
 * gives its own result, and its entry is stored again. */
static void test_program_entries(const char *root) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  long index = test_opencl_device(&set);
  if (index < 0) {
    ck_device_set_free(&set);
    return;
  }
  ck_queue *queue = NULL;
  CHECK_OK(ck_queue_create(&set.devices[index], &queue));
  char kernels[2048], twice[2048], thrice[2048], other[2048];
  snprintf(kernels, sizeof kernels, "%s/kernels", root);
  snprintf(twice, sizeof twice, "%s/program-cache-2", root);
  snprintf(thrice, sizeof thrice, "%s/program-cache-3", root);
  snprintf(other, sizeof other, "%s/program-cache-other", root);
  CHECK(mkdir(kernels, 0700) == 0);
  char path[4096];
  test_write_text(kernels, "scale.cl", scale_cl, path, sizeof path);
  test_write_text(kernels, "other.cl", other_cl, path, sizeof path);
  setenv("CLKIT_KERNEL_DIR", kernels, 1);
  /* clkit's cache on every device, PoCL's too. */
  setenv("CLKIT_CACHE", "1", 1);

  uint8_t key2[32], key3[32], other_key[32];
  char path2[4096], path3[4096];
  int from_cache = -1;
  CHECK(queue && scaled(queue, twice, 2, &from_cache) && from_cache == 0);
  CHECK(queue && scaled(queue, thrice, 3, &from_cache) && from_cache == 0);
  CHECK(queue && scaled(queue, thrice, 3, &from_cache) && from_cache == 1);
  CHECK(only_entry(twice, key2) && only_entry(thrice, key3));
  char hex[65];
  ck__hex(key2, 32, hex);
  snprintf(path2, sizeof path2, "%s/%s.ckbin", twice, hex);
  ck__hex(key3, 32, hex);
  snprintf(path3, sizeof path3, "%s/%s.ckbin", thrice, hex);

  /* FACTOR=2's entry under FACTOR=3's name: the same kernel, another
   * result; it must not be taken. */
  copy_file(path2, path3);
  CHECK_MSG(queue && scaled(queue, thrice, 3, &from_cache),
            "a swapped entry gave a wrong result");
  CHECK_MSG(from_cache == 0, "a swapped entry was loaded");
  setenv("CLKIT_CACHE_DIR", thrice, 1);
  void *payload = NULL;
  size_t size = 0;
  char *names = NULL;
  CHECK_MSG(ck__cache_load(key3, &payload, &size, &names) == CK_OK,
            "the swapped entry was not stored again");
  CHECK_MSG(names && strcmp(names, "scale") == 0, "kernels: %s",
            names ? names : "(none)");
  free(payload);
  free(names);
  names = NULL;

  /* An entry with FACTOR=3's key and kernel names, but the binary of a
   * program without the kernel scale. */
  ck_program *program = NULL;
  setenv("CLKIT_CACHE_DIR", other, 1);
  CHECK_OK(ck_program_build(queue, "other", NULL, &program));
  ck_program_destroy(program);
  CHECK(only_entry(other, other_key));
  payload = NULL;
  CHECK_OK(ck__cache_load(other_key, &payload, &size, &names));
  CHECK_MSG(names && strcmp(names, "other") == 0, "kernels: %s",
            names ? names : "(none)");
  setenv("CLKIT_CACHE_DIR", thrice, 1);
  CHECK_OK(ck__cache_store(key3, "scale", payload, size));
  free(payload);
  free(names);
  CHECK_MSG(queue && scaled(queue, thrice, 3, &from_cache),
            "an entry lacking its kernel failed the build");
  CHECK_MSG(from_cache == 0, "an entry lacking its kernel was loaded");
  CHECK(queue && scaled(queue, thrice, 3, &from_cache) && from_cache == 1);

  unsetenv("CLKIT_CACHE");
  unsetenv("CLKIT_KERNEL_DIR");
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  ck_queue_destroy(queue);
  ck_device_set_free(&set);
}

int main(void) {
  char root[1024];
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/clkit-test-cache-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(root)) {
    fprintf(stderr, "cannot create a temporary directory %s: %s\n", root,
            strerror(errno));
    return 1;
  }
  /* A nested, not yet existing directory checks that store creates parents. */
  snprintf(cache_dir, sizeof cache_dir, "%s/nested/cache", root);
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  unsetenv("CLKIT_CACHE");

  test_sha256_vectors();
  test_sha256_chunking();
  test_directory_resolution(root);
  test_store_and_load();
  test_corruption();
  test_disabled();
  test_query_and_clear(root);
  test_store_failure(root);
  test_stale_temporaries();
  test_concurrent_writers();
  test_key_binding();
  test_untrusted_entries();
  test_untrusted_directory(root);
  test_program_entries(root);

  remove_tree(root);
  CHECK(!file_exists(root));
  return CHECK_DONE();
}
