/*
 * test_dataset - labelled data sets (clkit/dataset.h): IDX files of every
 * element type, plain and gzip-compressed, with derived and explicit
 * labels files; CSV files with names or integer labels, headers,
 * comments, CRLF and blanks; tables of malformed IDX and CSV input; every
 * truncation of a small valid file of each format; unlabelled data
 * (labelled = 0 or decided per file, and an expected feature count);
 * splits, seeded random splits and normalisation; when installed, the
 * Fashion-MNIST test set; and a stream past the 1 GiB limit, refused
 * without reading twice the limit.
 *
 * Every file lives in a fresh directory made with mkdtemp and removed at
 * the end.
 */
#include "clkit/dataset.h"

#include "check.h"
#include "nn/nn_internal.h"
#include "test_support.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CK_HAVE_ZLIB
#include <zlib.h>
#endif

static char work_dir[512];

#ifdef CK_HAVE_ZLIB
static int write_gzip(const char *path, const void *bytes, size_t size) {
  gzFile file = gzopen(path, "wb");
  if (!file)
    return -1;
  int put = size ? gzwrite(file, bytes, (unsigned)size) : 0;
  int closed = gzclose(file);
  return put == (int)size && closed == Z_OK ? 0 : -1;
}
#endif

static int is_zeroed(const ck_dataset *dataset) {
  return dataset->rows == 0 && dataset->features == 0 && !dataset->values &&
         !dataset->labels && dataset->classes == 0 && !dataset->class_names;
}

/* An IDX file in out (room enough): header, then payload. */
static size_t idx_build(uint8_t type, unsigned dimensions,
                        const uint32_t *sizes, const void *payload,
                        size_t payload_size, uint8_t *out) {
  out[0] = 0;
  out[1] = 0;
  out[2] = type;
  out[3] = (uint8_t)dimensions;
  for (unsigned d = 0; d < dimensions; ++d)
    for (int i = 0; i < 4; ++i)
      out[4 + 4 * d + (unsigned)i] = (uint8_t)(sizes[d] >> (24 - 8 * i));
  memcpy(out + 4 + 4 * dimensions, payload, payload_size);
  return 4 + 4 * dimensions + payload_size;
}

static void put_be32(uint8_t *out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out[i] = (uint8_t)(value >> (24 - 8 * i));
}

static void put_be_float(uint8_t *out, float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  put_be32(out, bits);
}

static void put_be_double(uint8_t *out, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  put_be32(out, (uint32_t)(bits >> 32));
  put_be32(out + 4, (uint32_t)bits);
}

/* A load that must fail with status and a message holding needle (and
 * also needle2 unless it is NULL). */
static void expect_failure(const char *label, const char *path,
                           const ck_dataset_options *options,
                           ck_status expected, const char *needle,
                           const char *needle2) {
  ck_dataset dataset = {7, 7, NULL, NULL, 7, NULL};
  const char *message = "";
  ck_error_clear();
  ck_status status = ck_dataset_load(path, options, &dataset);
  ck_error_get_last(&message);
  CHECK_MSG(status == expected, "%s: status %d, expected %d (%s)", label,
            (int)status, (int)expected, message);
  CHECK_MSG(strstr(message, needle) != NULL, "%s: \"%s\" lacks \"%s\"", label,
            message, needle);
  if (needle2)
    CHECK_MSG(strstr(message, needle2) != NULL, "%s: \"%s\" lacks \"%s\"",
              label, message, needle2);
  CHECK_MSG(is_zeroed(&dataset), "%s: data set not zeroed after a failure",
            label);
  ck_dataset_free(&dataset);
}

/* Loads a CSV text written to a file; options may be NULL. */
static ck_status load_text(const char *name, const char *text,
                           const ck_dataset_options *options,
                           ck_dataset *dataset) {
  char path[600];
  test_path_in(work_dir, name, path, sizeof path);
  if (test_write_bytes(path, text, strlen(text)) != 0)
    return CK_ERROR_IO;
  return ck_dataset_load(path, options, dataset);
}

/* ---- IDX: good files ---------------------------------------------------- */

/* 3 images of 2 x 2 unsigned bytes, labels 2 0 1. */
static const uint8_t small_images[] = {
    0, 0, 8, 3,  0,  0,  0,  3,   0,   0,   0,   2,   0,   0,
    0, 2, 0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 255};
static const uint8_t small_labels[] = {0, 0, 8, 1, 0, 0, 0, 3, 2, 0, 1};

static void check_small(const char *label, const ck_dataset *dataset) {
  static const int32_t labels[] = {2, 0, 1};
  CHECK_MSG(dataset->rows == 3 && dataset->features == 4,
            "%s: %zu rows of %zu features", label, dataset->rows,
            dataset->features);
  CHECK_MSG(dataset->classes == 3 && dataset->class_names == NULL,
            "%s: %zu classes", label, dataset->classes);
  if (dataset->rows != 3 || dataset->features != 4)
    return;
  for (size_t i = 0; i < 12; ++i)
    CHECK_MSG(dataset->values[i] == (float)small_images[16 + i],
              "%s: value %zu is %g", label, i, (double)dataset->values[i]);
  for (size_t r = 0; r < 3; ++r)
    CHECK_MSG(dataset->labels[r] == labels[r], "%s: label %zu is %d", label, r,
              (int)dataset->labels[r]);
}

static void test_idx_good(void) {
  char images[600], labels[600], other[600];
  ck_dataset dataset;
  ck_dataset_options options;
  CHECK_OK(ck_dataset_options_init(&options));

  /* Plain files, the labels named after the images. */
  test_path_in(work_dir, "small-images-idx3-ubyte", images, sizeof images);
  test_path_in(work_dir, "small-labels-idx1-ubyte", labels, sizeof labels);
  CHECK(test_write_bytes(images, small_images, sizeof small_images) == 0);
  CHECK(test_write_bytes(labels, small_labels, sizeof small_labels) == 0);
  CHECK_OK(ck_dataset_load(images, NULL, &dataset));
  check_small("plain", &dataset);
  ck_dataset_free(&dataset);
  CHECK(is_zeroed(&dataset));

  /* An explicit labels file, for a name with nothing to derive from. */
  test_path_in(work_dir, "features.idx", other, sizeof other);
  CHECK(test_write_bytes(other, small_images, sizeof small_images) == 0);
  options.labels_path = labels;
  CHECK_OK(ck_dataset_load(other, &options, &dataset));
  check_small("explicit labels", &dataset);
  ck_dataset_free(&dataset);
  options.labels_path = NULL;
  expect_failure("no labels file", other, &options, CK_ERROR_INVALID_ARGUMENT,
                 "labels file", other);

  /* Only the first "images-idx3" of the base name is replaced, and never
   * one in the directory part. */
  char directory[600], nested[700], nested_labels[700];
  test_path_in(work_dir, "images-idx3-dir", directory, sizeof directory);
  CHECK(mkdir(directory, 0700) == 0);
  snprintf(nested, sizeof nested, "%s/a-images-idx3-images-idx3", directory);
  snprintf(nested_labels, sizeof nested_labels, "%s/a-labels-idx1-images-idx3",
           directory);
  CHECK(test_write_bytes(nested, small_images, sizeof small_images) == 0);
  CHECK(test_write_bytes(nested_labels, small_labels, sizeof small_labels) ==
        0);
  CHECK_OK(ck_dataset_load(nested, NULL, &dataset));
  check_small("nested", &dataset);
  ck_dataset_free(&dataset);

  /* classes_from with integer classes sets the class count. */
  ck_dataset reference = {1, 1, NULL, NULL, 10, NULL};
  options.classes_from = &reference;
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  CHECK(dataset.classes == 10 && dataset.rows == 3);
  ck_dataset_free(&dataset);
  options.classes_from = NULL;

#ifdef CK_HAVE_ZLIB
  /* gzip-compressed, both files. */
  test_path_in(work_dir, "gz-images-idx3-ubyte.gz", images, sizeof images);
  test_path_in(work_dir, "gz-labels-idx1-ubyte.gz", labels, sizeof labels);
  CHECK(write_gzip(images, small_images, sizeof small_images) == 0);
  CHECK(write_gzip(labels, small_labels, sizeof small_labels) == 0);
  CHECK_OK(ck_dataset_load(images, NULL, &dataset));
  check_small("gzip", &dataset);
  ck_dataset_free(&dataset);

  /* Plain images with compressed labels, and two gzip members. */
  test_path_in(work_dir, "small-images-idx3-ubyte", other, sizeof other);
  options.labels_path = labels;
  CHECK_OK(ck_dataset_load(other, &options, &dataset));
  check_small("mixed", &dataset);
  ck_dataset_free(&dataset);
  options.labels_path = NULL;

  char part[600];
  size_t first_size = 0, second_size = 0;
  test_path_in(work_dir, "part.gz", part, sizeof part);
  CHECK(write_gzip(part, small_images, 10) == 0);
  char *first = test_read_file(part, &first_size);
  CHECK(write_gzip(part, small_images + 10, sizeof small_images - 10) == 0);
  char *second = test_read_file(part, &second_size);
  CHECK(first && second);
  if (first && second) {
    char *joined = malloc(first_size + second_size);
    CHECK(joined != NULL);
    if (joined) {
      memcpy(joined, first, first_size);
      memcpy(joined + first_size, second, second_size);
      test_path_in(work_dir, "joined-images-idx3-ubyte.gz", images,
                   sizeof images);
      test_path_in(work_dir, "joined-labels-idx1-ubyte.gz", labels,
                   sizeof labels);
      CHECK(test_write_bytes(images, joined, first_size + second_size) == 0);
      CHECK(write_gzip(labels, small_labels, sizeof small_labels) == 0);
      CHECK_OK(ck_dataset_load(images, NULL, &dataset));
      check_small("two gzip members", &dataset);
      ck_dataset_free(&dataset);
      free(joined);
    }
  }
  free(first);
  free(second);
#else
  test_path_in(work_dir, "gz-images-idx3-ubyte.gz", images, sizeof images);
  static const uint8_t gzip_start[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  CHECK(test_write_bytes(images, gzip_start, sizeof gzip_start) == 0);
  expect_failure("gzip without zlib", images, NULL, CK_ERROR_UNSUPPORTED,
                 "without zlib", images);
#endif
}

/* Every element type: features of 2 rows x 3 (or 3 rows x 1), and
 * labels of int8, int16 and int32. */
static void test_idx_types(void) {
  char images[600], labels[600];
  uint8_t file[256], payload[128];
  ck_dataset dataset;
  test_path_in(work_dir, "types-images-idx3", images, sizeof images);
  test_path_in(work_dir, "types-labels-idx1", labels, sizeof labels);
  static const float expected[6] = {1.5f, -2.25f, 3e10f, 0.0f, 1e-3f, -7.0f};

  /* float32, 2-D; int32 labels. */
  uint32_t sizes2[2] = {2, 3}, rows2[1] = {2};
  for (int i = 0; i < 6; ++i)
    put_be_float(payload + 4 * i, expected[i]);
  CHECK(test_write_bytes(images, file,
                         idx_build(0x0D, 2, sizes2, payload, 24, file)) == 0);
  put_be32(payload, 1);
  put_be32(payload + 4, 3);
  CHECK(test_write_bytes(labels, file,
                         idx_build(0x0C, 1, rows2, payload, 8, file)) == 0);
  CHECK_OK(ck_dataset_load(images, NULL, &dataset));
  CHECK(dataset.rows == 2 && dataset.features == 3 && dataset.classes == 4);
  if (dataset.rows == 2 && dataset.features == 3) {
    for (int i = 0; i < 6; ++i)
      CHECK(dataset.values[i] == expected[i]);
    CHECK(dataset.labels[0] == 1 && dataset.labels[1] == 3);
  }
  ck_dataset_free(&dataset);

  /* float64, 1-D: one feature per row; int16 labels. */
  uint32_t rows3[1] = {3};
  static const double doubles[3] = {0.125, -1e30, 65504.0};
  for (int i = 0; i < 3; ++i)
    put_be_double(payload + 8 * i, doubles[i]);
  CHECK(test_write_bytes(images, file,
                         idx_build(0x0E, 1, rows3, payload, 24, file)) == 0);
  static const uint8_t int16_labels[] = {0, 5, 0, 0, 1, 0};
  CHECK(test_write_bytes(labels, file,
                         idx_build(0x0B, 1, rows3, int16_labels, 6, file)) ==
        0);
  CHECK_OK(ck_dataset_load(images, NULL, &dataset));
  CHECK(dataset.rows == 3 && dataset.features == 1 && dataset.classes == 257);
  if (dataset.rows == 3 && dataset.features == 1) {
    for (int i = 0; i < 3; ++i)
      CHECK(dataset.values[i] == (float)doubles[i]);
    CHECK(dataset.labels[0] == 5 && dataset.labels[1] == 0 &&
          dataset.labels[2] == 256);
  }
  ck_dataset_free(&dataset);

  /* Signed bytes, int16 and int32 features; int8 labels. */
  static const uint8_t int8_values[3] = {0x80, 0x7F, 0xFB};
  static const uint8_t int16_values[6] = {0xFE, 0xD4, 0x7F, 0xFF, 0, 1};
  static const uint8_t int32_values[12] = {0,    1,    0x11, 0x70, 0xFF, 0xFF,
                                           0xFF, 0xFF, 0x80, 0,    0,    0};
  static const float int8_expected[3] = {-128, 127, -5};
  static const float int16_expected[3] = {-300, 32767, 1};
  static const float int32_expected[3] = {70000, -1, -2147483648.0f};
  static const uint8_t int8_labels[] = {2, 1, 0};
  CHECK(test_write_bytes(labels, file,
                         idx_build(0x09, 1, rows3, int8_labels, 3, file)) == 0);
  const uint8_t *sources[3] = {int8_values, int16_values, int32_values};
  const float *targets[3] = {int8_expected, int16_expected, int32_expected};
  const uint8_t types[3] = {0x09, 0x0B, 0x0C};
  const size_t widths[3] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    CHECK(test_write_bytes(images, file,
                           idx_build(types[t], 1, rows3, sources[t],
                                     3 * widths[t], file)) == 0);
    CHECK_OK(ck_dataset_load(images, NULL, &dataset));
    CHECK(dataset.rows == 3 && dataset.features == 1 && dataset.classes == 3);
    if (dataset.rows == 3)
      for (int i = 0; i < 3; ++i) {
        CHECK_MSG(dataset.values[i] == targets[t][i],
                  "type 0x%02X, value %d: %g", types[t], i,
                  (double)dataset.values[i]);
        CHECK(dataset.labels[i] == int8_labels[i]);
      }
    ck_dataset_free(&dataset);
  }
}

