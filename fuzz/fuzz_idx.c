/*
 * fuzz_idx.c - IDX data sets, gzip-compressed or not (ck_dataset_load of
 * a features file and its labels file). The input is
 *   byte 0      options: bit 0 compresses the features and bit 1 the
 *               labels with gzip here (so that mutations of the IDX inside
 *               pass the gzip checks; compressed input is read as it is
 *               too); bit 2 loads unlabelled; bits 3-4 the class limit
 *               (0, 2, 10, 256); bits 5-6 the features expected (0, 1, 2,
 *               784); bit 7 takes the classes from a set of 3 classes
 *   bytes 1-2   F, the features file's length (little-endian)
 *   then        F bytes of features file (fewer where the input ends),
 *               and the labels file.
 * An accepted set must be as clkit/dataset.h describes it.
 */
#include "fuzz.h"

#include <math.h>
#include <zlib.h>

#include "clkit/dataset.h"
#include "nn/nn_internal.h"

/* Compresses in[0 .. size) into a gzip member; returns its size. */
static size_t gzip(const uint8_t *in, size_t size, uint8_t **out) {
  z_stream stream;
  memset(&stream, 0, sizeof stream);
  FUZZ_CHECK(deflateInit2(&stream, 1, Z_DEFLATED, 15 + 16, 8,
                          Z_DEFAULT_STRATEGY) == Z_OK);
  size_t capacity = deflateBound(&stream, (uLong)size);
  *out = malloc(capacity);
  FUZZ_CHECK(*out != NULL);
  stream.next_in = (Bytef *)(uintptr_t)in;
  stream.avail_in = (uInt)size;
  stream.next_out = *out;
  stream.avail_out = (uInt)capacity;
  FUZZ_CHECK(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  size_t used = capacity - stream.avail_out;
  deflateEnd(&stream);
  return used;
}

/* Writes a part of the input to file, compressed when asked. */
static const char *write_part(fuzz_file *file, const uint8_t *data, size_t size,
                              int compress) {
  if (!compress)
    return fuzz_file_write(file, data, size, NULL, 0);
  uint8_t *packed = NULL;
  size_t packed_size = gzip(data, size, &packed);
  const char *path = fuzz_file_write(file, packed, packed_size, NULL, 0);
  free(packed);
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file features_file, labels_file;
  static const size_t limits[] = {0, 2, 10, 256}, widths[] = {0, 1, 2, 784};
  static float from_values[1];
  static int32_t from_labels[1];
  static const ck_dataset from = {1, 1, from_values, from_labels, 3, NULL};
  if (size < 3)
    return 0;
  uint8_t flags = data[0];
  size_t length = (size_t)(data[1] | data[2] << 8);
  data += 3;
  size -= 3;
  if (length > size)
    length = size;
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.labelled = flags & 4 ? 0 : 1;
  options.class_limit = limits[flags >> 3 & 3];
  options.features = widths[flags >> 5 & 3];
  options.classes_from = flags & 128 ? &from : NULL;
  const char *path = write_part(&features_file, data, length, flags & 1);
  if (options.labelled)
    options.labels_path =
        write_part(&labels_file, data + length, size - length, flags & 2);

  ck_dataset dataset;
  ck__dataset_request request = {.required = CK__DATASET_IDX};
  if (ck__dataset_load(path, &options, &request, &dataset) != CK_OK)
    return 0;
  FUZZ_CHECK(request.format == CK__DATASET_IDX);
  FUZZ_CHECK(dataset.rows >= 1 && dataset.features >= 1);
  FUZZ_CHECK(!options.features || dataset.features == options.features);
  FUZZ_CHECK(options.labelled ? dataset.classes >= 1 : dataset.classes == 0);
  FUZZ_CHECK(!options.class_limit || !options.labelled ||
             options.classes_from || dataset.classes <= options.class_limit);
  for (size_t i = 0; i < dataset.rows * dataset.features; ++i)
    FUZZ_CHECK(isfinite(dataset.values[i]));
  for (size_t r = 0; r < dataset.rows; ++r)
    FUZZ_CHECK(dataset.labels[r] >= 0 &&
               (size_t)dataset.labels[r] <
                   (dataset.classes ? dataset.classes : 1));
  ck_dataset_free(&dataset);
  return 0;
}