/* ---- IDX: malformed input ----------------------------------------------- */

typedef struct idx_case {
  const char *label;
  const uint8_t *images; /* NULL: small_images */
  size_t images_size;
  const uint8_t *labels; /* NULL: small_labels */
  size_t labels_size;
  int no_labels; /* the labels file is missing */
  size_t class_limit;
  ck_status status;
  const char *needle;
  int blame_labels; /* the message names the labels file */
} idx_case;

static void run_idx_case(const idx_case *c) {
  char images[600], labels[600];
  test_path_in(work_dir, "case-images-idx3-ubyte", images, sizeof images);
  test_path_in(work_dir, "case-labels-idx1-ubyte", labels, sizeof labels);
  const uint8_t *image_bytes = c->images ? c->images : small_images;
  size_t image_size = c->images ? c->images_size : sizeof small_images;
  const uint8_t *label_bytes = c->labels ? c->labels : small_labels;
  size_t label_size = c->labels ? c->labels_size : sizeof small_labels;
  CHECK(test_write_bytes(images, image_bytes, image_size) == 0);
  unlink(labels);
  if (!c->no_labels)
    CHECK(test_write_bytes(labels, label_bytes, label_size) == 0);
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.class_limit = c->class_limit;
  expect_failure(c->label, images, &options, c->status, c->needle,
                 c->blame_labels ? labels : images);
}

#define BYTES(...)                                                             \
  (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

static void test_idx_malformed(void) {
  uint8_t longer[sizeof small_images + 1];
  memcpy(longer, small_images, sizeof small_images);
  longer[sizeof small_images] = 7;
  uint8_t nan_file[64];
  uint32_t sizes[2] = {3, 1};
  uint8_t nan_payload[12];
  put_be_float(nan_payload, 1.0f);
  put_be_float(nan_payload + 4, NAN);
  put_be_float(nan_payload + 8, 2.0f);
  size_t nan_size = idx_build(0x0D, 2, sizes, nan_payload, 12, nan_file);
  uint8_t big_double_file[64], big_payload[24];
  put_be_double(big_payload, 1.0);
  put_be_double(big_payload + 8, 2.0);
  put_be_double(big_payload + 16, 1e300);
  size_t big_size = idx_build(0x0E, 2, sizes, big_payload, 24, big_double_file);

  const idx_case cases[] = {
      {"wrong magic", BYTES(0, 1, 8, 1, 0, 0, 0, 3, 1, 2, 3), NULL, 0, 0, 0,
       CK_ERROR_PARSE, "bad magic", 0},
      {"unknown type", BYTES(0, 0, 7, 1, 0, 0, 0, 3, 1, 2, 3), NULL, 0, 0, 0,
       CK_ERROR_PARSE, "unknown IDX element type 0x07", 0},
      {"zero dimensions", BYTES(0, 0, 8, 0, 1, 2, 3), NULL, 0, 0, 0,
       CK_ERROR_PARSE, "0 dimensions", 0},
      {"zero size", BYTES(0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 0), NULL, 0, 0, 0,
       CK_ERROR_PARSE, "dimension 2 of 2 has size 0", 0},
      {"short magic", BYTES(0, 0, 8), NULL, 0, 0, 0, CK_ERROR_PARSE,
       "truncated IDX header", 0},
      {"truncated header", BYTES(0, 0, 8, 3, 0, 0, 0, 3, 0, 0), NULL, 0, 0, 0,
       CK_ERROR_PARSE, "truncated IDX header", 0},
      {"truncated payload", small_images, sizeof small_images - 5, NULL, 0, 0,
       0, CK_ERROR_PARSE, "record 2: truncated (file ends after 23 of 28", 0},
      {"empty payload", small_images, 16, NULL, 0, 0, 0, CK_ERROR_PARSE,
       "record 1: truncated", 0},
      {"trailing bytes", longer, sizeof longer, NULL, 0, 0, 0, CK_ERROR_PARSE,
       "1 trailing byte after the last record", 0},
      {"overflowing sizes",
       BYTES(0, 0, 0x0E, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
             0xFF, 0xFF, 0xFF, 0xFF, 1),
       NULL, 0, 0, 0, CK_ERROR_PARSE, "overflow", 0},
      {"NaN feature", nan_file, nan_size, NULL, 0, 0, 0, CK_ERROR_PARSE,
       "record 2: element 1: NaN", 0},
      {"float64 beyond float", big_double_file, big_size, NULL, 0, 0, 0,
       CK_ERROR_PARSE, "record 3: element 1: the value is out of range", 0},
      {"row mismatch", NULL, 0, BYTES(0, 0, 8, 1, 0, 0, 0, 4, 0, 1, 2, 0), 0, 0,
       CK_ERROR_PARSE, "4 labels, but the features file", 1},
      {"labels of 2 dimensions", NULL, 0,
       BYTES(0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 1, 2), 0, 0, CK_ERROR_PARSE,
       "1 dimension, but this one has 2", 1},
      {"float labels", NULL, 0,
       BYTES(0, 0, 0x0D, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0,
       0, CK_ERROR_PARSE, "need an integer type", 1},
      {"labels with a wrong magic", NULL, 0,
       BYTES(1, 0, 8, 1, 0, 0, 0, 3, 0, 1, 2), 0, 0, CK_ERROR_PARSE,
       "not an IDX file", 1},
      {"truncated labels", NULL, 0, BYTES(0, 0, 8, 1, 0, 0, 0, 3, 0, 1), 0, 0,
       CK_ERROR_PARSE, "record 3: truncated", 1},
      {"label at the class limit", NULL, 0, NULL, 0, 0, 2, CK_ERROR_PARSE,
       "record 1: label 2 is not below the class limit 2", 1},
      {"negative label", NULL, 0, BYTES(0, 0, 9, 1, 0, 0, 0, 3, 0, 0xFF, 1), 0,
       0, CK_ERROR_PARSE, "record 2: label -1 is negative", 1},
      {"label above 65535", NULL, 0,
       BYTES(0, 0, 0x0C, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0), 0,
       0, CK_ERROR_PARSE, "record 3: label 65536 is above 65535", 1},
      {"missing labels file", NULL, 0, NULL, 0, 1, 0, CK_ERROR_IO,
       "cannot read", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    run_idx_case(&cases[i]);

  /* classes_from: named classes do not fit integer labels; integer ones
   * bound them. */
  char images[600];
  test_path_in(work_dir, "case-images-idx3-ubyte", images, sizeof images);
  CHECK(test_write_bytes(images, small_images, sizeof small_images) == 0);
  char labels[600];
  test_path_in(work_dir, "case-labels-idx1-ubyte", labels, sizeof labels);
  CHECK(test_write_bytes(labels, small_labels, sizeof small_labels) == 0);
  char name_a[] = "a", name_b[] = "b", name_c[] = "c";
  char *names[] = {name_a, name_b, name_c};
  ck_dataset named = {1, 1, NULL, NULL, 3, names};
  ck_dataset integers = {1, 1, NULL, NULL, 2, NULL};
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.classes_from = &named;
  expect_failure("IDX with named classes_from", images, &options,
                 CK_ERROR_PARSE, "are names", labels);
  options.classes_from = &integers;
  expect_failure("IDX label beyond classes_from", images, &options,
                 CK_ERROR_PARSE, "record 1: label 2 is not one of the 2",
                 labels);

#ifdef CK_HAVE_ZLIB
  /* Broken gzip streams. */
  char gz[600];
  size_t gz_size = 0;
  test_path_in(work_dir, "broken-images-idx3-ubyte.gz", gz, sizeof gz);
  CHECK(write_gzip(gz, small_images, sizeof small_images) == 0);
  char *packed = test_read_file(gz, &gz_size);
  CHECK(packed != NULL && gz_size > 20);
  if (packed && gz_size > 20) {
    char *copy = malloc(gz_size + 4);
    CHECK(copy != NULL);
    if (copy) {
      CHECK(test_write_bytes(gz, packed, gz_size - 6) == 0);
      expect_failure("truncated gzip", gz, NULL, CK_ERROR_PARSE,
                     "truncated gzip stream", gz);
      CHECK(test_write_bytes(gz, packed, 12) == 0);
      expect_failure("gzip cut in its deflate data", gz, NULL, CK_ERROR_PARSE,
                     "truncated gzip stream", gz);
      memcpy(copy, packed, gz_size);
      copy[gz_size - 8] ^= 0x55; /* the CRC-32 of the trailer */
      CHECK(test_write_bytes(gz, copy, gz_size) == 0);
      expect_failure("gzip with a wrong CRC", gz, NULL, CK_ERROR_PARSE,
                     "corrupt gzip data", gz);
      memcpy(copy, packed, gz_size);
      copy[2] = 7; /* not deflate */
      CHECK(test_write_bytes(gz, copy, gz_size) == 0);
      expect_failure("gzip of an unknown method", gz, NULL, CK_ERROR_PARSE,
                     "corrupt gzip data", gz);
      memcpy(copy, packed, gz_size);
      memset(copy + 10, 0xFF, 6); /* a reserved block type */
      CHECK(test_write_bytes(gz, copy, gz_size) == 0);
      expect_failure("corrupt deflate data", gz, NULL, CK_ERROR_PARSE,
                     "corrupt gzip data", gz);
      memcpy(copy, packed, gz_size);
      memcpy(copy + gz_size, "junk", 4);
      CHECK(test_write_bytes(gz, copy, gz_size + 4) == 0);
      expect_failure("gzip with trailing garbage", gz, NULL, CK_ERROR_PARSE,
                     "trailing garbage", gz);
      free(copy);
    }
  }
  free(packed);
#endif

  /* Files that cannot be read at all. */
  char missing[600];
  test_path_in(work_dir, "no-such-file.csv", missing, sizeof missing);
  expect_failure("missing file", missing, NULL, CK_ERROR_IO, "cannot read",
                 missing);
  expect_failure("a directory", work_dir, NULL, CK_ERROR_IO, "directory",
                 work_dir);
  ck_dataset dataset = {0};
  CHECK(ck_dataset_load(NULL, NULL, &dataset) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(is_zeroed(&dataset));
  CHECK(ck_dataset_load(missing, NULL, NULL) == CK_ERROR_INVALID_ARGUMENT);
}

/* Every prefix of a valid file loads or fails with a message. */
static void check_prefixes(const char *label, const char *path,
                           const char *bytes, size_t size, int write_as_gzip,
                           const ck_dataset_options *options,
                           size_t *successes) {
  *successes = 0;
  for (size_t length = 0; length <= size; ++length) {
    int written;
#ifdef CK_HAVE_ZLIB
    written = write_as_gzip ? write_gzip(path, bytes, length)
                            : test_write_bytes(path, bytes, length);
#else
    (void)write_as_gzip;
    written = test_write_bytes(path, bytes, length);
#endif
    CHECK(written == 0);
    ck_dataset dataset = {7, 7, NULL, NULL, 7, NULL};
    ck_error_clear();
    ck_status status = ck_dataset_load(path, options, &dataset);
    if (status == CK_OK) {
      ++*successes;
      CHECK_MSG(dataset.rows >= 1 && dataset.features >= 1 && dataset.values &&
                    dataset.labels && dataset.classes >= 1,
                "%s, %zu bytes: loaded an odd data set", label, length);
      for (size_t r = 0; r < dataset.rows; ++r)
        CHECK(dataset.labels[r] >= 0 &&
              (size_t)dataset.labels[r] < dataset.classes);
    } else {
      const char *message = "";
      ck_error_get_last(&message);
      CHECK_MSG(status == CK_ERROR_PARSE && strstr(message, path),
                "%s, %zu bytes: status %d, \"%s\"", label, length, (int)status,
                message);
      CHECK_MSG(is_zeroed(&dataset), "%s, %zu bytes: not zeroed", label,
                length);
    }
    ck_dataset_free(&dataset);
  }
}

static void test_truncations(void) {
  char images[600], labels[600];
  size_t successes = 0;
  test_path_in(work_dir, "cut-images-idx3-ubyte", images, sizeof images);
  test_path_in(work_dir, "cut-labels-idx1-ubyte", labels, sizeof labels);
  CHECK(test_write_bytes(labels, small_labels, sizeof small_labels) == 0);
  check_prefixes("IDX images", images, (const char *)small_images,
                 sizeof small_images, 0, NULL, &successes);
  CHECK(successes == 1);

  /* The labels cut, the images whole. */
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.labels_path = labels;
  CHECK(test_write_bytes(images, small_images, sizeof small_images) == 0);
  char cut_labels[600];
  test_path_in(work_dir, "cut-labels-only", cut_labels, sizeof cut_labels);
  options.labels_path = cut_labels;
  for (size_t length = 0; length <= sizeof small_labels; ++length) {
    CHECK(test_write_bytes(cut_labels, small_labels, length) == 0);
    ck_dataset dataset;
    ck_status status = ck_dataset_load(images, &options, &dataset);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(length == sizeof small_labels
                  ? status == CK_OK
                  : status == CK_ERROR_PARSE && strstr(message, cut_labels),
              "labels of %zu bytes: status %d \"%s\"", length, (int)status,
              status ? message : "");
    ck_dataset_free(&dataset);
  }

#ifdef CK_HAVE_ZLIB
  /* Every prefix of a gzip-compressed IDX file. */
  char gz[600], gz_labels[600];
  size_t gz_size = 0;
  test_path_in(work_dir, "cutgz-images-idx3-ubyte.gz", gz, sizeof gz);
  test_path_in(work_dir, "cutgz-labels-idx1-ubyte.gz", gz_labels,
               sizeof gz_labels);
  CHECK(write_gzip(gz_labels, small_labels, sizeof small_labels) == 0);
  CHECK(write_gzip(gz, small_images, sizeof small_images) == 0);
  char *packed = test_read_file(gz, &gz_size);
  CHECK(packed != NULL);
  if (packed) {
    check_prefixes("gzip IDX", gz, packed, gz_size, 0, NULL, &successes);
    CHECK(successes == 1);
    free(packed);
  }
#endif

  /* Every prefix of a CSV file. */
  static const char csv[] = "# a comment\nname,x,y\nB, 1.5,2\r\nA,3,4e1\n\n"
                            "C,-1,0.25\n  # more\nA,7,8";
  char path[600];
  test_path_in(work_dir, "cut.csv", path, sizeof path);
  check_prefixes("CSV", path, csv, sizeof csv - 1, 0, NULL, &successes);
  CHECK(successes > 10);
#ifdef CK_HAVE_ZLIB
  test_path_in(work_dir, "cut.csv.gz", path, sizeof path);
  check_prefixes("gzip CSV", path, csv, sizeof csv - 1, 1, NULL, &successes);
  CHECK(successes > 10);
#endif
}

/* ---- CSV: good files ---------------------------------------------------- */

static void check_values(const char *label, const ck_dataset *dataset,
                         const float *values, size_t count) {
  if (dataset->rows * dataset->features != count)
    return;
  for (size_t i = 0; i < count; ++i)
    CHECK_MSG(dataset->values[i] == values[i], "%s: value %zu is %g, not %g",
              label, i, (double)dataset->values[i], (double)values[i]);
}

static void check_labels(const char *label, const ck_dataset *dataset,
                         const int32_t *labels, size_t count) {
  CHECK_MSG(dataset->rows == count, "%s: %zu rows, expected %zu", label,
            dataset->rows, count);
  if (dataset->rows != count)
    return;
  for (size_t i = 0; i < count; ++i)
    CHECK_MSG(dataset->labels[i] == labels[i], "%s: label %zu is %d, not %d",
              label, i, (int)dataset->labels[i], (int)labels[i]);
}

static void check_name(const ck_dataset *dataset, size_t k, const char *name) {
  char buffer[CK_DATASET_MAX_NAME + 1];
  CHECK_OK(ck_dataset_get_class_name(dataset, k, buffer, sizeof buffer));
  CHECK_MSG(strcmp(buffer, name) == 0, "class %zu is \"%s\", not \"%s\"", k,
            buffer, name);
}

static void test_csv_good(void) {
  ck_dataset dataset, train;
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  CHECK(options.label_column == 0 && options.header == -1 &&
        options.class_limit == 0 && !options.classes_from &&
        !options.labels_path && options.labelled == 1 && options.features == 0);

  /* Letters first, a header detected: classes in byte order. */
  CHECK_OK(load_text("letters.csv", "label,a,b\nB,1,2\nA,3,4\nZ,5,6\nA,7,8\n",
                     NULL, &dataset));
  {
    static const float values[] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const int32_t labels[] = {1, 0, 2, 0};
    CHECK(dataset.features == 2 && dataset.classes == 3);
    check_values("letters", &dataset, values, 8);
    check_labels("letters", &dataset, labels, 4);
    CHECK(dataset.class_names != NULL);
    if (dataset.class_names) {
      check_name(&dataset, 0, "A");
      check_name(&dataset, 1, "B");
      check_name(&dataset, 2, "Z");
    }
  }
  ck_dataset_free(&dataset);

  /* A .. Z, written in reverse, give 0 .. 25. */
  char text[2048];
  size_t used = 0;
  for (int letter = 'Z'; letter >= 'A'; --letter)
    used += (size_t)snprintf(text + used, sizeof text - used, "%c,%d\n", letter,
                             letter);
  CHECK_OK(load_text("alphabet.csv", text, NULL, &dataset));
  CHECK(dataset.rows == 26 && dataset.classes == 26 && dataset.features == 1);
  for (size_t r = 0; r < dataset.rows && dataset.rows == 26; ++r) {
    CHECK(dataset.labels[r] == (int32_t)(25 - r));
    CHECK(dataset.values[r] == (float)('Z' - r));
  }
  if (dataset.class_names && dataset.classes == 26) {
    check_name(&dataset, 0, "A");
    check_name(&dataset, 25, "Z");
  }
  ck_dataset_free(&dataset);

  /* Integers last: no names, classes = largest + 1. */
  options.label_column = -1;
  CHECK_OK(load_text("last.csv", "1.5,2,3\n4,-5e-1,0\n", &options, &dataset));
  {
    static const float values[] = {1.5f, 2, 4, -0.5f};
    static const int32_t labels[] = {3, 0};
    CHECK(dataset.features == 2 && dataset.classes == 4 &&
          dataset.class_names == NULL);
    check_values("integers last", &dataset, values, 4);
    check_labels("integers last", &dataset, labels, 2);
    check_name(&dataset, 3, "3");
  }
  ck_dataset_free(&dataset);

  /* A middle label column, a header with an odd label field. */
  options.label_column = 1;
  CHECK_OK(
      load_text("middle.csv", "x,7,y\n1,+2,3\n4,0,6\n", &options, &dataset));
  {
    static const float values[] = {1, 3, 4, 6};
    static const int32_t labels[] = {2, 0};
    check_values("middle", &dataset, values, 4);
    check_labels("middle", &dataset, labels, 2);
  }
  ck_dataset_free(&dataset);
  options.label_column = 0;

  /* Line 1 is data when its features are numbers, whatever its label. */
  CHECK_OK(load_text("nohead.csv", "id,1,2\nok,3,4\n", NULL, &dataset));
  CHECK(dataset.rows == 2 && dataset.classes == 2);
  ck_dataset_free(&dataset);

  /* Explicit header flags. */
  options.header = 1;
  CHECK_OK(
      load_text("forced.csv", "1,2,3\n4,5,6\n7,8,9\n", &options, &dataset));
  {
    static const float values[] = {5, 6, 8, 9};
    static const int32_t labels[] = {4, 7};
    check_values("header 1", &dataset, values, 4);
    check_labels("header 1", &dataset, labels, 2);
  }
  ck_dataset_free(&dataset);
  options.header = 0;
  CHECK_OK(load_text("forced.csv", "1,2,3\n4,5,6\n", &options, &dataset));
  CHECK(dataset.rows == 2 && dataset.classes == 5);
  ck_dataset_free(&dataset);
  options.header = -1;

  /* A CSV row carries its label: a labels file is refused, not dropped,
   * unless the rows are read unlabelled (which ignores it, as for IDX). */
  options.labels_path = "letters-labels-idx1-ubyte";
  {
    char path[600];
    const char *message = "";
    test_path_in(work_dir, "letters.csv", path, sizeof path);
    ck_dataset untouched = {7, 7, NULL, NULL, 7, NULL};
    CHECK(ck_dataset_load(path, &options, &untouched) ==
          CK_ERROR_INVALID_ARGUMENT);
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "is CSV, whose rows carry their labels") &&
                  strstr(message, "letters-labels-idx1-ubyte"),
              "labels file beside CSV: %s", message);
    CHECK(is_zeroed(&untouched));
    options.labelled = 0;
    CHECK_OK(load_text("forced.csv", "1,2,3\n4,5,6\n", &options, &dataset));
    CHECK(dataset.rows == 2 && dataset.features == 3 && dataset.classes == 0);
    ck_dataset_free(&dataset);
    options.labelled = 1;
  }
  options.labels_path = NULL;

  /* Comments, blank lines, CRLF, blanks around fields, a BOM, a comment
   * before the header. */
  CHECK_OK(load_text("messy.csv",
                     "\xEF\xBB\xBF# made by hand\r\n\r\n  kind , a,\tb\r\n"
                     "  cat ,\t1.0 , 2 \r\n# middle\r\n\t\r\ndog,3,4\r\n"
                     "\r\n\n\n",
                     NULL, &dataset));
  {
    static const float values[] = {1, 2, 3, 4};
    static const int32_t labels[] = {0, 1};
    check_values("messy", &dataset, values, 4);
    check_labels("messy", &dataset, labels, 2);
    if (dataset.class_names) {
      check_name(&dataset, 0, "cat");
      check_name(&dataset, 1, "dog");
    }
  }
  ck_dataset_free(&dataset);

  /* No final newline. */
  CHECK_OK(load_text("unended.csv", "0,1,2\n1,3,4", NULL, &dataset));
  {
    static const float values[] = {1, 2, 3, 4};
    check_values("unended", &dataset, values, 4);
    CHECK(dataset.rows == 2);
  }
  ck_dataset_free(&dataset);

  /* Numbers in the C locale whatever the process's. */
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") ||
      setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
    CHECK_OK(load_text("locale.csv", "A,1.5,2\nB,2.25,3\n", NULL, &dataset));
    CHECK(dataset.rows == 2 && dataset.values && dataset.values[0] == 1.5f &&
          dataset.values[2] == 2.25f);
    ck_dataset_free(&dataset);
    setlocale(LC_NUMERIC, "C");
  } else {
    printf("no German or French locale: C-locale numbers under another "
           "locale not tested\n");
  }

  /* classes_from: a test file numbered like its training file. */
  CHECK_OK(
      load_text("train.csv", "cat,1\nemu,2\ndog,3\ncat,4\n", NULL, &train));
  CHECK(train.classes == 3);
  options.classes_from = &train;
  CHECK_OK(load_text("test.csv", "dog,1\nemu,2\ndog,3\n", &options, &dataset));
  {
    static const int32_t labels[] = {1, 2, 1};
    check_labels("classes_from", &dataset, labels, 3);
    CHECK(dataset.classes == 3 && dataset.class_names &&
          dataset.class_names != train.class_names);
    if (dataset.class_names) {
      check_name(&dataset, 0, "cat");
      check_name(&dataset, 2, "emu");
    }
  }
  ck_dataset_free(&dataset);
  ck_dataset_free(&train);

  /* Names that include integers: a test file of only integer-looking
   * labels is read by name. */
  options.classes_from = NULL;
  CHECK_OK(load_text("mixed.csv", "1,0\n2,0\nx,0\n", NULL, &train));
  CHECK(train.classes == 3 && train.class_names != NULL);
  options.classes_from = &train;
  CHECK_OK(load_text("mixed-test.csv", "2,5\n1,6\n", &options, &dataset));
  {
    static const int32_t labels[] = {1, 0};
    check_labels("integer names", &dataset, labels, 2);
  }
  ck_dataset_free(&dataset);
  ck_dataset_free(&train);

  /* Integer classes_from: its class count. */
  CHECK_OK(load_text("train-int.csv", "4,1\n0,2\n", NULL, &train));
  CHECK(train.classes == 5 && train.class_names == NULL);
  options.classes_from = &train;
  CHECK_OK(load_text("test-int.csv", "1,1\n", &options, &dataset));
  CHECK(dataset.classes == 5 && dataset.rows == 1 && dataset.labels &&
        dataset.labels[0] == 1);
  ck_dataset_free(&dataset);
  ck_dataset_free(&train);
  options.classes_from = NULL;

  /* A name of exactly the longest length, and a class limit met. */
  char name[CK_DATASET_MAX_NAME + 1];
  memset(name, 'n', CK_DATASET_MAX_NAME);
  name[CK_DATASET_MAX_NAME] = '\0';
  snprintf(text, sizeof text, "%s,1\nA,2\n", name);
  options.class_limit = 2;
  CHECK_OK(load_text("long.csv", text, &options, &dataset));
  CHECK(dataset.classes == 2);
  if (dataset.class_names)
    check_name(&dataset, 1, name);
  ck_dataset_free(&dataset);
  options.class_limit = 0;

#ifdef CK_HAVE_ZLIB
  char gz[600];
  static const char small_csv[] = "A,1,2\nB,3,4\n";
  test_path_in(work_dir, "small.csv.gz", gz, sizeof gz);
  CHECK(write_gzip(gz, small_csv, sizeof small_csv - 1) == 0);
  CHECK_OK(ck_dataset_load(gz, NULL, &dataset));
  CHECK(dataset.rows == 2 && dataset.features == 2 && dataset.classes == 2);
  ck_dataset_free(&dataset);
#endif
}

/* ---- CSV: malformed input ----------------------------------------------- */

typedef struct csv_case {
  const char *label;
  const char *content;
  int label_column;
  size_t class_limit;
  int classes_from; /* 0 none, 1 names {A, B}, 2 integers (3 classes) */
  ck_status status;
  const char *needle;
} csv_case;

static void test_csv_malformed(void) {
  char overlong[256];
  memset(overlong, 'x', CK_DATASET_MAX_NAME + 1);
  snprintf(overlong + CK_DATASET_MAX_NAME + 1,
           sizeof overlong - CK_DATASET_MAX_NAME - 1, ",1\n");
  const csv_case cases[] = {
      {"empty file", "", 0, 0, 0, CK_ERROR_PARSE, "no data rows"},
      {"header only", "label,a,b\n", 0, 0, 0, CK_ERROR_PARSE, "no data rows"},
      {"comments and blanks", "# x\n\n  \n#y", 0, 0, 0, CK_ERROR_PARSE,
       "no data rows"},
      {"ragged row", "A,1,2\nB,3\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: 2 fields, but line 1 has 3"},
      {"ragged after a header", "# c\nh,a,b,c,d\nA,1,2,3,4\nB,1,2,3,4,5\n", 0,
       0, 0, CK_ERROR_PARSE, ":4: 6 fields, but line 2 has 5"},
      {"not a number", "A,1,2\nB,1,2\nC,x,4\n", 0, 0, 0, CK_ERROR_PARSE,
       ":3: field 2: 'x' is not a number"},
      {"trailing garbage", "A,1,2\nB,3,4.5.6\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 3: '4.5.6' is not a number"},
      {"hexadecimal", "A,1,2\nB,0x10,4\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 2: '0x10' is not a number"},
      {"nan", "A,1,nan\n", 0, 0, 0, CK_ERROR_PARSE,
       ":1: field 3: 'nan' is not finite"},
      {"inf", "A,1,2\nB,-inf,3\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 2: '-inf' is not finite"},
      {"beyond float", "A,1,2\nB,1e39,3\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 2: '1e39' is out of range"},
      /* Just past FLT_MAX (3.40282e38): it would become inf as a float. */
      {"just beyond float", "A,1,2\nB,3.5e38,3\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 2: '3.5e38' is out of range"},
      {"just beyond float, negative", "A,1,2\nB,1,-3.5e38\n", 0, 0, 0,
       CK_ERROR_PARSE, ":2: field 3: '-3.5e38' is out of range"},
      {"beyond double", "A,1,2\nB,1e999,3\n", 0, 0, 0, CK_ERROR_PARSE,
       "out of range"},
      {"empty field", "A,1,2\nB,,2\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 2 is empty"},
      {"label column out of range", "A,1,2\nB,3,4\n", 3, 0, 0, CK_ERROR_PARSE,
       ":1: the label column 3"},
      {"one field", "\nA\nB\n", 0, 0, 0, CK_ERROR_PARSE, ":2: 1 field"},
      {"empty label", "A,1,2\n ,3,4\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 1: the label is empty"},
      {"control character in a label",
       "A,1,2\nB\x1b"
       "C,3,4\n",
       0, 0, 0, CK_ERROR_PARSE,
       ":2: field 1: the label holds a control character"},
      /* Line 1 with numbers is data, not a header, even with a bad field. */
      {"bad number on line 1", "A,1,x,3\nB,4,5,6\n", 0, 0, 0, CK_ERROR_PARSE,
       ":1: field 3: 'x' is not a number"},
      {"empty last label", "1,2,A\n3,4,\n", -1, 0, 0, CK_ERROR_PARSE,
       ":2: field 3: the label is empty"},
      {"label not in classes_from", "A,1\nB,2\nC,3\n", 0, 0, 1, CK_ERROR_PARSE,
       ":3: field 1: label 'C' is not one of the 2 classes"},
      {"name with integer classes_from", "1,1\nA,2\n", 0, 0, 2, CK_ERROR_PARSE,
       ":2: field 1: label 'A' is a name"},
      {"integer beyond classes_from", "1,1\n3,2\n", 0, 0, 2, CK_ERROR_PARSE,
       ":2: field 1: label 3 is not one of the 3 classes"},
      {"integer at the class limit", "3,1\n10,2\n", 0, 10, 0, CK_ERROR_PARSE,
       ":2: field 1: label 10 is not below the class limit 10"},
      {"too many names", "A,1\nB,2\nA,3\nC,4\n", 0, 2, 0, CK_ERROR_PARSE,
       ":4: field 1: label 'C' is distinct label number 3 in file order, but "
       "at most 2"},
      {"negative label", "0,1\n-1,2\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 1: label '-1' is negative"},
      {"label above 65535", "0,1\n65536,2\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: field 1: label '65536' is above 65535"},
      {"huge label", "0,1\n99999999999999999999,2\n", 0, 0, 0, CK_ERROR_PARSE,
       "is above 65535"},
      {"overlong name", overlong, 0, 0, 0, CK_ERROR_PARSE,
       ":1: field 1: the label 'xxxx"},
      {"NUL byte", "A,1,2\nB,\0,3\n", 0, 0, 0, CK_ERROR_PARSE,
       ":2: the line holds a NUL byte"},
      {"bad label column", "A,1\n", -2, 0, 0, CK_ERROR_INVALID_ARGUMENT,
       "label_column -2"},
  };
  char path[600];
  char name_a[] = "A", name_b[] = "B";
  char *names[] = {name_a, name_b};
  ck_dataset named = {1, 1, NULL, NULL, 2, names};
  ck_dataset integers = {1, 1, NULL, NULL, 3, NULL};
  test_path_in(work_dir, "bad.csv", path, sizeof path);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const csv_case *c = &cases[i];
    /* The NUL case is written with its true length. */
    size_t size = strlen(c->content);
    if (strcmp(c->label, "NUL byte") == 0)
      size = sizeof "A,1,2\nB,\0,3\n" - 1;
    CHECK(test_write_bytes(path, c->content, size) == 0);
    ck_dataset_options options;
    ck_dataset_options_init(&options);
    options.label_column = c->label_column;
    options.class_limit = c->class_limit;
    options.classes_from = c->classes_from == 1   ? &named
                           : c->classes_from == 2 ? &integers
                                                  : NULL;
    expect_failure(c->label, path, &options, c->status, c->needle,
                   c->status == CK_ERROR_PARSE ? path : NULL);
  }

  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.header = 2;
  expect_failure("bad header flag", path, &options, CK_ERROR_INVALID_ARGUMENT,
                 "header 2", NULL);
  ck_dataset_options_init(&options);
  ck_dataset empty = {0};
  options.classes_from = &empty;
  expect_failure("classes_from without classes", path, &options,
                 CK_ERROR_INVALID_ARGUMENT, "classes_from", NULL);
}

/* ---- unlabelled data ---------------------------------------------------- */

/* An unlabelled data set of rows x features: labels all 0, no classes. */
static void check_unlabelled(const char *label, const ck_dataset *dataset,
                             size_t rows, size_t features) {
  CHECK_MSG(dataset->rows == rows && dataset->features == features,
            "%s: %zu rows of %zu features, expected %zu of %zu", label,
            dataset->rows, dataset->features, rows, features);
  CHECK_MSG(dataset->classes == 0 && dataset->class_names == NULL,
            "%s: %zu classes", label, dataset->classes);
  CHECK_MSG(dataset->values && dataset->labels, "%s: values or labels NULL",
            label);
  if (dataset->rows != rows || !dataset->labels)
    return;
  for (size_t r = 0; r < rows; ++r)
    CHECK_MSG(dataset->labels[r] == 0, "%s: label %zu is %d", label, r,
              (int)dataset->labels[r]);
}

static void test_unlabelled_csv(void) {
  ck_dataset dataset;
  ck_dataset_options options;
  char name_a[] = "A", name_b[] = "B";
  char *names[] = {name_a, name_b};
  ck_dataset named = {1, 1, NULL, NULL, 2, names};
  ck_dataset empty = {0};

  /* labelled = 0: every field a feature; label_column, class_limit and
   * classes_from are ignored. */
  ck_dataset_options_init(&options);
  options.labelled = 0;
  options.label_column = -5;
  options.class_limit = 1;
  options.classes_from = &named;
  CHECK_OK(load_text("plain.csv", "1,2,3\n4,5,6\n", &options, &dataset));
  {
    static const float values[] = {1, 2, 3, 4, 5, 6};
    check_unlabelled("unlabelled", &dataset, 2, 3);
    check_values("unlabelled", &dataset, values, 6);
  }
  char buffer[CK_DATASET_MAX_NAME + 1];
  CHECK(ck_dataset_get_class_name(&dataset, 0, buffer, sizeof buffer) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_dataset_free(&dataset);
  options.classes_from = &empty;
  CHECK_OK(load_text("plain.csv", "1,2,3\n4,5,6\n", &options, &dataset));
  check_unlabelled("empty classes_from ignored", &dataset, 2, 3);
  ck_dataset_free(&dataset);
  options.classes_from = NULL;
  options.label_column = 0;
  options.class_limit = 0;

  /* One field per row. */
  CHECK_OK(load_text("column.csv", "# one\n7\n\n-8.5\n9", &options, &dataset));
  {
    static const float values[] = {7, -8.5f, 9};
    check_unlabelled("one column", &dataset, 3, 1);
    check_values("one column", &dataset, values, 3);
  }
  ck_dataset_free(&dataset);

  /* A header, detected from every field, the first included (a field a
   * labelled file's header test would not look at)... */
  CHECK_OK(load_text("headed.csv", "name,size,weight\n3,4,5\n6,7,8\n", &options,
                     &dataset));
  {
    static const float values[] = {3, 4, 5, 6, 7, 8};
    check_unlabelled("header", &dataset, 2, 3);
    check_values("header", &dataset, values, 6);
  }
  ck_dataset_free(&dataset);
  /* ... but a first line with numbers is data, and its text an error,
   * rather than a row lost as a header. */
  CHECK(load_text("headed.csv", "name,1,2\n3,4,5\n6,7,8\n", &options,
                  &dataset) == CK_ERROR_PARSE);
  {
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, ":1: field 1: 'name' is not a number"), "%s",
              message);
  }
  ck_dataset_free(&dataset);
  CHECK_OK(load_text("headed.csv", "\xEF\xBB\xBFx,y\r\n1,2\r\n", &options,
                     &dataset));
  check_unlabelled("header, CRLF", &dataset, 1, 2);
  ck_dataset_free(&dataset);
  options.header = 0;
  CHECK_OK(load_text("nohead.csv", "1,2\n3,4\n", &options, &dataset));
  check_unlabelled("header 0", &dataset, 2, 2);
  ck_dataset_free(&dataset);
  options.header = -1;

  /* The expected feature count met. */
  options.features = 3;
  CHECK_OK(load_text("plain.csv", "1,2,3\n4,5,6\n", &options, &dataset));
  check_unlabelled("features 3", &dataset, 2, 3);
  ck_dataset_free(&dataset);

  /* labelled = -1: features + 1 fields are labelled, features fields not. */
  options.labelled = -1;
  options.features = 2;
  CHECK_OK(load_text("auto.csv", "B,1,2\nA,3,4\n", &options, &dataset));
  {
    static const float values[] = {1, 2, 3, 4};
    static const int32_t labels[] = {1, 0};
    CHECK(dataset.features == 2 && dataset.classes == 2 &&
          dataset.class_names != NULL);
    check_values("auto, labelled", &dataset, values, 4);
    check_labels("auto, labelled", &dataset, labels, 2);
  }
  ck_dataset_free(&dataset);
  CHECK_OK(load_text("auto.csv", "# c\nx,y\n1,2\n3,4\n", &options, &dataset));
  {
    static const float values[] = {1, 2, 3, 4};
    check_unlabelled("auto, unlabelled", &dataset, 2, 2);
    check_values("auto, unlabelled", &dataset, values, 4);
  }
  ck_dataset_free(&dataset);
  CHECK_OK(load_text("auto.csv", "kind,a,b\ncat,1,2\ndog,3,4\n", &options,
                     &dataset));
  CHECK(dataset.rows == 2 && dataset.features == 2 && dataset.classes == 2);
  ck_dataset_free(&dataset);
  options.label_column = -1;
  CHECK_OK(load_text("auto.csv", "1,2,4\n3,4,0\n", &options, &dataset));
  {
    static const float values[] = {1, 2, 3, 4};
    static const int32_t labels[] = {4, 0};
    CHECK(dataset.classes == 5 && dataset.class_names == NULL);
    check_values("auto, label last", &dataset, values, 4);
    check_labels("auto, label last", &dataset, labels, 2);
  }
  ck_dataset_free(&dataset);
  options.label_column = 0;
  /* classes_from and class_limit apply when the file has labels, and not
   * when it has none. */
  options.classes_from = &named;
  options.class_limit = 1;
  CHECK_OK(load_text("auto.csv", "1,2\n", &options, &dataset));
  check_unlabelled("auto, classes_from ignored", &dataset, 1, 2);
  ck_dataset_free(&dataset);
  char path[600];
  test_path_in(work_dir, "auto.csv", path, sizeof path);
  CHECK(test_write_bytes(path, "B,1,2\n", 6) == 0);
  expect_failure("auto, labelled, class limit", path, &options, CK_ERROR_PARSE,
                 "class 1, not below the class limit 1", path);
  options.classes_from = NULL;
  options.class_limit = 0;

  /* Errors. */
  CHECK(test_write_bytes(path, "# c\n1,2,3,4\n5,6,7,8\n", 20) == 0);
  expect_failure("auto, wrong count", path, &options, CK_ERROR_PARSE,
                 ":2: 4 fields, but the model takes 2 features (or 2 + 1 with "
                 "a label)",
                 path);
  options.features = 1;
  CHECK(test_write_bytes(path, "1,2,3\n", 6) == 0);
  expect_failure("auto, wrong count for 1", path, &options, CK_ERROR_PARSE,
                 ":1: 3 fields, but the model takes 1 feature (or 1 + 1", path);
  options.features = 0;
  expect_failure("auto without features", path, &options,
                 CK_ERROR_INVALID_ARGUMENT,
                 "labelled = -1 needs the expected feature count", path);
  options.labelled = 2;
  expect_failure("labelled 2", path, &options, CK_ERROR_INVALID_ARGUMENT,
                 "labelled 2", NULL);
  options.labelled = 0;
  options.features = 2;
  expect_failure("unlabelled, wrong count", path, &options, CK_ERROR_PARSE,
                 ":1: 3 features, but 2 are expected", path);
  options.labelled = 1;
  options.features = 3;
  expect_failure("labelled, wrong count", path, &options, CK_ERROR_PARSE,
                 ":1: 2 features, but 3 are expected", path);
  options.features = 1;
  CHECK(test_write_bytes(path, "h,a,b\nA,1,2\n", 12) == 0);
  expect_failure("labelled, wrong count after a header", path, &options,
                 CK_ERROR_PARSE, ":1: 2 features, but 1 is expected", path);
  options.labelled = 0;
  options.features = 0;
  CHECK(test_write_bytes(path, "1,2\n3\n", 6) == 0);
  expect_failure("unlabelled, ragged", path, &options, CK_ERROR_PARSE,
                 ":2: 1 field, but line 1 has 2", path);
  CHECK(test_write_bytes(path, "1,2\n3,x\n", 8) == 0);
  expect_failure("unlabelled, not a number", path, &options, CK_ERROR_PARSE,
                 ":2: field 2: 'x' is not a number", path);
  CHECK(test_write_bytes(path, "x,y\n", 4) == 0);
  expect_failure("unlabelled, header only", path, &options, CK_ERROR_PARSE,
                 "no data rows", path);
}

static void test_unlabelled_idx(void) {
  char images[600], labels[600], other[600], other_labels[600];
  ck_dataset dataset;
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  test_path_in(work_dir, "unl-images-idx3-ubyte", images, sizeof images);
  test_path_in(work_dir, "unl-labels-idx1-ubyte", labels, sizeof labels);
  CHECK(test_write_bytes(images, small_images, sizeof small_images) == 0);
  unlink(labels);

  /* labelled = 0: no labels file is opened, not even a given one. */
  options.labelled = 0;
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  check_unlabelled("IDX unlabelled", &dataset, 3, 4);
  for (size_t i = 0; i < 12 && dataset.rows == 3 && dataset.features == 4; ++i)
    CHECK(dataset.values[i] == (float)small_images[16 + i]);
  ck_dataset_free(&dataset);
  test_path_in(work_dir, "no-such-labels", other_labels, sizeof other_labels);
  options.labels_path = other_labels;
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  check_unlabelled("IDX unlabelled, labels_path ignored", &dataset, 3, 4);
  ck_dataset_free(&dataset);
  options.labels_path = NULL;
  test_path_in(work_dir, "unl-features.idx", other, sizeof other);
  CHECK(test_write_bytes(other, small_images, sizeof small_images) == 0);
  CHECK_OK(ck_dataset_load(other, &options, &dataset));
  check_unlabelled("IDX unlabelled, underived name", &dataset, 3, 4);
  ck_dataset_free(&dataset);

  /* labelled = -1: the derived labels file decides. */
  options.labelled = -1;
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  check_unlabelled("IDX auto, no labels file", &dataset, 3, 4);
  ck_dataset_free(&dataset);
  CHECK_OK(ck_dataset_load(other, &options, &dataset));
  check_unlabelled("IDX auto, underived name", &dataset, 3, 4);
  ck_dataset_free(&dataset);
  CHECK(test_write_bytes(labels, small_labels, sizeof small_labels) == 0);
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  check_small("IDX auto, labels file", &dataset);
  ck_dataset_free(&dataset);
  CHECK(test_write_bytes(labels, small_labels, sizeof small_labels - 1) == 0);
  expect_failure("IDX auto, malformed labels file", images, &options,
                 CK_ERROR_PARSE, "record 3: truncated", labels);
  unlink(labels);
  /* A given labels file must exist, and is used. */
  options.labels_path = other_labels;
  expect_failure("IDX auto, missing given labels file", images, &options,
                 CK_ERROR_IO, "cannot read", other_labels);
  CHECK(test_write_bytes(other_labels, small_labels, sizeof small_labels) == 0);
  CHECK_OK(ck_dataset_load(other, &options, &dataset));
  check_small("IDX auto, given labels file", &dataset);
  ck_dataset_free(&dataset);
  unlink(other_labels);
  options.labels_path = NULL;

  /* The expected feature count. */
  options.features = 4;
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  check_unlabelled("IDX features 4", &dataset, 3, 4);
  ck_dataset_free(&dataset);
  options.features = 5;
  expect_failure("IDX auto, wrong count", images, &options, CK_ERROR_PARSE,
                 ": 4 features, but 5 are expected", images);
  options.labelled = 0;
  expect_failure("IDX unlabelled, wrong count", images, &options,
                 CK_ERROR_PARSE, ": 4 features, but 5 are expected", images);
  options.labelled = 1;
  CHECK(test_write_bytes(labels, small_labels, sizeof small_labels) == 0);
  expect_failure("IDX labelled, wrong count", images, &options, CK_ERROR_PARSE,
                 ": 4 features, but 5 are expected", images);
  options.features = 4;
  CHECK_OK(ck_dataset_load(images, &options, &dataset));
  check_small("IDX labelled, features 4", &dataset);
  ck_dataset_free(&dataset);
  unlink(labels);
}

/* Splits and normalisation take unlabelled data like any other. */
static void test_unlabelled_use(void) {
  ck_dataset whole, head, tail;
  ck_normalization normalization;
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.labelled = 0;
  char text[1024];
  size_t used = 0;
  for (size_t r = 0; r < 10; ++r)
    used += (size_t)snprintf(text + used, sizeof text - used, "%zu,%zu\n", r,
                             r * r);
  CHECK_OK(load_text("unl-rows.csv", text, &options, &whole));
  check_unlabelled("rows", &whole, 10, 2);

  CHECK_OK(ck_dataset_split(&whole, 3, &head, &tail));
  check_unlabelled("split head", &head, 3, 2);
  check_unlabelled("split tail", &tail, 7, 2);
  CHECK(head.values && head.values[0] == 0 && tail.values &&
        tail.values[0] == 3 && tail.values[1] == 9);
  ck_dataset_free(&head);
  ck_dataset_free(&tail);

  CHECK_OK(ck_dataset_split_random(&whole, 0.3, 42, &head, &tail));
  check_unlabelled("random head", &head, 7, 2);
  check_unlabelled("random tail", &tail, 3, 2);
  int seen[10] = {0};
  for (size_t r = 0; r < head.rows && head.values; ++r)
    seen[(size_t)head.values[2 * r]] += 1;
  for (size_t r = 0; r < tail.rows && tail.values; ++r)
    seen[(size_t)tail.values[2 * r]] += 1;
  for (int r = 0; r < 10; ++r)
    CHECK_MSG(seen[r] == 1, "unlabelled: row %d appears %d times", r, seen[r]);
  ck_dataset_free(&head);
  ck_dataset_free(&tail);

  CHECK_OK(ck_dataset_normalization_fit(&whole, CK_NORMALIZE_MINMAX,
                                        &normalization));
  CHECK(normalization.features == 2 && normalization.offset &&
        normalization.scale);
  CHECK_OK(ck_dataset_normalize(&normalization, &whole));
  if (whole.values)
    for (size_t r = 0; r < 10; ++r) {
      CHECK_NEAR(whole.values[2 * r], (double)r / 9.0, 1e-6);
      CHECK_NEAR(whole.values[2 * r + 1], (double)(r * r) / 81.0, 1e-6);
    }
  ck_dataset_normalization_free(&normalization);
  CHECK_OK(ck_dataset_normalization_fit(&whole, CK_NORMALIZE_ZSCORE,
                                        &normalization));
  CHECK_OK(ck_dataset_normalize(&normalization, &whole));
  ck_dataset_normalization_free(&normalization);
  check_unlabelled("normalised", &whole, 10, 2);

  char buffer[CK_DATASET_MAX_NAME + 1];
  for (size_t k = 0; k < 3; ++k)
    CHECK(ck_dataset_get_class_name(&whole, k, buffer, sizeof buffer) ==
          CK_ERROR_INVALID_ARGUMENT);
  ck_dataset_free(&whole);
}

/* ---- splits ------------------------------------------------------------- */

/* 10 rows: feature 0 is the row's index, feature 1 its square; labels by
 * name, cycling through 3 classes. */
static void make_rows(ck_dataset *dataset, size_t rows) {
  char text[8192];
  size_t used = 0;
  static const char *const kinds[] = {"red", "green", "blue"};
  for (size_t r = 0; r < rows && used < sizeof text; ++r)
    used += (size_t)snprintf(text + used, sizeof text - used, "%s,%zu,%zu\n",
                             kinds[r % 3], r, r * r);
  CHECK_OK(load_text("rows.csv", text, NULL, dataset));
}

static void check_part(const char *label, const ck_dataset *part,
                       const ck_dataset *whole, size_t rows) {
  CHECK_MSG(part->rows == rows && part->features == whole->features &&
                part->classes == whole->classes,
            "%s: %zu rows of %zu features, %zu classes", label, part->rows,
            part->features, part->classes);
  CHECK(part->class_names && part->class_names != whole->class_names);
  if (part->class_names && part->classes == whole->classes)
    for (size_t k = 0; k < part->classes; ++k)
      CHECK(part->class_names[k] != whole->class_names[k] &&
            strcmp(part->class_names[k], whole->class_names[k]) == 0);
  /* Each row is whole's row feature 0, with its label, in order. */
  for (size_t r = 0; r < part->rows && part->features == 2; ++r) {
    size_t source = (size_t)part->values[2 * r];
    CHECK(source < whole->rows);
    if (source >= whole->rows)
      continue;
    CHECK(part->values[2 * r + 1] == whole->values[2 * source + 1]);
    CHECK(part->labels[r] == whole->labels[source]);
    if (r > 0)
      CHECK_MSG(part->values[2 * r] > part->values[2 * r - 2],
                "%s: rows out of order at %zu", label, r);
  }
}

static void test_split(void) {
  ck_dataset whole, head, tail;
  make_rows(&whole, 10);
  CHECK(whole.rows == 10 && whole.classes == 3);

  CHECK_OK(ck_dataset_split(&whole, 3, &head, &tail));
  check_part("head", &head, &whole, 3);
  check_part("tail", &tail, &whole, 7);
  CHECK(head.values && head.values[0] == 0 && tail.values &&
        tail.values[0] == 3);
  ck_dataset_free(&head);
  ck_dataset_free(&tail);
  CHECK_OK(ck_dataset_split(&whole, 9, NULL, &tail));
  check_part("tail only", &tail, &whole, 1);
  ck_dataset_free(&tail);
  CHECK_OK(ck_dataset_split(&whole, 1, &head, NULL));
  check_part("head only", &head, &whole, 1);
  ck_dataset_free(&head);

  head.rows = 5;
  CHECK(ck_dataset_split(&whole, 0, &head, &tail) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(is_zeroed(&head) && is_zeroed(&tail));
  CHECK(ck_dataset_split(&whole, 10, &head, &tail) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_dataset_split(NULL, 1, &head, &tail) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_dataset_split(&whole, 1, &head, &head) == CK_ERROR_INVALID_ARGUMENT);
  ck_dataset empty = {0};
  CHECK(ck_dataset_split(&empty, 1, &head, &tail) == CK_ERROR_INVALID_ARGUMENT);

  /* Random splits. */
  ck_dataset head2, tail2;
  CHECK_OK(ck_dataset_split_random(&whole, 0.3, 42, &head, &tail));
  check_part("random head", &head, &whole, 7);
  check_part("random tail", &tail, &whole, 3);
  int seen[10] = {0};
  for (size_t r = 0; r < head.rows && head.values; ++r)
    seen[(size_t)head.values[2 * r]] += 1;
  for (size_t r = 0; r < tail.rows && tail.values; ++r)
    seen[(size_t)tail.values[2 * r]] += 1;
  for (int r = 0; r < 10; ++r)
    CHECK_MSG(seen[r] == 1, "row %d appears %d times", r, seen[r]);
  CHECK_OK(ck_dataset_split_random(&whole, 0.3, 42, &head2, &tail2));
  CHECK(head2.rows == 7 && tail2.rows == 3 && tail.values && tail2.values &&
        memcmp(tail.values, tail2.values, 6 * sizeof(float)) == 0 &&
        memcmp(head.values, head2.values, 14 * sizeof(float)) == 0);
  ck_dataset_free(&head2);
  ck_dataset_free(&tail2);
  int differs = 0;
  for (uint64_t seed = 43; seed < 48; ++seed) {
    CHECK_OK(ck_dataset_split_random(&whole, 0.3, seed, NULL, &tail2));
    if (tail2.values && tail.values &&
        memcmp(tail.values, tail2.values, 6 * sizeof(float)) != 0)
      ++differs;
    ck_dataset_free(&tail2);
  }
  CHECK_MSG(differs >= 4, "only %d of 5 other seeds differ", differs);
  ck_dataset_free(&head);
  ck_dataset_free(&tail);

  /* Every row is drawn about equally often over many seeds. */
  int drawn[10] = {0};
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    if (ck_dataset_split_random(&whole, 0.3, seed, NULL, &tail) != CK_OK)
      break;
    for (size_t r = 0; r < tail.rows; ++r)
      drawn[(size_t)tail.values[2 * r]] += 1;
    ck_dataset_free(&tail);
  }
  for (int r = 0; r < 10; ++r)
    CHECK_MSG(drawn[r] > 480 && drawn[r] < 720,
              "row %d drawn %d times in 2000 (expected about 600)", r,
              drawn[r]);

  /* Rounding: 0.25 of 10 is 2.5, which rounds to 3. */
  CHECK_OK(ck_dataset_split_random(&whole, 0.25, 1, &head, &tail));
  CHECK(head.rows == 7 && tail.rows == 3);
  ck_dataset_free(&head);
  ck_dataset_free(&tail);

  static const double bad[] = {0.0, 1.0, -0.5, 1.5, 0.04, 0.96};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    CHECK_MSG(ck_dataset_split_random(&whole, bad[i], 1, &head, &tail) ==
                  CK_ERROR_INVALID_ARGUMENT,
              "fraction %g", bad[i]);
  CHECK(ck_dataset_split_random(&whole, NAN, 1, &head, &tail) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(is_zeroed(&head) && is_zeroed(&tail));
  CHECK(ck_dataset_split_random(NULL, 0.5, 1, &head, &tail) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_dataset_split_random(&whole, 0.5, 1, &whole, &tail) ==
        CK_ERROR_INVALID_ARGUMENT);

  /* Class names. */
  char buffer[CK_DATASET_MAX_NAME + 1];
  check_name(&whole, 0, "blue");
  check_name(&whole, 2, "red");
  CHECK(ck_dataset_get_class_name(&whole, 3, buffer, sizeof buffer) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_dataset_get_class_name(&whole, 0, buffer, 4) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(buffer[0] == '\0');
  CHECK_INVALID(ck_dataset_get_class_name(&whole, 0, NULL, 8),
                "ck_dataset_get_class_name: buffer is NULL");
  CHECK_INVALID(ck_dataset_get_class_name(NULL, 0, buffer, sizeof buffer),
                "ck_dataset_get_class_name: dataset is NULL");
  CHECK_INVALID(ck_dataset_get_class_name(&whole, 0, buffer, 0),
                "ck_dataset_get_class_name: capacity is 0");
  ck_dataset numbered = {1, 1, NULL, NULL, 12, NULL};
  check_name(&numbered, 11, "11");
  CHECK(ck_dataset_get_class_name(&numbered, 11, buffer, 2) ==
        CK_ERROR_INVALID_ARGUMENT);

  ck_dataset_free(&whole);
  CHECK(is_zeroed(&whole));
  CHECK_OK(ck_dataset_free(&whole));
  CHECK_OK(ck_dataset_free(NULL));
}

/* ---- normalisation ------------------------------------------------------ */

static void test_normalization(void) {
  ck_dataset dataset, other;
  ck_normalization normalization;
  CHECK_OK(load_text("norm.csv", "A,1,5,-1\nB,2,5,1\nA,3,5,-1\nB,4,5,1\n", NULL,
                     &dataset));
  CHECK(dataset.rows == 4 && dataset.features == 3);

  CHECK_OK(ck_dataset_normalization_fit(&dataset, CK_NORMALIZE_ZSCORE,
                                        &normalization));
  CHECK(normalization.kind == CK_NORMALIZE_ZSCORE &&
        normalization.features == 3 && normalization.offset &&
        normalization.scale);
  if (normalization.offset && normalization.scale) {
    CHECK_NEAR(normalization.offset[0], 2.5, 1e-6);
    CHECK_NEAR(normalization.scale[0], 1.0 / sqrt(1.25), 1e-6);
    CHECK_NEAR(normalization.offset[1], 5.0, 1e-6);
    CHECK_NEAR(normalization.scale[1], 1.0, 0);
    CHECK_NEAR(normalization.offset[2], 0.0, 1e-6);
    CHECK_NEAR(normalization.scale[2], 1.0, 1e-6);
  }
  CHECK_OK(ck_dataset_normalize(&normalization, &dataset));
  if (dataset.values) {
    for (size_t r = 0; r < 4; ++r) {
      CHECK_NEAR(dataset.values[3 * r], ((double)r + 1 - 2.5) / sqrt(1.25),
                 1e-6);
      CHECK_NEAR(dataset.values[3 * r + 1], 0.0, 0);
      CHECK_NEAR(dataset.values[3 * r + 2], r % 2 ? 1.0 : -1.0, 1e-6);
    }
  }
  CHECK_OK(ck_dataset_normalization_free(&normalization));
  CHECK(!normalization.offset && !normalization.scale &&
        normalization.features == 0);
  ck_dataset_free(&dataset);

  CHECK_OK(load_text("norm.csv", "A,1,5,-1\nB,2,5,1\nA,3,5,-1\nB,4,5,1\n", NULL,
                     &dataset));
  CHECK_OK(ck_dataset_normalization_fit(&dataset, CK_NORMALIZE_MINMAX,
                                        &normalization));
  if (normalization.offset && normalization.scale) {
    CHECK_NEAR(normalization.offset[0], 1.0, 0);
    CHECK_NEAR(normalization.scale[0], 1.0 / 3.0, 1e-7);
    CHECK_NEAR(normalization.offset[1], 5.0, 0);
    CHECK_NEAR(normalization.scale[1], 1.0, 0);
    CHECK_NEAR(normalization.offset[2], -1.0, 0);
    CHECK_NEAR(normalization.scale[2], 0.5, 0);
  }
  CHECK_OK(ck_dataset_normalize(&normalization, &dataset));
  if (dataset.values)
    for (size_t r = 0; r < 4; ++r) {
      CHECK_NEAR(dataset.values[3 * r], (double)r / 3.0, 1e-6);
      CHECK_NEAR(dataset.values[3 * r + 1], 0.0, 0);
      CHECK_NEAR(dataset.values[3 * r + 2], r % 2 ? 1.0 : 0.0, 0);
    }

  /* A constant feature gets scale 1. */
  CHECK_OK(load_text("flat.csv", "A,1000000\nB,1000000\n", NULL, &other));
  ck_normalization flat;
  CHECK_OK(ck_dataset_normalization_fit(&other, CK_NORMALIZE_ZSCORE, &flat));
  CHECK(flat.scale && flat.scale[0] == 1.0f);
  ck_dataset_normalization_free(&flat);

  /* A data set of another width. */
  CHECK(ck_dataset_normalize(&normalization, &other) ==
        CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK(strstr(message, "3 features") != NULL);
  ck_dataset_normalization_free(&normalization);

  /* NONE: nothing stored, nothing changed. */
  CHECK_OK(
      ck_dataset_normalization_fit(&other, CK_NORMALIZE_NONE, &normalization));
  CHECK(normalization.kind == CK_NORMALIZE_NONE && !normalization.offset &&
        !normalization.scale && normalization.features == 1);
  CHECK_OK(ck_dataset_normalize(&normalization, &other));
  CHECK(other.values && other.values[0] == 1000000.0f);
  /* Even NONE is refused for a data set of another width. */
  CHECK(ck_dataset_normalize(&normalization, &dataset) ==
        CK_ERROR_INVALID_ARGUMENT);
  message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "1 features, the data set 3") != NULL,
            "NONE over another width: '%s'", message);
  CHECK_OK(ck_dataset_normalization_free(&normalization));
  CHECK_OK(ck_dataset_normalization_free(&normalization));
  CHECK_OK(ck_dataset_normalization_free(NULL));

  ck_dataset empty = {0};
  CHECK(ck_dataset_normalization_fit(&empty, CK_NORMALIZE_ZSCORE,
                                     &normalization) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_dataset_normalization_fit(&other, (ck_normalization_kind)7,
                                     &normalization) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(!normalization.offset && !normalization.scale);
  CHECK(ck_dataset_normalization_fit(&other, CK_NORMALIZE_ZSCORE, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_dataset_free(&dataset);
  ck_dataset_free(&other);
}

/* ---- the CSV label column ---------------------------------------------- */

typedef struct label_case {
  const char *label;
  const char *content;
  int label_column;
  int classes_from; /* 1: integers, 3 classes */
  int training;
  int option; /* 1: set by "--label-col" */
  ck_status status;
  const char *needle;  /* in the error; for CK_OK, in the warning (NULL:
                          no warning) */
  const char *needle2; /* a second part of either, or NULL */
} label_case;

/* A label column of one value is refused where it would make the classes
 * (or train), naming the file, the column and the other end column where
 * it looks like labels; a column that looks less like labels than the
 * other end column loads with a warning; columns that look right do not. */
static void test_label_column(void) {
  /* Image-like rows: a pixel that is always 0 first, the class last. */
  static const char pixel_first[] = "0,5,9,1\n0,7,3,0\n0,2,8,1\n0,4,1,0\n"
                                    "0,6,6,1\n0,9,2,0\n0,3,7,1\n0,8,4,0\n";
  static const char pixel_last[] = "1,5,9,7\n0,7,3,7\n1,2,8,7\n0,4,1,7\n";
  static const char measured[] = "0.5,5,1\n1.25,7,0\n2.5,2,1\n0.75,4,0\n"
                                 "1.5,6,2\n3.25,9,2\n";
  const label_case cases[] = {
      {"one value, the label last", pixel_first, 0, 0, 0, 0, CK_ERROR_PARSE,
       "column 1, the label column, holds one value ('0') in all 8 rows; a "
       "classifier needs at least 2 classes",
       "Column 4 holds 2 distinct integers, as labels do: set label_column "
       "to -1 (the last)"},
      {"one value, by the option", pixel_first, 0, 0, 0, 1, CK_ERROR_PARSE,
       "column 1, the label column, holds one value ('0')",
       "as labels do: give --label-col last"},
      {"one value last, the label first", pixel_last, -1, 0, 0, 1,
       CK_ERROR_PARSE, "column 4, the label column, holds one value ('7')",
       "Column 1 holds 2 distinct integers, as labels do: give --label-col "
       "first"},
      {"one name, no labels elsewhere", "cat,1,2\ncat,3,4\n", 0, 0, 0, 0,
       CK_ERROR_PARSE, "holds one value ('cat') in all 2 rows",
       "If the label is in another column, set label_column to -1 (the "
       "last), or its number"},
      {"one row", "3,1,2\n", 0, 0, 0, 1, CK_ERROR_PARSE,
       "holds one value ('3') in its one row",
       "give --label-col last, or its number"},
      {"one value, training with classes given", "1,1\n1,2\n", 0, 1, 1, 0,
       CK_ERROR_PARSE, "holds one value ('1') in all 2 rows", NULL},
      /* Test rows may all be of one class. */
      {"one value, classes given", "1,1\n1,2\n", 0, 1, 0, 0, CK_OK, NULL, NULL},
      {"measurements first, labels last", measured, 0, 0, 0, 1, CK_OK,
       "column 1, the label column, holds numbers that are not integers "
       "('0.5'), while column 3 holds 3 distinct integers, as labels do",
       "give --label-col last"},
      {"measurements, no labels elsewhere",
       "0.5,5,1.5\n1.25,7,0.5\n2.5,2,1.5\n0.75,4,0.5\n", 0, 0, 0, 1, CK_OK,
       NULL, NULL},
      {"negative integers last", "0.5,5,-1\n1.25,7,0\n2.5,2,-1\n0.75,4,0\n", 0,
       0, 0, 1, CK_OK, NULL, NULL},
      {"integer ids first, labels last",
       "0,5,1\n1,7,0\n2,2,1\n3,4,0\n4,6,1\n5,9,0\n", 0, 0, 0, 1, CK_OK,
       "holds 6 distinct values in 6 rows, while column 3 holds 2 distinct "
       "integers",
       NULL},
      {"name ids first, labels last",
       "a1,5,1\na2,7,0\na3,2,1\na4,4,0\na5,6,1\na6,9,0\n", 0, 0, 0, 0, CK_OK,
       "holds 6 distinct values in 6 rows",
       "if the label is there, set label_column to -1 (the last)"},
      {"integer labels first, a flag last",
       "0,5,1\n1,7,0\n2,2,1\n0,4,0\n1,6,1\n2,9,0\n", 0, 0, 0, 1, CK_OK, NULL,
       NULL},
      {"names first, a flag last", "cat,5,1\ndog,7,0\ncat,2,1\ndog,4,0\n", 0, 0,
       0, 1, CK_OK, NULL, NULL},
      {"a middle column of measurements",
       "3,0.5,5,1\n4,1.25,7,0\n5,2.5,2,1\n6,0.75,4,0\n", 1, 0, 0, 1, CK_OK,
       "column 2, the label column, holds numbers that are not integers",
       "column 4 holds 2 distinct integers, as labels do; if the label is "
       "there, give --label-col last"},
      {"measurements last, labels first",
       "1,5,0.5\n0,7,1.25\n1,2,2.5\n0,4,0.75\n", -1, 0, 0, 1, CK_OK,
       "column 3, the label column, holds numbers that are not integers "
       "('0.5'), while column 1 holds 2 distinct integers",
       "give --label-col first"},
  };
  char path[600];
  ck_dataset integers = {1, 1, NULL, NULL, 3, NULL};
  test_path_in(work_dir, "labels.csv", path, sizeof path);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const label_case *c = &cases[i];
    CHECK(test_write_bytes(path, c->content, strlen(c->content)) == 0);
    ck_dataset_options options;
    ck_dataset_options_init(&options);
    options.label_column = c->label_column;
    options.classes_from = c->classes_from ? &integers : NULL;
    ck__dataset_request request;
    memset(&request, 0, sizeof request);
    request.label_option = c->option ? "--label-col" : NULL;
    request.training = c->training;
    ck_dataset dataset = {7, 7, NULL, NULL, 7, NULL};
    const char *message = "";
    ck_error_clear();
    ck_status status = ck__dataset_load(path, &options, &request, &dataset);
    ck_error_get_last(&message);
    const char *text = c->status == CK_OK ? request.warning : message;
    CHECK_MSG(status == c->status, "%s: status %d, expected %d (%s)", c->label,
              (int)status, (int)c->status, message);
    if (c->needle) {
      CHECK_MSG(
          strncmp(text, path, strlen(path)) == 0 && strstr(text, c->needle),
          "%s: \"%s\" lacks the path or \"%s\"", c->label, text, c->needle);
      if (c->needle2)
        CHECK_MSG(strstr(text, c->needle2), "%s: \"%s\" lacks \"%s\"", c->label,
                  text, c->needle2);
    } else {
      CHECK_MSG(request.warning[0] == '\0', "%s: a warning: %s", c->label,
                request.warning);
    }
    if (c->status != CK_OK)
      CHECK_MSG(is_zeroed(&dataset) && request.warning[0] == '\0',
                "%s: data set not zeroed, or a warning, after a failure",
                c->label);
    ck_dataset_free(&dataset);
  }

  /* The public loader refuses too; unlabelled rows have no label column. */
  CHECK(test_write_bytes(path, pixel_first, strlen(pixel_first)) == 0);
  expect_failure("one value, public", path, NULL, CK_ERROR_PARSE,
                 "column 1, the label column, holds one value", path);
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.labelled = 0;
  ck_dataset dataset;
  CHECK_OK(ck_dataset_load(path, &options, &dataset));
  CHECK(dataset.rows == 8 && dataset.features == 4);
  ck_dataset_free(&dataset);
}

/* ---- Fashion-MNIST ------------------------------------------------------ */

static void test_fashion_mnist(void) {
  static const char images[] =
      "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  static const char labels[] =
      "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  if (access(images, R_OK) != 0 || access(labels, R_OK) != 0) {
    printf("SKIP (this part only): %s not found\n", images);
    return;
  }
#ifndef CK_HAVE_ZLIB
  printf("SKIP (this part only): built without zlib\n");
  return;
#endif
  ck_dataset dataset;
  CHECK_OK(ck_dataset_load(images, NULL, &dataset));
  CHECK(dataset.rows == 10000 && dataset.features == 784 &&
        dataset.classes == 10 && dataset.class_names == NULL);
  if (dataset.rows == 10000 && dataset.features == 784) {
    float low = 255, high = 0;
    size_t per_class[10] = {0};
    for (size_t i = 0; i < dataset.rows * dataset.features; ++i) {
      low = fminf(low, dataset.values[i]);
      high = fmaxf(high, dataset.values[i]);
    }
    for (size_t r = 0; r < dataset.rows; ++r)
      if (dataset.labels[r] >= 0 && dataset.labels[r] < 10)
        per_class[dataset.labels[r]] += 1;
    CHECK(low >= 0 && high <= 255 && high > 200);
    /* The t10k set holds exactly 1000 images of each of the 10 classes. */
    size_t counted = 0;
    for (int k = 0; k < 10; ++k) {
      counted += per_class[k];
      CHECK_MSG(per_class[k] == 1000,
                "Fashion-MNIST t10k: class %d has %zu images, want 1000", k,
                per_class[k]);
    }
    CHECK_MSG(counted == 10000, "Fashion-MNIST t10k: %zu labels in 0..9",
              counted);
    printf("Fashion-MNIST t10k: %zu rows of %zu features, values %g .. %g\n",
           dataset.rows, dataset.features, (double)low, (double)high);
  }
  ck_dataset_free(&dataset);
}

/* Writes size bytes to fd; 0, or -1 once the reader has gone (EPIPE). */
static int write_whole(int fd, const char *bytes, size_t size) {
  while (size > 0) {
    ssize_t wrote = write(fd, bytes, size);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0)
      return -1;
    bytes += wrote;
    size -= (size_t)wrote;
  }
  return 0;
}

/* A stream past the 1 GiB limit (a pipe, so its size is not known ahead)
 * is refused once the limit is passed: the reader neither holds nor
 * waits for more than one buffer of the limit's size. The writer offers
 * twice the limit and stops when the reader closes the pipe. */
static void test_oversized_stream(void) {
  enum { CHUNK = 1 << 20 };
  const size_t limit = (size_t)1 << 30;
  int ends[2];
  if (pipe(ends) != 0) {
    CHECK_MSG(0, "pipe: %s", strerror(errno));
    return;
  }
  pid_t writer = fork();
  CHECK(writer >= 0);
  if (writer == 0) {
    signal(SIGPIPE, SIG_IGN);
    close(ends[0]);
    static char rows[CHUNK];
    for (size_t i = 0; i < sizeof rows; i += 4)
      memcpy(rows + i, "1,2\n", 4);
    for (size_t sent = 0; sent < 2 * limit; sent += CHUNK)
      if (write_whole(ends[1], rows, CHUNK) != 0)
        _exit(0);
    _exit(1);
  }
  close(ends[1]);
  char path[64];
  snprintf(path, sizeof path, "/dev/fd/%d", ends[0]);
  ck_dataset data;
  ck_status status = ck_dataset_load(path, NULL, &data);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_UNSUPPORTED && strstr(message, path) &&
                strstr(message, "more than 1073741824 bytes"),
            "status %d: %s", (int)status, message);
  if (status == CK_OK)
    ck_dataset_free(&data);
  close(ends[0]);
  int wait_status = 0;
  if (writer > 0) {
    CHECK(waitpid(writer, &wait_status, 0) == writer);
    CHECK_MSG(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0,
              "the writer sent all %zu bytes: the reader read past the "
              "limit",
              2 * limit);
  }
  struct rusage usage;
  CHECK(getrusage(RUSAGE_SELF, &usage) == 0);
  /* ru_maxrss is in KiB. Less than twice the limit: the buffer of the
   * limit's size, and the half-size one a realloc may copy it from (as
   * under AddressSanitizer), but never a buffer filled past the limit. */
  CHECK_MSG((size_t)usage.ru_maxrss * 1024 < limit + limit * 3 / 4,
            "peak resident size %ld KiB", usage.ru_maxrss);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  snprintf(work_dir, sizeof work_dir, "%s/clkit-dataset-XXXXXX", base);
  if (!mkdtemp(work_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", work_dir, strerror(errno));
    return 1;
  }
  test_idx_good();
  test_idx_types();
  test_idx_malformed();
  test_truncations();
  test_csv_good();
  test_csv_malformed();
  test_label_column();
  test_unlabelled_csv();
  test_unlabelled_idx();
  test_unlabelled_use();
  test_split();
  test_normalization();
  test_fashion_mnist();
  test_oversized_stream();
  remove_tree(work_dir);
  return CHECK_DONE();
}
